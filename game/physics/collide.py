"""Collision: broad phase grid, narrow phase offset vectors and swept tests (game.physics.solver responds).

Everything works on arrays of balls and of contact pairs at once; no Python loop runs over
balls or pairs. Statics are capsules (segment + radius): a thin wall has radius 0, a stadium
radius > 0, a round peg equal ends and radius > 0. Convex polygons are their edges plus an
inside test.

Shapes: ``pos`` (N, 2) metres, ``vel`` (N, 2) m/s, ``radius`` and ``inv_mass`` (N,).
"""
import numpy as np
# np.unique imports numpy.ma on its first call (10-20 ms): at import, not in the middle of
# the first frame a ball gets inside a polygon.
import numpy.ma  # noqa: F401

from game.physics import bundles, geometry, insides, motion

# Tuning, with units.
CCD_FRACTION = 0.25        # sweep a ball that moved more than this fraction of its radius
RESTING_SPEED = 0.5        # m/s: approaching slower than this, a contact does not bounce
IMPACT_SPEED = 0.6         # m/s: slower contacts make no impact event
MAX_GRID_CELLS = 1 << 21   # the broad-phase grid never has more cells than this
MAX_STATIC_ENTRIES = 1 << 21  # (cell, capsule) entries the cell choice allows, estimated: about 1 s to bin
MAX_MARGIN_CELLS = 0.5     # cells: find_candidates finds every pair within margins this long
CONTACT_MARGIN = 0.2         # contacts are searched this fraction of a radius beyond reach (more:
                             # more candidates to measure each sub-step, fewer searches)

# The half neighbourhood: each pair of neighbouring cells is visited once.
_HALF_NEIGHBOURS = ((0, 0), (1, -1), (1, 0), (1, 1), (0, 1))


def _dot(u, v):
    return np.einsum("ij,ij->i", u, v)


def _norm(v):
    return np.sqrt(np.einsum("ij,ij->i", v, v))


