"""Run a level without a window: ``python main.py --headless --level FILE --steps N [--json]``.

Steps the world ``steps`` fixed ticks of 1/60 s, timing each step, and reports on stdout:
with ``--json`` one JSON object (``steps``, ``balls``, ``ms_per_step`` (median),
``energy_start``, ``energy_end``, ``kinetic_end`` (joules), ``escaped``, ``crossed`` (times a
ball's centre went through a wall or into a polygon, World.crossings), ``max_overlap``
(metres), ``finite``, ``state_hash``, ``execution`` (the execution that ran: "compiled" or
"numpy", the same bits), plus ``level``, ``name``, ``integrator``,
``steps_requested`` and ``time`` (simulated seconds), and ``goal`` where the level has goal
zones: ``inside`` and ``needed`` balls at the end, ``complete`` (the goal was held at some
tick: ``count`` balls inside each goal zone for its ``hold`` seconds, game.goals),
``complete_at`` (simulated seconds, null if never; the game's banner says the same) and
``held`` (the goal is held at the end)); without it a short summary for a
person. ``--save OUT.json`` writes the final world as a level (never over the level being
run). Stepping stops early (and ``finite`` is false) at the first tick after which the
world has blown up (``World.blown_up``, the game's test: a number not finite, or a speed or
position beyond what the level format holds): nothing after that means anything, and both
executions stop at that same tick.

Exit codes: 0 done; 2 a bad argument, level or output path (one line on stderr); 1 an
internal error (one line naming it), or ``--save`` of a world that blew up or does not
make a valid level (nothing is written). The report is printed before the save, so a save
that fails never hides it. No traceback ever reaches the user.
"""
import json
import math
import os
import statistics
import sys
import time

import numpy as np

from game import paths
from game.defaults import TICK
from game.level import LevelError, level_files, load, save
from game.goals import GoalTracker, goal_inside

DEFAULT_STEPS = 600             # ticks: ten simulated seconds
PROG = "main.py"


class _BadInput(Exception):
    """A problem with what the user gave us: one line, exit code 2."""


def run_headless(args):
    """Run ``args.level`` for ``args.steps`` ticks; print the report; return the exit code."""
    try:
        return _run(args)
    except _BadInput as e:
        _fail(str(e))
        return 2
    except LevelError as e:
        _fail(str(e))
        return 2
    except KeyboardInterrupt:
        raise
    except Exception as e:          # a bug: name it in one line, never a traceback
        _fail(f"internal error: {type(e).__name__}: {_first_line(e)}")
        return 1


def _run(args):
    level_path = getattr(args, "level", None)
    if level_path is None:
        level_path = _first_level()
    steps = getattr(args, "steps", None)
    steps = DEFAULT_STEPS if steps is None else int(steps)
    if steps < 0:
        raise _BadInput(f"--steps: expected a whole number of at least 0, got {steps}")
    integrator = getattr(args, "integrator", None)
    save_path = getattr(args, "save", None)
    as_json = bool(getattr(args, "json", False))
    execution = getattr(args, "execution", "compiled")

    from game.physics.integrators import INTEGRATORS
    if integrator is not None and integrator not in INTEGRATORS:
        raise _BadInput(f"--integrator: expected one of {', '.join(INTEGRATORS)}, got {integrator!r}")
    from game.physics.solver import EXECUTIONS
    if execution not in EXECUTIONS:
        raise _BadInput(f"--execution: expected one of {', '.join(EXECUTIONS)}, got {execution!r}")
    if save_path is not None:
        _check_writable(save_path)
        if same_file(save_path, level_path):
            raise _BadInput(f"--save: refusing to overwrite the level being run ({level_path}): "
                            f"save the final world under another name")

    doc = load(level_path)
    if integrator is not None:
        doc["integrator"] = integrator

    from game.physics.world import World
    # "compiled" loads the kernels before the first step: the whole run on one execution.
    world = World.from_level(doc, execution=execution)
    report = simulate(world, steps)
    report.update(level=level_path, name=world.name)
    print(json.dumps(report) if as_json else _summary(report), flush=True)   # whatever the save does next
    if save_path is None:
        return 0
    if not report["finite"]:
        _fail(f"--save: nothing saved to {save_path}: the world blew up (stopped after {report['steps']} steps)")
        return 1
    try:
        save(world.to_level(), save_path)
    except LevelError as e:
        if e.path is None:              # the file could not be written
            _fail(f"--save: {e}")
            return 2
        _fail(f"--save: nothing saved to {save_path}: the final world is not a valid level: {e}")
        return 1
    return 0


