"""The level items as the editor sees them: the lists a definition holds, and each item's
defining points, box and draggable handles. Pure functions on items (dicts as the loader
fills them in); points are [x, y] in metres. No pygame.
"""
import math

FOLLOW_TOL = 1e-9           # relative: a rod this close to its ends' distance follows them when they move

LISTS = ("segments", "polylines", "polygons", "balls", "springs", "joints", "spawners", "zones", "bodies")
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
    elif name == "bodies":
        for key in BODY_POINT_KEYS[item["shape"]]:
            new[key] = [mv(p) for p in item[key]] if key == "points" else mv(item[key])
    elif name in ("springs", "joints"):
        if not is_end(item["b"]):
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
    if name == "bodies":
        return body_outline(item)
    if name in ("springs", "joints"):
        return [] if is_end(item["b"]) else [item["b"]]
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


def bbox(name, item, balls=None, bodies=None):
    """(x_min, y_min, x_max, y_max) of an item in metres, radii included."""
    pts = points_of(name, item)
    if name in ("springs", "joints") and balls is not None:
        pts = list(joint_ends(item, balls, bodies))
    if not pts:
        return (0.0, 0.0, 0.0, 0.0)
    r = float(item.get("radius", 0.0)) if name in ("segments", "polylines", "balls", "spawners", "bodies") else 0.0
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
    if name == "bodies" and item["shape"] == "capsule":
        return [("a", item["a"]), ("b", item["b"])]
    if name == "bodies" and item["shape"] == "polygon":
        return list(enumerate(item["points"]))
    if name in ("springs", "joints") and not is_end(item["b"]) and not is_pin(name, item):
        return [("b", item["b"])]
    return []


def is_index(v):
    """True for a ball's index (a spring's end), False for a point or a bool."""
    return isinstance(v, int) and not isinstance(v, bool)


def is_body(v):
    """True for a joint's body end {"body": i}."""
    return isinstance(v, dict) and "body" in v


def is_end(v):
    """True for a joint's or spring's end on a ball or a body (not an anchor point)."""
    return is_index(v) or is_body(v)


def kept_links(links, gone, renumber, derive=None, gone_bodies=(), renumber_body=None):
    """The springs or joints ``links`` that hold none of the balls ``gone`` (indices) nor the
    bodies ``gone_bodies``, their balls renumbered by ``renumber`` and their bodies by
    ``renumber_body``; a link left as it was stays the same object, and ``derive(new, old)``
    (if given) hears of each renumbered one."""
    def dead(end):
        return (is_body(end) and end["body"] in gone_bodies) or (is_index(end) and end in gone)

    def moved(end):
        if is_body(end):
            return dict(end, body=renumber_body(end["body"])) if renumber_body else end
        return renumber(end) if is_index(end) else end

    kept = []
    for j in links:
        if dead(j["a"]) or dead(j["b"]):
            continue
        new = dict(j, a=moved(j["a"]), b=moved(j["b"]))
        if new != j and derive is not None:
            derive(new, j)
        kept.append(new if new != j else j)
    return kept


def copied_links(links, refs, name, ball_map, offset, body_map=None):
    """Copies of the links of list ``name`` in ``refs`` whose balls (and bodies) were all
    copied (``ball_map``, ``body_map``: old index -> the copy's), moved by ``offset`` where
    they hold an anchor."""
    body_map = body_map or {}

    def copied(end):
        if is_body(end):
            return end["body"] in body_map
        return not is_index(end) or end in ball_map

    def mapped(end):
        if is_body(end):
            return dict(end, body=body_map[end["body"]])
        return ball_map[end] if is_index(end) else [end[0] + offset[0], end[1] + offset[1]]

    out = []
    for list_name, i in refs:
        s = links[i] if list_name == name else None
        if s is not None and copied(s["a"]) and copied(s["b"]):
            out.append(dict(s, a=mapped(s["a"]), b=mapped(s["b"])))
    return out


# ---------------------------------------------------------------------- bodies

BODY_POINT_KEYS = {"box": ("center",), "capsule": ("a", "b"), "polygon": ("points",)}


