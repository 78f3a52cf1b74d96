"""Box pyramids (Box2D's large-pyramid benchmark) and a mixed pit of balls, planks and boxes:
this engine against pymunk and Box2D v3 (pyb2d3) on the same scene in one run.

    python benchmarks/bench_pyramid.py                       # base 20 (210 boxes) and 100 (5,050)
    python benchmarks/bench_pyramid.py --rows 20 --ticks 120 --json
    python benchmarks/bench_pyramid.py --mixed                # 2,000 balls, 200 planks and boxes

Each engine: 1 m boxes resting on a ground segment, friction 0.6, restitution 0, gravity 9.81,
a tick of 1/60 s; Ballpit and Box2D v3 in 4 sub-steps (Box2D one thread), pymunk with its
default 10 iterations. Timed: ``--ticks`` ticks after ``--warmup``, sleeping off everywhere (the
cost of a pile that moves); then the top box's drift: how far it is after ``--drift`` s (with
each engine's sleeping as it ships: on) from where it stood after the first second, and how far
it sank in that first second (the pile taking its load).
"""
import argparse
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))

from benchmarks.common import machine_info, summary_ms, time_ticks  # noqa: E402
from game.defaults import TICK  # noqa: E402

FRICTION, SIZE, GRAVITY, SUBSTEPS = 0.6, 1.0, 9.81, 4


def boxes(rows):
    """(x, y) centres of a pyramid of ``rows`` rows of SIZE boxes on y = 0, the top last."""
    out = []
    for r in range(rows):
        n = rows - r
        for k in range(n):
            out.append((-0.5 * (n - 1) * SIZE + k * SIZE, 0.5 * SIZE + r * SIZE))
    return out


