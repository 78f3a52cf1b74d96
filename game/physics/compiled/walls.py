"""Moving walls in the one-call tick: the compiled twins of the numpy passes the sub-step
by sub-step path runs in Python (game.physics.contacts.wall_rows, game.physics.motion's
work_and_kicks and sweep_work), with the same arithmetic in the same order, so the one-call
tick serves levels with moving walls, conveyors and bumpers to the bit.

The walls' poses are not computed here: game.physics.step.tick_compiled computes every
sub-step's pose with game.physics.motion before the call (one implementation of the motion's
mathematics) and hands them in the Statics bundle's ``poses``; ``set_pose`` copies sub-step k's
into the Statics arrays."""
import numpy as np
from numba import njit

from game.physics import bundles
from game.physics.compiled import collide as CK
from game.physics.compiled import stamps
from game.physics.compiled.collide import TINY
from game.physics import motion

POSE_FIELDS = motion.POSE_FIELDS     # Statics.poses' rows, as motion.Motions.tick_poses writes them


@njit(cache=True)
def set_pose(statics, poses, k):
    """Sub-step k's poses (statics.poses[k], rows in POSE_FIELDS order) into ``statics``
    (bundles.Statics, the world's arrays), in place; statics.at[0] = k."""
    statics.at[0] = k
    rows = (statics.ax, statics.ay, statics.bx, statics.by, statics.nx, statics.ny, statics.mcos, statics.msin,
            statics.mcx, statics.mcy, statics.mdx, statics.mdy, statics.omega)
    m = poses.shape[2]
    for f in range(len(rows)):
        row = rows[f]
        for c in range(m):
            row[c] = poses[k, f, c]


@njit(cache=True)
def wall_rows(rows, columns, statics, h_move):
    """contacts.wall_rows, contact by contact: each static contact's wall velocity at its
    touch point, its turn rate and kick, and the relative approach and separation (``rows``:
    bundles.ContactRows, written in place; ``columns``: bundles.BallColumns)."""
    for e in range(len(rows.a)):
        c = rows.static[e]
        if c < 0:
            continue
        a = rows.a[e]
        nx = rows.nx[e]
        ny = rows.ny[e]
        depth = rows.depth[e]
        rows.kick[e] = statics.kick[c]
        lever = columns.radius[a] - depth
        vx, vy = CK.wall_velocity(statics, c, columns.px[a] - nx * lever, columns.py[a] - ny * lever)
        if not (statics.moving[c] or statics.surface[c] != 0.0):
            continue
        rows.wvx[e] = vx
        rows.wvy[e] = vy
        rows.wspin[e] = statics.omega[c] if statics.moving[c] else 0.0
        vn = (columns.vx[a] - vx) * nx + (columns.vy[a] - vy) * ny
        rows.separation[e] = 0.0 - (depth + h_move * vn)
        rows.approach[e] = 0.0 - vn


@njit(cache=True)
def contact_work(rows):
    """motion.work_and_kicks: (J, kicks) of a solved sub-step's contacts, summed in solve
    order one term after another."""
    work = 0.0
    kicks = 0
    first = True
    for e in range(len(rows.a)):
        if rows.static[e] < 0:
            continue
        p_n = rows.jn[e] + rows.pn[e]
        p_t = rows.jt[e] + rows.pt[e]
        jx = p_n * rows.nx[e] - p_t * rows.ny[e]
        jy = p_n * rows.ny[e] + p_t * rows.nx[e]
        term = jx * rows.wvx[e] + jy * rows.wvy[e] + rows.pr[e] * rows.wspin[e]
        work = term if first else work + term       # cumsum starts from the first term
        first = False
        if rows.kick[e] > 0.0 and rows.jn[e] > 0.0:
            kicks += 1
    return work, kicks


@njit(cache=True)
def sweep_work(statics, pos, vel_before, vel_after, inv_mass, radius, fast, hits):
    """motion.sweep_work: (J, kicks) of the balls a sweep stopped at a moving wall, a conveyor
    or a bumper (the first of the nearest such capsules each touches now)."""
    m = len(statics.ax)
    work = 0.0
    kicks = 0
    first = True
    for f in range(len(fast)):
        if not np.isfinite(hits[f, 0]):
            continue
        b = fast[f]
        best = np.inf
        pick = -1
        pcx = 0.0
        pcy = 0.0
        for s in range(m):
            if not (statics.moving[s] or statics.surface[s] != 0.0 or statics.kick[s] > 0.0):
                continue
            dx = statics.bx[s] - statics.ax[s]
            dy = statics.by[s] - statics.ay[s]
            wx = pos[b, 0] - statics.ax[s]
            wy = pos[b, 1] - statics.ay[s]
            dd = dx * dx + dy * dy
            t = min(max(wx * dx + wy * dy, 0.0), dd) / max(dd, TINY)
            cx = statics.ax[s] + t * dx
            cy = statics.ay[s] + t * dy
            ex = pos[b, 0] - cx
            ey = pos[b, 1] - cy
            gap = abs(np.sqrt(ex * ex + ey * ey) - radius[b] - statics.radius[s])
            if pick < 0 or gap < best:
                best = gap
                pick = s
                pcx = cx
                pcy = cy
        if pick < 0 or not (best <= 1e-6 * (1.0 + radius[b])):
            continue
        ux, uy = CK.wall_velocity(statics, pick, pcx, pcy)
        mass = 1.0 / inv_mass[b] if inv_mass[b] > 0 else 0.0
        dvx = vel_after[b, 0] - vel_before[b, 0]
        dvy = vel_after[b, 1] - vel_before[b, 1]
        term = mass * (dvx * ux + dvy * uy)
        work = term if first else work + term
        first = False
        if statics.kick[pick] > 0.0:
            kicks += 1
    return work, kicks


# The kernels here read the bundles' fields by name and link compiled.collide's.
stamps.depend_on(stamps.dispatchers(globals()), (bundles, CK))
