"""Compiled twins of ``game.physics.collide``: the candidate pairs and the sweep.

``ball_contacts`` finds the ball pairs ``collide.ball_pairs`` and the distance cull find;
``static_contacts`` the ball-capsule candidates of ``collide.find_candidates``;
``static_geometry`` is ``collide.ball_static_geometry`` pair by pair; ``sweep`` is
``collide.sweep`` (with ``_swept``, ``geometry.swept_circle_segment``). Each does the numpy
code's arithmetic in the same order, so the two give the same bits (tests/test_accel.py).
"""
import math

import numpy as np
from numba import njit

from game.physics import bundles
from game.physics.compiled import stamps
from game.physics.geometry import EPS, ON_SEGMENT_ULPS

TINY = np.finfo(np.float64).tiny    # as game.physics.geometry.TINY
RADIX_BITS = 11                      # bits of the key sorted per pass of _stable_order (2048 counters)
MAX_COUNTING_CELLS = 8              # cells a ball: ball_contacts counting-sorts grids up to this


@njit(cache=True)
def _cell(x, y, ox, oy, inv, ncx, ncy):
    """Grid cell (ix, iy) of a point, clipped inside the free ring as ``collide.Grid.cells``
    does (NaN goes to the first inner cell, as nan_to_num makes it there)."""
    fx = (x - ox) * inv
    fy = (y - oy) * inv
    if not (fx == fx):
        fx = 0.0
    if not (fy == fy):
        fy = 0.0
    return int(min(max(fx, 1.0), ncx - 2.0)), int(min(max(fy, 1.0), ncy - 2.0))


@njit(cache=True)
def _counting_order(key, buckets):
    """A stable counting sort of ``key`` (values in [0, buckets)): (start (buckets + 1,), order)
    with bucket c's items ``order[start[c]:start[c + 1]]`` in index order. O(n + buckets)."""
    start = np.zeros(buckets + 1, np.int64)
    for k in range(len(key)):
        start[key[k] + 1] += 1
    for c in range(buckets):
        start[c + 1] += start[c]
    fill = start[:-1].copy()
    order = np.empty(len(key), np.int64)
    for k in range(len(key)):
        order[fill[key[k]]] = k
        fill[key[k]] += 1
    return start, order


