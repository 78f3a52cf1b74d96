"""Geometry: pure functions on numpy arrays of points; no pygame.

Points are arrays shaped (2,) or (..., 2) in metres (lists and tuples are accepted and
read as float64); lengths such as radii are scalars or arrays shaped (...). Every function
broadcasts *elementwise* over the leading axes, like numpy arithmetic: a centre (N, 2) with
segment ends (N, 2) gives N answers (one per pair), a centre (N, 2) with ends (2,) gives N
answers against the one segment. Nothing here loops over elements in Python.

Scalar inputs give scalar outputs: a point (2,), a Python float or a Python bool.

Sources (their ideas, not their code; see ``../shared/seeds``): the closest point on a
segment and the overlap offset vector (000), the swept circle against a segment (001),
circle-rectangle, point in ellipse, segment intersection, side of a vector, point in convex
polygon and the separating-axis test (003). Everything is computed with vectors and cross
products: no slopes, no ``+ 1e-5``, no ``round()``.

Degenerate input (zero-length segments, a centre exactly on a segment, a zero move,
coincident centres) never raises and never produces NaN: each case has a documented,
deterministic answer.
"""
from __future__ import annotations

import numpy as np

__all__ = [
    "closest_point_on_segment",
    "circle_segment_offset",
    "circle_circle_offset",
    "circle_polygon_offset",
    "swept_circle_segment",
    "segment_intersection",
    "segment_intersections",
    "side",
    "segment_normal",
    "point_in_convex_polygon",
    "convex_polygons_overlap",
    "circle_rect_overlap",
    "point_in_ellipse",
    "polygon_signed_area",
    "polygon_is_convex",
    "ensure_ccw",
]


# Smallest positive normal float: a floor for denominators that are >= 0. Where such a
# denominator is 0 its numerator is 0 as well (or clamped below it), so x / max(den, TINY)
# never divides by zero, never overflows and gives 0 there.
TINY = np.finfo(np.float64).tiny
EPS = np.finfo(np.float64).eps
ON_SEGMENT_ULPS = 8.0        # a centre this many ulps of the segment's coordinates from it is on it


# --------------------------------------------------------------------------- helpers

def _arr(x):
    return np.asarray(x, dtype=np.float64)


def _next(x):
    """x shifted one back along its first axis, np.roll(x, -1, axis=0): entry k is x[k + 1],
    the last is x[0] (a polygon's next vertices); a copy, without np.roll's generic work
    (tens of microseconds a call, on the path that pushes balls out of polygons)."""
    return np.concatenate((x[1:], x[:1]))


def _xy(x):
    """Components (x, y) of points shaped (..., 2), as views."""
    v = np.asarray(x, dtype=np.float64)
    return v[..., 0], v[..., 1]


def _pack(x, y):
    """Stack component arrays into points shaped (..., 2)."""
    out = np.empty(np.broadcast_shapes(np.shape(x), np.shape(y)) + (2,))
    out[..., 0] = x
    out[..., 1] = y
    return out


def _float_out(x):
    x = np.asarray(x)
    return float(x) if x.ndim == 0 else x


def _bool_out(x):
    x = np.asarray(x)
    return bool(x) if x.ndim == 0 else x


def _length(vx, vy):
    """|v| = sqrt(vx^2 + vy^2), exact also where the squares underflow (|v| < 1e-150)."""
    length = np.sqrt(vx * vx + vy * vy)
    small = length < 1e-150
    if small.any():  # rare: np.hypot is careful but about ten times slower
        length = np.where(small, np.hypot(vx, vy), length)
    return length


def _safe(den, ok):
    """den where ok else 1: a denominator that is never zero."""
    return np.where(ok, den, 1.0)


def _project(ax, ay, bx, by, px, py):
    """Projection of p onto segment a-b, by components.

    Returns (t, dx, dy, dd, wx, wy, wd): the clamped parameter t in [0, 1] of the closest
    point a + t d, d = b - a, dd = d·d, w = p - a, wd = w·d.
    """
    dx = bx - ax
    dy = by - ay
    wx = px - ax
    wy = py - ay
    dd = dx * dx + dy * dy
    wd = wx * dx + wy * dy
    # t = clamp(w·d / d·d, 0, 1); clamping the numerator to [0, d·d] first keeps the
    # quotient in [0, 1] (no overflow for tiny segments); a zero-length segment gives t = 0.
    t = np.minimum(np.maximum(wd, 0.0), dd) / np.maximum(dd, TINY)
    return t, dx, dy, dd, wx, wy, wd


