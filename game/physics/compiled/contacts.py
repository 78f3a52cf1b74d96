"""Compiled twins of ``game.physics.contacts``: a sub-step's contacts, coloured and prepared.

``prepare_contacts`` is ``contacts.prepare_numpy`` (with ``_colour_contacts``, the twin of
``contacts.colour_contacts``), contact by contact where numpy takes all at once, to the same
bits (tests/test_solver.py).

Arrays indexed by ball have one more entry: index N is the still stand-in of the statics
(inverse mass 0), so a ball-static contact is a pair (i, N).
"""
import numpy as np
from numba import njit

from game.physics import bundles
from game.physics.bundles import ContactRows
from game.physics.compiled import collide, stamps
from game.physics.compiled.collide import _counting_order

FAR_RELATIVE = 1e-9                  # prepare_contacts: a pair whose squared distance exceeds
                                     # ((reach + slop) (1 + this))^2 cannot touch, whatever the rounding
HASH = np.uint64(0x9E3779B97F4A7C15)    # as game.physics.contacts._HASH


@njit(cache=True)
def _colour_contacts(a, b, n, priority):
    """(C,) colour of each contact: the twin of ``contacts.colour_contacts``, without its rounds.

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
def _touching_pairs(i, j, balls, params):
    """prepare_contacts' ball pairs (i, j) that touch (depth above -touch_slop): their balls,
    normals (at x - h_move v) and depths in (ti, tj, tnx, tny, tdepth)[:cp]; returns those and cp."""
    px, py, radius = balls.px, balls.py, balls.radius
    touch_slop = params.touch_slop
    ti, tj, tnx, tny, tdepth = _pair_rows(len(i))
    cp = 0
    for q in range(len(i)):
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
        _pair_row(balls, params.h_move, p, o, reach - dist, ti, tj, tnx, tny, tdepth, cp)
        cp += 1
    return ti, tj, tnx, tny, tdepth, cp


@njit(cache=True)
def _speculative_pairs(i, j, balls, params):
    """_touching_pairs for a set kept a tick: the pairs whose gap is under touch_slop +
    speculative + lookahead times their closing speed along their line of centres
    (contacts.speculative_reach)."""
    px, py, vx, vy, radius = balls.px, balls.py, balls.vx, balls.vy, balls.radius
    touch_slop, speculative, lookahead = params.touch_slop, params.speculative, params.lookahead
    ti, tj, tnx, tny, tdepth = _pair_rows(len(i))
    cp = 0
    for q in range(len(i)):
        p = i[q]
        o = j[q]
        dx = px[p] - px[o]
        dy = py[p] - py[o]
        reach = radius[p] + radius[o]
        rvx = vx[p] - vx[o]
        rvy = vy[p] - vy[o]
        far = (reach + touch_slop + speculative + lookahead * np.sqrt(rvx * rvx + rvy * rvy)) * (1.0 + FAR_RELATIVE)
        if dx * dx + dy * dy > far * far:
            continue
        dist = np.sqrt(dx * dx + dy * dy)
        closing = 0.0 - (rvx * dx + rvy * dy) / dist if dist > 0.0 else 0.0
        if not (reach - dist > 0.0 - (touch_slop + speculative + lookahead * max(closing, 0.0))):
            continue
        _pair_row(balls, params.h_move, p, o, reach - dist, ti, tj, tnx, tny, tdepth, cp)
        cp += 1
    return ti, tj, tnx, tny, tdepth, cp


@njit(cache=True)
def _pair_rows(m):
    """Room for m ball pairs' contact rows: balls (ti, tj), normal (tnx, tny), depth."""
    return np.empty(m, np.int64), np.empty(m, np.int64), np.empty(m), np.empty(m), np.empty(m)


@njit(cache=True, inline="always")
def _pair_row(balls, h_move, p, o, depth, ti, tj, tnx, tny, tdepth, cp):
    """Row cp of a ball pair's contact: balls p, o, the normal along their centres at x - h_move v
    (where the soft step moves them from; +x where they coincide), the depth."""
    px, py, vx, vy = balls.px, balls.py, balls.vx, balls.vy
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
    tdepth[cp] = depth


