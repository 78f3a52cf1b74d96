"""The editor's chain tool (issue 38): one drag between two ends makes N balls and N + 1
links, hung on the catenary of the chain's length so it starts at rest; one Ctrl+Z takes it
back; the panel sets links, rope or rod and the balls' radius."""
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.editor.chain_tool import SLACK, chain_points
from game.editor.document import Document
from game.editor.tools import TOOL_KEYS, Editor
from game.level import loads
from game.physics.world import World
from tests.conftest import COMPILED
from tests.editor.test_editor_joints import click, drag, rows, stepped, typed

LEVEL = {"name": "Chains", "bounds": [0, 0, 32, 18], "segments": [{"a": [0, 0], "b": [32, 0]}],
         "balls": [{"pos": [4, 10], "radius": 0.3}],
         "bodies": [{"shape": "box", "center": [28, 10], "size": [2, 1]}]}


def editor(level=LEVEL):
    return Editor(Document(loads(json.dumps(level), "chains.json"), None, json.loads(json.dumps(level))))


def catenary_sag(span, length):
    """The sag (m) at the middle of a chain ``length`` long between two points ``span`` apart
    at one height: 2 c sinh(span / 2c) = length, sag = c (cosh(span / 2c) - 1)."""
    lo, hi = 1e-3, 1e4
    for _ in range(200):
        c = math.sqrt(lo * hi)
        lo, hi = (c, hi) if 2 * c * math.sinh(span / (2 * c)) > length else (lo, c)
    return c * (math.cosh(span / (2 * c)) - 1)


def test_a_chain_between_two_anchors_hangs_on_its_catenary_at_rest_and_is_one_undo():
    ed = editor()
    d = ed.doc.definition
    balls, joints = len(d["balls"]), len(d.get("joints", []))
    assert TOOL_KEYS["i"] == "chain" and ed.key("i") and ed.tool == "chain"
    typed(ed, "tool:links", "21")
    drag(ed, (6, 12), (26, 12))
    new = d["balls"][balls:]
    assert len(new) == 21 and len(d["joints"]) == joints + 22
    assert all(j["kind"] == "rope" for j in d["joints"][joints:])
    # The middle ball hangs as deep as the continuous catenary of 1.05 x 20 m over 20 m.
    assert 12 - new[10]["pos"][1] == pytest.approx(catenary_sag(20.0, 20.0 * SLACK), rel=2e-3)
    # Each rope is as long as the chord between the points it holds: nothing slack, nothing stretched.
    held = [[6.0, 12.0]] + [b["pos"] for b in new] + [[26.0, 12.0]]
    for k, j in enumerate(d["joints"][joints:]):
        assert j["length"] == pytest.approx(math.dist(held[k], held[k + 1]), abs=1e-8)
    # It starts at rest: with sleeping off, nothing moves by a millimetre in 10 s.
    world = World.from_level(loads(json.dumps(ed.doc.definition), "c.json"), compiled=COMPILED)
    world.solver.options.sleeping = False
    start = world.pos[balls:].copy()
    for _ in range(600):
        world.step()
    assert np.abs(world.pos[balls:] - start).max() < 1e-3     # (the level's own ball falls to the floor)
    assert ed.doc.undo() == "add chain of 21"
    assert len(d["balls"]) == balls and len(d.get("joints", [])) == joints


def test_a_chain_joins_a_ball_to_a_body_at_the_point_clicked():
    ed = editor()
    d = ed.doc.definition
    ed.key("i")
    click(ed, (4, 10))                       # the level's ball
    click(ed, (27.5, 10.2))                  # a point of the box (snapped to the grid: 27.5, 10)
    first, last = d["joints"][0], d["joints"][-1]
    assert first["a"] == 0 and first["b"] == 1          # ball 0 to the chain's first ball (1)
    assert last["a"] == len(d["balls"]) - 1 and last["b"] == {"body": 0}
    assert last["offset_b"] == pytest.approx([-0.5, 0.0])
    assert ed.message.startswith("a rope chain of 8 balls")


