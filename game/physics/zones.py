"""Zones and spawners: goal, kill and attractor regions of a level, the spawners that make
balls, and the balls that leave the level (kill zones, and far beyond its bounds)."""

import numpy as np

from game import defaults
from game.physics import geometry
from game.physics import bodies as bodies_module
from game.physics.statics import LAVA, LAVA_REACH, MIN_CELL

ESCAPE_SPANS = 100.0         # a ball this many bounds' sizes outside the bounds is gone for good


class Zone:
    """A region of a level: ``kind`` is "goal", "kill" or "attractor".

    ``shape`` is "rect" (params: lo, hi), "circle" (center, radius), "ellipse" (center,
    radii) or "polygon" (points, counter-clockwise). ``count``: balls a goal wants;
    ``strength``: m/s^2 an attractor pulls with towards ``center``.
    """

    def __init__(self, kind, shape, params, count=defaults.ZONE_COUNT, strength=defaults.ATTRACTOR_STRENGTH):
        self.kind, self.shape, self.params = kind, shape, params
        self.count, self.strength = int(count), float(strength)
        if shape == "rect":
            self.center = (params["lo"] + params["hi"]) / 2
        elif shape == "polygon":
            self.center = params["points"].mean(axis=0)
        else:
            self.center = params["center"]

    @classmethod
    def from_definition(cls, z):
        """A zone from a normalised definition (``game.level``): a rect's corners ordered, a
        polygon convex and counter-clockwise, count and strength present."""
        zone = cls._shaped(z)
        zone.count_bodies = bool(z.get("count_bodies", False))    # a goal that counts bodies too
        zone.body_name = z.get("body")          # a goal that counts only the body of this name
        return zone

    @classmethod
    def _shaped(cls, z):
        kind, count, strength = z["kind"], z["count"], z["strength"]
        if "rect" in z:
            lo, hi = z["rect"]
            return cls(kind, "rect", {"lo": np.array(lo, float), "hi": np.array(hi, float)}, count, strength)
        if "circle" in z:
            c = z["circle"]
            return cls(kind, "circle", {"center": np.asarray(c["center"], float),
                                        "radius": float(c["radius"])}, count, strength)
        if "ellipse" in z:
            e = z["ellipse"]
            return cls(kind, "ellipse", {"center": np.asarray(e["center"], float),
                                         "radii": np.asarray(e["radii"], float)}, count, strength)
        return cls(kind, "polygon", {"points": np.asarray(z["polygon"], float)}, count, strength)

    def contains(self, points):
        """(N,) bool: which of the (N, 2) points lie in the zone (its boundary included)."""
        points = np.asarray(points, float).reshape(-1, 2)
        p = self.params
        if self.shape == "rect":
            return np.all((points >= p["lo"]) & (points <= p["hi"]), axis=1)
        if self.shape == "circle":
            d = points - p["center"]
            return np.einsum("ij,ij->i", d, d) <= p["radius"] ** 2
        if self.shape == "ellipse":
            return np.asarray(geometry.point_in_ellipse(points, p["center"], p["radii"]), bool).reshape(-1)
        return np.asarray(geometry.point_in_convex_polygon(points, p["points"]), bool).reshape(-1)


class Spawner:
    """Makes a ball every ``every`` seconds at ``pos`` (moved by up to ``jitter`` in x and y)
    until it has made ``max``. Its clock carries the fraction of a period over from tick to
    tick, so ``every`` holds even when it is not a whole number of ticks."""

    MAX_BACKLOG = 0.25    # s: time owed beyond one period while the spot is taken is dropped

    def __init__(self, definition):
        self.definition = dict(definition)
        self.pos = np.asarray(definition["pos"], float)
        self.vel = np.asarray(definition["vel"], float)
        self.every = max(1e-3, float(definition["every"]))
        self.max = int(definition["max"])
        self.radius = float(definition["radius"])
        self.density = definition["density"]
        self.jitter = float(definition["jitter"])
        self.made = 0
        self.clock = 0.0      # s owed since the last ball
        self.spot = None      # (2,) m: where the next ball goes, chosen once
        # Deterministic jitter: the same level spawns the same balls every run.
        self.rng = np.random.default_rng(12345)

    def ready(self):
        return self.clock >= self.every and self.made < self.max

    def next_ball(self):
        """The next ball: (pos, vel, radius, density); the same until made_one()."""
        if self.spot is None:
            offset = self.rng.uniform(-self.jitter, self.jitter, 2) if self.jitter else 0.0
            self.spot = self.pos + offset
        return self.spot, self.vel, self.radius, self.density

    def made_one(self):
        self.clock -= self.every
        self.made += 1
        self.spot = None


