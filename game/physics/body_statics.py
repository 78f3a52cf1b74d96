"""The bodies' view of the statics, and their swept test and broad phase (game.physics.bodies).

The world's statics as rounded polygons (capsules, pegs, polygons: ``statics_for_bodies``,
rebuilt when they move), sort and sweep on bounding boxes (``aabb_pairs``), the swept test
that stops a body at its first touch of a static (``sweep``), and a moving wall's velocity at a
body's contact points (``wall_velocities``).
"""
import numpy as np

from game.physics import body_kernels as K
from game.physics import motion
from game.physics.shapes import MAX_CORNERS, edge_normals


def rotate(v, angle):
    """(..., K, 2) vectors v (B, K, 2) turned by angle (B,)."""
    c, s = np.cos(angle)[:, None], np.sin(angle)[:, None]
    return np.stack((c * v[..., 0] - s * v[..., 1], s * v[..., 0] + c * v[..., 1]), axis=-1)


def aabb_pairs(lo1, hi1, lo2, hi2, same=False, kern=K):
    """Index pairs (i, j) whose boxes [lo1[i], hi1[i]] and [lo2[j], hi2[j]] overlap, in order
    of i (body_kernels.box_pairs, sort and sweep; ``kern`` the execution's kernels). ``same``:
    both are one set; only i < j."""
    lo1, hi1 = np.ascontiguousarray(lo1, float), np.ascontiguousarray(hi1, float)
    lo2, hi2 = np.ascontiguousarray(lo2, float), np.ascontiguousarray(hi2, float)
    size = 4 * (len(lo1) + len(lo2)) + 16
    while True:
        out_i, out_j = np.empty(size, np.int64), np.empty(size, np.int64)
        n = int(kern.box_pairs(lo1, hi1, lo2, hi2, bool(same), out_i, out_j))
        if n >= 0:
            return out_i[:n], out_j[:n]
        size = -n


class _Statics:
    """The world's statics as rounded polygons for the bodies (capsules, pegs, polygons):
    ``v``, ``n`` (S, K, 2), ``c`` (S,) corners, ``f`` (S, 3) radius, friction, restitution,
    ``lo``, ``hi`` (S, 2) boxes, ``row`` (S,) a capsule row of each (for its wall velocity)."""

    def __init__(self, world):
        st = world.statics
        single = np.flatnonzero(st.polygon < 0)
        polys = world.polygons
        k = max([MAX_CORNERS] + [len(p) for p in polys])
        s = len(single) + len(polys)
        self.v = np.zeros((s, k, 2))
        self.n = np.zeros((s, k, 2))
        self.c = np.zeros(s, np.int64)
        self.f = np.zeros((s, 3))
        self.row = np.zeros(s, np.int64)
        a, b = st.a[single], st.b[single]
        peg = np.all(a == b, axis=1)
        self.v[:len(single), 0] = a
        self.v[:len(single), 1] = b
        self.c[:len(single)] = np.where(peg, 1, 2)
        d = b - a
        length = np.sqrt((d * d).sum(axis=1))
        safe = np.where(length > 0, length, 1.0)
        nrm = np.stack((d[:, 1], -d[:, 0]), axis=1) / safe[:, None]
        self.n[:len(single), 0] = nrm
        self.n[:len(single), 1] = -nrm
        self.f[:len(single)] = np.stack((st.radius[single], st.friction[single], st.restitution[single]), axis=1)
        self.row[:len(single)] = single
        for p, points in enumerate(polys):
            q = len(single) + p
            edges = np.flatnonzero(st.polygon == p)
            points = np.asarray(points, float)
            self.v[q, :len(points)] = points
            self.n[q, :len(points)] = edge_normals(points)
            self.c[q] = len(points)
            first = edges[0] if len(edges) else 0
            self.f[q] = (0.0, st.friction[first] if len(edges) else 0.3, st.restitution[first] if len(edges) else 0.0)
            self.row[q] = first
        mask = np.arange(k)[None, :] < self.c[:, None]
        big = np.where(mask[..., None], self.v, np.nan)
        self.lo = (np.nanmin(big, axis=1) - self.f[:, :1]) if s else np.zeros((0, 2))
        self.hi = (np.nanmax(big, axis=1) + self.f[:, :1]) if s else np.zeros((0, 2))


def statics_for_bodies(world):
    """The _Statics of the world's statics now (rebuilt when they have moved)."""
    b = world.bodies
    key = (world.statics_version, id(world.statics))
    if b._statics_cache is None or b._statics_cache[0] != key:
        b._statics_cache = (key, _Statics(world))
    return b._statics_cache[1]


def sweep(bodies, prev, statics, awake, kern):
    """Stop each awake body at its first touch of a static along its move this sub-step."""
    # Only a move of more than a quarter of the body's thinnest half can pass through a wall.
    if kern is not K:                   # compiled: the same test in one pass (body_glue.moved_far)
        fast = np.empty(len(bodies), np.int64)
        fast = fast[:kern.moved_far(bodies.pos, bodies.angle, prev, bodies.extent, bodies.radius, bodies.thickness,
                                    awake, fast)]
    else:
        move = np.sqrt(((bodies.pos - prev[:, :2]) ** 2).sum(axis=1)) + np.abs(bodies.angle - prev[:, 2]) * bodies.extent
        thin = np.maximum(bodies.radius, 0.25 * bodies.thickness)
        fast = np.flatnonzero(awake & (move > thin))
    if not len(fast) or not len(statics.c):
        return
    now = np.concatenate((bodies.pos, bodies.angle[:, None]), axis=1)
    lo_prev, hi_prev = _boxes_at(bodies, prev, fast)
    lo_now, hi_now = _boxes_at(bodies, now, fast)
    lo, hi = np.minimum(lo_prev, lo_now), np.maximum(hi_prev, hi_now)
    fi, sj = aabb_pairs(lo, hi, statics.lo, statics.hi, False, kern)
    if not len(fi):
        return
    hit = np.ones(len(bodies))
    kern.sweep(bodies.local, bodies.count, bodies.radius, bodies.extent, np.ascontiguousarray(prev),
               np.ascontiguousarray(now), statics.v, np.stack((statics.c, statics.c), axis=1), statics.f,
               fast[fi].astype(np.int64), sj.astype(np.int64), hit)
    stop = np.flatnonzero(hit < 1.0)
    if len(stop):
        t = hit[stop]
        bodies.pos[stop] = prev[stop, :2] + t[:, None] * (now[stop, :2] - prev[stop, :2])
        bodies.angle[stop] = prev[stop, 2] + t * (now[stop, 2] - prev[stop, 2])


def _boxes_at(bodies, pose, idx):
    c = pose[idx, None, :2] + rotate(bodies.local[idx], pose[idx, 2])
    r = bodies.radius[idx, None]
    return c.min(axis=1) - r, c.max(axis=1) + r


def wall_velocities(world, statics, shapes, on, cf):
    """Moving walls, conveyors, bumpers: at each body-static point (rows ``on``, with the static
    shape of each, ``shapes``, an index into ``statics``) the wall's velocity there (SVX, SVY)
    and its kick (KICK, m/s: a bumper's, as balls get it)."""
    k = np.flatnonzero(on)
    if not len(k):
        return
    points = cf[k, K.RAX:K.RAY + 1]
    rows = statics.row[shapes[k]]
    v = motion.velocity_at(world.statics, rows, points)
    cf[k, K.SVX], cf[k, K.SVY] = v[:, 0], v[:, 1]
    cf[k, K.KICK] = world.statics.kick[rows]
