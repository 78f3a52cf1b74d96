"""Walls that move or act, drawn each frame where they are: moving walls (rotors, sliders,
flippers: world.statics.moving), conveyors' chevrons running along their surface at its speed
(world.statics.surface_speed), pinball bumpers (world.statics.kick) that flash when a ball is
kicked off them, and the debug layer's arrows of a wall's velocity at its contacts.

The renderer keeps the still statics in its cached layer; what is here is drawn over it every
frame from the statics' current ends (``statics.a``, ``statics.b``, ``world.polygons``). Reads
the world, never writes it."""
import numpy as np
import pygame

from game.physics import motion

from game.draw.plot import clip_convex, clip_segments, plot_points, plot_segments, shade
from game.draw.theme import (BUMPER, BUMPER_FLASH, CAPSULE_FILL, CONVEYOR, FLIPPER, MOVING_WALL, PIN, SURFACE_COLOURS,
                             BACKGROUND, WALL, WALL_VELOCITY)

BIG_DISC = 2000             # px: discs this big are drawn without anti-aliasing (aacircle is slow there)
CHEVRON_SPACING = 26        # px between a conveyor's chevrons along its surface
CHEVRON_SIZE = 6            # px: a chevron's half width
MAX_CHEVRONS = 4000         # chevrons drawn a frame at most (a deep zoom along a long belt)
FLASH_FRAMES = 12           # frames a bumper glows after it kicked a ball
FLASH_REACH = 0.1           # m beyond touching (plus a tick's travel) a kicked ball may be
CONTACT_SLOP = 0.02         # of a radius: a ball this near a wall is at a contact (debug arrows)
VELOCITY_SECONDS = 0.1      # a wall's velocity arrow reaches where its point will be in this many s
TICK_S = 1.0 / 60.0         # s: a kicked ball moves this long between two ticks


def wall_arrays(statics):
    """(moving (M,) bool, surface speed (M,) m/s along a -> b, kick (M,) m/s) of the statics
    (game.physics.collide.Statics: ``moving``, ``surface``, ``kick``); zeros where the statics
    carry none."""
    m = len(statics.radius)
    moving = np.asarray(getattr(statics, "moving", np.zeros(m, bool)), bool).reshape(-1)
    speed = getattr(statics, "surface_speed", None)
    speed = np.asarray(getattr(statics, "surface", np.zeros(m)) if speed is None else speed, float).reshape(-1)
    kick = np.asarray(getattr(statics, "kick", np.zeros(m)), float).reshape(-1)
    if len(moving) != m or len(speed) != m or len(kick) != m:
        return np.zeros(m, bool), np.zeros(m), np.zeros(m)
    return moving, speed, kick


def per_frame(statics):
    """(M,) bool: the statics drawn every frame (moving ones and bumpers), not in the cached layer."""
    moving, _, kick = wall_arrays(statics)
    return moving | (kick > 0)


def motion_kinds(world):
    """((M,) bool: the statics that are flippers, (M, 2) m: the pivot each turns about, nan for
    those that do not turn (sliders, still ones)), from the world's motions
    (game.physics.motion.Motions: ``kind``, ``pivot`` per capsule)."""
    m = len(world.statics.radius)
    motions = getattr(world, "motions", None)
    if motions is None or len(motions) != m:
        return np.zeros(m, bool), np.full((m, 2), np.nan)
    kind = np.asarray(motions.kind)
    turns = (kind == motion.ROTATE) | (kind == motion.FLIPPER)
    return kind == motion.FLIPPER, np.where(turns[:, None], np.asarray(motions.pivot, float), np.nan)


