"""protocol/messages/ (wire kit, payloads, envelope, header): exact bytes, strict decoding, signed envelopes."""

from __future__ import annotations

import dataclasses

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p_sasaki.protocol.crypto import IdentityKey, ShuffleArgument
from p2p_sasaki.protocol.messages import (
    MAX_ENVELOPE_BYTES,
    VERSION,
    Body,
    CardOpen,
    DeckCommit,
    DeckNonce,
    KeyReveal,
    MessageError,
    ShuffleHop,
    ShuffleProof,
    StripRound,
    TranscriptHeader,
    VersionMismatchError,
    decode_body,
    decode_envelope,
    encode_body,
    sign_envelope,
    verify_envelope,
)

TABLE = bytes(range(32))
KEY = IdentityKey(bytes(range(32)))
P = bytes(range(100, 132))  # 32 bytes standing in for a point (messages do not check curves)

SAMPLES = [
    DeckCommit(bytes(32)),
    DeckNonce(b"\x07" * 32),
    ShuffleHop((P, P[::-1]), P),
    ShuffleProof(ShuffleArgument((P,) * 7, (bytes(32),) * 5)),  # the argument for 2 cards
    ShuffleProof(ShuffleArgument((P,) * 7, (P,) * 201)),  # for 100 cards
    StripRound(2, (P,), (bytes(64),)),
    CardOpen(5, 17, bytes(64)),
    KeyReveal(b"\x01" * 32),
]


def body(payload, **changes) -> Body:
    fields = dict(table=TABLE, hand=3, slot=9, sender=2, prev=b"\xaa" * 32, payload=payload)
    fields.update(changes)
    return Body(**fields)


# The exact envelope of a commit (docs/protocol.md, "Test vectors").
COMMIT_ENVELOPE = (
    "92c4a988a776657273696f6e03a57461626c65c420000102030405060708090a0b0c0d0e0f101112131415161718191a"
    "1b1c1d1e1fa468616e6403a4736c6f7409a673656e64657202a470726576c420aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa474797065ab6465636b2f636f6d6d6974a77061796c6f616491c42000000000"
    "00000000000000000000000000000000000000000000000000000000c440b53ada4f3baf59e3c3e405b4a14520347428"
    "6c72df4fa806fba46d66b3b18cfd07ed34a74194280a7e94f6f73d050c8984cad7f080dafa9c3749535810bbb10d"
)


def test_commit_envelope_exact_bytes():
    envelope = sign_envelope(body(DeckCommit(bytes(32))), KEY)
    assert envelope.hex() == COMMIT_ENVELOPE
    body_bytes = encode_body(body(DeckCommit(bytes(32))))
    assert body_bytes[:9] == bytes([0x88, 0xA7]) + b"version"
    assert msgpack.unpackb(envelope) == [body_bytes, KEY.sign(body_bytes)]


@pytest.mark.parametrize("payload", SAMPLES, ids=lambda p: p.TYPE)
def test_round_trip(payload):
    envelope = sign_envelope(body(payload), KEY)
    message = decode_envelope(envelope)
    assert message.body == body(payload) and message.raw == envelope
    assert message.body.type == payload.TYPE
    assert verify_envelope(message, KEY.public_key)
    assert not verify_envelope(message, IdentityKey(bytes(32)).public_key)


@pytest.mark.parametrize("elements, scalars", [(6, 5), (8, 5), (7, 4), (7, 6), (7, 3), (7, 0)])
def test_a_shuffle_argument_has_7_elements_and_2n_plus_1_scalars(elements, scalars):
    wire = [[[P] * elements, [bytes(32)] * scalars]]  # the payload: [argument], argument = [elements, scalars]
    with pytest.raises(MessageError):
        ShuffleProof.from_wire(wire)
    with pytest.raises(MessageError):
        ShuffleProof.from_wire([[[P] * 7, [bytes(32)] * 4 + [bytes(31)]]])
    with pytest.raises(MessageError):
        ShuffleProof.from_wire([[P] * 7, [bytes(32)] * 7])  # not wrapped in its record
    assert ShuffleProof.from_wire([[[P] * 7, [bytes(32)] * 7]]).argument.n == 3


