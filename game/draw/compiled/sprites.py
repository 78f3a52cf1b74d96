"""numba kernel behind ``game.draw.sprites`` (imported only by its ``load``)."""
from numba import njit


@njit(cache=True, nogil=True)
def stamp_sprites(pixels, x0, y0, slot, start, dx, dy, value, size):
    """pixels (W, H) uint32 (surfarray.pixels2d); x0, y0 (N,) int64 top-left px of each
    ball's sprite; slot (N,) int64 its sprite; sprite s is size[s] px square and its opaque
    pixels are dx, dy, value[start[s]:start[s + 1]] (int64 px, int64 px, uint32 mapped
    colour). Later balls cover earlier ones, as in a blit sequence; pixels off the surface
    are skipped (tested per pixel only for the sprites the surface's edge cuts)."""
    width, height = pixels.shape
    for i in range(len(x0)):
        s = slot[i]
        bx = x0[i]
        by = y0[i]
        if bx >= 0 and by >= 0 and bx + size[s] <= width and by + size[s] <= height:
            for j in range(start[s], start[s + 1]):
                pixels[bx + dx[j], by + dy[j]] = value[j]
        else:
            for j in range(start[s], start[s + 1]):
                x = bx + dx[j]
                y = by + dy[j]
                if 0 <= x < width and 0 <= y < height:
                    pixels[x, y] = value[j]
