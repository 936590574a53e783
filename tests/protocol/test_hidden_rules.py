"""protocol/hidden_rules.py: a rule on hidden cards is proven only when it holds, only in
its context, and the proof shows nothing but its public shape."""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p_sasaki.cards import Card, mask_indices
from p2p_sasaki.protocol import crypto, hidden_rules
from p2p_sasaki.protocol.crypto import G, SeededEntropy
from p2p_sasaki.protocol.deck import HandDealt
from p2p_sasaki.protocol.hidden_rules import (
    ClauseProof,
    FalseStatement,
    HiddenCard,
    HiddenRuleError,
    HiddenRuleProof,
    RuleContext,
    Statement,
    clause_size,
    give,
    nine_pictures,
    no_follow,
    prove,
    return_card,
    verify,
)
from p2p_sasaki.sasku.bots import play
from p2p_sasaki.sasku.deal import Action, Give, Play, Return, Take, random_hands
from p2p_sasaki.sasku.deal import Deal as SaskuDeal
from p2p_sasaki.sasku.trumps import PACK, follow_mask, is_picture
from p2p_sasaki.sasku.trumps import PICTURES as PACK_PICTURES
from tests.protocol.helpers import Table

TABLE = bytes(range(32))
N_CARDS, SEATS = 36, 4
SETTINGS = settings(max_examples=8, deadline=None)

# The Sasku adapter's job, done here for the tests: deck card i is the i-th card of the pack.
PACK_CARDS = tuple(mask_indices(PACK))
PICTURES = frozenset(i for i, card in enumerate(PACK_CARDS) if is_picture(card))


def follow_cards(led: int, trump: int) -> frozenset[int]:
    mask = follow_mask(PACK_CARDS[led], trump)
    return frozenset(i for i, card in enumerate(PACK_CARDS) if mask >> card & 1)


@dataclasses.dataclass
class Deal:
    """A deck after its deal, as the seats hold it: position k belongs to seat k % 4 and its
    lock is (B_s, B_{s+1}, x_s*M_card), the keys and bases as a real deal makes them."""

    hand_id: bytes
    points: tuple[bytes, ...]
    keys: list[int]
    bases: list[bytes]
    cards: list[int]  # the card at each position

    @classmethod
    def make(cls, seed: bytes) -> Deal:
        entropy = SeededEntropy(b"deal" + seed)
        hand_id = entropy(32)
        keys = [crypto.random_scalar(entropy) for _ in range(SEATS)]
        bases = [crypto.base_point(TABLE, hand_id)]
        for x in keys:
            bases.append(G.mul(x, bases[-1]))
        return cls(hand_id, crypto.card_points(TABLE, hand_id, N_CARDS), keys, bases,
                   list(crypto.random_permutation(entropy, N_CARDS)))

    def lock(self, position: int) -> HiddenCard:
        seat = position % SEATS
        return HiddenCard(position, self.bases[seat], self.bases[seat + 1],
                          G.mul(self.keys[seat], self.points[self.cards[position]]))

    def hidden(self, seat: int, played: int = 0) -> list[HiddenCard]:
        """The seat's positions after it played its first ``played`` ones."""
        return [self.lock(k) for k in range(seat, N_CARDS, SEATS)][played:]

    def secrets(self, seat: int) -> dict[bytes, int]:
        return {self.bases[seat + 1]: self.keys[seat]}

    def context(self, seat: int, slot: int = 77) -> RuleContext:
        return RuleContext(TABLE, self.hand_id, slot, seat, hashlib.sha256(b"transcript").digest())

    def holds_any(self, hidden: list[HiddenCard], forbidden: frozenset[int]) -> bool:
        return any(self.cards[card.position] in forbidden for card in hidden)


def cheat(deal: Deal, seat: int, statement: Statement, entropy: SeededEntropy) -> HiddenRuleProof:
    """A seat that proves a false statement by running the honest steps without the check."""
    ctx = deal.context(seat)
    digest = hidden_rules.statement_digest(ctx, statement)
    return HiddenRuleProof(tuple(
        hidden_rules._prove_clause(hidden_rules.clause_context(ctx, digest, i), clause, deal.points,
                                   deal.keys[seat], entropy, honest=False)
        for i, clause in enumerate(statement.clauses)
    ))


