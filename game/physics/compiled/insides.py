"""The compiled twin of game.physics.insides: numba compiles the very functions written there
(plain scalar Python), so the polygons' insides give the bits of collide.polygon_insides in
the one-call tick (game.physics.compiled.step) as they do on numpy."""
import types

import numpy as np
from numba import njit

from game.physics import bundles
from game.physics import insides as _reference
from game.physics.compiled import stamps

# The helpers, callees before callers, then the kernel: each the function as written, its
# globals those of its module but for the helpers it calls, which are the compiled ones
# (numba resolves a function's globals when it compiles it: one namespace holds them all).
_HELPERS = ("_maximum", "_minimum", "_length", "_left_normal", "_corner", "_inside", "_closest", "_segment_offset",
            "_first_min", "_first_max", "_polygon_offset", "polygon_insides_kernel")
_space = dict(vars(_reference))
for _name in _HELPERS:
    _space[_name] = njit(cache=True, nogil=True)(types.FunctionType(getattr(_reference, _name).__code__, _space,
                                                                     _name))
polygon_insides = _space["polygon_insides_kernel"]
inside, polygon_offset = _space["_inside"], _space["_polygon_offset"]     # (their own tests)
# numba checks a cached function against its own source file only (insides.py): the kernel
# reads the Statics bundle's fields by name.
stamps.depend_on([_space[name] for name in _HELPERS], (bundles,))


def warm_up(kernel=None):
    """Compile (or load from numba's cache) ``kernel`` (polygon_insides, or what the kernels'
    namespace holds for it: compiled.warm) with the argument types the world passes: a ball in
    a square, its pairs with the square's four edges."""
    from game.physics import collide
    square = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    st = collide.Statics(square, np.roll(square, -1, axis=0), np.zeros(4), np.zeros(4), np.zeros(4),
                         np.zeros(4, np.int64), [square])
    i = np.zeros(4, np.int64)
    s = np.arange(4, dtype=np.int64)
    (kernel or polygon_insides)(np.array([0.4]), np.array([0.3]), np.array([0.1]), i, s, bundles.statics(st),
                                np.zeros(4), np.zeros(4), np.zeros(4))
