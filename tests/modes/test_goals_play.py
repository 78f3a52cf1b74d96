"""Issue 27 in play: the level's player rules (spawn, draw, delete, grab) are enforced and
shown, segments are drawn and taken back, progress lasts in the player's data folder, and
the level menu scrolls, groups the player's own levels and cuts long names to their tile."""
import json
import os

import numpy as np
import pygame
import pytest

from game.app.loop import App
from game.goals import DRAWN_RADIUS
from game.modes.menu import TOP, LevelMenuMode
from game.app.progress import ENV, Progress, level_key, my_levels_dir, stars
from tests.app.test_app import LEVEL, SIZE, _post, _write, click, drag, key

RULES = dict(LEVEL, player={"spawn": 2, "draw": 1, "delete": False, "grab": False},
             zones=[{"kind": "goal", "rect": [[1, 0], [3, 2]], "count": 1}])


@pytest.fixture
def data(tmp_path, monkeypatch):
    folder = tmp_path / "data"
    monkeypatch.setenv(ENV, str(folder))
    return folder


def make_game(tmp_path, doc, name="a_rules.json", size=SIZE):
    pygame.font.init()
    path = _write(tmp_path / name, doc)
    g = App(str(path), size=size, level_dir=str(tmp_path), screenshot_dir=str(tmp_path / "shots"))
    g.clock.budget = float("inf")
    if g.play.tool == "draw":          # a puzzle opens paused on drawing: these tests start on balls
        key(g, pygame.K_w)
    return g


def screen(g, point):
    return tuple(int(v) for v in np.rint(g.camera.world_to_screen(np.asarray(point, float))))


def drawn_strings(g):
    drawn = []
    text = g.hud.text
    g.hud.text = lambda string, *args, **kw: (drawn.append(string), text(string, *args, **kw))[1]
    g.draw(pygame.Surface(g.size))
    g.hud.text = text
    return drawn


# ---------------------------------------------------------------------------- the player's rules

def test_the_spawn_budget_holds_and_ctrl_z_gives_a_ball_back(tmp_path, data):
    g = make_game(tmp_path, RULES)
    for x in (5, 7, 9):
        click(g, screen(g, (x, 6)))
    assert g.world.count == 1 + 2 and g.play.left_of("spawn") == 0
    assert any("no balls left" in t for t in g.toasts.texts())
    assert "balls 0 of 2 left" in drawn_strings(g)
    _post(g, pygame.KEYDOWN, key=pygame.K_z, mod=pygame.KMOD_LCTRL, unicode="", scancode=0)
    assert g.world.count == 2 and g.play.left_of("spawn") == 1
    click(g, screen(g, (9, 6)))
    assert g.world.count == 3


def test_no_grab_and_no_delete_where_the_level_says_so(tmp_path, data):
    g = make_game(tmp_path, RULES)
    ball = screen(g, g.world.pos[0])
    drag(g, ball, (ball[0], ball[1] - 40))
    assert len(g.world.springs) == 0 and g.world.count == 1          # not grabbed, and no ball made
    assert any("grab" in t for t in g.toasts.texts())
    click(g, ball, button=3)
    assert g.world.count == 1 and any("delete" in t for t in g.toasts.texts())
    assert "no grab" in drawn_strings(g) and "no delete" in drawn_strings(g)


def test_a_sandbox_level_keeps_every_freedom(tmp_path, data):
    g = make_game(tmp_path, LEVEL, "a_box.json")
    for x in range(1, 12):
        click(g, screen(g, (x, 6)))
    assert g.world.count == 12 and g.play.rules_line() == []
    ball = screen(g, g.world.pos[0])
    drag(g, ball, (ball[0], ball[1] - 40), release=False)
    assert len(g.world.springs) == 2                                 # grabbed


