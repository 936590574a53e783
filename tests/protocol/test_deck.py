"""The deck session: honest deals, pipelining, and every cheat caught and blamed."""

from __future__ import annotations

import contextlib
import copy
import functools
import hashlib
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p_sasaki.protocol import crypto
from p2p_sasaki.protocol.crypto import G, SeededEntropy
from p2p_sasaki.protocol.deck import (
    CardOpened,
    DeckUsageError,
    HandDealt,
    HandRevealed,
    KeyRevealed,
    ShuffleAccepted,
    ShuffleVerified,
    Violation,
    hand_points,
    hop_problem,
)
from p2p_sasaki.protocol.messages import (
    CardOpen,
    KeyReveal,
    ShuffleHop,
    ShuffleProof,
    StripRound,
    decode_envelope,
)
from tests.protocol.helpers import Table, payload_of, resign

# Its tests share the dealt hands (_dealt_table), made once per process: one worker runs them all.
pytestmark = pytest.mark.xdist_group("deck")


FAST: dict[str, Any] = dict(n_cards=12)  # proofs on, small enough for many tests


def types_sent(table: Table) -> list[tuple[int, str]]:
    return [(decode_envelope(e).body.sender, decode_envelope(e).body.type) for e in table.sent]


def cheat(seat: int, kind: type, change):
    """A tamper hook: seat re-signs its first message of ``kind`` after ``change``."""
    done: list[object] = []

    def tamper(sender: int, envelope: bytes):
        payload = payload_of(envelope)
        if sender == seat and isinstance(payload, kind) and not done:
            done.append(True)
            return resign(envelope, TABLE_KEYS[seat], payload=change(payload))
        return envelope

    return tamper


TABLE_KEYS = Table(n=4).keys  # the same deterministic identities every Table uses


def honest_seats_blame(table: Table, cheater: int, step: str) -> None:
    for seat in range(table.n):
        if seat == cheater:
            continue
        violations = table.violations(seat)
        assert violations, f"seat {seat} saw no violation"
        assert (violations[0].seat, violations[0].step) == (cheater, step), violations[0]
        assert not table.of_type(seat, HandDealt)


# -- honest hands --------------------------------------------------------------------------


@pytest.mark.slow   # full-size (64-round) proofs
def test_four_peers_deal_48_cards_with_full_proofs():
    table = Table(n=4, n_cards=48)  # 64 rounds, the default
    table.start()
    hands = []
    for seat in range(4):
        dealt = table.of_type(seat, HandDealt)
        assert len(dealt) == 1 and dealt[0].seat == seat
        assert dealt[0].positions == tuple(range(seat, 48, 4))
        assert len(dealt[0].cards) == 12 and table.hand(seat) == dealt[0].cards
        verified = table.of_type(seat, ShuffleVerified)
        assert [e.hop for e in verified] != [] and len(verified) == 4
        assert table.violations(seat) == []
        hands.append(set(dealt[0].cards))
    assert set().union(*hands) == set(range(48))
    # a seat's view never contains another seat's cards
    for seat in range(4):
        for event in table.events[seat]:
            if isinstance(event, HandDealt):
                assert set(event.cards) == hands[seat]
        assert set(table.hand(seat)) == hands[seat]


def test_a_seeded_hand_is_byte_identical():
    one, two = Table(seed=b"vector", **FAST), Table(seed=b"vector", **FAST)
    one.start()
    two.start()
    assert one.sent == two.sent
    digest = hashlib.sha256(b"".join(one.sent)).hexdigest()
    assert digest == HAND_VECTOR_SHA256
    assert one.sessions[0].hand == HAND_VECTOR_SEAT0


HAND_VECTOR_SHA256 = "32c139052ce921cd847f7d6f7cef40821cecd70938913883267f3a5a287fd338"
HAND_VECTOR_SEAT0 = (6, 11, 9)


def test_hops_are_pipelined_and_strips_wait_for_every_proof():
    table = Table(**FAST)
    table.start()
    sent = types_sent(table)
    hop_indices = [i for i, (_, t) in enumerate(sent) if t == ShuffleHop.TYPE]
    proof_indices = [i for i, (_, t) in enumerate(sent) if t == ShuffleProof.TYPE]
    strip_indices = [i for i, (_, t) in enumerate(sent) if t == StripRound.TYPE]
    assert [sent[i][0] for i in hop_indices] == [0, 1, 2, 3]
    assert max(hop_indices) < min(proof_indices)  # every hop went out before any proof
    assert max(proof_indices) < min(strip_indices)  # nobody strips before all proofs
    assert len(strip_indices) == 4 * 3