@njit(cache=True)
def ball_contacts(px, py, radius, margin, cell, ox, oy, ncx, ncy):
    """(i, j): the ball pairs closer than their reach plus margins, as
    ``collide._ball_contacts`` finds them, with i < j and sorted by (i, j) as
    ``collide.find_candidates`` orders them.

    The balls are put in order of their cell number (cell >= the largest diameter; points
    are clipped into the grid as ``collide.Grid.cells`` does), stably: by a counting sort
    where the grid has at most MAX_COUNTING_CELLS cells a ball, else by ``_stable_order``'s radix
    sort and binary searches, so the work stays O(n log n) whatever the grid's size. Each ball
    then meets the balls after it in its own cell and in four of its neighbours: cell
    (x, y + 1), which follows its own cell in the numbering, and the three cells
    (x + 1, y - 1 .. y + 1), which follow each other; so two runs of the sorted copy hold
    every neighbour a ball must meet, and every pair is met once. Each pair met is written
    and kept by counting it only if near: no branch to mispredict in the hot loop.
    """
    n = len(px)
    ncells = ncx * ncy
    key = np.empty(n, np.int64)
    inv = 1.0 / cell
    for a in range(n):
        ix, iy = _cell(px[a], py[a], ox, oy, inv, ncx, ncy)
        key[a] = ix * ncy + iy
    dense = ncells <= MAX_COUNTING_CELLS * n + 1024
    if dense:
        start, order = _counting_order(key, ncells)
    else:
        order = _stable_order(key)
        start = np.zeros(1, np.int64)
    sorted_key = np.empty(n, np.int64)
    sx = np.empty(n)
    sy = np.empty(n)
    sr = np.empty(n)
    sm = np.empty(n)
    for p in range(n):
        a = order[p]
        sorted_key[p] = key[a]
        sx[p] = px[a]
        sy[p] = py[a]
        sr[p] = radius[a]
        sm[p] = margin[a]
    room = 8 * n + 64
    oi = np.empty(room, np.int64)
    oj = np.empty(room, np.int64)
    k = 0
    for p in range(n):
        c = sorted_key[p]
        xp = sx[p]
        yp = sy[p]
        rp = sr[p]
        mp = sm[p]
        for run in range(2):
            if run == 0:
                lo = p + 1
                hi = start[c + 2] if dense else np.searchsorted(sorted_key, c + 2)
            elif dense:
                lo = start[c + ncy - 1]
                hi = start[c + ncy + 2]
            else:
                lo = np.searchsorted(sorted_key, c + ncy - 1)
                hi = np.searchsorted(sorted_key, c + ncy + 2)
            if k + (hi - lo) > room:          # a crowd: more room
                room = 2 * (k + hi - lo)
                grown_i = np.empty(room, np.int64)
                grown_j = np.empty(room, np.int64)
                grown_i[:k] = oi[:k]
                grown_j[:k] = oj[:k]
                oi = grown_i
                oj = grown_j
            for q in range(lo, hi):
                ddx = xp - sx[q]
                ddy = yp - sy[q]
                limit = rp + sr[q] + mp + sm[q]
                oi[k] = p
                oj[k] = q
                k += ddx * ddx + ddy * ddy < limit * limit
    for e in range(k):
        oi[e] = order[oi[e]]
        oj[e] = order[oj[e]]
    return _sorted_pairs(n, oi[:k], oj[:k])


@njit(cache=True)
def _stable_order(key):
    """(n,) int64: the permutation that sorts the non-negative int64 ``key`` stably, as
    ``np.argsort(key, kind="stable")`` does: a least-significant-digit radix sort,
    RADIX_BITS a pass (two passes for a grid of up to 2^22 cells). O(n) where the merge
    sort was O(n log n), and a far smaller function for numba to compile."""
    n = len(key)
    order = np.arange(n)
    top = 0
    for a in range(n):
        top = max(top, key[a])
    spare = np.empty(n, np.int64)
    size = 1 << RADIX_BITS
    mask = size - 1
    count = np.empty(size + 1, np.int64)
    shift = 0
    while (top >> shift) > 0:
        for d in range(size + 1):
            count[d] = 0
        for a in range(n):
            count[((key[order[a]] >> shift) & mask) + 1] += 1
        for d in range(size):
            count[d + 1] += count[d]
        for a in range(n):          # in the order so far: equal digits keep it (stable)
            b = order[a]
            d = (key[b] >> shift) & mask
            spare[count[d]] = b
            count[d] += 1
        order, spare = spare, order
        shift += RADIX_BITS
    return order


@njit(cache=True)
def _sorted_pairs(n, oi, oj):
    """The pairs (min, max) sorted by (i, j), as np.lexsort((j, i)) orders them (no pair
    twice, so the order is total): a counting sort by i, then an insertion sort of each
    ball's few partners by j."""
    m = len(oi)
    start = np.zeros(n + 1, np.int64)
    for k in range(m):
        start[min(oi[k], oj[k]) + 1] += 1
    for a in range(n):
        start[a + 1] += start[a]
    fill = start[:-1].copy()
    si = np.empty(m, np.int64)
    sj = np.empty(m, np.int64)
    for k in range(m):
        lo = min(oi[k], oj[k])
        si[fill[lo]] = lo
        sj[fill[lo]] = max(oi[k], oj[k])
        fill[lo] += 1
    for a in range(n):
        for p in range(start[a] + 1, start[a + 1]):
            v = sj[p]
            q = p - 1
            while q >= start[a] and sj[q] > v:
                sj[q + 1] = sj[q]
                q -= 1
            sj[q + 1] = v
    return si, sj


