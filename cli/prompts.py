"""What a person is asked and told, as values: the presenter (cli/presenter.py) and each
game's part (cli/games) make them, the terminal and the page show them."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

__all__ = ["NoteKind", "Note", "Choice", "ChoiceGroup", "Prompt", "Refusal"]


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
