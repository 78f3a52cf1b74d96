"""Dynamic bodies against the laws: mass properties, the incline, tipping, the physical
pendulum, the lever, momentum, restitution, stacks, dominoes, tunnelling; the two executions
to the bit, and a snapshot that continues to the bit."""
import math

import numpy as np
import pymunk
import pytest
from hypothesis import given, settings, strategies as st

from body_scenes import box, box_on_incline, floor_level, incline_level, pyramid
from game.level import complete
from game.physics.shapes import body_frame, mass_properties
from game.physics.world import World

G = 9.81
TICK = 1 / 60


def run(level, seconds, execution="compiled", each=None):
    w = World.from_level(level, execution=execution)
    for _ in range(round(seconds / TICK)):
        w.step(TICK)
        if each is not None:
            each(w)
    return w


# ------------------------------------------------------------------ mass properties
def test_box_mass_properties_match_the_closed_form_and_pymunk():
    m, c, i = mass_properties([[0, 0], [2, 0], [2, 1], [0, 1]], 0.0, 3.0)
    assert m == pytest.approx(6.0) and np.allclose(c, [1.0, 0.5])
    assert i == pytest.approx(m * (4 + 1) / 12, rel=1e-12)
    assert i == pytest.approx(pymunk.moment_for_box(m, (2, 1)), rel=1e-12)


@given(st.lists(st.tuples(st.floats(-3, 3), st.floats(-3, 3)), min_size=3, max_size=12, unique=True))
@settings(max_examples=40, deadline=None)
def test_polygon_mass_properties_match_pymunk(points):
    hull = pymunk.Poly(None, points).get_vertices()       # pymunk's convex hull, counter-clockwise
    hull = [(v.x, v.y) for v in hull]
    m, c, i = mass_properties(hull, 0.0, 2.0)
    if m < 1e-3:
        return
    assert m == pytest.approx(2.0 * pymunk.area_for_poly(hull), rel=1e-9)
    assert np.allclose(c, tuple(pymunk.Poly(None, hull).center_of_gravity), atol=1e-9)
    assert i == pytest.approx(pymunk.moment_for_poly(m, hull, (-c[0], -c[1])), rel=1e-9)


def test_capsule_is_a_rectangle_and_two_half_discs():
    length, r = 1.5, 0.25
    m, c, i = mass_properties([[0, 0], [length, 0]], r, 1.0)
    rect, disc = length * 2 * r, math.pi * r * r
    half_offset = 4 * r / (3 * math.pi)              # a half disc's centroid from its flat side
    half = disc / 2 * r * r / 2 - disc / 2 * half_offset ** 2 + disc / 2 * (length / 2 + half_offset) ** 2
    assert m == pytest.approx(rect + disc, rel=1e-12)
    assert np.allclose(c, [length / 2, 0])
    assert i == pytest.approx(rect * (length ** 2 + 4 * r * r) / 12 + 2 * half, rel=1e-12)
    # A thin capsule tends to pymunk's segment (a rod: m L^2 / 12), the half discs' share vanishing.
    m, _, i = mass_properties([[-length / 2, 0], [length / 2, 0]], 1e-4, 1.0)
    assert i / m == pytest.approx(pymunk.moment_for_segment(1.0, (-length / 2, 0), (length / 2, 0), 0), rel=1e-3)


def test_rounded_box_against_a_fine_grid():
    points, r = [[0, 0], [2, 0], [2, 1], [0, 1]], 0.3
    m, c, i = mass_properties(points, r, 1.0)
    g = np.mgrid[-0.5:2.5:1500j, -0.5:1.5:1000j].reshape(2, -1).T
    dx = np.maximum(np.maximum(-g[:, 0], g[:, 0] - 2), 0)
    dy = np.maximum(np.maximum(-g[:, 1], g[:, 1] - 1), 0)
    inside = np.hypot(dx, dy) <= r
    cell = (3 / 1499) * (2 / 999)
    assert m == pytest.approx(inside.sum() * cell, rel=2e-3)
    assert i == pytest.approx(((g[inside] - c) ** 2).sum() * cell, rel=3e-3)


def test_mass_given_instead_of_density_scales_the_inertia():
    _, _, _, _, m, i = body_frame({"shape": "box", "center": [0, 0], "size": [2, 1], "mass": 5.0})
    assert m == 5.0 and i == pytest.approx(5.0 * 5 / 12)


