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
