"""The world's journal: every change the player makes to a running world, in order, with the
tick it came before, so a run can be played again to the bit (game.replay).

A change is a call of a function marked ``@journaled("name")``: a World method (add a ball,
grab one, draw a segment, press a flipper key, switch the integrator...) or a function of the
physics package taking the world first (a body spawned, grabbed, deleted). While a world has
a ``journal`` (a Journal; None, the default, records nothing and costs one attribute read),
each such call made from outside is written down as ``[tick, name, args, kwargs]``: ``tick``
is ``World.ticks`` when it was made (the steps taken before it), and the arguments are plain
JSON (numpy arrays as lists with their dtype, floats exact: Python writes a float's shortest
repr, which reads back to the same bits). Calls made from inside a journaled call are its own
work, never written twice.

What a call returned and a later call is given back (the record of a deleted ball, put back
by Ctrl+Z) is written as a reference to that call, ``{"$result": k}``, and ``replay`` hands
the later call what the k-th call returned this time. Plain numbers (a grab's handle) are
written as numbers: the same calls in the same order give the same handles.

The world's own clockwork (spawners, kill zones, moving walls) needs no journal: it runs in
``World.step`` and comes out the same from the same state.
"""
import contextlib
import functools

import numpy as np

REGISTRY = {}                 # name -> the journaled function (world first), for replay
LIMIT = 1_000_000             # entries: a journal this long stops (an hour of a held grab is 216,000)


class Journal:
    """The calls made to one world from outside, in order (``entries``)."""

    def __init__(self):
        self.entries = []     # [tick, name, args, kwargs], JSON-ready
        self.depth = 0        # > 0 inside a journaled call: what it calls is its own work
        self._results = {}    # id(result) -> the entry that returned it
        self._kept = []       # those results, held so no id is reused while the journal lives
        self.full = False     # LIMIT reached: what follows is not written (the run cannot be replayed)

    def write(self, world, name, args, kwargs):
        if len(self.entries) >= LIMIT:
            self.full = True
            return
        self.entries.append([int(world.ticks), name, [self.encode(a) for a in args],
                             {k: self.encode(v) for k, v in kwargs.items()}])

    def returned(self, result):
        if not isinstance(result, (type(None), bool, int, float, str, np.generic)):
            self._results[id(result)] = len(self.entries) - 1
            self._kept.append(result)

    def encode(self, value):
        """``value`` as plain JSON (see the module's note)."""
        k = self._results.get(id(value))
        if k is not None:
            return {"$result": k}
        if isinstance(value, np.ndarray):
            return {"$array": value.tolist(), "dtype": value.dtype.str}
        if isinstance(value, np.generic):
            return value.item()
        if isinstance(value, dict):
            return {str(key): self.encode(v) for key, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.encode(v) for v in value]
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        raise TypeError(f"the journal cannot write a {type(value).__name__}")


def unjournaled(world):
    """What the world does to itself in here (its step: spawners, kill zones) is not
    journaled: the replay's step does it again. (On every tick: without a journal, a shared
    context that does nothing, a fifth of a generator's cost.)"""
    return _NOTHING if world.journal is None else _Inside(world.journal)


class _Inside:
    """unjournaled's context for a world with a journal: its calls count as from inside."""
    __slots__ = ("journal",)

    def __init__(self, journal):
        self.journal = journal

    def __enter__(self):
        self.journal.depth += 1

    def __exit__(self, *exc):
        self.journal.depth -= 1
        return False


_NOTHING = contextlib.nullcontext()


def journaled(name):
    """Mark a function whose first argument is the world (a method's self) as a change the
    world's journal writes down under ``name``."""
    def mark(fn):
        @functools.wraps(fn)
        def call(world, *args, **kwargs):
            journal = getattr(world, "journal", None)
            if journal is None:
                return fn(world, *args, **kwargs)
            outer = journal.depth == 0
            if outer and not journal.full:
                journal.write(world, name, args, kwargs)
            journal.depth += 1
            try:
                result = fn(world, *args, **kwargs)
            finally:
                journal.depth -= 1
            if outer and not journal.full:
                journal.returned(result)
            return result
        if name in REGISTRY:
            raise ValueError(f"two journaled functions are called {name!r}")
        REGISTRY[name] = call
        return call
    return mark


def decode(value, results):
    """An encoded argument back as the call takes it; ``results``: what each entry returned
    in this replay, by entry number."""
    if isinstance(value, dict):
        if "$result" in value and len(value) == 1:
            return results[value["$result"]]
        if "$array" in value and set(value) == {"$array", "dtype"}:
            return np.array(value["$array"], dtype=np.dtype(value["dtype"]))
        return {key: decode(v, results) for key, v in value.items()}
    if isinstance(value, list):
        return [decode(v, results) for v in value]
    return value


def apply(world, entry, results):
    """Make the call of ``entry`` on ``world`` (as the player made it) and return its result."""
    _, name, args, kwargs = entry
    fn = REGISTRY[name]
    return fn(world, *[decode(a, results) for a in args], **{k: decode(v, results) for k, v in kwargs.items()})
