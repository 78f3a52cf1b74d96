"""The editor's autosave: the level being edited, written every few seconds while it holds
unsaved edits, so a crash, a killed window or a wrong answer to a question loses at most those
seconds. No pygame here.

An autosave is a level file (``save``: validated, written atomically) in ``<data
folder>/autosave/``, named after the level's file and a hash of its full path
(``01_ball_pit-3f2a9c1d0b4e.json``; a level with no file yet: after its name), with one
comment key, ``"_autosave_of"``, the path of the level it keeps (or "" for a level without a
file). So it also opens as any level does (``python main.py --edit`` on it). It is removed
when the edits are saved or discarded; the editor opening that level again restores it (an
undoable edit: Ctrl+Z gives back the file as saved).
"""
import hashlib
import json
import os
import re

from game.level import LevelError, load, save

FOLDER = "autosave"
OF_KEY = "_autosave_of"         # the comment key naming the level an autosave keeps


def autosave_path(data_folder, level_path, name="New level"):
    """Where the autosave of the level at ``level_path`` goes (``name``: the level's, for a
    level with no file, ``level_path`` None)."""
    key = os.path.realpath(level_path) if level_path else f"<no file>/{name}"
    digest = hashlib.sha1(key.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    base = os.path.splitext(os.path.basename(level_path))[0] if level_path else name
    base = re.sub(r"[^A-Za-z0-9_-]+", "_", base).strip("_")[:40] or "level"
    return os.path.join(data_folder, FOLDER, f"{base}-{digest}.json")


def write(path, definition, level_path):
    """Write ``definition`` as the autosave at ``path``; "" when written, else one line."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        save({**definition, OF_KEY: os.path.realpath(level_path) if level_path else ""}, path)
    except (LevelError, OSError) as error:
        return f"autosave failed: {error}"
    return ""


def read(path):
    """The level definition kept at ``path`` (its comment key taken out), or None where there
    is none or it does not load (read as levels are: bounded in size and depth)."""
    if not os.path.isfile(path):
        return None
    try:
        definition = load(path)
    except LevelError:
        return None
    definition.pop(OF_KEY, None)
    return definition


def remove(path):
    """Remove the autosave at ``path`` if it is there; True when none is left."""
    try:
        os.remove(path)
    except FileNotFoundError:
        pass
    except OSError:
        return False
    return True


class Autosaver:
    """The autosave of one editor's document: ``keep(doc)`` writes the unsaved edits (when
    they changed since the last write) or removes the autosave once there are none;
    ``restore(editor)`` takes the autosave of the level the editor just opened, if there is
    one, as an undoable edit; ``discard()`` removes it (the player threw the edits away).
    ``data_folder``: the player's (game.app.progress.data_dir)."""

    def __init__(self, data_folder):
        self.data_folder = data_folder
        self.written = None             # the autosave file this editor holds now, if any
        self._kept = None               # (document state, file) last written

    def path_for(self, doc):
        return autosave_path(self.data_folder, doc.path, doc.definition.get("name") or "New level")

    def keep(self, doc):
        """Returns "" or the one line saying why the autosave could not be written."""
        if not doc.dirty:
            self.discard()
            return ""
        target = self.path_for(doc)
        state = (doc._state(), target)
        if state == self._kept:
            return ""
        self._kept = state
        error = write(target, doc.definition, doc.path)
        if not error:
            if self.written is not None and self.written != target:
                remove(self.written)    # a level without a file renamed, or saved as another
            self.written = target
        return error

    def discard(self):
        if self.written is not None:
            remove(self.written)
        self.written, self._kept = None, None

    def restore(self, editor):
        """The autosave of the editor's level, if it differs from the level, becomes the
        definition (one edit: Ctrl+Z gives back the level as its file has it); True if so."""
        doc = editor.doc
        target = self.path_for(doc)
        kept = read(target)
        if kept is None:
            return False
        self.written, self._kept = target, None
        if _text(kept) == _text(doc.definition):
            self.discard()              # the same as the file: nothing was lost
            return False
        doc.replace_definition(kept, "restore the autosave")
        editor.message = "restored your unsaved edits from the autosave (Ctrl+Z: the level as saved)"
        return True


def _text(definition):
    return json.dumps(definition, sort_keys=True)
