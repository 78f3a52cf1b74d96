"""The integrator lab replays a run's inputs under another integrator side by side (issue 38):
``python main.py --replay FILE --lab NAME``. The world still reaches the bits recorded; a ghost
under the world's own integrator is the world to the bit; under another it parts from it, both
finite; every input (grabs, flings, drawing, bodies) reaches both worlds at the same tick."""
import json
import os
import subprocess
import sys

import numpy as np
import pygame
import pytest

from game import replay as replays
from game.app.loop import App
from game.lab_replay import LabPlayer, play_in_lab
from game.level import complete
from game.physics import bodies as world_bodies
from game.physics import journal as journal_module
from game.physics.world import World
from tests.app.test_app import frames, key
from tests.app.test_replay import LEVEL, SIZE, game, play_a_while  # noqa: F401 (game: a fixture)
from tests.conftest import COMPILED

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENV = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}


def _world(doc, execution="compiled"):
    return World.from_level(doc, execution=execution, compiled=COMPILED if execution == "compiled" else None)


def recorded_by_hand(ticks=240):
    """A run made through the world's own calls (as the game makes them), recorded: balls
    spawned and flung, a ball grabbed, carried and let go, a body grabbed and let go, a segment
    drawn, a ball deleted and put back, the flipper held; no integrator switch."""
    doc = complete(LEVEL)
    drawn = complete(dict(LEVEL, segments=[{"a": [1.0, 3.0], "b": [4.0, 2.5]}]))["segments"][0]   # as the game draws one
    world = _world(doc)
    replays.start(world)
    plan = {
        5: lambda w: w.add_ball((3.0, 6.0)),
        12: lambda w: w.add_ball((5.0, 7.0), (6.0, 2.0)),                 # a fling
        20: lambda w: w.grab(0, (4.0, 3.0)),
        30: lambda w: w.move_grab(plan_handles["ball"], (5.0, 4.5)),
        45: lambda w: w.release(plan_handles["ball"]),
        50: lambda w: world_bodies.grab(w, 0, (11.0, 5.0)),
        60: lambda w: world_bodies.move_grab(w, plan_handles["body"], (10.0, 6.0)),
        70: lambda w: world_bodies.release(w, plan_handles["body"]),
        80: lambda w: w.add_segments([drawn]),
        90: lambda w: plan_handles.__setitem__("taken", w.take_ball(1)),
        100: lambda w: w.put_back(plan_handles["taken"]),
        110: lambda w: w.press_flipper("left", True),
        130: lambda w: w.press_flipper("left", False),
    }
    plan_handles = {}
    for tick in range(ticks):
        if tick in plan:
            got = plan[tick](world)
            if tick == 20:
                plan_handles["ball"] = got
            if tick == 50:
                plan_handles["body"] = got
        world.step()
    replay = replays.checked(json.loads(json.dumps(replays.document(world, doc))))
    return replay, world.state_hash()


@pytest.fixture(scope="module")
def by_hand():
    return recorded_by_hand()


@pytest.mark.parametrize("execution", ["compiled", "numpy"])
def test_the_world_reaches_the_recorded_bits_in_the_lab_and_a_ghost_under_its_integrator_is_it(by_hand, execution):
    replay, state = by_hand
    report = play_in_lab(_world(replay["level"], execution), replay, replay["level"]["integrator"])
    assert report["world"]["match"] is True and report["world"]["state_hash"] == state
    assert report["ghost"]["state_hash"] == state and report["same_bits"] and report["gap"] == 0.0
    assert report["ghost"]["missed"] == 0


