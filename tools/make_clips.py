"""Make the README's replays and clips (python tools/make_clips.py): a solved puzzle (level
47, its solution drawn as a player draws it, then run until the goal is held) and pinball
(level 33, the ball launched and the flippers worked by a fixed rhythm), each kept as a replay in docs/replays/ and
drawn with ``main.py --clip OUT.gif --replay FILE`` into docs/. The replays are the game's
own format: ``python main.py --replay docs/replays/pinball.replay.json`` plays one in the
window, and tests/app/test_replay.py holds them to the bits they were recorded with."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from game import replay  # noqa: E402
from game.goals import GoalTracker, goal_inside, player_segment  # noqa: E402
from game.level import load  # noqa: E402
from game.level.normalise import fill  # noqa: E402
from game.physics.world import World  # noqa: E402

REPLAYS = os.path.join(ROOT, "docs", "replays")


def solved_puzzle(name="47_rube_goldberg", after=60, limit=1200):
    """The level's solution drawn at tick 0 (as play draws a segment), run until the goal is
    complete and ``after`` ticks more."""
    path = os.path.join("levels", f"{name}.json")
    doc = load(os.path.join(ROOT, path))
    world = World.from_level(doc)
    replay.start(world)
    for s in doc["solution"].get("segments", []):
        drawn = player_segment(s["a"], s["b"])
        world.add_segments([{**drawn, **fill("segments", drawn, world.material)}])
    goal = GoalTracker.for_world(world)
    while goal.complete_at is None and world.ticks < limit:
        world.step()
        goal.observe(world.time, goal_inside(world))
    for _ in range(after):
        world.step()
    return world, doc, path


def pinball(ticks=600):
    """Level 33, pinball as a game: the ball launched at full speed (as Down held 1 s launches
    it: World.add_ball at the plunger), the flippers flicked in turn, left, right, both, every
    0.6 s, and a new ball launched when one is lost."""
    path = os.path.join("levels", "33_pinball_game.json")
    doc = load(os.path.join(ROOT, path))
    game = doc["pinball"]
    world = World.from_level(doc)
    replay.start(world)
    rhythm = [("left",), ("right",), ("left", "right")]
    while world.ticks < ticks:
        if world.count == 0 and world.ticks % 30 == 0:
            world.add_ball(game["plunger"], (0.0, game["speed"]), radius=game["radius"])
        beat, phase = divmod(world.ticks, 36)
        keys = rhythm[beat % len(rhythm)]
        if phase == 0:
            for key in keys:
                world.press_flipper(key, True)
        elif phase == 12:
            for key in keys:
                world.press_flipper(key, False)
        world.step()
    return world, doc, path


def main():
    os.makedirs(REPLAYS, exist_ok=True)
    for stem, (world, doc, path) in (("puzzle_solved", solved_puzzle()), ("pinball", pinball())):
        kept = os.path.join(REPLAYS, f"{stem}.replay.json")
        replay.save(world, doc, kept, path)
        gif = os.path.join(ROOT, "docs", f"clip_{stem}.gif")
        subprocess.run([sys.executable, os.path.join(ROOT, "main.py"), "--clip", gif, "--replay", kept,
                        "--size", "960x540"], check=True, cwd=ROOT)


if __name__ == "__main__":
    main()
