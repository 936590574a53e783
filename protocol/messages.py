"""Every message of the table, each defined once, and the signed envelope.

This is the only module that imports ``msgpack`` (tests/test_layers.py).

Wire format (docs/protocol.md, "Messages"):
  envelope = msgpack array ``[body_bytes: bin, signature: bin(64)]``
  body     = msgpack map, keys in this order: ``version`` (int), ``table`` (bin 32),
             ``hand`` (int), ``slot`` (int), ``sender`` (int), ``prev`` (bin 32),
             ``type`` (str), ``payload`` (array, per type)
The signature is Ed25519 over ``body_bytes`` exactly. A received envelope keeps its
bytes verbatim (``SignedMessage.raw``, ``.body_bytes``); nothing is ever re-encoded to be
forwarded or stored. Decoding is strict: exact types, byte lengths, counts, and the
canonical encoding (decoding then encoding gives back the same bytes), so one body has
exactly one byte string. Anything else raises :class:`MessageError`.

Sections:
  1. errors and field checks
  2. deck payloads
  2b. table payloads (genesis, seating, game actions)
  3. body and envelope (and the transcript header)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Union

import msgpack

from p2p_sasaki.protocol.crypto import (
    DLEQ_BYTES,
    SIGNATURE_BYTES,
    SHUFFLE_ARGUMENT_ELEMENTS,
    IdentityKey,
    ShuffleArgument,
    shuffle_argument_scalars,
    verify_signature,
)

# ---------------------------------------------------------------------------------------
# 1. Errors and field checks
# ---------------------------------------------------------------------------------------

VERSION = 1
MAX_ENVELOPE_BYTES = 1 << 20
TABLE_ID_BYTES = 32
PREV_BYTES = 32
ELEMENT_BYTES = 32
SCALAR_BYTES = 32
NONCE_BYTES = 32
HASH_BYTES = 32
MAX_SEATS = 16
MAX_CARDS = 1024
MAX_SHUFFLE_ROUNDS = 512
MAX_UINT = 2**32 - 1


class MessageError(ValueError):
    """A message is malformed: wrong type, length, size, count or encoding."""


def _fail(what: str) -> MessageError:
    return MessageError(f"malformed message: {what}")


def _uint(value: Any, what: str, maximum: int = MAX_UINT) -> int:
    if type(value) is not int or not 0 <= value <= maximum:
        raise _fail(f"{what} must be an integer in 0..{maximum}")
    return value


def _bin(value: Any, size: int, what: str) -> bytes:
    if type(value) is not bytes or len(value) != size:
        raise _fail(f"{what} must be {size} bytes")
    return value


def _array(value: Any, what: str, max_count: int, min_count: int = 0) -> list[Any]:
    if type(value) is not list or not min_count <= len(value) <= max_count:
        raise _fail(f"{what} must be an array of {min_count}..{max_count} items")
    return value


def _bins(value: Any, size: int, what: str, max_count: int, min_count: int = 1) -> tuple[bytes, ...]:
    return tuple(_bin(item, size, what) for item in _array(value, what + "s", max_count, min_count))


def _shape(value: Any, count: int, what: str) -> list[Any]:
    if type(value) is not list or len(value) != count:
        raise _fail(f"the {what} payload must be an array of {count} fields")
    return value


# ---------------------------------------------------------------------------------------
# 2. Deck payloads (protocol/deck.py)
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DeckCommit:
    """A seat's commitment to its hand-id nonce."""

    TYPE: ClassVar[str] = "deck/commit"
    commitment: bytes

    def to_wire(self) -> list[Any]:
        return [self.commitment]

    @classmethod
    def from_wire(cls, obj: Any) -> DeckCommit:
        (commitment,) = _shape(obj, 1, cls.TYPE)
        return cls(_bin(commitment, HASH_BYTES, "commitment"))


@dataclass(frozen=True)
class DeckNonce:
    """The nonce revealed once every commitment is in."""

    TYPE: ClassVar[str] = "deck/nonce"
    nonce: bytes

    def to_wire(self) -> list[Any]:
        return [self.nonce]

    @classmethod
    def from_wire(cls, obj: Any) -> DeckNonce:
        (nonce,) = _shape(obj, 1, cls.TYPE)
        return cls(_bin(nonce, NONCE_BYTES, "nonce"))


