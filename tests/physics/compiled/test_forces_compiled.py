"""Springs, attractors and the grab on the compiled path (issue 13): the steppers of
game.physics.compiled.forces give the same bits as the numpy steppers of game.physics.integrators under
Forces.acceleration, for every integrator, and a compiled World takes them."""
from game.paths import ROOT as ROOT_DIR  # noqa: E402
import importlib.util
import math
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scenes import build_world
from game.physics.forces import Forces
from game.physics.integrators import ORDER
from game.level import load
from game.physics.world import TICK, World
from game.physics.zones import Zone
from tests.conftest import KERNELS

ROOT = ROOT_DIR
HAS_NUMBA = importlib.util.find_spec("numba") is not None
pytestmark = pytest.mark.skipif(not HAS_NUMBA, reason="numba is not installed")


@pytest.fixture(autouse=True)
def kernels():
    assert KERNELS is not None, "numba is installed but the compiled kernels did not load"
    yield KERNELS


def both(level, ticks, prepare=None, each_tick=None):
    """(numpy World, compiled World) built from ``level``, each given ``prepare(world)`` and
    stepped ``ticks`` ticks with ``each_tick(world, k)`` before tick k."""
    worlds = []
    for execution in ("numpy", "compiled"):
        w = build_world(level, execution=execution)
        if prepare:
            prepare(w)
        for k in range(ticks):
            if each_tick:
                each_tick(w, k)
            w.step(TICK)
        worlds.append(w)
    return worlds


def assert_same_bits(worlds):
    numpy_world, compiled_world = worlds
    assert numpy_world.count == compiled_world.count
    assert compiled_world.state_hash() == numpy_world.state_hash()


def attractor_level(integrator):
    """The shipped attractor level with 40 more balls scattered over its pull (seeded), so
    the pull acts on many balls from the first tick."""
    level = load(os.path.join(ROOT, "levels", "09_attractor.json"))
    level["integrator"] = integrator
    rng = np.random.default_rng(13)
    pull = next(z for z in level["zones"] if z["kind"] == "attractor")
    centre, reach = np.asarray(pull["circle"]["center"]), pull["circle"]["radius"]
    for _ in range(40):
        angle, r = rng.uniform(0, 2 * math.pi), rng.uniform(1.5, reach)
        level["balls"].append({"pos": (centre + r * np.array([math.cos(angle), math.sin(angle)])).tolist(),
                               "vel": rng.uniform(-6, 6, 2).tolist(), "radius": 0.2})
    return level


@pytest.mark.parametrize("integrator", ORDER)
def test_the_spring_level_gives_the_same_bits_compiled_and_in_numpy(integrator):
    level = load(os.path.join(ROOT, "levels", "05_springs.json"))
    level["integrator"] = integrator
    assert_same_bits(both(level, 40))


@pytest.mark.parametrize("integrator", ORDER)
def test_the_attractor_level_gives_the_same_bits_compiled_and_in_numpy(integrator):
    assert_same_bits(both(attractor_level(integrator), 40))


@pytest.mark.parametrize("integrator", ORDER)
def test_a_grabbed_ball_dragged_about_gives_the_same_bits_compiled_and_in_numpy(integrator):
    """A ball of the ball pit held by the grab and pulled round a circle, the grab's anchors
    moving every tick, then let go."""
    level = load(os.path.join(ROOT, "levels", "01_ball_pit.json"))
    level["integrator"] = integrator
    handles = {}

    def drag(w, k):
        if k == 0:
            handles[id(w)] = w.grab(0, w.pos[0])
        elif k < 30:
            w.move_grab(handles[id(w)], (16 + 4 * math.cos(k / 5), 9 + 4 * math.sin(k / 5)))
        elif k == 30:
            w.release(handles[id(w)])

    worlds = both(level, 40, each_tick=drag)
    assert_same_bits(worlds)
    assert np.hypot(*(worlds[0].pos[0] - level["balls"][0]["pos"])) > 1.0, "the grab moved the ball"


def test_a_compiled_world_never_takes_the_numpy_forces(monkeypatch):
    """Springs and attractors no longer send a compiled World to Forces.acceleration."""
    def numpy_forces(*_args, **_kwargs):
        raise AssertionError("the numpy forces ran on a compiled World")

    monkeypatch.setattr(Forces, "acceleration", numpy_forces)
    for level in (load(os.path.join(ROOT, "levels", "05_springs.json")), attractor_level("rk4")):
        w = build_world(level, execution="compiled")
        assert len(w.springs) or w.forces.attractors
        w.step(TICK)


def zones_of_every_shape():
    """One attractor of each shape, overlapping, so a ball can feel several; besides the
    level's (counter-clockwise) polygons, a clockwise one and one of no area, which
    Zone.contains takes too."""
    zones = [Zone.from_definition(dict(z, count=0)) for z in (      # normalised: every key set
        {"kind": "attractor", "rect": [[-1, -1], [1, 0.5]], "strength": 3},
        {"kind": "attractor", "circle": {"center": [0.5, 0], "radius": 1.25}, "strength": 5},
        {"kind": "attractor", "ellipse": {"center": [0, 0.5], "radii": [1.5, 0.75]}, "strength": 7},
        {"kind": "attractor", "polygon": [[-1, -1], [1.5, -0.5], [0, 1.5]], "strength": 11})]
    zones.append(Zone("attractor", "polygon", {"points": np.array([[0.0, 1.0], [1.0, -1.0], [-1.0, -1.0]])}, 0, 13))
    zones.append(Zone("attractor", "polygon", {"points": np.array([[-1.0, -1.0], [0.0, 0.0], [1.0, 1.0]])}, 0, 17))
    return zones


