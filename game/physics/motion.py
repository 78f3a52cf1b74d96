"""Moving walls: which capsules move, and where they are at the level's time t.

A level's segment, polyline or polygon may carry a ``motion`` (rotate, slide or flipper),
a ``surface_speed`` (a conveyor: the surface moves along a -> b, the shape stays put) and
a ``kick`` (a bumper). Every moving capsule's pose is rigid: a turn by theta about its
pivot c, then a shift d, applied to the ends the file gives (a0, b0):

    a(t) = c + R(theta(t)) (a0 - c) + d(t)

- rotate: theta = speed t, d = 0 (c the pivot);
- slide: theta = 0, d = to (1 - cos(2 pi t / period)) / 2 (c unused);
- flipper: theta = phi, an angle state that turns towards its target (``angle`` while its
  key is held, 0 when released) at ``speed``. Its angular velocity is decided once a tick
  (``begin_tick``), clamped so that it does not overshoot the target within the tick, so
  within a tick every motion is a known function of t.

Over a sub-step t0 -> t1 = t0 + h each moving capsule moves rigidly by the map
M(x) = c + R(dtheta) (x - c) + dd (dtheta = theta1 - theta0, dd = d1 - d0). ``tick_poses``
computes every sub-step's of a tick at once, and Statics.set_pose puts sub-step k's in place:
the capsules at their poses at t1 (contacts are measured there) and M in the Statics (``mcos, msin, mcx, mcy, mdx, mdy``) with ``omega`` = dtheta / h and ``inv_h`` = 1 / h:

- the wall's velocity at a point p of its pose at t1 is (p - M^-1(p)) / h, the chord the
  point actually went (not omega x r, the tangent), plus a conveyor's surface speed along
  its unit tangent a -> b (``wall_velocity``);
- a ball's start of the sub-step seen in the wall's frame is M(prev) (``carried``): the
  crossing tests, the sweeps and keep_sides judge sides and paths against that, so a wall
  moving fast never passes a ball (see collide.sweep).

No tunnelling, at any speed: each (ball, moving wall) pair is swept in the wall's frame,
from the ball's start carried with the wall, M(prev), to its end, against the wall's pose at
the sub-step's end (collide.sweep and its twin; a ball slow itself is swept against the
moving walls it moved far against in their frame), and the contacts' crossing test and
keep_sides judge sides from M(prev) too. Conservative advancement was the other way: it
cuts the sub-step into pieces no longer than a wall moves a ball's radius in, so its cost
grows with the wall's speed (a 30 rad/s rotor 2 m long: 0.25 m a sub-step, 3 pieces for a
0.1 m ball) and it still needs a swept test within each; the frame change costs one point
carried per pair and reuses seed 001's swept test as it is. The move in the wall's frame is
the chord of the ball's relative arc: over a sub-step h a rotor at omega bends it by about
d (omega h)^2 / 8 at distance d, 4 mm at 30 rad/s and 2 m, below a ball's radius; what the
chord misses the crossing test catches.

Pure numpy; no pygame. The numbers the compiled kernels need are arrays in the Statics
bundle, computed here once a sub-step, so the motion's mathematics has one implementation.
"""
import numpy as np

from game.physics import geometry

STILL, ROTATE, SLIDE, FLIPPER = 0, 1, 2, 3
KINDS = {"rotate": ROTATE, "slide": SLIDE, "flipper": FLIPPER}
FLIPPER_KEYS = ("left", "right")
# The rows of Motions.tick_poses (and of bundles.Statics.poses[k]): the Statics arrays a
# moving wall's pose and rigid map set.
POSE_FIELDS = ("ax", "ay", "bx", "by", "nx", "ny", "mcos", "msin", "mcx", "mcy", "mdx", "mdy", "omega")
REACH_SLOP = 1e-6          # m: the reach boxes are this much wider than the poses (> contacts.TOUCH_SLOP)