@dataclass(frozen=True)
class ShuffleHop:
    """One shuffle hop: the re-keyed, permuted deck and the re-keyed base."""

    TYPE: ClassVar[str] = "deck/shuffle"
    deck: tuple[bytes, ...]
    base: bytes

    def to_wire(self) -> list[Any]:
        return [list(self.deck), self.base]

    @classmethod
    def from_wire(cls, obj: Any) -> ShuffleHop:
        deck, base = _shape(obj, 2, cls.TYPE)
        return cls(_bins(deck, ELEMENT_BYTES, "deck element", MAX_CARDS), _bin(base, ELEMENT_BYTES, "base"))


@dataclass(frozen=True)
class ShuffleProof:
    """The shuffle argument of one hop (protocol/crypto.py), sent after the hop (so the
    next one can start): 7 elements and 2N + 1 scalars for an N-card deck."""

    TYPE: ClassVar[str] = "deck/shuffle-proof"
    argument: ShuffleArgument

    def to_wire(self) -> list[Any]:
        return [list(self.argument.elements), list(self.argument.scalars)]

    @classmethod
    def from_wire(cls, obj: Any) -> ShuffleProof:
        elements, scalars = _shape(obj, 2, cls.TYPE)
        elements = _bins(elements, ELEMENT_BYTES, "argument element", SHUFFLE_ARGUMENT_ELEMENTS, SHUFFLE_ARGUMENT_ELEMENTS)
        scalars = _bins(scalars, SCALAR_BYTES, "argument scalar", shuffle_argument_scalars(MAX_CARDS), shuffle_argument_scalars(2))
        if (len(scalars) - 1) % 2:
            raise _fail("a shuffle argument has 2N + 1 scalars")
        return cls(ShuffleArgument(elements, scalars))


@dataclass(frozen=True)
class StripRound:
    """A seat's public strips of one owner's positions in one round, with one batched DLEQ
    proof for them all (``proofs`` holds exactly one)."""

    TYPE: ClassVar[str] = "deck/strip"
    round: int
    values: tuple[bytes, ...]
    proofs: tuple[bytes, ...]

    def to_wire(self) -> list[Any]:
        return [self.round, list(self.values), list(self.proofs)]

    @classmethod
    def from_wire(cls, obj: Any) -> StripRound:
        round_, values, proofs = _shape(obj, 3, cls.TYPE)
        values = _bins(values, ELEMENT_BYTES, "stripped value", MAX_CARDS)
        proofs = _bins(proofs, DLEQ_BYTES, "strip proof", 1)  # one batched DLEQ (version 2)
        return cls(_uint(round_, "round", MAX_SEATS), values, proofs)


@dataclass(frozen=True)
class CardOpen:
    """The owner shows the card at one of its positions, with one DLEQ proof."""

    TYPE: ClassVar[str] = "deck/open"
    position: int
    card: int
    proof: bytes

    def to_wire(self) -> list[Any]:
        return [self.position, self.card, self.proof]

    @classmethod
    def from_wire(cls, obj: Any) -> CardOpen:
        position, card, proof = _shape(obj, 3, cls.TYPE)
        return cls(
            _uint(position, "position", MAX_CARDS - 1), _uint(card, "card", MAX_CARDS - 1), _bin(proof, DLEQ_BYTES, "proof")
        )


@dataclass(frozen=True)
class KeyReveal:
    """The end-of-hand reveal of a seat's shuffle scalar."""

    TYPE: ClassVar[str] = "deck/key"
    key: bytes

    def to_wire(self) -> list[Any]:
        return [self.key]

    @classmethod
    def from_wire(cls, obj: Any) -> KeyReveal:
        (key,) = _shape(obj, 1, cls.TYPE)
        return cls(_bin(key, SCALAR_BYTES, "key"))


# ---------------------------------------------------------------------------------------
# 2b. Table payloads (protocol/session.py; docs/protocol.md, "Table")
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Genesis:
    """Hand 0, slot 0: a roster member signs the roster hash (table id and the keys)."""

    TYPE: ClassVar[str] = "table/genesis"
    roster_hash: bytes

    def to_wire(self) -> list[Any]:
        return [self.roster_hash]

    @classmethod
    def from_wire(cls, obj: Any) -> Genesis:
        (roster_hash,) = _shape(obj, 1, cls.TYPE)
        return cls(_bin(roster_hash, HASH_BYTES, "roster hash"))


@dataclass(frozen=True)
class SeatCommit:
    """Hand 0, slot 1: a commitment to the member's seating nonce."""

    TYPE: ClassVar[str] = "table/seat-commit"
    commitment: bytes

    def to_wire(self) -> list[Any]:
        return [self.commitment]

    @classmethod
    def from_wire(cls, obj: Any) -> SeatCommit:
        (commitment,) = _shape(obj, 1, cls.TYPE)
        return cls(_bin(commitment, HASH_BYTES, "commitment"))


