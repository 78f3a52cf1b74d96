"""Work the editor must not lose (issue 37) and Save As keeping the name typed (issue 38):
unsaved edits go to an autosave in the player's data folder and come back when the editor
opens that level again; saving or discarding them removes it; Save As takes names with
spaces and names a new level after them."""
import os

import pygame

from game.editor import autosave
from game.editor.document import Document
from game.editor.files import template_definition
from game.editor.tools import Editor
from game.app.progress import data_dir, my_levels_dir
from game.level import load
from game.modes.edit import AUTOSAVE_EVERY, EditMode
from tests.editor.test_editor import FRAME, editor, game, mouse_click, post, press_key, typed  # noqa: F401


def autosaves():
    folder = os.path.join(data_dir(), autosave.FOLDER)
    return sorted(os.listdir(folder)) if os.path.isdir(folder) else []


def wait_autosave(g):
    for _ in range(int(AUTOSAVE_EVERY / FRAME) + 5):
        g.update(FRAME)


def add_ball(g, at=(3, 5)):
    press_key(g, pygame.K_5)
    mouse_click(g, at)


def test_unsaved_edits_are_autosaved_and_come_back_in_a_new_editor(game):
    press_key(game, pygame.K_TAB)
    add_ball(game)
    wait_autosave(game)
    assert len(autosaves()) == 1
    kept = load(os.path.join(data_dir(), autosave.FOLDER, autosaves()[0]))
    assert kept[autosave.OF_KEY] == os.path.realpath(game.session.path)
    assert kept["balls"][-1]["pos"] == [3, 5]
    # The game dies here (no question, no save); the next game's editor opens the level.
    from game.app.loop import App
    from game.modes.edit import install_editor
    g2 = App(game.session.path, size=game.size, level_dir=game.level_dir)
    install_editor(g2)
    press_key(g2, pygame.K_TAB)
    mode = g2.top
    assert isinstance(mode, EditMode) and mode.doc.dirty
    assert mode.doc.definition["balls"][-1]["pos"] == [3, 5] and "autosave" in mode.editor.message
    press_key(g2, pygame.K_z, mod=pygame.KMOD_CTRL)              # the level as its file has it
    assert not mode.doc.dirty and len(mode.doc.definition["balls"]) == len(load(game.session.path)["balls"])
    wait_autosave(g2)
    assert autosaves() == []                                    # declined: not offered again


def test_saving_or_discarding_removes_the_autosave(game):
    press_key(game, pygame.K_TAB)
    add_ball(game)
    wait_autosave(game)
    assert len(autosaves()) == 1
    press_key(game, pygame.K_s, mod=pygame.KMOD_CTRL)
    assert autosaves() == [] and load(game.session.path)["balls"][-1]["pos"] == [3, 5]
    add_ball(game, (6, 5))
    wait_autosave(game)
    assert len(autosaves()) == 1
    post(game, pygame.QUIT)
    press_key(game, pygame.K_d)                                 # quit and discard them
    assert not game.running and autosaves() == []


def test_save_as_keeps_the_name_typed_with_its_spaces(game):
    press_key(game, pygame.K_TAB)
    press_key(game, pygame.K_n)                                 # a new level: "New level", no file
    press_key(game, pygame.K_s, mod=pygame.KMOD_CTRL | pygame.KMOD_SHIFT)
    typed(game, "my first level")
    press_key(game, pygame.K_RETURN)
    saved = os.path.join(my_levels_dir(), "my first level.json")
    assert load(saved)["name"] == "my first level"
    assert game.top.doc.definition["name"] == "my first level" and not game.top.doc.dirty
    assert game.world.name == "my first level"


def test_save_as_keeps_a_name_the_author_gave(tmp_path):
    ed = editor()                                               # "Commented"
    assert ed.files.save_as("  copy  of it ", str(tmp_path))
    assert load(str(tmp_path / "copy of it.json"))["name"] == "Commented"
    ed = Editor(Document(template_definition(), None))
    assert not ed.files.save_as(" /x", str(tmp_path)) and ed.doc.definition["name"] == "New level"
    assert ed.files.save_as("x y.json", str(tmp_path)) and load(str(tmp_path / "x y.json"))["name"] == "x y"


def test_a_new_level_without_a_file_is_autosaved_under_its_name(tmp_path):
    saver = autosave.Autosaver(str(tmp_path))
    ed = Editor(Document(template_definition(), None))
    ed.doc.apply("name", {"name": "Sketch"})
    assert saver.keep(ed.doc) == "" and os.path.basename(saver.written).startswith("Sketch-")
    assert load(saver.written)[autosave.OF_KEY] == ""
    ed.doc.apply("name", {"name": "Sketch 2"})
    assert saver.keep(ed.doc) == "" and len(os.listdir(tmp_path / autosave.FOLDER)) == 1   # the old one goes
