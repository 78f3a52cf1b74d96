"""Level checks: mistakes a level can hold that the loader accepts, each with a place and a reason.

    for f in check(load("levels/x.json")):
        print(f.point, f.reason)          # (x, y) metres for the marker; one line for a person

Pure (no pygame); takes a normalised level definition (what ``game.level.load`` returns).
The checks:

- **leak**: balls that flow out of the level through a gap. Where balls go under gravity is
  found by a flood over a grid of cells (a quarter of the smallest ball's radius): a cell
  is free when a ball of that radius centred there overlaps no static shape. From the
  balls' and spawners' places the flood is poured like water: the lowest free cell next
  to it (height along -gravity) is taken first, so it falls, runs down slopes, covers a
  basin's floor and rises in it, until it holds the area of every ball the level will
  ever have (balls plus every spawner's ``max``, at hexagonal packing); kill zones
  swallow it. When it leaves ``bounds`` first, the narrowest free cell on its way out is
  the gap (the marker goes there). A ball can go where the flood goes, so a gap narrower
  than the smallest ball is never reported, and the open top of a box only when the
  level's balls would fill it to the brim. Without gravity there is no "down" and this
  check is skipped.
- **in a wall**: a ball, or a spawner's ball, that overlaps a static shape at the start.
- **goal too full**: a goal whose ``count`` exceeds the balls that fit in it (its area over
  the area of one of the smallest balls, times the density of hexagonal packing) or the
  balls the level can ever have (balls plus every spawner's ``max``, plus the balls its
  ``player`` may add where it gives a number).
- **crossing statics**: two static pieces that cross each other away from their ends: a
  thin notch a ball can wedge in at the crossing (touching and joined ends are fine).
- **short**: a segment, polyline piece or polygon edge shorter than 1 mm but not zero (a
  round peg, both ends equal with a radius, is meant): to the step it is a point, and in
  a file it is nearly always a typing slip.
"""
import heapq
import itertools
import math
from dataclasses import dataclass

import numpy as np

from game import geometry

MIN_LENGTH = 1e-3              # m: a static piece shorter than this (and not zero) is reported
OVERLAP_TOLERANCE = 1e-3       # m: a ball overlapping a wall by less than this only touches it
HEX_PACKING = math.pi / (2 * math.sqrt(3))   # fraction of a plane that equal discs fill at best
CELLS_PER_RADIUS = 4           # flood grid: cells per smallest ball radius
MAX_CELLS = 400_000            # flood grid cells at most (coarser cells for huge levels)
END_MARGIN = 1e-6              # m: crossings this close to a piece's end are a joint


@dataclass(frozen=True)
class Finding:
    """One problem: ``point`` (x, y) in metres where to show it, ``reason`` one line."""
    point: tuple
    reason: str

    def line(self):
        return f"({_n(self.point[0])}, {_n(self.point[1])}): {self.reason}"


def check(level):
    """All findings for a normalised level definition, in a stable order."""
    pieces = static_pieces(level)
    found = []
    found += _short(level)
    found += _in_wall(level, pieces)
    found += _goals(level)
    found += _crossings(pieces)
    found += _leaks(level, pieces)
    return found


# ---------------------------------------------------------------------- static geometry

def static_pieces(level):
    """Every static piece as capsules: (a (K, 2), b (K, 2), radius (K,), names (K,) str) in
    metres; names say where each comes from ("segments[3]", "polygons[0]"). Polygons also
    come back as a list of (points (M, 2), name) for the inside test."""
    a, b, r, names = [], [], [], []
    for i, s in enumerate(level.get("segments", [])):
        a.append(s["a"]), b.append(s["b"]), r.append(s["radius"]), names.append(f"segments[{i}]")
    for i, line in enumerate(level.get("polylines", [])):
        pts = line["points"]
        n = len(pts) if line["closed"] and len(pts) > 2 else len(pts) - 1
        for k in range(n):
            a.append(pts[k]), b.append(pts[(k + 1) % len(pts)]), r.append(line["radius"])
            names.append(f"polylines[{i}]")
    polys = []
    for i, poly in enumerate(level.get("polygons", [])):
        pts = poly["points"]
        for k in range(len(pts)):
            a.append(pts[k]), b.append(pts[(k + 1) % len(pts)]), r.append(0.0), names.append(f"polygons[{i}]")
        polys.append((np.asarray(pts, dtype=float), f"polygons[{i}]"))
    shape = (-1, 2)
    return (np.asarray(a, dtype=float).reshape(shape), np.asarray(b, dtype=float).reshape(shape),
            np.asarray(r, dtype=float), np.asarray(names, dtype=object), polys)


