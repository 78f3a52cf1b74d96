"""The quit confirmation: a small overlay asked before the game quits with something the
player would lose (a drawing in a puzzle, the balls they placed), and whenever Esc asks to
quit. Enter or Y quits; Esc or N stays. So Esc alone never quits: a second Esc after the
one that closed the menu, the help or the settings only opens this question."""
import pygame

from game.draw.theme import ERROR_BG, MARGIN, PLOT_PANEL, SIZE_BODY, SIZE_TITLE, TEXT, TEXT_DIM, WARN
from game.modes.base import Mode

QUIT_KEYS = (pygame.K_RETURN, pygame.K_KP_ENTER, pygame.K_y)
STAY_KEYS = (pygame.K_ESCAPE, pygame.K_n)


class ConfirmQuitMode(Mode):
    """"Quit and lose ...? Enter/Y quit, Esc/N stay" over the mode below, which waits.
    ``losing``: what would be lost, in words ("your 3 drawn segments"), or "" for nothing."""
    opaque = False
    pauses_below = True

    def __init__(self, app, losing=""):
        super().__init__(app)
        self.losing = losing

    def question(self):
        return f"Quit and lose {self.losing}?" if self.losing else "Quit Ballpit?"

    def handle_event(self, event):
        if event.type == pygame.KEYDOWN:
            if event.key in QUIT_KEYS:
                self.app.quit_now()
            elif event.key in STAY_KEYS:
                self.app.pop()
        return True                     # the game below waits for the answer

    def can_quit(self):
        return True                     # the window's close button while asked: the answer is yes

    def draw(self, surface):
        hud = self.app.hud
        title = hud.text(self.question(), SIZE_TITLE, WARN if self.losing else TEXT, bold=True)
        keys = hud.text("Enter / Y: quit      Esc / N: stay", SIZE_BODY, TEXT_DIM)
        width = max(title.get_width(), keys.get_width()) + 6 * MARGIN
        box = pygame.Rect(0, 0, width, title.get_height() + keys.get_height() + 5 * MARGIN)
        box.center = (surface.get_width() // 2, surface.get_height() // 2)
        hud._panel(surface, box, PLOT_PANEL)      # nearly opaque: the question reads clearly
        pygame.draw.rect(surface, ERROR_BG[:3] if self.losing else TEXT_DIM, box, 2, border_radius=6)
        surface.blit(title, title.get_rect(midtop=(box.centerx, box.y + 2 * MARGIN)))
        surface.blit(keys, keys.get_rect(midbottom=(box.centerx, box.bottom - 2 * MARGIN)))
