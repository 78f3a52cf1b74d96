"""Where a moving wall will be: the editor's preview of a segment's, polyline's or
polygon's ``motion`` (issue 25), as the level format defines it. Pure functions on level
items; no pygame. The motion's mathematics is the physics' own (game.physics.motion.pose and
placed: rotate, slide); what the editor adds is a flipper's key, scripted for the preview:

    flipper: turned by angle * lift about the pivot, the lift going 0 -> 1 at ``speed``
             while its key is held (the preview holds it PREVIEW_HOLD s, then lets go).

>>> seg = {"a": [0.0, 0.0], "b": [1.0, 0.0], "radius": 0.0,
...        "motion": {"kind": "slide", "to": [0.0, 2.0], "period": 4.0}}
>>> moved("segments", seg, 2.0)["b"]          # half a period: the far end of the slide
[1.0, 2.0]
>>> turn = dict(seg, motion={"kind": "rotate", "pivot": [0.0, 0.0], "speed": 1.5707963267948966})
>>> moved("segments", turn, 1.0)["b"]         # a quarter turn in a second
[0.0, 1.0]
"""
import math

from game.editor.shapes import transformed
from game.physics import motion as physics

GHOSTS = 8                  # poses the ghost of a wall's path shows
PREVIEW_HOLD = 0.6          # s a previewed flipper stays up (and down) before it turns back


def pose(motion, t):
    """(turn in radians about the motion's pivot, offset [dx, dy] in metres) at time t (s):
    game.physics.motion.pose, a flipper's turn scripted by ``flipper_lift``."""
    phi = motion["angle"] * flipper_lift(motion, t) if motion["kind"] == "flipper" else 0.0
    theta, d = physics.pose(motion, t, phi)
    return float(theta), (float(d[0]), float(d[1]))


def flipper_lift(motion, t):
    """0 (down) .. 1 (up) of a flipper whose key is pressed at t = 0, held PREVIEW_HOLD s after
    it is up, let go, and pressed again PREVIEW_HOLD s after it is down (a cycle)."""
    ramp = abs(motion["angle"]) / motion["speed"] if motion["speed"] > 0 else 0.0
    cycle = 2.0 * (ramp + PREVIEW_HOLD)
    u = t % cycle
    if u < ramp:
        return u / ramp
    if u < ramp + PREVIEW_HOLD:
        return 1.0
    if u < 2.0 * ramp + PREVIEW_HOLD:
        return 1.0 - (u - ramp - PREVIEW_HOLD) / ramp
    return 0.0


def period(motion):
    """Seconds of one cycle of the motion: a turn, a slide there and back, a flip and back
    (inf for a rotor standing still)."""
    kind = motion["kind"]
    if kind == "rotate":
        return 2.0 * math.pi / abs(motion["speed"]) if motion["speed"] else math.inf
    if kind == "slide":
        return motion["period"]
    return 2.0 * (abs(motion["angle"]) / motion["speed"] + PREVIEW_HOLD)


def placed(name, item, motion, turn, offset):
    """``item`` (of list ``name``) with ``motion`` turned by ``turn`` radians about its pivot,
    then moved by ``offset`` (game.physics.motion.placed), its points rounded to the nanometre."""
    def point_map(p):
        q = physics.placed([p], motion, turn, offset)[0]
        return [round(float(q[0]), 9), round(float(q[1]), 9)]
    return transformed(name, item, point_map)


def moved(name, item, t):
    """The wall as it stands t seconds into the level (the item itself when it does not move)."""
    motion = item.get("motion")
    if motion is None:
        return item
    turn, offset = pose(motion, t)
    return placed(name, item, motion, turn, offset)


def ghosts(name, item, count=GHOSTS):
    """The wall at ``count`` poses along its path: a rotor over one turn, a slider from its
    place to the far end, a flipper from down to up. [] for a wall that does not move."""
    motion = item.get("motion")
    if motion is None:
        return []
    kind, out = motion["kind"], []
    for k in range(1, count + 1):
        if kind == "rotate":
            turn, offset = 2.0 * math.pi * k / (count + 1) * (1 if motion["speed"] >= 0 else -1), (0.0, 0.0)
        elif kind == "slide":
            s = k / count
            turn, offset = 0.0, (motion["to"][0] * s, motion["to"][1] * s)
        else:
            turn, offset = motion["angle"] * k / count, (0.0, 0.0)
        out.append(placed(name, item, motion, turn, offset))
    return out
