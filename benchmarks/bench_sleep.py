"""What a pile at rest costs a tick asleep, against the same pile awake (issue 13, "Sleeping").

    python benchmarks/bench_sleep.py                       # 1,000 and 5,000 balls, 3 repeats
    python benchmarks/bench_sleep.py --sizes 5000 --ticks 120 --repeats 5

The scene is ``common.pile_scene``'s box with its N balls of radius 0.5 m packed touching on
the floor in hexagonal rows (``hex_pile``): the square packing of pile_scene is unstable,
collapses into this one after about 1.5 s and then creeps in small avalanches for tens of
seconds (1,000 balls were not all asleep after 40 s: one island, some ball always above
the sleep speed), which is a pile moving, not one at rest. Two worlds are built from it, sleeping on and sleeping off
(``SolverOptions.sleeping``), and stepped alike until every ball of the first sleeps
(``World.sleeping``; at most --settle ticks). Then, ``--repeats`` times in turn, each is
timed for ``--ticks`` ticks on the CPU clock: "awake" is the resting pile stepped with
sleeping off (every contact solved each tick), "asleep" the same pile asleep; the ratio of
the medians of the run medians is the figure (issue 13: at most 0.10). "settling on /
off": the median tick of each world while the pile settles (what the rest timers and the
island search cost). "one woken" drops
one ball on a corner of the sleeping pile and times the next ticks: the cost while part of
the pile is awake.
"""
import argparse
import math
import sys

import numpy as np

import common
from common import TICK, machine_info, machine_lines, median, parse_sizes, pile_scene, table, time_ticks

DEFAULT_SIZES = (1000, 5000)


def hex_pile(n):
    """``common.pile_scene(n)`` with the balls in hexagonal rows on the floor: each row's
    balls touching, every other row shifted by a radius and one ball shorter, rows sqrt(3) r
    apart (each ball rests in the notch of two below)."""
    scene = pile_scene(n)
    r = common.BALL_RADIUS
    columns = max(2, int(math.floor(scene["width"] / (2.0 * r))))
    balls, row = [], 0
    while len(balls) < n:
        odd = row % 2
        balls += [(r + odd * r + 2.0 * r * c, r + row * math.sqrt(3.0) * r) for c in range(columns - odd)]
        row += 1
    scene["balls"] = np.array(balls[:n], float)
    return scene


def settle(on, off, limit, clock):
    """Step both worlds until every ball of ``on`` sleeps: (ticks taken or None if not within
    ``limit``, (ticks,) ms of ``on``'s ticks, the same of ``off``'s)."""
    on_ms, off_ms = [], []
    for k in range(int(limit)):
        if on.sleeping.all():
            return k, on_ms, off_ms
        on_ms += list(time_ticks(lambda: on.step(TICK), 1, 0, clock))
        off_ms += list(time_ticks(lambda: off.step(TICK), 1, 0, clock))
    return None, on_ms, off_ms


def run(sizes, ticks=60, repeats=3, limit=900, clock="cpu"):
    rows = []
    for n in sizes:
        scene = hex_pile(n)
        on, _ = common.build_world(scene)
        off, _ = common.build_world(scene)
        off.solver.options.sleeping = False
        slept, settle_on, settle_off = settle(on, off, limit, clock)
        awake, asleep = [], []
        for _ in range(int(repeats)):
            awake.append(float(np.median(time_ticks(lambda: off.step(TICK), ticks, 0, clock))))
            asleep.append(float(np.median(time_ticks(lambda: on.step(TICK), ticks, 0, clock))))
        # One ball dropped on the pile's left corner (touching within a few ticks): the pile
        # is one island, so it all wakes; what the sleep bookkeeping adds to an awake pile.
        x, top = float(on.pos[:, 0].min()), float(on.pos[:, 1].max())
        on.add_ball((x, top + 2.0 * common.BALL_RADIUS + 0.05), radius=common.BALL_RADIUS, mass=common.BALL_MASS)
        woken = time_ticks(lambda: on.step(TICK), ticks, 0, clock)
        rows.append({"n": n, "slept_after_ticks": slept, "awake_ms": median(awake), "asleep_ms": median(asleep),
                     "ratio": median(asleep) / median(awake), "awake_runs": awake, "asleep_runs": asleep,
                     "one_woken_ms": float(np.median(woken)), "still_asleep": int(on.sleeping.sum()),
                     "settling_on_ms": float(np.median(settle_on)) if settle_on else float("nan"),
                     "settling_off_ms": float(np.median(settle_off)) if settle_off else float("nan")})
    return {"benchmark": "bench_sleep", "ticks": int(ticks), "repeats": int(repeats), "clock": clock,
            "tick_s": TICK, "machine": machine_info(), "results": rows}


def report(data):
    lines = [f"A resting pile (hexagonal rows in common.pile_scene's box), awake (sleeping off) and asleep: median {data['clock']} ms "
             f"per tick of {data['repeats']} runs of {data['ticks']} ticks", ""]
    lines.append(table(["N", "asleep after", "awake ms", "asleep ms", "ratio", "one woken ms", "asleep then",
                        "settling on / off ms"],
                       [[f"{r['n']:,}", "never" if r["slept_after_ticks"] is None else f"{r['slept_after_ticks']} ticks",
                         f"{r['awake_ms']:.3f}", f"{r['asleep_ms']:.3f}", f"{r['ratio']:.3f}",
                         f"{r['one_woken_ms']:.3f}", f"{r['still_asleep']:,}",
                         f"{r['settling_on_ms']:.3f} / {r['settling_off_ms']:.3f}"] for r in data["results"]],
                       "rrrrrrrr"))
    lines.append("")
    lines += machine_lines(data["machine"])
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description="A resting pile's tick asleep against awake.")
    p.add_argument("--sizes", type=parse_sizes, default=DEFAULT_SIZES, metavar="N[,N...]",
                   help="ball counts (default 1000,5000)")
    p.add_argument("--ticks", type=int, default=60, help="timed ticks per run (default 60)")
    p.add_argument("--repeats", type=int, default=3, help="runs of each, alternating (default 3)")
    p.add_argument("--settle", type=int, default=900, help="ticks at most for the pile to fall asleep (default 900)")
    p.add_argument("--clock", choices=sorted(common.CLOCKS), default="cpu", help="clock to time with (default cpu)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    args = p.parse_args(argv)
    if args.ticks < 1 or args.repeats < 1 or args.settle < 0:
        p.error("--ticks and --repeats must be at least 1, --settle at least 0")
    data = run(args.sizes, args.ticks, args.repeats, args.settle, args.clock)
    print(common.dump_json(data) if args.json else report(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
