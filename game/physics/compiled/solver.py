"""Compiled twins of ``game.physics.solver``: the solve of one sub-step's contacts.

``solve`` is ``solver.solve_numpy``, contact by contact where numpy takes a colour at once,
with the same arithmetic in the same order (tests/test_solver.py): ``_impacts`` its passes
of impacts, ``_contact_terms`` and ``blocks.soft_pass`` its ``_colour_terms`` and ``_pass``,
``_give_back_turn`` its ``give_back_turn``, ``_islands_held`` its ``islands`` and
``_energy_gained`` its ``energy_gained``; ``keep_sides`` is ``solver.keep_sides``.

Arrays indexed by ball have one more entry inside ``solve``: index N is the still
stand-in of the statics (inverse mass 0), so a ball-static contact is a pair (i, N).
"""
import numpy as np
from numba import int64, njit, uint64

from game.physics import bundles
from game.physics.compiled import blocks as BK
from game.physics.compiled import collide as CK
from game.physics.compiled.blocks import (
    ANGLE, BALL_COLUMNS, C_ARM_A, C_ARM_B, C_BIAS, C_FR, C_IA, C_IB, C_IM, C_MN, C_MR, C_MS, C_MT, C_NX, C_NY, C_RL,
    C_WA, C_WB, INV_I, P_X, P_Y, SPIN, V_X, V_Y, W)
from game.physics.compiled import stamps

# The lowest set bit's place in a 64-bit word w: _LOW_BIT[((w & -w) * DE_BRUIJN) >> 58] (a de Bruijn
# sequence: each of the 64 powers of two lands on its own top six bits); numba's public API has
# no count of trailing zeros.
DE_BRUIJN = np.uint64(0x03F79D71B4CB0A89)
_LOW_BIT = np.array([0, 1, 48, 2, 57, 49, 28, 3, 61, 58, 50, 42, 38, 29, 17, 4, 62, 55, 59, 36, 53, 51, 43, 22, 45,
                     39, 33, 30, 24, 18, 12, 5, 63, 47, 56, 27, 60, 41, 37, 16, 54, 35, 52, 21, 44, 32, 23, 11, 46,
                     26, 40, 15, 34, 20, 31, 10, 25, 14, 19, 9, 13, 8, 7, 6], np.int64)
# solve's packed ball state (the columns of st, one ball a row) and contact terms (the C_
# columns of the blocks' rows): compiled.blocks.
# solve's per-ball keep (size, KEEP_COLUMNS): the velocities after the impacts (before the
# warm start: the move's start and the energy guard's), after the warm start (what the
# biased passes' velocities go back to) and the positions before the move (the give-back's).
K_VX0, K_VY0, K_SPIN0, K_VXW, K_VYW, K_SPINW, K_PX, K_PY = range(8)
KEEP_COLUMNS = 8


