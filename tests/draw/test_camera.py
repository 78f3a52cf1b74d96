"""The camera: world metres (y up) to screen pixels and back, fitting, zoom and pan."""
import numpy as np
import pytest

from game.draw.camera import Camera


@pytest.mark.parametrize("scale,center", [(40.0, (16, 9)), (7.3, (-120.5, 33.3)), (1234.5, (0.01, -0.02))])
def test_camera_round_trip_world_screen_world_is_exact_within_a_pixel(scale, center):
    cam = Camera((1280, 720), center, scale)
    pts = np.random.default_rng(0).uniform(-50, 50, (1000, 2)) + center
    back = cam.screen_to_world(cam.world_to_screen(pts))
    assert np.max(np.abs(back - pts)) * scale < 1e-6        # far inside a pixel
    screen = np.array([[0, 0], [1279, 719], [640.5, 360.25]])
    assert np.allclose(cam.world_to_screen(cam.screen_to_world(screen)), screen, atol=1e-6)


def test_camera_flips_y_and_fits_the_bounds():
    cam = Camera((1280, 720))
    cam.fit((0, 0, 32, 18))
    (x0, y0), (x1, y1) = cam.world_to_screen([(0, 0), (32, 18)])
    assert x0 < x1 and y0 > y1                          # y up in the world, down on screen
    assert 0 <= x0 and x1 <= 1280 and 0 <= y1 and y0 <= 720
    lo, hi = cam.visible_rect()[:2], cam.visible_rect()[2:]
    assert lo[0] <= 0 and lo[1] <= 0 and hi[0] >= 32 and hi[1] >= 18


def test_fitting_below_a_hud_bar_keeps_the_level_out_from_under_it():
    cam = Camera((1280, 720))
    cam.fit((0, 0, 32, 18), inset=(76, 24))
    (x0, y0), (x1, y1) = cam.world_to_screen([(0, 0), (32, 18)])
    assert y1 >= 76 and y0 <= 720 - 24 and 0 <= x0 and x1 <= 1280
    assert (y0 + y1) / 2 == pytest.approx(76 + (720 - 76 - 24) / 2)


def test_fitting_beside_a_panel_at_the_right_keeps_the_level_left_of_it():
    cam = Camera((1280, 720))
    cam.fit((0, 0, 32, 18), inset=(76, 24, 440))
    (x0, y0), (x1, y1) = cam.world_to_screen([(0, 0), (32, 18)])
    assert 0 <= x0 and x1 <= 1280 - 440 and y1 >= 76 and y0 <= 720 - 24
    assert (x0 + x1) / 2 == pytest.approx((1280 - 440) / 2)
    assert x1 - x0 == pytest.approx((1280 - 440) * (1 - 2 * 0.04))    # width-bound: fills the room


def test_zoom_keeps_the_point_under_the_cursor_and_pan_follows_the_mouse():
    cam = Camera((800, 600), (5, 5), 30)
    cursor = (123, 456)
    before = cam.screen_to_world(cursor)
    cam.zoom_at(cursor, 1.7)
    assert cam.scale == pytest.approx(51)
    assert np.allclose(cam.screen_to_world(cursor), before)
    p = cam.world_to_screen((7, 3))
    cam.pan(10, -20)
    assert np.allclose(cam.world_to_screen((7, 3)), p + (10, -20))
