"""--check on moving walls (issue 25): a moving wall whose path sweeps through another static
or through a spawner is reported, one line each, naming the shape; the path is the motion's
swept region, held here against the motion itself sampled densely in time."""
import math
import os

import numpy as np
from hypothesis import assume, given, settings, strategies as st

from game.checks import _sweeps, check, static_pieces
from game.physics.geometry import segment_distance
from game.level import complete, level_files, load
from game.paths import ROOT

FLOOR = {"a": [0, 0], "b": [20, 0]}


def level(moving, others=(), spawners=()):
    return complete({"bounds": [0, 0, 20, 12], "segments": [FLOOR, moving, *others], "spawners": list(spawners)})


def sweeps(doc):
    """The sweep check's findings (the other checks are tested elsewhere)."""
    return [f.reason for f in _sweeps(doc, static_pieces(doc))]


def test_the_sweep_check_is_one_of_the_checks_that_check_runs():
    rotor = {"a": [8, 2], "b": [8, 5], "radius": 0.15, "motion": {"kind": "rotate", "pivot": [8, 3.5], "speed": 2}}
    doc = level(rotor, [{"a": [9, 1], "b": [9, 3]}])
    assert [f.reason for f in check(doc) if "sweeps through" in f.reason] == sweeps(doc) != []


# ---- one hand-made level for each kind: a hit, and the same a hair out of reach --------------

def test_a_rotor_is_reported_where_its_ring_reaches_a_wall_and_not_a_hair_beyond():
    rotor = {"a": [8, 2], "b": [8, 5], "radius": 0.15, "motion": {"kind": "rotate", "pivot": [8, 3.5], "speed": 2}}
    reach = 1.5 + 0.15                   # the arm's far end from the pivot, and its radius
    near = {"a": [8 + reach - 0.01, 6], "b": [8 + reach - 0.01, 9]}        # a post beside: its lower end
    assert sweeps(level(rotor, [near])) == []                            # is above the ring (6 - 3.5 > reach)
    wall = {"a": [8 + reach - 0.01, 2], "b": [8 + reach - 0.01, 5]}
    assert sweeps(level(rotor, [wall])) == ["segments[1] (rotate) sweeps through segments[2]: balls there "
                                            "are crushed, and the wall passes through it"]
    clear = {"a": [8 + reach + 0.01, 2], "b": [8 + reach + 0.01, 5]}
    assert sweeps(level(rotor, [clear])) == []


def test_a_slider_is_reported_where_its_capsule_moved_along_to_meets_a_spawner():
    lift = {"a": [2, 3], "b": [5, 3], "radius": 0.1, "motion": {"kind": "slide", "to": [0, 4], "period": 6}}
    # the spawner's balls (radius 0.25) at y 7.3: the lift's top face reaches 3 + 4 + 0.1 = 7.1
    inside = {"pos": [3, 7.3], "every": 1, "max": 3, "radius": 0.25}
    out = sweeps(level(lift, spawners=[inside]))
    assert out == ["segments[1] (slide) sweeps through spawners[0]: its balls would appear in the wall's way"]
    above = dict(inside, pos=[3, 7.36])
    assert sweeps(level(lift, spawners=[above])) == []
    beside = dict(inside, pos=[5.4, 5])          # 0.4 m right of the lift's end: 0.35 needed
    assert sweeps(level(lift, spawners=[beside])) == []


def test_a_flipper_is_reported_where_its_sector_meets_a_post_it_never_touches_at_rest():
    flipper = {"a": [10, 1.2], "b": [12.5, 1.2], "radius": 0.2,
               "motion": {"kind": "flipper", "pivot": [10, 1.2], "angle": 0.8, "speed": 15, "key": "left"}}
    # A peg up and right: at rest the flipper is 1 m below it; turned up by 0.8 rad its tip passes it.
    angle = 0.5
    peg = {"a": [10 + 2 * math.cos(angle), 1.2 + 2 * math.sin(angle)], "b": [10 + 2 * math.cos(angle), 1.2 + 2 * math.sin(angle)],
           "radius": 0.1}
    assert sweeps(level(flipper, [peg])) == ["segments[1] (flipper) sweeps through segments[2]: balls there are "
                                             "crushed, and the wall passes through it"]
    # The same peg past the end of the turn (1.0 rad, with room for both radii) is clear.
    angle = 0.8 + (0.2 + 0.1 + 0.02) / 2
    clear = dict(peg, a=[10 + 2 * math.cos(angle), 1.2 + 2 * math.sin(angle)],
                 b=[10 + 2 * math.cos(angle), 1.2 + 2 * math.sin(angle)])
    assert sweeps(level(flipper, [clear])) == []
    # A right flipper turns clockwise (a negative angle): the mirror image.
    right = {"a": [10, 1.2], "b": [7.5, 1.2], "radius": 0.2,
             "motion": {"kind": "flipper", "pivot": [10, 1.2], "angle": -0.8, "speed": 15, "key": "right"}}
    mirror = dict(peg, a=[20 - peg["a"][0], peg["a"][1]], b=[20 - peg["b"][0], peg["b"][1]])
    assert len(sweeps(level(right, [mirror]))) == 1