def _from_segment(t, dx, dy, dd, wx, wy, wd):
    """v = p - q, from the closest point q on the segment to p, given _project's results.

    Where the projection falls inside the segment, v = (d x w / d·d) perp(d): exactly
    perpendicular to the segment and accurate even when |v| << |w| (w - t d would leave a
    rounding error of order eps |w| along the segment). At the ends v = w or w - d.
    """
    interior = (wd > 0) & (wd < dd)
    k = (dx * wy - dy * wx) / np.maximum(dd, TINY)
    return np.where(interior, 0.0 - k * dy, wx - t * dx), np.where(interior, k * dx, wy - t * dy)


def _closest_xy(ax, ay, bx, by, px, py):
    """Closest point on segment a-b to p, by components; also returns d = b - a."""
    t, dx, dy, _, _, _, _ = _project(ax, ay, bx, by, px, py)
    return ax + t * dx, ay + t * dy, dx, dy


# --------------------------------------------------------------------------- basics

def side(a, b, p):
    """Which side of the directed line a->b the point p lies on.

    a, b, p: (..., 2) metres. Returns the cross product (b - a) x (p - a), shape (...),
    square metres: > 0 left of a->b, < 0 right of it, 0 on the line.

    >>> side((0, 0), (1, 0), (0, 2))
    2.0
    >>> side((0, 0), (1, 0), [(0, -1), (5, 0)])
    array([-1.,  0.])
    """
    ax, ay = _xy(a)
    bx, by = _xy(b)
    px, py = _xy(p)
    return _float_out((bx - ax) * (py - ay) - (by - ay) * (px - ax))


def segment_normal(a, b):
    """Unit left normal of the segment a->b: (b - a) rotated by +90 degrees, normalised.

    a, b: (..., 2) metres. Returns (..., 2), unitless. A zero-length segment has the
    normal (0, 1).

    >>> segment_normal((0, 0), (2, 0))
    array([0., 1.])
    >>> segment_normal((1, 1), (1, 1))
    array([0., 1.])
    """
    ax, ay = _xy(a)
    bx, by = _xy(b)
    return _pack(*_unit_left_normal(bx - ax, by - ay))


def _unit_left_normal(dx, dy):
    length = _length(dx, dy)
    zero = length == 0
    length = np.maximum(length, TINY)
    # (0 - dy) avoids -0.0; a zero-length segment gets (0, 0) + (0, 1)
    return (0.0 - dy) / length, dx / length + zero


def closest_point_on_segment(a, b, p):
    """Closest point to p on the segment a-b (seed 000).

    a, b, p: (..., 2) metres. Returns (..., 2) metres. The projection parameter
    t = (p - a)·(b - a) / |b - a|^2 is clamped to [0, 1]; a zero-length segment
    (a == b) returns a.

    >>> closest_point_on_segment((0, 0), (4, 0), (1, 3))
    array([1., 0.])
    >>> closest_point_on_segment((0, 0), (4, 0), [(-2, 1), (9, 9)])
    array([[0., 0.],
           [4., 0.]])
    """
    ax, ay = _xy(a)
    bx, by = _xy(b)
    px, py = _xy(p)
    qx, qy, _, _ = _closest_xy(ax, ay, bx, by, px, py)
    return _pack(qx, qy)


# --------------------------------------------------------------------------- offsets

