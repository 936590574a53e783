"""protocol/audit.py: a finished hand reproduces every seat's cards; a tampered one names the cheater."""

from __future__ import annotations

import contextlib
import dataclasses
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p_sasaki.protocol import crypto
from p2p_sasaki.protocol.audit import AuditResult, audit_hand
from p2p_sasaki.protocol.crypto import ShuffleArgument
from p2p_sasaki.protocol.deck import CardOpened, Violation
from p2p_sasaki.protocol.messages import KeyReveal, ShuffleHop, ShuffleProof, StripRound, decode_envelope
from tests.protocol.helpers import TABLE, Table, payload_of, resign

FAST: dict[str, Any] = dict(n_cards=12)


def dealt_hand(table: Table, seat: int) -> tuple[int, ...]:
    hand = table.sessions[seat].hand
    assert hand is not None, f"seat {seat} has no hand yet"
    return hand


def finished(**options) -> Table:
    table = Table(**FAST, **options)
    table.start()
    table.post(0, table.sessions[0].open_card(dealt_hand(table, 0)[1]))
    table.run()
    for seat in range(4):
        table.post(seat, table.sessions[seat].reveal_key())
    table.run()
    return table


@cache
def honest_transcript() -> tuple[tuple[bytes, ...], tuple[tuple[int, ...], ...], tuple[bytes, ...]]:
    table = finished()
    return tuple(table.sent), tuple(dealt_hand(table, s) for s in range(4)), tuple(k.public_key for k in table.keys)


def run_audit(envelopes, **options) -> AuditResult:
    _, _, keys = honest_transcript()
    return audit_hand(envelopes, n=4, n_cards=12, peer_public_keys=keys, table_id=TABLE, hand_no=1,
                      **options)


def test_audit_reproduces_every_seats_cards():
    envelopes, hands, _ = honest_transcript()
    result = run_audit(envelopes)
    assert result == AuditResult(hands, None, (CardOpened(0, 4, hands[0][1]),))
    assert result.ok


def test_audit_accepts_any_logging_order():
    envelopes, hands, _ = honest_transcript()
    assert run_audit(reversed(envelopes)).hands == hands


def test_audit_of_a_session_transcript_matches():
    table = finished()
    for seat in range(4):
        assert run_audit(table.sessions[seat].transcript).hands == tuple(dealt_hand(table, s) for s in range(4))


def test_missing_key_blames_the_silent_seat():
    envelopes, _, _ = honest_transcript()
    without = [e for e in envelopes
               if not (isinstance(payload_of(e), KeyReveal) and decode_envelope(e).body.sender == 2)]
    assert run_audit(without) == AuditResult(None, Violation(2, "key", "seat 2's key message is missing"),
                                             (CardOpened(0, 4, honest_transcript()[1][0][1]),))


def test_tampered_strip_names_the_cheater():
    envelopes, _, _ = honest_transcript()
    keys = Table().keys
    index = next(i for i, e in enumerate(envelopes)
                 if isinstance(payload_of(e), StripRound) and decode_envelope(e).body.sender == 1)
    strip = payload_of(envelopes[index])
    forged = resign(envelopes[index], keys[1], payload=StripRound(strip.round, strip.values[::-1], strip.proofs))
    result = run_audit(envelopes[:index] + (forged,) + envelopes[index + 1 :])
    assert result.violation == Violation(1, "strip", "seat 1's strip round 1 does not verify")
    assert result.hands is None


def test_bad_shuffle_with_proofs_off_is_named_by_the_key_reveal():
    ghost = crypto.hash_to_group(b"p2p-sasaki/v1/test", b"ghost")
    done: list[int] = []

    def tamper(seat, envelope):
        payload = payload_of(envelope)
        if seat == 3 and isinstance(payload, ShuffleHop) and not done:
            done.append(1)
            return resign(envelope, Table().keys[3], payload=ShuffleHop((ghost, *payload.deck[1:]), payload.base))
        return envelope

    table = Table(proofs=False, n_cards=12, tamper=tamper)
    table.start()
    for seat in range(4):
        table.post(seat, table.sessions[seat].reveal_key())
    table.run()
    result = run_audit(table.sent, proofs=False)
    assert result.violation == Violation(3, "key", "seat 3's revealed key does not match its shuffle")


