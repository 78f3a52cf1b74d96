"""Sleeping (game.sleep, issue 13): a resting pile falls asleep, sleeping changes nothing a
player sees but the rest, both executions sleep and wake alike, and every cause wakes it."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scenes import build_world
from game.physics.sleep import SLEEP_SPEED, SLEEP_TIME, rest_limits, resting
from game.physics.world import TICK
from game.physics.zones import Zone
from game.physics import statics
from tests.conftest import KERNELS, ONE_CALL_TICK

R = 0.1            # m: the pile's balls
COLUMNS, ROWS = 8, 3
WIDTH = COLUMNS * 2 * R + 0.01


def pile_level(columns=COLUMNS, rows=ROWS, **extra):
    """columns x rows balls packed touching on the floor of a box (common.pile_scene, small)."""
    balls = [{"pos": [R + 0.005 + 2 * R * c, R + 2 * R * r], "radius": R}
             for r in range(rows) for c in range(columns)]
    level = {"segments": [{"a": [0, 0], "b": [WIDTH, 0]}, {"a": [0, 0], "b": [0, 2]},
                          {"a": [WIDTH, 0], "b": [WIDTH, 2]}],
             "bounds": [-0.5, -0.5, WIDTH + 0.5, 2.5], "balls": balls}
    level.update(extra)
    return level


def asleep_pile(execution="compiled", **extra):
    """The pile, stepped until every ball sleeps (it must within 2 s)."""
    w = build_world(pile_level(**extra), execution=execution)
    for _ in range(120):
        w.step(TICK)
        if w.sleeping.all():
            return w
    raise AssertionError(f"{int((~w.sleeping).sum())} of {w.count} balls still awake after 2 s")


def run(w, ticks):
    for _ in range(ticks):
        w.step(TICK)
    return w


def top_row():
    return np.arange((ROWS - 1) * COLUMNS, ROWS * COLUMNS)


# ------------------------------------------------------------------ falling asleep
def test_a_resting_pile_falls_asleep_and_then_stays_exactly_still(execution):
    w = asleep_pile(execution)
    assert w.time >= SLEEP_TIME                          # rested the sleep time first
    assert np.all(w.vel == 0.0) and np.all(w.spin == 0.0)
    before = w.state_hash()
    run(w, 30)
    assert w.state_hash() == before and w.sleeping.all()
    assert len(w.contact_points) == 0                    # no contact is worked on while asleep


def test_sleeping_off_keeps_every_ball_awake():
    w = build_world(pile_level())
    w.solver.options.sleeping = False
    run(w, 90)
    assert not w.sleeping.any()
    assert "sleeping off" in w.solver.options.describe()


def test_sleeping_changes_nothing_a_player_sees_but_the_rest():
    """The settled pile with sleeping on and off: the same places to 1 mm and the same energy
    to 1 mJ (the resting balls' leftover jitter is all that differs)."""
    on, off = build_world(pile_level()), build_world(pile_level())
    off.solver.options.sleeping = False
    run(on, 90)
    run(off, 90)
    assert on.sleeping.all()
    assert np.abs(on.pos - off.pos).max() < 1e-3
    e_on, e_off = on.energy(), off.energy()
    assert abs(e_on["total"] - e_off["total"]) < 1e-3
    assert e_off["kinetic"] < 1e-4 and e_on["kinetic"] == 0.0


def test_a_slow_ball_in_free_flight_keeps_drifting():
    """An island touching no static (no gravity) is not resting, however slowly it goes."""
    w = build_world({"gravity": [0, 0], "balls": [{"pos": [0, 0], "vel": [0.5 * SLEEP_SPEED, 0], "radius": R}],
                     "bounds": [-5, -5, 5, 5]})
    run(w, 90)
    assert not w.sleeping.any() and w.vel[0, 0] == 0.5 * SLEEP_SPEED


@pytest.mark.skipif(KERNELS is None, reason="numba is not installed")
def test_numpy_and_compiled_sleep_and_wake_alike():
    """A pile falls asleep, then a ball dropped on it wakes part of it: the same state_hash
    and the same sleepers in both executions, tick by tick."""
    def play(execution):
        w = build_world(pile_level(columns=4, rows=2), execution=execution)
        hashes = []
        for k in range(90):
            if k == 70:
                w.add_ball((0.3, 0.8), vel=(0, -2), radius=R)
            w.step(TICK)
            hashes.append((w.state_hash(), w.sleeping.tobytes()))
        return hashes, w

    (numpy, w), (compiled, _) = play("numpy"), play("compiled")
    assert numpy == compiled
    sleepers = [np.frombuffer(s, bool) for _, s in numpy]
    assert sleepers[69].all()                                            # asleep before the drop
    assert any(not s[:-1].all() for s in sleepers[70:90])                # the drop woke some


@pytest.mark.skipif(ONE_CALL_TICK is None, reason="numba is not installed")
@settings(max_examples=60, deadline=None)
@given(st.integers(0, 40), st.integers(0, 2 ** 32 - 1))
def test_the_one_call_ticks_resting_test_is_sleeps(n, seed):
    """The balls the one-call tick finds resting (_step_kernels._resting) are sleep.resting's,
    boolean for boolean, speeds and moves drawn around the bounds, on them exactly, and NaN."""
    rng = np.random.default_rng(seed)
    speed2, way2 = rest_limits(TICK)
    near = np.array([0.0, SLEEP_SPEED, np.sqrt(way2), -SLEEP_SPEED, np.nan, 1.0])

    def draw(shape):
        x = rng.normal(0, SLEEP_SPEED, shape)
        pick = rng.random(shape) < 0.3
        x[pick] = rng.choice(near, int(pick.sum()))
        return x

    before = rng.normal(0, 1, (n, 2))
    pos, vel, spin = before + draw((n, 2)), draw((n, 2)), draw(n) * 10
    radius = rng.choice([0.1, 0.05, 1.0], n)
    expected = resting(before, pos, vel, spin, radius, TICK)
    got = ONE_CALL_TICK._resting(before, pos, vel, spin, radius, speed2, way2)
    assert got.dtype == bool and np.array_equal(got, expected)


# ------------------------------------------------------------------------ waking
def test_an_awake_ball_touching_wakes_the_island_before_it_can_sink_in():
    w = asleep_pile()
    k = w.add_ball((WIDTH - R - 0.005, 2 * ROWS * R + R + 0.02), radius=R)   # lands on the top row's end
    woke = []
    for _ in range(20):
        w.step(TICK)
        woke.append(not w.sleeping[:k].all())
    assert any(woke)
    assert w.max_overlap() < 0.05 * R


def test_a_fast_ball_wakes_what_it_will_hit_within_the_tick():
    """30 m/s: 0.5 m a tick, far beyond the pair grid's reach; the pile wakes the tick
    before the hit, so the ball stops on it instead of sinking into still balls."""
    w = asleep_pile()
    k = w.add_ball((COLUMNS * R, 2 * ROWS * R + 0.45), vel=(0, -30), radius=R)   # touches within a tick
    w.step(TICK)
    assert not w.sleeping[top_row()].any()
    run(w, 10)
    assert w.pos[k, 1] > 2 * (ROWS - 1) * R              # above the top row's centres
    assert w.max_overlap() < 0.1 * R


def test_grabbing_a_ball_wakes_its_island():
    w = asleep_pile()
    handle = w.grab(0, w.pos[0] + (0.0, 0.5))
    assert not w.sleeping.any()
    run(w, 10)
    assert w.pos[w.grabbed_ball(handle), 1] > R + 0.01      # pulled up


def test_moving_a_grab_wakes_the_ball_it_holds():
    w = build_world(pile_level())
    handle = w.grab(top_row()[0], w.pos[top_row()[0]])
    run(w, 120)
    assert w.sleeping.all()                                 # held still, it sleeps too
    w.move_grab(handle, w.pos[top_row()[0]] + (0.0, 0.3))
    assert not w.sleeping.any()


def test_a_spring_added_changed_or_removed_wakes_its_balls():
    w = asleep_pile()
    k = w.add_spring(top_row()[0], top_row()[-1], stiffness=50.0)     # at its rest length
    assert not w.sleeping.any()
    run(w, 120)
    assert w.sleeping.all()
    w.set_anchor(k, (0.0, 0.0))                              # a ball spring's anchor is unused: still a change
    assert not w.sleeping.any()
    run(w, 120)
    assert w.sleeping.all()
    w.remove_spring(k)
    assert not w.sleeping.any()


def test_an_attractor_acting_on_the_pile_wakes_it():
    w = asleep_pile()
    attractor = Zone("attractor", "circle", {"center": np.array([WIDTH / 2, 1.0]), "radius": 2.0}, strength=30.0)
    w.forces.attractors = [attractor]
    y = w.pos[:, 1].mean()
    run(w, 10)
    assert not w.sleeping.all() and w.pos[:, 1].mean() > y + 0.01


@pytest.mark.parametrize("change", ["gravity", "integrator", "drag"])
def test_changing_the_forces_or_the_integrator_wakes_every_ball(change):
    w = asleep_pile()
    if change == "gravity":
        w.forces.gravity = np.array([5.0, -9.81])
    elif change == "integrator":
        w.integrator = "euler" if w.integrator != "euler" else "rk4"
    else:
        w.forces.drag = 0.5
    w.step(TICK)
    assert not w.sleeping.any()
    if change == "gravity":
        assert (w.vel[:, 0] > 0).any()                        # pushed sideways at once


@pytest.mark.parametrize("what", ["vel", "spin", "pos"])
def test_setting_a_sleeping_balls_velocity_or_place_wakes_its_island(what):
    w = asleep_pile()
    k = top_row()[3]
    y = w.pos[k, 1]
    if what == "vel":
        w.vel[k] = (0.0, 3.0)                                  # the game or the editor sets it
    elif what == "spin":
        w.spin[k] = 20.0
    else:
        w.pos[k, 1] += 0.3                                     # lifted: it must fall back
    w.step(TICK)
    assert not w.sleeping.any()
    if what == "vel":
        assert w.pos[k, 1] > y
    elif what == "spin":
        assert w.vel[k, 0] != 0.0                              # the spinning ball pushes off its neighbours
    else:
        assert w.vel[k, 1] < 0.0


def test_moving_a_sleeping_ball_wakes_its_island():
    w = asleep_pile()
    handle = w.grab(top_row()[3], w.pos[top_row()[3]])
    run(w, 60)
    assert w.sleeping.all()
    w.place_grabbed(handle, w.pos[top_row()[3]] + (0.0, 0.5))   # dragged while paused
    w.release(handle)
    assert not w.sleeping[top_row()].any()


@pytest.mark.parametrize("how", ["remove_balls", "take_ball", "kill zone"])
def test_removing_a_ball_under_others_wakes_them_and_they_fall(how):
    w = asleep_pile()
    under = COLUMNS + 3                                        # middle row: the top row rests on it
    above = top_row()[3]
    above_id = w.ids[above]
    y = w.pos[above, 1]
    if how == "remove_balls":
        w.remove_balls([under])
    elif how == "take_ball":
        w.take_ball(under)
    else:
        x, yu = w.pos[under]
        w.zones.append(Zone("kill", "circle", {"center": np.array([x, yu]), "radius": 0.2 * R}))
        w.step(TICK)
    assert w.count == COLUMNS * ROWS - 1
    assert not w.sleeping.any()
    run(w, 6)
    assert w.pos[w.ids == above_id][0, 1] < y - 0.02           # it falls into the hole


def test_removing_the_static_it_rests_on_wakes_the_pile():
    w = asleep_pile()
    level = dict(w.level)
    level["segments"] = level["segments"][1:]                  # the floor goes (the editor rebuilds statics)
    statics.build_statics(w, level)
    statics.rebuild_grid(w)
    w.step(TICK)
    assert not w.sleeping.any()
    run(w, 10)
    assert w.pos[:, 1].min() < R - 0.05


def test_a_loaded_snapshot_keeps_its_sleepers_and_switching_sleep_off_wakes_all():
    w = asleep_pile()
    from game.physics.world import World
    again = World.from_level(w.to_level())       # its sleep goes with it (game.physics.resume)
    assert np.array_equal(again.sleeping, w.sleeping) and np.array_equal(again.pos, w.pos)
    again.step(TICK)
    assert again.sleeping.all()
    w.solver.options.sleeping = False
    w.step(TICK)
    assert not w.sleeping.any()


def test_the_debug_layers_mark_the_sleeping_balls():
    import pygame
    from game.draw.camera import Camera
    from game.draw.theme import SLEEPING
    from game.draw.renderer import Renderer
    w = asleep_pile()
    awake = w.add_ball((WIDTH / 2, 1.5), radius=R)
    cam = Camera((640, 360))
    cam.fit(w.bounds)
    pygame.font.init()

    def centre_colours(debug):
        surface = pygame.Surface((640, 360))
        Renderer().draw(surface, w, cam, debug=debug)
        return [tuple(surface.get_at(tuple(int(v) for v in np.rint(cam.world_to_screen(p)))))[:3] for p in w.pos]

    marked = centre_colours(("contacts",))
    assert all(c == SLEEPING for c in marked[:awake]) and marked[awake] != SLEEPING
    assert SLEEPING not in centre_colours(())


def test_a_view_keeps_its_own_sleep_state_while_the_world_loses_and_wakes_balls():
    """World.view (what the game draws while the world ticks on a worker thread) holds the
    sleep state it was taken with: the world then removing a ball and waking the rest
    leaves the view's sleeping mask as long as its positions, and all asleep."""
    w = asleep_pile()
    view = w.view()
    w.remove_balls([COLUMNS + 3])
    w.step(TICK)
    assert len(view.sleeping) == len(view.pos) == w.count + 1
    assert view.sleeping.all() and not w.sleeping.all()
    assert not np.shares_memory(view.pos, w.pos)


def test_a_view_keeps_its_springs_while_the_world_ticks_part_asleep_and_loses_balls(monkeypatch):
    """The springs a view draws are the world's when it was taken: a tick with sleeping balls
    swaps the world's springs for the awake balls' (indices into them) while it runs, and a
    removed ball remaps them; neither reaches the view (the game draws it meanwhile)."""
    w = asleep_pile(springs=[{"a": int(top_row()[0]), "b": int(top_row()[1]), "stiffness": 50.0}])
    w.add_ball((WIDTH / 2, 20 * R))                 # far above: it falls awake, the pile sleeps on
    view = w.view()
    a, b = view.springs.a.copy(), view.springs.b.copy()
    mid_tick = []
    from game.physics import step as step_module
    real_tick = step_module.tick

    def tick(world, dt, kernels):                   # what the drawing thread sees mid-tick
        mid_tick.append((w.sleeping.sum(), view.springs.a.copy(), view.springs.b.copy()))
        real_tick(world, dt, kernels)
    monkeypatch.setattr(step_module, "tick", tick)
    w.step(TICK)
    assert mid_tick[0][0] == w.count - 1            # the tick ran on the awake ball alone
    assert np.array_equal(mid_tick[0][1], a) and np.array_equal(mid_tick[0][2], b)
    w.remove_balls([0])
    assert not np.array_equal(w.springs.a, a)       # remapped in the world...
    assert np.array_equal(view.springs.a, a) and np.array_equal(view.springs.b, b)   # ...not in the view


# ------------------------------------------------------------------ the debug layer
def test_a_sleeping_pile_shows_its_contacts_to_the_debug_layer():
    """Issue 27, bug 5: the tick works on no contact of a sleeping pile, so the contacts layer
    was empty. sleeping_contacts gives them, against a brute force over every pair and
    every wall: a pair is in contact when nearer than touching plus the slop."""
    from game.physics.debug import SLEEP_CONTACT_SLOP
    w = run(asleep_pile(), 10)
    assert len(w.contact_points) == 0
    points, offsets = w.sleeping_contacts()
    pos, r = w.pos, w.radius
    expected = 0
    for a in range(w.count):
        for b in range(a + 1, w.count):
            expected += np.linalg.norm(pos[a] - pos[b]) < r[a] + r[b] + SLEEP_CONTACT_SLOP * (r[a] + r[b])
        for s in range(len(w.statics)):
            c = np.clip(np.dot(pos[a] - w.statics.a[s], w.statics.b[s] - w.statics.a[s])
                        / np.dot(w.statics.b[s] - w.statics.a[s], w.statics.b[s] - w.statics.a[s]), 0, 1)
            gap = np.linalg.norm(pos[a] - (w.statics.a[s] + c * (w.statics.b[s] - w.statics.a[s])))
            expected += gap < r[a] + w.statics.radius[s] + SLEEP_CONTACT_SLOP * r[a]
    assert len(points) == expected >= COLUMNS * ROWS           # at least one contact a ball
    # Each point lies on its ball's surface, within the slop: between two balls, or on a wall.
    d = np.min(np.abs(np.linalg.norm(points[:, None] - pos[None], axis=2) - r[None]), axis=1)
    assert np.all(d <= SLEEP_CONTACT_SLOP * R + 1e-9)
    floor = points[np.abs(points[:, 1]) < 1e-6]
    assert len(floor) == COLUMNS                                  # the bottom row on the floor
    assert np.all(np.linalg.norm(offsets, axis=1) <= 0.05 * R)    # at rest: overlaps tiny


def test_the_contacts_layer_draws_the_sleeping_contacts_dimmed():
    import pygame
    from game.draw.camera import Camera
    from game.draw.theme import CONTACT
    from game.draw.plot import shade
    from game.draw.renderer import Renderer
    w = run(asleep_pile(), 10)
    surface = pygame.Surface((400, 300))
    camera = Camera((400, 300))
    camera.fit(w.bounds)
    Renderer().draw(surface, w, camera, debug=("contacts",))
    pixels = pygame.surfarray.array3d(surface)
    assert np.any(np.all(pixels == shade(CONTACT, 0.45), axis=2))
    assert not np.any(np.all(pixels == CONTACT, axis=2))          # none awake: none bright
