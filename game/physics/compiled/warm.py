"""The compiled kernels gathered for the world, and their warm-up.

``kernels()`` builds the namespace ``game.physics.compiled.loader.load()`` returns: each kernel
the world, the collision search and the sleep call, from the module named as its numpy twin
(``compiled/collide.py`` beside ``collide.py``, ``compiled/contacts.py`` beside
``contacts.py``...). ``warm_up`` compiles (or loads from numba's cache) every kernel on a tiny
problem, or one part of them, so that two processes can fill the cache at once.
"""
import types

import numpy as np

from game.physics.compiled import collide, contacts, forces, integrators, solver

# What each compiling child warms (game.physics.compiled.loader.COMPILE_PARTS, one child each),
# balanced by the cold compile of each kernel with its helpers (docs/performance.md).
WARM_UP_PARTS = {"prepare": ("prepare_contacts", "ball_contacts", "force_steppers", "static_geometry"),
                 "solve": ("solve", "sweep", "static_contacts", "uniform_steppers")}


def warm_up(kernels, part=None):
    """Compile (or load from the cache) the kernels on a tiny problem: all of them, or the
    kernels one part of ``game.physics.compiled.loader.COMPILE_PARTS`` names in WARM_UP_PARTS (through
    the namespace ``kernels``), so that two
    processes can fill numba's cache at once. Every kernel is called with the argument types
    the game gives it (one signature each: another would be a compile the game stalls on)."""
    if part not in (None,) + tuple(WARM_UP_PARTS):
        raise ValueError(f"warm_up: no part {part!r}")
    names = [name for names in WARM_UP_PARTS.values() for name in names] if part is None else WARM_UP_PARTS[part]
    px = np.array([0.0, 0.5, 3.0])
    py = np.array([0.0, 0.0, 0.0])
    r = np.array([0.3, 0.3, 0.3])
    i, j = np.array([0], np.int64), np.array([1], np.int64)    # the one pair ball_contacts finds here
    nx = np.ones(len(i))
    ny = np.zeros(len(i))
    depth = np.zeros(len(i))
    a = np.array([-5.0, 1.0])
    b = np.array([5.0, 1.0])
    start = np.zeros(49, np.int64)
    start[1:] = 1
    pos = np.stack((px, py), axis=1)
    vel = np.zeros((3, 2))
    m = len(i)
    z = np.zeros(m)
    ext = np.zeros(4)

    def uniform_steppers():
        for stepper in kernels.UNIFORM_STEPPERS.values():
            stepper(pos, vel, 0.0, -9.81, 0.0, 1 / 240)

    calls = {
        "ball_contacts": lambda: kernels.ball_contacts(px, py, r, np.zeros(3), 1.0, -2.0, -2.0, 8, 6),
        "static_contacts": lambda: kernels.static_contacts(
            px, py, px, py, r, np.zeros(3), 1.0, -2.0, -2.0, 8, 6, start, np.zeros(1, np.int64), a[:1], a[1:], b[:1],
            b[1:], np.zeros(1), np.zeros(1), np.ones(1), np.zeros(1, np.int64) - 1),
        "static_geometry": lambda: kernels.static_geometry(
            px, py, px, py, r, np.zeros(1, np.int64), np.zeros(1, np.int64), a[:1], a[1:], b[:1], b[1:], np.zeros(1),
            np.ones(1), np.zeros(1), np.zeros(1, np.int64) - 1),
        "prepare_contacts": lambda: kernels.prepare_contacts(
            3, i, j, i[:0], i[:0], z[:0], z[:0], z[:0], ext, ext, ext, ext, ext, ext, ext, ext, np.append(r, 0.0),
            np.arange(3), ext, ext, ext, z[:1], z[:1], z[:1], 1 / 480, 1e-9, 1 << 31, i[:0], z[:0], z[:0], z[:0], 0.5),
        "solve": lambda: kernels.solve(
            np.array([0, m]), i, j, nx, ny, depth, z, z, z, z, z, z, z, z, z, z, z, j, z.copy(), z.copy(), z.copy(),
            ext.copy(), ext.copy(), ext.copy(), ext.copy(), ext.copy(), ext.copy(), ext.copy(), ext.copy(), 1 / 240,
            1 / 480, 0.5, 1e-9, 4, True, 1, 1, 9.0, 0.9, 0.05, 9.0, 0.9, 0.05, 3.0, z + 1.0, z + 1.0),
        "uniform_steppers": uniform_steppers,
        "force_steppers": forces.warm_up,
        "sweep": lambda: kernels.sweep(
            pos - 1.0, pos, vel, r, r, r, 0.25, 0.25, a[:1], a[1:], b[:1], b[1:], np.zeros(1), np.zeros(1),
            np.ones(1), np.zeros(1), np.zeros(1), np.array([[-5.0, 1.0, 5.0, 1.0]]), np.zeros(1, np.int64) - 1),
    }
    for name in names:
        calls[name]()


def kernels():
    """The kernels' namespace (importing numba and the kernel modules): what the world, the
    collision search and the sleep call, by name; ``warm_up(part=None)`` compiles them."""
    k = types.SimpleNamespace(
        ball_contacts=collide.ball_contacts, static_contacts=collide.static_contacts,
        static_geometry=collide.static_geometry, sweep=collide.sweep,
        prepare_contacts=contacts.prepare_contacts, solve=solver.solve, islands=solver.islands,
        UNIFORM_STEPPERS=integrators.UNIFORM_STEPPERS, FORCE_STEPPERS=forces.FORCE_STEPPERS,
        WARM_UP_PARTS=WARM_UP_PARTS)
    k.warm_up = lambda part=None: warm_up(k, part)
    return k
