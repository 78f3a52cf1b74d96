"""The body puzzles 43-45 (issue 35) mean what they say, and the demos 40-41 are sandboxes.

tests/modes/test_puzzles.py already proves each puzzle both ways (as shipped it does not
complete in 60 s; with its solution it does, within par and the player's budget). Here: the
obvious one-step answers each puzzle is built to defeat do not complete it, and its solution
is no knife edge (it still completes with its points moved by several cm and its speeds by a
few per cent). Runs stop at completion, or after the seconds by which everything that will
move has moved (the last spawned ball is out, the run has ended, the throw has landed)."""
import copy

import numpy as np
import pytest

from game.goals import with_solution
from game.level import complete
from game.physics.world import World
from tests.puzzle_runs import answer, play, raw

CATAPULT, CORNER, TOWER = "43_catapult.json", "44_dominoes_corner.json", "45_topple_tower.json"


def moved(name, segment_moves=(), ball_moves=()):
    """The level with its solution, each solution segment's ends moved by ``segment_moves``
    [(da, db)] m and each ball's place and speed by ``ball_moves`` [(dpos m, speed factor)]."""
    doc = copy.deepcopy(raw(name))
    for s, (da, db) in zip(doc["solution"]["segments"], segment_moves):
        s["a"] = list(np.add(s["a"], da))
        s["b"] = list(np.add(s["b"], db))
    for b, (dp, k) in zip(doc["solution"]["balls"], ball_moves):
        b["pos"] = list(np.add(b["pos"], dp))
        b["vel"] = list(np.multiply(b["vel"], k))
    return with_solution(doc)


# ------------------------------------------------------------------------------ 43 Catapult

def test_catapult_doing_nothing_leaves_the_light_ball_in_the_spoon_and_the_heavy_balls_off_right():
    done, w = play(answer(CATAPULT), 20)
    assert done is None
    start = raw(CATAPULT)["balls"][0]["pos"]
    assert np.hypot(*(w.pos[0] - start)) < 0.05, "the spoon holds the light ball (a bare plank let it creep off)"
    assert len(w.pos) == 4 and np.all(w.pos[1:, 0] > 22), "the three heavy balls rolled off along the shelf"


@pytest.mark.parametrize("why, segment", [
    ("a ramp at the cup: its rim is above the spawner, no heavy ball climbs in", ((26.5, 10.6), (21.8, 10.3))),
    ("the heavy balls dropped on the light ball's end", ((26.0, 10.2), (11.0, 6.0))),
    ("the heavy balls dropped past the plank's right end", ((26.0, 10.2), (20.0, 6.0))),
    ("the heavy balls dropped next to the pin: too weak a throw", ((26.0, 10.2), (15.5, 7.5))),
])
def test_catapult_naive_ramps_fail(why, segment):
    done, _ = play(answer(CATAPULT, [segment]), 15)
    assert done is None, why


@pytest.mark.parametrize("moves", [
    [((0.1, 0.0), (-0.1, 0.1))],
    [((-0.1, -0.1), (0.1, -0.1))],
    [((0.0, 0.1), (0.15, 0.0))],
])
def test_catapult_solution_survives_its_ramp_moved_by_centimetres(moves):
    done, _ = play(moved(CATAPULT, moves), 12)
    assert done is not None and done <= raw(CATAPULT)["par"]["time"]


# ---------------------------------------------------------------------- 44 Round the corner

def test_round_the_corner_doing_nothing_drops_the_slick_ball_in_the_well():
    doc = raw(CORNER)
    done, w = play(answer(CORNER), 15)
    assert done is None
    lower_end = doc["polygons"][2]["points"][1][0]
    assert w.pos[0][0] > lower_end and w.pos[0][1] < 1.0, "the slick ball lies at the foot of the shaft"
    lower = w.bodies.angle[10:]
    assert np.all(np.abs(lower) < 0.05), "the blue row still stands"


