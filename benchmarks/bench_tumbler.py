"""The tumbler (Box2D's benchmark, issue 25): a closed box turning about its centre, full of
balls, this engine against pymunk with a kinematic box in the same run.

    python benchmarks/bench_tumbler.py                     # 1,000 balls, 300 ticks after 60
    python benchmarks/bench_tumbler.py --balls 400 --ticks 120 --json
    python benchmarks/bench_tumbler.py --level levels/31_tumbler.json   # the shipped level, both engines

The box: inner half-width H = 0.6 sqrt(N) m (the balls fill about a third of it), walls
capsules of radius 0.25 m whose inner faces lie on the box, turning at 0.5 rad/s about the
origin; balls of radius 0.25 m, restitution 0.1, friction 0.5, gravity 9.81, 4 sub-steps
(ours) and pymunk's defaults with 10 iterations (pymunk multiplies the shapes' values, so each
shape gets their square roots). Both stay in the box: the script counts the balls that left.
"""
import argparse
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import machine_info, summary_ms, time_ticks  # noqa: E402
from game.defaults import TICK  # noqa: E402   (the game's tick: both engines step by it)
RADIUS, WALL, SPEED, E, MU = 0.25, 0.25, 0.5, 0.1, 0.5


def scene(n):
    half = 0.6 * math.sqrt(n)
    across = int(math.ceil(math.sqrt(n * 3)))
    xs = np.linspace(-half + 2 * RADIUS, half - 2 * RADIUS, across)
    balls = [(float(x), float(y)) for y in xs for x in xs][:n]
    c = half + WALL
    box = [(-c, -c), (c, -c), (c, c), (-c, c), (-c, -c)]
    return half, balls, box


def level_scene(path):
    """The shipped tumbler as this benchmark's scene: (doc, half, ball centres relative to the
    pivot, box corners relative to the pivot (closed), ball radius, wall radius, speed rad/s,
    restitution, friction, gravity (2,))."""
    from game.level import load
    doc = load(path)
    box = doc["polylines"][0]
    motion = box["motion"]
    pivot = np.asarray(motion["pivot"], float)
    corners = np.asarray(box["points"], float) - pivot
    half = float(np.abs(corners).max()) - float(box["radius"])
    balls = np.asarray([b["pos"] for b in doc["balls"]], float) - pivot
    material = doc["material"]
    return (doc, half, balls, np.vstack((corners, corners[:1])), float(doc["balls"][0]["radius"]),
            float(box["radius"]), float(motion["speed"]), float(material["restitution"]),
            float(material["friction"]), np.asarray(doc["gravity"], float))


def run_level(path, ticks, warmup, execution):
    """The shipped level in this engine and in pymunk (a kinematic box turning about the pivot,
    the same balls, radii, material and gravity): (ours ms, ours left, execution, pymunk ms,
    pymunk left)."""
    from game.physics.world import World
    doc, half, balls, box, radius, wall, speed, e, mu, gravity = level_scene(path)
    pivot = np.asarray(doc["polylines"][0]["motion"]["pivot"], float)
    world = World.from_level(doc, execution=execution)
    ours = time_ticks(lambda: world.step(TICK), ticks, warmup)
    ours_left = left_the_box(world.pos - pivot, world.time, half, speed)
    theirs, pos, time = run_pymunk_box(box, balls, radius, math.pi * radius * radius, wall, speed, e, mu,
                                       gravity, ticks, warmup)      # density 1, as the level's balls
    return ours, ours_left, world.execution, theirs, left_the_box(pos, time, half, speed)


def run_ours(n, ticks, warmup, execution):
    from game.level import complete
    from game.physics.world import World
    half, balls, box = scene(n)
    world = World.from_level(complete({
        "bounds": [-2 * half, -2 * half, 2 * half, 2 * half],
        "material": {"restitution": E, "friction": MU, "rolling": 0.0},
        "polylines": [{"points": [list(p) for p in box], "radius": WALL,
                       "motion": {"kind": "rotate", "pivot": [0, 0], "speed": SPEED}}],
        "balls": [{"pos": list(p), "radius": RADIUS} for p in balls]}), execution=execution)
    ms = time_ticks(lambda: world.step(TICK), ticks, warmup)
    return ms, left_the_box(world.pos, world.time, half), world.execution


