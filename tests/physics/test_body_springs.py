"""Springs that hold bodies, and bumpers that kick them: the closed forms of a mass on a
spring (period, equilibrium, damping), the momenta of a free pair, the limit that keeps a
spring stiffer than the sub-step from blowing up, snapshots, and the level format."""
import math

import numpy as np
import pytest

from body_scenes import box, floor_level
from game.level import LevelError, complete, loads
from game.physics.world import World

G = 9.81
TICK = 1 / 60


def hanging(m=2.0, k=80.0, damping=0.0, gravity=G, offset=(0.0, 0.0), integrator="rk4"):
    """A 1 x 1 m box of mass m on a spring from the anchor (0, 3), its rest 3 m: released
    with the spring at rest (the box's centre at y = 0)."""
    return complete({"segments": [{"a": [-50, -50], "b": [50, -50]}], "gravity": [0, -gravity], "integrator": integrator,
                     "bounds": [-60, -60, 60, 60], "bodies": [box(0, 0, 1.0, 1.0, mass=m)],
                     "springs": [{"a": {"body": 0}, "b": [0, 3], "stiffness": k, "damping": damping, "rest": 3.0,
                                  "offset_a": list(offset)}]})


def crossings(t, x):
    """The times x(t) crosses 0 going up (linear between samples)."""
    up = np.flatnonzero((x[:-1] < 0) & (x[1:] >= 0))
    return t[up] - x[up] * (t[up + 1] - t[up]) / (x[up + 1] - x[up])


def test_a_box_on_a_spring_swings_at_sqrt_k_over_m_about_m_g_over_k(execution):
    m, k = 2.0, 80.0
    w = World.from_level(hanging(m, k), execution=execution)
    ts, ys, energy = [], [], []
    for n in range(600):
        w.step(TICK)
        y, vy = w.bodies.pos[0, 1], w.bodies.vel[0, 1]
        ts.append((n + 1) * TICK)
        ys.append(y)
        energy.append(0.5 * m * vy * vy + m * G * y + 0.5 * k * y * y)      # the spring stretched by -y
    ts, ys = np.array(ts), np.array(ys)
    sag = m * G / k
    up = crossings(ts, ys + sag)
    period = np.diff(up).mean()
    assert period == pytest.approx(2 * math.pi * math.sqrt(m / k), rel=2e-3)
    assert ys.mean() == pytest.approx(-sag, rel=1e-2)
    assert ys.min() == pytest.approx(-2 * sag, rel=2e-3) and ys.max() == pytest.approx(0.0, abs=2e-3 * sag)
    # Semi-implicit Euler: the energy wobbles by O(omega h) (omega h = 0.026 at 240 Hz) and
    # does not drift: a second's mean at the end is the first second's.
    energy = np.array(energy)
    scale = 0.5 * k * (2 * sag) ** 2
    assert np.ptp(energy) < 0.03 * scale
    assert energy[-60:].mean() == pytest.approx(energy[:60].mean(), abs=1e-3 * scale)
    assert abs(w.bodies.pos[0, 0]) < 1e-12 and abs(w.bodies.angle[0]) < 1e-12     # pulled at its centre of mass


def test_damping_decays_the_swing_as_exp_minus_c_t_over_2m(execution):
    m, k, c = 2.0, 80.0, 0.8
    w = World.from_level(hanging(m, k, damping=c, gravity=0.0), execution=execution)
    w.bodies.pos[0, 1] = -0.5                # pulled 0.5 m down and let go
    peaks = []
    last = [0.0, 0.0]
    for n in range(600):
        w.step(TICK)
        y = w.bodies.pos[0, 1]
        if last[1] < last[0] and last[0] > y:        # a top of the swing
            peaks.append(((n - 1) * TICK + TICK, last[0]))
        last = [y, last[0]]
    t = np.array([p[0] for p in peaks])
    a = np.array([p[1] for p in peaks])
    rate = -np.polyfit(t, np.log(a), 1)[0]
    assert rate == pytest.approx(c / (2 * m), rel=0.03)


