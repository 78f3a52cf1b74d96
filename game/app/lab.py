"""The integrator lab: the world and a ghost of it, stepped side by side under two integrators.

``Lab(world, integrator)`` copies the world (``World.copy``: the same state to the bit, the
same execution) and steps the copy, the ghost, under ``integrator`` tick for tick with the
world; the player's actions go to both (``spawned``, ``removed``, ``grabbed`` ... for balls,
``spawned_body``, ``removed_body``, ``grabbed_body`` ... for bodies: the ghost's ball or body
is the one with the same id, ``World.ids`` or ``Bodies.ids``). Whatever differs between the
two then comes from the integrators alone, and the lab reads it off:

- ``energy_change()``: each world's total energy relative to the moment the comparison
  began, the energy of balls and bodies that came or went since (the player's spawns and
  deletes, the level's spawners and kill zones) left out, so a ball added is not mistaken
  for drift;
- ``gap()``: the largest distance in metres between a ball in the world and the ghost's ball
  of the same id, max |p_world - p_ghost|, or between a point of a body and the same point
  of the ghost's body of the same id (``body_gap``).

The play mode owns a Lab while the lab is on (G), draws the ghost as outlines over the real
balls and bodies (``draw_ghost``) and the two energy lines in place of the energy plot
(``draw_plot``). Nothing here changes the world: the lab only steps its own ghost.
"""
import copy
from collections import deque

import numpy as np
import pygame

from game.draw.bodies import draw_body_outlines
from game.draw.hud import energy_plot_rect, short_number
from game.app.clock import THREAD_CLOCK
from game.lab_replay import Ledger, ball_energies, body_energies, body_gap, position_gap  # noqa: F401  (the lab's readings)
from game.physics import bodies as world_bodies
from game.physics import body_hand
from game.physics.integrators import next_integrator
from game.draw.theme import INTEGRATOR_COLOURS, PANEL_EDGE, PLOT_PANEL, SIZE_SMALL, SUNKEN, TEXT, TEXT_DIM, WARN

HISTORY_SPAN = 10.0          # s of simulated time the lab's plot shows
OUTLINE_PX = 2               # px: the ghost's outlines
SMOOTHING = 0.1              # weight of the newest ghost tick in the smoothed ms
SPRITE_LIMIT = 400           # outline sprites kept before the cache is emptied (zooming makes sizes)


