"""Collision: broad phase grid, narrow phase offset vectors, swept tests and the response.

Everything works on arrays of balls and of contact pairs at once; no Python loop runs over
balls or pairs. Statics are capsules (segment + radius): a thin wall has radius 0, a stadium
radius > 0, a round peg equal ends and radius > 0. Convex polygons are their edges plus an
inside test.

Shapes: ``pos`` (N, 2) metres, ``vel`` (N, 2) m/s, ``radius`` and ``inv_mass`` (N,).
"""
import numpy as np

from game import accel, geometry

# Tuning, with units.
CCD_FRACTION = 0.25        # sweep a ball that moved more than this fraction of its radius
RESTING_SPEED = 0.25       # m/s: approaching slower than this, a contact does not bounce
CONTACT_SLOP = 1e-4        # m: balls this close count as touching for the velocity solve
IMPACT_SPEED = 0.6         # m/s: slower contacts make no impact event
POSITION_ITERATIONS = 6    # offset-vector passes per sub-step (averaged Jacobi, numpy)
VELOCITY_ITERATIONS = 3    # impulse passes per sub-step (the push already stops resting contacts)
COMPILED_POSITION_ITERATIONS = 4   # Gauss-Seidel passes (game.accel) converge faster than Jacobi
COMPILED_VELOCITY_ITERATIONS = 3
SOR = 1.8                  # over-relaxation of the averaged position passes (never past the full push)
WALL_PASSES = 2            # passes of the statics alone after the shared ones
NEAR_FRACTION = 0.05       # position passes take contacts closer than this fraction of their reach
MAX_GRID_CELLS = 1 << 21   # the broad-phase grid never has more cells than this

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
    """A dense uniform grid of square cells ``cell`` metres wide over a fixed region.

    Cells are numbered ``ix * ny + iy``. A ring of one cell is kept free round the region:
    points outside it are clipped into the cells next to that ring, so every neighbour of
    every cell exists and no lookup wraps round.
    """

    def __init__(self, cell, lo, hi):
        self.cell = float(cell)
        self.origin = np.asarray(lo, float) - 2.0 * self.cell
        span = np.asarray(hi, float) - self.origin
        self.nx = int(np.ceil(span[0] / self.cell)) + 3
        self.ny = int(np.ceil(span[1] / self.cell)) + 3
        self.size = self.nx * self.ny

    def cells(self, points):
        """(ix, iy) integer cell coordinates of (K, 2) points, clipped inside the ring."""
        c = (points - self.origin) * (1.0 / self.cell)
        ix = np.clip(np.nan_to_num(c[:, 0]), 1, self.nx - 2).astype(np.int64)
        iy = np.clip(np.nan_to_num(c[:, 1]), 1, self.ny - 2).astype(np.int64)
        return ix, iy

    def index(self, points):
        ix, iy = self.cells(points)
        return ix * self.ny + iy


def ball_pairs(grid, pos):
    """Candidate ball pairs (i, j), i != j, each once: balls in the same or neighbouring cells.

    The grid's cell must be at least the largest ball diameter, so that touching balls are
    never more than one cell apart. A counting sort bins the balls (bincount of the cell
    numbers gives each cell's range in the sorted order); each ball then reads five of its
    nine neighbour cells' ranges directly.
    """
    n = len(pos)
    if n < 2:
        empty = np.zeros(0, np.int64)
        return empty, empty
    cell = grid.index(pos)
    order = np.argsort(cell, kind="stable")
    start = np.zeros(grid.size + 1, np.int64)
    np.cumsum(np.bincount(cell, minlength=grid.size), out=start[1:])
    firsts, seconds = [], []
    for dx, dy in _HALF_NEIGHBOURS:
        target = cell + (dx * grid.ny + dy)
        i, at = _expand(start[target], start[target + 1])
        j = order[at]
        if dx == 0 and dy == 0:
            keep = i < j
            i, j = i[keep], j[keep]
        firsts.append(i)
        seconds.append(j)
    return np.concatenate(firsts), np.concatenate(seconds)


