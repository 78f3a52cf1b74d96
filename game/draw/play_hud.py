"""Play's drawing over the world: the aim of a fling, the stroke of a segment being drawn, the
picker's next ball on the cursor, and play's HUD (the bar's lines, a puzzle's budgets row,
the status, the goal's notes, the energy plot or the lab's, banners and the key hint).
Plain functions of the PlayMode (``play``); they read it and never change it."""
import os

import numpy as np
import pygame

from game.physics import motor_keys
from game.app.gestures import Fling
from game.draw.aim import draw_aim, draw_spin
from game.draw.hud import energy_plot_rect, short_number
from game.goals import DRAWN_RADIUS, score
from game.modes.play_actions import BALL_MATERIALS, FLING_GAIN, Stroke, flight_preview, fling_spin, spawn_radius
from game.modes.play_picker import fling_radius, shape_label
from game.modes.play_hints import pieces
from game.app.progress import stars
from game.modes.play_joints import JointStart, kinds as joint_kinds
from game.modes.play_rules import blow_up_line, left_of, limit_of, limited, spent
from game.draw.theme import SOLUTION_HINT, BAR_HEIGHT, DRAW_PREVIEW, HINT_HEIGHT, HINT_PANEL, RULES_ROW, SIZE_BODY, SPOT_TAKEN

HINT = (("H", "help"), ("L", "levels"), ("W", "balls / draw"), ("B/C/V", "ball"), ("I", "integrator"),
        ("E", "energy"), ("D", "debug"), ("T", "trails"), ("S", "settings"), ("R", "reset"), ("Space", "pause"))


def draw_play(play, surface):
    """Play's frame: the world (stopped at the key hint's row), the lab's ghost, the aim or
    stroke being dragged, the picker's ball on the cursor, and the HUD (play.draw_hud)."""
    app = play.app
    # The debug layers' line of solver options ends left of the energy plot's column.
    text_right = energy_plot_rect(surface.get_size(), HINT_HEIGHT).left - 10 if play.show_energy else None
    # The world (and its debug grid) stops at the key hint's row: nothing crosses the hint.
    width, height = surface.get_size()
    clip = surface.get_clip()
    surface.set_clip(clip.clip(pygame.Rect(0, 0, width, height - HINT_HEIGHT)))
    app.renderer.draw(surface, play.world, app.camera, debug=play.debug_layers,
                      trails=play.trails if play.show_trails else None, text_right=text_right)
    if play.lab is not None:
        play.lab.draw_ghost(surface, app.camera)
    draw_solution(play, surface)
    surface.set_clip(clip)
    surface.fill(HINT_PANEL[:3], pygame.Rect(0, height - HINT_HEIGHT, width, HINT_HEIGHT))
    if isinstance(play.left, Fling) and play.left.dragging:
        draw_fling_aim(play, surface)
    if isinstance(play.left, Stroke):
        width = max(2, int(2 * DRAWN_RADIUS * app.camera.scale))
        pygame.draw.line(surface, DRAW_PREVIEW, play.left.start, app.mouse, width)
    if isinstance(play.left, JointStart):      # a rod from its first end to the pointer
        pygame.draw.line(surface, DRAW_PREVIEW, app.camera.world_to_screen(np.array(play.left.point, float)), app.mouse, 2)
    if isinstance(play.left, Fling) and play.left.spraying and play.spot_taken:
        radius = spawn_radius(play) * app.camera.scale
        pygame.draw.circle(surface, SPOT_TAKEN, app.mouse, max(4, int(radius)), 2)
    elif play.left is None and play.pan is None and app.mouse_known and play.shape == "ball":
        draw_ball_preview(play, surface)
    play.draw_hud(surface)


