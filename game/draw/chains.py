"""Chains drawn as chains (issue 38): the rods and ropes of a chain as interlocking links,
alternately seen face-on (an open oval) and edge-on (a flat one), instead of bars and lines.

What is a chain: a run of small balls joined end to end. A **chain ball** is a ball of radius
CHAIN_BALL_RADIUS or less with exactly two joints, both rods of some length or ropes, neither
with a motor (a pin or a motor makes it a wheel, a third joint a truss); a **chain joint** is a
rod (length > 0) or rope without a motor that holds a chain ball at either end. So the chain
tool's chains (game.editor.chain_tool: balls of 0.15 m, one joint to the next), the bridges of
levels 23 and 24 and a rope of beads are chains, their end links to the anchors too; a lone rod
between two balls, a pendulum (one joint on its ball), the car's triangle of rods on 0.5 and
0.6 m wheels and the clock's pins are not. Joints carry no mark of the tool that made them, so
the rule reads the shape of the joints, as a player sees it.

A link is LINK_LENGTH_RADII times its chain balls' radius long on the screen (so it follows the
zoom; LINK_READ_PX at the least, smaller links read as a line), and links follow each other at
LINK_PITCH of their length, so each one's end passes through the next one's opening; a joint
holds an even number of them, their length fitted to fill it. They run from held point to held
point, over the balls, which read as beads threaded on the chain; a slack rope's links follow
its sagging curve. Where the balls are under LINK_MIN_PX on the screen (zoomed far out) the
joint is a thin line instead.

Cost: every link's outline is built by numpy for all chains at once and its pixels written in
one go, the joints drawn as lines in one more (no pygame call per link or joint); at most
CHAIN_LINKS_MAX links a frame, the chain joints past that budget drawn as lines, those off the
screen not at all. A 1,000-link chain: 1.4 to 3.5 ms a frame, where its rods as bars took 24 to
33 ms (benchmarks/README.md)."""
import numpy as np

from game.draw.plot import clip_segments, plot_segments, shade, write_pixels
from game.draw.theme import CHAIN
from game.physics.joints import ROPE

CHAIN_BALL_RADIUS = 0.3     # m: a ball this small or smaller, with exactly two links, is a chain's
LINK_LENGTH_RADII = 1.0     # a link's outer length over its chain balls' radius (before it is fitted)
LINK_PITCH = 0.7            # links' centre-to-centre step over their length (< 1: they interlock)
FACE_WIDTH = 0.6            # a link seen face-on: its width over its length (an open oval)
EDGE_WIDTH = 0.16           # seen edge-on: a flat oval, almost a bar
LINK_MIN_PX = 3.0           # links shorter on screen (by the balls' radius): the joint is drawn as a line
LINK_READ_PX = 10.0         # links shorter than this (but not than LINK_MIN_PX) are drawn this long: smaller ones read as a line
CHAIN_LINKS_MAX = 1500      # links a frame draws at most; the chain joints past them are lines
MAX_LINK_POINTS = 60_000    # outline points a frame writes at most (a link's are then fewer)
SLACK_SHADE = 0.7           # a slack rope's links, dimmer (as a slack rope is)


def chain_joints(joints, radius):
    """((J,) bool, (J,) m): which of ``joints`` (game.physics.joints.Joints) are a chain's
    (the module's rule) and, for those, the radius of their chain ball (the larger where both
    ends are one; 0 elsewhere). ``radius``: (N,) the balls' radii, m."""
    count = len(joints)
    radius = np.asarray(radius, float)
    if count == 0 or len(radius) == 0:
        return np.zeros(count, bool), np.zeros(count)
    a, b = np.asarray(joints.a), np.asarray(joints.b)
    linkable = ((np.asarray(joints.kind) == ROPE) | (np.asarray(joints.length) > 0.0)) & ~np.asarray(joints.has_motor)
    on_b = b >= 0
    n = len(radius)
    every = np.bincount(a, minlength=n) + np.bincount(b[on_b], minlength=n)
    links = np.bincount(a[linkable], minlength=n) + np.bincount(b[on_b & linkable], minlength=n)
    ball = (every == 2) & (links == 2) & (radius <= CHAIN_BALL_RADIUS)
    b_ball = on_b & ball[np.maximum(b, 0)]
    chained = linkable & (ball[a] | b_ball)
    r = np.maximum(np.where(ball[a], radius[a], 0.0), np.where(b_ball, radius[np.maximum(b, 0)], 0.0))
    return chained, np.where(chained, r, 0.0)


