"""Compiled twin of ``game.physics.body_kernels``: numba compiles the very functions the
numpy execution runs as Python (plain scalar loops), so the bodies' manifolds, swept test and
solve are one source in two executions with the same arithmetic in the same order: the same
bits. Each function is compiled with globals of its module in which the functions it calls
are the compiled ones (numba resolves a function's globals when it compiles it)."""
import inspect
import sys
import types

from numba import njit

from game.physics import body_glue as _glue
from game.physics import body_kernels as _source
from game.physics import body_manifolds as _manifolds
from game.physics.compiled import stamps


INLINED = ("_max_separation", "_clip", "_incident", "_polygons")    # (see _compile_all)


def _compile_all():
    """Every function of body_manifolds, body_kernels and body_glue compiled, in one scope in which the
    functions they call are the compiled ones. The manifolds' small helpers that take rows of
    the shape arrays (INLINED) are inlined into their callers in numba's own IR: as calls, each
    view passed in was built and reference-counted at every call, twice for each side of a
    pair; inlined, ``collide`` runs about 1.3 to 1.6 times faster on a 5,050-box pyramid with
    the same arithmetic (the same bits). Inlining every helper gains a little more but doubles
    the cold compile (about 30 s more); the solve's helpers gain nothing from it."""
    names = {}
    scope = {**vars(_manifolds), **vars(_source), **vars(_glue)}
    for module in (_manifolds, _source, _glue):
        for name, f in vars(module).items():
            if inspect.isfunction(f) and f.__module__ == module.__name__ and name != "jit":
                inline = "always" if name in INLINED else "never"
                scope[name] = names[name] = njit(cache=True, nogil=True, inline=inline)(
                    types.FunctionType(f.__code__, scope, name))
    return types.SimpleNamespace(**{k: v for k, v in scope.items() if k.isupper()}, **names)


kernels = _compile_all()
# numba checks a cached function against its own source file only: the solve links the
# manifolds' helpers in (and the manifolds are compiled with the kernels' scope), and this
# file chooses how each is compiled (what is inlined).
stamps.depend_on(list(vars(kernels).values()), (_manifolds, _source, _glue, sys.modules[__name__]))
collide = kernels.collide
solve = kernels.solve
relax = kernels.relax
prepare = kernels.prepare
restitution = kernels.restitution
box_pairs = kernels.box_pairs
sweep = kernels.sweep
colour_order = kernels.colour_order
posed = kernels.posed
ordered_rows = kernels.ordered_rows
moved_far = kernels.moved_far


def warm_up():
    """Compile (or load from numba's cache) with the argument types the world passes: a box
    on a floor, swept, collided and solved once."""
    import numpy as np
    k = kernels
    sv = np.zeros((2, 12, 2))
    sv[0, :4] = ((-0.5, 0.0), (0.5, 0.0), (0.5, 1.0), (-0.5, 1.0))
    sv[1, :2] = ((-5.0, 0.0), (5.0, 0.0))
    sn = np.zeros((2, 12, 2))
    sn[0, :4] = ((0.0, -1.0), (1.0, 0.0), (0.0, 1.0), (-1.0, 0.0))
    sn[1, :2] = ((0.0, -1.0), (0.0, 1.0))
    sc = np.array([[4, 0], [2, 1]], np.int64)
    sf = np.array([[0.0, 0.5, 0.0], [0.0, 0.5, 0.0]])
    one = np.zeros(1, np.int64)
    ci = np.zeros((2, 2), np.int64)
    cf = np.zeros((2, k.NCF))
    cid = np.zeros(2, np.int64)
    cpair = np.zeros(2, np.int64)
    m = k.collide(sv, sn, sc, sf, one, one + 1, np.full(1, 0.1), ci, cf, cid, cpair)
    st = np.zeros((2, 6))
    st[0, 1] = 0.5
    inv = np.array([[1.0, 6.0], [0.0, 0.0]])
    ji = np.array([[k.PIN, 0, 1]], np.int64)
    jf = np.zeros((1, k.NJF))
    params = np.array([1 / 240, 1 / 480, 2, 2, 1.0, 0.5, 0.5, 1.0, 0.5, 0.5, 1.0, 0.5, 0.5, 3.0, 0.5, 1.0])
    params = np.append(params, 0.0)
    st0 = st.copy()
    k.colour_order(ci, np.array([True, False]), m)
    k.prepare(st, inv, ci, cf, m)
    k.solve(st, np.empty_like(st), st0, inv, ci, cf, m, ji, jf, params, np.zeros((2, 2)), 1)
    k.relax(st, st0, inv, ci, cf, m, ji, jf, 1, params)
    k.restitution(st, st0, inv, ci, cf, m, params)
    k.ordered_rows(ci, cf, cid, np.arange(m), cid, cid, cf[:, 0].copy(), cf[:, 1].copy(), cf[:, 2].copy(), np.empty_like(ci),
                   np.empty_like(cf), np.empty_like(cid))
    local = sv[:1] - np.array([0.0, 0.5])
    ones = np.ones(1)
    k.posed(st[:1, 0:2].copy(), ones, ones - 1.0, local, sn[:1], ones, ones, 4, np.zeros((1, 12, 2)), np.zeros((1, 12, 2)),
            np.zeros((1, 2)), np.zeros((1, 2)))
    k.moved_far(st[:1, 0:2].copy(), ones, np.zeros((1, 3)), ones, ones, ones, np.ones(1, np.bool_), np.zeros(1, np.int64))
    k.box_pairs(np.zeros((1, 2)), np.ones((1, 2)), np.zeros((2, 2)), np.ones((2, 2)), True, np.zeros(8, np.int64),
                np.zeros(8, np.int64))
    k.sweep(local, np.array([4], np.int64), np.zeros(1), np.ones(1), np.zeros((1, 3)), np.ones((1, 3)), sv[1:],
            sc[1:], sf[1:], np.zeros(1, np.int64), np.zeros(1, np.int64), np.ones(1))
