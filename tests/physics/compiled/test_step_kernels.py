"""The compiled tick (game._step_kernels.tick) is World._substep's phases, run in one call:
the same bits as the sub-steps run one by one, compiled or numpy, and the same events."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scenes import build_world
from game.physics import collide
from game.physics.contacts import colour_contacts, priorities
from game.physics.world import TICK
from tests.conftest import COMPILED, KERNELS
from tests.physics.test_solver import random_contacts

needs_kernels = pytest.mark.skipif(KERNELS is None, reason="numba is not installed")


def random_level(seed, n, integrator, drag):
    """Balls of mixed sizes, masses and materials, some overlapping, fast or spinning, in a box
    with a slanted stadium, a peg and a triangle (balls may start inside it)."""
    rng = np.random.default_rng(seed)
    balls = [{"pos": rng.uniform(0.4, 3.6, 2).tolist(), "vel": rng.normal(0, 4, 2).tolist(),
              "radius": float(rng.uniform(0.08, 0.3)), "mass": float(rng.uniform(0.2, 5)),
              "spin": float(rng.uniform(-10, 10)), "restitution": float(rng.uniform(0, 1)),
              "friction": float(rng.uniform(0, 1)), "rolling": float(rng.uniform(0, 0.2))} for _ in range(n)]
    return {"gravity": [float(rng.uniform(-2, 2)), -9.81], "drag": drag, "bounds": [0, 0, 4, 4],
            "integrator": integrator, "material": {"restitution": 0.4, "friction": 0.3, "rolling": 0.05},
            "polylines": [{"points": [[0, 0], [4, 0], [4, 4], [0, 4]], "closed": True}],
            "segments": [{"a": [0.5, 1.5], "b": [2.0, 1.0], "radius": 0.1},
                         {"a": [3.0, 2.0], "b": [3.0, 2.0], "radius": 0.2}],
            "polygons": [{"points": [[1.0, 2.4], [2.2, 2.4], [1.6, 3.2]]}], "balls": balls}


def run(level, ticks, execution, fused=True, warm_start=True, substeps=None):
    """(world, [per tick: impact points, impact speeds]) after ``ticks`` ticks."""
    w = build_world(level, execution=execution)
    w.solver.options.warm_start = warm_start
    if substeps:
        w.substeps = substeps
    if not fused:
        w._fused = lambda kernels: False           # the sub-steps one by one
    events = []
    for _ in range(ticks):
        w.step(TICK)
        events.append((w.impact_points.copy(), w.impact_speeds.copy()))
    return w, events


def readings(w):
    return (w.state_hash(), w.contact_points, w.contact_offsets, w.swept_from, w.swept_to, w.swept_hit)


def assert_same(first, second):
    (w1, e1), (w2, e2) = first, second
    r1, r2 = readings(w1), readings(w2)
    assert r1[0] == r2[0]
    for x, y in zip(r1[1:], r2[1:]):
        assert np.array_equal(x, y, equal_nan=True)
    for (p1, s1), (p2, s2) in zip(e1, e2):
        assert np.array_equal(p1, p2) and np.array_equal(s1, s2)


@needs_kernels
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 30), ticks=st.integers(1, 20),
       integrator=st.sampled_from(["euler", "semi-implicit", "verlet", "rk4"]), drag=st.sampled_from([0, 0.3]),
       warm_start=st.booleans(), substeps=st.integers(1, 5))
def test_the_compiled_tick_gives_the_bits_and_events_of_the_sub_steps(seed, n, ticks, integrator, drag,
                                                                       warm_start, substeps):
    """State hash, last contacts, swept balls and every tick's impacts: equal to the last bit
    whether the tick runs in one call, as compiled sub-steps, or on numpy."""
    level = random_level(seed, n, integrator, drag)
    assert build_world(level)._fused(KERNELS)
    fused = run(level, ticks, "compiled", True, warm_start, substeps)
    stepped = run(level, ticks, "compiled", False, warm_start, substeps)
    reference = run(level, ticks, "numpy", True, warm_start, substeps)
    assert_same(fused, stepped)
    assert_same(fused, reference)


def with_forces(level, seed, grab):
    """The level with springs between its balls and to anchors, an attractor of each shape
    over parts of the box, and (``grab``) the grab's spring on ball 0."""
    rng = np.random.default_rng(seed)
    n = len(level["balls"])
    springs = [{"a": int(a), "b": int(b), "stiffness": float(rng.uniform(5, 300)), "damping": float(rng.uniform(0, 2))}
               for a, b in rng.integers(0, n, (n, 2)) if a != b]
    springs += [{"a": int(a), "b": rng.uniform(0.5, 3.5, 2).tolist(), "stiffness": 40.0, "rest": 0.3}
                for a in rng.integers(0, n, 2)]
    zones = [{"kind": "attractor", "strength": 6.0, **shape} for shape in (
        {"rect": [[0, 0], [2, 2]]}, {"circle": {"center": [3, 3], "radius": 1.0}},
        {"ellipse": {"center": [1, 3], "radii": [1.0, 0.5]}},
        {"polygon": [[2, 0], [4, 0], [3, 1.5]]})]
    return dict(level, springs=springs, zones=zones), grab


