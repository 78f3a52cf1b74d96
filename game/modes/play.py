"""Play: the world runs; the mouse spawns, flings, grabs and deletes balls; keys drive the
clock, the integrator, the debug layers and the level; the HUD shows the run."""
import os

import numpy as np
import pygame

from game import defaults

from game.physics import geometry
from game.app.clock import TIME_SCALES
from game.app.gestures import Fling, Hold, Pan, far
from game.draw.hud import BAR_HEIGHT, HINT_HEIGHT, SIZE_BODY, EnergyHistory, energy_plot_rect, short_number
from game.physics.integrators import ORDER, next_integrator
from game.level import LevelError, save
from game.modes.base import Mode
from game.modes.help import HelpMode
from game.modes.menu import LevelMenuMode
from game.modes.settings import SettingsMode
from game.draw.renderer import DEBUG_LAYERS, Trails, draw_aim
from game.app.session import goal_reached

BREAK_SOUND_SPEED = 12.0       # m/s: a joint's break sounds as loud as an impact this fast

FLING_GAIN = 3.0             # 1/s: fling velocity (m/s) = drag vector (m) * FLING_GAIN
ZOOM_PER_NOTCH = 1.15        # scale factor per wheel notch
AIM_PREVIEW_SECONDS = 1.2    # s of predicted flight drawn while aiming
SPRAY_EVERY = 0.08           # wall s between the balls a held press sprays
SPOT_TAKEN = (235, 80, 80)   # the pointer's ring while the spray's spot is taken
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
    ("left hold", "spray balls (a red ring: the spot is taken)"),
    ("left drag a ball", "grab it and carry it (a spring to the cursor; paused: moved)"),
    ("right click", "delete a ball"),
    ("right / middle drag", "pan"),
    ("mouse wheel", "zoom at the cursor"),
    ("Space", "pause / run"),
    (".", "step one tick (pauses)"),
    ("-   =", "slower / faster (time scale)"),
    ("R", "reset the level (and the settings)"),
    ("S", "settings: gravity, time scale, material"),
    ("I", "next integrator: " + " > ".join(ORDER)),
    ("L", "level menu"),
    ("[   ]", "previous / next level"),
    ("D", "debug layers: contacts, velocities, swept, grid, all"),
    ("T", "trails"),
    ("E", "energy plot"),
    ("F", "fit the level to the window"),
    ("M", "mute / unmute sound"),
    ("Ctrl+Z", "undo the last spawn, fling or delete"),
    ("Ctrl+S", "save the running world as a new level file"),
    ("F12", "screenshot to screenshots/"),
    ("Tab / F2", "level editor: build and play-test this level"),
    ("H / F1", "this help (the world waits)"),
    ("Esc", "close help, or quit"),
)

