"""The editor's body tools (the dynamic bodies issue): box, plank and body polygon, and
turning a wall into a body and back. No pygame here.

- **box** (B): drag a rectangle (Shift keeps it a square); a click makes a 1 m box there.
- **plank** (L): drag a line: a capsule of the tool's radius (the panel's radius row, or
  Shift+wheel; the wheel while dragging) from the press to the release; a click makes a
  2 m plank there.
- **body polygon** (Y): click corners; a corner that would make the outline concave is
  refused as it is clicked (the reflex corner is marked while the pointer is there); a click
  on the first corner, or Enter, closes it. At most 12 corners.
- **M** (or the panel's "make body" / "make wall" row) turns the selected walls into bodies
  and the selected bodies into walls, keeping their shape, as one undoable edit:
  a segment with a radius <-> a capsule (plank), a convex polygon <-> a polygon body, a
  round peg <-> a ball, a thin segment (radius 0) -> a plank of THIN_RADIUS (a body needs an
  area: a thin wall has none), a box -> a polygon wall of its corners. A body's rounding
  (``radius``) does not survive as a polygon wall (walls' polygons are sharp); the message
  says so. Joints on a body that becomes a wall go with it (Ctrl+Z brings them back).
"""
import math

from game.editor.document import EditRefused
from game.editor.items import body_outline

BODY_TOOLS = ("box", "plank", "body")
BODY_TOOL_KEYS = {"b": "box", "l": "plank", "y": "body"}
PLANK_RADIUS = 0.1          # m: a new plank's radius (the panel and Shift+wheel change it)
MIN_PLANK_RADIUS, MAX_PLANK_RADIUS = 0.01, 2.0
THIN_RADIUS = 0.05          # m: a thin wall turned into a body becomes a plank this round
CLICK_BOX = 1.0             # m: a click with the box tool makes a box this big
CLICK_PLANK = 2.0           # m: a click with the plank tool makes a plank this long
MAX_CORNERS = 12            # a body polygon's corners at most (the level format's limit)
WALL_KEYS = ("restitution", "friction")     # what a wall and a body both carry over


def convex_check(points):
    """None when the closed outline ``points`` is convex with non-zero turns (either way
    round), else (index of the corner to mark, reason). Any corners of a convex polygon,
    in order, make a convex polygon: so a click is refused the moment it makes one that
    is not."""
    n = len(points)
    if n < 3:
        return None
    twice = sum(points[k - 1][0] * points[k][1] - points[k][0] * points[k - 1][1] for k in range(n))
    turns = []
    for k in range(n):
        (x0, y0), (x1, y1), (x2, y2) = points[k - 1], points[k], points[(k + 1) % n]
        turns.append((x1 - x0) * (y2 - y1) - (y1 - y0) * (x2 - x1))
    scale = max(1.0, max(abs(v) for q in points for v in q)) ** 2
    for k, c in enumerate(turns):
        if abs(c) <= 1e-12 * scale:
            return k, "three corners in a line"
    if abs(twice) <= 1e-12 * scale:
        return n - 1, "an outline with no area"
    for k, c in enumerate(turns):
        if c * twice < 0:
            return k, f"a concave corner at ({points[k][0]:g}, {points[k][1]:g}): a body must be convex"
    winding = sum(_turn_angle(points, k) for k in range(n))     # a self-crossing outline turns twice
    if abs(abs(winding) - 2 * math.pi) > 1e-6:
        return n - 1, "an outline that crosses itself"
    return None


def _turn_angle(points, k):
    n = len(points)
    (x0, y0), (x1, y1), (x2, y2) = points[k - 1], points[k], points[(k + 1) % n]
    ex, ey, fx, fy = x1 - x0, y1 - y0, x2 - x1, y2 - y1
    return math.atan2(ex * fy - ey * fx, ex * fx + ey * fy)


