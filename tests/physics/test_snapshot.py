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
    # With the defaults (warm start, sleeping): the solver's memory goes in ``_resume``.
    run(world, 50)
    assert (world.angle != 0).sum() >= 3 and world.count == 6
    path = tmp_path / "snap.json"
    save(world.to_level(), path)
    again = World.from_level(load(path), execution=execution)
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


# Issue 37: with the defaults, a snapshot of any moment goes on to the bit: the warm start of
# contacts and joints, sleeping balls and bodies and their timers, ids after balls came and
# went, the tick count and the spawners' clocks and random streams (game.physics.resume).
@pytest.mark.parametrize("name, ticks", [("01_ball_pit", 700), ("15_lava_floor", 400), ("23_car_bridge", 300),
                                         ("31_tumbler", 200), ("42_box_pyramid", 300), ("47_rube_goldberg", 200),
                                         ("49_springs_and_bumpers", 200)])
def test_a_snapshot_of_a_shipped_level_with_the_defaults_goes_on_to_the_bit(name, ticks):
    from game.paths import LEVELS
    import os
    world = run(World.from_level(load(os.path.join(LEVELS, name + ".json"))), ticks)
    assert world.solver.options.warm_start and world.solver.options.sleeping
    again = World.from_level(loads(json.dumps(world.to_level())))
    assert again.state_hash() == world.state_hash()
    for _ in range(60):
        world.step(TICK)
        again.step(TICK)
    assert again.state_hash() == world.state_hash()
    assert again.ticks == world.ticks and again.count == world.count


def test_a_pile_asleep_stays_asleep_in_its_snapshot():
    level = loads(json.dumps({"segments": [{"a": [0, 0], "b": [10, 0]}], "bounds": [-1, -1, 11, 11],
                              "balls": [{"pos": [4 + 0.5 * k, 0.25], "radius": 0.25} for k in range(5)]}))
    world = run(World.from_level(level), 240)
    assert world._sleep.asleep.all()
    again = World.from_level(loads(json.dumps(world.to_level())))
    again.step(TICK)
    assert again._sleep.asleep.all()        # before, a snapshot woke every ball and started their timers again


@pytest.mark.parametrize("resume, needle", [
    ('"x"', "_resume: expected an object"),
    ('{"ticks": 1}', "_resume: expected the key"),
    ('{"spare": 1}', "_resume.spare: expected only the keys the game writes"),
])
def test_a_bad_resume_is_one_line(resume, needle):
    from game.level import LevelError
    text = '{"segments": [{"a": [0, 0], "b": [10, 0]}], "_resume": ' + resume + '}'
    with pytest.raises(LevelError) as caught:
        loads(text, "levels/x.json")
    assert needle in str(caught.value) and "\n" not in str(caught.value), str(caught.value)


def test_a_resume_of_the_wrong_shape_inside_is_named_and_one_that_no_longer_fits_is_left_out():
    from game.level import LevelError
    world = run(World.from_level(loads(json.dumps(LEVEL))), 30)
    doc = world.to_level()
    bad = json.loads(json.dumps(doc))
    bad["_resume"]["warm_pn"][0:1] = ["x"]
    with pytest.raises(LevelError) as caught:
        loads(json.dumps(bad), "levels/x.json")
    assert "_resume.warm_pn[0]: expected a number, got text" in str(caught.value)
    edited = json.loads(json.dumps(doc))
    edited["balls"].append({"pos": [5, 5]})        # a ball added by hand since: the memory no longer fits
    again = World.from_level(loads(json.dumps(edited)))
    assert again.count == 7 and again.ticks == 0
    again.step(TICK)
    assert np.isfinite(again.pos).all()
