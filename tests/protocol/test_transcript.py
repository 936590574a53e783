"""protocol/transcript.py: the .sasaki format; protocol/table_audit.py: audit_table, export_records."""

from __future__ import annotations

import hashlib
import struct

import pytest

from p2p_sasaki.protocol.messages import Body, TableAction, decode_envelope, sign_envelope
from p2p_sasaki.protocol.sasaki_game import LEAD_SLOT, SasakiGame
from p2p_sasaki.protocol.session import TableConfig
from p2p_sasaki.protocol.table_audit import AuditStatus, StopsAt, audit_table, export_records
from p2p_sasaki.protocol.transcript import KIND_ENVELOPE, KIND_HEADER, encode_record, read_transcript, split_records
from p2p_sasaki.sasaki.options import TableOptions
from p2p_sasaki.sasaki.records import replay
from tests.protocol.table_helpers import Net

# Its tests share the played tables (honest, two_hands), made once per process: one worker runs them all.
pytestmark = pytest.mark.xdist_group("transcript")


FAST = TableConfig(hands=1, game=SasakiGame(TableOptions(lead_card="3H")), proofs=False)


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
    assert audit.status is AuditStatus.DAMAGED and audit.stops_at.record == i


def test_a_removed_record_is_damage_not_the_fault_of_the_seat_that_owed_it(honest):
    """issue 12: whoever holds a file must not choose a verdict against a seat by removing
    the seat's record: the next record does not chain, nobody is named."""
    records = split_records(honest.transcript(0))
    i = envelope_index(records, lambda b: b.hand == 1 and b.slot == LEAD_SLOT + 3)
    audit = audit_table(rebuild(records[:i] + records[i + 1:]))
    assert audit.status is AuditStatus.DAMAGED and audit.blame.seat is None
    # the next record either does not chain, or (a later slot held for its turn) stands where the
    # removed one should be
    assert ("does not chain" in audit.blame.reason or "missing" in audit.blame.reason)
    assert audit.stops_at.record in (i, i + 1)


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
    assert not audit.ok and audit.blame.seat is None and audit.status is AuditStatus.UNREADABLE


def test_the_header_carries_the_roster_names_as_its_twelfth_field(honest):
    """The names travel after ``stall_ms``, one per key in roster order, each checked."""
    import dataclasses

    import msgpack

    from p2p_sasaki.protocol.messages import MessageError, TranscriptHeader

    header = read_transcript(honest.transcript(0)).header
    assert header.roster_names == tuple(f"peer {k[:4].hex()}" for k in header.roster_keys)   # none given
    named = dataclasses.replace(header, roster_names=("Mina", "Jun", "Bot 3", "Ünal Ö"))
    wire = msgpack.unpackb(named.encode())
    assert len(wire) == 12 and wire[10] == header.stall_ms and wire[11] == ["Mina", "Jun", "Bot 3", "Ünal Ö"]
    assert TranscriptHeader.decode(named.encode()) == named
    for names, why in ((["Mina", "Jun", "Bot 3"], "the header names each roster member once"),
                       (["Mina", "Jun", "Bot 3", ""], "roster name: a name is 1 to 24 characters"),
                       (["Mina", "Jun", "Bot 3", "x" * 25], "roster name: a name is 1 to 24 characters"),
                       (["Mina", "Jun", "Bot 3", "\x1b]0;pwned\x07"], "control or invisible"),
                       (["Mina", "Jun", "Bot 3", "Jun "], "cannot start or end with a space"),
                       (["Mina", "Jun", "Bot 3", b"Leo"], "roster name must be text")):
        with pytest.raises(MessageError, match=why):
            TranscriptHeader.decode(msgpack.packb(wire[:11] + [names], use_bin_type=True))
    with pytest.raises(MessageError, match="array of 12..16 fields"):
        TranscriptHeader.decode(msgpack.packb(wire[:11], use_bin_type=True))


def test_export_records_replay(honest):
    (text,) = export_records(honest.transcript(0))
    hand = replay(text)
    assert hand.is_over and hand.scores == audit_table(honest.transcript(0)).scores[0]


VECTOR_DIGEST = "b34722c59c96dcb3ac118efec571b57f6dd93badfb600d11aa9b6916d625ba37"
VECTOR_LENGTH = 41550


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


