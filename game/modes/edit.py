"""EditMode: the level editor as a mode on the app's stack (Tab or F2 from play).

The world stops and the editor shows the level's definition (balls where the level puts
them), drawn by the renderer from a World built afresh from it after every edit; the
running world is never edited. Tab play-tests a fresh World from the edited definition,
Tab again returns with the definition as it was; Esc leaves (asking first when there are
unsaved edits). Unsaved edits are kept in an autosave in the player's data folder every few
seconds (game.editor.autosave) and come back when the editor next opens that level. The logic lives in game.editor.tools (pure, over world coordinates);
this module turns pygame events into its calls; game.modes.edit_draw (``mode.view``) draws
the toolbar, the property panel, the status line, the snap marker and the checks' markers.
"""
import copy
import os
import threading

import pygame

from game.checks import check_all
from game.editor.autosave import Autosaver
from game.editor.document import Document
from game.editor.files import template_document
from game.editor.tools import TOOLS, Editor
from game.level import LevelError, load_document, save_document
from game.modes.base import Mode
from game.modes.edit_draw import (BUTTON_SIZE, HINT_ROOM, PANEL_WIDTH, ROW_HEIGHT, STATUS_HEIGHT, TOOLBAR_TOP,
                                    EditView)
from game.modes.help import HelpMode
from game.app.progress import data_dir, my_levels_dir

PICK_PX = 8                  # px: how near the pointer must be to pick or snap to something
DOUBLE_CLICK = 0.35          # s between two clicks of a double click
DISK_POLL = 0.5              # s between checks of the file on disk
CHECK_DELAY = 0.3            # s after the last edit before the level checks run again
CHECK_SECONDS = 3.0          # s: each level check's budget in the editor (it runs beside the game)
AUTOSAVE_EVERY = 3.0         # s between writes of the unsaved edits to the autosave (game.editor.autosave)
ZOOM_PER_NOTCH = 1.15        # scale factor per wheel notch
EDIT_KEYMAP = (
    ("1 ... 9, J O P I", "tools: select, segment, polyline, polygon, ball, spawner, zone, spring, arc, rod, rope, pin, chain"),
    ("click / shift-click", "select / add to the selection (tool 1)"),
    ("drag", "move the selection, a handle (ends, corners), or box-select on empty space"),
    ("Ctrl+A", "select everything"),
    ("Delete, Backspace", "delete the selection"),
    ("Ctrl+D", "duplicate"),
    ("arrows", "nudge 5 cm (Shift: one grid step)"),
    ("segment tool", "drag a to b; a click makes a round peg"),
    ("polyline tool", "click points; Enter or a double click ends, C closes"),
    ("polygon tool", "click corners; Enter closes (non-convex is split)"),
    ("zone tool", "drag a rectangle; K: goal, kill or attractor"),
    ("spring tool", "drag from a ball to a ball or a point"),
    ("arc tool", "drag from the centre to the start (half a circle: a cup); the panel sets angles; Enter"),
    ("J  O  P  I", "joint tools: rod, rope, pin; chain (N balls hung between two ends)"),
    ("rod / rope tool", "click a ball or body, then another or empty space; a body (a ball with Shift) is held where clicked"),
    ("pin tool", "click a ball (an axle at its centre or where clicked) or a body: pinned there to the world"),
    ("a joint selected", "the panel sets kind, length, offsets, anchor, motor (speed, torque), break force"),
    ("a wall selected", "the panel sets surface speed, kick, motion; place pivot: then click where it goes"),
    ("B  L  Y", "body tools: box (drag; Shift: square), plank (drag; Shift+wheel: radius), body polygon (click corners)"),
    ("M", "turn the selected walls into bodies and bodies into walls, keeping their shape"),
    ("a body selected", "the panel sets size, density or mass, friction, restitution, colour, name; shows mass, inertia"),
    ("R  Shift+R", "turn the selection to the next 15 degrees counter-clockwise / clockwise"),
    (".  ,  (Shift: finer)", "scale the selection up / down by 10 % (1 %)"),
    ("round handles", "drag the one above the selection: turn it (Shift: 15-degree steps); off its corner: scale it"),
    ("nothing selected", "the panel sets the level: name, description, gravity, bounds, material, integrator, sub-steps"),
    ("[  ]", "previous / next property in the panel"),
    ("+  -  wheel on panel", "change it (sizes by 10 %; Shift: finer); click a row or V: type a value"),
    ("G / Ctrl+wheel", "grid on or off / grid size"),
    ("Ctrl+Z, Ctrl+Y, Ctrl+Shift+Z", "undo, redo, redo"),
    ("Ctrl+S / Ctrl+Shift+S", "save / save as a new file in my levels"),
    ("N", "new level from a template (Ctrl+Z brings this one back)"),
    ("K / T", "when the file changed on disk: keep yours / take the file's"),
    ("Tab", "play-test; Tab again returns to the editor"),
    ("wheel / right drag / F", "zoom / pan / fit"),
    ("Esc", "leave the editor"),
)