def expand_ranges(lo, hi):
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
        self.lo, self.hi = np.asarray(lo, float), np.asarray(hi, float)
        self.origin = self.lo - 2.0 * self.cell
        span = np.asarray(hi, float) - self.origin
        self.nx = int(np.ceil(span[0] / self.cell)) + 3
        self.ny = int(np.ceil(span[1] / self.cell)) + 3
        self.size = self.nx * self.ny

    def coarser(self, cell):
        """This grid, or a grid of larger cells ``cell`` metres wide over the same region."""
        return self if cell <= self.cell else Grid(cell, self.lo, self.hi)

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
    never more than one cell apart. The balls are sorted by cell number; each ball then
    finds five of its nine neighbour cells' ranges in that order by binary search.
    """
    n = len(pos)
    if n < 2:
        empty = np.zeros(0, np.int64)
        return empty, empty
    cell = grid.index(pos)
    order = np.argsort(cell, kind="stable")
    sorted_cell = cell[order]
    firsts, seconds = [], []
    for dx, dy in _HALF_NEIGHBOURS:
        # A cell's range in the sorted order by binary search: O(n log n) whatever the grid's size.
        target = cell + (dx * grid.ny + dy)
        i, at = expand_ranges(np.searchsorted(sorted_cell, target, "left"),
                              np.searchsorted(sorted_cell, target, "right"))
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
    owner, ix = expand_ranges(ix_lo, ix_hi + 1)
    return ix * grid.ny + rows[owner]


class Statics:
    """Static capsules as arrays, binned once into a grid.

    ``a``, ``b``: (M, 2) ends; ``radius``, ``restitution``, ``friction``, ``rolling`` (rolling
    resistance): (M,);
    ``polygon``: (M,) index into ``polygons`` of the polygon an edge belongs to, -1 if none.
    """

    def __init__(self, a, b, radius, restitution, friction, polygon, polygons, rolling=None, surface=None,
                 kick=None, paths=None):
        self.a = np.asarray(a, float).reshape(-1, 2)
        self.b = np.asarray(b, float).reshape(-1, 2)
        self.radius = np.asarray(radius, float).reshape(-1)
        self.restitution = np.asarray(restitution, float).reshape(-1)
        self.friction = np.asarray(friction, float).reshape(-1)
        self.rolling = (np.zeros(len(self.a)) if rolling is None
                        else np.asarray(rolling, float).reshape(-1))
        self.polygon = np.asarray(polygon, np.int64).reshape(-1)
        self.polygons = polygons
        # The polygons as the compiled insides take them (insides.polygon_layout): their edges'
        # rows, area signs, and whether their corners are their edges' first ends.
        self.polygon_first, self.polygon_winding, self.polygon_solid, self.polygons_laid_out = \
            insides.polygon_layout(self.polygon, self.a, polygons)
        self.normal = geometry.segment_normal(self.a, self.b).reshape(-1, 2)
        # Contiguous components for the compiled kernels.
        self.ax, self.ay = self.a[:, 0].copy(), self.a[:, 1].copy()
        self.bx, self.by = self.b[:, 0].copy(), self.b[:, 1].copy()
        self.nx, self.ny = self.normal[:, 0].copy(), self.normal[:, 1].copy()
        lo = np.minimum(self.a, self.b) - self.radius[:, None]
        hi = np.maximum(self.a, self.b) + self.radius[:, None]
        self.box = np.hstack((lo, hi))          # (M, 4) bounding boxes (a moving capsule's: of its path)
        # Moving walls (game.physics.motion): ``surface`` (M,) m/s along a -> b (a conveyor),
        # ``kick`` (M,) m/s (a bumper), ``moving`` (M,) bool; the sub-step's rigid map of each
        # moving capsule (mcos, msin of its turn, mcx, mcy its centre, mdx, mdy its shift, omega
        # rad/s its turn over the sub-step) and inv_h (1/s): motion.Motions.tick_poses computes
        # them, set_pose puts them in place.
        m = len(self.a)
        self.surface = np.zeros(m) if surface is None else np.asarray(surface, float).reshape(-1)
        self.kick = np.zeros(m) if kick is None else np.asarray(kick, float).reshape(-1)
        self.moving = np.zeros(m, bool)
        self.mcos, self.msin = np.ones(m), np.zeros(m)
        self.mcx, self.mcy, self.mdx, self.mdy, self.omega = (np.zeros(m) for _ in range(5))
        self.inv_h = 0.0
        # Where the broad phase bins each capsule: its own core, or for a moving one a round
        # peg (centre, radius) holding its whole path (paths: (rows, centre (K, 2), radius (K,))).
        self.bin_a, self.bin_b, self.bin_radius = self.a.copy(), self.b.copy(), self.radius.copy()
        if paths is not None and len(paths[0]):
            rows, centre, reach = paths
            self.moving[rows] = True
            self.bin_a[rows] = centre
            self.bin_b[rows] = centre
            self.bin_radius[rows] = reach + self.radius[rows]
            self.box[rows] = np.hstack((centre - self.bin_radius[rows, None], centre + self.bin_radius[rows, None]))
        # A capsule (ax, ay, bx, by, radius) holding each moving capsule within this tick
        # (motion.Motions.tick_poses sets it each tick; a disc holding its path until the
        # first): the candidates and the sweeps test it.
        self.reach = np.hstack((self.bin_a, self.bin_b, self.bin_radius[:, None]))
        self.grid = None
        self._start = np.zeros(1, np.int64)
        self._index = np.zeros(0, np.int64)

    def __len__(self):
        return len(self.a)

    @property
    def any_moving(self):
        """Whether some capsule moves or carries a surface speed (a conveyor)."""
        return bool(self.moving.any() or (self.surface != 0.0).any())

    @property
    def surface_speed(self):
        """(M,) m/s: each capsule's surface speed along a -> b (the name the game reads)."""
        return self.surface

    @property
    def walls(self):
        """Whether some capsule moves, carries a surface speed or kicks (a bumper): the contacts
        then carry the walls' fields (contacts.wall_rows) and the step counts their work."""
        return self.any_moving or bool(self.kick.any())

    def set_ends(self, rows, a, b):
        """Move capsules ``rows`` to ends a, b (K, 2) m (a moving wall's pose): the ends, their
        components and normals change in place; the boxes and the bins hold their paths."""
        self.a[rows] = a
        self.b[rows] = b
        self.normal[rows] = geometry.segment_normal(a, b).reshape(-1, 2)
        self.ax[rows], self.ay[rows] = a[:, 0], a[:, 1]
        self.bx[rows], self.by[rows] = b[:, 0], b[:, 1]
        self.nx[rows], self.ny[rows] = self.normal[rows, 0], self.normal[rows, 1]

    def set_pose(self, poses, k):
        """Put sub-step k's poses (motion.Motions.tick_poses: (S, len(POSE_FIELDS), M)) of the
        moving capsules in place: their ends, normals and rigid maps."""
        rows = np.nonzero(self.moving)[0]
        for f, name in enumerate(motion.POSE_FIELDS):
            getattr(self, name)[rows] = poses[k, f, rows]
        self.a[rows, 0], self.a[rows, 1] = self.ax[rows], self.ay[rows]
        self.b[rows, 0], self.b[rows, 1] = self.bx[rows], self.by[rows]
        self.normal[rows, 0], self.normal[rows, 1] = self.nx[rows], self.ny[rows]

    def bin(self, grid):
        """List every capsule in each cell where a ball centred in that cell could touch it,
        or come within a margin of MAX_MARGIN_CELLS cells of it (``find_candidates``).

        A ball's radius is at most half a cell and it looks a margin of up to MAX_MARGIN_CELLS
        cells further, so a capsule belongs to every cell whose centre is within
        (cell / 2 + margin + capsule radius + cell / sqrt 2) of its core segment. The lists are
        stored compressed: cell c's capsules are ``_index[_start[c]:_start[c + 1]]``.

        Vectorised over capsules: each capsule's columns of cells, then in each column the rows
        the capsule's part over that column can reach (the segment clipped to the column's
        x-range widened by the reach, its y-extent widened by the reach), then the exact
        distance test. Work and memory are O(cells listed), which ``entries`` estimates
        for choosing the cell.
        """
        self.grid = grid
        cells, index = [], []
        half = grid.cell / 2
        reach = half + MAX_MARGIN_CELLS * grid.cell + self.bin_radius + half * np.sqrt(2.0)   # (M,) m
        if len(self.a):
            ax, ay = self.bin_a[:, 0].copy(), self.bin_a[:, 1].copy()
            bx, by = self.bin_b[:, 0].copy(), self.bin_b[:, 1].copy()
            (x0, x1) = grid.cells(np.stack((np.minimum(ax, bx) - reach, np.zeros(len(ax))), axis=1))[0], \
                grid.cells(np.stack((np.maximum(ax, bx) + reach, np.zeros(len(ax))), axis=1))[0]
            s, ix = expand_ranges(x0, x1 + 1)
            xc = grid.origin[0] + (ix + 0.5) * grid.cell
            # The segment's parameter range over the column strip |x - xc| <= reach.
            dx, dy = bx[s] - ax[s], by[s] - ay[s]
            # A nearly vertical segment divides by a tiny dx: +-inf is the right limit there.
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                t_lo = (xc - reach[s] - ax[s]) / dx
                t_hi = (xc + reach[s] - ax[s]) / dx
            flat = dx == 0                                  # vertical: all of it, if in reach
            t0 = np.where(flat, 0.0, np.maximum(0.0, np.minimum(t_lo, t_hi)))
            t1 = np.where(flat, 1.0, np.minimum(1.0, np.maximum(t_lo, t_hi)))
            some = t0 <= t1
            y0, y1 = ay[s] + t0 * dy, ay[s] + t1 * dy
            ylo = np.minimum(y0, y1) - reach[s]
            yhi = np.maximum(y0, y1) + reach[s]
            iy0 = np.clip((ylo - grid.origin[1]) * (1.0 / grid.cell), 1, grid.ny - 2).astype(np.int64)
            iy1 = np.clip((yhi - grid.origin[1]) * (1.0 / grid.cell), 1, grid.ny - 2).astype(np.int64)
            iy1 = np.where(some, iy1, iy0 - 1)              # an empty range
            k, iy = expand_ranges(iy0, iy1 + 1)
            s, ix, xc, dx, dy = s[k], ix[k], xc[k], dx[k], dy[k]
            # Distance from each cell's centre to the core segment, squared (as in
            # geometry.closest_point_on_segment: t = clamp(w.d / d.d, 0, 1)).
            wx = xc - ax[s]
            wy = grid.origin[1] + (iy + 0.5) * grid.cell - ay[s]
            dd = dx * dx + dy * dy
            t = np.minimum(np.maximum(wx * dx + wy * dy, 0.0), dd) / np.maximum(dd, geometry.TINY)
            ex, ey = wx - t * dx, wy - t * dy
            near = ex * ex + ey * ey <= reach[s] * reach[s]
            cells.append(ix[near] * grid.ny + iy[near])
            index.append(s[near])
        # A ball can be deep inside a polygon (spawned there), further than a cell from every
        # edge: each cell a polygon covers also lists one of its edges, so polygon_insides
        # finds the ball and pushes it out through the nearest edge.
        for p, points in enumerate(self.polygons):
            edges = np.nonzero(self.polygon == p)[0]
            if len(edges) and not self.moving[edges].any():     # a moving one's edges hold their path
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

    def entries(self, cell):
        """About how many (cell, capsule) entries ``bin`` lists for square cells ``cell`` metres
        wide: a capsule of core length L and radius r covers (L + 2 R) / cell + 1 columns of
        about 2 R / cell + 2 rows, R = r + (1 + sqrt 2) cell / 2 + MAX_MARGIN_CELLS cell its reach;
        a polygon's box of w x h adds (w / cell + 3)(h / cell + 3). An over-estimate by a small
        factor."""
        total = 0.0
        if len(self.a):
            d = self.bin_b - self.bin_a
            length = np.sqrt(d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1])
            r = self.bin_radius / cell + (1.0 + np.sqrt(2.0)) / 2.0 + MAX_MARGIN_CELLS
            total += float(np.sum((length / cell + 2.0 * r + 1.0) * (2.0 * r + 2.0)))
        for points in self.polygons:
            w, h = points.max(axis=0) - points.min(axis=0)
            total += (w / cell + 3.0) * (h / cell + 3.0)
        return total

    def candidates(self, pos):
        """Candidate (ball, static) pairs for balls at ``pos``: the capsules listed in each ball's cell."""
        if len(self._index) == 0 or len(pos) == 0:
            empty = np.zeros(0, np.int64)
            return empty, empty
        cell = self.grid.index(pos)
        ball, at = expand_ranges(self._start[cell], self._start[cell + 1])
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
    # Where the ball came from in the wall's frame (a moving wall's start carried with it).
    start = prev[i]
    if statics.moving.any():
        fx, fy = motion.carried(statics, s, start[:, 0], start[:, 1])
        start = np.stack((fx, fy), axis=1)
    came_from = geometry.side(a, b, start)
    # The centre's path prev -> p crossed the core segment a -> b (thin walls, stadiums).
    edge = statics.polygon[s] >= 0
    # A centre that started on the core (came_from == 0) came from the normal's side: the
    # world orients walls so that this is the side gravity does not point to.
    now = geometry.side(a, b, p)
    crossed = (((came_from * now < 0) | ((came_from == 0) & (now < 0)))
               & (geometry.side(start, p, a) * geometry.side(start, p, b) <= 0) & ~edge)
    towards = np.where((came_from >= 0) & ~edge, 1.0, -1.0)[:, None] * statics.normal[s]
    with np.errstate(invalid="ignore", divide="ignore"):
        normal = np.where((dist <= 1e-12)[:, None], towards, d / dist[:, None])
    normal = np.where(crossed[:, None], towards, normal)
    reach = radius[i] + statics.radius[s]
    depth = np.where(crossed, reach + dist, reach - dist)
    return normal, depth


