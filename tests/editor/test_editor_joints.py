"""The editor's joints (issue 24) and moving walls (issue 25): the rod, rope and pin tools,
the property panel's rows, joints following their balls through every edit, and a level
with all of them surviving edit -> save -> load unchanged."""
import json
import math

import pygame
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.editor.document import Document
from game.editor.items import LISTS, held_point, joint_ends
from game.editor.motion import flipper_lift, ghosts, moved, period, pose
from game.editor.panel_parts import MOTIONS
from game.editor.tools import TOOL_KEYS, TOOLS, Editor
from game.level import load, loads
from tests.editor.test_editor import click, drag, frames, game, mouse_click, press_key  # noqa: F401 (game: a fixture)

LEVEL = {
    "$schema": "./level.schema.json", "format": 1, "name": "Joints and moving walls",
    "bounds": [0, 0, 32, 18],
    "segments": [{"a": [0, 0], "b": [32, 0]},
                 {"a": [4, 10], "b": [10, 10], "radius": 0.2,
                  "motion": {"kind": "rotate", "pivot": [7, 10], "speed": 1.5}},
                 {"a": [12, 2], "b": [18, 2], "surface_speed": 3.0},
                 {"a": [24, 3], "b": [27, 2.4], "radius": 0.25,
                  "motion": {"kind": "flipper", "pivot": [24, 3], "angle": 0.8, "speed": 15, "key": "left"}},
                 {"a": [28, 9], "b": [28, 9], "radius": 0.6, "kick": 8}],
    "polylines": [{"points": [[20, 4], [22, 4], [22, 5]], "motion": {"kind": "slide", "to": [0, 4], "period": 6}}],
    "polygons": [{"points": [[14, 12], [18, 12], [18, 13], [15, 13], [15, 16], [14, 16]],
                  "motion": {"kind": "rotate", "pivot": [16, 14], "speed": -0.5}}],
    "balls": [{"pos": [4, 15]}, {"pos": [6, 15]}, {"pos": [9, 15], "radius": 0.5, "angle": 0.3},
              {"pos": [11, 15]}, {"pos": [13, 15]}],
    "joints": [{"kind": "rod", "a": 0, "b": 1},
               {"kind": "rope", "a": 1, "b": [6, 17.5], "length": 3},
               {"kind": "rod", "a": 2, "b": [9.2, 15.1], "length": 0, "offset_a": [0.2, 0.1]},
               {"kind": "rod", "a": 3, "b": 4, "offset_a": [0.1, 0], "offset_b": [-0.1, 0.05],
                "motor": {"speed": -5, "torque": 80}, "break": 300}],
}


def level():
    return loads(json.dumps(LEVEL), "joints.json")


def editor():
    """An editor on LEVEL as its author wrote it (so a non-convex polygon is one)."""
    return Editor(Document(level(), None, json.loads(json.dumps(LEVEL))))


def rows(ed):
    return {r[1] if r[2] is None else (r[1], r[2]): r for r in ed.panel.properties()}


def choose(ed, key, index=None):
    keys = [(r[1], r[2]) for r in ed.panel.properties()]
    ed.panel.prop = keys.index((key, index))


def typed(ed, key, text, index=None):
    choose(ed, key, index)
    return ed.panel.type_prop(text)


def stepped(ed, key, direction=+1, index=None):
    choose(ed, key, index)
    ed.panel.step_prop(direction)


def ends_apart(d, j):
    return math.dist(*joint_ends(j, d["balls"]))


# ---------------------------------------------------------------------------- the tools

def test_the_joint_tools_have_keys_and_toolbar_entries():
    assert {"rod", "rope", "pin"} <= set(TOOLS)
    assert TOOL_KEYS["j"] == "rod" and TOOL_KEYS["o"] == "rope" and TOOL_KEYS["p"] == "pin"
    ed = editor()
    for key, tool in (("j", "rod"), ("o", "rope"), ("p", "pin")):
        assert ed.key(key) and ed.tool == tool


