"""The named bundles the step's stages hand each other, in both executions.

Each is a ``collections.namedtuple`` of arrays and numbers, which numba takes as it is (a
named tuple type), so the numpy reference and its compiled twin take the same bundles: a
stage takes a few of them (the balls, the contacts, the statics, the constants) instead of
dozens of positional arguments, and two numbers cannot swap places unseen. A new quantity
(a joint's, a moving wall's) is a field here, not one more argument through every call.

Built in one place each: ``ball_columns``, ``statics`` and ``grid_frame`` here,
``game.physics.contacts.contact_params`` and ``game.physics.solver.solve_params`` (the
constants, from the SolverOptions), ``Forces.packed`` (the force field), ``prepare_numpy``
and its twin (the contacts). Arrays are float64 and C-contiguous unless
said otherwise, so that each compiled kernel has one signature.
"""
from collections import namedtuple

import numpy as np

# The world's balls (N,), as World holds them: pos, vel (N, 2) m, m/s; angle rad; spin rad/s;
# radius m; inv_mass 1/kg; inv_inertia 1/(kg m^2); the materials; ids (N,) int64.
Balls = namedtuple("Balls", "pos vel angle spin radius inv_mass inv_inertia restitution friction rolling ids")

# The balls as the contacts' preparation and the solve see them: (N + 1,) columns, index N the
# statics' still stand-in (inverse mass 0, at rest at the origin); the solve writes px .. angle
# in place. w, inv_i: inverse mass and moment; gx, gy: what the forces did this sub-step
# (m/s^2); radius and the materials; ids (N,) int64 (no stand-in).
BallColumns = namedtuple("BallColumns", "px py vx vy spin angle w inv_i radius restitution friction rolling gx gy ids")

# One sub-step's contacts in solve order (game.physics.contacts.Contacts describes each field).
# Moving walls: wvx, wvy m/s and wspin rad/s, the wall's velocity at a static contact and its
# turn (0 for ball pairs and still walls: contacts.wall_rows fills them); kick m/s (a bumper's);
# jn, jt N s: the impacts' normal and tangent impulses, which the solve writes.
ContactRows = namedtuple("ContactRows", "a b static key order colour_start nx ny depth base separation ax ay ra rb "
                                        "mass_n mass_t mass_r restitution friction rolling pn pt pr approach "
                                        "scale_a scale_b wvx wvy wspin kick jn jt")

# The ball-static pairs that touch this sub-step, sorted by (ball, static): ball, static (K,)
# int64, the normal (nx, ny) from the capsule to the ball and the depth (m, > 0 overlapping).
Touches = namedtuple("Touches", "ball static nx ny depth")

# The warm start: last sub-step's impulses (N s) by contact key, in canonical order (keys sorted).
Impulses = namedtuple("Impulses", "key pn pt pr")

# The capsules (M,) (collide.Statics): ends a = (ax, ay), b = (bx, by) m, radius m, unit normal
# (nx, ny), polygon (M,) int64 (-1: not a polygon edge), box (M, 4) (x_lo, y_lo, x_hi, y_hi), the
# materials; the grid that lists them by cell: start (cells + 1,) and index int64, cell m, its
# origin (ox, oy) m and size (ncx, ncy) cells.
# Moving walls (game.physics.motion): moving (M,) bool, surface and kick (M,) m/s, the sub-step's
# rigid map of each capsule (mcos, msin, mcx, mcy, mdx, mdy), omega rad/s and inv_h 1/s. In a
# one-call tick (game.physics.step.wall_steps, compiled.walls): poses (S, 13, M), each sub-step's
# pose arrays (compiled.walls.POSE_FIELDS), empty where no wall moves; work (3 S,) J and kicks (1,)
# int64, which the tick writes (each sub-step's work of its first sweep, its contacts and its
# second sweep; the kicks in all); at (1,) int64, the sub-step the tick is in; reach (M, 5) a
# capsule (ax, ay, bx, by, radius) holding each moving capsule within the tick
# (motion.Motions.tick_poses), which the candidates (a moving capsule is one for the balls
# that touch it) and the sweeps (its box) test.
# Polygons (game.physics.insides): polygon_first (P + 1,) int64, polygon p's edges are the capsules
# polygon_first[p] .. polygon_first[p + 1] - 1, its corners their first ends (ax, ay); polygon_winding
# (P,) int64 the sign of each one's area, polygon_solid (P,) bool whether its counter-clockwise copy
# has a positive area (insides.polygon_layout).
Statics = namedtuple("Statics", "ax ay bx by radius nx ny polygon box restitution friction rolling "
                                "start index cell ox oy ncx ncy "
                                "moving surface kick mcos msin mcx mcy mdx mdy omega inv_h poses work kicks at reach "
                                "polygon_first polygon_winding polygon_solid")

