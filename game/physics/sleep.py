"""Sleeping: an island of balls at rest stops being stepped until something wakes it (Box2D's islands).

An island is a set of balls joined by springs and by nearness: two balls are joined when
they are closer than r_a + r_b + m_a + m_b, with each ball's reach ``margins`` (at least
the way a ball at the sleep speed goes in a tick, plus a slop), so touching balls and balls
about to touch are one island (Box2D v3 joins bodies by their speculative contacts so).
Statics join nothing. A ball rests while its speed, its rim's speed (|spin| r) and the way
it went in the last tick over the tick are below SLEEP_SPEED; an island held by a static or
an anchored spring whose every ball has rested for SLEEP_TIME falls asleep: its balls'
velocity and spin become zero and the World leaves them out of its tick (and so out of
every contact they had, among themselves and with the statics).

What wakes an island (World does the asking, this module the bookkeeping): an awake ball
that could reach one of its balls within the tick (``reached``: the same reach that joins
islands, with the awake ball's own speed, so two resting islands never wake each other
in turn; a ball too fast for the pair grid is traced along its path), a ball of it that
someone moved or gave a velocity or spin (``edited``), a ball of it or one it could reach
removed, a ball of it grabbed or given, changed or freed from a spring, and any change to
gravity, drag, the integrator, the attractors or the statics.

Everything here is numpy and decided from the world's state alone: the numpy and the
compiled executions see the same bits and so sleep and wake alike (the pair search takes
the kernels' ball_contacts, which finds the same pairs as numpy, and the islands the kernels'
union-find, which gives numpy's labels).
"""
import contextlib
import copy

import numpy as np

from game.physics import bodies

from game.defaults import TICK
from game.physics import collide
from game.physics.balls import BALL_ARRAYS
from game.physics.solver import islands

SLEEP_SPEED = 0.05     # m/s: slower than this (and |spin| r below it too) a ball is resting (Box2D: 0.05)
SLEEP_TIME = 0.5       # s: an island whose balls have all rested this long falls asleep (Box2D: 0.5)
SLEEP_SLOP = 0.05      # fraction of its radius a ball reaches beyond its move in a tick (joins, wakes)
ISLAND_EVERY = 6       # ticks: the islands are looked for at most this often (each look is a pair search
                       # over the awake balls, a fifth of a tick's work; an island sleeps up to 0.1 s later)
NO_STATICS = collide.Statics(np.zeros((0, 2)), np.zeros((0, 2)), [], [], [], [], [])