def circle_segment_offset(center, radius, a, b, seg_radius=0.0, toward=None):
    """Overlap offset vector of a circle against a segment or capsule (seed 000).

    center: (..., 2) metres; radius: (...) metres; a, b: (..., 2) metres, the segment;
    seg_radius: (...) metres, makes the segment a capsule (stadium); a zero-length
    segment with seg_radius > 0 is a round peg. toward: optional (..., 2) metres, a point
    on the side the circle should leave to (e.g. where it came from).

    Returns (..., 2) metres: the vector that moves the circle out of the capsule,
    pointing from the closest point q on the segment to the centre, of length
    radius + seg_radius - |center - q|. It is the zero vector where they do not overlap
    (|center - q| >= radius + seg_radius, so touching is not overlapping).

    Degenerate cases (centre exactly on the segment, distance 0): the push has length
    radius + seg_radius along the segment's unit normal, on the side of ``toward``; the
    left normal (rotate b - a by +90 degrees) when toward is None or on the line. For a
    zero-length segment it points from the centre to ``toward`` when given and distinct,
    else along +y.

    >>> circle_segment_offset((1, 0.5), 1.0, (0, 0), (4, 0))
    array([0. , 0.5])
    >>> circle_segment_offset((1, 5), 1.0, (0, 0), (4, 0))
    array([0., 0.])
    >>> circle_segment_offset((1, 0), 1.0, (0, 0), (4, 0), toward=(1, -3))
    array([ 0., -1.])
    >>> circle_segment_offset((5, 0), 0.5, (4, 0), (4, 0), seg_radius=1.0)
    array([0.5, 0. ])
    """
    cx, cy = _xy(center)
    ax, ay = _xy(a)
    bx, by = _xy(b)
    t, dx, dy, dd, wx, wy, wd = _project(ax, ay, bx, by, cx, cy)
    vx, vy = _from_segment(t, dx, dy, dd, wx, wy, wd)  # c - q
    dist = _length(vx, vy)
    # depth = R - |c - q|, positive only where they overlap
    depth = np.maximum(np.add(radius, seg_radius) - dist, 0.0)
    inv = np.maximum(dist, TINY)
    ux = vx / inv
    uy = vy / inv
    on_segment = dist == 0
    if on_segment.any():  # rare: the centre is exactly on the segment
        nx, ny = _push_direction(dx, dy, cx, cy, ax, ay, toward)
        ux = np.where(on_segment, nx, ux)
        uy = np.where(on_segment, ny, uy)
    return _pack(ux * depth, uy * depth)


def _push_direction(dx, dy, cx, cy, ax, ay, toward):
    """Unit direction to push a centre lying exactly on segment (a, a + d)."""
    nx, ny = _unit_left_normal(dx, dy)
    if toward is None:
        return nx, ny
    tx, ty = _xy(toward)
    # flip the left normal where `toward` is on the right of the segment's line
    flip = (dx * (ty - ay) - dy * (tx - ax)) < 0
    nx = np.where(flip, 0.0 - nx, nx)
    ny = np.where(flip, 0.0 - ny, ny)
    # zero-length segment: straight towards `toward` (if it is not the centre itself)
    ex = tx - cx
    ey = ty - cy
    elen = _length(ex, ey)
    point = (dx == 0) & (dy == 0) & (elen > 0)
    inv = _safe(elen, point)
    return np.where(point, ex / inv, nx), np.where(point, ey / inv, ny)


def circle_circle_offset(c1, r1, c2, r2):
    """Overlap offset vector for circle 1 against circle 2.

    c1, c2: (..., 2) metres; r1, r2: (...) metres. Returns (..., 2) metres: pushes c1
    away from c2 by r1 + r2 - |c1 - c2|; the zero vector where they do not overlap
    (touching is not overlapping). Coincident centres push along +x, (1, 0).

    >>> circle_circle_offset((1, 0), 1.0, (0, 0), 1.0)
    array([1., 0.])
    >>> circle_circle_offset((0, 0), 1.0, (0, 0), 0.5)
    array([1.5, 0. ])
    >>> circle_circle_offset((0, 3), 1.0, (0, 0), 1.0)
    array([0., 0.])
    """
    x1, y1 = _xy(c1)
    x2, y2 = _xy(c2)
    vx = x1 - x2
    vy = y1 - y2
    dist = _length(vx, vy)
    depth = np.maximum(np.add(r1, r2) - dist, 0.0)
    inv = np.maximum(dist, TINY)
    ux = vx / inv + (dist == 0)  # coincident: (0, 0) + (1, 0)
    uy = vy / inv
    return _pack(ux * depth, uy * depth)


