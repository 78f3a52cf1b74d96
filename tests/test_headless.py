"""python main.py --headless: the JSON report, --save, and one-line errors with exit code 2."""
import json
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

from game import headless
from game.level import load

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CRADLE = os.path.join(ROOT, "levels", "06_cradle.json")
KEYS = {"execution", "steps", "balls", "ms_per_step", "energy_start", "energy_end", "kinetic_end", "escaped", "crossed", "max_overlap",
        "finite", "state_hash"}

pytest.importorskip("game.physics.world")


def run(*args, cwd=ROOT):
    return subprocess.run([sys.executable, os.path.join(ROOT, "main.py"), *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def one_line_error(result):
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("main.py: ")
    return lines[0]


def test_json_report_has_every_key_with_sensible_values():
    result = run("--headless", "--level", CRADLE, "--steps", "30", "--json")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    report = json.loads(result.stdout)
    assert KEYS <= set(report)
    assert report["steps"] == 30 and report["balls"] == 7
    assert report["finite"] is True and report["escaped"] == 0
    assert report["ms_per_step"] > 0 and 0 <= report["max_overlap"] < 0.01
    assert report["kinetic_end"] > 0 and report["energy_end"] == pytest.approx(report["energy_start"], rel=0.01)
    assert len(report["state_hash"]) == 64 and int(report["state_hash"], 16) >= 0
    assert report["integrator"] == "rk4" and report["name"] == "Newton's cradle"
    assert result.stdout.count("\n") == 1, "one JSON object on one line"


def test_same_level_same_hash_across_processes_and_integrator_option():
    first = json.loads(run("--headless", "--level", CRADLE, "--steps", "20", "--json").stdout)
    second = json.loads(run("--headless", "--level", CRADLE, "--steps", "20", "--json").stdout)
    assert first["state_hash"] == second["state_hash"]
    euler = json.loads(run("--headless", "--level", CRADLE, "--steps", "20", "--json", "--integrator", "euler").stdout)
    assert euler["integrator"] == "euler" and euler["state_hash"] != first["state_hash"]


def test_the_numpy_solver_gives_the_compiled_solver_s_hash():
    compiled = json.loads(run("--headless", "--level", CRADLE, "--steps", "120", "--json").stdout)
    numpy = json.loads(run("--headless", "--level", CRADLE, "--steps", "120", "--json", "--solver", "numpy").stdout)
    assert numpy["execution"] == "numpy" and compiled["execution"] in ("compiled", "numpy")
    assert numpy["state_hash"] == compiled["state_hash"]


def test_without_a_level_it_runs_the_first_level_and_prints_a_summary():
    result = run("--headless", "--steps", "5")
    assert result.returncode == 0, result.stderr
    first = sorted(n for n in os.listdir(os.path.join(ROOT, "levels")) if n.endswith(".json")
                   and not n.endswith(".schema.json"))[0]
    assert first in result.stdout and "5 steps" in result.stdout and "state " in result.stdout
    assert load(os.path.join(ROOT, "levels", first))["name"] in result.stdout


def test_save_writes_a_level_that_loads_and_resumes(tmp_path):
    out = tmp_path / "snapshot.json"
    result = run("--headless", "--level", CRADLE, "--steps", "40", "--json", "--save", str(out))
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    doc = load(out)
    assert len(doc["balls"]) == report["balls"] == 7
    assert out.read_text().startswith('{\n  "$schema": "./level.schema.json",')
    resumed = json.loads(run("--headless", "--level", str(out), "--steps", "0", "--json").stdout)
    assert resumed["state_hash"] == report["state_hash"], "the snapshot holds the final state exactly"


def test_a_bad_level_is_one_line_with_its_position(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "segments": [\n    {"a": [0, 0], "b": [1, "a"]}\n  ]\n}\n')
    line = one_line_error(run("--headless", "--level", str(bad), "--steps", "5"))
    assert line == f'main.py: {bad}:3:24: segments[0].b: expected [x, y], got [1, "a"]'


@pytest.mark.parametrize("args, needle", [
    (("--level", "no/such/level.json"), "no/such/level.json: cannot read: no such file"),
    (("--integrator", "leapfrog"), "--integrator: expected one of euler, semi-implicit, verlet, rk4, got 'leapfrog'"),
    (("--solver", "gpu"), "--solver: expected one of compiled, numpy, got 'gpu'"),
    (("--steps", "-3"), "--steps"),
    (("--steps", "many"), "expected a whole number, got 'many'"),
    (("--save", "/no/such/folder/out.json"), "--save: cannot write /no/such/folder/out.json: no such folder"),
    (("--save", "."), "--save: expected a file name, got the folder ."),
    (("--bogus",), "unrecognized arguments: --bogus"),
], ids=["missing level", "unknown integrator", "unknown solver", "negative steps", "steps not a number", "save folder missing",
        "save to a folder", "unknown option"])
def test_bad_arguments_are_one_line_and_exit_2(args, needle):
    line = one_line_error(run("--headless", "--level", CRADLE, "--steps", "1", *args)
                          if "--level" not in args else run("--headless", "--steps", "1", *args))
    assert needle in line, line


# In-process: the boundary of run_headless.

def args(**kw):
    base = dict(level=CRADLE, steps=3, integrator=None, json=True, save=None)
    base.update(kw)
    return SimpleNamespace(**base)


def test_an_internal_error_is_one_line_and_exit_1(monkeypatch, capsys):
    import game.physics.world

    def broken(doc, **options):
        raise ZeroDivisionError("oops\nsecond line")

    monkeypatch.setattr(game.physics.world.World, "from_level", staticmethod(broken))
    assert headless.run_headless(args()) == 1
    err = capsys.readouterr().err
    assert err == "main.py: internal error: ZeroDivisionError: oops\n"


def test_a_world_that_blows_up_stops_early_and_reports_null_energies(monkeypatch, capsys):
    import numpy as np
    import game.physics.world
    real_step = game.physics.world.World.step

    def exploding(self, dt=1 / 60):
        real_step(self, dt)
        self.vel = np.full_like(self.vel, np.inf)

    monkeypatch.setattr(game.physics.world.World, "step", exploding)
    assert headless.run_headless(args(steps=10)) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["finite"] is False and report["steps"] == 1 and report["steps_requested"] == 10
    assert report["energy_end"] is None and report["kinetic_end"] is None


def test_save_of_a_world_that_blew_up_writes_nothing_and_exits_1(monkeypatch, capsys, tmp_path):
    import numpy as np
    import game.physics.world
    real_step = game.physics.world.World.step

    def exploding(self, dt=1 / 60):
        real_step(self, dt)
        self.pos = np.full_like(self.pos, np.nan)

    monkeypatch.setattr(game.physics.world.World, "step", exploding)
    out = tmp_path / "out.json"
    assert headless.run_headless(args(save=str(out))) == 1
    captured = capsys.readouterr()
    assert json.loads(captured.out)["finite"] is False
    assert captured.err.startswith("main.py: --save: nothing saved") and captured.err.count("\n") == 1
    assert not out.exists()


def test_zero_steps_is_fine(capsys):
    assert headless.run_headless(args(steps=0)) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["steps"] == 0 and report["ms_per_step"] is None and report["finite"] is True


# python main.py --compile: the README's install fills numba's cache before the first launch.

def compile_calls(monkeypatch, results):
    """accel.compile_in_child replaced by one that answers ``results`` in turn and notes its calls."""
    from game.physics.compiled import loader as accel
    calls = []

    def fake(**kw):
        calls.append(kw)
        return results[len(calls) - 1]

    monkeypatch.setattr(accel, "compile_in_child", fake)
    monkeypatch.delenv("BALLPIT_NUMPY", raising=False)
    return calls


def test_compile_fills_the_kernels_then_the_one_call_tick_and_says_each_in_a_line(monkeypatch, capsys):
    import main
    calls = compile_calls(monkeypatch, [True, True])
    assert main.main(["--compile"]) == 0
    assert calls == [{"also": ("game.draw.sprites",)}, {"stage": "_step_kernels"}]
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and all(line.startswith("main.py: ") for line in lines), lines
    assert "full speed" in lines[-1]


@pytest.mark.parametrize("results, needle", [([False], "numpy path"), ([True, False], "kernels one by one")],
                         ids=["kernels fail", "tick fails"])
def test_compile_that_cannot_says_how_the_game_plays_and_exits_0(monkeypatch, capsys, results, needle):
    """Exit 0: the README chains the game after it, and the game plays without the cache."""
    import main
    calls = compile_calls(monkeypatch, results)
    assert main.main(["--compile"]) == 0
    assert len(calls) == len(results)               # no tick without the kernels
    out = capsys.readouterr().out
    assert needle in out.splitlines()[-1] and "full speed" not in out


def test_compile_under_ballpit_numpy_compiles_nothing(monkeypatch, capsys):
    import main
    calls = compile_calls(monkeypatch, [])
    monkeypatch.setenv("BALLPIT_NUMPY", "1")
    assert main.main(["--compile"]) == 0
    assert calls == [] and "nothing to compile" in capsys.readouterr().out


def test_the_readme_install_command_compiles_for_real():
    """The command itself, in a child: the cache is warm here (conftest filled it), so its
    children only load; where numba is missing it must still exit 0 with one line."""
    result = run("--compile")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    from tests.conftest import KERNELS
    if KERNELS is not None:
        assert "full speed" in result.stdout.splitlines()[-1], result.stdout