def test_rod_tool_joins_two_balls_by_clicks_or_a_drag_at_their_distance():
    ed = editor()
    d = ed.doc.definition
    n = len(d["joints"])
    ed.key("j")
    click(ed, (4, 15))
    assert ed.joints.start is not None and len(d["joints"]) == n      # waits for the second end
    click(ed, (11, 15))
    j = d["joints"][-1]
    assert (j["kind"], j["a"], j["b"]) == ("rod", 0, 3) and j["length"] == pytest.approx(7.0)
    drag(ed, (6, 15), (13, 15))                                        # a drag does the same
    j = d["joints"][-1]
    assert (j["a"], j["b"]) == (1, 4) and j["length"] == pytest.approx(7.0)
    assert ed.doc.undo() == "add rod" and len(d["joints"]) == n + 1


def test_a_joint_to_empty_space_holds_an_anchor_and_to_its_own_ball_is_refused():
    ed = editor()
    d = ed.doc.definition
    ed.key("j")
    click(ed, (4, 15))
    click(ed, (4, 15))                                                 # its own ball: not a joint
    assert ed.message and "two different balls" in ed.message and ed.joints.start is not None
    click(ed, (2, 17))
    j = d["joints"][-1]
    assert j["b"] == [2.0, 17.0] and j["length"] == pytest.approx(math.hypot(2, 2))


def test_rope_tool_makes_a_rope_as_long_as_its_ends_are_apart():
    ed = editor()
    d = ed.doc.definition
    ed.key("o")
    click(ed, (11, 15))
    click(ed, (11, 17.5))
    j = d["joints"][-1]
    assert j["kind"] == "rope" and j["b"] == [11.0, 17.5] and j["length"] == pytest.approx(2.5)
    click(ed, (11, 15))
    click(ed, (13, 15))
    assert d["joints"][-1]["b"] == 4 and d["joints"][-1]["length"] == pytest.approx(2.0)


def test_pin_tool_makes_a_rod_of_length_zero_held_where_the_ball_is_clicked():
    ed = editor()
    d = ed.doc.definition
    ed.key("p")
    click(ed, (11, 15))                                                # at its centre
    j = d["joints"][-1]
    assert (j["kind"], j["a"], j["b"], j["length"], j["offset_a"]) == ("rod", 3, [11.0, 15.0], 0.0, [0.0, 0.0])
    ed.grid_on = False
    click(ed, (9.3, 14.8))                                             # off the centre of a turned ball: a crank
    j = d["joints"][-1]
    assert j["a"] == 2 and j["length"] == 0.0 and j["offset_a"] != [0.0, 0.0]
    assert held_point(d["balls"][2], j["offset_a"]) == pytest.approx(j["b"])
    assert j["b"] == pytest.approx([9.3, 14.8])
    click(ed, (20, 9))                                                 # not on a ball: nothing
    assert "starts on a ball" in ed.message


def test_shift_holds_the_ball_at_the_point_clicked():
    ed = editor()
    d = ed.doc.definition
    ed.key("j")
    ed.grid_on = False
    click(ed, (4.2, 15), shift=True)
    click(ed, (5.8, 15.1), shift=True)
    j = d["joints"][-1]
    assert j["offset_a"] == pytest.approx([0.2, 0.0]) and j["offset_b"] == pytest.approx([-0.2, 0.1])
    assert j["length"] == pytest.approx(math.hypot(1.6, 0.1))


def test_escape_drops_a_joint_half_made():
    ed = editor()
    ed.key("o")
    click(ed, (4, 15))
    assert ed.busy()
    assert ed.key("escape") and not ed.busy()


# ---------------------------------------------------------------------------- the panel: joints

def test_a_selected_joint_shows_kind_length_offsets_motor_and_break():
    ed = editor()
    ed.doc.selection = [("joints", 3)]
    got = rows(ed)
    assert got["joint:kind"][3] == "rod" and got["joint:length"][3] == pytest.approx(
        ends_apart(ed.doc.definition, ed.doc.definition["joints"][3]))
    assert got[("joint:offset_a", 0)][3] == 0.1 and got[("joint:offset_b", 1)][3] == 0.05
    assert got["joint:motor"][3] == "on" and got["joint:motor.speed"][3] == -5 and got["joint:motor.torque"][3] == 80
    assert got["joint:break"][3] == 300
    ed.doc.selection = [("joints", 1)]
    got = rows(ed)
    assert got[("joint:b", 0)][3] == 6 and got["joint:motor"][3] == "off" and got["joint:break"][3] == "off"
    ed.doc.selection = [("joints", 2)]                                 # a pin: no anchor to type
    assert ("joint:b", 0) not in rows(ed)


