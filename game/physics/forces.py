"""Forces on balls: gravity, linear drag, springs and attractors, summed into one acceleration.

Every integrator calls the same function, ``Forces.acceleration(pos, vel, t)``, so a change of
integrator changes nothing but the stepping. Contacts are not forces: the world resolves
them after the integrator (operator splitting).

Shapes: ``pos`` and ``vel`` are (N, 2) arrays in metres and m/s; accelerations are (N, 2)
in m/s^2.

This is the reference of the compiled forces (game.physics.compiled.forces), which repeat its
arithmetic in its order to give the same bits: dot products sum x then y; each ball's spring
force is the sum over its springs in spring order where it is end a, minus that where it is
end b (``np.bincount`` sums in order); attractors add in zone order.
"""
import numpy as np

from game import defaults

from game.physics import geometry
from game.physics.bundles import ForceField

SPRING_MIN_LENGTH = 1e-12       # m: a spring shorter than this has no direction and pulls nowhere
ATTRACTOR_MIN_DISTANCE = 1e-9   # m: a ball this near an attractor's centre is not pulled
# The zone shapes an attractor may have, numbered in this order for the compiled forces
# (Forces.packed, game.physics.compiled.forces).
ATTRACTOR_SHAPES = ("rect", "circle", "ellipse", "polygon")


def _dot(p, q):
    """(S,) row-wise dot product of two (S, 2) arrays, summed x then y (as the kernels sum it)."""
    return p[:, 0] * q[:, 0] + p[:, 1] * q[:, 1]


class Springs:
    """Damped Hooke springs, as arrays. ``b == -1`` means the spring is anchored at ``anchor``.

    ``ids`` (S,) are stable ids, as balls have: an index shifts when an earlier spring or a
    ball goes, an id never does (``index(spring_id)`` finds it again).

    Force on ball a, with d = x_a - x_b, L = |d|, u = d / L:
        F_a = (stiffness (rest - L) - damping (v_a - v_b) . u) u,   F_b = -F_a

    (written without a unary minus: the compiler of the kernels may move a negation, which
    changes nothing but the sign of a NaN, and a blown-up world's NaNs keep the same bits).
    """

    def __init__(self):
        self.a = np.zeros(0, np.int64)
        self.b = np.zeros(0, np.int64)
        self.anchor = np.zeros((0, 2))
        self.stiffness = np.zeros(0)
        self.damping = np.zeros(0)
        self.rest = np.zeros(0)
        self.ids = np.zeros(0, np.int64)
        self._next_id = 0

    def __len__(self):
        return len(self.a)

    def add(self, a, b, anchor, stiffness, damping, rest):
        """Append one spring; returns its index."""
        self.a = np.append(self.a, int(a))
        self.b = np.append(self.b, int(b))
        self.anchor = np.vstack((self.anchor, np.asarray(anchor, float).reshape(1, 2)))
        self.stiffness = np.append(self.stiffness, float(stiffness))
        self.damping = np.append(self.damping, float(damping))
        self.rest = np.append(self.rest, float(rest))
        self.ids = np.append(self.ids, self._next_id)
        self._next_id += 1
        return len(self.a) - 1

    def index(self, spring_id):
        """The index of the spring with this stable id now, -1 if it is gone."""
        where = np.flatnonzero(self.ids == spring_id)
        return int(where[0]) if len(where) else -1

    ARRAYS = ("a", "b", "anchor", "stiffness", "damping", "rest", "ids")   # one row a spring

    def keep(self, mask):
        """Keep only the springs where ``mask`` is true."""
        for name in self.ARRAYS:
            setattr(self, name, getattr(self, name)[mask])

    def row(self, k):
        """Spring ``k`` as {array name: a copy of its row}."""
        return {name: np.array(getattr(self, name)[k], copy=True) for name in self.ARRAYS}

    def insert(self, row):
        """Put back a spring taken with ``row`` (its ``a`` and ``b`` already the ball indices
        of now) at its place in stable-id order; returns its index."""
        k = int(np.searchsorted(self.ids, row["ids"]))
        for name in self.ARRAYS:
            setattr(self, name, np.insert(getattr(self, name), k, row[name], axis=0))
        return k

    def shift_balls(self, at):
        """Ball indices from ``at`` on move one up: a ball was inserted at ``at``."""
        self.a = np.where(self.a >= at, self.a + 1, self.a)
        self.b = np.where(self.b >= at, self.b + 1, self.b)

    def remap_balls(self, new_index):
        """After balls were removed: ``new_index[old] -> new`` (-1 = gone). Drops springs on gone balls."""
        anchored = self.b < 0
        a = new_index[self.a]
        b = np.where(anchored, -1, new_index[np.where(anchored, 0, self.b)])
        alive = (a >= 0) & (anchored | (b >= 0))
        self.a, self.b = a, b
        self.keep(alive)

    def other_end(self, pos):
        """(S, 2) position of each spring's far end: ball b, or its anchor."""
        anchored = (self.b < 0)[:, None]
        return np.where(anchored, self.anchor, pos[np.maximum(self.b, 0)])

    def stretch(self, pos):
        """(d (S, 2), length (S,)): the vector from end b to end a and its length."""
        d = pos[self.a] - self.other_end(pos)
        return d, np.sqrt(_dot(d, d))

    def forces(self, pos, vel):
        """(N, 2) force in newtons on every ball from every spring."""
        n = len(pos)
        if len(self.a) == 0:
            return np.zeros_like(pos)
        d, length = self.stretch(pos)
        with np.errstate(invalid="ignore", divide="ignore"):
            u = np.where(length[:, None] > SPRING_MIN_LENGTH, d / length[:, None], 0.0)
        anchored = self.b < 0
        v_b = np.where(anchored[:, None], 0.0, vel[np.maximum(self.b, 0)])
        closing = _dot(vel[self.a] - v_b, u)
        magnitude = self.stiffness * (self.rest - length) - self.damping * closing
        f = u * magnitude[:, None]
        fx = np.bincount(self.a, f[:, 0], n)
        fy = np.bincount(self.a, f[:, 1], n)
        if not anchored.all():
            on = ~anchored
            fx -= np.bincount(self.b[on], f[on, 0], n)
            fy -= np.bincount(self.b[on], f[on, 1], n)
        return np.stack((fx, fy), axis=1)

    def energy(self, pos):
        """Elastic energy in joules: sum of stiffness / 2 (L - rest)^2."""
        if len(self.a) == 0:
            return 0.0
        _, length = self.stretch(pos)
        return float(0.5 * np.sum(self.stiffness * (length - self.rest) ** 2))


