"""game.physics.geometry against brute-force and exact (rational) oracles.

The oracles are deliberately simple and independent of the code under test: dense sampling
of a segment, a marched centre with bisection, Fractions for intersections and inside tests,
and the seed's own four-case circle-rectangle test.
"""
import doctest
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

import game.physics.geometry as geo
from game.physics.geometry import (
    circle_circle_offset,
    circle_polygon_offset,
    circle_rect_overlap,
    circle_segment_offset,
    closest_point_on_segment,
    convex_polygons_overlap,
    ensure_ccw,
    point_in_convex_polygon,
    point_in_ellipse,
    polygon_is_convex,
    polygon_signed_area,
    segment_intersection,
    segment_intersections,
    segment_normal,
    side,
    swept_circle_segment,
)

SETTINGS = settings(max_examples=200, deadline=None)
# exact-arithmetic and shape tests on small integer grids: fewer examples cover them
LIGHT = settings(max_examples=100, deadline=None)

# metres; magnitudes below 1e-12 are snapped to 0 (their squares would underflow, a
# regime no level reaches; the degenerate test below covers exact zeros)
coord = st.floats(-10, 10).map(lambda v: 0.0 if abs(v) < 1e-12 else v)
point = st.tuples(coord, coord)
radius = st.floats(0.05, 3.0)
move = st.tuples(st.floats(-20, 20), st.floats(-20, 20)).map(
    lambda m: tuple(0.0 if abs(v) < 1e-12 else v for v in m))
small_int = st.integers(-6, 6)
int_point = st.tuples(small_int, small_int)
# few values, so that coincidences (zero-length segments, centres on segments) are common
tiny_int = st.sampled_from([-1, 0, 1, 2])
tiny_point = st.tuples(tiny_int, tiny_int)
tiny_radius = st.sampled_from([0.0, 0.5, 1.0, 2.0])


# --------------------------------------------------------------------------- oracles

