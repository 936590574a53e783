"""protocol/intake.py: duplicates are dropped by their bytes before any decoding or signature check."""

from __future__ import annotations

import pytest

from p2p_sasaki.protocol import intake as intake_module
from p2p_sasaki.protocol.crypto import IdentityKey
from p2p_sasaki.protocol.events import VersionMismatch
from p2p_sasaki.protocol.intake import Intake, IntakeStatistics
from p2p_sasaki.protocol.messages import Body, DeckCommit, SignedMessage, decode_envelope, sign_envelope
from tests.protocol.table_helpers import TABLE_ID, Net

KEYS = [IdentityKey(bytes([i]) * 32) for i in range(1, 5)]
SEATS = tuple(k.public_key for k in KEYS)


def envelope(sender: int, commitment: bytes = bytes(32), table: bytes = TABLE_ID) -> bytes:
    return sign_envelope(Body(table, 1, 0, sender, bytes(32), DeckCommit(commitment)), KEYS[sender])


def test_a_copy_is_dropped_by_its_bytes_without_a_decoding_or_a_signature_check(monkeypatch):
    intake = Intake(TABLE_ID)
    first = intake.admit(envelope(1), lambda hand: SEATS, 1)
    assert isinstance(first, SignedMessage) and intake.remember(first) is None
    monkeypatch.setattr(intake_module, "decode_envelope", lambda *args: pytest.fail("decoded a copy"))
    monkeypatch.setattr(intake_module, "verify_envelope", lambda *args: pytest.fail("verified a copy"))
    assert intake.admit(envelope(1), lambda hand: SEATS, 1) is None
    assert intake.statistics() == IntakeStatistics(received=2, duplicates=1, verified=1)


def test_another_body_under_the_same_key_is_verified_and_returned_for_the_equivocation_check():
    intake = Intake(TABLE_ID)
    first = intake.admit(envelope(2), lambda hand: SEATS, 1)
    assert isinstance(first, SignedMessage)
    intake.remember(first)
    second = intake.admit(envelope(2, b"\x01" * 32), lambda hand: SEATS, 1)
    assert isinstance(second, SignedMessage) and intake.remember(second) == first
    forged = bytearray(envelope(3))
    forged[-1] ^= 1
    assert intake.admit(bytes(forged), lambda hand: SEATS, 1) is None       # a bad signature: dropped
    assert intake.admit(envelope(1, table=bytes(32)), lambda hand: SEATS, 1) is None   # another table
    assert intake.statistics() == IntakeStatistics(received=4, duplicates=0, verified=3)


def test_a_later_hand_is_held_until_the_seats_are_known_and_versions_are_reported_once():
    intake = Intake(TABLE_ID)
    data = envelope(1)
    assert intake.admit(data, lambda hand: None, 0) is None
    assert intake.release() == [data] and intake.release() == []
    assert intake.statistics().verified == 0
    old = envelope(1).replace(b"\xa7version\x03", b"\xa7version\x02")   # a version 2 peer's
    report = intake.admit(old, lambda hand: SEATS, 1)
    assert isinstance(report, VersionMismatch) and report.version == 2
    assert intake.admit(old, lambda hand: SEATS, 1) is None


def _signed_by(peer, data: bytes) -> bool:
    body = decode_envelope(data).body
    return body.sender == (peer.my_index if body.hand == 0 else peer.my_seat)


def test_on_a_duplicating_network_every_distinct_envelope_is_verified_once():
    """The in-memory table of tests/protocol/table_helpers.py (seed 1: reordering and
    duplication): before this intake, every receive verified a signature (1458 verifies for
    1458 receives over the four peers); now one verify per distinct envelope (345)."""
    net = Net(seed=1)
    received: list[list[bytes]] = [[] for _ in net.peers]
    for i, peer in enumerate(net.peers):
        def receive(data: bytes, key: bytes | None = None, i: int = i, inner=peer.receive) -> None:
            received[i].append(data)
            inner(data, key)
        peer.receive = receive  # type: ignore[assignment]
    net.start()
    net.run()
    assert all(p.finished and p.blame is None for p in net.peers)
    stats = [peer.intake.statistics() for peer in net.peers]
    for i, (peer, stat) in enumerate(zip(net.peers, stats, strict=True)):
        others = {data for data in received[i] if not _signed_by(peer, data)}   # relays of my own: never verified
        assert stat.verified == len(others)
        assert stat.received >= len(received[i])      # and each held later hand's message once more
    assert (sum(map(len, received)), sum(s.verified for s in stats)) == (1458, 345)
