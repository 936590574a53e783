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

One codec does all of this. Every message class declares its fields once, in order, as
``FIELDS`` (a tuple of :class:`F`: attribute name, wire spec such as ``Bin(32)``,
``UInt(15)``, ``Str(255)``, ``Array(spec, max_count)`` or a nested ``Record``), and the
class's ``to_wire``/``from_wire`` (from :class:`WireStruct`) encode it as a msgpack array
of those fields and check every type, length and count on the way in.

Sections:
  1. errors, the protocol version and the codec (field specs)
  2. deck payloads
  2b. table payloads (genesis, seating, game actions)
  3. body and envelope (and the transcript header)
  4. connection handshakes (mesh authentication, join) and the table's members
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, Self, Union

import msgpack

from p2p_sasaki.protocol.crypto import (
    DLEQ_BYTES,
    PUBLIC_KEY_BYTES,
    SHUFFLE_ARGUMENT_ELEMENTS,
    SIGNATURE_BYTES,
    IdentityKey,
    ShuffleArgument,
    shuffle_argument_scalars,
    verify_signature,
)

# ---------------------------------------------------------------------------------------
# 1. Errors, the protocol version and the codec
# ---------------------------------------------------------------------------------------

PROTOCOL_VERSION = 3
"""The one version of the wire: envelopes, transcript headers, the join and mesh
handshakes and the mDNS hint all carry it, and two peers must speak the same one."""
VERSION = PROTOCOL_VERSION  # the name the envelope and header fields use

MAX_ENVELOPE_BYTES = 1 << 20
TABLE_ID_BYTES = 32
PREV_BYTES = 32
ELEMENT_BYTES = 32
SCALAR_BYTES = 32
NONCE_BYTES = 32
HASH_BYTES = 32
MAX_SEATS = 16
MAX_CARDS = 1024
MAX_UINT = 2**32 - 1


class MessageError(ValueError):
    """A message is malformed: wrong type, length, size, count or encoding."""


class VersionMismatchError(MessageError):
    """A well-formed message of another protocol version (``version``: the one it speaks)."""

    def __init__(self, version: object, who: str = "this peer") -> None:
        super().__init__(version_sentence(version, who))
        self.version = version


def version_sentence(version: object, who: str = "this peer") -> str:
    """The one sentence said when two versions differ (``who`` speaks ``version``).

    >>> version_sentence(0)  # doctest: +ELLIPSIS
    'this peer speaks protocol version 0, we speak version ...; both need the same p2p-sasaki release'
    """
    return (f"{who} speaks protocol version {version}, we speak version {PROTOCOL_VERSION}; "
            "both need the same p2p-sasaki release")


def _fail(what: str) -> MessageError:
    return MessageError(f"malformed message: {what}")


class Spec(Protocol):
    """How one field travels: ``pack`` gives the msgpack value, ``unpack`` checks one."""

    def pack(self, value: Any) -> Any: ...

    def unpack(self, obj: Any, what: str) -> Any: ...


@dataclass(frozen=True)
class Bin:
    """Exactly ``size`` bytes (msgpack bin)."""

    size: int

    def pack(self, value: Any) -> Any:
        return value

    def unpack(self, obj: Any, what: str) -> bytes:
        if type(obj) is not bytes or len(obj) != self.size:
            raise _fail(f"{what} must be {self.size} bytes")
        return obj


@dataclass(frozen=True)
class Bytes:
    """``min_size``..``max_size`` bytes (msgpack bin)."""

    max_size: int
    min_size: int = 0

    def pack(self, value: Any) -> Any:
        return value

    def unpack(self, obj: Any, what: str) -> bytes:
        if type(obj) is not bytes or not self.min_size <= len(obj) <= self.max_size:
            raise _fail(f"{what} must be {self.min_size}..{self.max_size} bytes")
        return obj


@dataclass(frozen=True)
class UInt:
    """An integer in 0..``maximum`` (never a bool or a float)."""

    maximum: int = MAX_UINT

    def pack(self, value: Any) -> Any:
        return value

    def unpack(self, obj: Any, what: str) -> int:
        if type(obj) is not int or not 0 <= obj <= self.maximum:
            raise _fail(f"{what} must be an integer in 0..{self.maximum}")
        return obj


