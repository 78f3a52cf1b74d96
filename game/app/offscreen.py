"""--clip OUT.gif: a level or a replay drawn offscreen into an animated GIF, for the README
and for bug reports (the window's F9 records one as it plays: game.app.recording)."""
import sys

import pygame

from game import clip as clips
from game import replay as replays
from game.app.loop import App, first_line, open_level
from game.app.recording import clip_size, frame_bytes
from game.clip import Clip, ClipError
from game.headless import output_problem
from game.physics.compiled import loader
from game.replay import ReplayError

def clip_offscreen(args):
    """``--clip OUT.gif`` with ``--level FILE`` (``--steps N`` ticks, default 300) or ``--replay
    FILE`` (its ticks): drawn offscreen at ``--size``, written at half that. Exit 0; 2 for a bad
    argument or file; 1 for an internal error. No window."""
    out = args.clip
    problem = output_problem(out) or (None if out.lower().endswith(clips.EXTENSIONS) else
                                      f"expected a file name ending in .gif, got {out}")
    if problem is not None:
        print(f"main.py: --clip: {problem}", file=sys.stderr)
        return 2
    replay = None
    if getattr(args, "replay", None) is not None:
        try:
            replay = replays.load(args.replay)
        except ReplayError as e:
            print(f"main.py: {e}", file=sys.stderr)
            return 2
        path, doc = replay["level_file"] or args.replay, replay["level"]
    else:
        path, doc = open_level(args.level)
        if doc is None:
            return 2
    steps = args.steps if args.steps is not None else (replay["ticks"] if replay else 300)
    frames = steps // clips.TICKS_PER_FRAME + 1
    if frames > clips.MAX_FRAMES:
        print(f"main.py: --clip: expected at most {(clips.MAX_FRAMES - 1) * clips.TICKS_PER_FRAME} steps "
              f"({clips.MAX_FRAMES // clips.CLIP_FPS} s), got {steps}", file=sys.stderr)
        return 2
    try:
        pygame.font.init()
        app = App(path, size=args.size, doc=doc, compiled=loader.load())
        if replay is not None:
            app.recording.play(replay)
        app.clock.paused = False
        clip = Clip(clip_size(args.size))
        surface = pygame.Surface(args.size)
        for k in range(frames):
            if k:
                app.advance(clips.TICKS_PER_FRAME)
            app.draw(surface, toasts=False)
            clip.add(frame_bytes(surface, clip.size))
        clip.write(out)
    except ClipError as e:
        print(f"main.py: --clip: {e}", file=sys.stderr)
        return 2
    except Exception as error:          # a bug: one line, never a traceback
        print(f"main.py: internal error: {first_line(error)}", file=sys.stderr)
        return 1
    print(f"main.py: wrote {out}: {len(clip)} frames of {clip.size[0]}x{clip.size[1]}, {clip.seconds:.1f} s")
    return 0