def check_rule(deal: Deal, seat: int, statement: Statement, holds: bool, seed: bytes) -> None:
    """An honest seat proves a true statement (and only in its context); a false one it
    cannot prove, and a cheater's proof of it fails."""
    entropy = SeededEntropy(b"prove" + seed)
    ctx = deal.context(seat)
    if holds:
        proof = prove(ctx, statement, deal.points, deal.secrets(seat), entropy)
        assert verify(ctx, statement, deal.points, proof)
        assert proof.size == sum(clause_size(len(c.cards), len(c.forbidden)) for c in statement.clauses)
        other = dataclasses.replace(ctx, slot=ctx.slot + 1)
        assert statement.clauses == () or not verify(other, statement, deal.points, proof)
    else:
        with pytest.raises(FalseStatement) as caught:
            prove(ctx, statement, deal.points, deal.secrets(seat), entropy)
        assert deal.cards[caught.value.position] == caught.value.card
        assert not verify(ctx, statement, deal.points, cheat(deal, seat, statement, entropy))


# -- the rules over random deals ----------------------------------------------------------


@SETTINGS
@given(seed=st.binary(min_size=1, max_size=4), seat=st.integers(0, 3), played=st.integers(0, 8),
       led=st.integers(0, N_CARDS - 1), trump=st.integers(0, 3), void=st.booleans())
def test_not_following_is_proven_only_by_a_seat_void_in_the_suit(seed, seat, played, led, trump, void):
    deal = Deal.make(seed)
    hidden = deal.hidden(seat, played)[1:]  # it plays the first of its unplayed cards now
    if void:  # a card led that the seat cannot follow, when there is one
        voids = [card for card in range(N_CARDS) if not deal.holds_any(hidden, follow_cards(card, trump))]
        led = voids[led % len(voids)] if voids else led
    follow = follow_cards(led, trump)
    statement = no_follow(hidden, follow)
    check_rule(deal, seat, statement, not deal.holds_any(hidden, follow), seed)


@SETTINGS
@given(seed=st.binary(min_size=1, max_size=4), seat=st.integers(0, 3), given_at=st.integers(0, 8))
def test_a_give_is_proven_only_with_the_one_picture(seed, seat, given_at):
    deal = Deal.make(seed)
    hand = deal.hidden(seat)
    given_card, others = hand[given_at], hand[:given_at] + hand[given_at + 1:]
    statement = give(given_card, others, PICTURES, N_CARDS)
    only_picture = deal.cards[given_card.position] in PICTURES and not deal.holds_any(others, PICTURES)
    check_rule(deal, seat, statement, only_picture, seed)


def arrange(deal: Deal, seat: int, hand: list[int]) -> None:
    """Give ``seat`` these nine cards, the other seats the rest in order."""
    rest = iter(c for c in range(N_CARDS) if c not in hand)
    mine = iter(hand)
    deal.cards = [next(mine) if k % SEATS == seat else next(rest) for k in range(N_CARDS)]


def test_a_give_with_exactly_one_picture_and_with_two():
    """Hands arranged for the cases a random deal rarely reaches."""
    deal = Deal.make(b"arranged")
    plain, pictures = sorted(set(range(N_CARDS)) - PICTURES), sorted(PICTURES)
    arrange(deal, 1, plain[:2] + pictures[:1] + plain[2:8])
    hand = deal.hidden(1)
    check_rule(deal, 1, give(hand[2], hand[:2] + hand[3:], PICTURES, N_CARDS), True, b"one")
    check_rule(deal, 1, give(hand[0], hand[1:], PICTURES, N_CARDS), False, b"plain")  # gives a plain card
    # the picture shown to everyone (picture_shown): only the others are proven
    check_rule(deal, 1, give(None, hand[:2] + hand[3:], PICTURES, N_CARDS), True, b"shown")
    arrange(deal, 1, plain[:2] + pictures[:1] + plain[2:5] + pictures[1:2] + plain[5:7])
    hand = deal.hidden(1)
    check_rule(deal, 1, give(hand[2], hand[:2] + hand[3:], PICTURES, N_CARDS), False, b"two")


