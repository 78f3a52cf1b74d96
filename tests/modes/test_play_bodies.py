"""Bodies in play (issue 35): V picks what the left button adds (ball, box, plank, triangle)
and the key hint names it; a click adds that body where it is clicked, a drag flings it as a
ball is flung (velocity = drag x FLING_GAIN, Shift's topspin turning its farthest point at the
fling's horizontal speed); a left drag on a body holds it at the point pressed (it hangs from
the cursor there and swings about it; paused, it is carried there); a right click deletes it
with its joints; Ctrl+Z takes a spawn back and puts a deleted body back with its joints; the
level's "player": {"bodies": N} budgets them and the row under the bar shows what is left."""
import json
import os

import numpy as np
import pygame
import pytest

from game.app.gestures import BodyHold
from game.goals import BODY_SHAPES as BODIES
from game.paths import ROOT
from game.level import LevelError, loads
from game.level.normalise import complete
from game.modes import play_picker
from game.modes.play_actions import FLING_GAIN
from game.modes.play_bodies import definition
from game.physics import bodies as world_bodies
from tests.app.test_app import LEVEL, _post, click, drag, frames, key
from tests.modes.test_goals_play import data, drawn_strings, make_game, screen  # noqa: F401

SHAPES = {"box": "box", "plank": "capsule", "triangle": "polygon"}
# The shapes as a level's author would write them (game.level.complete fills in the rest).
WRITTEN = {
    "box": lambda x, y: {"shape": "box", "center": [x, y], "size": [0.6, 0.6]},
    "plank": lambda x, y: {"shape": "capsule", "a": [x - 0.92, y], "b": [x + 0.92, y], "radius": 0.08},
    "triangle": lambda x, y: {"shape": "polygon", "points": [[x - 0.35, y - 0.7 * 3 ** 0.5 / 6],
                                                           [x + 0.35, y - 0.7 * 3 ** 0.5 / 6],
                                                           [x, y + 0.7 * 3 ** 0.5 / 3]]},
}


def pick(g, shape):
    while g.play.shape != shape:
        key(g, pygame.K_v)


def ctrl_z(g):
    _post(g, pygame.KEYDOWN, key=pygame.K_z, mod=pygame.KMOD_LCTRL, unicode="", scancode=0)


def held_point(world, b, local):
    c, s = np.cos(world.bodies.angle[b]), np.sin(world.bodies.angle[b])
    return world.bodies.pos[b] + np.array([c * local[0] - s * local[1], s * local[0] + c * local[1]])


def paused_game(tmp_path, doc=LEVEL, name="a_box.json"):
    g = make_game(tmp_path, doc, name)
    g.clock.paused = True
    return g


# ---------------------------------------------------------------------------- the spawn tool

def test_v_cycles_the_shapes_and_the_key_hint_names_the_one_picked(tmp_path, data):
    g = make_game(tmp_path, LEVEL, "a_box.json")
    assert g.play.shape == "ball"
    seen = []
    for _ in range(4):
        key(g, pygame.K_v)
        seen.append(g.play.shape)
        assert dict(g.play.hint())["B/C/V"].startswith(g.play.shape + " ")
        assert g.toasts.texts() and g.play.shape in g.toasts.texts()[0]
    assert seen == ["box", "plank", "triangle", "ball"]
    _post(g, pygame.KEYDOWN, key=pygame.K_v, mod=pygame.KMOD_LSHIFT, unicode="", scancode=0)
    assert g.play.shape == "triangle"
    key(g, pygame.K_c)                                       # the material picker names it too
    assert dict(g.play.hint())["B/C/V"] == "triangle 0.7 m rubber"
    assert "triangle 0.7 m rubber" in drawn_strings(g)


