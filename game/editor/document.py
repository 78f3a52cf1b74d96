"""The editor's document: a level definition changed only through undoable edits.

    doc = Document(definition, path="levels/x.json")
    ref = doc.add("balls", {"pos": [3, 4]})          # filled in as the loader would
    doc.move([ref], (1, 0)); doc.undo(); doc.redo()

The definition is the normalised level (what ``game.level.load`` returns: plain dicts and
lists, every key present, key order and comment keys ``_...``, ``//...`` as loaded). Every
change is an ``Edit`` pushed on the undo stack (no depth limit). Values in the definition
are never changed in place: an edit builds new containers along the path it changes
(copy on write) and stores the old and new values of the top-level keys it touched, so
undo puts back exactly the same objects, in the same key order.

The author's document (the parsed file, ``game.level.load_document``) is what gets saved:
``authored()`` is it plus the edits (kept by an ``Authorship``, game.editor.authored). Each item and top-level value of the definition is
linked to the text its author wrote for it (``register``): an item the edits never
touched is written as the author wrote it (key order, comments, numbers as written), an
item an edit changed keeps the author's keys (new values where they changed) and adds
only keys that differ from the defaults, and a new item is written without the keys
equal to the defaults (as ``game.level.strip`` does: what a person would write). So
undoing every edit and saving gives back the author's document, and one edit changes
only its item's text.

An item is named by a ref ``(list_name, index)``, e.g. ``("balls", 3)``. A problem the
player should see (a self-crossing polygon, a radius the level cannot hold) raises
``EditRefused`` with one line; the definition is then unchanged.
"""
import itertools
import json

from game.level import LevelError, loads
from game.editor.authored import Authorship, same_json
from game.editor.items import (LISTS, ZONE_SHAPES, bbox, copied_links, followed_joints, held_by_bodies,
                               kept_links, translated)
_MISSING = object()
_SERIAL = itertools.count(1)     # every state of the definition gets a new number
# A static shape the tiny level built to normalise one item needs (the loader refuses a
# level without statics); far away so it never matters.
_ANCHOR_SEGMENT = {"a": [0, 0], "b": [1, 0]}


class EditRefused(Exception):
    """An edit the level cannot hold; ``str(e)`` is one line for the player."""


class Edit:
    """One undoable step: the old and new values of the top-level keys it changes.

    ``label`` names it for the player ("move 3 items"); ``merge`` is a key: a later edit
    with the same key (the frames of one drag) folds into this one, so undo takes the
    whole drag back at once.
    """

    def __init__(self, label, before, after, merge=None):
        self.label, self.before, self.after, self.merge = label, before, after, merge
        self.serial = next(_SERIAL)

    def do(self, definition):
        _put(definition, self.after)

    def undo(self, definition):
        _put(definition, self.before)


def _put(definition, values):
    for key, value in values.items():
        if value is _MISSING:
            definition.pop(key, None)
        else:
            definition[key] = value


