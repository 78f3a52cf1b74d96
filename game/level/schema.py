"""The level schema: a fast check of a whole document, and messages for what it refuses.

``levels/level.schema.json`` is the law. jsonschema states it exactly but spends a third
of a millisecond on a ball, so every document is first checked by ``check``'s own
compiled form of the schema (closures over the handful of keywords the schema uses,
about a microsecond a ball). Only a document it refuses goes to jsonschema, cut down to
the first refused item of each list, for the message: so a refusal costs no more than an
acceptance. A test holds the two to the same verdict.
"""
import difflib
import itertools
import json
import math
import operator
import os
import re

import numpy as np

from game.paths import LEVELS
from game.level.errors import LevelError, Problem, quote, render

SCHEMA_FILE = os.path.join(LEVELS, "level.schema.json")

_VALIDATOR = None
_FAST = None


def validator():
    """The jsonschema validator of the level schema (local "$ref"s inlined), made once."""
    global _VALIDATOR
    if _VALIDATOR is None:
        from jsonschema import Draft202012Validator
        _VALIDATOR = Draft202012Validator(_inline_refs(_schema(), _schema()))
    return _VALIDATOR


def _schema():
    try:
        with open(SCHEMA_FILE, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise LevelError(SCHEMA_FILE, f"cannot check levels without the schema: {e}") from None


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
        target = _inline_refs(resolve(root, node["$ref"]), root)
        out = {**target, **out}
    elif "$ref" in node:
        out["$ref"] = node["$ref"]
    return out


def resolve(root, ref):
    """The subschema a local reference such as "#/$defs/point" names."""
    node = root
    for part in ref.lstrip("#").strip("/").split("/"):
        node = node[part]
    return node


# ============================================================================ the fast check

# "x-why": why a bound is where it is, said after what was expected ("expected a number
# from 0.1 to 1000000 (the tick cannot follow...)").
_ANNOTATIONS = {"title", "description", "default", "$schema", "$comment", "examples", "$defs", "x-why"}


def compile_schema(schema):
    """A function ``ok(value) -> bool`` with the meaning of ``schema`` (refs inlined).

    Knows the keywords the level schema uses (type, enum, minimum, maximum, exclusive
    bounds, minItems, maxItems, minLength, maxLength, pattern, items, properties, patternProperties,
    additionalProperties, required, allOf, oneOf, not); any other keyword raises
    ValueError, so a schema that grows a new rule cannot be checked half.
    """
    fast = _number_check(schema) or _vector_check(schema) or _vector_list_check(schema)
    if fast is not None:
        return fast
    checks = []
    unknown = set(schema) - _ANNOTATIONS - {
        "type", "enum", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems",
        "minLength", "maxLength", "pattern", "items", "properties", "patternProperties", "additionalProperties",
        "required", "allOf", "oneOf", "not"}
    if unknown:
        raise ValueError(f"the fast schema check does not know {sorted(unknown)}")
    if "type" in schema:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        tests = [_TYPE_TESTS[k] for k in kinds]
        checks.append(tests[0] if len(tests) == 1 else (lambda v: any(t(v) for t in tests)))
    if "enum" in schema:
        allowed = schema["enum"]
        checks.append(lambda v: any(_json_equal(v, e) for e in allowed))
    bounds = [(schema.get(k), op) for k, op in (("minimum", operator.ge), ("maximum", operator.le),
                                                ("exclusiveMinimum", operator.gt),
                                                ("exclusiveMaximum", operator.lt)) if k in schema]
    if bounds:
        def in_range(v, bounds=bounds):         # int and float compare exactly, any size
            if not _is_number(v):
                return True
            return all(op(v, limit) for limit, op in bounds)
        checks.append(in_range)
    lo_items, hi_items = schema.get("minItems"), schema.get("maxItems")
    if lo_items is not None or hi_items is not None:
        lo_items, hi_items = lo_items or 0, math.inf if hi_items is None else hi_items
        checks.append(lambda v: not isinstance(v, list) or lo_items <= len(v) <= hi_items)
    lo_len, hi_len = schema.get("minLength"), schema.get("maxLength")
    if lo_len is not None or hi_len is not None:
        lo_len, hi_len = lo_len or 0, math.inf if hi_len is None else hi_len
        checks.append(lambda v: not isinstance(v, str) or lo_len <= len(v) <= hi_len)
    if "pattern" in schema:                     # as jsonschema: re.search, on text only
        pattern = re.compile(schema["pattern"])
        checks.append(lambda v: not isinstance(v, str) or pattern.search(v) is not None)
    if "items" in schema:
        item = compile_schema(schema["items"])
        checks.append(lambda v: not isinstance(v, list) or all(map(item, v)))
    if {"properties", "patternProperties", "additionalProperties", "required"} & set(schema):
        checks.append(_object_check(schema))
    for sub in schema.get("allOf", []):
        checks.append(compile_schema(sub))
    if "oneOf" in schema:
        subs = [compile_schema(s) for s in schema["oneOf"]]
        checks.append(lambda v: sum(1 for s in subs if s(v)) == 1)
    if "not" in schema:
        sub = compile_schema(schema["not"])
        checks.append(lambda v: not sub(v))
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda v: first(v) and second(v)
    return lambda v: all(c(v) for c in checks)


_BOUND_KEYS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")


def _bounds(schema):
    """(lo, hi, lo_open, hi_open) of a number schema; None where it has other keywords."""
    if set(schema) - _ANNOTATIONS - {"type", *_BOUND_KEYS} or schema.get("type", "number") != "number":
        return None
    lo, lo_open = schema.get("minimum", -math.inf), False
    if "exclusiveMinimum" in schema:
        lo, lo_open = schema["exclusiveMinimum"], True
    hi, hi_open = schema.get("maximum", math.inf), False
    if "exclusiveMaximum" in schema:
        hi, hi_open = schema["exclusiveMaximum"], True
    return float(lo), float(hi), lo_open, hi_open


def _number_check(schema):
    """A number in a range (the commonest schema: one test, no calls)."""
    if schema.get("type") != "number" or (b := _bounds(schema)) is None:
        return None
    lo, hi, lo_open, hi_open = b

    def ok(v):
        t = type(v)
        if t is not float and t is not int:
            return False
        return (lo < v if lo_open else lo <= v) and (v < hi if hi_open else v <= hi)
    return ok


def _vector_parts(schema):
    """(length, bounds) of a schema for [x, y]: an array of exactly n numbers in a range."""
    if set(schema) - _ANNOTATIONS - {"type", "items", "minItems", "maxItems"} or schema.get("type") != "array":
        return None
    items, n = schema.get("items"), schema.get("minItems")
    if not isinstance(items, dict) or n is None or schema.get("maxItems") != n or items.get("type") != "number":
        return None
    b = _bounds(items)
    return None if b is None else (n, b)


def _vector_check(schema):
    parts = _vector_parts(schema)
    if parts is None:
        return None
    n, (lo, hi, lo_open, hi_open) = parts
    number = _number_check(schema["items"])

    def ok(v):
        return type(v) is list and len(v) == n and all(map(number, v))
    return ok


def _vector_list_check(schema):
    """A list of [x, y]: checked in numpy at once (a polyline of 10,000 points in a few ms)."""
    if set(schema) - _ANNOTATIONS - {"type", "items", "minItems", "maxItems"} or schema.get("type") != "array":
        return None
    items = schema.get("items")
    parts = _vector_parts(items) if isinstance(items, dict) else None
    if parts is None:
        return None
    n, (lo, hi, lo_open, hi_open) = parts
    lo_items, hi_items = schema.get("minItems", 0), schema.get("maxItems", math.inf)
    number_types = {int, float}

    def ok(v):
        if type(v) is not list or not lo_items <= len(v) <= hi_items:
            return False
        if not all(type(p) is list and len(p) == n for p in v):
            return False
        if not set(map(type, itertools.chain.from_iterable(v))) <= number_types:
            return False
        if not v:
            return True
        try:
            a = np.array(v, dtype=float)
        except OverflowError:                   # an int beyond float: out of any range here
            return False
        above = a > lo if lo_open else a >= lo
        below = a < hi if hi_open else a <= hi
        return bool(above.all() and below.all())
    return ok


def _object_check(schema):
    patterns = [(re.compile(p), compile_schema(s)) for p, s in schema.get("patternProperties", {}).items()]
    # a known key's checks, the patterns that match it included (the schema is fixed: decide once)
    props = {}
    for key, sub in schema.get("properties", {}).items():
        subs = [compile_schema(sub)] + [c for pattern, c in patterns if pattern.search(key)]
        props[key] = subs[0] if len(subs) == 1 else (lambda v, subs=subs: all(c(v) for c in subs))
    extra = schema.get("additionalProperties", True)
    extra = compile_schema(extra) if isinstance(extra, dict) else (lambda v, ok=extra: ok)
    required = list(schema.get("required", []))
    if not props and not patterns and "additionalProperties" not in schema:
        return lambda v: not isinstance(v, dict) or all(k in v for k in required)

    def other(key, value):
        matched = False
        for pattern, sub in patterns:
            if pattern.search(key):
                matched = True
                if not sub(value):
                    return False
        return matched or extra(value)

    def ok(v):
        if not isinstance(v, dict):
            return True
        get = props.get
        for key, value in v.items():
            check = get(key)
            if not (check(value) if check is not None else other(key, value)):
                return False
        for k in required:
            if k not in v:
                return False
        return True
    return ok


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


_TYPE_TESTS = {
    "number": _is_number,
    "integer": lambda v: _is_number(v) and (isinstance(v, int) or v.is_integer()),
    "string": lambda v: isinstance(v, str),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def _json_equal(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b and (_is_number(a) == _is_number(b))


def _fast():
    global _FAST
    if _FAST is None:
        _FAST = compile_schema(validator().schema)
    return _FAST


# ============================================================================ checking

def check(doc):
    """Raise a Problem for the first thing in ``doc`` the schema refuses; None if valid.

    Fast for a valid document (see the module docstring); for a refused one, jsonschema
    runs on a copy that keeps of each top-level list only its first refused item, and
    the message's path is mapped back to the item's real index.
    """
    if _fast()(doc):
        return
    schema = validator().schema
    trimmed, where = doc, {}
    if isinstance(doc, dict):
        trimmed = dict(doc)
        for key, sub in schema.get("properties", {}).items():
            value = doc.get(key)
            if isinstance(value, list) and isinstance(sub.get("items"), dict) and sub["items"].get("type") == "object":
                item = compile_schema(sub["items"])
                bad = next((i for i, v in enumerate(value) if not item(v)), None)
                trimmed[key] = [] if bad is None else [value[bad]]
                if bad is not None:
                    where[key] = bad
                if not compile_schema({k: v for k, v in sub.items() if k != "items"})(value):
                    trimmed[key] = value        # the list itself is refused (its length): keep it
                    where.pop(key, None)
    try:                                        # a list far too long: named by its count
        check_sizes(trimmed, schema)
    except Problem as p:
        raise Problem(_real_path(p.path, where), p.detail) from None
    from jsonschema.exceptions import best_match
    error = best_match(validator().iter_errors(trimmed))
    if error is None:                           # the cut-down copy hides it: ask about the whole
        error = best_match(validator().iter_errors(doc))
        trimmed, where = doc, {}
    if error is None:
        raise Problem((), "expected a level that passes the schema, got one the fast check refuses")
    problem = schema_problem(error, schema, trimmed)
    raise Problem(_real_path(problem.path, where), problem.detail, problem.at_key, problem.show_token)


def _real_path(path, where):
    """A path in the cut-down copy -> the path in the document (the item's real index)."""
    if len(path) >= 2 and path[0] in where and path[1] == 0:
        return (path[0], where[path[0]]) + path[2:]
    return path


def check_top_sizes(doc):
    """Refuse a top-level list longer than its maxItems (the count in the message), before
    anything walks it; deeper lists are measured only in a refused item (see ``check``)."""
    if not isinstance(doc, dict):
        return
    for key, sub in validator().schema.get("properties", {}).items():
        value = doc.get(key)
        limit = sub.get("maxItems")
        if type(value) is list and limit is not None and len(value) > limit:
            raise Problem((key,), f"expected a list of at most {limit} items, got {len(value)} items")


SMALL_LIST_SLACK = 1000   # items: a short fixed list (a point) this much too long is refused by count


def check_sizes(value, schema, path=()):
    """Refuse over-long lists before anything walks them, naming the count.

    Lists of things (maxItems of 100 or more) are held to their limit exactly; a short
    fixed list such as a point only when it is absurdly long (SMALL_LIST_SLACK beyond),
    so a point of three numbers still gets the schema's own words ("expected [x, y]").
    This bounds what jsonschema is ever shown when it words a refusal.
    """
    checker = _SIZE_CHECKERS.get(id(schema))
    if checker is None:
        checker = _SIZE_CHECKERS[id(schema)] = (_size_checker(schema), schema)
    checker[0](value, path)


_SIZE_CHECKERS = {}


def _has_limit(schema):
    if not isinstance(schema, dict):
        return False
    return "maxItems" in schema or _has_limit(schema.get("items")) or any(
        _has_limit(sub) for sub in schema.get("properties", {}).values())


def _size_checker(schema):
    limit = schema.get("maxItems")
    if limit is not None and limit < 100:
        limit += SMALL_LIST_SLACK
    items = schema.get("items")
    item_check = _size_checker(items) if _has_limit(items) else None
    props = {k: _size_checker(sub) for k, sub in schema.get("properties", {}).items() if _has_limit(sub)}

    def check(value, path):
        if type(value) is list:
            if limit is not None and len(value) > limit:
                raise Problem(path, f"expected a list of at most {schema['maxItems']} items, got {len(value)} items")
            if item_check is not None:
                for i, v in enumerate(value):
                    if type(v) is list or isinstance(v, dict):
                        item_check(v, path + (i,))
        elif props and isinstance(value, dict):
            for key, sub in props.items():
                v = value.get(key)
                if type(v) is list or isinstance(v, dict):
                    sub(v, path + (key,))
    return check


_TYPE_WORDS = {"number": "a number", "integer": "a whole number", "string": "text", "array": "a list",
               "object": "an object", "boolean": "true or false", "null": "null"}
_RANGE_KEYWORDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
_CLOSE_MAX = 40        # characters: a longer unknown key gets no "did you mean"


def schema_problem(error, schema, doc):
    """Turn a jsonschema error into a Problem: the JSON path, what was expected, what was found.

    Subschemas with a ``title`` (such as "[x, y]") name what a whole value should be: an
    error anywhere inside one is reported at that value, with the title as what was expected.
    A ``oneOf`` of objects told apart by their "kind" (a motion) is the exception: an object
    whose kind picks one of them is reported as that one refuses it (an unknown key named
    with "did you mean", a number out of its range), below the title.
    """
    within = 0                  # titles at this depth or above do not count (a kind's branch)
    branch = _kind_branch_error(error)
    if branch is not None:
        within = len(error.absolute_path)
        error = branch
    instance_path = tuple(error.absolute_path)
    titled = _innermost_title(schema, list(error.absolute_schema_path), within)
    keyword = error.validator
    if titled is not None:
        depth, title, leaf_through_items = titled
        path = instance_path[:depth]
        expected = title
        if keyword in _RANGE_KEYWORDS and leaf_through_items:
            expected += " with each " + describe(error.schema)
        return Problem(path, f"expected {expected}, got {render(_at(doc, path))}")
    if keyword == "required":
        missing = next(k for k in error.validator_value if k not in error.instance)
        return Problem(instance_path, f"expected a key {json.dumps(missing)}, got {render(error.instance)}")
    if keyword == "additionalProperties":
        patterns = [re.compile(p) for p in error.schema.get("patternProperties", {})]
        known = [k for k in error.schema.get("properties", {}) if not any(p.search(k) for p in patterns)]
        extra = next(k for k in error.instance if k not in error.schema.get("properties", {})
                     and not any(p.search(k) for p in patterns))
        close = difflib.get_close_matches(extra, known, n=1) if len(extra) <= _CLOSE_MAX else []
        hint = f" (did you mean {json.dumps(close[0])}?)" if close else ""
        return Problem(instance_path + (extra,),
                       f"expected one of the keys {', '.join(known)} or a comment key starting with \"_\", "
                       f"got the unknown key {quote(extra)}{hint}", at_key=True)
    if keyword in ("type", "enum") + _RANGE_KEYWORDS:
        expected = describe(error.schema)
        if keyword in _RANGE_KEYWORDS and "x-why" in error.schema:
            expected += f" ({error.schema['x-why']})"
    elif keyword in ("minItems", "maxItems"):
        expected = (f"a list of at least {error.validator_value} items" if keyword == "minItems"
                    else f"a list of at most {error.validator_value} items")
    elif keyword in ("minLength", "maxLength"):
        n = error.validator_value
        expected = (f"text of at least {n} character{'s' if n != 1 else ''}" if keyword == "minLength"
                    else f"text of at most {n} characters")
    else:
        expected = f"a value that passes the schema's {keyword!r} rule"
    return Problem(instance_path, f"expected {expected}, got {render(error.instance)}")


def _kind_branch_error(error):
    """For a ``oneOf`` error on an object whose "kind" names exactly one branch (by that
    branch's "kind" enum): the error of that branch to report (an unknown key first: it
    is why a required one seems missing); None otherwise."""
    if error.validator != "oneOf" or not isinstance(error.instance, dict):
        return None
    kind = error.instance.get("kind")
    picked = [i for i, sub in enumerate(error.validator_value) if isinstance(sub, dict)
              and any(kind == v for v in sub.get("properties", {}).get("kind", {}).get("enum", ()))
              and type(kind) is str]
    if len(picked) != 1:
        return None
    errors = [e for e in error.context if e.relative_schema_path and e.relative_schema_path[0] == picked[0]]
    if not errors:
        return None
    return min(errors, key=lambda e: (e.validator != "additionalProperties", len(e.absolute_path)))


def _at(doc, path):
    for step in path:
        doc = doc[step]
    return doc


def _innermost_title(schema, schema_path, within=0):
    """Follow an error's schema path; return (instance depth, title, reached the leaf through
    'items') for the deepest titled subschema on it (the outermost one at that depth), of
    those deeper than ``within``."""
    root, node, depth = schema, schema, 0
    best = None
    through_items = False

    def note(n):
        nonlocal best, through_items
        if isinstance(n, dict) and "title" in n and n is not root and depth > within and \
                (best is None or depth > best[0]):
            best = [depth, n["title"]]
            through_items = False

    i = 0
    while i < len(schema_path):
        key = schema_path[i]
        while isinstance(node, dict) and key not in node and "$ref" in node:
            node = resolve(root, node["$ref"])
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
            node = node[key] if key == "not" else resolve(root, node[key])
            i += 1
        else:
            break
        note(node)
    if best is None:
        return None
    return best[0], best[1], through_items


def describe(schema):
    """What a subschema wants, in words: "a number from 0 to 1"."""
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
