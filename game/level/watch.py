"""Live reload: LevelWatcher notices a level file's changes and parses them off the frame."""
import os
import threading
import time

from game.level.errors import LevelError, stem
from game.level.read import digest, last_read, load_bytes, read_file, stat_key

WATCH_RECENT = 2.0             # s: a file changed this recently is read and hashed on every poll
POLL_WAIT = 0.008              # s: poll() waits this long at most for the check it starts


class LevelWatcher:
    """Live reload without stalls: call ``poll()`` now and then (every frame is fine).

    ``poll()`` returns a new level (dict) when the file's content changed and loads, the
    LevelError when it changed and does not, and None when nothing changed or the check
    is still running. The caller waits at most POLL_WAIT: ``poll()`` costs one
    ``os.stat``; when the size or modification time moved (or moved within the last
    couple of seconds, where a file system's coarse clock could hide a change) it starts a
    worker thread that reads, hashes and parses the file, and a later poll delivers what
    it found. The worker parses with the pure-Python scanner, so the game's thread keeps
    running even while a 16 MiB file is parsed.

    ``seen``: the (stat, digest) of the content the caller already loaded (see
    ``open_level``); without it, what ``load`` last read of this unchanged file, or else
    the content on disk when the watcher is made (read and hashed in the constructor).
    """

    def __init__(self, path, seen=None):
        self.path = os.fsdecode(path)
        self._lock = threading.Lock()
        self._worker = None
        self._result = None
        if seen is not None:
            self._stat, self._digest = seen
        elif (remembered := last_read(self.path)) is not None:
            self._stat, self._digest = remembered  # load() just read it: no second read
        else:                                   # read and hash now (no parse): the caller's content
            self._stat = _stat_now(self.path)
            self._digest = "gone" if self._stat is None else _seen(self.path)

    def poll(self):
        try:
            result = self._take()
            if result is not None or self._busy():
                return result
            st = _stat_now(self.path)
            recent = st is not None and time.time() - st[0] / 1e9 < WATCH_RECENT
            if st == self._stat and not recent:
                return None
            self._stat = st
            self._start(st)
            self._worker.join(POLL_WAIT)
            return self._take()
        except Exception as e:  # never let the game loop die on a watcher
            return LevelError(self.path, f"internal error while watching: {type(e).__name__}: {e}")

    def wait(self, timeout=None):
        """Block until the running check (if any) is done; for tools and tests."""
        worker = self._worker
        if worker is not None:
            worker.join(timeout)

    def _busy(self):
        return self._worker is not None and self._worker.is_alive()

    def _take(self):
        with self._lock:
            result, self._result = self._result, None
        return result

    def _start(self, st):
        self._worker = threading.Thread(target=self._check, args=(st,), name="ballpit-watch", daemon=True)
        self._worker.start()

    def _check(self, st):
        """On the worker: compare the file with what was seen; keep what a poll should say."""
        try:
            result = None
            if st is None:
                if self._digest not in (None, "gone"):
                    result = LevelError(self.path, "cannot read: the file is gone")
                self._digest = "gone"
            else:
                data, seen = _read(self.path)
                if seen != self._digest:
                    self._digest = seen
                    result = data if isinstance(data, LevelError) else \
                        load_bytes(data, self.path, stem(self.path), yielding=True)
        except LevelError as e:
            result = e
        except BaseException as e:  # noqa: BLE001 - the worker must hand every failure over
            result = LevelError(self.path, f"internal error while watching: {type(e).__name__}: {e}")
        with self._lock:
            self._result = result


def _read(path):
    """(bytes or LevelError, what tells this content apart)."""
    try:
        data = read_file(path)
    except LevelError as e:
        return e, ("error", str(e))
    return data, digest(data)


def _seen(path):
    return _read(path)[1]


def _stat_now(path):
    return stat_key(path)


def open_level(path):
    """(level or LevelError, LevelWatcher): load a level and watch it, reading the file once.

    The watcher's baseline is the very bytes that were loaded, so a change made between
    loading and watching is still seen. A broken file gives its LevelError (not raised)
    and is watched all the same: the next good save loads.
    """
    from game.level.read import file_name
    try:
        name = file_name(path)
    except LevelError as e:
        return e, None
    st = _stat_now(name)
    data, seen = _read(name)
    seen = (st, seen if st is not None else "gone")
    if isinstance(data, LevelError):
        return data, LevelWatcher(name, seen=seen)
    try:
        doc = load_bytes(data, name, stem(name))
    except LevelError as e:
        return e, LevelWatcher(name, seen=seen)
    return doc, LevelWatcher(name, seen=seen)
