"""What the left button adds next (the picker): the spawn tool's shape (V / Shift+V: ball,
box, plank, triangle), the ball's size (B / Shift+B) and the material of either (C / Shift+C),
with the bodies' outlines and sizes. Plain functions of the PlayMode (``play``); no pygame."""
import os

import numpy as np

from game.goals import BODY_SHAPES, BODY_SIZES, outline, player_ball_radius

# The ball picker (B / Shift+B, C / Shift+C): radii in metres (the level's own joins them),
# and materials, each (name, overrides of the level's material or None, preview colour).
BALL_RADII = (0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.75, 1.0)
BALL_MATERIALS = (
    ("level's", None, (235, 235, 235)),
    ("rubber", {"restitution": 0.85, "friction": 0.9, "density": 1.2}, (240, 110, 110)),
    ("steel", {"restitution": 0.3, "friction": 0.15, "density": 7.8}, (170, 185, 205)),
    ("wood", {"restitution": 0.45, "friction": 0.5, "density": 0.6}, (200, 150, 90)),
    ("ice", {"restitution": 0.1, "friction": 0.02, "density": 0.9}, (140, 220, 245)),
)
SHAPES = ("ball",) + BODY_SHAPES      # what the left button adds (V / Shift+V)


def spawn_radius(play):
    """m: the radius of the player's next ball: the picker's, else the level's own."""
    return play.picked_radius if play.picked_radius is not None else level_radius(play)


def level_radius(play):
    """m: the level's own ball size: its first spawner's, else its first ball's, else the
    default (game.goals.player_ball_radius, which the puzzles' solutions use too)."""
    return player_ball_radius(play.app.session.doc)


def pick_radius(play, direction):
    """B / Shift+B: the next bigger (+1) or smaller (-1) ball of BALL_RADII and the level's own."""
    sizes = sorted(set(BALL_RADII) | {level_radius(play)})
    now = spawn_radius(play)
    if direction > 0:
        bigger = [r for r in sizes if r > now + 1e-12]
        radius = bigger[0] if bigger else sizes[-1]
    else:
        smaller = [r for r in sizes if r < now - 1e-12]
        radius = smaller[-1] if smaller else sizes[0]
    play.picked_radius = radius
    play.picker_level = os.path.realpath(play.app.session.path)
    play.app.toast(f"ball: {ball_label(play)}")


def pick_material(play, direction):
    """C / Shift+C: the next or previous material of BALL_MATERIALS."""
    play.material_index = (play.material_index + direction) % len(BALL_MATERIALS)
    play.app.toast(f"ball: {ball_label(play)}")


def ball_label(play):
    """ "0.25 m rubber": the picker's next ball, as the HUD shows it."""
    name = BALL_MATERIALS[play.material_index][0]
    return f"{spawn_radius(play):g} m " + ("level material" if name == "level's" else name)


def pick_shape(play, direction):
    """V / Shift+V: the next (+1) or previous (-1) shape of SHAPES the left button adds."""
    play.shape = SHAPES[(SHAPES.index(play.shape) + direction) % len(SHAPES)]
    play.app.toast(f"left button adds: {shape_label(play)}" + (" (W: back from drawing)" if play.tool == "draw" else ""))


def shape_label(play):
    """ "box 0.6 m rubber" or "ball 0.25 m level material": the picker's next ball or body."""
    if play.shape == "ball":
        return "ball " + ball_label(play)
    name = BALL_MATERIALS[play.material_index][0]
    return f"{play.shape} {BODY_SIZES[play.shape]:g} m " + ("level material" if name == "level's" else name)


def extent(shape):
    """m: the farthest point of the body from its centre of mass (for a ball, its radius)."""
    corners, radius = outline(shape)
    return float(np.sqrt((corners * corners).sum(axis=1)).max()) + radius


def fling_radius(play):
    """m: the size a fling's spin and its flight preview go by: the ball's radius, or the
    body's extent (so Shift's topspin turns its farthest point at the fling's horizontal
    speed, as a ball's rim rolls)."""
    return spawn_radius(play) if play.shape == "ball" else extent(play.shape)
