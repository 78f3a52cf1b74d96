"""Dynamic bodies: planks (capsules), boxes and convex polygons that fall, tumble, stack and
are joined, beside the balls.

A body's state is the balls': position of its centre of mass, velocity, angle, spin,
inverse mass and inverse inertia (game.physics.shapes computes them exactly from the shape).
Its shape is a rounded convex polygon in its own frame (``local`` corners about the centre of
mass, ``normals``, ``count``, ``radius``). Each sub-step, after the balls' own solve and joints
(game.physics.step.substep), ``substep`` here:

1. advances the bodies' velocities under gravity and drag with the world's integrator
   (``integrate``: what the integrator would move them beyond h v is kept as a shift);
2. finds the pairs within a speculative margin (body-body, body-static, body-ball; sort and
   sweep on bounding boxes, numpy in both executions) and their manifolds (body_kernels.collide,
   Box2D v3's: up to two points a pair, with feature ids);
3. solves contacts and the bodies' joints together in Box2D v3's order (body_kernels.solve:
   warm start from the last sub-step's impulses found again by key, soft passes with full
   lever arms, then positions x + h v + shift and angles + h spin), the balls that touch or
   hold a body taking part with their own mass; a speculative contact lets a pair close at
   most its gap, so a body stops at a wall whatever its speed;
4. sweeps each body against the statics from where it started (body_kernels.sweep,
   conservative advancement) and stops it at its first touch: a safety net for what the
   speculative contacts did not see (a corner swung round by a fast spin);
5. relaxes without the bias and applies restitution (body_kernels.relax);
6. lets islands of bodies at rest sleep (game.physics.body_sleep: Box2D's, under a sleep speed
   for SLEEP_TIME s).

Levels without bodies never come here: their balls step, and hash, as before.
"""
import math

import numpy as np

from game.physics import body_kernels as K
from game.physics import body_sleep, body_statics, body_tick
from game.physics.body_sleep import SLEEP_SPEED
from game.physics.body_support import support_scales
from game.physics.body_statics import aabb_pairs, rotate
from game.physics.integrators import INTEGRATORS
from game.physics.shapes import MAX_CORNERS, body_frame, body_shape, edge_normals
from game.physics.journal import journaled

BALL_CODE = 1 << 20        # warm-start keys: bodies 0.., balls BALL_CODE + id, statics STATIC_CODE + shape
STATIC_CODE = 1 << 26
_NO_KEYS = np.zeros(0, np.int64)