# ------------------------------------------------------------------ the incline
@pytest.mark.parametrize("theta,mu", [(0.5, 0.2), (0.6, 0.3), (0.4, 0.6), (0.3, 0.35)])
def test_box_on_an_incline_stays_or_slides_at_g_sin_minus_mu_cos(theta, mu):
    w = run(incline_level(theta, mu, [box_on_incline(theta, 0.0, 1.0, 0.5, mu)]), 0.5)
    axis = np.array([math.cos(theta), math.sin(theta)])
    x0, v0 = w.bodies.pos[0] @ axis, w.bodies.vel[0] @ axis
    for _ in range(60):
        w.step(TICK)
    a = 2 * (w.bodies.pos[0] @ axis - x0 - v0) / 1.0
    if mu > math.tan(theta):
        assert abs(a) < 1e-3 and abs(v0) < 1e-3
    else:
        expected = -G * (math.sin(theta) - mu * math.cos(theta))
        assert a == pytest.approx(expected, rel=0.01)
    assert abs(w.bodies.angle[0] - theta) < 1e-3             # it slides flat, it does not tip


@pytest.mark.parametrize("w_, h_", [(0.5, 1.5), (0.4, 1.0)])
def test_a_tall_box_tips_when_tan_theta_exceeds_w_over_h(w_, h_):
    critical = math.atan(w_ / h_)
    for theta, tips in ((critical - 0.03, False), (critical + 0.03, True)):
        w = run(incline_level(theta, 1.5, [box_on_incline(theta, 0.0, w_, h_, 1.5)]), 3.0)
        turned = abs(w.bodies.angle[0] - theta)
        assert (turned > 1.0) == tips, (theta, critical, turned)


# ------------------------------------------------------------------ pendulum and lever
def plank_pendulum(amplitude, integrator="rk4", length=2.0, thickness=0.1):
    angle = -math.pi / 2 + amplitude
    centre = [length / 2 * math.cos(angle), 10 + length / 2 * math.sin(angle)]
    return floor_level([box(*centre, length, thickness, angle)], walls=False, integrator=integrator,
                       joints=[{"kind": "rod", "a": {"body": 0}, "b": [0, 10], "offset_a": [-length / 2, 0],
                                "length": 0}])


def elliptic_k(m):
    """K(m) by the arithmetic-geometric mean."""
    a, b = 1.0, math.sqrt(1 - m)
    while abs(a - b) > 1e-15:
        a, b = (a + b) / 2, math.sqrt(a * b)
    return math.pi / (2 * a)


def swing_period(w, seconds):
    angles, times = [], []
    for _ in range(round(seconds / TICK)):
        w.step(TICK)
        angles.append(w.bodies.angle[0] + math.pi / 2)
        times.append(w.time)
    a, t = np.array(angles), np.array(times)
    k = np.flatnonzero((a[:-1] > 0) & (a[1:] <= 0))
    crossings = t[k] + TICK * a[k] / (a[k] - a[k + 1])
    return (crossings[-1] - crossings[0]) / (len(crossings) - 1)


@pytest.mark.parametrize("degrees", [5, 60])
def test_a_plank_on_a_pin_swings_with_the_physical_pendulums_period(degrees):
    length, thickness = 2.0, 0.1
    w = World.from_level(plank_pendulum(math.radians(degrees), length=length, thickness=thickness))
    # I about the pin = m (L^2 + t^2) / 12 + m (L / 2)^2; the centre of mass L / 2 below it.
    small = 2 * math.pi * math.sqrt(((length ** 2 + thickness ** 2) / 12 + length ** 2 / 4) / (G * length / 2))
    exact = small * 2 / math.pi * elliptic_k(math.sin(math.radians(degrees) / 2) ** 2)
    assert swing_period(w, 12) == pytest.approx(exact, rel=0.005)


def test_rk4_keeps_the_plank_pendulums_energy_and_euler_gains():
    ends = {}
    for integrator in ("rk4", "euler"):
        w = World.from_level(plank_pendulum(0.5, integrator))
        e0 = w.energy()["total"]
        for _ in range(600):
            w.step(TICK)
        ends[integrator] = w.energy()["total"] / e0 - 1
    assert abs(ends["rk4"]) < 1e-3
    assert ends["euler"] > 0 and ends["euler"] > ends["rk4"], ends


