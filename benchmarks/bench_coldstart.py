"""The first launch after installing: how long until full speed, and the frame rate meanwhile (issue 13).

    python benchmarks/bench_coldstart.py                         # compile times, then every shipped level
    python benchmarks/bench_coldstart.py --levels 01_ball_pit --seconds 20
    python benchmarks/bench_coldstart.py --skip-compile --mode numpy   # the numpy path's frame rate only
    python benchmarks/bench_coldstart.py --mode profile          # each compiling child, function by function
    python benchmarks/bench_coldstart.py --skip-compile --mode installed --seconds 10   # after main.py --compile

Four measures, each in fresh processes (SDL dummy drivers):

- *compile*: ``python -c "from game.physics.compiled import warm; warm.kernels().warm_up()"`` with numba's cache
  in a new empty folder (``NUMBA_CACHE_DIR``): a cold compile, as on the first launch after
  ``pip install -r requirements.txt``; wall seconds and CPU seconds (``getrusage`` of the
  child). Then the same command again, loading from that cache (a warm launch). Then
  ``accel.compile_in_child()`` into another empty cache: the compile as the game runs it.
- *cold* (``--mode cold``, default with ``numpy``): ``python main.py --level LEVEL``, the game's
  own loop (``game.app.run``: 60 FPS cap, kernels compiled in a child process after the first
  frame), numba's cache in a new empty folder. ``pygame.display.flip`` is wrapped to note the
  time of every frame, whether the compiled kernels (``App.compiled``) and the
  one-call tick (``TICK``) are in use and the world's simulated time; after ``--seconds`` the
  process ends. Reported: seconds from the first frame until the kernels are in use (*full
  speed*) and until the tick is, and the frame rate before and after: the fewest frames in
  any one-second window and the longest gap between two frames; and before full speed the
  simulated seconds per wall second (under 1 where the game held ticks back for its frames).
- *numpy* (``--mode numpy``): the same with ``BALLPIT_NUMPY=1``: the numpy path throughout,
  the rate a player sees while the kernels compile.
- *installed* (``--mode installed``): as the README's install-and-play command has it:
  ``python main.py --compile`` into the new empty cache (its wall and CPU seconds reported,
  the children's included), then the launch as in *cold*, which loads from that cache.

A frame rate under 50 means a window of one second held fewer than 50 frames; the cap is 60.
The machine's other load shows in every number: run it on a quiet machine.
"""
import argparse
import glob
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import common
from common import ROOT, machine_info, machine_lines, summary_ms, table

MODES = ("cold", "numpy")
INSTALLED_MODE = "installed"   # --mode installed: ``python main.py --compile`` first, as the README's install does
LOAD_MODE = "load"       # --mode load: the in-process load()'s stall of the frames, per switch interval
PROFILE_MODE = "profile"  # --mode profile: each compiling child's compile, function by function
MIN_FPS = 50             # frames per second the game must not drop below meanwhile
FULL_SPEED_S = 5.0       # s: the target from launch to the compiled kernels in use

# The child: main.py's game loop with pygame.display.flip wrapped to note every frame's time,
# whether the compiled kernels and the one-call tick are in use, and the world's simulated
# time (App.__init__ wrapped to find the app); ends the process after SECONDS.
_CHILD = r"""
import time
_T0 = time.perf_counter()
import json, os, runpy, sys
import pygame
SECONDS = float(sys.argv[2])
_flip = pygame.display.flip
_frames = []
sys.path.insert(0, os.getcwd())
import game.app.loop
_apps = []
_init = game.app.loop.App.__init__
def _noting_init(self, *args, **kw):
    _init(self, *args, **kw)
    _apps.append(self)
game.app.loop.App.__init__ = _noting_init
def _noting_flip(*args):
    _flip(*args)
    from game.physics.compiled import loader
    now = time.perf_counter()
    compiled = _apps[0].compiled if _apps else None
    _frames.append((now - _T0, compiled is not None, time.process_time(),
                    compiled is not None and compiled.tick is not None,
                    _apps[0].session.world.time if _apps else 0.0))
    if now - _T0 > SECONDS:
        sys.stdout.write("FRAMES " + json.dumps(_frames) + "\n")
        sys.stdout.flush()
        loader.stop_background()
        os._exit(0)
pygame.display.flip = _noting_flip
sys.argv = ["main.py", "--level", sys.argv[1]]
runpy.run_path("main.py", run_name="__main__")
"""


def _env(extra=None):
    env = dict(os.environ)
    env.setdefault("SDL_VIDEODRIVER", "dummy")
    env.setdefault("SDL_AUDIODRIVER", "dummy")
    env.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    env.pop("BALLPIT_NUMPY", None)
    env.update(extra or {})
    return env


