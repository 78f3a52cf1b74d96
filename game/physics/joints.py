"""Joints: rods, ropes, pins and motors between balls (or a ball and an anchor), solved as
Box2D v3 solves its distance and revolute joints, after the contacts in each sub-step.

A joint holds ball ``a`` at ``offset_a`` (metres in the ball's own frame, turning with it)
and ball ``b`` at ``offset_b``, or an anchor point in the world (``b`` = -1).

- a **rod** of ``length`` > 0 keeps its held points that far apart (a distance constraint
  along their line, ``axis``); a rod of length 0 holds them together (a point constraint,
  two rows: a pin, an axle, a hinge): the ball turns freely about it;
- a **rope** keeps them at most ``length`` apart: the rod's row with only the pulling side
  (its accumulated impulse along d <= 0) and nothing while slack (Box2D's speculative upper limit:
  a rope whose ends would stay within its length this sub-step gives no impulse);
- a **motor** drives ball a's spin relative to the rod's own turning (for a rod of length 0:
  relative to ball b, or to the world for an anchor) towards ``speed`` rad/s, its
  accumulated impulse clamped to ``torque * h``. Its reaction is a couple on the rod's held
  points (perpendicular to the rod, arm |d|), so momentum and angular momentum are kept:
  the row's Jacobian is J = (dspin_a: 1 + q r_a x p, dv_a: q p, dv_b: -q p, dspin_b: -q r_b x p)
  with d = held_b - held_a, p = perp(d) = (-d_y, d_x), q = 1 / |d|^2.

The stages, as Box2D's (src/distance_joint.c, src/revolute_joint.c), in ``substep``:
``prepare`` once a tick (the bias for this sub-step length; the peak forces cleared), then in
each sub-step after the contacts' solve: warm start (the last sub-step's impulses again),
``JOINT_ITERATIONS`` passes with the bias and ``JOINT_RELAX_ITERATIONS`` without it. Anchors,
axes and effective masses are worked out in every pass, at the sub-step's start for the warm
start and the biased passes and at the positions now for the relax (see below). Jointed
balls do not collide with each other (``unjoined``, Box2D's default).

**A direct solve, not Gauss-Seidel** (issue 24: nothing may explode at the format's limits).
Box2D solves joint after joint; the error left after a pass shrinks by about the mass ratio
of the balls a joint shares, so a 1 g ball holding a 1,000 kg one needs ~1e6 passes, and a
chain of 200 light links, whose end's pull has to cross 200 joints, stretched 17-33 % with
one pass (more passes, colours or a relax do not change the order of that). Here each pass
solves every rod, rope and pin row at once: K dlam = -(J v + bias) with K = J M^-1 J^T, by
an LDL^T factorisation on K's skyline (the rows in the joints' order: row r couples back to
the first row that shares one of its balls, so a chain is tridiagonal and a loop costs one
long row: O(rows x width^2); joint_order bounds it). A tree of joints is then exact whatever
the masses; the bias is rigid (rate 1 / h_move: the limit of Box2D's soft step as its hertz
grows; a finite JOINT_HERTZ gives the soft step back). What a direct solve must add:
- a row whose pivot falls below joint_solve.PIVOT_FLOOR of its diagonal depends on the rows
  before it (two rods between the same held points): it leaves the solve and lets go;
- a rope that would push leaves the solve with its impulse set to 0, and the rest is solved
  again (an active set, joint_solve.ROPE_ROUNDS rounds at most);
- **bend rows** (joint_sums._bend): a rod that pulls a light ball with a heavy one's weight (1 g
  between an anchor and 1,000 kg) turns its pull as the ball moves across it, a stiffness the
  passes, which take the pull along the rod as it was, met explicitly: the ball swung across
  its rods ~200 times too fast for the sub-step, the solve folded it and the rods stretched
  60-150 times their length (issue 37; the trust region below only kept that finite). Such a
  rod gets a second row across itself whose compliance is that stiffness' (Newton's step with
  the Lagrangian's Hessian, Tournier et al. 2015), taken from the rod's pull and solved again
  (BEND_ROUNDS) where the pull came out stronger; the joints on its balls are then not warm
  started. Its impulses are equal and opposite (momentum kept), a couple across the rod (the
  angular momentum within 1e-5 in 10 s: test_joints_bead.py). A rod whose ball follows its pull
  (a pendulum, a chain, every shipped level) has none live: the same bits as without;
- a trust region (``_trust``): where a pass (or the warm start) would move a ball more than
  joint_sums.JOINT_MOVE of its joint's length plus its radius in a sub-step, the whole pass is
  scaled down alike (momentum kept): rows that nearly lose their rank (a fold of light links
  snapping straight).
Motors are solved before the block, one by one (Box2D's revolute joint solves its motor first).

This engine has integrated the positions before the solve (x* = x + h v): a velocity change
dv of the warm start and the biased passes moves positions by ``h_move`` dv, as the
contacts' does (game.physics.solver), and the relax passes change velocities only. So the
rows of the warm start and the biased passes are taken at x* - h_move v, the sub-step's
start (a move by h_move dv leaves it where it is), the error C is measured at x* now, and
the bias acts on C0 = C(x*) - h_move Cdot: in the rigid limit the positions land on the
constraint, C(x* + h_move dv) = 0, with the impulse along the start's axis (SHAKE's choice:
a rod's correction then gives back the speed the relax onto the new tangent takes, so a
pendulum keeps its energy; rows taken at x* lost 9 % of it in ten periods).

One algorithm in one order: ``substep_kernel``, written once in plain scalar Python.
The numpy execution runs it as Python; the compiled one (game.physics.compiled.joints)
compiles this very function with numba: the same arithmetic in the same order, so the
same bits (tests/physics/test_joints.py).

``break``: a joint whose force (its accumulated impulse over h, newtons) exceeds it in some
sub-step is removed at the end of the tick (``World.joint_breaks`` says where).
"""
import copy
import math

