"""The shape of a snapshot's ``_resume`` (game.physics.resume writes it, World.from_level reads
it back): the loader refuses a value of the wrong shape in one line with its path, as it does
any other key. Whether its counts fit the level is the world's to see (it leaves out one that
does not)."""

_FLOATS, _INTS, _BOOLS = ("numbers", "a number"), ("whole numbers", "a whole number"), ("true or false", "true or false")

_LISTS = {"ids": _INTS, "warm_key": _INTS, "warm_pn": _FLOATS, "warm_pt": _FLOATS, "warm_pr": _FLOATS,
          "asleep": _BOOLS, "rest_timer": _FLOATS, "island": _INTS, "rest_at": _FLOATS, "joint_impulses": _FLOATS,
          "body_ids": _INTS, "body_asleep": _BOOLS, "body_rest_timer": _FLOATS, "body_warm_key": _INTS,
          "body_warm_pn": _FLOATS, "body_warm_pt": _FLOATS, "body_warm_pr": _FLOATS, "body_joint_impulses": _FLOATS}
_COUNTS = ("ticks", "next_id", "settled_ticks", "body_next_id")
INT64 = 2 ** 63


def check(value, problem):
    """Refuse a ``_resume`` of the wrong shape: ``problem(path, message)`` makes the exception
    (the loader's Problem), the path within ``_resume``."""
    if not isinstance(value, dict):
        raise problem((), f"expected an object (the snapshot's memory, written by the game), got {_kind(value)}")
    for key in value:
        if key not in _LISTS and key not in _COUNTS and key != "spawners":
            raise problem((key,), f"expected only the keys the game writes, got {key!r}")
    for key in (*_LISTS, *_COUNTS, "spawners"):
        if key not in value:
            raise problem((), f"expected the key {key!r} (the game writes it), got none")
    for key in _COUNTS:
        if not _is_int(value[key]) or not 0 <= value[key] < INT64:
            raise problem((key,), f"expected a whole number from 0, got {_kind(value[key])}")
    for key, kind in _LISTS.items():
        items = value[key]
        if not isinstance(items, list):
            raise problem((key,), f"expected a list of {kind[0]}, got {_kind(items)}")
        test = {_INTS: lambda v: _is_int(v) and -INT64 <= v < INT64, _BOOLS: lambda v: isinstance(v, bool),
                _FLOATS: lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)}[kind]
        for k, v in enumerate(items):
            if not test(v):
                raise problem((key, k), f"expected {kind[1]}, got {_kind(v)}")
    spawners = value["spawners"]
    if not isinstance(spawners, list):
        raise problem(("spawners",), f"expected a list, got {_kind(spawners)}")
    for k, sp in enumerate(spawners):
        if not (isinstance(sp, dict) and set(sp) == {"clock", "made", "spot", "random"}
                and isinstance(sp["clock"], (int, float)) and not isinstance(sp["clock"], bool) and sp["clock"] >= 0
                and _is_int(sp["made"]) and 0 <= sp["made"] < INT64
                and (sp["spot"] is None or (isinstance(sp["spot"], list) and len(sp["spot"]) == 2 and all(
                    isinstance(v, (int, float)) and not isinstance(v, bool) for v in sp["spot"])))
                and isinstance(sp["random"], list) and len(sp["random"]) == 4 and _random_ok(sp["random"])):
            raise problem(("spawners", k), "expected a spawner's clock, made, spot and random state as the game "
                                           "writes them")


def _random_ok(r):
    state, inc, has, value = r
    return (isinstance(state, str) and isinstance(inc, str) and state.isdigit() and inc.isdigit()
            and len(state) <= 40 and len(inc) <= 40 and int(state) < 2 ** 128 and int(inc) < 2 ** 128
            and has in (0, 1) and _is_int(value) and 0 <= value < 2 ** 32)


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _kind(v):
    return {dict: "an object", list: "a list", str: "text", bool: "true or false", type(None): "null"}.get(
        type(v), repr(v) if isinstance(v, (int, float)) else type(v).__name__)
