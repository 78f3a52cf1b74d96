"""Compiled kernels for the hot loops of the step (numba); the numpy code is the reference.

With the kernels loaded, the world integrates gravity and drag with compiled twins of its
steppers, ``game.collide`` sweeps fast balls, finds contacts by walking the grid directly
and solves them colour by colour in one call per sub-step: the numpy path's algorithm,
looped instead of vectorised, to the same bits. numba is imported only when ``load()`` runs; until then, or
where numba is missing or broken, ``KERNELS`` is None and the numpy path serves.

Launch stays quick: the game starts on the numpy path and calls ``load_in_background()``.
On a cold cache (the first run after installing) compiling the kernels takes about 37 s of
CPU (60 % of it LLVM's), which on a thread would hold the interpreter's lock and slow the
frames meanwhile; so child processes compile them into numba's on-disk cache: two at once,
each one half of the kernels (``COMPILE_PARTS``, balanced by measured compile times; the
first also loads what the caller names: the game names its ball stamper,
``game.render_kernels``), so the compile takes as long as its larger half where two cores
are free. The game then loads the kernels from that cache
(about a second, with a short switch interval so that its frames keep their turns at the
interpreter's lock). The world switches at the next sub-step once ``KERNELS`` is set.
A third child then compiles the one-call tick (``game._step_kernels``, about 25 s of CPU
though every kernel it calls is cached by then: numba links each callee's optimised module
into the caller's and runs LLVM's optimisation and code generation over the whole again, at
each level of calls: _candidates, _substep, tick), and the world runs whole ticks in one
call once ``TICK`` is set.
Headless runs and benchmarks call ``load()`` first, so a run stays on one path from start
to end and its hash repeats.

The one-call tick releases the interpreter's lock while it runs (numba's ``nogil``), so
that the game can draw one frame on the main thread while the next ticks run on a worker
thread (game.app: ``App.start_update``), on the machine's second core.
"""
import gc
import importlib
import os
import subprocess
import sys
import threading
import time

KERNELS = None          # the kernel module once loaded
TICK = None             # game._step_kernels once loaded: a whole tick in one compiled call
_lock = threading.Lock()

# The halves of the compile work (_kernels.warm_up(part)), one child each, about as long as each
# other (the kernels of each: _kernels.WARM_UP_PARTS): "prepare" (the contacts' preparation,
# the ball pairs, the force steppers, the statics' geometry; its child loads ``also`` too) and
# "solve" (the solve, the sweep, the statics' candidates, the uniform steppers).
COMPILE_PARTS = ("prepare", "solve")
STAGES = ("_kernels", "_step_kernels")   # compiled in this order; each is usable once loaded
# s: the interpreter's switch interval while loading (default 0.005): the loading thread then
# holds the lock at most this long before the frame loop gets its turn.
LOAD_SWITCH_INTERVAL = 0.0005


def _loading(warm_up):
    """Run ``warm_up()`` with the short switch interval; its exception propagates."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(min(interval, LOAD_SWITCH_INTERVAL))
    try:
        warm_up()
    finally:
        sys.setswitchinterval(interval)


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
                _loading(_kernels.warm_up)
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
                _loading(_step_kernels.warm_up)
            except Exception:  # noqa: BLE001 - it cannot compile here: the kernels serve one by one
                return None
            gc.freeze()
            TICK = _step_kernels
    return TICK


def releases_lock():
    """Whether the loaded one-call tick (TICK) lets other threads run while it steps."""
    return TICK is not None and bool(getattr(getattr(TICK, "tick", None), "targetoptions", {}).get("nogil"))


_children = []          # the compiling child processes while they run
_child_lock = threading.Lock()


def compile_in_child(timeout=900, also=(), stage="_kernels"):
    """Fill numba's cache for one of STAGES from child processes (nothing to do where it is
    warm already); returns whether every child succeeded. Their output is dropped: a failure
    means the numpy path serves, and load() finds that out by itself.

    "_kernels": two children at once, one per part (COMPILE_PARTS), so the compile takes as
    long as its larger half where two cores are free; ``also`` names modules whose ``load()``
    the first child calls too (the game's other compiled code, e.g. "game.render_kernels",
    so that its first load comes from the cache). "_step_kernels": one child."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if stage == "_kernels":
        codes = [f"from game import accel; accel.child_main({part!r}, {tuple(also) if k == 0 else ()!r})"
                 for k, part in enumerate(COMPILE_PARTS)]
    else:
        codes = [f"from game import {stage}; {stage}.warm_up()"]
    try:
        with _child_lock:
            for code in codes:
                _children.append(subprocess.Popen([sys.executable, "-c", code], cwd=root,
                                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                                  stderr=subprocess.DEVNULL))
            children = list(_children)
        return all(child.wait(timeout=timeout) == 0 for child in children)
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        stop_background()


