"""What the integrator lab costs: a shipped level's tick alone, and with the lab's ghost (issue 27).

    python benchmarks/bench_lab.py                    # every shipped level, 300 ticks each
    python benchmarks/bench_lab.py --levels 01,05 --ticks 600 --json

Per level (headless, the compiled kernels loaded as the game has them): the world is stepped
``--warmup`` ticks, then ``--ticks`` ticks three ways, each from that same state: the world
alone; the world and a lab ghost under the same integrator (``game.app.lab.Lab``: what one more
world's tick costs, the worlds equal to the bit); the world and a ghost under the integrator
the lab picks first (the one after the world's: on the springs level that is euler, which
blows the soft body apart, so its ghost costs what a world flying apart costs). Printed: the
median CPU ms (``time.thread_time``) of a frame's physics, the world's tick plus the ghost's
and the lab's books (``Lab.step``), and its ratio to the world alone.
"""
import argparse
import json
import os
import statistics
import sys
import time

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")     # game.app.lab draws with pygame too

import common  # noqa: E402,F401  (puts the repository root on sys.path)
from common import ROOT, TICK, machine_info, machine_lines, table

from game.app.lab import Lab  # noqa: E402
from game.level import level_files, load  # noqa: E402
from game.physics.world import World  # noqa: E402


def tick_costs(world, ticks, integrator=None):
    """Median CPU ms of ``ticks`` ticks of ``world`` (a copy: the caller's stays), with a lab
    ghost under ``integrator`` when one is named ("same": the world's)."""
    world = world.copy()
    lab = None
    if integrator is not None:
        lab = Lab(world, world.integrator if integrator == "same" else integrator)
    ms = []
    for _ in range(ticks):
        c0 = time.thread_time()
        world.step(TICK)
        if lab is not None:
            lab.step(TICK)
        ms.append((time.thread_time() - c0) * 1000.0)
    return statistics.median(ms), lab


def main(argv=None):
    p = argparse.ArgumentParser(description="The integrator lab's cost on the shipped levels.")
    p.add_argument("--levels", help="comma-separated prefixes of level files (default: every shipped level)")
    p.add_argument("--ticks", type=int, default=300)
    p.add_argument("--warmup", type=int, default=600,
                   help="ticks before timing (default 600: 10 s, the spawners' balls made)")
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    files = level_files(os.path.join(ROOT, "levels"))
    if a.levels:
        wanted = a.levels.split(",")
        files = [f for f in files if any(os.path.basename(f).startswith(w) for w in wanted)]
    rows = []
    for path in files:
        world = World.from_level(load(path))
        for _ in range(a.warmup):
            world.step(TICK)
        alone, _ = tick_costs(world, a.ticks)
        same, _ = tick_costs(world, a.ticks, "same")
        picked, lab = tick_costs(world, a.ticks, Lab(world).integrator)
        rows.append({"level": os.path.basename(path), "balls": world.count, "integrator": world.integrator,
                     "alone_ms": alone, "same_ms": same, "ghost": lab.integrator, "picked_ms": picked,
                     "same_ratio": same / alone, "picked_ratio": picked / alone})
    if a.json:
        print(json.dumps({"rows": rows, "ticks": a.ticks, "machine": machine_info()}))
        return 0
    print(table(["level", "balls", "world alone", "+ ghost, same integrator", "+ ghost, first pick"],
                [[r["level"], str(r["balls"]), f"{r['alone_ms']:.3f} ms ({r['integrator']})",
                  f"{r['same_ms']:.3f} ms (x{r['same_ratio']:.2f})",
                  f"{r['picked_ms']:.3f} ms (x{r['picked_ratio']:.2f}, {r['ghost']})"] for r in rows]))
    for line in machine_lines(machine_info()):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
