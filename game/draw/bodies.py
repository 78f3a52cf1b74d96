"""Draws the dynamic bodies (game.physics.bodies: planks, boxes, convex polygons) and their joints
over the level; the debug layers' body parts (manifold points and normals, frames). Reads the
world, never writes it.

A body is a rounded convex polygon: its corners (``Bodies.corners``) grown by ``radius``. Its
outline is the corners joined by arcs about each corner between the normals of the two edges
that meet there (a capsule's two corners: two half circles, a stadium), filled in its colour
(the definition's "colour", else BODY_PALETTE by its index) and edged lighter. Its turn shows as
a darker mark from the centre of mass to the middle of its first edge (a plank's: to its end a),
so a square box turned by 90 degrees does not look the same as before.
"""
import math

import numpy as np
import pygame

from game.draw.joints import draw_joint, draw_spring, slack_path
from game.draw.plot import clip_convex, plot_points, plot_segments, shade
from game.physics.body_kernels import LENGTH, MOUSE, PIN, ROPE, SPRING
from game.draw.theme import (BODY_EDGE_SHADE, BODY_MARK_SHADE, BODY_NORMAL, BODY_PALETTE, CONTACT, FRAME_X, FRAME_Y,
                             ROD_WIDTH, SLEEPING, SPRING_GRAB, VELOCITY)

ARC_STEP_PX = 3.0          # px along a rounded corner between the outline's points
MAX_ARC_POINTS = 24        # points on a half circle at the most (a deep zoom)
MIN_ROUND_PX = 0.75        # px: a rounding radius below this is drawn as sharp corners
MARK_MIN_PX = 6            # px: bodies smaller than this (their extent) show no turn mark
NORMAL_PX = 16             # px: a manifold normal's length in the debug layer
FRAME_PX = 14              # px: the arms of a body's frame cross in the debug layer
VELOCITY_SECONDS = 0.1     # a velocity arrow reaches where the centre of mass will be then (as balls')


def parse_colour(value):
    """(r, g, b) 0..255 from "#rrggbb" or [r, g, b]; None if it is neither."""
    try:
        if isinstance(value, str):
            text = value.lstrip("#")
            if len(text) == 6:
                return tuple(int(text[k:k + 2], 16) for k in (0, 2, 4))
            return None
        if value is not None and len(value) >= 3:
            return tuple(int(np.clip(c, 0, 255)) for c in list(value)[:3])
    except (TypeError, ValueError):
        return None
    return None


def body_colour(bodies, index):
    """The fill colour of body ``index``: its definition's "colour", else BODY_PALETTE by index."""
    definitions = getattr(bodies, "definitions", ())
    own = parse_colour(definitions[index].get("colour")) if index < len(definitions) else None
    return own if own is not None else BODY_PALETTE[index % len(BODY_PALETTE)]


def rounded_outline(corners, normals, radius, scale):
    """(K, 2) m: the outline of a convex polygon ``corners`` (n, 2) counter-clockwise, with edge
    ``normals`` (n, 2) outward, grown by ``radius`` m: each corner becomes an arc from the normal
    of the edge before it to the normal of its own edge, with about one point every ARC_STEP_PX
    at ``scale`` px/m. Two corners (a capsule) give a stadium."""
    n = len(corners)
    if radius * scale < MIN_ROUND_PX:
        return corners
    out = []
    per_radian = min(max(radius * scale / ARC_STEP_PX, 1.0), MAX_ARC_POINTS / math.pi)
    for i in range(n):
        before, after = normals[i - 1], normals[i]
        start = math.atan2(before[1], before[0])
        sweep = (math.atan2(after[1], after[0]) - start) % (2.0 * math.pi)
        if n == 2:
            sweep = math.pi            # a capsule's ends: half circles (the normals are opposite)
        steps = max(1, int(math.ceil(sweep * per_radian)))
        t = start + sweep * np.arange(steps + 1) / steps
        out.append(corners[i] + radius * np.stack((np.cos(t), np.sin(t)), axis=1))
    return np.concatenate(out)


def _turned(vectors, angle):
    c, s = math.cos(angle), math.sin(angle)
    return np.stack((c * vectors[:, 0] - s * vectors[:, 1], s * vectors[:, 0] + c * vectors[:, 1]), axis=1)


