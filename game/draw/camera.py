"""Camera: world metres (y up) <-> screen pixels (y down).

    screen = (world - center) * scale * (1, -1) + size / 2

`center` is the world point at the middle of the screen, `scale` is pixels per metre.
Every method takes points shaped (2,) or (N, 2) and broadcasts; no pygame here.
"""
import numpy as np

MIN_SCALE = 2.0          # px/m: the whole of a 600 m level on one screen
MAX_SCALE = 2000.0       # px/m: one 0.25 m ball fills the screen
FIT_MARGIN = 0.04        # fraction of the screen left free round the level when fitting


class Camera:
    """Maps world points to screen pixels and back. Mutable: pan, zoom, resize, fit."""

    def __init__(self, size=(1280, 720), center=(0.0, 0.0), scale=40.0):
        self.size = (int(size[0]), int(size[1]))
        self.center = np.array(center, dtype=np.float64)
        self.scale = float(scale)
        self.fitted = False      # True from fit() until the player pans or zooms

    def key(self):
        """A hashable value that changes whenever the mapping changes (for render caches)."""
        return (self.size, float(self.center[0]), float(self.center[1]), self.scale)

    def world_to_screen(self, points):
        """(..., 2) metres -> (..., 2) float pixels."""
        p = np.asarray(points, dtype=np.float64)
        out = np.empty(p.shape, dtype=np.float64)
        out[..., 0] = (p[..., 0] - self.center[0]) * self.scale + self.size[0] * 0.5
        out[..., 1] = self.size[1] * 0.5 - (p[..., 1] - self.center[1]) * self.scale
        return out

    def screen_to_world(self, points):
        """(..., 2) pixels -> (..., 2) metres; the exact inverse of world_to_screen."""
        s = np.asarray(points, dtype=np.float64)
        out = np.empty(s.shape, dtype=np.float64)
        out[..., 0] = (s[..., 0] - self.size[0] * 0.5) / self.scale + self.center[0]
        out[..., 1] = (self.size[1] * 0.5 - s[..., 1]) / self.scale + self.center[1]
        return out

    def visible_rect(self):
        """World rectangle on screen: (x_min, y_min, x_max, y_max) in metres."""
        (x0, y1), (x1, y0) = self.screen_to_world([(0, 0), self.size])
        return (x0, y0, x1, y1)

    def resize(self, size):
        """Keep the centre and the scale; the screen just shows more or less."""
        self.size = (max(1, int(size[0])), max(1, int(size[1])))

    def fit(self, bounds, margin=FIT_MARGIN, inset=(0, 0)):
        """Centre on bounds (x_min, y_min, x_max, y_max) and zoom so all of it shows in the
        screen less `inset` = (top, bottom) or (top, bottom, right) pixels (room kept for a
        HUD bar, a key hint, a plot at the right)."""
        x0, y0, x1, y1 = (float(v) for v in bounds)
        top, bottom, right = (max(0, int(v)) for v in (tuple(inset) + (0,))[:3])
        room_w = max(1, self.size[0] - right)
        room_h = max(1, self.size[1] - top - bottom)
        width, height = max(x1 - x0, 1e-6), max(y1 - y0, 1e-6)
        free = 1.0 - 2.0 * margin
        self.scale = _clamp(min(room_w * free / width, room_h * free / height),
                            MIN_SCALE, MAX_SCALE)
        # The bounds' centre goes to the middle of the room, which is below the screen's
        # middle by (top - bottom) / 2 pixels, i.e. that much lower in the world, and left of
        # it by right / 2 pixels, i.e. the world's centre is that much further right.
        self.center = np.array(((x0 + x1) * 0.5 + right * 0.5 / self.scale,
                                (y0 + y1) * 0.5 + (top - bottom) * 0.5 / self.scale))
        self.fitted = True

    def zoom_at(self, screen_point, factor):
        """Multiply the scale by factor keeping the world point under screen_point in place."""
        anchor = self.screen_to_world(screen_point)
        self.scale = _clamp(self.scale * factor, MIN_SCALE, MAX_SCALE)
        moved = self.screen_to_world(screen_point)
        self.center = self.center + (anchor - moved)
        self.fitted = False

    def pan(self, dx, dy):
        """Move the view with the mouse: the world follows a drag of (dx, dy) pixels."""
        self.center = self.center + np.array((-dx / self.scale, dy / self.scale))
        self.fitted = False


def _clamp(value, lo, hi):
    return min(max(value, lo), hi)
