"""numba kernel behind ``game.render_kernels`` (imported only by its ``load``)."""
from numba import njit


@njit(cache=True, nogil=True)
def stamp_sprites(pixels, x0, y0, slot, start, dx, dy, value):
    """pixels (W, H) uint32 (surfarray.pixels2d); x0, y0 (N,) int64 top-left px of each
    ball's sprite; slot (N,) int64 its sprite; sprite s's opaque pixels are dx, dy,
    value[start[s]:start[s + 1]] (int64 px, int64 px, uint32 mapped colour). Later balls
    cover earlier ones, as in a blit sequence; pixels off the surface are skipped."""
    width, height = pixels.shape
    for i in range(len(x0)):
        s = slot[i]
        for j in range(start[s], start[s + 1]):
            x = x0[i] + dx[j]
            y = y0[i] + dy[j]
            if 0 <= x < width and 0 <= y < height:
                pixels[x, y] = value[j]
