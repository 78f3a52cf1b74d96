"""The bodies' kernels: manifolds, the swept test against statics, and the soft solve.

One source, two executions. The numpy execution runs these functions as they are (Python
loops over a sub-step's contact points); ``game.physics.compiled.bodies`` compiles these same
functions with numba, so the two are one algorithm in one order and give the same bits (IEEE
arithmetic, no fastmath).

Every shape is a rounded convex polygon (game.physics.shapes): corners counter-clockwise
with outward edge normals and a radius. A ball is one corner; a capsule (a plank, or a
static segment) two; a box four. The manifolds are Box2D v3's (src/manifold.c: the
separating axis, a reference face and an incident face clipped to it, or the closest
features where the shapes are apart): at most two points, each with its separation and the
id of the features that made it, so the warm start finds its impulse again next sub-step.

Arrays (built by game.physics.body_step, named by the column constants below):
- state ``st`` (P, 6) float: x, y, vx, vy, angle, spin of each participant (the bodies, then
  the balls that touch them, then the statics' still stand-in, inverse mass 0); ``inv``
  (P, 2): inverse mass and inverse inertia.
- shapes: ``sv``, ``sn`` (S, K, 2) corners and normals in world coordinates, ``sc`` (S, 2)
  int: corner count and owner (a participant), ``sf`` (S, 3): radius, friction, restitution.
- contact rows: ``ci`` (M, 2) int participants a, b; ``cf`` (M, NCF) float (columns below);
  the normal points from a to b.
- joint rows: ``ji`` (J, 3) int kind, a, b; ``jf`` (J, NJF) float.
"""
import math

import numpy as np


def jit(f):
    """Marks a kernel (game.physics.compiled.bodies compiles every function of this module)."""
    return f

# The rows' columns and the constants live with the manifolds (which write the contact rows);
# the solve, the joints and game.physics.bodies read them here too.
from game.physics.body_manifolds import (  # noqa: F401
    ANG, BREAK, DAMPING, EPS, FRIC, II, IM, IMPM, IMPN, IMPX, IMPY, KICK, LAX, LAY, LBX, LBY, LENGTH, LINEAR_SLOP,
    MAXPN, MN, MOTOR, MOUSE, MT, NCF, NJF, NX, NY, PEAK, PIN, PN, PR, PT, RAX, RAY, RBX, RBY, RELVN, REST,
    RESTITUTION_PASSES, ROD, ROLL, ROPE, SEP, SPECULATIVE, SPEED, SPRING, STIFF, SVX, SVY, TORQUE, VX, VY, W, X, Y,
    _max_separation, _segment_distance, collide)


# ----------------------------------------------------------------------------- the solve
@jit
def _apply(st, inv, a, b, px, py, rax, ray, rbx, rby, move, h_move):
    """Impulse (px, py) on b and its opposite on a at arms ra, rb; where ``move``, positions
    and angles follow the velocity change by h_move (x* was integrated before the solve)."""
    ima, iia = inv[a, IM], inv[a, II]
    imb, iib = inv[b, IM], inv[b, II]
    dva_x, dva_y, dwa = -ima * px, -ima * py, -iia * (rax * py - ray * px)
    dvb_x, dvb_y, dwb = imb * px, imb * py, iib * (rbx * py - rby * px)
    st[a, VX] += dva_x
    st[a, VY] += dva_y
    st[a, W] += dwa
    st[b, VX] += dvb_x
    st[b, VY] += dvb_y
    st[b, W] += dwb
    if move:
        st[a, X] += h_move * dva_x
        st[a, Y] += h_move * dva_y
        st[a, ANG] += h_move * dwa
        st[b, X] += h_move * dvb_x
        st[b, Y] += h_move * dvb_y
        st[b, ANG] += h_move * dwb


@jit
def prepare(st, inv, ci, cf, m):
    """Arms from the points ``collide`` wrote, the normal and tangent masses, and the relative
    normal speed before the solve (for restitution)."""
    for k in range(m):
        a = ci[k, 0]
        b = ci[k, 1]
        nx, ny = cf[k, NX], cf[k, NY]
        px, py = cf[k, RAX], cf[k, RAY]
        rax, ray = px - st[a, X], py - st[a, Y]
        rbx, rby = px - st[b, X], py - st[b, Y]
        cf[k, RAX], cf[k, RAY], cf[k, RBX], cf[k, RBY] = rax, ray, rbx, rby
        ma, ia, mb, ib = inv[a, IM], inv[a, II], inv[b, IM], inv[b, II]
        rna = rax * ny - ray * nx
        rnb = rbx * ny - rby * nx
        kn = ma + mb + ia * rna * rna + ib * rnb * rnb
        cf[k, MN] = 1.0 / kn if kn > 0.0 else 0.0
        tx, ty = ny, -nx
        rta = rax * ty - ray * tx
        rtb = rbx * ty - rby * tx
        kt = ma + mb + ia * rta * rta + ib * rtb * rtb
        cf[k, MT] = 1.0 / kt if kt > 0.0 else 0.0
        dvx = st[b, VX] - st[b, W] * rby + cf[k, SVX] - (st[a, VX] - st[a, W] * ray)
        dvy = st[b, VY] + st[b, W] * rbx + cf[k, SVY] - (st[a, VY] + st[a, W] * rax)
        cf[k, RELVN] = dvx * nx + dvy * ny
        cf[k, MAXPN] = 0.0