def test_w_draws_a_segment_balls_roll_on_it_and_ctrl_z_takes_it_back(tmp_path, data):
    g = make_game(tmp_path, RULES)
    key(g, pygame.K_w)
    assert g.play.tool == "draw" and "segments 1 of 1 left" in drawn_strings(g)
    statics = len(g.world.statics)
    drag(g, screen(g, (4, 4)), screen(g, (10, 3)))
    assert len(g.world.statics) == statics + 1 and g.play.left_of("draw") == 0
    seg = g.world.level["segments"][-1]
    assert seg["radius"] == DRAWN_RADIUS and np.allclose(seg["a"], (4, 4), atol=0.05)
    drag(g, screen(g, (4, 6)), screen(g, (10, 5)))                   # over the budget
    assert len(g.world.statics) == statics + 1
    key(g, pygame.K_w)
    click(g, screen(g, (5, 5)))                                      # a ball lands on the segment and rolls off
    g.advance(30)
    assert g.world.pos[-1][1] > 3.5
    g.session.reset()                                                # R keeps what the player drew
    assert len(g.world.statics) == statics + 1 and g.play.spawned == 0
    _post(g, pygame.KEYDOWN, key=pygame.K_z, mod=pygame.KMOD_LCTRL, unicode="", scancode=0)
    assert len(g.world.statics) == statics and g.play.left_of("draw") == 1
    assert g.world.to_level()["segments"] == g.session.doc["segments"]


def test_a_puzzle_opens_paused_on_drawing_and_a_sandbox_after_it_on_balls(tmp_path, data):
    pygame.font.init()
    path = _write(tmp_path / "a_rules.json", RULES)
    _write(tmp_path / "b_box.json", LEVEL)
    g = App(str(path), size=SIZE, level_dir=str(tmp_path))
    assert g.clock.paused and g.play.tool == "draw"
    drag(g, screen(g, (4, 4)), screen(g, (10, 3)))
    assert g.play.left_of("draw") == 0
    key(g, pygame.K_RIGHTBRACKET)
    assert g.world.name == "Test box" and g.play.tool == "balls" and g.play.drawn == []


def test_no_drawing_where_the_level_allows_none(tmp_path, data):
    g = make_game(tmp_path, dict(RULES, player={"draw": 0}))
    key(g, pygame.K_w)
    assert g.play.tool == "balls" and any("no segments" in t for t in g.toasts.texts())


# ---------------------------------------------------------------------------- progress

def test_a_completion_is_kept_with_its_best_time_and_balls(tmp_path, data):
    level = dict(RULES, balls=[], player={"spawn": 3}, par={"time": 1.5, "balls": 1})
    g = make_game(tmp_path, level)
    g.play.spawn((2.0, 0.5))
    g.play.spawn((2.0, 3.0))
    g.advance(90)
    assert g.play.goal.complete
    record = Progress().get(str(tmp_path / "a_rules.json"))
    assert record["completed"] and record["fewest_balls"] == 2 and abs(record["best_time"] - 1.0) < 0.05
    assert stars(record, level["par"]) == 2                          # time met, balls not
    g.session.reset()
    g.play.spawn((2.0, 0.5))
    g.advance(90)
    record = Progress().get(str(tmp_path / "a_rules.json"))
    assert record["fewest_balls"] == 1 and record["runs"] == 2 and stars(record, level["par"]) == 3
    assert json.loads((data / "progress.json").read_text())["levels"]["a_rules.json"] == record


@pytest.mark.parametrize("content", [b"{not json", b"[1, 2]", b"\xff\xfe"])
def test_a_corrupt_progress_file_is_one_line_and_the_game_goes_on(tmp_path, data, content):
    data.mkdir()
    (data / "progress.json").write_bytes(content)
    g = make_game(tmp_path, LEVEL)
    messages = [t for t in g.toasts.texts() if "progress" in t]
    assert len(messages) == 1 and "\n" not in messages[0] and messages[0] == g.progress.error
    g = make_game(tmp_path, RULES)
    g.play.spawn((2.0, 0.5))
    g.advance(90)
    assert g.play.goal.complete and json.loads((data / "progress.json").read_text())["levels"]


