"""Stacks of very unequal masses stand (issue 14, item 9).

A light ball under a heavy one is the textbook hard case of an iterative contact solver:
Gauss-Seidel on the true masses moves the heavy ball by a thousandth of what it moves the
light one, so the light ball is squeezed out (overlaps of 30-50 % of the radius before the
contact mass scaling of ``game.physics.solver.support_scales``). The expectations are physical: a
perfectly aligned stack on a floor stays where it is, touching, with overlaps under 5 % of
the radius, under every integrator; the scaling is a fixed point of minima over the chains
of resting contacts, checked against a brute-force transitive closure.

Units: metres, seconds, kilograms; y points up.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scenes import build_world
from game.physics.contacts import support_scales
from game.physics.world import TICK
from tests.conftest import KERNELS

G = 9.81                # m/s^2
R = 0.5                 # m, every ball's radius
INTEGRATORS = ["euler", "semi-implicit", "verlet", "rk4"]


def stack(masses, integrator, solver):
    """Balls of ``masses`` (kg, bottom first) stacked touching on a floor segment at y = 0:
    restitution 0, friction 0.5, as issue 14 tried it."""
    balls = [{"pos": [0.0, R + 2 * R * k], "radius": R, "mass": m} for k, m in enumerate(masses)]
    return build_world({"gravity": [0, -G], "bounds": [-50, -50, 50, 50], "integrator": integrator,
                             "material": {"restitution": 0.0, "friction": 0.5, "rolling": 0.0},
                             "segments": [{"a": [-10, 0], "b": [10, 0]}], "balls": balls}, execution=solver)


def overlaps(world):
    """(N,) m: each ball's overlap with the one below it (the floor for the first)."""
    gaps = np.linalg.norm(np.diff(world.pos, axis=0), axis=1)
    return np.concatenate(([R - world.pos[0, 1]], 2 * R - gaps))


@pytest.fixture
def compiled():
    """The compiled execution where numba is (numpy where it is not): ten seconds of numpy
    cost a minute; test_the_stack_gives_the_same_bits_on_both_executions holds numpy to it."""
    yield "compiled" if KERNELS is not None else "numpy"


ALTERNATING = [1.0, 1000.0, 1.0, 1000.0, 1.0]          # kg, bottom first


@pytest.mark.parametrize("integrator", INTEGRATORS)
def test_an_alternating_stack_of_1_and_1000_kg_balls_stands(compiled, integrator):
    """Five balls, 1 kg at the bottom, then 1000 kg, alternating: after 10 s every overlap is
    under 5 % of the radius and every ball is where it started (x within 1 % of r, y within
    5 % of r: a standing stack)."""
    w = stack(ALTERNATING, integrator, compiled)
    start = w.pos.copy()
    for _ in range(600):
        w.step(TICK)
    assert np.isfinite(w.pos).all()
    assert np.all(overlaps(w) < 0.05 * R), overlaps(w) / R
    assert np.all(np.abs(w.pos[:, 0] - start[:, 0]) < 0.01 * R)
    assert np.all(np.abs(w.pos[:, 1] - start[:, 1]) < 0.05 * R)


@pytest.mark.skipif(KERNELS is None, reason="numba is not installed")
@pytest.mark.parametrize("integrator", INTEGRATORS)
def test_the_stack_gives_the_same_bits_on_both_executions(integrator):
    """The numpy execution of the contact mass scaling is the kernels' to the bit (so the
    numpy stack stands as the compiled one does)."""
    hashes = []
    for execution in ("numpy", "compiled"):
        w = stack(ALTERNATING, integrator, execution)
        for _ in range(15):
            w.step(TICK)
        hashes.append(w.state_hash())
    assert hashes[0] == hashes[1]


def test_a_1_kg_ball_under_a_million_kg_ball_holds_it_up(compiled):
    """Issue 14 saw the 1 kg ball overlap the 1e6 kg ball by 0.96 m for 50 s."""
    w = stack([1.0, 1e6], "rk4", compiled)
    for _ in range(600):
        w.step(TICK)
    assert np.all(overlaps(w) < 0.05 * R), overlaps(w) / R