def box_corners(center, size, angle):
    """The four corners [x, y] of a box (counter-clockwise from its lower left, before turning)."""
    (cx, cy), (w, h) = center, size
    c, s = math.cos(angle), math.sin(angle)
    out = []
    for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
        x, y = sx * w / 2, sy * h / 2
        out.append([round(cx + c * x - s * y, 9), round(cy + s * x + c * y, 9)])
    return out


def body_outline(body):
    """A body's defining points: a capsule's ends, a box's or polygon's corners (its radius
    rounds them)."""
    if body["shape"] == "capsule":
        return [body["a"], body["b"]]
    if body["shape"] == "box":
        return box_corners(body["center"], body["size"], body["angle"])
    return list(body["points"])


def body_pose(body):
    """((x, y) of a normalised body's centre of mass, its frame's angle in radians): the
    origin and axes its joints' offsets are in (game.level.bodies.frame)."""
    from game.level.bodies import frame
    return frame(body, 1.0)


def body_held_point(body, offset):
    """Where ``offset`` (in ``body``'s frame) is in the world, [x, y] metres."""
    (x, y), a = body_pose(body)
    return [round(v, 9) for v in held_point({"pos": [x, y], "angle": a}, offset)]


def body_local_offset(body, point):
    """The offset in ``body``'s frame of the world ``point`` (the inverse of body_held_point)."""
    (x, y), a = body_pose(body)
    return [v + 0.0 for v in local_offset({"pos": [x, y], "angle": a}, point)]      # no -0


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


def end_point(end, offset, balls, bodies=None):
    """Where a joint's end holds: on a ball (an index), a body ({"body": i}, ``offset`` in its
    frame) or an anchor [x, y]."""
    if is_body(end):
        return body_held_point(bodies[end["body"]], offset)
    if is_index(end):
        return held_point(balls[end], offset)
    return [end[0], end[1]]


def joint_ends(joint, balls, bodies=None):
    """The two points a joint holds ([x, y] each): on ball or body ``a``, and on ball or body
    ``b`` or its anchor."""
    return (end_point(joint["a"], joint.get("offset_a", (0.0, 0.0)), balls, bodies),
            end_point(joint["b"], joint.get("offset_b", (0.0, 0.0)), balls, bodies))


def held_by_bodies(links, joints, changes, bodies, rotate, factor):
    """The joints (or springs: ``links`` their list's name; ref -> new joint) holding a body
    that ``changes`` turns by ``rotate`` degrees and scales by ``factor`` (``bodies``: index ->
    shape), so each still holds the same point of it: an offset on a capsule or polygon (whose frame keeps the world's axes)
    turns and grows with it, on a box (whose frame turns with its angle) it only grows. A
    joint in ``changes`` already is taken from its old self, its other ends as ``changes``
    made them."""
    out = {}
    for k, j in enumerate(joints):
        ends = [(key, end) for key, end in (("offset_a", j["a"]), ("offset_b", j["b"]))
                if is_body(end) and end["body"] in bodies]
        if not ends:
            continue
        new = dict(changes.get((links, k), j))
        for key, end in ends:
            turn = 0.0 if bodies[end["body"]] == "box" else math.radians(rotate)
            c, s = math.cos(turn), math.sin(turn)
            x, y = j.get(key, (0.0, 0.0))
            new[key] = [round(factor * (c * x - s * y), 9), round(factor * (s * x + c * y), 9)]
        out[(links, k)] = new
    return out


def is_pin(name, item):
    """A pin: a rod of length 0 to an anchor (an axle where its ball is held)."""
    return name == "joints" and item["kind"] == "rod" and not is_end(item["b"]) and item.get("length") == 0


def followed_joints(old_joints, joints, old_balls, balls, derive=None, old_bodies=None, bodies=None):
    """The joints after an edit moved some of their ends (balls moved or turned, an anchor
    dragged, an offset typed): a pin's anchor goes where its ball is held, and a rod whose
    length was its ends' distance keeps being that distance (a rod is drawn from end to
    end); a rope, or a rod held longer or shorter than its ends' distance, keeps its
    length. ``old_joints``/``joints``: the list before and as the edit leaves it (the same
    length); None when no joint changed, else the new list (``derive(new, old)`` hears of
    each joint changed here)."""
    out, changed = list(joints), False
    for k, (old, cur) in enumerate(zip(old_joints, joints)):
        before, after = joint_ends(old, old_balls, old_bodies), joint_ends(cur, balls, bodies)
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
