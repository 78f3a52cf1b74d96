"""Bodies on screen (game.draw.bodies), headless: each is filled in its colour where it is and
nowhere else, rounded where it is rounded, its turn visible; its joints and the player's grab
drawn; the debug layers show the manifold points, the frames and the sleeping bodies; menu
thumbnails show them; and their impacts reach the sound."""
import os

import numpy as np
import pygame
import pytest

from scenes import build_world
from game.app.audio import pick, world_impacts
from game.draw import theme
from game.draw.bodies import body_colour, parse_colour, rounded_outline
from game.draw.camera import Camera
from game.draw.renderer import Renderer
from game.paths import ROOT
from game.physics import bodies as bodies_module

SIZE = (1280, 720)
GREEN, PINK = (32, 192, 64), (192, 64, 128)


@pytest.fixture(scope="module", autouse=True)
def _pygame():
    pygame.font.init()
    yield


def _level(bodies, gravity=(0.0, 0.0), **extra):
    return {"name": "Bodies", "bounds": [0, 0, 32, 18], "gravity": list(gravity),
            "polylines": [{"points": [[0.5, 17.5], [0.5, 0.5], [31.5, 0.5], [31.5, 17.5]]}],
            "bodies": list(bodies), **extra}


def _draw(world, debug=()):
    camera = Camera(SIZE)
    camera.fit(world.bounds)
    surface = pygame.Surface(SIZE)
    Renderer().draw(surface, world, camera, debug=debug)
    return surface, camera


def _pixels(surface):
    return pygame.surfarray.array3d(surface).transpose(1, 0, 2)      # [y, x, rgb]


def _at(surface, camera, point):
    x, y = np.rint(camera.world_to_screen(np.asarray(point, float))).astype(int)
    return tuple(surface.get_at((int(x), int(y)))[:3])


def _is(colour):
    return lambda pixels: np.all(pixels == np.asarray(colour), axis=-1)


BOX = {"shape": "box", "center": [10, 5], "size": [3, 2], "colour": "#20c040"}
PLANK = {"shape": "capsule", "a": [18, 5], "b": [24, 5], "radius": 0.5, "colour": [192, 64, 128]}