class Forces:
    """Everything that pushes balls apart from contacts.

    ``gravity``: (2,) m/s^2; ``drag``: 1/s (a = -drag v); ``springs``: Springs;
    ``attractors``: zones with ``.contains(points)``, ``.center`` and ``.strength`` (m/s^2
    towards the centre for balls inside).
    """

    def __init__(self, gravity=defaults.GRAVITY, drag=defaults.DRAG):
        self.gravity = np.asarray(gravity, float)
        self.drag = float(drag)
        self.springs = Springs()
        self.attractors = []
        self._zones_packed = ((), None)     # (the attractors, their arrays) packed last

    @property
    def uniform(self):
        """Whether the acceleration is the same function a = gravity - drag v for every ball
        (no springs, no attractors): the compiled uniform steppers take that case, the force
        steppers (game.physics.compiled.forces, from packed()) every other (game.physics.compiled.loader)."""
        return len(self.springs) == 0 and not self.attractors

    def acceleration(self, pos, vel, inv_mass, t=0.0):
        """(N, 2) acceleration of every ball at state (pos, vel)."""
        acc = np.empty_like(pos)
        acc[:] = self.gravity
        if self.drag:
            acc -= self.drag * vel
        if len(self.springs):
            acc += self.springs.forces(pos, vel) * inv_mass[:, None]
        for zone in self.attractors:
            inside = zone.contains(pos)
            if inside.any():
                towards = zone.center - pos[inside]
                dist = np.sqrt(_dot(towards, towards))
                with np.errstate(invalid="ignore", divide="ignore"):
                    unit = np.where(dist[:, None] > ATTRACTOR_MIN_DISTANCE, towards / dist[:, None], 0.0)
                acc[inside] += zone.strength * unit
        return acc

    def packed(self):
        """The force field (a bundles.ForceField) as the plain numbers and arrays the compiled steppers take
        (game.physics.compiled.forces): gx, gy (m/s^2), drag (1/s); the springs' a, b, anchor,
        stiffness, damping, rest (as Springs holds them); the attractors' shape (Z,) (index
        in ATTRACTOR_SHAPES), centre (Z, 2) m, strength (Z,) m/s^2, numbers (Z, 5) and
        polygon edges (E, 4) from edge_start (Z + 1,) (see _pack_attractors).

        The springs are read afresh every call (a grab moves its anchors); the attractors
        are packed once for each list of zones, which do not change once built.
        """
        s = self.springs
        zones, arrays = self._zones_packed
        if arrays is None or len(zones) != len(self.attractors) or any(
                z is not a for z, a in zip(zones, self.attractors)):
            zones, arrays = tuple(self.attractors), _pack_attractors(self.attractors)
            self._zones_packed = (zones, arrays)
        c = np.ascontiguousarray
        shape, center, strength, numbers, edges, edge_start = arrays
        return ForceField(gx=float(self.gravity[0]), gy=float(self.gravity[1]), drag=float(self.drag),
                          sa=c(s.a, np.int64), sb=c(s.b, np.int64), anchor=c(s.anchor, float),
                          stiffness=c(s.stiffness, float), damping=c(s.damping, float), rest=c(s.rest, float),
                          shape=shape, center=center, strength=strength, numbers=numbers, edges=edges,
                          edge_start=edge_start)

    def potential_energy(self, pos, mass):
        """(gravitational, spring) energy in joules; gravity's zero is at the origin."""
        gravitational = -float(np.sum(mass * (pos @ self.gravity)))
        return gravitational, self.springs.energy(pos)


