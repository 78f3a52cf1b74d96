"""The pygame game: a fixed-tick loop, input turned into commands on the world, live reload.

``App`` holds everything but the window, so tests drive it headless:
``handle_event(event)`` for pygame events, ``update(frame_dt)`` to advance (wall-clock
seconds in; the world only ever sees ticks of exactly TICK), ``draw(surface)``.
``run(args)`` owns the window; ``screenshot(args)`` renders offscreen to a PNG.

The loop's clock: frame time (capped at MAX_FRAME_DT) times the time scale fills an
accumulator, which is drained in ticks of TICK, at most MAX_TICKS_PER_FRAME per frame; what
is left over after the cap is dropped, so a slow frame slows the game instead of making it
catch up forever (the "spiral of death") or take a giant step.
"""
import glob
import math
import os
import sys
import time

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import numpy as np  # noqa: E402
import pygame  # noqa: E402

from game import accel, defaults  # noqa: E402
from game.audio import Audio  # noqa: E402
from game.camera import Camera  # noqa: E402
from game.hud import BAR_HEIGHT, HINT_HEIGHT, EnergyHistory, Hud, energy_plot_rect, short_number  # noqa: E402
from game.integrators import ORDER, next_integrator  # noqa: E402
from game.level import LevelError, LevelWatcher, load  # noqa: E402
from game.render import DEBUG_LAYERS, PALETTE, Renderer, Trails, draw_aim, make_ball_sprite  # noqa: E402
from game.world import World  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LEVEL_DIR = os.path.join(ROOT, "levels")
SCREENSHOT_DIR = os.path.join(ROOT, "screenshots")

from game.defaults import TICK  # noqa: E402  (s: the one step the world is ever given)
MAX_TICKS_PER_FRAME = 4      # a slow frame runs at most this many ticks, then drops the rest
MAX_FRAME_DT = 0.1           # s: a longer frame (window dragged, debugger) counts as this long
TICK_BUDGET = 0.030          # s: stop ticking in a frame after this much wall time (>= 1 tick)
FPS_LIMIT = 60               # frames per second the window aims for
TIME_SCALES = (0.1, 0.25, 0.5, 1.0, 2.0)   # slow motion ... fast forward, `-` and `=`
DEFAULT_STEPS = 120          # ticks a --screenshot runs before it draws

FLING_GAIN = 3.0             # 1/s: fling velocity (m/s) = drag vector (m) * FLING_GAIN
DRAG_THRESHOLD = 6           # px: a press that moves less than this is a click, not a drag
GRAB_FREQUENCY = 4.0         # Hz: natural frequency of the grab spring, whatever the ball's mass
GRAB_DAMPING_RATIO = 0.8     # of critical: the grabbed ball follows without ringing
GRAB_LEVER = 1000.0          # m: length of the two grab springs (see App._start_grab)
ZOOM_PER_NOTCH = 1.15        # scale factor per wheel notch
AIM_PREVIEW_SECONDS = 1.2    # s of predicted flight drawn while aiming
RELOAD_POLL = 0.5            # s between checks of the level file
TOAST_SECONDS = 1.8          # s a toast stays, the last 0.4 s fading

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
    ("left drag a ball", "grab it and carry it (a spring to the cursor)"),
    ("right click", "delete a ball"),
    ("right / middle drag", "pan"),
    ("mouse wheel", "zoom at the cursor"),
    ("Space", "pause / run"),
    (".", "step one tick (pauses)"),
    ("-   =", "slower / faster (time scale)"),
    ("R", "reset the level"),
    ("I", "next integrator: " + " > ".join(ORDER)),
    ("[   ]", "previous / next level"),
    ("D", "debug layers: contacts, velocities, swept, grid, all"),
    ("T", "trails"),
    ("E", "energy plot"),
    ("F", "fit the level to the window"),
    ("M", "mute / unmute sound"),
    ("F12", "screenshot to screenshots/"),
    ("Tab", "level editor (coming soon)"),
    ("H", "this help"),
    ("Esc", "close help, or quit"),
)


def level_files(level_dir=LEVEL_DIR):
    """The playable levels of a folder, sorted by file name (schema files left out)."""
    return sorted(p for p in glob.glob(os.path.join(level_dir, "*.json"))
                  if not p.endswith(".schema.json"))