def face_first(joints, rows, balls):
    """(len(rows),) bool: whether each of these chain joints' first link (at its end a) is seen
    face-on. From the lower-numbered end of a joint between two balls, and at the ball of a
    joint to an anchor, the other way from the ball's other joint: along a chain numbered in
    order (the chain tool's, a level's), each ball then holds one face-on and one edge-on link.
    ``balls``: the world's ball count."""
    a, b = np.asarray(joints.a), np.asarray(joints.b)
    other = np.bincount(a, b, minlength=balls) + np.bincount(b[b >= 0], a[b >= 0], minlength=balls)
    a, b = a[rows], b[rows]
    neighbour = other[a] - b                # an anchor's ball: the far end of its other joint
    return np.where(b >= 0, a < b, neighbour < a)


def lay_links(start, end, piece_joint, link_px, joint_count, face_first=None, budget=CHAIN_LINKS_MAX):
    """The links of ``joint_count`` chain joints laid along their pieces. Pieces: (P, 2) screen
    ``start``/``end`` px, each joint's pieces consecutive and in order along it (a straight joint
    is one piece, a sagging rope its curve's), ``piece_joint`` (P,) their joint. ``link_px``
    (C,) a link's length on the screen per joint, before it is fitted: each joint holds an even
    number of links at LINK_PITCH, their length stretched or shrunk to fill it. ``face_first``
    (C,) bool: whether its first link is seen face-on (default all).

    Returns (links, lines): links a dict of (L,) arrays, one row per link, "centre" (L, 2) px,
    "along" (L, 2) its unit direction, "half" its half length px, "across" its half width px,
    "joint" its joint; lines (C,) bool, the joints drawn as lines instead (links under
    LINK_MIN_PX, or past ``budget`` links in the joints' order). Links alternate face-on and
    edge-on; a joint's two end links are seen differently (its links are even in number), so
    where two joints meet at a ball one's face-on link holds the other's edge-on one if
    ``face_first`` says so at one of them and not at the other (``face_first()``)."""
    start, end = np.asarray(start, float).reshape(-1, 2), np.asarray(end, float).reshape(-1, 2)
    piece_joint = np.asarray(piece_joint, np.int64)
    link_px = np.asarray(link_px, float)
    piece_len = np.hypot(*(end - start).T)
    straight = len(piece_len) == joint_count                    # one piece a joint
    joint_len = piece_len if straight else np.bincount(piece_joint, piece_len, minlength=joint_count)
    with np.errstate(invalid="ignore", divide="ignore"):
        n = np.where((link_px >= LINK_MIN_PX) & (joint_len > 0.0),
                     2.0 * np.maximum(1.0, np.rint(joint_len / (2.0 * LINK_PITCH * link_px))), 0.0).astype(np.int64)
    n[np.cumsum(n) > budget] = 0
    lines = n == 0
    total = int(n.sum())
    joint = np.repeat(np.arange(joint_count), n)
    index = np.arange(total) - np.repeat(np.cumsum(n) - n, n)  # the link's place along its joint
    step = (joint_len / np.maximum(n, 1))[joint]
    s = (index + 0.5) * step                                     # along its joint, px
    if straight:
        piece = joint
    else:
        piece_arc = np.cumsum(piece_len) - piece_len             # each piece's start along all of them
        s = s + (np.cumsum(joint_len) - joint_len)[joint]
        piece = np.clip(np.searchsorted(piece_arc, s, side="right") - 1, 0, len(piece_len) - 1)
        piece = _own_piece(piece, piece_joint, joint)
        s = s - piece_arc[piece]
    with np.errstate(invalid="ignore", divide="ignore"):
        along = (end - start) / piece_len[:, None]
    along = np.where(np.isfinite(along), along, (1.0, 0.0))[piece]
    half = (0.5 / LINK_PITCH) * step
    face = (index % 2 == 0) == (np.ones(joint_count, bool) if face_first is None else np.asarray(face_first))[joint]
    links = {"centre": start[piece] + along * s[:, None], "along": along, "half": half,
             "across": np.maximum(1.0, half * np.where(face, FACE_WIDTH, EDGE_WIDTH)), "joint": joint}
    return links, lines


