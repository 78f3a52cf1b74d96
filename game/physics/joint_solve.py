"""The direct solve of one block of the joints' rows (game.physics.joints.substep_kernel):
K dlam = rhs by an LDL^T factorisation on K's skyline, with the ropes' active set. Plain scalar
Python that numba compiles as it is (game.physics.compiled.joints), so the numpy execution and
the compiled one give the same bits."""

PIVOT_FLOOR = 1e-10            # a row whose pivot is below this fraction of its K entry depends on rows before it
ROPE_ROUNDS = 4               # solves a pass at most: the ropes that would push leave, and it is solved again


def solve_block(r0, r1, sky, rows):
    """Solve rows r0..r1 (one block) for their impulses ``rows.dl`` (N s), in place: K dlam =
    rhs - softness x solved, on the skyline ``sky`` (a Skyline: ``kmat`` overwritten by the
    factor), the rows out of the solve (``rows.live`` False) at their ``fix``; a rope that
    would push leaves and it is solved again (at most ROPE_ROUNDS times). ``sky`` and ``rows``:
    game.physics.joint_rows' Skyline and SolveRows."""
    start, offset, kmat, kold = sky
    rhs, soft_r, comp_r, across, rope_row, solved, live, fix, dl = rows
    # The direct solve; then the ropes that would push leave it, their impulse set to 0,
    # and it is solved again (an active set, at most ROPE_ROUNDS rounds).
    for rnd in range(ROPE_ROUNDS):
        # LDL^T on the skyline; a row whose pivot falls below PIVOT_FLOOR of its diagonal
        # depends on the rows before it (a second rod between the same held points):
        # it leaves this solve and lets go (its impulse to 0, as a slack rope's).
        for r in range(r0, r1):
            o = offset[r]
            for s in range(start[r], r):
                e = o + s - start[r]
                if not (live[r] and live[s]):
                    kmat[e] = 0.0
                    continue
                v = kold[e]
                os_ = offset[s]
                for q in range(max(start[r], start[s]), s):
                    v -= kmat[o + q - start[r]] * kmat[offset[q + 1] - 1] * kmat[os_ + q - start[s]]
                kmat[e] = v / kmat[offset[s + 1] - 1]
            dia = offset[r + 1] - 1
            v = kold[dia]
            if live[r]:
                for q in range(start[r], r):
                    lq = kmat[o + q - start[r]]
                    v -= lq * lq * kmat[offset[q + 1] - 1]
                if not (v > PIVOT_FLOOR * kold[dia]):
                    live[r] = False
                    fix[r] = 0.0 - solved[r]       # and lets go: no impulse to warm start
                    for q in range(start[r], r):
                        kmat[o + q - start[r]] = 0.0
            if not live[r]:
                v = 1.0
            kmat[dia] = v
        # The right-hand side -(J v + bias) - softness lam, less what the rows out of the
        # solve do; then L z = it, D y = z, L^T dlam = y.
        for r in range(r0, r1):
            dl[r] = 0.0
            if live[r]:
                dl[r] = rhs[r] - soft_r[r] * (kold[offset[r + 1] - 1] / (1.0 + soft_r[r])) * solved[r]
                if across[r]:
                    dl[r] -= comp_r[r] * solved[r]
        for r in range(r0, r1):
            o = offset[r]
            for s in range(start[r], r):
                if live[r] and not live[s]:
                    dl[r] -= kold[o + s - start[r]] * fix[s]
                elif live[s] and not live[r]:
                    dl[s] -= kold[o + s - start[r]] * fix[r]
        for r in range(r0, r1):
            if live[r]:
                o = offset[r]
                v = dl[r]
                for q in range(start[r], r):
                    v -= kmat[o + q - start[r]] * dl[q]
                dl[r] = v
        for r in range(r0, r1):
            dl[r] = dl[r] / kmat[offset[r + 1] - 1]
        for r in range(r1 - 1, r0 - 1, -1):
            o = offset[r]
            for q in range(start[r], r):
                dl[q] -= kmat[o + q - start[r]] * dl[r]
        for r in range(r0, r1):
            if not live[r]:
                dl[r] = fix[r]
        # A rope's accumulated impulse stays <= 0 (it only pulls).
        again = False
        for r in range(r0, r1):
            if live[r] and rope_row[r] and solved[r] + dl[r] > 0.0:
                if rnd == ROPE_ROUNDS - 1:
                    dl[r] = 0.0 - solved[r]         # the last round: clamped where it stands
                else:
                    live[r] = False
                    fix[r] = 0.0 - solved[r]
                    again = True
                    if r + 1 < r1 and across[r + 1]:
                        live[r + 1] = False         # (a slack rope does not bend: fix 0)
                        fix[r + 1] = 0.0
        if not again:
            break