@jit
def _warm(st, st0, inv, ci, cf, m, ji, jf, nj, h_move, tau, turns):
    for k in range(m):
        a = ci[k, 0]
        b = ci[k, 1]
        nx, ny = cf[k, NX], cf[k, NY]
        px = cf[k, PN] * nx + cf[k, PT] * ny
        py = cf[k, PN] * ny - cf[k, PT] * nx
        if px != 0.0 or py != 0.0:
            rax, ray, rbx, rby, s = _contact_arms(st, st0, cf, k, a, b, tau, turns)
            _apply(st, inv, a, b, px, py, rax, ray, rbx, rby, False, h_move)
        if cf[k, PR] != 0.0:
            _torque(st, inv, a, b, cf[k, PR], False, h_move)
    for k in range(nj):
        a = ji[k, 1]
        b = ji[k, 2]
        rax, ray = _joint_arm(st, a, jf[k, LAX], jf[k, LAY])
        rbx, rby = _joint_arm(st, b, jf[k, LBX], jf[k, LBY])
        _apply(st, inv, a, b, jf[k, IMPX], jf[k, IMPY], rax, ray, rbx, rby, False, h_move)
        if jf[k, IMPM] != 0.0:
            _torque(st, inv, a, b, jf[k, IMPM], False, h_move)


@jit
def _turns(st, st0):
    """(P, 2): cos and sin of each participant's turn since the prepare (positions do not move
    within a pass set, so once a call)."""
    out = np.empty((len(st), 2))
    for p in range(len(st)):
        d = st[p, ANG] - st0[p, ANG]
        if d == 0.0:
            out[p, 0] = 1.0
            out[p, 1] = 0.0
        else:
            out[p, 0] = math.cos(d)
            out[p, 1] = math.sin(d)
    return out


@jit
def _contact_arms(st, st0, cf, k, a, b, tau, turns):
    """(rax, ray, rbx, rby, separation) of contact k now: its anchors fixed in the bodies at
    the prepare, turned with them since (``turns``: _turns; a moving wall's point carried by its
    velocity for the tau s since: SVX, SVY); the impulse acts at the midpoint of the two anchors,
    the same point for both (so it keeps angular momentum as it keeps momentum)."""
    ca, sa = turns[a, 0], turns[a, 1]
    cb, sb = turns[b, 0], turns[b, 1]
    rax = ca * cf[k, RAX] - sa * cf[k, RAY]
    ray = sa * cf[k, RAX] + ca * cf[k, RAY]
    rbx = cb * cf[k, RBX] - sb * cf[k, RBY]
    rby = sb * cf[k, RBX] + cb * cf[k, RBY]
    # Separation now: at the prepare, plus how far the two points have moved along n.
    dx = (st[b, X] + rbx) - (st0[b, X] + cf[k, RBX]) - ((st[a, X] + rax) - (st0[a, X] + cf[k, RAX]))
    dy = (st[b, Y] + rby) - (st0[b, Y] + cf[k, RBY]) - ((st[a, Y] + ray) - (st0[a, Y] + cf[k, RAY]))
    s = cf[k, SEP] + (dx + tau * cf[k, SVX]) * cf[k, NX] + (dy + tau * cf[k, SVY]) * cf[k, NY]
    px = 0.5 * ((st[a, X] + rax) + (st[b, X] + rbx))
    py = 0.5 * ((st[a, Y] + ray) + (st[b, Y] + rby))
    return px - st[a, X], py - st[a, Y], px - st[b, X], py - st[b, Y], s