def run_spawners(world, dt):
    """Each spawner makes the balls its clock has come to; a ball waits while the
    jittered spot chosen for it is taken (only that spot is checked)."""
    for spawner in world.spawners:
        spawner.clock = min(spawner.clock + dt, spawner.every + spawner.MAX_BACKLOG)
        while spawner.ready():
            pos, vel, radius, density = spawner.next_ball()
            # A ball due part way through the tick has flown since then (this is what
            # spaces the balls of an `every` shorter than a tick along their path).
            pos = pos + vel * min(spawner.clock - spawner.every, dt)
            if occupied(world, pos, radius):
                break                       # try the same spot next tick
            spawner.made_one()
            world.add_ball(pos, vel, radius=radius, density=density)


def occupied(world, point, radius):
    """Whether a ball overlaps the circle (a spawner waits until its spot is free)."""
    if world.count == 0:
        return False
    d = world.pos - point
    reach = world.radius + radius
    return bool(np.any(np.einsum("ij,ij->i", d, d) < reach * reach))


def has_lava(world):
    return getattr(world.statics, "lava", False)


def touch_lava(world, contacts, fast, hits):
    """After a sub-step's solve and sweeps: note the balls (by id) that touched lava in it, in a
    contact (within LAVA_REACH) or where the sweep stopped them. A ball that bounces off lava
    within a tick is gone all the same (apply_lava, at the tick's end). Sub-step by sub-step
    on both executions alike (a level with lava runs its balls one compiled call a sub-step,
    game.physics.step.tick, and this looks at each)."""
    lava = world.statics.made_of == LAVA
    touched = []
    if len(contacts):
        s = contacts.static
        on = (s >= 0) & (contacts.depth >= -LAVA_REACH)
        on[on] = lava[s[on]]
        touched.append(contacts.a[on])
    if len(fast):
        hit = np.isfinite(hits).all(axis=1)
        if hit.any():
            balls = np.asarray(fast)[hit]
            near = _lava_gaps(world, hits[hit], world.radius[balls] + 2 * LAVA_REACH) <= 0.0
            touched.append(balls[near])
    if touched:
        ids = world.ids[np.concatenate(touched).astype(np.int64)]
        if len(ids):
            world._lava_ids = np.union1d(getattr(world, "_lava_ids", np.zeros(0, np.int64)), ids)


def _lava_gaps(world, points, reach):
    """(P,) the least distance from each point to a lava capsule's surface, less ``reach``."""
    st = world.statics
    lava = np.flatnonzero(st.made_of == LAVA)
    a, b = st.a[lava], st.b[lava]
    gap = np.full(len(points), np.inf)
    for k in range(len(lava)):          # a few capsules, each against all the points
        near = geometry.closest_point_on_segment(a[k], b[k], points)
        gap = np.minimum(gap, np.hypot(*(points - near).T) - st.radius[lava[k]] - reach)
    return gap


def _lava_box(st, grow):
    """(lo (2,), hi (2,)) m: a box round every lava capsule, grown by their radius, LAVA_REACH and
    ``grow`` (what may reach it: a ball's radius)."""
    lava = st.made_of == LAVA
    reach = float(st.radius[lava].max()) + LAVA_REACH + grow
    return (np.minimum(st.a[lava], st.b[lava]).min(axis=0) - reach,
            np.maximum(st.a[lava], st.b[lava]).max(axis=0) + reach)


def apply_lava(world):
    """At the tick's end, lava (a static of "surface": "lava") takes the balls that touched it
    in the tick (touch_lava) and those within LAVA_REACH of it now, as a kill zone takes them,
    and the bodies that touch it now (_lava_bodies)."""
    if not has_lava(world):
        return
    gone = getattr(world, "_lava_ids", np.zeros(0, np.int64))
    world._lava_ids = np.zeros(0, np.int64)
    if world.count:
        lo, hi = _lava_box(world.statics, world.radius.max())
        near = np.flatnonzero(np.all((world.pos >= lo) & (world.pos <= hi), axis=1))
        touching = np.isin(world.ids, gone)
        if len(near):
            touching[near] |= _lava_gaps(world, world.pos[near], world.radius[near] + LAVA_REACH) <= 0.0
        if touching.any():
            world.remove_balls(np.flatnonzero(touching))
    _lava_bodies(world)