def draw_capsules(surface, statics, camera, drawn, fill=CAPSULE_FILL, line=WALL, thin_width=2):
    """Walls (radius 0) as ``thin_width`` px lines; stadiums as a filled band with round ends;
    pegs as discs. drawn: (M,) bool, the capsules to draw."""
    if len(statics.radius) == 0 or not np.any(drawn):
        return
    size = surface.get_size()
    r = np.asarray(statics.radius, float) * camera.scale
    a, b, a_kept, b_kept, shown = clip_segments(camera.world_to_screen(statics.a),
                                                 camera.world_to_screen(statics.b), size, r + 2)
    shown = shown & drawn
    for (ax, ay), (bx, by), rad, cap_a, cap_b in zip(a[shown].tolist(), b[shown].tolist(), r[shown].tolist(),
                                                      a_kept[shown].tolist(), b_kept[shown].tolist()):
        if rad < 1.0:
            # A thin wall: two pixels wide so it reads at any zoom.
            pygame.draw.aaline(surface, line, (ax, ay), (bx, by), thin_width)
            continue
        dx, dy = bx - ax, by - ay
        length = (dx * dx + dy * dy) ** 0.5
        if length > 0.5:
            nx, ny = -dy / length * rad, dx / length * rad
            quad = [(ax + nx, ay + ny), (bx + nx, by + ny), (bx - nx, by - ny), (ax - nx, ay - ny)]
            pygame.draw.polygon(surface, fill, quad)
            pygame.draw.aaline(surface, fill, quad[0], quad[1])
            pygame.draw.aaline(surface, fill, quad[2], quad[3])
        # Round ends, only where the segment really ends (not where the screen cut it).
        disc = pygame.draw.aacircle if rad < BIG_DISC else pygame.draw.circle
        if cap_a:
            disc(surface, fill, (ax, ay), rad)
        if cap_b and length > 0.5:
            disc(surface, fill, (bx, by), rad)


