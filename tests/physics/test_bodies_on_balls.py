"""A body's weight on a ball on the floor (a heavy car on light ball wheels, a heavy box
resting on a ball) is held by the floor: the ball's contacts with the walls are solved with the
bodies and joints that press it there. Solved by the balls' solve alone (the ball's own mass),
a 0.3 kg wheel under a 13 kg car sank 0.7 m, through the floor."""
import numpy as np
import pytest

from game.level import complete
from game.physics.world import World
from tests.conftest import COMPILED

TICK = 1.0 / 60.0
FLOOR = 0.5
SLOP = 0.01          # m: how far a resting ball may sit in the floor (Box2D's linear slop is 5 mm)


def car(density):
    motor = {"speed": -8.0, "torque": 40.0}
    return {"gravity": [0, -9.81], "bounds": [0, 0, 40, 10],
            "segments": [{"a": [0, FLOOR], "b": [40, FLOOR], "friction": 1.0}],
            "bodies": [{"shape": "box", "center": [20.0, 1.4], "size": [1.6, 0.4], "density": density}],
            "balls": [{"pos": [19.4, 0.8], "radius": 0.3, "friction": 1.0},
                      {"pos": [20.6, 0.8], "radius": 0.3, "friction": 1.0}],
            "joints": [{"kind": "rod", "a": 0, "b": {"body": 0}, "length": 0, "offset_b": [-0.6, -0.6], "motor": motor},
                       {"kind": "rod", "a": 1, "b": {"body": 0}, "length": 0, "offset_b": [0.6, -0.6], "motor": motor}]}


def box_on_ball(mass):
    return {"gravity": [0, -9.81], "bounds": [0, 0, 20, 10],
            "segments": [{"a": [0, FLOOR], "b": [20, FLOOR]}],
            "balls": [{"pos": [10.0, FLOOR + 0.25], "radius": 0.25, "mass": 0.5}],
            "bodies": [{"shape": "box", "center": [10.0, FLOOR + 0.5 + 0.3], "size": [0.6, 0.6], "mass": mass}]}


def executions():
    return ["numpy"] + (["compiled"] if COMPILED is not None else [])


@pytest.mark.parametrize("execution", executions())
@pytest.mark.parametrize("density", [1.0, 20.0, 100.0])
def test_a_heavy_car_on_light_wheels_drives_on_the_floor_not_through_it(execution, density):
    """Car body to wheel mass: 2.3 to 230 times. The wheels' centres stay a radius above the
    floor (within SLOP) while it drives 2 s."""
    w = World.from_level(complete(car(density)), execution=execution)
    lowest = np.inf
    for _ in range(120):
        w.step(TICK)
        lowest = min(lowest, float(w.pos[:, 1].min()))
    assert lowest > FLOOR + 0.3 - SLOP, lowest
    assert w.bodies.pos[0, 0] > 21.0, "and it drives"


@pytest.mark.parametrize("execution", executions())
@pytest.mark.parametrize("mass", [1.0, 5.0, 50.0, 500.0, 5000.0])
def test_a_box_resting_on_a_ball_is_held_by_the_floor_under_the_ball(execution, mass):
    """A 0.6 m box of 1 to 5,000 kg set on a 0.5 kg ball (2 to 10,000 times its mass): the
    ball stays on the floor (its centre its radius above it, within SLOP) and the box on the
    ball, in it by at most SLOP. The ball holds the box as if it were as heavy (contact mass
    scaling, body_support.support_scales); before it, a 50 kg box sank 5 cm into the ball and a
    500 kg one went through it to the floor."""
    w = World.from_level(complete(box_on_ball(mass)), execution=execution)
    for _ in range(180):
        w.step(TICK)
        assert w.pos[0, 1] > FLOOR + 0.25 - SLOP
        assert w.bodies.pos[0, 1] > FLOOR + 0.5 + 0.3 - SLOP
    assert abs(w.bodies.pos[0, 0] - 10.0) < 1e-6 and abs(w.pos[0, 0] - 10.0) < 1e-6, "balanced: nothing rolls"


@pytest.mark.parametrize("execution", executions())
@pytest.mark.parametrize("speed", [0.0, 5.0, 20.0, 40.0])
@pytest.mark.parametrize("ratio", [100.0, 1000.0, 10000.0])
def test_a_heavy_box_dropped_on_a_ball_on_the_floor_never_passes_through_it(execution, speed, ratio):
    """A 2 m box of 100 to 10,000 times a 1 kg ball's mass, dropped from 3 m at up to 40 m/s onto
    it: the ball never goes into the box by more than SLOP, and the box comes to rest on it.
    Before, a 1,000:1 box let go at rest ended on the floor round the ball, and a 100:1 box at
    40 m/s bounced 13 m high."""
    level = complete({"segments": [{"a": [-10, 0], "b": [10, 0]}], "gravity": [0, -9.81], "bounds": [-11, -2, 11, 30],
                      "balls": [{"pos": [0, 0.2], "radius": 0.2, "mass": 1.0}],
                      "bodies": [{"shape": "box", "center": [0, 3], "size": [2.0, 2.0], "vel": [0, -speed],
                                  "mass": ratio}]})
    w = World.from_level(level, execution=execution)
    for _ in range(180):
        w.step(TICK)
        assert (w.bodies.pos[0, 1] - 1.0) - (w.pos[0, 1] + 0.2) > -SLOP
    assert w.bodies.pos[0, 1] - 1.0 == pytest.approx(0.4, abs=SLOP) and abs(w.bodies.vel[0, 1]) < 0.01


def test_a_heavy_box_hitting_a_ball_in_the_air_keeps_the_true_masses():
    """Contact mass scaling is for support: a 100 kg box falling fast onto a 1 kg ball in the air
    (not on a floor) is an impact with the true masses, so the pair's momentum changes only by
    its weight's impulse."""
    level = complete({"segments": [{"a": [-10, -40], "b": [10, -40]}], "gravity": [0, -9.81],
                      "bounds": [-11, -41, 11, 30], "material": {"restitution": 0.5},
                      "balls": [{"pos": [0, 0.2], "radius": 0.2, "mass": 1.0}],
                      "bodies": [{"shape": "box", "center": [0, 2], "size": [2.0, 2.0], "vel": [0, -10.0],
                                  "mass": 100.0}]})
    w = World.from_level(level)

    def momentum():
        return w.bodies.momentum()[0][1] + float((w.vel[:, 1] / w.inv_mass).sum())

    p0 = momentum()
    touched = False
    for n in range(1, 13):
        w.step(TICK)
        touched = touched or len(w.bodies.manifold_points) > 0
    assert touched and w.vel[0, 1] < -12.0, "the ball was struck down, faster than the box"
    assert momentum() - p0 == pytest.approx(-101.0 * 9.81 * 12 * TICK, rel=1e-9)


@pytest.mark.skipif(COMPILED is None, reason="numba is not installed")
def test_both_executions_give_the_same_bits_with_wheels_on_the_floor():
    worlds = [World.from_level(complete(car(20.0)), execution=e) for e in ("numpy", "compiled")]
    for w in worlds:
        for _ in range(60):
            w.step(TICK)
    assert worlds[0].state_hash() == worlds[1].state_hash()
