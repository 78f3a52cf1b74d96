"""The player's hand in play: what the mouse does to the running world (spawn, fling with
spin, spray, grab, delete, draw segments; bodies: game.modes.play_bodies), Ctrl+Z's undo and
Ctrl+S's snapshot (the picker, B, C and V: game.modes.play_picker). Plain functions of the PlayMode (``play``), whose state they read and change: its
undo stack, the balls and segments the player added, the picker and the spray's clock."""
import os

import math

import numpy as np
import pygame

from game.app import placing
from game.app.gestures import BodyHold, Fling, Hold, Pan, far
from game.app.progress import my_levels_dir
from game.goals import DRAWN_MIN_LENGTH, player_segment
from game.level import LevelError, save
from game.level.normalise import fill
from game.modes import play_bodies, play_joints
from game.modes.play_picker import (BALL_MATERIALS, BALL_RADII, ball_label, fling_radius,  # noqa: F401 (the picker)
                                    level_radius, pick_material, pick_radius, spawn_radius)
from game.modes.play_rules import budget_note, left_of, may_add, observe_goal
from game.physics import geometry
from game.physics.statics import surface_touched

FLING_GAIN = 3.0             # 1/s: fling velocity (m/s) = drag vector (m) * FLING_GAIN
AIM_PREVIEW_SECONDS = 1.2    # s of predicted flight drawn while aiming
SPRAY_EVERY = 0.08           # wall s between the balls a held press sprays
SPRAY_BACKLOG = 3            # balls a slow frame may owe the spray at most
PLAYER_SEED = 2718           # the player's jitter: the same clicks make the same balls every run
AIM_PREVIEW_SAMPLES = 49     # points along it (the dots drawn are every other one)


class Stroke:
    """A left drag that draws a segment: from where it started (px and metres)."""

    def __init__(self, start, start_world):
        self.start = start
        self.start_world = np.asarray(start_world, float)


def flight_preview(world, start, velocity, radius, seconds=AIM_PREVIEW_SECONDS, samples=AIM_PREVIEW_SAMPLES):
    """(K, 2) metres: where a ball of ``radius`` m thrown from ``start`` at ``velocity`` m/s
    flies under the world's gravity (x = x0 + v t + g t^2 / 2), sampled ``samples`` times
    over ``seconds``, up to its first touch of a static shape: each chord of the arc is
    swept against every capsule (geometry.swept_circle_segment) and the path ends where
    the first one is touched."""
    start = np.asarray(start, float)
    velocity = np.asarray(velocity, float)
    t = np.linspace(0.0, seconds, samples)[:, None]
    path = start + velocity * t + 0.5 * world.forces.gravity * t * t
    statics = world.statics
    if len(statics.radius) == 0:
        return path
    moves = np.diff(path, axis=0)                                        # (K-1, 2)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        touch = geometry.swept_circle_segment(path[:-1, None], radius, moves[:, None],
                                              statics.a[None], statics.b[None], statics.radius[None])
    first = np.min(touch, axis=1)                                        # (K-1,) per chord
    hit = np.flatnonzero(np.isfinite(first))
    if len(hit) == 0:
        return path
    k = int(hit[0])
    return np.vstack((path[:k + 1], path[k] + first[k] * moves[k]))


def fling_spin(velocity, radius, mods):
    """Spin (rad/s, counter-clockwise) a fling gives with Shift (topspin) or Ctrl (backspin):
    the spin of a ball of ``radius`` m rolling at the fling's horizontal speed, -vx / r, so a
    topspun ball lands already rolling and a backspun one skids and comes back; 0 without."""
    rolling = -float(velocity[0]) / radius
    if mods & pygame.KMOD_SHIFT:
        return rolling
    if mods & pygame.KMOD_CTRL:
        return -rolling
    return 0.0


def follow_grab(play):
    """Keep the held ball's grab at the cursor; a grab whose ball went ends here. While
    the world is paused no spring can pull, so the ball is carried to the cursor. (A held
    body: play_bodies.follow.)"""
    if isinstance(play.left, BodyHold):
        play_bodies.follow(play, play.left, play.app.cursor_world())
    elif isinstance(play.left, Hold):
        if play.app.clock.paused:
            play.world.place_grabbed(play.left.handle, play.app.cursor_world())
        else:
            play.world.move_grab(play.left.handle, play.app.cursor_world())
        if play.lab is not None:
            play.lab.move_grab(play.left.handle, play.app.cursor_world(), paused=play.app.clock.paused)