@pytest.mark.parametrize("shape", ["box", "plank", "triangle"])
def test_a_click_adds_the_body_picked_where_it_is_clicked(tmp_path, data, shape):
    g = paused_game(tmp_path)
    pick(g, shape)
    balls = g.world.count
    point = g.camera.screen_to_world(screen(g, (6, 5)))
    click(g, screen(g, (6, 5)))
    bodies = g.world.bodies
    assert len(bodies) == 1 and g.world.count == balls                # a body, no ball
    assert bodies.definitions[0]["shape"] == SHAPES[shape]
    assert np.allclose(bodies.pos[0], point, atol=1e-9)                # its centre of mass on the point
    assert np.allclose(bodies.vel[0], 0) and bodies.spin[0] == 0 and bodies.angle[0] == 0
    # The definition is what game.level.complete makes of the shape a level would write.
    x, y = float(point[0]), float(point[1])
    written = {"segments": [{"a": [0, 0], "b": [16, 0]}], "bodies": [WRITTEN[shape](x, y)]}
    expected = complete(written)["bodies"][0]
    made = bodies.definitions[0]
    assert made.keys() == expected.keys()
    for k in made:
        assert np.allclose(made[k], expected[k]) if k != "shape" else made[k] == expected[k], k
    frames(g, 1)
    g.clock.paused = False
    frames(g, 120)                                                     # it falls and lands
    assert g.world.bodies.pos[0, 1] < y - 1.0


def test_the_bodys_material_is_the_pickers(tmp_path, data):
    g = paused_game(tmp_path)
    key(g, pygame.K_c)                                                 # rubber
    d = definition(g.play, "box", (5, 5))
    assert (d["density"], d["restitution"], d["friction"]) == (1.2, 0.85, 0.9)
    pick(g, "box")
    click(g, screen(g, (5, 5)))
    assert np.isclose(g.world.bodies.mass[0], 1.2 * 0.6 * 0.6)


@pytest.mark.parametrize("shape", ["box", "plank", "triangle"])
def test_a_drag_flings_the_body_with_the_balls_velocity_rule(tmp_path, data, shape):
    g = paused_game(tmp_path)
    pick(g, shape)
    start, end = screen(g, (4, 5)), screen(g, (6, 6))
    drag(g, start, end)
    dragged = g.camera.screen_to_world(end) - g.camera.screen_to_world(start)
    assert len(g.world.bodies) == 1
    assert np.allclose(g.world.bodies.vel[0], dragged * FLING_GAIN)
    assert np.allclose(g.world.bodies.pos[0], g.camera.screen_to_world(start))
    assert g.world.bodies.spin[0] == 0                                  # no Shift, no Ctrl


def test_shift_flings_a_body_with_topspin_and_ctrl_with_backspin(tmp_path, data, monkeypatch):
    """As a ball: the spin of rolling at the fling's horizontal speed, -vx / r, with r the
    body's extent (its farthest point from its centre of mass)."""
    g = paused_game(tmp_path)
    pick(g, "plank")
    monkeypatch.setattr(pygame.display, "get_init", lambda: True)
    for mod, sign, y in ((pygame.KMOD_LSHIFT, 1.0, 6), (pygame.KMOD_LCTRL, -1.0, 3)):
        monkeypatch.setattr(pygame.key, "get_mods", lambda mod=mod: mod)
        drag(g, screen(g, (4, y)), screen(g, (7, y)))
        vx = g.world.bodies.vel[-1, 0]
        assert vx > 0
        assert np.isclose(g.world.bodies.spin[-1], sign * -vx / play_picker.extent("plank"))
    assert np.isclose(play_picker.extent("plank"), 1.0)                 # 2 m end to end


def test_a_held_press_adds_one_body_not_a_spray(tmp_path, data):
    g = make_game(tmp_path, LEVEL, "a_box.json")
    pick(g, "box")
    p = screen(g, (6, 5))
    _post(g, pygame.MOUSEMOTION, pos=p, rel=(0, 0), buttons=(0, 0, 0))
    _post(g, pygame.MOUSEBUTTONDOWN, pos=p, button=1)
    g.clock.paused = True
    frames(g, 60)                                                       # a second held still
    _post(g, pygame.MOUSEBUTTONUP, pos=p, button=1)
    assert len(g.world.bodies) == 1 and g.world.count == 1