def _pack_attractors(zones):
    """(shape (Z,), centre (Z, 2), strength (Z,), numbers (Z, 5), edges (E, 4), edge_start (Z + 1,))
    of attractor zones (game.physics.world.Zone) for the compiled forces, with what their contains()
    compares computed here by the same expressions (so the kernel's inside test agrees to
    the bit): rect (x_lo, y_lo, x_hi, y_hi); circle (cx, cy, r^2); ellipse (cx, cy, |rx|,
    |ry|, (|rx| |ry|)^2); polygon (sign of its area, x_min, x_max, y_min, y_max) and its edges
    (ax, ay, ex, ey) from vertex a to the next (geometry.point_in_convex_polygon)."""
    count = len(zones)
    shape = np.zeros(count, np.int64)
    center = np.zeros((count, 2))
    strength = np.zeros(count)
    numbers = np.zeros((count, 5))
    edges = [np.zeros((0, 4))]
    edge_start = np.zeros(count + 1, np.int64)
    for k, zone in enumerate(zones):
        p = zone.params
        shape[k] = ATTRACTOR_SHAPES.index(zone.shape)
        center[k] = zone.center
        strength[k] = zone.strength
        if zone.shape == "rect":
            numbers[k, :4] = (p["lo"][0], p["lo"][1], p["hi"][0], p["hi"][1])
        elif zone.shape == "circle":
            numbers[k, :3] = (p["center"][0], p["center"][1], p["radius"] ** 2)
        elif zone.shape == "ellipse":
            radii = np.asarray(p["radii"], float)
            rx, ry = np.abs(radii[0]), np.abs(radii[1])
            numbers[k] = (p["center"][0], p["center"][1], rx, ry, (rx * ry) ** 2)
        else:
            poly = np.asarray(p["points"], float)
            ax, ay = poly[:, 0], poly[:, 1]
            edges.append(np.stack((ax, ay, np.roll(ax, -1) - ax, np.roll(ay, -1) - ay), axis=1))
            area = geometry.polygon_signed_area(poly)
            sign = 1.0 if area > 0 else -1.0 if area < 0 else 0.0     # as point_in_convex_polygon branches
            numbers[k] = (sign, ax.min(), ax.max(), ay.min(), ay.max())
        edge_start[k + 1] = sum(len(e) for e in edges)
    return shape, center, strength, numbers, np.ascontiguousarray(np.concatenate(edges)), edge_start