def seesaw(m1, d1, m2, d2, plank_mass=2.0, length=4.0):
    """A plank pinned at its middle at (0, 5), a ball of m1 pinned at d1 left of the middle and
    one of m2 at d2 right of it (balls held at their centres: they turn freely)."""
    r = 0.1
    return complete({"segments": [{"a": [-9, 0], "b": [9, 0]}], "gravity": [0, -G], "integrator": "rk4",
                     "bounds": [-10, -1, 10, 12],
                     "bodies": [{"shape": "box", "center": [0, 5], "size": [length, 0.1], "mass": plank_mass}],
                     "balls": [{"pos": [-d1, 5], "radius": r, "mass": m1}, {"pos": [d2, 5], "radius": r, "mass": m2}],
                     "joints": [{"kind": "rod", "a": {"body": 0}, "b": [0, 5], "length": 0},
                                {"kind": "rod", "a": 0, "b": {"body": 0}, "offset_b": [-d1, 0], "length": 0},
                                {"kind": "rod", "a": 1, "b": {"body": 0}, "offset_b": [d2, 0], "length": 0}]})


def test_seesaw_balances_by_the_lever_law_and_turns_at_the_closed_forms_rate_off_it():
    w = run(seesaw(3.0, 1.0, 1.5, 2.0), 1.0)
    assert abs(w.bodies.angle[0]) < 1e-3                     # 3 x 1 = 1.5 x 2
    m1, d1, m2, d2, plank = 2.0, 1.5, 1.0, 1.0, 2.0
    w = World.from_level(seesaw(m1, d1, m2, d2, plank))
    inertia = plank * (16 + 0.01) / 12 + m1 * d1 ** 2 + m2 * d2 ** 2
    alpha = (m1 * d1 - m2 * d2) * G / inertia               # counter-clockwise: the left end goes down
    ticks = 6
    for _ in range(ticks):
        w.step(TICK)
    t = ticks * TICK
    assert w.bodies.spin[0] == pytest.approx(alpha * t, rel=0.03)


# ------------------------------------------------------------------ momentum and restitution
def free_pair(spin=0.0):
    return complete({"segments": [{"a": [-50, -50], "b": [50, -50]}], "gravity": [0, 0], "bounds": [-60, -60, 60, 60],
                     "material": {"restitution": 0.5, "friction": 0.4},
                     "bodies": [box(-3, 0.2, 1.0, 0.6, 0.3, vel=[6, 0], spin=2.0 + spin, density=2.0),
                                {"shape": "polygon", "points": [[2, -1], [4, -0.5], [3, 1.2]], "vel": [-3, 0.5], "spin": -1.0},
                                {"shape": "capsule", "a": [0, 3], "b": [1.5, 3.4], "radius": 0.2, "vel": [0, -4]}]})


def momenta(w):
    p, lz = w.bodies.momentum()
    return p, lz


def test_bodies_colliding_in_free_flight_keep_linear_and_angular_momentum(execution):
    w = World.from_level(free_pair(), execution=execution)
    p0, l0 = momenta(w)
    touched = 0
    for _ in range(120):
        w.step(TICK)
        touched += len(w.bodies.manifold_points) > 0
    p1, l1 = momenta(w)
    assert touched > 0
    assert np.allclose(p1, p0, atol=1e-9 * np.abs(p0).max())
    assert l1 == pytest.approx(l0, rel=1e-9, abs=1e-9)


def test_a_spinning_box_in_free_flight_keeps_its_spin():
    level = complete({"segments": [{"a": [-50, -50], "b": [50, -50]}], "gravity": [0, 0], "bounds": [-60, -60, 60, 60],
                      "bodies": [box(0, 0, 2.0, 0.5, 0.0, spin=7.0, vel=[1, 2])]})
    w = run(level, 2.0)
    assert w.bodies.spin[0] == 7.0 and w.bodies.angle[0] == pytest.approx(14.0)
    assert np.allclose(w.bodies.pos[0], [2, 4])


@pytest.mark.parametrize("e", [0.5, 0.8])
def test_a_box_dropped_flat_rebounds_to_e_squared_h(e):
    h = 3.0
    level = floor_level([box(0, h + 0.5, 1.0, 1.0, restitution=e)], restitution=e, friction=0.5)
    peaks, last, rising = [], None, False
    w = World.from_level(level)
    for _ in range(240):
        w.step(TICK)
        y = w.bodies.pos[0, 1] - 0.5
        if last is not None and rising and y < last:
            peaks.append(last)
        rising = last is not None and y > last
        last = y
    assert peaks and peaks[0] == pytest.approx(e * e * h, rel=0.05), peaks
    assert abs(w.bodies.angle[0]) < 1e-3                      # flat on flat: it hardly turns


