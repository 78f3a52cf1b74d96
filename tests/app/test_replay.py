"""Replays and clips (issue 38): a run kept as its level and the player's inputs plays back to
the same bits on both executions, in the window and headless; a replay changed by hand is
caught; a clip has the frames and the size it should."""
import argparse
import json

import numpy as np
import pygame
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game import replay as replays
from game.app.loop import App
from game.app.offscreen import clip_offscreen
from game.clip import CLIP_FPS, TICKS_PER_FRAME
from game.goals import player_body
from game.level import complete
from game.physics import bodies as world_bodies
from game.physics import body_hand
from game.physics.world import World
from tests.app.test_app import click, drag, frames, key, _post
from tests.conftest import COMPILED

SIZE = (800, 450)

LEVEL = {
    "name": "Replay box",
    "integrator": "rk4",
    "bounds": [0, 0, 16, 9],
    "polylines": [{"points": [[0, 9], [0, 0], [16, 0], [16, 9]]}],
    "segments": [{"a": [9, 3], "b": [13, 2], "motion": {"kind": "flipper", "pivot": [9, 3], "angle": 0.6,
                                                        "speed": 10, "key": "left"}}],
    "balls": [{"pos": [4, 0.5], "radius": 0.5}, {"pos": [6, 2], "radius": 0.4}],
    "bodies": [{"shape": "box", "center": [11, 5], "size": [1.2, 0.6]}],
}


@pytest.fixture
def game(tmp_path):
    path = tmp_path / "replay_box.json"
    path.write_text(json.dumps(LEVEL))
    pygame.font.init()
    g = App(str(path), size=SIZE, level_dir=str(tmp_path), screenshot_dir=str(tmp_path / "shots"),
            compiled=COMPILED)
    g.clock.budget = float("inf")
    assert g.session.error == ""
    return g


def ctrl(g, k):
    _post(g, pygame.KEYDOWN, key=k, mod=pygame.KMOD_CTRL, unicode="", scancode=0)


def play_a_while(g):
    """A player's minute, shortened: spawns, a fling, a grab carried and let go, a body
    spawned and grabbed, a delete and its undo, a flipper held, an integrator switch, a
    segment drawn, the gravity changed, with ticks between."""
    screen = g.camera.world_to_screen
    frames(g, 10)
    click(g, (200, 150))
    frames(g, 7)
    drag(g, (300, 120), (360, 100))                     # a fling
    frames(g, 11)
    ball = g.world.pos[0]
    sx, sy = (int(v) for v in screen(ball))
    drag(g, (sx, sy), (sx + 40, sy - 60), release=False)   # grab the first ball and hold it up
    frames(g, 9)
    _post(g, pygame.MOUSEMOTION, pos=(sx + 60, sy - 80), rel=(0, 0), buttons=(1, 0, 0))
    frames(g, 5)
    _post(g, pygame.MOUSEBUTTONUP, pos=(sx + 60, sy - 80), button=1)
    key(g, pygame.K_v)                                  # the left button adds boxes
    click(g, (250, 200))
    frames(g, 8)
    bx, by = (int(v) for v in screen(g.world.bodies.pos[0]))
    drag(g, (bx, by), (bx - 30, by - 30), release=False)   # grab the level's box
    frames(g, 6)
    _post(g, pygame.MOUSEBUTTONUP, pos=(bx - 30, by - 30), button=1)
    frames(g, 4)
    cx, cy = (int(v) for v in screen(g.world.pos[1]))
    click(g, (cx, cy), button=3)                        # delete a ball...
    frames(g, 3)
    ctrl(g, pygame.K_z)                                 # ...and it comes back
    _post(g, pygame.KEYDOWN, key=pygame.K_z, mod=0, unicode="z", scancode=0)    # the flipper up
    frames(g, 12)
    _post(g, pygame.KEYUP, key=pygame.K_z, mod=0, unicode="z", scancode=0)
    key(g, pygame.K_i)                                  # another integrator
    frames(g, 6)
    key(g, pygame.K_w)                                  # draw a segment
    drag(g, (100, 300), (300, 330))
    g.world.set_gravity((1.5, -9.0))                    # what the settings' slider calls
    frames(g, 20)


def test_a_run_played_in_the_window_replays_to_the_same_bits_on_both_executions(game, tmp_path):
    play_a_while(game)
    world = game.session.world
    names = {entry[1] for entry in world.journal.entries}
    assert {"add_ball", "grab", "move_grab", "release", "bodies.add", "bodies.grab", "bodies.release",
            "take_ball", "put_back", "press_flipper", "integrator", "add_segments", "set_gravity"} <= names
    key(game, pygame.K_F5)
    saved = list((tmp_path / "shots").glob("*.replay.json"))
    assert len(saved) == 1
    replay = replays.load(saved[0])
    assert replay["ticks"] == world.ticks > 100 and replay["state_hash"] == world.state_hash()
    for execution in ("compiled", "numpy"):
        report = replays.play(World.from_level(replay["level"], execution=execution), replay)
        assert report["match"] is True, execution
        assert report["state_hash"] == world.state_hash()


