"""The level editor: the undoable document, the tools, snapping, properties, saving and
foreign changes on disk (pure logic over world coordinates; the mode is tested further down)."""
from game.paths import ROOT as ROOT_DIR  # noqa: E402
import copy
import json
import math
import os
import shutil

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.checks import check
from game.editor.document import Document, EditRefused
from game.editor.files import template_definition
from game.editor.items import LISTS
from game.editor.tools import PEG_RADIUS, Editor
from game.level import load, loads, save

from game.paths import LEVELS as LEVEL_DIR, ROOT
TOL = 0.1            # m: the pick distance the tests use (a few pixels at a usual zoom)

COMMENTED = {
    "$schema": "./level.schema.json",
    "format": 1,
    "name": "Commented",
    "_note": "kept",
    "// why": "the comment keys must survive an edit and a save",
    "material": {"_m": 1, "restitution": 0.5, "friction": 0.2, "density": 2.0},
    "segments": [{"// floor": "x", "a": [0, 0], "b": [32, 0]}, {"a": [4, 8], "b": [12, 6], "radius": 0.3}],
    "polylines": [{"points": [[0, 18], [0, 0], [32, 0], [32, 18]]}],
    "polygons": [{"points": [[14, 3], [18, 3], [16, 6]]}],
    "balls": [{"_b": "first", "pos": [5, 15], "vel": [2, 0], "radius": 0.3}, {"pos": [7, 15], "mass": 2}],
    "springs": [{"a": 0, "b": 1, "stiffness": 40}, {"a": 1, "b": [8, 17]}],
    "spawners": [{"pos": [16, 17], "every": 0.25, "max": 200, "radius": 0.25}],
    "zones": [{"kind": "goal", "rect": [[14, 0], [18, 2]], "count": 5},
              {"kind": "attractor", "circle": {"center": [25, 10], "radius": 2}}],
}


def commented():
    return loads(json.dumps(COMMENTED), "commented.json")


def text(definition):
    """Deep equality and key order at once: JSON text keeps the order of every object."""
    return json.dumps(definition)


def editor(definition=None, path=None):
    return Editor(Document(definition if definition is not None else commented(), path))


def click(ed, p, shift=False):
    ed.press(p, TOL, shift=shift)
    ed.release(p, TOL, shift=shift)


def drag(ed, a, b, shift=False):
    ed.press(a, TOL, shift=shift)
    mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
    ed.motion(mid, TOL)
    ed.motion(b, TOL)
    ed.release(b, TOL, shift=shift)


# ---------------------------------------------------------------------------- undo, any edits

POINT = st.tuples(st.integers(-20, 60), st.integers(-20, 40)).map(lambda t: [t[0] / 2, t[1] / 2])


@st.composite
def edit_step(draw):
    kind = draw(st.sampled_from(["ball", "segment", "peg", "polyline", "polygon", "spawner", "zone",
                                 "spring", "joint", "delete", "move", "handle", "property", "duplicate",
                                 "shape", "new", "top"]))
    return kind, draw(POINT), draw(POINT), draw(st.integers(0, 1000)), draw(st.floats(0, 3))


def apply_step(doc, step):
    kind, p, q, k, x = step
    d = doc.definition

    def some(name):
        n = len(d.get(name, []))
        return (name, k % n) if n else None

    try:
        if kind == "ball":
            doc.add("balls", {"pos": p, "radius": 0.1 + x / 10})
        elif kind == "segment":
            doc.add("segments", {"a": p, "b": q})
        elif kind == "peg":
            doc.add("segments", {"a": p, "b": p, "radius": 0.2})
        elif kind == "polyline":
            doc.add("polylines", {"points": [p, q, [q[0] + 1, q[1] + 3]]})
        elif kind == "polygon":     # sometimes non-convex (split), sometimes crossing (refused)
            doc.add("polygons", {"points": [p, [p[0] + 4, p[1]], [p[0] + 4, p[1] + 4], [p[0] + 2, p[1] + x],
                                            [p[0], p[1] + 4]]})
        elif kind == "spawner":
            doc.add("spawners", {"pos": p})
        elif kind == "zone":
            doc.add("zones", {"kind": ["goal", "kill", "attractor"][k % 3], "rect": [p, q]})
        elif kind == "spring" and d["balls"]:
            a = k % len(d["balls"])
            doc.add("springs", {"a": a, "b": q if k % 2 or len(d["balls"]) < 2 else (a + 1) % len(d["balls"])})
        elif kind == "joint" and d["balls"]:      # a rod, rope or pin; to a ball or an anchor
            a = k % len(d["balls"])
            b = q if k % 2 or len(d["balls"]) < 2 else (a + 1) % len(d["balls"])
            joint = [{"kind": "rod", "a": a, "b": b}, {"kind": "rope", "a": a, "b": b, "length": 1 + x},
                     {"kind": "rod", "a": a, "b": d["balls"][a]["pos"], "length": 0.0,
                      "motor": {"speed": x, "torque": 5.0}, "break": 10 + x}][k % 3]
            doc.add("joints", joint)
        elif kind == "delete":
            refs = [r for r in (some(n) for n in LISTS[k % len(LISTS):k % len(LISTS) + 2]) if r]
            doc.delete(refs)
        elif kind == "move":
            refs = [r for r in (some(n) for n in LISTS) if r][: 1 + k % 5]
            doc.move(refs, (q[0] - p[0], q[1] - p[1]))
        elif kind == "handle":
            ref = some(["segments", "polylines", "polygons"][k % 3])
            if ref:
                h = ["a", "b"][k % 2] if ref[0] == "segments" else k % len(doc.item(ref)["points"])
                doc.move_handle(ref, h, q)
        elif kind == "property":
            ref = some(["balls", "segments", "spawners", "zones", "springs"][k % 5])
            key = {"balls": "radius", "segments": "friction", "spawners": "every", "zones": "kind",
                   "springs": "stiffness"}[ref[0]] if ref else None
            if ref:
                value = ["goal", "kill", "attractor"][k % 3] if key == "kind" else round(x, 2)
                doc.set_property([ref], key, value)
        elif kind == "duplicate":
            doc.duplicate([r for r in (some(n) for n in LISTS) if r][k % 3:], (0.5, -0.5))
        elif kind == "shape":
            ref = some("zones")
            if ref:
                doc.set_zone_shape(ref, ["rect", "circle", "ellipse", "polygon"][k % 4])
        elif kind == "new":
            doc.replace_definition(template_definition())
        elif kind == "top":
            doc.set_top("gravity", [0.0, -x])
    except EditRefused:
        pass


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(edit_step(), min_size=1, max_size=25))
def test_any_edits_then_undo_all_give_back_the_definition_exactly(steps):
    doc = Document(commented())
    before = text(doc.definition)
    for step in steps:
        apply_step(doc, step)
        loads(json.dumps(doc.definition))       # every state is a level the loader accepts
    edited = text(doc.definition)
    for finding in check(doc.definition):       # the checks take any level the editor makes
        assert all(math.isfinite(v) for v in finding.point) and "\n" not in finding.reason
    while doc.undo():
        pass
    assert text(doc.definition) == before
    assert not doc.dirty
    while doc.redo():
        pass
    assert text(doc.definition) == edited


def test_undo_restores_deleted_ball_with_its_springs_and_their_numbers():
    doc = Document(commented())
    before = text(doc.definition)
    doc.delete([("balls", 0)])
    assert len(doc.definition["balls"]) == 1
    # the spring 0-1 went with ball 0; the spring on ball 1 now names it 0
    assert [s["a"] for s in doc.definition["springs"]] == [0]
    doc.undo()
    assert text(doc.definition) == before


