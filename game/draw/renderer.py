"""Draws a World on a pygame Surface through a Camera. Reads the world, never writes it.

Costs are kept off the per-ball path: static geometry (background, metre grid, zones,
walls, pegs, polygons) is drawn once into a cached surface and blitted each frame, redrawn
only when the level or the camera changes; balls come from cached anti-aliased sprites,
one per (colour, pixel radius, spin mark step), with the screen positions of all balls
computed by numpy in one go, and are written by a compiled stamper (game.draw.sprites)
or, until it loads, blitted in one batched call: the same pixels either way.
"""
import math
from collections import deque

import numpy as np
import pygame

from game.physics.bodies import joint_points
from game.draw import sprites
from game.draw.bodies import draw_bodies, draw_body_joints
from game.draw.joints import draw_ball_joints, draw_spring
from game.draw.debug import DebugLayers
from game.draw.walls import WallLayer, draw_capsules, draw_wall_velocities, per_frame
from game.draw.plot import blit_many, clip_convex, clip_segments, map_colours, plot_segments, shade
from game.draw.theme import (BACKGROUND, GRID_MAJOR, GRID_MINOR, LEVEL_FILL, PALETTE,
                             POLYGON_EDGE, POLYGON_FILL, SPAWNER, SPRING_GRAB, SURFACE_COLOURS,
                             ZONE_COLOURS, ZONE_EDGE_ALPHA, ZONE_FILL_ALPHA)
from game.draw.theme import SPARK, SPARK_FRAMES

MAX_SPRITE_RADIUS = 300     # px; bigger balls (deep zoom) are drawn directly, not cached
SPRITE_CACHE_LIMIT = 4000   # sprites kept before the cache is emptied (zooming makes new sizes)
SPIN_MARK_MIN_RADIUS = 6    # px: balls this big show their angle (world.angle) as a mark
SPIN_MARK_STEPS = 32        # the mark turns in steps of 360/32 degrees: one sprite per step
GRID_MIN_SPACING = 22       # px between metre-grid lines at the least
TRAIL_LENGTH = 30           # positions kept per ball


def ball_colour(ball_id):
    """The colour of the ball with this stable id."""
    return PALETTE[int(ball_id) % len(PALETTE)]


_PALETTE_ARRAY = np.array(PALETTE, dtype=float)
_LEVEL_FILL_ARRAY = np.array(LEVEL_FILL, dtype=float)


def _can_convert():
    return pygame.display.get_init() and pygame.display.get_surface() is not None


def sprite_key(colour_index, radius_px, mark=0):
    """The sprite cache's key (int64, broadcasts): colour index into PALETTE, radius in px
    (< 65536), mark 0 (none) or 1 + the spin mark's step (0 .. SPIN_MARK_STEPS - 1)."""
    return (np.asarray(mark, np.int64) * len(PALETTE) + colour_index) * 65536 + radius_px


def split_sprite_key(key):
    """(colour index, radius px, mark angle in radians or None) of a sprite_key."""
    key = int(key)
    rest, radius_px = divmod(key, 65536)
    mark, colour_index = divmod(rest, len(PALETTE))
    angle = None if mark == 0 else (mark - 1) * 2.0 * np.pi / SPIN_MARK_STEPS
    return colour_index, radius_px, angle


