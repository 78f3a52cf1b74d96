"""The renderer, headless (SDL dummy drivers): it draws what the world holds and never writes it."""
import numpy as np
import pygame
import pytest

from scenes import build_world
from game.draw import plot, theme
from game.draw import renderer as render
from game.draw.camera import Camera
from game.draw.debug import DEBUG_LAYERS
from game.draw.renderer import PALETTE, Renderer, Trails, ball_colour
from game.physics.world import World

BOX = {
    "name": "Box",
    "bounds": [0, 0, 32, 18],
    "gravity": [0, -9.81],
    "polylines": [{"points": [[0, 18], [0, 0], [32, 0], [32, 18]]}],
    "segments": [{"a": [4, 8], "b": [12, 6], "radius": 0.3}, {"a": [20, 9], "b": [20, 9], "radius": 0.6}],
    "polygons": [{"points": [[14, 3], [18, 3], [16, 6]]}],
    "zones": [{"kind": "goal", "rect": [[24, 0], [31, 3]], "count": 5},
              {"kind": "kill", "circle": {"center": [2, 2], "radius": 1}},
              {"kind": "attractor", "ellipse": {"center": [26, 12], "radii": [3, 2]}},
              {"kind": "goal", "polygon": [[8, 12], [10, 12], [9, 14]]}],
}


@pytest.fixture(scope="module", autouse=True)
def _pygame():
    pygame.font.init()
    yield


def _world(balls=(), **extra):
    doc = dict(BOX, balls=[{"pos": list(p), "radius": 0.4} for p in balls], **extra)
    return build_world(doc)


def _pit(n, seed=1):
    rng = np.random.default_rng(seed)
    return _world(rng.uniform((1, 1), (31, 17), (n, 2)).tolist())


# ---- renderer -------------------------------------------------------------------------------
def test_balls_are_drawn_in_their_colour_where_they_are():
    world = _world([(6, 14), (10, 15), (22, 13), (28, 10)])
    cam = Camera((1280, 720))
    cam.fit(world.bounds)
    surface = pygame.Surface((1280, 720))
    Renderer().draw(surface, world, cam)
    for k in range(world.count):
        # Left of the centre: the spin mark (angle 0) runs from the centre to the right.
        x, y = np.rint(cam.world_to_screen(world.pos[k] - (0.5 * world.radius[k], 0.0))).astype(int)
        got = surface.get_at((int(x), int(y)))[:3]
        assert np.abs(np.subtract(got, ball_colour(world.ids[k]))).max() <= 12, (k, got)
    # Between the balls: the level's background, not a ball colour.
    x, y = np.rint(cam.world_to_screen((16, 12))).astype(int)
    assert tuple(surface.get_at((int(x), int(y)))[:3]) not in PALETTE


def test_render_reads_the_world_and_never_writes_it():
    world = _pit(200)
    for _ in range(3):
        world.step(1 / 60)
    world.add_spring(0, 1, 40.0, 0.1)
    arrays = {name: np.array(getattr(world, name), copy=True)
              for name in ("pos", "vel", "radius", "inv_mass", "ids")}
    before = world.state_hash()
    trails = Trails()
    trails.record(world)
    trails.record(world)
    cam = Camera((640, 360))
    cam.fit(world.bounds)
    Renderer().draw(pygame.Surface((640, 360)), world, cam, debug=DEBUG_LAYERS, trails=trails)
    assert world.state_hash() == before
    for name, value in arrays.items():
        assert np.array_equal(getattr(world, name), value)


def test_a_grab_draws_as_a_line_to_its_point_and_its_springs_do_not_show():
    world = _world([(8, 14)], gravity=[0, 0], zones=[])
    cam = Camera((640, 360))
    cam.fit(world.bounds)
    handle = world.grab(0, (8, 10))
    surface = pygame.Surface((640, 360))
    Renderer().draw(surface, world, cam)
    mid = tuple(np.rint(cam.world_to_screen((8, 12))).astype(int))
    lever = tuple(np.rint(cam.world_to_screen((8, 14)) + (60, 0)).astype(int))  # on a grab spring
    assert tuple(surface.get_at(mid)[:3]) == render.SPRING_GRAB
    grabbed_lever = surface.get_at(lever)
    world.release(handle)
    Renderer().draw(surface, world, cam)
    assert tuple(surface.get_at(mid)[:3]) != render.SPRING_GRAB
    assert surface.get_at(lever) == grabbed_lever          # the springs never showed there
    world.add_spring(0, (1008.0, 14.0))                    # a plain spring along that line does
    Renderer().draw(surface, world, cam)
    assert surface.get_at(lever) != grabbed_lever


