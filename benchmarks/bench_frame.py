"""One rendered frame's cost, and the time from launch to the first frame (issue 5).

    python benchmarks/bench_frame.py                     # 1,000, 5,000 and 10,000 balls, 5 launches
    python benchmarks/bench_frame.py --sizes 1000 --frames 30 --warmup 10 --launches 2

Frame: the game's own path, ``game.app.loop.App`` on a 1280x720 display with SDL's dummy video
driver: ``app.update(1/60)`` (one world tick plus the app's bookkeeping: the "step" column),
then ``app.draw(screen)`` (the renderer's world and the HUD) and ``pygame.display.flip()``
(the "draw" column). Printed: the median ms of step, draw and the whole frame over the timed
frames, after untimed warm-up frames.

The scene ("screen box"): N balls of the game's default radius 0.25 m in a box with the
screen's 16:9 shape, sized so that the settled pile fills about half of it, the camera
fitted to the level as the game fits it. Balls start on a jittered 0.6 m grid and fall.

``--overlap``: also the game's loop on two cores (``game.app.loop.run``), on every frame of a
second app built from the same level, in a pass of its own (before or after the serial pass,
alternating from size to size): ``app.start_update(1/60)`` starts the frame's tick on a
worker thread, the frame before it is drawn and flipped meanwhile, ``app.finish_update()``
waits for the tick. "step" is the main thread's time in start_update and finish_update (the
wait for the tick beyond the drawing), "draw" the drawing and flip, and the frame their sum,
its wall time. (Until issue 26 the two kinds of frame alternated in one app; the tick's big
arrays then came from glibc's main arena one frame and a worker thread's arena the next, and
the memory went back to the kernel between them: at 20,000 balls ~8,000-11,000 minor page
faults a tick against ~100, and 54.7 ms of CPU a tick against 40.8 - the game's own loop, a
worker every frame, has ~140. So the alternation measured a cost the game does not have.
Since then the game runs its ticks on one long-lived thread, game.app.ticker.TickWorker:
the report counts the worker threads the pass's ticks ran on, 1.)

What was measured (issue 26): every tick ``app`` runs goes through ``App._step``; the benchmark
wraps it to note, per tick, the wall ms and the thread CPU ms of ``world.step`` (the thread
that ran it: main, or the worker under ``--overlap``), whether it ran as one compiled call
(``World.ticks_in_one_call``) and on which thread. The report prints the world's execution
(compiled or numpy), how many timed ticks were one-call ticks and how many ran on the worker,
sleeping on or off and the most balls asleep, the scene's touching pairs per ball at the end,
the 1-minute load average before and after, and the tick's CPU ms beside its wall ms: a wall
time well above the CPU time is the machine's other work (the process waited for a core), not
the tick's. ``--scene pit`` measures the same frames on ``ball_pit.py``'s pit (r 0.5 m, most
balls still falling in the first seconds) instead of the screen box (a settled pile).

Launch to first frame: ``python main.py --level levels/<first level>`` in a fresh process
(SDL dummy drivers), with ``pygame.display.flip`` wrapped so that the first flip reports
the wall-clock time and exits the process: measured from just before the process is
started (interpreter start-up included) to the end of the first flip. Median of several
launches.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import threading
import time

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")     # no screen needed
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import numpy as np  # noqa: E402

import common  # noqa: E402
from common import ROOT, TICK, machine_info, machine_lines, median, parse_sizes, summary_ms, table  # noqa: E402

DEFAULT_SIZES = (1000, 5000, 10000)
SIZE = (1280, 720)
RADIUS = 0.25        # m: the game's default ball radius
SPACING = 0.6        # m: spawn grid pitch
FILL = 0.5           # fraction of the box the settled pile covers (about)
PACKING = 0.85       # area fraction of a pile of equal discs (about)


def screen_box_level(n, seed=common.SEED):
    """N balls of radius 0.25 m in a 16:9 box (thin walls) that they half fill when settled."""
    area = n * math.pi * RADIUS ** 2 / PACKING / FILL
    w = math.sqrt(area * 16 / 9)
    h = w * 9 / 16
    columns = max(1, int((w - 2 * (RADIUS + 0.1)) // SPACING) + 1)
    x0 = (w - (columns - 1) * SPACING) / 2
    k = np.arange(n)
    pos = np.stack((x0 + (k % columns) * SPACING, RADIUS + 0.15 + (k // columns) * SPACING), axis=1)
    pos += np.random.default_rng(seed).uniform(-0.05, 0.05, size=pos.shape)
    if n and pos[:, 1].max() + RADIUS > h:
        raise ValueError(f"{n} balls do not fit the box")
    return {
        "name": f"Frame benchmark, {n} balls",
        "bounds": [0.0, 0.0, w, h],
        "gravity": [0.0, -9.81],
        "polylines": [{"points": [[0, h], [0, 0], [w, 0], [w, h]]}],
        "balls": [{"pos": [float(x), float(y)], "radius": RADIUS} for x, y in pos],
    }


def pit_doc(n):
    """ball_pit.py's pit as a level document (common.pit_scene, common.pit_level)."""
    doc = common.pit_level(common.pit_scene(n))
    doc["name"] = f"Frame benchmark on the ball pit, {n} balls"
    return doc