def test_a_removed_key_reveal_is_damage_and_a_cut_one_is_incomplete(honest):
    """issue 12: the audit used to blame seat 0 ("never revealed its key") for any cut after
    the lead slot. A key removed from the middle of the KEYS slot is damage; a file that ends
    inside the KEYS slot is incomplete, waiting for the seats whose keys are not there."""
    records = split_records(honest.transcript(0))
    i = envelope_index(records, lambda b: b.type == "deck/key")
    audit = audit_table(rebuild(records[:i] + records[i + 1:]))
    assert audit.status is AuditStatus.DAMAGED and audit.blame.seat is None and "seat 0" in audit.blame.reason
    keys_slot = decode_envelope(records[i][1]).body.slot
    cut = audit_table(rebuild(records[:i + 2]))
    assert cut.status is AuditStatus.INCOMPLETE and cut.blame is None and cut.ok and not cut.complete
    assert cut.stops_at == StopsAt(1, keys_slot, i + 2) and cut.waiting_for == (2, 3)


def test_a_damaged_tail_still_verifies_the_records_before_it(two_hands):
    """A crash in the middle of a write leaves a partial last record: the audit checks every
    complete record before it (here a whole first hand) and names the damage, nobody blamed."""
    data = two_hands
    records = split_records(data)
    second_hand = envelope_index(records, lambda b: b.hand == 2)
    cut = len(rebuild(records[:second_hand + 3]))
    audit = audit_table(data[:cut + 7])  # 7 bytes of the next record: a partial write
    assert audit.status is AuditStatus.INCOMPLETE and audit.blame is None
    assert audit.stops_at.hand == 2 and audit.stops_at.record == second_hand + 3
    assert audit.note is not None and f"a torn last record at byte {cut}" in audit.note
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
    assert audit.status is AuditStatus.UNREADABLE


# -- issue 12: blame only on signed evidence ---------------------------------------------------


@pytest.fixture(scope="module")
def two_hands():
    net = Net(seed=2, config=TableConfig(hands=2, game=SasakiGame(TableOptions(lead_card="3H")), proofs=False))
    net.start()
    net.run()
    return net.transcript(0)


