"""Levels: JSON text <-> level definitions (plain dicts), validated, with one-line errors.

    doc = load("levels/01_ball_pit.json")   # validated and normalised; LevelError on any problem
    save(doc, "out.json")                   # atomic: temporary file in the same folder, then rename
    watcher = LevelWatcher(path); watcher.poll()   # -> dict | LevelError | None

A normalised level has every key, defaults from ``game.defaults`` filled in:

- top level: ``$schema``, ``format``, ``name`` (default: the file's name), ``description``,
  ``gravity``, ``integrator``, ``substeps``, ``drag``, ``bounds``, ``material`` (all three
  keys), and the lists ``segments``, ``polylines``, ``polygons``, ``balls``, ``springs``,
  ``spawners``, ``zones``;
- shapes get ``radius`` (segments, polylines), ``closed`` (polylines) and their own
  ``restitution`` and ``friction`` (the level's material where they set none);
- polygons are convex and counter-clockwise: a simple non-convex polygon is replaced by
  its convex pieces (ear clipping, then merging neighbours while the union stays convex);
- balls get ``vel``, ``radius``, ``restitution``, ``friction`` and either ``mass`` (when
  the file gives one) or ``density``;
- springs get ``stiffness``, ``damping`` and ``rest`` (the distance between the ends at load);
- spawners get ``vel``, ``every``, ``max``, ``radius``, ``density``, ``jitter``;
- zones get ``count`` and ``strength``; a rect is stored as [[x_min, y_min], [x_max, y_max]],
  a zone polygon counter-clockwise (it must be convex).

Keys that start with ``_`` or ``//`` are comments: allowed in every object and kept.
Limits (in the schema): coordinates within +-1e6 m, at most 5000 balls, 20000 segments,
20000 springs, 2000 polygons of up to 256 corners, ...; files of at most 16 MiB.

Every refusal is a LevelError whose str is one line::

    levels/x.json:12:7: segments[3].b: expected [x, y], got [1, "a"]

(file, line and column where the text has them, the JSON path, what was expected and
what was found). ``load`` and ``loads`` raise nothing else, whatever the bytes.
"""
import difflib
import hashlib
import json
import math
import os
import re
import tempfile
import time

from game import defaults, geometry

MAX_FILE_BYTES = 16 * 1024 * 1024     # bytes: larger files are refused before they are read
SCHEMA_FILE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           "levels", "level.schema.json")
SCHEMA_REF = "./level.schema.json"
SAVE_WIDTH = 100                       # characters: a list or object this short stays on one line
WATCH_RECENT = 2.0                     # s: a file changed this recently is hashed on every poll

STATIC_LISTS = ("segments", "polylines", "polygons")
ZONE_SHAPES = ("rect", "circle", "ellipse", "polygon")


class LevelError(Exception):
    """A level that cannot be loaded or saved. ``str(e)`` is one line:
    ``file:line:col: json.path: expected ..., got ...``.

    Attributes: ``file``, ``line`` and ``col`` (1-based, None where unknown), ``path`` (the
    JSON path as text, None for problems with the file itself), ``detail`` (the rest).
    """

    def __init__(self, file, detail, path=None, line=None, col=None):
        self.file, self.detail, self.path, self.line, self.col = file, detail, path, line, col
        where = file if line is None else f"{file}:{line}:{col}"
        parts = [where] + ([path] if path is not None else []) + [detail]
        super().__init__(_one_line(": ".join(parts)))


class _Problem(Exception):
    """Internal: a refusal at a JSON path (a tuple of keys and indices), located later."""

    def __init__(self, path, detail, at_key=False, show_token=False):
        super().__init__(detail)
        self.path, self.detail, self.at_key, self.show_token = tuple(path), detail, at_key, show_token


# ============================================================================ public API

def load(path):
    """Read, validate and normalise the level file at ``path``. Raises LevelError only."""
    try:
        name = os.fsdecode(path)
    except Exception:
        raise LevelError(repr(path), "cannot read: expected a file path") from None
    data = _read_file(name)
    return _load_bytes(data, name, _stem(name))


def loads(text, name="<string>"):
    """Validate and normalise a level from JSON text (str or bytes); ``name`` is used in messages."""
    name = os.fsdecode(name) if isinstance(name, (bytes, os.PathLike)) else str(name)
    default_name = "Untitled" if name.startswith("<") else _stem(name)
    if isinstance(text, str):
        if len(text) > MAX_FILE_BYTES:
            raise LevelError(name, f"expected a level of at most {_mib(MAX_FILE_BYTES)}, "
                                   f"got {len(text)} characters")
        return _guard(_load_text, text, name, default_name)
    return _load_bytes(bytes(text), name, default_name)


