"""The game loop driven headless: pygame events injected into App, frames advanced by hand."""
import argparse
import json
import os

import numpy as np
import pygame
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scenes import build_world
from game.app import loop as app_module
from game.app import placing
from game.app.loop import App, TICK
from game.app.clock import MAX_TICKS_PER_FRAME
from game.app.gestures import Fling, SPRAY_DELAY
from game.modes.base import Mode
from game.modes.help import HelpMode
from game.draw.theme import SPOT_TAKEN
from game.modes.play_actions import FLING_GAIN, SPRAY_EVERY
from game.physics import geometry
from game.app.audio import Audio
from game.physics.integrators import ORDER
from game.draw.renderer import ball_colour
from game.physics.world import World
from tests.conftest import COMPILED

FRAME = 1 / 60
SIZE = (800, 450)

LEVEL = {
    "name": "Test box",
    "description": "A closed box with one resting ball.",
    "integrator": "rk4",
    "bounds": [0, 0, 16, 9],
    "polylines": [{"points": [[0, 9], [0, 0], [16, 0], [16, 9]]}],
    "balls": [{"pos": [12, 0.5], "radius": 0.5}],
}


def _write(path, doc):
    path.write_text(json.dumps(doc))
    return path


@pytest.fixture
def level(tmp_path):
    return _write(tmp_path / "a_box.json", LEVEL)


@pytest.fixture
def game(level, tmp_path):
    pygame.font.init()
    g = App(str(level), size=SIZE, level_dir=str(tmp_path), screenshot_dir=str(tmp_path / "shots"),
            compiled=COMPILED)          # as the game runs once its kernels have loaded
    g.clock.budget = float("inf")       # tick counts must not depend on how busy the machine is
    return g


def _post(g, kind, **attrs):
    g.handle_event(pygame.event.Event(kind, **attrs))


def click(g, pos, button=1):
    _post(g, pygame.MOUSEMOTION, pos=pos, rel=(0, 0), buttons=(0, 0, 0))
    _post(g, pygame.MOUSEBUTTONDOWN, pos=pos, button=button)
    _post(g, pygame.MOUSEBUTTONUP, pos=pos, button=button)


