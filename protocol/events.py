"""The events a table session emits (docs/protocol.md, "Table")."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

__all__ = [
    "SessionSecrets", "Seated", "HandStarted", "DealProgress", "Dealt", "Shown", "DecisionPending",
    "ActionApplied", "HandEnded", "PlayOver", "Penalty", "MatchEnded", "Record", "Blame", "BlameBasis",
    "Event", "HandAbandoned", "SeatLeft", "AbandonRejected", "Signed", "SignedKind",
]


class SignedKind(Enum):
    """Why the session signed an envelope (what the driver paces and persists it as)."""

    ANSWER = "answer"        # my player's answer to a decision, through ``act``
    OPENING = "opening"      # the opening slot's answer, signed by the session as it enters the slot
    PROTOCOL = "protocol"    # the rest: genesis, seating, the card source's messages, keys, abandon, leave


@dataclass(frozen=True)
class Signed:
    """The session signed ``envelope`` for ``hand``/``slot`` (``TableSession.take_signed``:
    the driver learns what it signed from these, never by decoding its own frames)."""

    envelope: bytes
    hand: int
    slot: int
    kind: SignedKind


@dataclass(frozen=True)
class Seated:
    seat_keys: tuple[bytes, ...]
    my_seat: int | None
    seat_names: tuple[str, ...] = ()   # the signed roster names, in seat order


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
    """My seat's cards for the hand, as the game shows them (``Game.hand_of``: Sasaki's a
    ``CardSet``)."""

    hand_no: int
    cards: Any


@dataclass(frozen=True)
class Shown:
    """An open seat's cards for the hand (a bot in an empty seat: "Bot's hand, open to
    all"), shown to every peer at the deal, as the game shows them."""

    hand_no: int
    seat: int
    cards: Any


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
class Penalty:
    """A rule broken with hidden cards that only the key reveal's replay of the full deal
    found: ``seat`` broke it in ``slot`` of hand ``hand`` (``reason``: the game's words); the hand is scored
    with the game's penalty (``Game.penalty_scores``: Sasku's other pair scores 6) and the
    match goes on (docs/rules-sasku.md, "At the table")."""

    hand: int
    seat: int
    slot: int
    reason: str


@dataclass(frozen=True)
class HandEnded:
    """A hand's scores (one per seat), the match totals after it, and the game's own
    summary of it (``outcome``; Sasaki's: finishing order, red team, multiplier);
    ``penalty``: the hand was scored by the game's penalty for a rule broken with hidden cards."""

    hand_no: int
    scores: tuple[int, ...]
    totals: tuple[int, ...]
    outcome: Any = None
    penalty: Penalty | None = None


@dataclass(frozen=True)
class PlayOver:
    """The hand's play is over but its deal is not known yet (a tournament board's deal is
    read only once every table of the round is done): ``chain`` the table's chain hash after
    the last slot, ``scores`` the agreed state's (what the table's done signs). The hand ends
    (:class:`HandEnded`) after ``TableSession.deal_ready()``."""

    hand_no: int
    chain: bytes
    scores: tuple[int, ...] | None


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
    ABANDONED = "abandoned"        # the other seats abandoned a slot this seat had gone past (it was cut
                                   # off): its table forked, it stops; nobody is named


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
class HandAbandoned:
    """The present seats abandoned hand ``hand`` at ``slot`` (slot 0: during the deal): it is
    void, nobody scores (unless ``scored``). ``left``: the seats that stopped answering, named as having left,
    never as cheats; ``deal``: every seat's dealt cards (masks) when the strips were done
    (the present seats' revealed keys, the absent seat's hand their complement), None when
    the hand stopped during the deal or more than one seat left; ``end``: the match ends
    here (some present seat chose to end it), else the next hand starts. ``reason``: one
    sentence ("stopped during the deal, waiting for S2", "S2 left during hand 1")."""

    hand: int
    slot: int
    left: tuple[int, ...]
    deal: tuple[int | None, ...] | None
    end: bool
    reason: str
    scored: bool = False
    forfeit: int | None = None   # the seat that forfeits the hand (it left after the deal): the hand is scored
    """The abandoned slot was the KEYS slot of a hand played out: it is scored (a HandEnded
    follows) with the absent seat's cards read as the complement, so withholding a key at
    the end of a lost hand does not void it."""


@dataclass(frozen=True)
class SeatLeft:
    """A seat signed a leave notice (its player quit): the others may abandon at once."""

    seat: int
    hand: int


@dataclass(frozen=True)
class AbandonRejected:
    """An abandon or leave message was not accepted, in one sentence (``seat``: its signer
    when the signature verifies, else None). Nobody is blamed for it."""

    seat: int | None
    reason: str


@dataclass(frozen=True)
class VersionMismatch:
    """A message of another protocol version arrived: it cannot be read, so the table
    cannot go on with its sender until both run the same release. ``reason`` is the one
    sentence (messages.version_sentence); reported once per version seen."""

    version: int
    reason: str


Event = (Seated | HandStarted | DealProgress | Dealt | Shown | DecisionPending | ActionApplied | HandEnded
         | PlayOver | MatchEnded | Record | Blame | VersionMismatch | HandAbandoned | SeatLeft | AbandonRejected)


@dataclass(frozen=True)
class SessionSecrets:
    """What a peer must keep to resume (protocol/session.py's docstring)."""

    seat_nonce: bytes | None
    hand_no: int
    deck_nonce: bytes | None
    deck_scalar: int | None
    deck_perm: tuple[int, ...] | None