def test_a_box_dropped_on_its_corner_starts_to_spin():
    w = World.from_level(floor_level([box(0, 3, 1.0, 1.0, 0.4)]))
    spun = 0.0
    for _ in range(90):
        w.step(TICK)
        spun = max(spun, abs(w.bodies.spin[0]))
    assert spun > 1.0
    assert abs(math.remainder(w.bodies.angle[0], math.pi / 2)) < 0.01     # it comes to rest on a face


# ------------------------------------------------------------------ stacks and dominoes
def test_a_column_of_ten_boxes_stands_and_sleeps():
    w = run(floor_level([box(0, 0.5 + k, 1.0, 1.0) for k in range(10)]), 1.0)
    top = w.bodies.pos[-1].copy()
    for _ in range(round(29 / TICK)):
        w.step(TICK)
    assert np.abs(w.bodies.pos[-1] - top).max() < 0.01
    assert np.abs(w.bodies.pos[:, 0]).max() < 0.01
    assert w.bodies.asleep.all()


def test_a_pyramid_of_20_rows_stands_and_sleeps():
    w = run(floor_level(pyramid(20)), 1.0)
    assert len(w.bodies) == 210
    top = w.bodies.pos[-1].copy()
    for _ in range(round(4 / TICK)):          # asleep within 2 s; a sleeping pile stays as it is
        w.step(TICK)
    assert w.bodies.asleep.all()
    assert np.abs(w.bodies.pos[-1] - top).max() < 0.01
    assert abs(w.bodies.pos[-1, 1] - 19.5) < 0.05          # 20 layers pressed by under 2.5 mm each


def test_thirty_dominoes_topple_in_order():
    gap, h, t = 0.6, 1.0, 0.15
    dominoes = [box(k * gap, h / 2, t, h) for k in range(30)]
    dominoes[0] = box(0, h / 2, t, h, spin=-2.0)
    w = World.from_level(floor_level(dominoes, width=60, friction=0.5))
    fell = np.full(30, np.inf)
    for _ in range(round(15 / TICK)):
        w.step(TICK)
        down = (np.abs(w.bodies.angle) > 0.3) & ~np.isfinite(fell)
        fell[down] = w.time
    assert np.isfinite(fell).all(), fell
    assert (np.diff(fell) > 0).all(), fell


# ------------------------------------------------------------------ nothing tunnels
def test_a_plank_at_50_m_s_stops_at_a_2_cm_wall():
    level = complete({"segments": [{"a": [-20, 0], "b": [20, 0]}, {"a": [10, 0], "b": [10, 10], "radius": 0.01}],
                      "gravity": [0, -G], "bounds": [-21, -1, 21, 20],
                      "bodies": [{"shape": "capsule", "a": [0, 2], "b": [1.5, 2], "radius": 0.05, "vel": [50, 0]}]})
    w = run(level, 1.0, each=lambda w: None)
    assert w.bodies.pos[0, 0] < 10


def test_a_box_dropped_from_100_m_lands_on_a_thin_floor():
    level = complete({"segments": [{"a": [-20, 0], "b": [20, 0]}], "gravity": [0, -G], "bounds": [-21, -1, 21, 120],
                      "bodies": [box(0, 100, 0.5, 0.5, 0.7)]})
    lowest = []
    w = run(level, 6.0, each=lambda w: lowest.append(w.bodies.corners()[0, :4, 1].min()))
    assert min(lowest) > -0.05 and w.bodies.pos[0, 1] > 0


def test_a_thin_plank_spinning_at_60_rad_s_by_a_wall_never_passes_it():
    level = complete({"segments": [{"a": [-20, 0], "b": [20, 0]}, {"a": [2, 0], "b": [2, 20]}], "gravity": [0, 0],
                      "bounds": [-21, -1, 21, 21],
                      "bodies": [{"shape": "capsule", "a": [-0.5, 5], "b": [1.5, 5], "radius": 0.02, "spin": 60.0,
                                  "vel": [2, 0]}]})
    w = World.from_level(level)
    for _ in range(120):
        w.step(TICK)
        assert w.bodies.corners()[0, :2, 0].max() < 2.0 + 1e-6
        assert w.bodies.pos[0, 0] < 2