@SETTINGS
@given(seed=st.binary(min_size=1, max_size=4), seat=st.integers(0, 3), returned=st.integers(0, 8))
def test_a_return_is_proven_only_for_a_plain_card(seed, seat, returned):
    deal = Deal.make(seed)
    card = deal.hidden(seat)[returned]
    check_rule(deal, seat, return_card(card, PICTURES), deal.cards[card.position] not in PICTURES, seed)


def test_nine_pictures_is_proven_only_by_a_hand_of_pictures():
    deal = Deal.make(b"nine")
    arrange(deal, 2, sorted(PICTURES)[:9])
    check_rule(deal, 2, nine_pictures(deal.hidden(2), PICTURES, N_CARDS), True, b"2")
    check_rule(deal, 0, nine_pictures(deal.hidden(0), PICTURES, N_CARDS), False, b"0")


def test_nothing_hidden_nothing_to_prove():
    deal = Deal.make(b"last")
    statement = no_follow(deal.hidden(0, 9), follow_cards(0, 0))
    assert statement.clauses == ()
    proof = prove(deal.context(0), statement, deal.points, deal.secrets(0), SeededEntropy(b"e"))
    assert proof == HiddenRuleProof(()) and verify(deal.context(0), statement, deal.points, proof)


def test_a_position_handed_over_under_another_key_is_its_own_clause():
    """A position that came from another seat (locked under a key its new holder knows,
    docs/protocol.md): one clause per key, each proven with its own secret."""
    deal = Deal.make(b"moved")
    entropy = SeededEntropy(b"moved")
    mine = deal.hidden(0)
    z, base = crypto.random_scalar(entropy), deal.bases[2]
    moved_card = next(c for c in range(N_CARDS) if c not in PICTURES and deal.cards.index(c) % SEATS != 0)
    moved = HiddenCard(3, base, G.mul(z, base), G.mul(z, deal.points[moved_card]))
    forbidden = {c for c in PICTURES if deal.cards.index(c) % SEATS != 0}
    statement = no_follow([*mine, moved], forbidden)
    assert [len(c.cards) for c in statement.clauses] == [9, 1]
    secrets = deal.secrets(0) | {moved.key: z}
    ctx = deal.context(0)
    proof = prove(ctx, statement, deal.points, secrets, entropy)
    assert verify(ctx, statement, deal.points, proof)
    with pytest.raises(HiddenRuleError, match="no secret"):
        prove(ctx, statement, deal.points, deal.secrets(0), entropy)
    with pytest.raises(FalseStatement) as caught:
        prove(ctx, no_follow([*mine, moved], {moved_card}), deal.points, secrets, entropy)
    assert caught.value.position == 3


class GivingBot:
    """A random bot that gives, takes and returns whenever it may (so deals exercise them)."""

    uses_view = False

    def __init__(self, rng: Random) -> None:
        self.rng = rng

    def choose(self, view: object, legal: Sequence[Action]) -> Action:
        eager = [a for a in legal if isinstance(a, (Give, Take))]
        return eager[0] if eager else legal[int(self.rng.random() * len(legal))]


