"""Puzzles played headless for the tests of their answers (tests/modes/test_body_puzzles_a.py,
test_gate_and_joint_puzzles.py): a shipped level as written, a run until its goal is held,
and the level with a given answer in place of its solution, added as a player adds it."""
import copy
import json
import os

from game.goals import GoalTracker, goal_inside, with_solution
from game.level import complete
from game.paths import ROOT
from game.physics.world import World


def raw(name):
    """The shipped level file ``name`` as written."""
    with open(os.path.join(ROOT, "levels", name), encoding="utf-8") as f:
        return json.load(f)


def play(doc, seconds):
    """(the world s the goal was first held, or None; the world after) for ``doc`` run until
    it completes or ``seconds`` of play have passed."""
    w = World.from_level(complete(doc))
    goal = GoalTracker.for_world(w)
    for _ in range(round(seconds * 60)):
        w.step(1 / 60)
        goal.observe(w.time, goal_inside(w))
        if goal.complete_at is not None:
            break
    return goal.complete_at, w


def answer(name, segments=(), balls=(), joints=()):
    """Level ``name`` with ``segments`` ((a, b) pairs) drawn, ``balls`` ((pos, vel) pairs)
    flung and ``joints`` (a solution's) placed in place of its solution."""
    doc = copy.deepcopy(raw(name))
    doc["solution"] = {"segments": [dict(a=list(a), b=list(b)) for a, b in segments],
                       "balls": [dict(pos=list(p), vel=list(v)) for p, v in balls], "joints": list(joints)}
    return with_solution(doc)


def play_through(doc, seconds, each_tick=None, looks=None):
    """``play`` without stopping at the goal, for tests that share one run: (the world s the goal
    was first held, or None; the world after ``seconds``; {s: (the goal's first held s by then,
    or None; ``looks[s](world)`` then)} for each s of ``looks``). ``each_tick(world)`` is called
    after every tick. What ``play(doc, s)`` returns for an s of ``looks`` is that look's (first
    held, world) where the goal was not held by s; where it was, both say so."""
    looks = dict(looks or {})
    w = World.from_level(complete(doc))
    goal = GoalTracker.for_world(w)
    at_tick = {round(s * 60): s for s in looks}
    seen = {}
    for tick in range(1, round(seconds * 60) + 1):
        w.step(1 / 60)
        goal.observe(w.time, goal_inside(w))
        if each_tick is not None:
            each_tick(w)
        if tick in at_tick:
            s = at_tick[tick]
            seen[s] = (goal.complete_at, looks[s](w))
    return goal.complete_at, w, seen
