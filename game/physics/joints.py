"""Joints: rods, ropes, pins and motors between balls (or a ball and an anchor), solved as
Box2D v3 solves its distance and revolute joints, after the contacts in each sub-step.

A joint holds ball ``a`` at ``offset_a`` (metres in the ball's own frame, turning with it)
and ball ``b`` at ``offset_b``, or an anchor point in the world (``b`` = -1).

- a **rod** of ``length`` > 0 keeps its held points that far apart (a distance constraint
  along their line, ``axis``); a rod of length 0 holds them together (a point constraint,
  two rows: a pin, an axle, a hinge): the ball turns freely about it;
- a **rope** keeps them at most ``length`` apart: the rod's row with only the pulling side
  (its accumulated impulse along d <= 0) and nothing while slack (Box2D's speculative upper limit:
  a rope whose ends would stay within its length this sub-step gives no impulse);
- a **motor** drives ball a's spin relative to the rod's own turning (for a rod of length 0:
  relative to ball b, or to the world for an anchor) towards ``speed`` rad/s, its
  accumulated impulse clamped to ``torque * h``. Its reaction is a couple on the rod's held
  points (perpendicular to the rod, arm |d|), so momentum and angular momentum are kept:
  the row's Jacobian is J = (dspin_a: 1 + q r_a x p, dv_a: q p, dv_b: -q p, dspin_b: -q r_b x p)
  with d = held_b - held_a, p = perp(d) = (-d_y, d_x), q = 1 / |d|^2.

The stages, as Box2D's (src/distance_joint.c, src/revolute_joint.c), in ``substep``:
``prepare`` once a tick (the softness for this sub-step length; the peak forces cleared),
then in each sub-step after the contacts' solve: warm start (the last sub-step's impulses
again), ``JOINT_ITERATIONS`` passes with the soft bias (joint_hertz, damping ratio) and
``JOINT_RELAX_ITERATIONS`` passes without it. Anchors, axes and effective masses are worked
out in every pass (Box2D turns its prepared anchors by each body's rotation since the
prepare: the same thing), at the sub-step's start for the warm start and the biased passes
and at the positions now for the relax (see below). Jointed balls do not collide with each
other (``unjoined``, Box2D's default).

This engine has integrated the positions before the solve (x* = x + h v): a velocity change
dv of the warm start and the biased passes moves positions by ``h_move`` dv, as the
contacts' does (game.physics.solver), and the relax passes change velocities only. So the
rows of the warm start and the biased passes are taken at x* - h_move v, the sub-step's
start (a move by h_move dv leaves it where it is), the error C is measured at x* now, and
the bias acts on C0 = C(x*) - h_move Cdot: in the rigid limit the positions land on the
constraint, C(x* + h_move dv) = 0, with the impulse along the start's axis (SHAKE's choice:
a rod's correction then gives back the speed the relax onto the new tangent takes, so a
pendulum keeps its energy; rows taken at x* lost 9 % of it in ten periods).

One algorithm in one order: joints are solved one after another in their list's order
(each joint its own colour), by ``substep_kernel``, written once in plain scalar Python.
The numpy execution runs it as Python; the compiled one (game.physics.compiled.joints)
compiles this very function with numba: the same arithmetic in the same order, so the
same bits (tests/test_joints.py).

``break``: a joint whose force (its accumulated impulse over h, newtons) exceeds it in some
sub-step is removed at the end of the tick (``World.joint_breaks`` says where).
"""
import math
import typing

import numpy as np

from game.physics.solver import soft

JOINT_HERTZ = 60.0            # Hz: the stiffness of the soft joints (Box2D v3: 2 x its contact hertz)
JOINT_DAMPING_RATIO = 2.0     # of critical (Box2D v3's jointDampingRatio)
JOINT_ITERATIONS = 1          # biased passes a sub-step (Box2D v3: one)
JOINT_RELAX_ITERATIONS = 1    # relax passes a sub-step (Box2D v3: one)
ROD, ROPE = 0, 1              # kinds, as stored in Joints.kind
KINDS = ("rod", "rope")
NO_BREAK = math.inf


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


