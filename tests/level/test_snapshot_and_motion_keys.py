"""Issue 37: the snapshot's own keys (``_time``, ``_flippers``) are read, not comments, and
a bad value of either is one line; moving walls the tick cannot follow are refused in one
line; an unknown key inside a motion is named with "did you mean"."""
import json
import math

import numpy as np
import pytest

from game.defaults import TICK
from game.level import LevelError, loads
from game.physics.world import World

FLOOR = [{"a": [0, 0], "b": [10, 0]}]
FLIPPER = {"kind": "flipper", "pivot": [1, 1], "angle": 0.9, "speed": 14, "key": "left"}


def refused(doc):
    """The one line a level is refused with (name "x.json")."""
    with pytest.raises(LevelError) as e:
        loads(json.dumps(doc), "x.json")
    line = str(e.value)
    assert "\n" not in line and line.startswith("x.json:1:")
    return line.split(": ", 1)[1]


# ------------------------------------------------------------------ _time and _flippers

@pytest.mark.parametrize("value, shown", [("set by hand", '"set by hand"'), ([1, 2], "[1, 2]"), ("nan", '"nan"'),
                                          ("inf", '"inf"'), (-1, "-1"), (1e300, "1e+300"), (True, "true")])
def test_a_bad_time_is_one_line(value, shown):
    """Was "internal error: ValueError" (a string or a list), or a NaN clock (``"nan"``)."""
    assert refused({"segments": FLOOR, "_time": value}) == f"_time: expected a number from 0 to 1000000000, got {shown}"


def test_nan_and_infinity_written_as_json_constants_are_refused():
    for text in ("NaN", "Infinity", "1e999"):
        with pytest.raises(LevelError) as e:
            loads('{"segments": [{"a": [0, 0], "b": [10, 0]}], "_time": ' + text + "}", "x.json")
        assert str(e.value).endswith(f"_time: expected a finite number, got {text}")


@pytest.mark.parametrize("value, message", [
    (["up"], '_flippers[0]: expected a number from -6.283185307179586 to 6.283185307179586, got "up"'),
    ({"left": 0.5}, '_flippers: expected a list, got {"left": 0.5}'),
    ([1e300], "_flippers[0]: expected a number from -6.283185307179586 to 6.283185307179586, got 1e+300"),
    (0.5, "_flippers: expected a list, got 0.5")])
def test_bad_flipper_angles_are_one_line(value, message):
    """A list of words or an object was "internal error: ValueError"; 1e300 put a flipper past
    its own angle (energy 293 J -> 716 J)."""
    for segments in (FLOOR, FLOOR + [{"a": [1, 1], "b": [3, 1], "motion": FLIPPER}]):
        assert refused({"segments": segments, "_flippers": value}) == message


def test_a_flipper_angle_within_a_turn_is_clamped_to_the_flipper_s_own_range():
    segments = FLOOR + [{"a": [1, 1], "b": [3, 1], "motion": FLIPPER},
                        {"a": [5, 1], "b": [7, 1], "motion": {"kind": "rotate", "pivot": [6, 1], "speed": 1}},
                        {"a": [7, 1], "b": [9, 1], "motion": dict(FLIPPER, pivot=[9, 1], angle=-0.9, key="right")}]
    w = World.from_level(loads(json.dumps({"segments": segments, "_time": 2.5, "_flippers": [6.0, 3.0, 0.5]})),
                         execution="numpy")
    assert w.time == 2.5
    assert list(w.motions.phi) == [0.9, 0.0, 0.0]          # up to its stop; a rotor's ignored; -0.9..0
    w.press_flipper("left", True)
    for _ in range(3):
        w.step(TICK)
    assert w.motions.phi[0] == 0.9 and np.isfinite(w.statics.a).all()


def test_a_snapshot_still_resumes_its_clock_and_flippers():
    segments = FLOOR + [{"a": [1, 1], "b": [3, 1], "motion": FLIPPER}]
    w = World.from_level(loads(json.dumps({"segments": segments, "balls": [{"pos": [5, 3]}]})), execution="numpy")
    w.press_flipper("left", True)
    for _ in range(4):
        w.step(TICK)
    snapshot = w.to_level()
    assert snapshot["_flippers"][0] == 0.9 and snapshot["_time"] == w.time
    again = World.from_level(loads(json.dumps(snapshot)), execution="numpy")
    assert again.time == w.time and list(again.motions.phi) == list(w.motions.phi)


def test_other_underscore_keys_stay_comments():
    level = loads(json.dumps({"segments": FLOOR, "_comment": [1, "two"], "_times": "set by hand",
                              "_flippers_note": {"a": None}}))
    assert level["_comment"] == [1, "two"] and level["_times"] == "set by hand"


