"""protocol/messages/handshake.py: the same declarative codec as the
payloads: round trips, exact bytes, strict decoding with one error type."""

from __future__ import annotations

import msgpack
import pytest

from p2p_sasaki.protocol.messages import (
    PROTOCOL_VERSION,
    JoinGreeting,
    JoinIdentity,
    MeshHello,
    MeshProof,
    MeshWelcome,
    MessageError,
    PakeMessage,
    Refusal,
    Sealed,
    TableMember,
    TableRoster,
    VersionMismatchError,
    decode_handshake,
    encode_handshake,
)

MEMBER_NONCE = bytes(range(200, 232))  # a member's join nonce (fresh in real joins)

T = b"t" * 32
EXAMPLES = [
    MeshHello(PROTOCOL_VERSION, T, b"k" * 32, b"n" * 32),
    MeshProof(b"s" * 64),
    MeshWelcome(),
    Refusal("wrong-code", "wrong code"),
    JoinGreeting(PROTOCOL_VERSION, "7", T),
    PakeMessage(b"p" * 33),
    Sealed(b"x" * 50),
    JoinIdentity(b"k" * 32, "", 40000, b"n" * 32, "Mina", b"s" * 64),
    TableRoster(T, (TableMember(b"a" * 32, "", 1, MEMBER_NONCE), TableMember(b"b" * 32, "10.0.0.2", 2, MEMBER_NONCE))),
]


@pytest.mark.parametrize("message", EXAMPLES, ids=lambda m: m.TAG)
def test_round_trip(message):
    assert decode_handshake(encode_handshake(message)) == message


def test_exact_bytes_are_a_msgpack_array():
    assert encode_handshake(PakeMessage(bytes(33))) == b"\x92\xa4pake\xc4\x21" + bytes(33)
    assert encode_handshake(MeshWelcome()) == b"\x91\xacmesh-welcome"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\xc1", "the handshake message is not valid msgpack"),
        (msgpack.packb({"pake": b"x"}), "not a known handshake message"),
        (msgpack.packb(["nope", b"x"]), "not a known handshake message"),
        (msgpack.packb(["pake"]), "the pake message must be an array of 1 fields"),
        (msgpack.packb(["pake", "text"]), "SPAKE2 message must be 33 bytes"),
        (msgpack.packb(["pake", b"x" * 32]), "SPAKE2 message must be 33 bytes"),
        (msgpack.packb(["join-greeting", True, "7", T]), f"the version must be {PROTOCOL_VERSION}"),
        (msgpack.packb(["join-greeting", PROTOCOL_VERSION, "1234", T]), "nameplate must be text of at most 3 bytes"),
        (msgpack.packb(["join-greeting", PROTOCOL_VERSION, "7", T[:16]]), "table id must be 32 bytes"),
        (msgpack.packb(["join-roster", T, [[b"k" * 32, "h"]]]), "the member must be an array of 5 fields"),
        (msgpack.packb(["join-roster", T, []]), "members must be an array of 1..255 items"),
        (msgpack.packb(["join-roster", T, [[b"k" * 32, "h", 1, b"n" * 32, "Mina"]] * 2]),
         "a roster names each member once"),
        (msgpack.packb(["join-identity", b"k" * 32, "", 70000, b"n" * 32, "Mina", b"s" * 64]),
         "port must be an integer in 0..65535"),
        (msgpack.packb(["join-identity", b"k" * 32, "", 7, b"n" * 32, "", b"s" * 64]),
         "member name: a name is 1 to 24 characters"),
        (msgpack.packb(["join-identity", b"k" * 32, "", 7, b"n" * 32, "M" * 25, b"s" * 64]),
         "member name: a name is 1 to 24 characters"),
        (msgpack.packb(["join-identity", b"k" * 32, "", 7, b"n" * 32, "Mi\x1b[2Jna", b"s" * 64]),
         "member name: a name cannot hold control or invisible characters"),
        (msgpack.packb(["join-identity", b"k" * 32, "", 7, b"n" * 32, "Mi\u202ena", b"s" * 64]),
         "member name: a name cannot hold control or invisible characters"),
        (msgpack.packb(["join-identity", b"k" * 32, "", 7, b"n" * 32, " Mina", b"s" * 64]),
         "member name: a name cannot start or end with a space"),
        (msgpack.packb(["join-identity", b"k" * 32, "", 7, b"n" * 32, 7, b"s" * 64]), "member name must be text"),
        (msgpack.packb(["refusal", "sulk", "no"]), "unknown refusal kind"),
        (msgpack.packb(["pake", b"x" * 33]) + b"\x00", "the handshake message is not valid msgpack"),
        (msgpack.packb(["sealed", b"x" * 20]).replace(b"\xc4\x14", b"\xc5\x00\x14"), "not canonically encoded"),
    ],
)
def test_malformed_is_refused(data, message):
    with pytest.raises(MessageError, match=message):
        decode_handshake(data)


def test_another_version_is_named():
    newer = PROTOCOL_VERSION + 1
    for data in (msgpack.packb(["mesh-hello", newer, b"t", b"k"]), msgpack.packb(["join-greeting", 7, "7"])):
        with pytest.raises(VersionMismatchError) as info:
            decode_handshake(data)
        assert info.value.version in (PROTOCOL_VERSION + 1, 7)
        assert str(info.value).startswith(f"this peer speaks protocol version {info.value.version}, we speak version")


def test_encoding_refuses_what_decoding_would_refuse():
    with pytest.raises(MessageError):
        encode_handshake(PakeMessage(b"p" * 32))
