"""Walls have a right side: a centre on (or a hair from) a thin wall or a stadium's core leaves
on the side it came from, under every integrator and both solver executions (issue 14)."""
import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from scenes import build_world
from game.physics import geometry
from game.physics.integrators import ORDER
from game.physics.world import TICK, World

# Every test here runs on both executions: the ``execution`` fixture (conftest.py).


@given(st.floats(-10, 10), st.floats(-10, 10), st.floats(-10, 10), st.floats(-10, 10), st.floats(0, 1),
       st.floats(-1, 1), st.floats(-1, 1), st.sampled_from([0.0, 0.5]))
@settings(max_examples=200, deadline=None)
def test_swept_test_is_zero_for_a_centre_on_the_core_both_executions(execution, ax, ay, bx, by, t, mx, my, seg_r):
    """The contract's case 6: a centre on the segment (a + t (b - a), rounded) touches at 0,
    whatever the move; the compiled twin gives the same bits."""
    a, b = np.array([ax, ay]), np.array([bx, by])
    # Known limit: a segment shorter than ~1e-154 m has a squared length that underflows, and
    # the projection onto it is lost (its start is taken as the closest point).
    assume((bx - ax) ** 2 + (by - ay) ** 2 >= np.finfo(float).tiny or (ax, ay) == (bx, by))
    c = a + t * (b - a)
    got = float(geometry.swept_circle_segment(c, 0.1, (mx, my), a, b, seg_r))
    assert got == 0.0
    from tests.conftest import KERNELS
    if KERNELS is not None:
        from game.physics.compiled import collide as _kernels
        assert _kernels._swept.py_func(c[0], c[1], 0.1, mx, my, ax, ay, bx, by, seg_r) == got


def wall_world(integrator, offset, seg_radius=0.0, gravity=(0.0, -9.81), n=1, execution="compiled"):
    """A long wall on y = 0 (a thin wall or a stadium's core), balls with centres ``offset``
    metres above it (within a hair: 0 is on it)."""
    level = {"segments": [{"a": [-50.0, 0.0], "b": [50.0, 0.0], "radius": seg_radius}],
             "bounds": [-50, -20, 50, 20], "gravity": list(gravity), "integrator": integrator}
    w = build_world(level, execution=execution)
    for k in range(n):
        w.add_ball((-5.0 + 10.0 * k / max(1, n - 1), offset), radius=0.1)
    return w


@pytest.mark.parametrize("integrator", ORDER)
@pytest.mark.parametrize("offset", [0.0, 1e-12, 1e-9, 1e-6])
@pytest.mark.parametrize("seg_radius", [0.0, 0.3])
def test_a_ball_starting_on_a_wall_leaves_on_the_side_gravity_does_not_point_to(integrator, offset, seg_radius, execution):
    w = wall_world(integrator, offset, seg_radius, execution=execution)
    for _ in range(120):
        w.step(TICK)
    assert np.isfinite(w.pos).all()
    assert w.pos[0, 1] > 0.0, "the ball fell through the wall"
    # It rests on the top face: centre at the reach (ball radius + wall radius), within the solver's slop.
    assert w.pos[0, 1] == pytest.approx(0.1 + seg_radius, abs=0.02)


@pytest.mark.parametrize("integrator", ORDER)
def test_gravity_up_sends_a_ball_on_a_wall_below_it(integrator, execution):
    w = wall_world(integrator, 0.0, gravity=(0.0, 9.81), execution=execution)
    for _ in range(60):
        w.step(TICK)
    assert w.pos[0, 1] < 0.0


@pytest.mark.parametrize("integrator", ORDER)
def test_hundred_balls_with_centres_on_the_outer_floor_stay_in(integrator, execution):
    """A box of four thin walls, 100 balls with centres on its floor: all stay inside."""
    corners = [(0.0, 0.0), (20.0, 0.0), (20.0, 10.0), (0.0, 10.0)]
    level = {"segments": [{"a": list(corners[k]), "b": list(corners[(k + 1) % 4])} for k in range(4)],
             "bounds": [0, 0, 20, 10], "integrator": integrator}
    w = build_world(level, execution=execution)
    w.add_balls([{"pos": [0.1 + 0.198 * k, 0.0], "radius": 0.09} for k in range(100)])
    for _ in range(120):
        w.step(TICK)
    assert w.escaped() == 0
    assert (w.pos[:, 1] > 0.0).all()
