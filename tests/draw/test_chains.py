"""Chains look like chains (issue 38): a run of small balls joined end to end by rods or ropes is
drawn as interlocking links (game.draw.chains), alternately face-on and edge-on, along the chain
and nowhere else; a lone rod keeps its bar; a 1,000-link chain is one batch, bounded."""
import math

import numpy as np
import pygame
import pytest

from scenes import build_world
from game.draw import chains, joints as joint_drawing, plot
from game.draw.camera import Camera
from game.draw.chains import CHAIN_LINKS_MAX, chain_joints, face_first, lay_links
from game.draw.renderer import Renderer
from game.draw.theme import CHAIN, ROD
from game.editor.chain_tool import chain_items
from game.level import load

SIZE = (960, 540)


def _chain_world(links=8, kind="rod", radius=0.15, a=(2.0, 10.0), b=(14.0, 10.0), extra_joints=(),
                 gravity=(0.0, -9.81), **doc):
    balls, joints = chain_items(None, a, None, b, 0, links, kind, radius, gravity=gravity)
    level = {"name": "chain", "bounds": [0, 0, 16, 12], "gravity": list(gravity), "balls": balls,
             "joints": joints + list(extra_joints), **doc}
    return build_world(level)


def _draw(world, centre=(8.0, 8.0), scale=60.0):
    surface = pygame.Surface(SIZE)
    camera = Camera(SIZE, centre, scale)
    Renderer().draw_joints(surface, world, camera)
    return surface, camera


def _lit(surface, colour):
    """(K, 2) screen points (x, y) of the pixels in exactly this colour."""
    x, y = np.nonzero((pygame.surfarray.pixels3d(surface) == np.array(colour)).all(axis=2))
    return np.stack((x, y), axis=1).astype(float)


def _distance_to_segments(points, a, b):
    """(K,) each point's distance to the nearest of the segments a-b ((M, 2) each)."""
    d = b - a
    t = np.clip(((points[:, None, :] - a[None]) * d[None]).sum(-1) / np.maximum((d * d).sum(-1), 1e-12), 0, 1)
    near = a[None] + t[..., None] * d[None]
    return np.hypot(*(points[:, None, :] - near).transpose(2, 0, 1)).min(axis=1)


# ---- what counts as a chain -----------------------------------------------------------------
def test_the_bridges_of_levels_23_and_24_are_chains_and_the_car_and_the_clock_are_not():
    car = build_world(load("levels/23_car_bridge.json"))
    chained, radius = chain_joints(car.joints, car.radius)
    wheels = {0, 1, 2}                                   # the car's triangle of rods on its wheels
    on_car = np.isin(car.joints.a, list(wheels)) | np.isin(car.joints.b, list(wheels))
    assert on_car.sum() == 3 and not chained[on_car].any()
    assert chained[~on_car].all() and (radius[~on_car] == 0.25).all()    # the bridge: 17 rods to both ledges
    bridge = build_world(load("levels/24_bridge_to_complete.json"))
    assert chain_joints(bridge.joints, bridge.radius)[0].all()          # both half bridges, anchors and all
    clock = build_world(load("levels/20_pendulum_clock.json"))
    assert not chain_joints(clock.joints, clock.radius)[0].any()       # pendulums (one joint) and pins


def test_a_chain_needs_small_balls_with_exactly_two_rods_or_ropes():
    assert chain_joints(_chain_world(5, "rope").joints, _chain_world(5, "rope").radius)[0].all()
    big = _chain_world(5, radius=0.5, b=(15.0, 10.0))            # beads too big: a truss of rods
    assert not chain_joints(big.joints, big.radius)[0].any()
    braced = _chain_world(5, extra_joints=[{"kind": "rod", "a": 2, "b": [8.0, 4.0]}])   # a third joint on ball 2
    chained = chain_joints(braced.joints, braced.radius)[0]
    ball_2 = (braced.joints.a == 2) | (braced.joints.b == 2)
    assert not chained[ball_2 & (braced.joints.b < 0)].any()        # the brace is no link
    assert chained[~ball_2].all()                                     # the rest, held by other chain balls, is
    lone = build_world({"name": "rod", "bounds": [0, 0, 16, 12], "gravity": [0, -9.81],
                        "balls": [{"pos": [4, 6], "radius": 0.15}, {"pos": [8, 6], "radius": 0.15}],
                        "joints": [{"kind": "rod", "a": 0, "b": 1}]})
    assert not chain_joints(lone.joints, lone.radius)[0].any()        # one joint a ball: a rod


