"""Short messages that show for a moment ("saved ...", "integrator: rk4"). No pygame here."""

TOAST_SECONDS = 1.8          # s a toast stays
TOAST_FADE = 0.4             # s: the last part of that, fading out
MAX_TOASTS = 4               # shown at once at most


class Toasts:
    """Messages with the real time (s) they expire. One of the same kind ("debug: ...",
    "time x...": the first word) replaces the one before, so pressing a key five times
    shows one toast, not five."""

    def __init__(self):
        self.items = []          # [(text, expiry s)], oldest first

    def add(self, text, now):
        kind = _kind(text)
        self.items = [(t, u) for t, u in self.items if _kind(t) != kind][-(MAX_TOASTS - 1):]
        self.items.append((text, now + TOAST_SECONDS))

    def expire(self, now):
        self.items = [(t, u) for t, u in self.items if u > now]

    def texts(self):
        return [t for t, _ in self.items]

    def shown(self, now):
        """[(text, opacity 0..1)] to draw, oldest first."""
        return [(t, min(1.0, (u - now) / TOAST_FADE)) for t, u in self.items if u > now]


def _kind(text):
    return text.split(":")[0].split(" ")[0]
