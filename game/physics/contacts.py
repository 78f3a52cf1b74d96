"""A sub-step's contacts: found, ordered, coloured and warm-started for the solver.

A sub-step's contacts (``prepare``): every candidate pair's normal and depth are measured
afresh at the integrated positions x*; the pairs that touch (depth > -TOUCH_SLOP) become
contacts, in a canonical order (by ball id, then the other ball's id, then static index),
coloured, and warm-started from the last sub-step's impulses matched by the same key.

One algorithm, two executions: ``prepare_numpy`` here, its compiled twin
``game.physics.compiled.contacts.prepare_contacts`` contact by contact; the same bits
(tests/test_solver.py). Both take and give the named bundles of ``game.physics.bundles``.
"""
import numpy as np

from game.physics import motion
from game.physics.bundles import ContactParams, ContactRows

TOUCH_SLOP = 1e-9          # m: a pair this close or closer at x* touches: it is a contact
SUPPORT_COS = 0.5          # cos 60 deg: a ball whose forces press it onto another within 60 degrees
                           # of their normal rests on it (contact mass scaling, support_scales)
_HASH = np.uint64(0x9E3779B97F4A7C15)   # Fibonacci hashing: the colouring's priorities
_NONE = np.uint64(0xFFFFFFFFFFFFFFFF)   # above every priority
STATIC_KEY = 1 << 31       # key = id_a * 2^32 + (id_b, or this + static index)


def contact_params(h_move, speculative=0.0, lookahead=0.0):
    """The ContactParams of a sub-step whose solve moves positions by h_move dv (s); where the
    contacts are kept a tick (SolverOptions.keep_contacts), ``speculative`` m and ``lookahead`` s
    (the tick) widen the set to the pairs that could touch before the tick ends."""
    return ContactParams(h_move=float(h_move), touch_slop=float(TOUCH_SLOP), static_key=int(STATIC_KEY),
                         support_cos=float(SUPPORT_COS), speculative=float(speculative), lookahead=float(lookahead))


def speculative_reach(touch_slop, speculative, lookahead, closing):
    """How far apart (m) a pair closing at ``closing`` m/s (along its normal; (K,) or a number)
    still joins a tick's kept contacts: touch_slop + speculative + lookahead max(closing, 0)."""
    return touch_slop + speculative + lookahead * np.maximum(closing, 0.0)


class Contacts:
    """One sub-step's contacts in solve order (by colour, then canonical), as arrays (C,).

    ``a``: ball; ``b``: other ball, or N (the statics' still stand-in); ``static``: capsule
    index or -1; ``nx, ny``: unit normal from b towards a; ``depth``: overlap at x* (m);
    ``base``: depth + (p_a - p_b) . n, so that depth(p) = base - (p_a - p_b) . n;
    ``separation``: the gap at x* - h v*, where the soft step moves from (m, > 0 apart);
    ``ax, ay``: the forces' relative acceleration a_a - a_b this sub-step (m/s^2);
    ``ra, rb``: lever arms (m, 0 for statics); ``mass_n, mass_t, mass_r``: effective masses
    of the normal, tangent and rolling rows; ``restitution, friction, rolling`` (rolling in
    m: coefficient times radius); ``pn, pt, pr``: accumulated impulses (warm start in,
    result out); ``key``: int64 ids; ``order``: each contact's place in the canonical
    order (by key); ``colour_start``: (K + 1,) the colours' slices;
    ``approach``: closing speed at x* before the solve (m/s, > 0 closing);
    ``scale_a, scale_b``: contact mass scaling, factors on the balls' inverse mass and
    moment in the warm start and soft passes (1 but where a ball holds up a heavier one).
    """

    # What prepare_numpy and its kernel twin return (a ContactRows bundle), in this order.
    FIELDS = ContactRows._fields
    _INTEGER = ("a", "b", "static", "key", "order", "colour_start")

    def __init__(self, n, rows):
        self.n = n
        self.rows = rows          # the ContactRows bundle the solve takes (the same arrays)
        for name in self.FIELDS:
            setattr(self, name, getattr(rows, name))

    @classmethod
    def empty(cls, n):
        fields = {name: np.zeros(0, np.int64 if name in cls._INTEGER else float) for name in cls.FIELDS}
        fields["colour_start"] = np.zeros(1, np.int64)
        return cls(n, ContactRows(**fields))

    def __len__(self):
        return len(self.a)

    @property
    def colours(self):
        return len(self.colour_start) - 1

    def points(self, pos, radius, rows=None):
        """(K, 2) touch points on ball a's surface where the other body meets it."""
        rows = np.arange(len(self)) if rows is None else rows
        a = self.a[rows]
        lever = radius[a] - self.depth[rows]
        return pos[a] - np.stack((self.nx[rows] * lever, self.ny[rows] * lever), axis=1)