def _raw_body(**changes):
    fields = {"version": VERSION, "table": TABLE, "hand": 3, "slot": 9, "sender": 2, "prev": b"\xaa" * 32,
              "type": "deck/commit", "payload": [bytes(32)]}
    fields.update(changes)
    return msgpack.packb(fields, use_bin_type=True)


BODY_ORDER = "the body must be a map of version, table, hand, slot, sender, prev, type, payload in that order"


@pytest.mark.parametrize(
    "data, reason",
    [
        (_raw_body(version=True), f"the version must be {VERSION}"),
        (_raw_body(hand=True), "hand number must be an integer in 0..4294967295"),
        (_raw_body(hand=-1), "hand number must be an integer in 0..4294967295"),
        (_raw_body(sender=16), "sender must be an integer in 0..15"),
        (_raw_body(table=TABLE[:31]), "table id must be 32 bytes"),
        (_raw_body(table="x" * 32), "table id must be 32 bytes"),
        (_raw_body(prev=1.5), "prev must be 32 bytes"),
        (_raw_body(type="deck/deal"), "unknown message type"),
        (_raw_body(payload=[bytes(31)]), "commitment must be 32 bytes"),
        (_raw_body(payload=[bytes(32), 1]), "the deck/commit payload must be an array of 1 fields"),
        (_raw_body(extra=1), BODY_ORDER),
        (msgpack.packb({"table": TABLE, "version": VERSION}), BODY_ORDER),
        (_raw_body().replace(b"\xa4hand\x03", b"\xa4hand\xcc\x03"), "the body is not canonically encoded"),
        (_raw_body() + b"\x00", "the body is not valid msgpack"),
        (b"\xc1", "the body is not valid msgpack"),
        (_raw_body(prev=msgpack.ExtType(1, b"x" * 32)), "prev must be 32 bytes"),
        (_raw_body(hand=1.0), "hand number must be an integer in 0..4294967295"),
    ],
)
def test_strict_body_decoding(data, reason):
    with pytest.raises(MessageError) as info:
        decode_body(data)
    assert str(info.value) == "malformed message: " + reason


@pytest.mark.parametrize(
    "payload",
    [
        ["deck/shuffle", [[], P]],
        ["deck/shuffle", [[P[:31]], P]],
        ["deck/strip", [1, [P, P], [bytes(64), bytes(64)]]],  # one batched proof, never one per value
        ["deck/strip", [1, [P], []]],
        ["deck/strip", [99, [P], [bytes(64)]]],
        ["deck/open", [1, 2, bytes(63)]],
        ["deck/open", [1, 5000, bytes(64)]],
        ["deck/shuffle-proof", [[bytes(32)], [[bytes(32), b"\x00\x00"]]]],
        ["deck/shuffle-proof", [[bytes(32), bytes(32)], [[bytes(32), b"\x01\x00"]]]],
        ["deck/shuffle-proof", [[bytes(32)] * 2, [[bytes(32), b"\x01\x00"], [bytes(32), b"\x00"]]]],
        ["deck/key", [bytes(33)]],
    ],
)
def test_strict_payload_decoding(payload):
    with pytest.raises(MessageError):
        decode_body(_raw_body(type=payload[0], payload=payload[1]))


def test_strict_envelope_decoding():
    good = sign_envelope(body(DeckCommit(bytes(32))), KEY)
    body_bytes, signature = msgpack.unpackb(good)
    for bad in [
        msgpack.packb([body_bytes]),
        msgpack.packb([body_bytes, signature, b""]),
        msgpack.packb([body_bytes, signature[:63]]),
        msgpack.packb(["text", signature]),
        msgpack.packb({"b": body_bytes}),
        b"\x00" * (MAX_ENVELOPE_BYTES + 1),
        "not bytes",
    ]:
        with pytest.raises(MessageError):
            decode_envelope(bad)