def test_every_joint_field_takes_a_typed_value_and_undo_takes_it_back():
    ed = editor()
    d = ed.doc.definition
    before = json.dumps(d)
    ed.doc.selection = [("joints", 1)]
    assert typed(ed, "joint:length", "4.5") and d["joints"][1]["length"] == 4.5
    assert typed(ed, "joint:b", "7", 0) and d["joints"][1]["b"] == [7.0, 17.5]
    assert typed(ed, "joint:offset_a", "0.1", 1) and d["joints"][1]["offset_a"] == [0.0, 0.1]
    assert typed(ed, "joint:kind", "rod") and d["joints"][1]["kind"] == "rod"
    assert typed(ed, "joint:motor", "on") and d["joints"][1]["motor"]["speed"] > 0
    assert typed(ed, "joint:motor.speed", "-12") and d["joints"][1]["motor"]["speed"] == -12
    assert typed(ed, "joint:motor.torque", "40") and d["joints"][1]["motor"]["torque"] == 40
    assert typed(ed, "joint:break", "250") and d["joints"][1]["break"] == 250
    assert not typed(ed, "joint:break", "lots") and "expected a number" in ed.message
    assert typed(ed, "joint:break", "off") and "break" not in d["joints"][1]
    assert typed(ed, "joint:motor", "off") and "motor" not in d["joints"][1]
    while ed.doc.undo():
        pass
    assert json.dumps(d) == before


def test_joint_choices_step_and_a_rope_of_length_zero_is_refused():
    ed = editor()
    d = ed.doc.definition
    ed.doc.selection = [("joints", 0)]
    stepped(ed, "joint:kind")
    assert d["joints"][0]["kind"] == "rope"
    stepped(ed, "joint:motor")
    assert d["joints"][0]["motor"] == {"speed": 6.0, "torque": 50.0}
    stepped(ed, "joint:break")                                         # + from off: a first break force
    assert d["joints"][0]["break"] == 100.0
    stepped(ed, "joint:break")
    assert d["joints"][0]["break"] == pytest.approx(110.0)
    ed.doc.selection = [("joints", 2)]                                 # a pin as a rope: length 0
    stepped(ed, "joint:kind")
    assert d["joints"][2]["kind"] == "rod" and "rope" in ed.message and "length" in ed.message


def test_a_ball_s_panel_selects_its_joints():
    ed = editor()
    ed.doc.selection = [("balls", 1)]
    stepped(ed, "ball:joints")
    assert ed.doc.selection == [("joints", 0), ("joints", 1)]


# ---------------------------------------------------------------------------- joints follow their balls

def test_moving_a_ball_moves_its_rod_and_pin_and_a_rope_keeps_its_length():
    ed = editor()
    d = ed.doc.definition
    ed.doc.move([("balls", 0), ("balls", 2)], (0, -2))
    assert d["joints"][0]["length"] == pytest.approx(ends_apart(d, d["joints"][0]))       # rod from end to end
    assert d["joints"][2]["b"] == pytest.approx(held_point(d["balls"][2], [0.2, 0.1]))   # the pin went along
    ed.doc.move([("balls", 1)], (0, -3))
    assert d["joints"][1]["length"] == 3                                                  # a rope keeps its length
    assert d["joints"][0]["length"] == pytest.approx(ends_apart(d, d["joints"][0]))
    ed.doc.undo(), ed.doc.undo()
    assert json.dumps(d) == json.dumps(level())


def test_a_rod_held_longer_than_its_ends_keeps_its_length_and_typed_pos_is_followed():
    ed = editor()
    d = ed.doc.definition
    ed.doc.selection = [("joints", 0)]
    typed(ed, "joint:length", "2.5")
    ed.doc.move([("balls", 1)], (1, 0))
    assert d["joints"][0]["length"] == 2.5
    ed.doc.selection = [("balls", 3)]
    typed(ed, "pos", "12", 0)                                          # a typed position moves it too
    assert d["joints"][3]["length"] == pytest.approx(ends_apart(d, d["joints"][3]))


def test_turning_and_scaling_balls_with_their_joints_keeps_every_joint_s_meaning():
    ed = editor()
    d = ed.doc.definition
    refs = [("balls", i) for i in range(5)] + [("joints", i) for i in range(4)]
    ed.doc.selection = refs
    ed.turn(30)
    ed.resize(1.1)
    for k, j in enumerate(d["joints"]):
        if j["kind"] == "rod":
            assert j["length"] == pytest.approx(ends_apart(d, j), abs=1e-6), k
    pin = d["joints"][2]
    assert pin["b"] == pytest.approx(held_point(d["balls"][2], pin["offset_a"]))