def test_an_unknown_top_level_key_does_not_offer_the_snapshot_keys():
    assert refused({"segments": FLOOR, "time": 3}).startswith(
        'time: expected one of the keys $schema, format, name, description, gravity, integrator, substeps, drag, '
        'bounds, material, segments, polylines, polygons, balls, bodies, springs, joints, spawners, zones, player, par, pinball, '
        'solution or a comment key starting with "_", got the unknown key "time"')


# ------------------------------------------------------------------ moving walls and the tick

def wall(motion):
    return {"segments": FLOOR + [{"a": [2, 3], "b": [5, 3], "motion": motion}], "balls": [{"pos": [3, 4]}]}


@pytest.mark.parametrize("period", [5e-324, 1e-300, 0.05, 0.09999])
def test_a_slide_period_the_tick_cannot_follow_is_refused(period):
    """5e-324 made the wall NaN (balls fell through); 1e-300 made it jump at random (17 J ->
    1,934 J)."""
    assert refused(wall({"kind": "slide", "to": [0, 2], "period": period})) == (
        f"segments[1].motion.period: expected a number from 0.1 to 1000000 (at least 6 ticks of 1/60 s: the tick "
        f"cannot follow a faster slide), got {json.dumps(period)}")


@pytest.mark.parametrize("kind, speed, expected", [
    ("rotate", 1000, "a number from -60 to 60"), ("rotate", -60.5, "a number from -60 to 60"),
    ("flipper", 1000, "a number above 0 and at most 60"), ("flipper", 61, "a number above 0 and at most 60")])
def test_a_turn_the_tick_cannot_follow_is_refused(kind, speed, expected):
    motion = dict(FLIPPER, speed=speed) if kind == "flipper" else {"kind": "rotate", "pivot": [3, 3], "speed": speed}
    assert refused(wall(motion)) == (f"segments[1].motion.speed: expected {expected} (at most 1 rad a tick of "
                                     f"1/60 s: the tick cannot follow a faster turn), got {json.dumps(speed)}")


def test_the_bounds_are_what_the_tick_follows():
    assert 0.1 >= 6 * TICK - 1e-12 and 60 * TICK == pytest.approx(1.0)


@pytest.mark.parametrize("motion", [{"kind": "slide", "to": [0, 2], "period": 0.1},
                                    {"kind": "rotate", "pivot": [3, 3], "speed": -60},
                                    dict(FLIPPER, speed=60)])
def test_the_fastest_walls_allowed_stay_finite(motion):
    w = World.from_level(loads(json.dumps(wall(motion))), execution="numpy")
    w.press_flipper("left", True)
    for _ in range(30):
        w.step(TICK)
    assert np.isfinite(w.statics.a).all() and np.isfinite(w.pos).all() and w.pos[0, 1] > 0


@pytest.mark.parametrize("motion, message", [
    ({"kind": "rotate", "pivot": [3, 3], "spede": 1},
     'segments[1].motion.spede: expected one of the keys kind, pivot, speed or a comment key starting with "_", '
     'got the unknown key "spede" (did you mean "speed"?)'),
    ({"kind": "slide", "to": [0, 2], "period": 2, "peroid": 2},
     'segments[1].motion.peroid: expected one of the keys kind, to, period or a comment key starting with "_", '
     'got the unknown key "peroid" (did you mean "period"?)'),
    (dict(FLIPPER, kye="left"),
     'segments[1].motion.kye: expected one of the keys kind, pivot, angle, speed, key or a comment key starting '
     'with "_", got the unknown key "kye" (did you mean "key"?)'),
    ({"kind": "rotate", "speed": 1}, 'segments[1].motion: expected a key "pivot", got {"kind": "rotate", "speed": 1}'),
    ({"kind": "spin", "speed": 1},
     'segments[1].motion: expected a motion {"kind": "rotate" | "slide" | "flipper", ...}, got {"kind": "spin", '
     '"speed": 1}')])
def test_a_motion_s_own_mistake_is_named(motion, message):
    """Was 'segments[1].motion: expected a motion {"kind": ...}, got {...}' for every mistake."""
    assert refused(wall(motion)) == message


def test_a_motion_on_a_polyline_and_a_polygon_is_named_too():
    doc = {"segments": FLOOR, "polylines": [{"points": [[1, 1], [2, 2]], "motion": {"kind": "rotate", "pivot": [1, 1],
                                                                                      "sped": 2}}]}
    assert refused(doc).startswith("polylines[0].motion.sped: expected one of the keys kind, pivot, speed")
    doc = {"segments": FLOOR, "polygons": [{"points": [[1, 1], [2, 1], [2, 2]],
                                            "motion": {"kind": "slide", "to": [0, 1], "period": math.ulp(0)}}]}
    assert refused(doc).startswith("polygons[0].motion.period: expected a number from 0.1 to 1000000")
