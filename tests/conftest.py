"""Test setup: SDL's dummy drivers so no test ever needs a screen or a sound card."""
import os
import sys

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
# The player's data folder (progress, my levels): a fresh temporary one, never the real one.
import tempfile  # noqa: E402
os.environ["BALLPIT_DATA_DIR"] = tempfile.mkdtemp(prefix="ballpit-data-")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
TESTS = os.path.dirname(os.path.abspath(__file__))    # tests/scenes.py, for the tests in the folders below
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)


import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

# CI draws the same examples every run (a red CI then means the change, not the dice);
# runs elsewhere draw new ones and keep looking. A failure found is pinned with @example.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

from game.physics.compiled import loader  # noqa: E402

# On a cold numba cache (CI, a fresh clone) the first process fills it as the game does: two
# child processes compile the kernels' halves at once, then one the one-call tick (numba
# compiles on one core per process; a warm cache costs the children ~3 s). pytest-xdist's
# workers, started after this module loads in the controller, then only load the kernels.
if not os.environ.get("PYTEST_XDIST_WORKER") and not os.environ.get("BALLPIT_NUMPY"):
    if loader.compile_in_child():
        loader.compile_in_child(stage="_step_kernels")

# The compiled kernels as the game hands them to its worlds (None where numba is missing): a
# World built without ``execution=`` loads and runs them; tests that ask for the
# ``execution`` fixture run on both executions, which must give the same bits.
COMPILED = loader.load()
KERNELS = None if COMPILED is None else COMPILED.kernels
ONE_CALL_TICK = None if COMPILED is None else COMPILED.tick


@pytest.fixture(params=["compiled", "numpy"], scope="session")
def execution(request):
    """The execution under test, for ``World(execution=...)``."""
    if request.param == "compiled" and COMPILED is None:
        pytest.skip("numba is not installed")
    return request.param


@pytest.fixture(autouse=True)
def _player_data_folder(monkeypatch, tmp_path_factory):
    """Each test its own empty data folder (progress, my levels): none sees another's."""
    monkeypatch.setenv("BALLPIT_DATA_DIR", str(tmp_path_factory.mktemp("player-data")))


# The modules that hold the suite's longest tests (a puzzle played for a minute, a level run on
# the numpy execution: 15-70 s each on CI's two loaded cores), longest first. pytest-xdist's
# worksteal (pytest.ini) hands each worker half the suite in order and lets one that runs out
# take the far end of the other's queue; with these first, the long tests start early and the
# last minutes are short tests that either worker can take, instead of one worker playing a
# puzzle while the other waits. Only the order changes (each module's own order is kept); a
# name missing here costs balance, never a test.
SLOW_FIRST = ("tests/modes/test_puzzles.py", "tests/modes/test_gate_and_joint_puzzles.py",
              "tests/physics/test_laws.py", "tests/physics/test_ranges.py", "tests/physics/test_joints.py",
              "tests/physics/test_moving_walls.py", "tests/physics/test_bodies.py", "tests/app/test_lab_replay.py",
              "tests/modes/test_goal_status.py", "tests/physics/test_world.py", "tests/level/test_level.py",
              "tests/physics/test_crushes.py", "tests/physics/compiled/test_polygon_insides.py",
              "tests/physics/test_box_pairs.py", "tests/modes/test_body_puzzles_a.py",
              "tests/modes/test_body_puzzles_b.py")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """The modules of SLOW_FIRST first, in its order; the rest after them as collected."""
    rank = {name: k for k, name in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(SLOW_FIRST)))
