"""Level checks for dynamic bodies (``game.checks`` runs them with its others; pure, no pygame).

- **body in a wall**: a body that starts overlapping a static shape (segment, polyline piece,
  polygon), by more than OVERLAP_TOLERANCE: which wall, and by how much.
- **body in a body**: two bodies (or a ball and a body) that start overlapping and are not
  joined (joined pairs do not collide: a car's wheel may sit in its body). The first tick
  pushes them apart, often violently.
- **outside the bounds**: a body whose centre of mass starts outside the level's ``bounds``
  (counted as escaped), or that sticks out of them.
- **mass ratio**: a joint between two things (balls or bodies) whose masses differ more than
  MAX_MASS_RATIO times: the solver struggles (the light one jitters, the joint stretches).

Shapes are the engine's: a body's corners, radius, centre of mass and mass come from
``game.physics.shapes.body_frame``. How deep two rounded convex shapes overlap: where their
cores (the polygons, a plank's segment, a ball's centre) are apart, the sum of their radii
less the distance between the cores; where the cores cross, the sum of the radii plus the
least overlap of their projections on the edges' normals (the separating-axis test).
"""
import math

import numpy as np

from game.physics.shapes import body_frame

OVERLAP_TOLERANCE = 1e-3     # m: shapes overlapping less than this only touch
MAX_MASS_RATIO = 1000.0      # a joint between masses further apart than this is reported


def body_cores(level):
    """Each body as (name, core corners (K, 2) in the world, radius, centre of mass (2,), mass)."""
    density = level["material"]["density"]
    out = []
    for i, b in enumerate(level.get("bodies", [])):
        local, radius, pos, angle, mass, _ = body_frame(b, density)
        c, s = math.cos(angle), math.sin(angle)
        world = np.asarray(pos, float) + np.asarray(local, float) @ np.array([[c, s], [-s, c]])
        out.append((f"bodies[{i}]", world, float(radius), np.asarray(pos, float), float(mass)))
    return out


def static_cores(level):
    """Each static shape as (name, core corners (K, 2), radius): segments and polyline pieces
    are 2-corner cores (a round peg: 1), polygons' convex pieces their corners."""
    out = []
    for i, s in enumerate(level.get("segments", [])):
        pts = [s["a"]] if s["a"] == s["b"] else [s["a"], s["b"]]
        out.append((f"segments[{i}]", np.asarray(pts, float), float(s["radius"])))
    for i, line in enumerate(level.get("polylines", [])):
        pts = line["points"]
        n = len(pts) if line["closed"] and len(pts) > 2 else len(pts) - 1
        for k in range(n):
            out.append((f"polylines[{i}]", np.asarray([pts[k], pts[(k + 1) % len(pts)]], float), float(line["radius"])))
    for i, poly in enumerate(level.get("polygons", [])):
        out.append((f"polygons[{i}]", np.asarray(poly["points"], float), 0.0))
    return out


def _gap(p, a, b):
    d = b - a
    dd = float(d @ d)
    t = 0.0 if dd == 0.0 else min(1.0, max(0.0, float((p - a) @ d) / dd))
    return float(np.hypot(*(p - (a + t * d))))


def _edges(core):
    n = len(core)
    if n == 1:
        return [(core[0], core[0])]
    if n == 2:
        return [(core[0], core[1])]
    return [(core[k], core[(k + 1) % n]) for k in range(n)]


