"""p2p_sasaki/sasku/deal.py, hidden cards: peers' views, what they see of the exchanges,
the checks that need the full deal, and the audit that makes them."""

from random import Random

import pytest

from p2p_sasaki.cards import Card, CardSet
from p2p_sasaki.sasku.deal import (
    Deal,
    DealError,
    Give,
    HiddenCheck,
    HiddenInformationError,
    HiddenRule,
    IllegalActionError,
    Return,
    Violation,
    apply,
    audit,
    determinize,
    legal_actions,
    penalty_points,
    public_line,
    seen_by,
    state_hash,
    view,
)
from p2p_sasaki.sasku.options import SaskuOptions
from p2p_sasaki.sasku.records import parse_action
from tests.engine.sasku.helpers import HANDS, cards, new_deal

EXCHANGE = ("S0 give KC", "S2 take", "S2 return 9C")


def peers_after(lines, hands=HANDS, **options):
    """The full deal and the four peers' states after ``lines``, each peer fed what it sees."""
    full = new_deal(hands, **options)
    peers = [Deal.for_peer(seat, full.cards(seat), 0, full.options) for seat in range(4)]
    for line in lines:
        action = parse_action(0, line)
        full = apply(full, action)
        peers = [apply(peer, seen_by(action, seat, full.options)) for seat, peer in enumerate(peers)]
    return full, peers


def test_the_other_pair_sees_a_picture_given_and_a_card_returned_nothing_more():
    """sasku-rules.md, Picture giving: only the two partners learn the cards that moved."""
    full, peers = peers_after(EXCHANGE)
    assert [str(a) for a in peers[1].history] == ["S0 give", "S2 take", "S2 return"]
    assert [str(a) for a in peers[2].history] == list(EXCHANGE)
    assert [public_line(a) for a in full.history] == ["S0 give", "S2 take", "S2 return"]
    assert all(state_hash(peer) == state_hash(full) for peer in peers)
    assert peers[1].known_cards(0) == CardSet() and peers[1].hand_size(0) == 9
    assert peers[0].known_cards(2) == cards("KC")  # the giver knows where its picture went
    assert peers[0].cards(0) == full.cards(0) and peers[2].cards(2) == full.cards(2)


def test_the_rules_a_peer_cannot_check_are_kept_for_the_full_deal():
    """sasku-rules.md, Picture giving: rules on hidden cards are checked where the cards are
    known and reported as needing the full deal where they are not."""
    full, peers = peers_after(EXCHANGE)
    assert full.pending_checks == ()
    assert peers[0].pending_checks == (HiddenCheck(0, HiddenRule.GIVE_PARTNER, 0),)
    assert peers[2].pending_checks == (HiddenCheck(0, HiddenRule.GIVE, 0),)
    assert peers[1].pending_checks == peers[3].pending_checks == (
        HiddenCheck(0, HiddenRule.GIVE, 0), HiddenCheck(0, HiddenRule.GIVE_PARTNER, 0),
        HiddenCheck(2, HiddenRule.RETURN, 2))
    assert str(peers[1].pending_checks[2]) == (
        "needs the full deal: S2 returned a card that is not a picture (action 2)")


def test_a_view_made_from_the_full_deal_equals_the_peer():
    full, peers = peers_after((*EXCHANGE, "S0 bid 5", "S1 pass", "S2 pass", "S3 pass", "S0 trump H", "S0 play AS"))
    for seat in range(4):
        seen = view(full, seat)
        assert state_hash(seen) == state_hash(full)
        assert seen.history == peers[seat].history
        assert [seen.known_cards(s) for s in range(4)] == [peers[seat].known_cards(s) for s in range(4)]
        assert seen.pending_checks == peers[seat].pending_checks
    assert view(peers[1], 1) is peers[1]
    with pytest.raises(HiddenInformationError):
        view(peers[1], 2)


def test_following_by_a_hidden_hand_is_checked_by_the_audit():
    """sasku-rules.md, Scoring: a renege found only with the full deal names the seat, and
    its pair loses the deal as in karvane."""
    lines = ("S0 bid 5", "S1 pass", "S2 pass", "S3 pass", "S0 trump H", "S0 play AS")
    full, peers = peers_after(lines)
    renege = parse_action(0, "S1 play KS")  # S1 holds plain spades
    with pytest.raises(IllegalActionError, match="S1 must follow suit"):
        apply(full, renege)
    peer = apply(peers[0], renege)  # S0 cannot tell
    assert peer.pending_checks == (HiddenCheck(1, HiddenRule.FOLLOW, 6),)
    violation = audit([full.dealt(s) for s in range(4)], (*full.history, renege))
    assert violation == Violation(1, 6, "S1 must follow suit: spades were led and S1 holds a plain card of spades")
    assert penalty_points(violation) == (6, 0)
    assert audit([full.dealt(s) for s in range(4)], full.history) is None


def test_a_peer_refuses_what_it_can_see_is_wrong():
    lines = ("S0 bid 5", "S1 pass", "S2 pass", "S3 pass", "S0 trump H")
    _, peers = peers_after(lines)
    with pytest.raises(IllegalActionError, match="S0 does not hold KS: it is in S1's hand"):
        apply(peers[1], parse_action(0, "S0 play KS"))  # S1 sees its own KS
    assert apply(peers[3], parse_action(0, "S0 play KS")).played == cards("KS")  # S3 cannot tell
    peer = apply(peers[1], parse_action(0, "S0 play AS"))
    with pytest.raises(IllegalActionError, match="AS has already been played"):
        apply(apply(apply(apply(peer, parse_action(0, "S1 play 9S")), parse_action(0, "S2 play 9C")),
                    parse_action(0, "S3 play 6C")), parse_action(0, "S0 play AS"))