def updated(value, path, new):
    """``value`` with the slot at ``path`` (keys and indices) set to ``new``: a new container
    along the path, the rest shared. ``new`` may be _MISSING to delete a dict key."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, list):
        out = list(value)
        out[head] = updated(value[head], rest, new)
        return out
    out = dict(value)
    if new is _MISSING and not rest:
        out.pop(head, None)
    else:
        out[head] = updated(value[head], rest, new)
    return out


class Document:
    """A level definition, its selection, its undo and redo stacks and its file.

    Attributes: ``definition`` (dict, changed only by edits), ``path`` (the file or None),
    ``selection`` (a list of refs), ``conflict`` (the file's definition when it changed on
    disk while we held unsaved edits, or the LevelError when the file on disk is broken:
    saving waits for ``resolve`` either way, so nobody's file is overwritten unasked;
    else None).
    """

    def __init__(self, definition, path=None, document=None):
        self.definition = definition
        self.path = path
        self.selection = []
        self.conflict = None
        self._undo, self._redo = [], []
        self._saved = self._state()
        self.authorship = Authorship()  # what the author wrote, and non-convex polygons' outlines
        if document is not None:
            self.register(document)

    # ------------------------------------------------------------------ history

    def apply(self, label, after, merge=None):
        """Set the top-level keys in ``after`` as one undoable edit; returns the Edit. A
        snapshot's memory (``_resume``: warm start, sleep) is of the world it was taken from,
        not of an edited level: the first edit takes it out with it (undo gives it back)."""
        d = self.definition
        if "_resume" in d:
            after = {**after, "_resume": _MISSING}
        before = {k: d.get(k, _MISSING) for k in after}
        top = self._undo[-1] if self._undo else None
        if merge is not None and top is not None and top.merge == merge and not self._redo:
            for k, v in before.items():
                top.before.setdefault(k, v)
            top.after.update(after)
            top.serial = next(_SERIAL)      # a new state: a save in mid-drag is not this one
            top.do(d)
            return top
        edit = Edit(label, before, dict(after), merge)
        edit.do(d)
        self._undo.append(edit)
        self._redo.clear()
        return edit

    def undo(self):
        """Take the last edit back; returns its label, or None when there is none."""
        if not self._undo:
            return None
        edit = self._undo.pop()
        edit.undo(self.definition)
        self._redo.append(edit)
        self._clean_selection()
        return edit.label

    def redo(self):
        """Do the last undone edit again; returns its label, or None."""
        if not self._redo:
            return None
        edit = self._redo.pop()
        edit.do(self.definition)
        self._undo.append(edit)
        self._clean_selection()
        return edit.label

    def end_merge(self):
        """The next edit starts a new undo step even if it has the same merge key."""
        if self._undo:
            self._undo[-1].merge = None

    @property
    def can_undo(self):
        return bool(self._undo)

    @property
    def can_redo(self):
        return bool(self._redo)

    def _state(self):
        return self._undo[-1].serial if self._undo else None

    @property
    def dirty(self):
        """True when the definition differs from the last one saved or loaded."""
        return self._state() != self._saved

    def mark_saved(self):
        self._saved = self._state()

    def _clean_selection(self):
        self.selection = [r for r in self.selection if self.exists(r)]

    def exists(self, ref):
        name, i = ref
        return name in LISTS and 0 <= i < len(self.definition.get(name, ()))

    def item(self, ref):
        return self.definition[ref[0]][ref[1]]

    # ------------------------------------------------------------------ building items

    def normalised(self, name, item):
        """``item`` for list ``name`` as the loader fills it in: a list of items (a non-convex
        polygon comes back as its convex pieces). Raises EditRefused with the loader's reason."""
        return filled_in(self.definition, {name: [item]})[name]

    # ------------------------------------------------------------------ operations

    def add(self, name, item, label=None):
        """Append ``item`` (filled in as the loader would) to list ``name``; select it and
        return its ref (the first piece's for a split polygon)."""
        pieces = self.normalised(name, item)
        old = self.definition.get(name, [])
        self.apply(label or f"add {_singular(name)}", {name: old + pieces})
        if name == "polygons":
            self.authorship.group(pieces, item["points"])
        refs = [(name, len(old) + k) for k in range(len(pieces))]
        self.selection = refs
        return refs[0]

    def delete(self, refs, label=None):
        """Remove the items; springs and joints on a removed ball go with it, the others are renumbered."""
        refs = sorted(set(r for r in refs if self.exists(r)))
        if not refs:
            return
        self.apply(label or f"delete {_count(refs)}", _deleted(self, refs))
        self.selection = []

    def swap(self, refs, items, label):
        """Remove the items ``refs`` and append ``items`` [(list name, item)] in their place, as
        one undoable edit (a wall turned into a body); the new items become the selection."""
        refs = sorted(set(r for r in refs if self.exists(r)))
        pieces = [(name, self.normalised(name, item)) for name, item in items]
        after = _deleted(self, refs, check_walls=False)
        d, new_refs = self.definition, []
        for name, got in pieces:
            lst = after.get(name, list(d.get(name, [])))
            new_refs += [(name, len(lst) + k) for k in range(len(got))]
            after[name] = lst + got
        if not any(after.get(k, d.get(k)) for k in ("segments", "polylines", "polygons")):
            raise EditRefused("a level needs at least one wall: add another before turning the last into a body")
        self.apply(label, after)
        self.selection = new_refs

    def move(self, refs, delta, merge=None, label=None):
        """Translate the items by ``delta`` (metres). Springs move their anchor only."""
        dx, dy = float(delta[0]), float(delta[1])
        if dx == 0 and dy == 0:
            return
        changes = {}
        for ref in refs:
            if self.exists(ref):
                changes[ref] = translated(ref[0], self.item(ref), dx, dy)
        self._replace_items(changes, label or f"move {_count(refs)}", merge,
                            outline_map=lambda pts: [[p[0] + dx, p[1] + dy] for p in pts])

    def transform(self, refs, center, rotate=0.0, factor=1.0, label=None, merge=None):
        """Turn the items by ``rotate`` degrees (counter-clockwise) and scale them by
        ``factor`` about ``center`` (metres), as one undoable edit (``merge``: folded into the
        last edit of that key, the frames of one drag); refused (EditRefused, nothing
        changes) where the loader would refuse an item so changed."""
        from game.editor.shapes import rotate_point, scale_point, transformed

        def point_map(p):
            return scale_point(rotate_point(p, center, rotate), center, factor)

        changes = {}
        for ref in refs:
            if self.exists(ref):
                new = transformed(ref[0], self.item(ref), point_map, rotate, factor)
                pieces = self.normalised(ref[0], new)
                if len(pieces) != 1:
                    raise EditRefused("that would make a polygon non-convex")
                if ref[0] in ("polygons", "bodies") and "points" in new:
                    new = dict(new, points=pieces[0]["points"])
                changes[ref] = new
        bodies = {i: self.item(r)["shape"] for r in changes for i in [r[1]] if r[0] == "bodies"}
        if bodies:      # a joint holds a turned body at the same point of it
            for links in ("joints", "springs"):
                changes.update(held_by_bodies(links, self.definition.get(links, []), changes, bodies, rotate, factor))
        what = label or (f"rotate {_count(refs)}" if rotate else f"scale {_count(refs)}")
        self._replace_items(changes, what, merge, outline_map=lambda pts: [point_map(p) for p in pts])

    def move_handle(self, ref, handle, point, merge=None):
        """Move one handle (see ``handles``) of an item to ``point``; refused (EditRefused)
        when the shape would be invalid, e.g. a polygon crossing itself."""
        name, _ = ref
        item = self.item(ref)
        p = [float(point[0]), float(point[1])]
        if isinstance(handle, int):
            new = updated(item, ("points", handle), p)
        else:
            new = updated(item, (handle,), p)
        pieces = self.normalised(name, new)
        if len(pieces) != 1:
            raise EditRefused("that corner would make the polygon non-convex: add a new polygon instead")
        if name == "polygons" and pieces[0]["points"] != new["points"]:
            new = updated(new, ("points",), pieces[0]["points"])
        self._replace_items({ref: new}, f"move {_singular(name)} handle", merge)

    def set_property(self, refs, key, value, merge=None):
        """Set ``key`` to ``value`` on every item of ``refs`` that has it (or may have it).

        ``mass`` and ``density`` replace each other in place. Refused with the loader's
        reason when an item cannot hold the value (nothing changes then).
        """
        changes = {}
        for ref in refs:
            if not self.exists(ref):
                continue
            item = self.item(ref)
            if key in ("mass", "density") and ref[0] in ("balls", "bodies"):
                new = _renamed(item, "density" if key == "mass" else "mass", key, value)
            elif key in ("name", "colour") and ref[0] == "bodies":
                new = dict(item, **{key: value}) if value is not None else updated(item, (key,), _MISSING)
            elif key == "kind" and ref[0] == "zones":
                new = updated(item, ("kind",), value)
            elif key in item:
                new = updated(item, (key,), value)
            else:
                continue
            checked = self.normalised(ref[0], new)
            if len(checked) != 1:
                raise EditRefused(f"{key}: the shape would split")
            changes[ref] = new
        if not changes:
            raise EditRefused(f"nothing selected has {key}")
        self._replace_items(changes, f"set {key}", merge)

    def set_zone_shape(self, ref, shape, merge=None):
        """Make the zone a rect, circle, ellipse or polygon filling the same box."""
        item = self.item(ref)
        x0, y0, x1, y1 = bbox(ref[0], item)
        cx, cy, rx, ry = (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) / 2, (y1 - y0) / 2
        value = {"rect": [[x0, y0], [x1, y1]],
                 "circle": {"center": [cx, cy], "radius": max(min(rx, ry), 1e-3)},
                 "ellipse": {"center": [cx, cy], "radii": [max(rx, 1e-3), max(ry, 1e-3)]},
                 "polygon": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]}[shape]
        new = {}
        for k, v in item.items():
            if k in ZONE_SHAPES:
                new[shape] = value
            else:
                new[k] = v
        self.normalised("zones", new)
        self._replace_items({ref: new}, f"zone shape {shape}", merge)

    def duplicate(self, refs, offset):
        """Copies of the items moved by ``offset`` (metres), appended; they become the selection.
        A spring or joint is copied with its copied balls when both ends are duplicated too."""
        refs = [r for r in refs if self.exists(r)]
        if not refs:
            return []
        d = self.definition
        after, new_refs, ball_map, copied = {}, [], {}, {}
        groups = self.authorship.groups_within(d.get("polygons", []), refs)
        body_map = {}
        for name in LISTS:
            mine = [r for r in refs if r[0] == name and name not in ("springs", "joints")]
            if not mine:
                continue
            lst = list(d[name])
            for ref in mine:
                if name == "balls":
                    ball_map[ref[1]] = len(lst)
                if name == "bodies":
                    body_map[ref[1]] = len(lst)
                if name == "polygons":
                    copied[ref[1]] = len(lst)
                lst.append(translated(name, self.item(ref), offset[0], offset[1]))
                new_refs.append((name, len(lst) - 1))
            after[name] = lst
        for name in ("springs", "joints"):      # a link is copied when its balls are copied too
            copies = copied_links(d.get(name, []), refs, name, ball_map, offset, body_map)
            if copies:
                after[name] = list(d[name]) + copies
                new_refs += [(name, len(d[name]) + k) for k in range(len(copies))]
        self.apply(f"duplicate {_count(refs)}", after)
        for k, (outline, count) in groups:           # a copied non-convex polygon is one too
            self.authorship.group([after["polygons"][copied[k + j]] for j in range(count)],
                        [[p[0] + offset[0], p[1] + offset[1]] for p in outline])
        self.selection = new_refs
        return new_refs

    def set_top(self, key, value, merge=None):
        """Set a top-level key (name, gravity, bounds, material...)."""
        self.apply(f"set {key}", {key: value}, merge)

    def replace_definition(self, definition, label="take the file's version"):
        """Make the whole definition ``definition``, as one undoable edit."""
        d = self.definition
        after = {k: definition.get(k, _MISSING) for k in set(d) | set(definition)}
        # keys in the new definition's order: drop all, then put back in order
        edit_before = {k: d.get(k, _MISSING) for k in after}
        order_before = list(d.keys())
        order_after = list(definition.keys())
        edit = _Replace(label, edit_before, after, order_before, order_after)
        edit.do(d)
        self._undo.append(edit)
        self._redo.clear()
        self._clean_selection()

    def _replace_items(self, changes, label, merge=None, outline_map=None):
        """Replace items (ref -> new item) as one edit. A non-convex polygon whose pieces are
        all replaced stays one polygon when saved: its outline mapped by ``outline_map``
        (a function of a list of points; None: the pieces kept their points)."""
        if not changes:
            return
        d = self.definition
        groups = self.authorship.groups_within(d.get("polygons", []), changes)
        before, after = d.get("polygons", []), {}   # the pieces before the edit: apply replaces them
        for (name, i), new in changes.items():
            lst = after.get(name) or list(d[name])
            self.authorship.derive(new, d[name][i])
            lst[i] = new
            after[name] = lst
        if d.get("joints") and ("balls" in after or "joints" in after or "bodies" in after):
            followed = followed_joints(d["joints"], after.get("joints", d["joints"]), d["balls"],   # joints follow
                                       after.get("balls", d["balls"]), self.authorship.derive,  # their ends
                                       d.get("bodies"), after.get("bodies", d.get("bodies")))
            if followed is not None:
                after["joints"] = followed
        self.apply(label, after, merge)
        if groups:
            self.authorship.regroup(groups, before, after["polygons"], outline_map)

    # ------------------------------------------------------------------ non-convex polygons

    def group_of(self, ref):
        """(outline, first index, count) of the non-convex polygon the polygon ``ref`` is a
        piece of, or None."""
        name, i = ref
        if name != "polygons" or not self.exists(ref):
            return None
        items = self.definition["polygons"]
        for k in range(max(0, i - 64), i + 1):
            g = self.authorship.group_at(items, k)
            if g is not None and k + g[1] > i:
                return g[0], k, g[1]
        return None

    # ------------------------------------------------------------------ the author's document

    def register(self, document):
        """Link the definition as it is now to ``document``, the author's text of it (the
        parsed JSON that normalises to it: ``load_document``, or what ``authored`` gave)."""
        self.authorship.register(self.definition, document)

    def authored(self, default_name="Untitled"):
        """The author's document plus the edits: what Ctrl+S writes (see the module
        docstring and game.editor.authored). Loading it gives back the definition exactly."""
        return self.authorship.authored(self.definition, default_name)

    # ------------------------------------------------------------------ disk

    def file_changed(self, theirs):
        """The file on disk now holds ``theirs`` (a loaded definition), written by someone else.

        Without unsaved edits we take it (undoable). With unsaved edits we keep both: the
        definition stays ours and ``conflict`` holds theirs until ``resolve``. Returns
        "taken", "conflict" or "same".
        """
        if same_json(theirs, self.definition):
            self.conflict = None
            return "same"
        if not self.dirty:
            self.conflict = None
            self.replace_definition(theirs)
            self.mark_saved()
            return "taken"
        self.conflict = theirs
        return "conflict"

    def resolve(self, choice):
        """``"mine"`` keeps our edits (the next save overwrites the file); ``"theirs"`` takes
        the file's version as one undoable edit (undo brings ours back)."""
        theirs = self.conflict
        if theirs is None:
            return
        if choice == "theirs" and isinstance(theirs, LevelError):
            raise EditRefused("the file on disk does not load: fix it, or keep yours")
        self.conflict = None
        if choice == "theirs":
            self.replace_definition(theirs)
            self.mark_saved()
        elif choice != "mine":
            raise ValueError(f"expected 'mine' or 'theirs', got {choice!r}")


