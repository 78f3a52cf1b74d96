"""Play: the world runs; the mouse spawns, flings, grabs and deletes balls; keys drive the
clock, the integrator, the debug layers and the level; the HUD shows the run."""
import os

import numpy as np
import pygame

from game import defaults
from game.app import placing
from game.physics import geometry
from game.app.clock import TIME_SCALES
from game.goals import DRAWN_MIN_LENGTH, DRAWN_RADIUS, GoalTracker, goal_inside, player_ball_radius, player_segment
from game.app.gestures import Fling, Hold, Pan, far
from game.draw.hud import BAR_HEIGHT, HINT_HEIGHT, HINT_PANEL, SIZE_BODY, EnergyHistory, energy_plot_rect, short_number
from game.physics.integrators import ORDER, next_integrator
from game.app.lab import Lab
from game.level import LevelError, save
from game.level.normalise import fill
from game.modes.base import Mode
from game.modes.help import HelpMode
from game.modes.menu import LevelMenuMode
from game.modes.settings import SettingsMode
from game.draw.aim import draw_aim, draw_spin
from game.draw.debug import DEBUG_LAYERS
from game.draw.renderer import Trails
from game.app.progress import my_levels_dir

FLING_GAIN = 3.0             # 1/s: fling velocity (m/s) = drag vector (m) * FLING_GAIN
ZOOM_PER_NOTCH = 1.15        # scale factor per wheel notch
AIM_PREVIEW_SECONDS = 1.2    # s of predicted flight drawn while aiming
SPRAY_EVERY = 0.08           # wall s between the balls a held press sprays
SPRAY_BACKLOG = 3            # balls a slow frame may owe the spray at most
SPOT_TAKEN = (235, 80, 80)   # the pointer's ring while no spot near it is free
PLAYER_SEED = 2718           # the player's jitter: the same clicks make the same balls every run
# The ball picker (B / Shift+B, C / Shift+C): radii in metres (the level's own joins them),
# and materials, each (name, overrides of the level's material or None, preview colour).
BALL_RADII = (0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.75, 1.0)
BALL_MATERIALS = (
    ("level's", None, (235, 235, 235)),
    ("rubber", {"restitution": 0.85, "friction": 0.9, "density": 1.2}, (240, 110, 110)),
    ("steel", {"restitution": 0.3, "friction": 0.15, "density": 7.8}, (170, 185, 205)),
    ("wood", {"restitution": 0.45, "friction": 0.5, "density": 0.6}, (200, 150, 90)),
    ("ice", {"restitution": 0.1, "friction": 0.02, "density": 0.9}, (140, 220, 245)),
)
AIM_PREVIEW_SAMPLES = 49     # points along it (the dots drawn are every other one)
RECOVERY_INTEGRATOR = "rk4"  # offered when the world blows up: it holds stiff springs

# Debug layers, cycled with D.
DEBUG_MODES = (("off", ()),
               ("contacts and offset vectors", ("contacts",)),
               ("velocities", ("velocities",)),
               ("swept paths and time-of-impact points", ("swept",)),
               ("broad-phase grid", ("grid",)),
               ("all debug layers", DEBUG_LAYERS))

