"""The step's packing: one tick of a World, sub-step by sub-step (numpy, or the compiled
kernels one by one) or in one compiled call (game.physics.compiled.step, the same bits).

World.step reads as the table of contents; these are its chapters: ``tick`` runs the
sub-steps, ``substep`` integrates, sweeps, collides, solves and records; ``tick_compiled``
hands the whole tick to the compiled twin with the bundles of game.physics.bundles.
"""

import typing

import numpy as np

from game.physics import bodies, bundles, collide, motion
from game.physics.bundles import StepConstants
from game.physics.contacts import Contacts, contact_params
from game.physics.integrators import CONTACT_WEIGHT, INTEGRATORS
from game.physics.solver import solve_params
from game.physics.sleep import rest_limits
from game.physics import debug, sleep, zones
from game.physics.joints import substep_kernel as joints_numpy
from game.physics.joint_strain import pulled_by_hand

BREAK_LOG = 64               # breaks World.break_log keeps (the newest)


def tick(world, dt, kernels):
    """The sub-steps of one tick: one compiled call, or sub-step by sub-step."""
    substeps = world.substeps
    h = dt / substeps
    walls = world.motions.any
    if walls:
        world.motions.begin_tick(world.time, dt)      # the flippers' turns for this tick
    world.joints.hand_strained = pulled_by_hand(world)    # a chain the player drags taut: solved soft
    world.joints.prepare(CONTACT_WEIGHT[world._integrator] * h)
    fused = world._fused(kernels)       # (a method of the world: tests run it sub-step by sub-step)
    if fused and by_substeps(world):
        # Bodies, lava: each sub-step's balls in one compiled call, then the bodies' own sub-step
        # (they take the balls that touch them into their solve) and the lava's touches, as
        # ``substep`` orders them.
        threshold = world.solver.options.restitution_threshold
        lava = zones.has_lava(world)
        constants = tick_constants(world, dt, world._compiled.tick, one_substep=True)
        statics = constants.statics
        for k in range(substeps):
            if len(statics.poses):      # walls that move, run or kick: sub-step k's poses, its own work
                if walls:
                    place_walls(world, statics.poses, k)
                constants = constants._replace(statics=statics._replace(
                    poses=statics.poses[k:k + 1], work=np.zeros(3), kicks=np.zeros(1, np.int64)))
            r = tick_compiled(world, dt, world._compiled.tick, constants, last=k == substeps - 1)
            if len(world.bodies):
                bodies_substep(world, world.time + k * h, h, CONTACT_WEIGHT[world._integrator] * h, k == 0,
                               k == substeps - 1, k, kernels, threshold)
            if lava:
                zones.touch_lava(world, Contacts(world.count, r.contacts), r.fast, r.hits)
    elif fused:
        tick_compiled(world, dt, world._compiled.tick)
    else:
        poses = world.motions.tick_poses(world, world.time, dt, substeps) if walls else None
        for k in range(substeps):
            if walls:                   # moving walls: at their poses at the sub-step's end
                place_walls(world, poses, k)
            substep(world, world.time + k * h, h, dt, last=k == substeps - 1, first=k == 0)
    if walls:
        world.motions.end_tick(dt)
    world.motor_work += float(world.joints.work.sum())     # J: what the motors did this tick
    break_joints(world, dt)
    if len(world.bodies):
        bodies.break_joints(world, dt)


def place_walls(world, poses, k):
    """The moving statics (and polygons) at sub-step k's poses (motion.Motions.tick_poses)."""
    world.statics.set_pose(poses, k)
    world.motions.pose_polygons(world, k)
    world.statics_version += 1


def break_joints(world, dt):
    """Remove the joints whose force this tick exceeded their break force; their places
    go to ``joint_breaks`` (the game shows and counts them)."""
    world.joint_breaks = np.zeros((0, 2))
    if not len(world.joints):
        return
    broken = world.joints.broken()
    if broken.any():
        end_a, end_b = world.joints.ends(world.pos, world.angle)
        world.joint_breaks = (0.5 * (end_a + end_b))[broken]
        world.break_log = (world.break_log + [(world.time + dt, float(x), float(y))
                                            for x, y in world.joint_breaks.tolist()])[-BREAK_LOG:]
        world.joints_broken += int(broken.sum())
        world.joints.keep(~broken)


