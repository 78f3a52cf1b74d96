"""A world that blows up (Euler on a stiff spring) says so in one line, never on stderr."""
import json
import warnings

import numpy as np
import pygame
import pytest

from game.draw import hud as hud_module
from game.app.loop import App
from game.modes.play_rules import RECOVERY_INTEGRATOR, blow_up_line

FRAME = 1 / 60
SIZE = (800, 450)
# Two balls of 0.196 kg on a spring: omega = sqrt(2 k / m) = 600 rad/s, so omega h = 2.5 at
# the 1/240 s sub-step: explicit Euler grows the swing by sqrt(1 + 2.5^2) = 2.7 a sub-step
# (inf within a hundred ticks), RK4 is stable there (up to omega h = 2.8).
STIFF = {
    "name": "Stiff spring",
    "integrator": "euler",
    "gravity": [0, 0],
    "bounds": [0, 0, 16, 9],
    "segments": [{"a": [0, 0], "b": [16, 0]}],      # a floor only: no wall holds the swing
    "balls": [{"pos": [6, 4.5], "radius": 0.25}, {"pos": [9, 4.5], "radius": 0.25}],
    "springs": [{"a": 0, "b": 1, "stiffness": 35300, "damping": 0, "rest": 2.5}],
}


@pytest.fixture
def game(tmp_path):
    pygame.font.init()
    path = tmp_path / "stiff.json"
    path.write_text(json.dumps(STIFF))
    g = App(str(path), size=SIZE, level_dir=str(tmp_path), screenshot_dir=str(tmp_path / "shots"))
    g.clock.budget = float("inf")
    return g


def _run_until_blown(g, surface, limit=600):
    for _ in range(limit):
        g.update(FRAME)
        g.draw(surface)
        if g.play.blew_up_under is not None:
            return True
    return False


def _key(g, k):
    g.handle_event(pygame.event.Event(pygame.KEYDOWN, key=k, mod=0, unicode="", scancode=0))


def test_euler_on_a_stiff_spring_blows_up_and_the_game_says_so_in_one_line_not_on_stderr(game, capfd, monkeypatch):
    lines = []
    draw_alert = hud_module.Hud.draw_alert
    monkeypatch.setattr(hud_module.Hud, "draw_alert",
                        lambda self, surface, line: (lines.append(line), draw_alert(self, surface, line)))
    surface = pygame.Surface(SIZE)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert _run_until_blown(game, surface)
        ticks = game.stats.ticks
        for _ in range(5):                           # it stays drawn, and the world waits
            game.update(FRAME)
            game.draw(surface)
    assert game.world.blown_up()        # the game's test (issue 28: finite but past the format's speeds counts)
    assert game.play.blew_up_under == "euler"
    assert game.clock.paused and game.stats.ticks == ticks
    assert lines and lines[-1] == blow_up_line("euler")
    assert "euler" in lines[-1] and "rk4" in lines[-1] and "\n" not in lines[-1]
    # The line lies on the alarm colour along the bottom row.
    r, g, b = surface.get_at((3, SIZE[1] - 3))[:3]
    assert r > 100 and g < 60 and b < 60
    assert [str(w.message) for w in caught] == []
    out, err = capfd.readouterr()
    assert err == ""


def test_i_restarts_a_blown_up_world_under_rk4_which_holds_the_spring(game):
    surface = pygame.Surface(SIZE)
    assert _run_until_blown(game, surface)
    _key(game, pygame.K_i)
    world = game.world
    assert world.integrator == RECOVERY_INTEGRATOR
    assert np.isfinite(world.pos).all() and world.time == 0.0
    assert game.play.blew_up_under is None and not game.clock.paused
    for _ in range(300):
        game.update(FRAME)
    assert game.world.time > 4.9
    assert np.isfinite(game.world.pos).all() and np.isfinite(game.world.vel).all()
    assert game.play.blew_up_under is None


def test_r_resets_a_blown_up_world_and_runs_it_again_under_its_integrator(game):
    surface = pygame.Surface(SIZE)
    assert _run_until_blown(game, surface)
    _key(game, pygame.K_r)
    assert np.isfinite(game.world.pos).all() and game.world.integrator == "euler"
    assert game.play.blew_up_under is None and not game.clock.paused


def test_r_keeps_a_pause_the_player_chose(game):
    _key(game, pygame.K_SPACE)
    _key(game, pygame.K_r)
    assert game.clock.paused


def test_a_fixed_level_reloaded_after_a_blow_up_runs_again(game):
    assert _run_until_blown(game, pygame.Surface(SIZE))
    softer = dict(STIFF, springs=[dict(STIFF["springs"][0], stiffness=40)])
    with open(game.session.path, "w") as f:                  # the author fixes the file
        f.write(json.dumps(softer))
    game.update(1.0)                                         # past the reload poll
    assert game.world.springs.stiffness[0] == 40
    assert game.play.blew_up_under is None and not game.clock.paused
    t = game.world.time
    game.update(FRAME)
    assert game.world.time > t
