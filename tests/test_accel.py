"""The compiled kernels (game.accel) against the numpy reference they mirror."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game import accel, collide
from tests.conftest import KERNELS

pytestmark = pytest.mark.skipif(KERNELS is None, reason="numba is not installed")


def contact_set(i, j, normal, depth):
    """Pairs as (lower, higher) index with the normal pointing at the lower one, rounded."""
    out = {}
    for a, b, n, d in zip(i, j, normal, depth):
        if a > b:
            a, b, n = b, a, -n
        out[int(a), int(b)] = (n[0], n[1], d)
    return out


def compiled_pairs(grid, pos, radius, margin, restitution=None, friction=None):
    """The compiled ball pairs as contact_set's (i, j, normal, depth), and the materials by pair."""
    n = len(pos)
    restitution = np.full(n, 0.5) if restitution is None else restitution
    friction = np.full(n, 0.5) if friction is None else friction
    i, j, nx, ny, depth, rhs, e, mu, reach = collide._ball_contacts_compiled(
        KERNELS, grid, pos, radius, restitution, friction, margin)
    assert np.array_equal(rhs, reach)
    materials = {(int(min(a, b)), int(max(a, b))): (x, y) for a, b, x, y in zip(i, j, e, mu)}
    return (i, j, np.stack((nx, ny), axis=1), depth), materials


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 400), spread=st.floats(1.0, 30.0))
def test_compiled_ball_contacts_find_exactly_what_numpy_finds(seed, n, spread):
    rng = np.random.default_rng(seed)
    pos = rng.uniform(0, spread, (n, 2))
    pos[: n // 10] = pos[n // 10: 2 * (n // 10)]            # some coincident centres too
    radius = rng.uniform(0.05, 0.5, n)
    margin = rng.uniform(0.0, 0.2, n)
    restitution, friction = rng.uniform(0, 1, n), rng.uniform(0, 1, n)
    grid = collide.Grid(max(1e-3, 2 * radius.max(initial=0.25)), (0, 0), (spread, spread))
    numpy_found = collide._ball_contacts(grid, pos, radius, margin)
    compiled, materials = compiled_pairs(grid, pos, radius, margin, restitution, friction)
    expected, got = contact_set(*numpy_found[:4]), contact_set(*compiled)
    assert expected.keys() == got.keys()
    for pair, values in expected.items():
        assert np.allclose(values, got[pair], rtol=0, atol=1e-12), pair
        a, b = pair    # Box2D's rule: the livelier restitution, the geometric mean of friction
        assert materials[pair] == (max(restitution[a], restitution[b]), np.sqrt(friction[a] * friction[b]))


@pytest.mark.parametrize("restitution, friction", [(0.0, 0.0), (0.8, 0.5)])
def test_one_contact_gets_the_same_response_on_both_paths(restitution, friction):
    """Jacobi and Gauss-Seidel agree where contacts do not share balls: two separate pairs."""
    from game.world import World

    def world():
        w = World.from_level({"segments": [{"a": [-20, 0], "b": [20, 0]}], "gravity": [0, -9.81],
                              "material": {"restitution": restitution, "friction": friction},
                              "bounds": [-20, 0, 20, 20]})
        w.add_ball((-5, 0.49), (1.0, -3.0), radius=0.5)           # into the floor, sliding
        w.add_ball((5, 5.0), (3.0, 0.0), radius=0.4, mass=2.0)    # a head-on pair in the air
        w.add_ball((5.75, 5.0), (-2.0, 0.0), radius=0.4)
        return w

    previous = accel.use(None)
    try:
        reference = world()
        reference.step()
    finally:
        accel.use(KERNELS)
    compiled = world()
    compiled.step()
    accel.use(previous)
    assert np.allclose(compiled.pos, reference.pos, atol=1e-12)
    assert np.allclose(compiled.vel, reference.vel, atol=1e-12)


def test_without_kernels_the_numpy_path_serves(monkeypatch):
    monkeypatch.setenv("BALLPIT_NUMPY", "1")
    assert accel.load() is None or accel.KERNELS is KERNELS   # loaded already, or refused


def contacts_on(kernels, world, prev):
    previous = accel.use(kernels)
    try:
        c = collide.find_contacts(world.pos, prev, world.radius, world.restitution, world.friction,
                                  world.grid, world.statics, margin=0.05)
    finally:
        accel.use(previous)
    static = c.static                      # ball pairs are compared in the test above
    rows = np.column_stack((c.i, c.depth, c.normal, c.points(world.pos, world.radius, np.arange(len(c))), c.rhs,
                            c.restitution, c.friction, c.reach))[static]
    return rows[np.lexsort((rows[:, 2], rows[:, 1], rows[:, 0]))]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_compiled_contacts_with_walls_stadiums_pegs_and_polygons_match_numpy(seed):
    """Every static kind, balls crossing thin walls since the sub-step began, balls inside polygons."""
    from game.world import World
    rng = np.random.default_rng(seed)
    level = {"bounds": [0, 0, 10, 10],
             "segments": [{"a": list(rng.uniform(0, 10, 2)), "b": list(rng.uniform(0, 10, 2)),
                           "radius": float(r)} for r in rng.choice([0.0, 0.0, 0.3], 6)]
             + [{"a": [5, 5], "b": [5, 5], "radius": 0.4}],
             "polygons": [{"points": [[2, 2], [4, 2], [4, 3.5], [2, 3.5]]}]}
    w = World.from_level(level)
    w.add_balls([{"pos": list(p), "radius": 0.3} for p in rng.uniform(0, 10, (120, 2))])
    prev = w.pos + rng.normal(0, 0.2, w.pos.shape)        # some centres crossed a wall since
    numpy_rows = contacts_on(None, w, prev)
    compiled_rows = contacts_on(KERNELS, w, prev)
    assert numpy_rows.shape == compiled_rows.shape
    assert np.allclose(numpy_rows, compiled_rows, rtol=0, atol=1e-9)


def test_compiled_ball_contacts_make_room_for_a_crowd():
    """200 balls on one spot: 19,900 pairs, far more than the kernel's first guess of room."""
    pos = np.full((200, 2), 3.0)
    radius = np.full(200, 0.25)
    margin = np.zeros(200)
    grid = collide.Grid(0.5, (0, 0), (6, 6))
    compiled, _ = compiled_pairs(grid, pos, radius, margin)
    assert len(compiled[0]) == 200 * 199 // 2
    assert contact_set(*compiled).keys() == contact_set(*collide._ball_contacts(grid, pos, radius, margin)[:4]).keys()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), drag=st.sampled_from([0.0, 0.7]),
       h=st.floats(1e-4, 0.05), name=st.sampled_from(sorted(KERNELS.UNIFORM_STEPPERS) if KERNELS else ["rk4"]))
