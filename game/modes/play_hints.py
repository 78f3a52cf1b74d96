"""Hints in a puzzle (issue 38): after HINT_AFTER failed tries (a run that ticked and was reset
with R before the goal was held) the first step of the level's ``solution`` is drawn faintly
on the level; after SOLUTION_AFTER, Shift+H draws the whole solution, and the progress file
marks the level's solution as seen. The tries are counted per level file for the session
(R keeps them; another level has its own). Plain functions of the PlayMode (``play``)."""
import os

from game.goals import solution_points

HINT_AFTER = 3              # failed tries before the first step of the solution shows
SOLUTION_AFTER = 5          # and before Shift+H shows all of it


def _key(play):
    return os.path.realpath(play.app.session.path)


def tries(play):
    """Failed tries at this level in this session."""
    return play.tries.get(_key(play), 0)


def failed_try(play):
    """R in a puzzle: a run that ticked without its goal held counts as a failed try. Returns
    the news for R's toast when a hint comes with it, else None."""
    if not play.ran or play.goal.complete_at is not None or not play.app.session.doc.get("solution"):
        return None
    n = play.tries[_key(play)] = tries(play) + 1
    if n == HINT_AFTER:
        return "stuck? the first step of a solution is drawn faintly"
    if n == SOLUTION_AFTER:
        return "still stuck? Shift+H shows the whole solution"
    return None


def show_solution(play):
    """Shift+H: the whole solution drawn, once SOLUTION_AFTER tries have failed (marked as seen
    in the progress file); before that, how many tries are left to go."""
    if not play.app.session.doc.get("solution"):
        play.app.toast("this level has no solution to show")
        return
    left = SOLUTION_AFTER - tries(play)
    if left > 0:
        play.app.toast(f"the solution shows after {SOLUTION_AFTER} tries (R after a run): {left} to go")
        return
    play.solution_shown.add(_key(play))
    progress = play.app.progress
    if progress is not None and not progress.mark_solution_seen(play.app.session.path):
        play.app.toast(progress.error)
        return
    play.app.toast("the solution is drawn faintly: build it yourself (marked as seen)")


def joint_piece(doc, joint):
    """A solution's joint (game.goals.solution_joint) as a piece to draw on the normalised level
    ``doc``: a pin as ("pin", at), a rod as ("segment", held a, held b)."""
    if joint["kind"] == "pin":
        return ("pin", joint["at"])
    return ("segment", *solution_points(joint, doc)[0])


def pieces(play):
    """The solution's pieces to draw now: [("segment", a, b) | ("ball", pos) | ("body", shape,
    pos) | ("pin", at)] (all once shown, the first after HINT_AFTER failed tries, else none)."""
    solution = play.app.session.doc.get("solution") or {}
    if not solution:
        return []
    every = ([("segment", s["a"], s["b"]) for s in solution.get("segments", [])]
             + [("ball", b["pos"]) for b in solution.get("balls", [])]
             + [("body", b["shape"], b["pos"]) for b in solution.get("bodies", [])]
             + [joint_piece(play.app.session.doc, j) for j in solution.get("joints", [])])
    if _key(play) in play.solution_shown:
        return every
    return every[:1] if tries(play) >= HINT_AFTER else []
