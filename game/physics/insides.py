"""Balls whose centre got inside a convex polygon, pushed out through the nearest edge: the
case of ``collide.polygon_insides`` written once as plain scalar Python, which numba compiles
as it is (game.physics.compiled.insides), so that the one-call tick serves levels with
polygons with the bits of the numpy execution (one source, two executions, as
``joints.substep_kernel``).

Each helper follows the numpy code it mirrors operation by operation: ``_inside`` is
geometry.point_in_convex_polygon, ``_polygon_offset`` geometry.circle_polygon_offset (with
``_closest``: geometry._closest_xy and _project; ``_segment_offset``: circle_segment_offset;
``_left_normal``: _unit_left_normal; ``_length``: _length), ``polygon_insides_kernel``
collide.polygon_insides. Where numpy's semantics are not Python's they are spelled out:
``_maximum`` and ``_minimum`` are np.maximum's and np.minimum's (NaN wins; of two equal values,
+0.0 and -0.0, the second), ``_first_min``/``_first_max`` np.argmin's and np.argmax's (the
first extreme, or the first NaN); ``np.hypot`` is the C library's hypot in both executions;
a sum of two products (np.einsum's over a row of two) is x0 * x0 + x1 * x1; x ** 2 is x * x.
What cannot be followed is np.dot's order in geometry.polygon_signed_area: each polygon's area
sign is computed once by numpy (``polygon_layout``) and read from the Statics bundle.

The polygons' corners are their edges' first ends (bundles.Statics ``ax``, ``ay``): polygon
p's edges are the capsules polygon_first[p] .. polygon_first[p + 1] - 1, edge k from corner k
to corner k + 1, as statics.build_statics lays them out (``polygon_layout`` checks it); a
moving polygon's corners move with its edges (compiled.walls.set_pose).
"""
import numpy as np

from game.physics import geometry

TINY = np.finfo(np.float64).tiny        # as geometry.TINY


def polygon_layout(polygon, a, polygons):
    """(first (P + 1,) int64, winding (P,) int64, solid (P,) bool, laid_out bool) of the
    ``polygons`` (P lists of corners) whose edges are capsules with first ends ``a`` (M, 2),
    ``polygon`` (M,) int64 the polygon of each capsule: polygon p's edges are the capsules
    first[p] .. first[p + 1] - 1; winding is the sign of each polygon's signed area
    (point_in_convex_polygon's test), solid whether its counter-clockwise copy (ensure_ccw) has a
    positive area (circle_polygon_offset's); laid_out whether every polygon's corners are its
    edges' first ends, in order and in those rows (else the kernel cannot serve them)."""
    corners = [np.asarray(points, float).reshape(-1, 2) for points in polygons]
    counts = np.array([len(c) for c in corners], np.int64)
    edges = np.nonzero(polygon >= 0)[0]
    first = np.zeros(len(polygons) + 1, np.int64)
    first[0] = edges[0] if len(edges) else 0
    first[1:] = first[0] + np.cumsum(counts)
    laid_out = bool(len(edges) == first[-1] - first[0] and np.array_equal(edges, np.arange(first[0], first[-1]))
                    and np.array_equal(polygon[edges], np.repeat(np.arange(len(polygons)), counts))
                    and np.array_equal(a[edges], np.concatenate(corners) if corners else np.zeros((0, 2))))
    winding = np.zeros(len(polygons), np.int64)
    solid = np.zeros(len(polygons), np.bool_)
    for p, c in enumerate(corners):
        area = geometry.polygon_signed_area(c)
        winding[p] = 1 if area > 0 else (-1 if area < 0 else 0)
        # ensure_ccw reverses a clockwise polygon only: another counter-clockwise is its own copy.
        solid[p] = area > 0 if area >= 0 else geometry.polygon_signed_area(geometry.ensure_ccw(c)) > 0
    return first, winding, solid, laid_out


def _maximum(a, b):
    """np.maximum(a, b) of two floats."""
    if a != a:
        return a
    if b != b:
        return b
    return a if a > b else b


def _minimum(a, b):
    """np.minimum(a, b) of two floats."""
    if a != a:
        return a
    if b != b:
        return b
    return a if a < b else b


def _length(vx, vy):
    """geometry._length: sqrt(vx^2 + vy^2), the C library's hypot below 1e-150."""
    length = np.sqrt(vx * vx + vy * vy)
    if length < 1e-150:
        length = np.hypot(vx, vy)
    return length


