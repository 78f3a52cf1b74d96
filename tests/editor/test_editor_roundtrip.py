"""The editor saves back what the author wrote: untouched items as written, an edit changes
only its item's text, undoing every edit and saving gives back the file byte for byte."""
from game.paths import ROOT as ROOT_DIR  # noqa: E402
import copy
import difflib
import json
import os
import shutil

import numpy as np
import pygame
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scenes import build_world
from game.app.loop import App
from game.editor.document import Document
from game.editor.files import template_definition
from game.editor.tools import NUDGE, Editor
from game.modes.edit import install_editor
from game.level import LevelError, complete, level_files, load, load_document, loads, save_document
from game.physics.world import World
from tests.editor.test_editor import apply_step, edit_step, mouse_drag, press_key

ROOT = ROOT_DIR
SHIPPED = level_files(os.path.join(ROOT, "levels"))
NAMES = [os.path.basename(p) for p in SHIPPED]
SIZE = (1000, 600)
STEPS = 60                      # ticks the two worlds run before their states are compared


def copied(tmp_path, name):
    path = str(tmp_path / name)
    shutil.copy(os.path.join(ROOT, "levels", name), path)
    return path


def read(path):
    with open(path, "rb") as f:
        return f.read()


def text(definition):
    return json.dumps(definition)


def opened(path):
    document, definition = load_document(path)
    return Editor(Document(definition, path, document))


# ---------------------------------------------------------------------------- the level package

@pytest.mark.parametrize("name", NAMES)
def test_load_document_is_the_parsed_file_and_load_of_it(name):
    path = os.path.join(ROOT, "levels", name)
    document, definition = load_document(path)
    with open(path, encoding="utf-8") as f:
        assert document == json.load(f)                    # nothing filled in, nothing left out
    assert text(definition) == text(load(path))


def test_load_document_refuses_what_load_refuses_with_the_same_line(tmp_path):
    path = str(tmp_path / "bad.json")
    with open(path, "w") as f:
        f.write('{"segments": [{"a": [0, 0], "b": [1, "x"]}]}')
    with pytest.raises(LevelError) as by_load:
        load(path)
    with pytest.raises(LevelError) as by_document:
        load_document(path)
    assert str(by_document.value) == str(by_load.value) and "\n" not in str(by_load.value)


def test_save_document_writes_it_as_it_is_and_refuses_a_bad_level(tmp_path):
    path = str(tmp_path / "d.json")
    document = {"format": 1, "_why": "kept", "segments": [{"b": [3, 0], "a": [0, 0], "radius": 0}]}
    save_document(document, path)
    assert json.loads(read(path)) == document and list(json.loads(read(path))) == list(document)
    with pytest.raises(LevelError):
        save_document({"segments": []}, path)              # no wall: refused, the file stays
    assert json.loads(read(path)) == document


# ---------------------------------------------------------------------------- in the editor, headless

@pytest.fixture
def shipped_game(tmp_path, request):
    pygame.font.init()
    path = copied(tmp_path, request.param)
    g = App(path, size=SIZE, level_dir=str(tmp_path), screenshot_dir=str(tmp_path / "shots"))
    g.clock.budget = float("inf")
    install_editor(g)
    return g


def free_spot(definition):
    """A grid point inside the bounds that is nowhere near any item (for the new ball)."""
    x0, y0, x1, y1 = definition["bounds"]
    for y in np.arange(y1 - 2, y0 + 1, -0.5):
        for x in np.arange(x0 + 2, x1 - 1, 0.5):
            ed = Editor(Document(definition))
            if ed.pick((x, y), 0.8) is None:
                return (float(x), float(y))
    raise AssertionError("no free spot")


@pytest.mark.parametrize("shipped_game", NAMES, indirect=True)
def test_two_edits_undone_then_ctrl_s_gives_back_the_shipped_file_byte_for_byte(shipped_game):
    g = shipped_game
    path = g.session.path
    original = read(path)
    press_key(g, pygame.K_TAB)
    mode = g.top
    spot = free_spot(mode.doc.definition)
    press_key(g, pygame.K_2)
    mouse_drag(g, (spot[0] - 1, spot[1]), (spot[0] + 1, spot[1] - 0.5))
    press_key(g, pygame.K_5)
    mouse_drag(g, spot, spot)
    press_key(g, pygame.K_s, mod=pygame.KMOD_CTRL)
    saved = load(path)
    assert saved["segments"][-1]["b"] == [spot[0] + 1, spot[1] - 0.5] and saved["balls"][-1]["pos"] == list(spot)
    assert text(saved) == text(mode.doc.definition)
    press_key(g, pygame.K_z, mod=pygame.KMOD_CTRL)
    press_key(g, pygame.K_z, mod=pygame.KMOD_CTRL)
    press_key(g, pygame.K_s, mod=pygame.KMOD_CTRL)
    assert read(path) == original


def first_item(definition):
    for name in ("segments", "polylines", "polygons", "balls", "spawners", "zones"):
        if definition.get(name):
            return (name, 0)
    raise AssertionError("no item")


