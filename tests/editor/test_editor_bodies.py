"""The editor's bodies (the dynamic bodies issue), through the editor's commands: draw a box,
a plank and a body polygon, a concave polygon refused as it is clicked, turn and scale,
turn a wall into a body and back, the panel's body rows, undo and redo of all of it, a
joint held at the point of a body clicked (a see-saw), and saving keeping the file's
comments and order."""
import json
import math

import numpy as np
import pygame
import pytest

from game.editor.body_tool import THIN_RADIUS, box_from_drag, convex_check
from game.editor.document import Document
from game.editor.items import body_held_point, joint_ends
from game.editor.panel_bodies import mass_inertia
from game.editor.tools import TOOL_HINTS, TOOLS, Editor
from game.level import loads
from game.physics.shapes import body_frame
from tests.editor.test_editor import click, drag, frames, game, mouse_click, press_key  # noqa: F401 (game: a fixture)

LEVEL = {
    "$schema": "./level.schema.json", "format": 1, "name": "Bodies",
    "_note": "a comment the editor keeps",
    "bounds": [0, 0, 32, 18],
    "segments": [{"a": [0, 0], "b": [32, 0]}, {"//": "a ramp", "a": [2, 6], "b": [6, 4], "radius": 0.2},
                 {"a": [8, 8], "b": [11, 8]}, {"a": [14, 9], "b": [14, 9], "radius": 0.4}],
    "polygons": [{"points": [[20, 1], [24, 1], [20, 4]]}],
    "balls": [{"pos": [28, 10]}],
}
TOL = 0.1


def editor():
    return Editor(Document(loads(json.dumps(LEVEL), "bodies.json"), None, json.loads(json.dumps(LEVEL))))


def bodies(ed):
    return ed.doc.definition.get("bodies", [])


def undo_all(ed):
    while ed.doc.can_undo:
        ed.doc.undo()


def test_every_tool_says_what_a_click_and_a_drag_do():
    assert set(TOOL_HINTS) == set(TOOLS)
    assert all("\n" not in hint and ("click" in hint or "drag" in hint) for hint in TOOL_HINTS.values())


def test_draw_a_box_a_square_and_a_click_box():
    ed = editor()
    ed.key("b")
    drag(ed, (4, 10), (7, 12))
    assert bodies(ed)[-1]["shape"] == "box"
    assert bodies(ed)[-1]["center"] == [5.5, 11.0] and bodies(ed)[-1]["size"] == [3.0, 2.0]
    assert ed.doc.selection == [("bodies", 0)]
    drag(ed, (10, 10), (12, 11), shift=True)                # Shift: a square, the drag's longer side
    assert bodies(ed)[-1]["size"] == [2.0, 2.0] and bodies(ed)[-1]["center"] == [11.0, 11.0]
    click(ed, (16, 14))
    assert bodies(ed)[-1]["size"] == [1.0, 1.0] and bodies(ed)[-1]["center"] == [16.0, 14.0]
    assert box_from_drag([0, 0], [2, 0]) is None
    ed.doc.undo()
    assert len(bodies(ed)) == 2
    ed.doc.redo()
    assert len(bodies(ed)) == 3


def test_draw_a_plank_its_radius_from_the_wheel_and_the_panel():
    ed = editor()
    ed.key("l")
    assert ed.panel.properties()[0][1] == "tool:radius"
    ed.bodies.wheel(+1)
    r = ed.bodies.radius
    assert r == pytest.approx(0.11)
    drag(ed, (4, 12), (10, 12))
    plank = bodies(ed)[-1]
    assert plank["shape"] == "capsule" and plank["a"] == [4.0, 12.0] and plank["b"] == [10.0, 12.0]
    assert plank["radius"] == r
    ed.panel.prop = 0
    assert ed.panel.type_prop("0.2")
    drag(ed, (4, 14), (10, 15))
    assert bodies(ed)[-1]["radius"] == 0.2
    rows = {row[1]: row for row in ed.panel.properties()}   # the plank selected: its own radius row
    assert rows["radius"][3] == 0.2
    ed.press((1, 1), TOL)                                    # Esc drops a plank mid-drag
    ed.motion((3, 1), TOL)
    assert ed.busy() and ed.preview[0] == "plank"
    ed.key("escape")
    ed.release((3, 1), TOL)
    assert not ed.busy() and len(bodies(ed)) == 2


