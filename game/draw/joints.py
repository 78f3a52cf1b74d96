"""How a joint looks, for the balls' joints (game.draw.renderer) and the bodies' (game.draw.bodies)
alike: a rod as a bar between its held points, a rope as a thin line, taut straight and slack
sagging (dimmer) along the catenary of its length (``rope_curve``), a pin (an anchor, or a rod
of length 0) as a ring with a dark hole."""
import math

import numpy as np
import pygame

from game.draw.theme import BACKGROUND, PIN, ROD, ROPE, ROPE_SLACK

ROPE_POINTS = 24            # points along a slack rope's curve
ROPE_CURVES = 64            # slack ropes a frame draws sagging (about 60 us each: 4 ms at most); the rest straight


def draw_joint(surface, p, q, kind, width, slack=False, pin_at=None, path=None):
    """One joint between screen points p and q (px). kind: "rod", "rope" or "pin" (a pin draws
    no line); width: a rod's bar in px; slack: a rope shorter than its length; pin_at: the
    screen point of its pin (an anchor's or a pin's), or None; path: a slack rope's points
    (px, from p to q: ``rope_curve`` on the screen), else its straight line."""
    if kind == "rod":
        pygame.draw.line(surface, ROD, p, q, width)
        for point in (p, q):
            pygame.draw.circle(surface, ROD, point, width // 2 + 1)
    elif kind == "rope" and path is not None and len(path) > 2:
        pygame.draw.aalines(surface, ROPE_SLACK if slack else ROPE, False, path)
    elif kind == "rope":
        pygame.draw.aaline(surface, ROPE_SLACK if slack else ROPE, p, q)
    if pin_at is not None:
        pygame.draw.circle(surface, PIN, pin_at, max(3, width // 2 + 2))
        pygame.draw.circle(surface, BACKGROUND, pin_at, max(1, width // 4 + 1))


def slack_path(camera, a, b, length, gravity):
    """A slack rope's screen points (px, lists) from world points a to b (``rope_curve``),
    or None where it is drawn straight (or off any finite screen point)."""
    curve = rope_curve(a, b, float(length), gravity)
    if len(curve) <= 2:
        return None
    screen = camera.world_to_screen(curve)
    return screen.tolist() if np.isfinite(screen).all() else None


def rope_curve(a, b, length, gravity, points=ROPE_POINTS):
    """(K, 2) world points from ``a`` to ``b`` (m) of a rope ``length`` m long hanging under
    ``gravity`` (m/s^2): the catenary through both ends whose arc is that long, or [a, b] where
    the rope is taut or nothing pulls it (no gravity). Straight above each other, it hangs as
    a V whose two sides add up to its length."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    g = float(np.hypot(*gravity))
    if not (g > 0.0 and np.isfinite(a).all() and np.isfinite(b).all()) or length <= 0.0:
        return np.array([a, b])
    down = np.asarray(gravity, float) / g
    side = np.array([-down[1], down[0]])              # "x" across gravity; "y" up is -down
    (x1, y1), (x2, y2) = (float(a @ side), float(-(a @ down))), (float(b @ side), float(-(b @ down)))
    flip = x2 < x1
    if flip:
        (x1, y1), (x2, y2) = (x2, y2), (x1, y1)
    h, v = x2 - x1, y2 - y1
    if length <= math.hypot(h, v) * (1.0 + 1e-9):
        return np.array([a, b])
    if h < 1e-9 * length:                             # one above the other: a V
        low = 0.5 * (y1 + y2 - length)
        xs, ys = np.array([x1, x1, x2]), np.array([y1, low, y2])
    else:
        # sinh(t) / t = sqrt(L^2 - v^2) / h with t = h / (2 c), c the catenary's parameter (m).
        ratio = math.sqrt(length * length - v * v) / h
        t = _sinhc_inverse(ratio)
        c = h / (2.0 * t)
        x0 = 0.5 * (x1 + x2) - c * math.atanh(v / length)      # the lowest point's x
        xs = np.linspace(x1, x2, points)
        ys = y1 + c * (np.cosh((xs - x0) / c) - math.cosh((x1 - x0) / c))
        xs[-1], ys[-1] = x2, y2
    world = xs[:, None] * side[None, :] - ys[:, None] * down[None, :]
    world[0], world[-1] = (b, a) if flip else (a, b)
    return world[::-1] if flip else world


def _sinhc_inverse(ratio):
    """t > 0 with sinh(t) / t = ratio (> 1): Newton's from above (sinh(t)/t is convex in t)."""
    t = math.sqrt(6.0 * (ratio - 1.0)) if ratio < 3.0 else math.log(2.0 * ratio * math.log(2.0 * ratio)) + 1.0
    t = min(max(t, 1e-6), 700.0)
    for _ in range(60):
        f = math.sinh(t) / t - ratio
        df = (math.cosh(t) * t - math.sinh(t)) / (t * t)
        step = f / df if df > 0 else 0.0
        t = min(max(t - step, 1e-9), 700.0)
        if abs(step) < 1e-12 * t:
            break
    return t
