"""Issue 28, item 7: a snapshot (World.to_level, saved and loaded) steps as the world it
came from, to the bit: every per-ball field (position, velocity, angle, spin, radius, mass,
restitution, friction, rolling) and every per-shape field (radius, restitution, friction,
rolling, closed) set away from its default, on both executions."""
import json

import numpy as np
import pytest

from game.defaults import TICK
from game.level import load, loads, save
from game.physics.balls import BALL_ARRAYS, exact_masses
from game.physics.world import World

# A slope, a floor, a round peg, a closed polyline and a polygon, each with its own surface;
# balls of their own radius, mass or density and surface, rolling down and into each other,
# two on a spring. The material is the default, so no field is the material's by chance.
LEVEL = {
    "name": "every field", "gravity": [0, -9.81], "bounds": [0, 0, 20, 12],
    "segments": [{"a": [0, 0], "b": [20, 0], "radius": 0.05, "restitution": 0.3, "friction": 0.7, "rolling": 0.02},
                 {"a": [1, 6], "b": [9, 2], "restitution": 0.1, "friction": 0.9, "rolling": 0.05},
                 {"a": [12, 3], "b": [12, 3], "radius": 0.3, "restitution": 0.6, "friction": 0.2, "rolling": 0.0}],
    "polylines": [{"points": [[14, 1], [16, 1], [16, 2.5], [14, 2.5]], "closed": True, "radius": 0.04,
                   "restitution": 0.2, "friction": 0.8, "rolling": 0.03}],
    "polygons": [{"points": [[17, 0], [19.5, 0], [19.5, 4]], "restitution": 0.4, "friction": 0.6, "rolling": 0.01}],
    "balls": [{"pos": [2, 7], "vel": [1.5, 0], "spin": 3.0, "radius": 0.3, "density": 2.5, "restitution": 0.2,
               "friction": 0.8, "rolling": 0.1},
              {"pos": [3, 7.5], "radius": 0.21, "mass": 0.7, "restitution": 0.5, "friction": 0.3, "rolling": 0.0},
              {"pos": [6, 9], "vel": [-0.5, 2], "spin": -7.0, "radius": 0.17, "density": 0.9, "rolling": 0.2},
              {"pos": [11.8, 8], "radius": 0.25, "friction": 1.1},
              {"pos": [15, 6], "radius": 0.12, "mass": 0.05},
              {"pos": [16.2, 6], "radius": 0.12, "mass": 0.08, "restitution": 0.9}],
    "springs": [{"a": 4, "b": 5, "stiffness": 400, "damping": 2.0, "rest": 1.0},
                {"a": 2, "b": [6, 11], "stiffness": 50, "damping": 0.5}],
}


def run(world, ticks):
    for _ in range(ticks):
        world.step(TICK)
    return world


@pytest.mark.parametrize("execution", ["numpy", "compiled"])
def test_a_snapshot_steps_on_as_the_world_it_came_from(tmp_path, execution):
    doc = loads(json.dumps(LEVEL))
    world = World.from_level(doc, execution=execution)
    # What the format does not hold starts afresh in a snapshot: the sleep of resting balls
    # and the contact impulses the solver warm-starts from. The world held to it runs without.
    world.solver.options.sleeping = False
    world.solver.options.warm_start = False
    run(world, 50)
    assert (world.angle != 0).sum() >= 3 and world.count == 6
    path = tmp_path / "snap.json"
    save(world.to_level(), path)
    again = World.from_level(load(path), execution=execution)
    again.solver.options.sleeping = False
    again.solver.options.warm_start = False
    for name in BALL_ARRAYS:
        if name != "ids":
            assert np.array_equal(getattr(again, name), getattr(world, name)), name
    assert again.state_hash() == world.state_hash()
    assert np.array_equal(again.statics.a, world.statics.a) and np.array_equal(again.statics.b, world.statics.b)
    for name in ("radius", "restitution", "friction", "rolling"):
        assert np.array_equal(np.asarray(getattr(again.statics, name)), np.asarray(getattr(world.statics, name))), name
    run(world, 40)
    run(again, 40)
    assert again.state_hash() == world.state_hash()


def test_a_balls_own_rolling_resistance_survives_the_snapshot():
    """The issue's case: a ball whose own rolling stops it; its snapshot used to keep rolling."""
    level = {"segments": [{"a": [0, 0], "b": [20, 0]}],
             "balls": [{"pos": [2, 0.25], "vel": [3, 0], "spin": -12, "rolling": 0.5}]}
    world = World.from_level(loads(json.dumps(level)), execution="numpy")
    snapshot = world.to_level()
    assert snapshot["balls"][0]["rolling"] == 0.5
    again = World.from_level(loads(json.dumps(snapshot)), execution="numpy")
    assert again.rolling[0] == 0.5


def test_exact_masses_give_back_the_bits_of_balls_made_from_a_density():
    rng = np.random.default_rng(3)
    radius = rng.uniform(0.001, 5, 20_000)
    density = rng.uniform(1e-3, 1e4, 20_000)
    mass = density * np.pi * radius * radius
    inv_mass, inv_inertia = 1.0 / mass, 2.0 / (mass * radius * radius)
    m = exact_masses(inv_mass, inv_inertia, radius)
    assert np.array_equal(1.0 / m, inv_mass) and np.array_equal(2.0 / (m * radius * radius), inv_inertia)


def test_a_save_past_the_file_limit_is_refused_and_writes_nothing(tmp_path, monkeypatch):
    """A snapshot too big to load again is never written (balls that turned write an angle
    too, so the biggest worlds can pass the limit)."""
    from game.level import LevelError
    import sys
    save_module = sys.modules["game.level.save"]
    world = World.from_level(loads(json.dumps(LEVEL)), execution="numpy")
    monkeypatch.setattr(save_module, "MAX_FILE_BYTES", 1000)
    path = tmp_path / "big.json"
    with pytest.raises(LevelError) as e:
        save(world.to_level(), path)
    assert "expected a level of at most 1000 bytes" in str(e.value) and e.value.path == "(top level)"
    assert not path.exists()