def _cells_under_convex_polygon(grid, points):
    """Numbers of the grid cells a convex polygon (K, 2) overlaps (touching counts), row by
    row: within each row of cells the polygon spans from its leftmost to its rightmost point
    in that strip, which are corners in the strip or crossings of the strip's two lines."""
    _, (y0, y1) = grid.cells(np.array([points.min(axis=0), points.max(axis=0)]))
    rows = np.arange(y0, y1 + 1)
    lines = grid.origin[1] + np.arange(y0, y1 + 2) * grid.cell            # the rows' edges, y
    a, b = points, np.roll(points, -1, axis=0)
    dy = b[:, 1] - a[:, 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        t = (lines[:, None] - a[None, :, 1]) / dy[None, :]               # (lines, edges)
        crossing = (t >= 0) & (t <= 1) & (dy != 0)[None, :]
        x = a[None, :, 0] + t * (b - a)[None, :, 0]
    lo_line = np.min(np.where(crossing, x, np.inf), axis=1)
    hi_line = np.max(np.where(crossing, x, -np.inf), axis=1)
    in_strip = (points[None, :, 1] >= lines[:-1, None]) & (points[None, :, 1] <= lines[1:, None])
    lo = np.minimum(np.minimum(lo_line[:-1], lo_line[1:]),
                    np.min(np.where(in_strip, points[None, :, 0], np.inf), axis=1))
    hi = np.maximum(np.maximum(hi_line[:-1], hi_line[1:]),
                    np.max(np.where(in_strip, points[None, :, 0], -np.inf), axis=1))
    spans = np.isfinite(lo) & np.isfinite(hi)
    rows, lo, hi = rows[spans], lo[spans], hi[spans]
    ix_lo, _ = grid.cells(np.stack((lo, np.zeros_like(lo)), axis=1))
    ix_hi, _ = grid.cells(np.stack((hi, np.zeros_like(hi)), axis=1))
    owner, ix = _expand(ix_lo, ix_hi + 1)
    return ix * grid.ny + rows[owner]


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
        self.normal = geometry.segment_normal(self.a, self.b).reshape(-1, 2)
        # Contiguous components for the compiled kernels.
        self.ax, self.ay = self.a[:, 0].copy(), self.a[:, 1].copy()
        self.bx, self.by = self.b[:, 0].copy(), self.b[:, 1].copy()
        self.nx, self.ny = self.normal[:, 0].copy(), self.normal[:, 1].copy()
        lo = np.minimum(self.a, self.b) - self.radius[:, None]
        hi = np.maximum(self.a, self.b) + self.radius[:, None]
        self.box = np.hstack((lo, hi))          # (M, 4) bounding boxes
        self.grid = None
        self._start = np.zeros(1, np.int64)
        self._index = np.zeros(0, np.int64)

    def __len__(self):
        return len(self.a)

    def bin(self, grid):
        """List every capsule in each cell where a ball centred in that cell could touch it.

        A ball's radius is at most half a cell, so a capsule belongs to every cell that has a
        point within (cell / 2 + capsule radius) of its core segment. The lists are stored
        compressed: cell c's capsules are ``_index[_start[c]:_start[c + 1]]``.
        """
        self.grid = grid
        cells, index = [], []
        half = grid.cell / 2
        for s in range(len(self.a)):  # once per level or cell change, not per step
            reach = half + self.radius[s]
            (x0, x1), (y0, y1) = grid.cells(np.array([self.box[s, :2] - half, self.box[s, 2:] + half]))
            ix, iy = np.meshgrid(np.arange(x0, x1 + 1), np.arange(y0, y1 + 1))
            ix, iy = ix.ravel(), iy.ravel()
            centres = grid.origin + (np.stack((ix, iy), axis=1) + 0.5) * grid.cell
            closest = geometry.closest_point_on_segment(self.a[s], self.b[s], centres)
            near = _norm(centres - closest) <= reach + half * np.sqrt(2.0)
            cells.append(ix[near] * grid.ny + iy[near])
            index.append(np.full(int(near.sum()), s, np.int64))
        # A ball can be deep inside a polygon (spawned there), further than a cell from every
        # edge: each cell a polygon covers also lists one of its edges, so polygon_insides
        # finds the ball and pushes it out through the nearest edge.
        for p, points in enumerate(self.polygons):
            edges = np.nonzero(self.polygon == p)[0]
            if len(edges):
                covered = _cells_under_convex_polygon(grid, points)
                cells.append(covered)
                index.append(np.full(len(covered), edges[0], np.int64))
        cells = np.concatenate(cells) if cells else np.zeros(0, np.int64)
        index = np.concatenate(index) if index else np.zeros(0, np.int64)
        # One entry per (cell, capsule): a cell near a polygon's first edge lists it once.
        key = np.sort(cells * max(1, len(self.a)) + index)         # by cell, then capsule
        key = key[np.concatenate(([True], key[1:] != key[:-1]))] if len(key) else key
        cells, self._index = np.divmod(key, max(1, len(self.a)))
        self._start = np.zeros(grid.size + 1, np.int64)
        np.cumsum(np.bincount(cells, minlength=grid.size), out=self._start[1:])

    def candidates(self, pos):
        """Candidate (ball, static) pairs for balls at ``pos``: the capsules listed in each ball's cell."""
        if len(self._index) == 0 or len(pos) == 0:
            empty = np.zeros(0, np.int64)
            return empty, empty
        cell = self.grid.index(pos)
        ball, at = _expand(self._start[cell], self._start[cell + 1])
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


def ball_static_geometry(pos, prev, radius, statics, i, s):
    """(normal, depth) of balls against capsules: seed 000's offset from the closest point.

    A ball whose centre crossed a capsule's core segment since ``prev`` (the start of the
    sub-step) is pushed back to the side it came from, and a centre exactly on the core is
    pushed along the segment's normal towards ``prev``: a wall is never passed by being
    pushed through it. Polygon edges leave the inside case to ``polygon_insides``.
    """
    a, b = statics.a[s], statics.b[s]
    p = pos[i]
    closest = geometry.closest_point_on_segment(a, b, p)
    d = p - closest
    dist = _norm(d)
    came_from = geometry.side(a, b, prev[i])
    # The centre's path prev -> p crossed the core segment a -> b (thin walls, stadiums).
    edge = statics.polygon[s] >= 0
    crossed = ((came_from * geometry.side(a, b, p) < 0)
               & (geometry.side(prev[i], p, a) * geometry.side(prev[i], p, b) <= 0) & ~edge)
    towards = np.where((came_from >= 0) & ~edge, 1.0, -1.0)[:, None] * statics.normal[s]
    with np.errstate(invalid="ignore", divide="ignore"):
        normal = np.where((dist <= 1e-12)[:, None], towards, d / dist[:, None])
    normal = np.where(crossed[:, None], towards, normal)
    reach = radius[i] + statics.radius[s]
    depth = np.where(crossed, reach + dist, reach - dist)
    return normal, depth


def polygon_insides(pos, radius, statics, i, s, normal, depth):
    """Balls whose centre got inside a convex polygon: pushed out through the nearest edge.

    Rewrites (normal, depth) of the contacts whose ball is inside the edge's polygon so that
    one contact per ball and polygon carries the push (depth = distance to the nearest edge
    + radius, along its outward normal) and the others are dropped (depth -inf).
    """
    on_polygon = statics.polygon[s] >= 0
    if not on_polygon.any():
        return
    # The inner side of a counter-clockwise edge is its left: side > 0.
    inner = on_polygon & (geometry.side(statics.a[s], statics.b[s], pos[i]) > 0)
    if not inner.any():
        return
    for poly in np.unique(statics.polygon[s[inner]]):  # loop over polygons met, not balls
        rows = np.nonzero(inner & (statics.polygon[s] == poly))[0]
        inside = np.asarray(geometry.point_in_convex_polygon(pos[i[rows]], statics.polygons[poly]), bool)
        balls = np.unique(i[rows][inside.reshape(-1)])
        if len(balls) == 0:
            continue
        offset = geometry.circle_polygon_offset(pos[balls], radius[balls], statics.polygons[poly]).reshape(-1, 2)
        push = _norm(offset)
        with np.errstate(invalid="ignore", divide="ignore"):
            unit = np.where(push[:, None] > 0, offset / push[:, None], 0.0)
        all_rows = np.nonzero((statics.polygon[s] == poly) & np.isin(i, balls))[0]
        depth[all_rows] = -np.inf
        first = all_rows[np.unique(i[all_rows], return_index=True)[1]]
        where = np.searchsorted(balls, i[first])
        normal[first] = unit[where]
        depth[first] = push[where]


class Contacts:
    """Contacts of one sub-step, linearised: ball i against ball j, or against a static.

    A static is stood in for by a still ball of zero inverse mass at index N (the origin),
    so every contact has the same form. ``normal`` (C, 2) points from j towards i, and the
    depth at positions p is ``rhs - (p_i - p_j) . normal`` (> 0: overlapping); for a ball
    pair rhs = r_i + r_j, for a static rhs = depth + p_i . normal at the time it was found.
    """

    def __init__(self, n, i, j, nx, ny, depth, rhs, restitution, friction, reach):
        self.n = n
        self.reach = reach          # (C,) r_i + r_j, or r_i + capsule radius
        self.i, self.j = i, j
        self.nx, self.ny = nx, ny   # (C,) each: the normal's components, contiguous
        self.depth, self.rhs = depth, rhs
        self.restitution, self.friction = restitution, friction
        self.static = j == n

    @property
    def normal(self):
        """(C, 2) the normals as rows."""
        return np.stack((self.nx, self.ny), axis=1)

    @property
    def touching(self):
        """(C,) bool: the contacts the velocity solve takes (closer than CONTACT_SLOP)."""
        return self.depth > -CONTACT_SLOP

    @property
    def found_depth(self):
        """(C,) the overlap the push removes (0 where apart)."""
        return np.maximum(self.depth, 0.0)

    def points(self, pos, radius, rows):
        """(K, 2) touch points of the given contacts at positions ``pos``: on ball i's surface
        where the other body meets it, p_i - n (r_i - depth) (sound and debug drawing)."""
        i = self.i[rows]
        lever = radius[i] - self.depth[rows]
        return pos[i] - np.stack((self.nx[rows] * lever, self.ny[rows] * lever), axis=1)

    def refresh(self, pos, found_at, margin):
        """Depths at new positions ``pos``, keeping pairs and normals, if every ball is less than
        its ``margin`` (N,) from where it was at ``found_at`` (N, 2) when the contacts were
        found; returns whether it was (if not, the contacts must be found again)."""
        if accel.KERNELS is not None:
            return accel.KERNELS.refresh(pos, found_at, margin, self.i, self.j, self.nx, self.ny,
                                         self.rhs, self.depth)
        moved = pos - found_at
        if not np.all(_dot(moved, moved) < margin * margin):
            return False
        px, py = _extended(pos[:, 0]), _extended(pos[:, 1])
        i, j = self.i, self.j
        self.depth = self.rhs - ((px[i] - px[j]) * self.nx + (py[i] - py[j]) * self.ny)
        return True

    def __len__(self):
        return len(self.i)


def _ball_contacts(grid, pos, radius, margin):
    """(i, j, normal, depth, reach) of ball pairs closer than reach + margins: numpy."""
    i, j = ball_pairs(grid, pos)
    # Cull on squared distances first: most candidates are not near.
    px, py = pos[:, 0].copy(), pos[:, 1].copy()
    dx, dy = px[i] - px[j], py[i] - py[j]
    reach = radius[i] + radius[j]
    limit = reach + margin[i] + margin[j]
    near = np.nonzero(dx * dx + dy * dy < limit * limit)[0]
    i, j, dx, dy, reach = i[near], j[near], dx[near], dy[near], reach[near]
    dist = np.sqrt(dx * dx + dy * dy)
    apart = dist > 1e-12
    inv = 1.0 / np.where(apart, dist, 1.0)
    normal = np.stack((np.where(apart, dx * inv, 1.0), dy * inv), axis=1)
    return i, j, normal, reach - dist, reach


def _ball_contacts_compiled(kernels, grid, pos, radius, restitution, friction, margin, tail=None):
    """The ball pairs of _ball_contacts, found by walking the grid in compiled code
    (game.accel), with their materials combined and ``tail`` (the ball-static contacts as
    the arrays i, j, nx, ny, depth, rhs, restitution, friction, reach) appended: the
    arrays (i, j, nx, ny, depth, rhs, restitution, friction, reach) of Contacts."""
    if tail is None:
        empty = np.zeros(0)
        tail = (np.zeros(0, np.int64), np.zeros(0, np.int64)) + (empty,) * 7
    return kernels.ball_contacts(
        np.ascontiguousarray(pos[:, 0]), np.ascontiguousarray(pos[:, 1]), np.ascontiguousarray(radius),
        restitution, friction, margin, grid.cell, grid.origin[0], grid.origin[1], grid.nx, grid.ny, *tail)


def _static_contacts_compiled(kernels, statics, pos, prev, radius, margin):
    """(ball, static, normal, depth) as candidates + ball_static_geometry give them."""
    g = statics.grid
    i, s, nx, ny, depth = kernels.static_contacts(
        np.ascontiguousarray(pos[:, 0]), np.ascontiguousarray(pos[:, 1]),
        np.ascontiguousarray(prev[:, 0]), np.ascontiguousarray(prev[:, 1]), np.ascontiguousarray(radius),
        margin, g.cell, g.origin[0], g.origin[1], g.nx, g.ny, statics._start, statics._index,
        statics.ax, statics.ay, statics.bx, statics.by, statics.radius, statics.nx, statics.ny, statics.polygon)
    return i, s, np.stack((nx, ny), axis=1), depth


def find_contacts(pos, prev, radius, restitution, friction, grid, statics, margin):
    """All ball-ball and ball-static contacts that could touch within each ball's ``margin``.

    ``margin``: metres, a scalar or (N,) per ball (how far the ball may travel before the
    contacts are found again); a pair is kept if its gap is below the sum of its margins.
    Materials combine as Box2D does: the livelier restitution, the geometric mean of friction.
    """
    n = len(pos)
    kernels = accel.KERNELS
    margin = np.array(np.broadcast_to(np.asarray(margin, float), (n,)))   # writable: one kernel signature
    # Ball-static contacts (few): the offset from each capsule listed in the ball's cell.
    if kernels is not None and len(statics._index):
        si, s, snormal, sdepth = _static_contacts_compiled(kernels, statics, pos, prev, radius, margin)
    else:
        si, s = statics.candidates(pos)
        snormal, sdepth = ball_static_geometry(pos, prev, radius, statics, si, s)
    polygon_insides(pos, radius, statics, si, s, snormal, sdepth)
    near = sdepth > -margin[si]
    si, s, snormal, sdepth = si[near], s[near], snormal[near], sdepth[near]
    walls = (si, np.full(len(si), n, np.int64), np.ascontiguousarray(snormal[:, 0]),
             np.ascontiguousarray(snormal[:, 1]), sdepth, sdepth + _dot(pos[si], snormal),
             np.maximum(restitution[si], statics.restitution[s]), np.sqrt(friction[si] * statics.friction[s]),
             radius[si] + statics.radius[s])
    # Ball pairs (many), with the walls after them.
    if kernels is not None:
        return Contacts(n, *_ball_contacts_compiled(kernels, grid, pos, radius, restitution, friction,
                                                    margin, walls))
    i, j, normal, depth, reach = _ball_contacts(grid, pos, radius, margin)
    pairs = (i, j, normal[:, 0], normal[:, 1], depth, reach, np.maximum(restitution[i], restitution[j]),
             np.sqrt(friction[i] * friction[j]), reach)
    return Contacts(n, *(np.concatenate(columns) for columns in zip(pairs, walls)))


def _extended(array):
    """The array with one more entry, 0, for the still stand-in of the statics."""
    out = np.empty((len(array) + 1,) + array.shape[1:])
    out[:-1] = array
    out[-1] = 0.0
    return out


def respond(contacts, pos, vel, prev, inv_mass, h):
    """The response of one sub-step, in place; returns each contact's approach speed (C,).

    Push out along the offsets, cancel the velocity into the push, positional static
    friction, then restitution and friction impulses: in compiled code when game.accel has
    its kernels (Gauss-Seidel), else with the numpy functions below (averaged Jacobi).
    """
    kernels = accel.KERNELS
    if kernels is None or len(contacts) == 0:
        approach = approach_speeds(contacts, vel)
        push_apart(contacts, pos, vel, prev, inv_mass, h)
        resolve_velocities(contacts, vel, inv_mass, approach)
        return approach
    c = contacts
    return kernels.respond(c.i, c.j, c.nx, c.ny, c.rhs, c.depth, c.reach, c.static, c.restitution, c.friction,
                           pos, vel, prev, inv_mass, h, COMPILED_POSITION_ITERATIONS,
                           COMPILED_VELOCITY_ITERATIONS, WALL_PASSES, NEAR_FRACTION, RESTING_SPEED, CONTACT_SLOP)


def push_apart(contacts, pos, vel, prev, inv_mass, h, iterations=POSITION_ITERATIONS):
    """Move overlapping balls out along their offset vectors (ball-ball split by inverse mass).

    Jacobi passes on the linearised contacts: every contact proposes its push at once; a
    ball takes the mean of its proposals, over-relaxed by SOR but never moved further than
    a lone contact would move it. A push of length d in direction u then cancels the ball's
    velocity into -u, by at most d / h: a ball resting on a pile loses the speed gravity gave
    it this sub-step, at once however deep the pile, and a push never launches a ball.
    Static friction is positional: where a ball touches a static with friction, the sliding
    of this sub-step along the contact is undone as far as Coulomb allows (|slide| <=
    friction * depth), so a ball rests on a slope instead of creeping.
    """
    c = contacts
    # Only contacts near touching can be pushed within this sub-step's passes.
    keep = np.nonzero(c.depth > -NEAR_FRACTION * c.reach)[0]
    if len(keep) == 0 and not c.static.any():
        return
    size = c.n + 1
    px, py = _extended(pos[:, 0]), _extended(pos[:, 1])
    x0, y0 = px.copy(), py.copy()
    w = _extended(inv_mass)
    i, j, rhs = c.i[keep], c.j[keep], c.rhs[keep]
    nx, ny = c.nx[keep], c.ny[keep]
    w_i, w_j = w[i], w[j]
    w_sum = w_i + w_j
    with np.errstate(invalid="ignore", divide="ignore"):
        share_i = np.where(w_sum > 0, w_i / w_sum, 0.0)
        share_j = np.where(w_sum > 0, w_j / w_sum, 0.0)
    counts = np.bincount(i, minlength=size) + np.bincount(j, minlength=size)
    with np.errstate(invalid="ignore", divide="ignore"):
        scale = np.where(counts > 0, np.minimum(1.0, SOR / counts), 0.0)
    scale[-1] = 0.0
    # Move of each ball per unit depth of contact k: +share_i n on i, -share_j n on j, scaled.
    share_i *= scale[i]
    share_j *= scale[j]
    ix, iy, jx, jy = share_i * nx, share_i * ny, share_j * nx, share_j * ny
    for _ in range(iterations):
        depth = rhs - ((px[i] - px[j]) * nx + (py[i] - py[j]) * ny)
        np.maximum(depth, 0.0, out=depth)
        if not depth.any():
            break
        px += np.bincount(i, depth * ix, size) - np.bincount(j, depth * jx, size)
        py += np.bincount(i, depth * iy, size) - np.bincount(j, depth * jy, size)
    # Walls have the last word: averaged with a ball pressing it outwards, a ball could end
    # past a wall, so the statics alone push again (averaged among themselves, for corners).
    wall = np.nonzero(c.static)[0]      # all of them: a push may have brought any near
    if len(wall):
        wi, wnx, wny, wrhs = c.i[wall], c.nx[wall], c.ny[wall], c.rhs[wall]
        share = 1.0 / np.maximum(np.bincount(wi, minlength=size), 1)
        for _ in range(WALL_PASSES):
            depth = wrhs - (px[wi] * wnx + py[wi] * wny)
            np.maximum(depth, 0.0, out=depth)
            if not depth.any():
                break
            px += np.bincount(wi, depth * wnx, size) * share
            py += np.bincount(wi, depth * wny, size) * share
    push = np.stack((px[:-1] - x0[:-1], py[:-1] - y0[:-1]), axis=1)
    pos += push
    _cancel_approach(push, vel, h)
    _stick(c, pos, prev)


def _stick(c, pos, prev):
    """Positional static friction against statics (see push_apart)."""
    wall = c.static & (c.found_depth > 0) & (c.friction > 0)
    if not wall.any():
        return
    i = c.i[wall]
    nrm = np.stack((c.nx[wall], c.ny[wall]), axis=1)
    slide = pos[i] - prev[i]
    slide -= nrm * _dot(slide, nrm)[:, None]
    length = _norm(slide)
    stick = (length <= c.friction[wall] * c.found_depth[wall]) & (length > 0)
    if stick.any():
        n = len(pos)
        counts = np.bincount(i[stick], minlength=n).astype(float)
        total = np.stack((np.bincount(i[stick], slide[stick, 0], n), np.bincount(i[stick], slide[stick, 1], n)), 1)
        pos -= total / np.maximum(counts, 1.0)[:, None]


def _cancel_approach(push, vel, h):
    """Remove each ball's velocity against its push ``push`` (N, 2), at most |push| / h of it."""
    moved = np.nonzero(push[:, 0] * push[:, 0] + push[:, 1] * push[:, 1] > 0)[0]
    if len(moved) == 0:
        return
    push = push[moved]
    length = _norm(push)
    u = push / length[:, None]
    v = vel[moved]
    along = u[:, 0] * v[:, 0] + u[:, 1] * v[:, 1]
    cancel = np.minimum(np.maximum(along, -length / h), 0.0)
    vel[moved] = v - u * cancel[:, None]


def approach_speeds(contacts, vel):
    """(C,) speed at which each touching contact closes (> 0 approaching), before any response."""
    c = contacts
    out = np.zeros(len(c))
    k = np.nonzero(c.touching)[0]
    vx, vy = _extended(vel[:, 0]), _extended(vel[:, 1])
    i, j = c.i[k], c.j[k]
    out[k] = -((vx[i] - vx[j]) * c.nx[k] + (vy[i] - vy[j]) * c.ny[k])
    return out


def resolve_velocities(contacts, vel, inv_mass, approach, iterations=VELOCITY_ITERATIONS):
    """Impulses on touching contacts: restitution on the approaching normal speed, Coulomb friction.

    Accumulated impulses, clamped (normal >= 0, |tangent| <= friction * normal), applied in
    averaged Jacobi passes. ``approach`` (C,) is each contact's closing speed measured before
    the push (approach_speeds): a contact that closed faster than RESTING_SPEED bounces back at
    restitution times that speed; slower ones do not bounce, so piles settle instead of
    buzzing. The push already stopped the approach (push_apart), and the impulse that took
    bounds friction as well.
    """
    c = contacts
    touching = c.touching
    if len(c) == 0 or not touching.any():
        return
    keep = np.nonzero(touching)[0]
    size = c.n + 1
    i, j = c.i[keep], c.j[keep]
    nx, ny = c.nx[keep], c.ny[keep]
    w = _extended(inv_mass)
    w_i, w_j = w[i], w[j]
    w_sum = w_i + w_j
    with np.errstate(invalid="ignore", divide="ignore"):
        eff = np.where(w_sum > 0, 1.0 / w_sum, 0.0)
    approach = approach[keep]
    bounce = np.where(approach > RESTING_SPEED, c.restitution[keep], 0.0)
    target = np.maximum(bounce * approach, 0.0)     # wanted separating speed
    mu = c.friction[keep]
    counts = np.bincount(i, minlength=size) + np.bincount(j, minlength=size)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(counts > 0, 1.0 / counts, 0.0)
    # Velocity change per unit impulse, averaged over each ball's contacts.
    a_i, a_j = w_i * share[i], w_j * share[j]
    vx, vy = _extended(vel[:, 0]), _extended(vel[:, 1])
    # The normal impulse the push spent cancelling the approach (push_apart) bounds friction
    # too: the approach before the push less what is left of it now.
    left = np.maximum(-((vx[i] - vx[j]) * nx + (vy[i] - vy[j]) * ny), 0.0)
    stopped = np.maximum(np.maximum(approach, 0.0) - left, 0.0) * eff
    acc_n = np.zeros(len(keep))
    acc_t = np.zeros(len(keep))
    for _ in range(iterations):
        rx = vx[i] - vx[j]
        ry = vy[i] - vy[j]
        vn = rx * nx + ry * ny
        vt = ry * nx - rx * ny                # along the tangent t = (-ny, nx)
        new_n = np.maximum(acc_n + (target - vn) * eff, 0.0)
        d_n = new_n - acc_n
        acc_n = new_n
        limit = mu * (acc_n + stopped)
        new_t = np.clip(acc_t - vt * eff, -limit, limit)
        d_t = new_t - acc_t
        acc_t = new_t
        ix = d_n * nx - d_t * ny              # impulse d_n n + d_t t
        iy = d_n * ny + d_t * nx
        vx += np.bincount(i, ix * a_i, size) - np.bincount(j, ix * a_j, size)
        vy += np.bincount(i, iy * a_i, size) - np.bincount(j, iy * a_j, size)
    vel[:, 0] = vx[:-1]
    vel[:, 1] = vy[:-1]


def sweep(prev, pos, vel, radius, restitution, friction, statics):
    """Continuous collision against statics for balls that moved far in this sub-step (seed 001).

    A ball that moved more than CCD_FRACTION of its radius is swept from ``prev`` along its
    move; at the first touch it stops and its velocity responds there (restitution on the
    normal speed, Coulomb friction on the tangent). A ball already touching a wall is left to
    the contact solver unless its centre's path crosses the wall's core, in which case it
    stays where it was. Returns (swept ball indices, hit points (F, 2) with NaN where no hit).
    """
    if accel.KERNELS is not None:
        st = statics
        return accel.KERNELS.sweep(prev, pos, vel, radius, restitution, friction, CCD_FRACTION,
                                   RESTING_SPEED, st.ax, st.ay, st.bx, st.by, st.radius, st.nx, st.ny,
                                   st.restitution, st.friction, st.box, st.polygon)
    move = pos - prev
    fast = np.nonzero(_norm(move) > CCD_FRACTION * radius)[0]
    if len(fast) == 0 or len(statics) == 0:
        return fast, np.full((len(fast), 2), np.nan)
    ball, s = statics.along_paths(prev[fast], pos[fast], radius[fast])
    hits = np.full((len(fast), 2), np.nan)
    if len(ball) == 0:
        return fast, hits
    k = fast[ball]
    # A polygon's edges stop balls from outside only: a ball whose centre starts on an edge's
    # inner side is inside the polygon or will meet another edge first, and is being pushed
    # out (polygon_insides), not into it.
    outer = (statics.polygon[s] < 0) | (geometry.side(statics.a[s], statics.b[s], prev[k]) <= 0)
    if not outer.all():
        ball, s, k = ball[outer], s[outer], k[outer]
    a, b = statics.a[s], statics.b[s]
    t = np.asarray(geometry.swept_circle_segment(prev[k], radius[k], move[k], a, b, statics.radius[s]),
                   float).reshape(-1)
    # Touching already (t == 0): a hit only if the centre's path crosses the core segment.
    start = t == 0
    if start.any():
        _, crosses = geometry.segment_intersections(prev[k], pos[k], a, b)
        t = np.where(start & ~np.asarray(crosses, bool).reshape(-1), np.inf, t)
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
    towards = np.where(came_from >= 0, 1.0, -1.0)[:, None] * statics.normal[s]
    with np.errstate(invalid="ignore", divide="ignore"):
        normal = np.where(dist[:, None] > 1e-12, d / dist[:, None], towards)
    pos[k] = touch
    v = vel[k]
    vn = _dot(v, normal)
    e = np.maximum(restitution[k], statics.restitution[s])
    e = np.where(-vn > RESTING_SPEED, e, 0.0)
    dvn = np.where(vn < 0, -(1.0 + e) * vn, 0.0)
    vt_vec = v - normal * vn[:, None]
    vt = _norm(vt_vec)
    mu = np.sqrt(friction[k] * statics.friction[s])
    with np.errstate(invalid="ignore", divide="ignore"):
        keep = np.where(vt > 0, np.maximum(0.0, 1.0 - mu * dvn / vt), 1.0)
    vel[k] = normal * (vn + dvn)[:, None] + vt_vec * keep[:, None]
    hits[ball] = touch
    return fast, hits
