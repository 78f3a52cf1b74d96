"""The statics of a World: building its capsules from a level's segments, polylines and
polygons, the broad-phase grid they are binned in, and segments added or removed in play."""
import copy

import numpy as np

from game import defaults
from game.physics import collide, geometry
from game.physics.motion import Motions

MIN_CELL = 1e-3              # m: the broad-phase cell is never smaller
SURFACE_KINDS = ("", "ice", "rubber", "lava")   # Statics.made_of: a capsule's "surface" (0: none)
LAVA = SURFACE_KINDS.index("lava")
LAVA_REACH = 0.01            # m: a ball this near lava's surface (or in it) touches it
MAX_CELLS_ACROSS = 4096      # the cell grows so the level spans at most this many cells


def build_statics(world, level):
    a, b, radius, rest, fric, roll, poly = [], [], [], [], [], [], []
    surface, kick, moves, motions, polygon_moves, made_of = [], [], [], [], [], []

    gx, gy = (float(v) for v in world.forces.gravity)

    def add(p, q, shape, polygon=-1):
        # Walls have a right side: a centre that starts on a wall's core leaves along the
        # core's left normal (-dy, dx) (collide.ball_static_geometry), so each wall runs so
        # that this normal does not point with gravity. Polygon edges keep their winding.
        # A conveyor's surface runs a -> b as the file gives it, whichever way the capsule runs.
        dx, dy = q[0] - p[0], q[1] - p[1]
        speed = float(shape.get("surface_speed", 0.0))
        if polygon < 0 and dx * gy - dy * gx > 0:
            p, q = q, p
            speed = -speed
        surface.append(speed)
        kick.append(float(shape.get("kick", 0.0)))
        made_of.append(SURFACE_KINDS.index(shape.get("surface", "")))
        moves.append(motion_index(shape))
        a.append(p)
        b.append(q)
        radius.append(float(shape["radius"]))
        rest.append(float(shape["restitution"]))
        fric.append(float(shape["friction"]))
        roll.append(float(shape["rolling"]))
        poly.append(polygon)

    def motion_index(shape):
        # One motion a shape: its capsules (and a polygon's points) move together.
        if "motion" not in shape:
            return -1
        if not motions or motions[-1] is not shape["motion"]:
            motions.append(shape["motion"])
        return len(motions) - 1

    for seg in level["segments"]:
        add(seg["a"], seg["b"], seg)
    for line in level["polylines"]:
        points = line["points"]
        ends = list(zip(points[:-1], points[1:]))
        if line["closed"] and len(points) > 2:
            ends.append((points[-1], points[0]))
        for p, q in ends:
            add(p, q, line)
    world.polygons = []
    for shape in level["polygons"]:
        points = np.asarray(shape["points"], float)     # convex, counter-clockwise
        index = len(world.polygons)
        world.polygons.append(points)
        edge = dict(shape, radius=0.0)
        for k in range(len(points)):
            add(points[k], points[(k + 1) % len(points)], edge, index)
        polygon_moves.append(moves[-1] if len(points) else -1)
    a, b = np.asarray(a, float).reshape(-1, 2), np.asarray(b, float).reshape(-1, 2)
    old = getattr(world, "motions", None)
    world.motions = Motions(a, b, moves, motions, polygon_moves, world.polygons)
    world.motions.carry_over(old)
    world.statics = collide.Statics(a, b, radius, rest, fric, poly, world.polygons, roll, surface, kick,
                                    world.motions.path_discs())
    # What each capsule is made of (SURFACE_KINDS): the play's drawing and lava read it.
    world.statics.made_of = np.asarray(made_of, np.int8)
    world.statics.lava = bool((world.statics.made_of == LAVA).any())    # (asked every sub-step: zones.has_lava)
    world.motions.place(world, world.time)
    world.statics_version = getattr(world, "statics_version", 0) + 1


