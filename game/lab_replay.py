"""The integrator lab without pygame (issue 38): its readings (each world's energy book, how far
apart the world and its ghost are), and a replay played into a world and its ghost side by side.

A replay's inputs are the player's calls on the world, each with the tick it came before
(game.replay). ``LabPlayer`` makes each one on the world just before that tick, and the same
call on the ghost at that same tick, before the ghost's step of it: the two worlds get the same
hands at the same moments, and what differs between them comes from the integrators alone. The
world runs the recorded integrator (and the recorded integrator switches), so it still reaches
the bits recorded; the ghost keeps the integrator it was given (the switches are the world's).

The same call, not the same arguments to the letter: an input names balls and bodies by their
place in the world and a grab by the handle the world gave, and once a kill zone, lava or the
level's edge took a ball in one world and not in the other, the ghost holds that ball at
another place, or not at all. So the ghost's call names the ghost's ball, body or spring with
the same id (``World.ids``, ``Bodies.ids``, ``Springs.ids``), and the ghost's own grab made by
the same input; an input whose ball, body, grab or earlier result the ghost does not have (or
that fails there) is left out for the ghost and written down (``LabPlayer.missed``). The
world's calls are never changed.

``play_in_lab(world, replay, integrator)`` is ``python main.py --replay FILE --lab INTEGRATOR
--headless``; in the window the lab's ghost (game.app.lab.Lab) gets its inputs from the same
LabPlayer (game.app.recording). No pygame here.
"""
import math

import numpy as np

from game.physics import journal as journal_module
from game.replay import Player

# Inputs that name balls, bodies or springs by their place in the world: the arguments that do.
BALL_ARGS = {"remove_balls": (0,), "take_ball": (0,), "add_spring": (0, 1), "grab": (0,), "balls.kick": (0,)}
BODY_ARGS = {"bodies.remove": (0,), "bodies.grab": (0,), "bodies.take": (0,)}
SPRING_ARGS = {"remove_spring": (0,), "set_anchor": (0,)}
# Inputs that name a grab by its handle (their first argument), by the input that made grabs.
GRAB_ARGS = {"move_grab": "grab", "release": "grab", "place_grabbed": "grab",
             "bodies.move_grab": "bodies.grab", "bodies.release": "bodies.grab", "bodies.carry": "bodies.grab"}
WORLD_ONLY = ("integrator",)   # the ghost keeps its own integrator
MISSED_LISTED = 20             # inputs the ghost missed, listed in a report (all are counted)


