"""numba kernels behind ``game.physics.compiled.loader`` (imported only by ``accel.load``).

Each is the compiled twin of numpy code, with the same arithmetic in the same order so the
two give the same bits (tests/test_accel.py, tests/test_solver.py): ``ball_contacts``
finds the ball pairs ``collide.ball_pairs`` and the distance cull find; ``static_contacts``
the ball-capsule candidates of ``collide.find_candidates``; ``sweep`` is
``collide.sweep``; the ``*_uniform`` steppers are ``game.physics.integrators`` under gravity and
drag; ``prepare_contacts`` and ``solve`` are ``game.physics.solver``'s prepare_numpy (with the
colouring) and solve_numpy, contact by contact where numpy takes a colour at once.

Arrays indexed by ball have one more entry inside ``solve``: index N is the still
stand-in of the statics (inverse mass 0), so a ball-static contact is a pair (i, N).
"""
import math

import numpy as np
from numba import int64, njit, uint64

from game.physics.compiled.loader import COMPILE_PARTS
from game.physics.geometry import EPS, ON_SEGMENT_ULPS

TINY = np.finfo(np.float64).tiny    # as game.physics.geometry.TINY
RADIX_BITS = 11                      # bits of the key sorted per pass of _stable_order (2048 counters)
MAX_COUNTING_CELLS = 8              # cells a ball: ball_contacts counting-sorts grids up to this
FAR_RELATIVE = 1e-9                  # prepare_contacts: a pair whose squared distance exceeds
                                     # ((reach + slop) (1 + this))^2 cannot touch, whatever the rounding


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
def static_contacts(px, py, qx, qy, radius, margin, cell, ox, oy, ncx, ncy, start, index,
                    ax, ay, bx, by, seg_radius, snx, sny, polygon):
    """Balls against the capsules listed in their grid cell: (ball, static, nx, ny, depth).

    Mirrors ``collide.ball_static_geometry``: the offset vector from the closest point on
    the core segment; a centre that crossed the core since (qx, qy) (the sub-step's start)
    or sits on it is pushed to the side it came from (polygon edges: always outwards). Kept
    where depth > -margin, and polygon edges with the centre on their inner side (for
    ``collide.polygon_insides``).
    """
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
                if not (depth > -margin[a] or (edge and now > 0.0)):
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
def static_geometry(px, py, qx, qy, radius, i, s, ax, ay, bx, by, snx, sny, seg_radius, polygon):
    """collide.ball_static_geometry, pair by pair with its arithmetic: (nx, ny, depth) of
    balls i at (px, py) against capsules s, (qx, qy) the balls' positions at the sub-step's
    start."""
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
        came_from = dx * (qy[a] - ay[c]) - dy * (qx[a] - ax[c])
        now = dx * (py[a] - ay[c]) - dy * (px[a] - ax[c])
        mx = px[a] - qx[a]
        my = py[a] - qy[a]
        side_a = mx * (ay[c] - qy[a]) - my * (ax[c] - qx[a])
        side_b = mx * (by[c] - qy[a]) - my * (bx[c] - qx[a])
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


HASH = np.uint64(0x9E3779B97F4A7C15)    # as game.physics.solver._HASH
# The lowest set bit's place in a 64-bit word w: _LOW_BIT[((w & -w) * DE_BRUIJN) >> 58] (a de Bruijn
# sequence: each of the 64 powers of two lands on its own top six bits); numba's public API has
# no count of trailing zeros.
DE_BRUIJN = np.uint64(0x03F79D71B4CB0A89)
_LOW_BIT = np.array([0, 1, 48, 2, 57, 49, 28, 3, 61, 58, 50, 42, 38, 29, 17, 4, 62, 55, 59, 36, 53, 51, 43, 22, 45,
                     39, 33, 30, 24, 18, 12, 5, 63, 47, 56, 27, 60, 41, 37, 16, 54, 35, 52, 21, 44, 32, 23, 11, 46,
                     26, 40, 15, 34, 20, 31, 10, 25, 14, 19, 9, 13, 8, 7, 6], np.int64)
# solve's packed ball state: the columns of st (size, BALL_COLUMNS), one ball a row.
V_X, V_Y, SPIN, P_X, P_Y, W, INV_I, ANGLE = range(8)
BALL_COLUMNS = 8
# solve's packed contact terms for _soft_pass: the columns of ct (C, CONTACT_COLUMNS), one
# contact a row. The normal, friction's lever arms and the bias terms are the biased passes'
# and then the relax passes' (_relax_normals); the masses as the mass scaling leaves them.
C_NX, C_NY, C_ARM_A, C_ARM_B, C_BIAS, C_MS, C_IM, C_WA, C_WB, C_IA, C_IB, C_MN, C_MT, C_MR, C_FR, C_RL = range(16)
CONTACT_COLUMNS = 16
# solve's per-ball keep (size, KEEP_COLUMNS): the velocities after the impacts (before the
# warm start: the move's start and the energy guard's), after the warm start (what the
# biased passes' velocities go back to) and the positions before the move (the give-back's).
K_VX0, K_VY0, K_SPIN0, K_VXW, K_VYW, K_SPINW, K_PX, K_PY = range(8)
KEEP_COLUMNS = 8


@njit(cache=True)
def _colour_contacts(a, b, n, priority):
    """(C,) colour of each contact: the rounds of ``solver.colour_contacts`` without the rounds.

    In those rounds a contact is coloured as soon as every contact of lower priority sharing
    a ball with it (index n, the statics' stand-in, is shared freely) is coloured, so its
    colour is 0, or one more than the largest colour among those. Along one ball's contacts
    in order of priority the colours grow, so that largest colour is the one of the contact
    just before it on its ball a or b: each contact waits for those two at most. Kahn's walk
    of that graph (each ball's contacts sorted by priority, small sorts) colours all in O(C).
    """
    m = len(a)
    start = np.zeros(n + 2, np.int64)
    for k in range(m):
        start[a[k] + 1] += 1
        if b[k] != n:
            start[b[k] + 1] += 1
    for x in range(n + 1):
        start[x + 1] += start[x]
    fill = start[:-1].copy()
    slot = np.empty(start[n + 1], np.int64)
    for k in range(m):
        slot[fill[a[k]]] = k
        fill[a[k]] += 1
        if b[k] != n:
            slot[fill[b[k]]] = k
            fill[b[k]] += 1
    # Each ball's contacts by priority; then each contact's successors on its two balls.
    after_a = np.full(m, -1, np.int64)
    after_b = np.full(m, -1, np.int64)
    waits = np.zeros(m, np.int64)
    for x in range(n):
        lo = start[x]
        hi = start[x + 1]
        for p in range(lo + 1, hi):
            k = slot[p]
            q = p - 1
            while q >= lo and priority[slot[q]] > priority[k]:
                slot[q + 1] = slot[q]
                q -= 1
            slot[q + 1] = k
        for p in range(lo + 1, hi):
            earlier = slot[p - 1]
            if a[earlier] == x:
                after_a[earlier] = slot[p]
            else:
                after_b[earlier] = slot[p]
            waits[slot[p]] += 1
    colour = np.zeros(m, np.int64)
    ready = np.empty(m, np.int64)
    tail = 0
    for k in range(m):
        if waits[k] == 0:
            ready[tail] = k
            tail += 1
    head = 0
    while head < tail:
        k = ready[head]
        head += 1
        for side in range(2):
            j = after_a[k] if side == 0 else after_b[k]
            if j >= 0:
                colour[j] = max(colour[j], colour[k] + 1)
                waits[j] -= 1
                if waits[j] == 0:
                    ready[tail] = j
                    tail += 1
    return colour


