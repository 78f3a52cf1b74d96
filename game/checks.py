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
- **sweeps through**: a moving wall (``motion``) whose path passes through a still static
  or a spawner's balls: balls there are crushed or batted through the wall, and the wall is
  drawn through the other. The path is the motion's swept region, exactly: a rotor's ring
  of radii about its pivot (every distance from the pivot its shape has, give or take its
  radius), a slider's capsule moved along ``to`` (the parallelogram of its ends at both
  extremes, grown by its radius), a flipper's sector (its shape at every angle of its turn,
  looked at in steps its farthest point moves SWEEP_STEP apart). Walls that share one
  motion move as one body and are not tested against each other; two walls with different
  motions are not tested against each other either (their paths may cross at times they
  are not both there).
- **bodies** (game.checks_bodies): a body that starts inside a wall or another body (which,
  and how deep), outside the bounds, or joined to a ball or body more than 1,000 times
  lighter or heavier.
- **rods** (game.checks_joints): a rod that starts off its length, rods that cannot all
  hold (a rod longer than the other rods let its ends be apart, rods between anchors shorter
  than the anchors are apart), and a chain of rods pulled straight between two anchors.

Every check has a budget: the flood's grid at most MAX_CELLS cells (where the smallest
ball would need more, the flood runs for a bigger ball and says which gaps it could not
see), the crossing search a sort and sweep over the pieces' boxes testing at most
MAX_CROSSING_PAIRS pairs and listing at most MAX_CROSSINGS, memory in bounded chunks, and
CHECK_SECONDS of time each. A check cut short says so in one line (``check_all``'s notes,
printed by ``--check`` and shown by the editor); it never takes the program down.
"""
import heapq
import itertools
import math
import time
from dataclasses import dataclass

import numpy as np

from game.physics import geometry
from game.level.bodies import held_point
from game.checks_bodies import check_bodies
from game.checks_joints import check_joints

MIN_LENGTH = 1e-3              # m: a static piece shorter than this (and not zero) is reported
OVERLAP_TOLERANCE = 1e-3       # m: a ball overlapping a wall by less than this only touches it
HEX_PACKING = math.pi / (2 * math.sqrt(3))   # fraction of a plane that equal discs fill at best
CELLS_PER_RADIUS = 4           # flood grid: cells per smallest ball radius
MAX_CELLS = 400_000            # flood grid cells at most (coarser cells for huge levels)
END_MARGIN = 1e-6              # m: crossings this close to a piece's end are a joint
CHECK_SECONDS = 5.0            # s: each check's time budget; past it the check stops and says so
MAX_CROSSING_PAIRS = 20_000_000   # pairs of pieces whose boxes overlap: the crossing search tests at most these
CROSSING_BATCH = 500_000       # pairs tested at once (bounded memory: a few hundred bytes a pair)
MAX_CROSSINGS = 100            # crossings listed at most (a level past that is a mesh, not a slip)
SWEEP_STEP = 1e-3              # m: a flipper's turn is looked at in steps its farthest point moves this far
MAX_SWEEP_POSES = 20_000       # poses of one flipper at most (a longer arc: coarser steps, said in a note)
SWEEP_MARGIN = 1e-6            # m: a path that only touches a static (within this) does not sweep through it


@dataclass(frozen=True)
class Finding:
    """One problem: ``point`` (x, y) in metres where to show it, ``reason`` one line."""
    point: tuple
    reason: str

    def line(self):
        return f"({_n(self.point[0])}, {_n(self.point[1])}): {self.reason}"


class Skipped(Exception):
    """A check cut short by its budget: ``str`` says which and why, in one line."""


class _Budget:
    """The time one check may take: ``spend()`` raises Skipped once it is over."""

    def __init__(self, what, seconds):
        self.what, self.seconds = what, seconds
        self.deadline = time.perf_counter() + seconds

    def spend(self):
        if time.perf_counter() > self.deadline:
            raise Skipped(f"{self.what} check stopped: it took more than {self.seconds:g} s")


@dataclass
class Checked:
    """What ``check_all`` found: ``findings`` [Finding], and ``notes`` [str], one line for
    each check its budget cut short (the findings then miss what it did not look at)."""
    findings: list
    notes: list


def check(level, seconds=CHECK_SECONDS):
    """All findings for a normalised level definition, in a stable order."""
    return check_all(level, seconds).findings


def check_all(level, seconds=CHECK_SECONDS):
    """The findings and the notes of the checks cut short (``Checked``); each check gets
    ``seconds`` s and bounded memory, so no level can make this run long or eat the memory."""
    pieces = static_pieces(level)
    out = Checked([], [])
    for what, run in (("short", lambda spend: _short(level)),
                      ("in-a-wall", lambda spend: _in_wall(level, pieces, spend)),
                      ("goal", lambda spend: _goals(level)),
                      ("rope", lambda spend: _short_ropes(level)),
                      ("crossing", lambda spend: _crossings(pieces, spend, out.notes)),
                      ("sweep", lambda spend: _sweeps(level, pieces, spend, out.notes)),
                      ("leak", lambda spend: _leaks(level, pieces, spend, out.notes)),
                      ("body", lambda spend: check_bodies(level, _finding, spend)),
                      ("rod", lambda spend: check_joints(level, _finding, spend))):
        budget = _Budget(what, seconds)
        try:
            out.findings += run(budget.spend)
        except Skipped as e:
            out.notes.append(str(e))
        except MemoryError:
            out.notes.append(f"{what} check stopped: out of memory")
    return out


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


def clearance(points, pieces, spend=None):
    """Distance in metres from each point (N, 2) to the nearest static surface: negative
    inside a polygon or a capsule. Returns (N,) metres and the nearest piece's name (N,).
    ``spend``: called between chunks of the work (a check's budget)."""
    a, b, r, names, polys = pieces
    p = np.asarray(points, dtype=float).reshape(-1, 2)
    best = np.full(len(p), np.inf)
    which = np.full(len(p), "", dtype=object)
    chunk = max(1, 2_000_000 // max(1, len(a)))          # bounded memory: N x K at a time
    for s in range(0, len(p), chunk):
        if spend is not None:
            spend()
        q = p[s:s + chunk, None, :]
        if len(a):
            c = geometry.closest_point_on_segment(a[None], b[None], q)
            d = np.hypot(*(q - c).transpose(2, 0, 1)) - r[None]
            k = np.argmin(d, axis=1)
            best[s:s + chunk] = d[np.arange(len(k)), k]
            which[s:s + chunk] = names[k]
    for pts, name in polys:
        if spend is not None:
            spend()
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


def _in_wall(level, pieces, spend=None):
    things = [(f"balls[{i}]", b["pos"], b["radius"]) for i, b in enumerate(level.get("balls", []))]
    things += [(f"spawners[{i}]", s["pos"], s["radius"]) for i, s in enumerate(level.get("spawners", []))]
    if not things:
        return []
    gap, which = clearance([t[1] for t in things], pieces, spend)
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
    # bodies: the level's (a zone that names one: that one) and the player's where numbered
    player_bodies = level.get("player", {}).get("bodies")
    for i, z in enumerate(level.get("zones", [])):
        if z["kind"] != "goal":
            continue
        centre, area = _zone_centre_area(z)
        if "body" in z:
            continue                                # the named body: the loader made sure it exists
        if z.get("count_bodies"):
            bodies = len(level.get("bodies", [])) + (player_bodies if player_bodies is not None else z["count"])
            if supply + bodies < z["count"]:
                out.append(Finding(centre, f"zones[{i}] wants {z['count']} balls or bodies but the level only "
                                           f"ever has {supply + bodies}"))
            continue
        if supply < z["count"]:
            out.append(Finding(centre, f"zones[{i}] wants {_balls(z['count'])} but the level only ever has {supply}"))
        elif radii:
            r = min(radii)
            fits = int(area * HEX_PACKING / (math.pi * r * r))
            if z["count"] > fits:
                out.append(Finding(centre, f"zones[{i}] wants {_balls(z['count'])} but about {fits} of radius "
                                           f"{_n(r)} m fit in it"))
    return out


def _balls(n):
    """ "1 ball", "3 balls"."""
    return f"{n} ball" if n == 1 else f"{n} balls"


ROPE_TOLERANCE = 1e-6         # relative: a rope shorter than its ends' distance by more is reported


def _short_ropes(level):
    """A rope shorter than the distance between its held points at the start: the first
    tick snaps its balls together (the level meant a longer rope, or a rod)."""
    out = []
    for i, j in enumerate(level.get("joints", [])):
        if j["kind"] != "rope":
            continue
        ends = [held_point(level, end, offset) for end, offset in ((j["a"], j["offset_a"]), (j["b"], j["offset_b"]))]
        distance = math.dist(*ends)
        if distance > j["length"] * (1.0 + ROPE_TOLERANCE):
            out.append(Finding(_mid(*ends), f"joints[{i}] is a rope {_n(j['length'])} m long between ends "
                                            f"{_n(distance)} m apart: it snaps them together at the start"))
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


def _crossings(pieces, spend=None, notes=None):
    """Pieces of different shapes that cross away from their ends. Sort and sweep: the
    pieces sorted by where their boxes start along the axis where the boxes overlap least;
    a piece can only cross those that start before it ends there (and whose boxes overlap
    along the other axis), so the pairs tested are those of overlapping boxes, not all
    n (n - 1) / 2. At most MAX_CROSSING_PAIRS are tested and MAX_CROSSINGS listed (a note
    says when the budget cut the search short)."""
    a, b, r, names, _ = pieces
    n = len(a)
    if n < 2:
        return []
    notes = [] if notes is None else notes
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    extent = np.maximum(hi.max(axis=0) - lo.min(axis=0), 1e-300)
    axis = 0 if (hi - lo)[:, 0].sum() / extent[0] <= (hi - lo)[:, 1].sum() / extent[1] else 1
    other = 1 - axis
    order = np.argsort(lo[:, axis], kind="stable")
    start = lo[order, axis]
    end = np.searchsorted(start, hi[order, axis], side="right")     # sorted k meets k+1 .. end-1
    counts = np.maximum(end - np.arange(n) - 1, 0)
    total = int(counts.sum())
    cum = np.concatenate(([0], np.cumsum(counts)))
    first = {}                        # (name, name) -> the crossing (i, j, x, y) of the lowest pieces i < j
    _, shape_of = np.unique(names.astype(str), return_inverse=True)     # pieces' shapes as numbers
    shape_of = shape_of.astype(np.int64)
    tested = 0
    k0 = 0
    while k0 < n:
        if spend is not None:
            spend()
        if tested >= MAX_CROSSING_PAIRS:
            notes.append(f"crossing check stopped after testing {tested:,} of {total:,} pairs of pieces whose "
                         f"boxes overlap: crossings beyond those are not listed")
            break
        k1 = max(k0 + 1, int(np.searchsorted(cum, cum[k0] + CROSSING_BATCH, side="right")) - 1)
        k1 = min(k1, n)
        m = int(cum[k1] - cum[k0])
        tested += m
        if m:
            ks = np.repeat(np.arange(k0, k1), counts[k0:k1])
            js = ks + 1 + (np.arange(m) - np.repeat(cum[k0:k1] - cum[k0], counts[k0:k1]))
            i, j = order[ks], order[js]
            i, j = np.minimum(i, j), np.maximum(i, j)
            keep = ((lo[i, other] <= hi[j, other]) & (lo[j, other] <= hi[i, other])
                    & (names[i] != names[j]))                # a shape's own pieces meet at their joints
            i, j = i[keep], j[keep]
            if len(i):
                pts, hit = geometry.segment_intersections(a[i], b[i], a[j], b[j])
                hit = np.asarray(hit).reshape(-1)
                pts = np.asarray(pts).reshape(-1, 2)
                i, j, pts = i[hit], j[hit], pts[hit]
                near_end = np.min([np.hypot(*(pts - a[i]).T), np.hypot(*(pts - b[i]).T),
                                   np.hypot(*(pts - a[j]).T), np.hypot(*(pts - b[j]).T)], axis=0)
                far = near_end > END_MARGIN
                i, j, pts = i[far], j[far], pts[far]
                # Per pair of shapes its first crossing in piece order, and of those only the
                # MAX_CROSSINGS + 1 first: no more can be listed (a batch of a mesh is all hits).
                order = np.lexsort((j, i))
                pair_code = shape_of[i[order]] * (len(names) + 1) + shape_of[j[order]]
                _, at = np.unique(pair_code, return_index=True)
                keep = order[np.sort(at)[:MAX_CROSSINGS + 1]]
                for ii, jj, p in zip(i[keep].tolist(), j[keep].tolist(), pts[keep].tolist()):
                    pair, hit = (names[ii], names[jj]), (ii, jj, p[0], p[1])
                    if pair not in first or hit < first[pair]:
                        first[pair] = hit
            if len(first) > MAX_CROSSINGS:
                notes.append(f"crossing check stopped after {MAX_CROSSINGS} crossings: more are not listed")
                break
        k0 = k1
    out = []
    for ii, jj, x, y in sorted(first.values())[:MAX_CROSSINGS]:   # in the order of the pieces
        pair = (names[ii], names[jj])
        out.append(Finding((x, y), f"{pair[0]} crosses {pair[1]}: a ball can wedge in the notch where they cross"))
    return out


# ---------------------------------------------------------------------- moving walls' paths

def _moving_shapes(level):
    """[(name, kind, motion, a (K, 2), b (K, 2), radius (K,))]: each shape with a motion and its
    pieces where the file puts them."""
    out = []
    for i, s in enumerate(level.get("segments", [])):
        if "motion" in s:
            out.append((f"segments[{i}]", s["motion"], [s["a"]], [s["b"]], [s["radius"]]))
    for i, line in enumerate(level.get("polylines", [])):
        if "motion" in line:
            pts = line["points"]
            n = len(pts) if line["closed"] and len(pts) > 2 else len(pts) - 1
            out.append((f"polylines[{i}]", line["motion"], pts[:n], [pts[(k + 1) % len(pts)] for k in range(n)],
                        [line["radius"]] * n))
    for i, poly in enumerate(level.get("polygons", [])):
        if "motion" in poly:
            pts = poly["points"]
            out.append((f"polygons[{i}]", poly["motion"], pts, pts[1:] + pts[:1], [0.0] * len(pts)))
    return [(name, m["kind"], m, np.asarray(a, float).reshape(-1, 2), np.asarray(b, float).reshape(-1, 2),
             np.asarray(r, float)) for name, m, a, b, r in out]


def _ring_depth(c, a, b, r, oa, ob, orad):
    """How deep (m, > 0: they overlap) a rotor's ring meets other pieces: the ring of piece
    (a, b, r) about pivot c (every distance from c the capsule takes, from its core's nearest
    to its farthest, give or take r) against the interval of distances from c the other
    capsules (oa, ob (K, 2), orad (K,)) take. Both sets are connected, so the ring and a
    capsule meet exactly where the intervals overlap."""
    def span(p, q, radius):
        near = np.hypot(*(geometry.closest_point_on_segment(p, q, c) - c).T)
        far = np.maximum(np.hypot(*(p - c).T), np.hypot(*(q - c).T))
        return np.maximum(near - radius, 0.0), far + radius

    lo, hi = span(a[None], b[None], np.array([r]))
    olo, ohi = span(oa, ob, orad)
    return np.minimum(hi, ohi) - np.maximum(lo, olo)


def _slide_depth(a, b, r, to, oa, ob, orad):
    """How deep (m) a slider's path meets other capsules: the parallelogram of its core at
    both extremes (a, b, b + to, a + to) grown by r, against each capsule (oa, ob, orad):
    r + orad less the distance from the other core to the parallelogram (0 where the core
    is inside it or crosses its sides)."""
    corners = np.array([a, b, b + to, a + to])
    sides = [(corners[k], corners[(k + 1) % 4]) for k in range(4)]
    d = np.min([geometry.segment_distance(p[None], q[None], oa, ob) for p, q in sides], axis=0)
    area = geometry.polygon_signed_area(corners)
    if abs(area) > 1e-12:
        ccw = corners if area > 0 else corners[::-1]
        inside = np.asarray(geometry.point_in_convex_polygon(oa, ccw)).reshape(-1)
        d = np.where(inside, 0.0, d)
    return r + orad - d


def _flipper_depth(c, a, b, r, angle, oa, ob, orad, notes, name):
    """How deep (m) a flipper's sector meets other capsules: its core turned about c by every
    angle from 0 to ``angle`` in steps its farthest point moves SWEEP_STEP (at most
    MAX_SWEEP_POSES poses), r + orad less the least distance between it and each capsule."""
    reach = max(float(np.hypot(*(a - c))), float(np.hypot(*(b - c))))
    poses = int(math.ceil(abs(angle) * reach / SWEEP_STEP)) + 1
    if poses > MAX_SWEEP_POSES:
        poses = MAX_SWEEP_POSES
        notes.append(f"sweep check coarse: {name}'s arc is looked at in steps of "
                     f"{_n(abs(angle) * reach / poses * 1000)} mm")
    theta = np.linspace(0.0, float(angle), max(poses, 2))
    cos, sin = np.cos(theta)[:, None], np.sin(theta)[:, None]

    def turned(p):
        v = p - c
        return np.stack((c[0] + cos[:, 0] * v[0] - sin[:, 0] * v[1], c[1] + sin[:, 0] * v[0] + cos[:, 0] * v[1]), axis=1)

    pa, pb = turned(a), turned(b)                       # (P, 2)
    d = np.full(len(oa), np.inf)
    chunk = max(1, 2_000_000 // max(1, len(oa)))
    for s in range(0, len(pa), chunk):
        d = np.minimum(d, geometry.segment_distance(pa[s:s + chunk, None], pb[s:s + chunk, None], oa[None], ob[None]).min(axis=0))
    return r + orad - d


def _sweeps(level, pieces, spend=None, notes=None):
    """A moving wall whose path sweeps through a still static or a spawner: one finding for
    each (moving shape, other) pair, at the other's point nearest the path's middle."""
    notes = [] if notes is None else notes
    moving = _moving_shapes(level)
    if not moving:
        return []
    a, b, r, names, _ = pieces
    still = ~np.isin(names.astype(str), [m[0] for m in moving])
    spawners = level.get("spawners", [])
    oa = np.concatenate((a[still], np.asarray([s["pos"] for s in spawners], float).reshape(-1, 2)))
    ob = np.concatenate((b[still], np.asarray([s["pos"] for s in spawners], float).reshape(-1, 2)))
    orad = np.concatenate((r[still], np.asarray([s["radius"] for s in spawners], float)))
    onames = np.concatenate((names[still], np.asarray([f"spawners[{i}]" for i in range(len(spawners))], object)))
    if len(oa) == 0:
        return []
    out = []
    for name, kind, m, ma, mb, mr in moving:
        depth = np.full(len(oa), -np.inf)
        for k in range(len(ma)):
            if spend is not None:
                spend()
            if kind == "rotate":
                c = np.asarray(m["pivot"], float)
                d = _ring_depth(c, ma[k], mb[k], mr[k], oa, ob, orad)
            elif kind == "slide":
                c = (ma.mean(axis=0) + mb.mean(axis=0)) / 2 + np.asarray(m["to"], float) / 2
                d = _slide_depth(ma[k], mb[k], mr[k], np.asarray(m["to"], float), oa, ob, orad)
            else:
                c = np.asarray(m["pivot"], float)
                d = _flipper_depth(c, ma[k], mb[k], mr[k], float(m["angle"]), oa, ob, orad, notes, name)
            depth = np.maximum(depth, d)
        hit = np.flatnonzero(depth > SWEEP_MARGIN)
        seen = set()
        for j in hit.tolist():
            other = onames[j]
            if other in seen:
                continue
            seen.add(other)
            point = geometry.closest_point_on_segment(oa[j], ob[j], c)
            what = "its balls would appear in the wall's way" if other.startswith("spawners") else \
                "balls there are crushed, and the wall passes through it"
            out.append(Finding((float(point[0]), float(point[1])),
                               f"{name} ({kind}) sweeps through {other}: {what}"))
    return out


def _leaks(level, pieces, spend=None, notes=None):
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
    # Two free cells side by side must never straddle a wall: cells at most 1.8 ball radii
    # wide. Where MAX_CELLS such cells do not cover the bounds, the flood runs for the ball
    # those cells can follow (bigger than the level's smallest): it still finds the gaps
    # that one passes, and the note says which it cannot see.
    flood_r = max(r, h / (2 * 0.9))
    if flood_r > r and notes is not None:
        notes.append(f"leak check coarse: bounds of {_n(x1 - x0)} x {_n(y1 - y0)} m are too big a grid for balls "
                     f"of radius {_n(r)} m; only gaps wider than {_n(2 * flood_r)} m are looked for")
    # one ring of cells outside the bounds: reaching it is leaving the level
    nx = int(math.ceil((x1 - x0) / h)) + 2
    ny = int(math.ceil((y1 - y0) / h)) + 2
    xs = x0 + (np.arange(nx) - 0.5) * h
    ys = y0 + (np.arange(ny) - 0.5) * h
    gap = _clearance_grid(xs, ys, pieces, reach=2 * flood_r + 2 * h, spend=spend)
    free = gap > flood_r
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
    popped = 0
    while todo and filled < budget:
        popped += 1
        if spend is not None and popped % 4096 == 0:
            spend()
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


def _clearance_grid(xs, ys, pieces, reach, spend=None):
    """``clearance`` at the grid points xs (nx,) x ys (ny,), exact where it is below
    ``reach`` metres (inf further away): each piece only updates the cells of its box grown
    by its radius and ``reach``, so the work is the sum of those boxes, not cells x pieces
    (a long piece goes in lengths of a few cells, so a diagonal costs its length, not the
    square it spans). ``spend``: called between pieces (a check's budget)."""
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
        if spend is not None and k % 16 == 0:
            spend()
        grow = r[k] + reach
        length = float(np.hypot(*(b[k] - a[k])))
        parts = max(1, min(int(length / (grow + 8 * h)), nx + ny))
        for t0, t1 in zip(np.arange(parts) / parts, np.arange(1, parts + 1) / parts):
            p, q_end = a[k] + t0 * (b[k] - a[k]), a[k] + t1 * (b[k] - a[k])
            i0, i1, j0, j1 = window(np.minimum(p, q_end) - grow, np.maximum(p, q_end) + grow)
            if i0 >= i1 or j0 >= j1:
                continue
            # closest_point_on_segment's arithmetic on the window's rows and columns as they
            # broadcast (no (n, m, 2) grid built: the same bits, a third of the time)
            qx, qy = xs[i0:i1, None], ys[None, j0:j1]
            cx, cy, _, _ = geometry._closest_xy(a[k, 0], a[k, 1], b[k, 0], b[k, 1], qx, qy)
            d = np.hypot(qx - cx, qy - cy) - r[k]
            np.minimum(gap[i0:i1, j0:j1], d, out=gap[i0:i1, j0:j1])
    for pts, _ in polys:
        if spend is not None:
            spend()
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


def _finding(point, reason):
    return Finding((float(point[0]), float(point[1])), reason)


def _mid(p, q):
    return ((p[0] + q[0]) / 2, (p[1] + q[1]) / 2)


def _n(x):
    return f"{float(x):.3g}"


def run_check(path, out=None, err=None):
    """``python main.py --check FILE``: print each finding as ``FILE:(x, y): reason``, one a
    line; returns 1 if any, 0 if none, 2 for a file that does not load (its one line on err).
    A check its budget cut short says so on err as ``FILE: note`` (the exit code is that of
    the findings)."""
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
        checked = check_all(level)
    except Exception as e:          # a bug: one line, never a traceback
        print(f"{path}: internal error while checking: {type(e).__name__}: {_first_line(e)}", file=err)
        return 1
    for f in checked.findings:
        print(f"{path}:{f.line()}", file=out)
    for note in checked.notes:
        print(f"{path}: {note}", file=err)
    return 1 if checked.findings else 0


def _first_line(e):
    text = str(e).strip().splitlines()
    return text[0][:300] if text else "(no message)"