def circle_polygon_offset(center, radius, points):
    """Overlap offset vector of a circle against a solid convex polygon.

    center: (..., 2) metres; radius: (...) metres; points: (K, 2) metres, one convex
    polygon in either winding. Returns (..., 2) metres.

    Centre outside the polygon: the offset against the nearest edge, as
    circle_segment_offset (zero where the circle does not reach the polygon). Centre
    inside (boundary included): pushed out through the nearest edge,
    offset = outward normal * (distance to that edge + radius), after which the circle
    touches that edge from outside. A polygon of zero area is treated as its edges only.

    >>> square = [(0, 0), (4, 0), (4, 4), (0, 4)]
    >>> circle_polygon_offset((2, 4.5), 1.0, square)
    array([0. , 0.5])
    >>> circle_polygon_offset((3, 2), 0.5, square)
    array([1.5, 0. ])
    >>> circle_polygon_offset([(9, 9), (2, 3.5)], 1.0, square[::-1])
    array([[0. , 0. ],
           [0. , 1.5]])
    """
    poly = ensure_ccw(points)
    cx, cy = _xy(center)
    px = poly[:, 0]
    py = poly[:, 1]
    # edges of the ccw polygon taken backwards (b_k -> a_k) have their left normal outward
    sx = _next(px)
    sy = _next(py)
    qx, qy, _, _ = _closest_xy(sx, sy, px, py, cx[..., None], cy[..., None])
    dist2 = (cx[..., None] - qx) ** 2 + (cy[..., None] - qy) ** 2
    k = np.argmin(dist2, axis=-1)
    outside = circle_segment_offset(center, radius, poly[(k + 1) % len(poly)], poly[k])

    # A centre on the boundary up to rounding (within 1e-12 of the polygon's size) counts as
    # inside: from there the direction to the closest point is rounding noise, which could
    # leave the circle overlapping the neighbouring edge, while an edge's normal is exact.
    scale = 1.0 + np.max(np.abs(poly)) + np.maximum(np.abs(cx), np.abs(cy))
    on_boundary = np.sqrt(np.min(dist2, axis=-1)) <= 1e-12 * scale
    inside = (point_in_convex_polygon(center, poly) | on_boundary) & (polygon_signed_area(poly) > 0)
    if not np.any(inside):
        return outside
    # signed distance to each edge line (outward normal n_k), <= 0 inside; pick the largest
    nx, ny = _unit_left_normal(px - sx, py - sy)
    s = (cx[..., None] - px) * nx + (cy[..., None] - py) * ny
    s = np.where((px == sx) & (py == sy), -np.inf, s)  # zero-length edges have no normal
    k = np.argmax(s, axis=-1)
    s_k = np.take_along_axis(s, k[..., None], axis=-1)[..., 0]
    depth = np.add(radius, -s_k)
    push = _pack(nx[k] * depth, ny[k] * depth)
    return np.where(np.asarray(inside)[..., None], push, outside)


# --------------------------------------------------------------------------- swept test