class Motions:
    """The motions of a World's capsules (M,) and polygons.

    ``kind`` (M,) int64 (STILL, ROTATE, SLIDE, FLIPPER); ``pivot`` (M, 2) m; ``rest_a``,
    ``rest_b`` (M, 2) m: the ends the file gives (as the world orients them); ``shape``
    (M,) int64: the motion each capsule follows (an index into ``motions``, -1 still);
    ``motions``: the level's motion dicts, one a moving shape; ``phi``, ``omega_tick``
    (F,) rad, rad/s: each motion's flipper angle and its angular velocity this tick (0 for
    the others); ``held``: the flipper keys held now.
    """

    def __init__(self, rest_a, rest_b, shape, motions, polygon_shape, polygons):
        self.rest_a = np.asarray(rest_a, float).reshape(-1, 2).copy()
        self.rest_b = np.asarray(rest_b, float).reshape(-1, 2).copy()
        self.shape = np.asarray(shape, np.int64).reshape(-1)
        self.motions = list(motions)
        self.polygon_shape = list(polygon_shape)          # per polygon: its motion index or -1
        self.rest_polygons = [np.asarray(p, float).copy() for p in polygons]
        kinds = np.array([KINDS[m["kind"]] for m in self.motions] + [STILL], np.int64)
        self.kind = kinds[self.shape]                       # shape -1 picks the STILL at the end
        pivots = np.array([m.get("pivot", [0.0, 0.0]) for m in self.motions] + [[0.0, 0.0]], float)
        self.pivot = pivots[self.shape]
        self.phi = np.zeros(len(self.motions))
        self.omega_tick = np.zeros(len(self.motions))
        self.tick_start = 0.0
        self.held = set()

    def __len__(self):
        return len(self.shape)

    @property
    def any(self):
        return bool(len(self.motions))

    @property
    def moving(self):
        """(M,) bool: the capsules that move."""
        return self.shape >= 0

    @property
    def flipper_keys(self):
        return frozenset(m["key"] for m in self.motions if m["kind"] == "flipper")

    def press(self, key, held):
        """Hold (``held`` True) or release the flippers of ``key`` ("left" or "right"); they
        turn from the next tick on. A key no flipper uses does nothing."""
        if key not in FLIPPER_KEYS:
            raise ValueError(f"unknown flipper key {key!r}; expected one of {', '.join(FLIPPER_KEYS)}")
        if held:
            self.held.add(key)
        else:
            self.held.discard(key)

    # ------------------------------------------------------------ the poses
    def begin_tick(self, t, dt):
        """Decide each flipper's angular velocity for the tick t -> t + dt: towards its target
        at its speed, no faster than reaches the target at the tick's end."""
        self.tick_start = float(t)
        for k, m in enumerate(self.motions):
            if m["kind"] != "flipper":
                continue
            target = float(m["angle"]) if m["key"] in self.held else 0.0
            need = (target - self.phi[k]) / dt
            speed = float(m["speed"])
            self.omega_tick[k] = min(max(need, -speed), speed)

    def end_tick(self, dt):
        """The flippers' angles at the tick's end (exactly the target when it is reached)."""
        for k, m in enumerate(self.motions):
            if m["kind"] != "flipper":
                continue
            phi = self.phi[k] + self.omega_tick[k] * dt
            lo, hi = min(0.0, float(m["angle"])), max(0.0, float(m["angle"]))
            self.phi[k] = min(max(phi, lo), hi)
            self.omega_tick[k] = 0.0

    def shape_pose(self, t):
        """(theta (S,) rad, d (S, 2) m): each moving shape's pose at the level's time t
        (within the current tick for flippers). ``t`` may be an array (T,) of times: then
        theta (T, S) and d (T, S, 2), each time's entries the same numbers as for it alone."""
        t = np.asarray(t, float)
        s = len(self.motions)
        theta, d = np.zeros(t.shape + (s,)), np.zeros(t.shape + (s, 2))
        for k, m in enumerate(self.motions):
            phi = self.phi[k] + self.omega_tick[k] * (t - self.tick_start) if m["kind"] == "flipper" else 0.0
            theta[..., k], d[..., k, :] = pose(m, t, phi)
        return theta, d

    def ends(self, theta, d):
        """(a, b) (..., K, 2) of the moving capsules (``moving`` order) at shape poses (theta
        (..., S), d (..., S, 2))."""
        rows = np.nonzero(self.moving)[0]
        sh = self.shape[rows]
        c = self.pivot[rows]
        return (turn(self.rest_a[rows] - c, theta[..., sh]) + c + d[..., sh, :],
                turn(self.rest_b[rows] - c, theta[..., sh]) + c + d[..., sh, :])

    # ------------------------------------------------------------ the world
    def tick_poses(self, world, t, dt, substeps):
        """Every sub-step's pose of a tick t -> t + dt, computed at once: (S, len(POSE_FIELDS),
        M) in the rows of POSE_FIELDS, each sub-step k's capsules at their poses at its end
        t_k+1 = t + (k + 1) h and its rigid map t_k -> t_k+1 (see the module docstring; the still
        capsules' columns as they are). Sets world.statics.inv_h = 1 / h and ``reach`` (M, 5):
        for each moving capsule a capsule (ax, ay, bx, by, radius) holding it at every pose of
        the tick t_0 .. t_S (a polygon's edges: a disc holding the whole polygon), which the
        candidates and the sweeps test instead of its path.
        Statics.set_pose puts a sub-step's poses in place."""
        st = world.statics
        h = dt / substeps
        times = t + np.arange(substeps + 1) * h
        theta, d = self.shape_pose(times)                    # (S + 1, shapes), (S + 1, shapes, 2)
        rows = np.nonzero(self.moving)[0]
        a, b = self.ends(theta, d)                           # (S + 1, K, 2)
        sh = self.shape[rows]
        dtheta = theta[1:, sh] - theta[:-1, sh]               # (S, K)
        dd = d[1:, sh, :] - d[:-1, sh, :]
        normal = geometry.segment_normal(a[1:], b[1:]).reshape(substeps, len(rows), 2)
        poses = np.empty((substeps, len(POSE_FIELDS), max(1, len(st))))
        for f, name in enumerate(POSE_FIELDS):
            poses[:, f, :len(st)] = getattr(st, name)
        moving = (a[1:, :, 0], a[1:, :, 1], b[1:, :, 0], b[1:, :, 1], normal[..., 0], normal[..., 1],
                  np.cos(dtheta), np.sin(dtheta), self.pivot[rows, 0], self.pivot[rows, 1], dd[..., 0], dd[..., 1],
                  dtheta / h)
        for f, value in enumerate(moving):
            poses[:, f, rows] = value
        st.inv_h = 1.0 / h
        # The reach: a capsule holding the wall at every pose of the tick: its core at the
        # tick's start, its radius grown by the furthest any point of it goes from there (a
        # rigid map moves a segment's points furthest at an end).
        go = np.maximum(np.hypot(*np.moveaxis(a - a[0], -1, 0)), np.hypot(*np.moveaxis(b - b[0], -1, 0))).max(axis=0)
        reach = np.empty((len(rows), 5))
        reach[:, 0:2], reach[:, 2:4] = a[0], b[0]
        reach[:, 4] = st.radius[rows] + go + REACH_SLOP
        poly = st.polygon[rows]
        for p in np.unique(poly[poly >= 0]):             # a moving polygon: a disc holding all of it
            mine = poly == p
            ends = np.concatenate((a[0, mine], b[0, mine]))
            centre = ends.mean(axis=0)
            reach[mine, 0:2] = reach[mine, 2:4] = centre
            reach[mine, 4] = float(np.hypot(*(ends - centre).T).max() + go[mine].max()) + REACH_SLOP
        st.reach[rows] = reach
        self._tick = (theta, d)
        return poses

    def pose_polygons(self, world, k):
        """Put the moving polygons at sub-step k's end pose of the tick tick_poses computed."""
        theta, d = self._tick
        for p, m in enumerate(self.polygon_shape):
            if m >= 0:
                world.polygons[p][:] = placed(self.rest_polygons[p], self.motions[m], theta[k + 1, m], d[k + 1, m])

    def carry_over(self, old):
        """Keep the flippers' angles and the keys held of ``old`` (the Motions before the
        statics were built again, as when a player draws a segment) where the motions match."""
        if old is None:
            return
        self.held = set(old.held)
        if len(old.motions) == len(self.motions):
            self.phi[:] = old.phi
        self.tick_start = old.tick_start

    def place(self, world, t):
        """Put the moving statics (and polygons) at their poses at time t, with no motion
        over a sub-step (the rigid maps the identity): a world built or rebuilt at t."""
        if not self.any:
            return
        st = world.statics
        theta, d = self.shape_pose(t)
        rows = np.nonzero(self.moving)[0]
        a, b = self.ends(theta, d)
        st.set_ends(rows, a, b)
        for p, k in enumerate(self.polygon_shape):
            if k >= 0:
                world.polygons[p][:] = placed(self.rest_polygons[p], self.motions[k], theta[k], d[k])

    def path_discs(self):
        """(centre (K, 2), radius (K,)) m of discs holding each moving capsule's core over its
        whole path (``moving`` order): about the pivot for turns (a rotor's whole circle, a
        flipper's arc), the circle round the box of both extremes for a slide. The broad phase
        bins the capsule there once (plus its own radius), so its cells list it wherever it
        is; the candidates then keep it for the balls within its reach this tick
        (``tick_poses``, collide.reaches)."""
        rows = np.nonzero(self.moving)[0]
        centre = np.empty((len(rows), 2))
        radius = np.empty(len(rows))
        for n, r in enumerate(rows):
            m = self.motions[self.shape[r]]
            a, b = self.rest_a[r], self.rest_b[r]
            if m["kind"] == "slide":
                to = np.asarray(m["to"], float)
                pts = np.array([a, b, a + to, b + to])
                lo, hi = pts.min(axis=0), pts.max(axis=0)
                centre[n] = 0.5 * (lo + hi)
                radius[n] = 0.5 * float(np.hypot(*(hi - lo)))
            else:
                c = self.pivot[r]
                centre[n] = c
                radius[n] = max(float(np.hypot(*(a - c))), float(np.hypot(*(b - c))))
        return rows, centre, radius