def test_legal_actions_need_the_acting_seats_cards():
    _, peers = peers_after(())
    assert legal_actions(peers[0]) == legal_actions(new_deal())
    with pytest.raises(HiddenInformationError):
        legal_actions(peers[1])
    with pytest.raises(HiddenInformationError):
        peers[1].cards(0)


def test_a_hidden_exchange_must_stay_hidden_and_a_seen_one_named():
    _, peers = peers_after(())
    with pytest.raises(IllegalActionError, match="S0's give must name the picture: this view sees it"):
        apply(peers[2], Give(0, None))
    full, peers = peers_after(EXCHANGE[:2])
    with pytest.raises(IllegalActionError, match="S2's return must name the card"):
        apply(peers[0], Return(2, None))


def test_picture_shown_shows_the_given_picture_to_everyone():
    """sasku-rules.md, Picture giving (option picture_shown): the given picture is shown."""
    full, peers = peers_after(EXCHANGE, picture_shown=True)
    assert str(peers[1].history[0]) == "S0 give KC" and str(peers[1].history[2]) == "S2 return"
    assert peers[1].known_cards(2) == cards("KC") and peers[3].known_cards(2) == cards("KC")
    assert all(state_hash(peer) == state_hash(full) for peer in peers)
    _, hidden = peers_after((), picture_shown=True)
    with pytest.raises(IllegalActionError, match="must name the picture"):
        apply(hidden[1], Give(0, None))


def test_random_deals_every_view_reaches_the_full_deals_hash():
    rng = Random(8)
    for number in range(40):
        full = Deal.random(rng, number, SaskuOptions(picture_shown=number % 3 == 0))
        peers = [Deal.for_peer(seat, full.cards(seat), number, full.options) for seat in range(4)]
        while not full.is_over:
            seat = full.decision.seat
            assert seat is not None
            actions = legal_actions(full)
            assert legal_actions(peers[seat]) == actions
            action = actions[rng.randrange(len(actions))]
            full = apply(full, action)
            peers = [apply(peer, seen_by(action, s, full.options)) for s, peer in enumerate(peers)]
            assert {state_hash(peer) for peer in peers} == {state_hash(full)}
        assert all(peer.card_points == full.card_points and peer.points == full.points for peer in peers)
        assert audit([full.dealt(s) for s in range(4)], full.history, number, full.options) is None
    assert isinstance(Card.parse("AH"), Card)


def test_determinize_makes_a_full_state_from_a_view_and_a_guess():
    """A search guesses the hidden cards: the guess keeps the public state and every rule."""
    full, peers = peers_after((*EXCHANGE, "S0 bid 5", "S1 pass", "S2 pass", "S3 pass", "S0 trump H", "S0 play AS"))
    hands = [full.cards(s) for s in range(4)]
    guess = determinize(peers[1], hands)
    assert state_hash(guess) == state_hash(full) and guess.viewer is None
    assert legal_actions(guess) == legal_actions(full) and guess.pending_checks == ()
    swapped = [hands[2], hands[1], hands[0], hands[3]]  # S0 has played a card: it holds 8
    with pytest.raises(DealError, match="S0 holds 8 cards, not 9"):
        determinize(peers[1], swapped)
    with pytest.raises(DealError, match="S1 holds"):
        determinize(peers[1], [hands[0], hands[2], hands[1], hands[3]])
    with pytest.raises(DealError, match="AS is played already or guessed twice"):
        determinize(peers[1], [hands[0] | CardSet.parse("AS"), hands[1], hands[2], hands[3]])
    _, during = peers_after(EXCHANGE[:2])
    with pytest.raises(HiddenInformationError, match="guess after the exchange"):
        determinize(during[1], [full.cards(s) for s in range(4)])


def test_the_partner_answers_and_returns_from_its_own_view():
    _, peers = peers_after(EXCHANGE[:1])
    assert legal_actions(peers[2]) == [parse_action(0, "S2 take"), parse_action(0, "S2 refuse")]
    _, peers = peers_after(EXCHANGE[:2])
    assert legal_actions(peers[2]) == [parse_action(0, "S2 return 9C")]
    assert peers[2].cards(2) == cards("KC KH KD QC QH QD JC JH JD 9C")
    with pytest.raises(HiddenInformationError):
        legal_actions(peers[1])  # S1 does not know S2's cards
    assert peers[1].given is None and peers[2].given == Card.parse("KC")


def test_a_peer_is_dealt_nine_cards_of_the_pack():
    with pytest.raises(DealError, match="seat 1 must be dealt 9 cards, not 8"):
        Deal.for_peer(1, "KS QS JS 9S 8S 7S 6S AC")
    with pytest.raises(DealError, match="the Sasku pack has ranks 6 to A"):
        Deal.for_peer(1, "KS QS JS 9S 8S 7S 6S AC 5C")
    with pytest.raises(ValueError, match="the deal number is a whole number from 0"):
        Deal.for_peer(1, HANDS[1], -1)
    peer = Deal.for_peer(1, HANDS[1], 3)
    assert (peer.viewer, peer.forehand, peer.hand_size(0), peer.known_cards(0)) == (1, 3, 9, CardSet())
    with pytest.raises(HiddenInformationError, match="S0's dealt cards are hidden from this view"):
        peer.dealt(0)
