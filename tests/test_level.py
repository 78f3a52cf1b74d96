"""game.level: the schema, loading with one-line errors, normalising, saving, watching."""
import glob
import json
import os
import re

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game import defaults
from game.level import LevelError, LevelWatcher, load, loads, save

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LEVEL_DIR = os.path.join(ROOT, "levels")
SCHEMA_FILE = os.path.join(LEVEL_DIR, "level.schema.json")
LEVELS = sorted(p for p in glob.glob(os.path.join(LEVEL_DIR, "*.json")) if not p.endswith(".schema.json"))
NAME = "levels/x.json"
WALL = '{"a": [0, 0], "b": [32, 0]}'

with open(SCHEMA_FILE, encoding="utf-8") as _f:
    SCHEMA = json.load(_f)

# A message: "file:line:col: json.path: expected ..., got ..." (line and col where known).
MESSAGE = re.compile(r"^(?P<file>[^:]+)(?::(?P<line>\d+):(?P<col>\d+))?: (?P<path>\S+|\(top level\)): "
                     r"expected .+, got .+$")


def refusal(text, name=NAME):
    with pytest.raises(LevelError) as info:
        loads(text, name)
    message = str(info.value)
    assert "\n" not in message and "\r" not in message
    assert "internal error" not in message
    return message


def level(**keys):
    """A small valid level as JSON text, with the given top-level keys added or replaced."""
    doc = {"segments": [{"a": [0, 0], "b": [32, 0]}]}
    doc.update(keys)
    return json.dumps(doc)


# ============================================================================ the schema

def test_the_schema_is_valid_json_schema_2020_12():
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def _props(*path):
    node = SCHEMA
    for key in path:
        node = node["properties"][key] if key != "[]" else node["items"]
        while "$ref" in node and "default" not in node and "properties" not in node and "type" not in node:
            node = _resolve(node["$ref"])
    return node


def _resolve(ref):
    node = SCHEMA
    for part in ref.lstrip("#/").split("/"):
        node = node[part]
    return node


def _default(*path):
    node = SCHEMA
    for key in path:
        node = node["properties"][key] if key != "[]" else node["items"]
    while "default" not in node and "$ref" in node:
        node = _resolve(node["$ref"])
    return node["default"]


@pytest.mark.parametrize("path, expected", [
    (("format",), defaults.FORMAT),
    (("gravity",), list(defaults.GRAVITY)),
    (("integrator",), defaults.INTEGRATOR),
    (("substeps",), defaults.SUBSTEPS),
    (("drag",), defaults.DRAG),
    (("bounds",), list(defaults.BOUNDS)),
    (("material",), defaults.MATERIAL),
    (("material", "restitution"), defaults.MATERIAL["restitution"]),
    (("material", "friction"), defaults.MATERIAL["friction"]),
    (("material", "density"), defaults.MATERIAL["density"]),
    (("segments", "[]", "radius"), defaults.SEGMENT_RADIUS),
    (("segments", "[]", "restitution"), defaults.MATERIAL["restitution"]),
    (("polylines", "[]", "radius"), defaults.SEGMENT_RADIUS),
    (("balls", "[]", "radius"), defaults.BALL_RADIUS),
    (("balls", "[]", "density"), defaults.MATERIAL["density"]),
    (("springs", "[]", "stiffness"), defaults.SPRING_STIFFNESS),
    (("springs", "[]", "damping"), defaults.SPRING_DAMPING),
    (("spawners", "[]", "every"), defaults.SPAWNER_EVERY),
    (("spawners", "[]", "max"), defaults.SPAWNER_MAX),
    (("spawners", "[]", "radius"), defaults.BALL_RADIUS),
    (("zones", "[]", "count"), defaults.ZONE_COUNT),
    (("zones", "[]", "strength"), defaults.ATTRACTOR_STRENGTH),
])
def test_schema_defaults_are_game_defaults(path, expected):
    assert _default(*path) == expected


def test_every_schema_property_has_a_description():
    def walk(node, where):
        if isinstance(node, dict):
            for key, sub in node.get("properties", {}).items():
                assert "description" in sub or "$ref" in sub and "description" in _resolve(sub["$ref"]), \
                    f"{where}.{key} has no description"
            for key, sub in node.items():
                walk(sub, f"{where}.{key}")
        elif isinstance(node, list):
            for k, sub in enumerate(node):
                walk(sub, f"{where}[{k}]")
    walk(SCHEMA, "schema")


def test_schema_integrators_are_the_game_integrators():
    integrators = pytest.importorskip("game.integrators")
    assert _props("integrator")["enum"] == list(integrators.ORDER)
    assert set(integrators.INTEGRATORS) == set(integrators.ORDER)