def test_draw_a_body_polygon_closed_on_its_first_corner_and_with_enter():
    ed = editor()
    ed.key("y")
    for p in [(4, 10), (7, 10), (7, 13)]:
        click(ed, p)
    click(ed, (4, 10))                                       # the first corner: closes it
    poly = bodies(ed)[-1]
    assert poly["shape"] == "polygon" and poly["points"] == [[4.0, 10.0], [7.0, 10.0], [7.0, 13.0]]
    assert ed.pending == []
    for p in [(12, 13), (12, 10), (15, 10)]:                 # clockwise: stored counter-clockwise
        click(ed, p)
    ed.key("return")
    pts = bodies(ed)[-1]["points"]
    assert len(pts) == 3 and sorted(map(tuple, pts)) == [(12.0, 10.0), (12.0, 13.0), (15.0, 10.0)]
    twice = sum(pts[k - 1][0] * pts[k][1] - pts[k][0] * pts[k - 1][1] for k in range(3))
    assert twice > 0


def test_a_concave_body_polygon_is_refused_as_it_is_clicked_with_its_reflex_corner_marked():
    ed = editor()
    ed.key("y")
    for p in [(4, 10), (8, 10), (8, 14)]:
        click(ed, p)
    ed.motion((7, 11), TOL)                                  # the pointer where a reflex corner would be
    assert ed.bodies.reflex == [7.0, 11.0]
    click(ed, (7, 11))
    assert "concave" in ed.message and "(7, 11)" in ed.message
    assert ed.pending == [[4.0, 10.0], [8.0, 10.0], [8.0, 14.0]] and ed.bodies.reflex == [7.0, 11.0]
    assert "bodies" not in ed.doc.definition
    click(ed, (4, 14))                                       # a convex corner: taken
    assert ed.bodies.reflex is None and len(ed.pending) == 4
    ed.key("return")
    assert len(bodies(ed)[-1]["points"]) == 4
    assert convex_check([[0, 0], [2, 0], [1, 1], [2, 2], [0, 2]])[0] == 2
    assert "line" in convex_check([[0, 0], [1, 0], [2, 0], [1, 1]])[1]


def test_r_turns_a_box_to_the_next_15_degrees_and_scale_keys_grow_it_with_undo():
    ed = editor()
    ed.key("b")
    drag(ed, (4, 10), (8, 12))
    ed.panel.prop = [r[1] for r in ed.panel.properties()].index("sel:angle")
    ed.panel.type_prop("7")                                  # typed: turned to 7 degrees
    assert math.degrees(bodies(ed)[0]["angle"]) == pytest.approx(7)
    ed.key("r")                                              # snapped: to 15, then 30
    assert math.degrees(bodies(ed)[0]["angle"]) == pytest.approx(15)
    ed.key("r")
    assert math.degrees(bodies(ed)[0]["angle"]) == pytest.approx(30)
    ed.key("r", shift=True)
    assert math.degrees(bodies(ed)[0]["angle"]) == pytest.approx(15)
    assert bodies(ed)[0]["center"] == pytest.approx([6.0, 11.0])
    rows = {r[1] if r[2] is None else (r[1], r[2]): r[3] for r in ed.panel.properties()}
    assert rows["sel:angle"] == pytest.approx(15) and rows[("sel:centre", 0)] == pytest.approx(6.0)
    ed.key(".")
    assert bodies(ed)[0]["size"] == pytest.approx([4.4, 2.2])
    ed.key(",")
    assert bodies(ed)[0]["size"] == pytest.approx([4.0, 2.0])
    for _ in range(6):                                       # typed, R, R, Shift+R, ".", ","
        ed.key("z", ctrl=True)
    assert bodies(ed)[0]["angle"] == 0.0 and bodies(ed)[0]["size"] == [4.0, 2.0]


def test_turning_a_plank_and_a_wall_together_about_their_centre():
    ed = editor()
    ed.key("l")
    drag(ed, (4, 12), (8, 12))
    ed.doc.selection = [("bodies", 0), ("segments", 2)]
    centre = np.array(ed.selection_center())
    ed.turn(90)                                              # about the middle of the box they make
    plank, wall = bodies(ed)[0], ed.doc.item(("segments", 2))
    assert np.allclose(np.subtract(plank["b"], plank["a"]), [0, 4], atol=1e-6)
    assert np.allclose(np.subtract(wall["b"], wall["a"]), [0, 3], atol=1e-6)
    mid = (np.array(wall["a"]) + np.array(wall["b"])) / 2    # the wall's middle: a quarter turn about it
    d = np.array([9.5, 8.0]) - centre
    assert np.allclose(mid, centre + [-d[1], d[0]], atol=1e-6)
    ed.doc.undo()
    ed.key("r")                                              # both lie at 0 degrees: R snaps to 15
    assert np.degrees(np.arctan2(*np.subtract(plank := bodies(ed)[0]["b"], bodies(ed)[0]["a"])[::-1])) == \
        pytest.approx(15)