def test_the_same_bytes_decode_to_the_same_immutable_message_and_bad_ones_are_refused_every_time():
    """decode_envelope keeps the last messages by their bytes (peers relay every first copy)."""
    good = sign_envelope(body(StripRound(2, (P,), (bytes(64),))), KEY)
    message = decode_envelope(good)
    assert decode_envelope(bytes(bytearray(good))) is message and message.raw == good
    with pytest.raises(dataclasses.FrozenInstanceError):
        message.body.payload.values = ()  # type: ignore[misc]
    for bad in [good[:-1], bytearray(good)]:   # a bytearray: not bytes, never a key
        for _ in range(2):
            with pytest.raises(MessageError):
                decode_envelope(bad)  # type: ignore[arg-type]


def test_encoding_refuses_what_decoding_would_refuse():
    with pytest.raises(MessageError):
        encode_body(body(DeckCommit(bytes(31))))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(SAMPLES), st.data())
def test_tampered_envelopes_are_refused_or_fail_verification(payload, data):
    envelope = sign_envelope(body(payload), KEY)
    index = data.draw(st.integers(0, len(envelope) - 1))
    xor = data.draw(st.integers(1, 255))
    tampered = envelope[:index] + bytes([envelope[index] ^ xor]) + envelope[index + 1 :]
    try:
        message = decode_envelope(tampered)
    except MessageError:
        return
    assert not verify_envelope(message, KEY.public_key)


def test_another_version_is_named_not_malformed():
    for data in (_raw_body(version=VERSION + 1), msgpack.packb({"version": VERSION + 1, "whatever": 1})):
        with pytest.raises(VersionMismatchError) as info:
            decode_body(data)
        assert info.value.version == VERSION + 1
        assert str(info.value) == (f"this message's sender speaks protocol version {VERSION + 1}, we speak version "
                                   f"{VERSION}; both need the same p2p-sasaki release")


def test_a_session_reports_an_envelope_of_another_version_once():
    from p2p_sasaki.protocol.sasaki_game import SasakiGame
    from p2p_sasaki.protocol.session import TableConfig, TableSession, VersionMismatch
    from p2p_sasaki.sasaki.options import TableOptions

    keys = [IdentityKey(bytes([i]) * 32) for i in range(1, 5)]
    session = TableSession(keys[0], [k.public_key for k in keys], TABLE,
                           TableConfig(SasakiGame(TableOptions(lead_card="3H"))))
    session.start()
    session.take_events()
    old_body = _raw_body(version=VERSION - 1)
    old_envelope = msgpack.packb([old_body, keys[1].sign(old_body)])
    session.receive(old_envelope)
    session.receive(old_envelope)
    reports = [e for e in session.take_events() if isinstance(e, VersionMismatch)]
    assert reports == [VersionMismatch(VERSION - 1, f"this message's sender speaks protocol version {VERSION - 1}, "
                                                    f"we speak version {VERSION}; both need the same p2p-sasaki "
                                                    "release")]


def test_a_strip_round_carries_exactly_one_batched_proof():
    for proofs in ([], [bytes(64)] * 2):
        with pytest.raises(MessageError):
            StripRound.from_wire([2, [P, P], proofs])
    assert StripRound.from_wire([2, [P, P], [bytes(64)]]).proofs == (bytes(64),)


# -- the header's optional trailing fields (docs/protocol.md, "Replace seat") ---------------