def test_compiled_integrators_step_exactly_as_the_numpy_steppers(seed, drag, h, name):
    """Under gravity and drag the compiled steppers do the numpy steppers' arithmetic, bit for bit."""
    from game.forces import Forces
    from game.integrators import INTEGRATORS
    rng = np.random.default_rng(seed)
    pos, vel = rng.normal(0, 10, (50, 2)), rng.normal(0, 30, (50, 2))
    forces = Forces((0.3, -9.81), drag)
    inv_mass = np.ones(50)

    def f(t, y):
        return np.stack((y[1], forces.acceleration(y[0], y[1], inv_mass, t)))

    expected = INTEGRATORS[name](f, 0.0, np.stack((pos, vel)), h)
    KERNELS.UNIFORM_STEPPERS[name](pos, vel, 0.3, -9.81, drag, h)
    assert np.array_equal(pos, expected[0]) and np.array_equal(vel, expected[1])


def test_every_integrator_has_its_compiled_twin():
    """A new numpy stepper without a compiled one would run, but on the slow path: say so here."""
    from game.integrators import INTEGRATORS
    assert set(KERNELS.UNIFORM_STEPPERS) == set(INTEGRATORS)


@pytest.mark.parametrize("shift, still_valid", [(0.01, True), (0.2, False)])
def test_compiled_refresh_matches_numpy_and_refuses_past_the_margin(shift, still_valid):
    from game.world import World
    rng = np.random.default_rng(7)
    w = World.from_level({"bounds": [0, 0, 10, 10], "segments": [{"a": [0, 0], "b": [10, 0]}]})
    w.add_balls([{"pos": list(p), "radius": 0.3} for p in rng.uniform(0, 10, (150, 2))])
    margin = np.full(w.count, 0.1)
    moved = w.pos + rng.uniform(-shift, shift, w.pos.shape)
    found = []
    for kernels in (None, KERNELS):
        previous = accel.use(kernels)
        try:
            c = collide.find_contacts(w.pos, w.pos, w.radius, w.restitution, w.friction,
                                      w.grid, w.statics, margin=margin)
            before = c.depth.copy()
            assert c.refresh(moved, w.pos, margin) == still_valid
            found.append(c.depth if still_valid else before)
            if not still_valid:
                assert np.array_equal(c.depth, before)          # left alone
        finally:
            accel.use(previous)
    reference, compiled = found
    assert np.allclose(np.sort(reference), np.sort(compiled), rtol=0, atol=1e-12)


