"""Play: the world runs; the mouse spawns, flings, grabs and deletes balls; keys drive the
clock, the integrator, the debug layers and the level; the HUD shows the run."""
import os

import numpy as np
import pygame

from game import defaults
from game.gestures import Fling, Hold, Pan, far
from game.hud import BAR_HEIGHT, HINT_HEIGHT, EnergyHistory, energy_plot_rect, short_number
from game.integrators import ORDER, next_integrator
from game.modes.base import Mode
from game.modes.help import HelpMode
from game.render import DEBUG_LAYERS, Trails, draw_aim

FLING_GAIN = 3.0             # 1/s: fling velocity (m/s) = drag vector (m) * FLING_GAIN
ZOOM_PER_NOTCH = 1.15        # scale factor per wheel notch
AIM_PREVIEW_SECONDS = 1.2    # s of predicted flight drawn while aiming

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

HINT = "H help    I integrator    E energy    D debug    T trails    [ ] levels    R reset"


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
        self.energy_chosen = False     # the player pressed E: I no longer opens the plot
        self.complete = False          # goal reached (latched until reset or a new level)
        self.trails = Trails()
        self.energy_history = EnergyHistory()
        self.energy = None             # the world's energies at the last frame that ticked

    @property
    def world(self):
        return self.app.session.world

    @property
    def debug_layers(self):
        return DEBUG_MODES[self.debug_index][1]

    # ---- the world's life ------------------------------------------------------------------
    def new_world(self):
        """The session rebuilt the world (new level, reset, reload): forget what was drawn."""
        self.left = None
        self.trails.clear()
        self.energy_history.clear()
        self.complete = False
        self.record_energy()

    def after_tick(self):
        """After every tick: its impacts' sounds and the trail points."""
        world, app = self.world, self.app
        if app.audio.enabled and len(world.impact_speeds):
            pans = app.camera.world_to_screen(world.impact_points)[:, 0] / max(1, app.camera.size[0])
            app.audio.play_impacts(world.impact_speeds, pans)
        if self.show_trails:
            self.trails.record(world)

    def after_ticks(self):
        """After a frame's ticks: the energy sample and the goal."""
        self.record_energy()
        progress = self.world.goal_progress()
        if progress and not self.complete and progress[1] > 0 and progress[0] >= progress[1]:
            self.complete = True
            self.app.toast("level complete!")

    def record_energy(self):
        self.energy = self.world.energy()
        self.energy_history.record(self.world.time, self.energy)

    def update(self, frame_dt):
        self.follow_grab()

    def follow_grab(self):
        """Keep the held ball's grab at the cursor; a grab whose ball went ends here."""
        if isinstance(self.left, Hold):
            self.world.move_grab(self.left.handle, self.app.cursor_world())

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
            app.session.reset()
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
            self.energy_chosen = True
        elif key == pygame.K_f:
            app.fit_camera()
        elif key == pygame.K_m:
            app.audio.muted = not app.audio.muted
            app.toast("sound " + ("off" if app.audio.muted else "on")
                      + ("" if app.audio.enabled else " (no audio device)"))
        elif key == pygame.K_F12:
            app.request_screenshot()
        elif key in (pygame.K_TAB, pygame.K_F2):
            if app.editor_factory is None:
                app.toast("editor: coming soon")
            else:
                app.push(app.editor_factory(app))
        else:
            return False
        return True

    def cycle_integrator(self):
        following = next_integrator(self.world.integrator)   # the world holds only names in ORDER
        self.world.integrator = following
        if not self.energy_chosen:
            self.set_energy_shown(True)     # the plot is where the difference shows
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
            if isinstance(left, Hold):
                self.world.release(left.handle)
            elif not left.dragging and not far(pos, left.start):
                self.spawn(left.start_world)
            else:
                end = self.app.camera.screen_to_world(pos)
                self.spawn(left.start_world, (end - left.start_world) * FLING_GAIN)
        elif button in (2, 3) and self.pan is not None and self.pan.button == button:
            pan, self.pan = self.pan, None
            if button == 3 and not pan.moved:
                self.delete_at(self.app.camera.screen_to_world(pos))

    # ---- commands on the world -----------------------------------------------------------------
    def spawn(self, point, velocity=(0.0, 0.0)):
        """Add a ball at a world point (metres) with a velocity (m/s); -1 if outside the level."""
        x0, y0, x1, y1 = self.world.bounds
        if not (x0 <= point[0] <= x1 and y0 <= point[1] <= y1):
            self.app.toast("outside the level")
            return -1
        index = self.world.add_ball(point, velocity, radius=self.spawn_radius())
        self.record_energy()
        return index

    def delete_at(self, point):
        hit = self.world.ball_at(point)
        if hit >= 0:
            self.world.remove_balls([hit])
            self.record_energy()
        return hit

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

    # ---- drawing -----------------------------------------------------------------------------------
    def draw(self, surface):
        app = self.app
        app.renderer.draw(surface, self.world, app.camera, debug=self.debug_layers,
                          trails=self.trails if self.show_trails else None)
        if isinstance(self.left, Fling) and self.left.dragging:
            self.draw_aim(surface)
        self.draw_hud(surface)

    def draw_aim(self, surface):
        app, fling = self.app, self.left
        end_world = app.cursor_world()
        velocity = (end_world - fling.start_world) * FLING_GAIN
        gravity = np.asarray(app.session.doc.get("gravity", defaults.GRAVITY), float)
        t = np.linspace(0.0, AIM_PREVIEW_SECONDS, 25)[1:, None]
        path = app.camera.world_to_screen(fling.start_world + velocity * t + 0.5 * gravity * t * t)
        speed = float(np.hypot(*velocity))
        draw_aim(surface, fling.start, app.mouse, f"{speed:.1f} m/s", lambda s: app.hud.text(s, 22), path)

    def draw_hud(self, surface):
        app, hud, world = self.app, self.app.hud, self.world
        stats = app.stats
        top = hud.draw_banner(surface, app.session.error)
        energy = self.energy if self.energy is not None else world.energy()
        fps = f"{stats.fps:.0f} FPS    " if stats.fps > 0 else ""
        draw = f"    draw {stats.draw_ms:.1f} ms" if stats.draw_ms > 0 else ""
        balls = "1 ball" if world.count == 1 else f"{world.count} balls"
        lines = [f"{balls}    time {world.time:.1f} s    energy {short_number(energy['total'])} J",
                 f"{fps}physics {stats.tick_ms:.2f} ms/tick{draw}"]
        if app.mouse_known:
            cursor = app.cursor_world()
            lines.append(f"cursor ({cursor[0]:.2f}, {cursor[1]:.2f}) m")
        hud.draw_bar(surface, top, world.name or os.path.basename(app.session.path), world.description,
                     world.integrator, lines, world.goal_progress())
        hud.draw_status(surface, top, app.clock.paused, app.clock.time_scale)
        if self.complete:
            hud.draw_complete(surface, top)
        if self.show_energy:
            hud.draw_energy(surface, self.energy_history, bottom_gap=HINT_HEIGHT)
        hud.draw_hint(surface, HINT)