def spray(play, frame_dt):
    """A held press sprays a ball every SPRAY_EVERY wall seconds into the free spot
    nearest the pointer (placing.nearest_free: no ball, no wall, within a few diameters);
    spot_taken says none is free, and the pointer shows it."""
    # A slow frame makes the balls it owes (a few at most): the rate holds at any frame rate.
    play.spray_clock = min(play.spray_clock + frame_dt, SPRAY_BACKLOG * SPRAY_EVERY)
    radius = spawn_radius(play)
    size = placing.jitter_size(radius)
    while play.spray_clock >= SPRAY_EVERY:
        spot = placing.nearest_free(play.world, play.app.cursor_world(), radius, play.rng.uniform(-size, size, 2))
        play.spot_taken = spot is None
        if spot is None:
            play.spray_clock = SPRAY_EVERY        # the next free spot gets the next ball at once
            return
        play.spray_clock -= SPRAY_EVERY
        spawn(play, spot)


def taken(play, point):
    """Whether a new ball at ``point`` would overlap a ball or a wall, or lie outside."""
    return not bool(placing.free(play.world, np.asarray(point, float)[None], spawn_radius(play))[0])


def motion(play, pos):
    if play.pan is not None:
        dx, dy = play.pan.move(pos)
        if dx or dy:
            play.app.camera.pan(dx, dy)
    if isinstance(play.left, Fling):
        play.left.move(pos)
    follow_grab(play)


def button_down(play, button, pos):
    if button == 1:
        point = play.app.camera.screen_to_world(pos)
        if play.tool == "draw":
            play.left = Stroke(pos, point)
            return
        if play.tool == "joint":              # a pin, or a rod's ends (game.modes.play_joints)
            play_joints.press(play, pos, point)
            return
        hit = play.world.ball_at(point)
        if hit >= 0 and not play.rules["grab"]:
            play.app.toast("this level does not let you grab balls")
            play.left = None
        elif hit >= 0:
            play.left = Hold(pos, play.world.grab(hit, point))
            if play.lab is not None:
                play.lab.grabbed(play.left.handle, int(play.world.ids[hit]), point)
        elif not play_bodies.grab(play, pos, point):
            play.left = Fling(pos, point, sprays=play.shape == "ball")     # bodies: no spray
            play.spray_clock = 0.0
    elif button in (2, 3):
        play.pan = Pan(button, pos, pos)


def button_up(play, button, pos):
    if button == 1 and play.left is not None:
        left, play.left = play.left, None
        play.spot_taken = False
        if isinstance(left, Stroke):
            draw_segment(play, left.start_world, play.app.camera.screen_to_world(pos))
        elif isinstance(left, play_joints.JointStart):
            play_joints.release(play, left, pos, play.app.camera.screen_to_world(pos))
        elif isinstance(left, BodyHold):
            play_bodies.release(play, left)
        elif isinstance(left, Hold):
            play.world.release(left.handle)
            if play.lab is not None:
                play.lab.release(left.handle)
        elif left.spraying:
            pass                              # the spray made its balls already
        elif not left.dragging and not far(pos, left.start) and play.shape != "ball":
            play_bodies.spawn(play, left.start_world)
        elif not left.dragging and not far(pos, left.start):
            # A click: a small seeded jitter, so balls clicked onto one another topple
            # as real ones would (a column placed exactly in a level file still stands).
            spawn(play, placing.jittered(left.start_world, spawn_radius(play), play.rng))
        else:
            end = play.app.camera.screen_to_world(pos)
            velocity = (end - left.start_world) * FLING_GAIN
            # Keyboard modifiers exist only with a display (headless tests have none).
            mods = pygame.key.get_mods() if pygame.display.get_init() else 0
            spin = fling_spin(velocity, fling_radius(play), mods)
            (spawn if play.shape == "ball" else play_bodies.spawn)(play, left.start_world, velocity, spin)
    elif button in (2, 3) and play.pan is not None and play.pan.button == button:
        pan, play.pan = play.pan, None
        if button == 3 and not pan.moved:
            delete_at(play, play.app.camera.screen_to_world(pos))


def spawn(play, point, velocity=(0.0, 0.0), spin=0.0):
    """Add a ball at a world point (metres) with a velocity (m/s) and a spin (rad/s,
    counter-clockwise); -1 if outside the level."""
    if not may_add(play, point, "spawn", "balls"):
        return -1
    material = BALL_MATERIALS[play.material_index][1] or {}
    index = play.world.add_ball(point, velocity, radius=spawn_radius(play), spin=spin, **material)
    play.spawned += 1
    play.undo_stack.append(("spawned", int(play.world.ids[index])))
    if play.lab is not None:
        play.lab.spawned(point, velocity, radius=spawn_radius(play), spin=spin)
    play.record_energy()
    observe_goal(play)
    return index


