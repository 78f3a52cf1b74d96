"""The World: balls as arrays, statics as capsules, and the fixed-tick step.

Build one from a normalised level definition (the format of ``levels/level.schema.json``
as ``game.level`` loads it, every default filled in), call ``step(dt)`` with a fixed dt
(1/60 s), read the arrays to draw. Units: metres, seconds, kilograms; y points up.

>>> from game.level import complete
>>> w = World.from_level(complete({"segments": [{"a": [0, 0], "b": [10, 0]}],
...                                "balls": [{"pos": [5, 1], "radius": 0.5}]}))
>>> for _ in range(120):
...     w.step(1 / 60)
>>> round(float(w.pos[0, 1]), 3)   # resting on the floor, centre one radius up
0.5
"""
import contextlib
import copy
import dataclasses
import hashlib
import math

import numpy as np

from game.physics import collide, geometry

from game import defaults
from game.physics.forces import Forces
from game.physics.grab import GRAB_LEVER, Grab, grab_anchors, grab_spring_constants
from game.physics.integrators import CONTACT_WEIGHT, INTEGRATORS
from game.physics import bundles
from game.physics.bundles import StepConstants
from game.physics.contacts import Contacts, contact_params
from game.physics.solver import EXECUTIONS, Solver, SolverOptions, solve_params
from game.physics.sleep import Sleep, reached, rest_limits
from game.physics.joints import Joints, substep_kernel as joints_numpy
from game.physics.compiled import loader

from game.defaults import TICK  # s: the fixed tick the game steps with

SLEEP_CONTACT_SLOP = 0.05  # of a radius: a sleeping pair this far apart still shows as touching (debug)
BREAK_LOG = 64               # breaks World.break_log keeps (the newest)
MIN_CELL = 1e-3              # m: the broad-phase cell is never smaller
MAX_CELLS_ACROSS = 4096      # the cell grows so the level spans at most this many cells
ESCAPE_SPANS = 100.0         # a ball this many bounds' sizes outside the bounds is gone for good


class Zone:
    """A region of a level: ``kind`` is "goal", "kill" or "attractor".

    ``shape`` is "rect" (params: lo, hi), "circle" (center, radius), "ellipse" (center,
    radii) or "polygon" (points, counter-clockwise). ``count``: balls a goal wants;
    ``strength``: m/s^2 an attractor pulls with towards ``center``.
    """

    def __init__(self, kind, shape, params, count=defaults.ZONE_COUNT, strength=defaults.ATTRACTOR_STRENGTH):
        self.kind, self.shape, self.params = kind, shape, params
        self.count, self.strength = int(count), float(strength)
        if shape == "rect":
            self.center = (params["lo"] + params["hi"]) / 2
        elif shape == "polygon":
            self.center = params["points"].mean(axis=0)
        else:
            self.center = params["center"]

    @classmethod
    def from_definition(cls, z):
        """A zone from a normalised definition (``game.level``): a rect's corners ordered, a
        polygon convex and counter-clockwise, count and strength present."""
        kind, count, strength = z["kind"], z["count"], z["strength"]
        if "rect" in z:
            lo, hi = z["rect"]
            return cls(kind, "rect", {"lo": np.array(lo, float), "hi": np.array(hi, float)}, count, strength)
        if "circle" in z:
            c = z["circle"]
            return cls(kind, "circle", {"center": np.asarray(c["center"], float),
                                        "radius": float(c["radius"])}, count, strength)
        if "ellipse" in z:
            e = z["ellipse"]
            return cls(kind, "ellipse", {"center": np.asarray(e["center"], float),
                                         "radii": np.asarray(e["radii"], float)}, count, strength)
        return cls(kind, "polygon", {"points": np.asarray(z["polygon"], float)}, count, strength)

    def contains(self, points):
        """(N,) bool: which of the (N, 2) points lie in the zone (its boundary included)."""
        points = np.asarray(points, float).reshape(-1, 2)
        p = self.params
        if self.shape == "rect":
            return np.all((points >= p["lo"]) & (points <= p["hi"]), axis=1)
        if self.shape == "circle":
            d = points - p["center"]
            return np.einsum("ij,ij->i", d, d) <= p["radius"] ** 2
        if self.shape == "ellipse":
            return np.asarray(geometry.point_in_ellipse(points, p["center"], p["radii"]), bool).reshape(-1)
        return np.asarray(geometry.point_in_convex_polygon(points, p["points"]), bool).reshape(-1)


# The World's per-ball arrays, one row a ball, in index order: what remove_balls shrinks,
# take_ball records and put_back re-inserts.
BALL_ARRAYS = ("pos", "vel", "angle", "spin", "radius", "inv_mass", "inv_inertia", "restitution",
               "friction", "rolling", "ids")


@dataclasses.dataclass
class BallRecord:
    """One ball as the world held it (``World.take_ball``): ``rows`` {name in BALL_ARRAYS: its
    row}, ``springs`` [{name in Springs.ARRAYS: its row}, with ``a`` and ``b`` as ball ids
    (b = -1: anchored)] in spring id order."""
    rows: dict
    springs: list = dataclasses.field(default_factory=list)
    joints: list = dataclasses.field(default_factory=list)   # [(position, row)]: Joints.rows

    @property
    def ball_id(self):
        return int(self.rows["ids"])


