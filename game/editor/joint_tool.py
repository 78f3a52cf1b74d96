"""The editor's joint tools: rod, rope and pin (issue 24). No pygame here.

A rod or a rope: click a ball, then another ball, or empty space for an anchor (a drag from
the first ball to the second end does the same). Each end is held at its ball's centre, or,
with Shift, at the point clicked (``offset_a``, ``offset_b`` in the ball's own frame). A rod
keeps the distance its ends had (the loader measures it); a rope is made as long as that
distance (a rope must say its length). A pin: one click on a ball makes a rod of length 0
to an anchor where the ball is clicked: its centre (a click within the pick distance of
it), else that point of the ball (an axle off its centre: a crank).
"""
import math

from game.editor.document import EditRefused
from game.editor.items import held_point, local_offset

JOINT_TOOLS = ("rod", "rope", "pin")


class JointTool:
    """The rod, rope and pin tools of an Editor (``editor.joints``). ``start`` is the end the
    joint being made starts at, (ball index, offset_a, the point pressed), or None; the
    editor's ``preview`` is ("joint", [its held point, the pointer's end]) meanwhile."""

    def __init__(self, editor):
        self.ed = editor
        self.start = None
        self.tol = 0.0              # m: the pick distance of the last press

    def reset(self):
        self.start = None

    def press(self, p, tol, shift=False):
        ed, self.tol = self.ed, tol
        ref = ed.pick(p, tol, kinds=("balls",))
        if self.start is None:
            if ref is None:
                ed.message = f"a {ed.tool} starts on a ball: click one"
            elif ed.tool == "pin":
                self._pin(ref, p, tol)
            else:
                self.start = (ref[1], self._offset(ref, p, shift), p)
                ed.message = f"{ed.tool} from balls[{ref[1]}]: click a ball, or empty space for an anchor"
            return
        self._end(p, tol, shift, ref)

    def release(self, p, tol, shift=False):
        """A drag from the first ball ends the joint where the button comes up."""
        self.tol = tol
        if self.start is not None and math.dist(p, self.start[2]) > tol:
            self._end(p, tol, shift, self.ed.pick(p, tol, kinds=("balls",)))

    def motion(self, p, tol):
        ed = self.ed
        ed.hover = ed.pick(p, tol, kinds=("balls",))
        if self.start is None:
            ed.snap(p, tol)
            return
        a = held_point(ed.doc.item(("balls", self.start[0])), self.start[1])
        if ed.hover is not None and ed.hover[1] != self.start[0]:
            end = ed.doc.item(ed.hover)["pos"]
        else:
            end = ed.snap(p, tol, exclude=("balls", self.start[0]))
        ed.preview = ("joint", [a, list(end)])

    # ------------------------------------------------------------------ making them

    def _offset(self, ref, p, shift):
        """Where a click at p holds the ball: its centre, or with Shift the point clicked."""
        ball = self.ed.doc.item(ref)
        if not shift or math.dist(p, ball["pos"]) > ball["radius"]:
            return [0.0, 0.0]
        return local_offset(ball, self._on_ball(ball, p))

    def _on_ball(self, ball, p):
        """The point clicked on ``ball``: snapped (to the grid, an end...) where that stays on it."""
        q = self.ed.snap(p, self.tol)
        return q if math.dist(q, ball["pos"]) <= ball["radius"] else list(p)

    def _pin(self, ref, p, tol):
        ball = self.ed.doc.item(ref)
        at = [float(ball["pos"][0]), float(ball["pos"][1])]
        offset = [0.0, 0.0]
        if math.dist(p, at) > tol:
            offset = local_offset(ball, self._on_ball(ball, p))
            at = held_point(ball, offset)
        item = {"kind": "rod", "a": ref[1], "b": at, "length": 0.0}
        if offset != [0.0, 0.0]:
            item["offset_a"] = offset
        self._add(item, "add pin")

    def _end(self, p, tol, shift, ref):
        ed = self.ed
        a, offset_a, _ = self.start
        item = {"kind": "rod" if ed.tool == "rod" else "rope", "a": a}
        if offset_a != [0.0, 0.0]:
            item["offset_a"] = offset_a
        if ref is not None and ref[1] == a:
            ed.message = f"a {ed.tool} joins two different balls: click another, or empty space for an anchor"
            return
        if ref is not None:
            item["b"] = ref[1]
            offset_b = self._offset(ref, p, shift)
            if offset_b != [0.0, 0.0]:
                item["offset_b"] = offset_b
            end = held_point(ed.doc.item(ref), offset_b)
        else:
            item["b"] = end = ed.snap(p, tol, exclude=("balls", a))
        if item["kind"] == "rope":
            length = math.dist(held_point(ed.doc.item(("balls", a)), offset_a), end)
            if length <= 0.0:
                ed.message = "a rope needs its two ends apart: click further from the ball"
                return
            item["length"] = round(length, 9)
        self.start, ed.preview = None, None
        self._add(item, f"add {ed.tool}")

    def _add(self, item, label):
        try:
            self.ed.doc.add("joints", item, label)
        except EditRefused as e:
            self.ed.message = str(e)