def run_replay(args):
    """``--replay FILE --headless``: play the replay back on ``--execution`` (under
    ``--integrator`` if given) and report (``--json``: one object with ``ticks``, ``time``,
    ``integrator``, ``state_hash``, ``recorded_hash``, ``match`` (null under another
    integrator), ``finite``, ``execution``, ``replay``). With ``--lab NAME`` the same inputs
    also go to a ghost under NAME at the same ticks (game.lab_replay.play_in_lab): the report
    has ``world`` and ``ghost`` (each: ``integrator``, ``state_hash``, ``finite``, ``energy``,
    ``energy_change`` J, ``balls``, ``bodies``, ``centre`` m; the world's ``match``, the
    ghost's ``missed`` inputs), ``gap`` (m, the largest distance between a ball or body and
    its ghost) and ``same_bits``. Exit 0 when the bits match (or under another integrator),
    1 when they differ, 2 for a replay that cannot be played."""
    from game import replay as replays
    from game.physics.integrators import INTEGRATORS
    from game.physics.world import World
    integrator = getattr(args, "integrator", None)
    lab = getattr(args, "lab", None)
    try:
        for option, name in (("--integrator", integrator), ("--lab", lab)):
            if name is not None and name not in INTEGRATORS:
                raise _BadInput(f"{option}: expected one of {', '.join(INTEGRATORS)}, got {name!r}")
        replay = replays.load(args.replay)
        world = World.from_level(replay["level"], execution=getattr(args, "execution", "compiled"))
        if lab is not None:
            from game.lab_replay import play_in_lab
            report = play_in_lab(world, replay, lab, integrator)
        else:
            with np.errstate(all="ignore"):
                report = replays.play(world, replay, integrator)
    except (_BadInput, replays.ReplayError) as e:
        _fail(str(e))
        return 2
    except KeyboardInterrupt:
        raise
    except Exception as e:          # a bug: one line, never a traceback
        _fail(f"internal error: {type(e).__name__}: {_first_line(e)}")
        return 1
    report.update(execution=world.execution, replay=args.replay)
    if lab is not None:
        print(json.dumps(report) if getattr(args, "json", False) else _lab_summary(report), flush=True)
        return 1 if report["world"]["match"] is False else 0
    if getattr(args, "json", False):
        print(json.dumps(report), flush=True)
    else:
        verdict = {True: "the same bits as recorded", False: "DIFFERS from the recording",
                   None: f"under {report['integrator']} (recorded under another: not compared)"}[report["match"]]
        print(f"replay {args.replay}: {report['ticks']} ticks ({report['time']:.2f} s), {world.execution} execution: "
              f"{verdict}\nstate {report['state_hash']}", flush=True)
    return 1 if report["match"] is False else 0


def _lab_summary(r):
    """--replay FILE --lab NAME's report for a person: the world's verdict, each world's energy
    change and how far apart they ended."""
    def energy(w):
        change = "not finite" if w["energy_change"] is None else f"{w['energy_change']:+.4g} J"
        return f"energy change {change}, {w['balls']} balls" + ("" if w["finite"] else ", BLEW UP (stopped)")
    world, ghost = r["world"], r["ghost"]
    verdict = {True: "the same bits as recorded", False: "DIFFERS from the recording",
               None: "(recorded under another integrator: not compared)"}[world["match"]]
    gap = "not finite" if r["gap"] is None else f"{r['gap']:.4g} m"
    return (f"replay {r['replay']} in the lab: {r['ticks']} ticks ({r['time']:.2f} s), {r['inputs']} inputs, "
            f"{r['execution']} execution\n"
            f"world {world['integrator']}: {verdict}; {energy(world)}\n"
            f"ghost {ghost['integrator']}: {energy(ghost)}; {ghost['missed']} inputs it could not take\n"
            f"apart by {gap} at most" + (" (the same bits)" if r["same_bits"] else ""))


