"""The integrator lab (game.app.lab): a ghost of the world stepped under a second integrator."""
from game.paths import ROOT as ROOT_DIR  # noqa: E402
import json
import os

import numpy as np
import pygame
import pytest

from game.app import lab as lab_module
from game.app.loop import App, TICK
from game.draw.hud import energy_plot_rect
from game.draw.theme import HINT_HEIGHT
from game.app.lab import Lab, ball_energies, position_gap
from game.level import load
from game.physics.world import World

ROOT = ROOT_DIR
LEVELS = os.path.join(ROOT, "levels")
SHIPPED = sorted(f for f in os.listdir(LEVELS) if f.endswith(".json") and f != "level.schema.json")
SIZE = (960, 540)


def world_of(name, ticks=0):
    world = World.from_level(load(os.path.join(LEVELS, name)))
    for _ in range(ticks):
        world.step(TICK)
    return world


def arrays(world):
    return [world.pos, world.vel, world.angle, world.spin, world.radius, world.inv_mass, world.ids]


def assert_same_bits(a, b):
    assert a.state_hash() == b.state_hash()
    for x, y in zip(arrays(a), arrays(b)):
        assert x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()


@pytest.mark.parametrize("name", SHIPPED)
def test_the_ghost_starts_bit_identical_and_stays_so_under_the_same_integrator(name):
    world = world_of(name, ticks=30)
    lab = Lab(world, integrator=world.integrator)
    assert_same_bits(world, lab.ghost)
    for _ in range(90):
        world.step(TICK)
        lab.step(TICK)
    assert_same_bits(world, lab.ghost)
    assert lab.gap() == 0.0


def test_a_spawn_sent_to_both_worlds_keeps_them_bit_identical(execution):
    world = World.from_level(load(os.path.join(LEVELS, "01_ball_pit.json")), execution=execution)
    for _ in range(20):
        world.step(TICK)
    lab = Lab(world, integrator=world.integrator)
    for k in range(120):
        if k in (10, 50):
            point, velocity = (8.0 + k / 10, 15.0), (3.0, -1.0)
            world.add_ball(point, velocity, radius=0.3, spin=2.0)
            lab.spawned(point, velocity, radius=0.3, spin=2.0)
        world.step(TICK)
        lab.step(TICK)
    assert world.count == lab.ghost.count
    assert_same_bits(world, lab.ghost)


def test_the_copy_shares_nothing_the_step_writes():
    world = world_of("05_springs.json", ticks=10)
    before = world.state_hash()
    ghost = world.copy()
    ghost.integrator = "euler"
    for _ in range(60):
        ghost.step(TICK)
    ghost.add_ball((3.0, 3.0))
    assert world.state_hash() == before and world.count + 1 == ghost.count
    for a, b in zip(arrays(world), arrays(ghost)):
        assert not np.shares_memory(a, b)


def _spring_energy_changes(integrator, seconds=3.0):
    """The springs level under rk4 and a lab ghost under ``integrator``: the lab and the
    largest energy change each world showed at any tick (J)."""
    world = world_of("05_springs.json")
    world.integrator = "rk4"
    lab = Lab(world, integrator=integrator)
    highest = [-np.inf, -np.inf]
    for _ in range(int(round(seconds / TICK))):
        world.step(TICK)
        lab.step(TICK)
        lab.record()
        highest = [max(h, c) for h, c in zip(highest, lab.energy_change())]
    return lab, highest


def test_on_the_springs_level_euler_drifts_and_rk4_holds():
    """The lesson, measured: from one state, the euler ghost's energy grows without bound (no
    ball was added: the lab leaves those out anyway) while the rk4 ghost never gains energy
    (the springs' dampers and the floor only take it away), as the rk4 world beside it."""
    euler, euler_high = _spring_energy_changes("euler")
    rk4, rk4_high = _spring_energy_changes("rk4")
    start = abs(euler.ledgers[0].start)
    assert start > 100.0
    assert euler.blown_up or euler_high[1] > 100.0 * start
    assert rk4_high[1] <= 0.01 * start and rk4_high[0] <= 0.01 * start
    assert rk4.energy_change()[1] == rk4.energy_change()[0] < 0.0
    assert euler.last_gap > 1.0 and rk4.last_gap == 0.0


