"""The ball pit, side by side: this engine against pymunk and Box2D v3 on the same scene
(issues 5 and 26).

    python benchmarks/ball_pit.py                    # N = 1,000, 2,000, 5,000, 10,000
    python benchmarks/ball_pit.py --quick            # N = 1,000 and 5,000
    python benchmarks/ball_pit.py --sizes 100 --ticks 10 --warmup 5 --json
    python benchmarks/ball_pit.py --solver numpy     # this engine's numpy execution (issue 9 builds)
    python benchmarks/ball_pit.py --clock cpu        # CPU time per tick: a machine shared with busy processes
    python benchmarks/ball_pit.py --substeps 1 --passes 4/4   # a cheaper solver budget than the game's
    python benchmarks/ball_pit.py --equal-quality    # also pymunk with the steps a tick it needs to match our overlap

The scene (``common.pit_scene``): a box of inner width W = 20 sqrt(N/100) m and height 2 W
of four capsules of radius 0.5 whose inner faces lie on the box; six slanted obstacles of
radius 0.1 in the lower half; N balls of radius 0.5 m and 1 kg on a jittered 1.25 m grid
above the obstacles; restitution 0.5 and friction 0.5 for every contact; gravity 9.81 m/s^2
down; one tick is 1/60 s. Each engine runs its warm-up ticks untimed, then the timed ticks
one by one (time.perf_counter around each step); the figure is the median ms per tick.
Both engines run in the same process, their order alternating from size to size.

Balls rotate in both engines: pymunk's bodies have the moment of a disc, m r^2 / 2
(``pymunk.moment_for_circle``), as this engine's balls do since issue 9 (friction turns
them; no rolling resistance in either). On an older build of this engine, whose balls
only slide, the report says so; the benchmark detects the features (``solver=``, ``spin``)
rather than requiring them.

Quality is measured the same way for both from the final positions
(``common.quality``): balls escaped (centre outside the box's inner rectangle), the
overlapping ball-ball pairs with their mean and deepest overlap, the deepest reach past an
inner wall face, the mean speed (how settled the pile is) and the mean |spin|.

Materials: this engine combines a pair's coefficients as max(restitution) and the geometric
mean of friction, so 0.5 on every shape gives 0.5 per contact. pymunk multiplies the two
shapes' elasticities and frictions, so its shapes get sqrt(0.5) each: 0.5 per contact too.
pymunk otherwise runs with its defaults (collision_slop 0.1, collision_bias, the
bounding-box tree) and ``space.iterations = 10``; ``--pymunk-broadphase hash`` and
``--pymunk-slop`` try its spatial hash and a smaller slop (0.1 is pymunk's pixel-scale default:
a fifth of these balls' radius).

Box2D v3 (``pyb2d3``, Python bindings of Box2D 3.1+; a development dependency, and where it
is missing the benchmark runs without it and says so in one line): one world on one thread
(no thread pool: Box2D's default of one worker), ``world.step(1/60, 4)`` (4 sub-steps, as
Box2D recommends and as this engine runs), sleeping off (the world's and every body's),
continuous collision on (its default), every other setting its default (contact hertz 30,
damping ratio 10, push-out speed 3 m/s, restitution threshold 1 m/s, speculative distance
4 linear slops = 2 cm). The same capsules on one static body, the balls as circles of
density 1 / (pi r^2) (so 1 kg, moment m r^2 / 2); Box2D mixes a pair's friction as the
geometric mean and its restitution as the max, as this engine does, so every shape carries
0.5. Box2D computes in float32; the quality is measured from its float32 positions.

Equal quality (``--equal-quality``): pymunk's overlap is held up by its collision_slop and its
one bias step a tick, not by its iterations (measured at 1,000 balls: 10 iterations 17.1 mm,
40 iterations 18.3 mm; 4 steps a tick 2.1 mm), so it gets more ``space.step(1/60/k)`` calls a
tick, k the fewest (searched from an estimate, overlap ~ 1/k^1.5) whose mean overlap is no
deeper than this engine's in the same row; its ms per tick and our ratio against it are
reported beside the plain figures (one run per try, on the chosen clock).
"""
import argparse
import math
import os
import sys
import time

import numpy as np