def test_edits_never_change_a_value_in_place():
    """Copy on write: an object taken from the definition before an edit is unchanged after."""
    doc = Document(commented())
    old_balls = doc.definition["balls"]
    snapshot = copy.deepcopy(old_balls)
    doc.move([("balls", 0)], (1, 1))
    doc.set_property([("balls", 1)], "radius", 0.5)
    assert old_balls == snapshot


def test_a_drag_is_one_undo_step():
    ed = editor()
    before = text(ed.doc.definition)
    ed.press((5, 15), TOL)
    for x in range(6, 12):
        ed.motion((x, 15), TOL)
    ed.release((11, 15), TOL)
    assert ed.doc.item(("balls", 0))["pos"] == [11.0, 15.0]
    ed.key("z", ctrl=True)
    assert text(ed.doc.definition) == before


def test_deleting_the_last_wall_is_refused():
    ed = editor(template_definition())
    ed.key("a", ctrl=True)
    ed.key("delete")
    assert "wall" in ed.message and len(ed.doc.definition["polylines"]) == 1 and not ed.doc.can_undo


def test_ctrl_z_ctrl_y_and_ctrl_shift_z():
    ed = editor()
    before = text(ed.doc.definition)
    ed.set_tool("ball")
    click(ed, (3, 3))
    after = text(ed.doc.definition)
    assert ed.key("z", ctrl=True) and text(ed.doc.definition) == before
    assert ed.key("y", ctrl=True) and text(ed.doc.definition) == after
    ed.key("z", ctrl=True)
    assert ed.key("z", ctrl=True, shift=True) and text(ed.doc.definition) == after


# ---------------------------------------------------------------------------- tools

def test_segment_tool_drag_makes_a_segment_and_a_click_a_round_peg():
    ed = editor()
    ed.set_tool("segment")
    drag(ed, (2.1, 3.9), (6.2, 5.1))
    seg = ed.doc.definition["segments"][-1]
    assert (seg["a"], seg["b"], seg["radius"]) == ([2.0, 4.0], [6.0, 5.0], 0.0)   # snapped to the 0.5 m grid
    click(ed, (9, 9))
    peg = ed.doc.definition["segments"][-1]
    assert peg["a"] == peg["b"] == [9.0, 9.0] and peg["radius"] == PEG_RADIUS


def test_polyline_tool_enter_ends_c_closes_double_click_ends():
    ed = editor()
    ed.set_tool("polyline")
    for p in [(1, 1), (2, 2), (3, 1)]:
        click(ed, p)
    ed.key("return")
    line = ed.doc.definition["polylines"][-1]
    assert line["points"] == [[1, 1], [2, 2], [3, 1]] and line["closed"] is False
    for p in [(1, 5), (2, 6), (3, 5)]:
        click(ed, p)
    ed.key("c")
    assert ed.doc.definition["polylines"][-1]["closed"] is True
    click(ed, (5, 5))
    click(ed, (6, 6))
    click(ed, (6, 6))                    # the double click's second press
    ed.double_click((6, 6), TOL)
    assert ed.doc.definition["polylines"][-1]["points"] == [[5, 5], [6, 6]]


def test_polygon_tool_splits_a_non_convex_one_as_the_loader_does_and_refuses_a_crossing_one():
    ed = editor()
    n = len(ed.doc.definition["polygons"])
    ed.set_tool("polygon")
    corners = [(20, 10), (24, 10), (24, 14), (22, 11), (20, 14)]     # an M shape: not convex
    for p in corners:
        click(ed, p)
    ed.key("return")
    pieces = ed.doc.definition["polygons"][n:]
    by_loader = loads(json.dumps({"segments": [{"a": [0, 0], "b": [1, 0]}],
                                  "material": ed.doc.definition["material"],
                                  "polygons": [{"points": [list(p) for p in corners]}]}))["polygons"]
    assert pieces == by_loader and len(pieces) > 1
    for p in [(1, 10), (3, 12), (3, 10), (1, 12)]:                    # a bow tie
        click(ed, p)
    ed.key("return")
    assert "cross" in ed.message and len(ed.doc.definition["polygons"]) == n + len(pieces)
    assert len(ed.pending) == 4          # the corners stay to be fixed


M_SHAPE = [(20, 10), (24, 10), (24, 14), (22, 11), (20, 14)]          # not convex: cut in two


def _draw_polygon(ed, corners):
    ed.set_tool("polygon")
    for p in corners:
        click(ed, p)
    ed.key("return")
    ed.set_tool("select")


def _saved_polygons(ed, tmp_path, name="p.json"):
    path = str(tmp_path / name)
    assert ed.files.save(path), ed.message
    with open(path) as f:
        return json.load(f)["polygons"], path


def test_a_non_convex_polygon_is_saved_as_drawn_and_loads_back_as_its_pieces(tmp_path):
    """Issue 27, bug 3: it was saved as two entries. One entry, the corners as clicked; the
    loader cuts it into the same pieces the editor holds."""
    ed = editor()
    n = len(ed.doc.definition["polygons"])
    _draw_polygon(ed, M_SHAPE)
    pieces = len(ed.doc.definition["polygons"]) - n
    assert pieces > 1
    written, path = _saved_polygons(ed, tmp_path)
    assert len(written) == n + 1 and written[-1] == {"points": [list(p) for p in M_SHAPE]}
    assert text(load(path)) == text(ed.doc.definition)


def test_a_moved_non_convex_polygon_is_still_saved_as_one(tmp_path):
    """Clicking one piece selects the whole polygon; moved (drag, nudge) it stays one entry,
    with its outline moved; a property set on it too."""
    ed = editor()
    n = len(ed.doc.definition["polygons"])
    _draw_polygon(ed, M_SHAPE)
    ed.doc.selection = []
    pieces = len(ed.doc.definition["polygons"]) - n
    drag(ed, (23.5, 10.5), (25.5, 11.5))                   # grab it by one piece
    assert len(ed.doc.selection) == pieces > 1
    ed.key("left")
    written, path = _saved_polygons(ed, tmp_path)
    assert len(written) == n + 1
    moved = [[x + 2 - 0.05, y + 1] for x, y in M_SHAPE]
    assert np.allclose(written[-1]["points"], moved)
    assert text(load(path)) == text(ed.doc.definition)
    ed.doc.set_property(ed.doc.selection, "friction", 0.9)
    written, path = _saved_polygons(ed, tmp_path, "q.json")
    assert len(written) == n + 1 and written[-1]["friction"] == 0.9
    assert text(load(path)) == text(ed.doc.definition)


def test_a_shipped_non_convex_polygon_moved_keeps_its_comment_and_stays_one(tmp_path):
    src = os.path.join(ROOT_DIR, "levels", "04_polygons.json")
    with open(src) as f:
        authored = json.load(f)
    concave = [k for k, p in enumerate(authored["polygons"])
               if len(loads(json.dumps({"segments": [{"a": [0, 0], "b": [1, 0]}], "polygons": [p]}))["polygons"]) > 1]
    if not concave:
        pytest.skip("no non-convex polygon in the shipped level")
    from game.level import load_document
    document, definition = load_document(src)
    ed = Editor(Document(definition, path=None, document=document))
    group = [r for r in range(len(definition["polygons"])) if ed.doc.group_of(("polygons", r))]
    ed.doc.selection = [("polygons", r) for r in group[:ed.doc.group_of(("polygons", group[0]))[2]]]
    ed.key("up")
    written, path = _saved_polygons(ed, tmp_path)
    assert len(written) == len(authored["polygons"])
    assert text(load(path)) == text(ed.doc.definition)


