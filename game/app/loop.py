"""The pygame game, wired: a fixed clock, a level session, and a stack of modes.

``App`` holds everything but the window, so tests drive it headless:
``handle_event(event)`` for pygame events, ``update(frame_dt)`` to advance (wall-clock
seconds in; the world only ever sees ticks of exactly TICK), ``draw(surface)``.
``run(args)`` owns the window; ``screenshot(args)`` renders offscreen to a PNG.

What App offers the modes: ``push(mode)``, ``pop()``, ``top``; ``session`` (game.app.session:
``.path``, ``.doc``, ``.world``, ``.reload()``, ``.reset()``, ``.set_doc(doc)``,
``.watcher``); ``clock`` (game.app.clock.FixedClock: ``.paused``, ``.time_scale``,
``.advance(frame_dt)``); ``camera``, ``renderer``, ``hud``, ``audio``; ``toast(text)``;
``size``; ``mouse`` (px) and ``cursor_world()``; ``request_quit()``, which asks every
mode's ``can_quit()`` first, and ``quit_now()``, once the player said yes;
``editor_factory``: a callable app -> Mode pushed by Tab/F2
(None: Tab says the editor is coming).
"""
import os
import sys
import time

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import numpy as np  # noqa: E402
import pygame  # noqa: E402

from game import paths
from game.physics.compiled import loader

from game.draw import sprites  # noqa: E402
from game.app.audio import Audio  # noqa: E402
from game.draw.camera import Camera  # noqa: E402
from game.app.clock import THREAD_CLOCK, FixedClock  # noqa: E402
from game.draw.hud import Hud, drawable  # noqa: E402
from game.app.progress import Progress  # noqa: E402
from game.app.recording import Recording, stamped  # noqa: E402
from game.level import LevelError, level_files, load  # noqa: E402
from game.modes.play import PlayMode  # noqa: E402
from game.draw.renderer import Renderer, make_ball_sprite  # noqa: E402
from game.app.session import LevelSession  # noqa: E402
from game.app.ticker import TickWorker  # noqa: E402
from game.app.toasts import Toasts  # noqa: E402
from game.defaults import TICK  # noqa: E402  (the one step the world is ever given)
from game.draw.theme import PALETTE  # noqa: E402


FPS_LIMIT = 60               # frames per second the window aims for
DEFAULT_STEPS = 120          # ticks a --screenshot runs before it draws
RELOAD_POLL = 0.5            # s between checks of the level file
SMOOTHING = 0.1              # weight of the newest sample in the smoothed FPS and timings
# s: the interpreter's switch interval while the ticks run on the worker thread (default
# 0.005): the worker needs the lock for a moment before and after each compiled tick, and
# waits up to this long for the drawing thread to hand it over.
OVERLAP_SWITCH_INTERVAL = 0.0005
# ms: a tick (smoothed, FrameStats.tick_cpu_ms: its own cost, not the waits for a core that a
# busy machine adds to its wall time) shorter than this runs on the main thread: the worker's
# costs (waking its thread, the view, handing the lock over) would eat what it saves.
OVERLAP_MIN_TICK_MS = 2.0
# While the compiled kernels load (App.warming_up), the numpy path serves: on a busy level its
# tick costs more than a frame (32 ms at 150 balls, 1.6 ms compiled), and frames that waited
# for ticks and then caught up ran at 15-28 FPS. Meanwhile frames come first (FramePacer): a
# frame's ticks are held back so that frames keep PACED_MIN_FPS, and the world runs slower.
PACED_MIN_FPS = 50
PACED_PERIOD = 0.019         # s: the mean frame period the pacer allows (under 1/PACED_MIN_FPS)
PACED_SAVED = 0.03           # s: frame time saved up for ticks at most (50 periods and this fit in 1 s)
PACED_TICK_SHARE = 0.1       # of the wall time the ticks get at least, frame rate or not