import common
from common import (BALL_MASS, BALL_RADIUS, FRICTION, GRAVITY, RESTITUTION, TICK, machine_info,
                    machine_lines, parse_sizes, pit_scene, quality, scaling_exponent,
                    summary_ms, table, time_ticks)

DEFAULT_SIZES = (1000, 2000, 5000, 10000)
QUICK_SIZES = (1000, 5000)
ENGINES = ("ours", "pymunk", "box2d")
LABELS = {"ours": "ours", "pymunk": "pymunk", "box2d": "box2d"}
BOX2D_SUBSTEPS = 4           # Box2D's recommended sub-steps, and this engine's
EQUAL_STEPS_MAX = 32         # pymunk's steps a tick the equal-quality search tries at most


def _quiet_exit():
    """pyb2d3 (nanobind) lists its module-level objects as "leaked" on stderr while the
    interpreter shuts down (0.11.1): noise after the report, not this benchmark's. Registered
    once pyb2d3 is imported; it runs after everything else has been printed."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
    except OSError:
        pass


def box2d_missing():
    """None where pyb2d3 imports, else one line saying why Box2D v3 is left out."""
    try:
        import pyb2d3  # noqa: F401
    except ImportError as error:
        return f"Box2D v3 left out: pyb2d3 does not import here ({error}); pip install pyb2d3 to compare with it"
    if not getattr(box2d_missing, "registered", False):
        import atexit
        atexit.register(_quiet_exit)
        box2d_missing.registered = True
    return None


def load_average():
    """The 1-minute load average (the machine's other work), or None where the OS has none."""
    try:
        return float(os.getloadavg()[0])
    except (AttributeError, OSError):
        return None


def box_of(scene):
    return (0.0, 0.0, scene["width"], scene["height"])


# ---------------------------------------------------------------------------- this engine
def run_ours(scene, ticks, warmup, integrator=None, substeps=None, solver=None, clock="wall", options=None):
    """``options``: SolverOptions fields set instead of their defaults ({name: value})."""
    world, build_s = common.build_world(scene, integrator, substeps, solver)
    for name, value in (options or {}).items():
        setattr(world.solver.options, name, value)
    ms = time_ticks(lambda: world.step(TICK), ticks, warmup, clock)
    spin = common.world_spin(world)
    execution = getattr(getattr(world, "solver", None), "execution", None)
    return {"ms": ms, "build_s": build_s,
            "quality": quality(world.pos, world.vel, world.radius, box_of(scene), spin),
            "settings": {"integrator": world.integrator, "substeps": world.substeps,
                         "grid_cell": float(world.grid_cell), "solver": execution,
                         "rotating": spin is not None,
                         "passes": [int(world.solver.options.iterations), int(world.solver.options.relax_iterations)]
                         if hasattr(world, "solver") else None,
                         "keep_contacts": getattr(getattr(world, "solver", None) and world.solver.options,
                                                  "keep_contacts", None),
                         "speculative": getattr(getattr(world, "solver", None) and world.solver.options,
                                                "speculative", None)}}


# ---------------------------------------------------------------------------- pymunk
def build_pymunk(scene, iterations=10, broadphase="tree", slop=None):
    """The scene as a pymunk Space: (space, bodies). broadphase "tree" is pymunk's default
    bounding-box tree, "hash" its spatial hash (cells one ball diameter wide); slop None
    keeps pymunk's default collision_slop."""
    import pymunk
    per_shape = math.sqrt(RESTITUTION), math.sqrt(FRICTION)   # pymunk multiplies the pair's values
    space = pymunk.Space()
    space.gravity = (0.0, -GRAVITY)
    space.iterations = int(iterations)
    statics = []
    for a, b, r in scene["walls"] + scene["obstacles"]:
        seg = pymunk.Segment(space.static_body, a, b, r)
        seg.elasticity, seg.friction = per_shape
        statics.append(seg)
    space.add(*statics)
    moment = pymunk.moment_for_circle(BALL_MASS, 0.0, BALL_RADIUS)     # a disc: m r^2 / 2
    bodies, things = [], []
    for x, y in scene["balls"]:
        body = pymunk.Body(BALL_MASS, moment)
        body.position = (float(x), float(y))
        circle = pymunk.Circle(body, BALL_RADIUS)
        circle.elasticity, circle.friction = per_shape
        bodies.append(body)
        things += (body, circle)
    space.add(*things)
    if broadphase == "hash":
        space.use_spatial_hash(2 * BALL_RADIUS, max(1000, 4 * len(bodies)))
    if slop is not None:
        space.collision_slop = float(slop)
    return space, bodies


def run_pymunk(scene, ticks, warmup, iterations=10, broadphase="tree", slop=None, clock="wall", steps=1):
    """``steps``: space.step(TICK / steps) calls a tick (1: pymunk as games call it)."""
    t0 = time.perf_counter()
    space, bodies = build_pymunk(scene, iterations, broadphase, slop)
    build_s = time.perf_counter() - t0
    steps = int(steps)
    h = TICK / steps

    def tick():
        for _ in range(steps):
            space.step(h)
    ms = time_ticks(tick if steps > 1 else (lambda: space.step(TICK)), ticks, warmup, clock)
    pos = np.array([tuple(b.position) for b in bodies], float).reshape(-1, 2)
    vel = np.array([tuple(b.velocity) for b in bodies], float).reshape(-1, 2)
    spin = np.array([b.angular_velocity for b in bodies], float)
    return {"ms": ms, "build_s": build_s, "quality": quality(pos, vel, BALL_RADIUS, box_of(scene), spin),
            "settings": {"iterations": space.iterations, "broadphase": broadphase, "steps_per_tick": steps,
                         "moment": bodies[0].moment if bodies else None,
                         "collision_slop": space.collision_slop,
                         "collision_bias": space.collision_bias, "elasticity_per_shape": math.sqrt(RESTITUTION),
                         "friction_per_shape": math.sqrt(FRICTION)}}


# ---------------------------------------------------------------------------- Box2D v3
def build_box2d(scene):
    """The scene as a Box2D v3 world (pyb2d3): (world, bodies batch). One thread (no thread
    pool), sleeping off, every other world setting Box2D's default."""
    import pyb2d3 as b2
    world = b2.World(gravity=(0.0, -GRAVITY))
    world.sleeping_enabled = False
    material = b2.surface_material(restitution=RESTITUTION, friction=FRICTION)   # max / geometric mean per pair
    ground = world.create_static_body(position=(0.0, 0.0))
    wall_def = b2.shape_def(material=material)
    for a, b, r in scene["walls"] + scene["obstacles"]:
        ground.create_capsule_shape(wall_def, b2.capsule(a, b, r))
    ball_def = b2.shape_def(material=material, density=BALL_MASS / (math.pi * BALL_RADIUS ** 2))
    disc = b2.circle(radius=BALL_RADIUS)
    bodies = b2.Bodies()
    for x, y in scene["balls"]:
        body = world.create_dynamic_body(position=(float(x), float(y)), enable_sleep=False)
        body.create_circle_shape(ball_def, disc)
        bodies.append(body.id)
    return world, bodies


def run_box2d(scene, ticks, warmup, clock="wall", substeps=BOX2D_SUBSTEPS):
    import pyb2d3
    t0 = time.perf_counter()
    world, bodies = build_box2d(scene)
    build_s = time.perf_counter() - t0
    substeps = int(substeps)
    ms = time_ticks(lambda: world.step(TICK, substeps), ticks, warmup, clock)
    n = len(scene["balls"])
    if n:
        pos = np.asarray(bodies.get_positions(), float)
        vel = np.asarray(bodies.get_linear_velocities(), float)
        spin = np.asarray(bodies.get_angular_velocities(), float)
    else:
        pos, vel, spin = np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0)
    version = _version("pyb2d3")
    return {"ms": ms, "build_s": build_s, "quality": quality(pos, vel, BALL_RADIUS, box_of(scene), spin),
            "settings": {"substeps": substeps, "threads": 1, "sleeping": bool(world.sleeping_enabled),
                         "continuous": bool(world.continuous_enabled), "pyb2d3": version,
                         "module": os.path.dirname(pyb2d3.__file__)}}


