"""Degenerate costs (issue 14): ms per tick of one ball in odd worlds next to a normal one, and
the build time of the largest static layouts the level format allows.

    python benchmarks/bench_degenerate.py                    # both executions
    python benchmarks/bench_degenerate.py --solver numpy --ticks 60

Cases: a normal ball (r = 0.25 m, 3 m/s) in a 32 x 18 m box; a 1 mm ball at 10,000 m/s in
it; a normal ball in +-1e6 m bounds. Builds: 20,000 short walls over +-1e6 m, 3,000 walls
across +-1e6 m, 20,000 stadiums of radius 1e6 m. Each should cost a few times the normal
case at most (ticks) and well under 2 s (builds).
"""
import argparse
import time

import numpy as np

import common  # noqa: F401  (puts the checkout on sys.path)
from game.physics.compiled import loader as accel
from game.level import complete
from game.physics.world import TICK, World

BOX = [{"a": [0, 0], "b": [32, 0]}, {"a": [32, 0], "b": [32, 18]}, {"a": [32, 18], "b": [0, 18]},
       {"a": [0, 18], "b": [0, 0]}]
TICK_CASES = {
    "normal ball": ({"segments": BOX}, {"pos": [16, 9], "vel": [3, 1]}),
    "1 mm at 10 km/s": ({"segments": BOX}, {"pos": [16, 9], "vel": [8000, 6000], "radius": 0.001}),
    "+-1e6 m bounds": ({"segments": BOX, "bounds": [-1e6, -1e6, 1e6, 1e6]}, {"pos": [16, 9], "vel": [3, 1]}),
}


def build_cases(seed=1):
    rng = np.random.default_rng(seed)
    big = [-1e6, -1e6, 1e6, 1e6]
    p = rng.uniform(-1e6, 1e6, (20000, 2))
    short = [{"a": a.tolist(), "b": (a + rng.uniform(-1, 1, 2)).tolist()} for a in p]
    across = [{"a": a.tolist(), "b": b.tolist()} for a, b in zip(rng.uniform(-1e6, 1e6, (3000, 2)),
                                                                rng.uniform(-1e6, 1e6, (3000, 2)))]
    fat = [{"a": a.tolist(), "b": b.tolist(), "radius": 1e6} for a, b in zip(p, rng.uniform(-1e6, 1e6, (20000, 2)))]
    return {"20,000 short walls": {"segments": short, "bounds": big},
            "3,000 walls across": {"segments": across, "bounds": big},
            "20,000 fat stadiums": {"segments": fat, "bounds": big}}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--solver", choices=["numpy", "compiled"], action="append")
    parser.add_argument("--ticks", type=int, default=120)
    args = parser.parse_args()
    accel.load()
    for solver in args.solver or ["numpy", "compiled"]:
        for name, (level, ball) in TICK_CASES.items():
            w = World.from_level(complete(dict(level, balls=[ball])), execution=solver)
            for _ in range(5):
                w.step(TICK)
            start = time.perf_counter()
            for _ in range(args.ticks):
                w.step(TICK)
            print(f"{solver:8s} {name:18s} {1e3 * (time.perf_counter() - start) / args.ticks:8.2f} ms/tick")
    for name, level in build_cases().items():
        level = complete(level)
        start = time.perf_counter()
        w = World.from_level(level, execution="numpy")
        print(f"build    {name:20s} {time.perf_counter() - start:6.2f} s  (cell {w.grid.cell:.3g} m, "
              f"{len(w.statics._index)} entries)")


if __name__ == "__main__":
    main()