class FrameStats:
    """Smoothed frame rate, milliseconds per tick and per draw, for the HUD.

    ``tick_ms``: a tick's wall time, what it takes of the frame (the warm-up pacer goes by
    it); ``tick_cpu_ms``: the stepping thread's CPU time in it, what the tick costs (the HUD
    shows this one, and the choice of the worker thread goes by it). They differ by the time the thread waited:
    for a core that the drawing, the X server or other programs had, or for the
    interpreter's lock. ``python main.py --headless --json``'s ``ms_per_step`` is the same
    tick run back to back on a quiet core, where the two agree
    (benchmarks/bench_window_tick.py compares them in the window's own loop)."""

    def __init__(self):
        self.fps = self.tick_ms = self.tick_cpu_ms = self.draw_ms = 0.0
        self.ticks = 0                  # ticks run since start

    @staticmethod
    def _smooth(old, new):
        return new if old == 0 else (1.0 - SMOOTHING) * old + SMOOTHING * new

    def frame(self, frame_dt):
        if frame_dt > 0:
            self.fps = self._smooth(self.fps, 1.0 / max(frame_dt, 1e-6))

    def tick(self, ms, cpu_ms=None):
        """A tick took ``ms`` wall milliseconds, ``cpu_ms`` of them its thread's CPU (None: as many)."""
        cpu_ms = ms if cpu_ms is None else cpu_ms
        self.tick_ms = ms if self.ticks == 0 else self._smooth(self.tick_ms, ms)
        self.tick_cpu_ms = cpu_ms if self.ticks == 0 else self._smooth(self.tick_cpu_ms, cpu_ms)
        self.ticks += 1

    def draw(self, ms):
        self.draw_ms = self._smooth(self.draw_ms, ms)


class FramePacer:
    """Frame time as a budget for ticks: frames at least every ``period`` s on average, and the
    ticks at least ``share`` of the wall time.

    A token bucket: each frame earns ``period`` minus its length (the wall seconds since the
    frame before, the ticks it ran included), up to ``saved`` s; a frame runs ticks only while
    the credit covers one (``tick_s``, the recent cost of a tick) and stops where it would not
    cover another (game.app.clock.FixedClock's budget). So over any run of k frames the wall time
    is at most k period + saved, give or take the error of ``tick_s``. Besides, the ticks earn
    ``share`` of every frame's length, spent a tick at a time: where the frames alone take
    longer than ``period`` (a machine busy with other work) no credit would ever come, and
    the world still moves; on a quiet machine 50 frames of 1/60 s and share s of ticks fit
    in a second."""

    def __init__(self, period=PACED_PERIOD, saved=PACED_SAVED, share=PACED_TICK_SHARE):
        self.period = period
        self.saved = saved
        self.share = share
        self.credit = 0.0           # s of wall time the ticks may spend to keep the frame rate
        self.owed = 0.0             # s of wall time the ticks are owed at least

    def budget(self, frame_dt, tick_s):
        """After a frame of ``frame_dt`` s, with ticks of ``tick_s`` s lately: the s of ticks this
        frame may run after its first (FixedClock.advance's ``budget``), or None (no tick)."""
        frame_dt = max(0.0, float(frame_dt))
        tick_s = max(0.0, float(tick_s))
        self.credit = min(self.saved, self.credit + self.period - frame_dt)
        self.owed = min(max(self.saved, tick_s), self.owed + self.share * frame_dt)
        if self.credit >= tick_s:
            self.owed = 0.0
            return self.credit - tick_s
        if self.owed >= tick_s:
            self.owed -= tick_s
            return 0.0              # one tick
        return None