@jit
def _solve_contacts(st, st0, inv, ci, cf, m, use_bias, params, tau, turns):
    """One pass over the contacts (``params`` as solve's; tau s since the prepare; ``turns``:
    _turns, the same for every pass of a call: no pass moves a position or an angle)."""
    soft_c = params[4:7]
    soft_s = params[7:10]
    inv_h = 1.0 / params[0]
    max_push = params[13]
    h_move = params[1]
    for k in range(m):
        a = ci[k, 0]
        b = ci[k, 1]
        nx, ny = cf[k, NX], cf[k, NY]
        rax, ray, rbx, rby, s = _contact_arms(st, st0, cf, k, a, b, tau, turns)
        static = inv[b, IM] == 0.0 or inv[a, IM] == 0.0
        bias = 0.0
        mass_scale = 1.0
        impulse_scale = 0.0
        if s > 0.0:
            bias = s * inv_h            # speculative: close at most the gap by the next sub-step
        elif use_bias:
            rate = soft_s[0] if static else soft_c[0]
            bias = max(rate * s, -max_push)
            mass_scale = soft_s[1] if static else soft_c[1]
            impulse_scale = soft_s[2] if static else soft_c[2]
        dvx = st[b, VX] - st[b, W] * rby + cf[k, SVX] - (st[a, VX] - st[a, W] * ray)
        dvy = st[b, VY] + st[b, W] * rbx + cf[k, SVY] - (st[a, VY] + st[a, W] * rax)
        vn = dvx * nx + dvy * ny
        impulse = -cf[k, MN] * mass_scale * (vn + bias) - impulse_scale * cf[k, PN]
        new = max(cf[k, PN] + impulse, 0.0)
        impulse = new - cf[k, PN]
        cf[k, PN] = new
        cf[k, MAXPN] = max(cf[k, MAXPN], impulse)
        _apply(st, inv, a, b, impulse * nx, impulse * ny, rax, ray, rbx, rby, False, h_move)
        # Friction, bounded by mu times the normal impulse.
        tx, ty = ny, -nx
        dvx = st[b, VX] - st[b, W] * rby + cf[k, SVX] - (st[a, VX] - st[a, W] * ray)
        dvy = st[b, VY] + st[b, W] * rbx + cf[k, SVY] - (st[a, VY] + st[a, W] * rax)
        vt = dvx * tx + dvy * ty
        impulse = -cf[k, MT] * vt
        limit = cf[k, FRIC] * cf[k, PN]
        new = min(max(cf[k, PT] + impulse, -limit), limit)
        impulse = new - cf[k, PT]
        cf[k, PT] = new
        _apply(st, inv, a, b, impulse * tx, impulse * ty, rax, ray, rbx, rby, False, h_move)
        # Rolling resistance (a ball's, on a body: ROLL its arm, rolling times radius, as the
        # balls' solve has it): an angular impulse on the relative spin, |PR| <= ROLL PN.
        if cf[k, ROLL] > 0.0:
            kr = inv[a, II] + inv[b, II]
            if kr > 0.0:
                limit = cf[k, ROLL] * cf[k, PN]
                new = min(max(cf[k, PR] - (st[b, W] - st[a, W]) / kr, -limit), limit)
                impulse = new - cf[k, PR]
                cf[k, PR] = new
                _torque(st, inv, a, b, impulse, False, h_move)


@jit
def _joint_arm(st, p, lx, ly):
    """A joint's local anchor (lx, ly) of participant p turned to the world's axes."""
    c = math.cos(st[p, ANG])
    s = math.sin(st[p, ANG])
    return c * lx - s * ly, s * lx + c * ly


@jit
def _torque(st, inv, a, b, impulse, move, h_move):
    """An angular impulse on b and its opposite on a."""
    dwa = -inv[a, II] * impulse
    dwb = inv[b, II] * impulse
    st[a, W] += dwa
    st[b, W] += dwb
    if move:
        st[a, ANG] += h_move * dwa
        st[b, ANG] += h_move * dwb


@jit
def _joint_geometry(st, jf, k, a, b):
    """Joint k's arms on a and b (b the last participant: an anchor in the world, no arm), the
    gap from a's held point to b's (cx, cy) and b's held point's velocity relative to a's."""
    rax, ray = _joint_arm(st, a, jf[k, LAX], jf[k, LAY])
    if b == len(st) - 1:
        rbx, rby = 0.0, 0.0
        pbx, pby = jf[k, LBX], jf[k, LBY]          # an anchor in the world
    else:
        rbx, rby = _joint_arm(st, b, jf[k, LBX], jf[k, LBY])
        pbx, pby = st[b, X] + rbx, st[b, Y] + rby
    cx = pbx - (st[a, X] + rax)
    cy = pby - (st[a, Y] + ray)
    dvx = st[b, VX] - st[b, W] * rby - (st[a, VX] - st[a, W] * ray)
    dvy = st[b, VY] + st[b, W] * rbx - (st[a, VY] + st[a, W] * rax)
    return rax, ray, rbx, rby, cx, cy, dvx, dvy