class World:
    """Balls, statics, springs and zones, and the step that moves them.

    Ball state is a structure of arrays: ``pos``, ``vel`` (N, 2) in m and m/s; ``angle`` (N,)
    rad and ``spin`` (N,) rad/s, counter-clockwise; ``radius`` (N,) m; ``inv_mass`` (N,) 1/kg;
    ``inv_inertia`` (N,) 1/(kg m^2), a disc's 2 / (m r^2); ``restitution``, ``friction``,
    ``rolling`` (N,); ``ids`` (N,) stable ids. Outside code reads them and changes the world
    only through its methods.

    ``execution``: "compiled" runs the numba twins of the step's parts (``compiled``, the
    kernels a load returned; None: they are loaded here, blocking, if nobody has) or "numpy"
    never runs them; the same bits either way. ``use_compiled`` hands a running world the
    kernels later (the game starts on numpy while they load); ``execution`` names what runs
    now. ``self.solver.options`` holds the solver's switches (game.physics.solver.SolverOptions).
    """

    def __init__(self, gravity=defaults.GRAVITY, integrator=defaults.INTEGRATOR,
                 substeps=defaults.SUBSTEPS, drag=defaults.DRAG, bounds=defaults.BOUNDS,
                 material=None, execution="compiled", compiled=None):
        self.material = {**defaults.MATERIAL, **(material or {})}
        self.forces = Forces(gravity, drag)
        self.integrator = integrator
        if execution not in EXECUTIONS:
            raise ValueError(f"unknown execution {execution!r}; expected one of {', '.join(EXECUTIONS)}")
        self.solver = Solver(SolverOptions(substeps=int(substeps)))
        self._compiled = None        # game.physics.compiled.loader.Compiled while the compiled execution runs
        self.bounds = np.asarray(bounds, float)
        self.time = 0.0
        self.name = ""
        self.description = ""
        self.level = {}
        self.pos = np.zeros((0, 2))
        self.vel = np.zeros((0, 2))
        self.angle = np.zeros(0)
        self.spin = np.zeros(0)
        self.radius = np.zeros(0)
        self.inv_mass = np.zeros(0)
        self.inv_inertia = np.zeros(0)
        self.restitution = np.zeros(0)
        self.friction = np.zeros(0)
        self.rolling = np.zeros(0)
        self.ids = np.zeros(0, np.int64)
        self._next_id = 0
        self._grabs = {}             # handle -> game.physics.grab.Grab (see grabs)
        self.escaped_removed = 0     # balls removed for going far beyond the bounds
        self.crossed = 0             # times a ball's centre went through a static in a tick (count_crossings)
        self.polygons = []
        self.statics = collide.Statics(np.zeros((0, 2)), np.zeros((0, 2)), [], [], [], [], [])
        self.zones = []
        self.spawners = []
        self.joints = Joints()       # rods, ropes, pins and motors (game.physics.joints)
        self.joint_breaks = np.zeros((0, 2))   # where joints broke in the last tick (m), for the game
        self.joints_broken = 0       # joints broken since the world was made
        self.break_log = []          # [(time s, x, y)] of the last BREAK_LOG breaks (the game's sparks)
        self.grid = None
        self._candidates = None
        self._sleep = Sleep()        # which balls sleep (game.physics.sleep); a new world starts awake
        self._sleep_causes = None    # the forces and statics the sleepers fell asleep under
        self._awake_ids = None       # (ids, awake indices, their ids) while the awake set stays (_only)
        self._far_cache = None       # (bounds, lo, hi, lo.max(), hi.min()): _far_limits' box for those bounds
        self._tick_rest = None       # (N,) bool: the balls the last one-call tick of the whole world left resting
        self._clear_debug()
        if execution == "compiled":
            self.use_compiled(compiled if compiled is not None else loader.load())

    # ----------------------------------------------------------------- building
    @classmethod
    def from_level(cls, level, execution="compiled", compiled=None):
        """A world built from a normalised level definition: what ``game.level`` loads or
        ``game.level.complete`` returns. Every key is read as it is; nothing is filled in here
        (the level package's DEFAULTS is the one table of defaults)."""
        level = copy.deepcopy(level)
        w = cls(gravity=level["gravity"], integrator=level["integrator"], substeps=level["substeps"],
                drag=level["drag"], bounds=level["bounds"], material=level["material"], execution=execution,
                compiled=compiled)
        w.level = level
        w.name = level["name"]
        w.description = level["description"]
        w._build_statics(level)
        w.add_balls(level["balls"])
        for spring in level["springs"]:
            w.add_spring(spring["a"], spring["b"], spring["stiffness"], spring["damping"], spring["rest"])
        w.joints.add(level.get("joints", []))
        w.zones = [Zone.from_definition(z) for z in level["zones"]]
        w.forces.attractors = [z for z in w.zones if z.kind == "attractor"]
        w.spawners = [_Spawner(s) for s in level["spawners"]]
        w._rebuild_grid()
        return w

    def _build_statics(self, level):
        a, b, radius, rest, fric, roll, poly = [], [], [], [], [], [], []

        gx, gy = (float(v) for v in self.forces.gravity)

        def add(p, q, shape, polygon=-1):
            # Walls have a right side: a centre that starts on a wall's core leaves along the
            # core's left normal (-dy, dx) (collide.ball_static_geometry), so each wall runs so
            # that this normal does not point with gravity. Polygon edges keep their winding.
            dx, dy = q[0] - p[0], q[1] - p[1]
            if polygon < 0 and dx * gy - dy * gx > 0:
                p, q = q, p
            a.append(p)
            b.append(q)
            radius.append(float(shape["radius"]))
            rest.append(float(shape["restitution"]))
            fric.append(float(shape["friction"]))
            roll.append(float(shape["rolling"]))
            poly.append(polygon)

        for seg in level["segments"]:
            add(seg["a"], seg["b"], seg)
        for line in level["polylines"]:
            points = line["points"]
            ends = list(zip(points[:-1], points[1:]))
            if line["closed"] and len(points) > 2:
                ends.append((points[-1], points[0]))
            for p, q in ends:
                add(p, q, line)
        self.polygons = []
        for shape in level["polygons"]:
            points = np.asarray(shape["points"], float)     # convex, counter-clockwise
            index = len(self.polygons)
            self.polygons.append(points)
            edge = dict(shape, radius=0.0)
            for k in range(len(points)):
                add(points[k], points[(k + 1) % len(points)], edge, index)
        self.statics = collide.Statics(np.asarray(a, float).reshape(-1, 2), np.asarray(b, float).reshape(-1, 2),
                                       radius, rest, fric, poly, self.polygons, roll)

    def _rebuild_grid(self):
        """Choose the broad-phase cell (the largest ball diameter or more) and bin the statics.

        The grid covers the level's bounds and statics; balls beyond it share its edge cells.
        """
        biggest = float(self.radius.max()) if len(self.radius) else defaults.BALL_RADIUS
        boxes = [self.bounds.reshape(2, 2)]
        if len(self.statics):
            boxes.append(self.statics.box[:, :2])
            boxes.append(self.statics.box[:, 2:])
        everything = np.vstack(boxes)
        lo, hi = everything.min(axis=0), everything.max(axis=0)
        span = np.maximum(hi - lo, MIN_CELL)
        cell = max(2.0 * biggest, float(np.sqrt(span[0] * span[1] / collide.MAX_GRID_CELLS)),
                   float(span.max()) / MAX_CELLS_ACROSS, MIN_CELL)
        # Long or fat statics in a big level would list millions of (cell, capsule) entries:
        # the cell grows until binning is bounded in time and memory.
        while self.statics.entries(cell) > collide.MAX_STATIC_ENTRIES:
            cell *= 1.25
        self.grid = collide.Grid(cell, lo, hi)
        self.statics.bin(self.grid)

    @property
    def grid_cell(self):
        return self.grid.cell

    @property
    def grid_origin(self):
        return self.grid.origin

    # -------------------------------------------------------------- execution
    @property
    def execution(self):
        """"compiled" while the numba twins run this world's steps, else "numpy"."""
        return "numpy" if self._compiled is None else "compiled"

    def use_compiled(self, compiled):
        """Run the compiled kernels from the next sub-step on (``compiled``: what
        game.physics.compiled.loader.load returned; None: the numpy execution). The same
        bits either way, so a world may switch while it runs."""
        self._compiled = compiled
        self.solver.kernels = None if compiled is None else compiled.kernels

    @property
    def _kernels(self):
        return self.solver.kernels

    # ------------------------------------------------------------------ balls
    @property
    def count(self):
        return len(self.pos)

    def add_ball(self, pos, vel=(0.0, 0.0), radius=None, density=None, mass=None,
                 restitution=None, friction=None, spin=None, rolling=None):
        """Add a ball; returns its index. Mass is ``mass`` if given, else density * pi r^2;
        ``spin`` in rad/s, counter-clockwise."""
        self.add_balls([{"pos": pos, "vel": vel, "radius": radius, "density": density, "mass": mass,
                         "restitution": restitution, "friction": friction, "spin": spin,
                         "rolling": rolling}])
        return self.count - 1

    def add_balls(self, balls):
        """Add many balls at once from level-style dicts (pos, and optional vel, angle (rad), spin (rad/s),
        radius, density or mass, restitution, friction, rolling); missing values take the
        level's material. A ball is a uniform disc: moment of inertia m r^2 / 2."""
        if not balls:
            return
        mat = self.material

        def column(key, default):
            return np.array([default if b.get(key) is None else b[key] for b in balls], float)

        radius = column("radius", defaults.BALL_RADIUS)
        density = column("density", mat["density"])          # the material is complete (__init__)
        mass = np.array([b["mass"] if b.get("mass") is not None else rho * math.pi * r * r
                         for b, rho, r in zip(balls, density, radius)], float)
        self.pos = np.vstack((self.pos, np.array([b["pos"] for b in balls], float).reshape(-1, 2)))
        self.vel = np.vstack((self.vel, np.array([(0.0, 0.0) if b.get("vel") is None else b["vel"]
                                                  for b in balls], float).reshape(-1, 2)))
        self.angle = np.concatenate((self.angle, column("angle", 0.0)))
        self.spin = np.concatenate((self.spin, column("spin", defaults.BALL_SPIN)))
        self.radius = np.concatenate((self.radius, radius))
        self.inv_mass = np.concatenate((self.inv_mass, 1.0 / mass))
        self.inv_inertia = np.concatenate((self.inv_inertia, 2.0 / (mass * radius * radius)))
        self.restitution = np.concatenate((self.restitution, column("restitution", mat["restitution"])))
        self.friction = np.concatenate((self.friction, column("friction", mat["friction"])))
        self.rolling = np.concatenate((self.rolling, column("rolling", mat["rolling"])))
        self.ids = np.concatenate((self.ids, np.arange(self._next_id, self._next_id + len(balls))))
        self._next_id += len(balls)
        self._sleep.grow(len(balls))
        if self.grid is not None and 2.0 * radius.max() > self.grid.cell:
            self._rebuild_grid()

    def remove_balls(self, indices):
        """Remove balls by index (or boolean mask); springs attached to them go with them."""
        gone = np.zeros(self.count, bool)
        gone[np.asarray(indices).reshape(-1)] = True
        if not gone.any():
            return
        keep = ~gone
        self._wake_around(gone)
        self._sleep.keep(keep)
        new_index = np.full(self.count, -1, np.int64)
        new_index[keep] = np.arange(int(keep.sum()))
        for name in BALL_ARRAYS:
            setattr(self, name, getattr(self, name)[keep])
        self.forces.springs.remap_balls(new_index)
        self.joints.remap_balls(new_index)

    def take_ball(self, index):
        """Remove ball ``index`` (its springs go with it) and return a BallRecord of all the
        world held for it: the undo of a delete is ``put_back``. The grab's springs are not
        part of a ball (the grab ends with the delete) and are left out."""
        index = int(index)
        springs = self.forces.springs
        grabbed = {int(i) for grab in self.grabs.values() for i in grab.spring_ids}
        kept = []
        for k in np.flatnonzero((springs.a == index) | (springs.b == index)).tolist():
            if int(springs.ids[k]) in grabbed:
                continue
            row = springs.row(k)
            b = int(row["b"])                              # ball indices become ball ids
            row["a"], row["b"] = int(self.ids[row["a"]]), int(self.ids[b]) if b >= 0 else -1
            kept.append(row)
        record = BallRecord({name: np.array(getattr(self, name)[index], copy=True) for name in BALL_ARRAYS}, kept,
                            self.joints.rows(index, self.ids))
        self.remove_balls([index])
        return record

    def put_back(self, record):
        """Re-insert the ball of ``record`` (from take_ball) with its id, state to the bit and
        springs; returns its index. Balls and springs go back at their place in id order (ids
        only grow, so arrays ordered by id stay so): a delete and its undo leave the world as
        it was. A spring whose other ball has gone since is not restored.
        ValueError if a ball with its id is in the world already."""
        ball_id = record.ball_id
        if np.any(self.ids == ball_id):
            raise ValueError(f"ball id {ball_id} is in the world already")
        at = int(np.searchsorted(self.ids, ball_id)) if np.all(self.ids[1:] > self.ids[:-1]) else self.count
        for name in BALL_ARRAYS:
            setattr(self, name, np.insert(getattr(self, name), at, record.rows[name], axis=0))
        self._sleep.insert(at)                 # awake: what it touches wakes at the next tick
        springs = self.forces.springs
        springs.shift_balls(at)
        self.joints.shift_balls(at)            # (the ball's own joints come back below)
        for row in record.springs:
            a = np.flatnonzero(self.ids == row["a"])
            b = np.flatnonzero(self.ids == row["b"]) if row["b"] >= 0 else np.array([-1])
            if len(a) and len(b):              # else its other ball is gone: nothing to hang on
                springs.insert(dict(row, a=a[0], b=b[0]))
                self.wake([a[0]] + ([b[0]] if b[0] >= 0 else []))
        self.joints.insert_rows(record.joints, self.ids)
        if self.grid is not None and 2.0 * float(record.rows["radius"]) > self.grid.cell:
            self._rebuild_grid()               # as add_balls does for a ball this big
        return at

    def ball_at(self, point):
        """Index of the ball containing ``point`` (the nearest centre wins), -1 if none."""
        if self.count == 0:
            return -1
        d = self.pos - np.asarray(point, float)
        dist2 = np.einsum("ij,ij->i", d, d)
        k = int(np.argmin(dist2 - self.radius ** 2))
        return k if dist2[k] <= self.radius[k] ** 2 else -1

    # ---------------------------------------------------------------- springs
    @property
    def springs(self):
        return self.forces.springs

    def add_spring(self, a, b, stiffness=defaults.SPRING_STIFFNESS, damping=defaults.SPRING_DAMPING, rest=None):
        """A spring from ball ``a`` to ball ``b`` or to an anchor point ``b = (x, y)``; returns its index.

        ``rest`` defaults to the current distance between the ends.
        """
        if isinstance(b, (int, np.integer)):
            b_index, anchor = int(b), self.pos[int(b)]
        else:
            b_index, anchor = -1, np.asarray(b, float)
        if rest is None:
            rest = float(np.linalg.norm(self.pos[int(a)] - anchor))
        self.wake([int(a)] + ([b_index] if b_index >= 0 else []))     # a new force on them
        return self.springs.add(a, b_index, anchor, stiffness, damping, rest)

    def remove_spring(self, k):
        self._wake_springs(k)
        keep = np.ones(len(self.springs), bool)
        keep[k] = False
        self.springs.keep(keep)

    def set_anchor(self, k, point):
        self._wake_springs(k)
        self.springs.anchor[k] = np.asarray(point, float)

    def _wake_springs(self, k):
        """Wake the balls of springs ``k`` (an index, indices or a mask): their force changes."""
        s = self.springs
        b = np.asarray(s.b[k]).reshape(-1)
        self.wake(np.concatenate((np.asarray(s.a[k]).reshape(-1), b[b >= 0])))

    # -------------------------------------------------------------- integrator
    @property
    def integrator(self):
        return self._integrator

    @integrator.setter
    def integrator(self, name):
        if name not in INTEGRATORS:
            raise ValueError(f"unknown integrator {name!r}; expected one of {', '.join(INTEGRATORS)}")
        self._integrator = name

    @property
    def substeps(self):
        """Sub-steps per tick (``solver.options.substeps``)."""
        return self.solver.options.substeps

    @substeps.setter
    def substeps(self, count):
        self.solver.options.substeps = int(count)

    # ------------------------------------------------------------------- step
    def step(self, dt=TICK):
        """Advance one fixed tick of ``dt`` seconds in ``substeps`` sub-steps.

        Pass the same dt every call (a fixed time step): the contact tuning assumes it, and
        a frame's wall-clock time must never reach here. Sleeping islands (game.physics.sleep) are
        left out of the tick until something wakes them.
        """
        self._impact_points, self._impact_speeds = [], []
        self._tick_rest = None
        kernels = self._kernels
        # A world that blows up (Euler on a stiff spring) overflows to inf and NaN: that is
        # the lesson on screen, not a warning for the console.
        with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
            # Sleeping islands stay out of the tick; wake those something reaches first.
            awake = self._wake_reached(dt, kernels)
            moving = awake is None or awake.any()
            before = self.pos.copy() if moving and self.solver.options.sleeping else None
            if awake is None:
                self._tick(dt, kernels)
            elif moving:
                with self._only(awake):
                    self._tick(dt, kernels)
            else:
                self._clear_debug()          # every ball sleeps: nothing moves
            if before is not None:
                # The one-call tick of the whole world found which balls rest (sleep.resting).
                rest = self._tick_rest if awake is None else None
                self._sleep.settle(before, bundles.world_balls(self), self.springs, self.statics, dt,
                                   self.forces.gravity, self.grid, kernels, rest)
        self.time += dt
        self._run_spawners(dt)
        self._apply_kill_zones()
        self._remove_far_balls()
        self.impact_points = np.concatenate(self._impact_points) if self._impact_points else np.zeros((0, 2))
        self.impact_speeds = np.concatenate(self._impact_speeds) if self._impact_speeds else np.zeros(0)

    # ---------------------------------------------------------- crossings
    def crossing_mark(self):
        """What ``count_crossings`` compares a tick's end with: (ids, pos, vel) copies now."""
        return self.ids.copy(), self.pos.copy(), self.vel.copy()

    def count_crossings(self, mark, dt=TICK):
        """Count in ``crossed`` the balls whose centre went through a static since ``mark``
        (``crossing_mark``, taken one tick of ``dt`` before): a thin wall's or a stadium's
        core either way, a polygon's edge inwards, inside the bounds or not. The solver never
        lets one (Solver.keep_sides); this check says so if one does (issue 28). It is the
        caller's (headless runs it after each step, out of the step's time; the game does
        not pay for it).

        The path is taken as the straight line from the mark to now, and a crossing counts
        where that line meets a core farther from its ends than the ball may have gone in
        the tick (the line, plus its speeds at both ends times dt, plus its radius): a fast
        ball may have gone round a wall's end. The statics looked at are those listed in
        the ball's cell now and at the mark."""
        ids, start, v0 = mark
        if self.count == 0 or len(self.statics) == 0 or len(ids) == 0:
            return
        # The balls of the mark still here, matched by id.
        order = np.argsort(ids, kind="stable")
        at = order[np.minimum(np.searchsorted(ids, self.ids, sorter=order), len(ids) - 1)]
        here = np.nonzero(ids[at] == self.ids)[0]
        if len(here) == 0:
            return
        at = at[here]
        p0, p1 = start[at], self.pos[here]
        d = p1 - p0
        moved = np.nonzero((d[:, 0] != 0.0) | (d[:, 1] != 0.0))[0]
        if len(moved) == 0:
            return
        here, p0, p1, v0 = here[moved], p0[moved], p1[moved], v0[at[moved]]
        ball, s = self.statics.candidates(np.concatenate((p1, p0)))
        ball = ball % len(here)
        if len(ball) == 0:
            return
        st = self.statics
        a, b, q0, q1 = st.a[s], st.b[s], p0[ball], p1[ball]
        came_from = geometry.side(a, b, q0)
        now = geometry.side(a, b, q1)
        side_a = geometry.side(q0, q1, a)
        side_b = geometry.side(q0, q1, b)
        edge = st.polygon[s] >= 0
        crossed = (side_a * side_b <= 0) & np.where(edge, (came_from < 0) & (now > 0), came_from * now < 0)
        if not crossed.any():
            return
        k = np.nonzero(crossed)[0]
        ball, a, b, q0, q1 = ball[k], a[k], b[k], q0[k], q1[k]
        with np.errstate(invalid="ignore", divide="ignore"):   # 0 / 0: along the core, not across
            t = side_a[k] / (side_a[k] - side_b[k])          # where on a -> b the line meets it
        length = np.sqrt(((b - a) ** 2).sum(axis=1))
        e = here[ball]
        reach = (np.sqrt(((q1 - q0) ** 2).sum(axis=1)) + self.radius[e]
                 + dt * (np.sqrt((v0[ball] ** 2).sum(axis=1)) + np.sqrt((self.vel[e] ** 2).sum(axis=1))))
        inner = (np.minimum(t, 1.0 - t) * length > reach)
        self.crossed += len(np.unique(e[inner]))

    def _tick(self, dt, kernels):
        """The sub-steps of one tick: one compiled call, or sub-step by sub-step."""
        substeps = self.substeps
        h = dt / substeps
        if self._fused(kernels):
            self._tick_compiled(dt, self._compiled.tick)
        else:
            self.joints.prepare(CONTACT_WEIGHT[self._integrator] * h)
            for k in range(substeps):
                self._substep(self.time + k * h, h, dt, last=k == substeps - 1)
            self._break_joints(dt)

    def _break_joints(self, dt):
        """Remove the joints whose force this tick exceeded their break force; their places
        go to ``joint_breaks`` (the game shows and counts them)."""
        self.joint_breaks = np.zeros((0, 2))
        if not len(self.joints):
            return
        broken = self.joints.broken()
        if broken.any():
            end_a, end_b = self.joints.ends(self.pos, self.angle)
            self.joint_breaks = (0.5 * (end_a + end_b))[broken]
            self.break_log = (self.break_log + [(self.time + dt, float(x), float(y))
                                                for x, y in self.joint_breaks.tolist()])[-BREAK_LOG:]
            self.joints_broken += int(broken.sum())
            self.joints.keep(~broken)

    # --------------------------------------------------------------- sleeping
    @property
    def sleeping(self):
        """(N,) bool: the balls asleep now (game.physics.sleep): at rest, left out of the tick."""
        return self._sleep.asleep.copy()

    def sleeping_contacts(self, slop=SLEEP_CONTACT_SLOP):
        """(points (C, 2) m, offsets (C, 2) m) of the contacts of the sleeping balls, for
        the debug layer (the tick leaves sleeping islands out, so its contacts hold none of
        theirs): every pair of sleeping balls, and every sleeping ball and static shape,
        nearer than touching plus ``slop`` of the ball's radius (a pile at rest is held a
        hair apart by its soft contacts). Points and offsets as contact_points and
        contact_offsets give them. Computed afresh from the positions, by numpy, and kept
        while the sleeping balls stay where they are (a pile asleep costs it once); reads
        the world, never writes it."""
        empty = (np.zeros((0, 2)), np.zeros((0, 2)))
        k = np.flatnonzero(self._sleep.asleep) if len(self._sleep) == self.count else np.zeros(0, np.int64)
        key = (self.count, hash(k.tobytes()), hash(self.pos[k].tobytes()), id(self.statics))
        cached = getattr(self, "_sleeping_contacts", None)
        if cached is not None and cached[0] == key:
            return cached[1]
        if len(k) == 0:
            self._sleeping_contacts = (key, empty)
            return empty
        pos, radius = self.pos[k], self.radius[k]
        margin = slop * radius
        i, j, si, s = collide.find_candidates(pos, pos, radius, self.grid, self.statics, margin)
        points, offsets = [], []
        if len(i):
            d = pos[i] - pos[j]
            dist = np.sqrt(np.einsum("ij,ij->i", d, d))
            depth = radius[i] + radius[j] - dist
            near = depth > -(margin[i] + margin[j])
            with np.errstate(invalid="ignore", divide="ignore"):
                n = np.where((dist > 0)[:, None], d / dist[:, None], np.array((0.0, 1.0)))
            i, n, depth = i[near], n[near], depth[near]
            points.append(pos[i] - n * (radius[i] - depth)[:, None])
            offsets.append(n * np.maximum(depth, 0.0)[:, None])
        if len(si):
            n, depth = collide.ball_static_geometry(pos, pos, radius, self.statics, si, s)
            collide.polygon_insides(pos, radius, self.statics, si, s, n, depth)
            near = depth > -margin[si]
            si, n, depth = si[near], n[near], depth[near]
            points.append(pos[si] - n * (radius[si] - depth)[:, None])
            offsets.append(n * np.maximum(depth, 0.0)[:, None])
        out = (np.concatenate(points), np.concatenate(offsets)) if points else empty
        self._sleeping_contacts = (key, out)
        return out

    def wake(self, balls=None):
        """Wake balls (indices or an (N,) bool mask; None: all) with their whole islands."""
        if balls is None:
            self._sleep.wake_all()
        elif len(self._sleep):
            self._sleep.wake(balls)

    def _sleep_causes_now(self):
        """What a sleeping ball rests under: gravity, drag, the integrator, the attractors and
        the statics (a change to any wakes every ball)."""
        f = self.forces
        return (tuple(float(v) for v in f.gravity), float(f.drag), self._integrator, self.statics,
                tuple((z, float(z.strength), tuple(float(v) for v in np.ravel(z.center))) for z in f.attractors))

    def _wake_reached(self, dt, kernels):
        """Before a tick: wake every sleeping island whose causes changed (forces, statics,
        sleeping switched off), a ball of which someone moved or set going, or that an awake
        ball could reach this tick. Returns the (N,) bool awake balls, or None when all are."""
        s = self._sleep
        if len(self.joints):
            # Jointed balls do not sleep yet (the sleeping islands know springs, not joints):
            # a world with joints steps whole.
            s.wake_all()
            return None
        causes = self._sleep_causes_now() if self.solver.options.sleeping else None
        if causes is None or causes != self._sleep_causes:
            s.wake_all()
            self._sleep_causes = causes
        if not s.any():
            return None
        s.wake(s.edited(self.pos, self.vel, self.spin))
        s.wake(reached(self.pos, self.vel, self.radius, ~s.asleep, s.asleep, dt, self.forces.gravity,
                       self.grid, kernels))
        return ~s.asleep if s.any() else None

    def _wake_around(self, gone):
        """Balls ``gone`` (N,) bool are leaving: their sleeping islands wake, and so do the
        sleeping balls they could reach (what rested on them)."""
        s = self._sleep
        if not s.any():
            return
        s.wake(gone)
        if self.grid is None:
            s.wake_all()
            return
        s.wake(reached(self.pos, self.vel, self.radius, gone, s.asleep & ~gone, TICK, self.forces.gravity,
                       self.grid, self._kernels))

    @contextlib.contextmanager
    def _only(self, awake):
        """Step only the ``awake`` (N,) bool balls: the ball arrays and the springs become
        theirs for the block, and their pos, vel, angle and spin go back into the whole
        arrays after it. The awake ids array is kept while the awake set is the same, so
        the candidate pairs found for it are kept too (_candidates_kept)."""
        index = np.flatnonzero(awake)
        whole = {name: getattr(self, name) for name in BALL_ARRAYS}
        kept = self._awake_ids
        if kept is not None and kept[0] is whole["ids"] and np.array_equal(kept[1], index):
            ids = kept[2]
        else:
            ids = whole["ids"][index]
            self._awake_ids = (whole["ids"], index, ids)
        springs = self.forces.springs
        for name in BALL_ARRAYS:
            setattr(self, name, whole[name][index])
        self.ids = ids
        if len(springs):
            # A spring's two balls are one island: both awake, or both asleep and left out.
            new_index = np.full(len(awake), -1, np.int64)
            new_index[index] = np.arange(len(index))
            part = copy.copy(springs)
            part.remap_balls(new_index)
            self.forces.springs = part
        try:
            yield
        finally:
            moved = [getattr(self, name) for name in ("pos", "vel", "angle", "spin")]
            for name in BALL_ARRAYS:
                setattr(self, name, whole[name])
            self.forces.springs = springs
            for name, part in zip(("pos", "vel", "angle", "spin"), moved):
                full = whole[name].copy()
                full[index] = part
                setattr(self, name, full)

    def _substep(self, t, h, dt, last=True):
        if self.count == 0:
            self._clear_debug()
            return
        kernels = self._kernels
        threshold = self.solver.options.restitution_threshold
        prev, prev_vel = self.pos.copy(), self.vel.copy()
        # 1. Integrate gravity, drag, springs and attractors with the chosen integrator.
        self._integrate(t, h, kernels)
        acceleration = (self.vel - prev_vel) * (1.0 / h)    # m/s^2, what the forces did
        # 2. Sweep fast balls against the statics: stop them at the first touch.
        fast, hits = collide.sweep(prev, self.pos, self.vel, self.radius, self.restitution,
                                   self.friction, self.statics, kernels, threshold)
        # 3. Collide: candidate pairs once a tick, their normals and depths afresh now.
        h_move = CONTACT_WEIGHT[self._integrator] * h
        candidates = self._find_candidates(prev, dt, kernels)
        if len(self.joints):
            candidates = self.joints.unjoined(candidates, self.count)     # jointed balls do not collide
        contacts = self.solver.prepare(self, candidates, prev, h_move, acceleration)
        # 4. Respond: impacts, then the soft step, colour by colour.
        solved_from = self.pos.copy()
        self.solver.solve(self, contacts, h, h_move)
        # 4b. Joints: warm start, soft passes, relax (game.physics.joints), after the contacts.
        compiled = self._compiled
        self.joints.substep(self, h, h_move, compiled.joints.substep_kernel if compiled is not None and compiled.joints is not None
                            else joints_numpy, self.solver.options.warm_start)
        # An impact can send a light ball further than its contacts looked (a fast heavy
        # ball hit it), so the solver's moves are swept against the statics too.
        collide.sweep(solved_from, self.pos, self.vel, self.radius, self.restitution, self.friction,
                      self.statics, kernels, threshold)
        # No centre stays across a static's core it touches (a wedge, a pile on a thin floor).
        self.solver.keep_sides(self, contacts, prev)
        # 5. Events: impacts for sound and debug drawing.
        self._record(contacts, prev, fast, hits, last)

    def _fused(self, kernels):
        """Whether this tick runs as one compiled call (game.physics.compiled.step.tick): the kernels
        and the tick are loaded, the integrator has compiled steppers (every force: gravity,
        drag, springs, the grab, attractors), and there are balls and no polygons (their
        insides are pushed out by numpy)."""
        return (kernels is not None and self._compiled is not None and self._compiled.tick is not None and self.count > 0 and self.grid is not None
                and self._integrator in kernels.UNIFORM_STEPPERS and self._integrator in kernels.FORCE_STEPPERS
                and not self.polygons and self.substeps > 0
                # The one-call tick does not know joints yet: a world with joints runs
                # sub-step by sub-step (the kernels, and the joints' own after the contacts).
                and not len(self.joints))

    def ticks_in_one_call(self):
        """Whether the next tick runs as one compiled call (``_fused``): game.app.loop then steps the
        world on a worker thread while it draws the frame before."""
        return self._fused(self._kernels)

    def _tick_compiled(self, dt, fused):
        """All the sub-steps of a tick in one call of ``fused.tick`` (game.physics.compiled.step):
        _substep's phases, the same kernels in the same order with the same arguments, so the
        same bits; what goes is the Python and numpy glue between the kernels."""
        substeps = self.substeps
        h = dt / substeps
        h_move = CONTACT_WEIGHT[self._integrator] * h
        balls = bundles.contiguous(bundles.world_balls(self))
        # As _integrate chooses: the uniform stepper, or the stepper under the whole field.
        stepper = fused.STEPPERS.index(self._integrator)
        speed2, way2 = rest_limits(dt)
        step = StepConstants(substeps=int(substeps), h=float(h), dt=float(dt), h_move=float(h_move),
                             uniform=bool(self.forces.uniform), stepper=int(stepper),
                             kind=int(fused.FORCE_KINDS[stepper]), ccd_fraction=float(collide.CCD_FRACTION),
                             impact_speed=float(collide.IMPACT_SPEED), contact_margin=float(collide.CONTACT_MARGIN),
                             max_margin_cells=float(collide.MAX_MARGIN_CELLS), rest_speed2=float(speed2),
                             rest_way2=float(way2))
        found = self._candidates_kept()
        if found is not None:
            found_at, margin = self._found_at, self._margin
        else:
            none = np.zeros(0, np.int64)
            found, found_at, margin = (none, none, none, none), np.zeros((0, 2)), np.zeros(0)
        r = fused.tick(balls, self.forces.packed(), bundles.statics(self.statics), bundles.grid_frame(self.grid),
                       step, contact_params(h_move), solve_params(self.solver.options, h, h_move), found, found_at,
                       margin, self.solver._warm)
        self.pos, self.vel, self.angle, self.spin, self._tick_rest = r.pos, r.vel, r.angle, r.spin, r.resting
        self._candidates, self._found_at, self._margin = (self.ids, self.grid, r.found), r.found_at, r.margin
        self.solver._warm = r.warm
        if len(r.speeds):
            self._impact_points.append(r.points)
            self._impact_speeds.append(r.speeds)
        self._last_contacts = (Contacts(self.count, r.contacts), self.pos, self.radius)
        self.swept_from = r.prev[r.fast]
        self.swept_to = self.pos[r.fast]
        self.swept_hit = r.hits

    def _candidates_kept(self):
        """The candidate pairs found last, while the balls and the grid are the ones they were
        found for (the ids array is a new one whenever balls come or go), else None."""
        c = self._candidates
        return c[2] if c is not None and c[0] is self.ids and c[1] is self.grid else None

    def _find_candidates(self, prev, dt, kernels):
        """The pairs that could touch: found for every pair that could close within a tick
        (each ball's margin is the way it goes in a tick at its present speed, plus a slop),
        and kept from sub-step to sub-step and tick to tick until some ball has gone further
        than its margin from where they were found (a collision sped it up, it fell on) or
        the balls changed. Any complete list gives the same contacts: this only saves work."""
        kept = self._candidates_kept()
        if kept is not None:
            moved = self.pos - self._found_at
            if np.all(moved[:, 0] * moved[:, 0] + moved[:, 1] * moved[:, 1] < self._margin * self._margin):
                return kept
        speed = np.sqrt(self.vel[:, 0] * self.vel[:, 0] + self.vel[:, 1] * self.vel[:, 1])
        margin = np.minimum(speed * dt + collide.CONTACT_MARGIN * self.radius, collide.MAX_MARGIN_CELLS * self.grid.cell)
        found = collide.find_candidates(self.pos, prev, self.radius, self.grid, self.statics, margin, kernels)
        self._candidates, self._found_at, self._margin = (self.ids, self.grid, found), self.pos.copy(), margin
        return found

    def _integrate(self, t, h, kernels):
        """Advance (pos, vel) by h under the forces with the chosen integrator, and the angle
        by h * spin: no force makes a torque, so the spin is constant between contacts and
        every integrator advances the angle exactly. With the kernels, the compiled twin of
        the integrator does it (the same bits as the numpy stepper)."""
        self.angle = self.angle + h * self.spin
        if kernels is not None and self.forces.uniform and self._integrator in kernels.UNIFORM_STEPPERS:
            # The same stepper, compiled, for the common case a = gravity - drag v.
            g = self.forces.gravity
            kernels.UNIFORM_STEPPERS[self._integrator](self.pos, self.vel, float(g[0]), float(g[1]),
                                                       self.forces.drag, h)
            return
        if kernels is not None and self._integrator in kernels.FORCE_STEPPERS:
            # The same stepper, compiled, under springs (the grab's too) and attractors.
            kernels.FORCE_STEPPERS[self._integrator](self.pos, self.vel, self.inv_mass, h, self.forces.packed())
            return
        inv_mass = self.inv_mass
        acceleration = self.forces.acceleration

        def f(t, y):
            dy = np.empty_like(y)          # (x, v)' = (v, a): cheaper than np.stack
            dy[0] = y[1]
            dy[1] = acceleration(y[0], y[1], inv_mass, t)
            return dy

        y = np.empty((2,) + self.pos.shape)
        y[0], y[1] = self.pos, self.vel
        y = INTEGRATORS[self._integrator](f, t, y, h)
        self.pos = np.ascontiguousarray(y[0])
        self.vel = np.ascontiguousarray(y[1])

    def _record(self, contacts, prev, fast, hits, last):
        loud = np.nonzero(contacts.approach > collide.IMPACT_SPEED)[0]
        if len(loud):
            self._impact_points.append(contacts.points(self.pos, self.radius, loud))
            self._impact_speeds.append(contacts.approach[loud])
        if last:  # debug drawing shows the tick's last sub-step
            self._last_contacts = (contacts, self.pos, self.radius)
            self.swept_from = prev[fast]
            self.swept_to = self.pos[fast]
            self.swept_hit = hits

    @property
    def contact_points(self):
        """(C, 2) touch points of the last sub-step's contacts (debug drawing)."""
        if self._last_contacts is None:
            return np.zeros((0, 2))
        contacts, pos, radius = self._last_contacts
        return contacts.points(pos, radius)

    @property
    def contact_offsets(self):
        """(C, 2) their offset vectors: the normal times the overlap found (0 where only touching)."""
        if self._last_contacts is None:
            return np.zeros((0, 2))
        c = self._last_contacts[0]
        depth = np.maximum(c.depth, 0.0)
        return np.stack((c.nx * depth, c.ny * depth), axis=1)

    def _clear_debug(self):
        empty = np.zeros((0, 2))
        self._last_contacts = None
        self.swept_from = self.swept_to = self.swept_hit = empty
        self.impact_points, self.impact_speeds = empty, np.zeros(0)

    def _run_spawners(self, dt):
        """Each spawner makes the balls its clock has come to; a ball waits while the
        jittered spot chosen for it is taken (only that spot is checked)."""
        for spawner in self.spawners:
            spawner.clock = min(spawner.clock + dt, spawner.every + spawner.MAX_BACKLOG)
            while spawner.ready():
                pos, vel, radius, density = spawner.next_ball()
                # A ball due part way through the tick has flown since then (this is what
                # spaces the balls of an `every` shorter than a tick along their path).
                pos = pos + vel * min(spawner.clock - spawner.every, dt)
                if self._occupied(pos, radius):
                    break                       # try the same spot next tick
                spawner.made_one()
                self.add_ball(pos, vel, radius=radius, density=density)

    def _occupied(self, point, radius):
        """Whether a ball overlaps the circle (a spawner waits until its spot is free)."""
        if self.count == 0:
            return False
        d = self.pos - point
        reach = self.radius + radius
        return bool(np.any(np.einsum("ij,ij->i", d, d) < reach * reach))

    def _apply_kill_zones(self):
        for zone in self.zones:
            if zone.kind == "kill" and self.count:
                inside = zone.contains(self.pos)
                if inside.any():
                    self.remove_balls(np.nonzero(inside)[0])

    def _remove_far_balls(self):
        """Remove balls beyond the level format's coordinates (defaults.COORDINATE_LIMIT) or
        more than ESCAPE_SPANS bounds' sizes outside the bounds, counting them as escaped: so
        every finite world saves as a valid level, and no far ball stretches the grid's work.
        Balls on springs stay (see blown_up)."""
        if self.count == 0:
            return
        lo, hi, inner_lo, inner_hi = self._far_limits()
        # Every tick, and nearly always nothing is far: two whole-array reductions say so in a
        # tenth of the time of the per-ball test below (a NaN position fails them and goes on
        # to that test, which keeps it, as it always did).
        if self.pos.min() >= inner_lo and self.pos.max() <= inner_hi:
            return
        far = np.any((self.pos < lo) | (self.pos > hi), axis=1)
        # A ball on a spring is held, not escaping: far, it is a blow-up (a stiff spring
        # under Euler) that blown_up() reports, not a ball to lose quietly.
        s = self.springs
        far[s.a] = False
        far[s.b[s.b >= 0]] = False
        j = self.joints                      # and a ball on a joint, as on a spring
        far[j.a] = False
        far[j.b[j.b >= 0]] = False
        if far.any():
            self.escaped_removed += int(far.sum())
            self.remove_balls(np.nonzero(far)[0])

    def _far_limits(self):
        """(lo (2,), hi (2,), lo.max(), hi.min()): the box beyond which a ball is far
        (_remove_far_balls), worked out again only when the bounds change (every tick it took
        more than the test it serves)."""
        key = tuple(self.bounds.tolist())
        cached = self._far_cache
        if cached is None or cached[0] != key:
            x0, y0, x1, y1 = key
            reach = ESCAPE_SPANS * max(x1 - x0, y1 - y0, MIN_CELL)
            lo = np.maximum((x0 - reach, y0 - reach), -defaults.COORDINATE_LIMIT)
            hi = np.minimum((x1 + reach, y1 + reach), defaults.COORDINATE_LIMIT)
            cached = self._far_cache = (key, lo, hi, lo.max(), hi.min())
        return cached[1:]

    # --------------------------------------------------------------- readings
    def energy(self):
        """Energies in joules: kinetic (of translation), rotational (discs: I w^2 / 2),
        gravitational (zero at y = 0 for gravity down), spring, and their total."""
        # A world that blew up has infinite energy: said on screen, never warned on stderr.
        with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
            mass = 1.0 / self.inv_mass
            kinetic = float(0.5 * np.sum(mass * np.einsum("ij,ij->i", self.vel, self.vel)))
            rotational = float(0.5 * np.sum(self.spin * self.spin / self.inv_inertia))
            gravitational, spring = self.forces.potential_energy(self.pos, mass)
        return {"kinetic": kinetic, "rotational": rotational, "gravitational": gravitational, "spring": spring,
                "total": kinetic + rotational + gravitational + spring}

    def view(self):
        """A copy of the world to draw while the world itself steps on (game.app.loop's two-core
        loop): its attributes shared, its numpy arrays, its sleep state and its springs copied
        (a step replaces some and writes others in place, and balls may come and go), so it
        shows the world as it was when taken. For reading only."""
        view = copy.copy(self)
        for name, value in vars(self).items():
            if isinstance(value, np.ndarray):
                setattr(view, name, value.copy())
        view._sleep = self._sleep.copy()
        # The springs as they are: a step with sleeping balls swaps the forces' springs for
        # the awake ones' (_only), and removing balls remaps them (new arrays each time).
        view.forces = copy.copy(self.forces)
        view.forces.springs = copy.copy(self.forces.springs)
        view.joints = copy.copy(self.joints)    # a step replaces its arrays when joints go
        return view

    def copy(self):
        """An independent world in the same state: every array, the sleep state, the springs
        and grabs (the same handles hold the same balls), the spawners' clocks and random
        streams, the solver's warm start and its candidate pairs, deep-copied; the same
        execution. Stepped alike, the two stay equal to the bit (the integrator lab, game.app.lab,
        steps a copy under another integrator). The compiled kernels are code, not state:
        shared, never copied."""
        shared = {id(self._compiled): self._compiled, id(self.solver.kernels): self.solver.kernels}
        return copy.deepcopy(self, memo=shared)

    def state_hash(self):
        """Hex SHA-256 of positions, velocities, angles and spins: equal states, equal hashes."""
        h = hashlib.sha256()
        for array in (self.pos, self.vel, self.angle, self.spin):
            h.update(np.ascontiguousarray(array, "<f8").tobytes())
        return h.hexdigest()

    def blown_up(self):
        """Whether the world has blown up (a stiff spring under Euler): some ball's position,
        velocity, angle or spin is not finite, or beyond what the level format holds (a ball a
        spring holds beyond its coordinates: free balls that far are removed as escaped; a
        velocity component beyond its speeds). A world that has not blown up saves as a
        valid level."""
        return not bool(np.isfinite(self.pos).all() and np.isfinite(self.vel).all()
                        and np.isfinite(self.angle).all() and np.isfinite(self.spin).all()
                        and (np.abs(self.pos) <= defaults.COORDINATE_LIMIT).all()
                        and (np.abs(self.vel) <= defaults.SPEED_LIMIT).all())

    def goal_progress(self):
        """(balls inside goal zones, balls wanted) or None if the level has no goal."""
        goals = [z for z in self.zones if z.kind == "goal"]
        if not goals:
            return None
        inside = sum(int(z.contains(self.pos).sum()) for z in goals)
        return inside, sum(z.count for z in goals)

    def crossings(self):
        """Times a ball's centre went through a wall, a stadium or into a polygon in a tick,
        inside the bounds or not (``count_crossings``): 0 is the solver's promise."""
        return int(self.crossed)

    def escaped(self):
        """Balls whose centre is outside ``bounds``, and those removed for going far beyond."""
        x0, y0, x1, y1 = self.bounds
        p = self.pos
        inside = (p[:, 0] >= x0) & (p[:, 0] <= x1) & (p[:, 1] >= y0) & (p[:, 1] <= y1)
        return int(np.sum(~inside)) + self.escaped_removed

    def max_overlap(self):
        """Deepest ball-ball or ball-static penetration now, in metres (0 if none)."""
        if self.count == 0:
            return 0.0
        found = collide.find_candidates(self.pos, self.pos, self.radius, self.grid, self.statics, 0.0,
                                        self._kernels)
        c = Solver().prepare(self, found, self.pos, 0.0)
        return float(max(0.0, c.depth.max())) if len(c) else 0.0

    def to_level(self):
        """The world as a level document: the level's statics, balls and springs as they are now.

        Every per-ball field is kept to the bit (position, velocity, angle, spin, radius, the
        mass that gives back inv_mass and inv_inertia exactly, restitution, friction,
        rolling), and the statics as the level gave them: a snapshot loaded and stepped
        steps as this world does (the spawners' clocks and the sleep of resting balls are
        not part of the format: a snapshot starts them afresh)."""
        level = copy.deepcopy(self.level)
        level["integrator"] = self.integrator
        mass = exact_masses(self.inv_mass, self.inv_inertia, self.radius)
        balls = []
        for k in range(self.count):
            balls.append({"pos": [float(v) for v in self.pos[k]], "vel": [float(v) for v in self.vel[k]],
                          "angle": float(self.angle[k]), "spin": float(self.spin[k]),
                          "radius": float(self.radius[k]), "mass": float(mass[k]),
                          "restitution": float(self.restitution[k]), "friction": float(self.friction[k]),
                          "rolling": float(self.rolling[k])})
        level["balls"] = balls
        s = self.springs
        level["springs"] = [{"a": int(s.a[k]),
                             "b": int(s.b[k]) if s.b[k] >= 0 else [float(v) for v in s.anchor[k]],
                             "stiffness": float(s.stiffness[k]), "damping": float(s.damping[k]),
                             "rest": float(s.rest[k])} for k in range(len(s))]
        level["joints"] = self.joints.definitions()
        # Spawners have done their work in the snapshot: the balls they made are in "balls".
        level["spawners"] = [dict(sp.definition, max=max(0, sp.max - sp.made)) for sp in self.spawners
                             if sp.max - sp.made > 0]
        return level

    # --------------------------------------------------------------- statics at run time
    def add_segments(self, segments):
        """Add static segments (normalised definitions: a, b, radius and the surface) to the
        running world, as a player draws them: the statics are built and binned again (the
        candidate pairs found afresh, every sleeping ball woken by the change) and the
        segments become part of ``to_level``."""
        self.level.setdefault("segments", []).extend(copy.deepcopy(list(segments)))
        self._statics_changed()

    def remove_segment(self, definition):
        """Take back the last static segment equal to ``definition``; False if there is none."""
        segments = self.level.get("segments", [])
        for k in range(len(segments) - 1, -1, -1):
            if segments[k] == definition:
                del segments[k]
                self._statics_changed()
                return True
        return False

    def _statics_changed(self):
        self.level.setdefault("polylines", [])
        self.level.setdefault("polygons", [])
        self._build_statics(self.level)
        self._rebuild_grid()
        self._candidates = None

    # ------------------------------------------------------------------- grabs
    @property
    def grabs(self):
        """{handle: game.physics.grab.Grab} of the grabs holding a ball now. A grab whose ball went
        (deleted, or a kill zone took it) has lost its springs with it and is dropped here."""
        table = self._grabs
        for handle in [h for h, g in table.items() if self.springs.index(g.spring_ids[0]) < 0]:
            del table[handle]
        return table

    def grab(self, ball, point):
        """Hold ball index ``ball`` at ``point`` (2,) metres with springs integrated like
        any other force (see game.physics.grab); returns a handle for move_grab and release."""
        mass = 1.0 / float(self.inv_mass[ball])
        stiffness, damping = grab_spring_constants(mass)
        spring_ids = []
        for anchor in grab_anchors(point):
            k = self.add_spring(int(ball), anchor, stiffness, damping, rest=GRAB_LEVER)
            spring_ids.append(int(self.springs.ids[k]))
        grabs = self.grabs
        handle = self.__dict__.get("_next_grab", 0)
        self._next_grab = handle + 1
        grabs[handle] = Grab(int(self.ids[ball]), tuple(spring_ids), np.array(point, float))
        return handle

    def move_grab(self, handle, point):
        """Pull the grabbed ball towards a new ``point`` (2,) metres; False if the grab is
        over (released, or its ball is gone)."""
        grab = self.grabs.get(handle)
        if grab is None:
            return False
        for spring_id, anchor in zip(grab.spring_ids, grab_anchors(point)):
            self.set_anchor(self.springs.index(spring_id), anchor)
        grab.point = np.array(point, float)
        return True

    def release(self, handle):
        """Let go: the grab's springs leave the world. Releasing twice does nothing."""
        grab = self.grabs.pop(handle, None)
        if grab is None:
            return
        keep = ~np.isin(self.springs.ids, grab.spring_ids)
        self._wake_springs(~keep)
        self.springs.keep(keep)

    def place_grabbed(self, handle, point):
        """Move the grab's point and put its ball there at rest: dragging while the world is
        paused, when no spring can pull it. False if the grab is over."""
        if not self.move_grab(handle, point):
            return False
        k = self.grabbed_ball(handle)
        self.pos[k] = np.asarray(point, float)
        self.vel[k] = 0.0
        return True

    def grabbed_ball(self, handle):
        """Index of the ball a grab holds now, -1 if the grab is over."""
        grab = self.grabs.get(handle)
        if grab is None:
            return -1
        where = np.flatnonzero(self.ids == grab.ball_id)
        return int(where[0]) if len(where) else -1