class Lab:
    """A ghost of ``world`` under ``integrator`` (default: the one after the world's),
    stepped tick for tick with it. ``ghost`` is the ghost world; ``history`` holds (time s,
    world's energy change J, ghost's J) samples over the last HISTORY_SPAN s; ``tick_ms``
    the ghost's tick, smoothed (the lab's cost: one more world's tick)."""

    def __init__(self, world, integrator=None):
        self.world = world
        self.ghost = world.copy()
        self.ghost.integrator = integrator or next_integrator(world.integrator)
        self.started_at = world.time
        self.ledgers = (Ledger(world), Ledger(self.ghost))
        self.history = deque()
        # The world's grab handle -> the ghost's: a grab held now was copied with its handle.
        self.grabs = {handle: handle for handle in self.ghost.grabs}
        self.body_grabs = {int(h): int(h) for h in self.ghost.bodies.joint_handle if h}   # bodies' grabs, alike
        self.deleted = {}            # ball id -> the ghost's BallRecord of it (for undo)
        self.deleted_bodies = {}     # body id -> the ghost's record of it (body_hand.take)
        self.tick_ms = 0.0
        self.blown_up = False        # the ghost went non-finite: it stops stepping
        self.last_gap = 0.0
        self._view = None            # the ghost as drawn while the ticks run on the worker (freeze)
        self._sprites = {}
        self.record()

    @property
    def integrator(self):
        """The ghost's integrator."""
        return self.ghost.integrator

    @property
    def shown(self):
        """The ghost as it is to be drawn (between freeze and thaw, as it was at freeze)."""
        return self.ghost if self._view is None else self._view

    # ---- the ticks -----------------------------------------------------------------------
    def step(self, dt):
        """The ghost's tick, right after the world's; both worlds' books kept."""
        if not self.blown_up:
            start = THREAD_CLOCK()
            self.ghost.step(dt)
            ms = (THREAD_CLOCK() - start) * 1000.0
            self.tick_ms = ms if self.tick_ms == 0.0 else (1.0 - SMOOTHING) * self.tick_ms + SMOOTHING * ms
        self.account()

    def account(self):
        self.ledgers[0].account(self.world)
        self.ledgers[1].account(self.ghost)

    def freeze(self):
        """The ticks go to a worker thread: draw a copy of the ghost meanwhile."""
        self._view = self.ghost.view()

    def thaw(self):
        self._view = None

    def energy_change(self):
        """(world's, ghost's) J since the comparison began, balls and bodies come and gone left out."""
        return self.ledgers[0].change(self.world), self.ledgers[1].change(self.ghost)

    def gap(self):
        """The largest position gap between matching balls or bodies, metres (position_gap,
        body_gap)."""
        return max(position_gap(self.world, self.ghost), body_gap(self.world, self.ghost))

    def record(self):
        """A sample for the plot and the gap line (after a frame's ticks or an action)."""
        self.account()
        if not self.blown_up and self.ghost.blown_up():
            self.blown_up = True
        world_change, ghost_change = self.energy_change()
        self.last_gap = self.gap()
        t = float(self.world.time - self.started_at)
        if self.history and t < self.history[-1][0]:
            self.history.clear()
        if self.history and t == self.history[-1][0]:
            self.history.pop()
        self.history.append((t, float(world_change), float(ghost_change)))
        while self.history and self.history[-1][0] - self.history[0][0] > HISTORY_SPAN:
            self.history.popleft()

    # ---- the player's actions, sent to the ghost too ---------------------------------------
    def _index(self, ball_id):
        where = np.flatnonzero(self.ghost.ids == ball_id)
        return int(where[0]) if len(where) else -1

    def spawned(self, point, velocity=(0.0, 0.0), radius=None, spin=0.0):
        """The player added a ball to the world: the ghost gets the same."""
        self.ghost.add_ball(point, velocity, radius=radius, spin=spin)
        self.record()

    def removed(self, ball_id, keep=False):
        """The world's ball ``ball_id`` was deleted (``keep``: kept for an undo) or taken back."""
        k = self._index(ball_id)
        if k >= 0:
            if keep:
                self.deleted[ball_id] = self.ghost.take_ball(k)
            else:
                self.ghost.remove_balls([k])
        self.record()

    def put_back(self, ball_id):
        """Undo of a delete: the ghost's ball comes back as it was when deleted."""
        record = self.deleted.pop(ball_id, None)
        if record is not None:
            self.ghost.put_back(record)
        self.record()

    def grabbed(self, handle, ball_id, point):
        """The world's ball ``ball_id`` was grabbed at ``point`` (its grab ``handle``)."""
        k = self._index(ball_id)
        if k >= 0:
            self.grabs[handle] = self.ghost.grab(k, point)

    def move_grab(self, handle, point, paused=False):
        if handle in self.grabs:
            (self.ghost.place_grabbed if paused else self.ghost.move_grab)(self.grabs[handle], point)

    def release(self, handle):
        if handle in self.grabs:
            self.ghost.release(self.grabs.pop(handle))

    # (bodies: the ghost's body is the one with the world's body's id)
    def spawned_body(self, definition):
        """The player added a body of ``definition`` to the world: the ghost gets the same, with
        the same id (the copy numbers its bodies on from where the world's numbering was)."""
        world_bodies.add(self.ghost, [copy.deepcopy(definition)])
        self.record()

    def removed_body(self, body_id, keep=False):
        """The world's body ``body_id`` was deleted (``keep``: kept for an undo) or taken back."""
        k = body_hand.index_of(self.ghost, body_id)
        if k >= 0:
            if keep:
                self.deleted_bodies[body_id] = body_hand.take(self.ghost, k)
            else:
                world_bodies.remove(self.ghost, [k])
        self.record()

    def put_back_body(self, body_id):
        """Undo of a delete: the ghost's body comes back as it was when deleted, with its joints."""
        record = self.deleted_bodies.pop(body_id, None)
        if record is not None:
            body_hand.put_back(self.ghost, record)
        self.record()

    def grabbed_body(self, handle, body_id, point, local):
        """The world's body ``body_id`` was grabbed (``handle``) at ``point`` m, ``local`` (2,) m
        in its frame: the ghost's body is held by that same point of it, wherever the ghost
        has it, towards the same cursor."""
        k = body_hand.index_of(self.ghost, body_id)
        if k >= 0:
            self.body_grabs[handle] = world_bodies.grab(self.ghost, k, point, local)

    def move_body_grab(self, handle, point, paused=False):
        if handle in self.body_grabs:
            (body_hand.carry if paused else world_bodies.move_grab)(self.ghost, self.body_grabs[handle], point)

    def release_body(self, handle):
        if handle in self.body_grabs:
            world_bodies.release(self.ghost, self.body_grabs.pop(handle))

    # ---- drawing -----------------------------------------------------------------------------
    def colour(self):
        return INTEGRATOR_COLOURS.get(self.integrator, TEXT)

    def _outline(self, radius_px, colour):
        key = (radius_px, colour)
        sprite = self._sprites.get(key)
        if sprite is None:
            if len(self._sprites) > SPRITE_LIMIT:
                self._sprites.clear()
            size = 2 * radius_px + 2
            sprite = pygame.Surface((size, size), pygame.SRCALPHA)
            pygame.draw.circle(sprite, colour, (radius_px + 1, radius_px + 1), radius_px, min(OUTLINE_PX, radius_px))
            self._sprites[key] = sprite
        return sprite

    def draw_ghost(self, surface, camera):
        """The ghost's bodies and balls as outlines in its integrator's colour, over the real
        ones (a body's outline as game.draw.bodies draws it)."""
        ghost = self.shown
        draw_body_outlines(surface, ghost, camera, self.colour(), OUTLINE_PX)
        if ghost.count == 0:
            return
        with np.errstate(over="ignore", invalid="ignore"):
            centres = camera.world_to_screen(ghost.pos)
            radii = np.rint(ghost.radius * camera.scale)
        w, h = surface.get_size()
        keep = (np.isfinite(centres).all(axis=1) & (centres[:, 0] > -radii) & (centres[:, 0] < w + radii)
                & (centres[:, 1] > -radii) & (centres[:, 1] < h + radii))
        colour = self.colour()
        blits = []
        for (x, y), r in zip(centres[keep].tolist(), np.clip(radii[keep], 2, 2000).astype(int).tolist()):
            blits.append((self._outline(r, colour), (int(x) - r - 1, int(y) - r - 1)))
        surface.blits(blits, doreturn=False)

    def line(self):
        """The lab's status line: the two integrators and how far apart the worlds are."""
        gap = self.last_gap
        apart = "blown up" if self.blown_up or not np.isfinite(gap) else f"{gap:.3g} m" if gap else "0 m"
        return (f"lab: world {self.world.integrator}, ghost {self.integrator} (outlines): "
                f"apart by {apart} at most    ghost {self.tick_ms:.2f} ms/tick    "
                f"Shift+I ghost's integrator, G ends")

    def draw_line(self, surface, hud, bottom):
        """The status line in a panel whose bottom edge is at ``bottom`` px."""
        text = hud.text(self.line(), SIZE_SMALL, WARN if self.blown_up else TEXT)
        rect = pygame.Rect(10, bottom - text.get_height() - 8, min(text.get_width() + 16, surface.get_width() - 20),
                           text.get_height() + 8)
        hud._panel(surface, rect)
        clip = surface.get_clip()
        surface.set_clip(rect.inflate(-8, 0))
        surface.blit(text, (rect.x + 8, rect.y + 4))
        surface.set_clip(clip)
        return rect

    def draw_plot(self, surface, hud, bottom_gap):
        """The energy plot as the lab has it: each world's energy change since the comparison
        began, one line each, labelled with its integrator."""
        rect = energy_plot_rect(surface.get_size(), bottom_gap)
        hud._panel(surface, rect, PLOT_PANEL)
        surface.blit(hud.text(f"energy since the lab began (J), last {HISTORY_SPAN:g} s", SIZE_SMALL, TEXT_DIM),
                     (rect.x + 8, rect.y + 6))
        surface.blit(hud.text("balls and bodies added or removed left out", SIZE_SMALL, TEXT_DIM), (rect.x + 8, rect.y + 22))
        rows = np.array(self.history, float).reshape(-1, 3)
        world_colour = INTEGRATOR_COLOURS.get(self.world.integrator, TEXT)
        labels = [(f"world, {self.world.integrator}", world_colour, 1), (f"ghost, {self.integrator}", self.colour(), 2)]
        line = hud.font(SIZE_SMALL).get_linesize()
        y = rect.bottom - 6 - line * len(labels)
        for name, colour, k in labels:
            value = rows[-1, k] if len(rows) else 0.0
            shown = short_number(value, signed=True) if np.isfinite(value) else "not finite"
            surface.blit(hud.text(f"{name}: {shown} J", SIZE_SMALL, colour), (rect.x + 8, y))
            y += line
        plot = pygame.Rect(rect.x + 58, rect.y + 42, rect.width - 68, rect.height - 52 - line * len(labels))
        pygame.draw.rect(surface, SUNKEN, plot, 1)
        finite = np.isfinite(rows).all(axis=1)
        rows = rows[finite]
        if len(rows) < 2:
            return rect
        values = rows[:, 1:]
        lo, hi = min(0.0, float(values.min())), max(0.0, float(values.max()))
        if hi - lo < 1e-9:
            lo, hi = -1.0, 1.0
        pad = 0.06 * (hi - lo)
        lo, hi = lo - pad, hi + pad
        left = max(0.0, rows[-1, 0] - HISTORY_SPAN)     # from the lab's start until it is 10 s old
        xs = plot.x + (rows[:, 0] - left) / HISTORY_SPAN * plot.width
        zy = plot.bottom - (0.0 - lo) / (hi - lo) * plot.height
        pygame.draw.line(surface, PANEL_EDGE, (plot.x, zy), (plot.right, zy))
        surface.blit(hud.text(short_number(hi), SIZE_SMALL, TEXT_DIM), (rect.x + 6, plot.y))
        surface.blit(hud.text(short_number(lo), SIZE_SMALL, TEXT_DIM), (rect.x + 6, plot.bottom - 12))
        clip = surface.get_clip()
        surface.set_clip(plot)
        for (_, colour, k), width in zip(labels, (3, 1)):
            ys = plot.bottom - (values[:, k - 1] - lo) / (hi - lo) * plot.height
            pygame.draw.lines(surface, colour, False, np.stack((xs, ys), axis=1).tolist(), width)
        surface.set_clip(clip)
        return rect


def toggle_lab(play):
    """G in play: start the integrator lab (a ghost of the world under the integrator after the
    world's, with the energy plot shown) or end it."""
    if play.lab is not None:
        play.lab = None
        play.app.toast("lab off")
        return
    play.lab = Lab(play.world)
    play.set_energy_shown(True)
    play.app.toast(f"lab: the ghost runs {play.lab.integrator} from here (Shift+I another)")


def next_ghost(play):
    """Shift+I in play: the ghost starts again from the world as it is now, under the next integrator."""
    if play.lab is None:
        play.app.toast("the integrator lab is off: G starts it")
        return
    play.lab = Lab(play.world, next_integrator(play.lab.integrator))
    play.app.toast(f"lab: the ghost runs {play.lab.integrator} from here")
