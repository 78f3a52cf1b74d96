"""numba twins of ``game.integrators`` under the whole force field of ``game.forces.Forces``:
gravity, drag, springs (the grab's among them) and attractors (loaded with ``game._kernels``).

``acceleration`` is ``Forces.acceleration`` with the same arithmetic in the same order:
gravity minus drag times velocity; the springs' forces summed per ball in spring order, the
a ends and the b ends apart (as ``np.bincount`` sums them) and subtracted, then times the
inverse mass; each attractor's pull added in zone order. The steppers take their slopes
exactly as the numpy steppers do on the stacked state y = [x, v], so the two agree to the
last bit (tests/test_forces_compiled.py). No fastmath: it would reorder the sums.

Every stepper has the signature ``step(pos, vel, inv_mass, h, *Forces.packed())`` and
advances ``pos`` and ``vel`` (N, 2) in place by h seconds; ``inv_mass`` (N,) 1/kg. The
packed forces (see ``Forces.packed``): gx, gy m/s^2, drag 1/s; the springs' a (S,), b (S,)
(-1: anchored), anchor (S, 2) m, stiffness (S,) N/m, damping (S,) N s/m, rest (S,) m; the
attractors' shape (Z,) (index in forces.ATTRACTOR_SHAPES), centre (Z, 2) m, strength (Z,) m/s^2, shape
numbers (Z, 5) and their polygons' edges (E, 4) from edge_start (Z + 1,).
"""
import math

import numpy as np
from numba import njit

from game.forces import ATTRACTOR_MIN_DISTANCE, ATTRACTOR_SHAPES, SPRING_MIN_LENGTH

RECT, CIRCLE, ELLIPSE, POLYGON = (ATTRACTOR_SHAPES.index(name) for name in ("rect", "circle", "ellipse", "polygon"))


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
def acceleration(pos, vel, inv_mass, gx, gy, drag, sa, sb, anchor, stiffness, damping, rest,
                 shape, center, strength, numbers, edges, edge_start):
    """(N, 2) m/s^2: ``Forces.acceleration(pos, vel, inv_mass)``, the same bits."""
    n = pos.shape[0]
    acc = np.empty((n, 2))
    for i in range(n):
        if drag != 0.0:
            acc[i, 0] = gx - drag * vel[i, 0]
            acc[i, 1] = gy - drag * vel[i, 1]
        else:
            acc[i, 0] = gx
            acc[i, 1] = gy
    if len(sa):
        # F_a = u m, m = -(k (L - rest) + c (v_a - v_b) . u); the b end gets -F_a.
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
            length = math.sqrt(dx * dx + dy * dy)
            if length > SPRING_MIN_LENGTH:
                ux = dx / length
                uy = dy / length
            else:
                ux = 0.0
                uy = 0.0
            closing = (vel[a, 0] - wx) * ux + (vel[a, 1] - wy) * uy
            magnitude = -(stiffness[s] * (length - rest[s]) + damping[s] * closing)
            fx = ux * magnitude
            fy = uy * magnitude
            on_a[a, 0] += fx
            on_a[a, 1] += fy
            if b >= 0:
                on_b[b, 0] += fx
                on_b[b, 1] += fy
        for i in range(n):
            acc[i, 0] = acc[i, 0] + (on_a[i, 0] - on_b[i, 0]) * inv_mass[i]
            acc[i, 1] = acc[i, 1] + (on_a[i, 1] - on_b[i, 1]) * inv_mass[i]
    for z in range(len(shape)):
        cx = center[z, 0]
        cy = center[z, 1]
        for i in range(n):
            if _inside(shape[z], numbers[z], edges, edge_start[z], edge_start[z + 1], pos[i, 0], pos[i, 1]):
                tx = cx - pos[i, 0]
                ty = cy - pos[i, 1]
                dist = math.sqrt(tx * tx + ty * ty)
                if dist > ATTRACTOR_MIN_DISTANCE:
                    ux = tx / dist
                    uy = ty / dist
                else:
                    ux = 0.0
                    uy = 0.0
                acc[i, 0] = acc[i, 0] + strength[z] * ux
                acc[i, 1] = acc[i, 1] + strength[z] * uy
    return acc


@njit(cache=True)
def euler(pos, vel, inv_mass, h, gx, gy, drag, sa, sb, anchor, stiffness, damping, rest,
          shape, center, strength, numbers, edges, edge_start):
    """integrators.euler: y + h f(y)."""
    acc = acceleration(pos, vel, inv_mass, gx, gy, drag, sa, sb, anchor, stiffness, damping, rest,
                       shape, center, strength, numbers, edges, edge_start)
    for i in range(pos.shape[0]):
        for d in range(2):
            pos[i, d] = pos[i, d] + h * vel[i, d]
            vel[i, d] = vel[i, d] + h * acc[i, d]


@njit(cache=True)
def semi_implicit(pos, vel, inv_mass, h, gx, gy, drag, sa, sb, anchor, stiffness, damping, rest,
                  shape, center, strength, numbers, edges, edge_start):
    """integrators.semi_implicit_euler: v1 = v0 + h a(x0, v0), then x1 = x0 + h v1."""
    acc = acceleration(pos, vel, inv_mass, gx, gy, drag, sa, sb, anchor, stiffness, damping, rest,
                       shape, center, strength, numbers, edges, edge_start)
    for i in range(pos.shape[0]):
        for d in range(2):
            v1 = vel[i, d] + h * acc[i, d]
            pos[i, d] = pos[i, d] + h * v1
            vel[i, d] = v1


