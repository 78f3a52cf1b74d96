"""Joints at scale and under strain (issue 37): ms a tick and the energy after a few seconds.

    python benchmarks/bench_joints.py [--ticks 60] [--execution compiled] [--only NAME] [--json]

Scenes (the shapes tests/physics/test_joints_scale.py and test_joints_strain.py check):
a hub with 300 and 1,000 spokes (rods), a 1,000-link chain with its rods in file order and
listed evens then odds, one ball on 5,000 and 20,000 ropes, a chain of 9 balls pulled straight
between anchors 10 m apart, and a triangle of rods of 1, 1 and 2.2 m. Each: the median ms a
tick (CPU clock) over ``--ticks`` ticks after 5 untimed, and the energy at the start and the end.
"""
import argparse
import math
import sys
import time

from common import dump_json, summary_ms, table, time_ticks  # noqa: F401  (puts the repository on sys.path)

from game.level import complete
from game.physics.world import World

G = 9.81


def star(n, spacing=0.15):
    radius = max(3.0, spacing * n / (2 * math.pi))
    balls = [{"pos": [0.0, 0.0], "radius": 0.3, "density": 5}]
    balls += [{"pos": [radius * math.cos(2 * math.pi * k / n), radius * math.sin(2 * math.pi * k / n)], "radius": 0.05}
              for k in range(n)]
    return {"gravity": [0, 0], "bounds": [-radius - 5, -radius - 5, radius + 5, radius + 5], "balls": balls,
            "joints": [{"kind": "rod", "a": 0, "b": k + 1} for k in range(n)]}


def ropes(n):
    return {"gravity": [0, -G], "bounds": [-20, -20, 20, 20], "balls": [{"pos": [0.0, 0.0], "radius": 0.3}],
            "joints": [{"kind": "rope", "a": 0, "b": [2 * math.cos(k), 5 + math.sin(k)], "length": 6.0}
                       for k in range(n)]}


def chain(n, evens_first=False):
    balls = [{"pos": [0.5 * k, 10.0], "radius": 0.1} for k in range(n)]
    joints = [{"kind": "rod", "a": 0, "b": [0.0, 10.0]}] + [{"kind": "rod", "a": k, "b": k + 1} for k in range(n - 1)]
    if evens_first:
        joints = joints[0::2] + joints[1::2]
    return {"gravity": [0, -G], "bounds": [-300, -300, 300, 300], "balls": balls, "joints": joints}


def taut(n=9):
    balls = [{"pos": [float(i), 10.0], "radius": 0.2} for i in range(1, n + 1)]
    joints = ([{"kind": "rod", "a": 0, "b": [0.0, 10.0]}] + [{"kind": "rod", "a": i, "b": i + 1} for i in range(n - 1)]
              + [{"kind": "rod", "a": n - 1, "b": [float(n + 1), 10.0]}])
    return {"gravity": [0, -G], "bounds": [-5, -5, 20, 20], "balls": balls, "joints": joints}


def triangle():
    return {"gravity": [0, -G], "bounds": [-50, -5, 50, 50],
            "balls": [{"pos": [0.0, 0.3], "radius": 0.3}, {"pos": [1.0, 0.3], "radius": 0.3},
                      {"pos": [0.5, 0.3 + math.sqrt(0.75)], "radius": 0.3}],
            "joints": [{"kind": "rod", "a": 0, "b": 1}, {"kind": "rod", "a": 1, "b": 2},
                       {"kind": "rod", "a": 0, "b": 2, "length": 2.2}]}


SCENES = {"star 300": lambda: star(300), "star 1000": lambda: star(1000),
          "chain 1000, file order": lambda: chain(1000), "chain 1000, evens then odds": lambda: chain(1000, True),
          "ropes 5000": lambda: ropes(5000), "ropes 20000": lambda: ropes(20000),
          "taut chain of 9": taut, "triangle 1, 1, 2.2 m": triangle}


def level(scene):
    scene = dict(scene, segments=scene.get("segments") or [{"a": [-1e3, -1e3], "b": [-999.0, -1e3]}])
    return complete(scene)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ticks", type=int, default=60)
    parser.add_argument("--execution", default="compiled", choices=("compiled", "numpy"))
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--only", default="", help="scenes whose name contains this (e.g. taut)")
    args = parser.parse_args(argv)
    rows, out = [], {}
    for name, make in SCENES.items():
        if args.only not in name:
            continue
        t0 = time.perf_counter()
        w = World.from_level(level(make()), execution=args.execution)
        build_s = time.perf_counter() - t0
        e0 = w.energy()["total"]
        ms = time_ticks(lambda: w.step(1 / 60), args.ticks, 5, clock="cpu")
        e1 = w.energy()["total"]
        s = summary_ms(ms)
        out[name] = {"ms_per_tick": s, "build_s": build_s, "energy_start": e0, "energy_end": e1,
                     "soft": bool(w.joints.strained)}
        rows.append([name, f"{s['median']:.2f}", f"{s['p90']:.2f}", f"{build_s:.2f}", f"{e0:.3g}", f"{e1:.3g}",
                     "yes" if w.joints.strained else ""])
    if args.json:
        print(dump_json(out))
    else:
        print(table(["scene", "ms/tick", "p90", "build s", "J start", "J end", "strained"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