COMPILES = {
    # one process compiles every kernel: the compile work, serially
    "cold": "from game.physics.compiled import warm; warm.kernels().warm_up()",
    # the same from the cache "cold" filled: a warm launch
    "warm": "from game.physics.compiled import warm; warm.kernels().warm_up()",
    # as the game does it, into an empty cache: accel.compile_in_child (its child processes)
    "game": "import sys; from game.physics.compiled import loader; sys.exit(0 if loader.compile_in_child() else 1)",
}


def compile_times(timeout=900):
    """Fresh processes compiling the kernels: {cold, warm, game} of {wall_s, cpu_s} (CPU of
    the process and its children)."""
    out = {}
    with tempfile.TemporaryDirectory(prefix="ballpit-numba-") as folder:
        for name, code in COMPILES.items():
            cache = os.path.join(folder, "game" if name == "game" else "one")
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=_env({"NUMBA_CACHE_DIR": cache}),
                                  capture_output=True, text=True, timeout=timeout)
            wall = time.perf_counter() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if proc.returncode != 0:
                raise RuntimeError(f"{name} compile failed: {proc.stderr.strip().splitlines()[-1:]}")
            out[name] = {"wall_s": wall, "cpu_s": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)}
    return out


def frame_stats(frames):
    """From [(seconds since start, kernels in use)]: frame rate before and after full speed."""
    if not frames:
        return {"frames": 0}
    first = frames[0][0]
    times = [f[0] - first for f in frames]
    full = next((f[0] - first for f in frames if f[1]), None)
    # The game process's CPU seconds per frame (all its threads; not the compiling child's):
    # what a frame costs whatever else the machine runs.
    cpu = [b[2] - a[2] for a, b in zip(frames, frames[1:])] if len(frames[0]) > 2 else []

    def rate(lo, hi):
        """Fewest frames in any one-second window within [lo, hi], the longest gap in ms."""
        ts = [t for t in times if lo <= t <= hi]
        if len(ts) < 2:
            return {"min_fps": None, "max_gap_ms": None, "frames": len(ts)}
        gaps = [b - a for a, b in zip(ts, ts[1:])]
        worst = None
        j = 0
        for i, t in enumerate(ts):            # windows [t, t + 1) that fit in the span
            if t + 1.0 > ts[-1]:
                break
            while j < len(ts) and ts[j] < t + 1.0:
                j += 1
            worst = j - i if worst is None else min(worst, j - i)
        frame_cpu = [c for t, c in zip(times[1:], cpu) if lo < t <= hi]
        return {"min_fps": worst, "max_gap_ms": max(gaps) * 1000.0, "frames": len(ts),
                "mean_fps": (len(ts) - 1) / (ts[-1] - ts[0]),
                "cpu_ms_median": 1000.0 * statistics.median(frame_cpu) if frame_cpu else None,
                "cpu_ms_max": 1000.0 * max(frame_cpu) if frame_cpu else None}
    end = times[-1]
    tick = next((f[0] - first for f in frames if len(f) > 3 and f[3]), None)
    out = {"frames": len(times), "first_frame_s": first, "full_speed_s": full, "tick_s": tick,
           "before": rate(0.0, end if full is None else full), "after": None if full is None else rate(full, end),
           "whole": rate(0.0, end)}
    if len(frames[0]) > 4:
        # Simulated seconds per wall second before full speed: the world slows where frames come first.
        upto = [f for f, t in zip(frames, times) if full is None or t <= full]
        if len(upto) > 1 and upto[-1][0] > upto[0][0]:
            out["before"]["sim_speed"] = (upto[-1][4] - upto[0][4]) / (upto[-1][0] - upto[0][0])
    return out


def run_level(level, mode, seconds, timeout=600):
    extra = {"BALLPIT_NUMPY": "1"} if mode == "numpy" else {}
    ahead = None
    with tempfile.TemporaryDirectory(prefix="ballpit-numba-") as cache:
        extra["NUMBA_CACHE_DIR"] = cache          # cold: nothing compiled yet
        if mode == INSTALLED_MODE:                # the install's own compile first
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            done = subprocess.run([sys.executable, "main.py", "--compile"], cwd=ROOT, env=_env(extra),
                                  capture_output=True, text=True, timeout=timeout)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if done.returncode != 0 or "full speed" not in done.stdout:
                raise RuntimeError(f"main.py --compile did not fill the cache: {done.stdout.strip().splitlines()[-1:]}")
            ahead = {"wall_s": time.perf_counter() - t0,
                     "cpu_s": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)}
        proc = subprocess.run([sys.executable, "-c", _CHILD, level, str(seconds)], cwd=ROOT, env=_env(extra),
                              capture_output=True, text=True, timeout=timeout)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("FRAMES ")), None)
    if line is None:
        raise RuntimeError(f"main.py ended without frames (exit {proc.returncode}): "
                           f"{(proc.stderr or proc.stdout).strip().splitlines()[-1:]}")
    stats = frame_stats(json.loads(line[len("FRAMES "):]))
    stats.update({"level": os.path.relpath(level, ROOT), "mode": mode, "seconds": seconds, "compile_ahead": ahead})
    return stats


