"""The editor's chain tool (issue 38): one drag, or two clicks, between two ends makes a rope
or a bridge of N links: N balls joined one to the next and to the ends by N + 1 ropes or rods.
No pygame here.

An end is a ball or a body under the pointer (held at its centre, a body at the point
clicked, as the rod tool holds them) or, in empty space, an anchor (snapped as every point
is). The panel sets the links (1 to MAX_LINKS), rope or rod, and the balls' radius. A chain
is SLACK longer than its ends are apart, and its balls are put where it hangs at rest: at
equal steps of arc along the catenary of that length under the level's gravity
(game.physics.catenary), each link as long as the chord between its balls. So a new rope
bridge hangs still instead of falling from a straight line and swinging for ever, and a rod
bridge is not a chain pulled straight (which the joints' strain search would have to soften).
Without gravity the balls are evenly spaced on the straight line, the links still SLACK long.
The whole chain is one edit: one Ctrl+Z takes it back.
"""
import math

import numpy as np

from game.editor.document import EditRefused, filled_in
from game.physics.catenary import rope_curve

CHAIN_LINKS = 8             # balls in a new chain, until the panel says otherwise
MAX_LINKS = 200
CHAIN_RADIUS = 0.15         # m: its balls' radius
SLACK = 1.05                # a chain's length over its ends' distance
KINDS = ("rope", "rod")
CURVE_POINTS = 4001         # points of the catenary the balls are spaced along


def chain_points(a, b, links, gravity=(0.0, -9.81), slack=SLACK):
    """(centres, hanging): the ``links`` ball centres between points ``a`` and ``b`` of a
    chain ``slack`` times longer than their distance under ``gravity``, at equal steps of arc
    along its catenary (hanging True), or evenly on the straight line where nothing pulls it
    down (hanging False)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    steps = np.arange(1, links + 1) / (links + 1)
    curve = rope_curve(a, b, float(np.hypot(*(b - a))) * slack, gravity, points=CURVE_POINTS)
    if len(curve) <= 2:
        return (a + steps[:, None] * (b - a)).tolist(), False
    arc = np.concatenate(([0.0], np.cumsum(np.hypot(*np.diff(curve, axis=0).T))))
    at = steps * arc[-1]
    return np.column_stack((np.interp(at, arc, curve[:, 0]), np.interp(at, arc, curve[:, 1]))).tolist(), True


def chain_items(a_end, a_point, b_end, b_point, first_ball, links, kind, radius,
                offsets=((0.0, 0.0), (0.0, 0.0)), gravity=(0.0, -9.81)):
    """(balls, joints) of a chain from end ``a_end`` held at ``a_point`` to ``b_end`` held at
    ``b_point``; an end is a ball index, {"body": i} or None (an anchor at its point). The new
    balls will be indices ``first_ball``, ``first_ball`` + 1, ... ``offsets``: the ends'
    ``offset_a`` / ``offset_b`` in their ball's or body's frame. EditRefused where the ends
    are too close for the balls to fit."""
    distance = math.dist(a_point, b_point)
    if distance * SLACK / (links + 1) < 2 * radius:
        need = 2 * radius * (links + 1) / SLACK
        raise EditRefused(f"a chain of {links} balls of {radius:g} m needs its ends {need:.2f} m apart "
                          f"at least: drag further, or fewer links in the panel")
    centres, hanging = chain_points(a_point, b_point, links, gravity)
    held = [list(map(float, a_point))] + centres + [list(map(float, b_point))]
    balls = [{"pos": [round(x, 9), round(y, 9)], "radius": radius} for x, y in centres]
    ends = ([a_end if a_end is not None else held[0]] + [first_ball + k for k in range(links)]
            + [b_end if b_end is not None else held[-1]])
    joints = []
    for k in range(links + 1):
        joint = {"kind": kind, "a": ends[k], "b": ends[k + 1]}
        chord = math.dist(held[k], held[k + 1])
        if kind == "rope":      # as long as it hangs (straight, without gravity: its share of the slack)
            joint["length"] = round(chord if hanging else distance * SLACK / (links + 1), 9)
        if k == 0 and tuple(offsets[0]) != (0.0, 0.0):
            joint["offset_a"] = list(offsets[0])
        if k == links and tuple(offsets[1]) != (0.0, 0.0):
            joint["offset_b"] = list(offsets[1])
        if isinstance(joint["a"], list):            # an anchor first: the format wants a ball or body at "a"
            joint["a"], joint["b"] = joint["b"], joint["a"]
            if "offset_b" in joint:
                joint["offset_a"] = joint.pop("offset_b")
        joints.append(joint)
    return balls, joints


def add_chain(doc, balls, joints, label):
    """Append a chain's ``balls`` and ``joints`` (which hold the new balls, numbered after the
    document's own) filled in as the loader would, as one undoable edit; they become the
    selection. EditRefused with the loader's reason."""
    d = doc.definition
    made = filled_in(d, {"balls": balls, "joints": joints})
    old_balls, old_joints = d.get("balls", []), d.get("joints", [])
    doc.apply(label, {"balls": old_balls + made["balls"], "joints": old_joints + made["joints"]})
    doc.selection = ([("balls", len(old_balls) + k) for k in range(len(balls))]
                     + [("joints", len(old_joints) + k) for k in range(len(joints))])
    return doc.selection