@dataclass(frozen=True)
class SeatNonce:
    """Hand 0, slot 2: the seating nonce, revealed once every commitment is in."""

    TYPE: ClassVar[str] = "table/seat-nonce"
    nonce: bytes

    def to_wire(self) -> list[Any]:
        return [self.nonce]

    @classmethod
    def from_wire(cls, obj: Any) -> SeatNonce:
        (nonce,) = _shape(obj, 1, cls.TYPE)
        return cls(_bin(nonce, NONCE_BYTES, "nonce"))


ACTION_VERBS = ("lead", "decline", "play", "pass", "run", "expose", "stop", "chata", "kkojda")
MAX_ACTION_CARDS = 64


@dataclass(frozen=True)
class TableAction:
    """A seat's answer in a game slot: a verb, its cards, and one deck opening (with its
    DLEQ proof) for each of those cards that no earlier action of the hand has opened."""

    TYPE: ClassVar[str] = "table/action"
    verb: str
    cards: tuple[int, ...]
    opens: tuple[CardOpen, ...] = ()

    def to_wire(self) -> list[Any]:
        return [self.verb, list(self.cards), [o.to_wire() for o in self.opens]]

    @classmethod
    def from_wire(cls, obj: Any) -> TableAction:
        verb, cards, opens = _shape(obj, 3, cls.TYPE)
        if type(verb) is not str or verb not in ACTION_VERBS:
            raise _fail("unknown action verb")
        cards = tuple(_uint(c, "card", MAX_CARDS - 1) for c in _array(cards, "cards", MAX_ACTION_CARDS))
        if list(cards) != sorted(set(cards)):
            raise _fail("an action's cards must be distinct and ascending")
        decoded = tuple(CardOpen.from_wire(o) for o in _array(opens, "opens", MAX_ACTION_CARDS))
        if [o.card for o in decoded] != sorted({o.card for o in decoded}) or not {o.card for o in decoded} <= set(cards):
            raise _fail("an action opens some of its own cards, each once, ascending")
        return cls(verb, cards, decoded)


Payload = Union[DeckCommit, DeckNonce, ShuffleHop, ShuffleProof, StripRound, CardOpen, KeyReveal,
                Genesis, SeatCommit, SeatNonce, TableAction]

PAYLOAD_TYPES: dict[str, type] = {
    cls.TYPE: cls for cls in (DeckCommit, DeckNonce, ShuffleHop, ShuffleProof, StripRound, CardOpen, KeyReveal,
                              Genesis, SeatCommit, SeatNonce, TableAction)
}

# ---------------------------------------------------------------------------------------
# 3. Body and envelope
# ---------------------------------------------------------------------------------------

BODY_KEYS = ("version", "table", "hand", "slot", "sender", "prev", "type", "payload")


@dataclass(frozen=True)
class Body:
    """What a seat signs. ``prev`` is the agreed state hash before ``slot``."""

    table: bytes
    hand: int
    slot: int
    sender: int
    prev: bytes
    payload: Payload
    version: int = VERSION

    @property
    def type(self) -> str:
        return self.payload.TYPE


@dataclass(frozen=True)
class SignedMessage:
    """A received envelope: the decoded body plus its exact signed bytes."""

    body: Body
    body_bytes: bytes
    signature: bytes
    raw: bytes


def _pack(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)


def _unpack_canonical(data: Any, what: str) -> Any:
    if type(data) is not bytes:
        raise _fail(f"the {what} must be bytes")
    if len(data) > MAX_ENVELOPE_BYTES:
        raise _fail(f"the {what} is larger than {MAX_ENVELOPE_BYTES} bytes")
    try:
        obj = msgpack.unpackb(data, raw=False, use_list=True, strict_map_key=True)
    except Exception as exc:  # msgpack raises many types on hostile input
        raise _fail(f"the {what} is not valid msgpack") from exc
    try:
        canonical = _pack(obj) == data
    except Exception as exc:  # e.g. an extension type
        raise _fail(f"the {what} holds an unsupported type") from exc
    if not canonical:
        raise _fail(f"the {what} is not canonically encoded")
    return obj


def encode_body(body: Body) -> bytes:
    fields = {
        "version": body.version,
        "table": body.table,
        "hand": body.hand,
        "slot": body.slot,
        "sender": body.sender,
        "prev": body.prev,
        "type": body.type,
        "payload": body.payload.to_wire(),
    }
    data = _pack(fields)
    decode_body(data)  # never emit what we would refuse
    return data