def test_walls_of_one_motion_move_together_and_are_not_reported_against_each_other():
    hub = {"kind": "rotate", "pivot": [10, 6], "speed": 1}
    arms = [{"a": [10, 6], "b": [12, 6], "radius": 0.1, "motion": hub},
            {"a": [10, 6], "b": [10, 8], "radius": 0.1, "motion": hub}]
    doc = complete({"bounds": [0, 0, 20, 12], "segments": [FLOOR, *arms]})
    assert sweeps(doc) == []


def test_every_shipped_level_is_clean_of_sweeps():
    for path in level_files(os.path.join(ROOT, "levels")):
        assert sweeps(load(path)) == [], os.path.basename(path)


# ---- the law: the swept region is where the motion takes the wall, sampled densely -------------

def brute_depth(kind, pivot, to, angle, a, b, r, oa, ob, orad, step=0.002):
    """r + orad less the least distance between the moving core and the other core over the
    motion (rotate: one turn; slide: 0 to ``to``; flipper: 0 to ``angle``), sampled at poses
    ``step`` m apart where the core moves the most (segment_distance, tested below against
    points, measures each pose)."""
    c = np.asarray(pivot, float)
    far = max(math.dist(a, c), math.dist(b, c))
    travel = math.hypot(*to) if kind == "slide" else far * (2 * math.pi if kind == "rotate" else abs(angle))
    t = np.linspace(0.0, 1.0, int(travel / step) + 2)[:, None]
    if kind == "slide":
        shift, theta = t * np.asarray(to, float), np.zeros_like(t)
    else:
        shift, theta = np.zeros((len(t), 2)), t * (2 * math.pi if kind == "rotate" else angle)

    def moved(p):
        v = np.asarray(p, float) - c
        return c + np.hstack((np.cos(theta) * v[0] - np.sin(theta) * v[1], np.sin(theta) * v[0] + np.cos(theta) * v[1])) + shift

    d = segment_distance(moved(a), moved(b), np.asarray(oa, float), np.asarray(ob, float))
    return r + orad - float(d.min())


point = st.tuples(st.floats(3, 17), st.floats(2, 10))


@settings(max_examples=40, deadline=None)
@given(kind=st.sampled_from(["rotate", "slide", "flipper"]), a=point, b=point, r=st.floats(0, 0.3),
       pivot=st.one_of(st.just(None), point),
       oa=point, ob=point, orad=st.floats(0, 0.3), to=st.tuples(st.floats(-3, 3), st.floats(-3, 3)),
       angle=st.floats(-1.2, 1.2).filter(lambda x: abs(x) > 0.05))
def test_a_finding_is_reported_exactly_where_the_sampled_motion_meets_the_other(kind, a, b, r, pivot, oa, ob, orad,
                                                                                 to, angle):
    assume(math.dist(a, b) > 0.05 and math.dist(oa, ob) > 0.05)
    pivot = a if pivot is None else pivot          # a flipper's hinge is mostly its end
    motion = {"rotate": {"kind": "rotate", "pivot": list(pivot), "speed": 1},
              "slide": {"kind": "slide", "to": list(to), "period": 3},
              "flipper": {"kind": "flipper", "pivot": list(pivot), "angle": angle, "speed": 10, "key": "left"}}[kind]
    depth = brute_depth(kind, pivot, to, angle, a, b, r, oa, ob, orad)
    # The brute force's poses are 2 mm apart: a band of a centimetre where its answer is not
    # sure is left out.
    assume(abs(depth) > 0.01)
    moving = {"a": list(a), "b": list(b), "radius": r, "motion": motion}
    other = {"a": list(oa), "b": list(ob), "radius": orad}
    doc = complete({"bounds": [0, 0, 20, 12], "segments": [moving, other]})
    found = sweeps(doc)
    assert bool(found) == (depth > 0), (depth, found)


def test_segment_distance_is_the_least_distance_between_points_of_the_two():
    rng = np.random.default_rng(3)
    for _ in range(200):
        a1, b1, a2, b2 = rng.uniform(-2, 2, (4, 2))
        u = np.linspace(0, 1, 300)[:, None]
        p, q = a1 + u * (b1 - a1), a2 + u * (b2 - a2)
        brute = np.hypot(*(p[:, None] - q[None]).transpose(2, 0, 1)).min()
        assert float(segment_distance(a1, b1, a2, b2)) <= brute + 1e-12
        assert float(segment_distance(a1, b1, a2, b2)) >= brute - 0.02