def substep(world, t, h, dt, last=True, first=False):
    if world.count == 0:
        debug.clear(world)
        bodies.substep(world, t, h, CONTACT_WEIGHT[world._integrator] * h, first, last, round((t - world.time) / h))
        return
    kernels = world._kernels
    threshold = world.solver.options.restitution_threshold
    prev, prev_vel = world.pos.copy(), world.vel.copy()
    # 1. Integrate gravity, drag, springs and attractors with the chosen integrator.
    integrate(world, t, h, kernels)
    acceleration = (world.vel - prev_vel) * (1.0 / h)    # m/s^2, what the forces did
    # 2. Sweep fast balls against the statics: stop them at the first touch.
    walls = world.statics.walls
    fast, hits = sweep(world, prev, kernels, threshold)
    # 3. Collide: candidate pairs once a tick, their normals and depths afresh now; or, where
    # the contacts are kept a tick (SolverOptions.keep_contacts, no wall moves), the first
    # sub-step's with their depths along their normals (Solver.refresh).
    h_move = CONTACT_WEIGHT[world._integrator] * h
    keep = keeps_contacts(world)
    if keep and not first and world._kept is not None:
        contacts = world._kept
        world.solver.refresh(world, contacts, prev, h_move, acceleration)
    else:
        candidates = find_candidates(world, prev, dt, kernels, first)
        if len(world.joints):
            candidates = world.joints.unjoined(candidates, world.count)     # jointed balls do not collide
        contacts = world.solver.prepare(world, candidates, prev, h_move, acceleration, dt if keep else None)
        world._kept = contacts if keep else None
    # 4. Respond: impacts, then the soft step, colour by colour.
    solved_from = world.pos.copy()
    world.solver.solve(world, contacts, h, h_move)
    if walls:
        account_walls(world, motion.work_and_kicks(contacts.rows))
    # 4b. Joints: warm start, soft passes, relax (game.physics.joints), after the contacts.
    compiled = world._compiled
    world.joints.substep(world, h, h_move, compiled.joints.substep_kernel if compiled is not None and compiled.joints is not None
                        else joints_numpy, world.solver.options.warm_start)
    # An impact can send a light ball further than its contacts looked (a fast heavy
    # ball hit it), so the solver's moves are swept against the statics too.
    sweep(world, solved_from, kernels, threshold)
    # No centre stays across a static's core it touches (a wedge, a pile on a thin floor).
    world.solver.keep_sides(world, contacts, prev)
    # 4c. Bodies (planks, boxes, polygons): their own step, the balls that touch them taking part
    # (and what it moved those balls by is swept against the statics, as the solve's moves are).
    if len(world.bodies):
        bodies_substep(world, t, h, h_move, first, last, round((t - world.time) / h), kernels, threshold)
    # 5. Events: impacts for sound and debug drawing; the balls that touched lava.
    debug.record(world, contacts, prev, fast, hits, last)
    if zones.has_lava(world):
        zones.touch_lava(world, contacts, fast, hits)


def bodies_substep(world, t, h, h_move, first, last, k, kernels, threshold):
    """Sub-step k of the bodies (game.physics.bodies.substep: ``first``, ``last`` of the tick),
    and what it moved the balls by swept against the statics, as the solve's moves are."""
    before = world.pos.copy()
    bodies.substep(world, t, h, h_move, first, last, k)
    sweep(world, before, kernels, threshold)


def keeps_contacts(world):
    """Whether this tick keeps its first sub-step's contacts through the others (Box2D v3's
    shape, SolverOptions.keep_contacts): asked for, and no wall moves, runs or kicks (their
    contacts take the wall's velocity afresh each sub-step)."""
    return world.solver.options.keep_contacts and not world.statics.walls


def sweep(world, start, kernels, threshold):
    """Sweep the balls from ``start`` to where they are against the statics (collide.sweep:
    stop at the first touch, respond there); where walls move, belts run or bumpers kick,
    the work and kicks of those hits go to the world's totals. Returns (fast, hits)."""
    walls = world.statics.walls
    swept_vel = world.vel.copy() if walls else None
    fast, hits = collide.sweep(start, world.pos, world.vel, world.radius, world.restitution,
                               world.friction, world.statics, kernels, threshold)
    if walls:
        account_walls(world, motion.sweep_work(world.statics, world.pos, swept_vel, world.vel, world.inv_mass,
                                               world.radius, fast, hits))
    return fast, hits