class JointRows(typing.NamedTuple):
    """The joints' (J,) rows: balls a, b (b < 0: an anchor), kind, anchor, offsets, length,
    motor, and the impulses and peak forces the sub-step writes."""
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


def substep_kernel(balls, rows, params):
    """One sub-step of every joint, in place on the balls' (N,) state (positions px, py, m;
    velocities vx, vy, m/s; angle, rad; spin, rad/s; inverse masses w, 1/kg, and moments
    inv_i, 1/(kg m^2)) and on the joints' (J,) impulses (imp_x, imp_y: a rod's or rope's
    impulse along d = held_b - held_a in imp_x (a rope's <= 0), a pin's vector impulse in
    both; imp_m: the motor's angular impulse on ball a) and peak forces (peak, N).

    Plain scalar Python that numba compiles as it is (game.physics.compiled.joints)."""
    px, py, vx, vy, angle, spin, w, inv_i = balls
    (a, b, kind, anchor_x, anchor_y, off_ax, off_ay, off_bx, off_by, length, has_motor, speed, torque,
     imp_x, imp_y, imp_m, peak) = rows
    h, h_move, rate, mass_scale, impulse_scale, warm_start, iterations, relax_iterations = params
    n_joints = a.shape[0]
    for phase in range(1 + iterations + relax_iterations):
        # phase 0: warm start; then the biased passes (positions move h_move dv); then relax.
        warm = phase == 0
        if warm and not warm_start:
            for j in range(n_joints):
                imp_x[j] = 0.0
                imp_y[j] = 0.0
                imp_m[j] = 0.0
            continue
        use_bias = phase >= 1 and phase <= iterations
        moves = phase <= iterations
        for j in range(n_joints):
            ia = a[j]
            ib = b[j]
            # The held points: the offsets turned by the balls' angles.
            # The error C is measured at the held points now; the rows (axis, arms, Jacobian)
            # are taken at the sub-step's start, x - h_move v (the point this sub-step's
            # moves start from: a move by h_move dv leaves it where it is), in the warm start
            # and the biased passes; in the relax at the positions now (module docstring).
            back = h_move if moves else 0.0
            wa = w[ia]
            ja = inv_i[ia]
            vax = vx[ia]
            vay = vy[ia]
            spa = spin[ia]
            ca = math.cos(angle[ia])
            sa = math.sin(angle[ia])
            cax = px[ia] + (ca * off_ax[j] - sa * off_ay[j])
            cay = py[ia] + (sa * off_ax[j] + ca * off_ay[j])
            ca = math.cos(angle[ia] - back * spa)
            sa = math.sin(angle[ia] - back * spa)
            rax = ca * off_ax[j] - sa * off_ay[j]
            ray = sa * off_ax[j] + ca * off_ay[j]
            if ib >= 0:
                wb = w[ib]
                jb = inv_i[ib]
                vbx = vx[ib]
                vby = vy[ib]
                spb = spin[ib]
                cb = math.cos(angle[ib])
                sb = math.sin(angle[ib])
                cbx = px[ib] + (cb * off_bx[j] - sb * off_by[j])
                cby = py[ib] + (sb * off_bx[j] + cb * off_by[j])
                cb = math.cos(angle[ib] - back * spb)
                sb = math.sin(angle[ib] - back * spb)
                rbx = cb * off_bx[j] - sb * off_by[j]
                rby = sb * off_bx[j] + cb * off_by[j]
                qbx = (px[ib] - back * vbx) + rbx
                qby = (py[ib] - back * vby) + rby
            else:
                rbx = 0.0
                rby = 0.0
                wb = 0.0
                jb = 0.0
                vbx = 0.0
                vby = 0.0
                spb = 0.0
                cbx = anchor_x[j]
                cby = anchor_y[j]
                qbx = anchor_x[j]
                qby = anchor_y[j]
            cdx = cbx - cax                      # held_b - held_a now: the error's
            cdy = cby - cay
            dx = qbx - ((px[ia] - back * vax) + rax)   # and at the start: the rows'
            dy = qby - ((py[ia] - back * vay) + ray)
            pin = length[j] == 0.0 and kind[j] == ROD
            # Impulses of this pass: linear (pxx, pyy) at the held points (on b, minus on a),
            # and the motor's lam (its row's Jacobian, see the module docstring).
            pxx = 0.0
            pyy = 0.0
            lam = 0.0
            ga = 0.0
            gb = 0.0
            mq = 0.0
            perpx = 0.0
            perpy = 0.0
            d2 = dx * dx + dy * dy
            rod_frame = length[j] > 0.0 and d2 > 1e-24     # a motor turns relative to the rod
            if rod_frame:
                mq = 1.0 / d2
                perpx = 0.0 - dy
                perpy = dx
                ga = 1.0 + mq * (rax * perpy - ray * perpx)
                gb = mq * (rbx * perpy - rby * perpx)
            else:
                ga = 1.0
                gb = 1.0
            if warm:
                lam = imp_m[j] if has_motor[j] else 0.0
                if pin:
                    pxx = imp_x[j]
                    pyy = imp_y[j]
                else:
                    dd = math.sqrt(d2)
                    if dd > 1e-12:
                        pxx = imp_x[j] * (dx / dd)
                        pyy = imp_x[j] * (dy / dd)
            else:
                # The motor first (as Box2D's revolute joint): its impulse lam now, applied
                # to the local copies so the joint's rows below see it.
                if has_motor[j]:
                    limit = torque[j] * h
                    rvx = (vbx - spb * rby) - (vax - spa * ray)
                    rvy = (vby + spb * rbx) - (vay + spa * rax)
                    if rod_frame:
                        cdot = spa - mq * (perpx * rvx + perpy * rvy) - speed[j]
                        k = (wa + wb) * mq + ja * ga * ga + jb * gb * gb
                    else:
                        cdot = spa - spb - speed[j]
                        k = ja + jb
                    if k > 0.0:
                        old = imp_m[j]
                        new = min(max(old - cdot / k, 0.0 - limit), limit)
                        imp_m[j] = new
                        lam = new - old
                        vax += wa * lam * mq * perpx
                        vay += wa * lam * mq * perpy
                        spa += ja * lam * ga
                        vbx -= wb * lam * mq * perpx
                        vby -= wb * lam * mq * perpy
                        spb -= jb * lam * gb
                # The held points' relative velocity.
                rvx = (vbx - spb * rby) - (vax - spa * ray)
                rvy = (vby + spb * rbx) - (vay + spa * rax)
                if pin:
                    # Point constraint: C = held_b - held_a (2,), K the 2 x 2 effective mass.
                    bx = 0.0
                    by = 0.0
                    ms = 1.0
                    im = 0.0
                    if use_bias:
                        bx = rate * (cdx - h_move * rvx)
                        by = rate * (cdy - h_move * rvy)
                        ms = mass_scale
                        im = impulse_scale
                    k11 = wa + wb + ja * ray * ray + jb * rby * rby
                    k12 = 0.0 - ja * rax * ray - jb * rbx * rby
                    k22 = wa + wb + ja * rax * rax + jb * rbx * rbx
                    det = k11 * k22 - k12 * k12
                    if det > 0.0:
                        ex = rvx + bx
                        ey = rvy + by
                        sx = (k22 * ex - k12 * ey) / det
                        sy = (k11 * ey - k12 * ex) / det
                        pxx = 0.0 - ms * sx - im * imp_x[j]
                        pyy = 0.0 - ms * sy - im * imp_y[j]
                        imp_x[j] += pxx
                        imp_y[j] += pyy
                else:
                    dd = math.sqrt(d2)
                    if dd > 1e-12:
                        ux = dx / dd
                        uy = dy / dd
                        cra = rax * uy - ray * ux
                        crb = rbx * uy - rby * ux
                        k = wa + wb + ja * cra * cra + jb * crb * crb
                        if k > 0.0:
                            m = 1.0 / k
                            cdot = ux * rvx + uy * rvy                 # the stretching speed
                            c0 = (math.sqrt(cdx * cdx + cdy * cdy) - length[j]) - h_move * cdot   # the stretch, less this sub-step's
                            old = imp_x[j]
                            bias = 0.0
                            ms = 1.0
                            im = 0.0
                            if kind[j] == ROPE and c0 < 0.0:
                                # A rope slack at the sub-step's start: only what would
                                # overshoot its length (Box2D's speculative limit), rigidly.
                                bias = c0 / h_move
                            elif use_bias:
                                bias = rate * c0
                                ms = mass_scale
                                im = impulse_scale
                            new = old - ms * m * (cdot + bias) - im * old
                            if kind[j] == ROPE:
                                new = min(new, 0.0)                     # a rope only pulls
                            imp_x[j] = new
                            pxx = (new - old) * ux
                            pyy = (new - old) * uy
            # Apply: velocities always; positions and angles in the warm start and the biased passes.
            dvax = wa * lam * mq * perpx - wa * pxx
            dvay = wa * lam * mq * perpy - wa * pyy
            dspa = ja * lam * ga - ja * (rax * pyy - ray * pxx)
            vx[ia] += dvax
            vy[ia] += dvay
            spin[ia] += dspa
            if moves:
                px[ia] += h_move * dvax
                py[ia] += h_move * dvay
                angle[ia] += h_move * dspa
            if ib >= 0:
                dvbx = wb * pxx - wb * lam * mq * perpx
                dvby = wb * pyy - wb * lam * mq * perpy
                dspb = jb * (rbx * pyy - rby * pxx) - jb * lam * gb
                vx[ib] += dvbx
                vy[ib] += dvby
                spin[ib] += dspb
                if moves:
                    px[ib] += h_move * dvbx
                    py[ib] += h_move * dvby
                    angle[ib] += h_move * dspb
    # The force each joint held this sub-step (its impulse over h): the break test's.
    for j in range(n_joints):
        f = math.sqrt(imp_x[j] * imp_x[j] + imp_y[j] * imp_y[j]) / h
        if f > peak[j]:
            peak[j] = f


