"""The property panel's rows for joints (issue 24) and moving walls (issue 25), and the
changes they make: each one undoable edit of the Document, refused in one line with the
loader's reason where the level could not hold it. No pygame here; game.editor.panel shows
these rows among the others and sends their keys here (keys "joint:...", "wall:..." and
"ball:joints").

A joint: kind (rod or rope), length, where it holds each ball (offsets, in the ball's own
frame) or its anchor, a motor (on or off, speed, torque) and a break force (off: it never
breaks). A segment, polyline or polygon: its surface speed (a conveyor), kick (a bumper)
and motion (none, rotate, slide or flipper, with their fields; the pivot can be typed or
placed with a click). A choice steps with + and -, or takes a typed word ("rope", "on",
"slide", "right"); "off" (or "none") clears a surface speed, a kick, a motor or a break.
"""
import math

from game.editor.document import EditRefused, updated, _MISSING
from game.editor.items import bbox, is_index, is_pin, points_of

PREFIXES = ("joint:", "wall:", "ball:")
STATICS = ("segments", "polylines", "polygons")
MOTIONS = ("none", "rotate", "slide", "flipper")
FLIPPER_KEYS = ("left", "right")
OFF_WORDS = ("off", "none", "no", "")

MOTOR = {"speed": 6.0, "torque": 50.0}      # rad/s, N m: a motor switched on starts with these
BREAK = 100.0                               # N: a break switched on by + starts here
SURFACE_SPEED = 1.0                         # m/s: a conveyor switched on by + starts here
KICK = 5.0                                  # m/s: a bumper switched on by + starts here
ROTATE_SPEED = 1.0                          # rad/s: a new rotor's
SLIDE = {"to": [0.0, 2.0], "period": 4.0}   # a new slider: 2 m up and back in 4 s
FLIPPER = {"angle": 0.6, "speed": 12.0}     # rad, rad/s: a new flipper's
# Steps of + and - (Shift: a tenth); sizes step in proportion (x 1.1), from off or 0 by these.
STEPS = {"length": 0.1, "offset_a": 0.05, "offset_b": 0.05, "b": 0.05, "motor.speed": 1.0,
         "motor.torque": 10.0, "break": BREAK, "surface_speed": 0.5, "kick": KICK,
         "motion.pivot": 0.05, "motion.speed": 0.5, "motion.to": 0.5, "motion.period": 0.5,
         "motion.angle": 0.1}
PROPORTIONAL = ("length", "motor.torque", "break", "motion.period")
POSITIVE = ("length", "motor.torque", "break", "kick", "motion.period")   # never below 0
RATIO = 1.1


def joint_rows(doc, item):
    """Rows (label, key, index, value) of a joint."""
    rows = [("kind", "joint:kind", None, item["kind"]), ("length", "joint:length", None, item["length"])]
    rows += [(f"offset a {axis}", "joint:offset_a", k, item["offset_a"][k]) for k, axis in enumerate("xy")]
    if isinstance(item["b"], list):
        if not is_pin("joints", item):          # a pin's anchor is where its ball is held
            rows += [(f"anchor {axis}", "joint:b", k, item["b"][k]) for k, axis in enumerate("xy")]
    else:
        rows += [(f"offset b {axis}", "joint:offset_b", k, item["offset_b"][k]) for k, axis in enumerate("xy")]
    motor = item.get("motor")
    rows.append(("motor", "joint:motor", None, "on" if motor else "off"))
    if motor:
        rows += [("motor speed", "joint:motor.speed", None, motor["speed"]),
                 ("motor torque", "joint:motor.torque", None, motor["torque"])]
    rows.append(("break force", "joint:break", None, item.get("break", "off")))
    return rows