@njit(cache=True)
def static_contacts(px, py, qx, qy, radius, margin, statics):
    """Balls against the capsules listed in their grid cell: (ball, static, nx, ny, depth).

    Mirrors ``collide.ball_static_geometry``: the offset vector from the closest point on
    the core segment; a centre that crossed the core since (qx, qy) (the sub-step's start)
    or sits on it is pushed to the side it came from (polygon edges: always outwards). Kept
    where depth > -margin, and polygon edges with the centre on their inner side (for
    ``collide.polygon_insides``); a moving capsule where the ball touches its reach
    (``collide.reaches``). ``statics``: bundles.Statics, the capsules and their grid.
    """
    ax, ay, bx, by, seg_radius = statics.ax, statics.ay, statics.bx, statics.by, statics.radius
    snx, sny, polygon, start, index = statics.nx, statics.ny, statics.polygon, statics.start, statics.index
    cell, ox, oy, ncx, ncy = statics.cell, statics.ox, statics.oy, statics.ncx, statics.ncy
    n = len(px)
    inv = 1.0 / cell
    total = 0
    oi = np.empty(0, np.int64)
    os_ = np.empty(0, np.int64)
    onx = np.empty(0)
    ony = np.empty(0)
    odepth = np.empty(0)
    for write in range(2):
        if write:
            oi = np.empty(total, np.int64)
            os_ = np.empty(total, np.int64)
            onx = np.empty(total)
            ony = np.empty(total)
            odepth = np.empty(total)
        k = 0
        for a in range(n):
            ix, iy = _cell(px[a], py[a], ox, oy, inv, ncx, ncy)
            c = ix * ncy + iy
            for at in range(start[c], start[c + 1]):
                s = index[at]
                # A moving wall: where the ball touches its reach this tick (collide.reaches).
                if statics.moving[s] and not _reaches(px[a], py[a], radius[a] + margin[a], statics.reach, s):
                    continue
                dx = bx[s] - ax[s]
                dy = by[s] - ay[s]
                wx = px[a] - ax[s]
                wy = py[a] - ay[s]
                dd = dx * dx + dy * dy
                t = 0.0
                if dd > 0.0:
                    t = min(max((wx * dx + wy * dy) / dd, 0.0), 1.0)
                cx = ax[s] + t * dx
                cy = ay[s] + t * dy
                vx = px[a] - cx
                vy = py[a] - cy
                dist = np.sqrt(vx * vx + vy * vy)
                now = dx * wy - dy * wx
                came = dx * (qy[a] - ay[s]) - dy * (qx[a] - ax[s])
                edge = polygon[s] >= 0
                mx = px[a] - qx[a]
                my = py[a] - qy[a]
                side_a = mx * (ay[s] - qy[a]) - my * (ax[s] - qx[a])
                side_b = mx * (by[s] - qy[a]) - my * (bx[s] - qx[a])
                crossed = (came * now < 0.0) and (side_a * side_b <= 0.0) and not edge
                sign = 1.0 if (came >= 0.0 and not edge) else -1.0
                reach = radius[a] + seg_radius[s]
                if crossed or dist <= 1e-12:
                    nx = sign * snx[s]
                    ny = sign * sny[s]
                else:
                    nx = vx / dist
                    ny = vy / dist
                depth = reach + dist if crossed else reach - dist
                if not (statics.moving[s] or depth > -margin[a] or (edge and now > 0.0)):
                    continue
                if write:
                    oi[k] = a
                    os_[k] = s
                    onx[k] = nx
                    ony[k] = ny
                    odepth[k] = depth
                k += 1
        total = k
    return oi, os_, onx, ony, odepth


