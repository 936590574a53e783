"""p2p_sasaki/sasaki/hand.py, hidden mode: one peer's hand on partial information (Hand.for_peer)."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p_sasaki.cards import CardSet, Rank
from p2p_sasaki.sasaki.combos import Combo, Kind
from p2p_sasaki.sasaki.hand import (
    AuditNeededError,
    Chata,
    DealError,
    Decision,
    DecisionKind,
    Decline,
    Expose,
    Hand,
    HiddenInformationError,
    IllegalActionError,
    Kkojda,
    Pass,
    Play,
    Run,
    Stop,
)
from p2p_sasaki.sasaki.options import TableOptions
from tests.engine.sasaki.helpers import deal, new_hand

T = DecisionKind.TURN
# S0 holds the 3H and TH, S1 holds TD (partners S0+S1).
D = deal("3H TH 9C 9D", "TD 9H 4C", "9S 5C 5D", "5H 5S KC")
OPTIONS = TableOptions(lead_card="3H")


def peers(specs=D, lead="3H", **options):
    """The full hand and the four peers' hidden hands of the same deal."""
    full = new_hand(specs, lead, **options)
    opts = TableOptions(lead_card=lead, **options)
    return full, [Hand.for_peer(s, specs[s], full.first_leader, lead, opts) for s in range(4)]


def everywhere(hands, step):
    for hand in hands:
        step(hand)


def resolve(hands, *answers):
    everywhere(hands, lambda h: h.resolve(list(answers)))


def apply(hands, action):
    everywhere(hands, lambda h: h.apply(action))


def decline_all(hands):
    seats = hands[0].decision.seats
    resolve(hands, *[Decline(s) for s in seats])


# -- construction ------------------------------------------------------------------------

def test_for_peer_knows_its_own_cards_and_the_public_opening_3():
    full, (p0, p1, p2, p3) = peers()
    assert p2.cards(2) == D[2] and p2.peer == 2 and full.peer is None
    assert [p2.hand_size(s) for s in range(4)] == [12] * 4
    assert p2.dealt == (CardSet.parse("3H").mask, 0, D[2].mask, 0)
    assert p2.unknown_cards() == CardSet(D[1].mask | D[3].mask | D[0].mask & ~CardSet.parse("3H").mask)
    assert len(p0.unknown_cards()) == 36 and len(p2.unknown_cards()) == 35
    assert all(p.state_hash() == full.state_hash() for p in (p0, p1, p2, p3))
    assert p2.view(2).shown == full.view(2).shown == (CardSet.parse("3H"), CardSet(), CardSet(), CardSet())


def test_for_peer_checks_its_share_of_the_deal():
    with pytest.raises(DealError, match="S1 cannot hold the 3H: S0 leads"):
        Hand.for_peer(1, D[0], 0, "3H", OPTIONS)
    with pytest.raises(DealError, match="S0 must hold the 3H: S0 leads"):
        Hand.for_peer(0, D[1], 0, "3H", OPTIONS)
    with pytest.raises(DealError, match="a seat is dealt 12 cards, not 3"):
        Hand.for_peer(2, "4C 5C 6C", 0, "3H", OPTIONS)
    with pytest.raises(ValueError, match="lead_card 'auto' must be resolved"):
        Hand.for_peer(0, D[0], 0)


def test_methods_that_need_a_whole_hand_refuse_unknown_seats():
    full, (p0, p1, p2, p3) = peers()
    message = "S1's cards are hidden from this peer: 0 of its 12 cards are known"
    for call in (lambda: p0.cards(1), lambda: p0.legal_actions(1), lambda: p0.legal_play_masks(1),
                 lambda: p0.view(1)):
        with pytest.raises(HiddenInformationError, match=message):
            call()
    with pytest.raises(HiddenInformationError, match="S0's cards are hidden from this peer: 1 of its 12"):
        p1.view(0)
    with pytest.raises(HiddenInformationError, match="the red side is not known to this peer yet"):
        _ = p2.red_seats
    assert p0.legal_actions(0) == full.legal_actions(0)


# -- card-holding checks ---------------------------------------------------------------------

def test_a_peer_accepts_unknown_cards_and_learns_them():
    full, hands = peers()
    decline_all([full, *hands])
    apply([full, *hands], Play(0, CardSet.parse("9C 9D")))
    p2 = hands[2]
    assert p2.played_by(0) == CardSet.parse("9C 9D") and p2.hand_size(0) == 10
    assert p2.dealt[0] == CardSet.parse("3H 9C 9D").mask
    assert CardSet.parse("9C").mask & p2.unknown_cards().mask == 0
    assert all(h.state_hash() == full.state_hash() for h in hands)


