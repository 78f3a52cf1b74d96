"""The world step: containment at any speed, piles at rest, friction, bounces, springs, determinism."""
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from scenes import build_world
from game.physics import collide
from game.physics.integrators import ORDER
from game.physics.world import TICK, World

# Every test here runs on both contact solvers (see the solver fixture in conftest.py).
# Every test here runs on both executions: the ``execution`` fixture (conftest.py).


def box(width, height, radius=0.0, **extra):
    """A closed box of four capsules whose inner faces lie on [0, width] x [0, height]."""
    r = radius
    corners = [(-r, -r), (width + r, -r), (width + r, height + r), (-r, height + r)]
    segments = [{"a": list(corners[k]), "b": list(corners[(k + 1) % 4]), "radius": r} for k in range(4)]
    return dict({"segments": segments, "bounds": [0, 0, width, height]}, **extra)


def run(world, ticks):
    for _ in range(ticks):
        world.step(TICK)
        assert np.isfinite(world.pos).all() and np.isfinite(world.vel).all()


@pytest.mark.parametrize("integrator", ORDER)
def test_hundred_fast_balls_never_leave_a_box_of_thin_walls(integrator, execution):
    rng = np.random.default_rng(7)
    w = build_world(box(10, 10, integrator=integrator, material={"restitution": 0.9, "friction": 0.1}), execution=execution)
    for _ in range(100):
        angle = rng.uniform(0, 2 * np.pi)
        speed = rng.uniform(50, 400)
        w.add_ball(rng.uniform(0.5, 9.5, 2), speed * np.array([np.cos(angle), np.sin(angle)]), radius=0.05)
    for _ in range(240):
        w.step(TICK)
        assert w.escaped() == 0
        assert np.isfinite(w.pos).all()


def test_a_push_never_carries_a_small_ball_through_a_thin_wall(execution):
    """A heavy ball deep under a light one just below a thin ceiling (as a fast ball leaves it
    after passing through it): the push that parts them must stop at the ceiling, though the
    light ball was too far from it, and too slow, for the ceiling to be among its contacts.
    The ceiling's contact is soft (Box2D's soft step): it may be overlapped a little, as a
    pile's contacts are (at most 1 % of the radius), never crossed."""
    w = build_world(box(10, 10, gravity=[0, 0], material={"restitution": 0.0, "friction": 0.1}), execution=execution)
    light = w.add_ball((5.0, 9.93), radius=0.03)               # 4 cm below the ceiling's reach
    # heavy and fast: after the first sub-step's move it lies 9 cm deep under the light one
    w.add_ball((4.999 + 40.0 * TICK / w.substeps, 9.923), (-40.0, 0.0), radius=0.07)
    for _ in range(30):
        w.step(TICK)
        assert w.escaped() == 0
        assert w.pos[light, 1] <= 10.0 - 0.03 + 0.01 * 0.03


def test_a_ball_at_ten_kilometres_per_second_stops_at_a_thin_wall(execution):
    w = build_world(box(10, 10, gravity=[0, 0], material={"restitution": 0.0, "friction": 0.0}), execution=execution)
    w.add_ball((5, 5), (10_000, 0), radius=0.05)
    w.step(TICK)
    assert 9.9 < w.pos[0, 0] <= 10.0 - 0.05 + 1e-9     # stopped touching the right wall
    assert w.vel[0, 0] <= 1e-9                            # and no longer moving into it


# One execution: the same-bits tests (test_laws.py) hold numpy to the compiled one bit for bit,
# so a second minute of numpy here would prove nothing more.
@pytest.mark.parametrize("execution", ["compiled"], indirect=True)
def test_pile_of_hundreds_comes_to_rest_with_shallow_overlaps(execution):
    width = 12.0
    w = build_world(box(width, 30, material={"restitution": 0.3, "friction": 0.5}), execution=execution)
    rng = np.random.default_rng(2)
    radius = 0.25
    for y in np.arange(1, 12, 0.6):
        for x in np.arange(0.5, width - 0.4, 0.6):
            w.add_ball((x + rng.uniform(-0.05, 0.05), y), (0, 0), radius=radius)
    assert w.count >= 300
    run(w, 30 * 60)
    assert w.energy()["kinetic"] / w.count < 1e-3
    assert w.max_overlap() < 0.05 * radius
    assert w.escaped() == 0