import numpy as np

from game.physics.joint_order import plan_blocks, solve_order
from game.physics.joint_rows import JointBalls, JointParams, JointRows, Skyline, SolveRows
from game.physics.joint_strain import strained
from game.physics.joint_solve import solve_block
from game.physics.joint_sums import _apply_summed, _bend, _trust
from game.physics.motor_keys import MOTOR_KEYS, key_code
from game.physics.solver import soft

JOINT_HERTZ = math.inf        # Hz: the joints' stiffness; inf: rigid (bias rate 1 / h_move), see the docstring
BLOCKS_HERTZ = 60.0           # Hz: the joints' stiffness where they are solved in several blocks (joint_order)
JOINT_DAMPING_RATIO = 2.0     # of critical, where JOINT_HERTZ is finite (Box2D v3's jointDampingRatio)
BEND_RATIO = 100.0            # a rod's light ball this many times lighter than its block's heaviest: a bend row
BEND_GROW = 2.0               # a bend row solved again where the rod's pull makes it this much stiffer
BEND_ROUNDS = 4               # solves a pass at most, the bend rows' stiffness grown to their rods' pulls
JOINT_ITERATIONS = 1
JOINT_RELAX_ITERATIONS = 1    # relax passes a sub-step (Box2D v3: one)
ROD, ROPE = 0, 1              # kinds, as stored in Joints.kind
KINDS = ("rod", "rope")
NO_BREAK = math.inf