class Sleep:
    """Per-ball sleep state, one row a ball in the World's index order.

    ``asleep`` (N,) bool; ``timer`` (N,) s a ball has rested; ``island`` (N,) int64: a
    sleeping ball's island, the least ball id in it (-1 awake); ``rest`` (N, 2) m: where a
    sleeping ball fell asleep (a ball found elsewhere was moved: it wakes).
    """

    def __init__(self):
        self.asleep = np.zeros(0, bool)
        self.timer = np.zeros(0)
        self.island = np.zeros(0, np.int64)
        self.rest = np.zeros((0, 2))
        self.ticks = 0         # ticks settled: the islands are looked for every ISLAND_EVERY

    ARRAYS = ("asleep", "timer", "island", "rest")

    def __len__(self):
        return len(self.asleep)

    def copy(self):
        """An independent copy (its arrays copied)."""
        other = Sleep()
        for name in self.ARRAYS:
            setattr(other, name, getattr(self, name).copy())
        other.ticks = self.ticks
        return other

    def any(self):
        return bool(self.asleep.any())

    def grow(self, count):
        """``count`` awake balls were appended."""
        self.asleep = np.concatenate((self.asleep, np.zeros(count, bool)))
        self.timer = np.concatenate((self.timer, np.zeros(count)))
        self.island = np.concatenate((self.island, np.full(count, -1, np.int64)))
        self.rest = np.vstack((self.rest, np.zeros((count, 2))))

    def insert(self, at):
        """An awake ball was inserted at index ``at``."""
        for name, value in zip(self.ARRAYS, (False, 0.0, -1, np.zeros(2))):
            setattr(self, name, np.insert(getattr(self, name), at, value, axis=0))

    def keep(self, keep):
        """Balls were removed: keep the rows where ``keep`` (N,) is true."""
        for name in self.ARRAYS:
            setattr(self, name, getattr(self, name)[keep])

    def wake(self, balls):
        """Wake the balls ``balls`` (indices or an (N,) bool mask) and every ball of their
        islands; their rest timers start again. Returns how many were asleep."""
        balls = np.asarray(balls).reshape(-1)
        if balls.dtype == bool:
            mask = balls.copy()
        else:
            mask = np.zeros(len(self), bool)
            mask[balls.astype(np.int64)] = True
        sleeping = mask & self.asleep
        if sleeping.any():
            mask |= self.asleep & np.isin(self.island, self.island[sleeping])
        woken = int(np.count_nonzero(mask & self.asleep))
        self.asleep[mask] = False
        self.island[mask] = -1
        self.timer[mask] = 0.0
        return woken

    def wake_all(self):
        self.asleep[:] = False
        self.island[:] = -1
        self.timer[:] = 0.0

    def edited(self, pos, vel, spin):
        """(N,) bool: sleeping balls someone moved, or gave a velocity or a spin since they
        fell asleep (a sleeping ball's velocity and spin are exactly zero)."""
        s = self.asleep
        return s & ((pos[:, 0] != self.rest[:, 0]) | (pos[:, 1] != self.rest[:, 1])
                    | (vel[:, 0] != 0.0) | (vel[:, 1] != 0.0) | (spin != 0.0))

    def settle(self, before, balls, springs, statics, dt, gravity, grid, kernels, rest=None, joints=None):
        """After a tick: the awake balls' rest timers, then the islands whose every ball has
        rested SLEEP_TIME and that are held (a ball of it within reach of a static, or on an
        anchored spring) fall asleep: velocity and spin set to zero, in place on the arrays
        ``vel`` and ``spin`` of ``balls`` (bundles.Balls: the World's (N, ...) arrays themselves).
        ``springs`` the World's Springs, ``statics`` its collide.Statics; ``before`` (N, 2) m
        the positions before the tick: a ball rests only
        if it also moved less than SLEEP_SPEED dt (a soft contact pushing a ball out of an
        overlap moves it with no velocity). Returns how many balls fell asleep. ``rest``: (N,)
        bool, ``resting(before, pos, vel, spin, radius, dt)``, where the caller has it already
        (the one-call tick finds it). ``joints``: the World's Joints (game.physics.joints): a
        joint's two balls are one island, as a spring's, and an anchored joint holds its island.

        A free island is never held: balls drifting slower than SLEEP_SPEED in free flight
        (no gravity) keep drifting, as a player expects, instead of stopping dead."""
        pos, vel, spin, radius, ids = balls.pos, balls.vel, balls.spin, balls.radius, balls.ids
        if rest is None:
            rest = resting(before, pos, vel, spin, radius, dt)
        # (A sleeper rests, so its timer runs on, unread until it wakes, which starts it again.)
        self.timer = np.where(rest, self.timer + dt, 0.0)
        self.ticks += 1
        if self.ticks % ISLAND_EVERY:
            return 0
        awake = ~self.asleep
        if not np.any(awake & (self.timer >= SLEEP_TIME)):
            return 0
        # The islands of the awake balls, in their own numbering 0..M-1.
        index = np.flatnonzero(awake)
        m = len(index)
        new_index = np.full(len(awake), -1, np.int64)
        new_index[index] = np.arange(m)
        reach = margins(vel[index], radius[index], dt, gravity)
        # A ball too fast for the pair grid is not ripe, and cannot be; it joins by its springs only.
        slow = np.flatnonzero(reach <= collide.MAX_MARGIN_CELLS * grid.cell)
        p, r = pos[index[slow]], radius[index[slow]]
        i, j, bi, _ = collide.find_candidates(p, p, r, grid, statics, reach[slow], kernels)
        i, j, bi = slow[i], slow[j], slow[bi]
        tied = springs.b >= 0
        sa, sb = new_index[springs.a[tied]], new_index[springs.b[tied]]
        both = (sa >= 0) & (sb >= 0)
        a, b = np.concatenate((i, sa[both])), np.concatenate((j, sb[both]))
        joint_a, joint_b, joint_anchored = _joint_ties(joints, new_index)
        a, b = np.concatenate((a, joint_a)), np.concatenate((b, joint_b))
        label = (islands if kernels is None else kernels.islands)(a, b, np.full(len(a), -1, np.int64), m)
        held = np.zeros(m, bool)
        held[label[bi]] = True
        anchored = np.concatenate((new_index[springs.a[~tied]], joint_anchored))
        held[label[anchored[anchored >= 0]]] = True
        # A held island sleeps when its least rest time has come to SLEEP_TIME.
        least = np.full(m, np.inf)
        np.minimum.at(least, label, self.timer[index])
        falls = index[(least[label] >= SLEEP_TIME) & held[label]]
        if len(falls) == 0:
            return 0
        self.asleep[falls] = True
        self.island[falls] = ids[index[label[new_index[falls]]]]
        vel[falls] = 0.0
        spin[falls] = 0.0
        self.rest[falls] = pos[falls]
        return len(falls)


