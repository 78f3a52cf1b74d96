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

# Contact row columns (cf).
NX, NY, RAX, RAY, RBX, RBY, SEP, MN, MT, FRIC, REST, RELVN, PN, PT, MAXPN, SVX, SVY = range(17)
NCF = 17
# Joint kinds and columns (jf).
PIN, ROD, ROPE, MOUSE = 0, 1, 2, 3   # MOUSE: the player's grab (LENGTH Hz, SPEED damping, TORQUE N)
(LAX, LAY, LBX, LBY, LENGTH, IMPX, IMPY, IMPN, MOTOR, SPEED, TORQUE, IMPM, PEAK, BREAK, DAMPING) = range(15)
NJF = 15
# Participant state columns (st) and inverse masses (inv).
X, Y, VX, VY, ANG, W = range(6)
IM, II = 0, 1

LINEAR_SLOP = 0.005        # m: Box2D's linear slop
SPECULATIVE = 4 * LINEAR_SLOP   # m: a pair joins the contacts this far apart (plus the way it closes)
RESTITUTION_PASSES = 8    # passes of the restitution at most (see _restitution)
EPS = 1.1920929e-07        # FLT_EPSILON, as Box2D compares with it


# ----------------------------------------------------------------------------- manifolds
@jit
def _circle_polygon(cv, cr, pv, pn, pcount, pr, out, speculative):
    """Box2D's b2CollidePolygonAndCircle in world coordinates: polygon (pv, pn, pcount, pr)
    against a circle at cv of radius cr. ``out`` (2, 5): rows nx, ny, px, py, separation of a
    point (normal from the polygon to the circle). Returns the number of points (0 or 1)."""
    radius = pr + cr
    if pcount == 2:
        # A capsule: the closest point of its segment (b2CollideCapsuleAndCircle).
        ex, ey = pv[1, 0] - pv[0, 0], pv[1, 1] - pv[0, 1]
        s1 = (cv[0] - pv[0, 0]) * ex + (cv[1] - pv[0, 1]) * ey
        s2 = (pv[1, 0] - cv[0]) * ex + (pv[1, 1] - cv[1]) * ey
        if s1 < 0.0:
            qx, qy = pv[0, 0], pv[0, 1]
        elif s2 < 0.0:
            qx, qy = pv[1, 0], pv[1, 1]
        else:
            f = s1 / (ex * ex + ey * ey)
            qx, qy = pv[0, 0] + f * ex, pv[0, 1] + f * ey
        dx, dy = cv[0] - qx, cv[1] - qy
        d = math.sqrt(dx * dx + dy * dy)
        if d - radius > speculative:
            return 0
        if d < 1e-12:
            nx, ny = pn[0, 0], pn[0, 1]
        else:
            nx, ny = dx / d, dy / d
        ax, ay = qx + pr * nx, qy + pr * ny
        bx, by = cv[0] - cr * nx, cv[1] - cr * ny
        out[0, 0], out[0, 1] = nx, ny
        out[0, 2], out[0, 3] = 0.5 * (ax + bx), 0.5 * (ay + by)
        out[0, 4] = d - radius
        return 1
    best = 0
    separation = -1e300
    for i in range(pcount):
        s = pn[i, 0] * (cv[0] - pv[i, 0]) + pn[i, 1] * (cv[1] - pv[i, 1])
        if s > separation:
            separation = s
            best = i
    if separation > radius + speculative:
        return 0
    i2 = best + 1 if best + 1 < pcount else 0
    v1x, v1y = pv[best, 0], pv[best, 1]
    v2x, v2y = pv[i2, 0], pv[i2, 1]
    u1 = (cv[0] - v1x) * (v2x - v1x) + (cv[1] - v1y) * (v2y - v1y)
    u2 = (cv[0] - v2x) * (v1x - v2x) + (cv[1] - v2y) * (v1y - v2y)
    if pcount == 1 or ((u1 < 0.0 or u2 < 0.0) and separation > EPS):
        vx, vy = (v1x, v1y) if (pcount == 1 or u1 < 0.0) else (v2x, v2y)
        dx, dy = cv[0] - vx, cv[1] - vy
        d = math.sqrt(dx * dx + dy * dy)
        if d < 1e-12:
            nx, ny = (pn[best, 0], pn[best, 1]) if pcount > 1 else (0.0, 1.0)
        else:
            nx, ny = dx / d, dy / d
        if d - radius > speculative:
            return 0
        ax, ay = vx + pr * nx, vy + pr * ny
        bx, by = cv[0] - cr * nx, cv[1] - cr * ny
        out[0, 0], out[0, 1] = nx, ny
        out[0, 2], out[0, 3] = 0.5 * (ax + bx), 0.5 * (ay + by)
        out[0, 4] = d - radius
        return 1
    nx, ny = pn[best, 0], pn[best, 1]
    depth = (cv[0] - v1x) * nx + (cv[1] - v1y) * ny
    ax, ay = cv[0] + (pr - depth) * nx, cv[1] + (pr - depth) * ny
    bx, by = cv[0] - cr * nx, cv[1] - cr * ny
    out[0, 0], out[0, 1] = nx, ny
    out[0, 2], out[0, 3] = 0.5 * (ax + bx), 0.5 * (ay + by)
    out[0, 4] = separation - radius
    return 1


