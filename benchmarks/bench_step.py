"""Median ms per World.step for balls in a box (this engine only; issue 2, "Speed").

    python benchmarks/bench_step.py                          # 100, 1,000 and 5,000 balls
    python benchmarks/bench_step.py --sizes 1000 --ticks 60 --warmup 10

The scene is the ball pit of ``ball_pit.py`` (``common.pit_scene``): N balls of radius
0.5 m on a jittered grid falling into a box of width 20 sqrt(N/100) m with six slanted
obstacles, stepped with dt = 1/60 s. Each size runs its warm-up ticks untimed, then the
timed ticks one by one; printed: the median (and the 10th and 90th percentiles) ms per step.
"""
import argparse
import sys

import numpy as np

import common
from common import TICK, machine_info, machine_lines, parse_sizes, pit_scene, summary_ms, table, time_ticks

DEFAULT_SIZES = (100, 1000, 5000)


def run(sizes, ticks=300, warmup=60, integrator=None, substeps=None):
    rows = []
    for n in sizes:
        world, build_s = common.build_world(pit_scene(n), integrator, substeps)
        ms = time_ticks(lambda: world.step(TICK), ticks, warmup)
        rows.append({"n": n, "ms": summary_ms(ms), "build_s": build_s, "integrator": world.integrator,
                     "substeps": world.substeps,
                     "finite": bool(np.isfinite(world.pos).all() and np.isfinite(world.vel).all())})
    return {"benchmark": "bench_step", "ticks": int(ticks), "warmup": int(warmup), "tick_s": TICK,
            "machine": machine_info(), "results": rows}


def report(data):
    rows = data["results"]
    lines = [f"World.step, ball pit scene: {data['ticks']} timed ticks of 1/60 s after {data['warmup']} warm-up ticks"]
    if rows:
        lines.append(f"integrator {rows[0]['integrator']}, {rows[0]['substeps']} sub-steps per tick")
    lines.append("")
    lines.append(table(["N", "median ms/step", "p10", "p90", "build s"],
                       [[f"{r['n']:,}", f"{r['ms']['median']:.2f}", f"{r['ms']['p10']:.2f}", f"{r['ms']['p90']:.2f}",
                         f"{r['build_s']:.2f}" + ("" if r["finite"] else "  non-finite state!")] for r in rows],
                       "rrrrr"))
    lines.append("")
    lines += machine_lines(data["machine"])
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description="Median ms per World.step for balls in a box.")
    p.add_argument("--sizes", type=parse_sizes, default=DEFAULT_SIZES, metavar="N[,N...]",
                   help="ball counts (default 100,1000,5000)")
    p.add_argument("--ticks", type=int, default=300, help="timed ticks per size (default 300)")
    p.add_argument("--warmup", type=int, default=60, help="untimed ticks before timing (default 60)")
    p.add_argument("--integrator", help="integrator (default: the engine's default)")
    p.add_argument("--substeps", type=int, help="sub-steps per tick (default: the engine's)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    args = p.parse_args(argv)
    if args.ticks < 1 or args.warmup < 0:
        p.error("--ticks must be at least 1, --warmup at least 0")
    data = run(args.sizes, args.ticks, args.warmup, args.integrator, args.substeps)
    print(common.dump_json(data) if args.json else report(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
