"""The selection's round handles (issue 35, game.editor.turning): one above the selection's box
turns it about its centre to follow the pointer (Shift: its angle to 15-degree steps), one off
its corner scales it about its centre by the ratio of the pointer's distances; a whole drag is
one undo step, and a frame that would make a zero-size shape is refused in one line and
changes nothing. Driven through the editor's gestures, and through the mode's mouse events."""
import math

import numpy as np
import pygame
import pytest

from game.editor.turning import HANDLE_HINTS, TURN_HANDLE_GAP
from game.modes.edit import EditMode
from game.modes.edit_draw import HANDLE
from tests.editor.test_editor import game, post, press_key, screen  # noqa: F401 (game: a fixture)
from tests.editor.test_editor_bodies import TOL, bodies, drag, editor

STEPS = 12            # motion events a test's drag makes along its way


def a_box(ed, a=(4, 10), b=(8, 12)):
    """A 4 x 2 box drawn with the box tool (selected), then the select tool."""
    ed.key("b")
    drag(ed, a, b)
    ed.key("1")
    return dict(bodies(ed)[-1])


def turn_drag(ed, degrees, shift=False, radius=None):
    """Press the turn handle and go round the selection's centre by ``degrees`` (counter-
    clockwise), in STEPS motions, then let go; returns the centre."""
    c = np.array(ed.turning.center())
    start = np.array(ed.turning.handles(TOL)["turn"])
    r0 = radius or float(np.linalg.norm(start - c))
    a0 = math.atan2(*(start - c)[::-1])
    ed.press(tuple(start), TOL)
    for k in range(1, STEPS + 1):
        a = a0 + math.radians(degrees) * k / STEPS
        ed.motion(tuple(c + r0 * np.array([math.cos(a), math.sin(a)])), TOL, shift=shift)
    ed.release(tuple(c + r0 * np.array([math.cos(a), math.sin(a)])), TOL, shift=shift)
    return c


def scale_drag(ed, ratio, release=True):
    """Press the scale handle and move straight out from (or towards) the centre to ``ratio``
    times its distance, in STEPS motions."""
    c = np.array(ed.turning.center())
    start = np.array(ed.turning.handles(TOL)["scale"])
    ed.press(tuple(start), TOL)
    for k in range(1, STEPS + 1):
        p = c + (start - c) * (1 + (ratio - 1) * k / STEPS)
        ed.motion(tuple(p), TOL)
    if release:
        ed.release(tuple(p), TOL)
    return c


def test_the_handles_stand_above_the_box_and_off_its_corner_the_same_pixels_away_at_any_zoom():
    ed = editor()
    a_box(ed)
    (x0, y0, x1, y1) = ed.turning.box()
    assert (x0, y0, x1, y1) == pytest.approx((4, 10, 8, 12))
    for tol in (0.05, 0.4):                                  # the pick distance: a few px at each zoom
        at = ed.turning.handles(tol)
        assert at["turn"] == pytest.approx((6.0, 12 + TURN_HANDLE_GAP * tol))
        sx, sy = at["scale"]
        assert sx > x1 and sy < y0 and math.dist((sx, sy), (x1, y0)) < 3 * tol
        assert math.dist(at["turn"], (6, 12)) > tol and math.dist(at["scale"], (x1, y0)) > tol   # clear of the box
    ed.doc.selection = []
    assert ed.turning.handles(TOL) == {} and ed.turning.grab((6, 12.3), TOL) is None


def test_dragging_the_turn_handle_a_quarter_turn_turns_a_box_90_degrees_about_its_centre():
    ed = editor()
    before = a_box(ed)
    c = turn_drag(ed, 90)
    box = bodies(ed)[0]
    assert math.degrees(box["angle"]) == pytest.approx(90, abs=1e-6)
    assert box["center"] == pytest.approx(list(c)) and box["center"] == pytest.approx(before["center"])
    assert box["size"] == before["size"]
    rows = {r[1]: r[3] for r in ed.panel.properties() if r[2] is None}
    assert rows["sel:angle"] == pytest.approx(90)            # the panel shows it


def test_a_drag_all_the_way_round_comes_back_and_a_clockwise_one_turns_the_other_way():
    ed = editor()
    a_box(ed)
    turn_drag(ed, -60)
    assert math.degrees(bodies(ed)[0]["angle"]) == pytest.approx(-60, abs=1e-6)
    ed.key("z", ctrl=True)
    turn_drag(ed, 350)                                       # the long way round: not a short turn back
    assert math.degrees(bodies(ed)[0]["angle"]) % 360 == pytest.approx(350, abs=1e-6)


