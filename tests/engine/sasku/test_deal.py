"""p2p_sasaki/sasku/deal.py: the deal, the auction, picture giving, tricks and following."""

from random import Random

import pytest

from p2p_sasaki.cards import Card, CardSet, Suit
from p2p_sasaki.sasku.deal import (
    Bid,
    Deal,
    DealError,
    Decision,
    DecisionKind,
    Diamonds,
    Give,
    Pass,
    Play,
    Refuse,
    Return,
    Take,
    TrumpCall,
    apply,
    dealer_of,
    forehand_of,
    legal_actions,
)
from tests.engine.sasku.helpers import HANDS, NINE, cards, new_deal, refused, run

# S1 holds one picture (KS) and S3 none: a give there and back.
GIVING = ("KC QC JC AH TH 9H 8H 7H 6H",
          "KS AS TS 9S 8S 7S 6S AC TC",
          "KH KD QS QH QD JS JH JD 9C",
          "6C 7C 8C AD TD 9D 8D 7D 6D")

# -- the deal ---------------------------------------------------------------------------

def test_dealer_and_forehand_follow_the_deal_number():
    """sasku-rules.md, Dealer: deal d has dealer (d+3)%4 and forehand d%4; S0 leads deal 0."""
    assert [(dealer_of(d), forehand_of(d)) for d in range(5)] == [(3, 0), (0, 1), (1, 2), (2, 3), (3, 0)]
    deal = new_deal(deal_number=6)
    assert (deal.dealer, deal.forehand, deal.decision) == (1, 2, Decision(DecisionKind.BID, 2))


def test_a_deal_is_nine_cards_of_the_36_card_pack_to_each_seat():
    """sasku-rules.md, Players: 36 cards 6..A, 9 to each seat."""
    deal = Deal.random(Random(4))
    hands = [deal.cards(seat) for seat in range(4)]
    assert all(len(hand) == 9 for hand in hands)
    assert len(CardSet(sum(hand.mask for hand in hands))) == 36
    assert all(card.rank >= 3 for hand in hands for card in hand)  # no 3, 4 or 5
    with pytest.raises(DealError, match="seat 0 is dealt 5H: the Sasku pack has ranks 6 to A"):
        Deal(("5H AH TH 9H 8H 7H 6H AS TS", *HANDS[1:]))
    with pytest.raises(DealError, match="seat 1 must be dealt 9 cards, not 8"):
        Deal((HANDS[0], "KS QS JS 9S 8S 7S 6S AC", *HANDS[2:]))
    with pytest.raises(DealError, match="KC is dealt twice"):
        Deal((HANDS[0], "KC QS JS 9S 8S 7S 6S AC TC", *HANDS[2:]))


def test_the_state_is_a_value():
    """apply returns a new state; the old one is unchanged."""
    deal = new_deal()
    after = apply(deal, Bid(0, 5))
    assert deal.high_bid is None and deal.history == () and deal.decision.seat == 0
    assert after.high_bid == 5 and after.high_bidder == 0 and after.history == (Bid(0, 5),)
    with pytest.raises(AttributeError):
        deal.options = None  # type: ignore[misc, assignment]


# -- the auction -------------------------------------------------------------------------

def test_bidding_goes_round_skipping_passed_seats_until_three_pass_after_a_bid():
    """sasku-rules.md, Bidding: turns in order from forehand, passed seats skipped; three
    passes after a bid end it and the highest bidder names trump."""
    deal = run(new_deal(), "S0 bid 5", "S1 bid 6", "S2 pass", "S3 pass")
    assert deal.decision == Decision(DecisionKind.BID, 0) and deal.passed == (2, 3)
    deal = run(deal, "S0 bid 7")
    assert deal.decision == Decision(DecisionKind.BID, 1)
    deal = run(deal, "S1 pass")
    assert deal.decision == Decision(DecisionKind.TRUMP, 0)
    assert (deal.declarer, deal.trump, deal.diamonds, deal.high_bid) == (0, None, False, 7)
    assert legal_actions(deal) == [TrumpCall(0, suit) for suit in Suit]


def test_three_passes_then_a_bid_ends_the_auction_at_once():
    """sasku-rules.md, Bidding: pass, pass, pass, then a bid of 5: that bidder is declarer."""
    deal = run(new_deal(deal_number=1), "S1 pass", "S2 pass", "S3 pass", "S0 bid 5")
    assert deal.decision == Decision(DecisionKind.TRUMP, 0) and deal.declarer == 0


