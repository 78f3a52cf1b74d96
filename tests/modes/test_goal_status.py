"""Goal status: a goal is complete when its balls have stayed inside for its hold; the headless
--json summary, --screenshot (App.advance) and the window (App.update, frames of several ticks)
say when, to the same tick; the banner shows the state, and undo or balls leaving take it back."""
import argparse
import json

import pygame
import pytest

from game.app.loop import App
from game.defaults import GOAL_HOLD
from game.goals import GoalTracker
from game.headless import run_headless, simulate
from game.level import complete
from game.physics.world import TICK, World

CUP = {"name": "Cup", "bounds": [0, 0, 10, 10], "gravity": [0, -9.81],
       "polylines": [{"points": [[0, 10], [0, 0], [10, 0], [10, 10]]}],
       "balls": [{"pos": [2, 0.25], "radius": 0.25}, {"pos": [5, 3], "radius": 0.25}],
       "zones": [{"kind": "goal", "rect": [[0, 0], [10, 1]], "count": 2}]}
ENTERS = (2 * 2 / 9.81) ** 0.5      # s: the second ball's centre falls 2 m to y = 1


def _headless(path, capsys, steps):
    args = argparse.Namespace(level=str(path), steps=steps, integrator=None, json=True, save=None)
    assert run_headless(args) == 0
    return json.loads(capsys.readouterr().out)


def test_json_reports_the_goal_and_when_it_was_held(tmp_path, capsys):
    path = tmp_path / "cup.json"
    path.write_text(json.dumps(CUP))
    early = _headless(path, capsys, 5)
    assert early["goal"] == {"inside": 1, "needed": 2, "complete": False, "complete_at": None, "held": False}
    inside_not_held = _headless(path, capsys, round((ENTERS + 0.5) / TICK))
    assert inside_not_held["goal"]["inside"] == 2 and not inside_not_held["goal"]["complete"]
    late = _headless(path, capsys, 180)
    assert late["goal"]["inside"] == 2 and late["goal"]["complete"] and late["goal"]["held"]
    # entered at the first tick after ENTERS, complete GOAL_HOLD later
    assert ENTERS + GOAL_HOLD - TICK / 2 <= late["goal"]["complete_at"] <= ENTERS + GOAL_HOLD + TICK * 1.5


def test_json_has_no_goal_where_the_level_has_none(tmp_path, capsys):
    path = tmp_path / "plain.json"
    path.write_text(json.dumps(dict(CUP, zones=[])))
    assert "goal" not in _headless(path, capsys, 3)


@pytest.mark.parametrize("hold, completes", [(GOAL_HOLD, False), (0.0, True)])
def test_a_ball_falling_through_a_goal_completes_it_only_without_a_hold(hold, completes):
    # a ball dropped from 8 m crosses the band y in [4, 6] in about 0.3 s and lands below it
    level = dict(CUP, balls=[{"pos": [5, 8], "radius": 0.25}],
                 zones=[{"kind": "goal", "rect": [[0, 4], [10, 6]], "count": 1, "hold": hold}])
    report = simulate(World.from_level(complete(level)), 240)
    assert report["goal"]["complete"] is completes


def _app(tmp_path, level):
    path = tmp_path / "level.json"
    path.write_text(json.dumps(level))
    pygame.font.init()
    app = App(str(path), size=(800, 450), level_dir=str(tmp_path))
    app.clock.budget = float("inf")
    return app


@pytest.mark.parametrize("ticks_a_frame", [1, 3, 7])
def test_the_window_screenshot_and_headless_agree_on_complete_at_to_the_tick(tmp_path, ticks_a_frame):
    steps = 150
    want = simulate(World.from_level(complete(CUP)), steps)["goal"]["complete_at"]
    assert want is not None
    shot = _app(tmp_path, CUP)
    shot.advance(steps)                          # what --screenshot runs before it draws
    window = _app(tmp_path, CUP)
    while window.session.world.time < steps * TICK - TICK / 2:
        window.update(ticks_a_frame * TICK)       # a frame of several ticks, checked once
    assert shot.play.complete_at == window.play.complete_at == want


def _drawn_strings(app):
    drawn = []
    text = app.hud.text
    app.hud.text = lambda string, *args, **kw: (drawn.append(string), text(string, *args, **kw))[1]
    app.draw(pygame.Surface((800, 450)))
    app.hud.text = text
    return drawn


def test_the_banner_holds_then_shows_complete_and_undo_takes_it_back(tmp_path):
    level = dict(CUP, balls=[], zones=[{"kind": "goal", "rect": [[0, 0], [10, 2]], "count": 1}])
    app = _app(tmp_path, level)
    app.play.spawn((5.0, 0.3))                    # the player's ball, straight into the goal
    app.advance(30)
    assert any(s.startswith("hold it...") for s in _drawn_strings(app))
    app.advance(40)
    assert app.play.goal.complete and "level complete!" in app.toasts.texts()
    at = app.play.complete_at
    assert abs(at - GOAL_HOLD) <= TICK
    strings = _drawn_strings(app)
    assert "LEVEL COMPLETE" in strings and any(s.startswith(f"in {at:.1f} s") for s in strings)
    assert app.play.undo()                        # Ctrl+Z: the ball is taken back, and the goal with it
    assert not app.play.goal.complete
    strings = _drawn_strings(app)
    assert "LEVEL COMPLETE" not in strings and any("goal was lost" in s for s in strings)
    app.session.reset()
    assert app.play.complete_at is None and not app.play.goal.complete