class Bodies:
    """The world's dynamic bodies as arrays (B bodies), their joints and the warm-start store.

    ``pos``, ``vel`` (B, 2) m, m/s of the centre of mass; ``angle``, ``spin`` (B,) rad, rad/s;
    ``mass``, ``inertia``, ``inv_mass``, ``inv_inertia`` (B,); ``local``, ``normals`` (B, 12, 2)
    the shape in the body's frame; ``count`` (B,) its corners; ``radius`` (B,) m; ``extent``
    (B,) m its farthest point from the centre of mass; ``restitution``, ``friction`` (B,);
    ``asleep`` (B,) bool; ``definitions``: the normalised definitions (shape, colour, name).
    """

    def __init__(self):
        self.pos = np.zeros((0, 2))
        self.vel = np.zeros((0, 2))
        self.angle = np.zeros(0)
        self.spin = np.zeros(0)
        self.mass = np.zeros(0)
        self.inertia = np.zeros(0)
        self.inv_mass = np.zeros(0)
        self.inv_inertia = np.zeros(0)
        self.local = np.zeros((0, MAX_CORNERS, 2))
        self.normals = np.zeros((0, MAX_CORNERS, 2))
        self.count = np.zeros(0, np.int64)
        self.radius = np.zeros(0)
        self.extent = np.zeros(0)
        self.thickness = np.zeros(0)     # m: twice the least distance from the centre of mass to the surface
        self.restitution = np.zeros(0)
        self.friction = np.zeros(0)
        self.rest_time = np.zeros(0)
        self.asleep = np.zeros(0, bool)
        self.ids = np.zeros(0, np.int64)    # stable ids (a goal knows a body by it)
        self._next_id = 0
        self.definitions = []
        self.frames = []          # per body: the load-time corners its local shape came from
        # Joints with a body at one end: kinds (J,), ends as (kind, index): ("body", i),
        # ("ball", id), ("anchor", -1); float rows K.NJF.
        self.joint_kind = np.zeros(0, np.int64)
        self.joint_ends = []
        self.joint_rows = np.zeros((0, K.NJF))
        self.joint_definitions = []
        self.joint_handle = np.zeros(0, np.int64)   # a grab's handle (0: a level's joint)
        self.grab_serial = 0
        self.joint_breaks = np.zeros((0, 2))
        self._warm_keys, self._warm_pn, self._warm_pt, self._warm_pr = _NO_KEYS, np.zeros(0), np.zeros(0), np.zeros(0)
        self._statics_cache = None
        self._tick = None         # the tick's contacts between its sub-steps (substep, _Tick)
        self.manifolds = body_tick.Manifolds()    # the last tick's contact rows (debug drawing, sound)

    def __len__(self):
        return len(self.pos)

    # The last tick's contact points, normals and depths (debug drawing), and its impacts (sound).
    manifold_points = property(lambda self: self.manifolds.points)
    manifold_normals = property(lambda self: self.manifolds.normals)
    manifold_depths = property(lambda self: self.manifolds.depths)
    impact_points = property(lambda self: self.manifolds.impact_points)
    impact_speeds = property(lambda self: self.manifolds.impact_speeds)

    # ------------------------------------------------------------------ building
    def add(self, definitions, material):
        """Add bodies from normalised definitions (game.level's "bodies")."""
        for d in definitions:
            frame = d.get("_frame")
            # A snapshot's body: its shape from the corners it was loaded from, its pose as it was.
            shaped = dict(d, shape="polygon", points=frame["points"]) if frame is not None and d["shape"] != "box" else d
            local, radius, pos, angle, mass, inertia = body_frame(shaped, material.get("density", 1.0))
            corners = body_shape(shaped)[0]
            if frame is not None:
                pos, angle = np.array(frame["pos"], float), float(frame["angle"])
            n = len(local)
            padded = np.zeros((1, MAX_CORNERS, 2))
            padded[0, :n] = local
            normals = np.zeros((1, MAX_CORNERS, 2))
            normals[0, :n] = edge_normals(local)
            extent = float(np.sqrt((local * local).sum(axis=1)).max()) + radius
            self.pos = np.vstack((self.pos, pos[None]))
            self.vel = np.vstack((self.vel, np.array(d.get("vel", (0.0, 0.0)), float)[None]))
            self.angle = np.append(self.angle, angle)
            self.spin = np.append(self.spin, float(d.get("spin", 0.0)))
            self.mass = np.append(self.mass, mass)
            self.inertia = np.append(self.inertia, inertia)
            self.inv_mass = np.append(self.inv_mass, 1.0 / mass)
            self.inv_inertia = np.append(self.inv_inertia, 1.0 / inertia)
            self.local = np.concatenate((self.local, padded))
            self.normals = np.concatenate((self.normals, normals))
            self.count = np.append(self.count, n)
            self.radius = np.append(self.radius, radius)
            self.extent = np.append(self.extent, extent)
            self.thickness = np.append(self.thickness, _thickness(local, normals[0, :n], radius))
            self.restitution = np.append(self.restitution, float(d.get("restitution", material["restitution"])))
            self.friction = np.append(self.friction, float(d.get("friction", material["friction"])))
            self.rest_time = np.append(self.rest_time, 0.0)
            self.asleep = np.append(self.asleep, False)
            self.ids = np.append(self.ids, self._next_id)
            self._next_id += 1
            self.definitions.append(dict(d))
            self.frames.append(None if d["shape"] == "box" else corners)

    def add_joints(self, joints, ball_ids):
        """Add joints with a body at one end or both (normalised: ``a``, ``b`` a ball index, an
        anchor [x, y] or {"body": i}; ``length``, offsets in the ends' frames, ``motor``,
        ``break``), or springs (no ``kind``: ``stiffness``, ``damping``, ``rest``). ``ball_ids``:
        the world's ball ids (a ball end is kept by id)."""
        for j in joints:
            ends = []
            rows = np.zeros(K.NJF)
            for end, offset, col in ((j["a"], j.get("offset_a", (0.0, 0.0)), K.LAX),
                                     (j["b"], j.get("offset_b", (0.0, 0.0)), K.LBX)):
                if isinstance(end, dict):
                    ends.append(("body", int(end["body"])))
                    rows[col:col + 2] = offset
                elif isinstance(end, (int, np.integer)):
                    ends.append(("ball", int(ball_ids[int(end)])))
                    rows[col:col + 2] = offset
                else:
                    ends.append(("anchor", -1))
                    rows[col:col + 2] = end
            if j.get("kind", "spring") == "spring":      # a spring (a level's "springs" with a body end)
                kind = K.SPRING
                rows[K.LENGTH], rows[K.STIFF], rows[K.DAMPING] = j["rest"], j["stiffness"], j["damping"]
            else:
                length = float(j.get("length", 0.0))
                kind = K.ROPE if j["kind"] == "rope" else (K.PIN if length == 0.0 else K.ROD)
                rows[K.LENGTH] = length
            motor = j.get("motor")
            if motor is not None:
                rows[K.MOTOR], rows[K.SPEED], rows[K.TORQUE] = 1.0, motor["speed"], motor["torque"]
            rows[K.BREAK] = j.get("break", math.inf)
            self.joint_kind = np.append(self.joint_kind, kind)
            self.joint_handle = np.append(self.joint_handle, 0)
            self.joint_ends.append(tuple(ends))
            self.joint_rows = np.vstack((self.joint_rows, rows[None]))
            self.joint_definitions.append(dict(j))

    def remove(self, keep):
        """Keep the bodies of the (B,) bool mask ``keep``; joints to the others go."""
        keep = np.asarray(keep, bool)
        for name in ("pos", "vel", "angle", "spin", "mass", "inertia", "inv_mass", "inv_inertia", "local",
                     "normals", "count", "radius", "extent", "thickness", "restitution", "friction", "rest_time", "asleep",
                     "ids"):
            setattr(self, name, getattr(self, name)[keep])
        self.definitions = [d for d, k in zip(self.definitions, keep) if k]
        self.frames = [f for f, k in zip(self.frames, keep) if k]
        new = np.cumsum(keep) - 1
        alive = [all(kind != "body" or keep[i] for kind, i in ends) for ends in self.joint_ends]
        self.keep_joints(np.array(alive, bool))
        self.joint_ends = [tuple((kind, int(new[i]) if kind == "body" else i) for kind, i in ends)
                           for ends in self.joint_ends]
        self._warm_keys = _NO_KEYS

    def keep_joints(self, keep):
        keep = np.asarray(keep, bool).reshape(-1)
        self.joint_kind = self.joint_kind[keep]
        self.joint_handle = self.joint_handle[keep]
        self.joint_rows = self.joint_rows[keep]
        self.joint_ends = [e for e, k in zip(self.joint_ends, keep) if k]
        self.joint_definitions = [d for d, k in zip(self.joint_definitions, keep) if k]

    def used(self):
        """Corner rows any body uses (the most corners of one body): the rows past it are
        padding (the centre of mass, normals 0) in every body, and the kernels never read them."""
        return int(self.count.max(initial=1))

    def corners(self, pos=None, angle=None):
        """(B, 12, 2) the corners in the world now (padding rows at the centre of mass). Only
        the rows some body uses are turned (a pile of boxes turns 4 of 12)."""
        pos = self.pos if pos is None else pos
        angle = self.angle if angle is None else angle
        k = self.used()
        out = np.repeat(pos[:, None, :], MAX_CORNERS, axis=1)
        out[:, :k] += rotate(self.local[:, :k], angle)
        return out

    def boxes(self, margin=0.0, corners=None):
        """(lo (B, 2), hi (B, 2)) bounding boxes, grown by ``margin`` (B,) or a number: the
        least and greatest of the used corner rows and of the centre of mass (the padding rows'
        point, inside the shape: it never widens a box), row by row (a reduction over the
        middle axis of (B, 12, 2) costs several times more)."""
        c = self.corners() if corners is None else corners
        k = self.used()
        lo = hi = c[:, 0]
        for q in range(1, k):
            lo, hi = np.minimum(lo, c[:, q]), np.maximum(hi, c[:, q])
        if k < MAX_CORNERS:
            lo, hi = np.minimum(lo, c[:, MAX_CORNERS - 1]), np.maximum(hi, c[:, MAX_CORNERS - 1])
        grow = (self.radius + margin)[:, None]
        return lo - grow, hi + grow

    def energy(self, gravity):
        """(kinetic, rotational, gravitational) J of the bodies."""
        kinetic = 0.5 * float(np.sum(self.mass * (self.vel * self.vel).sum(axis=1)))
        rotational = 0.5 * float(np.sum(self.inertia * self.spin * self.spin))
        gravitational = -float(np.sum(self.mass * (self.pos @ np.asarray(gravity, float))))
        return kinetic, rotational, gravitational

    def momentum(self):
        """(linear (2,), angular about the origin) of the bodies."""
        p = (self.mass[:, None] * self.vel).sum(axis=0)
        lz = float(np.sum(self.mass * (self.pos[:, 0] * self.vel[:, 1] - self.pos[:, 1] * self.vel[:, 0])
                          + self.inertia * self.spin))
        return p, lz

    def hash_arrays(self):
        """What World.state_hash adds for the bodies: nothing where there are none."""
        return (self.pos, self.vel, self.angle, self.spin) if len(self) else ()

    # ------------------------------------------------------------------ snapshot
    def to_definitions(self):
        """The bodies as level definitions at their poses now, with ``_frame`` (the load-time
        corners and the exact pose) so that a snapshot continues to the bit."""
        out = []
        corners = self.corners()
        for b, d in enumerate(self.definitions):
            d = {k: v for k, v in d.items() if k != "_frame"}
            d["vel"] = [float(self.vel[b, 0]), float(self.vel[b, 1])]
            d["spin"] = float(self.spin[b])
            n = int(self.count[b])
            if d["shape"] == "box":
                d["center"] = [float(self.pos[b, 0]), float(self.pos[b, 1])]
                d["angle"] = float(self.angle[b])
            else:
                points = [[float(x), float(y)] for x, y in corners[b, :n]]
                if d["shape"] == "capsule":
                    d["a"], d["b"] = points
                else:
                    d["points"] = points
                d["_frame"] = {"pos": [float(self.pos[b, 0]), float(self.pos[b, 1])], "angle": float(self.angle[b]),
                               "points": [[float(x), float(y)] for x, y in self.frames[b]]}
            out.append(d)
        return out


