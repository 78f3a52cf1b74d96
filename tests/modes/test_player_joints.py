"""The player's joints in a puzzle (issue 38): a level's "player": {"joints": {"pin": N, "rod": M}}
gives pins and rods; J picks the joint tool (J again: the other kind) and the row under the bar
shows what is left; while paused, a click pins a ball or body to the world where it is clicked
(two crossing there: to each other), and a rod joins two things (or one and an anchor) as far
apart as they were. Ctrl+Z takes one back, its budget back only before the run ticked; the
world keeps what was placed (the laws below), a replay plays it again to the bits, and
``with_solution`` places a solution's joints as the tool does."""
import copy
import json
import math
import os

import numpy as np
import pygame
import pytest

from game import replay as replays
from game.goals import with_solution
from game.level import LevelError, complete, loads
from game.modes.play_hints import pieces
from game.paths import ROOT
from game.physics.world import World
from tests.app.test_app import _post, click, drag, frames, key
from tests.modes.test_goals_play import data, make_game, screen  # noqa: F401

LEVEL = {
    "name": "Joints", "description": "Two balls and a plank in the air.", "integrator": "rk4",
    "bounds": [0, 0, 16, 9],
    "polylines": [{"points": [[0, 9], [0, 0], [16, 0], [16, 9]]}],
    "balls": [{"pos": [4, 6], "radius": 0.5}, {"pos": [8, 6], "radius": 0.5}],
    "bodies": [{"shape": "capsule", "a": [11, 6], "b": [14, 6], "radius": 0.1}],
    "player": {"spawn": 0, "draw": 0, "delete": False, "grab": False, "joints": {"pin": 1, "rod": 1}},
}


def ctrl_z(g):
    _post(g, pygame.KEYDOWN, key=pygame.K_z, mod=pygame.KMOD_LCTRL, unicode="", scancode=0)


def run(g, n):
    """Let the world run ``n`` frames, then pause it again."""
    g.clock.paused = False
    frames(g, n)
    g.clock.paused = True


def game_on(tmp_path, doc=LEVEL):
    g = make_game(tmp_path, doc, "joints.json")
    assert g.session.error == "" and g.clock.paused, "a puzzle opens paused"
    return g


def texts(g):
    return [t for t, _ in g.play.rules_line()]


# ------------------------------------------------------------------------------- the level format

@pytest.mark.parametrize("joints, words", [
    ({"pin": -1}, "player.joints.pin"),
    ({"pin": 1.5}, "player.joints.pin"),
    ({"pinn": 1}, "pinn"),
    (3, "player.joints"),
])
def test_a_bad_joint_budget_is_refused_in_one_line(joints, words):
    doc = dict(LEVEL, player={"joints": joints})
    with pytest.raises(LevelError) as e:
        loads(json.dumps(doc), "bad.json")
    line = str(e.value)
    assert words in line and "\n" not in line and "Traceback" not in line


@pytest.mark.parametrize("joint, words", [
    ({"kind": "pin", "a": 5, "at": [4, 6]}, "expected a ball of the level's 2, got ball 5"),
    ({"kind": "pin", "a": {"body": 3}, "at": [4, 6]}, "expected a body of the level's 1, got body 3"),
    ({"kind": "pin", "a": 0}, "a pin's point"),
    ({"kind": "rod", "a": 0}, "a rod's other end"),
    ({"kind": "rod", "a": 1, "b": 1}, "two different ends"),
    ({"kind": "hinge", "a": 0}, "solution.joints[0].kind"),
])
def test_a_bad_solution_joint_is_refused_in_one_line(joint, words):
    doc = dict(LEVEL, solution={"joints": [joint]})
    with pytest.raises(LevelError) as e:
        loads(json.dumps(doc), "bad.json")
    assert words in str(e.value) and "\n" not in str(e.value)


def test_a_level_without_joints_gives_none_and_saves_without_the_key():
    doc = complete(json.loads(json.dumps({k: v for k, v in LEVEL.items() if k != "player"})))
    assert doc["player"]["joints"] == {}
    from game.level.normalise import strip
    assert "player" not in strip(doc)


# ------------------------------------------------------------------------------------- the tool

def test_a_puzzle_of_joints_opens_on_the_joint_tool_and_its_budgets_show_under_the_bar(tmp_path, data):
    g = game_on(tmp_path)
    assert g.play.tool == "joint" and g.play.joint_kind == "pin"
    assert "pins 1 of 1 left" in texts(g) and "rods 1 of 1 left" in texts(g) and "J: joints" in texts(g)
    assert dict(g.play.hint())["J"] == "pin / rod"
    key(g, pygame.K_j)
    assert g.play.joint_kind == "rod" and "rod" in g.toasts.texts()[0]
    key(g, pygame.K_j)
    assert g.play.joint_kind == "pin"
    key(g, pygame.K_w)                     # W leaves it (no segments here: the balls' tool)
    assert g.play.tool == "balls"