def wake_near_walls(world, dt=None):
    """Wake (and keep awake: their rest timers start again) the balls within reach of a
    moving wall's path or a conveyor: a ball there rides or is about to be hit, never rests.
    The path boxes (collide.Statics.box) widened by each ball's radius and SLEEP_SLOP of it.
    With ``dt``, also those an awake body may reach in a tick of dt s (bodies.wake_balls)."""
    if dt is not None:
        bodies.wake_balls(world, dt)
    st = world.statics
    if not st.any_moving or world.count == 0:
        return
    rows = np.nonzero(st.moving | (st.surface != 0.0))[0]
    reach = world.radius * (1.0 + SLEEP_SLOP)
    x, y = world.pos[:, 0], world.pos[:, 1]
    near = np.zeros(world.count, bool)
    for lo_x, lo_y, hi_x, hi_y in st.box[rows]:         # few moving walls: a pass each
        near |= (x + reach >= lo_x) & (x - reach <= hi_x) & (y + reach >= lo_y) & (y - reach <= hi_y)
    if near.any():
        world._sleep.wake(near)


def _joint_ties(joints, new_index):
    """The joints' ball pairs (a, b) among the balls ``new_index`` numbers (both in it), and
    the balls of it held by an anchored joint, in that numbering: a jointed island sleeps and
    wakes as one."""
    empty = np.zeros(0, np.int64)
    if joints is None or not len(joints):
        return empty, empty, empty
    tied = joints.b >= 0
    ja, jb = new_index[joints.a[tied]], new_index[joints.b[tied]]
    both = (ja >= 0) & (jb >= 0)
    return ja[both], jb[both], new_index[joints.a[~tied]]


def rest_limits(dt):
    """(speed squared, way squared): ``resting``'s bounds for a tick of ``dt`` s."""
    way = SLEEP_SPEED * dt
    return SLEEP_SPEED * SLEEP_SPEED, way * way


def resting(before, pos, vel, spin, radius, dt):
    """(N,) bool: the balls that rest after a tick of ``dt`` s from positions ``before``: slower
    than SLEEP_SPEED, their rim too (|spin| r), and moved less than SLEEP_SPEED dt. Every
    tick, so in as few numpy calls as the same arithmetic allows (whole (N, 2) arrays squared
    at once, then their columns summed: vx vx + vy vy); compiled.step._resting is its
    compiled twin (the same sums and tests, so the same booleans)."""
    speed2, way2 = rest_limits(dt)
    v2 = vel * vel
    move = pos - before
    move *= move
    rim = spin * radius
    rim *= rim
    out = (v2[:, 0] + v2[:, 1]) < speed2
    out &= rim < speed2
    out &= (move[:, 0] + move[:, 1]) < way2
    return out


