"""Saving a level: checked, pretty, in a stable key order, atomically, through symlinks.

The text goes to a temporary file beside the target, which then replaces it: a crash
never leaves half a level. Saving through a symlink writes the file it points to (the
link stays a link); anything but a regular file (a device, a pipe) is never replaced.
Temporaries left by an interrupted save (kill -9, power loss) are removed by the next
save to the same folder: their names carry the saving process's id.
"""
import json
import os
import re
import stat
import tempfile
import time

from game.level.errors import LevelError, Problem, format_path, os_reason, size_text
from game.level.normalise import MAX_FILE_BYTES, complete, plain, strip
from game.level.read import file_kind, file_name

SAVE_WIDTH = 100                       # characters: a list or object this short stays on one line
STALE_SECONDS = 600                    # s: a temporary this old is stale even if its process lives
_TEMPORARY = re.compile(r"\.(?P<base>.+)\.(?P<pid>\d+)\.[^.]+\.tmp\Z")


def save(doc, path):
    """Write the level ``doc`` to ``path``: validated, pretty, in a stable key order, atomically.

    Keys equal to the defaults ``load`` fills in are left out of shapes, balls and the rest
    (``normalise.strip``), so ``load(save(doc))`` equals the normalised ``doc``. Raises
    LevelError for a document that is not a valid level (``path`` set) and for a path that
    cannot be written (``path`` None).
    """
    name = file_name(path)
    try:
        normal = complete(plain(doc))
    except Problem as p:
        raise LevelError(name, p.detail, format_path(p.path)) from None
    except RecursionError:
        raise LevelError(name, "expected a level nested less deeply, got too many levels of nesting",
                         "(top level)") from None
    text = pretty(strip(normal)) + "\n"
    size = len(text.encode("utf-8"))
    if size > MAX_FILE_BYTES:       # it would not load again: nothing is written
        raise LevelError(name, f"expected a level of at most {size_text(MAX_FILE_BYTES)} (what loads again), "
                               f"got {size_text(size, MAX_FILE_BYTES)}: nothing written", "(top level)")
    write_text(name, text)


def save_document(document, path, default_name="Untitled"):
    """Write the level ``document`` to ``path`` as it is, atomically: no default filled in
    or left out, keys in the document's order (``pretty``), so a document read with
    ``load_document`` and saved unchanged gives back a file in this format byte for byte.
    Validated as ``save`` does (``default_name`` names a level without a name); LevelError.
    """
    name = file_name(path)
    try:
        document = plain(document)
        complete(document, default_name)
    except Problem as p:
        raise LevelError(name, p.detail, format_path(p.path)) from None
    except RecursionError:
        raise LevelError(name, "expected a level nested less deeply, got too many levels of nesting",
                         "(top level)") from None
    write_text(name, pretty(document) + "\n")


def write_text(name, text):
    """Write ``text`` (UTF-8) to the regular file ``name`` (or the one its symlink names),
    atomically; LevelError (path None) when it cannot be written."""
    target = os.path.realpath(name)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise LevelError(name, f"cannot write: {os_reason(e)}") from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise LevelError(name, f"cannot write: expected a regular file, got {file_kind(st.st_mode)}")
    mode = 0o644 if st is None else st.st_mode & 0o777
    folder, base = os.path.split(target)
    remove_stale_temporaries(folder)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{base}.{os.getpid()}.", suffix=".tmp", dir=folder)
    except OSError as e:
        raise LevelError(name, f"cannot write: {os_reason(e)}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise LevelError(name, f"cannot write: {os_reason(e)}") from None
        raise
    _fsync_folder(folder)


def remove_stale_temporaries(folder, now=None):
    """Remove the temporaries of saves that died: their process is gone, or they are older
    than STALE_SECONDS. Returns the names removed. Never raises."""
    removed = []
    now = time.time() if now is None else now
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for entry in names:
        m = _TEMPORARY.match(entry)
        if m is None:
            continue
        path = os.path.join(folder, entry)
        try:
            st = os.lstat(path)
            if not stat.S_ISREG(st.st_mode):
                continue
            if _alive(int(m.group("pid"))) and now - st.st_mtime < STALE_SECONDS:
                continue
            os.unlink(path)
            removed.append(entry)
        except OSError:
            continue
    return removed


def _alive(pid):
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True                     # someone else's process, or we cannot tell: keep it
    return True


def pretty(value, indent=0, used=0):
    """JSON with 2-space indents; a list or object that fits in SAVE_WIDTH stays on one line.

    Linear in the size of the text: a container too long to fit is never written flat first.
    """
    container = isinstance(value, (dict, list))
    # n items need at least 3n - 2 characters: only a short container can fit on the line
    if not container or not value or (indent and len(value) <= SAVE_WIDTH // 3):
        flat = json.dumps(value, ensure_ascii=False, separators=(", ", ": "), allow_nan=False)
        if not container or not value or used + len(flat) <= SAVE_WIDTH:
            return flat
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        lines = []
        for k, v in value.items():
            head = pad + json.dumps(k, ensure_ascii=False) + ": "
            lines.append(head + pretty(v, indent + 2, len(head)))
    else:
        lines = [pad + pretty(v, indent + 2, len(pad)) for v in value]
    close = "}" if isinstance(value, dict) else "]"
    return ("{" if close == "}" else "[") + "\n" + ",\n".join(lines) + "\n" + " " * indent + close


def _fsync_folder(folder):
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