@jit
def _springs(st, inv, ji, jf, nj, h):
    """The springs' forces over one sub-step, applied as impulses h F at their ends before the
    passes: semi-implicit Euler (the forces from the sub-step's start; the positions then move
    with the new velocities), so an undamped spring keeps its energy bounded under every
    integrator. A spring stiffer (or more damped) than the sub-step can follow acts as the
    stiffest it can: k at most 1 / (h^2 K) and c at most 1 / (h K), K the inverse mass its ends
    have along it (omega h <= 1; semi-implicit Euler is stable below 2)."""
    for k in range(nj):
        if ji[k, 0] != SPRING:
            continue
        a = ji[k, 1]
        b = ji[k, 2]
        rax, ray, rbx, rby, cx, cy, dvx, dvy = _joint_geometry(st, jf, k, a, b)
        length = math.sqrt(cx * cx + cy * cy)
        if length < 1e-9:                 # ends together: no direction to push along
            continue
        nx, ny = cx / length, cy / length
        rna = rax * ny - ray * nx
        rnb = rbx * ny - rby * nx
        kn = inv[a, IM] + inv[b, IM] + inv[a, II] * rna * rna + inv[b, II] * rnb * rnb
        if kn == 0.0:
            continue
        stiff = min(jf[k, STIFF], 1.0 / (h * h * kn))
        damping = min(jf[k, DAMPING], 1.0 / (h * kn))
        force = stiff * (length - jf[k, LENGTH]) + damping * (dvx * nx + dvy * ny)   # N, pulling the ends together
        jf[k, IMPN] = h * force
        jf[k, PEAK] = max(jf[k, PEAK], abs(force))
        _apply(st, inv, a, b, -h * force * nx, -h * force * ny, rax, ray, rbx, rby, False, 0.0)


@jit
def _solve_joints(st, inv, ji, jf, nj, use_bias, soft_j, h, h_move):
    """Pins, rods and ropes between bodies (and the balls and anchors they hold), with their
    motors: Box2D v3's revolute and distance joints, soft in the biased passes, rigid in relax."""
    for k in range(nj):
        kind = ji[k, 0]
        if kind == SPRING:              # a force, not a constraint: _springs, once a sub-step
            continue
        a = ji[k, 1]
        b = ji[k, 2]
        ma, ia, mb, ib = inv[a, IM], inv[a, II], inv[b, IM], inv[b, II]
        if kind == MOUSE and ia > 0.0:
            # The grab damps the body's turning viscously: each pass takes DAMPING h of its spin
            # (DAMPING 1/s), so it swings about the held point and comes to hang straight below it.
            st[a, W] -= min(1.0, jf[k, DAMPING] * h) * st[a, W]
        elif jf[k, MOTOR] != 0.0 and ia + ib > 0.0:
            # The motor: a turns relative to b at SPEED rad/s with at most TORQUE N m.
            cdot = st[a, W] - st[b, W] - jf[k, SPEED]
            impulse = -cdot / (ia + ib)
            old = jf[k, IMPM]
            limit = jf[k, TORQUE] * h
            new = min(max(old - impulse, -limit), limit)
            _torque(st, inv, a, b, new - old, False, h_move)
            jf[k, IMPM] = new
        rax, ray, rbx, rby, cx, cy, dvx, dvy = _joint_geometry(st, jf, k, a, b)
        if kind == PIN or kind == MOUSE:
            k11 = ma + mb + ia * ray * ray + ib * rby * rby
            k12 = -ia * ray * rax - ib * rby * rbx
            k22 = ma + mb + ia * rax * rax + ib * rbx * rbx
            bx, by = dvx, dvy
            mass_scale, impulse_scale = 1.0, 0.0
            if kind == MOUSE:
                # The grab: a soft spring of its own (LENGTH Hz, damping ratio SPEED), always.
                omega = 2.0 * math.pi * jf[k, LENGTH]
                a1 = 2.0 * jf[k, SPEED] + h * omega
                a2 = h * omega * a1
                a3 = 1.0 / (1.0 + a2)
                bx += omega / a1 * cx
                by += omega / a1 * cy
                mass_scale, impulse_scale = a2 * a3, a3
            elif use_bias:
                bx += soft_j[0] * cx
                by += soft_j[0] * cy
                mass_scale, impulse_scale = soft_j[1], soft_j[2]
            det = k11 * k22 - k12 * k12
            if det != 0.0:
                det = 1.0 / det
            sx = det * (k22 * bx - k12 * by)
            sy = det * (k11 * by - k12 * bx)
            px = -mass_scale * sx - impulse_scale * jf[k, IMPX]
            py = -mass_scale * sy - impulse_scale * jf[k, IMPY]
            if kind == MOUSE:
                # At most TORQUE newtons (the grab's force limit): the impulse so far clamped.
                tx, ty = jf[k, IMPX] + px, jf[k, IMPY] + py
                most = jf[k, TORQUE] * h
                size = math.sqrt(tx * tx + ty * ty)
                if size > most:
                    px = tx * most / size - jf[k, IMPX]
                    py = ty * most / size - jf[k, IMPY]
            jf[k, IMPX] += px
            jf[k, IMPY] += py
            _apply(st, inv, a, b, px, py, rax, ray, rbx, rby, False, h_move)
        else:
            length = math.sqrt(cx * cx + cy * cy)
            if length < 1e-9:
                continue
            nx, ny = cx / length, cy / length
            c = length - jf[k, LENGTH]
            rna = rax * ny - ray * nx
            rnb = rbx * ny - rby * nx
            kn = ma + mb + ia * rna * rna + ib * rnb * rnb
            if kn == 0.0:
                continue
            vn = dvx * nx + dvy * ny
            total = jf[k, IMPN]
            bias, mass_scale, impulse_scale = 0.0, 1.0, 0.0
            if kind == ROPE and c < 0.0:
                bias = c / h            # slack: it may close the slack by the next sub-step, no more
            elif use_bias:
                bias = soft_j[0] * c
                mass_scale, impulse_scale = soft_j[1], soft_j[2]
            impulse = -mass_scale * (vn + bias) / kn - impulse_scale * total
            new = total + impulse
            if kind == ROPE:
                new = min(new, 0.0)     # a rope pulls, never pushes
            impulse = new - total
            jf[k, IMPN] = new
            # The impulse along n, kept in IMPX/IMPY as well for the warm start.
            jf[k, IMPX] = new * nx
            jf[k, IMPY] = new * ny
            _apply(st, inv, a, b, impulse * nx, impulse * ny, rax, ray, rbx, rby, False, h_move)
        force = math.sqrt(jf[k, IMPX] * jf[k, IMPX] + jf[k, IMPY] * jf[k, IMPY]) / h
        jf[k, PEAK] = max(jf[k, PEAK], force)


