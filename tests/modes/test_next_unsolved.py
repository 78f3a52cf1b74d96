"""N: the next level with a goal not yet completed (issue 38), from play (and the completion
banner, which names the key) and in the level menu; levels without a goal, completed ones and
files that do not load are passed over, round to the first."""
import json

import pygame
import pytest

from game.app.loop import App
from game.app.progress import Progress, next_unsolved
from game.modes.menu import LevelMenuMode
from tests.app.test_app import key
from tests.conftest import COMPILED

FLOOR = {"segments": [{"a": [0, 0], "b": [16, 0]}], "bounds": [0, 0, 16, 9]}
GOAL = {"zones": [{"kind": "goal", "rect": [[1, 0], [3, 2]], "count": 1}]}


@pytest.fixture
def folder(tmp_path):
    for name, extra in (("a", GOAL), ("b", {}), ("c", GOAL), ("d", GOAL)):
        (tmp_path / f"{name}.json").write_text(json.dumps({**FLOOR, **extra, "name": name}))
    (tmp_path / "e.json").write_text("{ broken")
    return tmp_path


def test_next_unsolved_passes_over_levels_without_a_goal_completed_ones_and_broken_files(folder):
    files = sorted(str(p) for p in folder.glob("*.json"))
    progress = Progress(str(folder / "progress.json"))
    progress.record(files[2], 3.0, 0, 0)                  # c is solved
    a, d = files[0], files[3]
    assert next_unsolved(progress, files, a) == d          # b has no goal, c is solved
    assert next_unsolved(progress, files, d) == a          # e does not load: round to the first
    assert next_unsolved(progress, files, str(folder / "elsewhere.json")) == a
    progress.record(a, 1.0, 0, 0)
    progress.record(d, 1.0, 0, 0)
    assert next_unsolved(progress, files, a) is None


def test_n_in_play_and_in_the_menu_goes_to_the_next_unsolved(folder, monkeypatch):
    pygame.font.init()
    game = App(str(folder / "a.json"), size=(800, 450), level_dir=str(folder),
               screenshot_dir=str(folder / "shots"), compiled=COMPILED)
    said = []
    monkeypatch.setattr(game, "toast", said.append)
    game.progress.record(str(folder / "c.json"), 2.0, 0, 0)
    key(game, pygame.K_n)
    assert game.session.path.endswith("d.json") and said[-1] == "next unsolved: d"
    key(game, pygame.K_n)
    assert game.session.path.endswith("a.json")
    game.push(LevelMenuMode(game))
    menu = game.top
    key(game, pygame.K_n)
    assert menu.files[menu.selected].endswith("d.json")
    for path in ("a.json", "d.json"):
        game.progress.record(str(folder / path), 1.0, 0, 0)
    key(game, pygame.K_n)
    assert said[-1] == "every level with a goal is solved" and menu.files[menu.selected].endswith("d.json")
