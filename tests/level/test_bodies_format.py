"""The level format's "bodies": the schema, the normalised form, joints to bodies, strip and save."""
import json
import math

import pytest

from game import defaults
from game.level import LevelError, load, loads, save, strip
from game.level import complete as complete_level
from game.level import normalise, schema as level_schema
from game.level.normalise import BODY_DEFAULTS, BODY_SHAPE_DEFAULTS, FROM_MATERIAL
from game.level import bodies as level_bodies
from game.paths import LEVELS as LEVEL_DIR

NAME = "levels/x.json"
WALL = {"a": [0, 0], "b": [32, 0]}
MATERIAL = {"restitution": 0.25, "friction": 0.5, "rolling": 0.0, "density": 2.5}

with open(f"{LEVEL_DIR}/level.schema.json", encoding="utf-8") as _f:
    SCHEMA = json.load(_f)


def level(indent=None, **keys):
    """A small valid level as JSON text (with the test material), keys added or replaced."""
    doc = {"material": MATERIAL, "segments": [WALL]}
    doc.update(keys)
    return json.dumps(doc, indent=indent)


def refusal(text, name=NAME):
    with pytest.raises(LevelError) as info:
        loads(text, name)
    message = str(info.value)
    assert "\n" not in message and "internal error" not in message
    return message


