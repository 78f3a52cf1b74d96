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
import copy
import hashlib

import numpy as np

from game.physics import motor_keys
from game.physics import collide

from game import defaults
from game.physics.forces import Forces
from game.physics.integrators import INTEGRATORS
from game.physics.solver import EXECUTIONS, Solver, SolverOptions
from game.physics import sleep
from game.physics.sleep import Sleep
from game.physics.joints import Joints
from game.physics.compiled import loader
from game.physics import balls as ball_rows, debug, readings, resume, statics, step, zones
from game.physics import grab as grabbing
from game.physics import motion
from game.physics import bodies as bodies_module
from game.physics.bodies import Bodies
from game.physics.balls import BALL_ARRAYS
from game.physics.debug import SLEEP_CONTACT_SLOP
from game.physics.journal import journaled, unjournaled

from game.defaults import TICK  # s: the fixed tick the game steps with









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
        self.ticks = 0               # steps taken since the world was made (the journal's clock)
        self.journal = None          # game.physics.journal.Journal while the player's changes are written down
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
        self.motions = motion.Motions(np.zeros((0, 2)), np.zeros((0, 2)), [], [], [], [])
        self.statics_version = 0     # bumped whenever the statics' positions change (the renderer redraws)
        self.kicks, self.wall_work = 0, 0.0   # bumper kicks given; J the moving walls did on the balls
        self.zones = []
        self.spawners = []
        self.joints, self.bodies = Joints(), Bodies()   # rods, ropes, pins, motors; planks, boxes, polygons
        self.joint_breaks = np.zeros((0, 2))   # where joints broke in the last tick (m), for the game
        self.joints_broken = 0       # joints broken since the world was made
        self.motor_work = 0.0        # J: the work the joints' motors did on the balls since the world was made
        self.break_log = []          # [(time s, x, y)] of the last BREAK_LOG breaks (the game's sparks)
        self.grid = None
        self._candidates = self._kept = None     # the candidate pairs; a tick's kept contacts (step.keeps_contacts)
        self._sleep = Sleep()        # which balls sleep (game.physics.sleep); a new world starts awake
        self._sleep_causes = None    # the forces and statics the sleepers fell asleep under
        self._awake_ids = None       # (ids, awake indices, their ids) while the awake set stays (_only)
        self._far_cache = None       # (bounds, lo, hi, lo.max(), hi.min()): _far_limits' box for those bounds
        self._tick_rest = None       # (N,) bool: the balls the last one-call tick of the whole world left resting
        debug.clear(self)
        if execution == "compiled":
            self.use_compiled(compiled if compiled is not None else loader.load())

    # ----------------------------------------------------------------- building
    @classmethod
    def from_level(cls, level, execution="compiled", compiled=None):
        """A world built from a normalised level definition: what ``game.level`` loads or
        ``game.level.complete`` returns. Every key is read as it is; nothing is filled in here
        (the level package's DEFAULTS is the one table of defaults)."""
        level = copy.deepcopy(level)
        memory = level.pop("_resume", None)      # a snapshot's (game.physics.resume), given back below
        w = cls(gravity=level["gravity"], integrator=level["integrator"], substeps=level["substeps"],
                drag=level["drag"], bounds=level["bounds"], material=level["material"], execution=execution,
                compiled=compiled)
        w.level, w.name, w.description = level, level["name"], level["description"]
        statics.resume(w, level)      # a snapshot of moving walls: its time, its flippers' angles
        w.add_balls(level["balls"])
        for spring in level["springs"]:
            if not bodies_module.holds_body(spring):     # (a spring with a body end: the bodies' solve)
                w.add_spring(spring["a"], spring["b"], spring["stiffness"], spring["damping"], spring["rest"])
        bodies_module.load(w, level)       # the bodies, and the joints: a body's to them, the balls' own
        w.zones = [zones.Zone.from_definition(z) for z in level["zones"]]
        w.forces.attractors = [z for z in w.zones if z.kind == "attractor"]
        w.spawners = [zones.Spawner(s) for s in level["spawners"]]
        statics.rebuild_grid(w)
        resume.apply(w, memory)               # a snapshot's memory, where it has one
        return w

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

    @journaled("add_ball")
    def add_ball(self, pos, vel=(0.0, 0.0), radius=None, density=None, mass=None,
                 restitution=None, friction=None, spin=None, rolling=None):
        """Add a ball; returns its index. Mass is ``mass`` if given, else density * pi r^2;
        ``spin`` in rad/s, counter-clockwise."""
        self.add_balls([{"pos": pos, "vel": vel, "radius": radius, "density": density, "mass": mass,
                         "restitution": restitution, "friction": friction, "spin": spin,
                         "rolling": rolling}])
        return self.count - 1

    @journaled("add_balls")
    def add_balls(self, balls):
        """Add many balls at once from level-style dicts (pos, and optional vel, angle (rad), spin (rad/s),"""
        return ball_rows.add_balls(self, balls)

    @journaled("remove_balls")
    def remove_balls(self, indices):
        """Remove balls by index (or boolean mask); springs attached to them go with them."""
        gone = np.zeros(self.count, bool)
        gone[np.asarray(indices).reshape(-1)] = True
        if not gone.any():
            return
        keep = ~gone
        sleep.wake_around(self, gone)
        self._sleep.keep(keep)
        new_index = np.full(self.count, -1, np.int64)
        new_index[keep] = np.arange(int(keep.sum()))
        for name in BALL_ARRAYS:
            setattr(self, name, getattr(self, name)[keep])
        self.forces.springs.remap_balls(new_index)
        self.joints.remap_balls(new_index)

    @journaled("take_ball")
    def take_ball(self, index):
        """Remove ball ``index`` (its springs go with it) and return a BallRecord of all the (balls.take_ball)"""
        return ball_rows.take_ball(self, index)

    @journaled("put_back")
    def put_back(self, record):
        """Re-insert the ball of ``record`` (from take_ball) with its id, state to the bit and (balls.put_back)"""
        return ball_rows.put_back(self, record)

    def ball_at(self, point):
        """Index of the ball containing ``point`` (the nearest centre wins), -1 if none. (readings.ball_at)"""
        return readings.ball_at(self, point)

    # ---------------------------------------------------------------- springs
    @property
    def springs(self):
        return self.forces.springs

    @journaled("add_spring")
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

    @journaled("remove_spring")
    def remove_spring(self, k):
        self._wake_springs(k)
        keep = np.ones(len(self.springs), bool)
        keep[k] = False
        self.springs.keep(keep)

    @journaled("set_anchor")
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
    @journaled("integrator")
    def integrator(self, name):
        if name not in INTEGRATORS:
            raise ValueError(f"unknown integrator {name!r}; expected one of {', '.join(INTEGRATORS)}")
        self._integrator = name

    @property
    def substeps(self):
        """Sub-steps per tick (``solver.options.substeps``)."""
        return self.solver.options.substeps

    @substeps.setter
    @journaled("substeps")
    def substeps(self, count):
        self.solver.options.substeps = int(count)

    # ------------------------------------------------------------------- step
    def step(self, dt=TICK):
        """Advance one fixed tick of ``dt`` seconds in ``substeps`` sub-steps.

        Pass the same dt every call (a fixed time step): the contact tuning assumes it, and
        a frame's wall-clock time must never reach here. Sleeping islands (game.physics.sleep) are
        left out of the tick until something wakes them. What the step does to the world (a
        spawner's ball, a kill zone's) is its own clockwork, never journaled.
        """
        with unjournaled(self):
            step.advance(self, dt)

    # ---------------------------------------------------------- crossings
    def crossing_mark(self):
        """What ``count_crossings`` compares a tick's end with: (ids, pos, vel) copies now. (readings.crossing_mark)"""
        return readings.crossing_mark(self)

    def count_crossings(self, mark, dt=TICK):
        """Count in ``crossed`` the balls whose centre went through a static since ``mark`` (readings.count_crossings)"""
        return readings.count_crossings(self, mark, dt)

    # --------------------------------------------------------------- sleeping
    @property
    def sleeping(self):
        """(N,) bool: the balls asleep now (game.physics.sleep): at rest, left out of the tick."""
        return self._sleep.asleep.copy()

    def sleeping_contacts(self, slop=SLEEP_CONTACT_SLOP):
        """(points (C, 2) m, offsets (C, 2) m) of the contacts of the sleeping balls, for (debug.sleeping_contacts)"""
        return debug.sleeping_contacts(self, slop)

    def wake(self, balls=None):
        """Wake balls (indices or an (N,) bool mask; None: all) with their whole islands."""
        if balls is None:
            self._sleep.wake_all()
        elif len(self._sleep):
            self._sleep.wake(balls)

    def _fused(self, kernels):
        """Whether this tick runs as one compiled call (game.physics.compiled.step.tick): the kernels (step.fused)"""
        return step.fused(self, kernels)

    def ticks_in_one_call(self):
        """Whether the next tick runs as one compiled call (``_fused``, not by sub-steps): game.app.loop
        then steps the world on a worker thread while it draws the frame before."""
        return step.fused(self, self._kernels) and not step.by_substeps(self)

    @property
    def contact_points(self):
        """(C, 2) touch points of the last sub-step's contacts (debug drawing). (debug.contact_points)"""
        return debug.contact_points(self)

    @property
    def contact_offsets(self):
        """(C, 2) their offset vectors: the normal times the overlap found (0 where only touching). (debug.contact_offsets)"""
        return debug.contact_offsets(self)

    # --------------------------------------------------------------- readings
    def energy(self):
        """Energies in joules: kinetic (of translation), rotational (discs: I w^2 / 2), (readings.energy)"""
        return readings.energy(self)

    def view(self):
        """A copy of the world to draw while the world itself steps on (game.app.loop's two-core"""
        return readings.view(self)

    def copy(self):
        """An independent world in the same state: every array, the sleep state, the springs"""
        return readings.copy_world(self)

    def state_hash(self):
        """Hex SHA-256 of positions, velocities, angles and spins: equal states, equal hashes."""
        h = hashlib.sha256()
        for array in (self.pos, self.vel, self.angle, self.spin) + self.bodies.hash_arrays():   # (bodies: if any)
            h.update(np.ascontiguousarray(array, "<f8").tobytes())
        return h.hexdigest()

    def blown_up(self):
        """Whether the world has blown up (a stiff spring under Euler): some ball's position, (readings.blown_up)"""
        return readings.blown_up(self)

    def goal_progress(self):
        """(balls inside goal zones, balls wanted) or None if the level has no goal. (zones.goal_progress)"""
        return zones.goal_progress(self)

    def crossings(self):
        """Times a ball's centre went through a wall, a stadium or into a polygon in a tick, (readings.crossings)"""
        return readings.crossings(self)

    def escaped(self):
        """Balls whose centre is outside ``bounds``, and those removed for going far beyond. (readings.escaped)"""
        return readings.escaped(self)

    def max_overlap(self):
        """Deepest ball-ball or ball-static penetration now, in metres (0 if none). (readings.max_overlap)"""
        return readings.max_overlap(self)

    def to_level(self):
        """The world as a level document: the level's statics, balls and springs as they are now. (readings.to_level)"""
        return readings.to_level(self)

    # --------------------------------------------------------------- settings
    @journaled("set_gravity")
    def set_gravity(self, gravity):
        """The gravity every integrator reads from now, (2,) m/s^2 (the settings' sliders)."""
        self.forces.gravity = np.array(gravity, float)

    @journaled("set_material")
    def set_material(self, key, value):
        """Material ``key`` (restitution, friction, rolling) of every ball now and to come (the settings)."""
        self.material[key] = float(value)
        getattr(self, key)[:] = float(value)

    # --------------------------------------------------------------- moving walls
    @journaled("press_flipper")
    def press_flipper(self, key, held):
        """Hold (``held`` True) or release the flippers of ``key`` ("left" or "right"), and reverse its motors (motion.press, motor_keys.press)"""
        motor_keys.press(self, key, held)

    @property
    def flipper_keys(self):
        """frozenset of the keys ("left", "right") the level's flippers and motors use; empty if none."""
        return self.motions.flipper_keys | motor_keys.keys(self)

    def wall_velocity(self, static_indices, points):
        """(K, 2) m/s: the velocity of capsules ``static_indices`` (K,) at ``points`` (K, 2) m (motion.velocity_at)"""
        return motion.velocity_at(self.statics, static_indices, points)

    # --------------------------------------------------------------- statics at run time
    @journaled("add_segments")
    def add_segments(self, segments):
        """Add static segments (normalised definitions: a, b, radius and the surface) to the (statics.add_segments)"""
        return statics.add_segments(self, segments)

    @journaled("remove_segment")
    def remove_segment(self, definition):
        """Take back the last static segment equal to ``definition``; False if there is none. (statics.remove_segment)"""
        return statics.remove_segment(self, definition)

    # ------------------------------------------------------------------- grabs
    @property
    def grabs(self):
        """{handle: game.physics.grab.Grab} of the grabs holding a ball now. A grab whose ball went (grab.live_grabs)"""
        return grabbing.live_grabs(self)

    @journaled("grab")
    def grab(self, ball, point):
        """Hold ball index ``ball`` at ``point`` (2,) metres with springs integrated like (grab.grab)"""
        return grabbing.grab(self, ball, point)

    @journaled("move_grab")
    def move_grab(self, handle, point):
        """Pull the grabbed ball towards a new ``point`` (2,) metres; False if the grab is (grab.move_grab)"""
        return grabbing.move_grab(self, handle, point)

    @journaled("release")
    def release(self, handle):
        """Let go: the grab's springs leave the world. Releasing twice does nothing. (grab.release)"""
        return grabbing.release(self, handle)

    @journaled("place_grabbed")
    def place_grabbed(self, handle, point):
        """Move the grab's point and put its ball there at rest: dragging while the world is (grab.place_grabbed)"""
        return grabbing.place_grabbed(self, handle, point)

    def grabbed_ball(self, handle):
        """Index of the ball a grab holds now, -1 if the grab is over. (grab.grabbed_ball)"""
        return grabbing.grabbed_ball(self, handle)





