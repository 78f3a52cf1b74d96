"""The debug layers drawn over the world (D cycles them): the last sub-step's contacts and
offset vectors (and the bodies' manifold points and normals), velocities, swept paths with
their time-of-impact points, the broad-phase grid, the solver's options, the sleeping balls
and bodies, and the bodies' frames. Reads the world, never writes it."""
from itertools import repeat

import numpy as np
import pygame

from game.draw.bodies import draw_body_contacts, draw_body_frames, draw_body_velocities, draw_sleeping_bodies
from game.draw.hud import load_font
from game.draw.plot import blit_many, plot_points, plot_segments, shade
from game.draw.theme import (BROAD_CELL, BROAD_GRID, CONTACT, OFFSET, SLEEPING, SOLVER_TEXT, SWEPT,
                             SWEPT_HIT, TEXT_PANEL, VELOCITY)


VELOCITY_SECONDS = 0.1      # a velocity arrow is where the ball will be in this many seconds
OFFSET_GAIN = 40.0          # offset vectors (mm deep) are drawn this many times longer

DEBUG_LAYERS = ("contacts", "velocities", "swept", "grid")


class DebugLayers:
    """Draws the debug layers; holds only caches (the grid's cell tile, the solver line's font)."""

    def __init__(self):
        self._tile = None            # the broad-phase grid's translucent cell tile
        self._font = None            # the debug layer's solver line

    def draw_solver_options(self, surface, world, right=None):
        """The contact solver's switches (world.solver.options) and execution, one line at the
        bottom right (debug layers), ending at ``right`` px where given (the energy plot's
        column takes the right of the window)."""
        if self._font is None:
            self._font = load_font(12)
        line = f"{world.solver.execution} solver: {world.solver.options.describe()}"
        width, height = surface.get_size()
        end = width - 10 if right is None else min(width - 10, int(right))
        # Wrapped at its double spaces (between two switches) where it would not fit, the
        # last line where the one line was, the others above it, right-aligned.
        lines = [""]
        for part in line.split("  "):
            joined = f"{lines[-1]}  {part}" if lines[-1] else part
            if lines[-1] and self._font.size(joined)[0] > end - 15:
                lines.append(part)
            else:
                lines[-1] = joined
        texts = [self._font.render(t, True, SOLVER_TEXT) for t in lines]
        y = height - 30 - sum(t.get_height() for t in texts)
        spots = []
        for text in texts:
            spots.append((max(10, end - 5 - text.get_width()), y))      # its panel ends at end
            y += text.get_height()
        # On one translucent panel: the world panned under it must not make it unreadable.
        box = texts[0].get_rect(topleft=spots[0]).unionall(
            [t.get_rect(topleft=p) for t, p in zip(texts, spots)]).inflate(10, 4)
        panel = pygame.Surface(box.size, pygame.SRCALPHA)
        panel.fill(TEXT_PANEL)
        surface.blit(panel, box.topleft)
        for text, spot in zip(texts, spots):
            surface.blit(text, spot)

    def draw_sleeping(self, surface, world, camera):
        """Sleeping balls (world.sleeping, game.physics.sleep) and bodies: a dark dot at each centre."""
        asleep = np.asarray(world.sleeping, bool)
        if asleep.any():
            plot_points(surface, camera.world_to_screen(np.asarray(world.pos)[asleep]), SLEEPING, size=5)
        draw_sleeping_bodies(surface, world, camera)

    @staticmethod
    def draw_body_frames(surface, world, camera):
        """Each body's frame at its centre of mass (game.draw.bodies.draw_body_frames)."""
        draw_body_frames(surface, world, camera)

    def draw_velocities(self, surface, world, camera):
        draw_body_velocities(surface, world, camera)
        if world.count == 0:
            return
        pos = np.asarray(world.pos)
        plot_segments(surface, camera.world_to_screen(pos),
                      camera.world_to_screen(pos + np.asarray(world.vel) * VELOCITY_SECONDS), VELOCITY)

    def draw_contacts(self, surface, world, camera):
        """The last sub-step's contacts (a yellow dot at the touch point, the offset vector
        in magenta), and the sleeping balls' contacts the same way, dimmed (the tick leaves
        them out: without these a pile at rest would show none)."""
        sleeping = getattr(world, "sleeping_contacts", None)
        if sleeping is not None:
            points, offsets = sleeping()
            self._draw_contacts(surface, camera, points, offsets, shade(CONTACT, 0.45), shade(OFFSET, 0.45))
        self._draw_contacts(surface, camera, world.contact_points, world.contact_offsets, CONTACT, OFFSET)
        draw_body_contacts(surface, world, camera)

    def _draw_contacts(self, surface, camera, points, offsets, contact_colour, offset_colour):
        points = np.asarray(points, dtype=float).reshape(-1, 2)
        if len(points) == 0:
            return
        offsets = np.asarray(offsets, dtype=float).reshape(-1, 2)
        s0 = camera.world_to_screen(points)
        # Offsets are millimetres deep: draw them OFFSET_GAIN times longer, 6 to 60 px.
        direction = offsets * np.array((1.0, -1.0)) * camera.scale * OFFSET_GAIN
        length = np.linalg.norm(direction, axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            direction = np.where(length > 0, direction / length * np.clip(length, 6.0, 60.0), 0.0)
        plot_segments(surface, s0, s0 + direction, offset_colour, width=2)
        plot_points(surface, s0, contact_colour, size=3)

    def draw_swept(self, surface, world, camera):
        """Swept balls: the move tested (start dot, line) and the time-of-impact point (cross)."""
        starts = np.asarray(world.swept_from, dtype=float).reshape(-1, 2)
        if len(starts) == 0:
            return
        s0 = camera.world_to_screen(starts)
        s1 = camera.world_to_screen(np.asarray(world.swept_to, dtype=float).reshape(-1, 2))
        plot_segments(surface, s0, s1, SWEPT)
        plot_points(surface, s0, SWEPT, size=3)
        hits = camera.world_to_screen(np.asarray(world.swept_hit, dtype=float).reshape(-1, 2))
        hits = hits[np.isfinite(hits).all(axis=1)]
        for d in ((4, 4), (4, -4)):
            plot_segments(surface, hits - d, hits + d, SWEPT_HIT, width=2)

    def draw_broad_grid(self, surface, world, camera):
        """The broad-phase grid: its lines where they are 4 px apart or more, and the cells
        that hold a ball's centre tinted (one translucent tile blitted per cell)."""
        cell = float(world.grid_cell)
        if not (cell > 0.0 and np.isfinite(cell)):
            return
        origin = np.asarray(world.grid_origin, dtype=float)
        width_px, height_px = surface.get_size()
        cell_px = cell * camera.scale
        tile_px = int(np.ceil(cell_px))
        if world.count and tile_px <= max(width_px, height_px):
            pos = np.asarray(world.pos)
            index = np.floor((pos[np.isfinite(pos).all(axis=1)] - origin) / cell).astype(np.int64)
            index = np.clip(index, -2**30, 2**30) + 2**30                 # 0 .. 2^31: packs in 64 bits
            packed = np.unique((index[:, 0] << 32) | index[:, 1])        # 1-D unique: fast
            cells = np.stack((packed >> 32, packed & 0xFFFFFFFF), axis=1) - 2**30
            corners = np.rint(camera.world_to_screen(origin + cells * cell)).astype(np.int64)
            left, top = corners[:, 0], corners[:, 1] - tile_px          # corner is bottom-left
            shown = (left + tile_px >= 0) & (left < width_px) & (top + tile_px >= 0) & (top < height_px)
            if self._tile is None or self._tile.get_width() != tile_px:
                self._tile = pygame.Surface((tile_px, tile_px), pygame.SRCALPHA)
                self._tile.fill(BROAD_CELL)
            tile = self._tile
            blit_many(surface, zip(repeat(tile), np.stack((left[shown], top[shown]), axis=1).tolist()))
        if cell_px >= 4:
            x0, y0, x1, y1 = camera.visible_rect()
            columns = origin[0] + cell * np.arange(np.floor((x0 - origin[0]) / cell), np.ceil((x1 - origin[0]) / cell) + 1)
            rows = origin[1] + cell * np.arange(np.floor((y0 - origin[1]) / cell), np.ceil((y1 - origin[1]) / cell) + 1)
            for sx in camera.world_to_screen(np.stack((columns, np.zeros_like(columns)), axis=1))[:, 0].tolist():
                pygame.draw.line(surface, BROAD_GRID, (sx, 0), (sx, height_px))
            for sy in camera.world_to_screen(np.stack((np.zeros_like(rows), rows), axis=1))[:, 1].tolist():
                pygame.draw.line(surface, BROAD_GRID, (0, sy), (width_px, sy))

