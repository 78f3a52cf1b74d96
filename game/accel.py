"""Compiled kernels for the hot loops of the step (numba); the numpy code is the reference.

With the kernels loaded, the world integrates gravity and drag with compiled twins of its
steppers, ``game.collide`` sweeps fast balls, finds contacts by walking the grid directly
and solves them Gauss-Seidel style in one call per sub-step (each contact sees its
neighbours' pushes at once, so a pile converges in fewer passes than the averaged Jacobi
passes of the numpy path). numba is imported only when ``load()`` runs; until then, or
where numba is missing or broken, ``KERNELS`` is None and the numpy path serves.

Launch stays quick: the game starts on the numpy path and calls ``load_in_background()``.
On a cold cache (the first run after installing) compiling the kernels takes about ten
seconds of Python work, which on a thread would hold the interpreter's lock and slow the
frames meanwhile; so a child process compiles them into numba's on-disk cache, on the other
core, and the game then loads them from that cache (about a second). The world switches at
the next sub-step once ``KERNELS`` is set. A second child then compiles the one-call tick
(``game._step_kernels``, about as long again: it links every kernel into itself), and the
world runs whole ticks in one call once ``TICK`` is set.
Headless runs and benchmarks call ``load()`` first, so a run stays on one path from start
to end and its hash repeats.
"""
import gc
import os
import subprocess
import sys
import threading

KERNELS = None          # the kernel module once loaded
TICK = None             # game._step_kernels once loaded: a whole tick in one compiled call
_lock = threading.Lock()
STAGES = ("_kernels", "_step_kernels")   # compiled in this order; each is usable once loaded


def load(tick=True):
    """Import numba and compile (or load from its cache) the kernels, then (``tick``) the
    one-call tick; returns the kernels or None.

    ``BALLPIT_NUMPY=1`` in the environment keeps the numpy path (to compare the two).
    """
    global KERNELS
    if os.environ.get("BALLPIT_NUMPY"):
        return None
    with _lock:
        if KERNELS is None:
            try:
                from game import _kernels
                _kernels.warm_up()
            except Exception:  # noqa: BLE001 - no numba, or it cannot compile here: numpy serves
                return None
            # numba brings ~100,000 long-lived objects, and a full collection then walks them
            # all (~80 ms): drawing 10,000 balls makes enough small tuples to set one off every
            # few frames. Frozen, they are left out of every later collection.
            gc.freeze()
            KERNELS = _kernels
    if tick:
        load_tick()
    return KERNELS


def load_tick():
    """Compile (or load from the cache) the one-call tick once the kernels are loaded; returns
    it or None (the world then runs the compiled kernels sub-step by sub-step)."""
    global TICK
    with _lock:
        if TICK is None and KERNELS is not None:
            try:
                from game import _step_kernels
                _step_kernels.warm_up()
            except Exception:  # noqa: BLE001 - it cannot compile here: the kernels serve one by one
                return None
            gc.freeze()
            TICK = _step_kernels
    return TICK


_child = None           # the compiling child process while it runs
_child_lock = threading.Lock()


def compile_in_child(timeout=300, stage="_kernels"):
    """Fill numba's cache for one of STAGES from a child process (nothing to do where it is
    warm already); returns whether the child succeeded. Its output is dropped: a failure means
    the numpy path serves, and load() finds that out by itself."""
    global _child
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = f"from game import {stage}; {stage}.warm_up()"
    try:
        with _child_lock:
            _child = subprocess.Popen([sys.executable, "-c", code],
                                      cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL)
        return _child.wait(timeout=timeout) == 0
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        stop_background()


def stop_background():
    """End the compiling child if it still runs (the game is closing): numba writes each
    cache file whole, so the next launch compiles what is missing and no more."""
    global _child
    with _child_lock:
        child, _child = _child, None
    if child is not None and child.poll() is None:
        child.kill()
        child.wait()


def load_in_background():
    """Compile in a child process, then load, on a daemon thread; the caller goes on drawing
    meanwhile (on the numpy path). The kernels first, then the one-call tick (as long again
    to compile): the world runs the kernels one by one in between."""
    def work():
        if not os.environ.get("BALLPIT_NUMPY"):
            compile_in_child()
        # Only from a warm cache: compiling the tick here would hold the interpreter's lock.
        if load(tick=False) is not None and compile_in_child(stage="_step_kernels"):
            load_tick()

    thread = threading.Thread(target=work, name="ballpit-kernels", daemon=True)
    thread.start()
    return thread


def use(kernels):
    """Set the kernels in use (None: the numpy path); returns the previous ones (for tests)."""
    global KERNELS
    with _lock:
        previous, KERNELS = KERNELS, kernels
    return previous
