"""Issue 28, item 9: text the renderer cannot draw. A level's name or description with a
control character (NUL, bell, a line break) or with nothing visible (a zero-width space) is
refused by the loader in one line (where and why); whatever text still reaches the screen
(a file name as the default name, a message) draws, never raises."""
from game.paths import ROOT as ROOT_DIR  # noqa: E402
import json
import os
import subprocess
import sys

import pygame
import pytest

from game.draw.hud import Hud, drawable
from game.level import LevelError, loads

ROOT = ROOT_DIR
BASE = {"segments": [{"a": [0, 0], "b": [32, 0]}], "balls": [{"pos": [5, 5]}]}
ENV = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}

BAD = [("a\u0000b", "control"), ("\u200b", "invisible"), ("x\u0007y", "control"), ("two\nlines", "control"),
       ("\u200d\u2060 ", "invisible"), ("\u0301", "invisible"), ("esc\u001b[31m", "control"), ("c1\u0085", "control")]


@pytest.mark.parametrize("key", ["name", "description"])
@pytest.mark.parametrize("text, why", BAD)
def test_the_loader_refuses_text_no_font_draws_in_one_line(key, text, why):
    with pytest.raises(LevelError) as e:
        loads(json.dumps({**BASE, key: text}), "x.json")
    line = str(e.value)
    assert "\n" not in line and line.startswith("x.json:1:") and f"{key}:" in line
    assert ("control characters" if why == "control" else "visible text") in line


@pytest.mark.parametrize("text", ["Ball pit", "Bälle 球 ⚽", "e\u0301t\u00e9", "zero\u200bwidth inside", "tab-free"])
def test_ordinary_text_and_zero_width_inside_visible_text_load(text):
    assert loads(json.dumps({**BASE, "name": text, "description": text}))["name"] == text


@pytest.mark.parametrize("text", ["a\u0000b", "\u200b", "\u0301", "", "x\u0007\n\ty", "\u0000" * 500])
def test_the_hud_draws_any_text(text):
    pygame.font.init()
    hud = Hud()
    surface = hud.text(text, 15)
    assert surface.get_height() > 0
    hud.wrap(text + " more words", 15, 100)
    assert "\u0000" not in drawable(text) and drawable("plain") == "plain"


def run(*args):
    return subprocess.run([sys.executable, os.path.join(ROOT, "main.py"), *args], capture_output=True, text=True,
                          timeout=300, cwd=ROOT, env=ENV)


@pytest.mark.parametrize("text", ["a\u0000b", "\u200b"])
def test_screenshot_and_check_refuse_such_a_level_in_one_line(tmp_path, text):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({**BASE, "description": text}))
    for args in (("--screenshot", str(tmp_path / "s.png"), "--level", str(path), "--steps", "1"),
                 ("--check", str(path))):
        done = run(*args)
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert len(done.stderr.splitlines()) == 1 and "description" in done.stderr


def test_the_menu_draws_a_level_named_by_its_file_with_a_control_character(tmp_path):
    """A level without a name takes its file's: that one is not checked by the loader, the
    drawing cleans it."""
    from game.app.loop import App
    from game.modes.menu import LevelMenuMode
    pygame.font.init()
    odd = tmp_path / "odd\u0001name.json"
    odd.write_text(json.dumps(BASE))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**BASE, "name": "a\u0000b"}))
    app = App(str(odd), size=(800, 450), level_dir=str(tmp_path), screenshot_dir=str(tmp_path / "shots"))
    menu = LevelMenuMode(app)
    surface = pygame.Surface((800, 450))
    for _ in range(2 * len(menu.files) + 2):
        menu.update(1 / 60)
        menu.draw(surface)
    assert menu.thumbs[str(bad)][0] is None              # refused: "does not load"
    assert menu.thumbs[str(odd)][0] is not None


def test_hot_reload_of_a_name_with_nul_keeps_the_world_and_says_why(tmp_path):
    from game.app.loop import App
    pygame.font.init()
    path = tmp_path / "live.json"
    path.write_text(json.dumps({**BASE, "name": "fine"}))
    app = App(str(path), size=(800, 450), level_dir=str(tmp_path), screenshot_dir=str(tmp_path / "shots"))
    app.clock.budget = float("inf")
    world = app.world
    path.write_text(json.dumps({**BASE, "name": "bro\u0000ken"}))
    surface = pygame.Surface((800, 450))
    app.update(1 / 60)
    app.session.watcher.wait(30.0)
    for _ in range(40):
        app.update(1 / 60)
        app.draw(surface)
    assert "name: expected one line of text without control characters" in app.session.error
    assert app.world is world and app.world.name == "fine"