def link_points(links, most=MAX_LINK_POINTS):
    """(L * K, 2) screen points along the links' outlines (ovals), K a link (the same for all:
    about one a pixel of the largest outline, fewer where L * K would pass ``most``)."""
    count = len(links["half"])
    if count == 0:
        return np.zeros((0, 2))
    rim = float(np.max(links["half"] + links["across"])) * np.pi * 1.15     # an oval's perimeter is below pi (a + b) * 1.15
    k = int(min(max(8.0, rim), max(8.0, most / count)))
    turn = np.linspace(0.0, 2.0 * np.pi, k, endpoint=False)
    normal = np.stack((-links["along"][:, 1], links["along"][:, 0]), axis=1)
    points = (links["centre"][:, None, :]
              + links["along"][:, None, :] * (links["half"][:, None] * np.cos(turn))[:, :, None]
              + normal[:, None, :] * (links["across"][:, None] * np.sin(turn))[:, :, None])
    return points.reshape(-1, 2)


def _own_piece(piece, piece_joint, link_joint):
    """A link's piece, moved into its own joint where rounding put it on a neighbour's."""
    wrong = piece_joint[piece] != link_joint
    if wrong.any():
        first = np.searchsorted(piece_joint, link_joint[wrong], side="left")
        last = np.searchsorted(piece_joint, link_joint[wrong], side="right") - 1
        piece = piece.copy()
        piece[wrong] = np.where(piece_joint[piece[wrong]] < link_joint[wrong], first, last)
    return piece


def draw_chains(surface, start, end, link_px, slack, face_first=None, curves=None):
    """Draw chain joints as links, all at once: one pixel write for the links' outlines
    (``link_points``, a 2 x 2 px pen) and one ``plot_segments`` for the joints drawn as lines.
    start, end: (C, 2) each joint's held points on the screen, px; link_px: (C,) its links'
    length on the screen; slack: (C,) bool, a slack rope's (dimmer); face_first: (C,) bool, its
    first link face-on (``lay_links``); curves: {joint's row: (K, 2) screen points from start to
    end}, the sagging ones. Joints wholly off the screen are left out. Returns the links drawn
    (at most CHAIN_LINKS_MAX)."""
    start, end = np.asarray(start, float).reshape(-1, 2), np.asarray(end, float).reshape(-1, 2)
    count = len(start)
    if count == 0:
        return 0
    if curves:
        paths = [np.asarray(curves[k], float) if k in curves else np.stack((start[k], end[k])) for k in range(count)]
        sizes = np.array([len(p) - 1 for p in paths], np.int64)
        points = np.concatenate(paths)
        last = np.cumsum(sizes + 1) - 1                 # each path's last point: no piece starts there
        starts = np.setdiff1d(np.arange(len(points) - 1), last[:-1])
        start, end = points[starts], points[starts + 1]
    else:
        sizes = np.ones(count, np.int64)
        points = np.concatenate((start, end))
    piece_joint = np.repeat(np.arange(count), sizes)
    link_px = np.asarray(link_px, float)
    slack = np.asarray(slack, bool)
    face_first = np.ones(count, bool) if face_first is None else np.asarray(face_first, bool)
    width, height = surface.get_size()
    pad = float(np.max(link_px))
    if not (points.min(axis=0) >= -pad).all() or not (points.max(axis=0) <= (width + pad, height + pad)).all():
        shown = clip_segments(start, end, (width, height), np.maximum(link_px, 2.0)[piece_joint])[4]
        on_screen = np.bincount(piece_joint[shown], minlength=count) > 0
        keep = on_screen[piece_joint]
        start, end, piece_joint = start[keep], end[keep], (np.cumsum(on_screen) - 1)[piece_joint[keep]]
        link_px, slack, face_first = link_px[on_screen], slack[on_screen], face_first[on_screen]
    joints = len(link_px)
    if joints == 0:
        return 0
    links, lines = lay_links(start, end, piece_joint, link_px, joints, face_first, CHAIN_LINKS_MAX)
    colours = np.array([CHAIN, shade(CHAIN, SLACK_SHADE)], float)
    outline = link_points(links)
    if len(outline):
        per_link = len(outline) // len(links["half"])
        which = np.repeat(slack[links["joint"]].astype(np.int64), per_link)
        write_pixels(surface, np.concatenate((outline, outline + (0.0, 1.0))), colours, 2,
                     np.concatenate((which, which)))
    line = lines[piece_joint]
    if line.any():
        plot_segments(surface, start[line], end[line], colours[slack[piece_joint[line]].astype(np.int64)], width=2)
    return len(links["half"])


def chain_link_px(radius_m, scale):
    """A chain's link length on the screen (px) for chain balls of ``radius_m`` at ``scale`` px/m."""
    length = LINK_LENGTH_RADII * np.asarray(radius_m, float) * float(scale)
    return np.where(length >= LINK_MIN_PX, np.maximum(length, LINK_READ_PX), length)

