"""Median ms per World.step on the levels whose forces are not uniform: springs, attractors, a grab
(issue 13, "Springs, attractors and the grab on the fast path").

    python benchmarks/bench_forces.py                            # every scene, every integrator
    python benchmarks/bench_forces.py --scenes springs --integrators rk4 --ticks 60
    python benchmarks/bench_forces.py --solver numpy             # the numpy reference, to compare

Scenes (each built from a shipped level, stepped with dt = 1/60 s):

- ``springs``: levels/05_springs.json as shipped (28 balls, 54 springs);
- ``attractor``: levels/09_attractor.json once its two spawners have made all their balls
  (the warm-up runs the ``ATTRACTOR_FILL_S`` seconds it takes, untimed);
- ``attractor150``: the same level with its spawners off and 150 balls put in circular
  orbits round the attractor at the start (the player's case in issue 13);
- ``grab``: levels/05_springs.json with its first ball held by the mouse grab (two more
  springs) at a point 2 m above where it starts.

Each scene and integrator runs its warm-up ticks untimed, then the timed ticks one by one;
``--repeats`` runs do that from a fresh world, and the figure is the median of the runs'
medians (the spread is the lowest and highest run median). ``--clock process`` times each
tick in this process's CPU time (``time.process_time``) instead of wall-clock time: on a
machine that other work keeps busy it leaves out the time the process waited for a core
(the step runs on one thread, so on a quiet machine the two agree).
"""
import argparse
import math
import os
import sys

import common
from common import ROOT, TICK, machine_info, machine_lines, median, summary_ms, table

SCENES = ("springs", "attractor", "attractor150", "grab")
INTEGRATORS = ("euler", "semi-implicit", "verlet", "rk4")
ATTRACTOR_FILL_S = 20.5      # s: the shipped spawners make 40 balls each, one every 0.5 s
ORBIT_BALLS = 150            # balls of the attractor150 scene
ORBIT_SPACING = 0.7          # m: between neighbouring balls on a ring and between rings


def orbit_balls(center, strength, count, radius):
    """``count`` level balls on rings round ``center`` (2,), each at the speed of a circular
    orbit under a central pull of ``strength`` m/s^2: v = sqrt(strength r), anticlockwise."""
    balls = []
    ring = 2.0
    while len(balls) < count:
        on_ring = min(count - len(balls), int(2.0 * math.pi * ring / ORBIT_SPACING))
        speed = math.sqrt(strength * ring)
        for k in range(on_ring):
            phi = 2.0 * math.pi * k / on_ring
            c, s = math.cos(phi), math.sin(phi)
            balls.append({"pos": [center[0] + ring * c, center[1] + ring * s], "vel": [-speed * s, speed * c],
                          "radius": radius})
        ring += ORBIT_SPACING
    return balls


def build(scene, integrator, solver):
    """(World, warm-up seconds the scene needs before it is at its shipped size)."""
    from game.physics.compiled import loader as accel
    from game.level import complete, load
    from game.physics.world import World
    accel.load()
    if scene in ("springs", "grab"):
        level = load(os.path.join(ROOT, "levels", "05_springs.json"))
    else:
        level = load(os.path.join(ROOT, "levels", "09_attractor.json"))
    level["integrator"] = integrator
    fill = 0.0
    if scene == "attractor":
        fill = ATTRACTOR_FILL_S
    elif scene == "attractor150":
        pull = next(z for z in level["zones"] if z.get("kind") == "attractor")
        level["spawners"] = []
        level["balls"] = orbit_balls(pull["circle"]["center"], pull["strength"], ORBIT_BALLS, 0.25)
    world = World.from_level(complete(level), execution=solver)
    if scene == "grab":
        world.grab(0, world.pos[0] + (0.0, 2.0))
    return world, fill


# --clock's names (process: this process's CPU time), as common.CLOCKS names them.
CLOCKS = {"wall": "wall", "process": "cpu"}


def run(scenes, integrators, ticks=300, warmup=60, repeats=3, solver="compiled", clock="wall"):
    rows = []
    for scene in scenes:
        for integrator in integrators:
            medians, last = [], None
            for _ in range(int(repeats)):
                world, fill = build(scene, integrator, solver)
                ms = common.time_ticks(lambda: world.step(TICK), ticks, warmup + int(round(fill / TICK)), CLOCKS[clock])
                medians.append(summary_ms(ms)["median"])
                last = world
            rows.append({"scene": scene, "integrator": integrator, "median_ms": median(medians),
                         "low_ms": min(medians), "high_ms": max(medians), "balls": last.count,
                         "springs": len(last.springs), "finite": not last.blown_up()})
    return {"benchmark": "bench_forces", "solver": solver, "clock": clock, "ticks": int(ticks), "warmup": int(warmup),
            "repeats": int(repeats), "tick_s": TICK, "machine": machine_info(), "results": rows}


def report(data):
    lines = [f"World.step on the force levels, solver {data['solver']}, {data['clock']} clock: median of "
             f"{data['repeats']} runs' medians of {data['ticks']} timed ticks of 1/60 s after {data['warmup']} "
             "warm-up ticks", ""]
    lines.append(table(["scene", "integrator", "balls", "springs", "median ms/tick", "runs' low", "high"],
                       [[r["scene"], r["integrator"], r["balls"], r["springs"], f"{r['median_ms']:.3f}",
                         f"{r['low_ms']:.3f}", f"{r['high_ms']:.3f}" + ("" if r["finite"] else "  blew up")]
                        for r in data["results"]], "llrrrrr"))
    lines.append("")
    lines += machine_lines(data["machine"])
    return "\n".join(lines)


def _names(allowed):
    def parse(text):
        names = [v for v in str(text).replace(" ", "").split(",") if v]
        bad = [v for v in names if v not in allowed]
        if not names or bad:
            raise argparse.ArgumentTypeError(f"expected some of {', '.join(allowed)}, got {text!r}")
        return names
    return parse


def main(argv=None):
    p = argparse.ArgumentParser(description="Median ms per World.step on the spring, attractor and grab scenes.")
    p.add_argument("--scenes", type=_names(SCENES), default=list(SCENES), help="comma-separated (default: all)")
    p.add_argument("--integrators", type=_names(INTEGRATORS), default=list(INTEGRATORS),
                   help="comma-separated (default: all)")
    p.add_argument("--ticks", type=int, default=300, help="timed ticks per run (default 300)")
    p.add_argument("--warmup", type=int, default=60, help="untimed ticks before timing (default 60)")
    p.add_argument("--repeats", type=int, default=3, help="runs per scene and integrator (default 3)")
    p.add_argument("--solver", choices=("compiled", "numpy"), default="compiled",
                   help="the World's execution (default compiled)")
    p.add_argument("--clock", choices=tuple(CLOCKS), default="wall",
                   help="wall-clock time (default) or this process's CPU time")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    args = p.parse_args(argv)
    if args.ticks < 1 or args.warmup < 0 or args.repeats < 1:
        p.error("--ticks and --repeats must be at least 1, --warmup at least 0")
    data = run(args.scenes, args.integrators, args.ticks, args.warmup, args.repeats, args.solver, args.clock)
    print(common.dump_json(data) if args.json else report(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
