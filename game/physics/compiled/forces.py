"""numba twins of ``game.physics.integrators`` under the whole force field of ``game.physics.forces.Forces``:
gravity, drag, springs (the grab's among them) and attractors (loaded with the other kernels,
``game.physics.compiled.warm``).

``accelerate`` is ``Forces.acceleration`` with the same arithmetic in the same order:
gravity minus drag times velocity; the springs' forces summed per ball in spring order, the
a ends and the b ends apart (as ``np.bincount`` sums them) and subtracted, then times the
inverse mass; each attractor's pull added in zone order. The steppers take their slopes
exactly as the numpy steppers do on the stacked state y = [x, v], so the two agree to the
last bit (tests/test_forces_compiled.py). No fastmath: it would reorder the sums.

Every stepper of FORCE_STEPPERS has the signature ``stepper(pos, vel, inv_mass, h, Forces.packed())`` and
advances ``pos`` and ``vel`` (N, 2) in place by h seconds; ``inv_mass`` (N,) 1/kg. The
packed forces (a bundles.ForceField, see ``Forces.packed``): gx, gy m/s^2, drag 1/s; the springs' a (S,), b (S,)
(-1: anchored), anchor (S, 2) m, stiffness (S,) N/m, damping (S,) N s/m, rest (S,) m; the
attractors' shape (Z,) (index in forces.ATTRACTOR_SHAPES), centre (Z, 2) m, strength (Z,) m/s^2, shape
numbers (Z, 5) and their polygons' edges (E, 4) from edge_start (Z + 1,).
"""
import math

import numpy as np
from numba import njit

from game.physics import bundles
from game.physics.bundles import ForceField
from game.physics.compiled import stamps
from game.physics.forces import ATTRACTOR_MIN_DISTANCE, ATTRACTOR_SHAPES, SPRING_MIN_LENGTH

RECT, CIRCLE, ELLIPSE, POLYGON = (ATTRACTOR_SHAPES.index(name) for name in ("rect", "circle", "ellipse", "polygon"))


@njit(cache=True)
def _unit(x, y, shortest):
    """(ux, uy, |v|): v = (x, y) over its length, (0, 0) where it is no longer than
    ``shortest`` m (as forces.py's springs and attractors guard the division)."""
    length = math.sqrt(x * x + y * y)
    if length > shortest:
        return x / length, y / length, length
    return 0.0, 0.0, length


@njit(cache=True)
def _inside(shape, numbers, edges, first, last, x, y):
    """Whether the point (x, y) lies in one attractor, as ``world.Zone.contains`` decides.

    rect: numbers = (x_lo, y_lo, x_hi, y_hi); circle: (cx, cy, r^2); ellipse: (cx, cy, |rx|,
    |ry|, (rx ry)^2), tested as (dx ry)^2 + (dy rx)^2 <= (rx ry)^2 within the box; polygon:
    (sign of its area, x_min, x_max, y_min, y_max) and edges[first:last] = (ax, ay, ex, ey):
    inside when every cross product ex (y - ay) - ey (x - ax) has the area's sign (or is 0).
    """
    if shape == RECT:
        return x >= numbers[0] and y >= numbers[1] and x <= numbers[2] and y <= numbers[3]
    if shape == CIRCLE:
        dx = x - numbers[0]
        dy = y - numbers[1]
        return dx * dx + dy * dy <= numbers[2]
    if shape == ELLIPSE:
        dx = x - numbers[0]
        dy = y - numbers[1]
        rx = numbers[2]
        ry = numbers[3]
        a = dx * ry
        b = dy * rx
        return abs(dx) <= rx and abs(dy) <= ry and a * a + b * b <= numbers[4]
    sign = numbers[0]
    for k in range(first, last):
        cross = edges[k, 2] * (y - edges[k, 1]) - edges[k, 3] * (x - edges[k, 0])
        if sign > 0.0:
            if not cross >= 0.0:
                return False
        elif sign < 0.0:
            if not cross <= 0.0:
                return False
        elif not cross == 0.0:
            return False
    if sign == 0.0:     # a polygon of no area: its vertices' span
        return x >= numbers[1] and x <= numbers[2] and y >= numbers[3] and y <= numbers[4]
    return True