def test_a_replay_plays_in_the_window_and_says_it_came_out_the_same(game, tmp_path):
    play_a_while(game)
    key(game, pygame.K_F5)
    replay = replays.load(next((tmp_path / "shots").glob("*.replay.json")))
    want = game.session.world.state_hash()
    pygame.font.init()
    second = App(str(tmp_path / "replay_box.json"), size=SIZE, doc=replay["level"], compiled=COMPILED)
    second.clock.budget = float("inf")
    second.recording.play(replay)
    said = []
    second.toast = said.append
    frames(second, replay["ticks"] // 2)
    assert second.recording.player is not None          # still playing
    frames(second, replay["ticks"])
    assert second.recording.player is None
    assert said[-1] == "replay over: the same bits as recorded"
    assert second.play.drawn == game.play.drawn != []      # the segment drawn counts as drawn (HUD, R)
    assert second.session.world.ticks > replay["ticks"]   # the world goes on for the player
    assert replays.play(World.from_level(replay["level"], execution="compiled"), replay)["state_hash"] == want


def test_a_replay_changed_by_hand_is_caught(game, tmp_path, capsys):
    from game.headless import run_replay
    play_a_while(game)
    key(game, pygame.K_F5)
    path = next((tmp_path / "shots").glob("*.replay.json"))
    data = json.loads(path.read_text())
    args = argparse.Namespace(replay=str(path), json=True, integrator=None, execution="compiled")
    assert run_replay(args) == 0
    assert json.loads(capsys.readouterr().out)["match"] is True
    # One number moved by a millimetre: the same inputs otherwise, another world at the end.
    flung = next(e for e in data["inputs"] if e[1] == "add_ball")[2][0]
    flung = flung["$array"] if isinstance(flung, dict) else flung          # the point clicked, (2,) m
    flung[0] += 0.001
    path.write_text(json.dumps(data))
    assert run_replay(args) == 1
    assert json.loads(capsys.readouterr().out)["match"] is False
    # Under another integrator the switches recorded are left out and nothing is compared.
    flung[0] -= 0.001
    path.write_text(json.dumps(data))
    assert run_replay(argparse.Namespace(**{**vars(args), "integrator": "euler"})) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["match"] is None and report["integrator"] == "euler"
    assert report["state_hash"] != report["recorded_hash"]
    # Files that are not replays, or inputs that cannot be made: one line, exit 2.
    for broken in ('{"format": "ballpit-replay", "version": 1}', "[1, 2", "",
                   json.dumps({**data, "inputs": [[0, "os.system", ["ls"], {}]]}),
                   json.dumps({**data, "inputs": [[5, "grab", [], {}]]}),
                   json.dumps({**data, "inputs": [[9, "add_ball", [[1, 1]], {}], [3, "add_ball", [[1, 1]], {}]]}),
                   json.dumps({**data, "ticks": -1}),
                   json.dumps({**data, "level": {"bounds": "wide"}})):
        path.write_text(broken)
        assert run_replay(args) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("main.py: ") and "\n" not in err and "Traceback" not in err


ACTIONS = st.lists(st.tuples(st.integers(0, 40), st.sampled_from(
    ["ball", "grab", "move", "release", "box", "take", "put", "flip", "integrator"]),
    st.floats(1.0, 15.0), st.floats(1.0, 8.0)), max_size=12)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ACTIONS)
def test_any_calls_the_player_makes_replay_to_the_same_bits(actions):
    """Hypothesis: whatever journaled calls come at whatever ticks, in any order (a grab of a
    ball deleted meanwhile, a put back of nothing taken), the replay reaches the bits."""
    doc = complete(LEVEL)
    world = World.from_level(doc, execution="compiled", compiled=COMPILED)
    replays.start(world)
    handles, records = [], []
    for ticks, what, x, y in sorted(actions, key=lambda a: a[0]):
        while world.ticks < ticks:
            world.step()
        if what == "ball":
            world.add_ball((x, y), (y - 4, x - 8), radius=0.3, spin=x)
        elif what == "grab" and world.count:
            handles.append(world.grab(int(x) % world.count, (x, y)))
        elif what == "move" and handles:
            world.move_grab(handles[-1], np.array([x, y]))
        elif what == "release" and handles:
            world.release(handles.pop())
        elif what == "box":
            world_bodies.add(world, [player_body("box", (x, y), world.material, (0.0, 0.0), y)])
        elif what == "take" and len(world.bodies):
            records.append(body_hand.take(world, int(x) % len(world.bodies)))
        elif what == "put" and records:
            body_hand.put_back(world, records.pop())
        elif what == "flip":
            world.press_flipper("left", x > 8)
        elif what == "integrator":
            world.integrator = ("euler", "rk4", "semi-implicit", "verlet")[int(x) % 4]
    for _ in range(5):
        world.step()
    replay = replays.checked(json.loads(json.dumps(replays.document(world, doc))))
    report = replays.play(World.from_level(replay["level"], execution="compiled", compiled=COMPILED), replay)
    assert report["match"] is True


