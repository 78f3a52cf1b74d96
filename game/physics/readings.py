"""Readings of a World: energies, the blow-up test, escapes and crossings, the deepest
overlap, and the world as a level document (a snapshot)."""
import copy

import numpy as np

from game.physics import bodies, resume

from game import defaults
from game.defaults import TICK
from game.physics import collide, geometry
from game.physics.solver import Solver
from game.physics.balls import exact_masses


def energy(world):
    """Energies in joules: kinetic (of translation), rotational (discs: I w^2 / 2),
    gravitational (zero at y = 0 for gravity down), spring, and their total; and
    ``motor_work``, the work the joints' motors have done on the balls since the world was
    made (World.motor_work): where only motors feed it, total - motor_work is what stays
    constant (a plot shows the two, or their difference)."""
    # A world that blew up has infinite energy: said on screen, never warned on stderr.
    with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
        mass = 1.0 / world.inv_mass
        kinetic = float(0.5 * np.sum(mass * np.einsum("ij,ij->i", world.vel, world.vel)))
        rotational = float(0.5 * np.sum(world.spin * world.spin / world.inv_inertia))
        gravitational, spring = world.forces.potential_energy(world.pos, mass)
        if len(world.bodies):
            k, r, g = world.bodies.energy(world.forces.gravity)
            kinetic, rotational, gravitational = kinetic + k, rotational + r, gravitational + g
    return {"kinetic": kinetic, "rotational": rotational, "gravitational": gravitational, "spring": spring,
            "total": kinetic + rotational + gravitational + spring, "motor_work": float(world.motor_work)}


def blown_up(world):
    """Whether the world has blown up (a stiff spring under Euler): some ball's position,
    velocity, angle or spin is not finite, or beyond what the level format holds (a ball a
    spring holds beyond its coordinates: free balls that far are removed as escaped; a
    velocity component beyond its speeds). A world that has not blown up saves as a
    valid level."""
    return not bool(np.isfinite(world.pos).all() and np.isfinite(world.vel).all()
                    and np.isfinite(world.angle).all() and np.isfinite(world.spin).all()
                    and (np.abs(world.pos) <= defaults.COORDINATE_LIMIT).all()
                    and (np.abs(world.vel) <= defaults.SPEED_LIMIT).all())


def escaped(world):
    """Balls whose centre is outside ``bounds``, and those removed for going far beyond."""
    x0, y0, x1, y1 = world.bounds
    p = world.pos
    inside = (p[:, 0] >= x0) & (p[:, 0] <= x1) & (p[:, 1] >= y0) & (p[:, 1] <= y1)
    return int(np.sum(~inside)) + world.escaped_removed


def max_overlap(world):
    """Deepest ball-ball or ball-static penetration now, in metres (0 if none)."""
    if world.count == 0:
        return 0.0
    found = collide.find_candidates(world.pos, world.pos, world.radius, world.grid, world.statics, 0.0,
                                    world._kernels)
    c = Solver().prepare(world, found, world.pos, 0.0)
    return float(max(0.0, c.depth.max())) if len(c) else 0.0


def crossings(world):
    """Times a ball's centre went through a wall, a stadium or into a polygon in a tick,
    inside the bounds or not (``count_crossings``): 0 is the solver's promise."""
    return int(world.crossed)


def crossing_mark(world):
    """What ``count_crossings`` compares a tick's end with: (ids, pos, vel) copies now (and,
    where walls move, their ends now on the world, to judge crossings in their frames)."""
    if world.statics.moving.any():
        world._crossing_walls = (world.statics.a.copy(), world.statics.b.copy())
    return world.ids.copy(), world.pos.copy(), world.vel.copy()


def _carried_since(q, a0, b0, a1, b1, moving):
    """Points q (K, 2) carried rigidly with moving capsules from ends (a0, b0) to (a1, b1)
    (the turn of b - a, then a's shift; a shift alone for a peg): a ball's start in its
    wall's frame at the tick's end. Unchanged where ``moving`` is false."""
    d0, d1 = b0 - a0, b1 - a1
    turn = np.arctan2(d1[:, 1], d1[:, 0]) - np.arctan2(d0[:, 1], d0[:, 0])
    turn = np.where((np.hypot(*d0.T) > 0) & (np.hypot(*d1.T) > 0), turn, 0.0)
    c, s = np.cos(turn), np.sin(turn)
    u = q - a0
    out = np.stack((c * u[:, 0] - s * u[:, 1], s * u[:, 0] + c * u[:, 1]), axis=1) + a1
    return np.where(moving[:, None], out, q)


