"""Progress that lasts: the levels completed, the best time and the fewest balls and segments
used, kept in a small JSON file in the player's data folder; and that folder's "my levels",
where snapshots and the player's own levels go. No pygame here.

The folder is the platform's (platformdirs: ~/.local/share/Ballpit on Linux, %LOCALAPPDATA%
on Windows, ~/Library/Application Support on macOS); ``BALLPIT_DATA_DIR`` in the environment
puts it elsewhere (the tests use a temporary folder). A file that cannot be read or written
costs one line (``Progress.error``) and the game goes on without it.
"""
import json
import math
import os
import tempfile

ENV = "BALLPIT_DATA_DIR"
APP_NAME = "Ballpit"
PROGRESS_FILE = "progress.json"
MY_LEVELS = "my levels"
FORMAT = 1


def data_dir():
    """The folder the game keeps the player's things in (not created here)."""
    folder = os.environ.get(ENV)
    if folder:
        return folder
    import platformdirs
    return platformdirs.user_data_dir(APP_NAME, appauthor=False)


def my_levels_dir():
    """Where snapshots (Ctrl+S) and the player's own levels go: never among the shipped ones."""
    return os.path.join(data_dir(), MY_LEVELS)


def level_key(path):
    """How the progress file names a level: "my levels/<file>" for one of the player's, else
    its file name (the shipped levels are known by name wherever the game is installed)."""
    real = os.path.realpath(path)
    mine = os.path.realpath(my_levels_dir())
    name = os.path.basename(real)
    return f"{MY_LEVELS}/{name}" if os.path.dirname(real) == mine else name


def stars(record, par):
    """0 to 3: one for completing the level, one for a best time within ``par["time"]``, one
    for using no more balls and segments than ``par`` says (a mark the level does not set
    counts as met)."""
    if not record or not record.get("completed"):
        return 0
    earned = 1
    best = record.get("best_time")
    if "time" not in par or (best is not None and best <= par["time"] + 1e-9):
        earned += 1
    balls, segments = record.get("fewest_balls"), record.get("fewest_segments")
    if ("balls" not in par or (balls is not None and balls <= par["balls"])) and \
            ("segments" not in par or (segments is not None and segments <= par["segments"])):
        earned += 1
    return earned


class Progress:
    """The progress file: ``levels`` {key: {"completed", "best_time" s, "fewest_balls",
    "fewest_segments", "runs"}}. ``error``: the last problem reading or writing it, one line
    ("" when none)."""

    def __init__(self, path=None):
        self.path = path or os.path.join(data_dir(), PROGRESS_FILE)
        self.levels = {}
        self.error = ""
        self.load()

    def load(self):
        """Read the file; a missing one is no progress yet, a broken one says so (and is kept
        until a completion overwrites it)."""
        try:
            with open(self.path, encoding="utf-8") as f:
                data = json.load(f)
        except FileNotFoundError:
            return
        except (OSError, ValueError, UnicodeDecodeError) as e:
            self.error = f"progress not read from {self.path}: {_reason(e)}"
            return
        levels = data.get("levels") if isinstance(data, dict) else None
        if not isinstance(levels, dict):
            self.error = f"progress not read from {self.path}: expected an object with \"levels\""
            return
        self.levels = {k: _clean(v) for k, v in levels.items() if isinstance(k, str) and isinstance(v, dict)}

    def get(self, path):
        return self.levels.get(level_key(path))

    def record(self, path, seconds, balls, segments):
        """A completion of the level at ``path`` in ``seconds`` with ``balls`` and ``segments``
        of the player's: kept where it beats the record; the file is written. Returns whether
        it was (else ``error`` says why in one line)."""
        key = level_key(path)
        old = self.levels.get(key, {})
        new = {"completed": True,
               "best_time": _least(old.get("best_time"), float(seconds)),
               "fewest_balls": _least(old.get("fewest_balls"), int(balls)),
               "fewest_segments": _least(old.get("fewest_segments"), int(segments)),
               "runs": int(old.get("runs", 0)) + 1}
        self.levels[key] = new
        return self.save()

    def save(self):
        """Write the file atomically; False (and ``error`` set) when it cannot be written."""
        text = json.dumps({"format": FORMAT, "levels": self.levels}, indent=1, sort_keys=True) + "\n"
        folder = os.path.dirname(self.path) or "."
        try:
            os.makedirs(folder, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".progress.", suffix=".tmp", dir=folder)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    f.write(text)
                os.replace(tmp, self.path)
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
        except OSError as e:
            self.error = f"progress not saved to {self.path}: {_reason(e)}"
            return False
        self.error = ""
        return True


def _least(old, new):
    return new if old is None else min(old, new)


def _clean(record):
    """A record as read, with only the fields this program knows, of the right types."""
    out = {"completed": bool(record.get("completed", False))}
    for key, kind in (("best_time", float), ("fewest_balls", int), ("fewest_segments", int), ("runs", int)):
        value = record.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0:
            out[key] = kind(value)
    return out


def _reason(e):
    if isinstance(e, OSError):
        return e.strerror or type(e).__name__
    return str(e).splitlines()[0] if str(e) else type(e).__name__
