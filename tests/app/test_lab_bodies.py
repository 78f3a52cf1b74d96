"""The integrator lab with bodies (game.app.lab, issue 35): the ghost's bodies are stepped,
compared, booked and drawn as its balls are, and the player's body actions in play (spawn,
fling, grab, carry, delete, Ctrl+Z) reach the ghost's body of the same id."""
import math

import numpy as np
import pygame
import pytest

from body_scenes import box, floor_level
from game.app.lab import Lab, body_energies, body_gap
from game.draw.bodies import body_outline
from game.level import complete
from game.physics import bodies as world_bodies
from game.physics.world import World
from tests.app.test_app import LEVEL, _post, click, drag, frames, key
from tests.modes.test_goals_play import data, make_game, screen  # noqa: F401
from tests.modes.test_play_bodies import ctrl_z, pick

TICK = 1 / 60
G = 9.81
JOINED = dict(LEVEL, bodies=[{"shape": "box", "center": [8, 5], "size": [1.0, 0.5]},
                             {"shape": "capsule", "a": [3, 5], "b": [5, 5], "radius": 0.1}],
              joints=[{"kind": "rope", "a": {"body": 0}, "b": [8, 8], "length": 3},
                      {"kind": "rod", "a": {"body": 0}, "b": {"body": 1}, "offset_a": [-0.4, 0]}])


def body_arrays(world):
    b = world.bodies
    return [b.pos, b.vel, b.angle, b.spin, b.ids, b.joint_rows]


def assert_bodies_equal_to_the_bit(world, ghost):
    assert world.state_hash() == ghost.state_hash()
    for x, y in zip(body_arrays(world), body_arrays(ghost)):
        assert x.shape == y.shape and x.tobytes() == y.tobytes()
    assert world.bodies.joint_ends == ghost.bodies.joint_ends


def plank_pendulum(amplitude, integrator="rk4", length=2.0, thickness=0.1):
    """A 2 m plank pinned by one end at (0, 10), let go ``amplitude`` rad from hanging."""
    angle = -math.pi / 2 + amplitude
    centre = [length / 2 * math.cos(angle), 10 + length / 2 * math.sin(angle)]
    return floor_level([box(*centre, length, thickness, angle)], walls=False, integrator=integrator,
                       joints=[{"kind": "rod", "a": {"body": 0}, "b": [0, 10], "offset_a": [-length / 2, 0],
                                "length": 0}])


# ---- the books -------------------------------------------------------------------------------
def test_a_bodys_energy_is_its_kinetic_rotational_and_gravitational_energy():
    world = World.from_level(floor_level([box(0, 3, 1.0, 0.5, 0.4, vel=[2.0, -1.0], spin=3.0),
                                          box(4, 7, 0.3, 2.0, 1.1, vel=[-1.0, 5.0], spin=-2.0)]))
    b = world.bodies
    want = [0.5 * m * (v @ v) + 0.5 * i * w * w + m * G * p[1]
            for m, v, i, w, p in zip(b.mass, b.vel, b.inertia, b.spin, b.pos)]
    assert np.allclose(body_energies(world), want, rtol=1e-12)
    assert body_energies(world).sum() == pytest.approx(sum(b.energy(world.forces.gravity)), rel=1e-12)


def test_a_thrown_body_gains_what_euler_adds_each_sub_step_and_rk4_nothing():
    """Under a constant g, explicit Euler's sub-step x += h v, v += h g adds m |g|^2 h^2 / 2 of
    energy and puts the body h^2 g / 2 lower than the exact parabola each sub-step; rk4 is
    exact for it. The lab reads both off: the energy change and the gap."""
    world = World.from_level(floor_level([box(0, 20, 1.0, 0.5, 0.3, vel=[3.0, 12.0], spin=2.0)], walls=False))
    lab = Lab(world, integrator="euler")
    assert world.integrator == "rk4"
    ticks, h = 60, TICK / world.substeps
    for _ in range(ticks):
        world.step(TICK)
        lab.step(TICK)
    lab.record()
    n = ticks * world.substeps
    world_change, ghost_change = lab.energy_change()
    assert world_change == pytest.approx(0.0, abs=1e-9)
    assert ghost_change == pytest.approx(n * 0.5 * world.bodies.mass[0] * G * G * h * h, rel=1e-6)
    assert lab.gap() == pytest.approx(n * 0.5 * G * h * h, rel=1e-6)       # the same turn: the drop alone