def test_a_peer_rejects_cards_known_to_be_elsewhere_and_keeps_its_state():
    """A play of a played card, of another seat's exposed ten, or of the peer's own card."""
    full, hands = peers()
    resolve([full, *hands], Run(1, CardSet.parse("TD")), Decline(0), Decline(2), Decline(3))
    resolve([full, *hands], Decline(2), Decline(3), Expose(0, CardSet.parse("TH")))
    resolve([full, *hands], Decline(2), Decline(3))
    p3 = hands[3]                                  # S0 holds TD, S1 holds TH: public
    before = p3.state_hash()
    with pytest.raises(IllegalActionError, match="^S0 does not hold TH$"):
        p3.apply(Play(0, CardSet.parse("TH")))
    assert p3.state_hash() == before
    apply([full, *hands], Play(0, CardSet.parse("9C 9D")))
    apply([full, *hands], Pass(1))
    with pytest.raises(IllegalActionError, match="^S2 does not hold 9C$"):
        p3.apply(Play(2, CardSet.parse("9C 9S")))  # 9C has been played
    with pytest.raises(IllegalActionError, match="^S2 does not hold KC$"):
        p3.apply(Play(2, CardSet.parse("KC")))     # in the peer's own hand
    with pytest.raises(IllegalActionError, match="^S2 does not hold TD$"):
        p3.apply(Play(2, CardSet.parse("TD TS")))  # exposed, in S0's hand
    assert p3.decision == full.decision == Decision(T, (2,))


def test_a_seat_cannot_open_more_unknown_cards_than_it_holds():
    """Hand sizes bound what a seat may still hold (here checked through reveal)."""
    hand = Hand.for_peer(1, D[1], 0, "3H", OPTIONS)
    hand.reveal(0, D[0] - CardSet.parse("TH"))            # all of S0's cards but one
    assert not hand.is_known(0) and hand.hand_size(0) == 12 and hand.state_hash() == new_hand(D).state_hash()
    with pytest.raises(IllegalActionError, match="^S0 does not hold 5C 5D: only 1 of its 12 cards are unknown$"):
        hand.reveal(0, "5C 5D")
    with pytest.raises(IllegalActionError, match="^S0 does not hold TD$"):
        hand.reveal(0, "TD")                              # the peer's own card
    hand.reveal(0, "TH")
    assert hand.is_known(0) and hand.cards(0) == D[0] and hand.red_seats == (0, 1)


# -- running and the expose window -------------------------------------------------------------

def test_expose_window_finds_the_partner_by_its_answer():
    """sasaki-rules.md, Partnerships: the other red ten's holder exposes; they exchange."""
    full, hands = peers()
    resolve([full, *hands], Run(1, CardSet.parse("TD")), Decline(0), Decline(2), Decline(3))
    p3 = hands[3]
    assert p3.decision == Decision(DecisionKind.EXPOSE, (2, 3, 0))
    with pytest.raises(HiddenInformationError, match="the red side is not known"):
        _ = p3.red_seats                                 # S1 is red; the partner is not known yet
    assert p3.view(3).red == frozenset({1}) and p3.view(3).teams is None
    resolve([full, *hands], Decline(2), Decline(3), Expose(0, CardSet.parse("TH")))
    for hand in hands:
        assert hand.red_seats == (0, 1) and hand.decision == Decision(DecisionKind.STOP, (2, 3))
        assert hand.state_hash() == full.state_hash()
        assert [str(a) for a in hand.history] == ["S1 run TD", "S0 expose TH"]
    # the exchange: S0 now holds TD, S1 holds TH; "red" is still who was dealt them
    assert p3.view(3).shown == (CardSet.parse("3H TD"), CardSet.parse("TH"), CardSet(), CardSet())
    assert p3.dealt[0] & CardSet.parse("TH").mask and p3.dealt[1] & CardSet.parse("TD").mask
    assert p3.view(3).teams == (frozenset({0, 1}), frozenset({2, 3}))
    assert hands[0].cards(0) == full.cards(0) and hands[1].cards(1) == full.cards(1)


