"""The in-game level editor: a document of undoable edits (document), the tools and the
editing state as pure logic over world coordinates (tools), the property panel (panel),
the level file (files) and the geometry of making items (shapes); the mode that draws it
and turns pygame events into those calls is game.modes.edit."""