def account_walls(world, work_kicks):
    """Add (work J, kicks) of moving walls, conveyors and bumpers to the world's totals."""
    world.wall_work += work_kicks[0]
    world.kicks += work_kicks[1]


def step_constants(dt, substeps, integrator, uniform, fused, keep_contacts=False):
    """The one-call tick's StepConstants for a tick of dt s in ``substeps`` sub-steps under
    ``integrator`` (``uniform``: gravity and drag alone, the uniform stepper; else the stepper
    under the whole field, as ``integrate`` chooses); ``fused``: the tick's module;
    ``keep_contacts``: keeps_contacts."""
    h = dt / substeps
    stepper = fused.STEPPERS.index(integrator)
    speed2, way2 = rest_limits(dt)
    return StepConstants(substeps=int(substeps), h=float(h), dt=float(dt), h_move=float(CONTACT_WEIGHT[integrator] * h),
                         uniform=bool(uniform), stepper=int(stepper), kind=int(fused.FORCE_KINDS[stepper]),
                         ccd_fraction=float(collide.CCD_FRACTION), impact_speed=float(collide.IMPACT_SPEED),
                         contact_margin=float(collide.CONTACT_MARGIN),
                         max_margin_cells=float(collide.MAX_MARGIN_CELLS), rest_speed2=float(speed2),
                         rest_way2=float(way2), keep_contacts=bool(keep_contacts))


class TickConstants(typing.NamedTuple):
    """What ``fused.tick`` takes that stays the same all a tick (``tick_constants``)."""
    step: StepConstants
    field: object               # the force field (Forces.packed)
    statics: object             # bundles.Statics (wall_steps)
    grid: object                # bundles.GridFrame
    contact_params: object
    solve_params: object
    joints: object              # TickJoints
    one_substep: bool           # for the balls' part of one sub-step of the tick at a call


def tick_constants(world, dt, fused, one_substep=False):
    """The TickConstants of a tick of ``world``; ``one_substep``: for the balls' part of one
    sub-step of the tick at a call (``tick`` runs the bodies' between two such calls; the rest
    of the world is left to ``sleep.settle`` as the sub-step path leaves it)."""
    keep = keeps_contacts(world)
    step = step_constants(dt, world.substeps, world._integrator, world.forces.uniform, fused, keep)
    if one_substep:
        step = step._replace(substeps=1)
    h, h_move = step.h, step.h_move
    return TickConstants(step, world.forces.packed(), wall_steps(world, dt, fused), bundles.grid_frame(world.grid),
                         contact_params(h_move, world.solver.options.speculative, dt) if keep else contact_params(h_move),
                         solve_params(world.solver.options, h, h_move), tick_joints(world, h, h_move, fused),
                         one_substep)


def tick_compiled(world, dt, fused, constants=None, last=True):
    """All the sub-steps of a tick in one call of ``fused.tick`` (game.physics.compiled.step):
    _substep's phases, the same kernels in the same order with the same arguments, so the
    same bits; what goes is the Python and numpy glue between the kernels. ``constants``: a
    TickConstants (made here where None); a sub-step's call that is not the tick's
    ``last`` leaves the debug drawing's contacts and sweeps to the last, as ``substep`` does.
    Returns the call's bundles.TickResult."""
    constants = tick_constants(world, dt, fused) if constants is None else constants
    step, field, statics, grid, cparams, sparams, joints, one_substep = constants
    balls = bundles.contiguous(bundles.world_balls(world))
    found = candidates_kept(world)
    if found is not None:
        found_at, margin = world._found_at, world._margin
    else:
        none = np.zeros(0, np.int64)
        found, found_at, margin = (none, none, none, none), np.zeros((0, 2)), np.zeros(0)
    r = fused.tick(balls, field, statics, grid, step, cparams, sparams, found, found_at, margin, world.solver._warm,
                   joints)
    if len(statics.poses):              # moving walls: the work and kicks, in the sub-steps' order
        for work in statics.work.tolist():
            world.wall_work += work
        world.kicks += int(statics.kicks[0])
    world.pos, world.vel, world.angle, world.spin = r.pos, r.vel, r.angle, r.spin
    world._tick_rest = None if one_substep else r.resting
    world._candidates, world._found_at, world._margin = (world.ids, world.grid, r.found), r.found_at, r.margin
    world.solver._warm = r.warm
    if len(r.speeds):
        world._impact_points.append(r.points)
        world._impact_speeds.append(r.speeds)
    if last:
        world._last_contacts = (Contacts(world.count, r.contacts), world.pos, world.radius)
        world.swept_from = r.prev[r.fast]
        world.swept_to = world.pos[r.fast]
        world.swept_hit = r.hits
    return r