# ------------------------------------------------------------------ executions and snapshots
@st.composite
def bodies_and_balls(draw):
    bodies = []
    for k in range(draw(st.integers(1, 6))):
        x, y = draw(st.floats(-8, 8)), draw(st.floats(2, 15))
        kind = draw(st.sampled_from(["box", "capsule", "polygon"]))
        if kind == "box":
            bodies.append(box(x, y, draw(st.floats(0.2, 2)), draw(st.floats(0.2, 2)), draw(st.floats(-3, 3)),
                              radius=draw(st.sampled_from([0.0, 0.05]))))
        elif kind == "capsule":
            bodies.append({"shape": "capsule", "a": [x, y], "b": [x + draw(st.floats(0.3, 2)), y + draw(st.floats(-1, 1))],
                           "radius": draw(st.floats(0.05, 0.4))})
        else:
            n = draw(st.integers(3, 8))
            r = draw(st.floats(0.3, 1.2))
            bodies.append({"shape": "polygon", "points": [[x + r * math.cos(2 * math.pi * i / n), y + r * math.sin(2 * math.pi * i / n)]
                                                         for i in range(n)]})
        bodies[-1]["vel"] = [draw(st.floats(-20, 20)), draw(st.floats(-20, 20))]
        bodies[-1]["spin"] = draw(st.floats(-20, 20))
    balls = [{"pos": [draw(st.floats(-8, 8)), draw(st.floats(1, 15))], "radius": draw(st.floats(0.1, 0.5)),
              "vel": [draw(st.floats(-10, 10)), 0]} for _ in range(draw(st.integers(0, 6)))]
    return floor_level(bodies, balls, width=20, restitution=draw(st.sampled_from([0.0, 0.5])))


@given(bodies_and_balls())
@settings(max_examples=8, deadline=None)
def test_random_bodies_and_balls_in_a_box_stay_finite_inside_and_equal_on_both_executions(level):
    """Compiled (each sub-step's balls in one call where there are balls: game.physics.step.tick),
    the compiled kernels sub-step by sub-step, and numpy: the same bits, the same impacts."""
    worlds = [World.from_level(level, execution=e) for e in ("compiled", "compiled", "numpy")]
    worlds[1]._fused = lambda kernels: False
    assert bool(worlds[0]._fused(worlds[0]._kernels)) == (worlds[0].count > 0)
    events = [[] for _ in worlds]
    for _ in range(90):
        for w, seen in zip(worlds, events):
            w.step(TICK)
            seen.append((w.impact_speeds.tolist(), w.bodies.manifold_points.tolist()))
    a, s, b = worlds
    assert a.state_hash() == s.state_hash() == b.state_hash()
    assert events[0] == events[1] == events[2]
    assert np.isfinite(a.bodies.pos).all() and np.isfinite(a.bodies.vel).all()
    x = a.bodies.pos[:, 0]
    assert (np.abs(x) < 10).all() and (a.bodies.pos[:, 1] > -0.01).all()


@given(bodies_and_balls(), st.floats(-4, 4), st.floats(-3, 3), st.sampled_from([0.0, 8.0]))
@settings(max_examples=6, deadline=None)
def test_bodies_and_balls_by_walls_that_move_run_and_kick_give_the_same_bits_three_ways(level, spin, belt, kick):
    """A rotor, a lift, a belt and a bumper among random bodies and balls: the balls in one call a
    sub-step (each at its sub-step's poses), the kernels one by one, numpy: the same bits, the
    walls' work and kicks."""
    level = dict(level, segments=level["segments"] + [
        {"a": [-3, 4], "b": [1, 4], "motion": {"kind": "rotate", "pivot": [-1, 4], "speed": spin}},
        {"a": [3, 1], "b": [6, 1], "motion": {"kind": "slide", "to": [0, 2], "period": 2}},
        {"a": [-9, 0.5], "b": [-4, 0.5], "surface_speed": belt},
        {"a": [5, 6], "b": [5, 6], "radius": 0.4, "kick": kick}])
    level = complete(level)
    worlds = [World.from_level(level, execution=e) for e in ("compiled", "compiled", "numpy")]
    worlds[1]._fused = lambda kernels: False
    assert bool(worlds[0]._fused(worlds[0]._kernels)) == (worlds[0].count > 0)
    for _ in range(60):
        for w in worlds:
            w.step(TICK)
    assert len({(w.state_hash(), w.wall_work, w.kicks) for w in worlds}) == 1