@jit
def _restitution(st, st0, inv, ci, cf, m, threshold, tau):
    """Box2D's restitution: a point that closed faster than ``threshold`` and took an impulse
    leaves at e times the speed it came in (its normal impulse stays >= 0). Passes repeat
    (at most RESTITUTION_PASSES) until every such point leaves within 0.1 % of its speed: a
    box landing flat has two points, and one pass over them, one after the other, gives back
    only part of the impulse the two share."""
    turns = _turns(st, st0)
    for _ in range(RESTITUTION_PASSES):
        worst = 0.0
        for k in range(m):
            e = cf[k, REST]
            kick = cf[k, KICK]            # a bumper: the point leaves at least kick m/s away
            if (e == 0.0 and kick == 0.0) or cf[k, RELVN] > -threshold or cf[k, MAXPN] == 0.0:
                continue
            a = ci[k, 0]
            b = ci[k, 1]
            nx, ny = cf[k, NX], cf[k, NY]
            rax, ray, rbx, rby, s = _contact_arms(st, st0, cf, k, a, b, tau, turns)
            dvx = st[b, VX] - st[b, W] * rby + cf[k, SVX] - (st[a, VX] - st[a, W] * ray)
            dvy = st[b, VY] + st[b, W] * rbx + cf[k, SVY] - (st[a, VY] + st[a, W] * rax)
            vn = dvx * nx + dvy * ny
            target = -e * cf[k, RELVN]
            if kick > target:
                target = kick
            impulse = -cf[k, MN] * (vn - target)
            new = max(cf[k, PN] + impulse, 0.0)
            impulse = new - cf[k, PN]
            cf[k, PN] = new
            if new > 0.0:
                worst = max(worst, abs(vn - target) / target)
            _apply(st, inv, a, b, impulse * nx, impulse * ny, rax, ray, rbx, rby, False, 0.0)
        if worst < 1e-3:
            break


@jit
def solve(st, sub0, st0, inv, ci, cf, m, ji, jf, params, shift, nb):
    """One sub-step's biased solve of the bodies' contacts and joints (Box2D v3's soft step),
    then the positions. ``st0``: the participants at the tick's prepare (the contacts' anchors
    and separations are measured from it); ``sub0``: at this sub-step's start (written here).
    Warm start, ``iterations`` biased passes (contacts, then joints) at the sub-step's start,
    then the bodies move by h v + shift (shift (P, 2): what the integrator moves a body beyond h
    times its new velocity, e.g. -h^2 g / 2 under rk4) and turn by h spin; the balls that took
    part (participants nb.., already integrated with the balls) move by h_move times their
    velocity change, as the balls' own solve moves them. ``relax`` follows (after the swept
    test). ``params``: h, h_move, iterations, relax, contact soft (3), static soft (3), joint
    soft (3), max push m/s, restitution threshold m/s, warm start (0/1), tau (s since the
    prepare at this sub-step's start)."""
    h = params[0]
    h_move = params[1]
    iterations = int(params[2])
    soft_j = params[10:13]
    tau = params[16]
    nj = ji.shape[0]
    for p in range(len(st)):
        for c in range(6):
            sub0[p, c] = st[p, c]
    turns = _turns(st, st0)         # (the warm start, the springs and the passes turn nothing)
    if params[15] != 0.0:
        _warm(st, st0, inv, ci, cf, m, ji, jf, nj, h_move, tau, turns)
    else:
        for k in range(m):
            cf[k, PN] = 0.0
            cf[k, PT] = 0.0
        for k in range(nj):
            jf[k, IMPX] = 0.0
            jf[k, IMPY] = 0.0
            jf[k, IMPN] = 0.0
            jf[k, IMPM] = 0.0
    _springs(st, inv, ji, jf, nj, h)
    for _ in range(iterations):
        _solve_contacts(st, st0, inv, ci, cf, m, True, params, tau, turns)
        _solve_joints(st, inv, ji, jf, nj, True, soft_j, h, h_move)
    last = len(st) - 1
    for p in range(last):
        if p < nb:
            st[p, X] += h * st[p, VX] + shift[p, 0]
            st[p, Y] += h * st[p, VY] + shift[p, 1]
            st[p, ANG] += h * st[p, W]
        else:
            st[p, X] += h_move * (st[p, VX] - sub0[p, VX])
            st[p, Y] += h_move * (st[p, VY] - sub0[p, VY])
            st[p, ANG] += h_move * (st[p, W] - sub0[p, W])