def test_the_engines_deals_every_hidden_rule_proven_and_no_renege():
    """Sasku deals played by the engine (bots that give whenever they may): every play that
    does not follow, every give and every return is proven with the action and verifies;
    at every play where the seat could have followed, a renege's statement is false (no
    proof, and a cheater's fails). A card that changed hands is locked under its new
    holder's key (what the hand-over has to leave behind)."""
    deal = Deal.make(b"engine")
    points = deal.points
    entropy = SeededEntropy(b"engine")
    seeds = (seed for seed in itertools.count()
             if any((hand & PACK_PICTURES).bit_count() == 1 for hand in random_hands(Random(seed))))
    proven: Counter[str] = Counter()
    for seed in itertools.islice(seeds, 2):
        state = SaskuDeal(random_hands(Random(seed)))
        bots = [GivingBot(Random(seed * 4 + s)) for s in range(SEATS)]

        def lock(seat: int, card: Card) -> HiddenCard:
            index = PACK_CARDS.index(card.index)
            return HiddenCard(index, deal.bases[seat], deal.bases[seat + 1], G.mul(deal.keys[seat], points[index]))

        def check(seat: int, step: int, statement: Statement) -> None:
            ctx = deal.context(seat, slot=step)
            proof = prove(ctx, statement, points, deal.secrets(seat), entropy)
            assert verify(ctx, statement, points, proof)
            other_seat = deal.context((seat + 1) % SEATS, slot=step)
            assert not statement.clauses or not verify(other_seat, statement, points, proof)  # (the last trick: none)
            proven[statement.rule] += 1

        for step, (_, action, after) in enumerate(play(state, bots)):
            before, state = state, after
            hand = [lock(action.seat, card) for card in before.cards(action.seat)]
            if isinstance(action, Play) and before.trick:
                assert before.trump is not None
                follow = follow_cards(PACK_CARDS.index(before.trick[0].index), int(before.trump))
                others = [c for c in hand if c.position != PACK_CARDS.index(action.card.index)]
                if PACK_CARDS.index(action.card.index) not in follow:
                    check(action.seat, step, no_follow(others, follow))
                elif any(c.position not in follow for c in others):
                    # it could have reneged, playing a card that does not follow: that statement is false
                    reneged = next(c for c in others if c.position not in follow)
                    renege = no_follow([c for c in hand if c != reneged], follow)
                    with pytest.raises(FalseStatement):
                        prove(deal.context(action.seat), renege, points, deal.secrets(action.seat), entropy)
                    assert not verify(deal.context(action.seat), renege, points,
                                      cheat(deal, action.seat, renege, entropy))
            elif isinstance(action, Give):
                assert action.card is not None
                given = lock(action.seat, action.card)
                check(action.seat, step, give(given, [c for c in hand if c != given], PICTURES, N_CARDS))
            elif isinstance(action, Return):
                assert action.card is not None
                check(action.seat, step, return_card(lock(action.seat, action.card), PICTURES))
        assert state.is_over
    assert proven["give"] >= 1 and proven["return"] >= 1 and proven["no-follow"] >= 4


# -- a proof holds for its statement and context only -------------------------------------


@pytest.fixture(scope="module")
def proven() -> tuple[Deal, Statement, HiddenRuleProof]:
    deal = Deal.make(b"tamper")
    seat, hidden = 0, deal.hidden(0, 1)
    held = {deal.cards[c.position] for c in hidden}
    void_led = next(led for led in range(N_CARDS) if not held & follow_cards(led, 0))
    statement = no_follow(hidden, follow_cards(void_led, 0))
    proof = prove(deal.context(seat), statement, deal.points, deal.secrets(seat), SeededEntropy(b"tamper"))
    assert verify(deal.context(seat), statement, deal.points, proof)
    return deal, statement, proof


def _flip(data: bytes) -> bytes:
    return data[:5] + bytes([data[5] ^ 1]) + data[6:]


def _tampered(proof: HiddenRuleProof) -> list[HiddenRuleProof]:
    (clause,) = proof.clauses
    other = crypto.hash_to_group(b"test", b"other")
    argument = clause.argument
    assert isinstance(argument, crypto.ShuffleArgument)
    versions = [
        dataclasses.replace(clause, images=(other, *clause.images[1:])),
        dataclasses.replace(clause, images=clause.images[::-1]),
        dataclasses.replace(clause, images=clause.images[:-1]),
        dataclasses.replace(clause, scaled_key=other),
        dataclasses.replace(clause, tags=(other, *clause.tags[1:])),
        dataclasses.replace(clause, tags=clause.tags[1:]),
        dataclasses.replace(clause, tags=clause.tags[::-1]),
        dataclasses.replace(clause, tag_proof=_flip(clause.tag_proof)),
        dataclasses.replace(clause, argument=dataclasses.replace(argument, elements=(other, *argument.elements[1:]))),
        dataclasses.replace(clause, argument=dataclasses.replace(argument, scalars=(_flip(argument.scalars[0]),
                                                                                     *argument.scalars[1:]))),
        dataclasses.replace(clause, images=(clause.images[0][:31] + bytes([clause.images[0][31] | 0x80]),
                                            *clause.images[1:])),
    ]
    return [HiddenRuleProof((version,)) for version in versions] + [
        HiddenRuleProof(()), HiddenRuleProof((clause, clause))]


