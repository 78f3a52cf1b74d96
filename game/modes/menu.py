"""The level menu (L): the shipped levels, then the player's own ("my levels": snapshots and
levels made in the editor, kept in the player's data folder), each a tile with a rendered
thumbnail, number and name (cut with "..." to its tile), its stars against the level's par
and the best time. Arrows, Page Up/Down, Home/End or the mouse choose; the wheel scrolls;
the selected tile is always kept on screen; N selects the next level with a goal not yet
completed; Enter or a click opens one.

A thumbnail never holds the frame: its level is read and built on a worker thread
(``thumbnail_world``: a 16 MiB file takes seconds to read), and the drawing on the main
thread is bounded (past THUMB_BALLS balls, the balls are dots, a pixel each)."""
import math
import os
import threading
import time

import numpy as np
import pygame

from game.app.progress import my_levels_dir, next_unsolved, stars
from game.draw.camera import Camera
from game.draw.hud import _fit
from game.draw.renderer import Renderer
from game.draw.theme import (ACCENT, MENU_BACKDROP, MENU_BROKEN, MENU_DONE, MENU_HEADING, PALETTE, PANEL_EDGE,
                             STAR_OFF, SUNKEN, TEXT, TEXT_DIM)
from game.level import level_files, load
from game.modes.base import Mode
from game.physics.world import World

THUMB_SIZE = (256, 144)      # px of a thumbnail (16:9, as the window)
THUMB_BALLS = 2_000          # balls a thumbnail draws as discs at most; more are drawn as dots
THUMB_WAIT = 0.02            # s a frame waits for the thumbnail being read (a small level: at once)
GAP = 18                     # px between cells
CAPTION = 40                 # px under a thumbnail for its number and name
HEADER = 34                  # px of a group's heading ("My levels")
TOP = 64                     # px: the title row above the scrolled tiles
SCROLL_STEP = 60             # px a wheel notch scrolls
GROUPS = ("Levels", "My levels")


def file_number(path):
    """The level's number as its file gives it: the leading digits of the file name, as an
    int ("20_pendulum_clock.json": 20), or None for a file name that starts otherwise. The
    menu and the HUD show this number, so they agree with the files and the README."""
    digits = ""
    for ch in os.path.basename(path):
        if not ch.isdigit() or not ch.isascii():
            break
        digits += ch
    return int(digits) if digits else None


def every_level(app):
    """(the shipped levels, the player's own not among them): the menu's two groups, in order."""
    shipped = app.level_files()
    try:
        mine = level_files(my_levels_dir())
    except OSError:
        mine = []
    real_shipped = {os.path.realpath(p) for p in shipped}
    return shipped, [p for p in mine if os.path.realpath(p) not in real_shipped]


def has_goal(world):
    """Whether the level has a goal to complete (else it earns no stars: none are drawn)."""
    return any(zone.kind == "goal" for zone in world.zones)


def thumbnail_world(path):
    """(World as the level starts, (N, 2) metres of the balls to draw as dots or None, its
    name, its par): the part of a thumbnail that reads the file, without pygame (a worker thread's).
    A level of more than THUMB_BALLS balls comes without them (and their springs): their
    centres are the dots. Raises LevelError for a file that does not load."""
    level = load(path)
    dots = None
    if len(level["balls"]) > THUMB_BALLS:
        dots = np.array([b["pos"] for b in level["balls"]], float).reshape(-1, 2)
        level = dict(level, balls=[], springs=[])
    world = World.from_level(level, execution="numpy")     # drawn, never stepped
    return world, dots, world.name or os.path.basename(path), level.get("par", {})


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
    """(Surface of ``size`` px with the level at ``path`` drawn as it starts, its name, its
    par); raises LevelError for a file that does not load."""
    world, dots, name, par = thumbnail_world(path)
    return draw_thumbnail(world, dots, size), name, par


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


