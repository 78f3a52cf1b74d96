"""The tick thread (game.app.ticker.TickWorker) and the game loop's use of it: every frame's
ticks on one and the same thread, results in order, errors handed back, a clean end."""
import json
import threading

import pygame
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.app import loop as app_module
from game.app.loop import App
from game.app.ticker import TickWorker
from tests.conftest import COMPILED

FRAME = 1 / 60
SIZE = (800, 450)


def _pile(count=60):
    return {"name": "Pile", "description": "Balls falling into a box.", "bounds": [0, 0, 16, 9],
            "polylines": [{"points": [[0, 9], [0, 0], [16, 0], [16, 9]]}],
            "balls": [{"pos": [1.0 + 0.7 * (k % 20), 1.0 + 0.7 * (k // 20)], "radius": 0.3}
                      for k in range(count)]}


@given(st.lists(st.integers(-1000, 1000), max_size=30))
@settings(max_examples=30, deadline=None)
def test_results_come_back_in_the_order_the_jobs_were_started_and_all_on_one_thread(values):
    worker = TickWorker()
    threads = []

    def job(x):
        threads.append(threading.get_ident())
        return x * x
    try:
        got = []
        for x in values:
            worker.start(job, x)
            got.append(worker.result())
        assert got == [x * x for x in values]
        assert len(set(threads)) <= 1 and threading.get_ident() not in threads
        assert worker.jobs_run == len(values)
    finally:
        assert worker.close(timeout=5)


def test_an_error_in_a_job_is_raised_by_result_and_the_thread_serves_the_next_job():
    worker = TickWorker()

    def broken():
        raise FloatingPointError("broken tick")
    try:
        worker.start(lambda: 1)
        assert worker.result() == 1
        thread = worker.thread
        worker.start(broken)
        with pytest.raises(FloatingPointError, match="broken tick"):
            worker.result()
        assert not worker.busy
        worker.start(lambda: 2)
        assert worker.result() == 2
        assert worker.thread is thread and thread.is_alive()
    finally:
        worker.close(timeout=5)


def test_one_job_at_a_time_and_none_after_close():
    worker = TickWorker()
    release = threading.Event()
    worker.start(release.wait, 5)
    with pytest.raises(RuntimeError):
        worker.start(lambda: None)          # the last job's result not collected
    release.set()
    assert worker.result() is True
    with pytest.raises(RuntimeError):
        worker.result()                     # nothing started
    assert worker.close(timeout=5)
    with pytest.raises(RuntimeError):
        worker.start(lambda: None)


def test_close_waits_for_the_running_job_and_joins_the_thread():
    worker = TickWorker()
    assert worker.close() and worker.thread is None     # never started: nothing to end
    worker = TickWorker()
    release, finished = threading.Event(), []
    worker.start(lambda: (release.wait(5), finished.append(True)))
    thread = worker.thread
    closer = threading.Thread(target=worker.close)
    closer.start()
    closer.join(0.05)
    assert closer.is_alive() and thread.is_alive()      # still running its job
    release.set()
    closer.join(5)
    assert not closer.is_alive() and not thread.is_alive() and finished == [True]
    assert worker.close(timeout=1)                      # twice is harmless


def test_an_idle_worker_uses_no_thread_beyond_its_own():
    before = threading.active_count()
    workers = [TickWorker() for _ in range(3)]
    assert threading.active_count() == before           # a thread only at the first job
    for w in workers:
        w.start(int)
        w.result()
    assert threading.active_count() == before + 3
    for w in workers:
        assert w.close(timeout=5)
    assert threading.active_count() == before


# ---- the game loop ------------------------------------------------------------------------


@pytest.fixture
def app(tmp_path, monkeypatch):
    monkeypatch.setattr(app_module, "OVERLAP_MIN_TICK_MS", 0.0)     # every tick worth the worker
    pygame.font.init()
    paths = []
    for name, count in (("a_pile.json", 60), ("b_pile.json", 30)):
        path = tmp_path / name
        path.write_text(json.dumps(_pile(count)))
        paths.append(str(path))
    g = App(paths[0], size=SIZE, level_dir=str(tmp_path), screenshot_dir=str(tmp_path / "shots"),
            compiled=COMPILED)
    g.clock.budget = float("inf")
    g.other_level = paths[1]
    yield g
    g.close()


def _frame(g, dt=FRAME):
    g.start_update(dt)
    apart = g.ticking_apart()
    return apart, g.finish_update()


def _thread_of_ticks(g):
    """Wrap the app's world stepping to note the thread of every tick."""
    seen = []
    step = g._step

    def noted(world):
        seen.append(threading.get_ident())
        return step(world)
    g._step = noted
    return seen


def test_every_frames_ticks_run_on_one_thread_across_level_switches_and_pauses(app):
    assert app.overlaps()                        # else no worker would run here
    seen = _thread_of_ticks(app)
    for _ in range(5):
        assert _frame(app) == (True, 1)
    app.clock.toggle_pause()
    assert _frame(app) == (True, 0)              # paused: the worker runs no tick
    app.clock.step_once()
    assert _frame(app) == (True, 1)              # one step while paused
    app.clock.toggle_pause()
    assert app.session.open(app.other_level)     # another level: a new world, the same thread
    assert app.session.world.count == 30
    for _ in range(3):
        assert _frame(app) == (True, 1)
    assert len(seen) == 9 and len(set(seen)) == 1 and seen[0] != threading.get_ident()
    assert app.ticker.thread.ident == seen[0]


def test_an_error_in_a_tick_reaches_finish_update_and_the_next_frame_ticks_again(app, monkeypatch):
    world = app.session.world
    app.start_update(FRAME)
    app.finish_update()
    thread = app.ticker.thread

    def broken(dt):
        raise FloatingPointError("broken tick")
    monkeypatch.setattr(world, "step", broken)
    app.start_update(FRAME)
    with pytest.raises(FloatingPointError, match="broken tick"):
        app.finish_update()
    assert app.world is world
    monkeypatch.undo()
    app_module.OVERLAP_MIN_TICK_MS = 0.0
    assert _frame(app) == (True, 1)
    assert app.ticker.thread is thread and thread.is_alive()


def test_close_ends_the_tick_thread_even_with_ticks_running(app):
    app.start_update(FRAME)
    thread = app.ticker.thread
    assert thread.is_alive()
    app.close()                                  # quitting in the middle of a frame
    assert not thread.is_alive() and app.world is app.session.world


def test_a_tick_that_raises_in_the_window_is_one_line_and_no_thread_is_left(tmp_path, monkeypatch, capsys):
    """run() itself (SDL's dummy video): the error a tick raised, as one line on stderr."""
    import argparse
    path = tmp_path / "a_pile.json"
    path.write_text(json.dumps(_pile(20)))
    monkeypatch.setattr(app_module, "OVERLAP_MIN_TICK_MS", 0.0)
    monkeypatch.setattr(app_module.loader, "load_in_background", lambda *a, **k: None)
    made = []

    class Broken(App):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, compiled=COMPILED, **{k: v for k, v in kwargs.items() if k != "compiled"})
            made.append(self)
            frames = [0]
            step = self.session.world.step

            def step_then_break(dt):
                frames[0] += 1
                if frames[0] > 3:
                    raise ValueError("a tick went wrong\nsecond line")
                step(dt)
            self.session.world.step = step_then_break
    monkeypatch.setattr(app_module, "App", Broken)
    before = threading.active_count()
    code = app_module.run(argparse.Namespace(level=str(path), size=(320, 240), edit=None))
    err = capsys.readouterr().err
    assert code == 1
    assert err.strip().splitlines() == ["main.py: internal error: ValueError: a tick went wrong"]
    assert made and made[0].ticker.thread is None and threading.active_count() <= before
