"""Median ms per World.step of the shipped levels with bodies, each sub-step's balls in one
compiled call against the compiled kernels one by one, alternated in one run (issue 34: the
one-call tick for levels with bodies).

    python benchmarks/bench_body_levels.py                    # every shipped level with bodies
    python benchmarks/bench_body_levels.py --levels 41_dominoes,46_plank_bridge --repeats 5

Each level is loaded, run ``--warmup`` ticks untimed, then ``--ticks`` timed ticks one by one
on the process's CPU clock; the two ways alternate ``--repeats`` times and the medians of the
runs' medians are printed, with their ratio (a ratio measured in one run is steadier than the
times on a machine whose speed wanders). Both ways give the same bits
(tests/physics/test_bodies.py); a level where no call serves (no balls at the end of the run)
shows its one way twice.
"""
import argparse
import glob
import json
import os
import sys

import numpy as np

import common
from common import TICK, machine_info, machine_lines, summary_ms, table, time_ticks

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def body_levels():
    """The shipped levels with bodies (their names without .json)."""
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, "levels", "*.json"))):
        with open(path, encoding="utf-8") as f:
            if json.load(f).get("bodies"):
                out.append(os.path.basename(path)[:-5])
    return out


def _run_one(name, ticks, warmup, compiled):
    """(median ms, whether the level's balls took the calls): on the Compiled ``compiled``."""
    from game.level import load
    from game.physics.world import World
    world = World.from_level(load(os.path.join(ROOT, "levels", name + ".json")), compiled=compiled)
    ms = summary_ms(time_ticks(lambda: world.step(TICK), ticks, warmup, "cpu"))["median"]
    # (game.physics.step.fused: with the one-call tick loaded, a level with balls; the shipped
    # body levels meet its other conditions)
    return ms, compiled.tick is not None and world.count > 0


def run(levels, ticks=300, warmup=30, repeats=3):
    from game.physics.compiled import loader
    with_tick = loader.load()
    if with_tick is None or with_tick.tick is None:
        raise SystemExit("numba could not compile the kernels here: nothing to compare")
    # The kernels one by one: the same kernels without the one-call tick.
    ways = {True: with_tick, False: loader.Compiled(with_tick.kernels, None, with_tick.joints, with_tick.bodies)}
    rows = []
    for name in levels:
        times = {True: [], False: []}
        calls = False
        for _ in range(repeats):
            for fused in (False, True):
                ms, used = _run_one(name, ticks, warmup, ways[fused])
                times[fused].append(ms)
                calls |= used and fused
        old, new = float(np.median(times[False])), float(np.median(times[True]))
        rows.append({"level": name, "substeps_ms": old, "calls_ms": new, "ratio": new / old, "calls": calls})
    return {"benchmark": "bench_body_levels", "ticks": int(ticks), "warmup": int(warmup), "repeats": int(repeats),
            "clock": "cpu", "results": rows, "machine": machine_info()}


def report(data):
    lines = [f"Shipped levels with bodies: median ms per tick (CPU), {data['ticks']} ticks after {data['warmup']}, "
             f"medians of {data['repeats']} alternated runs", ""]
    lines.append(table(["level", "kernels one by one", "balls in one call a sub-step", "ratio"],
                       [[r["level"], f"{r['substeps_ms']:.2f}", f"{r['calls_ms']:.2f}" + ("" if r["calls"] else " (not used)"),
                         f"{r['ratio']:.2f}"] for r in data["results"]], "lrrr"))
    lines.append("")
    lines += machine_lines(data["machine"])
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description="Median ms per tick of the shipped levels with bodies, two ways.")
    p.add_argument("--levels", help="level names, comma-separated (default: every shipped level with bodies)")
    p.add_argument("--ticks", type=int, default=300, help="timed ticks per run (default 300)")
    p.add_argument("--warmup", type=int, default=30, help="untimed ticks before timing (default 30)")
    p.add_argument("--repeats", type=int, default=3, help="alternated runs of each way (default 3)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    args = p.parse_args(argv)
    if args.ticks < 1 or args.warmup < 0 or args.repeats < 1:
        p.error("--ticks and --repeats must be at least 1, --warmup at least 0")
    known = body_levels()
    levels = known if not args.levels else [name.strip() for name in args.levels.split(",") if name.strip()]
    unknown = [name for name in levels if name not in known]
    if unknown:
        p.error(f"not a shipped level with bodies: {', '.join(unknown)} (those are: {', '.join(known)})")
    data = run(levels, args.ticks, args.warmup, args.repeats)
    print(common.dump_json(data) if args.json else report(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