def test_deleting_a_ball_deletes_its_joints_and_renumbers_the_others():
    ed = editor()
    d = ed.doc.definition
    ed.doc.delete([("balls", 1)])
    assert [(j["kind"], j["a"], j["b"]) for j in d["joints"]] == [("rod", 1, [9.2, 15.1]), ("rod", 2, 3)]
    assert d["balls"][d["joints"][1]["a"]]["pos"] == [11, 15]
    ed.doc.undo()
    assert json.dumps(d) == json.dumps(level())


def test_deleting_a_joint_and_a_ball_at_once_keeps_the_rest():
    ed = editor()
    d = ed.doc.definition
    ed.doc.delete([("joints", 3), ("balls", 0)])
    assert [(j["kind"], j["a"]) for j in d["joints"]] == [("rope", 0), ("rod", 1)]


def test_duplicating_balls_copies_the_joints_between_them():
    ed = editor()
    d = ed.doc.definition
    new = ed.doc.duplicate([("balls", 3), ("balls", 4), ("joints", 3), ("balls", 1), ("joints", 1)], (0, -3))
    assert ("joints", 4) in new and ("joints", 5) in new
    copy3, copy1 = sorted(d["joints"][4:], key=lambda j: j["kind"])
    assert copy1["kind"] == "rope" and copy1["b"] == [6.0, 14.5] and d["balls"][copy1["a"]]["pos"] == [6, 12]
    assert copy3["motor"] == {"speed": -5, "torque": 80} and copy3["a"] != 3


@st.composite
def joint_scene(draw):
    n = draw(st.integers(2, 7))
    balls = [{"pos": [2.0 + 3 * k, 10.0 + draw(st.integers(-3, 3))], "radius": 0.4} for k in range(n)]
    joints = []
    for _ in range(draw(st.integers(1, 8))):
        a = draw(st.integers(0, n - 1))
        b = draw(st.one_of(st.integers(0, n - 1).filter(lambda b: b != a),
                           st.tuples(st.integers(0, 30), st.integers(1, 17)).map(list)))
        kind = draw(st.sampled_from(["rod", "rope"]))
        j = {"kind": kind, "a": a, "b": b}
        if kind == "rope":
            j["length"] = draw(st.integers(1, 40)) / 2
        if draw(st.booleans()):
            j["motor"] = {"speed": draw(st.integers(-9, 9)), "torque": 10}
        if draw(st.booleans()):
            j["break"] = draw(st.integers(1, 900))
        joints.append(j)
    gone = draw(st.lists(st.integers(0, n - 1), max_size=n - 1, unique=True))
    return {"format": 1, "segments": [{"a": [0, 0], "b": [32, 0]}], "balls": balls, "joints": joints}, gone


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(joint_scene())
def test_after_deleting_any_balls_every_joint_holds_the_same_balls_as_before(scene):
    """A law of the renumbering: each kept joint names, by its new indices, the very balls
    (by position) it held before; the joints on a deleted ball are gone; undo gives all back."""
    data, gone = scene
    d = loads(json.dumps(data), "scene.json")
    doc = Document(d)
    before = [(j["kind"], d["balls"][j["a"]]["pos"], d["balls"][j["b"]]["pos"] if isinstance(j["b"], int) else j["b"])
              for j in d["joints"] if j["a"] not in gone and not (isinstance(j["b"], int) and j["b"] in gone)]
    text = json.dumps(d)
    doc.delete([("balls", i) for i in gone])
    after = [(j["kind"], d["balls"][j["a"]]["pos"], d["balls"][j["b"]]["pos"] if isinstance(j["b"], int) else j["b"])
             for j in d["joints"]]
    assert after == before
    loads(json.dumps(d), "after.json")                                 # still a level
    while doc.undo():
        pass
    assert json.dumps(d) == text


# ---------------------------------------------------------------------------- the panel: moving walls