def test_nobody_exposing_needs_an_audit_and_two_exposing_is_illegal():
    full, hands = peers()
    resolve([full, *hands], Run(1, CardSet.parse("TD")), Decline(0), Decline(2), Decline(3))
    p3 = hands[3]
    before = p3.state_hash()
    with pytest.raises(AuditNeededError, match=r"^nobody exposed the other red ten \(TH\) after S1's run: "
                       "either its holder declined or the runner holds both red tens; only the audit "
                       "of the deal can tell$"):
        p3.resolve([Decline(2), Decline(3), Decline(0)])
    with pytest.raises(IllegalActionError, match="^TH cannot be in two hands: S2 and S0 exposed it$"):
        p3.resolve([Expose(2, CardSet.parse("TH")), Decline(3), Expose(0, CardSet.parse("TH"))])
    with pytest.raises(IllegalActionError, match=r"^the partner exposes the other red ten \(TH\), not TD$"):
        p3.resolve([Expose(2, CardSet.parse("TD")), Decline(3), Decline(0)])
    # the peer that holds TH knows its own duty, like the full hand
    for hand in (full, hands[0]):
        with pytest.raises(IllegalActionError, match="^S0 holds the other red ten and must expose it"):
            hand.resolve([Decline(2), Decline(3), Decline(0)])
    # and S3's own peer knows S3 cannot expose it
    with pytest.raises(IllegalActionError, match="^S3 does not hold TH: only 0 of its 12 cards are unknown$"):
        p3.resolve([Decline(2), Expose(3, CardSet.parse("TH")), Decline(0)])
    assert p3.state_hash() == before and p3.decision.kind is DecisionKind.EXPOSE
    assert issubclass(AuditNeededError, IllegalActionError)


def test_a_lone_holders_one_ten_run_shows_up_only_as_nobody_exposing():
    """A peer cannot reject the run itself; the full hand (the audit) names the rule."""
    specs = deal("3H TH TD")
    full, hands = peers(specs)
    bad = [Run(0, CardSet.parse("TH")), Decline(1), Decline(2), Decline(3)]
    with pytest.raises(IllegalActionError, match="a lone holder of both red tens must expose both"):
        full.resolve(bad)
    with pytest.raises(IllegalActionError, match="a lone holder of both red tens must expose both"):
        hands[0].resolve(bad)
    p2 = hands[2]
    p2.resolve(bad)
    assert p2.decision == Decision(DecisionKind.EXPOSE, (1, 2, 3))
    with pytest.raises(AuditNeededError, match=r"nobody exposed the other red ten \(TD\)"):
        p2.resolve([Decline(1), Decline(2), Decline(3)])


def test_lone_run_and_both_partners_running_in_hidden_mode():
    lone = deal("3H TH TD")
    full, hands = peers(lone)
    resolve([full, *hands], Run(0, CardSet.parse("TH TD")), Decline(1), Decline(2), Decline(3))
    for hand in hands:
        assert hand.red_seats == (0,) and hand.decision == Decision(DecisionKind.STOP, (1, 2, 3))
        assert hand.view(hand.peer).teams == (frozenset({0}), frozenset({1, 2, 3}))
        assert hand.state_hash() == full.state_hash()
    full, hands = peers()
    both = [Run(1, CardSet.parse("TD")), Run(0, CardSet.parse("TH")), Decline(2), Decline(3)]
    with pytest.raises(IllegalActionError, match="only the two partners can both answer run"):
        hands[2].resolve([Run(1, CardSet.parse("TH")), Run(0, CardSet.parse("TH")), Decline(2), Decline(3)])
    resolve([full, *hands], *both)
    for hand in hands:
        assert [str(a) for a in hand.history] == ["S0 run TH", "S1 expose TD"]
        assert hand.state_hash() == full.state_hash() and hand.red_seats == (0, 1)


def test_any_own_turn_run_in_hidden_mode():
    full, hands = peers(running="any_own_turn")
    apply([full, *hands], Play(0, CardSet.parse("9C 9D")))
    apply([full, *hands], Run(1, CardSet.parse("TD")))
    assert hands[2].decision == Decision(DecisionKind.EXPOSE, (2, 3, 0))
    resolve([full, *hands], Decline(2), Decline(3), Expose(0, CardSet.parse("TH")))
    resolve([full, *hands], Decline(2), Stop(3))
    for hand in hands:
        assert hand.decision == Decision(T, (1,)) and hand.multiplier == 4
        assert hand.state_hash() == full.state_hash()


# -- chata, kkojda, the end of the hand ----------------------------------------------------------

def test_chata_and_kkojda_by_unknown_cards():
    specs = deal("3H 9C", "9H 9S 9D")
    full, hands = peers(specs)
    decline_all([full, *hands])
    apply([full, *hands], Play(0, CardSet.parse("9C")))
    assert hands[3].decision == Decision(DecisionKind.CHATA, (1, 2, 3))
    with pytest.raises(IllegalActionError, match="^9H cannot be in two hands$"):
        hands[3].resolve([Chata(1, CardSet.parse("9H 9S")), Chata(2, CardSet.parse("9H 9D")), Decline(3)])
    resolve([full, *hands], Chata(1, CardSet.parse("9H 9S")), Decline(2), Decline(3))
    resolve([full, *hands], Decline(0), Kkojda(1, CardSet.parse("9D")), Decline(2), Decline(3))
    for hand in hands:
        assert hand.decision == Decision(T, (1,)) and hand.state_hash() == full.state_hash()
        assert hand.dealt[1] & CardSet.parse("9H 9S 9D").mask == CardSet.parse("9H 9S 9D").mask