def test_a_tampered_proof_fails(proven):
    deal, statement, proof = proven
    for tampered in _tampered(proof):
        assert not verify(deal.context(0), statement, deal.points, tampered)


def test_remembered_checks_answer_as_the_full_checks(proven):
    """The honest proof's checks are remembered (crypto.check_memo, filled by the fixture):
    every tampered proof is still refused, with the answer the checks give in full."""
    deal, statement, proof = proven
    ctx = deal.context(0)
    for candidate in (proof, *_tampered(proof)):
        with crypto.check_memo.off():
            full = verify(ctx, statement, deal.points, candidate)
        assert full is (candidate is proof)
        assert verify(ctx, statement, deal.points, candidate) is full
        assert verify(ctx, statement, deal.points, candidate) is full   # from the memo


def test_a_tampered_one_position_proof_fails():
    deal = Deal.make(b"one")
    card = next(c for c in deal.hidden(2) if deal.cards[c.position] not in PICTURES)
    statement = return_card(card, PICTURES)
    ctx = deal.context(2)
    proof = prove(ctx, statement, deal.points, deal.secrets(2), SeededEntropy(b"one"))
    (clause,) = proof.clauses
    assert verify(ctx, statement, deal.points, proof) and isinstance(clause.argument, bytes)
    other = crypto.hash_to_group(b"test", b"other")
    for version in (
        dataclasses.replace(clause, argument=_flip(clause.argument)),
        dataclasses.replace(clause, images=(other,)),
        dataclasses.replace(clause, scaled_key=other),
        dataclasses.replace(clause, images=(clause.images[0], other)),
        dataclasses.replace(clause, tags=(other, *clause.tags[1:])),
        dataclasses.replace(clause, tag_proof=_flip(clause.tag_proof)),
    ):
        assert not verify(ctx, statement, deal.points, HiddenRuleProof((version,)))
    assert not verify(dataclasses.replace(ctx, transcript=bytes(32)), statement, deal.points, proof)
    assert not verify(ctx, return_card(dataclasses.replace(card, position=card.position + 4), PICTURES),
                      deal.points, proof)


def test_another_context_or_statement_fails(proven):
    deal, statement, proof = proven
    ctx = deal.context(0)
    for other in (dataclasses.replace(ctx, table=bytes(32)), dataclasses.replace(ctx, hand_id=bytes(32)),
                  dataclasses.replace(ctx, slot=78), dataclasses.replace(ctx, seat=2),
                  dataclasses.replace(ctx, transcript=bytes(32))):
        assert not verify(other, statement, deal.points, proof)
    (clause,) = statement.clauses
    for changed in (
        dataclasses.replace(statement, rule="return"),
        dataclasses.replace(statement, rule="no-such-rule"),
        Statement("no-follow", (dataclasses.replace(clause, forbidden=clause.forbidden[1:]),)),
        Statement("no-follow", (dataclasses.replace(clause, cards=clause.cards[1:]),)),
        no_follow(deal.hidden(0, 0), clause.forbidden),  # with the card just played
        no_follow(deal.hidden(1, 1), clause.forbidden),  # another seat's positions
    ):
        assert not verify(ctx, changed, deal.points, proof)
    assert not verify(ctx, statement, crypto.card_points(TABLE, bytes(32), N_CARDS), proof)


