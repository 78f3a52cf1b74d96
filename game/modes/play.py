"""Play: the world runs; the mouse spawns, flings, grabs and deletes balls; keys drive the
clock, the integrator, the debug layers and the level; the HUD shows the run.

PlayMode holds the run's state and routes input; the player's actions on the world are in
game.modes.play_actions, the puzzle's rules, the goal's bookkeeping and the blow-up in
game.modes.play_rules, and play's drawing over the world in game.draw.play_hud."""
import os

import numpy as np
import pygame

from game import defaults
from game.app.audio import world_impacts
from game.app.clock import TIME_SCALES
from game.app.gestures import Fling
from game.app.lab import Lab, next_ghost, toggle_lab
from game.draw import play_hud
from game.draw.debug import DEBUG_LAYERS
from game.draw.hud import EnergyHistory, energy_plot_rect
from game.draw.renderer import Trails
from game.goals import GoalTracker, goal_inside
from game.modes import play_actions, play_hints, play_joints, play_picker, play_pinball, play_rules
from game.modes.base import Mode
from game.modes.confirm import ConfirmQuitMode
from game.modes.help import HelpMode
from game.modes.menu import LevelMenuMode
from game.modes.play_actions import FLING_GAIN, PLAYER_SEED
from game.modes.play_rules import (RECOVERY_INTEGRATOR, left_of, level_counter, limited, record_completion,
                                   restart_puzzle, start_puzzle, work_to_lose, world_is_finite)
from game.modes.settings import SettingsMode
from game.physics.integrators import ORDER, next_integrator
from game.draw.theme import BAR_HEIGHT, HINT_HEIGHT, RULES_ROW

ZOOM_PER_NOTCH = 1.15        # scale factor per wheel notch

# Debug layers, cycled with D.
DEBUG_MODES = (("off", ()),
               ("contacts and offset vectors", ("contacts",)),
               ("velocities", ("velocities",)),
               ("swept paths and time-of-impact points", ("swept",)),
               ("broad-phase grid", ("grid",)),
               ("all debug layers", DEBUG_LAYERS))

# Every action, as the help overlay (and the README) lists it.
KEYMAP = (
    ("left click", "spawn a ball, or the body V picked"),
    ("left drag", f"fling a ball or body (velocity = drag x {FLING_GAIN:g} per second)"),
    ("Shift / Ctrl + fling", "with topspin / backspin (it would roll at its horizontal speed)"),
    ("left hold", "spray balls into the free spots nearest the pointer (a red ring: none free)"),
    ("left drag a ball", "grab it and carry it (a spring to the cursor; paused: moved)"),
    ("left drag a body", "grab it by that point: it hangs there and swings (paused: moved)"),
    ("right click", "delete a ball, or a body and its joints"),
    ("W   J", "left button: balls / draw segments / a puzzle's pins and rods (J again: which)"),
    ("right / middle drag", "pan"),
    ("mouse wheel", "zoom at the cursor"),
    # B, C and V share a line: the help fits 800 x 450 in two columns (tests/app/test_app.py).
    ("B   C   V", "ball size / material / ball, box, plank or triangle (Shift: back)"),
    ("Space", "pause / run"),
    (".", "step one tick (pauses)"),
    ("-   =", "slower / faster (time scale)"),
    ("R", "reset the level (and the settings)"),
    ("S", "settings: gravity, time scale, material"),
    ("I", "next integrator: " + " > ".join(ORDER)),
    ("G", "integrator lab: a ghost of the world under a second integrator"),
    ("Shift+I", "the ghost's integrator (the lab starts again from now)"),
    ("L", "level menu"),
    ("[   ]   N", "previous / next level / the next level not yet solved"),
    ("D", "debug layers: contacts, velocities, swept, grid, all"),
    ("T", "trails"),
    ("E", "energy plot"),
    ("F", "fit the level to the window"),
    ("M", "mute / unmute sound"),
    ("Ctrl+Z", "undo the last spawn, fling, delete or drawn segment"),
    ("Z   Left", "left flipper up, left-key motors reversed, while held (levels with them)"),
    ("/   Right", "right flipper up, right-key motors reversed, while held (levels with them)"),
    ("Down", "pinball: hold to charge the plunger, let go to launch (levels with one)"),
    ("Ctrl+S", "save the running world to my levels"),
    ("F12   F5   F9", "to screenshots/: a screenshot / this run's replay / a 6 s clip"),
    ("Tab / F2", "level editor: build and play-test this level"),
    ("H / F1", "this help (the world waits)"),
    ("Shift+H", "a puzzle's solution, after 5 tries (after 3 its first step shows)"),
    ("Esc", "close help; quit (asks first: Enter or Y quits)"),
)