def test_the_tracker_counts_each_zone_and_a_ball_that_leaves_starts_again():
    t = GoalTracker([(2, 1.0), (1, 0.5)])
    t.observe(0.0, [[1, 2], [3]])
    assert not t.complete and t.hold_left() == pytest.approx(1.0)
    t.observe(0.5, [[1, 2], [3]])
    assert not t.complete and t.held() == [0, 1]
    t.observe(0.75, [[1], [3]])                   # ball 2 left
    assert t.hold_left() is None and t.progress() == (2, 3)
    t.observe(0.8, [[1, 2], [3]])                 # back: its hold starts again
    t.observe(1.5, [[1, 2], [3]])
    assert not t.complete
    t.observe(1.8, [[1, 2], [3]])
    assert t.complete and t.complete_at == 1.8
    t.observe(1.9, [[1, 2], []])
    assert not t.complete and t.complete_at == 1.8


def test_a_goal_after_another_counts_only_the_balls_that_come_once_that_one_was_held():
    """Goals in order (a zone's "after", issue 38): zone 1 waits for zone 0. Balls in it before
    zone 0 was first held do not count, not even after, until they leave and come again."""
    t = GoalTracker([(1, 0.5, -1), (2, 0.5, 0)])
    t.observe(0.0, [[], [7, 8]])                  # the second cup fills first
    t.observe(1.0, [[1], [7, 8]])
    assert t.held() == [0, 0] and t.progress() == (1, 3)
    t.observe(1.5, [[1], [7, 8]])                 # the first is held: the second opens, but 7 and 8 came early
    assert t.held_at[0] == 1.5 and t.held() == [1, 0] and not t.complete
    t.observe(3.0, [[1], [7, 8]])
    assert not t.complete
    t.observe(3.1, [[1], [8]])                    # 7 leaves...
    t.observe(3.2, [[1], [7, 8, 9]])              # ... and comes again, with a new ball 9
    t.observe(3.7, [[1], [7, 8, 9]])
    assert t.held() == [1, 2] and t.complete and t.complete_at == 3.7
    plain = GoalTracker([(1, 0.5), (2, 0.5)])     # the same balls, no order: complete at 1.5
    for time, inside in ((0.0, [[], [7, 8]]), (1.0, [[1], [7, 8]]), (1.5, [[1], [7, 8]])):
        plain.observe(time, inside)
    assert plain.complete and plain.complete_at == 1.5


def test_in_order_a_careless_ramp_that_fills_both_cups_at_once_fails_where_the_order_counts():
    """Level 19: a ramp that ends on the shelf cup's rim splits the stream between the cups. It
    fills both (it completes with the order taken out), but the floor cup gets its balls
    before the shelf cup is full, so with the order it does not complete; the solution's ramp,
    into the shelf cup so that it overflows, does."""
    import copy
    import json
    from game.goals import with_solution
    from game.headless import simulate
    from game.level import complete
    from game.physics.world import World
    raw = json.load(open("levels/19_in_order.json", encoding="utf-8"))
    assert raw["zones"][1]["after"] == 0
    careless = dict(raw, solution={"segments": [{"a": [3, 15.5], "b": [12.0, 9.6]}]})
    unordered = copy.deepcopy(careless)
    del unordered["zones"][1]["after"]

    def completes(doc):
        return simulate(World.from_level(complete(with_solution(doc))), 3600, until_complete=True)["goal"]["complete"]

    assert completes(unordered) and not completes(careless) and completes(raw)


@pytest.mark.parametrize("zones, needle", [
    ([{"kind": "goal", "rect": [[0, 0], [1, 1]], "after": 0}], "zones[0].after: expected the index of a goal zone before"),
    ([{"kind": "kill", "rect": [[0, 0], [1, 1]]}, {"kind": "goal", "rect": [[2, 0], [3, 1]], "after": 0}],
     "zones[1].after: expected the index of a goal zone before"),
    ([{"kind": "goal", "rect": [[0, 0], [1, 1]]}, {"kind": "kill", "rect": [[2, 0], [3, 1]], "after": 0}],
     "zones[1].after: expected no \"after\" on a kill zone"),
])
def test_a_bad_after_is_one_line(zones, needle):
    import json
    from game.level import LevelError, loads
    with pytest.raises(LevelError) as caught:
        loads(json.dumps({"segments": [{"a": [0, 0], "b": [9, 0]}], "zones": zones}), "levels/x.json")
    assert needle in str(caught.value) and "\n" not in str(caught.value), str(caught.value)