@pytest.mark.parametrize("count", [0, 1, 15, 16, 17, 100, 1001])
def test_interleaved_layout_is_a_permutation(count):
    assert sorted(KERNELS._interleaved(q, count) for q in range(count)) == list(range(count))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), speed=st.sampled_from([0.5, 5.0, 60.0]))
def test_compiled_sweep_stops_the_same_balls_at_the_same_points_as_numpy(seed, speed):
    """Fast balls against thin walls, stadiums, pegs and polygon edges, some touching at the start."""
    from game.world import World
    rng = np.random.default_rng(seed)
    level = {"bounds": [0, 0, 10, 10],
             "segments": [{"a": list(rng.uniform(0, 10, 2)), "b": list(rng.uniform(0, 10, 2)),
                           "radius": float(r), "restitution": float(rng.uniform(0, 1))}
                          for r in rng.choice([0.0, 0.0, 0.3], 6)]
             + [{"a": [5, 5], "b": [5, 5], "radius": 0.4}, {"a": [0, 0], "b": [10, 0]}],
             "polygons": [{"points": [[2, 2], [4, 2], [4, 3.5], [2, 3.5]]}]}
    w = World.from_level(level)
    w.add_balls([{"pos": list(p), "radius": float(r), "friction": float(mu)}
                 for p, r, mu in zip(rng.uniform(0, 10, (150, 2)), rng.uniform(0.05, 0.4, 150),
                                     rng.uniform(0, 1, 150))])
    prev = w.pos.copy()
    prev[:20] = w.pos[:20] + rng.normal(0, 0.01, (20, 2))        # some barely moved
    vel = rng.normal(0, speed, w.pos.shape)
    pos = prev + vel / 240
    results = []
    for kernels in (None, KERNELS):
        previous = accel.use(kernels)
        try:
            p, v = pos.copy(), vel.copy()
            fast, hits = collide.sweep(prev, p, v, w.radius, w.restitution, w.friction, w.statics)
            results.append((fast, hits, p, v))
        finally:
            accel.use(previous)
    (f0, h0, p0, v0), (f1, h1, p1, v1) = results
    assert np.array_equal(f0, f1)
    assert np.array_equal(np.isnan(h0), np.isnan(h1))
    assert np.allclose(h0[~np.isnan(h0)], h1[~np.isnan(h1)], rtol=0, atol=1e-12)
    assert np.allclose(p0, p1, rtol=0, atol=1e-12) and np.allclose(v0, v1, rtol=0, atol=1e-9)
    if speed == 60.0:
        assert (~np.isnan(h0[:, 0])).any()         # the scene does test hits


def test_a_child_process_fills_the_cache_and_the_background_load_follows():
    """The game's way in: compile in a child (warm here: the tests loaded the kernels), then load."""
    assert accel.compile_in_child(timeout=120)
    accel.load_in_background().join(timeout=120)
    assert accel.KERNELS is KERNELS


def test_closing_the_game_ends_a_child_still_compiling():
    import subprocess
    import sys
    import threading
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    accel._child = child
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
    assert accel._child is None
    accel.stop_background()                     # nothing left to stop: no error
