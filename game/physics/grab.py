"""The mouse grab as springs in the world: tuning and the record the World keeps per grab.

A single zero-length spring to the cursor would do for stiffness, but its damping acts only
along the spring, so a ball swinging round the cursor would orbit for ever. A grab is two
long springs instead, anchored GRAB_LEVER metres to the cursor's right and above it with
rest length GRAB_LEVER: each is as good as parallel to its axis, so together they pull with
-k d and damp with -c v in every direction. Stiffness and damping scale with the ball's
mass, so every ball follows at GRAB_FREQUENCY. No pygame here (the core uses it).
"""
import math
from dataclasses import dataclass

import numpy as np

GRAB_FREQUENCY = 4.0         # Hz: natural frequency of the grab, whatever the ball's mass
GRAB_DAMPING_RATIO = 0.8     # of critical: the grabbed ball follows without ringing
GRAB_LEVER = 1000.0          # m: length (and rest length) of the two grab springs


@dataclass
class Grab:
    """One grab: the held ball's stable id, its two springs' stable ids, and the point
    (2,) in metres the ball is pulled to."""
    ball_id: int
    spring_ids: tuple
    point: np.ndarray


def grab_spring_constants(mass):
    """(stiffness N/m, damping N s/m) that make a ball of ``mass`` kg follow at
    GRAB_FREQUENCY with GRAB_DAMPING_RATIO: k = m w^2, c = 2 zeta m w."""
    omega = 2.0 * math.pi * GRAB_FREQUENCY
    return mass * omega * omega, 2.0 * GRAB_DAMPING_RATIO * mass * omega


def grab_anchors(point):
    """(2, 2) anchors of the two grab springs for a grab point (2,) in metres."""
    x, y = float(point[0]), float(point[1])
    return np.array(((x + GRAB_LEVER, y), (x, y + GRAB_LEVER)))
