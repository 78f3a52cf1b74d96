"""The arrays and constants a joint sub-step takes (game.physics.joints.substep_kernel, and its
compiled twin): the balls' state, the joints' rows and the sub-step's constants."""
import typing

import numpy as np


class JointBalls(typing.NamedTuple):
    """The balls' (N,) state a joint sub-step reads and writes (positions px, py, m;
    velocities vx, vy, m/s; angle, rad; spin, rad/s; inverse masses w, 1/kg; moments inv_i,
    1/(kg m^2))."""
    px: np.ndarray
    py: np.ndarray
    vx: np.ndarray
    vy: np.ndarray
    angle: np.ndarray
    spin: np.ndarray
    w: np.ndarray
    inv_i: np.ndarray
    radius: np.ndarray


class JointRows(typing.NamedTuple):
    """The joints' (J,) rows: balls a, b (b < 0: an anchor), kind, anchor, offsets, length,
    motor, and the impulses, peak forces and motors' work (J, this tick) the sub-step writes."""
    a: np.ndarray
    b: np.ndarray
    kind: np.ndarray
    anchor_x: np.ndarray
    anchor_y: np.ndarray
    off_ax: np.ndarray
    off_ay: np.ndarray
    off_bx: np.ndarray
    off_by: np.ndarray
    length: np.ndarray
    has_motor: np.ndarray
    speed: np.ndarray
    torque: np.ndarray
    imp_x: np.ndarray
    imp_y: np.ndarray
    imp_m: np.ndarray
    peak: np.ndarray
    work: np.ndarray
    blocks: np.ndarray


class JointParams(typing.NamedTuple):
    """A joint sub-step's constants: h and h_move (s), the soft constraint's rate (1/s), mass
    and impulse scales, whether to warm start, and the biased and relax passes."""
    h: float
    h_move: float
    rate: float
    mass_scale: float
    impulse_scale: float
    warm_start: bool
    iterations: int
    relax_iterations: int


class Skyline(typing.NamedTuple):
    """K of a sub-step's rows on its skyline (game.physics.joint_solve): row r's entries from
    row ``start[r]`` to r at ``offset[r]``, kept in ``kold`` (K plus softness) and factorised
    in ``kmat`` (L unit lower, D on the diagonal)."""
    start: np.ndarray
    offset: np.ndarray
    kmat: np.ndarray
    kold: np.ndarray


class SolveRows(typing.NamedTuple):
    """A pass's rows as the direct solve takes them (game.physics.joint_solve): ``rhs`` -(J v +
    bias); ``soft`` a row's relative softness and ``comp`` a bend row's compliance (1/kg), both
    already on K's diagonal; ``across`` a bend row; ``rope`` a rope's axis row (its impulse
    stays <= 0); ``solved`` the impulse each row holds so far (N s); ``live`` in the solve
    (False: its dlam is ``fix``); ``dl`` the solve's answer, dlam (N s)."""
    rhs: np.ndarray
    soft: np.ndarray
    comp: np.ndarray
    across: np.ndarray
    rope: np.ndarray
    solved: np.ndarray
    live: np.ndarray
    fix: np.ndarray
    dl: np.ndarray