# A ball grid (collide.Grid): cell m, origin (ox, oy), size (ncx, ncy) cells, the bounds it
# covers (lo_x, lo_y) .. (hi_x, hi_y) m.
GridFrame = namedtuple("GridFrame", "cell ox oy ncx ncy lo_x lo_y hi_x hi_y")

# The contacts' preparation's constants (game.physics.contacts.contact_params): h_move s (a
# velocity change dv of the solve moves positions by h_move dv); touch_slop m; static_key
# (int: a static's key is the ball's id * 2^32 + this + its index); support_cos; speculative m
# and lookahead s: a pair joins the contacts while its gap is under touch_slop + speculative +
# lookahead times its closing speed (both 0 but where the contacts are kept a tick: the
# SolverOptions' keep_contacts, game.physics.contacts.refresh_numpy).
ContactParams = namedtuple("ContactParams", "h_move touch_slop static_key support_cos speculative lookahead")

# The solve's constants for one sub-step (game.physics.solver.solve_params): tau_max s, how far
# back an impact looks; h_move s; threshold m/s, the restitution threshold; touch_slop m;
# max_passes of the impacts and their impact_budget (passes x colours a solve at most:
# solver.IMPACT_BUDGET); warm_start; iterations and relax_iterations; the soft contacts'
# (rate 1/s, mass_scale, impulse_scale) and the statics' (s_...); max_push m/s.
SolveParams = namedtuple("SolveParams", "tau_max h_move threshold touch_slop max_passes impact_budget warm_start "
                                        "iterations relax_iterations rate mass_scale impulse_scale s_rate s_mass_scale "
                                        "s_impulse_scale max_push")

# The force field (Forces.packed): gravity (gx, gy) m/s^2, drag 1/s; the springs' a, b (S,) int64
# (-1: anchored), anchor (S, 2) m, stiffness N/m, damping N s/m, rest m; the attractors' shape
# (Z,) int64, centre (Z, 2) m, strength m/s^2, numbers (Z, 5) and edges (E, 4) from edge_start.
ForceField = namedtuple("ForceField", "gx gy drag sa sb anchor stiffness damping rest shape center strength "
                                      "numbers edges edge_start")

# The constants of a compiled tick (game.physics.compiled.step.tick): substeps, h s (a sub-step),
# dt s (the tick), h_move s; the integration: uniform (gravity and drag only), stepper (index
# in step.STEPPERS) and kind (its force stepper's); ccd_fraction and impact_speed m/s
# (collide's); contact_margin and max_margin_cells (the candidates'); rest_speed2 (m/s)^2 and
# rest_way2 m^2 (sleep.resting's limits); keep_contacts: the contacts are prepared at the tick's
# first sub-step and kept through the others (SolverOptions.keep_contacts).
StepConstants = namedtuple("StepConstants", "substeps h dt h_move uniform stepper kind ccd_fraction impact_speed "
                                            "contact_margin max_margin_cells rest_speed2 rest_way2 keep_contacts")

# What a compiled tick returns: the balls' pos, vel, angle, spin; the last sub-step's contacts
# (ContactRows); the candidates (i, j, bi, s), where they were found (N, 2) and their margins
# (N,); the warm start (Impulses); the last sub-step's start positions (N, 2); its fast balls
# and their hits (F, 2); the tick's impact points (K, 2) and speeds (K,); how many times the
# candidates were found afresh; the balls resting after it (N,) bool.
TickResult = namedtuple("TickResult", "pos vel angle spin contacts found found_at margin warm prev fast hits "
                                      "points speeds refinds resting")