def _cuts(data, every=1):
    """Offsets of every record boundary (every ``every``-th), and a few bytes inside records."""
    offsets, at = [], 0
    for _kind, body in split_records(data):
        offsets.append(at)
        at += 5 + len(body)
    boundaries = offsets[1::every]
    inside = [offsets[k] + d for k in (1, len(offsets) // 3, len(offsets) // 2, len(offsets) - 1) for d in (3, 9)]
    return boundaries, inside


def _check_cut(data, cut):
    audit = audit_table(data[:cut])
    assert audit.blame is None or audit.blame.seat is None, (cut, audit.blame)
    assert audit.status is AuditStatus.INCOMPLETE, (cut, audit.status, audit.blame)
    assert audit.stops_at is not None and audit.stops_at.record >= 1
    return audit


def test_cutting_a_transcript_never_names_a_seat_sampled(two_hands):
    """A cut at a record boundary, or inside a record (a torn write, with its byte offset),
    is an incomplete transcript: nobody is named, every hand before the cut verifies."""
    full = audit_table(two_hands)
    assert full.status is AuditStatus.COMPLETE and full.stops_at is None
    boundaries, inside = _cuts(two_hands, every=23)
    for cut in boundaries:
        audit = _check_cut(two_hands, cut)
        assert audit.scores == full.scores[:len(audit.scores)]
    for cut in inside:
        audit = _check_cut(two_hands, cut)
        assert "torn last record at byte" in audit.note


def _verdict_of_cut(data, cut):
    audit = audit_table(data[:cut])
    return (audit.blame.seat if audit.blame is not None else None, audit.status,
            audit.stops_at.record if audit.stops_at is not None else None)


@pytest.mark.slow
def test_cutting_a_transcript_never_names_a_seat_at_any_boundary(two_hands):
    """Every cut audited from scratch (a few hundred audits): spread over the cores, the pure
    checks remembered between them (crypto.check_memo, as in any process: the audit's own logic
    runs in full each time)."""
    import concurrent.futures
    import functools
    import multiprocessing
    import os

    assert audit_table(two_hands).status is AuditStatus.COMPLETE   # fills the memo before the fork
    boundaries, inside = _cuts(two_hands)
    cuts = boundaries + inside
    context = multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None
    with concurrent.futures.ProcessPoolExecutor(max_workers=min(4, os.cpu_count() or 1), mp_context=context) as pool:
        verdicts = list(pool.map(functools.partial(_verdict_of_cut, two_hands), cuts, chunksize=8))
    assert len(verdicts) == len(cuts) > 300
    for cut, (seat, status, record) in zip(cuts, verdicts, strict=False):
        assert seat is None, (cut, seat)
        assert status is AuditStatus.INCOMPLETE, (cut, status)
        assert record is not None and record >= 1, (cut, record)


def test_a_header_edit_names_nobody(honest):
    """issue 12: editing the header blamed seat 0 ("prev does not match")."""
    import dataclasses

    records = split_records(honest.transcript(0))
    header = read_transcript(honest.transcript(0)).header
    for edited in (dataclasses.replace(header, hands=2), dataclasses.replace(header, proofs=True),
                   dataclasses.replace(header, roster_keys=header.roster_keys[1:] + header.roster_keys[:1]),
                   dataclasses.replace(header, roster_names=("Mina",) + header.roster_names[1:])):
        audit = audit_table(rebuild([(KIND_HEADER, edited.encode())] + records[1:]))
        assert audit.status is AuditStatus.DAMAGED and audit.blame.seat is None, audit.blame
        assert audit.stops_at.record == 1


def test_a_self_resigned_message_names_its_signer_or_nobody(honest):
    """issue 12: a peer re-signing its own play blamed the next seat. Whatever a seat re-signs
    in its own name (here every play of the hand turned into a pass), only it can be named."""
    records = split_records(honest.transcript(0))
    seats = {p.my_seat: p for p in honest.peers}
    plays = [i for i, (kind, data) in enumerate(records)
             if kind == KIND_ENVELOPE and decode_envelope(data).body.type == "table/action"
             and decode_envelope(data).body.payload.verb in ("play", "pass")]
    assert len(plays) > 10
    for i in plays[::3]:
        body = decode_envelope(records[i][1]).body
        key = honest.keys[honest.peers.index(seats[body.sender])]
        verb = "pass" if body.payload.verb == "play" else "play"
        cards = () if verb == "pass" else (47,)
        forged = Body(body.table, body.hand, body.slot, body.sender, body.prev, TableAction(verb, cards))
        edited = list(records)
        edited[i] = (KIND_ENVELOPE, sign_envelope(forged, key))
        audit = audit_table(rebuild(edited))
        assert audit.status in (AuditStatus.FAULT, AuditStatus.DAMAGED), (i, audit.status)
        assert audit.blame.seat in (None, body.sender), (i, audit.blame)


def test_a_weak_identity_key_in_the_header_is_refused(honest):
    """issue 12 finding 5: a header key that is the identity point or of small order lets
    anyone forge signatures for it: the audit refuses the header and names nobody."""
    import dataclasses

    records = split_records(honest.transcript(0))
    header = read_transcript(honest.transcript(0)).header
    identity_point = bytes([1]) + bytes(31)
    small_order = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")  # order 8
    for weak in (identity_point, small_order):
        edited = dataclasses.replace(header, roster_keys=(weak,) + header.roster_keys[1:])
        audit = audit_table(rebuild([(KIND_HEADER, edited.encode())] + records[1:]))
        assert audit.status is AuditStatus.DAMAGED and audit.blame.seat is None
        assert "small order" in audit.blame.reason


def test_the_audit_and_the_export_name_the_seats():
    """The signed names come back from the transcript in seat order: the audit's ``names``
    (and its labels, "S2 Mina"; a member with no chosen name stays "S2"), and a first
    comment line of each exported record, which still replays."""
    from p2p_sasaki.protocol.messages import default_name

    probe = Net(seed=1, config=FAST)
    names = ("Mina", "Jun", default_name(probe.keys[2].public_key), "Bot 4")
    net = Net(seed=1, config=FAST, names=names)
    net.start()
    net.run()
    audit = audit_table(net.transcript(0))
    seated = net.peers[0].seat_keys
    by_key = dict(zip((k.public_key for k in net.keys), names, strict=False))
    assert audit.ok and audit.names == tuple(by_key[k] for k in seated) and audit.keys == seated
    assert [audit.label(s) for s in range(4)] == [f"S{s} {by_key[k]}" if by_key[k] in ("Mina", "Jun", "Bot 4")
                                                  else f"S{s}" for s, k in enumerate(seated)]
    (text,) = export_records(net.transcript(0))
    first = text.splitlines()[0]
    assert first == "# " + ", ".join(audit.label(s) for s in range(4))
    assert replay(text).is_over
