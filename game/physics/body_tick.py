"""A tick of the bodies laid out (game.physics.bodies): their shapes posed and boxed, the contact
rows put in their solve order with their warm start, and what the tick leaves behind (the warm
start for the next, the manifolds for debug drawing and sound).

Where the world runs compiled, the layout's loops are game.physics.body_glue's (one pass each);
the numpy execution's whole-array code here is their reference, and the two give the same bits.
"""
import functools

import numpy as np

from game.physics import body_kernels as K
from game.physics.body_statics import rotate
from game.physics.shapes import MAX_CORNERS


def posed(bodies, margin, kk, kern):
    """(corners (B, kk, 2), normals (B, kk, 2), lo (B, 2), hi (B, 2)): the bodies' shapes in the
    world now (padding: corners at the centre of mass, normals 0) and their boxes grown by
    ``margin``; compiled, in one pass (body_glue.posed)."""
    nb = len(bodies)
    v, n = np.zeros((nb, kk, 2)), np.zeros((nb, kk, 2))
    k = bodies.used()
    if kern is K:
        corners = bodies.corners()
        lo, hi = bodies.boxes(margin, corners)
        v[:, :MAX_CORNERS] = corners
        n[:, :k] = rotate(bodies.normals[:, :k], bodies.angle)
    else:
        lo, hi = np.empty((nb, 2)), np.empty((nb, 2))
        kern.posed(bodies.pos, np.cos(bodies.angle), np.sin(bodies.angle), bodies.local, bodies.normals,
                   bodies.radius, margin, k, v, n, lo, hi)
    return v, n, lo, hi


def ordered(kern, ci, cf, keys, order, bodies):
    """The contact rows (ci, cf, keys) in the solve's ``order`` (None: as they are), each with
    the impulses its key had at the end of the last tick (bodies' warm start; none: 0)."""
    w = bodies._warm_keys
    if kern is K:
        if len(w) and len(keys):
            at = np.minimum(np.searchsorted(w, keys), len(w) - 1)
            found = w[at] == keys
            cf[:, K.PN] = np.where(found, bodies._warm_pn[at], 0.0)
            cf[:, K.PT] = np.where(found, bodies._warm_pt[at], 0.0)
            cf[:, K.PR] = np.where(found, bodies._warm_pr[at], 0.0)
        return (ci, cf, keys) if order is None else (ci[order], cf[order], keys[order])
    order = np.arange(len(keys)) if order is None else order
    out = np.empty_like(ci), np.empty_like(cf), np.empty_like(keys)
    kern.ordered_rows(ci, cf, keys, order, w, np.searchsorted(w, keys) if len(w) else keys, bodies._warm_pn,
                      bodies._warm_pt, bodies._warm_pr, *out)
    return out


def keep_warm(bodies, keys, cf):
    """The tick's impulses kept for the next tick's warm start, sorted by key."""
    order = np.argsort(keys, kind="stable")
    bodies._warm_keys = keys[order]
    bodies._warm_pn, bodies._warm_pt, bodies._warm_pr = cf[order, K.PN], cf[order, K.PT], cf[order, K.PR]


class Manifolds:
    """The last tick's contact rows as the game reads them, each made when first asked for:
    ``points`` (M, 2) and ``normals`` (M, 2), ``depths`` (M,) m (debug drawing), and the
    impacts (points closing faster than 1 m/s: ``impact_points``, ``impact_speeds``, sound)."""

    def __init__(self, ci=None, cf=None, st0=None):
        self._rows = (np.zeros((0, 2), np.int64), np.zeros((0, K.NCF)), np.zeros((1, 6))) if ci is None else (ci, cf, st0)

    @functools.cached_property
    def points(self):
        ci, cf, st0 = self._rows
        return np.stack((cf[:, K.RAX], cf[:, K.RAY]), axis=1) + st0[ci[:, 0], 0:2]

    @functools.cached_property
    def normals(self):
        return self._rows[1][:, K.NX:K.NY + 1].copy()

    @functools.cached_property
    def depths(self):
        return np.maximum(-self._rows[1][:, K.SEP], 0.0)

    @functools.cached_property
    def _hard(self):
        return self._rows[1][:, K.RELVN] < -1.0

    @functools.cached_property
    def impact_points(self):
        return self.points[self._hard]

    @functools.cached_property
    def impact_speeds(self):
        return -self._rows[1][self._hard, K.RELVN]