def test_collisions_between_unequal_balls_still_keep_momentum(compiled):
    """A 1000 kg ball falling at 3 m/s onto a 1 kg ball, in free fall together (gravity acts
    on both, nothing else): the impact keeps the true masses, so the momentum changes only by
    the weight's impulse, (m1 + m2) g t, to 1e-9 of its size."""
    balls = [{"pos": [0.0, 0.0], "radius": R, "mass": 1.0},
             {"pos": [0.0, 1.2], "vel": [0.0, -3.0], "radius": R, "mass": 1000.0}]
    w = build_world({"gravity": [0, -G], "bounds": [-1e3, -1e3, 1e3, 1e3], "integrator": "rk4",
                          "material": {"restitution": 0.5, "friction": 0.5}, "balls": balls}, execution=compiled)
    m = 1.0 / w.inv_mass
    p0 = m @ w.vel
    for tick in range(1, 31):
        w.step(TICK)
        expected = p0 + np.array([0.0, -G * m.sum() * tick * TICK])
        assert np.linalg.norm(m @ w.vel - expected) <= 1e-9 * np.linalg.norm(p0), tick
    assert w.vel[0, 1] < w.vel[1, 1] - 1.0          # they hit: the light ball leads downwards


def closure_oracle(n, upper, lower, w):
    """Brute force: each ball's inverse mass for the solve, the least of its own and of every
    ball it holds up through any chain of resting pairs (upper on lower), by transitive
    closure of the (n x n) reachability matrix."""
    reach = np.eye(n, dtype=bool)
    for u, l in zip(upper, lower):
        reach[l, u] = True                  # l holds up u
    for k in range(n):                      # Warshall
        reach |= reach[:, k:k + 1] & reach[k:k + 1, :]
    return np.array([w[:n][reach[i]].min() for i in range(n)])


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 12), contacts=st.integers(1, 30))
def test_support_scaling_is_the_heaviest_ball_held_up_through_any_chain(seed, n, contacts):
    """Random contacts between n balls of masses over six decades and with the statics
    (stand-in n, never scaled), each with a random normal, each ball pressed by a random
    force (or none): the scaled inverse mass of every contact's ball is the brute-force
    closure's, and the factor is 1 exactly where nothing heavier rests on it."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n, contacts)
    on_ball = rng.random(contacts) < 0.7
    b = np.where(on_ball, (a + rng.integers(1, n, contacts)) % n, n)
    angle = rng.uniform(0, 2 * np.pi, contacts)
    nx, ny = np.cos(angle), np.sin(angle)
    force = rng.normal(0, 10, (n + 1, 2)) * (rng.random((n + 1, 1)) < 0.8)
    force[n] = 0.0
    w = np.append(10.0 ** rng.uniform(-3, 3, n), 0.0)
    scale_a, scale_b = support_scales(a, b, on_ball, nx, ny, force[:, 0], force[:, 1], w, 0.5)
    # Who rests on whom, by the definition: u's force presses it onto l within 60 degrees.
    a_on_b = -(force[a, 0] * nx + force[a, 1] * ny) > 0.5 * np.linalg.norm(force[a], axis=1)
    b_on_a = on_ball & (force[b, 0] * nx + force[b, 1] * ny > 0.5 * np.linalg.norm(force[b], axis=1))
    pair = on_ball & a_on_b
    upper = np.concatenate((a[pair], b[b_on_a]))
    lower = np.concatenate((b[pair], a[b_on_a]))
    expected = np.append(closure_oracle(n, upper, lower, w), 0.0)
    np.testing.assert_allclose(scale_a * w[a], expected[a], rtol=1e-12)
    np.testing.assert_allclose(scale_b * w[b], expected[b], rtol=1e-12)
    assert np.all(scale_a[expected[a] == w[a]] == 1.0) and np.all(scale_b[expected[b] == w[b]] == 1.0)