def test_a_clip_offscreen_has_a_frame_every_three_ticks_at_half_the_size(tmp_path, capsys):
    from PIL import Image
    level = tmp_path / "box.json"
    level.write_text(json.dumps(LEVEL))
    out = tmp_path / "clip.gif"
    args = argparse.Namespace(clip=str(out), level=str(level), replay=None, steps=30, size=SIZE)
    assert clip_offscreen(args) == 0
    assert "11 frames of 400x225" in capsys.readouterr().out
    with Image.open(out) as gif:
        assert gif.size == (400, 225) and gif.n_frames == 30 // TICKS_PER_FRAME + 1
        assert gif.info["duration"] == 1000 // CLIP_FPS
        first = np.asarray(gif.convert("RGB")).copy()
        gif.seek(gif.n_frames - 1)
        last = np.asarray(gif.convert("RGB"))
    assert (first != last).any()                        # the second ball fell
    for bad in (str(tmp_path / "nowhere" / "c.gif"), str(tmp_path)):
        assert clip_offscreen(argparse.Namespace(**{**vars(args), "clip": bad})) == 2
    assert clip_offscreen(argparse.Namespace(**{**vars(args), "steps": 100_000})) == 2


def test_f9_records_the_next_seconds_into_a_gif_written_beside_the_screenshots(game, tmp_path):
    from PIL import Image
    surface = pygame.Surface(SIZE)
    said = []
    game.toast = said.append
    game.recording.toggle_clip(seconds=1.0)
    for _ in range(80):                  # more than 60 ticks: the clip stops by itself at 20 frames
        frames(game, 1)
        game.draw(surface)
    assert game.recording.clip is None
    game.recording.writing.join(30)
    frames(game, 1)
    assert said[-1].startswith("clip saved: ")
    path, = (tmp_path / "shots").glob("*.gif")
    with Image.open(path) as gif:
        assert gif.size == (400, 225) and gif.n_frames == CLIP_FPS
    game.clock.paused = True             # paused: no frames come, and F9 says so
    game.recording.toggle_clip()
    for _ in range(5):
        frames(game, 1)
        game.draw(surface)
    game.recording.toggle_clip()
    assert said[-1] == "no clip: the world did not run"


def test_what_the_world_does_by_itself_is_not_journaled_and_replays_with_the_players_hand():
    """Level 15's spawner adds balls and its lava takes them: the world's own doing, made again
    by the replay's steps (written down too, they would come twice); the player's segment is."""
    from game.level import load
    doc = load("levels/15_lava_floor.json")
    world = World.from_level(doc, execution="compiled", compiled=COMPILED)
    replays.start(world)
    count = world.count
    for _ in range(240):
        world.step()
    assert world.journal.entries == [] and world.count != count
    world.add_segments([{**doc["segments"][0], "a": [2.0, 6.0], "b": [6.0, 5.0]}])
    for _ in range(240):
        world.step()
    assert [e[1] for e in world.journal.entries] == ["add_segments"]
    replay = replays.checked(json.loads(json.dumps(replays.document(world, doc))))
    assert replays.play(World.from_level(replay["level"], execution="numpy"), replay)["match"] is True


@pytest.mark.parametrize("name, executions", [("pinball", ("compiled", "numpy")), ("puzzle_solved", ("compiled",))])
def test_the_shipped_replays_reach_the_bits_they_were_recorded_with(name, executions):
    """docs/replays (tools/make_clips.py, the README's clips): a change to the engine that moves
    a bit shows here, as the shipped levels' hashes show it (tools/level_hashes.py)."""
    replay = replays.load(f"docs/replays/{name}.replay.json")
    for execution in executions:
        world = World.from_level(replay["level"], execution=execution, compiled=COMPILED)
        assert replays.play(world, replay)["match"] is True, execution


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="named pipes are POSIX")
def test_a_pipe_or_a_folder_named_as_a_replay_is_refused_in_a_line_not_waited_on(tmp_path, capsys):
    """The replay is read as a level is (game.level.read.read_file): a named pipe would have
    blocked a plain open() for ever."""
    import os
    from game.headless import run_replay
    pipe = tmp_path / "pipe.replay.json"
    os.mkfifo(pipe)
    for path, words in ((pipe, "named pipe"), (tmp_path, "got a folder")):
        args = argparse.Namespace(replay=str(path), json=True, integrator=None, execution="compiled")
        assert run_replay(args) == 2
        err = capsys.readouterr().err.strip()
        assert words in err and "\n" not in err
