"""Motors the player drives (issue 38): a motor with a "key" turns the other way while the
key is held, for ball joints and body joints alike; a car of two motored ball wheels on a box
drives one way alone and back while the key is held; the key is kept by a snapshot and by the
format, and a bad key is refused in one line."""
import json

import numpy as np
import pytest

from game.level import LevelError, complete, loads
from game.physics.world import World

TICK = 1.0 / 60.0


def car(key="right", speed=-8.0):
    """A 1.6 x 0.4 m box on two 0.3 m ball wheels pinned under its ends, both wheels' motors
    on ``key``; clockwise (speed < 0) drives it to +x."""
    motor = {"speed": speed, "torque": 8.0, **({"key": key} if key else {})}
    return {"gravity": [0, -9.81], "bounds": [0, 0, 40, 10],
            "segments": [{"a": [0, 0.5], "b": [40, 0.5], "friction": 1.0}],
            "bodies": [{"shape": "box", "center": [20.0, 1.4], "size": [1.6, 0.4], "density": 5.0, "name": "car"}],
            "balls": [{"pos": [19.4, 0.8], "radius": 0.3, "friction": 1.0},
                      {"pos": [20.6, 0.8], "radius": 0.3, "friction": 1.0}],
            "joints": [{"kind": "rod", "a": 0, "b": {"body": 0}, "length": 0, "offset_b": [-0.6, -0.6], "motor": motor},
                       {"kind": "rod", "a": 1, "b": {"body": 0}, "length": 0, "offset_b": [0.6, -0.6], "motor": motor}]}


def drive(world, seconds, held=None):
    if held:
        world.press_flipper(held, True)
    for _ in range(round(seconds * 60)):
        world.step(TICK)
    if held:
        world.press_flipper(held, False)
    return float(world.bodies.pos[0, 0])


@pytest.mark.parametrize("execution", ["numpy", "compiled"])
def test_a_car_drives_forward_alone_and_back_while_its_key_is_held(execution):
    if execution == "compiled":
        from tests.conftest import COMPILED
        if COMPILED is None:
            pytest.skip("numba is not installed")
    w = World.from_level(complete(car()), execution=execution)
    assert w.flipper_keys == frozenset({"right"})
    x0 = float(w.bodies.pos[0, 0])
    x1 = drive(w, 1.5)
    assert x1 > x0 + 1.0, "clockwise wheels roll it to +x"
    x2 = drive(w, 2.0, held="right")
    assert x2 < x1 - 1.0, "held: the wheels turn the other way and it comes back"
    assert np.all(w.joints.speed == w.joints.base_speed), "released: the motors as written again"
    x3 = drive(w, 2.0)
    assert x3 > x2 + 1.0


def test_both_executions_drive_the_same_bits_with_the_key_pressed_and_released():
    from tests.conftest import COMPILED
    if COMPILED is None:
        pytest.skip("numba is not installed")
    worlds = [World.from_level(complete(car("left")), execution=e) for e in ("numpy", "compiled")]
    for w in worlds:
        drive(w, 0.5)
        drive(w, 0.5, held="left")
        drive(w, 0.25)
    assert worlds[0].state_hash() == worlds[1].state_hash()


def test_a_body_joints_motor_answers_its_key_too():
    """A plank pinned at its middle to the world, its motor on "left": it turns one way, and
    the other while the key is held."""
    level = {"gravity": [0, 0], "bounds": [0, 0, 20, 20], "segments": [{"a": [0, 0], "b": [20, 0]}],
             "bodies": [{"shape": "capsule", "a": [8, 10], "b": [12, 10], "radius": 0.1}],
             "joints": [{"kind": "rod", "a": {"body": 0}, "b": [10, 10], "length": 0,
                         "motor": {"speed": 3.0, "torque": 100.0, "key": "left"}}]}
    w = World.from_level(complete(level), execution="numpy")
    assert w.flipper_keys == frozenset({"left"})
    drive(w, 0.5)
    assert w.bodies.spin[0] == pytest.approx(3.0, rel=1e-3)
    w.press_flipper("left", True)
    drive(w, 0.5)
    assert w.bodies.spin[0] == pytest.approx(-3.0, rel=1e-3)
    w.press_flipper("left", False)
    drive(w, 0.5)
    assert w.bodies.spin[0] == pytest.approx(3.0, rel=1e-3)


def test_the_key_survives_a_snapshot_and_a_bad_key_is_one_line():
    w = World.from_level(complete(car("right")), execution="numpy")
    drive(w, 0.2, held="right")
    snapshot = w.to_level()
    motors = [j["motor"] for j in snapshot["joints"] if "motor" in j]
    assert motors and all(m["key"] == "right" and m["speed"] == -8.0 for m in motors), "the speed as written, not as held"
    again = World.from_level(loads(json.dumps(snapshot)), execution="numpy")
    assert again.flipper_keys == frozenset({"right"})
    bad = car("up")
    with pytest.raises(LevelError) as e:
        loads(json.dumps(bad))
    assert "\n" not in str(e.value) and "key" in str(e.value)
