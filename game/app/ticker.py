"""One long-lived thread for the game's ticks (game.app.loop: App.start_update / finish_update).

The game's loop used to start a new ``threading.Thread`` every frame for that frame's ticks.
glibc gives each new thread an arena of its own for malloc, and numba's compiled tick takes
its arrays from malloc, so the tick's memory came from a fresh arena each frame and went back
to the kernel between frames: ~140 minor page faults a tick and ~10 % of a tick at 20,000
balls (docs/performance.md, issue 26's "unexplained gap"). A ``TickWorker`` is one thread that
runs job after job, so the ticks always run on the same thread and their arrays stay in one
arena from frame to frame.

``start(job, *args)`` hands the thread one callable; ``result()`` waits for it and returns what
it returned, or raises what it raised (on the caller's thread, with its traceback); the thread
lives on for the next job. ``close()`` ends the thread and joins it. One job at a time.
No pygame here.
"""
import threading

__all__ = ["TickWorker"]


class TickWorker:
    """A thread that runs one job at a time, handed over by start() and collected by result()."""

    def __init__(self, name="ballpit-ticks"):
        self.name = name
        self._cond = threading.Condition()
        self._job = None            # (callable, args) handed over, not yet taken by the thread
        self._outcome = None        # (value, error) of the job taken, once it is done
        self._pending = False       # a job started and its result not yet collected
        self._closing = False
        self._thread = None
        self.jobs_run = 0           # jobs the thread has finished (tests, benchmarks)

    @property
    def thread(self):
        """The thread the jobs run on (None until the first start(), and after close())."""
        return self._thread

    @property
    def busy(self):
        """Whether a job was started and its result not yet collected."""
        return self._pending

    def start(self, job, *args):
        """Run ``job(*args)`` on the worker thread; returns at once. The thread is started at
        the first job. RuntimeError if the last job's result was not collected, or after
        close()."""
        with self._cond:
            if self._closing:
                raise RuntimeError("TickWorker.start after close()")
            if self._pending:
                raise RuntimeError("TickWorker.start before the last job's result() was collected")
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name=self.name, daemon=True)
                self._thread.start()
            self._job = (job, args)
            self._outcome = None
            self._pending = True
            self._cond.notify_all()

    def result(self):
        """Wait for the job start() handed over; return its value or raise its error."""
        with self._cond:
            if not self._pending:
                raise RuntimeError("TickWorker.result without a job started")
            while self._outcome is None:
                self._cond.wait()
            (value, error), self._outcome = self._outcome, None
            self._pending = False
        if error is not None:
            try:
                raise error
            finally:
                error = None        # no cycle through the traceback's frames
        return value

    def close(self, timeout=None):
        """End the thread once its job (if any) is done, and join it; returns whether it has
        ended. A result not yet collected is dropped. Closing twice is harmless."""
        with self._cond:
            self._closing = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
        ended = thread is None or not thread.is_alive()
        if ended:
            self._thread = None
        return ended

    def _serve(self):
        while True:
            with self._cond:
                while self._job is None and not self._closing:
                    self._cond.wait()
                if self._job is None:         # closing, nothing left to run
                    return
                (job, args), self._job = self._job, None
            try:
                outcome = (job(*args), None)
            except BaseException as error:    # noqa: BLE001 - handed to the caller of result()
                outcome = (None, error)
            job = args = None
            with self._cond:
                self._outcome = outcome
                self.jobs_run += 1
                self._cond.notify_all()
            outcome = None
