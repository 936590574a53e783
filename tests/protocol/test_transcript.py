"""protocol/transcript.py: the .sasaki format; protocol/table_audit.py: audit_table, export_records."""

from __future__ import annotations

import hashlib
import struct

import pytest

from p2p_sasaki.options import TableOptions
from p2p_sasaki.records import replay
from p2p_sasaki.protocol.messages import Body, TableAction, decode_envelope, sign_envelope
from p2p_sasaki.protocol.session import LEAD_SLOT, TableConfig
from p2p_sasaki.protocol.table_audit import audit_table, export_records
from p2p_sasaki.protocol.transcript import KIND_ENVELOPE, KIND_HEADER, encode_record, read_transcript, split_records
from tests.protocol.table_helpers import Net

FAST = TableConfig(hands=1, options=TableOptions(lead_card="3H"), proofs=False)


@pytest.fixture(scope="module")
def honest():
    net = Net(seed=1, config=FAST)
    net.start()
    net.run()
    return net


def test_vector_seeded_run_digest(honest):
    """docs/protocol.md, "Table test vector": the digest of this seeded run's transcript."""
    data = honest.transcript(0)
    assert hashlib.sha256(data).hexdigest() == VECTOR_DIGEST
    assert len(data) == VECTOR_LENGTH


def test_read_transcript(honest):
    t = read_transcript(honest.transcript(0))
    assert t.header.roster_keys == tuple(k.public_key for k in honest.keys)
    assert t.header.hands == 1 and not t.header.proofs
    assert all(kind == KIND_ENVELOPE for kind, _ in t.records)
    bodies = [decode_envelope(e).body for e in t.envelopes]
    assert [(b.hand, b.slot) for b in bodies] == sorted((b.hand, b.slot) for b in bodies)


def test_audit_passes_an_honest_transcript(honest):
    audit = audit_table(honest.transcript(2))
    assert audit.ok and audit.complete
    assert audit.totals == honest.peers[0].totals
    assert len(audit.hands) == 1 and sorted(c for seat in audit.hands[0] for c in seat) == list(range(48))


def rebuild(records):
    return b"".join(encode_record(kind, data) for kind, data in records)


def envelope_index(records, pred):
    return next(i for i, (kind, data) in enumerate(records)
                if kind == KIND_ENVELOPE and pred(decode_envelope(data).body))


def test_a_flipped_byte_in_a_play_is_found(honest):
    records = split_records(honest.transcript(0))
    i = envelope_index(records, lambda b: b.type == "table/action" and b.payload.verb == "play")
    kind, data = records[i]
    records[i] = (kind, data[:-1] + bytes([data[-1] ^ 1]))  # in the signature
    audit = audit_table(rebuild(records))
    assert not audit.ok and audit.blame.seat is None and f"record {i}" in audit.blame.reason


def test_a_removed_record_blames_the_seat_that_owed_it(honest):
    records = split_records(honest.transcript(0))
    i = envelope_index(records, lambda b: b.hand == 1 and b.slot == LEAD_SLOT + 3)
    seat = decode_envelope(records[i][1]).body.sender
    audit = audit_table(rebuild(records[:i] + records[i + 1:]))
    assert (audit.blame.seat, audit.blame.hand, audit.blame.slot) == (seat, 1, LEAD_SLOT + 3)
    assert "waiting" in audit.blame.reason


def test_a_reordered_record_is_found(honest):
    records = split_records(honest.transcript(0))
    i = envelope_index(records, lambda b: b.hand == 1 and b.slot == LEAD_SLOT)
    records[i], records[i + 1] = records[i + 1], records[i]
    audit = audit_table(rebuild(records))
    assert not audit.ok and audit.blame.seat is None and "canonical order" in audit.blame.reason


def test_a_resigned_illegal_play_names_its_signer(honest):
    records = split_records(honest.transcript(0))
    i = envelope_index(records, lambda b: b.type == "table/action" and b.payload.verb == "play")
    message = decode_envelope(records[i][1])
    body = message.body
    seats = {p.my_seat: p for p in honest.peers}
    key = honest.keys[honest.peers.index(seats[body.sender])]
    forged = Body(body.table, body.hand, body.slot, body.sender, body.prev, TableAction("pass", ()))
    records[i] = (KIND_ENVELOPE, sign_envelope(forged, key))
    audit = audit_table(rebuild(records))
    assert (audit.blame.seat, audit.blame.slot) == (body.sender, body.slot)