TOOLS = ("balls", "draw")    # what the left button does (W switches)

# The keys that hold a level's flippers up (its motion's "key"): Z or the Left arrow, / or the
# Right arrow. Ctrl+Z stays undo; in a level without flippers they do nothing.
FLIPPER_KEYS = {pygame.K_z: "left", pygame.K_LEFT: "left",
                pygame.K_SLASH: "right", pygame.K_KP_DIVIDE: "right", pygame.K_RIGHT: "right"}


class PlayMode(Mode):
    """The bottom of the stack: the running level."""
    opaque = True
    pauses_below = True

    def __init__(self, app):
        super().__init__(app)
        self.left = None               # the left button's gesture: Fling or Hold
        self.pan = None                # the right or middle button's Pan
        self.debug_index = 0
        self.show_trails = False
        self.show_energy = False
        self.completed = set()         # real paths of the level files completed this session
        self.goal = GoalTracker.for_world(app.session.world)   # held now, and when first (game.goals)
        self.recorded = False          # this run's completion went to the progress file
        self.tool = "balls"            # what the left button does: TOOLS
        self.spawned = 0               # balls the player added this run (Ctrl+Z gives one back before it ticks)
        self.bodies_spawned = 0        # and bodies (the level's "bodies" budget)
        self.joints_spent, self.joint_kind = {}, "pin"   # joints placed this run, by kind; J's kind (play_joints)
        self.shape = "ball"            # what the left button adds: play_picker.SHAPES (V)
        self.drawn = []                # segment definitions the player drew (kept over R)
        self.drawn_doc = app.session.doc   # the definition they were drawn on
        self.drawn_undone = []         # lengths (m) of segments taken back by Ctrl+Z after this run ticked: still spent
        self.ran = False               # this run of the level has ticked (Ctrl+Z then keeps budgets spent)
        start_puzzle(self)
        self.trails = Trails()
        self.energy_history = EnergyHistory()
        self.energy = None             # the world's energies at the last frame that ticked
        self.counter = self.level_counter()   # "level 20" or "3/9" (the folder is listed once per level)
        self.undo_stack = []           # [("spawned", ball id) | ("deleted", BallRecord)], newest last
        self.spray_clock = 0.0         # wall s since the spray's last ball
        self.spot_taken = False        # the spray's spot under the pointer holds a ball now
        self.blew_up_under = None      # the integrator the world went non-finite under (None: finite)
        self.rng = np.random.default_rng(PLAYER_SEED)   # the player's balls' jitter, per run of the level
        self.picked_radius = None      # m: the picker's ball radius (None: the level's own)
        self.material_index = 0        # into BALL_MATERIALS
        self.picker_level = None       # the level file the picked radius was chosen on
        self.lab = None                # the integrator lab while it is on (G): game.app.lab.Lab
        self.pinball = play_pinball.for_play(self)     # the game of a "pinball" level, else None
        self.tries, self.solution_shown = {}, set()     # failed tries a level, solutions shown (play_hints)

    @property
    def world(self):
        """The level's world (app.world: while the ticks run on a worker thread, the view of it
        that is drawn meanwhile)."""
        return self.app.world

    @property
    def debug_layers(self):
        return DEBUG_MODES[self.debug_index][1]

    # ---- the world's life ------------------------------------------------------------------
    def new_world(self):
        """The session rebuilt the world (new level, reset, reload): forget what was drawn."""
        self.left = None
        self.trails.clear()
        self.energy_history.clear()
        self.counter = self.level_counter()
        self.undo_stack = []
        self.rng = np.random.default_rng(PLAYER_SEED)
        if os.path.realpath(self.app.session.path) != self.picker_level:
            self.picked_radius = None          # another level: its own ball size again
        self.spawned = self.bodies_spawned = 0
        self.joints_spent = {}
        self.drawn_undone = []
        self.ran = False
        self.recorded = False
        doc = self.app.session.doc
        if doc is not self.drawn_doc:      # another level, or this one changed: the drawing goes
            self.drawn, self.drawn_doc = [], doc
            start_puzzle(self)
        elif self.drawn:                   # R: the balls start again on what the player drew
            self.world.add_segments(self.drawn)
            self.app.renderer.invalidate()
            self.undo_stack = [("drew", segment) for segment in self.drawn]
        if self.rules["draw"] == 0:
            self.tool = "balls"
        self.goal = GoalTracker.for_world(self.world)
        self.pinball = play_pinball.for_play(self)     # R: a new game
        if self.blew_up_under is not None:
            self.app.clock.paused = False    # the blow-up paused it, not the player
        self.blew_up_under = None
        if self.lab is not None:           # a reset or a new level: the comparison starts again
            self.lab = Lab(self.world, self.lab.integrator)
        self._break_heard = (self.world.level, -1.0)     # every break of the new world is news
        self.record_energy()

    def tick_outcome(self, world):
        """What after_tick needs of the tick just run, read from ``world`` at once, on the thread
        that ran it (the next tick replaces these arrays, never writes them): (impact points
        (K, 2) m, impact speeds (K,) m/s, the trail's Trails.take entry or None, (world time s,
        goal_inside) or None without goals)."""
        goal = (world.time, goal_inside(world)) if self.goal.has_goal else None
        points, speeds = world_impacts(world)          # the balls' and the bodies' (a box landing)
        return points, speeds, Trails.take(world) if self.show_trails else None, goal

    def after_tick(self, outcome=None):
        """After every tick: its impacts' sounds and the trail points. outcome: tick_outcome's,
        taken when the tick ran (default: taken from the world now)."""
        app = self.app
        self.ran = True
        points, speeds, trail, goal = self.tick_outcome(self.world) if outcome is None else outcome
        if goal is not None:
            self.goal.observe(*goal)      # every tick, as headless does: the same complete_at
        if app.audio.enabled and len(speeds):
            pans = app.camera.world_to_screen(points)[:, 0] / max(1, app.camera.size[0])
            app.audio.play_impacts(speeds, pans)
        if trail is not None:
            self.trails.add(trail)

    def after_ticks(self):
        """After a frame's ticks: the energy sample, the goal, and whether the world blew up
        (then the clock pauses: stepping inf and nan shows nothing more, and costs)."""
        self.record_energy()
        self.hear_breaks()
        if self.blew_up_under is None and not world_is_finite(self.world):
            self.blew_up_under = self.world.integrator
            self.app.clock.paused = True
        record_completion(self)
        play_pinball.after_ticks(self)

    @property
    def complete_at(self):
        """s of world time the goal was first held this run (None: not yet)."""
        return self.goal.complete_at

    @property
    def rules(self):
        """What the level lets the player do: {"spawn", "draw": count or None (no limit),
        "delete", "grab": bool} (the level's "player")."""
        return {**defaults.PLAYER, **self.app.session.doc.get("player", {})}

    def hear_breaks(self):
        """A joint that broke since the last frame snaps (play_rules.hear_breaks)."""
        play_rules.hear_breaks(self)

    def record_energy(self):
        # "walls": the work done on the balls from outside, by moving walls and by motors (J)
        self.energy = dict(self.world.energy(), walls=float(self.world.wall_work + self.world.motor_work))
        self.energy_history.record(self.world.time, self.energy)
        if self.lab is not None:
            self.lab.record()

    def toggle_lab(self):
        """G: the integrator lab on (a ghost under the integrator after the world's) or off (lab.toggle)."""
        toggle_lab(self)

    def cycle_ghost_integrator(self):
        """Shift+I: the ghost starts again from the world now, under the next integrator (lab.next_ghost)."""
        next_ghost(self)

    def update(self, frame_dt):
        play_actions.follow_grab(self)
        play_pinball.update(self, frame_dt)
        if isinstance(self.left, Fling) and self.left.hold(frame_dt):
            play_actions.spray(self, frame_dt)

    # ---- input -------------------------------------------------------------------------------
    def handle_event(self, event):
        kind = event.type
        if kind == pygame.KEYDOWN:
            return self.key(event)
        if kind == pygame.KEYUP:
            return self.flipper_key(event, False)
        if kind == pygame.MOUSEMOTION:
            play_actions.motion(self, event.pos)
        elif kind == pygame.MOUSEBUTTONDOWN:
            play_actions.button_down(self, event.button, event.pos)
        elif kind == pygame.MOUSEBUTTONUP:
            play_actions.button_up(self, event.button, event.pos)
        elif kind == pygame.MOUSEWHEEL:
            notches = getattr(event, "precise_y", event.y)
            self.app.camera.zoom_at(self.app.mouse, ZOOM_PER_NOTCH ** notches)
        else:
            return False
        return True

    def key(self, event):
        app, clock, key = self.app, self.app.clock, event.key
        if self.flipper_key(event, True):
            return True
        if key == pygame.K_ESCAPE:
            # Asks, never quits at once: an Esc too many after closing the menu, the help or
            # the settings must not end the game (nor lose a drawing).
            app.push(ConfirmQuitMode(app, work_to_lose(self)))
        elif key == pygame.K_h and event.mod & pygame.KMOD_SHIFT:
            play_hints.show_solution(self)
        elif key in (pygame.K_h, pygame.K_F1):
            app.push(HelpMode(app, self.keymap()))
        elif key == pygame.K_SPACE:
            clock.toggle_pause()
        elif key in (pygame.K_PERIOD, pygame.K_KP_PERIOD):
            clock.step_once()
        elif key in (pygame.K_MINUS, pygame.K_KP_MINUS):
            app.toast(f"time x{clock.set_scale_index(clock.scale_index - 1):g}")
        elif key in (pygame.K_EQUALS, pygame.K_PLUS, pygame.K_KP_PLUS):
            app.toast(f"time x{clock.set_scale_index(clock.scale_index + 1):g}")
        elif key == pygame.K_r:
            news = play_hints.failed_try(self)     # a run that ticked and did not complete: a hint?
            app.session.reset()             # the level's gravity and material come back with it
            clock.set_scale_index(TIME_SCALES.index(1.0))
            restart_puzzle(self)            # a puzzle opens paused again, as it opened
            kept = len(self.drawn)
            app.toast(news or (f"reset ({self.world.integrator})" if not kept else
                               f"reset: your {kept} segment{'s' if kept > 1 else ''} stay (Ctrl+Z takes one back)"))
        elif key == pygame.K_i and event.mod & pygame.KMOD_SHIFT:
            self.cycle_ghost_integrator()
        elif key == pygame.K_i:
            self.cycle_integrator()
        elif key == pygame.K_g:
            self.toggle_lab()
        elif key == pygame.K_n:
            play_rules.open_next_unsolved(self)
        elif key == pygame.K_LEFTBRACKET:
            self.step_level(-1)
        elif key == pygame.K_RIGHTBRACKET:
            self.step_level(+1)
        elif key == pygame.K_d:
            self.debug_index = (self.debug_index + 1) % len(DEBUG_MODES)
            app.toast("debug: " + DEBUG_MODES[self.debug_index][0])
        elif key == pygame.K_t:
            self.show_trails = not self.show_trails
            self.trails.clear()
            app.toast("trails " + ("on" if self.show_trails else "off"))
        elif key == pygame.K_e:
            self.set_energy_shown(not self.show_energy)
        elif key == pygame.K_f:
            app.fit_camera()
        elif key == pygame.K_m:
            app.audio.muted = not app.audio.muted
            app.toast("sound " + ("off" if app.audio.muted else "on")
                      + ("" if app.audio.enabled else " (no audio device)"))
        elif key == pygame.K_l:
            app.push(LevelMenuMode(app))
        elif key in (pygame.K_w, pygame.K_j):
            self.switch_tool() if key == pygame.K_w else play_joints.pick(self)
        elif key == pygame.K_z and event.mod & pygame.KMOD_CTRL:
            self.undo()
        elif key == pygame.K_s and event.mod & pygame.KMOD_CTRL:
            play_actions.save_snapshot(self)
        elif key == pygame.K_s:
            app.push(SettingsMode(app))
        elif key == pygame.K_b:
            play_actions.pick_radius(self, -1 if event.mod & pygame.KMOD_SHIFT else +1)
        elif key in (pygame.K_c, pygame.K_v):
            pick = play_actions.pick_material if key == pygame.K_c else play_picker.pick_shape
            pick(self, -1 if event.mod & pygame.KMOD_SHIFT else +1)
        elif key == pygame.K_F12:
            app.request_screenshot()
        elif key in (pygame.K_F5, pygame.K_F9):             # this run's replay / a clip of what comes
            (app.recording.save_replay if key == pygame.K_F5 else app.recording.toggle_clip)()
        elif key in (pygame.K_TAB, pygame.K_F2):
            if app.editor_factory is None:
                app.toast("no editor in this window")
            else:
                app.push(app.editor_factory(app))
        else:
            return False
        return True

    # ---- flippers ------------------------------------------------------------------------------
    def flipper_key(self, event, held):
        """Z / Left and / / Right press (``held``) or release the level's flippers of that side
        (world.press_flipper); False (not consumed) for other keys, for Ctrl+Z, and in a level
        without flippers of that side."""
        side = FLIPPER_KEYS.get(event.key)
        if play_pinball.key(self, event, held):         # Down: the plunger
            return True
        if side is None or (held and event.mod & pygame.KMOD_CTRL):
            return False
        world = self.app.session.world
        if side not in getattr(world, "flipper_keys", ()):
            return False
        world.press_flipper(side, held)
        return True

    def release_flippers(self):
        """Let every flipper fall back: a mode covering play takes the keys' releases."""
        world = self.app.session.world
        for side in getattr(world, "flipper_keys", ()):
            world.press_flipper(side, False)

    def exit(self):
        self.release_flippers()

    def can_quit(self):
        """The window's close button: quit at once unless work would be lost; then ask."""
        losing = work_to_lose(self)
        if not losing or isinstance(self.app.top, ConfirmQuitMode):
            return True
        self.app.push(ConfirmQuitMode(self.app, losing))
        return False

    def keymap(self):
        """The help's keys: the flipper keys only in a level that has flippers or keyed motors."""
        if getattr(self.world, "flipper_keys", ()):
            return KEYMAP
        return tuple(entry for entry in KEYMAP if "flipper" not in entry[1])

    def switch_tool(self):
        """W: the left button adds balls or draws segments (where the level lets it)."""
        if self.tool == "balls" and self.rules["draw"] == 0:
            self.app.toast("this level lets you draw no segments")
            return
        if self.tool == "draw" and play_rules.hand_is_empty(self):
            self.app.toast("this level lets you add, fling and grab nothing: the left button draws")
            return
        self.tool = TOOLS[(TOOLS.index(self.tool) + 1) % len(TOOLS)] if self.tool in TOOLS else TOOLS[self.rules["draw"] != 0]
        self.left = None
        left = self.left_of("draw")
        self.app.toast("left button: draw segments" + ("" if left is None else f" ({left} left)")
                       if self.tool == "draw" else "left button: balls")

    def cycle_integrator(self):
        if self.blew_up_under is not None and self.blew_up_under != RECOVERY_INTEGRATOR:
            # The world is inf and nan: no integrator brings it back, so I starts it again
            # under the one that holds stiff springs.
            self.app.session.reset()
            self.world.integrator = RECOVERY_INTEGRATOR
            self.app.toast(f"reset under {RECOVERY_INTEGRATOR}")
            return
        following = next_integrator(self.world.integrator)   # the world holds only names in ORDER
        self.world.integrator = following
        self.app.toast(f"integrator: {following}")

    def set_energy_shown(self, shown):
        """Show or hide the energy plot; a fitted level moves aside for it (or back)."""
        self.show_energy = bool(shown)
        if self.app.camera.fitted:
            self.app.fit_camera()

    def camera_inset(self):
        """(top, bottom, right) px the level keeps clear of: the HUD's top bar (and the row
        under it that shows a puzzle's budgets), the key hint, and the energy plot's column
        while it shows (unless the window is narrow)."""
        top = BAR_HEIGHT + (RULES_ROW if limited(self) else 0)
        right = 0
        if self.show_energy:
            size = self.app.camera.size
            right = size[0] - energy_plot_rect(size, HINT_HEIGHT).left
            if right > size[0] // 2:
                right = 0            # a narrow window: the plot lies over the level instead
        return (top, HINT_HEIGHT, right)

    def step_level(self, direction):
        """[ and ]: the level before or after this one (play_rules.step_level)."""
        play_rules.step_level(self, direction)

    def level_counter(self):
        """ "level 20" or "3/9" (play_rules.level_counter)."""
        return level_counter(self)

    # ---- the player's verbs, by name (game.modes.play_actions, game.modes.play_rules) --------
    def left_of(self, what):
        """Balls ("spawn") or segments ("draw") the player may still add; None: no limit."""
        return left_of(self, what)

    def spawn(self, point, velocity=(0.0, 0.0), spin=0.0):
        """Add the player's ball at ``point`` m (play_actions.spawn); its index or -1."""
        return play_actions.spawn(self, point, velocity, spin)

    def draw_segment(self, a, b):
        """Draw the player's segment from ``a`` to ``b`` m (play_actions.draw_segment)."""
        return play_actions.draw_segment(self, a, b)

    def undo(self):
        """Ctrl+Z: take back the player's last action (play_actions.undo)."""
        return play_actions.undo(self)

    def spawn_radius(self):
        """m: the radius of the player's next ball."""
        return play_actions.spawn_radius(self)

    def ball_label(self):
        """ "0.25 m rubber": the picker's next ball."""
        return play_actions.ball_label(self)

    # ---- drawing (game.draw.play_hud) ----------------------------------------------------------
    def draw(self, surface):
        play_hud.draw_play(self, surface)

    def draw_hud(self, surface):
        play_hud.draw_hud(self, surface)

    def hint(self):
        """The key hint, with the picker's next ball in it."""
        return play_hud.hint(self)

    def rules_line(self):
        """[(text, active)]: what the left button does and what is left of each budget."""
        return play_hud.rules_line(self)
