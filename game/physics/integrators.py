"""Named steppers for y' = f(t, y), switchable while the world runs.

Every stepper has the signature ``step(f, t, y, h) -> y_next``: ``y`` is a numpy array
(any shape), ``f(t, y)`` returns dy/dt with the same shape, ``h`` is the step in seconds.

An ODE of any order n is written as a first-order system whose state stacks y and its
first n-1 derivatives, ``y = [x, x', ..., x^(n-1)]``; f returns ``[x', x'', ..., x^(n)]``.
``euler`` and ``rk4`` work on any such state. ``semi-implicit`` and ``verlet`` are made for
second-order systems (the world's balls): they read ``y[0]`` as position and ``y[1]`` as
velocity, and take the acceleration from ``f(t, y)[1]``.

>>> import math
>>> import numpy as np
>>> decay = lambda t, y: -y                  # y' = -y, y(0) = 1: y(1) = exp(-1)
>>> y = np.array([1.0])
>>> for _ in range(10):
...     y = rk4(decay, 0.0, y, 0.1)
>>> error = float(y[0]) - math.exp(-1)       # RK4's global error is O(h^4): about 3e-7 here
>>> bool(0 < error < 1e-6)
True
"""
import numpy as np


def euler(f, t, y, h):
    """Explicit (forward) Euler: y1 = y0 + h f(t0, y0). First order; gains energy on springs."""
    return y + h * f(t, y)


def rk4(f, t, y, h):
    """Classic fourth-order Runge-Kutta: four slopes, weighted 1, 2, 2, 1."""
    k1 = f(t, y)
    k2 = f(t + 0.5 * h, y + (0.5 * h) * k1)
    k3 = f(t + 0.5 * h, y + (0.5 * h) * k2)
    k4 = f(t + h, y + h * k3)
    return y + (h / 6.0) * (k1 + 2.0 * (k2 + k3) + k4)


def semi_implicit_euler(f, t, y, h):
    """Symplectic (semi-implicit) Euler for y = [x, v]: v1 = v0 + h a(x0, v0); x1 = x0 + h v1.

    First order, but it keeps the energy of an undamped oscillator bounded.
    """
    a = f(t, y)[1]
    v1 = y[1] + h * a
    return np.stack((y[0] + h * v1, v1))


def velocity_verlet(f, t, y, h):
    """Velocity Verlet for y = [x, v]: second order and symplectic for forces of position only.

        x1 = x0 + h v0 + h^2/2 a0
        v1 = v0 + h/2 (a0 + a1),   a1 = a(x1, v0 + h a0)

    Velocity-dependent forces (drag, spring damping) see the Euler prediction of v1.
    """
    x0, v0 = y[0], y[1]
    a0 = f(t, y)[1]
    x1 = x0 + h * v0 + (0.5 * h * h) * a0
    a1 = f(t + h, np.stack((x1, v0 + h * a0)))[1]
    return np.stack((x1, v0 + (0.5 * h) * (a0 + a1)))


INTEGRATORS = {
    "euler": euler,
    "semi-implicit": semi_implicit_euler,
    "verlet": velocity_verlet,
    "rk4": rk4,
}

# How far each stepper moves a position under a constant acceleration a over a step h:
# x1 = x0 + h v0 + b h^2 a. The contact solver spreads its velocity change dv over the
# sub-step as such a force, so the position moves by b h dv and a ball resting on another
# moves neither in its position nor in its velocity. Explicit Euler's b is 0 (its position
# step ignores the force); a contact solver that never moves positions could not push an
# overlap out, so Euler's contacts move positions as semi-implicit Euler does.
CONTACT_WEIGHT = {"euler": 1.0, "semi-implicit": 1.0, "verlet": 0.5, "rk4": 0.5}

# The order the player cycles them in (the I key).
ORDER = ("euler", "semi-implicit", "verlet", "rk4")


def next_integrator(name):
    """The integrator after ``name`` in ORDER (wrapping round)."""
    return ORDER[(ORDER.index(name) + 1) % len(ORDER)]
