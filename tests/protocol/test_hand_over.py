"""The private hand-over (docs/protocol.md, "Hand-over"): the re-lock. A position moves from
one seat to another so that only those two learn its card: the giver names it, the receiver
adds its layer, the giver strips its own (each with a DLEQ), and the position is then the
receiver's lock x_b*M_c, which it opens and proves rules over like a dealt position; a wrong
step names its signer from signed evidence, never an honest receiver; the key reveal checks
every re-lock."""

from __future__ import annotations

import copy
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p_sasaki.protocol import crypto
from p2p_sasaki.protocol.crypto import IdentityKey
from p2p_sasaki.protocol.deck import DeckUsageError, HandRevealed, Violation
from p2p_sasaki.protocol.messages import (
    Body,
    HandOver,
    HandOverLock,
    HandOverStrip,
    MessageError,
    Payload,
    decode_envelope,
    sign_envelope,
    verify_envelope,
)
from tests.protocol.helpers import Table
from tests.protocol.test_crypto import VECTORS

N = 4


@lru_cache(maxsize=1)
def _dealt() -> Table:
    table = Table(n=N, n_cards=12)
    table.start()
    assert all(s.hand is not None for s in table.sessions)
    return table


def dealt() -> Table:
    """A dealt 4-seat, 12-card hand (proofs on), a fresh copy each time."""
    return copy.deepcopy(_dealt())


def hand(table: Table, seat: int) -> tuple[int, ...]:
    cards = table.sessions[seat].hand
    assert cards is not None
    return cards


def name(table: Table, giver: int, to: int, card: int, message: HandOver | None = None) -> HandOver:
    message = message or table.sessions[giver].hand_over(card, to)
    for session in table.sessions:
        assert session.accept_hand_over(giver, message) is None
    return message


def hand_over(table: Table, giver: int, to: int, card: int) -> HandOver:
    """The three steps, every seat checking each."""
    message = name(table, giver, to, card)
    lock = table.sessions[to].relock()
    for session in table.sessions:
        assert session.accept_relock(to, lock) is None
    strip = table.sessions[giver].strip_lock()
    for session in table.sessions:
        assert session.accept_strip(giver, strip) is None
    return message


def _flip(data: bytes, index: int) -> bytes:
    return data[:index] + bytes([data[index] ^ 1]) + data[index + 1:]


def test_a_hand_over_moves_a_position_that_only_the_receiver_can_open():
    table = dealt()
    giver, to, third = 1, 2, 3
    card = hand(table, giver)[0]
    dealt_lock = table.sessions[0].position_lock(table.sessions[giver].positions_of(giver)[0])
    message = hand_over(table, giver, to, card)
    k = message.position
    assert k == table.sessions[giver].positions_of(giver)[0] and message.proof == ()
    assert [s.holder(k) for s in table.sessions] == [to] * N
    assert table.sessions[to].held_card(k) == card
    assert table.sessions[third].held_card(k) is None and table.sessions[0].held_card(k) is None
    assert table.sessions[giver].held_card(k) is None
    # the position is the receiver's lock now: its layer key pair, x_b * M_card
    g, key, value = table.sessions[0].position_lock(k)
    x_b = table.sessions[to].secrets()[1]
    assert x_b is not None and (g, key) == table.sessions[0]._layer(to) != dealt_lock[:2]
    assert value == crypto.G.mul(x_b, table.sessions[0].card_points[card])
    # the receiver proves it like a dealt card; the giver no longer can
    opening = table.sessions[to].prove_open(card)
    assert opening.position == k
    for seat in (0, giver, third):
        assert table.sessions[seat].accept_open(to, opening) is None
    with pytest.raises(DeckUsageError):
        table.sessions[giver].prove_open(card)
    assert table.sessions[third].accept_open(giver, opening) == f"position {k} is no longer held by seat {giver}"
    # the key reveal checks the re-lock and shows the dealt hands, unchanged
    for seat in range(N):
        table.post(seat, table.sessions[seat].reveal_key())
    table.run()
    hands = tuple(hand(table, s) for s in range(N))
    for seat in range(N):
        assert table.violations(seat) == []
        assert table.of_type(seat, HandRevealed) == [HandRevealed(hands)]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(giver=st.integers(0, N - 1), step=st.integers(1, N - 1), index=st.integers(0, 2))