def colour_contacts(a, b, n, priority):
    """(C,) colour of each contact: no two contacts of a colour share a ball (index n, the
    statics' stand-in, is shared freely).

    Rounds: a contact whose ``priority`` (uint64, all different: the key Fibonacci-hashed, a
    fixed pseudo-random order, so chains of contacts do not wait one a round) is the least
    among the uncoloured contacts of both its balls takes this round's colour. Integer work
    only: the compiled twin ``compiled.contacts._colour_contacts`` gives the same colours.
    """
    m = len(a)
    colour = np.full(m, -1, np.int64)
    left = np.arange(m)
    best = np.empty(n + 1, np.uint64)
    c = 0
    while len(left):
        la, lb, lp = a[left], b[left], priority[left]
        best.fill(_NONE)
        np.minimum.at(best, la, lp)
        np.minimum.at(best, lb, lp)
        chosen = (best[la] == lp) & ((lb == n) | (best[lb] == lp))
        colour[left[chosen]] = c
        left = left[~chosen]
        c += 1
    return colour


def priorities(key):
    """(C,) uint64: the keys Fibonacci-hashed (a bijection of 64-bit integers, so no ties)."""
    return key.astype(np.uint64) * _HASH          # wraps modulo 2^64, as intended


def prepare_numpy(i, j, touches, balls, statics, warm, params):
    """The numpy execution of Solver.prepare's arithmetic: ball pairs' fresh geometry, the
    canonical order, colours, the solve order, masses, materials and warm starts; the
    compiled twin is ``game.physics.compiled.contacts.prepare_contacts``.

    (i, j): candidate ball pairs, sorted; ``touches``: the touching ball-static contacts
    sorted (bundles.Touches); ``balls``: bundles.BallColumns, (N + 1,) (index N: the statics'
    still stand-in); ``statics``: bundles.Statics (their materials); ``warm``:
    bundles.Impulses, last sub-step's keys (sorted) and impulses; ``params``:
    bundles.ContactParams (contact_params). Returns the
    ContactRows, in solve order."""
    n = len(balls.ids)
    bi, s, snx, sny, sdepth = touches
    px, py, vx, vy, gx, gy, w, inv_i = balls.px, balls.py, balls.vx, balls.vy, balls.gx, balls.gy, balls.w, balls.inv_i
    radius, ids, rest, fric, roll = balls.radius, balls.ids, balls.restitution, balls.friction, balls.rolling
    st_rest, st_fric, st_roll = statics.restitution, statics.friction, statics.rolling
    old_key, old_n, old_t, old_r = warm
    h_move, touch_slop, static_key, support_cos = params.h_move, params.touch_slop, params.static_key, params.support_cos
    # Ball pairs: the normal from the centres, n = (p_i - p_j) / |p_i - p_j|.
    dx = px[i] - px[j]
    dy = py[i] - py[j]
    dist = np.sqrt(dx * dx + dy * dy)
    reach = radius[i] + radius[j]
    if params.speculative > 0.0 or params.lookahead > 0.0:     # kept a tick: the pairs that may touch in it
        with np.errstate(divide="ignore", invalid="ignore"):
            closing = 0.0 - ((vx[i] - vx[j]) * dx + (vy[i] - vy[j]) * dy) / dist
        touch = np.nonzero(reach - dist > 0.0 - speculative_reach(touch_slop, params.speculative, params.lookahead,
                                                                  np.where(dist > 0.0, closing, 0.0)))[0]
    else:
        touch = np.nonzero(reach - dist > -touch_slop)[0]
    i, j, dist, reach = i[touch], j[touch], dist[touch], reach[touch]
    # Their normal where the soft step moves them from, x* - h_move v* (see separation below):
    # impulses along the line of centres there keep angular momentum as the balls move on.
    dx = (px[i] - h_move * vx[i]) - (px[j] - h_move * vx[j])
    dy = (py[i] - h_move * vy[i]) - (py[j] - h_move * vy[j])
    length = np.sqrt(dx * dx + dy * dy)
    apart = length > 1e-12
    inv = 1.0 / np.where(apart, length, 1.0)
    a = np.concatenate((i, bi))
    b = np.concatenate((j, np.full(len(bi), n, np.int64)))
    static = np.concatenate((np.full(len(i), -1, np.int64), s))
    key = ids[a] * (1 << 32) + np.concatenate((ids[j], static_key + s))
    nx = np.concatenate((np.where(apart, dx * inv, 1.0), snx))      # coincident centres part along +x
    ny = np.concatenate((np.where(apart, dy * inv, 0.0), sny))
    depth = np.concatenate((reach - dist, sdepth))
    # Canonical order by key, then colours; the solve order is by colour, then key.
    canonical = np.argsort(key, kind="stable")
    a, b, static, key, nx, ny, depth = (x[canonical] for x in (a, b, static, key, nx, ny, depth))
    m = len(a)
    # Warm start: last sub-step's impulses of the same keys, zero for new contacts.
    wn, wt, wr = np.zeros(m), np.zeros(m), np.zeros(m)
    if len(old_key) and m:
        at = np.minimum(np.searchsorted(old_key, key), len(old_key) - 1)
        found = old_key[at] == key
        wn, wt, wr = (np.where(found, old[at], 0.0) for old in (old_n, old_t, old_r))
    colour = colour_contacts(a, b, n, priorities(key))
    order = np.argsort(colour, kind="stable")
    colour_start = np.zeros(int(colour.max(initial=-1)) + 2, np.int64)
    np.cumsum(np.bincount(colour, minlength=len(colour_start) - 1), out=colour_start[1:])
    a, b, static, key, nx, ny, depth, wn, wt, wr = (x[order] for x in (a, b, static, key, nx, ny, depth, wn, wt, wr))
    on_ball = static < 0
    st = np.maximum(static, 0)
    base = depth + ((px[a] - px[b]) * nx + (py[a] - py[b]) * ny)
    # The soft step moves the positions to x* + h_move (v - v*): as if from x* - h_move v*
    # with the solved velocity v, as Box2D integrates after its solve. So it measures the
    # gap there: a gap that the move closes may close, no more.
    separation = 0.0 - (depth + h_move * ((vx[a] - vx[b]) * nx + (vy[a] - vy[b]) * ny))
    ra = radius[a]
    rb = np.where(on_ball, radius[b], 0.0)
    k_n = w[a] + w[b]
    k_t = k_n + (inv_i[a] * (ra * ra) + inv_i[b] * (rb * rb))
    k_r = inv_i[a] + inv_i[b]
    with np.errstate(divide="ignore"):
        mass_n = np.where(k_n > 0, 1.0 / k_n, 0.0)
        mass_t = np.where(k_t > 0, 1.0 / k_t, 0.0)
        mass_r = np.where(k_r > 0, 1.0 / k_r, 0.0)
    # Materials as Box2D mixes them: the livelier restitution, the geometric mean of
    # friction, the larger rolling resistance (times the radius: an arm, in metres).
    restitution = np.maximum(rest[a], np.where(on_ball, rest[b], st_rest[st]))
    friction = np.sqrt(fric[a] * np.where(on_ball, fric[b], st_fric[st]))
    rolling = np.maximum(roll[a] * ra, np.where(on_ball, roll[b] * rb, st_roll[st] * ra))
    approach = -((vx[a] - vx[b]) * nx + (vy[a] - vy[b]) * ny)
    ax = gx[a] - gx[b]
    ay = gy[a] - gy[b]
    scale_a, scale_b = support_scales(a, b, on_ball, nx, ny, gx, gy, w, support_cos)
    return ContactRows(a=a, b=b, static=static, key=key, order=order, colour_start=colour_start, nx=nx, ny=ny,
                       depth=depth, base=base, separation=separation, ax=ax, ay=ay, ra=ra, rb=rb, mass_n=mass_n,
                       mass_t=mass_t, mass_r=mass_r, restitution=restitution, friction=friction, rolling=rolling,
                       pn=wn, pt=wt, pr=wr, approach=approach, scale_a=scale_a, scale_b=scale_b, wvx=np.zeros(m),
                       wvy=np.zeros(m), wspin=np.zeros(m), kick=np.zeros(m), jn=np.zeros(m), jt=np.zeros(m))


