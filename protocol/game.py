"""The game interface the session drives (in the spirit of OpenSpiel's game/state split).

A :class:`Game` is a table's rules and options: its seats, its deck size, its opening card
(the card whose holder proves it in the hand's opening slot and so starts the hand), the
action verbs it uses on the wire, and its options as its own bytes (the transcript header
carries ``game`` and ``game_options`` verbatim). A :class:`GameState` is one hand in play,
at one peer: the seats that must answer next (:meth:`GameState.slot`), a verified slot of
answers applied as a pure function of the set of answers, what an action shows (the cards
the deck must prove open), the hidden-state hash the peers compare, and the scores.

The session (protocol/session.py) knows nothing else about the game: no seat count, no deck
size, no verbs, no rule. Sasaki is the first implementation (protocol/sasaki_game.py); the
tests hold a second, toy one (tests/protocol/toy_game.py). docs/architecture.md says how
Sasku's private card passing and must-follow-suit rules plug in here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol

__all__ = ["Game", "GameState", "SlotKind", "Slot", "Applied", "IllegalAnswer"]


class IllegalAnswer(Exception):
    """A slot's answers break the game's rules. ``seat``: the seat at fault, or None when no
    single answer is (a peer that cannot see the hidden cards cannot tell: the key reveal's
    replay of the full deal names the seat)."""

    def __init__(self, seat: int | None, reason: str) -> None:
        super().__init__(reason)
        self.seat = seat
        self.reason = reason


class SlotKind(Enum):
    """The kinds of slot a game's hand is made of (besides the card source's own slots)."""

    OPENING = "opening"  # every seat answers: the holder of the opening card shows it (proved), the others decline
    TURN = "turn"        # one seat answers
    WINDOW = "window"    # several seats answer; the outcome is a function of the set of answers


@dataclass(frozen=True)
class Slot:
    """Who must answer next: ``seats`` in resolution order; ``decision`` is the game's own
    description of the question (shown to the player, passed through the session's events)."""

    kind: SlotKind
    seats: tuple[int, ...]
    decision: Any


@dataclass(frozen=True)
class Applied:
    """An action the game applied (in order); ``lead``: the play starts a round (no top play)."""

    action: Any
    lead: bool = False


class GameState(Protocol):
    """One hand of a game at one peer (the peer's own cards known, the others' hidden), or
    with the full deal (the key reveal's replay, the audit)."""

    def slot(self) -> Slot | None:
        """Who must answer next; None once the hand is over."""

    def legal_actions(self, seat: int) -> list[Any]:
        """``seat``'s legal answers now (only asked of the peer's own seat)."""

    def apply(self, answers: Sequence[Any]) -> list[Applied]:
        """Apply one complete slot of verified answers (one per seat of :meth:`slot`, in its
        order). Raises :class:`IllegalAnswer` naming the seat at fault; the state is then
        unchanged."""

    def state_hash(self) -> str:
        """A digest of the public state and the hidden state's shape (the peers compare it
        with the full deal's replay after the key reveal)."""

    def scores(self) -> tuple[int, ...] | None:
        """Each seat's score once the hand is over, else None."""

    def outcome(self) -> Any:
        """The game's own summary of a finished hand (finishing order, teams ...): the
        session passes it on in ``HandEnded.outcome``."""

    def view(self, seat: int) -> Any:
        """What ``seat`` sees (for a player or a bot)."""


class Game(Protocol):
    """A game's rules and options (see the module docstring)."""

    name: str
    seats: int
    n_cards: int

    def options_bytes(self) -> bytes:
        """The game's options, as the transcript header carries them."""

    def opening_card(self) -> int | None:
        """The card whose holder opens the hand (an OPENING slot before the first play), or
        None: no opening slot, the hand starts with :meth:`GameState.slot`."""

    def new_state(self, hands: Sequence[int | None], opener: int | None) -> GameState:
        """A hand's state from the cards each seat holds (a card mask; None where hidden)
        and the seat that showed the opening card (None without an opening slot). Raises
        ValueError if the cards cannot be a deal of this game."""

    def card_name(self, card: int) -> str:
        """How a card is named in a blame's reason."""

    def encode_action(self, action: Any) -> tuple[str, tuple[int, ...]]:
        """An action as (verb, ascending card indices) for ``table/action``."""

    def decode_action(self, seat: int, verb: str, cards: Sequence[int]) -> Any:
        """The action a ``table/action`` of ``seat`` stands for; raises IllegalAnswer(seat)."""

    def shows(self, action: Any) -> int:
        """The cards (a mask) the action shows to everyone: the deck proves each one open."""