def count_crossings(world, mark, dt=TICK):
    """Count in ``crossed`` the balls whose centre went through a static since ``mark``
    (``crossing_mark``, taken one tick of ``dt`` before): a thin wall's or a stadium's
    core either way, a polygon's edge inwards, inside the bounds or not. The solver never
    lets one (Solver.keep_sides); this check says so if one does (issue 28). It is the
    caller's (headless runs it after each step, out of the step's time; the game does
    not pay for it).

    The path is taken as the straight line from the mark to now, and a crossing counts
    where that line meets a core farther from its ends than the ball may have gone in
    the tick (the line, plus its speeds at both ends times dt, plus its radius): a fast
    ball may have gone round a wall's end. The statics looked at are those listed in
    the ball's cell now and at the mark."""
    ids, start, v0 = mark
    if world.count == 0 or len(world.statics) == 0 or len(ids) == 0:
        return
    # The balls of the mark still here, matched by id.
    order = np.argsort(ids, kind="stable")
    at = order[np.minimum(np.searchsorted(ids, world.ids, sorter=order), len(ids) - 1)]
    here = np.nonzero(ids[at] == world.ids)[0]
    if len(here) == 0:
        return
    at = at[here]
    p0, p1 = start[at], world.pos[here]
    d = p1 - p0
    moved = np.nonzero((d[:, 0] != 0.0) | (d[:, 1] != 0.0))[0]
    if len(moved) == 0:
        return
    here, p0, p1, v0 = here[moved], p0[moved], p1[moved], v0[at[moved]]
    ball, s = world.statics.candidates(np.concatenate((p1, p0)))
    ball = ball % len(here)
    if len(ball) == 0:
        return
    st = world.statics
    a, b, q0, q1 = st.a[s], st.b[s], p0[ball], p1[ball]
    then = getattr(world, "_crossing_walls", None)
    if then is not None and len(then[0]) == len(st) and st.moving[s].any():
        q0 = _carried_since(q0, then[0][s], then[1][s], a, b, st.moving[s])
    came_from = geometry.side(a, b, q0)
    now = geometry.side(a, b, q1)
    side_a = geometry.side(q0, q1, a)
    side_b = geometry.side(q0, q1, b)
    edge = st.polygon[s] >= 0
    crossed = (side_a * side_b <= 0) & np.where(edge, (came_from < 0) & (now > 0), came_from * now < 0)
    if not crossed.any():
        return
    k = np.nonzero(crossed)[0]
    ball, a, b, q0, q1 = ball[k], a[k], b[k], q0[k], q1[k]
    with np.errstate(invalid="ignore", divide="ignore"):   # 0 / 0: along the core, not across
        t = side_a[k] / (side_a[k] - side_b[k])          # where on a -> b the line meets it
    length = np.sqrt(((b - a) ** 2).sum(axis=1))
    e = here[ball]
    reach = (np.sqrt(((q1 - q0) ** 2).sum(axis=1)) + world.radius[e]
             + dt * (np.sqrt((v0[ball] ** 2).sum(axis=1)) + np.sqrt((world.vel[e] ** 2).sum(axis=1))))
    inner = (np.minimum(t, 1.0 - t) * length > reach)
    world.crossed += len(np.unique(e[inner]))


