"""The game loop driven headless: pygame events injected into App, frames advanced by hand."""
import argparse
import json
import os

import numpy as np
import pygame
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game import app as app_module
from game.app import App, TICK
from game.clock import MAX_TICKS_PER_FRAME
from game.gestures import Fling
from game.modes.help import HelpMode
from game.modes.play import FLING_GAIN
from game.audio import Audio
from game.integrators import ORDER
from game.render import ball_colour
from game.world import World

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
    g = App(str(level), size=SIZE, level_dir=str(tmp_path), screenshot_dir=str(tmp_path / "shots"))
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


# ---- mouse ------------------------------------------------------------------------------------
def test_a_click_spawns_a_ball_at_the_clicked_world_point(game):
    n = game.world.count
    click(game, (200, 150))
    assert game.world.count == n + 1
    assert np.allclose(game.world.pos[-1], game.camera.screen_to_world((200, 150)))
    assert np.allclose(game.world.vel[-1], 0)


def test_a_drag_from_empty_space_flings_a_ball_with_the_dragged_velocity(game):
    start, end = (200, 300), (330, 240)
    drag(game, start, end)
    dragged = game.camera.screen_to_world(end) - game.camera.screen_to_world(start)
    assert np.allclose(game.world.pos[-1], game.camera.screen_to_world(start))
    assert np.allclose(game.world.vel[-1], dragged * FLING_GAIN)
    assert game.world.vel[-1][0] > 0 and game.world.vel[-1][1] > 0     # right and up on screen


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
    assert game.play.show_energy                           # the plot opens where the difference shows
    ticks = frames(game, 30)
    reference = World.from_level(start)
    reference.integrator = "euler"
    for _ in range(ticks):
        reference.step(TICK)
    assert reference.state_hash() == game.world.state_hash()
    for name in ORDER[1:]:
        key(game, pygame.K_i)
        assert game.world.integrator == name
    assert any("integrator" in text for text in game.toasts.texts())


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
    assert not game.running


def test_f12_saves_a_screenshot(game, tmp_path):
    key(game, pygame.K_F12)
    game.draw(pygame.Surface(SIZE))
    shots = os.listdir(tmp_path / "shots")
    assert len(shots) == 1 and shots[0].endswith(".png")


def test_the_window_resizes_and_keeps_the_level_in_view(game):
    game.draw(pygame.Surface((1000, 700)))
    assert game.camera.size == (1000, 700)
    (x0, y0), (x1, y1) = game.camera.world_to_screen([(0, 0), (16, 9)])
    assert 0 <= x0 < x1 <= 1000 and 0 <= y1 < y0 <= 700


def test_the_energy_plot_never_covers_a_fitted_level(game):
    from game.hud import energy_plot_rect, HINT_HEIGHT
    key(game, pygame.K_e)
    assert game.play.show_energy
    plot = energy_plot_rect(game.camera.size, HINT_HEIGHT)
    x0, y0, x1, y1 = game.world.bounds
    corners = game.camera.world_to_screen([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
    assert not any(plot.collidepoint(float(x), float(y)) for x, y in corners)
    assert corners[:, 0].max() <= plot.left
    key(game, pygame.K_e)                                 # hidden: the level takes the room back
    assert game.camera.world_to_screen((x1, y0))[0] > plot.left
    game.resize((500, 400))                               # too narrow to give the plot a column
    key(game, pygame.K_e)
    assert game.camera.scale > 500 * 0.5 / (x1 - x0)      # the level keeps most of the width


# ---- live reload --------------------------------------------------------------------------------
def test_a_changed_level_is_reloaded_and_a_broken_one_is_survived(game, level):
    frames(game, 3)
    camera = game.camera.key()
    _write(level, dict(LEVEL, name="Edited", balls=LEVEL["balls"] * 1 + [{"pos": [4, 4]}]))
    frames(game, 40)                                     # well within a second
    assert game.world.name == "Edited" and game.world.count == 2
    assert game.camera.key() == camera                   # the view stays where it was
    assert game.session.error == ""

    level.write_text('{"name": "Broken", "polylines": [{"points": [[0, 0], [1, "a"]]}]')
    frames(game, 40)
    assert game.session.error and "\n" not in game.session.error
    assert game.world.name == "Edited"                   # the last good level keeps running
    t = game.world.time
    frames(game, 10)
    assert game.world.time > t
    game.draw(pygame.Surface(SIZE))

    _write(level, dict(LEVEL, name="Fixed"))
    frames(game, 40)
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


# ---- whatever the player does -------------------------------------------------------------------
_COORD = st.one_of(st.integers(-50, 850), st.integers(-10**7, 10**7))
_KEYS = [pygame.K_SPACE, pygame.K_PERIOD, pygame.K_MINUS, pygame.K_EQUALS, pygame.K_r, pygame.K_i,
         pygame.K_e, pygame.K_d, pygame.K_t, pygame.K_f, pygame.K_h, pygame.K_m, pygame.K_TAB,
         pygame.K_RIGHTBRACKET, pygame.K_LEFTBRACKET, pygame.K_ESCAPE]
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
    st.builds(lambda w, h: (pygame.VIDEORESIZE, {"size": (w, h)}), st.integers(0, 3000), st.integers(0, 2000)),
    st.just((pygame.WINDOWLEAVE, {})),
    st.integers(1, 20),                                       # that many frames pass
)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(level_index=st.integers(0, 8), script=st.lists(_EVENT, max_size=40))
def test_no_sequence_of_player_input_breaks_the_game(level_index, script, tmp_path_factory):
    """Clicks, drags and wheels anywhere (millions of pixels off-screen too), every key, resizes
    to nothing: the game handles each, keeps drawing, and the shipped level runs on."""
    from game.app import level_files
    pygame.font.init()
    path = level_files()[level_index]
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
    key(g, pygame.K_f)
    t = g.world.time
    key(g, pygame.K_PERIOD)
    assert frames(g, 3) == 1 and g.world.time == pytest.approx(t + TICK, abs=1e-9)
    x0, y0, x1, y1 = g.world.bounds
    spots = g.camera.world_to_screen([(x0 + (x1 - x0) * u, y0 + (y1 - y0) * v)
                                      for v in (0.9, 0.7, 0.5, 0.3) for u in (0.5, 0.3, 0.7, 0.1, 0.9)])
    free = [tuple(int(c) for c in p) for p in np.rint(spots)
            if g.world.ball_at(g.camera.screen_to_world(np.rint(p))) < 0]
    count = g.world.count
    click(g, free[0])
    assert g.world.count == count + 1
    assert np.allclose(g.world.pos[-1], g.camera.screen_to_world(free[0]))
