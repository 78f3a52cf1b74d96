"""The property panel's rows for bodies and for any selection's place and angle, and the
changes they make (each one undoable edit of the Document). No pygame here; game.editor.panel
shows these rows among the others and sends their keys here ("body:...", "sel:...",
"info:...", "tool:...").

- any selection: its centre (x, y) and angle (degrees; see game.editor.turning), to type or
  step (15 degrees, Shift: 1 degree; 0.5 m, Shift: 5 cm);
- a body: its width and height (a box), colour (+ - step through a palette, or type
  "#rrggbb" or "off"), name (typed), and its mass and moment of inertia as the engine
  computes them (game.physics.shapes.body_frame: read only); density or mass (a row swaps
  them keeping the mass), friction and restitution are the panel's usual rows;
- a wall or a body: "make body" / "make wall" (what M does);
- the plank tool: the radius of the next plank.
"""
import re

from game.editor.document import EditRefused
from game.editor.chain_tool import KINDS as CHAIN_KINDS, MAX_LINKS
from game.physics.shapes import body_frame

BODY_PREFIXES = ("body:", "sel:", "info:", "tool:")
PALETTE = ("#d9a441", "#c0504d", "#4f81bd", "#9bbb59", "#8064a2", "#4bacc6", "#f79646", "#7f7f7f")
COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")
WALLS = ("segments", "polylines", "polygons")


def mass_inertia(body):
    """(mass kg, moment of inertia about the centre of mass kg m^2) of a normalised body, as
    the engine computes them."""
    _, _, _, _, mass, inertia = body_frame(body, 1.0)
    return float(mass), float(inertia)


def selection_rows(ed):
    """The selection's centre and angle."""
    sel = [r for r in ed.doc.selection if ed.doc.exists(r)]
    if not sel:
        return []
    (cx, cy), angle = ed.turning.center(), ed.turning.angle()
    return [("centre x", "sel:centre", 0, round(cx, 6)), ("centre y", "sel:centre", 1, round(cy, 6)),
            ("angle", "sel:angle", None, "none" if angle is None else round(angle, 4))]


def body_rows(item):
    """A body's own rows (after the usual ones: radius, friction, density...)."""
    rows = []
    if item["shape"] == "box":
        rows += [("width", "body:size", 0, item["size"][0]), ("height", "body:size", 1, item["size"][1])]
    other = "density" if "mass" in item else "mass"
    rows.append((f"use {other}", "body:swap", None, other))
    rows.append(("colour", "body:colour", None, _colour_text(item.get("colour"))))
    rows.append(("name", "body:name", None, item.get("name", "")))
    mass, inertia = mass_inertia(item)
    rows += [("mass (engine)", "info:mass", None, f"{mass:.4g} kg"),
             ("inertia (engine)", "info:inertia", None, f"{inertia:.4g} kg m2")]
    return rows


def toggle_row(name):
    if name in WALLS:
        return [("make body", "body:toggle", None, "M")]
    if name == "bodies":
        return [("make wall", "body:toggle", None, "M")]
    return []


def _colour_text(c):
    if c is None:
        return "theme"
    if isinstance(c, str):
        return c
    return "#" + "".join(f"{int(v):02x}" for v in c)