@dataclass(frozen=True)
class Int:
    """A signed integer in -``bound``..``bound`` (never a bool or a float)."""

    bound: int = 2**31 - 1

    def pack(self, value: Any) -> Any:
        return value

    def unpack(self, obj: Any, what: str) -> int:
        if type(obj) is not int or not -self.bound <= obj <= self.bound:
            raise _fail(f"{what} must be an integer in -{self.bound}..{self.bound}")
        return obj


@dataclass(frozen=True)
class Str:
    """UTF-8 text of at most ``max_bytes`` bytes; with ``choices``, one of them."""

    max_bytes: int
    choices: tuple[str, ...] | None = None

    def pack(self, value: Any) -> Any:
        return value

    def unpack(self, obj: Any, what: str) -> str:
        if type(obj) is not str or len(obj.encode()) > self.max_bytes:
            raise _fail(f"{what} must be text of at most {self.max_bytes} bytes")
        if self.choices is not None and obj not in self.choices:
            raise _fail(f"unknown {what}")
        return obj


MAX_NAME_CHARS = 24


def name_problem(name: str) -> str | None:
    """Why ``name`` is not a player's name, or None: a name is 1..24 characters, each
    printable (no Unicode "Other" or "Separator" character but the space: no control,
    format or bidirectional character, no line break or tab), with no space at either end.

    >>> name_problem("Mina") is None
    True
    >>> name_problem("a\\tb")
    'a name cannot hold control or invisible characters'
    """
    if not 1 <= len(name) <= MAX_NAME_CHARS:
        return f"a name is 1 to {MAX_NAME_CHARS} characters"
    if not name.isprintable():
        return "a name cannot hold control or invisible characters"
    if name != name.strip(" "):
        return "a name cannot start or end with a space"
    return None


def default_name(key: bytes) -> str:
    """The name of a member that chose none: its key's short form, ``peer 1a2b3c4d``."""
    return describe_key(key)


@dataclass(frozen=True)
class Name:
    """A player's name (:func:`name_problem`): UTF-8 text of 1..24 printable characters."""

    def pack(self, value: Any) -> Any:
        return value

    def unpack(self, obj: Any, what: str) -> str:
        if type(obj) is not str:
            raise _fail(f"{what} must be text")
        problem = name_problem(obj)
        if problem is not None:
            raise _fail(f"{what}: {problem}")
        return obj


@dataclass(frozen=True)
class Bool:
    """``true`` or ``false``."""

    def pack(self, value: Any) -> Any:
        return value

    def unpack(self, obj: Any, what: str) -> bool:
        if type(obj) is not bool:
            raise _fail(f"{what} must be true or false")
        return obj


@dataclass(frozen=True)
class Array:
    """``min_count``..``max_count`` items of ``item``, as a tuple (label: the item's, plus "s")."""

    item: Spec
    max_count: int
    min_count: int = 0

    def pack(self, value: Any) -> Any:
        return [self.item.pack(v) for v in value]

    def unpack(self, obj: Any, what: str) -> tuple[Any, ...]:
        if type(obj) is not list or not self.min_count <= len(obj) <= self.max_count:
            raise _fail(f"{what}s must be an array of {self.min_count}..{self.max_count} items")
        return tuple(self.item.unpack(v, what) for v in obj)


@dataclass(frozen=True)
class F:
    """One declared field: the attribute, its spec, and its name in error messages.

    ``optional``: a trailing field that may be left out (only trailing fields may be): the
    array ends at the last field that differs from its dataclass default, so a message
    without the field keeps its old bytes, and one encoding stays canonical (a received
    array whose last optional field holds its default is refused)."""

    name: str
    spec: Spec
    label: str = ""
    optional: bool = False


def _shape(value: Any, count: int, what: str) -> list[Any]:
    if type(value) is not list or len(value) != count:
        raise _fail(f"the {what} must be an array of {count} fields")
    return value


