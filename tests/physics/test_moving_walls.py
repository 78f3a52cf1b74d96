"""Moving walls (issue 25): conveyors, lifts, rotors, flippers, bumpers and a tumbler, held to
the laws of textbook mechanics on both executions, which give the same bits.

Each law test prints its measured figures (``pytest -s`` shows them)."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from game.level import complete
from game.physics.world import World

TICK = 1 / 60


def level(**keys):
    return complete({"bounds": [-60, -60, 60, 60], **keys})


def still(execution):
    return "numpy" if execution == "numpy" else "compiled"


# ---------------------------------------------------------------- conveyor
@pytest.mark.parametrize("friction", [0.1, 0.4, 1.0])
def test_a_ball_set_on_a_belt_ends_rolling_at_a_third_of_its_speed(execution, friction):
    """A ball (a disc, I = m r^2 / 2) set at rest on a belt moving at s slides until it rolls:
    friction keeps its angular momentum about the contact point (zero), so m v r = I w and
    v + w r = s give v = s / 3, w = 2 v / r, for any friction. The belt's work explains the
    energy: it did s times the impulse m v, of which the ball kept a half.

    The slip s - v - w r falls at 3 mu g (friction slows it by mu g, and spins it up by
    2 mu g / r), so the slide lasts s / (3 mu g): the run is ten times that, whole seconds."""
    s, r = 3.0, 0.5
    w = World.from_level(level(segments=[{"a": [-50, 0], "b": [50, 0], "surface_speed": s}],
                               material={"restitution": 0.0, "friction": friction, "rolling": 0.0},
                               balls=[{"pos": [0, r], "radius": r}]), execution=execution)
    start = w.energy()["total"]
    slide = s / (3 * friction * float(np.hypot(*w.forces.gravity)))
    for _ in range(math.ceil(10 * slide) * 60):
        w.step(TICK)
    v, spin = w.vel[0, 0], w.spin[0]
    mass = 1.0 / w.inv_mass[0]
    print(f"belt s={s} mu={friction}: v={v:.6f} (s/3={s / 3:.6f}) spin={spin:.6f} (2v/r={2 * v / r:.6f}) "
          f"L_contact={-mass * r * v + spin / w.inv_inertia[0]:.2e} wall_work={w.wall_work:.4f} "
          f"dE={w.energy()['total'] - start:.4f}")
    assert v == pytest.approx(s / 3, rel=1e-3)
    assert spin == pytest.approx(2 * v / r, rel=1e-3)
    assert abs(w.vel[0, 1]) < 1e-6
    assert w.wall_work == pytest.approx(s * mass * v, rel=1e-3)


def test_a_polyline_belt_runs_along_its_points_whichever_way_gravity_turns_it(execution):
    """The surface speed runs a -> b as the file gives it, though the world may store the
    capsule the other way round (walls face up)."""
    ends = []
    for a, b in (([-50, 0], [50, 0]), ([50, 0], [-50, 0])):
        w = World.from_level(level(polylines=[{"points": [a, b], "surface_speed": 2.0}],
                                   material={"restitution": 0.0, "friction": 0.5, "rolling": 0.0},
                                   balls=[{"pos": [0, 0.5], "radius": 0.5}]), execution=execution)
        for _ in range(240):
            w.step(TICK)
        ends.append(w.vel[0, 0])
    assert ends[0] == pytest.approx(2.0 / 3, rel=1e-3)
    assert ends[1] == pytest.approx(-2.0 / 3, rel=1e-3)


# -------------------------------------------------------------------- lift
def test_a_ball_on_a_lift_slower_than_free_fall_stays_on_it(execution):
    """A platform sliding up and down by 2 m every 4 s accelerates at most
    (2 / 2) (2 pi / 4)^2 = 2.5 m/s^2 < g: the ball on it never leaves it (gap within mm)."""
    to, period, r = 2.0, 4.0, 0.3
    w = World.from_level(level(segments=[{"a": [-2, 1], "b": [2, 1], "radius": 0.1,
                                          "motion": {"kind": "slide", "to": [0, to], "period": period}}],
                               balls=[{"pos": [0, 1 + 0.1 + r], "radius": r}]), execution=execution)
    gaps = []
    for k in range(int(2 * period * 60)):
        w.step(TICK)
        lift = 1 + to * (1 - math.cos(2 * math.pi * w.time / period)) / 2
        assert w.statics.a[0, 1] == pytest.approx(lift, abs=1e-9)      # the motion's law
        gaps.append(w.pos[0, 1] - r - 0.1 - lift)
    gaps = np.array(gaps[60:])                 # after the first second (it settles)
    print(f"lift: gap between ball and platform {gaps.min() * 1000:.3f} .. {gaps.max() * 1000:.3f} mm, "
          f"x drift {w.pos[0, 0]:.2e} m")
    assert np.abs(gaps).max() < 3e-3
    assert abs(w.pos[0, 0]) < 1e-6


# ------------------------------------------------------------------- rotor
def rotor_hit(execution, omega, e, d=2.0, r=0.1, phi=0.4):
    """A thin arm (0, 0) -> (3, 0) turning at omega about the origin, a ball at rest at
    distance d, angle phi ahead of it, no gravity, no friction: the ball's speed in the tick
    after it is first hit, the law's speed (1 + e) omega sqrt(d^2 - r^2) (the wall's
    velocity at the touch, normal to the arm), and the world."""
    w = World.from_level(level(segments=[{"a": [0, 0], "b": [3, 0], "motion": {"kind": "rotate", "pivot": [0, 0],
                                                                                "speed": omega}}],
                               material={"restitution": e, "friction": 0.0, "rolling": 0.0}, gravity=[0, 0],
                               balls=[{"pos": [d * math.cos(phi), d * math.sin(phi)], "radius": r}]),
                         execution=execution)
    for _ in range(120):
        w.step(TICK)
        if np.hypot(*w.vel[0]) > 0.01:
            break
    return float(np.hypot(*w.vel[0])), (1 + e) * omega * math.sqrt(d * d - r * r), w


@pytest.mark.parametrize("omega, e", [(2.0, 0.5), (2.0, 1.0), (30.0, 0.5), (30.0, 1.0)])
def test_a_rotor_arm_hits_a_resting_ball_at_one_plus_e_times_its_speed(execution, omega, e):
    speed, law, w = rotor_hit(execution, omega, e)
    # The ball left ahead of the arm (it did not pass through): its velocity points the way
    # the arm turns, along the arm's normal at the ball.
    arm = w.statics.b[0] - w.statics.a[0]
    ahead = np.array([-arm[1], arm[0]]) * np.sign(omega)
    side = float(np.dot(w.pos[0] - w.statics.a[0], ahead))
    print(f"rotor omega={omega} e={e}: speed {speed:.4f} m/s, law {law:.4f} ({speed / law - 1:+.2%}), "
          f"ball ahead of the arm by {side / np.linalg.norm(ahead):.3f} m, wall_work {w.wall_work:.3f} J")
    assert speed == pytest.approx(law, rel=0.01)
    assert side > 0
    assert np.dot(w.vel[0], ahead) > 0


def test_an_elastic_rotor_hit_is_paid_for_by_the_wall_s_work(execution):
    """e = 1: no energy is lost, so the ball's kinetic energy is the work the wall did."""
    _, _, w = rotor_hit(execution, 30.0, 1.0)
    for _ in range(10):
        w.step(TICK)
    print(f"rotor e=1: kinetic {w.energy()['total']:.4f} J, wall_work {w.wall_work:.4f} J")
    assert w.energy()["total"] == pytest.approx(w.wall_work, rel=1e-6)


