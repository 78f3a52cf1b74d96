"""What the author wrote: the editor saves a level as its author's text plus the edits.

Each item and top-level value of the definition is linked to the text its author wrote
for it (``register``); ``authored`` writes an item the edits never touched as the author
wrote it (key order, comments, numbers as written), an item an edit changed with the
author's keys (new values where they changed) plus only the keys that differ from the
defaults, and a new item without the keys equal to the defaults. A non-convex polygon
(the loader's convex pieces) is remembered as its outline and saved as one entry.
See game.editor.document for the Document that holds an ``Authorship``.
"""
import json

from game.level import DEFAULTS, FROM_MATERIAL, LevelError, complete
from game.level.normalise import BODY_DEFAULTS, convex_pieces
from game.editor.items import LISTS


class Authorship:
    """The links from a Document's definition to its author's text (``document.authorship``).

    Items are known by identity (the definition is never changed in place: an edit makes
    new items), so a link holds the item itself beside its ``id``.
    """

    def __init__(self):
        self._origin = {}           # id(item) -> (item, the author's item, the pieces after it, derived from)
        self._tops = []             # (a shallow copy of a definition, the author's document of it)
        self._outlines = {}         # id(first piece) -> (first piece, outline, the other pieces): a
                                    # non-convex polygon as its author drew it, saved as one entry

    def group(self, pieces, outline):
        """``pieces`` (the definition's items, in order) are one non-convex polygon with this
        outline (a list of [x, y]): saved as one entry, drawn without seams."""
        if len(pieces) > 1:
            self._outlines[id(pieces[0])] = (pieces[0], [[float(x), float(y)] for x, y in outline],
                                             tuple(pieces[1:]))

    def group_at(self, items, k):
        """(outline, count) if ``items[k]`` starts the pieces of a non-convex polygon (all of
        them there, in order), else None."""
        got = self._outlines.get(id(items[k]))
        if got is None or got[0] is not items[k]:
            return None
        rest = got[2]
        after = items[k + 1:k + 1 + len(rest)]
        if len(after) != len(rest) or any(a is not b for a, b in zip(after, rest)):
            return None
        return got[1], 1 + len(rest)

    def groups_within(self, polygons, refs):
        """[(first index, (outline, count))] of each non-convex polygon in ``polygons`` (the
        definition's list) all of whose pieces are in ``refs``."""
        out = []
        for k in range(len(polygons)):
            g = self.group_at(polygons, k)
            if g is not None and all(("polygons", k + j) in refs for j in range(g[1])):
                out.append((k, g))
        return out

    def regroup(self, groups, old, new, outline_map=None):
        """The pieces of ``groups`` (``groups_within``) went from the list ``old`` to ``new``:
        each stays one polygon, its outline mapped by ``outline_map`` (a function of a list
        of points; None: only while the pieces kept their points), as long as its pieces
        still agree on everything but their points."""
        for k, (outline, count) in groups:
            before = old[k:k + count]
            pieces = new[k:k + count]
            same_points = all(a["points"] == b["points"] for a, b in zip(before, pieces))
            if outline_map is not None:
                outline = outline_map(outline)
            elif not same_points:
                continue                       # a piece's shape changed: no longer the outline
            rest = [{key: v for key, v in piece.items() if key != "points" and not key.startswith(("_", "//"))}
                    for piece in pieces]
            if all(r == rest[0] for r in rest):
                self.group(pieces, outline)

    # ------------------------------------------------------------------ the author's document

    def register(self, definition, document):
        """Link ``definition`` as it is now to ``document``, the author's text of it (the
        parsed JSON that normalises to it: ``load_document``, or what ``authored`` gave)."""
        d = definition
        self._tops.append((dict(d), document))
        for name in LISTS:
            mine, theirs = d.get(name, []), document.get(name, [])
            k = 0
            for j, item in enumerate(theirs):
                count = 1
                if name == "polygons":      # a non-convex polygon is its convex pieces
                    count = len(convex_pieces((name, j, "points"), item["points"], True))
                if k + count > len(mine):
                    return
                self._origin[id(mine[k])] = (mine[k], item, tuple(mine[k + 1:k + count]), None)
                if count > 1:
                    self.group(mine[k:k + count], item["points"])
                k += count

    def derive(self, new, old):
        """``new`` replaces ``old``: it keeps the keys the author wrote for ``old``."""
        got = self._origin.get(id(old))
        if got is not None and got[0] is old:
            author, base = got[1], (got[3] if got[3] is not None else old)
            self._origin[id(new)] = (new, author, (), base)

    def authored(self, definition, default_name="Untitled"):
        """The author's document plus the edits: what Ctrl+S writes (see the module
        docstring). Loading it gives back the definition exactly (checked here: anything
        that would not, such as a spring whose rest the loader would measure afresh, is
        written in full)."""
        d = definition
        orig, author = self._tops[-1] if self._tops else ({}, {})
        out = {}
        for key in _key_order(author, d):
            value = d[key]
            top = self._top_of(key, value)
            if top is not None:
                if key in top:
                    out[key] = top[key]
                continue
            if key in LISTS:
                items = self._items(d, key, value)
                if items or key in author:
                    out[key] = items
            elif key == "material":
                out[key] = _merged(author.get(key, {}), orig.get(key, {}), value, DEFAULTS["material"])
            elif key == "player":               # written only where it says more than the defaults
                player = _merged(author.get(key, {}), orig.get(key, {}), value, DEFAULTS["player"])
                if player or key in author:
                    out[key] = player
            elif key in author or key not in _TOP_FILLS or not _same_value(value, _TOP_FILLS[key]):
                out[key] = value
        return _checked(d, out, default_name)

    def _top_of(self, key, value):
        """The author's document whose definition had this very value at ``key``, if any."""
        for orig, author in reversed(self._tops):
            # == compares shared items by identity first: cheap for a list an edit copied
            if key in orig and (orig[key] is value or orig[key] == value):
                return author
        return None

    def _items(self, definition, name, items):
        fills = _fills(definition, name)
        out, k = [], 0
        while k < len(items):
            item = items[k]
            got = self._origin.get(id(item))
            if got is not None and got[0] is item:
                _, author, rest, base = got
                after = items[k + 1:k + 1 + len(rest)]
                if base is None and len(after) == len(rest) and all(a is b for a, b in zip(after, rest)):
                    out.append(author)
                    k += 1 + len(rest)
                    continue
            group = self.group_at(items, k) if name == "polygons" else None
            if group is not None:
                # A non-convex polygon: one entry, its outline (the loader cuts it again).
                outline, count = group
                author, base = ({}, {}) if got is None or got[0] is not item else (got[1], got[3] or got[1])
                base = dict(base, points=None)
                out.append(_merged(author, base, dict(item, points=outline), fills))
                k += count
                continue
            if got is not None and got[0] is item and got[3] is not None:
                # an edit made it from the author's item: the author's keys, order and text
                # where the edit left them (this branch sat, unreachable, after the continue above)
                out.append(_merged(got[1], got[3], item, fills))
                k += 1
                continue
            out.append(_merged({}, {}, item, fills))
            k += 1
        return out