def pose(motion, t, phi=0.0):
    """(theta rad, d (..., 2) m): the pose of a level's ``motion`` dict at the level's time t
    (s, a number or an array): a rotor's turn speed t, a slide's shift to (1 - cos(2 pi t /
    period)) / 2; a flipper's turn is its angle state ``phi`` (Motions keeps it; the editor's
    preview scripts it). The one implementation of the format's motions: Motions.shape_pose
    and the editor's preview (game.editor.motion) call it."""
    t = np.asarray(t, float)
    kind = motion["kind"]
    if kind == "rotate":
        return float(motion["speed"]) * t, np.zeros(t.shape + (2,))
    if kind == "slide":
        return (np.zeros(t.shape),
                np.asarray(motion["to"], float) * (0.5 * (1.0 - np.cos(2.0 * np.pi * t / float(motion["period"]))))[..., None])
    return np.broadcast_to(np.asarray(phi, float), t.shape).copy(), np.zeros(t.shape + (2,))


def placed(points, motion, theta, d):
    """(K, 2) m: ``points`` (K, 2) of a wall with ``motion`` at pose (theta, d): turned by
    theta about its pivot, then shifted by d (the module docstring's a(t))."""
    c = np.asarray(motion.get("pivot", [0.0, 0.0]), float)
    return turn(np.asarray(points, float).reshape(-1, 2) - c, theta) + c + d


