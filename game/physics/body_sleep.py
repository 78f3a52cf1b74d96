"""The bodies' sleep (Box2D's): a body slower than SLEEP_SPEED (its corners too) counts its
time at rest; an island of bodies (touching, or joined) sleeps once all of it has rested
SLEEP_TIME, and a body that a moving one reaches wakes (game.physics.bodies)."""
import numpy as np

from game.physics import body_kernels as K
from game.physics.solver import islands

SLEEP_SPEED = 0.05         # m/s: a body slower than this (its corners too) is resting
SLEEP_TIME = 0.5           # s: an island resting this long sleeps


def wake(bodies, i, j):
    """Wake the sleeping bodies of pairs (i, j) where the other is awake."""
    if not bodies.asleep.any() or not len(i):
        return
    a, b = bodies.asleep[i], bodies.asleep[j]
    woken = np.concatenate((i[a & ~b], j[~a & b]))
    bodies.asleep[woken] = False
    bodies.rest_time[woken] = 0.0


def settle(bodies, h, bi, bj):
    """A tick's h s of rest counted, and the islands (the pairs touching, bi and bj, and the
    bodies joined: the balls' solver.islands, each labelled by its least body) whose every
    body has rested SLEEP_TIME put to sleep; a body with a motor, or in the player's grab,
    keeps its island awake."""
    speed = np.sqrt((bodies.vel * bodies.vel).sum(axis=1)) + np.abs(bodies.spin) * bodies.extent
    resting = speed < SLEEP_SPEED
    bodies.rest_time = np.where(resting, bodies.rest_time + h, 0.0)
    ready = bodies.rest_time >= SLEEP_TIME
    if not ready.any():
        return
    joined = [[i for kind, i in ends if kind == "body"] for ends in bodies.joint_ends]
    joined = np.array([m for m in joined if len(m) == 2], np.int64).reshape(-1, 2)
    a = np.concatenate((bi, joined[:, 0])).astype(np.int64)
    roots = islands(a, np.concatenate((bj, joined[:, 1])).astype(np.int64), np.full(len(a), -1), len(bodies))
    not_ready = np.zeros(len(bodies), bool)
    not_ready[roots[~ready]] = True
    sleep = ready & ~not_ready[roots]
    if bodies.joint_ends:
        for ends, row, kind in zip(bodies.joint_ends, bodies.joint_rows, bodies.joint_kind):
            if row[K.MOTOR] or kind == K.MOUSE:
                for kind, i in ends:
                    if kind == "body":
                        sleep[roots == roots[i]] = False
    bodies.asleep |= sleep
    bodies.vel[sleep] = 0.0
    bodies.spin[sleep] = 0.0