@njit(cache=True)
def _reaches(x, y, r, reach, s):
    """collide.reaches for one ball at (x, y) with radius + margin r and capsule s (the same
    arithmetic)."""
    ax = reach[s, 0]
    ay = reach[s, 1]
    dx = reach[s, 2] - ax
    dy = reach[s, 3] - ay
    wx = x - ax
    wy = y - ay
    dd = dx * dx + dy * dy
    t = min(max(wx * dx + wy * dy, 0.0), dd) / max(dd, TINY)
    ex = wx - t * dx
    ey = wy - t * dy
    rr = r + reach[s, 4]
    return ex * ex + ey * ey <= rr * rr


@njit(cache=True)
def with_moving_pairs(bi, s, pos, radius, margin, statics):
    """collide.with_moving_pairs: the candidates (bi, s) (sorted by ball, capsule) with their
    moving capsules' pairs found afresh for balls at ``pos`` (N, 2) with ``margin``, in
    (ball, capsule) order: each ball's still pairs and its moving ones merged by capsule."""
    moving = statics.moving
    rows = np.nonzero(moving)[0]
    n = pos.shape[0]
    count = 0
    for e in range(len(s)):
        if not moving[s[e]]:
            count += 1
    for a in range(n):
        r = radius[a] + margin[a]
        for q in range(len(rows)):
            count += _reaches(pos[a, 0], pos[a, 1], r, statics.reach, rows[q])
    oi = np.empty(count, np.int64)
    os_ = np.empty(count, np.int64)
    k = 0
    e = 0
    for a in range(n):
        r = radius[a] + margin[a]
        q = 0
        while True:                       # merge ball a's still pairs (sorted) with its moving ones
            while e < len(bi) and bi[e] == a and moving[s[e]]:
                e += 1                    # an old moving pair: found again below
            while q < len(rows) and not _reaches(pos[a, 0], pos[a, 1], r, statics.reach, rows[q]):
                q += 1
            still = e < len(bi) and bi[e] == a
            more = q < len(rows)
            if not (still or more):
                break
            if still and (not more or s[e] < rows[q]):
                oi[k] = a
                os_[k] = s[e]
                e += 1
            else:
                oi[k] = a
                os_[k] = rows[q]
                q += 1
            k += 1
    return oi, os_


@njit(cache=True)
def _meets_in_frame(statics, s, qx, qy, px, py, r):
    """collide._near_moving for one ball and moving capsule s (the same arithmetic): its move
    from (qx, qy) carried with s to (px, py), widened by r, may touch s's reach."""
    fx, fy = carried(statics, s, qx, qy)
    mx = px - fx
    my = py - fy
    return _reaches(px, py, r + np.sqrt(mx * mx + my * my), statics.reach, s)


@njit(cache=True)
def carried(statics, c, x, y):
    """motion.carried for one point (x, y) and capsule c: where it is carried by the capsule's
    motion over the sub-step (the same arithmetic); the point itself where c does not move."""
    if not statics.moving[c]:
        return x, y
    cx = statics.mcx[c]
    cy = statics.mcy[c]
    co = statics.mcos[c]
    si = statics.msin[c]
    ux = x - cx
    uy = y - cy
    return cx + (co * ux - si * uy) + statics.mdx[c], cy + (si * ux + co * uy) + statics.mdy[c]


@njit(cache=True)
def wall_velocity(statics, c, px, py):
    """motion.wall_velocity for one point (px, py) of capsule c (the same arithmetic)."""
    cx = statics.mcx[c]
    cy = statics.mcy[c]
    co = statics.mcos[c]
    si = statics.msin[c]
    ux = px - cx - statics.mdx[c]
    uy = py - cy - statics.mdy[c]
    fx = cx + (co * ux + si * uy)
    fy = cy + (co * uy - si * ux)
    vx = 0.0
    vy = 0.0
    if statics.moving[c]:
        vx = (px - fx) * statics.inv_h
        vy = (py - fy) * statics.inv_h
    speed = statics.surface[c]
    tx = statics.bx[c] - statics.ax[c]
    ty = statics.by[c] - statics.ay[c]
    length = np.sqrt(tx * tx + ty * ty)
    if speed != 0.0 and length > 0.0:
        scale = speed / length
        vx = vx + scale * tx
        vy = vy + scale * ty
    return vx, vy