def decode_body(data: bytes) -> Body:
    obj = _unpack_canonical(data, "body")
    if type(obj) is not dict or tuple(obj) != BODY_KEYS:
        raise _fail("the body must be a map of " + ", ".join(BODY_KEYS) + " in that order")
    if obj["version"] != VERSION or type(obj["version"]) is not int:
        raise _fail(f"the version must be {VERSION}")
    kind = obj["type"]
    if type(kind) is not str or kind not in PAYLOAD_TYPES:
        raise _fail("unknown message type")
    return Body(
        table=_bin(obj["table"], TABLE_ID_BYTES, "table id"),
        hand=_uint(obj["hand"], "hand number"),
        slot=_uint(obj["slot"], "slot"),
        sender=_uint(obj["sender"], "sender", MAX_SEATS - 1),
        prev=_bin(obj["prev"], PREV_BYTES, "prev"),
        payload=PAYLOAD_TYPES[kind].from_wire(obj["payload"]),
    )


def sign_envelope(body: Body, identity: IdentityKey) -> bytes:
    """Encode ``body``, sign its exact bytes and wrap both in an envelope."""
    body_bytes = encode_body(body)
    return _pack([body_bytes, identity.sign(body_bytes)])


def decode_envelope(data: bytes) -> SignedMessage:
    """Parse an envelope strictly (the signature is not checked: see verify_envelope)."""
    obj = _unpack_canonical(data, "envelope")
    if type(obj) is not list or len(obj) != 2:
        raise _fail("an envelope is an array of body bytes and a signature")
    body_bytes, signature = obj
    if type(body_bytes) is not bytes:
        raise _fail("the body must be bytes")
    body = decode_body(body_bytes)
    return SignedMessage(body, body_bytes, _bin(signature, SIGNATURE_BYTES, "signature"), data)


def verify_envelope(message: SignedMessage, public_key: bytes) -> bool:
    """True iff the signature is ``public_key``'s over the exact body bytes."""
    return verify_signature(public_key, message.body_bytes, message.signature)


@dataclass(frozen=True)
class TranscriptHeader:
    """The first record of a ``.sasaki`` transcript (protocol/transcript.py): everything
    an auditor needs besides the envelopes. Encoded as a msgpack array, strictly."""

    table: bytes
    roster_keys: tuple[bytes, ...]
    hands: int
    lead_card: str
    lead_must_contain_3: bool
    running: str
    proofs: bool
    shuffle_rounds: int
    version: int = VERSION

    def encode(self) -> bytes:
        return _pack([self.version, self.table, list(self.roster_keys), self.hands, self.lead_card,
                      self.lead_must_contain_3, self.running, self.proofs, self.shuffle_rounds])

    @classmethod
    def decode(cls, data: bytes) -> TranscriptHeader:
        obj = _unpack_canonical(data, "transcript header")
        version, table, keys, hands, lead, must3, running, proofs, rounds = _shape(obj, 9, "header")
        if version != VERSION or type(version) is not int:
            raise _fail(f"the transcript version must be {VERSION}")
        if type(lead) is not str or type(running) is not str or type(must3) is not bool or type(proofs) is not bool:
            raise _fail("bad table options in the header")
        return cls(_bin(table, TABLE_ID_BYTES, "table id"), _bins(keys, 32, "public key", MAX_SEATS, 2),
                   _uint(hands, "hands", 1 << 16), lead, must3, running, proofs,
                   _uint(rounds, "shuffle rounds", MAX_SHUFFLE_ROUNDS))


# ---------------------------------------------------------------------------------------
# 4. Connection handshakes (protocol/net: mesh authentication and the join)
#
# The few messages two peers exchange before any game message: the mesh's
# mutual authentication and the join handshake run under a table code. Each is
# a frozen dataclass encoded as a msgpack array ``[tag, field, ...]`` (arrays,
# never maps, so the bytes are canonical); decoding checks every field's type.
# ---------------------------------------------------------------------------

from dataclasses import dataclass as _dataclass
from dataclasses import fields as _fields
from typing import Any as _Any
from typing import ClassVar as _ClassVar

import msgpack as _msgpack


class HandshakeDecodeError(ValueError):
    """Bytes that are not a well-formed handshake message."""


@_dataclass(frozen=True)
class MeshHello:
    """First message each way on a mesh connection: who I am, and a fresh challenge."""

    TAG: _ClassVar[str] = "mesh-hello"
    version: int
    table_id: bytes
    key: bytes
    nonce: bytes


@_dataclass(frozen=True)
class MeshProof:
    """Second message each way: a signature over both hellos (see protocol.net.mesh)."""

    TAG: _ClassVar[str] = "mesh-proof"
    signature: bytes


