"""The text overlay: level and run information, goal, toasts, error banner, help, energy plot.

Draws with DejaVu Sans, shipped in ``assets/`` (licence in assets/LICENSE.md): pygame's
default font spaces letters unevenly ("pi le", "t rails"). Rendered text is cached by
(text, size, colour, weight), so static labels cost one blit a frame.
The HUD reads what the app hands it; it never touches the world.
"""
import math
import os
import unicodedata
from collections import deque

import numpy as np
import pygame

from game.draw.theme import (BAR, BAR_HEIGHT, ENERGY_COLOURS, ERROR_BG, GOAL, GOAL_TRACK, HINT_HEIGHT,
                             HINT_PANEL, INTEGRATOR_COLOURS, KEY_CAP, MARGIN, PANEL, PANEL_EDGE, PLOT_PANEL,
                             SIZE_BODY, SIZE_HUGE, SIZE_SMALL, SIZE_TINY, SIZE_TITLE, SUNKEN, TEXT, TEXT_DIM,
                             WARN)
from game.paths import ASSETS

FONT_REGULAR = os.path.join(ASSETS, "DejaVuSans.ttf")
FONT_BOLD = os.path.join(ASSETS, "DejaVuSans-Bold.ttf")

ENERGY_LABELS = {"kinetic": "kinetic", "gravitational": "potential", "spring": "spring", "total": "total",
                 "walls": "work in", "balance": "total - work in"}

STATS_MIN_WIDTH = 290       # px: the stats block is at least this wide (its cells have fixed widths)
STATS_GAP = 18              # px between the cells of a stats row
MESSAGE_LINES = 3           # a toast wraps onto at most this many lines (the last cut with "...")
ALERT_LINES = 6             # an error banner wraps onto at most this many (a level's error is one line, often long)
GOAL_WIDTH = 170            # px
MIN_TITLE_ROOM = 260        # px the level's name keeps beside the goal, or the goal moves down
WIDE = 1000                 # px: narrower windows get the smaller HUD text
TEXT_CACHE_LIMIT = 400      # rendered strings kept before the cache is emptied
ENERGY_SPAN = 10.0          # s of simulated time the energy plot shows
PLOT_WIDTH = 0.28           # of the window's width: the energy plot's column (the level moves aside)
PLOT_MIN_WIDTH = 300        # px
PLOT_MAX_WIDTH = 420        # px
PLOT_MIN_HEIGHT = 150       # px


def energy_plot_rect(size, bottom_gap=MARGIN):
    """Where the energy plot goes in a window of ``size`` (w, h) px: a column at the right,
    from under the top bar to ``bottom_gap`` px above the bottom, PLOT_WIDTH of the width
    (within PLOT_MIN_WIDTH and PLOT_MAX_WIDTH px). The app fits the level beside it, so the
    plot fills all the room it takes."""
    width, height = size
    w = int(min(max(width * PLOT_WIDTH, PLOT_MIN_WIDTH), PLOT_MAX_WIDTH))
    top = BAR_HEIGHT + MARGIN
    h = max(PLOT_MIN_HEIGHT, height - bottom_gap - MARGIN - top)
    return pygame.Rect(width - MARGIN - w, height - bottom_gap - MARGIN - h, w, h)


class EnergyHistory:
    """Energies sampled against simulated time; keeps the last ENERGY_SPAN seconds."""

    # "walls": the work moving walls and motors have done on the balls since the world began
    # (world.wall_work + world.motor_work, J; 0 in a level without them): the total's change
    # it explains.
    KEYS = ("kinetic", "gravitational", "spring", "total", "walls")

    def __init__(self, span=ENERGY_SPAN):
        self.span = span
        self.times = deque()
        self.rows = deque()

    def clear(self):
        self.times.clear()
        self.rows.clear()

    def record(self, t, energy):
        """Add a sample at simulated time t (seconds); energy: dict with KEYS in joules."""
        if self.times and t < self.times[-1]:
            self.clear()                       # time went back: a reset or a new level
        if self.times and t == self.times[-1]:
            self.rows[-1] = tuple(float(energy.get(k, 0.0)) for k in self.KEYS)
            return
        self.times.append(float(t))
        self.rows.append(tuple(float(energy.get(k, 0.0)) for k in self.KEYS))
        while self.times and self.times[-1] - self.times[0] > self.span:
            self.times.popleft()
            self.rows.popleft()

    def arrays(self):
        """(times (K,), values (K, len(KEYS))) as numpy arrays."""
        return np.array(self.times, float), np.array(self.rows, float).reshape(-1, len(self.KEYS))