def install_editor(app, open_now=False):
    """Wire Tab/F2 through ``app.editor_factory``; one editor per app, so its undo history
    and unsaved edits survive leaving and coming back. ``open_now`` pushes it at once."""
    holder = {}

    def factory(app_):
        mode = holder.get("mode")
        if mode is None or mode.app is not app_:
            mode = holder["mode"] = EditMode(app_)
        return mode

    app.editor_factory = factory
    if open_now:
        app.push(factory(app))


class EditMode(Mode):
    """The editor on top of play. While play-testing it stands aside: the world runs and
    play handles the input, except Tab/F2/Esc which come back here."""
    opaque = True

    def __init__(self, app):
        super().__init__(app)
        self.autosaver = Autosaver(data_dir())
        self.editor = self._editor_for_session()
        self.view = EditView(self)  # how it looks: the overlays, the toolbar, the panel, the status line
        self.testing = False
        self.entry = None           # (kind, text): typing a "name" or a property "value"
        self.prompt = None          # "leave", "quit" or None
        self.findings = []
        self.check_notes = []       # one line each for a check its budget cut short (game.checks.check_all)
        self._world = None
        self._world_state = object()
        self._checked_state = object()
        self._checker = None        # the _Checker thread running, if any
        self._check_at = 0.0
        self._next_poll = 0.0
        self._last_click = (-1.0, (0, 0))
        self._pan = None
        self._quit_ok = False
        self._outside = True        # not on the stack: the next enter() is a push from play
        self._autosave_at = AUTOSAVE_EVERY

    # ---- the stack ------------------------------------------------------------------------
    @property
    def pauses_below(self):
        return not self.testing

    @property
    def doc(self):
        return self.editor.doc

    def enter(self):
        """Pushed from play: edit the session's level (our own unsaved edits stay, as does
        the history while the level is the one we left). Uncovered (help closed): as we were."""
        if not self._outside:
            return
        self._outside = False
        session = self.app.session
        same_file = os.path.abspath(session.path) == os.path.abspath(self.doc.path or "")
        if not self.doc.dirty and not (same_file and _same(session.doc, self.doc.definition)):
            self.editor = self._editor_for_session()
        self.view = EditView(self)  # how it looks: the overlays, the toolbar, the panel, the status line
        self.testing = False
        self._world_state = object()        # rebuild the shown world
        if self.app.camera.fitted:
            self.fit()

    def exit(self):
        """Left (not covered by help): play's own view of the level again."""
        if self._outside and self.app.camera.fitted:
            self.app.fit_camera()

    def fit(self):
        """Show the whole level beside the toolbar, the property panel and the status line."""
        self.app.camera.fit(self.doc.definition["bounds"],
                            inset=(TOOLBAR_TOP + BUTTON_SIZE[1] + HINT_ROOM, STATUS_HEIGHT, PANEL_WIDTH + 16))

    def _editor_for_session(self):
        """An editor on the session's level. While its file does not load, the session plays
        a placeholder: that gets no file (Save As names one), so the broken file is never
        overwritten by it."""
        session = self.app.session
        if session.error:
            editor = Editor(Document(copy.deepcopy(session.doc), None))
            editor.message = "the level file does not load: this is a new level (Ctrl+Shift+S names it)"
            return editor
        try:            # the file as its author wrote it: what saving writes back, plus the edits
            document, definition = load_document(session.path)
        except LevelError:
            document = None
        if document is not None and _same(definition, session.doc):
            editor = Editor(Document(definition, session.path, document))
        else:
            editor = Editor(Document(copy.deepcopy(session.doc), session.path))
        self.autosaver.discard()            # the level left had no unsaved edits: no autosave of it stays
        self.autosaver.restore(editor)      # edits not saved last time (a crash, a kill) come back
        return editor

    def can_quit(self):
        """Unsaved edits: back to the editor (from a play-test too) and ask first."""
        if self._quit_ok or not self.doc.dirty:
            return True
        if self.testing:
            self.stop_test()
        self.prompt = "quit"
        return False

    # ---- time -----------------------------------------------------------------------------
    def update(self, frame_dt):
        app = self.app
        if app.time >= self._autosave_at:
            self._autosave_at = app.time + AUTOSAVE_EVERY
            self.autosave()
        if self.testing:
            app.play.update(frame_dt)
            return
        if app.time >= self._next_poll:
            self._next_poll = app.time + DISK_POLL
            if self.editor.files.poll_disk() == "taken":
                self._sync_session()
        self._run_checks()

    def _run_checks(self):
        """The level checks, on a worker thread (a big level's flood takes a good part of a
        second): started once the definition has rested CHECK_DELAY s, their findings shown
        when they are done (those of an older definition are dropped)."""
        state = self.doc._state()
        worker = self._checker
        if worker is not None and not worker.is_alive():
            self._checker = None
            if worker.state == state:
                self.findings, self.check_notes = worker.findings, worker.notes
        if (self._checker is None and state != self._checked_state and self.app.time >= self._check_at):
            self._checked_state = state
            self._checker = _Checker(copy.deepcopy(self.doc.definition), state)
            self._checker.start()

    def wait_for_checks(self, timeout=10.0):
        """Block until the running checks are done and shown (for tests and tools)."""
        if self._checker is not None:
            self._checker.join(timeout)
            self._run_checks()

    def shown_world(self):
        """The World built from the definition as it is now (rebuilt after each edit)."""
        state = (self.doc._state(), id(self.doc.definition))
        if state != self._world_state or self._world is None:
            self._world = self.app.session.build(copy.deepcopy(self.doc.definition))
            self._world_state = state
            self._check_at = self.app.time + CHECK_DELAY
            self.app.renderer.invalidate()
        return self._world

    # ---- input ----------------------------------------------------------------------------
    def handle_event(self, event):
        kind = event.type
        if self.testing:
            if kind == pygame.KEYDOWN and event.key in (pygame.K_TAB, pygame.K_F2, pygame.K_ESCAPE):
                self.stop_test()
                return True
            return self.app.play.handle_event(event)
        if kind == pygame.KEYDOWN:
            return self.key(event)
        if kind == pygame.MOUSEBUTTONDOWN:
            self.button_down(event.button, event.pos)
        elif kind == pygame.MOUSEMOTION:
            self.motion(event.pos)
        elif kind == pygame.MOUSEBUTTONUP:
            self.button_up(event.button, event.pos)
        elif kind == pygame.MOUSEWHEEL:
            self.wheel(getattr(event, "precise_y", event.y))
        else:
            return False
        return True

    def key(self, event):
        ed, key = self.editor, event.key
        mods = event.mod
        ctrl, shift = bool(mods & pygame.KMOD_CTRL), bool(mods & pygame.KMOD_SHIFT)
        if self.entry is not None:
            self.type_key(event)
        elif self.prompt is not None:
            self.answer(key)
        elif self.doc.conflict is not None and key in (pygame.K_k, pygame.K_t):
            ed.files.resolve("mine" if key == pygame.K_k else "theirs")
        elif key in (pygame.K_TAB, pygame.K_F2):
            self.start_test()
        elif key == pygame.K_ESCAPE and not (ed.pending or ed._gesture or ed.busy()):
            self.leave()
        elif key in (pygame.K_h, pygame.K_F1) and not ctrl:
            self.app.push(HelpMode(self.app, EDIT_KEYMAP, "Level editor: keys and mouse"))
        elif ctrl and key == pygame.K_s:
            if shift or self.doc.path is None:
                self.entry = ("name", "")
            else:
                self.save()
        elif key == pygame.K_n and not ctrl:
            ed.files.new_level()
        elif key == pygame.K_f and not ctrl:
            self.fit()
        elif key == pygame.K_LEFTBRACKET:
            ed.panel.select_prop(-1)
        elif key == pygame.K_RIGHTBRACKET:
            ed.panel.select_prop(+1)
        elif key in (pygame.K_EQUALS, pygame.K_PLUS, pygame.K_KP_PLUS):
            ed.panel.step_prop(+1, fine=shift and key != pygame.K_PLUS)
        elif key in (pygame.K_MINUS, pygame.K_KP_MINUS):
            ed.panel.step_prop(-1, fine=shift)
        elif key == pygame.K_v and not ctrl:
            if ed.panel.properties():
                self.entry = ("value", "")
        else:
            return ed.key(pygame.key.name(key), shift=shift, ctrl=ctrl)
        return True

    def type_key(self, event):
        kind, text = self.entry
        if event.key == pygame.K_ESCAPE:
            self.entry = None
        elif event.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
            self.entry = None
            if kind == "name":
                folder = my_levels_dir()        # the player's own levels: never among the shipped ones
                try:
                    os.makedirs(folder, exist_ok=True)
                except OSError as error:
                    self.editor.message = f"cannot make {folder}: {error.strerror or error}"
                    return True
                if self.editor.files.save_as(text, folder):
                    self.autosave()
                    # Play goes on with the file just named; the view stays where it is.
                    camera = self.app.camera
                    view = (camera.center.copy(), camera.scale, camera.fitted)
                    self.app.session.open(self.doc.path)
                    camera.center, camera.scale, camera.fitted = view
                    self.app.renderer.invalidate()
            else:
                self.editor.panel.type_prop(text)
                self._world_state = object()
        elif event.key == pygame.K_BACKSPACE:
            self.entry = (kind, text[:-1])
        elif event.unicode and event.unicode.isprintable() and len(text) < 64:
            self.entry = (kind, text + event.unicode)

    def answer(self, key):
        """The leave or quit prompt: S saves, D discards, Esc keeps editing."""
        what, self.prompt = self.prompt, None
        if key == pygame.K_s:
            if self.doc.path is None:
                self.entry = ("name", "")
                return
            if not self.save():
                return
        elif key != pygame.K_d:
            return
        if what == "quit":
            if key == pygame.K_d:
                self.autosaver.discard()    # thrown away on purpose: not brought back next time
            self._quit_ok = True
            self.app.request_quit()
        else:
            if key == pygame.K_d:
                while self.doc.undo():      # back to the last saved state: nothing else is kept
                    if not self.doc.dirty:
                        break
            self.leave()

    def save(self):
        if self.editor.files.save():
            self._sync_session()
            self.app.toast(self.editor.message)
            self.autosave()
            return True
        return False

    def autosave(self):
        """Keep the unsaved edits in the autosave, or remove it once there are none."""
        error = self.autosaver.keep(self.doc)
        if error and error != self.editor.message:
            self.editor.message = error

    def leave(self):
        if self.doc.dirty:
            self.prompt = "leave"
            return
        self.autosave()
        self._sync_session()
        self._outside = True
        self.app.pop()

    def start_test(self):
        """Play a fresh World built from the edited definition; the definition is not touched."""
        self.testing = True
        self.app.session.set_doc(copy.deepcopy(self.doc.definition))
        self.app.clock.paused = False
        self.app.toast("play-test: Tab returns to the editor")

    def stop_test(self):
        self.testing = False
        self._world_state = object()
        self.app.renderer.invalidate()

    def _sync_session(self):
        """Play continues from the definition as edited (and as saved: the live reload then
        sees no change in our own write)."""
        self.app.session.set_doc(copy.deepcopy(self.doc.definition))
        if self.doc.path is not None:
            self.app.session.path = self.doc.path

    # ---- pointer --------------------------------------------------------------------------
    def tol(self):
        return PICK_PX / self.app.camera.scale

    def world_point(self, pos):
        return tuple(float(v) for v in self.app.camera.screen_to_world(pos))

    def button_down(self, button, pos):
        if button in (2, 3):
            self._pan = (pos, pos)
            return
        if button != 1:
            return
        tool = self.toolbar_hit(pos)
        if tool is not None:
            self.editor.set_tool(tool)
            return
        row = self.panel_hit(pos)
        if row is not None:
            self.editor.panel.prop = row
            if self.editor.panel.properties()[row][1] in ("wall:place", "ball:joints"):
                self.editor.panel.step_prop(+1)     # an action, not a value: a click does it
            else:
                self.entry = ("value", "")
            return
        shift = bool(_mods() & pygame.KMOD_SHIFT)
        self.editor.press(self.world_point(pos), self.tol(), shift=shift)

    def motion(self, pos):
        if self._pan is not None:
            last = self._pan[1]
            self.app.camera.pan(pos[0] - last[0], pos[1] - last[1])
            self._pan = (self._pan[0], pos)
            return
        self.editor.motion(self.world_point(pos), self.tol(), shift=bool(_mods() & pygame.KMOD_SHIFT))

    def button_up(self, button, pos):
        if button in (2, 3):
            self._pan = None
            return
        if button != 1 or self.toolbar_hit(pos) is not None or self.panel_hit(pos) is not None:
            return
        shift = bool(_mods() & pygame.KMOD_SHIFT)
        p = self.world_point(pos)
        self.editor.release(p, self.tol(), shift=shift)
        t, last = self._last_click
        if self.app.time - t <= DOUBLE_CLICK and abs(pos[0] - last[0]) <= 4 and abs(pos[1] - last[1]) <= 4:
            self.editor.double_click(p, self.tol())
            self._last_click = (-1.0, (0, 0))
        else:
            self._last_click = (self.app.time, pos)

    def wheel(self, notches):
        if _mods() & pygame.KMOD_CTRL:
            self.editor.grid_step(notches)
            return
        ed = self.editor
        if ed.tool == "plank" and (_mods() & pygame.KMOD_SHIFT or ed.bodies.start is not None):
            ed.bodies.wheel(notches)            # the plank's radius: Shift+wheel, or the wheel mid-drag
            return
        row = self.panel_hit(self.app.mouse)
        if row is not None:
            self.editor.panel.prop = row
            self.editor.panel.step_prop(1 if notches > 0 else -1,
                                  fine=bool(_mods() & pygame.KMOD_SHIFT))
            return
        self.app.camera.zoom_at(self.app.mouse, ZOOM_PER_NOTCH ** notches)

    # ---- layout ---------------------------------------------------------------------------
    def toolbar_rects(self):
        """One button a tool, narrower where the window would not hold them all at full width."""
        w, h = BUTTON_SIZE
        w = max(36, min(w, (self.app.size[0] - 16) // len(TOOLS) - 4))
        return [pygame.Rect(8 + k * (w + 4), TOOLBAR_TOP, w, h) for k in range(len(TOOLS))]

    def toolbar_hit(self, pos):
        for rect, tool in zip(self.toolbar_rects(), TOOLS):
            if rect.collidepoint(pos):
                return tool
        return None

    def panel_rect(self):
        rows = self.editor.panel.properties()
        width, _ = self.app.size
        return pygame.Rect(width - PANEL_WIDTH - 8, TOOLBAR_TOP + BUTTON_SIZE[1] + 8, PANEL_WIDTH,
                           34 + ROW_HEIGHT * max(2, len(rows)) + 22)

    def panel_hit(self, pos):
        rows = self.editor.panel.properties()
        if not rows:
            return None
        rect = self.panel_rect()
        if not rect.collidepoint(pos):
            return None
        k = (pos[1] - rect.y - 30) // ROW_HEIGHT
        return int(k) if 0 <= k < len(rows) else None

    # ---- drawing ----------------------------------------------------------------------------
    def draw(self, surface):
        self.view.draw(surface)


class _Checker(threading.Thread):
    """game.checks.check_all on a copy of the definition, off the frame. The checks keep to
    their budget of time and memory (a note says which one stopped); whatever a check
    raises is one line in the notes, never the editor's end (the edit stays)."""

    def __init__(self, definition, state):
        super().__init__(daemon=True, name="level checks")
        self.definition, self.state, self.findings, self.notes = definition, state, [], []

    def run(self):
        try:
            checked = check_all(self.definition, CHECK_SECONDS)
            self.findings, self.notes = checked.findings, checked.notes
        except BaseException as e:      # noqa: BLE001 - a bug in a check must not take the editor down
            text = (str(e).strip().splitlines() or [""])[0][:200]
            self.findings, self.notes = [], [f"the level checks failed: {type(e).__name__}: {text}"]


def _mods():
    """The held modifier keys (none where there is no video system, as in headless tests)."""
    try:
        return pygame.key.get_mods()
    except pygame.error:
        return 0


def _same(a, b):
    import json
    return json.dumps(a) == json.dumps(b)


def new_level_file(path):
    """Write the template level to ``path`` (for ``--edit`` on a file that is not there yet)."""
    save_document(template_document(os.path.splitext(os.path.basename(path))[0] or "New level"), path)
