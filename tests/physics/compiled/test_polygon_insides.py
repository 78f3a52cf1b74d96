"""The balls inside polygons (issue 36): game.physics.insides, compiled by numba, gives the bits
of numpy's collide.polygon_insides (and its helpers those of geometry's point_in_convex_polygon
and circle_polygon_offset), so the one-call tick serves levels with polygons, still or moving,
with the bits of the numpy execution."""
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.level import load
from game.physics import bundles, collide, geometry, insides
from game.physics.world import TICK, World
from tests.conftest import COMPILED, ROOT
from tests.scenes import definition

needs_tick = pytest.mark.skipif(COMPILED is None or COMPILED.tick is None, reason="numba is not installed")
if COMPILED is not None:
    from game.physics.compiled import insides as compiled_insides


def bits(x):
    """The float64 values' bit patterns (-0.0 is not 0.0 here)."""
    return np.ascontiguousarray(x, np.float64).view(np.int64)


def statics_of(polygons):
    """collide.Statics of a wall and the polygons' edges, laid out as statics.build_statics
    lays them out (each polygon's edges in a row, edge k from corner k to corner k + 1)."""
    a, b, owner = [[-9.0, -9.0]], [[9.0, -9.0]], [-1]
    for p, corners in enumerate(polygons):
        for k in range(len(corners)):
            a.append(corners[k])
            b.append(corners[(k + 1) % len(corners)])
            owner.append(p)
    m = len(a)
    st_ = collide.Statics(a, b, np.zeros(m), np.zeros(m), np.zeros(m), owner, [np.asarray(c, float) for c in polygons])
    assert st_.polygons_laid_out
    return st_


coordinate = st.floats(-4, 4, allow_nan=False, allow_infinity=False)


@st.composite
def convex_polygon(draw):
    """A convex polygon: corners on a circle (either winding), a lattice rectangle or triangle
    (exact crossings: centres exactly on edges and corners), or a sliver."""
    kind = draw(st.sampled_from(["circle", "circle", "lattice", "sliver"]))
    if kind == "circle":
        k = draw(st.integers(3, 9))
        angles = np.sort(draw(st.lists(st.floats(0, 2 * np.pi), min_size=k, max_size=k, unique=True)))
        c = np.array([draw(coordinate), draw(coordinate)])
        r = draw(st.floats(0.05, 3))
        corners = c + r * np.stack((np.cos(angles), np.sin(angles)), axis=1)
        if not geometry.polygon_is_convex(corners):
            corners = np.array([c + (0, 0), c + (r, 0), c + (0, r)])
    elif kind == "lattice":
        x0, y0 = draw(st.integers(-4, 3)), draw(st.integers(-4, 3))
        w, h = draw(st.integers(1, 3)), draw(st.integers(1, 3))
        corners = np.array([[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]][:draw(st.sampled_from([3, 4]))],
                           float)
    else:
        x0, y0 = draw(coordinate), draw(coordinate)
        corners = np.array([[x0, y0], [x0 + 2.0, y0 + 1e-9], [x0 + 1.0, y0 + 2e-9]])
    return corners[::-1].copy() if draw(st.booleans()) else corners


@st.composite
def centre_near(draw, polygons):
    """A ball's centre: anywhere, at a corner (or an ulp off it), on an edge, or at the middle."""
    corners = polygons[draw(st.integers(0, len(polygons) - 1))]
    k = draw(st.integers(0, len(corners) - 1))
    a, b = corners[k], corners[(k + 1) % len(corners)]
    where = draw(st.sampled_from(["anywhere", "corner", "ulp", "edge", "half", "middle", "signed zero"]))
    if where == "anywhere":
        return np.array([draw(coordinate), draw(coordinate)])
    if where == "corner":
        return a.copy()
    if where == "ulp":
        return np.nextafter(a, a + np.array([draw(st.sampled_from([-1.0, 1.0])), draw(st.sampled_from([-1.0, 1.0]))]))
    if where == "edge":
        return a + draw(st.floats(0, 1)) * (b - a)
    if where == "half":
        return 0.5 * (a + b)
    if where == "middle":
        return corners.mean(axis=0)
    return np.array([draw(st.sampled_from([0.0, -0.0])), draw(st.sampled_from([0.0, -0.0, 1.0]))])