def test_static_layer_is_cached_until_the_camera_or_level_changes():
    world = _pit(10)
    cam = Camera((640, 360))
    cam.fit(world.bounds)
    r = Renderer()
    surface = pygame.Surface((640, 360))
    r.draw(surface, world, cam)
    layer = r._static
    r.draw(surface, world, cam)
    assert r._static is layer
    cam.pan(5, 0)
    r.draw(surface, world, cam)
    assert r._static is not layer
    layer = r._static
    r.invalidate()
    r.draw(surface, world, cam)
    assert r._static is not layer


def test_sprites_are_cached_per_colour_and_pixel_radius():
    world = _pit(300)
    cam = Camera((1280, 720))
    cam.fit(world.bounds)
    r = Renderer()
    r.draw(pygame.Surface((1280, 720)), world, cam)
    assert len(r._sprites) == len(PALETTE)              # one radius, every colour
    sprites = dict(r._sprites)
    r.draw(pygame.Surface((1280, 720)), world, cam)
    assert all(r._sprites[k] is s for k, s in sprites.items())


def test_a_frame_with_a_thousand_balls_draws_every_ball():
    """Its cost is measured by benchmarks/bench_frame.py; here, that every ball is there."""
    world = _pit(1000)
    cam = Camera((1280, 720))
    cam.fit(world.bounds)
    surface = pygame.Surface((1280, 720))
    Renderer().draw(surface, world, cam)
    pixels = pygame.surfarray.array3d(surface)
    x, y = np.round(cam.world_to_screen(world.pos)).astype(int).T
    centre = pixels[x, y]
    assert np.all(np.any(centre != render.LEVEL_FILL, axis=1))     # no ball centre shows the floor


def test_offscreen_nan_and_huge_balls_do_not_break_a_frame():
    world = _world([(5, 5), (500, 500), (16, 9)])
    world.pos[0] = np.nan                # a world that blew up must still draw
    cam = Camera((320, 200), (16, 9), 2000)        # one ball fills the screen
    Renderer().draw(pygame.Surface((320, 200)), world, cam, debug=DEBUG_LAYERS)


def test_a_deep_zoom_on_a_huge_level_draws_its_clipped_shapes():
    # At the closest zoom, these shapes span billions of pixels: they must be clipped first.
    world = build_world({
        "bounds": [-1e5, -1e5, 1e5, 1e5],
        "segments": [{"a": [-1e5, 0], "b": [1e5, 0], "radius": 0.5}, {"a": [-9e4, 3], "b": [9e4, 3]}],
        "polygons": [{"points": [[-1e5, -1e5], [1e5, -1e5], [0, -1]]}],
        "zones": [{"kind": "goal", "circle": {"center": [0, 0], "radius": 5e4}}],
        "balls": [{"pos": [0, 1], "radius": 0.5}],
    })
    cam = Camera((640, 360), (0.0, 0.0), 2000.0)
    surface = pygame.Surface((640, 360))
    Renderer().draw(surface, world, cam, debug=DEBUG_LAYERS)   # unclipped, this took seconds
    x, y = cam.world_to_screen((0.0, 0.0)).astype(int)
    assert surface.get_at((int(x), int(y)))[:3] == theme.CAPSULE_FILL   # the stadium fills its band


def test_clipping_keeps_what_is_on_screen_and_marks_cut_ends():
    a = np.array([[-100.0, 50.0], [10.0, 10.0], [-50.0, -50.0]])
    b = np.array([[300.0, 50.0], [20.0, 20.0], [-40.0, -60.0]])
    a2, b2, a_kept, b_kept, shown = plot.clip_segments(a, b, (200, 100), 0.0)
    assert shown.tolist() == [True, True, False]
    assert np.allclose(a2[0], (0, 50)) and np.allclose(b2[0], (200, 50))
    assert a_kept.tolist()[:2] == [False, True] and b_kept.tolist()[:2] == [False, True]
    square = plot.clip_convex([(-50, -50), (250, -50), (250, 150), (-50, 150)], (200, 100), pad=0)
    assert sorted(square) == sorted([(0, 0), (200, 0), (200, 100), (0, 100)])


