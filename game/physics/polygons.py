"""Simple polygons that may not be convex: the first crossing of their edges and the cut
into convex pieces (ear clipping, then merging neighbours while the union stays convex).

The level loader uses them to refuse self-crossing polygons and to decompose the others
(game.level.normalise); the engine itself only ever sees convex pieces (game.physics.geometry).
"""
from __future__ import annotations

import numpy as np

from game.physics import geometry


def polygon_first_crossing(points):
    """The first pair of edges (i, j), i < j, of a closed polygon that meet where they
    should not, or None when the boundary is simple.

    points: (K, 2) metres; edge k runs from points[k] to points[(k + 1) % K]. Edges that
    are not neighbours must not meet at all (ends included); neighbours must not fold back
    over each other (a straight turn that reverses). Exact for the float inputs: only
    signs of cross products are compared.

    Cost O(K log K + P): the edges are sorted by their left end and only the P pairs whose
    boxes overlap in x are tested ("sort and sweep"), all at once in numpy. P is about K
    for a polygon whose edges are spread out, K^2 / 2 at worst (every edge spanning the
    polygon's whole width).

    >>> polygon_first_crossing([(0, 0), (2, 0), (2, 2), (0, 2)]) is None
    True
    >>> polygon_first_crossing([(0, 0), (2, 2), (2, 0), (0, 2)])   # a bow tie
    (0, 2)
    """
    p = geometry._arr(points).reshape(-1, 2)
    n = len(p)
    a, b = p, np.roll(p, -1, axis=0)
    d = b - a
    prev = np.roll(d, 1, axis=0)
    back = (prev[:, 0] * d[:, 1] - prev[:, 1] * d[:, 0] == 0) & (np.einsum("ij,ij->i", prev, d) < 0)
    if back.any():
        k = int(np.argmax(back))
        return ((k - 1) % n, k)
    lo_x, hi_x = np.minimum(a[:, 0], b[:, 0]), np.maximum(a[:, 0], b[:, 0])
    order = np.argsort(lo_x, kind="stable")
    lo_sorted = lo_x[order]
    # for the edge at sorted place s, the edges at places s+1 .. stop[s]-1 start before it ends
    stop = np.searchsorted(lo_sorted, hi_x[order], side="right")
    count = np.maximum(stop - np.arange(n) - 1, 0)
    first = np.repeat(np.arange(n), count)
    offset = np.arange(len(first)) - np.repeat(np.cumsum(count) - count, count)
    i, j = order[first], order[first + 1 + offset]
    i, j = np.minimum(i, j), np.maximum(i, j)
    neighbours = (j == i + 1) | ((i == 0) & (j == n - 1))
    i, j = i[~neighbours], j[~neighbours]
    a1, b1, a2, b2 = a[i], b[i], a[j], b[j]
    o1, o2 = np.sign(geometry.side(a1, b1, a2)), np.sign(geometry.side(a1, b1, b2))
    o3, o4 = np.sign(geometry.side(a2, b2, a1)), np.sign(geometry.side(a2, b2, b1))
    meet = (o1 * o2 < 0) & (o3 * o4 < 0)
    meet |= (o1 == 0) & _in_box(a1, b1, a2)
    meet |= (o2 == 0) & _in_box(a1, b1, b2)
    meet |= (o3 == 0) & _in_box(a2, b2, a1)
    meet |= (o4 == 0) & _in_box(a2, b2, b1)
    if not meet.any():
        return None
    k = int(np.argmin(np.where(meet, i * n + j, n * n)))
    return (int(i[k]), int(j[k]))


def _in_box(o, q, r):
    """(M,) bool: r within the bounding box of o-q (for collinear points: r on o-q)."""
    return ((np.minimum(o[:, 0], q[:, 0]) <= r[:, 0]) & (r[:, 0] <= np.maximum(o[:, 0], q[:, 0]))
            & (np.minimum(o[:, 1], q[:, 1]) <= r[:, 1]) & (r[:, 1] <= np.maximum(o[:, 1], q[:, 1])))


