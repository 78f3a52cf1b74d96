"""Clips: frames of the game written as an animated GIF with Pillow (issue 38). No pygame
here: the game hands over each frame as RGB bytes (game.app.recording takes them from the
window, or from frames drawn offscreen for ``python main.py --clip OUT.gif``).

GIF keeps a frame's duration in hundredths of a second, so a clip runs at 20 frames a second
(50 ms a frame: a frame every 3 ticks of 1/60 s) and plays at the game's own speed. Each
frame gets its own palette of at most 256 colours (Pillow's adaptive palette), which keeps
the balls' colours and the HUD's text; the clip loops for ever.
"""
CLIP_FPS = 20                  # frames a second in a clip (GIF: a whole number of 10 ms a frame)
TICKS_PER_FRAME = 3            # of the game's 60 a second
CLIP_SECONDS = 6.0             # how long F9 records unless pressed again
MAX_FRAMES = 400               # a clip of at most 20 s (memory: 400 frames of 640 x 360 are 280 MB)
EXTENSIONS = (".gif",)


class ClipError(Exception):
    """A clip that cannot be written: one line."""


class Clip:
    """Frames of one size, in order, to write as one animated GIF."""

    def __init__(self, size, fps=CLIP_FPS):
        self.size = (int(size[0]), int(size[1]))
        self.fps = fps
        self.frames = []            # RGB bytes, width x height x 3 each

    def __len__(self):
        return len(self.frames)

    @property
    def full(self):
        return len(self.frames) >= MAX_FRAMES

    @property
    def seconds(self):
        return len(self.frames) / self.fps

    def add(self, rgb):
        """Add one frame (``size`` RGB bytes); False (and nothing kept) once the clip is full."""
        if self.full:
            return False
        if len(rgb) != self.size[0] * self.size[1] * 3:
            raise ValueError(f"expected {self.size[0]}x{self.size[1]} RGB bytes, got {len(rgb)} bytes")
        self.frames.append(bytes(rgb))
        return True

    def write(self, path):
        """Write the frames to ``path`` as an animated GIF; ClipError if they cannot be."""
        if not self.frames:
            raise ClipError("no frames to write")
        if not str(path).lower().endswith(EXTENSIONS):
            raise ClipError(f"expected a file name ending in .gif, got {path}")
        try:
            from PIL import Image
        except ImportError:
            raise ClipError("clips need Pillow: pip install -r requirements.txt") from None
        images = [Image.frombytes("RGB", self.size, rgb) for rgb in self.frames]
        try:
            images[0].save(path, format="GIF", save_all=True, append_images=images[1:],
                           duration=round(1000 / self.fps), loop=0, disposal=1)
        except OSError as e:
            raise ClipError(f"cannot write {path}: {e.strerror or e}") from None
        return path
