"""The payloads a seat signs in an envelope: the deck's (protocol/deck.py) and the table's
(protocol/session.py; docs/protocol.md, "Table"), each looked up by its ``type``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from p2p_sasaki.protocol.crypto import DLEQ_BYTES, SHUFFLE_ARGUMENT_ELEMENTS, ShuffleArgument, shuffle_argument_scalars
from p2p_sasaki.protocol.hidden_rules import ClauseProof
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
    Bytes,
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


class PayloadStruct(WireStruct):
    """A signed envelope's body, the table's (here) or the board's (messages/board.py): its
    ``TYPE`` names it on the wire and in every refusal ("the deck/commit payload ...")."""

    TYPE: ClassVar[str]

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        cls.WHAT = f"{cls.TYPE} payload"


@dataclass(frozen=True)
class DeckCommit(PayloadStruct):
    """A seat's commitment to its hand-id nonce."""

    TYPE: ClassVar[str] = "deck/commit"
    FIELDS = (F("commitment", Bin(HASH_BYTES)),)
    commitment: bytes


@dataclass(frozen=True)
class DeckNonce(PayloadStruct):
    """The nonce revealed once every commitment is in."""

    TYPE: ClassVar[str] = "deck/nonce"
    FIELDS = (F("nonce", Bin(NONCE_BYTES)),)
    nonce: bytes


@dataclass(frozen=True)
class ShuffleHop(PayloadStruct):
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
class ShuffleProof(PayloadStruct):
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
class StripRound(PayloadStruct):
    """A seat's public strips of one owner's positions in one round, with one batched DLEQ
    proof for them all (``proofs`` holds exactly one)."""

    TYPE: ClassVar[str] = "deck/strip"
    FIELDS = (F("round", UInt(MAX_SEATS)), F("values", Array(Bin(ELEMENT_BYTES), MAX_CARDS, 1), "stripped value"),
              F("proofs", Array(Bin(DLEQ_BYTES), 1, 1), "strip proof"))  # one batched DLEQ
    round: int
    values: tuple[bytes, ...]
    proofs: tuple[bytes, ...]


@dataclass(frozen=True)
class CardOpen(PayloadStruct):
    """The owner shows the card at one of its positions, with one DLEQ proof."""

    TYPE: ClassVar[str] = "deck/open"
    FIELDS = (F("position", UInt(MAX_CARDS - 1)), F("card", UInt(MAX_CARDS - 1)), F("proof", Bin(DLEQ_BYTES)))
    position: int
    card: int
    proof: bytes


@dataclass(frozen=True)
class KeyReveal(PayloadStruct):
    """The end-of-hand reveal of a seat's shuffle scalar."""

    TYPE: ClassVar[str] = "deck/key"
    FIELDS = (F("key", Bin(SCALAR_BYTES)),)
    key: bytes


# ---------------------------------------------------------------------------------------
# Table payloads (protocol/session.py; docs/protocol.md, "Table")
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Genesis(PayloadStruct):
    """Hand 0, slot 0: a roster member signs the roster hash (table id and the keys)."""

    TYPE: ClassVar[str] = "table/genesis"
    FIELDS = (F("roster_hash", Bin(HASH_BYTES)),)
    roster_hash: bytes


@dataclass(frozen=True)
class SeatCommit(PayloadStruct):
    """Hand 0, slot 1: a commitment to the member's seating nonce."""

    TYPE: ClassVar[str] = "table/seat-commit"
    FIELDS = (F("commitment", Bin(HASH_BYTES)),)
    commitment: bytes


@dataclass(frozen=True)
class SeatNonce(PayloadStruct):
    """Hand 0, slot 2: the seating nonce, revealed once every commitment is in."""

    TYPE: ClassVar[str] = "table/seat-nonce"
    FIELDS = (F("nonce", Bin(NONCE_BYTES)),)
    nonce: bytes


