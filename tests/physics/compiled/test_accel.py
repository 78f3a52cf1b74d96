"""The compiled kernels (game.accel) against the numpy reference they mirror (the solver's: test_solver.py)."""
from game.paths import ROOT as ROOT_DIR  # noqa: E402
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scenes import build_world
from game.physics.compiled import loader as accel
from game.physics import collide, geometry
from tests.conftest import KERNELS

pytestmark = pytest.mark.skipif(KERNELS is None, reason="numba is not installed")


def pair_set(i, j):
    """Ball pairs as a set of (lower, higher) index."""
    return {(int(min(a, b)), int(max(a, b))) for a, b in zip(i, j)}


def compiled_pairs(grid, pos, radius, margin):
    return collide._ball_contacts_compiled(KERNELS, grid, pos, radius, margin)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 400), spread=st.floats(1.0, 30.0))
def test_compiled_ball_contacts_find_exactly_what_numpy_finds(seed, n, spread):
    rng = np.random.default_rng(seed)
    pos = rng.uniform(0, spread, (n, 2))
    pos[: n // 10] = pos[n // 10: 2 * (n // 10)]            # some coincident centres too
    radius = rng.uniform(0.05, 0.5, n)
    margin = rng.uniform(0.0, 0.2, n)
    grid = collide.Grid(max(1e-3, 2 * radius.max(initial=0.25)), (0, 0), (spread, spread))
    numpy_found = collide._ball_contacts(grid, pos, radius, margin)
    compiled = compiled_pairs(grid, pos, radius, margin)
    assert len(compiled[0]) == len(pair_set(*compiled))      # each pair once
    # ... as (lower, higher), sorted by (i, j): find_candidates takes them without a sort.
    assert np.all(compiled[0] < compiled[1])
    assert np.array_equal(np.lexsort((compiled[1], compiled[0])), np.arange(len(compiled[0])))
    assert pair_set(*numpy_found) == pair_set(*compiled)
    # Brute force: every touching pair is there (the grid's neighbourhood holds those), and
    # every pair there is closer than reach + margins.
    dx, dy = pos[:, None, 0] - pos[None, :, 0], pos[:, None, 1] - pos[None, :, 1]
    reach = radius[:, None] + radius[None]
    limit = reach + margin[:, None] + margin[None]
    i, j = np.nonzero(np.triu(dx * dx + dy * dy <= reach * reach, 1))
    assert pair_set(i, j) <= pair_set(*compiled)
    i, j = np.nonzero(np.triu(dx * dx + dy * dy < limit * limit, 1))
    assert pair_set(*compiled) <= pair_set(i, j)


def test_without_kernels_the_numpy_path_serves(monkeypatch):
    monkeypatch.setenv("BALLPIT_NUMPY", "1")
    assert accel.load() is None                      # refused: the numpy execution serves


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_compiled_candidates_with_walls_stadiums_pegs_and_polygons_are_numpy_s(seed):
    """Every static kind, balls crossing thin walls since the sub-step began, balls inside
    polygons: the same candidate pairs in the same order."""
    from game.physics.world import World
    rng = np.random.default_rng(seed)
    level = {"bounds": [0, 0, 10, 10],
             "segments": [{"a": list(rng.uniform(0, 10, 2)), "b": list(rng.uniform(0, 10, 2)),
                           "radius": float(r)} for r in rng.choice([0.0, 0.0, 0.3], 6)]
             + [{"a": [5, 5], "b": [5, 5], "radius": 0.4}],
             "polygons": [{"points": [[2, 2], [4, 2], [4, 3.5], [2, 3.5]]}]}
    w = build_world(level)
    w.add_balls([{"pos": list(p), "radius": 0.3} for p in rng.uniform(0, 10, (120, 2))])
    prev = w.pos + rng.normal(0, 0.2, w.pos.shape)        # some centres crossed a wall since
    found = [collide.find_candidates(w.pos, prev, w.radius, w.grid, w.statics, 0.05, kernels)
             for kernels in (None, KERNELS)]
    for numpy_array, compiled_array in zip(*found):
        assert np.array_equal(numpy_array, compiled_array)
    assert len(found[0][2])                                # the scene has ball-static pairs


def test_compiled_ball_contacts_make_room_for_a_crowd():
    """200 balls on one spot: 19,900 pairs, far more than the kernel's first guess of room."""
    pos = np.full((200, 2), 3.0)
    radius = np.full(200, 0.25)
    margin = np.zeros(200)
    grid = collide.Grid(0.5, (0, 0), (6, 6))
    compiled = compiled_pairs(grid, pos, radius, margin)
    assert len(compiled[0]) == 200 * 199 // 2
    assert pair_set(*compiled) == pair_set(*collide._ball_contacts(grid, pos, radius, margin))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), speed=st.sampled_from([0.5, 5.0, 60.0]))