def wall_steps(world, dt, fused):
    """The one-call tick's bundles.Statics: where walls move (or belts run, bumpers kick), with
    each sub-step's poses (motion.Motions.tick_poses, rows in fused.WK.POSE_FIELDS) in ``poses``
    (the statics left at the last, as the sub-step by sub-step path leaves them) and room for
    their work and kicks; else as bundles.statics gives it."""
    substeps = world.substeps
    st = world.statics
    if not st.walls:
        return bundles.statics(st)
    if world.motions.any:
        poses = world.motions.tick_poses(world, world.time, dt, substeps)
        place_walls(world, poses, substeps - 1)
    else:                               # belts and bumpers alone: nothing moves
        poses = np.empty((substeps, len(fused.WK.POSE_FIELDS), max(1, len(st))))
        for f, name in enumerate(fused.WK.POSE_FIELDS):
            poses[:, f, :len(st)] = getattr(st, name)
    return bundles.statics(st)._replace(poses=poses, work=np.zeros(3 * substeps), kicks=np.zeros(1, np.int64))


def tick_joints(world, h, h_move, fused):
    """The joints as the one-call tick takes them (``fused.TickJoints``): the Joints' own rows
    (their impulses and peak forces written in place) and this tick's JointParams."""
    joints = world.joints
    return fused.TickJoints(joints.kernel_rows(), joints.params(h, h_move, world.solver.options.warm_start))


def candidates_kept(world):
    """The candidate pairs found last, while the balls and the grid are the ones they were
    found for (the ids array is a new one whenever balls come or go), else None."""
    c = world._candidates
    return c[2] if c is not None and c[0] is world.ids and c[1] is world.grid else None


def find_candidates(world, prev, dt, kernels, first=False):
    """The pairs that could touch: found for every pair that could close within a tick
    (each ball's margin is the way it goes in a tick at its present speed, plus a slop),
    and kept from sub-step to sub-step and tick to tick until some ball has gone further
    than its margin from where they were found (a collision sped it up, it fell on) or
    the balls changed. Any complete list gives the same contacts: this only saves work.
    Moving walls: a moving capsule is a candidate where a ball's box meets its reach over the
    tick (collide.reaches), so kept candidates have their moving part found again at each
    tick's ``first`` sub-step (collide.with_moving_pairs)."""
    kept = candidates_kept(world)
    if kept is not None:
        moved = world.pos - world._found_at
        if np.all(moved[:, 0] * moved[:, 0] + moved[:, 1] * moved[:, 1] < world._margin * world._margin):
            if first and world.motions.any:
                i, j, si, s = kept
                kept = (i, j) + collide.with_moving_pairs(si, s, world._found_at, world.radius, world._margin,
                                                          world.statics)
                world._candidates = (world.ids, world.grid, kept)
            return kept
    speed = np.sqrt(world.vel[:, 0] * world.vel[:, 0] + world.vel[:, 1] * world.vel[:, 1])
    margin = np.minimum(speed * dt + collide.CONTACT_MARGIN * world.radius, collide.MAX_MARGIN_CELLS * world.grid.cell)
    found = collide.find_candidates(world.pos, prev, world.radius, world.grid, world.statics, margin, kernels)
    world._candidates, world._found_at, world._margin = (world.ids, world.grid, found), world.pos.copy(), margin
    return found


