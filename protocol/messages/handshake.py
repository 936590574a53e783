"""Connection handshakes (the join and the mesh's authentication) and the table's members.

The few messages two peers exchange before any game message (protocol/handshake.py
runs them). Each is encoded as a msgpack array ``[tag, field, ...]`` with the same
field specs and the same strictness as the payloads (protocol/messages/payloads.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from p2p_sasaki.protocol.crypto import PUBLIC_KEY_BYTES, SIGNATURE_BYTES
from p2p_sasaki.protocol.messages.names import Name, default_name, describe_key
from p2p_sasaki.protocol.messages.wire import (
    NONCE_BYTES,
    TABLE_ID_BYTES,
    Array,
    Bin,
    Bytes,
    F,
    Record,
    Str,
    UInt,
    WireStruct,
    check_version,
    malformed,
    pack,
    unpack_canonical,
)

MAX_HOST_BYTES = 255
PAKE_MESSAGE_BYTES = 33  # SPAKE2 over Ed25519: a side byte and a point
MAX_JOIN_MEMBERS = 255
"""The ``join-roster``'s wire limit: a table's join takes at most ``MAX_SEATS`` of them
(protocol/handshake.py, ``max_members``), a tournament's up to this (its own
``tournament-roster`` names at most 255 players as well)."""
MAX_SEALED_BYTES = 128 * 1024
"""Enough for a ``join-roster`` of ``MAX_JOIN_MEMBERS`` members with the longest hosts and
names (about 109 KB), sealed."""
MAX_REASON_BYTES = 1024


class MessageStruct(WireStruct):
    """A message sent outside a signed envelope, the handshake's (here) or the tournament's
    (messages/tournament.py): its ``TAG`` names it on the wire and in every refusal."""

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
class MeshHello(MessageStruct):
    """First message each way on a mesh connection: who I am, and a fresh challenge."""

    TAG: ClassVar[str] = "mesh-hello"
    FIELDS = (F("version", UInt()), F("table_id", Bin(TABLE_ID_BYTES), "table id"),
              F("key", Bin(PUBLIC_KEY_BYTES), "public key"), F("nonce", Bin(NONCE_BYTES)))
    version: int
    table_id: bytes
    key: bytes
    nonce: bytes


@dataclass(frozen=True)
class MeshProof(MessageStruct):
    """Second message each way: a signature over both hellos (protocol/handshake.py)."""

    TAG: ClassVar[str] = "mesh-proof"
    FIELDS = (F("signature", Bin(SIGNATURE_BYTES)),)
    signature: bytes


@dataclass(frozen=True)
class MeshWelcome(MessageStruct):
    """Last message of the mesh handshake, listener to dialer: you are authenticated."""

    TAG: ClassVar[str] = "mesh-welcome"


REFUSAL_KINDS = ("refused", "wrong-code", "table-full", "code-burnt", "version")


@dataclass(frozen=True)
class Refusal(MessageStruct):
    """The sender refuses the connection, in one human sentence; it closes next.

    ``kind`` lets a program tell refusals apart: ``"refused"`` (mesh handshake),
    ``"wrong-code"``, ``"table-full"``, ``"code-burnt"``, ``"version"``."""

    TAG: ClassVar[str] = "refusal"
    FIELDS = (F("kind", Str(32, REFUSAL_KINDS), "refusal kind"), F("reason", Str(MAX_REASON_BYTES)))
    kind: str
    reason: str


@dataclass(frozen=True)
class JoinGreeting(MessageStruct):
    """A table's creator greets a joiner: protocol version, nameplate, table id."""

    TAG: ClassVar[str] = "join-greeting"
    FIELDS = (F("version", UInt()), F("nameplate", Str(3)), F("table_id", Bin(TABLE_ID_BYTES), "table id"))
    version: int
    nameplate: str
    table_id: bytes


@dataclass(frozen=True)
class PakeMessage(MessageStruct):
    """One SPAKE2 message."""

    TAG: ClassVar[str] = "pake"
    FIELDS = (F("data", Bin(PAKE_MESSAGE_BYTES), "SPAKE2 message"),)
    data: bytes


@dataclass(frozen=True)
class Sealed(MessageStruct):
    """Bytes sealed under the key of the SPAKE2 run (the first one confirms the key)."""

    TAG: ClassVar[str] = "sealed"
    FIELDS = (F("data", Bytes(MAX_SEALED_BYTES, 16), "sealed data"),)
    data: bytes


@dataclass(frozen=True)
class JoinIdentity(MessageStruct):
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
class TableRoster(MessageStruct):
    """Every member of a table: the creator first, then the joiners in join order. Sent
    sealed to each joiner when the table is full (the join's last message). Its
    ``table_id`` is the table's fresh id, made from the invitation's id and every member's
    key and nonce (:func:`p2p_sasaki.protocol.chain.table_id_of`); each joiner checks it.

    Seating is decided later by the protocol (joint randomness); this order only
    records who joined when. The wire takes up to ``MAX_JOIN_MEMBERS`` members (a
    tournament's join); a table's join takes at most ``MAX_SEATS`` (protocol/handshake.py,
    ``max_members``)."""

    TAG: ClassVar[str] = "join-roster"
    FIELDS = (F("table_id", Bin(TABLE_ID_BYTES), "table id"),
              F("members", Array(MEMBER, MAX_JOIN_MEMBERS, 1), "member"))
    table_id: bytes
    members: tuple[TableMember, ...]

    def check(self) -> None:
        if len({m.key for m in self.members}) != len(self.members):
            raise malformed("a roster names each member once")

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
HANDSHAKE_TYPES: dict[str, type[MessageStruct]] = {
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
    data = pack([message.TAG, *message.to_wire()])
    decode_handshake(data)
    return data


def decode_handshake(data: bytes) -> HandshakeMessage:
    """The message in ``data``; raises :class:`MessageError` if malformed, and
    :class:`VersionMismatchError` for a hello or greeting of another protocol version."""
    values = unpack_canonical(data, "handshake message")
    if type(values) is not list or not values or type(values[0]) is not str or values[0] not in HANDSHAKE_TYPES:
        raise malformed("not a known handshake message")
    if values[0] in _VERSIONED and len(values) > 1:
        check_version(values[1], "this peer")
    return HANDSHAKE_TYPES[values[0]].from_wire(values[1:])  # type: ignore[return-value]