@needs_kernels
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 20), ticks=st.integers(1, 15),
       integrator=st.sampled_from(["euler", "semi-implicit", "verlet", "rk4"]), grab=st.booleans())
def test_the_compiled_tick_under_springs_attractors_and_the_grab_gives_the_bits_of_the_sub_steps(
        seed, n, ticks, integrator, grab):
    """Springs (between balls and to anchors), attractors of every shape and the grab's moving
    anchor: the one-call tick (the force steppers inside it) gives the state hash, contacts,
    sweeps and impacts of the sub-steps run one by one, compiled and on numpy."""
    level, grab = with_forces(random_level(seed, n, integrator, 0.2), seed, grab)

    def play(execution, fused):
        w = build_world(level, execution=execution)
        if not fused:
            w._fused = lambda kernels: False
        assert w._fused(KERNELS) == fused
        handle = w.grab(0, w.pos[0] + (0.3, 0.4)) if grab else None
        events = []
        for k in range(ticks):
            if grab:
                w.move_grab(handle, w.pos[0] + (0.1 * np.cos(k), 0.2))
            w.step(TICK)
            events.append((w.impact_points.copy(), w.impact_speeds.copy()))
        return w, events
    fused = play("compiled", True)
    stepped = play("compiled", False)
    reference = play("numpy", False)
    assert_same(fused, stepped)
    assert_same(fused, reference)


@needs_kernels
def test_a_fast_ball_swept_into_a_wall_is_reported_alike():
    """A bullet into the floor: the compiled tick reports the sweep (from, to, hit) and the
    impact as the sub-steps do (it hits in the last sub-step, which the debug layer shows)."""
    level = {"bounds": [0, 0, 10, 10], "segments": [{"a": [0, 0], "b": [10, 0]}],
             "balls": [{"pos": [5, 3.1], "vel": [3, -200], "radius": 0.2}, {"pos": [2, 0.2], "radius": 0.2}]}
    fused = run(level, 1, "compiled")
    assert len(fused[0].swept_hit) == 1 and np.isfinite(fused[0].swept_hit).all()
    assert_same(fused, run(level, 1, "compiled", fused=False))


@needs_kernels
def test_the_compiled_tick_serves_every_force_and_polygons(monkeypatch):
    pit = random_level(1, 5, "rk4", 0)
    assert build_world(pit)._fused(KERNELS)
    assert not build_world(pit)._fused(None)                        # numba not loaded
    still_compiling = build_world(pit)
    still_compiling.use_compiled(COMPILED._replace(tick=None))            # the tick still compiling
    assert not still_compiling._fused(KERNELS)
    assert not build_world(dict(pit, balls=[]))._fused(KERNELS)     # nothing to step
    assert pit["polygons"] and build_world(pit)._fused(KERNELS)    # their insides: compiled.insides
    springs = dict(pit, springs=[{"a": 0, "b": 1, "stiffness": 10}])
    assert build_world(springs)._fused(KERNELS)


@needs_kernels
@pytest.mark.parametrize("cells", [40, 4000], ids=["counting-sort", "comparison-sort"])
def test_ball_contacts_on_dense_and_sparse_grids_are_the_brute_force_pairs(cells):
    """Both ways the kernel orders the balls by cell (a counting sort on a grid of few cells a
    ball, a comparison sort on a big sparse one) find every pair within reach plus margins,
    each once, sorted, and no other."""
    rng = np.random.default_rng(cells)
    n = 300
    span = 20.0
    grid = collide.Grid(span / cells, (0, 0), (span, span))
    pos = rng.uniform(0, 12 * grid.cell, (n, 2))            # crowded: two balls a cell
    pos[:20] = pos[20:40]                                   # coincident centres too
    radius = rng.uniform(0.05, 0.25, n) * grid.cell          # r + margin <= cell / 2: the grid's contract
    margin = rng.uniform(0.0, 0.25, n) * grid.cell
    from game.physics.compiled import collide as compiled_collide
    assert (grid.size <= compiled_collide.MAX_COUNTING_CELLS * n + 1024) == (cells == 40)
    i, j = KERNELS.ball_contacts(pos[:, 0].copy(), pos[:, 1].copy(), radius, margin, grid.cell, grid.origin[0],
                                 grid.origin[1], grid.nx, grid.ny)
    dx, dy = pos[:, None, 0] - pos[None, :, 0], pos[:, None, 1] - pos[None, :, 1]
    limit = radius[:, None] + radius[None] + margin[:, None] + margin[None]
    bi, bj = np.nonzero(np.triu(dx * dx + dy * dy < limit * limit, 1))      # sorted by (i, j)
    assert len(bi) > 200
    assert np.array_equal(i, bi) and np.array_equal(j, bj)