def _version(package):
    try:
        from importlib.metadata import version
        return version(package)
    except Exception:  # noqa: BLE001 - a version is a label, never a failure
        return None


# ---------------------------------------------------------------------------- equal quality
def equal_quality_pymunk(scene, target, one_step_overlap, ticks, warmup, iterations=10, broadphase="tree",
                         slop=None, clock="wall", progress=None, most=EQUAL_STEPS_MAX):
    """pymunk with the fewest steps a tick (k space.step(1/60/k) calls) whose mean overlap is
    no deeper than ``target`` (m). The search starts at k = (one_step_overlap / target)^(2/3)
    rounded up (overlap ~ 1/k^1.5, measured) and walks down while the overlap holds, up while
    it does not. Returns {"steps", "ms_per_tick", "quality", "tries": [(k, ms, overlap)...]},
    "steps" None when ``most`` steps do not reach the target."""
    tries = {}
    if one_step_overlap <= target:
        return {"steps": 1, "iterations": int(iterations), "target_overlap": float(target), "ms_per_tick": None,
                "ms": None, "quality": None, "tries": []}     # pymunk as it is already matches: run() fills it in

    def attempt(k):
        if k not in tries:
            t0 = time.perf_counter()
            out = run_pymunk(scene, ticks, warmup, iterations, broadphase, slop, clock, steps=k)
            tries[k] = out
            if progress:
                progress(f"N={scene['n']:>6} pymunk x{k} steps: median {np.median(out['ms']):.2f} ms/tick, mean overlap "
                         f"{out['quality']['overlap_mean'] * 1000:.2f} mm ({time.perf_counter() - t0:.1f} s)")
        return tries[k]["quality"]["overlap_mean"] <= target

    if target <= 0 or not math.isfinite(one_step_overlap):
        guess = 2
    else:
        guess = int(math.ceil((max(one_step_overlap, target) / target) ** (2.0 / 3.0)))
    k = min(max(2, guess), most)
    if attempt(k):
        while k > 2 and attempt(k - 1):
            k -= 1
        found = k
    else:
        found = None
        while k < most:
            k = min(most, k + max(1, k // 4))
            if attempt(k):
                found = k
                break
    best = tries[found] if found else None
    return {"steps": found, "iterations": int(iterations), "target_overlap": float(target),
            "ms_per_tick": float(np.median(best["ms"])) if best else float("nan"),
            "ms": summary_ms(best["ms"]) if best else None, "quality": best["quality"] if best else None,
            "tries": [[k, float(np.median(o["ms"])), o["quality"]["overlap_mean"]] for k, o in sorted(tries.items())]}


# ---------------------------------------------------------------------------- the run
def run(sizes, ticks=300, warmup=60, repeats=1, engines=ENGINES, integrator=None, substeps=None,
        iterations=10, broadphase="tree", slop=None, progress=None, solver=None, clock="wall", options=None,
        equal_quality=False):
    """Run every size; returns the results as a dict (what --json prints). Box2D is left out
    (``missing`` says why) where pyb2d3 does not import. ``equal_quality``: also pymunk with
    the steps a tick it needs to match our mean overlap (``equal_quality_pymunk``)."""
    missing = box2d_missing() if "box2d" in engines else None
    engines = tuple(e for e in engines if not (e == "box2d" and missing))
    results = []
    flip = 0
    for n in sizes:
        scene = pit_scene(n)
        runs = {e: [] for e in engines}
        loads = []
        for r in range(int(repeats)):
            order = list(engines) if flip % 2 == 0 else list(reversed(engines))
            flip += 1
            for engine in order:
                t0 = time.perf_counter()
                loads.append(load_average())
                if engine == "ours":
                    out = run_ours(scene, ticks, warmup, integrator, substeps, solver, clock, options)
                elif engine == "box2d":
                    out = run_box2d(scene, ticks, warmup, clock)
                else:
                    out = run_pymunk(scene, ticks, warmup, iterations, broadphase, slop, clock)
                runs[engine].append(out)
                if progress:
                    progress(f"N={n:>6} {engine:<6} run {r + 1}/{repeats}: median {np.median(out['ms']):.2f} ms/tick"
                             f" ({time.perf_counter() - t0:.1f} s, load {_load(loads[-1])})")
        row = {"n": n, "width": scene["width"], "height": scene["height"]}
        for engine, outs in runs.items():
            medians = [float(np.median(o["ms"])) for o in outs]
            last = outs[-1]
            row[engine] = {"ms_per_tick": float(np.median(medians)), "run_medians": medians,
                           "ms": summary_ms(np.concatenate([o["ms"] for o in outs])),
                           "build_s": last["build_s"], "quality": last["quality"], "settings": last["settings"]}
        if "ours" in row and "pymunk" in row:
            row["ratio"] = row["ours"]["ms_per_tick"] / row["pymunk"]["ms_per_tick"]
        if "ours" in row and "box2d" in row:
            row["ratio_box2d"] = row["ours"]["ms_per_tick"] / row["box2d"]["ms_per_tick"]
        if equal_quality and "ours" in row and "pymunk" in row:
            loads.append(load_average())
            eq = equal_quality_pymunk(scene, row["ours"]["quality"]["overlap_mean"],
                                      row["pymunk"]["quality"]["overlap_mean"], ticks, warmup, iterations,
                                      broadphase, slop, clock, progress)
            if eq["steps"] == 1:
                eq.update(ms_per_tick=row["pymunk"]["ms_per_tick"], ms=row["pymunk"]["ms"],
                          quality=row["pymunk"]["quality"])
            row["pymunk_equal"] = eq
            row["ratio_equal"] = row["ours"]["ms_per_tick"] / eq["ms_per_tick"] if eq["steps"] else float("nan")
        loads.append(load_average())
        row["load"] = {"min": _stat(min, loads), "max": _stat(max, loads)}
        results.append(row)
    exponents = {e: scaling_exponent([r["n"] for r in results], [r[e]["ms_per_tick"] for r in results])
                 for e in engines}
    machine = machine_info()
    if "box2d" in engines:
        machine["pyb2d3"] = _version("pyb2d3")
    return {"benchmark": "ball_pit", "ticks": int(ticks), "warmup": int(warmup), "repeats": int(repeats), "clock": clock,
            "tick_s": TICK, "machine": machine, "engines": list(engines), "missing": missing,
            "results": results, "scaling_exponent": exponents}


def _stat(f, values):
    values = [v for v in values if v is not None]
    return f(values) if values else None


def _load(value):
    return "?" if value is None else f"{value:.2f}"


def _mm(x):
    return f"{x * 1000:.2f}"


def report(data):
    """The printed report: setup, speed table, quality table, scaling exponents, machine."""
    results = data["results"]
    engines = [e for e in ENGINES if results and e in results[0]]
    clock = data.get("clock")
    lines = [f"Ball pit: N balls (r {BALL_RADIUS} m, {BALL_MASS} kg, restitution {RESTITUTION}, "
             f"friction {FRICTION}) in a box W = 20 sqrt(N/100) m by 2W, six obstacles, g = {GRAVITY}",
             f"{data['ticks']} timed ticks of 1/60 s after {data['warmup']} warm-up ticks; "
             f"median ms per tick" + (" of process CPU time" if clock == "cpu" else " (wall clock)")
             + (f", median of {data['repeats']} runs" if data["repeats"] > 1 else "")]
    if data.get("missing"):
        lines.append(data["missing"])
    if results and "ours" in results[0]:
        s = results[0]["ours"]["settings"]
        rotation = "balls rotate (moment m r^2 / 2)" if s.get("rotating") else "balls do not rotate in this build"
        passes = f"{s['passes'][0]} soft and {s['passes'][1]} relax passes, " if s.get("passes") else ""
        if s.get("keep_contacts"):
            passes += f"contacts kept a tick (speculative {s['speculative'] * 1000:g} mm), "
        lines.append(f"ours:   World.from_level, integrator {s['integrator']}, {s['substeps']} sub-steps per tick, "
                     + passes + (f"solver {s['solver']}, " if s.get("solver") else "") + rotation)
    if results and "pymunk" in results[0]:
        s = results[0]["pymunk"]["settings"]
        broad = {"tree": "bounding-box tree (default)", "hash": "spatial hash"}[s["broadphase"]]
        lines.append(f"pymunk: {data['machine'].get('pymunk', '?')}, {broad}, iterations {s['iterations']}, "
                     f"collision_slop {s['collision_slop']:g}, collision_bias {s['collision_bias']:.3g}, elasticity and friction "
                     f"{s['elasticity_per_shape']:.4f} per shape (0.5 per contact), balls rotate (moment m r^2 / 2)")
    if results and "box2d" in results[0]:
        s = results[0]["box2d"]["settings"]
        lines.append(f"box2d:  Box2D v3 by pyb2d3 {s.get('pyb2d3') or '?'}, one thread, {s['substeps']} sub-steps per tick, "
                     f"sleeping {'on' if s['sleeping'] else 'off'}, continuous {'on' if s['continuous'] else 'off'}, "
                     "Box2D's default contact tuning, 0.5 per shape (geometric mean / max), balls rotate, float32")
    lines.append("")
    head = ["N"] + [f"{e} ms/tick" for e in engines]
    if "ours" in engines and "pymunk" in engines:
        head.append("ours/pymunk")
    if "ours" in engines and "box2d" in engines:
        head.append("ours/box2d")
    equal = any("pymunk_equal" in r for r in results)
    if equal:
        head += ["pymunk equal quality ms (steps)", "ours/equal"]
    head.append("load avg")
    rows = []
    for r in results:
        row = [f"{r['n']:,}"] + [f"{r[e]['ms_per_tick']:.2f}" for e in engines]
        if "ours" in engines and "pymunk" in engines:
            row.append(f"{r['ratio']:.2f}")
        if "ours" in engines and "box2d" in engines:
            row.append(f"{r['ratio_box2d']:.2f}")
        if equal:
            eq = r.get("pymunk_equal")
            if eq and eq["steps"]:
                row += [f"{eq['ms_per_tick']:.2f} (x{eq['steps']})", f"{r['ratio_equal']:.2f}"]
            else:
                row += [f"not reached in {EQUAL_STEPS_MAX} steps" if eq else "-", "-"]
        load = r.get("load") or {}
        row.append("-" if load.get("min") is None else f"{load['min']:.1f}-{load['max']:.1f}")
        rows.append(row)
    lines.append(table(head, rows, "r" * len(head)))
    lines.append("")
    qhead = ["N", "engine", "escaped", "overlapping pairs", "mean overlap mm", "max overlap mm",
             "max past wall mm", "mean speed m/s", "mean |spin| rad/s"]
    qrows = []
    for r in results:
        named = [(e, r[e]["quality"]) for e in engines]
        eq = r.get("pymunk_equal")
        if eq and eq["steps"] and eq["steps"] > 1:
            named.append((f"pymunk x{eq['steps']}", eq["quality"]))
        for e, q in named:
            qrows.append([f"{r['n']:,}", e, q["escaped"], q["overlap_pairs"], _mm(q["overlap_mean"]),
                          _mm(q["overlap_max"]), _mm(q["wall_overlap_max"]), f"{q['speed_mean']:.3f}"
                          + ("" if q["finite"] else " (non-finite!)"),
                          "-" if q.get("spin_mean") is None else f"{q['spin_mean']:.3f}"])
    lines.append(table(qhead, qrows, "rlrrrrrrr"))
    if equal:
        lines.append("")
        lines.append("equal quality: pymunk (iterations as above) with k space.step(1/60/k) calls a tick, k the fewest "
                     "whose mean overlap is no deeper than ours; tries (k: ms/tick, mean overlap mm):")
        for r in results:
            eq = r.get("pymunk_equal")
            if eq:
                lines.append(f"  N={r['n']:,}: " + ", ".join(f"x{k}: {ms:.2f} ms, {ov * 1000:.2f} mm"
                                                            for k, ms, ov in eq["tries"]))
    lines.append("")
    lines.append("scaling exponent (least-squares slope of log ms against log N; 1 = linear): "
                 + ", ".join(f"{e} {data['scaling_exponent'][e]:.2f}" for e in engines))
    machine = machine_lines(data["machine"], ratio=len(engines) >= 2)
    if data["machine"].get("pyb2d3"):
        machine[0] += f", pyb2d3 {data['machine']['pyb2d3']}"
    lines += machine
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description="This engine against pymunk and Box2D v3 on the ball pit of issue 5.")
    p.add_argument("--sizes", type=parse_sizes, default=None, metavar="N[,N...]",
                   help="ball counts (default 1000,2000,5000,10000)")
    p.add_argument("--quick", action="store_true", help="only N = 1000 and 5000")
    p.add_argument("--ticks", type=int, default=300, help="timed ticks per run (default 300)")
    p.add_argument("--warmup", type=int, default=60, help="untimed ticks before timing (default 60)")
    p.add_argument("--repeats", type=int, default=1, help="runs per engine and size; the median is reported")
    p.add_argument("--only", choices=ENGINES, help="run one engine only")
    p.add_argument("--integrator", help="this engine's integrator (default: the engine's default)")
    p.add_argument("--substeps", type=int, help="this engine's sub-steps per tick (default: the engine's)")
    p.add_argument("--passes", type=_passes, default=None, metavar="SOFT/RELAX",
                   help="this engine's soft and relax passes a sub-step (default: the solver's, 2/2)")
    p.add_argument("--keep-contacts", choices=("on", "off"), default=None,
                   help="this engine's step shape: contacts prepared once a tick and kept through its sub-steps "
                        "(Box2D v3's, on) or prepared every sub-step (off); default: the solver's")
    p.add_argument("--speculative", type=float, default=None, metavar="M",
                   help="with kept contacts, how far apart a pair may be and join them (default: the solver's)")
    p.add_argument("--solver", choices=("compiled", "numpy"), default=None,
                   help="this engine's contact solver execution (builds with issue 9's solver; default: the World's)")
    p.add_argument("--iterations", type=int, default=10, help="pymunk's solver iterations (default 10)")
    p.add_argument("--pymunk-broadphase", choices=("tree", "hash"), default="tree",
                   help="pymunk's broad phase: its default bounding-box tree or its spatial hash")
    p.add_argument("--pymunk-slop", type=float, default=None, metavar="M",
                   help="pymunk's collision_slop in metres (default: pymunk's default, 0.1)")
    p.add_argument("--clock", choices=tuple(common.CLOCKS), default="wall",
                   help="time ticks by the wall clock (default) or by this thread's CPU time (a busy shared machine)")
    p.add_argument("--equal-quality", action="store_true",
                   help="also pymunk with the steps a tick it needs to match our mean overlap (one run per try)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the tables")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    args = p.parse_args(argv)
    if args.ticks < 1 or args.warmup < 0 or args.repeats < 1:
        p.error("--ticks and --repeats must be at least 1, --warmup at least 0")
    sizes = args.sizes or (QUICK_SIZES if args.quick else DEFAULT_SIZES)
    engines = (args.only,) if args.only else ENGINES
    if engines == ("box2d",) and box2d_missing():
        print(box2d_missing())
        return 0
    if args.solver and "ours" in engines and not common.world_has_solver_choice():
        p.error("--solver: this build's World has no solver choice (it needs issue 9's solver)")

    def progress(text):
        print(text, file=sys.stderr, flush=True)

    data = run(sizes, args.ticks, args.warmup, args.repeats, engines, args.integrator, args.substeps,
               args.iterations, args.pymunk_broadphase, args.pymunk_slop, None if args.quiet else progress,
               args.solver, args.clock, solver_options(args), args.equal_quality)
    if data["missing"] and args.json:
        print(data["missing"], file=sys.stderr)
    print(common.dump_json(data) if args.json else report(data))
    return 0


def solver_options(args):
    """The SolverOptions fields the command line sets ({name: value})."""
    options = {}
    if args.passes is not None:
        options["iterations"], options["relax_iterations"] = args.passes
    if args.keep_contacts is not None:
        options["keep_contacts"] = args.keep_contacts == "on"
    if args.speculative is not None:
        options["speculative"] = args.speculative
    return options


def _passes(text):
    try:
        soft, relax = (int(v) for v in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected SOFT/RELAX such as 2/2, got {text!r}") from None
    if not (1 <= soft <= 100 and 0 <= relax <= 100):
        raise argparse.ArgumentTypeError(f"expected 1-100 soft and 0-100 relax passes, got {text!r}")
    return soft, relax


if __name__ == "__main__":
    sys.exit(main())
