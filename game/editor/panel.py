"""The editor's property panel: the rows it shows for the selection (or the level, or the
arc being set) and the keys that change them, each change one undoable edit of the
Editor's Document. No pygame here: the mode draws ``rows()`` and sends ``step_prop(+1)``,
``type_prop("0.5")``.
"""
import json
import math

from game.level import LevelError, loads
from game.editor.document import EditRefused
from game.editor.items import ZONE_KINDS, ZONE_SHAPES
from game.editor.panel_bodies import BODY_PREFIXES, BodyPanel, body_rows, selection_rows, toggle_row
from game.editor.panel_parts import PREFIXES, STATICS, PanelParts, ball_rows, joint_rows, wall_rows
from game.editor.shapes import arc_points
from game.physics.integrators import ORDER

NUDGE = 0.05                # m: an arrow key moves the selection this far (a grid step with Shift)

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


class Panel:
    """The property panel of an Editor (``editor.panel``): ``prop`` is the row the keys
    change; every change goes through the editor's Document and says what went wrong in
    ``editor.message``."""

    def __init__(self, editor):
        self.ed = editor
        self.prop = 0
        self.parts = PanelParts(self)   # the joint and moving-wall rows' changes
        self.bodies = BodyPanel(self)   # the body rows', the selection's place and angle, the plank tool's

    def title(self):
        """What the property panel is about: "balls[3]", "2 items", "level", "new arc"..."""
        if self.ed.tool == "arc" and self.ed.arc is not None:
            return "new arc (Enter makes it)"
        if self.ed.pending:
            return f"new {self.ed.tool}: {len(self.ed.pending)} point{'s' if len(self.ed.pending) != 1 else ''}"
        sel = [r for r in self.ed.doc.selection if self.ed.doc.exists(r)]
        if not sel:
            return "level"
        group = self.ed.doc.group_of(sel[0])
        if group is not None and len(sel) == group[2]:
            return f"polygon (polygons[{group[1]}..{group[1] + group[2] - 1}])"
        return f"{sel[0][0]}[{sel[0][1]}]" if len(sel) == 1 else f"{len(sel)} items"

    def properties(self):
        """Rows of the property panel: (label, key, index, value); index is 0 or 1 for a
        vector's x or y, None for a number or a choice. The selection's keys (its points'
        coordinates first); with nothing selected the level's own settings ("level:..."
        keys); while a shape is being drawn, the arc tool's ("arc:...") or none."""
        if self.ed.tool == "arc" and self.ed.arc is not None:
            return [(label, "arc:" + key, index, self.ed.arc[key][index] if index is not None else
                     (self.ed.arc[key] if self.ed.arc[key] is not None else len(arc_points(**self.ed.arc)[0]) - 1))
                    for label, key, index in ARC_ROWS]
        if self.ed.pending:
            return []                           # the panel shows the shape being drawn, not an old selection
        tool = [("plank radius", "tool:radius", None, self.ed.bodies.radius)] if self.ed.tool == "plank" else []
        if self.ed.tool == "chain":
            j = self.ed.joints
            tool = [("chain links", "tool:links", None, j.links), ("chain of", "tool:chain", None, j.chain_kind),
                    ("chain ball radius", "tool:chain_radius", None, j.chain_radius)]
        sel = [r for r in self.ed.doc.selection if self.ed.doc.exists(r)]
        if not sel:
            return tool + self._level_rows()
        name, _ = sel[0]
        item = self.ed.doc.item(sel[0])
        if name == "joints":
            return joint_rows(self.ed.doc, item)
        rows = tool + selection_rows(self.ed) + (self._point_rows(sel[0], item) if len(sel) == 1 else [])
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
            rows += ball_rows(self.ed.doc, sel[0][1])
        if name == "bodies":
            rows += body_rows(item)
        if name in STATICS:
            rows += wall_rows(item)
        return rows + toggle_row(name)

    def _point_rows(self, ref, item):
        """The selected item's points, to type: a ball's or spawner's pos, a segment's ends,
        the polyline or polygon corner last dragged (else its first)."""
        name = ref[0]
        if name in ("balls", "spawners"):
            return [("pos x", "pos", 0, item["pos"][0]), ("pos y", "pos", 1, item["pos"][1])]
        shape = item.get("shape") if name == "bodies" else None
        if name == "segments" or shape == "capsule":
            return [(f"{end} {axis}", end, k, item[end][k]) for end in ("a", "b") for k, axis in enumerate("xy")]
        if name in ("polylines", "polygons") or shape == "polygon":
            if self.ed.doc.group_of(ref) is not None:
                return []                       # a piece's corner is not one the author drew
            c = self.ed.corner[1] if self.ed.corner is not None and self.ed.corner[0] == ref else 0
            c = min(c, len(item["points"]) - 1)
            return [(f"corner {c} {axis}", "corner", (c, k), item["points"][c][k]) for k, axis in enumerate("xy")]
        return []

    def _level_rows(self):
        d = self.ed.doc.definition
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
        sel = self.ed.doc.selection
        up = direction > 0
        try:
            if key.startswith(BODY_PREFIXES):
                self.bodies.step(row, direction, fine)
            elif key.startswith(PREFIXES):
                self.parts.step(row, direction, fine)
            elif key.startswith("arc:"):
                key = key[4:]
                step = ARC_STEPS[key] * (0.1 if fine and key != "pieces" else 1)
                self._set_arc(key, index, value + step * (1 if up else -1))
            elif key.startswith("level:"):
                key = key[6:]
                if key == "integrator":
                    k = (ORDER.index(value) + (1 if up else -1)) % len(ORDER) if value in ORDER else 0
                    self._set_level("integrator", None, ORDER[k])
                elif key in TEXT_KEYS:
                    self.ed.message = f"{label}: press V (or click the row) to type it"
                else:
                    step = LEVEL_STEPS[key] * (0.1 if fine and key != "substeps" else 1)
                    self._set_level(key, index, value + step * (1 if up else -1))
            elif key in PROPORTIONAL:
                ratio = FINE_RATIO if fine else RATIO
                if value > 0:
                    number = value * ratio if up else value / ratio
                else:
                    number = PROPORTIONAL[key] if up else 0.0
                self._set_number(key, index, float(f"{number:.4g}") if number > 0 else 0.0)
            elif key == "kind":
                k = (ZONE_KINDS.index(value) + (1 if direction > 0 else -1)) % len(ZONE_KINDS)
                self.ed.doc.set_property(sel, "kind", ZONE_KINDS[k])
            elif key == "shape":
                k = (ZONE_SHAPES.index(value) + (1 if direction > 0 else -1)) % len(ZONE_SHAPES)
                m = self._action()
                for ref in sel:
                    if ref[0] == "zones":
                        self.ed.doc.set_zone_shape(ref, ZONE_SHAPES[k], merge=m)
            elif key == "swap":
                self._swap_mass(sel, value)
            else:
                step = (PROPERTY_STEPS.get(key) or NUDGE) * (0.1 if fine and key not in INTEGER else 1)
                self._set_number(key, index, value + step * (1 if direction > 0 else -1))
        except EditRefused as e:
            self.ed.message = f"{label}: {e}"
        self.ed.doc.end_merge()

    def type_prop(self, text):
        """Set the current property to a typed number; one line in ``message`` if it is not one."""
        row = self._row()
        if row is None:
            return False
        label, key, index, value = row
        if key.startswith(PREFIXES + BODY_PREFIXES):
            try:
                (self.bodies if key.startswith(BODY_PREFIXES) else self.parts).type(row, text)
            except EditRefused as e:
                self.ed.message = f"{label}: {e}"
                return False
            return True
        if key in ("kind", "shape", "swap", "level:integrator"):
            self.ed.message = f"{label}: use + and - to choose"
            return False
        if key[6:] in TEXT_KEYS and key.startswith("level:"):
            try:
                self._set_level(key[6:], None, text.strip())
            except EditRefused as e:
                self.ed.message = f"{label}: {e}"
                return False
            return True
        try:
            number = float(text.strip())
        except ValueError:
            self.ed.message = f"{label}: expected a number, got {text.strip()[:20]!r}"
            return False
        if not math.isfinite(number):
            self.ed.message = f"{label}: expected a finite number, got {text.strip()[:20]!r}"
            return False
        try:
            if key.startswith("arc:"):
                self._set_arc(key[4:], index, number)
            elif key.startswith("level:"):
                self._set_level(key[6:], index, number)
            else:
                self._set_number(key, index, number)
        except EditRefused as e:
            self.ed.message = f"{label}: {e}"
            return False
        self.ed.doc.end_merge()
        return True

    def _row(self):
        rows = self.properties()
        if not rows:
            return None
        self.prop %= len(rows)
        return rows[self.prop]

    def _action(self):
        """A fresh merge key: the edits of one user action on several items are one undo step."""
        self.ed.doc.end_merge()
        self.ed._merge += 1
        return ("action", self.ed._merge)

    def _set_arc(self, key, index, number):
        """Change the arc being set (not an edit yet: Enter makes it one)."""
        arc = self.ed.arc
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
        self.ed.preview = ("polyline", arc_points(**arc)[0])

    def _set_level(self, key, index, value):
        """Set a level setting (``key`` as in LEVEL_ROWS) as one undoable edit, refused with
        the loader's reason when the level would not load. A new material carries over to
        every item that had the old one's value (what the file leaves to the material)."""
        d = self.ed.doc.definition
        if key.startswith("material."):
            part = key.split(".", 1)[1]
            value = float(round(max(0.0, value), 9))
            material = dict(d["material"], **{part: value})
            self._check_level(material=material)
            m = self._action()
            old = d["material"][part]
            self.ed.doc.set_top("material", material, merge=m)
            lists = ("balls",) if part == "density" else ("segments", "polylines", "polygons", "balls")
            changes = {(name, i): dict(item, **{part: value}) for name in lists
                       for i, item in enumerate(d.get(name, [])) if item.get(part) == old}
            self.ed.doc._replace_items(changes, f"set material {part}", merge=m)
            self.ed.doc.end_merge()
            return
        if key == "substeps":
            value = int(round(value))
        elif key in ("gravity", "bounds"):
            vec = list(d[key])
            vec[index] = float(round(value, 9))
            value = vec
        self._check_level(**{key: value})
        self.ed.doc.set_top(key, value)
        self.ed.doc.end_merge()

    def _check_level(self, **changes):
        """Raise EditRefused with the loader's reason if the level with ``changes`` would not load."""
        level = dict(self.ed.doc.definition, **changes)
        try:
            loads(json.dumps(level, allow_nan=False), "<level>")
        except (LevelError, ValueError, TypeError) as e:
            raise EditRefused(str(e).splitlines()[0].split(": ", 1)[-1]) from None

    def _set_number(self, key, index, number):
        if key == "corner":
            ref = self.ed.doc.selection[0]
            point = list(self.ed.doc.item(ref)["points"][index[0]])
            point[index[1]] = float(round(number, 9))
            self.ed.corner = (ref, index[0])
            self.ed.doc.move_handle(ref, index[0], point)
            return
        if key in INTEGER:
            number = int(round(number))
        elif key not in SIGNED:
            number = max(0.0, number)
        if key not in INTEGER:
            number = float(round(number, 9))
        sel = self.ed.doc.selection
        if index is None:
            self.ed.doc.set_property(sel, key, number)
            return
        m = self._action()
        for ref in sel:             # a vector: each item keeps its other component
            if self.ed.doc.exists(ref) and key in self.ed.doc.item(ref):
                vec = list(self.ed.doc.item(ref)[key])
                vec[index] = number
                self.ed.doc.set_property([ref], key, vec, merge=m)
        self.ed.doc.end_merge()

    def _swap_mass(self, sel, to):
        m = self._action()
        for ref in sel:
            if ref[0] != "balls":
                continue
            b = self.ed.doc.item(ref)
            area = math.pi * b["radius"] ** 2
            if to == "mass" and "density" in b:
                self.ed.doc.set_property([ref], "mass", b["density"] * area, merge=m)
            elif to == "density" and "mass" in b:
                self.ed.doc.set_property([ref], "density", b["mass"] / area, merge=m)
        self.ed.doc.end_merge()
