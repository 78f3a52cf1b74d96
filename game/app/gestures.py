"""Pointer gestures: what a pressed mouse button is doing, as small objects.

Screen points are (x, y) pixels; world points (2,) arrays in metres. A press becomes a
drag once the pointer moved more than DRAG_THRESHOLD pixels from where it went down.
"""
from dataclasses import dataclass

import numpy as np

DRAG_THRESHOLD = 6           # px: a press that moves less than this is a click, not a drag
SPRAY_DELAY = 0.4            # s: a left press held still this long sprays balls


def far(a, b):
    """Whether screen points a and b are more than DRAG_THRESHOLD apart on either axis."""
    return abs(a[0] - b[0]) > DRAG_THRESHOLD or abs(a[1] - b[1]) > DRAG_THRESHOLD


@dataclass
class Fling:
    """Left press on empty space: a click spawns a ball, a drag aims and flings one, and a
    press held still for SPRAY_DELAY seconds sprays balls at the pointer instead."""
    start: tuple
    start_world: np.ndarray
    dragging: bool = False
    held: float = 0.0             # wall seconds pressed
    spraying: bool = False
    sprays: bool = True           # a hold sprays (balls); a body's press held still adds one on release

    def move(self, pos):
        if not self.spraying:
            self.dragging = self.dragging or far(pos, self.start)

    def hold(self, frame_dt):
        """Count wall time pressed; True once it has become a spray."""
        self.held += frame_dt
        self.spraying = self.spraying or (self.sprays and not self.dragging and self.held >= SPRAY_DELAY)
        return self.spraying


@dataclass
class Hold:
    """Left press on a ball: the world holds it by the grab ``handle`` until release."""
    start: tuple
    handle: int


@dataclass
class BodyHold:
    """Left press on a body: the world holds it at the point pressed by the grab ``handle``
    (game.physics.bodies.grab) until release; ``local`` (2,) m is that point in the body's
    frame (where a paused drag puts the cursor)."""
    start: tuple
    handle: int
    local: np.ndarray


@dataclass
class Pan:
    """Right or middle press: a drag pans the view; a right click without a drag deletes."""
    button: int
    start: tuple
    last: tuple
    moved: bool = False

    def move(self, pos):
        """The (dx, dy) pixels to pan by for a pointer now at pos (0, 0 until it is a drag)."""
        if not self.moved:
            if not far(pos, self.start):
                return 0, 0
            self.moved, self.last = True, self.start
        dx, dy = pos[0] - self.last[0], pos[1] - self.last[1]
        self.last = pos
        return dx, dy