@dataclass(frozen=True)
class Record:
    """A nested value (any class built from its fields in order) as an array of its fields."""

    cls: Any
    fields: tuple[F, ...]
    name: str

    def pack(self, value: Any) -> Any:
        return [f.spec.pack(getattr(value, f.name)) for f in self.fields]

    def unpack(self, obj: Any, what: str) -> Any:
        return _build(self.cls, self.fields, _shape(obj, len(self.fields), self.name))


def _build(cls: Any, fields: tuple[F, ...], values: list[Any]) -> Any:
    """``cls`` from its checked fields (error label: the field's, else its name), then
    its cross-field ``check`` if it has one."""
    value = cls(**{f.name: f.spec.unpack(v, f.label or f.name.replace("_", " "))
                   for f, v in zip(fields, values, strict=True)})
    check = getattr(value, "check", None)
    if check is not None:
        check()
    return value


class WireStruct:
    """A message declared by ``FIELDS``: encoded as the array of its fields, in order.

    ``check`` (optional) tests what relates several fields, after each field's own checks.
    """

    FIELDS: ClassVar[tuple[F, ...]] = ()
    WHAT: ClassVar[str] = ""

    def to_wire(self) -> list[Any]:
        fields = self.FIELDS
        count = len(fields)
        while count > _required(fields) and getattr(self, fields[count - 1].name) == _default(self, fields[count - 1]):
            count -= 1               # optional trailing fields at their defaults are left out
        return [f.spec.pack(getattr(self, f.name)) for f in fields[:count]]

    @classmethod
    def from_wire(cls, obj: Any) -> Self:
        fields, required = cls.FIELDS, _required(cls.FIELDS)
        if required == len(fields):
            message: Self = _build(cls, fields, _shape(obj, len(fields), cls.WHAT))
            return message
        if type(obj) is not list or not required <= len(obj) <= len(fields):
            raise _fail(f"the {cls.WHAT} must be an array of {required}..{len(fields)} fields")
        message = _build(cls, fields[:len(obj)], obj)
        if len(obj) > required and getattr(message, fields[len(obj) - 1].name) == _default(message,
                                                                                          fields[len(obj) - 1]):
            raise _fail(f"the {cls.WHAT} is not canonically encoded: an optional field at its default is left out")
        return message

    def check(self) -> None:
        """Raise :class:`MessageError` if the fields do not fit together."""


def _required(fields: tuple[F, ...]) -> int:
    """How many leading fields are required (the optional ones are the trailing ones)."""
    count = len(fields)
    while count and fields[count - 1].optional:
        count -= 1
    if any(f.optional for f in fields[:count]):
        raise TypeError("only trailing fields may be optional")
    return count


def _default(value: Any, field: F) -> Any:
    return {f.name: f.default for f in dataclasses.fields(value)}[field.name]


def _nested(cls: type[WireStruct]) -> Record:
    return Record(cls, cls.FIELDS, cls.WHAT)


def _pack(obj: Any) -> bytes:
    data: bytes = msgpack.packb(obj, use_bin_type=True)
    return data


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


# ---------------------------------------------------------------------------------------
# 2. Deck payloads (protocol/deck.py)
# ---------------------------------------------------------------------------------------


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
            raise _fail("a shuffle argument has 2N + 1 scalars")


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


SEALED_OPEN_BYTES = 1 + DLEQ_BYTES   # a hand-over's sealed opening: the card (one byte) and its DLEQ proof


@dataclass(frozen=True)
class HandOver(_Payload):
    """A seat hands the card at one of its positions to seat ``to`` privately (docs/protocol.md,
    "Hand-over"): the opening of that position (card and DLEQ proof), sealed to the
    receiver's layer key with the ephemeral element ``ephemeral``."""

    TYPE: ClassVar[str] = "deck/hand-over"
    FIELDS = (F("position", UInt(MAX_CARDS - 1)), F("to", UInt(MAX_SEATS - 1)), F("ephemeral", Bin(ELEMENT_BYTES)),
              F("sealed", Bin(SEALED_OPEN_BYTES)))
    position: int
    to: int
    ephemeral: bytes
    sealed: bytes


