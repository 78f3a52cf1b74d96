"""Rods drawn without kinks (issue 38): a bar as thick across at any angle, and round ends no
wider than the bar, so rods joined end to end run on smoothly (pygame's wide line thickened
along x or y: a rod at 45 degrees had 28 % fewer pixels than a level one, and the end circles of
radius width / 2 + 1 stood out as a bump at every joint of a chain)."""
import math

import numpy as np
import pygame
import pytest

from game.draw.joints import draw_joint
from game.draw.theme import ROD

WIDTH, LENGTH = 8, 240


def rod_pixels(surface):
    return (pygame.surfarray.pixels3d(surface) == np.array(ROD)).all(axis=2)


@pytest.mark.parametrize("degrees", [0, 10, 30, 45, 60, 80, 88, 90, 135, 200])
def test_a_rod_covers_its_length_times_its_width_at_any_angle(degrees):
    surface = pygame.Surface((400, 400))
    a = math.radians(degrees)
    half = 0.5 * LENGTH * np.array([math.cos(a), math.sin(a)])
    draw_joint(surface, tuple(200 - half), tuple(200 + half), "rod", WIDTH)
    ideal = LENGTH * WIDTH + math.pi * (WIDTH / 2) ** 2          # the bar and its two half-disc ends
    assert rod_pixels(surface).sum() == pytest.approx(ideal, rel=0.18)


def test_a_chain_of_near_vertical_rods_is_no_wider_at_its_joints():
    surface = pygame.Surface((200, 330))
    points = [(100 + 3 * math.sin(0.7 * k), 20 + 50 * k) for k in range(7)]
    for p, q in zip(points, points[1:]):
        draw_joint(surface, p, q, "rod", WIDTH)
    lit = rod_pixels(surface)
    widths = lit.sum(axis=0)[25:315]              # rows (pixels3d is x, y): each row's lit width
    assert widths.max() <= WIDTH + 1 and widths.min() >= WIDTH - 1
