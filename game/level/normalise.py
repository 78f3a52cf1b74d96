"""The normalised level: one table of defaults per kind, to fill on load and strip on save.

``complete(doc)`` checks a parsed document (the schema and what a schema cannot say) and
returns it normalised: every key the world reads is present, rectangles are stored
[[x_min, y_min], [x_max, y_max]], polygons convex and counter-clockwise (a simple
non-convex one becomes its convex pieces), a spring has its rest length, and a level with
"bodies" has them filled in (BODY_DEFAULTS; a level without keeps no "bodies" key, so it
normalises as it did before bodies). ``strip(doc)``
is its inverse for saving: it leaves out of shapes, balls and the rest every key whose
value ``complete`` would fill in anyway, so ``complete(strip(d)) == d``.

DEFAULTS is the one table. A value of FROM_MATERIAL means "the level's material".

Keys that start with ``_`` or ``//`` are comments: allowed in every object and kept.
"""
import copy
import math
import unicodedata

import numpy as np

from game import defaults

import game.physics.geometry as geometry
import game.physics.polygons as polygons
from game.level import bodies as level_bodies, schema as level_schema, snapshot
from game.level.bodies import BODY_SHAPE_DEFAULTS, FRAME_KEY, MAX_BODY_FRAMES
from game.level.errors import Problem, cut, render

SCHEMA_REF = "./level.schema.json"
STATIC_LISTS = ("segments", "polylines", "polygons")
MOVING_KEYS = ("surface_speed", "kick", "motion")   # optional on any static: a moving wall
ZONE_SHAPES = ("rect", "circle", "ellipse", "polygon")


class _FromMaterial:
    def __repr__(self):
        return "FROM_MATERIAL"


FROM_MATERIAL = _FromMaterial()   # in DEFAULTS: the level's material gives the value
PINBALL = {"speed": 14.0, "lives": 3, "radius": 0.3}     # a "pinball" level's defaults (the plunger has none)
_SURFACE = {"restitution": FROM_MATERIAL, "friction": FROM_MATERIAL, "rolling": FROM_MATERIAL}

DEFAULTS = {
    "level": {"$schema": SCHEMA_REF, "format": defaults.FORMAT, "description": "",
              "gravity": list(defaults.GRAVITY), "integrator": defaults.INTEGRATOR,
              "substeps": defaults.SUBSTEPS, "drag": defaults.DRAG, "bounds": list(defaults.BOUNDS),
              "par": {}},
    "material": dict(defaults.MATERIAL),
    "player": dict(defaults.PLAYER),
    "segments": {"radius": defaults.SEGMENT_RADIUS, **_SURFACE},
    "polylines": {"closed": False, "radius": defaults.SEGMENT_RADIUS, **_SURFACE},
    "polygons": dict(_SURFACE),
    "balls": {"vel": [0, 0], "angle": 0.0, "spin": defaults.BALL_SPIN, "radius": defaults.BALL_RADIUS,
              "density": FROM_MATERIAL, **_SURFACE},
    "springs": {"stiffness": defaults.SPRING_STIFFNESS, "damping": defaults.SPRING_DAMPING},
    # A joint's "length" (a rod's default: the distance at load), "motor" and "break" are
    # filled by ``joint``: no motor and no break are left out of a normalised joint.
    "joints": {"offset_a": [0.0, 0.0], "offset_b": [0.0, 0.0]},
    "spawners": {"vel": [0, 0], "every": defaults.SPAWNER_EVERY, "max": defaults.SPAWNER_MAX,
                 "radius": defaults.BALL_RADIUS, "density": FROM_MATERIAL, "jitter": defaults.SPAWNER_JITTER},
    "zones": {"count": defaults.ZONE_COUNT, "hold": defaults.GOAL_HOLD, "strength": defaults.ATTRACTOR_STRENGTH},
}
OBJECTS = ("material", "player")      # kinds of DEFAULTS that are one object at the top level

# Dynamic bodies ("bodies"). Not in DEFAULTS: a level without bodies has no "bodies" list
# when normalised, so it normalises (and its World hashes) as before bodies existed. The rest
# of the bodies' rules: game.level.bodies.
BODY_DEFAULTS = {"vel": [0, 0], "spin": 0.0, "density": FROM_MATERIAL,
                 "restitution": FROM_MATERIAL, "friction": FROM_MATERIAL}