def integrate(world, t, h, kernels):
    """Advance (pos, vel) by h under the forces with the chosen integrator, and the angle
    by h * spin: no force makes a torque, so the spin is constant between contacts and
    every integrator advances the angle exactly. With the kernels, the compiled twin of
    the integrator does it (the same bits as the numpy stepper)."""
    world.angle = world.angle + h * world.spin
    if kernels is not None and world.forces.uniform and world._integrator in kernels.UNIFORM_STEPPERS:
        # The same stepper, compiled, for the common case a = gravity - drag v.
        g = world.forces.gravity
        kernels.UNIFORM_STEPPERS[world._integrator](world.pos, world.vel, float(g[0]), float(g[1]),
                                                   world.forces.drag, h)
        return
    if kernels is not None and world._integrator in kernels.FORCE_STEPPERS:
        # The same stepper, compiled, under springs (the grab's too) and attractors.
        kernels.FORCE_STEPPERS[world._integrator](world.pos, world.vel, world.inv_mass, h, world.forces.packed())
        return
    inv_mass = world.inv_mass
    acceleration = world.forces.acceleration

    def f(t, y):
        dy = np.empty_like(y)          # (x, v)' = (v, a): cheaper than np.stack
        dy[0] = y[1]
        dy[1] = acceleration(y[0], y[1], inv_mass, t)
        return dy

    y = np.empty((2,) + world.pos.shape)
    y[0], y[1] = world.pos, world.vel
    y = INTEGRATORS[world._integrator](f, t, y, h)
    world.pos = np.ascontiguousarray(y[0])
    world.vel = np.ascontiguousarray(y[1])


def fused(world, kernels):
    """Whether this tick runs as one compiled call (game.physics.compiled.step.tick): the kernels
    and the tick are loaded, the integrator has compiled steppers (every force: gravity,
    drag, springs, the grab, attractors), and there are balls. Joints are in it
    (compiled.step._solve_joints), polygons too (their insides: compiled.insides, which reads
    their corners from their edges as statics.build_statics lays them out: ``polygons_laid_out``).
    With bodies or lava (``by_substeps``), each sub-step's balls run as one call (``tick``), where
    the contacts are not kept a tick (the calls do not carry them from one to the next)."""
    return (kernels is not None and world._compiled is not None and world._compiled.tick is not None and world.count > 0 and world.grid is not None
            and world._integrator in kernels.UNIFORM_STEPPERS and world._integrator in kernels.FORCE_STEPPERS
            and world.statics.polygons_laid_out and world.substeps > 0
            and not (by_substeps(world) and keeps_contacts(world)))
            # (Moving walls, conveyors and bumpers: their poses computed before it, step.wall_steps.)


def by_substeps(world):
    """Whether a compiled tick of ``world`` calls once a sub-step (``tick``): the bodies take part
    in each sub-step, and lava looks at each sub-step's touches (zones.touch_lava)."""
    return bool(len(world.bodies)) or zones.has_lava(world)


def advance(world, dt):
    """World.step's tick of ``dt`` s: the sleeping islands left out, the tick, the sleep
    bookkeeping, the clock, the spawners, kill zones and far balls, the impacts for the game."""
    world._impact_points, world._impact_speeds = [], []
    world._tick_rest = None
    kernels = world._kernels
    # A world that blows up (Euler on a stiff spring) overflows to inf and NaN: that is
    # the lesson on screen, not a warning for the console.
    with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
        # Sleeping islands stay out of the tick; wake those something reaches first
        # (a moving wall's path, a conveyor, a body: sleep.wake_near_walls).
        sleep.wake_near_walls(world, dt)
        awake = sleep.wake_reached(world, dt, kernels)
        moving = awake is None or awake.any() or len(world.bodies) > 0
        before = world.pos.copy() if moving and world.solver.options.sleeping else None
        if awake is None:
            tick(world, dt, kernels)
        elif moving:
            with sleep.only(world, awake):
                tick(world, dt, kernels)
        else:
            debug.clear(world)          # every ball sleeps: nothing moves
        if before is not None:
            # The one-call tick of the whole world found which balls rest (sleep.resting).
            rest = world._tick_rest if awake is None else None
            world._sleep.settle(before, bundles.world_balls(world), world.springs, world.statics, dt,
                               world.forces.gravity, world.grid, kernels, rest, world.joints)
    world.time += dt
    world.ticks += 1
    zones.run_spawners(world, dt)
    zones.apply_kill_zones(world)
    zones.apply_lava(world)
    zones.remove_far_balls(world)
    world.impact_points = np.concatenate(world._impact_points) if world._impact_points else np.zeros((0, 2))
    world.impact_speeds = np.concatenate(world._impact_speeds) if world._impact_speeds else np.zeros(0)