def swept_circle_segment(center, radius, move, a, b, seg_radius=0.0):
    """Time of first touch of a moving circle with a segment or capsule (seed 001).

    center: (..., 2) metres, the start; radius: (...) metres; move: (..., 2) metres, the
    displacement over the step; a, b: (..., 2) metres; seg_radius: (...) metres.
    Returns (...) the fraction t in [0, 1] of ``move`` at which the circle
    (radius R = radius + seg_radius around the centre) first touches the segment, or
    ``inf`` where it does not touch during the move.

    The seed's cases:

    * already touching or overlapping at the start (case 6): 0 if the move does not take
      it away, i.e. move·(centre - closest point) < 0, or the centre is on the segment
      (to within the rounding of a point computed on it, ON_SEGMENT_ULPS), or the move is zero. If the move separates or slides along the contact
      (move·(centre - closest) >= 0) the result is inf (cases 4 and 5: touching and
      moving away is allowed); the distance to a convex shape is convex along a line, so
      it never decreases afterwards.
    * first touch at an end A or B (case 1): the smaller root of |c + t m - P| = R.
    * first touch inside the segment (case 2): the centre reaches the line at signed
      distance R with its projection between A and B.
    * no touch (cases 3 and 5), moving away, moving parallel at a distance > R, zero
      move while apart: inf. A graze (the distance just reaching R) counts as a touch.

    The answer is the minimum over the flat side and the two end discs. A flat-side hit
    of an axis-aligned move on an axis-aligned segment is exact (the correctly rounded
    quotient, e.g. 0.4 below).

    >>> swept_circle_segment((0, 5), 1.0, (0, -10), (-3, 0), (3, 0))
    0.4
    >>> swept_circle_segment((0, 5), 1.0, (0, 10), (-3, 0), (3, 0))
    inf
    >>> swept_circle_segment([(5, 0), (0, 3)], 1.0, [(-10, 0), (0, -10)], (-1, 0), (1, 0), 0.5)
    array([0.25, 0.15])
    """
    cx, cy = _xy(center)
    mx, my = _xy(move)
    ax, ay = _xy(a)
    bx, by = _xy(b)
    R = np.add(radius, seg_radius)
    R2 = R * R
    mm = mx * mx + my * my

    # start: touching if |c - q| <= R; approaching if m·(c - q) < 0
    t0, dx, dy, dd, wx, wy, wd = _project(ax, ay, bx, by, cx, cy)
    vx, vy = _from_segment(t0, dx, dy, dd, wx, wy, wd)  # c - q
    dist = _length(vx, vy)
    touching = dist <= R
    # "On the segment" allows the rounding of a point computed on it (a + t (b - a)), and
    # subnormal distances (a segment shorter than the smallest normal float).
    on = dist <= ON_SEGMENT_ULPS * EPS * (np.abs(ax) + np.abs(ay) + np.abs(dx) + np.abs(dy)) + TINY
    stay = touching & ((vx * mx + vy * my < 0) | on | (mm == 0))

    # Candidate times are kept in [0, 2]: an invalid one gets + 2 so that it loses every
    # minimum, and anything above 1 means "no touch" at the end.
    # Flat side: with w = c - a, S(t) = d x (w + t m) = S0 + t Sm is |d| times the signed
    # distance to the line; touch when |S| = R |d|, at t = (|S0| - R|d|) / |Sm|, moving
    # towards the line (S0 Sm < 0), with the projection (w + t m)·d within [0, d·d].
    s0 = dx * wy - dy * wx
    sm = dx * my - dy * mx
    abs_sm = np.abs(sm)
    gap = np.abs(s0) - R * np.sqrt(dd)
    t_flat = np.minimum(np.maximum(gap, 0.0), abs_sm) / np.maximum(abs_sm, TINY)
    u = wd + t_flat * (mx * dx + my * dy)
    ok = (s0 * sm < 0) & (gap <= abs_sm) & (u >= 0) & (u <= dd)
    best = t_flat + 2.0 * ~ok

    # End discs: |w + t m| = R with w = c - P: mm t^2 + 2 (w·m) t + (w·w - R^2) = 0.
    # Discriminant/4 = mm R^2 - (w x m)^2; smaller root = (w·w - R^2) / (-(w·m) + sqrt(.))
    # (no cancellation, and the denominator is > 0 when moving towards P, w·m < 0).
    # min(c0, 2 den) / den is that root where it is <= 1, and in (1, 2] otherwise.
    mm_R2 = mm * R2
    for px, py in ((wx, wy), (wx - dx, wy - dy)):  # c - A, c - B
        wm = px * mx + py * my
        wxm = px * my - py * mx
        disc = mm_R2 - wxm * wxm
        c0 = np.maximum(px * px + py * py - R2, 0.0)
        den = np.maximum(np.sqrt(np.maximum(disc, 0.0)) - wm, TINY)
        ok = (wm < 0) & (disc >= 0)
        best = np.minimum(best, np.minimum(c0, 2.0 * den) / den + 2.0 * ~ok)

    # touching at the start: 0 where it stays in contact, "no touch" where it leaves
    best = best * ~touching + 2.0 * (touching & ~stay)
    t = np.where(best <= 1.0, best, np.inf)
    return _float_out(t)


