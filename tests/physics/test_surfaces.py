"""Surfaces a static may be made of (issue 38's materials): ice (no friction), rubber (a bounce
of 0.9) and lava (it takes the balls that touch it); a player may draw on or through none of
them. The closed forms of a ball on an incline and a dropped ball, both executions, the play's
refusal, and the format."""
import json
import math

import numpy as np
import pygame
import pytest

from game.level import LevelError, complete, loads
from game.physics.statics import surface_touched
from game.physics.world import World

G = 9.81
TICK = 1 / 60


def incline(surface, theta=0.3):
    c, s = math.cos(theta), math.sin(theta)
    seg = {"a": [-20 * c, 20 * s], "b": [20 * c, -20 * s], **({"surface": surface} if surface else {})}
    r = 0.25
    start = [-10 * c - r * s, 10 * s + r * c]          # resting on the slope, 10 m up it
    return complete({"segments": [seg], "balls": [{"pos": start, "radius": r}], "bounds": [-25, -25, 25, 25],
                     "material": {"friction": 0.6, "restitution": 0.0}})


def test_a_ball_slides_down_ice_at_g_sin_theta_without_turning_where_a_rough_slope_rolls_it(execution):
    theta, t = 0.3, 1.0
    travelled = {}
    for surface in ("ice", None):
        w = World.from_level(incline(surface, theta), execution=execution)
        x0 = w.pos[0].copy()
        for _ in range(round(t / TICK)):
            w.step(TICK)
        travelled[surface] = float(np.hypot(*(w.pos[0] - x0)))
        assert (w.spin[0] == 0.0) == (surface == "ice")  # no friction: nothing turns it
    assert travelled["ice"] == pytest.approx(0.5 * G * math.sin(theta) * t * t, rel=0.01)
    assert travelled[None] < 0.8 * travelled["ice"]       # rolling takes its share (5/7 of the pull)


def drop(surface, height=4.0):
    return complete({"segments": [{"a": [-5, 0], "b": [5, 0], **({"surface": surface} if surface else {})}],
                     "balls": [{"pos": [0, height + 0.25], "radius": 0.25, "restitution": 0.1}],
                     "bounds": [-6, -1, 6, 10], "material": {"restitution": 0.1}})


def test_a_ball_dropped_on_rubber_rebounds_to_e_squared_h(execution):
    w = World.from_level(drop("rubber"), execution=execution)
    top, fell = 0.0, False
    for _ in range(200):
        w.step(TICK)
        fell = fell or w.vel[0, 1] > 0
        if fell:
            top = max(top, w.pos[0, 1] - 0.25)
    assert top == pytest.approx(0.9 ** 2 * 4.0, rel=0.02)


def lava_pit():
    return complete({"segments": [{"a": [-10, 0], "b": [0, 0]},
                                  {"a": [0, 0], "b": [10, 0], "surface": "lava"}],
                     "balls": [{"pos": [-5, 0.25]}, {"pos": [-0.3, 0.25]}, {"pos": [5, 3]},
                               {"pos": [3, 20], "vel": [0, -60]}],
                     "bounds": [-11, -1, 11, 30]})


def test_lava_takes_the_balls_that_touch_it_and_no_other_on_both_executions():
    """Compiled (the balls in one call a sub-step, lava looking at each: game.physics.step.tick),
    the compiled kernels sub-step by sub-step, and numpy."""
    hashes = []
    for execution, by_kernels in (("compiled", False), ("compiled", True), ("numpy", False)):
        w = World.from_level(lava_pit(), execution=execution)
        if by_kernels:
            w._fused = lambda kernels: False
        assert bool(w._fused(w._kernels)) == (execution == "compiled" and not by_kernels)
        for _ in range(120):
            w.step(TICK)
        # The falling ball and the one thrown down at 60 m/s are gone (not through the floor:
        # swept to their first touch, and lava has no bounce); those on the plain floor stay,
        # even the one 5 cm from the lava's end.
        assert w.count == 2 and np.allclose(w.pos[:, 1], 0.25, atol=0.01), w.pos
        hashes.append(w.state_hash())
    assert hashes[0] == hashes[1] == hashes[2]


