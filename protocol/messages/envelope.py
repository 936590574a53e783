"""The signed envelope and the body inside it (docs/protocol.md, "Messages").

  envelope = msgpack array ``[body_bytes: bin, signature: bin(64)]``
  body     = msgpack map, keys in this order: ``version`` (int), ``table`` (bin 32),
             ``hand`` (int), ``slot`` (int), ``sender`` (int), ``prev`` (bin 32),
             ``type`` (str), ``payload`` (array, per type)

The signature is Ed25519 over ``body_bytes`` exactly. A received envelope keeps its
bytes verbatim (``SignedMessage.raw``, ``.body_bytes``); nothing is ever re-encoded to be
forwarded or stored.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from p2p_sasaki.protocol.crypto import SIGNATURE_BYTES, IdentityKey, verify_signature
from p2p_sasaki.protocol.messages.payloads import PAYLOAD_TYPES, Abandon, Leave, Payload
from p2p_sasaki.protocol.messages.wire import (
    MAX_SEATS,
    PREV_BYTES,
    TABLE_ID_BYTES,
    VERSION,
    Bin,
    F,
    UInt,
    check_version,
    malformed,
    pack,
    unpack_canonical,
)

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


def seen_key(body: Body) -> tuple[Any, ...]:
    """What one signer may sign only once: ``(hand, slot, sender)`` for a slot's message, with
    the type added for an abandon or a leave notice (a seat that answered a slot may still sign
    its abandon). Two different bodies with one key are equivocation."""
    if isinstance(body.payload, (Abandon, Leave)):
        return (body.hand, body.slot, body.sender, body.type)
    return (body.hand, body.slot, body.sender)


def pack_body(body: Any, fields: tuple[F, ...]) -> bytes:
    """A body's map: ``version``, then ``fields`` of ``body`` in order, then ``type`` and
    ``payload`` (the table's body here, the board's in messages/board.py)."""
    packed: dict[str, Any] = {"version": body.version}
    packed.update({f.name: f.spec.pack(getattr(body, f.name)) for f in fields})
    packed.update({"type": body.type, "payload": body.payload.to_wire()})
    return pack(packed)


def unpack_body(data: bytes, keys: tuple[str, ...], fields: tuple[F, ...], types: Mapping[str, Any],
                what: str) -> tuple[dict[str, Any], Any]:
    """The checked ``fields`` and the payload of a body map with exactly ``keys`` in order;
    :class:`VersionMismatchError` if it is another version's."""
    obj = unpack_canonical(data, what)
    if type(obj) is dict and "version" in obj:
        check_version(obj["version"], "this message's sender")
    if type(obj) is not dict or tuple(obj) != keys:
        raise malformed(f"the {what} must be a map of " + ", ".join(keys) + " in that order")
    kind = obj["type"]
    if type(kind) is not str or kind not in types:
        raise malformed("unknown message type")
    values = {f.name: f.spec.unpack(obj[f.name], f.label or f.name) for f in fields}
    return values, types[kind].from_wire(obj["payload"])


def encode_body(body: Body) -> bytes:
    data = pack_body(body, BODY_FIELDS)
    decode_body(data)  # never emit what we would refuse
    return data


def decode_body(data: bytes) -> Body:
    """The body in ``data``; :class:`VersionMismatchError` if it is another version's."""
    values, payload = unpack_body(data, BODY_KEYS, BODY_FIELDS, PAYLOAD_TYPES, "body")
    return Body(**values, payload=payload)


def sign_envelope(body: Body, identity: IdentityKey) -> bytes:
    """Encode ``body``, sign its exact bytes and wrap both in an envelope."""
    body_bytes = encode_body(body)
    return pack([body_bytes, identity.sign(body_bytes)])


def decode_envelope(data: bytes) -> SignedMessage:
    """Parse an envelope strictly (the signature is not checked: see verify_envelope).

    An envelope of another protocol version raises :class:`VersionMismatchError` (a
    :class:`MessageError`) whose text says so, so the table can tell the person why.

    The same bytes always give the same message, and a message is immutable: the last
    :data:`DECODED_ENVELOPES` are kept by their bytes (every peer relays every first copy,
    the driver's log and a resume read them again; peers in one process share them)."""
    if type(data) is bytes:
        return _decode_kept(data)
    return _decode_envelope(data)   # refused there (not bytes; a bytearray is not a key)


def _decode_envelope(data: bytes) -> SignedMessage:
    obj = unpack_canonical(data, "envelope")
    if type(obj) is not list or len(obj) != 2:
        raise malformed("an envelope is an array of body bytes and a signature")
    body_bytes, signature = obj
    if type(body_bytes) is not bytes:
        raise malformed("the body must be bytes")
    body = decode_body(body_bytes)
    return SignedMessage(body, body_bytes, Bin(SIGNATURE_BYTES).unpack(signature, "signature"), data)


DECODED_ENVELOPES = 1024
_decode_kept = functools.lru_cache(maxsize=DECODED_ENVELOPES)(_decode_envelope)   # errors are not kept


def verify_envelope(message: SignedMessage, public_key: bytes) -> bool:
    """True iff the signature is ``public_key``'s over the exact body bytes."""
    return verify_signature(public_key, message.body_bytes, message.signature)