def mixed(n_balls=2000, n_bodies=200, seed=3):
    """The ball pit's box (40 m wide) with ``n_balls`` balls of radius 0.15 and ``n_bodies``
    planks (2 x 0.16 m capsules) and 0.5 m boxes dropped among them: (balls, bodies) centres."""
    rng = np.random.default_rng(seed)
    cols = 100
    balls = [(-19.5 + 0.39 * (k % cols) + rng.uniform(-0.02, 0.02), 0.3 + 0.39 * (k // cols)) for k in range(n_balls)]
    top = 0.3 + 0.39 * (n_balls // cols + 1)
    bodies = [(-18 + 1.8 * (k % 20), top + 1.0 + 1.2 * (k // 20), "capsule" if k % 2 else "box") for k in range(n_bodies)]
    return balls, bodies


# ---------------------------------------------------------------------------- Ballpit
def ballpit_level(centres, width, balls=(), mixed_bodies=()):
    from body_scenes import box, floor_level
    bodies = [box(x, y, SIZE, SIZE) for x, y in centres]
    for x, y, kind in mixed_bodies:
        bodies.append(box(x, y, 0.5, 0.5) if kind == "box" else
                      {"shape": "capsule", "a": [x - 0.92, y], "b": [x + 0.92, y], "radius": 0.08})
    return floor_level(bodies, [{"pos": [x, y], "radius": 0.15} for x, y in balls], width=width, friction=FRICTION)


def run_ballpit(level, ticks, warmup, clock, drift_s, top):
    from game.physics.world import World
    w = World.from_level(level)
    w.solver.options.sleeping = False
    ms = time_ticks(w.step, ticks, warmup, clock)
    w = World.from_level(level)
    return ms, _drift(lambda: w.step(TICK), lambda: w.bodies.pos[top], drift_s)


def _drift(step, top, seconds):
    start = np.array(top(), float)
    for _ in range(round(1 / TICK)):
        step()
    settled = np.array(top(), float)
    for _ in range(round((seconds - 1) / TICK)):
        step()
    return float(np.hypot(*(np.array(top(), float) - settled))), float(start[1] - settled[1])


# ---------------------------------------------------------------------------- pymunk
def build_pymunk(centres, width, balls=(), mixed_bodies=()):
    import pymunk
    space = pymunk.Space()
    space.gravity = (0, -GRAVITY)
    space.iterations = 10
    ground = pymunk.Segment(space.static_body, (-width / 2, 0), (width / 2, 0), 0.0)
    ground.friction = math.sqrt(FRICTION)
    space.add(ground)
    for x0 in (-width / 2, width / 2):
        wall = pymunk.Segment(space.static_body, (x0, 0), (x0, 60), 0.0)
        wall.friction = math.sqrt(FRICTION)
        space.add(wall)
    tops = []
    for x, y in centres:
        body = pymunk.Body(SIZE * SIZE, pymunk.moment_for_box(SIZE * SIZE, (SIZE, SIZE)))
        body.position = (x, y)
        shape = pymunk.Poly.create_box(body, (SIZE, SIZE))
        shape.friction = math.sqrt(FRICTION)
        space.add(body, shape)
        tops.append(body)
    for x, y in balls:
        body = pymunk.Body(math.pi * 0.0225, pymunk.moment_for_circle(math.pi * 0.0225, 0, 0.15))
        body.position = (x, y)
        shape = pymunk.Circle(body, 0.15)
        shape.friction = math.sqrt(FRICTION)
        space.add(body, shape)
    for x, y, kind in mixed_bodies:
        if kind == "box":
            body = pymunk.Body(0.25, pymunk.moment_for_box(0.25, (0.5, 0.5)))
            shape = pymunk.Poly.create_box(body, (0.5, 0.5))
        else:
            mass = 1.84 * 0.16 + math.pi * 0.0064
            body = pymunk.Body(mass, pymunk.moment_for_segment(mass, (-0.92, 0), (0.92, 0), 0.08))
            shape = pymunk.Segment(body, (-0.92, 0), (0.92, 0), 0.08)
        body.position = (x, y)
        shape.friction = math.sqrt(FRICTION)
        space.add(body, shape)
    return space, tops


def run_pymunk(centres, width, ticks, warmup, clock, drift_s, top, balls=(), mixed_bodies=()):
    space, tops = build_pymunk(centres, width, balls, mixed_bodies)
    ms = time_ticks(lambda: space.step(TICK), ticks, warmup, clock)
    space, tops = build_pymunk(centres, width, balls, mixed_bodies)
    space.sleep_time_threshold = 0.5
    body = tops[top] if tops else None
    drift = _drift(lambda: space.step(TICK), lambda: tuple(body.position), drift_s) if body else (float("nan"),) * 2
    return ms, drift


# ---------------------------------------------------------------------------- Box2D v3
def build_box2d(centres, width, sleeping, balls=(), mixed_bodies=()):
    import pyb2d3 as b2
    world = b2.World(gravity=(0.0, -GRAVITY))
    world.sleeping_enabled = sleeping
    material = b2.surface_material(restitution=0.0, friction=FRICTION)
    ground = world.create_static_body(position=(0.0, 0.0))
    wall = b2.shape_def(material=material)
    for a, b in (((-width / 2, 0), (width / 2, 0)), ((-width / 2, 0), (-width / 2, 60)), ((width / 2, 0), (width / 2, 60))):
        ground.create_segment_shape(wall, b2.segment(a, b))
    shape_def = b2.shape_def(material=material, density=1.0)
    bodies = []
    for x, y in centres:
        body = world.create_dynamic_body(position=(float(x), float(y)))
        body.create_polygon_shape(shape_def, b2.box(SIZE / 2, SIZE / 2))
        bodies.append(body)
    for x, y in balls:
        body = world.create_dynamic_body(position=(float(x), float(y)))
        body.create_circle_shape(shape_def, b2.circle(radius=0.15))
    for x, y, kind in mixed_bodies:
        body = world.create_dynamic_body(position=(float(x), float(y)))
        if kind == "box":
            body.create_polygon_shape(shape_def, b2.box(0.25, 0.25))
        else:
            body.create_capsule_shape(shape_def, b2.capsule((-0.92, 0.0), (0.92, 0.0), 0.08))
    return world, bodies


def run_box2d(centres, width, ticks, warmup, clock, drift_s, top, balls=(), mixed_bodies=()):
    world, _ = build_box2d(centres, width, False, balls, mixed_bodies)
    ms = time_ticks(lambda: world.step(TICK, SUBSTEPS), ticks, warmup, clock)
    world, bodies = build_box2d(centres, width, True, balls, mixed_bodies)
    body = bodies[top] if bodies else None
    drift = _drift(lambda: world.step(TICK, SUBSTEPS), lambda: tuple(body.position), drift_s) if body else (float("nan"),) * 2
    return ms, drift


def _have_box2d():
    try:
        import pyb2d3  # noqa: F401
        return True
    except Exception:  # noqa: BLE001 - optional peer
        return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="20,100", help="pyramid bases, comma-separated (default 20,100)")
    parser.add_argument("--ticks", type=int, default=120)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--drift", type=float, default=10.0, help="s: the top box's drift after this long")
    parser.add_argument("--clock", default="cpu", choices=("cpu", "wall"))
    parser.add_argument("--mixed", action="store_true", help="the mixed pit instead of the pyramids")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows_out = []
    scenes = []
    if args.mixed:
        balls, bodies = mixed()
        scenes.append(("mixed: 2,000 balls, 200 planks and boxes", [], 40.0, balls, bodies))
    else:
        for rows in (int(r) for r in args.rows.split(",")):
            centres = boxes(rows)
            scenes.append((f"pyramid base {rows} ({len(centres)} boxes)", centres, max(40.0, 2.0 * rows + 10), (), ()))
    for name, centres, width, balls, bodies in scenes:
        top = len(centres) - 1 if centres else 0
        level = ballpit_level(centres, width, balls, bodies)
        ours, ours_drift = run_ballpit(level, args.ticks, args.warmup, args.clock, args.drift, top if centres else None) \
            if centres else (run_ballpit(level, args.ticks, args.warmup, args.clock, 1.0, 0)[0], (float("nan"),) * 2)
        pm, pm_drift = run_pymunk(centres, width, args.ticks, args.warmup, args.clock, args.drift, top, balls, bodies)
        row = {"scene": name, "ballpit_ms": summary_ms(ours)["median"], "pymunk_ms": summary_ms(pm)["median"],
               "ballpit_drift_m": ours_drift[0], "ballpit_sink_m": ours_drift[1],
               "pymunk_drift_m": pm_drift[0], "pymunk_sink_m": pm_drift[1]}
        if _have_box2d():
            b2, b2_drift = run_box2d(centres, width, args.ticks, args.warmup, args.clock, args.drift, top, balls, bodies)
            row.update(box2d_ms=summary_ms(b2)["median"], box2d_drift_m=b2_drift[0], box2d_sink_m=b2_drift[1])
        rows_out.append(row)
        if not args.json:
            line = (f"{name}: Ballpit {row['ballpit_ms']:.2f} ms/tick, pymunk {row['pymunk_ms']:.2f} "
                    f"({row['ballpit_ms'] / row['pymunk_ms']:.2f}x)")
            if "box2d_ms" in row:
                line += f", Box2D v3 {row['box2d_ms']:.2f} ({row['ballpit_ms'] / row['box2d_ms']:.2f}x)"
            print(line, flush=True)
            if centres:
                print(f"    top box after {args.drift:g} s, from where it stood at 1 s (sank in the first second): "
                      f"Ballpit {row['ballpit_drift_m'] * 1000:.1f} mm ({row['ballpit_sink_m'] * 1000:.1f}), "
                      f"pymunk {row['pymunk_drift_m'] * 1000:.1f} mm ({row['pymunk_sink_m'] * 1000:.1f})"
                      + (f", Box2D v3 {row['box2d_drift_m'] * 1000:.1f} mm ({row['box2d_sink_m'] * 1000:.1f})"
                         if "box2d_ms" in row else ""), flush=True)
    if args.json:
        print(json.dumps({"rows": rows_out, "machine": machine_info(), "ticks": args.ticks, "clock": args.clock}))


if __name__ == "__main__":
    main()
