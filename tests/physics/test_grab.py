"""The mouse grab lives in the world: springs with stable ids, a handle to move and release."""
import math

import numpy as np
import pytest

from scenes import build_world
from game.physics.grab import GRAB_DAMPING_RATIO, GRAB_FREQUENCY
from game.physics.world import World

TICK = 1 / 60

FLOAT = {"name": "Float", "gravity": [0, 0], "bounds": [0, 0, 40, 40],
         "segments": [{"a": [0, 0], "b": [40, 0]}],
         "balls": [{"pos": [10, 10], "radius": 0.5}, {"pos": [20, 10], "radius": 0.5, "density": 7},
                   {"pos": [30, 10], "radius": 0.5}],
         "springs": [{"a": 0, "b": 2, "stiffness": 5}]}


def _run(w, seconds):
    for _ in range(round(seconds / TICK)):
        w.step(TICK)


def test_springs_keep_their_ids_when_others_go():
    w = build_world(FLOAT)
    first = int(w.springs.ids[0])
    k = w.add_spring(1, (5.0, 5.0))
    later = int(w.springs.ids[k])
    assert later != first
    w.remove_spring(0)
    assert w.springs.index(first) == -1 and w.springs.index(later) == 0
    w.remove_balls([0])                               # renumbers balls, not spring ids
    assert w.springs.index(later) == 0 and w.springs.a[0] == 0


@pytest.mark.parametrize("ball", [0, 1])               # light and heavy: the same response
def test_a_grabbed_ball_follows_the_point_as_a_damped_oscillator(ball):
    """In zero gravity the grabbed ball obeys x'' = -w^2 x - 2 zeta w x' about the point,
    whatever its mass: compare with the analytic solution from rest 1 m away."""
    w = build_world(dict(FLOAT, springs=[]))
    start = w.pos[ball].copy()
    target = start + (1.0, 0.0)
    handle = w.grab(ball, target)
    omega = 2 * math.pi * GRAB_FREQUENCY
    zeta = GRAB_DAMPING_RATIO
    wd = omega * math.sqrt(1 - zeta * zeta)
    for t in (0.05, 0.1, 0.2, 0.4):
        _run(w, 0.05 if t == 0.05 else t / 2)
        x = -math.exp(-zeta * omega * t) * (math.cos(wd * t) + zeta * omega / wd * math.sin(wd * t))
        assert w.pos[ball, 0] - target[0] == pytest.approx(x, abs=2e-3)
        assert abs(w.pos[ball, 1] - target[1]) < 1e-4       # the levers are 1 km long: near-linear
    assert w.grabbed_ball(handle) == ball


def test_a_grab_damps_motion_across_the_line_too_so_the_ball_never_orbits():
    w = build_world(dict(FLOAT, springs=[]))
    w.vel[0] = (0.0, 8.0)                             # swinging round the point
    handle = w.grab(0, w.pos[0] + (0.5, 0.0))
    _run(w, 2.0)
    assert np.linalg.norm(w.pos[0] - w.grabs[handle].point) < 1e-3
    assert np.linalg.norm(w.vel[0]) < 1e-3


def test_move_grab_carries_the_ball_and_release_takes_only_its_springs():
    w = build_world(FLOAT)
    level_spring = int(w.springs.ids[0])
    handle = w.grab(1, w.pos[1])
    assert len(w.springs) == 3 and set(w.grabs) == {handle}
    assert w.move_grab(handle, (25.0, 20.0))
    _run(w, 2.0)
    assert np.linalg.norm(w.pos[1] - (25.0, 20.0)) < 1e-3
    w.release(handle)
    assert list(w.springs.ids) == [level_spring] and w.grabs == {}
    assert not w.move_grab(handle, (0.0, 0.0))
    w.release(handle)                                 # twice: nothing happens
    assert len(w.springs) == 1


def test_a_grab_ends_when_its_ball_goes_and_others_are_renumbered():
    w = build_world(FLOAT)
    first = w.grab(0, (10.0, 12.0))
    second = w.grab(2, (30.0, 12.0))
    w.remove_balls([0])
    assert first not in w.grabs and not w.move_grab(first, (1.0, 1.0))
    assert w.grabbed_ball(second) == 1                # ball 2 is now index 1
    assert w.move_grab(second, (30.0, 15.0))
    _run(w, 2.0)
    assert np.linalg.norm(w.pos[1] - (30.0, 15.0)) < 1e-3
