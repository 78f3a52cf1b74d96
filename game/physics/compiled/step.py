"""One compiled call a tick: World.step's sub-steps for the common world (the compiled execution).

``tick`` runs every sub-step of ``World._substep`` inside numba: integrate, sweep, find the
candidate pairs again when some ball has outrun its margin, prepare the contacts (the balls
inside polygons pushed out: ``compiled.insides``), solve them, sweep again, keep each ball on
its walls' sides, record the impacts. It calls the kernels of
``game.physics.compiled`` (collide, contacts, solver, integrators, forces) in the order and with the arguments the Python sub-step gives them, and
integrates with the uniform steppers (gravity and drag: ``compiled.integrators.UNIFORM_STEPPERS``) or,
under springs (the grab's among them) and attractors, with ``game.physics.compiled.forces.step``, as
``World._integrate`` chooses, and does the glue between them (copies, the (N + 1,) arrays with the statics' still stand-in,
the warm start kept in canonical order) with the same arithmetic: it changes no bit, and the
numpy execution stays the reference (tests/test_step_kernels.py). What it saves is the glue:
a third of a tick of 5,000 balls went to numpy copies, small arrays and kernel dispatch.

Imported only by ``game.physics.compiled.loader.load_tick``; the world finds it as ``game.physics.compiled.loader.TICK``.
"""

import sys
import typing

import numpy as np
from numba import njit

from game.physics import bundles
from game.physics.bundles import BallColumns, Balls, ContactRows, Impulses, TickResult, Touches
from game.physics.compiled import forces as FK
from game.physics.compiled import stamps
from game.physics.compiled import collide as CK
from game.physics.compiled import contacts as PK
from game.physics.compiled import insides as YK
from game.physics.compiled import integrators as IK
from game.physics.compiled import joints as JK
from game.physics.compiled import blocks as BK
from game.physics.compiled import solver as SK
from game.physics.compiled import walls as WK
from game.physics import insides as insides_reference
from game.physics import joint_solve, joint_sums
from game.physics import joints as joints_reference
from game.physics.joints import JointBalls

STEPPERS = tuple(IK.UNIFORM_STEPPERS)     # tick's ``stepper`` argument: an index into these
# compiled.forces.step's kind for each of STEPPERS (the same integrator under every force)
FORCE_KINDS = tuple({"euler": FK.EULER, "semi-implicit": FK.SEMI_IMPLICIT, "verlet": FK.VERLET,
                     "rk4": FK.RK4}[name] for name in STEPPERS)


@njit(cache=True)
def _integrate(step, field, pos, vel, inv_mass):
    """World._integrate's (pos, vel) step of h (``step``: bundles.StepConstants): where
    ``step.uniform``, compiled.integrators.UNIFORM_STEPPERS[STEPPERS[step.stepper]], else
    compiled.forces.step of ``step.kind`` (FORCE_KINDS[stepper]) under ``field`` (the
    bundles.ForceField of Forces.packed())."""
    if step.uniform:
        _uniform_step(step.stepper, pos, vel, field.gx, field.gy, field.drag, step.h)
        return
    FK.step(step.kind, pos, vel, inv_mass, step.h, field)


@njit(cache=True)
def _uniform_step(stepper, pos, vel, gx, gy, drag, h):
    """compiled.integrators.UNIFORM_STEPPERS[STEPPERS[stepper]](pos, vel, gx, gy, drag, h)."""
    if stepper == 0:
        IK.euler_uniform(pos, vel, gx, gy, drag, h)
    elif stepper == 1:
        IK.semi_implicit_uniform(pos, vel, gx, gy, drag, h)
    elif stepper == 2:
        IK.verlet_uniform(pos, vel, gx, gy, drag, h)
    else:
        IK.rk4_uniform(pos, vel, gx, gy, drag, h)


@njit(cache=True)
def _extended(array):
    """solver._extended: the array with one more entry, 0, for the statics' still stand-in."""
    n = len(array)
    out = np.empty(n + 1)
    for k in range(n):
        out[k] = array[k]
    out[n] = 0.0
    return out


@njit(cache=True)
def _column(pos, d):
    """pos[:, d] as a contiguous (N,) array."""
    n = pos.shape[0]
    out = np.empty(n)
    for k in range(n):
        out[k] = pos[k, d]
    return out