@jit
def _max_separation(v1, n1, c1, v2, c2):
    """(edge, separation): poly 1's edge whose normal separates the most (b2FindMaxSeparation)."""
    best = 0
    most = -1e300
    for i in range(c1):
        si = 1e300
        for j in range(c2):
            s = n1[i, 0] * (v2[j, 0] - v1[i, 0]) + n1[i, 1] * (v2[j, 1] - v1[i, 1])
            if s < si:
                si = s
        if si > most:
            most = si
            best = i
    return best, most


@jit
def _segment_distance(p1x, p1y, q1x, q1y, p2x, p2y, q2x, q2y):
    """Closest points of segments p1q1 and p2q2 (Ericson 5.1.9, as b2SegmentDistance):
    (fraction1, fraction2, distance squared)."""
    d1x, d1y = q1x - p1x, q1y - p1y
    d2x, d2y = q2x - p2x, q2y - p2y
    rx, ry = p1x - p2x, p1y - p2y
    dd1 = d1x * d1x + d1y * d1y
    dd2 = d2x * d2x + d2y * d2y
    rd1 = rx * d1x + ry * d1y
    rd2 = rx * d2x + ry * d2y
    eps2 = EPS * EPS
    if dd1 < eps2 or dd2 < eps2:
        if dd1 >= eps2:
            f1 = min(max(-rd1 / dd1, 0.0), 1.0)
            f2 = 0.0
        elif dd2 >= eps2:
            f1 = 0.0
            f2 = min(max(rd2 / dd2, 0.0), 1.0)
        else:
            f1 = 0.0
            f2 = 0.0
    else:
        d12 = d1x * d2x + d1y * d2y
        denom = dd1 * dd2 - d12 * d12
        f1 = 0.0
        if denom != 0.0:
            f1 = min(max((d12 * rd2 - rd1 * dd2) / denom, 0.0), 1.0)
        f2 = (d12 * f1 + rd2) / dd2
        if f2 < 0.0:
            f2 = 0.0
            f1 = min(max(-rd1 / dd1, 0.0), 1.0)
        elif f2 > 1.0:
            f2 = 1.0
            f1 = min(max((d12 - rd1) / dd1, 0.0), 1.0)
    c1x, c1y = p1x + f1 * d1x, p1y + f1 * d1y
    c2x, c2y = p2x + f2 * d2x, p2y + f2 * d2y
    ex, ey = c1x - c2x, c1y - c2y
    return f1, f2, ex * ex + ey * ey


