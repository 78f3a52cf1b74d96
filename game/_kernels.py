"""numba kernels behind ``game.accel`` (imported only by ``accel.load``).

Each mirrors numpy code and is checked against it in tests/test_accel.py:
``ball_contacts`` finds what ``collide.ball_pairs`` and the distance cull find (and builds
the whole contact list); ``static_contacts`` what ``ball_static_geometry`` gives;
``refresh`` is ``Contacts.refresh``; ``sweep`` is ``collide.sweep``; the ``*_uniform``
steppers are ``game.integrators`` under gravity and drag, bit for bit. ``respond`` does
what ``approach_speeds``, ``push_apart`` and ``resolve_velocities`` do, but solves the
contacts Gauss-Seidel style (one after another in a fixed order, so a run repeats exactly)
where numpy averages Jacobi passes.

Arrays indexed by ball have one more entry inside ``respond``: index N is the still
stand-in of the statics (inverse mass 0), so a ball-static contact is a pair (i, N).
"""
import math

import numpy as np
from numba import njit

TINY = np.finfo(np.float64).tiny    # as game.geometry.TINY


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
def ball_contacts(px, py, radius, restitution, friction, margin, cell, ox, oy, ncx, ncy,
                  ti, tj, tnx, tny, tdepth, trhs, trest, tfric, treach):
    """Ball pairs closer than their reach plus margins, followed by the given tail of
    contacts (t*): the arrays (i, j, nx, ny, depth, rhs, restitution, friction, reach) of
    collide.Contacts. A pair's restitution is the larger of its balls', its friction the
    geometric mean; rhs = reach.

    A counting sort bins the balls into the grid (cell >= the largest diameter; points are
    clipped into the grid as ``collide.Grid.cells`` does) and copies them in cell order.
    Each ball then meets the balls after it in its own cell and in four of its neighbours:
    cell (x, y + 1), which follows its own cell in the numbering, and the three cells
    (x + 1, y - 1 .. y + 1), which follow each other; so two runs of the sorted copy hold
    every neighbour a ball must meet, and every pair is met once.
    """
    n = len(px)
    size = ncx * ncy
    key = np.empty(n, np.int64)
    start = np.zeros(size + 1, np.int64)
    inv = 1.0 / cell
    for a in range(n):
        ix, iy = _cell(px[a], py[a], ox, oy, inv, ncx, ncy)
        key[a] = ix * ncy + iy
        start[key[a] + 1] += 1
    for c in range(size):
        start[c + 1] += start[c]
    order = np.empty(n, np.int64)
    fill = start[:-1].copy()
    for a in range(n):
        order[fill[key[a]]] = a
        fill[key[a]] += 1
    sx = np.empty(n)
    sy = np.empty(n)
    sr = np.empty(n)
    sm = np.empty(n)
    for p in range(n):
        a = order[p]
        sx[p] = px[a]
        sy[p] = py[a]
        sr[p] = radius[a]
        sm[p] = margin[a]

    # Write into room for a typical number of pairs; if a crowd needs more, count and go again.
    tail = len(ti)
    room = 8 * n + 64
    for attempt in range(2):
        oi = np.empty(room + tail, np.int64)
        oj = np.empty(room + tail, np.int64)
        onx = np.empty(room + tail)
        ony = np.empty(room + tail)
        odepth = np.empty(room + tail)
        oreach = np.empty(room + tail)
        k = 0
        for p in range(n):
            c = key[order[p]]
            for run in range(2):
                if run == 0:
                    lo, hi = p + 1, start[c + 2]
                else:
                    lo, hi = start[c + ncy - 1], start[c + ncy + 2]
                for q in range(lo, hi):
                    ddx = sx[p] - sx[q]
                    ddy = sy[p] - sy[q]
                    reach = sr[p] + sr[q]
                    limit = reach + sm[p] + sm[q]
                    d2 = ddx * ddx + ddy * ddy
                    if d2 >= limit * limit:
                        continue
                    if k < room:
                        dist = np.sqrt(d2)
                        oi[k] = order[p]
                        oj[k] = order[q]
                        if dist > 1e-12:
                            onx[k] = ddx / dist
                            ony[k] = ddy / dist
                        else:       # coincident centres part along +x
                            onx[k] = 1.0
                            ony[k] = 0.0
                        odepth[k] = reach - dist
                        oreach[k] = reach
                    k += 1
        if k <= room:
            break
        room = k
    total = k + tail
    orest = np.empty(total)
    ofric = np.empty(total)
    orhs = np.empty(total)
    for q in range(k):
        a = oi[q]
        b = oj[q]
        orest[q] = max(restitution[a], restitution[b])
        ofric[q] = np.sqrt(friction[a] * friction[b])
        orhs[q] = oreach[q]
    for q in range(tail):
        oi[k + q] = ti[q]
        oj[k + q] = tj[q]
        onx[k + q] = tnx[q]
        ony[k + q] = tny[q]
        odepth[k + q] = tdepth[q]
        orhs[k + q] = trhs[q]
        orest[k + q] = trest[q]
        ofric[k + q] = tfric[q]
        oreach[k + q] = treach[q]
    return (oi[:total], oj[:total], onx[:total], ony[:total], odepth[:total], orhs, orest, ofric,
            oreach[:total])


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


