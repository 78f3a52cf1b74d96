"""The layers of the game, each a Mode on the App's stack (see base.Mode)."""
from game.modes.base import Mode  # noqa: F401
