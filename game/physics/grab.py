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


# ---- a World's grabs
def live_grabs(world):
    """{handle: game.physics.grab.Grab} of the grabs holding a ball now. A grab whose ball went
    (deleted, or a kill zone took it) has lost its springs with it and is dropped here."""
    table = world._grabs
    for handle in [h for h, g in table.items() if world.springs.index(g.spring_ids[0]) < 0]:
        del table[handle]
    return table


def grab(world, ball, point):
    """Hold ball index ``ball`` at ``point`` (2,) metres with springs integrated like
    any other force (see game.physics.grab); returns a handle for move_grab and release."""
    mass = 1.0 / float(world.inv_mass[ball])
    stiffness, damping = grab_spring_constants(mass)
    spring_ids = []
    for anchor in grab_anchors(point):
        k = world.add_spring(int(ball), anchor, stiffness, damping, rest=GRAB_LEVER)
        spring_ids.append(int(world.springs.ids[k]))
    grabs = world.grabs
    handle = world.__dict__.get("_next_grab", 0)
    world._next_grab = handle + 1
    grabs[handle] = Grab(int(world.ids[ball]), tuple(spring_ids), np.array(point, float))
    return handle


def move_grab(world, handle, point):
    """Pull the grabbed ball towards a new ``point`` (2,) metres; False if the grab is
    over (released, or its ball is gone)."""
    grab = world.grabs.get(handle)
    if grab is None:
        return False
    for spring_id, anchor in zip(grab.spring_ids, grab_anchors(point)):
        world.set_anchor(world.springs.index(spring_id), anchor)
    grab.point = np.array(point, float)
    return True


def release(world, handle):
    """Let go: the grab's springs leave the world. Releasing twice does nothing."""
    grab = world.grabs.pop(handle, None)
    if grab is None:
        return
    keep = ~np.isin(world.springs.ids, grab.spring_ids)
    world._wake_springs(~keep)
    world.springs.keep(keep)


def place_grabbed(world, handle, point):
    """Move the grab's point and put its ball there at rest: dragging while the world is
    paused, when no spring can pull it. False if the grab is over."""
    if not move_grab(world, handle, point):
        return False
    k = grabbed_ball(world, handle)
    world.pos[k] = np.asarray(point, float)
    world.vel[k] = 0.0
    return True


def grabbed_ball(world, handle):
    """Index of the ball a grab holds now, -1 if the grab is over."""
    grab = world.grabs.get(handle)
    if grab is None:
        return -1
    where = np.flatnonzero(world.ids == grab.ball_id)
    return int(where[0]) if len(where) else -1