def test_an_unwritable_progress_folder_is_one_line(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv(ENV, str(blocker / "data"))                   # a folder under a file
    g = make_game(tmp_path, RULES)
    g.play.spawn((2.0, 0.5))
    g.advance(90)
    assert g.play.goal.complete
    assert any(t.startswith("progress not saved") for t in g.toasts.texts())


def test_my_levels_are_keyed_apart_from_the_shipped_ones(data):
    os.makedirs(my_levels_dir())
    assert level_key(os.path.join(my_levels_dir(), "x.json")) == "my levels/x.json"
    assert level_key("/somewhere/levels/x.json") == "x.json"


# ---------------------------------------------------------------------------- the level menu

def many_levels(tmp_path, n=17, long_name=False):
    docs = [dict(LEVEL, name=f"Level {k}" + (" with a name far too long to fit in its tile at all" if long_name
                                             else "")) for k in range(n)]
    for k, doc in enumerate(docs):
        _write(tmp_path / f"{k:02d}_l.json", doc)
    return make_game(tmp_path, docs[0], "00_l.json", size=(1280, 720))


def on_screen(menu, k):
    rect = menu.cell_rect(k)
    return rect.top >= TOP and rect.bottom <= menu.app.size[1]


def test_the_menu_scrolls_by_keys_and_keeps_the_selected_tile_on_screen(tmp_path, data):
    g = many_levels(tmp_path)
    key(g, pygame.K_l)
    menu = g.top
    assert isinstance(menu, LevelMenuMode) and len(menu.files) == 17
    assert not on_screen(menu, 16), "17 tiles do not fit a 720 px window"
    for _ in range(20):
        key(g, pygame.K_DOWN)
        assert on_screen(menu, menu.selected)
    assert menu.selected >= 16 - menu.columns() + 1 and menu.scroll > 0
    key(g, pygame.K_HOME)
    assert menu.selected == 0 and menu.scroll == 0
    key(g, pygame.K_END)
    assert menu.selected == 16 and on_screen(menu, 16)
    key(g, pygame.K_PAGEUP)
    assert on_screen(menu, menu.selected)
    menu.update(0)
    g.draw(pygame.Surface(g.size))


def test_the_wheel_scrolls_within_the_tiles_and_a_click_opens_what_is_under_it(tmp_path, data):
    g = many_levels(tmp_path)
    key(g, pygame.K_l)
    menu = g.top
    for _ in range(50):
        _post(g, pygame.MOUSEWHEEL, x=0, y=-1, precise_x=0.0, precise_y=-1.0)
    assert menu.scroll == menu.max_scroll() > 0 and on_screen(menu, 16)
    _post(g, pygame.MOUSEWHEEL, x=0, y=3, precise_x=0.0, precise_y=3.0)
    assert 0 < menu.scroll < menu.max_scroll()
    for _ in range(50):
        _post(g, pygame.MOUSEWHEEL, x=0, y=1, precise_x=0.0, precise_y=1.0)
    assert menu.scroll == 0
    _post(g, pygame.MOUSEWHEEL, x=0, y=-2, precise_x=0.0, precise_y=-2.0)
    k = next(j for j in range(17) if on_screen(menu, j) and menu.cell_rect(j).top > 300)
    click(g, menu.cell_rect(k).center)
    assert g.top is g.play and g.world.name == f"Level {k}"


def test_long_names_are_cut_to_their_tile_and_my_levels_come_after_under_a_heading(tmp_path, data):
    g = many_levels(tmp_path, n=3, long_name=True)
    os.makedirs(my_levels_dir())
    _write(tmp_path / "data" / "my levels" / "zz.json", dict(LEVEL, name="Mine " + "x" * 90))
    key(g, pygame.K_l)
    menu = g.top
    assert menu.groups == [0, 0, 0, 1]
    for _ in range(5):
        menu.update(0)
    font = g.hud.font(15, True)
    strings = drawn_strings(g)
    captions = [s for s in strings if s.startswith(("0  Level", "1  Level", "2  Level", "Mine"))]   # files 00_ to 02_
    assert len(captions) == 4 and all(s.endswith("...") for s in captions)
    assert all(font.size(s)[0] <= menu.cell_rect(0).width for s in captions)
    assert "Levels" in strings and any(s.startswith("My levels") for s in strings)
    assert menu.cell_rect(3).top > menu.cell_rect(2).bottom                 # a row of its own


def test_the_menu_shows_stars_for_a_kept_record(tmp_path, data):
    g = many_levels(tmp_path, n=2)
    g.progress.record(str(tmp_path / "01_l.json"), 3.0, 0, 0)
    key(g, pygame.K_l)
    for _ in range(3):
        g.top.update(0)
    strings = drawn_strings(g)
    assert "best 3.0 s" in strings and strings.count("complete") == 1
