"""game.checks keeps to its budget (issue 28, item 4): the levels that ate 17 GB or ran for
minutes (a 32 x 18 m box around one ball of the smallest radius, bounds of +-1e6 m, 20,000
polyline pieces, 20,000 crossing segments) are checked in seconds and tens of megabytes;
a check cut short says so in one line; the sweep finds exactly the crossings the O(n^2)
search finds; the editor's check thread survives whatever a check raises."""
import itertools
import json
import math
import random
import time
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game import checks
from game.checks import END_MARGIN, MAX_CROSSINGS, check_all, static_pieces
from game.level import loads
from game.physics import geometry

BOX = [{"a": [0, 0], "b": [32, 0]}, {"a": [32, 0], "b": [32, 18]}, {"a": [32, 18], "b": [0, 18]},
       {"a": [0, 18], "b": [0, 0]}]
# s: five checks of CHECK_SECONDS each, and room for a loaded machine (each stops at its
# first look at the clock past its budget). Before, these took minutes or died of memory.
SECONDS = 5 * checks.CHECK_SECONDS + 30
PEAK_BYTES = 300e6      # bytes: numpy's and Python's allocations at most, whatever the level


def measured(level):
    """check_all's result, its wall time and its peak traced allocation."""
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        out = check_all(level)
    finally:
        seconds = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return out, seconds, peak


def level(**keys):
    return loads(json.dumps({"segments": BOX, **keys}))


def test_one_ball_of_the_smallest_radius_in_a_32_by_18_box():
    out, seconds, peak = measured(level(balls=[{"pos": [16, 9], "radius": 0.001}]))
    assert seconds < SECONDS and peak < PEAK_BYTES
    assert out.findings == []
    assert len(out.notes) == 1 and out.notes[0].startswith("leak check coarse") and "\n" not in out.notes[0]


def test_bounds_of_a_million_metres():
    out, seconds, peak = measured(level(bounds=[-1e6, -1e6, 1e6, 1e6], balls=[{"pos": [16, 9]}]))
    assert seconds < SECONDS and peak < PEAK_BYTES
    assert [n.split(":")[0] for n in out.notes] == ["leak check coarse"]


def test_the_coarse_flood_still_finds_a_gap_wider_than_what_it_can_see():
    """The smallest ball needs too fine a grid; the flood runs for a bigger ball and still
    finds a 2 m hole in the floor."""
    floor = [{"a": [0, 0], "b": [15, 0]}, {"a": [17, 0], "b": [32, 0]}, {"a": [32, 0], "b": [32, 18]},
             {"a": [0, 18], "b": [0, 0]}]
    lv = loads(json.dumps({"bounds": [0, -1, 32, 18], "segments": floor,
                           "balls": [{"pos": [16, 9], "radius": 0.001}],
                           "spawners": [{"pos": [16, 9], "radius": 0.3, "max": 2000}]}))
    out, seconds, peak = measured(lv)
    leaks = [f for f in out.findings if "leak" in f.reason]
    assert len(leaks) == 1 and 15 <= leaks[0].point[0] <= 17
    assert out.notes and out.notes[0].startswith("leak check coarse")


def test_twenty_thousand_polyline_pieces():
    lines = [{"points": [[0.0032 * k, 5 + 5 * row + (0.2 if k % 2 else 0)] for k in range(9_998)]}
             for row in range(2)]
    out, seconds, peak = measured(level(polylines=lines, balls=[{"pos": [16, 15]}]))
    assert seconds < SECONDS and peak < PEAK_BYTES
    assert out.findings == [] or all("cross" not in f.reason for f in out.findings)


def test_twenty_thousand_crossing_segments_are_listed_up_to_the_cap():
    rng = random.Random(1)
    segments = []
    for _ in range(19_996):
        x, y, t = rng.uniform(1, 31), rng.uniform(1, 17), rng.uniform(0, math.pi)
        segments.append({"a": [x, y], "b": [x + 0.3 * math.cos(t), y + 0.3 * math.sin(t)]})
    out, seconds, peak = measured(level(segments=BOX + segments, balls=[{"pos": [16, 9]}]))
    assert seconds < SECONDS and peak < PEAK_BYTES
    crossings = [f for f in out.findings if "crosses" in f.reason]
    assert len(crossings) == MAX_CROSSINGS
    assert any(n.startswith("crossing check stopped") for n in out.notes)