def test_shipped_like_scene_same_bits_on_both_executions():
    level = floor_level(pyramid(4) + [{"shape": "capsule", "a": [-6, 6], "b": [-3, 6.5], "radius": 0.1, "vel": [8, 0]}],
                        balls=[{"pos": [3, 8], "radius": 0.3, "vel": [-5, 0]}],
                        joints=[{"kind": "rod", "a": {"body": 10}, "b": [-4.5, 8], "length": 0}])
    hashes = [run(level, 2.0, e).state_hash() for e in ("compiled", "numpy")]
    assert hashes[0] == hashes[1]


def test_a_snapshot_of_bodies_continues_to_the_bit():
    level = floor_level(pyramid(3) + [{"shape": "capsule", "a": [-6, 6], "b": [-3, 6.5], "radius": 0.1, "vel": [8, 0]},
                                      {"shape": "polygon", "points": [[3, 6], [4, 6], [3.5, 7]], "spin": 3.0}])
    w = World.from_level(level)
    w.solver.options.warm_start = False
    w.solver.options.sleeping = False
    for _ in range(30):
        w.step(TICK)
    again = World.from_level(complete(w.to_level()))
    again.solver.options.warm_start = False
    again.solver.options.sleeping = False
    assert again.state_hash() == w.state_hash()
    for _ in range(60):
        w.step(TICK)
        again.step(TICK)
    assert again.state_hash() == w.state_hash()


# ------------------------------------------------------------------ the player's hands
def test_spawn_find_grab_swing_and_delete_a_body():
    from game.physics import bodies, body_hand
    w = World.from_level(floor_level([]))
    (k,) = bodies.add(w, complete({"segments": [{"a": [0, 0], "b": [1, 0]}],
                                    "bodies": [box(0, 3, 2.0, 0.5)]})["bodies"])
    assert body_hand.at(w, (0.9, 3.2)) == k and body_hand.at(w, (1.2, 3.0)) == -1
    handle = bodies.grab(w, k, (0.9, 3.0))            # by its right end, lifted 3 m in a second
    for i in range(60):
        bodies.move_grab(w, handle, (0.9, 3.0 + 3.0 * (i + 1) / 60))
        w.step(TICK)
    for _ in range(300):
        w.step(TICK)
    # It hangs from the point taken: that point under the cursor, the centre of mass below it.
    c, s = math.cos(w.bodies.angle[0]), math.sin(w.bodies.angle[0])
    held = w.bodies.pos[0] + [c * 0.9, s * 0.9]
    assert np.hypot(*(held - (0.9, 6.0))) < 0.1         # a 5 Hz spring: it sags 1 cm, and still swings
    assert w.bodies.pos[0, 1] < 6.0 - 0.8
    bodies.release(w, handle)
    assert bodies.grabbed(w, handle) == -1 and not bodies.move_grab(w, handle, (0, 0))
    assert "joints" not in w.to_level() or not w.to_level()["joints"]
    bodies.remove(w, [k])
    assert len(w.bodies) == 0
    w.step(TICK)


def test_a_goal_that_counts_bodies_sees_a_box_land_in_it():
    from game.goals import goal_inside
    level = floor_level([box(3, 2, 0.5, 0.5)], zones=[{"kind": "goal", "rect": [[2, 0], [4, 1]], "count": 1,
                                                        "count_bodies": True},
                                                       {"kind": "goal", "rect": [[2, 0], [4, 1]], "count": 1}])
    w = run(level, 1.0)
    inside = goal_inside(w)
    assert len(inside[0]) == 1 and inside[0][0] < 0 and len(inside[1]) == 0
    assert w.goal_progress() == (1, 2)


# ------------------------------------------------------------------ a second engine
def pymunk_incline(theta, mu, seconds):
    """pymunk: the same 1 x 0.5 box on the same incline (friction mu on each shape: pymunk
    multiplies them, so sqrt(mu) each); its distance along the slope after ``seconds``."""
    space = pymunk.Space()
    space.gravity = (0, -G)
    space.iterations = 30
    c, s = math.cos(theta), math.sin(theta)
    ground = pymunk.Segment(space.static_body, (-30 * c, -30 * s), (30 * c, 30 * s), 0)
    ground.friction = math.sqrt(mu)
    body = pymunk.Body(0.5, pymunk.moment_for_box(0.5, (1.0, 0.5)))
    body.position = (-s * 0.25, c * 0.25)
    body.angle = theta
    shape = pymunk.Poly.create_box(body, (1.0, 0.5))
    shape.friction = math.sqrt(mu)
    space.add(ground, body, shape)
    for _ in range(round(seconds * 240)):
        space.step(1 / 240)
    return body.position.x * c + body.position.y * s