def wall_rows(item):
    """Rows of a segment's, polyline's or polygon's motion: surface speed, kick, motion."""
    rows = [("surface speed", "wall:surface_speed", None, item.get("surface_speed", "off")),
            ("kick", "wall:kick", None, item.get("kick", "off"))]
    motion = item.get("motion")
    rows.append(("motion", "wall:motion", None, motion["kind"] if motion else "none"))
    if motion is None:
        return rows
    kind = motion["kind"]
    if kind in ("rotate", "flipper"):
        rows += [(f"pivot {axis}", "wall:motion.pivot", k, motion["pivot"][k]) for k, axis in enumerate("xy")]
        rows.append(("place pivot", "wall:place", None, "click"))
    if kind == "rotate":
        rows.append(("turn speed", "wall:motion.speed", None, motion["speed"]))
    elif kind == "slide":
        rows += [(f"slide to {axis}", "wall:motion.to", k, motion["to"][k]) for k, axis in enumerate("xy")]
        rows.append(("period", "wall:motion.period", None, motion["period"]))
    else:
        rows += [("angle", "wall:motion.angle", None, motion["angle"]),
                 ("turn speed", "wall:motion.speed", None, motion["speed"]),
                 ("key", "wall:motion.key", None, motion["key"])]
    return rows


def ball_rows(doc, index):
    """A ball's joints: a row whose + selects them (a pin sits under its ball's centre)."""
    n = sum(1 for j in doc.definition.get("joints", []) if j["a"] == index or (is_index(j["b"]) and j["b"] == index))
    return [("joints", "ball:joints", None, f"{n} (+ selects)")] if n else []