def _crossing(a1, b1, a2, b2):
    def side(a, b, p):
        return (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
    d1, d2, d3, d4 = side(a1, b1, a2), side(a1, b1, b2), side(a2, b2, a1), side(a2, b2, b1)
    return d1 * d2 < 0 and d3 * d4 < 0


def _inside(p, core):
    """p inside (or on) the convex polygon ``core`` (3 or more corners, either way round)."""
    if len(core) < 3:
        return False
    n = len(core)
    signs = [(core[(k + 1) % n][0] - core[k][0]) * (p[1] - core[k][1])
             - (core[(k + 1) % n][1] - core[k][1]) * (p[0] - core[k][0]) for k in range(n)]
    return all(v >= 0 for v in signs) or all(v <= 0 for v in signs)


def core_distance(p, q):
    """Distance in metres between two convex cores (1, 2 or more corners): 0 where they cross."""
    if _inside(p[0], q) or _inside(q[0], p):
        return 0.0
    best = math.inf
    for a1, b1 in _edges(p):
        for a2, b2 in _edges(q):
            if _crossing(a1, b1, a2, b2):
                return 0.0
            best = min(best, _gap(a1, a2, b2), _gap(b1, a2, b2), _gap(a2, a1, b1), _gap(b2, a1, b1))
    return best


def _penetration(p, q):
    """The least push that separates two crossing convex cores along one of their edges' normals."""
    best = math.inf
    for core in (p, q):
        for a, b in _edges(core):
            d = b - a
            length = math.hypot(*d)
            if length == 0.0:
                continue
            n = np.array([-d[1], d[0]]) / length
            sp, sq = p @ n, q @ n
            best = min(best, sp.max() - sq.min(), sq.max() - sp.min())    # the shorter push apart
    return 0.0 if best == math.inf else max(best, 0.0)


def overlap(p, rp, q, rq):
    """How deep (metres) two rounded convex shapes overlap; <= 0 where they do not."""
    gap = core_distance(p, q)
    if gap > 0.0:
        return rp + rq - gap
    return rp + rq + _penetration(p, q)


def _box(core, r):
    return core[:, 0].min() - r, core[:, 1].min() - r, core[:, 0].max() + r, core[:, 1].max() + r


def _boxes_meet(a, b):
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def check_bodies(level, finding, spend=None):
    """The findings of the body checks (``finding(point, reason)`` makes each)."""
    bodies = body_cores(level)
    if not bodies:
        return []
    out, walled = [], set()
    statics = static_cores(level)
    static_boxes = np.array([_box(c, r) for _, c, r in statics]).reshape(-1, 4)
    for name, core, r, pos, _ in bodies:                # in a wall: the deepest wall
        if spend is not None:
            spend()
        x0, y0, x1, y1 = _box(core, r)
        near = np.nonzero((static_boxes[:, 0] <= x1) & (x0 <= static_boxes[:, 2])
                          & (static_boxes[:, 1] <= y1) & (y0 <= static_boxes[:, 3]))[0]
        deepest = max(((overlap(core, r, statics[k][1], statics[k][2]), statics[k][0]) for k in near),
                      default=(0.0, None))
        if deepest[0] > OVERLAP_TOLERANCE:
            out.append(finding(tuple(pos), f"{name} starts inside a wall: {_n(deepest[0])} m into {deepest[1]}"))
            walled.add(name)
    out += _overlapping(level, bodies, finding, spend)
    out += _outside(level, bodies, finding, walled)
    out += _mass_ratios(level, bodies, finding)
    return out


def _joined(level):
    """Pairs of names ("bodies[1]", "balls[0]") a joint joins (they do not collide)."""
    pairs = set()
    for j in level.get("joints", []):
        a, b = _end_name(j["a"]), _end_name(j["b"])
        if a and b:
            pairs.add(frozenset((a, b)))
    return pairs


def _end_name(end):
    if isinstance(end, dict):
        return f"bodies[{end['body']}]"
    if isinstance(end, int) and not isinstance(end, bool):
        return f"balls[{end}]"
    return None


def _overlapping(level, bodies, finding, spend=None):
    """Bodies overlapping bodies, and balls overlapping bodies, at the start: sort and sweep."""
    things = [(name, core, r, pos) for name, core, r, pos, _ in bodies]
    things += [(f"balls[{i}]", np.asarray([b["pos"]], float), float(b["radius"]), np.asarray(b["pos"], float))
               for i, b in enumerate(level.get("balls", []))]
    boxes = [_box(core, r) for _, core, r, _ in things]
    order = sorted(range(len(things)), key=lambda k: boxes[k][0])
    joined, out = _joined(level), []
    for n, i in enumerate(order):
        if spend is not None and n % 256 == 0:
            spend()
        for j in order[n + 1:]:
            if boxes[j][0] > boxes[i][2]:
                break
            a, b = things[i], things[j]
            if a[0].startswith("balls") and b[0].startswith("balls"):
                continue                                # balls in balls: the physics' own business
            if not _boxes_meet(boxes[i], boxes[j]) or frozenset((a[0], b[0])) in joined:
                continue
            depth = overlap(a[1], a[2], b[1], b[2])
            if depth > OVERLAP_TOLERANCE:
                first, second = sorted((a, b), key=lambda t: _order(t[0]))
                out.append(finding(tuple(second[3]), f"{second[0]} starts inside {first[0]}: "
                                                     f"{_n(depth)} m deep (they fly apart at the first tick)"))
    return out


def _order(name):
    kind, _, rest = name.partition("[")
    return (kind != "bodies", int(rest[:-1]))


def _outside(level, bodies, finding, walled=()):
    """Centres outside the bounds; bodies sticking out of them (but not those in a wall
    already: a body sunk into a floor on the bounds' edge is one mistake, said once)."""
    x0, y0, x1, y1 = level["bounds"]
    out = []
    for name, core, r, pos, _ in bodies:
        bx0, by0, bx1, by1 = _box(core, r)
        if not (x0 <= pos[0] <= x1 and y0 <= pos[1] <= y1):
            out.append(finding(tuple(pos), f"{name} is outside the bounds: its centre ({_n(pos[0])}, {_n(pos[1])}) "
                                           f"is not in [{_n(x0)}, {_n(y0)}, {_n(x1)}, {_n(y1)}] (escaped at once)"))
            continue
        past = max(x0 - bx0, y0 - by0, bx1 - x1, by1 - y1)
        if past > OVERLAP_TOLERANCE and name not in walled:
            out.append(finding(tuple(pos), f"{name} sticks {_n(past)} m out of the bounds"))
    return out


def _mass_ratios(level, bodies, finding):
    masses = {name: mass for name, _, _, _, mass in bodies}
    centres = {name: pos for name, _, _, pos, _ in bodies}
    for i, b in enumerate(level.get("balls", [])):
        masses[f"balls[{i}]"] = b["mass"] if "mass" in b else b["density"] * math.pi * b["radius"] ** 2
        centres[f"balls[{i}]"] = b["pos"]
    out = []
    for k, j in enumerate(level.get("joints", [])):
        a, b = _end_name(j["a"]), _end_name(j["b"])
        if a is None or b is None or "bodies" not in a + b:
            continue                                    # balls alone: the joints' own checks
        ma, mb = masses[a], masses[b]
        ratio = max(ma, mb) / max(min(ma, mb), 1e-300)
        if ratio > MAX_MASS_RATIO:
            point = tuple((np.asarray(centres[a], float) + np.asarray(centres[b], float)) / 2)
            out.append(finding(point, f"joints[{k}] joins {a} ({_n(ma)} kg) to {b} ({_n(mb)} kg): a mass ratio of "
                                      f"{ratio:,.0f}, over {MAX_MASS_RATIO:,.0f} (the solver struggles: it jitters)"))
    return out


def _n(x):
    return f"{x:.3g}"
