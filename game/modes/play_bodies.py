"""The player's bodies in play: a click or a fling that adds the spawn tool's body (box,
plank or triangle: game.modes.play_picker; with a fling's velocity and its Shift / Ctrl spin,
as a ball gets), a body grabbed at the point pressed (game.physics.bodies.grab: it hangs
from that point and swings about it, as in Box2D's samples and Algodoo) and carried there
while paused, a right click that deletes one (its joints with it), Ctrl+Z for both, and the
level's "bodies" budget. Plain functions of the PlayMode (``play``), as play_actions' are.

A body's identity for Ctrl+Z is its id (``world.bodies.ids``: a deleted body comes back with
it, game.physics.body_hand). While the integrator lab is on, each action goes to its ghost
too (game.app.lab: the ghost's body of the same id)."""
import numpy as np

from game.app.gestures import BodyHold
from game.goals import player_body
from game.modes.play_picker import BALL_MATERIALS
from game.modes.play_rules import budget_note, may_add, observe_goal
from game.physics import bodies as world_bodies
from game.physics import body_hand
from game.physics.body_kernels import LAX, LAY


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
    made = definition(play, play.shape, point, velocity, spin)
    index = world_bodies.add(world, [made])[0]
    play.bodies_spawned += 1
    play.undo_stack.append(("spawned body", int(world.bodies.ids[index])))
    if play.lab is not None:
        play.lab.spawned_body(made)
    play.record_energy()
    observe_goal(play)
    return index


# ---- the hand ---------------------------------------------------------------------------------
def grab(play, pos, point):
    """A left press at ``point`` m (``pos`` px) on a body: hold it there (BodyHold). False if
    no body is there; True (and a toast) where the level lets no grab."""
    world = play.world
    hit = body_hand.at(world, point)
    if hit < 0:
        return False
    if not play.rules["grab"]:
        play.app.toast("this level does not let you grab bodies")
        play.left = None
        return True
    handle = world_bodies.grab(world, hit, point)
    k = int(np.flatnonzero(world.bodies.joint_handle == handle)[0])
    local = world.bodies.joint_rows[k, LAX:LAY + 1].copy()     # the point pressed, in the body's frame
    play.left = BodyHold(pos, handle, local)
    if play.lab is not None:
        play.lab.grabbed_body(handle, int(world.bodies.ids[hit]), point, local)
    return True


def follow(play, hold, cursor):
    """Keep the held point's grab at ``cursor`` m. While paused no joint pulls, so the body
    is put with the point held on the cursor, at rest (its angle kept: body_hand.carry)."""
    paused = play.app.clock.paused
    (body_hand.carry if paused else world_bodies.move_grab)(play.world, hold.handle, cursor)
    if play.lab is not None:
        play.lab.move_body_grab(hold.handle, cursor, paused=paused)


def release(play, hold):
    world_bodies.release(play.world, hold.handle)
    if play.lab is not None:
        play.lab.release_body(hold.handle)


# ---- delete and undo ----------------------------------------------------------------------------
def delete_at(play, point):
    """A right click on a body deletes it and its joints (kept for Ctrl+Z: body_hand.take);
    its index or -1."""
    world = play.world
    hit = body_hand.at(world, point)
    if hit < 0:
        return -1
    if not play.rules["delete"]:
        play.app.toast("this level does not let you delete bodies")
        return -1
    record = body_hand.take(world, hit)
    play.undo_stack.append(("deleted body", record))
    if play.lab is not None:
        play.lab.removed_body(record["id"], keep=True)
    play.record_energy()
    observe_goal(play)
    return hit


def undo(play, what, detail):
    """Ctrl+Z of a body's spawn ("spawned body", its id) or delete ("deleted body", its
    record: it comes back with its id and joints); False if the spawned body is gone already
    (the undo goes on to the action before)."""
    world = play.world
    if what == "spawned body":
        index = body_hand.index_of(world, detail)
        if index < 0:
            return False
        world_bodies.remove(world, [index])
        if play.lab is not None:
            play.lab.removed_body(detail)
        if not play.ran:                  # building: the body's budget comes back (play_rules)
            play.bodies_spawned = max(0, play.bodies_spawned - 1)
        play.app.toast("undo: body taken back" + budget_note(play, "bodies"))
    else:
        body_hand.put_back(world, detail)
        if play.lab is not None:
            play.lab.put_back_body(detail["id"])
        play.app.toast("undo: body put back")
    return True
