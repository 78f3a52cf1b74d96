"""Take a ball out of a World and put it back exactly: the undo of a delete. No pygame here.

``take_ball(world, index)`` removes one ball and returns a ``BallRecord`` of everything the
world held for it: the row of each per-ball array (those World.remove_balls shrinks:
position, velocity, radius, inverse mass, material, stable id, and angle and spin once the
world has them) and the springs on it
(stable ids, parameters, the other end as a ball id or an anchor). ``put_back(world,
record)`` re-inserts it: the same id, the same state to the bit, its springs with their
ids. Balls and springs go back at their place in id order (ids only grow, so an array
ordered by id stays so), which is the index they had when nothing else changed
meanwhile: a delete and its undo leave the world as it was. A spring whose other ball has
gone since is not restored (it has nothing to hang on). The mouse grab's springs are not
part of a ball (the grab ended with the delete) and are left out.

This lives beside the World, not in it, while the World is being rewritten on another
branch; it belongs there as ``World.take_ball`` / ``World.put_back``.
"""
from dataclasses import dataclass, field

import numpy as np

SPRING_PARAMETERS = ("anchor", "stiffness", "damping", "rest")


@dataclass
class BallRecord:
    """One ball as the world held it: ``rows`` {array name: its row (a copy)}, ``springs``
    [{"id", "a", "b" (ball ids; b = -1 for an anchored spring), "anchor", "stiffness",
    "damping", "rest"}] in spring id order."""
    rows: dict
    springs: list = field(default_factory=list)

    @property
    def ball_id(self):
        return int(self.rows["ids"])


def _arrays_of_length(world, n):
    """Names of the world's array attributes with n rows."""
    return [name for name, value in vars(world).items()
            if isinstance(value, np.ndarray) and value.ndim >= 1 and len(value) == n]


def take_ball(world, index):
    """Remove ball ``index`` from ``world`` (its springs go with it); returns its BallRecord."""
    index = int(index)
    count = world.count
    # The per-ball arrays are the ones World.remove_balls shrinks by this ball: whatever
    # the world holds per ball (angle and spin, once the solver has them) comes back too.
    rows = {name: np.array(getattr(world, name)[index], copy=True) for name in _arrays_of_length(world, count)}
    springs = world.springs
    grabbed = {int(i) for grab in getattr(world, "grabs", {}).values() for i in grab.spring_ids}
    ids = np.asarray(world.ids)
    records = []
    for k in np.flatnonzero((springs.a == index) | (springs.b == index)).tolist():
        if int(springs.ids[k]) in grabbed:
            continue
        b = int(springs.b[k])
        records.append({"id": int(springs.ids[k]), "a": int(ids[springs.a[k]]), "b": int(ids[b]) if b >= 0 else -1,
                        **{name: np.array(getattr(springs, name)[k], copy=True) for name in SPRING_PARAMETERS}})
    world.remove_balls([index])
    shrunk = set(_arrays_of_length(world, count - 1))
    return BallRecord({name: row for name, row in rows.items() if name in shrunk}, records)


def put_back(world, record):
    """Re-insert the ball of ``record`` (from take_ball) with its id, state and springs;
    returns its index. ValueError if a ball with its id is in the world already."""
    ball_id = record.ball_id
    ids = np.asarray(world.ids)
    if np.any(ids == ball_id):
        raise ValueError(f"ball id {ball_id} is in the world already")
    at = int(np.searchsorted(ids, ball_id)) if np.all(ids[1:] > ids[:-1]) else len(ids)
    for name, row in record.rows.items():
        setattr(world, name, np.insert(getattr(world, name), at, row, axis=0))
    springs = world.springs
    springs.a = np.where(springs.a >= at, springs.a + 1, springs.a)
    springs.b = np.where(springs.b >= at, springs.b + 1, springs.b)
    ids = np.asarray(world.ids)
    for spring in record.springs:
        ends = []
        for end in (spring["a"], spring["b"]):
            where = np.flatnonzero(ids == end) if end >= 0 else np.array([-1])
            ends.append(int(where[0]) if len(where) else None)
        if None in ends:
            continue                       # its other ball is gone: nothing to hang on
        k = int(np.searchsorted(springs.ids, spring["id"]))
        springs.a = np.insert(springs.a, k, ends[0])
        springs.b = np.insert(springs.b, k, ends[1])
        springs.ids = np.insert(springs.ids, k, spring["id"])
        for name in SPRING_PARAMETERS:
            setattr(springs, name, np.insert(getattr(springs, name), k, spring[name], axis=0))
    grid = getattr(world, "grid", None)
    if grid is not None and 2.0 * float(record.rows["radius"]) > grid.cell:
        world._rebuild_grid()              # as World.add_balls does for a ball this big
    return at