# --------------------------------------------------------------------------- intersections

def segment_intersections(a1, b1, a2, b2):
    """Intersection points of segments a1-b1 and a2-b2, elementwise.

    a1, b1, a2, b2: (..., 2) metres. Returns (points (..., 2) metres, hit (...) bool).
    Solves a1 + t (b1 - a1) = a2 + u (b2 - a2) with cross products; hit where the
    solution is unique and 0 <= t, u <= 1 (ends included). Parallel, collinear
    (even overlapping) and zero-length segments have no unique point: hit is False.
    points is 0 where hit is False (never NaN). Exact decisions for integer coordinates.

    >>> segment_intersections((0, 0), (2, 2), [(0, 2), (5, 0)], [(2, 0), (5, 1)])
    (array([[1., 1.],
           [0., 0.]]), array([ True, False]))
    """
    a1x, a1y = _xy(a1)
    a2x, a2y = _xy(a2)
    rx = _arr(b1)[..., 0] - a1x
    ry = _arr(b1)[..., 1] - a1y
    sx = _arr(b2)[..., 0] - a2x
    sy = _arr(b2)[..., 1] - a2y
    qx = a2x - a1x
    qy = a2y - a1y
    denom = rx * sy - ry * sx          # r x s
    tn = qx * sy - qy * sx             # t = (q x s) / (r x s)
    un = qx * ry - qy * rx             # u = (q x r) / (r x s)
    flip = denom < 0
    denom = np.where(flip, -denom, denom)
    tn = np.where(flip, -tn, tn)
    un = np.where(flip, -un, un)
    hit = (denom > 0) & (tn >= 0) & (tn <= denom) & (un >= 0) & (un <= denom)
    t = np.where(hit, tn, 0.0) / _safe(denom, hit)
    points = _pack(np.where(hit, a1x + t * rx, 0.0), np.where(hit, a1y + t * ry, 0.0))
    return points, _bool_out(hit)


def segment_distance(a1, b1, a2, b2):
    """Distance in metres between segments a1-b1 and a2-b2 (..., 2), elementwise (broadcasts):
    0 where they meet, else the least of each end's distance to the other segment.

    >>> float(segment_distance(np.array([0., 0.]), np.array([2., 0.]), np.array([1., 1.]), np.array([1., 3.])))
    1.0
    """
    _, hit = segment_intersections(a1, b1, a2, b2)

    def gap(p, a, b):
        return np.hypot(*np.moveaxis(p - closest_point_on_segment(a, b, p), -1, 0))

    a1, b1, a2, b2 = np.broadcast_arrays(*(np.asarray(v, float) for v in (a1, b1, a2, b2)))
    d = np.minimum(np.minimum(gap(a1, a2, b2), gap(b1, a2, b2)), np.minimum(gap(a2, a1, b1), gap(b2, a1, b1)))
    return np.where(hit, 0.0, d)


def segment_intersection(a1, b1, a2, b2):
    """Intersection point of two segments a1-b1 and a2-b2, or None (seed 003).

    a1, b1, a2, b2: (2,) metres. Returns a (2,) array in metres, or None where the
    segments do not meet or have no unique common point: parallel, collinear
    (overlapping collinear segments return None) or zero-length. Touching at an end
    counts. For arrays of segments use segment_intersections.

    >>> segment_intersection((0, 0), (4, 4), (0, 4), (4, 0))
    array([2., 2.])
    >>> segment_intersection((0, 0), (1, 1), (3, 0), (0, 3)) is None
    True
    >>> segment_intersection((0, 0), (2, 0), (1, 0), (3, 0)) is None  # collinear
    True
    """
    points, hit = segment_intersections(a1, b1, a2, b2)
    if np.ndim(hit) != 0:
        raise ValueError("segment_intersection takes single segments (2,); "
                         "use segment_intersections for arrays")
    return points if hit else None


# --------------------------------------------------------------------------- polygons

