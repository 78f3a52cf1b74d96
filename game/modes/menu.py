"""The level menu (L): a grid of the levels with a rendered thumbnail, number and name, a
tick on the ones completed; arrows or the mouse choose, Enter or a click opens one.

A thumbnail never holds the frame: its level is read and built on a worker thread
(``thumbnail_world``: a 16 MiB file takes seconds to read), and the drawing on the main
thread is bounded (past THUMB_BALLS balls, the balls are dots, a pixel each)."""
import os
import threading

import numpy as np
import pygame

from game.draw.camera import Camera
from game.level import LevelError, load
from game.modes.base import Mode
from game.draw.renderer import PALETTE, Renderer
from game.physics.world import World

THUMB_SIZE = (256, 144)      # px of a thumbnail (16:9, as the window)
THUMB_BALLS = 2_000          # balls a thumbnail draws as discs at most; more are drawn as dots
THUMB_WAIT = 0.02            # s a frame waits for the thumbnail being read (a small level: at once)
GAP = 18                     # px between cells
CAPTION = 40                 # px under a thumbnail for its number and name
BACKDROP = (12, 14, 20)
SELECTED = (255, 210, 90)
DONE = (90, 220, 120)
BROKEN = (235, 90, 90)


def thumbnail_world(path):
    """(World as the level starts, (N, 2) metres of the balls to draw as dots or None, its
    name): the part of a thumbnail that reads the file, without pygame (a worker thread's).
    A level of more than THUMB_BALLS balls comes without them (and their springs): their
    centres are the dots. Raises LevelError for a file that does not load."""
    level = load(path)
    dots = None
    if len(level["balls"]) > THUMB_BALLS:
        dots = np.array([b["pos"] for b in level["balls"]], float).reshape(-1, 2)
        level = dict(level, balls=[], springs=[])
    world = World.from_level(level, execution="numpy")     # drawn, never stepped
    return world, dots, world.name or os.path.basename(path)


def draw_thumbnail(world, dots, size=THUMB_SIZE):
    """A Surface of ``size`` px with ``world`` drawn (at most THUMB_BALLS discs) and ``dots``
    (N, 2) metres as one pixel each: bounded work whatever the level holds."""
    camera = Camera(size)
    camera.fit(world.bounds, margin=0.03)
    surface = pygame.Surface(size)
    Renderer().draw(surface, world, camera)
    if dots is not None and len(dots):
        px = np.floor(camera.world_to_screen(dots)).astype(np.int64)
        inside = (px[:, 0] >= 0) & (px[:, 0] < size[0]) & (px[:, 1] >= 0) & (px[:, 1] < size[1])
        pixels = pygame.surfarray.pixels3d(surface)
        pixels[px[inside, 0], px[inside, 1]] = PALETTE[0]
        del pixels                   # unlocks the surface
    return surface


def thumbnail(path, size=THUMB_SIZE):
    """(Surface of ``size`` px with the level at ``path`` drawn as it starts, its name);
    raises LevelError for a file that does not load."""
    world, dots, name = thumbnail_world(path)
    return draw_thumbnail(world, dots, size), name


class _Reader(threading.Thread):
    """thumbnail_world(path) off the frame: ``result`` is its answer, or the LevelError or
    other error it raised (then the cell says the level does not load)."""

    def __init__(self, path):
        super().__init__(daemon=True, name="thumbnail")
        self.path, self.result = path, None

    def run(self):
        try:
            self.result = thumbnail_world(self.path)
        except Exception as e:          # noqa: BLE001 - any file: a cell that says so, never a crash
            self.result = e