def _fills(definition, name):
    """What the loader fills in for a key of an item of list ``name`` (DEFAULTS resolved)."""
    material = definition["material"]
    if name == "bodies":        # a box's angle and a box's or polygon's radius: 0 when left out
        return {**{k: (material[k] if v is FROM_MATERIAL else v) for k, v in BODY_DEFAULTS.items()},
                "angle": 0.0, "radius": 0.0}
    return {k: (material[k] if v is FROM_MATERIAL else v) for k, v in DEFAULTS[name].items()}


def _checked(definition, out, default_name):
    """``out``, with what would not load back to the definition written in full."""
    d = definition
    for attempt in range(3):
        try:
            back = complete(out, default_name=default_name)
        except LevelError:
            break
        wrong = [k for k in d if back.get(k) != d[k]]      # values: 11 and 11.0 are one number
        if not wrong:
            return out
        for key in wrong:
            if key in LISTS and key != "polygons" and len(back[key]) == len(d[key]):
                # first the item's written keys with the definition's values and the keys
                # the loader would not fill in the same (a spring's rest); then all of it
                fills = _fills(d, key)
                out[key] = [it if b == full else _merged(it, {}, full, fills) if attempt == 0 else full
                            for it, b, full in zip(out[key], back[key], d[key])]
            else:
                out[key] = d[key]
    return dict(d)


def same_json(a, b):
    return json.dumps(a, sort_keys=False) == json.dumps(b, sort_keys=False)


# the top level's defaults a saved level may leave out ($schema and format are always written)
_TOP_FILLS = {k: v for k, v in DEFAULTS["level"].items() if k not in ("$schema", "format")}


def _same_value(a, b):
    return same_json(a, b) and (type(a) is type(b) or not isinstance(a, bool) and not isinstance(b, bool))


def _merged(author, base, new, fills):
    """An object as its author would write it after an edit: the author's keys in the
    author's order (the author's value where the edit left it as it was in ``base``, the
    definition it was written for), then the other keys of ``new`` whose value is neither
    what ``base`` had (the loader fills it in again) nor the default in ``fills``; each at
    its place in ``new``, after the nearest key before it that the author wrote."""
    def keep(k):
        if k in author:
            return True
        if k in base:
            return not _same_value(new[k], base[k])
        return k not in fills or not _same_value(new[k], fills[k])

    after = {}                          # author's key (or None: the start) -> new keys after it
    anchor = None
    for k in new:
        if k in author:
            anchor = k
        elif keep(k):
            after.setdefault(anchor, []).append(k)
    out = {k: new[k] for k in after.get(None, [])}
    for k in author:
        if k in new:
            out[k] = _as_written(author[k], base[k], new[k]) if k in base else new[k]
        for extra in after.get(k, []):
            out[extra] = new[extra]
    return out


def _as_written(author, base, new):
    """``new`` with the author's text wherever it still holds what the author wrote (in
    ``base``): a point moved along x keeps its y as written (11, not 11.0)."""
    if _same_value(new, base) or (_is_number(new) and _is_number(base) and new == base):
        return author
    if isinstance(new, list) and isinstance(base, list) and isinstance(author, list) \
            and len(new) == len(base) == len(author):
        return [_as_written(a, b, n) for a, b, n in zip(author, base, new)]
    return new


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _key_order(author, definition):
    """The definition's top-level keys: the author's first, in the author's order; each
    other key after the nearest key before it in the definition that is already placed."""
    keys = [k for k in author if k in definition]
    placed = set(keys)
    previous = None
    for k in definition:
        if k not in placed:
            at = keys.index(previous) + 1 if previous is not None else 0
            keys.insert(at, k)
            placed.add(k)
        previous = k
    return keys
