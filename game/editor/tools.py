"""The editor's logic over world coordinates: tools, snapping, picking, the selection's
moves and transforms. Its property panel is ``editor.panel`` (game.editor.panel) and its
level file ``editor.files`` (game.editor.files: saving, changes on disk).

No pygame here: the mode turns events into calls such as ``press(p, tol)``,
``motion(p, tol)``, ``release(p, tol)``, ``key("d", ctrl=True)``, where ``p`` is a point in
metres and ``tol`` the pick distance in metres (a few pixels at the camera's scale).
Every change to the level goes through the Document's undoable edits.

Tools (keys 1-9, J, O, P): select and move, segment, polyline, polygon, ball, spawner, zone,
spring, arc, and the joints rod, rope and pin (game.editor.joint_tool).
"""
import math

import numpy as np

from game.physics import geometry
from game.editor.document import EditRefused
from game.editor.files import LevelFile
from game.editor.items import LISTS, ZONE_KINDS, bbox, handles, joint_ends, points_of
from game.editor.body_tool import BODY_TOOL_KEYS, BODY_TOOLS, BodyTool
from game.editor.joint_tool import JOINT_TOOLS, JointTool
from game.editor.panel import FINE_RATIO, NUDGE, Panel
from game.editor.shapes import arc_from, arc_points
from game.editor.turning import SCALE_STEP, Turning

TOOLS = ("select", "segment", "polyline", "polygon", "ball", "spawner", "zone", "spring", "arc") + JOINT_TOOLS \
    + BODY_TOOLS
TOOL_KEYS = {**{str(k + 1): name for k, name in enumerate(TOOLS[:9])}, "j": "rod", "o": "rope", "p": "pin", "i": "chain",
             **BODY_TOOL_KEYS}
TOOL_KEY = {name: key.upper() for key, name in TOOL_KEYS.items()}      # the key shown on each button
GRID = 0.5                  # m: the grid's starting size
GRID_SIZES = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0)   # m: sizes Ctrl+wheel steps through
PEG_RADIUS = 0.2            # m: a click with the segment tool makes a round peg this big
DUPLICATE_OFFSET = 0.5      # m: Ctrl+D puts the copy this far right and down
PICK_ORDER = ("balls", "spawners", "springs", "joints", "bodies", "segments", "polylines", "polygons", "zones")
# What a click and a drag do with each tool: one line on the status bar.
TOOL_HINTS = {
    "select": "click: select (Shift: add)   drag: move, box-select, handles (round: turn, scale)   R/,/. too",
    "segment": "drag: a wall from press to release   click: a round peg",
    "polyline": "click: add a point   Enter or double click: end it   C: close it",
    "polygon": "click: add a corner   Enter: close the wall polygon   Backspace: take one back",
    "ball": "click: a ball", "spawner": "click: a spawner",
    "zone": "drag: a zone rectangle   K: goal, kill or attractor",
    "spring": "drag: from a ball to a ball or a point (an anchor)",
    "arc": "drag: from the centre out to the arc's start   Enter: make it",
    "rod": "click a ball or body, then another or empty space (an anchor); a body is held where clicked",
    "rope": "click a ball or body, then another or empty space (an anchor); a body is held where clicked",
    "pin": "click a ball or body: pinned to the world there (a pin through a plank: a see-saw)",
    "chain": "drag (or click, click) between two ends: balls, bodies or anchors; links, rope/rod in the panel",
    "box": "drag: a box (Shift: a square)   click: a 1 m box",
    "plank": "drag: a plank from press to release   click: a 2 m plank   Shift+wheel: its radius",
    "body": "click: add a corner (a concave one is refused)   click the first corner or Enter: close it",
}