@njit(cache=True)
def prepare_contacts(n, i, j, bi, s, snx, sny, sdepth, px, py, vx, vy, gx, gy, w, inv_i, radius, ids,
                     rest, fric, roll, st_rest, st_fric, st_roll, h_move, touch_slop, static_key,
                     old_key, old_n, old_t, old_r, support_cos):
    """solver.prepare_numpy, contact by contact. The canonical order is a merge of the two
    sorted lists by ball (ball ids grow with the index, so it is the order by key); the
    colours, the same rounds; the solve order, a counting sort by colour."""
    # Ball pairs that touch.
    m1 = len(i)
    ti = np.empty(m1, np.int64)
    tj = np.empty(m1, np.int64)
    tnx = np.empty(m1)
    tny = np.empty(m1)
    tdepth = np.empty(m1)
    cp = 0
    for q in range(m1):
        p = i[q]
        o = j[q]
        dx = px[p] - px[o]
        dy = py[p] - py[o]
        reach = radius[p] + radius[o]
        # Far apart by more than rounding can blur: not touching, without the square root.
        far = (reach + touch_slop) * (1.0 + FAR_RELATIVE)
        if dx * dx + dy * dy > far * far:
            continue
        dist = np.sqrt(dx * dx + dy * dy)
        if not (reach - dist > -touch_slop):
            continue
        ti[cp] = p
        tj[cp] = o
        dx = (px[p] - h_move * vx[p]) - (px[o] - h_move * vx[o])
        dy = (py[p] - h_move * vy[p]) - (py[o] - h_move * vy[o])
        length = np.sqrt(dx * dx + dy * dy)
        if length > 1e-12:
            inv = 1.0 / length
            tnx[cp] = dx * inv
            tny[cp] = dy * inv
        else:
            tnx[cp] = 1.0
            tny[cp] = 0.0
        tdepth[cp] = reach - dist
        cp += 1
    cs = len(bi)
    m = cp + cs
    # Merge into the canonical order.
    ca = np.empty(m, np.int64)
    cb = np.empty(m, np.int64)
    cst = np.empty(m, np.int64)
    ckey = np.empty(m, np.int64)
    cnx = np.empty(m)
    cny = np.empty(m)
    cdepth = np.empty(m)
    p = 0
    q = 0
    for k in range(m):
        if q >= cs or (p < cp and ti[p] <= bi[q]):
            ca[k] = ti[p]
            cb[k] = tj[p]
            cst[k] = -1
            ckey[k] = ids[ti[p]] * (1 << 32) + ids[tj[p]]
            cnx[k] = tnx[p]
            cny[k] = tny[p]
            cdepth[k] = tdepth[p]
            p += 1
        else:
            ca[k] = bi[q]
            cb[k] = n
            cst[k] = s[q]
            ckey[k] = ids[bi[q]] * (1 << 32) + (static_key + s[q])
            cnx[k] = snx[q]
            cny[k] = sny[q]
            cdepth[k] = sdepth[q]
            q += 1
    # Warm start by key (both key lists sorted).
    wn = np.zeros(m)
    wt = np.zeros(m)
    wr = np.zeros(m)
    o = 0
    for k in range(m):
        while o < len(old_key) and old_key[o] < ckey[k]:
            o += 1
        if o < len(old_key) and old_key[o] == ckey[k]:
            wn[k] = old_n[o]
            wt[k] = old_t[o]
            wr[k] = old_r[o]
    # Colours: the rounds of solver.colour_contacts.
    priority = np.empty(m, np.uint64)
    for k in range(m):
        priority[k] = np.uint64(ckey[k]) * HASH
    colour = _colour_contacts(ca, cb, n, priority)
    c = 0
    for k in range(m):
        c = max(c, colour[k] + 1)
    colour_start, order = _counting_order(colour, c)
    # Everything the solve needs, in solve order.
    a = np.empty(m, np.int64)
    b = np.empty(m, np.int64)
    static = np.empty(m, np.int64)
    key = np.empty(m, np.int64)
    nx = np.empty(m)
    ny = np.empty(m)
    depth = np.empty(m)
    base = np.empty(m)
    separation = np.empty(m)
    ax = np.empty(m)
    ay = np.empty(m)
    ra = np.empty(m)
    rb = np.empty(m)
    mass_n = np.empty(m)
    mass_t = np.empty(m)
    mass_r = np.empty(m)
    restitution = np.empty(m)
    friction = np.empty(m)
    rolling = np.empty(m)
    pn = np.empty(m)
    pt = np.empty(m)
    pr = np.empty(m)
    approach = np.empty(m)
    scale_a = np.ones(m)
    scale_b = np.ones(m)
    for e in range(m):
        k = order[e]
        A = ca[k]
        B = cb[k]
        ST = cst[k]
        kx = cnx[k]
        ky = cny[k]
        d = cdepth[k]
        a[e] = A
        b[e] = B
        static[e] = ST
        key[e] = ckey[k]
        nx[e] = kx
        ny[e] = ky
        depth[e] = d
        pn[e] = wn[k]
        pt[e] = wt[k]
        pr[e] = wr[k]
        base[e] = d + ((px[A] - px[B]) * kx + (py[A] - py[B]) * ky)
        separation[e] = 0.0 - (d + h_move * ((vx[A] - vx[B]) * kx + (vy[A] - vy[B]) * ky))
        approach[e] = -((vx[A] - vx[B]) * kx + (vy[A] - vy[B]) * ky)
        ax[e] = gx[A] - gx[B]
        ay[e] = gy[A] - gy[B]
    # The ball fields in a second pass (fewer arrays streamed at once: faster than one pass).
    for e in range(m):
        A = a[e]
        B = b[e]
        ST = static[e]
        r_a = radius[A]
        r_b = radius[B] if ST < 0 else 0.0
        ra[e] = r_a
        rb[e] = r_b
        k_n = w[A] + w[B]
        k_t = k_n + (inv_i[A] * (r_a * r_a) + inv_i[B] * (r_b * r_b))
        k_r = inv_i[A] + inv_i[B]
        mass_n[e] = 1.0 / k_n if k_n > 0 else 0.0
        mass_t[e] = 1.0 / k_t if k_t > 0 else 0.0
        mass_r[e] = 1.0 / k_r if k_r > 0 else 0.0
        if ST < 0:
            e_b = rest[B]
            f_b = fric[B]
            roll_b = roll[B] * r_b
        else:
            e_b = st_rest[ST]
            f_b = st_fric[ST]
            roll_b = st_roll[ST] * r_a
        restitution[e] = max(rest[A], e_b)
        friction[e] = np.sqrt(fric[A] * f_b)
        rolling[e] = max(roll[A] * r_a, roll_b)
    # Contact mass scaling (solver.support_scales): the fixed point of minima of inverse
    # masses down the resting contacts, reached in place (the same whatever the order).
    # Balls all of one inverse mass (the static stand-in n takes part in no resting pair):
    # no minimum can lower one, so every scale stays 1 and the search is skipped.
    uniform = True
    for x in range(1, n):
        if not (w[x] == w[0]):
            uniform = False
            break
    support_w = w.copy()
    press_min = np.empty(n + 1)         # support_cos |g| of each ball, once (the same bits)
    for x in range(n + 1 if not uniform else 0):
        press_min[x] = support_cos * np.sqrt(gx[x] * gx[x] + gy[x] * gy[x])
    upper = np.empty(2 * m, np.int64)
    lower = np.empty(2 * m, np.int64)
    rest_count = 0
    for e in range(m if not uniform else 0):
        if static[e] >= 0:
            continue
        A = a[e]
        B = b[e]
        press = gx[A] * nx[e] + gy[A] * ny[e]
        if press < 0.0 - press_min[A]:
            upper[rest_count] = A
            lower[rest_count] = B
            rest_count += 1
        press = gx[B] * nx[e] + gy[B] * ny[e]
        if press > press_min[B]:
            upper[rest_count] = B
            lower[rest_count] = A
            rest_count += 1
    changed = rest_count > 0
    scaled = False
    while changed:
        changed = False
        for q in range(rest_count):
            if support_w[upper[q]] < support_w[lower[q]]:
                support_w[lower[q]] = support_w[upper[q]]
                changed = True
                scaled = True
    for e in range(m if scaled else 0):
        A = a[e]
        B = b[e]
        if support_w[A] != w[A]:
            scale_a[e] = support_w[A] / w[A]
        if support_w[B] != w[B]:
            scale_b[e] = support_w[B] / w[B]
    return (a, b, static, key, order, colour_start, nx, ny, depth, base, separation, ax, ay, ra, rb,
            mass_n, mass_t, mass_r, restitution, friction, rolling, pn, pt, pr, approach, scale_a, scale_b)