class PanelParts:
    """The changes of the joint and moving-wall rows, for a Panel (``panel.parts``)."""

    def __init__(self, panel):
        self.panel = panel
        self.placing = False        # True: the next click in the world places the pivot

    @property
    def ed(self):
        return self.panel.ed

    def step(self, row, direction, fine=False):
        """+ or - on a row."""
        label, key, index, value = row
        up = direction > 0
        if key == "ball:joints":
            return self.select_joints()
        if key == "wall:place":
            self.placing = True
            self.ed.message = "click where the pivot goes (Esc: keep it)"
            return
        field = key.split(":", 1)[1]
        if field in ("kind", "motor", "motion", "motion.key"):
            choices = {"kind": ("rod", "rope"), "motor": ("off", "on"), "motion": MOTIONS,
                       "motion.key": FLIPPER_KEYS}[field]
            k = (choices.index(value) + (1 if up else -1)) % len(choices)
            return self.set(key, index, choices[k], label)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            if not up:
                return None                     # "off" stays off
            value = 0.0
        step = STEPS[field] * (0.1 if fine else 1.0)
        if field in PROPORTIONAL and value > 0:
            number = value * (1 + (RATIO - 1) * (0.1 if fine else 1.0)) ** (1 if up else -1)
            number = float(f"{number:.4g}")
        else:
            number = value + (step if up else -step)
        return self.set(key, index, number, label)

    def type(self, row, text):
        """A typed value: a number, or for a choice or an optional field a word."""
        label, key, index, value = row
        word = text.strip().lower()
        field = key.split(":", 1)[1]
        if key in ("ball:joints", "wall:place"):
            return self.step(row, +1)
        if field in ("kind", "motor", "motion", "motion.key"):
            return self.set(key, index, "off" if field == "motor" and word in OFF_WORDS else word, label)
        if word in OFF_WORDS and field in ("break", "surface_speed", "kick"):
            return self.set(key, index, None, label)
        try:
            number = float(word)
        except ValueError:
            raise EditRefused(f"expected a number{' or off' if field in ('break', 'surface_speed', 'kick') else ''}, "
                              f"got {text.strip()[:20]!r}") from None
        if not math.isfinite(number):
            raise EditRefused(f"expected a finite number, got {text.strip()[:20]!r}")
        return self.set(key, index, number, label)

    def place(self, point):
        """The click after "place pivot": the selected walls' pivot goes there."""
        self.placing = False
        try:
            self.set("wall:motion.pivot", None, [float(point[0]), float(point[1])], "place pivot")
        except EditRefused as e:
            self.ed.message = f"pivot: {e}"
            return
        self.ed.message = f"pivot at ({point[0]:g}, {point[1]:g})"

    def select_joints(self):
        doc = self.ed.doc
        balls = {i for name, i in doc.selection if name == "balls"}
        doc.selection = [("joints", k) for k, j in enumerate(doc.definition.get("joints", []))
                         if (is_index(j["a"]) and j["a"] in balls) or (is_index(j["b"]) and j["b"] in balls)]

    # ------------------------------------------------------------------ the edit

    def set(self, key, index, value, label):
        """Set one field on every selected joint (``joint:``) or wall (``wall:``) as one edit."""
        kind, field = key.split(":", 1)
        doc = self.ed.doc
        lists = ("joints",) if kind == "joint" else STATICS
        refs = [r for r in doc.selection if doc.exists(r) and r[0] in lists]
        changes = {}
        for ref in refs:
            new = self._changed(ref, doc.item(ref), field, index, value)
            if new is not None:
                if len(doc.normalised(ref[0], new)) != 1:
                    raise EditRefused("the shape would split")
                changes[ref] = new
        if changes:
            doc._replace_items(changes, f"set {label}")
        doc.end_merge()

    def _changed(self, ref, item, field, index, value):
        """The item with ``field`` (a key, or "motion.x", "motor.x") set to ``value`` (None:
        left out; a vector's component when ``index`` is given); None where it has no such field."""
        if field in POSITIVE and isinstance(value, float):
            value = max(0.0, value)
        if isinstance(value, float):
            value = float(round(value, 9))
        if field == "motor":
            if value not in ("on", "off"):
                raise EditRefused(f"expected on or off, got {value!r}")
            if value == "off":
                return updated(item, ("motor",), _MISSING)
            return item if "motor" in item else dict(item, motor=dict(MOTOR))
        if field == "motion":
            return self._motion(ref, item, value)
        if field in ("break", "surface_speed", "kick") and value is None:
            return updated(item, (field,), _MISSING) if field in item else item
        if field == "break" and value == 0.0:
            return updated(item, ("break",), _MISSING) if "break" in item else item
        if field == "kind" and value not in ("rod", "rope"):
            raise EditRefused(f"expected rod or rope, got {value!r}")
        if field == "motion.key" and value not in FLIPPER_KEYS:
            raise EditRefused(f"expected left or right, got {value!r}")
        path = tuple(field.split("."))
        if path[0] in ("motion", "motor") and (path[0] not in item or path[1] not in item[path[0]]):
            return None                         # a field of a motion or motor it does not have
        if path == ("b",) and not isinstance(item["b"], list):
            return None                         # ball b is no anchor to move
        if index is not None:
            path += (index,)
        if len(path) == 1 and path[0] not in item:
            return dict(item, **{path[0]: value})
        return updated(item, path, value)

    def _motion(self, ref, item, kind):
        """The wall with a motion of ``kind`` (none: standing still), the fields it had kept."""
        if kind not in MOTIONS:
            raise EditRefused(f"expected one of {', '.join(MOTIONS)}, got {kind!r}")
        old = item.get("motion") or {}
        if kind == "none":
            return updated(item, ("motion",), _MISSING) if "motion" in item else item
        if old.get("kind") == kind:
            return item
        if kind == "rotate":
            motion = {"kind": "rotate", "pivot": old.get("pivot") or self._centre(),
                      "speed": old.get("speed", ROTATE_SPEED)}
        elif kind == "slide":
            motion = {"kind": "slide", **{k: list(v) if isinstance(v, list) else v for k, v in SLIDE.items()}}
        else:
            first = points_of(ref[0], item)[0]
            motion = {"kind": "flipper", "pivot": old.get("pivot") or [float(first[0]), float(first[1])],
                      **FLIPPER, "key": "left"}
        return dict(item, motion=motion)

    def _centre(self):
        """The middle of the selected walls (a rotor's pivot to start with)."""
        doc = self.ed.doc
        boxes = [bbox(n, doc.item((n, i))) for n, i in doc.selection if n in STATICS and doc.exists((n, i))]
        return [round((min(b[0] for b in boxes) + max(b[2] for b in boxes)) / 2, 9),
                round((min(b[1] for b in boxes) + max(b[3] for b in boxes)) / 2, 9)]