@dataclass(frozen=True)
class HandOverTaken(_Payload):
    """The receiver of a hand-over opened it: its sealed opening proves the card."""

    TYPE: ClassVar[str] = "deck/hand-over-taken"
    FIELDS = ()


@dataclass(frozen=True)
class HandOverUnsealed(_Payload):
    """The receiver of a hand-over could not open it: it publishes the shared element that
    unseals it, with a DLEQ proof that the element is its layer key times the ephemeral
    element, so that anyone can unseal the opening and see the giver's fault."""

    TYPE: ClassVar[str] = "deck/hand-over-unsealed"
    FIELDS = (F("shared", Bin(ELEMENT_BYTES)), F("proof", Bin(DLEQ_BYTES)))
    shared: bytes
    proof: bytes


@dataclass(frozen=True)
class KeyReveal(_Payload):
    """The end-of-hand reveal of a seat's shuffle scalar."""

    TYPE: ClassVar[str] = "deck/key"
    FIELDS = (F("key", Bin(SCALAR_BYTES)),)
    key: bytes


# ---------------------------------------------------------------------------------------
# 2b. Table payloads (protocol/session.py; docs/protocol.md, "Table")
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
            raise _fail("an action verb is 1..16 of a-z and -")
        if list(self.cards) != sorted(set(self.cards)):
            raise _fail("an action's cards must be distinct and ascending")
        opened = [o.card for o in self.opens]
        if opened != sorted(set(opened)) or not set(opened) <= set(self.cards):
            raise _fail("an action opens some of its own cards, each once, ascending")


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
            raise _fail("an abandon's silent seats must be distinct and ascending")


@dataclass(frozen=True)
class Leave(_Payload):
    """A seat leaves the table for good (the player typed ``quit``): a notice to the others,
    bound to the slot it was signed in; it is not chained nor recorded (docs/protocol.md,
    "Leaving")."""

    TYPE: ClassVar[str] = "table/leave"
    FIELDS = ()


Payload = Union[DeckCommit, DeckNonce, ShuffleHop, ShuffleProof, StripRound, CardOpen, KeyReveal,
                Genesis, SeatCommit, SeatNonce, TableAction, Abandon, Leave, HandOver, HandOverTaken, HandOverUnsealed]

PAYLOAD_TYPES: dict[str, type[_Payload]] = {
    cls.TYPE: cls for cls in (DeckCommit, DeckNonce, ShuffleHop, ShuffleProof, StripRound, CardOpen, KeyReveal,
                              Genesis, SeatCommit, SeatNonce, TableAction, Abandon, Leave,
                              HandOver, HandOverTaken, HandOverUnsealed)
}

# ---------------------------------------------------------------------------------------
# 3. Body and envelope
# ---------------------------------------------------------------------------------------

BODY_KEYS = ("version", "table", "hand", "slot", "sender", "prev", "type", "payload")
BODY_FIELDS = (F("table", Bin(TABLE_ID_BYTES), "table id"), F("hand", UInt(), "hand number"), F("slot", UInt()),
               F("sender", UInt(MAX_SEATS - 1)), F("prev", Bin(PREV_BYTES)))


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


def _check_version(version: Any, what: str) -> None:
    """A version that is an integer but not ours is another release, not noise."""
    if type(version) is int and version != VERSION:
        raise VersionMismatchError(version, what)
    if type(version) is not int:
        raise _fail(f"the version must be {VERSION}")


def seen_key(body: Body) -> tuple[Any, ...]:
    """What one signer may sign only once: ``(hand, slot, sender)`` for a slot's message, with
    the type added for an abandon or a leave notice (a seat that answered a slot may still sign
    its abandon). Two different bodies with one key are equivocation."""
    if isinstance(body.payload, (Abandon, Leave)):
        return (body.hand, body.slot, body.sender, body.type)
    return (body.hand, body.slot, body.sender)


def encode_body(body: Body) -> bytes:
    fields: dict[str, Any] = {"version": body.version}
    fields.update({f.name: f.spec.pack(getattr(body, f.name)) for f in BODY_FIELDS})
    fields.update({"type": body.type, "payload": body.payload.to_wire()})
    data = _pack(fields)
    decode_body(data)  # never emit what we would refuse
    return data


