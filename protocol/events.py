"""The events a table session emits (docs/protocol.md, "Table")."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Union

from p2p_sasaki.cards import CardSet

__all__ = [
    "SessionSecrets", "Seated", "HandStarted", "DealProgress", "Dealt", "DecisionPending",
    "ActionApplied", "HandEnded", "MatchEnded", "Record", "Blame", "BlameBasis", "Event",
]


@dataclass(frozen=True)
class Seated:
    seat_keys: tuple[bytes, ...]
    my_seat: int | None


@dataclass(frozen=True)
class HandStarted:
    hand_no: int


@dataclass(frozen=True)
class DealProgress:
    step: str       # "hand-id", "shuffle", "proof", "deal"
    done: int
    total: int


@dataclass(frozen=True)
class Dealt:
    hand_no: int
    cards: CardSet


@dataclass(frozen=True)
class DecisionPending:
    """The game's next question (``decision``: the game's own object, e.g. Sasaki's
    ``Decision``); ``mine``: my seat must answer it."""

    decision: Any
    mine: bool


@dataclass(frozen=True)
class ActionApplied:
    """A public action the game applied. ``lead``: a play made when there was no top
    play (it starts a round), read from the game's state before the slot was resolved."""

    action: Any
    lead: bool = False


@dataclass(frozen=True)
class HandEnded:
    """A hand's scores (one per seat), the match totals after it, and the game's own
    summary of it (``outcome``; Sasaki's: finishing order, red team, multiplier)."""

    hand_no: int
    scores: tuple[int, ...]
    totals: tuple[int, ...]
    outcome: Any = None


@dataclass(frozen=True)
class MatchEnded:
    totals: tuple[int, ...]


@dataclass(frozen=True)
class Record:
    """The next transcript record (framed): append it to the .sasaki file and fsync."""

    data: bytes


class BlameBasis(Enum):
    """What a stop rests on (the audit's verdict follows from it, protocol/table_audit.py)."""

    SIGNED = "signed"              # the named seat's own signed message proves the fault
    CHAIN = "chain"                # a message does not fit the agreed chain or its place: live, its
                                   # signer is named; in a file, the records were altered or reordered
    UNKNOWN_DEAL = "unknown-deal"  # an observer cannot follow the hand: its key reveals are not (all) there


@dataclass(frozen=True)
class Blame:
    """A violation; the table stops. ``seat`` None: nobody can be named. ``hand`` is an
    addition to the contract (default -1 keeps it backward compatible); ``basis``: what
    the stop rests on."""

    seat: int | None
    slot: int
    reason: str
    hand: int = -1
    basis: BlameBasis = BlameBasis.SIGNED


@dataclass(frozen=True)
class VersionMismatch:
    """A message of another protocol version arrived: it cannot be read, so the table
    cannot go on with its sender until both run the same release. ``reason`` is the one
    sentence (messages.version_sentence); reported once per version seen."""

    version: int
    reason: str


Event = Union[Seated, HandStarted, DealProgress, Dealt, DecisionPending, ActionApplied, HandEnded, MatchEnded,
              Record, Blame, VersionMismatch]


@dataclass(frozen=True)
class SessionSecrets:
    """What a peer must keep to resume (protocol/session.py's docstring)."""

    seat_nonce: bytes | None
    hand_no: int
    deck_nonce: bytes | None
    deck_scalar: int | None
    deck_perm: tuple[int, ...] | None