def child_main(part, also=()):
    """A compiling child's work: one part of the kernels into numba's cache, then ``load()``
    of each module named in ``also``. (At the normal priority: below it, on a machine other
    programs kept busy, the children took longer than one child had, and the frame rate
    meanwhile was no better; benchmarks/bench_coldstart.py.)"""
    from game import _kernels
    _kernels.warm_up(part)
    for name in also:
        importlib.import_module(name).load()


def stop_background():
    """End the compiling children that still run (the game is closing): numba writes each
    cache file whole, so the next launch compiles what is missing and no more."""
    with _child_lock:
        children = list(_children)
        _children.clear()
    for child in children:
        if child.poll() is None:
            child.kill()
            child.wait()


def load_in_background(also=()):
    """Compile in child processes (``compile_in_child``, ``also`` passed on), then load, on a
    daemon thread; the caller goes on drawing meanwhile (on the numpy path). The kernels
    first, then the one-call tick (as long again to compile): the world runs the kernels one
    by one in between."""
    def work():
        if not os.environ.get("BALLPIT_NUMPY"):
            compile_in_child(also=also)
        # Only from a warm cache: compiling the tick here would hold the interpreter's lock.
        if load(tick=False) is not None and compile_in_child(stage="_step_kernels"):
            load_tick()

    thread = threading.Thread(target=work, name="ballpit-kernels", daemon=True)
    thread.start()
    return thread


def compile_ahead(say=print):
    """``python main.py --compile``: fill numba's cache now, as the game's first launch would
    in the background (the two halves of the kernels at once, ``also`` the ball stamper, then
    the one-call tick), so that the launch after it loads everything in about a second and
    plays at full speed from its first seconds. ``say`` gets one line a stage. Returns
    whether the whole cache is filled; where it is not (no numba, it cannot compile here,
    BALLPIT_NUMPY set) the game still plays, on the numpy path or the kernels one by one,
    and the line says so."""
    if os.environ.get("BALLPIT_NUMPY"):
        say("BALLPIT_NUMPY is set: the game keeps the numpy path, nothing to compile")
        return False
    say("compiling the physics kernels into numba's cache, once after installing (25 to 45 s of CPU: about 20 s "
        "where both cores are free, minutes on a machine busy with other work; without it the first launch does "
        "it in the background, in slow motion meanwhile)")
    t0 = time.perf_counter()
    if not compile_in_child(also=("game.render_kernels",)):
        say("numba could not compile the kernels here: the game runs on its numpy path (slower, the same physics)")
        return False
    t1 = time.perf_counter()
    say(f"kernels compiled in {t1 - t0:.0f} s; now the one-call tick")
    if not compile_in_child(stage="_step_kernels"):
        say("numba could not compile the one-call tick here: the game runs the kernels one by one")
        return False
    say(f"one-call tick compiled in {time.perf_counter() - t1:.0f} s: the game starts at full speed")
    return True


def use(kernels):
    """Set the kernels in use (None: the numpy path); returns the previous ones (for tests)."""
    global KERNELS
    with _lock:
        previous, KERNELS = KERNELS, kernels
    return previous