@njit(cache=True)
def _contact_terms(a, b, nx, ny, separation, ra, rb, mass_n, mass_t, mass_r, friction, rolling, static, st,
                   h_move, rate, mass_scale, impulse_scale, s_rate, s_mass_scale, s_impulse_scale, max_push,
                   scale_a, scale_b, warm_start, pn, pt, pr, pnb, ptb, prb):
    """(C, CONTACT_COLUMNS) the terms of solver._pass that stay the same through a solve, for
    the biased passes: solver._colour_terms' bias and mass scaling, with the same arithmetic,
    found once a solve where _soft_pass found them every pass (the balls' masses do not
    change in a solve).

    In the same loop, the warm start (solve's step 2) on ``st``'s velocities, contact after
    contact in solve order (with ``warm_start``; else pn, pt, pr become 0), and the biased
    passes' impulses pnb, ptb, prb as copies of pn, pt, pr: the warm start reads the masses
    only, which the terms read too (a ball's w times its scale is the term's, scale 1 or not:
    w * 1.0 is w), and no term depends on a velocity."""
    m = len(a)
    ct = np.empty((m, CONTACT_COLUMNS))
    for k in range(m):
        p = a[k]
        q = b[k]
        s = separation[k]
        if s > 0.0:
            bias = s * (1.0 / h_move)
            ms = 1.0
            im = 0.0
        elif static[k] >= 0:
            bias = max(s_mass_scale * s_rate * s, 0.0 - max_push)
            ms = s_mass_scale
            im = s_impulse_scale
        else:
            bias = max(mass_scale * rate * s, 0.0 - max_push)
            ms = mass_scale
            im = impulse_scale
        wa = st[p, W]
        wb = st[q, W]
        ia = st[p, INV_I]
        ib = st[q, INV_I]
        m_n = mass_n[k]
        m_t = mass_t[k]
        m_r = mass_r[k]
        if (scale_a[k] != 1.0 or scale_b[k] != 1.0):
            kra = ra[k]
            krb = rb[k]
            wa = wa * scale_a[k]
            wb = wb * scale_b[k]
            ia = ia * scale_a[k]
            ib = ib * scale_b[k]
            k_n = wa + wb
            k_t = k_n + (ia * (kra * kra) + ib * (krb * krb))
            k_r = ia + ib
            m_n = 1.0 / k_n if k_n > 0 else 0.0
            m_t = 1.0 / k_t if k_t > 0 else 0.0
            m_r = 1.0 / k_r if k_r > 0 else 0.0
        ct[k, C_NX] = nx[k]
        ct[k, C_NY] = ny[k]
        ct[k, C_ARM_A] = ra[k]
        ct[k, C_ARM_B] = rb[k]
        ct[k, C_BIAS] = bias
        ct[k, C_MS] = ms
        ct[k, C_IM] = im
        ct[k, C_WA] = wa
        ct[k, C_WB] = wb
        ct[k, C_IA] = ia
        ct[k, C_IB] = ib
        ct[k, C_MN] = m_n
        ct[k, C_MT] = m_t
        ct[k, C_MR] = m_r
        ct[k, C_FR] = friction[k]
        ct[k, C_RL] = rolling[k]
        if warm_start:
            kpn = pn[k]
            kpt = pt[k]
            kpr = pr[k]
            jx = kpn * nx[k] - kpt * ny[k]
            jy = kpn * ny[k] + kpt * nx[k]
            st[p, V_X] = st[p, V_X] + jx * wa
            st[p, V_Y] = st[p, V_Y] + jy * wa
            st[q, V_X] = st[q, V_X] - jx * wb
            st[q, V_Y] = st[q, V_Y] - jy * wb
            st[p, SPIN] = st[p, SPIN] + (kpr - ra[k] * kpt) * ia
            st[q, SPIN] = st[q, SPIN] + (0.0 - kpr - rb[k] * kpt) * ib
        else:
            kpn = 0.0
            kpt = 0.0
            kpr = 0.0
            pn[k] = 0.0
            pt[k] = 0.0
            pr[k] = 0.0
        pnb[k] = kpn
        ptb[k] = kpt
        prb[k] = kpr
    return ct


