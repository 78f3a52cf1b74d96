"""The motors' work (World.motor_work, J): what the joints' motors did on the balls, so the
energy plot can show where a motorised world's energy came from (issue 24)."""
import numpy as np
import pytest

from game.physics.world import World
from tests.scenes import definition

TICK = 1.0 / 60.0


def build(level, execution):
    return World.from_level(definition(level), execution=execution)


@pytest.mark.parametrize("integrator", ["euler", "semi-implicit", "verlet", "rk4"])
def test_a_motor_spinning_up_a_dumbbell_in_free_space_did_the_work_of_its_kinetic_energy(execution, integrator):
    # Nothing else feeds or takes energy (no gravity, no drag, no contacts): the kinetic energy
    # gained (translation and spin) is the motor's work. Each motor impulse's work is exact by
    # construction (an impulse lam along the row changes K.E. by lam (J v + lam K / 2)); what
    # is left is the work of the rod's position correction, of the order of its stretch
    # (measured: 6e-9 of it under rk4, 1e-13 under euler): within 1e-6.
    level = {"gravity": [0, 0], "integrator": integrator, "bounds": [-20, -20, 20, 20],
             "balls": [{"pos": [-1, 0.5], "radius": 0.4, "density": 2}, {"pos": [1.5, 0.5], "radius": 0.3}],
             "joints": [{"kind": "rod", "a": 0, "b": 1, "motor": {"speed": 4.0, "torque": 2.0}}]}
    w = build(level, execution)
    start = w.energy()["total"]
    for _ in range(240):
        w.step(TICK)
    gained = w.energy()["total"] - start
    assert gained > 0.5                                               # it spun up
    assert w.motor_work == pytest.approx(gained, rel=1e-6)
    assert w.energy()["motor_work"] == w.motor_work


def test_a_wheel_on_a_motor_axle_gains_half_i_omega_squared_and_a_brake_takes_it_back(execution):
    level = {"gravity": [0, 0], "bounds": [-10, -10, 10, 10], "balls": [{"pos": [0, 0], "radius": 0.5}],
             "joints": [{"kind": "rod", "a": 0, "b": [0, 0], "length": 0, "motor": {"speed": 6.0, "torque": 0.5}}]}
    w = build(level, execution)
    for _ in range(120):
        w.step(TICK)
    assert w.spin[0] == pytest.approx(6.0)
    spun = 0.5 * 6.0 ** 2 / w.inv_inertia[0]
    assert w.motor_work == pytest.approx(spun, rel=1e-9)
    w.joints.speed[0] = 0.0                                           # the motor brakes it to rest
    for _ in range(240):
        w.step(TICK)
    assert w.spin[0] == pytest.approx(0.0, abs=1e-12)
    assert abs(w.motor_work) < 1e-9 * spun                            # the work came back out


def test_the_motor_work_is_the_same_fused_sub_step_by_sub_step_and_on_numpy():
    from game.physics.compiled import loader
    if loader.load() is None:
        pytest.skip("numba is not installed")
    level = {"gravity": [0, -9.81], "bounds": [0, 0, 10, 10], "segments": [{"a": [0, 0], "b": [10, 0]}],
             "balls": [{"pos": [3, 0.3], "radius": 0.3}, {"pos": [5, 0.3], "radius": 0.3}, {"pos": [4, 1.0], "radius": 0.2}],
             "joints": [{"kind": "rod", "a": 0, "b": 2, "motor": {"speed": -8, "torque": 5}},
                        {"kind": "rod", "a": 1, "b": 2, "motor": {"speed": -8, "torque": 5}}, {"kind": "rod", "a": 0, "b": 1}]}
    work = []
    for execution, fused in (("numpy", False), ("compiled", False), ("compiled", True)):
        w = build(level, execution)
        if not fused:
            w._fused = lambda kernels: False
        for _ in range(120):
            w.step(TICK)
        work.append(w.motor_work)
    assert work[0] == work[1] == work[2] and work[0] > 0                 # a little car: it drove
    assert np.isfinite(work).all()
