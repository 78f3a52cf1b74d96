"""The one place defaults live. The level loader, the schema test and the world read them here.

Units: metres, seconds, kilograms; y points up. The level loader's table of what each kind
of definition gets when it says nothing is ``game.level.DEFAULTS``, built from these.
"""

TICK = 1.0 / 60.0               # s: the fixed step the world is ever given (game, headless, benchmarks)

FORMAT = 1                      # newest level format this program reads
GRAVITY = (0.0, -9.81)          # m/s^2
INTEGRATOR = "rk4"
BOUNDS = (0.0, 0.0, 32.0, 18.0)  # x_min, y_min, x_max, y_max in metres
SUBSTEPS = 4                    # sub-steps per fixed tick
DRAG = 0.0                      # linear drag, 1/s  (a = -drag * v)
COORDINATE_LIMIT = 1e6          # m: the level format's coordinates lie within +-this (schema $defs/coord)
SPEED_LIMIT = 1e6               # m/s: its velocity components too (schema $defs/velocity)

# restitution and friction dimensionless; rolling: rolling resistance, dimensionless (the
# resisting torque is rolling * normal force * radius, as in Box2D v3); density in kg/m^2
MATERIAL = {"restitution": 0.4, "friction": 0.3, "rolling": 0.0, "density": 1.0}

# A static's "surface": what it is made of, its restitution, friction and rolling where the
# shape does not give them; a player may not draw on or through any of them, and lava takes
# the balls that touch it (game.physics.zones.apply_lava).
SURFACES = {"ice": {"friction": 0.0, "rolling": 0.0},
            "rubber": {"restitution": 0.9, "friction": 0.9},
            "lava": {"restitution": 0.0, "friction": 1.0}}

BALL_RADIUS = 0.25              # m
BALL_SPIN = 0.0                 # rad/s, counter-clockwise positive
SEGMENT_RADIUS = 0.0            # m; 0 = thin wall, > 0 = stadium (capsule)
SPRING_STIFFNESS = 50.0         # N/m
SPRING_DAMPING = 0.0            # N s/m
SPAWNER_EVERY = 0.25            # s between spawns
SPAWNER_MAX = 100               # balls a spawner makes in all
SPAWNER_JITTER = 0.02           # m: spawn positions vary by up to this in x and y (seeded: runs repeat),
                                # so a stream of balls does not stack into a tower no real one would hold
ZONE_COUNT = 1                  # balls a goal zone wants
GOAL_HOLD = 1.0                 # s: how long those balls must stay inside it
ATTRACTOR_STRENGTH = 20.0       # m/s^2 towards the zone's centre
# What the player may do in play mode (a level's "player"): None is no limit, so a level that
# says nothing is the open sandbox. "joints": the pins and rods the player may place (J), by
# kind; a kind left out is none (a puzzle gives them one by one, the editor builds the rest).
PLAYER = {"spawn": None, "bodies": None, "draw": None, "ink": None, "delete": True, "grab": True, "joints": {}}
PLAYER_JOINTS = ("pin", "rod")  # the kinds of joint a player places
