"""Contact mass scaling for the bodies' solve (game.physics.bodies): a light ball that holds up
a heavy body takes part as if it were as heavy, as the balls' own solve scales a ball that holds
up a heavier one (game.physics.contacts.support_scales, after PhysX)."""
import math

import numpy as np

from game.physics import body_kernels as K


def support_scales(world, st, inv, ci, cf, m, nb, ng):
    """Contact mass scaling (as the balls' solve does it, game.physics.contacts.support_scales,
    after PhysX): a ball that holds up a heavier body (the body above it, their normal within
    60 degrees of gravity, not an impact: closing slower than the restitution threshold) takes
    part in the tick's solve as if it were as heavy as the heaviest body it holds, so the soft
    contacts under it (the floor's) are stiff enough for that weight and a 1,000 kg box does not
    sink through a 1 kg ball. An impact keeps the true masses, unless the ball itself rests on
    a static below it (it cannot be driven down: the floor takes the blow through it).
    (ng,) factors on the gathered balls' inverse masses, or None."""
    if not ng or not m:
        return None
    g = np.asarray(world.forces.gravity, float)
    size = math.hypot(g[0], g[1])
    if size == 0.0:
        return None
    a, b = ci[:m, 0], ci[:m, 1]
    floor = (a >= nb) & (a < nb + ng) & (b == len(st) - 1) & ((cf[:m, K.NX:K.NY + 1] @ g) / size > 0.5)
    on_floor = np.zeros(ng, bool)
    on_floor[a[floor] - nb] = True
    rows = np.flatnonzero((a < nb) & (b >= nb) & (b < nb + ng))
    if not len(rows):
        return None
    a, b = a[rows], b[rows]
    n = cf[rows, K.NX:K.NY + 1]
    down = (n @ g) / size > 0.5                      # the body above the ball
    point = cf[rows, K.RAX:K.RAY + 1]                # (world points before the prepare)
    arm = point - st[a, 0:2]
    v_body = st[a, 2:4] + st[a, 5:6] * np.stack((-arm[:, 1], arm[:, 0]), axis=1)
    closing = ((st[b, 2:4] - v_body) * n).sum(axis=1)
    gentle = closing > -world.solver.options.restitution_threshold
    # (A sleeping body's true mass: it still rests on the ball, and the warm start carries
    # the impulses found with it; a ball that changed its mass there would be thrown.)
    body_inv = world.bodies.inv_mass[a]
    use = down & (gentle | on_floor[b - nb]) & (body_inv < inv[b, 0])
    if not use.any():
        return None
    scale = np.ones(ng)
    np.minimum.at(scale, b[use] - nb, body_inv[use] / inv[b[use], 0])
    return scale
