"""The progress file read bounded (issue 37): a file that is no progress file (a named pipe,
a link to a device, a huge file, deep nesting, a number beyond float) costs one line, is kept
aside under another name (never deleted), and the game starts with no progress, at once."""
import json
import os
import subprocess
import sys
import time
import tracemalloc

import pytest

from game.app.progress import MAX_PROGRESS_BYTES, PROGRESS_FILE, SET_ASIDE, Progress

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
QUICK = 2.0             # s: every refusal below took no more than milliseconds


def progress_path(tmp_path):
    return str(tmp_path / PROGRESS_FILE)


def read_timed(path):
    """(Progress, seconds, peak MB of Python allocations) of reading ``path``."""
    tracemalloc.start()
    start = time.perf_counter()
    try:
        progress = Progress(path)
        seconds = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()
    return progress, seconds, peak


def assert_refused_and_kept(progress, path, reason, content=None):
    """One line naming the file and ``reason``; no progress; the file renamed, its content whole."""
    assert progress.levels == {}
    assert "\n" not in progress.error
    assert progress.error.startswith(f"progress not read from {path}: {reason}"), progress.error
    assert progress.error.endswith(f"; kept as {PROGRESS_FILE}{SET_ASIDE}, starting with no progress")
    assert not os.path.lexists(path) and os.path.lexists(path + SET_ASIDE)
    if content is not None:
        with open(path + SET_ASIDE, "rb") as f:
            assert f.read() == content


def test_a_best_time_of_400_digits_is_refused_in_one_line(tmp_path):
    """Was "internal error: OverflowError", exit 1: the game did not start."""
    path = progress_path(tmp_path)
    content = b'{"format": 1, "levels": {"a.json": {"completed": true, "best_time": ' + b"9" * 400 + b"}}}"
    with open(path, "wb") as f:
        f.write(content)
    progress, seconds, _ = read_timed(path)
    assert_refused_and_kept(progress, path, "expected a number of at most 20 digits, got one of 400", content)
    assert seconds < QUICK


@pytest.mark.parametrize("text", ['{"levels": {"a.json": {"best_time": 1e999}}}', '{"levels": NaN}',
                                  '{"levels": {"a.json": {"runs": -Infinity}}}'])
def test_a_number_beyond_float_is_refused(tmp_path, text):
    path = progress_path(tmp_path)
    with open(path, "w") as f:
        f.write(text)
    progress = Progress(path)
    assert_refused_and_kept(progress, path, "expected a finite number, got ", text.encode())


def test_nesting_100000_deep_is_refused_in_one_line(tmp_path):
    """Was RecursionError, exit 1."""
    path = progress_path(tmp_path)
    content = b'{"levels": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    with open(path, "wb") as f:
        f.write(content)
    progress, seconds, _ = read_timed(path)
    assert_refused_and_kept(progress, path, "expected JSON nested at most 8 deep, got deeper", content)
    assert seconds < QUICK


def test_brackets_inside_strings_are_no_nesting(tmp_path):
    path = progress_path(tmp_path)
    key = "my levels/[[[[[[[[[[{{{{{{{{{{ \\\" ]]]].json"
    with open(path, "w") as f:
        f.write(json.dumps({"format": 1, "levels": {key: {"completed": True, "best_time": 2.5, "runs": 1}}}))
    progress = Progress(path)
    assert progress.error == "" and progress.levels[key]["best_time"] == 2.5


def _read_in_a_child(path, timeout=60):
    """Read the progress file in a child process limited to 1 GB of address space: a hang or
    a runaway read fails the test instead of the test run. Returns (error, seconds)."""
    code = ("import json, resource, sys, time\n"
            "resource.setrlimit(resource.RLIMIT_AS, (2 ** 30, 2 ** 30))\n"
            "from game.app.progress import Progress\n"
            "start = time.perf_counter()\n"
            "p = Progress(sys.argv[1])\n"
            "print(json.dumps([p.error, time.perf_counter() - start, len(p.levels)]))\n")
    done = subprocess.run([sys.executable, "-c", code, path], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "NUMBA_DISABLE_JIT": "1"})
    assert done.returncode == 0, done.stderr[-2000:]
    error, seconds, levels = json.loads(done.stdout.splitlines()[-1])
    assert levels == 0
    return error, seconds


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_in_its_place_is_refused_at_once(tmp_path):
    """Was a hang at start-up, for ever (open() waits for a writer)."""
    path = progress_path(tmp_path)
    os.mkfifo(path)
    pytest.importorskip("resource")
    error, seconds = _read_in_a_child(path)
    assert error.startswith(f"progress not read from {path}: expected a regular file, got a named pipe (FIFO); "
                            f"kept as {PROGRESS_FILE}{SET_ASIDE}, starting with no progress")
    assert seconds < QUICK
    assert not os.path.lexists(path) and os.path.exists(path + SET_ASIDE)