@needs_kernels
def test_the_compiled_tick_s_cache_goes_stale_with_the_kernels_files():
    """numba checks a cached function against its own file only; the tick links the kernels
    of compiled/collide.py, contacts.py, solver.py (and its passes' blocks.py), integrators.py, forces.py, walls.py,
    joints.py (whose kernel is game/physics/joints.py's, with joint_sums.py's and joint_solve.py's
    helpers) and insides.py
    (game/physics/insides.py's) into itself and reads the bundles'
    fields by name (game/physics/bundles.py), so its cache index carries their stamps too; so
    does each kernel's (prepare_contacts and the solver's: also collide.py's, whose counting
    sort and carried point they link; the solver's, blocks.py's passes as well)."""
    from game.physics import bundles, insides as insides_reference, joint_solve, joint_sums, joints as joints_reference
    from game.physics.compiled import (blocks, collide, contacts, forces, insides, integrators, joints, solver, stamps,
                                       step as _step_kernels, walls)
    stamp = _step_kernels.tick._cache._cache_file._source_stamp
    assert stamp[0] == stamps.source_stamp(_step_kernels.__file__)
    assert stamp[1:] == tuple(stamps.source_stamp(m.__file__) for m in
                              (collide, contacts, solver, blocks, integrators, forces, walls, joints, insides,
                               joints_reference, joint_sums, joint_solve, insides_reference, bundles))
    # The joints' kernel is joints.py's code with joint_sums.py's and joint_solve.py's helpers linked in.
    stamp = joints.substep_kernel._cache._cache_file._source_stamp
    assert stamp[1:] == (stamps.source_stamp(joint_sums.__file__), stamps.source_stamp(joint_solve.__file__))
    for kernel in (contacts.prepare_contacts, solver.solve, walls.wall_rows):
        assert kernel._cache._cache_file._source_stamp[1:] == tuple(
            stamps.source_stamp(m.__file__) for m in ((collide, bundles) if kernel is contacts.prepare_contacts
                                                      else (bundles, collide, blocks) if kernel is solver.solve
                                                      else (bundles, collide)))
    # The polygons' insides are game/physics/insides.py's code, reading the Statics bundle.
    assert insides.polygon_insides._cache._cache_file._source_stamp == (
        stamps.source_stamp(insides_reference.__file__), stamps.source_stamp(bundles.__file__))
    for kernel in (collide.sweep, forces.step):
        assert kernel._cache._cache_file._source_stamp[1:] == (stamps.source_stamp(bundles.__file__),)


@needs_kernels
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), balls=st.integers(1, 60), contacts=st.integers(0, 300),
       static_share=st.sampled_from([0.0, 0.3, 1.0]))
def test_the_compiled_colours_are_the_rounds_of_the_numpy_colouring(seed, balls, contacts, static_share):
    """The kernel colours each contact one more than the contacts of lower priority it waits
    for on its balls, without the rounds: the same colour for every contact."""
    a, b, key = random_contacts(seed, balls, contacts, static_share)
    priority = priorities(key)
    rounds = colour_contacts(a, b, balls, priority)
    from game.physics.compiled import contacts as compiled_contacts
    assert np.array_equal(compiled_contacts._colour_contacts(a, b, balls, priority), rounds)


def test_candidates_kept_from_tick_to_tick_are_found_again_when_the_balls_change(execution):
    """Candidate pairs live on from tick to tick while every ball stays within its margin of
    where they were found; when balls go and come they are found again, even where the count
    and the positions at each index stay the same: the last ball is replaced by a bigger one
    on the same spot, now overlapping its neighbour, and the two are pushed apart."""
    level = {"gravity": [0, 0], "bounds": [0, 0, 10, 10], "segments": [{"a": [0, 0], "b": [10, 0]}],
             "balls": [{"pos": [2, 5], "radius": 0.5}, {"pos": [5, 5], "radius": 0.5},
                       {"pos": [8, 2], "radius": 0.9},                 # the grid's cell fits r 0.9
                       {"pos": [6.3, 5], "radius": 0.5}]}
    w = build_world(level, execution=execution)
    for _ in range(3):
        w.step(TICK)                                # at rest, apart: nothing moves
    assert np.array_equal(w.pos, np.array([b["pos"] for b in level["balls"]], float))
    w.remove_balls([3])
    w.add_ball((6.3, 5.0), radius=0.9)              # reach 1.4 over a gap of 1.3
    w.step(TICK)
    assert np.linalg.norm(w.pos[3] - w.pos[1]) > 1.3 + 1e-3