def decode_body(data: bytes) -> Body:
    """The body in ``data``; :class:`VersionMismatchError` if it is another version's."""
    obj = _unpack_canonical(data, "body")
    if type(obj) is dict and "version" in obj:
        _check_version(obj["version"], "this message's sender")
    if type(obj) is not dict or tuple(obj) != BODY_KEYS:
        raise _fail("the body must be a map of " + ", ".join(BODY_KEYS) + " in that order")
    kind = obj["type"]
    if type(kind) is not str or kind not in PAYLOAD_TYPES:
        raise _fail("unknown message type")
    values = {f.name: f.spec.unpack(obj[f.name], f.label or f.name) for f in BODY_FIELDS}
    return Body(**values, payload=PAYLOAD_TYPES[kind].from_wire(obj["payload"]))  # type: ignore[arg-type]


def sign_envelope(body: Body, identity: IdentityKey) -> bytes:
    """Encode ``body``, sign its exact bytes and wrap both in an envelope."""
    body_bytes = encode_body(body)
    return _pack([body_bytes, identity.sign(body_bytes)])


def decode_envelope(data: bytes) -> SignedMessage:
    """Parse an envelope strictly (the signature is not checked: see verify_envelope).

    An envelope of another protocol version raises :class:`VersionMismatchError` (a
    :class:`MessageError`) whose text says so, so the table can tell the person why."""
    obj = _unpack_canonical(data, "envelope")
    if type(obj) is not list or len(obj) != 2:
        raise _fail("an envelope is an array of body bytes and a signature")
    body_bytes, signature = obj
    if type(body_bytes) is not bytes:
        raise _fail("the body must be bytes")
    body = decode_body(body_bytes)
    return SignedMessage(body, body_bytes, Bin(SIGNATURE_BYTES).unpack(signature, "signature"), data)


def verify_envelope(message: SignedMessage, public_key: bytes) -> bool:
    """True iff the signature is ``public_key``'s over the exact body bytes."""
    return verify_signature(public_key, message.body_bytes, message.signature)


MAX_GAME_NAME = 32
MAX_GAME_OPTIONS = 1024
MAX_DEALER_BYTES = 1 << 16


# The fair windows' table options (docs/protocol.md, "Window pacing"), in milliseconds:
# the delay of each of the game's pacing kinds, as the game lists them (protocol/game.py,
# ``Game.pace_kinds``); the person's answer deadline; the stall deadline.
MAX_PACE_KINDS = 16
MAX_PACE_KIND_BYTES = 16
MAX_WINDOW_MS = 60_000
MAX_ANSWER_MS = 600_000
MAX_STALL_MS = 3_600_000
MAX_CARRIED = 2**31 - 1   # a carried match total: a signed integer of at most 31 bits


@dataclass(frozen=True)
class PaceDelay:
    """One entry of the header's ``pace``: a pacing kind of the game and its delay (ms)."""

    FIELDS: ClassVar[tuple[F, ...]] = (F("kind", Str(MAX_PACE_KIND_BYTES), "pace kind"),
                                        F("ms", UInt(MAX_WINDOW_MS), "window delay"))
    kind: str
    ms: int


PACE_DELAY = Record(PaceDelay, PaceDelay.FIELDS, "pace entry")