def test_no_ball_passes_a_rotor_turning_at_30_rad_s(execution):
    """Balls at rest all round a fast rotor (tip 60 m/s, an arm 0.25 m thick moving 0.25 m a
    sub-step at the balls): in the arm's frame each ball's centre never crosses its core. The
    arms are two, the balls far enough apart that each is hit on its own."""
    omega = 30.0
    balls = [{"pos": [d * math.cos(a), d * math.sin(a)], "radius": 0.1}
             for d in (0.8, 1.4, 1.9) for a in np.linspace(0.3, 2 * math.pi, 7, endpoint=False)]
    w = World.from_level(level(segments=[{"a": [-2, 0], "b": [2, 0], "motion": {"kind": "rotate", "pivot": [0, 0],
                                                                                 "speed": omega}}],
                               material={"restitution": 0.5, "friction": 0.0, "rolling": 0.0}, gravity=[0, 0],
                               balls=balls, bounds=[-300, -300, 300, 300]), execution=execution)
    for _ in range(30):
        before = arm_frame(w)
        w.step(TICK)
        after = arm_frame(w)
        # A crossing in the arm's frame: the side flips where the ball is within the arm's length
        # (a ball beyond the ends may go round them).
        within = (np.abs(before[:, 0]) < 2) & (np.abs(after[:, 0]) < 2)
        assert not np.any(within & (np.sign(before[:, 1]) != np.sign(after[:, 1])))
    hit = np.hypot(w.vel[:, 0], w.vel[:, 1]) > 1.0
    print(f"rotor 30 rad/s: {hit.sum()} of {w.count} balls hit, none through the arm")
    assert hit.all()