@pytest.mark.parametrize("theta,mu", [(0.5, 0.2), (0.6, 0.4)])
def test_the_slide_down_an_incline_agrees_with_pymunk(theta, mu):
    w = run(incline_level(theta, mu, [box_on_incline(theta, 0.0, 1.0, 0.5, mu)]), 2.0)
    ours = float(w.bodies.pos[0] @ np.array([math.cos(theta), math.sin(theta)]))
    theirs = pymunk_incline(theta, mu, 2.0)
    exact = -0.5 * G * (math.sin(theta) - mu * math.cos(theta)) * 4.0
    assert ours == pytest.approx(theirs, rel=0.02)          # within 2 % of pymunk's
    assert ours == pytest.approx(exact, rel=0.01)           # and within 1 % of the closed form


def test_a_small_stack_comes_to_rest_where_pymunk_puts_it():
    """Three boxes dropped 5 cm apart, each offset 0.2 m: both engines stack them where they
    fall (centres within 1 cm of each other's)."""
    xs = [0.0, 0.2, 0.4]
    w = run(floor_level([box(x, 0.55 + 1.05 * k, 1.0, 1.0) for k, x in enumerate(xs)]), 3.0)
    space = pymunk.Space()
    space.gravity = (0, -G)
    space.iterations = 30
    ground = pymunk.Segment(space.static_body, (-20, 0), (20, 0), 0)
    ground.friction = math.sqrt(0.6)
    space.add(ground)
    bodies = []
    for k, x in enumerate(xs):
        body = pymunk.Body(1.0, pymunk.moment_for_box(1.0, (1, 1)))
        body.position = (x, 0.55 + 1.05 * k)
        shape = pymunk.Poly.create_box(body, (1, 1))
        shape.friction = math.sqrt(0.6)
        space.add(body, shape)
        bodies.append(body)
    for _ in range(3 * 240):
        space.step(1 / 240)
    theirs = np.array([tuple(b.position) for b in bodies])
    assert np.abs(w.bodies.pos - theirs).max() < 0.01, (w.bodies.pos, theirs)


def test_a_heavy_box_dropped_fast_on_a_ball_never_pushes_it_through_a_thin_floor(execution):
    level = complete({"segments": [{"a": [-10, 0], "b": [10, 0]}], "gravity": [0, -G], "bounds": [-11, -2, 11, 30],
                      "balls": [{"pos": [0, 0.2], "radius": 0.2}],
                      "bodies": [box(0, 6, 2.0, 2.0, vel=[0, -40], density=50.0)]})
    w = World.from_level(level, execution=execution)
    for _ in range(120):
        w.step(TICK)
        assert w.pos[0, 1] > 0 and w.bodies.pos[0, 1] > 0


def test_a_belt_carries_a_box_at_its_speed_and_a_lift_raises_one(execution):
    belt = complete({"segments": [{"a": [-20, 0], "b": [20, 0], "surface_speed": 2.0, "friction": 0.8}],
                     "bounds": [-21, -1, 21, 20], "bodies": [box(0, 0.5, 1, 1, friction=0.8)]})
    w = run(belt, 2.0, execution)
    assert w.bodies.vel[0, 0] == pytest.approx(2.0, abs=0.01)        # it rides the belt at the belt's speed
    lift = complete({"segments": [{"a": [-20, 0], "b": [20, 0]},
                                  {"a": [-3, 2], "b": [3, 2], "radius": 0.1,
                                   "motion": {"kind": "slide", "to": [0, 2], "period": 4}}],
                     "bounds": [-21, -1, 21, 20], "bodies": [box(0, 2.6, 1, 1)]})
    heights = []
    run(lift, 4.0, execution, each=lambda w: heights.append(w.bodies.pos[0, 1]))
    # It rides the platform (top 2.1 m) up 2 m and back: its bottom on the top, 0.5 m below its centre.
    assert max(heights) == pytest.approx(2.1 + 2 + 0.5, abs=0.02) and min(heights) > 2.6 - 0.02