def test_a_bad_header_is_reported():
    audit = audit_table(struct.pack(">IB", 2, KIND_HEADER) + b"\x01")
    assert not audit.ok and audit.blame.seat is None


def test_export_records_replay(honest):
    (text,) = export_records(honest.transcript(0))
    hand = replay(text)
    assert hand.is_over and hand.scores == audit_table(honest.transcript(0)).scores[0]


VECTOR_DIGEST = "e0852fa718a75901b939f3b653c1ec8308e635632c331be38dffc271c97ea8ee"
VECTOR_LENGTH = 41447


def test_a_resigned_wrong_key_names_its_signer(honest):
    """The auditor reads the deal from the key reveals before their slot: a key that explains
    no shuffle hop is blamed on the seat that signed it, at the hand's lead slot."""
    from p2p_sasaki.protocol.crypto import scalar_bytes
    from p2p_sasaki.protocol.messages import KeyReveal

    records = split_records(honest.transcript(0))
    i = envelope_index(records, lambda b: b.type == "deck/key")
    body = decode_envelope(records[i][1]).body
    seats = {p.my_seat: p for p in honest.peers}
    key = honest.keys[honest.peers.index(seats[body.sender])]
    forged = Body(body.table, body.hand, body.slot, body.sender, body.prev, KeyReveal(scalar_bytes(12345)))
    records[i] = (KIND_ENVELOPE, sign_envelope(forged, key))
    audit = audit_table(rebuild(records))
    assert (audit.blame.seat, audit.blame.hand, audit.blame.slot) == (body.sender, 1, LEAD_SLOT)
    assert "does not match its base" in audit.blame.reason


def test_a_missing_key_reveal_names_the_silent_seat(honest):
    records = split_records(honest.transcript(0))
    i = envelope_index(records, lambda b: b.type == "deck/key")
    seat = decode_envelope(records[i][1]).body.sender
    audit = audit_table(rebuild(records[:i] + records[i + 1:]))
    assert (audit.blame.seat, audit.blame.hand) == (seat, 1)
    assert "never revealed its key" in audit.blame.reason


def test_a_damaged_tail_still_verifies_the_records_before_it():
    """A crash in the middle of a write leaves a partial last record: the audit checks every
    complete record before it (here a whole first hand) and names the damage, nobody blamed."""
    net = Net(seed=2, config=TableConfig(hands=2, options=TableOptions(lead_card="3H"), proofs=False))
    net.start()
    net.run()
    data = net.transcript(0)
    records = split_records(data)
    second_hand = envelope_index(records, lambda b: b.hand == 2)
    cut = len(rebuild(records[:second_hand + 3]))
    audit = audit_table(data[:cut + 7])  # 7 bytes of the next record: a partial write
    assert not audit.ok and audit.blame.seat is None and audit.blame.hand == 2
    assert audit.blame.reason == f"a record at byte {cut} has an impossible length; the records before it verify"
    assert len(audit.hands) == 1 and audit.scores[0] == audit_table(data).scores[0]


def test_a_transcript_of_another_version_is_refused_in_one_sentence(honest):
    import msgpack

    from p2p_sasaki.protocol.messages import VERSION
    from p2p_sasaki.protocol.transcript import TranscriptError

    fields = read_transcript(honest.transcript(0)).header.to_wire()
    fields[0] = VERSION + 5  # a header of another release (ours would refuse to encode it)
    other = encode_record(KIND_HEADER, msgpack.packb(fields))
    with pytest.raises(TranscriptError, match=f"this transcript speaks protocol version {VERSION + 5}, we speak "
                                              f"version {VERSION}"):
        read_transcript(other)
    audit = audit_table(other)
    assert not audit.ok and audit.blame.seat is None and f"version {VERSION + 5}" in audit.blame.reason