def refresh_numpy(rows, held, balls, h_move, touch_slop):
    """A kept contact set (SolverOptions.keep_contacts) at a later sub-step, in place, as Box2D v3
    keeps its contacts through a step: each contact's normal stays, its depth follows the balls'
    displacement along it (depth = base - (p_a - p_b) . n, Box2D's baseSeparation), and the
    separation, approach and relative acceleration are this sub-step's. A contact whose depth
    is not above -touch_slop (apart: a speculative one) takes no part in this sub-step: its masses
    are 0 and its scales 1, so that no pass and no impact gives it an impulse, and its impulses
    are 0 (no warm start of a gap); one that touches has its masses and scales back from ``held``
    (C, 5): mass_n, mass_t, mass_r, scale_a, scale_b as the preparation found them (``held_rows``).
    The compiled twin: game.physics.compiled.contacts.refresh_contacts (the same bits)."""
    a, b, nx, ny = rows.a, rows.b, rows.nx, rows.ny
    px, py, vx, vy = balls.px, balls.py, balls.vx, balls.vy
    depth = rows.base - ((px[a] - px[b]) * nx + (py[a] - py[b]) * ny)
    vn = (vx[a] - vx[b]) * nx + (vy[a] - vy[b]) * ny
    rows.depth[:] = depth
    rows.separation[:] = 0.0 - (depth + h_move * vn)
    rows.ax[:] = balls.gx[a] - balls.gx[b]
    rows.ay[:] = balls.gy[a] - balls.gy[b]
    on = depth > -touch_slop
    rows.approach[:] = np.where(on, 0.0 - vn, 0.0)
    for f, name in enumerate(("mass_n", "mass_t", "mass_r")):
        getattr(rows, name)[:] = np.where(on, held[:, f], 0.0)
    rows.scale_a[:] = np.where(on, held[:, 3], 1.0)
    rows.scale_b[:] = np.where(on, held[:, 4], 1.0)
    for name in ("pn", "pt", "pr"):
        getattr(rows, name)[:] = np.where(on, getattr(rows, name), 0.0)


