"""The bodies' manifolds: Box2D v3's collision of rounded convex polygons (src/manifold.c).

Every shape is a rounded convex polygon: corners counter-clockwise with outward edge normals
and a radius (a ball one corner, a capsule two, a box four). ``collide`` gives each candidate
pair its manifold: at most two points, each with its separation and the id of the features
that made it (so the warm start finds its impulse again): the separating axis, a reference
face and an incident face clipped to it, or the closest features where the shapes are apart.
Plain scalar Python: the numpy execution runs it as it is, game.physics.compiled.bodies
compiles the same functions with numba (body_kernels' docstring).
"""
import math

import numpy as np


def jit(f):
    """Marks a kernel (game.physics.compiled.bodies compiles every function of this module)."""
    return f


# Contact row columns (cf).
# KICK: a bumper's speed (m/s) on a body-static row, 0 elsewhere.
NX, NY, RAX, RAY, RBX, RBY, SEP, MN, MT, FRIC, REST, RELVN, PN, PT, MAXPN, SVX, SVY, ROLL, PR, KICK = range(20)
NCF = 20
# Joint kinds and columns (jf).
PIN, ROD, ROPE, MOUSE = 0, 1, 2, 3   # MOUSE: the player's grab (LENGTH Hz, SPEED damping, TORQUE N)
SPRING = 4                          # a spring: LENGTH its rest, STIFF N/m, DAMPING N s/m
(LAX, LAY, LBX, LBY, LENGTH, IMPX, IMPY, IMPN, MOTOR, SPEED, TORQUE, IMPM, PEAK, BREAK, DAMPING, STIFF) = range(16)
NJF = 16
# Participant state columns (st) and inverse masses (inv).
X, Y, VX, VY, ANG, W = range(6)
IM, II = 0, 1

LINEAR_SLOP = 0.005        # m: Box2D's linear slop
SPECULATIVE = 4 * LINEAR_SLOP   # m: a pair joins the contacts this far apart (plus the way it closes)
RESTITUTION_PASSES = 8    # passes of the restitution at most (see _restitution)
EPS = 1.1920929e-07        # FLT_EPSILON, as Box2D compares with it


# ----------------------------------------------------------------------------- manifolds
@jit
def _circle_point(out, qx, qy, nx, ny, pr, cv, cr, separation):
    """The one point of a circle's manifold into ``out`` row 0: normal (nx, ny), the midpoint of
    the polygon's surface point (its core's point q pushed out by its radius pr) and the
    circle's deepest point, the separation. Returns 1."""
    ax, ay = qx + pr * nx, qy + pr * ny
    bx, by = cv[0] - cr * nx, cv[1] - cr * ny
    out[0, 0], out[0, 1] = nx, ny
    out[0, 2], out[0, 3] = 0.5 * (ax + bx), 0.5 * (ay + by)
    out[0, 4] = separation
    return 1


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
        return _circle_point(out, qx, qy, nx, ny, pr, cv, cr, d - radius)
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
        return _circle_point(out, vx, vy, nx, ny, pr, cv, cr, d - radius)
    nx, ny = pn[best, 0], pn[best, 1]
    depth = (cv[0] - v1x) * nx + (cv[1] - v1y) * ny
    ax, ay = cv[0] + (pr - depth) * nx, cv[1] + (pr - depth) * ny       # the face's point, as Box2D writes it
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
def _incident(sx, sy, normals, count):
    """The incident edge: the one of ``normals`` (count) most against the reference normal (sx, sy)."""
    edge = 0
    least = 1e300
    for i in range(count):
        d = sx * normals[i, 0] + sy * normals[i, 1]
        if d < least:
            least = d
            edge = i
    return edge


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
    flip = sep_a < sep_b
    if not flip:
        edge_b = _incident(na[edge_a, 0], na[edge_a, 1], nb, cb)
    else:
        edge_a = _incident(nb[edge_b, 0], nb[edge_b, 1], na, ca)
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