@njit(cache=True)
def _contact_terms(contacts, st, params, pnb, ptb, prb, first, count):
    """The terms of solver._pass that stay the same through a solve, for the biased passes:
    solver._colour_terms' bias and mass scaling, with the same arithmetic, found once a solve
    where solver._pass finds them every pass (the balls' masses do not change in a solve).
    Written straight into the blocks (compiled.blocks.plan's ``first``, ``count``) the passes
    take: returns their rows (B, BLOCK_COLUMNS * LANES), and which lanes are contacts with the
    statics and those lanes' wall velocities (compiled.blocks.soft_pass's ``wall``, ``moving``).

    In the same loop, the warm start (solve's step 2) on ``st``'s velocities, contact after
    contact in solve order (with ``warm_start``; else pn, pt, pr become 0), and the biased
    passes' impulses pnb, ptb, prb as copies of pn, pt, pr: the warm start reads the masses
    only, which the terms read too (a ball's w times its scale is the term's, scale 1 or not:
    w * 1.0 is w), and no term depends on a velocity. ``contacts``: bundles.ContactRows (its
    pn, pt, pr the warm start's); ``params``: bundles.SolveParams."""
    cr, sp = contacts, params
    a, b, nx, ny, separation, ra, rb = cr.a, cr.b, cr.nx, cr.ny, cr.separation, cr.ra, cr.rb
    mass_n, mass_t, mass_r, friction, rolling, static = cr.mass_n, cr.mass_t, cr.mass_r, cr.friction, cr.rolling, cr.static
    scale_a, scale_b, pn, pt, pr = cr.scale_a, cr.scale_b, cr.pn, cr.pt, cr.pr
    h_move, rate, mass_scale, impulse_scale = sp.h_move, sp.rate, sp.mass_scale, sp.impulse_scale
    s_rate, s_mass_scale, s_impulse_scale = sp.s_rate, sp.s_mass_scale, sp.s_impulse_scale
    max_push, warm_start = sp.max_push, sp.warm_start
    blocks = len(first)
    rows = np.empty((blocks, BK.BLOCK_COLUMNS * BK.LANES))
    wall = np.zeros((blocks, BK.LANES), np.bool_)
    moving = np.zeros((blocks, 3 * BK.LANES))
    # Contact after contact in solve order (the warm start's order): block after block, lane
    # after lane. The lanes past a colour's last contact are zeros.
    for j in range(blocks):
        f = rows[j]
        for i in range(BK.LANES):
            if i >= count[j]:
                for c in range(BK.BLOCK_COLUMNS):
                    f[c * BK.LANES + i] = 0.0
                continue
            k = first[j] + i
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
            f[C_NX * BK.LANES + i] = nx[k]
            f[C_NY * BK.LANES + i] = ny[k]
            f[C_ARM_A * BK.LANES + i] = ra[k]
            f[C_ARM_B * BK.LANES + i] = rb[k]
            f[C_BIAS * BK.LANES + i] = bias
            f[C_MS * BK.LANES + i] = ms
            f[C_IM * BK.LANES + i] = im
            f[C_WA * BK.LANES + i] = wa
            f[C_WB * BK.LANES + i] = wb
            f[C_IA * BK.LANES + i] = ia
            f[C_IB * BK.LANES + i] = ib
            f[C_MN * BK.LANES + i] = m_n
            f[C_MT * BK.LANES + i] = m_t
            f[C_MR * BK.LANES + i] = m_r
            f[C_FR * BK.LANES + i] = friction[k]
            f[C_RL * BK.LANES + i] = rolling[k]
            if static[k] >= 0:
                wall[j, i] = True
                moving[j, i] = cr.wvx[k]
                moving[j, BK.LANES + i] = cr.wvy[k]
                moving[j, 2 * BK.LANES + i] = cr.wspin[k]
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
    return rows, wall, moving