SCENES = {"box": screen_box_level, "pit": pit_doc}


def touching_per_ball(world, slack=0.02):
    """Ball pairs touching or overlapping (centres within (1 + slack) (r_i + r_j)) per ball."""
    if world.count == 0:
        return 0.0
    i, _, _ = common.overlapping_pairs(world.pos, np.asarray(world.radius, float) * (1.0 + slack))
    return len(i) / world.count


class TickLog:
    """Wraps ``app._step`` (every tick the app runs, on whichever thread): per tick the wall
    and thread-CPU ms of world.step and the app's bookkeeping, whether it was one compiled call,
    whether it ran on the main thread."""

    def __init__(self, app):
        self.ticks = []
        self._step = app._step
        app._step = self

    def __call__(self, world):
        one_call = bool(world.ticks_in_one_call())
        main = threading.current_thread() is threading.main_thread()
        f0 = _thread_faults()
        c0, w0 = time.thread_time(), time.perf_counter()
        out = self._step(world)
        wall, cpu = (time.perf_counter() - w0) * 1000.0, (time.thread_time() - c0) * 1000.0
        f1 = _thread_faults()
        self.ticks.append((wall, cpu, one_call, main, None if f0 is None else f1 - f0, threading.get_ident()))
        return out


def _thread_faults():
    """This thread's minor page faults so far (memory the kernel had to map afresh), or None."""
    try:
        import resource
        return resource.getrusage(resource.RUSAGE_THREAD).ru_minflt
    except (ImportError, AttributeError, OSError):
        return None


def _median_or_none(values):
    values = [v for v in values if v is not None]
    return float(np.median(values)) if values else None


def _load():
    try:
        return float(os.getloadavg()[0])
    except (AttributeError, OSError):
        return None


def _run_frames(app, screen, frames, warmup, overlapped=False, compare=False):
    """``warmup`` + ``frames`` frames of ``app``: serial (app.update, then draw and flip) or,
    ``overlapped``, the game's two-core loop on every frame (app.start_update, draw and flip,
    app.finish_update). Returns the timed frames' lists and what their ticks measured."""
    import pygame
    log = TickLog(app)
    clock = time.perf_counter
    out = {"step": [], "draw": [], "total": [], "blit": [], "ticks": 0, "apart": 0, "asleep_max": 0,
           "load_before": _load()}
    timed_from = 0
    for k in range(int(warmup) + int(frames)):
        if k == warmup:
            timed_from = len(log.ticks)
        if overlapped:
            t0 = clock()
            app.start_update(TICK)
            t1 = clock()
            apart = app.ticking_apart()
            app.draw(screen)
            pygame.display.flip()
            t2 = clock()
            ran = app.finish_update()
            t3 = clock()
            step, draw, total = t1 - t0 + t3 - t2, t2 - t1, t3 - t0
        else:
            apart = False
            t0 = clock()
            ran = app.update(TICK)
            t1 = clock()
            if compare and k % 2:
                out["blit"].append(_blit_draw_ms(app, screen))
            t2 = clock()
            app.draw(screen)
            pygame.display.flip()
            t3 = clock()
            if compare and not k % 2:
                out["blit"].append(_blit_draw_ms(app, screen))
            step, draw, total = t1 - t0, t3 - t2, t1 - t0 + t3 - t2
        if k >= warmup:
            out["asleep_max"] = max(out["asleep_max"], int(app.session.world.sleeping.sum()))
            out["ticks"] += ran
            out["apart"] += bool(apart)
            out["step"].append(step * 1000.0)
            out["draw"].append(draw * 1000.0)
            out["total"].append(total * 1000.0)
    pygame.event.pump()
    out["load_after"] = _load()
    out["log"] = log.ticks[timed_from:]
    return out