def _deleted(doc, refs, check_walls=True):
    """The top-level lists without the items ``refs`` (and the links on their balls and bodies)."""
    d = doc.definition
    gone = {name: {i for n, i in refs if n == name} for name in LISTS}
    after = {}
    for name in LISTS:
        if gone[name]:
            after[name] = [it for i, it in enumerate(d[name]) if i not in gone[name]]
    if check_walls and not any(after.get(k, d.get(k)) for k in ("segments", "polylines", "polygons")):
        raise EditRefused("a level needs at least one wall: add another before deleting the last")
    if gone["balls"] or gone["bodies"]:     # springs and joints on a removed ball or body go with it
        dead, dead_bodies = sorted(gone["balls"]), sorted(gone["bodies"])

        def renumber(b):
            return b - sum(1 for k in dead if k < b)

        def renumber_body(b):
            return b - sum(1 for k in dead_bodies if k < b)

        for links in ("springs", "joints"):
            if after.get(links, d.get(links)):
                after[links] = kept_links(after.get(links, d[links]), gone["balls"], renumber,
                                          doc.authorship.derive, gone["bodies"], renumber_body)
    return after


class _Replace(Edit):
    """Replace the whole definition, restoring the key order on undo."""

    def __init__(self, label, before, after, order_before, order_after):
        super().__init__(label, before, after)
        self.order_before, self.order_after = order_before, order_after

    def do(self, definition):
        _rebuild(definition, self.after, self.order_after)

    def undo(self, definition):
        _rebuild(definition, self.before, self.order_before)


