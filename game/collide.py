"""Collision: broad phase grid, narrow phase offset vectors, swept tests and the response.

Everything works on arrays of balls and of contact pairs at once; no Python loop runs over
balls or pairs. Statics are capsules (segment + radius): a thin wall has radius 0, a stadium
radius > 0, a round peg equal ends and radius > 0. Convex polygons are their edges plus an
inside test.

Shapes: ``pos`` (N, 2) metres, ``vel`` (N, 2) m/s, ``radius`` and ``inv_mass`` (N,).
"""
import numpy as np

from game import geometry

# Tuning, with units.
CCD_FRACTION = 0.25        # sweep a ball that moved more than this fraction of its radius
RESTING_SPEED = 0.25       # m/s: approaching slower than this, a contact does not bounce
CONTACT_SLOP = 1e-4        # m: balls this close count as touching for the velocity solve
IMPACT_SPEED = 0.6         # m/s: slower contacts make no impact event
POSITION_ITERATIONS = 6    # offset-vector passes per sub-step
VELOCITY_ITERATIONS = 6    # impulse passes per sub-step
SOR = 1.8                  # over-relaxation of the averaged position passes (never past the full push)

_CELL_BITS = 22
_CELL_BIAS = 1 << (_CELL_BITS - 1)
_CELL_LIMIT = _CELL_BIAS - 2
# The half neighbourhood: each pair of neighbouring cells is visited once.
_HALF_NEIGHBOURS = ((0, 0), (1, -1), (1, 0), (1, 1), (0, 1))


def _dot(u, v):
    return np.einsum("ij,ij->i", u, v)


def _norm(v):
    return np.sqrt(np.einsum("ij,ij->i", v, v))


def _expand(lo, hi):
    """For ranges [lo_k, hi_k): (owner k of each element, element index), without a loop."""
    count = hi - lo
    owner = np.repeat(np.arange(len(lo)), count)
    start = np.cumsum(count) - count
    index = np.arange(int(count.sum())) - np.repeat(start - lo, count)
    return owner, index


class Grid:
    """A uniform grid of square cells ``cell`` metres wide, keys packed into int64."""

    def __init__(self, cell, origin):
        self.cell = float(cell)
        self.origin = np.asarray(origin, float)

    def cells(self, points):
        """(ix, iy) integer cell coordinates, clipped so far-off points stay representable."""
        c = np.floor((points - self.origin) / self.cell)
        c = np.clip(np.nan_to_num(c, nan=_CELL_LIMIT), -_CELL_LIMIT, _CELL_LIMIT).astype(np.int64)
        return c[:, 0], c[:, 1]

    @staticmethod
    def key(ix, iy):
        return ((ix + _CELL_BIAS) << _CELL_BITS) | (iy + _CELL_BIAS)

    def keys(self, points):
        return self.key(*self.cells(points))


def ball_pairs(grid, pos):
    """Candidate ball pairs (i, j), i != j, each once: balls in the same or neighbouring cells.

    The grid's cell must be at least the largest ball diameter, so that touching balls are
    never more than one cell apart. Sorting the cell keys bins the balls; each ball then
    looks up five of its nine neighbour cells with a binary search.
    """
    n = len(pos)
    if n < 2:
        empty = np.zeros(0, np.int64)
        return empty, empty
    keys = grid.keys(pos)
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    firsts, seconds = [], []
    for dx, dy in _HALF_NEIGHBOURS:
        target = keys + ((dx << _CELL_BITS) + dy)
        lo = np.searchsorted(sorted_keys, target, "left")
        hi = np.searchsorted(sorted_keys, target, "right")
        i, at = _expand(lo, hi)
        j = order[at]
        if dx == 0 and dy == 0:
            keep = i < j
            i, j = i[keep], j[keep]
        firsts.append(i)
        seconds.append(j)
    return np.concatenate(firsts), np.concatenate(seconds)