# ============================================================================ the sub-step
def _kernels(world):
    compiled = world._compiled
    return getattr(compiled, "bodies", None) if compiled is not None else None


def load(world, level):
    """A new world's bodies from a normalised level, and its joints: those with a body at an
    end to the bodies' solve, the others to the balls' (game.physics.joints); and the springs
    with a body at an end (the balls' springs are the forces')."""
    world.bodies.add(level.get("bodies", []), world.material)
    joints = level.get("joints", [])
    held = [holds_body(j) for j in joints]
    world.joints.add([j for j, b in zip(joints, held) if not b])
    world.bodies.add_joints([j for j, b in zip(joints, held) if b], world.ids)
    world.bodies.add_joints([s for s in level.get("springs", []) if holds_body(s)], world.ids)


def holds_body(joint):
    """Whether a normalised joint or spring has a body at one end (the bodies' solve takes it)."""
    return isinstance(joint["a"], dict) or isinstance(joint["b"], dict)


def wake_balls(world, dt):
    """Before a tick: wake the sleeping balls an awake body may reach in it, and those the
    awake bodies' joints hold (a sleeping ball is out of the tick)."""
    bodies = world.bodies
    if not len(bodies) or world.count == 0 or not len(world._sleep) or not world._sleep.asleep.any():
        return
    awake = ~bodies.asleep
    if not awake.any():
        return
    speed = np.sqrt((bodies.vel * bodies.vel).sum(axis=1)) + np.abs(bodies.spin) * bodies.extent
    lo, hi = bodies.boxes(speed * dt + 2 * K.SPECULATIVE)
    grow = world.radius + np.sqrt((world.vel * world.vel).sum(axis=1)) * dt
    i, j = aabb_pairs(lo[awake], hi[awake], world.pos - grow[:, None], world.pos + grow[:, None], False,
                      _kernels(world) or K)
    near = np.unique(np.concatenate((j, _joint_balls(world, bodies))))
    if len(near):
        world.wake(near)


