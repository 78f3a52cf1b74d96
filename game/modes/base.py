"""The Mode interface: one layer of the game (play, help, edit, level menu)."""


class Mode:
    """One layer of the game (play, help, edit, level menu). App keeps a stack; the top mode
    gets the events; modes are drawn bottom to top from the topmost opaque one.

    ``can_quit()`` is asked before the game quits (Esc, the window's close button): a mode
    holding unsaved work returns False and asks the player itself."""
    opaque = True            # False: the mode below is drawn first (an overlay such as help)
    pauses_below = True      # the world does not tick while this mode is on top

    def __init__(self, app):
        self.app = app

    def enter(self):         # pushed or uncovered
        pass

    def exit(self):          # popped or covered
        pass

    def handle_event(self, event) -> bool:   # True: consumed
        return False

    def update(self, frame_dt):   # frame_dt: wall seconds (never reaches the physics)
        pass

    def draw(self, surface):
        pass

    def can_quit(self) -> bool:
        return True
