"""Smoke tests of the benchmarks: they run (tiny sizes), report both engines, and measure right.

No timing assertions: speed is what the benchmarks measure, not what tests check.
"""
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "benchmarks")
if BENCH not in sys.path:
    sys.path.insert(0, BENCH)

import common  # noqa: E402
from scenes import build_world  # noqa: E402


def _pairs(result):
    i, j, depth = result
    return sorted(zip(i.tolist(), j.tolist())), dict(zip(zip(i.tolist(), j.tolist()), depth.tolist()))


# ---------------------------------------------------------------------------- quality measures
def test_overlap_of_two_balls():
    i, j, depth = common.overlapping_pairs([[0.0, 0.0], [0.8, 0.0]], 0.5)
    assert (i.tolist(), j.tolist()) == ([0], [1])
    assert depth[0] == pytest.approx(0.2)
    q = common.quality([[1.0, 1.0], [1.8, 1.0]], np.zeros((2, 2)), 0.5, (0, 0, 10, 10))
    assert q["overlap_pairs"] == 1
    assert q["overlap_mean"] == pytest.approx(0.2)
    assert q["overlap_max"] == pytest.approx(0.2)
    assert q["overlap_per_ball"] == pytest.approx(0.1)


def test_mean_spin_is_measured_where_balls_rotate():
    pos, vel = [[1.0, 1.0], [3.0, 1.0]], np.zeros((2, 2))
    assert common.quality(pos, vel, 0.5, (0, 0, 10, 10), spin=[2.0, -4.0])["spin_mean"] == pytest.approx(3.0)
    assert common.quality(pos, vel, 0.5, (0, 0, 10, 10))["spin_mean"] is None


def test_touching_and_apart_balls_do_not_overlap():
    i, _, _ = common.overlapping_pairs([[0.0, 0.0], [1.0, 0.0], [3.0, 0.0]], 0.5)
    assert len(i) == 0


@pytest.mark.parametrize("n, seed", [(2, 0), (60, 1), (400, 2), (1500, 3)])
def test_overlap_matches_brute_force(n, seed):
    rng = np.random.default_rng(seed)
    pos = rng.uniform(0, 8 * math.sqrt(n / 100), (n, 2))
    radius = rng.uniform(0.1, 0.6, n)
    got_pairs, got = _pairs(common.overlapping_pairs(pos, radius))
    want_pairs, want = _pairs(common.overlapping_pairs_brute(pos, radius))
    assert got_pairs == want_pairs
    for key in want:
        assert got[key] == pytest.approx(want[key], abs=1e-12)


def test_overlap_in_chunks_and_with_far_and_bad_points(monkeypatch):
    rng = np.random.default_rng(7)
    pos = rng.uniform(0, 3, (300, 2))
    pos[:3] = [[1e12, -1e12], [np.nan, 1.0], [np.inf, 0.0]]     # far away, not finite
    want, _ = _pairs(common.overlapping_pairs_brute(pos, 0.5))
    monkeypatch.setattr(common, "_PAIR_BUDGET", 17)               # many small chunks
    got, _ = _pairs(common.overlapping_pairs(pos, 0.5))
    assert got == want


def test_escaped_and_wall_overlap():
    pos = np.array([[0.5, 0.5], [0.3, 5.0], [-0.1, 5.0], [5.0, 10.5], [np.nan, 1.0]])
    q = common.quality(pos, np.zeros_like(pos), 0.5, (0.0, 0.0, 10.0, 10.0))
    assert q["escaped"] == 3
    assert q["wall_overlap_max"] == pytest.approx(0.2)
    assert not q["finite"]


def test_scaling_exponent():
    sizes = [1000, 2000, 5000, 10000]
    assert common.scaling_exponent(sizes, [0.003 * n for n in sizes]) == pytest.approx(1.0)
    assert common.scaling_exponent(sizes, [1e-6 * n * n for n in sizes]) == pytest.approx(2.0)
    assert math.isnan(common.scaling_exponent([1000], [3.0]))


