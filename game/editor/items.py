"""The level items as the editor sees them: the lists a definition holds, and each item's
defining points, box and draggable handles. Pure functions on items (dicts as the loader
fills them in); points are [x, y] in metres. No pygame.
"""
LISTS = ("segments", "polylines", "polygons", "balls", "springs", "spawners", "zones")
ZONE_SHAPES = ("rect", "circle", "ellipse", "polygon")
ZONE_KINDS = ("goal", "kill", "attractor")


def translated(name, item, dx, dy):
    def mv(p):
        return [p[0] + dx, p[1] + dy]

    new = dict(item)
    if name == "segments":
        new["a"], new["b"] = mv(item["a"]), mv(item["b"])
    elif name in ("polylines", "polygons"):
        new["points"] = [mv(p) for p in item["points"]]
    elif name in ("balls", "spawners"):
        new["pos"] = mv(item["pos"])
    elif name == "springs":
        if not is_index(item["b"]):
            new["b"] = mv(item["b"])
    elif name == "zones":
        if "rect" in item:
            new["rect"] = [mv(p) for p in item["rect"]]
        elif "polygon" in item:
            new["polygon"] = [mv(p) for p in item["polygon"]]
        else:
            shape = "circle" if "circle" in item else "ellipse"
            new[shape] = dict(item[shape], center=mv(item[shape]["center"]))
    return new


def points_of(name, item):
    """The defining points of an item, (K, 2) as a list of [x, y] (for boxes and snapping)."""
    if name == "segments":
        return [item["a"], item["b"]]
    if name in ("polylines", "polygons"):
        return list(item["points"])
    if name in ("balls", "spawners"):
        return [item["pos"]]
    if name == "springs":
        return [] if is_index(item["b"]) else [item["b"]]
    if name == "zones":
        if "rect" in item:
            return list(item["rect"])
        if "polygon" in item:
            return list(item["polygon"])
        if "circle" in item:
            (cx, cy), r = item["circle"]["center"], item["circle"]["radius"]
            return [[cx - r, cy - r], [cx + r, cy + r]]
        (cx, cy), (rx, ry) = item["ellipse"]["center"], item["ellipse"]["radii"]
        return [[cx - rx, cy - ry], [cx + rx, cy + ry]]
    return []


def bbox(name, item, balls=None):
    """(x_min, y_min, x_max, y_max) of an item in metres, radii included."""
    pts = points_of(name, item)
    if name == "springs" and balls is not None:
        pts = pts + [balls[item["a"]]["pos"]] + ([balls[item["b"]]["pos"]] if is_index(item["b"]) else [])
    if not pts:
        return (0.0, 0.0, 0.0, 0.0)
    r = float(item.get("radius", 0.0)) if name in ("segments", "polylines", "balls", "spawners") else 0.0
    xs = [p[0] for p in pts]
    ys = [p[1] for p in pts]
    return (min(xs) - r, min(ys) - r, max(xs) + r, max(ys) + r)


def handles(name, item):
    """The draggable handles of an item: a list of (handle, point). A handle is a key
    ("a", "b") or a corner index."""
    if name == "segments":
        return [("a", item["a"]), ("b", item["b"])]
    if name in ("polylines", "polygons"):
        return list(enumerate(item["points"]))
    if name == "springs" and not is_index(item["b"]):
        return [("b", item["b"])]
    return []


def is_index(v):
    """True for a ball's index (a spring's end), False for a point or a bool."""
    return isinstance(v, int) and not isinstance(v, bool)


def kept_joints(joints, gone, renumber):
    """The joints that hold none of the balls ``gone`` (indices), their balls renumbered by
    ``renumber`` (a joint left as it was stays the same object)."""
    kept = []
    for j in joints:
        if j["a"] in gone or (is_index(j["b"]) and j["b"] in gone):
            continue
        new = dict(j, a=renumber(j["a"]))
        if is_index(j["b"]):
            new["b"] = renumber(j["b"])
        kept.append(new if new != j else j)
    return kept