def test_a_body_added_or_taken_is_not_counted_as_drift():
    world = World.from_level(floor_level([box(0, 0.5)]))
    lab = Lab(world, integrator="rk4")
    thrown = box(5, 9, 0.6, 0.6, 0.2, vel=[4.0, 2.0], spin=5.0)
    made = complete({"segments": [{"a": [0, 0], "b": [1, 0]}], "bodies": [thrown]})["bodies"][0]
    world_bodies.add(world, [made])
    lab.spawned_body(made)
    assert lab.energy_change() == pytest.approx((0.0, 0.0), abs=1e-9)
    assert lab.ghost.bodies.ids.tolist() == world.bodies.ids.tolist()
    first = int(world.bodies.ids[0])
    world_bodies.remove(world, [0])
    lab.removed_body(first)
    assert lab.ghost.bodies.ids.tolist() == world.bodies.ids.tolist()
    assert lab.energy_change() == pytest.approx((0.0, 0.0), abs=1e-9)


# ---- the gap ---------------------------------------------------------------------------------
def test_the_gap_is_the_farthest_any_point_of_a_body_is_from_the_same_point_of_its_ghost():
    """Moved and turned by hand (the test's own copy), the gap is the largest distance between
    matching points of the two bodies: no point of the shape (its core's points grown by any
    offset up to its radius) goes farther, and the farthest of them goes that far."""
    world = World.from_level(floor_level([box(0, 3, 2.0, 0.6, 0.2, radius=0.15),
                                          {"shape": "capsule", "a": [4, 6], "b": [6, 7], "radius": 0.3}]))
    ghost = world.copy()
    rng = np.random.default_rng(3)
    ghost.bodies.pos = ghost.bodies.pos + rng.normal(0, 0.2, (2, 2))
    ghost.bodies.angle = ghost.bodies.angle + np.array([0.7, -1.9])
    farthest = []
    for b in range(2):
        n, r = int(world.bodies.count[b]), float(world.bodies.radius[b])
        core = world.bodies.local[b, :n]
        t = np.linspace(0.0, 2.0 * np.pi, 4000, endpoint=False)
        ring = (core[:, None, :] + r * np.stack((np.cos(t), np.sin(t)), axis=1)[None]).reshape(-1, 2)
        weights = rng.dirichlet(np.ones(n), 2000)                           # and points inside
        turn = rng.uniform(0, 2.0 * np.pi, 2000)
        inside = weights @ core + r * np.sqrt(rng.uniform(0, 1, (2000, 1))) * np.stack((np.cos(turn), np.sin(turn)), 1)
        local = np.vstack((ring, inside))
        moved = [p + np.stack((np.cos(a) * local[:, 0] - np.sin(a) * local[:, 1],
                               np.sin(a) * local[:, 0] + np.cos(a) * local[:, 1]), axis=1)
                 for p, a in ((world.bodies.pos[b], world.bodies.angle[b]), (ghost.bodies.pos[b], ghost.bodies.angle[b]))]
        farthest.append(float(np.max(np.linalg.norm(moved[1] - moved[0], axis=1))))
    gap = body_gap(world, ghost)
    assert max(farthest) <= gap + 1e-12 and gap == pytest.approx(max(farthest), rel=1e-6)
    # Bodies the two do not share are left out; the others match by id, not by index.
    ghost.bodies.remove(np.array([False, True]))
    assert body_gap(world, ghost) == pytest.approx(farthest[1], rel=1e-6)