def integrate(world, bodies, t, h, awake):
    """The awake bodies' velocities advanced by h under gravity and drag with the world's
    integrator; returns (B, 2) the shift: where the integrator puts a body beyond h times its
    new velocity (0 under semi-implicit Euler, -h^2 g / 2 under rk4 and verlet, -h^2 g under
    explicit Euler), so that after the solve x + h v + shift is the integrator's own step
    for a free body. Positions move in the solve (Box2D's order: velocities, solve, positions)."""
    g = np.asarray(world.forces.gravity, float)
    drag = world.forces.drag
    shift = np.zeros((len(bodies), 2))

    def f(t, y):
        dy = np.empty_like(y)
        dy[0] = y[1]
        dy[1] = g - drag * y[1] if drag else g
        return dy

    idx = slice(None) if awake.all() else np.flatnonzero(awake)      # (a slice: no gather, no scatter)
    pos, vel = bodies.pos[idx], bodies.vel[idx]
    if not len(pos):
        return shift
    kernels = world._kernels
    if kernels is not None and world._integrator in kernels.UNIFORM_STEPPERS:
        # The compiled twin of the stepper for a = g - drag v (the same bits as the numpy stepper
        # with ``f``: compiled.integrators), on copies.
        new_pos, new_vel = pos.copy(), vel.copy()
        kernels.UNIFORM_STEPPERS[world._integrator](new_pos, new_vel, float(g[0]), float(g[1]), drag, h)
        shift[idx] = (new_pos - pos) - h * new_vel
        bodies.vel[idx] = new_vel
        return shift
    y = np.empty((2, len(pos), 2))
    y[0], y[1] = pos, vel
    y = INTEGRATORS[world._integrator](f, t, y, h)
    shift[idx] = (y[0] - pos) - h * y[1]
    bodies.vel[idx] = y[1]
    return shift


class _Tick:
    """What a tick's first sub-step found for all its sub-steps (Box2D v3's step shape): the
    contact rows (ci, cf), their keys, the balls that take part (``gathered``, indices now),
    the participants at the prepare (``st0``), the statics used, the body pairs."""

    def __init__(self, **parts):
        self.__dict__.update(parts)