MAX_FILE_BYTES = 16 * 1024 * 1024   # bytes: larger files are refused before they are read
# A level holds as many balls as a saved world's fit in the file limit: a snapshot ball
# (pos, vel, spin, radius, mass at full precision, pretty-printed) takes this many bytes.
# Balls that have turned also write their angle (about 40 bytes more): a world of more than
# about 65,000 of them at full precision can be past the limit, and its save is refused in
# one line (game.level.save) rather than written where it would not load again.
SNAPSHOT_BALL_BYTES = 215
MAX_BALLS = MAX_FILE_BYTES // SNAPSHOT_BALL_BYTES     # 78033: "maxItems" of balls in the schema

# Caps the schema cannot state (work summed over a whole level), set from what this loader
# does within the load budget (2 s, 500 MB: see tools/hostile_levels.py):
MAX_STATIC_PIECES = 20_000        # segments + polyline pieces + polygon edges in one level
                                  # (the loader: 0.1 s; the world bins about 2,000 a second)
# m: the shortest rope or rod (but a rod of 0, a pin). Shorter, the ends' distance rounds to 0
# where the solve puts them (1e-300 m: the held point is the anchor itself) and the row has no
# direction: the ball sat still and reported 12-18 m/s for ever. A measured length below it is 0.
MIN_JOINT_LENGTH = 1e-6
MAX_NONCONVEX_CORNERS = 5_000     # corners of non-convex polygons in one level: cutting costs
                                  # O(n r) each, about 0.1 ms a corner for a 256-corner spiral


def fill(kind, item, material):
    """The default of every key of ``kind`` that ``item`` does not set, resolved against
    ``material`` (a complete material dict)."""
    return {k: (material[k] if v is FROM_MATERIAL else v) for k, v in DEFAULTS[kind].items() if k not in item}


def complete(obj, default_name="Untitled", values_checked=False):
    """Check a parsed document and return it normalised (see the module docstring).

    Raises Problem. Order: over-long lists (cheap, before the schema), what the parser let
    through (NaN, duplicate keys, bad text; skipped when the reader vouches there is none:
    ``values_checked``), the format version, the schema, then what a schema cannot say.
    Near-linear in the size of the document.
    """
    _check_totals(obj)
    level_schema.check_top_sizes(obj)
    if not values_checked:
        check_values(obj)
    if isinstance(obj, dict) and _is_number(obj.get("format")) and obj["format"] > defaults.FORMAT:
        raise Problem(("format",), f"expected format {defaults.FORMAT} or older (this program reads "
                                   f"levels up to format {defaults.FORMAT}), got {render(obj['format'])}")
    level_schema.check(obj)
    return _Normaliser(obj, default_name).run()


def player_defaults(player):
    """The player's rules a level leaves out, given those it writes: DEFAULTS' (no limits),
    except that a level which limits the balls a player adds ("spawn" a number: a puzzle) and
    says nothing of bodies gives none: a box or a plank is not a way round a puzzle's budget."""
    out = dict(DEFAULTS["player"])
    if player.get("spawn") is not None:
        out["bodies"] = 0
    return out


def strip(doc):
    """A normalised level without the keys ``complete`` fills in with the same value
    (in shapes, balls, springs, spawners and zones, and ``player``, left out when all its
    keys are; an empty ``par`` too; the rest of the top level stays whole)."""
    material = doc["material"]
    out = dict(doc)
    if "player" in out:
        implied = player_defaults(out["player"])
        player = {k: v for k, v in out["player"].items() if not (k in implied and _same(v, implied[k]))}
        if player:
            out["player"] = player
        else:
            del out["player"]
    if out.get("par") == {}:
        del out["par"]
    for kind in DEFAULTS:
        if kind in ("level",) + OBJECTS:
            continue
        fills = {k: (material[k] if v is FROM_MATERIAL else v) for k, v in DEFAULTS[kind].items()}
        out[kind] = [{k: v for k, v in item.items() if not (k in fills and _same(v, fills[k]))}
                     for item in doc[kind]]
    if "bodies" in doc:
        out["bodies"] = [_strip_body(b, material) for b in doc["bodies"]]
    out["zones"] = [{k: v for k, v in z.items() if not (k == "count_bodies" and v is False)} for z in out["zones"]]
    return out


def _strip_body(body, material):
    fills = {k: (material[k] if v is FROM_MATERIAL else v) for k, v in BODY_DEFAULTS.items()}
    fills.update(BODY_SHAPE_DEFAULTS[body["shape"]])
    return {k: v for k, v in body.items() if not (k in fills and _same(v, fills[k]))}


def _same(a, b):
    return type(a) is type(b) and a == b if not (_is_number(a) and _is_number(b)) else a == b


# ============================================================================ what parsers let through

class BadNumber:
    """What the parser makes of NaN, Infinity and absurdly long integers (1e999 becomes inf)."""

    def __init__(self, text):
        self.text = text


def parse_int(text):
    """An integer token: Python refuses more than 4300 digits; anything over 20 is absurd here."""
    return int(text) if len(text) <= 20 else BadNumber(text)