def test_compiled_sweep_stops_the_same_balls_at_the_same_points_as_numpy(seed, speed):
    """Fast balls against thin walls, stadiums, pegs and polygon edges, some touching at the start."""
    from game.physics.world import World
    rng = np.random.default_rng(seed)
    level = {"bounds": [0, 0, 10, 10],
             "segments": [{"a": list(rng.uniform(0, 10, 2)), "b": list(rng.uniform(0, 10, 2)),
                           "radius": float(r), "restitution": float(rng.uniform(0, 1))}
                          for r in rng.choice([0.0, 0.0, 0.3], 6)]
             + [{"a": [5, 5], "b": [5, 5], "radius": 0.4}, {"a": [0, 0], "b": [10, 0]}],
             "polygons": [{"points": [[2, 2], [4, 2], [4, 3.5], [2, 3.5]]}]}
    w = build_world(level)
    w.add_balls([{"pos": list(p), "radius": float(r), "friction": float(mu)}
                 for p, r, mu in zip(rng.uniform(0, 10, (150, 2)), rng.uniform(0.05, 0.4, 150),
                                     rng.uniform(0, 1, 150))])
    prev = w.pos.copy()
    prev[:20] = w.pos[:20] + rng.normal(0, 0.01, (20, 2))        # some barely moved
    vel = rng.normal(0, speed, w.pos.shape)
    pos = prev + vel / 240
    results = []
    for kernels in (None, KERNELS):
        p, v = pos.copy(), vel.copy()
        fast, hits = collide.sweep(prev, p, v, w.radius, w.restitution, w.friction, w.statics, kernels)
        results.append((fast, hits, p, v))
    (f0, h0, p0, v0), (f1, h1, p1, v1) = results
    assert np.array_equal(f0, f1)
    assert np.array_equal(h0, h1, equal_nan=True)
    assert np.array_equal(p0, p1) and np.array_equal(v0, v1)     # the same bits
    if speed == 60.0:
        assert (~np.isnan(h0[:, 0])).any()         # the scene does test hits


def test_a_child_process_fills_the_cache_and_the_background_load_follows():
    """The game's way in: compile in a child (warm here: the tests loaded the kernels), then load."""
    # Generous waits, not timings: on a busy machine a cold compile takes minutes.
    assert accel.compile_in_child(timeout=600)
    arrived = []
    accel.load_in_background(arrived.append).join(timeout=600)
    # the kernels (and the joints'), then with the bodies', then with the tick
    assert [c.kernels for c in arrived] == [KERNELS, KERNELS, KERNELS]
    assert [c.joints is not None for c in arrived] == [True, True, True]
    assert [c.bodies is not None for c in arrived] == [False, True, True]
    assert [c.tick is not None for c in arrived] == [False, False, True]