def test_overlap_strips_lets_strips_run_before_proofs_but_not_the_deal():
    table = Table(overlap_strips=True, **FAST)
    table.start()
    sent = types_sent(table)
    first_strip = next(i for i, (_, t) in enumerate(sent) if t == StripRound.TYPE)
    last_proof = max(i for i, (_, t) in enumerate(sent) if t == ShuffleProof.TYPE)
    assert first_strip < last_proof
    for seat in range(4):
        events = table.events[seat]
        dealt_at = next(i for i, e in enumerate(events) if isinstance(e, HandDealt))
        assert max(i for i, e in enumerate(events) if isinstance(e, ShuffleVerified)) < dealt_at


def test_proofs_off_deals_without_proof_messages():
    table = Table(proofs=False, n_cards=48)
    table.start()
    assert ShuffleProof.TYPE not in {t for _, t in types_sent(table)}
    cards = [c for s in range(4) for c in table.hand(s)]
    assert sorted(cards) == list(range(48))


@pytest.mark.parametrize("n, n_cards", [(2, 5), (3, 36), (4, 36)])
def test_other_table_sizes(n, n_cards):
    table = Table(n=n, n_cards=n_cards)
    table.start()
    hands = [table.hand(s) for s in range(n)]
    assert [len(h) for h in hands] == [len(range(s, n_cards, n)) for s in range(n)]
    assert sorted(c for h in hands for c in h) == list(range(n_cards))


def test_observer_verifies_the_deal_without_a_hand():
    table = Table(observer=True, **FAST)
    table.start()
    assert table.observer.deal_verified and table.observer.hand is None
    assert [e for e in table.observer.take_events() if isinstance(e, Violation)] == []


def test_open_and_key_reveal():
    table = _dealt_table()
    card = table.hand(1)[2]
    table.post(1, table.sessions[1].open_card(card))
    table.run()
    for seat in range(4):
        assert table.of_type(seat, CardOpened) == [CardOpened(1, 1 + 2 * 4, card)]
    with pytest.raises(DeckUsageError):
        table.sessions[1].open_card(card)
    with pytest.raises(DeckUsageError):
        table.sessions[1].open_card(table.hand(2)[0])
    for seat in range(4):
        table.post(seat, table.sessions[seat].reveal_key())
    table.run()
    hands = tuple(table.hand(s) for s in range(4))
    for seat in range(4):
        assert len(table.of_type(seat, KeyRevealed)) == 4
        assert table.of_type(seat, HandRevealed) == [HandRevealed(hands)]
        assert table.violations(seat) == []


def test_relayed_duplicates_are_ignored_and_equivocation_is_blamed():
    table = Table(**FAST)
    for seat, session in enumerate(table.sessions):
        table.post(seat, session.start())
    first = table.sent[0]
    table.deliver(0, first)  # the relayed copy of seat 0's commit
    other = resign(first, table.keys[0], payload=type(payload_of(first))(bytes(32)))
    table.sessions[1].receive(other, from_seat=2)
    assert table.sessions[1].take_events()[-1] == Violation(
        0, "equivocation", "seat 0 signed two different messages for slot 0"
    )


# -- cheats, each caught at its step and blamed on the cheater ----------------------------


def test_duplicated_card_in_a_shuffle():
    table = Table(tamper=cheat(1, ShuffleHop, lambda h: ShuffleHop((h.deck[0], *h.deck[:-1]), h.base)), **FAST)
    table.start()
    honest_seats_blame(table, 1, "shuffle")
    assert table.violations(0)[0].reason == "two deck elements are equal"


def test_a_hops_problem_is_the_same_from_the_memo_and_in_full():
    deck, base, _ = hand_points(bytes(32), bytes(32), 12)
    cases = {
        (deck, base): None,
        ((deck[0], *deck[:-1]), base): "two deck elements are equal",
        (deck, deck[0]): "two deck elements are equal",
        ((bytes(32), *deck[1:]), base): "deck element is not a valid group element",
        (deck[:-1], base): "the deck has 11 cards, not 12",
    }
    # twice as it comes (the second time from crypto.check_memo), then in full: the same answers
    for memo in (contextlib.nullcontext(), contextlib.nullcontext(), crypto.check_memo.off()):
        with memo:
            assert {case: hop_problem(*case, 12) for case in cases} == cases
            assert hand_points(bytes(32), bytes(32), 12)[:2] == (deck, base)


