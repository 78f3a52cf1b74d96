"""Progress that lasts: the levels completed, the best time and the fewest balls and segments
used, kept in a small JSON file in the player's data folder; and that folder's "my levels",
where snapshots and the player's own levels go. No pygame here.

The folder is the platform's (platformdirs: ~/.local/share/Ballpit on Linux, %LOCALAPPDATA%
on Windows, ~/Library/Application Support on macOS); ``BALLPIT_DATA_DIR`` in the environment
puts it elsewhere (the tests use a temporary folder). A file that cannot be read or written
costs one line (``Progress.error``) and the game goes on without it.

The file is read as levels are (game.level.read): a regular file only (a named pipe, a
device such as /dev/zero, a folder are refused before a byte is read, and the open cannot
block), at most MAX_PROGRESS_BYTES, JSON nested no deeper than the format's few levels and
with every number a finite float. A file refused for any of these is kept aside (renamed
``progress.json.unread``, ``.unread-2``..., never deleted) and the game starts with no
progress, saying so in one line.
"""
import json
import math
import os
import re
import stat
import tempfile

from game.level.errors import size_text
from game.level.read import file_kind

ENV = "BALLPIT_DATA_DIR"
APP_NAME = "Ballpit"
PROGRESS_FILE = "progress.json"
MY_LEVELS = "my levels"
FORMAT = 1
# A record takes about 140 bytes as written (indent 1): 1 MiB holds some 7,000 levels' records;
# the parse of 1 MiB costs about 10 ms and 20 MB (a 145 MB file took 8.7 s and 740 MB).
MAX_PROGRESS_BYTES = 1024 * 1024
MAX_DEPTH = 8                 # nesting of [ and {: the format needs 3
MAX_DIGITS = 20               # digits of an integer: a count or a time has far fewer
SET_ASIDE = ".unread"         # the suffix a refused file is renamed with
MAX_SET_ASIDE = 100           # files already set aside: beyond, the file is left where it is


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


_GOALS = {}                 # real path -> (mtime, whether the level has a goal): next_unsolved's memory


def has_goal_zone(path):
    """Whether the level file at ``path`` has a goal zone (False for one that does not load)."""
    from game.level import LevelError, load
    real = os.path.realpath(path)
    try:
        stamp = os.stat(real).st_mtime_ns
    except OSError:
        return False
    if _GOALS.get(real, (None,))[0] != stamp:
        try:
            goal = any(zone["kind"] == "goal" for zone in load(path)["zones"])
        except LevelError:
            goal = False
        _GOALS[real] = (stamp, goal)
    return _GOALS[real][1]