@pytest.mark.parametrize("rolling, rests", [(0.6, True), (0.3, False), (0.0, False)])
def test_ball_on_a_slope_rests_only_where_rolling_resistance_holds_it(rolling, rests, execution):
    """A ball with ample friction does not slide on a 25 degree slope, it rolls. Only rolling
    resistance can hold it: the torque of static friction, m g sin(theta) r, against at most
    rolling * r * m g cos(theta), so it rests where rolling >= tan(theta) = 0.47."""
    angle = math.radians(25)
    direction = np.array([math.cos(angle), math.sin(angle)])
    normal = np.array([-math.sin(angle), math.cos(angle)])
    w = build_world({"segments": [{"a": [0, 0], "b": list(20 * direction)}],
                          "material": {"friction": 0.8, "restitution": 0.0, "rolling": rolling},
                          "bounds": [-5, -20, 25, 20]}, execution=execution)
    start = 10 * direction + 0.5 * normal
    w.add_ball(start, radius=0.5)
    run(w, 180)
    travelled = np.linalg.norm(w.pos[0] - start)
    if rests:
        assert travelled < 1e-3
        assert np.linalg.norm(w.vel[0]) < 1e-3 and abs(w.spin[0]) < 1e-3
    else:
        assert travelled > 1.0


def test_a_dropped_ball_bounces_to_restitution_squared_of_its_height(execution):
    e = 0.8
    w = build_world({"segments": [{"a": [-5, 0], "b": [5, 0]}],
                          "material": {"restitution": e, "friction": 0.0}, "bounds": [-5, 0, 5, 20]}, execution=execution)
    w.add_ball((0, 10.5), radius=0.5)
    peak, falling_seen = 0.0, False
    for _ in range(240):
        w.step(TICK)
        if w.vel[0, 1] < -1:
            falling_seen = True
        if falling_seen and w.pos[0, 1] < 1:
            break
    for _ in range(240):
        w.step(TICK)
        peak = max(peak, w.pos[0, 1] - 0.5)
    assert peak == pytest.approx(10 * e * e, rel=0.03)


def test_free_fall_with_rk4_is_exact_and_conserves_energy(execution):
    w = build_world({"segments": [{"a": [-100, -1000], "b": [100, -1000]}], "bounds": [-100, -1000, 100, 100]}, execution=execution)
    w.add_ball((0, 0), (3, 4), radius=0.1)
    start = w.energy()["total"]
    run(w, 60)
    assert w.pos[0] == pytest.approx([3.0, 4.0 - 9.81 / 2], abs=1e-9)
    assert w.energy()["total"] == pytest.approx(start, abs=1e-9)


def spring_pair(integrator, execution="compiled"):
    w = build_world({"segments": [{"a": [-50, -50], "b": [50, -50]}], "gravity": [0, 0],
                          "integrator": integrator, "bounds": [-50, -50, 50, 50]}, execution=execution)
    a = w.add_ball((-1.5, 0), radius=0.1, mass=0.2)
    b = w.add_ball((1.5, 0), radius=0.1, mass=0.2)
    w.add_spring(a, b, stiffness=700, damping=0.0, rest=2.0)
    return w


def test_stiff_spring_euler_gains_energy_rk4_holds_it(execution):
    """omega h = sqrt(2 k / m) / 240 = 0.35: the difference the springs level shows."""
    totals = {}
    for name in ("euler", "rk4"):
        w = spring_pair(name, execution=execution)
        start = w.energy()["total"]
        run(w, 60)
        totals[name] = w.energy()["total"] / start
    assert totals["euler"] > 10
    assert abs(totals["rk4"] - 1) < 0.05