def _replaced_header():
    import dataclasses

    from p2p_sasaki.protocol.config import TableConfig, header_of
    from p2p_sasaki.protocol.sasaki_game import SasakiGame
    from p2p_sasaki.sasaki.options import TableOptions

    keys = [IdentityKey(bytes([i]) * 32).public_key for i in range(1, 5)]
    config = TableConfig(hands=2, game=SasakiGame(TableOptions(lead_card="3S")), proofs=False,
                         follows=bytes(range(100, 132)),
                         carried=(5, -3, 0, -2), seats=(2, 0, 3, 1))
    header = header_of(bytes(range(32)), keys, config, ("Mina", "Jun", "Bot", "Leo"))
    return header, dataclasses.replace


def test_vector_header_with_follows_carried_and_seats():
    import hashlib

    header, _ = _replaced_header()
    data = header.encode()
    assert len(data) == 313 and data[0] == 0x9f     # an array of 15
    assert hashlib.sha256(data).hexdigest() == "9f5849308af9127f91e17688c1da36d94f55b299328b8807601aabef864e74ce"
    # ... stall_ms, roster_names, follows (bin 32), carried [5, -3, 0, -2], seats [2, 0, 3, 1]
    assert data.endswith(bytes.fromhex("94a44d696e61a34a756ea3426f74a34c656fc420" + bytes(range(100, 132)).hex()
                                       + "9405fd00fe" + "9402000301"))
    assert TranscriptHeader.decode(data) == header


def test_vector_header_with_an_open_bot():
    """The same header with the open bot (docs/protocol.md, "Replace seat"): the bot at roster
    index 2, run by roster index 0 (the member at the lowest other seat)."""
    import hashlib

    from p2p_sasaki.protocol.messages import OpenBot

    header, replace = _replaced_header()
    data = replace(header, bots=(OpenBot(2, 0),)).encode()
    assert len(data) == 319 and data[:3] == bytes.fromhex("dc0010")     # an array of 16 (array 16)
    assert hashlib.sha256(data).hexdigest() == "e067cc6ae3ae0fa8d8ee9e52ebc3e9172c7c1c56bb7f0cd56f7f550c48937af3"
    assert data.endswith(bytes.fromhex("9402000301" + "91920200"))   # seats, then bots [[2, 0]]
    assert TranscriptHeader.decode(data).bots == (OpenBot(2, 0),)


def test_optional_header_fields_at_their_defaults_are_left_out_and_old_headers_keep_their_bytes():
    header, replace = _replaced_header()
    plain = replace(header, follows=b"", carried=(), seats=())
    data = plain.encode()
    assert data[0] == 0x9c and msgpack.unpackb(data) == plain.to_wire() and len(plain.to_wire()) == 12
    # only the trailing defaults are left out: an empty follows before carried stays
    assert msgpack.unpackb(replace(header, follows=b"", seats=()).encode())[12:] == [b"", [5, -3, 0, -2]]
    wire = plain.to_wire()
    for trailing in ([b""], [b"", []], [b"", [], []], [b"", [], [], []]):   # a default written out: not canonical
        with pytest.raises(MessageError, match="optional field at its default"):
            TranscriptHeader.decode(msgpack.packb(wire + trailing, use_bin_type=True))
    with pytest.raises(MessageError, match="12..16 fields"):
        TranscriptHeader.decode(msgpack.packb(wire + [b"", [], [], [], 1], use_bin_type=True))


@pytest.mark.parametrize("change, reason", [
    ({"follows": b"x" * 31}, "follow-on link must be empty or 32 bytes"),
    ({"carried": (1, 2, 3)}, "one total per seat"),
    ({"seats": (0, 1, 2, 2)}, "fixed seats name each roster member once"),
    ({"carried": (2**31, 0, 0, 0)}, "carried total must be an integer"),
])
def test_bad_optional_header_fields_are_refused(change, reason):
    header, replace = _replaced_header()
    data = msgpack.packb(replace(header, **change).to_wire(), use_bin_type=True)
    with pytest.raises(MessageError, match=reason):
        TranscriptHeader.decode(data)
