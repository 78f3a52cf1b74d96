"""The tick's cost in the window's own loop against the same level headless (issue 27, bug 10).

    python benchmarks/bench_window_tick.py --level levels/05_springs.json --seconds 10
    python benchmarks/bench_window_tick.py --balls 6000 --seconds 10        # a screen box of 6,000 balls
    python benchmarks/bench_window_tick.py --level levels/05_springs.json --lab   # with the integrator lab's ghost
    python benchmarks/bench_window_tick.py --level levels/08_goal.json --cadence 300  # a tick by what ran before it

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
    game = {"step": [], "after": []}       # App._step and play.after_tick, tick by tick
    state = {"start": None, "frames": 0, "first": 0}
    real_get = pygame.event.get
    real_app = app_module.App

    class App(real_app):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            state["app"] = self
            after_tick = self.play.after_tick

            def timed_after_tick(outcome=None):
                c0, t0 = time.thread_time(), time.perf_counter()
                after_tick(outcome)
                t1, c1 = time.perf_counter(), time.thread_time()
                game["after"].append(((t1 - t0) * 1000.0, (c1 - c0) * 1000.0))
            self.play.after_tick = timed_after_tick

        def _step(self, world):
            """The game's whole tick: world.step, the lab's ghost, play's tick_outcome."""
            c0, t0 = time.thread_time(), time.perf_counter()
            out = super()._step(world)
            t1, c1 = time.perf_counter(), time.thread_time()
            game["step"].append(((t1 - t0) * 1000.0, (c1 - c0) * 1000.0, len(records)))
            return out

    def get(*args, **kwargs):
        events = real_get(*args, **kwargs)
        now = time.perf_counter()
        if state["start"] is None:
            compiled = state["app"].compiled if "app" in state else None
            if from_start or (compiled is not None and compiled.tick is not None) or os.environ.get("BALLPIT_NUMPY"):
                state["start"], state["first"] = now, len(records)
                state["game_first"] = len(game["step"])
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
    # The game's tick: App._step (world.step, the lab's ghost, tick_outcome) and the
    # after_tick the main thread runs for it (sounds, trails, the goal), summed.
    k = state.get("game_first", len(game["step"]))
    whole = [(s[0] + a[0], s[1] + a[1]) for s, a in zip(game["step"][k:], game["after"][k:])]
    return records[state["first"]:], state["frames"], wall, whole


def headless_ticks(level_path, steps, every=0.0, skip=0):
    """Step the level as ``main.py --headless`` does, ``skip`` ticks untimed and then ``steps``
    timed (the same ticks as the window's: the world is the same to the bit); returns the
    records of each. ``every`` s > 0: one tick each ``every`` s of wall time (the window's
    cadence, 1/60 s), the thread sleeping between, instead of back to back."""
    from game.level import load
    from game.physics.world import World
    from game.goals import GoalTracker, goal_inside
    world = World.from_level(load(level_path))       # compiled, loaded before the first step
    for _ in range(skip):
        world.step()
    records, whole = [], []
    goal = GoalTracker.for_world(world)
    original = _timed_steps(World, records)
    try:
        due = time.perf_counter()
        for _ in range(steps):
            if every > 0:
                due += every
                time.sleep(max(0.0, due - time.perf_counter()))
            # main.py --headless's loop body (game.headless.simulate), timed whole
            c0, t0 = time.thread_time(), time.perf_counter()
            mark = world.crossing_mark()
            world.step()
            world.count_crossings(mark, TICK)
            world.blown_up()
            if goal.has_goal:
                goal.observe(world.time, goal_inside(world))
            t1, c1 = time.perf_counter(), time.thread_time()
            whole.append(((t1 - t0) * 1000.0, (c1 - c0) * 1000.0))
    finally:
        World.step = original
    return records, whole