_FIELDS = (("a", np.int64), ("b", np.int64), ("kind", np.int64), ("anchor_x", float), ("anchor_y", float),
           ("off_ax", float), ("off_ay", float), ("off_bx", float), ("off_by", float), ("length", float),
           ("has_motor", np.bool_), ("speed", float), ("torque", float), ("imp_x", float), ("imp_y", float),
           ("imp_m", float), ("peak", float), ("break_force", float))


class Joints:
    """The world's joints as (J,) arrays (structure of arrays), in the order they are solved.

    ``a``, ``b`` ball indices (b = -1: the anchor ``anchor_x``, ``anchor_y``); ``kind`` ROD
    or ROPE; ``off_*`` the held points in the balls' frames, m; ``length`` m; the motor's
    ``has_motor``, ``speed`` rad/s and ``torque`` N m; the warm-start impulses ``imp_*``;
    ``peak`` the largest force (N) of this tick; ``break_force`` N (inf: never)."""

    def __init__(self):
        for name, dtype in _FIELDS:
            setattr(self, name, np.zeros(0, dtype))

    def __len__(self):
        return len(self.a)

    def add(self, definitions):
        """Add joints from normalised level definitions (game.level's "joints" items)."""
        rows = {name: [] for name, _ in _FIELDS}
        for d in definitions:
            anchor = (0.0, 0.0) if isinstance(d["b"], (int, np.integer)) else d["b"]
            motor = d.get("motor")
            values = {"a": int(d["a"]), "b": int(d["b"]) if isinstance(d["b"], (int, np.integer)) else -1,
                      "kind": KINDS.index(d["kind"]), "anchor_x": anchor[0], "anchor_y": anchor[1],
                      "off_ax": d["offset_a"][0], "off_ay": d["offset_a"][1],
                      "off_bx": d["offset_b"][0], "off_by": d["offset_b"][1], "length": d["length"],
                      "has_motor": motor is not None, "speed": motor["speed"] if motor else 0.0,
                      "torque": motor["torque"] if motor else 0.0, "imp_x": 0.0, "imp_y": 0.0, "imp_m": 0.0,
                      "peak": 0.0, "break_force": d.get("break", NO_BREAK)}
            for name, _ in _FIELDS:
                rows[name].append(values[name])
        for name, dtype in _FIELDS:
            setattr(self, name, np.concatenate((getattr(self, name), np.array(rows[name], dtype))))

    def keep(self, mask):
        """Keep only the joints ``mask`` (J,) bool."""
        for name, _ in _FIELDS:
            setattr(self, name, getattr(self, name)[mask])

    def remap_balls(self, new_index):
        """Balls were removed: ``new_index`` (N_old,) maps old indices to new (-1: gone);
        a joint on a gone ball goes with it."""
        if not len(self):
            return
        a = new_index[self.a]
        b = np.where(self.b >= 0, new_index[np.maximum(self.b, 0)], -1)
        keep = (a >= 0) & ((self.b < 0) | (b >= 0))
        self.a, self.b = a, b
        self.keep(keep)

    def shift_balls(self, at):
        """A ball was inserted at index ``at``: the indices from it on move up by one."""
        self.a = np.where(self.a >= at, self.a + 1, self.a)
        self.b = np.where(self.b >= at, self.b + 1, self.b)

    def rows(self, ball, ids):
        """[(position k, {field: value})] of the joints on ball index ``ball``, their ``a`` and
        ``b`` as ball ids (``ids``: the world's; b = -1: the anchor), for ``insert_rows``."""
        out = []
        for k in np.flatnonzero((self.a == ball) | (self.b == ball)).tolist():
            row = {name: getattr(self, name)[k].item() for name, _ in _FIELDS}
            row["a"] = int(ids[row["a"]])
            row["b"] = int(ids[row["b"]]) if row["b"] >= 0 else -1
            out.append((k, row))
        return out

    def insert_rows(self, rows, ids):
        """Put back joints from ``rows`` at their positions, their ball ids turned into the
        indices of ``ids`` (the world's now); a joint whose other ball has gone stays out."""
        for k, row in sorted(rows, key=lambda r: r[0]):
            a = np.flatnonzero(ids == row["a"])
            b = np.flatnonzero(ids == row["b"]) if row["b"] >= 0 else np.array([-1])
            if not (len(a) and len(b)):
                continue
            row = dict(row, a=int(a[0]), b=int(b[0]))
            at = min(k, len(self))
            for name, dtype in _FIELDS:
                setattr(self, name, np.insert(getattr(self, name), at, np.array(row[name], dtype)))

    def unjoined(self, candidates, n):
        """The candidate pairs (collide.find_candidates' (i, j, ball, capsule)) without the
        ball pairs a joint joins: jointed balls do not collide (Box2D's default), so a hinge
        may hold two overlapping balls and a chain's links may overlap. Order kept."""
        i, j, si, s = candidates
        both = self.b >= 0
        if not both.any() or not len(i):
            return candidates
        lo = np.minimum(self.a[both], self.b[both])
        hi = np.maximum(self.a[both], self.b[both])
        keep = ~np.isin(i * n + j, lo * n + hi)
        return (i, j, si, s) if keep.all() else (i[keep], j[keep], si, s)

    def definitions(self):
        """The joints as normalised level items (their warm-start impulses are not kept)."""
        out = []
        for j in range(len(self)):
            d = {"kind": KINDS[int(self.kind[j])], "a": int(self.a[j]),
                 "b": int(self.b[j]) if self.b[j] >= 0 else [float(self.anchor_x[j]), float(self.anchor_y[j])],
                 "length": float(self.length[j]), "offset_a": [float(self.off_ax[j]), float(self.off_ay[j])],
                 "offset_b": [float(self.off_bx[j]), float(self.off_by[j])]}
            if self.has_motor[j]:
                d["motor"] = {"speed": float(self.speed[j]), "torque": float(self.torque[j])}
            if self.break_force[j] != NO_BREAK:
                d["break"] = float(self.break_force[j])
            out.append(d)
        return out

    def ends(self, pos, angle):
        """((J, 2), (J, 2)): the held points of a and of b (the anchor) in the world, m."""
        def held(ball, ox, oy):
            c, s = np.cos(angle[ball]), np.sin(angle[ball])
            return np.stack((pos[ball, 0] + c * ox - s * oy, pos[ball, 1] + s * ox + c * oy), axis=1)
        end_a = held(self.a, self.off_ax, self.off_ay)
        end_b = np.where((self.b >= 0)[:, None], held(np.maximum(self.b, 0), self.off_bx, self.off_by),
                         np.stack((self.anchor_x, self.anchor_y), axis=1))
        return end_a, end_b

    # --------------------------------------------------------------- the stages
    def prepare(self, h_move):
        """Once a tick: the softness for sub-steps that move positions by h_move dv, and the
        peak forces cleared (the warm-start impulses carry over, as Box2D's do)."""
        self._soft = soft(JOINT_HERTZ, JOINT_DAMPING_RATIO, h_move)
        self.peak = np.zeros(len(self))

    def substep(self, world, h, h_move, kernel, warm_start=True):
        """Warm start, solve and relax every joint for one sub-step, in place on the world's
        pos, vel, angle and spin. ``kernel``: substep_kernel, or its compiled twin."""
        if not len(self) or world.count == 0:
            return
        pos = np.ascontiguousarray(world.pos, float)
        vel = np.ascontiguousarray(world.vel, float)
        px, py = pos[:, 0].copy(), pos[:, 1].copy()
        vx, vy = vel[:, 0].copy(), vel[:, 1].copy()
        angle = np.ascontiguousarray(world.angle, float).copy()
        spin = np.ascontiguousarray(world.spin, float).copy()
        rate, mass_scale, impulse_scale = self._soft
        balls = JointBalls(px, py, vx, vy, angle, spin, np.ascontiguousarray(world.inv_mass, float),
                           np.ascontiguousarray(world.inv_inertia, float))
        params = JointParams(float(h), float(h_move), float(rate), float(mass_scale), float(impulse_scale),
                             bool(warm_start), JOINT_ITERATIONS, JOINT_RELAX_ITERATIONS)
        kernel(balls, self.kernel_rows(), params)
        world.pos = np.stack((px, py), axis=1)
        world.vel = np.stack((vx, vy), axis=1)
        world.angle = angle
        world.spin = spin

    def kernel_rows(self):
        """The joints' arrays as the sub-step kernel takes them (the same arrays: it writes
        the impulses and peaks in place)."""
        return JointRows(self.a, self.b, self.kind, self.anchor_x, self.anchor_y, self.off_ax, self.off_ay,
                         self.off_bx, self.off_by, self.length, self.has_motor, self.speed, self.torque,
                         self.imp_x, self.imp_y, self.imp_m, self.peak)

    def broken(self):
        """(J,) bool: the joints whose force this tick exceeded their break force."""
        return self.peak > self.break_force
