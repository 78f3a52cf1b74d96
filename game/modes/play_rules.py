"""What a run of a level allows and how it ends: the puzzle's budgets (balls to add, segments
to draw, grab, delete), the goal observed between ticks, the completion recorded once, and
the world blowing up. Plain functions of the PlayMode (``play``) and of worlds."""
import math
import os

import numpy as np

from game.defaults import PLAYER_JOINTS
from game.goals import BODY_SHAPES, goal_inside
from game.app.progress import next_unsolved
from game.modes.menu import every_level, file_number

RECOVERY_INTEGRATOR = "rk4"  # offered when the world blows up: it holds stiff springs
BREAK_SOUND_SPEED = 12.0       # m/s: a joint's break sounds as loud as an impact this fast


def world_is_finite(world):
    """False once the world has blown up: World.blown_up, the one test (the headless report's
    ``finite`` is the same): a number not finite, or a speed or a position beyond what the
    level format holds (a stiff spring under Euler at 4e8 m/s is finite but blown up)."""
    return not world.blown_up()


def blow_up_line(integrator):
    """The one line the player reads when the world went non-finite under ``integrator``."""
    if integrator != RECOVERY_INTEGRATOR:
        return (f"the world blew up under {integrator} (too stiff for it): "
                f"press I to restart under {RECOVERY_INTEGRATOR}, R to reset")
    return f"the world blew up under {integrator}: something is too stiff for the tick; press R to reset"


def is_puzzle(play):
    """A puzzle: a level that limits the player and gives a budget of segments to draw, of
    bodies to place (level 46's one plank, 48's five) or of joints to place (26's pin)."""
    rules = play.rules
    return limited(play) and (rules["draw"] not in (0, None) or rules["bodies"] not in (0, None)
                              or any(rules["joints"].values()))


def hand_is_empty(play):
    """The left button's ball tool would do nothing here: the level lets the player add no
    balls and no bodies, and grab nothing (level 10: draw one segment, nothing else)."""
    rules = play.rules
    return rules["spawn"] == 0 and rules["bodies"] == 0 and not rules["grab"]


def start_puzzle(play):
    """A puzzle opens paused: the player builds, then Space lets the world run. The left
    button draws where the level gives segments, else it places bodies (V picks the shape)."""
    play.tool = "balls"
    if is_puzzle(play):
        restart_puzzle(play)
        given = [k + "s" for k in PLAYER_JOINTS if play.rules["joints"].get(k)]
        joints = f" (J: your {' and '.join(given)})" if given else ""
        if play.tool == "draw":
            play.app.toast("a puzzle: draw with the mouse" + ("" if hand_is_empty(play) else " (W: balls)")
                           + joints + ", then Space runs it")
        elif play.tool == "joint":
            play.app.toast(f"a puzzle: place your {' and '.join(given)} with the mouse, then Space runs it")
        else:
            if play.rules["spawn"] == 0 and play.shape == "ball":   # no balls to add: start on a body
                play.shape = BODY_SHAPES[0]
            play.app.toast("a puzzle: place your bodies with the mouse (V picks the shape), then Space runs it")


def restart_puzzle(play):
    """R in a puzzle: paused again, the left button drawing (or placing bodies where the
    level gives no segments), as it opened (what the player made stays; the toast of R says so)."""
    if is_puzzle(play):
        play.app.clock.paused = True
        play.tool = "draw" if play.rules["draw"] not in (0, None) else "balls"
        if play.tool == "balls" and play.rules["bodies"] in (0, None) and any(play.rules["joints"].values()):
            play.tool = "joint"          # a puzzle of joints alone: the left button places them
            play.joint_kind = next(k for k in PLAYER_JOINTS if play.rules["joints"].get(k))


# The budget rule. A puzzle's budgets count what the player added in this run of the level:
# the segments in the world (those kept over R too) and the balls added since it started.
# Ctrl+Z gives an item's budget back only while the run has not ticked yet (the level
# paused as it opened, or after R): that is building. Once the world has run a tick, Ctrl+Z
# still takes the item away but its budget stays spent until R starts the run again, so a
# player cannot draw, watch, undo and draw again for ever while the balls fall.
def limit_of(play, what):
    """The level's limit of ``what``: "spawn", "bodies", "draw", "ink" (None: no limit), or a
    kind of joint, "pin" or "rod" (the level's "joints": a kind left out is 0)."""
    if what in PLAYER_JOINTS:
        return int(play.rules["joints"].get(what, 0))
    return play.rules[what]


def spent(play, what):
    """Balls ("spawn"), bodies ("bodies"), segments ("draw"), metres of segment ("ink") or
    joints of a kind ("pin", "rod") counted against the budget in this run."""
    if what in PLAYER_JOINTS:
        return play.joints_spent.get(what, 0)
    if what == "spawn":
        return play.spawned
    if what == "bodies":
        return play.bodies_spawned
    if what == "ink":
        return sum(math.dist(s["a"], s["b"]) for s in play.drawn) + sum(play.drawn_undone)
    return len(play.drawn) + len(play.drawn_undone)


