"""Where a tick's time goes, by kernel: the one-call tick with cycle-counter timers (issue 26).

    python benchmarks/profile_tick.py                         # the pit at 1,000, 5,000, 10,000 balls
    python benchmarks/profile_tick.py --sizes 5000 --scene box --ticks 120 --warmup 60
    python benchmarks/profile_tick.py --cprofile --sizes 5000 # also cProfile of World.step (the Python around it)

How: the one-call tick's module (``game.physics.compiled.step``) is read as source and
rewritten in a scratch directory: every top-level statement of its sub-step function
(``_substep``) and of ``tick`` (and each statement of a top-level ``if`` whose branches call
kernels) is wrapped in reads of the CPU's cycle counter (LLVM's
``readcyclecounter``: a few cycles each), added to a timer array passed in as one more
argument. Each statement is named by the first kernel it calls (``SK.solve``,
``_candidates``...; "glue" where it calls none), and statements of one name add up. The
rewritten module is the same code otherwise (the same kernels, compiled by numba into the
scratch directory's cache: the first run costs a compile of the tick, ~40 s CPU), and the
world steps through it, handed over by ``World.use_compiled``. The counter's
rate is measured against ``time.perf_counter``.

Printed per size: each part's ms of a tick (mean over the timed ticks) and its share of the
step's CPU time (``time.thread_time`` around ``World.step``: the tick plus the Python around
it); "outside the compiled call" is the step's CPU time less the tick's (``thread_time``
around the compiled call). The cycle counter runs on while the thread waits for a core, so
its own milliseconds are wall time; a part's ms is therefore its share of the tick's counts
times the tick's CPU ms (a wait lands in a part in proportion to its length, so the shares
stay fair on a busy machine; the counter's wall ms are printed beside the CPU ms). The scenes are
``ball_pit.py``'s pit ("pit", the default: the same ticks as ball_pit.py, most balls still
falling), ``bench_frame.py``'s screen box ("box": a settled pile of r 0.25 m balls) and
``common.pile_scene`` ("pile"). Nothing in game/ changes.
"""
import argparse
import ast
import cProfile
import hashlib
import importlib.util
import io
import os
import pstats
import sys
import tempfile
import time

import common
from common import TICK, parse_sizes, table

DEFAULT_SIZES = (1000, 5000, 10000)
SUBSTEP = "_substep"          # the sub-step function of the tick's module
TICK_FUNCTION = "tick"
TIMED = "_tick_timed"
SLOTS = 256

_PRELUDE = '''
from numba import types as _types
from numba.extending import intrinsic as _intrinsic
from llvmlite import ir as _ir


@_intrinsic
def _rdtsc(typingctx):
    def codegen(context, builder, signature, args):
        fnty = _ir.FunctionType(_ir.IntType(64), [])
        fn = builder.module.declare_intrinsic("llvm.readcyclecounter", fnty=fnty)
        return builder.call(fn, [])
    return _types.int64(), codegen
'''

_EPILOGUE = '''

TIMERS = np.zeros({slots}, np.int64)
TICK_CPU = [0.0]          # s of thread CPU time inside the compiled tick


def tick(*args):
    import time as _time
    c0 = _time.thread_time()
    out = {timed}(*args, TIMERS)
    TICK_CPU[0] += _time.thread_time() - c0
    return out


@njit
def rdtsc_now():
    return _rdtsc()
'''


KERNEL_ALIASES = ("CK", "PK", "SK", "IK", "FK", "WK", "JK")    # the tick module's names for its kernel modules


def _call_names(node, module_functions):
    """The kernels a statement calls: CK.x, PK.x, SK.x... (the kernel modules') first, then the tick
    module's own functions, each in the order they appear."""
    kernels, helpers = [], []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            f = sub.func
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in KERNEL_ALIASES:
                kernels.append(f"{f.value.id}.{f.attr}")
            elif isinstance(f, ast.Name) and f.id in module_functions:
                helpers.append(f.id)
    return kernels + helpers


def _timed_body(body, labels, prefix, module_functions):
    """Each statement of ``body`` between two counter reads; a return's value is timed first."""
    out = []
    for stmt in body:
        if isinstance(stmt, ast.Return) and stmt.value is not None:
            assign = ast.Assign(targets=[ast.Name("_ret", ast.Store())], value=stmt.value)
            out += _timed_body([assign], labels, prefix, module_functions)
            out.append(ast.Return(ast.Name("_ret", ast.Load())))
            continue
        names = _call_names(stmt, module_functions)
        if isinstance(stmt, ast.If) and names and SUBSTEP not in names:
            # A branch that calls kernels: each branch's statements timed and named on their own
            # (else a branch's whole work would be named by the first kernel either branch calls).
            stmt.body = _timed_body(stmt.body, labels, prefix, module_functions)
            stmt.orelse = _timed_body(stmt.orelse, labels, prefix, module_functions)
            out.append(stmt)
            continue
        label = prefix + (names[0] if names else "glue")
        if SUBSTEP in names:
            label = prefix + SUBSTEP          # nested: the sub-step's own timers split it
        k = len(labels)
        labels.append(label)
        out.append(ast.parse("_t0 = _rdtsc()").body[0])
        out.append(stmt)
        out.append(ast.parse(f"_timers[{k}] += _rdtsc() - _t0").body[0])
    return out


