"""07_bullet shows what its description says: balls at 100 to 400 m/s, for as long as one
watches (it used to lose 99 % of its energy in 2.3 s), and none passes a wall."""
from game.paths import ROOT as ROOT_DIR  # noqa: E402
import os

import numpy as np

from scenes import build_world
from game.level import load
from game.physics.world import TICK, World

ROOT = ROOT_DIR


def test_bullets_keep_bullet_speeds_for_ten_seconds():
    doc = load(os.path.join(ROOT, "levels", "07_bullet.json"))
    assert "100 to 400 m/s" in doc["description"]
    world = build_world(doc)
    energy = world.energy()["total"]
    for tick in range(1, 601):
        world.step(TICK)
        if tick % 120 == 0:
            speed = np.linalg.norm(world.vel, axis=1)
            assert np.median(speed) >= 100.0 and speed.min() >= 30.0, f"slowed down by {tick * TICK:.0f} s"
            assert world.escaped() == 0
    assert world.energy()["total"] >= 0.9 * energy