@njit(cache=True)
def _extended_column(pos, d):
    """_extended(_column(pos, d)) in one copy: pos[:, d] and a 0 for the statics' stand-in."""
    n = pos.shape[0]
    out = np.empty(n + 1)
    for k in range(n):
        out[k] = pos[k, d]
    out[n] = 0.0
    return out


@njit(cache=True)
def _candidates(pos, vel, prev, radius, found_at, margin, found, statics, grid, step):
    """World._find_candidates and collide.find_candidates, compiled: the candidate pairs
    (i, j, bi, s), kept while every ball is nearer than its margin to where they were found,
    else found afresh (``statics``: bundles.Statics; ``grid``: bundles.GridFrame; ``step``:
    bundles.StepConstants). Returns (found, found_at, margin, fresh)."""
    n = pos.shape[0]
    keep = len(found_at) == n
    if keep:
        for k in range(n):
            mx = pos[k, 0] - found_at[k, 0]
            my = pos[k, 1] - found_at[k, 1]
            if not (mx * mx + my * my < margin[k] * margin[k]):
                keep = False
                break
    if keep:
        if statics.poses.shape[0] > 0 and statics.at[0] == 0:   # a tick's first sub-step: the moving
            bi, s = CK.with_moving_pairs(found[2], found[3], found_at, radius, margin, statics)  # walls' pairs afresh
            return (found[0], found[1], bi, s), found_at, margin, False
        return found, found_at, margin, False
    dt, contact_margin, max_margin_cells = step.dt, step.contact_margin, step.max_margin_cells
    cell, ox, oy, ncx, ncy = grid.cell, grid.ox, grid.oy, grid.ncx, grid.ncy
    cap = max_margin_cells * cell
    margin = np.empty(n)
    widest = -np.inf
    for k in range(n):
        speed = np.sqrt(vel[k, 0] * vel[k, 0] + vel[k, 1] * vel[k, 1])
        m = speed * dt + contact_margin * radius[k]
        if m > cap:                     # np.minimum: NaN stays NaN
            m = cap
        margin[k] = m
        reach = radius[k] + m
        if reach != reach or widest != widest:
            widest = np.nan
        elif reach > widest:
            widest = reach
    widest = 2.0 * widest
    px = _column(pos, 0)
    py = _column(pos, 1)
    # Statics: the capsules listed in each ball's cell (in order of ball, then capsule).
    if len(statics.index):
        bi, s, _, _, _ = CK.static_contacts(px, py, _column(prev, 0), _column(prev, 1), radius, margin, statics)
    else:
        bi = np.zeros(0, np.int64)
        s = np.zeros(0, np.int64)
    # Ball pairs, on a coarser grid where a margin needs it (collide.Grid.coarser).
    if np.isfinite(widest) and widest > cell:
        cell = widest
        ox = grid.lo_x - 2.0 * cell
        oy = grid.lo_y - 2.0 * cell
        ncx = int(np.ceil((grid.hi_x - ox) / cell)) + 3
        ncy = int(np.ceil((grid.hi_y - oy) / cell)) + 3
    i, j = CK.ball_contacts(px, py, radius, margin, cell, ox, oy, ncx, ncy)
    return (i, j, bi, s), pos.copy(), margin, True


