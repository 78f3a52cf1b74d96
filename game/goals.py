"""Goals that mean something: a goal zone is complete when ``count`` balls have each stayed
inside it for ``hold`` seconds, and a level when all its goal zones are. No pygame here.

The game and the headless runner feed one ``GoalTracker`` the same observations, one after
every tick (``observe(world.time, goal_inside(world))``), so they agree on ``complete_at`` to
the tick. (They did not: the game asked once a frame, after all the frame's ticks, and
``--screenshot`` once after all its ticks, so its "complete at" was the end of the run.)

A ball is known by its id (``World.ids``): a ball that leaves, is deleted or is taken back
by Ctrl+Z stops counting, and one that comes back starts its hold again. So the state is
live: balls leaving take completion back until the goal is held again; ``complete_at``
keeps the first time it was held (the run's time, which the progress file records).

Also here, because play mode and the tests that prove the puzzles must agree on them: the
segment a player draws (``player_segment``), the ball and the body a player adds
(``player_ball_radius``, ``player_body``), and ``with_solution``, a level with its solution
added as a player would add it.
"""
import copy
import math

import numpy as np

from game import defaults
from game.defaults import TICK
from game.physics.shapes import body_frame
from game.physics.zones import goal_members

HOLD_SLACK = TICK / 2         # s: world time sums ticks, so a hold of k ticks may read k ticks less a hair
DRAWN_RADIUS = 0.1            # m: a segment the player draws is a stadium this thick
DRAWN_MIN_LENGTH = 0.3        # m: a shorter drag draws nothing (a click, a slip)
DRAWN_FRICTION = 0.1          # a drawn segment's friction: slick enough to roll balls along it

# The bodies a player adds (play's spawn tool, V): their shapes and sizes.
BODY_SHAPES = ("box", "plank", "triangle")
BOX_SIZE = 0.6               # m: the side of the player's box
PLANK_LENGTH = 2.0           # m: the player's plank end to end (a capsule of PLANK_RADIUS)
PLANK_RADIUS = 0.08          # m: half its thickness
TRIANGLE_SIDE = 0.7          # m: the side of the player's equilateral triangle
BODY_SIZES = {"box": BOX_SIZE, "plank": PLANK_LENGTH, "triangle": TRIANGLE_SIDE}   # m, as labels give them


def goal_inside(world):
    """[(K,) int64 ids of the balls whose centre is inside each goal zone now], in zone order;
    a zone that counts bodies (``count_bodies``) adds the bodies whose centre of mass is inside,
    as ids below 0 (-1 - the body's id); one that names a body (``body``) counts only it.
    (game.physics.zones.goal_members)"""
    return goal_members(world)


def goal_rules(world):
    """[(count, hold s, after)] of the world's goal zones, in zone order (hold from its level
    definition: 1 s where the world was not built from one; ``after``: the goal, counted among
    the goal zones, that must have been held before this one counts, -1 for none)."""
    definitions = world.level.get("zones", []) if isinstance(getattr(world, "level", None), dict) else []
    rules, ordinal = [], {}
    for k, zone in enumerate(world.zones):
        if zone.kind == "goal":
            d = definitions[k] if k < len(definitions) else {}
            ordinal[k] = len(rules)
            rules.append((int(zone.count), float(d.get("hold", defaults.GOAL_HOLD)), ordinal.get(d.get("after"), -1)))
    return rules