def margins(vel, radius, dt, gravity):
    """(N,) m: how far beyond touching a ball reaches in a tick of ``dt`` s: its way at its
    speed (at least SLEEP_SPEED, so that a resting ball reaches as far as it did when its
    island was formed), what gravity (2,) m/s^2 adds from rest, g dt^2 / 2, and
    SLEEP_SLOP of its radius."""
    speed = np.sqrt(vel[:, 0] * vel[:, 0] + vel[:, 1] * vel[:, 1])
    g = float(np.hypot(gravity[0], gravity[1]))
    return np.maximum(speed, SLEEP_SPEED) * dt + 0.5 * g * dt * dt + SLEEP_SLOP * radius


def near_pairs(pos, radius, margin, grid, kernels=None):
    """(i, j) ball pairs closer than r_i + r_j + m_i + m_j, i < j: collide.find_candidates'
    ball pairs (compiled or numpy, the same pairs)."""
    if len(pos) < 2:
        empty = np.zeros(0, np.int64)
        return empty, empty
    i, j, _, _ = collide.find_candidates(pos, pos, radius, grid, NO_STATICS, margin, kernels)
    return i, j


def reached(pos, vel, radius, movers, sleepers, dt, gravity, grid, kernels=None):
    """(N,) bool: the ``sleepers`` (N,) bool that a ball of ``movers`` (N,) bool could reach
    within the tick: nearer than r_a + r_s + m_a + m_s (``margins``; a sleeper's velocity is
    zero). A mover too fast for the pair grid is tested along its path, p + v t for t in
    [0, dt], against every sleeper."""
    out = np.zeros(len(pos), bool)
    if not movers.any() or not sleepers.any():
        return out
    reach = margins(vel, radius, dt, gravity)
    fast = movers & (reach > collide.MAX_MARGIN_CELLS * grid.cell)
    slow = movers & ~fast
    s = np.flatnonzero(sleepers)
    if slow.any():
        # Only the sleepers within the slow movers' box can be reached: the pair search
        # then costs what the movers do, not the whole sleeping pile.
        k = np.flatnonzero(slow)
        far = float(np.max(radius[k] + reach[k])) + float(np.max(radius[s] + reach[s]))
        lo, hi = pos[k].min(axis=0) - far, pos[k].max(axis=0) + far
        near = s[np.all((pos[s] >= lo) & (pos[s] <= hi), axis=1)]
        if len(near):                   # and the movers within the near sleepers' box
            lo, hi = pos[near].min(axis=0) - far, pos[near].max(axis=0) + far
            k = k[np.all((pos[k] >= lo) & (pos[k] <= hi), axis=1)]
        if len(near) and len(k):
            both = np.concatenate((k, near))
            i, j = near_pairs(pos[both], radius[both], reach[both], grid, kernels)
            i, j = both[i], both[j]
            out[i[sleepers[i] & movers[j]]] = True
            out[j[sleepers[j] & movers[i]]] = True
    for a in np.flatnonzero(fast):
        # Distance from each sleeper to the segment the fast ball sweeps this tick.
        d = vel[a] * dt
        rel = pos[s] - pos[a]
        t = np.clip((rel @ d) / max(float(d @ d), 1e-300), 0.0, 1.0)
        gap = rel - t[:, None] * d
        limit = radius[a] + radius[s] + (reach[a] - np.hypot(d[0], d[1])) + reach[s]
        out[s[np.einsum("ij,ij->i", gap, gap) < limit * limit]] = True
    return out


