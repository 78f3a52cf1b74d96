"""The player's bodies in play: a click or a fling that adds the spawn tool's body (box,
plank or triangle: game.modes.play_picker; with a fling's velocity and its Shift / Ctrl spin,
as a ball gets), a body grabbed at the point pressed (game.physics.bodies.grab: it hangs
from that point and swings about it, as in Box2D's samples and Algodoo) and carried there
while paused, a right click that deletes one (its joints with it), Ctrl+Z for both, and the
level's "bodies" budget. Plain functions of the PlayMode (``play``), as play_actions' are.

A body's identity for Ctrl+Z is its definition's dict in ``world.bodies.definitions`` (the
same object while the body lives, whatever index it moves to as others go)."""
import math

import numpy as np

from game.app.gestures import BodyHold
from game.goals import player_body
from game.modes.play_picker import BALL_MATERIALS
from game.modes.play_rules import budget_note, may_add, observe_goal
from game.physics import bodies as world_bodies


def definition(play, shape, point, velocity=(0.0, 0.0), spin=0.0):
    """The normalised definition (game.goals.player_body) of the player's ``shape`` at
    ``point`` m, with ``velocity`` m/s and ``spin`` rad/s, of the material the picker chose
    (C) or the level's."""
    material = {**play.world.material, **(BALL_MATERIALS[play.material_index][1] or {})}
    return player_body(shape, point, material, velocity, spin)


def spawn(play, point, velocity=(0.0, 0.0), spin=0.0):
    """Add the player's body of the spawn tool's shape at ``point`` m (no jitter: boxes
    clicked onto one another stack, as built ones do); its index, or -1 (outside the level,
    or the level's "bodies" budget spent)."""
    world = play.world
    if not may_add(play, point, "bodies", "bodies"):
        return -1
    index = world_bodies.add(world, [definition(play, play.shape, point, velocity, spin)])[0]
    play.bodies_spawned += 1
    play.undo_stack.append(("spawned body", world.bodies.definitions[index]))
    play.record_energy()
    observe_goal(play)
    return index


def index_of(world, token):
    """The index now of the body whose definition is ``token``, -1 if it is gone."""
    return next((i for i, d in enumerate(world.bodies.definitions) if d is token), -1)


# ---- the hand ---------------------------------------------------------------------------------
def grab(play, pos, point):
    """A left press at ``point`` m (``pos`` px) on a body: hold it there (BodyHold). False if
    no body is there; True (and a toast) where the level lets no grab."""
    world = play.world
    hit = world_bodies.at(world, point)
    if hit < 0:
        return False
    if not play.rules["grab"]:
        play.app.toast("this level does not let you grab bodies")
        play.left = None
        return True
    c, s = math.cos(world.bodies.angle[hit]), math.sin(world.bodies.angle[hit])
    d = np.asarray(point, float) - world.bodies.pos[hit]
    local = np.array([c * d[0] + s * d[1], -s * d[0] + c * d[1]])
    play.left = BodyHold(pos, world_bodies.grab(world, hit, point), local)
    return True


def follow(play, hold, cursor):
    """Keep the held point's grab at ``cursor`` m. While paused no joint pulls, so the body
    is put with the point held on the cursor, at rest (its angle kept)."""
    world = play.world
    if play.app.clock.paused:
        b = world_bodies.grabbed(world, hold.handle)
        if b >= 0:
            bodies = world.bodies
            c, s = math.cos(bodies.angle[b]), math.sin(bodies.angle[b])
            pos, vel, spin = bodies.pos.copy(), bodies.vel.copy(), bodies.spin.copy()
            pos[b] = cursor - np.array([c * hold.local[0] - s * hold.local[1], s * hold.local[0] + c * hold.local[1]])
            vel[b], spin[b] = 0.0, 0.0
            bodies.pos, bodies.vel, bodies.spin = pos, vel, spin
    world_bodies.move_grab(world, hold.handle, cursor)


def release(play, hold):
    world_bodies.release(play.world, hold.handle)


# ---- delete and undo ----------------------------------------------------------------------------
def delete_at(play, point):
    """A right click on a body deletes it and its joints (kept for Ctrl+Z); its index or -1."""
    world = play.world
    hit = world_bodies.at(world, point)
    if hit < 0:
        return -1
    if not play.rules["delete"]:
        play.app.toast("this level does not let you delete bodies")
        return -1
    play.undo_stack.append(("deleted body", _take(world, hit)))
    play.record_energy()
    observe_goal(play)
    return hit


def _take(world, index):
    """Remove body ``index`` and return what puts it back: its definition at its pose now
    (Bodies.to_definitions: its state to the bit), the joints that held it (their other ends
    by body definition, ball id or anchor) and its identity."""
    bodies = world.bodies
    joints = []
    for k, ends in enumerate(bodies.joint_ends):
        if bodies.joint_handle[k] or ("body", index) not in ends:
            continue                                  # the player's grab is not put back
        kept = []
        for kind, i in ends:
            kept.append(("self", None) if (kind, i) == ("body", index) else
                        ("body", bodies.definitions[i]) if kind == "body" else (kind, i))
        joints.append((bodies.joint_definitions[k], kept))
    record = {"definition": bodies.to_definitions()[index], "joints": joints, "token": bodies.definitions[index]}
    world_bodies.remove(world, [index])
    return record


def _put_back(play, record):
    """Ctrl+Z of a delete: the body as it was, and its joints whose other ends are still here."""
    world = play.world
    index = world_bodies.add(world, [record["definition"]])[0]
    token = world.bodies.definitions[index]
    _retoken(play, record["token"], token)
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


def _retoken(play, old, new):
    """A body put back is a new definition object: the undo stack's mentions of it follow."""
    for k, (what, detail) in enumerate(play.undo_stack):
        if what == "spawned body" and detail is old:
            play.undo_stack[k] = (what, new)
        elif what == "deleted body":
            detail["joints"] = [(d, [(kind, new if kind == "body" and i is old else i) for kind, i in ends])
                                for d, ends in detail["joints"]]


def undo(play, what, detail):
    """Ctrl+Z of a body's spawn ("spawned body") or delete ("deleted body"); False if the
    spawned body is gone already (the undo goes on to the action before)."""
    world = play.world
    if what == "spawned body":
        index = index_of(world, detail)
        if index < 0:
            return False
        world_bodies.remove(world, [index])
        if not play.ran:                  # building: the body's budget comes back (play_rules)
            play.bodies_spawned = max(0, play.bodies_spawned - 1)
        play.app.toast("undo: body taken back" + budget_note(play, "bodies"))
    else:
        _put_back(play, detail)
        play.app.toast("undo: body put back")
    return True
