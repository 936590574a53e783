"""The payloads a seat signs in an envelope: the deck's (protocol/deck.py) and the table's
(protocol/session.py; docs/protocol.md, "Table"), each looked up by its ``type``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from p2p_sasaki.protocol.crypto import DLEQ_BYTES, SHUFFLE_ARGUMENT_ELEMENTS, ShuffleArgument, shuffle_argument_scalars
from p2p_sasaki.protocol.messages.wire import (
    ELEMENT_BYTES,
    HASH_BYTES,
    MAX_CARDS,
    MAX_SEATS,
    NONCE_BYTES,
    SCALAR_BYTES,
    Array,
    Bin,
    Bool,
    F,
    Record,
    Str,
    UInt,
    WireStruct,
    malformed,
)

# ---------------------------------------------------------------------------------------
# Deck payloads (protocol/deck.py)
# ---------------------------------------------------------------------------------------


def _nested(cls: type[WireStruct]) -> Record:
    return Record(cls, cls.FIELDS, cls.WHAT)


class _Payload(WireStruct):
    TYPE: ClassVar[str]

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        cls.WHAT = f"{cls.TYPE} payload"


@dataclass(frozen=True)
class DeckCommit(_Payload):
    """A seat's commitment to its hand-id nonce."""

    TYPE: ClassVar[str] = "deck/commit"
    FIELDS = (F("commitment", Bin(HASH_BYTES)),)
    commitment: bytes


@dataclass(frozen=True)
class DeckNonce(_Payload):
    """The nonce revealed once every commitment is in."""

    TYPE: ClassVar[str] = "deck/nonce"
    FIELDS = (F("nonce", Bin(NONCE_BYTES)),)
    nonce: bytes


@dataclass(frozen=True)
class ShuffleHop(_Payload):
    """One shuffle hop: the re-keyed, permuted deck and the re-keyed base."""

    TYPE: ClassVar[str] = "deck/shuffle"
    FIELDS = (F("deck", Array(Bin(ELEMENT_BYTES), MAX_CARDS, 1), "deck element"), F("base", Bin(ELEMENT_BYTES)))
    deck: tuple[bytes, ...]
    base: bytes


ARGUMENT = Record(
    ShuffleArgument,
    (F("elements", Array(Bin(ELEMENT_BYTES), SHUFFLE_ARGUMENT_ELEMENTS, SHUFFLE_ARGUMENT_ELEMENTS), "argument element"),
     F("scalars", Array(Bin(SCALAR_BYTES), shuffle_argument_scalars(MAX_CARDS), shuffle_argument_scalars(2)),
       "argument scalar")),
    "shuffle argument",
)


@dataclass(frozen=True)
class ShuffleProof(_Payload):
    """The shuffle argument of one hop (protocol/crypto.py), sent after the hop (so the
    next one can start): 7 elements and 2N + 1 scalars for an N-card deck. Whether N is
    this deck's size is checked on verification."""

    TYPE: ClassVar[str] = "deck/shuffle-proof"
    FIELDS = (F("argument", ARGUMENT),)
    argument: ShuffleArgument

    def check(self) -> None:
        if len(self.argument.scalars) % 2 != 1:
            raise malformed("a shuffle argument has 2N + 1 scalars")


@dataclass(frozen=True)
class StripRound(_Payload):
    """A seat's public strips of one owner's positions in one round, with one batched DLEQ
    proof for them all (``proofs`` holds exactly one)."""

    TYPE: ClassVar[str] = "deck/strip"
    FIELDS = (F("round", UInt(MAX_SEATS)), F("values", Array(Bin(ELEMENT_BYTES), MAX_CARDS, 1), "stripped value"),
              F("proofs", Array(Bin(DLEQ_BYTES), 1, 1), "strip proof"))  # one batched DLEQ
    round: int
    values: tuple[bytes, ...]
    proofs: tuple[bytes, ...]


@dataclass(frozen=True)
class CardOpen(_Payload):
    """The owner shows the card at one of its positions, with one DLEQ proof."""

    TYPE: ClassVar[str] = "deck/open"
    FIELDS = (F("position", UInt(MAX_CARDS - 1)), F("card", UInt(MAX_CARDS - 1)), F("proof", Bin(DLEQ_BYTES)))
    position: int
    card: int
    proof: bytes