def test_undoing_the_move_gives_the_polygon_back_as_drawn(tmp_path):
    ed = editor()
    _draw_polygon(ed, M_SHAPE)
    drag(ed, (23.5, 10.5), (25.5, 11.5))
    ed.key("z", ctrl=True)
    written, _ = _saved_polygons(ed, tmp_path)
    assert written[-1] == {"points": [list(p) for p in M_SHAPE]}


def test_ball_spawner_and_zone_tools():
    ed = editor()
    ed.set_tool("ball")
    click(ed, (3.2, 4.1))
    assert ed.doc.definition["balls"][-1]["pos"] == [3.0, 4.0]
    ed.set_tool("spawner")
    click(ed, (10, 16))
    assert ed.doc.definition["spawners"][-1]["pos"] == [10.0, 16.0]
    ed.set_tool("zone")
    ed.key("k")                          # goal -> kill
    drag(ed, (5, 5), (3, 2))
    z = ed.doc.definition["zones"][-1]
    assert z["kind"] == "kill" and z["rect"] == [[3.0, 2.0], [5.0, 5.0]]


def test_spring_tool_joins_two_balls_or_a_ball_and_a_point():
    ed = editor()
    ed.set_tool("spring")
    drag(ed, (5, 15), (7, 15))
    s = ed.doc.definition["springs"][-1]
    assert (s["a"], s["b"]) == (0, 1) and s["rest"] == pytest.approx(2.0)
    drag(ed, (7, 15), (7, 10))
    s = ed.doc.definition["springs"][-1]
    assert (s["a"], s["b"]) == (1, [7.0, 10.0])
    n = len(ed.doc.definition["springs"])
    drag(ed, (1, 10), (7, 15))           # not from a ball: nothing, and a reason
    assert len(ed.doc.definition["springs"]) == n and "ball" in ed.message


def test_select_click_shift_click_box_and_move():
    ed = editor()
    click(ed, (5, 15))
    assert ed.doc.selection == [("balls", 0)]
    click(ed, (7, 15), shift=True)
    assert ed.doc.selection == [("balls", 0), ("balls", 1)]
    click(ed, (7, 15), shift=True)
    assert ed.doc.selection == [("balls", 0)]
    drag(ed, (13.5, 2.5), (18.5, 6.5))   # the box holds the triangle only
    assert ed.doc.selection == [("polygons", 0)]
    drag(ed, (16, 4), (17, 5))
    assert ed.doc.definition["polygons"][0]["points"] == [[15, 4], [19, 4], [17, 7]]
    click(ed, (30, 12))                  # empty space: nothing selected
    assert ed.doc.selection == []


def test_handles_move_segment_ends_and_polygon_corners_and_refuse_a_fold():
    ed = editor()
    click(ed, (8, 7))                    # on the stadium from (4, 8) to (12, 6)
    assert ed.doc.selection == [("segments", 1)]
    drag(ed, (12, 6), (13, 5))
    assert ed.doc.definition["segments"][1]["b"] == [13.0, 5.0]
    assert ed.doc.definition["segments"][1]["a"] == [4, 8]
    click(ed, (16, 4))
    drag(ed, (16, 6), (16, 8))
    assert ed.doc.definition["polygons"][0]["points"] == [[14, 3], [18, 3], [16.0, 8.0]]
    ed.set_tool("polygon")
    for p in [(20, 10), (24, 10), (24, 14), (20, 14)]:
        click(ed, p)
    ed.key("return")
    square = ed.doc.selection[0]
    ed.set_tool("select")
    drag(ed, (24, 14), (18, 12))         # the corner across the far edge: a bow tie
    points = ed.doc.item(square)["points"]
    assert [18.0, 12.0] not in points and ed.message
    assert loads(json.dumps({"segments": [{"a": [0, 0], "b": [1, 0]}],
                             "polygons": [{"points": points}]}))["polygons"][0]["points"] == points


def test_delete_duplicate_and_nudge():
    ed = editor()
    click(ed, (16, 17))
    ed.key("d", ctrl=True)
    assert len(ed.doc.definition["spawners"]) == 2
    assert ed.doc.definition["spawners"][1]["pos"] == [16.5, 16.5]
    ed.key("right")
    assert ed.doc.definition["spawners"][1]["pos"] == [pytest.approx(16.55), 16.5]
    ed.key("delete")
    assert len(ed.doc.definition["spawners"]) == 1
    click(ed, (16, 17))
    ed.key("backspace")
    assert ed.doc.definition["spawners"] == []


# ---------------------------------------------------------------------------- snapping

def test_snaps_to_an_existing_end_and_says_so_else_to_the_grid():
    ed = editor()
    q = ed.snap((12.05, 6.03), TOL)
    assert q == [12, 6] and ed.snapped[1] == "end of segments[1]"
    q = ed.snap((1.3, 1.1), TOL)
    assert q == [1.5, 1.0] and ed.snapped[1] == "grid 0.5 m"
    ed.grid_step(-1)                     # 0.5 -> 0.25 m
    assert ed.snap((1.3, 1.1), TOL) == [1.25, 1.0]
    ed.key("g")                          # grid off
    assert ed.snap((1.3, 1.1), TOL) == [1.3, 1.1] and ed.snapped is None


# ---------------------------------------------------------------------------- properties

def test_properties_step_and_type_and_refuse_bad_values():
    ed = editor()
    click(ed, (5, 15))
    rows = ed.panel.properties()
    labels = [r[0] for r in rows]
    assert "radius" in labels and "vel x" in labels and "restitution" in labels
    ed.panel.prop = labels.index("radius")
    ed.panel.step_prop(+1)
    assert ed.doc.item(("balls", 0))["radius"] == pytest.approx(0.3 * 1.1)       # 10 % a press
    assert ed.panel.type_prop("0.5") and ed.doc.item(("balls", 0))["radius"] == 0.5
    assert not ed.panel.type_prop("big") and "expected a number" in ed.message
    assert not ed.panel.type_prop("0") and ed.doc.item(("balls", 0))["radius"] == 0.5   # a ball needs a radius
    ed.panel.prop = labels.index("vel y")
    ed.panel.type_prop("-3")
    assert ed.doc.item(("balls", 0))["vel"] == [2, -3.0]
    ed.panel.prop = labels.index("use mass")
    ed.panel.step_prop(+1)
    ball = ed.doc.item(("balls", 0))
    assert "density" not in ball and ball["mass"] == pytest.approx(2.0 * math.pi * 0.25)
    assert list(ball).index("mass") == list(commented()["balls"][0]).index("density")


def test_zone_kind_and_shape_switch_in_the_panel():
    ed = editor()
    click(ed, (25, 10))
    assert ed.doc.selection == [("zones", 1)]
    rows = [r[0] for r in ed.panel.properties()]
    ed.panel.prop = rows.index("kind")
    ed.panel.step_prop(+1)                     # attractor -> goal
    assert ed.doc.item(("zones", 1))["kind"] == "goal"
    ed.panel.prop = rows.index("shape")
    ed.panel.step_prop(-1)                     # circle -> rect, the same box
    assert ed.doc.item(("zones", 1))["rect"] == [[23, 8], [27, 12]]