def _lava_bodies(world):
    """The bodies that touch lava (an edge of theirs, rounded by their radius, within
    LAVA_REACH of a lava capsule) are taken out too."""
    b = world.bodies
    if not len(b):
        return
    st = world.statics
    lava = np.flatnonzero(st.made_of == LAVA)
    lo, hi = _lava_box(st, 0.0)
    corners = b.corners()
    box_lo, box_hi = b.boxes(0.0, corners)
    near = np.flatnonzero(np.all((box_hi >= lo) & (box_lo <= hi), axis=1))    # only bodies by some lava
    gone = []
    for i in near.tolist():
        n = int(b.count[i])
        pts = corners[i, :n]
        ends = np.roll(pts, -1, axis=0) if n > 1 else pts
        reach = b.radius[i] + st.radius[lava] + LAVA_REACH
        for p, q in zip(pts, ends):
            if (geometry.segment_distance(p, q, st.a[lava], st.b[lava]) <= reach).any():
                gone.append(i)
                break
    if gone:
        bodies_module.remove(world, gone)       # (World.step runs unjournaled: a replay does this again)


def apply_kill_zones(world):
    for zone in world.zones:
        if zone.kind == "kill" and world.count:
            inside = zone.contains(world.pos)
            if inside.any():
                world.remove_balls(np.nonzero(inside)[0])


def remove_far_balls(world):
    """Remove balls beyond the level format's coordinates (defaults.COORDINATE_LIMIT) or
    more than ESCAPE_SPANS bounds' sizes outside the bounds, counting them as escaped: so
    every finite world saves as a valid level, and no far ball stretches the grid's work.
    Balls on springs stay (see blown_up)."""
    if world.count == 0:
        return
    lo, hi, inner_lo, inner_hi = far_limits(world)
    # Every tick, and nearly always nothing is far: two whole-array reductions say so in a
    # tenth of the time of the per-ball test below (a NaN position fails them and goes on
    # to that test, which keeps it, as it always did).
    if world.pos.min() >= inner_lo and world.pos.max() <= inner_hi:
        return
    far = np.any((world.pos < lo) | (world.pos > hi), axis=1)
    # A ball on a spring is held, not escaping: far, it is a blow-up (a stiff spring
    # under Euler) that blown_up() reports, not a ball to lose quietly.
    s = world.springs
    far[s.a] = False
    far[s.b[s.b >= 0]] = False
    j = world.joints                      # and a ball on a joint, as on a spring
    far[j.a] = False
    far[j.b[j.b >= 0]] = False
    if far.any():
        world.escaped_removed += int(far.sum())
        world.remove_balls(np.nonzero(far)[0])


def far_limits(world):
    """(lo (2,), hi (2,), lo.max(), hi.min()): the box beyond which a ball is far
    (_remove_far_balls), worked out again only when the bounds change (every tick it took
    more than the test it serves)."""
    key = tuple(world.bounds.tolist())
    cached = world._far_cache
    if cached is None or cached[0] != key:
        x0, y0, x1, y1 = key
        reach = ESCAPE_SPANS * max(x1 - x0, y1 - y0, MIN_CELL)
        lo = np.maximum((x0 - reach, y0 - reach), -defaults.COORDINATE_LIMIT)
        hi = np.minimum((x1 + reach, y1 + reach), defaults.COORDINATE_LIMIT)
        cached = world._far_cache = (key, lo, hi, lo.max(), hi.min())
    return cached[1:]


def goal_progress(world):
    """(balls inside goal zones, balls wanted) or None if the level has no goal."""
    goals = [z for z in world.zones if z.kind == "goal"]
    if not goals:
        return None
    inside = sum(len(ids) for ids in goal_members(world))
    return inside, sum(z.count for z in goals)


def goal_members(world):
    """[(K,) int64 ids of what is inside each goal zone now], in zone order: the balls whose
    centre is inside; where the zone counts bodies (``count_bodies``), also the bodies whose
    centre of mass is inside, as ids below 0 (-1 - the body's id); where it names one body
    (``body``), only that body."""
    out = []
    for zone in world.zones:
        if zone.kind != "goal":
            continue
        name = getattr(zone, "body_name", None)
        if name is None:
            ids = world.ids[zone.contains(world.pos)] if world.count else world.ids[:0]
        else:
            ids = world.ids[:0]
        bodies = world.bodies
        if (name is not None or getattr(zone, "count_bodies", False)) and len(bodies):
            inside = zone.contains(bodies.pos)
            if name is not None:
                inside &= np.array([d.get("name") == name for d in bodies.definitions], bool)
            ids = np.concatenate((ids, -1 - bodies.ids[inside]))
        out.append(ids)
    return out