def resume(world, level):
    """Build the world's statics from ``level``, resuming a snapshot of moving walls
    (readings.to_level writes the level's time as ``_time`` and the flippers' angles as
    ``_flippers``, keys the format reads back; the loader has checked they are numbers):
    the world's clock and the walls' poses go on from there. Each flipper's angle is clamped
    to its own range (0 to its ``angle``: a hand-edited 1e300, or a snapshot whose flipper
    was edited since, is never past its stop); the others' entries are ignored, and a list
    of another length than the moving shapes (walls added or removed since) is ignored."""
    world.time = float(level.pop("_time", 0.0))
    flippers = level.pop("_flippers", None)
    build_statics(world, level)
    motions = world.motions
    if flippers is not None and len(flippers) == len(motions.phi):
        for k, m in enumerate(motions.motions):
            if m["kind"] == "flipper":
                lo, hi = min(0.0, float(m["angle"])), max(0.0, float(m["angle"]))
                motions.phi[k] = min(max(float(flippers[k]), lo), hi)
        motions.place(world, world.time)


def rebuild_grid(world):
    """Choose the broad-phase cell (the largest ball diameter or more) and bin the statics.

    The grid covers the level's bounds and statics; balls beyond it share its edge cells.
    """
    biggest = float(world.radius.max()) if len(world.radius) else defaults.BALL_RADIUS
    boxes = [world.bounds.reshape(2, 2)]
    if len(world.statics):
        boxes.append(world.statics.box[:, :2])
        boxes.append(world.statics.box[:, 2:])
    everything = np.vstack(boxes)
    lo, hi = everything.min(axis=0), everything.max(axis=0)
    span = np.maximum(hi - lo, MIN_CELL)
    cell = max(2.0 * biggest, float(np.sqrt(span[0] * span[1] / collide.MAX_GRID_CELLS)),
               float(span.max()) / MAX_CELLS_ACROSS, MIN_CELL)
    # Long or fat statics in a big level would list millions of (cell, capsule) entries:
    # the cell grows until binning is bounded in time and memory.
    while world.statics.entries(cell) > collide.MAX_STATIC_ENTRIES:
        cell *= 1.25
    world.grid = collide.Grid(cell, lo, hi)
    world.statics.bin(world.grid)


def add_segments(world, segments):
    """Add static segments (normalised definitions: a, b, radius and the surface) to the
    running world, as a player draws them: the statics are built and binned again (the
    candidate pairs found afresh, every sleeping ball woken by the change) and the
    segments become part of ``to_level``."""
    world.level.setdefault("segments", []).extend(copy.deepcopy(list(segments)))
    statics_changed(world)


def remove_segment(world, definition):
    """Take back the last static segment equal to ``definition``; False if there is none."""
    segments = world.level.get("segments", [])
    for k in range(len(segments) - 1, -1, -1):
        if segments[k] == definition:
            del segments[k]
            statics_changed(world)
            return True
    return False


def statics_changed(world):
    world.level.setdefault("polylines", [])
    world.level.setdefault("polygons", [])
    build_statics(world, world.level)
    rebuild_grid(world)
    world._candidates = None


def surface_touched(world, a, b, radius):
    """The "surface" (ice, rubber, lava) of the first static that a capsule from ``a`` to ``b``
    of ``radius`` m would touch or cross, or None (a player may not draw on or through them)."""
    made_of = getattr(world.statics, "made_of", None)
    if made_of is None or not made_of.any():
        return None
    k = np.flatnonzero(made_of > 0)
    st = world.statics
    gap = geometry.segment_distance(np.asarray(a, float), np.asarray(b, float), st.a[k], st.b[k]) - st.radius[k] - radius
    hit = np.flatnonzero(gap <= 0.0)
    if len(hit):
        return SURFACE_KINDS[int(made_of[k[hit[0]]])]
    for p in np.unique(st.polygon[k][st.polygon[k] >= 0]).tolist():     # wholly inside a polygon of it
        if geometry.point_in_convex_polygon(np.asarray(a, float), world.polygons[p]):
            return SURFACE_KINDS[int(made_of[np.flatnonzero(st.polygon == p)[0]])]
    return None