# ---------------------------------------------------------------------------- files

def test_save_then_load_gives_the_same_definition_with_comments_and_key_order(tmp_path):
    path = str(tmp_path / "c.json")
    ed = editor(path=None)
    ed.set_tool("ball")
    click(ed, (9, 9))
    assert ed.files.save(path)
    assert text(load(path)) == text(ed.doc.definition)
    back = load(path)
    assert back["_note"] == "kept" and back["segments"][0]["// floor"] == "x" and back["material"]["_m"] == 1
    assert not ed.doc.dirty


def test_save_as_names_a_new_file_and_refuses_a_bad_name_or_another_file(tmp_path):
    ed = editor()
    assert not ed.files.save()                 # no file yet
    assert not ed.files.save_as("../x", str(tmp_path)) and "letters" in ed.message
    assert ed.files.save_as("mine", str(tmp_path))
    assert os.path.exists(tmp_path / "mine.json") and ed.doc.path == str(tmp_path / "mine.json")
    ed2 = editor()
    assert not ed2.files.save_as("mine", str(tmp_path)) and "exists" in ed2.message


def test_new_level_from_the_template_is_undoable():
    ed = editor()
    before = text(ed.doc.definition)
    ed.files.new_level()
    assert ed.doc.definition["name"] == "New level" and ed.doc.path is None
    ed.key("z", ctrl=True)
    assert text(ed.doc.definition) == before


def copy_level(tmp_path, name="08_goal.json"):
    path = str(tmp_path / name)
    shutil.copy(os.path.join(LEVEL_DIR, name), path)
    return path


def write_foreign(path, change):
    doc = load(path)
    change(doc)
    save(doc, path)
    st = os.stat(path)                   # a different mtime, as a later write would have
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    return doc


def poll(ed, tries=50):
    import time
    for _ in range(tries):                # a watcher may deliver on a later poll
        got = ed.files.poll_disk()
        if got is not None:
            return got
        time.sleep(0.02)
    return None


def test_our_own_save_is_not_a_foreign_change(tmp_path):
    path = copy_level(tmp_path)
    ed = editor(load(path), path)
    ed.set_tool("ball")
    click(ed, (9, 9))
    assert ed.files.save()
    assert poll(ed, tries=5) is None and not ed.doc.dirty


def test_a_foreign_change_without_edits_is_taken(tmp_path):
    path = copy_level(tmp_path)
    ed = editor(load(path), path)
    theirs = write_foreign(path, lambda d: d.update(name="Theirs"))
    assert poll(ed) == "taken"
    assert text(ed.doc.definition) == text(theirs) and not ed.doc.dirty


def test_a_foreign_change_with_unsaved_edits_loses_neither(tmp_path):
    path = copy_level(tmp_path)
    ed = editor(load(path), path)
    ed.set_tool("ball")
    click(ed, (9, 9))
    mine = text(ed.doc.definition)
    theirs = write_foreign(path, lambda d: d.update(name="Theirs"))
    assert poll(ed) == "conflict"
    assert text(ed.doc.definition) == mine and text(ed.doc.conflict) == text(theirs)
    assert not ed.files.save() and load(path)["name"] == "Theirs"      # no silent overwrite
    ed.files.resolve("theirs")
    assert text(ed.doc.definition) == text(theirs)
    ed.key("z", ctrl=True)               # ours comes back
    assert text(ed.doc.definition) == mine


def test_keep_mine_then_save_overwrites_the_file(tmp_path):
    path = copy_level(tmp_path)
    ed = editor(load(path), path)
    ed.set_tool("ball")
    click(ed, (9, 9))
    write_foreign(path, lambda d: d.update(name="Theirs"))
    assert poll(ed) == "conflict"
    ed.files.resolve("mine")
    assert ed.files.save()
    assert text(load(path)) == text(ed.doc.definition)


# ---------------------------------------------------------------------------- the mode, headless

import pygame  # noqa: E402

from game.app.loop import App  # noqa: E402
from game.modes.edit import EditMode, install_editor  # noqa: E402
from game.modes.edit_draw import BUTTON_ON  # noqa: E402

SIZE = (1000, 600)
FRAME = 1 / 60


@pytest.fixture
def game(tmp_path):
    pygame.font.init()
    path = tmp_path / "box.json"
    save(commented(), str(path))
    g = App(str(path), size=SIZE, level_dir=str(tmp_path), screenshot_dir=str(tmp_path / "shots"))
    g.clock.budget = float("inf")
    install_editor(g)
    return g


def post(g, kind, **attrs):
    g.handle_event(pygame.event.Event(kind, **attrs))


def press_key(g, k, mod=0, unicode=""):
    post(g, pygame.KEYDOWN, key=k, mod=mod, unicode=unicode, scancode=0)


def screen(g, p):
    x, y = g.camera.world_to_screen(np.asarray(p, float))
    return (int(round(x)), int(round(y)))


