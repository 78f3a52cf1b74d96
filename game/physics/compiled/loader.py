"""The compiled execution's loader: numba compiles the twins of the step's parts (this
folder: the same file name as the numpy reference beside it) and this hands them over.

Nothing here decides which code a world runs: ``load()`` returns a ``Compiled`` (the
kernels and, once it has loaded, the one-call tick) and whoever loaded it hands it to its
worlds (``World(execution="compiled", compiled=...)``, ``world.use_compiled(...)``). numba is
imported only when a load runs; where it is missing or cannot compile, ``load()`` returns
None and the worlds run the numpy execution, with the same bits.

Launch stays quick: the game starts its worlds on numpy and calls ``load_in_background()``.
On a cold cache compiling the kernels would, on a thread, hold the interpreter's lock and
slow the frames; so child processes compile them into numba's on-disk cache: two at once,
each one half of the kernels (``COMPILE_PARTS``; the first also loads what the caller names:
the game names its ball stamper, ``game.draw.sprites``), so the compile takes as long as its
larger half where two cores are free. The game then loads the kernels from that cache (with
a short switch interval so that its frames keep their turns at the interpreter's lock) and
hands them to its world at the next frame. A third child then compiles the one-call tick
(``game.physics.compiled.step``: numba links each callee's optimised module into the
caller's and optimises the whole again, so it costs about as much as the kernels), and the
world runs whole ticks in one call once it has that; a fourth beside it the bodies' kernels,
which the tick does not call (on an empty cache: 41 + 61 s where the bodies' 18 s had made
the first stage's longer half 59 s). Headless runs and benchmarks load
before their first step, so a run stays on one execution from start to end and its hash
repeats. The figures are in docs/performance.md.

The one-call tick releases the interpreter's lock while it runs (numba's ``nogil``), so
that the game can draw one frame on the main thread while the next ticks run on a worker
thread (game.app.loop: ``App.start_update``), on the machine's second core.
"""
import gc
import importlib
import os
import subprocess
import sys
import threading
import time
import typing

from game import paths

_lock = threading.Lock()
_loaded = {}            # stage -> what it loaded (a cache of this loader's; no world reads it)

# The halves of the compile work (the kernels' warm_up(part)), one child each, about as long as each
# other (the kernels of each: game.physics.compiled.warm.WARM_UP_PARTS): "prepare" (the contacts' preparation,
# the ball pairs, the force steppers, the statics' geometry; its child loads ``also`` too) and
# "solve" (the solve, the sweep, the statics' candidates, the uniform steppers).
COMPILE_PARTS = ("prepare", "solve")
STAGES = ("_kernels", "_step_kernels")   # compiled in this order; each is usable once loaded
# s: the interpreter's switch interval while loading (default 0.005): the loading thread then
# holds the lock at most this long before the frame loop gets its turn.
LOAD_SWITCH_INTERVAL = 0.0005


class Compiled(typing.NamedTuple):
    """What a load hands to a World (``World(execution="compiled", compiled=...)`` or
    ``world.use_compiled(...)``): ``kernels``, the compiled twins of the step's parts, and
    ``tick``, the one-call tick (None until it has loaded: the world then runs the kernels
    sub-step by sub-step)."""
    kernels: object
    tick: object = None
    joints: object = None    # game.physics.compiled.joints (None: the world solves its joints on numpy)
    bodies: object = None    # game.physics.compiled.bodies (None: the bodies' kernels run as Python)

    @property
    def releases_lock(self):
        """Whether the one-call tick lets other threads run while it steps (numba's nogil)."""
        return self.tick is not None and bool(getattr(getattr(self.tick, "tick", None), "targetoptions", {})
                                              .get("nogil"))


def _loading(warm_up):
    """Run ``warm_up()`` with the short switch interval; its exception propagates."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(min(interval, LOAD_SWITCH_INTERVAL))
    try:
        warm_up()
    finally:
        sys.setswitchinterval(interval)


def _load_stage(stage):
    """The module of ``stage`` compiled (or loaded from numba's cache), or None where numba
    is missing or cannot compile here."""
    with _lock:
        if stage not in _loaded:
            try:
                if stage == "_kernels":
                    from game.physics.compiled import warm
                    loaded = warm.kernels()
                elif stage == "_joint_kernels":
                    from game.physics.compiled import joints as loaded
                elif stage == "_body_kernels":
                    from game.physics.compiled import bodies as loaded
                else:
                    from game.physics.compiled import step as loaded
                _loading(loaded.warm_up)
            except Exception:  # noqa: BLE001 - no numba, or it cannot compile here: numpy serves
                return None
            # numba brings some 100,000 long-lived objects, and a full collection then walks
            # them all (a frame's time: docs/performance.md, issue 23): drawing 10,000 balls
            # makes enough small tuples to set one off every few frames. Frozen, they are left
            # out of every later collection.
            gc.freeze()
            _loaded[stage] = loaded
        return _loaded[stage]


def load(tick=True, bodies=None):
    """Import numba and compile (or load from its cache) the kernels and the joints' kernel,
    then (``tick``) the one-call tick and (``bodies``, by default as ``tick``) the bodies'
    kernels; returns them as a Compiled to hand to worlds, or None (no numba, or it cannot
    compile here: numpy serves). Blocks while it compiles.

    ``BALLPIT_NUMPY=1`` in the environment keeps the numpy execution (to compare the two).
    """
    if os.environ.get("BALLPIT_NUMPY"):
        return None
    kernels = _load_stage("_kernels")
    if kernels is None:
        return None
    bodies = tick if bodies is None else bodies
    return Compiled(kernels, _load_stage("_step_kernels") if tick else None, _load_stage("_joint_kernels"),
                    _load_stage("_body_kernels") if bodies else None)


_children = []          # the compiling child processes while they run
_child_lock = threading.Lock()


def compile_in_child(timeout=900, also=(), stage="_kernels"):
    """Fill numba's cache for one of STAGES from child processes (nothing to do where it is
    warm already); returns whether every child succeeded. Their output is dropped: a failure
    means the numpy path serves, and load() finds that out by itself.

    "_kernels": two children at once, one per part (COMPILE_PARTS), so the compile takes as
    long as its larger half where two cores are free; ``also`` names modules whose ``load()``
    the first child calls too (the game's other compiled code, e.g. "game.draw.sprites",
    so that its first load comes from the cache). "_step_kernels": the one-call tick in one
    child and the bodies' kernels (no part of the tick) in another beside it."""
    return _succeeded(_start(stage, also), timeout)