def arm_frame(w):
    """The balls' centres in the arm's frame (x along it from its middle, y across), ball by ball."""
    a, b = w.statics.a[0], w.statics.b[0]
    along = (b - a) / np.linalg.norm(b - a)
    rel = w.pos - 0.5 * (a + b)
    return np.stack((rel @ along, rel @ np.array([-along[1], along[0]])), axis=1)


# ----------------------------------------------------------------- flipper
def flipper_world(execution, e=0.0):
    """A left flipper: a stadium from its pivot (0, 0) to (2, 0), turning up 0.6 rad at 15
    rad/s; a ball resting on it at 1.5 m from the pivot."""
    return World.from_level(level(segments=[{"a": [0, 0], "b": [2, 0], "radius": 0.1,
                                             "motion": {"kind": "flipper", "pivot": [0, 0], "angle": 0.6,
                                                        "speed": 15, "key": "left"}}],
                                  material={"restitution": e, "friction": 0.0, "rolling": 0.0},
                                  balls=[{"pos": [1.5, 0.1 + 0.2], "radius": 0.2}]), execution=execution)


@pytest.mark.parametrize("e", [0.0, 0.5])
def test_a_flipper_launches_a_resting_ball_at_the_speed_its_tip_gives_it(execution, e):
    """Pressed, the flipper turns at 15 rad/s at once: the ball resting at d = 1.5 m on it is
    hit at the wall's speed there, 15 d. Lively (e = 0.5) it leaves at (1 + e) 15 d; dead
    (e = 0) it rides the flipper, its speed across the flipper 15 times its distance along it
    (no relative normal speed), until the flipper stops and it flies on. Released, the flipper
    falls back to rest."""
    w = flipper_world(execution, e)
    for _ in range(30):
        w.step(TICK)                       # the ball settles on the flipper
    assert w.flipper_keys == frozenset({"left"})
    rest_b = w.statics.b[0].copy()
    w.press_flipper("left", True)
    w.step(TICK)
    theta = math.atan2(*(w.statics.b[0] - w.statics.a[0])[::-1])
    along = np.array([math.cos(theta), math.sin(theta)])
    across = np.array([-along[1], along[0]])
    if e > 0:
        measured, law = float(np.hypot(*w.vel[0])), (1 + e) * 15 * 1.5
    else:
        measured, law = float(w.vel[0] @ across), 15 * float((w.pos[0] - w.statics.a[0]) @ along)
    print(f"flipper e={e}: {'launch speed' if e else 'speed across it'} {measured:.3f} m/s, law {law:.3f} "
          f"({measured / law - 1:+.2%}) at {math.degrees(theta):.1f} deg, wall_work {w.wall_work:.3f} J")
    assert measured == pytest.approx(law, rel=0.01)
    for _ in range(10):
        w.step(TICK)
    up = w.statics.b[0].copy()
    assert up[1] == pytest.approx(2 * math.sin(0.6), abs=1e-9)          # stopped at its angle
    assert w.pos[0, 1] > 2.0 and w.vel[0, 1] > 10.0                     # the ball flies
    w.press_flipper("left", False)
    for _ in range(10):
        w.step(TICK)
    assert np.allclose(w.statics.b[0], rest_b, atol=1e-12)              # back down