MAX_VERB_BYTES = 16  # a verb is the game's word (protocol/game.py): 1..16 of a-z and "-"
MAX_ACTION_CARDS = 64
MAX_RULE_CLAUSES = 4   # a hidden-rule proof's clauses (one per lock key of the statement)


@dataclass(frozen=True)
class RuleClause(WireStruct):
    """One clause's proof of a hidden-card rule (protocol/hidden_rules.py, ``ClauseProof``) in
    wire form: the images W, the scaled key Y, the argument (the shuffle argument's 7
    elements and 2m + 1 scalars with ``dleq`` empty, or for one position no elements, no
    scalars and the 64-byte DLEQ), the tags V and the batched DLEQ over them."""

    WHAT: ClassVar[str] = "hidden-rule clause"
    FIELDS = (F("images", Array(Bin(ELEMENT_BYTES), MAX_CARDS, 1), "clause image"),
              F("scaled_key", Bin(ELEMENT_BYTES), "clause key"),
              F("elements", Array(Bin(ELEMENT_BYTES), SHUFFLE_ARGUMENT_ELEMENTS), "clause argument element"),
              F("scalars", Array(Bin(SCALAR_BYTES), shuffle_argument_scalars(MAX_CARDS)), "clause argument scalar"),
              F("dleq", Bytes(DLEQ_BYTES), "clause DLEQ"),
              F("tags", Array(Bin(ELEMENT_BYTES), MAX_CARDS, 1), "clause tag"),
              F("tag_proof", Bin(DLEQ_BYTES), "clause tag proof"))
    images: tuple[bytes, ...]
    scaled_key: bytes
    elements: tuple[bytes, ...]
    scalars: tuple[bytes, ...]
    dleq: bytes
    tags: tuple[bytes, ...]
    tag_proof: bytes

    def check(self) -> None:
        m = len(self.images)
        if m == 1:
            if self.elements or self.scalars or len(self.dleq) != DLEQ_BYTES:
                raise malformed("a one-position clause carries a 64-byte DLEQ and no shuffle argument")
        elif (len(self.elements) != SHUFFLE_ARGUMENT_ELEMENTS or len(self.scalars) != shuffle_argument_scalars(m)
              or self.dleq):
            raise malformed("a clause of m positions carries a shuffle argument of 7 elements and 2m + 1 scalars")

    @classmethod
    def of(cls, proof: ClauseProof) -> RuleClause:
        argument = proof.argument
        if isinstance(argument, ShuffleArgument):
            return cls(proof.images, proof.scaled_key, argument.elements, argument.scalars, b"", proof.tags,
                       proof.tag_proof)
        return cls(proof.images, proof.scaled_key, (), (), argument, proof.tags, proof.tag_proof)

    def proof(self) -> ClauseProof:
        argument = ShuffleArgument(self.elements, self.scalars) if self.elements else self.dleq
        return ClauseProof(self.images, self.scaled_key, argument, self.tags, self.tag_proof)


@dataclass(frozen=True)
class TableAction(PayloadStruct):
    """A seat's answer in a game slot: a verb, its cards, one deck opening (with its DLEQ
    proof) for each of those cards that no earlier action of the hand has opened, and the
    proof of a hidden-card rule where the game says the action owes one."""

    TYPE: ClassVar[str] = "table/action"
    FIELDS = (F("verb", Str(MAX_VERB_BYTES), "action verb"),
              F("cards", Array(UInt(MAX_CARDS - 1), MAX_ACTION_CARDS), "card"),
              F("opens", Array(_nested(CardOpen), MAX_ACTION_CARDS), "open"),
              F("proof", Array(_nested(RuleClause), MAX_RULE_CLAUSES), "hidden-rule clause proof", optional=True))
    verb: str
    cards: tuple[int, ...]
    opens: tuple[CardOpen, ...] = ()
    proof: tuple[RuleClause, ...] = ()
    """The proof of the hidden-card rule the action owes (protocol/hidden_rules.py; the game's
    ``GameState.claim``), one entry per clause; left out when empty (docs/protocol.md,
    "Hidden-card rules at the table")."""

    def check(self) -> None:
        if not 1 <= len(self.verb) <= MAX_VERB_BYTES or self.verb.strip("abcdefghijklmnopqrstuvwxyz-"):
            raise malformed("an action verb is 1..16 of a-z and -")
        if list(self.cards) != sorted(set(self.cards)):
            raise malformed("an action's cards must be distinct and ascending")
        opened = [o.card for o in self.opens]
        if opened != sorted(set(opened)) or not set(opened) <= set(self.cards):
            raise malformed("an action opens some of its own cards, each once, ascending")