def test_integrator_switch_between_steps_and_unknown_name_refused(execution):
    w = spring_pair("rk4", execution=execution)
    run(w, 10)
    w.integrator = "euler"
    run(w, 10)
    assert w.integrator == "euler"
    with pytest.raises(ValueError):
        w.integrator = "leapfrog"


def test_anchor_spring_pendulum_period(execution):
    """A ball on a stiff spring to an anchor swings with the period of a pendulum, 2 pi sqrt(L / g)."""
    w = build_world({"segments": [{"a": [-50, -50], "b": [50, -50]}], "bounds": [-50, -50, 50, 50]}, execution=execution)
    length = 2.0
    k = w.add_ball((length * math.sin(0.1), -length * math.cos(0.1)), radius=0.05, mass=1.0)
    w.add_spring(k, (0.0, 0.0), stiffness=1e4, damping=0.0, rest=length)
    crossings = []
    previous = w.pos[0, 0]
    for tick in range(600):
        w.step(TICK)
        if previous > 0 >= w.pos[0, 0]:
            crossings.append(tick)
        previous = w.pos[0, 0]
    period = (crossings[1] - crossings[0]) * TICK
    assert period == pytest.approx(2 * math.pi * math.sqrt(length / 9.81), rel=0.03)


def test_same_run_twice_gives_same_state_hash(execution):
    def play():
        w = build_world(box(8, 8, spawners=[{"pos": [4, 7], "every": 0.3, "max": 60, "radius": 0.2, "jitter": 0.3}]), execution=execution)
        run(w, 300)
        return w.state_hash(), w.count

    first, second = play(), play()
    assert first == second and first[1] >= 10


@pytest.mark.parametrize("polygon, start, end", [
    ([[0, 0], [4, 0], [4, 2], [0, 2]], (3.7, 1.0), (4.25, 1.0)),          # near its nearest edge x = 4
    # deep inside a big one: 3 m from the nearest edge (y = 9), further than a grid cell
    ([[-9, -9], [9, -9], [9, 9], [-9, 9]], (1.0, 6.0), (1.0, 9.25)),
])
def test_ball_spawned_inside_a_polygon_leaves_through_the_nearest_edge(polygon, start, end, execution):
    """Pushed out softly, at most max_push_speed, and left touching the edge at rest."""
    w = build_world({"segments": [{"a": [-10, -10], "b": [10, -10]}], "gravity": [0, 0],
                     "polygons": [{"points": polygon}], "bounds": [-10, -10, 10, 10]}, execution=execution)
    w.add_ball(start, radius=0.25)
    seconds = np.linalg.norm(np.subtract(end, start)) / w.solver.options.max_push_speed + 1.0
    run(w, int(seconds * 60))
    assert np.allclose(w.pos[0], end, atol=1e-6)
    assert np.allclose(w.vel[0], 0.0, atol=1e-9)


def test_remove_balls_takes_their_springs_and_keeps_the_rest_attached(execution):
    w = spring_pair("rk4", execution=execution)
    c = w.add_ball((0, 5), radius=0.1)
    w.add_spring(c, (0, 6), stiffness=10)
    w.remove_balls([0])
    assert w.count == 2 and len(w.springs) == 1
    assert w.springs.a[0] == 1 and w.springs.b[0] == -1
    assert list(w.ids) == [1, 2]


def test_kill_zone_removes_and_goal_counts(execution):
    level = box(10, 10, zones=[{"kind": "kill", "rect": [[0, 0], [5, 2]]},
                               {"kind": "goal", "rect": [[5, 0], [10, 2]], "count": 2}])
    w = build_world(level, execution=execution)
    w.add_ball((2, 1), radius=0.2)
    w.add_ball((7, 1), radius=0.2)
    w.add_ball((8, 1), radius=0.2)
    w.step(TICK)
    assert w.count == 2
    assert w.goal_progress() == (2, 2)