@pytest.mark.skipif(not os.path.exists("/dev/zero") or not hasattr(os, "symlink"), reason="no /dev/zero")
def test_a_link_to_dev_zero_is_refused_without_reading_it(tmp_path):
    """Was over 1 GB in 1.8 s (json read /dev/zero until memory ran out)."""
    pytest.importorskip("resource")
    path = progress_path(tmp_path)
    os.symlink("/dev/zero", path)
    error, seconds = _read_in_a_child(path)
    assert error.startswith(f"progress not read from {path}: expected a regular file, got a device; "
                            f"kept as {PROGRESS_FILE}{SET_ASIDE}")
    assert seconds < QUICK
    assert os.readlink(path + SET_ASIDE) == "/dev/zero"         # the link itself kept aside


def test_a_valid_file_over_the_cap_is_refused_before_it_is_read(tmp_path):
    """A valid 145 MB file took over 1.5 GB; here one just over the cap (sparse beyond its
    text: its size is what is refused, before a byte is read)."""
    path = progress_path(tmp_path)
    with open(path, "wb") as f:
        f.write(b'{"levels": {}}' + b" " * 100)
        f.truncate(145 * 1024 * 1024)
    progress, seconds, peak = read_timed(path)
    assert progress.levels == {} and "expected at most 1 MiB, got 145 MiB" in progress.error
    assert seconds < QUICK and peak < 10
    assert os.path.getsize(path + SET_ASIDE) == 145 * 1024 * 1024


def test_a_file_of_the_cap_is_read(tmp_path):
    path = progress_path(tmp_path)
    levels = {f"{k:05d}.json": {"completed": True, "best_time": 1.25, "fewest_balls": 2, "fewest_segments": 0,
                                "runs": 3} for k in range(5000)}
    text = json.dumps({"format": 1, "levels": levels}, indent=1)
    assert len(text) < MAX_PROGRESS_BYTES
    with open(path, "w") as f:
        f.write(text)
    progress, seconds, _ = read_timed(path)
    assert progress.error == "" and len(progress.levels) == 5000 and seconds < QUICK


def test_a_folder_in_its_place_is_set_aside_and_progress_saves_again(tmp_path):
    path = progress_path(tmp_path)
    os.mkdir(path)
    progress = Progress(path)
    assert "expected a regular file, got a folder; kept as" in progress.error
    assert progress.record(str(tmp_path / "01_a.json"), 2.0, 1, 0)
    assert os.path.isdir(path + SET_ASIDE)
    with open(path) as f:
        assert json.load(f)["levels"]["01_a.json"]["best_time"] == 2.0


def test_a_second_refused_file_does_not_replace_the_first_set_aside(tmp_path):
    path = progress_path(tmp_path)
    for k, content in enumerate((b"{broken", b"[1, 2]", b"\xff")):
        with open(path, "wb") as f:
            f.write(content)
        progress = Progress(path)
        kept = path + SET_ASIDE + ("" if k == 0 else f"-{k + 1}")
        assert progress.kept_aside == kept and os.path.basename(kept) in progress.error
        with open(kept, "rb") as f:
            assert f.read() == content


def test_a_file_that_cannot_be_set_aside_is_never_saved_over(tmp_path, monkeypatch):
    from game.app import progress as progress_module
    path = progress_path(tmp_path)
    with open(path, "wb") as f:
        f.write(b"{broken")

    def no_rename(*args):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(progress_module.os, "rename", no_rename)
    progress = Progress(path)
    assert "could not be set aside (Permission denied)" in progress.error and "\n" not in progress.error
    assert not progress.record(str(tmp_path / "01_a.json"), 2.0, 1, 0)
    assert progress.error.startswith("progress not saved")
    with open(path, "rb") as f:
        assert f.read() == b"{broken"