# The child of --mode load: a level stepped on the numpy path frame after frame while
# accel.load() (numba's import, the kernels from a warm cache) runs on a thread, as the game
# has it once the compiling children are done; accel.LOAD_SWITCH_INTERVAL set from argv.
_LOAD_CHILD = r"""
import json, statistics, sys, threading, time
sys.path.insert(0, ".")
from game.physics.compiled import loader as accel
from game.level import load
from game.physics.world import World
accel.LOAD_SWITCH_INTERVAL = float(sys.argv[2])
world = World.from_level(load(sys.argv[1]), execution="numpy")
for _ in range(60):
    world.step(1 / 60)
def ticks(count=None, until=None):
    out = []
    while (count is not None and len(out) < count) or (until is not None and until.is_alive()):
        t0 = time.perf_counter()
        world.step(1 / 60)
        out.append((time.perf_counter() - t0) * 1000.0)
    return out
before = ticks(count=40)
loader = threading.Thread(target=accel.load)
t0 = time.perf_counter()
loader.start()
during = ticks(until=loader)
print("LOAD " + json.dumps({"before": before, "during": during, "load_s": time.perf_counter() - t0}))
"""


def load_stall(level, interval, timeout=600):
    """ms per numpy-path tick of LEVEL before and while accel.load() runs on a thread (warm
    cache) with the switch interval ``interval`` s: {before, during} summaries and load_s."""
    proc = subprocess.run([sys.executable, "-c", _LOAD_CHILD, level, repr(float(interval))], cwd=ROOT, env=_env(),
                          capture_output=True, text=True, timeout=timeout)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("LOAD ")), None)
    if line is None:
        raise RuntimeError(f"load child failed: {(proc.stderr or proc.stdout).strip().splitlines()[-1:]}")
    got = json.loads(line[len("LOAD "):])
    return {"level": os.path.relpath(level, ROOT), "interval_s": interval, "load_s": got["load_s"],
            "before": summary_ms(got["before"]), "during": summary_ms(got["during"]),
            "during_max": max(got["during"]) if got["during"] else None}


# The child of --mode profile: one of the game's compiling children (a part of the kernels,
# or the tick) with numba's compile and LLVM-lock events noted; prints them as JSON.
_PROFILE_CHILD = r"""
import json, sys, time
sys.path.insert(0, ".")
from numba.core import event
notes, llvm = [], {"depth": 0, "since": 0.0, "s": 0.0}
class Compiles(event.Listener):
    def on_start(self, e):
        notes.append((time.perf_counter(), True, e.data["dispatcher"].py_func.__module__ + "."
                      + e.data["dispatcher"].py_func.__qualname__, str(e.data["args"])))
    def on_end(self, e):
        notes.append((time.perf_counter(), False, "", ""))
class Llvm(event.Listener):
    def on_start(self, e):
        if llvm["depth"] == 0:
            llvm["since"] = time.perf_counter()
        llvm["depth"] += 1
    def on_end(self, e):
        llvm["depth"] -= 1
        if llvm["depth"] == 0:
            llvm["s"] += time.perf_counter() - llvm["since"]
event.register("numba:compile", Compiles())
event.register("numba:llvm_lock", Llvm())
cpu = time.process_time()
if sys.argv[1] == "tick":
    from game.physics.compiled import step as _step_kernels
    _step_kernels.warm_up()
elif sys.argv[1] == "bodies":
    from game.physics.compiled import bodies as _body_kernels
    _body_kernels.warm_up()
else:
    from game.physics.compiled import loader as accel
    accel.child_main(sys.argv[1], tuple(sys.argv[2:]))
print("PROFILE " + json.dumps({"notes": notes, "llvm_s": llvm["s"], "cpu_s": time.process_time() - cpu}))
"""


