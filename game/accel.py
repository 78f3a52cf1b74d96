"""Compiled kernels for the contact work of the step (numba); the numpy code is the reference.

With the kernels loaded, ``game.collide`` finds ball pairs by walking the grid directly and
solves contacts Gauss-Seidel style in one call per sub-step (each contact sees its
neighbours' pushes at once, so a pile converges in fewer passes than the averaged Jacobi
passes of the numpy path). numba is imported only when ``load()`` runs; until then, or
where numba is missing or broken, ``KERNELS`` is None and the numpy path serves.

Launch stays quick: the game starts on the numpy path and calls ``load_in_background()``,
so numba's import and the kernels' compilation (cached on disk after the first run) happen
beside the first frames; the world switches at the next sub-step once ``KERNELS`` is set.
Headless runs and benchmarks call ``load()`` first, so a run stays on one path from start
to end and its hash repeats.
"""
import os
import threading

KERNELS = None          # the kernel module once loaded
_lock = threading.Lock()


def load():
    """Import numba and compile (or load from its cache) the kernels; returns them or None.

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
            KERNELS = _kernels
    return KERNELS


def load_in_background():
    """Start load() on a daemon thread; the caller goes on drawing meanwhile."""
    thread = threading.Thread(target=load, name="ballpit-kernels", daemon=True)
    thread.start()
    return thread


def use(kernels):
    """Set the kernels in use (None: the numpy path); returns the previous ones (for tests)."""
    global KERNELS
    with _lock:
        previous, KERNELS = KERNELS, kernels
    return previous
