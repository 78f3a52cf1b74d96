"""Shared pieces of the benchmarks: the ball-pit scene, timing, quality measures, machine info.

The benchmarks are scripts (``python benchmarks/ball_pit.py``); this module sits next to
them and puts the repository root on ``sys.path`` so ``game`` imports from a checkout.
Nothing here changes environment variables or thread settings.
"""
import json
import math
import os
import platform
import statistics
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from game.defaults import TICK  # noqa: E402  (s: the fixed tick both engines are stepped with)
GRAVITY = 9.81               # m/s^2, down
BALL_RADIUS = 0.5            # m
BALL_MASS = 1.0              # kg
RESTITUTION = 0.5            # per contact pair, after each engine combines its shapes' values
FRICTION = 0.5
WALL_RADIUS = 0.5            # m: the box's four capsules
OBSTACLE_RADIUS = 0.1        # m: the six slanted capsules
SPACING = 1.25               # m: spawn grid pitch
JITTER = 0.1                 # m: +- uniform jitter of each spawn position, per axis
SEED = 20240605              # the jitter's seed: the same scene every run


# ---------------------------------------------------------------------------- the scene
def pit_scene(n, seed=SEED):
    """The ball-pit scene of issue 5 for ``n`` balls, as plain numbers both engines build from.

    A box of inner width W = 20 sqrt(n / 100) m and height 2 W (inner faces on x = 0, x = W,
    y = 0, y = 2 W) made of four capsules of radius 0.5 whose centre lines lie 0.5 m outside;
    six slanted obstacles of radius 0.1 in the lower half; n balls on a jittered grid
    (pitch 1.25 m, jitter +-0.1 m from a seeded RNG) starting above the obstacles.

    Returns a dict: ``width``, ``height``, ``walls`` and ``obstacles`` as lists of
    ((ax, ay), (bx, by), radius), ``balls`` an (n, 2) array.
    """
    n = int(n)
    w = 20.0 * math.sqrt(n / 100.0)
    h = 2.0 * w
    o = WALL_RADIUS
    corners = [(-o, -o), (w + o, -o), (w + o, h + o), (-o, h + o)]
    walls = [(corners[k], corners[(k + 1) % 4], WALL_RADIUS) for k in range(4)]

    # Two rows of three obstacles, each 0.2 W long, tilted +-20 degrees, alternating.
    obstacles = []
    half = 0.1 * w
    tilt = math.radians(20.0)
    rows = ((0.30 * w, (1 / 6, 3 / 6, 5 / 6)), (0.60 * w, (1 / 3, 1 / 2, 2 / 3)))
    k = 0
    for y, xs in rows:
        for fx in xs:
            sign = 1.0 if k % 2 == 0 else -1.0
            dx, dy = half * math.cos(tilt), sign * half * math.sin(tilt)
            cx = fx * w
            obstacles.append(((cx - dx, y - dy), (cx + dx, y + dy), OBSTACLE_RADIUS))
            k += 1
    top = max(max(a[1], b[1]) + r for a, b, r in obstacles)

    # The spawn grid: columns keep a ball's jittered edge off the walls, rows start above
    # the highest obstacle and go up.
    margin = BALL_RADIUS + JITTER + 0.15
    columns = max(1, int(math.floor((w - 2 * margin) / SPACING)) + 1)
    x0 = (w - (columns - 1) * SPACING) / 2
    y0 = top + BALL_RADIUS + JITTER + 1.0
    index = np.arange(n)
    grid = np.stack((x0 + (index % columns) * SPACING, y0 + (index // columns) * SPACING), axis=1)
    rng = np.random.default_rng(seed)
    balls = grid + rng.uniform(-JITTER, JITTER, size=(n, 2))
    if n and balls[:, 1].max() + BALL_RADIUS > h:
        raise ValueError(f"{n} balls do not fit the box")  # cannot happen for W = 20 sqrt(n/100)
    return {"n": n, "width": w, "height": h, "walls": walls, "obstacles": obstacles, "balls": balls}


def pile_scene(n):
    """A resting pile for ``n`` balls: ``pit_scene``'s box without the obstacles, the balls
    packed touching on its floor (a square grid of pitch one diameter, centres from
    (r, r), about a quarter of the box deep). Every ball has contacts from the first tick at
    every n, so the work per ball is alike from size to size (the scaling scene).

    Returns the dict of ``pit_scene`` (``obstacles`` empty, ``balls`` an (n, 2) array).
    """
    scene = pit_scene(n)
    scene["obstacles"] = []
    pitch = 2.0 * BALL_RADIUS
    columns = max(1, int(math.floor(scene["width"] / pitch)))
    index = np.arange(scene["n"])
    scene["balls"] = np.stack((BALL_RADIUS + (index % columns) * pitch,
                               BALL_RADIUS + (index // columns) * pitch), axis=1)
    return scene


def pit_level(scene):
    """The scene as a level dict for ``game.world.World.from_level`` (engine defaults for
    integrator and sub-steps, as the game runs)."""
    w, h = scene["width"], scene["height"]
    segments = [{"a": list(a), "b": list(b), "radius": r, "restitution": RESTITUTION,
                 "friction": FRICTION} for a, b, r in scene["walls"] + scene["obstacles"]]
    balls = [{"pos": [float(x), float(y)], "radius": BALL_RADIUS, "mass": BALL_MASS,
              "restitution": RESTITUTION, "friction": FRICTION} for x, y in scene["balls"]]
    return {
        "name": f"Ball pit benchmark, {scene['n']} balls",
        "gravity": [0.0, -GRAVITY],
        "bounds": [-2 * WALL_RADIUS, -2 * WALL_RADIUS, w + 2 * WALL_RADIUS, h + 2 * WALL_RADIUS],
        # No rolling resistance: pymunk has none (engines without spin ignore the key).
        "material": {"restitution": RESTITUTION, "friction": FRICTION, "rolling": 0.0},
        "segments": segments,
        "balls": balls,
    }


# ---------------------------------------------------------------------------- timing
CLOCKS = {
    # Wall time: what a player waits for; the figure on a quiet machine.
    "wall": time.perf_counter,
    # The process's CPU time: steadier on a machine shared with other busy processes, but it
    # adds up the threads of code that runs on several cores at once (then use "wall").
    "cpu": time.process_time,
}


def time_ticks(step, ticks, warmup, clock="wall"):
    """Call ``step()`` warmup times untimed, then ``ticks`` times timed on ``clock`` (a name
    in CLOCKS); (ticks,) ms."""
    for _ in range(int(warmup)):
        step()
    out = np.empty(int(ticks))
    clock = CLOCKS[clock]
    for k in range(int(ticks)):
        t0 = clock()
        step()
        out[k] = (clock() - t0) * 1000.0
    return out


def summary_ms(ms):
    """Median, mean, 10th and 90th percentile of a list of milliseconds."""
    ms = np.asarray(ms, float)
    if len(ms) == 0:
        return {"median": float("nan"), "mean": float("nan"), "p10": float("nan"), "p90": float("nan")}
    return {"median": float(np.median(ms)), "mean": float(ms.mean()),
            "p10": float(np.percentile(ms, 10)), "p90": float(np.percentile(ms, 90))}


def scaling_exponent(sizes, ms):
    """Least-squares slope of log(ms) against log(N): 1 is linear. nan with fewer than two sizes."""
    sizes, ms = np.asarray(sizes, float), np.asarray(ms, float)
    ok = (sizes > 0) & np.isfinite(ms) & (ms > 0)
    if len(np.unique(sizes[ok])) < 2:
        return float("nan")
    return float(np.polyfit(np.log(sizes[ok]), np.log(ms[ok]), 1)[0])


def median(values):
    return float(statistics.median(values))


# ---------------------------------------------------------------------------- quality
_PAIR_BUDGET = 4_000_000     # candidate pairs held in memory at once


def world_has_solver_choice():
    """Whether this build's World takes ``execution=`` (issue 23; ``solver=`` before it)."""
    import inspect
    from game.physics.world import World
    return "execution" in inspect.signature(World.from_level).parameters


def build_world(scene, integrator=None, substeps=None, solver=None):
    """(World built from the scene's level, seconds it took), with optional overrides.

    ``solver``: "compiled" or "numpy" on a build whose World takes it (ValueError on an
    older one); None keeps the World's default."""
    from game.level import complete
    from game.physics.world import World
    level = pit_level(scene)
    if integrator:
        level["integrator"] = integrator
    if substeps:
        level["substeps"] = int(substeps)
    options = {}
    if solver is not None:
        if not world_has_solver_choice():
            raise ValueError("this build's World has no solver choice (--solver needs issue 9's solver)")
        options["execution"] = solver
    # World.from_level takes normalised definitions; the balls (more, at 100,000, than a level
    # file may hold) join through World.add_balls, as balls the player spawns do.
    balls = level.pop("balls")
    level = complete(level)
    t0 = time.perf_counter()
    world = World.from_level(level, **options)
    world.add_balls(balls)
    return world, time.perf_counter() - t0


def world_spin(world):
    """(N,) rad/s: the balls' spin, or None on a build whose balls do not rotate."""
    spin = getattr(world, "spin", None)
    return None if spin is None else np.asarray(spin, float)


def overlapping_pairs(pos, radius):
    """Every pair of balls that overlap: (i, j, depth) with i < j and depth = r_i + r_j - |p_i - p_j| > 0.

    ``pos`` (N, 2); ``radius`` a number or (N,). Balls with a non-finite position are left
    out. A sort-based uniform grid (cells one largest diameter wide, each pair of
    neighbouring cells visited once), memory bounded by chunking: O(N) for a pile.
    """
    pos = np.asarray(pos, float).reshape(-1, 2)
    n = len(pos)
    radius = np.broadcast_to(np.asarray(radius, float), (n,))
    empty = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))
    alive = np.nonzero(np.isfinite(pos).all(axis=1))[0]
    if len(alive) < 2:
        return empty
    p, r = pos[alive], radius[alive]
    cell = max(2.0 * float(r.max()), 1e-9)
    c = np.floor((p - p.min(axis=0)) / cell)
    c = np.clip(c, 0, 2.0 ** 30).astype(np.int64)     # far-off balls share edge cells; harmless
    stride = np.int64(1) << 31                          # > any cy + 1: no wrap between columns
    keys = c[:, 0] * stride + c[:, 1]
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    from game.physics.collide import expand_ranges
    firsts, seconds, depths = [], [], []
    for dx, dy in ((0, 0), (1, -1), (1, 0), (1, 1), (0, 1)):
        target = sorted_keys + (dx * stride + dy)
        lo = np.searchsorted(sorted_keys, target, "left")
        hi = np.searchsorted(sorted_keys, target, "right")
        if dx == 0 and dy == 0:
            lo = np.maximum(lo, np.arange(len(lo)) + 1)   # same cell: each pair once
        hi = np.maximum(hi, lo)
        total = np.cumsum(hi - lo)
        start = 0
        while start < len(lo):
            # The largest run of owners whose candidates fit the budget (at least one owner).
            base = total[start - 1] if start else 0
            stop = max(start + 1, int(np.searchsorted(total, base + _PAIR_BUDGET, "right")))
            owner, at = expand_ranges(lo[start:stop], hi[start:stop])
            a, b = order[owner + start], order[at]
            d = p[a] - p[b]
            depth = r[a] + r[b] - np.sqrt(np.einsum("ij,ij->i", d, d))
            hit = depth > 0
            firsts.append(a[hit])
            seconds.append(b[hit])
            depths.append(depth[hit])
            start = stop
    i, j = alive[np.concatenate(firsts)], alive[np.concatenate(seconds)]
    swap = i > j
    i, j = np.where(swap, j, i), np.where(swap, i, j)
    return i, j, np.concatenate(depths)


def overlapping_pairs_brute(pos, radius):
    """The O(N^2) oracle of ``overlapping_pairs`` (tests only; small N)."""
    pos = np.asarray(pos, float).reshape(-1, 2)
    n = len(pos)
    radius = np.broadcast_to(np.asarray(radius, float), (n,))
    i, j = np.triu_indices(n, 1)
    ok = np.isfinite(pos[i]).all(axis=1) & np.isfinite(pos[j]).all(axis=1)
    i, j = i[ok], j[ok]
    depth = radius[i] + radius[j] - np.linalg.norm(pos[i] - pos[j], axis=1)
    hit = depth > 0
    return i[hit], j[hit], depth[hit]


def quality(pos, vel, radius, box, spin=None):
    """Quality of a final state, measured the same way for any engine.

    ``box`` = (x_min, y_min, x_max, y_max), the inner rectangle. Returns:
    ``escaped`` balls whose centre is outside the inner rectangle (or not finite);
    ``overlap_pairs`` ball-ball pairs that overlap; ``overlap_mean`` their mean depth
    (the mean over touching pairs, 0 if none); ``overlap_max`` the deepest; ``overlap_per_ball``
    the summed depth divided by N; ``wall_overlap_max`` the deepest a ball reaches past an
    inner face of the box (0 if none); ``speed_mean`` the mean speed (m/s), to show
    whether the pile has settled; ``spin_mean`` the mean |spin| (rad/s) of the (N,) ``spin``,
    None where the engine's balls do not rotate. Depths in metres.
    """
    pos = np.asarray(pos, float).reshape(-1, 2)
    vel = np.asarray(vel, float).reshape(-1, 2)
    n = len(pos)
    radius = np.broadcast_to(np.asarray(radius, float), (n,))
    spin = None if spin is None else np.asarray(spin, float).reshape(-1)
    x0, y0, x1, y1 = box
    with np.errstate(invalid="ignore"):
        inside = (pos[:, 0] >= x0) & (pos[:, 0] <= x1) & (pos[:, 1] >= y0) & (pos[:, 1] <= y1)
        past = np.max(np.stack((x0 - (pos[:, 0] - radius), (pos[:, 0] + radius) - x1,
                                y0 - (pos[:, 1] - radius), (pos[:, 1] + radius) - y1), axis=1), axis=1)
    past = past[inside]
    _, _, depth = overlapping_pairs(pos, radius)
    speed = np.hypot(vel[:, 0], vel[:, 1])
    return {
        "escaped": int(n - inside.sum()),
        "overlap_pairs": int(len(depth)),
        "overlap_mean": float(depth.mean()) if len(depth) else 0.0,
        "overlap_max": float(depth.max()) if len(depth) else 0.0,
        "overlap_per_ball": float(depth.sum() / n) if n else 0.0,
        "wall_overlap_max": float(max(0.0, past.max())) if len(past) else 0.0,
        "speed_mean": float(np.mean(speed[np.isfinite(speed)])) if np.isfinite(speed).any() else float("nan"),
        "spin_mean": None if spin is None else float(np.mean(np.abs(spin))) if n else 0.0,
        "finite": bool(np.isfinite(pos).all() and np.isfinite(vel).all()
                       and (spin is None or np.isfinite(spin).all())),
    }


# ---------------------------------------------------------------------------- reporting
def machine_info():
    """What the numbers were measured on."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    info = {"platform": platform.platform(), "python": platform.python_version(), "cpu": cpu,
            "cpu_count": os.cpu_count(), "numpy": np.__version__}
    info["source"] = source_info()
    try:
        import pymunk
        info["pymunk"] = pymunk.version
    except ImportError:
        pass
    try:
        from importlib.metadata import version
        info["pyb2d3"] = version("pyb2d3")
    except Exception:             # not installed (PackageNotFoundError), or no metadata
        pass
    return info


def source_info():
    """Which engine was measured: the git commit, whether game/ had uncommitted changes, and
    a digest of the game/**/*.py files as they were read (changes under a running benchmark show)."""
    import glob
    import hashlib
    import subprocess
    digest = hashlib.sha256()
    for path in sorted(glob.glob(os.path.join(ROOT, "game", "**", "*.py"), recursive=True)):
        with open(path, "rb") as f:
            digest.update(os.path.relpath(path, ROOT).encode() + b"\0" + f.read())
    info = {"game_digest": digest.hexdigest()[:12], "commit": None, "game_dirty": None}
    try:
        info["commit"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                        text=True, timeout=10).stdout.strip() or None
        status = subprocess.run(["git", "status", "--porcelain", "--", "game"], cwd=ROOT, capture_output=True,
                                text=True, timeout=10).stdout
        info["game_dirty"] = bool(status.strip())
    except (OSError, subprocess.SubprocessError):
        pass
    return info


def machine_lines(info, ratio=False):
    lines = [f"machine: {info['platform']}, Python {info['python']}, {info['cpu']}, "
             f"{info['cpu_count']} CPUs, numpy {info['numpy']}"
             + (f", pymunk {info['pymunk']}" if "pymunk" in info else "")
             + (f", pyb2d3 {info['pyb2d3']}" if "pyb2d3" in info else "")]
    if "pygame" in info:
        lines[0] += f", pygame-ce {info['pygame']}"
    src = info.get("source")
    if src:
        lines.append(f"engine source: commit {src['commit'] or '?'}"
                     + (" with uncommitted changes in game/" if src["game_dirty"] else "")
                     + f", game/**/*.py digest {src['game_digest']}")
    lines.append("note: absolute times vary by machine; the ratio is the figure to compare." if ratio else
                 "note: absolute times vary by machine; compare runs on the same machine.")
    return lines


def parse_sizes(text):
    """"1000,2000" -> [1000, 2000]."""
    sizes = [int(v) for v in str(text).replace(" ", "").split(",") if v]
    if not sizes or min(sizes) < 1:
        raise ValueError(f"expected positive ball counts separated by commas, got {text!r}")
    return sizes


def table(header, rows, align=None):
    """A plain text table; align: string of 'l'/'r' per column (default: first left, rest right)."""
    cells = [[str(c) for c in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[k]) for row in cells) for k in range(len(header))]
    align = align or "l" + "r" * (len(header) - 1)
    out = []
    for n, row in enumerate(cells):
        out.append("  ".join(c.ljust(w) if a == "l" else c.rjust(w) for c, w, a in zip(row, widths, align)).rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def dump_json(obj):
    def clean(x):
        if isinstance(x, float) and not math.isfinite(x):
            return None
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [clean(v) for v in x]
        if isinstance(x, np.generic):
            return clean(x.item())
        return x
    return json.dumps(clean(obj), indent=2)
