"""The fixed clock: wall time in, ticks of exactly TICK out.

Frame time (capped at MAX_FRAME_DT) times the time scale fills an accumulator, which is
drained in ticks of TICK, at most MAX_TICKS_PER_FRAME a frame and no more after `budget`
seconds of wall time; what is left then is dropped, so a slow frame slows the game instead
of making it catch up forever (the "spiral of death") or take a giant step. The frame's
wall time never reaches the physics: only the tick callable runs, always for one TICK.
No pygame here.
"""
import time

from game.defaults import TICK

MAX_TICKS_PER_FRAME = 4      # a slow frame runs at most this many ticks, then drops the rest
MAX_FRAME_DT = 0.1           # s: a longer frame (window dragged, debugger) counts as this long
TICK_BUDGET = 0.030          # s: stop ticking in a frame after this much wall time (>= 1 tick)
TIME_SCALES = (0.1, 0.25, 0.5, 1.0, 2.0)   # slow motion ... fast forward
# The clock a tick's own cost is read on (the HUD's physics ms): the stepping thread's CPU
# time where the system keeps it finely (Linux, macOS: nanoseconds), else the wall clock
# (Windows counts a thread's time in 15.6 ms steps). Unlike the wall clock it leaves out the
# time the thread waited for a core (the drawing, the X server, other programs) or the lock.
THREAD_CLOCK = time.thread_time if time.get_clock_info("thread_time").resolution <= 1e-6 else time.perf_counter


class FixedClock:
    """The accumulator loop. ``tick()`` is called once per tick of TICK seconds."""

    def __init__(self, tick, budget=TICK_BUDGET):
        self.tick = tick
        self.budget = budget            # s of wall time per frame for ticks (tests lift it)
        self.paused = False
        self.scale_index = TIME_SCALES.index(1.0)
        self.accumulator = 0.0          # s of scaled time not yet ticked
        self.pending_steps = 0          # single steps asked for while paused

    @property
    def time_scale(self):
        """Simulated seconds per wall second."""
        return TIME_SCALES[self.scale_index]

    def set_scale_index(self, index):
        """Pick a time scale from TIME_SCALES by index (clamped); returns the scale."""
        self.scale_index = min(max(int(index), 0), len(TIME_SCALES) - 1)
        return self.time_scale

    def toggle_pause(self):
        self.paused = not self.paused
        self.accumulator = 0.0
        return self.paused

    def step_once(self):
        """Pause, and run exactly one tick at the next advance."""
        self.paused = True
        self.pending_steps += 1

    def hold(self):
        """Skip a frame without ticking (a mode above stops the world): nothing saved up."""
        self.accumulator = 0.0
        self.pending_steps = 0

    def wait(self, frame_dt):
        """A frame that runs no tick though the world is running (game.app.loop paces its frames):
        its time is kept up to one tick, so that the next frame let tick runs one; the rest
        is dropped (the world runs slower)."""
        if not self.paused:
            self.accumulator = min(TICK, self.accumulator + min(max(0.0, float(frame_dt)), MAX_FRAME_DT) * self.time_scale)

    def advance(self, frame_dt, tick=None, budget=None):
        """Run the ticks frame_dt wall seconds are worth; returns how many ran. ``tick``: the
        callable to run per tick this once (default ``self.tick``; game.app.loop passes one that
        steps the world on a worker thread). ``budget``: s of wall time for this frame's ticks
        this once (default ``self.budget``, and never more; game.app.loop paces frames with it)."""
        tick = self.tick if tick is None else tick
        budget = self.budget if budget is None else min(self.budget, budget)
        ticks = 0
        started = time.perf_counter()
        if self.paused:
            self.accumulator = 0.0
            while self.pending_steps > 0:
                self.pending_steps -= 1
                tick()
                ticks += 1
            return ticks
        self.pending_steps = 0
        self.accumulator += min(max(0.0, float(frame_dt)), MAX_FRAME_DT) * self.time_scale
        while self.accumulator >= TICK:
            if ticks >= MAX_TICKS_PER_FRAME or (ticks and time.perf_counter() - started > budget):
                self.accumulator = 0.0      # drop the rest: run slow rather than spiral
                break
            self.accumulator -= TICK
            tick()
            ticks += 1
        return ticks