def velocity_at(statics, static_indices, points):
    """(K, 2) m/s: the velocity of capsules ``static_indices`` (K,) at ``points`` (K, 2) m
    over the last sub-step (their motion and their surface speed), for debug drawing."""
    s = np.asarray(static_indices, np.int64).reshape(-1)
    p = np.asarray(points, float).reshape(-1, 2)
    vx, vy = wall_velocity(statics, s, p[:, 0], p[:, 1])
    return np.stack((vx, vy), axis=1)


def turn(v, theta):
    """(..., K, 2) vectors v (K, 2) turned counter-clockwise by theta (..., K) or a number, rad."""
    c, s = np.cos(theta), np.sin(theta)
    return np.stack((c * v[:, 0] - s * v[:, 1], s * v[:, 0] + c * v[:, 1]), axis=-1)


def carried(statics, s, px, py):
    """(qx, qy): points (K,) at the sub-step's start, carried with capsules ``s`` (K,) to
    their poses now (M(x) = c + R(dtheta) (x - c) + dd): where a ball that stood still in
    the wall's frame would be. Unchanged (the same bits) for capsules that do not move."""
    mv = statics.moving[s]
    if not mv.any():
        return px, py
    cx, cy = statics.mcx[s], statics.mcy[s]
    co, si = statics.mcos[s], statics.msin[s]
    ux, uy = px - cx, py - cy
    qx = cx + (co * ux - si * uy) + statics.mdx[s]
    qy = cy + (si * ux + co * uy) + statics.mdy[s]
    return np.where(mv, qx, px), np.where(mv, qy, py)


def wall_velocity(statics, s, px, py):
    """(vx, vy) (K,) m/s: the velocity of capsules ``s`` (K,) at points (px, py) (K,) m of
    their pose now: the chord the point went this sub-step over h (M^-1: back through the
    rigid map), plus the surface speed along the unit tangent a -> b. Zero (+0.0) for still
    capsules."""
    mv = statics.moving[s]
    cx, cy = statics.mcx[s], statics.mcy[s]
    co, si = statics.mcos[s], statics.msin[s]
    ux, uy = px - cx - statics.mdx[s], py - cy - statics.mdy[s]
    fx = cx + (co * ux + si * uy)             # M^-1(p): R(-dtheta) (p - c - dd) + c
    fy = cy + (co * uy - si * ux)
    inv_h = statics.inv_h
    vx = np.where(mv, (px - fx) * inv_h, 0.0)
    vy = np.where(mv, (py - fy) * inv_h, 0.0)
    speed = statics.surface[s]
    tx, ty = statics.bx[s] - statics.ax[s], statics.by[s] - statics.ay[s]
    length = np.sqrt(tx * tx + ty * ty)
    on = (speed != 0.0) & (length > 0.0)
    scale = np.where(on, speed / np.where(on, length, 1.0), 0.0)
    return np.where(on, vx + scale * tx, vx), np.where(on, vy + scale * ty, vy)