def polygon_signed_area(points):
    """Signed area of a polygon (shoelace formula): > 0 counter-clockwise, < 0 clockwise.

    points: (K, 2) metres. Returns square metres as a float.

    >>> polygon_signed_area([(0, 0), (2, 0), (2, 1), (0, 1)])
    2.0
    >>> polygon_signed_area([(0, 0), (0, 1), (2, 1), (2, 0)])
    -2.0
    """
    p = _arr(points)
    if len(p) < 3:
        return 0.0
    # relative to the first vertex, for accuracy far from the origin
    x = p[:, 0] - p[0, 0]
    y = p[:, 1] - p[0, 1]
    return float(0.5 * (np.dot(x, _next(y)) - np.dot(_next(x), y)))


def ensure_ccw(points):
    """The polygon's vertices in counter-clockwise order.

    points: (K, 2) metres. Returns a new (K, 2) float64 array, reversed where the
    signed area is negative.

    >>> ensure_ccw([(0, 0), (0, 1), (1, 0)])
    array([[1., 0.],
           [0., 1.],
           [0., 0.]])
    """
    p = np.array(points, dtype=np.float64)
    return p[::-1].copy() if polygon_signed_area(p) < 0 else p


def polygon_is_convex(points):
    """Whether points (K, 2) form a convex polygon with non-zero area (either winding).

    Repeated consecutive vertices and straight (180 degree) vertices are allowed; the
    boundary must turn one way only and wind exactly once (a pentagram is not convex).

    >>> polygon_is_convex([(0, 0), (2, 0), (2, 2), (0, 2)])
    True
    >>> polygon_is_convex([(0, 0), (2, 0), (1, 0.5), (2, 2), (0, 2)])
    False
    """
    p = _arr(points)
    if p.ndim != 2 or p.shape[1] != 2 or not np.all(np.isfinite(p)):
        return False
    p = p[np.any(p != np.roll(p, -1, axis=0), axis=1)]  # drop repeated vertices
    if len(p) < 3:
        return False
    e = np.roll(p, -1, axis=0) - p
    e_next = np.roll(e, -1, axis=0)
    cross = e[:, 0] * e_next[:, 1] - e[:, 1] * e_next[:, 0]
    dot = e[:, 0] * e_next[:, 0] + e[:, 1] * e_next[:, 1]
    if not (np.all(cross >= 0) or np.all(cross <= 0)) or not np.any(cross != 0):
        return False
    # the exterior angles of a simple convex polygon add up to one full turn
    turning = np.sum(np.arctan2(np.abs(cross), dot))
    return bool(abs(turning - 2 * np.pi) < 1e-6)


def point_in_convex_polygon(p, points):
    """Whether points p lie in a convex polygon (seed 003); the boundary counts as inside.

    p: (..., 2) metres; points: (K, 2) metres, convex, either winding. Returns (...) bool
    (a Python bool for one point). Inside means on the inner side of every edge: the
    cross products (b_k - a_k) x (p - a_k) are all >= 0 for a counter-clockwise polygon,
    all <= 0 for a clockwise one. A polygon of zero area contains only the points of its
    vertices' span (the segment or point it degenerates to).

    >>> tri = [(0, 0), (4, 0), (0, 4)]
    >>> point_in_convex_polygon((1, 1), tri), point_in_convex_polygon((3, 3), tri)
    (True, False)
    >>> point_in_convex_polygon([(2, 2), (0, 5)], tri[::-1])
    array([ True, False])
    """
    poly = _arr(points)
    px, py = _xy(p)
    ax = poly[:, 0]
    ay = poly[:, 1]
    ex = _next(ax) - ax
    ey = _next(ay) - ay
    cross = ex * (py[..., None] - ay) - ey * (px[..., None] - ax)
    area = polygon_signed_area(poly)
    if area > 0:
        inside = np.all(cross >= 0, axis=-1)
    elif area < 0:
        inside = np.all(cross <= 0, axis=-1)
    else:  # collinear vertices: on their line and within their bounding box
        inside = (np.all(cross == 0, axis=-1)
                  & (px >= ax.min()) & (px <= ax.max()) & (py >= ay.min()) & (py <= ay.max()))
    return _bool_out(inside)