# ---------------------------------------------------------------------------- the scene
@pytest.mark.parametrize("n", [1, 100, 1000, 10000])
def test_pit_scene(n):
    scene = common.pit_scene(n)
    w, h = scene["width"], scene["height"]
    assert w == pytest.approx(20 * math.sqrt(n / 100)) and h == pytest.approx(2 * w)
    balls = scene["balls"]
    assert balls.shape == (n, 2)
    # Inside the box, above every obstacle, not overlapping each other, the same every time.
    assert balls[:, 0].min() > 0.5 and balls[:, 0].max() < w - 0.5 and balls[:, 1].max() < h - 0.5
    top = max(max(a[1], b[1]) + r for a, b, r in scene["obstacles"])
    assert balls[:, 1].min() - 0.5 > top
    assert len(common.overlapping_pairs(balls, 0.5)[0]) == 0
    assert np.array_equal(balls, common.pit_scene(n)["balls"])
    # The walls' inner faces lie on the box; six obstacles in the lower half.
    (a0, b0, r0) = scene["walls"][0]
    assert r0 == 0.5 and a0[1] + r0 == pytest.approx(0.0)
    assert len(scene["obstacles"]) == 6
    assert all(max(a[1], b[1]) < w for a, b, _ in scene["obstacles"])


# ---------------------------------------------------------------------------- the scripts
def _run(*args, timeout=120):
    proc = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_ball_pit_json_has_both_engines():
    data = json.loads(_run("benchmarks/ball_pit.py", "--sizes", "100,200", "--ticks", "10", "--warmup", "5",
                           "--json", "--quiet"))
    assert [r["n"] for r in data["results"]] == [100, 200]
    for row in data["results"]:
        for engine in ("ours", "pymunk"):
            ms = row[engine]["ms_per_tick"]
            assert isinstance(ms, float) and math.isfinite(ms) and ms > 0
            q = row[engine]["quality"]
            assert q["finite"] and q["escaped"] == 0
        assert math.isfinite(row["ratio"]) and row["ratio"] > 0
    assert {"ours", "pymunk"} <= set(data["scaling_exponent"])     # and "box2d" where pyb2d3 imports
    assert all(math.isfinite(v) for v in data["scaling_exponent"].values())
    assert data["machine"]["cpu_count"] >= 1 and data["machine"]["numpy"]


def test_ball_pit_table():
    out = _run("benchmarks/ball_pit.py", "--sizes", "100", "--ticks", "5", "--warmup", "2", "--quiet")
    for text in ("ours ms/tick", "pymunk ms/tick", "ours/pymunk", "escaped", "mean overlap", "max overlap",
                 "scaling exponent", "machine:", "the ratio is the figure to compare"):
        assert text in out


def _has_pyb2d3():
    import importlib.util
    return importlib.util.find_spec("pyb2d3") is not None


_BOX2D_SCENE_CHECK = r"""
import sys
sys.path.insert(0, "benchmarks")
import numpy as np
import ball_pit, common
scene = common.pit_scene(60)
world, bodies = ball_pit.build_box2d(scene)
assert np.allclose(bodies.get_positions(), scene["balls"], atol=1e-5)
assert np.allclose([b.mass for b in bodies], common.BALL_MASS, rtol=1e-5)
assert np.allclose([b.rotational_inertia() for b in bodies], 0.5 * common.BALL_MASS * common.BALL_RADIUS ** 2, rtol=1e-5)
for _ in range(5):
    world.step(common.TICK, 4)
# 5 ticks of free fall: v = g t, and no ball has touched another or a wall yet.
assert np.allclose(bodies.get_linear_velocities()[:, 1], -common.GRAVITY * 5 * common.TICK, rtol=1e-3)
print("box2d scene ok")
"""