def _tick_summary(ticks):
    return {"wall": summary_ms([t[0] for t in ticks]), "cpu": summary_ms([t[1] for t in ticks]),
            "faults": _median_or_none([t[4] for t in ticks]), "count": len(ticks),
            "one_call": sum(t[2] for t in ticks), "on_worker": sum(not t[3] for t in ticks),
            "worker_threads": len({t[5] for t in ticks if not t[3]})}


def frame_costs(sizes, frames=120, warmup=60, compare=False, overlap=False, scene="box", level=None, plot=False):
    """Per size: median ms of step (app.update), draw (app.draw + flip) and the whole frame;
    overlap: also the game's two-core loop on every frame of a second app from the same level
    (see the module's note), the two passes' order alternating from size to size.
    compare: every frame is also drawn with the balls blitted (the compiled stamper set
    aside), the two draws in alternating order, timed apart ("draw_blit"): a side-by-side
    measure that a busy machine disturbs alike. level: a level file measured as it is
    instead (one row, N its balls; ``sizes`` and ``scene`` unused)."""
    import pygame
    from game.app import loop as app_module
    from game.app.loop import App
    from game.level import complete, load_document
    if level is not None:
        sizes = [None]
    if overlap:
        app_module.OVERLAP_MIN_TICK_MS = 0.0     # the two-core frame at every size, measured
    pygame.display.init()
    pygame.font.init()
    screen = pygame.display.set_mode(SIZE)
    rows = []
    try:
        from game.physics.compiled import loader
        from game.draw import sprites as render_kernels
        compiled = loader.load()     # the compiled kernels, as the game has them once loaded
        render_kernels.load()    # and the compiled ball stamper (BALLPIT_BLIT=1: the blits)
        with tempfile.TemporaryDirectory() as folder:
            for index, n in enumerate(sizes):
                doc = SCENES[scene](n) if level is None else load_document(level)[0]
                n = len(doc.get("balls", [])) if level is not None else n
                path = os.path.join(folder, f"frame_{n}.json")
                with open(path, "w") as f:
                    json.dump(doc, f)
                passes = [False, True] if overlap else [False]
                if index % 2:
                    passes.reverse()
                got = {}
                for overlapped in passes:
                    app = App(path, size=SIZE, doc=complete(doc), compiled=compiled)
                    if plot:                # the energy plot shown (E), as a player watching it has it
                        app.play.set_energy_shown(True)
                    got[overlapped] = (app, _run_frames(app, screen, frames, warmup, overlapped, compare))
                app, serial = got[False]
                world = app.session.world
                ticks = _tick_summary(serial["log"])
                path_info = {"execution": world.execution,
                             "one_call_ticks": ticks["one_call"], "ticks": ticks["count"], "worker_ticks": 0,
                             "sleeping": bool(world.solver.options.sleeping), "asleep_max": serial["asleep_max"],
                             "substeps": int(world.substeps), "integrator": world.integrator,
                             "touching_per_ball": touching_per_ball(world)}
                row = {"n": n, "scene": scene if level is None else os.path.relpath(level, ROOT), "path": path_info,
                       "load": [serial["load_before"], serial["load_after"]],
                       "tick_wall": ticks["wall"], "tick_cpu": ticks["cpu"], "tick_faults": ticks["faults"],
                       "balls_at_end": app.world.count, "ticks_per_frame": serial["ticks"] / max(1, frames),
                       "scale_px_per_m": float(app.camera.scale),
                       "ball_radius_px": float((RADIUS if level is None or world.count == 0
                                                else np.mean(world.radius)) * app.camera.scale),
                       "step": summary_ms(serial["step"]), "draw": summary_ms(serial["draw"]),
                       "total": summary_ms(serial["total"]),
                       "draw_blit": summary_ms(serial["blit"]) if compare else None,
                       "stamper": render_kernels.stamp is not None, "overlap": None}
                if overlap:
                    _, over = got[True]
                    apart = _tick_summary(over["log"])
                    row["overlap"] = {"step": summary_ms(over["step"]), "draw": summary_ms(over["draw"]),
                                      "total": summary_ms(over["total"]), "frames_apart": over["apart"],
                                      "ticks": apart, "load": [over["load_before"], over["load_after"]]}
                rows.append(row)
    finally:
        pygame.display.quit()
    return rows


