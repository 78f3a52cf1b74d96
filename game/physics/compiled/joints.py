"""The compiled twin of game.physics.joints: numba compiles the very function the numpy
execution runs (``substep_kernel``, plain scalar Python), so the two give the same bits."""
import types

import numpy as np
from numba import njit

from game.physics import joint_solve as _solve
from game.physics import joint_sums as _sums
from game.physics import joints as _reference
from game.physics.compiled import stamps

_trust = njit(cache=True, nogil=True)(_sums._trust)
_apply_summed = njit(cache=True, nogil=True)(_sums._apply_summed)
_bend = njit(cache=True, nogil=True)(_sums._bend)
solve_block = njit(cache=True, nogil=True)(_solve.solve_block)
# The kernel as written, its globals those of its module but for the helpers it calls, which
# are the compiled ones (numba resolves a function's globals when it compiles it).
substep_kernel = njit(cache=True, nogil=True)(types.FunctionType(
    _reference.substep_kernel.__code__, dict(vars(_reference), _trust=_trust, _apply_summed=_apply_summed, _bend=_bend,
         solve_block=solve_block),
    "substep_kernel"))
# numba checks a cached function against its own source file only (the kernel's: joints.py): the
# kernel links the helpers of joint_sums.py and joint_solve.py in.
stamps.depend_on([substep_kernel], (_sums, _solve))


def warm_up():
    """Compile (or load from numba's cache) with the argument types the world passes."""
    from game.physics.joints import JointBalls, JointParams, Joints
    joints = Joints()
    joints.add([{"kind": "rod", "a": 0, "b": [1.0, 0.0], "length": 1.0, "offset_a": [0.0, 0.0],
                 "offset_b": [0.0, 0.0], "motor": {"speed": 1.0, "torque": 1.0}}])
    one = np.zeros(1)
    balls = JointBalls(one.copy(), one.copy(), one.copy(), one.copy(), one.copy(), one.copy(), np.ones(1), np.ones(1), np.ones(1))
    substep_kernel(balls, joints.kernel_rows(), JointParams(h=0.01, h_move=0.01, rate=1.0, mass_scale=1.0, impulse_scale=0.0,
                                                     warm_start=True, iterations=1, relax_iterations=1))