@jit
def relax(st, st0, inv, ci, cf, m, ji, jf, nj, params):
    """The relax passes without the bias (the speculative gaps still held), after the positions
    moved (``solve``) and the swept test."""
    h = params[0]
    h_move = params[1]
    relax_iterations = int(params[3])
    soft_j = params[10:13]
    turns = _turns(st, st0)
    for _ in range(relax_iterations):
        _solve_contacts(st, st0, inv, ci, cf, m, False, params, params[16] + h, turns)
        _solve_joints(st, inv, ji, jf, nj, False, soft_j, h, h_move)


@jit
def restitution(st, st0, inv, ci, cf, m, params):
    """Restitution at the tick's end (Box2D applies it once a step, after the sub-steps)."""
    _restitution(st, st0, inv, ci, cf, m, params[14], params[16] + params[0])


# ----------------------------------------------------------------------------- swept test
@jit
def _poly_distance(va, ca, ra, vb, cb, rb):
    """The distance between two rounded convex polygons (0 where their cores overlap):
    the least of corner-to-edge distances both ways, less the radii."""
    edge_a, sep_a = _max_separation_free(va, ca, vb, cb)
    edge_b, sep_b = _max_separation_free(vb, cb, va, ca)
    if sep_a < 0.0 and sep_b < 0.0 and ca > 2 and cb > 2:
        return max(sep_a, sep_b) - ra - rb
    best = 1e300
    for i in range(ca):
        i2 = i + 1 if i + 1 < ca else 0
        for j in range(cb):
            j2 = j + 1 if j + 1 < cb else 0
            _, _, d2 = _segment_distance(va[i, 0], va[i, 1], va[i2, 0], va[i2, 1],
                                         vb[j, 0], vb[j, 1], vb[j2, 0], vb[j2, 1])
            if d2 < best:
                best = d2
    return math.sqrt(best) - ra - rb


@jit
def _max_separation_free(v1, c1, v2, c2):
    """_max_separation with poly 1's normals computed from its corners (c1 >= 3)."""
    if c1 < 3:
        return 0, -1e300
    n1 = np.empty((c1, 2))
    for i in range(c1):
        i2 = i + 1 if i + 1 < c1 else 0
        ex, ey = v1[i2, 0] - v1[i, 0], v1[i2, 1] - v1[i, 1]
        el = math.sqrt(ex * ex + ey * ey)
        n1[i, 0], n1[i, 1] = ey / el, -ex / el
    return _max_separation(v1, n1, c1, v2, c2)


@jit
def _posed(local, count, x, y, angle, out):
    c = math.cos(angle)
    s = math.sin(angle)
    for i in range(count):
        out[i, 0] = x + c * local[i, 0] - s * local[i, 1]
        out[i, 1] = y + s * local[i, 0] + c * local[i, 1]


@jit
def sweep(local, counts, radii, extent, prev, now, sv, sc, sf, pair_body, pair_static, hit):
    """Bodies swept against statics (conservative advancement, Box2D's time of impact for
    rounded polygons): body b moves from pose prev[b] (x, y, angle) to now[b]; for each
    candidate (pair_body[k], pair_static[k]) the first t in [0, 1] at which the body comes
    within LINEAR_SLOP of the static (its distance bounded by the move |dx| + |d angle|
    extent[b]). ``hit[b]``: the least such t (1 where none); a static it touched at the
    start (a static it touched at the start is the contacts'). ``hit`` starts at 1."""
    work = np.zeros((local.shape[1], 2))
    for k in range(len(pair_body)):
        b = pair_body[k]
        j = pair_static[k]
        count = counts[b]
        dx = now[b, 0] - prev[b, 0]
        dy = now[b, 1] - prev[b, 1]
        da = now[b, 2] - prev[b, 2]
        bound = math.sqrt(dx * dx + dy * dy) + abs(da) * extent[b]
        if bound <= 0.0:
            continue
        target = LINEAR_SLOP
        t = 0.0
        for _ in range(30):
            _posed(local[b], count, prev[b, 0] + t * dx, prev[b, 1] + t * dy, prev[b, 2] + t * da, work)
            d = _poly_distance(work, count, radii[b], sv[j], sc[j, 0], sf[j, 0])
            if d <= target + 0.25 * LINEAR_SLOP:
                if t == 0.0:
                    t = -1.0
                break
            t += (d - target) / bound
            if t >= 1.0:
                break
        if 0.0 <= t < hit[b]:
            hit[b] = t