@jit
def _clip(v1, n1, c1, r1, v2, c2, r2, e1, e2, flip, out, ids):
    """b2ClipPolygons: reference edge e1 of poly 1 against incident edge e2 of poly 2. Writes
    up to two points to ``out`` rows (nx, ny, px, py, separation) with the normal from A to
    B (poly 1 is B where ``flip``) and feature ids; returns their number."""
    i11 = e1
    i12 = e1 + 1 if e1 + 1 < c1 else 0
    i21 = e2
    i22 = e2 + 1 if e2 + 1 < c2 else 0
    nx, ny = n1[i11, 0], n1[i11, 1]
    v11x, v11y = v1[i11, 0], v1[i11, 1]
    v12x, v12y = v1[i12, 0], v1[i12, 1]
    v21x, v21y = v2[i21, 0], v2[i21, 1]
    v22x, v22y = v2[i22, 0], v2[i22, 1]
    tx, ty = -ny, nx                      # b2CrossSV(1, n)
    lower1 = 0.0
    upper1 = (v12x - v11x) * tx + (v12y - v11y) * ty
    upper2 = (v21x - v11x) * tx + (v21y - v11y) * ty
    lower2 = (v22x - v11x) * tx + (v22y - v11y) * ty
    if upper2 < lower1 or upper1 < lower2:
        return 0
    if lower2 < lower1 and upper2 - lower2 > EPS:
        f = (lower1 - lower2) / (upper2 - lower2)
        lx, ly = v22x + f * (v21x - v22x), v22y + f * (v21y - v22y)
    else:
        lx, ly = v22x, v22y
    if upper2 > upper1 and upper2 - lower2 > EPS:
        f = (upper1 - lower2) / (upper2 - lower2)
        ux, uy = v22x + f * (v21x - v22x), v22y + f * (v21y - v22y)
    else:
        ux, uy = v21x, v21y
    sl = (lx - v11x) * nx + (ly - v11y) * ny
    su = (ux - v11x) * nx + (uy - v11y) * ny
    lx, ly = lx + 0.5 * (r1 - r2 - sl) * nx, ly + 0.5 * (r1 - r2 - sl) * ny
    ux, uy = ux + 0.5 * (r1 - r2 - su) * nx, uy + 0.5 * (r1 - r2 - su) * ny
    radius = r1 + r2
    if not flip:
        out[0, 0], out[0, 1], out[0, 2], out[0, 3], out[0, 4] = nx, ny, lx, ly, sl - radius
        ids[0] = i11 * 256 + i22
        out[1, 0], out[1, 1], out[1, 2], out[1, 3], out[1, 4] = nx, ny, ux, uy, su - radius
        ids[1] = i12 * 256 + i21
    else:
        out[0, 0], out[0, 1], out[0, 2], out[0, 3], out[0, 4] = -nx, -ny, ux, uy, su - radius
        ids[0] = i21 * 256 + i12
        out[1, 0], out[1, 1], out[1, 2], out[1, 3], out[1, 4] = -nx, -ny, lx, ly, sl - radius
        ids[1] = i22 * 256 + i11
    return 2


@jit
def _polygons(va, na, ca, ra, vb, nb, cb, rb, out, ids, speculative):
    """b2CollidePolygons in world coordinates (normal from A to B): the separating axis, the
    incident edge, then the edges clipped, or the closest vertices where the shapes are apart
    and a vertex pair is much closer than the clipped points. Returns the points' number."""
    edge_a, sep_a = _max_separation(va, na, ca, vb, cb)
    edge_b, sep_b = _max_separation(vb, nb, cb, va, ca)
    radius = ra + rb
    if sep_a > speculative + radius or sep_b > speculative + radius:
        return 0
    if sep_a >= sep_b:
        flip = False
        sx, sy = na[edge_a, 0], na[edge_a, 1]
        edge_b = 0
        least = 1e300
        for i in range(cb):
            d = sx * nb[i, 0] + sy * nb[i, 1]
            if d < least:
                least = d
                edge_b = i
    else:
        flip = True
        sx, sy = nb[edge_b, 0], nb[edge_b, 1]
        edge_a = 0
        least = 1e300
        for i in range(ca):
            d = sx * na[i, 0] + sy * na[i, 1]
            if d < least:
                least = d
                edge_a = i
    if sep_a > 0.1 * LINEAR_SLOP or sep_b > 0.1 * LINEAR_SLOP:
        i11 = edge_a
        i12 = edge_a + 1 if edge_a + 1 < ca else 0
        i21 = edge_b
        i22 = edge_b + 1 if edge_b + 1 < cb else 0
        f1, f2, d2 = _segment_distance(va[i11, 0], va[i11, 1], va[i12, 0], va[i12, 1],
                                       vb[i21, 0], vb[i21, 1], vb[i22, 0], vb[i22, 1])
        distance = math.sqrt(d2)
        if distance - radius > speculative:
            return 0
        if flip:
            count = _clip(vb, nb, cb, rb, va, ca, ra, edge_b, edge_a, True, out, ids)
        else:
            count = _clip(va, na, ca, ra, vb, cb, rb, edge_a, edge_b, False, out, ids)
        least = 1e300
        for k in range(count):
            least = min(least, out[k, 4])
        if distance - radius + 0.1 * LINEAR_SLOP < least and distance > 0.0 and \
                (f1 == 0.0 or f1 == 1.0) and (f2 == 0.0 or f2 == 1.0):
            ia = i11 if f1 == 0.0 else i12
            ib = i21 if f2 == 0.0 else i22
            nx, ny = (vb[ib, 0] - va[ia, 0]) / distance, (vb[ib, 1] - va[ia, 1]) / distance
            c1x, c1y = va[ia, 0] + ra * nx, va[ia, 1] + ra * ny
            c2x, c2y = vb[ib, 0] - rb * nx, vb[ib, 1] - rb * ny
            out[0, 0], out[0, 1] = nx, ny
            out[0, 2], out[0, 3] = 0.5 * (c1x + c2x), 0.5 * (c1y + c2y)
            out[0, 4] = distance - radius
            ids[0] = ia * 256 + ib
            return 1
        return count
    if flip:
        return _clip(vb, nb, cb, rb, va, ca, ra, edge_b, edge_a, True, out, ids)
    return _clip(va, na, ca, ra, vb, cb, rb, edge_a, edge_b, False, out, ids)