@pytest.mark.parametrize("why, segment", [
    ("straight from the shaft to the cup, over the blue row: no room for the ball above it",
     ((27.85, 6.45), (12.5, 6.45))),
    ("a ramp the wrong way, down into the well", ((26.2, 6.0), (27.9, 5.0))),
    ("a ramp deep in the well, below the lower shelf", ((27.9, 4.5), (26.2, 3.0))),
])
def test_round_the_corner_naive_segments_fail(why, segment):
    done, _ = play(answer(CORNER, [segment]), 15)
    assert done is None, why


@pytest.mark.parametrize("moves", [
    [((0.0, 0.1), (0.1, -0.05))],
    [((0.0, -0.1), (-0.1, 0.1))],
    [((-0.1, 0.0), (0.0, 0.1))],
])
def test_round_the_corner_solution_survives_its_ramp_moved_by_centimetres(moves):
    done, _ = play(moved(CORNER, moves), 15)
    assert done is not None and done <= raw(CORNER)["par"]["time"]


# ---------------------------------------------------------------------- 45 Topple the tower

def test_topple_the_tower_wants_the_marked_box_only_and_it_stands_out():
    doc = raw(TOWER)
    goal = [z for z in doc["zones"] if z["kind"] == "goal"]
    assert len(goal) == 1 and goal[0]["body"] == "marked"
    marked = [b for b in doc["bodies"] if b.get("name") == "marked"]
    assert len(marked) == 1
    assert all(b["colour"] != marked[0]["colour"] for b in doc["bodies"] if b is not marked[0])
    assert doc["player"]["spawn"] == 3 and all(np.hypot(*b["vel"]) > 0 for b in doc["solution"]["balls"])


@pytest.mark.parametrize("why, balls", [
    ("nothing", []),
    ("a ball at the foot of the tower", [((8.5, 0.9), (12.0, 0.0))]),
    ("all three balls at the foot of the tower", [((8.5, 0.9), (12.0, 0.0)), ((7.5, 0.9), (12.0, 0.0)),
                                                  ((6.5, 0.9), (12.0, 0.0))]),
    ("a soft throw at the pink box: it drops short", [((8.5, 4.9), (7.0, 1.0))]),
    ("a hard throw at the box under it: the pink box drops onto the stump", [((8.5, 4.1), (11.0, 1.0))]),
])
def test_topple_the_tower_naive_throws_fail(why, balls):
    done, w = play(answer(TOWER, balls=balls), 8)
    assert done is None, why


@pytest.mark.parametrize("moves", [
    [((-0.05, 0.05), 0.95)],
    [((0.05, -0.05), 1.05)],
    [((0.0, 0.1), 0.9)],
])
def test_topple_the_tower_solution_survives_its_throw_moved_and_sped_by_a_few_per_cent(moves):
    done, _ = play(moved(TOWER, ball_moves=moves), 4)
    assert done is not None and done <= raw(TOWER)["par"]["time"]


# ------------------------------------------------------------------------ 40-41: sandboxes

@pytest.mark.parametrize("name", ["40_seesaw_catapult.json", "41_dominoes.json"])
def test_the_demos_are_sandboxes_without_goal_or_par(name):
    doc = raw(name)
    assert not any(z["kind"] == "goal" for z in doc.get("zones", []))
    assert "par" not in doc and "solution" not in doc and "player" not in doc
    assert doc["description"].startswith("A demo to watch")


def test_the_catapult_demo_still_throws_the_light_ball_into_its_cup():
    w = World.from_level(complete(raw("40_seesaw_catapult.json")))
    for _ in range(300):
        w.step(1 / 60)
    x, y = w.pos[0]
    assert 8.1 < x < 10.5 and 5.9 < y < 7.6, "the light ball lies in the hanging cup"


def test_the_dominoes_demo_still_knocks_the_red_ball_into_its_cup():
    w = World.from_level(complete(raw("41_dominoes.json")))
    for _ in range(600):
        w.step(1 / 60)
    x, y = w.pos[0]
    assert 19.8 < x < 26.0 and y < 2.5, "the red ball lies in the cup by the table"
