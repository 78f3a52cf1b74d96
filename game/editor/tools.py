"""The editor's logic over world coordinates: tools, snapping, properties, saving.

No pygame here: the mode turns events into calls such as ``press(p, tol)``,
``motion(p, tol)``, ``release(p, tol)``, ``key("d", ctrl=True)``, where ``p`` is a point in
metres and ``tol`` the pick distance in metres (a few pixels at the camera's scale).
Every change to the level goes through the Document's undoable edits.

Tools (keys 1-8): select and move, segment, polyline, polygon, ball, spawner, zone, spring.
"""
import json
import math
import os
import re

import numpy as np

from game.physics import geometry
from game.level import LevelError, LevelWatcher, load_document, loads, save_document
from game.level.errors import stem
from game.editor.document import LISTS, ZONE_KINDS, ZONE_SHAPES, EditRefused, bbox, handles, points_of
from game.editor.shapes import arc_points
from game.physics.integrators import ORDER

TOOLS = ("select", "segment", "polyline", "polygon", "ball", "spawner", "zone", "spring", "arc")
TOOL_KEYS = {str(k + 1): name for k, name in enumerate(TOOLS)}
GRID = 0.5                  # m: the grid's starting size
GRID_SIZES = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0)   # m: sizes Ctrl+wheel steps through
PEG_RADIUS = 0.2            # m: a click with the segment tool makes a round peg this big
NUDGE = 0.05                # m: an arrow key moves the selection this far (a grid step with Shift)
DUPLICATE_OFFSET = 0.5      # m: Ctrl+D puts the copy this far right and down
PICK_ORDER = ("balls", "spawners", "springs", "segments", "polylines", "polygons", "zones")
LEVEL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_\-]{0,63}\Z")

# Step of each property for the wheel, + and -; keys not here are not numbers to step.
PROPERTY_STEPS = {"radius": 0.05, "restitution": 0.05, "friction": 0.05, "rolling": 0.01,
                  "mass": 0.1, "density": 0.1, "vel": 0.5, "spin": 1.0, "every": 0.05, "max": 10,
                  "count": 1, "strength": 1.0, "stiffness": 5.0, "damping": 0.1, "rest": 0.1,
                  "jitter": 0.05}
SIGNED = ("vel", "spin", "strength", "pos", "a", "b", "corner")   # properties that may go below zero
INTEGER = ("max", "count")
# Sizes step in proportion (+ and - multiply or divide by 1.1; Shift: 1.01), so a press does
# as much to a 5 cm peg as to a 3 m ball; from 0 (a thin wall) + gives the first step here.
PROPORTIONAL = {"radius": 0.05, "mass": 0.1, "density": 0.1, "stiffness": 5.0, "every": 0.05}
RATIO, FINE_RATIO = 1.1, 1.01
ROTATE_STEP = 15.0          # degrees R turns the selection (Shift: 1 degree)
SCALE_STEP = 1.1            # . scales the selection up by this, , down (Shift: 1.01)
# The level panel (nothing selected): its rows, (label, key, index); keys are top-level
# settings ("material.friction": a key of the material).
LEVEL_ROWS = (("name", "name", None), ("description", "description", None),
              ("gravity x", "gravity", 0), ("gravity y", "gravity", 1),
              ("bounds x min", "bounds", 0), ("bounds y min", "bounds", 1),
              ("bounds x max", "bounds", 2), ("bounds y max", "bounds", 3),
              ("restitution", "material.restitution", None), ("friction", "material.friction", None),
              ("rolling", "material.rolling", None), ("density", "material.density", None),
              ("integrator", "integrator", None), ("sub-steps", "substeps", None))
LEVEL_STEPS = {"gravity": 0.5, "bounds": 1.0, "material.restitution": 0.05, "material.friction": 0.05,
               "material.rolling": 0.01, "material.density": 0.1, "substeps": 1}
TEXT_KEYS = ("name", "description")
# The arc tool's shape while it is being set (before Enter makes it a polyline).
ARC_ROWS = (("centre x", "center", 0), ("centre y", "center", 1), ("radius", "radius", None),
            ("start angle", "start", None), ("end angle", "end", None), ("pieces", "pieces", None))
ARC_STEPS = {"center": 0.5, "radius": 0.25, "start": 15.0, "end": 15.0, "pieces": 1}

TEMPLATE = {
    "$schema": "./level.schema.json",
    "format": 1,
    "name": "New level",
    "description": "",
    "bounds": [0, 0, 32, 18],
    "polylines": [{"points": [[0, 18], [0, 0], [32, 0], [32, 18]]}],
}


def template_definition(name="New level"):
    """A small new level (a box open at the top), normalised as the loader would."""
    return loads(json.dumps(template_document(name)), "<new level>")


def template_document(name="New level"):
    """The new level as its author writes it (what saving it unchanged writes)."""
    return json.loads(json.dumps(dict(TEMPLATE, name=name)))