@pytest.mark.skipif(not _has_pyb2d3(), reason="pyb2d3 (Box2D v3) is not installed: ball_pit.py runs without it")
def test_ball_pit_runs_box2d_on_a_tiny_pit_and_matches_the_scene():
    data = json.loads(_run("benchmarks/ball_pit.py", "--sizes", "60", "--ticks", "5", "--warmup", "2",
                           "--only", "box2d", "--json", "--quiet"))
    row = data["results"][0]
    assert data["missing"] is None and math.isfinite(row["box2d"]["ms_per_tick"]) and row["box2d"]["ms_per_tick"] > 0
    assert row["box2d"]["settings"]["substeps"] == 4 and row["box2d"]["settings"]["sleeping"] is False
    # The same scene as ours: positions, 1 kg discs, free fall that agrees for a few ticks (in a
    # child process: pyb2d3 lists "leaked" objects on stderr when the interpreter ends).
    assert "box2d scene ok" in _run("-c", _BOX2D_SCENE_CHECK)


def test_ball_pit_without_pyb2d3_runs_the_others_and_says_so_in_one_line(monkeypatch):
    import ball_pit
    monkeypatch.setattr(ball_pit, "box2d_missing", lambda: "Box2D v3 left out: pyb2d3 does not import here")
    data = ball_pit.run([40], ticks=2, warmup=1)
    assert data["engines"] == ["ours", "pymunk"] and "box2d" not in data["results"][0]
    out = ball_pit.report(data)
    assert out.count("Box2D v3 left out") == 1 and "ours/pymunk" in out


def test_equal_quality_finds_the_fewest_pymunk_steps_that_match():
    import ball_pit
    scene = common.pit_scene(60)
    target = 0.5 * ball_pit.run_pymunk(scene, 30, 10)["quality"]["overlap_mean"] or 1e-3
    eq = ball_pit.equal_quality_pymunk(scene, target, 2 * target, 30, 10, most=8)
    tried = {k: ov for k, _, ov in eq["tries"]}
    if eq["steps"] is None:
        assert all(ov > target for ov in tried.values()) and max(tried) == 8
    else:
        assert tried[eq["steps"]] <= target                         # it matches ...
        assert eq["steps"] == 2 or tried[eq["steps"] - 1] > target   # ... and one step fewer does not


def test_pymunk_and_our_scene_match():
    ball_pit = pytest.importorskip("ball_pit")
    pytest.importorskip("pymunk")
    from game.physics.world import World
    scene = common.pit_scene(50)
    world = build_world(common.pit_level(scene))
    space, bodies = ball_pit.build_pymunk(scene)
    assert world.count == len(bodies) == 50
    assert np.allclose(world.pos, [tuple(b.position) for b in bodies])
    assert np.allclose(1.0 / world.inv_mass, [b.mass for b in bodies])
    assert np.allclose([b.moment for b in bodies], 0.5 * common.BALL_MASS * common.BALL_RADIUS ** 2)  # discs
    assert np.allclose(world.radius, 0.5)
    assert len(world.statics.a) == 10 and len(space.static_body.shapes) == 10
    # Free fall for a few ticks: both engines agree on where the balls are.
    for _ in range(5):
        world.step(common.TICK)
        space.step(common.TICK)
    assert np.allclose(world.pos, [tuple(b.position) for b in bodies], atol=1e-2)


def test_bench_step_runs():
    out = _run("benchmarks/bench_step.py", "--sizes", "50,100", "--ticks", "3", "--warmup", "1")
    assert "median ms/step" in out and "100" in out