# Every action, as the help overlay (and the README) lists it.
KEYMAP = (
    ("left click", "spawn a ball"),
    ("left drag", f"fling a ball (velocity = drag x {FLING_GAIN:g} per second)"),
    ("Shift / Ctrl + fling", "with topspin / backspin (it would roll at its horizontal speed)"),
    ("left hold", "spray balls into the free spots nearest the pointer (a red ring: none free)"),
    ("left drag a ball", "grab it and carry it (a spring to the cursor; paused: moved)"),
    ("right click", "delete a ball"),
    ("W", "left button: add balls / draw segments (a puzzle says how many of each)"),
    ("right / middle drag", "pan"),
    ("mouse wheel", "zoom at the cursor"),
    ("B   Shift+B", "bigger / smaller balls (the cursor shows the next ball)"),
    ("C   Shift+C", "next / previous ball material: level's, rubber, steel, wood, ice"),
    ("Space", "pause / run"),
    (".", "step one tick (pauses)"),
    ("-   =", "slower / faster (time scale)"),
    ("R", "reset the level (and the settings)"),
    ("S", "settings: gravity, time scale, material"),
    ("I", "next integrator: " + " > ".join(ORDER)),
    ("G", "integrator lab: a ghost of the world under a second integrator"),
    ("Shift+I", "the ghost's integrator (the lab starts again from now)"),
    ("L", "level menu"),
    ("[   ]", "previous / next level"),
    ("D", "debug layers: contacts, velocities, swept, grid, all"),
    ("T", "trails"),
    ("E", "energy plot"),
    ("F", "fit the level to the window"),
    ("M", "mute / unmute sound"),
    ("Ctrl+Z", "undo the last spawn, fling, delete or drawn segment"),
    ("Ctrl+S", "save the running world to my levels"),
    ("F12", "screenshot to screenshots/"),
    ("Tab / F2", "level editor: build and play-test this level"),
    ("H / F1", "this help (the world waits)"),
    ("Esc", "close help, or quit"),
)

HINT = (("H", "help"), ("L", "levels"), ("W", "balls / draw"), ("B/C", "ball"), ("I", "integrator"),
        ("E", "energy"), ("D", "debug"), ("T", "trails"), ("S", "settings"), ("R", "reset"), ("Space", "pause"))
TOOLS = ("balls", "draw")    # what the left button does (W switches)
DRAW_PREVIEW = (120, 200, 255)
RULES_ROW = 40               # px under the HUD's bar a puzzle's budgets take (Hud.draw_rules)