def convex_decomposition(points):
    """Convex pieces of a simple counter-clockwise polygon, as lists of corner indices.

    points: (K, 2) metres, simple (see ``polygon_first_crossing``) and counter-clockwise.
    Each piece is counter-clockwise. Ear clipping cuts the polygon into triangles; then
    neighbouring pieces merge again while their union stays convex (Hertel-Mehlhorn: at
    most four times the fewest convex pieces). Straight corners are dropped (the boundary
    does not change). Raises ValueError for a polygon it cannot cut (not simple).

    Cost O(K R): K ears are clipped, each tested (in numpy) against the R reflex corners
    left; the walk steps back after each clip so it tests O(K) candidates in all. A convex
    polygon (R = 0) costs O(K).

    >>> convex_decomposition([(0, 0), (2, 0), (2, 2), (1, 1), (0, 2)])
    [[3, 0, 1, 2], [0, 3, 4]]
    """
    p = geometry._arr(points).reshape(-1, 2)
    return _merge_convex(p, _ear_clip(p))


def _ear_clip(p):
    """Triangles (index triples, counter-clockwise) of a simple counter-clockwise polygon."""
    n = len(p)
    nxt, prv = list(range(1, n)) + [0], [n - 1] + list(range(n - 1))
    reflex = geometry.side(p[prv], p, p[nxt]) < 0        # (n,) bool; a clipped corner is set False
    triangles = []
    left, k, misses = n, 0, 0
    while left > 3:
        if misses > left:
            raise ValueError("the polygon cannot be cut into triangles (is it simple?)")
        i0, i2 = prv[k], nxt[k]
        c = geometry.side(p[i0], p[k], p[i2])
        ear = c > 0
        if ear and reflex.any():
            # no reflex corner (the only kind that can be) inside the triangle or on its edges
            others = np.flatnonzero(reflex)
            others = others[(others != i0) & (others != i2)]
            if len(others):
                q, a, b, d = p[others], p[i0], p[k], p[i2]
                ear = not ((geometry.side(a, b, q) >= 0) & (geometry.side(b, d, q) >= 0) & (geometry.side(d, a, q) >= 0)).any()
        if c == 0 or ear:
            if c != 0:
                triangles.append([i0, k, i2])
            nxt[i0], prv[i2] = i2, i0
            reflex[k] = False
            left -= 1
            for m in (i0, i2):
                reflex[m] = geometry.side(p[prv[m]], p[m], p[nxt[m]]) < 0
            k, misses = i0, 0             # the corner before may have become an ear
        else:
            k, misses = i2, misses + 1
    rest = [k, nxt[k], nxt[nxt[k]]]
    if geometry.side(p[rest[0]], p[rest[1]], p[rest[2]]) > 0:
        triangles.append([rest[0], rest[1], rest[2]])
    return triangles


def _merge_convex(p, pieces):
    """Hertel-Mehlhorn: remove each diagonal between two pieces whose union stays convex.

    One pass over the diagonals, each merge O(size of the pieces).
    """
    pieces = {n: list(piece) for n, piece in enumerate(pieces)}
    owner = {}                                  # directed edge (u, v) -> the piece it bounds
    for n, piece in pieces.items():
        for k in range(len(piece)):
            owner[(piece[k], piece[(k + 1) % len(piece)])] = n
    diagonals = [(u, v) for (u, v) in owner if (v, u) in owner and u < v]
    for u, v in diagonals:
        n, m = owner.get((u, v)), owner.get((v, u))
        if n is None or m is None or n == m:
            continue
        a, b = pieces[n], pieces[m]
        ia, ib = a.index(v), b.index(u)
        union = a[ia:] + a[:ia] + (b[ib:] + b[:ib])[1:-1]      # v ... u along a, then b's side
        if not _convex_at_joins(p, union, (u, v)):
            continue
        pieces[n] = union
        del pieces[m]
        del owner[(u, v)], owner[(v, u)]
        for k in range(len(b)):
            edge = (b[k], b[(k + 1) % len(b)])
            if edge in owner:
                owner[edge] = n
    return list(pieces.values())


def _convex_at_joins(p, ring, ends):
    """Whether the union ``ring`` of two convex pieces glued along a diagonal is convex:
    only the two corners at the diagonal's ends can turn the wrong way."""
    m = len(ring)
    for k in range(m):
        if ring[k] in ends and geometry.side(p[ring[k - 1]], p[ring[k]], p[ring[(k + 1) % m]]) < 0:
            return False
    return True
