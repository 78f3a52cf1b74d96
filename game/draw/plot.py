"""Pixel primitives the drawing shares: many lines or dots written at once through a surfarray
view, batched blits, and screen clipping of segments and convex polygons (a deep zoom puts a
level's corners billions of pixels away, where pygame's own drawing takes seconds)."""
import numpy as np
import pygame

MAX_PLOT_POINTS = 60_000    # pixels plot_segments sets per call at most (a blown-up world stays cheap)

_FBLITS = hasattr(pygame.Surface, "fblits")


def shade(colour, factor):
    """The colour darkened (factor < 1) or lightened towards white (factor > 1)."""
    if factor >= 1.0:
        return tuple(int(c + (255 - c) * (factor - 1.0)) for c in colour)
    return tuple(int(c * factor) for c in colour)



def blit_many(surface, batch):
    """Blit an iterable of (sprite, (x, y)) in one call: pygame-ce's fblits where it exists (no
    rectangles built or returned), else Surface.blits(doreturn=False)."""
    if _FBLITS:
        surface.fblits(batch)
    else:
        surface.blits(batch, doreturn=False)


def plot_segments(surface, start, end, colour, width=1):
    """Draw many straight lines at once: numpy samples every line about once a pixel and
    writes the pixels through a surfarray view (one call, not one call per line).

    start, end: (K, 2) screen px; colour: (3,) for all or (K, 3) one per line. Lines are
    clipped to the screen first; a line with a non-finite end is skipped; when the lines
    would take more than MAX_PLOT_POINTS pixels (a world blowing up) they are dotted."""
    colour = np.asarray(colour, dtype=float)
    start, end, _, _, keep = clip_segments(np.asarray(start, float).reshape(-1, 2),
                                            np.asarray(end, float).reshape(-1, 2), surface.get_size(), 1.0)
    if not keep.any():
        return
    start, end = start[keep], end[keep]
    if colour.ndim == 2:
        colour = colour[keep]
    delta = end - start
    length = np.abs(delta).max(axis=1)
    thin = min(1.0, MAX_PLOT_POINTS / max(1.0, float(length.sum())))
    count = np.maximum(1, np.ceil(length * thin)).astype(np.int64)
    line = np.repeat(np.arange(len(count)), count)
    first = np.repeat(np.cumsum(count) - count, count)
    t = (np.arange(len(line)) - first) / count[line]
    points = start[line] + delta[line] * t[:, None]
    write_pixels(surface, points, colour, width, line if colour.ndim == 2 else None)


def plot_points(surface, points, colour, size=3):
    """Square dots of size x size px centred on (K, 2) screen points."""
    points = np.asarray(points, dtype=float).reshape(-1, 2)
    offsets = np.arange(size) - (size - 1) / 2.0
    grid = np.stack(np.meshgrid(offsets, offsets), axis=-1).reshape(-1, 2)
    write_pixels(surface, (points[:, None, :] + grid[None, :, :]).reshape(-1, 2), colour, 1)


def write_pixels(surface, points, colour, width, which=None):
    """Set the pixels under (M, 2) screen points (width 2 also sets the one to the right).

    colour: (3,) for every point, or (K, 3) rows picked per point by ``which`` (M,) (one
    colour per line, say). Writes 32-bit pixel values through pixels2d: a fancy-indexed
    pixels3d write is several times slower."""
    width_px, height_px = surface.get_size()
    points = np.asarray(points, dtype=float).reshape(-1, 2)
    fx, fy = points[:, 0] + 0.5, points[:, 1] + 0.5          # int(v + 0.5) rounds v >= -0.5
    with np.errstate(invalid="ignore"):
        ok = (fx >= 0) & (fx < width_px) & (fy >= 0) & (fy < height_px)
    x, y = fx[ok].astype(np.int32), fy[ok].astype(np.int32)
    if surface.get_bitsize() == 32:
        value = map_colours(surface, colour)
        pixels = pygame.surfarray.pixels2d(surface)
    else:
        value = np.clip(np.asarray(colour, dtype=float), 0, 255).astype(np.uint8)
        pixels = pygame.surfarray.pixels3d(surface)
    if which is not None:
        value = value[np.asarray(which)[ok]]
    for dx in range(width):
        xs = x + dx
        inside = xs < width_px
        pixels[xs[inside], y[inside]] = value[inside] if which is not None else value
    del pixels                           # unlock the surface


def map_colours(surface, colour):
    """(..., 3) RGB in 0..255 -> the surface's 32-bit pixel values (opaque)."""
    c = np.clip(np.asarray(colour), 0, 255).astype(np.uint32)
    (rs, gs, bs, _), amask = surface.get_shifts(), surface.get_masks()[3]
    return (c[..., 0] << np.uint32(rs)) | (c[..., 1] << np.uint32(gs)) | (c[..., 2] << np.uint32(bs)) \
        | np.uint32(amask)


def clip_segments(a, b, size, pad):
    """Clip (K, 2) screen segments a-b to the screen grown by pad (K,) px (Liang-Barsky).

    Returns (a, b, a_kept, b_kept, shown): the clipped ends, whether each original end
    survived, and which segments touch the grown screen at all."""
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    pad = np.broadcast_to(np.asarray(pad, float), (len(a),))[:, None]
    lo = -pad
    hi = np.asarray(size, float)[None, :] + pad
    d = b - a
    with np.errstate(divide="ignore", invalid="ignore"):
        t_lo = (lo - a) / d
        t_hi = (hi - a) / d
    enter = np.where(d > 0, t_lo, np.where(d < 0, t_hi, -np.inf))
    leave = np.where(d > 0, t_hi, np.where(d < 0, t_lo, np.inf))
    # A coordinate that does not move must already lie inside on that axis.
    parallel_out = (d == 0) & ((a < lo) | (a > hi))
    t0 = np.maximum(0.0, enter.max(axis=1))
    t1 = np.minimum(1.0, leave.min(axis=1))
    shown = (t0 <= t1) & ~parallel_out.any(axis=1) & np.isfinite(a).all(axis=1) & np.isfinite(b).all(axis=1)
    t0 = np.where(shown, t0, 0.0)[:, None]
    t1 = np.where(shown, t1, 1.0)[:, None]
    return a + t0 * d, a + t1 * d, t0[:, 0] == 0.0, t1[:, 0] == 1.0, shown


def clip_convex(points, size, pad=8.0):
    """Clip a convex polygon (K, 2) in screen px to the screen grown by pad (Sutherland-Hodgman)."""
    pts = [tuple(p) for p in np.asarray(points, float).tolist()]
    if not all(np.isfinite(v) for p in pts for v in p):
        return []
    width, height = size
    for axis, limit, keep_below in ((0, -pad, False), (0, width + pad, True),
                                    (1, -pad, False), (1, height + pad, True)):
        if not pts:
            break
        inside = [(p[axis] <= limit) if keep_below else (p[axis] >= limit) for p in pts]
        out = []
        for k, p in enumerate(pts):
            q, q_in = pts[k - 1], inside[k - 1]
            if inside[k] != q_in:
                t = (limit - q[axis]) / (p[axis] - q[axis])
                out.append((q[0] + t * (p[0] - q[0]), q[1] + t * (p[1] - q[1])))
            if inside[k]:
                out.append(p)
        pts = out
    return pts