class DuplicateKeys(dict):
    """A JSON object that had a key twice (``duplicate`` names it); plain dicts otherwise."""

    duplicate = None

    @classmethod
    def from_pairs(cls, pairs):
        d = dict(pairs)
        if len(d) == len(pairs):
            return d
        seen = set()
        for key, _ in pairs:
            if key in seen:
                break
            seen.add(key)
        d = cls(d)
        d.duplicate = key
        return d


def check_values(obj):
    """Refuse what JSON parsers accept but a level cannot hold; iterative (no recursion).

    A quick pass over the plain values first; only when it finds something does the
    second pass, which knows the JSON path, run to say where. Both are linear, and the
    second builds a path only for the value it refuses.
    """
    if _all_plain(obj):
        return
    _check_value((), obj)
    isfinite = math.isfinite
    stack = [((), iter(_children(obj)))]          # (path of a container, its (key, value) pairs)
    while stack:
        path, children = stack[-1]
        for key, value in children:
            kind = type(value)
            if kind is int or kind is bool or value is None or (kind is float and isfinite(value)) \
                    or (kind is str and value.isascii()) or (kind is list and not value):
                continue                    # plain: no path built
            if kind is not list:
                _check_value(path + (key,), value)
            if isinstance(value, (dict, list)) and value:
                stack.append((path + (key,), iter(_children(value))))
                break
        else:
            stack.pop()


def _children(value):
    if isinstance(value, dict):
        return value.items()
    if isinstance(value, list):
        return enumerate(value)
    return ()


def _check_value(path, value):
    kind = type(value)
    if kind is int or kind is list or value is None or kind is bool:
        return
    if kind is float:
        if not math.isfinite(value):
            raise Problem(path, f"expected a finite number, got {value!r}", show_token=True)
    elif kind is str:
        _check_text(path, value)
    elif isinstance(value, BadNumber):
        raise Problem(path, f"expected a finite number, got {cut(value.text)}")
    elif isinstance(value, dict):
        if getattr(value, "duplicate", None) is not None:
            key = value.duplicate
            raise Problem(path + (key,), f"expected each key once in an object, got {render(key)} twice", at_key=True)
        for key in value:
            _check_text(path + (key,), key)


def _all_plain(obj):
    """True when every value is a finite number, text that encodes, or a plain container."""
    todo = [obj]
    pop, push, isfinite = todo.pop, todo.extend, math.isfinite
    while todo:
        value = pop()
        kind = type(value)
        if kind is dict:
            push(value.values())
            if not all(k.isascii() for k in value):
                return False
        elif kind is list:
            push(value)
        elif kind is float:
            if not isfinite(value):
                return False
        elif kind is str:
            if not value.isascii():
                return False
        elif kind not in (int, bool) and value is not None:
            return False
    return True


def check_shown_text(path, text):
    """Refuse text the game shows (a level's name, its description) that no font can draw:
    control characters (NUL, bell, escape, line breaks: the text is one line), or nothing
    visible at all (only spaces, zero-width or other format characters). Raises Problem."""
    for k, ch in enumerate(text):
        if unicodedata.category(ch) == "Cc":
            raise Problem(path, f"expected one line of text without control characters, got U+{ord(ch):04X} "
                                f"at character {k + 1}")
    if text and all(ch.isspace() or unicodedata.category(ch) in INVISIBLE for ch in text):
        raise Problem(path, f"expected visible text, got only invisible characters "
                            f"({', '.join(sorted({f'U+{ord(ch):04X}' for ch in text})[:4])})")


# Unicode categories that draw nothing on their own: format (zero-width space and joiners,
# direction marks), non-spacing and enclosing marks, surrogates, line and paragraph separators.
INVISIBLE = {"Cf", "Mn", "Me", "Cs", "Zl", "Zp"}


def _check_text(path, text):
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise Problem(path, "expected text, got a \\u escape of half a surrogate pair") from None


def _check_totals(d):
    """Refuse a level whose sum of work is beyond the caps (see MAX_STATIC_PIECES); runs
    before the schema, so it counts only what has the right shape (the schema says the rest)."""
    if not isinstance(d, dict):
        return

    def points(kind):
        items = d.get(kind)
        return [len(s["points"]) for s in items if isinstance(s, dict) and isinstance(s.get("points"), list)] \
            if isinstance(items, list) else []

    segments = d.get("segments")
    pieces = len(segments) if isinstance(segments, list) else 0
    # (bodies need no cap here: at most 20,000 of at most 12 corners, checked in O(corners))
    pieces += sum(max(n - 1, 0) for n in points("polylines")) + sum(points("polygons"))
    if pieces > MAX_STATIC_PIECES:
        raise Problem((), f"expected at most {MAX_STATIC_PIECES} static pieces in all (segments, polyline "
                          f"pieces, polygon edges), got {pieces}")


