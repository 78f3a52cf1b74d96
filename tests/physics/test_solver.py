"""The contact solver's pieces: colours, the two executions to the bit, warm starting, options."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scenes import build_world
from game.physics import collide, solver
from game.physics.contacts import Contacts, colour_contacts, priorities
from game.physics.solver import Solver, SolverOptions
from game.physics.world import TICK, World
from tests.conftest import COMPILED, KERNELS

needs_kernels = pytest.mark.skipif(KERNELS is None, reason="numba is not installed")


def random_contacts(seed, balls, contacts, static_share=0.3):
    """Random (a, b, key) contact lists over ``balls`` balls: ball pairs a != b each once,
    and ball-static pairs with b = balls (the statics' stand-in)."""
    rng = np.random.default_rng(seed)
    seen, a, b, key = set(), [], [], []
    for _ in range(contacts):
        i = int(rng.integers(0, balls))
        if rng.random() < static_share or balls < 2:
            j, k = balls, (i << 32) + (1 << 31) + int(rng.integers(0, 50))
        else:
            j = int(rng.integers(0, balls - 1))
            j += j >= i
            i, j = min(i, j), max(i, j)
            k = (i << 32) + j
        if k not in seen:
            seen.add(k)
            a.append(i)
            b.append(j)
            key.append(k)
    order = np.argsort(key)
    return (np.asarray(a, np.int64)[order], np.asarray(b, np.int64)[order], np.asarray(key, np.int64)[order])


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), balls=st.integers(1, 60), contacts=st.integers(0, 300))
def test_no_two_contacts_of_a_colour_share_a_ball(seed, balls, contacts):
    a, b, key = random_contacts(seed, balls, contacts)
    colour = colour_contacts(a, b, balls, priorities(key))
    assert np.all(colour >= 0)
    for c in np.unique(colour):
        rows = colour == c
        ends = np.concatenate((a[rows], b[rows][b[rows] < balls]))   # the statics are shared freely
        assert len(np.unique(ends)) == len(ends), f"colour {c} shares a ball"
    # Each round colours at least the contact of least priority left, and the colours are
    # used without gaps.
    if len(a):
        assert set(np.unique(colour)) == set(range(colour.max() + 1))


def test_priorities_are_all_different_whatever_the_keys():
    key = np.array([5, (1 << 62) + 3, 0, 7, (1 << 40), (1 << 32) + 5], np.int64)
    assert len(np.unique(priorities(key))) == len(key)


def crowded_world(seed, n=60):
    """Balls dropped in a small box with a slanted stadium and a polygon, some overlapping
    deeply, some fast, spinning, of mixed masses and materials."""
    rng = np.random.default_rng(seed)
    balls = [{"pos": rng.uniform(0.4, 3.6, 2).tolist(), "vel": rng.normal(0, 3, 2).tolist(),
              "radius": float(rng.uniform(0.1, 0.35)), "mass": float(rng.uniform(0.2, 5)),
              "spin": float(rng.uniform(-10, 10)), "restitution": float(rng.uniform(0, 1)),
              "friction": float(rng.uniform(0, 1)), "rolling": float(rng.uniform(0, 0.2))} for _ in range(n)]
    level = {"gravity": [0, -9.81], "bounds": [0, 0, 4, 4], "integrator": "rk4",
             "material": {"restitution": 0.4, "friction": 0.3, "rolling": 0.05},
             "polylines": [{"points": [[0, 0], [4, 0], [4, 4], [0, 4]], "closed": True}],
             "segments": [{"a": [0.5, 1.5], "b": [2.0, 1.0], "radius": 0.1}],
             "polygons": [{"points": [[2.5, 0.0], [3.5, 0.0], [3.0, 0.8]]}], "balls": balls}
    return build_world(level, execution="numpy")


