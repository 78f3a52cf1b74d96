"""The joints a player places in a running world (a puzzle's pins and rods: game.modes.play_joints),
and Ctrl+Z's taking one back. A joint here names its ends by id, so the same call serves the
world, a copy of it (the integrator lab's ghost) and a replay, whatever balls came or went:

    {"kind": "rod", "length": m, "a": ["ball", id] | ["body", id],
     "b": ["ball", id] | ["body", id] | ["anchor", [x, y]], "offset_a": [x, y], "offset_b": [x, y]}

(offsets in each end's own frame, m; a pin is a rod of length 0: to an anchor, the world). A
joint with a body at an end goes to the bodies' solve, the others to the balls' (as a level's
joints load: game.physics.bodies.load)."""
import numpy as np

from game.physics.bodies import holds_body
from game.physics.journal import journaled


def _index(world, end):
    """The end as a normalised joint's end now: a ball's index, {"body": i}, or the anchor
    [x, y]; None where its ball or body is not in the world."""
    kind, value = end
    if kind == "anchor":
        return [float(value[0]), float(value[1])]
    ids = world.ids if kind == "ball" else world.bodies.ids
    at = np.flatnonzero(ids == int(value))
    if not len(at):
        return None
    return int(at[0]) if kind == "ball" else {"body": int(at[0])}


def definition(world, joint):
    """The normalised level joint (game.level's "joints" item) ``joint`` makes in ``world`` now;
    None where an end's ball or body has gone."""
    a, b = _index(world, joint["a"]), _index(world, joint["b"])
    if a is None or b is None or isinstance(a, list):
        return None
    return {"kind": "rod", "a": a, "b": b, "length": float(joint["length"]),
            "offset_a": [float(v) for v in joint["offset_a"]], "offset_b": [float(v) for v in joint["offset_b"]]}


@journaled("joints.place")
def place(world, joint):
    """Add the player's ``joint`` (the module docstring's form) to the world, its balls and
    bodies woken; False (nothing added) where an end has gone."""
    d = definition(world, joint)
    if d is None:
        return False
    if holds_body(d):
        world.bodies.add_joints([d], world.ids)
        for end in (d["a"], d["b"]):
            if isinstance(end, dict):
                world.bodies.asleep[end["body"]] = False
                world.bodies.rest_time[end["body"]] = 0.0
    else:
        world.joints.add([d])
    world.wake()
    return True


def _same(d, kind, length, offset_a, offset_b):
    return (d["kind"] == kind and float(d["length"]) == length and list(d["offset_a"]) == offset_a
            and list(d["offset_b"]) == offset_b)


@journaled("joints.take_back")
def take_back(world, joint):
    """Remove the last joint of the world equal to the player's ``joint`` (the undo of ``place``);
    False if there is none (it broke, or an end went and took it)."""
    d = definition(world, joint)
    if d is None:
        return False
    if holds_body(d):
        bodies = world.bodies
        wanted = tuple(("body", int(bodies.ids[e["body"]])) if isinstance(e, dict) else
                       ("anchor", -1) if isinstance(e, list) else ("ball", int(world.ids[e])) for e in (d["a"], d["b"]))
        for k in range(len(bodies.joint_ends) - 1, -1, -1):
            ends = tuple(("body", int(bodies.ids[i])) if kind == "body" else (kind, i) for kind, i in bodies.joint_ends[k])
            given = bodies.joint_definitions[k]
            if (not bodies.joint_handle[k] and ends == wanted and _same(given, "rod", d["length"], d["offset_a"], d["offset_b"])
                    and (not isinstance(d["b"], list) or list(given["b"]) == d["b"])):
                keep = np.ones(len(bodies.joint_ends), bool)
                keep[k] = False
                bodies.keep_joints(keep)
                return True
        return False
    made = world.joints.definitions()
    for k in range(len(made) - 1, -1, -1):
        if made[k]["a"] == d["a"] and made[k]["b"] == d["b"] and "motor" not in made[k] \
                and _same(made[k], "rod", d["length"], d["offset_a"], d["offset_b"]):
            keep = np.ones(len(made), bool)
            keep[k] = False
            world.joints.keep(keep)
            world.wake()
            return True
    return False