# ============================================================================ normalising

class _Normaliser:
    """What the schema cannot say, checked while building the normalised document."""

    def __init__(self, doc, default_name):
        self.doc, self.default_name = doc, default_name
        m = doc.get("material", {})
        self.material = {k: m.get(k, v) for k, v in DEFAULTS["material"].items()}
        self.nonconvex_corners = [0]          # one counter for the level (see convex_pieces)

    def run(self):
        d = self.doc
        top = DEFAULTS["level"]
        out = {"$schema": d.get("$schema", top["$schema"]), "format": int(d.get("format", top["format"])),
               "name": d.get("name", self.default_name), "description": d.get("description", top["description"])}
        for key in ("name", "description"):
            if key in d:
                check_shown_text((key,), d[key])
        out.update(_comments(d))
        if "_resume" in d:                      # a snapshot's memory (game.physics.resume): its shape checked
            snapshot.check(d["_resume"], lambda path, message: Problem(("_resume",) + tuple(path), message))
        out["gravity"] = _vec(d.get("gravity", top["gravity"]))
        out["integrator"] = d.get("integrator", top["integrator"])
        out["substeps"] = int(d.get("substeps", top["substeps"]))
        out["drag"] = d.get("drag", top["drag"])
        out["bounds"] = list(d.get("bounds", top["bounds"]))
        x0, y0, x1, y1 = out["bounds"]
        if not (x0 < x1 and y0 < y1):
            raise Problem(("bounds",), f"expected [x_min, y_min, x_max, y_max] with x_min < x_max and "
                                       f"y_min < y_max, got {render(out['bounds'])}")
        out["material"] = {**_comments(d.get("material", {})), **self.material}
        if not any(d.get(k) for k in STATIC_LISTS):
            raise Problem((), "expected at least one static shape in segments, polylines or polygons, "
                              "got none (balls would fall forever)")
        out["segments"] = [self.segment(i, s) for i, s in enumerate(d.get("segments", []))]
        out["polylines"] = [self.polyline(i, s) for i, s in enumerate(d.get("polylines", []))]
        out["polygons"] = [piece for i, s in enumerate(d.get("polygons", [])) for piece in self.polygon(i, s)]
        out["balls"] = [self.ball(b) for b in d.get("balls", [])]
        if "bodies" in d:                       # left out when absent: a level without bodies is as before
            out["bodies"] = [self.body(i, b) for i, b in enumerate(d["bodies"])]
        self.bodies, self.frames = out.get("bodies", []), {}
        out["springs"] = [self.spring(i, s, out["balls"]) for i, s in enumerate(d.get("springs", []))]
        out["joints"] = [self.joint(i, j, out["balls"]) for i, j in enumerate(d.get("joints", []))]
        out["spawners"] = [self.spawner(s) for s in d.get("spawners", [])]
        out["zones"] = [self.zone(i, z) for i, z in enumerate(d.get("zones", []))]
        player = d.get("player", {})
        out["player"] = {**_comments(player), **{k: copy.deepcopy(player.get(k, v)) for k, v in player_defaults(player).items()}}
        out["par"] = dict(d.get("par", top["par"]))
        if "pinball" in d:                      # left out when absent, as bodies are
            out["pinball"] = {**_comments(d["pinball"]), **PINBALL, **d["pinball"],
                              "plunger": _vec(d["pinball"]["plunger"])}
        if "solution" in d:
            out["solution"] = copy.deepcopy(d["solution"])      # for tests: kept as written
            for i, j in enumerate(d["solution"].get("joints", [])):
                self.placed_joint(i, j, out)
        return out

    def placed_joint(self, i, joint, out):
        """A solution's joint (game.goals.solution_joint) names balls and bodies the level has,
        a pin its point, and joins two different things."""
        where = ("solution", "joints", i)
        for key in ("a", "b"):
            end = joint.get(key)
            if isinstance(end, dict) and end["body"] >= len(out.get("bodies", [])):
                raise Problem(where + (key,), f"expected a body of the level's {len(out.get('bodies', []))}, got body {end['body']}")
            if isinstance(end, int) and end >= len(out["balls"]):
                raise Problem(where + (key,), f"expected a ball of the level's {len(out['balls'])}, got ball {end}")
        if joint["kind"] == "pin" and ("at" not in joint or isinstance(joint.get("b"), list)):
            raise Problem(where, "expected a pin's point \"at\" [x, y] and \"b\" a ball or body (or none: the world)")
        if joint["kind"] == "rod" and "b" not in joint:
            raise Problem(where, "expected a rod's other end \"b\": a ball, {\"body\": i} or an anchor [x, y]")
        if joint.get("b") == joint["a"]:
            raise Problem(where + ("b",), "expected two different ends, got the same one twice")

    def surface(self, shape):
        """The shape's surface (its ``surface``'s, ice, rubber or lava, else the material's, where
        left out) and, where the file gives them, how it moves: ``surface_speed``, ``kick`` and ``motion`` (left out where absent,
        so a still level normalises as it always has)."""
        m = self.material
        if "surface" in shape:          # ice, rubber, lava: its own surface where the shape gives none
            m = {**m, **defaults.SURFACES[shape["surface"]]}
        out = {"restitution": shape.get("restitution", m["restitution"]),
               "friction": shape.get("friction", m["friction"]), "rolling": shape.get("rolling", m["rolling"])}
        if "surface" in shape:
            out["surface"] = shape["surface"]
        for key in MOVING_KEYS:
            if key in shape:
                out[key] = copy.deepcopy(shape[key])
        if "motion" in out:
            motion = out["motion"]
            for key in ("pivot", "to"):
                if key in motion:
                    motion[key] = _vec(motion[key])
        return out

    def segment(self, i, s):
        radius = s.get("radius", DEFAULTS["segments"]["radius"])
        if s["a"] == s["b"] and radius == 0:
            raise Problem(("segments", i), f"expected a segment whose ends differ (or a radius above 0 for a "
                                           f"round peg), got a thin segment of zero length at {render(s['a'])}")
        return {**_comments(s), "a": _vec(s["a"]), "b": _vec(s["b"]), "radius": radius, **self.surface(s)}

    def polyline(self, i, s):
        """O(n) in the points (one numpy comparison of neighbours)."""
        points = s["points"]
        radius = s.get("radius", DEFAULTS["polylines"]["radius"])
        if radius == 0:
            p = np.asarray(points, float)
            repeated = np.flatnonzero(np.all(p[1:] == p[:-1], axis=1))
            if len(repeated):
                k = int(repeated[0]) + 1
                raise Problem(("polylines", i, "points", k),
                              f"expected a point different from the one before (radius is 0: a thin "
                              f"piece of zero length), got {render(points[k])} again")
        return {**_comments(s), "points": list(points),      # the parsed [x, y] lists, owned here
                "closed": s.get("closed", DEFAULTS["polylines"]["closed"]), "radius": radius, **self.surface(s)}

    def polygon(self, i, s):
        pieces = convex_pieces(("polygons", i, "points"), s["points"], True, self.nonconvex_corners)
        surface = self.surface(s)
        return [{**(_comments(s) if k == 0 else {}), "points": points, **surface} for k, points in enumerate(pieces)]

    def ball(self, b, _spin=DEFAULTS["balls"]["spin"], _radius=DEFAULTS["balls"]["radius"]):
        m, get = self.material, b.get
        out = _comments(b) if len(b) > 1 else {}
        out["pos"] = list(b["pos"])                       # the parsed list: owned here
        vel = get("vel")
        out["vel"] = [0, 0] if vel is None else list(vel)
        out["angle"] = get("angle", 0.0)
        out["spin"] = get("spin", _spin)
        out["radius"] = get("radius", _radius)
        _mass_and_surface(out, b, m)
        out["rolling"] = get("rolling", m["rolling"])
        return out

    def spring(self, i, s, balls):
        """A spring: its balls, bodies ({"body": i}, with ``offset_a`` / ``offset_b`` in the body's
        frame) or anchor [x, y] checked; its rest the distance between its ends at load where
        left out."""
        n = len(balls)
        a, b = s["a"], s["b"]
        offsets = {}
        for key, end in (("a", a), ("b", b)):
            if f"offset_{key}" in s:
                if not isinstance(end, dict):
                    raise Problem(("springs", i, f"offset_{key}"), "expected no offset: a spring holds a ball at "
                                                                   "its centre and an anchor where it is")
                offsets[key] = _vec(s[f"offset_{key}"])

        a = self.first_end(("springs", i, "a"), a, n)
        b = self.second_end(("springs", i, "b"), b, a, n)
        rest = s.get("rest")
        if rest is None:
            pa = self.held(a, offsets.get("a", (0.0, 0.0)), balls)
            pb = self.held(b, offsets.get("b", (0.0, 0.0)), balls)
            rest = math.hypot(pb[0] - pa[0], pb[1] - pa[1])
        out = {**_comments(s), "a": a, "b": b, **fill("springs", {}, self.material),
               **{k: s[k] for k in DEFAULTS["springs"] if k in s}, "rest": rest}
        for key, end in (("a", a), ("b", b)):
            if isinstance(end, dict):
                out[f"offset_{key}"] = offsets.get(key, [0.0, 0.0])
        return out

    def joint(self, i, j, balls):
        """A rod or rope: its balls and bodies checked (a missing one is a Problem with its
        path), its offsets [0, 0] where left out, a rod's length the distance between its held
        points at load where left out (the offsets turned by the balls' angles; a body's
        offsets are in its frame: origin its centre of mass, turned by a box's angle).
        A body end is normalised as {"body": i} (its comments kept)."""
        n = len(balls)
        offset_a = _vec(j.get("offset_a", (0.0, 0.0)))
        offset_b = _vec(j.get("offset_b", (0.0, 0.0)))
        a, b = j["a"], j["b"]
        a = self.first_end(("joints", i, "a"), a, n)
        b = self.second_end(("joints", i, "b"), b, a, n)
        other = self.held(b, offset_b, balls)
        length = j.get("length")
        if j["kind"] == "rope" and not (length is not None and length >= MIN_JOINT_LENGTH):
            raise Problem(("joints", i), f"expected a rope's length of at least {MIN_JOINT_LENGTH:g} m, got "
                                         f"{'none' if length is None else render(length)}")
        if length is not None and 0 < length < MIN_JOINT_LENGTH:
            raise Problem(("joints", i, "length"), f"expected a rod's length of 0 (a pin) or at least "
                                                   f"{MIN_JOINT_LENGTH:g} m, got {render(length)}")
        if length is None:
            pa = self.held(a, offset_a, balls)
            length = math.hypot(other[0] - pa[0], other[1] - pa[1])
            if length < MIN_JOINT_LENGTH:       # ends as good as together: a pin
                length = 0.0
        out = {**_comments(j), "kind": j["kind"], "a": a, "b": b, "length": length,
               "offset_a": offset_a, "offset_b": offset_b}
        if "motor" in j:
            out["motor"] = {**_comments(j["motor"]), "speed": j["motor"]["speed"], "torque": j["motor"]["torque"],
                            **({"key": j["motor"]["key"]} if "key" in j["motor"] else {})}
        if "break" in j:
            out["break"] = j["break"]
        return out

    def first_end(self, path, end, n):
        """A joint's or spring's end ``a``: a ball index below ``n`` or {"body": i}."""
        if isinstance(end, dict):
            return self.body_end(path, end)
        end = int(end)
        if end >= n:
            raise Problem(path, f"expected a ball index {_index_range(n)} or {{\"body\": i}}, got {render(end)}")
        return end

    def second_end(self, path, end, a, n):
        """A joint's or spring's end ``b``: {"body": i} (not a's body), a ball index below ``n``
        (not ball a) or an anchor [x, y]."""
        if isinstance(end, dict):
            end = self.body_end(path, end)
            if isinstance(a, dict) and a["body"] == end["body"]:
                raise Problem(path + ("body",), f"expected a body other than a's ({a['body']}), a ball or an anchor "
                                                f"[x, y], got {end['body']}")
            return end
        if not _is_number(end):
            return _vec(end)
        end = int(end)
        if end >= n:
            raise Problem(path, f"expected a ball index {_index_range(n)}, {{\"body\": i}} or an anchor [x, y], "
                                f"got {render(end)}")
        if end == a and not isinstance(a, dict):
            raise Problem(path, f"expected a ball other than a ({a}) or an anchor [x, y], got {end}")
        return end

    def held(self, end, offset, balls):
        """(x, y) m where an end holds at load: a body's point ``offset`` in its frame, a ball's
        (``offset`` turned by its angle), or the anchor itself."""
        if isinstance(end, dict):
            (x, y), angle = self.frame(end["body"])
        elif _is_number(end):
            (x, y), angle = balls[end]["pos"], balls[end]["angle"]
        else:
            return end
        c, s = math.cos(angle), math.sin(angle)
        return x + c * offset[0] - s * offset[1], y + s * offset[0] + c * offset[1]

    def body_end(self, path, end):
        n = len(self.bodies)
        k = int(end["body"])
        if k >= n:
            raise Problem(path + ("body",), f"expected a body index "
                                            f"{'from 0 to ' + str(n - 1) if n else '(but the level has no bodies)'}, "
                                            f"got {render(k)}")
        return {**_comments(end), "body": k}

    def frame(self, k):
        """((x, y) of body k's centre of mass, its frame's angle) at load (computed once)."""
        if k not in self.frames:
            if len(self.frames) >= MAX_BODY_FRAMES:
                raise Problem(("joints",), f"expected rods reaching at most {MAX_BODY_FRAMES} bodies without a "
                                           f"length (give their lengths), got more")
            self.frames[k] = level_bodies.frame(self.bodies[k], self.material["density"])
        return self.frames[k]

    def body(self, i, b):
        """A dynamic body: its shape's keys checked and filled in (see BODY_DEFAULTS), a
        polygon convex and counter-clockwise, ``_frame`` checked."""
        path = ("bodies", i)
        shape = b["shape"]
        level_bodies.check_keys(path, b)
        if "name" in b:
            check_shown_text(path + ("name",), b["name"])
        if FRAME_KEY in b:
            level_bodies.check_frame(path + (FRAME_KEY,), b[FRAME_KEY])
        m, get = self.material, b.get
        out = {**_comments(b), "shape": shape}
        if "name" in b:
            out["name"] = b["name"]
        if shape == "capsule":
            if b["a"] == b["b"]:
                raise Problem(path + ("b",), f"expected a capsule whose ends differ (a round body is a ball), got "
                                             f"a and b both at {render(b['a'])}")
            out.update(a=_vec(b["a"]), b=_vec(b["b"]), radius=b["radius"])
        elif shape == "box":
            out.update(center=_vec(b["center"]), size=_vec(b["size"]), angle=get("angle", 0.0),
                       radius=get("radius", 0.0))
        else:
            out["points"] = level_bodies.convex_corners(path + ("points",), b["points"], convex_pieces)
            out["radius"] = get("radius", 0.0)
        vel = get("vel")
        out["vel"] = [0, 0] if vel is None else _vec(vel)
        out["spin"] = get("spin", BODY_DEFAULTS["spin"])
        _mass_and_surface(out, b, m)
        if "colour" in b:
            out["colour"] = copy.copy(b["colour"])
        level_bodies.check_inertia(path, out)
        return out

    def spawner(self, s):
        out = {**_comments(s), "pos": _vec(s["pos"]), "vel": _vec(s.get("vel", (0, 0)))}
        for key, value in DEFAULTS["spawners"].items():
            if key != "vel":
                out[key] = s[key] if key in s else (self.material[key] if value is FROM_MATERIAL else value)
        out["max"] = int(out["max"])
        return out

    def zone(self, i, z):
        out = {**_comments(z), "kind": z["kind"]}
        shape = next(k for k in ZONE_SHAPES if k in z)
        value = z[shape]
        if shape == "rect":
            (x0, y0), (x1, y1) = value
            if x0 == x1 or y0 == y1:
                raise Problem(("zones", i, "rect"), f"expected two opposite corners of a rectangle with an area, "
                                                    f"got {render(value)}")
            value = [[min(x0, x1), min(y0, y1)], [max(x0, x1), max(y0, y1)]]
        elif shape == "polygon":
            value = convex_pieces(("zones", i, "polygon"), value, False)[0]
        else:
            value = {**_comments(value), "center": _vec(value["center"]),
                     **({"radius": value["radius"]} if shape == "circle" else {"radii": _vec(value["radii"])})}
        out[shape] = value
        out["count"] = int(z.get("count", DEFAULTS["zones"]["count"]))
        out["hold"] = z.get("hold", DEFAULTS["zones"]["hold"])
        out["strength"] = z.get("strength", DEFAULTS["zones"]["strength"])
        if z.get("count_bodies") is True:       # left out where false: levels without it are as before
            out["count_bodies"] = True
        if "after" in z:                        # goals in order: this one counts once that one was held
            k, zones = z["after"], self.doc.get("zones", [])
            if z["kind"] != "goal":
                raise Problem(("zones", i, "after"), f"expected no \"after\" on a {z['kind']} zone (only a goal "
                                                     f"waits for another), got {render(k)}")
            if not (k < i and zones[k].get("kind") == "goal"):
                raise Problem(("zones", i, "after"), f"expected the index of a goal zone before this one in zones, "
                                                     f"got {render(k)}")
            out["after"] = k
        if "body" in z:                         # only the body of this name counts
            names = [b["name"] for b in self.bodies if "name" in b]
            if z["body"] not in names:
                raise Problem(("zones", i, "body"), f"expected the name of one of the level's bodies "
                                                    f"({', '.join(map(repr, names)) or 'none is named'}), got {z['body']!r}")
            out["body"] = z["body"]
        return out