def world_balls(world):
    """The Balls bundle of a World: its own arrays (what a writer writes, the world sees)."""
    return Balls(*(getattr(world, name) for name in Balls._fields))


def contiguous(balls):
    """The Balls with each array float64 (ids int64) and C-contiguous, as a kernel takes them
    (one signature): the same arrays where they are so already, else copies."""
    c = np.ascontiguousarray
    return Balls(*(c(x, float) for x in balls[:-1]), c(balls.ids, np.int64))


def extended(array):
    """The (N,) array as (N + 1,) float64 with a 0 for the statics' still stand-in."""
    out = np.empty(len(array) + 1)
    out[:-1] = array
    out[-1] = 0.0
    return out


def ball_columns(pos, vel, spin, angle, inv_mass, inv_inertia, radius, materials, acceleration, ids):
    """BallColumns of N balls (the world's arrays; ``materials``: (restitution, friction,
    rolling) (N,); ``acceleration`` (N, 2) m/s^2)."""
    restitution, friction, rolling = materials
    return BallColumns(px=extended(pos[:, 0]), py=extended(pos[:, 1]), vx=extended(vel[:, 0]),
                       vy=extended(vel[:, 1]), spin=extended(spin), angle=extended(angle), w=extended(inv_mass),
                       inv_i=extended(inv_inertia), radius=extended(radius), restitution=extended(restitution),
                       friction=extended(friction), rolling=extended(rolling), gx=extended(acceleration[:, 0]),
                       gy=extended(acceleration[:, 1]), ids=ids)


def statics(st):
    """The Statics bundle of a collide.Statics (its grid built): the materials are (1,) zeros
    where there are no capsules (never read, but a kernel's arrays are never empty of type)."""
    one = np.zeros(1)
    g = st.grid
    walls = dict(moving=st.moving, surface=st.surface, kick=st.kick, mcos=st.mcos, msin=st.msin, mcx=st.mcx,
                 mcy=st.mcy, mdx=st.mdx, mdy=st.mdy, omega=st.omega, inv_h=float(st.inv_h),
                 poses=np.zeros((0, 0, 0)), work=np.zeros(0), kicks=np.zeros(1, np.int64), at=np.zeros(1, np.int64),
                 reach=st.reach, polygon_first=st.polygon_first, polygon_winding=st.polygon_winding,
                 polygon_solid=st.polygon_solid)
    if g is None:                       # no grid yet: nothing is listed (start, index say so)
        return Statics(ax=st.ax, ay=st.ay, bx=st.bx, by=st.by, radius=st.radius, nx=st.nx, ny=st.ny,
                       polygon=st.polygon, box=st.box, restitution=st.restitution if len(st) else one,
                       friction=st.friction if len(st) else one, rolling=st.rolling if len(st) else one,
                       start=st._start, index=st._index, cell=1.0, ox=0.0, oy=0.0, ncx=1, ncy=1, **walls)
    return Statics(ax=st.ax, ay=st.ay, bx=st.bx, by=st.by, radius=st.radius, nx=st.nx, ny=st.ny, polygon=st.polygon,
                   box=st.box, restitution=st.restitution if len(st) else one,
                   friction=st.friction if len(st) else one, rolling=st.rolling if len(st) else one,
                   start=st._start, index=st._index, cell=float(g.cell), ox=float(g.origin[0]),
                   oy=float(g.origin[1]), ncx=int(g.nx), ncy=int(g.ny), **walls)


def grid_frame(g):
    """The GridFrame of a collide.Grid."""
    return GridFrame(cell=float(g.cell), ox=float(g.origin[0]), oy=float(g.origin[1]), ncx=int(g.nx), ncy=int(g.ny),
                     lo_x=float(g.lo[0]), lo_y=float(g.lo[1]), hi_x=float(g.hi[0]), hi_y=float(g.hi[1]))