def _left_normal(dx, dy):
    """geometry._unit_left_normal: (0 - dy, dx) / |d|; (0, 1) for a zero d."""
    length = _length(dx, dy)
    zero = 1.0 if length == 0 else 0.0
    length = _maximum(length, TINY)
    return (0.0 - dy) / length, dx / length + zero


def _corner(ax, ay, first, count, reverse, j):
    """Corner j of a polygon of ``count`` corners from capsule ``first`` on, counted backwards
    where ``reverse`` (ensure_ccw's copy of a clockwise polygon)."""
    at = first + (count - 1 - j if reverse else j)
    return ax[at], ay[at]


def _inside(ax, ay, first, count, reverse, winding, x, y):
    """geometry.point_in_convex_polygon of the point (x, y) and a polygon's corners (in
    _corner's order) whose signed area has the sign ``winding``."""
    if winding == 0:                # collinear corners: on their line and within their box
        lo_x, lo_y = _corner(ax, ay, first, count, reverse, 0)
        hi_x, hi_y = lo_x, lo_y
        for j in range(count):
            cx, cy = _corner(ax, ay, first, count, reverse, j)
            lo_x = lo_x if lo_x != lo_x else (cx if cx != cx or cx < lo_x else lo_x)
            lo_y = lo_y if lo_y != lo_y else (cy if cy != cy or cy < lo_y else lo_y)
            hi_x = hi_x if hi_x != hi_x else (cx if cx != cx or cx > hi_x else hi_x)
            hi_y = hi_y if hi_y != hi_y else (cy if cy != cy or cy > hi_y else hi_y)
        if not (x >= lo_x and x <= hi_x and y >= lo_y and y <= hi_y):
            return False
    for j in range(count):
        cx, cy = _corner(ax, ay, first, count, reverse, j)
        nx, ny = _corner(ax, ay, first, count, reverse, (j + 1) % count)
        cross = (nx - cx) * (y - cy) - (ny - cy) * (x - cx)
        if not (cross >= 0 if winding > 0 else (cross <= 0 if winding < 0 else cross == 0)):
            return False
    return True


def _closest(sx, sy, qx, qy, x, y):
    """geometry._closest_xy (with _project) on the segment s -> q: the closest point to (x, y)
    and d = q - s, w = (x, y) - s, dd = d.d, wd = w.d, t."""
    dx = qx - sx
    dy = qy - sy
    wx = x - sx
    wy = y - sy
    dd = dx * dx + dy * dy
    wd = wx * dx + wy * dy
    t = _minimum(_maximum(wd, 0.0), dd) / _maximum(dd, TINY)
    return sx + t * dx, sy + t * dy, (t, dx, dy, dd, wx, wy, wd)


def _segment_offset(x, y, radius, sx, sy, qx, qy):
    """geometry.circle_segment_offset of a circle (x, y, radius) against the segment s -> q
    (seg_radius 0, toward None): the vector that moves it out, zero where apart."""
    _, _, (t, dx, dy, dd, wx, wy, wd) = _closest(sx, sy, qx, qy, x, y)
    if wd > 0 and wd < dd:          # _from_segment: exactly perpendicular inside the segment
        k = (dx * wy - dy * wx) / _maximum(dd, TINY)
        vx = 0.0 - k * dy
        vy = k * dx
    else:
        vx = wx - t * dx
        vy = wy - t * dy
    dist = _length(vx, vy)
    depth = _maximum((radius + 0.0) - dist, 0.0)
    inv = _maximum(dist, TINY)
    ux = vx / inv
    uy = vy / inv
    if dist == 0:                   # the centre on the segment: its left normal
        ux, uy = _left_normal(dx, dy)
    return ux * depth, uy * depth


def _first_min(values):
    """np.argmin: the first smallest, or the first NaN."""
    k = 0
    for j in range(len(values)):
        if values[j] != values[j]:
            return j
        if values[j] < values[k]:
            k = j
    return k


def _first_max(values):
    """np.argmax: the first largest, or the first NaN."""
    k = 0
    for j in range(len(values)):
        if values[j] != values[j]:
            return j
        if values[j] > values[k]:
            k = j
    return k