class BodyPanel:
    """The changes of the rows above, for a Panel (``panel.bodies``)."""

    def __init__(self, panel):
        self.panel = panel

    @property
    def ed(self):
        return self.panel.ed

    def step(self, row, direction, fine=False):
        label, key, index, value = row
        ed, up = self.ed, direction > 0
        sign = 1 if up else -1
        if key == "sel:centre":
            ed.turning.move_to(index, value + sign * (0.05 if fine else 0.5))
        elif key == "sel:angle":
            if fine:
                ed.turning.turn(sign * 1.0)
            else:
                ed.turning.step(sign)
        elif key == "body:size":
            self._size(index, value * (1.01 if fine else 1.1) ** sign)
        elif key == "body:colour":
            k = PALETTE.index(value) + sign if value in PALETTE else (0 if up else -1)
            self._set("colour", PALETTE[k % len(PALETTE)])
        elif key == "body:swap":
            self._swap(value)
        elif key == "body:toggle":
            ed.bodies.toggle()
        elif key == "tool:radius":
            ed.bodies.wheel(direction)
        elif key.startswith(("tool:links", "tool:chain")):
            chain_step(ed.joints, key, sign, fine)
        elif key == "body:name":
            ed.message = "name: press V (or click the row) to type it"
        else:
            ed.message = f"{label}: computed by the engine from the shape and the density or mass"

    def type(self, row, text):
        label, key, index, value = row
        text = text.strip()
        if key == "body:name":
            return self._set("name", text or None)
        if key == "body:colour":
            if text.lower() in ("off", "none", "theme", ""):
                return self._set("colour", None)
            if not COLOUR.match(text):
                raise EditRefused(f"expected a colour #rrggbb or off, got {text[:20]!r}")
            return self._set("colour", text.lower())
        if key.startswith(("tool:links", "tool:chain")):
            return chain_typed(self.ed.joints, key, text)
        if key in ("body:swap", "body:toggle", "tool:radius") or key.startswith("info:"):
            if key == "tool:radius":
                number = _number(text)
                if not 0 < number <= 2.0:
                    raise EditRefused("expected a plank radius above 0 and at most 2 m")
                self.ed.bodies.radius = number
                return None
            raise EditRefused("use + and - (or M)" if key != "info:mass" and key != "info:inertia"
                              else "computed by the engine from the shape and the density or mass")
        number = _number(text)
        if key == "sel:centre":
            return self.ed.turning.move_to(index, number)
        if key == "sel:angle":
            return self.ed.turning.turn_to(number)
        if key == "body:size":
            return self._size(index, number)
        raise EditRefused(f"{label} cannot be typed")

    def _bodies(self):
        return [r for r in self.ed.doc.selection if r[0] == "bodies" and self.ed.doc.exists(r)]

    def _set(self, key, value):
        self.ed.doc.set_property(self._bodies(), key, value)

    def _size(self, index, number):
        if number <= 0:
            raise EditRefused("expected a size above 0")
        m = self.panel._action()
        for ref in self._bodies():
            item = self.ed.doc.item(ref)
            if item["shape"] == "box":
                size = list(item["size"])
                size[index] = float(f"{number:.6g}")
                self.ed.doc.set_property([ref], "size", size, merge=m)
        self.ed.doc.end_merge()

    def _swap(self, to):
        """Density <-> mass, keeping the mass the engine computes."""
        m = self.panel._action()
        for ref in self._bodies():
            b = self.ed.doc.item(ref)
            mass, _ = mass_inertia(b)
            if to == "mass" and "density" in b:
                self.ed.doc.set_property([ref], "mass", float(f"{mass:.6g}"), merge=m)
            elif to == "density" and "mass" in b:
                unit = {k: v for k, v in b.items() if k != "mass"}
                area = mass_inertia(dict(unit, density=1.0))[0]
                self.ed.doc.set_property([ref], "density", float(f"{mass / area:.6g}"), merge=m)
        self.ed.doc.end_merge()


def _number(text):
    try:
        number = float(text)
    except ValueError:
        raise EditRefused(f"expected a number, got {text[:20]!r}") from None
    if number != number or number in (float("inf"), float("-inf")):
        raise EditRefused(f"expected a finite number, got {text[:20]!r}")
    return number


def chain_step(joints, key, sign, fine):
    """+/- on the chain tool's rows: the links by one, rope or rod, the balls' radius by 10 %
    (1 % with ``fine``)."""
    if key == "tool:links":
        joints.links = min(MAX_LINKS, max(1, joints.links + sign))
    elif key == "tool:chain":
        joints.chain_kind = CHAIN_KINDS[(CHAIN_KINDS.index(joints.chain_kind) + 1) % len(CHAIN_KINDS)]
    else:
        joints.chain_radius = float(f"{min(1.0, max(0.01, joints.chain_radius * (1.01 if fine else 1.1) ** sign)):.4g}")


def chain_typed(joints, key, text):
    """A value typed into the chain tool's rows; EditRefused where it cannot be one."""
    if key == "tool:chain":
        if text not in CHAIN_KINDS:
            raise EditRefused(f"expected rope or rod, got {text[:20]!r}")
        joints.chain_kind = text
    elif key == "tool:links":
        if not text.isdigit() or not 1 <= int(text) <= MAX_LINKS:
            raise EditRefused(f"expected a whole number of links from 1 to {MAX_LINKS}, got {text[:20]!r}")
        joints.links = int(text)
    else:
        number = _number(text)
        if not 0 < number <= 1.0:
            raise EditRefused("expected a chain ball radius above 0 and at most 1 m")
        joints.chain_radius = number
    return None
