"""Short messages that show for a moment ("saved ...", "integrator: rk4"). No pygame here."""

TOAST_SECONDS = 1.8          # s a toast stays
TOAST_FADE = 0.4             # s: the last part of that, fading out


class Toasts:
    """One message at a time with the real time (s) it expires: a new one replaces the one
    showing, so pressing a key five times shows one toast, not a pile."""

    def __init__(self):
        self.current = None          # (text, expiry s) or None

    def add(self, text, now):
        self.current = (text, now + TOAST_SECONDS)

    def expire(self, now):
        if self.current is not None and self.current[1] <= now:
            self.current = None

    def texts(self):
        """Every message still up (one at most)."""
        return [] if self.current is None else [self.current[0]]

    def shown(self, now):
        """(text, opacity 0..1) to draw, or None."""
        if self.current is None or self.current[1] <= now:
            return None
        text, until = self.current
        return text, min(1.0, (until - now) / TOAST_FADE)