class App:
    """The game without the window. Tests inject events and call update and draw."""

    def __init__(self, level_path, size=(1280, 720), doc=None, audio=None, level_dir=LEVEL_DIR,
                 screenshot_dir=SCREENSHOT_DIR):
        self.level_dir = level_dir
        self.screenshot_dir = screenshot_dir
        self.level_path = os.path.abspath(level_path)
        self.level_doc = load(level_path) if doc is None else doc
        self.world = World.from_level(self.level_doc)
        self.camera = Camera(size)
        self.show_energy = False
        self.fit_camera()
        self.renderer = Renderer()
        self.hud = Hud()
        self.audio = audio if audio is not None else Audio(enabled=False)
        self.watcher = LevelWatcher(self.level_path)
        self.trails = Trails()
        self.energy_history = EnergyHistory()

        self.running = True
        self.paused = False
        self.time_scale_index = TIME_SCALES.index(1.0)
        self.accumulator = 0.0
        self.tick_budget = TICK_BUDGET  # s of wall time per frame for ticks (tests lift it)
        self.pending_steps = 0
        self.debug_index = 0
        self.show_trails = False
        self.energy_chosen = False     # the player pressed E: I no longer opens the plot
        self.show_help = False
        self.banner = ""               # the level loader's message while the file is broken
        self.toasts = []               # [(text, real time it expires)]
        self.complete = False          # goal reached (latched until reset or a new level)

        self.clock = 0.0               # real seconds since start (toasts, reload polling)
        self.next_poll = RELOAD_POLL
        self.fps = 0.0
        self.tick_ms = 0.0             # wall ms per world.step (smoothed)
        self.draw_ms = 0.0             # wall ms per draw (smoothed)
        self.ticks = 0                 # ticks run since start
        self.mouse = (size[0] // 2, size[1] // 2)
        self.mouse_known = False       # no mouse event yet, or the pointer left the window
        self.camera_fitted = True      # refit on resize until the player zooms or pans
        self._left = None              # left-button gesture: {"mode", "start", "start_world", ...}
        self._grab = None              # {"id": ball id, "anchors": last anchors set, "point": cursor}
        self._pan = None               # {"button", "start", "last", "moved"}
        self._energy = None
        self._want_screenshot = False
        self._record_energy()

    # ---- properties -------------------------------------------------------------------------
    @property
    def time_scale(self):
        return TIME_SCALES[self.time_scale_index]

    @property
    def debug_layers(self):
        return DEBUG_MODES[self.debug_index][1]

    # ---- the loop -----------------------------------------------------------------------------
    def update(self, frame_dt):
        """Advance by one frame of frame_dt wall-clock seconds; returns the ticks run."""
        frame_dt = max(0.0, float(frame_dt))
        self.clock += frame_dt
        if frame_dt > 0:
            fps = 1.0 / max(frame_dt, 1e-6)
            self.fps = fps if self.fps == 0 else 0.9 * self.fps + 0.1 * fps
        if self.clock >= self.next_poll:
            self.next_poll = self.clock + RELOAD_POLL
            self.poll_level()
        self._follow_grab()

        ticks = 0
        started = time.perf_counter()
        if self.paused:
            self.accumulator = 0.0
            while self.pending_steps > 0:
                self.pending_steps -= 1
                self.tick()
                ticks += 1
        else:
            self.pending_steps = 0
            self.accumulator += min(frame_dt, MAX_FRAME_DT) * self.time_scale
            while self.accumulator >= TICK:
                if ticks >= MAX_TICKS_PER_FRAME or (ticks and time.perf_counter() - started > self.tick_budget):
                    self.accumulator = 0.0      # drop the rest: run slow rather than spiral
                    break
                self.accumulator -= TICK
                self.tick()
                ticks += 1
        if ticks:
            self._record_energy()
            self._check_goal()
        self.toasts = [(text, until) for text, until in self.toasts if until > self.clock]
        return ticks

    def tick(self):
        """One fixed physics tick, with the sounds and trail points it makes."""
        start = time.perf_counter()
        self.world.step(TICK)
        ms = (time.perf_counter() - start) * 1000.0
        self.tick_ms = ms if self.ticks == 0 else 0.9 * self.tick_ms + 0.1 * ms
        self.ticks += 1
        if self.audio.enabled and len(self.world.impact_speeds):
            pans = self.camera.world_to_screen(self.world.impact_points)[:, 0] / max(1, self.camera.size[0])
            self.audio.play_impacts(self.world.impact_speeds, pans)
        if self.show_trails:
            self.trails.record(self.world)
        self._follow_grab()

    def advance(self, ticks):
        """Run exactly `ticks` ticks now, whatever the clock (for --screenshot and tests)."""
        for _ in range(int(ticks)):
            self.tick()
        self._record_energy()
        self._check_goal()

    # ---- level management -------------------------------------------------------------------
    def poll_level(self):
        """Check the level file; reload it if it changed and is good, show a banner if bad."""
        result = self.watcher.poll()
        if result is None:
            return
        if isinstance(result, LevelError):
            self.banner = str(result)
            return
        self.banner = ""
        if result == self.level_doc:
            return                      # saved without a change, or fixed back as it was
        keep = result.get("integrator") == self.level_doc.get("integrator")
        self._set_level(result, keep_integrator=keep, refit=False)
        self.toast(f"reloaded {os.path.basename(self.level_path)}")

    def _set_level(self, doc, keep_integrator=False, refit=True):
        integrator = self.world.integrator
        self._release_grab()
        self._left = None
        self.level_doc = doc
        self.world = World.from_level(doc)
        if keep_integrator:
            self.world.integrator = integrator
        self.renderer.invalidate()
        self.trails.clear()
        self.energy_history.clear()
        self.complete = False
        self.accumulator = 0.0
        if refit:
            self.fit_camera()
        self._record_energy()

    def open_level(self, path):
        """Switch to another level file. A broken one shows its message and is watched:
        the last good level keeps running until the file is fixed."""
        self.level_path = os.path.abspath(path)
        self.watcher = LevelWatcher(self.level_path)
        try:
            doc = load(self.level_path)
        except LevelError as error:
            self.banner = str(error)
            return False
        self.banner = ""
        self._set_level(doc)
        self.toast(self.world.name or os.path.basename(path))
        return True

    def step_level(self, direction):
        files = level_files(self.level_dir)
        if not files:
            self.toast("no levels in " + self.level_dir)
            return
        real = [os.path.realpath(p) for p in files]
        here = os.path.realpath(self.level_path)
        if here in real:
            index = (real.index(here) + direction) % len(files)
        else:
            index = 0 if direction > 0 else len(files) - 1
        self.open_level(files[index])

    def reset(self):
        """Back to the level as loaded; keeps the integrator the player chose and the camera."""
        self._set_level(self.level_doc, keep_integrator=True, refit=False)
        self.toast(f"reset ({self.world.integrator})")

    # ---- input ---------------------------------------------------------------------------------
    def handle_event(self, event):
        kind = event.type
        if kind == pygame.QUIT:
            self.running = False
        elif kind == pygame.KEYDOWN:
            self._key(event)
        elif kind == pygame.MOUSEMOTION:
            self._motion(event.pos)
        elif kind == pygame.MOUSEBUTTONDOWN:
            self._button_down(event.button, event.pos)
        elif kind == pygame.MOUSEBUTTONUP:
            self._button_up(event.button, event.pos)
        elif kind == pygame.MOUSEWHEEL:
            notches = getattr(event, "precise_y", event.y)
            self.zoom(ZOOM_PER_NOTCH ** notches, self.mouse)
        elif kind == pygame.VIDEORESIZE:
            self.resize(event.size)
        elif kind == pygame.WINDOWSIZECHANGED:
            self.resize((event.x, event.y))
        elif kind == pygame.WINDOWLEAVE:
            self.mouse_known = False

    def _key(self, event):
        key = event.key
        if key == pygame.K_ESCAPE:
            if self.show_help:
                self.show_help = False
            else:
                self.running = False
        elif key == pygame.K_h or key == pygame.K_F1:
            self.show_help = not self.show_help
        elif key == pygame.K_SPACE:
            self.paused = not self.paused
            self.accumulator = 0.0
        elif key in (pygame.K_PERIOD, pygame.K_KP_PERIOD):
            self.paused = True
            self.pending_steps += 1
        elif key in (pygame.K_MINUS, pygame.K_KP_MINUS):
            self.set_time_scale(self.time_scale_index - 1)
        elif key in (pygame.K_EQUALS, pygame.K_PLUS, pygame.K_KP_PLUS):
            self.set_time_scale(self.time_scale_index + 1)
        elif key == pygame.K_r:
            self.reset()
        elif key == pygame.K_i:
            self.cycle_integrator()
        elif key == pygame.K_LEFTBRACKET:
            self.step_level(-1)
        elif key == pygame.K_RIGHTBRACKET:
            self.step_level(+1)
        elif key == pygame.K_d:
            self.debug_index = (self.debug_index + 1) % len(DEBUG_MODES)
            self.toast("debug: " + DEBUG_MODES[self.debug_index][0])
        elif key == pygame.K_t:
            self.show_trails = not self.show_trails
            self.trails.clear()
            self.toast("trails " + ("on" if self.show_trails else "off"))
        elif key == pygame.K_e:
            self.set_energy_shown(not self.show_energy)
            self.energy_chosen = True
        elif key == pygame.K_f:
            self.fit_camera()
        elif key == pygame.K_m:
            self.audio.muted = not self.audio.muted
            self.toast("sound " + ("off" if self.audio.muted else "on")
                       + ("" if self.audio.enabled else " (no audio device)"))
        elif key == pygame.K_F12:
            self._want_screenshot = True
        elif key in (pygame.K_TAB, pygame.K_F2):
            self.toast("editor: coming soon")

    def set_time_scale(self, index):
        self.time_scale_index = min(max(index, 0), len(TIME_SCALES) - 1)
        self.toast(f"time x{self.time_scale:g}")

    def cycle_integrator(self):
        following = next_integrator(self.world.integrator)   # the world holds only names in ORDER
        self.world.integrator = following
        if not self.energy_chosen:
            self.set_energy_shown(True)     # the plot is where the difference shows
        self.toast(f"integrator: {following}")

    def set_energy_shown(self, shown):
        """Show or hide the energy plot; a fitted level moves aside for it (or back)."""
        self.show_energy = bool(shown)
        if self.camera_fitted:
            self.fit_camera()

    def fit_camera(self):
        """Show the whole level between the HUD's top bar and the key hint at the bottom, and
        left of the energy plot while it shows."""
        right = 0
        if self.show_energy:
            right = self.camera.size[0] - energy_plot_rect(self.camera.size, HINT_HEIGHT).left
            if right > self.camera.size[0] // 2:
                right = 0            # a narrow window: the plot lies over the level instead
        self.camera.fit(self.world.bounds, inset=(BAR_HEIGHT, HINT_HEIGHT, right))
        self.camera_fitted = True

    def zoom(self, factor, at):
        self.camera.zoom_at(at, factor)
        self.camera_fitted = False

    def resize(self, size):
        size = (max(1, int(size[0])), max(1, int(size[1])))
        if size == self.camera.size:
            return
        self.camera.resize(size)
        if self.camera_fitted:
            self.fit_camera()

    def _motion(self, pos):
        self.mouse = (int(pos[0]), int(pos[1]))
        self.mouse_known = True
        if self._pan is not None:
            dx = pos[0] - self._pan["last"][0]
            dy = pos[1] - self._pan["last"][1]
            if not self._pan["moved"] and _far(pos, self._pan["start"]):
                self._pan["moved"] = True
                dx, dy = pos[0] - self._pan["start"][0], pos[1] - self._pan["start"][1]
            if self._pan["moved"]:
                self.camera.pan(dx, dy)
                self.camera_fitted = False
            self._pan["last"] = pos
        left = self._left
        if left is not None and left["mode"] == "click" and _far(pos, left["start"]):
            left["mode"] = "fling"
        self._follow_grab()

    def _button_down(self, button, pos):
        self.mouse = (int(pos[0]), int(pos[1]))
        if button == 1:
            if self.show_help:
                self.show_help = False
                return
            point = self.camera.screen_to_world(pos)
            hit = self.world.ball_at(point)
            if hit >= 0:
                self._start_grab(hit, point)
                self._left = {"mode": "grab", "start": pos, "start_world": point}
            else:
                self._left = {"mode": "click", "start": pos, "start_world": point}
        elif button in (2, 3):
            self._pan = {"button": button, "start": pos, "last": pos, "moved": False}

    def _button_up(self, button, pos):
        self.mouse = (int(pos[0]), int(pos[1]))
        if button == 1 and self._left is not None:
            left, self._left = self._left, None
            if left["mode"] in ("grab", "released"):
                self._release_grab()
            elif left["mode"] == "click" and not _far(pos, left["start"]):
                self.spawn(left["start_world"])
            else:
                end = self.camera.screen_to_world(pos)
                self.spawn(left["start_world"], (end - left["start_world"]) * FLING_GAIN)
        elif button in (2, 3) and self._pan is not None and self._pan["button"] == button:
            pan, self._pan = self._pan, None
            if button == 3 and not pan["moved"]:
                self.delete_at(self.camera.screen_to_world(pos))

    # ---- commands on the world -----------------------------------------------------------------
    def spawn(self, point, velocity=(0.0, 0.0)):
        """Add a ball at a world point (metres) with a velocity (m/s); -1 if outside the level."""
        x0, y0, x1, y1 = self.world.bounds
        if not (x0 <= point[0] <= x1 and y0 <= point[1] <= y1):
            self.toast("outside the level")
            return -1
        index = self.world.add_ball(point, velocity, radius=self._spawn_radius())
        self._record_energy()
        return index

    def delete_at(self, point):
        hit = self.world.ball_at(point)
        if hit >= 0:
            self.world.remove_balls([hit])
            self._record_energy()
        return hit

    def _spawn_radius(self):
        """New balls match the level's own: its first spawner's, else its first ball's."""
        for spawner in self.level_doc.get("spawners", ()):
            if "radius" in spawner:
                return float(spawner["radius"])
        for ball in self.level_doc.get("balls", ()):
            if "radius" in ball:
                return float(ball["radius"])
        return None

    def _start_grab(self, index, point):
        """Grab a ball: springs to the cursor that the world integrates like any other.

        A single zero-length spring would do for stiffness, but its damping acts only
        along the spring, so a ball swinging round the cursor would orbit for ever. Two
        long springs instead, anchored GRAB_LEVER metres to the cursor's right and above it
        with rest length GRAB_LEVER: each is as good as parallel to its axis, so together
        they pull with -k d and damp with -c v in every direction. Stiffness and damping
        scale with the ball's mass, so every ball follows at GRAB_FREQUENCY."""
        self._release_grab()
        mass = 1.0 / float(self.world.inv_mass[index])
        omega = 2.0 * math.pi * GRAB_FREQUENCY
        stiffness = mass * omega * omega
        damping = 2.0 * GRAB_DAMPING_RATIO * mass * omega
        anchors = _grab_anchors(point)
        for anchor in anchors:
            self.world.add_spring(index, (float(anchor[0]), float(anchor[1])), stiffness, damping,
                                  rest=GRAB_LEVER)
        self._grab = {"id": int(self.world.ids[index]), "anchors": anchors,
                      "point": np.array(point, float)}

    def grab_springs(self):
        """Indices of the grab springs in world.springs, () if none (found afresh each time:
        the world renumbers springs when balls or springs go)."""
        if self._grab is None:
            return ()
        where = np.nonzero(self.world.ids == self._grab["id"])[0]
        if len(where) == 0:
            return ()
        springs = self.world.springs
        found = []
        for anchor in self._grab["anchors"]:
            match = np.nonzero((springs.a == where[0]) & (springs.b < 0)
                               & np.all(springs.anchor == anchor, axis=1))[0]
            if len(match) == 0:
                return ()
            found.append(int(match[-1]))
        return tuple(found)

    def grabbed(self):
        """(ball index, cursor point in metres) of the grabbed ball, or None."""
        if not self.grab_springs():
            return None
        return int(self.world.springs.a[self.grab_springs()[0]]), self._grab["point"]

    def _follow_grab(self):
        if self._grab is None:
            return
        springs = self.grab_springs()
        if not springs:                 # the ball is gone (deleted, or a kill zone took it)
            self._grab = None
            if self._left is not None and self._left["mode"] == "grab":
                self._left["mode"] = "released"
            return
        point = self.camera.screen_to_world(self.mouse)
        anchors = _grab_anchors(point)
        for k, anchor in zip(springs, anchors):
            self.world.set_anchor(k, anchor)
        self._grab["anchors"] = [np.array(self.world.springs.anchor[k], float) for k in springs]
        self._grab["point"] = point

    def _release_grab(self):
        springs = self.grab_springs()
        for k in sorted(springs, reverse=True):
            self.world.remove_spring(k)
        self._grab = None

    # ---- bookkeeping ------------------------------------------------------------------------------
    def toast(self, text):
        """Show a short message. One of the same kind ("debug: ...", "time x...") replaces
        the one before, so pressing a key five times shows one toast, not five."""
        kind = text.split(":")[0].split(" ")[0]
        self.toasts = [(t, u) for t, u in self.toasts if t.split(":")[0].split(" ")[0] != kind][-3:]
        self.toasts.append((text, self.clock + TOAST_SECONDS))

    def _record_energy(self):
        self._energy = self.world.energy()
        self.energy_history.record(self.world.time, self._energy)

    def _check_goal(self):
        progress = self.world.goal_progress()
        if progress and not self.complete and progress[1] > 0 and progress[0] >= progress[1]:
            self.complete = True
            self.toast("level complete!")

    # ---- drawing -----------------------------------------------------------------------------------
    def draw(self, surface):
        """The whole frame: world, aim line, HUD; saves it if F12 asked. A world that blew
        up (inf, nan) still draws, without numpy warnings."""
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            self._draw(surface)

    def _draw(self, surface):
        start = time.perf_counter()
        self.resize(surface.get_size())
        world = self.world
        self.renderer.draw(surface, world, self.camera, debug=self.debug_layers,
                           trails=self.trails if self.show_trails else None,
                           hidden_springs=self.grab_springs(), grab=self.grabbed())
        if self._left is not None and self._left["mode"] == "fling":
            self._draw_aim(surface)
        self._draw_hud(surface)
        ms = (time.perf_counter() - start) * 1000.0
        self.draw_ms = ms if self.draw_ms == 0 else 0.9 * self.draw_ms + 0.1 * ms
        if self._want_screenshot:
            self._want_screenshot = False
            self.save_screenshot(surface)

    def _draw_aim(self, surface):
        start_world = self._left["start_world"]
        end_world = self.camera.screen_to_world(self.mouse)
        velocity = (end_world - start_world) * FLING_GAIN
        gravity = np.asarray(self.level_doc.get("gravity", defaults.GRAVITY), float)
        t = np.linspace(0.0, AIM_PREVIEW_SECONDS, 25)[1:, None]
        path = self.camera.world_to_screen(start_world + velocity * t + 0.5 * gravity * t * t)
        speed = float(np.hypot(*velocity))
        draw_aim(surface, self._left["start"], self.mouse, f"{speed:.1f} m/s",
                 lambda s: self.hud.text(s, 22), path)

    def _draw_hud(self, surface):
        hud, world = self.hud, self.world
        top = hud.draw_banner(surface, self.banner)
        energy = self._energy if self._energy is not None else world.energy()
        cursor = self.camera.screen_to_world(self.mouse)
        fps = f"{self.fps:.0f} FPS    " if self.fps > 0 else ""
        draw = f"    draw {self.draw_ms:.1f} ms" if self.draw_ms > 0 else ""
        balls = "1 ball" if world.count == 1 else f"{world.count} balls"
        stats = [f"{balls}    time {world.time:.1f} s    energy {short_number(energy['total'])} J",
                 f"{fps}physics {self.tick_ms:.2f} ms/tick{draw}"]
        if self.mouse_known:
            stats.append(f"cursor ({cursor[0]:.2f}, {cursor[1]:.2f}) m")
        hud.draw_bar(surface, top, world.name or os.path.basename(self.level_path), world.description,
                     world.integrator, stats, world.goal_progress())
        hud.draw_status(surface, top, self.paused, self.time_scale)
        if self.complete:
            hud.draw_complete(surface, top)
        if self.show_energy:
            hud.draw_energy(surface, self.energy_history, bottom_gap=HINT_HEIGHT)
        hud.draw_hint(surface, "H help    I integrator    E energy    D debug    T trails    [ ] levels    R reset")
        hud.draw_toasts(surface, [(text, min(1.0, (until - self.clock) / 0.4)) for text, until in self.toasts])
        if self.show_help:
            hud.draw_help(surface, KEYMAP)

    def save_screenshot(self, surface):
        os.makedirs(self.screenshot_dir, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = os.path.join(self.screenshot_dir, f"ballpit-{stamp}.png")
        n = 1
        while os.path.exists(path):
            n += 1
            path = os.path.join(self.screenshot_dir, f"ballpit-{stamp}-{n}.png")
        try:
            pygame.image.save(surface, path)
        except (pygame.error, OSError) as error:
            self.toast(f"screenshot failed: {error}")
            return None
        self.toast("saved " + os.path.relpath(path, ROOT))
        return path


def _grab_anchors(point):
    """Where the two grab springs are anchored for a cursor at point (metres)."""
    x, y = float(point[0]), float(point[1])
    return [np.array((x + GRAB_LEVER, y)), np.array((x, y + GRAB_LEVER))]


def _far(a, b):
    return abs(a[0] - b[0]) > DRAG_THRESHOLD or abs(a[1] - b[1]) > DRAG_THRESHOLD


def _open_level(path):
    """(path, doc) or (None, None) after one line on stderr."""
    if path is None:
        files = level_files()
        if not files:
            print(f"main.py: no levels found in {LEVEL_DIR}", file=sys.stderr)
            return None, None
        path = files[0]
    try:
        return path, load(path)
    except LevelError as error:
        print(f"main.py: {error}", file=sys.stderr)
        return None, None


def run(args):
    """Play in a window. Exit code 0; 2 for a bad level (before any window opens); 1 if no
    window can be opened."""
    path, doc = _open_level(args.level)
    if doc is None:
        return 2
    try:
        pygame.display.init()
        pygame.font.init()
        screen = pygame.display.set_mode(args.size, pygame.RESIZABLE)
    except pygame.error as error:
        print(f"main.py: cannot open a window: {error}", file=sys.stderr)
        return 1
    try:
        pygame.display.set_caption("Ballpit")
        pygame.display.set_icon(_icon())
        app = App(path, size=screen.get_size(), doc=doc, audio=Audio())
        clock = pygame.time.Clock()
        caption = None
        loader = None
        while app.running:
            frame_dt = clock.tick(FPS_LIMIT) / 1000.0
            for event in pygame.event.get():
                app.handle_event(event)
            app.update(frame_dt)
            app.draw(pygame.display.get_surface())
            pygame.display.flip()
            if loader is None:   # after the first frame: the compiled kernels join in a few s
                loader = accel.load_in_background()
            if app.world.name != caption:
                caption = app.world.name
                pygame.display.set_caption(f"Ballpit: {caption}" if caption else "Ballpit")
        app.audio.close()
    finally:
        accel.stop_background()
        pygame.quit()
    return 0


def screenshot(args):
    """Render one frame offscreen to args.screenshot after args.steps ticks; no window."""
    path, doc = _open_level(args.level)
    if doc is None:
        return 2
    accel.load()
    pygame.font.init()
    app = App(path, size=args.size, doc=doc)
    app.advance(DEFAULT_STEPS if args.steps is None else args.steps)
    surface = pygame.Surface(args.size)
    app.draw(surface)
    try:
        pygame.image.save(surface, args.screenshot)
    except (pygame.error, OSError) as error:
        print(f"main.py: cannot write {args.screenshot}: {error}", file=sys.stderr)
        return 2
    return 0


def _icon():
    """The window icon: a red ball."""
    icon = pygame.Surface((32, 32), pygame.SRCALPHA)
    icon.blit(make_ball_sprite(PALETTE[0], 14), (1, 1))
    return icon