def test_the_gap_is_the_largest_distance_between_balls_of_the_same_id():
    rng = np.random.default_rng(7)
    world = World(bounds=(0, 0, 20, 20))
    world.add_balls([{"pos": list(p)} for p in rng.uniform(2, 18, (12, 2))])
    ghost = world.copy()
    for k in range(ghost.count):
        ghost.pos[k] = ghost.pos[k] + rng.normal(0, 0.3, 2)     # the test's own copy, moved by hand
    want = max(float(np.linalg.norm(world.pos[k] - ghost.pos[k])) for k in range(world.count))
    assert position_gap(world, ghost) == pytest.approx(want, rel=1e-12)
    # Balls the two do not share are left out; the others match by id, not by index.
    ghost.remove_balls([0, 5])
    want = max(float(np.linalg.norm(world.pos[k] - ghost.pos[np.flatnonzero(ghost.ids == world.ids[k])[0]]))
               for k in range(world.count) if world.ids[k] in ghost.ids)
    assert position_gap(world, ghost) == pytest.approx(want, rel=1e-12)


def test_balls_that_come_and_go_are_not_counted_as_drift():
    world = world_of("01_ball_pit.json", ticks=5)
    world.integrator = "rk4"
    lab = Lab(world, integrator="rk4")
    lab.record()
    world.add_ball((10.0, 16.0), (4.0, 0.0), radius=0.3)
    lab.spawned((10.0, 16.0), (4.0, 0.0), radius=0.3)
    world_change, ghost_change = lab.energy_change()
    assert world_change == pytest.approx(0.0, abs=1e-9) and ghost_change == pytest.approx(0.0, abs=1e-9)
    record = world.take_ball(3)
    lab.removed(record.ball_id, keep=True)
    assert lab.energy_change()[0] == pytest.approx(0.0, abs=1e-9)
    assert lab.energy_change()[1] == pytest.approx(0.0, abs=1e-9)
    # A ball's own energy is its kinetic, rotational and gravitational energy.
    e = ball_energies(world)
    m = 1.0 / world.inv_mass
    want = 0.5 * m * (world.vel ** 2).sum(1) + 0.5 * world.spin ** 2 / world.inv_inertia + m * 9.81 * world.pos[:, 1]
    assert np.allclose(e, want)


# ---- in the game -------------------------------------------------------------------------
@pytest.fixture
def game(tmp_path):
    pygame.font.init()
    path = os.path.join(LEVELS, "05_springs.json")
    g = App(path, size=SIZE, level_dir=LEVELS, screenshot_dir=str(tmp_path / "shots"))
    g.clock.budget = float("inf")
    return g


def press(g, key, mod=0):
    g.handle_event(pygame.event.Event(pygame.KEYDOWN, key=key, mod=mod, unicode=""))