def simulate(world, steps, dt=TICK, until_complete=False):
    """Step ``world`` up to ``steps`` times; return the report (a dict of plain numbers).
    ``until_complete``: stop at the tick the level's goal completes (a puzzle's test that
    needs only that, and when, not the rest of the minute)."""
    with np.errstate(all="ignore"):     # a world that blows up is reported, not warned about
        energy_start = world.energy()["total"]
        times = []
        finite = not world.blown_up()
        done = 0
        goal = GoalTracker.for_world(world)
        while done < steps and finite:
            mark = world.crossing_mark()
            t0 = time.perf_counter()
            world.step(dt)
            times.append(time.perf_counter() - t0)
            world.count_crossings(mark, dt)     # out of the step's time: a check, not physics
            done += 1
            # The game's own test, every tick: it trips while every number is still finite and
            # below the format's limits, where both executions hold the same bits, so both stop
            # at the same tick with the same report.
            finite = not world.blown_up()
            if goal.has_goal:
                goal.observe(world.time, goal_inside(world))
                if until_complete and goal.complete_at is not None:
                    break
        energy = world.energy()
        overlap = world.max_overlap() if finite else None
    report = {
        "steps": done,
        "steps_requested": steps,
        "time": world.time,
        "integrator": world.integrator,
        "balls": int(world.count),
        "ms_per_step": statistics.median(times) * 1000.0 if times else None,
        "energy_start": _number(energy_start),
        "energy_end": _number(energy["total"]),
        "kinetic_end": _number(energy["kinetic"]),
        "escaped": int(world.escaped()),
        "crossed": world.crossings(),
        "max_overlap": None if overlap is None else _number(overlap),
        "finite": bool(finite),
        "state_hash": world.state_hash(),
        "execution": world.execution,
    }
    progress = world.goal_progress()
    if progress is not None:
        report["goal"] = {"inside": int(progress[0]), "needed": int(progress[1]),
                          "complete": goal.complete_at is not None, "complete_at": goal.complete_at,
                          "held": goal.complete}
    return report



def _number(x):
    """A float for JSON: None (null) where it is not finite, since JSON has no NaN."""
    x = float(x)
    return x if math.isfinite(x) else None


def _first_level():
    names = level_files(paths.LEVELS)
    if not names:
        raise _BadInput(f"--level: no level given and no levels in {paths.LEVELS}")
    return names[0]


def _check_writable(path):
    """Refuse an output path we could not write, before spending time on the run."""
    problem = output_problem(path)
    if problem is not None:
        raise _BadInput(f"--save: {problem}")


def output_problem(path):
    """Why a file could not be written at ``path`` (one line), or None: checked before a run
    that ends by writing it (--save, --screenshot), so no time is spent for nothing."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        return f"expected a file name, got the folder {path}"
    if not os.path.isdir(folder):
        return f"cannot write {path}: no such folder {folder}"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"cannot write {path}: the folder is not writable"
    if os.path.exists(path) and not os.access(path, os.W_OK):
        return f"cannot write {path}: the file is read-only"
    return None


def same_file(a, b):
    """Whether paths ``a`` and ``b`` name one file: the same real path (symlinks resolved)
    or, both existing, the same inode (a hard link)."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _summary(r):
    ms = "-" if r["ms_per_step"] is None else f"{r['ms_per_step']:.2f}"
    energy = " -> ".join("blew up" if e is None else f"{e:.1f} J" for e in (r["energy_start"], r["energy_end"]))
    kinetic = "?" if r["kinetic_end"] is None else f"{r['kinetic_end']:.1f} J"
    overlap = "?" if r["max_overlap"] is None else f"{r['max_overlap'] * 1000:.1f} mm"
    stopped = "" if r["steps"] == r["steps_requested"] else f" (stopped early of {r['steps_requested']})"
    return "\n".join([
        f"{r['name']} ({r['level']}), {r['integrator']}, {r['execution']} execution: {r['steps']} steps of 1/60 s{stopped}, "
        f"{ms} ms per step (median)",
        f"balls {r['balls']}, escaped {r['escaped']}, through walls {r['crossed']}, deepest overlap {overlap}, "
        f"finite {'yes' if r['finite'] else 'NO'}",
        f"energy {energy} (kinetic at the end {kinetic})",
        f"state {r['state_hash']}",
    ] + ([f"goal {r['goal']['inside']} / {r['goal']['needed']}"
          + (f", complete at {r['goal']['complete_at']:.2f} s" if r["goal"]["complete"] else ", not complete")]
         if "goal" in r else []))


def _fail(message):
    text = f"{PROG}: {message}".replace("\n", " ")
    try:
        print(text, file=sys.stderr)
    except Exception:
        pass


def _first_line(e):
    text = str(e).strip().splitlines()
    return text[0] if text else "(no message)"
