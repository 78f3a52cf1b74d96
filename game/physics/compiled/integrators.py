"""Compiled twins of ``game.physics.integrators`` for uniform forces (gravity and drag).

The steppers under every force (springs, the grab, attractors) are game.physics.compiled.forces.
"""
from numba import njit


# The integrators of game.physics.integrators, for forces that are the same for every ball at every
# moment but drag: a = g - drag v. Each does the arithmetic of its numpy stepper in the same
# order, so the two agree to the last bit (tests/test_accel.py checks it). Each steps every
# ball in place: (pos, vel, gx, gy, drag, h).


@njit(cache=True)
def _acc(v, g, drag):
    """a = g - drag v, as Forces.acceleration computes it (no drag term when drag is 0)."""
    if drag != 0.0:
        return g - drag * v
    return g


@njit(cache=True)
def euler_uniform(pos, vel, gx, gy, drag, h):
    """integrators.euler: y + h f(y)."""
    for a in range(pos.shape[0]):
        for d in range(2):
            g = gx if d == 0 else gy
            v = vel[a, d]
            pos[a, d] = pos[a, d] + h * v
            vel[a, d] = v + h * _acc(v, g, drag)


@njit(cache=True)
def semi_implicit_uniform(pos, vel, gx, gy, drag, h):
    """integrators.semi_implicit_euler: the new velocity moves the ball."""
    for a in range(pos.shape[0]):
        for d in range(2):
            g = gx if d == 0 else gy
            v1 = vel[a, d] + h * _acc(vel[a, d], g, drag)
            pos[a, d] = pos[a, d] + h * v1
            vel[a, d] = v1


@njit(cache=True)
def verlet_uniform(pos, vel, gx, gy, drag, h):
    """integrators.velocity_verlet."""
    for a in range(pos.shape[0]):
        for d in range(2):
            g = gx if d == 0 else gy
            v = vel[a, d]
            a0 = _acc(v, g, drag)
            pos[a, d] = pos[a, d] + h * v + (0.5 * h * h) * a0
            a1 = _acc(v + h * a0, g, drag)
            vel[a, d] = v + (0.5 * h) * (a0 + a1)


@njit(cache=True)
def rk4_uniform(pos, vel, gx, gy, drag, h):
    """integrators.rk4: slopes (v, a(v)) at y, y + h/2 k1, y + h/2 k2, y + h k3."""
    half = 0.5 * h
    sixth = h / 6.0
    for a in range(pos.shape[0]):
        for d in range(2):
            g = gx if d == 0 else gy
            x = pos[a, d]
            v = vel[a, d]
            k1v = _acc(v, g, drag)
            v2 = v + half * k1v
            k2v = _acc(v2, g, drag)
            v3 = v + half * k2v
            k3v = _acc(v3, g, drag)
            v4 = v + h * k3v
            k4v = _acc(v4, g, drag)
            pos[a, d] = x + sixth * (v + 2.0 * (v2 + v3) + v4)
            vel[a, d] = v + sixth * (k1v + 2.0 * (k2v + k3v) + k4v)


UNIFORM_STEPPERS = {"euler": euler_uniform, "semi-implicit": semi_implicit_uniform,
                    "verlet": verlet_uniform, "rk4": rk4_uniform}