def test_a_body_is_filled_in_its_colour_where_it_is_and_nowhere_else():
    world = build_world(_level([BOX]))
    surface, camera = _draw(world)
    green = _is(GREEN)(_pixels(surface))
    (x0, y1), (x1, y0) = np.rint(camera.world_to_screen([(8.5, 4), (11.5, 6)])).astype(int)
    inside = green[y0:y1 + 1, x0:x1 + 1]
    assert inside.mean() > 0.85, "the box is filled (all but its outline and its turn mark)"
    assert green.sum() == inside.sum(), "and its colour is nowhere else"
    edge = tuple(surface.get_at((int(x0), int((y0 + y1) // 2)))[:3])
    assert edge != GREEN and sum(edge) > sum(GREEN), "a lighter outline"


def test_a_plank_is_a_stadium_its_ends_rounded():
    world = build_world(_level([PLANK]))
    surface, camera = _draw(world)
    assert _at(surface, camera, (21, 5.3)) == PINK                     # beside the axis
    assert _at(surface, camera, (24.25, 5.25)) == PINK                 # in the round end past b
    assert _at(surface, camera, (24.42, 5.42)) != PINK, "a square end would reach here; a round one does not"
    assert _at(surface, camera, (17.7, 5.0)) == PINK                   # past a


def test_the_turn_shows_a_square_box_turned_a_quarter_looks_different():
    square = dict(BOX, size=[2, 2])
    straight, camera = _draw(build_world(_level([square])))
    turned, _ = _draw(build_world(_level([dict(square, angle=np.pi / 2)])))
    (x0, y1), (x1, y0) = np.rint(camera.world_to_screen([(9, 4), (11, 6)])).astype(int)
    a, b = _pixels(straight)[y0:y1, x0:x1], _pixels(turned)[y0:y1, x0:x1]
    assert not np.array_equal(a, b)
    assert _is(GREEN)(a).sum() == pytest.approx(_is(GREEN)(b).sum(), rel=0.05), "the same square, only its mark turned"


def test_colours_come_from_the_definition_else_the_theme_by_index():
    world = build_world(_level([BOX, {"shape": "box", "center": [20, 5], "size": [1, 1]},
                                {"shape": "polygon", "points": [[3, 3], [5, 3], [4, 5]]}]))
    assert body_colour(world.bodies, 0) == GREEN
    assert body_colour(world.bodies, 1) == theme.BODY_PALETTE[1]
    assert body_colour(world.bodies, 2) == theme.BODY_PALETTE[2]
    assert parse_colour("#ff8000") == (255, 128, 0) and parse_colour([1, 2, 300]) == (1, 2, 255)
    assert parse_colour("red") is None and parse_colour(None) is None
    surface, camera = _draw(world)
    assert _at(surface, camera, (4.3, 3.6)) == theme.BODY_PALETTE[2]   # the triangle, off its mark


def test_rounded_outline_of_a_square_grows_by_the_radius_and_keeps_the_corners_rounded():
    corners = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float)
    normals = np.array([[0, -1], [1, 0], [0, 1], [-1, 0]], float)
    outline = rounded_outline(corners, normals, 0.25, 100.0)
    assert outline[:, 0].min() == pytest.approx(-0.25) and outline[:, 1].max() == pytest.approx(1.25)
    nearest = np.min(np.hypot(*(outline[:, None, :] - corners[None]).transpose(2, 0, 1)), axis=1)
    assert np.allclose(nearest, 0.25), "every point lies on the rounding about its corner"
    assert rounded_outline(corners, normals, 0.001, 100.0) is corners, "below a pixel: sharp corners"


def test_a_pin_draws_at_the_anchor_and_a_grab_as_a_line_to_the_cursor():
    level = _level([PLANK], joints=[{"kind": "rod", "a": {"body": 0}, "b": [21, 5], "length": 0}])
    world = build_world(level)
    surface, camera = _draw(world)
    assert _at(surface, camera, (21 + 3 / camera.scale, 5)) == theme.PIN
    handle = bodies_module.grab(world, 0, (23.0, 5.0))
    bodies_module.move_grab(world, handle, (23.0, 10.0))
    surface, camera = _draw(world)
    assert _at(surface, camera, (23.0, 8.0)) == theme.SPRING_GRAB
    bodies_module.release(world, handle)
    surface, camera = _draw(world)
    assert _at(surface, camera, (23.0, 8.0)) != theme.SPRING_GRAB


def _resting_box():
    # On a shelf well above the bottom edge, where the debug layers' solver line is drawn.
    world = build_world(_level([dict(BOX, center=[10, 5.99])], gravity=(0.0, -9.81),
                               segments=[{"a": [2, 5], "b": [30, 5]}]))
    for _ in range(10):
        world.step(1 / 60)
    assert len(world.bodies.manifold_points) >= 2, "the box stands on the floor on two points"
    return world


def test_the_debug_layer_draws_the_manifold_points_and_the_frames():
    world = _resting_box()
    before = world.state_hash()
    plain, camera = _draw(world)
    debug, _ = _draw(world, debug=("contacts",))
    for point in world.bodies.manifold_points:
        assert _at(debug, camera, point) == theme.CONTACT
        assert _at(plain, camera, point) != theme.CONTACT
    normal_tip = world.bodies.manifold_points[0] + world.bodies.manifold_normals[0] * 10 / camera.scale
    assert _at(debug, camera, normal_tip) == theme.BODY_NORMAL
    centre = world.bodies.pos[0]
    assert _at(debug, camera, centre + (10 / camera.scale, 0)) == theme.FRAME_X     # the frame's x arm
    assert _at(plain, camera, centre + (10 / camera.scale, 0)) != theme.FRAME_X
    assert world.state_hash() == before, "drawing never writes the world"


def test_a_sleeping_body_is_marked_in_the_debug_layer_as_sleeping_balls_are():
    world = build_world(_level([BOX]))
    world.bodies.asleep[:] = True
    debug, camera = _draw(world, debug=("velocities",))
    assert _at(debug, camera, world.bodies.pos[0]) == theme.SLEEPING
    world.bodies.asleep[:] = False
    debug, _ = _draw(world, debug=("velocities",))
    assert _at(debug, camera, world.bodies.pos[0]) != theme.SLEEPING


def test_a_level_with_bodies_draws_and_thumbnails_show_them():
    from game.modes.menu import thumbnail
    image, name, _ = thumbnail(os.path.join(ROOT, "levels", "42_box_pyramid.json"))
    assert name == "Box pyramid"
    blue = np.all(np.abs(_pixels(image).astype(int) - parse_colour("#6e8ec4")) <= 2, axis=-1)
    assert blue.sum() > 20, "the pyramid's bottom row shows in the thumbnail"


def test_a_body_landing_is_heard_with_the_balls_impacts():
    world = build_world(_level([dict(BOX, center=[10, 4])], gravity=(0.0, -9.81),
                               balls=[{"pos": [20, 1.0], "radius": 0.4, "vel": [0, -3]}]))
    heard = []
    for _ in range(90):
        world.step(1 / 60)
        points, speeds = world_impacts(world)
        assert len(points) == len(speeds) == len(world.impact_speeds) + len(world.bodies.impact_speeds)
        heard.extend(points[pick(speeds)].tolist())
    assert any(abs(x - 10) < 2 for x, _ in heard), "the box's landing is picked to play"
    assert any(abs(x - 20) < 1 for x, _ in heard), "and the ball's, as before"