class Editor:
    """The editing state: a Document, the current tool, the gesture in progress, the grid.

    Attributes the mode draws: ``tool``, ``doc.selection``, ``preview`` (shape being drawn:
    (kind, points) or None), ``box`` (selection rectangle corners or None), ``snapped``
    ((point, what) of the last snap or None), ``hover`` (the ref under the pointer or None),
    ``cursor`` (metres), ``message`` (one line for the player or None), ``grid`` (m),
    ``grid_on``, ``zone_kind``, ``prop`` (the property row the keys change).
    """

    def __init__(self, document):
        self.doc = document
        self.tool = "select"
        self.grid, self.grid_on = GRID, True
        self.zone_kind = "goal"
        self.preview = None
        self.box = None
        self.snapped = None
        self.cursor = (0.0, 0.0)
        self.message = None
        self.pending = []           # corners of the polyline or polygon being clicked
        self.arc = None             # the arc tool's shape being set: center, radius, start, end, pieces
        self.corner = None          # (ref, corner index): the polyline or polygon corner last dragged
        self.hover = None           # the item under the pointer (select and spring tools)
        self._index_cache, self._index_key = None, None
        self.prop = 0
        self._gesture = None
        self._merge = 0
        self._saved_text = None     # what our last save wrote (not a foreign change)
        self.watcher = _watcher(document.path)

    # ------------------------------------------------------------------ tools

    def set_tool(self, name):
        if name not in TOOLS:
            raise ValueError(f"expected one of {TOOLS}, got {name!r}")
        self.tool = name
        self.pending, self.preview, self.box, self._gesture = [], None, None, None
        self.arc = None

    def press(self, p, tol, shift=False):
        """Left button down at p (metres)."""
        p = _pt(p)
        self.cursor = p
        self.message = None
        t = self.tool
        if t == "select":
            self._press_select(p, tol, shift)
        elif t == "arc":
            self.arc = None
            self._gesture = ("draw", self.snap(p, tol))
        elif t in ("segment", "zone"):
            self._gesture = ("draw", self.snap(p, tol))
        elif t == "spring":
            ref = self.pick(p, tol, kinds=("balls",))
            if ref is None:
                self.message = "a spring starts on a ball: press on one"
            else:
                self._gesture = ("spring", ref)

    def motion(self, p, tol):
        """The pointer moved to p (button held or not)."""
        p = _pt(p)
        self.cursor = p
        g = self._gesture
        self.hover = None
        if g is None:
            if self.tool == "select":
                self.hover = self.pick(p, tol)
            elif self.tool == "spring":
                self.hover = self.pick(p, tol, kinds=("balls",))
            else:
                q = self.snap(p, tol)
                if self.pending:
                    self.preview = (self.tool, self.pending + [q])
            return
        kind = g[0]
        try:
            if kind == "move":
                _, start, done = g
                want = self._snap_delta(p[0] - start[0], p[1] - start[1])
                step = (want[0] - done[0], want[1] - done[1])
                if step != (0.0, 0.0):
                    self.doc.move(self.doc.selection, step, merge=self._merge)
                    self._gesture = ("move", start, want)
            elif kind == "handle":
                _, ref, h = g
                self.doc.move_handle(ref, h, self.snap(p, tol, exclude=ref), merge=self._merge)
            elif kind == "box":
                self.box = (g[1], p)
            elif kind == "draw" and self.tool == "arc":
                self.arc = self._arc_from(g[1], self.snap(p, tol))
                self.preview = ("polyline", arc_points(**self.arc)[0]) if self.arc else None
            elif kind == "draw":
                self.preview = (self.tool, [g[1], self.snap(p, tol)])
            elif kind == "spring":
                a = self.doc.item(g[1])["pos"]
                self.preview = ("spring", [a, self.snap(p, tol, exclude=g[1])])
        except EditRefused as e:
            self.message = str(e)

    def release(self, p, tol, shift=False):
        """Left button up at p."""
        p = _pt(p)
        self.motion(p, tol)
        g, self._gesture = self._gesture, None
        self.preview, box, self.box = None, self.box, None
        self.doc.end_merge()
        t = self.tool
        try:
            if g is not None and g[0] == "box":
                self._select_box(g[1], p, shift)
            elif g is not None and g[0] == "draw" and t == "segment":
                a, b = g[1], self.snap(p, tol)
                if math.dist(a, b) <= tol:
                    self.doc.add("segments", {"a": a, "b": a, "radius": PEG_RADIUS}, "add peg")
                else:
                    self.doc.add("segments", {"a": a, "b": b})
            elif g is not None and g[0] == "draw" and t == "zone":
                a, b = g[1], self.snap(p, tol)
                if abs(a[0] - b[0]) <= tol or abs(a[1] - b[1]) <= tol:
                    self.message = "drag a rectangle to make a zone"
                else:
                    self.doc.add("zones", {"kind": self.zone_kind, "rect": [a, b]})
            elif g is not None and g[0] == "draw" and t == "arc":
                self.arc = self._arc_from(g[1], self.snap(p, tol))
                if self.arc is None:
                    self.message = "drag from the centre out to the arc's start"
                else:
                    self.preview = ("polyline", arc_points(**self.arc)[0])
                    self.message = "arc: Enter makes it; the panel sets its angles"
            elif g is not None and g[0] == "spring":
                self._end_spring(g[1], p, tol)
            elif t in ("polyline", "polygon"):
                self.pending.append(self.snap(p, tol))
                self.preview = (t, list(self.pending))
            elif t == "ball":
                self.doc.add("balls", {"pos": self.snap(p, tol)})
            elif t == "spawner":
                self.doc.add("spawners", {"pos": self.snap(p, tol)})
        except EditRefused as e:
            self.message = str(e)

    def double_click(self, p, tol):
        """A double click ends a polyline (the second click already added its point)."""
        if self.tool == "polyline":
            if len(self.pending) >= 2 and self.pending[-1] == self.pending[-2]:
                self.pending.pop()
            self.finish(closed=False)

    def _arc_from(self, center, rim):
        """The arc tool's shape for a drag from ``center`` to ``rim``: that radius, starting
        at the rim point's angle and turning half a circle counter-clockwise (dragged to the
        left of the centre: a cup); None for a drag too short."""
        dx, dy = rim[0] - center[0], rim[1] - center[1]
        radius = math.hypot(dx, dy)
        if radius < 1e-3:
            return None
        start = round(math.degrees(math.atan2(dy, dx)), 6)
        return {"center": [float(center[0]), float(center[1])], "radius": round(radius, 9),
                "start": start, "end": start + 180.0, "pieces": None}

    def finish(self, closed=False):
        """End the polyline or polygon being clicked (Enter; C closes a polyline); the arc
        tool's arc becomes a polyline."""
        pts, t = self.pending, self.tool
        if t == "arc":
            if self.arc is None:
                self.message = "drag from the centre out to the arc's start"
                return
            points, full = arc_points(**self.arc)
            try:
                self.doc.add("polylines", {"points": points, "closed": full}, "add arc")
            except EditRefused as e:
                self.message = str(e)
                return
            self.arc, self.preview = None, None
            return
        try:
            if t == "polyline":
                if len(pts) < 2:
                    self.message = "a polyline needs at least 2 points"
                    return
                self.doc.add("polylines", {"points": pts, "closed": bool(closed)})
            elif t == "polygon":
                if len(pts) < 3:
                    self.message = "a polygon needs at least 3 corners"
                    return
                self.doc.add("polygons", {"points": pts})
            else:
                return
        except EditRefused as e:
            self.message = str(e)       # the corners stay: Backspace takes the last one back
            return
        self.pending, self.preview = [], None

    def _press_select(self, p, tol, shift):
        sel = self.doc.selection
        for ref in sel:
            for h, q in handles(ref[0], self.doc.item(ref)):
                if math.dist(p, q) <= tol:
                    self._merge += 1
                    self._gesture = ("handle", ref, h)
                    if isinstance(h, int):
                        self.corner = (ref, h)
                    return
        ref = self.pick(p, tol)
        if ref is None:
            self._gesture = ("box", p)
            self.box = (p, p)
            return
        group = self.doc.group_of(ref)
        refs = [ref] if group is None else [("polygons", group[1] + j) for j in range(group[2])]
        if shift:                  # a non-convex polygon's pieces are chosen together
            self.doc.selection = ([r for r in sel if r not in refs] if ref in sel
                                  else sel + [r for r in refs if r not in sel])
        elif ref not in sel:
            self.doc.selection = refs
        if ref in self.doc.selection:
            self._merge += 1
            self._gesture = ("move", p, (0.0, 0.0))

    def _select_box(self, a, b, shift):
        x0, x1 = sorted((a[0], b[0]))
        y0, y1 = sorted((a[1], b[1]))
        found = []
        d = self.doc.definition
        if x1 - x0 > 0 or y1 - y0 > 0:
            for name in LISTS:
                for i, item in enumerate(d.get(name, [])):
                    bx0, by0, bx1, by1 = bbox(name, item, d.get("balls"))
                    if x0 <= bx0 and bx1 <= x1 and y0 <= by0 and by1 <= y1:
                        found.append((name, i))
        if shift:
            self.doc.selection = self.doc.selection + [r for r in found if r not in self.doc.selection]
        else:
            self.doc.selection = found

    def _end_spring(self, a_ref, p, tol):
        b_ref = self.pick(p, tol, kinds=("balls",))
        if b_ref == a_ref:
            self.message = "a spring joins two different balls, or a ball and a point"
            return
        b = b_ref[1] if b_ref is not None else self.snap(p, tol)
        self.doc.add("springs", {"a": a_ref[1], "b": b})

    def _snap_delta(self, dx, dy):
        if self.grid_on:
            g = self.grid
            return (round(dx / g) * g, round(dy / g) * g)
        return (dx, dy)

    # ------------------------------------------------------------------ keys

    def key(self, name, shift=False, ctrl=False):
        """A key by pygame's name ("z", "delete", "left", "return", "1"...); True if used."""
        doc = self.doc
        self.message = None
        if ctrl:
            if name == "z" and not shift:
                self._say_history(doc.undo(), "undo")
            elif name == "y" or (name == "z" and shift):
                self._say_history(doc.redo(), "redo")
            elif name == "d":
                doc.duplicate(doc.selection, (DUPLICATE_OFFSET, -DUPLICATE_OFFSET))
            elif name == "a":
                d = doc.definition
                doc.selection = [(n, i) for n in LISTS for i in range(len(d.get(n, [])))]
            else:
                return False
            return True
        if name in TOOL_KEYS:
            self.set_tool(TOOL_KEYS[name])
        elif name in ("delete", "backspace"):
            if self.pending and name == "backspace":
                self.pending.pop()
                self.preview = (self.tool, list(self.pending)) if self.pending else None
            else:
                try:
                    doc.delete(doc.selection)
                except EditRefused as e:
                    self.message = str(e)
        elif name in ("left", "right", "up", "down") and doc.selection:
            step = self.grid if shift else NUDGE
            dx, dy = {"left": (-step, 0), "right": (step, 0), "up": (0, step), "down": (0, -step)}[name]
            doc.move(doc.selection, (dx, dy), label="nudge")
        elif name in ("return", "enter"):
            self.finish(closed=self.tool == "polygon")
        elif name == "c" and self.tool == "polyline":
            self.finish(closed=True)
        elif name == "g":
            self.grid_on = not self.grid_on
            self.message = f"grid {'on' if self.grid_on else 'off'} ({_num(self.grid)} m)"
        elif name == "k" and self.tool == "zone":
            self.zone_kind = ZONE_KINDS[(ZONE_KINDS.index(self.zone_kind) + 1) % len(ZONE_KINDS)]
            self.message = f"new zones: {self.zone_kind}"
        elif name == "escape" and (self.pending or self._gesture or self.arc):
            self.pending, self.preview, self._gesture, self.box, self.arc = [], None, None, None, None
        elif name == "r" and doc.selection:
            self.turn(-ROTATE_STEP if shift else ROTATE_STEP, fine=False)
        elif name in (".", ",") and doc.selection:
            self.resize(SCALE_STEP if name == "." else 1.0 / SCALE_STEP, fine=shift)
        else:
            return False
        return True

    def selection_center(self):
        """The middle of the selection's bounding box (metres)."""
        d = self.doc.definition
        boxes = [bbox(n, self.doc.item((n, i)), d.get("balls")) for n, i in self.doc.selection if self.doc.exists((n, i))]
        x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
        x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
        return ((x0 + x1) / 2, (y0 + y1) / 2)

    def turn(self, degrees, fine=False):
        """R / Shift+R: turn the selection about its centre (one undo step)."""
        if not self.doc.selection:
            return
        try:
            self.doc.transform(self.doc.selection, self.selection_center(), rotate=degrees)
            self.message = f"turned {degrees:+g} degrees"
        except EditRefused as e:
            self.message = f"not turned: {e}"

    def resize(self, factor, fine=False):
        """. / , (Shift: finer): scale the selection about its centre (one undo step)."""
        if not self.doc.selection:
            return
        if fine:
            factor = FINE_RATIO if factor > 1 else 1.0 / FINE_RATIO
        try:
            self.doc.transform(self.doc.selection, self.selection_center(), factor=factor)
            self.message = f"scaled x{factor:.3g}"
        except EditRefused as e:
            self.message = f"not scaled: {e}"

    def _say_history(self, label, verb):
        self.message = f"{verb}: {label}" if label else f"nothing to {verb}"

    def grid_step(self, direction):
        """Ctrl+wheel: the next grid size up (direction > 0) or down."""
        sizes = GRID_SIZES
        k = min(range(len(sizes)), key=lambda i: abs(sizes[i] - self.grid))
        self.grid = sizes[max(0, min(len(sizes) - 1, k + (1 if direction > 0 else -1)))]
        self.message = f"grid {_num(self.grid)} m"

    # ------------------------------------------------------------------ snapping and picking

    def snap(self, p, tol, exclude=None):
        """p snapped to the nearest end, corner or centre within tol, else to the grid.

        Sets ``snapped`` to (point, what) (what: "end of segments[3]", "grid 0.5 m") or None;
        returns the point as [x, y] metres."""
        p = _pt(p)
        index = self._index()
        if len(index.points):
            dist = np.hypot(index.points[:, 0] - p[0], index.points[:, 1] - p[1])
            if exclude is not None:
                dist[index.owners == index.code(exclude)] = np.inf
            k = int(np.argmin(dist))
            if dist[k] <= tol:
                name, i = index.ref(index.owners[k])
                q = [float(v) for v in index.points[k]]
                self.snapped = (q, f"{_point_word(name)} of {name}[{i}]")
                return q
        if self.grid_on:
            g = self.grid
            q = [round(p[0] / g) * g, round(p[1] / g) * g]
            q = [float(round(v, 9)) for v in q]        # 0.1 * 3 -> 0.3, not 0.30000000000000004
            self.snapped = (q, f"grid {_num(g)} m")
            return q
        self.snapped = None
        return list(p)

    def pick(self, p, tol, kinds=LISTS):
        """The item under p (metres) within tol: balls, spawners and springs first, then
        statics, zones last; the nearest one of a kind. A ref or None."""
        p = np.asarray(p, dtype=float)
        index = self._index()
        for name in PICK_ORDER:
            if name not in kinds:
                continue
            gap, i = index.nearest(name, p, self.doc.definition)
            if gap <= tol:
                return (name, i)
        return None

    def _index(self):
        key = (self.doc._state(), id(self.doc.definition))
        if self._index_key != key:
            self._index_cache, self._index_key = _Index(self.doc.definition), key
        return self._index_cache

    # ------------------------------------------------------------------ properties

    def panel_title(self):
        """What the property panel is about: "balls[3]", "2 items", "level", "new arc"..."""
        if self.tool == "arc" and self.arc is not None:
            return "new arc (Enter makes it)"
        if self.pending:
            return f"new {self.tool}: {len(self.pending)} point{'s' if len(self.pending) != 1 else ''}"
        sel = [r for r in self.doc.selection if self.doc.exists(r)]
        if not sel:
            return "level"
        group = self.doc.group_of(sel[0])
        if group is not None and len(sel) == group[2]:
            return f"polygon (polygons[{group[1]}..{group[1] + group[2] - 1}])"
        return f"{sel[0][0]}[{sel[0][1]}]" if len(sel) == 1 else f"{len(sel)} items"

    def properties(self):
        """Rows of the property panel: (label, key, index, value); index is 0 or 1 for a
        vector's x or y, None for a number or a choice. The selection's keys (its points'
        coordinates first); with nothing selected the level's own settings ("level:..."
        keys); while a shape is being drawn, the arc tool's ("arc:...") or none."""
        if self.tool == "arc" and self.arc is not None:
            return [(label, "arc:" + key, index, self.arc[key][index] if index is not None else
                     (self.arc[key] if self.arc[key] is not None else len(arc_points(**self.arc)[0]) - 1))
                    for label, key, index in ARC_ROWS]
        if self.pending:
            return []                           # the panel shows the shape being drawn, not an old selection
        sel = [r for r in self.doc.selection if self.doc.exists(r)]
        if not sel:
            return self._level_rows()
        name, _ = sel[0]
        item = self.doc.item(sel[0])
        rows = self._point_rows(sel[0], item) if len(sel) == 1 else []
        if name == "zones":
            rows.append(("kind", "kind", None, item["kind"]))
            rows.append(("shape", "shape", None, next(k for k in ZONE_SHAPES if k in item)))
        for key, value in item.items():
            if key not in PROPERTY_STEPS:
                continue
            if name == "zones" and ((key == "count") != (item["kind"] == "goal")
                                    or (key == "strength") != (item["kind"] == "attractor")):
                continue
            if isinstance(value, list):
                rows.append((f"{key} x", key, 0, value[0]))
                rows.append((f"{key} y", key, 1, value[1]))
            else:
                rows.append((key, key, None, value))
        if name == "balls":
            other = "density" if "mass" in item else "mass"
            rows.append((f"use {other}", "swap", None, other))
        return rows

    def _point_rows(self, ref, item):
        """The selected item's points, to type: a ball's or spawner's pos, a segment's ends,
        the polyline or polygon corner last dragged (else its first)."""
        name = ref[0]
        if name in ("balls", "spawners"):
            return [("pos x", "pos", 0, item["pos"][0]), ("pos y", "pos", 1, item["pos"][1])]
        if name == "segments":
            return [(f"{end} {axis}", end, k, item[end][k]) for end in ("a", "b") for k, axis in enumerate("xy")]
        if name in ("polylines", "polygons"):
            if self.doc.group_of(ref) is not None:
                return []                       # a piece's corner is not one the author drew
            c = self.corner[1] if self.corner is not None and self.corner[0] == ref else 0
            c = min(c, len(item["points"]) - 1)
            return [(f"corner {c} {axis}", "corner", (c, k), item["points"][c][k]) for k, axis in enumerate("xy")]
        return []

    def _level_rows(self):
        d = self.doc.definition
        rows = []
        for label, key, index in LEVEL_ROWS:
            if key.startswith("material."):
                value = d["material"][key.split(".", 1)[1]]
            else:
                value = d.get(key)
                if index is not None:
                    value = value[index]
            rows.append((label, "level:" + key, index, value))
        return rows

    def select_prop(self, direction):
        rows = self.properties()
        if rows:
            self.prop = (self.prop + direction) % len(rows)

    def step_prop(self, direction, fine=False):
        """Change the current property by one step up or down (a tenth with ``fine``)."""
        row = self._row()
        if row is None:
            return
        label, key, index, value = row
        sel = self.doc.selection
        up = direction > 0
        try:
            if key.startswith("arc:"):
                key = key[4:]
                step = ARC_STEPS[key] * (0.1 if fine and key != "pieces" else 1)
                self._set_arc(key, index, value + step * (1 if up else -1))
                return
            if key.startswith("level:"):
                key = key[6:]
                if key == "integrator":
                    k = (ORDER.index(value) + (1 if up else -1)) % len(ORDER) if value in ORDER else 0
                    self._set_level("integrator", None, ORDER[k])
                elif key in TEXT_KEYS:
                    self.message = f"{label}: press V (or click the row) to type it"
                else:
                    step = LEVEL_STEPS[key] * (0.1 if fine and key != "substeps" else 1)
                    self._set_level(key, index, value + step * (1 if up else -1))
                return
            if key in PROPORTIONAL:
                ratio = FINE_RATIO if fine else RATIO
                if value > 0:
                    number = value * ratio if up else value / ratio
                else:
                    number = PROPORTIONAL[key] if up else 0.0
                self._set_number(key, index, float(f"{number:.4g}") if number > 0 else 0.0)
            elif key == "kind":
                k = (ZONE_KINDS.index(value) + (1 if direction > 0 else -1)) % len(ZONE_KINDS)
                self.doc.set_property(sel, "kind", ZONE_KINDS[k])
            elif key == "shape":
                k = (ZONE_SHAPES.index(value) + (1 if direction > 0 else -1)) % len(ZONE_SHAPES)
                m = self._action()
                for ref in sel:
                    if ref[0] == "zones":
                        self.doc.set_zone_shape(ref, ZONE_SHAPES[k], merge=m)
            elif key == "swap":
                self._swap_mass(sel, value)
            else:
                step = (PROPERTY_STEPS.get(key) or NUDGE) * (0.1 if fine and key not in INTEGER else 1)
                self._set_number(key, index, value + step * (1 if direction > 0 else -1))
        except EditRefused as e:
            self.message = f"{label}: {e}"
        self.doc.end_merge()

    def type_prop(self, text):
        """Set the current property to a typed number; one line in ``message`` if it is not one."""
        row = self._row()
        if row is None:
            return False
        label, key, index, value = row
        if key in ("kind", "shape", "swap", "level:integrator"):
            self.message = f"{label}: use + and - to choose"
            return False
        if key[6:] in TEXT_KEYS and key.startswith("level:"):
            try:
                self._set_level(key[6:], None, text.strip())
            except EditRefused as e:
                self.message = f"{label}: {e}"
                return False
            return True
        try:
            number = float(text.strip())
        except ValueError:
            self.message = f"{label}: expected a number, got {text.strip()[:20]!r}"
            return False
        if not math.isfinite(number):
            self.message = f"{label}: expected a finite number, got {text.strip()[:20]!r}"
            return False
        try:
            if key.startswith("arc:"):
                self._set_arc(key[4:], index, number)
            elif key.startswith("level:"):
                self._set_level(key[6:], index, number)
            else:
                self._set_number(key, index, number)
        except EditRefused as e:
            self.message = f"{label}: {e}"
            return False
        self.doc.end_merge()
        return True

    def _row(self):
        rows = self.properties()
        if not rows:
            return None
        self.prop %= len(rows)
        return rows[self.prop]

    def _action(self):
        """A fresh merge key: the edits of one user action on several items are one undo step."""
        self.doc.end_merge()
        self._merge += 1
        return ("action", self._merge)

    def _set_arc(self, key, index, number):
        """Change the arc being set (not an edit yet: Enter makes it one)."""
        arc = self.arc
        if key == "center":
            arc["center"][index] = float(round(number, 9))
        elif key == "radius":
            if number <= 0:
                raise EditRefused("expected a radius above 0")
            arc["radius"] = float(round(number, 9))
        elif key == "pieces":
            arc["pieces"] = max(1, min(360, int(round(number))))
        else:
            arc[key] = float(round(number, 6))
            if abs(arc["end"] - arc["start"]) < 1e-6:
                raise EditRefused("expected an arc: the start and end angles are the same")
        self.preview = ("polyline", arc_points(**arc)[0])

    def _set_level(self, key, index, value):
        """Set a level setting (``key`` as in LEVEL_ROWS) as one undoable edit, refused with
        the loader's reason when the level would not load. A new material carries over to
        every item that had the old one's value (what the file leaves to the material)."""
        d = self.doc.definition
        if key.startswith("material."):
            part = key.split(".", 1)[1]
            value = float(round(max(0.0, value), 9))
            material = dict(d["material"], **{part: value})
            self._check_level(material=material)
            m = self._action()
            old = d["material"][part]
            self.doc.set_top("material", material, merge=m)
            lists = ("balls",) if part == "density" else ("segments", "polylines", "polygons", "balls")
            changes = {(name, i): dict(item, **{part: value}) for name in lists
                       for i, item in enumerate(d.get(name, [])) if item.get(part) == old}
            self.doc._replace_items(changes, f"set material {part}", merge=m)
            self.doc.end_merge()
            return
        if key == "substeps":
            value = int(round(value))
        elif key in ("gravity", "bounds"):
            vec = list(d[key])
            vec[index] = float(round(value, 9))
            value = vec
        self._check_level(**{key: value})
        self.doc.set_top(key, value)
        self.doc.end_merge()

    def _check_level(self, **changes):
        """Raise EditRefused with the loader's reason if the level with ``changes`` would not load."""
        level = dict(self.doc.definition, **changes)
        try:
            loads(json.dumps(level, allow_nan=False), "<level>")
        except (LevelError, ValueError, TypeError) as e:
            raise EditRefused(str(e).splitlines()[0].split(": ", 1)[-1]) from None

    def _set_number(self, key, index, number):
        if key == "corner":
            ref = self.doc.selection[0]
            point = list(self.doc.item(ref)["points"][index[0]])
            point[index[1]] = float(round(number, 9))
            self.corner = (ref, index[0])
            self.doc.move_handle(ref, index[0], point)
            return
        if key in INTEGER:
            number = int(round(number))
        elif key not in SIGNED:
            number = max(0.0, number)
        if key not in INTEGER:
            number = float(round(number, 9))
        sel = self.doc.selection
        if index is None:
            self.doc.set_property(sel, key, number)
            return
        m = self._action()
        for ref in sel:             # a vector: each item keeps its other component
            if self.doc.exists(ref) and key in self.doc.item(ref):
                vec = list(self.doc.item(ref)[key])
                vec[index] = number
                self.doc.set_property([ref], key, vec, merge=m)
        self.doc.end_merge()

    def _swap_mass(self, sel, to):
        m = self._action()
        for ref in sel:
            if ref[0] != "balls":
                continue
            b = self.doc.item(ref)
            area = math.pi * b["radius"] ** 2
            if to == "mass" and "density" in b:
                self.doc.set_property([ref], "mass", b["density"] * area, merge=m)
            elif to == "density" and "mass" in b:
                self.doc.set_property([ref], "density", b["mass"] / area, merge=m)
        self.doc.end_merge()

    # ------------------------------------------------------------------ files

    def save(self, path=None):
        """Write the definition (to ``path``, else the document's own file) atomically.
        True when written; otherwise ``message`` says why in one line."""
        path = path or self.doc.path
        if path is None:
            self.message = "this level has no file yet: Ctrl+Shift+S to name it"
            return False
        if self.doc.conflict is not None and os.path.abspath(path) == os.path.abspath(self.doc.path or ""):
            self.message = "the file changed on disk: keep yours (K) or take the file's (T) first"
            return False
        default_name = stem(path)
        try:
            document = self.doc.authored(default_name)
        except Exception:               # never lose the edits over how they are written
            document = self.doc.definition
        try:
            save_document(document, path, default_name)
        except LevelError as e:
            self.message = str(e)
            return False
        self.doc.register(document)
        self.doc.path = path
        self.doc.mark_saved()
        self._saved_text = _text(self.doc.definition)
        self.watcher = _watcher(path)
        self.message = f"saved {os.path.basename(path)}"
        return True

    def save_as(self, name, folder):
        """Save as ``folder/NAME.json`` (a plain name: letters, digits, - and _); never over
        another file. True when written."""
        name = name.strip()
        if name.lower().endswith(".json"):
            name = name[:-5]
        if not LEVEL_NAME.match(name):
            self.message = f"expected a name of letters, digits, - and _, got {name[:30]!r}"
            return False
        path = os.path.join(folder, name + ".json")
        if os.path.exists(path) and os.path.abspath(path) != os.path.abspath(self.doc.path or ""):
            self.message = f"{name}.json exists already: choose another name"
            return False
        return self.save(path)

    def new_level(self):
        """Start a new level from the template, as one undoable edit (undo brings the old one
        back); it has no file until Save As."""
        self.doc.replace_definition(template_definition(), "new level")
        self.doc.register(template_document())
        self.doc.path = None
        self.watcher = None
        self.set_tool("select")
        self.message = "new level: Ctrl+Shift+S to name it"

    def poll_disk(self):
        """Ask the file watcher whether someone else changed our file; returns what happened
        ("taken", "conflict", "broken" or None). Our own saves are not foreign changes."""
        if self.watcher is None:
            return None
        got = self.watcher.poll()
        if got is None:
            return None
        if isinstance(got, LevelError):
            # someone is writing the file by hand: saving over it would lose their text
            self.doc.conflict = got
            self.message = f"the file on disk does not load (yours is kept): {got}"
            return "broken"
        if self._saved_text is not None and _text(got) == self._saved_text:
            return None
        result = self.doc.file_changed(got)
        if result == "taken":
            self._register_file()
        if result == "conflict":
            self.message = "the file changed on disk: K keeps yours, T takes the file's"
        elif result == "taken":
            self.message = "reloaded: the file changed on disk (Ctrl+Z undoes)"
        self._saved_text = _text(self.doc.definition) if result == "taken" else self._saved_text
        return result

    def _register_file(self):
        """The definition was just taken from our file: link it to the file's text, so the
        next save writes that text plus the edits (when the file still holds it)."""
        try:
            document, definition = load_document(self.doc.path)
        except LevelError:
            return
        if _text(definition) == _text(self.doc.definition):
            self.doc.register(document)

    def resolve(self, choice):
        try:
            self.doc.resolve(choice)
        except EditRefused as e:
            self.message = str(e)
            return
        if choice == "theirs" and self.doc.path is not None:
            self._register_file()
        self.message = "kept yours (saving overwrites the file)" if choice == "mine" else \
            "took the file's version (Ctrl+Z brings yours back)"