def test_impacts_report_speed_and_point(execution):
    w = build_world({"segments": [{"a": [-5, 0], "b": [5, 0]}], "bounds": [-5, 0, 5, 10]}, execution=execution)
    w.add_ball((0, 0.6), (0, -5), radius=0.5)
    speeds = []
    for _ in range(10):
        w.step(TICK)
        speeds.extend(w.impact_speeds)
        if len(w.impact_points):
            assert abs(w.impact_points[0, 1]) < 0.05
    assert speeds and max(speeds) == pytest.approx(5.0, rel=0.05)


def test_to_level_snapshot_rebuilds_the_same_world(execution):
    w = spring_pair("rk4", execution=execution)
    run(w, 30)
    again = build_world(w.to_level(), execution=execution)
    assert np.array_equal(again.pos, w.pos) and np.array_equal(again.vel, w.vel)
    assert np.allclose(again.inv_mass, w.inv_mass) and len(again.springs) == 1
    assert again.springs.rest[0] == w.springs.rest[0]


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), corners=st.integers(3, 12), size=st.floats(0.05, 6.0),
       cell=st.floats(0.2, 1.5))
def test_every_cell_under_a_polygon_lists_it(execution, seed, corners, size, cell):
    """A ball centred anywhere inside a polygon has one of its edges among its candidates."""
    from game.physics import geometry
    rng = np.random.default_rng(seed)
    angle = np.sort(rng.uniform(0, 2 * np.pi, corners))
    polygon = geometry.ensure_ccw(rng.uniform(-3, 3, 2) + size * np.stack((np.cos(angle), np.sin(angle)), 1))
    grid = collide.Grid(cell, (-10, -10), (10, 10))
    listed = set(collide._cells_under_convex_polygon(grid, polygon).tolist())
    points = np.vstack((rng.uniform(polygon.min(axis=0), polygon.max(axis=0), (4000, 2)), polygon))
    inside = np.asarray(geometry.point_in_convex_polygon(points, polygon), bool)
    assert set(grid.index(points[inside]).tolist()) <= listed
    # and no cell far from it: every listed cell's square comes within a cell of the polygon
    ix, iy = np.divmod(np.array(sorted(listed)), grid.ny)
    centres = grid.origin + (np.stack((ix, iy), axis=1) + 0.5) * grid.cell
    lo, hi = polygon.min(axis=0) - cell, polygon.max(axis=0) + cell
    assert np.all((centres >= lo) & (centres <= hi))


def test_broad_phase_finds_every_touching_pair(execution):
    rng = np.random.default_rng(0)
    pos = rng.uniform(0, 10, (600, 2))
    grid = collide.Grid(0.5, np.array([-1.0, -1.0]), np.array([11.0, 11.0]))
    i, j = collide.ball_pairs(grid, pos)
    found = set(zip(np.minimum(i, j).tolist(), np.maximum(i, j).tolist()))
    assert len(found) == len(i)                               # each pair once
    d = np.linalg.norm(pos[:, None] - pos[None], axis=2)
    bi, bj = np.nonzero(np.triu(d < 0.5, 1))
    assert set(zip(bi.tolist(), bj.tolist())) <= found


coordinate = st.floats(-6, 6, allow_nan=False)
point = st.tuples(coordinate, coordinate)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(segments=st.lists(st.tuples(point, point, st.sampled_from([0.0, 0.0, 0.2])), min_size=1, max_size=6),
       balls=st.lists(st.tuples(point, point, st.floats(0.05, 0.6)), min_size=1, max_size=12),
       integrator=st.sampled_from(ORDER))
