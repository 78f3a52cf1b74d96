"""Reading a level: bytes from a regular file, JSON text, a normalised definition.

Only regular files are read: a folder, a named pipe (FIFO), a device or a socket is
refused in one line, and nothing can hang: the file is opened with O_NONBLOCK and
checked with fstat (the file opened, not a name that may change) before a byte is read.
"""
import contextlib
import gc
import hashlib
import json
import json.scanner
import math
import os
import re
import stat
import threading

from game.level import jsonpos
from game.level.errors import LevelError, Problem, cut, format_path, os_reason, size_text, stem
from game.level.normalise import MAX_FILE_BYTES, BadNumber, DuplicateKeys, complete

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a device"),
          (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"))


def file_kind(mode):
    """What a file of this st_mode is, in words, for a refusal ("a named pipe (FIFO)")."""
    return next((words for test, words in _KINDS if test(mode)), "not a regular file")


def read_file(name, limit=MAX_FILE_BYTES, what="level file"):
    """The bytes of the ``what`` ``name`` (a regular file of at most ``limit`` bytes, read
    without blocking on a pipe); LevelError otherwise."""
    try:
        st = os.stat(name)
    except OSError as e:
        raise LevelError(name, f"cannot read: {os_reason(e)}") from None
    _check_regular(name, st, limit, what)
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise LevelError(name, f"cannot read: {os_reason(e)}") from None
    try:
        st = os.fstat(fd)                   # the file we opened: it may have been swapped
        _check_regular(name, st, limit, what)
        chunks, size = [], 0
        while size <= limit:                # the file may have grown since the stat
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as e:
        raise LevelError(name, f"cannot read: {os_reason(e)}") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        raise LevelError(name, f"expected a {what} of at most {size_text(limit)}, got more "
                               f"(it grew while it was read)")
    return data


def _check_regular(name, st, limit=MAX_FILE_BYTES, what="level file"):
    if not stat.S_ISREG(st.st_mode):
        kind = file_kind(st.st_mode)
        if kind == "a folder":
            raise LevelError(name, f"cannot read: expected a {what}, got a folder")
        raise LevelError(name, f"cannot read: expected a regular file, got {kind}")
    if st.st_size > limit:
        raise LevelError(name, f"expected a {what} of at most {size_text(limit)}, "
                               f"got {size_text(st.st_size, limit)}")


def digest(data):
    """The hash that tells two contents apart (hex text)."""
    return hashlib.sha256(data).hexdigest()


def load_bytes(data, name, default_name, yielding=False, keep=False):
    """Decode, parse, check and normalise; LevelError only. ``yielding``: parse with the
    pure-Python scanner, which lets other threads run (the C one holds the interpreter
    for the whole parse). ``keep``: return (the parsed document, the normalised level)."""
    if len(data) > MAX_FILE_BYTES:
        raise LevelError(name, f"expected a level of at most {size_text(MAX_FILE_BYTES)}, "
                               f"got {size_text(len(data), MAX_FILE_BYTES)}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        start = e.start + (3 if data.startswith(b"\xef\xbb\xbf") else 0)
        line = data.count(b"\n", 0, start) + 1
        line_start = data.rfind(b"\n", 0, start) + 1
        col = len(data[line_start:start].decode("utf-8", "replace")) + 1
        raise LevelError(name, f"expected UTF-8 text, got the byte 0x{data[start]:02x}",
                         "(top level)", line, col) from None
    return guard(load_text, text, name, default_name, yielding, keep)


def guard(fn, *args):
    """Run fn; any exception that is not a LevelError becomes one (no traceback ever).
    args[1] is the file's name."""
    try:
        return fn(*args)
    except LevelError:
        raise
    except RecursionError:
        raise LevelError(args[1], "expected a level nested less deeply, got too many levels of nesting",
                         "(top level)") from None
    except MemoryError:
        raise LevelError(args[1], "cannot load: out of memory") from None
    except Exception as e:
        raise LevelError(args[1], f"internal error while loading: {type(e).__name__}: {e}") from None


# A \u escape of half a surrogate pair: the one way JSON text makes a string UTF-8 cannot hold.
_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")
_LONG_INTEGER = re.compile(r"-?[0-9]{4301,}")


def _decoder(yielding, odd):
    """A JSON decoder that notes in ``odd`` every value a level cannot hold (NaN, Infinity,
    a number beyond float, an integer of more than 20 digits, an object with a repeated
    key): without any, the values need no second walk."""
    def from_pairs(pairs):
        d = DuplicateKeys.from_pairs(pairs)
        if type(d) is not dict:
            odd.append(d)
        return d

    def bad(text):
        odd.append(text)
        return BadNumber(text)

    def number(text):
        value = float(text)
        return value if math.isfinite(value) else bad(text)

    decoder = json.JSONDecoder(object_pairs_hook=from_pairs, parse_constant=bad, parse_float=number)
    if yielding:
        decoder.scan_once = json.scanner.py_make_scanner(decoder)
    return decoder


@contextlib.contextmanager
def _collector_paused():
    """Pause the cycle collector: a parse makes millions of objects and no cycles, and the
    collector's passes over them cost more than the parse (16 MiB of points: 1.6 s -> 0.9 s)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def load_text(text, name, default_name, yielding=False, keep=False):
    """Parse, check and normalise JSON text; LevelError with the line and column.
    ``keep``: return (the parsed document as written, the normalised level)."""
    with _collector_paused():
        return _load_text(text, name, default_name, yielding, keep)


def _load_text(text, name, default_name, yielding, keep):
    odd = []
    try:
        obj = _decoder(yielding, odd).decode(text)
    except json.JSONDecodeError as e:
        path = jsonpos.path_at(text, e.pos)
        raise LevelError(name, jsonpos.syntax_detail(e, text), format_path(path), e.lineno, e.colno) from None
    except ValueError:                          # an integer of more than 4300 digits
        m = _LONG_INTEGER.search(text)
        if m is None:
            raise
        line, col = jsonpos.line_col(text, m.start())
        raise LevelError(name, f"expected a finite number, got {cut(m.group())}",
                         format_path(jsonpos.path_at(text, m.start())), line, col) from None
    try:
        clean = not odd and ("\\u" not in text or _SURROGATE.search(text) is None)
        normal = complete(obj, default_name, values_checked=clean)
        return (obj, normal) if keep else normal
    except Problem as p:
        line = col = None
        detail = p.detail
        offset = jsonpos.locate(text, p.path, p.at_key)
        if offset is not None:
            line, col = jsonpos.line_col(text, offset)
            m = jsonpos.TOKEN.match(text, offset) if p.show_token else None
            if m and m.group(3):                # the number as written (1e999, not inf)
                detail = f"expected a finite number, got {cut(m.group(3))}"
        raise LevelError(name, detail, format_path(p.path), line, col) from None


def load(path):
    """Read, validate and normalise the level file at ``path``. Raises LevelError only.

    Remembers what it read (``last_read``), so a LevelWatcher made next for the same
    unchanged file takes it as its baseline instead of reading and hashing it again.
    """
    return _load(path, False)


def load_document(path):
    """The level file at ``path`` as its author wrote it, and normalised: ``(document,
    definition)``. ``document`` is the parsed JSON (key order, comment keys and every
    number as parsed; no default filled in), ``definition`` what ``load`` returns. One
    read and one validation, with the same checks and messages as ``load``; LevelError only.
    The editor edits ``definition`` and saves ``document`` plus its edits (``save_document``).
    """
    return _load(path, True)


def _load(path, keep):
    name = file_name(path)
    before = stat_key(name)
    data = read_file(name)
    if before is not None and stat_key(name) == before:      # unchanged while it was read
        _remember(name, before, digest(data))
    return load_bytes(data, name, stem(name), keep=keep)


LAST_READS = 8          # files whose last read load() remembers
_last_reads = {}        # absolute path -> (stat key, digest)
_last_reads_lock = threading.Lock()


def stat_key(name):
    """(mtime ns, size, inode) of the file, None if it cannot be stat'ed."""
    try:
        st = os.stat(name)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def _remember(name, key, seen):
    with _last_reads_lock:
        _last_reads.pop(os.path.abspath(name), None)
        _last_reads[os.path.abspath(name)] = (key, seen)
        while len(_last_reads) > LAST_READS:
            del _last_reads[next(iter(_last_reads))]


def last_read(name):
    """(stat key, digest) of the bytes load() last read from ``name``, if the file's stat
    is still the same; else None."""
    with _last_reads_lock:
        remembered = _last_reads.get(os.path.abspath(name))
    if remembered is not None and remembered[0] == stat_key(name):
        return remembered
    return None


def loads(text, name="<string>"):
    """Validate and normalise a level from JSON text (str or bytes); ``name`` is used in messages."""
    name = os.fsdecode(name) if isinstance(name, (bytes, os.PathLike)) else str(name)
    default_name = "Untitled" if name.startswith("<") else stem(name)
    if isinstance(text, str):
        if len(text) > MAX_FILE_BYTES:
            raise LevelError(name, f"expected a level of at most {size_text(MAX_FILE_BYTES)}, "
                                   f"got {len(text)} characters")
        return guard(load_text, text, name, default_name)
    return load_bytes(bytes(text), name, default_name)


def file_name(path):
    """A path (str, bytes or os.PathLike) as text; LevelError for anything else."""
    try:
        name = os.fsdecode(path)
    except Exception:
        raise LevelError(repr(path)[:80], "cannot read: expected a file path") from None
    if not name:
        raise LevelError('""', "cannot read: expected a file path, got an empty one")
    return name