def test_the_end_of_the_hand_makes_everything_known():
    """sasaki-rules.md: the fourth shows its cards; red seats and scores follow in hidden mode."""
    rng = random.Random(7)
    full, hands = _playthrough(rng, OPTIONS)
    for hand in hands:
        assert hand.is_over and hand.unknown_cards() == CardSet()
        assert hand.dealt == full.dealt
        assert hand.red_seats == full.red_seats and hand.scores == full.scores
        assert hand.fourth_shows() == full.fourth_shows() and hand.cards(full.finish[3]) == full.fourth_shows()
        assert all(hand.is_known(s) for s in range(4))


# -- the property: four peers agree with the full hand after every action ---------------------

def _step_all(full, hands, rng, check):
    d = full.decision
    if d.kind is T:
        actions = [rng.choice(full.legal_actions(d.seats[0]))]
    else:
        actions = [rng.choice(full.legal_actions(s)) for s in d.seats]
    for hand in (full, *hands):
        if d.kind is T:
            hand.apply(actions[0])
        else:
            hand.resolve(actions)
    check(full, hands)


def _agree(full, hands):
    digest = full.state_hash()
    shown = 0
    for seat in range(4):
        shown |= full.view(seat).shown[seat].mask
    played = 0
    for seat in range(4):
        played |= full.played_by(seat).mask
    for seat, hand in enumerate(hands):
        assert hand.decision == full.decision
        assert hand.state_hash() == digest
        assert hand.history == full.history and hand.multiplier == full.multiplier
        view = hand.view(seat)
        assert view == full.view(seat)
        assert hand.legal_actions(seat) == full.legal_actions(seat)
        if not full.is_over:
            # the peer knows its own cards and the public ones, nothing more
            assert hand.unknown_cards().mask == ((1 << 48) - 1) & ~played & ~shown & ~full.cards(seat).mask
        # a view names no card of another hand unless it is shown there
        named = view.cards.mask | view.dealt.mask | view.top_cards.mask | played | shown
        for action in view.history:
            named |= action.cards.mask
        for other in range(4):
            if other != seat and not full.is_over:
                assert named & full.cards(other).mask & ~view.shown[other].mask == 0


def _playthrough(rng, options):
    lead = options.lead_card
    full = Hand.random(rng, lead, options)
    hands = [Hand.for_peer(s, full.cards(s), full.first_leader, lead, options) for s in range(4)]
    _agree(full, hands)
    while not full.is_over:
        _step_all(full, hands, rng, _agree)
    return full, hands


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**9), st.sampled_from(["before_first_play", "any_own_turn"]),
       st.booleans(), st.sampled_from(["3H", "3S"]))
def test_four_hidden_peers_agree_with_the_full_hand(seed, running, must3, lead):
    options = TableOptions(lead_card=lead, lead_must_contain_3=must3, running=running)
    full, hands = _playthrough(random.Random(seed), options)
    for hand in hands:
        assert hand.finish == full.finish and hand.red_seats == full.red_seats
        assert hand.multiplier == full.multiplier and hand.scores == full.scores
        assert hand.state_hash() == full.state_hash()


def test_red_tens_as_last_two_cards_are_a_pair_by_hand_size():
    """sasaki-rules.md, Combinations: TH TD as the last two cards are only a pair; a peer counts cards."""
    specs = deal("3H", "4D 5D 6D 7D 8D 9D TC JD QD KD TH TD", "AC AS")
    full, hands = peers(specs)
    everyone = [full, *hands]
    decline_all(everyone)
    for action in (Play(0, CardSet.parse("3H")), Play(1, CardSet.parse("4D")), Pass(2), Pass(3), Pass(0),
                   Play(1, CardSet.parse("5D 6D 7D 8D 9D TC JD QD KD")), Pass(2), Pass(3), Pass(0),
                   Play(1, CardSet.parse("TH TD"))):
        if full.decision.kind is DecisionKind.CHATA:
            decline_all(everyone)
        apply(everyone, action)
    for hand in everyone:
        assert hand.top == Combo(Kind.PAIR, Rank.TEN, 2)   # not a Pig: aces beat it
        assert hand.finish == (1,) and hand.decision == Decision(T, (2,))
        assert hand.state_hash() == full.state_hash()
    assert Play(2, CardSet.parse("AC AS")) in hands[2].legal_actions(2)
    apply(everyone, Play(2, CardSet.parse("AC AS")))
    assert hands[0].top_seat == 2 and hands[0].state_hash() == full.state_hash()
