"""Level checks for the balls' rods (``game.checks`` runs them with its others; pure, no pygame).

- **rod off its length**: a rod whose held points start nearer or farther apart than its
  ``length`` by more than OFF_LENGTH (a pin's, 1 mm): the first sub-step puts them there at
  once. Where the rod lies in line with others (a chain laid straight and pushed together) no
  move along the rods can do it, and the solve shakes the chain.
- **rods that cannot all hold** and **a chain pulled straight** between anchors
  (game.physics.joint_strain, which finds them; the world then solves its joints soft, so they
  settle where they can, and this says why they sag or give).

Only rods between balls and anchors take part (a rope may be slack; a body's joints are
solved soft and give).
"""
import math

from game.level.bodies import held_point
from game.physics.joint_strain import MAX_JUMPING, TAUT_TOLERANCE, strains

OFF_LENGTH = 1e-3         # relative (of the length, or of 1 m): a rod's held points this near its length are on it


def check_joints(level, finding, spend):
    """The findings above for a normalised level (``finding(point, reason)`` makes each)."""
    balls = level.get("balls", [])
    rods, held, index = [], [], []     # strains' rods; each rod's held points; its joint's index
    anchors = {}                       # (x, y) -> node
    pos = [tuple(b["pos"]) for b in balls]
    is_anchor = [False] * len(pos)
    out = []
    for i, j in enumerate(level.get("joints", [])):
        if j["kind"] != "rod" or isinstance(j["a"], dict) or isinstance(j["b"], dict):
            continue
        ends, nodes, reach = [], [], []
        for end, offset in ((j["a"], j["offset_a"]), (j["b"], j["offset_b"])):
            ends.append(held_point(level, end, offset))
            if isinstance(end, int):
                nodes.append(end)
                reach.append(math.hypot(*offset))
            else:                          # an anchor: held_point is its (x, y)
                if ends[-1] not in anchors:
                    anchors[ends[-1]] = len(pos)
                    pos.append(ends[-1])
                    is_anchor.append(True)
                nodes.append(anchors[ends[-1]])
                reach.append(0.0)
        length, apart = j["length"], math.dist(*ends)
        if abs(apart - length) > OFF_LENGTH * max(length, 1.0):
            said = "a pin" if length == 0 else f"a rod {_n(length)} m long"
            out.append(finding(_mid(*ends), f"joints[{i}] is {said} between held points {_n(apart)} m apart: "
                                            f"the first tick {'pushes' if apart < length else 'pulls'} them "
                                            f"{'apart' if apart < length else 'together'} at once"))
        rods.append((nodes[0], nodes[1], length, reach[0], reach[1]))
        held.append(ends)
        index.append(i)
    corners = list(anchors)
    if len(corners) <= MAX_JUMPING:
        span = max((math.dist(p, q) for p in corners for q in corners), default=0.0)
    else:                              # the diagonal of the anchors' bounding box
        span = math.dist(*(tuple(f(c) for c in zip(*corners)) for f in (min, max)))
    # The balls start where their rods hold them (else the finding above): the search of the
    # anchors' paths may look no further than a taut path's slack past the straight line.
    for strain in strains(rods, pos, is_anchor, spend, straight=TAUT_TOLERANCE * span):
        if strain[0] == "cannot":
            _, k, bound = strain
            out.append(finding(_mid(*held[k]), f"joints[{index[k]}] is a rod {_n(rods[k][2])} m long, but the other "
                                               f"rods hold its balls at most {_n(bound)} m apart: they cannot all hold"))
        elif strain[0] == "short":
            _, a, b, path, apart = strain
            out.append(finding(_mid(pos[a], pos[b]), f"the rods between anchors {_point(pos[a])} and {_point(pos[b])} "
                                                     f"are {_n(path)} m long, but the anchors are {_n(apart)} m apart: "
                                                     f"they cannot all hold"))
        else:
            _, a, b, path, apart, steps = strain
            out.append(finding(_mid(pos[a], pos[b]), f"a chain of {steps} rods is pulled straight between anchors "
                                                     f"{_point(pos[a])} and {_point(pos[b])} ({_n(path)} m of rods, "
                                                     f"{_n(apart)} m apart): it cannot sag without stretching, so "
                                                     f"its joints are solved soft and give; slack (longer rods) "
                                                     f"or ropes hang it"))
    return out


def _mid(p, q):
    return ((p[0] + q[0]) / 2, (p[1] + q[1]) / 2)


def _point(p):
    return f"({_n(p[0])}, {_n(p[1])})"


def _n(x):
    return f"{float(x):.3g}"