@pytest.mark.parametrize(
    "bad",
    [
        bytes([1]) + bytes(31),  # the identity
        bytes(32),  # a point of order 4
        bytes([0xEC]) + bytes([0xFF]) * 30 + bytes([0x7F]),  # y = p - 1 + ... non-canonical
        bytes([0xED]) + bytes([0xFF]) * 30 + bytes([0x7F]),  # y = p: non-canonical
        bytes([2]) + bytes(31),  # not on the curve
    ],
)
def test_invalid_or_non_canonical_point_in_a_shuffle(bad):
    table = Table(tamper=cheat(2, ShuffleHop, lambda h: ShuffleHop((bad, *h.deck[1:]), h.base)), **FAST)
    table.start()
    honest_seats_blame(table, 2, "shuffle")
    assert table.violations(0)[0].reason == "deck element is not a valid group element"


def _second_name(point: bytes) -> bytes:
    """The same point under an encoding with the top bit set: libsodium 1.0.18 would decode
    it to the same element, so only the canonical-encoding check refuses it."""
    return point[:31] + bytes([point[31] | 0x80])


@pytest.mark.parametrize("bad", [_second_name, lambda point: crypto.IDENTITY], ids=["non-canonical", "identity"])
def test_non_canonical_or_identity_point_in_a_strip(bad):
    def tampered(strip: StripRound) -> StripRound:
        return StripRound(strip.round, (bad(strip.values[0]), *strip.values[1:]), strip.proofs)

    table = Table(tamper=cheat(3, StripRound, tampered), **FAST)
    table.start()
    honest_seats_blame(table, 3, "strip")
    assert table.violations(0)[0].reason == "seat 3's strip round 1 does not verify"


def _substitute(hop: ShuffleHop) -> ShuffleHop:
    """Replace one card by a valid, distinct point: not a permutation of the input."""
    ghost = G.mul(crypto.random_scalar(SeededEntropy(b"ghost")), hop.deck[0])
    return ShuffleHop((ghost, *hop.deck[1:]), hop.base)


def test_shuffle_that_is_not_a_permutation_is_caught_by_its_proof():
    table = Table(tamper=cheat(1, ShuffleHop, _substitute), **FAST)
    table.start()
    for seat in (0, 2, 3):
        assert ShuffleAccepted(1) in table.events[seat]  # the elements themselves look fine
        assert table.violations(seat)[0] == Violation(1, "shuffle-proof", "seat 1's shuffle proof does not verify")
    # and nobody stripped anything before the proofs were checked
    assert StripRound.TYPE not in {t for _, t in types_sent(table)}


def test_wrong_strip():
    wrong = crypto.hash_to_group(b"test", b"wrong")
    table = Table(tamper=cheat(2, StripRound, lambda s: StripRound(s.round, (wrong, *s.values[1:]), s.proofs)), **FAST)
    table.start()
    honest_seats_blame(table, 2, "strip")
    assert table.violations(0)[0].reason.startswith("seat 2's strip round")


def _flip(data: bytes, index: int = 5) -> bytes:
    return data[:index] + bytes([data[index] ^ 1]) + data[index + 1 :]


def test_tampered_strip_proof():
    table = Table(tamper=cheat(0, StripRound, lambda s: StripRound(s.round, s.values, (_flip(s.proofs[0]),))), **FAST)
    table.start()
    honest_seats_blame(table, 0, "strip")


def test_tampered_shuffle_proof():
    def forge(proof: ShuffleProof) -> ShuffleProof:
        scalars = proof.argument.scalars  # swap two responses: each is right, in the wrong place
        swapped = (scalars[1], scalars[0], *scalars[2:])
        return ShuffleProof(crypto.ShuffleArgument(proof.argument.elements, swapped))

    table = Table(tamper=cheat(2, ShuffleProof, forge), **FAST)
    table.start()
    honest_seats_blame(table, 2, "shuffle-proof")


def test_shuffle_proof_replayed_from_another_hand_fails():
    earlier = _dealt()   # hand 1, only read
    old_proof = next(payload_of(e) for e in earlier.sent
                     if decode_envelope(e).body.sender == 3 and isinstance(payload_of(e), ShuffleProof))
    table = Table(hand_no=2, tamper=cheat(3, ShuffleProof, lambda p: old_proof), **FAST)
    table.start()
    honest_seats_blame(table, 3, "shuffle-proof")