def free_pair(integrator="rk4", ball=True):
    """Two boxes spinning in free flight, a spring between points off their centres, and (with
    ``ball``) a ball on a spring to one of them."""
    return complete({"segments": [{"a": [-50, -50], "b": [50, -50]}], "gravity": [0, 0], "bounds": [-60, -60, 60, 60],
                     "integrator": integrator,
                     "bodies": [box(-3, 0, 1.0, 0.5, 0.3, vel=[1, 0.5], spin=2.0),
                                box(3, 0.5, 0.6, 1.2, -0.4, vel=[-0.5, 0], spin=-1.0, density=3.0)],
                     "balls": [{"pos": [0, 5], "radius": 0.3, "vel": [0.3, -1]}],
                     "springs": [{"a": {"body": 0}, "b": {"body": 1}, "offset_a": [0.4, 0.2], "offset_b": [-0.2, 0.5],
                                  "stiffness": 30.0, "damping": 0.5, "rest": 6.0},
                                 {"a": 0, "b": {"body": 1}, "offset_b": [0.3, -0.6], "stiffness": 20.0}][:2 if ball else 1]})


def momenta(w):
    p, lz = w.bodies.momentum()
    mass = 1.0 / w.inv_mass
    p = p + (mass[:, None] * w.vel).sum(axis=0)
    lz = lz + float((mass * (w.pos[:, 0] * w.vel[:, 1] - w.pos[:, 1] * w.vel[:, 0])).sum()
                    + (w.spin / w.inv_inertia).sum())
    return p, lz


@pytest.mark.parametrize("integrator, ball, drift", [("semi-implicit", False, 1e-12), ("rk4", False, 1e-12),
                                                     ("semi-implicit", True, 2e-3), ("rk4", True, 2e-3)])
def test_a_free_pair_on_springs_keeps_its_linear_and_angular_momentum(execution, integrator, ball, drift):
    # Each spring's impulse is along the line between the points it holds: no torque about any
    # point, and the bodies keep their angular momentum to rounding. A ball's end is where the
    # balls' own step has moved it by h v already (the balls step before the bodies in a
    # sub-step, game.physics.step), the body's where it starts the sub-step: the line is off
    # by h v, a drift of O(h) in L (5e-4 of it here in 4 s), as for the bodies' rods to balls.
    w = World.from_level(free_pair(integrator, ball), execution=execution)
    p0, l0 = momenta(w)
    spin0 = w.bodies.spin.copy()
    for _ in range(240):
        w.step(TICK)
        assert len(w.bodies.manifold_points) == 0         # (no contact: the springs alone)
    p1, l1 = momenta(w)
    assert not np.allclose(w.bodies.spin, spin0)          # the springs turned them
    assert np.allclose(p1, p0, atol=1e-12 + 1e-12 * np.abs(p0).max())
    assert l1 == pytest.approx(l0, rel=drift, abs=1e-12)


def test_the_executions_agree_to_the_bit_and_a_snapshot_continues_to_the_bit():
    level = free_pair()
    hashes = []
    for execution in ("compiled", "numpy"):
        w = World.from_level(level, execution=execution)
        for _ in range(90):
            w.step(TICK)
        hashes.append(w.state_hash())
    assert hashes[0] == hashes[1]
    again = World.from_level(complete(w.to_level()), execution="numpy")
    assert [s["a"] for s in again.level["springs"]] == [{"body": 0}, 0]
    assert again.state_hash() == w.state_hash()
    for _ in range(60):
        w.step(TICK)
        again.step(TICK)
    assert again.state_hash() == w.state_hash()


@pytest.mark.parametrize("integrator", ["euler", "semi-implicit", "verlet", "rk4"])
def test_a_spring_stiffer_than_the_sub_step_can_follow_stays_bounded(integrator):
    # k = 1e9 N/m on 10 g: omega h is 50 at 240 Hz. Taken as the stiffest the sub-step follows.
    w = World.from_level(hanging(0.01, 1e9, gravity=G, integrator=integrator))
    w.bodies.pos[0, 1] = -0.2
    for _ in range(300):
        w.step(TICK)
        assert np.isfinite(w.bodies.pos).all()
        assert abs(w.bodies.pos[0, 1]) < 0.25 and np.abs(w.bodies.vel).max() < 100.0