class GoalTracker:
    """Which balls are in each goal zone since when; whether the goal is held now, and when it
    first was. ``rules``: [(count, hold s)] or [(count, hold s, after)] per goal zone
    (``goal_rules``). A zone ``after`` another counts only balls that entered it after that one
    was first held (goals in order: first the left cup, then the right): the balls already in
    it then must leave and come again."""

    def __init__(self, rules):
        self.rules = [(r[0], r[1]) for r in rules]
        self.after = [r[2] if len(r) > 2 else -1 for r in rules]
        self.entered = [{} for _ in self.rules]     # per zone: ball id -> world s it entered
        self.early = [set() for _ in self.rules]    # per zone: balls in it before it opened (not counted)
        self.held_at = [None for _ in self.rules]   # per zone: world s it was first held
        self.time = 0.0
        self.complete = False                       # held now
        self.complete_at = None                     # world s it was first held (None: never)

    @classmethod
    def for_world(cls, world):
        tracker = cls(goal_rules(world))
        tracker.observe(world.time, goal_inside(world))
        return tracker

    @property
    def has_goal(self):
        return bool(self.rules)

    def observe(self, time, inside):
        """The balls inside each goal zone at world ``time`` s (``goal_inside``). Observing the
        same world twice changes nothing; returns whether the goal is held now."""
        self.time = float(time)
        for k, ids in enumerate(inside):
            ids = np.asarray(ids).tolist()
            after = self.after[k]
            if after >= 0 and self.held_at[after] is None:      # not open yet: what is in it stays out
                self.early[k] = set(ids)
                self.entered[k] = {}
                continue
            self.early[k] &= set(ids)                            # an early ball that left may come again
            before = self.entered[k]
            self.entered[k] = {i: before.get(i, self.time) for i in ids if i not in self.early[k]}
            if self.held_at[k] is None and self._held(k) >= self.rules[k][0]:
                self.held_at[k] = self.time
        self.complete = self.has_goal and all(held >= count for held, (count, _) in zip(self.held(), self.rules))
        if self.complete and self.complete_at is None:
            self.complete_at = self.time
        return self.complete

    def held(self):
        """[balls that have stayed hold s or longer] per goal zone."""
        return [self._held(k) for k in range(len(self.rules))]

    def _held(self, k):
        hold = self.rules[k][1]
        return sum(1 for t in self.entered[k].values() if self.time - t >= hold - HOLD_SLACK)

    def progress(self):
        """(balls inside the goal zones now, balls wanted), counting at most a zone's count in
        each zone; None without goal zones."""
        if not self.has_goal:
            return None
        inside = sum(min(len(e), count) for e, (count, _) in zip(self.entered, self.rules))
        return inside, sum(count for count, _ in self.rules)

    def hold_left(self):
        """Seconds until the goal is held if every ball inside stays (0 when held now); None
        while some zone has fewer balls inside than it wants."""
        left = 0.0
        for entered, (count, hold) in zip(self.entered, self.rules):
            if len(entered) < count:
                return None
            if count:
                stayed = sorted((self.time - t for t in entered.values()), reverse=True)[count - 1]
                left = max(left, hold - stayed)
        return max(0.0, left) if self.has_goal else None


# ---------------------------------------------------------------------------- what a player adds

def player_segment(a, b):
    """The segment definition a player's drag from ``a`` to ``b`` (metres) draws."""
    return {"a": [float(a[0]), float(a[1])], "b": [float(b[0]), float(b[1])], "radius": DRAWN_RADIUS,
            "friction": DRAWN_FRICTION}


def player_ball_radius(doc):
    """The radius (m) of a ball the player adds: the level's own, its first spawner's, else its
    first ball's, else the default."""
    for key in ("spawners", "balls"):
        for item in doc.get(key, ()):
            if "radius" in item:
                return float(item["radius"])
    return defaults.BALL_RADIUS


def outline(shape):
    """((K, 2) corners m about the centre of mass, counter-clockwise; the rounding radius m)
    of the player's body of ``shape`` (one of BODY_SHAPES) lying flat."""
    if shape == "box":
        h = 0.5 * BOX_SIZE
        return np.array([[-h, -h], [h, -h], [h, h], [-h, h]]), 0.0
    if shape == "plank":
        h = 0.5 * PLANK_LENGTH - PLANK_RADIUS
        return np.array([[-h, 0.0], [h, 0.0]]), PLANK_RADIUS
    height = TRIANGLE_SIDE * math.sqrt(3.0) / 2.0       # the centroid is a third of it up
    return np.array([[-0.5 * TRIANGLE_SIDE, -height / 3.0], [0.5 * TRIANGLE_SIDE, -height / 3.0],
                     [0.0, 2.0 * height / 3.0]]), 0.0


def player_body(shape, point, material, velocity=(0.0, 0.0), spin=0.0):
    """The normalised definition (as game.level.complete makes a level's "bodies") of the
    player's body of ``shape`` (BODY_SHAPES) with its centre of mass at ``point`` m, moving at
    ``velocity`` m/s and ``spin`` rad/s, of ``material`` (density, restitution, friction)."""
    x, y = float(point[0]), float(point[1])
    corners, radius = outline(shape)
    if shape == "box":
        out = {"shape": "box", "center": [x, y], "size": [BOX_SIZE, BOX_SIZE], "angle": 0.0, "radius": 0.0}
    elif shape == "plank":
        out = {"shape": "capsule", "a": [x + float(corners[0, 0]), y], "b": [x + float(corners[1, 0]), y], "radius": radius}
    else:
        out = {"shape": "polygon", "points": [[x + float(cx), y + float(cy)] for cx, cy in corners], "radius": 0.0}
    out.update(vel=[float(velocity[0]), float(velocity[1])], spin=float(spin), density=material["density"],
               restitution=material["restitution"], friction=material["friction"])
    return out