# ---- the lab's readings ----------------------------------------------------------------------
def ball_energies(world):
    """(N,) J: each ball's kinetic, rotational and gravitational energy (springs left out:
    their energy belongs to two balls or an anchor), on game.world.World.energy's terms."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
        mass = 1.0 / world.inv_mass
        kinetic = 0.5 * mass * np.einsum("ij,ij->i", world.vel, world.vel)
        rotational = 0.5 * world.spin * world.spin / world.inv_inertia
        return kinetic + rotational - mass * (world.pos @ world.forces.gravity)


def body_energies(world):
    """(B,) J: each body's kinetic, rotational and gravitational energy, 0.5 m v^2 +
    0.5 I w^2 - m g.p (Bodies.energy's terms, body by body)."""
    b = world.bodies
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        return (0.5 * b.mass * np.einsum("ij,ij->i", b.vel, b.vel) + 0.5 * b.inertia * b.spin * b.spin
                - b.mass * (b.pos @ np.asarray(world.forces.gravity, float)))


def body_gap(world, ghost):
    """Largest distance in metres between a point of a body of ``world`` and the same point
    of the body of ``ghost`` with the same id (0.0 where they share none; inf where one is
    not finite). A point's move from one pose to the other, d(x) = dp + (R1 - R2) x, is
    affine in x, so its largest over the rounded shape (the core grown by a disc of radius
    r) is at a corner of the core, plus r |R1 - R2| = 2 r |sin(dangle / 2)|."""
    a, b = world.bodies, ghost.bodies
    if not len(a) or not len(b):
        return 0.0
    _, i, j = np.intersect1d(a.ids, b.ids, assume_unique=True, return_indices=True)
    if len(i) == 0:
        return 0.0
    with np.errstate(over="ignore", invalid="ignore"):
        d = a.corners()[i] - b.corners()[j]                  # (padding rows: the centre of mass, inside)
        turn = 2.0 * a.radius[i] * np.abs(np.sin(0.5 * (a.angle[i] - b.angle[j])))
        gap = float(np.max(np.hypot(d[..., 0], d[..., 1]).max(axis=1) + turn))
    return gap if np.isfinite(gap) else float("inf")


def position_gap(world, ghost):
    """Largest distance in metres between a ball of ``world`` and the ball of ``ghost`` with
    the same id, max over those ids of |p_world - p_ghost| (0.0 where they share none; inf
    where one of them is not finite)."""
    if world.count == len(ghost.ids) and np.array_equal(world.ids, ghost.ids):
        a, b = world.pos, ghost.pos
    else:
        _, i, j = np.intersect1d(world.ids, ghost.ids, assume_unique=True, return_indices=True)
        a, b = world.pos[i], ghost.pos[j]
    if len(a) == 0:
        return 0.0
    with np.errstate(over="ignore", invalid="ignore"):
        gap = float(np.max(np.hypot(a[:, 0] - b[:, 0], a[:, 1] - b[:, 1])))
    return gap if np.isfinite(gap) else float("inf")


# What a ledger books: (the ids of one kind of thing in a world, their energies): balls, bodies.
_KINDS = ((lambda world: world.ids, ball_energies), (lambda world: world.bodies.ids, body_energies))


class Ledger:
    """One world's energy book: its total when the comparison began, and the energy of the
    balls and bodies that came (spawned, put back) or went (deleted, killed) since, each
    counted at its last reading."""

    def __init__(self, world):
        self.start = world.energy()["total"]
        self.moved_in = 0.0          # J what came brought, less what went took
        self.read = [(ids_of(world), energies_of(world)) for ids_of, energies_of in _KINDS]

    def account(self, world):
        """Book the balls and bodies that came or went since the last call (an ids array is a
        new one whenever they come or go), and read each one's energy for the next."""
        for k, ((ids_of, energies_of), (ids, energies)) in enumerate(zip(_KINDS, self.read)):
            now, new = ids_of(world), energies_of(world)
            if now is not ids:
                gone, came = ~np.isin(ids, now), ~np.isin(now, ids)
                with np.errstate(over="ignore", invalid="ignore"):
                    self.moved_in += float(new[came].sum()) - float(energies[gone].sum())
            self.read[k] = (now, new)

    def change(self, world):
        """J: the world's total now less its total at the start and what balls brought in."""
        return world.energy()["total"] - self.start - self.moved_in



# ---- a replay played into the world and its ghost ----------------------------------------------
class _Missing(Exception):
    """The ghost has no such ball, body, spring, grab or earlier result."""


class LabPlayer:
    """Plays a replay's inputs into a world (a game.replay.Player: the bits recorded) and the
    same inputs into a ghost of it at the same ticks. ``before_tick(world, ghost)`` before each
    of the world's steps (and the ghost's): the inputs due at ``world.ticks``, on both. ghost:
    None, or a ghost that is not at the world's tick (it blew up and stopped), gets nothing.
    A new ghost (the lab started again from the world as it is) is followed from the next
    input on, its grabs those of the world (a copy keeps their handles). ``skip`` and ``heard``
    as game.replay.Player's (the world's)."""

    def __init__(self, replay, skip=(), heard=None):
        self.player = Player(replay, skip, heard)
        self.ticks = self.player.ticks
        self.ghost = None
        self.results = {}            # input number -> what the ghost's call returned
        self.handles = {}            # (the input that grabs, the world's handle) -> the ghost's
        self.missed = []             # [input number, name, why]: the inputs the ghost did not get

    @property
    def finished(self):
        return self.player.finished

    def matches(self, world):
        return self.player.matches(world)

    def follow(self, ghost):
        """From now on the ghost is ``ghost`` (None: none)."""
        self.ghost, self.results = ghost, {}
        self.handles = {} if ghost is None else (
            {("grab", int(h)): int(h) for h in ghost.grabs}
            | {("bodies.grab", int(h)): int(h) for h in ghost.bodies.joint_handle if h})

    def before_tick(self, world, ghost=None):
        """Make the inputs due before ``world``'s next step on it and on ``ghost``; ReplayError if
        one cannot be made on the world (a file changed by hand). The ghost's failures are its own."""
        if ghost is not self.ghost:
            self.follow(ghost)
        while (due := self.player.due(world)) is not None:
            number, entry = due
            call = None
            if ghost is not None and ghost.ticks == world.ticks and entry[1] not in WORLD_ONLY:
                try:
                    call = self._for_ghost(number, entry, world, ghost)     # before the world's call moves anything
                except _Missing as e:
                    self.missed.append([number, entry[1], str(e)])
            result = self.player.make_next(world)
            if call is not None:
                self._make(number, entry, call, result, ghost)

    def _for_ghost(self, number, entry, world, ghost):
        """(args, kwargs) of ``entry``'s call on the ghost: what the world's names, by id."""
        _, name, args, kwargs = entry
        try:
            args = [journal_module.decode(a, self.results) for a in args]
            kwargs = {k: journal_module.decode(v, self.results) for k, v in kwargs.items()}
        except (KeyError, IndexError):
            raise _Missing("it uses what an input the ghost missed returned") from None
        for places, ids_of in ((BALL_ARGS, lambda w: w.ids), (BODY_ARGS, lambda w: w.bodies.ids),
                               (SPRING_ARGS, lambda w: w.springs.ids)):
            for k in places.get(name, ()):
                if k < len(args):
                    args[k] = _same_place(args[k], ids_of(world), ids_of(ghost))
        if name in GRAB_ARGS and args:
            world_handle = journal_module.decode(entry[2][0], self.player.results)
            key = (GRAB_ARGS[name], int(world_handle))
            if key not in self.handles:
                raise _Missing("the ghost holds no such grab")
            args[0] = self.handles[key]
        return args, kwargs

    def _make(self, number, entry, call, world_result, ghost):
        name = entry[1]
        args, kwargs = call
        try:
            with np.errstate(all="ignore"):
                result = journal_module.REGISTRY[name](ghost, *args, **kwargs)
        except Exception as e:       # the ghost's world differs: its call may not fit there
            self.missed.append([number, name, f"{type(e).__name__}: {str(e).splitlines()[0][:80] if str(e) else ''}"])
            return
        self.results[number] = result
        if name in ("grab", "bodies.grab") and world_result is not None:
            self.handles[(name, int(world_result))] = int(result)
        if name in ("release", "bodies.release"):
            self.handles.pop((GRAB_ARGS[name], int(journal_module.decode(entry[2][0], self.player.results))), None)


def _same_place(value, world_ids, ghost_ids):
    """A place (int), or places (list or int array), in the world -> the ghost's places of the
    same ids; anything else (an anchor point) as it is. _Missing where the ghost has none."""
    if isinstance(value, (bool, np.bool_)):
        return value
    if isinstance(value, (int, np.integer)):
        k = int(value)
        if not 0 <= k < len(world_ids):
            raise _Missing(f"the world has nothing at {k}")
        where = np.flatnonzero(np.asarray(ghost_ids) == world_ids[k])
        if len(where) == 0:
            raise _Missing(f"the ghost has no id {int(world_ids[k])}")
        return type(value)(where[0]) if isinstance(value, np.integer) else int(where[0])
    if isinstance(value, np.ndarray) and value.dtype.kind in "iu":
        return np.array([_same_place(int(v), world_ids, ghost_ids) for v in value.tolist()], value.dtype)
    if isinstance(value, list) and value and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return [_same_place(v, world_ids, ghost_ids) for v in value]
    return value


def play_in_lab(world, replay, integrator, world_integrator=None):
    """Step ``world`` (built from the replay's level, its ticks at 0) through the replay, and a
    ghost of it under ``integrator`` with the same inputs at the same ticks; returns the report.
    ``world_integrator``: the world under that one instead of the recorded (its switches then
    left out, and the hash not compared, as game.replay.play does). Stops at a tick after which
    the world has blown up; the ghost stops where it blows up and the world goes on."""
    skip = ()
    if world_integrator is not None:
        world.integrator = world_integrator
        skip = ("integrator",)
    ghost = world.copy()
    ghost.integrator = integrator
    ledgers = (Ledger(world), Ledger(ghost))
    player = LabPlayer(replay, skip)
    finite = [not world.blown_up(), not ghost.blown_up()]
    with np.errstate(all="ignore"):
        while world.ticks < player.ticks and finite[0]:
            player.before_tick(world, ghost if finite[1] else None)
            world.step()
            if finite[1]:
                ghost.step()
                finite[1] = not ghost.blown_up()
            finite[0] = not world.blown_up()
            ledgers[0].account(world)
            ledgers[1].account(ghost)
        if finite[0]:
            player.before_tick(world, ghost if finite[1] else None)   # what was done after the last tick
        ledgers[0].account(world)
        ledgers[1].account(ghost)
        gap = max(position_gap(world, ghost), body_gap(world, ghost))
        state = world.state_hash()
        report = {"ticks": world.ticks, "ticks_recorded": replay["ticks"], "time": world.time,
                  "inputs": len(player.player.inputs), "gap": _number(gap),
                  "same_bits": state == ghost.state_hash() and world.ticks == ghost.ticks,
                  "world": dict(_reading(world, ledgers[0], finite[0]), recorded_hash=replay["state_hash"],
                                match=None if skip else (state == replay["state_hash"] and world.ticks == replay["ticks"])),
                  "ghost": dict(_reading(ghost, ledgers[1], finite[1]), missed=len(player.missed),
                                missed_inputs=player.missed[:MISSED_LISTED])}
    return report


def _reading(world, ledger, finite):
    """One world at the end: its integrator, ticks, hash, energy (J) and its change since tick
    0 (balls and bodies come and gone left out), balls, bodies and their centre (m)."""
    centre = np.mean(world.pos, axis=0) if world.count else np.zeros(2)
    return {"integrator": world.integrator, "ticks": world.ticks, "state_hash": world.state_hash(),
            "finite": bool(finite), "energy": _number(world.energy()["total"]),
            "energy_change": _number(ledger.change(world)), "balls": int(world.count),
            "bodies": int(len(world.bodies)), "centre": [_number(v) for v in centre.tolist()]}


def _number(x):
    """A float for JSON: None where it is not finite."""
    x = float(x)
    return x if math.isfinite(x) else None