# ---- the physical pendulum -------------------------------------------------------------------
def _pendulum(integrator, seconds=10.0):
    world = World.from_level(plank_pendulum(0.5))
    lab = Lab(world, integrator=integrator)
    swing = world.bodies.mass[0] * G * 1.0 * (1.0 - math.cos(0.5))       # J: its swing's energy
    changes = []
    for _ in range(int(round(seconds / TICK))):
        world.step(TICK)
        lab.step(TICK)
        lab.record()
        changes.append(lab.energy_change())
    return lab, np.array(changes) / swing


def test_the_same_integrator_keeps_the_ghosts_plank_equal_to_the_bit():
    lab, changes = _pendulum("rk4", seconds=3.0)
    assert_bodies_equal_to_the_bit(lab.world, lab.ghost)
    assert lab.gap() == 0.0 and (changes[:, 0] == changes[:, 1]).all()


def test_a_plank_on_a_pin_under_euler_departs_from_rk4_and_rk4_keeps_its_energy():
    """The lab tells the two apart on a physical pendulum: the rk4 world keeps the swing's
    energy within 0.5 %, the euler ghost strays from it several times as far (its position
    shift of -h^2 g each sub-step, which the pin takes back, still shows: the pin's solve works
    on velocities, so on a pinned body euler's gain stays a fraction of the swing instead of
    running away as on a free one) and swings apart from the world."""
    lab, changes = _pendulum("euler")
    world_most, ghost_most = np.abs(changes).max(axis=0)
    assert world_most < 0.005
    assert changes[:, 1].max() > 3.0 * changes[:, 0].max() and ghost_most > 3.0 * world_most
    assert lab.gap() > 1e-3


# ---- in the game -----------------------------------------------------------------------------
def same_lab(g):
    """The lab with the ghost under the world's own integrator (G then starts a lab under the
    next one; a lab under the same one proves the mirroring to the bit)."""
    key(g, pygame.K_g)
    g.play.lab = Lab(g.world, integrator=g.world.integrator)
    return g.play.lab


def test_every_body_action_in_play_reaches_the_ghost_and_keeps_it_equal_to_the_bit(tmp_path, data):
    g = make_game(tmp_path, JOINED)
    lab = same_lab(g)
    frames(g, 10)
    pick(g, "box")
    click(g, screen(g, (11, 6)))                                       # a spawn
    spawned = int(g.world.bodies.ids[-1])
    assert spawned in lab.ghost.bodies.ids
    pick(g, "plank")
    drag(g, screen(g, (12, 4)), screen(g, (13, 5)))                    # a fling
    frames(g, 20)
    drag(g, screen(g, g.world.bodies.pos[0]), screen(g, (10, 7)), release=False)   # a grab, held
    assert len(lab.body_grabs) == 1
    frames(g, 20)
    _post(g, pygame.MOUSEBUTTONUP, pos=screen(g, (10, 7)), button=1)
    assert not lab.body_grabs and not lab.ghost.bodies.joint_handle.any()
    frames(g, 10)
    assert_bodies_equal_to_the_bit(g.world, lab.ghost)
    target = int(g.world.bodies.ids[0])
    click(g, screen(g, g.world.bodies.pos[0]), button=3)               # a delete, with its joints
    assert target not in g.world.bodies.ids and target not in lab.ghost.bodies.ids
    assert len(lab.ghost.bodies.joint_kind) == len(g.world.bodies.joint_kind)
    frames(g, 10)
    ctrl_z(g)                                                          # it comes back in both
    assert target in g.world.bodies.ids and target in lab.ghost.bodies.ids
    frames(g, 10)
    assert_bodies_equal_to_the_bit(g.world, lab.ghost)
    ctrl_z(g)                                                          # the fling's plank goes
    ctrl_z(g)                                                          # and the spawned box
    assert spawned not in g.world.bodies.ids and spawned not in lab.ghost.bodies.ids
    frames(g, 10)
    assert_bodies_equal_to_the_bit(g.world, lab.ghost)
    assert lab.gap() == 0.0
    world_change, ghost_change = lab.energy_change()
    assert world_change == ghost_change