def clearance(points, pieces):
    """Distance in metres from each point (N, 2) to the nearest static surface: negative
    inside a polygon or a capsule. Returns (N,) metres and the nearest piece's name (N,)."""
    a, b, r, names, polys = pieces
    p = np.asarray(points, dtype=float).reshape(-1, 2)
    best = np.full(len(p), np.inf)
    which = np.full(len(p), "", dtype=object)
    chunk = max(1, 2_000_000 // max(1, len(a)))          # bounded memory: N x K at a time
    for s in range(0, len(p), chunk):
        q = p[s:s + chunk, None, :]
        if len(a):
            c = geometry.closest_point_on_segment(a[None], b[None], q)
            d = np.hypot(*(q - c).transpose(2, 0, 1)) - r[None]
            k = np.argmin(d, axis=1)
            best[s:s + chunk] = d[np.arange(len(k)), k]
            which[s:s + chunk] = names[k]
    for pts, name in polys:
        inside = np.asarray(geometry.point_in_convex_polygon(p, pts)).reshape(-1)
        best = np.where(inside, -np.abs(best), best)
        which = np.where(inside, name, which)
    return best, which


# ---------------------------------------------------------------------- the checks

def _short(level):
    out = []

    def look(p, q, where):
        length = math.dist(p, q)
        if 0 < length < MIN_LENGTH:
            out.append(Finding(_mid(p, q), f"{where} is {length * 1000:.2g} mm long: shorter than "
                                           f"{MIN_LENGTH * 1000:g} mm (a slip?)"))

    for i, s in enumerate(level.get("segments", [])):
        look(s["a"], s["b"], f"segments[{i}]")
    for i, line in enumerate(level.get("polylines", [])):
        pts = line["points"]
        n = len(pts) if line["closed"] and len(pts) > 2 else len(pts) - 1
        for k in range(n):
            look(pts[k], pts[(k + 1) % len(pts)], f"polylines[{i}] piece {k}")
    for i, poly in enumerate(level.get("polygons", [])):
        pts = poly["points"]
        for k in range(len(pts)):
            look(pts[k], pts[(k + 1) % len(pts)], f"polygons[{i}] edge {k}")
    return out


def _in_wall(level, pieces):
    things = [(f"balls[{i}]", b["pos"], b["radius"]) for i, b in enumerate(level.get("balls", []))]
    things += [(f"spawners[{i}]", s["pos"], s["radius"]) for i, s in enumerate(level.get("spawners", []))]
    if not things:
        return []
    gap, which = clearance([t[1] for t in things], pieces)
    out = []
    for (name, pos, radius), g, w in zip(things, gap, which):
        if g < radius - OVERLAP_TOLERANCE:
            what = "its balls start" if name.startswith("spawners") else "it starts"
            out.append(Finding(tuple(pos), f"{name} is inside a wall: {what} {_n(radius - g)} m into {w}"))
    return out


def _goals(level):
    out = []
    radii = [b["radius"] for b in level.get("balls", [])] + [s["radius"] for s in level.get("spawners", [])]
    # the player's balls count where the level gives a number of them (no limit adds none here)
    spawn = level.get("player", {}).get("spawn")
    supply = len(level.get("balls", [])) + sum(s["max"] for s in level.get("spawners", [])) + (spawn or 0)
    for i, z in enumerate(level.get("zones", [])):
        if z["kind"] != "goal":
            continue
        centre, area = _zone_centre_area(z)
        if supply < z["count"]:
            out.append(Finding(centre, f"zones[{i}] wants {z['count']} balls but the level only ever has {supply}"))
        elif radii:
            r = min(radii)
            fits = int(area * HEX_PACKING / (math.pi * r * r))
            if z["count"] > fits:
                out.append(Finding(centre, f"zones[{i}] wants {z['count']} balls but about {fits} of radius "
                                           f"{_n(r)} m fit in it"))
    return out


def _zone_centre_area(z):
    if "rect" in z:
        (x0, y0), (x1, y1) = z["rect"]
        return ((x0 + x1) / 2, (y0 + y1) / 2), abs(x1 - x0) * abs(y1 - y0)
    if "circle" in z:
        return tuple(z["circle"]["center"]), math.pi * z["circle"]["radius"] ** 2
    if "ellipse" in z:
        rx, ry = z["ellipse"]["radii"]
        return tuple(z["ellipse"]["center"]), math.pi * rx * ry
    pts = np.asarray(z["polygon"], dtype=float)
    return tuple(pts.mean(axis=0)), abs(geometry.polygon_signed_area(pts))


def _crossings(pieces):
    a, b, r, names, _ = pieces
    n = len(a)
    if n < 2:
        return []
    out, seen = [], set()
    i, j = np.triu_indices(n, 1)
    keep = names[i] != names[j]              # a shape's own pieces meet at their joints
    i, j = i[keep], j[keep]
    for s in range(0, len(i), 1_000_000):
        ii, jj = i[s:s + 1_000_000], j[s:s + 1_000_000]
        pts, hit = geometry.segment_intersections(a[ii], b[ii], a[jj], b[jj])
        hit = np.asarray(hit).reshape(-1)
        pts = np.asarray(pts).reshape(-1, 2)
        for k in np.flatnonzero(hit):
            p = pts[k]
            near_end = min(np.hypot(*(p - a[ii[k]])), np.hypot(*(p - b[ii[k]])),
                           np.hypot(*(p - a[jj[k]])), np.hypot(*(p - b[jj[k]])))
            pair = (names[ii[k]], names[jj[k]])
            if near_end <= END_MARGIN or pair in seen:
                continue
            seen.add(pair)
            out.append(Finding((float(p[0]), float(p[1])), f"{pair[0]} crosses {pair[1]}: a ball can wedge "
                                                           f"in the notch where they cross"))
    return out


def _leaks(level, pieces):
    gx, gy = level["gravity"]
    sources = [b["pos"] for b in level.get("balls", [])] + [s["pos"] for s in level.get("spawners", [])]
    radii = [b["radius"] for b in level.get("balls", [])] + [s["radius"] for s in level.get("spawners", [])]
    radii_all = [b["radius"] for b in level.get("balls", [])] + [s["radius"] for s in level.get("spawners", [])
                                                                  for _ in range(s["max"])]
    if (gx == 0 and gy == 0) or not sources:
        return []
    r = min(radii)
    x0, y0, x1, y1 = level["bounds"]
    h = r / CELLS_PER_RADIUS
    while (x1 - x0) * (y1 - y0) / (h * h) > MAX_CELLS:
        h *= 1.5
    h = min(h, 2 * r * 0.9)                  # two free cells side by side never straddle a wall
    # one ring of cells outside the bounds: reaching it is leaving the level
    nx = int(math.ceil((x1 - x0) / h)) + 2
    ny = int(math.ceil((y1 - y0) / h)) + 2
    xs = x0 + (np.arange(nx) - 0.5) * h
    ys = y0 + (np.arange(ny) - 0.5) * h
    gap = _clearance_grid(xs, ys, pieces, reach=2 * r + 2 * h)
    free = gap > r
    gxv, gyv = np.meshgrid(xs, ys, indexing="ij")
    grid = np.stack([gxv.ravel(), gyv.ravel()], axis=1)
    sink = np.zeros((nx, ny), dtype=bool)
    for z in level.get("zones", []):
        if z["kind"] == "kill":
            sink |= _in_zone(z, grid).reshape(nx, ny)
    # Water, not sand: the cells are taken lowest first (height along -gravity), so the flood
    # falls, spreads on what holds it and rises in a basin only once the basin's floor is
    # covered; it stops once it holds the area of every ball the level will ever have.
    # Cells are numbered i * ny + j in plain lists (a numpy lookup per cell costs more).
    g = math.hypot(gx, gy)
    height = (-(gx * gxv + gy * gyv) / g).ravel().tolist()
    is_free = free.ravel().tolist()
    is_sink = sink.ravel().tolist()
    budget = sum(math.pi * rad * rad for rad in radii_all) / HEX_PACKING
    cell_area = h * h
    parent = {}
    todo = []
    order = itertools.count()           # ties: first come, first taken
    for p in sources:
        i = min(max(int((p[0] - x0) / h + 0.5), 1), nx - 2)
        j = min(max(int((p[1] - y0) / h + 0.5), 1), ny - 2)
        c = i * ny + j
        if is_free[c] and c not in parent:
            parent[c] = None
            heapq.heappush(todo, (height[c], next(order), c))
    filled = 0.0
    while todo and filled < budget:
        _, _, c = heapq.heappop(todo)
        i, j = divmod(c, ny)
        if i == 0 or i == nx - 1 or j == 0 or j == ny - 1:     # left the bounds: a leak
            return [_leak_finding(c, parent, gap.ravel(), xs, ys, ny, r)]
        if is_sink[c]:
            continue
        filled += cell_area
        for n in (c - ny, c + ny, c - 1, c + 1):
            if is_free[n] and n not in parent:
                parent[n] = c
                heapq.heappush(todo, (height[n], next(order), n))
    return []


def _clearance_grid(xs, ys, pieces, reach):
    """``clearance`` at the grid points xs (nx,) x ys (ny,), exact where it is below
    ``reach`` metres (inf further away): each piece only updates the cells of its box grown
    by its radius and ``reach``, so the work is the sum of those boxes, not cells x pieces."""
    a, b, r, _, polys = pieces
    nx, ny = len(xs), len(ys)
    x0, h = xs[0], xs[1] - xs[0]
    gap = np.full((nx, ny), np.inf)

    def window(lo, hi):
        i0 = max(0, int(math.floor((lo[0] - x0) / h)))
        i1 = min(nx, int(math.ceil((hi[0] - x0) / h)) + 1)
        j0 = max(0, int(math.floor((lo[1] - ys[0]) / h)))
        j1 = min(ny, int(math.ceil((hi[1] - ys[0]) / h)) + 1)
        return i0, i1, j0, j1

    for k in range(len(a)):
        grow = r[k] + reach
        i0, i1, j0, j1 = window(np.minimum(a[k], b[k]) - grow, np.maximum(a[k], b[k]) + grow)
        if i0 >= i1 or j0 >= j1:
            continue
        q = np.stack(np.meshgrid(xs[i0:i1], ys[j0:j1], indexing="ij"), axis=-1)
        c = geometry.closest_point_on_segment(a[k], b[k], q)
        d = np.hypot(q[..., 0] - c[..., 0], q[..., 1] - c[..., 1]) - r[k]
        np.minimum(gap[i0:i1, j0:j1], d, out=gap[i0:i1, j0:j1])
    for pts, _ in polys:
        i0, i1, j0, j1 = window(pts.min(axis=0), pts.max(axis=0))
        if i0 >= i1 or j0 >= j1:
            continue
        q = np.stack(np.meshgrid(xs[i0:i1], ys[j0:j1], indexing="ij"), axis=-1)
        inside = np.asarray(geometry.point_in_convex_polygon(q, pts))
        block = gap[i0:i1, j0:j1]
        block[inside] = -np.abs(block[inside])
    return gap


def _leak_finding(c, parent, gap, xs, ys, ny, r):
    """The narrowest cell on the flood's path to the outside is the gap."""
    best = c
    while c is not None:
        if gap[c] < gap[best]:
            best = c
        c = parent[c]
    i, j = divmod(best, ny)
    return Finding((float(xs[i]), float(ys[j])), f"balls of radius {_n(r)} m leak out of the level through a gap here")


def _in_zone(z, points):
    if "rect" in z:
        (x0, y0), (x1, y1) = z["rect"]
        return (points[:, 0] >= x0) & (points[:, 0] <= x1) & (points[:, 1] >= y0) & (points[:, 1] <= y1)
    if "circle" in z:
        c, rad = z["circle"]["center"], z["circle"]["radius"]
        return np.hypot(points[:, 0] - c[0], points[:, 1] - c[1]) <= rad
    if "ellipse" in z:
        return np.asarray(geometry.point_in_ellipse(points, z["ellipse"]["center"], z["ellipse"]["radii"]))
    return np.asarray(geometry.point_in_convex_polygon(points, z["polygon"]))


def _mid(p, q):
    return ((p[0] + q[0]) / 2, (p[1] + q[1]) / 2)


def _n(x):
    return f"{float(x):.3g}"


def run_check(path, out=None, err=None):
    """``python main.py --check FILE``: print each finding as ``FILE:(x, y): reason``, one a
    line; returns 1 if any, 0 if none, 2 for a file that does not load (its one line on err)."""
    import sys
    from game.level import LevelError, load
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        level = load(path)
    except LevelError as e:
        print(e, file=err)
        return 2
    try:
        found = check(level)
    except Exception as e:          # a bug: one line, never a traceback
        print(f"{path}: internal error while checking: {type(e).__name__}: {e}", file=err)
        return 1
    for f in found:
        print(f"{path}:{f.line()}", file=out)
    return 1 if found else 0