# ---------------------------------------------------------------------------- the hand

BODY_LEVEL = dict(LEVEL, bodies=[{"shape": "box", "center": [8, 5], "size": [1.0, 0.5]}])


def grab_and_lift(g, taken, by, seconds):
    """Press on the body at ``taken`` m, move the cursor by ``by`` m over half a second, hold
    it there for ``seconds``; returns the BodyHold (the button still down)."""
    press = screen(g, taken)
    drag(g, press, press, release=False)
    hold = g.play.left
    taken = g.camera.screen_to_world(press)
    for k in range(30):
        _post(g, pygame.MOUSEMOTION, pos=screen(g, taken + np.asarray(by) * (k + 1) / 30), rel=(0, 0),
              buttons=(1, 0, 0))
        frames(g, 1)
    frames(g, int(seconds * 60))
    return hold


def test_a_body_grabbed_at_a_point_follows_the_cursor_by_that_point_and_falls_when_let_go(tmp_path, data):
    g = make_game(tmp_path, BODY_LEVEL)
    world = g.world
    start = world.bodies.pos[0].copy()
    hold = grab_and_lift(g, (8.4, 5.2), (-2.0, 1.5), 1.0)               # near a corner, off its centre
    assert isinstance(hold, BodyHold) and world_bodies.grabbed(world, hold.handle) == 0
    assert np.allclose(hold.local, np.array([8.4, 5.2]) - start, atol=0.05)
    cursor = g.cursor_world()
    assert np.hypot(*(held_point(world, 0, hold.local) - cursor)) < 0.1  # the point taken is at the cursor
    assert np.hypot(*(world.bodies.pos[0] - cursor)) < np.hypot(*(start - cursor))   # it came to the cursor
    assert np.hypot(*(world.bodies.pos[0] - cursor)) > 0.3                # by the point, not by its centre
    _post(g, pygame.MOUSEBUTTONUP, pos=screen(g, cursor), button=1)
    assert g.play.left is None and len(world.bodies.joint_kind) == 0    # the grab's joint went
    assert world_bodies.grabbed(world, hold.handle) == -1
    vy = world.bodies.vel[0, 1]
    frames(g, 30)
    assert np.isclose(world.bodies.vel[0, 1], vy - 9.81 * 0.5, atol=0.2)   # it flies free under gravity


def test_a_body_held_by_a_point_comes_to_hang_below_it(tmp_path, data):
    g = make_game(tmp_path, BODY_LEVEL)
    hold = grab_and_lift(g, (8.4, 5.2), (-2.0, 1.5), 8.0)
    world = g.world
    point = held_point(world, 0, hold.local)
    below = world.bodies.pos[0] - point
    assert below[1] < 0 and abs(below[0]) < 0.2 * abs(below[1])          # a pendulum at rest, within the brake's hold
    assert abs(world.bodies.spin[0]) < 0.1


def test_paused_a_dragged_body_is_carried_with_the_point_on_the_cursor(tmp_path, data):
    g = paused_game(tmp_path, BODY_LEVEL, "a_rules.json")
    world = g.world
    press = screen(g, (7.8, 4.9))
    drag(g, press, screen(g, (10, 7)), release=False)
    hold = g.play.left
    assert isinstance(hold, BodyHold)
    assert np.allclose(held_point(world, 0, hold.local), g.cursor_world())
    assert world.bodies.angle[0] == 0 and np.allclose(world.bodies.vel[0], 0)
    frames(g, 10)
    assert np.allclose(held_point(world, 0, hold.local), g.cursor_world())
    _post(g, pygame.MOUSEBUTTONUP, pos=screen(g, (10, 7)), button=1)
    assert len(world.bodies.joint_kind) == 0


def test_no_grab_of_a_body_where_the_level_says_so(tmp_path, data):
    g = paused_game(tmp_path, dict(BODY_LEVEL, player={"grab": False, "delete": False}), "a_rules.json")
    press = screen(g, (8, 5))
    drag(g, press, screen(g, (10, 7)))
    assert len(g.world.bodies.joint_kind) == 0 and np.allclose(g.world.bodies.pos[0], (8, 5))
    assert len(g.world.bodies) == 1 and g.world.count == 1             # and nothing was added
    click(g, press, button=3)
    assert len(g.world.bodies) == 1 and any("delete" in t for t in g.toasts.texts())