def dist_point_segment(p, a, b):
    """Plain-Python distance from p to segment a-b (scalar, independent of numpy)."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    dd = dx * dx + dy * dy
    t = 0.0 if dd == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / dd))
    return math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy)


def sampled_segment(a, b, n=2001):
    s = np.linspace(0.0, 1.0, n)[:, None]
    return np.asarray(a, float) + s * (np.asarray(b, float) - np.asarray(a, float))


def cross_frac(o, a, b):
    """(a - o) x (b - o), exactly: Python ints as they are, anything else as a Fraction."""
    o, a, b = [tuple(v if isinstance(v, int) else Fraction(v) for v in q) for q in (o, a, b)]
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def convex_hull(points):
    """Andrew's monotone chain, counter-clockwise, exact for integers; no collinear points."""
    pts = sorted(set(points))
    if len(pts) < 3:
        return pts
    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and cross_frac(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross_frac(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def seed_point_in_polygon(p, poly):
    """Seed 003: all edge cross products of one sign (or 0), in Fractions."""
    z = [cross_frac(poly[i], poly[(i + 1) % len(poly)], p) for i in range(len(poly))]
    return all(v >= 0 for v in z) or all(v <= 0 for v in z)


def on_segment_frac(p, a, b):
    return (cross_frac(a, b, p) == 0
            and min(a[0], b[0]) <= p[0] <= max(a[0], b[0])
            and min(a[1], b[1]) <= p[1] <= max(a[1], b[1]))


def segments_touch_frac(a, b, c, d):
    """Closed segments a-b and c-d share a point (collinear overlap included), exactly."""
    d1, d2 = cross_frac(c, d, a), cross_frac(c, d, b)
    d3, d4 = cross_frac(a, b, c), cross_frac(a, b, d)
    if ((d1 > 0 > d2) or (d1 < 0 < d2)) and ((d3 > 0 > d4) or (d3 < 0 < d4)):
        return True
    return (on_segment_frac(a, c, d) or on_segment_frac(b, c, d)
            or on_segment_frac(c, a, b) or on_segment_frac(d, a, b))


def polygons_overlap_oracle(p, q):
    if any(seed_point_in_polygon(v, q) for v in p) or any(seed_point_in_polygon(v, p) for v in q):
        return True
    return any(segments_touch_frac(p[i], p[(i + 1) % len(p)], q[j], q[(j + 1) % len(q)])
               for i in range(len(p)) for j in range(len(q)))


def seed_circle_rectangle(x, y, r, x1, y1, x2, y2):
    """Seed 003's circleRectangle, exactly as written there (Turing -> Python)."""
    if x > x1 and x < x2 and (y + r > y1 and y + r < y2 or y - r > y1 and y - r < y2):
        return True
    if y > y1 and y < y2 and (x + r > x1 and x + r < x2 or x - r > x1 and x - r < x2):
        return True
    if ((x1 - x) ** 2 + (y1 - y) ** 2 <= r ** 2 or (x1 - x) ** 2 + (y2 - y) ** 2 <= r ** 2
            or (x2 - x) ** 2 + (y1 - y) ** 2 <= r ** 2 or (x2 - x) ** 2 + (y2 - y) ** 2 <= r ** 2):
        return True
    return x > x1 and x < x2 and y > y1 and y < y2


def dist_point_solid_polygon(p, poly):
    if point_in_convex_polygon(p, poly):
        return 0.0
    return min(dist_point_segment(p, poly[i], poly[(i + 1) % len(poly)]) for i in range(len(poly)))


convex_int_polygon = (st.lists(int_point, min_size=3, max_size=7)
                      .map(convex_hull).filter(lambda h: len(h) >= 3))


@st.composite
def convex_float_polygon(draw):
    """A convex polygon with float vertices: points on a circle at sorted angles."""
    gaps = draw(st.lists(st.floats(0.1, 1.0), min_size=3, max_size=7))
    angles = np.cumsum(gaps) * (2 * math.pi / sum(gaps)) + draw(st.floats(0, 1))
    if max(gaps) > 0.45 * sum(gaps):  # keep every turn below 180 degrees
        angles = angles[:-1]
    r = draw(st.floats(0.5, 5))
    c = draw(point)
    poly = np.stack([c[0] + r * np.cos(angles), c[1] + r * np.sin(angles)], axis=1)
    return poly if draw(st.booleans()) else poly[::-1]


# --------------------------------------------------------------------------- doctests

def test_docstring_examples_pass():
    result = doctest.testmod(geo, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    assert result.attempted >= 30


# --------------------------------------------------------------------------- side, normal

def test_side_signs_left_right_on_line():
    assert side((0, 0), (1, 0), (0, 1)) > 0
    assert side((0, 0), (1, 0), (0, -1)) < 0
    assert side((0, 0), (1, 0), (7, 0)) == 0
    assert isinstance(side((0, 0), (1, 0), (0, 1)), float)


def test_segment_normal_is_unit_left_and_zero_length_is_up():
    np.testing.assert_array_equal(segment_normal((0, 0), (0, 3)), [-1, 0])
    np.testing.assert_array_equal(segment_normal((2, 2), (2, 2)), [0, 1])
    n = segment_normal([(0, 0), (1, 1)], [(3, 4), (1, 1)])
    np.testing.assert_allclose(n, [[-0.8, 0.6], [0, 1]])


# --------------------------------------------------------------------------- closest point

@SETTINGS
@given(point, point, point)
def test_closest_point_beats_dense_sampling(a, b, p):
    q = closest_point_on_segment(a, b, p)
    assert q.shape == (2,)
    samples = sampled_segment(a, b)
    d_samples = np.hypot(*(samples - p).T).min()
    d_ours = math.hypot(p[0] - q[0], p[1] - q[1])
    spacing = math.hypot(b[0] - a[0], b[1] - a[1]) / 2000
    assert d_ours <= d_samples + 1e-9
    assert d_samples <= d_ours + spacing / 2 + 1e-9
    # q lies on the segment
    assert dist_point_segment(tuple(q), a, b) <= 1e-9


def test_closest_point_zero_length_segment_returns_a():
    np.testing.assert_array_equal(closest_point_on_segment((1, 2), (1, 2), (5, 5)), [1, 2])


def test_closest_point_broadcasts_pairwise_and_against_one_segment():
    rng = np.random.default_rng(1)
    a, b, p = rng.uniform(-5, 5, (3, 50, 2))
    got = closest_point_on_segment(a, b, p)
    assert got.shape == (50, 2)
    for k in range(50):
        np.testing.assert_allclose(got[k], closest_point_on_segment(a[k], b[k], p[k]))
    got = closest_point_on_segment(a[0], b[0], p)
    assert got.shape == (50, 2)
    np.testing.assert_allclose(got[7], closest_point_on_segment(a[0], b[0], p[7]))


# --------------------------------------------------------------------------- offsets

@SETTINGS
@given(point, radius, point, point, st.floats(0, 2))
def test_circle_segment_offset_leaves_the_circle_just_touching(c, r, a, b, seg_r):
    off = circle_segment_offset(c, r, a, b, seg_radius=seg_r)
    R = r + seg_r
    d0 = dist_point_segment(c, a, b)
    if d0 >= R:
        np.testing.assert_array_equal(off, [0, 0])
        return
    assert np.all(np.isfinite(off))
    moved = (c[0] + off[0], c[1] + off[1])
    assert dist_point_segment(moved, a, b) == pytest.approx(R, rel=1e-9, abs=1e-12)
    assert math.hypot(*off) == pytest.approx(R - d0, rel=1e-9, abs=1e-9)


def test_circle_segment_offset_touching_is_not_overlapping():
    np.testing.assert_array_equal(circle_segment_offset((1, 1), 1.0, (0, 0), (4, 0)), [0, 0])
    np.testing.assert_array_equal(circle_segment_offset((6, 0), 1.0, (4, 0), (4, 0), 1.0), [0, 0])


def test_circle_segment_offset_capsule_end_and_round_peg():
    np.testing.assert_allclose(circle_segment_offset((5, 0), 0.5, (0, 0), (4, 0), 1.0), [0.5, 0])
    np.testing.assert_allclose(circle_segment_offset((0, -1), 1.0, (0, 0), (0, 0), 0.5), [0, -0.5])


@SETTINGS
@given(int_point, int_point, st.integers(0, 4), radius, st.one_of(st.none(), int_point))
def test_centre_exactly_on_segment_is_pushed_along_the_normal(a, b, j, r, toward):
    # c = a + (j/4)(b - a) is exact: the centre lies exactly on the segment
    a4, b4 = np.multiply(a, 4.0), np.multiply(b, 4.0)
    c = a4 + j * (b4 - a4) / 4
    with np.errstate(all="raise"):
        off = circle_segment_offset(c, r, a4, b4, toward=toward)
    assert math.hypot(*off) == pytest.approx(r, rel=1e-12)
    d = b4 - a4
    if np.any(d != 0):
        assert abs(off @ d) <= 1e-9 * np.hypot(*d)  # along the normal
        s = 0.0 if toward is None else side(a4, b4, toward)
        # towards `toward`, or the left normal where it is on the line or absent
        assert side(a4, b4, c + off) > 0 if s >= 0 else side(a4, b4, c + off) < 0
    elif toward is not None and tuple(toward) != tuple(c):
        e = np.subtract(toward, c)
        np.testing.assert_allclose(off, r * e / np.hypot(*e))
    else:
        np.testing.assert_allclose(off, [0, r])


def test_centre_on_segment_named_cases():
    np.testing.assert_array_equal(circle_segment_offset((2, 0), 1.0, (0, 0), (4, 0)), [0, 1])
    np.testing.assert_array_equal(circle_segment_offset((2, 0), 1.0, (4, 0), (0, 0)), [0, -1])
    np.testing.assert_array_equal(
        circle_segment_offset((2, 0), 1.0, (0, 0), (4, 0), toward=(3, -1)), [0, -1])
    np.testing.assert_array_equal(
        circle_segment_offset((2, 0), 1.0, (0, 0), (4, 0), toward=(9, 0)), [0, 1])
    np.testing.assert_array_equal(circle_segment_offset((1, 1), 1.0, (1, 1), (1, 1)), [0, 1])
    np.testing.assert_allclose(
        circle_segment_offset((1, 1), 1.0, (1, 1), (1, 1), 1.0, toward=(0, 1)), [-2, 0])


def test_circle_segment_offset_broadcasts_radii_and_toward():
    c = np.array([(0, 0.5), (2, 0), (9, 9)])
    off = circle_segment_offset(c, np.array([1.0, 2.0, 1.0]), (-4, 0), (4, 0),
                                toward=np.array([(0, 1), (0, -1), (0, 1)]))
    np.testing.assert_allclose(off, [(0, 0.5), (0, -2), (0, 0)])


@SETTINGS
@given(point, radius, point, radius)
def test_circle_circle_offset_separates_to_touching(c1, r1, c2, r2):
    off = circle_circle_offset(c1, r1, c2, r2)
    d = math.hypot(c1[0] - c2[0], c1[1] - c2[1])
    if d >= r1 + r2:
        np.testing.assert_array_equal(off, [0, 0])
        return
    moved = (c1[0] + off[0], c1[1] + off[1])
    assert math.hypot(moved[0] - c2[0], moved[1] - c2[1]) == pytest.approx(r1 + r2, rel=1e-9)


def test_circle_circle_coincident_centres_push_along_plus_x():
    np.testing.assert_array_equal(circle_circle_offset((3, 3), 1.0, (3, 3), 2.0), [3, 0])
    off = circle_circle_offset([(0, 0), (0, 1)], 1.0, (0, 0), 1.0)
    np.testing.assert_array_equal(off, [(2, 0), (0, 1)])


@SETTINGS
@given(convex_float_polygon(), point, radius)
# A centre on a corner up to rounding: pushed along the noise, it overlapped the next edge.
@example(np.array([[1.0, -2.4492936e-16], [-0.5, -0.866025404], [-0.5, 0.866025404]]), (1.0, 0.0), 1.0)
def test_circle_polygon_offset_pushes_out_to_touching(poly, c, r):
    off = circle_polygon_offset(c, r, poly)
    d0 = dist_point_solid_polygon(c, poly)
    assume(abs(d0 - r) > 1e-9)
    if d0 >= r:
        np.testing.assert_array_equal(off, [0, 0])
        return
    moved = (c[0] + off[0], c[1] + off[1])
    assert not point_in_convex_polygon(moved, poly) or r < 1e-9
    assert dist_point_solid_polygon(moved, poly) == pytest.approx(r, rel=1e-9, abs=1e-9)
    if point_in_convex_polygon(c, poly):
        # through the nearest edge: length = distance to the boundary + radius
        to_edge = min(dist_point_segment(c, poly[i], poly[(i + 1) % len(poly)])
                      for i in range(len(poly)))
        assert math.hypot(*off) == pytest.approx(to_edge + r, rel=1e-9)


def test_circle_polygon_offset_many_centres_either_winding():
    square = np.array([(0, 0), (4, 0), (4, 4), (0, 4)], float)
    c = np.array([(2, 4.5), (3, 2), (1, 1.5), (10, 10), (4.5, 4.5)])
    corner = (1 - math.sqrt(0.5)) * math.sqrt(0.5)  # from the corner (4, 4), diagonally
    want = [(0, 0.5), (2, 0), (-2, 0), (0, 0), (corner, corner)]
    for poly in (square, square[::-1]):
        np.testing.assert_allclose(circle_polygon_offset(c, 1.0, poly), want, atol=1e-12)


# --------------------------------------------------------------------------- swept test

def swept_oracle(c, r, m, a, b, R):
    """First touch by marching the centre: ternary search for the (convex) minimum of
    f(t) = dist(c + t m, segment) - R, then bisection for its first root."""
    def f(t):
        return dist_point_segment((c[0] + t * m[0], c[1] + t * m[1]), a, b) - R

    lo, hi = 0.0, 1.0
    for _ in range(200):
        m1, m2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        if f(m1) < f(m2):
            hi = m2
        else:
            lo = m1
    t_min = (lo + hi) / 2
    return f, t_min, f(t_min)


@SETTINGS
@given(point, radius, move, point, point,
       st.floats(0, 1))
def test_swept_matches_a_marched_centre(c, r, m, a, b, seg_r):
    R = r + seg_r
    t = swept_circle_segment(c, r, m, a, b, seg_radius=seg_r)
    assert isinstance(t, float) and not math.isnan(t)
    f, t_min, f_min = swept_oracle(c, r, m, a, b, R)
    margin = 1e-4
    assume(abs(f(0.0)) > margin and abs(f_min) > margin)
    if f(0.0) < 0:
        return  # overlapping at the start: covered by test_swept_when_overlapping_at_start
    if f_min > 0:
        assert t == math.inf
        return
    lo, hi = 0.0, t_min  # f(lo) > 0 >= f(hi)
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) > 0 else (lo, mid)
    assert t == pytest.approx(hi, abs=1e-7)
    # no sampled position before t overlaps
    before = np.linspace(0.0, t, 501)[:-1]
    assert min(f(s) for s in before) > -1e-9


@st.composite
def overlapping_start(draw):
    """A circle overlapping segment a-b: centre at distance (0, r) from a point on it."""
    a, b, r = draw(point), draw(point), draw(radius)
    s = draw(st.floats(0, 1))
    angle = draw(st.floats(0, 2 * math.pi))
    depth = draw(st.floats(0.01, 0.99)) * r
    c = (a[0] + s * (b[0] - a[0]) + depth * math.cos(angle),
         a[1] + s * (b[1] - a[1]) + depth * math.sin(angle))
    return c, r, a, b


@SETTINGS
@given(overlapping_start(), move)
def test_swept_when_overlapping_at_start(start, m):
    c, r, a, b = start
    d0 = dist_point_segment(c, a, b)
    assume(1e-6 * r < d0 < r)
    t = swept_circle_segment(c, r, m, a, b)
    q = closest_point_on_segment(a, b, c)
    approach = m[0] * (c[0] - q[0]) + m[1] * (c[1] - q[1])  # m·(c - q)
    assume(abs(approach) > 1e-9 * math.hypot(*m) * d0 or m == (0.0, 0.0))
    if approach < 0 or m == (0.0, 0.0):
        assert t == 0.0
    else:
        assert t == math.inf


@LIGHT
@given(small_int, st.integers(3, 12), st.integers(1, 20), st.integers(1, 6), st.integers(-6, 6),
       st.sampled_from([0.5, 1.0, 1.5, 2.0, 2.5]), st.booleans())
def test_swept_axis_aligned_flat_hits_are_exact(x, y0, speed, half, shift, r, vertical):
    # centre (x0, y0) moves straight down by `speed` onto the segment (x - half, 0)-(x + half, 0)
    # (or the same mirrored onto a vertical segment); first touch inside the segment
    x0 = x + max(-half, min(half, shift))
    c, m, a, b = (x0, y0), (0, -speed), (x - half, 0), (x + half, 0)
    if vertical:
        c, m, a, b = [(p[1], p[0]) for p in (c, m, a, b)]
    t = swept_circle_segment(c, r, m, a, b)
    want = Fraction(y0) - Fraction(r)
    assert t == (float(want / speed) if want <= speed else math.inf)


def test_swept_seed_example_is_exactly_0_4():
    assert swept_circle_segment((0, 5), 1.0, (0, -10), (-3, 0), (3, 0)) == 0.4
    assert swept_circle_segment((5, 0), 1.0, (-10, 0), (0, -3), (0, 3)) == 0.4


SEG = ((-3.0, 0.0), (3.0, 0.0))


@pytest.mark.parametrize("name, center, move, seg_r, want", [
    ("case 6: touching before the move and moving into it", (0, 1), (0, -1), 0, 0.0),
    ("case 6: overlapping and moving deeper", (0, 0.5), (1, -1), 0, 0.0),
    ("case 6: centre exactly on the segment, any move", (1, 0), (0, 5), 0, 0.0),
    ("cases 4/5: touching and moving away", (0, 1), (0, 1), 0, math.inf),
    ("cases 4/5: touching and moving along the tangent", (0, 1), (2, 0), 0, math.inf),
    ("cases 4/5: overlapping and moving away", (0, 0.5), (0.3, 2), 0, math.inf),
    ("case 1: first touch at A, along the line", (-6, 0), (10, 0), 0, 0.2),
    ("case 1: first touch at A, from above", (-3.6, 5), (0, -10), 0, 0.42),
    ("case 1: first touch at B, from above", (3.6, 5), (0, -10), 0, 0.42),
    ("case 1: first touch at B, along the line", (6, 0), (-10, 0), 0, 0.2),
    ("case 2: first touch inside the segment", (0, 5), (0, -10), 0, 0.4),
    ("case 2: inside, oblique", (-5, 5), (10, -10), 0, 0.4),
    ("case 2: from below", (1, -5), (0, 10), 0, 0.4),
    ("case 3: never touching", (10, 10), (1, 0), 0, math.inf),
    ("case 3: moving away", (0, 5), (0, 10), 0, math.inf),
    ("case 3: stops short", (0, 5), (0, -3), 0, math.inf),
    ("reaches it exactly at the end of the move", (0, 5), (0, -4), 0, 1.0),
    ("parallel at a distance > R", (-10, 2), (20, 0), 0, math.inf),
    ("parallel at a distance < R hits the end A", (-10, 0.6), (20, 0), 0, 0.31),
    ("parallel at exactly R grazes the end A", (-10, 1), (20, 0), 0, 0.35),
    ("zero move while overlapping", (0, 0.5), (0, 0), 0, 0.0),
    ("zero move while touching", (0, 1), (0, 0), 0, 0.0),
    ("zero move while apart", (0, 5), (0, 0), 0, math.inf),
    ("capsule", (0, 5), (0, -10), 0.5, 0.35),
    ("passes beyond the end", (5, 5), (0, -10), 0, math.inf),
])
def test_swept_seed_001_cases(name, center, move, seg_r, want):
    t = swept_circle_segment(center, 1.0, move, *SEG, seg_radius=seg_r)
    assert t == pytest.approx(want, abs=1e-12), name


def test_swept_round_peg_and_zero_length_segment():
    assert swept_circle_segment((0, 5), 1.0, (0, -10), (0, 0), (0, 0), 1.0) == 0.3
    assert swept_circle_segment((0, 5), 1.0, (0, -10), (0, 0), (0, 0)) == 0.4
    assert swept_circle_segment((3, 5), 1.0, (0, -10), (0, 0), (0, 0), 1.0) == math.inf


def test_swept_broadcasts():
    c = np.array([(0, 5), (0, 5), (9, 9), (0, 0.5)])
    m = np.array([(0, -10), (0, 10), (1, 0), (0, 0)])
    t = swept_circle_segment(c, np.array([1.0, 1.0, 1.0, 1.0]), m, *SEG)
    np.testing.assert_array_equal(t, [0.4, np.inf, np.inf, 0.0])
    t = swept_circle_segment((0, 5), 1.0, (0, -10), np.array([(-3, 0), (5, 0)]),
                             np.array([(3, 0), (6, 0)]))
    np.testing.assert_array_equal(t, [0.4, np.inf])


@LIGHT
@given(tiny_point, tiny_radius, tiny_point, tiny_point, tiny_point, tiny_radius, tiny_point)
def test_degenerate_inputs_never_raise_warn_or_nan(c, r, m, a, b, seg_r, toward):
    with np.errstate(all="raise"):
        results = [
            closest_point_on_segment(a, b, c),
            circle_segment_offset(c, r, a, b, seg_r),
            circle_segment_offset(c, r, a, b, seg_r, toward=toward),
            circle_circle_offset(c, r, a, seg_r),
            swept_circle_segment(c, r, m, a, b, seg_r),
            segment_normal(a, b),
            segment_intersections(a, b, c, m)[0],
            circle_polygon_offset(c, r, [a, b, toward]),
            point_in_ellipse(c, a, (r, seg_r)),
        ]
        swept_circle_segment(np.array([c, a]), r, m, a, b, seg_r)
    for x in results:
        assert not np.any(np.isnan(x))


# --------------------------------------------------------------------------- intersections

@LIGHT
@given(int_point, int_point, int_point, int_point)
def test_segment_intersection_matches_exact_rationals(a1, b1, a2, b2):
    got = segment_intersection(a1, b1, a2, b2)
    F = Fraction
    r = (F(b1[0] - a1[0]), F(b1[1] - a1[1]))
    s = (F(b2[0] - a2[0]), F(b2[1] - a2[1]))
    q = (F(a2[0] - a1[0]), F(a2[1] - a1[1]))
    den = r[0] * s[1] - r[1] * s[0]
    if den == 0:
        assert got is None  # parallel, collinear or zero-length: no unique point
        return
    t = (q[0] * s[1] - q[1] * s[0]) / den
    u = (q[0] * r[1] - q[1] * r[0]) / den
    if 0 <= t <= 1 and 0 <= u <= 1:
        assert got is not None
        np.testing.assert_allclose(got, [float(a1[0] + t * r[0]), float(a1[1] + t * r[1])],
                                   rtol=0, atol=1e-12)
    else:
        assert got is None


def test_segment_intersection_named_cases():
    np.testing.assert_array_equal(segment_intersection((0, 0), (2, 0), (2, 0), (2, 5)), [2, 0])
    assert segment_intersection((0, 0), (2, 0), (0, 1), (2, 1)) is None  # parallel
    assert segment_intersection((0, 0), (2, 0), (1, 0), (3, 0)) is None  # collinear overlap
    assert segment_intersection((1, 1), (1, 1), (0, 0), (2, 2)) is None  # zero-length
    with pytest.raises(ValueError):
        segment_intersection(np.zeros((2, 2)), np.ones((2, 2)), (0, 1), (1, 0))


def test_segment_intersections_broadcast_and_fill_zero():
    a1 = np.array([(0, 0), (0, 0), (0, 0)])
    b1 = np.array([(2, 2), (1, 0), (5, 0)])
    pts, hit = segment_intersections(a1, b1, (0, 2), (4, -2))
    np.testing.assert_array_equal(hit, [True, False, True])
    np.testing.assert_allclose(pts, [(1, 1), (0, 0), (2, 0)])
    assert not np.any(np.isnan(pts))


# --------------------------------------------------------------------------- polygons

@LIGHT
@given(convex_int_polygon, st.lists(int_point, min_size=1, max_size=8))
def test_point_in_convex_polygon_both_windings_match_seed_rule(poly, pts):
    want = [seed_point_in_polygon(p, poly) for p in pts]
    for winding in (poly, poly[::-1]):
        assert point_in_convex_polygon(np.array(pts, float), winding).tolist() == want
        assert point_in_convex_polygon(pts[0], winding) is want[0]


def test_point_in_convex_polygon_boundary_and_degenerate():
    tri = [(0, 0), (4, 0), (0, 4)]
    assert point_in_convex_polygon((2, 2), tri)  # on the hypotenuse
    assert point_in_convex_polygon((0, 0), tri[::-1])  # a vertex
    assert not point_in_convex_polygon((2.0001, 2), tri)
    flat = [(0, 0), (2, 0), (4, 0)]  # zero area: only its span counts
    assert point_in_convex_polygon((3, 0), flat)
    assert not point_in_convex_polygon((5, 0), flat)
    assert not point_in_convex_polygon((1, 1), flat)


@LIGHT
@given(convex_int_polygon, convex_int_polygon, st.booleans())
def test_convex_polygons_overlap_matches_vertex_and_edge_oracle(p, q, flip):
    if flip:
        q = q[::-1]
    assert convex_polygons_overlap(p, q) is polygons_overlap_oracle(p, q)
    assert convex_polygons_overlap(q, p) is polygons_overlap_oracle(p, q)


def test_convex_polygons_touching_counts_and_degenerate_shapes():
    sq = [(0, 0), (2, 0), (2, 2), (0, 2)]
    assert convex_polygons_overlap(sq, [(2, 2), (3, 2), (3, 3)])  # corner to corner
    assert not convex_polygons_overlap(sq, [(2.5, 0), (4, 0), (4, 2)])
    assert not convex_polygons_overlap([(0, 0)], [(1, 0)])  # two points
    assert convex_polygons_overlap([(1, 1)], [(1, 1)])
    assert convex_polygons_overlap([(1, 0)], [(0, 0), (2, 0)])  # point on segment
    assert not convex_polygons_overlap([(3, 0)], [(0, 0), (2, 0)])
    assert not convex_polygons_overlap([(0, 0), (1, 0)], [(2, 0), (3, 0)])  # collinear apart
    assert convex_polygons_overlap([(0, 0), (2, 0)], [(1, 0), (3, 0)])


@LIGHT
@given(st.lists(int_point, min_size=3, max_size=7))
def test_polygon_area_convexity_and_winding(pts):
    hull = convex_hull(pts)
    assume(len(hull) >= 3)
    area = polygon_signed_area(hull)
    assert area > 0
    assert polygon_signed_area(hull[::-1]) == -area
    assert polygon_is_convex(hull) and polygon_is_convex(hull[::-1])
    np.testing.assert_array_equal(ensure_ccw(hull[::-1]), np.array(hull[::-1], float)[::-1])
    np.testing.assert_array_equal(ensure_ccw(hull), np.array(hull, float))


def test_polygon_is_convex_rejects_bad_shapes():
    star = [(math.cos(a), math.sin(a)) for a in np.arange(5) * 4 * math.pi / 5]
    assert not polygon_is_convex(star)  # pentagram: turns one way but winds twice
    assert not polygon_is_convex([(0, 0), (2, 0), (1, 0.5), (2, 2), (0, 2)])  # dent
    assert not polygon_is_convex([(0, 0), (1, 0), (2, 0)])  # no area
    assert not polygon_is_convex([(0, 0), (1, 0)])
    assert polygon_is_convex([(0, 0), (1, 0), (1, 0), (2, 0), (2, 2)])  # repeated, straight


# --------------------------------------------------------------------------- zones

@LIGHT
@given(point, st.floats(0.01, 0.99), point, st.floats(0.1, 8), st.floats(0.1, 8))
def test_circle_rect_matches_seed_four_cases(c, r_frac, lo, w, h):
    x1, y1, x2, y2 = lo[0], lo[1], lo[0] + w, lo[1] + h
    r = r_frac * min(w, h) / 2  # the seed's method is only complete for 2 r < min(w, h)
    qx, qy = min(max(c[0], x1), x2), min(max(c[1], y1), y2)
    assume(abs(math.hypot(c[0] - qx, c[1] - qy) - r) > 1e-9)
    # the seed's strict inequalities differ from ours exactly on the rectangle's edge lines
    assume(min(abs(c[0] - x1), abs(c[0] - x2), abs(c[1] - y1), abs(c[1] - y2)) > 1e-9)
    want = seed_circle_rectangle(c[0], c[1], r, x1, y1, x2, y2)
    assert circle_rect_overlap(c, r, (x1, y1), (x2, y2)) is want
    assert circle_rect_overlap(c, r, (x2, y2), (x1, y1)) is want  # corners in any order


def test_circle_rect_catches_what_the_seed_misses():
    # a circle wider than a thin rectangle, crossing it away from its corners
    assert not seed_circle_rectangle(50, -1, 5, 0, 0, 100, 1)
    assert circle_rect_overlap((50, -1), 5, (0, 0), (100, 1))
    assert circle_rect_overlap((3, 0), 1.0, (0, 0), (2, 2))  # touching counts
    got = circle_rect_overlap([(3, 0), (3.5, 0), (1, 1)], 1.0, (0, 0), (2, 2))
    np.testing.assert_array_equal(got, [True, False, True])


@LIGHT
@given(point, point, st.floats(0.1, 5), st.floats(0.1, 5))
def test_point_in_ellipse_matches_rational_formula(p, c, rx, ry):
    F = Fraction
    value = ((F(p[0]) - F(c[0])) / F(rx)) ** 2 + ((F(p[1]) - F(c[1])) / F(ry)) ** 2
    assume(abs(value - 1) > F(1, 10**9))
    assert point_in_ellipse(p, c, (rx, ry)) is (value <= 1)


def test_point_in_ellipse_boundary_and_degenerate_radii():
    assert point_in_ellipse((2, 0), (0, 0), (2, 1))
    assert point_in_ellipse((0, -1), (0, 0), (2, 1))
    assert not point_in_ellipse((2, 0.01), (0, 0), (2, 1))
    assert point_in_ellipse((0, 0.5), (0, 0), (0, 1))  # a zero x-radius is a segment
    assert not point_in_ellipse((0, 1.5), (0, 0), (0, 1))
    got = point_in_ellipse([(0, 0), (5, 5)], np.array([(0, 0), (5, 6)]), (1, 1))
    np.testing.assert_array_equal(got, [True, True])
