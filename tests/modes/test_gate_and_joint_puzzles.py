"""The puzzles 25-28 (issue 38) mean what they say. tests/modes/test_puzzles.py proves each both
ways (as shipped it does not complete in 60 s; with its solution it does, within par and the
player's budget). Here: the naive answers each is built to defeat do not complete it (nothing;
one straight ramp from the spawner towards the goal; in the joint puzzles the segments alone,
without the joint), and the solution is no knife edge. Runs stop at completion, or after the
seconds by which every spawned ball has had its go. Where two tests ask about the same level with
the same answer, they share one run (played as long as the longer needs, tests/puzzle_runs.py
play_through): each asserts what it did on its own run."""
import copy
import functools

import numpy as np
import pytest

from game.goals import with_solution
from tests.puzzle_runs import answer, play, play_through, raw

GATE, DRAWBRIDGE, TOW, RAMP_AND_BRIDGE = "25_lava_gate.json", "26_drawbridge.json", "27_tow.json", "28_ramp_and_bridge.json"


def solution(name, part=None):
    """The level with its solution, or only its ``part`` ("segments", "joints")."""
    doc = copy.deepcopy(raw(name))
    if part is not None:
        doc["solution"] = {part: doc["solution"].get(part, [])}
    return with_solution(doc)


# ------------------------------------------------------------------------------ 25 Lava gate

def gate_offset(doc, t):
    """m: how far the gate has lifted at world time ``t`` (the slide's closed form)."""
    gate = doc["segments"][1]["motion"]
    return gate["to"][1] * (1 - np.cos(2 * np.pi * t / gate["period"])) / 2


def test_lava_gate_the_spawner_keeps_time_with_the_gate():
    doc = raw(GATE)
    assert doc["spawners"][0]["every"] == doc["segments"][1]["motion"]["period"], \
        "every ball meets the gate at the same point of its cycle: the way down decides"
    assert doc["segments"][1]["surface"] == "lava"


GATE_RAMP = (((2.5, 15.5), (12, 10)),)          # the naive straight ramp from the spawner towards the cup
AT_GATE_FOR = 40                                 # s: how long the balls' arrivals at the gate are watched


def moved_solution(da, db):
    """Level 25 with its solution's ramp ends moved by ``da`` and ``db`` m."""
    doc = copy.deepcopy(raw(GATE))
    s = doc["solution"]["segments"][0]
    s["a"], s["b"] = list(np.add(s["a"], da)), list(np.add(s["b"], db))
    return with_solution(doc)


@functools.cache
def watched_at_gate(answer_name):
    """(first held s or None, the world after, {ball id: world s its centre first passed x = 19.3
    in the first AT_GATE_FOR s}) for the solution (run AT_GATE_FOR s: past its par, by which
    the knife-edge test wants it complete) or the naive ramp (run 45 s, as the naive answers)."""
    doc, seconds = {"solution": (moved_solution((0, 0), (0, 0)), AT_GATE_FOR),
                    "ramp": (answer(GATE, GATE_RAMP), 45)}[answer_name]
    seen, ticks = {}, [0]

    def at_gate(w):
        ticks[0] += 1
        if ticks[0] <= AT_GATE_FOR * 60:
            for i, x in zip(w.ids.tolist(), w.pos[:, 0].tolist()):
                if x > 19.3 and i not in seen:
                    seen[i] = w.time
    done, w, _ = play_through(doc, seconds, each_tick=at_gate)
    return done, w, seen


@pytest.mark.parametrize("why, segments", [
    ("nothing: the balls roll down the floor and meet the gate shut", ()),
    ("a straight ramp from the spawner towards the cup", GATE_RAMP),
    ("a steep straight ramp right at the gate", (((2.5, 15.5), (19, 3)),)),
    ("two ramps, the second carrying on towards the gate", (((2.5, 15.5), (12, 10)), ((12.5, 9), (17, 7)))),
])
def test_lava_gate_naive_answers_meet_the_gate_shut(why, segments):
    done, w = watched_at_gate("ramp")[:2] if segments == GATE_RAMP else play(answer(GATE, segments), 45)
    assert done is None, why
    assert w.count == 0 or not np.any(w.pos[:, 0] > 20.5), "no ball got past the gate"


@pytest.mark.parametrize("da, db", [((0, 0), (0, 0)), ((0.05, 0.05), (0.05, -0.05)), ((-0.05, -0.05), (-0.05, 0.05)),
                                    ((0, 0), (0.1, 0)), ((0, 0), (-0.1, 0))])
def test_lava_gate_the_solution_is_no_knife_edge(da, db):
    # Unmoved, the solution's run is the one watched at the gate (AT_GATE_FOR s > par: a goal
    # first held after it fails here as it did when played on to 60 s).
    done = watched_at_gate("solution")[0] if da == db == (0, 0) else play(moved_solution(da, db), 60)[0]
    assert done is not None and done <= raw(GATE)["par"]["time"]