def held_offset(pos, angle, point):
    """[x, y] m: where ``point`` (m) is in the frame of a ball or body at ``pos`` turned by
    ``angle`` rad (the offset a joint holds it at)."""
    dx, dy = float(point[0]) - float(pos[0]), float(point[1]) - float(pos[1])
    c, s = math.cos(angle), math.sin(angle)
    return [c * dx + s * dy + 0.0, -s * dx + c * dy + 0.0]       # (+ 0.0: no -0)


def player_joint(kind, a, b, points, frames):
    """The normalised joint (a level's "joints" item) of the player's pin or rod (``kind``,
    PLAYER_JOINTS) with ends ``a`` and ``b`` (a ball's index, {"body": i}, or None for the
    world), held at ``points`` (two [x, y] m: a pin's both at the point clicked), each end's
    ``frames`` (pos m, angle rad; None for the world). A rod keeps the length it had."""
    offsets = [held_offset(f[0], f[1], p) if f is not None else [0.0, 0.0] for f, p in zip(frames, points)]
    length = 0.0 if kind == "pin" else math.dist(points[0], points[1])
    return {"kind": "rod", "a": a, "b": b if b is not None else [float(v) for v in points[1]], "length": length,
            "offset_a": offsets[0], "offset_b": offsets[1]}


def solution_joint(joint, normal):
    """A solution's ``{"kind": "pin", "a": END, "b": END (optional), "at": [x, y]}`` or
    ``{"kind": "rod", "a": END, "b": END | [x, y], "at_a", "at_b"}`` (END a ball's index or
    {"body": i} of the normalised level ``normal``; a rod holds a ball at its centre and a body
    at its centre of mass unless "at_a" / "at_b" say where) as player_joint makes it."""
    a, b = joint["a"], joint.get("b")
    points, frames = solution_points(joint, normal)
    return player_joint(joint["kind"], a, None if isinstance(b, list) else b, points, frames)


def solution_points(joint, normal):
    """([point a, point b] m where a solution's joint holds its ends, [frame a, frame b]: each
    end's (pos m, angle rad) in the normalised level ``normal``, None for the world)."""
    def frame(end):
        if end is None or isinstance(end, list):
            return None
        if isinstance(end, dict):
            _, _, pos, angle, _, _ = body_frame(normal["bodies"][end["body"]])
            return [float(v) for v in pos], angle
        ball = normal["balls"][end]
        return list(ball["pos"]), ball.get("angle", 0.0)
    b = joint.get("b")
    frames = [frame(joint["a"]), frame(b)]
    if joint["kind"] == "pin":
        return [joint["at"], joint["at"]], frames
    return [joint.get("at_a", frames[0][0]), joint.get("at_b", b if isinstance(b, list) else frames[1][0])], frames


def with_solution(document):
    """A copy of a level document (as written or normalised) with its ``solution`` added as a
    player would add it: the segments drawn, the balls and bodies (``{"shape": "box" |
    "plank" | "triangle", "pos", "vel", "spin"}``, of the level's material) added where and
    as fast as it says, and the joints placed (``solution_joint``). The solution itself is
    left out of the copy."""
    doc = copy.deepcopy(document)
    solution = doc.pop("solution", {}) or {}
    radius = player_ball_radius(doc)
    doc["segments"] = list(doc.get("segments", [])) + [player_segment(s["a"], s["b"])
                                                        for s in solution.get("segments", [])]
    doc["balls"] = list(doc.get("balls", [])) + [{"pos": list(b["pos"]), "vel": list(b.get("vel", [0, 0])),
                                                  "radius": radius} for b in solution.get("balls", [])]
    if solution.get("bodies"):
        material = {**defaults.MATERIAL, **doc.get("material", {})}
        doc["bodies"] = list(doc.get("bodies", [])) + [
            player_body(b["shape"], b["pos"], material, b.get("vel", (0.0, 0.0)), b.get("spin", 0.0))
            for b in solution["bodies"]]
    if solution.get("joints"):
        from game.level import complete              # (the level's balls and bodies as they load)
        normal = complete(doc)
        doc["joints"] = list(doc.get("joints", [])) + [solution_joint(j, normal) for j in solution["joints"]]
    return doc


SCORE_PER_KICK = 100         # points a bumper's kick scores (world.kicks)


def score(world):
    """The pinball score: SCORE_PER_KICK for every bumper kick (world.kicks); None in a level
    without bumpers."""
    kick = getattr(world.statics, "kick", None)
    if kick is None or not np.any(np.asarray(kick) > 0):
        return None
    return SCORE_PER_KICK * int(getattr(world, "kicks", 0))
