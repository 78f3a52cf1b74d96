"""The ink budget (issue 38): "player": {"ink": m} limits the metres of segment a player draws
in a run, beside the count; a segment longer than the ink left is refused in one line, Ctrl+Z
gives its ink back while building and not once the run has ticked, and the row under the bar
shows what is left. Every shipped puzzle's solution fits its ink."""
import json
import math

import pygame
import pytest

from game.app.loop import App
from game.level import LevelError, level_files, load, loads
from game.modes.play_actions import draw_segment
from game.paths import LEVELS
from tests.app.test_app import frames, key
from tests.conftest import COMPILED

LEVEL = "levels/14_scatter.json"


def test_every_shipped_solution_fits_its_ink_and_its_count():
    inked = 0
    for path in level_files(LEVELS):
        doc = load(path)
        segments = doc.get("solution", {}).get("segments", [])
        if doc["player"]["ink"] is not None:
            inked += 1
            assert sum(math.dist(s["a"], s["b"]) for s in segments) <= doc["player"]["ink"], path
        if doc["player"]["draw"] is not None:
            assert len(segments) <= doc["player"]["draw"], path
    assert inked >= 4


def test_ink_is_checked_like_the_rest_of_the_player_block():
    raw = json.loads(open(LEVEL).read())
    with pytest.raises(LevelError) as e:
        loads(json.dumps({**raw, "player": {**raw["player"], "ink": -1}}))
    assert "ink" in str(e.value) and "\n" not in str(e.value)


def test_a_segment_longer_than_the_ink_left_is_refused_and_undo_gives_ink_back_only_while_building(monkeypatch):
    pygame.font.init()
    game = App(LEVEL, size=(800, 450), compiled=COMPILED)
    game.clock.budget = float("inf")
    said = []
    monkeypatch.setattr(game, "toast", said.append)
    play, ink = game.play, load(LEVEL)["player"]["ink"]
    assert play.left_of("ink") == ink and any(text.startswith("ink ") for text, _ in play.rules_line())
    assert draw_segment(play, (2.0, 10.0), (2.0 + ink + 1.0, 10.0)) is None      # too long for the ink
    assert said[-1].startswith("not enough ink") and play.drawn == []
    assert draw_segment(play, (2.0, 10.0), (12.0, 10.0)) is not None               # 10 m
    assert play.left_of("ink") == pytest.approx(ink - 10.0)
    play.undo()                                                                    # building: it comes back
    assert play.left_of("ink") == pytest.approx(ink)
    draw_segment(play, (2.0, 10.0), (12.0, 10.0))
    key(game, pygame.K_SPACE)
    frames(game, 5)
    play.undo()                                                                    # running: it stays spent
    assert play.drawn == [] and play.left_of("ink") == pytest.approx(ink - 10.0)
    key(game, pygame.K_r)                                                          # a new run: all of it
    assert play.left_of("ink") == pytest.approx(ink)


def _answer(raw, segments):
    """The level with these segments drawn as a player draws them (game.goals.with_solution)."""
    from game.goals import with_solution
    return with_solution({**raw, "solution": {"segments": segments}})


def _completes(doc):
    from game.headless import simulate
    from game.level import complete
    from game.physics.world import World
    return simulate(World.from_level(complete(doc)), 3600, until_complete=True)["goal"]["complete"]


def _longer(segments, factor):
    out = []
    for s in segments:
        (ax, ay), (bx, by) = s["a"], s["b"]
        mx, my = (ax + bx) / 2, (ay + by) / 2
        out.append({"a": [mx + (ax - mx) * factor, my + (ay - my) * factor],
                    "b": [mx + (bx - mx) * factor, my + (by - my) * factor]})
    return out


@pytest.mark.parametrize("name", ["12_under_the_roof", "14_scatter", "15_lava_floor", "17_long_way_round"])
def test_the_straight_ramp_from_the_spawner_to_the_goal_fails_where_ink_is_the_budget(name):
    """The naive answer, one straight ramp from just under the spawner to just over the goal,
    fits the ink of these levels, and does not complete in a minute."""
    raw = json.load(open(f"{LEVELS}/{name}.json", encoding="utf-8"))
    (sx, sy) = raw["spawners"][0]["pos"]
    (x0, _), (x1, y1) = next(z for z in raw["zones"] if z["kind"] == "goal")["rect"]
    ramp = [{"a": [sx, sy - 1.0], "b": [(x0 + x1) / 2, y1 + 0.5]}]
    assert math.dist(ramp[0]["a"], ramp[0]["b"]) <= raw["player"]["ink"]
    assert not _completes(_answer(raw, ramp))


@pytest.mark.parametrize("name", ["14_scatter", "15_lava_floor", "17_long_way_round"])
def test_the_ink_binds_the_solution_drawn_30_percent_longer_works_but_is_refused(name):
    """Without the ink the same answer drawn generously (each segment 1.3 times as long about
    its middle) completes; its ink is more than the level gives, so play refuses its last
    segment: the budget, not the count, is what the player must plan for."""
    raw = json.load(open(f"{LEVELS}/{name}.json", encoding="utf-8"))
    generous = _longer(raw["solution"]["segments"], 1.3)
    assert _completes(_answer(raw, generous))
    assert sum(math.dist(s["a"], s["b"]) for s in generous) > raw["player"]["ink"]
    assert len(generous) <= raw["player"]["draw"]              # the count alone would allow it
    pygame.font.init()
    game = App(f"{LEVELS}/{name}.json", size=(800, 450), compiled=COMPILED)
    drawn = [draw_segment(game.play, tuple(s["a"]), tuple(s["b"])) for s in generous]
    assert drawn[-1] is None and all(d is not None for d in drawn[:-1])