@njit(cache=True)
def _substep(balls, ext, field, statics, grid, step, contact_params, solve_params, found, found_at, margin, carried):
    """One World._substep of the bundles.Balls ``balls`` (``ext``: their (N + 1,) inverse
    masses and moments, radii and materials); ``carried``: (the contacts' warm start, the
    joints: ``tick``'s ``warm`` and ``joints``; where step.keep_contacts, the contacts kept
    from the sub-step before, their held masses and scales (contacts.held_rows) and whether to
    reuse them, a later sub-step of the tick); the rest: the bundles of ``tick``. Returns a
    bundles.TickResult of this sub-step (its ``refinds`` 1 where the candidates were found
    afresh, its ``resting`` empty) and the held masses and scales. Moving walls (statics.poses not empty, statics.at[0] this
    sub-step): their contacts' fields and work as game.physics.step.substep does."""
    walls = statics.poses.shape[0] > 0
    k_sub = statics.at[0]
    w, inv_i, e_radius, e_rest, e_fric, e_roll = ext
    warm, joints, kept, held, reuse = carried
    pos, vel, angle, spin, radius = balls.pos, balls.vel, balls.angle, balls.spin, balls.radius
    h, threshold = step.h, solve_params.threshold
    n = pos.shape[0]
    prev = pos.copy()
    # 1. Integrate: the angle by h spin, (pos, vel) by the stepper under the forces; the
    # velocities before it kept in the accelerations' arrays (no copy of vel).
    for k in range(n):
        angle[k] = angle[k] + h * spin[k]
    acc_x = np.empty(n + 1)
    acc_y = np.empty(n + 1)
    for k in range(n):
        acc_x[k] = vel[k, 0]
        acc_y[k] = vel[k, 1]
    _integrate(step, field, pos, vel, balls.inv_mass)
    inv_h = 1.0 / h
    for k in range(n):
        acc_x[k] = (vel[k, 0] - acc_x[k]) * inv_h
        acc_y[k] = (vel[k, 1] - acc_y[k]) * inv_h
    acc_x[n] = 0.0
    acc_y[n] = 0.0
    # 2. Sweep fast balls against the statics.
    swept_vel = vel.copy() if walls else vel                # moving walls: the sweep's work
    fast, hits = CK.sweep(prev, pos, vel, radius, balls.restitution, balls.friction, step.ccd_fraction, threshold,
                          statics)
    if walls:
        _walls_account(statics, 3 * k_sub, WK.sweep_work(statics, pos, swept_vel, vel, balls.inv_mass, radius, fast,
                                                       hits))
    # 3. Collide: the candidates, then this sub-step's contacts (Solver.prepare); where the
    # contacts are kept a tick (step.keep_contacts, no wall moves), the first sub-step's,
    # refreshed (contacts.refresh_numpy).
    keep = step.keep_contacts and not walls
    if keep and reuse:
        refound = False
    else:
        found, found_at, margin, refound = _candidates(pos, vel, prev, radius, found_at, margin, found, statics, grid,
                                                       step)
        i, j, bi, s = found
        i, j = _unjoined(i, j, joints.rows.a, joints.rows.b, n)     # jointed balls do not collide
    # The (N + 1,) columns of the balls, made once: static_geometry reads the first N of the
    # positions, prepare_contacts reads them all and the solve then reads and writes the same
    # arrays (prepare_contacts only reads them and returns none of them).
    columns = BallColumns(_extended_column(pos, 0), _extended_column(pos, 1), _extended_column(vel, 0),
                          _extended_column(vel, 1), _extended(spin), _extended(angle), w, inv_i, e_radius, e_rest,
                          e_fric, e_roll, acc_x, acc_y, balls.ids)
    if keep and reuse:
        c = kept
        _restatic(c, columns, prev, radius, statics, n)
        PK.refresh_contacts(c, held, columns, contact_params.h_move, contact_params.touch_slop)
    else:
        if len(bi):
            snx, sny, sdepth = CK.static_geometry(columns.px[:n], columns.py[:n], _column(prev, 0), _column(prev, 1),
                                                  radius, bi, s, statics)
            if len(statics.polygon_winding):    # balls inside polygons: out through the nearest edge
                YK.polygon_insides(columns.px[:n], columns.py[:n], radius, bi, s, statics, snx, sny, sdepth)
            touch = np.nonzero(_static_touch(sdepth, snx, sny, bi, vel, contact_params))[0]
            bi = bi[touch]
            s = s[touch]
            sdepth = sdepth[touch]
            snx = snx[touch]
            sny = sny[touch]
        else:
            snx = np.zeros(0)
            sny = np.zeros(0)
            sdepth = np.zeros(0)
        if not solve_params.warm_start:
            warm = Impulses(np.zeros(0, np.int64), np.zeros(0), np.zeros(0), np.zeros(0))
        c = PK.prepare_contacts(i, j, Touches(bi, s, snx, sny, sdepth), columns, statics, warm, contact_params)
        if walls:                                               # moving walls (contacts.wall_rows)
            WK.wall_rows(c, columns, statics, contact_params.h_move)
        if keep:
            held = PK.held_rows(c)          # (its statics just measured: no _restatic)
            PK.refresh_contacts(c, held, columns, contact_params.h_move, contact_params.touch_slop)
    # 4. Respond (Solver.solve).
    # The positions the solve starts from (the second sweep's): pos itself where the solve
    # writes the ball state back to a new array, a copy where there is no solve.
    m = len(c.a)
    if m:
        solved_from = pos
        pos = np.empty((n, 2))
        SK.solve(c, columns, solve_params)
        for k in range(n):
            pos[k, 0] = columns.px[k]
            pos[k, 1] = columns.py[k]
            vel[k, 0] = columns.vx[k]
            vel[k, 1] = columns.vy[k]
            spin[k] = columns.spin[k]
            angle[k] = columns.angle[k]
    else:
        solved_from = pos.copy()
    _solve_joints(joints, pos, vel, angle, spin, balls)
    # The warm start of the next sub-step, in canonical order (sorted keys).
    w_key = np.empty(m, np.int64)
    w_n = np.empty(m)
    w_t = np.empty(m)
    w_r = np.empty(m)
    for e in range(m):
        w_key[c.order[e]] = c.key[e]
        w_n[c.order[e]] = c.pn[e]
        w_t[c.order[e]] = c.pt[e]
        w_r[c.order[e]] = c.pr[e]
    if walls:                                               # moving walls: the contacts' work
        _walls_account(statics, 3 * k_sub + 1, WK.contact_work(c))
    swept_vel = vel.copy() if walls else vel
    again, again_hits = CK.sweep(solved_from, pos, vel, radius, balls.restitution, balls.friction, step.ccd_fraction,
                                 threshold, statics)
    if walls:
        _walls_account(statics, 3 * k_sub + 2, WK.sweep_work(statics, pos, swept_vel, vel, balls.inv_mass, radius,
                                                           again, again_hits))
    SK.keep_sides(c, statics, prev, pos, vel)      # Solver.keep_sides: no centre across a wall it touches
    # 5. Events: impacts (Contacts.points on the loud contacts).
    loud = 0
    for e in range(m):
        if c.approach[e] > step.impact_speed:
            loud += 1
    points = np.empty((loud, 2))
    speeds = np.empty(loud)
    q = 0
    for e in range(m):
        if c.approach[e] > step.impact_speed:
            lever = radius[c.a[e]] - c.depth[e]
            points[q, 0] = pos[c.a[e], 0] - c.nx[e] * lever
            points[q, 1] = pos[c.a[e], 1] - c.ny[e] * lever
            speeds[q] = c.approach[e]
            q += 1
    return TickResult(pos, vel, angle, spin, c, found, found_at, margin, Impulses(w_key, w_n, w_t, w_r), prev, fast,
                      hits, points, speeds, int(refound), np.zeros(0, np.bool_)), held


