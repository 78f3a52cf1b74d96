"""A slack rope is drawn sagging along its catenary (game.draw.joints.rope_curve), a taut one
straight (issue 38: "a slack rope is drawn sagging, a taut one straight")."""
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from game.physics.catenary import rope_curve

DOWN = (0.0, -9.81)


def arc(points):
    return float(np.hypot(*np.diff(points, axis=0).T).sum())


coordinate = st.floats(-20, 20, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(ax=coordinate, ay=coordinate, bx=coordinate, by=coordinate, slack=st.floats(1.001, 4.0),
       turn=st.floats(0, 2 * math.pi))
def test_the_curve_joins_the_ends_is_as_long_as_the_rope_and_hangs_below_them(ax, ay, bx, by, slack, turn):
    a, b = np.array([ax, ay]), np.array([bx, by])
    apart = float(np.hypot(*(b - a)))
    length = max(apart, 0.05) * slack
    gravity = 9.81 * np.array([math.sin(turn), -math.cos(turn)])      # any direction
    curve = rope_curve(a, b, length, gravity, points=4001)
    assert np.array_equal(curve[0], a) and np.array_equal(curve[-1], b)
    assert abs(arc(curve) / length - 1.0) < 2e-3                      # its own length (a polyline of it)
    down = gravity / 9.81
    depth = curve @ down                                              # how far down each point is
    assert depth.max() >= max(a @ down, b @ down) - 1e-9 * (1 + abs(depth).max())
    assert depth.min() >= min(a @ down, b @ down) - 1e-6 * (1 + abs(depth).max())   # never above the higher end


def test_a_shallow_rope_sags_as_the_parabola_says_and_a_deep_one_as_the_catenary():
    """Ends 4 m apart at one height: 4.04 m of rope sags sqrt(3 h (L - h) / 8) = 0.245 m to 1 %
    (the shallow limit); 5 m sags c (cosh(h / 2c) - 1) with sinh(h / 2c) = L / 2c: 1.333 m."""
    shallow = rope_curve((0, 0), (4, 0), 4.04, DOWN, points=2001)
    assert abs(-shallow[:, 1].min() / math.sqrt(3 * 4 * 0.04 / 8) - 1) < 0.01
    deep = rope_curve((0, 0), (4, 0), 5.0, DOWN, points=2001)
    lo, hi = 0.1, 10.0                                                # c by bisection: 2c sinh(2/c) = 5
    for _ in range(200):
        c = 0.5 * (lo + hi)
        lo, hi = (c, hi) if 2 * c * math.sinh(2 / c) > 5 else (lo, c)
    assert abs(-deep[:, 1].min() - c * (math.cosh(2 / c) - 1)) < 1e-3
    assert abs(deep[1000, 0] - 2.0) < 1e-9 and deep[1000, 1] == deep[:, 1].min()   # lowest in the middle


def test_a_taut_rope_or_one_without_gravity_is_a_straight_line_and_one_straight_down_a_v():
    assert rope_curve((0, 0), (3, 4), 5.0, DOWN).tolist() == [[0, 0], [3, 4]]
    assert rope_curve((0, 0), (3, 4), 4.0, DOWN).tolist() == [[0, 0], [3, 4]]      # stretched: straight
    assert rope_curve((0, 0), (3, 0), 5.0, (0, 0)).tolist() == [[0, 0], [3, 0]]
    v = rope_curve((0, 5), (0, 0), 8.0, DOWN)
    assert v.tolist() == [[0, 5], [0, -1.5], [0, 0]] and arc(v) == 8.0
