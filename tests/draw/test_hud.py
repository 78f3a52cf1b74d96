"""The HUD: its pieces draw where they should, its text is cached, toasts come one at a
time, the energy history keeps its span."""
import numpy as np
import pygame
import pytest

from game.draw.hud import EnergyHistory, Hud
from game.draw.theme import HINT_HEIGHT, KEY_CAP, SIZE_BODY
from game.app.toasts import TOAST_SECONDS, Toasts


@pytest.fixture(scope="module", autouse=True)
def _pygame():
    pygame.font.init()
    yield


def test_energy_history_keeps_the_last_ten_seconds():
    h = EnergyHistory()
    e = {"kinetic": 1.0, "gravitational": 2.0, "spring": 3.0, "total": 6.0}
    for k in range(1200):
        h.record(k / 60, e)
    t, v = h.arrays()
    assert t[-1] - t[0] <= 10.0 + 1e-9 and t[-1] - t[0] > 9.9
    assert v.shape[1] == len(EnergyHistory.KEYS) and v[-1, 3] == 6.0
    assert v[-1, EnergyHistory.KEYS.index("walls")] == 0.0, "no walls' work given: none done"
    h.record(0.0, e)                     # time went back: a reset
    assert len(h.arrays()[0]) == 1


def test_hud_draws_every_piece_without_error():
    hud = Hud()
    surface = pygame.Surface((1280, 720))
    history = EnergyHistory()
    for k in range(100):
        history.record(k / 60, {"kinetic": k, "gravitational": -k, "spring": 0.5 * k, "total": 0.5 * k})
    bar = hud.draw_bar(surface, 0, "Funnel", "A long description " * 30, "euler",
                       ["1 balls", "cursor (1, 2) m"], (3, 20))
    assert bar.top == 0 and bar.width == 1280
    hud.draw_bar(pygame.Surface((300, 200)), 0, "A very long level name " * 5, "", "rk4", ["x"], None)
    hud.draw_complete(surface, 0, 12.25)
    hud.draw_status(surface, 0, True, 0.25)
    hud.draw_help(surface, [("H", "help"), ("Esc", "quit")])
    assert hud.draw_energy(surface, history) is not None
    assert hud.text("same", 22) is hud.text("same", 22)          # static text is cached


def _changed_rows(draw, size=(1280, 720)):
    """The rows of pixels a drawing call changes on a plain surface."""
    surface = pygame.Surface(size)
    surface.fill((7, 77, 7))
    before = pygame.surfarray.array3d(surface)
    draw(surface)
    changed = np.any(pygame.surfarray.array3d(surface) != before, axis=(0, 2))
    return np.flatnonzero(changed)


@pytest.mark.parametrize("piece", ["toast", "hint"])
def test_the_toast_and_hint_keep_to_the_bottom_row_and_never_cover_the_level(piece):
    hud = Hud()
    draw = {"toast": lambda s: hud.draw_toast(s, ("reloaded x.json", 1.0)),
            "hint": lambda s: hud.draw_hint(s, [("I", "integrator"), ("E", "energy")])}[piece]
    rows = _changed_rows(draw)
    assert len(rows) and rows.min() >= 720 - HINT_HEIGHT           # one line, where the level is not
    assert len(_changed_rows(lambda s: hud.draw_banner(s, ""))) == 0


@pytest.mark.parametrize("width", [1280, 640, 320])
def test_an_error_banner_wraps_onto_as_many_lines_as_it_needs_from_the_bottom_edge(width):
    """Issue 38: a long error was cut at the window's edge. Every word of it is on one of the
    banner's lines, each line fits the window, and the banner grows up from the bottom row
    by a line a line (a short error stays in the bottom row)."""
    from game.draw.hud import ALERT_LINES
    hud = Hud()
    message = "levels/x.json:12:7: segments[3].b: expected [x, y] in metres, got [1, \"a\"] (a string)"
    lines = hud.wrap_fit("not loaded: " + message, SIZE_BODY, width - 20, max_lines=ALERT_LINES)
    assert " ".join(lines) == "not loaded: " + message, "nothing cut"
    assert all(hud.font(SIZE_BODY).size(t)[0] <= width - 20 for t in lines)
    surface = pygame.Surface((width, 720))
    box = hud.draw_alert(surface, "not loaded: " + message)
    assert box.bottom == 720 and box.height >= len(lines) * hud.font(SIZE_BODY).get_linesize()
    assert len(lines) > 1 or width == 1280, "a narrow window: more than one line"
    rows = _changed_rows(lambda s: hud.draw_alert(s, "not loaded: " + message), (width, 720))
    assert rows.min() >= box.top and rows.max() < 720
    short = hud.draw_alert(pygame.Surface((width, 720)), "bad")
    assert short.height == HINT_HEIGHT, "one line: the bottom row only"