# Gathered contacts are laid out in this stride: neighbours in the solve order are then
# contacts of different balls (a ball's contacts lie together in the found order), so one
# contact's update need not wait for the last one's to reach memory.
INTERLEAVE = 16


@njit(cache=True)
def _interleaved(q, count):
    """Where gathered contact ``q`` of ``count`` goes: contacts q, q + S, q + 2S, ... next to
    each other (S = INTERLEAVE); a permutation of range(count)."""
    r = q % INTERLEAVE
    before = r * (count // INTERLEAVE) + min(r, count % INTERLEAVE)
    return before + q // INTERLEAVE


@njit(cache=True)
def respond(i, j, nx, ny, rhs, depth, reach, static, restitution, friction,
            pos, vel, prev, inv_mass, h, position_iterations, velocity_iterations, wall_passes,
            near_fraction, resting_speed, slop):
    """One sub-step's response, in place on ``pos`` and ``vel``; returns the approach speeds.

    1. approach speed of each touching contact (depth > -slop), before anything moves;
    2. the push: Gauss-Seidel passes over contacts near touching (depth > -near_fraction
       reach), ball-ball split by inverse mass, then the statics alone (walls last);
    3. each ball's velocity into its push is cancelled, by at most |push| / h;
    4. positional static friction against statics (|slide| <= friction * depth found);
    5. sequential impulses on touching contacts: restitution above resting_speed, Coulomb
       friction bounded by the normal impulse plus what the push already stopped.
    """
    n = pos.shape[0]
    m = len(i)
    px = np.zeros(n + 1)
    py = np.zeros(n + 1)
    vx = np.zeros(n + 1)
    vy = np.zeros(n + 1)
    w = np.zeros(n + 1)
    for a in range(n):
        px[a] = pos[a, 0]
        py[a] = pos[a, 1]
        vx[a] = vel[a, 0]
        vy[a] = vel[a, 1]
        w[a] = inv_mass[a]

    # 1. approach speeds; and how many contacts the push and the impulses will take
    approach = np.zeros(m)
    near = 0
    touching = 0
    walls = np.empty(m, np.int64)      # the ball-static contacts, listed
    nw = 0
    for k in range(m):
        a = i[k]
        b = j[k]
        if static[k]:
            walls[nw] = k
            nw += 1
        if w[a] + w[b] > 0.0:
            if depth[k] > -near_fraction * reach[k]:
                near += 1
            if depth[k] > -slop:
                touching += 1
        if depth[k] > -slop:
            approach[k] = -((vx[a] - vx[b]) * nx[k] + (vy[a] - vy[b]) * ny[k])

    # 2. push. The contacts near touching are gathered once into contiguous arrays with
    # each end's share of the push (in the INTERLEAVE order), so the passes run over just
    # them and never divide.
    pa = np.empty(near, np.int64)
    pb = np.empty(near, np.int64)
    pnx = np.empty(near)
    pny = np.empty(near)
    prhs = np.empty(near)
    pwa = np.empty(near)
    pwb = np.empty(near)
    q = 0
    for k in range(m):
        a = i[k]
        b = j[k]
        ws = w[a] + w[b]
        if depth[k] > -near_fraction * reach[k] and ws > 0.0:
            o = _interleaved(q, near)
            pa[o] = a
            pb[o] = b
            pnx[o] = nx[k]
            pny[o] = ny[k]
            prhs[o] = rhs[k]
            pwa[o] = w[a] / ws
            pwb[o] = w[b] / ws
            q += 1
    x0 = px.copy()
    y0 = py.copy()
    for _ in range(position_iterations):
        moved = False
        for q in range(near):
            a = pa[q]
            b = pb[q]
            d = prhs[q] - ((px[a] - px[b]) * pnx[q] + (py[a] - py[b]) * pny[q])
            if d > 0.0:
                px[a] += d * pwa[q] * pnx[q]
                py[a] += d * pwa[q] * pny[q]
                px[b] -= d * pwb[q] * pnx[q]
                py[b] -= d * pwb[q] * pny[q]
                moved = True
        if not moved:
            break
    for _ in range(wall_passes):
        for q in range(nw):
            k = walls[q]
            a = i[k]
            d = rhs[k] - (px[a] * nx[k] + py[a] * ny[k])
            if d > 0.0:
                px[a] += d * nx[k]
                py[a] += d * ny[k]

    # 3. cancel the velocity into each push
    for a in range(n):
        dx = px[a] - x0[a]
        dy = py[a] - y0[a]
        length = np.sqrt(dx * dx + dy * dy)
        if length > 0.0:
            ux = dx / length
            uy = dy / length
            along = vx[a] * ux + vy[a] * uy
            cancel = min(max(along, -length / h), 0.0)
            vx[a] -= ux * cancel
            vy[a] -= uy * cancel

    # 4. positional static friction: undo each sticking contact's slide, averaged per ball
    sx = np.zeros(n + 1)
    sy = np.zeros(n + 1)
    sticks = np.zeros(n + 1)
    for q in range(nw):
        k = walls[q]
        if depth[k] > 0.0 and friction[k] > 0.0:
            a = i[k]
            dx = px[a] - prev[a, 0]
            dy = py[a] - prev[a, 1]
            along = dx * nx[k] + dy * ny[k]
            dx -= nx[k] * along
            dy -= ny[k] * along
            length = np.sqrt(dx * dx + dy * dy)
            if length > 0.0 and length <= friction[k] * depth[k]:
                sx[a] += dx
                sy[a] += dy
                sticks[a] += 1.0
    for q in range(nw):
        a = i[walls[q]]
        if sticks[a] > 0.0:
            px[a] -= sx[a] / sticks[a]
            py[a] -= sy[a] / sticks[a]
            sticks[a] = 0.0            # once per ball

    # 5. impulses, on the touching contacts gathered into contiguous arrays as in 2.
    ta = np.empty(touching, np.int64)
    tb = np.empty(touching, np.int64)
    tnx = np.empty(touching)
    tny = np.empty(touching)
    eff = np.empty(touching)
    target = np.zeros(touching)
    stopped = np.empty(touching)
    mu = np.empty(touching)
    q = 0
    for k in range(m):
        a = i[k]
        b = j[k]
        ws = w[a] + w[b]
        if depth[k] > -slop and ws > 0.0:
            o = _interleaved(q, touching)
            ta[o] = a
            tb[o] = b
            tnx[o] = nx[k]
            tny[o] = ny[k]
            eff[o] = 1.0 / ws
            if approach[k] > resting_speed:
                target[o] = restitution[k] * approach[k]
            left = max(-((vx[a] - vx[b]) * nx[k] + (vy[a] - vy[b]) * ny[k]), 0.0)
            stopped[o] = max(max(approach[k], 0.0) - left, 0.0) * eff[o]
            mu[o] = friction[k]
            q += 1
    acc_n = np.zeros(touching)
    acc_t = np.zeros(touching)
    for _ in range(velocity_iterations):
        for q in range(touching):
            a = ta[q]
            b = tb[q]
            rx = vx[a] - vx[b]
            ry = vy[a] - vy[b]
            vn = rx * tnx[q] + ry * tny[q]
            vt = ry * tnx[q] - rx * tny[q]
            new_n = max(acc_n[q] + (target[q] - vn) * eff[q], 0.0)
            dn = new_n - acc_n[q]
            acc_n[q] = new_n
            limit = mu[q] * (new_n + stopped[q])
            new_t = min(max(acc_t[q] - vt * eff[q], -limit), limit)
            dt = new_t - acc_t[q]
            acc_t[q] = new_t
            ix = dn * tnx[q] - dt * tny[q]
            iy = dn * tny[q] + dt * tnx[q]
            vx[a] += ix * w[a]
            vy[a] += iy * w[a]
            vx[b] -= ix * w[b]
            vy[b] -= iy * w[b]

    for a in range(n):
        pos[a, 0] = px[a]
        pos[a, 1] = py[a]
        vel[a, 0] = vx[a]
        vel[a, 1] = vy[a]
    return approach


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
        if vx * mx + vy * my < 0 or dist == 0 or mm == 0:
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
    count = 0
    for a in range(n):
        mx = pos[a, 0] - prev[a, 0]
        my = pos[a, 1] - prev[a, 1]
        if np.sqrt(mx * mx + my * my) > ccd_fraction * radius[a]:
            count += 1
    fast = np.empty(count, np.int64)
    hits = np.full((count, 2), np.nan)
    f = 0
    for a in range(n):
        mx = pos[a, 0] - prev[a, 0]
        my = pos[a, 1] - prev[a, 1]
        if not (np.sqrt(mx * mx + my * my) > ccd_fraction * radius[a]):
            continue
        fast[f] = a
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
    return fast, hits


# The integrators of game.integrators, for forces that are the same for every ball at every
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


@njit(cache=True)
def refresh(pos, found_at, margin, i, j, nx, ny, rhs, depth):
    """Contacts.refresh with its margin check: if every ball is still within its margin of
    where the contacts were found, write each contact's depth at ``pos`` into ``depth`` and
    return True; else return False and leave ``depth`` alone (the contacts must be found
    again). Index N in ``j`` is the statics' still stand-in at the origin."""
    n = pos.shape[0]
    for a in range(n):
        dx = pos[a, 0] - found_at[a, 0]
        dy = pos[a, 1] - found_at[a, 1]
        if not (dx * dx + dy * dy < margin[a] * margin[a]):
            return False
    for k in range(len(i)):
        a = i[k]
        b = j[k]
        if b == n:
            depth[k] = rhs[k] - (pos[a, 0] * nx[k] + pos[a, 1] * ny[k])
        else:
            depth[k] = rhs[k] - ((pos[a, 0] - pos[b, 0]) * nx[k] + (pos[a, 1] - pos[b, 1]) * ny[k])
    return True


def warm_up():
    """Compile (or load from the cache) every kernel on a tiny problem."""
    px = np.array([0.0, 0.5, 3.0])
    py = np.array([0.0, 0.0, 0.0])
    r = np.array([0.3, 0.3, 0.3])
    ei = np.zeros(0, np.int64)
    e = np.zeros(0)
    i, j, nx, ny, depth, rhs, rest, fric, reach = ball_contacts(px, py, r, r, r, np.zeros(3), 1.0, -2.0, -2.0,
                                                              8, 6, ei, ei, e, e, e, e, e, e, e)
    a = np.array([-5.0, 1.0])
    b = np.array([5.0, 1.0])
    start = np.zeros(49, np.int64)
    start[1:] = 1
    static_contacts(px, py, px, py, r, np.zeros(3), 1.0, -2.0, -2.0, 8, 6, start, np.zeros(1, np.int64),
                    a[:1], a[1:], b[:1], b[1:], np.zeros(1), np.zeros(1), np.ones(1), np.zeros(1, np.int64) - 1)
    m = len(i)
    z = np.zeros(m)
    pos = np.stack((px, py), axis=1)
    respond(i, j, nx, ny, reach, depth, reach, np.zeros(m, np.bool_), z, z,
            pos, np.zeros((3, 2)), pos.copy(), np.ones(3), 1 / 240, 1, 1, 1, 0.05, 0.25, 1e-4)
    vel = np.zeros((3, 2))
    for stepper in UNIFORM_STEPPERS.values():
        stepper(pos, vel, 0.0, -9.81, 0.0, 1 / 240)
    refresh(pos, pos.copy(), np.ones(3), i, j, nx, ny, reach, depth.copy())
    box = np.array([[-5.0, 1.0, 5.0, 1.0]])
    sweep(pos - 1.0, pos, vel, r, r, r, 0.25, 0.25, a[:1], a[1:], b[:1], b[1:], np.zeros(1),
          np.zeros(1), np.ones(1), np.zeros(1), np.zeros(1), box, np.zeros(1, np.int64) - 1)
