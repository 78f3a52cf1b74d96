"""Crushes (issue 37): a slide that presses balls onto a still floor, two slides that meet and
cross, and the random walls that split the executions. Both executions give the same bits
(they parted when a ball sent back into one moving wall's frame crossed a second one's: the
compiled keep_sides sent it back again, numpy's took each ball's first crossing only); no
centre ever passes through a wall (``crossed`` 0); a crushed ball is held on the core of the
walls pressing it (overlapping both, crossing neither: a moving wall has infinite mass and does
not stop) and comes back out as they open."""
import math

import numpy as np
import pytest

from tests.conftest import COMPILED
from tests.physics.test_moving_walls import level

TICK = 1.0 / 60.0
BOX = [{"points": [[-7, -1], [7, -1], [7, 7], [-7, 7]], "closed": True, "radius": 0.1}]


def press():
    """A 4 m slab sliding down 2 m onto a floor and back every 4 s; six balls of 0.5 m under it:
    at the bottom the gap is 0.1 m."""
    return level(segments=[{"a": [-2, 2.2], "b": [2, 2.2], "radius": 0.05,
                            "motion": {"kind": "slide", "to": [0, -2.0], "period": 4.0}},
                           {"a": [-6, 0], "b": [6, 0], "radius": 0.05}],
                 polylines=BOX, balls=[{"pos": [-1.5 + 0.6 * k, 0.3], "radius": 0.25} for k in range(6)],
                 bounds=[-7, -1, 7, 7])


def meet():
    """Two upright walls sliding 3.2 m towards each other from 6 m apart (they cross by 0.4 m)
    and back every 4 s, four balls on the floor between them."""
    return level(segments=[{"a": [-3, -1], "b": [-3, 3], "radius": 0.05, "motion": {"kind": "slide", "to": [3.2, 0], "period": 4.0}},
                           {"a": [3, -1], "b": [3, 3], "radius": 0.05, "motion": {"kind": "slide", "to": [-3.2, 0], "period": 4.0}}],
                 polylines=BOX, balls=[{"pos": [-1.0 + 0.6 * k, -0.7], "radius": 0.25} for k in range(4)],
                 bounds=[-7, -1, 7, 7])


def crossing_walls():
    """The random walls hypothesis found splitting the executions at tick 21 (a rotor turning
    through a slide with a ball between them)."""
    walls = [(0, 0, 0, 0.3, {"kind": "rotate", "speed": 0.0}), (-1.439, 0, 0, 1.3, {"kind": "rotate", "speed": -8.75}),
             (0, 0, 0, 0.625, {"kind": "slide", "to": [0, 1], "period": 4.0})]
    segments = []
    for x, y, angle, half, motion in walls:
        m = dict(motion)
        if m["kind"] == "rotate":
            m["pivot"] = [x, y]
        segments.append({"a": [x - half * math.cos(angle), y - half * math.sin(angle)],
                         "b": [x + half * math.cos(angle), y + half * math.sin(angle)], "radius": 0.05, "motion": m})
    rng = np.random.default_rng(172)
    return level(segments=segments, polylines=[{"points": [[-7, -7], [7, -7], [7, 7], [-7, 7]], "closed": True, "radius": 0.1}],
                 balls=[{"pos": rng.uniform(-6, 6, 2).tolist(), "radius": 0.15} for _ in range(4)], bounds=[-7, -7, 7, 7])


def run(definition, execution, ticks):
    from game.physics.world import World
    w = World.from_level(definition, execution=execution)
    for _ in range(ticks):
        w.step(TICK)
    return w


needs_numba = pytest.mark.skipif(COMPILED is None, reason="numba is not installed")


@needs_numba
@pytest.mark.parametrize("scene", [press, meet, crossing_walls], ids=["press", "meet", "crossing walls"])
def test_a_crush_gives_the_same_bits_on_both_executions_and_no_centre_crosses_a_wall(scene):
    worlds = [run(scene(), e, 300) for e in ("numpy", "compiled")]
    assert worlds[0].state_hash() == worlds[1].state_hash()
    for w in worlds:
        assert w.crossed == 0 and w.count == len(scene()["balls"])
        assert np.isfinite(w.pos).all() and (np.abs(w.pos) < 7).all()


@pytest.mark.parametrize("execution", ["numpy"] + (["compiled"] if COMPILED is not None else []))
def test_a_pressed_ball_is_held_between_the_walls_and_comes_back_out_as_they_open(execution):
    w = run(press(), execution, 120)                    # the slab at its lowest, 0.1 m over the floor
    assert (w.pos[:, 1] >= 0.0 - 1e-9).all() and (w.pos[:, 1] <= 0.2 + 1e-9).all(), \
        "on the floor's core or the slab's, between them: never under the floor nor over the slab"
    for _ in range(120):                                # it has risen again
        w.step(TICK)
    assert np.allclose(w.pos[:, 1], 0.3, atol=0.01), "back on the floor, whole"
    assert w.crossed == 0
