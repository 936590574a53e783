"""What a person is asked and told, as values: the presenter (cli/presenter.py) and each
game's part (cli/games) make them, the terminal and the page show them."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

__all__ = ["NoteKind", "Note", "Choice", "ChoiceGroup", "Prompt", "Refusal", "SeatState", "TopPlay", "OPEN_HAND"]

OPEN_HAND = "Bot's hand, open to all"   # a bot in an empty seat plays with its cards shown (docs/usage.md)


class NoteKind(Enum):
    INFO = "info"
    PLAY = "play"
    OUT = "out"
    WAIT = "wait"
    SCORE = "score"
    ALERT = "alert"
    PROGRESS = "progress"  # the deal's one line, refilled as it goes (a terminal rewrites it in place)


@dataclass(frozen=True)
class Note:
    """One line worth telling the person."""

    text: str
    kind: NoteKind = NoteKind.INFO


@dataclass(frozen=True)
class Choice:
    """One legal answer, suit variants folded: ``variants`` holds the cards of each."""

    key: str                # "c1", "c2", ... "pass", "decline"
    label: str              # "pair of 9", "Pass", "Chata with 4C 4S"
    variants: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True)
class ChoiceGroup:
    title: str
    choices: tuple[Choice, ...]


@dataclass(frozen=True)
class Prompt:
    """The decision the person is asked now."""

    id: int
    kind: str                      # Sasaki: "turn", "run", "stop", "chata", "kkojda", "expose"; "stall";
                                   # Sasku: "bid", "answer", "return", "trump", "play" (cli/games/sasku.py)
    question: str
    groups: tuple[ChoiceGroup, ...]   # at a turn: the plays by kind; in a window: the claims
    can_pass: bool
    can_decline: bool
    seconds: float | None           # the window's time to answer, None at a turn
    deadline: float | None          # trio.current_time() when it declines
    playable: tuple[str, ...] = ()  # cards that are part of some legal play


@dataclass(frozen=True)
class Refusal:
    """An answer that was not taken, and why (shown to the person)."""

    reason: str


@dataclass(frozen=True)
class SeatState:
    seat: int
    label: str              # "You" or "S2" (a name once the roster carries one)
    you: bool
    cards_left: int
    passed: bool            # passed since the current top play
    red_tens: tuple[str, ...]
    place: int | None       # 1-4 once out
    awaited: bool
    offline: bool
    open_cards: tuple[str, ...] = ()   # a bot in an empty seat: its cards now ("Bot's hand, open to all")


@dataclass(frozen=True)
class TopPlay:
    seat: int
    label: str
    cards: tuple[str, ...]
    combo: str