@njit(cache=True)
def _soft_pass(lo, hi, a, b, ct, pn, pt, pr, st):
    """solver._pass over the contacts lo:hi, one contact after another, on the balls' packed
    state ``st`` and the contacts' packed terms ``ct`` (solve): the biased passes' terms
    (_contact_terms) or the relax passes' (_relax_normals: no bias, ms 1, im 0, which is the
    same arithmetic as solver._pass without the bias)."""
    # The indices as uint64: numba wraps a signed index that is negative, a test and an add
    # an index (a third of the loop's instructions), and a uint64 cannot be negative.
    for kk in range(lo, hi):
        k = np.uint64(kk)
        p = np.uint64(a[k])
        q = np.uint64(b[k])
        knx = ct[k, C_NX]
        kny = ct[k, C_NY]
        wa = ct[k, C_WA]
        wb = ct[k, C_WB]
        ia = ct[k, C_IA]
        ib = ct[k, C_IB]
        vn = (st[p, V_X] - st[q, V_X]) * knx + (st[p, V_Y] - st[q, V_Y]) * kny
        old = pn[k]
        new = max(old - ct[k, C_MN] * (ct[k, C_MS] * vn + ct[k, C_BIAS]) - ct[k, C_IM] * old, 0.0)
        pn[k] = new
        p_n = new - old
        vax = st[p, V_X] + p_n * knx * wa
        vay = st[p, V_Y] + p_n * kny * wa
        vbx = st[q, V_X] - p_n * knx * wb
        vby = st[q, V_Y] - p_n * kny * wb
        sa = st[p, SPIN]
        sb = st[q, SPIN]
        kra = ct[k, C_ARM_A]
        krb = ct[k, C_ARM_B]
        vt = ((vay - vby) * knx - (vax - vbx) * kny) - sa * kra - sb * krb
        old = pt[k]
        limit = ct[k, C_FR] * new
        newt = min(max(old - vt * ct[k, C_MT], 0.0 - limit), limit)
        pt[k] = newt
        p_t = newt - old
        vax = vax - p_t * kny * wa
        vay = vay + p_t * knx * wa
        vbx = vbx + p_t * kny * wb
        vby = vby - p_t * knx * wb
        sa = sa - (kra * p_t) * ia
        sb = sb - (krb * p_t) * ib
        old = pr[k]
        limit = ct[k, C_RL] * new
        newr = min(max(old - ct[k, C_MR] * (sa - sb), 0.0 - limit), limit)
        pr[k] = newr
        p_r = newr - old
        sa = sa + p_r * ia
        sb = sb - p_r * ib
        st[p, V_X] = vax
        st[p, V_Y] = vay
        st[q, V_X] = vbx
        st[q, V_Y] = vby
        st[p, SPIN] = sa
        st[q, SPIN] = sb


@njit(cache=True)
def _relax_normals(a, b, nx, ny, ra, rb, static, st, ct):
    """The relax passes' terms in ``ct`` (solver._pass without the bias): the normals and
    friction's lever arms (m), a ball pair's line of centres at the moved positions where
    they are apart, with arms r_a s, r_b s splitting its length (s = |d| / (r_a + r_b)), else
    (nx, ny) and (ra, rb); bias 0, ms 1, im 0. They depend on the positions only, which the
    relax does not move."""
    m = len(a)
    for k in range(m):
        knx = nx[k]
        kny = ny[k]
        arm_a = ra[k]
        arm_b = rb[k]
        if static[k] < 0:
            p = a[k]
            q = b[k]
            dx = st[p, P_X] - st[q, P_X]
            dy = st[p, P_Y] - st[q, P_Y]
            length = np.sqrt(dx * dx + dy * dy)
            if length > 1e-12:
                knx = dx / length
                kny = dy / length
                split = length / (ra[k] + rb[k])
                arm_a = ra[k] * split
                arm_b = rb[k] * split
        ct[k, C_NX] = knx
        ct[k, C_NY] = kny
        ct[k, C_ARM_A] = arm_a
        ct[k, C_ARM_B] = arm_b
        ct[k, C_BIAS] = 0.0
        ct[k, C_MS] = 1.0
        ct[k, C_IM] = 0.0


@njit(cache=True)
def _root(parent, x):
    """The root of x in the union-find forest ``parent``, halving the path on the way."""
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@njit(cache=True)
def _islands_held(a, b, static, size):
    """solver.islands by union-find, and which islands the give-back and the energy guard
    leave alone: (label (size,) int64, each ball's island as its least index; held (size,)
    bool, by that index: the islands that touch a static, and the balls with no contact to
    another ball (alone: they neither give back nor gain, solve))."""
    # The larger root goes under the smaller, so label[i] <= i all along: one ascending pass
    # flattens the forest (label[label[i]] is flat by then).
    label = np.arange(size)
    for k in range(len(a)):
        if static[k] >= 0:
            continue
        x = _root(label, a[k])
        y = _root(label, b[k])
        if x < y:
            label[y] = x
        elif y < x:
            label[x] = y
    for i in range(size):
        label[i] = label[label[i]]
    # 1 an island with a pair, 2 one on a static
    mark = np.zeros(size, np.uint8)
    for k in range(len(a)):
        mark[label[a[k]]] |= 2 if static[k] >= 0 else 1
    held = np.empty(size, np.bool_)
    for i in range(size):
        held[i] = mark[i] != 1
    return label, held


def islands(a, b, static, size):
    """solver.islands, compiled: the labels of _islands_held's union-find (each ball's island as
    its least index, the same labels as numpy's fixed point of minima). A plain function over
    the kernel the solve compiles (the same signature), so nothing more to compile."""
    return _islands_held(a, b, static, size)[0]


@njit(cache=True)
def _energy_gained(label, held, st, keep, w, inv_i):
    """solver.energy_gained: the same islands (``label``, ``held``: _islands_held), sums over
    the balls in index order; the velocities ``st``'s, those before the warm start
    ``keep``'s (solve). Only the islands not held are summed, as only they can be marked: an
    island on a static never is, and a ball alone kept its velocities (no contact changed
    them), so its change is 0 (or NaN) and never above 0. Returns (gained (size,) bool,
    whether any is)."""
    size = st.shape[0]
    n = size - 1
    change = np.zeros(size)
    for i in range(n):
        x = label[i]
        if held[x]:
            continue
        mi = 1.0 / w[i] if w[i] > 0.0 else 0.0
        moment = 1.0 / inv_i[i] if inv_i[i] > 0.0 else 0.0
        vx = st[i, V_X]
        vy = st[i, V_Y]
        sp = st[i, SPIN]
        vx0 = keep[i, K_VX0]
        vy0 = keep[i, K_VY0]
        sp0 = keep[i, K_SPIN0]
        change[x] += 0.5 * (((vx * vx + vy * vy) - (vx0 * vx0 + vy0 * vy0)) * mi + (sp * sp - sp0 * sp0) * moment)
    gained = np.zeros(size, np.bool_)
    some = False
    for i in range(n):
        x = label[i]
        if change[x] > 0.0 and not held[x]:
            gained[i] = True
            some = True
    return gained, some