def drag(g, start, end, button=1, release=True):
    _post(g, pygame.MOUSEMOTION, pos=start, rel=(0, 0), buttons=(0, 0, 0))
    _post(g, pygame.MOUSEBUTTONDOWN, pos=start, button=button)
    mid = ((start[0] + end[0]) // 2, (start[1] + end[1]) // 2)
    for p in (mid, end):
        _post(g, pygame.MOUSEMOTION, pos=p, rel=(0, 0), buttons=(1, 0, 0))
    if release:
        _post(g, pygame.MOUSEBUTTONUP, pos=end, button=button)


def key(g, k):
    _post(g, pygame.KEYDOWN, key=k, mod=0, unicode="", scancode=0)


def frames(g, n, dt=FRAME):
    return sum(g.update(dt) for _ in range(n))


def reload_frames(g, n=40, timeout=30.0):
    """n frames after a level file was written, waiting (up to ``timeout`` s) for the
    watcher's check that the first frame starts: on a busy machine its thread is slow to
    run, which is not what these tests are about (the watcher's tests time it)."""
    frames(g, 1)
    g.session.watcher.wait(timeout)
    frames(g, n - 1)


# ---- mouse ------------------------------------------------------------------------------------
def test_a_click_spawns_a_ball_at_the_clicked_world_point_within_a_small_seeded_jitter(game):
    """Within placing.jitter_size of the point in x and y (so clicked towers topple as real
    ones would), at rest, and the same ball again after R: the jitter is seeded per run."""
    key(game, pygame.K_SPACE)
    n = game.world.count
    spots = [(200, 150), (300, 150)]
    for spot in spots:
        click(game, spot)
    assert game.world.count == n + 2
    size = placing.jitter_size(game.world.radius[-1])
    assert 0 < size <= 0.1 * game.world.radius[-1]
    first = game.world.pos[-2].copy()
    offsets = [game.world.pos[k - 2] - game.camera.screen_to_world(spot) for k, spot in enumerate(spots)]
    for offset in offsets:
        assert np.all(np.abs(offset) <= size + 1e-12) and np.any(offset != 0)
    assert not np.array_equal(offsets[0], offsets[1])            # not the same offset each time
    assert np.allclose(game.world.vel[-1], 0)
    key(game, pygame.K_r)
    click(game, (200, 150))
    assert np.array_equal(game.world.pos[-1], first)             # runs repeat


def test_balls_clicked_onto_one_another_topple_as_real_ones_would(game):
    """Five balls clicked at one point onto the floor, one after the other as each comes to
    rest: with the jitter the tower falls (a perfect column of equal balls stands only on a
    knife edge). Ten seconds later no ball rests on top of another within 1 % of a
    radius of its centre line."""
    x = 300
    for k in range(5):
        click(game, (x, 200))
        frames(game, 60)
    frames(game, 600)
    w = game.world
    mine = w.pos[-5:]
    r = w.radius[-1]
    assert mine[:, 1].max() < 2.2 * r                           # no ball stands on another in a column


def test_a_drag_from_empty_space_flings_a_ball_with_the_dragged_velocity(game):
    start, end = (200, 300), (330, 240)
    drag(game, start, end)
    dragged = game.camera.screen_to_world(end) - game.camera.screen_to_world(start)
    assert np.allclose(game.world.pos[-1], game.camera.screen_to_world(start))
    assert np.allclose(game.world.vel[-1], dragged * FLING_GAIN)
    assert game.world.vel[-1][0] > 0 and game.world.vel[-1][1] > 0     # right and up on screen


@pytest.mark.parametrize("mods, sign", [(0, 0), (pygame.KMOD_SHIFT, -1), (pygame.KMOD_CTRL, 1)])
def test_a_fling_with_shift_or_ctrl_spins_the_ball_as_if_rolling_forwards_or_back(game, monkeypatch, mods, sign):
    """Flung to the right, topspin turns the ball clockwise (negative) at the rolling rate
    vx / r, backspin the other way; a plain fling does not spin."""
    monkeypatch.setattr(pygame.key, "get_mods", lambda: mods)
    monkeypatch.setattr(pygame.display, "get_init", lambda: True)
    drag(game, (200, 300), (330, 240))
    w = game.world
    assert w.vel[-1][0] > 0
    assert w.spin[-1] == pytest.approx(sign * w.vel[-1][0] / w.radius[-1])


def test_the_aim_line_shows_while_dragging(game):
    drag(game, (200, 300), (330, 240), release=False)
    plain = pygame.Surface(SIZE)
    game.draw(plain)
    assert isinstance(game.play.left, Fling) and game.play.left.dragging
    _post(game, pygame.MOUSEBUTTONUP, pos=(330, 240), button=1)
    after = pygame.Surface(SIZE)
    game.draw(after)
    assert pygame.image.tobytes(plain, "RGB") != pygame.image.tobytes(after, "RGB")


def test_dragging_a_ball_grabs_it_with_a_spring_and_it_follows_the_cursor(game):
    ball = game.world.pos[0].copy()
    start = tuple(int(v) for v in np.rint(game.camera.world_to_screen(ball)))
    target = (start[0] - 200, start[1] - 150)
    drag(game, start, target, release=False)
    springs = game.world.springs
    assert len(springs) == 2 and len(game.world.grabs) == 1          # springs like any other
    assert np.all(springs.b == -1) and np.all(springs.a == 0)
    frames(game, 90)
    cursor = game.camera.screen_to_world(target)
    assert np.linalg.norm(game.world.pos[0] - cursor) < 0.05        # it hangs at the cursor
    assert np.linalg.norm(game.world.vel[0]) < 0.05                 # and has stopped swinging
    target = (target[0] + 150, target[1])
    _post(game, pygame.MOUSEMOTION, pos=target, rel=(0, 0), buttons=(1, 0, 0))
    frames(game, 60)
    assert np.linalg.norm(game.world.pos[0] - game.camera.screen_to_world(target)) < 0.05
    count = game.world.count
    _post(game, pygame.MOUSEBUTTONUP, pos=target, button=1)
    assert len(game.world.springs) == 0 and game.world.count == count    # released, nothing spawned


def test_a_right_click_deletes_a_ball_and_a_right_drag_pans(game):
    ball = tuple(int(v) for v in np.rint(game.camera.world_to_screen(game.world.pos[0])))
    center = game.camera.center.copy()
    drag(game, ball, (ball[0] - 100, ball[1]), button=3)
    assert game.world.count == 1
    assert game.camera.center[0] > center[0]                 # the world followed the mouse
    ball = tuple(int(v) for v in np.rint(game.camera.world_to_screen(game.world.pos[0])))
    click(game, ball, button=3)
    assert game.world.count == 0


def test_the_wheel_zooms_at_the_cursor(game):
    cursor = (600, 100)
    _post(game, pygame.MOUSEMOTION, pos=cursor, rel=(0, 0), buttons=(0, 0, 0))
    before = game.camera.screen_to_world(cursor)
    scale = game.camera.scale
    _post(game, pygame.MOUSEWHEEL, x=0, y=2, precise_x=0.0, precise_y=2.0, flipped=False)
    assert game.camera.scale > scale
    assert np.allclose(game.camera.screen_to_world(cursor), before)


# ---- keys and the clock ---------------------------------------------------------------------------
def test_i_changes_the_integrator_the_world_steps_with(game, level):
    assert game.world.integrator == "rk4"
    drag(game, (200, 200), (280, 160))               # a ball in flight: integrators differ
    assert game.world.count == 2
    start = game.world.to_level()
    key(game, pygame.K_i)
    assert game.world.integrator == ORDER[0] == "euler"
    assert not game.play.show_energy                       # I changes the integrator, nothing else
    ticks = frames(game, 30)
    reference = build_world(start)
    reference.integrator = "euler"
    for _ in range(ticks):
        reference.step(TICK)
    assert reference.state_hash() == game.world.state_hash()
    for name in ORDER[1:]:
        key(game, pygame.K_i)
        assert game.world.integrator == name
    assert any("integrator" in text for text in game.toasts.texts())


def test_i_and_e_each_do_one_thing(game):
    for _ in range(3):
        key(game, pygame.K_i)
        assert not game.play.show_energy
    key(game, pygame.K_e)
    assert game.play.show_energy
    key(game, pygame.K_i)
    assert game.play.show_energy                            # I leaves the plot as it was
    key(game, pygame.K_e)
    assert not game.play.show_energy


def test_space_stops_the_world_and_runs_it_again(game):
    click(game, (200, 200))
    assert game.world.count == 2
    key(game, pygame.K_SPACE)
    pos, t = game.world.pos.copy(), game.world.time
    assert frames(game, 20) == 0
    assert np.array_equal(game.world.pos, pos) and game.world.time == t
    key(game, pygame.K_SPACE)
    assert frames(game, 20) > 0
    assert not np.array_equal(game.world.pos, pos)


def test_period_steps_exactly_one_tick(game):
    key(game, pygame.K_SPACE)
    t = game.world.time
    key(game, pygame.K_PERIOD)
    assert frames(game, 10) == 1
    assert game.world.time == pytest.approx(t + TICK, abs=1e-12)
    key(game, pygame.K_PERIOD)
    key(game, pygame.K_PERIOD)
    assert frames(game, 10) == 2


def test_the_world_only_ever_gets_the_fixed_tick_and_a_slow_frame_is_capped(game, monkeypatch):
    seen = []
    real_step = game.world.step
    monkeypatch.setattr(game.world, "step", lambda dt: (seen.append(dt), real_step(dt)))
    assert game.update(0.007) == 0
    assert game.update(0.011) == 1                     # 18 ms: one tick, 1.3 ms carried over
    assert game.update(5.0) <= MAX_TICKS_PER_FRAME      # a stalled frame: no explosion, no freeze
    assert game.update(FRAME) <= 1                      # and the backlog was dropped
    assert seen and all(dt == TICK for dt in seen)


def test_a_frame_stops_ticking_when_its_time_budget_is_spent(game):
    game.clock.budget = 0.0                             # every tick "too slow": one per frame
    assert game.update(4 * TICK) == 1
    assert game.update(FRAME) == 1                      # the backlog was dropped, not saved up


def test_minus_and_equals_set_the_time_scale(game):
    key(game, pygame.K_MINUS)
    assert game.clock.time_scale == 0.5
    assert frames(game, 60) == pytest.approx(30, abs=1)
    key(game, pygame.K_EQUALS)
    key(game, pygame.K_EQUALS)
    assert game.clock.time_scale == 2.0
    assert frames(game, 30) == pytest.approx(60, abs=1)


def test_r_resets_the_level_and_keeps_the_chosen_integrator(game):
    click(game, (200, 200))
    assert game.world.count == 2
    key(game, pygame.K_i)
    frames(game, 5)
    key(game, pygame.K_r)
    assert game.world.count == 1 and game.world.time == 0
    assert game.world.integrator == "euler"


def test_brackets_go_to_the_previous_and_next_level(game, tmp_path):
    _write(tmp_path / "b_other.json", dict(LEVEL, name="Other"))
    (tmp_path / "level.schema.json").write_text("{}")
    key(game, pygame.K_RIGHTBRACKET)
    assert game.world.name == "Other"
    key(game, pygame.K_RIGHTBRACKET)
    assert game.world.name == "Test box"
    key(game, pygame.K_LEFTBRACKET)
    assert game.world.name == "Other"


def test_toggles_help_escape_and_the_reserved_editor_key(game):
    key(game, pygame.K_d)
    assert game.play.debug_layers == ("contacts",)
    key(game, pygame.K_t)
    key(game, pygame.K_e)
    assert game.play.show_trails and game.play.show_energy
    frames(game, 5)
    key(game, pygame.K_TAB)
    assert any("editor" in text for text in game.toasts.texts())
    key(game, pygame.K_h)
    assert isinstance(game.top, HelpMode)
    game.draw(pygame.Surface(SIZE))
    key(game, pygame.K_ESCAPE)
    assert game.top is game.play and game.running          # Esc closes help first
    key(game, pygame.K_ESCAPE)
    assert game.running                                    # then asks (Esc alone never quits)
    key(game, pygame.K_RETURN)
    assert not game.running


def test_ctrl_s_saves_the_running_world_as_a_new_level_without_the_mouse_grab(game, tmp_path, level, monkeypatch):
    from game.level import load
    monkeypatch.setenv("BALLPIT_DATA_DIR", str(tmp_path / "shots" / "data"))
    shipped = sorted(p for p in os.listdir(tmp_path) if p.endswith(".json"))
    original = level.read_text()
    drag(game, (200, 150), (260, 120))                       # a flung ball in flight
    frames(game, 10)
    ball = tuple(int(v) for v in np.rint(game.camera.world_to_screen(game.world.pos[0])))
    drag(game, ball, (ball[0], ball[1] - 40), release=False)  # and one held by the mouse
    _post(game, pygame.KEYDOWN, key=pygame.K_s, mod=pygame.KMOD_LCTRL, unicode="", scancode=0)
    mine = tmp_path / "shots" / "data" / "my levels"               # the player's own folder, not the levels'
    saved = mine / "a_box-snapshot.json"
    doc = load(str(saved))
    assert np.allclose([b["pos"] for b in doc["balls"]], game.world.pos)
    assert np.allclose([b["vel"] for b in doc["balls"]], game.world.vel)
    assert doc["springs"] == [] and len(game.world.springs) == 2      # the grab is not part of the level
    assert any("a_box-snapshot.json" in t for t in game.toasts.texts())
    _post(game, pygame.KEYDOWN, key=pygame.K_s, mod=pygame.KMOD_LCTRL, unicode="", scancode=0)
    assert (mine / "a_box-snapshot-2.json").exists()                    # never over the first
    assert level.read_text() == original                                # the level itself is untouched
    assert sorted(p for p in os.listdir(tmp_path) if p.endswith(".json")) == shipped                     # nothing among the shipped levels
    from game.modes.menu import LevelMenuMode
    menu = LevelMenuMode(game)
    assert menu.files[0] == str(level) and menu.groups == [0, 1, 1]     # a group of their own, after


def test_f12_saves_a_screenshot(game, tmp_path):
    key(game, pygame.K_F12)
    game.draw(pygame.Surface(SIZE))
    shots = os.listdir(tmp_path / "shots")
    assert len(shots) == 1 and shots[0].endswith(".png")


def test_f12_screenshots_leave_the_toast_out(game, tmp_path):
    game.toast("a toast over the corner")
    key(game, pygame.K_F12)
    shown = pygame.Surface(SIZE)
    game.draw(shown)
    saved = pygame.image.load(str(tmp_path / "shots" / os.listdir(tmp_path / "shots")[0]))
    corner = pygame.Rect(SIZE[0] - 300, SIZE[1] - 24, 300, 24)             # where toasts go
    game.toasts.current = None
    plain = pygame.Surface(SIZE)
    game.draw(plain)
    assert pygame.image.tobytes(saved.subsurface(corner), "RGB") == pygame.image.tobytes(plain.subsurface(corner), "RGB")
    assert pygame.image.tobytes(shown.subsurface(corner), "RGB") != pygame.image.tobytes(plain.subsurface(corner), "RGB")


def test_the_error_names_the_file_as_the_player_typed_it_and_the_level_stays_put(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "typed.json", LEVEL)
    pygame.font.init()
    g = App("typed.json", size=SIZE, level_dir=str(tmp_path))
    view = g.camera.key()
    (tmp_path / "typed.json").write_text('{"segments": [}')
    reload_frames(g)
    assert g.session.error.startswith("typed.json:1:")
    g.draw(pygame.Surface(SIZE))
    assert g.camera.key() == view


def test_the_window_resizes_and_keeps_the_level_in_view(game):
    game.draw(pygame.Surface((1000, 700)))
    assert game.camera.size == (1000, 700)
    (x0, y0), (x1, y1) = game.camera.world_to_screen([(0, 0), (16, 9)])
    assert 0 <= x0 < x1 <= 1000 and 0 <= y1 < y0 <= 700


def test_the_energy_plot_never_covers_a_fitted_level(game):
    from game.draw.hud import energy_plot_rect
    from game.draw.theme import BAR_HEIGHT, HINT_HEIGHT
    key(game, pygame.K_e)
    assert game.play.show_energy
    plot = energy_plot_rect(game.camera.size, HINT_HEIGHT)
    x0, y0, x1, y1 = game.world.bounds
    corners = game.camera.world_to_screen([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
    assert not any(plot.collidepoint(float(x), float(y)) for x, y in corners)
    assert corners[:, 0].max() <= plot.left
    assert plot.top <= BAR_HEIGHT + 12 and plot.bottom >= SIZE[1] - HINT_HEIGHT - 12   # all its column
    key(game, pygame.K_e)                                 # hidden: the level takes the room back
    assert game.camera.world_to_screen((x1, y0))[0] > plot.left
    game.resize((500, 400))                               # too narrow to give the plot a column
    key(game, pygame.K_e)
    assert game.camera.scale > 500 * 0.5 / (x1 - x0)      # the level keeps most of the width


# ---- the stack of modes -----------------------------------------------------------------------
class _Layer(Mode):
    """A test mode that records what reaches it."""

    def __init__(self, app, opaque=True, pauses_below=True, keeps_work=False):
        super().__init__(app)
        self.opaque, self.pauses_below, self.keeps_work = opaque, pauses_below, keeps_work
        self.events, self.drawn, self.log = [], 0, []

    def enter(self):
        self.log.append("enter")

    def exit(self):
        self.log.append("exit")

    def handle_event(self, event):
        self.events.append(event.type)
        return True

    def draw(self, surface):
        self.drawn += 1
        surface.fill((1, 2, 3), (0, 0, 4, 4))

    def can_quit(self):
        return not self.keeps_work


def test_help_is_an_overlay_that_holds_the_world_still(game):
    key(game, pygame.K_h)
    assert isinstance(game.top, HelpMode)
    t = game.world.time
    assert frames(game, 30) == 0 and game.world.time == t
    key(game, pygame.K_SPACE)                              # keys do not reach the game below
    assert not game.clock.paused
    surface, plain = pygame.Surface(SIZE), pygame.Surface(SIZE)
    game.draw(surface)
    game.play.draw(plain)
    edge = (SIZE[0] * 0.1, SIZE[1] * 0.6)                            # beside the help's box
    assert sum(plain.get_at(edge)[:3]) > 40                           # play drew something there
    dimmed = np.array(plain.get_at(edge)[:3]) * (1 - 150 / 255)       # under the help's veil
    assert np.abs(np.subtract(surface.get_at(edge)[:3], dimmed)).max() <= 2   # the level shows through
    click(game, (10, 200))                                 # a click closes help, spawns nothing
    assert game.top is game.play and game.world.count == 1
    assert frames(game, 30) > 0


def test_only_the_top_mode_gets_input_and_drawing_starts_at_the_topmost_opaque_one(game, monkeypatch):
    drawn = []
    monkeypatch.setattr(game.play, "draw", lambda surface: drawn.append("play"))
    overlay = _Layer(game, opaque=False)
    game.push(overlay)
    game.draw(pygame.Surface(SIZE))
    assert drawn == ["play"] and overlay.drawn == 1
    cover = _Layer(game, opaque=True)
    game.push(cover)
    assert overlay.log == ["enter", "exit"] and cover.log == ["enter"]
    click(game, (200, 200))
    game.draw(pygame.Surface(SIZE))
    assert drawn == ["play"] and overlay.drawn == 1 and cover.drawn == 1     # covered: not drawn
    assert cover.events and not overlay.events and game.world.count == 1
    assert game.pop() is cover and overlay.log[-1] == "enter"
    assert game.pop() is overlay and game.pop() is None                     # play stays


def test_a_mode_that_does_not_pause_lets_the_world_run_and_one_that_does_stops_it(game):
    game.push(_Layer(game, opaque=False, pauses_below=False))
    assert frames(game, 30) > 0
    game.push(_Layer(game, opaque=False, pauses_below=True))
    assert frames(game, 30) == 0


def test_quitting_asks_every_mode_first(game):
    keeper = _Layer(game, keeps_work=True)
    game.push(keeper)
    _post(game, pygame.QUIT)
    assert game.running                                    # unsaved work: the mode said no
    game.pop()
    assert game.request_quit() and not game.running


def test_tab_pushes_the_editor_the_factory_makes(game):
    made = []
    game.editor_factory = lambda app: made.append(_Layer(app)) or made[-1]
    key(game, pygame.K_TAB)
    assert game.top is made[0]
    assert frames(game, 10) == 0                           # the world waits for the editor


# ---- live reload --------------------------------------------------------------------------------
def test_a_changed_level_is_reloaded_and_a_broken_one_is_survived(game, level, capsys):
    frames(game, 3)
    camera = game.camera.key()
    _write(level, dict(LEVEL, name="Edited", balls=LEVEL["balls"] * 1 + [{"pos": [4, 4]}]))
    reload_frames(game)                                  # well within a second
    assert game.world.name == "Edited" and game.world.count == 2
    assert game.camera.key() == camera                   # the view stays where it was
    assert game.session.error == ""

    level.write_text('{"name": "Broken", "polylines": [{"points": [[0, 0], [1, "a"]]}]')
    reload_frames(game)
    assert game.session.error and "\n" not in game.session.error
    assert game.session.error in capsys.readouterr().err  # the banner may cut it: whole in the log
    assert game.world.name == "Edited"                   # the last good level keeps running
    t = game.world.time
    frames(game, 10)
    assert game.world.time > t
    game.draw(pygame.Surface(SIZE))

    _write(level, dict(LEVEL, name="Fixed"))
    reload_frames(game)
    assert game.session.error == "" and game.world.name == "Fixed"


def test_saving_the_same_content_does_not_restart_the_level(game, level):
    frames(game, 30)
    t = game.world.time
    level.write_text(level.read_text())
    frames(game, 40)
    assert game.world.time > t


# ---- drawing ------------------------------------------------------------------------------------
def test_a_frame_with_a_thousand_balls_renders(game):
    rng = np.random.default_rng(3)
    for p in rng.uniform((1, 1), (15, 8), (1000, 2)):
        game.world.add_ball(p, radius=0.1)
    surface = pygame.Surface((1280, 720))
    game.draw(surface)
    game.update(FRAME)
    game.draw(surface)
    colours = {tuple(surface.get_at(tuple(int(v) for v in np.rint(game.camera.world_to_screen(p))))[:3])
               for p in game.world.pos[:50]}
    assert len(colours) > 5


def test_impacts_with_the_dummy_audio_driver_raise_nothing(level, tmp_path):
    g = App(str(level), size=SIZE, audio=Audio(), level_dir=str(tmp_path))
    drag(g, (200, 150), (200, 350))                      # thrown at the floor
    assert g.world.count == 2
    frames(g, 60)
    if g.audio.enabled:                                  # the dummy driver takes the sounds
        assert 0 < g.audio.played <= 60 * 4
    g.audio.close()


# ---- command line entry points ---------------------------------------------------------------------
def _args(**kw):
    base = dict(level=None, steps=None, screenshot=None, size=(640, 360))
    base.update(kw)
    return argparse.Namespace(**base)


def test_screenshot_has_ball_coloured_pixels_where_the_balls_are(tmp_path):
    doc = dict(LEVEL, balls=[{"pos": [9, 3], "radius": 0.6}, {"pos": [13, 4], "radius": 0.6}],   # clear of the HUD
               gravity=[0, 0])
    path = _write(tmp_path / "still.json", doc)
    out = tmp_path / "shot.png"
    assert app_module.screenshot(_args(level=str(path), screenshot=str(out), steps=5)) == 0
    image = pygame.image.load(str(out))
    assert image.get_size() == (640, 360)
    g = App(str(path), size=(640, 360))
    for k, ball_id in enumerate(g.world.ids):
        x, y = np.rint(g.camera.world_to_screen(g.world.pos[k])).astype(int)
        got = image.get_at((int(x), int(y)))[:3]
        assert np.abs(np.subtract(got, ball_colour(ball_id))).max() <= 12


@pytest.mark.parametrize("entry", ["run", "screenshot"])
def test_a_bad_level_path_is_one_line_on_stderr_and_exit_2(entry, tmp_path, capsys):
    args = _args(level=str(tmp_path / "missing.json"), screenshot=str(tmp_path / "x.png"))
    assert getattr(app_module, entry)(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "missing.json" in err
    assert not (tmp_path / "x.png").exists()


def test_a_broken_level_on_the_command_line_opens_on_an_empty_floor_with_its_error(tmp_path, capsys):
    broken = tmp_path / "broken.json"
    broken.write_text('{"name": "Half", "segments": [{"a": [0, 0], "b": [1, "a"]}]}')
    path, doc = app_module.level_to_play(str(broken))
    assert path == str(broken) and doc is None
    assert capsys.readouterr().err.count("\n") == 1               # the error, once, on stderr
    pygame.font.init()
    g = App(path, size=SIZE, doc=doc, level_dir=str(tmp_path))
    assert g.session.error.startswith(str(broken) + ":1:")
    assert g.world.count == 0 and len(g.world.statics.radius) == 1  # a floor to wait on
    assert g.session.waiting                                       # (the banner says: fix the file)
    g.draw(pygame.Surface(SIZE))
    _write(broken, LEVEL)                                          # the author fixes it
    reload_frames(g)
    assert g.session.error == "" and g.world.name == "Test box" and g.world.count == 1
    assert not g.session.waiting
    assert app_module.level_to_play(str(tmp_path / "missing.json")) == (None, None)


# ---- whatever the player does -------------------------------------------------------------------
_COORD = st.one_of(st.integers(-50, 850), st.integers(-10**7, 10**7))
_KEYS = [pygame.K_SPACE, pygame.K_PERIOD, pygame.K_MINUS, pygame.K_EQUALS, pygame.K_r, pygame.K_i,
         pygame.K_e, pygame.K_d, pygame.K_t, pygame.K_f, pygame.K_h, pygame.K_m, pygame.K_TAB,
         pygame.K_RIGHTBRACKET, pygame.K_LEFTBRACKET, pygame.K_ESCAPE,
         pygame.K_l, pygame.K_s, pygame.K_UP, pygame.K_DOWN, pygame.K_LEFT, pygame.K_RIGHT, pygame.K_RETURN,
         pygame.K_w, pygame.K_PAGEDOWN, pygame.K_END]
_EVENT = st.one_of(
    st.builds(lambda x, y, b: (pygame.MOUSEBUTTONDOWN, {"pos": (x, y), "button": b}), _COORD, _COORD,
              st.sampled_from([1, 2, 3])),
    st.builds(lambda x, y, b: (pygame.MOUSEBUTTONUP, {"pos": (x, y), "button": b}), _COORD, _COORD,
              st.sampled_from([1, 2, 3])),
    st.builds(lambda x, y: (pygame.MOUSEMOTION, {"pos": (x, y), "rel": (0, 0), "buttons": (1, 0, 0)}),
              _COORD, _COORD),
    st.builds(lambda y: (pygame.MOUSEWHEEL, {"x": 0, "y": y, "precise_y": float(y)}), st.integers(-40, 40)),
    st.builds(lambda k: (pygame.KEYDOWN, {"key": k, "mod": 0, "unicode": "", "scancode": 0}),
              st.sampled_from(_KEYS)),
    st.just((pygame.KEYDOWN, {"key": pygame.K_z, "mod": pygame.KMOD_LCTRL, "unicode": "", "scancode": 0})),
    st.builds(lambda w, h: (pygame.VIDEORESIZE, {"size": (w, h)}), st.integers(0, 3000), st.integers(0, 2000)),
    st.just((pygame.WINDOWLEAVE, {})),
    st.integers(1, 20),                                       # that many frames pass
)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(level_index=st.integers(0, 16), script=st.lists(_EVENT, max_size=40))
def test_no_sequence_of_player_input_breaks_the_game(level_index, script, tmp_path_factory):
    """Clicks, drags and wheels anywhere (millions of pixels off-screen too), every key, resizes
    to nothing: the game handles each, keeps drawing, and the shipped level runs on."""
    from game.paths import LEVELS as LEVEL_DIR
    from game.level import level_files
    pygame.font.init()
    path = level_files(LEVEL_DIR)[level_index]
    folder = tmp_path_factory.mktemp("shots")
    g = App(path, size=SIZE, screenshot_dir=str(folder))
    g.clock.budget = float("inf")
    surface = pygame.Surface(SIZE)
    for item in script:
        if isinstance(item, int):
            frames(g, item)
            g.draw(surface)
        else:
            kind, attrs = item
            _post(g, kind, **attrs)
        if not g.running:                         # Escape quits: a new game goes on
            g = App(path, size=SIZE, screenshot_dir=str(folder))
            g.clock.budget = float("inf")
    frames(g, 2)
    g.draw(surface)
    assert g.camera.scale > 0 and np.isfinite(g.camera.center).all()
    # And the game still answers: back to play, "." runs exactly one tick, and after F a
    # click on a free spot of the level spawns a ball at the world point under it.
    while g.top is not g.play:
        key(g, pygame.K_ESCAPE)
    for button in (1, 2, 3):                      # let go of whatever the script held
        _post(g, pygame.MOUSEBUTTONUP, pos=g.mouse, button=button)
    if g.play.tool != "balls":
        key(g, pygame.K_w)
    key(g, pygame.K_f)
    t = g.world.time
    key(g, pygame.K_PERIOD)
    assert frames(g, 3) == 1 and g.world.time == pytest.approx(t + TICK, abs=1e-9)
    x0, y0, x1, y1 = g.world.bounds
    spots = g.camera.world_to_screen([(x0 + (x1 - x0) * u, y0 + (y1 - y0) * v)
                                      for v in (0.9, 0.7, 0.5, 0.3) for u in (0.5, 0.3, 0.7, 0.1, 0.9)])
    free = [tuple(int(c) for c in p) for p in np.rint(spots)
            if g.world.ball_at(g.camera.screen_to_world(np.rint(p))) < 0]
    count, bodies = g.world.count, len(g.world.bodies)
    if g.play.tool == "draw":                     # W kept drawing: the level gives the hand nothing (10)
        assert any("the left button draws" in t for t in g.toasts.texts())
        click(g, free[0])
        assert g.world.count == count and len(g.world.bodies) == bodies
        return
    click(g, free[0])
    if g.play.left_of("spawn") == 0 and g.world.count == count:   # the level lets the player add no more
        # (a level of bodies, 48, opens with the left button placing one: it placed one)
        assert any("balls" in t for t in g.toasts.texts()) or len(g.world.bodies) == bodies + 1
        return
    assert g.world.count == count + 1
    assert np.all(np.abs(g.world.pos[-1] - g.camera.screen_to_world(free[0]))
                  <= placing.jitter_size(g.world.radius[-1]) + 1e-9)


# ---- the fling's aim ---------------------------------------------------------------------------
def test_the_flight_preview_follows_the_parabola_and_stops_at_its_first_touch():
    from game.physics.geometry import closest_point_on_segment
    from game.modes.play_actions import AIM_PREVIEW_SAMPLES, AIM_PREVIEW_SECONDS, flight_preview
    doc = {"gravity": [0, -9.81], "bounds": [0, 0, 40, 20],
           "segments": [{"a": [0, 0], "b": [40, 0]}, {"a": [12, 0], "b": [12, 20]},
                        {"a": [20, 0], "b": [20, 8], "radius": 0.5}]}
    world = build_world(doc)
    free = flight_preview(world, (2, 15), (-1, 0), 0.25)                # clear of everything
    t = np.linspace(0, AIM_PREVIEW_SECONDS, AIM_PREVIEW_SAMPLES)[:, None]
    assert np.allclose(free, np.array((2, 15)) + np.array((-1, 0)) * t + 0.5 * np.array((0, -9.81)) * t * t)
    for start, velocity in [((5, 5), (30, 0)), ((5, 5), (20, 10)), ((15, 3), (20, 5)), ((5, 10), (0, -15))]:
        path = flight_preview(world, start, velocity, 0.25)
        end = path[-1]
        gaps = [np.linalg.norm(end - closest_point_on_segment(np.array(s["a"], float), np.array(s["b"], float), end))
                - s.get("radius", 0) for s in doc["segments"]]
        assert min(gaps) == pytest.approx(0.25, abs=1e-6)                # it ends touching a wall
        assert len(path) < AIM_PREVIEW_SAMPLES + 1
        assert np.all(path[:, 0] <= 12 - 0.25 + 1e-9) or start[0] > 12   # never beyond the first wall


@pytest.mark.parametrize("end", [(500, 300), (300, 100), (100, 300), (300, 500), (480, 120), (130, 460), (303, 300)])
def test_the_speed_label_sits_beside_the_aim_line_never_on_it(end):
    from game.draw.hud import Hud
    from game.draw.aim import draw_aim
    pygame.font.init()
    hud = Hud()
    surface = pygame.Surface(SIZE)
    rect = draw_aim(surface, (300, 300), end, "12.3 m/s", lambda s: hud.text(s), None)
    assert not rect.clipline((300, 300), end)
    centre = np.array(rect.center) - (np.array((300, 300)) + end) / 2
    assert np.linalg.norm(centre) < 80                                 # and near it


# ---- the level menu and the help --------------------------------------------------------------
@pytest.fixture
def two_levels(game, tmp_path):
    _write(tmp_path / "b_other.json", dict(LEVEL, name="Other", balls=[{"pos": [4, 4], "radius": 0.5}]))
    game.play.counter = game.play.level_counter()
    return game


def test_l_opens_a_menu_of_the_levels_with_thumbnails_and_the_world_waits(two_levels):
    from game.modes.menu import LevelMenuMode
    game = two_levels
    key(game, pygame.K_l)
    menu = game.top
    assert isinstance(menu, LevelMenuMode) and len(menu.files) == 2 and menu.selected == 0
    t = game.world.time
    assert frames(game, 5) == 0 and game.world.time == t
    menu.wait_for_thumbnails()          # read on a worker thread: a loaded machine may take more frames
    thumb, name, _ = menu.thumbs[menu.files[1]]
    assert name == "Other"
    pixels = pygame.surfarray.array3d(thumb).reshape(-1, 3)
    assert len(np.unique(pixels, axis=0)) > 20                         # a drawn level, not a blank
    game.draw(pygame.Surface(SIZE))
    key(game, pygame.K_RIGHT)
    key(game, pygame.K_RETURN)
    assert game.top is game.play and game.world.name == "Other" and game.play.counter == "2/2"


def test_a_click_on_a_thumbnail_plays_it_and_completed_levels_are_marked(two_levels):
    game = two_levels
    game.play.completed.add(os.path.realpath(game.session.path))
    key(game, pygame.K_l)
    menu = game.top
    drawn = []
    text = game.hud.text
    game.hud.text = lambda string, *args, **kw: (drawn.append(string), text(string, *args, **kw))[1]
    game.draw(pygame.Surface(SIZE))
    assert drawn.count("complete") == 1
    click(game, menu.cell_rect(1).center)
    assert game.top is game.play and game.world.name == "Other"


def test_the_hud_says_which_level_of_how_many(two_levels):
    game = two_levels
    drawn = []
    text = game.hud.text
    game.hud.text = lambda string, *args, **kw: (drawn.append(string), text(string, *args, **kw))[1]
    game.draw(pygame.Surface(SIZE))
    assert "1/2" in drawn


def test_l_in_the_help_opens_the_level_menu(game):
    from game.modes.menu import LevelMenuMode
    key(game, pygame.K_h)
    key(game, pygame.K_l)
    assert isinstance(game.top, LevelMenuMode) and game.stack[:-1] == [game.play]


def test_the_help_lists_every_key_the_game_reads(game):
    """Every key (alone or with Ctrl) the play mode acts on is named in its help."""
    from game.modes.play import KEYMAP
    names = {token for keys, _ in KEYMAP for token in keys.replace("/", " ").split()}
    alias = {"escape": "Esc", "[.]": ".", "[-]": "-", "[+]": "=", "+": "=", "return": "Enter"}

    def shown(name):
        if name in alias:
            return alias[name]
        return name.upper() if len(name) == 1 or (name[0] == "f" and name[1:].isdigit()) else name.capitalize()

    missing = []
    codes = sorted({getattr(pygame, n) for n in dir(pygame) if n.startswith("K_")})
    for mod, prefix in ((0, ""), (pygame.KMOD_LCTRL, "Ctrl+")):
        for code in codes:
            event = pygame.event.Event(pygame.KEYDOWN, key=code, mod=mod, unicode="", scancode=0)
            if game.play.key(event):
                token = shown(pygame.key.name(code))
                if prefix + token not in names and token not in names:     # Ctrl+X may act as X
                    missing.append(prefix + token)
            while game.top is not game.play:
                game.pop()
    assert not missing


# ---- undo, drag while paused, spray -------------------------------------------------------------
def ctrl(g, k):
    _post(g, pygame.KEYDOWN, key=k, mod=pygame.KMOD_LCTRL, unicode="", scancode=0)


def test_ctrl_z_takes_back_spawns_flings_and_deletes_newest_first(game):
    key(game, pygame.K_SPACE)                                    # paused: nothing moves meanwhile
    start = game.world.to_level()["balls"]
    click(game, (200, 150))
    drag(game, (300, 150), (360, 120))
    ball = tuple(int(v) for v in np.rint(game.camera.world_to_screen(game.world.pos[0])))
    click(game, ball, button=3)                                  # delete the level's own ball
    assert game.world.count == 2
    ctrl(game, pygame.K_z)                                       # the delete
    assert game.world.count == 3
    back = game.world.to_level()["balls"][0]                     # back at its place in id order
    assert back["pos"] == start[0]["pos"] and back["radius"] == start[0]["radius"]
    ctrl(game, pygame.K_z)                                       # the fling
    ctrl(game, pygame.K_z)                                       # the click
    assert game.world.count == 1 and game.world.to_level()["balls"][0]["pos"] == start[0]["pos"]
    ctrl(game, pygame.K_z)
    assert game.world.count == 1 and "undo: nothing to undo" in game.toasts.texts()


def test_undo_history_ends_with_the_run_of_the_level(game):
    click(game, (200, 150))
    key(game, pygame.K_r)
    ctrl(game, pygame.K_z)
    assert game.world.count == 1 and "undo: nothing to undo" in game.toasts.texts()


def test_a_ball_dragged_while_paused_goes_where_the_pointer_goes_and_stays(game):
    key(game, pygame.K_SPACE)
    ball = tuple(int(v) for v in np.rint(game.camera.world_to_screen(game.world.pos[0])))
    target = (ball[0] - 250, ball[1] - 120)
    drag(game, ball, target, release=False)
    frames(game, 3)
    assert np.allclose(game.world.pos[0], game.camera.screen_to_world(target))
    assert np.all(game.world.vel[0] == 0) and game.world.time == 0
    _post(game, pygame.MOUSEBUTTONUP, pos=target, button=1)
    assert len(game.world.springs) == 0 and game.world.count == 1
    frames(game, 5)
    assert np.allclose(game.world.pos[0], game.camera.screen_to_world(target))   # still paused


def test_holding_the_button_sprays_a_ball_every_spray_period_into_the_nearest_free_spots(game):
    """Paused, so no ball moves away: a press held still sprays one ball every SPRAY_EVERY
    (after the hold delay), each into the free spot nearest the pointer, none onto another
    ball or a wall; once every spot within reach is taken the pointer shows the red ring."""
    key(game, pygame.K_SPACE)
    spot = (200, 400)                                            # near the floor: walls are in reach
    _post(game, pygame.MOUSEMOTION, pos=spot, rel=(0, 0), buttons=(0, 0, 0))
    _post(game, pygame.MOUSEBUTTONDOWN, pos=spot, button=1)
    seconds = 2.0
    frames(game, int(seconds * 60))
    made = game.world.pos[1:]
    expected = (seconds - SPRAY_DELAY) / SPRAY_EVERY
    assert expected - 2 <= len(made) <= expected + 1            # about 12 a second, not 3
    pointer = game.camera.screen_to_world(spot)
    r = game.world.radius[1]
    gaps = np.linalg.norm(made[:, None] - made[None], axis=2) + np.eye(len(made)) * 9
    assert gaps.min() >= 2 * r - 1e-9                           # none sprayed onto another
    statics = game.world.statics
    for p in made:                                               # none in a wall (the floor is in reach)
        for a, b, sr in zip(statics.a, statics.b, statics.radius):
            assert np.linalg.norm(p - np.asarray(geometry.closest_point_on_segment(a, b, p))) >= sr + r - 1e-9
    assert np.all(np.linalg.norm(made - pointer, axis=1) <= placing.SPRAY_REACH * 2 * r + 0.05)
    frames(game, 60 * 6)                                         # everything in reach fills up
    assert game.play.spot_taken
    shown = pygame.Surface(SIZE)
    game.draw(shown)
    ring = pygame.surfarray.array3d(shown)
    assert np.any(np.all(ring == SPOT_TAKEN, axis=2))          # and the pointer says so
    _post(game, pygame.MOUSEBUTTONUP, pos=spot, button=1)


def test_the_spray_finds_no_spot_inside_a_wall_or_a_ball(game):
    """placing.free against a brute-force check of every ball and capsule."""
    w = game.world
    rng = np.random.default_rng(3)
    points = rng.uniform((-1, -1), (17, 10), (400, 2))
    r = 0.3
    ok = placing.free(w, points, r)
    x0, y0, x1, y1 = w.bounds
    for p, good in zip(points, ok):
        inside = x0 <= p[0] <= x1 and y0 <= p[1] <= y1
        balls = np.all(np.linalg.norm(w.pos - p, axis=1) >= w.radius + r)
        walls = all(np.linalg.norm(p - np.asarray(geometry.closest_point_on_segment(a, b, p))) >= sr + r
                    for a, b, sr in zip(w.statics.a, w.statics.b, w.statics.radius))
        assert good == (inside and balls and walls)


# ---- settings -----------------------------------------------------------------------------------
def test_the_settings_sliders_change_the_running_world_at_once_and_r_puts_the_level_back(game):
    from game.modes.settings import MAX_GRAVITY, SettingsMode
    key(game, pygame.K_s)
    panel = game.top
    assert isinstance(panel, SettingsMode)
    x0, x1, y = panel.track(0)
    _post(game, pygame.MOUSEBUTTONDOWN, pos=(x0 + 10, y), button=1)
    _post(game, pygame.MOUSEMOTION, pos=(x1 + 50, y), rel=(0, 0), buttons=(1, 0, 0))   # past the end
    _post(game, pygame.MOUSEBUTTONUP, pos=(x1 + 50, y), button=1)
    assert np.allclose(game.world.forces.gravity, (0, -MAX_GRAVITY))
    x0, x1, y = panel.track(1)                                   # direction: the right end, +180 deg
    click(game, (x1, y))
    assert np.allclose(game.world.forces.gravity, (0, MAX_GRAVITY), atol=1e-9)   # falls up now
    x0, x1, y = panel.track(2)
    click(game, (x0, y))
    assert game.clock.time_scale == 0.1
    x0, x1, y = panel.track(3)
    click(game, (x1, y))
    assert game.world.restitution[0] == 1.0
    click(game, (500, 250))                                      # off the panel: play spawns
    assert game.world.count == 2 and game.world.restitution[1] == 1.0
    game.clock.set_scale_index(3)
    ticks = frames(game, 30)
    assert ticks > 0 and game.world.vel[1][1] > 0                # the world runs, under the new gravity
    key(game, pygame.K_r)                                        # R reaches play: the level's values
    assert np.allclose(game.world.forces.gravity, (0, -9.81)) and game.world.restitution[0] == 0.4
    assert game.clock.time_scale == 1.0 and game.top is panel
    game.draw(pygame.Surface(SIZE))
    key(game, pygame.K_s)
    assert game.top is game.play


def test_arrow_keys_move_the_selected_slider(game):
    key(game, pygame.K_s)
    key(game, pygame.K_DOWN)
    key(game, pygame.K_DOWN)                                     # the time scale
    key(game, pygame.K_RIGHT)
    assert game.clock.time_scale == 2.0
    key(game, pygame.K_LEFT)
    key(game, pygame.K_LEFT)
    assert game.clock.time_scale == 0.5


def test_a_warming_up_mark_shows_while_the_kernels_load(game, monkeypatch):
    import threading
    drawn = []
    text = game.hud.text
    game.hud.text = lambda string, *args, **kw: (drawn.append(string), text(string, *args, **kw))[1]
    release = threading.Event()
    game.loader = threading.Thread(target=release.wait, daemon=True)
    game.loader.start()
    game.session.use_compiled(None)                 # still loading: the numpy execution serves
    game.draw(pygame.Surface(SIZE))
    assert any(s.startswith("warming up") for s in drawn)
    release.set()
    game.loader.join()
    drawn.clear()
    game.draw(pygame.Surface(SIZE))
    assert not any(s.startswith("warming up") for s in drawn)


class _FakeTime:
    """A stand-in for game.clock's ``time``: wall seconds that pass only when told."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self):
        return self.now


def paced_frames(tick_s, draw_s, seconds, idle_s=FRAME):
    """The window's loop with the pacer, on a fake clock: each frame asks app.FramePacer for a
    budget, runs the ticks FixedClock allows (each ``tick_s`` s), draws (``draw_s`` s) and waits
    for the 60 FPS cap, which on a busy machine sleeps until ``idle_s`` s after the frame's
    start. Returns (the frames' end times, ticks run)."""
    from unittest import mock
    from game.app import clock as clock_module
    fake = _FakeTime()
    ticks = []

    def tick():
        fake.now += tick_s
        ticks.append(fake.now)

    with mock.patch.object(clock_module, "time", fake):
        clock = clock_module.FixedClock(tick)
        pacer = app_module.FramePacer()
        stamps, frame_dt = [], FRAME
        while fake.now < seconds:
            start = fake.now
            budget = pacer.budget(frame_dt, tick_s)
            if budget is None:
                clock.wait(frame_dt)
            else:
                clock.advance(frame_dt, budget=budget)
            fake.now = max(fake.now + draw_s, start + max(idle_s, 1 / app_module.FPS_LIMIT))
            frame_dt = fake.now - start
            stamps.append(fake.now)
    return stamps, len(ticks)


def fewest_frames_in_a_second(stamps):
    """The fewest frame ends in any one-second window [t, t + 1) starting at a frame end."""
    fewest, j = None, 0
    for i, t in enumerate(stamps):
        if t + 1.0 > stamps[-1]:
            break
        while stamps[j] < t + 1.0:
            j += 1
        fewest = j - i if fewest is None else min(fewest, j - i)
    return fewest


@settings(max_examples=25, deadline=None)
@given(tick_s=st.floats(0.0, 0.12), draw_s=st.floats(0.0, 0.006))
def test_paced_frames_keep_fifty_a_second_whatever_a_tick_costs(tick_s, draw_s):
    """While the kernels load, a tick on the numpy path can cost more than a frame; the pacer
    holds ticks back so that every second of wall time still shows PACED_MIN_FPS frames
    (the world runs slower instead), and it keeps ticking."""
    stamps, ticks = paced_frames(tick_s, draw_s, 8.0)
    assert fewest_frames_in_a_second(stamps) >= app_module.PACED_MIN_FPS
    assert ticks >= 5           # a tick of 0.12 s: one about every 1.1 s of frames


@settings(max_examples=15, deadline=None)
@given(tick_s=st.floats(0.0, 0.006), draw_s=st.floats(0.0, 0.004))
def test_paced_frames_with_cheap_ticks_keep_real_time(tick_s, draw_s):
    """Ticks and drawing within a frame: the pacer holds nothing back, about one tick a frame at
    60 FPS (a frame a hair short of a tick runs none, and the next only one)."""
    stamps, ticks = paced_frames(tick_s, draw_s, 5.0)
    assert 0.97 * len(stamps) <= ticks <= len(stamps)


@settings(max_examples=15, deadline=None)
@given(tick_s=st.floats(0.0, 0.1), idle_s=st.floats(0.0185, 0.03))
def test_where_frames_alone_miss_the_rate_the_paced_ticks_still_get_their_share(tick_s, idle_s):
    """A busy machine: frames without ticks already take longer than the pacer's period, so no
    credit ever comes; the ticks still get PACED_TICK_SHARE of the wall time (a tick every
    frame where they are cheap)."""
    stamps, ticks = paced_frames(tick_s, 0.0, 6.0, idle_s)
    assert ticks * max(tick_s, idle_s) >= app_module.PACED_TICK_SHARE * stamps[-1] - 2 * (tick_s + idle_s)


def test_while_warming_up_a_slow_frame_is_not_caught_up_and_after_it_is(game, monkeypatch):
    """The numpy path serves while the kernels load: after a slow frame the next does not
    catch up (frames first: the pacer); ticks slower than a frame run one now and then, about
    PACED_TICK_SHARE of the time; a single step while paused always runs. With the kernels
    in, a slow frame runs the ticks it missed."""
    import threading
    release = threading.Event()
    game.loader = threading.Thread(target=release.wait, daemon=True)
    game.loader.start()
    try:
        game.session.use_compiled(None)                # still loading: the numpy execution serves
        assert game.warming_up
        assert game.update(FRAME) == 1                 # a frame on time: its tick
        assert game.update(0.05) <= 1                  # 50 ms late: not the three ticks it missed
        real_step = game._step
        monkeypatch.setattr(game, "_step", lambda world: ((40.0, 40.0), real_step(world)[1]))   # 40 ms a tick
        game.stats.tick_ms = 40.0                      # (as the smoothed cost says after a few)
        counts = [game.update(FRAME) for _ in range(240)]
        assert max(counts) == 1
        # 4 s at 60 FPS; a tenth of it for ticks of 40 ms: about 10 (and 2 where the credit helps).
        assert 8 <= sum(counts) <= 14
        game.clock.toggle_pause()
        game.update(0.05)
        game.clock.step_once()
        assert game.update(0.05) == 1                  # the step asked for runs, late frame or not
    finally:
        release.set()
        game.loader.join()
    assert not game.warming_up
    game.clock.toggle_pause()
    game.update(FRAME)
    assert game.update(0.05) == 3                      # 50 ms: three ticks, caught up


def test_a_level_opened_from_the_list_is_named_relative_to_the_working_folder(game, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "b_broken.json").write_text('{"segments": [}')
    key(game, pygame.K_RIGHTBRACKET)
    assert game.session.error.startswith("b_broken.json:1:")
    assert game.world.name == "Test box"                         # the last good level plays on


# ---- the loop on two cores: the ticks on a worker thread while the frame before is drawn ----
PILE = {
    "name": "Pile", "integrator": "semi-implicit", "bounds": [0, 0, 8, 4.5],
    "polylines": [{"points": [[0, 4.5], [0, 0], [8, 0], [8, 4.5]]}],
    "balls": [{"pos": [0.5 + 0.55 * (k % 13) + 0.01 * (k % 3), 0.4 + 0.55 * (k // 13)], "radius": 0.25,
               "vel": [0.3 * ((k * 7) % 5 - 2), 0.0]} for k in range(78)],
}


@pytest.fixture
def pile(tmp_path):
    pygame.font.init()
    path = _write(tmp_path / "pile.json", PILE)
    apps = [App(str(path), size=SIZE, level_dir=str(tmp_path), screenshot_dir=str(tmp_path / "shots"),
                compiled=COMPILED) for _ in range(2)]
    for g in apps:
        g.clock.budget = float("inf")
        g.play.show_trails = True
    return apps


@pytest.fixture
def any_tick(monkeypatch):
    """Every tick worth the worker thread (this small pile's are shorter than the game's floor)."""
    monkeypatch.setattr(app_module, "OVERLAP_MIN_TICK_MS", 0.0)


def _pixels(g):
    surface = pygame.Surface(SIZE)
    g.renderer.draw(surface, g.world, g.camera, trails=g.play.trails)
    return pygame.surfarray.array3d(surface)


@pytest.mark.parametrize("grabbed", [False, True], ids=["free", "a ball grabbed"])
def test_the_ticks_on_a_worker_thread_are_the_ticks_update_runs_and_each_frame_shows_the_one_before(
        pile, any_tick, grabbed):
    serial, apart = pile
    if grabbed:     # the grab's springs tick in the one call too, drawn meanwhile from the view
        for g in pile:
            g.session.world.grab(0, g.session.world.pos[0] + (0.5, 1.0))
    assert apart.session.world.ticks_in_one_call() and apart.overlaps()   # else no thread would run here
    before = _pixels(serial)
    for k, dt in enumerate((FRAME, FRAME, 2.5 * FRAME, FRAME, 0.0, 3 * FRAME)):
        apart.start_update(dt)
        assert apart.ticking_apart()
        # Drawn meanwhile: the world as it was before these ticks, the pixels the serial app
        # draws before its update, whatever the worker has reached.
        assert apart.world is not apart.session.world
        assert np.array_equal(_pixels(apart), before)
        ran = apart.finish_update()
        assert apart.world is apart.session.world
        assert ran == serial.update(dt)
        before = _pixels(serial)
        assert apart.world.state_hash() == serial.world.state_hash()
        assert np.array_equal(_pixels(apart), before)          # the trails too: after_tick saw every tick
    assert apart.stats.ticks == serial.stats.ticks > 0
    assert apart.play.energy == serial.play.energy


def test_the_drawn_view_shares_no_array_with_the_stepping_world(pile, any_tick):
    g = pile[1]
    world = g.session.world
    g.start_update(FRAME)
    view = g.world
    try:
        shared = [name for name, value in vars(view).items()
                  if isinstance(value, np.ndarray) and np.shares_memory(value, getattr(world, name))]
    finally:
        g.finish_update()
    assert shared == []
    assert not np.array_equal(view.pos, world.pos)          # the world moved on; the view did not


def test_where_the_tick_would_hold_the_lock_the_ticks_run_in_start_update(pile, any_tick, monkeypatch):
    g = pile[1]
    g.session.use_compiled(COMPILED._replace(tick=None))    # the one-call tick still compiling
    g.start_update(2 * FRAME)
    assert not g.ticking_apart() and g.world is g.session.world
    assert g.finish_update() == 2


def test_an_error_in_a_tick_on_the_worker_reaches_the_caller_of_finish_update(pile, any_tick, monkeypatch):
    g = pile[1]

    def broken(dt):
        raise FloatingPointError("broken tick")
    monkeypatch.setattr(g.session.world, "step", broken)
    g.start_update(FRAME)
    with pytest.raises(FloatingPointError, match="broken tick"):
        g.finish_update()
    assert g.world is g.session.world


def test_ballpit_serial_keeps_the_ticks_on_the_main_thread(pile, any_tick, monkeypatch):
    g = pile[1]
    monkeypatch.setenv("BALLPIT_SERIAL", "1")
    g.start_update(FRAME)
    assert not g.ticking_apart() and g.world is g.session.world
    assert g.finish_update() == 1


def test_a_short_tick_stays_on_the_main_thread_and_a_long_one_goes_to_the_worker(pile):
    """By the tick's own cost: a short tick whose wall time a busy machine stretched (it waited
    for a core) stays on the main thread."""
    g = pile[1]
    floor = app_module.OVERLAP_MIN_TICK_MS
    for tick_ms, cpu_ms, apart in ((0.5 * floor, 0.5 * floor, False), (10 * floor, 0.5 * floor, False),
                                   (floor, floor, True)):
        g.stats.tick_ms, g.stats.tick_cpu_ms = tick_ms, cpu_ms   # the smoothed tick times (set: no timing)
        g.start_update(FRAME)
        assert g.ticking_apart() is apart
        assert g.finish_update() == 1


def test_the_window_loop_loads_the_stamper_only_once_the_kernels_are_in(level, monkeypatch):
    """Compiled in the game's own process the stamper would hold the interpreter's lock a
    second or more (the frames stall); once the kernels are in, the compiling child has
    cached it. With BALLPIT_NUMPY the kernels never come, and neither does the stamper."""
    import threading
    frames, asked = [], []
    kernels_from = 3                                         # they arrive before the 4th frame
    assert COMPILED is not None
    handed = []

    def events():
        frames.append(len(frames))
        if len(frames) == kernels_from:
            handed[0](COMPILED)                              # the loading thread's hand-over
        return [pygame.event.Event(pygame.QUIT)] if len(frames) == 6 else []

    def loader(arrived, also=()):
        handed.append(arrived)
        thread = threading.Thread(target=lambda: None)
        thread.start()
        return thread

    monkeypatch.setattr(app_module.loader, "load_in_background", loader)
    monkeypatch.setattr(app_module.sprites, "load_in_background", lambda: asked.append(len(frames)))
    monkeypatch.setattr(pygame.event, "get", events)
    args = argparse.Namespace(level=str(level), size=SIZE, edit=None)
    assert app_module.run(args) == 0
    assert asked and min(asked) == kernels_from


def test_the_spray_takes_the_nearest_free_spot_of_its_lattice():
    """placing.nearest_free against a brute force: no free lattice spot is nearer."""
    w = World(bounds=(0, 0, 10, 10))
    rng = np.random.default_rng(5)
    for p in rng.uniform(3, 7, (12, 2)):
        w.add_ball(p, radius=0.4)
    point = np.array([5.0, 5.0])
    spot = placing.nearest_free(w, point, 0.3)
    spots = point + placing.lattice(0.3)
    ok = np.array([np.all(np.linalg.norm(w.pos - q, axis=1) >= w.radius + 0.3) for q in spots])
    best = spots[ok][np.argmin(np.linalg.norm(spots[ok] - point, axis=1))]
    assert np.linalg.norm(spot - point) == pytest.approx(np.linalg.norm(best - point))


def test_the_debug_grid_and_the_world_stop_at_the_key_hint(game):
    """Panned so the level lies under the hint, with the broad-phase grid on: the hint's row
    shows no grid line and no level (only its own panel and words)."""
    from game.draw.theme import BROAD_GRID
    from game.draw.theme import HINT_HEIGHT
    for _ in range(5):
        key(game, pygame.K_d)                                    # all debug layers
    assert "grid" in game.play.debug_layers
    game.camera.pan(0, 200)                                      # the level slides down under the hint
    surface = pygame.Surface(SIZE)
    game.draw(surface)
    row = pygame.surfarray.array3d(surface)[:, SIZE[1] - HINT_HEIGHT:]
    above = pygame.surfarray.array3d(surface)[:, :SIZE[1] - HINT_HEIGHT]
    assert np.any(np.all(above == BROAD_GRID, axis=2))           # the grid is drawn ...
    assert not np.any(np.all(row == BROAD_GRID, axis=2))         # ... but not across the hint


# ---- the ball picker (issue 27, bug 9) -----------------------------------------------------------
def test_b_and_c_pick_the_size_and_material_of_the_player_s_next_ball(game):
    from game.modes.play_actions import BALL_MATERIALS, BALL_RADII
    key(game, pygame.K_SPACE)
    play = game.play
    assert play.spawn_radius() == 0.5                           # the level's own ball
    key(game, pygame.K_b)                                        # bigger
    assert play.spawn_radius() == min(r for r in BALL_RADII if r > 0.5)
    _post(game, pygame.KEYDOWN, key=pygame.K_b, mod=pygame.KMOD_LSHIFT, unicode="B", scancode=0)
    _post(game, pygame.KEYDOWN, key=pygame.K_b, mod=pygame.KMOD_LSHIFT, unicode="B", scancode=0)
    assert play.spawn_radius() == max(r for r in BALL_RADII if r < 0.5)
    key(game, pygame.K_c)                                        # rubber
    name, material, _ = BALL_MATERIALS[1]
    assert "ball " + play.ball_label() in [w for _, w in play.hint()]
    assert name in play.ball_label() and f"{play.spawn_radius():g} m" in play.ball_label()
    click(game, (200, 150))
    w = game.world
    assert w.radius[-1] == play.spawn_radius()
    assert w.restitution[-1] == material["restitution"] and w.friction[-1] == material["friction"]
    mass = material["density"] * np.pi * w.radius[-1] ** 2
    assert 1 / w.inv_mass[-1] == pytest.approx(mass)
    for _ in range(len(BALL_MATERIALS) - 1):
        key(game, pygame.K_c)                                    # round to the level's material
    click(game, (300, 150))
    assert w.restitution[-1] == game.session.world.material["restitution"]


def test_the_cursor_shows_the_next_ball_in_its_size(game):
    """A faint disc of the picked radius under the pointer; bigger after B."""
    def preview_width(g):
        _post(g, pygame.MOUSEMOTION, pos=(250, 200), rel=(0, 0), buttons=(0, 0, 0))
        plain, shown = pygame.Surface(SIZE), pygame.Surface(SIZE)
        g.play.draw_hud = lambda s: None
        g.renderer.draw(plain, g.world, g.camera)
        g.play.draw(shown)
        diff = np.any(pygame.surfarray.array3d(plain) != pygame.surfarray.array3d(shown), axis=2)
        xs = np.flatnonzero(diff[:, 200])
        return xs.max() - xs.min() + 1 if len(xs) else 0
    small = preview_width(game)
    assert small == pytest.approx(2 * game.play.spawn_radius() * game.camera.scale, abs=4)
    key(game, pygame.K_b)
    assert preview_width(game) > small


def test_a_spun_fling_shows_its_spin_on_the_aim_line(game, monkeypatch):
    """With Shift the aim line gains a curved arrow round the ball and its rad/s in the label."""
    labels = []
    from game.draw import play_hud
    real = play_hud.draw_aim
    monkeypatch.setattr(play_hud, "draw_aim", lambda s, a, b, label, *rest: (labels.append(label), real(s, a, b, label, *rest))[1])
    monkeypatch.setattr(pygame.display, "get_init", lambda: True)
    drag(game, (200, 300), (330, 240), release=False)
    monkeypatch.setattr(pygame.key, "get_mods", lambda: 0)
    plain = pygame.Surface(SIZE)
    game.draw(plain)
    monkeypatch.setattr(pygame.key, "get_mods", lambda: pygame.KMOD_SHIFT)
    spun = pygame.Surface(SIZE)
    game.draw(spun)
    assert "spin" not in labels[0] and "topspin" in labels[1] and "rad/s" in labels[1]
    # The arrow round the ball's start: pixels change on a ring round it.
    diff = np.any(pygame.surfarray.array3d(plain) != pygame.surfarray.array3d(spun), axis=2)
    ring = game.play.spawn_radius() * game.camera.scale + 6
    ys, xs = np.mgrid[0:SIZE[1], 0:SIZE[0]]
    near = np.abs(np.hypot(xs - 200, ys - 300) - ring) < 2
    assert np.any(diff.T & near)


@pytest.mark.parametrize("fps", [60, 15])
def test_the_spray_rate_holds_at_a_low_frame_rate(game, fps):
    """About 1 / SPRAY_EVERY balls a second whether frames come 60 or 15 times a second."""
    key(game, pygame.K_SPACE)
    spot = (400, 150)
    _post(game, pygame.MOUSEMOTION, pos=spot, rel=(0, 0), buttons=(0, 0, 0))
    _post(game, pygame.MOUSEBUTTONDOWN, pos=spot, button=1)
    frames(game, int(round(SPRAY_DELAY * fps)), dt=1 / fps)
    n = game.world.count
    frames(game, fps, dt=1 / fps)                                # one second of spraying
    made = game.world.count - n
    assert abs(made - 1 / SPRAY_EVERY) <= 1.5
    _post(game, pygame.MOUSEBUTTONUP, pos=spot, button=1)


def test_the_hud_physics_figure_is_the_ticks_own_cost_not_the_time_it_waited(game, monkeypatch):
    """Issue 27, bug 10: a tick whose thread waits (for a core the drawing or another program
    holds, or for the lock; here a sleep stands for it) takes that wall time of the frame
    (tick_ms, for the pacer) but the HUD shows the thread's own CPU time (tick_cpu_ms)."""
    import time as time_module
    from game.app.clock import THREAD_CLOCK
    if THREAD_CLOCK is time_module.perf_counter:
        pytest.skip("this system keeps no fine per-thread CPU time")
    world = game.session.world
    real = world.step

    def waiting_step(dt):
        time_module.sleep(0.02)
        real(dt)
    monkeypatch.setattr(world, "step", waiting_step)
    game.advance(3)
    assert game.stats.tick_ms >= 20.0
    assert game.stats.tick_cpu_ms < 10.0
    surface = pygame.Surface(SIZE)
    game.draw(surface)