@njit(cache=True)
def static_geometry(px, py, qx, qy, radius, i, s, statics):
    """collide.ball_static_geometry, pair by pair with its arithmetic: (nx, ny, depth) of
    balls i at (px, py) against capsules s (of bundles.Statics ``statics``), (qx, qy) the
    balls' positions at the sub-step's start."""
    ax, ay, bx, by, seg_radius = statics.ax, statics.ay, statics.bx, statics.by, statics.radius
    snx, sny, polygon = statics.nx, statics.ny, statics.polygon
    m = len(i)
    nx = np.empty(m)
    ny = np.empty(m)
    depth = np.empty(m)
    for k in range(m):
        a = i[k]
        c = s[k]
        dx = bx[c] - ax[c]
        dy = by[c] - ay[c]
        wx = px[a] - ax[c]
        wy = py[a] - ay[c]
        dd = dx * dx + dy * dy
        wd = wx * dx + wy * dy
        t = min(max(wd, 0.0), dd) / max(dd, TINY)
        vx = px[a] - (ax[c] + t * dx)
        vy = py[a] - (ay[c] + t * dy)
        dist = np.sqrt(vx * vx + vy * vy)
        # Where the ball came from, in the wall's frame (motion.carried): a moving wall's
        # pose now, the ball's start carried with it.
        fx, fy = carried(statics, c, qx[a], qy[a])
        came_from = dx * (fy - ay[c]) - dy * (fx - ax[c])
        now = dx * (py[a] - ay[c]) - dy * (px[a] - ax[c])
        mx = px[a] - fx
        my = py[a] - fy
        side_a = mx * (ay[c] - fy) - my * (ax[c] - fx)
        side_b = mx * (by[c] - fy) - my * (bx[c] - fx)
        edge = polygon[c] >= 0
        # A centre that started on the core (came_from == 0) came from the normal's side.
        crossed = (came_from * now < 0 or (came_from == 0 and now < 0)) and (side_a * side_b <= 0) and not edge
        sign = 1.0 if (came_from >= 0 and not edge) else -1.0
        if crossed or dist <= 1e-12:
            nx[k] = sign * snx[c]
            ny[k] = sign * sny[c]
        else:
            nx[k] = vx / dist
            ny[k] = vy / dist
        reach = radius[a] + seg_radius[c]
        depth[k] = reach + dist if crossed else reach - dist
    return nx, ny, depth



@njit(cache=True)
def _length(x, y):
    """geometry._length: |v|, exact also where the squares underflow."""
    length = np.sqrt(x * x + y * y)
    if length < 1e-150:
        length = math.hypot(x, y)
    return length