def exact_masses(inv_mass, inv_inertia, radius):
    """(N,) kg: for each ball a mass m that add_balls turns back into the same bits,
    1 / m == inv_mass and 2 / (m r^2) == inv_inertia. 1 / inv_mass is within two units in
    the last place of the mass the ball was made with, which is one such m: the nearest
    floats around it are tried (1 / inv_mass where none fits, as for a ball made otherwise)."""
    inv_mass = np.asarray(inv_mass, float)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        guess = 1.0 / inv_mass
        best = guess.copy()
        found = (1.0 / guess == inv_mass) & (2.0 / (guess * radius * radius) == inv_inertia)
        up, down = guess.copy(), guess.copy()
        for _ in range(4):
            up, down = np.nextafter(up, np.inf), np.nextafter(down, -np.inf)
            for m in (up, down):
                fits = ~found & (1.0 / m == inv_mass) & (2.0 / (m * radius * radius) == inv_inertia)
                best[fits] = m[fits]
                found |= fits
    return best


class _Spawner:
    """Makes a ball every ``every`` seconds at ``pos`` (moved by up to ``jitter`` in x and y)
    until it has made ``max``. Its clock carries the fraction of a period over from tick to
    tick, so ``every`` holds even when it is not a whole number of ticks."""

    MAX_BACKLOG = 0.25    # s: time owed beyond one period while the spot is taken is dropped

    def __init__(self, definition):
        self.definition = dict(definition)
        self.pos = np.asarray(definition["pos"], float)
        self.vel = np.asarray(definition["vel"], float)
        self.every = max(1e-3, float(definition["every"]))
        self.max = int(definition["max"])
        self.radius = float(definition["radius"])
        self.density = definition["density"]
        self.jitter = float(definition["jitter"])
        self.made = 0
        self.clock = 0.0      # s owed since the last ball
        self.spot = None      # (2,) m: where the next ball goes, chosen once
        # Deterministic jitter: the same level spawns the same balls every run.
        self.rng = np.random.default_rng(12345)

    def ready(self):
        return self.clock >= self.every and self.made < self.max

    def next_ball(self):
        """The next ball: (pos, vel, radius, density); the same until made_one()."""
        if self.spot is None:
            offset = self.rng.uniform(-self.jitter, self.jitter, 2) if self.jitter else 0.0
            self.spot = self.pos + offset
        return self.spot, self.vel, self.radius, self.density

    def made_one(self):
        self.clock -= self.every
        self.made += 1
        self.spot = None