def substep(world, t, h, h_move, first=True, last=True, k=0):
    """Sub-step ``k`` of a tick of the bodies (the module docstring's parts): the pairs and
    their manifolds at the tick's ``first`` sub-step, kept through its sub-steps with their
    separations following the bodies (Box2D v3's step shape); restitution at its ``last``."""
    bodies = world.bodies
    nb = len(bodies)
    if nb == 0:
        return
    kern = _kernels(world) or K
    if first or bodies._tick is None or bodies._tick.nb != nb or bodies._tick.count != world.count:
        bodies._tick = _collide(world, bodies, h * world.substeps, kern)
        first, k = True, 0              # (a sub-step run on its own starts its own tick)
    tick = bodies._tick
    awake = ~bodies.asleep
    prev = np.concatenate((bodies.pos, bodies.angle[:, None]), axis=1)
    shift = integrate(world, bodies, t, h, awake)
    gathered, ng, m, ci, cf = tick.gathered, tick.ng, tick.m, tick.ci, tick.cf
    p = nb + ng + 1
    st = np.zeros((p, 6))
    inv = np.zeros((p, 2))
    st[:nb, 0:2], st[:nb, 2:4], st[:nb, 4], st[:nb, 5] = bodies.pos, bodies.vel, bodies.angle, bodies.spin
    inv[:nb, 0] = np.where(awake, bodies.inv_mass, 0.0)
    inv[:nb, 1] = np.where(awake, bodies.inv_inertia, 0.0)
    if ng:
        st[nb:nb + ng, 0:2] = world.pos[gathered]
        st[nb:nb + ng, 2:4] = world.vel[gathered]
        st[nb:nb + ng, 4] = world.angle[gathered]
        st[nb:nb + ng, 5] = world.spin[gathered]
        inv[nb:nb + ng, 0] = world.inv_mass[gathered]
        inv[nb:nb + ng, 1] = world.inv_inertia[gathered]
    if first:
        tick.st0 = st.copy()
        tick.support = support_scales(world, st, inv, ci, cf, m, nb, ng)
    if tick.support is not None:
        inv[nb:nb + ng] *= tick.support[:, None]
    if first:
        kern.prepare(st, inv, ci, cf, m)
        tick.joints = _joint_rows(world, bodies, gathered, nb, p - 1)     # (the same all the tick)
        tick.params = solve_params(world.solver.options, h, h_move)
    ji, keep = tick.joints
    jf = np.ascontiguousarray(bodies.joint_rows[keep])
    params = tick.params.copy()
    params[16] = k * h                  # tau: s since the prepare (solve_params)
    moves = np.zeros((p, 2))
    moves[:nb] = shift
    kern.solve(st, np.empty_like(st), tick.st0, inv, ci, cf, m, ji, jf, params, moves, nb)
    # The swept test against the statics, from the start to where the solve left each body.
    bodies.pos, bodies.angle = st[:nb, 0:2].copy(), st[:nb, 4].copy()
    body_statics.sweep(bodies, prev, tick.statics, awake, kern)
    st[:nb, 0:2], st[:nb, 4] = bodies.pos, bodies.angle
    kern.relax(st, tick.st0, inv, ci, cf, m, ji, jf, len(ji), params)
    if last:
        kern.restitution(st, tick.st0, inv, ci, cf, m, params)
    bodies.joint_rows[keep] = jf
    # Back to the world.
    bodies.pos = np.ascontiguousarray(st[:nb, 0:2])
    bodies.vel = np.ascontiguousarray(st[:nb, 2:4])
    bodies.angle = st[:nb, 4].copy()
    bodies.spin = st[:nb, 5].copy()
    if ng:
        world.pos[gathered] = st[nb:nb + ng, 0:2]
        world.vel[gathered] = st[nb:nb + ng, 2:4]
        world.angle[gathered] = st[nb:nb + ng, 4]
        world.spin[gathered] = st[nb:nb + ng, 5]
    if last:
        body_tick.keep_warm(bodies, tick.keys, cf)
        bodies.manifolds = body_tick.Manifolds(ci, cf, tick.st0)
        bodies._tick = None
        if world.solver.options.sleeping:
            body_sleep.settle(bodies, h * world.substeps, tick.bi, tick.bj)