def convex_pieces(path, points, split, corners=None, nonconvex=None):
    """Check a polygon and return it as convex counter-clockwise pieces (lists of points).

    Refused: a corner repeated, zero area, edges that cross or touch; non-convex when
    not ``split``. A convex polygon costs O(n); a non-convex one O(n log n) for the
    crossing test and O(n r) to cut (``polygons.convex_decomposition``). ``corners``: a
    one-item list counting the level's non-convex corners, capped at MAX_NONCONVEX_CORNERS.
    ``nonconvex(path, points, signed_area)``: the Problem for a simple non-convex polygon
    when not ``split`` (default: one that says to split it).
    """
    n = len(points)
    for k in range(n):
        if points[k] == points[k - 1]:
            raise Problem(path + (k,), f"expected each corner once, got {render(points[k])} twice in a row")
    p = np.asarray(points, float)
    if not geometry.side(p[0], p[1], p).any():          # exactly on one line
        raise Problem(path, f"expected a polygon with an area, got corners on one line: {render(points)}")
    area = geometry.polygon_signed_area(p)
    scale = float(np.abs(p).max()) or 1.0
    ccw = [_vec(q) for q in points] if area > 0 else [_vec(points[0])] + [_vec(q) for q in points[:0:-1]]
    convex = geometry.polygon_is_convex(ccw)        # convex (one winding) implies simple
    crossing = None if convex else polygons.polygon_first_crossing(p)
    if crossing is not None:
        i, j = crossing
        if j == (i + 1) % n:
            raise Problem(path + (j,), f"expected a polygon whose edges do not cross, got its boundary "
                                       f"folding back on itself at {render(points[j])}")
        raise Problem(path, f"expected a polygon whose edges do not cross, got edge {i} "
                            f"({render(points[i])} to {render(points[(i + 1) % n])}) meeting edge {j} "
                            f"({render(points[j])} to {render(points[(j + 1) % n])})")
    if abs(area) <= 1e-12 * scale * scale:
        raise Problem(path, f"expected a polygon with an area, got corners on one line: {render(points)}")
    if convex:
        return [ccw]
    if not split:
        if nonconvex is not None:
            raise nonconvex(path, points, area)
        raise Problem(path, "expected a convex polygon, got a non-convex one (split it into convex zones)")
    corners = [0] if corners is None else corners
    corners[0] += n
    if corners[0] > MAX_NONCONVEX_CORNERS:
        raise Problem(path, f"expected at most {MAX_NONCONVEX_CORNERS} corners of non-convex polygons in a "
                            f"level, got more (draw large shapes from convex polygons)")
    try:
        pieces = polygons.convex_decomposition(np.asarray(ccw, float))
    except ValueError:
        raise Problem(path, "expected a polygon that can be cut into convex pieces, got one that cannot") from None
    # A notch that all but touches an edge leaves a sliver piece with no area: it adds nothing a
    # ball could hit, and as a polygon of its own the loader would refuse it, so a saved level
    # would not load again. Leave it out, by the same area rule as above.
    kept = []
    for piece in pieces:
        q = np.asarray([ccw[k] for k in piece], float)
        if abs(geometry.polygon_signed_area(q)) > 1e-12 * (float(np.abs(q).max()) or 1.0) ** 2:
            kept.append([list(ccw[k]) for k in piece])
    return kept