@pytest.mark.parametrize("integrator", ["euler", "semi-implicit", "verlet"])
def test_under_another_integrator_the_ghost_parts_from_the_world_and_both_stay_finite(by_hand, integrator):
    replay, state = by_hand
    report = play_in_lab(_world(replay["level"]), replay, integrator)
    world, ghost = report["world"], report["ghost"]
    assert world["match"] is True and world["state_hash"] == state and world["integrator"] == "rk4"
    assert ghost["integrator"] == integrator and ghost["state_hash"] != state and not report["same_bits"]
    assert world["finite"] and ghost["finite"] and report["gap"] > 0.0
    assert all(np.isfinite(v) for v in (world["energy"], ghost["energy"], world["energy_change"],
                                        ghost["energy_change"], *world["centre"], *ghost["centre"]))
    assert ghost["missed"] == 0 and ghost["balls"] == world["balls"] and ghost["bodies"] == world["bodies"]


def test_every_input_reaches_both_worlds_at_the_same_tick(by_hand, monkeypatch):
    """Each journaled call, wrapped: which world it was made on, at which tick, with what."""
    replay, _ = by_hand
    world = _world(replay["level"])
    ghost_of = {}
    made = {"world": [], "ghost": []}
    for name, fn in list(journal_module.REGISTRY.items()):
        def spy(w, *args, _fn=fn, _name=name, **kwargs):
            side = "world" if w is world else "ghost"
            if side == "ghost":
                ghost_of["ghost"] = w
            made[side].append((w.ticks, _name))
            return _fn(w, *args, **kwargs)
        monkeypatch.setitem(journal_module.REGISTRY, name, spy)
    report = play_in_lab(world, replay, "euler")
    assert report["world"]["match"] is True
    names = {name for _, name in made["world"]}
    assert {"add_ball", "grab", "move_grab", "release", "bodies.grab", "bodies.move_grab", "bodies.release",
            "add_segments", "take_ball", "put_back", "press_flipper"} <= names
    assert made["world"] == made["ghost"] == [(e[0], e[1]) for e in replay["inputs"]]
    ghost = ghost_of["ghost"]
    assert len(ghost.statics.a) == len(world.statics.a)             # the segment drawn, in both
    assert sorted(ghost.ids.tolist()) == sorted(world.ids.tolist())


def test_a_run_played_in_the_window_drives_both_worlds_and_the_world_keeps_its_bits(game, tmp_path):
    """play_a_while: spawns, a fling, a grab carried, a body spawned and grabbed, a delete and
    its undo, the flipper, an integrator switch (the world's alone), a segment drawn, gravity.
    (``game``: test_replay's window on its box level, its shots in tmp_path.)"""
    path = tmp_path / "replay_box.json"
    play_a_while(game)
    key(game, pygame.K_F5)
    replay = replays.load(next((tmp_path / "shots").glob("*.replay.json")))
    assert "integrator" in {e[1] for e in replay["inputs"]}
    report = play_in_lab(_world(replay["level"]), replay, "euler")
    assert report["world"]["match"] is True and report["ghost"]["integrator"] == "euler"
    assert report["ghost"]["finite"] and report["ghost"]["missed"] == 0
    assert report["ghost"]["balls"] == report["world"]["balls"] and report["ghost"]["bodies"] == report["world"]["bodies"]
    # The window: --replay FILE --lab euler, the same inputs into the lab's ghost as it plays.
    second = App(str(path), size=SIZE, doc=replay["level"], compiled=COMPILED)
    second.clock.budget = float("inf")
    said = []
    second.toast = said.append
    second.recording.play(replay, "euler")
    lab = second.play.lab
    assert lab is not None and lab.integrator == "euler" and second.play.show_energy
    frames(second, replay["ticks"] + 5)
    assert second.recording.player is None and "replay over: the same bits as recorded" in said
    assert second.play.lab is lab and lab.ghost.ticks == second.world.ticks
    assert sorted(lab.ghost.ids.tolist()) == sorted(second.world.ids.tolist()) and lab.gap() > 0.0
    assert lab.ghost.integrator == "euler" and len(lab.ghost.statics.a) == len(second.world.statics.a)