def held_rows(rows):
    """(C, 5): the prepared contacts' mass_n, mass_t, mass_r, scale_a, scale_b (refresh_numpy's ``held``)."""
    return np.stack((rows.mass_n, rows.mass_t, rows.mass_r, rows.scale_a, rows.scale_b), axis=1)


def wall_rows(rows, balls, statics, h_move):
    """Fill the moving walls' fields of the ContactRows ``rows`` in place (one numpy pass for
    both executions, after prepare_numpy or its twin): each static contact's wall velocity
    at its touch point on the capsule's surface (motion.wall_velocity: the chord the point
    went over the sub-step, plus a conveyor's surface speed) and the wall's turn rate, its
    kick; and the relative velocity in its approach and separation, so that restitution
    acts on the relative normal speed and the soft step lets the gap close as far as the
    ball and the wall move together. ``balls``: bundles.BallColumns; ``statics``:
    bundles.Statics. Ball pairs and still walls are left as they are (the same bits)."""
    k = np.nonzero(rows.static >= 0)[0]
    if len(k) == 0:
        return
    s = rows.static[k]
    a = rows.a[k]
    nx, ny, depth = rows.nx[k], rows.ny[k], rows.depth[k]
    rows.kick[k] = statics.kick[s]
    lever = balls.radius[a] - depth
    vx, vy = motion.wall_velocity(statics, s, balls.px[a] - nx * lever, balls.py[a] - ny * lever)
    on = statics.moving[s] | (statics.surface[s] != 0.0)
    k, s, vx, vy, nx, ny, depth, a = k[on], s[on], vx[on], vy[on], nx[on], ny[on], depth[on], a[on]
    rows.wvx[k] = vx
    rows.wvy[k] = vy
    rows.wspin[k] = np.where(statics.moving[s], statics.omega[s], 0.0)
    vn = (balls.vx[a] - vx) * nx + (balls.vy[a] - vy) * ny
    rows.separation[k] = 0.0 - (depth + h_move * vn)
    rows.approach[k] = 0.0 - vn