# Points on the zones' edges and corners and at their centres: the inside tests must agree there too.
EDGE_POINTS = [(-1, -1), (1, 0.5), (1, -1), (1.75, 0), (0.5, 1.25), (0.5, 0), (1.5, 0.5), (0, 1.25), (0, 0.5),
               (-1.5, 0.5), (0, 1.5), (1.5, -0.5), (0.25, -0.75), (0.25, 0.25), (0, 1), (1.5, 1.5)]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 25), springs=st.integers(0, 12),
       drag=st.sampled_from([0.0, 0.3]))
def test_the_compiled_acceleration_is_the_numpy_one_to_the_bit(seed, n, springs, drag):
    """game.physics.compiled.forces.accelerate against Forces.acceleration at random states: springs
    between balls and to anchors (some of no length, some with both ends on one ball's
    spot), and attractors of every shape with balls on their edges and at their centres."""
    from game.physics.compiled import forces as _force_kernels
    rng = np.random.default_rng(seed)
    pos = rng.uniform(-2, 2, (n, 2))
    pos[: min(n, len(EDGE_POINTS))] = EDGE_POINTS[:n]
    vel = rng.uniform(-3, 3, (n, 2))
    inv_mass = 1.0 / rng.uniform(0.1, 4, n)
    forces = Forces(gravity=rng.uniform(-10, 10, 2), drag=drag)
    forces.attractors = zones_of_every_shape()
    for _ in range(springs):
        a = int(rng.integers(n))
        b = int(rng.integers(-1, n))
        anchor = pos[a] if rng.random() < 0.2 else rng.uniform(-2, 2, 2)
        forces.springs.add(a, b, anchor, rng.uniform(1, 3000), rng.uniform(0, 5), rng.uniform(0, 1))
    want = forces.acceleration(pos, vel, inv_mass)
    got = np.full_like(pos, np.nan)
    _force_kernels.accelerate(got, pos, vel, inv_mass, forces.packed())
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("integrator", ORDER)
def test_every_compiled_stepper_is_its_numpy_stepper_under_every_force(integrator, kernels):
    """One step of each stepper, straight, on a state under springs and every attractor shape."""
    from game.physics.integrators import INTEGRATORS
    rng = np.random.default_rng(7)
    n = 20
    pos, vel, inv_mass = rng.uniform(-2, 2, (n, 2)), rng.uniform(-3, 3, (n, 2)), 1.0 / rng.uniform(0.1, 4, n)
    forces = Forces(gravity=(0.5, -9.81), drag=0.2)
    forces.attractors = zones_of_every_shape()
    for k in range(n - 1):
        forces.springs.add(k, k + 1 if k % 3 else -1, rng.uniform(-2, 2, 2), 500.0, 0.5, 0.3)

    def f(t, y):
        return np.stack((y[1], forces.acceleration(y[0], y[1], inv_mass, t)))

    want = INTEGRATORS[integrator](f, 0.0, np.stack((pos, vel)), 1 / 240)
    got_pos, got_vel = pos.copy(), vel.copy()
    kernels.FORCE_STEPPERS[integrator](got_pos, got_vel, inv_mass, 1 / 240, forces.packed())
    assert got_pos.tobytes() == np.ascontiguousarray(want[0]).tobytes()
    assert got_vel.tobytes() == np.ascontiguousarray(want[1]).tobytes()


@pytest.mark.parametrize("integrator", ORDER)
def test_stiff_springs_that_blow_up_give_the_same_bits_through_inf_and_nan(integrator):
    """Springs far too stiff for the step gain energy every step until their numbers
    overflow: the compiled steppers follow the numpy ones through inf and NaN too (with drag
    and an attractor; no statics, whose contacts are not the forces' business)."""
    level = {"gravity": [0, -9.81], "drag": 0.1, "integrator": integrator, "substeps": 1, "bounds": [-5, -5, 5, 5],
             "zones": [{"kind": "attractor", "circle": {"center": [0, 0], "radius": 3}, "strength": 20}],
             "balls": [{"pos": [0, 0], "mass": 0.01}, {"pos": [1, 0.2], "mass": 0.01}, {"pos": [-2, 2]},
                       {"pos": [1, -1]}],
             "springs": [{"a": 0, "b": 1, "stiffness": 1e7, "damping": 0.5, "rest": 0.5},
                         {"a": 2, "b": [-2, 1], "stiffness": 1e7, "damping": 0, "rest": 0.5}]}
    worlds = both(level, 90)               # every stepper has overflowed by tick 56
    assert worlds[0].blown_up() and not np.isfinite(worlds[0].pos).all()
    assert_same_bits(worlds)
