"""The level items as the editor sees them: the lists a definition holds, and each item's
defining points, box and draggable handles. Pure functions on items (dicts as the loader
fills them in); points are [x, y] in metres. No pygame.
"""
import math

FOLLOW_TOL = 1e-9           # relative: a rod this close to its ends' distance follows them when they move

LISTS = ("segments", "polylines", "polygons", "balls", "springs", "joints", "spawners", "zones")
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
    elif name in ("springs", "joints"):
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
    if name in ("springs", "joints"):
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
    if name == "joints" and balls is not None:
        pts = list(joint_ends(item, balls))
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
    if name in ("springs", "joints") and not is_index(item["b"]) and not is_pin(name, item):
        return [("b", item["b"])]
    return []


def is_index(v):
    """True for a ball's index (a spring's end), False for a point or a bool."""
    return isinstance(v, int) and not isinstance(v, bool)


def kept_links(links, gone, renumber, derive=None):
    """The springs or joints ``links`` that hold none of the balls ``gone`` (indices), their
    balls renumbered by ``renumber``; a link left as it was stays the same object, and
    ``derive(new, old)`` (if given) hears of each renumbered one."""
    kept = []
    for j in links:
        if j["a"] in gone or (is_index(j["b"]) and j["b"] in gone):
            continue
        new = dict(j, a=renumber(j["a"]))
        if is_index(j["b"]):
            new["b"] = renumber(j["b"])
        if new != j and derive is not None:
            derive(new, j)
        kept.append(new if new != j else j)
    return kept


def copied_links(links, refs, name, ball_map, offset):
    """Copies of the links of list ``name`` in ``refs`` whose balls were all copied (``ball_map``:
    old ball index -> the copy's), moved by ``offset`` where they hold an anchor."""
    out = []
    for list_name, i in refs:
        s = links[i] if list_name == name else None
        if s is not None and s["a"] in ball_map and (not is_index(s["b"]) or s["b"] in ball_map):
            new = dict(s, a=ball_map[s["a"]])
            new["b"] = ball_map[s["b"]] if is_index(s["b"]) else [s["b"][0] + offset[0], s["b"][1] + offset[1]]
            out.append(new)
    return out


# ---------------------------------------------------------------------- joints

def held_point(ball, offset):
    """Where a joint holds ``ball`` (an item): its centre plus ``offset`` [dx, dy] in the
    ball's own frame, turned by its angle (as the loader and the solver do). [x, y] metres."""
    (x, y), a = ball["pos"], ball.get("angle", 0.0)
    c, s = math.cos(a), math.sin(a)
    return [x + c * offset[0] - s * offset[1], y + s * offset[0] + c * offset[1]]


def local_offset(ball, point):
    """The offset in ``ball``'s own frame of the world ``point`` (the inverse of held_point)."""
    dx, dy = point[0] - ball["pos"][0], point[1] - ball["pos"][1]
    a = ball.get("angle", 0.0)
    c, s = math.cos(a), math.sin(a)
    return [round(c * dx + s * dy, 9), round(-s * dx + c * dy, 9)]


def joint_ends(joint, balls):
    """The two points a joint holds ([x, y] each): on ball ``a``, and on ball ``b`` or its anchor."""
    end_a = held_point(balls[joint["a"]], joint.get("offset_a", (0.0, 0.0)))
    b = joint["b"]
    end_b = held_point(balls[b], joint.get("offset_b", (0.0, 0.0))) if is_index(b) else [b[0], b[1]]
    return end_a, end_b


def is_pin(name, item):
    """A pin: a rod of length 0 to an anchor (an axle where its ball is held)."""
    return name == "joints" and item["kind"] == "rod" and not is_index(item["b"]) and item.get("length") == 0


def followed_joints(old_joints, joints, old_balls, balls, derive=None):
    """The joints after an edit moved some of their ends (balls moved or turned, an anchor
    dragged, an offset typed): a pin's anchor goes where its ball is held, and a rod whose
    length was its ends' distance keeps being that distance (a rod is drawn from end to
    end); a rope, or a rod held longer or shorter than its ends' distance, keeps its
    length. ``old_joints``/``joints``: the list before and as the edit leaves it (the same
    length); None when no joint changed, else the new list (``derive(new, old)`` hears of
    each joint changed here)."""
    out, changed = list(joints), False
    for k, (old, cur) in enumerate(zip(old_joints, joints)):
        before, after = joint_ends(old, old_balls), joint_ends(cur, balls)
        if before == after:
            continue
        new = cur
        if is_pin("joints", old):
            if after[1] != after[0]:
                new = dict(cur, b=list(after[0]))
        elif old["kind"] == "rod" and abs(old["length"] - math.dist(*before)) <= FOLLOW_TOL * max(1.0, old["length"]):
            length = round(math.dist(*after), 12)
            if length != cur["length"]:
                new = dict(cur, length=length)
        if new is not cur:
            if derive is not None:
                derive(new, cur)
            out[k], changed = new, True
    return out if changed else None
