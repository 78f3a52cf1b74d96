"""A dynamic body's shape and its mass properties, in one place (as Box2D's geometry.c).

Every body is a rounded convex polygon: its corners (1 to 12, counter-clockwise) in the
body's own frame, whose origin is the centre of mass, with a ``radius`` swept round them.
A capsule (a plank) is two corners with a radius, a box four, a ball one. Mass, centre of
mass and moment of inertia are exact for every such shape: the core polygon by triangles,
a rectangle of width ``radius`` outside each edge, and a circular sector at each corner (the
sectors add up to a full disc).

>>> m, c, i = mass_properties([[0, 0], [2, 0], [2, 1], [0, 1]], 0.0, 3.0)
>>> m, [float(x) for x in c], round(i, 12)       # a 2 x 1 box: m (w^2 + h^2) / 12
(6.0, [1.0, 0.5], 2.5)
>>> m, c, i = mass_properties([[0, 0], [1, 0]], 0.5, 1.0)   # a capsule: a 1 x 1 square and a disc
>>> round(m, 12) == round(1 + math.pi * 0.25, 12)
True
"""
import math

import numpy as np

MAX_CORNERS = 12          # a body's polygon has at most this many corners (the level format's limit)


def _polygon_moments(p):
    """(area, first moment (2,), second moment about the origin) of a counter-clockwise polygon
    p (K, 2), K >= 3, by the triangles it makes with the origin."""
    q = np.roll(p, -1, axis=0)
    cross = p[:, 0] * q[:, 1] - p[:, 1] * q[:, 0]
    area = 0.5 * cross.sum()
    first = (cross[:, None] * (p + q)).sum(axis=0) / 6.0
    second = (cross * ((p * p).sum(axis=1) + (p * q).sum(axis=1) + (q * q).sum(axis=1))).sum() / 12.0
    return float(area), first, float(second)


def edge_normals(points):
    """The outward unit normals (K, 2) of a counter-clockwise polygon's edges (edge i runs from
    corner i to corner i + 1); a two-corner capsule's are the right and left of a -> b."""
    p = np.asarray(points, float)
    if len(p) == 1:
        return np.zeros((1, 2))
    e = np.roll(p, -1, axis=0) - p
    n = np.stack([e[:, 1], -e[:, 0]], axis=1)
    return n / np.sqrt((n * n).sum(axis=1))[:, None]


def mass_properties(points, radius, density):
    """(mass kg, centre of mass (2,), moment of inertia about it kg m^2) of the rounded convex
    polygon ``points`` (K, 2) counter-clockwise (K = 1: a disc; 2: a capsule) swept by
    ``radius`` m, at ``density`` kg/m^2."""
    p = np.asarray(points, float)
    area, first, second = 0.0, np.zeros(2), 0.0
    if len(p) >= 3:
        area, first, second = _polygon_moments(p)
    if radius > 0.0:
        normals = edge_normals(p)
        k = len(p)
        if k >= 2:
            for i in range(k):        # the rectangle outside edge i
                a, b = p[i], p[(i + 1) % k]
                rect = np.array([a, a + radius * normals[i], b + radius * normals[i], b])
                if k == 2:            # a capsule's two edges are one segment's two sides
                    rect = rect[::-1] if _polygon_moments(rect)[0] < 0 else rect
                ra, rf, rs = _polygon_moments(rect)
                area, first, second = area + ra, first + rf, second + rs
        for i in range(k):            # the sector at corner i, between the normals either side
            if k == 1:
                theta, u = 2.0 * math.pi, np.zeros(2)
            else:
                n0, n1 = normals[i - 1], normals[i]
                theta = math.atan2(n0[0] * n1[1] - n0[1] * n1[0], float(n0 @ n1))
                theta = theta if theta > 0.0 else theta + 2.0 * math.pi
                if k == 2:
                    theta = math.pi
                    u = (p[i] - p[1 - i]) / math.hypot(*(p[i] - p[1 - i]))
                else:
                    u = (n0 + n1) / math.hypot(*(n0 + n1))
            sa = 0.5 * theta * radius * radius
            half = 0.5 * theta
            d = 2.0 * radius * math.sin(half) / (3.0 * half)     # the sector's centroid from its apex
            c = p[i] + d * u
            # About the apex: sa r^2 / 2; moved to the origin by the parallel-axis theorem.
            s_apex = sa * radius * radius / 2.0
            s_centroid = s_apex - sa * d * d
            area += sa
            first = first + sa * c
            second += s_centroid + sa * float(c @ c)
    mass = density * area
    centre = first / area
    inertia = density * (second - area * float(centre @ centre))
    return mass, centre, inertia


def body_shape(definition):
    """The shape of a normalised body definition in world coordinates at load: (corners (K, 2)
    counter-clockwise, radius, angle of its frame). A box's frame turns with its ``angle``;
    a capsule's and a polygon's are the world's at load."""
    kind = definition["shape"]
    if kind == "capsule":
        return np.array([definition["a"], definition["b"]], float), float(definition["radius"]), 0.0
    if kind == "box":
        w, h = definition["size"]
        local = np.array([[-0.5 * w, -0.5 * h], [0.5 * w, -0.5 * h], [0.5 * w, 0.5 * h], [-0.5 * w, 0.5 * h]])
        return local, float(definition.get("radius", 0.0)), float(definition.get("angle", 0.0))
    return np.array(definition["points"], float), float(definition.get("radius", 0.0)), 0.0


def body_frame(definition, material_density=1.0):
    """A body definition's (local corners (K, 2) about its centre of mass, radius, position of
    the centre of mass (2,), angle, mass, inertia). A box is centred on ``center`` by
    construction, so its position is ``center`` to the bit; ``mass`` overrides the density's
    (the inertia scales with it)."""
    corners, radius, angle = body_shape(definition)
    density = float(definition.get("density", material_density))
    mass, centre, inertia = mass_properties(corners, radius, 1.0)
    if definition["shape"] == "box":
        centre = np.zeros(2)                # symmetric: exactly its middle
        position = np.array(definition["center"], float)
    else:
        position = centre
    local = corners - centre
    scale = float(definition["mass"]) / mass if "mass" in definition else density
    return local, radius, position, angle, mass * scale, inertia * scale
