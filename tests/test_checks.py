"""game.checks and ``main.py --check``: shipped levels are clean; each broken level (made
here) finds its problem at the right place; the flood never reports a gap a ball cannot pass."""
import glob
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.checks import HEX_PACKING, _clearance_grid, check, clearance, static_pieces
from game.level import load, loads

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LEVELS = sorted(p for p in glob.glob(os.path.join(ROOT, "levels", "*.json")) if not p.endswith(".schema.json"))


def box(**keys):
    """A closed-bottom box 0..20 x 0..10 (open at the top), a spawner inside; keys replace or add."""
    level = {"bounds": [0, 0, 20, 12],
             "polylines": [{"points": [[0, 10], [0, 0], [20, 0], [20, 10]]}],
             "spawners": [{"pos": [10, 8], "radius": 0.25}]}
    level.update(keys)
    return loads(json.dumps(level))


def found(level, word):
    return [f for f in check(level) if word in f.reason]


@pytest.mark.parametrize("path", LEVELS, ids=os.path.basename)
def test_shipped_levels_have_no_findings(path):
    assert check(load(path)) == []


def test_a_clean_box_has_no_findings():
    assert check(box()) == []


def test_a_gap_in_the_floor_wider_than_a_ball_leaks_and_is_marked_at_the_gap():
    level = box(polylines=[{"points": [[0, 10], [0, 0], [12, 0]]}, {"points": [[13, 0], [20, 0], [20, 10]]}])
    leaks = found(level, "leak")
    assert len(leaks) == 1
    x, y = leaks[0].point
    assert 12 <= x <= 13 and abs(y) < 0.5


def test_a_gap_in_a_side_wall_leaks_but_the_open_top_does_not():
    level = box(polylines=[{"points": [[0, 10], [0, 0], [20, 0]]}, {"points": [[20, 1], [20, 10]]}])
    leaks = found(level, "leak")
    assert len(leaks) == 1 and abs(leaks[0].point[0] - 20) < 0.5 and 0 <= leaks[0].point[1] <= 1


@pytest.mark.parametrize("balls, leaks", [(50, False), (500, True)])
def test_a_gap_high_in_a_wall_leaks_once_enough_balls_pile_up_to_it(balls, leaks):
    """50 balls of radius 0.25 m cover the 20 m floor about 0.6 m deep; 500 fill it past the
    gap 2 m up. (The box is 10 m high: 500 balls do not reach its open top.)"""
    level = box(polylines=[{"points": [[0, 10], [0, 0], [20, 0], [20, 2]]}, {"points": [[20, 3], [20, 10]]}],
                spawners=[{"pos": [10, 8], "radius": 0.25, "max": balls}])
    found_leaks = found(level, "leak")
    assert bool(found_leaks) == leaks
    if leaks:
        assert abs(found_leaks[0].point[0] - 20) < 0.5 and 2 <= found_leaks[0].point[1] <= 3


@settings(max_examples=25, deadline=None)
@given(st.floats(0.05, 1.5))
def test_a_floor_gap_leaks_only_when_the_smallest_ball_fits_through(width):
    r = 0.25
    level = box(polylines=[{"points": [[0, 10], [0, 0], [10, 0]]},
                           {"points": [[10 + width, 0], [20, 0], [20, 10]]}],
                spawners=[{"pos": [10 + width / 2, 8], "radius": r}])
    leaks = found(level, "leak")
    h = r / 4                               # the flood's cell: a gap within a cell of 2r may go either way
    if width < 2 * r:
        assert leaks == []
    elif width > 2 * r + 2 * h:
        assert len(leaks) == 1


def test_no_gravity_skips_the_leak_check():
    level = box(gravity=[0, 0], polylines=[{"points": [[0, 10], [0, 0], [12, 0]]},
                                           {"points": [[13, 0], [20, 0], [20, 10]]}])
    assert found(level, "leak") == []


def test_a_kill_zone_swallows_what_falls_into_it():
    level = box(polylines=[{"points": [[0, 10], [0, 0], [12, 0]]}, {"points": [[13, 0], [20, 0], [20, 10]]}],
                zones=[{"kind": "kill", "rect": [[11, -1], [14, 1]]}])
    assert found(level, "leak") == []


def test_a_ball_or_a_spawner_inside_a_wall():
    level = box(balls=[{"pos": [5, 0.1], "radius": 0.3}, {"pos": [6, 0.3], "radius": 0.3}],
                polygons=[{"points": [[14, 2], [17, 2], [17, 5], [14, 5]]}],
                spawners=[{"pos": [15, 3], "radius": 0.25}])
    walls = found(level, "inside a wall")
    assert [f.point for f in walls] == [(5, 0.1), (15, 3)]      # the ball resting on the floor is fine
    assert "balls[0]" in walls[0].reason and "spawners[0]" in walls[1].reason