def test_the_format_in_the_docs_example_loads():
    """The example of DESIGN.md (Levels) is a valid level."""
    doc = loads("""{
      "$schema": "./level.schema.json", "format": 1, "name": "Funnel", "gravity": [0, -9.81],
      "integrator": "rk4", "bounds": [0, 0, 32, 18], "material": {"restitution": 0.4, "friction": 0.3},
      "segments": [{"a": [0, 0], "b": [32, 0]}, {"a": [4, 8], "b": [12, 6], "radius": 0.3}],
      "polylines": [{"points": [[0, 18], [0, 0], [32, 0], [32, 18]], "radius": 0}],
      "polygons": [{"points": [[14, 3], [18, 3], [16, 6]]}],
      "balls": [{"pos": [5, 15], "vel": [2, 0], "radius": 0.3, "density": 1}, {"pos": [6.5, 15]}],
      "springs": [{"a": 0, "b": 1, "stiffness": 40, "damping": 0.2, "rest": 1.5}],
      "spawners": [{"pos": [16, 17], "every": 0.25, "max": 200, "radius": 0.25}],
      "zones": [{"kind": "goal", "rect": [[14, 0], [18, 2]], "count": 20}]}""")
    assert doc["name"] == "Funnel"


# ============================================================================ shipped levels

def test_at_least_eight_levels_ship():
    assert len(LEVELS) >= 8


