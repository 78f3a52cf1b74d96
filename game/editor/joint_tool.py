"""The editor's joint tools: rod, rope and pin (issue 24). No pygame here.

A rod or a rope: click a ball, then another ball, or empty space for an anchor (a drag from
the first ball to the second end does the same). Each end is held at its ball's centre, or,
with Shift, at the point clicked (``offset_a``, ``offset_b`` in the ball's own frame). A rod
keeps the distance its ends had (the loader measures it); a rope is made as long as that
distance (a rope must say its length). A pin: one click on a ball makes a rod of length 0
to an anchor where the ball is clicked: its centre (a click within the pick distance of
it), else that point of the ball (an axle off its centre: a crank).

A body (box, plank, polygon) is always held at the point clicked (snapped to the grid or a
corner where that stays on it), its offset in the body's own frame (origin its centre of
mass, axes the world's turned by a box's angle): a pin through a plank's middle to the world
is a see-saw; a rod from a body to a ball holds the body where it was clicked.
"""
import math

from game.editor import chain_tool
from game.editor.document import EditRefused
from game.editor.items import body_held_point, body_local_offset, held_point, local_offset

JOINT_TOOLS = ("rod", "rope", "pin", "chain")
KINDS = ("balls", "bodies")     # what a joint's end may hold


def end_of(ref):
    """A joint's end for the ball or body ``ref``: the ball's index, or {"body": i}."""
    return ref[1] if ref[0] == "balls" else {"body": ref[1]}


def _word(ref):
    return f"{ref[0]}[{ref[1]}]"