@njit(cache=True)
def _static_touch(sdepth, snx, sny, bi, vel, params):
    """(K,) bool: the ball-static pairs that are contacts (Solver.prepare's test): depth above
    -touch_slop, or where the contacts are kept a tick (params.speculative or lookahead) above
    -contacts.speculative_reach of the ball's closing speed -(v . n)."""
    out = np.empty(len(sdepth), np.bool_)
    if params.speculative > 0.0 or params.lookahead > 0.0:
        for k in range(len(sdepth)):
            closing = 0.0 - (vel[bi[k], 0] * snx[k] + vel[bi[k], 1] * sny[k])
            out[k] = sdepth[k] > 0.0 - (params.touch_slop + params.speculative + params.lookahead * max(closing, 0.0))
    else:
        for k in range(len(sdepth)):
            out[k] = sdepth[k] > -params.touch_slop
    return out


@njit(cache=True)
def _restatic(c, columns, prev, radius, statics, n):
    """Solver.refresh's first half: the kept ball-static contacts' normals and bases (base =
    depth + p_a . n) measured afresh at the columns' positions (static_geometry, then the
    polygons' insides, with the contacts in key order as Solver.refresh takes them: which of a
    ball's pairs with a polygon carries its push depends on that order)."""
    count = 0
    for e in range(len(c.a)):
        if c.static[e] >= 0:
            count += 1
    if count == 0:
        return
    rows = np.empty(count, np.int64)
    bi = np.empty(count, np.int64)
    s = np.empty(count, np.int64)
    q = 0
    for e in range(len(c.a)):
        if c.static[e] >= 0:
            rows[q] = e
            bi[q] = c.a[e]
            s[q] = c.static[e]
            q += 1
    polygons = len(statics.polygon_winding) > 0
    if polygons:                        # by key (ball, then capsule), as Solver.refresh sorts them
        by_key = np.argsort(c.key[rows], kind="mergesort")
        rows = rows[by_key]
        bi = bi[by_key]
        s = s[by_key]
    snx, sny, sdepth = CK.static_geometry(columns.px[:n], columns.py[:n], _column(prev, 0), _column(prev, 1), radius,
                                          bi, s, statics)
    if polygons:
        YK.polygon_insides(columns.px[:n], columns.py[:n], radius, bi, s, statics, snx, sny, sdepth)
    for q in range(count):
        e = rows[q]
        c.nx[e] = snx[q]
        c.ny[e] = sny[q]
        c.base[e] = sdepth[q] + ((columns.px[bi[q]] - 0.0) * snx[q] + (columns.py[bi[q]] - 0.0) * sny[q])