def test_shift_puts_the_selections_angle_on_15_degree_steps():
    ed = editor()
    a_box(ed)
    turn_drag(ed, 37)                                        # free: where the pointer is
    assert math.degrees(bodies(ed)[0]["angle"]) == pytest.approx(37, abs=1e-6)
    turn_drag(ed, 20, shift=True)                            # 57 -> the multiple of 15 nearest: 60
    assert math.degrees(bodies(ed)[0]["angle"]) == pytest.approx(60, abs=1e-6)
    turn_drag(ed, -44, shift=True)                           # 16 -> 15
    assert math.degrees(bodies(ed)[0]["angle"]) == pytest.approx(15, abs=1e-6)
    # Let go where the last frame was with Shift up by then: that frame stands.
    c = np.array(ed.turning.center())
    start = np.array(ed.turning.handles(TOL)["turn"])
    ed.press(tuple(start), TOL)
    t = math.radians(80)
    end = tuple(c + np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]]) @ (start - c))
    ed.motion(end, TOL, shift=True)                          # 15 + 80 = 95 -> 90
    ed.release(end, TOL, shift=False)
    assert math.degrees(bodies(ed)[0]["angle"]) == pytest.approx(90, abs=1e-6)


def test_dragging_the_scale_handle_to_twice_the_distance_doubles_every_size_walls_and_bodies_alike():
    ed = editor()
    box = a_box(ed)
    ed.key("l")
    drag(ed, (4, 14), (8, 14))                               # a plank
    ed.key("1")
    plank = dict(bodies(ed)[1])
    ed.doc.selection = [("bodies", 0), ("bodies", 1), ("segments", 2), ("balls", 0)]
    wall, ball = dict(ed.doc.item(("segments", 2))), dict(ed.doc.item(("balls", 0)))
    c = scale_drag(ed, 2.0)
    new_box, new_plank = bodies(ed)[0], bodies(ed)[1]
    assert new_box["size"] == pytest.approx([2 * s for s in box["size"]])
    assert new_plank["radius"] == pytest.approx(2 * plank["radius"])
    assert math.dist(new_plank["a"], new_plank["b"]) == pytest.approx(2 * math.dist(plank["a"], plank["b"]))
    new_wall = ed.doc.item(("segments", 2))
    assert math.dist(new_wall["a"], new_wall["b"]) == pytest.approx(2 * math.dist(wall["a"], wall["b"]))
    assert ed.doc.item(("balls", 0))["radius"] == pytest.approx(2 * ball["radius"])
    # About the centre: each point twice as far from it, the same way.
    assert np.allclose(np.subtract(new_box["center"], c), 2 * np.subtract(box["center"], c))
    assert np.allclose(ed.turning.center(), c)


def test_one_ctrl_z_undoes_the_whole_drag_and_one_ctrl_y_redoes_it():
    ed = editor()
    before = a_box(ed)
    edits = len(ed.doc._undo)
    turn_drag(ed, 130)
    assert len(ed.doc._undo) == edits + 1                    # twelve frames, one step
    turned = dict(bodies(ed)[0])
    ed.key("z", ctrl=True)
    assert bodies(ed)[0] == before
    ed.key("y", ctrl=True)
    assert bodies(ed)[0] == turned
    scale_drag(ed, 0.5)
    assert len(ed.doc._undo) == edits + 2
    ed.key("z", ctrl=True)
    assert bodies(ed)[0] == turned