def test_a_goal_that_wants_more_than_fits_or_more_than_the_level_ever_has():
    area = 2 * 2
    fits = int(area * HEX_PACKING / (math.pi * 0.25 ** 2))
    ok = box(zones=[{"kind": "goal", "rect": [[9, 0], [11, 2]], "count": fits}])
    assert found(ok, "fit") == []
    full = box(zones=[{"kind": "goal", "rect": [[9, 0], [11, 2]], "count": fits + 1}])
    assert len(found(full, "fit")) == 1 and found(full, "fit")[0].point == (10, 1)
    starved = box(spawners=[{"pos": [10, 8], "max": 5}], zones=[{"kind": "goal", "rect": [[5, 0], [15, 5]],
                                                                   "count": 6}])
    assert "only ever has 5" in found(starved, "wants")[0].reason


def test_statics_crossing_each_other_but_not_those_that_touch_or_join():
    level = box(segments=[{"a": [5, 2], "b": [9, 6]}, {"a": [5, 6], "b": [9, 2]},      # an X
                          {"a": [12, 0], "b": [14, 3]}])                            # stands on the floor
    cross = found(level, "cross")
    assert len(cross) == 1 and cross[0].point == pytest.approx((7, 4))


def test_segments_shorter_than_a_millimetre_but_not_a_round_peg():
    level = box(segments=[{"a": [5, 5], "b": [5.0005, 5]}, {"a": [7, 5], "b": [7, 5], "radius": 0.2}],
                polygons=[{"points": [[14, 2], [17, 2], [17, 5], [16.9996, 5], [14, 5]]}])
    short = found(level, "shorter")
    assert [f.reason.split(" is ")[0] for f in short] == ["segments[0]", "polygons[0] edge 2"]


def test_the_windowed_clearance_grid_equals_the_brute_force_one_near_the_walls():
    level = load(os.path.join(ROOT, "levels", "04_polygons.json"))
    pieces = static_pieces(level)
    xs, ys = np.linspace(-0.5, 32.5, 67), np.linspace(-0.5, 18.5, 39)
    grid = _clearance_grid(xs, ys, pieces, reach=1.0)
    q = np.stack(np.meshgrid(xs, ys, indexing="ij"), axis=-1).reshape(-1, 2)
    brute, _ = clearance(q, pieces)
    brute = brute.reshape(grid.shape)
    near = brute < 1.0
    assert np.array_equal(grid[near], brute[near])
    assert np.all(grid[~near] >= 1.0)


def run_main(*args):
    return subprocess.run([sys.executable, os.path.join(ROOT, "main.py"), *args], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)


def test_main_check_prints_findings_one_a_line_and_exits_1(tmp_path):
    path = tmp_path / "leaky.json"
    path.write_text(json.dumps({"polylines": [{"points": [[0, 10], [0, 0], [12, 0]]},
                                              {"points": [[13, 0], [20, 0], [20, 10]]}],
                                "segments": [{"a": [5, 5], "b": [5.0005, 5]}],
                                "spawners": [{"pos": [10, 8]}]}))
    done = run_main("--check", str(path))
    lines = done.stdout.splitlines()
    assert done.returncode == 1 and len(lines) == 2 and done.stderr == ""
    assert all(line.startswith(str(path) + ":(") for line in lines)


def test_main_check_exits_0_on_a_shipped_level_and_2_on_a_bad_file(tmp_path):
    done = run_main("--check", LEVELS[0])
    assert (done.returncode, done.stdout) == (0, "")
    bad = tmp_path / "bad.json"
    bad.write_text('{"segments": [{"a": [0, 0], "b": [1, "a"]}]}')
    done = run_main("--check", str(bad))
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr


def test_a_goal_that_wants_one_ball_says_ball_not_balls():
    """The issue's "wants 1 balls": a goal of 1 in a level with no balls at all."""
    level = box(spawners=[], zones=[{"kind": "goal", "rect": [[5, 0], [15, 5]], "count": 1}])
    reason = found(level, "wants")[0].reason
    assert "wants 1 ball but" in reason
    level = box(spawners=[], zones=[{"kind": "goal", "rect": [[5, 0], [15, 5]], "count": 2}])
    assert "wants 2 balls but" in found(level, "wants")[0].reason
