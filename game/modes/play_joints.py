"""The player's joints in a puzzle (J): the pins and rods a level's ``"player": {"joints": {"pin":
1, "rod": 2}}`` gives, placed with the mouse while the puzzle is paused, as the editor's joint
tool makes them (game.editor.joint_tool) and counted as the other budgets are (play_rules).

- a **pin**: a click on a ball or a body pins it to the world at the point clicked (a ball
  clicked near its centre: at its centre, an axle; elsewhere: that point of it, a crank); a
  click where two things overlap (two planks crossing, a ball on a box) pins them together;
- a **rod**: press on a ball or a body, then click (or drag to, and let go on) another one, or
  empty space for an anchor: it keeps the two as far apart as they are. A ball is held at its
  centre, a body at the point clicked.

The joint goes to the world through game.physics.player_joints (its ends by id, journaled
for replays) and to the integrator lab's ghost alike; Ctrl+Z takes it back, its budget back
only before the run ticked. Plain functions of the PlayMode (``play``)."""
import math

from game.app.gestures import far
from game.defaults import PLAYER_JOINTS
from game.goals import player_joint
from game.modes.play_rules import budget_note, left_of, limit_of
from game.physics import body_hand, player_joints

PICK_PIXELS = 8              # px: a click this near a ball's centre pins (or holds) the centre
MIN_ROD = 0.1                # m: a rod shorter than this is refused (a pin does that)


class JointStart:
    """A rod being placed: its first end (``end``: ("ball" | "body", index); ``point`` m, where
    it is held) and where the press was (``pos`` px)."""

    def __init__(self, pos, end, point):
        self.start = pos
        self.end = end
        self.point = point


def kinds(play):
    """The kinds of joint this level lets the player place, in PLAYER_JOINTS order."""
    return [k for k in PLAYER_JOINTS if limit_of(play, k)]


def pick(play):
    """J: the left button places joints, the next kind the level gives each press after."""
    given = kinds(play)
    if not given:
        play.app.toast("this level lets you place no joints")
        return
    if play.tool == "joint" and len(given) > 1:
        play.joint_kind = given[(given.index(play.joint_kind) + 1) % len(given)] if play.joint_kind in given else given[0]
    elif play.tool != "joint" or play.joint_kind not in given:
        play.joint_kind = given[0]
    play.tool, play.left = "joint", None
    left = left_of(play, play.joint_kind)
    how = "click a ball or body (two overlapping: joined)" if play.joint_kind == "pin" else \
        "press on a ball or body, then click another one or empty space"
    play.app.toast(f"left button: {play.joint_kind}s ({left} left): {how}")


def _things(play, point):
    """[("ball" | "body", index)] under ``point`` m: the ball first, then the bodies, nearest first."""
    world = play.world
    ball = world.ball_at(point)
    return ([("ball", ball)] if ball >= 0 else []) + [("body", b) for b in body_hand.all_at(world, point)]


def _frame(play, thing):
    """(pos m, angle rad) of a ball or body now."""
    world = play.world
    if thing[0] == "ball":
        return world.pos[thing[1]], float(world.angle[thing[1]])
    return world.bodies.pos[thing[1]], float(world.bodies.angle[thing[1]])


def _near_centre(play, thing, point):
    return thing[0] == "ball" and math.dist(point, play.world.pos[thing[1]]) * play.app.camera.scale <= PICK_PIXELS


def _may_place(play):
    """Whether a joint of the chosen kind may be placed now; else a toast says why."""
    if not play.app.clock.paused:
        play.app.toast("joints are placed while paused: Space pauses")
        return False
    if left_of(play, play.joint_kind) == 0:
        limit = limit_of(play, play.joint_kind)
        play.app.toast(f"no {play.joint_kind}s left: this level lets you place {limit}"
                       + (" (R starts the run again)" if play.ran else " (Ctrl+Z takes one back)"))
        return False
    return True


def press(play, pos, point):
    """A left press with the joint tool: a pin, a rod's first end, or a pending rod's second."""
    if isinstance(play.left, JointStart):
        return finish(play, play.left, point)
    if not _may_place(play):
        return None
    things = _things(play, point)
    if not things:
        play.app.toast(f"a {play.joint_kind} holds a ball or a body: click on one")
        return None
    if play.joint_kind == "pin":
        a, b = things[0], things[1] if len(things) > 1 else None
        at = list(play.world.pos[a[1]]) if b is None and _near_centre(play, a, point) else [float(v) for v in point]
        return _place(play, a, b, [at, at])
    first = things[0]
    held = list(play.world.pos[first[1]]) if first[0] == "ball" else [float(v) for v in point]
    play.left = JointStart(pos, first, held)
    return None


def release(play, start, pos, point):
    """The button comes up over ``point``: a drag from the first end ends the rod there; a
    click leaves it waiting for the second end's click."""
    if far(pos, start.start):
        return finish(play, start, point)
    play.left = start
    return None


def finish(play, start, point):
    """The rod's second end at ``point`` m: a ball (its centre), a body (the point), or empty
    space (an anchor); returns the joint placed or None."""
    play.left = None
    other = [t for t in _things(play, point) if t != start.end]
    b = other[0] if other else None
    held = (list(play.world.pos[b[1]]) if b[0] == "ball" else [float(v) for v in point]) if b is not None \
        else [float(v) for v in point]
    if math.dist(start.point, held) < MIN_ROD:
        play.app.toast("a rod joins two points apart: a pin holds one point")
        return None
    if not _may_place(play):
        return None
    return _place(play, start.end, b, [start.point, held])


def _by_id(world, thing):
    """["ball" | "body", id] of a ball or body known by its index now (game.physics.player_joints)."""
    return [thing[0], int((world.ids if thing[0] == "ball" else world.bodies.ids)[thing[1]])]


def _place(play, a, b, points):
    """Place the player's joint between ``a`` and ``b`` (None: the world) held at ``points``."""
    world = play.world
    made = player_joint(play.joint_kind, a, b, points, [_frame(play, a), _frame(play, b) if b is not None else None])
    joint = {**made, "a": _by_id(world, a), "b": _by_id(world, b) if b is not None else ["anchor", made["b"]]}
    if not player_joints.place(world, joint):
        return None
    if play.lab is not None:
        player_joints.place(play.lab.ghost, joint)
    play.joints_spent[play.joint_kind] = play.joints_spent.get(play.joint_kind, 0) + 1
    play.undo_stack.append(("joint", (play.joint_kind, joint)))
    what = "to the world" if b is None else f"to the {b[0]}"
    play.app.toast(f"{play.joint_kind}: the {a[0]} held {what} ({left_of(play, play.joint_kind)} left, Ctrl+Z takes it back)")
    return joint


def undo(play, detail):
    """Ctrl+Z of a placed joint ((kind, joint)); False if it is gone already (it broke)."""
    kind, joint = detail
    if not player_joints.take_back(play.world, joint):
        return False
    if play.lab is not None:
        player_joints.take_back(play.lab.ghost, joint)
    if not play.ran:                  # building: the joint's budget comes back (play_rules)
        play.joints_spent[kind] = max(0, play.joints_spent.get(kind, 0) - 1)
    play.app.toast(f"undo: {kind} taken back" + budget_note(play, kind))
    return True