def test_lava_gate_a_ball_that_reaches_the_gate_open_gets_through_and_one_shut_burns():
    """The solution's balls reach the gate while it is lifted; the naive ramp's while it is down."""
    shipped = raw(GATE)
    assert AT_GATE_FOR > shipped["par"]["time"]
    lifted = [gate_offset(shipped, t) for t in watched_at_gate("solution")[2].values()]
    shut = [gate_offset(shipped, t) for t in watched_at_gate("ramp")[2].values()]
    assert len(lifted) >= 5 and min(lifted) > 0.5
    assert len(shut) >= 5 and max(shut) < 0.5


# ------------------------------------------------------------------------------ 26 Drawbridge, 28 Ramp and bridge

OWN_RAMP = (((1.5, 15), (7.5, 11)),)             # 28's solution's own ramp


@functools.cache
def own_ramp_without_the_pin():
    """Level 28 with its solution's ramp alone (``solution(RAMP_AND_BRIDGE, "segments")``, the
    same level as ``answer(RAMP_AND_BRIDGE, OWN_RAMP)``), played 40 s: (first held s or None,
    {30: (first held s by 30 s or None, the bodies left then)})."""
    assert [(tuple(s["a"]), tuple(s["b"])) for s in raw(RAMP_AND_BRIDGE)["solution"]["segments"]] == list(OWN_RAMP)
    done, _, looks = play_through(solution(RAMP_AND_BRIDGE, "segments"), 40, looks={30: lambda w: len(w.bodies)})
    return done, looks


@pytest.mark.parametrize("name", [DRAWBRIDGE, RAMP_AND_BRIDGE])
def test_without_the_pin_the_bridge_falls_into_the_lava(name):
    if name == RAMP_AND_BRIDGE:                          # 28: the ramp alone (the run shared with the test below)
        done, bodies = own_ramp_without_the_pin()[1][30]
    else:                                                # 26: nothing
        done, w = play(solution(name, "segments"), 30)
        bodies = len(w.bodies)
    assert done is None
    assert bodies == 0, "the lava took the bridge"


@pytest.mark.parametrize("name, segments", [
    (DRAWBRIDGE, (((2, 10.5), (11, 7.6)),)),              # (26 gives no segment: not even this helps)
    (RAMP_AND_BRIDGE, OWN_RAMP),                          # the solution's own ramp, without the pin
    (RAMP_AND_BRIDGE, (((2, 15), (9, 12)),)),
    (RAMP_AND_BRIDGE, (((2.5, 15), (9.5, 10.5)),)),
])
def test_a_ramp_towards_the_goal_without_the_pin_fails(name, segments):
    if (name, segments) == (RAMP_AND_BRIDGE, OWN_RAMP):
        done = own_ramp_without_the_pin()[0]
    else:
        done, _ = play(answer(name, segments), 40)
    assert done is None


def test_ramp_and_bridge_the_pin_alone_leaves_the_balls_in_the_lava():
    done, w = play(solution(RAMP_AND_BRIDGE, "joints"), 30)
    assert done is None
    assert len(w.bodies) == 1 and abs(abs(float(w.bodies.angle[0])) - np.pi / 2) < 0.2, "the bridge is down"


@pytest.mark.parametrize("name", [DRAWBRIDGE, RAMP_AND_BRIDGE])
@pytest.mark.parametrize("dx, dy", [(0.0, 0.0), (0.06, 0.0), (-0.06, 0.04), (0.0, -0.05), (0.0, 0.1), (0.0, -0.12)])
def test_the_pin_need_not_be_on_the_foot_to_the_centimetre(name, dx, dy):
    doc = copy.deepcopy(raw(name))
    pin = doc["solution"]["joints"][0]
    pin["at"] = [pin["at"][0] + dx, pin["at"][1] + dy]
    done, _ = play(with_solution(doc), 40)
    assert done is not None and done <= doc["par"]["time"]


def test_a_pin_through_the_bridges_middle_does_not_make_a_bridge():
    done, _ = play(answer(DRAWBRIDGE, joints=[{"kind": "pin", "a": {"body": 0}, "at": [12.6, 10.6]}]), 30)
    assert done is None


# ------------------------------------------------------------------------------ 27 Tow

def test_tow_alone_the_big_ball_reaches_the_cup_and_the_little_one_stays_in_its_hollow():
    done, w = play(answer(TOW), 20)
    assert done is None
    start = raw(TOW)["balls"][0]["pos"]
    assert np.hypot(*(w.pos[0] - start)) < 0.05, "the little ball has not left its hollow"
    assert w.pos[1, 0] > 24.7, "the big ball is in the cup"


def test_tow_a_rod_from_the_little_ball_to_an_anchor_holds_it_in_place():
    done, _ = play(answer(TOW, joints=[{"kind": "rod", "a": 0, "b": [3, 15]}]), 20)
    assert done is None


def test_tow_the_rod_keeps_the_balls_as_far_apart_as_placed_all_the_way_to_the_cup():
    done, w = play(solution(TOW), 20)
    b = raw(TOW)["balls"]
    assert done is not None
    assert abs(np.hypot(*(w.pos[1] - w.pos[0])) - np.hypot(*np.subtract(b[1]["pos"], b[0]["pos"]))) < 1e-3
