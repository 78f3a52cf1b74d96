"""The one theme: the colours (R, G, B[, A]) and the sizes (px) the game's drawing shares: the
HUD, the world's renderer, the debug layers, the aim, play's overlay, the menu and the
settings. A colour or a size another module needs is named here once and imported from here."""

# ---- text and panels (the HUD, the help, the settings, the lab) ------------------------------
TEXT = (232, 236, 244)
TEXT_DIM = (188, 195, 212)      # secondary text: still 9:1 against the panels
EDITOR_DIM = (150, 158, 176)    # the editor's faint labels and outlines
KEY_CAP = (44, 50, 66)
PANEL = (10, 12, 18, 190)
PANEL_EDGE = (60, 66, 84)
BAR = (12, 14, 20, 235)
HINT_PANEL = (12, 14, 20, 230)  # the key hint's row: the world (panned under it) must not show through
GOAL = (90, 220, 120)
GOAL_TRACK = (40, 60, 46)       # the goal's progress bar, behind its fill
WARN = (255, 210, 90)
ACCENT = (255, 210, 90)         # what is selected or set: a menu tile, a star earned, a slider's knob
SUNKEN = (30, 34, 46)           # a plot's frame, an empty thumbnail
PLOT_PANEL = (10, 12, 18, 235)  # nearly opaque: lines must not mix with what is behind
ERROR_BG = (150, 30, 36, 235)
INTEGRATOR_COLOURS = {"euler": (255, 120, 100), "semi-implicit": (255, 205, 100),
                      "verlet": (110, 210, 255), "rk4": (120, 230, 140)}
ENERGY_COLOURS = {"kinetic": (255, 165, 70), "gravitational": (90, 150, 255),
                  "spring": (120, 220, 120), "total": (245, 245, 245),
                  "walls": (215, 120, 255), "balance": (245, 245, 245)}    # moving walls' work, total less it

# ---- text sizes (px, font size) and the HUD's frame ------------------------------------------
SIZE_TITLE = 23                 # the level's name
SIZE_BODY = 15
SIZE_SMALL = 13
SIZE_TINY = 11
SIZE_HUGE = 44
MARGIN = 10                     # px from the window's edges
BAR_HEIGHT = 76                 # px: the bar across the top; the camera fits the level below it
HINT_HEIGHT = 24                # px: the key hint along the bottom edge
RULES_ROW = 40                  # px under the HUD's bar a puzzle's budgets take (Hud.draw_rules)

# ---- the world (game.draw.renderer) ----------------------------------------------------------
BACKGROUND = (16, 18, 24)
LEVEL_FILL = (24, 27, 35)
GRID_MINOR = (31, 35, 45)
GRID_MAJOR = (40, 45, 58)
WALL = (178, 188, 208)
CAPSULE_FILL = (104, 114, 138)
POLYGON_FILL = (74, 82, 102)
POLYGON_EDGE = (150, 160, 184)
ZONE_COLOURS = {"goal": (70, 210, 110), "kill": (235, 70, 70), "attractor": (80, 140, 255)}
ZONE_FILL_ALPHA = 48
ZONE_EDGE_ALPHA = 170
SPRING_SLACK = (150, 200, 255)  # shorter than rest
SPRING_TAUT = (255, 170, 90)    # longer than rest
SPRING_GRAB = (255, 255, 255)
SPAWNER = (200, 200, 120)
# Walls that move or act (game.draw.walls): drawn each frame where they are.
SURFACE_COLOURS = {1: (175, 225, 250), 2: (224, 96, 168), 3: (255, 112, 40)}   # ice, rubber, lava (statics.SURFACE_KINDS)
MOVING_WALL = (120, 190, 255)   # rotors and sliders: blue, apart from the grey still walls
FLIPPER = (255, 196, 70)        # flippers: amber bats with a pin at the hinge
CONVEYOR = (150, 235, 160)      # a conveyor's chevrons, running with its surface
BUMPER = (236, 72, 120)         # pinball bumpers (kick)
BUMPER_FLASH = (255, 240, 150)  # a bumper that just kicked a ball
WALL_VELOCITY = (255, 120, 255) # debug: a wall's velocity at its contacts
# Ball colours, chosen by ball id (stable across removals): bright, distinct on the dark background.
PALETTE = (
    (239, 83, 80), (255, 167, 38), (255, 213, 79), (156, 204, 101), (38, 198, 218),
    (66, 165, 245), (126, 87, 194), (236, 64, 122), (141, 110, 99), (0, 191, 165),
    (255, 138, 101), (174, 213, 129),
)

# Bodies (game.draw.bodies): planks, boxes and polygons. A body without a "colour" of its own
# takes one of these by its index: muted material tones, apart from the bright balls.
BODY_PALETTE = (
    (196, 146, 92), (110, 142, 196), (138, 176, 118), (200, 112, 90), (156, 118, 178), (212, 188, 118),
)
BODY_EDGE_SHADE = 1.45          # the outline: the fill lightened towards white by this
BODY_MARK_SHADE = 0.55          # the turn mark (centre of mass to the first edge): the fill darkened

# ---- the debug layers (game.draw.debug) ------------------------------------------------------
CONTACT = (255, 230, 80)
OFFSET = (255, 80, 220)
VELOCITY = (90, 230, 230)
SWEPT = (255, 150, 60)
SWEPT_HIT = (255, 60, 60)
BROAD_GRID = (70, 90, 60)
BROAD_CELL = (120, 200, 90, 40)
SOLVER_TEXT = (200, 205, 170)
TEXT_PANEL = (10, 12, 18, 200)  # behind text drawn over the world
SLEEPING = (20, 22, 30)         # a dark dot on each sleeping ball (and body)
BODY_NORMAL = (255, 120, 60)    # a body contact's normal, from its manifold point
FRAME_X = (255, 90, 90)         # a body's frame: its turned x axis
FRAME_Y = (90, 230, 120)        # and its y axis, from the centre of mass

# ---- play's overlay (game.draw.aim, game.draw.play_hud) --------------------------------------
AIM = (255, 255, 255)
AIM_PATH = (200, 200, 200)
AIM_LABEL_GAP = 6               # px between the aim line and its speed label
SPOT_TAKEN = (235, 80, 80)      # the pointer's ring while no spot near it is free
DRAW_PREVIEW = (120, 200, 255)
SOLUTION_HINT = (95, 150, 110)          # a puzzle's hint: its solution's first step, faint on the dark level

# ---- the level menu and the settings ---------------------------------------------------------
MENU_BACKDROP = (12, 14, 20)
MENU_HEADING = (200, 206, 222)  # a group's heading ("My levels")
MENU_DONE = (90, 220, 120)
MENU_BROKEN = (235, 90, 90)
STAR_OFF = (70, 76, 96)
SLIDER_TRACK = (60, 66, 84)

# Joints (game.physics.joints): rods as bars, ropes as lines (dimmer while slack), anchors and
# pins as pins, chains as links, motors as a mark turning with their wheel; a joint that broke: a spark.
ROD = (205, 180, 140)
ROPE = (225, 205, 160)
ROPE_SLACK = (140, 130, 110)
CHAIN = (196, 202, 214)             # a chain's links (game.draw.chains): steel
PIN = (235, 235, 235)
MOTOR = (255, 120, 70)
SPARK = (255, 235, 120)
SPARK_FRAMES = 20                   # frames a spark shows
ROD_WIDTH = 0.1                     # m: a rod's bar (at least 4 px)