def test_g_starts_the_lab_and_the_player_actions_go_to_both_worlds(game):
    press(game, pygame.K_g)
    lab = game.play.lab
    assert lab is not None and game.play.show_energy
    assert lab.integrator != game.world.integrator
    game.advance(30)
    assert lab.ghost.time == game.world.time
    # A click spawns in both worlds; a right click deletes in both; Ctrl+Z brings it back in both.
    spot = game.camera.world_to_screen(np.array([4.0, 8.0]))
    x, y = int(spot[0]), int(spot[1])
    for kind in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP):
        game.handle_event(pygame.event.Event(kind, button=1, pos=(x, y)))
    assert game.world.count == lab.ghost.count and game.world.ids[-1] == lab.ghost.ids[-1]
    for kind in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP):
        game.handle_event(pygame.event.Event(kind, button=3, pos=(x, y)))
    assert game.world.count == lab.ghost.count
    press(game, pygame.K_z, pygame.KMOD_CTRL)
    assert game.world.count == lab.ghost.count
    # Shift+I: the ghost's next integrator, from the world as it is; R restarts both.
    before = lab.integrator
    press(game, pygame.K_i, pygame.KMOD_SHIFT)
    assert game.play.lab.integrator != before and game.play.lab.ghost.state_hash() == game.world.state_hash()
    press(game, pygame.K_r)
    assert game.play.lab is not None and game.play.lab.ghost.time == 0.0 == game.world.time
    surface = pygame.Surface(SIZE)
    game.draw(surface)
    press(game, pygame.K_g)
    assert game.play.lab is None


def test_a_grab_holds_the_same_ball_in_both_worlds(game):
    press(game, pygame.K_g)
    lab = game.play.lab
    k = 0
    ball = game.world.pos[k].copy()
    spot = game.camera.world_to_screen(ball)
    game.handle_event(pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1, pos=(int(spot[0]), int(spot[1]))))
    assert len(lab.grabs) == 1 and len(lab.ghost.grabs) == 1
    (ghost_grab,) = lab.ghost.grabs.values()
    assert ghost_grab.ball_id == int(game.world.ids[game.world.ball_at(ball)])
    game.handle_event(pygame.event.Event(pygame.MOUSEBUTTONUP, button=1, pos=(int(spot[0]), int(spot[1]))))
    assert not lab.grabs and not lab.ghost.grabs


def test_a_grab_held_when_the_lab_starts_is_held_and_let_go_in_the_ghost_too(game):
    ball = game.world.pos[3].copy()
    spot = game.camera.world_to_screen(ball)
    game.handle_event(pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1, pos=(int(spot[0]), int(spot[1]))))
    press(game, pygame.K_g)
    lab = game.play.lab
    assert len(lab.ghost.grabs) == 1
    game.handle_event(pygame.event.Event(pygame.MOUSEBUTTONUP, button=1, pos=(int(spot[0]), int(spot[1]))))
    assert not game.world.grabs and not lab.ghost.grabs


def test_the_lab_draws_the_ghost_as_outlines_and_both_energy_lines(game):
    press(game, pygame.K_g)
    game.advance(40)                       # the euler ghost's soft body is flying apart by now
    surface = pygame.Surface(SIZE)
    game.draw(surface)
    lab = game.play.lab
    colour = lab.colour()
    pixels = pygame.surfarray.pixels3d(surface)
    plot = energy_plot_rect(SIZE, HINT_HEIGHT)
    centres = game.camera.world_to_screen(lab.ghost.pos)
    radii = np.rint(lab.ghost.radius * game.camera.scale).astype(int)
    far = np.array([np.min(np.linalg.norm(game.world.pos - p, axis=1)) > 3 * r
                    for p, r in zip(lab.ghost.pos, lab.ghost.radius)])
    seen = 0
    for (x, y), r, alone in zip(centres, radii, far):
        x, y = int(x), int(y)
        if alone and 60 < y < SIZE[1] - 60 and 10 < x < plot.left - 10 and r >= 3:
            seen += 1
            assert tuple(pixels[x + r - 1, y]) == colour          # on the outline: the ghost's colour
            assert tuple(pixels[x, y]) != colour                  # inside it: the level shows through
    assert seen >= 1
    inside = pixels[plot.left:plot.right, plot.top:plot.bottom].reshape(-1, 3)
    world_colour = lab_module.INTEGRATOR_COLOURS[game.world.integrator]
    assert (inside == colour).all(axis=1).sum() > 20 and (inside == world_colour).all(axis=1).sum() > 20
    line = lab.line()
    assert "apart by" in line and lab.integrator in line and f"{lab.last_gap:.3g} m" in line
