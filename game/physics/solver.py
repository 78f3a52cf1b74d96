"""The contact solver: impacts, then Box2D v3's soft step, over contacts solved in colours.

One algorithm, two executions: numpy solves a colour at once (gather, compute, scatter; no
two contacts of a colour share a ball, so nothing collides), the compiled twin
``game.physics.compiled.solver`` loops over the colour's contacts one by one with the same
arithmetic in the same order. Both give the same bits (tests/test_solver.py). A sub-step's
contacts come from ``game.physics.contacts`` (``Solver.prepare`` calls it).

The solve (``solve``), Box2D's sign convention with the normal n pointing from body b to
ball a (a static is the still stand-in at index N) and the tangent t = (-n_y, n_x):
0. contact mass scaling (``contacts.support_scales``): a ball holding up a heavier one through
   resting contacts counts as heavy as it in the warm start and the soft passes, so stacks
   with mass ratios of 1:1000 (and beyond) stand; collisions keep the true masses.
1. impacts: a contact closing faster than ``restitution_threshold`` gets the collision
   impulse P = (1 + e) (-v_n) / k_n (k_n = 1/m_a + 1/m_b) and Coulomb friction bounded by
   mu times its impulses so far; passes over the colours repeat until none closes that fast
   (a Newton's cradle passes the knock one contact a colour), MAX_IMPACT_PASSES at most and
   IMPACT_BUDGET colours a solve in all (a jam of 100+ colours gets a few passes; the soft
   step takes what is left). The impact happened
   tau = depth / (-v_n) ago (at most h): positions and angles move by dv tau, reflecting the
   penetration instead of keeping it, so bounces keep their energy. The impulse J acts along
   the centres' line at the touch, d - tau u: with the moves it changes the angular momentum
   about the origin by (d - tau u) cross J, so the normal part keeps it, and friction's lever
   arms split |d - tau u| (r_a + r_b unless the look back was cut short), so its torques
   undo the orbital part of its tangent impulse.
2. warm start: last sub-step's normal, tangent and rolling impulses are applied again.
3. ``iterations`` soft passes (contact_hertz, damping_ratio: bias rate, mass and impulse
   scales; push-out at most ``max_push_speed``), with friction clamped to mu * normal and
   rolling resistance; their velocity change moves positions by h_move dv (x* was
   integrated with the velocities before it). Then the velocities and impulses go back to
   the warm start's (split impulses): where Box2D leaves the relax passes to remove the
   push-out speed, which they do not wholly where a ball is pushed by two contacts at once
   (a free scene gained 1.6 % of its energy in a tick), here it never becomes speed. Moving
   pairs without the speed turns their orbits (h_move S cross (v_a - v_b)), and the warm
   start, given along the normals of x* - h_move v* with arms r_a + r_b, turns them too:
   ``give_back_turn`` gives that angular momentum back across each pair's moved line of
   centres (for the move's part, a parting pair's orbit slowing as a skater's spreading arms
   do: it only takes kinetic energy), in the islands clear of the statics (on a wall the
   law does not hold anyway, and a ball there was nudged off its wall's contact and pushed
   into it in the next sub-step).
4. ``relax_iterations`` passes without the bias: the contact velocities, no push, along the
   moved lines of centres, friction's arms splitting |d| (angular momentum kept). Each
   relax step minimises the kinetic energy along its row, so only the warm start can add
   energy: an island clear of the statics that ends the relax with more kinetic energy than
   before the warm start is relaxed again from before it (``energy_gained``).
"""
import dataclasses
import math

import numpy as np

from game.physics import collide, motion
from game.physics import bundles
from game.physics.bundles import Impulses, SolveParams, Touches
from game.physics.contacts import (TOUCH_SLOP, Contacts, contact_params, held_rows, prepare_numpy, refresh_numpy,
                                   speculative_reach, wall_rows)

MAX_IMPACT_PASSES = 64     # passes of the impact loop over the colours at most
IMPACT_BUDGET = 256        # and at most this many colours a solve in all (passes x colours):
                           # a jam of balls overlapping dozens of others has 100+ colours, and
                           # numpy pays each colour of each pass (issue 28: 0.5 s a sub-step)
IMPACT_LOOKBACK = 1.0      # sub-steps: how far back a touch is looked for (more lets the
                           # impact moves reach deeper into third balls: 2 gave 6 cm overlaps)
STATIC_STIFFNESS = 2.0     # static contacts are this many times stiffer (Box2D v3 does so)
EXECUTIONS = ("compiled", "numpy")
_NO_WARM = Impulses(np.zeros(0, np.int64), np.zeros(0), np.zeros(0), np.zeros(0))


def no_warm():
    """The stored impulses of a solver that has none yet (nothing to warm-start from)."""
    return _NO_WARM


@dataclasses.dataclass
class SolverOptions:
    """The solver's switches, each changeable between ticks.

    substeps: sub-steps per tick; iterations / relax_iterations: soft passes with and
    without the push-out bias; warm_start: begin each sub-step from the last one's impulses;
    restitution_threshold: m/s, contacts closing slower do not bounce; contact_hertz: Hz,
    the stiffness of the soft contact; damping_ratio: its damping (Box2D: 10); max_push_speed:
    m/s, the fastest a soft contact pushes overlapping bodies apart; sleeping: islands of
    balls at rest sleep, left out of the tick until something wakes them (game.physics.sleep).
    """
    substeps: int = 4
    iterations: int = 2
    relax_iterations: int = 2
    warm_start: bool = True
    restitution_threshold: float = 0.5
    contact_hertz: float = 120.0
    damping_ratio: float = 10.0
    max_push_speed: float = 3.0
    sleeping: bool = True
    keep_contacts: bool = False     # Box2D v3's step shape: a tick's first contacts kept through it (no wall moving)
    speculative: float = 0.02       # m: how far apart a pair joins the kept set (and the way it closes in the tick)

    def describe(self):
        """One line for the debug layer."""
        shape = f"kept a tick (+{self.speculative * 1000:g} mm)" if self.keep_contacts else "every sub-step"
        return (f"substeps {self.substeps}  iterations {self.iterations}  relax {self.relax_iterations}  "
                f"warm start {'on' if self.warm_start else 'off'}  bounce above {self.restitution_threshold:g} m/s  "
                f"contacts {self.contact_hertz:g} Hz, damping {self.damping_ratio:g}, push {self.max_push_speed:g} m/s  "
                f"sleeping {'on' if self.sleeping else 'off'}  contacts prepared {shape}")