@njit(cache=True)
def _swept(cx, cy, r, mx, my, ax, ay, bx, by, seg_r):
    """geometry.swept_circle_segment for one circle and capsule, step by step the same:
    the fraction of the move (mx, my) at the first touch, inf if none."""
    big_r = r + seg_r
    r2 = big_r * big_r
    mm = mx * mx + my * my
    dx = bx - ax
    dy = by - ay
    wx = cx - ax
    wy = cy - ay
    dd = dx * dx + dy * dy
    wd = wx * dx + wy * dy
    t0 = min(max(wd, 0.0), dd) / max(dd, TINY)
    if wd > 0 and wd < dd:
        k = (dx * wy - dy * wx) / max(dd, TINY)
        vx = 0.0 - k * dy
        vy = k * dx
    else:
        vx = wx - t0 * dx
        vy = wy - t0 * dy
    dist = _length(vx, vy)
    if dist <= big_r:       # touching at the start: 0 if it stays in contact, else no touch
        on = dist <= ON_SEGMENT_ULPS * EPS * (abs(ax) + abs(ay) + abs(dx) + abs(dy)) + TINY
        if vx * mx + vy * my < 0 or on or mm == 0:
            return 0.0
        return np.inf
    s0 = dx * wy - dy * wx
    sm = dx * my - dy * mx
    abs_sm = abs(sm)
    gap = abs(s0) - big_r * np.sqrt(dd)
    t_flat = min(max(gap, 0.0), abs_sm) / max(abs_sm, TINY)
    u = wd + t_flat * (mx * dx + my * dy)
    best = t_flat
    if not (s0 * sm < 0 and gap <= abs_sm and u >= 0 and u <= dd):
        best += 2.0
    mm_r2 = mm * r2
    for end in range(2):
        px = wx if end == 0 else wx - dx
        py = wy if end == 0 else wy - dy
        wm = px * mx + py * my
        wxm = px * my - py * mx
        disc = mm_r2 - wxm * wxm
        c0 = max(px * px + py * py - r2, 0.0)
        den = max(np.sqrt(max(disc, 0.0)) - wm, TINY)
        t_end = min(c0, 2.0 * den) / den
        if not (wm < 0 and disc >= 0):
            t_end += 2.0
        if t_end < best:
            best = t_end
    return best if best <= 1.0 else np.inf


