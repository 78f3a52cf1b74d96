"""The joints' sub-step (game.physics.joints.substep_kernel) applies its impulses through these
two helpers: plain scalar Python that numba compiles as it is (game.physics.compiled.joints),
so the numpy execution and the compiled one give the same bits."""
import math

JOINT_MOVE = 0.5              # of a rod's length: the most a pass's velocity change moves a ball in h
BEND_FREE = 1.0               # of a light ball's mass: the rod's stiffness across it (times h h_move) left explicit


def _trust(a, b, length, radius, dvx, dvy, h):
    """The trust region of a pass: the factor (<= 1) that keeps every ball's velocity change
    ``dvx``, ``dvy`` (N,) m/s from moving it more than JOINT_MOVE of (its joint's length plus
    its radius, m) in h s; ``dvx``, ``dvy`` are cleared on the way (for the next pass). Where
    rows nearly lose their rank (a fold of light links snapping straight, two rods that say
    different things) one linear step would fling a ball: the pass is scaled down instead.

    Plain scalar Python that numba compiles as it is (game.physics.compiled.joints)."""
    scale = 1.0
    for j in range(a.shape[0]):
        for side in range(2):
            ball = a[j] if side == 0 else b[j]
            if ball < 0:
                continue
            limit = JOINT_MOVE * (length[j] + radius[ball])
            move = h * math.sqrt(dvx[ball] * dvx[ball] + dvy[ball] * dvy[ball])
            if move > limit:
                scale = min(scale, limit / move)
    for j in range(a.shape[0]):
        dvx[a[j]] = 0.0
        dvy[a[j]] = 0.0
        if b[j] >= 0:
            dvx[b[j]] = 0.0
            dvy[b[j]] = 0.0
    return scale


def _bend(imp, h_move, wa, wb, length):
    """A rod's (or rope's) stiffness across itself that the solve takes implicitly, kg (0: none),
    from its last impulse ``imp`` (N s along d = held_b - held_a: < 0 pulls), the move h_move
    (s), its balls' inverse masses ``wa``, ``wb`` (1/kg; an anchor's 0) and ``length`` (m).

    A rod pulled with force T turns its pull as its ends move across it: a geometric stiffness
    T / length (N/m) on their relative move. The passes take the pull along the rod as it was,
    so a light ball on a taut rod feels that stiffness explicitly: it swings across the rod at
    omega^2 = T / (length m) per rod, and once h h_move omega^2 passes about 2 (a 1 g ball
    between an anchor and a 1,000 kg one: ~200) each pass throws it further across than it was
    (the rods stretched 60-150 times). Implicitly (Tournier et al. 2015, "Stable constrained
    dynamics"), the move h_move dv across the rod costs an impulse (T h / length) h_move per
    m/s: a row across the rod with that compliance's inverse, bend = |imp| h_move / length. The
    part a light ball (mass 1 / max(wa, wb)) follows by itself, BEND_FREE of it, stays explicit,
    so a rod whose ball does (most rods: a pendulum's, a chain's) solves as before. A rod that
    pushes stiffens across alike (|imp|): a light ball between two pushing rods buckles, and
    the fold's snap back, solved linearly, made 30 kJ (Euler's pendulum past level at 1e6).

    Plain scalar Python that numba compiles as it is (game.physics.compiled.joints)."""
    light = max(wa, wb)
    if light <= 0.0:
        return 0.0
    return max(0.0, abs(imp) * h_move / length - BEND_FREE / light)


def _apply_summed(row_ball_a, row_ball_b, balls, dvx, dvy, dsp, move):
    """Apply the impulses summed per ball (``dvx``, ``dvy``: N s, ``dsp``: N m s, (N,)) to the
    balls of the rows (``row_ball_a``, ``row_ball_b``; -1: an anchor): velocities and spins by
    the inverse mass and moment, positions and angles by ``move`` (s) times that change (0:
    none), each ball once; the sums are cleared on the way (for the next pass). Two balls
    that only share rows get exactly opposite sums, so their momentum is kept to the rounding
    of the sum, not of each row's impulse (game.physics.joints: rows that nearly repeat each
    other exchange large impulses that cancel)."""
    w, inv_i = balls.w, balls.inv_i
    for r in range(row_ball_a.shape[0]):
        for side in range(2):
            ball = row_ball_a[r] if side == 0 else row_ball_b[r]
            if ball < 0 or (dvx[ball] == 0.0 and dvy[ball] == 0.0 and dsp[ball] == 0.0):
                continue
            dvbx = w[ball] * dvx[ball]
            dvby = w[ball] * dvy[ball]
            dspb = inv_i[ball] * dsp[ball]
            balls.vx[ball] += dvbx
            balls.vy[ball] += dvby
            balls.spin[ball] += dspb
            if move != 0.0:
                balls.px[ball] += move * dvbx
                balls.py[ball] += move * dvby
                balls.angle[ball] += move * dspb
            dvx[ball], dvy[ball], dsp[ball] = 0.0, 0.0, 0.0