def second_core(work=5_000_000):
    """How much a second thread adds now: the throughput of two threads each running a
    compiled nogil loop, over one thread's (2.0: a free core; 1.0: the machine's other load
    takes it, and --overlap can gain nothing). Median of three tries."""
    import threading

    from numba import njit

    @njit(nogil=True)
    def spin(n):
        s = 0.0
        for i in range(n):
            s += (i * 1.0 + s) ** 0.5
        return s

    spin(10)
    ratios = []
    for _ in range(3):
        t0 = time.perf_counter()
        spin(work)
        one = time.perf_counter() - t0
        threads = [threading.Thread(target=spin, args=(work,)) for _ in range(2)]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        ratios.append(2.0 * one / (time.perf_counter() - t0))
    return median(ratios)


def _blit_draw_ms(app, screen):
    """ms of one app.draw + flip with the balls blitted (the compiled stamper set aside)."""
    import pygame
    from game.draw import sprites as render_kernels
    stamp, render_kernels.stamp = render_kernels.stamp, None
    try:
        t0 = time.perf_counter()
        app.draw(screen)
        pygame.display.flip()
        return (time.perf_counter() - t0) * 1000.0
    finally:
        render_kernels.stamp = stamp


# The child: time.time() at its first line, main.py run as ``python main.py --level LEVEL``,
# the first pygame.display.flip() prints the times and ends the process.
_CHILD = r"""
import time
_T0 = time.time()
import json, os, runpy, sys
import pygame
_flip = pygame.display.flip
def _first_flip(*args):
    _flip(*args)
    now = time.time()
    sys.stdout.write("FIRST_FRAME " + json.dumps({"wall": now, "in_process_s": now - _T0}) + "\n")
    sys.stdout.flush()
    os._exit(0)
pygame.display.flip = _first_flip
sys.argv = ["main.py", "--level", sys.argv[1]]
sys.path.insert(0, os.getcwd())
runpy.run_path("main.py", run_name="__main__")
sys.stdout.write("NO_FRAME\n")
"""


def first_level():
    from game.level import level_files
    files = level_files(os.path.join(ROOT, "levels"))
    if not files:
        raise RuntimeError("no levels in levels/")
    return files[0]


def launch_times(launches=5, level=None, timeout=60.0):
    """Seconds from starting ``python main.py --level LEVEL`` to the end of its first frame."""
    level = level or first_level()
    env = dict(os.environ)
    env.setdefault("SDL_VIDEODRIVER", "dummy")
    env.setdefault("SDL_AUDIODRIVER", "dummy")
    env.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    out = []
    for _ in range(int(launches)):
        start = time.time()
        proc = subprocess.run([sys.executable, "-c", _CHILD, level], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=timeout)
        line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("FIRST_FRAME ")), None)
        if line is None:
            raise RuntimeError(f"main.py drew no frame (exit {proc.returncode}): "
                               f"{(proc.stderr or proc.stdout).strip().splitlines()[-1:]}")
        got = json.loads(line[len("FIRST_FRAME "):])
        out.append({"launch_to_first_frame_s": got["wall"] - start, "in_process_s": got["in_process_s"]})
    return {"level": os.path.relpath(level, ROOT), "launches": out,
            "median_s": median([o["launch_to_first_frame_s"] for o in out]),
            "median_in_process_s": median([o["in_process_s"] for o in out])}