def item_lines(text_, path):
    """The 0-based line range [first, last] of the JSON value at ``path`` (keys and indices)."""
    from game.level.jsonpos import locate
    start = locate(text_, path)
    _, end = json.JSONDecoder().raw_decode(text_, start)
    return text_.count("\n", 0, start), text_.count("\n", 0, end)


def nudged(item, name):
    """The item moved NUDGE metres right, computed here from the definition (the oracle)."""
    out = copy.deepcopy(item)
    if name == "segments":
        out["a"][0] += NUDGE
        out["b"][0] += NUDGE
    elif name in ("polylines", "polygons"):
        for p in out["points"]:
            p[0] += NUDGE
    elif name in ("balls", "spawners"):
        out["pos"][0] += NUDGE
    else:
        for p in out["rect"]:
            p[0] += NUDGE
    return out


@pytest.mark.parametrize("name", NAMES)
def test_one_edit_then_save_changes_only_that_items_text_and_the_world_is_the_edited_one(tmp_path, name):
    path = copied(tmp_path, name)
    original = read(path).decode()
    ed = opened(path)
    ref = first_item(ed.doc.definition)
    ed.doc.selection = [ref]
    ed.key("right")                                        # nudge it NUDGE m to the right
    assert ed.files.save(), ed.message
    saved = read(path).decode()
    # the text: every changed line is a line of the item as the author wrote it
    first, last = item_lines(original, ref)
    for op, i1, i2, _, _ in difflib.SequenceMatcher(None, original.splitlines(), saved.splitlines()).get_opcodes():
        if op != "equal":
            assert first <= i1 and i2 - 1 <= last, (op, i1, i2, first, last)
    assert saved != original
    # the values: the saved file loads to the original definition plus the edit
    want = load(os.path.join(ROOT, "levels", name))
    want[ref[0]][ref[1]] = nudged(want[ref[0]][ref[1]], ref[0])
    assert load(path) == want
    worlds = [build_world(load(path)), build_world(want)]
    for w in worlds:
        for _ in range(STEPS):
            w.step(1 / 60)
    assert worlds[0].state_hash() == worlds[1].state_hash()


def test_a_new_ball_is_written_without_its_defaults_and_plays_as_the_loader_fills_it(tmp_path):
    path = copied(tmp_path, "08_goal.json")
    ed = opened(path)
    ed.set_tool("ball")
    ed.press((12, 15), 0.1)
    ed.release((12, 15), 0.1)
    assert ed.files.save()
    assert json.loads(read(path))["balls"] == [{"pos": [12.0, 15.0]}]
    want = load(os.path.join(ROOT, "levels", "08_goal.json"))
    want["balls"] = loads(json.dumps({"material": want["material"], "segments": [{"a": [0, 0], "b": [1, 0]}],
                                      "balls": [{"pos": [12.0, 15.0]}]}))["balls"]
    assert load(path) == want
    assert build_world(load(path)).state_hash() == build_world(want).state_hash()


def test_moving_a_ball_writes_the_rest_of_its_springs_that_the_file_left_to_the_loader(tmp_path):
    """05_springs leaves rest lengths to the loader (the distance at load): after the ball
    moves, the spring keeps its length in the editor, so the file must say it."""
    path = copied(tmp_path, "05_springs.json")
    ed = opened(path)
    rest = [s["rest"] for s in ed.doc.definition["springs"]]
    ed.doc.move([("balls", 0)], (0.5, 0))
    assert ed.files.save()
    assert [s["rest"] for s in load(path)["springs"]] == rest
    assert load(path) == ed.doc.definition
    written = json.loads(read(path))["springs"]
    assert all("rest" in s for s in written if s["a"] == 0)
    assert not any("rest" in s for s in written if s["a"] != 0 and s["b"] != 0)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(NAMES), steps=st.lists(edit_step(), min_size=1, max_size=12),
       friction=st.one_of(st.none(), st.floats(0, 1)))
def test_any_edits_save_to_what_loads_back_and_undoing_them_gives_back_the_authors_document(name, steps, friction):
    """Also after the level's material changes under items that took their friction from it
    (they keep theirs in the definition, so the file must say it)."""
    path = os.path.join(ROOT, "levels", name)
    document, definition = load_document(path)
    written = text(document)
    doc = Document(definition, path, document)
    if friction is not None:
        doc.set_top("material", dict(doc.definition["material"], friction=friction))
    for step in steps:
        apply_step(doc, step)
        out = doc.authored(os.path.splitext(name)[0])
        assert complete(out, default_name=os.path.splitext(name)[0]) == doc.definition
        assert all(k in out for k in ("$schema", "format"))
    while doc.undo():
        pass
    assert text(doc.authored(os.path.splitext(name)[0])) == written


def test_a_new_level_saves_as_the_template_is_written(tmp_path):
    ed = Editor(Document(template_definition()))
    ed.files.new_level()
    assert ed.files.save_as("fresh", str(tmp_path))
    assert json.loads(read(str(tmp_path / "fresh.json")))["polylines"] == [
        {"points": [[0, 18], [0, 0], [32, 0], [32, 18]]}]
    assert "gravity" not in json.loads(read(str(tmp_path / "fresh.json")))
    assert load(str(tmp_path / "fresh.json"))["name"] == "fresh"          # the name typed (issue 38), not "New level"



