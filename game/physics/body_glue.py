"""The compiled execution's fast paths through the bodies' glue (game.physics.bodies).

The numpy execution lays out a tick of the bodies with whole-array numpy (the bodies' poses and
boxes, the contact rows in their solve order with their warm start, the swept test's moves);
the compiled one runs these loops instead (game.physics.compiled.bodies compiles them with the
kernels), with the same arithmetic in the same order, so the two give the same bits: the tests
that hold every shipped level's hash equal on both executions hold these to the numpy code.
Where a body's corners turn, the cosines and sines come in from numpy (np.cos, np.sin), as the
numpy execution takes them.
"""
import math

from game.physics.body_kernels import PN, PR, PT, jit
from game.physics.shapes import MAX_CORNERS


@jit
def _lesser(a, b):
    """np.minimum of two floats (a NaN wins)."""
    return a if (a <= b or a != a) else b


@jit
def _greater(a, b):
    """np.maximum of two floats (a NaN wins)."""
    return a if (a >= b or a != a) else b


@jit
def posed(pos, cos, sin, local, normals, radius, margin, used, sv, sn, lo, hi):
    """Bodies.corners, the turned normals and Bodies.boxes at once: for each body b of ``pos``
    (B, 2) turned by an angle of cosine ``cos[b]`` and sine ``sin[b]``, its corners ``sv[b]``
    (the ``used`` rows turned, the padding rows up to MAX_CORNERS at the centre of mass), the
    normals of its used rows ``sn[b]``, and its box (``lo[b]``, ``hi[b]``) over the used
    corners and the centre of mass, grown by radius[b] + margin[b]."""
    for b in range(pos.shape[0]):
        x, y = pos[b, 0], pos[b, 1]
        c, s = cos[b], sin[b]
        lox = hix = x + (c * local[b, 0, 0] - s * local[b, 0, 1])
        loy = hiy = y + (s * local[b, 0, 0] + c * local[b, 0, 1])
        for q in range(used):
            lx, ly = local[b, q, 0], local[b, q, 1]
            px = x + (c * lx - s * ly)
            py = y + (s * lx + c * ly)
            sv[b, q, 0] = px
            sv[b, q, 1] = py
            nx, ny = normals[b, q, 0], normals[b, q, 1]
            sn[b, q, 0] = c * nx - s * ny
            sn[b, q, 1] = s * nx + c * ny
            if q > 0:
                lox, hix = _lesser(lox, px), _greater(hix, px)
                loy, hiy = _lesser(loy, py), _greater(hiy, py)
        for q in range(used, MAX_CORNERS):
            sv[b, q, 0] = x
            sv[b, q, 1] = y
        if used < MAX_CORNERS:
            lox, hix = _lesser(lox, x), _greater(hix, x)
            loy, hiy = _lesser(loy, y), _greater(hiy, y)
        grow = radius[b] + margin[b]
        lo[b, 0] = lox - grow
        lo[b, 1] = loy - grow
        hi[b, 0] = hix + grow
        hi[b, 1] = hiy + grow


@jit
def ordered_rows(ci, cf, keys, order, warm_keys, at, pn, pt, pr, ci_out, cf_out, keys_out):
    """The contact rows (ci, cf, keys) taken in the solve's ``order`` into the ``_out`` arrays,
    each with the impulses it had last tick (``pn``, ``pt``, ``pr`` where its key is found in
    the sorted ``warm_keys``, at ``at``: np.searchsorted's; none: 0) in the PN, PT, PR columns."""
    nw = len(warm_keys)
    for k in range(len(order)):
        r = order[k]
        for c in range(cf.shape[1]):
            cf_out[k, c] = cf[r, c]
        ci_out[k, 0] = ci[r, 0]
        ci_out[k, 1] = ci[r, 1]
        key = keys[r]
        keys_out[k] = key
        if nw:
            w = min(at[r], nw - 1)
            found = warm_keys[w] == key
            cf_out[k, PN] = pn[w] if found else 0.0
            cf_out[k, PT] = pt[w] if found else 0.0
            cf_out[k, PR] = pr[w] if found else 0.0


@jit
def moved_far(pos, angle, prev, extent, radius, thickness, awake, out):
    """body_statics.sweep's test: the awake bodies that moved (their centre, plus their turn
    times their extent) further than a quarter of their thinnest half (at least their radius)
    from ``prev`` (B, 3: x, y, angle); their indices into ``out``, returns how many."""
    n = 0
    for b in range(pos.shape[0]):
        dx = pos[b, 0] - prev[b, 0]
        dy = pos[b, 1] - prev[b, 1]
        move = math.sqrt(dx * dx + dy * dy) + abs(angle[b] - prev[b, 2]) * extent[b]
        if awake[b] and move > max(radius[b], 0.25 * thickness[b]):
            out[n] = b
            n += 1
    return n