def test_closing_the_game_ends_a_child_still_compiling():
    import subprocess
    import sys
    import threading
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    accel._children.append(child)
    closing = threading.Thread(target=accel.stop_background, daemon=True)
    closing.start()
    closing.join(timeout=60)                    # a wait with a timeout, not a timing: never flaky
    try:
        assert not closing.is_alive(), "stop_background did not return: the child was not ended"
        assert child.poll() is not None, "the child still runs"
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert not accel._children
    accel.stop_background()                     # nothing left to stop: no error


def test_each_part_of_the_warm_up_compiles_what_the_whole_compiles():
    """Two children fill the cache with a part each (accel.COMPILE_PARTS); the game then
    loads the whole from it. A part that called a kernel with other argument types would
    compile a specialisation the game never loads (and leave the game's own to compile):
    here the kernels are loaded, so a part must add no signature to any of them."""
    import numba
    from game.physics.compiled import collide, contacts, forces, integrators, solver
    kernels = {f"{module.__name__}.{name}": k for module in (collide, contacts, forces, integrators, solver)
               for name, k in vars(module).items() if isinstance(k, numba.core.registry.CPUDispatcher)}
    before = {name: list(k.signatures) for name, k in kernels.items()}
    # The whole warm-up made every kernel the namespace holds (the helpers inside them have no
    # signature of their own where the kernels came from the cache).
    public = {k for k in vars(KERNELS).values() if isinstance(k, numba.core.registry.CPUDispatcher)}
    public |= set(KERNELS.UNIFORM_STEPPERS.values())
    assert all(sigs for name, sigs in before.items() if kernels[name] in public)
    for part in accel.COMPILE_PARTS:
        KERNELS.warm_up(part)
    assert {name: list(k.signatures) for name, k in kernels.items()} == before
    with pytest.raises(ValueError):
        KERNELS.warm_up("everything")


def test_the_parts_of_the_warm_up_share_no_kernel_and_together_call_every_one(monkeypatch):
    """Each compiling child warms its part (compiled.warm.WARM_UP_PARTS); a kernel no part calls would
    be compiled by the game itself on its first call, holding the interpreter's lock for
    seconds, and one two parts call is compiled twice. Every public kernel (and the force
    steppers' one) is replaced by a spy that notes which part called it."""
    import numba
    from game.physics.compiled import forces as _force_kernels
    calls = []
    spied = {}

    def spy(name, kernel):
        spied[name] = kernel
        return lambda *args: (calls.append(name), kernel(*args))[1]

    for name, kernel in list(vars(KERNELS).items()):
        if isinstance(kernel, numba.core.registry.CPUDispatcher) and not name.startswith("_"):
            monkeypatch.setattr(KERNELS, name, spy(name, kernel))
    for key, kernel in list(KERNELS.UNIFORM_STEPPERS.items()):
        monkeypatch.setitem(KERNELS.UNIFORM_STEPPERS, key, spy(kernel.py_func.__name__, kernel))
    monkeypatch.setattr(_force_kernels, "step", spy("force step", _force_kernels.step))
    called = {}
    for part in accel.COMPILE_PARTS:
        calls.clear()
        KERNELS.warm_up(part)
        called[part] = set(calls)
    assert set(accel.COMPILE_PARTS) == set(KERNELS.WARM_UP_PARTS)
    for a in accel.COMPILE_PARTS:
        for b in accel.COMPILE_PARTS:
            assert a == b or not called[a] & called[b], (a, b)
    assert set().union(*called.values()) == set(spied)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 200))
