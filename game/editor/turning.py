"""Turning and scaling the selection (walls, bodies, balls, zones alike), for an Editor
(``editor.turning``). No pygame here.

The selection's **centre** is the middle of its box; its **angle** is its first item's:
a box's ``angle``, a segment's or plank's direction from a to b, a polygon's first edge
(degrees, counter-clockwise from +x, in (-180, 180]). R turns the selection so that angle
lands on the next multiple of 15 degrees counter-clockwise (Shift+R: clockwise): a box
turned by hand to 7 degrees goes to 15, then 30; one already on a multiple goes 15 further.
The panel shows the centre and the angle; typing them moves or turns the selection there.
"""
import math

from game.editor.document import EditRefused
from game.editor.items import bbox, points_of

ROTATE_STEP = 15.0          # degrees R turns the selection, to the next multiple of it
SCALE_STEP = 1.1            # . scales the selection up by this, , down (Shift: 1.01)
SNAP_EPS = 1e-6             # degrees: an angle this close to a multiple of the step is on it


def item_angle(name, item):
    """The angle (degrees) an item points at, or None for one without (a ball, a zone)."""
    if name == "bodies" and item["shape"] == "box":
        return _wrap(math.degrees(item["angle"]))
    pts = points_of(name, item) if name in ("segments", "polylines", "polygons", "bodies") else []
    if len(pts) >= 2 and pts[0] != pts[1]:
        return _wrap(math.degrees(math.atan2(pts[1][1] - pts[0][1], pts[1][0] - pts[0][0])))
    return None


def _wrap(deg):
    d = math.remainder(deg, 360.0)
    d = 180.0 if d <= -180.0 else d
    return round(d, 9) + 0.0


def snapped_turn(angle, direction, step=ROTATE_STEP):
    """Degrees to turn ``angle`` to the next multiple of ``step`` in ``direction`` (+1
    counter-clockwise, -1 clockwise): a whole step from one already on a multiple."""
    if angle is None:
        return step * direction
    k = angle / step
    target = (math.floor(k + SNAP_EPS) + 1) * step if direction > 0 else (math.ceil(k - SNAP_EPS) - 1) * step
    return round(target - angle, 9)


class Turning:
    """Turn and scale an Editor's selection about its centre, each one undoable edit."""

    def __init__(self, editor):
        self.ed = editor

    def center(self):
        """The middle of the selection's bounding box (metres)."""
        doc = self.ed.doc
        d = doc.definition
        boxes = [bbox(n, doc.item((n, i)), d.get("balls"), d.get("bodies"))
                 for n, i in doc.selection if doc.exists((n, i))]
        x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
        x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
        return ((x0 + x1) / 2, (y0 + y1) / 2)

    def angle(self):
        """The selection's angle in degrees (its first item with one), or None."""
        doc = self.ed.doc
        for ref in doc.selection:
            if doc.exists(ref):
                a = item_angle(ref[0], doc.item(ref))
                if a is not None:
                    return a
        return None

    def step(self, direction):
        """R / Shift+R: to the next multiple of 15 degrees (see the module docstring)."""
        self.turn(snapped_turn(self.angle(), direction))

    def turn(self, degrees):
        ed = self.ed
        if not ed.doc.selection or not degrees:
            return
        try:
            ed.doc.transform(ed.doc.selection, self.center(), rotate=degrees)
            angle = self.angle()
            ed.message = f"turned {degrees:+.4g} degrees" + (f" (now {angle:.4g})" if angle is not None else "")
        except EditRefused as e:
            ed.message = f"not turned: {e}"

    def turn_to(self, degrees):
        """Turn the selection so that its angle is ``degrees`` (the panel's angle row)."""
        angle = self.angle()
        if angle is None:
            raise EditRefused("the selection has no angle to set (a ball or a zone)")
        self.ed.doc.transform(self.ed.doc.selection, self.center(), rotate=_wrap(degrees - angle))

    def move_to(self, index, value):
        """Move the selection so that its centre's coordinate ``index`` is ``value``."""
        c = self.center()
        delta = [0.0, 0.0]
        delta[index] = round(value - c[index], 9)
        self.ed.doc.move(self.ed.doc.selection, delta, label="move")

    def scale(self, factor, fine=False, fine_ratio=1.01):
        ed = self.ed
        if not ed.doc.selection:
            return
        if fine:
            factor = fine_ratio if factor > 1 else 1.0 / fine_ratio
        try:
            ed.doc.transform(ed.doc.selection, self.center(), factor=factor)
            ed.message = f"scaled x{factor:.3g}"
        except EditRefused as e:
            ed.message = f"not scaled: {e}"