def test_debug_layers_draw_contacts_swept_paths_and_the_grid():
    world = _world([(16, 1.0), (16.7, 1.0), (5, 15)])
    world.vel[2] = (0, -400)           # fast: swept against the floor
    for _ in range(2):
        world.step(1 / 60)
    cam = Camera((640, 360))
    cam.fit(world.bounds)
    plain = pygame.Surface((640, 360))
    debug = pygame.Surface((640, 360))
    r = Renderer()
    r.draw(plain, world, cam)
    r.draw(debug, world, cam, debug=DEBUG_LAYERS)
    assert pygame.image.tobytes(plain, "RGB") != pygame.image.tobytes(debug, "RGB")


def test_the_broad_phase_layer_tints_the_cells_that_hold_balls():
    world = _world([(16.2, 9.3)])
    cam = Camera((640, 360), world.pos[0], 100.0)        # zoomed in: a cell is 80 px
    plain, grid = pygame.Surface((640, 360)), pygame.Surface((640, 360))
    r = Renderer()
    r.draw(plain, world, cam)
    r.draw(grid, world, cam, debug=("grid",))
    cell, origin = world.grid_cell, np.asarray(world.grid_origin)
    lo = origin + np.floor((world.pos[0] - origin) / cell) * cell      # the ball's cell
    corners = lo + cell * np.array([(0, 0), (1, 0), (0, 1), (1, 1)])
    far = corners[np.argmax(np.linalg.norm(corners - world.pos[0], axis=1))]
    inside = cam.world_to_screen(world.pos[0] + 0.8 * (far - world.pos[0])).astype(int)   # off the ball
    empty = cam.world_to_screen(lo + cell * np.array((-1.5, 0.5))).astype(int)          # a cell to the left
    assert plain.get_at(tuple(inside)) != grid.get_at(tuple(inside))
    assert plain.get_at(tuple(empty)) == grid.get_at(tuple(empty))


def test_plot_segments_draws_many_lines_in_one_call_and_skips_bad_ones():
    surface = pygame.Surface((100, 60))
    start = np.array([[10, 10], [10, 40], [np.nan, 5], [-500, -500]])
    end = np.array([[90, 10], [10, 55], [50, 5], [-400, -450]])
    plot.plot_segments(surface, start, end, np.array([(255, 0, 0), (0, 255, 0), (0, 0, 255), (9, 9, 9)]))
    assert surface.get_at((50, 10))[:3] == (255, 0, 0)
    assert surface.get_at((10, 50))[:3] == (0, 255, 0)
    assert surface.get_at((30, 5))[:3] == (0, 0, 0)           # the nan line is not drawn


def test_trails_follow_balls_by_id_across_removals():
    world = _world([(5, 15), (10, 15), (15, 15)])
    trails = Trails(length=5)
    for _ in range(4):
        world.step(1 / 60)
        trails.record(world)
    kept_id = world.ids[2]
    world.remove_balls([0])
    paths = trails.paths(world.ids)
    assert paths.shape == (4, 2, 2)
    assert np.isfinite(paths).all()
    assert paths[-1, 1, 0] == pytest.approx(15)          # ball id 2 stayed at x = 15
    assert world.ids[1] == kept_id
    new = world.add_ball((20, 10))
    assert np.isnan(trails.paths(world.ids)[:, new]).all()


def _balls_blitted_one_by_one(surface, world, cam):
    """The oracle for draw_balls: every finite ball's sprite blitted alone, in the world's order."""
    for k in range(world.count):
        centre = cam.world_to_screen(world.pos[k])
        if not np.isfinite(centre).all():
            continue
        r = max(1, int(np.rint(world.radius[k] * cam.scale)))
        mark = None
        if r >= render.SPIN_MARK_MIN_RADIUS:      # the angle, to the nearest of the mark's steps
            step = 2.0 * np.pi / render.SPIN_MARK_STEPS
            mark = (int(np.rint(world.angle[k] % (2.0 * np.pi) / step)) % render.SPIN_MARK_STEPS) * step
        sprite = render.make_ball_sprite(ball_colour(world.ids[k]), r, mark)
        x, y = np.rint(centre).astype(int)
        surface.blit(sprite, (int(x) - r - 1, int(y) - r - 1))