def test_inserted_foreign_message_is_a_violation():
    envelopes, _, _ = honest_transcript()
    other = Table(hand_no=2, **FAST)
    other.start()
    result = run_audit((other.sent[0], *envelopes))
    assert result.violation == Violation(None, "envelope", "the message belongs to another table or hand")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_resigned_random_tampering_is_blamed_on_its_signer(data):
    """A seat signs a message with one random byte of one field changed: always caught."""
    envelopes, _, _ = honest_transcript()
    keys = Table().keys
    index = data.draw(st.integers(0, len(envelopes) - 1))
    message = decode_envelope(envelopes[index])
    payload = message.body.payload
    fields = [name for name, value in vars(payload).items() if isinstance(value, (bytes, tuple, ShuffleArgument))]
    name = data.draw(st.sampled_from(fields))
    value = getattr(payload, name)

    def flip(target: bytes) -> bytes:
        pos, xor = data.draw(st.integers(0, len(target) - 1)), data.draw(st.integers(1, 255))
        return target[:pos] + bytes([target[pos] ^ xor]) + target[pos + 1 :]

    def flip_one(items: tuple[bytes, ...]) -> tuple[bytes, ...]:
        item = data.draw(st.integers(0, len(items) - 1))
        return (*items[:item], flip(items[item]), *items[item + 1 :])

    new_value: ShuffleArgument | tuple[bytes, ...] | bytes
    if isinstance(value, ShuffleArgument):  # tamper one element or one scalar of the argument
        part = data.draw(st.sampled_from(["elements", "scalars"]))
        new_value = dataclasses.replace(value, **{part: flip_one(getattr(value, part))})
    elif isinstance(value, tuple):
        new_value = flip_one(value)
    else:
        new_value = flip(value)
    sender = message.body.sender
    forged = resign(envelopes[index], keys[sender], payload=type(payload)(**{**vars(payload), name: new_value}))
    tampered = envelopes[:index] + (forged,) + envelopes[index + 1 :]
    result = run_audit(tampered, from_keys=False)
    assert result.violation is not None and result.violation.seat == sender, (payload.TYPE, name, result.violation)
    assert result.violation.step != "internal"
    from_keys = run_audit(tampered)
    if isinstance(payload, ShuffleProof):
        # the keys check every hop exactly, so a hand that reached them needs no argument
        assert from_keys == run_audit(envelopes)
    else:
        assert from_keys == result


# -- the audit from the keys ----------------------------------------------------------------


def _counting_verifications(monkeypatch) -> list[int]:
    calls: list[int] = []
    verify = crypto.shuffle_argument_verify

    def counted(*args):
        calls.append(1)
        return verify(*args)

    monkeypatch.setattr(crypto, "shuffle_argument_verify", counted)
    return calls


def test_a_hand_with_every_key_is_audited_from_the_keys_without_the_arguments(monkeypatch):
    envelopes, hands, _ = honest_transcript()
    calls = _counting_verifications(monkeypatch)
    assert run_audit(envelopes).hands == hands
    assert calls == []
    assert run_audit(envelopes, from_keys=False).hands == hands
    assert len(calls) == 4


def test_a_hand_that_stopped_is_verified_in_live_order_with_its_arguments(monkeypatch):
    envelopes, _, _ = honest_transcript()
    without_key_2 = tuple(e for e in envelopes
                          if not (isinstance(decode_envelope(e).body.payload, KeyReveal)
                                  and decode_envelope(e).body.sender == 2))
    calls = _counting_verifications(monkeypatch)
    result = run_audit(without_key_2)
    assert result.violation == Violation(2, "key", "seat 2's key message is missing")
    assert len(calls) == 4  # the live replay verified every argument


def test_a_bad_hop_with_its_keys_is_blamed_on_its_shuffler():
    """Seat 1 replaces a card and signs a fresh argument for its forged hop: the argument
    fails live, and the key cannot explain the hop either."""
    envelopes, _, _ = honest_transcript()
    keys = Table().keys
    index = next(i for i, e in enumerate(envelopes)
                 if isinstance(decode_envelope(e).body.payload, ShuffleHop) and decode_envelope(e).body.sender == 1)
    hop = decode_envelope(envelopes[index]).body.payload
    ghost = crypto.hash_to_group(b"p2p-sasaki/v2/test", b"ghost")
    forged = resign(envelopes[index], keys[1], payload=ShuffleHop((ghost, *hop.deck[1:]), hop.base))
    result = run_audit(envelopes[:index] + (forged,) + envelopes[index + 1 :])
    assert result.violation is not None and result.violation.seat == 1
    assert result.violation.step == "shuffle-proof"


def test_hop_permutation_checks_a_hop_from_its_key():
    from p2p_sasaki.protocol.deck import HopMismatch, hop_permutation

    entropy = crypto.SeededEntropy(b"hop")
    deck, base = crypto.card_points(TABLE, bytes(32), 12), crypto.base_point(TABLE, bytes(32))
    x, perm = crypto.random_scalar(entropy), crypto.random_permutation(entropy, 12)
    out, out_base = crypto.shuffle(x, perm, deck, base)
    swapped = (out[1], out[0], *out[2:])
    # twice as it comes (the second time from crypto.check_memo), then in full: the same answers
    for memo in (contextlib.nullcontext(), contextlib.nullcontext(), crypto.check_memo.off()):
        with memo:
            assert hop_permutation(x, deck, base, out, out_base) == perm
            assert hop_permutation(x, deck, base, swapped, out_base) == (perm[1], perm[0], *perm[2:])
            with pytest.raises(HopMismatch) as info:
                hop_permutation(x + 1, deck, base, out, out_base)
            assert info.value.part == "base"
            for forged in [(crypto.hash_to_group(b"p2p-sasaki/v2/test", b"x"), *out[1:]), (out[1], *out[1:]),
                           out[:-1]]:
                with pytest.raises(HopMismatch) as info:
                    hop_permutation(x, deck, base, forged, out_base)
                assert info.value.part == "shuffle"