def _rebuild(definition, values, order):
    definition.clear()
    for k in order:
        if values.get(k, _MISSING) is not _MISSING:
            definition[k] = values[k]


def _renamed(item, old_key, new_key, value):
    out = {}
    for k, v in item.items():
        if k in (old_key, new_key):
            out[new_key] = value
        else:
            out[k] = v
    if new_key not in out:
        out[new_key] = value
    return out


def _singular(name):
    return {"polylines": "polyline", "polygons": "polygon", "balls": "ball", "springs": "spring",
            "joints": "joint", "spawners": "spawner", "zones": "zone", "segments": "segment", "bodies": "body"}.get(name, name)


def _count(refs):
    refs = list(refs)
    if len(refs) == 1:
        return _singular(refs[0][0])
    return f"{len(refs)} items"


def filled_in(definition, lists):
    """The items of ``lists`` {list name: [items]} as the loader fills them in, in a level of
    ``definition``'s material with its balls and bodies (for springs and joints to hold; new
    balls in ``lists`` come after its own): {name: [items]}, a non-convex polygon as its
    pieces. EditRefused with the loader's reason."""
    d = definition
    level = {"material": d.get("material", {}), "segments": [_ANCHOR_SEGMENT]}
    if "springs" in lists or "joints" in lists:
        level["balls"] = d.get("balls", [])
        if d.get("bodies"):
            level["bodies"] = d["bodies"]
    for name, items in lists.items():
        level[name] = (level.get("balls", []) + items) if name == "balls" else list(items)
    try:
        out = loads(json.dumps(level, allow_nan=False))
    except (LevelError, ValueError, TypeError) as e:
        raise EditRefused(_reason(e)) from None
    if "balls" in lists and "balls" in level and ("springs" in lists or "joints" in lists):
        out["balls"] = out["balls"][len(d.get("balls", [])):]
    return {name: out[name] for name in lists}


def _reason(e):
    """The part of a loader message a player needs: the JSON path is of a tiny level, so drop
    the file name and the path's index."""
    if isinstance(e, LevelError):
        return e.detail
    return str(e).splitlines()[0] if str(e) else type(e).__name__
