"""The level format's dynamic bodies ("bodies"): what a schema cannot say about them.

A body is a capsule (``a``, ``b``, ``radius``), a box (``center``, ``size``, ``angle``,
``radius``) or a convex polygon (``points``, ``radius``) of 3 to 12 corners, stored
counter-clockwise. Its frame (for joints' offsets) has its origin at its centre of mass and
its axes the world's turned by a box's ``angle`` (``game.physics.shapes.body_frame``). The
defaults table is ``normalise.BODY_DEFAULTS``; normalising is ``normalise._Normaliser.body``.
"""
import math

from game.level.errors import Problem, quote, render

BODY_SHAPES = ("capsule", "box", "polygon")
BODY_SHAPE_DEFAULTS = {"capsule": {}, "box": {"angle": 0.0, "radius": 0.0}, "polygon": {"radius": 0.0}}
BODY_SHAPE_KEYS = {"capsule": ("a", "b", "radius"), "box": ("center", "size", "angle", "radius"),
                   "polygon": ("points", "radius")}
BODY_COMMON_KEYS = ("shape", "name", "density", "mass", "vel", "spin", "restitution", "friction", "colour")
MAX_BODY_CORNERS = 12             # a body polygon's corners (game.physics.shapes.MAX_CORNERS)
FRAME_KEY = "_frame"              # a saved world's exact frame of a body: checked, kept as written
MIN_BODY_INERTIA = 1e-250         # kg m^2, about: a body smaller or lighter cannot turn in floats
# A rod's default length to a body needs the body's frame (game.physics.shapes.body_frame: up to
# about 1 ms for a rounded 12-gon): at most this many bodies' in one level, within the load budget.
# (A saved level gives every rod its length: only a hand-written level could reach it.)
MAX_BODY_FRAMES = 500


def frame(definition, material_density):
    """((x, y) of a normalised body's centre of mass, its frame's angle) at load."""
    from game.physics.shapes import body_frame
    _, _, position, angle, _, _ = body_frame(definition, material_density)
    return (float(position[0]), float(position[1])), float(angle)


def check_keys(path, b):
    """Refuse a key of another shape (the schema takes every shape's keys in any body)."""
    shape = b["shape"]
    own = BODY_SHAPE_KEYS[shape]
    for key in b:
        if key not in own and key not in BODY_COMMON_KEYS and not key.startswith(("_", "//")):
            whose = " or ".join(f"a {s}'s" for s in BODY_SHAPES if key in BODY_SHAPE_KEYS[s])
            raise Problem(path + (key,), f"expected the keys of a {shape} ({', '.join(own)}) or of any body, "
                                         f"got {quote(key)} ({whose})", at_key=True)


def convex_corners(path, points, convex_pieces):
    """A body polygon's corners, checked and counter-clockwise (the first corner first).

    A convex polygon of non-zero turns is taken in pure Python (a level of 20,000 bodies
    loads in well under a second); anything else goes through ``convex_pieces`` (normalise's) for its
    words, and a simple but non-convex one is refused naming its first reflex corner."""
    n = len(points)
    ok = all(points[k] != points[k - 1] for k in range(n))
    if ok:
        turns = []
        for k in range(n):
            (x0, y0), (x1, y1), (x2, y2) = points[k - 1], points[k], points[(k + 1) % n]
            ex, ey, fx, fy = x1 - x0, y1 - y0, x2 - x1, y2 - y1
            turns.append((ex * fy - ey * fx, ex * fx + ey * fy))
        ok = all(c > 0 for c, _ in turns) or all(c < 0 for c, _ in turns)
        if ok:
            total = sum(math.atan2(abs(c), d) for c, d in turns)
            twice = sum(points[k - 1][0] * points[k][1] - points[k][0] * points[k - 1][1] for k in range(n))
            scale = max(abs(v) for q in points for v in q) or 1.0
            ok = abs(total - 2 * math.pi) < 1e-6 and abs(0.5 * twice) > 1e-12 * scale * scale
    if ok:
        if turns[0][0] > 0:
            return [[q[0], q[1]] for q in points]
        return [[q[0], q[1]] for q in points[:1] + points[:0:-1]]
    return convex_pieces(path, points, False, nonconvex=reflex_corner)[0]