@functools.cache
def _dealt(seed: bytes = b"table") -> Table:
    table = Table(seed=seed, **FAST)
    table.start()
    return table


def _dealt_table(seed: bytes = b"table") -> Table:
    """A hand dealt by the honest table of ``seed`` (FAST, hand 1): dealt once per seed, each
    caller given its own deep copy (the identity keys shared), which it may go on with."""
    table = _dealt(seed)
    return copy.deepcopy(table, {id(k): k for k in table.keys})


def test_opening_a_position_dealt_to_someone_else():
    table = _dealt_table()
    honest = table.sessions[1].open_card(table.hand(1)[0])[0]
    forged = resign(honest, table.keys[1], payload=CardOpen(0, payload_of(honest).card, payload_of(honest).proof))
    table.post(1, [forged])
    table.run()
    for seat in (0, 2, 3):
        assert table.violations(seat) == [Violation(1, "open", "position 0 was not dealt to seat 1")]


def test_opening_a_card_that_is_not_at_that_position():
    table = _dealt_table()
    session = table.sessions[1]
    honest = session.open_card(table.hand(1)[0])[0]
    not_mine = table.hand(0)[0]
    forged = resign(honest, table.keys[1], payload=CardOpen(1, not_mine, payload_of(honest).proof))
    table.post(1, [forged])
    table.run()
    for seat in (0, 2, 3):
        assert table.violations(seat) == [Violation(1, "open", f"seat 1 cannot show card {not_mine} at position 1")]


def test_opening_the_same_position_twice():
    table = _dealt_table()
    envelope = table.sessions[2].open_card(table.hand(2)[1])[0]
    again = resign(envelope, table.keys[2], slot=decode_envelope(envelope).body.slot + 1)
    table.post(2, [envelope, again])
    table.run()
    assert table.violations(0) == [Violation(2, "open", "position 6 is already open")]


def test_bad_signature_is_blamed_on_the_link_that_delivered_it():
    def tamper(sender, envelope):
        if sender == 2 and isinstance(payload_of(envelope), ShuffleHop):
            return _flip(envelope, len(envelope) - 3)  # inside the signature
        return envelope

    table = Table(tamper=tamper, **FAST)
    table.start()
    for seat in (0, 1, 3):
        assert table.violations(seat) == [Violation(2, "envelope", "the signature does not verify")]
        assert table.sessions[seat].waiting_for() == [(2, "shuffle")]  # the hop never counted


def test_message_replayed_from_another_hand():
    earlier = _dealt()   # hand 1, only read
    table = Table(hand_no=2, **FAST)
    table.start()
    table.sessions[0].receive(earlier.sent[5], from_seat=3)
    assert table.sessions[0].take_events() == [Violation(3, "envelope", "the message belongs to another table or hand")]
    assert table.sessions[0].failed is None  # dropped; the hand goes on


def test_revealed_key_that_does_not_match_the_base():
    table = _dealt_table()
    forged = resign(table.sessions[2].reveal_key()[0], table.keys[2], payload=KeyReveal(crypto.scalar_bytes(12345)))
    table.post(2, [forged])
    table.run()
    for seat in (0, 1, 3):
        assert table.violations(seat) == [Violation(2, "key", "seat 2's revealed key does not match its base")]


def test_revealed_key_that_does_not_match_the_shuffle_with_proofs_off():
    # seat 1 substitutes a card; without proofs only the key reveal can blame it
    table = Table(proofs=False, n_cards=12, tamper=cheat(1, ShuffleHop, _substitute))
    table.start()
    for seat in range(4):
        table.post(seat, table.sessions[seat].reveal_key())
    table.run()
    for seat in (0, 2, 3):
        blamed = [v for v in table.violations(seat) if v.seat is not None]
        assert blamed == [Violation(1, "key", "seat 1's revealed key does not match its shuffle")]


# -- hostile input never crashes --------------------------------------------------------------


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300))
def test_random_bytes_never_crash_a_session(data):
    session = Table(**FAST).sessions[0]
    session.start()
    session.receive(data, from_seat=1)
    events = session.take_events()
    assert events and all(e.step == "envelope" and e.seat == 1 for e in events)
    assert session.failed is None


