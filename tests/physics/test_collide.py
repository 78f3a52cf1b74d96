"""The broad phase's pieces against brute-force oracles."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from scenes import build_world
from game.physics import collide
from game.physics.world import World


@given(st.lists(st.tuples(st.integers(0, 50), st.integers(0, 6)), max_size=30))
@settings(max_examples=60, deadline=None)
def test_expand_ranges_lists_every_element_of_every_range_in_order(ranges):
    lo = np.array([a for a, _ in ranges], np.int64)
    hi = lo + np.array([n for _, n in ranges], np.int64)
    owner, index = collide.expand_ranges(lo, hi)
    expected = [(k, e) for k, (a, b) in enumerate(zip(lo, hi)) for e in range(a, b)]
    assert list(zip(owner.tolist(), index.tolist())) == expected


def _binned(statics):
    """{cell: set of capsules} as Statics.bin stored them."""
    out = {}
    for c in range(statics.grid.size):
        listed = statics._index[statics._start[c]:statics._start[c + 1]]
        if len(listed):
            out[c] = set(listed.tolist())
    return out


def _brute_binned(statics, grid):
    """Every interior cell whose centre is within (cell / 2 + margin + radius + cell / sqrt 2) of a
    core segment, margin = MAX_MARGIN_CELLS cells: the law bin states, checked one cell and one
    capsule at a time."""
    from game.physics import geometry
    half = grid.cell / 2
    margin = collide.MAX_MARGIN_CELLS * grid.cell
    out = {}
    for ix in range(1, grid.nx - 1):
        for iy in range(1, grid.ny - 1):
            centre = grid.origin + (np.array([ix, iy]) + 0.5) * grid.cell
            for s in range(len(statics)):
                q = geometry.closest_point_on_segment(statics.a[s], statics.b[s], centre)
                if np.hypot(*(centre - q)) <= half + margin + statics.radius[s] + half * np.sqrt(2.0):
                    out.setdefault(ix * grid.ny + iy, set()).add(s)
    return out


coordinate = st.floats(-6.0, 6.0, allow_nan=False)


@given(st.lists(st.tuples(coordinate, coordinate, coordinate, coordinate, st.sampled_from([0.0, 0.1, 0.7, 2.5])),
                min_size=1, max_size=5),
       st.sampled_from([0.3, 0.5, 1.3]))
@settings(max_examples=40, deadline=None)
def test_bin_lists_exactly_the_cells_within_reach_of_each_capsule(capsules, cell):
    a = np.array([(x0, y0) for x0, y0, _, _, _ in capsules])
    b = np.array([(x1, y1) for _, _, x1, y1, _ in capsules])
    radius = np.array([r for *_, r in capsules])
    n = len(a)
    statics = collide.Statics(a, b, radius, np.zeros(n), np.zeros(n), -np.ones(n, np.int64), [])
    grid = collide.Grid(cell, (-5.0, -5.0), (5.0, 5.0))      # capsules may reach past its edge
    statics.bin(grid)
    assert _binned(statics) == _brute_binned(statics, grid)


@pytest.mark.parametrize("radius", [0.0, 1e6])
def test_huge_statics_bin_a_bounded_number_of_entries(radius):
    """3,000 walls crossing a +-1e6 m level (fat ones covering it all): the cell grows so that
    binning lists at most MAX_STATIC_ENTRIES (cell, capsule) entries (work and memory are
    proportional to them), and the lists still hold every cell within reach (checked on
    random cells against the law)."""
    rng = np.random.default_rng(7)
    a, b = rng.uniform(-1e6, 1e6, (3000, 2)), rng.uniform(-1e6, 1e6, (3000, 2))
    level = {"bounds": [-1e6, -1e6, 1e6, 1e6],
             "segments": [{"a": p.tolist(), "b": q.tolist(), "radius": radius} for p, q in zip(a, b)]}
    w = build_world(level, execution="numpy")
    st_, grid = w.statics, w.grid
    assert len(st_._index) <= collide.MAX_STATIC_ENTRIES
    from game.physics import geometry
    half = grid.cell / 2
    for ix, iy in zip(rng.integers(1, grid.nx - 1, 30), rng.integers(1, grid.ny - 1, 30)):
        centre = grid.origin + (np.array([ix, iy]) + 0.5) * grid.cell
        q = geometry.closest_point_on_segment(st_.a, st_.b, centre)
        reach = half + collide.MAX_MARGIN_CELLS * grid.cell + st_.radius + half * np.sqrt(2.0)
        within = np.nonzero(np.hypot(*(centre - q).T) <= reach)[0]
        c = ix * grid.ny + iy
        assert set(st_._index[st_._start[c]:st_._start[c + 1]].tolist()) == set(within.tolist())


@given(st.lists(st.tuples(st.floats(-3.0, 3.0), st.floats(-3.0, 3.0)), min_size=2, max_size=40),
       st.sampled_from([(0.5, 5.0), (0.5, 1e6)]))
@settings(max_examples=40, deadline=None)
def test_ball_pairs_on_any_grid_are_the_touching_pairs_both_executions(points, grid_shape):
    """Near balls in a grid of any size (a +-1e6 m grid binary-searches the same ranges a small
    one does), some outside it: both executions find exactly the pairs within reach."""
    cell, half_span = grid_shape
    grid = collide.Grid(cell, (-half_span, -half_span), (half_span, half_span))
    pos = np.array(points)
    radius = np.full(len(pos), 0.2)
    margin = np.zeros(len(pos))
    brute = {(i, j) for i in range(len(pos)) for j in range(i + 1, len(pos))
             if (pos[i, 0] - pos[j, 0]) ** 2 + (pos[i, 1] - pos[j, 1]) ** 2 < 0.4 * 0.4}
    i, j = collide._ball_contacts(grid, pos, radius, margin)          # cell >= the diameter
    assert {(min(a, b), max(a, b)) for a, b in zip(i.tolist(), j.tolist())} == brute
    from tests.conftest import KERNELS as kernels
    if kernels is not None:
        i, j = collide._ball_contacts_compiled(kernels, grid, pos, radius, margin)
        numpy_i, numpy_j = collide._ball_contacts(grid, pos, radius, margin)
        # The same unordered pairs (the kernel gives each as (lower, higher), sorted).
        assert sorted(zip(i.tolist(), j.tolist())) == sorted(
            (min(a, b), max(a, b)) for a, b in zip(numpy_i.tolist(), numpy_j.tolist()))