def mouse_drag(g, a, b):
    a, b = screen(g, a), screen(g, b)
    post(g, pygame.MOUSEMOTION, pos=a, rel=(0, 0), buttons=(0, 0, 0))
    post(g, pygame.MOUSEBUTTONDOWN, pos=a, button=1)
    post(g, pygame.MOUSEMOTION, pos=((a[0] + b[0]) // 2, (a[1] + b[1]) // 2), rel=(0, 0), buttons=(1, 0, 0))
    post(g, pygame.MOUSEMOTION, pos=b, rel=(0, 0), buttons=(1, 0, 0))
    post(g, pygame.MOUSEBUTTONUP, pos=b, button=1)


def mouse_click(g, p):
    mouse_drag(g, p, p)


def frames(g, n):
    for _ in range(n):
        g.update(FRAME)
        g.draw(pygame.Surface(SIZE))


def typed(g, text):
    for ch in text:
        press_key(g, ord(ch) if ch.isalnum() or ch in "._-" else 0, unicode=ch)


import numpy as np  # noqa: E402


def test_tab_enters_the_editor_and_the_world_stops(game):
    press_key(game, pygame.K_TAB)
    assert isinstance(game.top, EditMode)
    t = game.world.time
    frames(game, 5)
    assert game.world.time == t
    press_key(game, pygame.K_ESCAPE)                      # nothing changed: leaves at once
    assert game.top is game.play
    press_key(game, pygame.K_F2)
    assert isinstance(game.top, EditMode)


def test_every_tool_through_events_makes_what_it_should(game):
    press_key(game, pygame.K_TAB)
    ed = game.top.editor
    d = lambda: ed.doc.definition                          # noqa: E731
    n = {k: len(d().get(k, [])) for k in LISTS}
    press_key(game, pygame.K_2)
    mouse_drag(game, (2, 10), (6, 12))
    assert d()["segments"][-1]["a"] == [2, 10] and d()["segments"][-1]["b"] == [6, 12]
    mouse_click(game, (9, 12))
    assert d()["segments"][-1]["a"] == d()["segments"][-1]["b"] == [9, 12]
    press_key(game, pygame.K_3)
    for p in [(20, 14), (22, 15), (24, 14)]:
        mouse_click(game, p)
    press_key(game, pygame.K_RETURN)
    assert d()["polylines"][-1]["points"] == [[20, 14], [22, 15], [24, 14]]
    press_key(game, pygame.K_4)
    for p in [(26, 12), (28, 12), (27, 14)]:
        mouse_click(game, p)
    press_key(game, pygame.K_RETURN)
    assert d()["polygons"][-1]["points"] == [[26, 12], [28, 12], [27, 14]]
    press_key(game, pygame.K_5)
    mouse_click(game, (3, 5))
    assert d()["balls"][-1]["pos"] == [3, 5]
    press_key(game, pygame.K_6)
    mouse_click(game, (4, 16))
    assert d()["spawners"][-1]["pos"] == [4, 16]
    press_key(game, pygame.K_7)
    mouse_drag(game, (10, 1), (12, 3))
    assert d()["zones"][-1]["rect"] == [[10, 1], [12, 3]]
    press_key(game, pygame.K_8)
    mouse_drag(game, (3, 5), (5, 15))                      # new ball to ball 0
    assert d()["springs"][-1]["a"] == len(d()["balls"]) - 1 and d()["springs"][-1]["b"] == 0
    press_key(game, pygame.K_1)
    mouse_click(game, (3, 5))                              # select the new ball, delete it
    press_key(game, pygame.K_DELETE)
    assert len(d()["balls"]) == n["balls"]
    assert [len(d().get(k, [])) - n[k] for k in LISTS] == [2, 1, 1, 0, 0, 0, 1, 1, 0]
    frames(game, 2)                                        # draws all of it


def test_play_test_and_back_leaves_the_definition_untouched(game):
    press_key(game, pygame.K_TAB)
    mode = game.top
    press_key(game, pygame.K_5)
    mouse_click(game, (3, 5))
    before = text(mode.doc.definition)
    press_key(game, pygame.K_TAB)                          # play-test
    assert mode.testing and game.world.count == len(mode.doc.definition["balls"])
    frames(game, 30)
    assert game.world.time > 0.4                           # the world runs
    mouse_click(game, (20, 10))                            # play's click spawns a ball in the world
    frames(game, 2)
    press_key(game, pygame.K_TAB)                          # back
    assert not mode.testing and game.top is mode
    assert text(mode.doc.definition) == before
    t = game.world.time
    frames(game, 5)
    assert game.world.time == t                            # stopped again


def test_ctrl_s_saves_and_undo_then_save_gives_back_the_file(game):
    path = game.session.path
    original = open(path).read()
    press_key(game, pygame.K_TAB)
    press_key(game, pygame.K_2)
    mouse_drag(game, (2, 10), (6, 12))
    press_key(game, pygame.K_5)
    mouse_click(game, (3, 5))
    press_key(game, pygame.K_s, mod=pygame.KMOD_CTRL)
    saved = load(path)
    assert saved["segments"][-1]["b"] == [6, 12] and saved["balls"][-1]["pos"] == [3, 5]
    shown = []
    for _ in range(40):                                    # the live reload polls: our write is not foreign
        frames(game, 1)
        shown += game.toasts.texts()
    assert game.top.doc.conflict is None and not game.top.doc.dirty
    assert not any(t.startswith("reloaded") for t in shown)
    press_key(game, pygame.K_z, mod=pygame.KMOD_CTRL)
    press_key(game, pygame.K_z, mod=pygame.KMOD_CTRL)
    press_key(game, pygame.K_s, mod=pygame.KMOD_CTRL)
    assert open(path).read() == original


def test_save_as_types_a_name(game, tmp_path):
    press_key(game, pygame.K_TAB)
    press_key(game, pygame.K_s, mod=pygame.KMOD_CTRL | pygame.KMOD_SHIFT)
    typed(game, "my_level")
    press_key(game, pygame.K_RETURN)
    from game.app.progress import my_levels_dir                # the player's own folder, not the levels'
    saved = os.path.join(my_levels_dir(), "my_level.json")
    assert load(saved) == game.top.doc.definition
    assert os.path.realpath(game.session.path) == os.path.realpath(saved)
    assert not (tmp_path / "my_level.json").exists()


def test_a_typed_number_in_the_panel(game):
    press_key(game, pygame.K_TAB)
    mouse_click(game, (5, 15))                             # ball 0
    mode = game.top
    labels = [r[0] for r in mode.editor.panel.properties()]
    mode.editor.panel.prop = labels.index("radius")
    press_key(game, pygame.K_v)
    typed(game, "0.75")
    press_key(game, pygame.K_RETURN)
    assert mode.doc.item(("balls", 0))["radius"] == 0.75


def test_quitting_with_unsaved_changes_asks_first(game):
    press_key(game, pygame.K_TAB)
    press_key(game, pygame.K_5)
    mouse_click(game, (3, 5))
    post(game, pygame.QUIT)
    assert game.running and game.top.prompt == "quit"
    press_key(game, pygame.K_ESCAPE)                        # keep editing
    assert game.running and game.top.prompt is None
    post(game, pygame.QUIT)
    press_key(game, pygame.K_s)                             # save and quit
    assert not game.running and load(game.session.path)["balls"][-1]["pos"] == [3, 5]


def test_leaving_with_unsaved_changes_asks_and_discard_restores_the_saved_level(game):
    press_key(game, pygame.K_TAB)
    before = text(game.top.doc.definition)
    press_key(game, pygame.K_5)
    mouse_click(game, (3, 5))
    mode = game.top
    press_key(game, pygame.K_ESCAPE)
    assert game.top is mode and mode.prompt == "leave"
    press_key(game, pygame.K_d)
    assert game.top is game.play and text(game.session.doc) == before


def test_the_current_tool_shows_on_the_toolbar(game):
    press_key(game, pygame.K_TAB)
    press_key(game, pygame.K_7)
    surface = pygame.Surface(SIZE)
    game.draw(surface)
    rects = game.top.toolbar_rects()
    assert surface.get_at((rects[6].x + 3, rects[6].centery))[:3] == BUTTON_ON
    assert surface.get_at((rects[0].x + 3, rects[0].centery))[:3] != BUTTON_ON


# ---------------------------------------------------------------------------- whatever the author does

_COORD = st.one_of(st.integers(-50, 1050), st.integers(-10**7, 10**7))
_EDIT_KEYS = [pygame.K_1, pygame.K_2, pygame.K_3, pygame.K_4, pygame.K_5, pygame.K_6, pygame.K_7, pygame.K_8,
              pygame.K_DELETE, pygame.K_BACKSPACE, pygame.K_RETURN, pygame.K_c, pygame.K_g, pygame.K_k,
              pygame.K_LEFTBRACKET, pygame.K_RIGHTBRACKET, pygame.K_EQUALS, pygame.K_MINUS, pygame.K_v,
              pygame.K_n, pygame.K_TAB, pygame.K_ESCAPE, pygame.K_LEFT, pygame.K_UP, pygame.K_f, pygame.K_h,
              pygame.K_d, pygame.K_s, pygame.K_t, pygame.K_0, pygame.K_PERIOD, pygame.K_SPACE]
_EDIT_EVENT = st.one_of(
    st.builds(lambda x, y, b: (pygame.MOUSEBUTTONDOWN, {"pos": (x, y), "button": b}), _COORD, _COORD,
              st.sampled_from([1, 1, 1, 3])),
    st.builds(lambda x, y, b: (pygame.MOUSEBUTTONUP, {"pos": (x, y), "button": b}), _COORD, _COORD,
              st.sampled_from([1, 1, 1, 3])),
    st.builds(lambda x, y: (pygame.MOUSEMOTION, {"pos": (x, y), "rel": (0, 0), "buttons": (1, 0, 0)}),
              _COORD, _COORD),
    st.builds(lambda y: (pygame.MOUSEWHEEL, {"x": 0, "y": y, "precise_y": float(y)}), st.integers(-40, 40)),
    st.builds(lambda k, m: (pygame.KEYDOWN, {"key": k, "mod": m, "unicode": pygame.key.name(k)[:1],
                                             "scancode": 0}),
              st.sampled_from(_EDIT_KEYS), st.sampled_from([0, 0, 0, pygame.KMOD_CTRL, pygame.KMOD_SHIFT,
                                                            pygame.KMOD_CTRL | pygame.KMOD_SHIFT])),
    st.integers(1, 5),                                     # that many frames pass
)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(script=st.lists(_EDIT_EVENT, max_size=40))
def test_no_sequence_of_editor_input_breaks_the_game_or_the_history(script, tmp_path_factory, monkeypatch):
    """Clicks and drags anywhere (millions of pixels off-screen too), every editor key with
    and without Ctrl and Shift, saves, play-tests, prompts: nothing raises, every state
    drawn is a level the loader accepts, and undo-all gives back the level the editor opened."""
    import game.modes.edit as mode_module
    origins = {}

    class Recording(Editor):
        def __init__(self, document):
            super().__init__(document)
            origins[id(self)] = text(document.definition)

    monkeypatch.setattr(mode_module, "Editor", Recording)
    pygame.font.init()
    folder = tmp_path_factory.mktemp("edit")
    path = str(folder / "level.json")
    save(commented(), path)
    g = App(path, size=SIZE, level_dir=str(folder), screenshot_dir=str(folder / "shots"))
    g.clock.budget = float("inf")
    install_editor(g, open_now=True)
    mode = g.top
    surface = pygame.Surface(SIZE)
    for item in script:
        if isinstance(item, int):
            for _ in range(item):
                g.update(FRAME)
            g.draw(surface)
        else:
            kind, attrs = item
            post(g, kind, **attrs)
        if not g.running:
            break
        loads(json.dumps(mode.doc.definition))
    g.draw(surface)
    ed = mode.editor
    while ed.doc.undo():
        pass
    assert text(ed.doc.definition) == origins[id(ed)]


def test_a_broken_file_on_disk_is_never_saved_over_unasked(tmp_path):
    path = copy_level(tmp_path)
    ed = editor(load(path), path)
    with open(path, "a") as f:
        f.write("{ oops")                # someone is typing in it
    st_ = os.stat(path)
    os.utime(path, ns=(st_.st_atime_ns, st_.st_mtime_ns + 5_000_000_000))
    assert poll(ed) == "broken"
    assert not ed.files.save() and open(path).read().endswith("{ oops")
    ed.files.resolve("theirs")                 # nothing to take
    assert "does not load" in ed.message and ed.doc.conflict is not None
    ed.files.resolve("mine")
    assert ed.files.save() and load(path) == ed.doc.definition


def test_the_editor_on_a_level_that_does_not_load_saves_nowhere_unasked(game):
    path = game.session.path
    with open(path, "w") as f:
        f.write('{"segments": [')                          # broken while playing: the last good level plays
    st_ = os.stat(path)
    os.utime(path, ns=(st_.st_atime_ns, st_.st_mtime_ns + 5_000_000_000))
    for _ in range(60):
        game.update(FRAME)
    assert game.session.error
    g = game
    press_key(g, pygame.K_TAB)
    press_key(g, pygame.K_5)
    mouse_click(g, (3, 5))
    press_key(g, pygame.K_s, mod=pygame.KMOD_CTRL)       # no file: asks for a name
    assert g.top.entry == ("name", "") and open(path).read() == '{"segments": ['


def test_main_edit_opens_the_editor_and_a_missing_file_starts_from_the_template(tmp_path, monkeypatch):
    """``main.py --edit FILE`` in a (dummy) window: the editor is on top from the first frame;
    FILE did not exist, so it holds the template, named after the file."""
    import main
    import game.modes.edit as mode_module
    seen = {}
    real = mode_module.install_editor

    def spy(app, open_now=False):
        real(app, open_now)
        seen["top"] = app.top

    frames_run = {"n": 0}

    def events():
        frames_run["n"] += 1
        return [pygame.event.Event(pygame.QUIT)] if frames_run["n"] > 3 else []

    monkeypatch.setattr(mode_module, "install_editor", spy)
    monkeypatch.setattr(pygame.event, "get", events)
    path = tmp_path / "fresh.json"
    assert main.main(["--edit", str(path), "--size", "320x200"]) == 0
    assert isinstance(seen["top"], EditMode) and frames_run["n"] == 4
    assert load(str(path)) == template_definition("fresh")


def test_help_over_the_editor_leaves_it_as_it_was(game):
    press_key(game, pygame.K_TAB)
    mode = game.top
    press_key(game, pygame.K_3)
    mouse_click(game, (2, 2))
    view = game.camera.key()
    press_key(game, pygame.K_h)
    assert game.top is not mode
    frames(game, 2)                                        # the editor still draws under the help
    press_key(game, pygame.K_h)
    assert game.top is mode and mode.editor.tool == "polyline" and mode.editor.pending == [[2, 2]]
    assert game.camera.key() == view


def test_the_item_under_the_pointer_is_named_for_the_hover_outline():
    ed = editor()
    ed.motion((5.1, 15), TOL)
    assert ed.hover == ("balls", 0)
    ed.motion((30, 12), TOL)
    assert ed.hover is None
    ed.set_tool("spring")
    ed.motion((8, 7), TOL)               # on a segment: the spring tool only cares about balls
    assert ed.hover is None


@settings(max_examples=200, deadline=None)
@given(st.floats(-2, 34), st.floats(-2, 20), st.sampled_from([0.05, 0.3, 1.0]))
def test_pick_is_the_nearest_item_of_the_first_kind_within_reach(x, y, tol):
    """Brute force over every item (capsule distance, inside a polygon or zone counts as 0)."""
    import numpy as np
    from game.physics import geometry
    d = commented()
    ed = editor(d)

    def capsule(a, b, r):
        q = geometry.closest_point_on_segment(a, b, (x, y))
        return max(0.0, math.hypot(x - q[0], y - q[1]) - r)

    def gaps(name):
        for i, it in enumerate(d[name]):
            if name in ("balls", "spawners"):
                yield capsule(it["pos"], it["pos"], it["radius"]), i
            elif name == "segments":
                yield capsule(it["a"], it["b"], it["radius"]), i
            elif name == "springs":
                end = d["balls"][it["b"]]["pos"] if isinstance(it["b"], int) else it["b"]
                yield capsule(d["balls"][it["a"]]["pos"], end, 0.0), i
            elif name in ("polylines", "polygons"):
                pts = it["points"]
                closed = name == "polygons" or it["closed"]
                edges = range(len(pts) if closed else len(pts) - 1)
                g = min(capsule(pts[k], pts[(k + 1) % len(pts)], it.get("radius", 0.0)) for k in edges)
                if name == "polygons" and geometry.point_in_convex_polygon((x, y), pts):
                    g = 0.0
                yield g, i
            else:
                (x0, y0), (x1, y1) = it["rect"] if "rect" in it else ([1e9, 1e9], [1e9, 1e9])
                inside = (x0 <= x <= x1 and y0 <= y <= y1) if "rect" in it else \
                    math.dist((x, y), it["circle"]["center"]) <= it["circle"]["radius"]
                yield (0.0 if inside else math.inf), i

    want = None
    for name in ("balls", "spawners", "springs", "segments", "polylines", "polygons", "zones"):
        best = min(gaps(name), default=(math.inf, -1))
        if best[0] <= tol:
            want = (name, best[1])
            break
    assert ed.pick((x, y), tol) == want


def test_quitting_during_a_play_test_with_unsaved_edits_asks_in_the_editor(game):
    press_key(game, pygame.K_TAB)
    press_key(game, pygame.K_5)
    mouse_click(game, (3, 5))
    press_key(game, pygame.K_TAB)                          # play-test
    mode = game.top
    post(game, pygame.QUIT)
    assert game.running and not mode.testing and mode.prompt == "quit"
    press_key(game, pygame.K_d)                             # discard and quit
    assert not game.running


def test_the_editor_marks_what_the_checks_find_and_forgets_it_on_undo(game):
    press_key(game, pygame.K_TAB)
    mode = game.top

    def settle():
        frames(game, 25)                                   # past CHECK_DELAY: the checks start
        mode.wait_for_checks()
        frames(game, 1)

    settle()
    assert mode.findings == []                             # the level is clean
    press_key(game, pygame.K_5)
    mouse_click(game, (16, 4))                             # inside the triangle
    settle()
    assert [f.point for f in mode.findings if "inside a wall" in f.reason] == [(16, 4)]
    press_key(game, pygame.K_z, mod=pygame.KMOD_CTRL)
    settle()
    assert mode.findings == []


def test_a_ball_of_the_smallest_radius_gets_a_bounded_check_and_the_edit_stays(tmp_path):
    """Issue 28, item 4: in the editor the leak check of a 32 x 18 m box around a ball of
    radius 0.001 m ate 17 GB and the game was killed with the edit. It now runs in bounded
    memory, says in the status line that it looked coarser, and the edit is there."""
    pygame.font.init()
    path = tmp_path / "tiny.json"
    box = [{"a": [0, 0], "b": [32, 0]}, {"a": [32, 0], "b": [32, 18]}, {"a": [32, 18], "b": [0, 18]},
           {"a": [0, 18], "b": [0, 0]}]
    path.write_text(json.dumps({"segments": box, "balls": [{"pos": [16, 9], "radius": 0.25}]}))
    g = App(str(path), size=SIZE, level_dir=str(tmp_path), screenshot_dir=str(tmp_path / "shots"))
    g.clock.budget = float("inf")
    install_editor(g)
    press_key(g, pygame.K_TAB)
    mode = g.top
    definition = copy.deepcopy(mode.doc.definition)
    definition["balls"][0]["radius"] = 0.001                  # what the author typed
    mode.doc.definition = definition
    frames(g, 25)
    mode.wait_for_checks(timeout=60)
    frames(g, 1)
    assert mode.check_notes and mode.check_notes[0].startswith("leak check coarse")
    drawn = []
    text = g.hud.text
    g.hud.text = lambda string, *args, **kw: (drawn.append(string), text(string, *args, **kw))[1]
    g.draw(pygame.Surface(SIZE))
    assert any("leak check coarse" in line for line in drawn)
    assert g.running and mode.doc.definition["balls"][0]["radius"] == 0.001


def test_the_play_test_label_stays_clear_of_the_level_complete_box(game, monkeypatch):
    boxes = []
    draw_complete = game.hud.draw_complete
    monkeypatch.setattr(game.hud, "draw_complete", lambda *a: boxes.append(draw_complete(*a)) or boxes[-1])
    press_key(game, pygame.K_TAB)
    mode = game.top
    press_key(game, pygame.K_TAB)                          # play-test
    game.play.goal.complete, game.play.goal.complete_at = True, 1.0     # as if the goal were held
    game.draw(pygame.Surface(SIZE))
    assert mode.testing and boxes
    assert not mode.testing_label.colliderect(boxes[-1])
    assert mode.testing_label.bottom <= SIZE[1] and mode.testing_label.top >= 0


# ---------------------------------------------------------------------------- issue 27, bug 8
def test_plus_and_minus_change_a_radius_by_ten_percent_whatever_its_size():
    """A 5 cm peg and a 3 m ball both change by 10 % a press (Shift: 1 %), and from 0 (a
    thin wall) + gives a first sensible radius; - never goes below 0."""
    from game.editor.panel import FINE_RATIO, PROPORTIONAL, RATIO
    for radius in (0.05, 3.0):
        ed = editor()
        click(ed, (5, 15))
        ed.doc.set_property(ed.doc.selection, "radius", radius)
        ed.panel.prop = [r[0] for r in ed.panel.properties()].index("radius")
        ed.panel.step_prop(+1)
        assert ed.doc.item(("balls", 0))["radius"] == pytest.approx(radius * RATIO, rel=1e-3)
        ed.panel.step_prop(-1, fine=True)
        assert ed.doc.item(("balls", 0))["radius"] == pytest.approx(radius * RATIO / FINE_RATIO, rel=1e-3)
    ed = editor()
    ed.doc.selection = [("segments", 0)]
    ed.panel.prop = [r[0] for r in ed.panel.properties()].index("radius")
    assert ed.panel.properties()[ed.panel.prop][3] == 0
    ed.panel.step_prop(-1)
    assert ed.doc.item(("segments", 0))["radius"] == 0
    ed.panel.step_prop(+1)
    assert ed.doc.item(("segments", 0))["radius"] == PROPORTIONAL["radius"]


def test_with_nothing_selected_the_panel_sets_the_level_and_every_change_undoes():
    ed = editor()
    ed.doc.selection = []
    rows = {r[0]: k for k, r in enumerate(ed.panel.properties())}
    for label in ("name", "description", "gravity x", "gravity y", "bounds x min", "bounds y max",
                  "restitution", "friction", "rolling", "density", "integrator", "sub-steps"):
        assert label in rows
    before = text(ed.doc.definition)
    ed.panel.prop = rows["name"]
    assert ed.panel.type_prop("My cup")
    ed.panel.prop = rows["description"]
    assert ed.panel.type_prop("Fill the cup.")
    ed.panel.prop = rows["gravity y"]
    assert ed.panel.type_prop("-3.5")
    ed.panel.prop = rows["bounds x max"]
    ed.panel.step_prop(+1)
    ed.panel.prop = rows["integrator"]
    ed.panel.step_prop(+1)
    ed.panel.prop = rows["sub-steps"]
    assert ed.panel.type_prop("8")
    d = ed.doc.definition
    assert d["name"] == "My cup" and d["description"] == "Fill the cup." and d["gravity"][1] == -3.5
    assert d["bounds"][2] == commented()["bounds"][2] + 1 and d["substeps"] == 8
    assert d["integrator"] != commented()["integrator"]
    ed.panel.prop = rows["sub-steps"]
    assert not ed.panel.type_prop("0") and d["substeps"] == 8         # the loader's limits hold
    ed.panel.prop = rows["bounds x max"]
    assert not ed.panel.type_prop("-100")                              # max below min: refused
    for _ in range(6):
        ed.key("z", ctrl=True)
    assert text(ed.doc.definition) == before


def test_a_new_level_material_reaches_the_items_that_had_the_old_one():
    """What the file left to the level's material follows it; an item's own value stays."""
    ed = editor()
    ed.doc.selection = []
    d = ed.doc.definition
    old = d["material"]["friction"]
    own = [k for k, s in enumerate(d["segments"]) if s["friction"] != old]
    shared = [k for k, s in enumerate(d["segments"]) if s["friction"] == old]
    ed.panel.prop = [r[0] for r in ed.panel.properties()].index("friction")
    assert ed.panel.type_prop("0.9")
    assert d is ed.doc.definition and ed.doc.definition["material"]["friction"] == 0.9
    assert all(ed.doc.definition["segments"][k]["friction"] == 0.9 for k in shared)
    assert all(ed.doc.definition["segments"][k]["friction"] != 0.9 for k in own)
    ed.key("z", ctrl=True)                                       # one undo step
    assert ed.doc.definition["material"]["friction"] == old


def test_a_selected_point_s_coordinates_can_be_typed():
    ed = editor()
    click(ed, (5, 15))                                           # a ball
    rows = [r[0] for r in ed.panel.properties()]
    ed.panel.prop = rows.index("pos x")
    assert ed.panel.type_prop("7.25")
    assert ed.doc.item(("balls", 0))["pos"][0] == 7.25
    ed.doc.selection = [("segments", 0)]
    rows = [r[0] for r in ed.panel.properties()]
    ed.panel.prop = rows.index("b y")
    assert ed.panel.type_prop("-0.5")
    assert ed.doc.item(("segments", 0))["b"][1] == -0.5
    ed.doc.selection = [("polygons", 0)]
    rows = [r[0] for r in ed.panel.properties()]
    ed.panel.prop = rows.index("corner 0 x")
    corner = list(ed.doc.item(("polygons", 0))["points"][0])
    assert ed.panel.type_prop(str(corner[0] - 1))
    assert [corner[0] - 1, corner[1]] in ed.doc.item(("polygons", 0))["points"]


def test_r_turns_and_dot_comma_scale_the_selection_about_its_centre_with_undo():
    ed = editor()
    ed.doc.selection = [("segments", 0)]
    seg = dict(ed.doc.item(("segments", 0)))
    centre = ed.selection_center()
    for _ in range(6):                                           # 6 x 15 = 90 degrees
        ed.key("r")
    a, b = np.array(ed.doc.item(("segments", 0))["a"]), np.array(ed.doc.item(("segments", 0))["b"])
    d0 = np.array(seg["b"]) - np.array(seg["a"])
    assert np.allclose(b - a, [-d0[1], d0[0]], atol=1e-6)       # turned a quarter counter-clockwise
    assert np.allclose((a + b) / 2, np.array(centre), atol=1e-6)
    for _ in range(6):
        ed.key("z", ctrl=True)
    assert ed.doc.item(("segments", 0)) == seg
    click(ed, (5, 15))                                           # a ball: scaling grows its radius
    r = ed.doc.item(("balls", 0))["radius"]
    ed.key(".")
    assert ed.doc.item(("balls", 0))["radius"] == pytest.approx(r * 1.1)
    ed.key(",", shift=True)
    assert ed.doc.item(("balls", 0))["radius"] == pytest.approx(r * 1.1 / 1.01)


def test_a_turned_non_convex_polygon_is_still_saved_as_one(tmp_path):
    ed = editor()
    n = len(ed.doc.definition["polygons"])
    _draw_polygon(ed, M_SHAPE)
    ed.doc.selection = [("polygons", k) for k in range(n, len(ed.doc.definition["polygons"]))]
    ed.key("r")
    ed.key(".")
    written, path = _saved_polygons(ed, tmp_path)
    assert len(written) == n + 1 and len(written[-1]["points"]) == len(M_SHAPE)
    assert text(load(path)) == text(ed.doc.definition)


def test_the_arc_tool_makes_a_cup_from_one_drag_and_the_panel_sets_its_angles():
    """Drag from the centre to the left rim: half a circle below the centre (a cup), its
    points on the circle; the panel changes the end angle; Enter makes a polyline; 360
    degrees makes a closed circle."""
    ed = editor()
    ed.key("9")
    assert ed.tool == "arc"
    drag(ed, (16, 10), (13, 10))
    assert ed.arc is not None and ed.panel.title().startswith("new arc")
    ed.key("return")
    line = ed.doc.definition["polylines"][-1]
    pts = np.array(line["points"])
    assert np.allclose(np.hypot(pts[:, 0] - 16, pts[:, 1] - 10), 3)
    assert np.all(pts[:, 1] <= 10 + 1e-9) and pts[:, 1].min() == pytest.approx(7)   # a cup
    assert np.allclose(pts[0], [13, 10]) and np.allclose(pts[-1], [19, 10]) and not line["closed"]
    drag(ed, (5, 5), (7, 5))
    rows = [r[0] for r in ed.panel.properties()]
    ed.panel.prop = rows.index("end angle")
    assert ed.panel.type_prop("360")
    ed.key("return")
    circle = ed.doc.definition["polylines"][-1]
    assert circle["closed"] and np.allclose(np.hypot(*(np.array(circle["points"]) - [5, 5]).T), 2)
    ed.key("z", ctrl=True)
    assert ed.doc.definition["polylines"][-1] == line


def test_while_a_polyline_is_drawn_the_panel_shows_it_not_the_old_selection():
    ed = editor()
    ed.doc.selection = [("segments", 0)]
    ed.set_tool("polyline")
    click(ed, (2, 2))
    click(ed, (4, 3))
    assert ed.panel.properties() == [] and ed.panel.title() == "new polyline: 2 points"


@pytest.mark.parametrize("new", [False, True])
def test_the_view_stays_put_when_the_level_is_saved_the_first_time(game, new):
    """Issue 27, bug 8: the view jumped after the first save (the play's fit of the level)."""
    press_key(game, pygame.K_TAB)
    mode = game.top
    if new:
        press_key(game, pygame.K_n)
    game.camera.zoom_at((300, 300), 1.7)
    game.camera.pan(40, -25)
    view = (game.camera.center.copy(), game.camera.scale)
    mode.editor.set_tool("ball")
    mouse_click(game, (6, 6))
    press_key(game, pygame.K_s, mod=pygame.KMOD_LCTRL)
    if new:
        typed(game, "my_cup")
        press_key(game, pygame.K_RETURN)
    frames(game, 3)
    assert not mode.doc.dirty and mode.doc.path is not None
    assert np.array_equal(game.camera.center, view[0]) and game.camera.scale == view[1]


def test_the_editor_screens_draw_with_the_new_panels(game):
    """The level panel (nothing selected), the arc being set, a polyline being drawn."""
    press_key(game, pygame.K_TAB)
    mode = game.top
    mode.doc.selection = []
    frames(game, 1)
    press_key(game, pygame.K_9)
    mouse_drag(game, (10, 8), (7, 8))
    assert mode.editor.arc is not None
    frames(game, 1)
    press_key(game, pygame.K_RETURN)
    press_key(game, pygame.K_3)
    mouse_click(game, (2, 2))
    frames(game, 1)


def test_a_duplicated_non_convex_polygon_is_saved_as_one_too(tmp_path):
    ed = editor()
    n = len(ed.doc.definition["polygons"])
    _draw_polygon(ed, M_SHAPE)
    ed.doc.selection = [("polygons", k) for k in range(n, len(ed.doc.definition["polygons"]))]
    ed.key("d", ctrl=True)
    written, path = _saved_polygons(ed, tmp_path)
    assert len(written) == n + 2
    assert np.allclose(written[-1]["points"], np.array(M_SHAPE) + [0.5, -0.5])
    assert text(load(path)) == text(ed.doc.definition)
