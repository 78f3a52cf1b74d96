"""The bodies' broad phase (body_kernels.box_pairs) against a brute force, and their sleep's
islands against a search of the graph. The broad phase finds every pair of boxes
that overlap, none that do not, in the order the contacts are solved in (by i; then set 2's
narrow boxes by their left edges, ties by index; then the wide ones so), whether it sweeps
the sorted list or looks through its grid of cells, on both executions.

Coordinates are multiples of 1/8 m, so the sums and differences are exact and "overlap" has
one meaning for the oracle and the kernel."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.physics import body_kernels as K
from game.physics.solver import islands
from tests.conftest import COMPILED

KERNELS = [pytest.param(K, id="numpy")]
if COMPILED is not None:
    from game.physics.compiled import bodies as compiled_bodies
    KERNELS.append(pytest.param(compiled_bodies.kernels, id="compiled"))


def pairs(kern, lo1, hi1, lo2, hi2, same):
    size = 8
    while True:
        out_i, out_j = np.empty(size, np.int64), np.empty(size, np.int64)
        n = kern.box_pairs(lo1, hi1, lo2, hi2, same, out_i, out_j)
        if n >= 0:
            return list(zip(out_i[:n].tolist(), out_j[:n].tolist()))
        size = -n


def oracle(lo1, hi1, lo2, hi2, same):
    width = hi2[:, 0] - lo2[:, 0]
    cut = max(4.0 * np.median(width), 1e-9)
    by_x = sorted(range(len(lo2)), key=lambda j: (lo2[j, 0], j))
    out = []
    for i in range(len(lo1)):
        hits = [j for j in by_x if (not same or j > i) and lo1[i, 0] <= hi2[j, 0] and lo2[j, 0] <= hi1[i, 0]
                and lo1[i, 1] <= hi2[j, 1] and lo2[j, 1] <= hi1[i, 1]]
        out += [(i, j) for j in hits if width[j] <= cut] + [(i, j) for j in hits if width[j] > cut]
    return out


def boxes(draw, n, spread):
    lo = np.array(draw(st.lists(st.tuples(st.integers(-spread, spread), st.integers(-spread, spread)),
                                min_size=n, max_size=n)), float) / 8
    size = np.array(draw(st.lists(st.tuples(st.integers(0, 24), st.integers(0, 24)), min_size=n, max_size=n)), float) / 8
    if draw(st.booleans()):           # a long floor among them (a wide box)
        size[0] = (8 * spread / 4, 1 / 8)
    return lo, lo + size


@st.composite
def scenes(draw):
    n1 = draw(st.integers(1, 160))
    spread = draw(st.sampled_from([4, 40, 400, 4000]))
    lo1, hi1 = boxes(draw, n1, spread)
    if draw(st.booleans()):
        return lo1, hi1, lo1, hi1, True
    lo2, hi2 = boxes(draw, draw(st.integers(1, 160)), spread)
    return lo1, hi1, lo2, hi2, False


@pytest.mark.parametrize("kern", KERNELS)
@settings(max_examples=120, deadline=None)
@given(scenes())
def test_the_pairs_are_the_brute_force_s_in_its_order(kern, scene):
    assert pairs(kern, *scene) == oracle(*scene)


@pytest.mark.parametrize("kern", KERNELS)
def test_a_pyramid_of_boxes_is_found_through_the_grid_and_a_sparse_world_by_the_sweep(kern):
    # A pyramid of 30 rows (465 boxes): the grid; the same boxes spread 10 km apart: the sweep.
    centres = np.array([(-0.5 * (30 - r - 1) + k, 0.5 + r) for r in range(30) for k in range(30 - r)])
    for spread in (1.0, 1e4):
        lo, hi = centres * spread - 0.52, centres * spread + 0.52
        grid = kern._box_grid(lo, np.argsort(lo[:, 0], kind="mergesort"), len(lo), 1.04, 1.04)
        assert (grid[2] > 0) == (spread == 1.0)
        assert pairs(kern, lo, hi, lo, hi, True) == oracle(lo, hi, lo, hi, True)
    # Not finite: no grid, and the sweep's answer.
    lo[3] = np.nan
    assert kern._box_grid(lo, np.arange(len(lo)), len(lo), 1.04, 1.04)[2] == 0
    assert pairs(kern, lo, hi, lo, hi, True) == oracle(lo, hi, lo, hi, True)


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 60).flatmap(lambda n: st.tuples(st.just(n), st.lists(
    st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=2 * n))))
def test_the_sleep_s_islands_are_the_connected_components(graph):
    # body_sleep.settle labels the bodies' islands with the balls' solver.islands: against a
    # search of the graph, each labelled by its least member.
    n, edges = graph
    a = np.array([e[0] for e in edges], np.int64)
    b = np.array([e[1] for e in edges], np.int64)
    roots = islands(a, b, np.full(len(a), -1), n)
    near = {x: set() for x in range(n)}
    for x, y in edges:
        near[x].add(y)
        near[y].add(x)
    for x in range(n):
        seen, todo = {x}, [x]
        while todo:
            for y in near[todo.pop()] - seen:
                seen.add(y)
                todo.append(y)
        assert {y for y in range(n) if roots[y] == roots[x]} == seen
        assert roots[x] == min(seen)



@pytest.mark.parametrize("kern", KERNELS)
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), participants=st.integers(2, 30), points=st.integers(0, 200))
def test_the_colour_order_puts_no_two_points_of_a_colour_on_one_moving_body(kern, seed, participants, points):
    """colour_order against a brute-force greedy colouring: each point, as written, takes the
    least colour free at its moving ends (the static stand-in and sleeping bodies, not moving,
    are shared freely), so within a colour no moving participant is on two points; the order is
    a permutation, by colour and as written within one; the compiled kernel gives the numpy
    execution's order."""
    rng = np.random.default_rng(seed)
    ci = rng.integers(0, participants, (points, 2)).astype(np.int64)
    ci[:, 1] = np.where(ci[:, 1] == ci[:, 0], participants, ci[:, 1])     # some against the stand-in
    moving = np.append(rng.random(participants) < 0.8, False)
    order = np.asarray(kern.colour_order(ci, moving, points))
    assert np.array_equal(np.sort(order), np.arange(points))
    taken = [set() for _ in range(participants + 1)]
    colour = np.empty(points, np.int64)
    for k, (a, b) in enumerate(ci):
        ends = [p for p in (a, b) if moving[p]]
        c = 0
        while c < K.COLOURS and any(c in taken[p] for p in ends):
            c += 1
        colour[k] = c
        for p in ends:
            if c < K.COLOURS:
                taken[p].add(c)
    assert np.array_equal(order, np.argsort(colour, kind="stable"))
    for c in range(K.COLOURS):
        ends = ci[colour == c][moving[ci[colour == c]]]
        assert len(ends) == len(np.unique(ends))