def convex_polygons_overlap(p, q):
    """Whether two convex polygons overlap: the separating axis test (seed 003).

    p, q: (K, 2) and (L, 2) metres, convex, either winding. Returns a bool. The
    polygons are separated if their projections onto some edge normal do not meet;
    touching (projections sharing an end) counts as overlapping. The axis between the
    vertex means is tried too, which makes the test exact for degenerate polygons
    (points and segments) as well.

    >>> sq = [(0, 0), (2, 0), (2, 2), (0, 2)]
    >>> convex_polygons_overlap(sq, [(1, 1), (3, 1), (3, 3)])
    True
    >>> convex_polygons_overlap(sq, [(2, 0), (4, 0), (4, 2), (2, 2)])  # touching
    True
    >>> convex_polygons_overlap(sq, [(3, 0), (5, 0), (4, 2)])
    False
    """
    p = _arr(p)
    q = _arr(q)
    # candidate axes: the normals of every edge (unnormalised: only the order matters)
    ep = np.roll(p, -1, axis=0) - p
    eq = np.roll(q, -1, axis=0) - q
    axes = np.concatenate([ep, eq, [q.mean(axis=0) - p.mean(axis=0)]])
    normals = np.stack([-axes[:, 1], axes[:, 0]], axis=1)
    normals[-1] = axes[-1]  # the centre-to-centre axis is used as it is
    proj_p = p @ normals.T  # (K, axes)
    proj_q = q @ normals.T
    lo_p, hi_p = proj_p.min(axis=0), proj_p.max(axis=0)
    lo_q, hi_q = proj_q.min(axis=0), proj_q.max(axis=0)
    # separated on an axis where the intervals do not even touch
    return not bool(np.any((hi_p < lo_q) | (hi_q < lo_p)))


# --------------------------------------------------------------------------- zones

def circle_rect_overlap(center, radius, lo, hi):
    """Whether circles overlap an axis-aligned rectangle; touching counts.

    center: (..., 2) metres; radius: (...) metres; lo, hi: (..., 2) metres, opposite
    corners (in any order). Returns (...) bool (a Python bool for one circle). The
    closest point of the rectangle is the centre clamped to it; they overlap where it is
    within the radius. (The seed's four-case test misses circles wider than the
    rectangle that cross it without covering a corner; this does not.)

    >>> circle_rect_overlap((0, 0), 1.0, (0.5, -2), (3, 2))
    True
    >>> circle_rect_overlap([(0, 0), (-1, -1)], 1.0, (0.5, 0.5), (3, 2))
    array([ True, False])
    """
    cx, cy = _xy(center)
    lx, ly = _xy(lo)
    hx, hy = _xy(hi)
    qx = np.clip(cx, np.minimum(lx, hx), np.maximum(lx, hx))
    qy = np.clip(cy, np.minimum(ly, hy), np.maximum(ly, hy))
    r = np.asarray(radius, dtype=np.float64)
    return _bool_out((cx - qx) ** 2 + (cy - qy) ** 2 <= r * r)


def point_in_ellipse(p, center, radii):
    """Whether points lie in an axis-aligned ellipse (seed 003); the boundary counts.

    p, center: (..., 2) metres; radii: (..., 2) metres, the half-widths (rx, ry).
    Returns (...) bool (a Python bool for one point). Tests
    (dx/rx)^2 + (dy/ry)^2 <= 1 as (dx ry)^2 + (dy rx)^2 <= (rx ry)^2 with
    |dx| <= rx and |dy| <= ry, so a zero radius gives the degenerate segment, not a
    division by zero.

    >>> point_in_ellipse((2, 0), (0, 0), (2, 1))
    True
    >>> point_in_ellipse([(1.5, 0.8), (0, -1)], (0, 0), (2, 1))
    array([False,  True])
    """
    px, py = _xy(p)
    cx, cy = _xy(center)
    rx, ry = _xy(radii)
    rx = np.abs(rx)
    ry = np.abs(ry)
    dx = px - cx
    dy = py - cy
    inside = ((np.abs(dx) <= rx) & (np.abs(dy) <= ry)
              & ((dx * ry) ** 2 + (dy * rx) ** 2 <= (rx * ry) ** 2))
    return _bool_out(inside)
