"""Replays and clips in the game (issue 38): F5 keeps the run so far as a replay file, F9
records the next seconds as an animated GIF, ``--replay FILE`` plays a run back in the window
and ``--clip OUT.gif`` draws one offscreen. The files go where F12's screenshots go.

The world writes its own journal (game.physics.journal, started by game.app.session); this
module saves it (game.replay), feeds a replay's inputs to the world before each tick and takes
a clip's frames (game.clip) as the window draws them: every TICKS_PER_FRAME ticks of the
world, half the window's size, without the toasts (as F12 leaves them out).
"""
import os
import threading
import time

import pygame

from game import clip as clips
from game import replay as replays
from game.clip import Clip, ClipError
from game.lab_replay import LabPlayer
from game.replay import ReplayError


def stamped(folder, prefix, extension):
    """A new file name in ``folder``: PREFIX-YYYYMMDD-HHMMSS[-n]EXTENSION (F12's screenshots,
    F5's replays, F9's clips)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = os.path.join(folder, f"{prefix}-{stamp}{extension}")
    n = 1
    while os.path.exists(path):
        n += 1
        path = os.path.join(folder, f"{prefix}-{stamp}-{n}{extension}")
    return path


def clip_size(size):
    """A clip's frame size for a window of ``size``: half of it (a 1280 x 720 game, 640 x 360)."""
    return max(2, int(size[0]) // 2), max(2, int(size[1]) // 2)


def frame_bytes(surface, size):
    """``surface`` scaled to ``size`` as RGB bytes (a clip's frame)."""
    small = surface if surface.get_size() == tuple(size) else pygame.transform.smoothscale(surface, size)
    return pygame.image.tobytes(small, "RGB")


class Recording:
    """The App's replays and clips. ``player``: the replay being played into the world (None:
    none); ``clip``: the clip being recorded (None: none)."""

    def __init__(self, app):
        self.app = app
        self.player = None
        self.clip = None
        self.clip_ticks = 0          # the world's ticks when the clip's last frame was taken
        self.clip_until = 0          # frames the clip stops at
        self.said = []               # messages from the tick (a worker thread) for the main thread
        self.writing = None          # the thread writing the last clip

    def _folder(self):
        folder = self.app.screenshot_dir
        os.makedirs(folder, exist_ok=True)
        return folder

    def _stem(self):
        """ballpit-LEVEL: the start of a replay's or clip's file name."""
        return "ballpit-" + (os.path.splitext(os.path.basename(self.app.session.path))[0][:40] or "level")

    # ---- replays ------------------------------------------------------------------------------
    def save_replay(self):
        """F5: the run since the level was (re)started, as a replay file; its path or None."""
        app = self.app
        try:
            path = replays.save(app.session.world, app.session.doc, stamped(self._folder(), self._stem(), ".replay.json"),
                                app.session.path)
        except (ReplayError, OSError) as e:
            app.toast(f"replay not saved: {e}")
            return None
        world = app.session.world
        app.toast(f"replay of {world.time:.1f} s saved: {os.path.relpath(path)} (python main.py --replay FILE)")
        return path

    def play(self, replay, lab=None):
        """Play ``replay`` (game.replay.load's) into the world, which must be its level's at
        tick 0: its inputs go in before their ticks and the clock runs. While the integrator
        lab is on (G, or ``lab``: the ghost's integrator, ``--replay FILE --lab NAME``) its
        ghost gets the same inputs at the same ticks (game.lab_replay.LabPlayer)."""
        self.player = LabPlayer(replay, heard=self._heard)
        play = self.app.play
        if lab is not None:
            from game.app.lab import Lab
            play.lab = Lab(play.world, lab)
            play.set_energy_shown(True)
        self.app.clock.paused = False
        self.app.toast(f"replay: {replay['ticks'] / 60:.1f} s, {len(replay['inputs'])} inputs"
                       + (f", the lab's ghost under {play.lab.integrator} gets them too" if play.lab else ""))

    def _ghost(self):
        """The lab's ghost while it runs (None: the lab is off, or its ghost blew up)."""
        lab = self.app.play.lab
        return None if lab is None or lab.blown_up else lab.ghost

    def _heard(self, entry):
        """A segment the replay drew counts as drawn in play (its budget on the HUD, R keeps it)."""
        if entry[1] == "add_segments":
            self.app.play.drawn.extend(entry[2][0])
        elif entry[1] == "remove_segment" and entry[2][0] in self.app.play.drawn:
            self.app.play.drawn.remove(entry[2][0])

    def before_tick(self, world):
        """Before each of the world's ticks (on the thread that ticks)."""
        if self.player is None:
            return
        try:
            self.player.before_tick(world, self._ghost())
        except ReplayError as e:
            self.player, self.said = None, self.said + [f"replay stopped: {e}"]

    def after_tick(self, world):
        """After each of the world's ticks and the lab's ghost's (on the thread that ticks)."""
        player = self.player
        if player is None or world.ticks < player.ticks:
            return
        try:
            player.before_tick(world, self._ghost())    # what was done after the last tick
        except ReplayError as e:
            self.player, self.said = None, self.said + [f"replay stopped: {e}"]
            return
        self.player = None
        self.said = self.said + ["replay over: the same bits as recorded" if player.matches(world) else
                                 "replay over: the world differs from the one recorded (the level or the game changed)"]

    def new_world(self):
        """The level was reset or changed: a replay playing stops."""
        if self.player is not None:
            self.player = None
            self.app.toast("replay stopped")

    # ---- clips --------------------------------------------------------------------------------
    def toggle_clip(self, seconds=clips.CLIP_SECONDS):
        """F9: start recording the next ``seconds`` (F9 again: stop now and write it)."""
        if self.clip is not None:
            self.finish_clip()
            return
        if self.writing is not None and self.writing.is_alive():
            self.app.toast("still writing the last clip")
            return
        self.clip = Clip(clip_size(self.app.size))
        self.clip_ticks = self.app.world.ticks
        self.clip_until = min(clips.MAX_FRAMES, int(round(seconds * clips.CLIP_FPS)))
        self.app.toast(f"recording a {seconds:g} s clip (F9 stops it)")

    def frame(self, surface):
        """A frame drawn (before the toasts): kept when the world has run TICKS_PER_FRAME ticks
        since the last one kept (or since F9: a paused world gives no frames)."""
        if self.clip is None:
            return
        ticks = self.app.world.ticks
        if ticks - self.clip_ticks < clips.TICKS_PER_FRAME:
            return
        self.clip_ticks = ticks
        self.clip.add(frame_bytes(surface, self.clip.size))
        if len(self.clip) >= self.clip_until:
            self.finish_clip()

    def finish_clip(self):
        """Write the clip on a thread of its own (a few seconds of Pillow's work), then say where."""
        made, self.clip = self.clip, None
        if made is None or not len(made):
            self.app.toast("no clip: the world did not run")
            return
        path = stamped(self._folder(), self._stem(), ".gif")

        def write():
            try:
                made.write(path)
                self.said = self.said + [f"clip saved: {os.path.relpath(path)} ({made.seconds:.1f} s)"]
            except ClipError as e:
                self.said = self.said + [f"clip not saved: {e}"]
        self.writing = threading.Thread(target=write, name="clip", daemon=True)
        self.writing.start()
        self.app.toast(f"writing the clip ({made.seconds:.1f} s)...")

    def after_ticks(self):
        """On the main thread after a frame's ticks: say what the tick and the writer found."""
        said, self.said = self.said, []
        for line in said:
            self.app.toast(line)
