"""The settings panel (S): gravity's strength and direction, the time scale and the default
material, each on a slider, applied to the running world at once. R (the level's reset)
puts the level's own values back. The world keeps running while the panel shows."""
import math

import numpy as np
import pygame

from game.app.clock import TIME_SCALES
from game.modes.base import Mode
from game.draw.theme import ACCENT, BAR_HEIGHT, MARGIN, SIZE_BODY, SIZE_SMALL, SLIDER_TRACK, TEXT, TEXT_DIM, WARN

PANEL_WIDTH = 300            # px
ROW_HEIGHT = 46              # px per slider
TRACK_INSET = 16             # px from the panel's sides to a slider's track
MAX_GRAVITY = 30.0           # m/s^2 at the slider's right end
KEY_STEP = 0.05              # of a slider's span per arrow key press


class Slider:
    """A value in [lo, hi] shown with ``fmt``; ``read()`` gets it from the game, ``write(v)``
    applies it."""

    def __init__(self, label, lo, hi, fmt, read, write):
        self.label, self.lo, self.hi, self.fmt, self.read, self.write = label, lo, hi, fmt, read, write

    def fraction(self):
        return (self.read() - self.lo) / (self.hi - self.lo)

    def set_fraction(self, f):
        self.write(self.lo + min(max(f, 0.0), 1.0) * (self.hi - self.lo))


class SettingsMode(Mode):
    """Sliders over the running level. Up/Down pick a slider, Left/Right move it, the mouse
    drags it; S or Esc closes. Input off the panel goes on to play."""
    opaque = False
    pauses_below = False

    def __init__(self, app):
        super().__init__(app)
        self.sliders = [
            Slider("gravity", 0.0, MAX_GRAVITY, "{:.2f} m/s²", self.gravity_strength, self.set_gravity_strength),
            Slider("gravity direction", -180.0, 180.0, "{:+.0f}° from down", self.gravity_angle,
                   self.set_gravity_angle),
            Slider("time scale", 0.0, len(TIME_SCALES) - 1.0, "x{:g}", lambda: float(app.clock.scale_index),
                   lambda v: app.clock.set_scale_index(round(v))),
            Slider("restitution (bounce)", 0.0, 1.0, "{:.2f}", lambda: self.material("restitution"),
                   lambda v: self.set_material("restitution", v)),
            Slider("friction", 0.0, 1.0, "{:.2f}", lambda: self.material("friction"),
                   lambda v: self.set_material("friction", v)),
        ]
        self.selected = 0
        self.dragging = None         # index of the slider under a held button

    # ---- what the sliders change -------------------------------------------------------------
    @property
    def world(self):
        return self.app.session.world

    def gravity_strength(self):
        return float(np.hypot(*self.world.forces.gravity))

    def gravity_angle(self):
        """Degrees of gravity from straight down, counter-clockwise positive."""
        gx, gy = self.world.forces.gravity
        return 0.0 if gx == gy == 0 else math.degrees(math.atan2(gx, -gy))

    def set_gravity(self, strength, angle):
        # The one acceleration every integrator reads (game.physics.forces); rebuilt from the level by R.
        a = math.radians(angle)
        self.world.set_gravity((strength * math.sin(a), -strength * math.cos(a)))

    def set_gravity_strength(self, value):
        self.set_gravity(value, self.gravity_angle())

    def set_gravity_angle(self, value):
        self.set_gravity(self.gravity_strength(), value)

    def material(self, key):
        return float(self.world.material[key])

    def set_material(self, key, value):
        """The default material for balls spawned from now, and every ball now in the world."""
        self.world.set_material(key, value)

    # ---- layout and input ----------------------------------------------------------------------
    def panel(self):
        return pygame.Rect(MARGIN, BAR_HEIGHT + MARGIN, PANEL_WIDTH, 40 + ROW_HEIGHT * len(self.sliders))

    def track(self, k):
        """(x0, x1, y) px of slider k's track."""
        rect = self.panel()
        return rect.x + TRACK_INSET, rect.right - TRACK_INSET, rect.y + 40 + ROW_HEIGHT * k + 30

    def slider_at(self, pos):
        if not self.panel().collidepoint(pos):
            return -1
        k = (pos[1] - self.panel().y - 40) // ROW_HEIGHT
        return int(k) if 0 <= k < len(self.sliders) else -1

    def drag_to(self, k, x):
        x0, x1, _ = self.track(k)
        self.sliders[k].set_fraction((x - x0) / (x1 - x0))

    def handle_event(self, event):
        kind = event.type
        if kind == pygame.KEYDOWN:
            key = event.key
            if key in (pygame.K_s, pygame.K_ESCAPE) and not event.mod & pygame.KMOD_CTRL:
                self.app.pop()
            elif key in (pygame.K_UP, pygame.K_DOWN):
                self.selected = (self.selected + (1 if key == pygame.K_DOWN else -1)) % len(self.sliders)
            elif key in (pygame.K_LEFT, pygame.K_RIGHT):
                slider = self.sliders[self.selected]
                step = KEY_STEP if slider.label != "time scale" else 1.0 / (len(TIME_SCALES) - 1)
                slider.set_fraction(slider.fraction() + (step if key == pygame.K_RIGHT else -step))
            else:
                return self.app.play.handle_event(event)
            return True
        if kind == pygame.MOUSEBUTTONDOWN and event.button == 1 and self.panel().collidepoint(event.pos):
            k = self.slider_at(event.pos)
            if k >= 0:
                self.selected = self.dragging = k
                self.drag_to(k, event.pos[0])
            return True
        if kind == pygame.MOUSEMOTION and self.dragging is not None:
            self.drag_to(self.dragging, event.pos[0])
            return True
        if kind == pygame.MOUSEBUTTONUP and event.button == 1 and self.dragging is not None:
            self.dragging = None
            return True
        return self.app.play.handle_event(event)

    def draw(self, surface):
        hud, rect = self.app.hud, self.panel()
        hud._panel(surface, rect, (14, 16, 24, 235))
        surface.blit(hud.text("Settings", SIZE_BODY, TEXT, bold=True), (rect.x + 12, rect.y + 10))
        surface.blit(hud.text("R resets    S closes", SIZE_SMALL, TEXT_DIM), (rect.x + 110, rect.y + 12))
        for k, slider in enumerate(self.sliders):
            x0, x1, y = self.track(k)
            value = slider.read() if slider.label != "time scale" else TIME_SCALES[round(slider.read())]
            colour = WARN if k == self.selected else TEXT
            surface.blit(hud.text(slider.label, SIZE_SMALL, colour), (x0, y - 24))
            shown = hud.text(slider.fmt.format(value), SIZE_SMALL, colour)
            surface.blit(shown, (x1 - shown.get_width(), y - 24))
            pygame.draw.line(surface, SLIDER_TRACK, (x0, y), (x1, y), 4)
            knob = x0 + min(max(slider.fraction(), 0.0), 1.0) * (x1 - x0)
            pygame.draw.circle(surface, ACCENT, (knob, y), 7)