def test_g_s_ghost_gets_the_spawned_body_with_its_id_and_loses_the_deleted_one(tmp_path, data):
    g = make_game(tmp_path, JOINED)
    key(g, pygame.K_g)
    lab = g.play.lab
    assert lab.integrator != g.world.integrator
    pick(g, "triangle")
    click(g, screen(g, (11, 6)))
    assert g.world.bodies.ids.tolist() == lab.ghost.bodies.ids.tolist()
    assert lab.ghost.bodies.definitions[-1]["shape"] == "polygon"
    assert np.array_equal(lab.ghost.bodies.pos[-1], g.world.bodies.pos[-1])
    assert lab.energy_change() == pytest.approx((0.0, 0.0), abs=1e-9)    # a body added: no drift
    new = int(g.world.bodies.ids[-1])
    click(g, screen(g, g.world.bodies.pos[-1]), button=3)
    assert new not in g.world.bodies.ids and new not in lab.ghost.bodies.ids


def test_paused_a_carried_body_is_carried_in_the_ghost_by_the_same_point(tmp_path, data):
    g = make_game(tmp_path, JOINED)
    key(g, pygame.K_g)
    lab = g.play.lab
    g.clock.paused = True
    drag(g, screen(g, (8.3, 5.1)), screen(g, (10, 6)), release=False)
    hold = g.play.left
    (ghost_handle,) = lab.body_grabs.values()
    k = int(np.flatnonzero(lab.ghost.bodies.joint_handle == ghost_handle)[0])
    assert np.array_equal(lab.ghost.bodies.joint_rows[k, :2], hold.local)  # held by the same point of it
    assert np.allclose(lab.ghost.bodies.pos[0], g.world.bodies.pos[0])      # (paused: the same pose)
    _post(g, pygame.MOUSEBUTTONUP, pos=screen(g, (10, 6)), button=1)
    assert not lab.ghost.bodies.joint_handle.any()


def test_the_ghosts_bodies_are_drawn_as_outlines_in_its_colour(tmp_path, data):
    g = make_game(tmp_path, dict(LEVEL, bodies=[{"shape": "box", "center": [5, 5], "size": [2.0, 1.0]}]))
    key(g, pygame.K_g)
    lab = g.play.lab
    lab.ghost.bodies.pos = lab.ghost.bodies.pos + np.array([4.0, 1.0])   # the test's own move: apart
    surface = pygame.Surface(g.size)
    g.draw(surface)
    colour = lab.colour()
    pixels = pygame.surfarray.pixels3d(surface)
    corners, _ = body_outline(lab.ghost.bodies, 0, g.camera.scale)
    centre = screen(g, lab.ghost.bodies.pos[0])
    middles = [screen(g, 0.5 * (corners[i] + corners[(i + 1) % 4])) for i in range(4)]
    # On each edge (within the outline's width): the ghost's colour; inside: the level shows through.
    for x, y in middles:
        near = pixels[x - 2:x + 3, y - 2:y + 3].reshape(-1, 3)
        assert (near == colour).all(axis=1).any()
    assert tuple(pixels[centre]) != colour
    world_centre = screen(g, g.world.bodies.pos[0])
    assert tuple(pixels[world_centre]) != colour                        # the real body is filled as ever


def test_a_body_grab_held_when_the_lab_starts_is_held_and_let_go_in_the_ghost_too(tmp_path, data):
    g = make_game(tmp_path, JOINED)
    press = screen(g, (8.3, 5.1))
    drag(g, press, press, release=False)
    assert g.world.bodies.joint_handle.any()
    key(g, pygame.K_g)
    lab = g.play.lab
    assert lab.ghost.bodies.joint_handle.tolist() == g.world.bodies.joint_handle.tolist()
    _post(g, pygame.MOUSEBUTTONUP, pos=press, button=1)
    assert not g.world.bodies.joint_handle.any() and not lab.ghost.bodies.joint_handle.any()