def test_hands_from_keys_reads_the_deal_without_changing_the_session():
    """An auditor can read the deal from the keys before their slot; a wrong key is named."""
    from p2p_sasaki.protocol.deck import KeyMismatch

    table = Table(seed=b"keys-early", proofs=False, observer=True)
    table.start()
    observer = table.observer
    keys: dict[int, int] = {}
    for seat, s in enumerate(table.sessions):
        assert s._x is not None
        keys[seat] = s._x
    dealt = observer.hands_from_keys(keys)
    assert dealt == tuple(s.hand for s in table.sessions)
    assert observer.hands is None  # nothing revealed yet
    with pytest.raises(KeyMismatch) as info:
        observer.hands_from_keys({**keys, 2: keys[2] + 1})
    assert info.value.seat == 2 and "does not match its base" in info.value.reason


# -- an open seat (a bot in an empty seat) shows its hand: the public strip round n ---------------

SHOW_VECTOR_SHA256 = "8fd96ed9932ce861ebd8173c4bb54e48bc12e0bd61a755d7ddea93a858d5d948"
SHOW_ENVELOPE_SHA256 = "d10c4e41096c1a80a36a1b40d7dda6687569446f391cdb44d14d15c2b72b8726"


def show_of(table: Table) -> list[bytes]:
    return [e for e in table.sent if isinstance(payload_of(e), StripRound) and payload_of(e).round == table.n]


def test_an_open_seat_shows_its_hand_to_every_seat_in_the_slot_after_the_strips():
    from p2p_sasaki.protocol.deck import HandShown

    table = Table(seed=b"vector", shown=frozenset({1}), observer=True, **FAST)
    table.start()
    assert hashlib.sha256(b"".join(table.sent)).hexdigest() == SHOW_VECTOR_SHA256
    (show,) = show_of(table)
    assert len(show) == 375 and hashlib.sha256(show).hexdigest() == SHOW_ENVELOPE_SHA256
    body = decode_envelope(show).body
    assert (body.sender, body.slot) == (1, 3 * 4 + 1) and table.sessions[0].layout.end == 3 * 4 + 2
    # the show is sent after every shuffle proof and every strip: its values are the card points
    sent = types_sent(table)
    assert table.sent.index(show) > max(i for i, (_, t) in enumerate(sent) if t == ShuffleProof.TYPE)
    assert body.payload.values == tuple(table.sessions[0]._cards[c] for c in table.hand(1))
    expected = HandShown(1, table.hand(1), (1, 5, 9))
    for seat in range(4):
        assert table.of_type(seat, HandShown) == [expected] and table.violations(seat) == []
        assert table.sessions[seat].shown_hands == {1: table.sessions[1].hand}
    assert table.observer is not None and table.observer.shown_hands == {1: table.sessions[1].hand}
    # without an open seat nothing changes: the same seeds give the plain hand's bytes
    plain = _dealt(b"vector")   # only read
    assert not show_of(plain) and hashlib.sha256(b"".join(plain.sent)).hexdigest() == HAND_VECTOR_SHA256


def test_a_false_show_is_blamed_on_the_open_seat_and_a_show_from_another_seat_is_refused():
    def swap(strip: StripRound) -> StripRound:
        return StripRound(strip.round, (strip.values[1], strip.values[0], *strip.values[2:]), strip.proofs)

    def false_show(sender: int, envelope: bytes):
        payload = payload_of(envelope)
        if sender == 1 and isinstance(payload, StripRound) and payload.round == 4:
            return resign(envelope, TABLE_KEYS[1], payload=swap(payload))
        return envelope

    table = Table(seed=b"vector", shown=frozenset({1}), tamper=false_show, **FAST)
    table.start()
    for seat in (0, 2, 3):
        assert [(v.seat, v.step) for v in table.violations(seat)][:1] == [(1, "strip")]

    table = _dealt_table(b"vector")      # no open seat: a round-n strip is no step of the deck
    strip = next(e for e in table.sent if isinstance(payload_of(e), StripRound) and decode_envelope(e).body.sender == 2)
    show = StripRound(4, payload_of(strip).values, payload_of(strip).proofs)
    table.sessions[0].receive(resign(strip, TABLE_KEYS[2], payload=show, slot=3 * 4 + 1), 2)
    table.collect()
    assert table.violations(0)[-1].seat == 2 and "there is no strip round 4" in table.violations(0)[-1].reason
