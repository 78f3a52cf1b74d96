"""How the edit mode looks: the level as the renderer draws it, then the selection, the
shape being drawn, the snap marker, the checks' markers, the toolbar, the property panel,
the status line and the prompts. Reads the mode and its Editor, never changes them
(except ``mode.testing_label``, where the play-test label was drawn).
"""
import os

import numpy as np
import pygame

from game.editor.items import body_outline, body_pose, handles, is_pin, joint_ends
from game.editor.motion import ghosts, moved
from game.editor.tools import TOOL_HINTS, TOOL_KEY, TOOLS
from game.editor.turning import HANDLE_HINTS
from game.draw.hud import HINT_HEIGHT, SIZE_BODY, SIZE_SMALL, SIZE_TINY, SIZE_TITLE
from game.level import LevelError
from game.draw.theme import EDITOR_DIM, TEXT, WARN

TOOLBAR_TOP = 8              # px
BUTTON_SIZE = (62, 30)       # px: a toolbar button (fifteen fit a window 1,000 px wide)
PANEL_WIDTH = 240            # px: the property panel at the right
ROW_HEIGHT = 24              # px: a property row
STATUS_HEIGHT = 28           # px: the status line at the bottom
MAX_PX = 100_000             # px: overlay points further off-screen are drawn at this distance
MARKER_LABELS = 5            # findings up to this many show their reason always; more, on hover
MARKER_RADIUS = 15           # px: the ring round a finding's "!"
MARKER_HOVER = 40            # px: the pointer this near a marker shows its reason
HINT_ROOM = 30               # px under the toolbar for the level's name and the key hint
PANEL_HINT = "[ ] choose   + - wheel change   V type"
HINT = "Tab play-test    Ctrl+S save    Ctrl+Z undo    G grid    H help    Esc leave"

SELECTED = (255, 220, 90)
HOVER = (200, 200, 160)
HANDLE = (255, 255, 255)
PREVIEW = (110, 220, 255)
SNAP = (120, 255, 160)
MARKER = (255, 90, 90)
MARKER_BACK = (30, 10, 14)
BOX = (255, 220, 90)
PANEL_BG = (12, 14, 20, 225)
BUTTON_BG = (34, 38, 50)
BUTTON_ON = (70, 120, 200)
TURN_HANDLE_PX = 7           # px: the radius of the selection's round turn and scale handles
GHOST = (105, 120, 190)      # a moving wall's path: where it will be (its poses, faint)
GHOST_NOW = (190, 210, 255)  # where it is now in the motion playing while the editor is paused
CONVEYOR = (120, 230, 200)   # a conveyor's chevrons, along its surface's motion
KICK = (255, 150, 70)        # a bumper's ring
CHEVRON_PX = 40              # px between a conveyor's chevrons


