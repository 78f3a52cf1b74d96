"""The in-game level editor: a document of undoable edits (document), the tools and the
editing state as pure logic over world coordinates (editor), and the mode that draws it
and turns pygame events into those calls (mode)."""