def _start(stage, also=()):
    """The compiling children of ``stage`` (see compile_in_child), started; [] where they
    cannot start."""
    if stage == "_kernels":
        codes = [f"from game.physics.compiled import loader; loader.child_main({part!r}, {tuple(also) if k == 0 else ()!r})"
                 for k, part in enumerate(COMPILE_PARTS)]
    else:
        codes = ["from game.physics.compiled import step; step.warm_up()",
                 "from game.physics.compiled import bodies; bodies.warm_up()"]
    started = []
    try:
        with _child_lock:
            for code in codes:
                started.append(subprocess.Popen([sys.executable, "-c", code], cwd=paths.ROOT,
                                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                                stderr=subprocess.DEVNULL))
                _children.append(started[-1])
    except (OSError, subprocess.SubprocessError):
        _succeeded(started, 0)          # ends the ones that did start
        return []
    return started


def _succeeded(children, timeout):
    """Whether every one of ``children`` ends well within ``timeout`` s (none: False); those
    still running after it are ended."""
    try:
        return bool(children) and all(child.wait(timeout=timeout) == 0 for child in children)
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()
        with _child_lock:
            _children[:] = [c for c in _children if c not in children]


def child_main(part, also=()):
    """A compiling child's work: one part of the kernels into numba's cache, then ``load()``
    of each module named in ``also``. (At the normal priority: below it, on a machine other
    programs kept busy, the children took longer than one child had, and the frame rate
    meanwhile was no better; benchmarks/bench_coldstart.py.) The bodies' kernels, which the
    one-call tick does not call, compile beside the tick (``compile_in_child``'s second
    stage): both stages then take about as long on two cores."""
    from game.physics.compiled import warm
    warm.kernels().warm_up(part)
    if part == COMPILE_PARTS[1]:       # the joints' kernel (the tick calls it) in the second child
        from game.physics.compiled import joints
        joints.warm_up()
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


def load_in_background(arrived, also=()):
    """Compile in child processes (``compile_in_child``, ``also`` passed on), then load, on a
    daemon thread; the caller goes on drawing meanwhile (on the numpy execution). The kernels
    first, then the one-call tick (as long again to compile) with the bodies' kernels beside
    it: ``arrived(compiled)`` is called on that thread with each Compiled as it loads (the
    kernels and the joints' alone, then with the bodies', then with the tick), for the caller
    to hand to its worlds on its own thread."""
    def work():
        if not os.environ.get("BALLPIT_NUMPY"):
            compile_in_child(also=also)
        # Only from a warm cache: compiling the tick here would hold the interpreter's lock.
        compiled = load(tick=False)
        if compiled is None:
            return
        arrived(compiled)
        tick_child, bodies_child = _start("_step_kernels") or (None, None)
        if bodies_child is not None and _succeeded([bodies_child], 900):   # the shorter: bodies first
            with_bodies = load(tick=False, bodies=True)
            if with_bodies is not None and with_bodies.bodies is not None:
                arrived(with_bodies)
        if tick_child is not None and _succeeded([tick_child], 900):
            with_tick = load()
            if with_tick is not None and with_tick.tick is not None:
                arrived(with_tick)

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
    say("compiling the physics kernels into numba's cache, once after installing (about 130 s of CPU: about 80 s "
        "where both cores are free, minutes on a machine busy with other work; without it the first launch does "
        "it in the background, in slow motion meanwhile)")
    t0 = time.perf_counter()
    if not compile_in_child(also=("game.draw.sprites",)):
        say("numba could not compile the kernels here: the game runs on its numpy path (slower, the same physics)")
        return False
    t1 = time.perf_counter()
    say(f"kernels compiled in {t1 - t0:.0f} s; now the one-call tick and the bodies' kernels")
    if not compile_in_child(stage="_step_kernels"):
        say("numba could not compile the one-call tick or the bodies' kernels here: the game runs the kernels one "
            "by one")
        return False
    say(f"one-call tick compiled in {time.perf_counter() - t1:.0f} s: the game starts at full speed")
    return True
