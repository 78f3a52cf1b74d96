"""LevelError and the one-line message: ``file:line:col: json.path: expected ..., got ...``.

Every value quoted in a message is an excerpt: a long key, token or list is cut short and
its length said, so a message stays one printable line of at most MESSAGE_MAX characters
whatever the file holds.
"""
import json
import os
import re

QUOTE_MAX = 40                 # characters: a quoted key or token longer than this is cut
RENDER_MAX = 60                # characters: a value rendered as JSON is cut past this
MESSAGE_MAX = 400              # characters: no message is longer (the file name is cut first)


class LevelError(Exception):
    """A level that cannot be loaded or saved. ``str(e)`` is one line:
    ``file:line:col: json.path: expected ..., got ...``, at most MESSAGE_MAX characters.

    Attributes: ``file``, ``line`` and ``col`` (1-based, None where unknown), ``path`` (the
    JSON path as text, None for problems with the file itself), ``detail`` (the rest).
    """

    def __init__(self, file, detail, path=None, line=None, col=None):
        self.file, self.detail, self.path, self.line, self.col = file, detail, path, line, col
        where = file if line is None else f"{file}:{line}:{col}"
        tail = ": ".join(([path] if path is not None else []) + [detail])
        super().__init__(one_line(_bounded(where, tail)))


class Problem(Exception):
    """A refusal at a JSON path (a tuple of keys and indices), located in the text later.

    ``at_key``: point at the key rather than its value; ``show_token``: quote the number
    as written (1e999 rather than inf).
    """

    def __init__(self, path, detail, at_key=False, show_token=False):
        super().__init__(detail)
        self.path, self.detail, self.at_key, self.show_token = tuple(path), detail, at_key, show_token


def _bounded(where, tail):
    """``where: tail`` in at most MESSAGE_MAX characters: a long file name loses its
    middle first, then the tail its end."""
    room = MESSAGE_MAX - len(tail) - 2
    if len(where) > max(room, 40):
        keep = max(room, 40) - 3
        where = where[:keep // 2] + "..." + where[len(where) - (keep - keep // 2):]
    text = f"{where}: {tail}"
    return text if len(text) <= MESSAGE_MAX else text[:MESSAGE_MAX - 3] + "..."


_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*\Z")


def format_path(path):
    """('segments', 3, 'b') -> 'segments[3].b'; () -> '(top level)'; long keys cut.

    >>> format_path(("segments", 3, "b"))
    'segments[3].b'
    >>> format_path(())
    '(top level)'
    """
    out = ""
    for step in path:
        if isinstance(step, int):
            out += f"[{step}]"
        elif _IDENTIFIER.match(step) and len(step) <= QUOTE_MAX:
            out += ("." if out else "") + step
        else:
            out += "[" + quote(step) + "]"
    return out or "(top level)"


def quote(text, limit=QUOTE_MAX):
    """Text as a JSON string, cut to ``limit`` characters with its length said.

    >>> quote("radius")
    '"radius"'
    >>> quote("x" * 100, 5)
    '"xxxxx"... (100 characters)'
    """
    if len(text) <= limit:
        return json.dumps(text, ensure_ascii=False)
    return json.dumps(text[:limit], ensure_ascii=False) + f"... ({len(text)} characters)"


def cut(text, limit=24):
    """A token as written, cut to ``limit`` characters with its length said.

    >>> cut("1e999")
    '1e999'
    >>> cut("9" * 30, 4)
    '9999... (30 characters)'
    """
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def render(value, limit=RENDER_MAX):
    """A value as compact JSON for a message, cut short with '...' past ``limit`` characters.

    Never walks more of the value than it shows: a huge list or text costs no more than a
    small one.

    >>> render([1, "a"])
    '[1, "a"]'
    >>> len(render(list(range(10 ** 6))))
    60
    >>> render("n" * 10 ** 7)
    '"nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn"... (10000000 characters)'
    """
    if isinstance(value, str):
        return quote(value)
    parts, budget = [], [limit + 1]

    def emit(s):
        parts.append(s)
        budget[0] -= len(s)

    def walk(v):
        if budget[0] <= 0:
            return
        if hasattr(v, "text") and type(v).__name__ == "BadNumber":
            emit(cut(v.text))
        elif isinstance(v, dict):
            emit("{")
            for n, (k, x) in enumerate(v.items()):
                if budget[0] <= 0:
                    return
                emit((", " if n else "") + quote(k, max(min(budget[0], QUOTE_MAX), 1)) + ": ")
                walk(x)
            emit("}")
        elif isinstance(v, (list, tuple)):
            emit("[")
            for n, x in enumerate(v):
                if budget[0] <= 0:
                    return
                emit(", " if n else "")
                walk(x)
            emit("]")
        elif isinstance(v, str):
            emit(quote(v, max(min(budget[0], QUOTE_MAX), 1)))
        else:
            try:
                emit(json.dumps(v, ensure_ascii=False))
            except (TypeError, ValueError):
                emit(repr(v)[:limit + 1])

    try:
        walk(value)
    except RecursionError:
        pass
    text = "".join(parts)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def one_line(text):
    """Escape line breaks, control characters and lone surrogates so a message stays one
    printable line.

    >>> one_line("a\\nb")
    'a\\\\x0ab'
    """
    out = []
    for ch in text:
        o = ord(ch)
        if o < 32 or o == 127 or 0x80 <= o < 0xA0 or 0xD800 <= o < 0xE000 or ch in "\u2028\u2029":
            out.append(f"\\x{o:02x}" if o < 256 else f"\\u{o:04x}")
        else:
            out.append(ch)
    return "".join(out)


def os_reason(e):
    """The reason of an OSError in lower case ("no such file or directory")."""
    return (e.strerror or str(e)).lower() if isinstance(e, OSError) else str(e)


def size_text(n, limit=None):
    """A size in bytes for a message; next to ``limit`` the real difference shows.

    >>> size_text(2048)
    '2048 bytes'
    >>> size_text(16 * 2 ** 20 + 1, 16 * 2 ** 20)
    '16 MiB + 1 byte'
    """
    mib = 1024 * 1024
    if n < mib:
        return f"{n} bytes"
    if limit is not None and n > limit and n - limit < mib // 10:
        extra = n - limit
        return f"{size_text(limit)} + {extra} byte{'s' if extra != 1 else ''}"
    return f"{n / mib:.3g} MiB" if n % mib else f"{n // mib} MiB"


def stem(name):
    """The file's name without folder and extension ("Untitled" if none)."""
    base = os.path.basename(name)
    return os.path.splitext(base)[0] or "Untitled"