def make_ball_sprite(colour, radius_px, mark=None, background=LEVEL_FILL):
    """A ball of radius_px, centre at (r+1, r+1): a darker rim, the colour, a highlight;
    with ``mark`` (radians, counter-clockwise from +x in the world) a dark line from the
    centre out to the rim that shows how the ball has turned.

    Anti-aliased against ``background`` and then colour-keyed on it (run-length encoded):
    blitting 5,000 keyed sprites costs a fraction of blending 5,000 per-pixel-alpha ones,
    and on the level's own background the edges look exactly as if blended. Over other
    balls or walls the blended edge pixels read as a thin dark outline. The centre pixel
    keeps the ball's own colour (the highlight sits up and left of it)."""
    size = 2 * radius_px + 2
    sprite = pygame.Surface((size, size))
    sprite.fill(background)
    c = radius_px + 1
    if radius_px <= 2:
        pygame.draw.circle(sprite, colour, (c, c), radius_px)
    else:
        pygame.draw.aacircle(sprite, shade(colour, 0.62), (c, c), radius_px)
        inner = radius_px - max(1, radius_px // 8)
        pygame.draw.aacircle(sprite, colour, (c, c), inner)
        if radius_px >= 5:
            spot = max(1, int(radius_px * 0.28))
            off = int(round(radius_px * 0.38))
            pygame.draw.aacircle(sprite, shade(colour, 1.45), (c - off, c - off), spot)
        if mark is not None:
            # Screen y points down: a world angle a is the screen direction (cos a, -sin a).
            # It starts a third of the way out, so the centre pixel keeps the ball's colour.
            u = np.array((np.cos(mark), -np.sin(mark)))
            reach = radius_px - max(1, radius_px // 8) - 1
            base, tip = c + u * radius_px / 3.0, c + u * reach
            pygame.draw.line(sprite, shade(colour, 0.45), base.tolist(), tip.tolist(), 2 if radius_px >= 10 else 1)
    if _can_convert():
        sprite = sprite.convert()
    sprite.set_colorkey(background, pygame.RLEACCEL)
    return sprite


class Trails:
    """The last TRAIL_LENGTH positions of every ball, keyed by ball id (survives removals)."""

    def __init__(self, length=TRAIL_LENGTH):
        self._frames = deque(maxlen=length)

    def clear(self):
        self._frames.clear()

    def record(self, world):
        self.add(self.take(world))

    @staticmethod
    def take(world):
        """(ids, positions) of the world's balls now, copied: one entry for add()."""
        return np.array(world.ids, copy=True), np.array(world.pos, copy=True)

    def add(self, entry):
        """Append one take() entry (the positions after one tick)."""
        self._frames.append(entry)

    def paths(self, ids):
        """(L, N, 2) past positions of the balls with these ids, oldest first; nan where unknown."""
        ids = np.asarray(ids)
        out = np.full((len(self._frames), len(ids), 2), np.nan)
        for f, (frame_ids, frame_pos) in enumerate(self._frames):
            if len(frame_ids) == 0 or len(ids) == 0:
                continue
            order = np.argsort(frame_ids, kind="stable")
            sorted_ids = frame_ids[order]
            at = np.clip(np.searchsorted(sorted_ids, ids), 0, len(sorted_ids) - 1)
            found = sorted_ids[at] == ids
            out[f, found] = frame_pos[order[at[found]]]
        return out


class Renderer:
    """Draws worlds; holds only caches (sprites, the static layer), never world state."""

    def __init__(self):
        self._sprites = {}
        self._stamps = {}            # sprite key -> its opaque pixels, for the compiled stamper
        self._atlas = None           # the stamps of every cached sprite, end to end (_stamp_balls)
        self._atlas_order = []       # their keys in the atlas's order
        self._atlas_key = None       # the surface's pixel layout they were mapped for
        self._static = None
        self._static_key = None
        self._debug = DebugLayers()  # the debug layers' own caches (game.draw.debug)
        self._walls = WallLayer()    # the walls that move or act, drawn each frame (game.draw.walls)
        self._sparks = []            # [world point (2,), frames left]: joints that broke lately
        self._breaks_seen = (None, 0.0)  # (the world's level, the time of the newest break drawn)

    def invalidate(self):
        """Forget the static layer (call when the level's geometry changed)."""
        self._static_key = None

    # ---- the frame -----------------------------------------------------------------------
    def draw(self, surface, world, camera, debug=(), trails=None, text_right=None):
        """Draw the whole world. debug: names from game.draw.debug.DEBUG_LAYERS; trails: a Trails or None;
        text_right: px, where the debug layers' text line must end (left of a panel there).
        The world's grabs (``world.grabs``) show as a line from the ball to the grab point
        instead of their springs. A world that blew up (inf, nan) draws what is finite,
        without numpy's overflow warnings."""
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            self._draw(surface, world, camera, debug, trails, text_right)

    def _draw(self, surface, world, camera, debug, trails, text_right=None):
        self.draw_static(surface, world, camera)
        self._walls.draw(surface, world, camera)
        if trails is not None:
            self.draw_trails(surface, world, camera, trails)
        if "grid" in debug:
            self._debug.draw_broad_grid(surface, world, camera)
        grabs = list(world.grabs.values())
        self.draw_springs(surface, world, camera, hidden_ids=[i for g in grabs for i in g.spring_ids])
        draw_bodies(surface, world, camera)
        self.draw_balls(surface, world, camera)
        self.draw_joints(surface, world, camera)
        draw_body_joints(surface, world, camera, joint_points)
        for grab in grabs:
            self.draw_grab(surface, world, camera, grab)
        if "swept" in debug:
            self._debug.draw_swept(surface, world, camera)
        if "velocities" in debug:
            self._debug.draw_velocities(surface, world, camera)
        if "contacts" in debug:
            self._debug.draw_contacts(surface, world, camera)
        if "contacts" in debug or "velocities" in debug:
            draw_wall_velocities(surface, world, camera)
        if debug:
            self._debug.draw_solver_options(surface, world, text_right)
            self._debug.draw_body_frames(surface, world, camera)
            self._debug.draw_sleeping(surface, world, camera)

    # ---- static layer --------------------------------------------------------------------
    def draw_static(self, surface, world, camera):
        # The statics' radii, not the world nor its statics: a view of the world (World.view)
        # drawn while the world steps shares them (it copies the statics of a level whose
        # walls move, and their ends, every frame), and each new build of the statics (a new
        # world, a segment drawn) makes its own.
        key = (camera.key(), surface.get_size(), id(world.statics.radius), len(world.statics.radius),
               len(world.zones), len(world.polygons))
        if key != self._static_key or self._static is None:
            self._static = self._build_static(surface.get_size(), world, camera)
            self._static_key = key
        surface.blit(self._static, (0, 0))

    def _build_static(self, size, world, camera):
        """Background, metre grid, zones, polygons, walls and spawners, all clipped to the
        screen first: at a deep zoom a level's far corners are billions of pixels away, and
        pygame's fills and thick lines take seconds over such spans."""
        width, height = size
        layer = pygame.Surface(size)
        if _can_convert():
            layer = layer.convert()
        layer.fill(BACKGROUND)
        x0, y0, x1, y1 = (float(v) for v in world.bounds)
        (sx0, sy1), (sx1, sy0) = np.clip(camera.world_to_screen([(x0, y0), (x1, y1)]), -8, (width + 8, height + 8))
        level_rect = pygame.Rect(int(sx0), int(sy0), int(sx1 - sx0) + 1, int(sy1 - sy0) + 1)
        layer.fill(LEVEL_FILL, level_rect)
        self._draw_metre_grid(layer, world.bounds, camera, level_rect)
        self._draw_zones(layer, world, camera)
        # Walls that move or kick are drawn each frame where they are (game.draw.walls), not here.
        still = ~per_frame(world.statics)
        polygon = np.asarray(world.statics.polygon)
        made_of = getattr(world.statics, "made_of", np.zeros(len(polygon), np.int8))   # ice, rubber, lava
        acting = set(polygon[~still & (polygon >= 0)].tolist())
        edged = polygon >= 0
        pieces, first = np.unique(polygon[edged], return_index=True)
        polygon_made = np.zeros(len(world.polygons), np.int8)     # each polygon's surface: its first edge's
        polygon_made[pieces] = made_of[edged][first]
        for p, poly in enumerate(world.polygons):
            if p in acting:
                continue
            pts = clip_convex(camera.world_to_screen(np.asarray(poly, float)), size)
            made = int(polygon_made[p])
            if len(pts) >= 3:
                pygame.draw.polygon(layer, shade(SURFACE_COLOURS[made], 0.55) if made else POLYGON_FILL, pts)
        # A non-convex polygon is convex pieces: the edges two pieces share are inside it,
        # not drawn (no seam); the outline is its outer edges.
        outer = ~shared_edges(world.statics) & still
        edge = outer & (polygon >= 0)
        if edge.any():
            ends = camera.world_to_screen(np.concatenate((world.statics.a[edge], world.statics.b[edge])))
            a, b, _, _, shown = clip_segments(ends[:edge.sum()], ends[edge.sum():], size, 2.0)
            for p, q in zip(a[shown].tolist(), b[shown].tolist()):
                pygame.draw.aaline(layer, POLYGON_EDGE, p, q)
        draw_capsules(layer, world.statics, camera, outer & (made_of == 0))
        for made, colour in SURFACE_COLOURS.items():      # a surface the player may not draw on: its colour
            draw_capsules(layer, world.statics, camera, outer & (made_of == made), fill=colour, line=colour,
                          thin_width=4)
        self._draw_spawners(layer, world, camera)
        return layer

    def _draw_spawners(self, layer, world, camera):
        """A ring with a notch each side where balls will appear."""
        width, height = layer.get_size()
        for spawner in getattr(world, "spawners", ()):
            sx, sy = camera.world_to_screen(spawner.pos).tolist()
            r = min(max(4.0, spawner.radius * camera.scale), 1000.0)
            if -r - 8 <= sx <= width + r + 8 and -r - 8 <= sy <= height + r + 8:
                pygame.draw.aacircle(layer, SPAWNER, (sx, sy), r + 3, 2)
                pygame.draw.line(layer, SPAWNER, (sx - r - 6, sy), (sx - r + 1, sy), 2)
                pygame.draw.line(layer, SPAWNER, (sx + r - 1, sy), (sx + r + 6, sy), 2)

    def _draw_metre_grid(self, layer, bounds, camera, level_rect):
        """Faint lines at round metre values (every fifth a little brighter), so a person
        editing JSON can read positions off the screen. Only the lines on screen are drawn."""
        step = next((s for s in (0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500)
                     if s * camera.scale >= GRID_MIN_SPACING), 1000)
        major = step * 5
        vx0, vy0, vx1, vy1 = camera.visible_rect()
        x0, y0, x1, y1 = (float(v) for v in bounds)
        x0, y0, x1, y1 = max(x0, vx0), max(y0, vy0), min(x1, vx1), min(y1, vy1)
        clip = layer.get_clip()
        layer.set_clip(level_rect)
        for value in np.arange(np.ceil(x0 / step) * step, x1 + 1e-9, step):
            sx = camera.world_to_screen((value, 0.0))[0]
            colour = GRID_MAJOR if abs(value / major - round(value / major)) < 1e-6 else GRID_MINOR
            pygame.draw.line(layer, colour, (sx, level_rect.top), (sx, level_rect.bottom))
        for value in np.arange(np.ceil(y0 / step) * step, y1 + 1e-9, step):
            sy = camera.world_to_screen((0.0, value))[1]
            colour = GRID_MAJOR if abs(value / major - round(value / major)) < 1e-6 else GRID_MINOR
            pygame.draw.line(layer, colour, (level_rect.left, sy), (level_rect.right, sy))
        layer.set_clip(clip)

    def _draw_zones(self, layer, world, camera):
        """Zones tinted by kind (goal green, kill red, attractor blue) with a brighter edge."""
        if not world.zones:
            return
        size = layer.get_size()
        tint = pygame.Surface(size, pygame.SRCALPHA)
        for zone in world.zones:
            rgb = ZONE_COLOURS.get(zone.kind, (200, 200, 200))
            outline = _zone_outline(zone)
            if outline is None:
                _raster_zone(tint, zone, camera, rgb + (ZONE_FILL_ALPHA,))
                continue
            pts = clip_convex(camera.world_to_screen(outline), size)
            if len(pts) >= 3:
                pygame.draw.polygon(tint, rgb + (ZONE_FILL_ALPHA,), pts)
                pygame.draw.lines(tint, rgb + (ZONE_EDGE_ALPHA,), True, pts, 2)
        layer.blit(tint, (0, 0))
        number_goals(layer, world, camera)

    # ---- dynamic layers ------------------------------------------------------------------
    def _make_sprites(self, unique_keys):
        """Make the sprites of these keys (sprite_key) that are not cached yet. The cache is
        emptied first if they would overfill it, never while a frame uses it."""
        missing = [k for k in unique_keys.tolist() if k not in self._sprites]
        if len(self._sprites) + len(missing) > SPRITE_CACHE_LIMIT:
            self._sprites.clear()
            self._stamps.clear()
            self._atlas_key = None
            missing = unique_keys.tolist()
        for key in missing:
            colour_index, radius_px, mark = split_sprite_key(key)
            self._sprites[key] = make_ball_sprite(PALETTE[colour_index], radius_px, mark)

    def draw_balls(self, surface, world, camera):
        """All balls from cached sprites, one per sprite_key (colour, pixel radius, spin mark
        step), in the world's order: written by the compiled stamper where it is loaded,
        else in one Surface.fblits call; screen maths and culling in numpy, no per-ball
        Python. Balls off screen or not finite are skipped. Where the world holds ``angle``
        (N,) radians, balls of SPIN_MARK_MIN_RADIUS px and more show it as a mark (a sprite
        per mark step: no per-ball cost)."""
        if world.count == 0:
            return
        width, height = surface.get_size()
        screen = camera.world_to_screen(world.pos)
        radius_px = np.maximum(1, np.rint(np.asarray(world.radius) * camera.scale))
        x, y = screen[:, 0], screen[:, 1]
        with np.errstate(invalid="ignore"):
            visible = ((x + radius_px >= 0) & (x - radius_px < width)
                       & (y + radius_px >= 0) & (y - radius_px < height))
        if not visible.all():
            x, y, radius_px = x[visible], y[visible], radius_px[visible]
            colour_index = (np.asarray(world.ids)[visible] % len(PALETTE))
        else:
            colour_index = np.asarray(world.ids) % len(PALETTE)
        if len(x) == 0:
            return
        radius_px = radius_px.astype(np.int64)
        huge = radius_px > MAX_SPRITE_RADIUS
        if huge.any():
            for cx, cy, rp, ci in zip(x[huge].tolist(), y[huge].tolist(),
                                      radius_px[huge].tolist(), colour_index[huge].tolist()):
                pygame.draw.circle(surface, PALETTE[ci], (cx, cy), rp)
        keep = ~huge
        if huge.any():
            x, y, radius_px, colour_index = x[keep], y[keep], radius_px[keep], colour_index[keep]
            if len(x) == 0:
                return
        mark = np.zeros(len(x), np.int64)
        angle = getattr(world, "angle", None)
        if angle is not None and len(angle) == world.count:
            angle = np.asarray(angle, float)[visible][keep]
            marked = (radius_px >= SPIN_MARK_MIN_RADIUS) & np.isfinite(angle)
            turns = np.mod(np.where(marked, angle, 0.0), 2.0 * np.pi) / (2.0 * np.pi) * SPIN_MARK_STEPS
            mark = np.where(marked, 1 + np.rint(turns).astype(np.int64) % SPIN_MARK_STEPS, 0)
        keys = sprite_key(colour_index, radius_px, mark)
        unique = np.unique(keys)
        self._make_sprites(unique)
        top_left = np.rint(np.stack((x, y), axis=1)).astype(np.int64) - (radius_px + 1)[:, None]
        if sprites.stamp is not None and self._stamp_balls(surface, keys, top_left):
            return
        # The batch is built by zip and map in C, in the balls' order (which one lies on top
        # stays the same): a Python comprehension over the balls cost twice the blits.
        blit_many(surface, zip(map(self._sprites.__getitem__, keys.tolist()), top_left.tolist()))

    def _stamp_balls(self, surface, keys, top_left):
        """The compiled twin of the blits (game.draw.sprites): the same pixels, written by
        one loop over the balls. False (nothing drawn) where the surface is not a plain
        32-bit one whose pixels numba sees as the array it was compiled for."""
        if surface.get_bitsize() != 32 or surface.get_masks()[3] != 0 or surface.get_locked():
            return False
        # The atlas holds every cached sprite, not only this frame's: rolling balls change
        # their spin marks every frame, and an atlas of the frame's own sprites was rebuilt
        # (330 sprites, 3 ms at 2,000 balls) nearly every frame. New sprites are appended (a
        # zoom makes new sizes), and it starts again when the cache is emptied or the
        # surface's pixel layout changes.
        shifts = surface.get_shifts()
        if self._atlas_key != shifts or self._atlas is None or len(self._atlas[0]) > len(self._sprites):
            self._atlas = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(1, np.int64), np.zeros(0, np.int64),
                           np.zeros(0, np.int64), np.zeros(0, np.uint32), np.zeros(0, np.int64))
            self._atlas_order = []
            self._atlas_key = shifts
        if len(self._atlas_order) < len(self._sprites):
            have = set(self._atlas_order)
            new = [k for k in self._sprites if k not in have]
            parts = [self._stamp_of(k) for k in new]
            _, _, start, dx, dy, value, size = self._atlas
            start = np.concatenate((start, start[-1] + np.cumsum([len(p[0]) for p in parts]).astype(np.int64)))
            dx = np.concatenate([dx] + [p[0] for p in parts])
            dy = np.concatenate([dy] + [p[1] for p in parts])
            value = np.concatenate([value] + [map_colours(surface, np.concatenate([p[2] for p in parts])).astype(np.uint32)])
            size = np.concatenate((size, np.array([max(self._sprites[k].get_size()) for k in new], np.int64)))
            self._atlas_order += new
            order = np.array(self._atlas_order, np.int64)
            by_key = np.argsort(order, kind="stable")
            self._atlas = (order[by_key], by_key.astype(np.int64), start, dx, dy, value, size)
        pixels = pygame.surfarray.pixels2d(surface)
        try:
            if not pixels.flags.f_contiguous:     # a subsurface: another array type, blit it
                return False
            keys_sorted, slots, start, dx, dy, value, size = self._atlas
            slot = slots[np.searchsorted(keys_sorted, keys)]      # each ball's sprite's place in the atlas
            sprites.stamp(pixels, np.ascontiguousarray(top_left[:, 0]), np.ascontiguousarray(top_left[:, 1]),
                                 slot.astype(np.int64), start, dx, dy, value, size)
        finally:
            del pixels                           # unlock the surface
        return True

    def _stamp_of(self, key):
        """(dx, dy, rgb): the opaque pixels of sprite ``key`` (not its colour key), offsets
        from its top-left corner (int64 px) and colours ((K, 3) 0..255)."""
        stamp = self._stamps.get(key)
        if stamp is None:
            sprite = self._sprites[key]
            opaque = pygame.surfarray.array2d(sprite) != sprite.map_rgb(sprite.get_colorkey())
            dx, dy = np.nonzero(opaque)
            stamp = self._stamps[key] = (dx.astype(np.int64), dy.astype(np.int64),
                                         pygame.surfarray.array3d(sprite)[dx, dy])
        return stamp

    def draw_springs(self, surface, world, camera, hidden_ids=()):
        """Springs as lines, tinted by strain: blue when short of rest, orange when stretched;
        the springs whose stable ids are in hidden_ids (a grab's) are left out."""
        springs = world.springs
        count = len(springs.a)
        if count == 0:
            return
        hidden = set(np.flatnonzero(np.isin(springs.ids, list(hidden_ids))).tolist()) if hidden_ids else set()
        if count == len(hidden):
            return
        pos = np.asarray(world.pos)
        b = np.asarray(springs.b)
        start = pos[np.asarray(springs.a)]
        end = np.where((b >= 0)[:, None], pos[np.maximum(b, 0)], np.asarray(springs.anchor))
        rest = np.asarray(springs.rest)
        with np.errstate(invalid="ignore", divide="ignore"):
            strain = (np.linalg.norm(end - start, axis=1) - rest) / np.maximum(rest, 1e-3)
        s0 = camera.world_to_screen(start).tolist()
        s1 = camera.world_to_screen(end).tolist()
        for k, (p, q, e) in enumerate(zip(s0, s1, strain.tolist())):
            if k not in hidden:
                draw_spring(surface, p, q, e, b[k] < 0)

    def draw_joints(self, surface, world, camera):
        """Joints over the balls (game.draw.joints.draw_ball_joints: rods, ropes, pins, motors,
        chains as links), after the sparks of joints that broke lately."""
        self._draw_sparks(surface, world, camera)
        draw_ball_joints(surface, world, camera)

    def _draw_sparks(self, surface, world, camera):
        """A spark where a joint broke (world.break_log's breaks newer than the last drawn),
        fading over SPARK_FRAMES frames."""
        log = getattr(world, "break_log", [])
        seen_level, seen = self._breaks_seen
        if seen_level is not world.level:
            seen = -math.inf                 # a new world: all its breaks are news
        fresh = [b for b in log if b[0] > seen]
        self._sparks += [[np.array(b[1:], float), SPARK_FRAMES] for b in fresh]
        self._breaks_seen = (world.level, max([seen] + [b[0] for b in fresh]))
        alive = []
        for spark in self._sparks:
            point, left = spark
            centre = camera.world_to_screen(point[None])[0]
            if np.isfinite(centre).all():
                size = 4 + 10 * left / SPARK_FRAMES
                for k in range(8):
                    turn = k * math.pi / 4 + left * 0.3
                    tip = centre + size * np.array((math.cos(turn), math.sin(turn)))
                    pygame.draw.line(surface, SPARK, centre.tolist(), tip.tolist(), 2)
            spark[1] = left - 1
            if spark[1] > 0:
                alive.append(spark)
        self._sparks = alive

    def draw_grab(self, surface, world, camera, grab):
        """A grab (game.physics.grab.Grab): a line from the held ball's centre to the grab point."""
        where = np.flatnonzero(world.ids == grab.ball_id)
        if len(where) == 0:
            return
        p, q = camera.world_to_screen(np.array([world.pos[where[0]], grab.point]))
        plot_segments(surface, p[None], q[None], SPRING_GRAB, width=2)
        pygame.draw.circle(surface, SPRING_GRAB, q.tolist(), 5, 2)

    def draw_trails(self, surface, world, camera, trails):
        """Each ball's last positions as a line in its colour, fading with age."""
        if world.count == 0:
            return
        paths = trails.paths(world.ids)
        frames = paths.shape[0]
        if frames < 2:
            return
        screen = camera.world_to_screen(paths)                      # (L, N, 2)
        colour = _PALETTE_ARRAY[np.asarray(world.ids) % len(PALETTE)]  # (N, 3)
        fade = (np.arange(1, frames) / (frames - 1) * 0.7)[:, None, None]   # old -> faint
        colours = _LEVEL_FILL_ARRAY + (colour[None, :, :] - _LEVEL_FILL_ARRAY) * fade
        plot_segments(surface, screen[:-1].reshape(-1, 2), screen[1:].reshape(-1, 2),
                      colours.reshape(-1, 3), width=2)


def shared_edges(statics):
    """(M,) bool: the polygon edges another polygon's edge runs along the other way (b to a):
    the cuts inside a non-convex polygon between its convex pieces."""
    poly = np.asarray(statics.polygon)
    out = np.zeros(len(poly), bool)
    k = np.flatnonzero(poly >= 0)
    if len(k) < 2:
        return out
    forward = {(tuple(a), tuple(b)): i for i, a, b in zip(k.tolist(), statics.a[k].tolist(), statics.b[k].tolist())}
    for i, a, b in zip(k.tolist(), statics.a[k].tolist(), statics.b[k].tolist()):
        j = forward.get((tuple(b), tuple(a)))
        if j is not None and poly[j] != poly[i]:
            out[i] = True
    return out


def number_goals(layer, world, camera):
    """Goals in order (a zone's "after"): each shows its place, 1, 2, ..., at its middle."""
    definitions = world.level.get("zones", []) if isinstance(getattr(world, "level", None), dict) else []
    if not any("after" in d for d in definitions) or len(definitions) != len(world.zones):
        return
    place = {}
    for k, d in enumerate(definitions):       # "after" names an earlier zone: one pass
        place[k] = place.get(d["after"], 0) + 1 if "after" in d else 1
    from game.draw.hud import load_font
    font = load_font(max(12, min(40, int(camera.scale * 0.9))), bold=True)
    for k, zone in enumerate(world.zones):
        outline = _zone_outline(zone)
        if zone.kind != "goal" or outline is None:
            continue
        centre = camera.world_to_screen(np.asarray(outline, float).mean(axis=0, keepdims=True))[0]
        if not np.isfinite(centre).all() or np.abs(centre).max() > 1e5:
            continue
        text = font.render(str(place[k]), True, ZONE_COLOURS["goal"])
        layer.blit(text, text.get_rect(center=(int(centre[0]), int(centre[1]))))


def _zone_outline(zone):
    """A polygon (K, 2) in metres that outlines a zone (params as game.physics.world.Zone holds them),
    or None if its shape is not known here."""
    params = zone.params
    try:
        if zone.shape == "rect":
            (x0, y0), (x1, y1) = np.asarray(params["lo"], float), np.asarray(params["hi"], float)
            return np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
        if zone.shape in ("circle", "ellipse"):
            center = np.asarray(params["center"], float)
            radii = (np.array([params["radius"]] * 2, float) if zone.shape == "circle"
                     else np.asarray(params["radii"], float))
            t = np.linspace(0.0, 2.0 * np.pi, 64, endpoint=False)
            return center + radii * np.stack([np.cos(t), np.sin(t)], axis=1)
        if zone.shape == "polygon":
            return np.asarray(params["points"], float)
    except (KeyError, TypeError, ValueError):
        return None
    return None


def _raster_zone(tint, zone, camera, rgba, step=4):
    """Fallback for zone shapes this module does not know: sample zone.contains on the screen."""
    width, height = tint.get_size()
    xs = np.arange(step // 2, width, step)
    ys = np.arange(step // 2, height, step)
    grid = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
    inside = np.asarray(zone.contains(camera.screen_to_world(grid)), dtype=bool)
    for sx, sy in grid[inside].tolist():
        tint.fill(rgba, (sx - step // 2, sy - step // 2, step, step))