def save(doc, path):
    """Write the level ``doc`` to ``path``: validated, pretty, in a stable key order, atomically.

    The text goes to a temporary file in the same folder, which then replaces ``path``,
    so a crash never leaves half a level. Keys equal to the defaults ``load`` fills in
    are left out of shapes, balls and the rest, so ``load(save(doc))`` equals the
    normalised ``doc``. Raises LevelError for a document that is not a valid level and
    for a path that cannot be written.
    """
    name = os.fsdecode(path)
    try:
        normal = _normalise(_plain(doc, ()))
    except _Problem as p:
        raise LevelError(name, p.detail, _format_path(p.path)) from None
    except RecursionError:
        raise LevelError(name, "expected a level nested less deeply, got too many levels of nesting",
                         "(top level)") from None
    text = _pretty(_compact(normal)) + "\n"
    folder = os.path.dirname(os.path.abspath(name))
    try:
        mode = os.stat(name).st_mode & 0o777
    except OSError:
        mode = 0o644
    try:
        fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(name) + ".", suffix=".tmp", dir=folder)
    except OSError as e:
        raise LevelError(name, f"cannot write: {_os_reason(e)}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, name)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise LevelError(name, f"cannot write: {_os_reason(e)}") from None
        raise
    _fsync_folder(folder)


class LevelWatcher:
    """Live reload without a thread: call ``poll()`` now and then (say twice a second).

    ``poll()`` returns a new level (dict) when the file's content changed and loads, the
    LevelError when it changed and does not, and None when nothing changed. The content
    seen when the watcher is made counts as unchanged. Cheap: one ``os.stat``; the file
    is read and hashed only when its size or modification time moved (or moved within
    the last couple of seconds, where a file system's coarse clock could hide a change).
    """

    def __init__(self, path):
        self.path = os.fsdecode(path)
        self._stat = self._stat_now()
        self._digest = self._digest_of(self._read()) if self._stat else None

    def poll(self):
        try:
            st = self._stat_now()
            recent = st is not None and time.time() - st[0] / 1e9 < WATCH_RECENT
            if st == self._stat and not recent:
                return None
            self._stat = st
            if st is None:
                if self._digest is None:
                    return None
                self._digest = None
                return LevelError(self.path, "cannot read: the file is gone")
            if st[1] > MAX_FILE_BYTES:
                data, digest = None, ("too big", st)
            else:
                data = self._read()
                digest = self._digest_of(data)
            if digest == self._digest:
                return None
            self._digest = digest
            if not isinstance(data, bytes):     # too big or unreadable: say why
                return _guard_error(_read_file, self.path)
            return _load_bytes(data, self.path, _stem(self.path))
        except LevelError as e:
            return e
        except Exception as e:  # never let the game loop die on a watcher
            return LevelError(self.path, f"internal error while watching: {type(e).__name__}: {e}")

    def _stat_now(self):
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def _read(self):
        try:
            with open(self.path, "rb") as f:
                return f.read(MAX_FILE_BYTES + 1)
        except OSError as e:
            return ("unreadable", str(e))

    @staticmethod
    def _digest_of(data):
        if isinstance(data, bytes):
            return hashlib.sha256(data).hexdigest()
        return data


# ============================================================================ reading

def _read_file(name):
    try:
        st = os.stat(name)
    except OSError as e:
        raise LevelError(name, f"cannot read: {_os_reason(e)}") from None
    if os.path.isdir(name):
        raise LevelError(name, "cannot read: expected a level file, got a folder")
    if st.st_size > MAX_FILE_BYTES:
        raise LevelError(name, f"expected a level file of at most {_mib(MAX_FILE_BYTES)}, "
                               f"got {_mib(st.st_size)}")
    try:
        with open(name, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)   # the file may have grown since the stat
    except OSError as e:
        raise LevelError(name, f"cannot read: {_os_reason(e)}") from None
    if len(data) > MAX_FILE_BYTES:
        raise LevelError(name, f"expected a level file of at most {_mib(MAX_FILE_BYTES)}, got more")
    return data


def _load_bytes(data, name, default_name):
    if len(data) > MAX_FILE_BYTES:
        raise LevelError(name, f"expected a level of at most {_mib(MAX_FILE_BYTES)}, got {_mib(len(data))}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        start = e.start + (3 if data.startswith(b"\xef\xbb\xbf") else 0)
        line = data.count(b"\n", 0, start) + 1
        line_start = data.rfind(b"\n", 0, start) + 1
        col = len(data[line_start:start].decode("utf-8", "replace")) + 1
        raise LevelError(name, f"expected UTF-8 text, got the byte 0x{data[start]:02x}",
                         "(top level)", line, col) from None
    return _guard(_load_text, text, name, default_name)


def _guard(fn, *args):
    """Run fn; any exception that is not a LevelError becomes one (no traceback ever)."""
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


def _guard_error(fn, *args):
    try:
        fn(*args)
    except LevelError as e:
        return e
    return LevelError(args[0], "cannot read")


def _load_text(text, name, default_name):
    try:
        obj = json.loads(text, object_pairs_hook=_Object.from_pairs, parse_constant=_BadNumber,
                         parse_int=_parse_int)
    except json.JSONDecodeError as e:
        path = _path_at(text, e.pos)
        raise LevelError(name, _syntax_detail(e, text), _format_path(path), e.lineno, e.colno) from None
    try:
        return _normalise(obj, default_name)
    except _Problem as p:
        line = col = None
        detail = p.detail
        offset = _locate(text, p.path, p.at_key)
        if offset is not None:
            line, col = _line_col(text, offset)
            m = _TOKEN.match(text, offset) if p.show_token else None
            if m and m.group(3):                # the number as written (1e999, not inf)
                detail = f"expected a finite number, got {_cut(m.group(3))}"
        raise LevelError(name, detail, _format_path(p.path), line, col) from None


class _BadNumber:
    """What the parser makes of NaN, Infinity and absurdly long integers (1e999 becomes inf)."""

    def __init__(self, text):
        self.text = text


def _parse_int(text):
    # Python refuses to convert integers of more than 4300 digits; anything over 20 is absurd here.
    return int(text) if len(text) <= 20 else _BadNumber(text)


class _Object(dict):
    """A JSON object that had a key twice (``duplicate`` names it); plain dicts otherwise."""

    duplicate = None

    @classmethod
    def from_pairs(cls, pairs):
        d = dict(pairs)
        if len(d) == len(pairs):
            return d
        seen = set()
        for key, _ in pairs:
            if key in seen:
                break
            seen.add(key)
        d = cls(d)
        d.duplicate = key
        return d


_SYNTAX = [
    ("Expecting property name enclosed in double quotes", "expected a key in double quotes"),
    ("Expecting ':' delimiter", "expected ':' after the key"),
    ("Expecting ',' delimiter", "expected ',' between items"),
    ("Expecting value", "expected a value"),
    ("Unterminated string starting at", "expected a closing '\"' for this string"),
    ("Invalid control character at", "expected no control characters in a string (write \\n or \\t)"),
    ("Invalid \\escape", "expected a valid escape such as \\n, \\\" or \\u00e9 in a string"),
    ("Invalid \\uXXXX escape", "expected four hex digits after \\u"),
    ("Extra data", "expected the end of the document after the level"),
]


def _syntax_detail(e, text):
    expected = next((mine for theirs, mine in _SYNTAX if e.msg.startswith(theirs)), "expected valid JSON")
    rest = text[e.pos:]
    found = rest.split("\n", 1)[0][:16]
    before = text[:e.pos].rstrip()
    if not rest:
        got = "the end of the file"
    elif rest.startswith(("//", "/*", "#")):
        expected += " (JSON has no comments: use a key such as \"_comment\")"
        got = f"'{found}'"
    elif rest[:1] in "]}" and before.endswith(","):
        expected = "expected no ',' before a closing bracket (JSON allows no trailing comma)"
        got = f"'{found[:1]}'"
    else:
        m = _TOKEN.match(text, e.pos)
        token = m.group(m.lastindex) if m else found
        got = f"'{_cut(token, 16)}'" if token else "the end of the line"
    return f"{expected}, got {got}"


# ============================================================================ positions

# One JSON token after optional white space: a string, a punctuation mark, or a bare word
# (number, true, false, null: anything else has already failed to parse).
_TOKEN = re.compile(r'[ \t\r\n]*(?:("(?:[^"\\]|\\.)*")|([\[\]{}:,])|([^ \t\r\n\[\]{}:,"]+))', re.S)
_SKIP = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.S)


class _Frame:
    __slots__ = ("is_object", "key", "index", "expect_key")

    def __init__(self, is_object):
        self.is_object, self.key, self.index, self.expect_key = is_object, None, 0, is_object

    def step(self):
        return self.key if self.is_object else self.index


def _walk(text, target=None, at_key=False, stop=None):
    """A position-tracking scan of JSON text.

    With ``target`` (a path tuple): the offset of that value (or of its key, ``at_key``;
    the last occurrence, so a duplicate key is found where it repeats), None if absent.
    With ``stop`` (an offset): the path being parsed there, for syntax errors.
    """
    stack = []
    pos, end = 0, len(text) if stop is None else stop
    found = None

    def path():
        return tuple(f.step() for f in stack if not (f.is_object and f.key is None))

    while pos < end:
        m = _TOKEN.match(text, pos)
        if m is None or m.start(m.lastindex) >= end:
            break
        start, pos = m.start(m.lastindex), m.end()
        top = stack[-1] if stack else None
        string, punct = m.group(1), m.group(2)
        if string is not None and top is not None and top.is_object and top.expect_key:
            try:
                top.key = json.loads(string)
            except ValueError:
                top.key = string[1:-1]
            if at_key and target is not None and path() == target:
                found = start
            continue
        if punct == ":":
            if top is not None and top.is_object:
                top.expect_key = False
            continue
        if punct == ",":
            if top is not None:
                if top.is_object:
                    top.expect_key, top.key = True, None
                else:
                    top.index += 1
            continue
        if punct in ("]", "}"):
            if stack:
                stack.pop()
            continue
        # a value starts here
        here = path()
        if target is not None:
            if here == target and not at_key:
                return start
            if punct in ("[", "{") and here != target[:len(here)]:
                pos = _skip_container(text, pos)
                continue
        if punct in ("[", "{"):
            stack.append(_Frame(punct == "{"))
    if target is not None:
        return found
    return path()


def _skip_container(text, pos):
    depth = 1
    for m in _SKIP.finditer(text, pos):
        c = m.group()
        if c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
            if depth == 0:
                return m.end()
    return len(text)


def _locate(text, path, at_key=False):
    try:
        return _walk(text, target=tuple(path), at_key=at_key)
    except Exception:
        return None


def _path_at(text, offset):
    try:
        return _walk(text, stop=offset)
    except Exception:
        return ()


def _line_col(text, offset):
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*\Z")


def _format_path(path):
    """('segments', 3, 'b') -> 'segments[3].b'; () -> '(top level)'."""
    out = ""
    for step in path:
        if isinstance(step, int):
            out += f"[{step}]"
        elif _IDENTIFIER.match(step):
            out += ("." if out else "") + step
        else:
            out += "[" + json.dumps(step) + "]"
    return out or "(top level)"


# ============================================================================ checking

def _normalise(obj, default_name="Untitled"):
    """Check a parsed document and return it normalised (see the module docstring).

    Raises _Problem. Order: over-long lists (cheap, before the slow schema), what the parser
    let through (NaN, duplicate keys, bad text), the format version, the schema, then what
    a schema cannot say.
    """
    _check_sizes(obj, _validator().schema, ())
    _check_values(obj)
    if isinstance(obj, dict) and _is_number(obj.get("format")) and obj["format"] > defaults.FORMAT:
        raise _Problem(("format",), f"expected format {defaults.FORMAT} or older (this program reads "
                                    f"levels up to format {defaults.FORMAT}), got {_render(obj['format'])}")
    _check_schema(obj)
    return _Normaliser(obj, default_name).run()


def _check_values(obj):
    """Refuse what JSON parsers accept but a level cannot hold; iterative (no recursion).

    A quick pass over the plain values first; only when it finds something does the slow
    pass, which tracks the JSON path, run to say where.
    """
    if _all_plain(obj):
        return
    todo = [((), obj)]
    while todo:
        path, value = todo.pop()
        if isinstance(value, _BadNumber):
            raise _Problem(path, f"expected a finite number, got {_cut(value.text)}")
        if isinstance(value, float) and not math.isfinite(value):
            raise _Problem(path, f"expected a finite number, got {value!r}", show_token=True)
        if isinstance(value, str):
            _check_text(path, value)
        elif isinstance(value, dict):
            if getattr(value, "duplicate", None) is not None:
                key = value.duplicate
                raise _Problem(path + (key,), f"expected each key once in an object, got {json.dumps(key)} twice",
                               at_key=True)
            items = list(value.items())
            for key, v in reversed(items):
                _check_text(path + (key,), key)
                todo.append((path + (key,), v))
        elif isinstance(value, list):
            todo.extend((path + (i,), v) for i, v in reversed(list(enumerate(value))))


def _all_plain(obj):
    """True when every value is a finite number, text that encodes, or a plain container."""
    todo = [obj]
    pop, push, isfinite = todo.pop, todo.extend, math.isfinite
    while todo:
        value = pop()
        kind = type(value)
        if kind is dict:
            push(value.values())
            if not all(k.isascii() for k in value):
                return False
        elif kind is list:
            push(value)
        elif kind is float:
            if not isfinite(value):
                return False
        elif kind is str:
            if not value.isascii():
                return False
        elif kind not in (int, bool) and value is not None:
            return False
    return True


def _check_text(path, text):
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise _Problem(path, "expected text, got a \\u escape of half a surrogate pair") from None


_VALIDATOR = None


def _validator():
    global _VALIDATOR
    if _VALIDATOR is None:
        from jsonschema import Draft202012Validator
        try:
            with open(SCHEMA_FILE, encoding="utf-8") as f:
                schema = json.load(f)
        except (OSError, ValueError) as e:
            raise LevelError(SCHEMA_FILE, f"cannot check levels without the schema: {e}") from None
        _VALIDATOR = Draft202012Validator(_inline_refs(schema, schema))
    return _VALIDATOR


def _inline_refs(node, root):
    """The schema with every local "$ref" replaced by what it names (its own keys win).

    Same meaning (the $defs hold annotations and plain constraints), about twice as fast
    to validate: jsonschema's reference lookups cost more than the checks themselves.
    """
    if isinstance(node, list):
        return [_inline_refs(v, root) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: _inline_refs(v, root) for k, v in node.items() if k != "$ref"}
    if isinstance(node.get("$ref"), str) and node["$ref"].startswith("#/"):
        target = _inline_refs(_resolve(root, node["$ref"]), root)
        out = {**target, **out}
    elif "$ref" in node:
        out["$ref"] = node["$ref"]
    return out


def _check_sizes(value, schema, path):
    """Refuse over-long lists before the schema sees them: validating is slow (jsonschema
    spends about a third of a millisecond on a ball), so a huge list is refused up front."""
    if isinstance(value, list):
        limit = schema.get("maxItems")
        if limit is not None and len(value) > limit:
            raise _Problem(path, f"expected a list of at most {limit} items, got {len(value)} items")
        items = schema.get("items")
        if isinstance(items, dict) and ("properties" in items or "items" in items):
            for i, v in enumerate(value):
                _check_sizes(v, items, path + (i,))
    elif isinstance(value, dict):
        for key, sub in schema.get("properties", {}).items():
            if key in value and isinstance(sub, dict):
                _check_sizes(value[key], sub, path + (key,))


def _check_schema(obj):
    from jsonschema.exceptions import best_match
    validator = _validator()
    error = best_match(validator.iter_errors(obj))
    if error is not None:
        raise _schema_problem(error, validator.schema, obj)


_TYPE_WORDS = {"number": "a number", "integer": "a whole number", "string": "text", "array": "a list",
               "object": "an object", "boolean": "true or false", "null": "null"}
_RANGE_KEYWORDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")


def _schema_problem(error, schema, doc):
    """Turn a jsonschema error into a _Problem: the JSON path, what was expected, what was found.

    Subschemas with a ``title`` (such as "[x, y]") name what a whole value should be: an
    error anywhere inside one is reported at that value, with the title as what was expected.
    """
    instance_path = tuple(error.absolute_path)
    titled = _innermost_title(schema, list(error.absolute_schema_path))
    keyword = error.validator
    if titled is not None:
        depth, title, leaf_through_items = titled
        path = instance_path[:depth]
        expected = title
        if keyword in _RANGE_KEYWORDS and leaf_through_items:
            expected += " with each " + _describe(error.schema)
        return _Problem(path, f"expected {expected}, got {_render(_at(doc, path))}")
    if keyword == "required":
        missing = next(k for k in error.validator_value if k not in error.instance)
        return _Problem(instance_path, f"expected a key {json.dumps(missing)}, got {_render(error.instance)}")
    if keyword == "additionalProperties":
        known = list(error.schema.get("properties", {}))
        patterns = [re.compile(p) for p in error.schema.get("patternProperties", {})]
        extra = next(k for k in error.instance if k not in known and not any(p.search(k) for p in patterns))
        close = difflib.get_close_matches(extra, known, n=1)
        hint = f" (did you mean {json.dumps(close[0])}?)" if close else ""
        return _Problem(instance_path + (extra,),
                        f"expected one of the keys {', '.join(known)} or a comment key starting with \"_\", "
                        f"got the unknown key {json.dumps(extra)}{hint}", at_key=True)
    if keyword in ("type", "enum") + _RANGE_KEYWORDS:
        expected = _describe(error.schema)
    elif keyword in ("minItems", "maxItems"):
        expected = (f"a list of at least {error.validator_value} items" if keyword == "minItems"
                    else f"a list of at most {error.validator_value} items")
    elif keyword in ("minLength", "maxLength"):
        n = error.validator_value
        expected = (f"text of at least {n} character{'s' if n != 1 else ''}" if keyword == "minLength"
                    else f"text of at most {n} characters")
    else:
        expected = f"a value that passes the schema's {keyword!r} rule"
    return _Problem(instance_path, f"expected {expected}, got {_render(error.instance)}")


def _innermost_title(schema, schema_path):
    """Follow an error's schema path; return (instance depth, title, reached the leaf through
    'items') for the deepest titled subschema on it (the outermost one at that depth)."""
    root, node, depth = schema, schema, 0
    best = None
    through_items = False

    def note(n):
        nonlocal best, through_items
        if isinstance(n, dict) and "title" in n and n is not root and (best is None or depth > best[0]):
            best = [depth, n["title"]]
            through_items = False

    i = 0
    while i < len(schema_path):
        key = schema_path[i]
        while isinstance(node, dict) and key not in node and "$ref" in node:
            node = _resolve(root, node["$ref"])
            note(node)
        last = i == len(schema_path) - 1
        if key in ("properties", "patternProperties", "prefixItems") and not last:
            node, depth, i = node[key][schema_path[i + 1]], depth + 1, i + 2
        elif key == "items" and not last:
            node, depth, i = node[key], depth + 1, i + 1
            through_items = True
        elif key in ("allOf", "oneOf", "anyOf") and not last:
            node, i = node[key][schema_path[i + 1]], i + 2
        elif key in ("not", "$ref") and not last:
            node = node[key] if key == "not" else _resolve(root, node[key])
            i += 1
        else:
            break
        note(node)
    if best is None:
        return None
    return best[0], best[1], through_items


def _resolve(root, ref):
    node = root
    for part in ref.lstrip("#").strip("/").split("/"):
        node = node[part]
    return node


def _describe(schema):
    if "enum" in schema:
        return "one of " + ", ".join(json.dumps(v) for v in schema["enum"])
    types = schema.get("type", "number")
    words = _TYPE_WORDS.get(types, str(types)) if isinstance(types, str) else " or ".join(
        _TYPE_WORDS.get(t, t) for t in types)
    lo, lo_open = schema.get("minimum"), False
    if lo is None and "exclusiveMinimum" in schema:
        lo, lo_open = schema["exclusiveMinimum"], True
    hi = schema.get("maximum")
    if lo is not None and hi is not None and not lo_open:
        return f"{words} from {_num(lo)} to {_num(hi)}"
    if lo is not None and hi is not None:
        return f"{words} above {_num(lo)} and at most {_num(hi)}"
    if lo is not None:
        return f"{words} {'above' if lo_open else 'of at least'} {_num(lo)}"
    if hi is not None:
        return f"{words} of at most {_num(hi)}"
    return words


def _num(x):
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e16:
        return str(int(x))
    return repr(x)


class _Normaliser:
    """What the schema cannot say, checked while building the normalised document."""

    def __init__(self, doc, default_name):
        self.doc, self.default_name = doc, default_name
        m = doc.get("material", {})
        self.material = {k: m.get(k, v) for k, v in defaults.MATERIAL.items()}

    def run(self):
        d = self.doc
        out = {"$schema": d.get("$schema", SCHEMA_REF), "format": int(d.get("format", defaults.FORMAT)),
               "name": d.get("name", self.default_name), "description": d.get("description", "")}
        out.update(_comments(d))
        out["gravity"] = _vec(d.get("gravity", defaults.GRAVITY))
        out["integrator"] = d.get("integrator", defaults.INTEGRATOR)
        out["substeps"] = int(d.get("substeps", defaults.SUBSTEPS))
        out["drag"] = d.get("drag", defaults.DRAG)
        out["bounds"] = list(d.get("bounds", defaults.BOUNDS))
        x0, y0, x1, y1 = out["bounds"]
        if not (x0 < x1 and y0 < y1):
            raise _Problem(("bounds",), f"expected [x_min, y_min, x_max, y_max] with x_min < x_max and "
                                        f"y_min < y_max, got {_render(out['bounds'])}")
        m = d.get("material", {})
        out["material"] = {**_comments(m), **self.material}
        if not any(d.get(k) for k in STATIC_LISTS):
            raise _Problem((), "expected at least one static shape in segments, polylines or polygons, "
                               "got none (balls would fall forever)")
        out["segments"] = [self.segment(i, s) for i, s in enumerate(d.get("segments", []))]
        out["polylines"] = [self.polyline(i, s) for i, s in enumerate(d.get("polylines", []))]
        out["polygons"] = [piece for i, s in enumerate(d.get("polygons", [])) for piece in self.polygon(i, s)]
        out["balls"] = [self.ball(b) for b in d.get("balls", [])]
        out["springs"] = [self.spring(i, s, out["balls"]) for i, s in enumerate(d.get("springs", []))]
        out["spawners"] = [self.spawner(s) for s in d.get("spawners", [])]
        out["zones"] = [self.zone(i, z) for i, z in enumerate(d.get("zones", []))]
        return out

    def surface(self, shape):
        return {"restitution": shape.get("restitution", self.material["restitution"]),
                "friction": shape.get("friction", self.material["friction"])}

    def segment(self, i, s):
        radius = s.get("radius", defaults.SEGMENT_RADIUS)
        if s["a"] == s["b"] and radius == 0:
            raise _Problem(("segments", i), f"expected a segment whose ends differ (or a radius above 0 for a "
                                            f"round peg), got a thin segment of zero length at {_render(s['a'])}")
        return {**_comments(s), "a": _vec(s["a"]), "b": _vec(s["b"]), "radius": radius, **self.surface(s)}

    def polyline(self, i, s):
        points = s["points"]
        radius = s.get("radius", defaults.SEGMENT_RADIUS)
        if radius == 0:
            for k in range(1, len(points)):
                if points[k] == points[k - 1]:
                    raise _Problem(("polylines", i, "points", k),
                                   f"expected a point different from the one before (radius is 0: a thin "
                                   f"piece of zero length), got {_render(points[k])} again")
        return {**_comments(s), "points": [_vec(p) for p in points], "closed": s.get("closed", False),
                "radius": radius, **self.surface(s)}

    def polygon(self, i, s):
        path = ("polygons", i, "points")
        pieces = _convex_pieces(path, s["points"], split=True)
        out = []
        for k, points in enumerate(pieces):
            out.append({**(_comments(s) if k == 0 else {}), "points": points, **self.surface(s)})
        return out

    def ball(self, b):
        out = {**_comments(b), "pos": _vec(b["pos"]), "vel": _vec(b.get("vel", (0, 0))),
               "radius": b.get("radius", defaults.BALL_RADIUS)}
        if "mass" in b:
            out["mass"] = b["mass"]
        else:
            out["density"] = b.get("density", self.material["density"])
        out.update(self.surface(b))
        return out

    def spring(self, i, s, balls):
        n = len(balls)
        a, b = int(s["a"]), s["b"]
        if a >= n:
            raise _Problem(("springs", i, "a"), f"expected a ball index {_index_range(n)}, got {a}")
        if _is_number(b):
            b = int(b)
            if b >= n:
                raise _Problem(("springs", i, "b"), f"expected a ball index {_index_range(n)} or an anchor "
                                                    f"[x, y], got {b}")
            if b == a:
                raise _Problem(("springs", i, "b"), f"expected a ball other than a ({a}) or an anchor [x, y], "
                                                    f"got {b}")
            other = balls[b]["pos"]
        else:
            b = other = _vec(b)
        rest = s.get("rest")
        if rest is None:
            pa = balls[a]["pos"]
            rest = math.hypot(other[0] - pa[0], other[1] - pa[1])
        return {**_comments(s), "a": a, "b": b, "stiffness": s.get("stiffness", defaults.SPRING_STIFFNESS),
                "damping": s.get("damping", defaults.SPRING_DAMPING), "rest": rest}

    def spawner(self, s):
        return {**_comments(s), "pos": _vec(s["pos"]), "vel": _vec(s.get("vel", (0, 0))),
                "every": s.get("every", defaults.SPAWNER_EVERY), "max": int(s.get("max", defaults.SPAWNER_MAX)),
                "radius": s.get("radius", defaults.BALL_RADIUS),
                "density": s.get("density", self.material["density"]), "jitter": s.get("jitter", defaults.SPAWNER_JITTER)}

    def zone(self, i, z):
        out = {**_comments(z), "kind": z["kind"]}
        shape = next(k for k in ZONE_SHAPES if k in z)
        value = z[shape]
        if shape == "rect":
            (x0, y0), (x1, y1) = value
            if x0 == x1 or y0 == y1:
                raise _Problem(("zones", i, "rect"), f"expected two opposite corners of a rectangle with an area, "
                                                     f"got {_render(value)}")
            value = [[min(x0, x1), min(y0, y1)], [max(x0, x1), max(y0, y1)]]
        elif shape == "polygon":
            value = _convex_pieces(("zones", i, "polygon"), value, split=False)[0]
        else:
            value = {**_comments(value), "center": _vec(value["center"]),
                     **({"radius": value["radius"]} if shape == "circle" else {"radii": _vec(value["radii"])})}
        out[shape] = value
        out["count"] = int(z.get("count", defaults.ZONE_COUNT))
        out["strength"] = z.get("strength", defaults.ATTRACTOR_STRENGTH)
        return out


def _comments(obj):
    return {k: v for k, v in obj.items() if _is_comment(k)}


def _is_comment(key):
    return key.startswith(("_", "//"))


def _vec(v):
    return [v[0], v[1]]


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _index_range(n):
    return "from 0 to " + str(n - 1) if n else "(but the level has no balls)"


def _at(doc, path):
    for step in path:
        doc = doc[step]
    return doc


# ============================================================================ polygons

def _convex_pieces(path, points, split):
    """Check a polygon and return it as convex counter-clockwise pieces (lists of points).

    Refused: a point repeated, zero area, edges that cross or touch; non-convex when not
    ``split``. A simple non-convex polygon is cut into triangles by ear clipping, and
    neighbouring pieces are merged again while their union stays convex (Hertel-Mehlhorn:
    at most four times the fewest convex pieces).
    """
    n = len(points)
    for k in range(n):
        if points[k] == points[k - 1]:
            raise _Problem(path + (k,), f"expected each corner once, got {_render(points[k])} twice in a row")
    (x0, y0), (x1, y1) = points[0], points[1]
    if all((x1 - x0) * (y - y0) - (y1 - y0) * (x - x0) == 0 for x, y in points):
        raise _Problem(path, f"expected a polygon with an area, got corners on one line: {_render(points)}")
    crossing = _first_crossing(points)
    if crossing is not None:
        i, j = crossing
        if j == (i + 1) % n:
            raise _Problem(path + (j,), f"expected a polygon whose edges do not cross, got its boundary "
                                        f"folding back on itself at {_render(points[j])}")
        raise _Problem(path, f"expected a polygon whose edges do not cross, got edge {i} "
                             f"({_render(points[i])} to {_render(points[(i + 1) % n])}) meeting edge {j} "
                             f"({_render(points[j])} to {_render(points[(j + 1) % n])})")
    area = geometry.polygon_signed_area(points)
    scale = max(max(abs(p[0]), abs(p[1])) for p in points) or 1.0
    if abs(area) <= 1e-12 * scale * scale:
        raise _Problem(path, f"expected a polygon with an area, got corners on one line: {_render(points)}")
    ccw = [_vec(p) for p in points] if area > 0 else [_vec(points[0])] + [_vec(p) for p in points[:0:-1]]
    if geometry.polygon_is_convex(ccw):
        return [ccw]
    if not split:
        raise _Problem(path, "expected a convex polygon, got a non-convex one (split it into convex zones)")
    return [[ccw[k] for k in piece] for piece in _merge_convex(ccw, _ear_clip(path, ccw))]


def _cross(o, a, b):
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _first_crossing(points):
    """(i, j) for the first pair of edges that meet where they should not, or None.

    Edge k runs from points[k] to points[k + 1]. Edges that are not neighbours must not
    meet at all (ends included); neighbours must not fold back over each other.
    """
    import numpy as np
    p = np.asarray(points, dtype=float)
    n = len(p)
    a, b = p, np.roll(p, -1, axis=0)
    d = b - a
    # neighbours folding back: the turn at points[k] is straight and reverses direction
    prev = np.roll(d, 1, axis=0)
    turn = prev[:, 0] * d[:, 1] - prev[:, 1] * d[:, 0]
    back = (turn == 0) & (np.einsum("ij,ij->i", prev, d) < 0)
    if back.any():
        k = int(np.argmax(back))
        return ((k - 1) % n, k)

    def orient(o, q, r):   # sign of (q - o) x (r - o), broadcast over edge pairs
        return np.sign((q[..., 0] - o[..., 0]) * (r[..., 1] - o[..., 1])
                       - (q[..., 1] - o[..., 1]) * (r[..., 0] - o[..., 0]))

    def within(o, q, r):   # r inside the box of o-q (for collinear points)
        return ((np.minimum(o[..., 0], q[..., 0]) <= r[..., 0]) & (r[..., 0] <= np.maximum(o[..., 0], q[..., 0]))
                & (np.minimum(o[..., 1], q[..., 1]) <= r[..., 1]) & (r[..., 1] <= np.maximum(o[..., 1], q[..., 1])))

    a1, b1 = a[:, None, :], b[:, None, :]
    a2, b2 = a[None, :, :], b[None, :, :]
    o1, o2 = orient(a1, b1, a2), orient(a1, b1, b2)
    o3, o4 = orient(a2, b2, a1), orient(a2, b2, b1)
    meet = (o1 * o2 < 0) & (o3 * o4 < 0)
    meet |= (o1 == 0) & within(a1, b1, a2)
    meet |= (o2 == 0) & within(a1, b1, b2)
    meet |= (o3 == 0) & within(a2, b2, a1)
    meet |= (o4 == 0) & within(a2, b2, b1)
    i, j = np.indices((n, n))
    neighbours = (j == (i + 1) % n) | (i == (j + 1) % n) | (i == j)
    meet &= ~neighbours & (i < j)
    if not meet.any():
        return None
    k = int(np.argmax(meet.reshape(-1)))
    return (k // n, k % n)


def _ear_clip(path, points):
    """Triangles (index triples, counter-clockwise) of a simple counter-clockwise polygon.

    Walks round the corners clipping ears (a convex corner whose triangle holds no other
    corner); straight corners are dropped, as the boundary does not change. O(n^2).
    """
    left = list(range(len(points)))
    triangles = []
    k = misses = 0
    while len(left) > 3:
        m = len(left)
        if misses > m:
            raise _Problem(path, "expected a polygon that can be cut into convex pieces, got one that cannot")
        k %= m
        i0, i1, i2 = left[k - 1], left[k], left[(k + 1) % m]
        p0, p1, p2 = points[i0], points[i1], points[i2]
        c = _cross(p0, p1, p2)
        if c == 0:
            left.pop(k)
            misses = 0
        elif c > 0 and not any(_in_triangle(points[j], p0, p1, p2) for j in left if j not in (i0, i1, i2)):
            triangles.append([i0, i1, i2])
            left.pop(k)
            misses = 0
        else:
            k += 1
            misses += 1
    if _cross(*(points[j] for j in left)) > 0:
        triangles.append(left)
    return triangles


def _in_triangle(p, a, b, c):
    return _cross(a, b, p) >= 0 and _cross(b, c, p) >= 0 and _cross(c, a, p) >= 0


def _merge_convex(points, pieces):
    """Hertel-Mehlhorn: remove each diagonal between two pieces whose union stays convex.

    One pass over the diagonals; at most four times the fewest convex pieces.
    """
    pieces = {n: list(p) for n, p in enumerate(pieces)}
    owner = {}                                  # directed edge (u, v) -> the piece it bounds
    for n, piece in pieces.items():
        for k in range(len(piece)):
            owner[(piece[k], piece[(k + 1) % len(piece)])] = n
    diagonals = [(u, v) for (u, v) in owner if (v, u) in owner and u < v]
    for u, v in diagonals:
        n, m = owner.get((u, v)), owner.get((v, u))
        if n is None or m is None or n == m:
            continue
        p, q = pieces[n], pieces[m]
        union = _rotate(p, p.index(v)) + _rotate(q, q.index(u))[1:-1]      # v ... u, then q's side
        if not geometry.polygon_is_convex([points[k] for k in union]):
            continue
        pieces[n] = union
        del pieces[m]
        del owner[(u, v)], owner[(v, u)]
        for k in range(len(q)):
            edge = (q[k], q[(k + 1) % len(q)])
            if edge in owner:
                owner[edge] = n
    return list(pieces.values())


def _rotate(seq, k):
    return seq[k:] + seq[:k]


# ============================================================================ saving

def _plain(value, path):
    """A copy of ``value`` as plain JSON types (tuples, numpy arrays and scalars converted)."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise _Problem(path, f"expected text keys, got the key {k!r}")
            out[k] = _plain(v, path + (k,))
        return out
    if isinstance(value, (list, tuple)):
        return [_plain(v, path + (i,)) for i, v in enumerate(value)]
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if hasattr(value, "tolist"):             # numpy arrays and scalars
        return _plain(value.tolist(), path)
    raise _Problem(path, f"expected a JSON value, got a {type(value).__name__}")


def _compact(doc):
    """Leave out of shapes, balls and the rest the keys ``load`` would fill in with the same value."""
    m = doc["material"]
    surface = {"restitution": m["restitution"], "friction": m["friction"]}
    fills = {
        "segments": {"radius": defaults.SEGMENT_RADIUS, **surface},
        "polylines": {"closed": False, "radius": defaults.SEGMENT_RADIUS, **surface},
        "polygons": surface,
        "balls": {"vel": [0, 0], "radius": defaults.BALL_RADIUS, "density": m["density"], **surface},
        "springs": {"stiffness": defaults.SPRING_STIFFNESS, "damping": defaults.SPRING_DAMPING},
        "spawners": {"vel": [0, 0], "every": defaults.SPAWNER_EVERY, "max": defaults.SPAWNER_MAX,
                     "radius": defaults.BALL_RADIUS, "density": m["density"], "jitter": defaults.SPAWNER_JITTER},
        "zones": {"count": defaults.ZONE_COUNT, "strength": defaults.ATTRACTOR_STRENGTH},
    }
    out = dict(doc)
    for key, fill in fills.items():
        out[key] = [{k: v for k, v in item.items() if not (k in fill and _same(v, fill[k]))}
                    for item in doc[key]]
    return out


def _same(a, b):
    return type(a) is type(b) and a == b if not (_is_number(a) and _is_number(b)) else a == b


def _pretty(value, indent=0, used=0):
    """JSON with 2-space indents; a list or object that fits in SAVE_WIDTH stays on one line."""
    flat = json.dumps(value, ensure_ascii=False, separators=(", ", ": "), allow_nan=False)
    if (indent and used + len(flat) <= SAVE_WIDTH) or not isinstance(value, (dict, list)) or not value:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        lines = []
        for k, v in value.items():
            head = pad + json.dumps(k, ensure_ascii=False) + ": "
            lines.append(head + _pretty(v, indent + 2, len(head)))
    else:
        lines = [pad + _pretty(v, indent + 2, len(pad)) for v in value]
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


# ============================================================================ small helpers

def _render(value, limit=60):
    """A value as compact JSON for a message, cut short with '...' past ``limit`` characters."""
    parts, budget = [], [limit + 1]

    def emit(s):
        parts.append(s)
        budget[0] -= len(s)

    def walk(v):
        if budget[0] <= 0:
            return
        if isinstance(v, _BadNumber):
            emit(v.text)
        elif isinstance(v, dict):
            emit("{")
            for n, (k, x) in enumerate(v.items()):
                if budget[0] <= 0:
                    return
                emit((", " if n else "") + json.dumps(k, ensure_ascii=False) + ": ")
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
        else:
            try:
                emit(json.dumps(v, ensure_ascii=False))
            except (TypeError, ValueError):
                emit(repr(v))

    try:
        walk(value)
    except RecursionError:
        pass
    text = "".join(parts)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _cut(text, limit=24):
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def _one_line(text):
    """Escape line breaks, control characters and lone surrogates so a message stays one printable line."""
    out = []
    for ch in text:
        o = ord(ch)
        if o < 32 or o == 127 or 0x80 <= o < 0xA0 or 0xD800 <= o < 0xE000 or ch in "\u2028\u2029":
            out.append(f"\\x{o:02x}" if o < 256 else f"\\u{o:04x}")
        else:
            out.append(ch)
    return "".join(out)


def _os_reason(e):
    return (e.strerror or str(e)).lower() if isinstance(e, OSError) else str(e)


def _mib(n):
    return f"{n / (1024 * 1024):.3g} MiB" if n >= 1024 * 1024 else f"{n} bytes"


def _stem(name):
    base = os.path.basename(name)
    return os.path.splitext(base)[0] or "Untitled"
