"""p2p_sasaki/sasaki/combos.py: classification, the beating order and legal-play generation."""

from itertools import combinations
from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p_sasaki.cards import FULL_DECK, Rank, mask_indices, parse_cards
from p2p_sasaki.sasaki.combos import PIG_MASK, Combo, Kind, beats, classify, legal_plays, why_not


def c(text, hand=""):
    return classify(parse_cards(text), parse_cards(hand) if hand else 0)


@pytest.mark.parametrize("text, kind, rank, length", [
    ("7D", Kind.SINGLE, Rank.SEVEN, 1),
    ("QH QS", Kind.PAIR, Rank.QUEEN, 2),
    ("5C 6D 7H", Kind.SEQUENCE, Rank.SEVEN, 3),
    ("AH QC KD", Kind.SEQUENCE, Rank.ACE, 3),
    ("3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC", Kind.SEQUENCE, Rank.ACE, 12),
    ("9C 9D 9S", Kind.TRIPLET, Rank.NINE, 3),
    ("4C 4H AS", Kind.SASAKI, Rank.ACE, 3),
    ("JC JD JH JS", Kind.FOUR, Rank.JACK, 4),
    ("TH TD", Kind.PIG, Rank.TEN, 2),
    ("TC TS", Kind.PAIR, Rank.TEN, 2),
    ("TH TS", Kind.PAIR, Rank.TEN, 2),
])
def test_classify(text, kind, rank, length):
    """sasaki-rules.md, Combinations: single, pair, sequence, triplet, Sasaki, four, Pig."""
    combo = c(text)
    assert (combo.kind, combo.rank, combo.length) == (kind, rank, length)


@pytest.mark.parametrize("text", [
    "KC AD 3H",        # no wrap-around: K A 3
    "AD 3H 4C",        # the Ace is high only: 3 cannot follow A
    "5C 6D",           # two ranks are not a sequence
    "5C 6D 8H",        # a gap
    "5C 5D 6D 7H",     # a doubled rank inside a run
    "4C 4H AS AD",     # Sasaki is exactly two 4s and one Ace
    "4C AS AD",
    "4C 4H KS",
    "3C 3D 4D 4H",
])
def test_not_combinations(text):
    """sasaki-rules.md, Combinations: sequences are consecutive ranks with the Ace high only."""
    assert c(text) is None


def test_black_pig_is_a_pair_of_tens_with_extras():
    """sasaki-rules.md, Combinations: Black Pig TC TS is an ordinary pair of tens."""
    black = c("TC TS")
    assert black.black_pig and black.kind is Kind.PAIR
    assert not c("TH TS").black_pig  # red + black is just a pair of tens


def test_red_tens_as_last_two_cards_are_only_a_pair():
    """sasaki-rules.md, Combinations: TH TD as a player's last two cards are only a pair of tens."""
    assert c("TH TD", hand="TH TD") == Combo(Kind.PAIR, Rank.TEN, 2)
    assert c("TH TD", hand="TH TD 3C").kind is Kind.PIG


def B(new, top, hand=""):
    return beats(c(new, hand), c(top))


def test_ordinary_plays_need_same_kind_same_length_higher_rank():
    """sasaki-rules.md, Combinations: ordinary plays are beaten only by the same kind, size, higher rank."""
    assert B("8C", "7D") and not B("7C", "7D") and not B("6C", "7D")
    assert B("KC KD", "QH QS") and not B("KC", "QH QS")
    assert B("6C 7D 8H", "5C 6D 7H") and not B("5S 6S 7S", "5C 6D 7H")
    assert not B("6C 7D 8H 9H", "5C 6D 7H")          # a longer sequence does not beat
    assert not B("9C 9D", "5C 6D 7H")


def test_equal_plays_never_beat():
    """sasaki-rules.md, Combinations: suits never rank anything, so equal plays never beat."""
    assert not B("7S", "7C")
    assert not B("QC QD", "QH QS")
    assert not B("5S 6S 7S", "5C 6D 7H")


def test_specials_beat_every_ordinary_play():
    """sasaki-rules.md, Combinations: each special beats every ordinary combination."""
    for special in ("3C 3D 3H", "4C 4H AS", "5C 5D 5H 5S", "TH TD"):
        for ordinary in ("AS", "AC AD", "3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC", "TC TS"):
            if special == "TH TD" and ordinary == "TC TS":
                continue
            assert B(special, ordinary), (special, ordinary)
            assert not B(ordinary, special), (ordinary, special)


def test_special_order_triplet_sasaki_four_pig():
    """sasaki-rules.md, Combinations: triplet < Sasaki < four of a kind < Pig; higher special of any size."""
    assert B("4C 4D 4H", "3C 3D 3H") and not B("3C 3D 3H", "4C 4D 4H")
    assert B("4C 4H AS", "KC KD KH") and B("4C 4H AS", "AC AD AH")
    assert not B("AC AD AH", "4C 4H AS")
    assert B("3C 3D 3H 3S", "4C 4H AS") and B("3C 3D 3H 3S", "AC AD AH")
    assert B("9C 9D 9H 9S", "8C 8D 8H 8S") and not B("8C 8D 8H 8S", "9C 9D 9H 9S")
    assert B("TH TD", "AC AD AH AS") and B("TH TD", "4C 4H AS")


