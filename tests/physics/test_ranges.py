"""Every value the level format allows steps cleanly (issue 14): finite or reported as blown up,
nothing on stderr, no traceback; drag up to the schema's maximum is stable in every integrator."""
import json
import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from scenes import build_world
from game import level as levels
from game.physics.integrators import ORDER
from game.physics.world import TICK, World

# Every test here runs on both executions: the ``execution`` fixture (conftest.py).

with open("levels/level.schema.json") as _f:
    SCHEMA = json.load(_f)
PROPS = SCHEMA["properties"]
BALL = PROPS["balls"]["items"]["properties"]
SPRING = PROPS["springs"]["items"]["properties"]
COORD = SCHEMA["$defs"]["coord"]["maximum"]
SPEED = SCHEMA["$defs"]["velocity"]["items"]["maximum"]
DRAG_MAX = PROPS["drag"]["maximum"]


def log_range(lo, hi):
    """Floats from lo to hi (> 0), spread over the decades, ends included."""
    return st.one_of(st.sampled_from([lo, hi]),
                     st.floats(math.log10(lo), math.log10(hi)).map(lambda e: min(hi, max(lo, 10.0 ** e))))


def signed(limit):
    return st.one_of(st.sampled_from([0.0, limit, -limit]), st.floats(-limit, limit),
                     log_range(1e-6, limit).map(lambda v: -v))


@st.composite
def levels_in_range(draw):
    n = draw(st.integers(1, 5))
    balls = []
    for _ in range(n):
        ball = {"pos": [draw(st.one_of(st.floats(0, 32), signed(COORD))), draw(st.floats(0, 18))],
                "vel": [draw(signed(SPEED)), draw(signed(SPEED))],
                "radius": draw(log_range(BALL["radius"]["minimum"], BALL["radius"]["maximum"]))}
        if draw(st.booleans()):
            ball["mass"] = draw(log_range(BALL["mass"]["minimum"], BALL["mass"]["maximum"]))
        else:
            ball["density"] = draw(log_range(SCHEMA["$defs"]["density"]["minimum"], SCHEMA["$defs"]["density"]["maximum"]))
        balls.append(ball)
    springs = [{"a": draw(st.integers(0, n - 1)), "b": draw(st.integers(0, n - 1)),
                "stiffness": draw(st.one_of(st.just(0.0), log_range(1e-3, SPRING["stiffness"]["maximum"]))),
                "damping": draw(st.one_of(st.just(0.0), log_range(1e-3, SPRING["damping"]["maximum"])))}
               for _ in range(draw(st.integers(0, 2)))]
    springs = [s for s in springs if s["a"] != s["b"]]
    segments = []
    for _ in range(draw(st.integers(1, 3))):
        x, y = draw(st.floats(-40, 40)), draw(st.floats(-40, 40))
        segments.append({"a": [x, y], "b": [x + draw(st.floats(0.5, 40)), y + draw(st.floats(-40, 40))],
                         "radius": draw(st.one_of(st.just(0.0), log_range(1e-3, 1e6)))})
    return {"format": 1, "name": "ranges", "integrator": draw(st.sampled_from(ORDER)),
            "substeps": draw(st.sampled_from([1, 4, PROPS["substeps"]["maximum"]])),
            "drag": draw(st.one_of(st.just(0.0), st.floats(0, DRAG_MAX))),
            "gravity": [draw(signed(SPEED)), draw(signed(SPEED))],
            "bounds": draw(st.sampled_from([[0, 0, 32, 18], [-COORD, -COORD, COORD, COORD]])),
            "segments": segments, "balls": balls, "springs": springs}


@given(levels_in_range())
@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_allowed_level_steps_cleanly_for_120_ticks(capfd, execution, definition):
    level = levels.loads(json.dumps(definition))          # the format accepts it
    with warnings.catch_warnings():
        warnings.simplefilter("error")                     # a RuntimeWarning is a failure
        w = build_world(level, execution=execution)
        for _ in range(120):
            w.step(TICK)
        readings = (w.energy(), w.escaped(), w.state_hash(), w.blown_up())
        if not w.blown_up():                               # then it saves as a valid level
            snapshot = w.to_level()
            for ball in snapshot["balls"]:
                ball.pop("spin")                           # not in this branch's format yet
            levels.loads(json.dumps(snapshot, allow_nan=False))
    finite = all(np.isfinite(v).all() for v in (w.pos, w.vel, w.angle, w.spin))
    assert finite or readings[3]
    out, err = capfd.readouterr()
    assert out == "" and err == ""


@pytest.mark.parametrize("integrator", ORDER)
@pytest.mark.parametrize("substeps", [1, 4])
def test_drag_at_the_schema_maximum_reaches_terminal_velocity_in_every_integrator(integrator, substeps, execution):
    """dv/dt = g - c v: every integrator's fixed point is v = g / c; at c = the schema's maximum
    and the longest sub-step each must reach it (stable: |1 - c h + ...| < 1), never overshoot
    the starting speed."""
    w = build_world({"drag": DRAG_MAX, "integrator": integrator, "substeps": substeps,
                          "bounds": [-1e6, -1e6, 1e6, 1e6], "balls": [{"pos": [0.0, 0.0], "vel": [30.0, 0.0]}]}, execution=execution)
    speeds = []
    for _ in range(120):
        w.step(TICK)
        speeds.append(float(np.hypot(*w.vel[0])))
    assert max(speeds) <= 30.0
    assert w.vel[0] == pytest.approx([0.0, -9.81 / DRAG_MAX], abs=1e-9)


def test_a_stiff_spring_under_euler_reports_non_finite_and_writes_nothing(capfd, execution):
    w = build_world({"integrator": "euler", "balls": [{"pos": [10, 9]}, {"pos": [11, 9]}],
                          "springs": [{"a": 0, "b": 1, "stiffness": SPRING["stiffness"]["maximum"], "rest": 0.5}]}, execution=execution)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(120):
            w.step(TICK)
        blown_up = w.blown_up()
        w.energy(), w.escaped(), w.state_hash()
    assert blown_up
    assert capfd.readouterr() == ("", "")
