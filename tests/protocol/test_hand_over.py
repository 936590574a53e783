"""The private hand-over (docs/protocol.md, "Hand-over") at the deck: a position moves from
one seat to another so that only those two learn its card; the receiver opens it like a dealt
card; a wrong hand-over names the giver from signed evidence, never an honest receiver; the
key reveal checks every hand-over."""

from __future__ import annotations

import copy
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p_sasaki.protocol import crypto
from p2p_sasaki.protocol.crypto import IdentityKey, ProofContext
from p2p_sasaki.protocol.deck import DeckUsageError, HandRevealed, Violation
from p2p_sasaki.protocol.messages import (
    SEALED_OPEN_BYTES,
    Body,
    HandOver,
    HandOverTaken,
    HandOverUnsealed,
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


def hand_over(table: Table, giver: int, to: int, card: int, message: HandOver | None = None) -> HandOver:
    message = message or table.sessions[giver].hand_over(card, to)
    for session in table.sessions:
        assert session.accept_hand_over(giver, message) is None
    return message


def _flip(data: bytes, index: int) -> bytes:
    return data[:index] + bytes([data[index] ^ 1]) + data[index + 1:]


def test_a_hand_over_moves_a_position_that_only_the_receiver_can_open():
    table = dealt()
    giver, to, third = 1, 2, 3
    card = hand(table, giver)[0]
    message = hand_over(table, giver, to, card)
    k = message.position
    assert k == table.sessions[giver].positions_of(giver)[0] and len(message.sealed) == SEALED_OPEN_BYTES
    assert [s.holder(k) for s in table.sessions] == [to] * N
    assert table.sessions[to].held_card(k) == card
    assert table.sessions[third].held_card(k) is None and table.sessions[0].held_card(k) is None
    assert table.sessions[giver].held_card(k) is None
    assert table.sessions[to].receipt(k) == HandOverTaken()
    # the receiver proves it like a dealt card; the giver no longer can
    opening = table.sessions[to].prove_open(card)
    assert opening.position == k
    for seat in (0, giver, third):
        assert table.sessions[seat].accept_open(to, opening) is None
    with pytest.raises(DeckUsageError):
        table.sessions[giver].prove_open(card)
    other = dealt()
    hand_over(other, giver, to, card, message)
    assert other.sessions[third].accept_open(giver, opening) == f"position {k} is no longer held by seat {giver}"
    # the key reveal checks the hand-over and shows the dealt hands, unchanged
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
    assert table.sessions[0].card_at(k, {to: keys[to]}) == card      # the receiver's key unseals it
    assert table.sessions[0].card_at(k, {giver: keys[giver]}) == card   # the dealt seat's key decrypts it
    # handed on again: the next receiver opens it with the same (dealt seat's) proof
    onward = (to + 1) % N
    again = hand_over(table, to, onward, card)
    assert again.position == k and table.sessions[onward].held_card(k) == card
    assert table.sessions[giver].accept_open(onward, table.sessions[onward].prove_open(card)) is None


@given(plain=st.binary(min_size=0, max_size=80), eph=st.binary(min_size=32, max_size=32),
       shared=st.binary(min_size=32, max_size=32), other=st.binary(min_size=32, max_size=32))
def test_sealing_is_its_own_inverse_and_bound_to_the_shared_element(plain, eph, shared, other):
    ctx = ProofContext(bytes(32), bytes(32), "hand-over/3", 1)
    sealed = crypto.hand_over_seal(ctx, eph, shared, plain)
    assert len(sealed) == len(plain)
    assert crypto.hand_over_seal(ctx, eph, shared, sealed) == plain
    if other != shared and len(plain) >= 16:
        assert crypto.hand_over_seal(ctx, eph, other, sealed) != plain


def test_a_sealed_opening_that_does_not_open_names_the_giver():
    table = dealt()
    giver, to = 0, 3
    card = hand(table, giver)[1]
    honest = table.sessions[giver].hand_over(card, to)
    bad = HandOver(honest.position, honest.to, honest.ephemeral, _flip(honest.sealed, 7))
    hand_over(table, giver, to, card, bad)
    receipt = table.sessions[to].receipt(bad.position)
    assert isinstance(receipt, HandOverUnsealed)
    for seat in range(N):   # anyone, from the signed hand-over and the receipt
        assert table.sessions[seat].judge_unsealed(to, bad, giver, receipt) == (
            giver, f"seat {giver}'s hand-over of position {bad.position} to seat {to} does not seal the position's "
            "opening")


def test_a_receiver_that_unseals_a_good_hand_over_is_named():
    table = dealt()
    giver, to = 2, 1
    card = hand(table, giver)[0]
    message = hand_over(table, giver, to, card)
    receiver = table.sessions[to]
    receiver._unsealable.add(message.position)   # a receiver that claims it could not open it
    false = receiver.receipt(message.position)
    assert isinstance(false, HandOverUnsealed)
    assert table.sessions[0].judge_unsealed(to, message, giver, false) == card   # it opens: the card, for the game
    unproven = HandOverUnsealed(false.shared, _flip(false.proof, 3))
    assert table.sessions[0].judge_unsealed(to, message, giver, unproven) == (
        to, f"seat {to}'s unsealing of the hand-over of position {message.position} is not proven")


def test_the_key_reveal_checks_every_hand_over_and_names_the_giver():
    """A bad hand-over its receiver took anyway (colluding, or lazy) is found once the keys are
    out: the giver is named, never the receiver."""
    table = dealt()
    giver, to = 3, 0
    card = hand(table, giver)[2]
    honest = table.sessions[giver].hand_over(card, to)
    bad = HandOver(honest.position, honest.to, honest.ephemeral, _flip(honest.sealed, 40))
    hand_over(table, giver, to, card, bad)
    for seat in range(N):
        table.post(seat, table.sessions[seat].reveal_key())
    table.run()
    for seat in range(N):
        violations = table.violations(seat)
        assert [(v.seat, v.step) for v in violations] == [(giver, "hand-over")], violations


def test_a_hand_over_of_a_position_not_held_or_to_oneself_is_refused():
    table = dealt()
    card = hand(table, 1)[0]
    message = table.sessions[1].hand_over(card, 2)
    assert table.sessions[0].accept_hand_over(0, message) == f"position {message.position} is not held by seat 0"
    itself = HandOver(message.position, 1, message.ephemeral, message.sealed)
    assert table.sessions[0].accept_hand_over(1, itself) == "seat 1 cannot hand a card to seat 1"
    identity = HandOver(message.position, 2, crypto.IDENTITY, message.sealed)
    assert table.sessions[0].accept_hand_over(1, identity) == "hand-over element is not a valid group element"
    with pytest.raises(DeckUsageError):
        table.sessions[1].hand_over(card, 1)
    with pytest.raises(DeckUsageError):
        table.sessions[1].hand_over(hand(table, 2)[0], 3)
    assert not [v for v in table.violations(0) if isinstance(v, Violation)]


# -- test vectors (docs/protocol.md, "Hand-over") ----------------------------------------------

VECTOR_TABLE = bytes(range(32))
VECTOR_KEY = IdentityKey(bytes(range(32)))


def hand_over_vectors() -> dict[str, str]:
    """The pad with ctx (table 00..1f, hand id zeros, step ``hand-over/5``, sender 1),
    ephemeral B_0, shared M_0 (of that table and hand id), 65 bytes; and the envelope of a
    ``deck/hand-over`` (position 5 to seat 2, ephemeral B_0, sealed = that pad XOR (card 7 ‖
    the DLEQ vector)), hand 3, slot 20, sender 1, prev 32 × aa, signed with the key of seed
    00..1f; and the receipts' envelopes in slot 21, sender 2."""
    hand_id = bytes(32)
    base = crypto.base_point(VECTOR_TABLE, hand_id)
    card0 = crypto.card_points(VECTOR_TABLE, hand_id, 1)[0]
    ctx = ProofContext(VECTOR_TABLE, hand_id, "hand-over/5", 1)
    pad = crypto.hand_over_pad(ctx, base, card0, SEALED_OPEN_BYTES)
    dleq = bytes.fromhex(VECTORS["dleq"])
    sealed = crypto.hand_over_seal(ctx, base, card0, bytes([7]) + dleq)

    def envelope(payload: Payload, slot: int, sender: int) -> str:
        return sign_envelope(Body(VECTOR_TABLE, 3, slot, sender, b"\xaa" * 32, payload), VECTOR_KEY).hex()

    return {
        "pad": pad.hex(),
        "hand_over": envelope(HandOver(5, 2, base, sealed), 20, 1),
        "taken": envelope(HandOverTaken(), 21, 2),
        "unsealed": envelope(HandOverUnsealed(card0, dleq), 21, 2),
    }


HAND_OVER_VECTORS: dict[str, str] = {
    "pad": (
        "3b87daebef8ac1dd2b20b503efdd1ee8e4a4eb7019c29d43d5d470363d3f8eba7434f0a86dc4cc285134d3fd12ec83f4"
        "4c8cb9e0575406ac07bf86e9a4ce7a7063"),
    "hand_over": (
        "92c4f188a776657273696f6e03a57461626c65c420000102030405060708090a0b0c0d0e0f101112131415161718191a"
        "1b1c1d1e1fa468616e6403a4736c6f7414a673656e64657201a470726576c420aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa474797065ae6465636b2f68616e642d6f766572a77061796c6f6164940502c4"
        "2002d00fb90517dc7f708be2d6c33970c34b8f90630124bbc7abb4372763b8e071c4413c9f5aec6761ca8c7becb299f3"
        "800f5da8c3517e3143a0501ebf5e171ba7f3177ff97355df0c25d9edada1fa2f45b6b67e549e3f2ca587d5cbdb5be6f3"
        "6c355a6dc440b0201b122dbcef5f579721d0ddd211d04226ebcd27dd526d76721b7bfba87b636fc950c42aff1723bb1a"
        "85f25caa5b362da94b8828f78f45ca7029a2334f4c07"),
    "taken": (
        "92c49088a776657273696f6e03a57461626c65c420000102030405060708090a0b0c0d0e0f101112131415161718191a"
        "1b1c1d1e1fa468616e6403a4736c6f7415a673656e64657202a470726576c420aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa474797065b46465636b2f68616e642d6f7665722d74616b656ea77061796c6f"
        "616490c440b8b41cd1ba18b036054e6aa93f297d6cf149bc322335f8b20dcdb411c65da49b796d83078634c02f60393d"
        "debc92e0198186438275024503dad88a0637701200"),
    "unsealed": (
        "92c4f788a776657273696f6e03a57461626c65c420000102030405060708090a0b0c0d0e0f101112131415161718191a"
        "1b1c1d1e1fa468616e6403a4736c6f7415a673656e64657202a470726576c420aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa474797065b76465636b2f68616e642d6f7665722d756e7365616c6564a77061"
        "796c6f616492c4200440cc128129e374f6a333d4b7306244d00d2c591c87700cc03797cf95e61e55c44018800788eb0b"
        "5150cc079a1c5d11b54c67ba0e28813d13cb6b2e2126987dad0bcd83fdb2c8e9f1bc9972073da9354232d827df7bf181"
        "79cc64dd0f57a24f2a0ec44076aab091beb6c676483169a78ced75be2a86da09e5973d781c8e508db9d0007b0b1211eb"
        "92e38db0fecf6ae149a1e39800f5948d70713d615bbd26a3074ed305"),
}


def test_hand_over_vectors():
    assert hand_over_vectors() == HAND_OVER_VECTORS


def test_docs_carry_the_hand_over_vectors():
    from pathlib import Path

    text = (Path(__file__).parents[2] / "docs" / "protocol.md").read_text()
    for value in HAND_OVER_VECTORS.values():
        assert value in text.replace("\n", "")


def test_the_hand_over_messages_decode_strictly():
    for name, payload_type in (("hand_over", HandOver), ("taken", HandOverTaken), ("unsealed", HandOverUnsealed)):
        message = decode_envelope(bytes.fromhex(HAND_OVER_VECTORS[name]))
        assert isinstance(message.body.payload, payload_type) and verify_envelope(message, VECTOR_KEY.public_key)
    handed = decode_envelope(bytes.fromhex(HAND_OVER_VECTORS["hand_over"])).body.payload
    assert isinstance(handed, HandOver) and (handed.position, handed.to, len(handed.sealed)) == (5, 2, 65)
    for bad in (HandOver(5, 2, bytes(32), bytes(64)), HandOver(5, 16, bytes(32), bytes(65)),
                HandOverUnsealed(bytes(31), bytes(64))):
        with pytest.raises(MessageError):   # refused when encoded as when decoded (one codec)
            sign_envelope(Body(VECTOR_TABLE, 3, 20, 1, b"\xaa" * 32, bad), VECTOR_KEY)
