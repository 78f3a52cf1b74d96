"""Goal status: the headless --json summary says where the goal stands, and the game's
LEVEL COMPLETE says when it was reached."""
import argparse
import json

import pygame

from game.app.loop import App
from game.headless import run_headless
from game.physics.world import TICK

CUP = {"name": "Cup", "bounds": [0, 0, 10, 10], "gravity": [0, -9.81],
       "polylines": [{"points": [[0, 10], [0, 0], [10, 0], [10, 10]]}],
       "balls": [{"pos": [2, 0.25], "radius": 0.25}, {"pos": [5, 3], "radius": 0.25}],
       "zones": [{"kind": "goal", "rect": [[0, 0], [10, 1]], "count": 2}]}


def _headless(path, capsys, steps):
    args = argparse.Namespace(level=str(path), steps=steps, integrator=None, json=True, save=None)
    assert run_headless(args) == 0
    return json.loads(capsys.readouterr().out)


def test_json_reports_the_goal_and_when_it_was_complete(tmp_path, capsys):
    path = tmp_path / "cup.json"
    path.write_text(json.dumps(CUP))
    early = _headless(path, capsys, 5)
    assert early["goal"] == {"inside": 1, "needed": 2, "complete": False, "complete_at": None}
    late = _headless(path, capsys, 120)
    # the second ball falls 3 m - 0.25 m... its centre enters y <= 1 at t = sqrt(2 * 2 / 9.81)
    assert late["goal"]["inside"] == 2 and late["goal"]["complete"]
    assert abs(late["goal"]["complete_at"] - (2 * 2 / 9.81) ** 0.5) <= 2 * TICK


def test_json_has_no_goal_where_the_level_has_none(tmp_path, capsys):
    path = tmp_path / "plain.json"
    path.write_text(json.dumps(dict(CUP, zones=[])))
    assert "goal" not in _headless(path, capsys, 3)


def test_level_complete_shows_the_time_it_took(tmp_path):
    path = tmp_path / "cup.json"
    path.write_text(json.dumps(CUP))
    pygame.font.init()
    app = App(str(path), size=(800, 450), level_dir=str(tmp_path))
    app.clock.budget = float("inf")
    surface = pygame.Surface((800, 450))
    for _ in range(120):
        app.update(TICK)
    assert abs(app.play.complete_at - (2 * 2 / 9.81) ** 0.5) <= 2 * TICK
    assert "level complete!" in app.toasts.texts()
    drawn = []
    text = app.hud.text
    app.hud.text = lambda string, *args, **kw: (drawn.append(string), text(string, *args, **kw))[1]
    app.draw(surface)
    assert "LEVEL COMPLETE" in drawn
    assert any(s.startswith(f"in {app.play.complete_at:.1f} s") for s in drawn)
    app.session.reset()
    assert app.play.complete_at is None