def report(data):
    scene = data.get("scene", "box")
    lines = [f"One frame at {SIZE[0]}x{SIZE[1]} (SDL dummy video): step = app.update(1/60), "
             f"draw = app.draw + display.flip;",
             f"{data['frames']} timed frames after {data['warmup']} warm-up frames, medians in ms; "
             + (f"scene: the level {scene} as it is" if scene not in SCENES else
                f"scene: balls of r {RADIUS} m half filling a 16:9 box fitted to the screen (a settled pile)"
                if scene == "box" else "scene: ball_pit.py's pit (r 0.5 m, six obstacles; balls mostly falling)"), ""]
    if data["frames_results"]:
        compare = any(r.get("draw_blit") for r in data["frames_results"])
        head = ["N", "step ms", "draw ms", "frame ms", "frame p90 ms", "ball radius px", "ticks/frame"]
        rows = [[f"{r['n']:,}", f"{r['step']['median']:.2f}", f"{r['draw']['median']:.2f}",
                 f"{r['total']['median']:.2f}", f"{r['total']['p90']:.2f}",
                 f"{r['ball_radius_px']:.1f}", f"{r['ticks_per_frame']:.2f}"] for r in data["frames_results"]]
        if compare:
            head.insert(3, "draw ms, blits")
            for row, r in zip(rows, data["frames_results"]):
                row.insert(3, f"{r['draw_blit']['median']:.2f}")
        lines.append(table(head, rows, "r" * len(head)))
        stamper = all(r.get("stamper") for r in data["frames_results"])
        lines.append("balls drawn by " + ("the compiled stamper" if stamper else "fblits")
                     + ("; 'draw ms, blits': the same frames drawn with fblits, interleaved" if compare else ""))
        over = [r for r in data["frames_results"] if r.get("overlap")]
        if over:
            lines += ["", f"second core: two compiled threads ran x{data['second_core']:.2f} the work of one "
                          "(2: a free core; 1: other programs hold it)"]
            lines += ["--overlap: a second app from the same level, every frame the game's two-core loop "
                      "(app.start_update: the tick on a worker thread while the frame before it is drawn; "
                      "app.finish_update), the same frames as above in a pass of its own; step = the main thread's "
                      "time outside the drawing (mostly the wait for the tick); frame = wall time"]
            head = ["N", "step ms", "draw ms", "frame ms", "frame p90 ms", "frame ms, serial", "p90, serial",
                    "ticks apart"]
            lines.append(table(head, [[f"{r['n']:,}", f"{r['overlap']['step']['median']:.2f}",
                                       f"{r['overlap']['draw']['median']:.2f}", f"{r['overlap']['total']['median']:.2f}",
                                       f"{r['overlap']['total']['p90']:.2f}", f"{r['total']['median']:.2f}",
                                       f"{r['total']['p90']:.2f}", f"{r['overlap']['frames_apart']}"]
                                      for r in over], "r" * len(head)))
        lines.append("(a smooth 60 FPS needs the frame under 16.7 ms)")
        lines += [""] + path_lines(data["frames_results"])
    if data.get("launch"):
        lnc = data["launch"]
        each = ", ".join(f"{o['launch_to_first_frame_s']:.2f}" for o in lnc["launches"])
        lines += ["", f"launch to first frame (python main.py --level {lnc['level']}): median "
                      f"{lnc['median_s']:.2f} s over {len(lnc['launches'])} launches ({each} s); "
                      f"of which after the interpreter started: {lnc['median_in_process_s']:.2f} s"]
    lines.append("")
    lines += machine_lines(data["machine"])
    return "\n".join(lines)