@njit(cache=True)
def accelerate(out, pos, vel, inv_mass, field):
    """Write into ``out`` (N, 2) m/s^2 ``Forces.acceleration(pos, vel, inv_mass)``, the same bits;
    ``field``: the bundles.ForceField of ``Forces.packed()``."""
    gx, gy, drag, sa, sb, anchor = field.gx, field.gy, field.drag, field.sa, field.sb, field.anchor
    stiffness, damping, rest = field.stiffness, field.damping, field.rest
    shape, center, strength, numbers, edges, edge_start = (field.shape, field.center, field.strength, field.numbers,
                                                           field.edges, field.edge_start)
    n = pos.shape[0]
    for i in range(n):
        if drag != 0.0:
            out[i, 0] = gx - drag * vel[i, 0]
            out[i, 1] = gy - drag * vel[i, 1]
        else:
            out[i, 0] = gx
            out[i, 1] = gy
    if len(sa):
        # F_a = u m, m = k (rest - L) - c (v_a - v_b) . u; the b end gets -F_a.
        on_a = np.zeros((n, 2))
        on_b = np.zeros((n, 2))
        for s in range(len(sa)):
            a = sa[s]
            b = sb[s]
            if b < 0:
                ox = anchor[s, 0]
                oy = anchor[s, 1]
                wx = 0.0
                wy = 0.0
            else:
                ox = pos[b, 0]
                oy = pos[b, 1]
                wx = vel[b, 0]
                wy = vel[b, 1]
            dx = pos[a, 0] - ox
            dy = pos[a, 1] - oy
            ux, uy, length = _unit(dx, dy, SPRING_MIN_LENGTH)
            closing = (vel[a, 0] - wx) * ux + (vel[a, 1] - wy) * uy
            magnitude = stiffness[s] * (rest[s] - length) - damping[s] * closing
            fx = ux * magnitude
            fy = uy * magnitude
            on_a[a, 0] += fx
            on_a[a, 1] += fy
            if b >= 0:
                on_b[b, 0] += fx
                on_b[b, 1] += fy
        for i in range(n):
            out[i, 0] = out[i, 0] + (on_a[i, 0] - on_b[i, 0]) * inv_mass[i]
            out[i, 1] = out[i, 1] + (on_a[i, 1] - on_b[i, 1]) * inv_mass[i]
    for z in range(len(shape)):
        cx = center[z, 0]
        cy = center[z, 1]
        for i in range(n):
            if _inside(shape[z], numbers[z], edges, edge_start[z], edge_start[z + 1], pos[i, 0], pos[i, 1]):
                tx = cx - pos[i, 0]
                ty = cy - pos[i, 1]
                ux, uy, _ = _unit(tx, ty, ATTRACTOR_MIN_DISTANCE)
                out[i, 0] = out[i, 0] + strength[z] * ux
                out[i, 1] = out[i, 1] + strength[z] * uy


# The steppers, numbered (step's kind).
EULER, SEMI_IMPLICIT, VERLET, RK4 = 0, 1, 2, 3


@njit(cache=True)
def step(kind, pos, vel, inv_mass, h, field):
    """Advance ``pos`` and ``vel`` (N, 2) in place by h seconds under the force field ``field``
    (bundles.ForceField) with stepper ``kind`` (EULER,
    SEMI_IMPLICIT, VERLET or RK4), each as game.physics.integrators computes it on y = [x, v]:

    - euler: x1 = x + h v; v1 = v + h a(x, v);
    - semi-implicit: v1 = v + h a(x, v); x1 = x + h v1;
    - verlet: x1 = x + h v + h^2/2 a0; v1 = v + h/2 (a0 + a1), a0 = a(x, v), a1 = a(x1, v + h a0);
    - rk4: slopes k = [v, a(x, v)] at y, y + h/2 k1, y + h/2 k2, y + h k3;
      y1 = y + h/6 (k1 + 2 (k2 + k3) + k4).

    One kernel with one call of ``accelerate`` in a loop over the stages (not one kernel per
    stepper) keeps the compiling short.
    """
    n = pos.shape[0]
    half = 0.5 * h
    stages = 1
    if kind == VERLET:
        stages = 2
    elif kind == RK4:
        stages = 4
    slope = np.empty((stages, n, 2))       # a at each stage
    speed = np.empty((stages, n, 2))       # v at each stage (rk4's position slopes)
    xs = np.empty((n, 2))                  # the stage's position
    for i in range(n):
        for d in range(2):
            xs[i, d] = pos[i, d]
            speed[0, i, d] = vel[i, d]
    for k in range(stages):
        accelerate(slope[k], xs, speed[k], inv_mass, field)
        if k + 1 < stages:
            _next_stage(kind, k, pos, vel, h, half, slope, speed, xs)
    _finish(kind, pos, vel, h, slope, speed, xs)