@pytest.mark.parametrize("stamper", [False, True])
def test_batched_balls_draw_the_same_pixels_as_blitting_each_ball_alone(stamper, monkeypatch):
    """Overlapping balls of several sizes, some cut by the screen's edge, one off screen and
    three non-finite (skipped): the batched draw (fblits, or the compiled stamper) is bit
    for bit the one-ball-at-a-time draw."""
    from game.draw import sprites as render_kernels
    monkeypatch.setattr(render_kernels, "stamp", render_kernels.load() if stamper else None)
    assert (render_kernels.stamp is not None) == stamper
    rng = np.random.default_rng(7)
    world = _world(rng.uniform((-1, -1), (33, 19), (400, 2)).tolist() + [(500, 500), (16, 9), (8, 9), (9, 9)])
    world.radius[:] = rng.uniform(0.05, 0.9, world.count)
    world.pos[-1] = np.nan
    world.pos[-2] = (np.inf, 5.0)
    world.pos[-3] = (4.0, -np.inf)
    cam = Camera((640, 360))
    cam.fit(world.bounds)
    fast, slow = pygame.Surface((640, 360)), pygame.Surface((640, 360))
    r = Renderer()
    r.draw_static(fast, world, cam)
    r.draw_static(slow, world, cam)
    r.draw_balls(fast, world, cam)
    _balls_blitted_one_by_one(slow, world, cam)
    assert np.array_equal(pygame.surfarray.array3d(fast), pygame.surfarray.array3d(slow))


def test_the_compiled_stamper_draws_the_same_bits_as_the_blits(monkeypatch):
    """Many overlapping balls of many sizes and colours, cut by every edge: the numba
    stamper (game.render_kernels) and Surface.fblits leave the same pixels."""
    from game.draw import sprites as render_kernels
    stamp = render_kernels.load()
    assert stamp is not None                     # numba is a dependency: it must serve
    rng = np.random.default_rng(11)
    world = _world(rng.uniform((-1, -1), (33, 19), (3000, 2)).tolist())
    world.radius[:] = rng.uniform(0.02, 1.2, world.count)
    world.pos[5] = np.nan
    cam = Camera((640, 360))
    cam.fit(world.bounds)
    drawn = []
    for kernel in (None, stamp):
        monkeypatch.setattr(render_kernels, "stamp", kernel)
        surface = pygame.Surface((640, 360))
        r = Renderer()
        r.draw_static(surface, world, cam)
        r.draw_balls(surface, world, cam)
        r.draw_balls(surface, world, cam)        # again: from the cached atlas
        drawn.append(pygame.surfarray.array3d(surface))
    assert np.array_equal(drawn[0], drawn[1])
    assert (drawn[1] != render.LEVEL_FILL).any(axis=2).mean() > 0.3      # balls were drawn at all


def test_the_stamper_serves_plain_surfaces_and_leaves_the_others_to_the_blits(monkeypatch):
    from game.draw import sprites as render_kernels
    assert render_kernels.load() is not None
    world = _pit(50)
    cam = Camera((320, 180))
    cam.fit(world.bounds)
    calls = []
    kernel = render_kernels.stamp
    monkeypatch.setattr(render_kernels, "stamp", lambda *a: (calls.append(1), kernel(*a)))
    Renderer().draw_balls(pygame.Surface((320, 180)), world, cam)
    assert calls == [1]
    parent = pygame.Surface((400, 300))
    Renderer().draw_balls(parent.subsurface((10, 10, 320, 180)), world, cam)      # strided pixels
    Renderer().draw_balls(pygame.Surface((320, 180), pygame.SRCALPHA), world, cam)
    Renderer().draw_balls(pygame.Surface((320, 180), 0, 24), world, cam)
    assert calls == [1]


def _marked_world(angles, radius=0.5):
    world = _world([(6 + 4 * k, 9) for k in range(len(angles))], gravity=[0, 0], zones=[])
    world.radius[:] = radius
    world.angle = np.asarray(angles, float)        # as the rotating solver will hold it
    return world