def support_scales(a, b, on_ball, nx, ny, gx, gy, w, support_cos):
    """(C,), (C,): contact mass scaling, factors (<= 1) on the inverse mass and moment of each
    contact's balls a and b in its warm start and soft passes (the impacts keep the true
    masses).

    Ball u rests on ball l where u's forces (acceleration gx, gy: m/s^2, from the (N + 1,)
    arrays) press it onto l within acos(support_cos) of their normal (C,) nx, ny. A ball
    counts as heavy as the heaviest ball it holds up through any chain of resting contacts,
    so a stack of alternating 1 kg and 1000 kg balls is solved as a stack of equal masses
    is: Gauss-Seidel on the true masses gains a thousandth of the heavy ball's support a
    pass, and the light ball is squeezed out (overlaps of 30-50 % of the radius). This is
    PhysX's contact mass scaling in shock propagation's order (the lower body heavier).
    It breaks action and reaction where a ball rests on a lighter one: their supports carry
    more than the true load (a heavy ball on a light one on the floor: the floor carries the
    light one as heavy), and such a pair touching gently in free fall (closing slower than
    the restitution threshold, so no impact) does not keep its momentum. Collisions above
    the threshold and balls without forces keep it exactly. (Scaling only balls that rest
    on a static through the chain was tried: a light ball lifted off the floor for one
    sub-step under a falling 1e6 kg ball then lost its scaling and was shot out.) The fixed
    point of minima is the same in whatever order it is reached (the kernel loops in place).
    """
    up_a = on_ball & (gx[a] * nx + gy[a] * ny < 0.0 - support_cos * np.sqrt(gx[a] * gx[a] + gy[a] * gy[a]))
    up_b = on_ball & (gx[b] * nx + gy[b] * ny > support_cos * np.sqrt(gx[b] * gx[b] + gy[b] * gy[b]))
    upper = np.concatenate((a[up_a], b[up_b]))
    lower = np.concatenate((b[up_a], a[up_b]))
    support_w = w.copy()
    while len(upper):
        held = support_w.copy()
        np.minimum.at(held, lower, support_w[upper])
        if np.array_equal(held, support_w):
            break
        support_w = held
    with np.errstate(divide="ignore", invalid="ignore"):
        scale_a = np.where(support_w[a] != w[a], support_w[a] / w[a], 1.0)
        scale_b = np.where(support_w[b] != w[b], support_w[b] / w[b], 1.0)
    return scale_a, scale_b
