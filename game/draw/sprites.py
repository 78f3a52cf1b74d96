"""The compiled ball stamper (numba): the balls' sprites written into a surface's pixels.

``Surface.fblits`` of colour-keyed sprites is the reference; this writes the same pixels
(a test holds the two to the same bits): every sprite is reduced once to its opaque
pixels (offset x, offset y, mapped 32-bit value) and one compiled loop over the balls, in
their order, sets those pixels where they fall on the surface. Per ball that is a few
dozen stores instead of a Python tuple, a blit set-up and an RLE walk: at 10,000 balls
of 3 px it cost about a third of fblits on the machines measured (benchmarks/bench_frame.py).

numba is imported only when ``load()`` runs; until then (or where numba is missing or
cannot compile) ``stamp`` is None and the renderer blits. The first compile takes about a
second and lands in numba's on-disk cache, so later launches load it in tens of ms;
``load_in_background()`` keeps even the first out of the first frame.
"""
import os
import threading

import numpy as np

stamp = None            # the compiled stamper once loaded: stamp(pixels, x0, y0, slot, start, dx, dy, value, size)
_lock = threading.Lock()
_thread = None


def load():
    """Compile (or load from numba's cache) the stamper; returns it, or None where numba
    cannot serve (then the renderer blits). ``BALLPIT_BLIT=1`` keeps the blits."""
    global stamp
    if os.environ.get("BALLPIT_BLIT"):
        return None
    with _lock:
        if stamp is None:
            try:
                import pygame
                from game.draw.compiled.sprites import stamp_sprites as kernel
                # Compile for the very array type the renderer passes: a pixels2d view.
                probe = pygame.Surface((2, 2), 0, 32)
                pixels = pygame.surfarray.pixels2d(probe)
                one = np.zeros(1, np.int64)
                kernel(pixels, one, one, one, np.array([0, 1], np.int64), one, one, np.ones(1, np.uint32), one + 1)
                del pixels
            except Exception:  # noqa: BLE001 - no numba, or it cannot compile here: blits serve
                return None
            stamp = kernel
    return stamp


def load_in_background():
    """Start load() on a thread (once); the renderer switches when ``stamp`` is set."""
    global _thread
    if _thread is None and stamp is None:
        _thread = threading.Thread(target=load, name="ballpit-stamp", daemon=True)
        _thread.start()
    return _thread
