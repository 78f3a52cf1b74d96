"""Replays: a run kept as its level and the player's inputs tick by tick, played back to the
same bits (issue 38). No pygame here: the game records and plays them in its window, and
``python main.py --replay FILE [--headless]`` plays one back.

A replay file is one JSON object::

    {"format": "ballpit-replay", "version": 1,
     "level": {... the level as it was loaded ...}, "level_file": "levels/10_first_ramp.json",
     "ticks": 734, "time": 12.23, "integrator": "rk4", "state_hash": "9f3c...",
     "inputs": [[0, "add_segments", [[{"a": [...], "b": [...], ...}]], {}],
                [212, "grab", [17, [8.25, 3.5]], {}], ...]}

``inputs`` is the world's journal (game.physics.journal): each change the player made, the
tick it came before (``World.ticks``), the call and its arguments. Playing back builds the
world from ``level``, makes each input's call just before its tick and steps ``ticks`` fixed
ticks; the state hash then must be ``state_hash``, on either execution (numpy and compiled
hold the same bits). Played under another integrator (``--integrator``, the integrator lab's
question "what would RK4 have made of the same hands?") the integrator switches recorded are
left out and the hash is not compared.
"""
import json
import os
import re

from game.level import LevelError, complete
from game.level.normalise import strip
from game.level.read import MAX_FILE_BYTES, read_file
from game.level.save import write_text
from game.physics import body_hand as _body_hand, player_joints as _player_joints, world as _world  # noqa: F401  (they register the journaled calls)
from game.physics import journal as journal_module
from game.physics.journal import Journal

FORMAT = "ballpit-replay"
VERSION = 1
HASH = re.compile(r"[0-9a-f]{64}\Z")


class ReplayError(Exception):
    """A replay file that cannot be played: one line for the player."""


def start(world):
    """Write down from now on what the player does to ``world`` (a new Journal)."""
    world.journal = Journal()
    return world.journal


def document(world, level, level_file=""):
    """The replay of ``world``'s run so far: ``level`` the definition it was built from (a
    normalised level), its journal's inputs, the ticks, the time and the state hash now."""
    if world.journal is None:
        raise ReplayError("this run is not being recorded")
    if world.journal.full:
        raise ReplayError(f"this run has more than {journal_module.LIMIT:,} inputs: too long to keep (R starts a new one)")
    return {"format": FORMAT, "version": VERSION, "level": strip(level), "level_file": str(level_file),
            "ticks": int(world.ticks), "time": float(world.time), "integrator": world.integrator,
            "state_hash": world.state_hash(), "inputs": world.journal.entries}


def save(world, level, path, level_file=""):
    """Write the replay of ``world``'s run to ``path`` (atomically); ReplayError if it cannot."""
    text = json.dumps(document(world, level, level_file), separators=(",", ":"), allow_nan=False)
    try:
        write_text(path, text + "\n")
    except LevelError as e:
        raise ReplayError(str(e)) from None
    return path


def load(path):
    """The replay in ``path``, checked (its level completed as the game loads one);
    ReplayError with one line naming what is wrong."""
    name = os.fsdecode(path)
    try:                                # (the level reader's: bounded, never blocked on a pipe)
        data = json.loads(read_file(name, 8 * MAX_FILE_BYTES, "replay file").decode("utf-8"),
                          parse_constant=_no_constant)
    except LevelError as e:
        raise ReplayError(str(e)) from None
    except (UnicodeDecodeError, ValueError) as e:
        raise ReplayError(f"{name}: not a replay (expected JSON): {str(e).splitlines()[0][:120]}") from None
    except RecursionError:
        raise ReplayError(f"{name}: not a replay: nested too deeply") from None
    return checked(data, name)


def _no_constant(word):
    raise ValueError(f"{word} is not a number JSON allows")