def static_geometry(pos, prev, radius, statics, i, s, kernels=None):
    """(normal (K, 2), depth (K,)) of balls i at ``pos`` against capsules s: seed 000's offset
    (ball_static_geometry, or with ``kernels`` its compiled twin), then the polygons' insides
    (polygon_insides, or with ``kernels`` its compiled twin, game.physics.insides: the same bits)."""
    if kernels is not None:
        c = np.ascontiguousarray
        px, py, bundle = c(pos[:, 0]), c(pos[:, 1]), bundles.statics(statics)
        nx, ny, depth = kernels.static_geometry(px, py, c(prev[:, 0]), c(prev[:, 1]), radius, i, s, bundle)
        if statics.polygons_laid_out and len(statics.polygons) and len(i):
            kernels.polygon_insides(px, py, radius, i, s, bundle, nx, ny, depth)
            return np.stack((nx, ny), axis=1), depth
        normal = np.stack((nx, ny), axis=1)
    else:
        normal, depth = ball_static_geometry(pos, prev, radius, statics, i, s)
    polygon_insides(pos, radius, statics, i, s, normal, depth)
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


def _ball_contacts(grid, pos, radius, margin):
    """(i, j) ball pairs closer than reach + margins: numpy."""
    i, j = ball_pairs(grid, pos)
    # Cull on squared distances first: most candidates are not near.
    px, py = pos[:, 0].copy(), pos[:, 1].copy()
    dx, dy = px[i] - px[j], py[i] - py[j]
    reach = radius[i] + radius[j]
    limit = reach + margin[i] + margin[j]
    near = np.nonzero(dx * dx + dy * dy < limit * limit)[0]
    return i[near], j[near]