@dataclass(frozen=True)
class TranscriptHeader(WireStruct):
    """The first record of a ``.sasaki`` transcript (protocol/transcript.py): everything
    an auditor needs besides the envelopes. Encoded as a msgpack array, strictly:
    ``[version, table, roster keys, hands, game, game options, proofs, dealer, pace,
    answer ms, stall ms, roster names]``, then the optional trailing ``follows, carried,
    seats`` of a follow-on table that replaced a seat (left out while at their defaults).
    ``roster_names``: each member's chosen name (:func:`name_problem`), in ``roster_keys``
    order, signed at GENESIS with the rest. ``game``
    names the rules (protocol/game.py), ``game_options`` are that game's own bytes;
    ``dealer`` is empty for the mental-poker deck, else a test dealer's seed
    (protocol/dealing.py). There is no proof parameter: the shuffle argument's are fixed
    (version 2 dropped version 1's ``shuffle rounds`` field). ``pace``: the game's pacing
    kinds, each with its delay, in the game's order (version 3; version 2 had exactly seven
    delays, Sasaki's, without their names)."""

    WHAT: ClassVar[str] = "header"
    FIELDS = (F("version", UInt()), F("table", Bin(TABLE_ID_BYTES), "table id"),
              F("roster_keys", Array(Bin(PUBLIC_KEY_BYTES), MAX_SEATS, 2), "public key"),
              F("hands", UInt(1 << 16)), F("game", Str(MAX_GAME_NAME), "game"),
              F("game_options", Bytes(MAX_GAME_OPTIONS), "game options"),
              F("proofs", Bool(), "proofs option"),
              F("dealer", Bytes(MAX_DEALER_BYTES), "dealer"),
              F("pace", Array(PACE_DELAY, MAX_PACE_KINDS), "pace entry"),
              F("answer_ms", UInt(MAX_ANSWER_MS), "answer deadline"),
              F("stall_ms", UInt(MAX_STALL_MS), "stall deadline"),
              F("roster_names", Array(Name(), MAX_SEATS, 2), "roster name"),
              # a follow-on table with a replaced seat (docs/protocol.md, "Replace seat"): optional
              F("follows", Bytes(HASH_BYTES), "follow-on link", optional=True),
              F("carried", Array(Int(MAX_CARRIED), MAX_SEATS), "carried total", optional=True),
              F("seats", Array(UInt(MAX_SEATS - 1), MAX_SEATS), "fixed seat", optional=True))
    table: bytes
    roster_keys: tuple[bytes, ...]
    hands: int
    game: str
    game_options: bytes
    proofs: bool
    dealer: bytes = b""
    pace: tuple[PaceDelay, ...] = ()
    answer_ms: int = 30_000
    stall_ms: int = 120_000
    roster_names: tuple[str, ...] = ()
    follows: bytes = b""
    """The follow-on link this table continues (empty: none); with ``carried`` and ``seats``."""
    carried: tuple[int, ...] = ()
    """Each seat's match total carried into this table (empty: zeros)."""
    seats: tuple[int, ...] = ()
    """The roster index at each seat, fixed (empty: the seating draw decides)."""
    version: int = VERSION

    def __post_init__(self) -> None:
        if not self.roster_names:  # no names given: each member is called by its key
            object.__setattr__(self, "roster_names", tuple(default_name(k) for k in self.roster_keys))

    def encode(self) -> bytes:
        data = _pack(self.to_wire())
        TranscriptHeader.decode(data)  # never emit what we would refuse
        return data

    @classmethod
    def decode(cls, data: bytes) -> TranscriptHeader:
        """The header in ``data``; :class:`VersionMismatchError` for another version's."""
        obj = _unpack_canonical(data, "transcript header")
        if type(obj) is list and obj:
            _check_version(obj[0], "this transcript")
        return cls.from_wire(obj)

    def check(self) -> None:
        if not self.game:
            raise _fail("the header's game is a name of 1..32 characters")
        kinds = [entry.kind for entry in self.pace]
        if not all(kinds) or len(set(kinds)) != len(kinds):
            raise _fail("the header's pace names each pacing kind once, each by 1..16 bytes")
        if self.answer_ms < max((entry.ms for entry in self.pace), default=0):
            raise _fail("the header's answer deadline must be at least every window delay")
        if self.stall_ms < self.answer_ms:
            raise _fail("the header's stall deadline must be at least the answer deadline")
        if len(self.roster_names) != len(self.roster_keys):
            raise _fail("the header names each roster member once")
        if len(self.follows) not in (0, HASH_BYTES):
            raise _fail(f"the header's follow-on link must be empty or {HASH_BYTES} bytes")
        if self.carried and len(self.carried) != len(self.roster_keys):
            raise _fail("the header carries one total per seat, or none")
        if self.seats and sorted(self.seats) != list(range(len(self.roster_keys))):
            raise _fail("the header's fixed seats name each roster member once, or are empty")


