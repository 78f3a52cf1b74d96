"""The tick's cost in the window's own loop against the same level headless (issue 27, bug 10).

    python benchmarks/bench_window_tick.py --level levels/05_springs.json --seconds 10
    python benchmarks/bench_window_tick.py --balls 6000 --seconds 10        # a screen box of 6,000 balls
    python benchmarks/bench_window_tick.py --level levels/05_springs.json --lab   # with the integrator lab's ghost

Window: ``game.app.run`` itself (the loop a player gets: events, start_update, the drawing,
flip, finish_update, the kernels' background load) on whatever display SDL finds (run it under
Xvfb: ``xvfb-run -a python benchmarks/bench_window_tick.py ...``, or with
SDL_VIDEODRIVER=dummy), for ``--seconds`` of wall time after the one-call tick is in use;
``World.step`` is wrapped to time every call: wall ms (``time.perf_counter``) and the
stepping thread's CPU ms (``time.thread_time``). Headless: the same level stepped as
``python main.py --headless`` steps it (``game.headless.simulate``), as many ticks as the
window ran, in the same process after the window closed, back to back; then "paced": the
same, one tick each 1/60 s of wall time, the thread asleep between, as the window ticks
(on a machine other programs keep busy, a tick after a pause finds the core's caches full
of their data and costs several times a tick run back to back: this is the yardstick for
what the window itself adds). Printed: the median wall ms and
CPU ms of a tick both ways and their ratio; wall above CPU is time the stepping thread
waited (for the interpreter's lock, or for a core other programs hold).
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time

import common  # noqa: F401  (puts the repository root on sys.path)
from common import TICK, machine_info, machine_lines

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")


def _phase(world):
    """Which execution a tick of ``world`` runs on: "numpy", "kernels" (one by one) or "tick"
    (one call)."""
    if world.execution == "numpy":
        return "numpy"
    return "tick" if world.ticks_in_one_call() else "kernels"


def _timed_steps(World, records):
    """Wrap World.step so each call appends (wall ms, thread CPU ms, balls, on main thread,
    _phase(), the world's time before the tick, the world)."""
    original = World.step

    def step(self, *args, **kwargs):
        phase, before = _phase(self), self.time
        c0, t0 = time.thread_time(), time.perf_counter()
        original(self, *args, **kwargs)
        t1, c1 = time.perf_counter(), time.thread_time()
        records.append(((t1 - t0) * 1000.0, (c1 - c0) * 1000.0, self.count,
                        threading.current_thread() is threading.main_thread(), phase, before, self))
    World.step = step
    return original


def window_ticks(level_path, seconds, lab=False, size=(1280, 720), from_start=False):
    """Run game.app.run on level_path until ``seconds`` after the one-call tick came in (or,
    ``from_start``, after the first frame); returns (records of the ticks after that, frames,
    wall s)."""
    import pygame
    from game.app import loop as app_module
    from game.physics.world import World

    records = []
    original = _timed_steps(World, records)
    state = {"start": None, "frames": 0, "first": 0}
    real_get = pygame.event.get
    real_app = app_module.App

    class App(real_app):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            state["app"] = self

    def get(*args, **kwargs):
        events = real_get(*args, **kwargs)
        now = time.perf_counter()
        if state["start"] is None:
            compiled = state["app"].compiled if "app" in state else None
            if from_start or (compiled is not None and compiled.tick is not None) or os.environ.get("BALLPIT_NUMPY"):
                state["start"], state["first"] = now, len(records)
                if lab:
                    state["app"].play.toggle_lab()
        else:
            state["frames"] += 1
            if now - state["start"] >= seconds:
                events.append(pygame.event.Event(pygame.QUIT))
        return events

    pygame.event.get = get
    app_module.App = App
    try:
        args = argparse.Namespace(level=level_path, size=size, edit=None)
        app_module.run(args)
    finally:
        pygame.event.get = real_get
        app_module.App = real_app
        World.step = original
    wall = time.perf_counter() - state["start"] if state["start"] else 0.0
    return records[state["first"]:], state["frames"], wall


def headless_ticks(level_path, steps, every=0.0, skip=0):
    """Step the level as ``main.py --headless`` does, ``skip`` ticks untimed and then ``steps``
    timed (the same ticks as the window's: the world is the same to the bit); returns the
    records of each. ``every`` s > 0: one tick each ``every`` s of wall time (the window's
    cadence, 1/60 s), the thread sleeping between, instead of back to back."""
    from game.level import load
    from game.physics.world import World
    world = World.from_level(load(level_path))       # compiled, loaded before the first step
    for _ in range(skip):
        world.step()
    records = []
    original = _timed_steps(World, records)
    try:
        due = time.perf_counter()
        for _ in range(steps):
            if every > 0:
                due += every
                time.sleep(max(0.0, due - time.perf_counter()))
            world.step()
    finally:
        World.step = original
    return records


def summary(records):
    wall = sorted(r[0] for r in records)
    cpu = sorted(r[1] for r in records)
    if not wall:
        return {"ticks": 0}
    return {"ticks": len(records), "wall_ms": statistics.median(wall), "cpu_ms": statistics.median(cpu),
            "wall_p90_ms": wall[int(0.9 * (len(wall) - 1))], "balls": records[-1][2],
            "on_worker": sum(1 for r in records if not r[3])}


def main(argv=None):
    p = argparse.ArgumentParser(description="The tick in the window's loop against headless.")
    p.add_argument("--level", help="level file (default: a screen box of --balls balls)")
    p.add_argument("--balls", type=int, default=6000, help="balls of the screen box when no --level (default 6000)")
    p.add_argument("--seconds", type=float, default=10.0, help="wall s of window play timed (default 10)")
    p.add_argument("--from-start", action="store_true",
                   help="time from the first frame, while the kernels load (default: once the one-call tick is in)")
    p.add_argument("--lab", action="store_true",
                   help="the integrator lab on (G) once the one-call tick is in: its ghost's ticks are shown apart")
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        level = a.level
        if level is None:
            from bench_frame import screen_box_level
            level = os.path.join(folder, f"box_{a.balls}.json")
            with open(level, "w") as f:
                json.dump(screen_box_level(a.balls), f)
        win, frames, wall = window_ticks(level, a.seconds, lab=a.lab, from_start=a.from_start)
        # The world's ticks (the lab's ghost steps beside it; its ticks are reported apart).
        world = win[0][6] if win else None
        ghost = [r for r in win if r[6] is not world]
        win = [r for r in win if r[6] is world]
        skip = int(round(win[0][5] / TICK)) if win else 0
        steps = max(1, len(win))
        head = headless_ticks(level, steps, skip=skip)
        paced = headless_ticks(level, steps, every=TICK, skip=skip)
    phases = {name: summary([r for r in win if r[4] == name]) for name in ("numpy", "kernels", "tick")}
    w, h, hp = summary(win), summary(head), summary(paced)
    g = summary(ghost) if a.lab else None
    result = {"level": a.level or f"screen box, {a.balls} balls", "frames": frames,
              "fps": frames / wall if wall else None, "lab": a.lab, "window": w, "window_phases": phases,
              "headless": h, "ratio_wall": w["wall_ms"] / h["wall_ms"], "ratio_cpu": w["cpu_ms"] / h["cpu_ms"],
              "headless_paced": hp, "ratio_paced_cpu": w["cpu_ms"] / hp["cpu_ms"], "ghost": g,
              "first_tick": skip,
              "machine": machine_info()}
    if a.json:
        print(json.dumps(result))
        return 0
    print(f"{result['level']}: {frames} frames in {wall:.1f} s ({result['fps']:.0f} FPS); ticks {skip} on")
    rows = [("window", w)] + ([(f"  {k}", v) for k, v in phases.items() if v["ticks"]] if a.from_start else [])
    rows += [("  ghost", g)] if g and g["ticks"] else []
    for name, s in rows + [("headless", h), ("paced", hp)]:
        print(f"  {name:10s} {s['ticks']:5d} ticks, {s['balls']} balls at the end: median {s['wall_ms']:.3f} ms wall "
              f"(p90 {s['wall_p90_ms']:.3f}), {s['cpu_ms']:.3f} ms CPU; {s['on_worker']} on the worker thread")
    print(f"  window / headless: {result['ratio_wall']:.2f} wall, {result['ratio_cpu']:.2f} CPU; "
          f"window / headless paced (a tick each 1/60 s): {result['ratio_paced_cpu']:.2f} CPU")
    for line in machine_lines(result["machine"]):
        print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
