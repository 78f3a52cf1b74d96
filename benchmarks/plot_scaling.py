"""ms per tick against N, this engine, pymunk and Box2D v3, drawn as a log-log PNG with pygame
(issues 13 and 26).

    python benchmarks/plot_scaling.py                        # the ball pit: the three engines at 1k-20k,
                                                             # this engine alone at 50k and 100k
    python benchmarks/plot_scaling.py --scene pile           # a resting pile: contacts from tick one
    python benchmarks/plot_scaling.py --sizes 100,200 --ours-sizes 400 --ticks 5 --warmup 2 --out /tmp/s.png
    python benchmarks/plot_scaling.py --from-json run.json --out docs/scaling.png   # redraw a saved run

Scenes (both from ``common``; the box, obstacles, materials and pymunk set-up are those of
``ball_pit.py``):

- ``pit``: ``common.pit_scene``, the ball pit of issue 5: N balls falling from a jittered grid.
  At large N the balls start high above the floor (the box is 2 W tall, W = 20 sqrt(N/100) m),
  so in the first seconds most of them fall freely; the per-ball work differs from size to size.
- ``pile``: ``common.pile_scene``, the same box with the N balls packed touching on the floor
  (a square grid of pitch one diameter, a quarter of the box deep): every ball has contacts
  from the first tick at every N, so the time per ball is comparable across sizes. This is
  the scene for the scaling exponent.

Timing is ``ball_pit.run_ours`` / ``run_pymunk`` / ``run_box2d`` (Box2D v3 through pyb2d3, one
thread, 4 sub-steps; left out, and the report says so, where pyb2d3 does not import): warm-up
ticks untimed, then each timed tick with ``time.perf_counter``; the figure per size is the
median of the repeats' medians, the spread the 10th and 90th percentiles of all timed ticks
(the bars on the plot). The engines alternate their order from run to run. The exponent is the least-squares
slope of log ms against log N (``common.scaling_exponent``).

Memory (``--memory``, this engine): for each of its sizes a fresh child process loads the
kernels, builds the world and steps it ``--memory-ticks`` ticks; it reports its peak resident
set while it built and stepped (Linux: VmHWM after a reset by ``/proc/self/clear_refs`` once
the kernels are loaded; elsewhere ``getrusage`` ru_maxrss) and that peak less the resident
set before the world was built (interpreter, numpy, numba and the kernels).

The PNG: log-log axes with labelled ticks, one curve per engine with the spread as bars,
the frame budget (1/60 s = 16.7 ms) as a dashed line, a legend, and the machine, commit and
command in the footer. Drawn with pygame on an offscreen surface (no window, no matplotlib).
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import numpy as np  # noqa: E402

import common  # noqa: E402
from common import ROOT, TICK, machine_info, parse_sizes, scaling_exponent, summary_ms  # noqa: E402

DEFAULT_SIZES = (1000, 2000, 5000, 10000, 20000)      # both engines
DEFAULT_OURS_SIZES = (50000, 100000)                  # this engine alone (pymunk takes seconds a tick)
DEFAULT_OUT = os.path.join(ROOT, "docs", "scaling.png")
FRAME_BUDGET_MS = 1000.0 / 60.0                       # ms: one frame at 60 FPS
SCENES = {"pit": common.pit_scene, "pile": common.pile_scene}

# The picture (pixels).
IMAGE_SIZE = (1100, 720)
MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM = 95, 30, 64, 110
BACKGROUND = (255, 255, 255)
INK = (30, 30, 30)
GRID = (225, 225, 225)
BUDGET = (200, 40, 40)
COLOURS = {"ours": (31, 100, 200), "pymunk": (230, 120, 20), "box2d": (40, 150, 70)}
LABELS = {"ours": "Ballpit", "pymunk": "pymunk", "box2d": "Box2D v3"}
PEERS = ("pymunk", "box2d")
FONT = os.path.join(ROOT, "assets", "DejaVuSans.ttf")
FONT_BOLD = os.path.join(ROOT, "assets", "DejaVuSans-Bold.ttf")


# ---------------------------------------------------------------------------- measuring
def measure(scene_name, sizes, ours_sizes, ticks, warmup, repeats, progress=None, clock="wall"):
    """Time the engines at ``sizes`` and this engine alone at ``ours_sizes``; a dict (--json)."""
    import ball_pit
    machine = machine_info()        # before timing: the engine source measured, not the one at the end
    make = SCENES[scene_name]
    missing = ball_pit.box2d_missing()
    peers = ("pymunk",) if missing else PEERS
    rows = []
    flip = 0
    for n in sorted(set(sizes) | set(ours_sizes)):
        engines = ("ours",) + peers if n in sizes else ("ours",)
        scene = make(n)
        runs = {e: [] for e in engines}
        for r in range(repeats):
            order = engines if flip % 2 == 0 else tuple(reversed(engines))
            flip += 1
            for engine in order:
                t0 = time.perf_counter()
                run = {"ours": ball_pit.run_ours, "pymunk": ball_pit.run_pymunk, "box2d": ball_pit.run_box2d}[engine]
                out = run(scene, ticks, warmup, clock=clock)
                runs[engine].append(out)
                if progress:
                    progress(f"{scene_name} N={n:>6} {engine:<6} run {r + 1}/{repeats}: median "
                             f"{np.median(out['ms']):.2f} ms/tick ({time.perf_counter() - t0:.1f} s)")
        row = {"n": n}
        for engine, outs in runs.items():
            medians = [float(np.median(o["ms"])) for o in outs]
            q = outs[-1]["quality"]
            row[engine] = {"ms_per_tick": float(np.median(medians)), "run_medians": medians,
                           "ms": summary_ms(np.concatenate([o["ms"] for o in outs])),
                           "escaped": q["escaped"], "overlap_mean": q["overlap_mean"], "finite": q["finite"]}
        if "pymunk" in row:
            row["ratio"] = row["ours"]["ms_per_tick"] / row["pymunk"]["ms_per_tick"]
        if "box2d" in row:
            row["ratio_box2d"] = row["ours"]["ms_per_tick"] / row["box2d"]["ms_per_tick"]
        rows.append(row)
    return {"benchmark": "plot_scaling", "scene": scene_name, "clock": clock, "ticks": ticks, "warmup": warmup,
            "repeats": repeats, "tick_s": TICK, "machine": machine, "results": rows,
            "scaling_exponent": exponents(rows), "missing": missing}


def exponents(rows):
    """Least-squares log-log slopes: this engine over all its sizes and over pymunk's, the peers'."""
    def fit(engine, keep=lambda row: True):
        pts = [(r["n"], r[engine]["ms_per_tick"]) for r in rows if engine in r and keep(r)]
        return scaling_exponent([p[0] for p in pts], [p[1] for p in pts]) if pts else float("nan")
    return {"ours": fit("ours"), "ours_on_pymunk_sizes": fit("ours", lambda r: "pymunk" in r),
            "pymunk": fit("pymunk"), "box2d": fit("box2d")}


def _status_kib(field):
    """A "VmRSS"/"VmHWM" line of /proc/self/status in KiB, or None where there is none."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def memory_child(scene_name, n, ticks):
    """In this (child) process: the resident set before the world, and its peak while the
    world is built and stepped; a dict. On Linux the peak is reset once the kernels are loaded
    (``/proc/self/clear_refs``), so compiling them (on a cold cache) does not count."""
    import resource
    from game.physics.compiled import loader as accel
    accel.load()
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")                    # reset the peak resident set to the current one
        reset = True
    except OSError:
        reset = False
    before = _status_kib("VmRSS") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    world, _ = common.build_world(SCENES[scene_name](n))
    for _ in range(ticks):
        world.step(TICK)
    peak = (_status_kib("VmHWM") if reset else None) or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    finite = bool(np.isfinite(world.pos).all() and np.isfinite(world.vel).all())
    return {"n": n, "ticks": ticks, "rss_before_mib": before / 1024, "peak_rss_mib": peak / 1024,
            "world_mib": (peak - before) / 1024, "finite": finite, "peak_reset": reset}