def timed_source(source):
    """(the tick module's source rewritten with timers, the label of each timer slot)."""
    tree = ast.parse(source)
    module_functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    if SUBSTEP not in module_functions or TICK_FUNCTION not in module_functions:
        raise RuntimeError(f"the tick's module has no {SUBSTEP}() and {TICK_FUNCTION}(): profile_tick.py needs updating")
    labels = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in (SUBSTEP, TICK_FUNCTION):
            node.args.args.append(ast.arg("_timers"))
            # The sub-step's calls pass the timers on.
            for sub in ast.walk(node):
                if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id == SUBSTEP:
                    sub.args.append(ast.Name("_timers", ast.Load()))
            prefix = "" if node.name == SUBSTEP else "tick: "
            node.body = _timed_body(node.body, labels, prefix, module_functions)
            if node.name == TICK_FUNCTION:
                node.name = TIMED
    if len(labels) > SLOTS:
        raise RuntimeError("more timed statements than timer slots")
    # What else names the tick (the module's own cache bookkeeping) names the timed one.
    for sub in ast.walk(tree):
        if isinstance(sub, ast.Name) and sub.id == TICK_FUNCTION:
            sub.id = TIMED
    text = ast.unparse(ast.fix_missing_locations(tree))
    return _PRELUDE + text + _EPILOGUE.format(slots=SLOTS, timed=TIMED), labels


