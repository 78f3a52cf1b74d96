"""The compiled twin of game.physics.joints: numba compiles the very function the numpy
execution runs (``substep_kernel``, plain scalar Python), so the two give the same bits."""
import numpy as np
from numba import njit

from game.physics import joints as _reference

substep_kernel = njit(cache=True, nogil=True)(_reference.substep_kernel)


def warm_up():
    """Compile (or load from numba's cache) with the argument types the world passes."""
    from game.physics.joints import Joints
    joints = Joints()
    joints.add([{"kind": "rod", "a": 0, "b": [1.0, 0.0], "length": 1.0, "offset_a": [0.0, 0.0],
                 "offset_b": [0.0, 0.0], "motor": {"speed": 1.0, "torque": 1.0}}])
    one = np.zeros(1)
    substep_kernel(one.copy(), one.copy(), one.copy(), one.copy(), one.copy(), one.copy(), np.ones(1), np.ones(1),
                   joints.a, joints.b, joints.kind, joints.anchor_x, joints.anchor_y, joints.off_ax, joints.off_ay,
                   joints.off_bx, joints.off_by, joints.length, joints.has_motor, joints.speed, joints.torque,
                   joints.imp_x, joints.imp_y, joints.imp_m, joints.peak, 0.01, 0.01, 1.0, 1.0, 0.0, True, 1, 1)
