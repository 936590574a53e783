"""Sasaki's part of what a person is shown (cli/games/__init__.py): 4 seats, 12 cards each,
sides found during the hand (the red tens). Its prompts (plays folded by kind, the
run / Stop / chata / kkojda / show windows), its result dialog and its side line are the
presenter's own code (cli/presenter.py), asked through this part's ``None`` answers."""

from __future__ import annotations

from typing import Any

__all__ = ["SasakiPart", "SASAKI"]


class SasakiPart:
    name = "sasaki"
    seats = 4
    cards_per_seat = 12
    teams: tuple[tuple[int, ...], ...] | None = None

    def prompt(self, presenter: Any, turn: Any) -> None:
        return None

    def forced(self, presenter: Any, turn: Any) -> None:
        return None

    def action_for_text(self, presenter: Any, turn: Any, text: str) -> None:
        return None

    def notes(self, presenter: Any, event: Any, session: Any) -> None:
        return None   # every event told by the presenter itself

    def prompt_lines(self, prompt: Any) -> None:
        return None   # the terminal's own (cli/tui.py prompt_lines)


SASAKI = SasakiPart()
