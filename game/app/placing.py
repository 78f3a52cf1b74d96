"""Where the player's new balls go: a small seeded jitter, and the nearest free spot near
the pointer for the spray. Reads the world, never writes it (no pygame).

Points are (2,) arrays in metres; a spot is free when a ball of the given radius there
overlaps no ball and no wall and lies inside the level's bounds.
"""
import numpy as np

from game import defaults
from game.physics import geometry

JITTER_FRACTION = 0.1        # of the radius: a player's ball moves at most this, or
                             # defaults.SPAWNER_JITTER m if less (what a spawner does by default)
SPRAY_REACH = 4.0            # ball diameters: the spray looks this far from the pointer for a free spot
SPACING = 1.02               # the spray's lattice: 2 r * SPACING apart, so neighbours do not touch


def jitter_size(radius):
    """m: how far (in x and in y, at most) a player's ball of ``radius`` m is moved from the
    point clicked: the spawners' default jitter, or a tenth of the radius if that is less."""
    return min(defaults.SPAWNER_JITTER, JITTER_FRACTION * float(radius))


def jittered(point, radius, rng):
    """``point`` moved by up to jitter_size(radius) in x and y, drawn from ``rng`` (a
    numpy Generator seeded per run of the level, so the same clicks make the same balls)."""
    size = jitter_size(radius)
    return np.asarray(point, float) + rng.uniform(-size, size, 2)


def lattice(radius, reach=SPRAY_REACH):
    """(K, 2) m: offsets of a hexagonal lattice of spacing 2 r SPACING within ``reach``
    diameters of the origin, nearest first (the origin itself first)."""
    step = 2.0 * float(radius) * SPACING
    n = int(np.ceil(reach * 2.0 * radius / step)) + 1
    rows, cols = np.meshgrid(np.arange(-n, n + 1), np.arange(-n, n + 1), indexing="ij")
    x = (cols + 0.5 * (rows % 2)) * step
    y = rows * step * np.sqrt(3.0) / 2.0
    points = np.stack((x.ravel(), y.ravel()), axis=1)
    d = np.hypot(points[:, 0], points[:, 1])
    keep = d <= reach * 2.0 * radius + 1e-12
    order = np.lexsort((points[keep][:, 0], points[keep][:, 1], np.round(d[keep] / step, 9)))
    return points[keep][order]


def free(world, points, radius):
    """(K,) bool: whether a ball of ``radius`` m at each of ``points`` (K, 2) would lie inside
    the world's bounds and overlap no ball and no static shape (capsules, and the insides of
    polygons)."""
    points = np.asarray(points, float).reshape(-1, 2)
    radius = float(radius)
    x0, y0, x1, y1 = world.bounds
    ok = (points[:, 0] >= x0) & (points[:, 0] <= x1) & (points[:, 1] >= y0) & (points[:, 1] <= y1)
    if not len(points):
        return ok
    lo, hi = points.min(axis=0) - radius, points.max(axis=0) + radius
    if world.count:
        pos, r = np.asarray(world.pos), np.asarray(world.radius)
        near = np.flatnonzero(np.all((pos + r[:, None] >= lo) & (pos - r[:, None] <= hi), axis=1))
        if len(near):
            d = points[:, None, :] - pos[near][None]
            reach = r[near][None] + radius
            ok &= ~np.any(np.einsum("kij,kij->ki", d, d) < reach * reach, axis=1)
    statics = world.statics
    if len(statics.radius):
        box = statics.box
        near = np.flatnonzero((box[:, 0] <= hi[0]) & (box[:, 2] >= lo[0]) & (box[:, 1] <= hi[1]) & (box[:, 3] >= lo[1]))
        if len(near):
            closest = geometry.closest_point_on_segment(statics.a[near][None], statics.b[near][None], points[:, None])
            gap = np.linalg.norm(points[:, None] - closest, axis=2)
            ok &= ~np.any(gap < statics.radius[near][None] + radius, axis=1)
            for poly in np.unique(statics.polygon[near]):
                if poly >= 0:
                    inside = np.asarray(geometry.point_in_convex_polygon(points, statics.polygons[poly]), bool)
                    ok &= ~inside.reshape(-1)
    return ok


def nearest_free(world, point, radius, offset=(0.0, 0.0), reach=SPRAY_REACH):
    """(2,) m: the free spot (``free``) nearest ``point`` on a hexagonal lattice round it
    (shifted by ``offset``, the jitter), within ``reach`` diameters; None if every one is
    taken."""
    spots = np.asarray(point, float) + np.asarray(offset, float) + lattice(radius, reach)
    ok = np.flatnonzero(free(world, spots, radius))
    return spots[ok[0]] if len(ok) else None