def test_a_file_taken_from_disk_is_saved_back_as_that_file_wrote_it(tmp_path):
    """Someone else rewrote the file (their own layout and keys): the editor takes it, and an
    edit undone then Ctrl+S gives back their bytes, not the editor's idea of the level."""
    import time
    path = copied(tmp_path, "08_goal.json")
    ed = opened(path)
    document = {}
    for key, value in json.loads(read(path)).items():
        document[key] = "Theirs" if key == "name" else value
        if key == "name":
            document["_by"] = "someone else"        # where the editor would not put it
    save_document(document, path)
    theirs = read(path)
    st_ = os.stat(path)
    os.utime(path, ns=(st_.st_atime_ns, st_.st_mtime_ns + 5_000_000_000))
    for _ in range(50):
        got = ed.files.poll_disk()
        if got is not None:
            break
        time.sleep(0.02)
    assert got == "taken" and ed.doc.definition["name"] == "Theirs"
    ed.set_tool("ball")
    ed.press((12, 15), 0.1)
    ed.release((12, 15), 0.1)
    ed.key("z", ctrl=True)
    assert ed.files.save() and read(path) == theirs


def test_the_players_rules_par_solution_and_hold_survive_an_edit_and_a_sandbox_gains_none(tmp_path):
    rules = {"name": "Rules", "segments": [{"a": [0, 0], "b": [32, 0]}],
             "player": {"spawn": 2, "draw": 1, "grab": False}, "par": {"time": 9, "balls": 1},
             "zones": [{"kind": "goal", "rect": [[1, 0], [3, 2]], "count": 1, "hold": 2}],
             "balls": [{"pos": [5, 5]}],
             "solution": {"segments": [{"a": [1, 3], "b": [4, 2]}], "balls": [{"pos": [2, 6]}]}}
    for doc in (rules, {k: v for k, v in rules.items() if k not in ("player", "par", "solution")}):
        path = str(tmp_path / "r.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        ed = opened(path)
        ed.doc.selection = [("balls", 0)]
        ed.key("right")
        assert ed.files.save(), ed.message
        written = json.loads(read(path))
        for key in ("player", "par", "solution"):
            assert written.get(key) == doc.get(key), key
        assert written["zones"] == doc["zones"]
        assert written["balls"][0]["pos"] == [5 + NUDGE, 5]


def test_an_edited_item_keeps_its_author_s_keys_order_and_numbers_as_written():
    """Authorship: an item an edit changed is written with the author's keys in the author's
    order and each number the edit left as the author wrote it (the branch that did this sat
    unreachable after a ``continue``, so an edited item was written afresh: 8 became 8.0)."""
    author = {"format": 1, "segments": [{"radius": 0.3, "// why": "a ramp", "b": [12, 6], "a": [4, 8]}],
              "balls": [{"radius": 0.25, "pos": [5, 15]}], "joints": [{"b": [5, 17], "kind": "rope", "length": 2, "a": 0}]}
    doc = Document(loads(json.dumps(author), "a.json"), None, json.loads(json.dumps(author)))
    doc.move([("segments", 0), ("balls", 0)], (1.5, 0))
    doc.move([("joints", 0)], (0, 0.5))
    out = doc.authored()
    assert json.dumps(out["segments"][0]) == json.dumps({"radius": 0.3, "// why": "a ramp", "b": [13.5, 6], "a": [5.5, 8]})
    assert json.dumps(out["balls"][0]) == json.dumps({"radius": 0.25, "pos": [6.5, 15]})
    assert json.dumps(out["joints"][0]) == json.dumps({"b": [5, 17.5], "kind": "rope", "length": 2, "a": 0})
    assert loads(json.dumps(out), "b.json") == doc.definition


def test_a_snapshots_memory_goes_with_the_first_edit_and_comes_back_with_its_undo():
    """A snapshot's ``_resume`` (warm start, sleep: game.physics.resume) is of the world it was
    taken from: a sleeping box moved in the editor must not load asleep in mid-air."""
    import json as _json
    from game.editor.document import Document
    from game.level import complete as _complete, loads as _loads
    from game.physics.world import World as _World
    world = _World.from_level(_complete({"segments": [{"a": [0, 0], "b": [10, 0]}],
                                         "bodies": [{"shape": "box", "center": [5, 0.5], "size": [1, 1]}]}))
    for _ in range(120):
        world.step(1 / 60)
    assert world.bodies.asleep.all()
    doc = Document(_loads(_json.dumps(world.to_level())))
    assert "_resume" in doc.definition
    body = dict(doc.definition["bodies"][0], center=[5, 6])
    doc.apply("move the box", {"bodies": [body]})
    assert "_resume" not in doc.definition
    moved = _World.from_level(_complete(doc.definition))
    moved.step(1 / 60)
    assert not moved.bodies.asleep.any() and moved.bodies.vel[0, 1] < 0       # it falls
    doc.undo()
    assert "_resume" in doc.definition