# ---- how a chain looks ----------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["rod", "rope"])
def test_a_chains_links_are_drawn_along_it_and_nowhere_else(kind):
    world = _chain_world(8, kind)
    surface, camera = _draw(world)
    lit = _lit(surface, CHAIN)
    end_a, end_b = world.joints.ends(world.pos, world.angle)
    a, b = camera.world_to_screen(end_a), camera.world_to_screen(end_b)
    link = 1.5 * 0.15 * camera.scale / chains.LINK_PITCH          # a link at its longest (fitted)
    for p, q in zip(a, b):                                        # every joint's middle has links
        assert (np.hypot(*(lit - 0.5 * (p + q)).T) < 0.5 * link).any()
    assert len(lit) > 0 and _distance_to_segments(lit, a, b).max() <= 0.5 * link * chains.FACE_WIDTH + 2
    assert len(_lit(surface, ROD)) == 0                           # no bars under the links


def test_a_lone_rod_between_two_big_balls_is_still_a_bar():
    world = build_world({"name": "rod", "bounds": [0, 0, 16, 12], "gravity": [0, 0],
                         "balls": [{"pos": [4, 8], "radius": 0.6}, {"pos": [12, 8], "radius": 0.6}],
                         "joints": [{"kind": "rod", "a": 0, "b": 1}]})
    surface, camera = _draw(world)
    width = max(4, int(round(0.1 * camera.scale)))
    assert len(_lit(surface, CHAIN)) == 0
    assert len(_lit(surface, ROD)) == pytest.approx(8 * camera.scale * width, rel=0.1)


def test_each_ball_of_a_chain_holds_one_face_on_link_and_one_edge_on_link():
    for world in (build_world(load("levels/24_bridge_to_complete.json")), _chain_world(12)):
        rows = np.flatnonzero(chain_joints(world.joints, world.radius)[0])
        camera = Camera(SIZE, (12.0, 7.0), 80.0)
        end_a, end_b = world.joints.ends(world.pos, world.angle)
        s0, s1 = camera.world_to_screen(end_a[rows]), camera.world_to_screen(end_b[rows])
        links, _ = lay_links(s0, s1, np.arange(len(rows)), np.full(len(rows), 20.0), len(rows),
                             face_first(world.joints, rows, world.count))
        face = links["across"] > links["half"] * 0.5 * (chains.FACE_WIDTH + chains.EDGE_WIDTH)
        for ball in range(world.count):
            here = camera.world_to_screen(world.pos[ball][None])[0]
            nearest = [np.flatnonzero(links["joint"] == j)[np.argmin(np.hypot(*(
                links["centre"][links["joint"] == j] - here).T))] for j in range(len(rows))
                if ball in (world.joints.a[rows[j]], world.joints.b[rows[j]])]
            assert len(nearest) == 2 and face[nearest[0]] != face[nearest[1]], ball


def test_a_slack_rope_chain_sags_and_its_links_follow_the_curve():
    balls = [{"pos": [4.0, 9.0], "radius": 0.15}, {"pos": [12.0, 9.0], "radius": 0.15}]
    joints = [{"kind": "rope", "a": 0, "b": [2.0, 9.0], "length": 2.0},
              {"kind": "rope", "a": 0, "b": 1, "length": 11.0},             # 8 m apart: sags ~3 m
              {"kind": "rope", "a": 1, "b": [14.0, 9.0], "length": 2.0}]
    world = build_world({"name": "sag", "bounds": [0, 0, 16, 12], "gravity": [0, -9.81],
                         "balls": balls, "joints": joints})
    surface, camera = _draw(world, centre=(8.0, 7.0), scale=50.0)
    lit = _lit(surface, chains.shade(CHAIN, chains.SLACK_SHADE))
    chord_middle = camera.world_to_screen(np.array([[8.0, 9.0]]))[0]
    assert len(lit) and np.hypot(*(lit - chord_middle).T).min() > 50        # not along the straight line
    assert lit[:, 1].max() > chord_middle[1] + 100                         # but well below it