def test_a_forged_tag_does_not_hide_a_held_card():
    """A cheater holding a forbidden card replaces its colliding tag by another point: the
    batched DLEQ refuses it."""
    deal = Deal.make(b"forge")
    hidden = deal.hidden(3)
    held = deal.cards[hidden[4].position]
    statement = no_follow(hidden, {held, (held + 1) % N_CARDS} - {deal.cards[c.position] for c in hidden[:4]})
    proof = cheat(deal, 3, statement, SeededEntropy(b"forge"))
    (clause,) = proof.clauses
    j = statement.clauses[0].forbidden.index(held)
    forged = dataclasses.replace(clause, tags=tuple(
        crypto.hash_to_group(b"test", b"forged") if i == j else tag for i, tag in enumerate(clause.tags)))
    assert set(forged.tags).isdisjoint(forged.images)
    assert not verify(deal.context(3), statement, deal.points, HiddenRuleProof((forged,)))


def test_leaving_out_the_position_that_holds_the_card_does_not_help():
    """A cheater proves the true statement about its other positions; every peer builds the
    statement over all of its hidden positions, and the proof fails for it."""
    deal = Deal.make(b"omit")
    hidden = deal.hidden(1, 2)
    held = deal.cards[hidden[3].position]
    others = hidden[:3] + hidden[4:]
    forbidden = {held} | (set(range(N_CARDS)) - {deal.cards[c.position] for c in hidden})
    ctx = deal.context(1)
    partial = prove(ctx, no_follow(others, forbidden), deal.points, deal.secrets(1), SeededEntropy(b"omit"))
    assert verify(ctx, no_follow(others, forbidden), deal.points, partial)
    assert not verify(ctx, no_follow(hidden, forbidden), deal.points, partial)


def test_malformed_statements_are_refused_by_the_prover_and_fail_verification(proven):
    deal, statement, proof = proven
    (clause,) = statement.clauses
    for bad in (
        Statement("no-follow", (dataclasses.replace(clause, forbidden=()),)),
        Statement("no-follow", (dataclasses.replace(clause, forbidden=(N_CARDS,)),)),
        Statement("no-follow", (dataclasses.replace(clause, cards=clause.cards[::-1]),)),
        Statement("no-follow", (clause, clause)),
        Statement("whatever", (clause,)),
    ):
        with pytest.raises(HiddenRuleError):
            prove(deal.context(0), bad, deal.points, deal.secrets(0), SeededEntropy(b"x"))
        assert not verify(deal.context(0), bad, deal.points, proof)


# -- what a proof shows ----------------------------------------------------------------------


def test_a_proof_shows_only_its_public_shape():
    """Two seats with different cards, same counts: proofs of the same size, and no element
    of either proof is a card point, a hidden value or a multiple any verifier can form
    (the images are the hidden cards under a fresh key, in shuffled order)."""
    deal = Deal.make(b"shape")
    follow = follow_cards(0, 0)
    sizes: set[int] = set()
    seen: set[bytes] = set()
    for seat in range(SEATS):
        hidden = [c for c in deal.hidden(seat) if deal.cards[c.position] not in follow][:3]
        statement = no_follow(hidden, follow)
        proof = prove(deal.context(seat), statement, deal.points, deal.secrets(seat), SeededEntropy(bytes([seat])))
        sizes.add(proof.size)
        (clause,) = proof.clauses
        public = {*deal.points, *deal.bases, *(c.value for c in hidden)}
        assert public.isdisjoint(clause.images) and public.isdisjoint(clause.tags)
        seen.update(clause.images)
    assert sizes == {clause_size(3, len(follow))} and len(seen) == 4 * 3
    # the same statement proven twice: fresh key, nothing in common
    statement = no_follow(hidden, follow)
    one, two = (prove(deal.context(3), statement, deal.points, deal.secrets(3), SeededEntropy(bytes([n]))).clauses[0]
                for n in (1, 2))
    assert set(one.images).isdisjoint(two.images) and set(one.tags).isdisjoint(two.tags)


# -- a real deal ----------------------------------------------------------------------------