def test_bids_are_numbers_from_min_bid_to_nine_each_higher_than_the_last():
    """sasku-rules.md, Bidding: 5 to 9 (min_bid an option), higher than every earlier bid."""
    assert refused(new_deal(), "S0 bid 4") == ("the smallest bid is 5", 0)
    assert refused(new_deal(), "S0 bid 10") == ("a bid is at most 9: there are nine tricks", 0)
    assert refused(new_deal(), "S0 bid 6", "S1 bid 6") == ("a bid must be higher than 6, the highest bid so far", 1)
    assert refused(new_deal(min_bid=6), "S0 bid 5") == ("the smallest bid is 6", 0)
    assert [a.number for a in legal_actions(run(new_deal(), "S0 bid 7")) if isinstance(a, Bid)] == [8, 9]
    deal = run(new_deal(), "S0 bid 9")
    assert legal_actions(deal)[:2] == [Pass(1), Diamonds(1)]  # nobody can bid over 9


def test_a_pass_is_final():
    """sasku-rules.md, Bidding: a seat that passed never bids, gives or declares again."""
    message = "S0 has passed: a seat that passed never bids, gives or declares again"
    assert refused(new_deal(), "S0 pass", "S1 bid 5", "S2 bid 6", "S3 pass", "S0 bid 7") == (message, 0)
    assert refused(new_deal(), "S0 pass", "S1 bid 5", "S0 diamonds") == (message, 0)


def test_turns_are_kept():
    assert refused(new_deal(), "S1 bid 5") == (
        "it is not S1's turn: it is S0's turn to bid, pass, say diamonds or give", 1)
    assert refused(new_deal(), "S0 trump H") == (
        "S0 cannot trump now: it is S0's turn to bid, pass, say diamonds or give", 0)
    assert refused(new_deal(), "S0 play AH") == (
        "S0 cannot play now: it is S0's turn to bid, pass, say diamonds or give", 0)
    assert refused(new_deal(), "S0 bid 5", "S1 pass", "S2 pass", "S3 pass", "S0 play AH") == (
        "S0 cannot play now: S0, the declarer, must name the trump suit", 0)


def test_diamonds_ends_the_auction_at_once_whatever_the_bids():
    """sasku-rules.md, Bidding: diamonds makes diamonds trump at once; this seat declares;
    forehand still leads."""
    deal = run(new_deal(), "S0 bid 8", "S1 diamonds")
    assert (deal.declarer, deal.trump, deal.diamonds, deal.ulekula) == (1, Suit.DIAMONDS, True, False)
    assert deal.decision == Decision(DecisionKind.PLAY, 0) and deal.leader == 0


def test_naming_diamonds_makes_a_diamonds_game():
    """sasku-rules.md, Bidding: any suit may be named; naming diamonds is a diamonds game."""
    deal = run(new_deal(), "S0 pass", "S1 bid 5", "S2 pass", "S3 pass")
    assert run(deal, "S1 trump S").diamonds is False
    named = run(deal, "S1 trump D")
    assert (named.trump, named.diamonds, named.decision) == (Suit.DIAMONDS, True, Decision(DecisionKind.PLAY, 0))


def test_all_four_passing_is_ulekula():
    """sasku-rules.md, Bidding: all four pass: üleküla ruutu, diamonds trump, no declarer."""
    deal = run(new_deal(deal_number=2), "S2 pass", "S3 pass", "S0 pass", "S1 pass")
    assert (deal.declarer, deal.trump, deal.diamonds, deal.ulekula) == (None, Suit.DIAMONDS, True, True)
    assert deal.decision == Decision(DecisionKind.PLAY, 2)


# -- picture giving ----------------------------------------------------------------------

def test_a_lone_picture_is_given_taken_and_a_card_returned():
    """sasku-rules.md, Picture giving: exactly one picture, partner fewer than nine; the
    partner takes and returns a card that is not a picture; the giver's turn goes on."""
    deal = new_deal()
    assert Give(0, Card.parse("KC")) in legal_actions(deal)
    deal = run(deal, "S0 give KC")
    assert deal.decision == Decision(DecisionKind.ANSWER, 2) and deal.given == Card.parse("KC")
    assert legal_actions(deal) == [Take(2), Refuse(2)]
    deal = run(deal, "S2 take")
    assert deal.decision == Decision(DecisionKind.RETURN, 2)
    assert legal_actions(deal) == [Return(2, Card.parse("9C"))]  # its only card that is not a picture
    deal = run(deal, "S2 return 9C")
    assert deal.decision == Decision(DecisionKind.BID, 0)
    assert deal.cards(0) == cards("9C AH TH 9H 8H 7H 6H AS TS")
    assert deal.cards(2) == cards("KC KH KD QC QH QD JC JH JD")
    assert deal.gave == (0,) and not any(isinstance(a, Give) for a in legal_actions(deal))
    assert refused(deal, "S0 give 9C") == (
        "S0 has already given a picture this deal: each seat gives at most once", 0)


