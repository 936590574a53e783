"""The project's only use of ``msgpack``: every message's bytes are defined here."""

from __future__ import annotations

# ---------------------------------------------------------------------------
# net: connection handshakes (used by protocol/net; branch `net`)
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


# --------------------------------------------------------------- end of net ---