@st.composite
def scenes(draw):
    """Polygons, balls and their (ball, capsule) pairs in any order, some pairs left out."""
    polygons = draw(st.lists(convex_polygon(), min_size=1, max_size=3))
    n = draw(st.integers(1, 12))
    pos = np.array([draw(centre_near(polygons)) for _ in range(n)])
    radius = np.array([draw(st.floats(0.01, 1.0)) for _ in range(n)])
    statics = statics_of(polygons)
    i = np.repeat(np.arange(n), len(statics))
    s = np.tile(np.arange(len(statics)), n)
    keep = np.array(draw(st.lists(st.booleans(), min_size=len(i), max_size=len(i))))
    order = np.random.default_rng(draw(st.integers(0, 2**32 - 1))).permutation(int(keep.sum()))
    return statics, pos, radius, i[keep][order], s[keep][order]


def numpy_and(kernel, statics, pos, radius, i, s):
    """(normal, depth) after numpy's polygon_insides and after ``kernel``, from the same
    ball_static_geometry."""
    normal, depth = collide.ball_static_geometry(pos, pos, radius, statics, i, s)
    nx, ny, kernel_depth = normal[:, 0].copy(), normal[:, 1].copy(), depth.copy()
    collide.polygon_insides(pos, radius, statics, i, s, normal, depth)
    kernel(np.ascontiguousarray(pos[:, 0]), np.ascontiguousarray(pos[:, 1]), radius, i, s, bundles.statics(statics),
           nx, ny, kernel_depth)
    return (normal, depth), (np.stack((nx, ny), axis=1), kernel_depth)


def assert_same_bits(first, second):
    for x, y in zip(first, second):
        assert np.array_equal(bits(x), bits(y))


@pytest.mark.skipif(COMPILED is None, reason="numba is not installed")
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenes())
def test_the_compiled_insides_give_the_bits_of_numpy(scene):
    statics, pos, radius, i, s = scene
    reference, compiled = numpy_and(compiled_insides.polygon_insides, statics, pos, radius, i, s)
    assert_same_bits(reference, compiled)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenes())
def test_the_scalar_insides_run_as_python_give_the_bits_of_numpy(scene):
    """The one source, run by the interpreter: the same bits too."""
    statics, pos, radius, i, s = scene
    reference, scalar = numpy_and(insides.polygon_insides_kernel, statics, pos, radius, i, s)
    assert_same_bits(reference, scalar)


@st.composite
def polygon_and_centre(draw):
    """A convex polygon (or corners on one line: zero area) and a centre near it."""
    corners = draw(st.one_of(convex_polygon(), st.just(np.array([[0.0, 0.0], [1.0, 0.5], [3.0, 1.5]]))))
    return corners, draw(centre_near([corners]))


@pytest.mark.skipif(COMPILED is None, reason="numba is not installed")
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(polygon_and_centre(), st.floats(0.0, 1.0))
def test_the_compiled_helpers_give_the_bits_of_geometry(scene, radius):
    """point_in_convex_polygon and circle_polygon_offset for any centre and any winding,
    collinear corners (zero area) too: the cases polygon_insides never meets (a clockwise
    polygon pushes no ball out) are followed as well."""
    corners, centre = scene
    first, winding, solid, _ = insides.polygon_layout(np.zeros(len(corners), np.int64), corners, [corners])
    ax, ay = corners[:, 0].copy(), corners[:, 1].copy()
    inside = compiled_insides.inside(ax, ay, 0, len(corners), False, winding[0], centre[0], centre[1])
    assert inside == geometry.point_in_convex_polygon(centre, corners)
    offset = compiled_insides.polygon_offset(ax, ay, 0, len(corners), winding[0] < 0, solid[0], centre[0],
                                             centre[1], radius)
    assert_same_bits([np.array(offset)], [geometry.circle_polygon_offset(centre, radius, corners)])