class WallLayer:
    """Draws the walls that move or act, each frame; holds only the bumpers' flashes and the
    motion kinds of the statics it last saw."""

    def __init__(self):
        self._kicks = (None, 0)      # (the world's level, world.kicks) at the last frame
        self._flash = {}             # static index -> frames its flash has left
        self._kinds = (None, None)   # ((level, statics, count), motion_kinds of them)

    def kinds(self, world):
        key = (id(world.level), id(world.statics.radius), len(world.statics.radius))   # as the renderer's
        if self._kinds[0] != key:     # the statics were built again (a drawn segment, a new level)
            self._kinds = (key, motion_kinds(world))
        return self._kinds[1]

    def draw(self, surface, world, camera):
        statics = world.statics
        if len(statics.radius) == 0:
            return
        moving, speed, kick = wall_arrays(statics)
        if not (moving.any() or (speed != 0).any() or (kick > 0).any()):
            return
        self._draw_conveyors(surface, world, camera, speed)
        if moving.any():
            flipper, pivots = self.kinds(world)
            self._draw_polygons(surface, world, camera, moving & ~flipper, MOVING_WALL)
            self._draw_polygons(surface, world, camera, moving & flipper, FLIPPER)
            plain = moving & ~flipper & (kick <= 0)
            made_of = np.asarray(getattr(statics, "made_of", np.zeros(len(plain), np.int64))).reshape(-1)
            if len(made_of) != len(plain):
                made_of = np.zeros(len(plain), np.int64)
            draw_capsules(surface, statics, camera, plain & (made_of == 0), fill=shade(MOVING_WALL, 0.7),
                          line=MOVING_WALL, thin_width=3)
            for made, colour in SURFACE_COLOURS.items():     # a moving wall of ice, rubber or lava: its colour
                draw_capsules(surface, statics, camera, plain & (made_of == made), fill=colour, line=colour, thin_width=3)
            draw_capsules(surface, statics, camera, flipper & (kick <= 0), fill=FLIPPER, line=FLIPPER, thin_width=4)
            self._draw_pivots(surface, camera, pivots[moving])
        if (kick > 0).any():
            self._draw_bumpers(surface, world, camera, kick)

    # ---- conveyors --------------------------------------------------------------------------
    def _draw_conveyors(self, surface, world, camera, speed):
        """Chevrons on each conveyor (surface_speed != 0), pointing the way its surface runs
        (a -> b for a positive speed) and running along it at its speed on screen (world time:
        paused, they stop). Along a stadium they sit on its top face (the side its left
        normal points to) and on its bottom face; along a thin wall, on it."""
        statics = world.statics
        belt = np.flatnonzero(speed != 0)
        if len(belt) == 0:
            return
        a, b = np.asarray(statics.a, float)[belt], np.asarray(statics.b, float)[belt]
        r = np.asarray(statics.radius, float)[belt]
        d = b - a
        length = np.hypot(d[:, 0], d[:, 1])
        ok = length > 0
        belt, a, d, r, length, s = belt[ok], a[ok], d[ok], r[ok], length[ok], speed[belt][ok]
        if len(belt) == 0:
            return
        u = d / length[:, None]
        n = np.stack((-u[:, 1], u[:, 0]), axis=1)
        spacing = CHEVRON_SPACING / camera.scale                       # m
        phase = np.mod(world.time * s, spacing)                         # m the pattern has run
        tips, backs_l, backs_r = [], [], []
        budget = MAX_CHEVRONS
        for k in range(len(belt)):
            count = int(length[k] / spacing)
            if count < 1 or budget <= 0:
                continue
            count = min(count, budget)
            budget -= count
            t = np.mod(phase[k] + spacing * np.arange(count), count * spacing) + (length[k] - count * spacing) / 2
            direction = np.sign(s[k]) * u[k]
            size = CHEVRON_SIZE / camera.scale
            for side in ((1.0, -1.0) if r[k] * camera.scale >= 3 else (0.0,)):
                centre = a[k] + t[:, None] * u[k] + side * max(r[k] - 0.6 * size, 0.0) * n[k]
                tip = centre + 0.5 * size * direction
                back = centre - 0.5 * size * direction
                tips.append(tip)
                backs_l.append(back + 0.8 * size * n[k])
                backs_r.append(back - 0.8 * size * n[k])
        if not tips:
            return
        tip = camera.world_to_screen(np.concatenate(tips))
        plot_segments(surface, camera.world_to_screen(np.concatenate(backs_l)), tip, CONVEYOR, width=2)
        plot_segments(surface, camera.world_to_screen(np.concatenate(backs_r)), tip, CONVEYOR, width=2)

    # ---- moving walls -----------------------------------------------------------------------
    @staticmethod
    def _draw_polygons(surface, world, camera, which, colour):
        """The moving polygons among ``which`` statics, filled where they are now."""
        polygon = np.asarray(world.statics.polygon)
        size = surface.get_size()
        for p in np.unique(polygon[which & (polygon >= 0)]).tolist():
            if p >= len(world.polygons):
                continue
            pts = clip_convex(camera.world_to_screen(np.asarray(world.polygons[p], float)), size)
            if len(pts) >= 3:
                pygame.draw.polygon(surface, shade(colour, 0.6), pts)
                pygame.draw.lines(surface, colour, True, pts, 2)

    @staticmethod
    def _draw_pivots(surface, camera, pivots):
        """A pin at each pivot a wall turns about (rotors and flippers)."""
        pivots = pivots[np.isfinite(pivots).all(axis=1)]
        if len(pivots) == 0:
            return
        for x, y in np.unique(camera.world_to_screen(np.unique(pivots, axis=0)), axis=0).tolist():
            pygame.draw.circle(surface, PIN, (x, y), 5)
            pygame.draw.circle(surface, BACKGROUND, (x, y), 2)

    # ---- bumpers ------------------------------------------------------------------------------
    def _draw_bumpers(self, surface, world, camera, kick):
        """Bumpers (kick > 0): a ring with a light core; a thin kicking wall (a slingshot) as
        a thick bar. A bumper glows for FLASH_FRAMES frames after it kicked a ball."""
        self._update_flashes(world, kick)
        statics = world.statics
        bumper = kick > 0
        lit = np.zeros(len(kick), bool)
        lit[[k for k in self._flash if k < len(kick)]] = True
        for which, colour in ((bumper & ~lit, BUMPER), (bumper & lit, BUMPER_FLASH)):
            if not which.any():
                continue
            self._draw_polygons(surface, world, camera, which, colour)
            draw_capsules(surface, statics, camera, which, fill=colour, line=colour, thin_width=5)
            # A light core: the capsule again, thinner (pegs and stadiums of a few px and more).
            core = which & (np.asarray(statics.radius) * camera.scale >= 6)
            if core.any():
                inner = _Shrunk(statics, 0.55)
                draw_capsules(surface, inner, camera, core, fill=shade(colour, 1.5), line=colour)
        self._age_flashes()

    def _update_flashes(self, world, kick):
        """A rise in world.kicks since the last frame lights the bumpers a ball is at (within
        touching, FLASH_REACH and a tick's travel of it)."""
        kicks = int(getattr(world, "kicks", 0))
        level, seen = self._kicks
        self._kicks = (world.level, kicks)
        if level is not world.level or kicks <= seen or world.count == 0:
            if level is not world.level:
                self._flash = {}
            return
        for k in np.flatnonzero(kick > 0).tolist():
            gap = _distance_to_capsule(world, k)
            reach = FLASH_REACH + np.hypot(*np.asarray(world.vel, float).T) * TICK_S
            if np.any(gap <= reach):
                self._flash[k] = FLASH_FRAMES

    def _age_flashes(self):
        self._flash = {k: left - 1 for k, left in self._flash.items() if left > 1}