def test_a_key_in_the_hint_stands_on_its_own_cap():
    hud = Hud()
    surface = pygame.Surface((400, 60))
    hud.draw_hint(surface, [("I", "integrator")])
    row = pygame.surfarray.array3d(surface)[:, 60 - HINT_HEIGHT // 2]
    cap = np.flatnonzero(np.all(row == KEY_CAP, axis=1))
    assert len(cap) >= 4                                           # the cap's fill shows beside the I


def test_toasts_show_one_at_a_time_and_expire():
    toasts = Toasts()
    toasts.add("debug: contacts", now=0.0)
    toasts.add("trails on", now=0.5)
    assert toasts.texts() == ["trails on"]
    assert toasts.shown(0.6) == ("trails on", 1.0)
    assert 0 < toasts.shown(0.5 + TOAST_SECONDS - 0.1)[1] < 1          # fading out
    toasts.expire(0.5 + TOAST_SECONDS)
    assert toasts.shown(0.5 + TOAST_SECONDS) is None and toasts.texts() == []


@pytest.mark.parametrize("length", [0, 1, 40, 200, 5000, 4_000_000])
def test_fit_keeps_the_longest_prefix_that_fits_and_a_huge_message_stays_one_cheap_line(length):
    from game.draw.hud import _fit
    from game.draw.theme import SIZE_BODY
    font = Hud().font(SIZE_BODY)
    text = ("levels/x.json:1:2: unknown key 'k" + "abcdefghij" * (length // 10 + 1))[:length]
    width = 300
    got = _fit(font, text, width)
    assert font.size(got)[0] <= width
    if got == text:
        return
    assert got.endswith("...") and text.startswith(got[:-3])
    # Brute force: one character more (before the "...") would not fit.
    prefix = got[:-3]
    assert font.size(text[:len(prefix) + 1] + "...")[0] > width or text[len(prefix)] == " "


def test_the_banner_draws_a_four_million_character_message_in_one_line():
    surface = pygame.Surface((800, 450))
    Hud().draw_banner(surface, "unknown key '" + "k" * 4_000_000 + "'")
    assert surface.get_at((400, 100))[:3] == (0, 0, 0)          # only the bottom row was drawn


# ---- text over the world (issue 27, bug 4) ------------------------------------------------------
BRIGHT = (250, 250, 0)          # stands for balls panned under the HUD


def _on_bright(draw, size=(1000, 400)):
    surface = pygame.Surface(size)
    surface.fill(BRIGHT)
    draw(surface)
    return pygame.surfarray.array3d(surface)


def test_the_key_hint_lies_on_a_panel_across_its_row():
    """Panned under the hint, the world must not show through between its words."""
    hud = Hud()
    pixels = _on_bright(lambda s: hud.draw_hint(s, [("H", "help"), ("I", "integrator")]))
    row = pixels[:, 400 - HINT_HEIGHT:]
    assert not np.any(np.all(row == BRIGHT, axis=2))


def test_the_debug_options_line_lies_on_a_panel():
    from game.draw.debug import DebugLayers
    from game.physics.world import World
    w = World()
    pixels = _on_bright(lambda s: DebugLayers().draw_solver_options(s, w))
    xs, ys = np.nonzero(np.any(pixels != BRIGHT, axis=2))
    assert len(xs) > 200
    box = pixels[xs.min() + 1:xs.max(), ys.min() + 1:ys.max()]
    assert not np.any(np.all(box == BRIGHT, axis=2))             # the text's box is all panel


@pytest.mark.parametrize("length", [30, 120, 400, 5000])
def test_a_long_toast_wraps_inside_the_window_and_shows_it_all_when_it_can(length):
    """Never cut at the window's edge: every line fits, the box stays inside the window,
    and up to MESSAGE_LINES lines the whole text shows (beyond, the last line ends in ...)."""
    from game.draw.hud import MESSAGE_LINES
    from game.draw.theme import SIZE_BODY
    hud = Hud()
    words = "polygons[2]: a corner at ([28.0, 3.5]) meeting edge 2 crosses edge 5 of the same polygon".split()
    message = " ".join((words * (length // 10 + 1)))[:length].strip()
    width = 640
    lines = hud.wrap_fit(message, SIZE_BODY, width - 40, bold=True)
    assert 1 <= len(lines) <= MESSAGE_LINES
    assert all(hud.font(SIZE_BODY, True).size(t)[0] <= width - 40 for t in lines)
    if " ".join(lines) != message:
        assert lines[-1].endswith("...") and len(lines) == MESSAGE_LINES
    pixels = _on_bright(lambda s: hud.draw_toast(s, (message, 1.0)), size=(width, 400))
    changed = np.flatnonzero(np.any(np.any(pixels != BRIGHT, axis=2), axis=1))
    assert changed.min() >= 0 and changed.max() < width
    assert np.all(pixels[0:3, 399] == BRIGHT) or changed.min() > 0   # a margin at the left


def test_a_short_toast_shows_whole_on_one_line():
    from game.draw.theme import SIZE_BODY
    assert Hud().wrap_fit("integrator: rk4", SIZE_BODY, 600) == ["integrator: rk4"]


def _stats_left(stats):
    """x of the left edge of the bar's right block (its "integrator" label) and of the right
    edge of its numbers."""
    hud = Hud()
    surface = pygame.Surface((1280, 100))
    surface.fill((0, 0, 0))
    hud.draw_bar(surface, 0, "", "", "rk4", stats, None)
    from game.draw.theme import TEXT, TEXT_DIM
    pixels = pygame.surfarray.array3d(surface)[640:, 4:72]
    label = np.flatnonzero(np.any(np.all(pixels == TEXT_DIM, axis=2), axis=1))      # "integrator  (I ...)"
    numbers = np.flatnonzero(np.any(np.all(pixels == TEXT, axis=2), axis=1))
    return 640 + label.min(), 640 + numbers.max()


def test_the_bar_s_numbers_change_width_without_moving_the_block():
    """The issue's case: the right block shifted as "9.9 s" became "10.0 s"."""
    def stats(balls, t, fps, tick):
        return [[(f"{balls} balls", "88888 balls"), (f"time {t:.1f} s", "time 8888.8 s"), ("energy 1.2 J", "energy -8.88M J")],
                [(f"{fps} FPS", "888 FPS"), (f"physics {tick:.2f} ms/tick", "physics 88.88 ms/tick"), ("", "draw 88.8 ms")]]
    a = _stats_left(stats(3, 9.9, 7, 0.5))
    b = _stats_left(stats(12345, 1234.5, 120, 12.25))
    assert a[0] == b[0]                                          # the block's left edge stays
    assert abs(a[1] - b[1]) <= 2                                 # and its right edge (numbers right-aligned)


def test_a_toast_hides_the_key_hint_entry_it_would_half_cover():
    """Bug 4's kind: beside a toast, the key hint shows whole entries only (never "E ener")."""
    import pygame
    from game.draw.hud import Hud
    from game.draw.theme import HINT_HEIGHT
    pygame.init()
    surface = pygame.Surface((700, 200))
    hud = Hud()
    pairs = [("H", "help"), ("L", "levels"), ("W", "balls / draw"), ("I", "integrator"), ("E", "energy"),
             ("D", "debug")]
    hud.draw_hint(surface, pairs)
    spans = list(hud._hint_spans)
    box = hud.draw_toast(surface, ("a puzzle: draw with the mouse", 1.0))
    row = pygame.surfarray.array3d(surface)[:, 200 - HINT_HEIGHT + 4:200 - 4]
    text = row.max(axis=(1, 2)) > 120                  # columns with bright (text) pixels
    covered = [(x0, x1) for x0, x1 in spans if x1 > box.left - 8]
    assert covered and len(covered) < len(spans), "the case: some entries whole, one under the toast"
    for x0, x1 in spans:
        if (x0, x1) in covered:
            assert not text[x0:box.left - 1].any(), f"entry at {x0}-{x1} half shown"
        else:
            assert text[x0:x1].any(), f"entry at {x0}-{x1} hidden"
    hud.draw_toast(surface, None)
    assert hud._hint_spans == []


def test_the_energy_axis_keeps_one_format_however_big_the_values_grow():
    """Issue 37: the axis read "171M" then "8.94e+09": one format, thousands' suffixes, and a
    value that rounds up to the next thousand takes the next suffix (never "1e+03k")."""
    from game.draw.hud import short_number
    assert [short_number(v) for v in (171e6, 8.94e9, 2.5e12, -8.88e6, 12345.0, 999.7e3)] == \
        ["171M", "8.94G", "2.5T", "-8.88M", "12.3k", "1M"]
    assert short_number(1e30) == "1e30" and short_number(3.0e5, signed=True) == "+300k"
    assert short_number(123.4) == "123" and short_number(1.234) == "1.23"
    for v in np.geomspace(1e4, 1e300, 400):
        text = short_number(v)
        assert "e+" not in text and float(text.rstrip("kMGTPEZY").split("e")[0]) < 1000
