"""Turning and scaling the selection (walls, bodies, balls, zones alike), for an Editor
(``editor.turning``). No pygame here.

The selection's **centre** is the middle of its box; its **angle** is its first item's:
a box's ``angle``, a segment's or plank's direction from a to b, a polygon's first edge
(degrees, counter-clockwise from +x, in (-180, 180]). R turns the selection so that angle
lands on the next multiple of 15 degrees counter-clockwise (Shift+R: clockwise): a box
turned by hand to 7 degrees goes to 15, then 30; one already on a multiple goes 15 further.
The panel shows the centre and the angle; typing them moves or turns the selection there.

Two round **handles** stand by the selection's box (``handles``): one above its middle turns
it, one off its lower right corner scales it, both about the centre the box had when the drag
began. The turn follows the pointer's angle about that centre, free as in Inkscape and
Algodoo; with Shift held the selection's angle lands on multiples of 15 degrees (as R's do;
Figma, Illustrator and Algodoo snap on Shift). The scale is the ratio of the pointer's distance
from the centre to the press's. The frames of one drag are one undo step; a frame the level
cannot hold (a zero-size shape) is refused with the loader's one-line reason and changes
nothing, so the selection stays as the last frame it could hold left it.
"""
import math

from game.editor.document import EditRefused
from game.editor.items import bbox, points_of

ROTATE_STEP = 15.0          # degrees R turns the selection, to the next multiple of it
SCALE_STEP = 1.1            # . scales the selection up by this, , down (Shift: 1.01)
SNAP_EPS = 1e-6             # degrees: an angle this close to a multiple of the step is on it
TURN_HANDLE_GAP = 3.0       # pick distances (tol: a few px) from the box's top to the turn handle
SCALE_HANDLE_GAP = 1.5      # pick distances out from the box's lower right corner, in x and y, to the scale handle
HANDLE_HINTS = {"turn": "drag: turn about its centre (Shift: to 15-degree steps)",   # the status line's,
                "scale": "drag: scale about its centre"}                              # over a handle


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


def nearest_multiple(angle, step=ROTATE_STEP):
    """The multiple of ``step`` nearest ``angle`` (degrees)."""
    return round(angle / step) * step


class Turning:
    """Turn and scale an Editor's selection about its centre, each one undoable edit."""

    def __init__(self, editor):
        self.ed = editor

    def box(self):
        """(x0, y0, x1, y1) metres: the selection's bounding box, None when nothing is selected."""
        doc = self.ed.doc
        d = doc.definition
        boxes = [bbox(n, doc.item((n, i)), d.get("balls"), d.get("bodies"))
                 for n, i in doc.selection if doc.exists((n, i))]
        if not boxes:
            return None
        return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))

    def center(self):
        """The middle of the selection's bounding box (metres)."""
        x0, y0, x1, y1 = self.box()
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

    def turn(self, degrees, center=None, merge=None):
        """Turn the selection by ``degrees`` about ``center`` (default: its centre now); False
        (and the reason on the status line) where the level cannot hold the result."""
        ed = self.ed
        if not ed.doc.selection or not degrees:
            return True
        try:
            ed.doc.transform(ed.doc.selection, center or self.center(), rotate=degrees, merge=merge)
        except EditRefused as e:
            ed.message = f"not turned: {e}"
            return False
        angle = self.angle()
        ed.message = f"turned {degrees:+.4g} degrees" + (f" (now {angle:.4g})" if angle is not None else "")
        return True

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

    def scale(self, factor, fine=False, fine_ratio=1.01, center=None, merge=None):
        """Scale the selection by ``factor`` about ``center`` (default: its centre now); False
        (and the reason on the status line) where the level cannot hold the result."""
        ed = self.ed
        if not ed.doc.selection or factor == 1.0:
            return True
        if fine:
            factor = fine_ratio if factor > 1 else 1.0 / fine_ratio
        try:
            ed.doc.transform(ed.doc.selection, center or self.center(), factor=factor, merge=merge)
        except EditRefused as e:
            ed.message = f"not scaled: {e}"
            return False
        ed.message = f"scaled x{factor:.3g}"
        return True

    # ---- the handles ---------------------------------------------------------------------
    def handles(self, tol):
        """{"turn": (x, y), "scale": (x, y)} metres: where the handles are drawn and picked,
        ``tol`` the pick distance (their gaps from the box are in it, so on screen they stay
        the same few pixels away at any zoom); {} when nothing is selected."""
        box = self.box()
        if box is None:
            return {}
        x0, y0, x1, y1 = box
        return {"turn": ((x0 + x1) / 2, y1 + TURN_HANDLE_GAP * tol),
                "scale": (x1 + SCALE_HANDLE_GAP * tol, y0 - SCALE_HANDLE_GAP * tol)}

    def handle_at(self, p, tol):
        """"turn", "scale" or None: the handle within ``tol`` of ``p``."""
        for name, q in self.handles(tol).items():
            if math.dist(p, q) <= tol:
                return name
        return None

    def grab(self, p, tol):
        """A press at ``p`` on a handle: the drag's gesture (kind, centre, the press's angle
        about it in degrees or its distance from it, the turn or scale done so far, the
        selection's angle at the start), else None."""
        kind = self.handle_at(p, tol)
        if kind is None:
            return None
        c = self.center()
        dx, dy = p[0] - c[0], p[1] - c[1]
        start = math.degrees(math.atan2(dy, dx)) if kind == "turn" else math.hypot(dx, dy)
        return (kind, c, start, 0.0 if kind == "turn" else 1.0, self.angle())

    def drag(self, gesture, p, shift=False, merge=None):
        """The pointer at ``p`` in a handle's drag: the selection turned or scaled from where
        the drag began to follow it (the step from the last frame, merged into one undo
        step); returns the gesture with what is done now."""
        kind, c, start, done, base = gesture
        dx, dy = p[0] - c[0], p[1] - c[1]
        if kind == "turn":
            # The pointer's turn since the press, taken the short way from the last frame's (a
            # drag may go round and round).
            want = done + math.remainder(math.degrees(math.atan2(dy, dx)) - start - done, 360.0)
            if shift:        # the selection's angle to a multiple of 15 (without one: the turn itself)
                want = nearest_multiple(want) if base is None else nearest_multiple(base + want) - base
            if self.turn(round(want - done, 9), c, merge):
                done = want
            if done == want:
                angle = self.angle()
                self.ed.message = (f"turn {done:+.4g} degrees" + (f" (now {angle:.4g})" if angle is not None else "")
                                   + ("" if shift else "    Shift: 15-degree steps"))
        else:
            want = math.hypot(dx, dy) / start if start > 0 else 1.0
            if self.scale(want / done, center=c, merge=merge):
                done = want
                self.ed.message = f"scale x{done:.3g}"
        return (kind, c, start, done, base)
