"""Ballpit: a 2D physics sandbox.

    python main.py [--level FILE]                      play in a window
    python main.py --headless --level FILE --steps N [--integrator NAME] [--solver numpy|compiled]
                   [--json] [--save OUT.json]
    python main.py --screenshot OUT.png --level FILE [--steps N]

A bad argument or a bad level prints one line on stderr and exits with code 2.
"""
import argparse
import os
import sys

ROOT = os.path.dirname(os.path.abspath(__file__))
DEFAULT_LEVEL_DIR = os.path.join(ROOT, "levels")


class _Parser(argparse.ArgumentParser):
    """argparse that fails with one line and exit code 2, never a usage dump."""

    def error(self, message):
        self.exit(2, f"main.py: {message}\n")


def build_parser():
    p = _Parser(prog="main.py", description="Ballpit: a 2D physics sandbox.")
    p.add_argument("--level", metavar="FILE", help="level file to open (default: the first in levels/)")
    p.add_argument("--headless", action="store_true", help="run without a window")
    p.add_argument("--steps", type=_non_negative_int, default=None, metavar="N",
                   help="ticks of 1/60 s to run (headless, screenshot)")
    p.add_argument("--integrator", metavar="NAME", help="integrator to run with (headless)")
    p.add_argument("--solver", metavar="EXECUTION", default="compiled",
                   help="headless: contact solver execution, compiled (numba, once loaded) or numpy; the same answer")
    p.add_argument("--json", action="store_true", help="headless: print one JSON object")
    p.add_argument("--save", metavar="OUT.json", help="headless: write the final world as a level")
    p.add_argument("--screenshot", metavar="OUT.png", help="render offscreen to a PNG and exit")
    p.add_argument("--size", type=_size, default=(1280, 720), metavar="WxH",
                   help="window or screenshot size in pixels (default 1280x720)")
    return p


def _non_negative_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0 or value > 10_000_000:
        raise argparse.ArgumentTypeError(f"expected 0 to 10000000, got {value}")
    return value


def _size(text):
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT such as 1280x720, got {text!r}") from None
    if not (160 <= w <= 8192 and 120 <= h <= 8192):
        raise argparse.ArgumentTypeError(f"expected a size from 160x120 to 8192x8192, got {text!r}")
    return (w, h)


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        if args.headless:
            from game.headless import run_headless
            return run_headless(args)
        if args.screenshot:
            from game.app import screenshot
            return screenshot(args)
        from game.app import run
        return run(args)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
