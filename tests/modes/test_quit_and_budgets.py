"""Work a player can lose (issue 37) and what a puzzle's budget means (issue 38): Esc never
quits by itself (it asks; Enter or Y quits), the window's close button asks only when a
drawing would be lost; Ctrl+Z after the run has ticked takes a segment or ball away without
giving its budget back, and R restarts a puzzle paused, as it opened."""
import json

import pygame
import pytest

from game.modes.confirm import ConfirmQuitMode
from game.modes.help import HelpMode
from game.modes.menu import LevelMenuMode
from game.modes.settings import SettingsMode
from tests.app.test_app import LEVEL, SIZE, _post, frames, key
from tests.modes.test_goals_play import RULES, data, drawn_strings, make_game, screen  # noqa: F401
from tests.app.test_app import drag

PUZZLE = dict(RULES, player={"spawn": 1, "draw": 2, "delete": False, "grab": False})


def ctrl_z(g):
    _post(g, pygame.KEYDOWN, key=pygame.K_z, mod=pygame.KMOD_LCTRL, unicode="", scancode=0)


def draw_one(g, y):
    drag(g, screen(g, (4, y)), screen(g, (10, y - 1)))


# ---------------------------------------------------------------------------- quitting

@pytest.mark.parametrize("overlay", [pygame.K_l, pygame.K_h, pygame.K_s])
def test_esc_twice_to_close_an_overlay_never_quits(tmp_path, data, overlay):
    g = make_game(tmp_path, LEVEL, "a_box.json")
    key(g, overlay)
    assert isinstance(g.top, (LevelMenuMode, HelpMode, SettingsMode))
    key(g, pygame.K_ESCAPE)                                  # closes it
    assert g.top is g.play
    key(g, pygame.K_ESCAPE)                                  # one too many: asks
    assert g.running and isinstance(g.top, ConfirmQuitMode)
    key(g, pygame.K_ESCAPE)                                  # and a third stays
    assert g.running and g.top is g.play
    key(g, pygame.K_ESCAPE)
    key(g, pygame.K_y)
    assert not g.running


def test_the_question_names_the_drawing_and_the_world_waits(tmp_path, data):
    g = make_game(tmp_path, PUZZLE)
    key(g, pygame.K_w)                                       # back on drawing
    draw_one(g, 4)
    key(g, pygame.K_ESCAPE)
    ask = g.top
    assert isinstance(ask, ConfirmQuitMode) and ask.question() == "Quit and lose your 1 drawn segment?"
    assert "Quit and lose your 1 drawn segment?" in drawn_strings(g)
    g.clock.paused = False
    assert frames(g, 10) == 0                                # the world waits for the answer
    key(g, pygame.K_n)
    assert g.top is g.play and g.running
    key(g, pygame.K_ESCAPE)
    key(g, pygame.K_RETURN)
    assert not g.running


def test_the_close_button_quits_at_once_unless_a_drawing_would_be_lost(tmp_path, data):
    g = make_game(tmp_path, LEVEL, "a_box.json")
    _post(g, pygame.QUIT)
    assert not g.running
    g = make_game(tmp_path, PUZZLE)
    key(g, pygame.K_w)
    draw_one(g, 4)
    _post(g, pygame.QUIT)
    assert g.running and isinstance(g.top, ConfirmQuitMode)
    _post(g, pygame.QUIT)                                    # asked, and closed again: that is a yes
    assert not g.running


# ---------------------------------------------------------------------------- the budget rule

def test_undo_before_the_run_gives_the_budget_back_and_during_it_does_not(tmp_path, data):
    g = make_game(tmp_path, PUZZLE)
    key(g, pygame.K_w)
    assert g.clock.paused and g.play.tool == "draw"
    draw_one(g, 4)
    ctrl_z(g)                                                # building: the segment's budget comes back
    assert g.play.left_of("draw") == 2
    draw_one(g, 4)
    key(g, pygame.K_SPACE)                                   # run
    assert frames(g, 5) > 0
    statics = len(g.world.statics)
    ctrl_z(g)                                                # running: taken away, still spent
    assert len(g.world.statics) == statics - 1 and g.play.left_of("draw") == 1
    assert any("still spent until R" in t for t in g.toasts.texts())
    draw_one(g, 5)
    ctrl_z(g)
    assert g.play.left_of("draw") == 0                       # no drawing for ever while the balls fall
    draw_one(g, 6)
    assert len(g.world.statics) == statics - 1 and any("no segments left" in t for t in g.toasts.texts())


def test_a_ball_taken_back_during_the_run_stays_spent(tmp_path, data):
    g = make_game(tmp_path, PUZZLE)                          # make_game: the left button on balls
    g.clock.paused = False
    frames(g, 3)
    g.play.spawn((6.0, 6.0))
    ctrl_z(g)
    assert g.play.left_of("spawn") == 0 and g.play.spawn((6.0, 6.0)) == -1


