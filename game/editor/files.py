"""The editor's level file: saving (to its file, or as a new name), a new level from the
template, and what someone else wrote to the file while we edit (taken, or held as a
conflict until ``resolve``). No pygame here.
"""
import json
import os
import re

from game.level import LevelError, LevelWatcher, load_document, loads, save_document
from game.level.errors import stem
from game.editor.document import EditRefused

# A file name Save As takes: letters, digits, spaces, - and _, starting with a letter or digit
# (the strip takes spaces off its ends).
LEVEL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_\- ]{0,63}\Z")

TEMPLATE = {
    "$schema": "./level.schema.json",
    "format": 1,
    "name": "New level",
    "description": "",
    "bounds": [0, 0, 32, 18],
    "polylines": [{"points": [[0, 18], [0, 0], [32, 0], [32, 18]]}],
}


def template_definition(name="New level"):
    """A small new level (a box open at the top), normalised as the loader would."""
    return loads(json.dumps(template_document(name)), "<new level>")


def template_document(name="New level"):
    """The new level as its author writes it (what saving it unchanged writes)."""
    return json.loads(json.dumps(dict(TEMPLATE, name=name)))


class LevelFile:
    """The file of an Editor's document (``editor.files``): ``watcher`` (a LevelWatcher on
    it, or None) tells a foreign change from our own saves; what went wrong goes to
    ``editor.message`` in one line."""

    def __init__(self, editor):
        self.ed = editor
        self._saved_text = None     # what our last save wrote (not a foreign change)
        self.watcher = _watcher(editor.doc.path)

    def save(self, path=None):
        """Write the definition (to ``path``, else the document's own file) atomically.
        True when written; otherwise ``message`` says why in one line."""
        path = path or self.ed.doc.path
        if path is None:
            self.ed.message = "this level has no file yet: Ctrl+Shift+S to name it"
            return False
        if self.ed.doc.conflict is not None and os.path.abspath(path) == os.path.abspath(self.ed.doc.path or ""):
            self.ed.message = "the file changed on disk: keep yours (K) or take the file's (T) first"
            return False
        default_name = stem(path)
        try:
            document = self.ed.doc.authored(default_name)
        except Exception:               # never lose the edits over how they are written
            document = self.ed.doc.definition
        try:
            save_document(document, path, default_name)
        except LevelError as e:
            self.ed.message = str(e)
            return False
        self.ed.doc.register(document)
        self.ed.doc.path = path
        self.ed.doc.mark_saved()
        self._saved_text = _text(self.ed.doc.definition)
        self.watcher = _watcher(path)
        self.ed.message = f"saved {os.path.basename(path)}"
        return True

    def save_as(self, name, folder):
        """Save as ``folder/NAME.json`` (a plain name: letters, digits, spaces, - and _);
        never over another file. The level takes the name typed unless its author named it
        (its name is the template's, empty, or its old file's): "my level" saved from a new
        level is called "my level", not "New level". True when written."""
        name = " ".join(name.split())
        if name.lower().endswith(".json"):
            name = name[:-5].rstrip()
        if not LEVEL_NAME.match(name):
            self.ed.message = f"expected a name of letters, digits, spaces, - and _, got {name[:30]!r}"
            return False
        path = os.path.join(folder, name + ".json")
        if os.path.exists(path) and os.path.abspath(path) != os.path.abspath(self.ed.doc.path or ""):
            self.ed.message = f"{name}.json exists already: choose another name"
            return False
        doc = self.ed.doc
        old = doc.definition.get("name") or ""
        renamed = old != name and old.strip() in ("", TEMPLATE["name"], stem(doc.path or ""))
        if renamed:
            doc.apply("name the level", {"name": name})
        if self.save(path):
            return True
        if renamed:
            doc.undo()                  # not saved: the level keeps its name
        return False

    def new_level(self):
        """Start a new level from the template, as one undoable edit (undo brings the old one
        back); it has no file until Save As."""
        self.ed.doc.replace_definition(template_definition(), "new level")
        self.ed.doc.register(template_document())
        self.ed.doc.path = None
        self.watcher = None
        self.ed.set_tool("select")
        self.ed.message = "new level: Ctrl+Shift+S to name it"

    def poll_disk(self):
        """Ask the file watcher whether someone else changed our file; returns what happened
        ("taken", "conflict", "broken" or None). Our own saves are not foreign changes."""
        if self.watcher is None:
            return None
        got = self.watcher.poll()
        if got is None:
            return None
        if isinstance(got, LevelError):
            # someone is writing the file by hand: saving over it would lose their text
            self.ed.doc.conflict = got
            self.ed.message = f"the file on disk does not load (yours is kept): {got}"
            return "broken"
        if self._saved_text is not None and _text(got) == self._saved_text:
            return None
        result = self.ed.doc.file_changed(got)
        if result == "taken":
            self._register_file()
        if result == "conflict":
            self.ed.message = "the file changed on disk: K keeps yours, T takes the file's"
        elif result == "taken":
            self.ed.message = "reloaded: the file changed on disk (Ctrl+Z undoes)"
        self._saved_text = _text(self.ed.doc.definition) if result == "taken" else self._saved_text
        return result

    def _register_file(self):
        """The definition was just taken from our file: link it to the file's text, so the
        next save writes that text plus the edits (when the file still holds it)."""
        try:
            document, definition = load_document(self.ed.doc.path)
        except LevelError:
            return
        if _text(definition) == _text(self.ed.doc.definition):
            self.ed.doc.register(document)

    def resolve(self, choice):
        try:
            self.ed.doc.resolve(choice)
        except EditRefused as e:
            self.ed.message = str(e)
            return
        if choice == "theirs" and self.ed.doc.path is not None:
            self._register_file()
        self.ed.message = "kept yours (saving overwrites the file)" if choice == "mine" else \
            "took the file's version (Ctrl+Z brings yours back)"


def _watcher(path):
    return LevelWatcher(path) if path is not None else None


def _text(definition):
    return json.dumps(definition)