class App:
    """The game without the window: wiring only. Tests inject events and call update and draw."""

    def __init__(self, level_path, size=(1280, 720), doc=None, audio=None, level_dir=paths.LEVELS,
                 screenshot_dir=paths.SCREENSHOTS, compiled=None):
        self.level_dir = level_dir
        self.screenshot_dir = screenshot_dir
        self.camera = Camera(size)
        self.renderer = Renderer()
        self.hud = Hud()
        self.audio = audio if audio is not None else Audio(enabled=False)
        self.toasts = Toasts()
        self.progress = Progress()     # completions that last (game.app.progress); its error: one toast
        self.stats = FrameStats()
        self.clock = FixedClock(self.tick)
        self.session = LevelSession(level_path, doc, on_new_world=self._new_world, compiled=compiled)
        self.editor_factory = None
        self.loader = None             # the thread loading the compiled kernels (run() starts it)
        self._arrived = None           # what that thread loaded last, to hand over on this thread
        self.running = True
        self.time = 0.0                # real seconds since start (toasts, reload polling)
        self.next_poll = RELOAD_POLL
        self.mouse = (size[0] // 2, size[1] // 2)
        self.mouse_known = False       # no mouse event yet, or the pointer left the window
        self._want_screenshot = False
        self._view = None              # the World.view() drawn while the ticks run (start_update)
        self._job = None               # those ticks: (worker or None, [(ms, outcome)], {"ticks", "error"})
        self.ticker = TickWorker()     # the one thread those ticks run on, frame after frame
        self.pacer = FramePacer()      # frames first while warming up (_before_ticks)
        self._tick_budget = None       # s of ticks this frame may run (None: the clock's own budget)
        self.recording = Recording(self)   # F5's replays, F9's clips, --replay's playback
        self.play = PlayMode(self)
        self.stack = [self.play]
        self.fit_camera()
        self.play.record_energy()
        if self.progress.error:
            self.toast(self.progress.error)

    # ---- the stack ------------------------------------------------------------------------
    @property
    def top(self):
        return self.stack[-1]

    def push(self, mode):
        self.top.exit()
        self.stack.append(mode)
        mode.enter()

    def pop(self):
        """Remove the top mode (never the play mode at the bottom); returns it."""
        if len(self.stack) == 1:
            return None
        mode = self.stack.pop()
        mode.exit()
        self.top.enter()
        return mode

    def request_quit(self):
        """Quit unless a mode holds work it must not lose: each is asked, the top first, and
        the first whose can_quit() says False (it asks the player itself) stops the quit."""
        for mode in reversed(self.stack):
            if not mode.can_quit():
                return False
        self.running = False
        return True

    def quit_now(self):
        """Quit without asking again (the player answered yes)."""
        self.running = False

    def close(self):
        """Wait for ticks still running on the worker thread, then end that thread (run() calls
        this once the loop is over; an app never started one has nothing to end)."""
        if self._job is not None and self._job[0] is not None:
            try:
                self.finish_update()
            except Exception:       # noqa: BLE001 - quitting: the loop reported its own error
                pass
        self.ticker.close()

    # ---- shared state ---------------------------------------------------------------------
    @property
    def world(self):
        """The level's world; from start_update to finish_update, while the ticks run on a
        worker thread, the view of it that is drawn meanwhile (World.view)."""
        return self.session.world if self._view is None else self._view

    @property
    def size(self):
        return self.camera.size

    @property
    def warming_up(self):
        """Whether the compiled kernels are still being made ready (the numpy path serves
        meanwhile, slower: the HUD says so)."""
        return self.compiled is None and self.loader is not None and self.loader.is_alive()

    @property
    def compiled(self):
        """The compiled kernels the worlds run (game.physics.compiled.loader.Compiled), None
        while they load or where numba cannot compile (the numpy execution serves)."""
        return self.session.compiled

    def kernels_arrived(self, compiled):
        """The loading thread's hand-over: kept here, and handed to the worlds by the main
        thread at the next frame (a world never changes execution in the middle of a tick)."""
        self._arrived = compiled

    def _hand_over_kernels(self):
        arrived, self._arrived = self._arrived, None
        if arrived is not None:
            self.session.use_compiled(arrived)

    def cursor_world(self):
        """The mouse pointer in world metres (2,)."""
        return self.camera.screen_to_world(self.mouse)

    def level_files(self):
        return level_files(self.level_dir)

    def toast(self, text):
        """Show a short message for a moment."""
        self.toasts.add(text, self.time)

    def fit_camera(self):
        """Show the whole level in the room the play mode's HUD leaves."""
        self.camera.fit(self.world.bounds, inset=self.play.camera_inset())

    def resize(self, size):
        size = (max(1, int(size[0])), max(1, int(size[1])))
        if size == self.camera.size:
            return
        self.camera.resize(size)
        if self.camera.fitted:
            self.fit_camera()

    def _new_world(self, refit):
        """The session rebuilt the world: caches and per-level state start again."""
        self.renderer.invalidate()
        self.clock.accumulator = 0.0
        self.play.new_world()
        self.recording.new_world()
        if refit:
            self.fit_camera()

    # ---- the loop -----------------------------------------------------------------------------
    def update(self, frame_dt):
        """Advance by one frame of frame_dt wall-clock seconds; returns the ticks run."""
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):    # never to stderr
            return self._update(frame_dt)

    def _update(self, frame_dt):
        frame_dt = max(0.0, float(frame_dt))
        ticks = self.clock.advance(frame_dt, budget=self._tick_budget) if self._before_ticks(frame_dt) else 0
        return self._after_ticks(ticks)

    def _before_ticks(self, frame_dt):
        """A frame's bookkeeping before its ticks; returns whether the world may tick (False: a
        mode above play stops it, or while warming up the frames need the time (FramePacer);
        the clock saves nothing up)."""
        self.time += frame_dt
        self.stats.frame(frame_dt)
        self._hand_over_kernels()
        if self.time >= self.next_poll:
            self.next_poll = self.time + RELOAD_POLL
            self.poll_level()
        self.top.update(frame_dt)
        if any(mode.pauses_below for mode in self.stack[1:]):
            self.clock.hold()
            return False
        self._tick_budget = None
        if self.warming_up and not self.clock.paused:
            self._tick_budget = self.pacer.budget(frame_dt, self.stats.tick_ms / 1000.0)
            if self._tick_budget is None:
                self.clock.wait(frame_dt)   # no tick this frame: the world runs slower, the frames keep up
                return False
        return True

    def _after_ticks(self, ticks):
        if ticks:
            self.play.after_ticks()
        self.recording.after_ticks()
        self.toasts.expire(self.time)
        return ticks

    def tick(self):
        """One fixed physics tick, with what play makes of it (sounds, trails)."""
        ms, outcome = self._step(self.session.world)
        self.stats.tick(*ms)
        self.play.after_tick(outcome)

    def _step(self, world):
        """world.step(TICK) on the calling thread; returns ((wall ms, the thread's CPU ms),
        play's tick_outcome)."""
        self.recording.before_tick(world)       # a replay's inputs due before this tick
        cpu, start = THREAD_CLOCK(), time.perf_counter()
        world.step(TICK)
        ms = ((time.perf_counter() - start) * 1000.0, (THREAD_CLOCK() - cpu) * 1000.0)
        if self.play.lab is not None:
            self.play.lab.step(TICK)        # the integrator lab's ghost: one more world's tick
        self.recording.after_tick(world)    # (a replay's last inputs: to the ghost too, at the same tick)
        return ms, self.play.tick_outcome(world)

    # ---- the loop on two cores --------------------------------------------------------------
    def overlaps(self):
        """Whether start_update runs this frame's ticks on a worker thread: the play mode alone
        on the stack, ticks of OVERLAP_MIN_TICK_MS or more, and the next tick one compiled call
        that lets go of the interpreter's lock (Compiled.releases_lock), so the drawing
        meanwhile has the other core. Elsewhere
        (numpy, bodies, an overlay) a worker would only take turns at the lock.
        ``BALLPIT_SERIAL=1`` in the environment keeps every tick on the main thread (to compare:
        on a machine whose cores other programs keep busy the worker gains nothing)."""
        compiled = self.compiled
        return (len(self.stack) == 1 and not os.environ.get("BALLPIT_SERIAL")
                and compiled is not None and compiled.releases_lock
                and self.stats.tick_cpu_ms >= OVERLAP_MIN_TICK_MS and self.session.world.ticks_in_one_call())

    def start_update(self, frame_dt):
        """update(frame_dt) in two halves around the drawing: here the bookkeeping, then the
        frame's ticks start on a worker thread (where overlaps(); else they run here at once).
        Until finish_update() the app's world is a view of the world as it was before these
        ticks (World.view): draw() shows that while the world steps; nothing else may touch the
        app meanwhile. The ticks are the ones update() runs, in the same order, on the same
        world: only the frame they are shown in moves (one frame later)."""
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            frame_dt = max(0.0, float(frame_dt))
            if not self._before_ticks(frame_dt):
                self._job = (None, [], {"ticks": 0})
                return
            if not self.overlaps():
                self._job = (None, [], {"ticks": self.clock.advance(frame_dt, budget=self._tick_budget)})
                return
            world = self.session.world
            self._view = world.view()
            if self.play.lab is not None:
                self.play.lab.freeze()
            done, result = [], {"ticks": 0, "interval": sys.getswitchinterval()}
            sys.setswitchinterval(min(result["interval"], OVERLAP_SWITCH_INTERVAL))
            self._job = (self.ticker, done, result)
            self.ticker.start(self._ticks_apart, world, frame_dt, done, self._tick_budget)

    def _ticks_apart(self, world, frame_dt, done, budget):
        """start_update's job on the worker thread: the frame's ticks of ``world``, each tick's
        (ms, outcome) appended to ``done``; returns how many ran."""
        with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
            return self.clock.advance(frame_dt, tick=lambda: done.append(self._step(world)), budget=budget)

    def ticking_apart(self):
        """Whether the ticks start_update began run on the worker thread now."""
        return self._job is not None and self._job[0] is not None

    def finish_update(self):
        """Wait for start_update's ticks, then what update() does after them (sounds, trails,
        energy, goal); returns the ticks run. An error in a tick is raised here."""
        if self._job is None:
            return 0
        worker, done, result = self._job
        self._job = None
        if worker is not None:
            try:
                result["ticks"] = worker.result()
            except BaseException as error:  # noqa: BLE001 - raised below, after the ticks that ran are seen
                result["error"] = error
            finally:
                sys.setswitchinterval(result["interval"])
        self._view = None
        if self.play.lab is not None:
            self.play.lab.thaw()
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            for ms, outcome in done:
                self.stats.tick(*ms)
                self.play.after_tick(outcome)
            if "error" in result:
                raise result["error"]
            return self._after_ticks(result["ticks"])

    def advance(self, ticks):
        """Run exactly `ticks` ticks now, whatever the clock (for --screenshot and tests)."""
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            for _ in range(int(ticks)):
                self.tick()
            self.play.after_ticks()
            self.recording.after_ticks()

    def poll_level(self):
        """Check the level file; reload it if it changed and is good (the error banner shows
        while it is broken)."""
        result = self.session.reload()
        if result == "reloaded":
            self.toast(f"reloaded {os.path.basename(self.session.path)}")
        elif result == "error":
            # The banner cuts a long message at the window's width: the whole of it, once, here.
            print(f"main.py: {self.session.error}", file=sys.stderr)

    # ---- input ----------------------------------------------------------------------------------
    def handle_event(self, event):
        """Window events here; the rest to the top mode."""
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):   # a blown-up world
            self._handle_event(event)

    def _handle_event(self, event):
        kind = event.type
        if kind == pygame.QUIT:
            self.request_quit()
            return
        if kind == pygame.VIDEORESIZE:
            self.resize(event.size)
            return
        if kind == pygame.WINDOWSIZECHANGED:
            self.resize((event.x, event.y))
            return
        if kind == pygame.WINDOWLEAVE:
            self.mouse_known = False
            return
        if kind in (pygame.MOUSEMOTION, pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP):
            self.mouse = (int(event.pos[0]), int(event.pos[1]))
            self.mouse_known = self.mouse_known or kind == pygame.MOUSEMOTION
        self.top.handle_event(event)

    # ---- drawing ----------------------------------------------------------------------------------
    def draw(self, surface, toasts=True):
        """The whole frame: the modes from the topmost opaque one up, then the toasts (unless
        ``toasts`` is False); F12's screenshot and F9's clip are taken before the toasts, so
        they never show in them. A world that blew up (inf, nan) still draws, without numpy
        warnings."""
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            start = time.perf_counter()
            self.resize(surface.get_size())
            first = max(k for k, mode in enumerate(self.stack) if mode.opaque or k == 0)
            for mode in self.stack[first:]:
                mode.draw(surface)
            self.stats.draw((time.perf_counter() - start) * 1000.0)
            if self._want_screenshot:
                self._want_screenshot = False
                self.save_screenshot(surface)
            self.recording.frame(surface)
            if toasts:
                self.hud.draw_toast(surface, self.toasts.shown(self.time))

    def request_screenshot(self):
        """Save the next frame drawn to screenshot_dir."""
        self._want_screenshot = True

    def save_screenshot(self, surface):
        os.makedirs(self.screenshot_dir, exist_ok=True)
        path = stamped(self.screenshot_dir, "ballpit", ".png")
        try:
            pygame.image.save(surface, path)
        except (pygame.error, OSError) as error:
            self.toast(f"screenshot failed: {error}")
            return None
        self.toast("saved " + os.path.relpath(path, paths.ROOT))
        return path