def test_a_spring_off_the_centre_of_mass_turns_the_box():
    w = World.from_level(hanging(offset=(0.4, 0.5)))
    for _ in range(60):
        w.step(TICK)
    assert abs(w.bodies.angle[0]) > 0.05


def test_bodies_pulled_together_by_a_spring_still_collide(execution):
    level = floor_level([box(-2, 0.5), box(2, 0.5)], friction=0.0)
    level["springs"] = [{"a": {"body": 0}, "b": {"body": 1}, "stiffness": 200.0, "damping": 5.0, "rest": 0.0,
                         "offset_a": [0.0, 0.0], "offset_b": [0.0, 0.0]}]
    w = World.from_level(level, execution=execution)
    for _ in range(240):
        w.step(TICK)
        assert w.bodies.pos[1, 0] - w.bodies.pos[0, 0] > 1.0 - 0.02       # two 1 m boxes never overlap
    assert w.bodies.pos[1, 0] - w.bodies.pos[0, 0] < 1.02                # and they are touching


def bumper_drop(kick):
    return complete({"segments": [{"a": [-5, 0], "b": [5, 0], "kick": kick}], "gravity": [0, -G],
                     "bounds": [-6, -1, 6, 40], "material": {"restitution": 0.0, "friction": 0.5},
                     "bodies": [box(0, 2.0, 1.0, 0.5)]})


def test_a_bumper_kicks_a_box_away_at_its_speed(execution):
    w = World.from_level(bumper_drop(8.0), execution=execution)
    top = 0.0
    left_at = None
    for n in range(120):
        w.step(TICK)
        if left_at is None and w.bodies.vel[0, 1] > 0:
            left_at = w.bodies.vel[0, 1]
        top = max(top, w.bodies.pos[0, 1])
    assert left_at == pytest.approx(8.0, rel=0.02)
    assert top - 0.25 == pytest.approx(8.0 ** 2 / (2 * G), rel=0.05)     # it rises as a body thrown at 8 m/s
    still = World.from_level(bumper_drop(0.0), execution=execution)
    for _ in range(120):
        still.step(TICK)
    assert abs(still.bodies.pos[0, 1] - 0.25) < 0.01                     # no bumper: it stays down


def level_text(spring):
    return ('{"segments": [{"a": [-5, 0], "b": [5, 0]}], "balls": [{"pos": [0, 3]}], '
            '"bodies": [{"shape": "box", "center": [0, 1], "size": [1, 1], "angle": 0.5}], "springs": [' + spring + ']}')


@pytest.mark.parametrize("spring, needle", [
    ('{"a": 0, "b": [1, 1], "offset_a": [0, 1]}', "springs[0].offset_a: expected no offset"),
    ('{"a": {"body": 2}, "b": [1, 1]}', "springs[0].a.body: expected a body index from 0 to 0, got 2"),
    ('{"a": {"body": 0}, "b": {"body": 0}}', "springs[0].b.body: expected a body other than a's (0)"),
    ('{"a": {"body": 0, "x": 1}, "b": [1, 1]}', "springs[0].a"),
])
def test_a_bad_body_spring_is_one_line(spring, needle):
    with pytest.raises(LevelError) as caught:
        loads(level_text(spring), "levels/x.json")
    message = str(caught.value)
    assert needle in message and "\n" not in message, message


def test_a_body_springs_rest_is_the_distance_between_its_held_points_at_load():
    level = loads(level_text('{"a": {"body": 0}, "b": 0, "offset_a": [0.5, 0]}'), "levels/x.json")
    spring = level["springs"][0]
    # The box is turned by 0.5 rad: its offset (0.5, 0) is at (0.5 cos 0.5, 0.5 sin 0.5) from (0, 1).
    held = (0.5 * math.cos(0.5), 1 + 0.5 * math.sin(0.5))
    assert spring["rest"] == pytest.approx(math.hypot(0 - held[0], 3 - held[1]), rel=1e-12)
    w = World.from_level(level)
    w.step(TICK)
    assert np.isfinite(w.pos).all() and len(w.springs) == 0      # the bodies' solve holds it, not the balls' forces