def compile_table(notes):
    """Per compile from nested (time s, started, function, argument types) notes: rows of
    {function, args, inclusive_s, exclusive_s (its callees' compiles taken out), depth}."""
    stack, rows = [], []
    for t, started, name, args in notes:
        if started:
            stack.append([name, args, t, 0.0])
            continue
        name, args, t0, inner = stack.pop()
        if stack:
            stack[-1][3] += t - t0
        rows.append({"function": name, "args": args, "inclusive_s": t - t0, "exclusive_s": t - t0 - inner,
                     "depth": len(stack)})
    return rows


def compile_profile(also=("game.draw.sprites",), timeout=900):
    """The game's compiling children into an empty cache, the parts at once then the tick
    beside the bodies' kernels:
    per child wall, CPU and LLVM s, and its compiles (compile_table)."""
    from game.physics.compiled import loader as accel
    out = []
    with tempfile.TemporaryDirectory(prefix="ballpit-numba-") as cache:
        env = _env({"NUMBA_CACHE_DIR": cache})
        stages = [[[part] + (list(also) if k == 0 else []) for k, part in enumerate(accel.COMPILE_PARTS)], [["tick"], ["bodies"]]]
        for stage in stages:
            t0 = time.perf_counter()
            procs = [(argv[0], subprocess.Popen([sys.executable, "-c", _PROFILE_CHILD] + argv, cwd=ROOT, env=env,
                                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
                     for argv in stage]
            for name, proc in procs:
                stdout, stderr = proc.communicate(timeout=timeout)
                line = next((ln for ln in stdout.splitlines() if ln.startswith("PROFILE ")), None)
                if line is None:
                    raise RuntimeError(f"{name} failed: {stderr.strip().splitlines()[-1:]}")
                got = json.loads(line[len("PROFILE "):])
                out.append({"child": name, "wall_s": time.perf_counter() - t0, "cpu_s": got["cpu_s"],
                            "llvm_s": got["llvm_s"], "compiles": compile_table(got["notes"])})
    return out


def profile_report(children, top=12):
    lines = []
    for c in children:
        rows = sorted(c["compiles"], key=lambda r: -r["exclusive_s"])
        ours = [r for r in rows if r["function"].startswith("game.")]
        lines.append(f"child {c['child']}: {c['wall_s']:.1f} s wall (from its stage's start), {c['cpu_s']:.1f} s CPU, "
                     f"{c['llvm_s']:.1f} s in LLVM; numba's own overloads {sum(r['exclusive_s'] for r in rows) - sum(r['exclusive_s'] for r in ours):.1f} s")
        lines.append(table(["function", "signatures", "exclusive s", "inclusive s"],
                           [[name, str(sum(1 for r in ours if r["function"] == name)),
                             f"{sum(r['exclusive_s'] for r in ours if r['function'] == name):.2f}",
                             f"{max(r['inclusive_s'] for r in ours if r['function'] == name):.2f}"]
                            for name in list(dict.fromkeys(r["function"] for r in ours))[:top]], "lrrr"))
    lines.append("exclusive: the function's own compile, its callees' compiles taken out (numba links each "
                 "callee's optimised module into the caller and optimises and compiles it again there)")
    return "\n".join(lines)


def shipped_levels(names=None):
    files = sorted(glob.glob(os.path.join(ROOT, "levels", "*.json")))
    files = [f for f in files if not f.endswith(".schema.json")]
    if names:
        files = [f for f in files if any(os.path.basename(f).startswith(n) for n in names)]
    return files


def _fmt(x, spec):
    return "-" if x is None else format(x, spec)


def _cpu(rate):
    if rate.get("cpu_ms_median") is None:
        return "-"
    return f"{rate['cpu_ms_median']:.1f} ({rate['cpu_ms_max']:.0f})"


def report(data):
    lines = []
    c = data.get("compile")
    if c:
        lines.append(f"compile (compiled.warm in a fresh process): cold {c['cold']['wall_s']:.1f} s wall, "
                     f"{c['cold']['cpu_s']:.1f} s CPU; from the cache {c['warm']['wall_s']:.1f} s wall, "
                     f"{c['warm']['cpu_s']:.1f} s CPU")
        if "game" in c:
            lines.append(f"compile as the game does (accel.compile_in_child, empty cache): {c['game']['wall_s']:.1f} s "
                         f"wall, {c['game']['cpu_s']:.1f} s CPU")
    if data["runs"]:
        head = ["level", "mode", "full speed s", "tick s", "min FPS before", "max gap ms before", "mean FPS before",
                "sim speed before", "CPU ms/frame before (max)", "min FPS after", "max gap ms after",
                "CPU ms/frame after (max)"]
        rows = []
        for r in data["runs"]:
            b, a = r["before"], r.get("after") or {}
            rows.append([os.path.basename(r["level"]), r["mode"], _fmt(r["full_speed_s"], ".1f"),
                         _fmt(r.get("tick_s"), ".1f"), _fmt(b.get("min_fps"), "d"), _fmt(b.get("max_gap_ms"), ".0f"),
                         _fmt(b.get("mean_fps"), ".1f"), _fmt(b.get("sim_speed"), ".2f"), _cpu(b),
                         _fmt(a.get("min_fps"), "d"), _fmt(a.get("max_gap_ms"), ".0f"), _cpu(a)])
        lines.append(table(head, rows, "ll" + "r" * (len(head) - 2)))
        for r in data["runs"]:
            if r.get("compile_ahead"):
                lines.append(f"{os.path.basename(r['level'])} installed: main.py --compile took "
                             f"{r['compile_ahead']['wall_s']:.1f} s wall, {r['compile_ahead']['cpu_s']:.1f} s CPU")
        lines.append(f"full speed: seconds from the first frame until the compiled kernels are in use (target "
                     f"{FULL_SPEED_S:g}); tick: until the one-call tick is; min FPS: fewest frames in any one-second "
                     f"window (target {MIN_FPS}, cap 60); sim speed: simulated s per wall s (1: real time);")
        lines.append("CPU ms/frame: the game process's CPU time per frame, median (max): a frame's cost whatever "
                     "else the machine runs (the compiling child not included)")
    if data.get("load"):
        lines.append("the in-process load (numba and the kernels from a warm cache, on a thread) against "
                     "numpy-path ticks on the main thread, ms per tick:")
        head = ["level", "switch interval ms", "load s", "tick before", "tick during (median)", "p90", "max"]
        rows = [[os.path.basename(r["level"]), f"{r['interval_s'] * 1000:g}", f"{r['load_s']:.2f}",
                 f"{r['before']['median']:.1f}", f"{r['during']['median']:.1f}", f"{r['during']['p90']:.1f}",
                 _fmt(r["during_max"], ".1f")] for r in data["load"]]
        lines.append(table(head, rows, "l" + "r" * (len(head) - 1)))
    lines += machine_lines(data["machine"])
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description="First launch: time to the compiled kernels and the frame rate meanwhile.")
    p.add_argument("--levels", default=None, help="level name prefixes, comma separated (default: every shipped level)")
    p.add_argument("--mode", choices=MODES + ("both", INSTALLED_MODE, LOAD_MODE, PROFILE_MODE), default="both",
                   help="cold, numpy or both (default); installed: main.py --compile first, then the launch; load: the in-process load's stall, per --intervals; "
                        "profile: each compiling child's compile, function by function")
    p.add_argument("--intervals", default="0.005,0.0005", help="--mode load: switch intervals in s, alternated "
                   "(default 0.005, Python's default, and 0.0005, accel.LOAD_SWITCH_INTERVAL)")
    p.add_argument("--repeats", type=int, default=2, help="--mode load: runs per interval (default 2)")
    p.add_argument("--seconds", type=float, default=None,
                   help="seconds each launch runs (default 40 cold, 6 numpy)")
    p.add_argument("--skip-compile", action="store_true", help="skip the warm_up compile times")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the tables")
    args = p.parse_args(argv)
    levels = shipped_levels(args.levels.split(",") if args.levels else None)
    if not levels:
        p.error(f"no shipped level matches {args.levels!r}")
    modes = MODES if args.mode == "both" else (args.mode,)
    data = {"benchmark": "bench_coldstart", "machine": machine_info(), "runs": []}
    if args.mode == PROFILE_MODE:
        data["profile"] = compile_profile()
        print(common.dump_json(data) if args.json else profile_report(data["profile"]) + "\n"
              + "\n".join(machine_lines(data["machine"])))
        return 0
    if args.mode == LOAD_MODE:
        intervals = [float(v) for v in args.intervals.split(",") if v]
        data["load"] = [load_stall(levels[0], interval) for _ in range(max(1, args.repeats)) for interval in intervals]
        print(common.dump_json(data) if args.json else report(data))
        return 0
    if not args.skip_compile:
        data["compile"] = compile_times()
        print(f"compile: {data['compile']}", file=sys.stderr, flush=True)
    for level in levels:
        for mode in modes:
            seconds = args.seconds or (40.0 if mode == "cold" else 6.0)
            r = run_level(level, mode, seconds)
            data["runs"].append(r)
            print(f"{os.path.basename(level)} {mode}: full speed {_fmt(r['full_speed_s'], '.1f')} s, "
                  f"min FPS before {r['before'].get('min_fps')}", file=sys.stderr, flush=True)
    print(common.dump_json(data) if args.json else report(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