def work_and_kicks(rows):
    """(J, int): the work the walls did on the balls through a solved sub-step's contacts
    (bundles.ContactRows), the sum over static contacts of impulse . wall velocity at the
    contact plus the rolling couple times the wall's turn rate (an infinitely heavy wall
    gives what it pushes with: the balls' energy changes by this much more than the still
    walls allow), and how many contacts a bumper kicked (an impact on a capsule with a kick).
    The impulses: the impacts' (jn, jt) and the soft step's accumulated ones (pn, pt, pr).
    Summed in solve order one term after another (cumsum), as the compiled twin
    (game.physics.compiled.walls.contact_work) does: the same bits."""
    k = np.nonzero(rows.static >= 0)[0]
    if len(k) == 0:
        return 0.0, 0
    nx, ny = rows.nx[k], rows.ny[k]
    p_n = rows.jn[k] + rows.pn[k]
    p_t = rows.jt[k] + rows.pt[k]
    jx = p_n * nx - p_t * ny
    jy = p_n * ny + p_t * nx
    work = float(np.cumsum(jx * rows.wvx[k] + jy * rows.wvy[k] + rows.pr[k] * rows.wspin[k])[-1])
    kicks = int(np.count_nonzero((rows.kick[k] > 0.0) & (rows.jn[k] > 0.0)))
    return work, kicks


def sweep_work(statics, pos, vel_before, vel_after, inv_mass, radius, fast, hits):
    """(J, int): work_and_kicks for the balls a sweep stopped (collide.sweep: ``fast`` and
    their ``hits``, NaN where none) at a moving wall, a conveyor or a bumper: the capsule met
    is the one the ball touches now (found afresh, the first of the nearest: the sweep returns
    the touch, not the capsule), the impulse m (v_after - v_before), its work on the wall's
    velocity at the closest point of the capsule's core. The compiled twin is
    game.physics.compiled.walls.sweep_work (the same arithmetic, the same bits)."""
    balls = fast[np.isfinite(hits[:, 0])]
    walls = np.nonzero(statics.moving | (statics.surface != 0.0) | (statics.kick > 0.0))[0]
    if len(balls) == 0 or len(walls) == 0:
        return 0.0, 0
    b = np.repeat(balls, len(walls))
    s = np.tile(walls, len(balls))
    dx, dy = statics.bx[s] - statics.ax[s], statics.by[s] - statics.ay[s]
    wx, wy = pos[b, 0] - statics.ax[s], pos[b, 1] - statics.ay[s]
    dd = dx * dx + dy * dy
    t = np.minimum(np.maximum(wx * dx + wy * dy, 0.0), dd) / np.maximum(dd, geometry.TINY)
    cx, cy = statics.ax[s] + t * dx, statics.ay[s] + t * dy
    ex, ey = pos[b, 0] - cx, pos[b, 1] - cy
    gap = np.abs(np.sqrt(ex * ex + ey * ey) - radius[b] - statics.radius[s]).reshape(len(balls), len(walls))
    pick = np.argmin(gap, axis=1)
    rows = np.arange(len(balls)) * len(walls) + pick
    touching = gap[np.arange(len(balls)), pick] <= 1e-6 * (1.0 + radius[balls])
    balls, s, rows = balls[touching], walls[pick[touching]], rows[touching]
    if len(balls) == 0:
        return 0.0, 0
    ux, uy = wall_velocity(statics, s, cx[rows], cy[rows])
    with np.errstate(divide="ignore", invalid="ignore"):
        mass = np.where(inv_mass[balls] > 0, 1.0 / inv_mass[balls], 0.0)
    dvx = vel_after[balls, 0] - vel_before[balls, 0]
    dvy = vel_after[balls, 1] - vel_before[balls, 1]
    work = float(np.cumsum(mass * (dvx * ux + dvy * uy))[-1])
    return work, int(np.count_nonzero(statics.kick[s] > 0.0))