@pytest.mark.parametrize("path", LEVELS, ids=os.path.basename)
def test_shipped_level_is_valid_against_the_schema_file_and_loads(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    pairs = json.loads(text, object_pairs_hook=lambda p: p)
    assert pairs[0] == ("$schema", "./level.schema.json"), "a level begins with its $schema"
    raw = json.loads(text)
    jsonschema.Draft202012Validator(SCHEMA).validate(raw)
    doc = load(path)
    assert doc["name"].strip() and doc["description"].strip()
    assert "\n" not in doc["description"] and len(doc["description"]) <= 300
    assert re.match(r"\d\d_", os.path.basename(path)), "files sort in play order"


# ============================================================================ refusals

BAD = [
    # (id, text, substrings the message must hold, "line:col" or None)
    ("wrong end", '{\n  "segments": [\n    {"a": [0, 0], "b": [1, "a"]}\n  ]\n}',
     ['segments[0].b: expected [x, y], got [1, "a"]'], "3:24"),
    ("short point", level(segments=[{"a": [0, 0], "b": [1]}]), ["segments[0].b: expected [x, y], got [1]"], "1:34"),
    ("syntax", '{\n  "segments": [\n    {"a": [0, 0] "b": [1, 2]}\n  ]\n}', ["expected ','", "got '\"b\"'"], "3:18"),
    ("trailing comma", '{"segments": [' + WALL + ',]}', ["no ',' before a closing bracket", "got ']'"], "1:43"),
    ("a comment", '{\n  // walls\n  "segments": [' + WALL + ']}', ["JSON has no comments", "_comment"], "2:3"),
    ("unterminated", '{"name": "abc', ["name", "expected a closing '\"'"], "1:10"),
    ("empty file", "", ["(top level): expected a value, got the end of the file"], "1:1"),
    ("extra data", level() + " {}", ["expected the end of the document", "got '{'"], None),
    ("not an object", "[1, 2]", ["(top level): expected an object, got [1, 2]"], "1:1"),
    ("NaN", '{"segments": [{"a": [0, NaN], "b": [1, 2]}]}', ["segments[0].a[1]: expected a finite number, got NaN"],
     "1:25"),
    ("Infinity", '{"segments": [{"a": [0, 0], "b": [-Infinity, 2]}]}',
     ["segments[0].b[0]: expected a finite number, got -Infinity"], "1:35"),
    ("overflow", '{"segments": [{"a": [0, 1e999], "b": [1, 2]}]}', ["segments[0].a[1]", "got 1e999"], "1:25"),
    ("huge integer", '{"substeps": ' + "9" * 5000 + ', "segments": [' + WALL + ']}', ["substeps: expected a finite"],
     "1:14"),
    ("far away", level(segments=[{"a": [0, 0], "b": [2e6, 0]}]),
     ["segments[0].b: expected [x, y] with each a number from -1000000 to 1000000, got [2000000.0, 0]"], "1:34"),
    ("unknown key", level(segments=[{"a": [0, 0], "b": [1, 0], "radus": 1}]),
     ['segments[0].radus: expected one of the keys a, b, radius', 'unknown key "radus"', 'did you mean "radius"'],
     "1:42"),
    ("unknown top key", level(gravityy=[0, 1]), ['gravityy: expected one of the keys', 'did you mean "gravity"'], None),
    ("missing key", level(segments=[{"a": [0, 0]}]), ['segments[0]: expected a key "b", got {"a": [0, 0]}'], "1:15"),
    ("duplicate key", '{"segments": [{"a": [0, 0], "b": [1, 1], "a": [3, 3]}]}',
     ['segments[0].a: expected each key once in an object, got "a" twice'], "1:42"),
    ("unknown integrator", level(integrator="rk5"),
     ['integrator: expected one of "euler", "semi-implicit", "verlet", "rk4", got "rk5"'], None),
    ("newer format", level(format=defaults.FORMAT + 1),
     [f"format: expected format {defaults.FORMAT} or older", f"got {defaults.FORMAT + 1}"], None),
    ("empty level", '{"name": "Nothing"}', ["(top level): expected at least one static shape", "got none"], "1:1"),
    ("only balls", '{"balls": [{"pos": [1, 1]}], "segments": []}', ["expected at least one static shape"], None),
    ("thin zero-length segment", level(segments=[{"a": [1, 1], "b": [1, 1]}]),
     ["segments[0]: expected a segment whose ends differ", "round peg", "got a thin segment of zero length"], "1:15"),
    ("thin zero-length polyline piece", level(polylines=[{"points": [[0, 0], [1, 1], [1, 1]]}]),
     ["polylines[0].points[2]: expected a point different from the one before", "got [1, 1] again"], None),
    ("self-intersecting polygon", level(polygons=[{"points": [[0, 0], [2, 2], [2, 0], [0, 2]]}]),
     ["polygons[0].points: expected a polygon whose edges do not cross", "meeting edge"], None),
    ("polygon folding back", level(polygons=[{"points": [[0, 0], [4, 0], [4, 4], [4, 2], [0, 4]]}]),
     ["polygons[0].points[2]: expected a polygon whose edges do not cross", "folding back"], None),
    ("collinear polygon", level(polygons=[{"points": [[0, 0], [1, 0], [2, 0]]}]),
     ["polygons[0].points: expected a polygon with an area, got corners on one line"], None),
    ("repeated corner", level(polygons=[{"points": [[0, 0], [1, 0], [1, 0], [0, 1]]}]),
     ["polygons[0].points[2]: expected each corner once, got [1, 0] twice"], None),
    ("too few corners", level(polygons=[{"points": [[0, 0], [1, 0]]}]),
     ["polygons[0].points: expected a list of 3 to 256 points"], None),
    ("non-convex zone", level(zones=[{"kind": "goal", "polygon": [[0, 0], [4, 0], [4, 4], [2, 1], [0, 4]]}]),
     ["zones[0].polygon: expected a convex polygon, got a non-convex one"], None),
    ("spring end names no ball", level(balls=[{"pos": [1, 1]}], springs=[{"a": 0, "b": 3}]),
     ["springs[0].b: expected a ball index from 0 to 0 or an anchor [x, y], got 3"], None),
    ("spring start names no ball", level(springs=[{"a": 0, "b": [1, 1]}]),
     ["springs[0].a: expected a ball index (but the level has no balls), got 0"], None),
    ("spring to itself", level(balls=[{"pos": [1, 1]}], springs=[{"a": 0, "b": 0}]),
     ["springs[0].b: expected a ball other than a (0)"], None),
    ("spring end of the wrong type", level(balls=[{"pos": [1, 1]}], springs=[{"a": 0, "b": "x"}]),
     ['springs[0].b: expected a ball index or an anchor [x, y], got "x"'], None),
    ("negative spring end", level(balls=[{"pos": [1, 1]}], springs=[{"a": 0, "b": -1}]),
     ["springs[0].b: expected a ball index or an anchor [x, y], got -1"], None),
    ("two zone shapes", level(zones=[{"kind": "kill", "rect": [[0, 0], [1, 1]], "circle": {"center": [0, 0],
                                                                                        "radius": 1}}]),
     ["zones[0]: expected exactly one shape: rect, circle, ellipse or polygon"], None),
    ("no zone shape", level(zones=[{"kind": "goal"}]), ["zones[0]: expected exactly one shape"], None),
    ("unknown zone kind", level(zones=[{"kind": "portal", "circle": {"center": [0, 0], "radius": 1}}]),
     ['zones[0].kind: expected one of "goal", "kill", "attractor", got "portal"'], None),
    ("flat rect", level(zones=[{"kind": "goal", "rect": [[0, 0], [0, 1]]}]),
     ["zones[0].rect: expected two opposite corners of a rectangle with an area"], None),
    ("density and mass", level(balls=[{"pos": [1, 1], "density": 1, "mass": 1}]),
     ["balls[0]: expected density or mass, not both"], None),
    ("restitution out of range", level(material={"restitution": 1.5}),
     ["material.restitution: expected a number from 0 to 1, got 1.5"], None),
    ("restitution of the wrong type", level(segments=[{"a": [0, 0], "b": [1, 0], "restitution": "high"}]),
     ['segments[0].restitution: expected a number from 0 to 1, got "high"'], None),
    ("zero radius ball", level(balls=[{"pos": [1, 1], "radius": 0}]),
     ["balls[0].radius: expected a number from 0.001 to 1000000, got 0"], None),
    ("too many substeps", level(substeps=100), ["substeps: expected a whole number from 1 to 64, got 100"], None),
    ("fractional substeps", level(substeps=2.5), ["substeps: expected a whole number from 1 to 64, got 2.5"], None),
    ("bounds inside out", level(bounds=[10, 0, 0, 18]), ["bounds: expected [x_min, y_min, x_max, y_max] with x_min"],
     None),
    ("bounds too short", level(bounds=[0, 0, 32]), ["bounds: expected [x_min, y_min, x_max, y_max], got [0, 0, 32]"],
     None),
    ("name of the wrong type", level(name=3), ["name: expected text, got 3"], None),
    ("empty name", level(name=""), ["name: expected text of at least 1 character"], None),
    ("lone surrogate", '{"name": "\\ud800", "segments": [' + WALL + ']}', ["name: expected text", "surrogate"], None),
    ("gravity too strong", level(gravity=[0, -1e7]), ["gravity: expected [gx, gy] with each a number"], None),
    ("too many balls", level(balls=[{"pos": [1, 1]}] * 5001),
     ["balls: expected a list of at most 5000 items, got 5001 items"], None),
    ("deep nesting", '{"_c": ' + "[" * 100000 + "]" * 100000 + ', "segments": [' + WALL + ']}',
     ["nested"], None),
]


@pytest.mark.parametrize("text, needles, where", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_a_bad_level_gives_one_clear_line(text, needles, where):
    message = refusal(text)
    assert message.startswith(NAME + ":")
    for needle in needles:
        assert needle in message, message
    if where is not None:
        assert message.startswith(f"{NAME}:{where}: "), message
    if "nested" not in message:
        assert MESSAGE.match(message), message


def test_the_line_and_column_point_at_the_value():
    text = '{\n  "segments": [\n    {"a": [0, 0], "b": [1, 0]},\n    {"a": [5, 5],\n     "b": [1, "a"]}\n  ]\n}'
    message = refusal(text)
    assert message.startswith(f"{NAME}:5:11: segments[1].b: ")
    line = text.splitlines()[4]
    assert line[10:].startswith('[1, "a"]')


def test_an_oversize_file_is_refused_before_it_is_read(tmp_path, monkeypatch):
    path = tmp_path / "huge.json"
    with open(path, "wb") as f:
        f.truncate(17 * 1024 * 1024)          # sparse: large on paper, nothing to read
    opened = []
    real_open = open
    monkeypatch.setattr("builtins.open", lambda *a, **k: opened.append(a) or real_open(*a, **k))
    with pytest.raises(LevelError) as info:
        load(path)
    assert "expected a level file of at most 16 MiB, got 17 MiB" in str(info.value)
    assert not opened


def test_a_missing_file_and_a_folder_are_refused(tmp_path):
    with pytest.raises(LevelError, match=r"nope\.json: cannot read: no such file"):
        load(tmp_path / "nope.json")
    with pytest.raises(LevelError, match="expected a level file, got a folder"):
        load(tmp_path)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads every file")
def test_an_unreadable_file_is_refused(tmp_path):
    path = tmp_path / "secret.json"
    path.write_text(level())
    path.chmod(0)
    with pytest.raises(LevelError, match="cannot read: permission denied"):
        load(path)


def test_invalid_utf8_is_refused_with_its_position(tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{\n  "name": "caf\xe9",\n  "segments": [' + WALL.encode() + b"]}")
    with pytest.raises(LevelError) as info:
        load(path)
    assert str(info.value) == f"{path}:2:15: (top level): expected UTF-8 text, got the byte 0xe9"


def test_a_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + level().encode())
    assert load(path)["segments"]


def test_loads_names_a_level_after_its_path():
    from pathlib import Path
    assert loads(level(), Path("levels/my_level.json"))["name"] == "my_level"
    assert loads(level().encode())["name"] == "Untitled"


def test_messages_stay_on_one_line_whatever_the_text():
    message = refusal('{"segments": [' + WALL + '], "bad\\nkey": 1}')
    assert '"bad\\nkey"' in message


# ============================================================================ normalising

def test_every_key_is_filled_in_with_the_defaults():
    doc = loads(level(balls=[{"pos": [1, 2]}, {"pos": [3, 2], "mass": 2}], springs=[{"a": 0, "b": 1}],
                      spawners=[{"pos": [5, 5]}], zones=[{"kind": "kill", "circle": {"center": [1, 1], "radius": 1}}],
                      polylines=[{"points": [[0, 0], [1, 1]]}], polygons=[{"points": [[0, 0], [1, 0], [0, 1]]}]),
                "levels/my_level.json")
    assert list(doc)[:4] == ["$schema", "format", "name", "description"]
    assert doc["$schema"] == "./level.schema.json" and doc["format"] == defaults.FORMAT
    assert doc["name"] == "my_level" and doc["description"] == ""
    assert doc["gravity"] == list(defaults.GRAVITY) and doc["integrator"] == defaults.INTEGRATOR
    assert doc["substeps"] == defaults.SUBSTEPS and doc["drag"] == defaults.DRAG
    assert doc["bounds"] == list(defaults.BOUNDS) and doc["material"] == defaults.MATERIAL
    m = defaults.MATERIAL
    assert doc["segments"] == [{"a": [0, 0], "b": [32, 0], "radius": defaults.SEGMENT_RADIUS,
                                "restitution": m["restitution"], "friction": m["friction"]}]
    assert doc["polylines"][0] == {"points": [[0, 0], [1, 1]], "closed": False, "radius": defaults.SEGMENT_RADIUS,
                                   "restitution": m["restitution"], "friction": m["friction"]}
    assert doc["balls"][0] == {"pos": [1, 2], "vel": [0, 0], "radius": defaults.BALL_RADIUS,
                               "density": m["density"], "restitution": m["restitution"], "friction": m["friction"]}
    assert doc["balls"][1]["mass"] == 2 and "density" not in doc["balls"][1]
    assert doc["springs"] == [{"a": 0, "b": 1, "stiffness": defaults.SPRING_STIFFNESS,
                               "damping": defaults.SPRING_DAMPING, "rest": 2.0}]
    assert doc["spawners"] == [{"pos": [5, 5], "vel": [0, 0], "every": defaults.SPAWNER_EVERY,
                                "max": defaults.SPAWNER_MAX, "radius": defaults.BALL_RADIUS,
                                "density": m["density"], "jitter": 0.0}]
    assert doc["zones"] == [{"kind": "kill", "circle": {"center": [1, 1], "radius": 1},
                             "count": defaults.ZONE_COUNT, "strength": defaults.ATTRACTOR_STRENGTH}]


def test_shapes_take_the_levels_material_unless_they_set_their_own():
    doc = loads(level(material={"restitution": 0.9}, segments=[{"a": [0, 0], "b": [1, 0]},
                                                               {"a": [0, 1], "b": [1, 1], "friction": 0.7}]))
    assert doc["material"] == {"restitution": 0.9, "friction": defaults.MATERIAL["friction"],
                               "density": defaults.MATERIAL["density"]}
    assert [s["restitution"] for s in doc["segments"]] == [0.9, 0.9]
    assert [s["friction"] for s in doc["segments"]] == [defaults.MATERIAL["friction"], 0.7]


def test_a_spring_rest_length_defaults_to_the_distance_at_load():
    doc = loads(level(balls=[{"pos": [1, 1]}, {"pos": [4, 5]}],
                      springs=[{"a": 0, "b": 1}, {"a": 1, "b": [4, 1]}, {"a": 0, "b": 1, "rest": 0.5}]))
    assert [s["rest"] for s in doc["springs"]] == [5.0, 4.0, 0.5]


def _area(points):
    return 0.5 * sum(points[k - 1][0] * points[k][1] - points[k][0] * points[k - 1][1] for k in range(len(points)))


def _convex_ccw(points):
    n = len(points)
    for k in range(n):
        (ax, ay), (bx, by), (cx, cy) = points[k - 1], points[k], points[(k + 1) % n]
        if (bx - ax) * (cy - by) - (by - ay) * (cx - bx) < 0:
            return False
    return _area(points) > 0


def test_a_clockwise_polygon_is_stored_counter_clockwise():
    doc = loads(level(polygons=[{"points": [[0, 0], [0, 2], [2, 2], [2, 0]]}]))
    (poly,) = doc["polygons"]
    assert _area(poly["points"]) == 4 and poly["points"][0] == [0, 0]


@pytest.mark.parametrize("points", [
    [[0, 0], [4, 0], [4, 4], [2, 1], [0, 4]],                                  # an arrow
    [[0, 0], [3, 0], [3, 1], [1, 1], [1, 3], [0, 3]],                          # an L
    [[0, 0], [6, 0], [6, 4], [5, 4], [5, 1], [1, 1], [1, 4], [0, 4]],          # a U
    [[0, 0], [2, 1], [4, 0], [3, 2], [4, 4], [2, 3], [0, 4], [1, 2]],          # a star-ish
    [[0, 0], [1, 0], [2, 0], [2, 2], [1, 1], [0, 2]],                          # a straight corner
], ids=["arrow", "L", "U", "star", "straight corner"])
def test_a_non_convex_polygon_is_split_into_convex_pieces(points):
    for winding in (points, points[::-1]):
        doc = loads(level(polygons=[{"points": winding, "friction": 0.9, "_comment": "kept"}]))
        pieces = doc["polygons"]
        assert len(pieces) >= 2
        assert all(_convex_ccw(p["points"]) for p in pieces)
        assert sum(_area(p["points"]) for p in pieces) == pytest.approx(abs(_area(points)))
        assert all(p["friction"] == 0.9 for p in pieces)
        assert pieces[0]["_comment"] == "kept"
        corners = {tuple(c) for c in points}
        assert all(tuple(c) in corners for p in pieces for c in p["points"])   # no new corners


def test_a_rect_zone_is_stored_min_corner_first():
    doc = loads(level(zones=[{"kind": "goal", "rect": [[5, 1], [2, 4]]}]))
    assert doc["zones"][0]["rect"] == [[2, 1], [5, 4]]


def test_integral_floats_become_integers_where_the_schema_wants_integers():
    doc = loads(level(format=1.0, substeps=2.0, balls=[{"pos": [0, 1]}, {"pos": [1, 1]}],
                      springs=[{"a": 0.0, "b": 1.0}], zones=[{"kind": "goal", "rect": [[0, 0], [1, 1]], "count": 3.0}]))
    assert type(doc["format"]) is int and type(doc["substeps"]) is int
    assert type(doc["springs"][0]["a"]) is int and type(doc["springs"][0]["b"]) is int
    assert type(doc["zones"][0]["count"]) is int


def test_round_pegs_are_allowed():
    doc = loads(level(segments=[{"a": [1, 1], "b": [1, 1], "radius": 0.2}]))
    assert doc["segments"][0]["a"] == doc["segments"][0]["b"]


def test_comment_keys_are_allowed_everywhere_and_kept():
    doc = loads(json.dumps({"_comment": "top", "//": "also a comment", "segments": [{"_why": "floor", "a": [0, 0],
                                                                                     "b": [1, 0]}],
                            "material": {"_note": 1}, "zones": [{"kind": "goal", "circle": {"center": [0, 0],
                                                                                            "radius": 1, "_c": []}}]}))
    assert doc["_comment"] == "top" and doc["//"] == "also a comment"
    assert doc["segments"][0]["_why"] == "floor" and doc["material"]["_note"] == 1
    assert doc["zones"][0]["circle"]["_c"] == []


# ============================================================================ fuzzing: nothing but LevelError

def _load_or_refuse(data):
    try:
        doc = loads(data, NAME)
    except LevelError as e:
        message = str(e)
        assert "\n" not in message and "internal error" not in message, message
        assert message.startswith(NAME + ":")
        return None
    assert isinstance(doc, dict)
    return doc


VALID = [open(p, "rb").read() for p in LEVELS] + [level().encode(), level(
    balls=[{"pos": [1, 1]}, {"pos": [2, 2]}], springs=[{"a": 0, "b": 1}],
    zones=[{"kind": "goal", "polygon": [[0, 0], [1, 0], [0, 1]]}],
    polygons=[{"points": [[0, 0], [4, 0], [4, 4], [2, 1], [0, 4]]}]).encode()]
# BALLPIT_FUZZ_EXAMPLES=5000 python -m pytest tests/test_level.py -k fuzz   fuzzes harder.
FUZZ = settings(max_examples=int(os.environ.get("BALLPIT_FUZZ_EXAMPLES", "150")), deadline=None,
                suppress_health_check=list(HealthCheck))


@FUZZ
@given(st.binary(max_size=300))
def test_fuzz_random_bytes(data):
    _load_or_refuse(data)


@FUZZ
@given(st.sampled_from(VALID), st.lists(st.tuples(st.integers(0, 10 ** 6), st.integers(0, 255)), max_size=4),
       st.integers(0, 10 ** 6), st.booleans())
def test_fuzz_mutated_levels(original, flips, cut, truncate):
    data = bytearray(original)
    for where, byte in flips:
        data[where % len(data)] = byte
    if truncate:
        data = data[:cut % (len(data) + 1)]
    _load_or_refuse(bytes(data))


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10 ** 7, 10 ** 7) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8) | st.sampled_from([0, 1, -1, 0.5, [0, 0], [1, 2], [[0, 0], [1, 0], [0, 1]], "rk4", "goal"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["a", "b", "pos", "points", "radius", "kind", "rect", "circle", "_c", "zz"])
        | st.text(max_size=4), inner, max_size=4),
    max_leaves=12)


def _paths(value, here=()):
    yield here
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, here + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, here + (i,))


