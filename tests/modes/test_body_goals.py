"""Goals that count bodies: a zone that names one body (``"body": "name"``) counts it and
nothing else, a name no body has is refused with one line, and a solution's bodies are added
as play's spawn tool adds them (game.goals.player_body is the one definition of both)."""
import copy
import json
import os

import numpy as np
import pytest

from game.goals import BODY_SHAPES, goal_inside, player_body, with_solution
from game.level import LevelError, complete
from game.paths import ROOT
from game.physics import shapes
from game.physics.world import World

BOX = {"polylines": [{"points": [[0, 0], [20, 0], [20, 12], [0, 12]], "closed": True}]}


def level(zone, bodies):
    return {**copy.deepcopy(BOX), "bodies": bodies, "zones": [zone],
            "balls": [{"pos": [5.0, 5.0], "radius": 0.3}]}


def boxes():
    return [{"shape": "box", "center": [5.0, 5.0], "size": [1, 1], "name": "marked"},
            {"shape": "box", "center": [5.0, 7.0], "size": [1, 1], "name": "plain"},
            {"shape": "box", "center": [15.0, 5.0], "size": [1, 1]}]


def test_a_zone_that_names_a_body_counts_that_body_and_no_ball_nor_other_body():
    w = World.from_level(complete(level({"kind": "goal", "rect": [[0, 0], [20, 12]], "body": "marked"}, boxes())))
    assert [list(ids) for ids in goal_inside(w)] == [[-1 - int(w.bodies.ids[0])]]
    assert w.goal_progress() == (1, 1)
    w = World.from_level(complete(level({"kind": "goal", "rect": [[10, 0], [20, 12]], "body": "marked"}, boxes())))
    assert [list(ids) for ids in goal_inside(w)] == [[]], "the unnamed body in the zone does not count"
    w = World.from_level(complete(level({"kind": "goal", "rect": [[0, 0], [20, 12]], "count_bodies": True}, boxes())))
    assert len(goal_inside(w)[0]) == 4, "count_bodies: the ball and all three bodies"


def test_the_named_body_counts_wherever_it_moves_to_in_the_list():
    w = World.from_level(complete(level({"kind": "goal", "rect": [[0, 0], [10, 12]], "body": "marked"}, boxes())))
    marked = -1 - int(w.bodies.ids[0])
    from game.physics import bodies as world_bodies
    world_bodies.remove(w, [1])                           # another body goes: the marked one still counts
    assert [list(ids) for ids in goal_inside(w)] == [[marked]]
    world_bodies.remove(w, [0])
    assert [list(ids) for ids in goal_inside(w)] == [[]]


@pytest.mark.parametrize("name", ["nope", "Marked"])
def test_a_name_no_body_has_is_refused_in_one_line_naming_the_bodies(name):
    with pytest.raises(LevelError) as e:
        complete(level({"kind": "goal", "rect": [[0, 0], [20, 12]], "body": name}, boxes()))
    message = str(e.value)
    assert "\n" not in message and "zones[0].body" in message and "'marked'" in message and repr(name) in message


@pytest.mark.parametrize("shape", BODY_SHAPES)
def test_a_solutions_body_is_the_players_body_with_its_centre_of_mass_where_it_says(shape):
    raw = {**level({"kind": "goal", "rect": [[0, 0], [20, 12]], "count_bodies": True}, []),
           "material": {"density": 2.0, "friction": 0.7, "restitution": 0.1},
           "solution": {"bodies": [{"shape": shape, "pos": [8.0, 3.0], "vel": [1.5, 0.0], "spin": -2.0}]}}
    doc = with_solution(raw)
    assert "solution" not in doc and "solution" in raw, "the solution itself is left out; the level is not changed"
    added = doc["bodies"][-1]
    assert added == player_body(shape, (8.0, 3.0), {"density": 2.0, "friction": 0.7, "restitution": 0.1},
                                (1.5, 0.0), -2.0)
    w = World.from_level(complete(doc))
    assert np.allclose(w.bodies.pos[-1], [8.0, 3.0], atol=1e-12)
    assert np.allclose(w.bodies.vel[-1], [1.5, 0.0]) and w.bodies.spin[-1] == -2.0
    assert w.bodies.mass[-1] == shapes.body_frame(added)[4]
    area = {"box": 0.6 * 0.6, "plank": 2 * 0.08 * (2.0 - 0.16) + np.pi * 0.08 ** 2,
            "triangle": np.sqrt(3) / 4 * 0.7 ** 2}[shape]
    assert np.isclose(w.bodies.mass[-1], 2.0 * area, rtol=1e-12), "the level's density over the shape's area"
    assert added["friction"] == 0.7 and added["restitution"] == 0.1


def test_every_shipped_named_body_goal_names_a_body_of_its_level():
    for path in sorted(os.listdir(os.path.join(ROOT, "levels"))):
        if not path.endswith(".json") or path == "level.schema.json":
            continue
        raw = json.load(open(os.path.join(ROOT, "levels", path), encoding="utf-8"))
        for z in raw.get("zones", []):
            if "body" in z:
                assert z["body"] in [b.get("name") for b in raw.get("bodies", [])], path