# ---------------------------------------------------------------------------------------
# 4. Connection handshakes (the join and the mesh's authentication) and the members
#
# The few messages two peers exchange before any game message (protocol/handshake.py
# runs them). Each is encoded as a msgpack array ``[tag, field, ...]`` with the same
# field specs and the same strictness as the payloads above.
# ---------------------------------------------------------------------------------------

MAX_HOST_BYTES = 255
PAKE_MESSAGE_BYTES = 33  # SPAKE2 over Ed25519: a side byte and a point
MAX_SEALED_BYTES = 16 * 1024
MAX_REASON_BYTES = 1024


def describe_key(key: bytes) -> str:
    """A short, stable name for a public key in messages: ``peer 1a2b3c4d``."""
    return f"peer {key[:4].hex()}"


class _Handshake(WireStruct):
    TAG: ClassVar[str]

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        cls.WHAT = f"{cls.TAG} message"


@dataclass(frozen=True)
class TableMember:
    """One member of a table: public key, the address its mesh listens on (an empty
    ``host`` in a join message means "the address you see me connecting from") and the
    fresh random ``nonce`` it contributes to the table id (protocol/chain.py,
    :func:`~p2p_sasaki.protocol.chain.table_id_of`: drawn anew for every join), and the
    ``name`` its player chose (:func:`name_problem`; left out in code, the key's short form)."""

    FIELDS: ClassVar[tuple[F, ...]] = (F("key", Bin(PUBLIC_KEY_BYTES), "public key"), F("host", Str(MAX_HOST_BYTES)),
                                        F("port", UInt(65535)), F("nonce", Bin(NONCE_BYTES), "member nonce"),
                                        F("name", Name(), "member name"))
    key: bytes
    host: str
    port: int
    nonce: bytes
    name: str = ""

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", default_name(self.key))

    def __str__(self) -> str:
        return f"{self.name} ({self.host}:{self.port})"


MEMBER = Record(TableMember, TableMember.FIELDS, "member")


@dataclass(frozen=True)
class MeshHello(_Handshake):
    """First message each way on a mesh connection: who I am, and a fresh challenge."""

    TAG: ClassVar[str] = "mesh-hello"
    FIELDS = (F("version", UInt()), F("table_id", Bin(TABLE_ID_BYTES), "table id"),
              F("key", Bin(PUBLIC_KEY_BYTES), "public key"), F("nonce", Bin(NONCE_BYTES)))
    version: int
    table_id: bytes
    key: bytes
    nonce: bytes


@dataclass(frozen=True)
class MeshProof(_Handshake):
    """Second message each way: a signature over both hellos (protocol/handshake.py)."""

    TAG: ClassVar[str] = "mesh-proof"
    FIELDS = (F("signature", Bin(SIGNATURE_BYTES)),)
    signature: bytes


@dataclass(frozen=True)
class MeshWelcome(_Handshake):
    """Last message of the mesh handshake, listener to dialer: you are authenticated."""

    TAG: ClassVar[str] = "mesh-welcome"


REFUSAL_KINDS = ("refused", "wrong-code", "table-full", "code-burnt", "version")


@dataclass(frozen=True)
class Refusal(_Handshake):
    """The sender refuses the connection, in one human sentence; it closes next.

    ``kind`` lets a program tell refusals apart: ``"refused"`` (mesh handshake),
    ``"wrong-code"``, ``"table-full"``, ``"code-burnt"``, ``"version"``."""

    TAG: ClassVar[str] = "refusal"
    FIELDS = (F("kind", Str(32, REFUSAL_KINDS), "refusal kind"), F("reason", Str(MAX_REASON_BYTES)))
    kind: str
    reason: str


@dataclass(frozen=True)
class JoinGreeting(_Handshake):
    """A table's creator greets a joiner: protocol version, nameplate, table id."""

    TAG: ClassVar[str] = "join-greeting"
    FIELDS = (F("version", UInt()), F("nameplate", Str(3)), F("table_id", Bin(TABLE_ID_BYTES), "table id"))
    version: int
    nameplate: str
    table_id: bytes


@dataclass(frozen=True)
class PakeMessage(_Handshake):
    """One SPAKE2 message."""

    TAG: ClassVar[str] = "pake"
    FIELDS = (F("data", Bin(PAKE_MESSAGE_BYTES), "SPAKE2 message"),)
    data: bytes


