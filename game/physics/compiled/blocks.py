"""The balls' soft passes laid out wide (issue 36): each colour's contacts in blocks of LANES.

A colour's contacts share no moving ball (game.physics.contacts.colour_contacts), so a pass may
take them in any order, or all at once as the numpy execution does (solver._pass), and end
with the same bits. ``soft_pass`` takes them a block at a time, as Box2D v3 lays out its wide
constraints: it gathers each lane's two balls from the packed state into the block, runs the
pass's arithmetic (solver._pass's, the same operations in the same order as the scalar loop
it replaced, contact after contact) over the lanes in one loop, then scatters the balls back.

The loop over lanes reads and writes one flat array only, a block's row of BLOCK_COLUMNS x
LANES floats, at offsets fixed when it is compiled: LLVM then needs no checks that the
columns might overlap and vectorises the loop (a loop over separate columns of the contacts,
or over a 2-D block whose row stride is known only at run time, it leaves scalar). Measured on
the contacts of a settled pile (benchmarks/ball_pit.py's, captured): 25 against 17-18 ns a
contact a pass at 5,000 balls, 31 against 22 at 20,000, the same bits. Eight lanes and sixteen
gave the same; four, 21 ns.

A block's row: the solve's packed terms (the C_ columns, which compiled.solver._contact_terms
writes there, and _relax_normals for the relax), then the lanes' gathered state (the T_
columns). The lanes past a colour's last contact are padding: zeros, computed and never
scattered. The impulses stay in the contacts' own columns (pn, pt, pr, gathered each pass):
kept in the blocks across the passes they gained nothing.
"""
import numpy as np
from numba import njit

# The solve's packed ball state: the columns of st (size, BALL_COLUMNS), one ball a row
# (compiled.solver.solve).
V_X, V_Y, SPIN, P_X, P_Y, W, INV_I, ANGLE = range(8)
BALL_COLUMNS = 8
# The solve's packed contact terms, a column of LANES each in a block's row: the normal,
# friction's lever arms and the bias terms are the biased passes' and then the relax passes'
# (compiled.solver._relax_normals); the masses as the mass scaling leaves them.
C_NX, C_NY, C_ARM_A, C_ARM_B, C_BIAS, C_MS, C_IM, C_WA, C_WB, C_IA, C_IB, C_MN, C_MT, C_MR, C_FR, C_RL = range(16)
TERM_COLUMNS = 16
# A block's gathered state: ball a's velocity and spin, ball b's (a moving wall's, for a
# contact with the statics), and the contact's three impulses.
T_VAX, T_VAY, T_SA, T_VBX, T_VBY, T_SB, T_PN, T_PT, T_PR = range(TERM_COLUMNS, TERM_COLUMNS + 9)
BLOCK_COLUMNS = TERM_COLUMNS + 9
LANES = 8


@njit(cache=True)
def plan(colour_start):
    """The blocks of a solve: each colour's contacts colour_start[c]:colour_start[c + 1] cut into
    runs of at most LANES. Returns (first, count) (B,) int64: each block's first contact in
    solve order and how many it holds."""
    colours = len(colour_start) - 1
    n = 0
    for c in range(colours):
        n += (colour_start[c + 1] - colour_start[c] + LANES - 1) // LANES
    first = np.empty(n, np.int64)
    count = np.empty(n, np.int64)
    j = 0
    for c in range(colours):
        k = colour_start[c]
        while k < colour_start[c + 1]:
            first[j] = k
            count[j] = min(LANES, colour_start[c + 1] - k)
            k += LANES
            j += 1
    return first, count


