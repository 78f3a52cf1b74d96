"""The curve a rope of a given length hangs in between two points under gravity: the
catenary through both ends whose arc is that long (game.draw.joints draws a slack rope along
it; the editor's chain tool puts a new chain's balls on it, so the chain starts at rest). Only
numpy and math."""
import math

import numpy as np

ROPE_POINTS = 24            # points along a slack rope's curve, unless asked for more


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