@njit(cache=True)
def sweep(prev, pos, vel, radius, restitution, friction, ccd_fraction, resting_speed, statics):
    """collide.sweep, in place on ``pos`` and ``vel``: balls that moved more than
    ccd_fraction of their radius are swept from ``prev`` against every capsule whose box
    meets the box of the move, except polygon edges it starts on the inner side of; at the
    first touch (the lowest-numbered capsule among equal times) a ball stops and its
    velocity responds. A touch at t = 0 counts only if the centre's path crosses the core
    segment. Returns (fast ball indices, (F, 2) touch
    points, NaN where no touch). ``statics``: bundles.Statics."""
    ax, ay, bx, by, seg_radius = statics.ax, statics.ay, statics.bx, statics.by, statics.radius
    snx, sny, srest, sfric = statics.nx, statics.ny, statics.restitution, statics.friction
    box, polygon = statics.box, statics.polygon
    moving, kick = statics.moving, statics.kick
    n = pos.shape[0]
    m = len(ax)
    walls = False
    for s in range(m):
        if moving[s]:
            walls = True
            break
    fast = np.empty(n, np.int64)        # room for every ball: one pass, cut to size at the end
    hits = np.empty((n, 2))
    f = 0
    for a in range(n):
        mx = pos[a, 0] - prev[a, 0]
        my = pos[a, 1] - prev[a, 1]
        r = radius[a]
        lox = min(prev[a, 0], pos[a, 0]) - r
        hix = max(prev[a, 0], pos[a, 0]) + r
        loy = min(prev[a, 1], pos[a, 1]) - r
        hiy = max(prev[a, 1], pos[a, 1]) + r
        own = np.sqrt(mx * mx + my * my) > ccd_fraction * radius[a]
        near = False
        if walls:                       # moving walls come to slow balls (collide._near_moving)
            for s in range(m):
                if moving[s] and _meets_in_frame(statics, s, prev[a, 0], prev[a, 1], pos[a, 0], pos[a, 1], r):
                    near = True
                    break
        if not (own or near):
            continue
        fast[f] = a
        hits[f, 0] = np.nan
        hits[f, 1] = np.nan
        f += 1
        best = np.inf
        hit = -1
        for s in range(m):
            if moving[s]:               # in the wall's frame, against its reach (collide._near_moving)
                if not _meets_in_frame(statics, s, prev[a, 0], prev[a, 1], pos[a, 0], pos[a, 1], r):
                    continue
            elif walls and not own:
                continue
            elif not (lox <= box[s, 2] and hix >= box[s, 0] and loy <= box[s, 3] and hiy >= box[s, 1]):
                continue
            # The start in the wall's frame (carried with a moving wall) and the move from it.
            fx, fy = carried(statics, s, prev[a, 0], prev[a, 1])
            mx = pos[a, 0] - fx
            my = pos[a, 1] - fy
            if walls and not own and not (np.sqrt(mx * mx + my * my) > ccd_fraction * radius[a]):
                continue                # a slow ball: only walls it moved far against
            if polygon[s] >= 0 and (bx[s] - ax[s]) * (fy - ay[s]) - (by[s] - ay[s]) * (fx - ax[s]) > 0:
                continue
            t = _swept(fx, fy, r, mx, my, ax[s], ay[s], bx[s], by[s], seg_radius[s])
            if t == 0.0:
                # geometry.segment_intersections(prev, pos, a, b): does the centre's path cross?
                sx = bx[s] - ax[s]
                sy = by[s] - ay[s]
                qx = ax[s] - fx
                qy = ay[s] - fy
                denom = mx * sy - my * sx
                tn = qx * sy - qy * sx
                un = qx * my - qy * mx
                if denom < 0:
                    denom, tn, un = -denom, -tn, -un
                if not (denom > 0 and tn >= 0 and tn <= denom and un >= 0 and un <= denom):
                    t = np.inf
            if t < best:
                best = t
                hit = s
        if hit < 0:
            continue
        s = hit
        fx, fy = carried(statics, s, prev[a, 0], prev[a, 1])
        mx = pos[a, 0] - fx
        my = pos[a, 1] - fy
        tx = fx + mx * best
        ty = fy + my * best
        dx = bx[s] - ax[s]
        dy = by[s] - ay[s]
        wd = (tx - ax[s]) * dx + (ty - ay[s]) * dy
        dd = dx * dx + dy * dy
        u = min(max(wd, 0.0), dd) / max(dd, TINY)
        cx = ax[s] + u * dx
        cy = ay[s] + u * dy
        ddx = tx - cx
        ddy = ty - cy
        dist = np.sqrt(ddx * ddx + ddy * ddy)
        came_from = dx * (fy - ay[s]) - dy * (fx - ax[s])
        if dist > 1e-12:
            nx = ddx / dist
            ny = ddy / dist
        else:
            sign = 1.0 if came_from >= 0 else -1.0
            nx = sign * snx[s]
            ny = sign * sny[s]
        pos[a, 0] = tx
        pos[a, 1] = ty
        # Relative to the wall's velocity at the touch (a moving wall, a conveyor).
        on = moving[s] or statics.surface[s] != 0.0
        ux, uy = wall_velocity(statics, s, cx, cy)
        v0 = vel[a, 0]
        v1 = vel[a, 1]
        if on:
            v0 = v0 - ux
            v1 = v1 - uy
        vn = v0 * nx + v1 * ny
        e = max(restitution[a], srest[s])
        if not (-vn > resting_speed):
            e = 0.0
        dvn = -(1.0 + e) * vn if vn < 0 else 0.0
        if kick[s] > 0.0 and -vn > resting_speed:    # a bumper: at least kick m/s away
            dvn = max(dvn, kick[s] - vn)
        tx_ = v0 - nx * vn
        ty_ = v1 - ny * vn
        vt = np.sqrt(tx_ * tx_ + ty_ * ty_)
        mu = np.sqrt(friction[a] * sfric[s])
        keep = max(0.0, 1.0 - mu * dvn / vt) if vt > 0 else 1.0
        ox_ = nx * (vn + dvn) + tx_ * keep
        oy_ = ny * (vn + dvn) + ty_ * keep
        if on:
            ox_ = ox_ + ux
            oy_ = oy_ + uy
        vel[a, 0] = ox_
        vel[a, 1] = oy_
        hits[f - 1, 0] = tx
        hits[f - 1, 1] = ty
    return fast[:f].copy(), hits[:f].copy()


# The kernels here read the bundles' fields by name.
stamps.depend_on(stamps.dispatchers(globals()), (bundles,))
