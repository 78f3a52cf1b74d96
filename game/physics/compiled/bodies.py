"""Compiled twin of ``game.physics.body_kernels``: the same file run again with numba's
``njit`` as its ``jit``, so the bodies' manifolds, swept test and solve are one source in
two executions (the same arithmetic in the same order: the same bits)."""
import importlib.util

from numba import njit

from game.physics import body_kernels as _source


def _load():
    spec = importlib.util.spec_from_file_location("game.physics.compiled._body_kernels", _source.__file__)
    module = importlib.util.module_from_spec(spec)
    module.jit = njit(cache=True, nogil=True)
    spec.loader.exec_module(module)
    return module


kernels = _load()
collide = kernels.collide
solve = kernels.solve
sweep = kernels.sweep


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
    k.solve(st, inv, ci, cf, m, ji, jf, 1, params)
    local = sv[:1] - np.array([0.0, 0.5])
    k.sweep(local, np.array([4], np.int64), np.zeros(1), np.ones(1), np.zeros((1, 3)), np.ones((1, 3)), sv[1:],
            sc[1:], sf[1:], np.zeros(1, np.int64), np.zeros(1, np.int64), np.ones(1))