def test_j_says_so_in_a_level_without_joints(tmp_path, data):
    g = make_game(tmp_path, {k: v for k, v in LEVEL.items() if k != "player"}, "open.json")
    key(g, pygame.K_j)
    assert g.play.tool == "balls" and "no joints" in g.toasts.texts()[0]


def test_a_pin_at_a_balls_centre_holds_it_there_while_the_other_falls(tmp_path, data):
    g = game_on(tmp_path)
    click(g, screen(g, (4.02, 6.01)))            # within the pick distance of its centre: the centre
    assert len(g.world.joints) == 1 and g.world.joints.length[0] == 0.0
    assert (g.world.joints.anchor_x[0], g.world.joints.anchor_y[0]) == (4.0, 6.0)
    run(g, 60)
    assert np.hypot(*(g.world.pos[0] - (4, 6))) < 1e-3
    assert g.world.pos[1, 1] < 5.0, "the ball not pinned fell"


def test_a_pin_off_a_balls_centre_is_a_crank_it_swings_on(tmp_path, data):
    g = game_on(tmp_path)
    click(g, screen(g, (4.3, 6.2)))
    anchor = np.array([g.world.joints.anchor_x[0], g.world.joints.anchor_y[0]])
    offset = np.array([g.world.joints.off_ax[0], g.world.joints.off_ay[0]])
    assert np.allclose(anchor, np.asarray(g.camera.screen_to_world(screen(g, (4.3, 6.2)))), atol=1e-9)
    assert np.allclose(anchor - (4, 6), offset, atol=1e-12), "the offset is the point clicked, in the ball's frame"
    run(g, 90)
    assert abs(np.hypot(*(g.world.pos[0] - anchor)) - np.hypot(*offset)) < 2e-3, "it swings about the pin"
    assert np.hypot(*(g.world.pos[0] - (4, 6))) > 0.1, "and it did swing"


def test_a_rod_keeps_two_balls_as_far_apart_as_they_were_as_they_fall(tmp_path, data):
    g = game_on(tmp_path)
    key(g, pygame.K_j)
    click(g, screen(g, (4, 6)))
    assert len(g.world.joints) == 0 and "rods 1 of 1 left" in texts(g), "the first end waits for the second"
    click(g, screen(g, (8.2, 6.1)))
    assert len(g.world.joints) == 1 and abs(g.world.joints.length[0] - 4.0) < 1e-12
    assert "rods 0 of 1 left" in texts(g)
    run(g, 60)
    assert g.world.pos[0, 1] < 5.0, "they fell"
    assert abs(np.hypot(*(g.world.pos[1] - g.world.pos[0])) - 4.0) < 1e-3


def test_a_rod_dragged_from_a_ball_to_empty_space_hangs_it_from_an_anchor(tmp_path, data):
    g = game_on(tmp_path)
    key(g, pygame.K_j)
    drag(g, screen(g, (8, 6)), screen(g, (8, 8)))
    anchor = np.array([g.world.joints.anchor_x[0], g.world.joints.anchor_y[0]])
    assert len(g.world.joints) == 1 and g.world.joints.b[0] == -1
    length = g.world.joints.length[0]
    assert abs(length - np.hypot(*(anchor - (8, 6)))) < 1e-12
    run(g, 60)
    assert abs(np.hypot(*(g.world.pos[1] - anchor)) - length) < 1e-3


def test_a_pin_where_two_planks_cross_joins_them_and_they_fall_together(tmp_path, data):
    doc = copy.deepcopy(LEVEL)
    doc["bodies"].append({"shape": "capsule", "a": [12.5, 4.5], "b": [12.5, 7.5], "radius": 0.1})
    g = game_on(tmp_path, doc)
    click(g, screen(g, (12.5, 6.0)))
    bodies = g.world.bodies
    assert len(bodies.joint_ends) == 1 and sorted(k for k, _ in bodies.joint_ends[0]) == ["body", "body"]
    run(g, 60)
    points = []
    for b, key_ in ((0, "offset_a"), (1, "offset_b")):         # where each plank is held, now
        local = np.asarray(bodies.joint_definitions[0][key_])
        cb, sb = np.cos(bodies.angle[b]), np.sin(bodies.angle[b])
        points.append(bodies.pos[b] + (cb * local[0] - sb * local[1], sb * local[0] + cb * local[1]))
    assert bodies.pos[0, 1] < 5.0, "they fell"
    assert np.hypot(*(points[0] - points[1])) < 2e-3, "held together at the pin"