@njit(cache=True)
def _no_rows():
    """An empty ContactRows (the first sub-step's ``kept``: nothing to keep yet)."""
    z = np.zeros(0)
    none = np.zeros(0, np.int64)
    return ContactRows(none, none.copy(), none.copy(), none.copy(), none.copy(), np.zeros(1, np.int64), z, z.copy(),
                       z.copy(), z.copy(), z.copy(), z.copy(), z.copy(), z.copy(), z.copy(), z.copy(), z.copy(),
                       z.copy(), z.copy(), z.copy(), z.copy(), z.copy(), z.copy(), z.copy(), z.copy(), z.copy(),
                       z.copy(), z.copy(), z.copy(), z.copy(), z.copy(), z.copy(), z.copy())


@njit(cache=True)
def _walls_account(statics, at, work_kicks):
    """A sub-step's work (J) into statics.work[at], its kicks added to statics.kicks[0]."""
    statics.work[at] = work_kicks[0]
    statics.kicks[0] += work_kicks[1]


@njit(cache=True, nogil=True)   # lets go of the interpreter's lock: game.app.loop draws meanwhile
def tick(balls, field, statics, grid, step, contact_params, solve_params, found, found_at, margin, warm, joints):
    """``step.substeps`` sub-steps of ``step.h`` seconds (World._substep each), on copies of the
    world's balls (bundles.Balls), under the force field ``field`` (bundles.ForceField), the
    statics (bundles.Statics), in the ball grid ``grid`` (bundles.GridFrame), with the
    constants ``step`` (bundles.StepConstants), ``contact_params`` and ``solve_params``
    (bundles.ContactParams, SolveParams); the candidates ``found`` (i, j, bi, s) found at
    ``found_at`` (N, 2) with ``margin`` (N,) (empty: none yet); the warm start ``warm``
    (bundles.Impulses); moving walls: statics.poses holds each sub-step's pose, set before
    it (compiled.walls.set_pose), their work and kicks go to statics.work and kicks; the joints ``joints`` (TickJoints: their rows, written in place as
    the sub-step path writes them, and their JointParams).

    Returns a bundles.TickResult: the balls' new state, the last sub-step's contacts, the
    candidates, the warm start, the last sub-step's start positions, fast balls and their
    hits, the impacts of the whole tick, how many times the candidates were found afresh,
    and the balls resting after it (N,) bool: sleep.resting's test (``step``'s rest_speed2,
    rest_way2)."""
    before = balls.pos
    moving = Balls(balls.pos.copy(), balls.vel.copy(), balls.angle.copy(), balls.spin.copy(), balls.radius,
                   balls.inv_mass, balls.inv_inertia, balls.restitution, balls.friction, balls.rolling, balls.ids)
    ext = (_extended(balls.inv_mass), _extended(balls.inv_inertia), _extended(balls.radius),
           _extended(balls.restitution), _extended(balls.friction), _extended(balls.rolling))
    all_points = np.empty((0, 2))
    all_speeds = np.empty(0)
    refinds = 0
    # The contacts kept from sub-step to sub-step (step.keep_contacts, no wall moving); else none,
    # so that a sub-step's contacts are freed before the next one allocates its own (their
    # memory then comes back warm: holding them cost 4 % of a tick of 20,000 balls).
    none = _no_rows()
    keep = step.keep_contacts and statics.poses.shape[0] == 0
    kept = none
    held = np.zeros((0, 5))
    # The last sub-step runs after the loop: numba types what a loop leaves behind only if it
    # is bound before it, and these bundles are made by the sub-step itself.
    for k in range(step.substeps - 1):
        if statics.poses.shape[0] > 0:
            WK.set_pose(statics, statics.poses, k)
        r, held = _substep(moving, ext, field, statics, grid, step, contact_params, solve_params, found, found_at,
                           margin, (warm, joints, kept, held, k > 0))
        kept = r.contacts if keep else none
        moving = Balls(r.pos, r.vel, r.angle, r.spin, balls.radius, balls.inv_mass, balls.inv_inertia,
                       balls.restitution, balls.friction, balls.rolling, balls.ids)
        found, found_at, margin, warm = r.found, r.found_at, r.margin, r.warm
        all_points = _append_rows(all_points, r.points)
        all_speeds = np.concatenate((all_speeds, r.speeds))
        refinds += r.refinds
    if statics.poses.shape[0] > 0:
        WK.set_pose(statics, statics.poses, step.substeps - 1)
    r, held = _substep(moving, ext, field, statics, grid, step, contact_params, solve_params, found, found_at, margin,
                       (warm, joints, kept, held, step.substeps > 1))
    all_points = _append_rows(all_points, r.points)
    all_speeds = np.concatenate((all_speeds, r.speeds))
    refinds += r.refinds
    resting = _resting(before, r.pos, r.vel, r.spin, balls.radius, step.rest_speed2, step.rest_way2)
    return TickResult(r.pos, r.vel, r.angle, r.spin, r.contacts, r.found, r.found_at, r.margin, r.warm, r.prev,
                      r.fast, r.hits, all_points, all_speeds, refinds, resting)