def _polygon_offset(ax, ay, first, count, reverse, solid, x, y, radius):
    """geometry.circle_polygon_offset of a circle (x, y, radius) and a convex polygon whose
    counter-clockwise copy is its corners in _corner's order (``reverse``) with a positive
    area where ``solid``: centre inside (the boundary within rounding included), the push out
    through the nearest edge; else the offset against the nearest edge."""
    dist2 = np.empty(count)
    biggest = 0.0
    for k in range(count):          # the edges taken backwards (corner k + 1 -> corner k)
        px, py = _corner(ax, ay, first, count, reverse, k)
        sx, sy = _corner(ax, ay, first, count, reverse, (k + 1) % count)
        qx, qy, _ = _closest(sx, sy, px, py, x, y)
        ex = x - qx
        ey = y - qy
        dist2[k] = ex * ex + ey * ey
        for v in (abs(px), abs(py)):            # np.max(np.abs(poly)): NaN wins
            biggest = biggest if biggest != biggest else (v if v != v or v > biggest else biggest)
    near = _first_min(dist2)
    scale = (1.0 + biggest) + _maximum(abs(x), abs(y))
    inside = solid and (np.sqrt(dist2[near]) <= 1e-12 * scale or _inside(ax, ay, first, count, reverse, 1, x, y))
    if not inside:
        qx, qy = _corner(ax, ay, first, count, reverse, near)
        sx, sy = _corner(ax, ay, first, count, reverse, (near + 1) % count)
        return _segment_offset(x, y, radius, sx, sy, qx, qy)
    # The signed distance to each edge's line along its outward normal; the largest wins.
    s = np.empty(count)
    for k in range(count):
        px, py = _corner(ax, ay, first, count, reverse, k)
        sx, sy = _corner(ax, ay, first, count, reverse, (k + 1) % count)
        nx, ny = _left_normal(px - sx, py - sy)
        s[k] = -np.inf if (px == sx and py == sy) else (x - px) * nx + (y - py) * ny
    k = _first_max(s)
    px, py = _corner(ax, ay, first, count, reverse, k)
    sx, sy = _corner(ax, ay, first, count, reverse, (k + 1) % count)
    nx, ny = _left_normal(px - sx, py - sy)
    depth = radius + (-s[k])           # np.add(radius, -s_k)
    return nx * depth, ny * depth


def polygon_insides_kernel(px, py, radius, i, s, statics, nx, ny, depth):
    """collide.polygon_insides, in place on (nx, ny, depth) (K,) of balls i at (px, py) (N,)
    against capsules s (K,) of the bundles.Statics ``statics``: for each polygon and each of
    its balls whose centre is inside it (boundary included) and on the inner side of one of
    its edges among the pairs, the first of that ball's pairs with that polygon carries the
    push out through the nearest edge (the unit normal, depth = distance + radius) and the
    others are dropped (depth -inf)."""
    polygon = statics.polygon
    count = 0
    for r in range(len(i)):
        if polygon[s[r]] >= 0:
            count += 1
    if count == 0:
        return
    n = len(px)
    rows = np.empty(count, np.int64)
    keys = np.empty(count, np.int64)
    q = 0
    for r in range(len(i)):
        if polygon[s[r]] >= 0:
            rows[q] = r
            keys[q] = polygon[s[r]] * n + i[r]
            q += 1
    order = np.argsort(keys, kind="mergesort")      # by (polygon, ball), each in row order
    ax, ay, bx, by = statics.ax, statics.ay, statics.bx, statics.by
    g = 0
    while g < count:
        key = keys[order[g]]
        end = g
        inner = False
        while end < count and keys[order[end]] == key:
            r = rows[order[end]]
            c = s[r]
            a = i[r]
            inner = inner or (bx[c] - ax[c]) * (py[a] - ay[c]) - (by[c] - ay[c]) * (px[a] - ax[c]) > 0
            end += 1
        r = rows[order[g]]
        a = i[r]
        p = polygon[s[r]]
        first = statics.polygon_first[p]
        corners = statics.polygon_first[p + 1] - first
        winding = statics.polygon_winding[p]
        if inner and _inside(ax, ay, first, corners, False, winding, px[a], py[a]):
            ox, oy = _polygon_offset(ax, ay, first, corners, winding < 0, statics.polygon_solid[p], px[a], py[a],
                                     radius[a])
            push = np.sqrt(ox * ox + oy * oy)
            nx[r] = ox / push if push > 0 else 0.0
            ny[r] = oy / push if push > 0 else 0.0
            depth[r] = push
            for e in range(g + 1, end):
                depth[rows[order[e]]] = -np.inf
        g = end
