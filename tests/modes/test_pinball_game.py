"""Pinball as a game (issue 38): level 33 launches one ball from the plunger (hold Down, let
go: the longer the hold the faster), counts lives as balls are lost, ends the game after the
last, keeps the best score in the progress file, and allows no drawing; a game replays."""
import json

import numpy as np
import pygame
import pytest

from game import replay as replays
from game.app.loop import App
from game.app.progress import Progress
from game.level import LevelError, load, loads
from game.modes.play_pinball import CHARGE_TIME, TAP
from game.physics.world import World
from tests.app.test_app import frames, key
from tests.conftest import COMPILED

LEVEL = "levels/33_pinball_game.json"
SIZE = (800, 450)


@pytest.fixture
def game():
    pygame.font.init()
    g = App(LEVEL, size=SIZE, compiled=COMPILED)
    g.clock.budget = float("inf")
    return g


def down(g, held):
    kind = pygame.KEYDOWN if held else pygame.KEYUP
    g.handle_event(pygame.event.Event(kind, key=pygame.K_DOWN, mod=0, unicode="", scancode=0))


def launch(g, seconds):
    down(g, True)
    frames(g, max(0, round(seconds * 60)))
    down(g, False)


def test_the_pinball_key_is_checked_and_filled_in_like_the_rest_of_the_format():
    doc = load(LEVEL)
    assert doc["pinball"] == {"plunger": [11.7, 0.65], "speed": 17, "lives": 3, "radius": 0.3}
    raw = json.loads(open(LEVEL).read())
    assert loads(json.dumps({**raw, "pinball": {"plunger": [1, 1]}}))["pinball"]["lives"] == 3
    for bad, words in (({"speed": 10}, "plunger"), ({"plunger": [1, 1], "lives": 0}, "lives"),
                       ({"plunger": [1, 1], "live": 3}, "live")):
        with pytest.raises(LevelError) as e:
            loads(json.dumps({**raw, "pinball": bad}))
        assert words in str(e.value) and "\n" not in str(e.value)


def test_a_longer_hold_launches_faster_and_one_ball_is_in_play_at_a_time(game):
    world = game.session.world
    speed = load(LEVEL)["pinball"]["speed"]
    assert world.count == 0 and game.play.pinball.lives == 3
    launch(game, 0.0)                                         # a tap
    assert world.count == 1
    first = world.ids[0]
    # The tap's ball went up at TAP of the speed less a tick or two of gravity; it falls back
    # onto the plunger and waits there: a full hold now launches the same ball, faster.
    assert 0 < world.vel[0, 1] <= TAP * speed
    frames(game, 150)
    assert world.count == 1 and np.hypot(*world.vel[0]) < 1.5
    launch(game, CHARGE_TIME + 0.2)
    assert world.count == 1 and world.ids[0] == first
    assert world.vel[0, 1] == speed                           # full charge: the whole speed, no tick yet
    frames(game, 60)
    assert world.pos[0, 0] < 11.3 or world.pos[0, 1] > 10          # up the lane, into the table
    launch(game, 1.0)                                         # no second ball while one plays
    assert world.count == 1


def test_balls_lost_cost_lives_and_the_last_ends_the_game_with_the_best_score_kept(game, monkeypatch):
    said = []
    monkeypatch.setattr(game, "toast", said.append)
    world = game.session.world
    for lost in range(3):
        launch(game, CHARGE_TIME)
        frames(game, 30)
        assert world.count == 1
        world.kicks = 5 * (lost + 1)                          # the bumpers' score so far
        world.remove_balls([0])                               # past the flippers, into the drain
        frames(game, 1)
        assert game.play.pinball.lives == 2 - lost
    assert game.play.pinball.over and said[-1].startswith("game over: 1,500 points - a new best!")
    launch(game, CHARGE_TIME)
    assert world.count == 0 and said[-1] == "game over: R for a new game"
    assert Progress().get(LEVEL)["best_score"] == 1500
    key(game, pygame.K_r)
    assert game.play.pinball.lives == 3 and not game.play.pinball.over and game.play.pinball.best == 1500
    key(game, pygame.K_w)
    assert "no segments" in said[-1] or "draws" in said[-1]     # drawing is not allowed here


def test_a_game_replays_to_the_same_bits_and_a_relaunch_is_a_journaled_kick(game):
    launch(game, 0.1)                                         # too soft: it falls back...
    frames(game, 240)
    launch(game, CHARGE_TIME)                                 # ...and is launched again (balls.kick)
    for k in range(8):
        down_key = pygame.K_z if k % 2 == 0 else pygame.K_SLASH
        game.handle_event(pygame.event.Event(pygame.KEYDOWN, key=down_key, mod=0, unicode="", scancode=0))
        frames(game, 10)
        game.handle_event(pygame.event.Event(pygame.KEYUP, key=down_key, mod=0, unicode="", scancode=0))
        frames(game, 20)
    world = game.session.world
    assert "balls.kick" in {e[1] for e in world.journal.entries}
    replay = replays.checked(json.loads(json.dumps(replays.document(world, game.session.doc))))
    for execution in ("compiled", "numpy"):
        assert replays.play(World.from_level(replay["level"], execution=execution, compiled=COMPILED),
                            replay)["match"] is True