@njit(cache=True)
def _relax_normals(a, b, nx, ny, ra, rb, static, st, first, count, rows):
    """The relax passes' terms in the blocks' ``rows`` (solver._pass without the bias): the
    normals and friction's lever arms (m), a ball pair's line of centres at the moved positions
    where they are apart, with arms r_a s, r_b s splitting its length (s = |d| / (r_a + r_b)),
    else (nx, ny) and (ra, rb); bias 0, ms 1, im 0. They depend on the positions only, which
    the relax does not move."""
    for j in range(len(first)):
        f = rows[j]
        for i in range(count[j]):
            k = first[j] + i
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
            f[C_NX * BK.LANES + i] = knx
            f[C_NY * BK.LANES + i] = kny
            f[C_ARM_A * BK.LANES + i] = arm_a
            f[C_ARM_B * BK.LANES + i] = arm_b
            f[C_BIAS * BK.LANES + i] = 0.0
            f[C_MS * BK.LANES + i] = 1.0
            f[C_IM * BK.LANES + i] = 0.0


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
def _give_back_turn(contacts, pn_move, pt_move, keep, st, h_move, label, held, gained, partial):
    """solver.give_back_turn, contact by contact in solve order (the islands ``label``,
    ``held``: _islands_held, the union-find the energy guard uses too), on the packed state
    ``st`` (solve): its positions are the moved ones (``keep``'s those before), its
    velocities change in place. With
    ``partial``, only the contacts of the (size,) bool ``gained`` balls give back (the energy
    guard's retry: the other islands keep what they ended their relax with, as solve_numpy's
    retry gives them the same give-back again); those islands touch no static
    (_energy_gained). ``contacts``: bundles.ContactRows (its pn, pt the warm start's)."""
    cr = contacts
    a, b, nx, ny, static, ra, rb, pn, pt = cr.a, cr.b, cr.nx, cr.ny, cr.static, cr.ra, cr.rb, cr.pn, cr.pt
    scale_a, scale_b = cr.scale_a, cr.scale_b
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
def _impacts(contacts, st, params):
    """Step 1 of solve, the impacts: passes over the contacts in solve order until none closes
    faster than the threshold, within the budget of passes x colours (solver.solve_numpy's
    passes, contact by contact).

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
    next one's, which swap places each pass (cur). ``contacts``: bundles.ContactRows;
    ``params``: bundles.SolveParams."""
    cr = contacts
    a, b, nx, ny, base, ax, ay, ra, rb = cr.a, cr.b, cr.nx, cr.ny, cr.base, cr.ax, cr.ay, cr.ra, cr.rb
    mass_n, mass_t, restitution, friction = cr.mass_n, cr.mass_t, cr.restitution, cr.friction
    wvx, wvy, kick = cr.wvx, cr.wvy, cr.kick
    tau_max, threshold, touch_slop = params.tau_max, params.threshold, params.touch_slop
    # at most params.impact_budget colours in all (solver.IMPACT_BUDGET), as solve_numpy
    colours = len(cr.colour_start) - 1
    max_passes = min(params.max_passes, max(1, params.impact_budget // max(colours, 1)))
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
    imp_n = cr.jn           # the impacts' impulses, kept (solver.solve_numpy)
    imp_t = cr.jt
    imp_n[:] = 0.0
    imp_t[:] = 0.0
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
            wall = q == rest           # the other body: a wall at its velocity (solve_numpy): b is N
            if wall:
                rvx = st[p, V_X] - wvx[k]
                rvy = st[p, V_Y] - wvy[k]
            else:
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
            if not wall:
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
            if kick[k] > 0.0:           # a bumper: it leaves at least kick m/s away
                p_n = max(p_n, (kick[k] - vn_touch) * mass_n[k])
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
            st[p, SPIN] = st[p, SPIN] + dwa
            st[p, P_X] = st[p, P_X] + dvax * tau
            st[p, P_Y] = st[p, P_Y] + dvay * tau
            st[p, ANGLE] = st[p, ANGLE] + dwa * tau
            if not wall:
                st[q, V_X] = st[q, V_X] - dvbx
                st[q, V_Y] = st[q, V_Y] - dvby
                st[q, SPIN] = st[q, SPIN] + dwb
                st[q, P_X] = st[q, P_X] - dvbx * tau
                st[q, P_Y] = st[q, P_Y] - dvby * tau
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
def solve(contacts, balls, params):
    """The compiled twin of ``game.physics.solver.solve_numpy`` (the same bundles: ContactRows,
    BallColumns written in place, SolveParams), contact by contact in the same order with the
    same arithmetic.

    The passes work on the balls' state packed a row a ball (``st``, columns V_X .. ANGLE):
    a contact reads and writes its two balls' rows, one or two cache lines each, where eight
    separate arrays were eight lines each."""
    cr = contacts
    colour_start, a, b, nx, ny, ra, rb, static = cr.colour_start, cr.a, cr.b, cr.nx, cr.ny, cr.ra, cr.rb, cr.static
    pn, pt, pr = cr.pn, cr.pt, cr.pr
    px, py, vx, vy, spin, angle, w, inv_i = (balls.px, balls.py, balls.vx, balls.vy, balls.spin, balls.angle,
                                             balls.w, balls.inv_i)
    h_move, warm_start = params.h_move, params.warm_start
    iterations, relax_iterations = params.iterations, params.relax_iterations
    m = len(a)
    size = len(px)
    # _give_back_turn's flag as a value known only at run time: numba compiles a callee once
    # for each constant passed to it (it types the argument by its value); with True and False
    # it compiled twice (docs/performance.md, issue 23), for no speed.
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
    _impacts(contacts, st, params)
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
    # The passes take a colour's contacts a block at a time (compiled.blocks: the same bits as
    # contact after contact, the lanes of a block in one vectorised loop).
    first, count = BK.plan(colour_start)
    rows, wall, moving = _contact_terms(contacts, st, params, pnb, ptb, prb, first, count)
    everyone = np.zeros(0, np.bool_)
    for e in range(size):
        keep[e, K_VXW] = st[e, V_X]
        keep[e, K_VYW] = st[e, V_Y]
        keep[e, K_SPINW] = st[e, SPIN]
    for _ in range(iterations):
        BK.soft_pass(first, count, a, b, rows, wall, moving, pnb, ptb, prb, st, everyone)
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
    _give_back_turn(contacts, pnb, ptb, keep, st, h_move, label, held, np.zeros(0, np.bool_), no)
    _relax_normals(a, b, nx, ny, ra, rb, static, st, first, count, rows)
    for _ in range(relax_iterations):
        BK.soft_pass(first, count, a, b, rows, wall, moving, pn, pt, pr, st, everyone)
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
            for k in range(m):
                if gained[a[k]]:
                    pn[k] = 0.0
                    pt[k] = 0.0
                    pr[k] = 0.0
            # The give-back again, from the state kept (solve_numpy's retry gives the other
            # islands the same one again: their velocities and impulses are the first's).
            _give_back_turn(contacts, pnb, ptb, keep, st, h_move, label, held, gained, yes)
            # Their contacts (a pass goes through the colours one after another, and within a
            # colour the gained ones are solved as the others are: apart).
            for _ in range(relax_iterations):
                BK.soft_pass(first, count, a, b, rows, wall, moving, pn, pt, pr, st, gained)
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
def keep_sides(contacts, statics, prev, pos, vel):
    """solver.keep_sides (the same bundles: ContactRows, Statics), contact by contact in the
    solve order with the same arithmetic, each ball's first crossing only, as the numpy twin
    takes it. (A ball sent back to its start carried in one moving wall's frame may cross
    another moving wall's, which carries the start elsewhere: two walls closing on a ball.
    Tested again, it went back a second time, and the executions parted.)"""
    a, static = contacts.a, contacts.static
    ax, ay, bx, by, snx, sny, polygon = (statics.ax, statics.ay, statics.bx, statics.by, statics.nx, statics.ny,
                                         statics.polygon)
    back = np.zeros(len(pos), np.bool_)
    for k in range(len(a)):
        c = static[k]
        if c < 0:
            continue
        e = a[k]
        if back[e]:
            continue
        dx = bx[c] - ax[c]
        dy = by[c] - ay[c]
        # The sub-step's start in the wall's frame (a moving wall: carried with it).
        fx, fy = CK.carried(statics, c, prev[e, 0], prev[e, 1])
        came_from = dx * (fy - ay[c]) - dy * (fx - ax[c])
        now = dx * (pos[e, 1] - ay[c]) - dy * (pos[e, 0] - ax[c])
        mx = pos[e, 0] - fx
        my = pos[e, 1] - fy
        side_a = mx * (ay[c] - fy) - my * (ax[c] - fx)
        side_b = mx * (by[c] - fy) - my * (bx[c] - fx)
        edge = polygon[c] >= 0
        if edge:
            crossed = came_from <= 0 and now > 0
        else:
            crossed = came_from * now < 0 or (came_from == 0 and now < 0)
        if not (crossed and side_a * side_b <= 0):
            continue
        sign = 1.0 if (came_from >= 0 and not edge) else -1.0
        nx = sign * snx[c]
        ny = sign * sny[c]
        wvx = contacts.wvx[k]
        wvy = contacts.wvy[k]
        along = (vel[e, 0] - wvx) * mx + (vel[e, 1] - wvy) * my
        mm = mx * mx + my * my
        if along > 0.0 and mm > 0.0:
            f = along / mm
            vel[e, 0] = vel[e, 0] - f * mx
            vel[e, 1] = vel[e, 1] - f * my
        pos[e, 0] = fx
        pos[e, 1] = fy
        vn = (vel[e, 0] - wvx) * nx + (vel[e, 1] - wvy) * ny
        if vn < 0.0:
            vel[e, 0] = vel[e, 0] - vn * nx
            vel[e, 1] = vel[e, 1] - vn * ny
        back[e] = True
    return back


# The kernels here read the bundles' fields by name.
stamps.depend_on(stamps.dispatchers(globals()), (bundles, CK, BK))