def budget_note(play, what):
    """", still spent until R" where Ctrl+Z during a run kept the item's budget spent."""
    return ", still spent until R" if play.ran and limit_of(play, what) is not None else ""


def left_of(play, what):
    """Balls ("spawn"), bodies ("bodies"), segments ("draw"), metres of ink ("ink") or joints
    ("pin", "rod") the player may still add; None: no limit."""
    limit = limit_of(play, what)
    if limit is None:
        return None
    return max(0, limit - spent(play, what))


def observe_goal(play):
    """The goal as the world is now (after a spawn, delete or undo between ticks)."""
    if play.goal.has_goal:
        play.goal.observe(play.world.time, goal_inside(play.world))


def limited(play):
    """Whether the level limits the player (a puzzle): its budgets show under the bar."""
    rules = play.rules
    return (rules["spawn"] is not None or rules["bodies"] is not None or rules["draw"] is not None
            or rules["ink"] is not None
            or not rules["delete"] or not rules["grab"])


def record_completion(play):
    """The first frame the goal is complete in this run: the level counts as completed this
    session, a toast says so, and the progress file gets the run (balls and segments added)."""
    if play.goal.complete_at is not None and not play.recorded:
        play.recorded = True
        play.completed.add(os.path.realpath(play.app.session.path))
        play.app.toast("level complete!")
        progress = play.app.progress
        if progress is not None and not play.app.session.waiting:
            if not progress.record(play.app.session.path, play.goal.complete_at, play.spawned,
                                   spent(play, "draw")):
                play.app.toast(progress.error)


def open_next_unsolved(play):
    """N (play, the completion banner): the next level with a goal the progress file has not
    seen completed, after this one in the shipped levels and then the player's own."""
    app = play.app
    path = next_unsolved(app.progress, sum(every_level(app), []), app.session.path)
    if path is None:
        app.toast("every level with a goal is solved: well done")
    elif app.session.open(path):
        app.toast(f"next unsolved: {app.session.name}")


def work_to_lose(play):
    """What quitting now would lose, in words ("your 2 drawn segments"), or "": the
    segments the player drew (in any level) and, in a puzzle, the balls they placed."""
    parts = []
    if play.drawn:
        n = len(play.drawn)
        parts.append(f"your {n} drawn segment{'s' if n > 1 else ''}")
    if limited(play) and play.spawned:
        parts.append(f"{play.spawned} placed ball{'s' if play.spawned > 1 else ''}")
    if limited(play) and play.bodies_spawned:
        parts.append(f"{play.bodies_spawned} placed bod{'ies' if play.bodies_spawned > 1 else 'y'}")
    return " and ".join(parts)


def level_counter(play):
    """Which level this is: "level 20", the number its file name starts with (as the menu
    and the README number it); "3/9", its place among the folder's levels, for a file
    without one; "" if it is not one of the folder's levels."""
    files = play.app.level_files()
    real = [os.path.realpath(p) for p in files]
    here = os.path.realpath(play.app.session.path)
    if here not in real:
        return ""
    number = file_number(files[real.index(here)])
    return f"level {number}" if number is not None else f"{real.index(here) + 1}/{len(real)}"


def hear_breaks(play):
    """A joint that broke since the last frame snaps: the loudest knock, panned to it."""
    world, app = play.world, play.app
    log = getattr(world, "break_log", [])
    heard = getattr(play, "_break_heard", (None, 0.0))
    since = heard[1] if heard[0] is world.level else -1.0        # a new world: all its breaks are news
    fresh = [b for b in log if b[0] > since]
    play._break_heard = (world.level, max([since] + [b[0] for b in fresh]))
    if fresh and app.audio.enabled:
        points = np.array([b[1:] for b in fresh], float)
        pans = app.camera.world_to_screen(points)[:, 0] / max(1, app.camera.size[0])
        app.audio.play_impacts(np.full(len(fresh), BREAK_SOUND_SPEED), pans)


def may_add(play, point, budget, noun):
    """Whether the player may add a ``noun`` ("balls", "bodies") at ``point`` (m) now: inside the
    level, and the level's ``budget`` ("spawn", "bodies") not spent; else a toast says why."""
    x0, y0, x1, y1 = play.world.bounds
    if not (x0 <= point[0] <= x1 and y0 <= point[1] <= y1):
        play.app.toast("outside the level")
        return False
    if left_of(play, budget) == 0:
        limit = play.rules[budget]
        play.app.toast(f"this level lets you add no {noun}" if limit == 0 else
                       f"no {noun} left: this level lets you add {limit}"
                       + (" (R starts the run again)" if play.ran else " (Ctrl+Z takes one back)"))
        return False
    return True


def step_level(play, direction):
    """[ and ]: the level before or after this one among the folder's (wrapping round)."""
    app = play.app
    files = app.level_files()
    if not files:
        app.toast("no levels in " + app.level_dir)
        return
    real = [os.path.realpath(p) for p in files]
    here = os.path.realpath(app.session.path)
    if here in real:
        index = (real.index(here) + direction) % len(files)
    else:
        index = 0 if direction > 0 else len(files) - 1
    if app.session.open(files[index]):
        app.toast(app.session.name)