def test_a_wall_becomes_a_body_and_back_keeping_its_shape():
    ed = editor()
    ed.doc.selection = [("segments", 1)]                     # a ramp with a radius: a plank
    ed.key("m")
    plank = bodies(ed)[-1]
    assert plank["shape"] == "capsule" and plank["a"] == [2, 6] and plank["b"] == [6, 4] and plank["radius"] == 0.2
    assert ed.doc.selection == [("bodies", 0)] and len(ed.doc.definition["segments"]) == 3
    ed.key("m")                                              # and back
    assert ed.doc.definition["segments"][-1]["a"] == [2, 6] and ed.doc.definition["segments"][-1]["radius"] == 0.2
    assert "bodies" not in ed.doc.definition or not bodies(ed)
    ed.doc.selection = [("polygons", 0)]                     # a ramp polygon: a wedge that slides
    ed.key("m")
    wedge = bodies(ed)[-1]
    assert wedge["shape"] == "polygon" and sorted(map(tuple, wedge["points"])) == [(20, 1), (20, 4), (24, 1)]
    ed.key("m")
    assert ed.doc.definition["polygons"][-1]["points"] == wedge["points"]
    ed.doc.selection = [("segments", 1)]                     # a thin wall: a thin plank
    ed.key("m")
    assert bodies(ed)[-1]["radius"] == THIN_RADIUS and "thin" in ed.message
    peg = next(i for i, s in enumerate(ed.doc.definition["segments"]) if s["a"] == s["b"])
    ed.doc.selection = [("segments", peg)]                   # a round peg: a ball
    ed.key("m")
    assert ed.doc.definition["balls"][-1]["pos"] == [14, 9] and ed.doc.definition["balls"][-1]["radius"] == 0.4
    undo_all(ed)
    assert ed.doc.authored() == LEVEL


def test_the_last_wall_cannot_become_a_body():
    level = dict(LEVEL, segments=[{"a": [0, 0], "b": [32, 0]}], polygons=[])
    ed = Editor(Document(loads(json.dumps(level)), None, json.loads(json.dumps(level))))
    ed.doc.selection = [("segments", 0)]
    ed.key("m")
    assert "at least one wall" in ed.message and "bodies" not in ed.doc.definition


def test_the_panel_edits_a_body_and_shows_its_mass_and_inertia_as_the_engine_does():
    ed = editor()
    ed.key("b")
    drag(ed, (4, 10), (6, 11))                               # 2 x 1 m at density 1: 2 kg
    rows = {r[1]: r for r in ed.panel.properties()}
    _, _, _, _, mass, inertia = body_frame(bodies(ed)[0], 1.0)
    assert rows["info:mass"][3] == f"{mass:.4g} kg" and mass == pytest.approx(2.0)
    assert rows["info:inertia"][3] == f"{inertia:.4g} kg m2" and inertia == pytest.approx(2.0 * 5 / 12)

    def choose(key):
        ed.panel.prop = [r[1] for r in ed.panel.properties()].index(key)

    choose("density")
    assert ed.panel.type_prop("3")
    assert mass_inertia(bodies(ed)[0])[0] == pytest.approx(6.0)
    choose("body:swap")
    ed.panel.step_prop(+1)
    assert "mass" in bodies(ed)[0] and "density" not in bodies(ed)[0] and bodies(ed)[0]["mass"] == pytest.approx(6)
    choose("friction")
    assert ed.panel.type_prop("0.9") and bodies(ed)[0]["friction"] == 0.9
    choose("restitution")
    assert ed.panel.type_prop("0.1") and bodies(ed)[0]["restitution"] == 0.1
    choose("body:colour")
    assert ed.panel.type_prop("#3366ff") and bodies(ed)[0]["colour"] == "#3366ff"
    assert not ed.panel.type_prop("blue") and "colour" in ed.message
    choose("body:name")
    assert ed.panel.type_prop("crate") and bodies(ed)[0]["name"] == "crate"
    choose("body:size")
    assert ed.panel.type_prop("4") and bodies(ed)[0]["size"] == [4.0, 1.0]
    saved = loads(json.dumps(ed.doc.authored()))             # what Ctrl+S writes loads back the same
    assert saved["bodies"] == bodies(ed)
    undo_all(ed)
    assert ed.doc.authored() == LEVEL