def line_col(text, needle, nth=0):
    """1-based line and column of the nth occurrence of ``needle`` in ``text``."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1


SURFACE = {"vel": [0, 0], "spin": 0.0, "density": 2.5, "restitution": 0.25, "friction": 0.5}


# ============================================================================ each shape, with its defaults

def test_a_capsule_normalised_with_defaults():
    doc = loads(level(bodies=[{"shape": "capsule", "a": [1, 2], "b": [4, 2], "radius": 0.2}]))
    assert doc["bodies"] == [{"shape": "capsule", "a": [1, 2], "b": [4, 2], "radius": 0.2, **SURFACE}]


def test_a_box_normalised_with_defaults():
    doc = loads(level(bodies=[{"shape": "box", "center": [5, 3], "size": [2, 1]}]))
    assert doc["bodies"] == [{"shape": "box", "center": [5, 3], "size": [2, 1], "angle": 0.0, "radius": 0.0,
                              **SURFACE}]


def test_a_polygon_normalised_with_defaults():
    points = [[0, 0], [2, 0], [3, 1], [1, 2]]
    doc = loads(level(bodies=[{"shape": "polygon", "points": points}]))
    assert doc["bodies"] == [{"shape": "polygon", "points": points, "radius": 0.0, **SURFACE}]


def test_what_a_body_sets_is_kept():
    body = {"_note": "a crate", "shape": "box", "center": [5, 3], "size": [2, 1], "angle": 0.5, "radius": 0.05,
            "vel": [1, -2], "spin": 3.0, "density": 7.0, "restitution": 0.9, "friction": 0.1,
            "colour": "#a0b0c0", "name": "Crate"}
    out = loads(level(bodies=[body, {**body, "colour": [10, 20, 30]}]))["bodies"]
    assert out[0] == body and out[1] == {**body, "colour": [10, 20, 30]}


def test_mass_instead_of_density():
    out = loads(level(bodies=[{"shape": "box", "center": [5, 3], "size": [2, 1], "mass": 4}]))["bodies"][0]
    assert out["mass"] == 4 and "density" not in out
    assert "density or mass, not both" in refusal(level(bodies=[{"shape": "box", "center": [5, 3], "size": [2, 1],
                                                                  "mass": 4, "density": 1}]))


def test_a_clockwise_polygon_is_reversed_keeping_its_first_corner():
    clockwise = [[0, 0], [1, 2], [3, 1], [2, 0]]
    out = loads(level(bodies=[{"shape": "polygon", "points": clockwise}]))["bodies"][0]
    assert out["points"] == [[0, 0], [2, 0], [3, 1], [1, 2]]


def test_levels_without_bodies_have_no_bodies_key():
    doc = loads(level(balls=[{"pos": [1, 1]}]))
    assert "bodies" not in doc
    assert loads(level(bodies=[]))["bodies"] == []


# ============================================================================ refusals, with line:col

def test_a_concave_polygon_is_refused_naming_its_first_reflex_corner():
    points = [[0, 0], [4, 0], [4, 4], [2, 1], [0, 4]]        # corner 3 points inwards
    message = refusal(level(bodies=[{"shape": "polygon", "points": points}]))
    assert message.endswith("bodies[0].points[3]: expected a convex polygon (a body cannot be cut into pieces), "
                            "got a reflex corner at [2, 1]"), message


def test_the_first_reflex_corner_is_named_in_the_files_order_for_a_clockwise_polygon():
    points = [[0, 4], [2, 1], [4, 4], [4, 0], [0, 0]]        # clockwise: corner 1 points inwards
    message = refusal(level(bodies=[{"shape": "polygon", "points": points}]))
    assert "bodies[0].points[1]: expected a convex polygon" in message and "[2, 1]" in message


def test_the_reflex_corner_message_has_the_line_and_column_of_the_corner():
    text = ('{"segments": [{"a": [0, 0], "b": [32, 0]}],\n'
            ' "bodies": [\n'
            '  {"shape": "polygon",\n'
            '   "points": [[0, 0], [4, 0], [4, 4], [2, 1], [0, 4]]}]}')
    line, col = line_col(text, "[2, 1]")
    assert refusal(text).startswith(f"{NAME}:{line}:{col}: bodies[0].points[3]: expected a convex polygon")


def test_thirteen_points_are_refused():
    points = [[math.cos(2 * math.pi * k / 13), math.sin(2 * math.pi * k / 13)] for k in range(13)]
    message = refusal(level(bodies=[{"shape": "polygon", "points": points}]))
    assert "bodies[0].points: expected a list of 3 to 12 points" in message
    loads(level(bodies=[{"shape": "polygon", "points": points[:12]}]))


def test_repeated_corners_and_crossing_edges_are_refused():
    assert "expected each corner once" in refusal(level(bodies=[{"shape": "polygon",
                                                                 "points": [[0, 0], [1, 0], [1, 0], [0, 1]]}]))
    assert "edges do not cross" in refusal(level(bodies=[{"shape": "polygon",
                                                          "points": [[0, 0], [1, 1], [1, 0], [0, 1]]}]))
    assert "with an area" in refusal(level(bodies=[{"shape": "polygon", "points": [[0, 0], [1, 1], [2, 2]]}]))


def test_a_capsule_with_equal_ends_is_refused():
    text = ('{"segments": [{"a": [0, 0], "b": [32, 0]}],\n'
            ' "bodies": [{"shape": "capsule", "a": [1, 2], "b": [1, 2], "radius": 0.1}]}')
    line, col = line_col(text, "[1, 2]", nth=1)
    message = refusal(text)
    assert message.startswith(f"{NAME}:{line}:{col}: bodies[0].b: expected a capsule whose ends differ"), message


def test_a_capsule_needs_a_radius_above_zero():
    for body in ({"shape": "capsule", "a": [1, 2], "b": [3, 2]},
                 {"shape": "capsule", "a": [1, 2], "b": [3, 2], "radius": 0}):
        assert "bodies[0]: expected a capsule with a, b and radius (above 0)" in refusal(level(bodies=[body]))


def test_a_box_of_size_zero_is_refused():
    message = refusal(level(bodies=[{"shape": "box", "center": [1, 2], "size": [0, 1]}]))
    assert "bodies[0].size: expected [w, h] with each a number above 0" in message


def test_a_shape_key_on_the_wrong_shape_is_refused():
    message = refusal(level(bodies=[{"shape": "capsule", "a": [1, 2], "b": [3, 2], "radius": 0.1, "angle": 1}]))
    assert "bodies[0].angle: expected the keys of a capsule (a, b, radius)" in message


def test_an_unknown_key_in_a_body_gets_did_you_mean():
    message = refusal(level(bodies=[{"shape": "box", "center": [1, 2], "size": [1, 1], "densty": 2}]))
    assert 'bodies[0].densty: expected one of the keys' in message
    assert '(did you mean "density"?)' in message


def test_bad_colours_and_names_are_refused():
    box = {"shape": "box", "center": [1, 2], "size": [1, 1]}
    for colour in ("#12345", "#1234567", "#12345g", "#123456\n", [1, 2], [0, 0, 256], [0, 0, 1.5], "red"):
        assert "colour: expected a colour" in refusal(level(bodies=[{**box, "colour": colour}])), colour
    assert "expected one line of text" in refusal(level(bodies=[{**box, "name": "a\u0007"}]))
    assert "expected visible text" in refusal(level(bodies=[{**box, "name": "\u200b"}]))


def test_a_body_too_small_to_turn_is_refused():
    assert "large and heavy enough to turn" in refusal(level(bodies=[{"shape": "box", "center": [1, 2],
                                                                       "size": [1e-200, 1e-200]}]))


def test_too_many_bodies_are_refused_by_count():
    limit = SCHEMA["properties"]["bodies"]["maxItems"]
    box = {"shape": "box", "center": [1, 2], "size": [1, 1]}
    assert f"bodies: expected a list of at most {limit} items, got {limit + 1} items" in \
        refusal(level(bodies=[box] * (limit + 1)))


# ============================================================================ the snapshot's _frame

FRAME = {"pos": [1.5, 2.25], "angle": 0.125, "points": [[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]]}


def test_a_frame_is_kept_as_written():
    body = {"shape": "box", "center": [1.5, 2.25], "size": [1, 1], "_frame": FRAME}
    assert loads(level(bodies=[body]))["bodies"][0]["_frame"] == FRAME


@pytest.mark.parametrize("frame, where", [
    ([1, 2], "_frame: expected a body's frame"),
    ({"pos": [1, 2], "angle": 0}, 'with a key "points"'),
    ({**FRAME, "spin": 1}, '_frame.spin: expected the keys pos, angle and points'),
    ({**FRAME, "pos": [1]}, "_frame.pos: expected [x, y]"),
    ({**FRAME, "angle": True}, "_frame.angle: expected a finite number"),
    ({**FRAME, "points": []}, "_frame.points: expected a list of 1 to 12 points"),
    ({**FRAME, "points": [[0, 0]] * 13}, "_frame.points: expected a list of 1 to 12 points"),
    ({**FRAME, "points": [[0, "a"]]}, "_frame.points[0]: expected [x, y]"),
])
def test_a_bad_frame_is_refused_in_one_line(frame, where):
    body = {"shape": "box", "center": [1, 2], "size": [1, 1], "_frame": frame}
    assert where in refusal(level(bodies=[body]))


# ============================================================================ joints to bodies

def test_a_joint_to_a_body_out_of_range_is_refused():
    bodies = [{"shape": "box", "center": [1, 2], "size": [1, 1]}]
    text = ('{"segments": [{"a": [0, 0], "b": [32, 0]}],\n'
            ' "bodies": [{"shape": "box", "center": [1, 2], "size": [1, 1]}],\n'
            ' "joints": [{"kind": "rod", "a": {"body": 5}, "b": [0, 0]}]}')
    line, col = line_col(text, "5}")
    assert refusal(text) == f"{NAME}:{line}:{col}: joints[0].a.body: expected a body index from 0 to 0, got 5"
    assert "joints[0].b.body: expected a body index from 0 to 0, got 1" in \
        refusal(level(bodies=bodies, balls=[{"pos": [3, 3]}], joints=[{"kind": "rod", "a": 0, "b": {"body": 1}}]))
    assert "(but the level has no bodies)" in refusal(level(joints=[{"kind": "rope", "a": {"body": 0},
                                                                     "b": [0, 0], "length": 1}]))


def test_a_joint_from_a_body_to_itself_is_refused():
    bodies = [{"shape": "box", "center": [1, 2], "size": [1, 1]}]
    assert "joints[0].b.body: expected a body other than a's (0)" in \
        refusal(level(bodies=bodies, joints=[{"kind": "rod", "a": {"body": 0}, "b": {"body": 0}}]))


def test_a_ball_and_a_body_of_the_same_index_may_be_joined():
    doc = loads(level(bodies=[{"shape": "box", "center": [1, 2], "size": [1, 1]}], balls=[{"pos": [4, 6]}],
                      joints=[{"kind": "rod", "a": 0, "b": {"body": 0}}]))
    assert doc["joints"][0]["a"] == 0 and doc["joints"][0]["b"] == {"body": 0}
    assert doc["joints"][0]["length"] == 5.0


def test_a_rods_default_length_reaches_a_bodys_centre_of_mass():
    # A triangle: its centre of mass (the mean of its corners) is none of its corners.
    points = [[0, 0], [3, 0], [0, 3]]                         # centre of mass (1, 1)
    capsule = {"shape": "capsule", "a": [10, 1], "b": [14, 1], "radius": 0.5}     # (12, 1)
    doc = loads(level(bodies=[{"shape": "polygon", "points": points}, capsule],
                      joints=[{"kind": "rod", "a": {"body": 0}, "b": [1, 5]},
                              {"kind": "rod", "a": {"body": 0}, "b": {"body": 1}},
                              {"kind": "rod", "a": {"body": 1}, "b": [12, 1]}]))
    rods = doc["joints"]
    assert rods[0]["a"] == {"body": 0} and rods[0]["b"] == [1, 5]
    assert rods[0]["length"] == pytest.approx(4.0, abs=1e-12)
    assert rods[1]["b"] == {"body": 1} and rods[1]["length"] == pytest.approx(11.0, abs=1e-12)
    assert rods[2]["length"] == pytest.approx(0.0, abs=1e-12)        # a pin at its middle: a see-saw


def test_a_rods_offset_on_a_box_turns_with_its_angle():
    box = {"shape": "box", "center": [5, 5], "size": [4, 1], "angle": math.pi / 2}
    doc = loads(level(bodies=[box], joints=[{"kind": "rod", "a": {"body": 0}, "b": [5, 0],
                                             "offset_a": [2, 0]}]))
    # the box's end [2, 0] in its frame is at (5, 7) in the world: 7 m from the anchor
    assert doc["joints"][0]["length"] == pytest.approx(7.0, abs=1e-12)
    assert doc["joints"][0]["offset_a"] == [2, 0]


def test_a_rope_to_a_body_keeps_its_length_and_checks_tolerate_bodies():
    from game import checks
    text = level(bodies=[{"shape": "box", "center": [5, 5], "size": [1, 1]}],
                 joints=[{"kind": "rope", "a": {"body": 0}, "b": [5, 8], "length": 1}])
    doc = loads(text)
    assert doc["joints"][0]["length"] == 1
    findings = checks._short_ropes(doc)
    assert len(findings) == 1 and "joints[0] is a rope 1 m long between ends 3 m apart" in findings[0].reason


def test_the_level_checks_run_on_a_level_with_bodies():
    from game import checks
    checks.check_all(complete_level(FULL), seconds=5)


# ============================================================================ goal zones

def test_count_bodies_is_kept_only_where_true():
    doc = loads(level(zones=[{"kind": "goal", "rect": [[0, 0], [1, 1]], "count_bodies": True},
                             {"kind": "goal", "rect": [[0, 0], [1, 1]], "count_bodies": False},
                             {"kind": "goal", "rect": [[0, 0], [1, 1]]}]))
    assert [z.get("count_bodies") for z in doc["zones"]] == [True, None, None]
    assert "count_bodies: expected true or false" in refusal(level(zones=[{"kind": "goal", "rect": [[0, 0], [1, 1]],
                                                                           "count_bodies": 1}]))


# ============================================================================ strip and save

FULL = {"material": MATERIAL, "segments": [WALL], "balls": [{"pos": [2, 2]}],
        "bodies": [{"shape": "capsule", "a": [1, 2], "b": [4, 2], "radius": 0.2, "_note": "plank"},
                   {"shape": "box", "center": [5, 3], "size": [2, 1], "angle": 0.25, "mass": 3, "vel": [1, 0],
                    "spin": -1.5, "colour": [1, 2, 3], "name": "Crate", "_frame": FRAME},
                   {"shape": "box", "center": [8, 3], "size": [1, 1], "radius": 0.1, "restitution": 0.25},
                   {"shape": "polygon", "points": [[0, 10], [0, 8], [2, 8]], "friction": 0.9, "colour": "#ffeedd"}],
        "joints": [{"kind": "rod", "a": {"body": 0}, "b": [2.5, 6]},
                   {"kind": "rope", "a": 0, "b": {"body": 3, "_why": "a tether"}, "length": 9,
                    "offset_b": [0.1, 0.2]}],
        "zones": [{"kind": "goal", "rect": [[20, 0], [24, 4]], "count_bodies": True}]}


def test_strip_leaves_out_the_bodies_defaults_and_round_trips():
    doc = complete_level(FULL)
    stripped = strip(doc)
    assert complete_level(strip(complete_level(stripped))) == doc
    assert complete_level(json.loads(json.dumps(stripped))) == doc
    capsule, box, rounded, polygon = stripped["bodies"]
    assert capsule == {"_note": "plank", "shape": "capsule", "a": [1, 2], "b": [4, 2], "radius": 0.2}
    assert "restitution" not in rounded and rounded["radius"] == 0.1 and "angle" not in rounded
    assert polygon["points"] == [[0, 10], [0, 8], [2, 8]]          # counter-clockwise already: as written
    assert box["_frame"] == FRAME and box["mass"] == 3 and "density" not in box
    assert stripped["joints"][1]["b"] == {"body": 3, "_why": "a tether"}
    assert stripped["zones"][0]["count_bodies"] is True


def test_save_round_trips_a_level_with_bodies(tmp_path):
    doc = complete_level(FULL)
    path = tmp_path / "bodies.json"
    save(doc, str(path))
    assert load(str(path)) == doc
    save(load(str(path)), str(path))
    assert load(str(path)) == doc


def test_strip_of_a_level_without_bodies_adds_no_bodies_key():
    doc = loads(level(balls=[{"pos": [1, 1]}]))
    assert "bodies" not in strip(doc)


# ============================================================================ the tables and the schema agree

def test_the_schema_states_the_bodies_defaults():
    props = SCHEMA["properties"]["bodies"]["items"]["properties"]

    def default(key):
        node = props[key]
        while "default" not in node and "$ref" in node:
            node = level_schema.resolve(SCHEMA, node["$ref"])
        return node["default"]
    for key, value in BODY_DEFAULTS.items():
        assert default(key) == (defaults.MATERIAL[key] if value is FROM_MATERIAL else value), key
    for table in BODY_SHAPE_DEFAULTS.values():
        for key, value in table.items():
            assert default(key) == value, key
    assert SCHEMA["properties"]["bodies"]["items"]["properties"]["points"]["maxItems"] == level_bodies.MAX_BODY_CORNERS


def test_the_fast_check_agrees_with_jsonschema_on_bodies():
    validator = level_schema.validator()
    fast = level_schema.compile_schema(validator.schema)
    box = {"shape": "box", "center": [1, 2], "size": [1, 1]}
    docs = [{"segments": [WALL], "bodies": [body]} for body in (
        box, {**box, "colour": "#abcdef"}, {**box, "colour": "#abcdef\n"}, {**box, "colour": "abcdef"},
        {**box, "colour": [1, 2, 3]}, {**box, "colour": [1, 2, 3.5]}, {**box, "colour": "#abcdeg"},
        {**box, "shape": "capsule"}, {"shape": "capsule", "a": [0, 0], "b": [1, 0], "radius": 0},
        {"shape": "capsule", "a": [0, 0], "b": [1, 0], "radius": 0.5}, {"shape": "polygon", "points": [[0, 0]]},
        {**box, "_frame": 3}, {**box, "name": ""}, {**box, "densty": 1})]
    docs.append({"segments": [WALL], "joints": [{"kind": "rod", "a": {"body": 0}, "b": {"body": 1, "_c": 1}}]})
    docs.append({"segments": [WALL], "joints": [{"kind": "rod", "a": {"body": -1}, "b": [0, 0]}]})
    docs.append({"segments": [WALL], "joints": [{"kind": "rod", "a": {"bodies": 0}, "b": [0, 0]}]})
    verdicts = [fast(d) for d in docs]
    assert verdicts == [validator.is_valid(d) for d in docs]
    assert verdicts[:4] == [True, True, False, False]


def test_rods_without_a_length_reach_a_bounded_number_of_bodies():
    n = level_bodies.MAX_BODY_FRAMES + 1
    bodies = [{"shape": "box", "center": [1, 2], "size": [1, 1]}] * n
    rods = [{"kind": "rod", "a": {"body": i}, "b": [0, 0]} for i in range(n)]
    assert f"joints: expected rods reaching at most {n - 1} bodies without a length" in \
        refusal(level(bodies=bodies, joints=rods))
    loads(level(bodies=bodies, joints=[{**r, "length": 1} for r in rods]))
    loads(level(bodies=bodies, joints=rods[:-1] + [{"kind": "rod", "a": {"body": 0}, "b": [1, 1]}]))