@njit(cache=True)
def verlet(pos, vel, inv_mass, h, gx, gy, drag, sa, sb, anchor, stiffness, damping, rest,
           shape, center, strength, numbers, edges, edge_start):
    """integrators.velocity_verlet: x1 = x0 + h v0 + h^2/2 a0; v1 = v0 + h/2 (a0 + a1),
    a1 = a(x1, v0 + h a0)."""
    n = pos.shape[0]
    a0 = acceleration(pos, vel, inv_mass, gx, gy, drag, sa, sb, anchor, stiffness, damping, rest,
                      shape, center, strength, numbers, edges, edge_start)
    x1 = np.empty((n, 2))
    guess = np.empty((n, 2))
    for i in range(n):
        for d in range(2):
            x1[i, d] = pos[i, d] + h * vel[i, d] + (0.5 * h * h) * a0[i, d]
            guess[i, d] = vel[i, d] + h * a0[i, d]
    a1 = acceleration(x1, guess, inv_mass, gx, gy, drag, sa, sb, anchor, stiffness, damping, rest,
                      shape, center, strength, numbers, edges, edge_start)
    for i in range(n):
        for d in range(2):
            pos[i, d] = x1[i, d]
            vel[i, d] = vel[i, d] + (0.5 * h) * (a0[i, d] + a1[i, d])


@njit(cache=True)
def rk4(pos, vel, inv_mass, h, gx, gy, drag, sa, sb, anchor, stiffness, damping, rest,
        shape, center, strength, numbers, edges, edge_start):
    """integrators.rk4 on y = [x, v]: slopes k = [v, a(x, v)] at y, y + h/2 k1, y + h/2 k2,
    y + h k3; y1 = y + h/6 (k1 + 2 (k2 + k3) + k4)."""
    n = pos.shape[0]
    half = 0.5 * h
    sixth = h / 6.0
    k1 = acceleration(pos, vel, inv_mass, gx, gy, drag, sa, sb, anchor, stiffness, damping, rest,
                      shape, center, strength, numbers, edges, edge_start)
    x2 = np.empty((n, 2))
    v2 = np.empty((n, 2))
    for i in range(n):
        for d in range(2):
            x2[i, d] = pos[i, d] + half * vel[i, d]
            v2[i, d] = vel[i, d] + half * k1[i, d]
    k2 = acceleration(x2, v2, inv_mass, gx, gy, drag, sa, sb, anchor, stiffness, damping, rest,
                      shape, center, strength, numbers, edges, edge_start)
    x3 = np.empty((n, 2))
    v3 = np.empty((n, 2))
    for i in range(n):
        for d in range(2):
            x3[i, d] = pos[i, d] + half * v2[i, d]
            v3[i, d] = vel[i, d] + half * k2[i, d]
    k3 = acceleration(x3, v3, inv_mass, gx, gy, drag, sa, sb, anchor, stiffness, damping, rest,
                      shape, center, strength, numbers, edges, edge_start)
    x4 = np.empty((n, 2))
    v4 = np.empty((n, 2))
    for i in range(n):
        for d in range(2):
            x4[i, d] = pos[i, d] + h * v3[i, d]
            v4[i, d] = vel[i, d] + h * k3[i, d]
    k4 = acceleration(x4, v4, inv_mass, gx, gy, drag, sa, sb, anchor, stiffness, damping, rest,
                      shape, center, strength, numbers, edges, edge_start)
    for i in range(n):
        for d in range(2):
            x = pos[i, d]
            v = vel[i, d]
            pos[i, d] = x + sixth * (v + 2.0 * (v2[i, d] + v3[i, d]) + v4[i, d])
            vel[i, d] = v + sixth * (k1[i, d] + 2.0 * (k2[i, d] + k3[i, d]) + k4[i, d])


FORCE_STEPPERS = {"euler": euler, "semi-implicit": semi_implicit, "verlet": verlet, "rk4": rk4}


def warm_up():
    """Compile (or load from the cache) every stepper on a tiny problem with one spring of
    each kind and one attractor of each shape."""
    pos = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    inv_mass = np.ones(3)
    ints = np.array([0, 1], np.int64)
    packed = (0.0, -9.81, 0.1, ints, np.array([1, -1], np.int64), np.zeros((2, 2)), np.ones(2), np.ones(2),
              np.ones(2), np.array([RECT, CIRCLE, ELLIPSE, POLYGON], np.int64), np.zeros((4, 2)), np.ones(4),
              np.ones((4, 5)), np.array([[0.0, 0.0, 1.0, 0.0], [1.0, 0.0, -1.0, 1.0], [0.0, 1.0, 0.0, -1.0]]),
              np.array([0, 0, 0, 0, 3], np.int64))
    for stepper in FORCE_STEPPERS.values():
        stepper(pos.copy(), np.zeros((3, 2)), inv_mass, 1 / 240, *packed)
