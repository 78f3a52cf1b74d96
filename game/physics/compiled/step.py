"""One compiled call a tick: World.step's sub-steps for the common world (the compiled execution).

Where the level has no polygons, ``tick`` runs every sub-step of ``World._substep`` inside numba: integrate,
sweep, find the candidate pairs again when some ball has outrun its margin, prepare the
contacts, solve them, sweep again, record the impacts. It calls the kernels of
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

import numpy as np
from numba import njit

from game.physics.compiled import forces as FK
from game.physics.compiled import stamps
from game.physics.compiled import collide as CK
from game.physics.compiled import contacts as PK
from game.physics.compiled import integrators as IK
from game.physics.compiled import solver as SK

STEPPERS = tuple(IK.UNIFORM_STEPPERS)     # tick's ``stepper`` argument: an index into these
# _force_kernels.step's kind for each of STEPPERS (the same integrator under every force)
FORCE_KINDS = tuple({"euler": FK.EULER, "semi-implicit": FK.SEMI_IMPLICIT, "verlet": FK.VERLET,
                     "rk4": FK.RK4}[name] for name in STEPPERS)


@njit(cache=True)
def _integrate(forces, field, pos, vel, inv_mass, h):
    """World._integrate's (pos, vel) step: ``forces`` (uniform, stepper, kind, gx, gy, drag);
    where uniform, compiled.integrators.UNIFORM_STEPPERS[STEPPERS[stepper]], else _force_kernels.step of
    ``kind`` (FORCE_KINDS[stepper]) under the rest of Forces.packed(), ``field`` (the springs'
    and the attractors' arrays)."""
    uniform, stepper, kind, gx, gy, drag = forces
    if uniform:
        _uniform_step(stepper, pos, vel, gx, gy, drag, h)
        return
    (sa, sb, anchor, stiffness, damping, rest, shape, center, strength, numbers, edges, edge_start) = field
    FK.step(kind, pos, vel, inv_mass, h, gx, gy, drag, sa, sb, anchor, stiffness, damping, rest, shape, center,
            strength, numbers, edges, edge_start)


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
def _candidates(pos, vel, prev, radius, dt, found_at, margin, found, statics, grid, consts):
    """World._find_candidates and collide.find_candidates, compiled: the candidate pairs
    (i, j, bi, s), kept while every ball is nearer than its margin to where they were found,
    else found afresh. Returns (found, found_at, margin, fresh)."""
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
        return found, found_at, margin, False
    contact_margin, max_margin_cells = consts
    cell, ox, oy, ncx, ncy, lo_x, lo_y, hi_x, hi_y = grid
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
    (st_ax, st_ay, st_bx, st_by, st_radius, st_nx, st_ny, st_polygon, st_box, st_rest, st_fric, st_roll,
     start, index, s_cell, s_ox, s_oy, s_ncx, s_ncy) = statics
    if len(index):
        bi, s, _, _, _ = CK.static_contacts(px, py, _column(prev, 0), _column(prev, 1), radius, margin, s_cell,
                                           s_ox, s_oy, s_ncx, s_ncy, start, index, st_ax, st_ay, st_bx, st_by,
                                           st_radius, st_nx, st_ny, st_polygon)
    else:
        bi = np.zeros(0, np.int64)
        s = np.zeros(0, np.int64)
    # Ball pairs, on a coarser grid where a margin needs it (collide.Grid.coarser).
    if np.isfinite(widest) and widest > cell:
        cell = widest
        ox = lo_x - 2.0 * cell
        oy = lo_y - 2.0 * cell
        ncx = int(np.ceil((hi_x - ox) / cell)) + 3
        ncy = int(np.ceil((hi_y - oy) / cell)) + 3
    i, j = CK.ball_contacts(px, py, radius, margin, cell, ox, oy, ncx, ncy)
    return (i, j, bi, s), pos.copy(), margin, True


@njit(cache=True)
def _substep(pos, vel, angle, spin, radius, inv_mass, ext, ids, h, dt, h_move, forces, field, statics, grid, consts,
             solve_consts, found, found_at, margin, warm, options):
    """One World._substep: returns (pos, vel, angle, spin, fields, found, found_at, margin,
    warm, prev, fast, hits, impact points, impact speeds, refound)."""
    (st_ax, st_ay, st_bx, st_by, st_radius, st_nx, st_ny, st_polygon, st_box, st_rest, st_fric, st_roll,
     start, index, s_cell, s_ox, s_oy, s_ncx, s_ncy) = statics
    w, inv_i, e_radius, e_rest, e_fric, e_roll, restitution, friction = ext
    warm_start, iterations, relax_iterations, threshold = options
    (ccd_fraction, touch_slop, static_key, impact_speed, tau_max, max_passes, rate, mass_scale, impulse_scale,
     s_rate, s_mass_scale, s_impulse_scale, max_push, support_cos) = solve_consts
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
    _integrate(forces, field, pos, vel, inv_mass, h)
    inv_h = 1.0 / h
    for k in range(n):
        acc_x[k] = (vel[k, 0] - acc_x[k]) * inv_h
        acc_y[k] = (vel[k, 1] - acc_y[k]) * inv_h
    acc_x[n] = 0.0
    acc_y[n] = 0.0
    # 2. Sweep fast balls against the statics.
    fast, hits = CK.sweep(prev, pos, vel, radius, restitution, friction, ccd_fraction, threshold, st_ax, st_ay,
                         st_bx, st_by, st_radius, st_nx, st_ny, st_rest, st_fric, st_box, st_polygon)
    # 3. Collide: the candidates, then this sub-step's contacts (Solver.prepare).
    found, found_at, margin, refound = _candidates(pos, vel, prev, radius, dt, found_at, margin, found, statics,
                                                   grid, consts)
    i, j, bi, s = found
    # The (N + 1,) columns of pos and vel, made once: static_geometry reads the first N of
    # the positions, prepare_contacts reads them all and the solve then reads and writes the
    # same arrays (prepare_contacts only reads them and returns none of them).
    e_px = _extended_column(pos, 0)
    e_py = _extended_column(pos, 1)
    e_vx = _extended_column(vel, 0)
    e_vy = _extended_column(vel, 1)
    if len(bi):
        snx, sny, sdepth = CK.static_geometry(e_px[:n], e_py[:n], _column(prev, 0), _column(prev, 1), radius, bi, s,
                                             st_ax, st_ay, st_bx, st_by, st_nx, st_ny, st_radius, st_polygon)
        touch = np.nonzero(sdepth > -touch_slop)[0]
        bi = bi[touch]
        s = s[touch]
        sdepth = sdepth[touch]
        snx = snx[touch]
        sny = sny[touch]
    else:
        snx = np.zeros(0)
        sny = np.zeros(0)
        sdepth = np.zeros(0)
    if warm_start:
        old_key, old_n, old_t, old_r = warm
    else:
        old_key = np.zeros(0, np.int64)
        old_n = np.zeros(0)
        old_t = np.zeros(0)
        old_r = np.zeros(0)
    fields = PK.prepare_contacts(n, i, j, bi, s, snx, sny, sdepth, e_px, e_py, e_vx, e_vy, acc_x, acc_y, w, inv_i,
                                e_radius, ids, e_rest, e_fric, e_roll, st_rest, st_fric, st_roll, h_move, touch_slop,
                                static_key, old_key, old_n, old_t, old_r, support_cos)
    (a, b, static, key, order, colour_start, nx, ny, depth, base, separation, ax, ay, ra, rb,
     mass_n, mass_t, mass_r, c_rest, c_fric, c_roll, pn, pt, pr, approach, scale_a, scale_b) = fields
    # 4. Respond (Solver.solve).
    # The positions the solve starts from (the second sweep's): pos itself where the solve
    # writes the ball state back to a new array, a copy where there is no solve.
    m = len(a)
    if m:
        solved_from = pos
        pos = np.empty((n, 2))
        e_spin = _extended(spin)
        e_angle = _extended(angle)
        SK.solve(colour_start, a, b, nx, ny, base, separation, ax, ay, ra, rb, mass_n, mass_t, mass_r,
                c_rest, c_fric, c_roll, static, pn, pt, pr, e_px, e_py, e_vx, e_vy, e_spin, e_angle, w, inv_i,
                tau_max, h_move, threshold, touch_slop, max_passes, warm_start, iterations, relax_iterations,
                rate, mass_scale, impulse_scale, s_rate, s_mass_scale, s_impulse_scale, max_push, scale_a, scale_b)
        for k in range(n):
            pos[k, 0] = e_px[k]
            pos[k, 1] = e_py[k]
            vel[k, 0] = e_vx[k]
            vel[k, 1] = e_vy[k]
            spin[k] = e_spin[k]
            angle[k] = e_angle[k]
    else:
        solved_from = pos.copy()
    # The warm start of the next sub-step, in canonical order (sorted keys).
    w_key = np.empty(m, np.int64)
    w_n = np.empty(m)
    w_t = np.empty(m)
    w_r = np.empty(m)
    for e in range(m):
        w_key[order[e]] = key[e]
        w_n[order[e]] = pn[e]
        w_t[order[e]] = pt[e]
        w_r[order[e]] = pr[e]
    CK.sweep(solved_from, pos, vel, radius, restitution, friction, ccd_fraction, threshold, st_ax, st_ay, st_bx,
            st_by, st_radius, st_nx, st_ny, st_rest, st_fric, st_box, st_polygon)
    # 5. Events: impacts (Contacts.points on the loud contacts).
    loud = 0
    for e in range(m):
        if approach[e] > impact_speed:
            loud += 1
    points = np.empty((loud, 2))
    speeds = np.empty(loud)
    q = 0
    for e in range(m):
        if approach[e] > impact_speed:
            lever = radius[a[e]] - depth[e]
            points[q, 0] = pos[a[e], 0] - nx[e] * lever
            points[q, 1] = pos[a[e], 1] - ny[e] * lever
            speeds[q] = approach[e]
            q += 1
    return (pos, vel, angle, spin, fields, found, found_at, margin, (w_key, w_n, w_t, w_r), prev, fast, hits,
            points, speeds, refound)


@njit(cache=True, nogil=True)   # lets go of the interpreter's lock: game.app.loop draws meanwhile
def tick(substeps, pos, vel, angle, spin, radius, inv_mass, inv_inertia, restitution, friction, rolling, ids,
         h, dt, h_move, forces, field, statics, grid, consts, solve_consts, found, found_at, margin, warm, options,
         rest_limits):
    """``substeps`` sub-steps of h seconds (World._substep each), on copies of the ball arrays.

    Returns (pos, vel, angle, spin, the last sub-step's Contacts fields, candidates (i, j, bi,
    s), where they were found (N, 2), their margins (N,), warm start (key, pn, pt, pr), the last
    sub-step's start positions (N, 2), fast balls and their hits, impact points (K, 2) and
    speeds (K,) of the whole tick, how many times the candidates were found afresh, and the
    balls resting after it (N,) bool: sleep.resting's test, ``rest_limits`` its (speed
    squared, way squared))."""
    before = pos
    pos = pos.copy()
    vel = vel.copy()
    angle = angle.copy()
    spin = spin.copy()
    st_rest, st_fric, st_roll = statics[9], statics[10], statics[11]
    ext = (_extended(inv_mass), _extended(inv_inertia), _extended(radius), _extended(restitution),
           _extended(friction), _extended(rolling), restitution, friction)
    all_points = np.empty((0, 2))
    all_speeds = np.empty(0)
    refinds = 0
    # The last sub-step runs after the loop: numba types what a loop leaves behind only if it
    # is bound before it, and these tuples are made by the sub-step itself.
    for k in range(substeps - 1):
        (pos, vel, angle, spin, fields, found, found_at, margin, warm, prev, fast, hits, points, speeds,
         refound) = _substep(pos, vel, angle, spin, radius, inv_mass, ext, ids, h, dt, h_move, forces, field, statics,
                             grid, consts, solve_consts, found, found_at, margin, warm, options)
        all_points = _append_rows(all_points, points)
        all_speeds = np.concatenate((all_speeds, speeds))
        refinds += refound
    (pos, vel, angle, spin, fields, found, found_at, margin, warm, prev, fast, hits, points, speeds,
     refound) = _substep(pos, vel, angle, spin, radius, inv_mass, ext, ids, h, dt, h_move, forces, field, statics,
                         grid, consts, solve_consts, found, found_at, margin, warm, options)
    all_points = _append_rows(all_points, points)
    all_speeds = np.concatenate((all_speeds, speeds))
    refinds += refound
    return (pos, vel, angle, spin, fields, found, found_at, margin, warm, prev, fast, hits, all_points,
            all_speeds, refinds, _resting(before, pos, vel, spin, radius, rest_limits))


@njit(cache=True)
def _resting(before, pos, vel, spin, radius, rest_limits):
    """sleep.resting, ball by ball: the same sums and tests (vx vx + vy vy, (spin r)^2, the
    move's dx dx + dy dy), so the same booleans."""
    speed2, way2 = rest_limits
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


KERNEL_MODULES = (CK, PK, SK, IK, FK)     # what tick links into itself: its cache depends on their files
# numba checks a cached function against its own source file only, but ``tick`` links the
# kernels of KERNEL_MODULES into itself: every cached function here carries their stamps too.
stamps.depend_on(stamps.dispatchers(globals()), KERNEL_MODULES)


def warm_up():
    """Compile (or load from the cache) ``tick`` by stepping a small world through it."""
    from game import defaults
    from game.physics.world import World
    # A normalised definition written out (the kernels may not import game.level to fill one).
    surface = {k: defaults.MATERIAL[k] for k in ("restitution", "friction", "rolling")}
    balls = [{"pos": p, "vel": v, "spin": 0.0, "radius": defaults.BALL_RADIUS, "density": 1.0, **surface}
             for p, v in (([1.0, 0.31], [0, 0]), ([1.55, 0.31], [0, 0]), ([1.3, 0.9], [0, -3]))]
    level = {"name": "", "description": "", "gravity": list(defaults.GRAVITY), "integrator": "rk4",
             "substeps": defaults.SUBSTEPS, "drag": 0.0, "bounds": [0, 0, 4, 4], "material": dict(defaults.MATERIAL),
             "segments": [{"a": [0, 0], "b": [4, 0], "radius": 0.0, **surface}], "polylines": [], "polygons": [],
             "balls": balls, "springs": [], "zones": [], "spawners": []}
    world = World.from_level(level)
    world._tick_compiled(1 / 60, sys.modules[__name__])
