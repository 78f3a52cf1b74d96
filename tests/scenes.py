"""Scene building shared by the tests: partial level dicts, normalised as the game loads them."""
from game.level import complete
from game.physics.world import World

STATICS = ("segments", "polylines", "polygons")
_PEG = {"a": [0.0, 0.0], "b": [1.0, 0.0]}    # stands in for the statics a level file must have


def definition(level):
    """``level`` with every default filled in by the level package (``game.level.complete``).

    A physics scene may have no statics at all (two balls colliding in free space); a level
    file may not ("balls would fall forever"), so such a scene is completed with a stand-in
    segment that is then taken out again: the world gets exactly the scene asked for."""
    if any(level.get(kind) for kind in STATICS):
        return complete(level)
    done = complete(dict(level, segments=[_PEG]))
    done["segments"] = []
    return done


def build_world(level, **options):
    """``World.from_level`` of ``definition(level)``, as a file on disk would be loaded
    (``World.from_level`` itself takes only normalised definitions)."""
    return World.from_level(definition(level), **options)