class LevelMenuMode(Mode):
    """Every level file of the app's folder in a grid. Thumbnails are read one at a time on a
    worker thread and drawn when ready, so the menu opens at once and never waits for a big
    level; they are kept while it lives."""
    opaque = True
    pauses_below = True

    def __init__(self, app):
        super().__init__(app)
        self.files = app.level_files()
        here = os.path.realpath(app.session.path)
        real = [os.path.realpath(p) for p in self.files]
        self.selected = real.index(here) if here in real else 0
        self.thumbs = {}             # path -> (Surface, level name), or (None, file name)
        self._reader = None          # the _Reader of the thumbnail being read, if any

    # ---- layout ------------------------------------------------------------------------------
    def columns(self):
        width = self.app.size[0]
        return max(1, min(len(self.files), (width - GAP) // (THUMB_SIZE[0] + GAP), 4))

    def cell_rect(self, k):
        columns = self.columns()
        rows = -(-len(self.files) // columns)
        width, height = self.app.size
        cell_w, cell_h = THUMB_SIZE[0] + GAP, THUMB_SIZE[1] + CAPTION + GAP
        left = (width - columns * cell_w + GAP) // 2
        top = max(70, (height - rows * cell_h) // 2)
        return pygame.Rect(left + (k % columns) * cell_w, top + (k // columns) * cell_h,
                           THUMB_SIZE[0], THUMB_SIZE[1] + CAPTION)

    def hit(self, pos):
        """Index of the level under a screen point, -1 if none."""
        return next((k for k in range(len(self.files)) if self.cell_rect(k).collidepoint(pos)), -1)

    # ---- input -------------------------------------------------------------------------------
    def handle_event(self, event):
        if event.type == pygame.KEYDOWN:
            key, columns, count = event.key, self.columns(), len(self.files)
            if key in (pygame.K_ESCAPE, pygame.K_l):
                self.app.pop()
            elif key in (pygame.K_RETURN, pygame.K_KP_ENTER, pygame.K_SPACE):
                self.open(self.selected)
            elif count and key in (pygame.K_RIGHT, pygame.K_LEFT, pygame.K_DOWN, pygame.K_UP):
                step = {pygame.K_RIGHT: 1, pygame.K_LEFT: -1, pygame.K_DOWN: columns, pygame.K_UP: -columns}[key]
                self.selected = min(max(self.selected + step, 0), count - 1)
        elif event.type == pygame.MOUSEMOTION:
            k = self.hit(event.pos)
            if k >= 0:
                self.selected = k
        elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            k = self.hit(event.pos)
            if k >= 0:
                self.open(k)
        return True

    def open(self, k):
        """Play level k; the menu closes (a broken file shows its error in the game)."""
        if not 0 <= k < len(self.files):
            return
        app = self.app
        app.pop()
        if app.session.open(self.files[k]):
            app.toast(app.session.name)

    # ---- drawing -----------------------------------------------------------------------------
    def update(self, frame_dt):
        """Start reading the next thumbnail, or take the one read (waiting THUMB_WAIT s at
        most: a small level shows in the frame it was asked for)."""
        reader = self._reader
        if reader is None:
            path = next((p for p in self.files if p not in self.thumbs), None)
            if path is None:
                return
            reader = self._reader = _Reader(path)
            reader.start()
        reader.join(THUMB_WAIT)
        if reader.is_alive():
            return
        self._reader = None
        result = reader.result
        if isinstance(result, tuple):
            world, dots, name = result
            try:
                self.thumbs[reader.path] = (draw_thumbnail(world, dots), name)
                return
            except Exception:           # noqa: BLE001 - a level the drawing cannot take: said in its cell
                pass
        self.thumbs[reader.path] = (None, os.path.basename(reader.path))

    def wait_for_thumbnails(self, timeout=30.0):
        """Read and draw every thumbnail now (for tests and tools)."""
        import time
        end = time.monotonic() + timeout
        while any(p not in self.thumbs for p in self.files) and time.monotonic() < end:
            self.update(0.0)

    def draw(self, surface):
        hud = self.app.hud
        surface.fill(BACKDROP)
        title = hud.text("Levels", 23, (232, 236, 244), bold=True)
        surface.blit(title, (GAP, 18))
        hint = hud.text("arrows or mouse choose    Enter or click plays    Esc closes", 13, (188, 195, 212))
        surface.blit(hint, (GAP + title.get_width() + 24, 18 + title.get_height() - hint.get_height() - 3))
        done = self.app.play.completed
        for k, path in enumerate(self.files):
            rect = self.cell_rect(k)
            thumb, name = self.thumbs.get(path, (None, os.path.basename(path)))
            box = pygame.Rect(rect.topleft, THUMB_SIZE)
            if thumb is not None:
                surface.blit(thumb, box)
            else:
                pygame.draw.rect(surface, (30, 34, 46), box)
                if path in self.thumbs:
                    surface.blit(hud.text("does not load", 13, BROKEN), (box.x + 8, box.y + 8))
            pygame.draw.rect(surface, SELECTED if k == self.selected else (60, 66, 84), box, 3 if k == self.selected else 1)
            label = hud.text(f"{k + 1}  {name}", 15, SELECTED if k == self.selected else (232, 236, 244), bold=True)
            surface.blit(label, (rect.x + 2, box.bottom + 6))
            if os.path.realpath(path) in done:
                tick = hud.text("complete", 13, DONE, bold=True)
                surface.blit(tick, (box.right - tick.get_width() - 6, box.bottom - tick.get_height() - 4))