def test_a_rod_chain_keeps_its_chords_and_the_panel_sets_links_kind_and_radius():
    ed = editor()
    d = ed.doc.definition
    ed.key("i")
    assert {"tool:links", "tool:chain", "tool:chain_radius"} <= set(rows(ed))
    stepped(ed, "tool:links", -1)
    stepped(ed, "tool:chain")
    stepped(ed, "tool:chain_radius")
    assert (ed.joints.links, ed.joints.chain_kind) == (7, "rod")
    assert ed.joints.chain_radius == pytest.approx(0.165)
    drag(ed, (8, 15), (20, 13))
    new = d["balls"][1:]
    assert len(new) == 7 and all(b["radius"] == pytest.approx(0.165) for b in new)
    held = [[8.0, 15.0]] + [b["pos"] for b in new] + [[20.0, 13.0]]
    for k, j in enumerate(d["joints"]):
        assert j["kind"] == "rod" and j["length"] == pytest.approx(math.dist(held[k], held[k + 1]), abs=1e-8)
    for key, text in (("tool:links", "0"), ("tool:links", "x"), ("tool:links", "201"), ("tool:chain", "spring"),
                      ("tool:chain_radius", "2")):
        before = (ed.joints.links, ed.joints.chain_kind, ed.joints.chain_radius)
        typed(ed, key, text)
        assert ed.message and (ed.joints.links, ed.joints.chain_kind, ed.joints.chain_radius) == before


def test_a_chain_too_short_for_its_balls_is_refused_in_a_line_and_adds_nothing():
    ed = editor()
    d = ed.doc.definition
    ed.key("i")
    typed(ed, "tool:links", "40")
    drag(ed, (10, 15), (14, 15))
    assert "needs its ends" in ed.message and len(d["balls"]) == 1 and not d.get("joints")


def test_without_gravity_a_chain_is_straight_and_each_rope_has_its_share_of_the_slack():
    ed = editor({**LEVEL, "gravity": [0, 0]})
    d = ed.doc.definition
    ed.key("i")
    typed(ed, "tool:links", "3")
    drag(ed, (10, 15), (18, 15))
    assert [b["pos"] for b in d["balls"][1:]] == [[12, 15], [14, 15], [16, 15]]
    assert all(j["length"] == pytest.approx(2 * SLACK) for j in d["joints"])


@settings(max_examples=60, deadline=None)
@given(st.tuples(st.floats(-20, 20), st.floats(-20, 20)), st.floats(0.5, 30), st.floats(0, 2 * math.pi),
       st.integers(1, 40), st.floats(0, 2 * math.pi))
def test_chain_points_lie_at_equal_arc_on_a_curve_as_long_as_the_chain(a, span, direction, links, down):
    """Any ends, any gravity: the links' chords add up to at most the chain's length and at
    least the ends' distance, and no ball is above the line between the ends, measured
    against gravity."""
    a = np.array(a)
    b = a + span * np.array([math.cos(direction), math.sin(direction)])
    gravity = 9.81 * np.array([math.sin(down), -math.cos(down)])
    centres, hanging = chain_points(a, b, links, gravity)
    held = np.vstack((a, centres, b))
    chords = np.hypot(*np.diff(held, axis=0).T)
    assert hanging
    assert chords.sum() <= span * SLACK * (1 + 1e-9)
    assert chords.sum() >= span * (1 - 1e-9)
    up = -gravity / 9.81
    if links >= 10 and abs((b - a) @ up) <= span * math.sin(math.radians(60)):
        # A bridge rather than a hang (the ends within 60 degrees of level): a smooth curve,
        # the chords as long as the chain to 1 %, and equal steps of arc equal chords to 2 %.
        # (Nearly one above the other the chain bends sharply at its lowest point.)
        assert chords.sum() >= span * SLACK * 0.99
        assert np.ptp(chords) <= 0.02 * chords.mean()
    line = a + np.outer(np.clip((held - a) @ (b - a) / span ** 2, 0, 1), b - a)
    assert ((held - line) @ up <= 1e-6 * span).all()