def open_level(path):
    """(path, doc) or (None, None) after one line on stderr."""
    if path is None:
        files = level_files(paths.LEVELS)
        if not files:
            print(f"main.py: no levels found in {paths.LEVELS}", file=sys.stderr)
            return None, None
        path = files[0]
    try:
        return path, load(path)
    except LevelError as error:
        print(f"main.py: {error}", file=sys.stderr)
        return None, None


def level_to_play(level):
    """(path, doc) for the window: doc is None for a file that exists but does not load (its
    error went to stderr; the game opens on an empty floor with the error shown, and the
    live reload brings the level in once the author fixes it). (None, None) when there is
    nothing to play (no such file, no levels), after one line on stderr."""
    path, doc = open_level(level)
    if doc is None and level is not None and os.path.isfile(level):
        return level, None
    return path, doc


def run(args, replay=None):
    """Play in a window. Exit code 0; 2 for a missing level (before any window opens); 1 if
    no window can be opened. A level file that does not load opens with its error shown.
    ``replay`` (game.replay.load's): its level, with its inputs played in."""
    if replay is not None:
        path, doc = replay["level_file"] or args.replay, replay["level"]
    else:
        path, doc = level_to_play(args.level)
    if path is None:
        return 2
    try:
        pygame.display.init()
        pygame.font.init()
        screen = pygame.display.set_mode(args.size, pygame.RESIZABLE)
    except pygame.error as error:
        print(f"main.py: cannot open a window: {error}", file=sys.stderr)
        return 1
    app = None
    try:
        pygame.display.set_caption("Ballpit")
        pygame.display.set_icon(_icon())
        app = App(path, size=screen.get_size(), doc=doc, audio=Audio())
        from game.modes.edit import install_editor     # Tab/F2; --edit opens it at once
        install_editor(app, open_now=getattr(args, "edit", None) is not None)
        if replay is not None:
            app.recording.play(replay, getattr(args, "lab", None))
        _play(app)
        app.audio.close()
    except Exception as error:          # a bug (a tick that raised, say): one line, never a traceback
        print(f"main.py: internal error: {first_line(error)}", file=sys.stderr)
        return 1
    finally:
        if app is not None:
            app.close()                 # the tick thread ends before the interpreter does
        loader.stop_background()
        pygame.quit()
    return 0


