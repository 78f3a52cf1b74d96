"""Every level in levels/ runs headless: no exception, finite, nothing escapes, overlap bounded,
deterministic. And each level shows what it promises."""
from game.paths import ROOT as ROOT_DIR  # noqa: E402
import os

import numpy as np
import pytest

from scenes import build_world
from game.headless import simulate
from game.defaults import TICK
from game.level import level_files, load

World = pytest.importorskip("game.physics.world").World

ROOT = ROOT_DIR
LEVELS = level_files(os.path.join(ROOT, "levels"))
DT = TICK
STEPS = 200             # ticks: 3.3 simulated seconds
CHECK_EVERY = 40        # ticks between the (costlier) overlap checks
SAME_AFTER = 40         # ticks the second run goes to compare state hashes


@pytest.mark.parametrize("path", LEVELS, ids=os.path.basename)
def test_level_runs_finite_closed_bounded_and_deterministic(path):
    world = build_world(load(path))
    hashes = {}
    for tick in range(1, STEPS + 1):
        world.step(DT)
        assert np.isfinite(world.pos).all() and np.isfinite(world.vel).all(), f"not finite at tick {tick}"
        if tick % CHECK_EVERY == 0 or tick == STEPS:
            assert world.escaped() == 0, f"{world.escaped()} balls escaped by tick {tick}"
            smallest = float(world.radius.min()) if world.count else 1.0
            assert world.max_overlap() <= 0.5 * smallest, f"overlap {world.max_overlap():.3f} m at tick {tick}"
        if tick == SAME_AFTER:
            hashes["first"] = world.state_hash()
    again = build_world(load(path))
    for _ in range(SAME_AFTER):
        again.step(DT)
    assert again.state_hash() == hashes["first"], "two runs of the same level differ"


def _springs_world(integrator):
    doc = load(os.path.join(ROOT, "levels", "05_springs.json"))
    doc["integrator"] = integrator
    return build_world(doc)


def test_springs_euler_blows_up_and_rk4_holds():
    """The point of 05_springs: the integrator switch matters on screen."""
    euler = simulate(_springs_world("euler"), 60)
    assert not euler["finite"] or euler["energy_end"] is None or euler["energy_end"] > 100 * euler["energy_start"]
    rk4 = simulate(_springs_world("rk4"), 60)
    assert rk4["finite"] and rk4["energy_end"] <= 1.01 * rk4["energy_start"]


def test_cradle_passes_the_knock_to_the_last_ball():
    """Five touching balls: the first strikes at v, the last leaves at v (>= 0.95 v) and the
    others stay (<= 0.05 v), as pairwise elastic collisions of equal balls do."""
    doc = load(os.path.join(ROOT, "levels", "06_cradle.json"))
    world = build_world(doc)
    rest_x = doc["springs"][4]["b"][0]
    strike, furthest = 0.0, 0.0
    for _ in range(150):
        before = float(world.vel[0, 0])
        world.step(DT)
        if strike == 0.0 and world.vel[4, 0] > 0.5:      # the knock arrived in this tick
            strike = before
            assert world.vel[4, 0] >= 0.95 * strike
            assert np.all(np.abs(world.vel[:4, 0]) <= 0.05 * strike)
        furthest = max(furthest, float(world.pos[4, 0]) - rest_x)
    assert strike > 4.0, "the first ball struck"
    assert furthest > 1.5, "the fifth ball swings out"
    assert abs(float(world.pos[2, 0]) - doc["springs"][2]["b"][0]) < 0.1, "the middle ball stays near home"


def _thin_walls(doc):
    walls = [(s["a"], s["b"]) for s in doc["segments"] if s["radius"] == 0]
    for line in doc["polylines"]:
        if line["radius"] == 0:
            points = line["points"] + (line["points"][:1] if line["closed"] else [])
            walls += list(zip(points[:-1], points[1:]))
    return np.asarray([a for a, _ in walls], float), np.asarray([b for _, b in walls], float)


def test_bullets_never_cross_a_thin_wall():
    """07_bullet: balls at 100-400 m/s; no centre ever crosses a thin wall, sub-step by sub-step.

    With one sub-step per call a ball moves in a straight line from where it was to where
    it is (the sweep stops it at its first touch), so that chord must not cut a wall.
    """
    from game.physics.geometry import segment_intersections
    doc = load(os.path.join(ROOT, "levels", "07_bullet.json"))
    wall_a, wall_b = _thin_walls(doc)
    assert len(wall_a) >= 8
    world = build_world(doc)
    assert np.abs(world.vel).max() >= 390
    substeps, world.substeps = world.substeps, 1
    for sub in range(60 * substeps):
        before = world.pos.copy()
        world.step(DT / substeps)
        _, hit = segment_intersections(before[:, None, :], world.pos[:, None, :], wall_a[None], wall_b[None])
        assert not np.any(hit), f"sub-step {sub}: balls {np.nonzero(hit.any(axis=1))[0]} crossed a thin wall"
    assert world.escaped() == 0


def test_goal_level_counts_balls_in_its_cup():
    world = build_world(load(os.path.join(ROOT, "levels", "08_goal.json")))
    assert world.goal_progress() == (0, 10)


def test_a_snapshot_resumes_where_the_run_left_off(tmp_path):
    """--save's promise: the saved world, loaded again, carries on as the original does."""
    from game.level import save
    world = build_world(load(os.path.join(ROOT, "levels", "06_cradle.json")))
    for _ in range(60):
        world.step(DT)
    save(world.to_level(), tmp_path / "snap.json")
    resumed = build_world(load(tmp_path / "snap.json"))
    np.testing.assert_array_equal(resumed.pos, world.pos)
    np.testing.assert_array_equal(resumed.vel, world.vel)
    for _ in range(30):
        world.step(DT)
        resumed.step(DT)
    np.testing.assert_allclose(resumed.pos, world.pos, atol=1e-6)
