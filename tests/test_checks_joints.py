"""The rods' checks (game.checks_joints, through game.checks.check_all): rods off their length,
rods that cannot all hold, and a chain pulled straight between anchors; no false alarm on a
hanging chain or a shipped level, and a bounded time at the format's joint limit."""
import math
import time

import pytest

from game.checks import CHECK_SECONDS, check_all
from tests.scenes import definition

FLOOR = [{"a": [-40, 0], "b": [40, 0]}]


def rods_said(level):
    found = check_all(definition(dict(level, segments=FLOOR)))
    return ([f.reason for f in found.findings if "rod" in f.reason or "pin" in f.reason],
            [n for n in found.notes if n.startswith("rod")])


def chain(n, span, sag=0.0, lengths=None):
    """n balls between anchors (0, 10) and (span, 10), each rod ``lengths`` long (None: as
    far as its ends are at the start), the balls hanging ``sag`` m at the middle (a parabola)."""
    xs = [span * k / (n + 1) for k in range(n + 2)]
    ys = [10.0 - sag * 4 * x * (span - x) / span ** 2 for x in xs]
    balls = [{"pos": [xs[k], ys[k]], "radius": 0.1} for k in range(1, n + 1)]
    ends = [[xs[0], ys[0]]] + list(range(n)) + [[xs[-1], ys[-1]]]
    joints = [{"kind": "rod", "a": ends[k + 1] if k == 0 else ends[k], "b": ends[k] if k == 0 else ends[k + 1]}
              for k in range(n + 1)]
    for j in joints:                          # a ball first: "a" must be a ball
        if isinstance(j["a"], list):
            j["a"], j["b"] = j["b"], j["a"]
        if lengths is not None:
            j["length"] = lengths
    return {"gravity": [0, -9.81], "bounds": [-50, -50, 50, 50], "balls": balls, "joints": joints}


def test_a_chain_pulled_straight_between_anchors_is_said_once_and_a_hanging_one_is_not():
    said, _ = rods_said(chain(9, 10.0))
    assert len(said) == 1 and "a chain of 10 rods is pulled straight between anchors (0, 10) and (10, 10)" in said[0]
    assert rods_said(chain(9, 10.0, sag=1.5)) == ([], [])          # its rods as long as they start


def test_rods_between_anchors_shorter_than_the_anchors_are_apart_cannot_all_hold():
    said, _ = rods_said(chain(9, 10.0, lengths=0.9))
    assert any("are 9 m long, but the anchors are 10 m apart: they cannot all hold" in s for s in said)
    assert sum("pulls them together" in s for s in said) == 10     # and every rod starts stretched


def test_a_rod_longer_than_the_other_two_sides_of_its_triangle_cannot_hold():
    """The issue's triangle: 1, 1 and 2.2 m (and 2.05 m, just past the straight line)."""
    for long in (2.2, 2.05):
        level = {"balls": [{"pos": [0.0, 0.3], "radius": 0.3}, {"pos": [1.0, 0.3], "radius": 0.3},
                           {"pos": [0.5, 0.3 + math.sqrt(0.75)], "radius": 0.3}],
                 "joints": [{"kind": "rod", "a": 0, "b": 1}, {"kind": "rod", "a": 1, "b": 2},
                            {"kind": "rod", "a": 0, "b": 2, "length": long}]}
        said, _ = rods_said(level)
        assert any(s.startswith(f"joints[2] is a rod {long:.3g} m long, but the other rods hold its balls at "
                                f"most 2 m apart") for s in said), said
    level["joints"][2]["length"] = 1.99                         # a triangle that can be (flat)
    said, _ = rods_said(level)
    assert said == ["joints[2] is a rod 1.99 m long between held points 1 m apart: the first tick pushes them "
                    "apart at once"]


def test_offsets_count_in_what_a_path_allows():
    """Held points 0.5 m off each ball's centre: two balls 3 m apart on a rod of 2 m (its held
    points 2 m apart) are fine; the path bound includes the offsets."""
    level = {"balls": [{"pos": [0.0, 5.0], "radius": 0.6}, {"pos": [3.0, 5.0], "radius": 0.6}],
             "joints": [{"kind": "rod", "a": 0, "b": 1, "offset_a": [0.5, 0.0], "offset_b": [-0.5, 0.0]},
                        {"kind": "rod", "a": 0, "b": 1, "length": 3.0}]}
    assert rods_said(level) == ([], [])
    level["joints"][1]["length"] = 3.1                          # more than 2 + 0.5 + 0.5 allows
    said, _ = rods_said(level)
    assert any("joints[1] is a rod 3.1 m long, but the other rods hold its balls at most 3 m apart" in s
               for s in said), said


@pytest.mark.parametrize("off, said", [(0.0005, False), (0.05, True)])
def test_a_rod_off_its_length_at_the_start_is_said_past_a_millimetre_a_metre(off, said):
    level = {"balls": [{"pos": [0.0, 5.0], "radius": 0.2}, {"pos": [2.0 + off, 5.0], "radius": 0.2}],
             "joints": [{"kind": "rod", "a": 0, "b": 1, "length": 2.0}]}
    found, _ = rods_said(level)
    assert bool(found) == said and all("pulls them together at once" in s for s in found)


def test_the_rods_checks_stay_within_their_budget_at_the_formats_joint_limit():
    """20,000 rods in one chain between anchors, and a star of 2,000 rods (over 160 degrees) whose rims are
    anchored: found (or cut short with a note) within the check's budget."""
    t0 = time.perf_counter()
    said, notes = rods_said(chain(19_999, 4000.0))
    assert time.perf_counter() - t0 < 2 * CHECK_SECONDS
    assert any("a chain of 20000 rods is pulled straight" in s for s in said)
    hub = [{"pos": [10.0, 10.0], "radius": 0.1}]
    rims = [{"pos": [10 + 5 * math.cos(k * 1.4e-3), 10 + 5 * math.sin(k * 1.4e-3)], "radius": 0.001} for k in range(1, 2000)]
    joints = [{"kind": "rod", "a": 0, "b": k} for k in range(1, 2000)] + \
             [{"kind": "rod", "a": k, "b": [10 + 6 * math.cos(k * 1.4e-3), 10 + 6 * math.sin(k * 1.4e-3)]}
              for k in range(1, 2000)]
    t0 = time.perf_counter()
    said, notes = rods_said({"bounds": [-50, -50, 50, 50], "balls": hub + rims, "joints": joints})
    assert time.perf_counter() - t0 < 2 * CHECK_SECONDS
    assert said == [] or notes
