"""Box2D v3's step shape as an option (SolverOptions.keep_contacts, issue 26): the contacts
prepared at a tick's first sub-step, with a speculative margin, and kept through the others,
each contact's depth following the balls along its fixed normal (s = s0 + d . n, Box2D's
baseSeparation), the ball-static contacts measured afresh.

The laws of tests/physics/test_laws.py that hold under it are run here again with the option
on (the same assertions, through a fixture that makes every new World keep its contacts);
the ones it breaks, and why, are in docs/performance.md (issue 26: it stays off).
"""
import functools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import test_laws as laws
from game.level import load
from game.physics import solver as solver_module
from game.physics.contacts import refresh_numpy, held_rows
from game.physics.world import TICK, World
from tests.conftest import COMPILED

G = laws.G


@pytest.fixture
def kept(monkeypatch):
    """Every World made in the test keeps its contacts a tick."""
    monkeypatch.setattr(solver_module, "SolverOptions", functools.partial(solver_module.SolverOptions,
                                                                          keep_contacts=True))


def kept_world(level_path, execution, one_call=True):
    w = World.from_level(load(level_path), execution=execution)
    w.solver.options.keep_contacts = True
    if not one_call:
        w._fused = lambda kernels: False          # the compiled kernels one by one
    return w


@pytest.mark.skipif(COMPILED is None, reason="the compiled execution is not loaded")
@pytest.mark.parametrize("name", ["01_ball_pit", "04_polygons", "06_cradle", "23_car_bridge"])
def test_kept_contacts_give_the_same_bits_on_numpy_the_kernels_and_the_one_call_tick(name):
    path = f"{laws.ROOT}/levels/{name}.json"
    worlds = [kept_world(path, "numpy"), kept_world(path, "compiled"), kept_world(path, "compiled", one_call=False)]
    for w in worlds:
        for _ in range(120):
            w.step(TICK)
    assert len({w.state_hash() for w in worlds}) == 1
    assert worlds[0].solver.options.keep_contacts
    assert "kept a tick" in worlds[0].solver.options.describe()


def test_a_kept_contacts_depth_follows_the_balls_along_its_normal():
    """refresh_numpy: after the balls move by d_a, d_b, a contact's depth is its depth before
    minus (d_a - d_b) . n, its masses back where it touches and 0 (impulses too) where apart."""
    w = laws.make({"material": laws.material(0.5, 0.5),
                   "balls": [{"pos": [0, 0], "radius": 0.5}, {"pos": [0.9, 0.0], "radius": 0.5},
                             {"pos": [0.0, 1.5], "radius": 0.5}]}, "numpy")
    w.solver.options.keep_contacts = True
    prev = w.pos.copy()
    candidates = (np.array([0, 0, 1]), np.array([1, 2, 2]), np.zeros(0, np.int64), np.zeros(0, np.int64))
    contacts = w.solver.prepare(w, candidates, prev, 1 / 480, np.zeros((3, 2)), lookahead=TICK)
    rows = contacts.rows
    assert len(rows.a) == 1 and rows.depth[0] == pytest.approx(0.1)       # (0, 1); (0, 2), (1, 2) far apart
    held = held_rows(rows)
    rows.pn[:] = 1.0
    for shift, touching in ((0.04, True), (0.15, False)):
        moved = prev.copy()
        moved[1, 0] += shift
        w.pos = moved
        balls = solver_module.world_columns(w, np.zeros((3, 2)))
        refresh_numpy(rows, held, balls, 1 / 480, 1e-9)
        assert rows.depth[0] == pytest.approx(0.1 - shift, abs=1e-15)
        assert (rows.mass_n[0] > 0) == touching and (rows.pn[0] == 1.0) == touching


@pytest.mark.parametrize("restitution", [0.5, 0.8])
def test_kept_rebound_height_is_restitution_squared_times_drop_height(kept, restitution):
    laws.test_rebound_height_is_restitution_squared_times_drop_height("compiled" if COMPILED else "numpy",
                                                                       restitution)


@pytest.mark.parametrize("gap", [0.0, 0.01])
def test_kept_newtons_cradle_passes_the_knock_to_the_last_ball(kept, gap):
    laws.test_newtons_cradle_passes_the_knock_to_the_last_ball("compiled" if COMPILED else "numpy", gap)


@pytest.mark.parametrize("restitution, ratio", [(0.0, 3.0), (1.0, 100.0)])
def test_kept_head_on_collision_follows_the_textbook(kept, restitution, ratio):
    laws.test_head_on_collision_follows_the_textbook("compiled" if COMPILED else "numpy", restitution, ratio)


@pytest.mark.parametrize("phase", [0.25, 0.8])
def test_kept_ball_sliding_off_a_ledge_falls_from_the_edge(kept, phase):
    """The statics' normals are measured afresh each sub-step: a normal fixed for the tick held
    the ball up past the ledge's end (the law failed at every phase before they were)."""
    laws.test_a_ball_sliding_off_a_ledge_falls_from_the_edge("compiled" if COMPILED else "numpy", phase)


def test_kept_ball_in_a_polygonal_bowl_never_leaves_its_surface(kept):
    laws.test_a_ball_in_a_polygonal_bowl_never_leaves_its_surface("compiled" if COMPILED else "numpy", 0.5)


def test_kept_disc_on_an_incline_slides_as_coulomb_says(kept):
    laws.test_a_disc_on_an_incline_rolls_or_slides_as_coulomb_says("compiled" if COMPILED else "numpy", 30, 0.1,
                                                                    False)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 10))
def test_kept_free_collisions_conserve_momentum_and_angular_momentum(seed, n):
    with pytest.MonkeyPatch.context() as m:
        m.setattr(solver_module, "SolverOptions", functools.partial(solver_module.SolverOptions, keep_contacts=True))
        execution = "compiled" if COMPILED else "numpy"
        laws.assert_momentum_kept_and_energy_never_gained(seed, n, execution)
        laws.assert_angular_momentum_kept(seed, n, execution)