def draw_segment(play, a, b):
    """Draw a segment from ``a`` to ``b`` (metres, kept within the level's bounds) into the
    running world, where the level lets the player; returns its definition or None."""
    x0, y0, x1, y1 = play.world.bounds
    a = np.clip(np.asarray(a, float), (x0, y0), (x1, y1))
    b = np.clip(np.asarray(b, float), (x0, y0), (x1, y1))
    if float(np.hypot(*(b - a))) < DRAWN_MIN_LENGTH:
        play.app.toast("drag further to draw a segment")
        return None
    drawn = player_segment(a, b)
    made_of = surface_touched(play.world, a, b, drawn["radius"])
    if made_of is not None:
        play.app.toast(f"you cannot draw on or through {made_of}")
        return None
    ink = left_of(play, "ink")
    if ink is not None and float(np.hypot(*(b - a))) > ink + 1e-9:
        play.app.toast(f"not enough ink: this segment is {float(np.hypot(*(b - a))):.1f} m, {ink:.1f} m left"
                       + (" (R starts the run again)" if play.ran else " (Ctrl+Z takes one back)"))
        return None
    if left_of(play, "draw") == 0:
        limit = play.rules["draw"]
        play.app.toast("this level lets you draw no segments" if limit == 0 else
                       f"no segments left: this level lets you draw {limit}"
                       + (" (R, then Ctrl+Z, takes one back)" if play.ran else " (Ctrl+Z takes one back)"))
        return None
    segment = {**drawn, **fill("segments", drawn, play.world.material)}
    play.world.add_segments([segment])
    play.drawn.append(segment)
    play.undo_stack.append(("drew", segment))
    play.app.renderer.invalidate()
    return segment


def delete_at(play, point):
    """A right click deletes the ball there, else the body there (play_bodies.delete_at)."""
    world = play.world
    hit = world.ball_at(point)
    if hit < 0:
        return play_bodies.delete_at(play, point)
    if hit >= 0 and not play.rules["delete"]:
        play.app.toast("this level does not let you delete balls")
        return -1
    if hit >= 0:
        play.undo_stack.append(("deleted", world.take_ball(hit)))
        if play.lab is not None:
            play.lab.removed(play.undo_stack[-1][1].ball_id, keep=True)
        play.record_energy()
        observe_goal(play)
    return hit


def undo(play):
    """Ctrl+Z: take back the last spawn, fling or delete of this run of the level (a
    deleted ball comes back as it was when deleted: its id, its state, its springs). The
    budget of a ball or segment comes back only before the run's first tick (play_rules)."""
    world = play.world
    while play.undo_stack:
        what, detail = play.undo_stack.pop()
        if what in ("spawned body", "deleted body"):
            if not play_bodies.undo(play, what, detail):
                continue                      # gone already: undo the one before
        elif what == "joint":
            if not play_joints.undo(play, detail):
                continue                      # broken already: undo the one before
        elif what == "spawned":
            where = np.flatnonzero(world.ids == detail)
            if len(where) == 0:
                continue                      # gone already (a kill zone): undo the one before
            world.remove_balls(where)
            if not play.ran:                  # building: the ball's budget comes back (play_rules)
                play.spawned = max(0, play.spawned - 1)
            if play.lab is not None:
                play.lab.removed(detail)
            play.app.toast("undo: ball taken back" + budget_note(play, "spawn"))
        elif what == "drew":
            world.remove_segment(detail)
            play.drawn.remove(detail)
            if play.ran:                      # running: the segment's budget stays spent (play_rules)
                play.drawn_undone.append(math.dist(detail["a"], detail["b"]))
            play.app.renderer.invalidate()
            play.app.toast("undo: segment taken back" + budget_note(play, "draw"))
        else:
            world.put_back(detail)
            if play.lab is not None:
                play.lab.put_back(detail.ball_id)
            play.app.toast("undo: ball put back")
        play.record_energy()
        observe_goal(play)
        return True
    play.app.toast("undo: nothing to undo")
    return False


def save_snapshot(play):
    """Ctrl+S: the running world (with the segments the player drew) as a new level file in
    my levels (game.app.progress.my_levels_dir: the player's data folder, never among the
    shipped levels; what --save writes headless), never over an existing file; a toast
    names it. Returns its path."""
    app, world = play.app, play.world
    doc = world.to_level()
    doc.pop("solution", None)
    held = {world.springs.index(i) for grab in world.grabs.values() for i in grab.spring_ids}
    doc["springs"] = [s for k, s in enumerate(doc["springs"]) if k not in held]   # not the mouse's
    stem = os.path.splitext(os.path.basename(app.session.path))[0]
    doc["name"] = f"{world.name or stem} (snapshot at {world.time:.1f} s)"[:100]
    folder = my_levels_dir()
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as error:
        app.toast(f"not saved: cannot make {folder}: {error.strerror or error}")
        return None
    path, n = os.path.join(folder, f"{stem}-snapshot.json"), 1
    while os.path.exists(path):
        n += 1
        path = os.path.join(folder, f"{stem}-snapshot-{n}.json")
    try:
        save(doc, path)
    except LevelError as error:
        app.toast(f"not saved: {error}")
        return None
    app.toast(f"saved to my levels: {os.path.basename(path)}")
    return path