def test_the_layout_tells_where_the_corners_are_not_the_edges():
    square = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    first, winding, solid, laid_out = insides.polygon_layout(np.array([-1, 0, 0, 0, 0]),
                                                             np.vstack(([[5.0, 5.0]], square)), [square])
    assert laid_out and list(first) == [1, 5] and list(winding) == [1] and list(solid) == [True]
    _, winding, solid, laid_out = insides.polygon_layout(np.array([0, 0, 0, 0]), square[::-1], [square[::-1]])
    assert laid_out and list(winding) == [-1] and list(solid) == [True]
    assert not insides.polygon_layout(np.array([0, 0, 0, 0]), np.roll(square, 1, axis=0), [square])[3]
    assert not insides.polygon_layout(np.array([0, 0, -1, 0, 0]), np.vstack((square[:2], [[5, 5]], square[2:])),
                                      [square])[3]


# ------------------------------------------------------------------ the one-call tick
def run(level, ticks, execution, fused=True, flippers=False):
    """((state hash, kicks, wall work), ticks run in one call, ticks with balls) after ``ticks``
    ticks (a tick without balls has nothing to run in one call)."""
    w = World.from_level(level, execution=execution, compiled=COMPILED if execution == "compiled" else None)
    if not fused:
        w._fused = lambda kernels: False
    one_call = with_balls = 0
    for k in range(ticks):
        if flippers:
            w.press_flipper("left", (k // 40) % 2 == 1)
            w.press_flipper("right", (k // 50) % 2 == 0)
        one_call += w.ticks_in_one_call()
        with_balls += w.count > 0
        w.step(TICK)
    return (w.state_hash(), w.kicks, w.wall_work), one_call, with_balls


@needs_tick
@pytest.mark.parametrize("name", ["04_polygons", "10_first_ramp", "30_pinball"])
def test_the_one_call_tick_serves_the_polygon_levels_with_the_bits_of_numpy(name):
    level = load(os.path.join(ROOT, "levels", f"{name}.json"))
    assert level["polygons"]
    fused, one_call, with_balls = run(level, 300, "compiled", flippers=True)
    assert one_call == with_balls > 200
    reference, _, _ = run(level, 300, "numpy", flippers=True)
    assert fused == reference


def inside_level():
    """Balls dropped inside a still and a turning polygon, and on their edges and corners."""
    balls = ([{"pos": [x, y], "radius": 0.15} for x in (1.2, 1.5, 2.0, 2.5, 2.8) for y in (1.1, 1.5, 2.0)]
             + [{"pos": [5.0 + 0.3 * k, 1.6], "radius": 0.1} for k in range(5)]
             + [{"pos": [1.0, 1.0], "radius": 0.2}, {"pos": [3.0, 2.0], "radius": 0.2}])
    still = {"points": [[1, 1], [3, 1], [3, 2.5], [1, 2.5]]}
    turning = {"points": [[5, 1], [6.5, 1], [6.5, 2.2], [5, 2.2]],
               "motion": {"kind": "rotate", "pivot": [5.75, 1.6], "speed": 2.5}}
    return definition({"bounds": [0, 0, 8, 6], "polylines": [{"points": [[0, 0], [8, 0], [8, 6], [0, 6]],
                                                              "closed": True}],
                       "polygons": [still, turning], "balls": balls})


@needs_tick
def test_balls_inside_still_and_moving_polygons_leave_them_alike_in_one_call_sub_steps_and_numpy():
    level = inside_level()
    w = World.from_level(level, execution="numpy")
    starts_inside = sum(bool(geometry.point_in_convex_polygon(w.pos, p).any()) for p in w.polygons)
    assert starts_inside == 2
    fused, one_call, _ = run(level, 240, "compiled")
    assert one_call == 240
    stepped, _, _ = run(level, 240, "compiled", fused=False)
    reference, _, _ = run(level, 240, "numpy")
    assert fused == stepped == reference
    w = World.from_level(level, execution="compiled", compiled=COMPILED)
    for _ in range(60):
        w.step(TICK)
    for p in w.polygons:
        assert not geometry.point_in_convex_polygon(w.pos, p).any()