class Editor:
    """The editing state: a Document, the current tool, the gesture in progress, the grid.

    Attributes the mode draws: ``tool``, ``doc.selection``, ``preview`` (shape being drawn:
    (kind, points) or None), ``box`` (selection rectangle corners or None), ``snapped``
    ((point, what) of the last snap or None), ``hover`` (the ref under the pointer or None),
    ``handle_hover`` ("turn" or "scale": the selection's handle under the pointer, or None),
    ``cursor`` (metres), ``message`` (one line for the player or None), ``grid`` (m),
    ``grid_on``, ``zone_kind``, ``panel`` (a Panel: its ``prop`` is the property row the keys
    change), ``files`` (a LevelFile).
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
        self.handle_hover = None    # "turn" or "scale": the selection's handle under the pointer (turning)
        self._index_cache, self._index_key = None, None
        self._gesture = None
        self._merge = 0
        self.panel = Panel(self)    # the property panel: its rows and the keys that change them
        self.files = LevelFile(self)    # saving, the file watcher, a change on disk
        self.joints = JointTool(self)   # the rod, rope and pin tools
        self.bodies = BodyTool(self)    # the box, plank and body polygon tools; M: wall <-> body
        self.turning = Turning(self)    # R, Shift+R, ".", ",": turn and scale the selection

    # ------------------------------------------------------------------ tools

    def set_tool(self, name):
        if name not in TOOLS:
            raise ValueError(f"expected one of {TOOLS}, got {name!r}")
        self.tool = name
        self.pending, self.preview, self.box, self._gesture = [], None, None, None
        self.arc = None
        self.joints.reset()
        self.bodies.reset()

    def busy(self):
        """A joint half made, or a pivot to place: Esc drops it (and does not leave)."""
        return self.joints.start is not None or self.panel.parts.placing or self.bodies.start is not None

    def press(self, p, tol, shift=False):
        """Left button down at p (metres)."""
        p = _pt(p)
        self.cursor = p
        self.message = None
        t = self.tool
        if self.panel.parts.placing:        # "place pivot" in the panel: this click places it
            self.panel.parts.place(self.snap(p, tol))
        elif t in JOINT_TOOLS:
            self.joints.press(p, tol, shift)
        elif t in BODY_TOOLS:
            self.bodies.press(p, tol, shift)
        elif t == "select":
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

    def motion(self, p, tol, shift=False):
        """The pointer moved to p (button held or not); ``shift`` keeps a box square and puts
        a turn handle's drag on 15-degree steps."""
        p = _pt(p)
        self.cursor = p
        g = self._gesture
        self.hover, self.handle_hover = None, None
        if self.tool in JOINT_TOOLS:
            return self.joints.motion(p, tol)
        if self.tool in BODY_TOOLS:
            return self.bodies.motion(p, tol, shift)
        if g is None:
            if self.tool == "select":
                self.handle_hover = self.turning.handle_at(p, tol)
                self.hover = None if self.handle_hover else self.pick(p, tol)
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
                want = _on_grid((p[0] - start[0], p[1] - start[1]), self.grid if self.grid_on else None)
                step = (want[0] - done[0], want[1] - done[1])
                if step != (0.0, 0.0):
                    self.doc.move(self.doc.selection, step, merge=self._merge)
                    self._gesture = ("move", start, want)
            elif kind in ("turn", "scale"):
                self._gesture = self.turning.drag(g, p, shift, self._merge)
            elif kind == "handle":
                _, ref, h = g
                self.doc.move_handle(ref, h, self.snap(p, tol, exclude=ref), merge=self._merge)
            elif kind == "box":
                self.box = (g[1], p)
            elif kind == "draw" and self.tool == "arc":
                self.arc = arc_from(g[1], self.snap(p, tol))
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
        # A turn let go where the last frame was stays as that frame left it: Shift may be up by
        # now (the mode reads the keys when it handles the event, not when it happened).
        if not (p == self.cursor and self._gesture is not None and self._gesture[0] in ("turn", "scale")):
            self.motion(p, tol, shift)
        g, self._gesture = self._gesture, None
        self.preview, self.box = None, None
        self.doc.end_merge()
        t = self.tool
        try:
            if t in JOINT_TOOLS:
                self.joints.release(p, tol, shift)
            elif t in BODY_TOOLS:
                self.bodies.release(p, tol, shift)
            elif g is not None and g[0] == "box":
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
                self.arc = arc_from(g[1], self.snap(p, tol))
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

    def finish(self, closed=False):
        """End the polyline or polygon being clicked (Enter; C closes a polyline); the arc
        tool's arc becomes a polyline."""
        pts, t = self.pending, self.tool
        if t == "body":
            try:
                return self.bodies.finish()
            except EditRefused as e:
                self.message = str(e)
                return
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
        turning = self.turning.grab(p, tol)         # the selection's turn or scale handle
        if turning is not None:
            self._merge += 1
            self._gesture = turning
            return
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
        found = items_in_box(self.doc.definition, a, b)
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
        elif name == "escape" and (self.pending or self._gesture or self.arc or self.busy()):
            self.pending, self.preview, self._gesture, self.box, self.arc = [], None, None, None, None
            self.joints.reset()
            self.bodies.reset()
            self.panel.parts.placing = False
        elif name == "r" and doc.selection:
            self.turning.step(-1 if shift else 1)
        elif name in (".", ",") and doc.selection:
            self.resize(SCALE_STEP if name == "." else 1.0 / SCALE_STEP, fine=shift)
        elif name == "m":
            try:
                self.bodies.toggle()
            except EditRefused as e:
                self.message = str(e)
        else:
            return False
        return True

    def selection_center(self):
        """The middle of the selection's bounding box (metres)."""
        return self.turning.center()

    def turn(self, degrees, fine=False):
        """Turn the selection by ``degrees`` about its centre (one undo step); R snaps (turning.step)."""
        self.turning.turn(degrees)

    def resize(self, factor, fine=False):
        """. / , (Shift: finer): scale the selection about its centre (one undo step)."""
        self.turning.scale(factor, fine, FINE_RATIO)

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