def _on_screen(bodies, camera, size):
    """(indices of the bodies whose outline may be on a screen of ``size`` px, reach (B,) px:
    from a centre of mass to the farthest point of its outline, plus 2)."""
    width, height = size
    centres = camera.world_to_screen(np.asarray(bodies.pos, float))
    reach = np.asarray(bodies.extent, float) * float(camera.scale) + 2.0    # extent: to the rounded outline
    with np.errstate(invalid="ignore"):
        shown = ((centres[:, 0] + reach >= 0) & (centres[:, 0] - reach < width)
                 & (centres[:, 1] + reach >= 0) & (centres[:, 1] - reach < height))
    return np.flatnonzero(shown).tolist(), reach


def body_outline(bodies, b, scale):
    """(corners (n, 2) m, outline (K, 2) m) of body ``b`` as it is now: its corners in the
    world and its rounded outline (rounded_outline at ``scale`` px/m); None if its angle is
    not finite."""
    n, angle, radius = int(bodies.count[b]), float(bodies.angle[b]), float(bodies.radius[b])
    if not math.isfinite(angle):
        return None
    corners = bodies.pos[b] + _turned(bodies.local[b, :n], angle)
    return corners, rounded_outline(corners, _turned(bodies.normals[b, :n], angle), radius, scale)


def _shown(surface, world, camera):
    """(body, its corners, its outline in screen points clipped to ``surface``, its reach in
    px) for every body on screen with a finite outline."""
    bodies = getattr(world, "bodies", None)
    if bodies is None or len(bodies) == 0:
        return
    size = surface.get_size()
    shown, reach = _on_screen(bodies, camera, size)
    for b in shown:
        shape = body_outline(bodies, b, float(camera.scale))
        if shape is not None:
            yield b, shape[0], clip_convex(camera.world_to_screen(shape[1]), size), reach[b]


def draw_body_outlines(surface, world, camera, colour, width):
    """Every body's outline only, ``width`` px in ``colour`` (the integrator lab's ghost,
    game.app.lab: over the real bodies, the level showing through)."""
    for _, _, points, _ in _shown(surface, world, camera):
        if len(points) >= 2:
            pygame.draw.lines(surface, colour, len(points) >= 3, points, width)


def draw_bodies(surface, world, camera):
    """Every body: filled, outlined, its turn marked (game.draw.bodies' docstring). Off-screen
    or non-finite bodies are skipped."""
    bodies = getattr(world, "bodies", None)
    for b, corners, points, reach in _shown(surface, world, camera):
        radius = float(bodies.radius[b])
        fill = body_colour(bodies, b)
        edge = shade(fill, BODY_EDGE_SHADE)
        if len(points) >= 3:
            pygame.draw.polygon(surface, fill, points)
            pygame.draw.aalines(surface, edge, True, points)
        elif len(points) == 2:                        # a capsule of radius 0: a stick
            pygame.draw.aaline(surface, edge, points[0], points[1])
        if reach - 2.0 >= MARK_MIN_PX:
            _draw_mark(surface, camera, bodies.pos[b], corners, radius, fill)


def _draw_mark(surface, camera, centre, corners, radius, fill):
    """The turn mark: a line from the centre of mass to the middle of the first edge (a capsule:
    to its end a), stopping short of the outline, and a dot at the centre of mass."""
    if len(corners) == 2:
        tip = corners[0]
    else:
        tip = 0.5 * (corners[0] + corners[1])
    c, t = camera.world_to_screen(np.array([centre, centre + 0.85 * (tip - centre)]))
    colour = shade(fill, BODY_MARK_SHADE)
    line_width = 2 if np.hypot(*(t - c)) >= 12 else 1
    pygame.draw.line(surface, colour, c.tolist(), t.tolist(), line_width)
    pygame.draw.circle(surface, colour, c.tolist(), line_width + 1)