@FUZZ
@given(st.sampled_from(VALID), st.data())
def test_fuzz_levels_with_values_replaced(original, data):
    doc = json.loads(original)
    paths = list(_paths(doc))
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(paths))
        value = data.draw(JSON_VALUES)
        if not path:
            doc = value
            break
        parent = doc
        try:
            for step in path[:-1]:
                parent = parent[step]
            parent[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            pass
    _load_or_refuse(json.dumps(doc))


@FUZZ
@given(JSON_VALUES)
def test_fuzz_random_json_trees(value):
    _load_or_refuse(json.dumps(value))


@FUZZ
@given(st.text(alphabet='{}[]:," \n0123456789.-eE+truefalsnNaIfiy\\u', max_size=60))
def test_fuzz_json_like_text(text):
    _load_or_refuse(text)


# ============================================================================ saving

@pytest.mark.parametrize("path", LEVELS, ids=os.path.basename)
def test_save_round_trips_every_shipped_level(path, tmp_path):
    doc = load(path)
    out = tmp_path / "copy.json"
    save(doc, out)
    assert load(out) == doc
    first = out.read_bytes()
    save(load(out), out)
    assert out.read_bytes() == first, "saving is stable"


def test_save_writes_pretty_text_in_a_stable_key_order(tmp_path):
    doc = loads(json.dumps({"zones": [], "segments": [{"b": [1, 0], "a": [0, 0]}], "name": "Order",
                            "_comment": "c", "integrator": "euler"}))
    out = tmp_path / "order.json"
    save(doc, out)
    text = out.read_text()
    keys = [k for k, _ in json.loads(text, object_pairs_hook=lambda p: p)]
    assert keys[:5] == ["$schema", "format", "name", "description", "_comment"]
    assert keys[5:] == ["gravity", "integrator", "substeps", "drag", "bounds", "material", "segments", "polylines",
                        "polygons", "balls", "springs", "spawners", "zones"]
    assert '\n  "segments": [{"a": [0, 0], "b": [1, 0]}],\n' in text
    assert text.endswith("}\n")


POINT = st.tuples(st.integers(-50, 50), st.integers(-50, 50)).map(list)
FLOAT_POINT = st.tuples(st.floats(-1e3, 1e3), st.floats(-1e3, 1e3)).map(list)
UNIT = st.floats(0, 1)


@st.composite
def valid_levels(draw):
    doc = {"name": draw(st.text(min_size=1, max_size=10)), "integrator": draw(st.sampled_from(["euler", "rk4"])),
           "material": {"restitution": draw(UNIT)}}
    segments = []
    for a, b, r in draw(st.lists(st.tuples(FLOAT_POINT, FLOAT_POINT, st.sampled_from([0, 0.1, 0.5])), min_size=1,
                                 max_size=4)):
        if a != b or r > 0:
            segments.append({"a": a, "b": b, "radius": r, "friction": draw(UNIT)})
    doc["segments"] = segments or [{"a": [0, 0], "b": [1, 0]}]
    balls = [{"pos": p, "vel": v, "radius": draw(st.floats(0.01, 2))}
             for p, v in draw(st.lists(st.tuples(FLOAT_POINT, FLOAT_POINT), max_size=5))]
    for b in balls:
        if draw(st.booleans()):
            b["mass"] = draw(st.floats(0.01, 100))
    doc["balls"] = balls
    if balls:
        doc["springs"] = [{"a": draw(st.integers(0, len(balls) - 1)), "b": draw(POINT), "stiffness": 10.0}]
    doc["polygons"] = [{"points": [[0, 0], [3, 0], [3, 1], [1, 1], [1, 3], [0, 3]]}]
    doc["zones"] = [{"kind": draw(st.sampled_from(["goal", "kill", "attractor"])),
                     "circle": {"center": draw(POINT), "radius": draw(st.floats(0.1, 5))},
                     "count": draw(st.integers(1, 5))}]
    return doc


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(valid_levels())
def test_save_round_trips_generated_levels(tmp_path_factory, raw):
    doc = loads(json.dumps(raw))
    out = tmp_path_factory.mktemp("round") / "level.json"
    save(doc, out)
    assert load(out) == doc


def test_save_accepts_tuples_and_numpy_values(tmp_path):
    np = pytest.importorskip("numpy")
    doc = {"segments": [{"a": (0, 0), "b": np.array([3.0, 0.0])}], "balls": [{"pos": np.array([1.5, 1.0]),
                                                                             "radius": np.float64(0.5)}],
           "substeps": np.int64(2)}
    save(doc, tmp_path / "np.json")
    back = load(tmp_path / "np.json")
    assert back["segments"][0]["b"] == [3.0, 0.0] and back["substeps"] == 2


def test_save_refuses_an_invalid_level_and_writes_nothing(tmp_path):
    out = tmp_path / "bad.json"
    with pytest.raises(LevelError) as info:
        save({"segments": [{"a": [0, 0], "b": [1, 0]}], "balls": [{"pos": [float("nan"), 0]}]}, out)
    assert str(info.value) == f"{out}: balls[0].pos[0]: expected a finite number, got nan"
    assert not out.exists() and os.listdir(tmp_path) == []


def test_save_is_atomic_when_the_rename_fails(tmp_path, monkeypatch):
    out = tmp_path / "level.json"
    out.write_text("the old level")

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(LevelError, match="cannot write: no space left on device"):
        save(loads(level()), out)
    assert out.read_text() == "the old level"
    assert os.listdir(tmp_path) == ["level.json"], "no temporary file is left behind"


def test_save_is_atomic_when_the_write_is_interrupted(tmp_path, monkeypatch):
    out = tmp_path / "level.json"
    out.write_text("the old level")

    def crash(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", crash)
    with pytest.raises(KeyboardInterrupt):
        save(loads(level()), out)
    assert out.read_text() == "the old level"
    assert os.listdir(tmp_path) == ["level.json"]


def test_save_into_a_missing_folder_is_one_line(tmp_path):
    with pytest.raises(LevelError, match=r"cannot write: no such file or directory"):
        save(loads(level()), tmp_path / "no" / "such" / "level.json")


def test_save_keeps_the_file_mode(tmp_path):
    out = tmp_path / "level.json"
    out.write_text("{}")
    out.chmod(0o640)
    save(loads(level()), out)
    assert out.stat().st_mode & 0o777 == 0o640


# ============================================================================ watching

def _write(path, text, mtime_ns=None):
    path.write_text(text)
    if mtime_ns is not None:
        os.utime(path, ns=(mtime_ns, mtime_ns))


def test_the_watcher_reports_changes_errors_and_fixes(tmp_path):
    path = tmp_path / "live.json"
    t = 1_000_000_000_000_000_000          # ns: a fixed old time, so only real changes count
    _write(path, level(name="One"), t)
    watcher = LevelWatcher(path)
    assert watcher.poll() is None
    assert watcher.poll() is None

    _write(path, level(name="Two"), t + 10 ** 9)       # same size, new content
    doc = watcher.poll()
    assert isinstance(doc, dict) and doc["name"] == "Two"
    assert watcher.poll() is None

    _write(path, level(name="Two")[:-1], t + 2 * 10 ** 9)   # broken
    error = watcher.poll()
    assert isinstance(error, LevelError) and str(error).startswith(f"{path}:1:")
    assert watcher.poll() is None

    _write(path, level(name="Three"), t + 3 * 10 ** 9)
    assert watcher.poll()["name"] == "Three"

    _write(path, level(name="Three"), t + 4 * 10 ** 9)     # touched, same content
    assert watcher.poll() is None

    path.unlink()
    assert isinstance(watcher.poll(), LevelError)
    assert watcher.poll() is None
    _write(path, level(name="Back"), t + 5 * 10 ** 9)
    assert watcher.poll()["name"] == "Back"


def test_the_watcher_sees_a_change_that_keeps_size_and_time(tmp_path):
    """A coarse file-system clock can hide a rewrite; a recently changed file is hashed on every poll."""
    path = tmp_path / "live.json"
    path.write_text(level(name="One"))
    watcher = LevelWatcher(path)
    stat = os.stat(path)
    path.write_text(level(name="Six"))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert watcher.poll()["name"] == "Six"


def test_the_watcher_never_raises(tmp_path):
    watcher = LevelWatcher(tmp_path / "missing.json")
    assert watcher.poll() is None
    (tmp_path / "missing.json").write_bytes(b"\xff\xfe")
    assert isinstance(watcher.poll(), LevelError)