# ---------------------------------------------------------------------- helpers

def _pt(p):
    return (float(p[0]), float(p[1]))


def _on_grid(delta, grid):
    """A move ``delta`` (metres) in whole steps of ``grid`` (None: as it is)."""
    if grid is None:
        return delta
    return (round(delta[0] / grid) * grid, round(delta[1] / grid) * grid)


def items_in_box(d, a, b):
    """The refs of the items of definition ``d`` whose boxes lie within the rectangle of
    corners ``a`` and ``b`` (metres); none for a rectangle without an area or a width."""
    x0, x1 = sorted((a[0], b[0]))
    y0, y1 = sorted((a[1], b[1]))
    found = []
    if x1 - x0 > 0 or y1 - y0 > 0:
        for name in LISTS:
            for i, item in enumerate(d.get(name, [])):
                bx0, by0, bx1, by1 = bbox(name, item, d.get("balls"), d.get("bodies"))
                if x0 <= bx0 and bx1 <= x1 and y0 <= by0 and by1 <= y1:
                    found.append((name, i))
    return found


def _num(x):
    return f"{x:g}"


def _point_word(name):
    return {"segments": "end", "polylines": "point", "polygons": "corner", "balls": "centre",
            "spawners": "spawner", "springs": "anchor", "joints": "anchor"}.get(name, "point")


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
        bodies = d.get("bodies", [])
        for name in ("balls", "spawners", "segments", "polylines", "polygons", "springs", "joints", "bodies"):
            a, b, r, owner = [], [], [], []
            for i, item in enumerate(d.get(name, [])):
                if name in ("balls", "spawners"):
                    a.append(item["pos"]), b.append(item["pos"]), r.append(item["radius"]), owner.append(i)
                elif name == "segments":
                    a.append(item["a"]), b.append(item["b"]), r.append(item["radius"]), owner.append(i)
                elif name in ("springs", "joints"):     # from held point to held point (a pin: one point)
                    end_a, end_b = joint_ends(item, balls, bodies)
                    a.append(end_a), b.append(end_b), r.append(0.0), owner.append(i)
                else:
                    q = points_of(name, item)
                    closed = name == "polygons" or item.get("closed", False) or (name == "bodies" and len(q) > 2)
                    for k in range(len(q) if closed else len(q) - 1):
                        a.append(q[k]), b.append(q[(k + 1) % len(q)])
                        r.append(item.get("radius", 0.0) if name in ("polylines", "bodies") else 0.0)
                        owner.append(i)
            self.pieces[name] = (np.asarray(a, float).reshape(-1, 2), np.asarray(b, float).reshape(-1, 2),
                                 np.asarray(r, float), np.asarray(owner, np.int64))
        self.polygons = [np.asarray(poly["points"], float) for poly in d.get("polygons", [])]
        self.solids = [np.asarray(points_of("bodies", body), float) for body in bodies]

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
        if name in ("polygons", "bodies"):          # inside a solid polygon is on it
            for i, poly in enumerate(self.polygons if name == "polygons" else self.solids):
                if len(poly) < 3:
                    continue
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
