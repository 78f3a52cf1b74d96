"""How a joint looks, for the balls' joints (game.draw.renderer) and the bodies' (game.draw.bodies)
alike: a rod as a bar between its held points, a rope as a thin line, taut straight and slack
sagging (dimmer) along the catenary of its length (``rope_curve``), a pin (an anchor, or a rod
of length 0) as a ring with a dark hole; a chain's rods and ropes as links (game.draw.chains)."""

import math

import numpy as np
import pygame

from game.draw.chains import chain_joints, chain_link_px, draw_chains, face_first
from game.draw.theme import BACKGROUND, MOTOR, PIN, ROD, ROD_WIDTH, ROPE, ROPE_SLACK, SPRING_SLACK, SPRING_TAUT
from game.physics.catenary import rope_curve
from game.physics.joints import ROPE as ROPE_KIND

ROPE_CURVES = 64            # slack ropes a frame draws sagging (about 60 us each: 4 ms at most); the rest straight


def draw_joint(surface, p, q, kind, width, slack=False, pin_at=None, path=None):
    """One joint between screen points p and q (px). kind: "rod", "rope" or "pin" (a pin draws
    no line); width: a rod's bar in px; slack: a rope shorter than its length; pin_at: the
    screen point of its pin (an anchor's or a pin's), or None; path: a slack rope's points
    (px, from p to q: ``rope_curve`` on the screen), else its straight line."""
    if kind == "rod":
        draw_bar(surface, ROD, p, q, width)
        for point in (p, q):            # round ends no wider than the bar: rods joined end to end run on smoothly
            pygame.draw.circle(surface, ROD, point, max(1.0, (width - 1) / 2))
    elif kind == "rope" and path is not None and len(path) > 2:
        pygame.draw.aalines(surface, ROPE_SLACK if slack else ROPE, False, path)
    elif kind == "rope":
        pygame.draw.aaline(surface, ROPE_SLACK if slack else ROPE, p, q)
    if pin_at is not None:
        pygame.draw.circle(surface, PIN, pin_at, max(3, width // 2 + 2))
        pygame.draw.circle(surface, BACKGROUND, pin_at, max(1, width // 4 + 1))


def draw_ball_joints(surface, world, camera):
    """The world's joints between balls (world.joints), over the balls: a rod as a bar between
    its held points, a rope as a thin line (dimmer and sagging while slack), an anchor or a rod
    of length 0 as a pin, a motor as a mark on its wheel that turns with it, and a chain's rods
    and ropes (game.draw.chains.chain_joints) as links, all chains in one batch. Returns the
    chain links drawn."""
    joints = getattr(world, "joints", None)
    if joints is None or len(joints) == 0 or world.count == 0:
        return 0
    pos, angle = np.asarray(world.pos), np.asarray(world.angle)
    end_a, end_b = joints.ends(pos, angle)
    s0 = camera.world_to_screen(end_a)
    s1 = camera.world_to_screen(end_b)
    finite = np.isfinite(s0).all(axis=1) & np.isfinite(s1).all(axis=1)
    width = max(4, int(round(ROD_WIDTH * camera.scale)))
    span = np.hypot(*(end_b - end_a).T)
    rope = np.asarray(joints.kind) == ROPE_KIND
    slack = rope & (span < joints.length * 0.999)
    curved = slack & finite & (np.cumsum(slack & finite) <= ROPE_CURVES)    # the rest straight
    chained, chain_radius = chain_joints(joints, world.radius)
    chained &= finite
    pinned = joints.b < 0
    for k in np.flatnonzero(finite & ~chained).tolist():
        p, q = s0[k].tolist(), s1[k].tolist()
        kind = "rope" if rope[k] else ("rod" if joints.length[k] > 0.0 else "pin")
        path = slack_path(camera, end_a[k], end_b[k], joints.length[k], world.forces.gravity) if curved[k] else None
        draw_joint(surface, p, q, kind, width, bool(slack[k]), q if (pinned[k] or kind == "pin") else None, path)
        if joints.has_motor[k]:
            _draw_motor(surface, world, camera, int(joints.a[k]))
    rows = np.flatnonzero(chained)
    curves = {}
    for at in np.flatnonzero(curved[rows]).tolist():
        k = int(rows[at])
        path = slack_path(camera, end_a[k], end_b[k], joints.length[k], world.forces.gravity)
        if path is not None:
            curves[at] = path
    drawn = draw_chains(surface, s0[rows], s1[rows], chain_link_px(chain_radius[rows], camera.scale), slack[rows],
                        face_first(joints, rows, world.count), curves)
    for k in rows[pinned[rows]].tolist():           # a chain's anchors: pins over its links
        draw_joint(surface, s0[k].tolist(), s1[k].tolist(), "pin", width, pin_at=s1[k].tolist())
    return drawn


def _draw_motor(surface, world, camera, ball):
    """A motor's mark on its wheel (ball index): a ring and a spoke that turns with it."""
    centre = camera.world_to_screen(np.asarray(world.pos)[ball][None])[0]
    if not np.isfinite(centre).all():
        return
    r = max(4.0, float(world.radius[ball]) * camera.scale * 0.6)
    turn = float(world.angle[ball])
    tip = centre + r * np.array((math.cos(turn), -math.sin(turn)))
    pygame.draw.circle(surface, MOTOR, centre.tolist(), int(r), 2)
    pygame.draw.line(surface, MOTOR, centre.tolist(), tip.tolist(), 2)


COIL_MIN_PX = 40          # a spring this long on screen or longer is drawn with its coils
COIL_TURNS = 6            # coils drawn (each a zig and a zag)
COIL_PX = 4               # half their width


def draw_spring(surface, p, q, strain, anchored):
    """A spring as a line from p to q (pixels), tinted by its strain (length / rest - 1): blue
    when short of its rest, orange when stretched; a dot at q where it is ``anchored`` there."""
    mix = min(1.0, abs(strain) * 4.0) if np.isfinite(strain) else 1.0
    hi = SPRING_TAUT if strain > 0 else SPRING_SLACK
    colour = tuple(int(160 + (h - 160) * mix) for h in hi)
    dx, dy = q[0] - p[0], q[1] - p[1]
    span = math.hypot(dx, dy)
    if COIL_MIN_PX <= span < 1e5:         # long enough to show its coils: a zigzag between two straight ends
        ux, uy = dx / span, dy / span
        turns = COIL_TURNS * 2
        points = [p, (p[0] + 0.15 * dx, p[1] + 0.15 * dy)]
        for k in range(1, turns):
            f = 0.15 + 0.7 * k / turns
            side = COIL_PX if k % 2 else -COIL_PX
            points.append((p[0] + f * dx - side * uy, p[1] + f * dy + side * ux))
        points += [(p[0] + 0.85 * dx, p[1] + 0.85 * dy), q]
        pygame.draw.aalines(surface, colour, False, points)
    else:
        pygame.draw.aaline(surface, colour, p, q)
    if anchored:
        pygame.draw.circle(surface, colour, q, 3)


def slack_path(camera, a, b, length, gravity):
    """A slack rope's screen points (px, lists) from world points a to b (``rope_curve``),
    or None where it is drawn straight (or off any finite screen point)."""
    curve = rope_curve(a, b, float(length), gravity)
    if len(curve) <= 2:
        return None
    screen = camera.world_to_screen(curve)
    return screen.tolist() if np.isfinite(screen).all() else None


def draw_bar(surface, colour, p, q, width):
    """A bar ``width`` px thick from p to q (px), its thickness across the bar at any angle.
    (pygame's wide line thickens along x or y, so a rod at 45 degrees was 30 % thinner than a
    level one, and a chain of rods turning through 45 degrees looked kinked.)"""
    d = np.subtract(q, p, dtype=float)
    length = float(np.hypot(*d))
    if width <= 1 or not 0 < length < 1e7:
        pygame.draw.line(surface, colour, p, q, max(1, width))
        return
    n = np.array([-d[1], d[0]]) * (0.5 * (width - 1) / length)     # (pygame fills the edges too)
    pygame.draw.polygon(surface, colour, [p + n, q + n, q - n, p - n])