class JointTool:
    """The rod, rope and pin tools of an Editor (``editor.joints``). ``start`` is the end the
    joint being made starts at, (ball or body ref, offset_a, the point pressed), or None; the
    editor's ``preview`` is ("joint", [its held point, the pointer's end]) meanwhile."""

    def __init__(self, editor):
        self.ed = editor
        self.start = None
        self.tol = 0.0              # m: the pick distance of the last press
        # The chain tool's settings (the panel's rows while it is the tool: game.editor.chain_tool)
        self.links, self.chain_kind, self.chain_radius = chain_tool.CHAIN_LINKS, "rope", chain_tool.CHAIN_RADIUS

    def reset(self):
        self.start = None

    def press(self, p, tol, shift=False):
        ed, self.tol = self.ed, tol
        ref = ed.pick(p, tol, kinds=KINDS)
        if self.start is None:
            if ref is None and ed.tool == "chain":          # a chain may start at an anchor
                self.start = (None, [0.0, 0.0], ed.snap(p, tol))
                ed.message = f"chain of {self.links} from an anchor: click or release at its other end"
            elif ref is None:
                ed.message = f"a {ed.tool} starts on a ball or a body: click one"
            elif ed.tool == "pin":
                self._pin(ref, p, tol)
            else:
                self.start = (ref, self._offset(ref, p, shift), p)
                ed.message = f"{ed.tool} from {_word(ref)}: click a ball or body, or empty space for an anchor"
            return
        self._end(p, tol, shift, ref)

    def release(self, p, tol, shift=False):
        """A drag from the first ball ends the joint where the button comes up."""
        self.tol = tol
        if self.start is not None and math.dist(p, self.start[2]) > tol:
            self._end(p, tol, shift, self.ed.pick(p, tol, kinds=KINDS))

    def motion(self, p, tol):
        """The preview: from where the first end holds to where the second would (a ball's
        centre, the point of a body under the pointer, or the anchor)."""
        ed = self.ed
        ed.hover = ed.pick(p, tol, kinds=KINDS)
        if self.start is None:
            ed.snap(p, tol)
            if ed.hover is not None and ed.hover[0] == "bodies":
                ed.preview = ("joint-end", [self._held(ed.hover, self._offset(ed.hover, p, True))])
            else:
                ed.preview = None
            return
        a = self._held(self.start[0], self.start[1]) if self.start[0] is not None else self.start[2]
        if ed.hover is not None and ed.hover != self.start[0]:
            end = self._held(ed.hover, self._offset(ed.hover, p, False))
        else:
            end = ed.snap(p, tol, exclude=self.start[0])
        ed.preview = ("joint", [a, list(end)])
        if ed.tool == "chain":
            hanging = chain_tool.chain_points(a, end, self.links, ed.doc.definition.get("gravity", (0.0, -9.81)))[0]
            ed.preview = ("chain", [list(a)] + hanging + [list(end)])

    # ------------------------------------------------------------------ making them

    def _held(self, ref, offset):
        """Where the ball or body ``ref`` is held at ``offset`` in its frame, [x, y] metres."""
        item = self.ed.doc.item(ref)
        return body_held_point(item, offset) if ref[0] == "bodies" else held_point(item, offset)

    def _offset(self, ref, p, shift):
        """Where a click at p holds the ball (its centre, or with Shift the point clicked) or
        the body (the point clicked, snapped where that stays on it)."""
        if ref[0] == "bodies":
            body = self.ed.doc.item(ref)
            q = self.ed.snap(p, self.tol)
            on = self.ed.pick(q, self.tol, kinds=("bodies",)) == ref
            return body_local_offset(body, q if on else list(p))
        ball = self.ed.doc.item(ref)
        if not shift or math.dist(p, ball["pos"]) > ball["radius"]:
            return [0.0, 0.0]
        return local_offset(ball, self._on_ball(ball, p))

    def _on_ball(self, ball, p):
        """The point clicked on ``ball``: snapped (to the grid, an end...) where that stays on it."""
        q = self.ed.snap(p, self.tol)
        return q if math.dist(q, ball["pos"]) <= ball["radius"] else list(p)

    def _pin(self, ref, p, tol):
        if ref[0] == "bodies":          # pinned to the world at the point clicked
            offset = self._offset(ref, p, True)
            item = {"kind": "rod", "a": end_of(ref), "b": self._held(ref, offset), "length": 0.0}
            if offset != [0.0, 0.0]:
                item["offset_a"] = offset
            return self._add(item, "add pin")
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
        if ed.tool == "chain":
            return self._chain(p, tol, shift, ref)
        a, offset_a, _ = self.start
        item = {"kind": "rod" if ed.tool == "rod" else "rope", "a": end_of(a)}
        if offset_a != [0.0, 0.0]:
            item["offset_a"] = offset_a
        if ref is not None and ref == a:
            ed.message = f"a {ed.tool} joins two different balls or bodies: click another, or empty space for an anchor"
            return
        if ref is not None:
            item["b"] = end_of(ref)
            offset_b = self._offset(ref, p, shift)
            if offset_b != [0.0, 0.0]:
                item["offset_b"] = offset_b
            end = self._held(ref, offset_b)
        else:
            item["b"] = end = ed.snap(p, tol, exclude=a)
        if item["kind"] == "rope":
            length = math.dist(self._held(a, offset_a), end)
            if length <= 0.0:
                ed.message = "a rope needs its two ends apart: click further from the ball"
                return
            item["length"] = round(length, 9)
        self.start, ed.preview = None, None
        self._add(item, f"add {ed.tool}")

    def _chain(self, p, tol, shift, ref):
        """The second end of a chain: its balls and links, one edit."""
        ed = self.ed
        a, offset_a, pressed = self.start
        if ref is not None and ref == a:
            ed.message = "a chain joins two different ends: click another ball or body, or empty space"
            return
        a_point = self._held(a, offset_a) if a is not None else pressed
        if ref is not None:
            offset_b = self._offset(ref, p, shift)
            b_point = self._held(ref, offset_b)
        else:
            offset_b, b_point = [0.0, 0.0], ed.snap(p, tol, exclude=a)
        try:
            balls, joints = chain_tool.chain_items(
                None if a is None else end_of(a), a_point, None if ref is None else end_of(ref), b_point,
                len(ed.doc.definition.get("balls", [])), self.links, self.chain_kind, self.chain_radius,
                (offset_a, offset_b), ed.doc.definition.get("gravity", (0.0, -9.81)))
            chain_tool.add_chain(ed.doc, balls, joints, f"add chain of {self.links}")
        except EditRefused as e:
            ed.message = str(e)
            return
        self.start, ed.preview = None, None
        ed.message = f"a {self.chain_kind} chain of {self.links} balls (Ctrl+Z takes it back)"

    def _add(self, item, label):
        try:
            self.ed.doc.add("joints", item, label)
        except EditRefused as e:
            self.ed.message = str(e)