def test_a_wall_s_surface_speed_kick_and_motion_are_set_typed_and_cleared():
    ed = editor()
    d = ed.doc.definition
    before = json.dumps(d)
    ed.doc.selection = [("segments", 0)]
    got = rows(ed)
    assert got["wall:surface_speed"][3] == "off" and got["wall:kick"][3] == "off" and got["wall:motion"][3] == "none"
    assert typed(ed, "wall:surface_speed", "-2.5") and d["segments"][0]["surface_speed"] == -2.5
    assert typed(ed, "wall:kick", "6") and d["segments"][0]["kick"] == 6
    assert not typed(ed, "wall:kick", "nan") and "kick" in ed.message
    for kind in MOTIONS[1:]:
        assert typed(ed, "wall:motion", kind) and d["segments"][0]["motion"]["kind"] == kind
        loads(json.dumps(d), "x.json")                                 # each default is a level the loader takes
    assert typed(ed, "wall:motion.pivot", "3", 0) and d["segments"][0]["motion"]["pivot"][0] == 3
    assert typed(ed, "wall:motion.angle", "-0.7") and d["segments"][0]["motion"]["angle"] == -0.7
    stepped(ed, "wall:motion.key")
    assert d["segments"][0]["motion"]["key"] == "right"
    assert typed(ed, "wall:motion", "slide")
    assert typed(ed, "wall:motion.to", "-3", 0) and d["segments"][0]["motion"]["to"] == [-3.0, 2.0]
    assert typed(ed, "wall:motion.period", "2") and d["segments"][0]["motion"]["period"] == 2
    assert not typed(ed, "wall:motion.period", "0") and "period" in ed.message     # the loader's reason
    assert typed(ed, "wall:motion", "rotate") and typed(ed, "wall:motion.speed", "-3")
    assert d["segments"][0]["motion"] == {"kind": "rotate", "pivot": [16.0, 0.0], "speed": -3.0}
    for key in ("wall:surface_speed", "wall:kick"):
        assert typed(ed, key, "off")
    assert typed(ed, "wall:motion", "none")
    assert json.dumps(d["segments"][0]) == json.dumps(level()["segments"][0])
    while ed.doc.undo():
        pass
    assert json.dumps(d) == before


def test_place_pivot_then_a_click_puts_the_pivot_there():
    ed = editor()
    d = ed.doc.definition
    ed.doc.selection = [("segments", 1)]
    stepped(ed, "wall:place")
    assert ed.busy()
    click(ed, (12, 6))
    assert d["segments"][1]["motion"]["pivot"] == [12.0, 6.0] and not ed.busy()
    assert ed.doc.selection == [("segments", 1)] and d["segments"][1]["a"] == [4, 10]   # nothing else moved


def test_a_non_convex_polygon_gets_one_motion_and_is_still_saved_as_one(tmp_path):
    ed = editor()
    d = ed.doc.definition
    ed.doc.selection = [("polygons", 0)]
    ed.doc.selection = [("polygons", k) for k in range(len(d["polygons"]))]    # its pieces, as a click picks them
    assert len(d["polygons"]) > 1
    typed(ed, "wall:motion.speed", "2")
    assert all(p["motion"]["speed"] == 2 for p in d["polygons"])
    path = str(tmp_path / "x.json")
    assert ed.files.save(path)
    with open(path) as f:
        saved = json.load(f)
    assert len(saved["polygons"]) == 1 and saved["polygons"][0]["motion"]["speed"] == 2


# ---------------------------------------------------------------------------- save and load

def test_every_moving_key_and_joint_survives_edit_save_load(tmp_path):
    path = str(tmp_path / "all.json")
    with open(path, "w") as f:
        json.dump(LEVEL, f)
    from game.level import load_document
    document, definition = load_document(path)
    ed = Editor(Document(definition, path, document))
    ed.doc.move([("balls", 4)], (0.5, 0))                          # an edit of a jointed ball
    ed.doc.selection = [("polylines", 0)]
    typed(ed, "wall:motion.period", "5")
    assert ed.files.save()
    assert load(path) == ed.doc.definition              # values (11 and 11.0 are one number)
    with open(path) as f:
        saved = json.load(f)
    assert saved["joints"][2] == LEVEL["joints"][2] and saved["joints"][1] == LEVEL["joints"][1]
    assert saved["joints"][3]["motor"] == LEVEL["joints"][3]["motor"] and saved["joints"][3]["break"] == 300
    assert saved["segments"] == LEVEL["segments"] and saved["polygons"] == LEVEL["polygons"]


