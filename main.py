"""Ballpit: a 2D physics sandbox.

    python main.py [--level FILE]                      play in a window
    python main.py --headless --level FILE --steps N [--integrator NAME] [--execution numpy|compiled]
                   [--json] [--save OUT.json]
    python main.py --screenshot OUT.png --level FILE [--steps N]
    python main.py --replay FILE [--headless [--json] [--integrator NAME]]
                                                       play a replay (F5 saves one); headless: check its bits
    python main.py --replay FILE --lab NAME [--headless [--json]]
                                                       the same inputs also into a ghost under NAME, side by side
    python main.py --clip OUT.gif (--level FILE [--steps N] | --replay FILE) [--size WxH]
    python main.py --check FILE                        level checks, one a line; exit 1 if any
    python main.py --edit FILE                         the level editor on FILE (new if missing)
    python main.py --compile                           compile the physics kernels now (once after installing)

A bad argument or a bad level prints one line on stderr and exits with code 2.
"""
import argparse
import os
import re
import sys

# pygame prints a banner on stdout when imported: never for this program (--edit on a new
# file imports it before the game, and stdout carries --headless --json's report).
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")


class _Parser(argparse.ArgumentParser):
    """argparse that fails with one line and exit code 2, never a usage dump."""

    def error(self, message):
        self.exit(2, f"main.py: {message}\n")


def build_parser():
    p = _Parser(prog="main.py", description="Ballpit: a 2D physics sandbox.")
    p.add_argument("--level", type=_file_name, metavar="FILE", help="level file to open (default: the first in levels/)")
    p.add_argument("--headless", action="store_true", help="run without a window")
    p.add_argument("--steps", type=_non_negative_int, default=None, metavar="N",
                   help="ticks of 1/60 s to run (headless, screenshot)")
    p.add_argument("--integrator", metavar="NAME", help="integrator to run with (headless)")
    p.add_argument("--execution", "--solver", dest="execution", type=_execution, metavar="EXECUTION",
                   default="compiled",
                   help="headless: how the physics runs, compiled (numba) or numpy; the same answer to the bit "
                        "(--solver: its old name, accepted for one release)")
    p.add_argument("--json", action="store_true", help="headless: print one JSON object")
    p.add_argument("--save", type=_file_name, metavar="OUT.json", help="headless: write the final world as a level")
    p.add_argument("--screenshot", type=_image_name, metavar="OUT.png", help="render offscreen to a PNG and exit")
    p.add_argument("--check", type=_file_name, metavar="FILE", help="print the level checks one a line; exit 1 if any, "
                                                    "0 if none, 2 on a bad file")
    p.add_argument("--edit", type=_file_name, metavar="FILE", help="open the level editor on FILE (a new level if missing)")
    p.add_argument("--replay", type=_file_name, metavar="FILE",
                   help="play a replay (F5 saves one) back in the window; with --headless, check it "
                        "reaches the bits recorded (exit 1 if not); --integrator plays it under another")
    p.add_argument("--lab", type=_integrator, metavar="NAME",
                   help="with --replay: the integrator lab, a ghost of the world under NAME that gets the replay's "
                        "inputs at the same ticks (headless: both worlds' energy and how far apart they end)")
    p.add_argument("--clip", type=_clip_name, metavar="OUT.gif",
                   help="draw --steps ticks of --level (or a --replay) offscreen into an animated GIF and exit")
    p.add_argument("--compile", action="store_true",
                   help="compile the physics kernels into numba's cache and exit (once after installing: the first "
                        "launch then plays at full speed at once); exit 0 even where they cannot compile")
    p.add_argument("--size", type=_size, default=(1280, 720), metavar="WxH",
                   help="window or screenshot size in pixels (default 1280x720)")
    return p


def _file_name(text):
    if not text:
        raise argparse.ArgumentTypeError("expected a file name, got an empty one")
    return text