def test_a_scale_to_nothing_is_refused_in_one_line_and_leaves_the_selection_as_it_was():
    ed = editor()
    before = a_box(ed)
    edits = len(ed.doc._undo)
    c = np.array(ed.turning.center())
    start = ed.turning.handles(TOL)["scale"]
    ed.press(start, TOL)
    ed.motion(tuple(c), TOL)                                 # onto the centre: a box of size 0
    assert "\n" not in ed.message and ed.message.startswith("not scaled:") and "above 0" in ed.message
    assert bodies(ed)[0] == before
    ed.release(tuple(c), TOL)
    assert bodies(ed)[0] == before and len(ed.doc._undo) == edits   # nothing to undo either
    # Refused mid-drag: it stays as the last frame it could hold left it, and goes on after.
    scale_drag(ed, 1.5, release=False)
    grown = dict(bodies(ed)[0])
    ed.motion(tuple(c), TOL)
    assert bodies(ed)[0] == grown and ed.message.startswith("not scaled:")
    ed.motion(tuple(c + (np.array(start) - c) * 3.0), TOL)
    ed.release(tuple(c + (np.array(start) - c) * 3.0), TOL)
    assert bodies(ed)[0]["size"] == pytest.approx([3 * s for s in before["size"]])
    ed.key("z", ctrl=True)
    assert bodies(ed)[0] == before


def test_the_keys_and_the_handle_turn_alike():
    """R and a Shift drag to the same 15 degrees leave the same box (one piece of arithmetic)."""
    by_key, by_handle = editor(), editor()
    a_box(by_key)
    a_box(by_handle)
    by_key.key("r")
    turn_drag(by_handle, 14, shift=True)
    assert bodies(by_key)[0]["angle"] == pytest.approx(bodies(by_handle)[0]["angle"], abs=1e-12)
    assert bodies(by_key)[0]["center"] == pytest.approx(bodies(by_handle)[0]["center"], abs=1e-12)


# ---- in the game ------------------------------------------------------------------------------
def test_the_handles_are_drawn_where_the_mouse_takes_them_and_say_what_they_do(game):
    press_key(game, pygame.K_TAB)
    mode = game.top
    assert isinstance(mode, EditMode)
    ed = mode.editor
    ed.doc.selection = [("segments", 0)]
    surface = pygame.Surface(game.size)
    mode.draw(surface)
    at = ed.turning.handles(mode.tol())
    for name in ("turn", "scale"):
        x, y = screen(game, at[name])
        ring = [tuple(surface.get_at((x + dx, y + dy)))[:3] for dx, dy in ((7, 0), (-7, 0), (0, 7), (0, -7))]
        assert HANDLE in ring                                # the round handle's ring is there
    # Over the turn handle the status line says what its drag does.
    x, y = screen(game, at["turn"])
    post(game, pygame.MOUSEMOTION, pos=(x, y), rel=(0, 0), buttons=(0, 0, 0))
    assert ed.handle_hover == "turn"
    drawn = []
    text = game.hud.text
    game.hud.text = lambda string, *args, **kw: (drawn.append(string), text(string, *args, **kw))[1]
    mode.draw(surface)
    game.hud.text = text
    assert any(HANDLE_HINTS["turn"] in s for s in drawn)
    # A quarter turn with the mouse: the wall stands up about its middle.
    seg = dict(ed.doc.item(("segments", 0)))
    c = np.array(ed.turning.center())
    post(game, pygame.MOUSEBUTTONDOWN, pos=(x, y), button=1)
    r = float(np.linalg.norm(np.array(at["turn"]) - c))
    for k in range(1, STEPS + 1):
        a = math.pi / 2 + math.pi / 2 * k / STEPS
        post(game, pygame.MOUSEMOTION, pos=screen(game, c + r * np.array([math.cos(a), math.sin(a)])), rel=(0, 0),
             buttons=(1, 0, 0))
    end = screen(game, c + r * np.array([-1.0, 0.0]))
    post(game, pygame.MOUSEBUTTONUP, pos=end, button=1)
    new = ed.doc.item(("segments", 0))
    d0, d1 = np.subtract(seg["b"], seg["a"]), np.subtract(new["b"], new["a"])
    turned = math.degrees(math.atan2(d1[1], d1[0]) - math.atan2(d0[1], d0[0]))
    # The turn the pointer made about the centre, pixel to pixel (a quarter, to a few degrees).
    p0, p1 = (np.array(game.camera.screen_to_world(q)) - c for q in ((x, y), end))
    want = math.degrees(math.atan2(p1[1], p1[0]) - math.atan2(p0[1], p0[0]))
    assert turned % 360 == pytest.approx(want % 360, abs=1e-6) and want % 360 == pytest.approx(90, abs=5)
    assert np.allclose((np.add(new["a"], new["b"])) / 2, (np.add(seg["a"], seg["b"])) / 2)
    press_key(game, pygame.K_z, mod=pygame.KMOD_CTRL)
    assert ed.doc.item(("segments", 0)) == seg