def draw_body_joints(surface, world, camera, joint_points):
    """The joints that hold a body, as the balls' joints look (game.draw.joints): pins as rings,
    rods as bars, ropes as lines, springs as lines tinted by their strain; the player's grab (a mouse joint) as a line from the point
    held to the cursor with a ring there. joint_points(world, k) -> (end a, end b) m."""
    bodies = getattr(world, "bodies", None)
    kinds = getattr(bodies, "joint_kind", ())
    if len(kinds) == 0:
        return
    width = max(4, int(round(ROD_WIDTH * camera.scale)))
    for k, kind in enumerate(np.asarray(kinds).tolist()):
        a, b = joint_points(world, k)
        (p, q) = camera.world_to_screen(np.array([a, b], float))
        if not (np.isfinite(p).all() and np.isfinite(q).all()):
            continue
        p, q = p.tolist(), q.tolist()
        if kind == MOUSE:
            plot_segments(surface, np.array([p]), np.array([q]), SPRING_GRAB, width=2)
            pygame.draw.circle(surface, SPRING_GRAB, q, 5, 2)
            continue
        length = float(bodies.joint_rows[k, LENGTH])
        ends = [end_kind for end_kind, _ in bodies.joint_ends[k]]
        if kind == SPRING:
            span = float(np.hypot(*(np.subtract(b, a))))
            draw_spring(surface, p, q, span / length - 1.0 if length > 0 else span, ends[1] == "anchor")
            continue
        anchor = p if ends[0] == "anchor" else q if ends[1] == "anchor" else None
        name = "rope" if kind == ROPE else "pin" if kind == PIN or length == 0.0 else "rod"
        slack = name == "rope" and float(np.hypot(*(np.subtract(b, a)))) < 0.999 * length
        path = slack_path(camera, a, b, length, world.forces.gravity) if slack else None
        draw_joint(surface, p, q, name, width, slack, q if name == "pin" else anchor, path)


# ---- the debug layers (game.draw.debug calls these) ---------------------------------------------
def draw_body_contacts(surface, world, camera):
    """The bodies' manifold points of the last sub-step (as balls' contacts, a yellow dot) with
    their normals (NORMAL_PX long, pointing from the first shape to the second)."""
    bodies = getattr(world, "bodies", None)
    points = np.asarray(getattr(bodies, "manifold_points", ()), float).reshape(-1, 2)
    if len(points) == 0:
        return
    normals = np.asarray(bodies.manifold_normals, float).reshape(-1, 2)
    s0 = camera.world_to_screen(points)
    plot_segments(surface, s0, s0 + normals * np.array((1.0, -1.0)) * NORMAL_PX, BODY_NORMAL, width=2)
    plot_points(surface, s0, CONTACT, size=5)


def draw_body_frames(surface, world, camera):
    """Each body's frame: a cross at its centre of mass, its x arm (red) and y arm (green)
    turned with the body, as Box2D's debug draw shows a transform."""
    bodies = getattr(world, "bodies", None)
    if bodies is None or len(bodies) == 0:
        return
    centre = camera.world_to_screen(np.asarray(bodies.pos, float))
    angle = np.asarray(bodies.angle, float)
    x_arm = np.stack((np.cos(angle), -np.sin(angle)), axis=1) * FRAME_PX      # screen y points down
    y_arm = np.stack((-np.sin(angle), -np.cos(angle)), axis=1) * FRAME_PX
    plot_segments(surface, centre - 0.4 * x_arm, centre + x_arm, FRAME_X, width=2)
    plot_segments(surface, centre - 0.4 * y_arm, centre + y_arm, FRAME_Y, width=2)


def draw_body_velocities(surface, world, camera):
    """Each body's velocity at its centre of mass: where it will be in VELOCITY_SECONDS."""
    bodies = getattr(world, "bodies", None)
    if bodies is None or len(bodies) == 0:
        return
    pos = np.asarray(bodies.pos, float)
    plot_segments(surface, camera.world_to_screen(pos),
                  camera.world_to_screen(pos + np.asarray(bodies.vel, float) * VELOCITY_SECONDS), VELOCITY)


def draw_sleeping_bodies(surface, world, camera):
    """Sleeping bodies: a dark dot at the centre of mass, as sleeping balls have."""
    bodies = getattr(world, "bodies", None)
    asleep = np.asarray(getattr(bodies, "asleep", ()), bool)
    if asleep.any():
        plot_points(surface, camera.world_to_screen(np.asarray(bodies.pos, float)[asleep]), SLEEPING, size=5)
