"""Hints in a puzzle (issue 38): after three failed tries the first step of the solution is
drawn faintly on the level, after five Shift+H draws all of it and the progress file marks it
seen; a run that did not tick, or that completed, is no failed try."""
import numpy as np
import pygame
import pytest

from game.app.loop import App
from game.app.progress import Progress
from game.draw.theme import SOLUTION_HINT
from game.modes.play_hints import HINT_AFTER, SOLUTION_AFTER, pieces, tries
from tests.app.test_app import frames, key
from tests.conftest import COMPILED

LEVEL = "levels/13_two_cups.json"       # two segments: the first a hint, both the solution
SIZE = (800, 450)


@pytest.fixture
def game(monkeypatch):
    pygame.font.init()
    g = App(LEVEL, size=SIZE, compiled=COMPILED)
    g.clock.budget = float("inf")
    said = []
    monkeypatch.setattr(g, "toast", said.append)
    g.said = said
    return g


def shift_h(g):
    g.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_h, mod=pygame.KMOD_SHIFT, unicode="H", scancode=0))


def failed_run(g):
    key(g, pygame.K_SPACE)              # the puzzle opens (and restarts) paused: run it
    frames(g, 30)
    key(g, pygame.K_r)


def hint_pixels(g):
    surface = pygame.Surface(SIZE)
    g.draw(surface)
    return (pygame.surfarray.pixels3d(surface) == np.array(SOLUTION_HINT)).all(axis=2).sum()


def test_three_failed_tries_show_the_first_step_and_five_let_shift_h_show_all(game):
    first, second = game.session.doc["solution"]["segments"]
    assert pieces(game.play) == [] and hint_pixels(game) == 0
    key(game, pygame.K_r)                                  # R before any tick: no try
    assert tries(game.play) == 0
    for n in range(1, HINT_AFTER + 1):
        failed_run(game)
        assert tries(game.play) == n
    assert game.said[-1].startswith("stuck?")
    assert pieces(game.play) == [("segment", first["a"], first["b"])]
    assert hint_pixels(game) > 50                          # drawn, dashed, on the level
    shift_h(game)
    assert game.said[-1].endswith(f"{SOLUTION_AFTER - HINT_AFTER} to go")
    for _ in range(SOLUTION_AFTER - HINT_AFTER):
        failed_run(game)
    assert "Shift+H" in game.said[-1]
    shift_h(game)
    assert pieces(game.play) == [("segment", first["a"], first["b"]), ("segment", second["a"], second["b"])]
    assert Progress().get(LEVEL)["solution_seen"] is True
    key(game, pygame.K_RIGHTBRACKET)                       # another level has its own tries
    assert tries(game.play) == 0 and pieces(game.play) == []


def test_a_completed_run_is_no_failed_try(game):
    game.play.drawn = []                                   # draw the solution, as a player would
    for s in game.session.doc["solution"]["segments"]:
        from game.modes.play_actions import draw_segment
        draw_segment(game.play, s["a"], s["b"])
    key(game, pygame.K_SPACE)
    for _ in range(60 * 20):
        frames(game, 1)
        if game.play.complete_at is not None:
            break
    assert game.play.complete_at is not None
    key(game, pygame.K_r)
    assert tries(game.play) == 0