def world_columns(world, acceleration):
    """bundles.ball_columns of a World's balls, ``acceleration`` (N, 2) m/s^2 their forces'."""
    return bundles.ball_columns(world.pos, world.vel, world.spin, world.angle, world.inv_mass, world.inv_inertia,
                                world.radius, (world.restitution, world.friction, world.rolling), acceleration, world.ids)


def soft(hertz, damping_ratio, h):
    """Box2D v3's soft constraint for a sub-step h: (bias_rate 1/s, mass_scale, impulse_scale).

    A spring-damper of frequency hertz and damping ratio zeta, solved implicitly:
    omega = 2 pi hertz, a1 = 2 zeta + h omega, a2 = h omega a1, a3 = 1 / (1 + a2);
    bias_rate = omega / a1, mass_scale = a2 a3, impulse_scale = a3.
    """
    if hertz <= 0.0:
        return 0.0, 1.0, 0.0
    omega = 2.0 * math.pi * hertz
    a1 = 2.0 * damping_ratio + h * omega
    a2 = h * omega * a1
    a3 = 1.0 / (1.0 + a2)
    return omega / a1, a2 * a3, a3


def _canonical(array, order):
    """The solve-order ``array`` back in canonical order (``order``: canonical index by place)."""
    out = np.empty_like(array)
    out[order] = array
    return out


class Solver:
    """The contact solver of one World: its options and the kernels it runs.

    ``kernels``: the compiled twins its World hands it (World.use_compiled), or None: the
    numpy execution; both give the same bits. The solver keeps last sub-step's impulses by
    contact key for warm starting.
    """

    def __init__(self, options=None):
        self.options = options if options is not None else SolverOptions()
        self.kernels = None
        self._warm = _NO_WARM

    @property
    def execution(self):
        """"compiled" when this solver runs the kernels, else "numpy"."""
        return "compiled" if self.kernels is not None else "numpy"

    def forget(self):
        """Drop the stored impulses (the balls were rebuilt)."""
        self._warm = _NO_WARM

    # ------------------------------------------------------------------ contacts
    def prepare(self, world, candidates, prev, h_move, acceleration=None, lookahead=None):
        """This sub-step's Contacts from the candidate pairs, with fresh geometry at world.pos.

        ``candidates``: (i, j, bi, s) ball pairs i < j and (ball, capsule) pairs, each sorted.
        ``prev``: (N, 2) positions at the sub-step's start (which side of a wall a ball came from);
        ``h_move``: s, the sub-step times the integrator's CONTACT_WEIGHT: a velocity change
        dv of the solve moves positions by h_move dv. ``acceleration``: (N, 2) m/s^2 the
        forces gave each ball this sub-step (impacts take the velocities at the touch).
        ``lookahead``: s, the tick, where the contacts are kept a tick (SolverOptions.keep_contacts):
        the pairs that may touch within it (contact_params), refreshed; None: those that touch.
        """
        n = world.count
        params = (contact_params(h_move) if lookahead is None
                  else contact_params(h_move, self.options.speculative, lookahead))
        pos, radius, statics = world.pos, world.radius, world.statics
        i, j, bi, s = candidates
        kernels = self.kernels
        statics_bundle = bundles.statics(statics)
        if len(bi):                 # ball-static pairs: seed 000's offset from each capsule
            snormal, sdepth = collide.static_geometry(pos, prev, radius, statics, bi, s, kernels)
            v = world.vel[bi] if lookahead is not None else None   # kept a tick: the pairs that may touch in it
            touch = np.nonzero(sdepth > -TOUCH_SLOP if v is None else sdepth > 0.0 - speculative_reach(
                TOUCH_SLOP, params.speculative, lookahead, 0.0 - (v[:, 0] * snormal[:, 0] + v[:, 1] * snormal[:, 1])))[0]
            bi, s, sdepth = bi[touch], s[touch], sdepth[touch]
            snx, sny = np.ascontiguousarray(snormal[touch, 0]), np.ascontiguousarray(snormal[touch, 1])
        else:
            snx = sny = sdepth = np.zeros(0)
        acc = np.zeros((n, 2)) if acceleration is None else acceleration
        balls = world_columns(world, acc)
        warm = self._warm if self.options.warm_start else _NO_WARM
        prepare = kernels.prepare_contacts if kernels is not None else prepare_numpy
        rows = prepare(i, j, Touches(bi, s, snx, sny, sdepth), balls, statics_bundle, warm, params)
        if statics.walls:
            wall_rows(rows, balls, statics_bundle, h_move)      # moving walls, conveyors, bumpers
        contacts = Contacts(n, rows)
        if lookahead is not None:
            self._held = held_rows(rows)
            self.refresh(world, contacts, prev, h_move, acc, statics_afresh=False)
        return contacts

    def refresh(self, world, contacts, prev, h_move, acceleration, statics_afresh=True):
        """A kept contact set (prepare's ``lookahead``) at this sub-step, in place: with ``statics_afresh``
        the ball-static contacts measured afresh (a ball rounding a ledge's end turns with it), then
        contacts.refresh_numpy or its twin; ``prev``, ``acceleration`` as prepare's."""
        rows, pos = contacts.rows, world.pos
        k = np.nonzero(rows.static >= 0)[0] if statics_afresh else ()
        if len(k):
            k = k[np.argsort(rows.key[k], kind="stable")]        # by ball, then capsule: as prepare finds them
            bi, s = rows.a[k], rows.static[k]
            snormal, sdepth = collide.static_geometry(pos, prev, world.radius, world.statics, bi, s, self.kernels)
            rows.nx[k] = snormal[:, 0]
            rows.ny[k] = snormal[:, 1]
            rows.base[k] = sdepth + ((pos[bi, 0] - 0.0) * snormal[:, 0] + (pos[bi, 1] - 0.0) * snormal[:, 1])
        balls = world_columns(world, acceleration)
        kernels = self.kernels
        (kernels.refresh_contacts if kernels is not None else refresh_numpy)(rows, self._held, balls, h_move,
                                                                            TOUCH_SLOP)

    # --------------------------------------------------------------------- solve
    def solve(self, world, contacts, h, h_move):
        """Solve one sub-step h (s) of contacts, in place on world.pos, vel, angle and spin;
        the soft step's velocity change dv moves positions by h_move dv (see prepare)."""
        c = contacts
        if len(c):
            n = world.count
            balls = world_columns(world, np.zeros((n, 2)))
            kernels = self.kernels
            (kernels.solve if kernels is not None else solve_numpy)(c.rows, balls, solve_params(self.options, h, h_move))
            world.pos = np.stack((balls.px[:n], balls.py[:n]), axis=1)
            world.vel = np.stack((balls.vx[:n], balls.vy[:n]), axis=1)
            world.spin = balls.spin[:n].copy()
            world.angle = balls.angle[:n].copy()
        # Kept in canonical order (sorted keys) for the next sub-step's warm start.
        self._warm = Impulses(*(_canonical(x, c.order) for x in (c.key, c.pn, c.pt, c.pr)))

    def keep_sides(self, world, contacts, prev):
        """keep_sides (or its compiled twin) on world.pos and vel after a sub-step's solve and
        sweep, ``prev`` (N, 2) the positions at its start. Returns the (N,) bool of the
        balls sent back."""
        pos = np.array(world.pos, float)      # new arrays, as the solve gives
        vel = np.array(world.vel, float)
        prev = np.ascontiguousarray(prev, float)
        kernels = self.kernels
        back = (kernels.keep_sides if kernels is not None else keep_sides)(contacts.rows, bundles.statics(world.statics),
                                                                          prev, pos, vel)
        world.pos, world.vel = pos, vel
        return back