@needs_kernels
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), ticks=st.integers(0, 20), warm_start=st.booleans())
def test_numpy_and_compiled_solve_the_same_contacts_to_the_bit(seed, ticks, warm_start):
    """One sub-step's contacts, solved by solve_numpy and by the kernel from the same input:
    every output array equal to the last bit (positions, velocities, angles, spins, impulses)."""
    w = crowded_world(seed)
    w.solver.options.warm_start = warm_start
    for _ in range(ticks):
        w.step(TICK)
    h = TICK / w.substeps
    prev = w.pos + np.random.default_rng(seed).normal(0, 0.05, w.pos.shape)   # some crossed a wall since
    found = collide.find_candidates(w.pos, prev, w.radius, w.grid, w.statics, 0.1)
    acceleration = np.tile([0.0, -9.81], (w.count, 1))
    c = w.solver.prepare(w, found, prev, 0.5 * h, acceleration)
    assert len(c) > 0 and c.colours > 1
    # The compiled prepare (geometry, order, colours, masses, materials, warm start): the same.
    compiled = Solver(w.solver.options)
    compiled.kernels = KERNELS
    compiled._warm = w.solver._warm
    twin = compiled.prepare(w, found, prev, 0.5 * h, acceleration)
    for name in Contacts.FIELDS:
        assert np.array_equal(getattr(c, name), getattr(twin, name)), name
    # The compiled impacts tell a static contact by its other ball, the stand-in N.
    assert np.array_equal(c.b == w.count, c.static >= 0)
    captured = []
    original = solver.solve_numpy

    def copied(bundle):
        return type(bundle)(*(np.array(x, copy=True) if isinstance(x, np.ndarray) else x for x in bundle))

    def both(*bundles):
        copies = [copied(x) for x in bundles]
        original(*bundles)
        KERNELS.solve(*copies)
        captured.append((bundles, copies))

    solver.solve_numpy = both
    try:
        w.solver.solve(w, c, h, 0.5 * h)
    finally:
        solver.solve_numpy = original
    (numpy_args, compiled_args), = captured
    for x, y in zip(numpy_args, compiled_args):       # the contacts, the balls, the constants
        assert type(x) is type(y)
        for name in x._fields:
            if isinstance(getattr(x, name), np.ndarray):
                assert np.array_equal(getattr(x, name), getattr(y, name)), name
            else:
                assert getattr(x, name) == getattr(y, name), name


@needs_kernels
def test_the_compiled_prepare_is_numpy_s_with_no_contacts_and_with_no_statics():
    w = build_world({"gravity": [0, 0], "bounds": [0, 0, 4, 4],
                          "balls": [{"pos": [1, 1], "radius": 0.2}, {"pos": [3, 3], "radius": 0.2}]})
    for pos in ([[1, 1], [3, 3]], [[1, 1], [1.3, 1]]):
        w.pos = np.array(pos, float)
        found = collide.find_candidates(w.pos, w.pos, w.radius, w.grid, w.statics, 0.1)
        twin_solver = Solver()
        twin_solver.kernels = KERNELS
        ours, twin = (s.prepare(w, found, w.pos, 1 / 480) for s in (Solver(), twin_solver))
        for name in Contacts.FIELDS:
            assert np.array_equal(getattr(ours, name), getattr(twin, name)), name


def two_resting_balls(order):
    """Two balls on a floor; ``order`` lists them by x so that their indices swap."""
    w = build_world({"gravity": [0, -9.81], "bounds": [0, 0, 10, 10], "integrator": "rk4",
                          "segments": [{"a": [0, 0], "b": [10, 0]}]}, execution="numpy")
    for x in order:
        w.add_ball((x, 0.25), radius=0.25, mass=1.0 if x < 5 else 3.0)
    return w