@njit(cache=True)
def _next_stage(kind, k, pos, vel, h, half, slope, speed, xs):
    """The state of stage k + 1 into xs and speed[k + 1]: verlet's prediction (x + h v + h^2/2 a0,
    v + h a0), or rk4's y + c h k_k with c = 1/2, 1/2, 1."""
    if kind == VERLET:
        hh = 0.5 * h * h
        for i in range(pos.shape[0]):
            for d in range(2):
                xs[i, d] = pos[i, d] + h * vel[i, d] + hh * slope[0, i, d]
                speed[1, i, d] = vel[i, d] + h * slope[0, i, d]
        return
    c = h if k == 2 else half
    for i in range(pos.shape[0]):
        for d in range(2):
            xs[i, d] = pos[i, d] + c * speed[k, i, d]
            speed[k + 1, i, d] = vel[i, d] + c * slope[k, i, d]


@njit(cache=True)
def _finish(kind, pos, vel, h, slope, speed, xs):
    """The step's end state from its slopes, as each numpy stepper combines them."""
    n = pos.shape[0]
    if kind == EULER:
        for i in range(n):
            for d in range(2):
                v = vel[i, d]
                pos[i, d] = pos[i, d] + h * v
                vel[i, d] = v + h * slope[0, i, d]
    elif kind == SEMI_IMPLICIT:
        for i in range(n):
            for d in range(2):
                v1 = vel[i, d] + h * slope[0, i, d]
                pos[i, d] = pos[i, d] + h * v1
                vel[i, d] = v1
    elif kind == VERLET:
        for i in range(n):
            for d in range(2):
                pos[i, d] = xs[i, d]
                vel[i, d] = vel[i, d] + (0.5 * h) * (slope[0, i, d] + slope[1, i, d])
    else:
        sixth = h / 6.0
        for i in range(n):
            for d in range(2):
                pos[i, d] = pos[i, d] + sixth * (speed[0, i, d] + 2.0 * (speed[1, i, d] + speed[2, i, d])
                                                 + speed[3, i, d])
                vel[i, d] = vel[i, d] + sixth * (slope[0, i, d] + 2.0 * (slope[1, i, d] + slope[2, i, d])
                                                 + slope[3, i, d])


def _stepper(kind):
    def stepper(pos, vel, inv_mass, h, field):
        step(kind, pos, vel, inv_mass, h, field)
    return stepper


# name -> stepper(pos, vel, inv_mass, h, Forces.packed()), as game.physics.integrators.INTEGRATORS names them
FORCE_STEPPERS = {"euler": _stepper(EULER), "semi-implicit": _stepper(SEMI_IMPLICIT), "verlet": _stepper(VERLET),
                  "rk4": _stepper(RK4)}


def warm_up():
    """Compile (or load from the cache) every stepper on a tiny problem with one spring of
    each kind and one attractor of each shape."""
    pos = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    inv_mass = np.ones(3)
    ints = np.array([0, 1], np.int64)
    packed = ForceField(0.0, -9.81, 0.1, ints, np.array([1, -1], np.int64), np.zeros((2, 2)), np.ones(2), np.ones(2),
              np.ones(2), np.array([RECT, CIRCLE, ELLIPSE, POLYGON], np.int64), np.zeros((4, 2)), np.ones(4),
              np.ones((4, 5)), np.array([[0.0, 0.0, 1.0, 0.0], [1.0, 0.0, -1.0, 1.0], [0.0, 1.0, 0.0, -1.0]]),
              np.array([0, 0, 0, 0, 3], np.int64))
    for kind in (EULER, SEMI_IMPLICIT, VERLET, RK4):
        step(kind, pos.copy(), np.zeros((3, 2)), inv_mass, 1 / 240, packed)


# The kernels here read the bundles' fields by name.
stamps.depend_on(stamps.dispatchers(globals()), (bundles,))