@njit(cache=True)
def prepare_contacts(i, j, touches, balls, statics, warm, params):
    """The compiled twin of ``game.physics.contacts.prepare_numpy`` (the same bundles in, the
    same ContactRows out), contact by contact. The canonical order is a merge of the two
    sorted lists by ball (ball ids grow with the index, so it is the order by key); the
    colours, the same rounds; the solve order, a counting sort by colour."""
    n = len(balls.ids)
    bi, s, snx, sny, sdepth = touches.ball, touches.static, touches.nx, touches.ny, touches.depth
    px, py, vx, vy, gx, gy, w, inv_i = balls.px, balls.py, balls.vx, balls.vy, balls.gx, balls.gy, balls.w, balls.inv_i
    radius, ids, rest, fric, roll = balls.radius, balls.ids, balls.restitution, balls.friction, balls.rolling
    st_rest, st_fric, st_roll = statics.restitution, statics.friction, statics.rolling
    old_key, old_n, old_t, old_r = warm.key, warm.pn, warm.pt, warm.pr
    h_move, static_key, support_cos = params.h_move, params.static_key, params.support_cos
    # Ball pairs that touch (or, kept a tick, may touch within it).
    if params.speculative > 0.0 or params.lookahead > 0.0:
        ti, tj, tnx, tny, tdepth, cp = _speculative_pairs(i, j, balls, params)
    else:
        ti, tj, tnx, tny, tdepth, cp = _touching_pairs(i, j, balls, params)
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
    # Colours: the rounds of contacts.colour_contacts.
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
    # Contact mass scaling (contacts.support_scales): the fixed point of minima of inverse
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
    # Moving walls' fields: zero here (contacts.wall_rows fills them where walls move).
    return ContactRows(a, b, static, key, order, colour_start, nx, ny, depth, base, separation, ax, ay, ra, rb,
                       mass_n, mass_t, mass_r, restitution, friction, rolling, pn, pt, pr, approach, scale_a, scale_b,
                       np.zeros(m), np.zeros(m), np.zeros(m), np.zeros(m), np.zeros(m), np.zeros(m))



@njit(cache=True)
def refresh_contacts(rows, held, balls, h_move, touch_slop):
    """The compiled twin of ``game.physics.contacts.refresh_numpy`` (a kept contact set at a later
    sub-step, in place), contact by contact with the same arithmetic."""
    a, b, nx, ny = rows.a, rows.b, rows.nx, rows.ny
    px, py, vx, vy, gx, gy = balls.px, balls.py, balls.vx, balls.vy, balls.gx, balls.gy
    for e in range(len(a)):
        A = a[e]
        B = b[e]
        depth = rows.base[e] - ((px[A] - px[B]) * nx[e] + (py[A] - py[B]) * ny[e])
        vn = (vx[A] - vx[B]) * nx[e] + (vy[A] - vy[B]) * ny[e]
        rows.depth[e] = depth
        rows.separation[e] = 0.0 - (depth + h_move * vn)
        rows.ax[e] = gx[A] - gx[B]
        rows.ay[e] = gy[A] - gy[B]
        if depth > -touch_slop:
            rows.approach[e] = 0.0 - vn
            rows.mass_n[e] = held[e, 0]
            rows.mass_t[e] = held[e, 1]
            rows.mass_r[e] = held[e, 2]
            rows.scale_a[e] = held[e, 3]
            rows.scale_b[e] = held[e, 4]
        else:
            rows.approach[e] = 0.0
            rows.mass_n[e] = 0.0
            rows.mass_t[e] = 0.0
            rows.mass_r[e] = 0.0
            rows.scale_a[e] = 1.0
            rows.scale_b[e] = 1.0
            rows.pn[e] = 0.0
            rows.pt[e] = 0.0
            rows.pr[e] = 0.0


@njit(cache=True)
def held_rows(rows):
    """contacts.held_rows: (C, 5) mass_n, mass_t, mass_r, scale_a, scale_b."""
    m = len(rows.a)
    out = np.empty((m, 5))
    for e in range(m):
        out[e, 0] = rows.mass_n[e]
        out[e, 1] = rows.mass_t[e]
        out[e, 2] = rows.mass_r[e]
        out[e, 3] = rows.scale_a[e]
        out[e, 4] = rows.scale_b[e]
    return out


# prepare_contacts links compiled.collide's _counting_order into itself, and reads the bundles.
stamps.depend_on(stamps.dispatchers(globals()), (collide, bundles))