class Statics:
    """Static capsules as arrays, binned once into a grid.

    ``a``, ``b``: (M, 2) ends; ``radius``, ``restitution``, ``friction``: (M,);
    ``polygon``: (M,) index into ``polygons`` of the polygon an edge belongs to, -1 if none.
    """

    def __init__(self, a, b, radius, restitution, friction, polygon, polygons):
        self.a = np.asarray(a, float).reshape(-1, 2)
        self.b = np.asarray(b, float).reshape(-1, 2)
        self.radius = np.asarray(radius, float).reshape(-1)
        self.restitution = np.asarray(restitution, float).reshape(-1)
        self.friction = np.asarray(friction, float).reshape(-1)
        self.polygon = np.asarray(polygon, np.int64).reshape(-1)
        self.polygons = polygons
        lo = np.minimum(self.a, self.b) - self.radius[:, None]
        hi = np.maximum(self.a, self.b) + self.radius[:, None]
        self.box = np.hstack((lo, hi))          # (M, 4) bounding boxes
        self.grid = None
        self._keys = np.zeros(0, np.int64)
        self._index = np.zeros(0, np.int64)

    def __len__(self):
        return len(self.a)

    def bin(self, grid):
        """List every capsule in each cell where a ball centred in that cell could touch it.

        A ball's radius is at most half a cell, so a capsule belongs to every cell that has a
        point within (cell / 2 + capsule radius) of its core segment.
        """
        self.grid = grid
        keys, index = [], []
        half = grid.cell / 2
        for s in range(len(self.a)):  # once per level or cell change, not per step
            reach = half + self.radius[s]
            lo = self.box[s, :2] - half
            hi = self.box[s, 2:] + half
            (x0, x1), (y0, y1) = grid.cells(np.array([lo, hi]))
            ix, iy = np.meshgrid(np.arange(x0, x1 + 1), np.arange(y0, y1 + 1))
            ix, iy = ix.ravel(), iy.ravel()
            centres = grid.origin + (np.stack((ix, iy), axis=1) + 0.5) * grid.cell
            closest = geometry.closest_point_on_segment(self.a[s], self.b[s], centres)
            near = _norm(centres - closest) <= reach + half * np.sqrt(2.0)
            keys.append(Grid.key(ix[near], iy[near]))
            index.append(np.full(int(near.sum()), s, np.int64))
        if keys:
            keys = np.concatenate(keys)
            index = np.concatenate(index)
            order = np.argsort(keys, kind="stable")
            self._keys, self._index = keys[order], index[order]

    def candidates(self, pos):
        """Candidate (ball, static) pairs for balls at ``pos``: the capsules listed in each ball's cell."""
        if len(self._keys) == 0 or len(pos) == 0:
            empty = np.zeros(0, np.int64)
            return empty, empty
        keys = self.grid.keys(pos)
        lo = np.searchsorted(self._keys, keys, "left")
        hi = np.searchsorted(self._keys, keys, "right")
        ball, at = _expand(lo, hi)
        return ball, self._index[at]

    def along_paths(self, start, end, radius):
        """Candidate (ball, static) pairs whose boxes meet the boxes of the moves start -> end."""
        lo = np.minimum(start, end) - radius[:, None]
        hi = np.maximum(start, end) + radius[:, None]
        balls, statics = [], []
        chunk = max(1, 2_000_000 // max(1, len(self.a)))
        for k in range(0, len(start), chunk):  # chunks bound the memory of the box matrix
            l, h = lo[k:k + chunk, None, :], hi[k:k + chunk, None, :]
            meet = ((l[..., 0] <= self.box[None, :, 2]) & (h[..., 0] >= self.box[None, :, 0])
                    & (l[..., 1] <= self.box[None, :, 3]) & (h[..., 1] >= self.box[None, :, 1]))
            i, s = np.nonzero(meet)
            balls.append(i + k)
            statics.append(s)
        if not balls:
            empty = np.zeros(0, np.int64)
            return empty, empty
        return np.concatenate(balls), np.concatenate(statics)


class Contacts:
    """Contacts of one sub-step: ball i against ball j (j >= 0) or against static s.

    ``normal`` (C, 2) points from the other body towards ball i; ``depth`` (C,) metres > 0
    where they overlap.
    """

    def __init__(self, i, j, s, normal, depth, point, restitution, friction):
        self.i, self.j, self.s = i, j, s
        self.normal, self.depth, self.point = normal, depth, point
        self.restitution, self.friction = restitution, friction
        # Touching when found: the velocity solve acts on these even after the push parts them.
        self.touching = depth > -CONTACT_SLOP
        self.found_depth = np.maximum(depth, 0.0)   # the overlap the push removes

    def __len__(self):
        return len(self.i)


def ball_ball_geometry(pos, radius, i, j):
    """(normal from j to i, depth, touch point) for ball pairs; coincident centres part along +x."""
    d = pos[i] - pos[j]
    dist = _norm(d)
    apart = dist > 1e-12
    with np.errstate(invalid="ignore", divide="ignore"):
        normal = np.where(apart[:, None], d / dist[:, None], np.array([1.0, 0.0]))
    depth = radius[i] + radius[j] - dist
    point = pos[j] + normal * radius[j][:, None]
    return normal, depth, point


def ball_static_geometry(pos, prev, radius, statics, i, s):
    """(normal, depth, touch point) of balls against capsules: the overlap offset vector of seed 000.

    A ball whose centre crossed a capsule's core segment since ``prev`` (the start of the
    sub-step) is pushed back to the side it came from, and a centre exactly on the core is
    pushed along the segment's normal towards ``prev``: a wall is never passed by being
    pushed through it.
    """
    a, b = statics.a[s], statics.b[s]
    p = pos[i]
    closest = geometry.closest_point_on_segment(a, b, p)
    d = p - closest
    dist = _norm(d)
    seg_normal = geometry.segment_normal(a, b)
    came_from = geometry.side(a, b, prev[i])
    now = geometry.side(a, b, p)
    # The centre's path prev -> p crossed the core segment a -> b.
    path_side_a = geometry.side(prev[i], p, a)
    path_side_b = geometry.side(prev[i], p, b)
    # Polygon edges leave this to polygon_insides: their way out is always outwards (the right
    # of a counter-clockwise edge), through the nearest edge.
    edge = statics.polygon[s] >= 0
    crossed = (came_from * now < 0) & (path_side_a * path_side_b <= 0) & ~edge
    towards = np.where((came_from >= 0) & ~edge, 1.0, -1.0)[:, None] * seg_normal
    degenerate = dist <= 1e-12
    with np.errstate(invalid="ignore", divide="ignore"):
        normal = np.where(degenerate[:, None], towards, d / dist[:, None])
    normal = np.where(crossed[:, None], towards, normal)
    reach = radius[i] + statics.radius[s]
    depth = np.where(crossed, reach + dist, reach - dist)
    point = closest + normal * statics.radius[s][:, None]
    return normal, depth, point


def polygon_insides(pos, radius, statics, i, s, normal, depth, point):
    """Balls whose centre got inside a convex polygon: pushed out through the nearest edge.

    Rewrites (normal, depth) of the contacts whose ball is inside the edge's polygon so that
    only the nearest edge pushes (with depth = distance to it + radius) and the others are
    dropped (depth set to -inf).
    """
    on_polygon = statics.polygon[s] >= 0
    if not on_polygon.any():
        return
    # Inner side of a counter-clockwise edge is its left: side > 0.
    inner = on_polygon & (geometry.side(statics.a[s], statics.b[s], pos[i]) > 0)
    if not inner.any():
        return
    for poly in np.unique(statics.polygon[s[inner]]):  # loop over polygons met, not balls
        rows = np.nonzero(inner & (statics.polygon[s] == poly))[0]
        inside = geometry.point_in_convex_polygon(pos[i[rows]], statics.polygons[poly])
        rows = rows[np.asarray(inside, bool).reshape(-1)]
        if len(rows) == 0:
            continue
        balls = np.unique(i[rows])
        offset = geometry.circle_polygon_offset(pos[balls], radius[balls], statics.polygons[poly])
        push = _norm(offset.reshape(-1, 2))
        with np.errstate(invalid="ignore", divide="ignore"):
            unit = np.where(push[:, None] > 0, offset.reshape(-1, 2) / push[:, None], 0.0)
        # All contacts of these balls with this polygon: keep one carrying the whole push.
        all_rows = np.nonzero((statics.polygon[s] == poly) & np.isin(i, balls))[0]
        depth[all_rows] = -np.inf
        first = all_rows[np.unique(i[all_rows], return_index=True)[1]]
        where = np.searchsorted(balls, i[first])
        normal[first] = unit[where]
        depth[first] = push[where]
        point[first] = pos[i[first]] - unit[where] * radius[i[first]][:, None]


def find_contacts(pos, prev, radius, restitution, friction, grid, statics, margin):
    """All ball-ball and ball-static contacts closer than ``margin`` (metres) to touching."""
    i, j = ball_pairs(grid, pos)
    normal, depth, point = ball_ball_geometry(pos, radius, i, j)
    near = depth > -margin
    i, j, normal, depth, point = i[near], j[near], normal[near], depth[near], point[near]
    # Materials combine as Box2D does: the livelier restitution, the geometric mean of friction.
    e_bb = np.maximum(restitution[i], restitution[j])
    mu_bb = np.sqrt(friction[i] * friction[j])

    si, s = statics.candidates(pos)
    snormal, sdepth, spoint = ball_static_geometry(pos, prev, radius, statics, si, s)
    polygon_insides(pos, radius, statics, si, s, snormal, sdepth, spoint)
    near = sdepth > -margin
    si, s, snormal, sdepth, spoint = si[near], s[near], snormal[near], sdepth[near], spoint[near]
    e_bs = np.maximum(restitution[si], statics.restitution[s])
    mu_bs = np.sqrt(friction[si] * statics.friction[s])

    return Contacts(
        i=np.concatenate((i, si)),
        j=np.concatenate((j, np.full(len(si), -1, np.int64))),
        s=np.concatenate((np.full(len(i), -1, np.int64), s)),
        normal=np.concatenate((normal, snormal)),
        depth=np.concatenate((depth, sdepth)),
        point=np.concatenate((point, spoint)),
        restitution=np.concatenate((e_bb, e_bs)),
        friction=np.concatenate((mu_bb, mu_bs)),
    )


def _refresh(contacts, pos, prev, radius, statics):
    """Recompute normal and depth of known contacts at the current positions."""
    c = contacts
    ball = c.j >= 0
    if ball.any():
        n, d, p = ball_ball_geometry(pos, radius, c.i[ball], c.j[ball])
        c.normal[ball], c.depth[ball], c.point[ball] = n, d, p
    wall = ~ball
    if wall.any():
        i, s = c.i[wall], c.s[wall]
        n, d, p = ball_static_geometry(pos, prev, radius, statics, i, s)
        polygon_insides(pos, radius, statics, i, s, n, d, p)
        c.normal[wall], c.depth[wall], c.point[wall] = n, d, p


def _scatter(n, index, values):
    """Sum (K, 2) values into (n, 2) rows by index."""
    return np.stack((np.bincount(index, values[:, 0], n), np.bincount(index, values[:, 1], n)), axis=1)


def push_apart(contacts, pos, vel, prev, radius, inv_mass, statics, h, iterations=POSITION_ITERATIONS):
    """Move overlapping balls out along their offset vectors (ball-ball split by inverse mass).

    Jacobi passes: every contact proposes its push at once; a ball takes the mean of its
    proposals, over-relaxed by SOR but never moved further than a lone contact would move it. A push of length d in direction u then cancels the ball's
    velocity into -u, by at most d / h: a ball resting on a pile loses the speed gravity gave
    it this sub-step, at once however deep the pile, and a push never launches a ball.
    Static friction is positional: where a ball touches a
    static with friction, the sliding of this sub-step along the contact is undone as far as
    Coulomb allows (|slide| <= friction * depth), so a ball rests on a slope instead of creeping.
    """
    c = contacts
    n = len(pos)
    if len(c) == 0:
        return
    ball = c.j >= 0
    j = np.where(ball, c.j, 0)
    w_i = inv_mass[c.i]
    w_j = np.where(ball, inv_mass[j], 0.0)
    w_sum = w_i + w_j
    with np.errstate(invalid="ignore", divide="ignore"):
        share_i = np.where(w_sum > 0, w_i / w_sum, 0.0)
        share_j = np.where(w_sum > 0, w_j / w_sum, 0.0)
    index = np.concatenate((c.i, j[ball]))
    start = pos.copy()
    for it in range(iterations):
        if it:
            _refresh(c, pos, prev, radius, statics)
        depth = np.maximum(c.depth, 0.0)
        active = depth > 0
        if not active.any():
            break
        push = c.normal * depth[:, None]
        moves = np.concatenate((push * share_i[:, None], -push[ball] * share_j[ball][:, None]))
        counts = np.bincount(index, np.concatenate((active, active[ball])).astype(float), n)
        total = _scatter(n, index, moves)
        with np.errstate(invalid="ignore", divide="ignore"):
            scale = np.where(counts > 0, np.minimum(1.0, SOR / counts), 0.0)
        pos += total * scale[:, None]
    _cancel_approach(pos - start, vel, h)
    # Static friction against statics (positional, once per sub-step).
    _refresh(c, pos, prev, radius, statics)
    wall = (~ball) & (c.found_depth > 0) & (c.friction > 0)
    if wall.any():
        i = c.i[wall]
        nrm = c.normal[wall]
        slide = (pos[i] - prev[i])
        slide -= nrm * _dot(slide, nrm)[:, None]
        length = _norm(slide)
        limit = c.friction[wall] * c.found_depth[wall]
        stick = (length <= limit) & (length > 0)
        if stick.any():
            counts = np.bincount(i[stick], minlength=n).astype(float)
            total = _scatter(n, i[stick], slide[stick])
            with np.errstate(invalid="ignore", divide="ignore"):
                pos -= total / np.maximum(counts, 1.0)[:, None]


def _cancel_approach(push, vel, h):
    """Remove each ball's velocity against its push ``push`` (N, 2), at most |push| / h of it."""
    length = _norm(push)
    moved = length > 0
    if not moved.any():
        return
    u = push[moved] / length[moved, None]
    along = _dot(vel[moved], u)
    cancel = np.maximum(along, -length[moved] / h)
    vel[moved] -= u * np.minimum(cancel, 0.0)[:, None]


def approach_speeds(contacts, vel):
    """(C,) speed at which each touching contact closes (> 0 approaching), before any response."""
    c = contacts
    ball = c.j >= 0
    v_j = np.where(ball[:, None], vel[np.where(ball, c.j, 0)], 0.0)
    return np.where(c.touching, -_dot(vel[c.i] - v_j, c.normal), 0.0)


def resolve_velocities(contacts, vel, inv_mass, approach, iterations=VELOCITY_ITERATIONS):
    """Impulses on touching contacts: restitution on the approaching normal speed, Coulomb friction.

    Accumulated impulses, clamped (normal >= 0, |tangent| <= friction * normal), applied in
    averaged Jacobi passes. ``approach`` (C,) is each contact's closing speed measured before
    the push (approach_speeds): a contact that closed faster than RESTING_SPEED bounces back at
    restitution times that speed; slower ones do not bounce, so piles settle instead of buzzing.
    """
    c = contacts
    n = len(vel)
    touching = c.touching
    if len(c) == 0 or not touching.any():
        return
    ball = c.j >= 0
    j = np.where(ball, c.j, 0)
    w_i = inv_mass[c.i]
    w_j = np.where(ball, inv_mass[j], 0.0)
    w_sum = w_i + w_j
    normal = c.normal
    tangent = np.stack((-normal[:, 1], normal[:, 0]), axis=1)

    def relative():
        v_j = np.where(ball[:, None], vel[j], 0.0)
        return vel[c.i] - v_j

    bounce = np.where(approach > RESTING_SPEED, c.restitution, 0.0)
    target = np.where(approach > 0, bounce * approach, 0.0)   # wanted separating speed
    with np.errstate(invalid="ignore", divide="ignore"):
        eff = np.where((w_sum > 0) & touching, 1.0 / w_sum, 0.0)
    counts = np.bincount(c.i, touching.astype(float), n) + np.bincount(j[ball], touching[ball].astype(float), n)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(counts > 0, 1.0 / counts, 0.0)
    # The push already stopped the approach (push_apart): that normal impulse bounds friction too.
    stopped = np.maximum(approach, 0.0) * eff
    acc_n = np.zeros(len(c))
    acc_t = np.zeros(len(c))
    index = np.concatenate((c.i, j[ball]))
    for _ in range(iterations):
        rel = relative()
        vn = _dot(rel, normal)
        vt = _dot(rel, tangent)
        new_n = np.maximum(acc_n + (target - vn) * eff, 0.0)
        d_n = new_n - acc_n
        acc_n = new_n
        limit = c.friction * (acc_n + stopped)
        new_t = np.clip(acc_t - vt * eff, -limit, limit)
        d_t = new_t - acc_t
        acc_t = new_t
        impulse = normal * d_n[:, None] + tangent * d_t[:, None]
        dv = np.concatenate((impulse * w_i[:, None], -impulse[ball] * w_j[ball][:, None]))
        vel += _scatter(n, index, dv) * share[:, None]


def sweep(prev, pos, vel, radius, restitution, friction, statics):
    """Continuous collision against statics for balls that moved far in this sub-step (seed 001).

    A ball that moved more than CCD_FRACTION of its radius is swept from ``prev`` along its
    move; at the first touch it stops and its velocity responds there (restitution on the
    normal speed, Coulomb friction on the tangent). A ball already touching a wall is left to
    the contact solver unless its centre's path crosses the wall's core, in which case it
    stays where it was. Returns (swept ball indices, hit points (F, 2) with NaN where no hit).
    """
    move = pos - prev
    fast = np.nonzero(_norm(move) > CCD_FRACTION * radius)[0]
    if len(fast) == 0 or len(statics) == 0:
        return fast, np.zeros((0, 2))
    ball, s = statics.along_paths(prev[fast], pos[fast], radius[fast])
    hits = np.full((len(fast), 2), np.nan)
    if len(ball) == 0:
        return fast, hits
    k = fast[ball]
    a, b = statics.a[s], statics.b[s]
    t = geometry.swept_circle_segment(prev[k], radius[k], move[k], a, b, statics.radius[s])
    t = np.asarray(t, float).reshape(-1)
    # Touching already (t == 0): a hit only if the centre's path crosses the core segment.
    start = t == 0
    if start.any():
        _, crosses = geometry.segment_intersections(prev[k], pos[k], a, b)
        t = np.where(start & ~np.asarray(crosses, bool), np.inf, t)
    hit = np.isfinite(t)
    if not hit.any():
        return fast, hits
    ball, s, t, k = ball[hit], s[hit], t[hit], k[hit]
    # First touch of each ball: sort by (ball, t) and take each ball's first row.
    order = np.lexsort((t, ball))
    ball, s, t, k = ball[order], s[order], t[order], k[order]
    first = np.unique(ball, return_index=True)[1]
    ball, s, t, k = ball[first], s[first], t[first], k[first]

    touch = prev[k] + move[k] * t[:, None]
    closest = geometry.closest_point_on_segment(statics.a[s], statics.b[s], touch)
    d = touch - closest
    dist = _norm(d)
    came_from = geometry.side(statics.a[s], statics.b[s], prev[k])
    towards = np.where(came_from >= 0, 1.0, -1.0)[:, None] * geometry.segment_normal(statics.a[s], statics.b[s])
    with np.errstate(invalid="ignore", divide="ignore"):
        normal = np.where(dist[:, None] > 1e-12, d / dist[:, None], towards)
    pos[k] = touch
    v = vel[k]
    vn = _dot(v, normal)
    approaching = vn < 0
    e = np.maximum(restitution[k], statics.restitution[s])
    e = np.where(-vn > RESTING_SPEED, e, 0.0)
    dvn = np.where(approaching, -(1.0 + e) * vn, 0.0)
    vt_vec = v - normal * vn[:, None]
    vt = _norm(vt_vec)
    mu = np.sqrt(friction[k] * statics.friction[s])
    with np.errstate(invalid="ignore", divide="ignore"):
        keep = np.where(vt > 0, np.maximum(0.0, 1.0 - mu * dvn / vt), 1.0)
    vel[k] = normal * (vn + dvn)[:, None] + vt_vec * keep[:, None]
    hits[ball] = touch
    return fast, hits
