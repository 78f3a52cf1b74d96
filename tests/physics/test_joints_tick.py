"""Joints in the one-call tick and in the sleeping islands (issue 24): a jointed world runs
its whole tick in one compiled call with the bits of the sub-step path and of numpy, and a
jointed island sleeps and wakes as one."""
import glob
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.level import load
from game.physics.compiled import loader
from game.physics.world import World
from tests.scenes import definition

TICK = 1.0 / 60.0
COMPILED = loader.load()
needs_tick = pytest.mark.skipif(COMPILED is None or COMPILED.tick is None, reason="numba is not installed")


def hashes(level, ticks, grab=None):
    """state_hash after ``ticks`` ticks on numpy, the compiled sub-steps and the one-call tick,
    and whether the last ran fused."""
    out = []
    fused = None
    for mode in ("numpy", "substeps", "fused"):
        w = World.from_level(level, execution="numpy" if mode == "numpy" else "compiled", compiled=COMPILED)
        if mode == "substeps":
            w._fused = lambda kernels: False
        if grab is not None:
            w.grab(grab, tuple(w.pos[grab] + (1.0, 1.0)))
        for _ in range(ticks):
            w.step(TICK)
        if mode == "fused":
            fused = w._fused(w._kernels)
        out.append((w.state_hash(), w.joints_broken, len(w.joints), int(w._sleep.asleep.sum())))
    return out, fused


def _joint_levels():
    """The shipped levels with joints between balls, no bodies and no lava (those tick sub-step
    by sub-step: game.physics.step)."""
    out = []
    for path in sorted(glob.glob("levels/*.json")):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        doc = json.loads(text)
        if doc.get("joints") and not doc.get("bodies") and '"lava"' not in text:
            out.append(path)
    return out


def test_the_shipped_joint_levels_are_found():
    assert len(_joint_levels()) >= 5


@needs_tick
@pytest.mark.parametrize("path", _joint_levels())
def test_the_shipped_joint_levels_run_fused_with_the_bits_of_the_sub_steps_and_numpy(path):
    (numpy_run, substeps, fused_run), fused = hashes(load(path), 300)
    assert fused
    assert numpy_run == substeps == fused_run


@st.composite
def jointed_pits(draw):
    """Balls over a floor in a box, joined by random rods, ropes, pins and motors (some
    breakable, some anchored), under a random integrator."""
    n = draw(st.integers(2, 8))
    balls = [{"pos": [draw(st.floats(1, 7)), draw(st.floats(1, 6))], "vel": [draw(st.floats(-3, 3)), 0.0],
              "radius": draw(st.floats(0.1, 0.4)), "density": draw(st.sampled_from([0.01, 1.0, 100.0]))}
             for _ in range(n)]
    joints = []
    for _ in range(draw(st.integers(1, n + 2))):
        a = draw(st.integers(0, n - 1))
        b = draw(st.one_of(st.integers(0, n - 1).filter(lambda b: b != a), st.just([4.0, 7.0])))
        kind = draw(st.sampled_from(["rod", "rope"]))
        j = {"kind": kind, "a": a, "b": b}
        if kind == "rope":
            j["length"] = draw(st.floats(1, 8))
        elif draw(st.booleans()):
            j["length"] = 0.0
            if isinstance(b, int):
                j["offset_b"] = [0.0, 0.0]
        if kind == "rod" and draw(st.booleans()):
            j["motor"] = {"speed": draw(st.floats(-10, 10)), "torque": draw(st.floats(0, 50))}
        if draw(st.booleans()):
            j["break"] = draw(st.floats(1, 200))
        joints.append(j)
    return {"gravity": [0, -9.81], "integrator": draw(st.sampled_from(["euler", "semi-implicit", "verlet", "rk4"])),
            "bounds": [0, 0, 8, 8], "polylines": [{"points": [[0, 8], [0, 0], [8, 0], [8, 8]]}],
            "balls": balls, "joints": joints}


@needs_tick
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(jointed_pits(), st.booleans())
def test_random_jointed_pits_give_the_same_bits_fused_sub_step_by_sub_step_and_on_numpy(level, grab):
    (numpy_run, substeps, fused_run), fused = hashes(definition(level), 40, grab=0 if grab else None)
    assert fused
    assert numpy_run == substeps == fused_run


def hanging_chain(execution):
    """Six links hanging from an anchor, with drag, at rest after a while."""
    balls = [{"pos": [4.0, 7.0 - 0.5 * (k + 1)], "radius": 0.1} for k in range(6)]
    joints = [{"kind": "rod", "a": 0, "b": [4.0, 7.0]}] + [{"kind": "rod", "a": k, "b": k + 1} for k in range(5)]
    level = {"gravity": [0, -9.81], "drag": 0.5, "bounds": [0, 0, 8, 8],
             "segments": [{"a": [0, 0], "b": [8, 0]}], "balls": balls, "joints": joints}
    return World.from_level(definition(level), execution=execution)


def test_a_hanging_chain_falls_asleep_as_one_island_and_wakes_as_one(execution):
    w = hanging_chain(execution)
    w.vel[5] = (0.5, 0.0)                                   # a swing to settle first
    for _ in range(600):
        w.step(TICK)
    assert w._sleep.asleep.all()                          # held by its anchor: asleep, all six
    rest = w.pos.copy()
    for _ in range(30):
        w.step(TICK)
    assert np.array_equal(w.pos, rest)                    # asleep: not stepped
    w.add_balls([{"pos": [3.0, 4.0], "vel": [6.0, 0.0], "radius": 0.1}])    # thrown at the bottom link
    for _ in range(12):
        w.step(TICK)
    assert not w._sleep.asleep[:6].any()                  # the whole chain woke, the top link too
    for _ in range(30):
        w.step(TICK)
    end_a, end_b = w.joints.ends(w.pos, w.angle)
    assert np.abs(np.hypot(*(end_b - end_a).T) - 0.5).max() < 1e-3        # and holds together
    assert np.abs(w.pos[:6, 0] - 4.0).max() > 0.01                          # it swings


def test_a_joint_added_to_a_sleeping_ball_wakes_its_island(execution):
    w = hanging_chain(execution)
    for _ in range(600):
        w.step(TICK)
    assert w._sleep.asleep.all()
    w.add_balls([{"pos": [6.0, 4.0], "radius": 0.1}])
    w.joints.add([{"kind": "rope", "a": 6, "b": 5, "length": 3.0, "offset_a": [0, 0], "offset_b": [0, 0]}])
    w.step(TICK)
    assert not w._sleep.asleep.any()


def test_a_dumbbell_on_the_floor_sleeps_and_a_ball_landing_on_one_end_wakes_both(execution):
    level = {"gravity": [0, -9.81], "bounds": [0, 0, 8, 8], "segments": [{"a": [0, 0], "b": [8, 0]}],
             "balls": [{"pos": [2, 0.2], "radius": 0.2}, {"pos": [6, 0.2], "radius": 0.2}],
             "joints": [{"kind": "rod", "a": 0, "b": 1}]}
    w = World.from_level(definition(level), execution=execution)
    for _ in range(120):
        w.step(TICK)
    assert w._sleep.asleep.all()
    w.add_balls([{"pos": [6.0, 1.5], "radius": 0.2}])     # lands after 0.47 s
    for _ in range(40):
        w.step(TICK)
    assert not w._sleep.asleep[0]                         # the far end woke with the near one
