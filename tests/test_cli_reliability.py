"""Issue 28, items 8, 10, 11, 12: the command line refuses what it cannot do in one line,
before spending time; a blown-up world is reported as such by the game's own test, on
both executions at the same tick; a failed save never hides the report."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from game import defaults
from game.defaults import TICK
from game.level import loads
from game.modes.play_rules import world_is_finite
from game.physics.world import World

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CRADLE = os.path.join(ROOT, "levels", "06_cradle.json")
ENV = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
ENV.pop("PYGAME_HIDE_SUPPORT_PROMPT", None)       # the program itself must keep pygame quiet

# Two balls on a spring under Euler: omega h = 2.5 at the sub-step, the swing grows 2.7 times
# a sub-step: past 1e6 m/s by the third tick, finite (not yet inf) for dozens more.
STIFF = {"name": "Stiff spring", "integrator": "euler", "gravity": [0, 0], "bounds": [0, 0, 16, 9],
         "segments": [{"a": [0, 0], "b": [16, 0]}],
         "balls": [{"pos": [6, 4.5], "radius": 0.25}, {"pos": [9, 4.5], "radius": 0.25}],
         "springs": [{"a": 0, "b": 1, "stiffness": 35300, "damping": 0, "rest": 2.5}]}
# A chain on stiff springs under Verlet in a box: before, numpy and compiled parted once it
# blew up (different escaped, different hash).
BOX = [{"a": [0, 0], "b": [32, 0]}, {"a": [32, 0], "b": [32, 18]}, {"a": [32, 18], "b": [0, 18]},
       {"a": [0, 18], "b": [0, 0]}]
VERLET_CHAIN = {"name": "chain", "integrator": "verlet", "segments": BOX,
                "balls": [{"pos": [10, 1]}, {"pos": [10.6, 1.3]}],
                "springs": [{"a": 0, "b": 1, "stiffness": 1e6, "rest": 0.2}]}


def run(*args, cwd=ROOT):
    return subprocess.run([sys.executable, os.path.join(ROOT, "main.py"), *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300, env=ENV)


def one_line(result, code):
    assert result.returncode == code, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("main.py: "), result.stderr
    return lines[0]


def write(tmp_path, name, doc):
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


# ---- 8: --save onto the level being run ----------------------------------------------------

@pytest.mark.parametrize("how", ["same path", "another spelling", "a symlink", "a hard link"])
def test_save_onto_the_level_being_run_is_refused_and_the_file_kept(tmp_path, how):
    level = tmp_path / "mine.json"
    text = json.dumps({"segments": BOX, "spawners": [{"pos": [5, 5]}], "_comment": "keep me"})
    level.write_text(text)
    target = {"same path": str(level), "another spelling": str(tmp_path / "." / "mine.json")}.get(how)
    if how == "a symlink":
        target = str(tmp_path / "link.json")
        os.symlink(level, target)
    elif how == "a hard link":
        target = str(tmp_path / "hard.json")
        os.link(level, target)
    result = run("--headless", "--level", str(level), "--steps", "5", "--save", target)
    assert "refusing to overwrite the level being run" in one_line(result, 2)
    assert result.stdout == "" and level.read_text() == text


# ---- 10: a blown-up world is not finite -------------------------------------------------------

def test_a_world_past_the_formats_speeds_is_blown_up_for_the_game_and_the_report(tmp_path):
    w = World.from_level(loads(json.dumps(STIFF)), execution="numpy")
    for _ in range(3):
        w.step(TICK)
    assert np.isfinite(w.vel).all() and np.abs(w.vel).max() > defaults.SPEED_LIMIT
    assert not world_is_finite(w)
    result = run("--headless", "--level", str(write(tmp_path, "stiff.json", STIFF)), "--steps", "5", "--json",
                 "--solver", "numpy")
    report = json.loads(result.stdout)
    assert report["finite"] is False and report["steps"] == 3


def test_save_of_a_blown_up_world_prints_the_report_and_refuses_in_one_line(tmp_path):
    out = tmp_path / "out.json"
    result = run("--headless", "--level", str(write(tmp_path, "stiff.json", STIFF)), "--steps", "5", "--json",
                 "--save", str(out), "--solver", "numpy")
    line = one_line(result, 1)
    assert line.startswith("main.py: --save: nothing saved") and "blew up" in line
    assert json.loads(result.stdout)["finite"] is False
    assert not out.exists()


def test_a_save_that_fails_still_prints_the_report(tmp_path, monkeypatch, capsys):
    from types import SimpleNamespace
    from game import headless
    from game.level import LevelError

    def full_disk(doc, path):
        raise LevelError(path, "cannot write: No space left on device")
    monkeypatch.setattr(headless, "save", full_disk)
    args = SimpleNamespace(level=CRADLE, steps=2, integrator=None, json=True, save=str(tmp_path / "o.json"),
                           execution="numpy")
    assert headless.run_headless(args) == 2
    captured = capsys.readouterr()
    assert json.loads(captured.out)["steps"] == 2
    assert captured.err.startswith("main.py: --save:") and captured.err.count("\n") == 1


# ---- 11: both executions stop at the same tick with the same report -------------------------

@pytest.mark.parametrize("scene", [STIFF, VERLET_CHAIN], ids=["euler spring", "verlet chain"])
def test_both_executions_stop_at_the_same_tick_with_the_same_report(tmp_path, scene):
    path = write(tmp_path, "scene.json", scene)
    reports = []
    for execution in ("numpy", "compiled"):
        result = run("--headless", "--level", str(path), "--steps", "120", "--json", "--solver", execution)
        assert result.returncode == 0, result.stderr
        report = json.loads(result.stdout)
        reports.append({k: v for k, v in report.items() if k not in ("ms_per_step", "execution")})
    assert reports[0]["finite"] is False
    assert reports[0] == reports[1]
    # and it stopped at the first tick the game's test trips (stepped here on numpy)
    w = World.from_level(loads(json.dumps(scene)), execution="numpy")
    ticks = 0
    while not w.blown_up():
        w.step(TICK)
        ticks += 1
    assert reports[0]["steps"] == ticks and reports[0]["state_hash"] == w.state_hash()


# ---- 12: small ones -------------------------------------------------------------------------

@pytest.mark.parametrize("size", ["1_280x720", " 1280x720", "1280 x 720", "１２８０x720", "1280x720 ", "+1280x720"])
def test_size_takes_ascii_digits_only_as_steps_does(size):
    assert "--size" in one_line(run("--headless", "--steps", "0", "--size", size), 2)


def test_size_still_takes_a_plain_size(tmp_path):
    out = tmp_path / "shot.png"
    result = run("--screenshot", str(out), "--level", CRADLE, "--steps", "0", "--size", "320X180")
    assert result.returncode == 0, result.stderr
    import pygame
    assert pygame.image.load(str(out)).get_size() == (320, 180)


@pytest.mark.parametrize("flag", ["--execution", "--solver"])
def test_an_empty_execution_name_is_refused(flag):
    line = one_line(run("--headless", "--level", CRADLE, "--steps", "1", flag, ""), 2)
    assert "expected one of compiled, numpy, got ''" in line


@pytest.mark.parametrize("name, ok", [("shot.gif", False), ("shot", False), ("shot.PNG", True), ("shot.bmp", True)])
def test_screenshot_extension_names_the_format_or_is_refused(tmp_path, name, ok):
    out = tmp_path / name
    result = run("--screenshot", str(out), "--level", CRADLE, "--steps", "0", "--size", "320x180")
    if ok:
        assert result.returncode == 0, result.stderr
        magic = {".png": b"\x89PNG", ".bmp": b"BM"}[os.path.splitext(name)[1].lower()]
        assert out.read_bytes().startswith(magic)
    else:
        assert "expected a file name ending in .png" in one_line(result, 2)
        assert not out.exists()


def test_screenshot_checks_its_folder_before_simulating(tmp_path, monkeypatch):
    from types import SimpleNamespace
    from game.app import loop as app_module
    stepped = []
    monkeypatch.setattr(app_module, "App", lambda *a, **k: stepped.append(1))
    args = SimpleNamespace(screenshot=str(tmp_path / "no" / "such" / "shot.png"), level=CRADLE, steps=10**6,
                           size=(320, 180))
    assert app_module.screenshot(args) == 2 and stepped == []


def test_edit_on_a_new_file_prints_nothing_on_stdout(tmp_path):
    """pygame prints a banner when imported; --edit imports it to write the template. (The
    game's window is a stub here: game.app stands in an inert module, so pygame is first
    imported where --edit would import it.)"""
    new = tmp_path / "new.json"
    code = ("import runpy, sys, types, game; fake = types.ModuleType('game.app.loop'); fake.run = lambda args: 0;"
            "sys.modules['game.app.loop'] = fake; sys.argv = ['main.py', '--edit', %r];"
            "runpy.run_path(%r, run_name='__main__')") % (str(new), os.path.join(ROOT, "main.py"))
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                            env=ENV)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "" and new.exists()


# ---- issue 37: snapshot keys and moving walls the tick cannot follow -------------------------

FLOOR37 = [{"a": [0, 0], "b": [10, 0]}]
SLIDE37 = {"a": [2, 3], "b": [5, 3], "motion": {"kind": "slide", "to": [0, 2], "period": 5e-324}}


@pytest.mark.parametrize("doc, tail", [
    ({"segments": FLOOR37, "_time": "set by hand"}, '_time: expected a number from 0 to 1000000000, got "set by hand"'),
    ({"segments": FLOOR37, "_time": [1, 2]}, "_time: expected a number from 0 to 1000000000, got [1, 2]"),
    ({"segments": FLOOR37, "_time": "nan"}, '_time: expected a number from 0 to 1000000000, got "nan"'),
    ({"segments": FLOOR37, "_flippers": {"left": 1}}, '_flippers: expected a list, got {"left": 1}'),
    ({"segments": FLOOR37 + [SLIDE37]},
     "segments[1].motion.period: expected a number from 0.1 to 1000000 (at least 6 ticks of 1/60 s: the tick cannot "
     "follow a faster slide), got 5e-324"),
    ({"segments": FLOOR37 + [{"a": [2, 3], "b": [5, 3], "motion": {"kind": "rotate", "pivot": [3, 3], "spede": 2}}]},
     'segments[1].motion.spede: expected one of the keys kind, pivot, speed or a comment key starting with "_", '
     'got the unknown key "spede" (did you mean "speed"?)')],
    ids=["time words", "time list", "time nan", "flippers object", "period 5e-324", "spede"])
def test_check_and_headless_refuse_a_bad_snapshot_key_or_wall_in_one_line(tmp_path, doc, tail):
    """Were "internal error: ValueError" / TypeError, exit 1 (the words, the list), a NaN
    clock printed as NaN by --json, or a NaN wall (5e-324), exit 0."""
    path = write(tmp_path, "bad.json", dict(doc, balls=[{"pos": [3, 5]}]))
    check = run("--check", str(path))
    assert check.returncode == 2 and "Traceback" not in check.stderr
    assert check.stderr.splitlines() == [f"{path}:1:{check.stderr.split(':')[2]}: {tail}"]
    line = one_line(run("--headless", "--level", str(path), "--steps", "5", "--json"), 2)
    assert line.startswith(f"main.py: {path}:1:") and line.endswith(f": {tail}")