@dataclass(frozen=True)
class HandOver(PayloadStruct):
    """A seat names one of its positions to hand to seat ``to`` privately (docs/protocol.md,
    "Hand-over": the re-lock; the receiver's ``deck/hand-over-lock`` and the giver's
    ``deck/hand-over-strip`` follow), with the proof of a hidden-card rule where the game
    says the hand-over owes one (a return: the card is not a picture); left out when empty."""

    TYPE: ClassVar[str] = "deck/hand-over"
    FIELDS = (F("position", UInt(MAX_CARDS - 1)), F("to", UInt(MAX_SEATS - 1)),
              F("proof", Array(_nested(RuleClause), MAX_RULE_CLAUSES), "hidden-rule clause proof", optional=True))
    position: int
    to: int
    proof: tuple[RuleClause, ...] = ()


@dataclass(frozen=True)
class HandOverLock(PayloadStruct):
    """The receiver adds its layer to the named position: ``value`` = x_b * V_k, with a DLEQ
    proof (B_b -> B_b+1; V_k -> value)."""

    TYPE: ClassVar[str] = "deck/hand-over-lock"
    FIELDS = (F("value", Bin(ELEMENT_BYTES)), F("proof", Bin(DLEQ_BYTES)),
              F("objection", Array(_nested(RuleClause), MAX_RULE_CLAUSES), "hidden-rule clause proof",
                optional=True))
    value: bytes
    proof: bytes
    objection: tuple[RuleClause, ...] = ()
    """The receiver's proof that its own cards make the hand-over illegal (the game's
    ``objection``: Sasku's give to a partner holding nine pictures); left out when empty."""


@dataclass(frozen=True)
class HandOverStrip(PayloadStruct):
    """The giver strips its own layer: ``value`` = x_a^-1 * R, with a DLEQ proof (B_a -> B_a+1;
    value -> R): the position is now the receiver's lock x_b * M_c."""

    TYPE: ClassVar[str] = "deck/hand-over-strip"
    FIELDS = (F("value", Bin(ELEMENT_BYTES)), F("proof", Bin(DLEQ_BYTES)))
    value: bytes
    proof: bytes


@dataclass(frozen=True)
class Abandon(PayloadStruct):
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
class Leave(PayloadStruct):
    """A seat leaves the table for good (the player typed ``quit``): a notice to the others,
    bound to the slot it was signed in; it is not chained nor recorded (docs/protocol.md,
    "Leaving")."""

    TYPE: ClassVar[str] = "table/leave"
    FIELDS = ()


Payload = (DeckCommit | DeckNonce | ShuffleHop | ShuffleProof | StripRound | CardOpen | KeyReveal
           | Genesis | SeatCommit | SeatNonce | TableAction | Abandon | Leave | HandOver | HandOverLock
           | HandOverStrip)

PAYLOAD_TYPES: dict[str, type[PayloadStruct]] = {
    cls.TYPE: cls for cls in (DeckCommit, DeckNonce, ShuffleHop, ShuffleProof, StripRound, CardOpen, KeyReveal,
                              Genesis, SeatCommit, SeatNonce, TableAction, Abandon, Leave,
                              HandOver, HandOverLock, HandOverStrip)
}