@njit(cache=True)
def _lanes(f):
    """solver._pass on a block's lanes, in place on its row ``f``: its arithmetic, lane by lane
    in one loop that LLVM vectorises."""
    for i in range(LANES):
        knx = f[C_NX * LANES + i]
        kny = f[C_NY * LANES + i]
        wa = f[C_WA * LANES + i]
        wb = f[C_WB * LANES + i]
        ia = f[C_IA * LANES + i]
        ib = f[C_IB * LANES + i]
        pvx = f[T_VAX * LANES + i]
        pvy = f[T_VAY * LANES + i]
        qvx = f[T_VBX * LANES + i]
        qvy = f[T_VBY * LANES + i]
        sb = f[T_SB * LANES + i]
        vn = (pvx - qvx) * knx + (pvy - qvy) * kny
        old = f[T_PN * LANES + i]
        new = max(old - f[C_MN * LANES + i] * (f[C_MS * LANES + i] * vn + f[C_BIAS * LANES + i])
                  - f[C_IM * LANES + i] * old, 0.0)
        f[T_PN * LANES + i] = new
        p_n = new - old
        vax = pvx + p_n * knx * wa
        vay = pvy + p_n * kny * wa
        vbx = qvx - p_n * knx * wb
        vby = qvy - p_n * kny * wb
        sa = f[T_SA * LANES + i]
        kra = f[C_ARM_A * LANES + i]
        krb = f[C_ARM_B * LANES + i]
        vt = ((vay - vby) * knx - (vax - vbx) * kny) - sa * kra - sb * krb
        old = f[T_PT * LANES + i]
        limit = f[C_FR * LANES + i] * new
        newt = min(max(old - vt * f[C_MT * LANES + i], 0.0 - limit), limit)
        f[T_PT * LANES + i] = newt
        p_t = newt - old
        vax = vax - p_t * kny * wa
        vay = vay + p_t * knx * wa
        vbx = vbx + p_t * kny * wb
        vby = vby - p_t * knx * wb
        sa = sa - (kra * p_t) * ia
        sb = sb - (krb * p_t) * ib
        old = f[T_PR * LANES + i]
        limit = f[C_RL * LANES + i] * new
        newr = min(max(old - f[C_MR * LANES + i] * (sa - sb), 0.0 - limit), limit)
        f[T_PR * LANES + i] = newr
        p_r = newr - old
        f[T_VAX * LANES + i] = vax
        f[T_VAY * LANES + i] = vay
        f[T_SA * LANES + i] = sa + p_r * ia
        f[T_VBX * LANES + i] = vbx
        f[T_VBY * LANES + i] = vby
        f[T_SB * LANES + i] = sb - p_r * ib


@njit(cache=True)
def soft_pass(first, count, a, b, rows, wall, moving, pn, pt, pr, st, only):
    """One pass over every block in solve order, in place on the packed ball state ``st`` and
    the impulses pn, pt, pr: the same bits as solver._pass colour after colour. ``rows``: the
    blocks' terms (compiled.solver._contact_terms, _relax_normals); ``wall`` (B, LANES) bool: a
    lane's contact is with the statics (its ball b, the still stand-in, is neither read nor
    written: the wall's velocity and turn in ``moving`` (B, 3 LANES) take its place); ``only``
    (N,) bool: solve only the contacts whose ball a it marks (the others' lanes are computed,
    not written back), or every contact where it is empty."""
    every = len(only) == 0
    for j in range(len(first)):
        f = rows[j]
        k0 = first[j]
        for i in range(count[j]):
            k = k0 + i
            p = a[k]
            if not (every or only[p]):
                continue
            f[T_VAX * LANES + i] = st[p, V_X]
            f[T_VAY * LANES + i] = st[p, V_Y]
            f[T_SA * LANES + i] = st[p, SPIN]
            if wall[j, i]:
                f[T_VBX * LANES + i] = moving[j, i]
                f[T_VBY * LANES + i] = moving[j, LANES + i]
                f[T_SB * LANES + i] = moving[j, 2 * LANES + i]
            else:
                q = b[k]
                f[T_VBX * LANES + i] = st[q, V_X]
                f[T_VBY * LANES + i] = st[q, V_Y]
                f[T_SB * LANES + i] = st[q, SPIN]
            f[T_PN * LANES + i] = pn[k]
            f[T_PT * LANES + i] = pt[k]
            f[T_PR * LANES + i] = pr[k]
        _lanes(f)
        for i in range(count[j]):
            k = k0 + i
            p = a[k]
            if not (every or only[p]):
                continue
            pn[k] = f[T_PN * LANES + i]
            pt[k] = f[T_PT * LANES + i]
            pr[k] = f[T_PR * LANES + i]
            st[p, V_X] = f[T_VAX * LANES + i]
            st[p, V_Y] = f[T_VAY * LANES + i]
            st[p, SPIN] = f[T_SA * LANES + i]
            if not wall[j, i]:
                q = b[k]
                st[q, V_X] = f[T_VBX * LANES + i]
                st[q, V_Y] = f[T_VBY * LANES + i]
                st[q, SPIN] = f[T_SB * LANES + i]
