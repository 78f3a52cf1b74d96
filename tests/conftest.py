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


import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

# CI draws the same examples every run (a red CI then means the change, not the dice);
# runs elsewhere draw new ones and keep looking. A failure found is pinned with @example.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

from game import accel  # noqa: E402

# On a cold numba cache (CI, a fresh clone) the first process fills it as the game does: two
# child processes compile the kernels' halves at once, then one the one-call tick (numba
# compiles on one core per process; a warm cache costs the children ~3 s). pytest-xdist's
# workers, started after this module loads in the controller, then only load the kernels.
if not os.environ.get("PYTEST_XDIST_WORKER") and not os.environ.get("BALLPIT_NUMPY"):
    if accel.compile_in_child():
        accel.compile_in_child(stage="_step_kernels")

# The tests run with the compiled kernels when numba is there (as the game does once they
# load); tests that ask for the ``solver`` fixture run a default ("compiled") World on both
# executions of the one solver, with the kernels and without.
KERNELS = accel.load()


@pytest.fixture(params=["compiled", "numpy"])
def solver(request):
    """Run the test with the kernels loaded (the compiled execution) and without (numpy)."""
    if request.param == "compiled" and KERNELS is None:
        pytest.skip("numba is not installed")
    previous = accel.use(KERNELS if request.param == "compiled" else None)
    yield request.param
    accel.use(previous)


@pytest.fixture(autouse=True)
def _player_data_folder(monkeypatch, tmp_path_factory):
    """Each test its own empty data folder (progress, my levels): none sees another's."""
    monkeypatch.setenv("BALLPIT_DATA_DIR", str(tmp_path_factory.mktemp("player-data")))