def test_the_lab_started_during_a_replay_takes_its_inputs_from_then_on(by_hand, tmp_path):
    replay, state = by_hand
    pygame.font.init()
    app = App(str(tmp_path / "box.json"), size=SIZE, doc=replay["level"], compiled=COMPILED)
    app.clock.budget = float("inf")
    app.recording.play(replay)
    frames(app, 40)                                   # past the ball grabbed at tick 20, still held
    assert 20 < app.world.ticks < 45 and app.play.lab is None
    key(app, pygame.K_g)                              # the lab: a ghost of the world now
    lab = app.play.lab
    assert lab is not None and lab.ghost.ticks == app.world.ticks
    frames(app, replay["ticks"])
    assert app.recording.player is None and app.play.lab is lab
    assert lab.ghost.ticks == app.world.ticks and sorted(lab.ghost.ids.tolist()) == sorted(app.world.ids.tolist())
    assert len(lab.ghost.statics.a) == len(app.world.statics.a)      # the segment drawn at tick 80
    assert not lab.ghost.grabs and not app.world.grabs              # the grab held at G let go in both


def test_the_ghost_names_the_ball_with_the_same_id_where_the_worlds_hold_it_elsewhere():
    """A ball the world still has but the ghost lost (a kill zone took it there sooner): the
    ghost's balls after it sit one place lower. A grab of the world's ball 2 grabs the ghost's
    ball of that id; a grab of the ball the ghost lost is missed, and so are its moves."""
    doc = complete(dict(LEVEL, balls=[{"pos": [2.0 + k, 4.0], "radius": 0.3} for k in range(4)], bodies=[]))
    world = _world(doc)
    ghost = world.copy()
    ghost.remove_balls([0])
    scratch = world.copy()                          # the handles the world's two grabs will give
    handles = [scratch.grab(2, (4.0, 5.0)), scratch.grab(0, (2.0, 5.0))]
    replay = {"ticks": 1, "state_hash": "0" * 64,
              "inputs": [[0, "grab", [2, [4.0, 5.0]], {}], [0, "grab", [0, [2.0, 5.0]], {}],
                         [0, "move_grab", [handles[1], [2.5, 5.0]], {}]]}
    player = LabPlayer(replay)
    player.before_tick(world, ghost)
    world_ball = world.ids[world.grabbed_ball(player.player.results[0])]
    ghost_handles = list(ghost.grabs)
    assert len(ghost_handles) == 1 and ghost.ids[ghost.grabbed_ball(ghost_handles[0])] == world_ball
    assert [m[:2] for m in player.missed] == [[1, "grab"], [2, "move_grab"]]
    assert len(world.grabs) == 2                    # the world's own calls as recorded


def _main(*args):
    return subprocess.run([sys.executable, os.path.join(ROOT, "main.py"), *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, env=ENV)


def test_the_command_line_reports_both_worlds_and_refuses_bad_arguments_in_a_line(by_hand, tmp_path):
    replay, state = by_hand
    path = tmp_path / "run.replay.json"
    path.write_text(json.dumps(dict(replay, level=LEVEL)))
    done = _main("--replay", str(path), "--lab", "euler", "--headless", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["world"]["match"] is True and report["world"]["state_hash"] == state
    assert report["ghost"]["integrator"] == "euler" and report["ghost"]["finite"] and report["gap"] > 0
    text = _main("--replay", str(path), "--lab", "verlet", "--headless")
    assert text.returncode == 0 and "the same bits as recorded" in text.stdout and "ghost verlet" in text.stdout
    for args, words in ((("--replay", str(path), "--lab", "leapfrog", "--headless"), "--lab: expected one of"),
                        (("--lab", "euler", "--headless"), "expected --replay FILE"),
                        (("--replay", str(path), "--lab", "euler", "--clip", str(tmp_path / "c.gif")), "no --clip")):
        bad = _main(*args)
        lines = bad.stderr.splitlines()
        assert bad.returncode == 2 and len(lines) == 1 and words in lines[0] and "Traceback" not in bad.stderr