MOTION = st.one_of(
    st.builds(lambda p, s: {"kind": "rotate", "pivot": p, "speed": s},
              st.tuples(st.integers(0, 30), st.integers(0, 17)).map(list), st.integers(-20, 20).map(lambda v: v / 4)),
    st.builds(lambda t, p: {"kind": "slide", "to": t, "period": p},
              st.tuples(st.integers(-8, 8), st.integers(-8, 8)).map(list), st.integers(1, 40).map(lambda v: v / 4)),
    st.builds(lambda p, a, s, k: {"kind": "flipper", "pivot": p, "angle": a, "speed": s, "key": k},
              st.tuples(st.integers(0, 30), st.integers(0, 17)).map(list), st.integers(-12, 12).map(lambda v: v / 8),
              st.integers(1, 40), st.sampled_from(["left", "right"])))


@st.composite
def moving_level(draw):
    data = json.loads(json.dumps(LEVEL))
    for name in ("segments", "polylines"):
        for item in data[name]:
            for key in ("motion", "surface_speed", "kick"):
                item.pop(key, None)
            if draw(st.booleans()):
                item["motion"] = draw(MOTION)
            if draw(st.booleans()):
                item["surface_speed"] = draw(st.integers(-20, 20)) / 4
            if draw(st.booleans()):
                item["kick"] = draw(st.integers(0, 40)) / 4
    return data, draw(st.integers(0, 3)), draw(st.integers(-3, 3))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(moving_level())
def test_any_moving_walls_and_joints_survive_an_edit_save_and_load(tmp_path, scene):
    data, k, dx = scene
    path = str(tmp_path / "m.json")
    with open(path, "w") as f:
        json.dump(data, f)
    from game.level import load_document
    document, definition = load_document(path)
    ed = Editor(Document(definition, path, document))
    ed.doc.move([("balls", k), ("segments", k)], (dx / 2, 0))
    assert ed.files.save()
    assert load(path) == ed.doc.definition              # values (11 and 11.0 are one number)
    with open(path) as f:
        saved = json.load(f)
    for name in ("segments", "polylines"):
        for mine, theirs in zip(saved[name], data[name]):
            for key in ("motion", "surface_speed", "kick"):
                assert (key in mine) == (key in theirs)
                if key in theirs and key != "motion":
                    assert mine[key] == theirs[key]


# ---------------------------------------------------------------------------- the preview's motion

@settings(max_examples=80, deadline=None)
@given(MOTION, st.floats(0, 100))
def test_a_previewed_wall_keeps_its_shape_and_follows_the_format_s_motion(motion, t):
    seg = {"a": [3.0, 4.0], "b": [8.0, 6.0], "radius": 0.1, "motion": motion}
    now = moved("segments", seg, t)
    assert math.dist(now["a"], now["b"]) == pytest.approx(math.dist(seg["a"], seg["b"]), abs=1e-6)
    if motion["kind"] == "slide":
        s = (1 - math.cos(2 * math.pi * t / motion["period"])) / 2
        assert now["a"] == pytest.approx([3 + motion["to"][0] * s, 4 + motion["to"][1] * s], abs=1e-6)
    else:
        pivot = motion["pivot"]
        for end in ("a", "b"):                  # turning about the pivot keeps each point's distance to it
            assert math.dist(now[end], pivot) == pytest.approx(math.dist(seg[end], pivot), abs=1e-6)
    if motion["kind"] == "flipper":
        lift = flipper_lift(motion, t)
        assert 0.0 <= lift <= 1.0 and pose(motion, t)[0] == pytest.approx(motion["angle"] * lift)
        ramp = abs(motion["angle"]) / motion["speed"]
        assert flipper_lift(motion, ramp) == pytest.approx(1.0)            # up after angle / speed
    assert len(ghosts("segments", seg)) == 8 and moved("segments", seg, period(motion) if math.isfinite(
        period(motion)) else 0.0)["a"] == pytest.approx(seg["a"], abs=1e-6)   # a cycle brings it back


