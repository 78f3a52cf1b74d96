"""The broad phase's pieces against brute-force oracles."""
import numpy as np
from hypothesis import given, settings, strategies as st

from game import collide


@given(st.lists(st.tuples(st.integers(0, 50), st.integers(0, 6)), max_size=30))
@settings(max_examples=60, deadline=None)
def test_expand_ranges_lists_every_element_of_every_range_in_order(ranges):
    lo = np.array([a for a, _ in ranges], np.int64)
    hi = lo + np.array([n for _, n in ranges], np.int64)
    owner, index = collide.expand_ranges(lo, hi)
    expected = [(k, e) for k, (a, b) in enumerate(zip(lo, hi)) for e in range(a, b)]
    assert list(zip(owner.tolist(), index.tolist())) == expected