def test_warm_start_is_keyed_by_contact_not_by_position_in_the_list():
    """The impulses a contact gets back are the ones it had: a floor contact carries its
    ball's weight per sub-step (m g h), whatever the order of the contacts, and a new
    contact starts from zero."""
    w = two_resting_balls([2.0, 7.0])
    for _ in range(30):
        w.step(TICK)
    h = TICK / w.substeps
    c = w.solver.prepare(w, collide.find_candidates(w.pos, w.pos, w.radius, w.grid, w.statics, 0.1),
                         w.pos, 0.5 * h)
    weight = 9.81 * h / w.inv_mass[c.a]
    assert np.allclose(c.pn, weight, rtol=1e-6)          # each gets its own ball's weight back
    # Removing the first ball shifts the second to index 0; its contact keeps its impulse by id.
    w.remove_balls([0])
    c = w.solver.prepare(w, collide.find_candidates(w.pos, w.pos, w.radius, w.grid, w.statics, 0.1),
                         w.pos, 0.5 * h)
    assert len(c) == 1 and c.pn[0] == pytest.approx(9.81 * h * 3.0, rel=1e-6)
    # A ball just added has a new contact: no impulse of another's.
    w.add_ball((5.0, 0.25), radius=0.25)
    c = w.solver.prepare(w, collide.find_candidates(w.pos, w.pos, w.radius, w.grid, w.statics, 0.1),
                         w.pos, 0.5 * h)
    new = c.a == w.count - 1
    assert new.sum() == 1 and c.pn[new][0] == 0.0
    w.solver.options.warm_start = False
    c = w.solver.prepare(w, collide.find_candidates(w.pos, w.pos, w.radius, w.grid, w.statics, 0.1),
                         w.pos, 0.5 * h)
    assert np.all(c.pn == 0.0)


@pytest.mark.parametrize("warm_start", [True, False])
def test_every_option_can_be_switched_between_ticks_and_the_world_keeps_stepping(warm_start):
    w = crowded_world(3, n=30)
    w.step(TICK)
    o = w.solver.options
    o.substeps, o.iterations, o.relax_iterations, o.warm_start = 2, 1, 0, warm_start
    o.restitution_threshold, o.contact_hertz, o.damping_ratio, o.max_push_speed = 2.0, 30.0, 1.0, 1.0
    assert w.substeps == 2
    for _ in range(30):
        w.step(TICK)
    assert np.isfinite(w.pos).all() and np.isfinite(w.spin).all()
    assert "iterations 1" in o.describe() and ("off" in o.describe()) != warm_start


def test_an_unknown_execution_is_refused_in_one_line():
    with pytest.raises(ValueError, match="unknown execution 'gpu'"):
        World(execution="gpu")


def test_the_numpy_world_never_picks_up_the_kernels():
    assert World(execution="numpy").execution == World(execution="numpy").solver.execution == "numpy"
    assert World(execution="compiled").execution == ("compiled" if KERNELS is not None else "numpy")
    w = World(execution="numpy")
    w.use_compiled(COMPILED)                    # handed over later, as the game does
    assert w.execution == ("compiled" if KERNELS is not None else "numpy")
    w.use_compiled(None)
    assert w.execution == "numpy"


def test_soft_constraint_coefficients_are_box2d_s():
    """omega = 2 pi f, a1 = 2 zeta + h omega, a2 = h omega a1, a3 = 1 / (1 + a2)."""
    f, zeta, h = 30.0, 10.0, 1 / 240
    omega = 2 * np.pi * f
    a1 = 2 * zeta + h * omega
    a2 = h * omega * a1
    assert solver.soft(f, zeta, h) == pytest.approx((omega / a1, a2 / (1 + a2), 1 / (1 + a2)), rel=1e-15)
    assert solver.soft(0.0, zeta, h) == (0.0, 1.0, 0.0)       # off: rigid, no bias
    assert SolverOptions().substeps == 4


