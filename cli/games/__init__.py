"""Each game's part of what a person is shown (the presenter, cli/presenter.py, asks it).

The presenter is the table-generic part: connections, the deal's progress, waits and stall
questions, the score sheet, the status line, the desk where prompts are answered. What is a
game's own it asks the game's part, chosen by the game's name (``Game.name``,
protocol/game.py): how many seats and cards, the pairs, how cards are named and sorted,
the prompt of a decision and its legal choices, the answers it makes without asking, how a
typed answer reads, the notes of its plays, a deal and its result, the status line, your
side, and the snapshot a page draws. The presenter has no game of its own.

A third game plugs in with a module here whose part has the attributes and methods of
:class:`GamePart`, and a line in :func:`part_for`.
"""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["GamePart", "part_for"]


class GamePart(Protocol):
    name: str
    seats: int
    cards_per_seat: int
    teams: tuple[tuple[int, ...], ...] | None   # fixed pairs; None: sides found during the hand

    def prompt(self, presenter: Any, turn: Any) -> tuple[Any, dict[str, Any]]:
        """The prompt for ``turn`` and the action behind each choice key."""

    def forced(self, presenter: Any, turn: Any) -> tuple[Any, Any] | None:
        """The only answer when the person has no choice, and the note to tell (or None)."""

    def action_for_text(self, presenter: Any, turn: Any, text: str) -> Any:
        """A typed answer as an action, or the presenter's Refusal."""

    def notes(self, presenter: Any, event: Any, session: Any) -> Any:
        """The game's own lines for ``event`` as ((text, note kind) pairs, the phase's name or
        None), or None: told as any table's."""

    def prompt_lines(self, prompt: Any) -> list[str] | None:
        """The terminal's lines for ``prompt``; None: the terminal's own (Sasaki's)."""

    def awaited(self, view: Any) -> tuple[int, ...]:
        """The seats the game asks now."""

    def awaited_text(self, view: Any) -> str:
        """What the table waits for them to do, for the waiting line (``to play``)."""

    def status(self, presenter: Any, kind: str) -> str:
        """The status line while a prompt of ``kind`` of yours is open."""

    def view_status(self, presenter: Any, view: Any, awaited: Any) -> str:
        """The status line while nobody asks you."""

    def side_text(self, presenter: Any) -> str:
        """Your side or pair in one line, once you can know it; empty before."""

    def winner_text(self, presenter: Any) -> str:
        """The match's end in one line."""

    def partners_text(self, game: Any, names: Any) -> str | None:
        """The partners the members chose when they sat down, in one line; None: none chose."""

    def snapshot(self, presenter: Any) -> Any:
        """The page's snapshot (cli/presenter.py TableView, made with ``presenter.table_view``)."""


def part_for(game: Any) -> Any:
    """The part of ``game`` (a protocol Game, or its name): Sasaki's when unknown."""
    name = game if isinstance(game, str) else getattr(game, "name", "sasaki")
    if name == "sasku":
        from p2p_sasaki.cli.games.sasku import SaskuPart

        return SaskuPart(getattr(game, "options", None))
    from p2p_sasaki.cli.games.sasaki import SASAKI

    return SASAKI