def checked(data, name="<replay>"):
    """``data`` (a parsed replay) with its level completed, or ReplayError naming the first
    thing wrong."""
    def bad(what):
        raise ReplayError(f"{name}: {what}")
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        bad(f'expected a replay (an object with "format": "{FORMAT}")')
    if data.get("version") != VERSION:
        bad(f"expected replay version {VERSION}, got {json.dumps(data.get('version'))[:40]}")
    ticks = data.get("ticks")
    if not isinstance(ticks, int) or isinstance(ticks, bool) or not 0 <= ticks <= 10_000_000:
        bad(f'"ticks": expected a whole number from 0 to 10000000, got {json.dumps(ticks)[:40]}')
    if not isinstance(data.get("state_hash"), str) or not HASH.match(data["state_hash"]):
        bad('"state_hash": expected 64 hex digits')
    inputs = data.get("inputs")
    if not isinstance(inputs, list):
        bad('"inputs": expected a list')
    last = 0
    for k, entry in enumerate(inputs):
        where = f'"inputs"[{k}]'
        if not (isinstance(entry, list) and len(entry) == 4 and isinstance(entry[0], int)
                and not isinstance(entry[0], bool) and isinstance(entry[1], str)
                and isinstance(entry[2], list) and isinstance(entry[3], dict)):
            bad(f"{where}: expected [tick, name, [arguments], {{keywords}}]")
        if not last <= entry[0] <= ticks:
            bad(f"{where}: expected a tick from {last} to {ticks} (in order), got {entry[0]}")
        if entry[1] not in journal_module.REGISTRY:
            bad(f"{where}: unknown input {entry[1][:40]!r}")
        last = entry[0]
    if not isinstance(data.get("level"), dict):
        bad('"level": expected the level (an object)')
    try:
        data = dict(data, level=complete(data["level"], name=f"{name} (its level)"))
    except LevelError as e:
        raise ReplayError(str(e)) from None
    return data


class Player:
    """Plays a replay's inputs into a world, tick by tick: ``before_tick(world)`` before each
    of the world's steps makes the calls due at ``world.ticks``. ``skip``: names of inputs
    left out (the integrator switches, when played under another integrator); ``heard(entry)``
    after each input made."""

    def __init__(self, replay, skip=(), heard=None):
        self.replay = replay
        self.heard = heard              # heard(entry) after each input is made (the game's HUD follows)
        self.inputs = [(k, e) for k, e in enumerate(replay["inputs"]) if e[1] not in skip]
        self.ticks = replay["ticks"]
        self.next = 0
        self.results = {}               # input number -> what its call returned this time

    @property
    def finished(self):
        return self.next >= len(self.inputs)

    def before_tick(self, world):
        """Make the inputs due before ``world``'s next step; ReplayError if one fails (a file
        changed by hand)."""
        while self.due(world):
            self.make_next(world)

    def due(self, world):
        """(number, entry) of the next input when it is due before ``world``'s next step, else None."""
        if self.next < len(self.inputs) and self.inputs[self.next][1][0] <= world.ticks:
            return self.inputs[self.next]
        return None

    def make_next(self, world):
        """Make the next input on ``world``; returns what its call returned. ReplayError if it
        cannot be made (a file changed by hand)."""
        number, entry = self.inputs[self.next]
        try:
            self.results[number] = journal_module.apply(world, entry, self.results)
        except Exception as e:      # a replay changed by hand: its input cannot be made
            detail = str(e).splitlines()[0][:100] if str(e).strip() else "(no message)"
            raise ReplayError(f"input {number} ({entry[1]} at tick {entry[0]}) cannot be made: "
                              f"{type(e).__name__}: {detail}") from None
        self.next += 1
        if self.heard is not None:
            self.heard(entry)
        return self.results[number]

    def matches(self, world):
        """Whether ``world``, at the replay's last tick, holds the bits recorded."""
        return world.ticks == self.ticks and world.state_hash() == self.replay["state_hash"]


def play(world, replay, integrator=None, on_tick=None):
    """Step ``world`` (built from the replay's level, its ticks at 0) through the replay;
    returns the report: ticks, time, state_hash, the one recorded and whether they match
    (None when played under an ``integrator`` given: the switches recorded are left out).
    ``on_tick(world)`` after each step. Stops early at a tick after which the world has
    blown up (``finite`` false), as the headless runner does."""
    skip = ()
    if integrator is not None:
        world.integrator = integrator
        skip = ("integrator",)
    player = Player(replay, skip)
    finite = not world.blown_up()
    while world.ticks < player.ticks and finite:
        player.before_tick(world)
        world.step()
        finite = not world.blown_up()
        if on_tick is not None:
            on_tick(world)
    if finite:
        player.before_tick(world)       # what the player did after the last tick (nothing moved since)
    state = world.state_hash()
    return {"ticks": world.ticks, "ticks_recorded": replay["ticks"], "time": world.time,
            "integrator": world.integrator, "state_hash": state, "recorded_hash": replay["state_hash"],
            "match": None if skip else (state == replay["state_hash"] and world.ticks == replay["ticks"]),
            "finite": finite}