def test_a_mesh_of_long_segments_stops_within_its_budget():
    """10,000 x 10,000 long segments: 1e8 crossings, every box overlapping half the others."""
    mesh = ([{"a": [0.5, 0.5 + k * 0.0017], "b": [31.5, 0.5 + k * 0.0017]} for k in range(9_998)]
            + [{"a": [0.5 + k * 0.0031, 0.5], "b": [0.5 + k * 0.0031, 17.5]} for k in range(9_998)])
    out, seconds, peak = measured(level(segments=BOX + mesh, balls=[{"pos": [16, 9]}]))
    assert seconds < SECONDS and peak < PEAK_BYTES
    assert len([f for f in out.findings if "crosses" in f.reason]) == MAX_CROSSINGS
    assert all("\n" not in n for n in out.notes)


def brute_crossings(pieces):
    """The O(n^2) oracle: every pair of pieces of different shapes, the first crossing away
    from the ends per pair of shapes, in piece order."""
    a, b, r, names, _ = pieces
    out, seen = [], set()
    for i, j in itertools.combinations(range(len(a)), 2):
        if names[i] == names[j]:
            continue
        p, hit = geometry.segment_intersections(a[i], b[i], a[j], b[j])
        p = np.asarray(p).reshape(2)
        if not bool(hit):
            continue
        if min(np.hypot(*(p - q)) for q in (a[i], b[i], a[j], b[j])) <= END_MARGIN:
            continue
        if (names[i], names[j]) in seen:
            continue
        seen.add((names[i], names[j]))
        out.append(((names[i], names[j]), tuple(p)))
    return out


coord = st.integers(0, 12).map(float)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(coord, coord, coord, coord), min_size=2, max_size=14),
       st.lists(st.lists(st.tuples(coord, coord), min_size=2, max_size=5), max_size=3))
def test_the_sweep_finds_what_the_brute_force_search_finds(segs, lines):
    doc = {"segments": [{"a": [x0, y0], "b": [x1, y1], "radius": 0.0} for x0, y0, x1, y1 in segs],
           "polylines": [{"points": [list(p) for p in pts], "radius": 0.0, "closed": False} for pts in lines],
           "polygons": []}
    pieces = static_pieces(doc)
    found = [(tuple(f.reason.split(" crosses ")[0:1]) + (f.reason.split(" crosses ")[1].split(":")[0],), f.point)
             for f in checks._crossings(pieces)]
    assert [(pair, pytest.approx(p)) for pair, p in found] == brute_crossings(pieces)


def test_a_check_past_its_time_says_so_and_the_others_run(monkeypatch):
    def slow(*args):
        raise checks.Skipped("leak check stopped: it took more than 5 s")
    monkeypatch.setattr(checks, "_leaks", slow)
    out = check_all(level(balls=[{"pos": [16, 9], "radius": 0.3}, {"pos": [16, 0.1], "radius": 0.3}]))
    assert out.notes == ["leak check stopped: it took more than 5 s"]
    assert any("inside a wall" in f.reason for f in out.findings)


def test_the_budget_stops_a_slow_check(monkeypatch):
    """A flood with a budget of no time stops at its first poll and says so."""
    lines = [{"points": [[0.0032 * k, 5 + (0.2 if k % 2 else 0)] for k in range(5_000)]}]
    out = check_all(level(polylines=lines, balls=[{"pos": [16, 15]}]), seconds=0.0)
    assert any(n == "leak check stopped: it took more than 0 s" for n in out.notes)


def test_main_check_prints_a_note_on_stderr_in_one_line(tmp_path):
    import subprocess
    import sys
    import os
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps({"segments": BOX, "balls": [{"pos": [16, 9], "radius": 0.001}]}))
    done = subprocess.run([sys.executable, os.path.join(root, "main.py"), "--check", str(path)],
                          capture_output=True, text=True, timeout=120, cwd=root)
    assert done.returncode == 0 and done.stdout == ""
    assert done.stderr.startswith(f"{path}: leak check coarse") and len(done.stderr.splitlines()) == 1


@pytest.mark.parametrize("error", [MemoryError(), RecursionError("deep\nsecond line"), KeyError("x")])
def test_the_editors_check_thread_turns_any_error_into_one_line(monkeypatch, error):
    from game.modes import edit as mode

    def broken(definition, seconds):
        raise error
    monkeypatch.setattr(mode, "check_all", broken)
    worker = mode._Checker(level(balls=[{"pos": [16, 9]}]), state=1)
    worker.start()
    worker.join(10)
    assert not worker.is_alive() and worker.findings == []
    assert len(worker.notes) == 1 and worker.notes[0].startswith("the level checks failed: ")
    assert "\n" not in worker.notes[0]