# ---- joints (issue 24): the sub-step path's Joints.substep and Joints.unjoined, compiled
class TickJoints(typing.NamedTuple):
    """The joints as ``tick`` takes them: ``rows`` (game.physics.joints.JointRows, the Joints'
    own arrays: the impulses and peak forces are written in place) and ``params`` (JointParams)."""
    rows: object
    params: object


@njit(cache=True)
def _solve_joints(joints, pos, vel, angle, spin, balls):
    """Joints.substep: the joints' sub-step kernel on columns of (pos, vel) and on angle and
    spin in place, then the columns back into pos and vel (the same copies and arithmetic)."""
    if len(joints.rows.a) == 0:
        return
    n = pos.shape[0]
    px = _column(pos, 0)
    py = _column(pos, 1)
    vx = _column(vel, 0)
    vy = _column(vel, 1)
    JK.substep_kernel(JointBalls(px, py, vx, vy, angle, spin, balls.inv_mass, balls.inv_inertia, balls.radius),
                      joints.rows, joints.params)
    for k in range(n):
        pos[k, 0] = px[k]
        pos[k, 1] = py[k]
        vel[k, 0] = vx[k]
        vel[k, 1] = vy[k]


@njit(cache=True)
def _unjoined(i, j, ja, jb, n):
    """Joints.unjoined: the ball pairs (i, j) without those a joint joins (a, b both balls),
    order kept (i n + j against the joints' min n + max, as np.isin compares them)."""
    count = 0
    for k in range(len(ja)):
        if jb[k] >= 0:
            count += 1
    if count == 0 or len(i) == 0:
        return i, j
    keys = np.empty(count, np.int64)
    q = 0
    for k in range(len(ja)):
        if jb[k] >= 0:
            keys[q] = min(ja[k], jb[k]) * n + max(ja[k], jb[k])
            q += 1
    keys = np.sort(keys)
    keep = np.empty(len(i), np.bool_)
    kept = 0
    for e in range(len(i)):
        key = i[e] * n + j[e]
        at = np.searchsorted(keys, key)
        keep[e] = not (at < count and keys[at] == key)
        if keep[e]:
            kept += 1
    if kept == len(i):
        return i, j
    return i[keep], j[keep]