def test_flipper_keys_are_empty_without_flippers_and_a_bad_key_is_refused():
    w = World.from_level(level(segments=[{"a": [0, 0], "b": [2, 0]}]), execution="numpy")
    assert w.flipper_keys == frozenset()
    w.press_flipper("left", True)              # no flipper: nothing happens
    w.step(TICK)
    with pytest.raises(ValueError):
        w.press_flipper("up", True)


# ------------------------------------------------------------------ bumper
def test_a_bumper_kicks_every_impact_out_at_least_its_kick_speed(execution):
    """A peg with kick 8 hit at 3 m/s sends the ball back at 8 m/s (more than e would)."""
    w = World.from_level(level(segments=[{"a": [0, 0], "b": [0, 0], "radius": 0.5, "kick": 8}],
                               material={"restitution": 0.5, "friction": 0.0, "rolling": 0.0}, gravity=[0, 0],
                               balls=[{"pos": [-2, 0], "vel": [3, 0], "radius": 0.2}]), execution=execution)
    for _ in range(60):
        w.step(TICK)
    print(f"bumper: out at {w.vel[0, 0]:.4f} m/s, kicks {w.kicks}")
    assert w.vel[0, 0] == pytest.approx(-8.0, rel=1e-6)
    assert w.kicks == 1