class EditView:
    """The drawing of an EditMode (``mode.view``)."""

    def __init__(self, mode):
        self.mode = mode
        self._moving_key, self._moving = None, []     # the walls that move, surf or kick: (list, index)

    @property
    def app(self):
        return self.mode.app

    @property
    def doc(self):
        return self.mode.doc

    @property
    def editor(self):
        return self.mode.editor

    def draw(self, surface):
        app = self.app
        if self.mode.testing:
            app.play.draw(surface)
            # Just above the key hint: clear of play's status row and its LEVEL COMPLETE box.
            self.mode.testing_label = self._label(surface, "PLAY-TEST    Tab: back to the editor",
                        (surface.get_width() // 2, surface.get_height() - HINT_HEIGHT - 20), WARN, centre=True)
            return
        camera = app.camera
        app.renderer.draw(surface, self.mode.shown_world(), camera)
        self.draw_moving_walls(surface)
        self.draw_bodies(surface)
        self.draw_selection(surface)
        self.draw_preview(surface)
        self.draw_markers(surface)
        self.draw_toolbar(surface)
        self.draw_panel(surface)
        self.draw_status(surface)
        if self.mode.prompt is not None or self.doc.conflict is not None:
            self.draw_prompt(surface)
        if self.mode.entry is not None:
            self.draw_entry(surface)

    def _px(self, p):
        """Screen pixels of a world point, kept within what pygame's drawing takes."""
        q = np.clip(self.app.camera.world_to_screen(np.asarray(p, float)), -MAX_PX, MAX_PX)
        return tuple(float(v) for v in q)

    def _label(self, surface, text, pos, colour=TEXT, size=SIZE_BODY, centre=False, back=True, bold=False):
        s = self.app.hud.text(text, size, colour, bold=bold)
        rect = s.get_rect(center=pos) if centre else s.get_rect(topleft=pos)
        if back:
            box = rect.inflate(10, 6)
            panel = pygame.Surface(box.size, pygame.SRCALPHA)
            panel.fill(PANEL_BG)
            surface.blit(panel, box.topleft)
        surface.blit(s, rect)
        return rect

    def _drawn_item(self, ref):
        """The item to outline for ``ref``: a piece of a non-convex polygon is outlined as the
        whole polygon its author drew (no seams inside it)."""
        group = self.doc.group_of(ref)
        if group is not None:
            return dict(self.doc.item(ref), points=group[0])
        return self.doc.item(ref)

    def _outline(self, surface, name, item, colour, width=2):
        px, scale = self._px, self.app.camera.scale
        if name == "segments":
            a, b = px(item["a"]), px(item["b"])
            r = max(item["radius"] * scale, 0)
            if a == b:
                pygame.draw.circle(surface, colour, a, min(r, MAX_PX) + 3, width)
            else:
                pygame.draw.line(surface, colour, a, b, width + 2 * int(min(r, 200)))
        elif name in ("polylines", "polygons"):
            pts = [px(p) for p in item["points"]]
            closed = name == "polygons" or item.get("closed", False)
            pygame.draw.lines(surface, colour, closed, pts, width + 1)
        elif name in ("balls", "spawners"):
            pygame.draw.circle(surface, colour, px(item["pos"]), min(item["radius"] * scale, MAX_PX) + 4, width)
        elif name == "bodies":
            pygame.draw.lines(surface, colour, True, [px(p) for p in rounded_outline(item)], width + 1)
        elif name == "joints":
            a, b = (px(p) for p in joint_ends(item, self.doc.definition["balls"], self.doc.definition.get("bodies")))
            if is_pin(name, item) or a == b:
                pygame.draw.circle(surface, colour, a, 7, width)
            else:
                pygame.draw.line(surface, colour, a, b, width + 2)
                for end in (a, b):
                    pygame.draw.circle(surface, colour, end, 5, width)
        elif name == "springs":
            balls = self.doc.definition["balls"]
            a = px(balls[item["a"]]["pos"])
            b = px(balls[item["b"]]["pos"] if isinstance(item["b"], int) else item["b"])
            pygame.draw.line(surface, colour, a, b, width + 1)
        elif name == "zones":
            if "rect" in item:
                (x0, y0), (x1, y1) = item["rect"]
                pts = [px(p) for p in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))]
            elif "polygon" in item:
                pts = [px(p) for p in item["polygon"]]
            else:
                shape = item.get("circle") or item.get("ellipse")
                radii = shape.get("radii") or (shape["radius"], shape["radius"])
                t = np.linspace(0, 2 * np.pi, 48, endpoint=False)
                c = shape["center"]
                pts = [px((c[0] + radii[0] * np.cos(a), c[1] + radii[1] * np.sin(a))) for a in t]
            pygame.draw.lines(surface, colour, True, pts, width)

    def draw_selection(self, surface):
        hover = self.editor.hover
        if hover is not None and self.doc.exists(hover) and hover not in self.doc.selection:
            self._outline(surface, hover[0], self._drawn_item(hover), HOVER, 1)
        for ref in self.doc.selection:
            if not self.doc.exists(ref):
                continue
            item = self.doc.item(ref)
            self._outline(surface, ref[0], self._drawn_item(ref), SELECTED)
            for _, p in handles(ref[0], item):
                x, y = self._px(p)
                pygame.draw.rect(surface, HANDLE, pygame.Rect(x - 4, y - 4, 9, 9), 2)
        if self.editor.tool == "select":
            draw_turn_handles(self, surface)

    def draw_bodies(self, surface):
        """Each body filled in its colour (the theme's when it has none), its outline, and a
        cross at its centre of mass (its frame's origin, where a joint's offsets start) with a
        tick along its frame's x axis: the editor's own view, whatever the game draws."""
        for body in self.doc.definition.get("bodies", []):
            colour = body_colour(body)
            pts = [self._px(p) for p in rounded_outline(body)]
            pygame.draw.polygon(surface, tuple(int(v * 0.55) for v in colour), pts)
            pygame.draw.lines(surface, colour, True, pts, 2)
            (x, y), angle = body_pose(body)
            c, s = np.cos(angle), np.sin(angle)
            o = self._px((x, y))
            pygame.draw.line(surface, colour, (o[0] - 4, o[1]), (o[0] + 4, o[1]), 1)
            pygame.draw.line(surface, colour, (o[0], o[1] - 4), (o[0], o[1] + 4), 1)
            pygame.draw.line(surface, colour, o, (o[0] + 10 * c, o[1] - 10 * s), 1)
        d = self.doc.definition
        for joint in d.get("joints", []):           # where each joint holds a body (the game may not draw it)
            if isinstance(joint["a"], dict) or isinstance(joint["b"], dict):
                a, b = (self._px(p) for p in joint_ends(joint, d["balls"], d.get("bodies")))
                if a != b:
                    pygame.draw.line(surface, HANDLE, a, b, 2)
                for end in (a, b):
                    pygame.draw.circle(surface, MARKER_BACK, end, 5)
                    pygame.draw.circle(surface, HANDLE, end, 5, 2)

    def draw_preview(self, surface):
        ed = self.editor
        if ed.preview is not None and ed.preview[0] in ("plank", "box", "body", "joint-end"):
            body_preview(self, surface, ed.preview)
        elif ed.preview is not None:
            kind, pts = ed.preview
            screen = [self._px(p) for p in pts]
            if kind == "zone" and len(screen) == 2:
                (ax, ay), (bx, by) = screen
                pygame.draw.rect(surface, PREVIEW, pygame.Rect(min(ax, bx), min(ay, by), abs(bx - ax), abs(by - ay)), 2)
            elif len(screen) >= 2:
                pygame.draw.lines(surface, PREVIEW, kind == "polygon" and len(screen) > 2, screen,
                                  4 if kind == "joint" and ed.tool == "rod" else 2)
            ball = ed.joints.chain_radius * self.app.camera.scale if kind == "chain" else 0
            for k, p in enumerate(screen):         # a chain's balls as they will be, its ends as dots
                pygame.draw.circle(surface, PREVIEW, p, max(4, ball) if 0 < k < len(screen) - 1 else 4, 2 if ball > 4 else 0)
        if ed.box is not None:
            (ax, ay), (bx, by) = self._px(ed.box[0]), self._px(ed.box[1])
            pygame.draw.rect(surface, BOX, pygame.Rect(min(ax, bx), min(ay, by), abs(bx - ax), abs(by - ay)), 1)
        if ed.tool in ("ball", "spawner") and ed.snapped is not None and self.app.mouse_known:
            r = 0.25 * self.app.camera.scale
            pygame.draw.circle(surface, PREVIEW, self._px(ed.snapped[0]), r, 1)
        if ed.snapped is not None and ed.tool != "select" and self.app.mouse_known:
            p = self._px(ed.snapped[0])
            pygame.draw.circle(surface, SNAP, p, 6, 2)
            if not ed.snapped[1].startswith("grid"):
                self._label(surface, "snap: " + ed.snapped[1], (p[0] + 10, p[1] + 8), SNAP, SIZE_SMALL)

    def draw_moving_walls(self, surface):
        """Each moving wall's path as a faint ghost of its poses (a rotor over a turn, a slider
        to its far end, a flipper up), the wall where its motion has it now (the motion plays
        while the editor is paused), its pivot; a conveyor's chevrons along its surface."""
        d, now = self.doc.definition, self.app.time
        selected = set(self.doc.selection)
        key = (self.doc._state(), id(d))
        if self._moving_key != key:         # which walls move: found once per edit, not per frame
            self._moving_key = key
            self._moving = [(name, i) for name in ("segments", "polylines", "polygons")
                            for i, item in enumerate(d.get(name, []))
                            if "motion" in item or item.get("surface_speed") or item.get("kick")]
        for name, i in self._moving:
            item = d[name][i]
            motion = item.get("motion")
            if item.get("surface_speed"):
                self._chevrons(surface, name, item)
            if item.get("kick"):
                self._outline(surface, name, self._drawn_item((name, i)), KICK, 2)
            if motion is None:
                continue
            drawn = self._drawn_item((name, i))
            if name == "polygons" and drawn is not item and self.doc.group_of((name, i))[1] != i:
                continue                    # a non-convex polygon: its first piece draws the outline
            for ghost in ghosts(name, drawn):
                self._thin(surface, name, ghost, GHOST)
            self._thin(surface, name, moved(name, drawn, now), GHOST_NOW, 2 if (name, i) in selected else 1)
            if "pivot" in motion:
                x, y = self._px(motion["pivot"])
                pygame.draw.circle(surface, GHOST_NOW, (x, y), 6, 2)
                pygame.draw.line(surface, GHOST_NOW, (x - 9, y), (x + 9, y))
                pygame.draw.line(surface, GHOST_NOW, (x, y - 9), (x, y + 9))

    def _thin(self, surface, name, item, colour, width=1):
        """A wall's centre line (a round peg: its circle), thin whatever its radius: a ghost."""
        if name == "segments" and item["a"] == item["b"]:
            pygame.draw.circle(surface, colour, self._px(item["a"]), max(2, item["radius"] * self.app.camera.scale), width)
        elif name == "segments":
            pygame.draw.line(surface, colour, self._px(item["a"]), self._px(item["b"]), width)
        else:
            self._outline(surface, name, item, colour, width - 1)

    def _chevrons(self, surface, name, item):
        """Chevrons every CHEVRON_PX px along a conveyor's pieces, pointing the way its surface moves."""
        pts = [item["a"], item["b"]] if name == "segments" else list(item["points"])
        if name == "polygons" or item.get("closed"):
            pts = pts + [pts[0]]
        sign = 1.0 if item["surface_speed"] > 0 else -1.0
        for p, q in zip(pts, pts[1:]):
            a, b = np.asarray(self._px(p)), np.asarray(self._px(q))
            length = float(np.hypot(*(b - a)))
            if length < 1.0:
                continue
            u = (b - a) / length * sign
            n = np.array((-u[1], u[0]))
            for k in range(1, int(length // CHEVRON_PX) + 1):
                c = a + (b - a) * (k * CHEVRON_PX / (length + CHEVRON_PX))
                tip = c + 5 * u
                pygame.draw.lines(surface, CONVEYOR, False,
                                  [tuple(tip - 9 * u + 6 * n), tuple(tip), tuple(tip - 9 * u - 6 * n)], 2)

    def draw_markers(self, surface):
        """A ring with "!" at each finding; its reason beside it when there are few (moved
        down where two would overlap), else for the one under the pointer."""
        mx, my = self.app.mouse
        near = None
        for k, f in enumerate(self.mode.findings):
            x, y = self._px(f.point)
            pygame.draw.circle(surface, MARKER_BACK, (x, y), MARKER_RADIUS + 2)
            pygame.draw.circle(surface, MARKER, (x, y), MARKER_RADIUS, 3)
            self._label(surface, "!", (x, y + 1), MARKER, SIZE_BODY, centre=True, back=False, bold=True)
            d = (x - mx) ** 2 + (y - my) ** 2
            if d <= MARKER_HOVER ** 2 and (near is None or d < near[0]):
                near = (d, k)
        placed = []
        for k, f in enumerate(self.mode.findings):
            if len(self.mode.findings) <= MARKER_LABELS or (near is not None and near[1] == k):
                x, y = self._px(f.point)
                # Wrapped to a column that fits the window, beside the marker (right, else
                # left), and kept inside the window: never cut at its edge.
                hud, width = self.app.hud, surface.get_width()
                lines = hud.wrap_fit(f.reason, SIZE_SMALL, min(360, width // 2), max_lines=3)
                step = hud.font(SIZE_SMALL).get_linesize()
                w = max(hud.font(SIZE_SMALL).size(t)[0] for t in lines)
                rect = pygame.Rect(x + MARKER_RADIUS + 8, y - 8, w, step * len(lines)).inflate(10, 6)
                if rect.right > width:                          # no room on the right: the left
                    rect.right = x - MARKER_RADIUS - 4
                rect.left = max(0, min(rect.left, width - rect.width))
                while rect.collidelist(placed) >= 0:
                    rect.y += rect.height + 2
                placed.append(rect)
                panel = pygame.Surface(rect.size, pygame.SRCALPHA)
                panel.fill(PANEL_BG)
                surface.blit(panel, rect.topleft)
                for k, text in enumerate(lines):
                    surface.blit(hud.text(text, SIZE_SMALL, MARKER), (rect.x + 5, rect.y + 3 + k * step))

    def draw_toolbar(self, surface):
        name = self.doc.definition.get("name") or "(no name)"
        y = TOOLBAR_TOP + BUTTON_SIZE[1] + 6
        title = self.app.hud.text(f"Editing: {name}", SIZE_BODY, WARN, bold=True)
        surface.blit(title, (10, y))
        surface.blit(self.app.hud.text(HINT, SIZE_SMALL, EDITOR_DIM), (title.get_width() + 30, y + 2))
        for k, (rect, tool) in enumerate(zip(self.mode.toolbar_rects(), TOOLS)):
            pygame.draw.rect(surface, BUTTON_ON if tool == self.editor.tool else BUTTON_BG, rect, border_radius=4)
            pygame.draw.rect(surface, EDITOR_DIM, rect, 1, border_radius=4)
            s = self.app.hud.text(f"{TOOL_KEY[tool]} {tool}", SIZE_SMALL, TEXT)
            if s.get_width() > rect.width - 4:      # sixteen buttons: the long names smaller
                s = self.app.hud.text(f"{TOOL_KEY[tool]} {tool}", SIZE_TINY, TEXT)
            surface.blit(s, s.get_rect(center=rect.center))

    def draw_panel(self, surface):
        rows = self.editor.panel.properties()
        title = self.editor.panel.title()
        if not rows and not self.editor.pending:
            return
        rect = self.mode.panel_rect()
        panel = pygame.Surface(rect.size, pygame.SRCALPHA)
        panel.fill(PANEL_BG)
        surface.blit(panel, rect.topleft)
        surface.blit(self.app.hud.text(_fit_text(self.app.hud, title, SIZE_BODY, rect.width - 16, bold=True), SIZE_BODY,
                                       WARN, bold=True), (rect.x + 8, rect.y + 6))
        if not rows:                        # drawing a polyline or polygon: how to go on
            tip = "Enter ends, C closes" if self.editor.tool == "polyline" else "Enter closes it"
            hud = self.app.hud
            step = hud.font(SIZE_SMALL).get_linesize()
            for k, line in enumerate(hud.wrap_fit(tip + ", Backspace takes the last point back, Esc drops it",
                                                  SIZE_SMALL, rect.width - 16)):
                surface.blit(hud.text(line, SIZE_SMALL, EDITOR_DIM), (rect.x + 8, rect.y + 32 + k * step))
            return
        current = self.editor.panel.prop % len(rows)
        for k, (label, _key, _index, value) in enumerate(rows):
            y = rect.y + 30 + k * ROW_HEIGHT
            if k == current:
                pygame.draw.rect(surface, BUTTON_ON, pygame.Rect(rect.x + 2, y, rect.width - 4, ROW_HEIGHT - 2))
            surface.blit(self.app.hud.text(label, SIZE_BODY, TEXT if k == current else EDITOR_DIM), (rect.x + 8, y + 3))
            shown = f"{value:.4g}" if isinstance(value, float) else str(value)
            shown = _fit_text(self.app.hud, shown, SIZE_BODY, rect.width - 138)
            surface.blit(self.app.hud.text(shown, SIZE_BODY, TEXT), (rect.x + 130, y + 3))
        foot = self.app.hud.text(PANEL_HINT, SIZE_TINY, EDITOR_DIM)
        surface.blit(foot, (rect.x + 8, rect.bottom - foot.get_height() - 4))

    def draw_status(self, surface):
        ed, doc = self.editor, self.doc
        width, height = surface.get_size()
        bar = pygame.Surface((width, STATUS_HEIGHT), pygame.SRCALPHA)
        bar.fill(PANEL_BG)
        surface.blit(bar, (0, height - STATUS_HEIGHT))
        name = os.path.basename(doc.path) if doc.path else "(new level)"
        cx, cy = ed.cursor
        parts = [name + (" *" if doc.dirty else ""), f"cursor ({cx:.2f}, {cy:.2f}) m",
                 f"grid {ed.grid:g} m {'on' if ed.grid_on else 'off'}"]
        if ed.tool == "zone":
            parts.append(f"new zones: {ed.zone_kind}")
        if self.mode.findings:
            many = len(self.mode.findings) > MARKER_LABELS
            parts.append(f"{len(self.mode.findings)} check{'s' if many or len(self.mode.findings) > 1 else ''} found"
                         + (" (point at a ! for its reason)" if many else ""))
        hud = self.app.hud
        if self.mode.check_notes:
            parts.append(self.mode.check_notes[0])
        # What a click and a drag do (over a turn or scale handle: what its drag does), when
        # nothing else is said.
        hint = HANDLE_HINTS.get(ed.handle_hover) or TOOL_HINTS.get(ed.tool)
        if hint and not ed.message and hud.font(SIZE_BODY).size("    ".join(parts + [hint]))[0] <= width - 20:
            parts.append(hint)
        line = "    ".join(parts)
        message = ed.message
        if message and hud.font(SIZE_BODY).size(line + "    " + message)[0] <= width - 20:
            line, message = line + "    " + message, None
        colour = WARN if ed.message else TEXT
        surface.blit(hud.text(line, SIZE_BODY, colour), (10, height - STATUS_HEIGHT + 6))
        if message:
            # Too long for the status line: wrapped on a panel just above it, never cut at the edge.
            lines = hud.wrap_fit(message, SIZE_BODY, width - 40, max_lines=4)
            step = hud.font(SIZE_BODY).get_linesize()
            top = height - STATUS_HEIGHT - 8 - step * len(lines)
            box = pygame.Rect(6, top - 4, max(hud.font(SIZE_BODY).size(t)[0] for t in lines) + 16, step * len(lines) + 8)
            panel = pygame.Surface(box.size, pygame.SRCALPHA)
            panel.fill(PANEL_BG)
            surface.blit(panel, box.topleft)
            for k, text in enumerate(lines):
                surface.blit(hud.text(text, SIZE_BODY, WARN), (box.x + 8, top + k * step))

    def draw_prompt(self, surface):
        if self.mode.prompt is not None:
            lines = ["Unsaved changes.", "S: save    D: discard them    Esc: keep editing"]
        elif isinstance(self.doc.conflict, LevelError):
            lines = ["The level file on disk does not load (someone is editing it?).",
                     "K: keep yours (saving overwrites the file)    or fix the file: it is taken when it loads"]
        else:
            lines = ["The level file changed on disk while you have unsaved edits.",
                     "K: keep yours (saving overwrites the file)    T: take the file's (Ctrl+Z brings yours back)"]
        cx = surface.get_width() // 2
        y = surface.get_height() // 2 - 30
        for k, line in enumerate(lines):
            self._label(surface, line, (cx, y + 30 * k), WARN if k == 0 else TEXT, SIZE_BODY, centre=True, bold=k == 0)

    def draw_entry(self, surface):
        kind, text = self.mode.entry
        if kind == "name":
            line = f"Save as: my levels/{text}_.json    (Enter saves, Esc cancels)"
        else:
            rows = self.editor.panel.properties()
            label = rows[self.editor.panel.prop % len(rows)][0] if rows else "value"
            line = f"{label} = {text}_    (Enter sets, Esc cancels)"
            line = _fit_text(self.app.hud, line, SIZE_TITLE, surface.get_width() - 20)
        self._label(surface, line, (surface.get_width() // 2, surface.get_height() // 2 + 60), TEXT, SIZE_TITLE,
                    centre=True)


def _fit_text(hud, text, size, width, bold=False):
    """``text`` cut with "..." to ``width`` px (the panel's columns)."""
    from game.draw.hud import _fit
    return _fit(hud.font(size, bold), text, width)


BODY_COLOUR = (217, 164, 65)    # a body without a colour of its own
ARC_PIECES = 6                  # chords a rounded corner or a plank's end is drawn with


def body_colour(body):
    """(r, g, b) of a body: its ``colour`` ("#rrggbb" or [r, g, b]), else BODY_COLOUR."""
    c = body.get("colour")
    if isinstance(c, str) and len(c) == 7:
        return tuple(int(c[k:k + 2], 16) for k in (1, 3, 5))
    if isinstance(c, (list, tuple)) and len(c) >= 3:
        return tuple(int(v) for v in c[:3])
    return BODY_COLOUR


def rounded_outline(body):
    """A body's outline in metres, rounded by its radius: a plank's two half circles, a box's
    or polygon's corners each an arc (or the corners themselves without a radius)."""
    corners = np.asarray(body_outline(body), float)
    r = float(body.get("radius", 0.0))
    if r <= 0:
        return corners.tolist()
    if len(corners) == 2:       # a plank: around both ends
        d = corners[1] - corners[0]
        start = np.arctan2(d[1], d[0]) - np.pi / 2
        out = []
        for k, (p, a0) in enumerate(((corners[1], start), (corners[0], start + np.pi))):
            t = a0 + np.linspace(0, np.pi, 2 * ARC_PIECES + 1)
            out += np.column_stack((p[0] + r * np.cos(t), p[1] + r * np.sin(t))).tolist()
        return out
    n, out = len(corners), []
    area = np.sum(corners[:, 0] * np.roll(corners[:, 1], -1) - np.roll(corners[:, 0], -1) * corners[:, 1])
    sign = 1.0 if area > 0 else -1.0
    for k in range(n):
        p, prev, nxt = corners[k], corners[k - 1], corners[(k + 1) % n]
        e0, e1 = p - prev, nxt - p
        a0 = np.arctan2(e0[1], e0[0]) - sign * np.pi / 2
        a1 = np.arctan2(e1[1], e1[0]) - sign * np.pi / 2
        sweep = (a1 - a0 + np.pi) % (2 * np.pi) - np.pi
        t = a0 + np.linspace(0, sweep, ARC_PIECES + 1)
        out += np.column_stack((p[0] + r * np.cos(t), p[1] + r * np.sin(t))).tolist()
    return out


def body_preview(self, surface, preview):
    """EditView ``self``'s preview of a box, plank or body polygon being drawn (its refused corner ringed in red), or
    where a joint would hold the body under the pointer."""
    kind, pts = preview[0], preview[1]
    if kind == "plank":
        outline = rounded_outline({"shape": "capsule", "a": pts[0], "b": pts[1], "radius": preview[2]})
        if pts[0] != pts[1]:
            pygame.draw.lines(surface, PREVIEW, True, [self._px(p) for p in outline], 2)
    elif kind == "joint-end":
        x, y = self._px(pts[0])
        pygame.draw.circle(surface, PREVIEW, (x, y), 6, 2)
        pygame.draw.line(surface, PREVIEW, (x - 9, y), (x + 9, y))
    elif len(pts) >= 2:
        pygame.draw.lines(surface, PREVIEW, len(pts) > 2, [self._px(p) for p in pts], 2)
    for p in pts:
        pygame.draw.circle(surface, PREVIEW, self._px(p), 4)
    reflex = self.editor.bodies.reflex
    if kind == "body" and reflex is not None:
        x, y = self._px(reflex)
        pygame.draw.circle(surface, MARKER, (x, y), 10, 3)
        pygame.draw.line(surface, MARKER, (x - 7, y - 7), (x + 7, y + 7), 3)
        pygame.draw.line(surface, MARKER, (x - 7, y + 7), (x + 7, y - 7), 3)


def draw_turn_handles(self, surface):
    """EditView ``self``'s selection box (thin), its round turn handle above it on a stem and
    its scale handle off its corner (game.editor.turning: where they are picked is where they
    are drawn). While one is dragged: the centre it turns or scales about and a line from it to
    the pointer; a turn's handle goes round with the pointer (the box would swing under it)."""
    ed = self.editor
    at = ed.turning.handles(self.mode.tol())
    if not at:
        return
    gesture = ed._gesture
    dragged = gesture[0] if gesture is not None and gesture[0] in at else None
    if dragged == "turn":
        at = {"turn": ed.cursor}
    else:
        x0, y0, x1, y1 = ed.turning.box()
        (ax, ay), (bx, by) = self._px((x0, y1)), self._px((x1, y0))
        pygame.draw.rect(surface, EDITOR_DIM, pygame.Rect(min(ax, bx), min(ay, by), abs(bx - ax), abs(by - ay)), 1)
        pygame.draw.line(surface, EDITOR_DIM, self._px(((x0 + x1) / 2, y1)), self._px(at["turn"]), 1)
        pygame.draw.line(surface, EDITOR_DIM, (bx, by), self._px(at["scale"]), 1)
    if dragged is not None:
        cx, cy = self._px(gesture[1])
        pygame.draw.line(surface, SELECTED, (cx, cy), self._px(ed.cursor), 1)
        pygame.draw.line(surface, SELECTED, (cx - 6, cy), (cx + 6, cy), 2)
        pygame.draw.line(surface, SELECTED, (cx, cy - 6), (cx, cy + 6), 2)
    for name, p in at.items():
        x, y = self._px(p)
        lit = name == dragged or name == ed.handle_hover
        pygame.draw.circle(surface, SELECTED if lit else MARKER_BACK, (x, y), TURN_HANDLE_PX)
        pygame.draw.circle(surface, HANDLE, (x, y), TURN_HANDLE_PX, 2)
        if name == "turn":            # an open ring: turns
            r = TURN_HANDLE_PX - 3
            pygame.draw.arc(surface, HANDLE, pygame.Rect(x - r, y - r, 2 * r + 1, 2 * r + 1), 0.3, 4.4, 1)
        else:                         # a diagonal: scales
            pygame.draw.line(surface, HANDLE, (x - 3, y - 3), (x + 3, y + 3), 1)