@njit(cache=True)
def _give_back_turn(a, b, nx, ny, static, ra, rb, scale_a, scale_b, pn_move, pt_move, pn, pt, keep,
                    st, h_move, label, held, gained, partial):
    """solver.give_back_turn, contact by contact in solve order (the islands ``label``,
    ``held``: _islands_held, the union-find the energy guard uses too), on the packed state
    ``st`` (solve): its positions are the moved ones (``keep``'s those before), its
    velocities change in place. With
    ``partial``, only the contacts of the (size,) bool ``gained`` balls give back (the energy
    guard's retry: the other islands keep what they ended their relax with, as solve_numpy's
    retry gives them the same give-back again); those islands touch no static
    (_energy_gained)."""
    m = len(a)
    if not partial:
        any_pair = False
        for k in range(m):
            if static[k] < 0 and scale_a[k] == 1.0 and scale_b[k] == 1.0:
                any_pair = True
                break
        if not any_pair:
            return
    c = np.zeros(m)
    for k in range(m):
        p = a[k]
        q = b[k]
        if static[k] >= 0 or scale_a[k] != 1.0 or scale_b[k] != 1.0 or held[label[p]]:
            continue
        if partial and not gained[p]:
            continue
        knx = nx[k]
        kny = ny[k]
        fx = keep[p, K_PX] - keep[q, K_PX]
        fy = keep[p, K_PY] - keep[q, K_PY]
        sx = pn_move[k] * knx - pt_move[k] * kny
        sy = pn_move[k] * kny + pt_move[k] * knx
        ux = st[p, V_X] - st[q, V_X]
        uy = st[p, V_Y] - st[q, V_Y]
        turn = (pn[k] * (fx * kny - fy * knx) + pt[k] * ((fx * knx + fy * kny) - (ra[k] + rb[k]))
                + h_move * (sx * uy - sy * ux))
        dx = st[p, P_X] - st[q, P_X]
        dy = st[p, P_Y] - st[q, P_Y]
        d2 = dx * dx + dy * dy
        c[k] = turn / d2 if d2 > 1e-24 else 0.0
    for k in range(m):
        if c[k] == 0.0:
            continue
        p = a[k]
        q = b[k]
        cx = c[k] * (st[p, P_Y] - st[q, P_Y])
        cy = c[k] * (st[q, P_X] - st[p, P_X])
        st[p, V_X] = st[p, V_X] + cx * st[p, W]
        st[p, V_Y] = st[p, V_Y] + cy * st[p, W]
        st[q, V_X] = st[q, V_X] - cx * st[q, W]
        st[q, V_Y] = st[q, V_Y] - cy * st[q, W]


@njit(cache=True)
def _impacts(a, b, nx, ny, base, ax, ay, ra, rb, mass_n, mass_t, restitution, friction, static,
            st, tau_max, threshold, touch_slop, max_passes):
    """Step 1 of solve, the impacts: passes over the contacts in solve order until none closes
    faster than the threshold (solver.solve_numpy's passes, contact by contact).

    A contact that closed slower than the threshold when it was last looked at closes as
    slowly until one of its balls moves: so a pass looks only at the contacts whose balls an
    impact has moved since (each ball's contacts are listed once), and gives the same hits in
    the same order as a pass over all of them. A cradle or a rain of balls needs dozens of
    passes, each of which used to read every contact of the world.

    The contacts to look at are bits, a word for 64 contacts: the first pass takes every
    contact in order; a later one finds the next contact by the lowest set bit of the
    first non-zero word (re-read after each contact, as a hit sets the bits of the
    contacts after it in this pass), so it visits the contacts in the order a scan of all
    of them would, without reading the rest (a rain of balls makes ~20 passes a call over
    ~4,000 contacts, visiting ~200 contacts each). ``bits`` holds this pass's words and the
    next one's, which swap places each pass (cur)."""
    m = len(a)
    size = st.shape[0]
    # each ball's contacts: slot[start[x] : start[x + 1]] (start is shifted one place while
    # it is filled, so that the cursors end as the starts)
    start = np.zeros(size + 2, np.int32)
    for k in range(m):
        start[a[k] + 2] += 1
        start[b[k] + 2] += 1
    for x in range(size):
        start[x + 2] += start[x + 1]
    slot = np.empty(2 * m, np.int32)
    for k in range(m):
        e = start[a[k] + 1]
        slot[e] = k
        start[a[k] + 1] = e + 1
        e = start[b[k] + 1]
        slot[e] = k
        start[b[k] + 1] = e + 1
    nw = (m + 63) >> 6
    bits = np.zeros(2 * nw, np.uint64)
    one = np.uint64(1)
    imp_n = np.zeros(m)
    imp_t = np.zeros(m)
    rest = size - 1
    for ps in range(max_passes):
        hits = 0
        cur = ps & 1
        lo = cur * nw
        hi = lo + nw
        wi = lo
        k = -1
        while True:
            if ps == 0:
                k += 1
                if k >= m:
                    break
            else:
                while wi < hi and bits[wi] == 0:
                    wi += 1
                if wi >= hi:
                    break
                word = bits[wi]
                bits[wi] = word & (word - one)
                k = ((wi - lo) << 6) + _LOW_BIT[((word & (~word + one)) * DE_BRUIJN) >> uint64(58)]
            p = a[k]
            q = b[k]
            knx = nx[k]
            kny = ny[k]
            rvx = st[p, V_X] - st[q, V_X]
            rvy = st[p, V_Y] - st[q, V_Y]
            vn = rvx * knx + rvy * kny
            if not -vn > threshold:     # most contacts: the depth is not needed
                continue
            depth = base[k] - ((st[p, P_X] - st[q, P_X]) * knx + (st[p, P_Y] - st[q, P_Y]) * kny)
            if not depth > -touch_slop:
                continue
            mx = knx
            my = kny
            split = 1.0
            if static[k] < 0:
                dx = st[p, P_X] - st[q, P_X]
                dy = st[p, P_Y] - st[q, P_Y]
                reach = ra[k] + rb[k]
                du = dx * rvx + dy * rvy
                uu = rvx * rvx + rvy * rvy
                disc = du * du - uu * (dx * dx + dy * dy - reach * reach)
                back = (du + np.sqrt(max(disc, 0.0))) / uu
                tau = min(max(back, 0.0), tau_max)
                tx = dx - tau * rvx
                ty = dy - tau * rvy
                length = np.sqrt(tx * tx + ty * ty)
                if length > 0.0:
                    mx = tx / length
                    my = ty / length
                    split = length / reach
            else:
                tau = min(max(depth / (0.0 - vn), 0.0), tau_max)
            vn_touch = (rvx - ax[k] * tau) * mx + (rvy - ay[k] * tau) * my
            p_n = max((1.0 + restitution[k]) * (0.0 - vn_touch) * mass_n[k], 0.0)
            imp_n[k] = imp_n[k] + p_n
            la = ra[k] * split
            lb = rb[k] * split
            vt = (rvy * mx - rvx * my) - st[p, SPIN] * la - st[q, SPIN] * lb
            old = imp_t[k]
            limit = friction[k] * imp_n[k]
            new = min(max(old - vt * mass_t[k], 0.0 - limit), limit)
            imp_t[k] = new
            p_t = new - old
            if p_n == 0.0 and p_t == 0.0:     # it changes nothing: not written, not counted
                continue
            hits += 1
            jx = p_n * mx - p_t * my
            jy = p_n * my + p_t * mx
            dvax = jx * st[p, W]
            dvay = jy * st[p, W]
            dvbx = jx * st[q, W]
            dvby = jy * st[q, W]
            dwa = (0.0 - la * p_t) * st[p, INV_I]
            dwb = (0.0 - lb * p_t) * st[q, INV_I]
            st[p, V_X] = st[p, V_X] + dvax
            st[p, V_Y] = st[p, V_Y] + dvay
            st[q, V_X] = st[q, V_X] - dvbx
            st[q, V_Y] = st[q, V_Y] - dvby
            st[p, SPIN] = st[p, SPIN] + dwa
            st[q, SPIN] = st[q, SPIN] + dwb
            st[p, P_X] = st[p, P_X] + dvax * tau
            st[p, P_Y] = st[p, P_Y] + dvay * tau
            st[q, P_X] = st[q, P_X] - dvbx * tau
            st[q, P_Y] = st[q, P_Y] - dvby * tau
            st[p, ANGLE] = st[p, ANGLE] + dwa * tau
            st[q, ANGLE] = st[q, ANGLE] + dwb * tau
            # The contacts of both balls see them move: those after this one in this pass
            # (its words: cur), the others (this one too) in the next (1 - cur; the first
            # pass's own words are cleared after it, as it reads none). The stand-in stays
            # at rest (w = 0) and its contacts wait only if it did not (a world gone NaN).
            for side in range(2):
                ball = p if side == 0 else q
                if ball == rest and st[ball, V_X] == 0.0 and st[ball, V_Y] == 0.0 and st[ball, P_X] == 0.0 \
                        and st[ball, P_Y] == 0.0:
                    continue
                for at in range(start[ball], start[ball + 1]):
                    c = slot[at]
                    bits[(cur ^ int64(c <= k)) * nw + (c >> 6)] |= one << uint64(c & 63)
        if hits == 0:
            break
        if ps == 0:
            bits[:nw] = 0