def run_pymunk(n, ticks, warmup):
    half, balls, box = scene(n)
    ms, pos, time = run_pymunk_box(box, balls, RADIUS, 1.0, WALL, SPEED, E, MU, (0.0, -9.81), ticks, warmup)
    return ms, left_the_box(pos, time, half)


def run_pymunk_box(box, balls, radius, mass, wall, speed, e, mu, gravity, ticks, warmup):
    """pymunk's tumbler: a kinematic body turning at ``speed`` rad/s about the origin with the
    segments of ``box`` (radius ``wall``), balls of ``radius`` and ``mass`` at ``balls``, 10
    iterations, each shape given the square roots of ``e`` and ``mu`` (pymunk multiplies the
    two shapes' values). Returns (ms a tick, the balls' final positions (N, 2), the time)."""
    import pymunk
    space = pymunk.Space()
    space.gravity = tuple(float(g) for g in gravity)
    space.iterations = 10
    kinematic = pymunk.Body(body_type=pymunk.Body.KINEMATIC)
    kinematic.angular_velocity = speed
    space.add(kinematic)
    for a, b in zip(box[:-1], box[1:]):
        seg = pymunk.Segment(kinematic, tuple(a), tuple(b), wall)
        seg.elasticity, seg.friction = math.sqrt(e), math.sqrt(mu)
        space.add(seg)
    bodies = []
    for p in balls:
        body = pymunk.Body(mass, pymunk.moment_for_circle(mass, 0, radius))
        body.position = tuple(p)
        shape = pymunk.Circle(body, radius)
        shape.elasticity, shape.friction = math.sqrt(e), math.sqrt(mu)
        space.add(body, shape)
        bodies.append(body)
    clock = [0.0]

    def tick():
        space.step(TICK)
        clock[0] += TICK
    ms = time_ticks(tick, ticks, warmup)
    return ms, np.array([tuple(b.position) for b in bodies], float), clock[0]


def left_the_box(pos, time, half, speed=SPEED):
    """How many balls are outside the box, in its frame (it turned speed * time)."""
    c, s = math.cos(-speed * time), math.sin(-speed * time)
    local = pos @ np.array([[c, s], [-s, c]])
    return int(np.count_nonzero(np.abs(local).max(axis=1) > half))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--balls", type=int, default=1000)
    p.add_argument("--ticks", type=int, default=300)
    p.add_argument("--warmup", type=int, default=60)
    p.add_argument("--execution", default="compiled", choices=("compiled", "numpy"))
    p.add_argument("--json", action="store_true")
    p.add_argument("--level", help="a tumbler level (levels/31_tumbler.json): its box, balls and material "
                                   "in both engines, instead of --balls")
    a = p.parse_args(argv)
    if a.level:
        ours, ours_left, ran, theirs, theirs_left = run_level(a.level, a.ticks, a.warmup, a.execution)
        a.balls = len(level_scene(a.level)[2])
    else:
        ours, ours_left, ran = run_ours(a.balls, a.ticks, a.warmup, a.execution)
        theirs, theirs_left = run_pymunk(a.balls, a.ticks, a.warmup)
    out = {"level": a.level, "balls": a.balls, "ticks": a.ticks, "ours_ms": summary_ms(ours), "ours_execution": ran,
           "ours_left_box": ours_left, "pymunk_ms": summary_ms(theirs), "pymunk_left_box": theirs_left,
           "ratio": float(np.median(ours) / np.median(theirs)), "machine": machine_info()}
    if a.json:
        print(json.dumps(out))
    else:
        print(f"tumbler, {a.balls} balls, {a.ticks} ticks after {a.warmup}:")
        print(f"  ours ({ran}): {np.median(ours):.2f} ms a tick (median), {ours_left} left the box")
        print(f"  pymunk (kinematic box): {np.median(theirs):.2f} ms a tick, {theirs_left} left the box")
        print(f"  ratio ours / pymunk: {out['ratio']:.2f}")


if __name__ == "__main__":
    main()