def test_a_pin_through_a_planks_middle_to_the_world_makes_a_see_saw():
    ed = editor()
    ed.key("l")
    drag(ed, (4, 12), (10, 12))
    ed.key("p")
    ed.motion((7, 12), TOL)
    assert ed.preview[0] == "joint-end" and ed.preview[1][0] == [7.0, 12.0]   # where it would hold
    click(ed, (7, 12))
    pin = ed.doc.definition["joints"][-1]
    assert pin["a"] == {"body": 0} and pin["b"] == [7.0, 12.0] and pin["length"] == 0
    assert pin["offset_a"] == pytest.approx([0.0, 0.0], abs=1e-9)
    click(ed, (9, 12))                                       # a second pin, 2 m along the plank's frame
    pin = ed.doc.definition["joints"][-1]
    assert pin["offset_a"] == pytest.approx([2.0, 0.0]) and pin["b"] == [9.0, 12.0]
    ed.doc.selection = [("bodies", 0)]                       # the pins follow the plank through a turn
    ed.doc.transform(ed.doc.selection, (7, 12), rotate=90)
    assert ed.doc.definition["joints"][-1]["b"] == pytest.approx([7.0, 14.0])
    ends = joint_ends(ed.doc.definition["joints"][-1], ed.doc.definition["balls"], bodies(ed))
    assert ends[0] == pytest.approx(ends[1])
    ed.doc.undo()
    ed.doc.delete([("joints", 1)])                           # one pin through the middle: a see-saw
    from game.physics.world import World
    ed.doc.transform([("bodies", 0)], (7, 12), rotate=-90)   # level again
    ed.key("5")
    click(ed, (9, 13))                                       # a ball over its right end
    level = loads(json.dumps(ed.doc.authored()))
    assert body_frame(level["bodies"][0], 1.0)[2] == pytest.approx([7.0, 12.0])   # centre of mass on the pin
    world = World.from_level(level, execution="numpy")
    for _ in range(60):
        world.step(1 / 60)
    ball = world.pos[-1]
    assert ball[1] < 12.0 and abs(ball[0] - 9.0) < 0.5      # the end went down under it: a see-saw


def test_a_rod_from_a_box_to_a_ball_holds_the_box_at_the_point_clicked_and_deleting_the_box_takes_it():
    ed = editor()
    ed.key("b")
    drag(ed, (24, 9), (26, 11))                              # a box centred on (25, 10)
    ed.key("j")
    ed.motion((25.5, 10.5), TOL)
    click(ed, (25.5, 10.5))
    assert ed.joints.start is not None
    ed.motion((28, 10), TOL)
    assert ed.preview[0] == "joint" and ed.preview[1][0] == pytest.approx([25.5, 10.5])
    click(ed, (28, 10))                                      # the ball
    rod = ed.doc.definition["joints"][-1]
    assert rod["a"] == {"body": 0} and rod["b"] == 0 and rod["offset_a"] == pytest.approx([0.5, 0.5])
    assert body_held_point(bodies(ed)[0], rod["offset_a"]) == pytest.approx([25.5, 10.5])
    ed.doc.delete([("bodies", 0)])
    assert ed.doc.definition["joints"] == []
    ed.doc.undo()
    assert ed.doc.definition["joints"][-1]["a"] == {"body": 0}


def test_duplicating_a_body_with_its_pin_and_saving_keeps_comments_and_order():
    ed = editor()
    ed.key("l")
    drag(ed, (4, 12), (10, 12))
    ed.key("p")
    click(ed, (7, 12))
    ed.doc.duplicate([("bodies", 0), ("joints", 0)], (0, 2))
    assert len(bodies(ed)) == 2 and ed.doc.definition["joints"][-1]["a"] == {"body": 1}
    out = ed.doc.authored()
    assert list(out)[:5] == list(LEVEL)[:5] and out["_note"] == LEVEL["_note"]
    assert out["segments"][1]["//"] == "a ramp"
    assert out["bodies"][0] == {"shape": "capsule", "a": [4.0, 12.0], "b": [10.0, 12.0], "radius": 0.1}
    assert loads(json.dumps(out))["bodies"] == bodies(ed)


def test_drawing_bodies_through_events_and_the_editor_draws_them(game):
    press_key(game, pygame.K_TAB)
    mode = game.top
    ed = mode.editor
    assert mode.toolbar_rects()[-1].right <= game.size[0]
    press_key(game, pygame.K_l)
    assert ed.tool == "plank"
    from tests.editor.test_editor import mouse_drag
    mouse_drag(game, (3, 5), (6, 5))
    assert ed.doc.definition["bodies"][-1]["shape"] == "capsule"
    press_key(game, pygame.K_b)
    mouse_drag(game, (3, 7), (5, 8))
    press_key(game, pygame.K_y)
    for p in [(8, 6), (10, 6), (9, 8)]:
        mouse_click(game, p)
    press_key(game, pygame.K_RETURN)
    assert [b["shape"] for b in ed.doc.definition["bodies"]] == ["capsule", "box", "polygon"]
    frames(game, 3)                                          # draws them, their selection and the hint
    press_key(game, pygame.K_1)
    press_key(game, pygame.K_m)                              # the polygon body back to a wall
    assert len(ed.doc.definition["bodies"]) == 2
    frames(game, 2)
