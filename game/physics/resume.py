"""What a snapshot needs beyond the level to go on to the bit: the solver's memory.

A level file says where everything is and how it moves. A running world also remembers what
the next tick starts from: the contacts' and joints' impulses of the last sub-step (the warm
start), which balls and bodies sleep and how long each has rested, the balls' and bodies'
stable ids (the warm start finds a contact by them), the tick count, and each spawner's clock
and random stream. ``state`` writes that as plain JSON (the snapshot's ``_resume`` key,
World.to_level); ``apply`` reads it back into a world built from the same level
(World.from_level), so a snapshot taken with the defaults (warm start and sleeping on) steps
on with the same bits as the world it was taken from.

The loader checks its shape (game.level.snapshot: a value of the wrong shape is one line with
its path). A ``_resume`` whose counts no longer match the level (the level edited since) is left
out, as a snapshot's ``_flippers`` are: the world starts its memory afresh, as a level does.
"""
import numpy as np

from game.physics import body_kernels as K
from game.physics.sleep import sleep_causes

JOINT_IMPULSES = ("imp_x", "imp_y", "imp_m")
BODY_JOINT_COLUMNS = (K.IMPX, K.IMPY, K.IMPN, K.IMPM)


def state(world):
    """The world's memory as a plain dict of lists (exact: floats by their shortest repr)."""
    s = world._sleep
    warm = world.solver._warm
    b = world.bodies
    out = {
        "ticks": int(world.ticks),
        "ids": world.ids.tolist(), "next_id": int(world._next_id),
        "warm_key": warm.key.tolist(), "warm_pn": warm.pn.tolist(), "warm_pt": warm.pt.tolist(),
        "warm_pr": warm.pr.tolist(),
        "asleep": s.asleep.tolist(), "rest_timer": s.timer.tolist(), "island": s.island.tolist(),
        "rest_at": s.rest.reshape(-1).tolist(), "settled_ticks": int(s.ticks),
        "joint_impulses": np.stack([getattr(world.joints, n) for n in JOINT_IMPULSES], axis=1).reshape(-1).tolist(),
        "body_ids": b.ids.tolist(), "body_next_id": int(b._next_id),
        "body_asleep": b.asleep.tolist(), "body_rest_timer": b.rest_time.tolist(),
        "body_warm_key": b._warm_keys.tolist(), "body_warm_pn": b._warm_pn.tolist(),
        "body_warm_pt": b._warm_pt.tolist(), "body_warm_pr": b._warm_pr.tolist(),
        "body_joint_impulses": b.joint_rows[:, list(BODY_JOINT_COLUMNS)].reshape(-1).tolist(),
        "spawners": [{"clock": float(sp.clock), "made": int(sp.made), "spot": None if sp.spot is None else
                      [float(v) for v in sp.spot], "random": _random_state(sp.rng)} for sp in world.spawners
                     if sp.max - sp.made > 0],
    }
    return out


def _random_state(rng):
    st = rng.bit_generator.state
    return [str(st["state"]["state"]), str(st["state"]["inc"]), int(st["has_uint32"]), int(st["uinteger"])]


def fits(resume, world):
    """Whether ``resume`` (a checked ``_resume``) was written for this world's counts."""
    n, nb = world.count, len(world.bodies)
    nw = len(resume["warm_key"])
    nbw = len(resume["body_warm_key"])
    return (len(resume["ids"]) == n and len(resume["asleep"]) == n and len(resume["rest_timer"]) == n
            and len(resume["island"]) == n and len(resume["rest_at"]) == 2 * n
            and len(resume["warm_pn"]) == nw and len(resume["warm_pt"]) == nw and len(resume["warm_pr"]) == nw
            and len(resume["joint_impulses"]) == len(JOINT_IMPULSES) * len(world.joints)
            and len(resume["body_ids"]) == nb and len(resume["body_asleep"]) == nb
            and len(resume["body_rest_timer"]) == nb
            and len(resume["body_warm_pn"]) == nbw and len(resume["body_warm_pt"]) == nbw
            and len(resume["body_warm_pr"]) == nbw
            and len(resume["body_joint_impulses"]) == len(BODY_JOINT_COLUMNS) * len(world.bodies.joint_rows)
            and len(resume["spawners"]) == len(world.spawners)
            and _increasing(resume["ids"]) and _increasing(resume["body_ids"]))


def _increasing(ids):
    return all(a < b for a, b in zip(ids, ids[1:]))


def apply(world, resume):
    """Give a world just built from a snapshot its memory back (``fits`` first: else, or with
    no ``resume``, nothing)."""
    if resume is None or not fits(resume, world):
        return False
    from game.physics.bundles import Impulses
    world.ticks = int(resume["ticks"])
    world.ids = np.array(resume["ids"], np.int64).reshape(-1)
    world._next_id = max(int(resume["next_id"]), int(world.ids[-1]) + 1 if len(world.ids) else 0)
    world.solver._warm = Impulses(np.array(resume["warm_key"], np.int64).reshape(-1),
                                  *(np.array(resume[k], float).reshape(-1) for k in ("warm_pn", "warm_pt", "warm_pr")))
    s = world._sleep
    s.asleep = np.array(resume["asleep"], bool).reshape(-1)
    s.timer = np.array(resume["rest_timer"], float).reshape(-1)
    s.island = np.array(resume["island"], np.int64).reshape(-1)
    s.rest = np.array(resume["rest_at"], float).reshape(-1, 2)
    s.ticks = int(resume["settled_ticks"])
    if world.solver.options.sleeping:       # what they fell asleep under is this world's
        world._sleep_causes = sleep_causes(world)
    j = world.joints
    if len(j):
        imp = np.array(resume["joint_impulses"], float).reshape(-1, len(JOINT_IMPULSES))
        for k, name in enumerate(JOINT_IMPULSES):
            setattr(j, name, imp[:, k].copy())
    b = world.bodies
    b.ids = np.array(resume["body_ids"], np.int64).reshape(-1)
    b._next_id = max(int(resume["body_next_id"]), int(b.ids[-1]) + 1 if len(b.ids) else 0)
    b.asleep = np.array(resume["body_asleep"], bool).reshape(-1)
    b.rest_time = np.array(resume["body_rest_timer"], float).reshape(-1)
    b._warm_keys = np.array(resume["body_warm_key"], np.int64).reshape(-1)
    b._warm_pn, b._warm_pt, b._warm_pr = (np.array(resume[k], float).reshape(-1)
                                          for k in ("body_warm_pn", "body_warm_pt", "body_warm_pr"))
    if len(b.joint_rows):
        b.joint_rows[:, list(BODY_JOINT_COLUMNS)] = np.array(resume["body_joint_impulses"], float).reshape(
            -1, len(BODY_JOINT_COLUMNS))
    for sp, saved in zip(world.spawners, resume["spawners"]):
        sp.clock = float(saved["clock"])
        sp.made, sp.max = int(saved["made"]), sp.max + int(saved["made"])
        sp.spot = None if saved["spot"] is None else np.array(saved["spot"], float)
        state, inc, has, value = saved["random"]
        sp.rng.bit_generator.state = {"bit_generator": "PCG64", "state": {"state": int(state), "inc": int(inc)},
                                      "has_uint32": int(has), "uinteger": int(value)}
    return True