def substep_kernel(balls, rows, params):
    """One sub-step of every joint, in place on the balls' (N,) state (positions px, py, m;
    velocities vx, vy, m/s; angle, rad; spin, rad/s; inverse masses w, 1/kg, and moments
    inv_i, 1/(kg m^2)) and on the joints' (J,) impulses (imp_x, imp_y: a rod's or rope's
    impulse along d = held_b - held_a in imp_x (a rope's <= 0), a pin's vector impulse in
    both; imp_m: the motor's angular impulse on ball a) and peak forces (peak, N).

    Each pass after the warm start: the motors one after another (their own rows, as Box2D's
    revolute joint solves its motor first), then every rod, rope and pin row at once, a direct
    solve of K dlam = -(J v + bias) (module docstring).

    Plain scalar Python that numba compiles as it is (game.physics.compiled.joints)."""
    px, py, vx, vy, angle, spin, w, inv_i, radius = balls
    (a, b, kind, anchor_x, anchor_y, off_ax, off_ay, off_bx, off_by, length, has_motor, speed, torque,
     imp_x, imp_y, imp_m, peak, work, blocks) = rows
    h, h_move, rate, mass_scale, impulse_scale, warm_start, iterations, relax_iterations = params
    n_joints = a.shape[0]
    # The rows of the block solve: a rod or a rope one (along its axis), a pin two (x, y), and
    # a rod or rope that may pull a light ball with a heavy one's weight a second, across it (a
    # bend row, joint_sums._bend): where its lighter ball is BEND_RATIO times lighter than its
    # block's heaviest. Where its last pull made it live, the joints on its balls are not warm
    # started (that pull along the rod as it was would throw the light ball across).
    bends = np.zeros(n_joints, np.bool_)
    cold = np.zeros(w.shape[0], np.bool_)      # a ball whose rods are not warm started
    last = imp_x.copy()                         # the pulls of the last sub-step, N s
    bent = np.zeros(n_joints)                   # a bend row's impulse this sub-step, N s
    vx0 = vx.copy()                             # the velocities before the joints (a bend row's reference)
    vy0 = vy.copy()
    spin0 = spin.copy()
    n_rows = 0
    for blk in range(blocks.shape[0] - 1):
        heaviest = 0.0                          # the least inverse mass of a moving ball in the block
        for j in range(blocks[blk], blocks[blk + 1]):
            for ball in (a[j], b[j]):
                if ball >= 0 and w[ball] > 0.0 and (heaviest == 0.0 or w[ball] < heaviest):
                    heaviest = w[ball]
        for j in range(blocks[blk], blocks[blk + 1]):
            if length[j] > 0.0:
                light = max(w[a[j]], w[b[j]] if b[j] >= 0 else 0.0)
                bends[j] = light > BEND_RATIO * heaviest
                if bends[j] and b[j] >= 0:
                    # Not beside another joint between the same two balls: they nearly repeat
                    # each other, and their cancelling pulls bend no ball.
                    for k in range(blocks[blk], blocks[blk + 1]):
                        if k != j and ((a[k] == a[j] and b[k] == b[j]) or (a[k] == b[j] and b[k] == a[j])):
                            bends[j] = False
                            break
                if bends[j] and _bend(last[j], h_move, w[a[j]], w[b[j]] if b[j] >= 0 else 0.0, length[j]) > 0.0:
                    cold[a[j]] = True
                    if b[j] >= 0:
                        cold[b[j]] = True
            n_rows += 2 if ((length[j] == 0.0 and kind[j] == ROD) or bends[j]) else 1
    for j in range(n_joints):
        if cold[a[j]] or (b[j] >= 0 and cold[b[j]]):
            imp_x[j] = 0.0      # (a ball's rods all warm started, or none: the others' pulls would throw it)
            imp_y[j] = 0.0
    row_joint = np.empty(n_rows, np.int64)      # the joint of each row
    row_ball_a = np.empty(n_rows, np.int64)
    row_ball_b = np.empty(n_rows, np.int64)     # -1: an anchor
    ux_r = np.empty(n_rows)                     # the row's direction u (impulse lam u on b, -lam u on a)
    uy_r = np.empty(n_rows)
    ga_r = np.empty(n_rows)                     # r_a x u, r_b x u: the spins' parts of the row
    gb_r = np.empty(n_rows)
    rhs = np.empty(n_rows)                      # -(J v + bias)
    soft_r = np.empty(n_rows)                   # the row's softness (added to K's diagonal)
    comp_r = np.zeros(n_rows)                   # a bend row's compliance, 1/kg (added to K's diagonal)
    bend_r = np.zeros(n_rows)                   # a bend row's stiffness, kg (0: out of the solve)
    kbase = np.zeros(n_rows)                    # a bend row's K entry without its compliance
    across = np.zeros(n_rows, np.bool_)         # a bend row (across its rod, after its axis row)
    rope_row = np.zeros(n_rows, np.bool_)       # a rope's axis row
    live0 = np.empty(n_rows, np.bool_)          # ``live`` as the rows were built
    live = np.empty(n_rows, np.bool_)           # False: out of this solve (slack rope, degenerate row)
    start = np.empty(n_rows, np.int64)          # the first row the row couples to (its skyline)
    first_row = np.full(w.shape[0], -1, np.int64)
    dvx = np.zeros(w.shape[0])                  # scratch: the balls' velocity change of a pass
    dvy = np.zeros(w.shape[0])
    dsp = np.zeros(w.shape[0])                  # scratch: the balls' angular impulse of a pass
    # Each block's rows couple only to the block's own (a ball's first row before the block's
    # is not this block's); block_row: the first row of each block.
    block_row = np.empty(blocks.shape[0], np.int64)
    r = 0
    for blk in range(blocks.shape[0] - 1):
        r0 = r
        block_row[blk] = r0
        for j in range(blocks[blk], blocks[blk + 1]):
            n_own = 2 if ((length[j] == 0.0 and kind[j] == ROD) or bends[j]) else 1
            for _ in range(n_own):
                ia = a[j]
                ib = b[j]
                if first_row[ia] < r0:
                    first_row[ia] = r
                s0 = first_row[ia]
                if ib >= 0:
                    if first_row[ib] < r0:
                        first_row[ib] = r
                    s0 = min(s0, first_row[ib])
                row_joint[r] = j
                row_ball_a[r] = ia
                row_ball_b[r] = ib
                start[r] = s0
                r += 1
    block_row[blocks.shape[0] - 1] = r
    # The skyline: row r's entries of K from start[r] to r, at offset[r] in a flat array.
    offset = np.empty(n_rows + 1, np.int64)
    offset[0] = 0
    for r in range(n_rows):
        offset[r + 1] = offset[r] + (r - start[r] + 1)
    kmat = np.empty(offset[n_rows])             # K + softness, then its factor L (unit lower) and D
    kold = np.empty(offset[n_rows])             # K + softness kept: the inactive rows' coupling
    solved = np.empty(n_rows)
    for phase in range(1 + iterations + relax_iterations):
        # phase 0: warm start; then the biased passes (positions move h_move dv); then relax.
        warm = phase == 0
        if warm and not warm_start:
            for j in range(n_joints):
                imp_x[j], imp_y[j], imp_m[j] = 0.0, 0.0, 0.0
            continue
        use_bias = phase >= 1 and phase <= iterations
        moves = phase <= iterations
        back = h_move if moves else 0.0
        # Motors first (or, in the warm start, every joint's last impulses), joint by joint.
        # The warm start twice: first dry (what it would do, for the trust region below),
        # then scaled by it (stale impulses of rows that turned must not fling a ball).
        wscale = 1.0
        for sweep in range(2 if warm else 1):
            dry = warm and sweep == 0
            for j in range(n_joints):
                if not warm and not has_motor[j]:
                    continue
                ia = a[j]
                ib = b[j]
                # The rows (axis, arms, Jacobian) are taken at the sub-step's start, x - h_move v
                # (the point this sub-step's moves start from: a move by h_move dv leaves it where
                # it is), in the warm start and the biased passes; in the relax at the positions
                # now (module docstring).
                wa = w[ia]
                ja = inv_i[ia]
                vax = vx[ia]
                vay = vy[ia]
                spa = spin[ia]
                ca = math.cos(angle[ia] - back * spa)
                sa = math.sin(angle[ia] - back * spa)
                rax = ca * off_ax[j] - sa * off_ay[j]
                ray = sa * off_ax[j] + ca * off_ay[j]
                if ib >= 0:
                    wb = w[ib]
                    jb = inv_i[ib]
                    vbx = vx[ib]
                    vby = vy[ib]
                    spb = spin[ib]
                    cb = math.cos(angle[ib] - back * spb)
                    sb = math.sin(angle[ib] - back * spb)
                    rbx = cb * off_bx[j] - sb * off_by[j]
                    rby = sb * off_bx[j] + cb * off_by[j]
                    qbx = (px[ib] - back * vbx) + rbx
                    qby = (py[ib] - back * vby) + rby
                else:
                    rbx, rby, wb, jb, vbx, vby, spb = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
                    qbx, qby = anchor_x[j], anchor_y[j]
                dx = qbx - ((px[ia] - back * vax) + rax)
                dy = qby - ((py[ia] - back * vay) + ray)
                pin = length[j] == 0.0 and kind[j] == ROD
                pxx, pyy, lam, ga, gb, mq, perpx, perpy = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
                d2 = dx * dx + dy * dy
                rod_frame = length[j] > 0.0 and d2 > 1e-24     # a motor turns relative to the rod
                if rod_frame:
                    mq = 1.0 / d2
                    perpx = 0.0 - dy
                    perpy = dx
                    ga = 1.0 + mq * (rax * perpy - ray * perpx)
                    gb = mq * (rbx * perpy - rby * perpx)
                else:
                    ga = 1.0
                    gb = 1.0
                # The motor's row: J v (ball a's spin relative to the rod's turning) and K.
                rvx = (vbx - spb * rby) - (vax - spa * ray)
                rvy = (vby + spb * rbx) - (vay + spa * rax)
                if rod_frame:
                    jv = spa - mq * (perpx * rvx + perpy * rvy)
                    k = (wa + wb) * mq + ja * ga * ga + jb * gb * gb
                else:
                    jv = spa - spb
                    k = ja + jb
                if warm:
                    if not dry:
                        imp_x[j] *= wscale
                        imp_y[j] *= wscale
                        imp_m[j] *= wscale
                    lam = imp_m[j] if has_motor[j] else 0.0
                    if pin:
                        pxx = imp_x[j]
                        pyy = imp_y[j]
                    else:
                        dd = math.sqrt(d2)
                        if dd > 1e-12:
                            pxx = imp_x[j] * (dx / dd)
                            pyy = imp_x[j] * (dy / dd)
                elif k > 0.0:
                    old = imp_m[j]
                    limit = torque[j] * h
                    new = min(max(old - (jv - speed[j]) / k, 0.0 - limit), limit)
                    imp_m[j] = new
                    lam = new - old
                if has_motor[j] and not dry:
                    # The motor's work on the balls (J): an impulse lam along its row changes
                    # J v from jv to jv + lam K, and the kinetic energy by lam (jv + lam K / 2).
                    work[j] += lam * (jv + 0.5 * lam * k)
                if warm and not dry:
                    # The rows' own impulses summed per ball, applied after every joint's (as a
                    # pass applies them): joints that nearly repeat each other carry large warm
                    # impulses that cancel, whose velocities added joint by joint would leave a
                    # momentum in their rounding. The motor's part goes now (its work reads jv).
                    dvx[ia] -= pxx
                    dvy[ia] -= pyy
                    dsp[ia] -= rax * pyy - ray * pxx
                    if ib >= 0:
                        dvx[ib] += pxx
                        dvy[ib] += pyy
                        dsp[ib] += rbx * pyy - rby * pxx
                    pxx = 0.0
                    pyy = 0.0
                # Apply: velocities always; positions and angles in the warm start and the biased passes.
                dvax = wa * lam * mq * perpx - wa * pxx
                dvay = wa * lam * mq * perpy - wa * pyy
                dspa = ja * lam * ga - ja * (rax * pyy - ray * pxx)
                if dry:
                    dvx[ia] += dvax
                    dvy[ia] += dvay
                    if ib >= 0:
                        dvx[ib] += wb * pxx - wb * lam * mq * perpx
                        dvy[ib] += wb * pyy - wb * lam * mq * perpy
                    continue
                vx[ia] += dvax
                vy[ia] += dvay
                spin[ia] += dspa
                if moves:
                    px[ia] += h_move * dvax
                    py[ia] += h_move * dvay
                    angle[ia] += h_move * dspa
                if ib >= 0:
                    dvbx = wb * pxx - wb * lam * mq * perpx
                    dvby = wb * pyy - wb * lam * mq * perpy
                    dspb = jb * (rbx * pyy - rby * pxx) - jb * lam * gb
                    vx[ib] += dvbx
                    vy[ib] += dvby
                    spin[ib] += dspb
                    if moves:
                        px[ib] += h_move * dvbx
                        py[ib] += h_move * dvby
                        angle[ib] += h_move * dspb
            if dry:
                wscale = _trust(a, b, length, radius, dvx, dvy, h)
            elif warm:
                _apply_summed(row_ball_a, row_ball_b, balls, dvx, dvy, dsp, h_move)
        if warm:
            continue
        fix = np.zeros(n_rows)                  # the dlam of the rows out of the solve
        dl = np.zeros(n_rows)
        sky = Skyline(start, offset, kmat, kold)
        # Block after block (Joints.plan: one block, the whole, unless that would not fit).
        for blk in range(blocks.shape[0] - 1):
            j0 = blocks[blk]
            j1 = blocks[blk + 1]
            r0 = block_row[blk]
            r1 = block_row[blk + 1]
            # Every rod, rope and pin row at once. The rows are taken as above; the error C is
            # measured at the held points now, the bias acts on C0 = C - h_move Cdot (rate C0:
            # rate 1 / h_move, the rigid limit, puts the positions on the constraint).
            r = r0
            for j in range(j0, j1):
                ia = a[j]
                ib = b[j]
                spa = spin[ia]
                ca = math.cos(angle[ia])
                sa = math.sin(angle[ia])
                cax = px[ia] + (ca * off_ax[j] - sa * off_ay[j])
                cay = py[ia] + (sa * off_ax[j] + ca * off_ay[j])
                ca = math.cos(angle[ia] - back * spa)
                sa = math.sin(angle[ia] - back * spa)
                rax = ca * off_ax[j] - sa * off_ay[j]
                ray = sa * off_ax[j] + ca * off_ay[j]
                if ib >= 0:
                    spb = spin[ib]
                    cb = math.cos(angle[ib])
                    sb = math.sin(angle[ib])
                    cbx = px[ib] + (cb * off_bx[j] - sb * off_by[j])
                    cby = py[ib] + (sb * off_bx[j] + cb * off_by[j])
                    cb = math.cos(angle[ib] - back * spb)
                    sb = math.sin(angle[ib] - back * spb)
                    rbx = cb * off_bx[j] - sb * off_by[j]
                    rby = sb * off_bx[j] + cb * off_by[j]
                    qbx = (px[ib] - back * vx[ib]) + rbx
                    qby = (py[ib] - back * vy[ib]) + rby
                    rvx = (vx[ib] - spb * rby) - (vx[ia] - spa * ray)
                    rvy = (vy[ib] + spb * rbx) - (vy[ia] + spa * rax)
                else:
                    rbx, rby = 0.0, 0.0
                    cbx, cby, qbx, qby = anchor_x[j], anchor_y[j], anchor_x[j], anchor_y[j]
                    rvx = 0.0 - (vx[ia] - spa * ray)
                    rvy = 0.0 - (vy[ia] + spa * rax)
                cdx = cbx - cax                      # held_b - held_a now: the error's
                cdy = cby - cay
                dx = qbx - ((px[ia] - back * vx[ia]) + rax)   # and at the start: the rows'
                dy = qby - ((py[ia] - back * vy[ia]) + ray)
                if length[j] == 0.0 and kind[j] == ROD:
                    # A pin: C = held_b - held_a (2,), its x and y rows.
                    for axis in range(2):
                        ux = 1.0 if axis == 0 else 0.0
                        uy = 1.0 - ux
                        ux_r[r] = ux
                        uy_r[r] = uy
                        ga_r[r] = rax * uy - ray * ux
                        gb_r[r] = rbx * uy - rby * ux
                        cd = ux * rvx + uy * rvy
                        bias = 0.0
                        if use_bias:
                            bias = rate * ((ux * cdx + uy * cdy) - h_move * cd)
                        rhs[r] = 0.0 - (cd + bias)
                        soft_r[r] = impulse_scale / mass_scale if use_bias else 0.0
                        live[r] = True
                        solved[r] = imp_x[j] if axis == 0 else imp_y[j]
                        r += 1
                else:
                    dd = math.sqrt(dx * dx + dy * dy)
                    ux = 0.0
                    uy = 0.0
                    if dd > 1e-12:
                        ux = dx / dd
                        uy = dy / dd
                    ux_r[r] = ux
                    uy_r[r] = uy
                    ga_r[r] = rax * uy - ray * ux
                    gb_r[r] = rbx * uy - rby * ux
                    cd = ux * rvx + uy * rvy                 # the stretching speed
                    c0 = (math.sqrt(cdx * cdx + cdy * cdy) - length[j]) - h_move * cd   # the stretch, less this sub-step's
                    bias = 0.0
                    soft_r[r] = 0.0
                    if kind[j] == ROPE and c0 < 0.0:
                        # A rope slack at the sub-step's start: only what would overshoot its
                        # length (Box2D's speculative limit), rigidly.
                        bias = c0 / h_move
                    elif use_bias:
                        bias = rate * c0
                        soft_r[r] = impulse_scale / mass_scale
                    rhs[r] = 0.0 - (cd + bias)
                    live[r] = dd > 1e-12
                    solved[r] = imp_x[j]
                    r += 1
                    rope_row[r - 1] = kind[j] == ROPE
                    if bends[j]:
                        # Across the rod, p = perp(u): the joints' change (since before the
                        # warm start) of p . (v_b - v_a) costs 1 / bend (the impulse mu p of the
                        # axis turning by that change's move): J_p (v - v0) + mu / bend = 0.
                        ux_r[r] = 0.0 - uy
                        uy_r[r] = ux
                        ga_r[r] = rax * ux - ray * (0.0 - uy)
                        gb_r[r] = rbx * ux - rby * (0.0 - uy)
                        dsa = spin[ia] - spin0[ia]
                        ex = 0.0 - ((vx[ia] - vx0[ia]) - dsa * ray)
                        ey = 0.0 - ((vy[ia] - vy0[ia]) + dsa * rax)
                        if ib >= 0:
                            dsb = spin[ib] - spin0[ib]
                            ex += (vx[ib] - vx0[ib]) - dsb * rby
                            ey += (vy[ib] - vy0[ib]) + dsb * rbx
                        rhs[r] = 0.0 - (ux_r[r] * ex + uy_r[r] * ey)
                        soft_r[r] = 0.0
                        bend_r[r] = _bend(max(abs(last[j]), abs(imp_x[j])), h_move, w[ia], w[ib] if ib >= 0 else 0.0,
                                          length[j])     # (the stronger of its last pull and this one's)
                        across[r] = True
                        live[r] = dd > 1e-12
                        solved[r] = bent[j]
                        r += 1
            # K = J M^-1 J^T on the skyline (rows sharing a ball), plus each row's softness on the
            # diagonal (soft_r of its own K: Box2D's soft step, row by row).
            for r in range(r0, r1):
                ia = row_ball_a[r]
                ib = row_ball_b[r]
                for s in range(start[r], r + 1):
                    sa_ = row_ball_a[s]
                    sb_ = row_ball_b[s]
                    v = 0.0
                    dot = ux_r[r] * ux_r[s] + uy_r[r] * uy_r[s]
                    # Row r's Jacobian: ball a (-u, -g_a), ball b (+u, +g_b).
                    if sa_ == ia:
                        v += w[ia] * dot + inv_i[ia] * ga_r[r] * ga_r[s]
                    if sb_ == ia:
                        v -= w[ia] * dot + inv_i[ia] * ga_r[r] * gb_r[s]
                    if ib >= 0:
                        if sa_ == ib:
                            v -= w[ib] * dot + inv_i[ib] * gb_r[r] * ga_r[s]
                        if sb_ == ib:
                            v += w[ib] * dot + inv_i[ib] * gb_r[r] * gb_r[s]
                    kmat[offset[r] + s - start[r]] = v
                kmat[offset[r + 1] - 1] *= 1.0 + soft_r[r]
                for e in range(offset[r], offset[r + 1]):
                    kold[e] = kmat[e]
            # The direct solve (joint_solve.solve_block); where a rod's pull came out much
            # stronger than the bend row across it took (a chain snapping taut), again with it
            # (Newton's step with the Lagrangian's Hessian: the bend is the pull's, at most BEND_ROUNDS).
            for r in range(r0, r1):
                live0[r] = live[r]
                if across[r]:
                    kbase[r] = kold[offset[r + 1] - 1]
            for rnd in range(BEND_ROUNDS):
                for r in range(r0, r1):
                    live[r] = live0[r]
                    fix[r] = 0.0
                    if across[r]:
                        live[r] = live0[r] and bend_r[r] > 0.0
                        comp_r[r] = 1.0 / bend_r[r] if bend_r[r] > 0.0 else 0.0
                        kold[offset[r + 1] - 1] = kbase[r] + comp_r[r]
                solve_block(r0, r1, sky, SolveRows(rhs, soft_r, comp_r, across, rope_row, solved, live, fix, dl))
                grew = False
                for r in range(r0, r1):
                    if across[r] and live0[r]:
                        j = row_joint[r]
                        b_new = _bend(solved[r - 1] + dl[r - 1], h_move, w[a[j]], w[b[j]] if b[j] >= 0 else 0.0,
                                      length[j])
                        if b_new > BEND_GROW * bend_r[r]:
                            bend_r[r] = b_new
                            grew = True
                if not grew:
                    break
            # A trust region (``_trust``): every dlam of the pass scaled down alike where it would
            # fling a ball (impulses stay equal and opposite).
            for r in range(r0, r1):
                ia = row_ball_a[r]
                ib = row_ball_b[r]
                dvx[ia] -= w[ia] * dl[r] * ux_r[r]
                dvy[ia] -= w[ia] * dl[r] * uy_r[r]
                if ib >= 0:
                    dvx[ib] += w[ib] * dl[r] * ux_r[r]
                    dvy[ib] += w[ib] * dl[r] * uy_r[r]
            scale = _trust(a[j0:j1], b[j0:j1], length[j0:j1], radius, dvx, dvy, h)
            if scale < 1.0:
                for r in range(r0, r1):
                    dl[r] = dl[r] * scale
            # Apply the impulses dlam u at the held points (on b, minus on a): summed per ball
            # first (dvx, dvy, dsp: impulses, then velocity changes), so two balls that only
            # share rows get exactly opposite sums even where rows that nearly repeat each other
            # exchange large impulses that cancel (their rounding would leave a momentum).
            for r in range(r0, r1):
                j = row_joint[r]
                lam = dl[r]
                if lam == 0.0:
                    continue
                total = solved[r] + lam
                if across[r]:
                    bent[j] = total                         # (kept for this sub-step only)
                elif length[j] == 0.0 and kind[j] == ROD:
                    if uy_r[r] == 0.0:
                        imp_x[j] = total
                    else:
                        imp_y[j] = total
                else:
                    imp_x[j] = total
                ia = row_ball_a[r]
                ib = row_ball_b[r]
                pxx = lam * ux_r[r]
                pyy = lam * uy_r[r]
                dvx[ia] -= pxx
                dvy[ia] -= pyy
                dsp[ia] -= lam * ga_r[r]
                if ib >= 0:
                    dvx[ib] += pxx
                    dvy[ib] += pyy
                    dsp[ib] += lam * gb_r[r]
            _apply_summed(row_ball_a[r0:r1], row_ball_b[r0:r1], balls, dvx, dvy, dsp, h_move if moves else 0.0)
    # The force each joint held this sub-step (its impulse over h): the break test's.
    for j in range(n_joints):
        f = math.sqrt(imp_x[j] * imp_x[j] + imp_y[j] * imp_y[j]) / h
        if f > peak[j]:
            peak[j] = f