# ---------------------------------------------------------------------------- delete and undo

JOINED = dict(LEVEL, bodies=[{"shape": "box", "center": [8, 5], "size": [1.0, 0.5]},
                             {"shape": "capsule", "a": [3, 5], "b": [5, 5], "radius": 0.1}],
              joints=[{"kind": "rope", "a": {"body": 0}, "b": [8, 8], "length": 3},
                      {"kind": "rod", "a": {"body": 0}, "b": {"body": 1}, "offset_a": [-0.4, 0]}])


def test_a_right_click_deletes_a_body_with_its_joints_and_ctrl_z_puts_them_back(tmp_path, data):
    g = paused_game(tmp_path, JOINED, "a_rules.json")
    world = g.world
    before = world.bodies.to_definitions()
    rows = world.bodies.joint_rows.copy()
    assert len(world.bodies.joint_kind) == 2
    click(g, screen(g, (8.2, 5.1)), button=3)
    assert len(world.bodies) == 1 and len(world.bodies.joint_kind) == 0
    assert world.bodies.definitions[0]["shape"] == "capsule"
    ctrl_z(g)
    assert len(world.bodies) == 2 and len(world.bodies.joint_kind) == 2
    back = world.bodies.to_definitions()[1]
    assert back["center"] == before[0]["center"] and back["angle"] == before[0]["angle"]
    # The joints hold the same points with the same lengths; body 0 is now index 1.
    assert sorted(map(tuple, world.bodies.joint_ends)) == [(("body", 1), ("anchor", -1)), (("body", 1), ("body", 0))]
    assert np.allclose(np.sort(world.bodies.joint_rows[:, :8], axis=0), np.sort(rows[:, :8], axis=0))
    g.clock.paused = False
    frames(g, 30)                                                       # and the world runs on
    assert np.all(np.isfinite(world.bodies.pos))


def test_ctrl_z_takes_spawned_bodies_back_in_order_through_a_delete(tmp_path, data):
    g = paused_game(tmp_path)
    pick(g, "box")
    click(g, screen(g, (4, 5)))
    pick(g, "triangle")
    click(g, screen(g, (8, 5)))
    assert [d["shape"] for d in g.world.bodies.definitions] == ["box", "polygon"]
    click(g, screen(g, (4, 5)), button=3)                               # the box goes
    assert [d["shape"] for d in g.world.bodies.definitions] == ["polygon"]
    ctrl_z(g)                                                           # the box comes back
    assert sorted(d["shape"] for d in g.world.bodies.definitions) == ["box", "polygon"]
    ctrl_z(g)                                                           # the triangle's spawn
    assert [d["shape"] for d in g.world.bodies.definitions] == ["box"]
    ctrl_z(g)                                                           # the box's spawn
    assert len(g.world.bodies) == 0 and g.world.count == 1
    assert "undo: body taken back" in g.toasts.texts()
    ctrl_z(g)
    assert "undo: nothing to undo" in g.toasts.texts()


def test_a_right_click_on_a_ball_still_deletes_the_ball(tmp_path, data):
    g = paused_game(tmp_path, BODY_LEVEL, "a_rules.json")
    click(g, screen(g, g.world.pos[0]), button=3)
    assert g.world.count == 0 and len(g.world.bodies) == 1


# ---------------------------------------------------------------------------- the budget

