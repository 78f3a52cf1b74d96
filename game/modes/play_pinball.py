"""Pinball as a game (issue 38), for a level with ``"pinball"``: one ball at a time, launched
from the plunger by holding Down and letting go (the longer the hold, up to CHARGE_TIME, the
faster: from TAP of the level's speed to all of it), a number of lives (a ball lost to a kill
zone costs one; the last lost is game over), the bumpers' score (game.goals.score)
and the best score kept in the progress file. R starts a new game. Plain functions and state
of the PlayMode (``play.pinball``), as play_bodies are; the launch goes through the world's
journaled calls (World.add_ball, balls.kick), so a replay plays a game back to the bit."""
import numpy as np
import pygame

from game.goals import score
from game.physics import balls as ball_rows

CHARGE_TIME = 1.0           # s of holding Down for a full launch
TAP = 0.35                  # a tap's launch, of the full speed
PLUNGER_KEYS = (pygame.K_DOWN, pygame.K_KP2)
WAITING = 3.0               # m/s: a ball slower than this, within 3 radii of the plunger, waits to be launched


class Pinball:
    """One game: ``lives`` left (the ball in play counts), ``charge`` 0..1 while Down is held
    (None when not), ``over`` once the last ball is lost, ``best`` the best score so far."""

    def __init__(self, spec, best=0):
        self.plunger = np.asarray(spec["plunger"], float)
        self.speed, self.radius = float(spec["speed"]), float(spec["radius"])
        self.lives = int(spec["lives"])
        self.charge = None
        self.over = False
        self.best = int(best or 0)
        self.in_play = False        # a ball has been launched and not yet lost


def for_play(play):
    """The game of the level being played, or None for a level without ``"pinball"``."""
    spec = play.app.session.doc.get("pinball")
    if spec is None:
        return None
    record = play.app.progress.get(play.app.session.path) if play.app.progress is not None else None
    return Pinball(spec, (record or {}).get("best_score", 0))


def key(play, event, held):
    """Down pressed (``held``) or let go: charge the plunger, then launch. False for other keys."""
    game = play.pinball
    if game is None or event.key not in PLUNGER_KEYS:
        return False
    if held:
        if game.over:
            play.app.toast("game over: R for a new game")
        else:
            game.charge = 0.0       # (a ball still settling on the plunger is launched at the release)
    elif game.charge is not None:
        launch(play, game.charge)
    return True


def update(play, frame_dt):
    """While Down is held the plunger charges (a frame's worth of real time)."""
    game = play.pinball
    if game is not None and game.charge is not None:
        game.charge = min(1.0, game.charge + frame_dt / CHARGE_TIME)


def waiting(play):
    """The index of a ball resting on the plunger (launched too softly, it fell back), or None."""
    world = play.app.session.world
    if not world.count:
        return None
    near = np.hypot(*(world.pos - play.pinball.plunger).T) < 3 * play.pinball.radius
    slow = np.hypot(*world.vel.T) < WAITING
    found = np.flatnonzero(near & slow)
    return int(found[0]) if len(found) else None


def launch(play, charge):
    """Let go of the plunger: the ball waiting on it (a new one, if none is in play) goes up at
    TAP..1 of the level's speed."""
    game, world = play.pinball, play.app.session.world
    game.charge = None
    velocity = (0.0, game.speed * (TAP + (1.0 - TAP) * charge))
    ball = waiting(play)
    if ball is not None:
        ball_rows.kick(world, ball, velocity)
    elif not game.in_play and not game.over:
        world.add_ball(game.plunger, velocity, radius=game.radius)
        game.in_play = True
    play.app.clock.paused = False


def after_ticks(play):
    """A ball lost (no ball left in the world): a life gone; the last one, game over and the
    best score kept."""
    game = play.pinball
    if game is None:
        return
    if play.app.session.world.count:    # (a ball a replay launched is in play too)
        game.in_play = True
        return
    if not game.in_play:
        return
    game.in_play = False
    game.lives -= 1
    points = score(play.app.session.world) or 0
    if game.lives > 0:
        play.app.toast(f"ball lost: {game.lives} left (hold Down, let go to launch)")
        return
    game.over = True
    best = points > game.best
    game.best = max(game.best, points)
    progress = play.app.progress
    if best and progress is not None and not progress.record_score(play.app.session.path, points):
        play.app.toast(progress.error)
        return
    play.app.toast(f"game over: {points:,} points" + (" - a new best!" if best else f" (best {game.best:,})")
                   + "   R: a new game")