def test_a_player_may_not_draw_on_or_through_a_surface():
    w = World.from_level(complete({"segments": [{"a": [0, 0], "b": [4, 0], "surface": "ice"},
                                                {"a": [0, 5], "b": [4, 5], "surface": "rubber", "radius": 0.2}],
                                   "polygons": [{"points": [[6, 0], [8, 0], [7, 2]], "surface": "lava"}],
                                   "bounds": [-1, -1, 10, 10]}))
    assert surface_touched(w, (2, -1), (2, 1), 0.1) == "ice"           # across it
    assert surface_touched(w, (1, 0.05), (3, 0.05), 0.1) == "ice"      # on it
    assert surface_touched(w, (2, 5.25), (3, 6), 0.1) == "rubber"      # its radius and the drawn one count
    assert surface_touched(w, (2, 5.35), (3, 6), 0.1) is None          # 5 cm clear of both
    assert surface_touched(w, (6.5, 0.5), (7.5, 0.5), 0.1) == "lava"   # inside the polygon, across its edges
    assert surface_touched(w, (1, 1), (3, 1), 0.1) is None             # a metre clear
    assert surface_touched(w, (5, 3), (9, 3), 0.1) is None


def test_play_refuses_the_segment_in_one_line_and_keeps_the_budget(monkeypatch):
    from game.app.loop import App
    from game.modes.play_actions import draw_segment
    from tests.conftest import COMPILED
    pygame.font.init()
    game = App("levels/18_thin_ice.json", size=(800, 450), compiled=COMPILED)
    said = []
    monkeypatch.setattr(game, "toast", said.append)
    play = game.play
    # The naive answer, straight from the spawner to the cup, crosses the lava rock.
    assert draw_segment(play, (3.0, 15.0), (28.0, 4.0)) is None
    assert said[-1] == "you cannot draw on or through lava" and play.drawn == [] and play.left_of("draw") == 1
    assert draw_segment(play, (9.8, 11.0), (22.0, 10.2)) is not None   # over the rock: the way


def test_a_surface_sets_the_shapes_defaults_and_a_given_key_wins_and_a_bad_one_is_one_line():
    level = complete({"segments": [{"a": [0, 0], "b": [4, 0], "surface": "ice"},
                                   {"a": [0, 1], "b": [4, 1], "surface": "rubber", "restitution": 0.5}]})
    ice, rubber = level["segments"]
    assert (ice["friction"], ice["rolling"], ice["surface"]) == (0.0, 0.0, "ice")
    assert (rubber["restitution"], rubber["friction"]) == (0.5, 0.9)
    text = json.dumps({"segments": [{"a": [0, 0], "b": [4, 0], "surface": "glass"}]})
    with pytest.raises(LevelError) as caught:
        loads(text, "levels/x.json")
    message = str(caught.value)
    assert "segments[0].surface" in message and "ice" in message and "\n" not in message, message


def test_lava_takes_the_bodies_that_touch_it_too():
    level = complete({"segments": [{"a": [-10, 0], "b": [0, 0]}, {"a": [0, 0], "b": [10, 0], "surface": "lava"}],
                      "bodies": [{"shape": "box", "center": [-5, 0.5], "size": [1, 1]},
                                 {"shape": "box", "center": [5, 3], "size": [1, 1], "angle": 0.4},
                                 {"shape": "capsule", "a": [2, 8], "b": [4, 8], "radius": 0.1, "vel": [0, -50]},
                                 {"shape": "box", "center": [-0.56, 0.5], "size": [1, 1]}],
                      "bounds": [-11, -1, 11, 30]})
    hashes = []
    for execution in ("compiled", "numpy"):
        w = World.from_level(level, execution=execution)
        for _ in range(120):
            w.step(TICK)
        # The box that falls on the lava and the plank thrown at it at 50 m/s are gone; the
        # boxes on the plain floor stay, even the one 6 cm from the lava's end.
        assert len(w.bodies) == 2 and np.allclose(w.bodies.pos, [[-5, 0.5], [-0.56, 0.5]], atol=0.01)
        hashes.append(w.state_hash())
    assert hashes[0] == hashes[1]
