"""Undo of a delete: a ball taken out of the world goes back with its id, its state to the
bit and its springs (World.take_ball / World.put_back), in the world and through Ctrl+Z in play."""
import json

import numpy as np
import pygame
from hypothesis import given, settings
from hypothesis import strategies as st

from game.level import complete
from scenes import build_world
from game.app.loop import App
from game.physics.balls import BALL_ARRAYS

CHAIN = {
    "name": "Chain",
    "bounds": [0, 0, 16, 9],
    "polylines": [{"points": [[0, 9], [0, 0], [16, 0], [16, 9]]}],
    "balls": [{"pos": [4 + k, 6], "radius": 0.2 + 0.05 * k, "restitution": 0.1 * k, "friction": 0.05 * k}
              for k in range(6)],
    "springs": [{"a": 0, "b": [4, 8], "stiffness": 30, "damping": 0.3, "rest": 2},
                {"a": 0, "b": 1, "stiffness": 40}, {"a": 1, "b": 2, "stiffness": 41},
                {"a": 2, "b": 3, "stiffness": 42}, {"a": 3, "b": 4, "stiffness": 43},
                {"a": 4, "b": 5, "stiffness": 44}, {"a": 5, "b": [11, 8], "stiffness": 45}],
}
BALL = ("pos", "vel", "angle", "spin", "radius", "inv_mass", "inv_inertia", "restitution", "friction",
        "rolling", "ids")
SPRING = ("a", "b", "anchor", "stiffness", "damping", "rest", "ids")


def _chain(ticks=30):
    world = build_world(CHAIN)
    for _ in range(ticks):
        world.step(1 / 60)
    return world


def _snapshot(world):
    return ({n: np.array(getattr(world, n), copy=True) for n in BALL},
            {n: np.array(getattr(world.springs, n), copy=True) for n in SPRING})


def _same(world, snapshot):
    balls, springs = snapshot
    for n, v in balls.items():
        got = getattr(world, n)
        assert got.dtype == v.dtype and np.array_equal(got, v), n
    for n, v in springs.items():
        got = getattr(world.springs, n)
        assert got.dtype == v.dtype and np.array_equal(got, v), n


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=6, unique=True))
def test_deletes_undone_newest_first_leave_the_world_as_it_was(victims):
    world = _chain()
    before = _snapshot(world)
    records = []
    for ball_id in victims:                                  # by id: indices shift as balls go
        records.append(world.take_ball(int(np.flatnonzero(world.ids == ball_id)[0])))
    assert world.count == 6 - len(victims)
    for record in reversed(records):
        world.put_back(record)
    _same(world, before)


def test_a_ball_put_back_after_the_world_ran_on_has_its_state_and_springs_and_steps_on():
    world = _chain()
    k = 2
    pos, vel, ball_id = world.pos[k].copy(), world.vel[k].copy(), int(world.ids[k])
    mine = np.flatnonzero((world.springs.a == k) | (world.springs.b == k))
    spring_ids = world.springs.ids[mine].copy()
    stiffness = world.springs.stiffness[mine].copy()
    record = world.take_ball(k)
    assert len(world.springs) == 5
    for _ in range(20):
        world.step(1 / 60)
    at = world.put_back(record)
    assert at == 2 and int(world.ids[at]) == ball_id
    assert np.array_equal(world.pos[at], pos) and np.array_equal(world.vel[at], vel)
    back = np.flatnonzero(np.isin(world.springs.ids, spring_ids))
    assert np.array_equal(world.springs.ids[back], spring_ids)
    assert np.array_equal(world.springs.stiffness[back], stiffness)
    # Both springs hang between ball 2 and its neighbours (ids 1 and 3), by index now.
    ends = {tuple(sorted(world.ids[[world.springs.a[s], world.springs.b[s]]].tolist())) for s in back}
    assert ends == {(1, 2), (2, 3)}
    for _ in range(10):
        world.step(1 / 60)
    assert np.isfinite(world.pos).all()


def test_a_spring_whose_other_ball_went_meanwhile_is_not_restored_and_ids_are_never_doubled():
    world = _chain()
    record = world.take_ball(2)
    world.take_ball(int(np.flatnonzero(world.ids == 3)[0]))
    world.put_back(record)
    ends = [tuple(world.ids[[a, b]].tolist()) for a, b in zip(world.springs.a, world.springs.b) if b >= 0]
    assert (1, 2) in ends and not any(3 in e for e in ends)
    try:
        world.put_back(record)
    except ValueError as error:
        assert "already" in str(error)
    else:
        raise AssertionError("the same ball went back twice")


def test_the_grab_springs_of_a_deleted_ball_do_not_come_back():
    world = _chain()
    world.grab(2, world.pos[2] + 0.1)
    record = world.take_ball(2)
    world.put_back(record)
    assert len(world.springs) == 7                       # the level's own, not the grab's two


def test_right_click_delete_then_ctrl_z_in_play_restores_the_ball_exactly(tmp_path):
    pygame.font.init()
    path = tmp_path / "chain.json"
    path.write_text(json.dumps(CHAIN))
    game = App(str(path), size=(800, 450), level_dir=str(tmp_path), screenshot_dir=str(tmp_path / "shots"))
    game.clock.budget = float("inf")
    for _ in range(20):
        game.update(1 / 60)
    game.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_SPACE, mod=0, unicode="", scancode=0))
    before = _snapshot(game.world)
    x, y = (int(v) for v in np.rint(game.camera.world_to_screen(game.world.pos[3])))
    for kind in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP):
        game.handle_event(pygame.event.Event(kind, pos=(x, y), button=3))
    assert game.world.count == 5 and len(game.world.springs) == 5
    game.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_z, mod=pygame.KMOD_CTRL, unicode="",
                                         scancode=0))
    _same(game.world, before)


def test_every_array_the_world_keeps_per_ball_is_recorded_and_restored():
    """Whatever the world holds one row a ball of (after stepping, with spin and contacts)
    is in the record and comes back to the bit."""
    world = _chain(ticks=0)
    world.spin = np.linspace(-3, 3, world.count)
    world.add_ball((12.0, 6.0), radius=0.3)            # 7 balls: no other array has 7 rows
    for _ in range(30):
        world.step(1 / 60)
    per_ball = {name for name, value in vars(world).items()
                if isinstance(value, np.ndarray) and value.ndim >= 1 and len(value) == world.count
                and not name.startswith("_")}
    assert per_ball == set(BALL) == set(BALL_ARRAYS)
    before = _snapshot(world)
    record = world.take_ball(4)
    assert set(record.rows) == set(BALL)
    world.put_back(record)
    _same(world, before)