def _ball_contacts_compiled(kernels, grid, pos, radius, margin):
    """The ball pairs (i, j) of _ball_contacts, found by walking the grid in compiled code."""
    return kernels.ball_contacts(
        np.ascontiguousarray(pos[:, 0]), np.ascontiguousarray(pos[:, 1]), np.ascontiguousarray(radius),
        margin, grid.cell, grid.origin[0], grid.origin[1], grid.nx, grid.ny)


def _static_contacts_compiled(kernels, statics, pos, prev, radius, margin):
    """(ball, static, normal, depth) as candidates + ball_static_geometry give them."""
    i, s, nx, ny, depth = kernels.static_contacts(
        np.ascontiguousarray(pos[:, 0]), np.ascontiguousarray(pos[:, 1]),
        np.ascontiguousarray(prev[:, 0]), np.ascontiguousarray(prev[:, 1]), np.ascontiguousarray(radius),
        margin, bundles.statics(statics))
    return i, s, np.stack((nx, ny), axis=1), depth


def find_candidates(pos, prev, radius, grid, statics, margin, kernels=None):
    """Candidate pairs that could touch within each ball's ``margin`` (metres, scalar or (N,)):
    (i, j) ball pairs with i < j sorted by (i, j), and (ball, capsule) pairs sorted by
    (ball, capsule), among them every polygon edge a centre is on the inner side of (for
    ``polygon_insides``). Found by the compiled kernels when ``kernels`` is given, by numpy
    otherwise: the same pairs either way, in the same order.

    Complete: every ball pair closer than r_i + r_j + m_i + m_j, and every capsule a ball is
    closer to than its radius plus its margin, is found while the margins are at most
    MAX_MARGIN_CELLS of ``grid``'s cells (the statics are binned that far; the ball pairs are
    searched on a grid whose cell is at least 2 (r + m) for every ball)."""
    n = len(pos)
    margin = np.array(np.broadcast_to(np.asarray(margin, float), (n,)))   # writable: one kernel signature
    if n:
        widest = 2.0 * float(np.max(radius + margin))
        if np.isfinite(widest):       # a blown-up world (NaN speeds) searches its own grid
            grid = grid.coarser(widest)
    if kernels is not None and len(statics._index):
        si, s, _, _ = _static_contacts_compiled(kernels, statics, pos, prev, radius, margin)
    else:
        si, s = statics.candidates(pos)
        if len(si):
            _, depth = ball_static_geometry(pos, prev, radius, statics, si, s)
            inner = (statics.polygon[s] >= 0) & (geometry.side(statics.a[s], statics.b[s], pos[si]) > 0)
            # A moving wall is one where the ball's box meets its reach this tick (reaches).
            keep = np.where(statics.moving[s], reaches(pos, radius, margin, statics, si, s),
                            (depth > -margin[si]) | inner)
            si, s = si[keep], s[keep]
    order = np.lexsort((s, si))
    si, s = si[order], s[order]
    if kernels is not None:
        i, j = _ball_contacts_compiled(kernels, grid, pos, radius, margin)   # sorted already
        return i, j, si, s
    i, j = _ball_contacts(grid, pos, radius, margin)
    i, j = np.minimum(i, j), np.maximum(i, j)
    order = np.lexsort((j, i))
    return i[order], j[order], si, s