def test_on_a_real_deal_the_seat_proves_with_its_deck_key():
    table = Table(n=SEATS, n_cards=N_CARDS, seed=b"hidden")
    table.start()
    deck = table.sessions[1]
    (dealt,) = table.of_type(1, HandDealt)
    hidden = [HiddenCard(k, *deck.position_lock(k)) for k in dealt.positions]
    _, x, _ = deck.secrets()
    assert x is not None
    ctx = RuleContext(TABLE, deck.hand_id or b"", 200, 1, bytes(32))
    void = frozenset(range(N_CARDS)) - frozenset(dealt.cards)
    statement = no_follow(hidden, sorted(void)[:18])
    proof = prove(ctx, statement, deck.card_points, {hidden[0].key: x}, SeededEntropy(b"real"))
    observer = table.sessions[3]
    assert [observer.position_lock(k) for k in dealt.positions] == [(c.base, c.key, c.value) for c in hidden]
    assert verify(ctx, statement, observer.card_points, proof)
    with pytest.raises(FalseStatement):
        prove(ctx, no_follow(hidden, [dealt.cards[4]]), deck.card_points, {hidden[0].key: x}, SeededEntropy(b"r"))


# -- the test vector -------------------------------------------------------------------------

# Repeated in docs/protocol.md ("Hidden-card rules", test vector): test_docs_carry_the_vector.
VECTOR = {
    "digest": "1ff22991924f43b3606b3b691b112018750d30e416b5bce5267e8a9f75675f1d",
    "first_image": "08158bff7796550a90e7fd71378bc8e6a7135e7829d9f61fed32b21ffa797871",
    "proof_sha256": "9afcfda200a72f2cf3df6c52da1bc6ec0944b12738d51f290973a392f5533f9c",
    "size": "832",
    "return_digest": "6aa82a398080f09ac61531b848951464691111e5c22cd156516b8946eb635713",
    "return_sha256": "79044b503f2a398d99f914428a5bc4a78a8541c9398cb12ffd44648517f97dfb",
    "return_size": "320",
}


def vector_proofs() -> dict[str, str]:
    """Seat 1 with key x (the first scalar of test entropy ``vector``), base B_0 of table
    00..1f and hand id 32 zero bytes, key x*B_0, positions 1, 5, 9, 13 holding cards 0, 1,
    2, 9. With the same entropy stream it proves, in slot 40 with transcript 32 x aa, that
    positions 1, 5, 9 hold none of cards 3..8 (no-follow), then, in slot 41, that position 13
    holds none of cards 20..23 (return)."""
    entropy = SeededEntropy(b"vector")
    hand_id = bytes(32)
    points = crypto.card_points(TABLE, hand_id, N_CARDS)
    base = crypto.base_point(TABLE, hand_id)
    x = crypto.random_scalar(entropy)
    key = G.mul(x, base)
    hidden = [HiddenCard(k, base, key, G.mul(x, points[card])) for k, card in ((1, 0), (5, 1), (9, 2), (13, 9))]
    out = {}
    for slot, name, statement in ((40, "", no_follow(hidden[:3], range(3, 9))),
                                  (41, "return_", return_card(hidden[3], range(20, 24)))):
        ctx = RuleContext(TABLE, hand_id, slot, 1, bytes([0xAA]) * 32)
        proof = prove(ctx, statement, points, {key: x}, entropy)
        assert verify(ctx, statement, points, proof)
        assert len(proof_bytes(proof)) == proof.size
        out[f"{name}digest"] = hidden_rules.statement_digest(ctx, statement).hex()
        out[f"{name}sha256" if name else "proof_sha256"] = hashlib.sha256(proof_bytes(proof)).hexdigest()
        out[f"{name}size"] = str(proof.size)
        if not name:
            out["first_image"] = proof.clauses[0].images[0].hex()
    return out


def proof_bytes(proof: HiddenRuleProof) -> bytes:
    """The proof's fields concatenated in wire order (images, Y, the argument's elements and
    scalars or the DLEQ, tags, DLEQ)."""
    def argument(clause: ClauseProof) -> bytes:
        if isinstance(clause.argument, bytes):
            return clause.argument
        return b"".join((*clause.argument.elements, *clause.argument.scalars))

    return b"".join(
        b"".join((*c.images, c.scaled_key, argument(c), *c.tags, c.tag_proof)) for c in proof.clauses
    )


def test_vector():
    assert vector_proofs() == VECTOR


def test_docs_carry_the_vector():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text(encoding="utf-8")
    for value in VECTOR.values():
        assert value in doc