def cadence_ticks(level_path, rounds=300, warm=120, size=(1280, 720)):
    """What a tick once a frame costs, by what ran between two ticks: one game.app.loop.App on
    SDL's display (its world, its drawing), its world's ticks timed (thread CPU ms) after each
    of: another tick (back to back), a 16.7 ms sleep, a 16.7 ms busy wait, the app's drawing
    and flip, the drawing then a sleep (the window's own cycle), a sleep then the drawing.
    The kinds take turns in a shuffled order each round, so the machine's drift falls on all
    alike. Returns {kind: [cpu ms]}."""
    import random
    import pygame
    from game.app.loop import App
    from game.level import load
    from game.physics.compiled import loader
    pygame.display.init()
    pygame.font.init()
    screen = pygame.display.set_mode(size)
    app = App(level_path, size=size, doc=load(level_path), compiled=loader.load())
    world = app.session.world
    for _ in range(warm):
        app.update(TICK)
        app.draw(screen)

    def busy(s):
        end = time.perf_counter() + s
        while time.perf_counter() < end:
            pass

    def draw():
        app.draw(screen)
        pygame.display.flip()
    kinds = {"back to back": lambda: None, "sleep 1/60 s": lambda: time.sleep(TICK),
             "busy wait 1/60 s": lambda: busy(TICK), "draw": draw,
             "draw, sleep (the window)": lambda: (draw(), time.sleep(TICK - 0.002)),
             "sleep, draw": lambda: (time.sleep(TICK - 0.002), draw())}
    out = {k: [] for k in kinds}
    order = list(kinds)
    rng = random.Random(1)
    for _ in range(rounds):
        rng.shuffle(order)
        for kind in order:
            kinds[kind]()
            c0 = time.thread_time()
            world.step(TICK)
            out[kind].append((time.thread_time() - c0) * 1000.0)
    pygame.quit()
    return out, int(world.count)


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
    p.add_argument("--serial", action="store_true",
                   help="BALLPIT_SERIAL=1: every tick on the main thread (no worker thread)")
    p.add_argument("--cadence", type=int, default=0, metavar="ROUNDS",
                   help="instead: the tick's CPU cost by what ran before it (a tick, a sleep, a busy wait, "
                        "the drawing), ROUNDS of each kind interleaved (needs --level)")
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    if a.cadence:
        return _cadence_main(a)
    with tempfile.TemporaryDirectory() as folder:
        level = a.level
        if level is None:
            from bench_frame import screen_box_level
            level = os.path.join(folder, f"box_{a.balls}.json")
            with open(level, "w") as f:
                json.dump(screen_box_level(a.balls), f)
        if a.serial:
            os.environ["BALLPIT_SERIAL"] = "1"
        win, frames, wall, game_whole = window_ticks(level, a.seconds, lab=a.lab, from_start=a.from_start)
        # The world's ticks (the lab's ghost steps beside it; its ticks are reported apart).
        world = win[0][6] if win else None
        ghost = [r for r in win if r[6] is not world]
        win = [r for r in win if r[6] is world]
        skip = int(round(win[0][5] / TICK)) if win else 0
        steps = max(1, len(win))
        head, head_whole = headless_ticks(level, steps, skip=skip)
        paced, paced_whole = headless_ticks(level, steps, every=TICK, skip=skip)
    phases = {name: summary([r for r in win if r[4] == name]) for name in ("numpy", "kernels", "tick")}
    w, h, hp = summary(win), summary(head), summary(paced)
    gw, hw, pw = (summary([(x[0], x[1], w.get("balls"), True) for x in rows])
                  for rows in (game_whole, head_whole, paced_whole))
    g = summary(ghost) if a.lab else None
    result = {"level": a.level or f"screen box, {a.balls} balls", "frames": frames,
              "fps": frames / wall if wall else None, "lab": a.lab, "serial": a.serial, "window": w,
              "window_phases": phases,
              "headless": h, "ratio_wall": w["wall_ms"] / h["wall_ms"], "ratio_cpu": w["cpu_ms"] / h["cpu_ms"],
              "headless_paced": hp, "ratio_paced_cpu": w["cpu_ms"] / hp["cpu_ms"], "ghost": g,
              "game_tick": gw, "headless_tick": hw, "headless_paced_tick": pw,
              "game_ratio_wall": gw["wall_ms"] / hw["wall_ms"], "game_ratio_cpu": gw["cpu_ms"] / hw["cpu_ms"],
              "first_tick": skip, "load": os.getloadavg()[0],
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
    print("  the whole tick: the game's (App._step with the lab and tick_outcome, + play.after_tick) against "
          "main.py --headless's loop body (step, crossings, blow-up test, goal)")
    for name, s in (("game", gw), ("headless", hw), ("paced", pw)):
        print(f"  {name:10s} {s['ticks']:5d} ticks: median {s['wall_ms']:.3f} ms wall (p90 {s['wall_p90_ms']:.3f}), "
              f"{s['cpu_ms']:.3f} ms CPU")
    print(f"  game / headless: {result['game_ratio_wall']:.2f} wall, {result['game_ratio_cpu']:.2f} CPU "
          f"(1-minute load average at the end {result['load']:.2f})")
    for line in machine_lines(result["machine"]):
        print("  " + line)
    return 0


def _cadence_main(a):
    if a.level is None:
        print("bench_window_tick.py: --cadence needs --level", file=sys.stderr)
        return 2
    out, balls = cadence_ticks(a.level, a.cadence)
    base = statistics.median(out["back to back"])
    result = {"level": a.level, "balls": balls, "rounds": a.cadence, "load": os.getloadavg()[0],
              "kinds": {k: {"cpu_ms": statistics.median(v), "p90_ms": sorted(v)[int(0.9 * (len(v) - 1))],
                            "ratio": statistics.median(v) / base} for k, v in out.items()},
              "machine": machine_info()}
    if a.json:
        print(json.dumps(result))
        return 0
    print(f"{a.level}: {balls} balls, {a.cadence} rounds; a tick's CPU ms by what ran before it "
          f"(1-minute load average {result['load']:.2f})")
    for kind, r in result["kinds"].items():
        print(f"  {kind:26s} median {r['cpu_ms']:.3f} (p90 {r['p90_ms']:.3f})  x{r['ratio']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