def reaches(pos, radius, margin, statics, i, s, per_pair=False):
    """(K,) bool: whether balls i, at ``pos`` with their ``margin``, may touch moving capsules s
    within this tick: the ball (radius + margin) touches the capsule's reach (Statics.reach,
    holding its poses over the tick). Complete for the candidates kept while no ball goes
    further than its margin: a contact at sub-step k has the ball within its radius of the
    capsule's pose k, which the reach holds. Squared distances: no square root. ``per_pair``:
    ``margin`` (K,) is each pair's, not each ball's."""
    rc = statics.reach[s]
    extra = margin if per_pair else margin[i]
    ax, ay = rc[:, 0], rc[:, 1]
    dx, dy = rc[:, 2] - ax, rc[:, 3] - ay
    wx, wy = pos[i, 0] - ax, pos[i, 1] - ay
    dd = dx * dx + dy * dy
    t = np.minimum(np.maximum(wx * dx + wy * dy, 0.0), dd) / np.maximum(dd, geometry.TINY)
    ex, ey = wx - t * dx, wy - t * dy
    r = radius[i] + extra + rc[:, 4]
    return ex * ex + ey * ey <= r * r


def moving_pairs(pos, radius, margin, statics):
    """(ball, capsule) pairs sorted by (ball, capsule): every moving capsule ``reaches`` finds
    for every ball (the candidates' moving part, found afresh each tick)."""
    rows = np.nonzero(statics.moving)[0]
    n = len(pos)
    i = np.repeat(np.arange(n), len(rows))
    s = np.tile(rows, n)
    keep = reaches(pos, radius, np.asarray(margin, float), statics, i, s)
    return i[keep], s[keep]