def box_from_drag(a, b, square=False):
    """The box a drag from ``a`` to ``b`` spans ({"center", "size"}), a square with Shift
    (its side the drag's longer one, towards where the drag went); None for a flat one."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    if square:
        side = max(abs(dx), abs(dy))
        dx, dy = math.copysign(side, dx or 1.0), math.copysign(side, dy or 1.0)
    w, h = abs(dx), abs(dy)
    if w < 1e-3 or h < 1e-3:
        return None
    return {"center": [round(a[0] + dx / 2, 9), round(a[1] + dy / 2, 9)], "size": [round(w, 9), round(h, 9)]}


class BodyTool:
    """The box, plank and body polygon tools of an Editor (``editor.bodies``). While one is
    used the editor's ``preview`` is ("box", corners), ("plank", [a, b], radius) or
    ("body", corners) and ``reflex`` the point of a refused corner (or None)."""

    def __init__(self, editor):
        self.ed = editor
        self.start = None           # the point a box or plank drag started at
        self.radius = PLANK_RADIUS
        self.reflex = None          # [x, y]: the corner that would make the outline concave

    def reset(self):
        self.start, self.reflex = None, None

    # ------------------------------------------------------------------ the pointer

    def press(self, p, tol, shift=False):
        if self.ed.tool in ("box", "plank"):
            self.start = self.ed.snap(p, tol)

    def motion(self, p, tol, shift=False):
        ed = self.ed
        q = ed.snap(p, tol)
        if self.start is not None:
            ed.preview = self._shape_preview(self.start, q, shift)
        elif ed.tool == "body" and ed.pending:
            points = ed.pending + [q]
            bad = convex_check(points) if len(points) <= MAX_CORNERS else (len(points) - 1, "too many corners")
            self.reflex = points[bad[0]] if bad else None
            ed.preview = ("body", points)

    def release(self, p, tol, shift=False):
        ed, start = self.ed, self.start
        self.start, ed.preview = None, None
        q = ed.snap(p, tol)
        if ed.tool == "body":
            return self._corner(q, tol)
        if start is None:
            return
        if math.dist(start, q) <= tol:              # a click: a box or plank of the default size
            h = (CLICK_BOX if ed.tool == "box" else CLICK_PLANK) / 2
            start, q = [start[0] - h, start[1] - (h if ed.tool == "box" else 0.0)], [start[0] + h, start[1] + (h if ed.tool == "box" else 0.0)]
        if ed.tool == "box":
            box = box_from_drag(start, q, shift)
            if box is None:
                ed.message = "drag a rectangle to make a box"
                return
            ed.doc.add("bodies", {"shape": "box", **box}, "add box")
        else:
            ed.doc.add("bodies", {"shape": "capsule", "a": start, "b": q, "radius": self.radius}, "add plank")

    def _shape_preview(self, a, b, shift):
        if self.ed.tool == "box":
            box = box_from_drag(a, b, shift)
            if box is None:
                return None
            return ("box", body_outline({"shape": "box", "angle": 0.0, **box}))
        return ("plank", [a, b], self.radius)

    def _corner(self, q, tol):
        ed = self.ed
        pts = ed.pending
        if len(pts) >= 3 and math.dist(q, pts[0]) <= max(tol, 1e-9):
            return self.finish()
        if pts and q == pts[-1]:
            return
        if len(pts) >= MAX_CORNERS:
            ed.message = f"a body has at most {MAX_CORNERS} corners: click the first one to close it"
            return
        bad = convex_check(pts + [q])
        if bad is not None:
            ed.message = f"corner refused: {bad[1]}"
            self.reflex = (pts + [q])[bad[0]]
            ed.preview = ("body", pts + [q])
            return
        pts.append(q)
        self.reflex = None
        ed.preview = ("body", list(pts))

    def finish(self):
        """Enter, or a click on the first corner: the body polygon clicked becomes a body."""
        ed = self.ed
        if len(ed.pending) < 3:
            ed.message = "a body polygon needs at least 3 corners"
            return
        ed.doc.add("bodies", {"shape": "polygon", "points": list(ed.pending)}, "add body polygon")
        ed.pending, ed.preview, self.reflex = [], None, None

    def wheel(self, direction):
        """Shift+wheel (or the wheel while dragging a plank): the plank tool's radius, x 1.1 a notch."""
        r = self.radius * (1.1 if direction > 0 else 1 / 1.1)
        self.radius = float(f"{min(MAX_PLANK_RADIUS, max(MIN_PLANK_RADIUS, r)):.3g}")
        self.ed.message = f"plank radius {self.radius:g} m"
        if self.ed.preview is not None and self.ed.preview[0] == "plank":
            self.ed.preview = ("plank", self.ed.preview[1], self.radius)

    # ------------------------------------------------------------------ wall <-> body

    def toggle(self):
        """M: the selected walls become bodies and the selected bodies walls (one edit)."""
        ed = self.ed
        doc = ed.doc
        refs = [r for r in doc.selection if doc.exists(r) and r[0] in ("segments", "polylines", "polygons",
                                                                           "bodies", "balls")]
        if not refs:
            ed.message = "select a wall or a body to turn it into the other"
            return
        new, notes = [], []
        for ref in refs:
            if ref[0] == "polygons" and doc.group_of(ref) is not None:
                raise EditRefused("a body must be convex: this wall is a concave polygon (cut it into convex ones)")
            name, item, note = converted(ref[0], doc.item(ref), doc.definition)
            new.append((name, item))
            if note:
                notes.append(note)
        words = {n for n, _ in new}
        label = "make body" if words <= {"bodies", "balls"} else "make wall" if "bodies" not in words else "swap walls and bodies"
        doc.swap(refs, new, label)
        ed.message = label + ("; " + "; ".join(notes) if notes else "")