# ----------------------------------------------------------------------------- solve order
COLOURS = 62                # colours of the solve order (a point that finds all taken goes last)


@jit
def colour_order(ci, moving, m):
    """The contact points' solve order (M,) int64, Box2D v3's graph colouring: each point, as
    collide wrote them, takes the least colour that no earlier point on either of its moving
    participants took (``moving`` (P,) bool: the awake bodies and the balls taking part; a
    static, or a sleeping body, is shared freely); the order is by colour, and as written
    within one. A manifold's two points, which share both bodies, were solved one after the
    other, each waiting on the other's result; now a pass's neighbours seldom share a body,
    and a pass no longer sweeps a pile from one side to the other (a 100-row pyramid's top
    swayed 15 cm, now 8)."""
    used = np.zeros(len(moving), np.int64)
    colour = np.empty(m, np.int64)
    count = np.zeros(COLOURS + 1, np.int64)
    for k in range(m):
        a = ci[k, 0]
        b = ci[k, 1]
        taken = 0
        if moving[a]:
            taken |= used[a]
        if moving[b]:
            taken |= used[b]
        c = 0
        while c < COLOURS and (taken >> c) & 1:
            c += 1
        colour[k] = c
        count[c] += 1
        if c < COLOURS:
            if moving[a]:
                used[a] |= 1 << c
            if moving[b]:
                used[b] |= 1 << c
    start = np.zeros(COLOURS + 1, np.int64)
    for c in range(COLOURS):
        start[c + 1] = start[c] + count[c]
    order = np.empty(m, np.int64)
    for k in range(m):
        order[start[colour[k]]] = k
        start[colour[k]] += 1
    return order


# ----------------------------------------------------------------------------- broad phase
@jit
def box_pairs(lo1, hi1, lo2, hi2, same, out_i, out_j):
    """The pairs (i, j) whose boxes [lo1[i], hi1[i]] and [lo2[j], hi2[j]] overlap, written to
    out_i, out_j in order of i (``same``: one set, i < j only); for each i, set 2's boxes in
    order of their left edges (ties in index order), those wider than four times the median
    (a long floor, tried against every i) after the others. The narrow ones are sorted along
    x, each i looking at those that start at most the widest one's width left of it: through
    a grid of cells as wide as the widest and as tall as the tallest where it fits (_box_grid:
    a pyramid of boxes stands in columns a sweep along x reads whole), else by sweeping the
    sorted list; either way the same pairs in the same order. Returns the number of pairs, or
    minus the number needed where out_i is too short (call again)."""
    n1 = lo1.shape[0]
    n2 = lo2.shape[0]
    if n1 == 0 or n2 == 0:
        return 0
    width = hi2[:, 0] - lo2[:, 0]
    cut = 4.0 * np.median(width)
    if cut < 1e-9:
        cut = 1e-9
    order = np.argsort(lo2[:, 0], kind="mergesort")
    narrow = np.empty(n2, np.int64)
    wide = np.empty(n2, np.int64)
    nn = 0
    nw = 0
    window = 0.0
    tall = 0.0
    for q in range(n2):
        j = order[q]
        if width[j] > cut:
            wide[nw] = j
            nw += 1
        else:
            narrow[nn] = j
            nn += 1
            if width[j] > window:
                window = width[j]
            if hi2[j, 1] - lo2[j, 1] > tall:
                tall = hi2[j, 1] - lo2[j, 1]
    xs = np.empty(nn)
    for q in range(nn):
        xs[q] = lo2[narrow[q], 0]
    starts, ranks, gx, gy, x0, y0 = _box_grid(lo2, narrow, nn, window, tall)
    found = np.empty(nn, np.int64)
    count = 0
    capacity = out_i.shape[0]
    for i in range(n1):
        left = lo1[i, 0] - window
        nf = 0
        if gx > 0:
            # The cells that can hold a box starting in [left, hi x] and reaching this one in
            # y (a cell lower for the rounding of a height), column by column: a column's
            # ranks all come before the next column's (the cells follow x), so each column's
            # are sorted on their own.
            ay = max(_cell(lo1[i, 1] - tall, y0, tall, gy) - 1, 0)
            by = min(_cell(hi1[i, 1], y0, tall, gy), gy - 1)
            for cx in range(max(_cell(left, x0, window, gx), 0), min(_cell(hi1[i, 0], x0, window, gx), gx - 1) + 1):
                first = nf
                for cy in range(ay, by + 1):
                    c = cx * gy + cy
                    for r in range(starts[c], starts[c + 1]):
                        found[nf] = ranks[r]
                        nf += 1
                _sort_small(found, first, nf)
        else:
            q = np.searchsorted(xs, left)
            while q < nn and xs[q] <= hi1[i, 0]:
                found[nf] = q
                nf += 1
                q += 1
        for f in range(nf):
            q = found[f]
            if not (left <= xs[q] and xs[q] <= hi1[i, 0]):
                continue
            j = narrow[q]
            if same and j <= i:
                continue
            if lo1[i, 0] <= hi2[j, 0] and lo1[i, 1] <= hi2[j, 1] and lo2[j, 1] <= hi1[i, 1]:
                if count < capacity:
                    out_i[count] = i
                    out_j[count] = j
                count += 1
        for w in range(nw):
            j = wide[w]
            if same and j <= i:
                continue
            if lo1[i, 0] <= hi2[j, 0] and lo2[j, 0] <= hi1[i, 0] and lo1[i, 1] <= hi2[j, 1] and lo2[j, 1] <= hi1[i, 1]:
                if count < capacity:
                    out_i[count] = i
                    out_j[count] = j
                count += 1
    if count > capacity:
        return -count
    return count