def test_a_slide_s_last_ghost_is_its_far_end_and_a_flipper_s_is_up():
    seg = {"a": [0.0, 0.0], "b": [2.0, 0.0], "radius": 0.0,
           "motion": {"kind": "slide", "to": [1.0, 3.0], "period": 2.0}}
    assert ghosts("segments", seg)[-1]["b"] == [3.0, 3.0]
    flip = dict(seg, motion={"kind": "flipper", "pivot": [0.0, 0.0], "angle": math.pi / 2, "speed": 10, "key": "left"})
    assert ghosts("segments", flip)[-1]["b"] == pytest.approx([0.0, 2.0])
    assert ghosts("segments", {"a": [0, 0], "b": [1, 0], "radius": 0}) == []


# ---------------------------------------------------------------------------- the Document's polygons

def test_pieces_whose_points_an_edit_changed_without_an_outline_are_no_longer_one_polygon(tmp_path):
    """Authorship.regroup compares the pieces from before the edit with the new ones: an edit
    that moves every piece without saying where the outline goes ends the grouping (it was
    kept, with the stale outline, when regroup read the pieces after the edit)."""
    ed = editor()
    d = ed.doc.definition
    count = len(d["polygons"])
    assert ed.doc.group_of(("polygons", 0)) is not None
    changes = {("polygons", k): dict(p, points=[[x + 1, y] for x, y in p["points"]])
               for k, p in enumerate(d["polygons"])}
    ed.doc._replace_items(changes, "shift the pieces")
    assert ed.doc.group_of(("polygons", 0)) is None
    path = str(tmp_path / "p.json")
    assert ed.files.save(path)
    with open(path) as f:
        saved = json.load(f)
    assert len(saved["polygons"]) == count                            # written as the pieces they are
    assert load(path) == d
    ed.doc.undo()
    assert ed.doc.group_of(("polygons", 0)) is not None                # undo: the polygon as drawn


def test_a_moved_group_keeps_its_outline_moved():
    ed = editor()
    d = ed.doc.definition
    refs = [("polygons", k) for k in range(len(d["polygons"]))]
    outline = ed.doc.group_of(refs[0])[0]
    ed.doc.move(refs, (1.0, 0.0))
    assert ed.doc.group_of(refs[0])[0] == [[x + 1, y] for x, y in outline]


# ---------------------------------------------------------------------------- through the mode

# ``game``: test_editor's fixture (its level: balls 0 and 1 at (5, 15) and (7, 15)), imported above.


def test_joint_tools_through_events_and_the_editor_draws_joints_and_moving_walls(game):
    press_key(game, pygame.K_TAB)
    mode = game.top
    d = lambda: mode.doc.definition                         # noqa: E731
    n = len(d()["joints"])
    assert len(mode.toolbar_rects()) == len(TOOLS) and mode.toolbar_rects()[-1].right <= game.size[0]
    press_key(game, pygame.K_j)
    assert mode.editor.tool == "rod"
    mouse_click(game, (5, 15))                              # ball 0 of the test level ...
    frames(game, 1)                                         # ... the rod being made is drawn
    mouse_click(game, (7, 15))                              # ... to ball 1
    assert d()["joints"][-1]["a"] == 0 and d()["joints"][-1]["b"] == 1
    press_key(game, pygame.K_o)
    mouse_click(game, (7, 15))
    press_key(game, pygame.K_ESCAPE)                        # drops the rope, stays in the editor
    assert game.top is mode and not mode.editor.busy()
    press_key(game, pygame.K_p)
    mouse_click(game, (7, 15))
    assert d()["joints"][-1]["length"] == 0 and len(d()["joints"]) == n + 2
    mode.doc.selection = [("joints", n)]
    frames(game, 1)                                         # a selected joint and its panel
    mode.doc.selection = [("segments", 1)]
    mode.editor.panel.prop = [r[1] for r in mode.editor.panel.properties()].index("wall:motion")
    press_key(game, pygame.K_EQUALS)
    assert d()["segments"][1]["motion"]["kind"] == "rotate"
    frames(game, 3)                                         # the ghost and the motion playing
    rows = mode.editor.panel.properties()
    rect = mode.panel_rect()
    k = [r[1] for r in rows].index("wall:place")
    game.handle_event(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(rect.x + 20, rect.y + 30 + 24 * k + 5), button=1))
    assert mode.entry is None and mode.editor.busy()       # a click on "place pivot" arms it ...
    mouse_click(game, (12, 6))                              # ... and the next click in the world places it
    assert d()["segments"][1]["motion"]["pivot"] == [12.0, 6.0]
    assert "joints" in LISTS