def reflex_corner(path, points, area):
    """The Problem for a simple polygon body that is not convex: its first reflex corner."""
    n = len(points)
    for k in range(n):
        (x0, y0), (x1, y1), (x2, y2) = points[k - 1], points[k], points[(k + 1) % n]
        cross = (x1 - x0) * (y2 - y1) - (y1 - y0) * (x2 - x1)
        if cross * area < 0:
            return Problem(path + (k,), f"expected a convex polygon (a body cannot be cut into pieces), got a "
                                        f"reflex corner at {render(points[k])}")
    return Problem(path, "expected a convex polygon (a body cannot be cut into pieces), got a non-convex one")


def check_frame(path, frame):
    """A saved body's ``_frame``: {"pos": [x, y], "angle": number, "points": [[x, y], ...]}
    (1 to 12 points) of finite numbers."""
    def number(v):
        return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)

    def pair(v):
        return type(v) is list and len(v) == 2 and all(map(number, v))

    want = ('{"pos": [x, y], "angle": number, "points": [[x, y], ...] (1 to '
            f'{MAX_BODY_CORNERS} points)}}')
    if not isinstance(frame, dict):
        raise Problem(path, f"expected a body's frame {want}, got {render(frame)}")
    for key in frame:
        if key not in ("pos", "angle", "points"):
            raise Problem(path + (key,), f"expected the keys pos, angle and points of a body's frame, got the "
                                         f"unknown key {quote(key)}", at_key=True)
    for key in ("pos", "angle", "points"):
        if key not in frame:
            raise Problem(path, f"expected a body's frame {want} with a key {quote(key)}, got {render(frame)}")
    if not pair(frame["pos"]):
        raise Problem(path + ("pos",), f"expected [x, y] of finite numbers, got {render(frame['pos'])}")
    if not number(frame["angle"]):
        raise Problem(path + ("angle",), f"expected a finite number, got {render(frame['angle'])}")
    points = frame["points"]
    if not (type(points) is list and 1 <= len(points) <= MAX_BODY_CORNERS):
        raise Problem(path + ("points",), f"expected a list of 1 to {MAX_BODY_CORNERS} points [[x, y], ...], "
                                          f"got {render(points)}")
    for k, q in enumerate(points):
        if not pair(q):
            raise Problem(path + ("points", k), f"expected [x, y] of finite numbers, got {render(q)}")


def check_inertia(path, body):
    """Refuse a body too small (or too light) for its moment of inertia to be a float above
    0: estimated from its extent and area in O(corners) (the exact one is World's)."""
    r = body["radius"]
    if body["shape"] == "capsule":
        length = math.dist(body["a"], body["b"])
        area, extent = 2.0 * r * length + math.pi * r * r, length + 2.0 * r
    elif body["shape"] == "box":
        w, h = body["size"]
        area, extent = w * h + 2.0 * r * (w + h) + math.pi * r * r, math.hypot(w + 2.0 * r, h + 2.0 * r)
    else:
        p = body["points"]
        n = len(p)
        twice = sum(p[k - 1][0] * p[k][1] - p[k][0] * p[k - 1][1] for k in range(n))
        perimeter = sum(math.dist(p[k - 1], p[k]) for k in range(n))
        xs, ys = [q[0] for q in p], [q[1] for q in p]
        area = 0.5 * abs(twice) + perimeter * r + math.pi * r * r
        extent = math.hypot(max(xs) - min(xs), max(ys) - min(ys)) + 2.0 * r
    mass = body["mass"] if "mass" in body else body["density"] * area
    inertia = mass * extent * extent / 12.0
    if not (area > 0.0 and math.isfinite(inertia) and inertia > MIN_BODY_INERTIA):
        raise Problem(path, f"expected a body large and heavy enough to turn (a moment of inertia above about "
                            f"{MIN_BODY_INERTIA:g} kg m^2), got one of about {inertia:.3g}")


def held_point(level, end, offset):
    """Where a joint's end holds in the world at load, in a normalised ``level``: a ball
    index, {"body": i} (``offset`` in the body's frame) or an anchor [x, y]."""
    if isinstance(end, dict):
        (x, y), angle = frame(level["bodies"][end["body"]], level["material"]["density"])
    elif isinstance(end, int):
        (x, y), angle = level["balls"][end]["pos"], level["balls"][end]["angle"]
    else:
        return float(end[0]), float(end[1])
    c, s = math.cos(angle), math.sin(angle)
    return float(x + c * offset[0] - s * offset[1]), float(y + s * offset[0] + c * offset[1])