# ---- cost -------------------------------------------------------------------------------------
@pytest.mark.parametrize("budget", [CHAIN_LINKS_MAX, 60])
def test_a_thousand_link_chain_is_drawn_in_one_batch_within_the_link_budget(monkeypatch, budget):
    world = _chain_world(1000, a=(1.0, 10.0), b=(331.0, 10.0), bounds=[0, 0, 340, 20], gravity=(0.0, 0.0))
    monkeypatch.setattr(chains, "CHAIN_LINKS_MAX", budget)
    writes, segments, pygame_calls = [], [], []
    real_write, real_plot = plot.write_pixels, plot.plot_segments
    monkeypatch.setattr(chains, "write_pixels", lambda *a, **k: (writes.append(1), real_write(*a, **k)))
    monkeypatch.setattr(chains, "plot_segments", lambda *a, **k: (segments.append(len(a[1])), real_plot(*a, **k)))
    for name in ("line", "lines", "aaline", "aalines", "polygon", "circle", "ellipse"):
        real = getattr(pygame.draw, name)
        monkeypatch.setattr(joint_drawing.pygame.draw, name,
                            lambda *a, _real=real, **k: (pygame_calls.append(1), _real(*a, **k))[1])
    surface = pygame.Surface(SIZE)
    drawn, shown = {}, {}
    for scale in (2.5, 30.0, 120.0):        # the whole chain on screen (links too small: lines), 140 joints, 20
        for calls in (writes, segments, pygame_calls):
            calls.clear()
        camera = Camera(SIZE, (166.0 if scale == 2.5 else 20.0, 8.0), scale)
        drawn[scale] = joint_drawing.draw_ball_joints(surface, world, camera)
        x = camera.world_to_screen(world.pos)[:, 0]
        shown[scale] = int(((x > 0) & (x < SIZE[0])).sum())        # balls on the screen: about its joints
        assert drawn[scale] <= budget
        assert len(writes) <= 1 and len(segments) <= 1      # one pixel write, at most one batch of lines
        assert len(pygame_calls) <= 4                         # only the two anchors' pins, when on screen
        if scale == 2.5:
            assert drawn[scale] == 0 and segments == [1001]  # every joint a line, in one call
        if drawn[scale] == budget:
            assert segments and 0 < segments[0] < 1001        # past the budget: the rest as lines
    # Links of 10 px (the least drawn) on joints of 9.9 px: 2 a joint; of 18 px on 39.6 px: 4 a joint.
    for scale, each in ((30.0, 2), (120.0, 4)):
        assert shown[scale] > 20            # (a joint a link long past the screen's edge is drawn too)
        if budget > each * (shown[scale] + 3):
            assert each * (shown[scale] - 1) <= drawn[scale] <= each * (shown[scale] + 3)
        else:
            assert drawn[scale] == budget


def test_the_link_budget_draws_the_first_links_and_lines_after():
    links, lines = lay_links(np.zeros((1000, 2)), np.tile([[40.0, 0.0]], (1000, 1)), np.arange(1000),
                             np.full(1000, 10.0), 1000, budget=100)
    assert len(links["half"]) <= 100 and lines[len(links["half"]) // 6:].all() and not lines[:10].any()


def test_drawing_a_chain_reads_the_world_and_never_writes_it():
    world = build_world(load("levels/23_car_bridge.json"))
    for _ in range(30):
        world.step(1 / 60)
    before = world.state_hash()
    pos = np.array(world.pos, copy=True)
    _draw(world, centre=(12.0, 4.0), scale=90.0)
    assert world.state_hash() == before and np.array_equal(world.pos, pos)


def test_links_stay_an_even_number_and_interlock_on_any_joint_length():
    lengths = np.array([12.0, 19.0, 30.0, 55.0, 101.0, 333.0])
    links, lines = lay_links(np.zeros((6, 2)), np.stack((lengths, np.zeros(6)), axis=1), np.arange(6),
                             np.full(6, 20.0), 6)
    counts = np.bincount(links["joint"], minlength=6)
    assert not lines.any() and (counts % 2 == 0).all() and (counts >= 2).all()
    step = lengths / counts
    assert np.allclose(links["half"] * 2 * chains.LINK_PITCH, step[links["joint"]])   # each link passes through the next
    assert (np.abs(links["centre"][:, 0] - (np.concatenate([np.arange(c) for c in counts]) + 0.5)
                   * step[links["joint"]]) < 1e-9).all()
    assert math.isclose(links["centre"][:, 1].max(), 0.0)