def test_the_budget_holds_and_ctrl_z_gives_it_back_only_before_the_run_ticks(tmp_path, data):
    g = game_on(tmp_path)
    click(g, screen(g, (4, 6)))
    click(g, screen(g, (8, 6)))
    assert len(g.world.joints) == 1 and "no pins left" in g.toasts.texts()[0]
    ctrl_z(g)
    assert len(g.world.joints) == 0 and "pins 1 of 1 left" in texts(g)
    click(g, screen(g, (8, 6)))
    assert len(g.world.joints) == 1 and g.world.joints.a[0] == 1
    run(g, 2)
    ctrl_z(g)                                  # during the run: taken away, still spent
    assert len(g.world.joints) == 0 and "pins 0 of 1 left" in texts(g)
    assert "still spent until R" in g.toasts.texts()[0]
    key(g, pygame.K_r)                         # R: the run again, the budget back
    assert "pins 1 of 1 left" in texts(g) and len(g.world.joints) == 0 and g.clock.paused


def test_joints_are_placed_only_while_paused(tmp_path, data):
    g = game_on(tmp_path)
    g.clock.paused = False
    click(g, screen(g, (4, 6)))
    assert len(g.world.joints) == 0 and "while paused" in g.toasts.texts()[0]
    g.clock.paused = True
    click(g, screen(g, (1, 1)))               # nothing there
    assert len(g.world.joints) == 0 and "click on one" in g.toasts.texts()[0]


def test_with_solution_places_the_joint_the_tool_places(tmp_path, data):
    g = game_on(tmp_path)
    at = [float(v) for v in g.camera.screen_to_world(screen(g, (13.0, 6.05)))]
    click(g, screen(g, (13.0, 6.05)))           # the plank, pinned to the world there
    placed = g.world.bodies.joint_definitions[0]
    doc = with_solution(dict(LEVEL, solution={"joints": [{"kind": "pin", "a": {"body": 0}, "at": at}]}))
    made = complete(doc)["joints"][0]
    for k in ("kind", "a", "b", "length"):
        assert made[k] == placed[k], k
    assert np.allclose(made["offset_a"], placed["offset_a"], atol=1e-12)


def test_a_run_with_placed_joints_replays_to_the_same_bits(tmp_path, data):
    g = game_on(tmp_path)
    click(g, screen(g, (13.0, 6.0)))           # a pin through the plank
    key(g, pygame.K_j)
    click(g, screen(g, (4, 6)))
    click(g, screen(g, (8, 6)))                # a rod between the balls
    ctrl_z(g)
    click(g, screen(g, (4, 6)))
    click(g, screen(g, (8, 6)))                # and again
    run(g, 90)
    world = g.session.world
    names = [entry[1] for entry in world.journal.entries]
    assert names.count("joints.place") == 3 and names.count("joints.take_back") == 1
    key(g, pygame.K_F5)
    replay = replays.load(next((tmp_path / "shots").glob("*.replay.json")))
    for execution in ("compiled", "numpy"):
        report = replays.play(World.from_level(replay["level"], execution=execution), replay)
        assert report["match"] is True and report["state_hash"] == world.state_hash(), execution
    assert math.isclose(np.hypot(*(world.pos[1] - world.pos[0])), 4.0, abs_tol=1e-3)


# ------------------------------------------------------------------------------------- the hints

def shipped(name):
    with open(os.path.join(ROOT, "levels", name), encoding="utf-8") as f:
        return json.load(f)


def test_the_hint_marks_where_the_pin_goes_and_the_whole_solution_draws_the_rod(tmp_path, data):
    doc = shipped("26_drawbridge.json")
    g = make_game(tmp_path, doc, "26_drawbridge.json")
    for _ in range(3):                           # three failed tries: the first step shows
        run(g, 2)
        key(g, pygame.K_r)
    assert pieces(g.play) == [("pin", doc["solution"]["joints"][0]["at"])]
    g.draw(pygame.Surface(g.size))
    tow = shipped("27_tow.json")
    g = make_game(tmp_path, tow, "27_tow.json")
    for _ in range(5):
        run(g, 2)
        key(g, pygame.K_r)
    _post(g, pygame.KEYDOWN, key=pygame.K_h, mod=pygame.KMOD_SHIFT, unicode="H", scancode=0)
    (kind, a, b), = pieces(g.play)               # the rod, from the little ball's centre to the big one's
    assert kind == "segment" and list(a) == tow["balls"][0]["pos"] and list(b) == tow["balls"][1]["pos"]
    g.draw(pygame.Surface(g.size))
