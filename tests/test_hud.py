"""The HUD: its pieces draw, its text is cached, the energy history keeps its span."""
import pygame
import pytest

from game.hud import EnergyHistory, Hud


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
    top = hud.draw_banner(surface, "levels/x.json:12:7: segments[3].b: expected [x, y], got [1, \"a\"]")
    assert top > 0
    assert hud.draw_banner(surface, "") == 0
    bar = hud.draw_bar(surface, top, "Funnel", "A long description " * 30, "euler",
                       ["1 balls", "cursor (1, 2) m"], (3, 20))
    assert bar.top == top and bar.width == 1280
    hud.draw_bar(pygame.Surface((300, 200)), 0, "A very long level name " * 5, "", "rk4", ["x"], None)
    hud.draw_complete(surface, top)
    hud.draw_status(surface, top, True, 0.25)
    hud.draw_toasts(surface, [("integrator: rk4", 1.0), ("fading", 0.3)])
    hud.draw_help(surface, [("H", "help"), ("Esc", "quit")])
    assert hud.draw_energy(surface, history) is not None
    assert hud.text("same", 22) is hud.text("same", 22)          # static text is cached