def load_font(size, bold=False):
    """The shipped font at ``size`` px; pygame's default (at a similar size) if the file cannot be read."""
    if not pygame.font.get_init():
        pygame.font.init()
    try:
        return pygame.font.Font(FONT_BOLD if bold else FONT_REGULAR, size)
    except (OSError, pygame.error):
        return pygame.font.Font(None, size * 3 // 2)


class Hud:
    """Draws the overlay pieces; holds only fonts and a text cache."""

    def __init__(self):
        if not pygame.font.get_init():
            pygame.font.init()
        self._fonts = {}
        self._text = {}
        self._wrapped = {}
        self._panels = {}

    # ---- text -----------------------------------------------------------------------------
    def font(self, size, bold=False):
        """The shipped font at ``size``; pygame's default if the file cannot be read."""
        f = self._fonts.get((size, bold))
        if f is None:
            f = self._fonts[(size, bold)] = load_font(size, bold)
        return f

    def text(self, string, size=SIZE_BODY, colour=TEXT, bold=False):
        """A rendered line of text (cached). Any text draws: what no font can (control
        characters) is replaced (``drawable``), and text that draws nothing (only zero-width
        characters) gives a transparent surface one pixel wide, as tall as the font's line."""
        key = (string, size, colour, bold)
        surf = self._text.get(key)
        if surf is None:
            if len(self._text) >= TEXT_CACHE_LIMIT:
                self._text.clear()
            font = self.font(size, bold)
            try:
                surf = font.render(drawable(string), True, colour)
            except (pygame.error, ValueError):           # "Text has zero width"
                surf = pygame.Surface((1, font.get_linesize()), pygame.SRCALPHA)
            self._text[key] = surf
        return surf

    def wrap(self, string, size, width):
        """Split string into lines that fit width pixels (cached)."""
        key = (string, size, width)
        lines = self._wrapped.get(key)
        if lines is not None:
            return lines
        font = self.font(size)
        lines, line = [], ""
        for word in drawable(string).split():
            trial = f"{line} {word}".strip()
            if line and font.size(trial)[0] > width:
                lines.append(line)
                line = word
            else:
                line = trial
        if line:
            lines.append(line)
        if len(self._wrapped) >= TEXT_CACHE_LIMIT:
            self._wrapped.clear()
        self._wrapped[key] = lines
        return lines

    def wrap_fit(self, string, size, width, max_lines=MESSAGE_LINES, bold=False):
        """``string`` on at most ``max_lines`` lines that each fit ``width`` px: wrapped at
        spaces, a word wider than a line cut, and the last line ending in "..." if the text
        goes on beyond it."""
        font = self.font(size, bold)
        width = max(20, int(width))
        words = string.split()
        lines, line, k = [], "", 0
        while k < len(words) and len(lines) < max_lines:
            trial = f"{line} {words[k]}".strip()
            if not line or font.size(trial)[0] <= width:
                line, k = trial, k + 1
            else:
                lines.append(line)
                line = ""
        if line:
            lines.append(line)
        if k < len(words):                              # more than fits: the last line says so
            lines[-1] = _fit(font, lines[-1] + " " + " ".join(words[k:]), width)
        return [_fit(font, text, width) for text in lines]

    def _panel_surface(self, size, colour):
        """A translucent filled surface, cached by size and colour."""
        key = (tuple(size), colour)
        panel = self._panels.get(key)
        if panel is None:
            if len(self._panels) >= 64:
                self._panels.clear()
            panel = self._panels[key] = pygame.Surface(size, pygame.SRCALPHA)
            panel.fill(colour)
        return panel

    def _panel(self, surface, rect, colour=PANEL):
        """A translucent box with a thin edge."""
        surface.blit(self._panel_surface(rect.size, colour), rect.topleft)
        pygame.draw.rect(surface, PANEL_EDGE, rect, 1, border_radius=3)

    # ---- pieces -------------------------------------------------------------------------------
    def draw_banner(self, surface, message, lead="not loaded, the last good level plays on:"):
        """The level loader's error on one line along the bottom, in the key hint's row (so
        nothing moves and the level stays where it is), after ``lead``; cut with "..." if
        too long."""
        if not message:
            return
        self.draw_alert(surface, f"{lead}  {message}")

    def draw_alert(self, surface, line):
        """The message on the alarm colour over the key hint's row, wrapped onto as many lines
        as it needs (at most ALERT_LINES, the last cut with "..."), growing up from the bottom."""
        width, height = surface.get_size()
        lines = self.wrap_fit(line, SIZE_BODY, width - 2 * MARGIN, max_lines=ALERT_LINES)
        step = self.font(SIZE_BODY).get_linesize()
        row = pygame.Rect(0, 0, width, max(HINT_HEIGHT, len(lines) * step + HINT_HEIGHT - step))
        row.bottom = height
        self._panel(surface, row, ERROR_BG)
        for k, text in enumerate(lines):
            surface.blit(self.text(text, SIZE_BODY, TEXT), (MARGIN, row.y + (HINT_HEIGHT - step) // 2 + k * step))
        return row

    def draw_bar(self, surface, top, title, description, integrator, stats, progress, counter=""):
        """The bar across the top: level name and description on the left, the goal's
        progress, then the integrator and the run's numbers on the right. The camera fits
        the level below it (BAR_HEIGHT), so the bar never hides a part of the level. In a
        narrow window the numbers get smaller and the goal moves just under the bar."""
        width = surface.get_width()
        rect = pygame.Rect(0, top, width, BAR_HEIGHT)
        self._panel(surface, rect, BAR)
        size = SIZE_BODY if width >= WIDE else SIZE_SMALL
        line = self.font(size).get_linesize()
        # Right: integrator, then the stats rows: a row is a string, or cells (text, widest
        # text it will hold), each cell right-aligned in a slot of its widest text's width,
        # so the block stays put as the numbers change.
        font = self.font(size)
        rows = [[("integrator ", TEXT_DIM), (integrator, INTEGRATOR_COLOURS.get(integrator, TEXT)),
                 ("  (I to change)", TEXT_DIM)]]
        rendered = [[(self.text(t, size, c), None) for t, c in rows[0]]]
        for row in stats:
            cells = [(row, row)] if isinstance(row, str) else row
            out = []
            for k, (text, widest) in enumerate(cells):
                slot = max(font.size(widest)[0], font.size(text)[0]) + (STATS_GAP if k else 0)
                out.append((self.text(text, size, TEXT), slot))
            rendered.append(out)
        widths = [sum(s.get_width() if slot is None else slot for s, slot in row) for row in rendered]
        stats_w = max(max(widths), STATS_MIN_WIDTH * size // SIZE_BODY)
        x0 = rect.right - MARGIN - stats_w
        y = rect.y + (BAR_HEIGHT - line * len(rendered)) // 2
        for row in rendered:
            x = x0
            for piece, slot in row:
                if slot is None:
                    surface.blit(piece, (x, y))
                    x += piece.get_width()
                else:
                    x += slot
                    surface.blit(piece, (x - piece.get_width(), y))
            y += line
        right = x0 - 2 * MARGIN
        # Middle: the goal, if the name still has room beside it; else just under the bar.
        if progress is not None:
            if right - GOAL_WIDTH - 2 * MARGIN >= MIN_TITLE_ROOM:
                self._draw_goal(surface, right - GOAL_WIDTH, rect.y + 16, progress)
                right -= GOAL_WIDTH + 2 * MARGIN
            else:
                box = pygame.Rect(width - MARGIN - GOAL_WIDTH - 20, rect.bottom + MARGIN, GOAL_WIDTH + 20, 56)
                self._panel(surface, box)
                self._draw_goal(surface, box.x + 10, box.y + 8, progress)
        # Left: name and description, cut to the room left.
        room = max(80, right - MARGIN)
        title_s = self.text(_fit(self.font(SIZE_TITLE, True), title or "untitled level", room), SIZE_TITLE, TEXT,
                            bold=True)
        small = self.font(SIZE_SMALL).get_linesize()
        lines = self.wrap(description or "", SIZE_SMALL, room)
        if len(lines) > 2:
            lines = lines[:1] + [_fit(self.font(SIZE_SMALL), " ".join(lines[1:]), room)]
        y = rect.y + (BAR_HEIGHT - title_s.get_height() - 4 - small * len(lines)) // 2
        surface.blit(title_s, (MARGIN + 2, y))
        if counter and MARGIN + title_s.get_width() + 70 < room:     # "level 20" (its file's number) or "3/9"
            count_s = self.text(counter, SIZE_BODY, TEXT_DIM)
            surface.blit(count_s, (MARGIN + 14 + title_s.get_width(), y + title_s.get_height() - count_s.get_height() - 2))
        y += title_s.get_height() + 4
        for text in lines:
            surface.blit(self.text(text, SIZE_SMALL, TEXT_DIM), (MARGIN + 2, y))
            y += small
        return rect

    def _draw_goal(self, surface, x, y, progress):
        """"goal 3 / 10" over a progress bar GOAL_WIDTH wide, from (x, y)."""
        inside, needed = progress
        label = self.text(f"goal  {min(inside, needed)} / {needed}", SIZE_BODY, GOAL)
        surface.blit(label, (x, y))
        bar = pygame.Rect(x, y + 6 + label.get_height(), GOAL_WIDTH, 12)
        pygame.draw.rect(surface, GOAL_TRACK, bar, border_radius=3)
        fraction = 1.0 if needed <= 0 else min(1.0, inside / needed)
        if fraction > 0:
            pygame.draw.rect(surface, GOAL, (bar.x, bar.y, max(4, int(bar.width * fraction)), bar.height),
                             border_radius=3)

    def draw_complete(self, surface, top, seconds, par_time=None, earned=None):
        """A big "level complete" under the bar, with this run's stars (``earned`` of 3), the
        world time it took (s) against the par's (``par_time`` s), and the keys that go on."""
        big = self.text("LEVEL COMPLETE", SIZE_HUGE, GOAL, bold=True)
        if earned is not None:
            big = side_by_side(big, self.text("\u2605" * earned + "\u2606" * (3 - earned), SIZE_HUGE, GOAL, bold=True))
        par = "" if par_time is None else f" (par {par_time:g} s)"
        sub = self.text(f"in {seconds:.1f} s{par}      N  next unsolved      ]  next level      R  play again")
        w = max(big.get_width(), sub.get_width()) + 40
        box = pygame.Rect(0, 0, w, big.get_height() + sub.get_height() + 30)
        box.midtop = (surface.get_width() // 2, top + BAR_HEIGHT + 60)
        self._panel(surface, box, (10, 30, 16, 210))
        surface.blit(big, big.get_rect(midtop=(box.centerx, box.y + 10)))
        surface.blit(sub, sub.get_rect(midtop=(box.centerx, box.y + 16 + big.get_height())))
        return box

    def draw_rules(self, surface, top, parts):
        """Under the bar, at the left: what the left button does and what the level lets the
        player add, [(text, active)] ("balls 2 of 3 left"); the active one on a key cap."""
        if not parts:
            return
        surfs = [(self.text(t, SIZE_BODY, TEXT if active else TEXT_DIM, bold=active), active) for t, active in parts]
        rect = pygame.Rect(MARGIN, top + BAR_HEIGHT + MARGIN,
                           sum(s.get_width() + 22 for s, _ in surfs) + 8, 30)
        self._panel(surface, rect)
        x = rect.x + 10
        for s, active in surfs:
            if active:
                box = s.get_rect(topleft=(x, rect.y + 7)).inflate(10, 6)
                pygame.draw.rect(surface, KEY_CAP, box, border_radius=3)
                pygame.draw.rect(surface, GOAL, box, 1, border_radius=3)
            surface.blit(s, (x, rect.y + 7))
            x += s.get_width() + 22

    def draw_note(self, surface, top, line, positive=False):
        """One line in a box under the bar's centre, below the status: "hold it... 0.4 s"."""
        s = self.text(line, SIZE_BODY, GOAL if positive else WARN, bold=True)
        rect = s.get_rect().inflate(24, 14)
        rect.midtop = (surface.get_width() // 2, top + BAR_HEIGHT + MARGIN + 40)
        self._panel(surface, rect)
        surface.blit(s, s.get_rect(center=rect.center))

    def draw_status(self, surface, top, paused, time_scale, warming_up=False):
        """Top-centre: paused, slow-motion and warming-up indicators."""
        parts = []
        if warming_up:
            parts.append(("warming up: the first seconds run slower", TEXT_DIM))
        if paused:
            parts.append(("PAUSED", WARN))
            parts.append(("Space run   .  step", TEXT_DIM))
        if time_scale != 1.0:
            parts.append((("slow motion" if time_scale < 1 else "fast") + f"  x{time_scale:g}", WARN))
        if not parts:
            return
        surfs = [self.text(s, SIZE_BODY, c) for s, c in parts]
        total = sum(s.get_width() for s in surfs) + 18 * (len(surfs) - 1)
        rect = pygame.Rect(0, top + BAR_HEIGHT + MARGIN, total + 24, 30)
        rect.centerx = surface.get_width() // 2
        self._panel(surface, rect)
        x = rect.x + 12
        for s in surfs:
            surface.blit(s, (x, rect.y + 7))
            x += s.get_width() + 18

    def draw_toast(self, surface, toast):
        """One short message, (text, opacity 0..1) or None, at the right of the bottom row:
        beside the key hint, over no part of the level. Returns its box (None: no message)."""
        spans, self._hint_spans = getattr(self, "_hint_spans", []), []
        if toast is None:
            return
        message, opacity = toast
        width, height = surface.get_size()
        # A long message wraps (up to MESSAGE_LINES lines, growing upwards) within the window.
        lines = self.wrap_fit(message, SIZE_BODY, width - 2 * MARGIN - 20, bold=True)
        surfs = [self.text(line, SIZE_BODY, TEXT, bold=True) for line in lines]
        step = self.font(SIZE_BODY, True).get_linesize()
        w = max(s.get_width() for s in surfs)
        box = pygame.Rect(0, 0, w + 20, step * (len(surfs) - 1) + surfs[0].get_height() + 4)
        box.bottomright = (min(width - MARGIN + 10, width - 1), height - 1)
        box.left = max(0, box.left)
        if opacity >= 0.5:
            _hide_covered(surface, spans, box.left)
        self._panel(surface, box, (30, 36, 52, int(235 * opacity)))
        for k, s in enumerate(surfs):
            if opacity < 1:
                s = s.copy()
                s.set_alpha(int(255 * opacity))
            surface.blit(s, (box.right - 10 - s.get_width(), box.y + 2 + k * step))
        return box

    def draw_hint(self, surface, pairs):
        """The key hint along the bottom: pairs [(key, what)], each key on a small key cap
        so "I integrator" cannot read as "l integrator"; the entries that fit whole, in order."""
        width, height = surface.get_size()
        # On a panel across the row: a world panned under it must not show through the words.
        self._panel(surface, pygame.Rect(0, height - HINT_HEIGHT, width, HINT_HEIGHT), HINT_PANEL)
        x, mid = MARGIN, height - HINT_HEIGHT // 2
        self._hint_spans = []            # each entry's (left, right) px: draw_toast hides those it covers
        for key, what in pairs:
            cap = self.text(key, SIZE_SMALL, TEXT, bold=True)
            box = cap.get_rect(midleft=(x + 5, mid)).inflate(10, 4)
            words = self.text(what, SIZE_SMALL, TEXT_DIM)
            if box.right + 5 + words.get_width() > width - MARGIN:
                break                        # an entry that would be cut at the edge is left out whole
            pygame.draw.rect(surface, KEY_CAP, box, border_radius=3)
            pygame.draw.rect(surface, PANEL_EDGE, box, 1, border_radius=3)
            surface.blit(cap, cap.get_rect(center=box.center))
            surface.blit(words, words.get_rect(midleft=(box.right + 5, mid)))
            self._hint_spans.append((box.left, box.right + 5 + words.get_width()))
            x = box.right + 5 + words.get_width() + 16

    def draw_help(self, surface, keymap, title="Ballpit: keys and mouse"):
        """Centred overlay listing every key: keymap is [(keys, what it does)]. In a small
        window the text gets smaller, then goes into two columns, so every key stays visible."""
        width, height = surface.get_size()
        surface.blit(self._panel_surface((width, height), (0, 0, 0, 150)), (0, 0))
        title_s = self.text(title, SIZE_TITLE, TEXT, bold=True)
        foot = self.text("H or Esc closes this", SIZE_SMALL, TEXT_DIM)
        size, line, per_column, key_w, column_w, box_w, box_h = _help_layout(self, keymap, title_s, foot, width, height)
        box = pygame.Rect(0, 0, box_w, box_h)
        box.center = (width // 2, height // 2)
        box.top = max(0, box.top)
        self._panel(surface, box, (14, 16, 24, 240))
        surface.blit(title_s, (box.x + 24, box.y + 14))
        top = box.y + 24 + title_s.get_height()
        for k, (keys, what) in enumerate(keymap):
            x = box.x + 24 + (k // per_column) * column_w
            y = top + (k % per_column) * line
            surface.blit(self.text(keys, size, WARN, bold=True), (x, y))
            surface.blit(self.text(what, size, TEXT), (x + key_w, y))
        surface.blit(foot, (box.x + 24, top + per_column * line + 8))

    def draw_energy(self, surface, history, bottom_gap=MARGIN):
        """Bottom-right plot of kinetic, potential, spring and total energy over the last 10 s.
        Where moving walls or motors did work on the balls (history's "walls": "work in"), that
        work too, and the total with it taken out (the balance, dashed): the total's change they explain
        shows as the balance staying flat (less what friction and impacts dissipate)."""
        rect = energy_plot_rect(surface.get_size(), bottom_gap)
        self._panel(surface, rect, PLOT_PANEL)
        times, keys, values = _energy_series(history)
        walls = "walls" in keys
        drift = None
        if len(times) >= 2 and np.isfinite(values[:, 3]).all():
            change = f"total {short_number(values[-1, 3] - values[0, 3], signed=True)} J"
            if walls:
                change += f", work in {short_number(values[-1, 4] - values[0, 4], signed=True)} J"
            drift = self.text(change + f" in {times[-1] - times[0]:.1f} s", SIZE_SMALL, ENERGY_COLOURS["total"])
            surface.blit(drift, (rect.right - 8 - drift.get_width(), rect.y + 6))
        # The title, shorter where the change would run into it.
        room = rect.width - 24 - (drift.get_width() if drift is not None else 0)
        for title in (f"energy (J), last {history.span:g} s", "energy (J)", ""):
            label = self.text(title, SIZE_SMALL, TEXT_DIM)
            if label.get_width() <= room:
                surface.blit(label, (rect.x + 8, rect.y + 6))
                break
        # Legend with the latest values, on as many rows as the width needs.
        legend = [self.text(f"{ENERGY_LABELS[key]} {short_number(values[-1, k] if len(values) else 0.0)}",
                            SIZE_SMALL, ENERGY_COLOURS[key]) for k, key in enumerate(keys)]
        rows = _rows(legend, rect.width - 16)
        line = self.font(SIZE_SMALL).get_linesize()
        y = rect.bottom - 6 - line * len(rows)
        for row in rows:
            x = rect.x + 8
            for item in row:
                surface.blit(item, (x, y))
                x += item.get_width() + 12
            y += line
        plot = pygame.Rect(rect.x + 58, rect.y + 26, rect.width - 68, rect.height - 36 - line * len(rows))
        pygame.draw.rect(surface, SUNKEN, plot, 1)
        finite = np.isfinite(values).all(axis=1)
        if len(values) and not finite[-1]:
            surface.blit(self.text("not finite: the world blew up (R resets)", SIZE_SMALL, WARN),
                         (plot.x + 6, plot.y + 6))
        times, values = times[finite], values[finite]
        if len(times) < 2:
            return rect
        lo, hi = float(values.min()), float(values.max())
        if hi - lo < 1e-6 * max(1.0, abs(hi)):
            lo, hi = lo - 1.0, hi + 1.0
        pad = 0.06 * (hi - lo)
        lo, hi = lo - pad, hi + pad
        xs = plot.x + (times - (times[-1] - history.span)) / history.span * plot.width
        ys = plot.bottom - (values - lo) / (hi - lo) * plot.height
        if lo < 0 < hi:
            zy = plot.bottom - (0 - lo) / (hi - lo) * plot.height
            pygame.draw.line(surface, PANEL_EDGE, (plot.x, zy), (plot.right, zy))
        surface.blit(self.text(short_number(hi), SIZE_SMALL, TEXT_DIM), (rect.x + 6, plot.y))
        surface.blit(self.text(short_number(lo), SIZE_SMALL, TEXT_DIM), (rect.x + 6, plot.bottom - 12))
        clip = surface.get_clip()
        surface.set_clip(plot)
        for k, key in enumerate(keys):
            pts = np.stack((xs, ys[:, k]), axis=1)
            if key == "balance":
                _dashed(surface, ENERGY_COLOURS[key], pts, 2)
            else:
                pygame.draw.lines(surface, ENERGY_COLOURS[key], False, pts.tolist(), 3 if key == "total" else 1)
        surface.set_clip(clip)
        return rect


def _rows(items, width, gap=12):
    """Surfaces laid in rows (lists) no wider than ``width`` px, ``gap`` px apart."""
    rows, row, used = [], [], 0
    for item in items:
        if row and used + item.get_width() > width:
            rows.append(row)
            row, used = [], 0
        row.append(item)
        used += item.get_width() + gap
    rows.append(row)
    return rows


def _hide_covered(surface, spans, left):
    """Hide the key hint's entries (their (left, right) px ``spans``) that a toast starting at
    ``left`` px would half cover: no "E ener" beside it."""
    cut = [x0 for x0, x1 in spans if x1 > left - 8]
    if cut:
        height = surface.get_height()
        row = pygame.Rect(cut[0] - 2, height - HINT_HEIGHT, left - cut[0] + 2, HINT_HEIGHT)
        surface.fill(HINT_PANEL[:3], row.clip(surface.get_rect()))


def _energy_series(history):
    """(times (K,), the keys plotted, values (K, len(keys))): kinetic, potential, spring and
    total, and where moving walls did work, that work and the total less it ("balance")."""
    times, values = history.arrays()
    keys = list(EnergyHistory.KEYS[:4])
    walls = values[:, EnergyHistory.KEYS.index("walls")]
    if len(values) and np.isfinite(walls).all() and np.any(walls != 0.0):
        return times, keys + ["walls", "balance"], np.column_stack((values, values[:, 3] - walls))
    return times, keys, values[:, :4]


def _dashed(surface, colour, pts, width, dash=8):
    """A polyline (K, 2) px drawn every other ``dash`` px of its length."""
    step = np.hypot(*np.diff(pts, axis=0).T)
    along = np.concatenate(([0.0], np.cumsum(step)))
    on = (along[:-1] // dash) % 2 == 0
    for p, q in zip(pts[:-1][on].tolist(), pts[1:][on].tolist()):
        pygame.draw.line(surface, colour, p, q, width)


def drawable(text):
    """``text`` with each control character (NUL, escape, line breaks: none is drawn, and
    NUL stops SDL_ttf) replaced by U+FFFD, the replacement character, so a level's name
    shows that something is there. Text without any comes back as it is (the common case,
    one scan)."""
    text = str(text)
    if text.isprintable() or not any(unicodedata.category(ch) == "Cc" for ch in text):
        return text
    return "".join("\ufffd" if unicodedata.category(ch) == "Cc" else ch for ch in text)


def _fit(font, text, width):
    """text, cut short with "..." if it is wider than width pixels. A visible glyph is at
    least a pixel wide, so no more than ``width`` characters can show: the text is cut to
    that first (a message quoting megabytes stays cheap), then the longest prefix that
    fits is found by bisection (O(log width) measurements)."""
    width = max(0, int(width))
    text = drawable(text)
    if len(text) <= width and font.size(text)[0] <= width:
        return text
    lo, hi = 0, min(len(text), width)          # text[:lo] + "..." fits; text[:hi + 1] does not
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if font.size(text[:mid] + "...")[0] <= width:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo].rstrip() + "..."


# Thousands' suffixes of short_number: 1e3 ... 1e24. Past them the exponent is written in
# the same steps of three ("1.2e30"): one format from 10 kJ to a world that blew up.
SUFFIXES = ("k", "M", "G", "T", "P", "E", "Z", "Y")


def short_number(value, signed=False):
    """Short number: 3 significant figures; from 10,000 on, a mantissa under 1000 and a
    thousands' suffix (12.3k, 171M, 8.94G, 1.5T; past Y, e27, e30 ...), so a plot's axis
    keeps one format however its values grow. Under 10,000: 9999, 123, 1.23."""
    if not np.isfinite(value):
        return "nan"
    sign = "+" if signed and value >= 0 else ""
    a = abs(float(value))
    if a < 1e4:
        return f"{sign}{value:.0f}" if a >= 100 else f"{sign}{value:.3g}"
    group = int(math.floor(math.log10(a) / 3))
    mantissa = float(value) / 10.0 ** (3 * group)
    if abs(float(f"{mantissa:.3g}")) >= 1000:       # 999.7k rounds to 1000k: it is 1M
        group += 1
        mantissa = float(value) / 10.0 ** (3 * group)
    suffix = SUFFIXES[group - 1] if group <= len(SUFFIXES) else f"e{3 * group}"
    return f"{sign}{mantissa:.3g}{suffix}"


def side_by_side(left, right, gap=40):
    """One surface of ``left`` and ``right`` (text) next to each other, ``gap`` px apart."""
    out = pygame.Surface((left.get_width() + gap + right.get_width(), max(left.get_height(), right.get_height())),
                         pygame.SRCALPHA)
    out.blit(left, (0, 0))
    out.blit(right, (left.get_width() + gap, (out.get_height() - right.get_height()) // 2))
    return out


def _help_layout(hud, keymap, title_s, foot, width, height):
    """The help's (font size, line px, keys a column, key column px, column px, box w, box h):
    the first layout that fits the window (larger text, one column first); else the last."""
    layouts = [(SIZE_BODY, 1), (SIZE_SMALL, 1), (SIZE_BODY, 2), (SIZE_SMALL, 2), (SIZE_TINY, 1)]
    for size, columns in layouts:
        font = hud.font(size)
        line = font.get_linesize() + 2
        per_column = -(-len(keymap) // columns)
        key_w = max(hud.font(size, True).size(k)[0] for k, _ in keymap) + 20
        column_w = key_w + max(font.size(d)[0] for _, d in keymap) + 24
        box_w = max(column_w * columns, title_s.get_width()) + 48
        box_h = title_s.get_height() + 24 + line * per_column + foot.get_height() + 28
        if box_h <= height - 8 and box_w <= width - 8:
            break
    return size, line, per_column, key_w, column_w, box_w, box_h
