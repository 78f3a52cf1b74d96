"""Print every shipped level's state hash after N ticks, one line a level: the before/after
check of a change that must keep the bits (python tools/level_hashes.py [--steps N]
[--execution numpy|compiled] [levels...])."""
import argparse
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from game.level import load  # noqa: E402
from game.physics.world import World  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=120)
    parser.add_argument("--execution", default="numpy", choices=("numpy", "compiled"))
    parser.add_argument("levels", nargs="*")
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for path in args.levels or sorted(p for p in glob.glob(os.path.join(root, "levels", "*.json"))
                                      if not p.endswith(".schema.json")):
        world = World.from_level(load(path), execution=args.execution)
        for _ in range(args.steps):
            world.step()
        print(f"{os.path.basename(path)} {world.state_hash()}", flush=True)


if __name__ == "__main__":
    main()