HINT = (("H", "help"), ("L", "levels"), ("I", "integrator"), ("E", "energy"), ("D", "debug"),
        ("T", "trails"), ("S", "settings"), ("R", "reset"), ("Space", "pause"))


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
        self.complete_at = None        # s of world time the goal was reached (latched until reset)
        self.completed = set()         # real paths of the level files completed this session
        self.trails = Trails()
        self.energy_history = EnergyHistory()
        self.energy = None             # the world's energies at the last frame that ticked
        self.counter = self.level_counter()   # "3/9" (the folder is listed once per level)
        self.undo_stack = []           # [("spawned", ball id) | ("deleted", BallRecord)], newest last
        self.spray_clock = 0.0         # wall s since the spray's last ball
        self.spot_taken = False        # the spray's spot under the pointer holds a ball now
        self.blew_up_under = None      # the integrator the world went non-finite under (None: finite)

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
        self.complete_at = None
        self.counter = self.level_counter()
        self.undo_stack = []
        if self.blew_up_under is not None:
            self.app.clock.paused = False    # the blow-up paused it, not the player
        self.blew_up_under = None
        self._break_heard = (self.world.level, -1.0)     # every break of the new world is news
        self.record_energy()

    def tick_outcome(self, world):
        """What after_tick needs of the tick just run, read from ``world`` at once, on the thread
        that ran it (the next tick replaces these arrays, never writes them): (impact points
        (K, 2) m, impact speeds (K,) m/s, the trail's Trails.take entry or None)."""
        return world.impact_points, world.impact_speeds, Trails.take(world) if self.show_trails else None

    def after_tick(self, outcome=None):
        """After every tick: its impacts' sounds and the trail points. outcome: tick_outcome's,
        taken when the tick ran (default: taken from the world now)."""
        app = self.app
        points, speeds, trail = self.tick_outcome(self.world) if outcome is None else outcome
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
        if self.complete_at is None and goal_reached(self.world.goal_progress()):
            self.complete_at = self.world.time
            self.completed.add(os.path.realpath(self.app.session.path))
            self.app.toast("level complete!")

    def hear_breaks(self):
        """A joint that broke since the last frame snaps: the loudest knock, panned to it."""
        world, app = self.world, self.app
        log = getattr(world, "break_log", [])
        heard = getattr(self, "_break_heard", (None, 0.0))
        since = heard[1] if heard[0] is world.level else -1.0        # a new world: all its breaks are news
        fresh = [b for b in log if b[0] > since]
        self._break_heard = (world.level, max([since] + [b[0] for b in fresh]))
        if fresh and app.audio.enabled:
            points = np.array([b[1:] for b in fresh], float)
            pans = app.camera.world_to_screen(points)[:, 0] / max(1, app.camera.size[0])
            app.audio.play_impacts(np.full(len(fresh), BREAK_SOUND_SPEED), pans)

    def record_energy(self):
        self.energy = self.world.energy()
        self.energy_history.record(self.world.time, self.energy)

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

    def spray(self, frame_dt):
        """A held press sprays a ball at the pointer every SPRAY_EVERY wall seconds, where
        the spot is free (spot_taken says so, and the pointer shows it)."""
        self.spray_clock = min(self.spray_clock + frame_dt, SPRAY_EVERY)
        point = self.app.cursor_world()
        self.spot_taken = self.taken(point)
        if self.spray_clock >= SPRAY_EVERY and not self.spot_taken:
            self.spray_clock = 0.0
            self.spawn(point)

    def taken(self, point):
        """Whether a new ball at ``point`` would overlap a ball already there."""
        if self.world.count == 0:
            return False
        radius = self.spawn_radius() or defaults.BALL_RADIUS
        d = np.linalg.norm(self.world.pos - np.asarray(point, float), axis=1)
        return bool(np.any(d < self.world.radius + radius))

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
            app.toast(f"reset ({self.world.integrator})")
        elif key == pygame.K_i:
            self.cycle_integrator()
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
        elif key == pygame.K_z and event.mod & pygame.KMOD_CTRL:
            self.undo()
        elif key == pygame.K_s and event.mod & pygame.KMOD_CTRL:
            self.save_snapshot()
        elif key == pygame.K_s:
            app.push(SettingsMode(app))
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
        """(top, bottom, right) px the level keeps clear of: the HUD's top bar, the key
        hint, and the energy plot's column while it shows (unless the window is narrow)."""
        right = 0
        if self.show_energy:
            size = self.app.camera.size
            right = size[0] - energy_plot_rect(size, HINT_HEIGHT).left
            if right > size[0] // 2:
                right = 0            # a narrow window: the plot lies over the level instead
        return (BAR_HEIGHT, HINT_HEIGHT, right)

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
            hit = self.world.ball_at(point)
            if hit >= 0:
                self.left = Hold(pos, self.world.grab(hit, point))
            else:
                self.left = Fling(pos, point)
        elif button in (2, 3):
            self.pan = Pan(button, pos, pos)

    def button_up(self, button, pos):
        if button == 1 and self.left is not None:
            left, self.left = self.left, None
            self.spot_taken = False
            if isinstance(left, Hold):
                self.world.release(left.handle)
            elif left.spraying:
                pass                              # the spray made its balls already
            elif not left.dragging and not far(pos, left.start):
                self.spawn(left.start_world)
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
        index = self.world.add_ball(point, velocity, radius=self.spawn_radius(), spin=spin)
        self.undo_stack.append(("spawned", int(self.world.ids[index])))
        self.record_energy()
        return index

    def delete_at(self, point):
        world = self.world
        hit = world.ball_at(point)
        if hit >= 0:
            self.undo_stack.append(("deleted", world.take_ball(hit)))
            self.record_energy()
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
                self.app.toast("undo: ball taken back")
            else:
                world.put_back(detail)
                self.app.toast("undo: ball put back")
            self.record_energy()
            return True
        self.app.toast("undo: nothing to undo")
        return False

    def spawn_radius(self):
        """New balls match the level's own: its first spawner's, else its first ball's."""
        doc = self.app.session.doc
        for spawner in doc.get("spawners", ()):
            if "radius" in spawner:
                return float(spawner["radius"])
        for ball in doc.get("balls", ()):
            if "radius" in ball:
                return float(ball["radius"])
        return None

    def save_snapshot(self):
        """Ctrl+S: the running world as a new level file beside the levels (what --save
        writes headless), never over an existing file; a toast names it. Returns its path."""
        app, world = self.app, self.world
        doc = world.to_level()
        held = {world.springs.index(i) for grab in world.grabs.values() for i in grab.spring_ids}
        doc["springs"] = [s for k, s in enumerate(doc["springs"]) if k not in held]   # not the mouse's
        stem = os.path.splitext(os.path.basename(app.session.path))[0]
        doc["name"] = f"{world.name or stem} (snapshot at {world.time:.1f} s)"
        path, n = os.path.join(app.level_dir, f"{stem}-snapshot.json"), 1
        while os.path.exists(path):
            n += 1
            path = os.path.join(app.level_dir, f"{stem}-snapshot-{n}.json")
        try:
            save(doc, path)
        except LevelError as error:
            app.toast(f"not saved: {error}")
            return None
        app.toast("saved " + os.path.relpath(path))
        return path

    # ---- drawing -----------------------------------------------------------------------------------
    def draw(self, surface):
        app = self.app
        # The debug layers' line of solver options ends left of the energy plot's column.
        text_right = energy_plot_rect(surface.get_size(), HINT_HEIGHT).left - 10 if self.show_energy else None
        app.renderer.draw(surface, self.world, app.camera, debug=self.debug_layers,
                          trails=self.trails if self.show_trails else None, text_right=text_right)
        if isinstance(self.left, Fling) and self.left.dragging:
            self.draw_aim(surface)
        if isinstance(self.left, Fling) and self.left.spraying and self.spot_taken:
            radius = (self.spawn_radius() or defaults.BALL_RADIUS) * app.camera.scale
            pygame.draw.circle(surface, SPOT_TAKEN, app.mouse, max(4, int(radius)), 2)
        self.draw_hud(surface)

    def draw_aim(self, surface):
        app, fling = self.app, self.left
        end_world = app.cursor_world()
        velocity = (end_world - fling.start_world) * FLING_GAIN
        radius = self.spawn_radius() or defaults.BALL_RADIUS
        path = app.camera.world_to_screen(flight_preview(self.world, fling.start_world, velocity, radius))
        speed = float(np.hypot(*velocity))
        draw_aim(surface, fling.start, app.mouse, f"{speed:.1f} m/s", lambda s: app.hud.text(s, SIZE_BODY, bold=True), path)

    def draw_hud(self, surface):
        app, hud, world = self.app, self.app.hud, self.world
        stats = app.stats
        top = 0
        energy = self.energy if self.energy is not None else world.energy()
        fps = f"{stats.fps:.0f} FPS    " if stats.fps > 0 else ""
        draw = f"    draw {stats.draw_ms:.1f} ms" if stats.draw_ms > 0 else ""
        balls = "1 ball" if world.count == 1 else f"{world.count} balls"
        broken = getattr(world, "joints_broken", 0)
        if broken:
            balls += f"    {broken} joint{'s' if broken != 1 else ''} broken"
        lines = [f"{balls}    time {world.time:.1f} s    energy {short_number(energy['total'])} J",
                 f"{fps}physics {stats.tick_ms:.2f} ms/tick{draw}"]
        if app.mouse_known:
            cursor = app.cursor_world()
            lines.append(f"cursor ({cursor[0]:.2f}, {cursor[1]:.2f}) m")
        hud.draw_bar(surface, top, world.name or os.path.basename(app.session.path), world.description,
                     world.integrator, lines, world.goal_progress(), counter=self.counter)
        hud.draw_status(surface, top, app.clock.paused, app.clock.time_scale, app.warming_up)
        if self.complete_at is not None:
            hud.draw_complete(surface, top, self.complete_at)
        if self.show_energy:
            hud.draw_energy(surface, self.energy_history, bottom_gap=HINT_HEIGHT)
        if app.session.error:
            hud.draw_banner(surface, app.session.error,
                            "not loaded yet, fix the file:" if app.session.waiting else
                            "not loaded, the last good level plays on:")
        elif self.blew_up_under is not None:
            hud.draw_alert(surface, blow_up_line(self.blew_up_under))
        else:
            hud.draw_hint(surface, HINT)