def test_a_big_ball_shows_its_angle_as_a_mark_that_turns_with_it():
    angles = [0.0, np.pi / 2, np.pi, -np.pi / 2]
    world = _marked_world(angles)
    cam = Camera((1280, 720))
    cam.fit(world.bounds)
    radius_px = world.radius[0] * cam.scale
    assert radius_px >= render.SPIN_MARK_MIN_RADIUS
    surface = pygame.Surface((1280, 720))
    Renderer().draw(surface, world, cam)
    dark = [np.array(plot.shade(ball_colour(i), 0.45)) for i in world.ids]
    for k, a in enumerate(angles):
        centre = cam.world_to_screen(world.pos[k])
        u = np.array((np.cos(a), -np.sin(a)))                    # screen y points down
        on = np.rint(centre + 0.6 * radius_px * u).astype(int)
        off = np.rint(centre - 0.6 * radius_px * u).astype(int)
        assert np.abs(np.subtract(surface.get_at(on.tolist())[:3], dark[k])).max() <= 2, (k, a)
        assert np.abs(np.subtract(surface.get_at(off.tolist())[:3], dark[k])).max() > 30, (k, a)
        mid = np.rint(centre).astype(int)
        assert np.abs(np.subtract(surface.get_at(mid.tolist())[:3], ball_colour(world.ids[k]))).max() <= 12


def test_small_balls_carry_no_mark_and_share_one_sprite_whatever_their_angle():
    world = _marked_world(np.linspace(0, 6, 5), radius=0.05)
    cam = Camera((1280, 720))
    cam.fit(world.bounds)
    assert world.radius[0] * cam.scale < render.SPIN_MARK_MIN_RADIUS
    r = Renderer()
    marked = pygame.Surface((1280, 720))
    r.draw(marked, world, cam)
    assert all(render.split_sprite_key(k)[2] is None for k in r._sprites)
    del world.angle
    plain = pygame.Surface((1280, 720))
    Renderer().draw(plain, world, cam)
    assert np.array_equal(pygame.surfarray.array3d(marked), pygame.surfarray.array3d(plain))


def test_sprite_keys_round_trip_and_the_mark_steps_cover_the_turn():
    for colour in (0, len(PALETTE) - 1):
        for radius in (1, 6, render.MAX_SPRITE_RADIUS):
            for mark in (0, 1, render.SPIN_MARK_STEPS):
                c, r, angle = render.split_sprite_key(render.sprite_key(colour, radius, mark))
                assert (c, r) == (colour, radius)
                assert angle is None if mark == 0 else np.isclose(angle, (mark - 1) * 2 * np.pi / render.SPIN_MARK_STEPS)


def test_the_stamper_and_the_blits_agree_on_marked_balls(monkeypatch):
    from game.draw import sprites as render_kernels
    stamp = render_kernels.load()
    assert stamp is not None
    rng = np.random.default_rng(3)
    world = _marked_world(rng.uniform(-50, 50, 40), radius=0.5)
    world.angle[3] = np.nan
    world.angle[4] = 1e300                       # a spin that ran away: still one of the steps
    cam = Camera((640, 360))
    cam.fit(world.bounds)
    drawn = []
    for kernel in (None, stamp):
        monkeypatch.setattr(render_kernels, "stamp", kernel)
        surface = pygame.Surface((640, 360))
        Renderer().draw(surface, world, cam)
        drawn.append(pygame.surfarray.array3d(surface))
    assert np.array_equal(drawn[0], drawn[1])


def test_a_frame_of_only_huge_balls_draws_with_the_stamper_loaded():
    from game.draw import sprites as render_kernels
    assert render_kernels.load() is not None
    world = _world([(16, 9)])
    cam = Camera((320, 200), (16, 9), 2000)        # the one ball is bigger than any sprite
    surface = pygame.Surface((320, 200))
    Renderer().draw(surface, world, cam)
    assert surface.get_at((160, 100))[:3] == ball_colour(world.ids[0])


def test_debug_layers_show_the_solver_options():
    from game.physics.world import World
    w = build_world({"segments": [{"a": [0, 0], "b": [10, 0]}], "bounds": [0, 0, 10, 10]})
    surface = pygame.Surface((800, 400))
    camera = Camera(size=surface.get_size(), center=(5.0, 5.0), scale=30.0)
    plain, debug = surface.copy(), surface.copy()
    Renderer().draw(plain, w, camera)
    Renderer().draw(debug, w, camera, debug=("contacts",))
    corner = pygame.Rect(400, 300, 400, 100)
    assert pygame.image.tobytes(plain.subsurface(corner), "RGB") != pygame.image.tobytes(debug.subsurface(corner), "RGB")
    assert "iterations" in w.solver.options.describe()