def run_replay(args):
    """--replay FILE in a window: the replay's level at tick 0 with its inputs played in (the
    player may take over; the toast at the end says whether the bits came out as recorded).
    Exit code 2 for a replay that cannot be played."""
    from game.replay import ReplayError, load as load_replay
    try:
        replay = load_replay(args.replay)
    except ReplayError as error:
        print(f"main.py: {error}", file=sys.stderr)
        return 2
    return run(args, replay)


def _play(app):
    """The window's loop until the player quits."""
    clock = pygame.time.Clock()
    caption = None
    while app.running:
        frame_dt = clock.tick(FPS_LIMIT) / 1000.0
        for event in pygame.event.get():
            app.handle_event(event)
        app.start_update(frame_dt)       # the ticks on the second core while this draws
        try:
            app.draw(pygame.display.get_surface())
            pygame.display.flip()
        finally:
            app.finish_update()
        if app.loader is None:   # after the first frame: the compiled kernels join in a few s
            app.loader = loader.load_in_background(app.kernels_arrived, also=("game.draw.sprites",))
        elif app.compiled is not None:
            # numba is in and the first compiling child cached the stamper: it loads in
            # tens of ms. Not before: compiled here it would hold the lock a second or
            # more, and with BALLPIT_NUMPY (no kernels) the balls stay blitted.
            sprites.load_in_background()
        if app.world.name != caption:
            caption = app.world.name
            pygame.display.set_caption(f"Ballpit: {drawable(caption)}" if caption else "Ballpit")


def first_line(error):
    """``Type: the first line of its message`` (at most 200 characters of it)."""
    text = (str(error).strip().splitlines() or ["(no message)"])[0][:200]
    return f"{type(error).__name__}: {text}"


def screenshot(args):
    """Render one frame offscreen to args.screenshot after args.steps ticks; no window. The
    output path is checked first (a 2,000-ball level takes seconds to simulate); the format
    is the one its extension names (main.py refuses the others)."""
    from game.headless import output_problem
    problem = output_problem(args.screenshot)
    if problem is not None:
        print(f"main.py: --screenshot: {problem}", file=sys.stderr)
        return 2
    path, doc = open_level(args.level)
    if doc is None:
        return 2
    try:
        compiled = loader.load()
        pygame.font.init()
        app = App(path, size=args.size, doc=doc, compiled=compiled)
        app.advance(DEFAULT_STEPS if args.steps is None else args.steps)
        surface = pygame.Surface(args.size)
        app.draw(surface)
    except Exception as error:          # a bug: one line, never a traceback
        print(f"main.py: internal error: {first_line(error)}", file=sys.stderr)
        return 1
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