@example(
    segments=[((0.0, 0.0), (0.0, 0.0), 0.0),
     ((0.0, 0.0), (0.0, 0.0), 0.0),
     ((0.0, 0.0), (0.0, 0.0), 0.0),
     ((0.0, 0.0), (0.0, 0.0), 0.0),
     ((-4.25, 0.0), (0.0, 0.0), 0.0),
     ((5.609375, -0.6459793177799131), (0.078125, -5.033446584577096), 0.0)],
    balls=[((0.0, 0.0), (0.0, 0.0), 0.5),
     ((0.0, 0.0), (0.0, 0.0), 0.5),
     ((0.28125, -3.75), (0.25, -4.25), 0.109375),
     ((-5.0, 0.0), (1.328125, 0.0), 0.125),
     ((0.0, 0.0), (0.0, 0.0), 0.5),
     ((0.0, 0.0), (0.0, 0.0), 0.5),
     ((0.0, 0.0), (0.0, 0.0), 0.5),
     ((0.0, 0.0), (0.0, 0.0), 0.5),
     ((0.0, 0.0), (0.0, 0.0), 0.5),
     ((1.84375, 5.125), (-3.2734375, 0.0), 0.3125),
     ((-2.37890625, 2.15625), (-3.59375, 5.13671875), 0.59765625)],
    integrator='euler',
).via('discovered failure')
def test_no_step_ever_produces_a_non_finite_number(execution, segments, balls, integrator):
    """Degenerate input too: zero-length segments (round pegs: a thin one is no valid level),
    balls exactly on segments, coincident balls."""
    level = box(14, 14, integrator=integrator)
    for a, b, r in segments:
        a, b = [a[0] + 7, a[1] + 7], [b[0] + 7, b[1] + 7]
        level["segments"].append({"a": a, "b": b, "radius": r if a != b else 0.2})
    w = build_world(level, execution=execution)
    for (x, y), (vx, vy), r in balls:
        w.add_ball((x + 7, y + 7), (vx * 30, vy * 30), radius=r)
    w.add_ball(level["segments"][-1]["a"], radius=0.3)         # exactly on a segment's end
    w.add_ball(w.pos[0], radius=0.3)                           # exactly on another ball
    with np.errstate(divide="raise", over="raise", invalid="raise"):   # underflow is harmless
        run(w, 20)
    assert w.escaped() == 0


@pytest.mark.parametrize("integrator", ORDER)
@pytest.mark.parametrize("friction", [0.0, 0.1, 0.3])
def test_sliding_down_a_slope_follows_coulomb(integrator, friction, execution):
    """Along a 26.6 degree slope, for every integrator: a disc slides at
    a = g (sin theta - mu cos theta) while mu < tan(theta) / 3 = 0.167, and rolls at
    a = (2/3) g sin(theta) with more friction."""
    angle = math.atan(0.5)
    direction = np.array([math.cos(angle), math.sin(angle)])
    normal = np.array([-math.sin(angle), math.cos(angle)])
    w = build_world({"segments": [{"a": [0, 0], "b": list(40 * direction)}], "integrator": integrator,
                          "material": {"friction": friction, "restitution": 0.0}, "bounds": [-50, -50, 50, 50]}, execution=execution)
    start = 30 * direction + 0.25 * normal
    w.add_ball(start, radius=0.25)
    run(w, 60)
    if friction < math.tan(angle) / 3:
        expected = 9.81 * (math.sin(angle) - friction * math.cos(angle))
    else:
        expected = 2.0 / 3.0 * 9.81 * math.sin(angle)
    assert np.linalg.norm(w.vel[0]) == pytest.approx(expected, rel=0.01)          # v = a t, t = 1 s
    assert np.dot(start - w.pos[0], direction) == pytest.approx(expected / 2, rel=0.03)  # s = a t^2 / 2


def test_spawner_waits_while_its_spot_is_taken(execution):
    w = build_world({"segments": [{"a": [-5, 0], "b": [5, 0]}], "gravity": [0, 0], "bounds": [-5, 0, 5, 10],
                          "spawners": [{"pos": [0, 5], "every": 0.1, "max": 5, "radius": 0.3}]}, execution=execution)
    for _ in range(60):
        w.step(TICK)
    assert w.count == 1                          # nothing moved the first ball away: no pile-up
    w.remove_balls([0])
    w.step(TICK)
    assert w.count == 1                          # one ball when the spot frees, not a burst