def solve_params(options, h, h_move):
    """The SolveParams of one sub-step h (s) whose velocity change dv moves positions by
    h_move dv, under the SolverOptions: the soft contacts' terms (``soft``, the statics'
    STATIC_STIFFNESS times stiffer) and the push-out's limit in those units."""
    o = options
    rate, mass_scale, impulse_scale = soft(o.contact_hertz, o.damping_ratio, h_move)
    s_rate, s_mass_scale, s_impulse_scale = soft(STATIC_STIFFNESS * o.contact_hertz, o.damping_ratio, h_move)
    return SolveParams(tau_max=float(IMPACT_LOOKBACK * h), h_move=float(h_move), threshold=float(o.restitution_threshold),
                       touch_slop=float(TOUCH_SLOP), max_passes=int(MAX_IMPACT_PASSES),
                       impact_budget=int(IMPACT_BUDGET), warm_start=bool(o.warm_start),
                       iterations=int(o.iterations), relax_iterations=int(o.relax_iterations), rate=float(rate),
                       mass_scale=float(mass_scale), impulse_scale=float(impulse_scale), s_rate=float(s_rate),
                       s_mass_scale=float(s_mass_scale), s_impulse_scale=float(s_impulse_scale),
                       max_push=float(o.max_push_speed * (h / h_move)))     # positions move h_move dv


