"""The net section of protocol/messages.py: handshake messages round-trip, malformed bytes are refused."""

from __future__ import annotations

import msgpack
import pytest

from p2p_sasaki.protocol.messages import (
    HandshakeDecodeError,
    JoinGreeting,
    JoinIdentity,
    JoinRoster,
    MeshHello,
    MeshProof,
    MeshWelcome,
    PakeMessage,
    Refusal,
    RosterMember,
    Sealed,
    decode_handshake,
    encode_handshake,
)

EXAMPLES = [
    MeshHello(1, b"t" * 16, b"k" * 32, b"n" * 32),
    MeshProof(b"s" * 64),
    MeshWelcome(),
    Refusal("wrong-code", "wrong code"),
    JoinGreeting(1, "7", b"t" * 16),
    PakeMessage(b"p" * 33),
    Sealed(b"x" * 50),
    JoinIdentity(b"k" * 32, "", 40000, b"s" * 64),
    JoinRoster(b"t" * 16, (RosterMember(b"a" * 32, "", 1), RosterMember(b"b" * 32, "10.0.0.2", 2))),
]


@pytest.mark.parametrize("message", EXAMPLES, ids=lambda m: m.TAG)
def test_round_trip(message):
    assert decode_handshake(encode_handshake(message)) == message


def test_exact_bytes_are_a_msgpack_array():
    assert encode_handshake(PakeMessage(b"\x01\x02")) == b"\x92\xa4pake\xc4\x02\x01\x02"
    assert encode_handshake(MeshWelcome()) == b"\x91\xacmesh-welcome"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\xc1", "not msgpack"),
        (msgpack.packb({"pake": b"x"}), "not a known handshake message"),
        (msgpack.packb(["nope", b"x"]), "not a known handshake message"),
        (msgpack.packb(["pake"]), "pake has 0 fields, expected 1"),
        (msgpack.packb(["pake", "text"]), r"pake.data is not bytes"),
        (msgpack.packb(["join-greeting", True, "7", b"t"]), "join-greeting.version is not int"),
        (msgpack.packb(["join-roster", b"t", [[b"k", "h"]]]), "malformed member"),
        (msgpack.packb(["pake", b"x"]) + b"\x00", "not msgpack"),
    ],
)
def test_malformed_is_refused(data, message):
    with pytest.raises(HandshakeDecodeError, match=message):
        decode_handshake(data)