@njit(cache=True)
def solve(colour_start, a, b, nx, ny, base, separation, ax, ay, ra, rb, mass_n, mass_t, mass_r,
          restitution, friction, rolling, static, pn, pt, pr,
          px, py, vx, vy, spin, angle, w, inv_i,
          tau_max, h_move, threshold, touch_slop, max_passes, warm_start, iterations, relax_iterations,
          rate, mass_scale, impulse_scale, s_rate, s_mass_scale, s_impulse_scale, max_push, scale_a, scale_b):
    """solver.solve_numpy, contact by contact in the same order with the same arithmetic.

    The passes work on the balls' state packed a row a ball (``st``, columns V_X .. ANGLE):
    a contact reads and writes its two balls' rows, one or two cache lines each, where eight
    separate arrays were eight lines each."""
    m = len(a)
    size = len(px)
    colours = len(colour_start) - 1
    # _give_back_turn's flag as a value known only at run time: numba compiles a callee once
    # for each constant passed to it (it types the argument by its value); with True and False
    # it compiled twice (~1 s of the first launch), for no speed.
    yes = size >= 0
    no = not yes
    st = np.empty((size, BALL_COLUMNS))
    for e in range(size):
        st[e, V_X] = vx[e]
        st[e, V_Y] = vy[e]
        st[e, SPIN] = spin[e]
        st[e, P_X] = px[e]
        st[e, P_Y] = py[e]
        st[e, W] = w[e]
        st[e, INV_I] = inv_i[e]
        st[e, ANGLE] = angle[e]
    # 1. impacts
    _impacts(a, b, nx, ny, base, ax, ay, ra, rb, mass_n, mass_t, restitution, friction, static, st, tau_max,
             threshold, touch_slop, max_passes)
    # 2. warm start (in _contact_terms' loop), from the velocities kept here
    keep = np.empty((size, KEEP_COLUMNS))
    for e in range(size):
        keep[e, K_VX0] = st[e, V_X]
        keep[e, K_VY0] = st[e, V_Y]
        keep[e, K_SPIN0] = st[e, SPIN]
    # 3. soft passes with the bias, then their velocity change moves the positions; the
    # velocities and impulses go back to the warm start's (split impulses: the biased passes
    # work on copies pnb, ptb, prb of the impulses, the first two the move's for the give-back)
    pnb = np.empty(m)
    ptb = np.empty(m)
    prb = np.empty(m)
    ct = _contact_terms(a, b, nx, ny, separation, ra, rb, mass_n, mass_t, mass_r, friction, rolling, static, st,
                        h_move, rate, mass_scale, impulse_scale, s_rate, s_mass_scale, s_impulse_scale, max_push,
                        scale_a, scale_b, warm_start, pn, pt, pr, pnb, ptb, prb)
    for e in range(size):
        keep[e, K_VXW] = st[e, V_X]
        keep[e, K_VYW] = st[e, V_Y]
        keep[e, K_SPINW] = st[e, SPIN]
    for _ in range(iterations):
        for c in range(colours):
            _soft_pass(colour_start[c], colour_start[c + 1], a, b, ct, pnb, ptb, prb, st)
    for e in range(size):
        keep[e, K_PX] = st[e, P_X]
        keep[e, K_PY] = st[e, P_Y]
        st[e, P_X] = st[e, P_X] + h_move * (st[e, V_X] - keep[e, K_VX0])
        st[e, P_Y] = st[e, P_Y] + h_move * (st[e, V_Y] - keep[e, K_VY0])
        st[e, ANGLE] = st[e, ANGLE] + h_move * (st[e, SPIN] - keep[e, K_SPIN0])
        st[e, V_X] = keep[e, K_VXW]
        st[e, V_Y] = keep[e, K_VYW]
        st[e, SPIN] = keep[e, K_SPINW]
    # 4. relax; an island the warm start left with more kinetic energy is relaxed again
    # from before the warm start. Each attempt begins with the give-back of the turn. The
    # relax moves no ball, so its normals and friction's arms are found once.
    # The islands, for the give-back and the energy guard (one union-find for both: the
    # contacts do not change in a solve; held: on a static, or a ball alone, which has no
    # contact to give back along and keeps its velocities).
    label, held = _islands_held(a, b, static, size)
    _give_back_turn(a, b, nx, ny, static, ra, rb, scale_a, scale_b, pnb, ptb, pn, pt, keep, st, h_move,
                    label, held, np.zeros(0, np.bool_), no)
    _relax_normals(a, b, nx, ny, ra, rb, static, st, ct)
    for _ in range(relax_iterations):
        for c in range(colours):
            _soft_pass(colour_start[c], colour_start[c + 1], a, b, ct, pn, pt, pr, st)
    if warm_start:
        gained, some = _energy_gained(label, held, st, keep, w, inv_i)
        if some:
            # solve_numpy relaxes every island again, the others from where the first relax
            # began: they do the very same arithmetic again and end with the same bits, so
            # here only the gained islands' balls and contacts go again (a contact's two
            # balls share an island; a static's contact is never on a gained one).
            for e in range(size):
                if gained[e]:
                    st[e, V_X] = keep[e, K_VX0]
                    st[e, V_Y] = keep[e, K_VY0]
                    st[e, SPIN] = keep[e, K_SPIN0]
            # Their contacts as runs lo:hi of the solve order (a pass goes through the colours
            # one after another, so a run may span colours).
            run_lo = np.empty(m, np.int64)
            run_hi = np.empty(m, np.int64)
            runs = 0
            for k in range(m):
                if gained[a[k]]:
                    pn[k] = 0.0
                    pt[k] = 0.0
                    pr[k] = 0.0
                    if runs > 0 and run_hi[runs - 1] == k:
                        run_hi[runs - 1] = k + 1
                    else:
                        run_lo[runs] = k
                        run_hi[runs] = k + 1
                        runs += 1
            # The give-back again, from the state kept (solve_numpy's retry gives the other
            # islands the same one again: their velocities and impulses are the first's).
            _give_back_turn(a, b, nx, ny, static, ra, rb, scale_a, scale_b, pnb, ptb, pn, pt, keep, st,
                            h_move, label, held, gained, yes)
            for _ in range(relax_iterations):
                for r in range(runs):
                    _soft_pass(run_lo[r], run_hi[r], a, b, ct, pn, pt, pr, st)
    for e in range(size):
        vx[e] = st[e, V_X]
        vy[e] = st[e, V_Y]
        spin[e] = st[e, SPIN]
        px[e] = st[e, P_X]
        py[e] = st[e, P_Y]
        angle[e] = st[e, ANGLE]
    px[size - 1] = 0.0
    py[size - 1] = 0.0
    vx[size - 1] = 0.0
    vy[size - 1] = 0.0
    spin[size - 1] = 0.0
    angle[size - 1] = 0.0


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
def sweep(prev, pos, vel, radius, restitution, friction, ccd_fraction, resting_speed,
          ax, ay, bx, by, seg_radius, snx, sny, srest, sfric, box, polygon):
    """collide.sweep, in place on ``pos`` and ``vel``: balls that moved more than
    ccd_fraction of their radius are swept from ``prev`` against every capsule whose box
    meets the box of the move, except polygon edges it starts on the inner side of; at the
    first touch (the lowest-numbered capsule among equal times) a ball stops and its
    velocity responds. A touch at t = 0 counts only if the centre's path crosses the core
    segment. Returns (fast ball indices, (F, 2) touch
    points, NaN where no touch)."""
    n = pos.shape[0]
    m = len(ax)
    fast = np.empty(n, np.int64)        # room for every ball: one pass, cut to size at the end
    hits = np.empty((n, 2))
    f = 0
    for a in range(n):
        mx = pos[a, 0] - prev[a, 0]
        my = pos[a, 1] - prev[a, 1]
        if not (np.sqrt(mx * mx + my * my) > ccd_fraction * radius[a]):
            continue
        fast[f] = a
        hits[f, 0] = np.nan
        hits[f, 1] = np.nan
        f += 1
        r = radius[a]
        lox = min(prev[a, 0], pos[a, 0]) - r
        hix = max(prev[a, 0], pos[a, 0]) + r
        loy = min(prev[a, 1], pos[a, 1]) - r
        hiy = max(prev[a, 1], pos[a, 1]) + r
        best = np.inf
        hit = -1
        for s in range(m):
            if not (lox <= box[s, 2] and hix >= box[s, 0] and loy <= box[s, 3] and hiy >= box[s, 1]):
                continue
            if polygon[s] >= 0 and (bx[s] - ax[s]) * (prev[a, 1] - ay[s]) - (by[s] - ay[s]) * (prev[a, 0] - ax[s]) > 0:
                continue
            t = _swept(prev[a, 0], prev[a, 1], r, mx, my, ax[s], ay[s], bx[s], by[s], seg_radius[s])
            if t == 0.0:
                # geometry.segment_intersections(prev, pos, a, b): does the centre's path cross?
                sx = bx[s] - ax[s]
                sy = by[s] - ay[s]
                qx = ax[s] - prev[a, 0]
                qy = ay[s] - prev[a, 1]
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
        tx = prev[a, 0] + mx * best
        ty = prev[a, 1] + my * best
        dx = bx[s] - ax[s]
        dy = by[s] - ay[s]
        wd = (tx - ax[s]) * dx + (ty - ay[s]) * dy
        dd = dx * dx + dy * dy
        u = min(max(wd, 0.0), dd) / max(dd, TINY)
        ddx = tx - (ax[s] + u * dx)
        ddy = ty - (ay[s] + u * dy)
        dist = np.sqrt(ddx * ddx + ddy * ddy)
        came_from = dx * (prev[a, 1] - ay[s]) - dy * (prev[a, 0] - ax[s])
        if dist > 1e-12:
            nx = ddx / dist
            ny = ddy / dist
        else:
            sign = 1.0 if came_from >= 0 else -1.0
            nx = sign * snx[s]
            ny = sign * sny[s]
        pos[a, 0] = tx
        pos[a, 1] = ty
        v0 = vel[a, 0]
        v1 = vel[a, 1]
        vn = v0 * nx + v1 * ny
        e = max(restitution[a], srest[s])
        if not (-vn > resting_speed):
            e = 0.0
        dvn = -(1.0 + e) * vn if vn < 0 else 0.0
        tx_ = v0 - nx * vn
        ty_ = v1 - ny * vn
        vt = np.sqrt(tx_ * tx_ + ty_ * ty_)
        mu = np.sqrt(friction[a] * sfric[s])
        keep = max(0.0, 1.0 - mu * dvn / vt) if vt > 0 else 1.0
        vel[a, 0] = nx * (vn + dvn) + tx_ * keep
        vel[a, 1] = ny * (vn + dvn) + ty_ * keep
        hits[f - 1, 0] = tx
        hits[f - 1, 1] = ty
    return fast[:f].copy(), hits[:f].copy()


