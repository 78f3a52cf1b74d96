"""What a tick leaves for debug drawing and sound: the impacts, the last sub-step's contacts
(and the contacts of sleeping piles, dimmed), the swept paths. Read-only views of a World."""

import numpy as np

from game.physics import collide

SLEEP_CONTACT_SLOP = 0.05  # of a radius: a sleeping pair this far apart still shows as touching (debug)


def sleeping_contacts(world, slop=SLEEP_CONTACT_SLOP):
    """(points (C, 2) m, offsets (C, 2) m) of the contacts of the sleeping balls, for
    the debug layer (the tick leaves sleeping islands out, so its contacts hold none of
    theirs): every pair of sleeping balls, and every sleeping ball and static shape,
    nearer than touching plus ``slop`` of the ball's radius (a pile at rest is held a
    hair apart by its soft contacts). Points and offsets as contact_points and
    contact_offsets give them. Computed afresh from the positions, by numpy, and kept
    while the sleeping balls stay where they are (a pile asleep costs it once); reads
    the world, never writes it."""
    empty = (np.zeros((0, 2)), np.zeros((0, 2)))
    k = np.flatnonzero(world._sleep.asleep) if len(world._sleep) == world.count else np.zeros(0, np.int64)
    key = (world.count, hash(k.tobytes()), hash(world.pos[k].tobytes()), id(world.statics))
    cached = getattr(world, "_sleeping_contacts", None)
    if cached is not None and cached[0] == key:
        return cached[1]
    if len(k) == 0:
        world._sleeping_contacts = (key, empty)
        return empty
    pos, radius = world.pos[k], world.radius[k]
    margin = slop * radius
    i, j, si, s = collide.find_candidates(pos, pos, radius, world.grid, world.statics, margin)
    points, offsets = [], []
    if len(i):
        d = pos[i] - pos[j]
        dist = np.sqrt(np.einsum("ij,ij->i", d, d))
        depth = radius[i] + radius[j] - dist
        near = depth > -(margin[i] + margin[j])
        with np.errstate(invalid="ignore", divide="ignore"):
            n = np.where((dist > 0)[:, None], d / dist[:, None], np.array((0.0, 1.0)))
        i, n, depth = i[near], n[near], depth[near]
        points.append(pos[i] - n * (radius[i] - depth)[:, None])
        offsets.append(n * np.maximum(depth, 0.0)[:, None])
    if len(si):
        n, depth = collide.ball_static_geometry(pos, pos, radius, world.statics, si, s)
        collide.polygon_insides(pos, radius, world.statics, si, s, n, depth)
        near = depth > -margin[si]
        si, n, depth = si[near], n[near], depth[near]
        points.append(pos[si] - n * (radius[si] - depth)[:, None])
        offsets.append(n * np.maximum(depth, 0.0)[:, None])
    out = (np.concatenate(points), np.concatenate(offsets)) if points else empty
    world._sleeping_contacts = (key, out)
    return out


def record(world, contacts, prev, fast, hits, last):
    loud = np.nonzero(contacts.approach > collide.IMPACT_SPEED)[0]
    if len(loud):
        world._impact_points.append(contacts.points(world.pos, world.radius, loud))
        world._impact_speeds.append(contacts.approach[loud])
    if last:  # debug drawing shows the tick's last sub-step
        world._last_contacts = (contacts, world.pos, world.radius)
        world.swept_from = prev[fast]
        world.swept_to = world.pos[fast]
        world.swept_hit = hits


def contact_points(world):
    """(C, 2) touch points of the last sub-step's contacts (debug drawing)."""
    if world._last_contacts is None:
        return np.zeros((0, 2))
    contacts, pos, radius = world._last_contacts
    return contacts.points(pos, radius)


def contact_offsets(world):
    """(C, 2) their offset vectors: the normal times the overlap found (0 where only touching)."""
    if world._last_contacts is None:
        return np.zeros((0, 2))
    c = world._last_contacts[0]
    depth = np.maximum(c.depth, 0.0)
    return np.stack((c.nx * depth, c.ny * depth), axis=1)


def clear(world):
    empty = np.zeros((0, 2))
    world._last_contacts = None
    world.swept_from = world.swept_to = world.swept_hit = empty
    world.impact_points, world.impact_speeds = empty, np.zeros(0)