# ---------------------------------------------------------------------- helpers

def _watcher(path):
    return LevelWatcher(path) if path is not None else None


def _text(definition):
    return json.dumps(definition)


def _pt(p):
    return (float(p[0]), float(p[1]))


def _num(x):
    return f"{x:g}"


def _point_word(name):
    return {"segments": "end", "polylines": "point", "polygons": "corner", "balls": "centre",
            "spawners": "spawner", "springs": "anchor"}.get(name, "point")


class _Index:
    """The definition's geometry as arrays, for picking and snapping at every pointer move:
    built in one pass when the definition changed, then asked with numpy (a level of
    thousands of balls or segments answers in well under a millisecond).

    ``points`` (K, 2) metres: every end, corner and centre one can snap to, and
    ``owners`` (K,) the code of the item each belongs to. Per list, the item's outline as
    capsules: ``pieces[name] = (a (M, 2), b (M, 2), radius (M,), item (M,))``.
    """

    def __init__(self, d):
        pts, owners = [], []
        for name in LISTS:
            if name == "zones":
                continue
            for i, item in enumerate(d.get(name, [])):
                for q in points_of(name, item):
                    pts.append(q)
                    owners.append(self.code((name, i)))
        self.points = np.asarray(pts, dtype=float).reshape(-1, 2)
        self.owners = np.asarray(owners, dtype=np.int64)
        self.pieces = {}
        balls = d.get("balls", [])
        for name in ("balls", "spawners", "segments", "polylines", "polygons", "springs"):
            a, b, r, owner = [], [], [], []
            for i, item in enumerate(d.get(name, [])):
                if name in ("balls", "spawners"):
                    a.append(item["pos"]), b.append(item["pos"]), r.append(item["radius"]), owner.append(i)
                elif name == "segments":
                    a.append(item["a"]), b.append(item["b"]), r.append(item["radius"]), owner.append(i)
                elif name == "springs":
                    end = balls[item["b"]]["pos"] if isinstance(item["b"], int) else item["b"]
                    a.append(balls[item["a"]]["pos"]), b.append(end), r.append(0.0), owner.append(i)
                else:
                    q = item["points"]
                    closed = name == "polygons" or item.get("closed", False)
                    for k in range(len(q) if closed else len(q) - 1):
                        a.append(q[k]), b.append(q[(k + 1) % len(q)])
                        r.append(item.get("radius", 0.0) if name == "polylines" else 0.0)
                        owner.append(i)
            self.pieces[name] = (np.asarray(a, float).reshape(-1, 2), np.asarray(b, float).reshape(-1, 2),
                                 np.asarray(r, float), np.asarray(owner, np.int64))
        self.polygons = [np.asarray(poly["points"], float) for poly in d.get("polygons", [])]

    def code(self, ref):
        return LISTS.index(ref[0]) * (1 << 32) + ref[1]

    def ref(self, code):
        return (LISTS[int(code) >> 32], int(code) & 0xFFFFFFFF)

    def nearest(self, name, p, d):
        """(gap in metres, index) of the item of list ``name`` nearest to p; (inf, -1) if none."""
        if name == "zones":
            best = (math.inf, -1)
            for i, z in enumerate(d.get("zones", [])):
                g = _zone_gap(z, p)
                if g < best[0]:
                    best = (g, i)
            return best
        a, b, r, owner = self.pieces[name]
        if not len(a):
            return (math.inf, -1)
        q = geometry.closest_point_on_segment(a, b, p)
        gap = np.maximum(np.hypot(p[0] - q[:, 0], p[1] - q[:, 1]) - r, 0.0)
        if name == "polygons":          # inside a solid polygon is on it
            for i, poly in enumerate(self.polygons):
                lo, hi = poly.min(axis=0), poly.max(axis=0)
                if (lo <= p).all() and (p <= hi).all() and geometry.point_in_convex_polygon(p, poly):
                    return (0.0, i)
        k = int(np.argmin(gap))
        return (float(gap[k]), int(owner[k]))


def _zone_gap(z, p):
    """0 where p (metres) is inside the zone, else inf: a zone is picked by its area."""
    if "rect" in z:
        (x0, y0), (x1, y1) = z["rect"]
        inside = x0 <= p[0] <= x1 and y0 <= p[1] <= y1
    elif "circle" in z:
        inside = math.dist(p, z["circle"]["center"]) <= z["circle"]["radius"]
    elif "ellipse" in z:
        inside = bool(geometry.point_in_ellipse(p, z["ellipse"]["center"], z["ellipse"]["radii"]))
    else:
        inside = bool(geometry.point_in_convex_polygon(p, z["polygon"]))
    return 0.0 if inside else math.inf