@needs_kernels
def test_islands_the_energy_guard_relaxes_again_end_alike_in_both_executions(monkeypatch):
    """A free cluster of rough balls in zero gravity, parting with spin: the warm start makes
    some islands gain energy and the guard relaxes them again (numpy: every island again,
    the kernel: only those). The two executions keep the same state, tick after tick."""
    rng = np.random.default_rng(0)      # a draw whose islands the guard catches (ten ticks of 20)
    balls = [{"pos": [2.0 + 0.3 * (k % 7) + rng.uniform(-0.02, 0.02), 2.0 + 0.3 * (k // 7) + rng.uniform(-0.02, 0.02)],
              "vel": rng.normal(0, 0.3, 2).tolist(), "radius": 0.16, "mass": float(rng.uniform(0.5, 2)),
              "spin": float(rng.uniform(-5, 5)), "restitution": 0.1, "friction": 0.9, "rolling": 0.0}
             for k in range(40)]
    level = {"gravity": [0, 0], "bounds": [0, 0, 8, 8], "integrator": "rk4",
             "material": {"restitution": 0.1, "friction": 0.9, "rolling": 0.0}, "balls": balls}
    guarded = []
    original = solver.energy_gained

    def counted(*args):
        gained = original(*args)
        guarded.append(bool(gained.any()))
        return gained

    monkeypatch.setattr(solver, "energy_gained", counted)
    numpy_world, compiled_world = build_world(level, execution="numpy"), build_world(level, execution="compiled")
    for _ in range(20):
        numpy_world.step(TICK)
        compiled_world.step(TICK)
        assert numpy_world.state_hash() == compiled_world.state_hash()
    assert any(guarded)         # the guard did relax some island again


@needs_kernels
def test_the_impacts_lowest_set_bit_table_finds_every_bit_of_a_word():
    """compiled.solver._impacts finds the next contact to look at by the lowest set bit of a 64-bit
    word through a de Bruijn table: every power of two must land on its own entry."""
    from game.physics.compiled import solver as _kernels
    for place in range(64):
        word = 1 << place
        top = ((word * int(_kernels.DE_BRUIJN)) % (1 << 64)) >> 58
        assert _kernels._LOW_BIT[top] == place
    assert sorted(_kernels._LOW_BIT) == list(range(64))


@needs_kernels
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), size=st.integers(1, 80), edges=st.integers(0, 120),
       static_share=st.sampled_from([0.0, 0.3]))
def test_the_compiled_islands_are_numpy_s(seed, size, edges, static_share):
    """game.physics.sleep labels its islands with the kernels' union-find when they are loaded: the
    labels must be solver.islands' (each ball's least index) on any graph, statics joining
    nothing."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, size, edges).astype(np.int64)
    b = rng.integers(0, size, edges).astype(np.int64)
    static = np.where(rng.random(edges) < static_share, rng.integers(0, 5, edges), -1).astype(np.int64)
    want = solver.islands(a, b, static, size)
    assert np.array_equal(KERNELS.islands(a, b, static, size), want)
    assert np.all(want <= np.arange(size))


@needs_kernels
@settings(max_examples=60, deadline=None)
@given(sizes=st.lists(st.integers(0, 40), min_size=0, max_size=12))
def test_the_passes_blocks_hold_each_contact_once_in_solve_order_within_its_colour(sizes):
    """compiled.blocks.plan: the blocks, one after another, hold every contact exactly once in
    solve order; none holds more than LANES or reaches into the next colour (a colour's
    contacts share no ball, so only within one may the lanes be solved at once)."""
    from game.physics.compiled import blocks
    colour_start = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    first, count = blocks.plan(colour_start)
    held = np.concatenate([np.arange(f, f + c) for f, c in zip(first, count)] or [np.zeros(0, np.int64)])
    assert np.array_equal(held, np.arange(colour_start[-1]))
    assert np.all((count >= 1) & (count <= blocks.LANES))
    colour = np.searchsorted(colour_start, first, side="right") - 1
    assert np.all(first + count <= colour_start[colour + 1])