def with_moving_pairs(si, s, pos, radius, margin, statics):
    """The ball-capsule candidates (si, s) with their moving capsules' pairs found afresh
    (moving_pairs at ``pos``, where they were found, and their ``margin``): a tick's reach
    boxes hold its poses only, so the moving part of candidates kept from the last tick is
    found again, in (ball, capsule) order; the still part is kept as it is."""
    still = ~statics.moving[s]
    mi, ms = moving_pairs(pos, radius, margin, statics)
    si, s = np.concatenate((si[still], mi)), np.concatenate((s[still], ms))
    order = np.lexsort((s, si))
    return si[order], s[order]


def sweep(prev, pos, vel, radius, restitution, friction, statics, kernels=None, resting_speed=RESTING_SPEED):
    """Continuous collision against statics for balls that moved far in this sub-step (seed 001).

    A ball that moved more than CCD_FRACTION of its radius is swept from ``prev`` along its
    move; at the first touch it stops and its velocity responds there (restitution on the
    normal speed, Coulomb friction on the tangent). A ball already touching a wall is left to
    the contact solver unless its centre's path crosses the wall's core, in which case it
    stays where it was. Returns (swept ball indices, hit points (F, 2) with NaN where no hit).
    ``kernels``: the compiled twin runs it when given (the same bits); ``resting_speed``: m/s,
    slower hits do not bounce.
    """
    if kernels is not None:
        return kernels.sweep(prev, pos, vel, radius, restitution, friction, CCD_FRACTION, resting_speed,
                             bundles.statics(statics))
    move = pos - prev
    own = _norm(move) > CCD_FRACTION * radius
    # Moving walls: a ball is swept against one in the wall's frame, from its start carried
    # with the wall (motion.carried), where the box of that move meets the wall's reach this
    # tick (a touch lies on the move and on the wall's pose), however slowly it moves itself:
    # a flipper or a rotor's arm comes to it.
    walls = bool(statics.moving.any())
    near_i, near_s = _near_moving(statics, prev, pos, radius) if walls else (np.zeros(0, np.int64),) * 2
    near = np.zeros(len(pos), bool)
    near[near_i] = True
    fast = np.nonzero(own | near)[0]
    if len(fast) == 0 or len(statics) == 0:
        return fast, np.full((len(fast), 2), np.nan)
    ball, s = statics.along_paths(prev[fast], pos[fast], radius[fast])
    if walls:                    # the still capsules by their boxes, the moving ones as above
        still = ~statics.moving[s]
        where = np.searchsorted(fast, near_i)
        ball, s = np.concatenate((ball[still], where)), np.concatenate((s[still], near_s))
    hits = np.full((len(fast), 2), np.nan)
    if len(ball) == 0:
        return fast, hits
    k = fast[ball]
    # Each pair's start, in the wall's frame, and the move from there.
    fx, fy = motion.carried(statics, s, prev[k, 0], prev[k, 1])
    start_at = np.stack((fx, fy), axis=1)
    moved = pos[k] - start_at
    if walls:                    # a slow ball meets the moving walls it moved far against only
        mine = own[k] | (statics.moving[s] & (_norm(moved) > CCD_FRACTION * radius[k]))
        ball, s, k, start_at, moved = ball[mine], s[mine], k[mine], start_at[mine], moved[mine]
    # A polygon's edges stop balls from outside only: a ball whose centre starts on an edge's
    # inner side is inside the polygon or will meet another edge first, and is being pushed
    # out (polygon_insides), not into it.
    outer = (statics.polygon[s] < 0) | (geometry.side(statics.a[s], statics.b[s], start_at) <= 0)
    if not outer.all():
        ball, s, k, start_at, moved = ball[outer], s[outer], k[outer], start_at[outer], moved[outer]
    a, b = statics.a[s], statics.b[s]
    t = np.asarray(geometry.swept_circle_segment(start_at, radius[k], moved, a, b, statics.radius[s]),
                   float).reshape(-1)
    # Touching already (t == 0): a hit only if the centre's path crosses the core segment.
    start = t == 0
    if start.any():
        _, crosses = geometry.segment_intersections(start_at, pos[k], a, b)
        t = np.where(start & ~np.asarray(crosses, bool).reshape(-1), np.inf, t)
    hit = np.isfinite(t)
    if not hit.any():
        return fast, hits
    ball, s, t, k, start_at, moved = ball[hit], s[hit], t[hit], k[hit], start_at[hit], moved[hit]
    # First touch of each ball: sort by (ball, t, capsule) and take each ball's first row.
    order = np.lexsort((s, t, ball))
    ball, s, t, k, start_at, moved = ball[order], s[order], t[order], k[order], start_at[order], moved[order]
    first = np.unique(ball, return_index=True)[1]
    ball, s, t, k, start_at, moved = ball[first], s[first], t[first], k[first], start_at[first], moved[first]

    touch = start_at + moved * t[:, None]
    closest = geometry.closest_point_on_segment(statics.a[s], statics.b[s], touch)
    d = touch - closest
    dist = _norm(d)
    came_from = geometry.side(statics.a[s], statics.b[s], start_at)
    towards = np.where(came_from >= 0, 1.0, -1.0)[:, None] * statics.normal[s]
    with np.errstate(invalid="ignore", divide="ignore"):
        normal = np.where(dist[:, None] > 1e-12, d / dist[:, None], towards)
    pos[k] = touch
    # The response relative to the wall's velocity at the touch (a moving wall, a conveyor).
    on = statics.moving[s] | (statics.surface[s] != 0.0)
    ux, uy = motion.wall_velocity(statics, s, closest[:, 0], closest[:, 1])
    u = np.stack((ux, uy), axis=1)
    v = np.where(on[:, None], vel[k] - u, vel[k])
    vn = _dot(v, normal)
    e = np.maximum(restitution[k], statics.restitution[s])
    e = np.where(-vn > resting_speed, e, 0.0)
    dvn = np.where(vn < 0, -(1.0 + e) * vn, 0.0)
    kick = statics.kick[s]            # a bumper: at least kick m/s away after a real impact
    dvn = np.where((kick > 0.0) & (-vn > resting_speed), np.maximum(dvn, kick - vn), dvn)
    vt_vec = v - normal * vn[:, None]
    vt = _norm(vt_vec)
    mu = np.sqrt(friction[k] * statics.friction[s])
    with np.errstate(invalid="ignore", divide="ignore"):
        keep = np.where(vt > 0, np.maximum(0.0, 1.0 - mu * dvn / vt), 1.0)
    out = normal * (vn + dvn)[:, None] + vt_vec * keep[:, None]
    vel[k] = np.where(on[:, None], out + u, out)
    hits[ball] = touch
    return fast, hits


def _near_moving(statics, prev, pos, radius):
    """(ball, capsule) pairs sorted by (ball, capsule): the balls whose move in a moving
    capsule's frame (from prev carried with it, motion.carried, to pos), widened by the
    radius, may touch its reach (Statics.reach): pos is nearer to it than the radius and the
    move's length."""
    rows = np.nonzero(statics.moving)[0]
    n = len(pos)
    i = np.repeat(np.arange(n), len(rows))
    s = np.tile(rows, n)
    fx, fy = motion.carried(statics, s, prev[i, 0], prev[i, 1])
    mx, my = pos[i, 0] - fx, pos[i, 1] - fy
    meet = reaches(pos, radius, np.sqrt(mx * mx + my * my), statics, i, s, per_pair=True)
    return i[meet], s[meet]
