"""Geometry the editor makes and changes items with: arcs, and rotating or scaling items
about a point. Pure functions on level items (dicts as the loader fills them in); no pygame.

Angles are in degrees, counter-clockwise from +x; points are [x, y] in metres.
"""
import math

ARC_STEP = 10.0             # degrees of arc a polyline piece spans at most


def arc_points(center, radius, start, end, pieces=None):
    """The corners of a polyline along the circle of ``radius`` round ``center`` from angle
    ``start`` to ``end`` (counter-clockwise when end > start), ``pieces`` chords (default:
    one per ARC_STEP degrees, at least 4). A sweep of a whole turn or more gives the circle's
    corners once (the polyline is then closed)."""
    sweep = float(end) - float(start)
    full = abs(sweep) >= 360.0 - 1e-9
    if full:
        sweep = 360.0 if sweep > 0 else -360.0
    n = int(pieces) if pieces else max(4, int(math.ceil(abs(sweep) / ARC_STEP - 1e-9)))
    count = n if full else n + 1
    cx, cy = float(center[0]), float(center[1])
    out = []
    for k in range(count):
        a = math.radians(float(start) + sweep * k / n)
        out.append([round(cx + radius * math.cos(a), 9), round(cy + radius * math.sin(a), 9)])
    return out, full


def arc_from(center, rim):
    """The arc tool's shape for a drag from ``center`` to ``rim``: that radius, starting
    at the rim point's angle and turning half a circle counter-clockwise (dragged to the
    left of the centre: a cup); None for a drag too short."""
    dx, dy = rim[0] - center[0], rim[1] - center[1]
    radius = math.hypot(dx, dy)
    if radius < 1e-3:
        return None
    start = round(math.degrees(math.atan2(dy, dx)), 6)
    return {"center": [float(center[0]), float(center[1])], "radius": round(radius, 9),
            "start": start, "end": start + 180.0, "pieces": None}


def arc_is_full(start, end):
    return abs(float(end) - float(start)) >= 360.0 - 1e-9


def rotate_point(p, center, degrees):
    a = math.radians(degrees)
    c, s = math.cos(a), math.sin(a)
    x, y = p[0] - center[0], p[1] - center[1]
    return [round(center[0] + c * x - s * y, 9), round(center[1] + s * x + c * y, 9)]


def scale_point(p, center, factor):
    return [round(center[0] + (p[0] - center[0]) * factor, 9), round(center[1] + (p[1] - center[1]) * factor, 9)]


def turned_angle(angle, degrees):
    """A box's ``angle`` (radians) turned by ``degrees``, kept in (-pi, pi] and rounded to
    the nanoradian (a whole turn of steps comes back to the angle it started from)."""
    a = math.remainder(angle + math.radians(degrees), 2.0 * math.pi)
    a = round(a, 9)
    return math.pi if a == round(-math.pi, 9) else (0.0 if a == 0 else a)


def _rotate_vector(v, degrees):
    return rotate_point(v, (0.0, 0.0), degrees)


def transformed(name, item, point_map, rotate=0.0, factor=1.0):
    """``item`` of list ``name`` with its points mapped by ``point_map`` (a rotation by
    ``rotate`` degrees, a scaling by ``factor``, about one centre): velocities turn with
    a rotation, lengths (radii, a spring's rest) grow with a scaling. A rectangle zone
    turned by other than a multiple of 90 degrees becomes a polygon zone."""
    new = dict(item)
    if name == "segments":
        new["a"], new["b"] = point_map(item["a"]), point_map(item["b"])
        new["radius"] = item["radius"] * factor
    elif name in ("polylines", "polygons"):
        new["points"] = [point_map(p) for p in item["points"]]
        if "radius" in item:
            new["radius"] = item["radius"] * factor
    elif name in ("balls", "spawners"):
        new["pos"] = point_map(item["pos"])
        new["radius"] = item["radius"] * factor
        if "vel" in item and rotate:
            new["vel"] = _rotate_vector(item["vel"], rotate)
        if name == "spawners" and "jitter" in item:
            new["jitter"] = item["jitter"] * factor
    elif name == "bodies":
        shape = item["shape"]
        if shape == "box":
            new["center"] = point_map(item["center"])
            new["size"] = [v * factor for v in item["size"]]
            new["angle"] = turned_angle(item["angle"], rotate)
        elif shape == "capsule":
            new["a"], new["b"] = point_map(item["a"]), point_map(item["b"])
        else:
            new["points"] = [point_map(p) for p in item["points"]]
        if "radius" in item:
            new["radius"] = item["radius"] * factor
        if rotate and any(item.get("vel", ())):
            new["vel"] = _rotate_vector(item["vel"], rotate)
    elif name in ("springs", "joints"):
        if isinstance(item["b"], list):
            new["b"] = point_map(item["b"])
        if "rest" in item:
            new["rest"] = item["rest"] * factor
        if name == "joints":            # held points turn and grow with the balls they are on
            new["length"] = item["length"] * factor
            for key in ("offset_a", "offset_b"):
                new[key] = [v * factor for v in _rotate_vector(item[key], rotate)]
    elif name == "zones":
        if "rect" in item:
            (x0, y0), (x1, y1) = item["rect"]
            corners = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]
            mapped = [point_map(p) for p in corners]
            if rotate % 90.0 == 0.0:
                xs, ys = [p[0] for p in mapped], [p[1] for p in mapped]
                new["rect"] = [[min(xs), min(ys)], [max(xs), max(ys)]]
            else:
                new = {k: v for k, v in item.items() if k != "rect"}
                new["polygon"] = mapped
        elif "polygon" in item:
            new["polygon"] = [point_map(p) for p in item["polygon"]]
        elif "circle" in item:
            new["circle"] = dict(item["circle"], center=point_map(item["circle"]["center"]),
                                 radius=item["circle"]["radius"] * factor)
        else:
            new["ellipse"] = dict(item["ellipse"], center=point_map(item["ellipse"]["center"]),
                                  radii=[r * factor for r in item["ellipse"]["radii"]])
    return new