def test_a_refused_give_moves_nothing_and_still_counts():
    """sasku-rules.md, Picture giving (ruling): refuse; nothing moves, the giver's turn goes
    on, and the give counts as its one give."""
    deal = run(new_deal(), "S0 give KC", "S2 refuse")
    assert deal.decision == Decision(DecisionKind.BID, 0)
    assert deal.cards(0) == cards(HANDS[0]) and deal.cards(2) == cards(HANDS[2])
    assert refused(deal, "S0 give KC") == ("S0 has already given a picture this deal: each seat gives at most once", 0)
    deal = run(deal, "S0 pass")
    assert deal.decision == Decision(DecisionKind.BID, 1)


def test_give_conditions():
    """sasku-rules.md, Picture giving: exactly one picture, a picture, held; the partner
    fewer than nine pictures; only on one's bidding turn, before passing."""
    assert refused(new_deal(), "S0 pass", "S1 give KS") == (
        "S1 cannot give: a seat gives only when it holds exactly one picture, and S1 holds 3", 1)
    assert refused(new_deal(deal_number=3), "S3 give 6C") == (
        "S3 can give only a picture (a king, queen or jack), not 6C", 3)
    assert refused(new_deal(deal_number=3), "S3 give KC") == (
        "S3 cannot give: a seat gives only when it holds exactly one picture, and S3 holds 0", 3)
    assert refused(new_deal(), "S0 give KS") == ("S0 does not hold KS", 0)
    assert refused(new_deal(NINE), "S0 give KC") == ("S0 cannot give: its partner S2 holds nine pictures", 0)
    assert not any(isinstance(a, Give) for a in legal_actions(new_deal(NINE)))
    assert refused(new_deal(), "S0 pass", "S1 pass", "S2 pass", "S3 pass", "S0 give KC") == (
        "S0 cannot give now: it is S0's turn to play a card", 0)


def test_return_conditions():
    """sasku-rules.md, Picture giving: the card handed back is not a picture, and held."""
    assert refused(new_deal(), "S0 give KC", "S2 take", "S2 return QC") == (
        "S2 must return a card that is not a picture, not QC", 2)
    assert refused(new_deal(), "S0 give KC", "S2 take", "S2 return AH") == ("S2 does not hold AH", 2)
    assert refused(new_deal(), "S0 give KC", "S2 take", "S0 bid 5") == (
        "it is not S0's turn: S2 must return a card that is not a picture to S0", 0)
    assert refused(new_deal(), "S0 give KC", "S0 bid 5") == (
        "it is not S0's turn: S2 must take or refuse the picture S0 gave", 0)


def test_a_seat_that_received_a_picture_may_give_one_later():
    """sasku-rules.md, Picture giving: both pairs may give; a seat that received a picture
    may give one on its own turn if it then meets the conditions."""
    deal = run(new_deal(GIVING), "S0 pass", "S1 give KS", "S3 take", "S3 return 6C", "S1 bid 5", "S2 pass")
    assert deal.cards(3) == cards("KS 7C 8C AD TD 9D 8D 7D 6D")
    deal = run(deal, "S3 give KS", "S1 take", "S1 return 6C", "S3 pass")
    assert deal.cards(1) == cards(GIVING[1]) and deal.cards(3) == cards(GIVING[3])
    assert deal.gave == (1, 3) and deal.decision == Decision(DecisionKind.TRUMP, 1)


def test_a_passed_partner_still_answers_a_give():
    deal = run(new_deal(GIVING), "S0 pass", "S1 pass", "S2 pass", "S3 pass")
    assert deal.ulekula
    deal = run(new_deal(GIVING), "S0 pass", "S1 bid 5", "S2 pass", "S3 pass")
    assert deal.declarer == 1
    deal = run(new_deal(GIVING, deal_number=3), "S3 pass", "S0 pass", "S1 give KS", "S3 take", "S3 return 7C")
    assert deal.decision == Decision(DecisionKind.BID, 1) and deal.passed == (0, 3)