def _collide(world, bodies, dt, kern):
    """The tick's pairs within a speculative margin (the way each closes in the tick, plus
    SPECULATIVE) and their manifolds, the warm start found again by key: a _Tick."""
    nb = len(bodies)
    statics = body_statics.statics_for_bodies(world)
    awake = ~bodies.asleep
    speed = np.sqrt((bodies.vel * bodies.vel).sum(axis=1)) + np.abs(bodies.spin) * bodies.extent
    margin = speed * dt + K.SPECULATIVE
    kk = statics.v.shape[1]
    body_v, body_n, lo, hi = body_tick.posed(bodies, margin, kk, kern)
    bi, bj = aabb_pairs(lo, hi, lo, hi, True, kern)
    either = awake[bi] | awake[bj]
    body_sleep.wake(bodies, bi[either], bj[either])
    awake = ~bodies.asleep
    bi, bj = bi[either], bj[either]
    si, sj = aabb_pairs(lo, hi, statics.lo, statics.hi, False, kern)
    on = awake[si]
    si, sj = si[on], sj[on]
    # Balls: those whose box meets a body's, and those the bodies' joints hold.
    nballs = world.count
    if nballs:
        ball_speed = np.sqrt((world.vel * world.vel).sum(axis=1))
        grow = world.radius + ball_speed * dt + K.SPECULATIVE
        blo, bhi = world.pos - grow[:, None], world.pos + grow[:, None]
        gi, gj = aabb_pairs(lo, hi, blo, bhi, False, kern)
        hit = gi[ball_speed[gj] > SLEEP_SPEED]       # a moving ball wakes the body it reaches
        bodies.asleep[hit] = False
        bodies.rest_time[hit] = 0.0
    else:
        gi = gj = np.zeros(0, np.int64)
    if len(bodies.joint_kind):          # joined bodies and balls do not collide (as jointed balls do not)
        bi, bj, gi, gj = _unjoined(world, bodies, bi, bj, gi, gj)
    joint_balls = _joint_balls(world, bodies)
    gathered = np.unique(np.concatenate((gj, joint_balls)))
    ng = len(gathered)
    # The gathered balls' own wall contacts are solved here too, with the bodies and joints
    # that press them there: solved only by the balls' solve (a ball's mass alone), a light
    # wheel under a heavy car, or a ball under a heavy box, sank through the floor.
    if ng:
        gsi, gsj = aabb_pairs(blo[gathered], bhi[gathered], statics.lo, statics.hi, False, kern)
    else:
        gsi = gsj = np.zeros(0, np.int64)
    # Shapes: bodies 0..nb-1, gathered balls nb.., the statics the pairs name after them.
    used = np.unique(np.concatenate((sj, gsj)))
    total = nb + ng + len(used)
    sv = np.zeros((total, kk, 2))
    sn = np.zeros((total, kk, 2))
    sc = np.zeros((total, 2), np.int64)
    sf = np.zeros((total, 3))
    sv[:nb], sn[:nb] = body_v, body_n
    sc[:nb, 0] = bodies.count
    sc[:nb, 1] = np.arange(nb)
    sf[:nb] = np.stack((bodies.radius, bodies.friction, bodies.restitution), axis=1)
    sv[nb:nb + ng, 0] = world.pos[gathered]
    sc[nb:nb + ng, 0] = 1
    sc[nb:nb + ng, 1] = nb + np.arange(ng)
    sf[nb:nb + ng] = np.stack((world.radius[gathered], world.friction[gathered], world.restitution[gathered]), axis=1)
    static_p = nb + ng
    sv[nb + ng:] = statics.v[used]
    sn[nb + ng:] = statics.n[used]
    sc[nb + ng:, 0] = statics.c[used]
    sc[nb + ng:, 1] = static_p
    sf[nb + ng:] = statics.f[used]
    ball_slot = np.searchsorted(gathered, gj)
    static_slot = np.searchsorted(used, sj)
    pair_i = np.concatenate((bi, si, gi, nb + gsi)).astype(np.int64)
    pair_j = np.concatenate((bj, nb + ng + static_slot, nb + ball_slot, nb + ng + np.searchsorted(used, gsj))).astype(np.int64)
    ball_margin = (grow - world.radius)[gj] if nballs else np.zeros(0)
    wall_margin = (grow - world.radius)[gathered[gsi]] if len(gsi) else np.zeros(0)
    pair_margin = np.concatenate((margin[bi] + margin[bj], margin[si], margin[gi] + ball_margin, wall_margin))
    np_ = len(pair_i)
    ci = np.zeros((2 * np_, 2), np.int64)
    cf = np.zeros((2 * np_, K.NCF))
    cid = np.zeros(2 * np_, np.int64)
    cpair = np.zeros(2 * np_, np.int64)
    m = int(kern.collide(sv, sn, sc, sf, pair_i, pair_j, pair_margin, ci, cf, cid, cpair))
    ci, cf, cid, cpair = ci[:m], cf[:m], cid[:m], cpair[:m]
    # Keys for the warm start: the two shapes and the features.
    code = np.concatenate((np.arange(nb), BALL_CODE + world.ids[gathered], STATIC_CODE + used)).astype(np.int64)
    keys = (code[pair_i[cpair]] << 36) | (code[pair_j[cpair]] << 12) | (cid & 0xFFF)
    if ng and m:                        # a ball rolling on a body: its rolling resistance (an arm, m)
        a, b = ci[:, 0], ci[:, 1]
        on = (a < nb) & (b >= nb) & (b < nb + ng)
        ball = gathered[np.where(on, b - nb, 0)]
        cf[:, K.ROLL] = np.where(on, world.rolling[ball] * world.radius[ball], 0.0)
    if world.statics.walls and m and len(used):     # (no static in reach: no body-static row)
        slot = pair_j[cpair] - (nb + ng)                  # the static shape of each body-static row
        body_statics.wall_velocities(world, statics, used[np.maximum(slot, 0)], slot >= 0, cf)
    order = None
    if m > 1:                           # the solve order: by colour (body_kernels.colour_order)
        moving = np.zeros(nb + ng + 1, bool)
        # (the bodies awake now: a ball may have woken one since ``awake`` was taken, as the solve has them)
        moving[:nb] = ~bodies.asleep & ((bodies.inv_mass > 0.0) | (bodies.inv_inertia > 0.0))
        moving[nb:nb + ng] = (world.inv_mass[gathered] > 0.0) | (world.inv_inertia[gathered] > 0.0)
        order = kern.colour_order(ci, moving, m)
    ci, cf, keys = body_tick.ordered(kern, ci, cf, keys, order, bodies)     # (with their warm start)
    return _Tick(nb=nb, count=world.count, gathered=gathered, ng=ng, m=m, ci=ci, cf=cf, keys=keys, statics=statics,
                 bi=bi, bj=bj, st0=None, support=None)