@dataclass(frozen=True)
class Sealed(_Handshake):
    """Bytes sealed under the key of the SPAKE2 run (the first one confirms the key)."""

    TAG: ClassVar[str] = "sealed"
    FIELDS = (F("data", Bytes(MAX_SEALED_BYTES, 16), "sealed data"),)
    data: bytes


@dataclass(frozen=True)
class JoinIdentity(_Handshake):
    """Inside a Sealed: the sender's identity key, its mesh address, nonce and name, and a
    signature binding that key to this SPAKE2 run. An empty ``host`` means "the address you
    see me connecting from"."""

    TAG: ClassVar[str] = "join-identity"
    FIELDS = (*TableMember.FIELDS, F("signature", Bin(SIGNATURE_BYTES)))
    key: bytes
    host: str
    port: int
    nonce: bytes
    name: str
    signature: bytes

    @classmethod
    def of(cls, member: TableMember, signature: bytes) -> JoinIdentity:
        return cls(member.key, member.host, member.port, member.nonce, member.name, signature)

    @property
    def member(self) -> TableMember:
        return TableMember(self.key, self.host, self.port, self.nonce, self.name)


@dataclass(frozen=True)
class TableRoster(_Handshake):
    """Every member of a table: the creator first, then the joiners in join order. Sent
    sealed to each joiner when the table is full (the join's last message). Its
    ``table_id`` is the table's fresh id, made from the invitation's id and every member's
    key and nonce (:func:`p2p_sasaki.protocol.chain.table_id_of`); each joiner checks it.

    Seating is decided later by the protocol (joint randomness); this order only
    records who joined when."""

    TAG: ClassVar[str] = "join-roster"
    FIELDS = (F("table_id", Bin(TABLE_ID_BYTES), "table id"), F("members", Array(MEMBER, MAX_SEATS, 1), "member"))
    table_id: bytes
    members: tuple[TableMember, ...]

    def check(self) -> None:
        if len({m.key for m in self.members}) != len(self.members):
            raise _fail("a roster names each member once")

    def member(self, key: bytes) -> TableMember:
        for member in self.members:
            if member.key == key:
                return member
        raise KeyError(describe_key(key))

    def __contains__(self, key: object) -> bool:
        return any(member.key == key for member in self.members)

    @property
    def keys(self) -> tuple[bytes, ...]:
        return tuple(member.key for member in self.members)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(member.name for member in self.members)


JoinRoster = TableRoster  # its name as a join message

HandshakeMessage = (MeshHello | MeshProof | MeshWelcome | Refusal | JoinGreeting | PakeMessage | Sealed | JoinIdentity
                    | TableRoster)
HANDSHAKE_TYPES: dict[str, type[_Handshake]] = {
    cls.TAG: cls
    for cls in (MeshHello, MeshProof, MeshWelcome, Refusal, JoinGreeting, PakeMessage, Sealed, JoinIdentity,
                TableRoster)
}
_VERSIONED = ("mesh-hello", "join-greeting")  # their first field is the protocol version


def encode_handshake(message: HandshakeMessage) -> bytes:
    """The wire bytes of a handshake message (refuses to emit what it would not accept).

    >>> encode_handshake(MeshWelcome())
    b'\\x91\\xacmesh-welcome'
    """
    data = _pack([message.TAG, *message.to_wire()])
    decode_handshake(data)
    return data


def decode_handshake(data: bytes) -> HandshakeMessage:
    """The message in ``data``; raises :class:`MessageError` if malformed, and
    :class:`VersionMismatchError` for a hello or greeting of another protocol version."""
    values = _unpack_canonical(data, "handshake message")
    if type(values) is not list or not values or type(values[0]) is not str or values[0] not in HANDSHAKE_TYPES:
        raise _fail("not a known handshake message")
    if values[0] in _VERSIONED and len(values) > 1:
        _check_version(values[1], "this peer")
    return HANDSHAKE_TYPES[values[0]].from_wire(values[1:])  # type: ignore[return-value]