# -- tricks --------------------------------------------------------------------------------

def hearts_game() -> Deal:
    return run(new_deal(), "S0 bid 5", "S1 pass", "S2 pass", "S3 pass", "S0 trump H")


def test_forehand_leads_and_a_plain_lead_is_followed_in_its_suit_pictures_apart():
    """sasku-rules.md, Tricks: a plain card led must be followed with a plain card of that
    suit; pictures never count as their printed suit."""
    deal = hearts_game()
    assert deal.decision == Decision(DecisionKind.PLAY, 0)
    deal = run(deal, "S0 play AS")
    assert [str(a.card) for a in legal_actions(deal)] == ["6S", "7S", "8S", "9S"]
    assert refused(deal, "S1 play KS") == (
        "S1 must follow suit: spades were led and S1 holds a plain card of spades", 1)


def test_a_void_seat_may_play_anything_with_no_duty_to_trump():
    """sasku-rules.md, Tricks (ruling): no duty to trump when void in the suit led."""
    deal = run(hearts_game(), "S0 play AS", "S1 play 9S")
    assert len(legal_actions(deal)) == 9  # S2 holds no plain spade
    deal = run(deal, "S2 play 9C", "S3 play 6C")
    assert deal.tricks == (1, 0) and deal.card_points == (11, 0) and deal.leader == 0


def test_a_trump_wins_a_plain_trick():
    deal = run(hearts_game(), "S0 play AS", "S1 play 9S", "S2 play 9C", "S3 play 6C",
               "S0 play TS", "S1 play 8S", "S2 play QD", "S3 play 7C")
    assert deal.tricks == (2, 0) and deal.card_points == (24, 0) and deal.decision == Decision(DecisionKind.PLAY, 2)


def test_a_trump_lead_must_be_trumped_with_no_duty_to_beat_it():
    """sasku-rules.md, Tricks: a trump led, a seat holding a trump plays one; no duty to
    overtrump; the highest trump wins (JC over JS: clubs > spades)."""
    deal = run(hearts_game(), "S0 play AS", "S1 play 9S", "S2 play 9C", "S3 play 6C",
               "S0 play TS", "S1 play 8S", "S2 play QD", "S3 play 7C", "S2 play JC")
    assert len(legal_actions(deal)) == 7  # S3 holds no trump: any of its 7 cards
    deal = run(deal, "S3 play 8C")
    assert {str(a.card) for a in legal_actions(deal)} == {"KC", "AH", "TH", "9H", "8H", "7H", "6H"}
    assert refused(deal, "S0 play KS") == ("S0 does not hold KS", 0)
    deal = run(deal, "S0 play 6H")
    assert refused(deal, "S1 play 7S") == ("S1 must play a trump: a trump was led and S1 holds one", 1)
    deal = run(deal, "S1 play JS")
    assert deal.tricks == (3, 0) and deal.card_points == (28, 0) and deal.leader == 2


def test_trick_winners_follow_the_trump_order():
    """sasku-rules.md, Trumps: KC KS KH KD, QC .. QD, JC .. JD, then the trump suit A T 9 8 7 6."""
    deal = run(new_deal(), "S0 bid 5", "S1 pass", "S2 pass", "S3 pass", "S0 trump D")
    deal = run(deal, "S0 play AH", "S1 play JS", "S2 play JD", "S3 play AD")  # JS > JD > AD
    assert deal.leader == 1 and deal.card_points == (0, 11 + 2 + 2 + 11)


def test_a_deal_ends_after_nine_tricks():
    deal = hearts_game()
    while not deal.is_over:
        deal = apply(deal, legal_actions(deal)[0])
    assert sum(deal.tricks) == 9 and sum(deal.card_points) == 120 and deal.decision.seat is None
    assert legal_actions(deal) == []
    assert refused(deal, "S0 play AH") == ("the deal is over: nine tricks have been played", 0)
    assert deal.points is not None and len(deal.history) == 5 + 36


def test_the_seat_must_hold_the_card():
    assert refused(hearts_game(), "S0 play KS") == ("S0 does not hold KS", 0)


def test_apply_refuses_other_objects():
    with pytest.raises(TypeError):
        apply(new_deal(), "S0 bid 5")  # type: ignore[arg-type]
    assert isinstance(Play(0, Card.parse("AH")), Play)