GRID_MIN = 64              # narrow boxes: fewer are swept
GRID_CELLS_PER_BOX = 4     # a grid of more cells than this a box (a sparse world) is not built


@jit
def _cell(v, origin, size, cells):
    """The cell (0..cells-1) of coordinate v in cells of ``size`` from ``origin``; -1 left of
    them (or NaN), ``cells`` right of them."""
    f = (v - origin) / size
    if not f >= 0.0:                  # (and NaN)
        return -1
    if f >= cells:
        return cells
    return int(f)


@jit
def _box_grid(lo2, narrow, nn, cx, cy):
    """The narrow boxes' ranks q (their order along x) in cells of cx by cy m by their lower
    left corners, each cell's ranks ascending: (starts (cells + 1), ranks (nn), gx, gy, x0, y0).
    gx is 0 where no grid is built: too few boxes, a zero cell, a box not finite, or too many
    cells."""
    starts = np.zeros(1, np.int64)
    ranks = np.zeros(1, np.int64)
    if nn < GRID_MIN or not (cx > 0.0 and cy > 0.0):
        return starts, ranks, 0, 0, 0.0, 0.0
    x0 = lo2[narrow[0], 0]
    y0 = lo2[narrow[0], 1]
    x1 = x0
    y1 = y0
    for q in range(nn):
        j = narrow[q]
        if not (abs(lo2[j, 0]) < 1e300 and abs(lo2[j, 1]) < 1e300):
            return starts, ranks, 0, 0, 0.0, 0.0
        x0 = min(x0, lo2[j, 0])
        x1 = max(x1, lo2[j, 0])
        y0 = min(y0, lo2[j, 1])
        y1 = max(y1, lo2[j, 1])
    fx = (x1 - x0) / cx
    fy = (y1 - y0) / cy
    limit = GRID_CELLS_PER_BOX * nn
    if not (fx < limit and fy < limit):
        return starts, ranks, 0, 0, 0.0, 0.0
    gx = int(fx) + 1
    gy = int(fy) + 1
    if gx * gy > limit:
        return starts, ranks, 0, 0, 0.0, 0.0
    starts = np.zeros(gx * gy + 1, np.int64)
    ranks = np.empty(nn, np.int64)
    cell = np.empty(nn, np.int64)
    for q in range(nn):
        j = narrow[q]
        cell[q] = min(_cell(lo2[j, 0], x0, cx, gx), gx - 1) * gy + min(_cell(lo2[j, 1], y0, cy, gy), gy - 1)
        starts[cell[q] + 1] += 1
    for c in range(gx * gy):
        starts[c + 1] += starts[c]
    fill = starts[:gx * gy].copy()
    for q in range(nn):               # q ascending: each cell's ranks ascending
        ranks[fill[cell[q]]] = q
        fill[cell[q]] += 1
    return starts, ranks, gx, gy, x0, y0


@jit
def _sort_small(a, lo, hi):
    """a[lo:hi] ascending in place: insertion sort (a few candidates), np.sort past 32."""
    if hi - lo > 32:
        a[lo:hi] = np.sort(a[lo:hi])
        return
    for k in range(lo + 1, hi):
        v = a[k]
        p = k - 1
        while p >= lo and a[p] > v:
            a[p + 1] = a[p]
            p -= 1
        a[p + 1] = v