class _Shrunk:
    """The statics' ends and polygons with radii times ``factor`` (a bumper's light core)."""

    def __init__(self, statics, factor):
        self.a, self.b, self.polygon = statics.a, statics.b, statics.polygon
        self.radius = np.asarray(statics.radius, float) * factor


def _distance_to_capsule(world, k):
    """(N,) m: each ball's gap to static k's surface (negative: overlapping)."""
    a, b = np.asarray(world.statics.a[k], float), np.asarray(world.statics.b[k], float)
    p = np.asarray(world.pos, float)
    d = b - a
    t = np.clip(((p - a) @ d) / max(float(d @ d), 1e-300), 0.0, 1.0)
    closest = a + t[:, None] * d
    return np.hypot(*(p - closest).T) - np.asarray(world.radius, float) - float(world.statics.radius[k])


def wall_contacts(world, slop=CONTACT_SLOP):
    """(static indices (K,), points (K, 2) m): where balls touch the walls that move or run
    (moving or with a surface speed), within ``slop`` of the ball's radius: the touch point
    on the wall's surface."""
    statics = world.statics
    moving, speed, _ = wall_arrays(statics)
    walls = np.flatnonzero(moving | (speed != 0))
    if len(walls) == 0 or world.count == 0:
        return np.zeros(0, np.int64), np.zeros((0, 2))
    p = np.asarray(world.pos, float)
    radius = np.asarray(world.radius, float)
    a, b = np.asarray(statics.a, float)[walls], np.asarray(statics.b, float)[walls]
    d = b - a
    t = np.clip(np.einsum("nkj,kj->nk", p[:, None, :] - a[None], d) / np.maximum(np.einsum("kj,kj->k", d, d), 1e-300),
                0.0, 1.0)                                                            # (N, K)
    closest = a[None] + t[..., None] * d[None]
    gap = np.hypot(*(p[:, None, :] - closest).transpose(2, 0, 1)) - radius[:, None] - np.asarray(statics.radius)[walls]
    ball, wall = np.nonzero(gap <= slop * radius[:, None])
    if len(ball) == 0:
        return np.zeros(0, np.int64), np.zeros((0, 2))
    towards = p[ball] - closest[ball, wall]
    dist = np.maximum(np.hypot(*towards.T), 1e-12)
    points = closest[ball, wall] + towards / dist[:, None] * np.asarray(statics.radius)[walls][wall][:, None]
    return walls[wall], points


def draw_wall_velocities(surface, world, camera):
    """Debug: at each point where a ball touches a moving wall or a conveyor, an arrow of the
    wall's velocity there (world.wall_velocity, surface speed included), as far as the point
    moves in VELOCITY_SECONDS."""
    index, points = wall_contacts(world)
    if len(index) == 0 or not hasattr(world, "wall_velocity"):
        return
    velocity = np.asarray(world.wall_velocity(index, points), float).reshape(-1, 2)
    s0 = camera.world_to_screen(points)
    s1 = camera.world_to_screen(points + velocity * VELOCITY_SECONDS)
    plot_segments(surface, s0, s1, WALL_VELOCITY, width=2)
    # The arrow's head: two short strokes back from the tip.
    direction = s1 - s0
    length = np.hypot(*direction.T)
    long_enough = length > 4
    if long_enough.any():
        u = direction[long_enough] / length[long_enough, None]
        n = np.stack((-u[:, 1], u[:, 0]), axis=1)
        tip = s1[long_enough]
        for side in (1.0, -1.0):
            plot_segments(surface, tip, tip - 6 * u + side * 4 * n, WALL_VELOCITY, width=2)
    plot_points(surface, s0, WALL_VELOCITY, size=3)
