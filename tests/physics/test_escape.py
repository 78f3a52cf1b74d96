"""Snapshots always save: balls far beyond the bounds are removed and counted as escaped (issue 14)."""
import json

import numpy as np
import pytest

from scenes import build_world
from game import defaults
from game.physics.world import TICK, World
from game.physics.zones import ESCAPE_SPANS

# Every test here runs on both executions: the ``execution`` fixture (conftest.py).


def test_the_schema_coordinate_limit_is_the_worlds(execution):
    with open("levels/level.schema.json") as f:
        coord = json.load(f)["$defs"]["coord"]
    assert (coord["minimum"], coord["maximum"]) == (-defaults.COORDINATE_LIMIT, defaults.COORDINATE_LIMIT)
    with open("levels/level.schema.json") as f:
        speed = json.load(f)["$defs"]["velocity"]["items"]
    assert (speed["minimum"], speed["maximum"]) == (-defaults.SPEED_LIMIT, defaults.SPEED_LIMIT)


@pytest.mark.parametrize("integrator", ["euler", "rk4"])
def test_balls_beyond_the_format_or_far_beyond_bounds_are_removed_and_counted(integrator, execution):
    level = {"bounds": [0, 0, 32, 18], "integrator": integrator, "drag": 0.0}
    w = build_world(level, execution=execution)
    far = ESCAPE_SPANS * 32.0
    w.add_balls([{"pos": [16.0, 9.0], "vel": [0.0, 1e8]},             # past 1e6 m in one tick
                 {"pos": [16.0, -far + 1.0], "vel": [0.0, -1000.0]},  # past 100 spans below
                 {"pos": [16.0, 9.0]},                                # stays
                 {"pos": [40.0, 9.0], "vel": [10.0, 0.0]}])           # outside, but near: kept
    w.step(TICK)
    assert w.count == 2
    assert w.escaped() == 3                    # two removed, one outside the bounds now
    snapshot = w.to_level()
    json.dumps(snapshot, allow_nan=False)      # finite
    coords = np.array([b["pos"] for b in snapshot["balls"]])
    assert (np.abs(coords) <= defaults.COORDINATE_LIMIT).all()
    for _ in range(10):
        w.step(TICK)
    assert w.escaped() == 3                    # counted once, not again each tick


def test_a_world_that_blew_up_keeps_its_balls_to_say_so(execution):
    w = build_world({"integrator": "euler", "balls": [{"pos": [10, 9]}, {"pos": [11, 9]}],
                          "springs": [{"a": 0, "b": 1, "stiffness": 1e9, "rest": 0.5}]}, execution=execution)
    for _ in range(60):
        w.step(TICK)
    assert w.count == 2 and w.blown_up()
