"""Where the project's own folders are: one place for each (the levels, the assets).

Only the standard library: the level package, the game and the command line all read these.
"""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LEVELS = os.path.join(ROOT, "levels")          # the shipped levels and level.schema.json
ASSETS = os.path.join(ROOT, "assets")          # sounds and fonts, with their licences
SCREENSHOTS = os.path.join(ROOT, "screenshots")
