"""What the player's hand does to a body beyond the grab's joint (game.physics.bodies.grab):
carry a held body while the world is paused, take a body out whole (the undo of a delete)
and put it back. A body is known by its id (``Bodies.ids``, as a ball by ``World.ids``), so
the same calls serve the world and a copy of it (the integrator lab's ghost, game.app.lab).

A body taken out (``take``) is a dict: ``id``; ``definition``, its level definition at its
pose now (Bodies.to_definitions: its state to the bit); ``joints`` [(joint definition, ends)],
the joints that held it, each end ("self", None), ("body", id), ("ball", id) or ("anchor", -1).
The player's grab is not part of a body: it ends with the delete."""
import math

import numpy as np

from game.physics import bodies as world_bodies
from game.physics.body_kernels import LAX, LAY
from game.physics.journal import journaled


def index_of(world, body_id):
    """The index now of the body with id ``body_id``, -1 if it is not in the world."""
    at = np.flatnonzero(world.bodies.ids == body_id)
    return int(at[0]) if len(at) else -1


def at(world, point):
    """The index of the body whose shape holds ``point`` (2,) m (the nearest centre of those
    that do), -1 if none."""
    every = all_at(world, point)
    return every[0] if every else -1


def all_at(world, point):
    """[indices] of the bodies whose shapes hold ``point`` (2,) m, the nearest centre first
    (two planks crossing there: both, for a pin that joins them)."""
    bodies = world.bodies
    if not len(bodies):
        return []
    p = np.asarray(point, float)
    d = p[None, :] - bodies.pos
    c, s = np.cos(-bodies.angle), np.sin(-bodies.angle)
    q = np.stack((c * d[:, 0] - s * d[:, 1], s * d[:, 0] + c * d[:, 1]), axis=1)       # in each body's frame
    found = []
    for b in range(len(bodies)):
        n = int(bodies.count[b])
        v = bodies.local[b, :n]
        if n == 2:
            ab = v[1] - v[0]
            t = np.clip(float((q[b] - v[0]) @ ab) / float(ab @ ab), 0.0, 1.0)
            outside = float(np.hypot(*(q[b] - v[0] - t * ab)))
        else:
            sep = ((q[b] - v) * bodies.normals[b, :n]).sum(axis=1)
            if sep.max() <= 0.0:
                outside = 0.0
            else:                   # outside the core: the distance to its nearest edge
                outside = np.inf
                for i in range(n):
                    a_, b_ = v[i], v[(i + 1) % n]
                    e = b_ - a_
                    t = np.clip(float((q[b] - a_) @ e) / float(e @ e), 0.0, 1.0)
                    outside = min(outside, float(np.hypot(*(q[b] - a_ - t * e))))
        if outside <= bodies.radius[b]:
            found.append((float(np.hypot(*d[b])), b))
    return [b for _, b in sorted(found)]


@journaled("bodies.carry")
def carry(world, handle, point):
    """Paused, no joint pulls: put the body that grab ``handle`` holds with the point held
    (the grab's offset in the body's frame) on ``point`` (2,) m, at rest, its angle kept, and
    the grab's cursor end there. False if the grab is over."""
    b = world_bodies.grabbed(world, handle)
    if b < 0:
        return False
    bodies = world.bodies
    k = int(np.flatnonzero(bodies.joint_handle == handle)[0])
    local = bodies.joint_rows[k, LAX:LAY + 1]
    c, s = math.cos(bodies.angle[b]), math.sin(bodies.angle[b])
    pos, vel, spin = bodies.pos.copy(), bodies.vel.copy(), bodies.spin.copy()
    pos[b] = np.asarray(point, float) - np.array([c * local[0] - s * local[1], s * local[0] + c * local[1]])
    vel[b], spin[b] = 0.0, 0.0
    bodies.pos, bodies.vel, bodies.spin = pos, vel, spin     # new arrays: a drawn view keeps its own
    return world_bodies.move_grab(world, handle, point)


@journaled("bodies.take")
def take(world, index):
    """Remove body ``index`` with the joints that hold it; returns what ``put_back`` needs
    (the module docstring's record)."""
    bodies = world.bodies
    joints = []
    for k, ends in enumerate(bodies.joint_ends):
        if bodies.joint_handle[k] or ("body", index) not in ends:
            continue                                  # the player's grab is not put back
        kept = [("self", None) if (kind, i) == ("body", index) else
                ("body", int(bodies.ids[i])) if kind == "body" else (kind, i) for kind, i in ends]
        joints.append((bodies.joint_definitions[k], kept))
    record = {"id": int(bodies.ids[index]), "definition": bodies.to_definitions()[index], "joints": joints}
    world_bodies.remove(world, [index])
    return record


@journaled("bodies.put_back")
def put_back(world, record):
    """The body of ``record`` (from ``take``) back as it was, with its id, and the joints whose
    other ends are still in the world; returns its index. ValueError if its id is here already."""
    if index_of(world, record["id"]) >= 0:
        raise ValueError(f"body id {record['id']} is in the world already")
    index = world_bodies.add(world, [record["definition"]])[0]
    world.bodies.ids[index] = record["id"]            # (ids only grow: the old one is free)
    for d, ends in record["joints"]:
        d, here = dict(d), True
        for key, (kind, i) in zip(("a", "b"), ends):
            if kind == "self":
                d[key] = {"body": index}
            elif kind == "body":
                d[key] = {"body": index_of(world, i)}
                here = here and d[key]["body"] >= 0
            elif kind == "ball":
                at = np.flatnonzero(world.ids == i)
                d[key] = int(at[0]) if len(at) else -1
                here = here and len(at) > 0
        if here:                      # (an anchor's end stays as the definition has it)
            world.bodies.add_joints([d], world.ids)
    return index