def _non_negative_int(text):
    # int() also reads "1_0" and digits of other scripts ("３"): a count is ASCII digits only
    if not (text.isascii() and text.isdigit()):
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text[:20]!r} (digits 0-9 only)")
    if len(text) > 12:
        raise argparse.ArgumentTypeError(f"expected 0 to 10000000, got a number of {len(text)} digits")
    value = int(text)
    if value < 0 or value > 10_000_000:
        raise argparse.ArgumentTypeError(f"expected 0 to 10000000, got {value}")
    return value


def _execution(text):
    """--execution: a name of an execution, never empty (an empty one is not "the default")."""
    from game.physics.solver import EXECUTIONS
    if text not in EXECUTIONS:
        raise argparse.ArgumentTypeError(f"expected one of {', '.join(EXECUTIONS)}, got {text[:40]!r}")
    return text


def _integrator(text):
    """--lab: a name of an integrator."""
    from game.physics.integrators import INTEGRATORS
    if text not in INTEGRATORS:
        raise argparse.ArgumentTypeError(f"expected one of {', '.join(INTEGRATORS)}, got {text[:40]!r}")
    return text


# Formats pygame writes, by the extension that names them (it writes TGA under any other).
IMAGE_FORMATS = {".png": "PNG", ".bmp": "BMP", ".tga": "TGA", ".jpg": "JPEG", ".jpeg": "JPEG"}


def _image_name(text):
    """--screenshot: a file name whose extension names a format written (PNG, BMP, TGA, JPEG)."""
    text = _file_name(text)
    extension = os.path.splitext(text)[1].lower()
    if extension not in IMAGE_FORMATS:
        raise argparse.ArgumentTypeError(f"expected a file name ending in .png (or {', '.join(sorted(set(IMAGE_FORMATS) - {'.png'}))}), "
                                         f"got {os.path.basename(text)[:60]!r}")
    return text


def _clip_name(text):
    if not text:
        raise argparse.ArgumentTypeError("expected a file name, got an empty one")
    if not text.lower().endswith(".gif"):
        raise argparse.ArgumentTypeError(f"expected a file name ending in .gif, got {text[:60]!r}")
    return text


def _size(text):
    # int() also reads "1_280", " 720" and digits of other scripts: sizes are ASCII digits only
    match = re.fullmatch(r"([0-9]{1,5})[xX]([0-9]{1,5})", text)
    if match is None:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT such as 1280x720 (digits 0-9 only), "
                                         f"got {text[:40]!r}")
    w, h = int(match[1]), int(match[2])
    if not (160 <= w <= 8192 and 120 <= h <= 8192):
        raise argparse.ArgumentTypeError(f"expected a size from 160x120 to 8192x8192, got {text!r}")
    return (w, h)


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.lab is not None and (args.replay is None or args.clip is not None):
        parser.error("--lab: expected --replay FILE beside it (the lab plays a replay's inputs into a ghost), "
                     "and no --clip")
    try:
        if args.compile:
            from game.physics.compiled import loader
            loader.compile_ahead(say=lambda line: print(f"main.py: {line}", flush=True))
            return 0
        if args.check is not None:
            from game.checks import run_check
            return run_check(args.check)
        if args.clip is not None:
            from game.app.offscreen import clip_offscreen
            return clip_offscreen(args)
        if args.replay is not None and args.headless:
            from game.headless import run_replay
            return run_replay(args)
        if args.headless:
            from game.headless import run_headless
            return run_headless(args)
        if args.replay is not None:
            from game.app.loop import run_replay
            return run_replay(args)
        if args.edit is not None:
            return _edit(args)
        if args.screenshot:
            from game.app.loop import screenshot
            return screenshot(args)
        from game.app.loop import run
        return run(args)
    except KeyboardInterrupt:
        return 130


def _edit(args):
    """--edit FILE: the game with the editor open on FILE; a missing FILE starts as a new
    level from the template (written there, so the live reload and Save have a file)."""
    from game.level import LevelError
    if not os.path.exists(args.edit):
        from game.modes.edit import new_level_file
        try:
            new_level_file(args.edit)
        except LevelError as e:
            print(f"main.py: {e}", file=sys.stderr)
            return 2
    args.level = args.edit
    from game.app.loop import run
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