# ----------------------------------------------------------------- tumbler
def tumbler(execution, balls_across=8, speed=0.5):
    """A 4 m box turning about its centre (0, 0) at ``speed`` rad/s, full of balls."""
    h = 2.0
    box = [[-h, -h], [h, -h], [h, h], [-h, h], [-h, -h]]
    r = 0.15
    xs = np.linspace(-h + 2 * r, h - 2 * r, balls_across)
    balls = [{"pos": [float(x), float(y)], "radius": r} for x in xs for y in xs[: balls_across // 2]]
    return World.from_level(level(polylines=[{"points": box, "radius": 0.05,
                                              "motion": {"kind": "rotate", "pivot": [0, 0], "speed": speed}}],
                                  balls=balls), execution=execution)


def test_a_tumbler_full_of_balls_turns_for_a_minute_and_loses_none():
    """On the compiled execution where numba is (a minute of 32 balls on numpy took 37 s of the
    suite): the shipped 800-ball tumbler (tests/physics/test_laws.py) and the random moving walls
    below hold the numpy execution to it bit for bit."""
    from tests.conftest import COMPILED
    w = tumbler("numpy" if COMPILED is None else "compiled")
    n = w.count
    worst = 0.0
    for k in range(60 * 60):
        w.step(TICK)
        if k % 60 == 59:
            theta = 0.5 * w.time                                  # the box's turn
            c, s = math.cos(-theta), math.sin(-theta)
            local = w.pos @ np.array([[c, s], [-s, c]])           # into the box's frame
            worst = max(worst, float(np.abs(local).max() + 0.15))
            assert np.abs(local).max() < 2.0, "a ball left the box"
    print(f"tumbler: {w.count} of {n} balls after 60 s, deepest reach {worst:.4f} m of the 2 m half-width, "
          f"wall_work {w.wall_work:.2f} J, max overlap {w.max_overlap() * 1000:.2f} mm")
    assert w.count == n
    assert np.isfinite(w.pos).all()


# --------------------------------------------------------- the executions
def mixed_level():
    return level(segments=[{"a": [-6, -4], "b": [6, -4], "surface_speed": 1.5},
                           {"a": [-1, 0], "b": [1, 0], "radius": 0.1,
                            "motion": {"kind": "rotate", "pivot": [0, 0], "speed": 3}},
                           {"a": [3, -3], "b": [5, -3], "motion": {"kind": "slide", "to": [0, 2], "period": 2}},
                           {"a": [-5, -2], "b": [-3, -2], "radius": 0.1,
                            "motion": {"kind": "flipper", "pivot": [-5, -2], "angle": 0.7, "speed": 12,
                                       "key": "left"}},
                           {"a": [0, 3], "b": [0, 3], "radius": 0.4, "kick": 6}],
                 polylines=[{"points": [[-7, 6], [-7, -5], [7, -5], [7, 6]]}],
                 polygons=[{"points": [[4, 1], [5, 1], [5, 2], [4, 2]],
                            "motion": {"kind": "rotate", "pivot": [4.5, 1.5], "speed": -2}}],
                 balls=[{"pos": [x, y], "radius": 0.2} for x in np.linspace(-6, 6, 9).tolist()
                        for y in (4.0, 5.0)],
                 bounds=[-8, -6, 8, 8])


def test_moving_walls_give_the_same_bits_on_both_executions():
    pytest.importorskip("numba")
    hashes = []
    for execution in ("numpy", "compiled"):
        w = World.from_level(mixed_level(), execution=execution)
        for k in range(300):
            w.press_flipper("left", (k // 40) % 2 == 1)
            w.step(TICK)
        hashes.append((w.state_hash(), w.kicks, w.wall_work))
    print(f"mixed level: {hashes[0][0][:12]} on both, kicks {hashes[0][1]}, wall_work {hashes[0][2]:.3f} J")
    assert hashes[0] == hashes[1]


def test_the_one_call_tick_serves_moving_walls_to_the_bit():
    """Without polygons, the compiled execution runs moving walls, belts and bumpers in one
    compiled call a tick (their poses computed before it): the same bits, kicks and work as
    numpy's sub-step by sub-step path."""
    pytest.importorskip("numba")
    definition = mixed_level()
    definition["polygons"] = []
    ends = []
    for execution in ("numpy", "compiled"):
        w = World.from_level(definition, execution=execution)
        fused = 0
        for k in range(300):
            w.press_flipper("left", (k // 40) % 2 == 1)
            fused += w.ticks_in_one_call()
            w.step(TICK)
        ends.append((w.state_hash(), w.kicks, w.wall_work))
        if execution == "compiled":
            assert fused == 300
    print(f"one-call tick: {ends[0][0][:12]} on both, kicks {ends[0][1]}, wall_work {ends[0][2]:.4f} J")
    assert ends[0] == ends[1]


def test_a_snapshot_resumes_its_walls_where_they_were(execution):
    w = World.from_level(mixed_level(), execution=execution)
    w.press_flipper("left", True)
    for _ in range(100):
        w.step(TICK)
    snap = World.from_level(w.to_level(), execution=execution)
    assert snap.time == w.time
    assert np.array_equal(snap.statics.a, w.statics.a) and np.array_equal(snap.statics.b, w.statics.b)
    snap.press_flipper("left", True)
    for _ in range(30):
        w.step(TICK)
        snap.step(TICK)
    assert np.allclose(snap.statics.a, w.statics.a, atol=1e-9)


def test_balls_on_a_moving_wall_or_a_belt_never_sleep(execution):
    w = World.from_level(level(segments=[{"a": [-50, 0], "b": [50, 0], "surface_speed": 0.001}],
                               material={"restitution": 0.0, "friction": 0.5, "rolling": 0.1},
                               balls=[{"pos": [0, 0.5], "radius": 0.5}]), execution=execution)
    for _ in range(300):
        w.step(TICK)
    assert not w.sleeping.any()


def test_still_levels_keep_their_statics_still():
    w = World.from_level(level(segments=[{"a": [0, 0], "b": [2, 0]}], balls=[{"pos": [1, 1]}]), execution="numpy")
    version = w.statics_version
    for _ in range(10):
        w.step(TICK)
    assert w.statics_version == version
    assert not w.statics.moving.any() and w.kicks == 0 and w.wall_work == 0.0


# --------------------------------------------------------------- hypothesis
motions = st.one_of(
    st.builds(lambda speed: {"kind": "rotate", "speed": speed}, st.floats(-30, 30)),
    st.builds(lambda dx, dy, period: {"kind": "slide", "to": [dx, dy], "period": period},
              st.floats(-1, 1), st.floats(-1, 1), st.floats(0.3, 5)))


@settings(max_examples=12, deadline=None)
@given(walls=st.lists(st.tuples(st.floats(-3, 3), st.floats(-3, 3), st.floats(0, math.pi), st.floats(0.3, 1.5),
                                motions, st.floats(-3, 3)), min_size=1, max_size=3),
       balls=st.integers(1, 12), seed=st.integers(0, 1000))
def test_random_moving_walls_stay_finite_and_escape_free_with_the_same_bits(walls, balls, seed):
    """Walls turning or sliding inside a closed 14 m box (their whole path inside it, a ball's
    width from its walls), balls dropped in: after 2 s every ball is finite and inside the
    box, and both executions agree to the bit."""
    segments = []
    for x, y, angle, half, motion, surface in walls:
        a = [x - half * math.cos(angle), y - half * math.sin(angle)]
        b = [x + half * math.cos(angle), y + half * math.sin(angle)]
        m = dict(motion)
        if m["kind"] == "rotate":
            m["pivot"] = [x, y]
        segments.append({"a": a, "b": b, "radius": 0.05, "motion": m, "surface_speed": surface})
    rng = np.random.default_rng(seed)
    definition = level(segments=segments, polylines=[{"points": [[-7, -7], [7, -7], [7, 7], [-7, 7]],
                                                       "closed": True, "radius": 0.1}],
                       balls=[{"pos": rng.uniform(-6, 6, 2).tolist(), "radius": 0.15} for _ in range(balls)],
                       bounds=[-7, -7, 7, 7])
    ends = []
    executions = ("numpy", "compiled") if pytest.importorskip("numba") else ("numpy",)
    for execution in executions:
        w = World.from_level(definition, execution=execution)
        for _ in range(120):
            w.step(TICK)
        assert np.isfinite(w.pos).all() and np.isfinite(w.vel).all()
        assert (np.abs(w.pos) < 7).all(), "a ball left the box"
        assert w.count == balls
        ends.append(w.state_hash())
    assert len(set(ends)) == 1


# ---------------------------------------------------------------- the reach (issue 25, round two)
@settings(max_examples=40, deadline=None)
@given(kind=st.sampled_from(["rotate", "slide", "flipper"]), speed=st.floats(0.1, 40.0),
       start=st.floats(0.0, 10.0), u=st.floats(0.0, 1.0), side=st.floats(-1.0, 1.0), k=st.integers(0, 4))
def test_a_moving_wall_s_reach_holds_every_pose_of_its_tick(kind, speed, start, u, side, k):
    """Completeness of the moving walls' candidates: a point that touches a moving capsule at
    any sub-step's pose of a tick touches the reach tick_poses gives it for that tick
    (collide.reaches), for rotors and flippers up to 40 rad/s and slides."""
    from game.physics import collide
    motion = {"rotate": {"kind": "rotate", "pivot": [0.5, 0.2], "speed": speed},
              "slide": {"kind": "slide", "to": [speed / 4, -speed / 8], "period": 2.0},
              "flipper": {"kind": "flipper", "pivot": [-2.0, 0.0], "angle": 0.9, "speed": speed, "key": "left"}}[kind]
    w = World.from_level(level(segments=[{"a": [-2, 0], "b": [2, 1], "radius": 0.1, "motion": motion}],
                               balls=[{"pos": [0, 30], "radius": 0.2}]), execution="numpy")
    w.time = start
    w.press_flipper("left", True)
    w.motions.begin_tick(w.time, TICK)
    poses = w.motions.tick_poses(w, w.time, TICK, w.substeps)
    w.statics.set_pose(poses, min(k, w.substeps - 1))
    a, b, n = w.statics.a[0], w.statics.b[0], w.statics.normal[0]
    r_ball = 0.2
    point = a + u * (b - a) + n * side * (0.1 + r_ball)      # touching the pose (or inside)
    i, s = np.array([0]), np.array([0])
    assert collide.reaches(point[None], np.array([r_ball]), np.array([0.0]), w.statics, i, s)[0]
