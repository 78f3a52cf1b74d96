"""The fling's aim drawn over the world: the line with its arrow head and speed label, the
predicted flight path, and a curved arrow for a spun fling."""
import numpy as np
import pygame
from game.draw.theme import AIM, AIM_LABEL_GAP, AIM_PATH


def draw_aim(surface, start, end, label, font_text, path=None):
    """The fling aim line from start to end (screen px) with an arrow head, a speed label
    beside the line (never on it) and, if given, the predicted flight path (screen px,
    (K, 2)) as dots with a ring where it ends. Returns the label's rectangle."""
    if path is not None and len(path):
        path = np.asarray(path, float)
        for px, py in path[::2].tolist():
            pygame.draw.circle(surface, AIM_PATH, (px, py), 2)
        pygame.draw.circle(surface, AIM_PATH, path[-1].tolist(), 5, 1)
    sx, sy = start
    ex, ey = end
    pygame.draw.line(surface, AIM, start, end, 2)
    pygame.draw.circle(surface, AIM, start, 4, 1)
    dx, dy = ex - sx, ey - sy
    length = (dx * dx + dy * dy) ** 0.5
    ux, uy = (dx / length, dy / length) if length > 1 else (1.0, 0.0)
    if length > 1:
        head = min(14.0, length * 0.5)
        left = (ex - ux * head - uy * head * 0.5, ey - uy * head + ux * head * 0.5)
        right = (ex - ux * head + uy * head * 0.5, ey - uy * head - ux * head * 0.5)
        pygame.draw.polygon(surface, AIM, [end, left, right])
    text = font_text(label)
    # Beside the middle of the line, on the side of its normal that points up on screen:
    # the label's centre is moved out until its box clears the line by AIM_LABEL_GAP px.
    nx, ny = (-uy, ux) if ux < 0 else (uy, -ux)
    w, h = text.get_size()
    clear = abs(nx) * w / 2 + abs(ny) * h / 2 + AIM_LABEL_GAP
    rect = text.get_rect(center=((sx + ex) / 2 + nx * clear, (sy + ey) / 2 + ny * clear))
    surface.blit(text, rect)
    return rect


def draw_spin(surface, center, radius_px, spin):
    """A fling's spin on the aim line: a curved arrow round the ball at ``center`` (screen
    px) of ``radius_px``, turning the way ``spin`` (rad/s, counter-clockwise positive) turns
    it; nothing for no spin."""
    if not spin:
        return
    ring = max(10.0, float(radius_px) + 6.0)
    sense = 1.0 if spin > 0 else -1.0
    # 270 degrees of arc from the top, counter-clockwise on screen for a positive spin
    # (the world's y is up, the screen's down: a world angle a is at (cos a, -sin a)).
    angles = np.pi / 2 + sense * np.linspace(0.0, 1.5 * np.pi, 28)
    cx, cy = center
    points = [(cx + ring * np.cos(a), cy - ring * np.sin(a)) for a in angles.tolist()]
    pygame.draw.aalines(surface, AIM, False, points)
    end = angles[-1]
    tangent = np.array((-np.sin(end), -np.cos(end))) * sense       # the way the arc runs, on screen
    normal = np.array((np.cos(end), -np.sin(end)))
    tip = np.array(points[-1]) + tangent * 6.0
    base = np.array(points[-1]) - tangent * 2.0
    pygame.draw.polygon(surface, AIM, [tip.tolist(), (base + normal * 5.0).tolist(), (base - normal * 5.0).tolist()])

