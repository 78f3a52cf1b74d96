"""Walls that move or act are drawn where they are each frame (issue 25): a rotor's arm where it
has turned to (the cached layer keeps only the still walls), a conveyor's chevrons running at
its surface speed the way it runs, a bumper that glows when it kicks, and the debug layer's
arrows of a wall's velocity at its contacts."""
import math

import numpy as np
import pygame
import pytest

from scenes import build_world
from game.draw import walls
from game.draw.camera import Camera
from game.draw.renderer import Renderer
from game.draw.theme import BUMPER, BUMPER_FLASH, CONVEYOR, FLIPPER, MOVING_WALL, WALL_VELOCITY
from game.draw.plot import shade

BOX = {"points": [[0, 10], [0, 0], [20, 0], [20, 10]]}


@pytest.fixture(scope="module", autouse=True)
def _pygame():
    pygame.font.init()
    yield


def frame(world, camera, renderer=None, debug=()):
    surface = pygame.Surface(camera.size)
    (renderer or Renderer()).draw(surface, world, camera, debug=debug)
    return surface


def colour_at(surface, camera, point):
    x, y = np.rint(camera.world_to_screen(np.asarray(point, float))).astype(int)
    return tuple(surface.get_at((int(x), int(y)))[:3])


def test_a_rotor_is_drawn_where_it_has_turned_to_with_one_renderer_over_many_frames():
    world = build_world({"bounds": [0, 0, 20, 10], "polylines": [BOX],
                         "segments": [{"a": [10, 5], "b": [13, 5], "radius": 0.3,
                                       "motion": {"kind": "rotate", "pivot": [10, 5], "speed": math.pi / 2}}]})
    camera = Camera((800, 400), (10, 5), 40.0)
    renderer = Renderer()
    fill = shade(MOVING_WALL, 0.7)
    assert colour_at(frame(world, camera, renderer), camera, (12, 5)) == fill
    for _ in range(60):                          # 1 s at pi/2 rad/s: the arm points up
        world.step(1 / 60)
    turned = frame(world, camera, renderer)      # the same renderer: its cached layer is not stale
    assert colour_at(turned, camera, (10, 7)) == fill
    assert colour_at(turned, camera, (12, 5)) != fill, "nothing left where the arm was"


def test_a_conveyors_chevrons_run_its_way_at_its_speed():
    """Chevrons point along a -> b for a positive speed and the pattern moves speed x t along
    the belt: the frame at t matches the frame at 0 shifted by that many pixels."""
    speed = 1.5
    world = build_world({"bounds": [0, 0, 20, 10], "polylines": [BOX],
                         "segments": [{"a": [2, 3], "b": [18, 3], "radius": 0.3, "surface_speed": speed}]})
    camera = Camera((800, 400), (10, 5), 40.0)
    y = int(np.rint(camera.world_to_screen(np.array([0.0, 3.3 - 0.08]))[1]))   # the row of the top face's chevrons

    def row():
        pixels = pygame.surfarray.array3d(frame(world, camera))[:, y]
        return np.all(pixels == CONVEYOR, axis=1)

    first = row()
    assert first.sum() > 10, "chevrons on the belt"
    for _ in range(6):
        world.step(1 / 60)                       # 0.1 s: 0.15 m, 6 px at 40 px/m
    later = row()
    shift = speed * world.time * camera.scale
    x0, x1 = [int(v) for v in camera.world_to_screen(np.array([[4.0, 3.0], [16.0, 3.0]]))[:, 0]]
    moved = np.roll(first, int(round(shift)))
    assert np.mean(later[x0:x1] == moved[x0:x1]) > 0.97
    assert np.mean(later[x0:x1] == first[x0:x1]) < 0.9, "they moved"


def test_a_bumper_glows_after_it_kicks_and_flippers_are_drawn_as_flippers():
    world = build_world({"bounds": [0, 0, 20, 10], "polylines": [BOX],
                         "segments": [{"a": [10, 4], "b": [10, 4], "radius": 0.6, "kick": 6},
                                      {"a": [4, 1], "b": [6, 1], "radius": 0.2,
                                       "motion": {"kind": "flipper", "pivot": [4, 1], "angle": 0.7, "speed": 10,
                                                  "key": "left"}}],
                         "balls": [{"pos": [10.05, 6], "radius": 0.25}]})
    camera = Camera((800, 400), (10, 5), 40.0)
    renderer = Renderer()
    edge = (10.55, 4)                            # on the bumper's ring, off its light core
    assert colour_at(frame(world, camera, renderer), camera, edge) == BUMPER
    assert colour_at(frame(world, camera, renderer), camera, (5, 1)) == FLIPPER
    lit = False
    for _ in range(60):
        kicks = world.kicks
        world.step(1 / 60)
        shown = colour_at(frame(world, camera, renderer), camera, edge)
        if world.kicks > kicks:
            assert shown == BUMPER_FLASH, "the frame after a kick"
            lit = True
    assert lit, "the ball was kicked"
    for _ in range(walls.FLASH_FRAMES + 1):
        shown = colour_at(frame(world, camera, renderer), camera, edge)
    if world.kicks == kicks:
        assert shown == BUMPER, "the glow fades"


def test_the_debug_layer_draws_a_wall_velocity_arrow_at_each_contact_and_none_without():
    world = build_world({"bounds": [0, 0, 20, 10], "polylines": [BOX],
                         "segments": [{"a": [2, 3], "b": [18, 3], "radius": 0.1, "surface_speed": 2.0}],
                         "balls": [{"pos": [10, 3.35], "radius": 0.25}]})
    for _ in range(5):
        world.step(1 / 60)
    index, points = walls.wall_contacts(world)
    assert list(index) == [0]
    # The touch point is on the belt's surface, under the ball.
    assert points[0, 1] == pytest.approx(3.1, abs=1e-9)
    assert points[0, 0] == pytest.approx(world.pos[0, 0], abs=1e-6)
    camera = Camera((800, 400), (10, 5), 40.0)
    debug = pygame.surfarray.array3d(frame(world, camera, debug=("contacts",)))
    plain = pygame.surfarray.array3d(frame(world, camera))
    arrow = np.all(debug == WALL_VELOCITY, axis=2) & ~np.all(plain == WALL_VELOCITY, axis=2)
    xs, ys = np.nonzero(arrow)
    start = camera.world_to_screen(points[0])
    # 2 m/s drawn 0.1 s long: 0.2 m, 8 px to the right of the touch point (the head's strokes too).
    assert xs.min() >= start[0] - 2 and xs.max() == pytest.approx(start[0] + 8, abs=2)
    world.pos[0] += (0, 1.0)                     # lifted off the belt: no contact, no arrow
    assert len(walls.wall_contacts(world)[0]) == 0


def test_the_cached_layer_of_still_walls_serves_the_views_drawn_while_the_world_steps():
    """The two-core loop draws a view of the world (World.view: a copy of the moving statics
    every frame): the still walls' layer is built once, not once a frame."""
    world = build_world({"bounds": [0, 0, 20, 10], "polylines": [BOX],
                         "segments": [{"a": [10, 5], "b": [13, 5], "radius": 0.3,
                                       "motion": {"kind": "rotate", "pivot": [10, 5], "speed": 2.0}}]})
    camera = Camera((400, 200), (10, 5), 20.0)
    renderer = Renderer()
    frame(world.view(), camera, renderer)
    layer = renderer._static
    for _ in range(3):
        world.step(1 / 60)
        view = world.view()
        assert view.statics is not world.statics
        frame(view, camera, renderer)
    assert renderer._static is layer