@jit
def collide(sv, sn, sc, sf, pair_i, pair_j, margin, ci, cf, cid, cpair):
    """The manifold of every candidate pair of shapes (pair_i[k], pair_j[k]) within its
    ``margin`` m (speculative): rows written to ci, cf (normal from pair_i's owner to
    pair_j's), cid (feature ids) and cpair (the pair); returns the number of rows. Friction
    and restitution mix as Box2D's: the geometric mean, the livelier."""
    out = np.zeros((2, 5))
    ids = np.zeros(2, np.int64)
    m = 0
    for k in range(len(pair_i)):
        i = pair_i[k]
        j = pair_j[k]
        count_i = sc[i, 0]
        count_j = sc[j, 0]
        flip = False
        ids[0] = 0
        ids[1] = 0
        if count_j == 1:
            count = _circle_polygon(sv[j, 0], sf[j, 0], sv[i], sn[i], count_i, sf[i, 0], out, margin[k])
        elif count_i == 1:
            count = _circle_polygon(sv[i, 0], sf[i, 0], sv[j], sn[j], count_j, sf[j, 0], out, margin[k])
            flip = True
        else:
            count = _polygons(sv[i], sn[i], count_i, sf[i, 0], sv[j], sn[j], count_j, sf[j, 0], out, ids, margin[k])
        a = sc[i, 1]
        b = sc[j, 1]
        friction = math.sqrt(sf[i, 1] * sf[j, 1])
        restitution = max(sf[i, 2], sf[j, 2])
        for p in range(count):
            s = 1.0
            if flip:
                s = -1.0
            ci[m, 0] = a
            ci[m, 1] = b
            cf[m, NX] = s * out[p, 0]
            cf[m, NY] = s * out[p, 1]
            cf[m, RAX] = out[p, 2]          # the world point for now; prepare makes it arms
            cf[m, RAY] = out[p, 3]
            cf[m, SEP] = out[p, 4]
            cf[m, FRIC] = friction
            cf[m, REST] = restitution
            cid[m] = ids[p]
            cpair[m] = k
            m += 1
    return m


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
def _warm(st, st0, inv, ci, cf, m, ji, jf, nj, h_move, tau):
    turns = _turns(st, st0)
    for k in range(m):
        a = ci[k, 0]
        b = ci[k, 1]
        nx, ny = cf[k, NX], cf[k, NY]
        px = cf[k, PN] * nx + cf[k, PT] * ny
        py = cf[k, PN] * ny - cf[k, PT] * nx
        if px != 0.0 or py != 0.0:
            rax, ray, rbx, rby, s = _contact_arms(st, st0, cf, k, a, b, tau, turns)
            _apply(st, inv, a, b, px, py, rax, ray, rbx, rby, False, h_move)
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
def _solve_contacts(st, st0, inv, ci, cf, m, use_bias, soft_c, soft_s, inv_h, max_push, h_move, tau):
    turns = _turns(st, st0)
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
def _solve_joints(st, inv, ji, jf, nj, use_bias, soft_j, h, h_move):
    """Pins, rods and ropes between bodies (and the balls and anchors they hold), with their
    motors: Box2D v3's revolute and distance joints, soft in the biased passes, rigid in relax."""
    for k in range(nj):
        kind = ji[k, 0]
        a = ji[k, 1]
        b = ji[k, 2]
        ma, ia, mb, ib = inv[a, IM], inv[a, II], inv[b, IM], inv[b, II]
        if kind == MOUSE and ia > 0.0:
            # The grab damps the body's turning with at most DAMPING N m (it still swings).
            impulse = -st[a, W] / ia
            old = jf[k, IMPM]
            limit = jf[k, DAMPING] * h
            new = min(max(old + impulse, -limit), limit)
            st[a, W] += ia * (new - old)
            jf[k, IMPM] = new
        elif jf[k, MOTOR] != 0.0 and ia + ib > 0.0:
            # The motor: a turns relative to b at SPEED rad/s with at most TORQUE N m.
            cdot = st[a, W] - st[b, W] - jf[k, SPEED]
            impulse = -cdot / (ia + ib)
            old = jf[k, IMPM]
            limit = jf[k, TORQUE] * h
            new = min(max(old - impulse, -limit), limit)
            _torque(st, inv, a, b, new - old, False, h_move)
            jf[k, IMPM] = new
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
            if e == 0.0 or cf[k, RELVN] > -threshold or cf[k, MAXPN] == 0.0:
                continue
            a = ci[k, 0]
            b = ci[k, 1]
            nx, ny = cf[k, NX], cf[k, NY]
            rax, ray, rbx, rby, s = _contact_arms(st, st0, cf, k, a, b, tau, turns)
            dvx = st[b, VX] - st[b, W] * rby + cf[k, SVX] - (st[a, VX] - st[a, W] * ray)
            dvy = st[b, VY] + st[b, W] * rbx + cf[k, SVY] - (st[a, VY] + st[a, W] * rax)
            vn = dvx * nx + dvy * ny
            target = -e * cf[k, RELVN]
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
def solve(st, sub0, st0, inv, ci, cf, m, ji, jf, nj, params, shift, nb):
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
    soft_c = params[4:7]
    soft_s = params[7:10]
    soft_j = params[10:13]
    max_push = params[13]
    tau = params[16]
    inv_h = 1.0 / h
    for p in range(len(st)):
        for c in range(6):
            sub0[p, c] = st[p, c]
    if params[15] != 0.0:
        _warm(st, st0, inv, ci, cf, m, ji, jf, nj, h_move, tau)
    else:
        for k in range(m):
            cf[k, PN] = 0.0
            cf[k, PT] = 0.0
        for k in range(nj):
            jf[k, IMPX] = 0.0
            jf[k, IMPY] = 0.0
            jf[k, IMPN] = 0.0
            jf[k, IMPM] = 0.0
    for _ in range(iterations):
        _solve_contacts(st, st0, inv, ci, cf, m, True, soft_c, soft_s, inv_h, max_push, h_move, tau)
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
    soft_c = params[4:7]
    soft_s = params[7:10]
    soft_j = params[10:13]
    for _ in range(relax_iterations):
        _solve_contacts(st, st0, inv, ci, cf, m, False, soft_c, soft_s, 1.0 / h, params[13], h_move, params[16] + h)
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
    """_max_separation with the normals computed from the corners (c1 >= 3)."""
    best = 0
    most = -1e300
    if c1 < 3:
        return 0, -1e300
    for i in range(c1):
        i2 = i + 1 if i + 1 < c1 else 0
        ex, ey = v1[i2, 0] - v1[i, 0], v1[i2, 1] - v1[i, 1]
        el = math.sqrt(ex * ex + ey * ey)
        nx, ny = ey / el, -ex / el
        si = 1e300
        for j in range(c2):
            s = nx * (v2[j, 0] - v1[i, 0]) + ny * (v2[j, 1] - v1[i, 1])
            if s < si:
                si = s
        if si > most:
            most = si
            best = i
    return best, most


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


# ----------------------------------------------------------------------------- broad phase
@jit
def box_pairs(lo1, hi1, lo2, hi2, same, out_i, out_j):
    """The pairs (i, j) whose boxes [lo1[i], hi1[i]] and [lo2[j], hi2[j]] overlap, written to
    out_i, out_j in order of i (``same``: one set, i < j only). Sort and sweep along x: each i
    looks at the boxes of set 2 that start at most the widest narrow box's width left of it;
    boxes wider than four times the median (a long floor) are tried against every i. Returns
    the number of pairs, or minus the number needed where out_i is too short (call again)."""
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
    xs = np.empty(nn)
    for q in range(nn):
        xs[q] = lo2[narrow[q], 0]
    count = 0
    capacity = out_i.shape[0]
    for i in range(n1):
        start = np.searchsorted(xs, lo1[i, 0] - window)
        q = start
        while q < nn and xs[q] <= hi1[i, 0]:
            j = narrow[q]
            q += 1
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
