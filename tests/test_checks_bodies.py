"""The level checks for bodies (game.checks_bodies) and their lines from ``main.py --check``:
a body in a wall or in another body (which, how deep), outside the bounds, a mass ratio over
1,000 through a joint; one line each; a clean level with bodies has none."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from game.checks import check
from game.checks_bodies import MAX_MASS_RATIO, core_distance, overlap
from game.level import loads

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def level(**keys):
    """A floor 0..20 at y = 0 in bounds 0..20 x 0..12; keys replace or add."""
    d = {"bounds": [0, 0, 20, 12], "segments": [{"a": [0, 0], "b": [20, 0]}]}
    d.update(keys)
    return d


def reasons(d):
    return [f.reason for f in check(loads(json.dumps(d)))]


def test_bodies_resting_on_the_floor_side_by_side_and_joined_are_clean():
    d = level(bodies=[{"shape": "box", "center": [3, 0.5], "size": [1, 1]},
                      {"shape": "box", "center": [4, 0.5], "size": [1, 1]},          # touching its neighbour
                      {"shape": "capsule", "a": [6, 0.1], "b": [9, 0.1], "radius": 0.1},
                      {"shape": "polygon", "points": [[11, 0], [13, 0], [12, 1]]},
                      {"shape": "box", "center": [15, 1], "size": [2, 0.5]}],
              balls=[{"pos": [14.5, 0.8], "radius": 0.3}],                          # in the box, but joined to it
              joints=[{"kind": "rod", "a": {"body": 4}, "b": 0}])
    assert reasons(d) == []


def test_a_body_inside_a_wall_says_which_and_how_deep():
    got = reasons(level(bodies=[{"shape": "box", "center": [3, 0.3], "size": [1, 1]}]))
    assert got == ["bodies[0] starts inside a wall: 0.2 m into segments[0]"]
    got = reasons(level(polygons=[{"points": [[10, 0], [14, 0], [12, 3]]}],
                        bodies=[{"shape": "capsule", "a": [11, 2], "b": [13, 2], "radius": 0.1}]))
    assert len(got) == 1 and got[0].startswith("bodies[0] starts inside a wall:") and "polygons[0]" in got[0]


def test_a_body_inside_another_body_or_a_ball_says_which_and_how_deep():
    got = reasons(level(bodies=[{"shape": "box", "center": [5, 3], "size": [2, 2]},
                                {"shape": "box", "center": [6.5, 3], "size": [2, 2]}]))
    assert got == ["bodies[1] starts inside bodies[0]: 0.5 m deep (they fly apart at the first tick)"]
    got = reasons(level(bodies=[{"shape": "capsule", "a": [2, 5], "b": [8, 5], "radius": 0.2}],
                        balls=[{"pos": [5, 5.3], "radius": 0.25}]))
    assert got == ["balls[0] starts inside bodies[0]: 0.15 m deep (they fly apart at the first tick)"]


def test_a_body_outside_the_bounds_or_sticking_out():
    got = reasons(level(bodies=[{"shape": "box", "center": [25, 3], "size": [1, 1]},
                                {"shape": "box", "center": [19.8, 6], "size": [1, 1]}]))
    assert got == ["bodies[0] is outside the bounds: its centre (25, 3) is not in [0, 0, 20, 12] (escaped at once)",
                   "bodies[1] sticks 0.3 m out of the bounds"]


def test_a_mass_ratio_over_1000_through_a_joint():
    d = level(bodies=[{"shape": "box", "center": [5, 5], "size": [1, 1], "mass": 0.01},
                      {"shape": "box", "center": [8, 5], "size": [1, 1], "mass": 50}],
              balls=[{"pos": [12, 5], "radius": 0.25, "mass": 5}],
              joints=[{"kind": "rod", "a": {"body": 0}, "b": {"body": 1}},
                      {"kind": "rod", "a": {"body": 1}, "b": 0}])
    got = reasons(d)
    assert got == [f"joints[0] joins bodies[0] (0.01 kg) to bodies[1] (50 kg): a mass ratio of 5,000, over "
                   f"{MAX_MASS_RATIO:,.0f} (the solver struggles: it jitters)"]


def test_overlap_of_rounded_convex_shapes():
    square = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float)
    assert core_distance(square, square + [3, 0]) == pytest.approx(2.0)
    assert overlap(square, 0.0, square + [3, 0], 1.5) == pytest.approx(-0.5)
    assert overlap(square, 0.0, square + [0.75, 0], 0.0) == pytest.approx(0.25)
    assert overlap(square, 0.1, np.array([[0.5, 0.5]]), 0.2) == pytest.approx(0.8)   # a ball's centre inside


def test_check_prints_the_body_findings_one_line_each(tmp_path):
    path = tmp_path / "bodies.json"
    path.write_text(json.dumps(level(bodies=[{"shape": "box", "center": [3, 0.3], "size": [1, 1]},
                                             {"shape": "box", "center": [25, 3], "size": [1, 1]}])))
    run = subprocess.run([sys.executable, os.path.join(ROOT, "main.py"), "--check", str(path)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 1, run.stderr
    lines = run.stdout.splitlines()
    assert lines == [f"{path}:(3, 0.3): bodies[0] starts inside a wall: 0.2 m into segments[0]",
                     f"{path}:(25, 3): bodies[1] is outside the bounds: its centre (25, 3) is not in "
                     f"[0, 0, 20, 12] (escaped at once)"]


def test_a_goal_that_counts_bodies_counts_the_levels_and_the_players_bodies():
    """A zone with count_bodies in a level without balls is not "wants 1 ball but the level
    only ever has 0" when the player may add bodies (level 48 had to carry a ball for it)."""
    from game.checks import check
    from game.level import complete
    box = {"polylines": [{"points": [[0, 0], [20, 0], [20, 12], [0, 12]], "closed": True}]}
    zone = {"kind": "goal", "rect": [[5, 5], [8, 8]], "count": 3, "count_bodies": True}
    assert check(complete(dict(box, player={"bodies": 3, "spawn": 0}, zones=[zone]))) == []
    assert check(complete(dict(box, bodies=[{"shape": "box", "center": [10, 1], "size": [1, 1]}],
                               player={"bodies": 2, "spawn": 0}, zones=[zone]))) == []
    short = check(complete(dict(box, player={"bodies": 1, "spawn": 0}, zones=[zone])))
    assert [f.reason for f in short] == ["zones[0] wants 3 balls or bodies but the level only ever has 1"]