def draw_solution(play, surface):
    """A puzzle's hint or shown solution (game.modes.play_hints.pieces), faint on the level: a
    segment as a dashed line as thick as a drawn one, a ball or body as a ring where it goes."""
    camera = play.app.camera
    for piece in pieces(play):
        if piece[0] == "segment":
            a, b = camera.world_to_screen(np.array([piece[1], piece[2]], float))
            width = max(2, int(2 * DRAWN_RADIUS * camera.scale))
            dashes = max(2, int(np.hypot(*(b - a)) // 12))
            for k in range(0, dashes, 2):
                p, q = a + (b - a) * k / dashes, a + (b - a) * min(k + 1, dashes) / dashes
                pygame.draw.line(surface, SOLUTION_HINT, p, q, width)
        else:
            centre = camera.world_to_screen(np.array(piece[-1], float))
            pygame.draw.circle(surface, SOLUTION_HINT, centre, max(6, int(0.3 * camera.scale)), 2)


def draw_ball_preview(play, surface):
    """The picker's next ball on the cursor: its size and its material's colour, faint."""
    app = play.app
    x, y = app.mouse
    width, height = surface.get_size()
    if not (0 <= x < width and BAR_HEIGHT <= y < height - HINT_HEIGHT):
        return                                   # over the HUD: no ball goes there
    radius = max(3, int(round(spawn_radius(play) * app.camera.scale)))
    if radius > max(width, height):
        return
    colour = BALL_MATERIALS[play.material_index][2]
    disc = pygame.Surface((2 * radius + 2, 2 * radius + 2), pygame.SRCALPHA)
    pygame.draw.circle(disc, colour + (60,), (radius + 1, radius + 1), radius)
    pygame.draw.circle(disc, colour + (200,), (radius + 1, radius + 1), radius, 1)
    surface.blit(disc, (x - radius - 1, y - radius - 1))


def draw_fling_aim(play, surface):
    """The fling being dragged: its aim line, the predicted flight, the speed and any spin
    (none where the level lets the player add no ball, or no body, of the spawn tool's shape)."""
    if play.rules["spawn" if play.shape == "ball" else "bodies"] == 0:
        return
    app, fling = play.app, play.left
    end_world = app.cursor_world()
    velocity = (end_world - fling.start_world) * FLING_GAIN
    radius = fling_radius(play)               # a body's extent: its spin turns that at the fling's speed
    path = app.camera.world_to_screen(flight_preview(play.world, fling.start_world, velocity, radius))
    speed = float(np.hypot(*velocity))
    mods = pygame.key.get_mods() if pygame.display.get_init() else 0
    spin = fling_spin(velocity, radius, mods)
    label = f"{speed:.1f} m/s"
    if spin:
        label += f", {'topspin' if mods & pygame.KMOD_SHIFT else 'backspin'} {abs(spin):.0f} rad/s"
    draw_aim(surface, fling.start, app.mouse, label, lambda s: app.hud.text(s, SIZE_BODY, bold=True), path)
    if spin:
        draw_spin(surface, fling.start, radius * app.camera.scale, spin)


FLIPPER_HINT = {"left": "Z", "right": "/"}    # the keys that hold each side's flippers up (or the arrows)


def hint(play):
    """The key hint, with the picker's next ball or body in it ("B/C/V ball 0.25 m rubber",
    "B/C/V box 0.6 m wood"), led by the flipper keys in a level that has flippers."""
    pairs = tuple((key, shape_label(play)) if key == "B/C/V" else (key, what) for key, what in HINT)
    if getattr(play, "pinball", None) is not None:      # a pinball game: the plunger first
        pairs = (("Down", "launch"),) + pairs
    if joint_kinds(play):                                # a puzzle's joints: J places them
        pairs = (("J", " / ".join(joint_kinds(play))),) + pairs
    sides = [side for side in ("left", "right") if side in getattr(play.world, "flipper_keys", ())]
    if not sides:
        return pairs
    flippers, motors = bool(play.world.motions.flipper_keys), bool(motor_keys.keys(play.world))
    what = "flippers, motors" if flippers and motors else "flippers" if flippers else "motors"
    return ((" ".join(FLIPPER_HINT[side] for side in sides), what),) + pairs


def rules_line(play):
    """[(text, active)] for the HUD: what the left button does and what is left of each
    budget ("balls 2 of 3 left"); empty in an open sandbox while it adds balls."""
    rules, parts = play.rules, []
    if not limited(play) and play.tool == "balls":
        return parts
    # Bodies show only where the level counts them (else "balls" speaks for what is added).
    adding = play.tool if play.tool in ("draw", "joint") else "balls" if play.shape == "ball" else "bodies"
    for tool, what, word in (("balls", "spawn", "balls"), ("bodies", "bodies", "bodies"), ("draw", "draw", "segments")):
        left = left_of(play, what)
        if what == "bodies" and left is None:
            continue
        if left is None:
            text = f"{word}: no limit"
        elif rules[what] == 0:
            text = {"spawn": "no new balls", "bodies": "no new bodies"}.get(what, "no segments")
        else:
            text = f"{word} {left} of {rules[what]} left"
        parts.append((text, adding == tool))
    if rules["ink"] is not None:       # the ink budget: metres of segment left to draw
        parts.append((f"ink {left_of(play, 'ink'):.1f} of {rules['ink']:g} m", adding == "draw"))
    for kind in joint_kinds(play):     # the pins and rods the level gives (J)
        parts.append((f"{kind}s {left_of(play, kind)} of {limit_of(play, kind)} left",
                       adding == "joint" and play.joint_kind == kind))
    parts.append(("W switches" if rules["draw"] != 0 else "", False))
    parts.append(("J: joints" if joint_kinds(play) else "", False))
    if not rules["grab"]:
        parts.append(("no grab", False))
    if not rules["delete"]:
        parts.append(("no delete", False))
    return [p for p in parts if p[0]]


def draw_hud(play, surface):
    app, hud, world = play.app, play.app.hud, play.world
    stats = app.stats
    top = 0
    energy = play.energy if play.energy is not None else world.energy()
    # Cells (text, the widest it gets): each right-aligned in a fixed slot, so the block
    # does not shift as the numbers change width.
    balls = "1 ball" if world.count == 1 else f"{world.count} balls"
    broken = getattr(world, "joints_broken", 0)
    if broken:
        balls += f"    {broken} joint{'s' if broken != 1 else ''} broken"
    lines = [[(balls, "88888 balls    88 joints broken" if broken else "88888 balls"), (f"time {world.time:.1f} s", "time 8888.8 s"),
              (f"energy {short_number(energy['total'])} J", "energy -8.88M J")],
             [(f"{stats.fps:.0f} FPS" if stats.fps > 0 else "", "888 FPS"),
              (f"physics {stats.tick_cpu_ms:.2f} ms/tick" + (" numpy" if world.execution == "numpy" else ""),
               "physics 88.88 ms/tick numpy"),
              (f"draw {stats.draw_ms:.1f} ms" if stats.draw_ms > 0 else "", "draw 88.8 ms")]]
    last = []
    if app.mouse_known:
        cursor = app.cursor_world()
        last.append((f"cursor ({cursor[0]:.2f}, {cursor[1]:.2f}) m", "cursor (-888.88, -888.88) m"))
    points = score(world)
    if points is not None:
        last.append((f"score {points:,}", "score 8,888,888"))
    game = getattr(play, "pinball", None)
    if game is not None:            # pinball as a game (game.modes.play_pinball): balls left, the best
        left = "game over (R: new game)" if game.over else f"ball{'s' if game.lives > 1 else ''} {game.lives}"
        last.append((f"{left}    best {game.best:,}", "game over (R: new game)    best 8,888,888"))
    if last:
        lines.append(last)
    hud.draw_bar(surface, top, world.name or os.path.basename(app.session.path), world.description,
                 world.integrator, lines, play.goal.progress(), counter=play.counter)
    hud.draw_rules(surface, top, rules_line(play))
    below = top + (RULES_ROW if limited(play) else 0)      # under the budgets' row
    hud.draw_status(surface, below, app.clock.paused, app.clock.time_scale, app.warming_up)
    if play.goal.complete:
        par = app.session.doc.get("par", {})
        run = {"completed": True, "best_time": play.complete_at, "fewest_balls": play.spawned,
               "fewest_segments": spent(play, "draw")}
        hud.draw_complete(surface, below, play.complete_at, par.get("time"), stars(run, par))
    elif play.goal.has_goal:
        left = play.goal.hold_left()
        if left is not None:
            hud.draw_note(surface, below, f"hold it... {left:.1f} s", positive=True)
        elif play.complete_at is not None:
            hud.draw_note(surface, below, "the goal was lost: get the balls back in and hold them")
    if play.show_energy and play.lab is not None:
        play.lab.draw_plot(surface, hud, bottom_gap=HINT_HEIGHT)
    elif play.show_energy:
        hud.draw_energy(surface, play.energy_history, bottom_gap=HINT_HEIGHT)
    if play.lab is not None:
        play.lab.draw_line(surface, hud, surface.get_height() - HINT_HEIGHT - 4)
    if app.session.error:
        hud.draw_banner(surface, app.session.error,
                        "not loaded yet, fix the file:" if app.session.waiting else
                        "not loaded, the last good level plays on:")
    elif play.blew_up_under is not None:
        hud.draw_alert(surface, blow_up_line(play.blew_up_under))
    else:
        hud.draw_hint(surface, hint(play))