def measure_memory(scene_name, sizes, ticks, progress=None):
    out = []
    for n in sizes:
        proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--memory-child", str(n),
                               "--scene", scene_name, "--memory-ticks", str(ticks)],
                              cwd=ROOT, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"memory at N={n}: {proc.stderr.strip().splitlines()[-1:]}")
        out.append(json.loads(proc.stdout))
        if progress:
            progress(f"memory N={n}: peak {out[-1]['peak_rss_mib']:.0f} MiB, world {out[-1]['world_mib']:.0f} MiB")
    return out


# ---------------------------------------------------------------------------- drawing
def _log_ticks(lo, hi, steps=(1, 2, 5)):
    """1-2-5 values from lo to hi (inclusive), for labelled ticks on a log axis."""
    out = []
    for e in range(int(math.floor(math.log10(lo))) - 1, int(math.ceil(math.log10(hi))) + 1):
        for s in steps:
            v = s * 10.0 ** e
            if lo * (1 - 1e-9) <= v <= hi * (1 + 1e-9):
                out.append(v)
    return out


def _label_n(v):
    return f"{v / 1000:g}k" if v >= 1000 else f"{v:g}"


def _label_ms(v):
    return f"{v:g}"


def plot(data, out_path, command=None):
    """Draw ``data`` (what ``measure`` returns) as a PNG at ``out_path``; returns the path."""
    import pygame
    pygame.font.init()
    font = pygame.font.Font(FONT, 15)
    small = pygame.font.Font(FONT, 12)
    title_font = pygame.font.Font(FONT_BOLD, 18)
    surface = pygame.Surface(IMAGE_SIZE)
    surface.fill(BACKGROUND)
    rows = data["results"]
    engines = [e for e in ("ours",) + PEERS if any(e in r for r in rows)]

    ns = [r["n"] for r in rows]
    values = [FRAME_BUDGET_MS]
    for r in rows:
        for e in engines:
            if e in r:
                values += [r[e]["ms_per_tick"], r[e]["ms"]["p10"], r[e]["ms"]["p90"]]
    values = [v for v in values if v and math.isfinite(v) and v > 0]
    x_lo, x_hi = min(ns) / 1.25, max(ns) * 1.25
    y_lo, y_hi = min(values) / 1.5, max(values) * 1.5

    left, top = MARGIN_LEFT, MARGIN_TOP
    width = IMAGE_SIZE[0] - MARGIN_LEFT - MARGIN_RIGHT
    height = IMAGE_SIZE[1] - MARGIN_TOP - MARGIN_BOTTOM

    def to_px(n, ms):   # log-log: a decade is the same length everywhere on an axis
        fx = (math.log(n) - math.log(x_lo)) / (math.log(x_hi) - math.log(x_lo))
        fy = (math.log(ms) - math.log(y_lo)) / (math.log(y_hi) - math.log(y_lo))
        return round(left + fx * width), round(top + (1.0 - fy) * height)

    # Grid and labelled ticks.
    for v in _log_ticks(x_lo, x_hi, (1, 2, 5)):
        x, _ = to_px(v, y_lo)
        pygame.draw.line(surface, GRID, (x, top), (x, top + height))
        pygame.draw.line(surface, INK, (x, top + height), (x, top + height + 6))
        text = font.render(_label_n(v), True, INK)
        surface.blit(text, (x - text.get_width() // 2, top + height + 9))
    for v in _log_ticks(y_lo, y_hi, (1, 2, 5)):
        _, y = to_px(x_lo, v)
        pygame.draw.line(surface, GRID, (left, y), (left + width, y))
        pygame.draw.line(surface, INK, (left - 6, y), (left, y))
        text = font.render(_label_ms(v), True, INK)
        surface.blit(text, (left - 10 - text.get_width(), y - text.get_height() // 2))
    pygame.draw.rect(surface, INK, (left, top, width + 1, height + 1), 1)
    xlabel = font.render("balls N (log scale)", True, INK)
    surface.blit(xlabel, (left + width // 2 - xlabel.get_width() // 2, top + height + 30))
    ylabel = pygame.transform.rotate(font.render("ms per tick (log scale)", True, INK), 90)
    surface.blit(ylabel, (12, top + height // 2 - ylabel.get_height() // 2))

    # The frame budget.
    _, yb = to_px(x_lo, FRAME_BUDGET_MS)
    for x in range(left, left + width, 14):
        pygame.draw.line(surface, BUDGET, (x, yb), (min(x + 8, left + width), yb), 2)
    budget = small.render(f"frame budget {FRAME_BUDGET_MS:.1f} ms (60 FPS)", True, BUDGET)
    surface.blit(budget, (left + width - budget.get_width() - 6, yb - budget.get_height() - 3))

    # The curves: median per size, a bar from the 10th to the 90th percentile tick.
    for e in engines:
        pts = [(r["n"], r[e]) for r in rows if e in r]
        colour = COLOURS[e]
        xy = [to_px(n, m["ms_per_tick"]) for n, m in pts]
        if len(xy) > 1:
            pygame.draw.aalines(surface, colour, False, xy)
            pygame.draw.lines(surface, colour, False, xy, 3)
        for (n, m), (x, y) in zip(pts, xy):
            _, y10 = to_px(n, max(m["ms"]["p10"], y_lo))
            _, y90 = to_px(n, min(m["ms"]["p90"], y_hi))
            pygame.draw.line(surface, colour, (x, y10), (x, y90), 2)
            pygame.draw.line(surface, colour, (x - 5, y10), (x + 5, y10), 2)
            pygame.draw.line(surface, colour, (x - 5, y90), (x + 5, y90), 2)
            pygame.draw.circle(surface, colour, (x, y), 6)
            pygame.draw.circle(surface, BACKGROUND, (x, y), 3)

    # The legend, top left inside the axes.
    slopes = data.get("scaling_exponent", {})
    only = [r["n"] for r in rows if "ours" in r and "pymunk" not in r]
    entries = []
    for e in engines:
        text = f"{LABELS[e]}: median ms per tick, bars 10th-90th percentile; N^{slopes.get(e, float('nan')):.2f}"
        entries.append((COLOURS[e], text))
    entries.append((BUDGET, "frame budget, 16.7 ms"))
    box_w = max(font.size(t)[0] for _, t in entries) + 50
    box_h = 24 * len(entries) + 8 + (18 if only else 0)
    # Bottom right: the curves rise from bottom left to top right, the budget runs along the top.
    lx, ly = left + width - box_w - 8, top + height - box_h - 8
    pygame.draw.rect(surface, BACKGROUND, (lx - 6, ly - 6, box_w, box_h))
    pygame.draw.rect(surface, GRID, (lx - 6, ly - 6, box_w, box_h), 1)
    for colour, text in entries:
        pygame.draw.line(surface, colour, (lx, ly + 9), (lx + 28, ly + 9), 3)
        surface.blit(font.render(text, True, INK), (lx + 38, ly))
        ly += 24
    if only:
        note = "peers not run at " + ", ".join(_label_n(n) for n in only) + " (Ballpit alone there)"
        surface.blit(small.render(note, True, INK), (lx + 38, ly))

    # Title and footer.
    scene = {"pit": "ball pit (balls fall from a grid)", "pile": "resting pile (packed balls, contacts from tick one)"}
    names = [LABELS[e] for e in engines]
    title = (f"ms per tick against N: {', '.join(names[:-1])} and {names[-1]}, "
             f"{scene.get(data['scene'], data['scene'])}")
    surface.blit(title_font.render(title, True, INK), (left, 10))
    clock = {"wall": "wall-clock time", "cpu": "process CPU time (a shared machine)"}[data.get("clock", "wall")]
    subtitle = (f"{data['ticks']} timed ticks of 1/60 s after {data['warmup']} warm-up ticks, {clock}; "
                f"median of {data['repeats']} run(s) per size")
    surface.blit(font.render(subtitle, True, INK), (left, 34))
    m = data["machine"]
    src = m.get("source") or {}
    footer = [f"{m['cpu']}, {m['cpu_count']} CPUs, {m['platform']}, Python {m['python']}, numpy {m['numpy']}"
              + (f", pymunk {m['pymunk']}" if "pymunk" in m else "") + (f", pyb2d3 {m['pyb2d3']}" if "pyb2d3" in m else ""),
              f"commit {src.get('commit') or '?'}" + (" (game/ changed)" if src.get("game_dirty") else "")
              + (f": {command}" if command else "")]
    for k, text in enumerate(footer):
        surface.blit(small.render(text, True, INK), (left - 80, IMAGE_SIZE[1] - 44 + 18 * k))
    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    pygame.image.save(surface, out_path)
    return out_path


# ---------------------------------------------------------------------------- report
def report(data):
    lines = [f"scene {data['scene']}, {data.get('clock', 'wall')} clock: {data['ticks']} timed ticks after {data['warmup']}, "
             f"median of {data['repeats']} run(s); ms per tick median (p10-p90)"]
    head = ["N", "Ballpit ms", "pymunk ms", "Box2D v3 ms", "Ballpit / pymunk", "Ballpit / Box2D", "escaped (ours)"]
    body = []
    for r in data["results"]:
        def cell(e):
            if e not in r:
                return "-"
            m = r[e]
            return f"{m['ms_per_tick']:.2f} ({m['ms']['p10']:.2f}-{m['ms']['p90']:.2f})"
        body.append([f"{r['n']:,}", cell("ours"), cell("pymunk"), cell("box2d"),
                     f"{r['ratio']:.2f}" if "ratio" in r else "-",
                     f"{r['ratio_box2d']:.2f}" if "ratio_box2d" in r else "-", str(r["ours"]["escaped"])])
    lines.append(common.table(head, body, "rrrrrrr"))
    s = data["scaling_exponent"]
    lines.append(f"scaling exponent (log-log least squares): Ballpit {s['ours']:.3f} over all its sizes, "
                 f"{s['ours_on_pymunk_sizes']:.3f} over pymunk's; pymunk {s['pymunk']:.3f}; "
                 f"Box2D v3 {s.get('box2d', float('nan')):.3f}")
    if data.get("missing"):
        lines.append(data["missing"])
    for mem in data.get("memory", []):
        lines.append(f"memory N={mem['n']:,}: peak resident {mem['peak_rss_mib']:.0f} MiB, "
                     f"{mem['world_mib']:.0f} MiB over the process before the world "
                     f"({mem['ticks']} ticks, finite {mem['finite']})")
    lines += common.machine_lines(data["machine"], ratio=True)
    return "\n".join(lines)


def _measuring_args(argv):
    """The command-line arguments that shaped the measurement (where files went left out)."""
    args = list(sys.argv[1:] if argv is None else argv)
    out = []
    skip = False
    for a in args:
        if skip:
            skip = False
        elif a in ("--out", "--json-out", "--from-json"):
            skip = True
        elif not a.startswith(("--out=", "--json-out=", "--from-json=", "--quiet")):
            out.append(a)
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description="ms per tick against N for Ballpit, pymunk and Box2D v3, as a log-log PNG.")
    p.add_argument("--scene", choices=sorted(SCENES), default="pit", help="pit (issue 5's ball pit) or pile")
    p.add_argument("--sizes", type=parse_sizes, default=list(DEFAULT_SIZES), metavar="N[,N...]",
                   help="sizes for every engine (default 1000,2000,5000,10000,20000)")
    p.add_argument("--ours-sizes", type=parse_sizes, default=list(DEFAULT_OURS_SIZES), metavar="N[,N...]",
                   help="sizes for Ballpit alone (default 50000,100000)")
    p.add_argument("--ticks", type=int, default=300, help="timed ticks per run (default 300)")
    p.add_argument("--warmup", type=int, default=60, help="untimed ticks first (default 60)")
    p.add_argument("--repeats", type=int, default=1, help="runs per engine and size (median of medians)")
    p.add_argument("--clock", choices=sorted(common.CLOCKS), default="wall",
                   help="wall (default; a quiet machine) or cpu (the process's CPU time: steadier on a shared "
                        "machine, but it adds up the threads of parallel code)")
    p.add_argument("--memory", action="store_true", help="also the peak memory at Ballpit's sizes (child processes)")
    p.add_argument("--memory-ticks", type=int, default=30, help="ticks each memory child steps (default 30)")
    p.add_argument("--memory-child", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--out", default=DEFAULT_OUT, help="the PNG (default docs/scaling.png)")
    p.add_argument("--json-out", default=None, help="also save the measurements as JSON here")
    p.add_argument("--from-json", default=None, help="draw a saved run instead of measuring")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    args = p.parse_args(argv)
    if args.ticks < 1 or args.warmup < 0 or args.repeats < 1 or args.memory_ticks < 1:
        p.error("--ticks, --repeats and --memory-ticks must be at least 1, --warmup at least 0")
    if args.memory_child is not None:
        print(json.dumps(memory_child(args.scene, args.memory_child, args.memory_ticks)))
        return 0

    def progress(text):
        if not args.quiet:
            print(text, file=sys.stderr, flush=True)

    if args.from_json:
        try:
            with open(args.from_json) as f:
                data = json.load(f)
        except (OSError, ValueError) as error:
            print(f"plot_scaling.py: cannot read {args.from_json}: {error}", file=sys.stderr)
            return 2
    else:
        data = measure(args.scene, args.sizes, args.ours_sizes, args.ticks, args.warmup, args.repeats, progress,
                       args.clock)
        if args.memory:
            data["memory"] = measure_memory(args.scene, sorted(set(args.sizes) | set(args.ours_sizes)),
                                            args.memory_ticks, progress)
        data["command"] = "python benchmarks/plot_scaling.py " + " ".join(_measuring_args(argv))
        if args.json_out:
            with open(args.json_out, "w") as f:
                f.write(common.dump_json(data))
    print(report(data))
    command = data.get("command")
    if command and args.from_json:   # a run saved before the files were left out of it
        command = "python benchmarks/plot_scaling.py " + " ".join(_measuring_args(command.split()[2:]))
    plot(data, args.out, command)
    print(f"wrote {os.path.relpath(os.path.abspath(args.out), ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