def test_candidates_hold_every_pair_within_reach_plus_margins(seed, n):
    """Margins up to MAX_MARGIN_CELLS of a cell: every ball pair closer than r_i + r_j + m_i + m_j
    and every capsule closer than r + m (brute force) is a candidate, numpy and compiled;
    among them pairs in cells two apart (centres a diameter and a bit apart)."""
    from game.physics.world import World
    rng = np.random.default_rng(seed)
    level = {"bounds": [0, 0, 12, 12],
             "segments": [{"a": list(rng.uniform(0, 12, 2)), "b": list(rng.uniform(0, 12, 2)),
                           "radius": float(r)} for r in rng.choice([0.0, 0.2], 5)]}
    w = build_world(level)
    w.add_balls([{"pos": list(p), "radius": float(r)} for p, r in
                 zip(rng.uniform(0, 12, (n, 2)), rng.uniform(0.2, 0.5, n))])
    cell = w.grid.cell
    w.pos[1] = w.pos[0] + [2 * w.radius.max() + 0.01, 0.0]    # just beyond touching
    margin = rng.uniform(0.0, collide.MAX_MARGIN_CELLS * cell, n)
    dx, dy = w.pos[:, None, 0] - w.pos[None, :, 0], w.pos[:, None, 1] - w.pos[None, :, 1]
    limit = w.radius[:, None] + w.radius[None] + margin[:, None] + margin[None]
    want = pair_set(*np.nonzero(np.triu(np.hypot(dx, dy) < limit, 1)))
    st_ = w.statics
    closest = [np.asarray(geometry.closest_point_on_segment(st_.a[s], st_.b[s], w.pos)).reshape(-1, 2)
               for s in range(len(st_))]
    near = {(int(b), s) for s in range(len(st_))
            for b in np.nonzero(np.hypot(*(w.pos - closest[s]).T) < w.radius + st_.radius[s] + margin)[0]}
    for kernels in (None, KERNELS):
        i, j, bi, s = collide.find_candidates(w.pos, w.pos, w.radius, w.grid, w.statics, margin, kernels)
        assert want <= pair_set(i, j)
        assert near <= {(int(b), int(c)) for b, c in zip(bi, s)}


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 3000), top=st.sampled_from([0, 1, 7, 2047, 2048, 1 << 21, 1 << 40]))
def test_the_kernels_stable_order_is_numpys_stable_argsort(seed, n, top):
    """The candidate search's radix sort of cell numbers: numpy's stable argsort, to the
    element (ties in ball order), for keys of one digit, of several, and all equal."""
    from game.physics.compiled import collide as compiled_collide
    key = np.random.default_rng(seed).integers(0, top + 1, n).astype(np.int64)
    assert np.array_equal(compiled_collide._stable_order(key), np.argsort(key, kind="stable"))


def test_the_one_call_tick_is_compiled_to_let_go_of_the_interpreters_lock():
    """What the game's two-core loop (game.app.App.start_update) rests on: the tick is
    compiled nogil. (Whether another thread really runs meanwhile cannot be seen without a timing;
    benchmarks/bench_frame.py --overlap measures it.)"""
    from game.physics.compiled import step as _step_kernels
    compiled = accel.load()
    assert compiled.tick is _step_kernels and compiled.releases_lock
    assert _step_kernels.tick.targetoptions["nogil"] is True


def test_the_game_calls_the_kernels_with_no_signature_the_warm_up_left_out():
    """The game loads what the warm-ups compiled; a kernel called with other argument types
    (int32 for int64, a non-contiguous array, a float for an int) would be compiled in the
    game's own process on its first call, holding the interpreter's lock for seconds. Every
    shipped level, a few ticks with each integrator and with a grab spring, compiles nothing."""
    import os
    from numba.core import event
    from game.physics.integrators import ORDER
    from game.level import level_files, load
    from game.physics.world import World
    root = ROOT_DIR
    with event.install_recorder("numba:compile") as compiled:
        for path in level_files(os.path.join(root, "levels")):
            for integrator in ORDER:
                world = World.from_level(load(path))
                world.integrator = integrator
                for _ in range(3):
                    world.step(1 / 60)
                if world.count:
                    world.grab(0, world.pos[0] + 0.1)
                    world.step(1 / 60)
    assert not [(e.data["dispatcher"].py_func.__name__, e.data["args"]) for _, e in compiled.buffer if e.is_start]
