"""The level session: the level file being played, its definition, the world built from it,
and the watcher that reloads it live. No pygame here.

The definition (``doc``, a normalised level dict) is what the player and the editor
change; the world is always rebuilt from a definition, never patched. Whoever shows the
world (the App) listens with ``on_new_world(refit)``: refit is True when a different level
arrived (fit the camera to it), False for a reset or a reload (keep the view).
"""
import os

from game.level import LevelError, LevelWatcher, load, loads
from game import replay
from game.physics.world import World

# The world shown while the file given on the command line does not load yet: a floor,
# so the author can fix the file and the live reload brings the level in.
PLACEHOLDER = ('{"name": "waiting", "bounds": [0, 0, 32, 18],'
               ' "segments": [{"a": [0, 0], "b": [32, 0]}]}')


def goal_reached(progress):
    """Whether (balls inside goal zones, balls wanted) from World.goal_progress() completes
    the level (None: the level has no goal)."""
    return progress is not None and progress[1] > 0 and progress[0] >= progress[1]


class LevelSession:
    """One level file in play. ``path`` is the file as the player named it (messages show
    it as typed); ``doc`` its definition; ``world`` the running World; ``error`` the
    loader's one-line message while the file on disk is broken ("" when it is good)."""

    def __init__(self, path, doc=None, on_new_world=None, compiled=None):
        self.on_new_world = on_new_world or (lambda refit: None)
        self.compiled = compiled         # the compiled kernels its worlds run (None: numpy, meanwhile)
        self.path = os.fsdecode(path)
        self.error = ""
        self.waiting = False             # no good version of the file has loaded yet
        if doc is None:
            try:
                doc = load(self.path)
            except LevelError as error:     # play on an empty floor until the file is fixed
                self.error = str(error)
                self.waiting = True
                doc = dict(loads(PLACEHOLDER), name=os.path.basename(self.path),
                           description="The file does not load yet: the line at the bottom says why.")
        self.doc = doc
        self.world = self.build(doc)
        self.watcher = LevelWatcher(self.path)

    def build(self, doc):
        """A World of the definition ``doc`` on the session's execution: the compiled kernels
        once they have arrived (use_compiled), numpy until then. What the player does to it
        is written in its journal from the start (game.replay: F5 keeps the run)."""
        if self.compiled is None:
            world = World.from_level(doc, execution="numpy")
        else:
            world = World.from_level(doc, execution="compiled", compiled=self.compiled)
        replay.start(world)
        return world

    def use_compiled(self, compiled):
        """The compiled kernels have loaded (or the one-call tick with them): the running
        world and every world built from now on run them (the same bits as numpy)."""
        self.compiled = compiled
        self.world.use_compiled(compiled)

    @property
    def name(self):
        """The level's name, else its file's name."""
        return self.world.name or os.path.basename(self.path)

    def set_doc(self, doc, keep_integrator=True, refit=False):
        """Rebuild the world from a new definition (the camera stays unless refit)."""
        integrator = self.world.integrator
        self.doc = doc
        self.world = self.build(doc)
        if keep_integrator:
            self.world.integrator = integrator
        self.on_new_world(refit)

    def reset(self):
        """Back to the definition as loaded; the integrator the player chose stays."""
        self.set_doc(self.doc, keep_integrator=True)

    def reload(self):
        """Check the file: "reloaded" after a good change, "error" when it is broken (see
        ``error``), None when nothing changed. The last good level keeps running."""
        result = self.watcher.poll()
        if result is None:
            return None
        if isinstance(result, LevelError):
            self.error = str(result)
            return "error"
        self.error = ""
        self.waiting = False
        if result == self.doc:
            return None                 # saved without a change, or fixed back as it was
        keep = result.get("integrator") == self.doc.get("integrator")
        self.set_doc(result, keep_integrator=keep)
        return "reloaded"

    def open(self, path):
        """Switch to another level file; False (and ``error`` set) if it does not load, in
        which case it is still watched and the last good level keeps running. A path inside
        the working folder is kept relative to it, as a player would type it."""
        path = os.fsdecode(path)
        try:
            here = os.path.relpath(path) if os.path.isabs(path) else path
        except ValueError:              # another drive (Windows)
            here = path
        self.path = path if here.startswith("..") else here
        self.watcher = LevelWatcher(self.path)
        try:
            doc = load(self.path)
        except LevelError as error:
            self.error = str(error)
            return False
        self.error = ""
        self.waiting = False
        self.set_doc(doc, keep_integrator=False, refit=True)
        return True
