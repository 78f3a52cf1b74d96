"""The help overlay: every key the mode below reads. The world waits while it shows."""
import pygame

from game.modes.base import Mode

PASSED_ON = (pygame.K_l,)    # keys that close the help and go on to the mode below


class HelpMode(Mode):
    """Lists ``keymap`` [(keys, what they do)] over the mode below. H, F1, Esc or a click
    closes it; L closes it and opens the level menu; other input is held back from the
    game while it shows."""
    opaque = False
    pauses_below = True

    def __init__(self, app, keymap, title="Ballpit: keys and mouse"):
        super().__init__(app)
        self.keymap = keymap
        self.title = title

    def handle_event(self, event):
        if event.type == pygame.KEYDOWN and event.key in (pygame.K_h, pygame.K_F1, pygame.K_ESCAPE):
            self.app.pop()
        elif event.type == pygame.KEYDOWN and event.key in PASSED_ON:
            self.app.pop()                       # e.g. L: the level menu, from the help
            self.app.top.handle_event(event)
        elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            self.app.pop()
        return True

    def draw(self, surface):
        self.app.hud.draw_help(surface, self.keymap, self.title)