def converted(name, item, definition):
    """(list name, new item, a note or None) for the wall or body ``item`` of list ``name``
    turned into the other, keeping its shape (see the module docstring)."""
    keep = {k: item[k] for k in WALL_KEYS if k in item}
    keep.update({k: v for k, v in item.items() if k.startswith(("_", "//"))})
    if name == "segments":
        if item["a"] == item["b"]:
            return "balls", {"pos": list(item["a"]), "radius": item["radius"], **keep}, None
        r = item["radius"] if item["radius"] > 0 else THIN_RADIUS
        note = f"a thin wall became a plank {THIN_RADIUS:g} m round" if item["radius"] <= 0 else None
        return "bodies", {"shape": "capsule", "a": list(item["a"]), "b": list(item["b"]), "radius": r, **keep}, note
    if name == "polylines":
        pts = item["points"]
        if len(pts) == 2 and not item["closed"]:
            return converted("segments", {"a": pts[0], "b": pts[1], "radius": item["radius"], **keep}, definition)
        if item["closed"] and convex_check(pts) is None and len(pts) <= MAX_CORNERS:
            return "bodies", {"shape": "polygon", "points": [list(p) for p in pts], "radius": item["radius"],
                              **keep}, None
        raise EditRefused("only a 2-point or a closed convex polyline can become a body")
    if name == "polygons":
        if len(item["points"]) > MAX_CORNERS:
            raise EditRefused(f"a body has at most {MAX_CORNERS} corners; this polygon has {len(item['points'])}")
        return "bodies", {"shape": "polygon", "points": [list(p) for p in item["points"]], **keep}, None
    if name == "balls":
        return "segments", {"a": list(item["pos"]), "b": list(item["pos"]), "radius": item["radius"], **keep}, None
    shape = item["shape"]
    if shape == "capsule":
        return "segments", {"a": list(item["a"]), "b": list(item["b"]), "radius": item["radius"], **keep}, None
    note = f"its rounding ({item['radius']:g} m) is gone: wall polygons are sharp" if item.get("radius") else None
    return "polygons", {"points": body_outline(item), **keep}, note