@njit(cache=True)
def _resting(before, pos, vel, spin, radius, speed2, way2):
    """sleep.resting, ball by ball: the same sums and tests (vx vx + vy vy, (spin r)^2, the
    move's dx dx + dy dy), so the same booleans (limits: speed2 (m/s)^2, way2 m^2)."""
    n = pos.shape[0]
    out = np.empty(n, np.bool_)
    for k in range(n):
        rim = spin[k] * radius[k]
        dx = pos[k, 0] - before[k, 0]
        dy = pos[k, 1] - before[k, 1]
        out[k] = ((vel[k, 0] * vel[k, 0] + vel[k, 1] * vel[k, 1]) < speed2 and rim * rim < speed2
                  and dx * dx + dy * dy < way2)
    return out


@njit(cache=True)
def _append_rows(rows, more):
    """np.concatenate((rows, more)) of (K, 2) arrays."""
    out = np.empty((rows.shape[0] + more.shape[0], 2))
    out[:rows.shape[0]] = rows
    out[rows.shape[0]:] = more
    return out


KERNEL_MODULES = (CK, PK, SK, BK, IK, FK, WK, JK, YK, joints_reference, joint_sums, joint_solve, insides_reference,
                  bundles)     # what tick links into itself: its cache depends on their files
# numba checks a cached function against its own source file only, but ``tick`` links the
# kernels of KERNEL_MODULES into itself: every cached function here carries their stamps too.
stamps.depend_on(stamps.dispatchers(globals()), KERNEL_MODULES)


def warm_up():
    """Compile (or load from the cache) ``tick`` by calling it on a small scene: three balls
    over a floor, packed by the same bundle builders game.physics.step.tick_compiled uses, so the tick
    is compiled for the argument types the game gives it (built here from the physics' lower
    parts, not from a World: the world hands the loader's work to no one and imports it)."""
    from game import defaults
    from game.physics import collide
    from game.physics.contacts import contact_params
    from game.physics.forces import Forces
    from game.physics.step import step_constants
    from game.physics.solver import SolverOptions, no_warm, solve_params
    n, dt = 3, 1 / 60
    m = defaults.MATERIAL
    r = np.full(n, defaults.BALL_RADIUS)
    mass = np.pi * r * r
    balls = Balls(pos=np.array([[1.0, 0.31], [1.55, 0.31], [1.3, 0.9]]), vel=np.array([[0.0, 0.0], [0.0, 0.0], [0.0, -3.0]]),
                  angle=np.zeros(n), spin=np.zeros(n), radius=r, inv_mass=1.0 / mass, inv_inertia=2.0 / (mass * r * r),
                  restitution=np.full(n, m["restitution"]), friction=np.full(n, m["friction"]),
                  rolling=np.full(n, m["rolling"]), ids=np.arange(n, dtype=np.int64))
    statics = collide.Statics([[0.0, 0.0]], [[4.0, 0.0]], [0.0], [m["restitution"]], [m["friction"]], [-1], [],
                              [m["rolling"]])
    grid = collide.Grid(2 * defaults.BALL_RADIUS + 0.5, np.array([0.0, 0.0]), np.array([4.0, 4.0]))
    statics.bin(grid)
    step = step_constants(dt, defaults.SUBSTEPS, "rk4", True, sys.modules[__name__])
    h, h_move = step.h, step.h_move
    none = np.zeros(0, np.int64)
    from game.physics.joints import Joints
    joints = Joints()
    joints.add([{"kind": "rod", "a": 0, "b": 2, "length": 0.7, "offset_a": [0.0, 0.0], "offset_b": [0.0, 0.0],
                 "motor": {"speed": 1.0, "torque": 1.0}}])
    joints.prepare(h_move)
    tick(bundles.contiguous(balls), Forces(defaults.GRAVITY, 0.0).packed(), bundles.statics(statics),
         bundles.grid_frame(grid), step, contact_params(h_move), solve_params(SolverOptions(), h, h_move),
         (none, none, none, none), np.zeros((0, 2)), np.zeros(0), no_warm(),
         TickJoints(joints.kernel_rows(), joints.params(h, h_move, True)))