@_dataclass(frozen=True)
class MeshWelcome:
    """Last message of the mesh handshake, listener to dialer: you are authenticated."""

    TAG: _ClassVar[str] = "mesh-welcome"


@_dataclass(frozen=True)
class Refusal:
    """The sender refuses the connection, in one human sentence; it closes next.

    ``kind`` lets a program tell refusals apart: ``"refused"`` (mesh handshake),
    ``"wrong-code"``, ``"table-full"``, ``"code-burnt"``."""

    TAG: _ClassVar[str] = "refusal"
    kind: str
    reason: str


@_dataclass(frozen=True)
class JoinGreeting:
    """A table's creator greets a joiner: protocol version, nameplate, table id."""

    TAG: _ClassVar[str] = "join-greeting"
    version: int
    nameplate: str
    table_id: bytes


@_dataclass(frozen=True)
class PakeMessage:
    """One SPAKE2 message."""

    TAG: _ClassVar[str] = "pake"
    data: bytes


@_dataclass(frozen=True)
class Sealed:
    """Bytes sealed under the key of the SPAKE2 run (the first one confirms the key)."""

    TAG: _ClassVar[str] = "sealed"
    data: bytes


@_dataclass(frozen=True)
class JoinIdentity:
    """Inside a Sealed: the sender's identity key, its mesh address and a signature
    binding that key to this SPAKE2 run. An empty ``host`` means "the address you
    see me connecting from"."""

    TAG: _ClassVar[str] = "join-identity"
    key: bytes
    host: str
    port: int
    signature: bytes


@_dataclass(frozen=True)
class RosterMember:
    key: bytes
    host: str
    port: int


@_dataclass(frozen=True)
class JoinRoster:
    """Inside a Sealed: the table is full; every member's key and mesh address,
    the creator first, then the joiners in the order they were admitted."""

    TAG: _ClassVar[str] = "join-roster"
    table_id: bytes
    members: tuple[RosterMember, ...]


HandshakeMessage = MeshHello | MeshProof | MeshWelcome | Refusal | JoinGreeting | PakeMessage | Sealed | JoinIdentity | JoinRoster
_HANDSHAKE_TYPES: dict[str, type] = {
    cls.TAG: cls
    for cls in (MeshHello, MeshProof, MeshWelcome, Refusal, JoinGreeting, PakeMessage, Sealed, JoinIdentity, JoinRoster)
}
_PLAIN = {"int": int, "bytes": bytes, "str": str}


def encode_handshake(message: HandshakeMessage) -> bytes:
    """The wire bytes of a handshake message.

    >>> decode_handshake(encode_handshake(PakeMessage(b"x")))
    PakeMessage(data=b'x')
    """
    values: list[_Any] = [message.TAG]
    for field in _fields(message):
        value = getattr(message, field.name)
        if field.name == "members":
            value = [[m.key, m.host, m.port] for m in value]
        values.append(value)
    return _msgpack.packb(values, use_bin_type=True)


def decode_handshake(data: bytes) -> HandshakeMessage:
    """The message in ``data``; raises :class:`HandshakeDecodeError` if malformed."""
    try:
        values = _msgpack.unpackb(data, raw=False, strict_map_key=True, use_list=True)
    except Exception as exc:  # msgpack raises several unrelated exception types
        raise HandshakeDecodeError(f"not msgpack ({exc.__class__.__name__})") from None
    if not isinstance(values, list) or not values or values[0] not in _HANDSHAKE_TYPES:
        raise HandshakeDecodeError("not a known handshake message")
    cls = _HANDSHAKE_TYPES[values[0]]
    specs = _fields(cls)
    if len(values) != len(specs) + 1:
        raise HandshakeDecodeError(f"{cls.TAG} has {len(values) - 1} fields, expected {len(specs)}")
    arguments: list[_Any] = []
    for spec, value in zip(specs, values[1:]):
        if spec.name == "members":
            arguments.append(_decode_members(value))
            continue
        expected = _PLAIN[str(spec.type)]
        if type(value) is not expected:
            raise HandshakeDecodeError(f"{cls.TAG}.{spec.name} is not {spec.type}")
        arguments.append(value)
    return cls(*arguments)


def _decode_members(value: _Any) -> tuple[RosterMember, ...]:
    if not isinstance(value, list):
        raise HandshakeDecodeError("join-roster.members is not a list")
    members = []
    for item in value:
        if (not isinstance(item, list) or len(item) != 3 or type(item[0]) is not bytes
                or type(item[1]) is not str or type(item[2]) is not int):
            raise HandshakeDecodeError("join-roster.members has a malformed member")
        members.append(RosterMember(item[0], item[1], item[2]))
    return tuple(members)


