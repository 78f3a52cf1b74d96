"""Positions in JSON text: the line and column of a JSON path, and the path at an offset.

The parser reports where the text breaks; a schema refusal only knows a JSON path. These
scans find one from the other without building a second parse tree: one pass over the
tokens (a regular expression each), skipping containers off the path. O(length of text).
"""
import functools
import json
import re

from game.level.errors import cut

# One JSON token after optional white space: a string, a punctuation mark, or a bare word
# (number, true, false, null: anything else has already failed to parse).
_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'       # unrolled: plain runs at once, O(length), no deep stack
TOKEN = re.compile(r'[ \t\r\n]*(?:(' + _STRING + r')|([\[\]{}:,])|([^ \t\r\n\[\]{}:,"]+))', re.S)
_SKIP = re.compile(_STRING + r'|[\[\]{}]', re.S)


class _Frame:
    __slots__ = ("is_object", "key", "index", "expect_key")

    def __init__(self, is_object):
        self.is_object, self.key, self.index, self.expect_key = is_object, None, 0, is_object

    def step(self):
        return self.key if self.is_object else self.index


MAX_TOKENS = 1_000_000        # tokens: a walk this long gives up (None: no position, or a shorter path)
_SKIP_DEPTH = 32              # containers deeper than this are walked, not handed to the C parser
_PLAIN = json.JSONDecoder()   # C speed, to step over a whole container that parses
_SCALAR_ITEM = r'(?:[ \t\r\n]*[^ \t\r\n\[\]{}:,"]+[ \t\r\n]*,)'   # a number, true, false or null, then ','


def walk(text, target=None, at_key=False, stop=None):
    """A position-tracking scan of JSON text.

    With ``target`` (a path tuple): the offset of that value (or of its key, ``at_key``;
    the last occurrence, so a duplicate key is found where it repeats), None if absent.
    With ``stop`` (an offset): the path being parsed there, for syntax errors.

    Near-linear and bounded: containers off the path are stepped over by the C parser,
    runs of numbers in a list by one regular expression; after MAX_TOKENS tokens the walk
    gives up (None for a target; for ``stop``, the path down to the list it got lost in).
    """
    stack = []
    pos, end = 0, len(text) if stop is None else stop
    found = None
    tokens = 0
    after_open_or_comma = False

    def path():
        return tuple(f.step() for f in stack if not (f.is_object and f.key is None))

    while pos < end:
        top = stack[-1] if stack else None
        if top is not None and not top.is_object and after_open_or_comma:
            pos = _skip_scalars(text, pos, end, top, stack, target, path)
        tokens += 1
        if tokens > MAX_TOKENS:
            if target is not None:
                return None
            known = []
            for f in stack:
                if not f.is_object:
                    break
                if f.key is not None:
                    known.append(f.key)
            return tuple(known)
        m = TOKEN.match(text, pos)
        if m is None or m.start(m.lastindex) >= end:
            break
        start, pos = m.start(m.lastindex), m.end()
        string, punct = m.group(1), m.group(2)
        after_open_or_comma = punct in ("[", ",")
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
                pos = skip_container(text, pos)
                after_open_or_comma = False
                continue
        elif punct in ("[", "{") and len(stack) < _SKIP_DEPTH:
            after = _parse_over(text, start)
            if after is not None and after <= end:       # closes before the error: not on its path
                pos = after
                after_open_or_comma = False
                continue
        if punct in ("[", "{"):
            stack.append(_Frame(punct == "{"))
    if target is not None:
        return found
    return path()


def _skip_scalars(text, pos, end, top, stack, target, path):
    """Step over a run of "number," items in the list ``top`` at once (not past ``end``,
    nor past the item ``target`` names); returns the new position."""
    limit = None
    if target is not None:
        here = path()[:-1]                      # the list's own path (its last step is the index)
        if here != target[:len(here)] or len(target) <= len(here):
            return pos
        wanted = target[len(here)]
        if not isinstance(wanted, int) or wanted <= top.index:
            return pos
        limit = wanted - top.index
    # in chunks: the regex engine keeps a mark per repetition, so an unbounded run costs memory
    while limit is None or limit > 0:
        chunk = _SCALAR_CHUNK if limit is None else min(limit, _SCALAR_CHUNK)
        m = _scalar_run(chunk).match(text, pos, end)
        if m is None:
            break
        count = m.group().count(",")
        top.index += count
        pos = m.end()
        if limit is not None:
            limit -= count
        if count < chunk:
            break
    return pos


_SCALAR_CHUNK = 4096


@functools.lru_cache(maxsize=64)
def _scalar_run(count):
    return re.compile(_SCALAR_ITEM + "{1,%d}" % count)


def _parse_over(text, start):
    """The end of the JSON value starting at ``start`` if the C parser reads it, else None."""
    try:
        return _PLAIN.raw_decode(text, start)[1]
    except (ValueError, RecursionError):
        return None


def skip_container(text, pos):
    """The end of the container whose opening bracket ends at ``pos``."""
    after = _parse_over(text, pos - 1)
    if after is not None:
        return after
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


def locate(text, path, at_key=False):
    try:
        return walk(text, target=tuple(path), at_key=at_key)
    except Exception:
        return None


def path_at(text, offset):
    try:
        return walk(text, stop=offset)
    except Exception:
        return ()


def line_col(text, offset):
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


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


def syntax_detail(e, text):
    expected = next((mine for theirs, mine in _SYNTAX if e.msg.startswith(theirs)), "expected valid JSON")
    rest = text[e.pos:e.pos + 64]           # enough to name what is there
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
        m = TOKEN.match(text, e.pos)
        token = m.group(m.lastindex) if m else found
        got = f"'{cut(token, 16)}'" if token else "the end of the line"
    return f"{expected}, got {got}"