def solve_numpy(contacts, balls, params):
    """The numpy execution of the solve (see the module docstring), in place on the
    extended (N + 1,) state of ``balls`` (bundles.BallColumns: px, py, vx, vy, spin, angle)
    and the (C,) impulses pn, pt, pr of ``contacts`` (bundles.ContactRows); ``params``:
    bundles.SolveParams. Each colour is one vectorised gather-compute-scatter; the compiled
    twin ``game.physics.compiled.solver.solve`` is the same, contact by contact."""
    cr = contacts
    colour_start, a, b, nx, ny, base = cr.colour_start, cr.a, cr.b, cr.nx, cr.ny, cr.base
    ax, ay, ra, rb, mass_n, mass_t = cr.ax, cr.ay, cr.ra, cr.rb, cr.mass_n, cr.mass_t
    restitution, friction, static, pn, pt, pr = cr.restitution, cr.friction, cr.static, cr.pn, cr.pt, cr.pr
    px, py, vx, vy, spin, angle, w, inv_i = (balls.px, balls.py, balls.vx, balls.vy, balls.spin, balls.angle,
                                             balls.w, balls.inv_i)
    tau_max, h_move, threshold, touch_slop = params.tau_max, params.h_move, params.threshold, params.touch_slop
    max_passes, warm_start, iterations = params.max_passes, params.warm_start, params.iterations
    relax_iterations = params.relax_iterations
    scale_a, scale_b = cr.scale_a, cr.scale_b
    colours = [(int(colour_start[k]), int(colour_start[k + 1])) for k in range(len(colour_start) - 1)]
    max_passes = min(max_passes, max(1, params.impact_budget // max(len(colours), 1)))
    # Moving walls: a static contact's other body moves at the wall's velocity (wvx, wvy) at
    # the touch and turns at wspin (contacts.wall_rows); the stand-in's column stays still.
    walls = has_walls(cr)
    wvx, wvy, kick = cr.wvx, cr.wvy, cr.kick
    # 1. Impacts, until no contact closes faster than the threshold (their impulses kept in
    # jn, jt: the work the walls do, the kicks counted).
    imp_n = cr.jn
    imp_t = cr.jt
    imp_n[:] = 0.0
    imp_t[:] = 0.0
    # A colour none of whose balls an impact has moved since it was last looked at closes as
    # it did then: slower than the threshold (else its own impacts moved them), so the pass
    # skips it with the same hits in the same order (the kernel does so contact by contact).
    # moved[x]: the count of colour visits with hits when ball x last took an impact.
    moved = np.full(len(px), -1, np.int64)
    seen = [-1] * len(colours)            # that count when each colour was last looked at
    visits = 0
    looks = 0                            # colours looked at: the loop's work (IMPACT_BUDGET)
    several = len(colours) > 1           # with one colour, every pass looks at it
    for _ in range(max_passes):
        hits = 0
        for c, (lo, hi) in enumerate(colours):
            ka, kb = a[lo:hi], b[lo:hi]
            if several and seen[c] >= 0 and moved[ka].max() < seen[c] and moved[kb].max() < seen[c]:
                continue
            seen[c] = visits
            looks += 1
            knx, kny = nx[lo:hi], ny[lo:hi]
            vxa, vxb, vya, vyb = vx[ka], vx[kb], vy[ka], vy[kb]
            if walls:
                on = static[lo:hi] >= 0
                vxb = np.where(on, wvx[lo:hi], vxb)
                vyb = np.where(on, wvy[lo:hi], vyb)
            pxa, pxb, pya, pyb = px[ka], px[kb], py[ka], py[kb]
            dx, dy = pxa - pxb, pya - pyb
            rvx, rvy = vxa - vxb, vya - vyb
            vn = rvx * knx + rvy * kny
            depth = base[lo:hi] - (dx * knx + dy * kny)
            sel = np.nonzero((-vn > threshold) & (depth > -touch_slop))[0]
            if len(sel) == 0:
                continue
            if len(sel) < hi - lo:        # some of the colour: gather them
                k = sel + lo
                ka, kb, knx, kny, vn, depth = ka[sel], kb[sel], knx[sel], kny[sel], vn[sel], depth[sel]
                vxa, vxb, vya, vyb, pxa, pxb, pya, pyb, dx, dy, rvx, rvy = (
                    x[sel] for x in (vxa, vxb, vya, vyb, pxa, pxb, pya, pyb, dx, dy, rvx, rvy))
            else:                         # all of it: the slices serve
                k = slice(lo, hi)
            # They touched tau ago: for a ball pair, back along the relative velocity u until
            # |d - tau u| = r_a + r_b (the root of a quadratic), and the impulse acts along
            # the normal there, where both balls met; against a static, back through the depth
            # at the closing speed, along the normal found.
            pair = static[k] < 0
            if pair.any():
                reach = ra[k] + rb[k]
                du = dx * rvx + dy * rvy
                uu = rvx * rvx + rvy * rvy
                disc = du * du - uu * (dx * dx + dy * dy - reach * reach)
                back = (du + np.sqrt(np.maximum(disc, 0.0))) / uu
                tau = np.minimum(np.maximum(np.where(pair, back, depth / (0.0 - vn)), 0.0), tau_max)
                tx = dx - tau * rvx
                ty = dy - tau * rvy
                length = np.sqrt(tx * tx + ty * ty)
                use = pair & (length > 0.0)
                safe = np.where(use, length, 1.0)
                mx = np.where(use, tx / safe, knx)
                my = np.where(use, ty / safe, kny)
                # Friction acts at one point of the line of centres there: the lever arms split
                # its length (r_a + r_b, but where the look back was cut short), so the torques
                # undo the angular momentum J |d - tau u| its tangent impulse J gives the orbit.
                split = np.where(use, length / reach, 1.0)
                la = ra[k] * split
                lb = rb[k] * split
            else:                         # only statics: the normal found, whole radii
                tau = np.minimum(np.maximum(depth / (0.0 - vn), 0.0), tau_max)
                mx, my, la, lb = knx, kny, ra[k], rb[k]
            # The closing speed at the touch, tau before the forces' last change of it: the
            # collision takes that, and the forces act on after it (x* + dv tau holds both).
            vn_touch = (rvx - ax[k] * tau) * mx + (rvy - ay[k] * tau) * my
            p_n = np.maximum((1.0 + restitution[k]) * (0.0 - vn_touch) * mass_n[k], 0.0)
            if walls:                     # a bumper: it leaves at least kick m/s away
                kk = kick[k]
                p_n = np.where(kk > 0.0, np.maximum(p_n, (kk - vn_touch) * mass_n[k]), p_n)
            total = imp_n[k] + p_n
            imp_n[k] = total
            sa, sb = spin[ka], spin[kb]
            vt = (rvy * mx - rvx * my) - sa * la - sb * lb
            old = imp_t[k].copy()       # k may be a slice: a copy, it is written below
            limit = friction[k] * total
            new = np.minimum(np.maximum(old - vt * mass_t[k], 0.0 - limit), limit)
            imp_t[k] = new
            p_t = new - old
            # A hit whose impulses are both zero changes nothing (it closed fast at x* but not
            # at the touch, the forces having sped it up since): it is not written, and not
            # counted, so a pass of only such hits ends the loop instead of repeating to
            # MAX_IMPACT_PASSES (a ball a stiff spring presses on a wall did so every sub-step).
            eff = (p_n != 0.0) | (p_t != 0.0)
            hits += int(np.count_nonzero(eff))
            if not eff.all():
                if not eff.any():
                    continue
                ka, kb, mx, my, la, lb, tau, p_n, p_t, vxa, vxb, vya, vyb, pxa, pxb, pya, pyb, sa, sb = (
                    x[eff] for x in (ka, kb, mx, my, la, lb, tau, p_n, p_t, vxa, vxb, vya, vyb, pxa, pxb, pya,
                                     pyb, sa, sb))
            if several:
                moved[ka] = visits
                moved[kb] = visits
                visits += 1
            jx = p_n * mx - p_t * my
            jy = p_n * my + p_t * mx
            wa, wb = w[ka], w[kb]
            dvax, dvay = jx * wa, jy * wa
            dvbx, dvby = jx * wb, jy * wb
            dwa = (0.0 - la * p_t) * inv_i[ka]
            dwb = (0.0 - lb * p_t) * inv_i[kb]
            vx[ka] = vxa + dvax
            vy[ka] = vya + dvay
            vx[kb] = vxb - dvbx
            vy[kb] = vyb - dvby
            spin[ka] = sa + dwa
            spin[kb] = sb + dwb
            px[ka] = pxa + dvax * tau
            py[ka] = pya + dvay * tau
            px[kb] = pxb - dvbx * tau
            py[kb] = pyb - dvby * tau
            angle[ka] = angle[ka] + dwa * tau
            angle[kb] = angle[kb] + dwb * tau
            if walls:
                _still_stand_in(px, py, vx, vy, spin, angle)
        if hits == 0:
            break
    solve_numpy.impact_looks = looks      # for the tests of the budget
    # 2. Warm start.
    vx0, vy0, spin0 = vx.copy(), vy.copy(), spin.copy()
    if warm_start:
        for lo, hi in colours:
            ka, kb, knx, kny = a[lo:hi], b[lo:hi], nx[lo:hi], ny[lo:hi]
            p_n, p_t, p_r = pn[lo:hi], pt[lo:hi], pr[lo:hi]
            jx = p_n * knx - p_t * kny
            jy = p_n * kny + p_t * knx
            fa, fb = scale_a[lo:hi], scale_b[lo:hi]
            vx[ka] = vx[ka] + jx * (w[ka] * fa)
            vy[ka] = vy[ka] + jy * (w[ka] * fa)
            vx[kb] = vx[kb] - jx * (w[kb] * fb)
            vy[kb] = vy[kb] - jy * (w[kb] * fb)
            spin[ka] = spin[ka] + (p_r - ra[lo:hi] * p_t) * (inv_i[ka] * fa)
            spin[kb] = spin[kb] + (0.0 - p_r - rb[lo:hi] * p_t) * (inv_i[kb] * fb)
    else:
        pn[:] = 0.0
        pt[:] = 0.0
        pr[:] = 0.0
    # 3. Soft passes with the push-out bias; their velocity change moves the positions. The
    # velocities and impulses then go back to the warm start's: the push moves, and never
    # becomes speed (split impulses), so a deep overlap cannot gain energy.
    vxw, vyw, spinw, pnw, ptw, prw = vx.copy(), vy.copy(), spin.copy(), pn.copy(), pt.copy(), pr.copy()
    if iterations > 0:
        terms = _by_colour(_colour_terms(0, len(a), True, contacts, balls, params), colours)
    for _ in range(iterations):
        for t in terms:
            _pass(t, pn, pt, pr, vx, vy, spin)
    pxm, pym, pnm, ptm = px.copy(), py.copy(), pn.copy(), pt.copy()     # the move's start and impulses
    px[:] = px + h_move * (vx - vx0)
    py[:] = py + h_move * (vy - vy0)
    angle[:] = angle + h_move * (spin - spin0)
    vx[:], vy[:], spin[:], pn[:], pt[:], pr[:] = vxw, vyw, spinw, pnw, ptw, prw
    # 4. Relax: the same passes without the bias, velocities only. An island the warm start
    # left with more kinetic energy than before it is relaxed again from before it.
    # Without a warm start there is nothing to undo (the relax from before it is the first).
    for attempt in range(2 if warm_start else 1):
        give_back_turn(colours, contacts, balls, pnm, ptm, pxm, pym, h_move)
        if relax_iterations > 0 and attempt == 0:    # the moved positions stay put from here on
            terms = _by_colour(_colour_terms(0, len(a), False, contacts, balls, params), colours)
        for _ in range(relax_iterations):
            for t in terms:
                _pass(t, pn, pt, pr, vx, vy, spin)
        if attempt == 1 or not warm_start:
            break
        gained = energy_gained(a, b, static, vx, vy, spin, vx0, vy0, spin0, w, inv_i)
        if not gained.any():
            break
        vx[:], vy[:], spin[:] = np.where(gained, vx0, vxw), np.where(gained, vy0, vyw), np.where(gained, spin0, spinw)
        cold = gained[a]
        pn[:], pt[:], pr[:] = np.where(cold, 0.0, pnw), np.where(cold, 0.0, ptw), np.where(cold, 0.0, prw)
    # The statics' stand-in stays still at the origin whatever was written to it.
    for array in (px, py, vx, vy, spin, angle):
        array[-1] = 0.0


def keep_sides(contacts, statics, prev, pos, vel):
    """No centre ends a sub-step across a static's core it did not start across: a ball
    whose centre's path from ``prev`` (the sub-step's start) to ``pos`` (after the solve and
    its sweep) crosses the core of a thin wall or stadium (either way) or a polygon's edge
    (inwards) of one of its contacts goes back to ``prev``, and loses its speed along that
    move and into that static (its normal turned to the side the ball came from, as
    ``collide.ball_static_geometry`` turns it). In place on (N, 2) pos and vel;
    ``contacts``: bundles.ContactRows (a, static: the contacts in solve order); ``statics``:
    bundles.Statics (the core ends, unit normals and polygons). Returns the (N,) bool of the
    balls sent back.

    Without it, a ball pressed between two walls closer than its diameter (a sharp wedge, or
    a thin floor under a heavy pile) was pushed across the nearer wall by the other's
    push-out; in the next sub-step it started on the far side, the wall's normal turned
    round, and the wall pushed it on out (issue 28). Each contact is tested with the centre
    where the contacts before it left it: a ball sent back has not moved, so only its first
    crossing contact in solve order acts (the compiled twin
    ``game.physics.compiled.solver.keep_sides`` goes one contact after another, with the
    same arithmetic)."""
    a, static = contacts.a, contacts.static
    ax, ay, bx, by, snx, sny, polygon = (statics.ax, statics.ay, statics.bx, statics.by, statics.nx, statics.ny,
                                         statics.polygon)
    back = np.zeros(len(pos), bool)
    rows = np.nonzero(static >= 0)[0]
    if len(rows) == 0:
        return back
    e, c = a[rows], static[rows]
    dx = bx[c] - ax[c]
    dy = by[c] - ay[c]
    # The sub-step's start in the wall's frame: a moving wall's start carried with it.
    fx, fy = motion.carried(statics, c, prev[e, 0], prev[e, 1])
    came_from = dx * (fy - ay[c]) - dy * (fx - ax[c])
    now = dx * (pos[e, 1] - ay[c]) - dy * (pos[e, 0] - ax[c])
    mx = pos[e, 0] - fx
    my = pos[e, 1] - fy
    side_a = mx * (ay[c] - fy) - my * (ax[c] - fx)
    side_b = mx * (by[c] - fy) - my * (bx[c] - fx)
    edge = polygon[c] >= 0
    # A centre that started on a wall's core came from its normal's side (as in the
    # contacts); one that starts on a polygon's edge or outside it may not go in.
    crossed = np.where(edge, (came_from <= 0) & (now > 0), (came_from * now < 0) | ((came_from == 0) & (now < 0)))
    crossed &= side_a * side_b <= 0
    if not crossed.any():
        return back
    k = np.nonzero(crossed)[0]
    k = k[np.unique(e[k], return_index=True)[1]]           # each ball's first, in solve order
    e, c = e[k], c[k]
    sign = np.where((came_from[k] >= 0) & ~edge[k], 1.0, -1.0)
    nx = sign * snx[c]
    ny = sign * sny[c]
    # Going back, the ball keeps no speed along the move it did not make (else it came back
    # up with the speed of its fall: a ball wedged in a 1 degree vee bounced ever higher).
    # Against a moving wall, both relative to the wall's velocity at the contact (wvx, wvy).
    kx, ky = mx[k], my[k]
    wvx, wvy = contacts.wvx[rows][k], contacts.wvy[rows][k]
    along = (vel[e, 0] - wvx) * kx + (vel[e, 1] - wvy) * ky
    mm = kx * kx + ky * ky
    with np.errstate(invalid="ignore", divide="ignore"):
        f = np.where((along > 0.0) & (mm > 0.0), along / mm, 0.0)
    vel[e, 0] = vel[e, 0] - f * kx
    vel[e, 1] = vel[e, 1] - f * ky
    pos[e, 0] = fx[k]
    pos[e, 1] = fy[k]
    vn = (vel[e, 0] - wvx) * nx + (vel[e, 1] - wvy) * ny
    vn = np.where(vn < 0.0, vn, 0.0)
    vel[e, 0] = vel[e, 0] - vn * nx
    vel[e, 1] = vel[e, 1] - vn * ny
    back[e] = True
    return back


def give_back_turn(colours, contacts, balls, pn_move, pt_move, px_from, py_from, h_move):
    """Each ball pair gives back the angular momentum its warm start and split-impulse move
    gave the pair's orbit, by an impulse across its line of centres; in place on the
    (N + 1,) velocities vx, vy, before the relax passes (so they, and the walls' contacts,
    answer what it adds).

    ``colours``: the colours' (lo, hi) slices; ``contacts``: bundles.ContactRows, whose
    ``pn, pt`` are the warm start's (N s, 0 where it was dropped); ``balls``:
    bundles.BallColumns, positions (px, py) m and velocities (vx, vy) m/s kept through the
    move; ``pn_move, pt_move``: the impulses (N s) after the soft passes, whose velocity
    change moved the positions by h_move dv from (px_from, py_from) to (px, py) (m). The
    compiled twin is ``game.physics.compiled.solver._give_back_turn``.

    With d = x_a - x_b, u = v_a - v_b and the contact's impulse S = p_n n + p_t t
    (t = (-n_y, n_x)), the angular momentum about the origin, sum (m x cross v + I spin),
    changed by
      the warm start at x_from:  d cross W - (r_a + r_b) p_t = p_n d cross n + p_t (d . n - r_a - r_b)
      the move at u:             sum m dx cross v = h_move S_move cross u
    (the relax keeps it: its normals are the moved lines of centres, its friction arms split
    |d|). An impulse J along t' = z cross d / |d| at the moved d changes it by J |d|, so
    J = -dL / |d| gives it back: dv_a = w_a c (d_y, -d_x), dv_b = -w_b c (d_y, -d_x),
    c = dL / |d|^2; the pair's momentum stays. Of the move's part, this is a pair parting by
    delta at its orbit's radius r keeping mu r u_t: u_t becomes u_t r / (r + delta), so it
    takes kinetic energy, never adds it (as a skater's arms spread).

    All impulses come from the velocities before any is applied; applied colour by colour
    (no ball twice in one), in the kernel's order. Only the pairs of islands clear of the
    statics give back (``islands``; on a static the law does not hold, and a ball nudged
    off its wall's contact was pushed into the wall in the next sub-step: tests/test_world.py,
    the thin-wall push), and not where mass scaling acts (under forces, where momentum is
    not kept either: ``support_scales``)."""
    cr = contacts
    a, b, nx, ny, static, ra, rb, pn, pt = cr.a, cr.b, cr.nx, cr.ny, cr.static, cr.ra, cr.rb, cr.pn, cr.pt
    scale_a, scale_b = cr.scale_a, cr.scale_b
    px, py, vx, vy, w = balls.px, balls.py, balls.vx, balls.vy, balls.w
    c = np.zeros(len(a))
    pair = (static < 0) & (scale_a == 1.0) & (scale_b == 1.0)
    if not pair.any():
        return
    if (static >= 0).any():
        label = islands(a, b, static, len(vx))
        held = np.zeros(len(vx), bool)
        held[label[a[static >= 0]]] = True
        pair &= ~held[label[a]]
    k = np.nonzero(pair)[0]
    ka, kb, knx, kny = a[k], b[k], nx[k], ny[k]
    fx = px_from[ka] - px_from[kb]
    fy = py_from[ka] - py_from[kb]
    sx = pn_move[k] * knx - pt_move[k] * kny
    sy = pn_move[k] * kny + pt_move[k] * knx
    ux = vx[ka] - vx[kb]
    uy = vy[ka] - vy[kb]
    turn = (pn[k] * (fx * kny - fy * knx) + pt[k] * ((fx * knx + fy * kny) - (ra[k] + rb[k]))
            + h_move * (sx * uy - sy * ux))                                   # dL, kg m^2/s
    dx = px[ka] - px[kb]
    dy = py[ka] - py[kb]
    d2 = dx * dx + dy * dy
    with np.errstate(divide="ignore", invalid="ignore"):
        c[k] = np.where(d2 > 1e-24, turn / d2, 0.0)
    for lo, hi in colours:
        k = np.nonzero(c[lo:hi] != 0.0)[0] + lo
        ka, kb, kc = a[k], b[k], c[k]
        cx = kc * (py[ka] - py[kb])
        cy = kc * (px[kb] - px[ka])
        vx[ka] = vx[ka] + cx * w[ka]
        vy[ka] = vy[ka] + cy * w[ka]
        vx[kb] = vx[kb] - cx * w[kb]
        vy[kb] = vy[kb] - cy * w[kb]


def islands(a, b, static, size):
    """(size,) int64: each ball's island, the least ball index joined to it by ball-ball
    contacts (statics join nothing; index size - 1, their stand-in, is its own). A fixed
    point of minima: the kernel's union-find (the larger root under the smaller) gives the
    same labels."""
    pair = static < 0
    pa, pb = a[pair], b[pair]
    label = np.arange(size)
    while len(pa):
        joined = label.copy()
        np.minimum.at(joined, pa, label[pb])
        np.minimum.at(joined, pb, label[pa])
        joined = joined[joined]        # pointer jumping: label[j] <= j lies in j's island
        if np.array_equal(joined, label):
            break
        label = joined
    return label


def energy_gained(a, b, static, vx, vy, spin, vx0, vy0, spin0, w, inv_i):
    """(N + 1,) bool: the balls of the islands whose kinetic energy (with rotation) the
    solve's warm start and relax raised above its value before the warm start (vx0, vy0,
    spin0), among the islands that touch no static; the (N + 1,) state arrays, the stand-in
    last (never marked). An island on a static is held up by its warm start: relaxed again
    from cold, a pile of hundreds dropped and overlapped by more than a radius.

    Each relax step minimises the kinetic energy along its row (the clamped impulse is the
    minimiser over its interval), so relaxed from before the warm start an island never
    gains; given last sub-step's impulses again it may: a parting chain of balls with
    friction gained up to 1.2e-3 of its energy a tick (issue 9). Such an island is relaxed
    again from before the warm start (solve_numpy); the islands are independent, so the
    others keep their bits. Sums run over the balls in index order (bincount), as in the
    kernel's twin."""
    size = len(vx)
    n = size - 1
    with np.errstate(divide="ignore"):
        m = np.where(w[:n] > 0.0, 1.0 / w[:n], 0.0)
        moment = np.where(inv_i[:n] > 0.0, 1.0 / inv_i[:n], 0.0)
    change = 0.5 * (((vx[:n] * vx[:n] + vy[:n] * vy[:n]) - (vx0[:n] * vx0[:n] + vy0[:n] * vy0[:n])) * m
                    + (spin[:n] * spin[:n] - spin0[:n] * spin0[:n]) * moment)
    if not np.any(change > 0.0):               # no island can have gained
        return np.zeros(size, bool)
    label = islands(a, b, static, size)[:n]
    island_gained = np.bincount(label, change, minlength=size) > 0.0
    island_gained[label[a[static >= 0]]] = False
    gained = np.zeros(size, bool)
    gained[:n] = island_gained[label]
    return gained


def _colour_terms(lo, hi, use_bias, contacts, balls, params):
    """What a soft pass (_pass) over the contacts lo:hi reads that the passes do not change:
    the balls, normals, bias, softness, (scaled) inverse masses and effective masses, the
    lever arms and the friction and rolling limits' factors. Worked out once a solve for
    all the contacts (then cut by colour, _by_colour) for the bias passes and once for the
    relax passes (the positions they read stay put while they run): element by element the
    same arithmetic as the kernel does at every pass.

    With the bias (s: the gap at the sub-step's start): a gap may close within the sub-step
    (speculative, bias s / h), an overlap is pushed out softly. Without it (relax), the
    contacts that pushed stop their approach, no more: the push-out speed goes, and a ball
    at rest reports no speed.

    ``contacts``: bundles.ContactRows; ``balls``: bundles.BallColumns (positions px, py, inverse
    masses w, inv_i); ``params``: bundles.SolveParams (h_move, the soft terms, max_push). The
    compiled twins: ``_contact_terms`` and ``_relax_normals`` of game.physics.compiled.solver."""
    cr, sp = contacts, params
    a, b, nx, ny, separation, ra, rb = cr.a, cr.b, cr.nx, cr.ny, cr.separation, cr.ra, cr.rb
    mass_n, mass_t, mass_r, friction, rolling = cr.mass_n, cr.mass_t, cr.mass_r, cr.friction, cr.rolling
    on_static, scale_a, scale_b = cr.static >= 0, cr.scale_a, cr.scale_b
    px, py, w, inv_i = balls.px, balls.py, balls.w, balls.inv_i
    walls = has_walls(cr)
    h_move, rate, mass_scale, impulse_scale = sp.h_move, sp.rate, sp.mass_scale, sp.impulse_scale
    s_rate, s_mass_scale, s_impulse_scale, max_push = sp.s_rate, sp.s_mass_scale, sp.s_impulse_scale, sp.max_push
    ka, kb, knx, kny = a[lo:hi], b[lo:hi], nx[lo:hi], ny[lo:hi]
    if use_bias:
        s = separation[lo:hi]
        st = on_static[lo:hi]
        k_rate = np.where(st, s_rate, rate)
        k_ms = np.where(st, s_mass_scale, mass_scale)
        k_is = np.where(st, s_impulse_scale, impulse_scale)
        bias = np.where(s > 0.0, s * (1.0 / h_move), np.maximum(k_ms * k_rate * s, 0.0 - max_push))
        ms = np.where(s > 0.0, 1.0, k_ms)
        im = np.where(s > 0.0, 0.0, k_is)
    else:
        bias, ms, im = 0.0, 1.0, 0.0     # no push: numbers, not (C,) arrays of them
        # Velocities only, at the moved positions: a ball pair's normal is its line of
        # centres now (an impulse off it would turn the pair about nothing).
        dx = px[ka] - px[kb]
        dy = py[ka] - py[kb]
        length = np.sqrt(dx * dx + dy * dy)
        fresh = ~on_static[lo:hi] & (length > 1e-12)
        safe = np.where(fresh, length, 1.0)
        knx = np.where(fresh, dx / safe, knx)
        kny = np.where(fresh, dy / safe, kny)
        # Friction acts at one point of it: the lever arms split |d| (see the impacts).
        split = np.where(fresh, length / (ra[lo:hi] + rb[lo:hi]), 1.0)
    wa, wb, ia, ib = w[ka], w[kb], inv_i[ka], inv_i[kb]
    kra, krb = ra[lo:hi], rb[lo:hi]
    m_n, m_t, m_r = mass_n[lo:hi], mass_t[lo:hi], mass_r[lo:hi]
    # Contact mass scaling (a ball holding up a heavier one: see support_scales).
    fa, fb = scale_a[lo:hi], scale_b[lo:hi]
    scaled = (fa != 1.0) | (fb != 1.0)
    if scaled.any():
        wa, wb, ia, ib = wa * fa, wb * fb, ia * fa, ib * fb
        k_n = wa + wb
        k_t = k_n + (ia * (kra * kra) + ib * (krb * krb))
        k_r = ia + ib
        with np.errstate(divide="ignore"):
            m_n = np.where(scaled, np.where(k_n > 0, 1.0 / k_n, 0.0), m_n)
            m_t = np.where(scaled, np.where(k_t > 0, 1.0 / k_t, 0.0), m_t)
            m_r = np.where(scaled, np.where(k_r > 0, 1.0 / k_r, 0.0), m_r)
    if not use_bias:
        kra, krb = kra * split, krb * split
    # The impulses' directions on each ball, and the limits' factors.
    # Moving walls: the static contacts' other body's velocity and spin (None: all still).
    wall = (on_static[lo:hi], cr.wvx[lo:hi], cr.wvy[lo:hi], cr.wspin[lo:hi]) if walls else (None,) * 4
    return (lo, hi, ka, kb, knx, kny, bias, ms, im, m_n, m_t, m_r, wa, wb, kra, krb, ia, ib, friction[lo:hi],
            rolling[lo:hi], *wall)


def _by_colour(terms, colours):
    """_colour_terms of all the contacts (lo, hi first) cut into each colour's (lo, hi) slices."""
    rest = terms[2:]
    cut = [isinstance(x, np.ndarray) for x in rest]
    return [(lo, hi, *[x[lo:hi] if c else x for x, c in zip(rest, cut)]) for lo, hi in colours]


def _pass(terms, pn, pt, pr, vx, vy, spin):
    """One soft pass over a colour (its _colour_terms): normal, then friction, then rolling
    resistance, in place on the (C,) impulses and the (N + 1,) velocities and spins."""
    lo, hi, ka, kb, knx, kny, bias, ms, im, m_n, m_t, m_r, wa, wb, kra, krb, ia, ib, fr, rl, wall, wvx, wvy, wspin = terms
    vax, vay, vbx, vby = vx[ka], vy[ka], vx[kb], vy[kb]
    if wall is not None:
        vbx = np.where(wall, wvx, vbx)
        vby = np.where(wall, wvy, vby)
    vn = (vax - vbx) * knx + (vay - vby) * kny
    old = pn[lo:hi].copy()        # a copy: the slice is written below
    new = np.maximum(old - m_n * (ms * vn + bias) - im * old, 0.0)
    pn[lo:hi] = new
    p_n = new - old
    vax = vax + p_n * knx * wa
    vay = vay + p_n * kny * wa
    vbx = vbx - p_n * knx * wb
    vby = vby - p_n * kny * wb
    # Friction at the contact point: it turns the balls.
    sa, sb = spin[ka], spin[kb]
    if wall is not None:
        sb = np.where(wall, wspin, sb)
    vt = ((vay - vby) * knx - (vax - vbx) * kny) - sa * kra - sb * krb
    old = pt[lo:hi].copy()        # a copy: the slice is written below
    limit = fr * new
    newt = np.minimum(np.maximum(old - vt * m_t, 0.0 - limit), limit)
    pt[lo:hi] = newt
    p_t = newt - old
    vax = vax - p_t * kny * wa
    vay = vay + p_t * knx * wa
    vbx = vbx + p_t * kny * wb
    vby = vby - p_t * knx * wb
    sa = sa - (kra * p_t) * ia
    sb = sb - (krb * p_t) * ib
    # Rolling resistance: an angular impulse on the relative spin, |pr| <= rolling * pn.
    old = pr[lo:hi].copy()        # a copy: the slice is written below
    limit = rl * new
    newr = np.minimum(np.maximum(old - m_r * (sa - sb), 0.0 - limit), limit)
    pr[lo:hi] = newr
    p_r = newr - old
    sa = sa + p_r * ia
    sb = sb - p_r * ib
    vx[ka] = vax
    vy[ka] = vay
    vx[kb] = vbx
    vy[kb] = vby
    spin[ka] = sa
    spin[kb] = sb
    if wall is not None:
        _still_stand_in(None, None, vx, vy, spin, None)


def has_walls(contacts):
    """Whether some contact of the ContactRows is on a moving wall, a conveyor or a bumper."""
    return bool(contacts.wvx.any() or contacts.wvy.any() or contacts.wspin.any() or contacts.kick.any())


def _still_stand_in(px, py, vx, vy, spin, angle):
    """The statics' stand-in (index N, last) back at rest at the origin: a scatter of a colour
    wrote the walls' velocities into it, which no contact reads (they read wvx, wvy, wspin)."""
    for array in (px, py, vx, vy, spin, angle):
        if array is not None:
            array[-1] = 0.0
