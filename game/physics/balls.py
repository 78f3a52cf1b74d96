"""A World's balls as rows: the per-ball arrays, a ball taken out whole (for undo) and put
back, and the masses that give back a ball's inverse mass and inertia to the bit."""
import dataclasses


import math

import numpy as np

from game import defaults
from game.physics import statics
from game.physics.journal import journaled

# The World's per-ball arrays, one row a ball, in index order: what remove_balls shrinks,
# take_ball records and put_back re-inserts.
BALL_ARRAYS = ("pos", "vel", "angle", "spin", "radius", "inv_mass", "inv_inertia", "restitution",
               "friction", "rolling", "ids")


@dataclasses.dataclass
class BallRecord:
    """One ball as the world held it (``World.take_ball``): ``rows`` {name in BALL_ARRAYS: its
    row}, ``springs`` [{name in Springs.ARRAYS: its row}, with ``a`` and ``b`` as ball ids
    (b = -1: anchored)] in spring id order."""
    rows: dict
    springs: list = dataclasses.field(default_factory=list)
    joints: list = dataclasses.field(default_factory=list)   # [(position, row)]: Joints.rows

    @property
    def ball_id(self):
        return int(self.rows["ids"])


def exact_masses(inv_mass, inv_inertia, radius):
    """(N,) kg: for each ball a mass m that add_balls turns back into the same bits,
    1 / m == inv_mass and 2 / (m r^2) == inv_inertia. 1 / inv_mass is within two units in
    the last place of the mass the ball was made with, which is one such m: the nearest
    floats around it are tried (1 / inv_mass where none fits, as for a ball made otherwise)."""
    inv_mass = np.asarray(inv_mass, float)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        guess = 1.0 / inv_mass
        best = guess.copy()
        found = (1.0 / guess == inv_mass) & (2.0 / (guess * radius * radius) == inv_inertia)
        up, down = guess.copy(), guess.copy()
        for _ in range(4):
            up, down = np.nextafter(up, np.inf), np.nextafter(down, -np.inf)
            for m in (up, down):
                fits = ~found & (1.0 / m == inv_mass) & (2.0 / (m * radius * radius) == inv_inertia)
                best[fits] = m[fits]
                found |= fits
    return best


def take_ball(world, index):
    """Remove ball ``index`` (its springs go with it) and return a BallRecord of all the
    world held for it: the undo of a delete is ``put_back``. The grab's springs are not
    part of a ball (the grab ends with the delete) and are left out."""
    index = int(index)
    springs = world.forces.springs
    grabbed = {int(i) for grab in world.grabs.values() for i in grab.spring_ids}
    kept = []
    for k in np.flatnonzero((springs.a == index) | (springs.b == index)).tolist():
        if int(springs.ids[k]) in grabbed:
            continue
        row = springs.row(k)
        b = int(row["b"])                              # ball indices become ball ids
        row["a"], row["b"] = int(world.ids[row["a"]]), int(world.ids[b]) if b >= 0 else -1
        kept.append(row)
    record = BallRecord({name: np.array(getattr(world, name)[index], copy=True) for name in BALL_ARRAYS}, kept,
                        world.joints.rows(index, world.ids))
    world.remove_balls([index])
    return record


def put_back(world, record):
    """Re-insert the ball of ``record`` (from take_ball) with its id, state to the bit and
    springs; returns its index. Balls and springs go back at their place in id order (ids
    only grow, so arrays ordered by id stay so): a delete and its undo leave the world as
    it was. A spring whose other ball has gone since is not restored.
    ValueError if a ball with its id is in the world already."""
    ball_id = record.ball_id
    if np.any(world.ids == ball_id):
        raise ValueError(f"ball id {ball_id} is in the world already")
    at = int(np.searchsorted(world.ids, ball_id)) if np.all(world.ids[1:] > world.ids[:-1]) else world.count
    for name in BALL_ARRAYS:
        setattr(world, name, np.insert(getattr(world, name), at, record.rows[name], axis=0))
    world._sleep.insert(at)                 # awake: what it touches wakes at the next tick
    springs = world.forces.springs
    springs.shift_balls(at)
    world.joints.shift_balls(at)            # (the ball's own joints come back below)
    for row in record.springs:
        a = np.flatnonzero(world.ids == row["a"])
        b = np.flatnonzero(world.ids == row["b"]) if row["b"] >= 0 else np.array([-1])
        if len(a) and len(b):              # else its other ball is gone: nothing to hang on
            springs.insert(dict(row, a=a[0], b=b[0]))
            world.wake([a[0]] + ([b[0]] if b[0] >= 0 else []))
    world.joints.insert_rows(record.joints, world.ids)
    if world.grid is not None and 2.0 * float(record.rows["radius"]) > world.grid.cell:
        statics.rebuild_grid(world)               # as add_balls does for a ball this big
    return at


def add_balls(world, balls):
    """Add many balls at once from level-style dicts (pos, and optional vel, angle (rad), spin (rad/s),
    radius, density or mass, restitution, friction, rolling); missing values take the
    level's material. A ball is a uniform disc: moment of inertia m r^2 / 2."""
    if not balls:
        return
    mat = world.material

    def column(key, default):
        return np.array([default if b.get(key) is None else b[key] for b in balls], float)

    radius = column("radius", defaults.BALL_RADIUS)
    density = column("density", mat["density"])          # the material is complete (__init__)
    mass = np.array([b["mass"] if b.get("mass") is not None else rho * math.pi * r * r
                     for b, rho, r in zip(balls, density, radius)], float)
    world.pos = np.vstack((world.pos, np.array([b["pos"] for b in balls], float).reshape(-1, 2)))
    world.vel = np.vstack((world.vel, np.array([(0.0, 0.0) if b.get("vel") is None else b["vel"]
                                              for b in balls], float).reshape(-1, 2)))
    world.angle = np.concatenate((world.angle, column("angle", 0.0)))
    world.spin = np.concatenate((world.spin, column("spin", defaults.BALL_SPIN)))
    world.radius = np.concatenate((world.radius, radius))
    world.inv_mass = np.concatenate((world.inv_mass, 1.0 / mass))
    world.inv_inertia = np.concatenate((world.inv_inertia, 2.0 / (mass * radius * radius)))
    world.restitution = np.concatenate((world.restitution, column("restitution", mat["restitution"])))
    world.friction = np.concatenate((world.friction, column("friction", mat["friction"])))
    world.rolling = np.concatenate((world.rolling, column("rolling", mat["rolling"])))
    world.ids = np.concatenate((world.ids, np.arange(world._next_id, world._next_id + len(balls))))
    world._next_id += len(balls)
    world._sleep.grow(len(balls))
    if world.grid is not None and 2.0 * radius.max() > world.grid.cell:
        statics.rebuild_grid(world)

@journaled("balls.kick")
def kick(world, index, velocity):
    """Set ball ``index``'s velocity to ``velocity`` (2,) m/s and wake it (a pinball plunger's
    launch of the ball waiting on it)."""
    vel = world.vel.copy()              # a new array: a view being drawn keeps its own
    vel[int(index)] = np.asarray(velocity, float)
    world.vel = vel
    world.wake([int(index)])