def solve_params(options, h, h_move, tau=0.0):
    """The solve's parameters (body_kernels.solve): Box2D v3's softness for the sub-step;
    ``tau``: s since the tick's contacts were prepared, at this sub-step's start."""
    from game.physics.solver import soft
    hertz = min(30.0, 0.25 / h)
    contact = soft(hertz, options.damping_ratio, h)
    static = soft(2.0 * hertz, options.damping_ratio, h)
    joint = soft(2.0 * hertz, 2.0, h)
    return np.array([h, h_move, options.iterations, options.relax_iterations, *contact, *static, *joint,
                     options.max_push_speed, options.restitution_threshold, 1.0 if options.warm_start else 0.0, tau])


def _thickness(local, normals, radius):
    """m: twice the least distance from a body's centre of mass (the origin of ``local``, its
    corners) to an edge, plus its radius (a capsule's and a ball's: twice their radius)."""
    if len(local) < 3:
        return 2.0 * radius
    inside = float((-(local * normals).sum(axis=1)).min())
    return 2.0 * (abs(inside) + radius)


def _unjoined(world, bodies, bi, bj, gi, gj):
    """The body pairs (bi, bj) and body-ball pairs (gi, gj: ball indices now) that no joint
    joins."""
    big = np.int64(1) << 40
    pairs, with_balls = [], []
    for ends, kind in zip(bodies.joint_ends, bodies.joint_kind):
        if kind == K.SPRING:            # a spring's ends still collide
            continue
        (ka, a), (kb, b) = ends
        if ka == "body" and kb == "body":
            pairs.append(min(a, b) * big + max(a, b))
        elif ka == "body" and kb == "ball":
            with_balls.append(a * big + b)
        elif kb == "body" and ka == "ball":
            with_balls.append(b * big + a)
    if pairs:
        keep = ~np.isin(bi * big + bj, np.array(pairs, np.int64))
        bi, bj = bi[keep], bj[keep]
    if with_balls and len(gi):
        keep = ~np.isin(gi * big + world.ids[gj], np.array(with_balls, np.int64))
        gi, gj = gi[keep], gj[keep]
    return bi, bj, gi, gj


def _joint_balls(world, bodies):
    """Indices of the balls the bodies' joints hold (balls absent now are left out)."""
    ids = [i for ends in bodies.joint_ends for kind, i in ends if kind == "ball"]
    if not ids or world.count == 0:
        return np.zeros(0, np.int64)
    ids = np.asarray(ids, np.int64)
    at = np.minimum(np.searchsorted(world.ids, ids), world.count - 1)
    return at[world.ids[at] == ids]


def _joint_rows(world, bodies, gathered, nb, static_p):
    """The joints for the solve: (ji (J, 3) kind, a, b participants; keep (J,) bool: the joints
    whose balls are here now)."""
    nj = len(bodies.joint_kind)
    ji = np.zeros((nj, 3), np.int64)
    keep = np.ones(nj, bool)
    for k, ends in enumerate(bodies.joint_ends):
        ji[k, 0] = bodies.joint_kind[k]
        for col, (kind, i) in zip((1, 2), ends):
            if kind == "body":
                ji[k, col] = i
            elif kind == "ball":
                at = np.searchsorted(world.ids, i) if world.count else 0
                if world.count and at < world.count and world.ids[at] == i:
                    ji[k, col] = nb + int(np.searchsorted(gathered, at))
                else:
                    keep[k] = False           # its ball is gone (or asleep): the joint waits
            else:
                ji[k, col] = static_p
    return ji[keep], keep


def break_joints(world, dt):
    """After a tick: the bodies' joints whose force exceeded their ``break`` go (their places
    join the world's joint_breaks); the peaks start again for the next tick."""
    bodies = world.bodies
    if not len(bodies.joint_kind):
        return
    rows = bodies.joint_rows
    broken = rows[:, K.PEAK] > rows[:, K.BREAK]
    rows[:, K.PEAK] = 0.0
    if broken.any():
        where = np.array([joint_points(world, k)[0] for k in np.flatnonzero(broken)]).reshape(-1, 2)
        world.joint_breaks = np.concatenate((world.joint_breaks, where))
        world.joints_broken += int(broken.sum())
        bodies.keep_joints(~broken)


def joint_points(world, k):
    """(end a (2,), end b (2,)) m: where joint k of the bodies holds its ends now."""
    bodies = world.bodies
    row = bodies.joint_rows[k]
    out = []
    for (kind, i), col in zip(bodies.joint_ends[k], (K.LAX, K.LBX)):
        local = row[col:col + 2]
        if kind == "anchor":
            out.append(local.copy())
            continue
        if kind == "body":
            pos, angle = bodies.pos[i], bodies.angle[i]
        else:
            at = int(np.searchsorted(world.ids, i))
            if at >= world.count or world.ids[at] != i:
                out.append(np.full(2, np.nan))
                continue
            pos, angle = world.pos[at], world.angle[at]
        c, s = np.cos(angle), np.sin(angle)
        out.append(pos + np.array([c * local[0] - s * local[1], s * local[0] + c * local[1]]))
    return out[0], out[1]