def test_only_the_two_seats_learn_the_card_and_the_keys_show_it(giver, step, index):
    table = dealt()
    to = (giver + step) % N
    card = hand(table, giver)[index]
    message = hand_over(table, giver, to, card)
    k = message.position
    assert [s.held_card(k) for s in table.sessions] == [card if s == to else None for s in range(N)]
    keys = {s: key for s in range(N) if (key := table.sessions[s].secrets()[1]) is not None}
    outsiders = {s: keys[s] for s in range(N) if s not in (giver, to)}
    assert table.sessions[0].card_at(k, outsiders) is None          # the others' keys do not show it
    assert table.sessions[0].card_at(k, {to: keys[to]}) == card      # the receiver's key opens its lock
    assert table.sessions[0].card_at(k, {giver: keys[giver]}) == card   # the dealt seat's key decrypts it
    # handed on again: the next receiver's lock, opened with its own proof
    onward = (to + 1) % N
    again = hand_over(table, to, onward, card)
    assert again.position == k and table.sessions[onward].held_card(k) == card
    assert table.sessions[giver].accept_open(onward, table.sessions[onward].prove_open(card)) is None
    assert table.sessions[0].card_at(k, {onward: keys[onward]}) == card


def test_a_receiver_whose_layer_is_not_proven_is_named():
    table = dealt()
    giver, to = 2, 1
    name(table, giver, to, hand(table, giver)[0])
    lock = table.sessions[to].relock()
    for bad in (HandOverLock(lock.value, _flip(lock.proof, 3)),
                HandOverLock(table.sessions[0].card_points[0], lock.proof)):
        for seat in range(N):
            assert table.sessions[seat].accept_relock(to, bad) == (
                f"seat {to}'s layer on the hand-over of position {table.sessions[giver].positions_of(giver)[0]} "
                "is not proven")
    assert table.sessions[0].accept_relock(3, lock) == "seat 3 is not the hand-over's receiver"


def test_a_giver_whose_strip_is_not_proven_is_named_and_nothing_moves():
    table = dealt()
    giver, to = 3, 0
    card = hand(table, giver)[2]
    message = name(table, giver, to, card)
    lock = table.sessions[to].relock()
    for session in table.sessions:
        assert session.accept_relock(to, lock) is None
    strip = table.sessions[giver].strip_lock()
    other = table.sessions[0].card_points[card]   # a strip that would give the receiver the card in the clear
    for bad in (HandOverStrip(strip.value, _flip(strip.proof, 9)), HandOverStrip(other, strip.proof)):
        for seat in range(N):
            assert table.sessions[seat].accept_strip(giver, bad) == (
                f"seat {giver}'s strip of the hand-over of position {message.position} is not proven")
            assert table.sessions[seat].holder(message.position) == giver
    assert table.sessions[0].accept_strip(to, strip) == f"seat {to} strips no hand-over of its own"
    assert table.sessions[0].accept_strip(giver, HandOverStrip(crypto.IDENTITY, strip.proof)) == (
        "hand-over strip is not a valid group element")


def test_a_hand_over_of_a_position_not_held_or_to_oneself_is_refused():
    table = dealt()
    card = hand(table, 1)[0]
    message = table.sessions[1].hand_over(card, 2)
    assert table.sessions[0].accept_hand_over(0, message) == f"position {message.position} is not held by seat 0"
    itself = HandOver(message.position, 1)
    assert table.sessions[0].accept_hand_over(1, itself) == "seat 1 cannot hand a card to seat 1"
    assert table.sessions[0].accept_hand_over(1, message) is None
    assert table.sessions[0].accept_hand_over(1, message) == "another hand-over is under way"
    with pytest.raises(DeckUsageError):
        table.sessions[1].hand_over(card, 1)
    with pytest.raises(DeckUsageError):
        table.sessions[1].hand_over(hand(table, 2)[0], 3)
    assert not [v for v in table.violations(0) if isinstance(v, Violation)]


# -- test vectors (docs/protocol.md, "Hand-over") ----------------------------------------------

VECTOR_TABLE = bytes(range(32))
VECTOR_KEY = IdentityKey(bytes(range(32)))


