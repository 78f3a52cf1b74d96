"""Levels: JSON text <-> level definitions (plain dicts), validated, with one-line errors.

    doc = load("levels/01_ball_pit.json")   # validated and normalised; LevelError on any problem
    document, doc = load_document(path)     # and the document as its author wrote it (the editor's)
    save_document(document, "out.json")     # written as it is: a file in this format comes back byte for byte
    save(doc, "out.json")                   # atomic: temporary file beside it, then rename
    watcher = LevelWatcher(path); watcher.poll()   # -> dict | LevelError | None, never blocks
    doc, watcher = open_level(path)         # both, reading the file once

The parts, one concern each:

- ``errors``: LevelError and the one-line, bounded message format;
- ``jsonpos``: line and column of a JSON path in the text (and the path at an offset);
- ``schema``: the schema check (fast, jsonschema only for the message) and its words;
- ``normalise``: DEFAULTS, the one table of defaults per kind; ``complete`` fills them
  in on load, ``strip`` leaves them out on save;
- ``read``: regular files only, at most MAX_FILE_BYTES, into a normalised level;
- ``save``: atomic, pretty, through symlinks, cleaning up after interrupted saves;
- ``watch``: LevelWatcher, which parses changes on a worker thread.

A normalised level has every key the world reads (see ``normalise``): the top level
(``$schema``, ``format``, ``name``, ``description``, ``gravity``, ``integrator``,
``substeps``, ``drag``, ``bounds``, ``material`` with restitution, friction, rolling and
density, and the seven lists); shapes and balls their surface (restitution, friction,
rolling: the level's material where they set none); balls ``vel``, ``spin`` (rad/s,
counter-clockwise), ``radius`` and either ``mass`` (when the file gives one) or
``density``; springs ``stiffness``, ``damping``, ``rest``; spawners and zones theirs.
Polygons are convex and counter-clockwise, rectangles [[x_min, y_min], [x_max, y_max]].

Every refusal is a LevelError whose str is one line of bounded length::

    levels/x.json:12:7: segments[3].b: expected [x, y], got [1, "a"]

``load`` and ``loads`` raise nothing else, whatever the bytes, and take under 2 s and
500 MB for any file they accept or refuse (see tools/hostile_levels.py).
"""
import glob
import os

from game.level.errors import LevelError
from game.level.normalise import DEFAULTS, FROM_MATERIAL, strip
from game.level.read import MAX_FILE_BYTES, load, load_document, loads
from game.level.save import save, save_document
from game.level.schema import SCHEMA_FILE
from game.level.watch import LevelWatcher, open_level

__all__ = ["DEFAULTS", "FROM_MATERIAL", "LevelError", "LevelWatcher", "MAX_FILE_BYTES", "SCHEMA_FILE",
           "complete", "level_files", "load", "load_document", "loads", "open_level", "save", "save_document",
           "strip"]


def complete(doc, name="<level>", default_name="Untitled"):
    """A level definition (a dict, perhaps partial or from the editor) checked and with
    every default filled in, as ``load`` returns it (``default_name`` when it has no name);
    LevelError if it is not a valid level."""
    from game.level.normalise import complete as fill_in, plain
    from game.level.errors import Problem, format_path
    try:
        return fill_in(plain(doc), default_name)
    except Problem as p:
        raise LevelError(name, p.detail, format_path(p.path)) from None
    except RecursionError:
        raise LevelError(name, "expected a level nested less deeply, got too many levels of nesting",
                         "(top level)") from None


def level_files(folder):
    """The playable levels of a folder, sorted by file name (schema files left out): the one
    list the game, the headless runner, the tests and the benchmarks share."""
    return sorted(p for p in glob.glob(os.path.join(glob.escape(folder), "*.json"))
                  if not p.endswith(".schema.json"))