def next_unsolved(progress, files, here):
    """The first level after ``here`` in ``files`` (round to the start, ``here`` last) that has
    a goal and is not completed in ``progress``; None when every one is."""
    real = [os.path.realpath(p) for p in files]
    start = real.index(os.path.realpath(here)) + 1 if os.path.realpath(here) in real else 0
    for k in range(len(files)):
        path = files[(start + k) % len(files)]
        record = progress.get(path) if progress is not None else None
        if not (record or {}).get("completed") and has_goal_zone(path):
            return path
    return None


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
    "fewest_segments", "runs", "best_score" (pinball), "solution_seen" (a puzzle's, asked for)}}. ``error``: the last problem reading or writing it, one line
    ("" when none)."""

    def __init__(self, path=None):
        self.path = path or os.path.join(data_dir(), PROGRESS_FILE)
        self.levels = {}
        self.error = ""
        self.load()

    def load(self):
        """Read the file; a missing one is no progress yet. One that cannot be read as progress
        is set aside (renamed, see the module docstring), and ``error`` says so in one line;
        if it cannot even be renamed, nothing will be saved over it (``save`` says why)."""
        self.kept_aside = None              # where a refused file went
        self._blocked = ""                  # why save() must not replace the file
        try:
            data = _read_bounded(self.path)
        except FileNotFoundError:
            return
        except _Refused as e:
            self._refuse(str(e))
            return
        except OSError as e:
            self.error = f"progress not read from {self.path}: {_reason(e)}"
            if os.path.lexists(self.path):   # there but unreadable now (permissions): keep it as it is
                self._blocked = self.error
            return
        levels = data.get("levels") if isinstance(data, dict) else None
        if not isinstance(levels, dict):
            self._refuse("expected an object with \"levels\"")
            return
        self.levels = {k: _clean(v) for k, v in levels.items() if isinstance(k, str) and isinstance(v, dict)}

    def _refuse(self, reason):
        """Set the file aside and start with no progress; one line in ``error``."""
        self.levels = {}
        try:
            self.kept_aside = _set_aside(self.path)
        except OSError as e:
            self.error = (f"progress not read from {self.path}: {reason}; it could not be set aside "
                          f"({_reason(e)}), so progress will not be saved over it")
            self._blocked = self.error
            return
        self.error = (f"progress not read from {self.path}: {reason}; kept as "
                      f"{os.path.basename(self.kept_aside)}, starting with no progress")

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

    def record_score(self, path, points):
        """A pinball game at ``path`` ended with ``points``: kept where it beats the best (the
        file is written). Returns whether it was saved (else ``error`` says why)."""
        key = level_key(path)
        old = self.levels.get(key, {"completed": False})
        self.levels[key] = {**old, "best_score": max(int(old.get("best_score", 0)), int(points))}
        return self.save()

    def mark_solution_seen(self, path):
        """The player asked for the level's whole solution (game.modes.play_hints): marked in its
        record and written. Returns whether it was saved (else ``error`` says why)."""
        key = level_key(path)
        self.levels[key] = {**self.levels.get(key, {"completed": False}), "solution_seen": True}
        return self.save()

    def save(self):
        """Write the file atomically; False (and ``error`` set) when it cannot be written, or
        when it holds progress that could not be read nor set aside (never overwritten)."""
        if getattr(self, "_blocked", ""):
            self.error = f"progress not saved to {self.path}: the file there could not be read or set aside"
            return False
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


class _Refused(ValueError):
    """A progress file that is not one: its reason in words."""


def _read_bounded(path):
    """The parsed progress file at ``path``: a regular file of at most MAX_PROGRESS_BYTES,
    opened without blocking (as game.level.read reads levels), JSON within MAX_DEPTH and with
    finite numbers. FileNotFoundError where there is none; _Refused, OSError otherwise."""
    st = os.stat(path)
    _check_regular(st)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
                 | getattr(os, "O_BINARY", 0))
    try:
        _check_regular(os.fstat(fd))            # the file opened: it may have been swapped
        chunks, size = [], 0
        while size <= MAX_PROGRESS_BYTES:       # it may have grown since the stat
            chunk = os.read(fd, MAX_PROGRESS_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > MAX_PROGRESS_BYTES:
        raise _Refused(f"expected at most {size_text(MAX_PROGRESS_BYTES)}, got more (it grew while it was read)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise _Refused(f"expected UTF-8 text, got the byte 0x{data[e.start]:02x}") from None
    if _depth(text) > MAX_DEPTH:
        raise _Refused(f"expected JSON nested at most {MAX_DEPTH} deep, got deeper")
    try:
        return json.loads(text, parse_int=_integer, parse_float=_finite, parse_constant=_constant)
    except _Refused:
        raise
    except (ValueError, RecursionError) as e:
        raise _Refused(_reason(e)) from None


def _check_regular(st):
    if not stat.S_ISREG(st.st_mode):
        raise _Refused(f"expected a regular file, got {file_kind(st.st_mode)}")
    if st.st_size > MAX_PROGRESS_BYTES:
        raise _Refused(f"expected at most {size_text(MAX_PROGRESS_BYTES)}, "
                       f"got {size_text(st.st_size, MAX_PROGRESS_BYTES)}")


_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_BRACKETS = re.compile(r"[^\[\]{}]+")


def _depth(text):
    """The deepest nesting of [ and { outside strings, counted up to MAX_DEPTH + 1 (of
    well-formed JSON; for a broken text a bound, and the parse then refuses it anyway)."""
    brackets = _BRACKETS.sub("", _STRINGS.sub("", text))
    depth = deepest = 0
    for ch in brackets:
        if ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_DEPTH:
                    break
        else:
            depth -= 1
    return deepest


def _integer(text):
    digits = len(text.lstrip("-"))
    if digits > MAX_DIGITS:
        raise _Refused(f"expected a number of at most {MAX_DIGITS} digits, got one of {digits}")
    return int(text)


def _finite(text):
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"expected a finite number, got {text[:20]}{'...' if len(text) > 20 else ''}")
    return value


def _constant(text):
    raise _Refused(f"expected a finite number, got {text}")


def _set_aside(path):
    """Rename the file at ``path`` (a link is renamed, not what it points to) to the first free
    name of ``path`` + SET_ASIDE (-2, -3...); the new path. OSError where it cannot be."""
    for k in range(1, MAX_SET_ASIDE + 1):
        target = path + SET_ASIDE + ("" if k == 1 else f"-{k}")
        if os.path.lexists(target):
            continue
        os.rename(path, target)
        return target
    raise OSError(0, f"{MAX_SET_ASIDE} files are already set aside beside it")


def _least(old, new):
    return new if old is None else min(old, new)


def _clean(record):
    """A record as read, with only the fields this program knows, of the right types."""
    out = {"completed": bool(record.get("completed", False))}
    if record.get("solution_seen") is True:
        out["solution_seen"] = True
    for key, kind in (("best_time", float), ("fewest_balls", int), ("fewest_segments", int), ("runs", int),
                      ("best_score", int)):
        value = record.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0:
            out[key] = kind(value)
    return out


def _reason(e):
    if isinstance(e, OSError):
        return e.strerror or type(e).__name__
    return str(e).splitlines()[0] if str(e) else type(e).__name__
