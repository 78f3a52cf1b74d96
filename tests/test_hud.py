"""The HUD: its pieces draw where they should, its text is cached, toasts come one at a
time, the energy history keeps its span."""
import numpy as np
import pygame
import pytest

from game.draw.hud import HINT_HEIGHT, KEY_CAP, EnergyHistory, Hud
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
    assert v.shape[1] == 4 and v[-1, 3] == 6.0
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


@pytest.mark.parametrize("piece", ["banner", "toast", "hint"])
def test_the_banner_toast_and_hint_keep_to_the_bottom_row_and_never_cover_the_level(piece):
    hud = Hud()
    message = "levels/x.json:12:7: segments[3].b: expected [x, y], got [1, \"a\"] " * 4   # too long
    draw = {"banner": lambda s: hud.draw_banner(s, message),
            "toast": lambda s: hud.draw_toast(s, ("reloaded x.json", 1.0)),
            "hint": lambda s: hud.draw_hint(s, [("I", "integrator"), ("E", "energy")])}[piece]
    rows = _changed_rows(draw)
    assert len(rows) and rows.min() >= 720 - HINT_HEIGHT           # one line, where the level is not
    assert len(_changed_rows(lambda s: hud.draw_banner(s, ""))) == 0


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
    from game.draw.hud import SIZE_BODY, _fit
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