def hand_over_vectors() -> dict[str, str]:
    """The envelopes of a ``deck/hand-over`` (position 5 to seat 2, no proof), hand 3, slot 20,
    sender 1, prev 32 × aa, signed with the key of seed 00..1f; of a ``deck/hand-over-lock``
    [M_0, the DLEQ vector] in slot 21, sender 2; of a ``deck/hand-over-strip`` [B_0, the DLEQ
    vector] in slot 22, sender 1 (M_0 and B_0 of table 00..1f, hand id zeros)."""
    hand_id = bytes(32)
    base = crypto.base_point(VECTOR_TABLE, hand_id)
    card0 = crypto.card_points(VECTOR_TABLE, hand_id, 1)[0]
    dleq = bytes.fromhex(VECTORS["dleq"])

    def envelope(payload: Payload, slot: int, sender: int) -> str:
        return sign_envelope(Body(VECTOR_TABLE, 3, slot, sender, b"\xaa" * 32, payload), VECTOR_KEY).hex()

    return {
        "hand_over": envelope(HandOver(5, 2), 20, 1),
        "lock": envelope(HandOverLock(card0, dleq), 21, 2),
        "strip": envelope(HandOverStrip(base, dleq), 22, 1),
    }


HAND_OVER_VECTORS: dict[str, str] = {
    "hand_over": (
        "92c48c88a776657273696f6e03a57461626c65c420000102030405060708090a0b0c0d0e0f101112131415161718191a"
        "1b1c1d1e1fa468616e6403a4736c6f7414a673656e64657201a470726576c420aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa474797065ae6465636b2f68616e642d6f766572a77061796c6f6164920502c4"
        "40fef253630db39685fff942c9a20adc9e3d1b1b01ba465c25ba1f5b3906583e8b9604d26278d000fd00b0a6e7353882"
        "a2e35a11a93590557e58112389d0b4b700"),
    "lock": (
        "92c4f388a776657273696f6e03a57461626c65c420000102030405060708090a0b0c0d0e0f101112131415161718191a"
        "1b1c1d1e1fa468616e6403a4736c6f7415a673656e64657202a470726576c420aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa474797065b36465636b2f68616e642d6f7665722d6c6f636ba77061796c6f61"
        "6492c4200440cc128129e374f6a333d4b7306244d00d2c591c87700cc03797cf95e61e55c44018800788eb0b5150cc07"
        "9a1c5d11b54c67ba0e28813d13cb6b2e2126987dad0bcd83fdb2c8e9f1bc9972073da9354232d827df7bf18179cc64dd"
        "0f57a24f2a0ec440a3d5bb5440a8618efce776b9f66701eddbe40b6ba8f9d2f7f937dcb7f02ea9e2b1706fb13754d270"
        "6780a760f6dce0c40b7392a3ddf87943f32f1dcb690b9301"),
    "strip": (
        "92c4f488a776657273696f6e03a57461626c65c420000102030405060708090a0b0c0d0e0f101112131415161718191a"
        "1b1c1d1e1fa468616e6403a4736c6f7416a673656e64657201a470726576c420aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa474797065b46465636b2f68616e642d6f7665722d7374726970a77061796c6f"
        "616492c42002d00fb90517dc7f708be2d6c33970c34b8f90630124bbc7abb4372763b8e071c44018800788eb0b5150cc"
        "079a1c5d11b54c67ba0e28813d13cb6b2e2126987dad0bcd83fdb2c8e9f1bc9972073da9354232d827df7bf18179cc64"
        "dd0f57a24f2a0ec440a8f39c24ca2ba30bbd95be109488cd1cd4e10c060d1b768e1aef844b1fe7e666eca0210d79751f"
        "0aa8ea0282e5f073ae5c6a41fcb2523bf1550cf9977770a100"),
}


def test_hand_over_vectors():
    assert hand_over_vectors() == HAND_OVER_VECTORS


def test_docs_carry_the_hand_over_vectors():
    from pathlib import Path

    text = (Path(__file__).parents[2] / "docs" / "protocol.md").read_text()
    for value in HAND_OVER_VECTORS.values():
        assert value in text.replace("\n", "")


def test_the_hand_over_messages_decode_strictly():
    for name_, payload_type in (("hand_over", HandOver), ("lock", HandOverLock), ("strip", HandOverStrip)):
        message = decode_envelope(bytes.fromhex(HAND_OVER_VECTORS[name_]))
        assert isinstance(message.body.payload, payload_type) and verify_envelope(message, VECTOR_KEY.public_key)
    handed = decode_envelope(bytes.fromhex(HAND_OVER_VECTORS["hand_over"])).body.payload
    assert isinstance(handed, HandOver) and (handed.position, handed.to, handed.proof) == (5, 2, ())
    for bad in (HandOver(5, 16), HandOverLock(bytes(31), bytes(64)), HandOverStrip(bytes(32), bytes(63))):
        with pytest.raises(MessageError):   # refused when encoded as when decoded (one codec)
            sign_envelope(Body(VECTOR_TABLE, 3, 20, 1, b"\xaa" * 32, bad), VECTOR_KEY)