# The integrators of game.physics.integrators, for forces that are the same for every ball at every
# moment but drag: a = g - drag v. Each does the arithmetic of its numpy stepper in the same
# order, so the two agree to the last bit (tests/test_accel.py checks it). Each steps every
# ball in place: (pos, vel, gx, gy, drag, h).


@njit(cache=True)
def _acc(v, g, drag):
    """a = g - drag v, as Forces.acceleration computes it (no drag term when drag is 0)."""
    if drag != 0.0:
        return g - drag * v
    return g


@njit(cache=True)
def euler_uniform(pos, vel, gx, gy, drag, h):
    """integrators.euler: y + h f(y)."""
    for a in range(pos.shape[0]):
        for d in range(2):
            g = gx if d == 0 else gy
            v = vel[a, d]
            pos[a, d] = pos[a, d] + h * v
            vel[a, d] = v + h * _acc(v, g, drag)


@njit(cache=True)
def semi_implicit_uniform(pos, vel, gx, gy, drag, h):
    """integrators.semi_implicit_euler: the new velocity moves the ball."""
    for a in range(pos.shape[0]):
        for d in range(2):
            g = gx if d == 0 else gy
            v1 = vel[a, d] + h * _acc(vel[a, d], g, drag)
            pos[a, d] = pos[a, d] + h * v1
            vel[a, d] = v1