class Stroke:
    """A left drag that draws a segment: from where it started (px and metres)."""

    def __init__(self, start, start_world):
        self.start = start
        self.start_world = np.asarray(start_world, float)


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
        self.spawned = 0               # balls the player added this run (Ctrl+Z gives one back)
        self.drawn = []                # segment definitions the player drew (kept over R)
        self.drawn_doc = app.session.doc   # the definition they were drawn on
        self.start_puzzle()
        self.trails = Trails()
        self.energy_history = EnergyHistory()
        self.energy = None             # the world's energies at the last frame that ticked
        self.counter = self.level_counter()   # "3/9" (the folder is listed once per level)
        self.undo_stack = []           # [("spawned", ball id) | ("deleted", BallRecord)], newest last
        self.spray_clock = 0.0         # wall s since the spray's last ball
        self.spot_taken = False        # the spray's spot under the pointer holds a ball now
        self.blew_up_under = None      # the integrator the world went non-finite under (None: finite)
        self.rng = np.random.default_rng(PLAYER_SEED)   # the player's balls' jitter, per run of the level
        self.picked_radius = None      # m: the picker's ball radius (None: the level's own)
        self.material_index = 0        # into BALL_MATERIALS
        self.picker_level = None       # the level file the picked radius was chosen on
        self.lab = None                # the integrator lab while it is on (G): game.app.lab.Lab

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
        self.spawned = 0
        self.recorded = False
        doc = self.app.session.doc
        if doc is not self.drawn_doc:      # another level, or this one changed: the drawing goes
            self.drawn, self.drawn_doc = [], doc
            self.start_puzzle()
        elif self.drawn:                   # R: the balls start again on what the player drew
            self.world.add_segments(self.drawn)
            self.app.renderer.invalidate()
            self.undo_stack = [("drew", segment) for segment in self.drawn]
        if self.rules["draw"] == 0:
            self.tool = "balls"
        self.goal = GoalTracker.for_world(self.world)
        if self.blew_up_under is not None:
            self.app.clock.paused = False    # the blow-up paused it, not the player
        self.blew_up_under = None
        if self.lab is not None:           # a reset or a new level: the comparison starts again
            self.lab = Lab(self.world, self.lab.integrator)
        self.record_energy()

    def start_puzzle(self):
        """A puzzle (a level with a budget of segments) opens paused with the left button on
        drawing: the player builds, then Space lets the balls come."""
        rules = self.rules
        self.tool = "balls"
        if self.limited() and rules["draw"] not in (0, None):
            self.app.clock.paused = True
            self.tool = "draw"
            self.app.toast("a puzzle: draw with the mouse (W: balls), then Space runs it")

    def tick_outcome(self, world):
        """What after_tick needs of the tick just run, read from ``world`` at once, on the thread
        that ran it (the next tick replaces these arrays, never writes them): (impact points
        (K, 2) m, impact speeds (K,) m/s, the trail's Trails.take entry or None, (world time s,
        goal_inside) or None without goals)."""
        goal = (world.time, goal_inside(world)) if self.goal.has_goal else None
        return world.impact_points, world.impact_speeds, Trails.take(world) if self.show_trails else None, goal

    def after_tick(self, outcome=None):
        """After every tick: its impacts' sounds and the trail points. outcome: tick_outcome's,
        taken when the tick ran (default: taken from the world now)."""
        app = self.app
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
        if self.blew_up_under is None and not world_is_finite(self.world):
            self.blew_up_under = self.world.integrator
            self.app.clock.paused = True
        if self.goal.complete_at is not None and not self.recorded:
            self.recorded = True
            self.completed.add(os.path.realpath(self.app.session.path))
            self.app.toast("level complete!")
            progress = self.app.progress
            if progress is not None and not self.app.session.waiting:
                if not progress.record(self.app.session.path, self.goal.complete_at, self.spawned, len(self.drawn)):
                    self.app.toast(progress.error)

    @property
    def complete_at(self):
        """s of world time the goal was first held this run (None: not yet)."""
        return self.goal.complete_at

    @property
    def rules(self):
        """What the level lets the player do: {"spawn", "draw": count or None (no limit),
        "delete", "grab": bool} (the level's "player")."""
        return {**defaults.PLAYER, **self.app.session.doc.get("player", {})}

    def left_of(self, what):
        """Balls ("spawn") or segments ("draw") the player may still add; None: no limit."""
        limit = self.rules[what]
        if limit is None:
            return None
        return max(0, limit - (self.spawned if what == "spawn" else len(self.drawn)))

    def observe_goal(self):
        """The goal as the world is now (after a spawn, delete or undo between ticks)."""
        if self.goal.has_goal:
            self.goal.observe(self.world.time, goal_inside(self.world))

    def record_energy(self):
        self.energy = self.world.energy()
        self.energy_history.record(self.world.time, self.energy)
        if self.lab is not None:
            self.lab.record()

    def toggle_lab(self):
        """G: start the integrator lab (a ghost of the world under the integrator after the
        world's, with the energy plot shown) or end it."""
        if self.lab is not None:
            self.lab = None
            self.app.toast("lab off")
            return
        self.lab = Lab(self.world)
        self.set_energy_shown(True)
        self.app.toast(f"lab: the ghost runs {self.lab.integrator} from here (Shift+I another)")

    def cycle_ghost_integrator(self):
        """Shift+I: the ghost starts again from the world as it is now, under the next integrator."""
        if self.lab is None:
            self.app.toast("the integrator lab is off: G starts it")
            return
        self.lab = Lab(self.world, next_integrator(self.lab.integrator))
        self.app.toast(f"lab: the ghost runs {self.lab.integrator} from here")

    def update(self, frame_dt):
        self.follow_grab()
        if isinstance(self.left, Fling) and self.left.hold(frame_dt):
            self.spray(frame_dt)

    def follow_grab(self):
        """Keep the held ball's grab at the cursor; a grab whose ball went ends here. While
        the world is paused no spring can pull, so the ball is carried to the cursor."""
        if isinstance(self.left, Hold):
            if self.app.clock.paused:
                self.world.place_grabbed(self.left.handle, self.app.cursor_world())
            else:
                self.world.move_grab(self.left.handle, self.app.cursor_world())
            if self.lab is not None:
                self.lab.move_grab(self.left.handle, self.app.cursor_world(), paused=self.app.clock.paused)

    def spray(self, frame_dt):
        """A held press sprays a ball every SPRAY_EVERY wall seconds into the free spot
        nearest the pointer (placing.nearest_free: no ball, no wall, within a few diameters);
        spot_taken says none is free, and the pointer shows it."""
        # A slow frame makes the balls it owes (a few at most): the rate holds at any frame rate.
        self.spray_clock = min(self.spray_clock + frame_dt, SPRAY_BACKLOG * SPRAY_EVERY)
        radius = self.spawn_radius()
        size = placing.jitter_size(radius)
        while self.spray_clock >= SPRAY_EVERY:
            spot = placing.nearest_free(self.world, self.app.cursor_world(), radius, self.rng.uniform(-size, size, 2))
            self.spot_taken = spot is None
            if spot is None:
                self.spray_clock = SPRAY_EVERY        # the next free spot gets the next ball at once
                return
            self.spray_clock -= SPRAY_EVERY
            self.spawn(spot)

    def taken(self, point):
        """Whether a new ball at ``point`` would overlap a ball or a wall, or lie outside."""
        return not bool(placing.free(self.world, np.asarray(point, float)[None], self.spawn_radius())[0])

    # ---- input -------------------------------------------------------------------------------
    def handle_event(self, event):
        kind = event.type
        if kind == pygame.KEYDOWN:
            return self.key(event)
        if kind == pygame.MOUSEMOTION:
            self.motion(event.pos)
        elif kind == pygame.MOUSEBUTTONDOWN:
            self.button_down(event.button, event.pos)
        elif kind == pygame.MOUSEBUTTONUP:
            self.button_up(event.button, event.pos)
        elif kind == pygame.MOUSEWHEEL:
            notches = getattr(event, "precise_y", event.y)
            self.app.camera.zoom_at(self.app.mouse, ZOOM_PER_NOTCH ** notches)
        else:
            return False
        return True

    def key(self, event):
        app, clock, key = self.app, self.app.clock, event.key
        if key == pygame.K_ESCAPE:
            app.request_quit()
        elif key in (pygame.K_h, pygame.K_F1):
            app.push(HelpMode(app, KEYMAP))
        elif key == pygame.K_SPACE:
            clock.toggle_pause()
        elif key in (pygame.K_PERIOD, pygame.K_KP_PERIOD):
            clock.step_once()
        elif key in (pygame.K_MINUS, pygame.K_KP_MINUS):
            app.toast(f"time x{clock.set_scale_index(clock.scale_index - 1):g}")
        elif key in (pygame.K_EQUALS, pygame.K_PLUS, pygame.K_KP_PLUS):
            app.toast(f"time x{clock.set_scale_index(clock.scale_index + 1):g}")
        elif key == pygame.K_r:
            app.session.reset()             # the level's gravity and material come back with it
            clock.set_scale_index(TIME_SCALES.index(1.0))
            kept = len(self.drawn)
            app.toast(f"reset ({self.world.integrator})" if not kept else
                      f"reset: your {kept} segment{'s' if kept > 1 else ''} stay (Ctrl+Z takes one back)")
        elif key == pygame.K_i and event.mod & pygame.KMOD_SHIFT:
            self.cycle_ghost_integrator()
        elif key == pygame.K_i:
            self.cycle_integrator()
        elif key == pygame.K_g:
            self.toggle_lab()
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
        elif key == pygame.K_w:
            self.switch_tool()
        elif key == pygame.K_z and event.mod & pygame.KMOD_CTRL:
            self.undo()
        elif key == pygame.K_s and event.mod & pygame.KMOD_CTRL:
            self.save_snapshot()
        elif key == pygame.K_s:
            app.push(SettingsMode(app))
        elif key == pygame.K_b:
            self.pick_radius(-1 if event.mod & pygame.KMOD_SHIFT else +1)
        elif key == pygame.K_c:
            self.pick_material(-1 if event.mod & pygame.KMOD_SHIFT else +1)
        elif key == pygame.K_F12:
            app.request_screenshot()
        elif key in (pygame.K_TAB, pygame.K_F2):
            if app.editor_factory is None:
                app.toast("no editor in this window")
            else:
                app.push(app.editor_factory(app))
        else:
            return False
        return True

    def switch_tool(self):
        """W: the left button adds balls or draws segments (where the level lets it)."""
        if self.tool == "balls" and self.rules["draw"] == 0:
            self.app.toast("this level lets you draw no segments")
            return
        self.tool = TOOLS[(TOOLS.index(self.tool) + 1) % len(TOOLS)]
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
        top = BAR_HEIGHT + (RULES_ROW if self.limited() else 0)
        right = 0
        if self.show_energy:
            size = self.app.camera.size
            right = size[0] - energy_plot_rect(size, HINT_HEIGHT).left
            if right > size[0] // 2:
                right = 0            # a narrow window: the plot lies over the level instead
        return (top, HINT_HEIGHT, right)

    def step_level(self, direction):
        app = self.app
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

    def level_counter(self):
        """ "3/9": this level's place among the folder's levels ("" if it is not one of them)."""
        real = [os.path.realpath(p) for p in self.app.level_files()]
        here = os.path.realpath(self.app.session.path)
        return f"{real.index(here) + 1}/{len(real)}" if here in real else ""

    def motion(self, pos):
        if self.pan is not None:
            dx, dy = self.pan.move(pos)
            if dx or dy:
                self.app.camera.pan(dx, dy)
        if isinstance(self.left, Fling):
            self.left.move(pos)
        self.follow_grab()

    def button_down(self, button, pos):
        if button == 1:
            point = self.app.camera.screen_to_world(pos)
            if self.tool == "draw":
                self.left = Stroke(pos, point)
                return
            hit = self.world.ball_at(point)
            if hit >= 0 and not self.rules["grab"]:
                self.app.toast("this level does not let you grab balls")
                self.left = None
            elif hit >= 0:
                self.left = Hold(pos, self.world.grab(hit, point))
                if self.lab is not None:
                    self.lab.grabbed(self.left.handle, int(self.world.ids[hit]), point)
            else:
                self.left = Fling(pos, point)
                self.spray_clock = 0.0
        elif button in (2, 3):
            self.pan = Pan(button, pos, pos)

    def button_up(self, button, pos):
        if button == 1 and self.left is not None:
            left, self.left = self.left, None
            self.spot_taken = False
            if isinstance(left, Stroke):
                self.draw_segment(left.start_world, self.app.camera.screen_to_world(pos))
            elif isinstance(left, Hold):
                self.world.release(left.handle)
                if self.lab is not None:
                    self.lab.release(left.handle)
            elif left.spraying:
                pass                              # the spray made its balls already
            elif not left.dragging and not far(pos, left.start):
                # A click: a small seeded jitter, so balls clicked onto one another topple
                # as real ones would (a column placed exactly in a level file still stands).
                self.spawn(placing.jittered(left.start_world, self.spawn_radius(), self.rng))
            else:
                end = self.app.camera.screen_to_world(pos)
                velocity = (end - left.start_world) * FLING_GAIN
                # Keyboard modifiers exist only with a display (headless tests have none).
                mods = pygame.key.get_mods() if pygame.display.get_init() else 0
                self.spawn(left.start_world, velocity, fling_spin(velocity, self.spawn_radius(), mods))
        elif button in (2, 3) and self.pan is not None and self.pan.button == button:
            pan, self.pan = self.pan, None
            if button == 3 and not pan.moved:
                self.delete_at(self.app.camera.screen_to_world(pos))

    # ---- commands on the world -----------------------------------------------------------------
    def spawn(self, point, velocity=(0.0, 0.0), spin=0.0):
        """Add a ball at a world point (metres) with a velocity (m/s) and a spin (rad/s,
        counter-clockwise); -1 if outside the level."""
        x0, y0, x1, y1 = self.world.bounds
        if not (x0 <= point[0] <= x1 and y0 <= point[1] <= y1):
            self.app.toast("outside the level")
            return -1
        if self.left_of("spawn") == 0:
            limit = self.rules["spawn"]
            self.app.toast("this level lets you add no balls" if limit == 0 else
                           f"no balls left: this level lets you add {limit} (Ctrl+Z takes one back)")
            return -1
        material = BALL_MATERIALS[self.material_index][1] or {}
        index = self.world.add_ball(point, velocity, radius=self.spawn_radius(), spin=spin, **material)
        self.spawned += 1
        self.undo_stack.append(("spawned", int(self.world.ids[index])))
        if self.lab is not None:
            self.lab.spawned(point, velocity, radius=self.spawn_radius(), spin=spin)
        self.record_energy()
        self.observe_goal()
        return index

    def draw_segment(self, a, b):
        """Draw a segment from ``a`` to ``b`` (metres, kept within the level's bounds) into the
        running world, where the level lets the player; returns its definition or None."""
        x0, y0, x1, y1 = self.world.bounds
        a = np.clip(np.asarray(a, float), (x0, y0), (x1, y1))
        b = np.clip(np.asarray(b, float), (x0, y0), (x1, y1))
        if float(np.hypot(*(b - a))) < DRAWN_MIN_LENGTH:
            self.app.toast("drag further to draw a segment")
            return None
        if self.left_of("draw") == 0:
            limit = self.rules["draw"]
            self.app.toast("this level lets you draw no segments" if limit == 0 else
                           f"no segments left: this level lets you draw {limit} (Ctrl+Z takes one back)")
            return None
        drawn = player_segment(a, b)
        segment = {**drawn, **fill("segments", drawn, self.world.material)}
        self.world.add_segments([segment])
        self.drawn.append(segment)
        self.undo_stack.append(("drew", segment))
        self.app.renderer.invalidate()
        return segment

    def delete_at(self, point):
        world = self.world
        hit = world.ball_at(point)
        if hit >= 0 and not self.rules["delete"]:
            self.app.toast("this level does not let you delete balls")
            return -1
        if hit >= 0:
            self.undo_stack.append(("deleted", world.take_ball(hit)))
            if self.lab is not None:
                self.lab.removed(self.undo_stack[-1][1].ball_id, keep=True)
            self.record_energy()
            self.observe_goal()
        return hit

    def undo(self):
        """Ctrl+Z: take back the last spawn, fling or delete of this run of the level (a
        deleted ball comes back as it was when deleted: its id, its state, its springs)."""
        world = self.world
        while self.undo_stack:
            what, detail = self.undo_stack.pop()
            if what == "spawned":
                where = np.flatnonzero(world.ids == detail)
                if len(where) == 0:
                    continue                      # gone already (a kill zone): undo the one before
                world.remove_balls(where)
                self.spawned = max(0, self.spawned - 1)
                if self.lab is not None:
                    self.lab.removed(detail)
                self.app.toast("undo: ball taken back")
            elif what == "drew":
                world.remove_segment(detail)
                self.drawn.remove(detail)
                self.app.renderer.invalidate()
                self.app.toast("undo: segment taken back")
            else:
                world.put_back(detail)
                if self.lab is not None:
                    self.lab.put_back(detail.ball_id)
                self.app.toast("undo: ball put back")
            self.record_energy()
            self.observe_goal()
            return True
        self.app.toast("undo: nothing to undo")
        return False

    def spawn_radius(self):
        """m: the radius of the player's next ball: the picker's, else the level's own."""
        return self.picked_radius if self.picked_radius is not None else self.level_radius()

    def level_radius(self):
        """m: the level's own ball size: its first spawner's, else its first ball's, else the
        default (game.goals.player_ball_radius, which the puzzles' solutions use too)."""
        return player_ball_radius(self.app.session.doc)

    def pick_radius(self, direction):
        """B / Shift+B: the next bigger (+1) or smaller (-1) ball of BALL_RADII and the level's own."""
        sizes = sorted(set(BALL_RADII) | {self.level_radius()})
        now = self.spawn_radius()
        if direction > 0:
            bigger = [r for r in sizes if r > now + 1e-12]
            radius = bigger[0] if bigger else sizes[-1]
        else:
            smaller = [r for r in sizes if r < now - 1e-12]
            radius = smaller[-1] if smaller else sizes[0]
        self.picked_radius = radius
        self.picker_level = os.path.realpath(self.app.session.path)
        self.app.toast(f"ball: {self.ball_label()}")

    def pick_material(self, direction):
        """C / Shift+C: the next or previous material of BALL_MATERIALS."""
        self.material_index = (self.material_index + direction) % len(BALL_MATERIALS)
        self.app.toast(f"ball: {self.ball_label()}")

    def ball_label(self):
        """ "0.25 m rubber": the picker's next ball, as the HUD shows it."""
        name = BALL_MATERIALS[self.material_index][0]
        return f"{self.spawn_radius():g} m " + ("level material" if name == "level's" else name)

    def save_snapshot(self):
        """Ctrl+S: the running world (with the segments the player drew) as a new level file in
        my levels (game.app.progress.my_levels_dir: the player's data folder, never among the
        shipped levels; what --save writes headless), never over an existing file; a toast
        names it. Returns its path."""
        app, world = self.app, self.world
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

    # ---- drawing -----------------------------------------------------------------------------------
    def draw(self, surface):
        app = self.app
        # The debug layers' line of solver options ends left of the energy plot's column.
        text_right = energy_plot_rect(surface.get_size(), HINT_HEIGHT).left - 10 if self.show_energy else None
        # The world (and its debug grid) stops at the key hint's row: nothing crosses the hint.
        width, height = surface.get_size()
        clip = surface.get_clip()
        surface.set_clip(clip.clip(pygame.Rect(0, 0, width, height - HINT_HEIGHT)))
        app.renderer.draw(surface, self.world, app.camera, debug=self.debug_layers,
                          trails=self.trails if self.show_trails else None, text_right=text_right)
        if self.lab is not None:
            self.lab.draw_ghost(surface, app.camera)
        surface.set_clip(clip)
        surface.fill(HINT_PANEL[:3], pygame.Rect(0, height - HINT_HEIGHT, width, HINT_HEIGHT))
        if isinstance(self.left, Fling) and self.left.dragging:
            self.draw_aim(surface)
        if isinstance(self.left, Stroke):
            width = max(2, int(2 * DRAWN_RADIUS * app.camera.scale))
            pygame.draw.line(surface, DRAW_PREVIEW, self.left.start, app.mouse, width)
        if isinstance(self.left, Fling) and self.left.spraying and self.spot_taken:
            radius = self.spawn_radius() * app.camera.scale
            pygame.draw.circle(surface, SPOT_TAKEN, app.mouse, max(4, int(radius)), 2)
        elif self.left is None and self.pan is None and app.mouse_known:
            self.draw_ball_preview(surface)
        self.draw_hud(surface)

    def draw_ball_preview(self, surface):
        """The picker's next ball on the cursor: its size and its material's colour, faint."""
        app = self.app
        x, y = app.mouse
        width, height = surface.get_size()
        if not (0 <= x < width and BAR_HEIGHT <= y < height - HINT_HEIGHT):
            return                                   # over the HUD: no ball goes there
        radius = max(3, int(round(self.spawn_radius() * app.camera.scale)))
        if radius > max(width, height):
            return
        colour = BALL_MATERIALS[self.material_index][2]
        disc = pygame.Surface((2 * radius + 2, 2 * radius + 2), pygame.SRCALPHA)
        pygame.draw.circle(disc, colour + (60,), (radius + 1, radius + 1), radius)
        pygame.draw.circle(disc, colour + (200,), (radius + 1, radius + 1), radius, 1)
        surface.blit(disc, (x - radius - 1, y - radius - 1))

    def draw_aim(self, surface):
        app, fling = self.app, self.left
        end_world = app.cursor_world()
        velocity = (end_world - fling.start_world) * FLING_GAIN
        radius = self.spawn_radius()
        path = app.camera.world_to_screen(flight_preview(self.world, fling.start_world, velocity, radius))
        speed = float(np.hypot(*velocity))
        mods = pygame.key.get_mods() if pygame.display.get_init() else 0
        spin = fling_spin(velocity, radius, mods)
        label = f"{speed:.1f} m/s"
        if spin:
            label += f", {'topspin' if mods & pygame.KMOD_SHIFT else 'backspin'} {abs(spin):.0f} rad/s"
        draw_aim(surface, fling.start, app.mouse, label, lambda s: app.hud.text(s, SIZE_BODY, bold=True), path)
        if spin:
            draw_spin(surface, fling.start, radius * app.camera.scale, spin)

    def hint(self):
        """The key hint, with the picker's next ball in it ("B/C ball 0.25 m rubber")."""
        return HINT[:2] + ((HINT[2][0], f"ball {self.ball_label()}"),) + HINT[3:]

    def limited(self):
        """Whether the level limits the player (a puzzle): its budgets show under the bar."""
        rules = self.rules
        return rules["spawn"] is not None or rules["draw"] is not None or not rules["delete"] or not rules["grab"]

    def rules_line(self):
        """[(text, active)] for the HUD: what the left button does and what is left of each
        budget ("balls 2 of 3 left"); empty in an open sandbox while it adds balls."""
        rules, parts = self.rules, []
        if not self.limited() and self.tool == "balls":
            return parts
        for tool, what, word in (("balls", "spawn", "balls"), ("draw", "draw", "segments")):
            left = self.left_of(what)
            if left is None:
                text = f"{word}: no limit"
            elif rules[what] == 0:
                text = "no new balls" if what == "spawn" else "no segments"
            else:
                text = f"{word} {left} of {rules[what]} left"
            parts.append((text, self.tool == tool))
        parts.append(("W switches" if rules["draw"] != 0 else "", False))
        if not rules["grab"]:
            parts.append(("no grab", False))
        if not rules["delete"]:
            parts.append(("no delete", False))
        return [p for p in parts if p[0]]

    def draw_hud(self, surface):
        app, hud, world = self.app, self.app.hud, self.world
        stats = app.stats
        top = 0
        energy = self.energy if self.energy is not None else world.energy()
        # Cells (text, the widest it gets): each right-aligned in a fixed slot, so the block
        # does not shift as the numbers change width.
        balls = "1 ball" if world.count == 1 else f"{world.count} balls"
        lines = [[(balls, "88888 balls"), (f"time {world.time:.1f} s", "time 8888.8 s"),
                  (f"energy {short_number(energy['total'])} J", "energy -8.88M J")],
                 [(f"{stats.fps:.0f} FPS" if stats.fps > 0 else "", "888 FPS"),
                  (f"physics {stats.tick_cpu_ms:.2f} ms/tick" + (" numpy" if world.execution == "numpy" else ""),
                   "physics 88.88 ms/tick numpy"),
                  (f"draw {stats.draw_ms:.1f} ms" if stats.draw_ms > 0 else "", "draw 88.8 ms")]]
        if app.mouse_known:
            cursor = app.cursor_world()
            lines.append([(f"cursor ({cursor[0]:.2f}, {cursor[1]:.2f}) m", "cursor (-888.88, -888.88) m")])
        hud.draw_bar(surface, top, world.name or os.path.basename(app.session.path), world.description,
                     world.integrator, lines, self.goal.progress(), counter=self.counter)
        hud.draw_rules(surface, top, self.rules_line())
        below = top + (RULES_ROW if self.limited() else 0)      # under the budgets' row
        hud.draw_status(surface, below, app.clock.paused, app.clock.time_scale, app.warming_up)
        if self.goal.complete:
            hud.draw_complete(surface, below, self.complete_at)
        elif self.goal.has_goal:
            left = self.goal.hold_left()
            if left is not None:
                hud.draw_note(surface, below, f"hold it... {left:.1f} s", positive=True)
            elif self.complete_at is not None:
                hud.draw_note(surface, below, "the goal was lost: get the balls back in and hold them")
        if self.show_energy and self.lab is not None:
            self.lab.draw_plot(surface, hud, bottom_gap=HINT_HEIGHT)
        elif self.show_energy:
            hud.draw_energy(surface, self.energy_history, bottom_gap=HINT_HEIGHT)
        if self.lab is not None:
            self.lab.draw_line(surface, hud, surface.get_height() - HINT_HEIGHT - 4)
        if app.session.error:
            hud.draw_banner(surface, app.session.error,
                            "not loaded yet, fix the file:" if app.session.waiting else
                            "not loaded, the last good level plays on:")
        elif self.blew_up_under is not None:
            hud.draw_alert(surface, blow_up_line(self.blew_up_under))
        else:
            hud.draw_hint(surface, self.hint())