@dataclass(frozen=True)
class KeyReveal(_Payload):
    """The end-of-hand reveal of a seat's shuffle scalar."""

    TYPE: ClassVar[str] = "deck/key"
    FIELDS = (F("key", Bin(SCALAR_BYTES)),)
    key: bytes


# ---------------------------------------------------------------------------------------
# Table payloads (protocol/session.py; docs/protocol.md, "Table")
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Genesis(_Payload):
    """Hand 0, slot 0: a roster member signs the roster hash (table id and the keys)."""

    TYPE: ClassVar[str] = "table/genesis"
    FIELDS = (F("roster_hash", Bin(HASH_BYTES)),)
    roster_hash: bytes


@dataclass(frozen=True)
class SeatCommit(_Payload):
    """Hand 0, slot 1: a commitment to the member's seating nonce."""

    TYPE: ClassVar[str] = "table/seat-commit"
    FIELDS = (F("commitment", Bin(HASH_BYTES)),)
    commitment: bytes


@dataclass(frozen=True)
class SeatNonce(_Payload):
    """Hand 0, slot 2: the seating nonce, revealed once every commitment is in."""

    TYPE: ClassVar[str] = "table/seat-nonce"
    FIELDS = (F("nonce", Bin(NONCE_BYTES)),)
    nonce: bytes


MAX_VERB_BYTES = 16  # a verb is the game's word (protocol/game.py): 1..16 of a-z and "-"
MAX_ACTION_CARDS = 64


@dataclass(frozen=True)
class TableAction(_Payload):
    """A seat's answer in a game slot: a verb, its cards, and one deck opening (with its
    DLEQ proof) for each of those cards that no earlier action of the hand has opened."""

    TYPE: ClassVar[str] = "table/action"
    FIELDS = (F("verb", Str(MAX_VERB_BYTES), "action verb"),
              F("cards", Array(UInt(MAX_CARDS - 1), MAX_ACTION_CARDS), "card"),
              F("opens", Array(_nested(CardOpen), MAX_ACTION_CARDS), "open"))
    verb: str
    cards: tuple[int, ...]
    opens: tuple[CardOpen, ...] = ()

    def check(self) -> None:
        if not 1 <= len(self.verb) <= MAX_VERB_BYTES or self.verb.strip("abcdefghijklmnopqrstuvwxyz-"):
            raise malformed("an action verb is 1..16 of a-z and -")
        if list(self.cards) != sorted(set(self.cards)):
            raise malformed("an action's cards must be distinct and ascending")
        opened = [o.card for o in self.opens]
        if opened != sorted(set(opened)) or not set(opened) <= set(self.cards):
            raise malformed("an action opens some of its own cards, each once, ascending")


@dataclass(frozen=True)
class Abandon(_Payload):
    """A present seat's signature on closing the slot ``(hand, slot)`` of its body (for the
    deal, slot 0 stands for the whole deck block) as abandoned: ``silent`` are the seats the
    slot waits for that the signer has nothing from (ascending, at least one, never the
    signer); ``end``: the signer also ends the match after this hand. Valid once every seat
    neither silent nor already absent from the hand signed the same ``silent``
    (docs/protocol.md, "Abandon")."""

    TYPE: ClassVar[str] = "table/abandon"
    FIELDS = (F("silent", Array(UInt(MAX_SEATS - 1), MAX_SEATS - 1, 1), "silent seat"), F("end", Bool(), "end flag"))
    silent: tuple[int, ...]
    end: bool = False

    def check(self) -> None:
        if list(self.silent) != sorted(set(self.silent)):
            raise malformed("an abandon's silent seats must be distinct and ascending")


@dataclass(frozen=True)
class Leave(_Payload):
    """A seat leaves the table for good (the player typed ``quit``): a notice to the others,
    bound to the slot it was signed in; it is not chained nor recorded (docs/protocol.md,
    "Leaving")."""

    TYPE: ClassVar[str] = "table/leave"
    FIELDS = ()


Payload = (DeckCommit | DeckNonce | ShuffleHop | ShuffleProof | StripRound | CardOpen | KeyReveal
           | Genesis | SeatCommit | SeatNonce | TableAction | Abandon | Leave)

PAYLOAD_TYPES: dict[str, type[_Payload]] = {
    cls.TYPE: cls for cls in (DeckCommit, DeckNonce, ShuffleHop, ShuffleProof, StripRound, CardOpen, KeyReveal,
                              Genesis, SeatCommit, SeatNonce, TableAction, Abandon, Leave)
}