def test_sasaki_cannot_beat_sasaki():
    """sasaki-rules.md, Combinations: a Sasaki cannot beat another Sasaki."""
    assert not B("4D 4S AD", "4C 4H AS")
    assert why_not(c("4D 4S AD"), c("4C 4H AS")) == "a Sasaki cannot beat another Sasaki"


def test_only_black_pig_beats_pig_and_pig_never_goes_on_black_pig():
    """sasaki-rules.md, Combinations: Black Pig beats a Pig; a Pig cannot be played on it."""
    assert B("TC TS", "TH TD")
    for other in ("AC AD AH AS", "4C 4H AS", "JC JD", "AS", "TH TS"):
        assert not beats(c(other), c("TH TD")), other
    assert not B("TH TD", "TC TS")
    assert why_not(c("TH TD"), c("TC TS")) == "a Pig cannot be played on the Black Pig"
    assert why_not(c("AS AD AH AC"), c("TH TD")) == "only the Black Pig (TC TS) beats a Pig"


def test_black_pig_after_a_pig_is_a_pair_of_tens_again():
    """sasaki-rules.md, Combinations: after it beats a Pig it counts as a pair of tens again."""
    assert B("JC JD", "TC TS") and B("3C 3D 3H", "TC TS")
    assert not B("9C 9D", "TC TS")
    assert B("TC TS", "9C 9D")   # and it is an ordinary answer on a lower pair


def test_last_two_red_tens_are_a_pair_and_beat_only_lower_pairs():
    """sasaki-rules.md, Combinations: last-two TH TD are only a pair of tens."""
    assert B("TH TD", "9C 9D", hand="TH TD")
    assert not B("TH TD", "JC JD", hand="TH TD")
    assert not B("TH TD", "3C 3D 3H", hand="TH TD")
    assert B("TH TD", "3C 3D 3H", hand="TH TD 5C")


# -- legal plays: generated == accepted, by brute force over all subsets ----------

TOPS = [None, "7D", "AS", "9C 9D", "TC TS", "TH TD", "5C 6D 7H", "8C 9D TH JS", "3C 3D 3H",
        "KC KD KH", "4C 4H AS", "5C 5D 5H 5S", "AC AD AH AS", "JC JD", "3C 4D 5H 6S 7C 8D 9H"]


def brute_force(hand, top):
    cards = list(mask_indices(hand))
    found = set()
    for size in range(1, len(cards) + 1):
        for subset in combinations(cards, size):
            mask = sum(1 << i for i in subset)
            combo = classify(mask, hand)
            if combo is not None and beats(combo, top):
                found.add(mask)
    return found


hands = st.sets(st.integers(0, 47), min_size=1, max_size=9).map(lambda s: sum(1 << i for i in s))


@settings(max_examples=150, deadline=None)
@given(hands, st.sampled_from(TOPS))
def test_generated_plays_are_exactly_the_accepted_ones(hand, top_text):
    """Every generated play is accepted by the validator and every accepted play is generated."""
    top = c(top_text) if top_text else None
    generated = legal_plays(hand, top)
    assert len(generated) == len(set(generated)), "a play is generated twice"
    assert set(generated) == brute_force(hand, top)


@pytest.mark.parametrize("hand", ["TH TD", "TH TD 3C", "TC TS TH TD", "TH TD 9C 9D 9S"])
@pytest.mark.parametrize("top_text", TOPS)
def test_generation_around_the_tens(hand, top_text):
    top = c(top_text) if top_text else None
    mask = parse_cards(hand)
    assert set(legal_plays(mask, top)) == brute_force(mask, top)


def test_full_hand_lead_generation_is_complete():
    hand = parse_cards("3C 3D 4C 4H 5S 6S 7D AS AH TH TD KC")
    assert set(legal_plays(hand, None)) == brute_force(hand, None)
    assert len(legal_plays(FULL_DECK & parse_cards("3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"), None)) == 12 + 55


def test_combo_repr_pastes_back():
    combo = c("TC TS")
    assert repr(combo) == "Combo(Kind.PAIR, Rank.TEN, 2, black_pig=True)"
    assert eval(repr(combo)) is combo
    assert str(c("4C 4H AS")) == "Sasaki (44A)"


def test_generation_against_every_top_of_every_kind_and_rank():
    """Hands with runs, triplets, fours and red tens against every combo a hand can make
    (legal_plays skips ranks and runs that cannot answer: the shortcuts must lose nothing)."""
    from p2p_sasaki.sasaki.combos import _COMBOS
    tops = [None] + [t for t in _COMBOS.values()
                     if t.kind is not Kind.SEQUENCE or t.rank >= t.length - 1 >= 2]
    rng = Random(5)
    for _ in range(12):
        hand = 0
        for i in rng.sample(range(48), 6):
            hand |= 1 << i
        hand |= 15 << (rng.randrange(12) * 4) if rng.random() < 0.5 else 7 << (rng.randrange(12) * 4)
        if rng.random() < 0.5:
            hand |= PIG_MASK
        cards = list(mask_indices(hand))
        subsets = [sum(1 << i for i in subset) for size in range(1, len(cards) + 1)
                   for subset in combinations(cards, size)]
        classes = [(mask, classify(mask, hand)) for mask in subsets]
        classified = [(mask, combo) for mask, combo in classes if combo is not None]
        for top in tops:
            generated = legal_plays(hand, top)
            assert len(generated) == len(set(generated))
            assert set(generated) == {mask for mask, combo in classified if beats(combo, top)}, (hand, top)
