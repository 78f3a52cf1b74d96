"""Impact sounds. Without an audio device the game is silent: no error, no warning.

The world reports the impacts of its last tick (``impact_speeds`` m/s, ``impact_points``), its
bodies theirs (``world.bodies.impact_speeds``, ``impact_points``); ``world_impacts`` takes both.
The loudest few above MIN_SPEED play, louder the faster, panned to where they happened.
"""
import contextlib
import os
import sys

import numpy as np
import pygame

from game.paths import ASSETS

from game.physics.collide import IMPACT_SPEED as MIN_SPEED   # m/s: slower impacts are silent (and not reported)

SOUND_FILES = {"tick": "impact_tick.wav", "knock": "impact_knock.wav", "thud": "impact_thud.wav"}

FULL_SPEED = 12.0        # m/s: an impact this fast plays at full volume
MAX_PER_TICK = 4         # sounds started per tick at most, so a pile does not roar
CHANNELS = 16            # mixer channels: sounds that may overlap
KNOCK_SPEED = 3.0        # m/s: at and above this a knock, below a light tick
THUD_SPEED = 8.0         # m/s: at and above this a thud
MASTER_VOLUME = 0.6


def volume_for(speed):
    """Volume in [0, 1] for an impact speed in m/s: 0 below MIN_SPEED, rising to 1 at FULL_SPEED."""
    x = np.clip((np.asarray(speed, float) - MIN_SPEED) / (FULL_SPEED - MIN_SPEED), 0.0, 1.0)
    return x ** 0.6


def pick(speeds, limit=MAX_PER_TICK):
    """Indices of the loudest impacts to play: at most ``limit``, all at MIN_SPEED or faster."""
    speeds = np.asarray(speeds, float).reshape(-1)
    loud = np.nonzero(np.isfinite(speeds) & (speeds >= MIN_SPEED))[0]
    if len(loud) > limit:
        loud = loud[np.argsort(speeds[loud])[::-1][:limit]]
    return loud


def world_impacts(world):
    """(points (K, 2) m, speeds (K,) m/s): the impacts of the world's last tick, the balls' and
    then the bodies' (a box landing, a plank striking a ball), one list for play_impacts."""
    points = np.asarray(world.impact_points, float).reshape(-1, 2)
    speeds = np.asarray(world.impact_speeds, float).reshape(-1)
    bodies = getattr(world, "bodies", None)
    more = np.asarray(getattr(bodies, "impact_speeds", ()), float).reshape(-1)
    if len(more) == 0:
        return points, speeds
    return (np.concatenate((points, np.asarray(bodies.impact_points, float).reshape(-1, 2))),
            np.concatenate((speeds, more)))


class Audio:
    """Plays impact sounds. ``enabled`` is False when there is no device (then every call is a no-op)."""

    def __init__(self, enabled=True):
        self.enabled = False
        self.muted = False
        self.sounds = {}
        self.played = 0          # sounds started since creation (tests read it)
        if enabled:
            self._open()

    def _open(self):
        try:
            if not pygame.mixer.get_init():
                pygame.mixer.pre_init(22050, -16, 2, 512)
                with _quiet_stderr():
                    pygame.mixer.init()
            pygame.mixer.set_num_channels(CHANNELS)
            self.sounds = {name: pygame.mixer.Sound(os.path.join(ASSETS, f))
                           for name, f in SOUND_FILES.items()}
        except (pygame.error, OSError):
            self.sounds = {}
            return
        self.enabled = True

    def play_impacts(self, speeds, pans=None):
        """Play the loudest impacts of one tick. pans: (K,) in [0, 1], 0 = left, 1 = right."""
        if not self.enabled or self.muted:
            return 0
        chosen = pick(speeds)
        if len(chosen) == 0:
            return 0
        speeds = np.asarray(speeds, float).reshape(-1)
        started = 0
        for k in chosen.tolist():
            speed = speeds[k]
            name = "thud" if speed >= THUD_SPEED else "knock" if speed >= KNOCK_SPEED else "tick"
            try:
                channel = self.sounds[name].play()
            except pygame.error:
                continue
            if channel is None:       # every channel busy: the pile is loud enough
                break
            level = float(volume_for(speed)) * MASTER_VOLUME
            pan = 0.5 if pans is None else float(np.clip(pans[k], 0.0, 1.0))
            # Constant-power pan: left^2 + right^2 stays level^2.
            channel.set_volume(level * np.cos(pan * np.pi / 2), level * np.sin(pan * np.pi / 2))
            started += 1
        self.played += started
        return started

    def close(self):
        if self.enabled:
            try:
                pygame.mixer.quit()
            except pygame.error:
                pass
        self.enabled = False


@contextlib.contextmanager
def _quiet_stderr():
    """Silence the C library's stderr (file descriptor 2) for a moment.

    Opening a sound device that is not there makes ALSA print eight lines of
    "ALSA lib ... cannot find card '0'" straight to fd 2, bypassing Python; pygame then
    raises a pygame.error, which is the only news we want."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):
        yield
        return
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