# ---- a World's sleeping balls: what wakes them, and stepping the awake ones only
def sleep_causes(world):
    """What a sleeping ball rests under: gravity, drag, the integrator, the attractors and
    the statics (a change to any wakes every ball)."""
    f = world.forces
    return (tuple(float(v) for v in f.gravity), float(f.drag), world._integrator, world.statics,
            tuple((z, float(z.strength), tuple(float(v) for v in np.ravel(z.center))) for z in f.attractors))


def wake_reached(world, dt, kernels):
    """Before a tick: wake every sleeping island whose causes changed (forces, statics,
    sleeping switched off), a ball of which someone moved or set going, or that an awake
    ball could reach this tick. Returns the (N,) bool awake balls, or None when all are."""
    s = world._sleep
    causes = sleep_causes(world) if world.solver.options.sleeping else None
    if causes is None or causes != world._sleep_causes:
        s.wake_all()
        world._sleep_causes = causes
    if not s.any():
        return None
    s.wake(s.edited(world.pos, world.vel, world.spin))
    s.wake(joined_to_awake(world.joints, s.asleep))
    s.wake(reached(world.pos, world.vel, world.radius, ~s.asleep, s.asleep, dt, world.forces.gravity,
                   world.grid, kernels))
    return ~s.asleep if s.any() else None


def joined_to_awake(joints, asleep):
    """(N,) bool: the sleeping balls a joint joins to an awake ball (a joint added since they
    fell asleep, in the editor or by undo): their island wakes, so a joint is never half in
    the tick."""
    out = np.zeros(len(asleep), bool)
    if not len(joints) or not asleep.any():
        return out
    both = joints.b >= 0
    a, b = joints.a[both], joints.b[both]
    mixed = asleep[a] != asleep[b]
    out[a[mixed]] = True
    out[b[mixed]] = True
    return out & asleep


def wake_around(world, gone):
    """Balls ``gone`` (N,) bool are leaving: their sleeping islands wake, and so do the
    sleeping balls they could reach (what rested on them)."""
    s = world._sleep
    if not s.any():
        return
    s.wake(gone)
    if world.grid is None:
        s.wake_all()
        return
    s.wake(reached(world.pos, world.vel, world.radius, gone, s.asleep & ~gone, TICK, world.forces.gravity,
                   world.grid, world._kernels))


@contextlib.contextmanager
def only(world, awake):
    """Step only the ``awake`` (N,) bool balls: the ball arrays and the springs become
    theirs for the block, and their pos, vel, angle and spin go back into the whole
    arrays after it. The awake ids array is kept while the awake set is the same, so
    the candidate pairs found for it are kept too (_candidates_kept)."""
    index = np.flatnonzero(awake)
    whole = {name: getattr(world, name) for name in BALL_ARRAYS}
    kept = world._awake_ids
    if kept is not None and kept[0] is whole["ids"] and np.array_equal(kept[1], index):
        ids = kept[2]
    else:
        ids = whole["ids"][index]
        world._awake_ids = (whole["ids"], index, ids)
    springs = world.forces.springs
    joints = world.joints
    for name in BALL_ARRAYS:
        setattr(world, name, whole[name][index])
    world.ids = ids
    if len(springs):
        # A spring's two balls are one island: both awake, or both asleep and left out.
        new_index = np.full(len(awake), -1, np.int64)
        new_index[index] = np.arange(len(index))
        part = copy.copy(springs)
        part.remap_balls(new_index)
        world.forces.springs = part
    if len(joints):
        # A joint's two balls are one island too (Sleep.settle): its part has both awake.
        new_index = np.full(len(awake), -1, np.int64)
        new_index[index] = np.arange(len(index))
        world.joints = joints.part(new_index)
    try:
        yield
    finally:
        if len(joints):
            joints.put_back(world.joints)
            world.joints = joints
        moved = [getattr(world, name) for name in ("pos", "vel", "angle", "spin")]
        for name in BALL_ARRAYS:
            setattr(world, name, whole[name])
        world.forces.springs = springs
        for name, part in zip(("pos", "vel", "angle", "spin"), moved):
            full = whole[name].copy()
            full[index] = part
            setattr(world, name, full)