def test_r_restarts_a_puzzle_paused_on_drawing_with_the_drawing_and_the_budget(tmp_path, data):
    g = make_game(tmp_path, PUZZLE)
    key(g, pygame.K_w)
    draw_one(g, 4)
    draw_one(g, 6)
    key(g, pygame.K_SPACE)
    frames(g, 5)
    ctrl_z(g)                                                # during the run: one segment, still spent
    key(g, pygame.K_w)                                       # on balls
    key(g, pygame.K_r)
    assert g.clock.paused and g.play.tool == "draw" and g.world.time == 0
    assert len(g.play.drawn) == 1 and g.play.left_of("draw") == 1    # a new run counts what is there
    ctrl_z(g)                                                # building again: the budget comes back
    assert g.play.left_of("draw") == 2


def test_r_in_a_sandbox_does_not_pause(tmp_path, data):
    g = make_game(tmp_path, LEVEL, "a_box.json")
    assert not g.clock.paused
    key(g, pygame.K_r)
    assert not g.clock.paused and g.play.tool == "balls"


# ---------------------------------------------------------------------------- numbers and stars

def test_the_menu_and_the_hud_number_levels_as_their_files_do(tmp_path, data):
    from game.modes.menu import file_number
    assert file_number("levels/20_pendulum_clock.json") == 20 and file_number("x/01_a.json") == 1
    assert file_number("a_box.json") is None
    for name in ("01_first.json", "20_twenty.json", "b_unnumbered.json"):
        (tmp_path / name).write_text(json.dumps(LEVEL))
    g = make_game(tmp_path, LEVEL, "30_thirty.json")
    assert g.play.counter == "level 30" and "level 30" in drawn_strings(g)
    key(g, pygame.K_l)
    menu = g.top
    menu.wait_for_thumbnails()
    captions = []
    text = g.hud.text
    g.hud.text = lambda s, *a, **k: (captions.append(s), text(s, *a, **k))[1]
    g.draw(pygame.Surface(SIZE))
    g.hud.text = text
    assert {"1  Test box", "20  Test box", "30  Test box", "Test box"} <= set(captions)   # b_: no number
    assert len(menu.files) == 4 and menu.files[-1].endswith("b_unnumbered.json")


def test_a_level_without_a_goal_shows_no_stars(tmp_path, data):
    goal = dict(LEVEL, name="With goal", zones=[{"kind": "goal", "rect": [[1, 0], [3, 2]], "count": 1}])
    (tmp_path / "b_goal.json").write_text(json.dumps(goal))
    g = make_game(tmp_path, LEVEL, "a_box.json")
    key(g, pygame.K_l)
    menu = g.top
    menu.wait_for_thumbnails()
    polygons = []
    real = pygame.draw.polygon
    pygame.draw.polygon = lambda surface, colour, points, *a: (polygons.append(points), real(surface, colour, points, *a))[1]
    try:
        g.draw(pygame.Surface((1280, 720)))
    finally:
        pygame.draw.polygon = real
    stars = [p for p in polygons if len(p) == 10]
    assert menu.goals == {menu.files[0]: False, menu.files[1]: True}
    assert len(stars) == 3                                   # the goal level's three, none for the box
    assert all(p[0][0] > menu.cell_rect(1).x for p in stars)


# ---------------------------------------------------------------------------- a level's controls

def test_a_puzzle_that_lets_the_player_only_draw_keeps_the_left_button_on_drawing(tmp_path, data):
    """Issue 38: level 10 opens on drawing and its text said "press W", which switched to a
    ball tool the level does not allow (no balls, no bodies, no grab) and drew an aim line for
    a fling that could never be. Now W stays on drawing and says why, the text says what to
    do, and no aim is drawn for a shape the level lets the player add none of."""
    only_draw = dict(RULES, player={"spawn": 0, "bodies": 0, "draw": 1, "delete": False, "grab": False})
    g = make_game(tmp_path, only_draw, "only_draw.json")
    assert g.play.tool == "draw" and g.clock.paused
    key(g, pygame.K_w)
    assert g.play.tool == "draw"
    assert any("draws" in t for t in g.toasts.texts())
    with open("levels/10_first_ramp.json", encoding="utf-8") as f:
        assert "W" not in json.load(f)["description"].split()


def test_a_puzzle_with_a_ball_to_add_still_switches_to_balls_with_w(tmp_path, data):
    g = make_game(tmp_path, PUZZLE, "puzzle.json")
    first = g.play.tool
    key(g, pygame.K_w)
    assert g.play.tool != first
    key(g, pygame.K_w)
    assert g.play.tool == first