def to_level(world):
    """The world as a level document: the level's statics, balls and springs as they are now.

    Every per-ball field is kept to the bit (position, velocity, angle, spin, radius, the
    mass that gives back inv_mass and inv_inertia exactly, restitution, friction,
    rolling), and the statics as the level gave them; and in ``_resume`` what the solver
    remembers (game.physics.resume: warm start, sleep, ids, the spawners' clocks): a snapshot
    loaded and stepped steps as this world does, to the bit."""
    level = copy.deepcopy(world.level)
    level["integrator"] = world.integrator
    mass = exact_masses(world.inv_mass, world.inv_inertia, world.radius)
    balls = []
    for k in range(world.count):
        balls.append({"pos": [float(v) for v in world.pos[k]], "vel": [float(v) for v in world.vel[k]],
                      "angle": float(world.angle[k]), "spin": float(world.spin[k]),
                      "radius": float(world.radius[k]), "mass": float(mass[k]),
                      "restitution": float(world.restitution[k]), "friction": float(world.friction[k]),
                      "rolling": float(world.rolling[k])})
    level["balls"] = balls
    s = world.springs
    level["springs"] = [{"a": int(s.a[k]),
                         "b": int(s.b[k]) if s.b[k] >= 0 else [float(v) for v in s.anchor[k]],
                         "stiffness": float(s.stiffness[k]), "damping": float(s.damping[k]),
                         "rest": float(s.rest[k])} for k in range(len(s))] + bodies.joint_definitions(world, springs=True)
    level["joints"] = world.joints.definitions() + bodies.joint_definitions(world)
    if len(world.bodies) or "bodies" in level:
        level["bodies"] = world.bodies.to_definitions()
    # Spawners have done their work in the snapshot: the balls they made are in "balls".
    level["spawners"] = [dict(sp.definition, max=max(0, sp.max - sp.made)) for sp in world.spawners
                         if sp.max - sp.made > 0]
    # Moving walls: the file keeps their rest positions and motions; the level's time (their
    # phase) and the flippers' angles go in comment keys, which World.from_level reads back.
    if world.motions.any:
        level["_time"] = float(world.time)
        level["_flippers"] = [float(v) for v in world.motions.phi]
    # The solver's memory (warm start, sleep, ids, spawners' clocks): the snapshot goes on to the bit.
    level["_resume"] = resume.state(world)
    return level


def view(world):
    """A copy of the world to draw while the world itself steps on (game.app.loop's two-core
    loop): its attributes shared, its numpy arrays, its sleep state and its springs copied
    (a step replaces some and writes others in place, and balls may come and go), so it
    shows the world as it was when taken. For reading only."""
    view = copy.copy(world)
    for name, value in vars(world).items():
        if isinstance(value, np.ndarray):
            setattr(view, name, value.copy())
    view._sleep = world._sleep.copy()
    # The springs as they are: a step with sleeping balls swaps the forces' springs for
    # the awake ones' (_only), and removing balls remaps them (new arrays each time).
    view.forces = copy.copy(world.forces)
    view.forces.springs = copy.copy(world.forces.springs)
    view.joints = copy.copy(world.joints)    # a step replaces its arrays when joints go
    view.bodies = copy.copy(world.bodies)    # a step replaces the bodies' arrays
    if world.motions.any:                    # moving walls: a step writes their ends in place
        view.statics = copy.copy(world.statics)
        for name in ("a", "b", "normal", "ax", "ay", "bx", "by", "nx", "ny"):
            setattr(view.statics, name, getattr(world.statics, name).copy())
        view.polygons = [p.copy() for p in world.polygons]
        view.statics.polygons = view.polygons
    return view


def copy_world(world):
    """An independent world in the same state: every array, the sleep state, the springs
    and grabs (the same handles hold the same balls), the spawners' clocks and random
    streams, the solver's warm start and its candidate pairs, deep-copied; the same
    execution. Stepped alike, the two stay equal to the bit (the integrator lab, game.app.lab,
    steps a copy under another integrator). The compiled kernels are code, not state:
    shared, never copied."""
    shared = {id(world._compiled): world._compiled, id(world.solver.kernels): world.solver.kernels}
    if world.journal is not None:
        shared[id(world.journal)] = None       # the player's changes to this world, not to its copy
    return copy.deepcopy(world, memo=shared)


def ball_at(world, point):
    """Index of the ball containing ``point`` (the nearest centre wins), -1 if none."""
    if world.count == 0:
        return -1
    d = world.pos - np.asarray(point, float)
    dist2 = np.einsum("ij,ij->i", d, d)
    k = int(np.argmin(dist2 - world.radius ** 2))
    return k if dist2[k] <= world.radius[k] ** 2 else -1