def test_the_bodies_budget_holds_shows_and_ctrl_z_gives_one_back_before_the_run(tmp_path, data):
    g = paused_game(tmp_path, dict(LEVEL, player={"bodies": 1}), "a_rules.json")
    pick(g, "plank")
    click(g, screen(g, (5, 5)))
    click(g, screen(g, (9, 5)))
    assert len(g.world.bodies) == 1 and g.play.left_of("bodies") == 0
    assert any("no bodies left" in t for t in g.toasts.texts())
    assert "bodies 0 of 1 left" in drawn_strings(g)
    pick(g, "ball")
    click(g, screen(g, (9, 5)))                                        # balls: no limit here
    assert g.world.count == 2
    pick(g, "box")
    ctrl_z(g)                                                          # the ball
    ctrl_z(g)                                                          # the plank: its budget back
    assert len(g.world.bodies) == 0 and g.play.left_of("bodies") == 1
    click(g, screen(g, (9, 5)))
    assert len(g.world.bodies) == 1
    g.clock.paused = False
    frames(g, 2)                                                       # the run ticked: it stays spent
    ctrl_z(g)
    assert len(g.world.bodies) == 0 and g.play.left_of("bodies") == 0
    key(g, pygame.K_r)
    assert g.play.left_of("bodies") == 1


def test_no_bodies_where_the_level_allows_none_and_the_format_reads_the_budget(tmp_path, data):
    g = paused_game(tmp_path, dict(LEVEL, player={"bodies": 0}), "a_rules.json")
    pick(g, "box")
    click(g, screen(g, (5, 5)))
    assert len(g.world.bodies) == 0 and "this level lets you add no bodies" in g.toasts.texts()
    assert "no new bodies" in drawn_strings(g)
    text = '{"segments": [{"a": [0, 0], "b": [1, 0]}], "player": {"bodies": %s}}'
    assert loads(text % "3")["player"]["bodies"] == 3
    assert loads(text % "null")["player"]["bodies"] is None
    with pytest.raises(LevelError):
        loads(text % "-1")


def test_a_level_that_limits_the_balls_and_says_nothing_of_bodies_gives_none(tmp_path, data):
    # A box is no way round a puzzle's budget (level 10: one segment; a staircase of boxes
    # clicked in would have carried the balls to the cup). A level that wants both says so.
    g = paused_game(tmp_path, dict(LEVEL, player={"spawn": 0, "draw": 1}), "a_rules.json")
    pick(g, "box")
    click(g, screen(g, (5, 5)))
    assert len(g.world.bodies) == 0 and "this level lets you add no bodies" in g.toasts.texts()
    text = '{"segments": [{"a": [0, 0], "b": [1, 0]}], "player": %s}'
    assert loads(text % '{"spawn": 2}')["player"]["bodies"] == 0
    assert loads(text % '{"spawn": 2, "bodies": null}')["player"]["bodies"] is None
    assert loads(text % '{"draw": 2}')["player"]["bodies"] is None          # the balls not limited: no limit
    for name in ("10_first_ramp.json", "25_lava_gate.json", "16_short_by_two.json"):
        with open(os.path.join(ROOT, "levels", name), encoding="utf-8") as f:
            assert loads(f.read())["player"]["bodies"] == 0, name


def test_a_bodies_puzzle_opens_paused_on_placing_a_body_and_r_pauses_it_again(tmp_path, data):
    """Level 46's car drives by itself: a puzzle whose budget is bodies (no segments) opens
    paused, as a drawing puzzle does, with the left button placing a body (no balls to add
    there), so the plank is down before the car reaches the gap."""
    with open(os.path.join(ROOT, "levels", "46_plank_bridge.json"), encoding="utf-8") as f:
        doc = json.load(f)
    g = make_game(tmp_path, doc, name="46_plank_bridge.json")
    assert g.clock.paused and g.play.tool == "balls" and g.play.shape in BODIES
    assert any("place your bodies" in t for t in g.toasts.texts())
    start = g.world.time
    frames(g, 5)
    assert g.world.time == start                                # nothing ran while paused
    pick(g, "plank")
    click(g, screen(g, doc["solution"]["bodies"][0]["pos"]))
    assert g.play.left_of("bodies") == 0
    key(g, pygame.K_SPACE)
    frames(g, 5)
    assert g.world.time > start
    key(g, pygame.K_r)
    assert g.clock.paused and g.play.tool == "balls"
