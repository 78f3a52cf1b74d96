"""The integrators against the seed's table, analytic solutions and their orders of convergence."""
import math

import numpy as np
import pytest

from game.physics.integrators import INTEGRATORS, ORDER, euler, next_integrator, rk4


def seed_spring(t, y):
    """The seed's spring, damping -0.005 as printed: a = -x - (-0.005) v (it gains energy)."""
    return np.array([y[1], -1.0 * y[0] - (-0.005) * y[1]])


@pytest.mark.parametrize("name, x, v", [("rk4", 52.18, 38.05), ("euler", 178.38, 137.62)])
def test_seed_table_4000_steps_of_1_40(name, x, v):
    y = np.array([50.0, 5.0])
    t = 0.0
    for _ in range(4000):
        y = INTEGRATORS[name](seed_spring, t, y, 1 / 40)
        t += 1 / 40
    assert round(y[0], 2) == x and round(y[1], 2) == v


def oscillator(t, y):
    return np.stack((y[1], -y[0]))


def final_error(name, h, t_end=2.0):
    """Error at t_end of x'' = -x, x(0) = 1, v(0) = 0 (exact: cos t, -sin t)."""
    y = np.array([1.0, 0.0])
    steps = int(round(t_end / h))
    for k in range(steps):
        y = INTEGRATORS[name](oscillator, k * h, y, h)
    return math.hypot(y[0] - math.cos(t_end), y[1] + math.sin(t_end))


@pytest.mark.parametrize("name, order", [("euler", 1), ("semi-implicit", 1), ("verlet", 2), ("rk4", 4)])
def test_order_of_convergence(name, order):
    errors = [final_error(name, h) for h in (0.02, 0.01, 0.005)]
    slopes = [math.log2(errors[k] / errors[k + 1]) for k in range(2)]
    assert all(abs(s - order) < 0.15 for s in slopes), slopes


def test_any_order_ode_third_order():
    """y''' = y' with y(0) = 1, y'(0) = 1, y''(0) = 1 has the solution e^t; state is [y, y', y'']."""
    def f(t, s):
        return np.array([s[1], s[2], s[1]])

    for stepper, tolerance in ((rk4, 1e-9), (euler, 2e-2)):
        s = np.array([1.0, 1.0, 1.0])
        h = 0.001
        for k in range(1000):
            s = stepper(f, k * h, s, h)
        assert np.allclose(s, math.e, rtol=tolerance, atol=0)


def test_time_dependent_right_hand_side_sees_t():
    """y' = cos t: RK4 integrates it with error O(h^4) only if it passes t correctly."""
    y = np.array([0.0])
    h = 0.1
    for k in range(20):
        y = rk4(lambda t, _: np.array([math.cos(t)]), k * h, y, h)
    assert abs(y[0] - math.sin(2.0)) < 1e-6


def test_symplectic_steppers_keep_oscillator_energy_bounded_and_euler_gains():
    h = 0.1
    energies = {}
    for name in ORDER:
        y = np.array([1.0, 0.0])
        for k in range(2000):
            y = INTEGRATORS[name](oscillator, k * h, y, h)
        energies[name] = 0.5 * (y[0] ** 2 + y[1] ** 2)
    assert energies["euler"] > 1e3 * 0.5           # explicit Euler spirals out
    assert abs(energies["semi-implicit"] - 0.5) < 0.05
    assert abs(energies["verlet"] - 0.5) < 0.01
    assert abs(energies["rk4"] - 0.5) < 0.01


def test_steppers_work_on_world_shaped_state():
    """(2, N, 2) states: every stepper keeps the shape and agrees on a free fall to first order."""
    g = np.array([0.0, -9.81])

    def f(t, y):
        return np.stack((y[1], np.broadcast_to(g, y[1].shape)))

    y0 = np.zeros((2, 5, 2))
    for name in ORDER:
        y = INTEGRATORS[name](f, 0.0, y0, 0.01)
        assert y.shape == y0.shape
        assert np.allclose(y[1, :, 1], -0.0981)


def test_cycle_visits_every_integrator():
    name, seen = ORDER[0], []
    for _ in ORDER:
        seen.append(name)
        name = next_integrator(name)
    assert seen == list(ORDER) and name == ORDER[0] and set(ORDER) == set(INTEGRATORS)