def test_bench_body_levels_times_both_ways_and_refuses_a_level_without_bodies():
    data = json.loads(_run("benchmarks/bench_body_levels.py", "--levels", "41_dominoes", "--ticks", "2", "--warmup",
                           "1", "--repeats", "1", "--json"))
    row = data["results"][0]
    assert row["level"] == "41_dominoes" and row["calls"] is True
    assert row["substeps_ms"] > 0 and row["calls_ms"] > 0
    bad = subprocess.run([sys.executable, "benchmarks/bench_body_levels.py", "--levels", "01_ball_pit"], cwd=ROOT,
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "not a shipped level with bodies: 01_ball_pit" in bad.stderr


def test_bench_sleep_puts_a_resting_pile_to_sleep():
    data = json.loads(_run("benchmarks/bench_sleep.py", "--sizes", "60", "--ticks", "3", "--repeats", "1",
                           "--settle", "300", "--json"))
    row = data["results"][0]
    assert row["n"] == 60 and row["slept_after_ticks"] is not None
    assert math.isfinite(row["ratio"]) and row["awake_ms"] > 0


def test_bench_frame_runs():
    """Serial frames and, in a pass of their own (--overlap), the game's two-core frames; the
    report says which execution and path the ticks took."""
    data = json.loads(_run("benchmarks/bench_frame.py", "--sizes", "100", "--frames", "3", "--warmup", "1",
                           "--launches", "1", "--overlap", "--json"))
    row = data["frames_results"][0]
    assert row["n"] == 100
    assert row["overlap"]["frames_apart"] == 3           # every timed frame of the pass ran its tick on the worker
    assert row["overlap"]["ticks"]["on_worker"] == 3 and row["path"]["execution"] == "compiled"
    assert row["overlap"]["ticks"]["worker_threads"] == 1      # the game's one tick thread, frame after frame
    assert row["path"]["one_call_ticks"] == row["path"]["ticks"] == 3     # a segment box: the one-call tick
    assert row["tick_cpu"]["median"] > 0 and row["path"]["touching_per_ball"] >= 0
    for part in ("step", "draw", "total"):
        assert math.isfinite(row[part]["median"]) and row[part]["median"] > 0
        assert math.isfinite(row["overlap"][part]["median"]) and row["overlap"][part]["median"] > 0
    launch = data["launch"]
    assert launch["median_s"] > 0 and len(launch["launches"]) == 1


def test_bench_frame_compare_draws_each_frame_both_ways():
    data = json.loads(_run("benchmarks/bench_frame.py", "--sizes", "100", "--frames", "4", "--warmup", "2",
                           "--launches", "0", "--compare", "--json"))
    row = data["frames_results"][0]
    assert row["stamper"] is True                  # numba is a dependency: the stamper drew
    assert math.isfinite(row["draw_blit"]["median"]) and row["draw_blit"]["median"] > 0


def test_bench_window_tick_runs_the_window_and_the_same_ticks_headless():
    """game.app.run itself (SDL's dummy video) for a second, then the same ticks headless: the
    world's ticks and the game's whole ticks (App._step and after_tick) on both sides."""
    data = json.loads(_run("benchmarks/bench_window_tick.py", "--level", "levels/08_goal.json", "--seconds", "1",
                           "--from-start", "--json"))
    assert data["window"]["ticks"] == data["headless"]["ticks"] == data["headless_paced"]["ticks"] > 0
    assert data["game_tick"]["ticks"] == data["window"]["ticks"] == data["headless_tick"]["ticks"]
    assert data["game_tick"]["cpu_ms"] >= data["window"]["cpu_ms"] > 0     # each contains its world.step
    for key in ("ratio_wall", "ratio_cpu", "game_ratio_wall", "game_ratio_cpu"):
        assert math.isfinite(data[key]) and data[key] > 0


# ---------------------------------------------------------------------------- scaling and cold start
@pytest.mark.parametrize("n", [1, 150, 2000])
def test_pile_scene_packs_the_balls_touching_on_the_floor(n):
    scene = common.pile_scene(n)
    w, r = scene["width"], common.BALL_RADIUS
    balls = scene["balls"]
    assert balls.shape == (n, 2) and scene["obstacles"] == [] and len(scene["walls"]) == 4
    # Inside the box, the bottom row on the floor, no two overlapping.
    assert balls.min() >= r and balls[:, 0].max() <= w - r and balls[:, 1].max() < scene["height"] / 4 + 2 * r
    assert np.all(balls[balls[:, 1] == balls[:, 1].min(), 1] == r)
    assert len(common.overlapping_pairs(balls, r)[0]) == 0
    if 1 < n <= 200:
        # Every ball touches a neighbour: its nearest centre exactly one diameter away (brute force).
        d = np.hypot(*(balls[:, None, :] - balls[None, :, :]).transpose(2, 0, 1))
        np.fill_diagonal(d, np.inf)
        assert np.allclose(d.min(axis=1), 2 * r)
    if n > 1:
        # A quarter of the box deep (to a row), whatever n: the work per ball is alike at every size.
        rows = len(np.unique(balls[:, 1]))
        assert rows * 2 * r == pytest.approx(w / 4, abs=2 * r)


def test_time_ticks_on_the_cpu_clock_counts_work_not_sleep():
    import time
    wall = common.time_ticks(lambda: time.sleep(0.01), 2, 0, "wall")
    cpu = common.time_ticks(lambda: time.sleep(0.01), 2, 0, "cpu")
    assert wall.min() >= 10.0                      # slept 10 ms a tick, and the wall saw it
    assert cpu.max() < 10.0                        # the process did not work while it slept


def _plot_data(rows, scene="pit"):
    import plot_scaling
    return {"scene": scene, "clock": "cpu", "ticks": 5, "warmup": 1, "repeats": 1,
            "machine": common.machine_info(), "results": rows, "scaling_exponent": plot_scaling.exponents(rows)}


def _row(n, ours, pymunk=None):
    def engine(ms):
        return {"ms_per_tick": ms, "ms": {"median": ms, "p10": 0.8 * ms, "p90": 1.3 * ms},
                "escaped": 0, "overlap_mean": 0.0, "finite": True}
    row = {"n": n, "ours": engine(ours)}
    if pymunk is not None:
        row["pymunk"] = engine(pymunk)
        row["ratio"] = ours / pymunk
    return row


def test_scaling_plot_draws_both_curves_and_the_frame_budget(tmp_path):
    import pygame
    import plot_scaling
    rows = [_row(1000, 1.0, 1.5), _row(10000, 10.0, 60.0), _row(100000, 100.0)]
    data = _plot_data(rows)
    assert data["scaling_exponent"]["ours"] == pytest.approx(1.0)
    assert data["scaling_exponent"]["pymunk"] == pytest.approx(math.log(40) / math.log(10))
    path = plot_scaling.plot(data, str(tmp_path / "s.png"), "python benchmarks/plot_scaling.py")
    image = pygame.image.load(path)
    assert image.get_size() == plot_scaling.IMAGE_SIZE
    rgb = pygame.surfarray.array3d(image).reshape(-1, 3).astype(np.int64)
    colours = set(np.unique(rgb @ np.array([1 << 16, 1 << 8, 1])).tolist())
    for r, g, b in (plot_scaling.COLOURS["ours"], plot_scaling.COLOURS["pymunk"], plot_scaling.BUDGET):
        assert (r << 16 | g << 8 | b) in colours
    assert "Ballpit" in plot_scaling.report(data) and "100,000" in plot_scaling.report(data)


def test_log_ticks_are_one_two_five_within_the_range():
    import plot_scaling
    assert plot_scaling._log_ticks(700, 130000) == [1000, 2000, 5000, 10000, 20000, 50000, 100000]
    assert plot_scaling._log_ticks(0.3, 3) == [0.5, 1, 2]


def test_scaling_measure_runs_both_engines_and_ours_alone_where_asked():
    pytest.importorskip("pymunk")
    import plot_scaling
    data = plot_scaling.measure("pile", [40], [80], ticks=2, warmup=1, repeats=1, clock="cpu")
    assert [r["n"] for r in data["results"]] == [40, 80]
    assert "pymunk" in data["results"][0] and "pymunk" not in data["results"][1]
    assert data["results"][0]["ratio"] > 0 and data["results"][1]["ours"]["escaped"] == 0
    assert math.isfinite(data["scaling_exponent"]["ours"])


def test_cold_start_frame_rate_windows_match_brute_force():
    import bench_coldstart
    # 60 FPS on numpy with one 200 ms stall at 1 s, the kernels in use from 2.5 s, then 60 FPS.
    times = [k / 60 for k in range(61)] + [1.2 + k / 60 for k in range(180)]
    frames = [(1.0 + t, t >= 2.5, 0.004 * k) for k, t in enumerate(times)]
    stats = bench_coldstart.frame_stats(frames)
    assert stats["full_speed_s"] == pytest.approx(times[next(k for k, t in enumerate(times) if t >= 2.5)])
    assert stats["before"]["max_gap_ms"] == pytest.approx(200, rel=1e-6)
    assert stats["after"]["max_gap_ms"] == pytest.approx(1000 / 60, rel=1e-6)
    assert stats["before"]["cpu_ms_median"] == pytest.approx(4.0)

    def brute(ts):   # fewest frames in [t, t + 1) over frame times t whose window fits
        return min(sum(1 for u in ts if t <= u < t + 1.0) for t in ts if t + 1.0 <= ts[-1])
    assert stats["whole"]["min_fps"] == brute(times)
    assert stats["before"]["min_fps"] < 50 <= stats["after"]["min_fps"]


def test_cold_start_reports_when_the_tick_came_and_the_world_speed_before_full_speed():
    import bench_coldstart
    # 60 FPS throughout; the world at half speed until the kernels (2 s), the tick from 3 s.
    times = [k / 60 for k in range(301)]
    frames = [(t, t >= 2.0, 0.0, t >= 3.0, 0.5 * min(t, 2.0) + max(0.0, t - 2.0)) for t in times]
    stats = bench_coldstart.frame_stats(frames)
    assert stats["full_speed_s"] == pytest.approx(2.0, abs=1 / 60)
    assert stats["tick_s"] == pytest.approx(3.0, abs=1 / 60)
    assert stats["before"]["sim_speed"] == pytest.approx(0.5)


def test_the_compile_profile_takes_each_callees_compile_out_of_its_callers():
    import bench_coldstart
    # tick (0-10 s) compiles _substep (1-7 s), which compiles _candidates (2-4 s); then sweep alone.
    notes = [(0.0, True, "tick", "()"), (1.0, True, "_substep", "()"), (2.0, True, "_candidates", "()"),
             (4.0, False, "", ""), (7.0, False, "", ""), (10.0, False, "", ""),
             (11.0, True, "sweep", "()"), (11.5, False, "", "")]
    rows = {r["function"]: r for r in bench_coldstart.compile_table(notes)}
    assert {name: (r["inclusive_s"], r["exclusive_s"], r["depth"]) for name, r in rows.items()} == {
        "tick": (10.0, 4.0, 0), "_substep": (6.0, 4.0, 1), "_candidates": (2.0, 2.0, 2), "sweep": (0.5, 0.5, 0)}


def test_profile_tick_times_every_statement_of_the_substep_and_names_it_by_its_kernel():
    import ast
    import profile_tick
    source = '''
from numba import njit
from game.physics.compiled import kernels as K


@njit(cache=True)
def _helper(x):
    return x


@njit(cache=True)
def _substep(a, b):
    c = a + b
    d = SK.solve(_helper(c), b)
    if d:
        e = _helper(PK.prepare_contacts(d))
    return c, d


@njit(cache=True, nogil=True)
def tick(n, a, b):
    for k in range(n - 1):
        a, b = _substep(a, b)
    return _substep(a, b)


STAGES = (_helper, _substep, tick)
'''
    text, labels = profile_tick.timed_source(source)
    assert labels == ["glue", "SK.solve", "PK.prepare_contacts", "glue",          # the sub-step's 3 statements + return
                      "tick: _substep", "tick: _substep"]
    tree = ast.parse(text)                                                      # valid Python
    names = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert [a.arg for a in names["_substep"].args.args] == ["a", "b", "_timers"]
    assert [a.arg for a in names[profile_tick.TIMED].args.args] == ["n", "a", "b", "_timers"]
    assert "tick" in names and "STAGES = (_helper, _substep, _tick_timed)" in text   # the wrapper; references renamed
    assert text.count("_rdtsc() - _t0") == len(labels)
    with pytest.raises(RuntimeError, match="needs updating"):
        profile_tick.timed_source("def f():\n    pass\n")