def joint_definitions(world, springs=False):
    """The bodies' joints (or, with ``springs``, their springs) as level definitions now: ball
    ends by their index now."""
    bodies = world.bodies
    out = []
    for d, ends, handle, kind in zip(bodies.joint_definitions, bodies.joint_ends, bodies.joint_handle,
                                     bodies.joint_kind):
        if handle or (kind == K.SPRING) != springs:     # the player's grab is not part of the level
            continue
        d = dict(d)
        for key, (kind, i) in zip(("a", "b"), ends):
            if kind == "body":
                d[key] = {"body": int(i)}
            elif kind == "ball":
                d[key] = int(np.searchsorted(world.ids, i))
        out.append(d)
    return out


# ============================================================================ the game's hands
GRAB_HERTZ = 5.0            # Hz: the grab's spring (Box2D's samples: 5 Hz, damping ratio 0.7)
GRAB_DAMPING = 0.7
GRAB_FORCE = 1000.0         # the grab pulls with at most this many times the body's weight (N / (kg g))
GRAB_TURN_DAMPING = 2.0     # 1/s: and each pass takes this times h of the body's spin (a viscous brake)


@journaled("bodies.add")
def add(world, definitions):
    """Add bodies from normalised definitions (as a level's "bodies" normalise); returns their
    indices. (The player's spawned boxes, planks and triangles.)"""
    first = len(world.bodies)
    world.bodies.add(definitions, world.material)
    world.level.setdefault("bodies", [])
    return list(range(first, len(world.bodies)))


@journaled("bodies.remove")
def remove(world, indices):
    """Remove bodies by index (and the joints and grabs that hold them)."""
    keep = np.ones(len(world.bodies), bool)
    keep[np.asarray(indices, np.int64).reshape(-1)] = False
    if not keep.all():
        world.bodies.remove(keep)


@journaled("bodies.grab")
def grab(world, index, point, local=None):
    """Hold body ``index`` at ``point`` (2,) m, the point of it under the cursor: a soft spring
    (GRAB_HERTZ, GRAB_DAMPING, at most GRAB_FORCE times its weight) from that point of the body
    to the cursor, so it hangs from where it was taken and swings about it (Box2D's mouse
    joint). ``local`` (2,) m: hold it by that point in its frame instead, the cursor at ``point``
    (a copy of the world holding its body as the world holds its own). Returns a handle for
    move_grab and release."""
    bodies = world.bodies
    p = np.asarray(point, float)
    c, s = math.cos(bodies.angle[index]), math.sin(bodies.angle[index])
    d = p - bodies.pos[index]
    local = [c * d[0] + s * d[1], -s * d[0] + c * d[1]] if local is None else [float(v) for v in local]
    weight = float(bodies.mass[index]) * max(float(np.hypot(*world.forces.gravity)), 1.0)
    bodies.add_joints([{"kind": "rod", "a": {"body": int(index)}, "b": [float(p[0]), float(p[1])], "length": 0.0,
                        "offset_a": local, "offset_b": [0.0, 0.0]}], world.ids)
    row = bodies.joint_rows[-1]
    bodies.joint_kind[-1] = K.MOUSE
    row[K.LENGTH], row[K.SPEED], row[K.TORQUE] = GRAB_HERTZ, GRAB_DAMPING, GRAB_FORCE * weight
    row[K.DAMPING] = GRAB_TURN_DAMPING
    bodies.asleep[index] = False
    bodies.rest_time[index] = 0.0
    bodies.grab_serial += 1
    bodies.joint_handle[-1] = bodies.grab_serial
    return bodies.grab_serial


def _grab_row(world, handle):
    at_ = np.flatnonzero(world.bodies.joint_handle == handle)
    return int(at_[0]) if len(at_) else -1


@journaled("bodies.move_grab")
def move_grab(world, handle, point):
    """Move the cursor end of grab ``handle``; False if the grab is over (its body went)."""
    k = _grab_row(world, handle)
    if k < 0:
        return False
    bodies = world.bodies
    bodies.joint_rows[k, K.LBX:K.LBY + 1] = point
    for kind, i in bodies.joint_ends[k]:
        if kind == "body":
            bodies.asleep[i] = False
            bodies.rest_time[i] = 0.0
    return True


@journaled("bodies.release")
def release(world, handle):
    """Let go of grab ``handle`` (twice does nothing)."""
    k = _grab_row(world, handle)
    if k >= 0:
        keep = np.ones(len(world.bodies.joint_kind), bool)
        keep[k] = False
        world.bodies.keep_joints(keep)


def grabbed(world, handle):
    """The body grab ``handle`` holds now, -1 if none."""
    k = _grab_row(world, handle)
    return -1 if k < 0 else next(i for kind, i in world.bodies.joint_ends[k] if kind == "body")