def path_lines(rows):
    """What each size measured: the execution and path of its ticks, sleep, the scene's
    contacts, the tick's wall against CPU ms, the load average."""
    head = ["N", "execution", "one-call ticks", "sleeping (most asleep)", "touching/ball",
            "tick wall ms", "tick CPU ms", "wall/CPU", "page faults/tick", "load before-after"]
    body = []
    for r in rows:
        p = r["path"]
        wall, cpu = r["tick_wall"]["median"], r["tick_cpu"]["median"]
        load = r.get("load") or [None, None]
        body.append([f"{r['n']:,}", str(p["execution"]), f"{p['one_call_ticks']}/{p['ticks']}",
                     ("on" if p["sleeping"] else "off") + f" ({p['asleep_max']})",
                     f"{p['touching_per_ball']:.2f}", f"{wall:.2f}", f"{cpu:.2f}",
                     f"{wall / cpu:.2f}" if cpu > 0 else "-",
                     "-" if r.get("tick_faults") is None else f"{r['tick_faults']:.0f}",
                     "-" if load[0] is None else f"{load[0]:.1f}-{load[1]:.1f}"])
    lines = ["measured: the serial frames' ticks (world.step inside app.update, on the main thread): their wall ms and "
             "this thread's CPU ms (a wall/CPU well above 1: the process waited for a core)",
             table(head, body, "r" * len(head))]
    over = [r for r in rows if r.get("overlap")]
    if over:
        lines.append("--overlap's pass, its ticks (on the worker / of all; worker threads), wall / CPU ms (page faults a tick): "
                     + ", ".join(
            f"{r['n']:,}: {r['overlap']['ticks']['on_worker']}/{r['overlap']['ticks']['count']} "
            f"({r['overlap']['ticks']['worker_threads']} thread{'s' * (r['overlap']['ticks']['worker_threads'] != 1)}), "
            f"{r['overlap']['ticks']['wall']['median']:.2f} / {r['overlap']['ticks']['cpu']['median']:.2f}"
            + ("" if r["overlap"]["ticks"]["faults"] is None else f" ({r['overlap']['ticks']['faults']:.0f})")
            for r in over))
    return lines


def main(argv=None):
    p = argparse.ArgumentParser(description="Frame cost (step + drawing) and launch to first frame.")
    p.add_argument("--sizes", type=parse_sizes, default=DEFAULT_SIZES, metavar="N[,N...]",
                   help="ball counts (default 1000,5000,10000)")
    p.add_argument("--frames", type=int, default=120, help="timed frames per size (default 120)")
    p.add_argument("--warmup", type=int, default=60, help="untimed frames before timing (default 60)")
    p.add_argument("--launches", type=int, default=5, help="launches of main.py to time (default 5; 0 = skip)")
    p.add_argument("--compare", action="store_true",
                   help="also draw every frame with the balls blitted, interleaved (stamper vs fblits)")
    p.add_argument("--overlap", action="store_true",
                   help="the game's two-core loop: each tick on a worker thread while the frame before it is drawn")
    p.add_argument("--scene", choices=tuple(SCENES), default="box",
                   help="box: the screen box (a settled pile, default); pit: ball_pit.py's pit (balls mostly falling)")
    p.add_argument("--level", metavar="FILE", help="measure this level file as it is (N: its balls) "
                                                   "instead of --scene at --sizes")
    p.add_argument("--plot", action="store_true", help="with the energy plot shown (E) in every frame")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the tables")
    args = p.parse_args(argv)
    if args.level is not None and not os.path.isfile(args.level):
        p.error(f"--level: no such file: {args.level}")
    if args.overlap and args.compare:
        p.error("--overlap and --compare do not go together")
    if args.frames < 1 or args.warmup < 0 or args.launches < 0:
        p.error("--frames must be at least 1, --warmup and --launches at least 0")
    import pygame
    info = machine_info()
    info["pygame"] = pygame.version.ver
    data = {"benchmark": "bench_frame", "size": list(SIZE), "frames": args.frames, "warmup": args.warmup,
            "scene": args.scene if args.level is None else os.path.relpath(args.level, ROOT), "machine": info,
            "frames_results": frame_costs(args.sizes, args.frames, args.warmup, args.compare, args.overlap, args.scene,
                                          args.level, args.plot)}
    if args.overlap:
        data["second_core"] = second_core()
    data["launch"] = launch_times(args.launches) if args.launches else None
    print(common.dump_json(data) if args.json else report(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