def _mass_and_surface(out, item, material):
    """A ball's or a body's ``mass`` (where given) or ``density``, restitution and friction into
    ``out``, the level's ``material`` filling what ``item`` leaves out."""
    if "mass" in item:
        out["mass"] = item["mass"]
    else:
        out["density"] = item.get("density", material["density"])
    out["restitution"] = item.get("restitution", material["restitution"])
    out["friction"] = item.get("friction", material["friction"])


def _comments(obj):
    return {k: v for k, v in obj.items() if k[:1] == "_" or k[:2] == "//"}


def is_comment(key):
    """Keys that start with "_" or "//" are comments."""
    return key.startswith(("_", "//"))


def _vec(v):
    return [v[0], v[1]]


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _index_range(n):
    return "from 0 to " + str(n - 1) if n else "(but the level has no balls)"


def plain(value, path=()):
    """A copy of ``value`` as plain JSON types (tuples, numpy arrays and scalars converted).

    Iterative over lists of plain numbers (a world of 50,000 balls converts in well under
    a second). Raises Problem for a value JSON cannot hold.
    """
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise Problem(path, f"expected text keys, got the key {render(repr(k))}")
            out[k] = plain(v, path + (k,))
        return out
    if isinstance(value, (list, tuple)):
        return [plain(v, path + (i,)) for i, v in enumerate(value)]
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if hasattr(value, "tolist"):             # numpy arrays and scalars
        return plain(value.tolist(), path)
    raise Problem(path, f"expected a JSON value, got a {type(value).__name__}")


__all__ = ["BODY_DEFAULTS", "BODY_SHAPE_DEFAULTS", "DEFAULTS", "FROM_MATERIAL", "complete", "strip", "fill", "plain",
           "is_comment"]