@njit(cache=True)
def verlet_uniform(pos, vel, gx, gy, drag, h):
    """integrators.velocity_verlet."""
    for a in range(pos.shape[0]):
        for d in range(2):
            g = gx if d == 0 else gy
            v = vel[a, d]
            a0 = _acc(v, g, drag)
            pos[a, d] = pos[a, d] + h * v + (0.5 * h * h) * a0
            a1 = _acc(v + h * a0, g, drag)
            vel[a, d] = v + (0.5 * h) * (a0 + a1)


@njit(cache=True)
def rk4_uniform(pos, vel, gx, gy, drag, h):
    """integrators.rk4: slopes (v, a(v)) at y, y + h/2 k1, y + h/2 k2, y + h k3."""
    half = 0.5 * h
    sixth = h / 6.0
    for a in range(pos.shape[0]):
        for d in range(2):
            g = gx if d == 0 else gy
            x = pos[a, d]
            v = vel[a, d]
            k1v = _acc(v, g, drag)
            v2 = v + half * k1v
            k2v = _acc(v2, g, drag)
            v3 = v + half * k2v
            k3v = _acc(v3, g, drag)
            v4 = v + h * k3v
            k4v = _acc(v4, g, drag)
            pos[a, d] = x + sixth * (v + 2.0 * (v2 + v3) + v4)
            vel[a, d] = v + sixth * (k1v + 2.0 * (k2v + k3v) + k4v)


UNIFORM_STEPPERS = {"euler": euler_uniform, "semi-implicit": semi_implicit_uniform,
                    "verlet": verlet_uniform, "rk4": rk4_uniform}

# The same steppers under every force (springs, the grab, attractors): game.physics.compiled.forces.
from game.physics.compiled.forces import FORCE_STEPPERS  # noqa: E402
from game.physics.compiled.forces import warm_up as _warm_up_forces  # noqa: E402


# What each compiling child warms (game.physics.compiled.loader.COMPILE_PARTS, one child each), balanced by the
# cold compile of each kernel with its helpers in a fresh process (numba 0.68, this project's
# 2-core machine, CPU s): solve 14.3, prepare_contacts 7.1, ball_contacts 6.4, the force
# steppers 3.6, sweep 2.5, static_contacts 1.1, the uniform steppers 0.9, static_geometry 0.6
# (and the ball stamper 0.4 the first child loads too): about 18.5 s a part, where the split
# before (candidates, statics, steppers and sweep | prepare and solve) was 17.5 | 22 s.
WARM_UP_PARTS = {"prepare": ("prepare_contacts", "ball_contacts", "force_steppers", "static_geometry"),
                 "solve": ("solve", "sweep", "static_contacts", "uniform_steppers")}


def warm_up(part=None):
    """Compile (or load from the cache) the kernels on a tiny problem: all of them, or the
    kernels one part of ``game.physics.compiled.loader.COMPILE_PARTS`` names in WARM_UP_PARTS, so that two
    processes can fill numba's cache at once. Every kernel is called with the argument types
    the game gives it (one signature each: another would be a compile the game stalls on)."""
    if part not in (None,) + COMPILE_PARTS:
        raise ValueError(f"warm_up: no part {part!r}")
    names = [name for kernels in WARM_UP_PARTS.values() for name in kernels] if part is None else WARM_UP_PARTS[part]
    px = np.array([0.0, 0.5, 3.0])
    py = np.array([0.0, 0.0, 0.0])
    r = np.array([0.3, 0.3, 0.3])
    i, j = np.array([0], np.int64), np.array([1], np.int64)    # the one pair ball_contacts finds here
    nx = np.ones(len(i))
    ny = np.zeros(len(i))
    depth = np.zeros(len(i))
    a = np.array([-5.0, 1.0])
    b = np.array([5.0, 1.0])
    start = np.zeros(49, np.int64)
    start[1:] = 1
    pos = np.stack((px, py), axis=1)
    vel = np.zeros((3, 2))
    m = len(i)
    z = np.zeros(m)
    ext = np.zeros(4)

    def uniform_steppers():
        for stepper in UNIFORM_STEPPERS.values():
            stepper(pos, vel, 0.0, -9.81, 0.0, 1 / 240)

    calls = {
        "ball_contacts": lambda: ball_contacts(px, py, r, np.zeros(3), 1.0, -2.0, -2.0, 8, 6),
        "static_contacts": lambda: static_contacts(
            px, py, px, py, r, np.zeros(3), 1.0, -2.0, -2.0, 8, 6, start, np.zeros(1, np.int64), a[:1], a[1:], b[:1],
            b[1:], np.zeros(1), np.zeros(1), np.ones(1), np.zeros(1, np.int64) - 1),
        "static_geometry": lambda: static_geometry(
            px, py, px, py, r, np.zeros(1, np.int64), np.zeros(1, np.int64), a[:1], a[1:], b[:1], b[1:], np.zeros(1),
            np.ones(1), np.zeros(1), np.zeros(1, np.int64) - 1),
        "prepare_contacts": lambda: prepare_contacts(
            3, i, j, i[:0], i[:0], z[:0], z[:0], z[:0], ext, ext, ext, ext, ext, ext, ext, ext, np.append(r, 0.0),
            np.arange(3), ext, ext, ext, z[:1], z[:1], z[:1], 1 / 480, 1e-9, 1 << 31, i[:0], z[:0], z[:0], z[:0], 0.5),
        "solve": lambda: solve(
            np.array([0, m]), i, j, nx, ny, depth, z, z, z, z, z, z, z, z, z, z, z, j, z.copy(), z.copy(), z.copy(),
            ext.copy(), ext.copy(), ext.copy(), ext.copy(), ext.copy(), ext.copy(), ext.copy(), ext.copy(), 1 / 240,
            1 / 480, 0.5, 1e-9, 4, True, 1, 1, 9.0, 0.9, 0.05, 9.0, 0.9, 0.05, 3.0, z + 1.0, z + 1.0),
        "uniform_steppers": uniform_steppers,
        "force_steppers": _warm_up_forces,
        "sweep": lambda: sweep(
            pos - 1.0, pos, vel, r, r, r, 0.25, 0.25, a[:1], a[1:], b[:1], b[1:], np.zeros(1), np.zeros(1),
            np.ones(1), np.zeros(1), np.zeros(1), np.array([[-5.0, 1.0, 5.0, 1.0]]), np.zeros(1, np.int64) - 1),
    }
    for name in names:
        calls[name]()