def star_points(center, radius):
    """The 10 corners of a five-pointed star (px), point up."""
    cx, cy = center
    return [(cx + (radius if k % 2 == 0 else radius * 0.45) * math.sin(k * math.pi / 5),
             cy - (radius if k % 2 == 0 else radius * 0.45) * math.cos(k * math.pi / 5)) for k in range(10)]


class LevelMenuMode(Mode):
    """Every level in tiles, grouped. Thumbnails are drawn one a frame, so the menu opens at
    once; they are kept (by file) while it lives. ``files``: the levels in the order shown;
    ``groups``: each one's group (an index into GROUPS)."""
    opaque = True
    pauses_below = True

    def __init__(self, app):
        super().__init__(app)
        shipped, mine = every_level(app)
        self.files = shipped + mine
        self.groups = [0] * len(shipped) + [1] * len(mine)
        here = os.path.realpath(app.session.path)
        real = [os.path.realpath(p) for p in self.files]
        self.selected = real.index(here) if here in real else 0
        self.thumbs = {}             # path -> (Surface, level name, par), or (None, file name, {})
        self.goals = {}              # path -> whether the level has a goal (no stars drawn where not)
        self._reader = None          # the _Reader of the thumbnail being read, if any
        self.scroll = 0              # px the tiles are scrolled up by
        self.keep_selected_shown()

    # ---- layout ------------------------------------------------------------------------------
    def columns(self):
        width = self.app.size[0]
        return max(1, min(max(1, len(self.files)), (width - GAP) // (THUMB_SIZE[0] + GAP), 4))

    def _places(self):
        """[(group, row, column)] of every tile, and the y (content px) where each group's
        heading goes: a group starts on a new row, under its heading (the shipped levels'
        heading only when the player has levels of their own)."""
        columns = self.columns()
        places, headings, row, y = [], {}, 0, 0
        cell_h = THUMB_SIZE[1] + CAPTION + GAP
        has_mine = 1 in self.groups
        for g in range(len(GROUPS)):
            members = [k for k, group in enumerate(self.groups) if group == g]
            if not members:
                continue
            if has_mine:
                headings[g] = y
                y += HEADER
            for n, k in enumerate(members):
                places.append((k, y + (n // columns) * cell_h, n % columns))
            y += -(-len(members) // columns) * cell_h
        places.sort()
        return [(top, column) for _, top, column in places], headings, y

    def content_height(self):
        return self._places()[2]

    def view_height(self):
        return max(1, self.app.size[1] - TOP)

    def cell_rect(self, k):
        """The screen rectangle of tile k (thumbnail and caption), where it is drawn now."""
        places, _, _ = self._places()
        top, column = places[k]
        columns = self.columns()
        cell_w = THUMB_SIZE[0] + GAP
        left = (self.app.size[0] - columns * cell_w + GAP) // 2
        return pygame.Rect(left + column * cell_w, TOP + top - self.scroll, THUMB_SIZE[0], THUMB_SIZE[1] + CAPTION)

    def max_scroll(self):
        return max(0, self.content_height() + GAP - self.view_height())

    def scroll_by(self, px):
        self.scroll = int(min(max(self.scroll + px, 0), self.max_scroll()))

    def keep_selected_shown(self):
        """Scroll just enough that the selected tile (with its group's heading, for the
        first row) is wholly on screen."""
        if not self.files:
            return
        rect = self.cell_rect(self.selected)
        top = rect.top - (HEADER if self._first_row(self.selected) else GAP // 2)
        bottom = self.app.size[1] - GAP // 2
        if top < TOP:
            self.scroll_by(top - TOP)
        elif rect.bottom > bottom:
            self.scroll_by(min(rect.bottom - bottom, top - TOP))

    def _first_row(self, k):
        same = [j for j, g in enumerate(self.groups) if g == self.groups[k]]
        return same.index(k) < self.columns() and 1 in self.groups

    def hit(self, pos):
        """Index of the level under a screen point, -1 if none (or above the tiles' area)."""
        if pos[1] < TOP:
            return -1
        return next((k for k in range(len(self.files)) if self.cell_rect(k).collidepoint(pos)), -1)

    # ---- input -------------------------------------------------------------------------------
    def handle_event(self, event):
        if event.type == pygame.KEYDOWN:
            self.key(event.key)
        elif event.type == pygame.MOUSEMOTION:
            k = self.hit(event.pos)
            if k >= 0:
                self.selected = k
        elif event.type == pygame.MOUSEWHEEL:
            notches = getattr(event, "precise_y", event.y)
            self.scroll_by(-notches * SCROLL_STEP)
        elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            k = self.hit(event.pos)
            if k >= 0:
                self.open(k)
        return True

    def key(self, key):
        columns, count = self.columns(), len(self.files)
        if key in (pygame.K_ESCAPE, pygame.K_l):
            self.app.pop()
            return
        if key in (pygame.K_RETURN, pygame.K_KP_ENTER, pygame.K_SPACE):
            self.open(self.selected)
            return
        if key == pygame.K_n:               # the next level with a goal not yet completed
            path = next_unsolved(self.app.progress, self.files, self.files[self.selected]) if self.files else None
            if path is None:
                self.app.toast("every level with a goal is solved")
            else:
                self.selected = self.files.index(path)
                self.keep_selected_shown()
            return
        if not count:
            return
        rows_shown = max(1, self.view_height() // (THUMB_SIZE[1] + CAPTION + GAP))
        moves = {pygame.K_RIGHT: 1, pygame.K_LEFT: -1, pygame.K_DOWN: columns, pygame.K_UP: -columns,
                 pygame.K_PAGEDOWN: columns * rows_shown, pygame.K_PAGEUP: -columns * rows_shown,
                 pygame.K_HOME: -count, pygame.K_END: count}
        if key in moves:
            self.selected = self.move(self.selected, moves[key])
            self.keep_selected_shown()

    def move(self, k, step):
        """The tile ``step`` places from k, rows keeping their column across a group's end."""
        count, columns = len(self.files), self.columns()
        if abs(step) != columns:
            return min(max(k + step, 0), count - 1)
        places, _, _ = self._places()
        top, column = places[k]
        rows = sorted({t for t, _ in places})
        r = rows.index(top) + (1 if step > 0 else -1)
        if not 0 <= r < len(rows):
            return k
        in_row = [j for j, (t, _) in enumerate(places) if t == rows[r]]
        return min(in_row, key=lambda j: abs(places[j][1] - column))

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
        """Start reading the next thumbnail (the ones on screen first), or take the one read
        (waiting THUMB_WAIT s at most: a small level shows in the frame it was asked for)."""
        reader = self._reader
        if reader is None:
            path = next((p for p in self.order_to_draw() if p not in self.thumbs), None)
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
            world, dots, name, par = result
            self.goals[reader.path] = has_goal(world)
            try:
                self.thumbs[reader.path] = (draw_thumbnail(world, dots), name, par)
                return
            except Exception:           # noqa: BLE001 - a level the drawing cannot take: said in its cell
                pass
        self.thumbs[reader.path] = (None, os.path.basename(reader.path), {})

    def wait_for_thumbnails(self, timeout=30.0):
        """Read and draw every thumbnail now (for tests and tools)."""
        end = time.monotonic() + timeout
        while any(p not in self.thumbs for p in self.files) and time.monotonic() < end:
            self.update(0.0)

    def order_to_draw(self):
        """The files, the ones on screen first."""
        height = self.app.size[1]
        shown = [k for k in range(len(self.files)) if self.cell_rect(k).bottom > TOP and self.cell_rect(k).top < height]
        return [self.files[k] for k in shown] + self.files

    def draw(self, surface):
        hud, app = self.app.hud, self.app
        width, height = surface.get_size()
        surface.fill(MENU_BACKDROP)
        done = app.play.completed
        progress = getattr(app, "progress", None)
        _, headings, _ = self._places()
        clip = surface.get_clip()
        surface.set_clip(pygame.Rect(0, TOP, width, height - TOP))
        for g, y in headings.items():
            label = GROUPS[g] if g == 0 else f"{GROUPS[g]}  ({os.path.abspath(my_levels_dir())})"
            s = hud.text(_fit(hud.font(17, True), label, width - 2 * GAP), 17, MENU_HEADING, bold=True)
            surface.blit(s, (GAP, TOP + y - self.scroll + 6))
        for k, path in enumerate(self.files):
            number = file_number(path) if self.groups[k] == 0 else None
            rect = self.cell_rect(k)
            if rect.bottom < TOP or rect.top > height:
                continue
            self.draw_tile(surface, k, path, rect, number, done, progress)
        surface.set_clip(clip)
        self.draw_title(surface)

    def draw_title(self, surface):
        hud = self.app.hud
        width = surface.get_width()
        pygame.draw.rect(surface, MENU_BACKDROP, (0, 0, width, TOP))
        title = hud.text("Levels", 23, TEXT, bold=True)
        surface.blit(title, (GAP, 18))
        hint = hud.text(_fit(hud.font(13), "arrows, wheel or mouse choose    N next unsolved    Enter or click plays    Esc closes",
                             width - 3 * GAP - title.get_width()), 13, TEXT_DIM)
        surface.blit(hint, (GAP + title.get_width() + 24, 18 + title.get_height() - hint.get_height() - 3))
        total = self.content_height()
        view = self.view_height()
        if total > view:                                 # where the view is: a thin bar at the right
            bar_h = max(30, view * view // total)
            y = TOP + (view - bar_h) * self.scroll // max(1, self.max_scroll())
            pygame.draw.rect(surface, PANEL_EDGE, (width - 8, y, 4, bar_h), border_radius=2)

    def draw_tile(self, surface, k, path, rect, number, done, progress):
        """Tile k: thumbnail, ``number`` (the file's, or None) and name, stars (where the level
        has a goal), best time, "complete"."""
        hud = self.app.hud
        thumb, name, par = self.thumbs.get(path, (None, os.path.basename(path), {}))
        box = pygame.Rect(rect.topleft, THUMB_SIZE)
        if thumb is not None:
            surface.blit(thumb, box)
        else:
            pygame.draw.rect(surface, SUNKEN, box)
            if path in self.thumbs:
                surface.blit(hud.text("does not load", 13, MENU_BROKEN), (box.x + 8, box.y + 8))
        selected = k == self.selected
        pygame.draw.rect(surface, ACCENT if selected else PANEL_EDGE, box, 3 if selected else 1)
        record = progress.get(path) if progress is not None else None
        earned = stars(record, par) if record else 0
        starred = self.goals.get(path, False)           # a level without a goal: no stars to earn
        star_room = 3 * 18 + 6 if starred else 0
        caption = f"{number}  {name}" if number is not None else name
        font = hud.font(15, True)
        label = hud.text(_fit(font, caption, THUMB_SIZE[0] - star_room - 4), 15,
                         ACCENT if selected else TEXT, bold=True)
        surface.blit(label, (rect.x + 2, box.bottom + 6))
        for n in range(3 if starred else 0):             # stars: completed, par time, par balls
            centre = (box.right - star_room + 12 + 18 * n, box.bottom + 15)
            pygame.draw.polygon(surface, ACCENT if n < earned else STAR_OFF, star_points(centre, 8))
        if record and record.get("best_time") is not None:
            best = hud.text(f"best {record['best_time']:.1f} s", 12, TEXT_DIM)
            surface.blit(best, (rect.x + 2, box.bottom + 6 + label.get_height()))
        if os.path.realpath(path) in done or (record and record.get("completed")):
            tick = hud.text("complete", 13, MENU_DONE, bold=True)
            where = tick.get_rect(bottomright=(box.right - 6, box.bottom - 4))
            pygame.draw.rect(surface, MENU_BACKDROP, where.inflate(8, 2), border_radius=3)
            surface.blit(tick, where)
