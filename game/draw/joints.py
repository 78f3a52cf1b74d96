"""How a joint looks, for the balls' joints (game.draw.renderer) and the bodies' (game.draw.bodies)
alike: a rod as a bar between its held points, a rope as a thin line (dimmer while slack), a
pin (an anchor, or a rod of length 0) as a ring with a dark hole."""
import pygame

from game.draw.theme import BACKGROUND, PIN, ROD, ROPE, ROPE_SLACK


def draw_joint(surface, p, q, kind, width, slack=False, pin_at=None):
    """One joint between screen points p and q (px). kind: "rod", "rope" or "pin" (a pin draws
    no line); width: a rod's bar in px; slack: a rope shorter than its length; pin_at: the
    screen point of its pin (an anchor's or a pin's), or None."""
    if kind == "rod":
        pygame.draw.line(surface, ROD, p, q, width)
        for point in (p, q):
            pygame.draw.circle(surface, ROD, point, width // 2 + 1)
    elif kind == "rope":
        pygame.draw.aaline(surface, ROPE_SLACK if slack else ROPE, p, q)
    if pin_at is not None:
        pygame.draw.circle(surface, PIN, pin_at, max(3, width // 2 + 2))
        pygame.draw.circle(surface, BACKGROUND, pin_at, max(1, width // 4 + 1))