def test_the_solver_options_line_ends_left_of_the_energy_plot():
    """With the energy plot shown (its column at the right), the debug layers' line of solver
    options ends left of the column instead of running under it; without, at the right edge."""
    from game.draw.hud import energy_plot_rect
    from game.draw.theme import HINT_HEIGHT
    w = build_world({"segments": [{"a": [0, 0], "b": [10, 0]}], "bounds": [0, 0, 10, 10]})
    surface = pygame.Surface((1280, 720))
    camera = Camera(size=surface.get_size(), center=(5.0, 5.0), scale=30.0)
    right = energy_plot_rect(surface.get_size(), HINT_HEIGHT).left - 10
    row = pygame.Rect(0, 720 - 60, 1280, 30)          # the line's row, above the hint bar
    plain, under, beside = surface.copy(), surface.copy(), surface.copy()
    Renderer().draw(plain, w, camera)
    Renderer().draw(under, w, camera, debug=("contacts",))
    Renderer().draw(beside, w, camera, debug=("contacts",), text_right=right)

    def changed_columns(image):
        a = pygame.surfarray.array3d(plain.subsurface(row))
        b = pygame.surfarray.array3d(image.subsurface(row))
        return np.flatnonzero(np.any(a != b, axis=(1, 2)))

    assert changed_columns(under).max() > right            # it would run under the plot
    columns = changed_columns(beside)
    assert len(columns) and columns.max() <= right


def test_a_non_convex_polygon_is_drawn_without_seams_between_its_pieces():
    """Issue 27, bug 3: the loader cuts an M shape into convex pieces; the cuts are inside
    the polygon and must not be drawn. Along every cut the pixels are the polygon's fill;
    along its outline they are its edge."""
    corners = [(2, 2), (8, 2), (8, 8), (5, 3), (2, 8)]
    w = build_world({"segments": [{"a": [0, 0], "b": [10, 0]}], "bounds": [0, 0, 10, 10],
                     "polygons": [{"points": [list(p) for p in corners]}]})
    assert len(w.polygons) > 1
    shared = render.shared_edges(w.statics)
    assert shared.sum() >= 2                                  # each cut, once from each side
    surface = pygame.Surface((400, 400))
    camera = Camera(size=(400, 400), center=(5.0, 5.0), scale=40.0)
    Renderer().draw(surface, w, camera)
    pixels = pygame.surfarray.array3d(surface)
    for a, b in zip(w.statics.a[shared], w.statics.b[shared]):
        for t in np.linspace(0.2, 0.8, 7):
            x, y = np.rint(camera.world_to_screen(a + t * (b - a))).astype(int)
            assert tuple(pixels[x, y]) == render.POLYGON_FILL, (a, b, t)
    outline = (np.asarray(w.statics.polygon) >= 0) & ~shared
    a, b = w.statics.a[outline][0], w.statics.b[outline][0]
    x, y = np.rint(camera.world_to_screen((a + b) / 2)).astype(int)
    near = pixels[x - 1:x + 2, y - 1:y + 2].reshape(-1, 3)
    assert not np.all(near == render.POLYGON_FILL)            # the outside edge is drawn


def test_one_renderer_over_many_frames_of_turning_balls_and_zooms_stamps_what_the_blits_draw(monkeypatch):
    """The stamper's atlas holds every cached sprite and grows as spin marks and zooms make new
    ones (it starts again when the cache is emptied): frame after frame, one Renderer with the
    stamper draws what a Renderer blitting each frame draws."""
    from game.draw import sprites as render_kernels
    stamp = render_kernels.load()
    assert stamp is not None
    monkeypatch.setattr(render, "SPRITE_CACHE_LIMIT", 120)      # so the cache empties on the way
    rng = np.random.default_rng(5)
    world = _marked_world(rng.uniform(-50, 50, 60), radius=0.5)
    stamped, blitted = Renderer(), Renderer()
    for frame in range(12):
        world.angle += rng.uniform(0.1, 0.9, len(world.angle))
        cam = Camera((640, 360))
        cam.fit(world.bounds)
        cam.scale *= 1.0 + 0.15 * (frame % 5)
        drawn = []
        for kernel, renderer in ((stamp, stamped), (None, blitted)):
            monkeypatch.setattr(render_kernels, "stamp", kernel)
            surface = pygame.Surface((640, 360))
            renderer.draw(surface, world, cam)
            drawn.append(pygame.surfarray.array3d(surface))
        assert np.array_equal(drawn[0], drawn[1]), frame
    assert len(stamped._atlas_order) == len(stamped._sprites)