_FIELDS = (("a", np.int64), ("b", np.int64), ("kind", np.int64), ("anchor_x", float), ("anchor_y", float),
           ("off_ax", float), ("off_ay", float), ("off_bx", float), ("off_by", float), ("length", float),
           ("has_motor", np.bool_), ("speed", float), ("torque", float), ("imp_x", float), ("imp_y", float),
           ("imp_m", float), ("peak", float), ("break_force", float), ("work", float), ("key", np.int64),
           ("base_speed", float))


class Joints:
    """The world's joints as (J,) arrays (structure of arrays), in the order they are solved.

    ``a``, ``b`` ball indices (b = -1: the anchor ``anchor_x``, ``anchor_y``); ``kind`` ROD
    or ROPE; ``off_*`` the held points in the balls' frames, m; ``length`` m; the motor's
    ``has_motor``, ``speed`` rad/s and ``torque`` N m; the warm-start impulses ``imp_*``;
    ``peak`` the largest force (N) of this tick; ``break_force`` N (inf: never)."""

    def __init__(self):
        for name, dtype in _FIELDS:
            setattr(self, name, np.zeros(0, dtype))
        self.blocks = np.zeros(1, np.int64)
        self.strained = False       # rods that cannot all hold, or pulled straight (joint_strain): solved soft
        self.hand_strained = False  # ... by the player's grab, this tick (joint_strain.pulled_by_hand)

    def __len__(self):
        return len(self.a)

    def add(self, definitions):
        """Add joints from normalised level definitions (game.level's "joints" items)."""
        rows = {name: [] for name, _ in _FIELDS}
        for d in definitions:
            anchor = (0.0, 0.0) if isinstance(d["b"], (int, np.integer)) else d["b"]
            motor = d.get("motor")
            values = {"a": int(d["a"]), "b": int(d["b"]) if isinstance(d["b"], (int, np.integer)) else -1,
                      "kind": KINDS.index(d["kind"]), "anchor_x": anchor[0], "anchor_y": anchor[1],
                      "off_ax": d["offset_a"][0], "off_ay": d["offset_a"][1],
                      "off_bx": d["offset_b"][0], "off_by": d["offset_b"][1], "length": d["length"],
                      "has_motor": motor is not None, "speed": motor["speed"] if motor else 0.0,
                      "torque": motor["torque"] if motor else 0.0, "imp_x": 0.0, "imp_y": 0.0, "imp_m": 0.0,
                      "peak": 0.0, "break_force": d.get("break", NO_BREAK), "work": 0.0,
                      "key": key_code(motor),
                      "base_speed": motor["speed"] if motor else 0.0}
            for name, _ in _FIELDS:
                rows[name].append(values[name])
        for name, dtype in _FIELDS:
            setattr(self, name, np.concatenate((getattr(self, name), np.array(rows[name], dtype))))
        order = solve_order(self.a, self.b, self.length == 0.0)
        if order is not None:
            for name, _ in _FIELDS:
                setattr(self, name, getattr(self, name)[order])
        self._planned()

    origin = None    # (J,) int64: in a part of the joints (``part``), each row's place in the whole

    def _planned(self):
        """After the rows changed: their blocks (joint_order) and whether they are strained
        (a part, the joints of the awake balls, keeps its whole's: a strained chain is one island)."""
        self.blocks = plan_blocks(self.a, self.b, self.length == 0.0)
        if self.origin is None:
            self.strained = strained(self)

    def keep(self, mask):
        """Keep only the joints ``mask`` (J,) bool."""
        for name, _ in _FIELDS:
            setattr(self, name, getattr(self, name)[mask])
        if self.origin is not None:
            self.origin = self.origin[mask]
        self._planned()

    def part(self, new_index):
        """The joints of the balls ``new_index`` (N,) keeps (old index -> new, -1: left out), in
        a copy whose ``origin`` says where each row came from (``put_back``)."""
        other = copy.copy(self)
        other.origin = np.arange(len(self))
        other.remap_balls(new_index)
        other.taken = other.origin.copy()
        return other

    def put_back(self, part):
        """After a tick of a ``part``: its impulses and peak forces into these rows, and the
        rows it lost (broken) removed here too."""
        o = part.origin
        for name in ("imp_x", "imp_y", "imp_m", "peak", "work"):
            whole = getattr(self, name).copy()
            whole[o] = getattr(part, name)
            setattr(self, name, whole)
        gone = np.zeros(len(self), bool)
        gone[part.taken] = True
        gone[o] = False
        if gone.any():
            self.keep(~gone)

    def remap_balls(self, new_index):
        """Balls were removed: ``new_index`` (N_old,) maps old indices to new (-1: gone);
        a joint on a gone ball goes with it."""
        if not len(self):
            return
        a = new_index[self.a]
        b = np.where(self.b >= 0, new_index[np.maximum(self.b, 0)], -1)
        keep = (a >= 0) & ((self.b < 0) | (b >= 0))
        self.a, self.b = a, b
        self.keep(keep)

    def shift_balls(self, at):
        """A ball was inserted at index ``at``: the indices from it on move up by one."""
        self.a = np.where(self.a >= at, self.a + 1, self.a)
        self.b = np.where(self.b >= at, self.b + 1, self.b)

    def rows(self, ball, ids):
        """[(position k, {field: value})] of the joints on ball index ``ball``, their ``a`` and
        ``b`` as ball ids (``ids``: the world's; b = -1: the anchor), for ``insert_rows``."""
        out = []
        for k in np.flatnonzero((self.a == ball) | (self.b == ball)).tolist():
            row = {name: getattr(self, name)[k].item() for name, _ in _FIELDS}
            row["a"] = int(ids[row["a"]])
            row["b"] = int(ids[row["b"]]) if row["b"] >= 0 else -1
            out.append((k, row))
        return out

    def insert_rows(self, rows, ids):
        """Put back joints from ``rows`` at their positions, their ball ids turned into the
        indices of ``ids`` (the world's now); a joint whose other ball has gone stays out."""
        for k, row in sorted(rows, key=lambda r: r[0]):
            a = np.flatnonzero(ids == row["a"])
            b = np.flatnonzero(ids == row["b"]) if row["b"] >= 0 else np.array([-1])
            if not (len(a) and len(b)):
                continue
            row = dict(row, a=int(a[0]), b=int(b[0]))
            at = min(k, len(self))
            for name, dtype in _FIELDS:
                setattr(self, name, np.insert(getattr(self, name), at, np.array(row[name], dtype)))
        self._planned()

    def unjoined(self, candidates, n):
        """The candidate pairs (collide.find_candidates' (i, j, ball, capsule)) without the
        ball pairs a joint joins: jointed balls do not collide (Box2D's default), so a hinge
        may hold two overlapping balls and a chain's links may overlap. Order kept."""
        i, j, si, s = candidates
        both = self.b >= 0
        if not both.any() or not len(i):
            return candidates
        lo = np.minimum(self.a[both], self.b[both])
        hi = np.maximum(self.a[both], self.b[both])
        keep = ~np.isin(i * n + j, lo * n + hi)
        return (i, j, si, s) if keep.all() else (i[keep], j[keep], si, s)

    def definitions(self):
        """The joints as normalised level items (their warm-start impulses are not kept)."""
        out = []
        for j in range(len(self)):
            d = {"kind": KINDS[int(self.kind[j])], "a": int(self.a[j]),
                 "b": int(self.b[j]) if self.b[j] >= 0 else [float(self.anchor_x[j]), float(self.anchor_y[j])],
                 "length": float(self.length[j]), "offset_a": [float(self.off_ax[j]), float(self.off_ay[j])],
                 "offset_b": [float(self.off_bx[j]), float(self.off_by[j])]}
            if self.has_motor[j]:
                d["motor"] = {"speed": float(self.base_speed[j]), "torque": float(self.torque[j]),
                              **({"key": MOTOR_KEYS[self.key[j] - 1]} if self.key[j] else {})}   # (motor_keys)
            if self.break_force[j] != NO_BREAK:
                d["break"] = float(self.break_force[j])
            out.append(d)
        return out

    def ends(self, pos, angle):
        """((J, 2), (J, 2)): the held points of a and of b (the anchor) in the world, m."""
        def held(ball, ox, oy):
            c, s = np.cos(angle[ball]), np.sin(angle[ball])
            return np.stack((pos[ball, 0] + c * ox - s * oy, pos[ball, 1] + s * ox + c * oy), axis=1)
        end_a = held(self.a, self.off_ax, self.off_ay)
        end_b = np.where((self.b >= 0)[:, None], held(np.maximum(self.b, 0), self.off_bx, self.off_by),
                         np.stack((self.anchor_x, self.anchor_y), axis=1))
        return end_a, end_b

    # --------------------------------------------------------------- the stages
    def prepare(self, h_move):
        """Once a tick: the softness for sub-steps that move positions by h_move dv (rigid, but
        soft at BLOCKS_HERTZ in several blocks or where the rods are ``strained``: the exact
        solve has no answer there, and a soft one settles), and the peak forces and the motors'
        work cleared (the warm-start impulses carry over, as Box2D's do)."""
        rigid = (1.0 / h_move, 1.0, 0.0) if h_move > 0.0 else (0.0, 1.0, 0.0)
        hertz = JOINT_HERTZ if len(self.blocks) <= 2 and not (self.strained or self.hand_strained) else BLOCKS_HERTZ
        self._soft = rigid if math.isinf(hertz) else soft(hertz, JOINT_DAMPING_RATIO, h_move)
        self.peak = np.zeros(len(self))
        self.work = np.zeros(len(self))

    def substep(self, world, h, h_move, kernel, warm_start=True):
        """Warm start, solve and relax every joint for one sub-step, in place on the world's
        pos, vel, angle and spin. ``kernel``: substep_kernel, or its compiled twin."""
        if not len(self) or world.count == 0:
            return
        pos = np.ascontiguousarray(world.pos, float)
        vel = np.ascontiguousarray(world.vel, float)
        px, py = pos[:, 0].copy(), pos[:, 1].copy()
        vx, vy = vel[:, 0].copy(), vel[:, 1].copy()
        angle = np.ascontiguousarray(world.angle, float).copy()
        spin = np.ascontiguousarray(world.spin, float).copy()
        balls = JointBalls(px, py, vx, vy, angle, spin, np.ascontiguousarray(world.inv_mass, float),
                           np.ascontiguousarray(world.inv_inertia, float), np.ascontiguousarray(world.radius, float))
        kernel(balls, self.kernel_rows(), self.params(h, h_move, warm_start))
        world.pos = np.stack((px, py), axis=1)
        world.vel = np.stack((vx, vy), axis=1)
        world.angle = angle
        world.spin = spin

    def params(self, h, h_move, warm_start=True):
        """The JointParams of a sub-step of h s moving positions by h_move dv (after ``prepare``)."""
        rate, mass_scale, impulse_scale = self._soft
        return JointParams(float(h), float(h_move), float(rate), float(mass_scale), float(impulse_scale),
                           bool(warm_start), JOINT_ITERATIONS, JOINT_RELAX_ITERATIONS)

    def kernel_rows(self):
        """The joints' arrays as the sub-step kernel takes them (the same arrays: it writes
        the impulses and peaks in place)."""
        return JointRows(self.a, self.b, self.kind, self.anchor_x, self.anchor_y, self.off_ax, self.off_ay,
                         self.off_bx, self.off_by, self.length, self.has_motor, self.speed, self.torque,
                         self.imp_x, self.imp_y, self.imp_m, self.peak, self.work, self.blocks)

    def broken(self):
        """(J,) bool: the joints whose force this tick exceeded their break force."""
        return self.peak > self.break_force