def load_timed(tick_module):
    """Import the timed copy of ``tick_module`` from a scratch directory (kept between runs,
    keyed by the source, so numba's cache there is reused); returns (module, labels)."""
    with open(tick_module.__file__) as f:
        source = f.read()
    text, labels = timed_source(source)
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    folder = os.path.join(tempfile.gettempdir(), f"ballpit-profile-tick-{digest}")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "tick_timed.py")
    if not os.path.exists(path):
        with open(path, "w") as f:
            f.write(text)
    spec = importlib.util.spec_from_file_location(f"ballpit_tick_timed_{digest}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module, labels


def counter_hz(module, seconds=0.2):
    """The cycle counter's ticks per second, against time.perf_counter."""
    module.rdtsc_now()
    c0, t0 = module.rdtsc_now(), time.perf_counter()
    time.sleep(seconds)
    c1, t1 = module.rdtsc_now(), time.perf_counter()
    return (c1 - c0) / (t1 - t0)


def scene_world(scene, n):
    """A world of ``scene`` ("pit", "box" or "pile") with n balls, as its benchmark builds it."""
    if scene == "box":
        import bench_frame
        from game.level import complete
        from game.physics.world import World
        return World.from_level(complete(bench_frame.screen_box_level(n)))
    built = common.pit_scene(n) if scene == "pit" else common.pile_scene(n)
    return common.build_world(built)[0]


def profile(sizes, scene="pit", ticks=300, warmup=60, progress=None, keep_contacts=False):
    """``keep_contacts``: the worlds keep a tick's contacts (SolverOptions.keep_contacts)."""
    from game.physics.compiled import loader
    compiled = loader.load()
    if compiled is None or compiled.tick is None:
        raise RuntimeError("the one-call tick did not load: nothing to profile")
    original = compiled.tick
    t0 = time.perf_counter()
    timed, labels = load_timed(original)
    if progress:
        progress(f"timed tick module from {original.__file__} ({len(labels)} timers)")
    rows = []
    for n in sizes:
        world = scene_world(scene, n)
        world.solver.options.keep_contacts = bool(keep_contacts)
        world.use_compiled(compiled._replace(tick=timed))     # the world steps through the timed copy
        for _ in range(int(warmup)):
            world.step(TICK)
        if progress and not rows:
            progress(f"compiled and warmed up in {time.perf_counter() - t0:.1f} s")
        timed.TIMERS[:] = 0
        timed.TICK_CPU[0] = 0.0
        cpu = 0.0
        for _ in range(int(ticks)):
            c0 = time.thread_time()
            world.step(TICK)
            cpu += time.thread_time() - c0
        hz = counter_hz(timed)
        # The counter runs on while the thread waits for a core: its ms are wall ms. Each
        # part's share of the tick's counts is fair all the same (a wait lands in a part
        # in proportion to its length), so the parts are given as those shares of the
        # compiled tick's thread CPU time.
        counts = {}
        for k, label in enumerate(labels):
            counts[label] = counts.get(label, 0) + int(timed.TIMERS[k])
        whole = sum(v for k, v in counts.items() if k.startswith("tick: ")) or 1
        tick_cpu = timed.TICK_CPU[0] * 1000.0 / ticks
        parts = {k: tick_cpu * v / whole for k, v in counts.items()}
        rows.append({"n": n, "step_cpu_ms": cpu * 1000.0 / ticks, "tick_cpu_ms": tick_cpu, "parts_ms": parts,
                     "counter_wall_ms": whole / hz * 1000.0 / ticks, "counter_hz": hz,
                     "load": os.getloadavg()[0] if hasattr(os, "getloadavg") else None})
        if progress:
            progress(f"N={n}: step {cpu * 1000.0 / ticks:.2f} ms CPU a tick")
    return {"scene": scene, "ticks": int(ticks), "warmup": int(warmup), "rows": rows, "keep_contacts": bool(keep_contacts),
            "tick_module": original.__file__, "machine": common.machine_info()}


def _order(rows):
    """Parts in the order of their share at the largest size, the tick's own last."""
    last = rows[-1]["parts_ms"]
    sub = [k for k in last if not k.startswith("tick: ")]
    return sorted(sub, key=lambda k: -last[k])


def report(data):
    rows = data["rows"]
    sub = _order(rows)
    head = ["part (statements named by the first kernel they call)"] + [f"{r['n']:,} ms" for r in rows] + \
           [f"{r['n']:,} %" for r in rows]
    body = []

    def line(name, values):
        body.append([name] + [f"{v:.3f}" for v in values] + [f"{100 * v / r['step_cpu_ms']:.1f}"
                                                             for v, r in zip(values, rows)])
    for k in sub:
        line(k, [r["parts_ms"].get(k, 0.0) for r in rows])
    substeps = [sum(v for k, v in r["parts_ms"].items() if not k.startswith("tick: ")) for r in rows]
    tick_total = [sum(v for k, v in r["parts_ms"].items() if k.startswith("tick: ")) for r in rows]
    line("= the sub-steps", substeps)
    line("the tick around its sub-steps (copies, impacts, resting)", [t - s for t, s in zip(tick_total, substeps)])
    line("= the compiled tick (its thread CPU time)", tick_total)
    line("World.step outside the compiled call (Python, numpy, sleep)",
         [r["step_cpu_ms"] - t for r, t in zip(rows, tick_total)])
    line("= World.step (thread CPU time)", [r["step_cpu_ms"] for r in rows])
    shape = ", contacts kept a tick" if data.get("keep_contacts") else ""
    lines = [f"Where a tick's time goes, by kernel: scene {data['scene']}{shape}, mean over {data['ticks']} ticks after "
             f"{data['warmup']} warm-up ticks; cycle-counter timers around each statement of the one-call tick "
             f"({os.path.relpath(data['tick_module'], common.ROOT)}): each part's share of the tick's counts times "
             f"the tick's thread CPU ms; % of World.step's thread CPU time",
             table(head, body, "l" + "r" * (len(head) - 1)),
             "load average: " + ", ".join(f"{r['n']:,}: {r['load']:.1f}" for r in rows if r["load"] is not None),
             "the tick by the counter (wall: with the waits for a core) against its CPU ms: " + ", ".join(
                 f"{r['n']:,}: {r['counter_wall_ms']:.2f} / {r['tick_cpu_ms']:.2f}" for r in rows)]
    lines += common.machine_lines(data["machine"])
    return "\n".join(lines)


def cprofile_step(scene, n, ticks=60, warmup=60, top=15):
    """cProfile of World.step (the compiled tick shows as one call): the Python around it."""
    world = scene_world(scene, n)          # compiled: the kernels load before its first step
    for _ in range(int(warmup)):
        world.step(TICK)
    prof = cProfile.Profile(time.thread_time)
    prof.enable()
    for _ in range(int(ticks)):
        world.step(TICK)
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main(argv=None):
    p = argparse.ArgumentParser(description="Where a tick's time goes, by kernel (cycle-counter timers).")
    p.add_argument("--sizes", type=parse_sizes, default=DEFAULT_SIZES, metavar="N[,N...]")
    p.add_argument("--scene", choices=("pit", "box", "pile"), default="pit")
    p.add_argument("--ticks", type=int, default=300)
    p.add_argument("--warmup", type=int, default=60)
    p.add_argument("--cprofile", action="store_true", help="also cProfile World.step at each size (thread CPU time)")
    p.add_argument("--keep-contacts", action="store_true",
                   help="the worlds keep a tick's contacts through its sub-steps (Box2D v3's step shape)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if args.ticks < 1 or args.warmup < 0:
        p.error("--ticks must be at least 1, --warmup at least 0")

    def progress(text):
        print(text, file=sys.stderr, flush=True)
    data = profile(args.sizes, args.scene, args.ticks, args.warmup, progress, args.keep_contacts)
    if args.cprofile:
        data["cprofile"] = {n: cprofile_step(args.scene, n, min(args.ticks, 120), args.warmup) for n in args.sizes}
    if args.json:
        print(common.dump_json(data))
        return 0
    print(report(data))
    for n, text in (data.get("cprofile") or {}).items():
        print(f"\ncProfile of World.step, {n:,} balls (thread CPU time):\n{text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
