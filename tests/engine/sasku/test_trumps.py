"""p2p_sasaki/sasku/trumps.py: the pack, the trump order, following and card points."""

import pytest

from p2p_sasaki.cards import Card, CardNotationError, CardSet, Suit
from p2p_sasaki.sasku.trumps import (
    PACK,
    PICTURES,
    PLAIN,
    TOTAL_POINTS,
    card_points,
    follow_mask,
    parse_sasku_card,
    suit_of,
    trumps,
    winner_index,
)


def beats(high: str, low: str, trump: Suit) -> bool:
    """``high`` wins a trick that ``low`` led (and the reverse order too, when both are trumps)."""
    trick = [Card.parse(low).index, Card.parse(high).index]
    return winner_index(trick, trump) == 1


def test_the_pack_and_the_pictures():
    """sasku-rules.md, Players: 36 cards 6..A; the twelve K, Q, J are the pictures."""
    assert len(CardSet(PACK)) == 36 and str(CardSet(PICTURES)) == "JC JD JH JS QC QD QH QS KC KD KH KS"
    assert str(CardSet(PLAIN[Suit.HEARTS])) == "6H 7H 8H 9H TH AH"
    assert len(CardSet(trumps(Suit.CLUBS))) == 18


@pytest.mark.parametrize("trump", list(Suit))
def test_the_trump_order_is_the_same_whatever_the_trump_suit(trump):
    """sasku-rules.md, Trumps: KC KS KH KD, QC QS QH QD, JC JS JH JD, then A T 9 8 7 6 of the trump suit."""
    s = trump.symbol
    order = ["KC", "KS", "KH", "KD", "QC", "QS", "QH", "QD", "JC", "JS", "JH", "JD",
             f"A{s}", f"T{s}", f"9{s}", f"8{s}", f"7{s}", f"6{s}"]
    for i, high in enumerate(order):
        for low in order[i + 1:]:
            assert beats(high, low, trump) and not beats(low, high, trump), (high, low)
    plain = [c for c in ("AC", "AS", "AH", "AD") if not c.endswith(s)]
    for card in plain:
        assert beats("6" + s, card, trump) and beats("JD", card, trump)


def test_plain_suits_rank_a_t_9_8_7_6_and_only_the_suit_led_wins():
    """sasku-rules.md, Trumps: each other suit A T 9 8 7 6; with no trump in the trick the
    highest card of the suit led wins."""
    order = ["AS", "TS", "9S", "8S", "7S", "6S"]
    for i, high in enumerate(order):
        for low in order[i + 1:]:
            assert beats(high, low, Suit.HEARTS) and not beats(low, high, Suit.HEARTS)
    assert not beats("AC", "6S", Suit.HEARTS)  # a discard never wins
    trick = [Card.parse(c).index for c in ("7S", "AC", "TS", "AD")]
    assert winner_index(trick, Suit.HEARTS) == 2


def test_following():
    """sasku-rules.md, Tricks: a trump led is followed by any trump; a plain card by the
    plain cards of its suit (never a picture of that printed suit)."""
    assert follow_mask(Card.parse("7H").index, Suit.HEARTS) == trumps(Suit.HEARTS)
    assert follow_mask(Card.parse("QS").index, Suit.HEARTS) == trumps(Suit.HEARTS)
    assert follow_mask(Card.parse("7S").index, Suit.HEARTS) == PLAIN[Suit.SPADES]
    assert not follow_mask(Card.parse("7S").index, Suit.HEARTS) & PICTURES


def test_card_points():
    """sasku-rules.md, Players: A 11, T 10, K 4, Q 3, J 2, others nothing: 120 in the pack."""
    assert card_points(PACK) == TOTAL_POINTS == 120
    assert card_points(CardSet.parse("AH TS KC QD JH 9C 8C 7C 6C").mask) == 11 + 10 + 4 + 3 + 2


def test_notation():
    assert suit_of("h") == Suit.HEARTS and suit_of("♣") == Suit.CLUBS
    with pytest.raises(CardNotationError, match="'X' is not a suit: write C, S, H or D"):
        suit_of("X")
    assert parse_sasku_card("10h") == Card.parse("TH").index
    with pytest.raises(CardNotationError, match="'5H' is not a Sasku card"):
        parse_sasku_card("5H")
