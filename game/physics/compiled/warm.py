"""The compiled kernels gathered for the world, and their warm-up.

``kernels()`` builds the namespace ``game.physics.compiled.loader.load()`` returns: each kernel
the world, the collision search and the sleep call, from the module named as its numpy twin
(``compiled/collide.py`` beside ``collide.py``, ``compiled/contacts.py`` beside
``contacts.py``...). ``warm_up`` compiles (or loads from numba's cache) every kernel on a tiny
problem, or one part of them, so that two processes can fill the cache at once.
"""
import types

import numpy as np

from game.physics import bundles
from game.physics.compiled import collide, contacts, forces, insides, integrators, solver

# What each compiling child warms (game.physics.compiled.loader.COMPILE_PARTS, one child each),
# balanced by the cold compile of each kernel with its helpers (docs/performance.md).
WARM_UP_PARTS = {"prepare": ("prepare_contacts", "ball_contacts", "force_steppers", "static_geometry",
                             "polygon_insides"),
                 "solve": ("solve", "sweep", "static_contacts", "uniform_steppers", "keep_sides", "refresh_contacts")}


def warm_up(kernels, part=None):
    """Compile (or load from the cache) the kernels on a tiny problem: all of them, or the
    kernels one part of ``game.physics.compiled.loader.COMPILE_PARTS`` names in WARM_UP_PARTS (through
    the namespace ``kernels``), so that two
    processes can fill numba's cache at once. Every kernel is called with the argument types
    the game gives it (one signature each: another would be a compile the game stalls on)."""
    if part not in (None,) + tuple(WARM_UP_PARTS):
        raise ValueError(f"warm_up: no part {part!r}")
    names = [name for names in WARM_UP_PARTS.values() for name in names] if part is None else WARM_UP_PARTS[part]
    from game.physics.contacts import contact_params
    from game.physics.solver import SolverOptions, solve_params
    px = np.array([0.0, 0.5, 3.0])
    py = np.array([0.0, 0.0, 0.0])
    r = np.array([0.3, 0.3, 0.3])
    i, j = np.array([0], np.int64), np.array([1], np.int64)    # the one pair ball_contacts finds here
    none, nothing = np.zeros(0, np.int64), np.zeros(0)
    pos = np.stack((px, py), axis=1)
    vel = np.zeros((3, 2))
    # A wall from (-5, 1) to (5, 1), listed in every cell of a 8 x 6 grid.
    start = np.zeros(49, np.int64)
    start[1:] = 1
    statics = bundles.Statics(ax=np.array([-5.0]), ay=np.array([1.0]), bx=np.array([5.0]), by=np.array([1.0]),
                              radius=np.zeros(1), nx=np.zeros(1), ny=np.ones(1), polygon=np.zeros(1, np.int64) - 1,
                              box=np.array([[-5.0, 1.0, 5.0, 1.0]]), restitution=np.zeros(1), friction=np.zeros(1),
                              rolling=np.zeros(1), start=start, index=np.zeros(1, np.int64), cell=1.0, ox=-2.0,
                              oy=-2.0, ncx=8, ncy=6, moving=np.zeros(1, np.bool_), surface=np.zeros(1),
                              kick=np.zeros(1), mcos=np.ones(1), msin=np.zeros(1), mcx=np.zeros(1), mcy=np.zeros(1),
                              mdx=np.zeros(1), mdy=np.zeros(1), omega=np.zeros(1), inv_h=0.0,
                              poses=np.zeros((0, 0, 0)), work=np.zeros(0), kicks=np.zeros(1, np.int64),
                              at=np.zeros(1, np.int64), reach=np.array([[-5.0, 1.0, 5.0, 1.0, 0.0]]),
                              polygon_first=np.zeros(1, np.int64), polygon_winding=np.zeros(0, np.int64),
                              polygon_solid=np.zeros(0, np.bool_))
    h = 1 / 240
    h_move = 0.5 * h

    def balls():
        return bundles.ball_columns(pos, vel, np.zeros(3), np.zeros(3), np.ones(3), np.ones(3), r,
                                    (np.zeros(3), np.zeros(3), np.zeros(3)), np.zeros((3, 2)), np.arange(3))

    def solve():
        z = np.zeros(len(i))
        rows = bundles.ContactRows(
            a=i, b=j, static=j.copy(), key=i.copy(), order=i.copy(), colour_start=np.array([0, len(i)]), nx=z + 1.0,
            ny=z.copy(), depth=z.copy(), base=z.copy(), separation=z.copy(), ax=z.copy(), ay=z.copy(), ra=z.copy(),
            rb=z.copy(), mass_n=z.copy(), mass_t=z.copy(), mass_r=z.copy(), restitution=z.copy(), friction=z.copy(),
            rolling=z.copy(), pn=z.copy(), pt=z.copy(), pr=z.copy(), approach=z.copy(), scale_a=z + 1.0,
            scale_b=z + 1.0, wvx=z.copy(), wvy=z.copy(), wspin=z.copy(), kick=z.copy(), jn=z.copy(), jt=z.copy())
        kernels.solve(rows, balls(), solve_params(SolverOptions(), h, h_move))

    def one_static_row():
        z = np.zeros(1)
        return bundles.ContactRows(
            a=i, b=j + 2, static=i.copy(), key=i.copy(), order=i.copy(), colour_start=np.array([0, 1]), nx=z.copy(),
            ny=z + 1.0, depth=z.copy(), base=z.copy(), separation=z.copy(), ax=z.copy(), ay=z.copy(), ra=z.copy(),
            rb=z.copy(), mass_n=z.copy(), mass_t=z.copy(), mass_r=z.copy(), restitution=z.copy(), friction=z.copy(),
            rolling=z.copy(), pn=z.copy(), pt=z.copy(), pr=z.copy(), approach=z.copy(), scale_a=z + 1.0,
            scale_b=z + 1.0, wvx=z.copy(), wvy=z.copy(), wspin=z.copy(), kick=z.copy(), jn=z.copy(), jt=z.copy())

    def keep_sides():
        kernels.keep_sides(one_static_row(), statics, pos.copy(), pos + 2.0, vel.copy())

    def refresh_contacts():             # the kept contacts' refresh (SolverOptions.keep_contacts)
        kernels.refresh_contacts(one_static_row(), np.ones((1, 5)), balls(), h_move, 1e-9)

    def uniform_steppers():
        for stepper in kernels.UNIFORM_STEPPERS.values():
            stepper(pos.copy(), vel.copy(), 0.0, -9.81, 0.0, h)

    calls = {
        "ball_contacts": lambda: kernels.ball_contacts(px, py, r, np.zeros(3), 1.0, -2.0, -2.0, 8, 6),
        "static_contacts": lambda: kernels.static_contacts(px, py, px, py, r, np.zeros(3), statics),
        "static_geometry": lambda: kernels.static_geometry(px, py, px, py, r, np.zeros(1, np.int64),
                                                            np.zeros(1, np.int64), statics),
        "polygon_insides": lambda: insides.warm_up(kernels.polygon_insides),
        "prepare_contacts": lambda: kernels.prepare_contacts(
            i, j, bundles.Touches(none, none, nothing, nothing, nothing), balls(), statics,
            bundles.Impulses(none, nothing, nothing, nothing), contact_params(h_move)),
        "solve": solve,
        "uniform_steppers": uniform_steppers,
        "force_steppers": forces.warm_up,
        "sweep": lambda: kernels.sweep(pos - 1.0, pos.copy(), vel.copy(), r, r, r, 0.25, 0.25, statics),
        "keep_sides": keep_sides,
        "refresh_contacts": refresh_contacts,
    }
    for name in names:
        calls[name]()


def kernels():
    """The kernels' namespace (importing numba and the kernel modules): what the world, the
    collision search and the sleep call, by name; ``warm_up(part=None)`` compiles them."""
    k = types.SimpleNamespace(
        ball_contacts=collide.ball_contacts, static_contacts=collide.static_contacts,
        static_geometry=collide.static_geometry, polygon_insides=insides.polygon_insides, sweep=collide.sweep,
        prepare_contacts=contacts.prepare_contacts, refresh_contacts=contacts.refresh_contacts, solve=solver.solve, islands=solver.islands,
        keep_sides=solver.keep_sides,
        UNIFORM_STEPPERS=integrators.UNIFORM_STEPPERS, FORCE_STEPPERS=forces.FORCE_STEPPERS,
        WARM_UP_PARTS=WARM_UP_PARTS)
    k.warm_up = lambda part=None: warm_up(k, part)
    return k
