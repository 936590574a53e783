"""p2p_sasaki/cards.py: ranks, suits, cards, card sets and notation."""

import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2p_sasaki.cards import (
    FULL_DECK,
    Card,
    CardNotationError,
    CardSet,
    DuplicateCardError,
    Rank,
    Suit,
    parse_cards,
)


def test_ranks_run_three_to_ace_without_twos():
    """sasaki-rules.md, Cards and notation: 48 cards, A K Q J T 9 8 7 6 5 4 3."""
    assert [r.symbol for r in sorted(Rank)] == list("3456789TJQKA")
    assert len(CardSet(FULL_DECK)) == 48
    assert Card.parse("AS").rank > Card.parse("KH").rank > Card.parse("3C").rank


@pytest.mark.parametrize("token", ["TH", "th", "10H", "10h", "T♥", "t♡", " TH "])
def test_input_notation_accepts_10_lower_case_and_symbols(token):
    """sasaki-rules.md, Cards and notation: input accepts 10, lower case and ♣♦♥♠; output is TH."""
    card = Card.parse(token)
    assert card is Card(Rank.TEN, Suit.HEARTS)
    assert str(card) == "TH"


@pytest.mark.parametrize("token", ["2H", "1H", "TX", "H", "", "10", "11H", "TTH", "AH!"])
def test_bad_notation_raises_a_value_error_subclass(token):
    with pytest.raises(CardNotationError, match="is not a card"):
        Card.parse(token)
    assert issubclass(CardNotationError, ValueError)


def test_card_set_parse_format_and_duplicates():
    cards = CardSet.parse("as 4C 4♥")
    assert str(cards) == "4C 4H AS"
    assert repr(cards) == "CardSet.parse('4C 4H AS')"
    assert eval(repr(cards)) == cards
    assert len(cards) == 3 and Card.parse("4h") in cards and Card.parse("4D") not in cards
    with pytest.raises(DuplicateCardError, match="4C is listed twice"):
        CardSet.parse("4C 4h 4c")


def test_card_repr_pastes_back_and_pickles():
    card = Card.parse("qd")
    assert repr(card) == "Card.parse('QD')"
    assert eval(repr(card)) is card
    assert pickle.loads(pickle.dumps(card)) is card
    assert pickle.loads(pickle.dumps(CardSet.parse("3H QD"))) == CardSet.parse("3H QD")


def test_cards_order_by_rank_then_suit():
    cards = sorted(CardSet.parse("AS 3S TH 3C 9D"), reverse=True)
    assert [str(c) for c in cards] == ["AS", "TH", "9D", "3S", "3C"]
    assert Card.parse("3S") > Card.parse("3C")


def test_card_index_is_rank_times_four_plus_suit():
    assert Card.parse("3C").index == 0
    assert Card.parse("TH").index == 7 * 4 + 2
    assert Card.parse("AS").index == 47


@given(st.integers(min_value=0, max_value=FULL_DECK))
def test_card_set_text_round_trip(mask):
    cards = CardSet(mask)
    assert CardSet.parse(str(cards)) == cards
    assert len(cards) == bin(mask).count("1")
    assert parse_cards(str(cards)) == mask


def test_card_set_is_immutable_and_set_like():
    a, b = CardSet.parse("3H 4H"), CardSet.parse("4H 5H")
    assert (a | b) == CardSet.parse("3H 4H 5H")
    assert (a & b) == CardSet.parse("4H")
    assert (a - b) == CardSet.parse("3H")
    assert CardSet.parse("4H").issubset(a)
    with pytest.raises(AttributeError):
        a.mask = 0
    with pytest.raises(ValueError):
        CardSet(1 << 48)
