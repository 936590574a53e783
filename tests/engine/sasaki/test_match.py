"""p2p_sasaki/sasaki/match.py: cumulative scores over several hands."""

import random

import pytest

from p2p_sasaki.sasaki.hand import DecisionKind, random_deal
from p2p_sasaki.sasaki.match import Match


def finish_randomly(hand, rng):
    while not hand.is_over:
        d = hand.decision
        if d.kind is DecisionKind.TURN:
            hand.apply(rng.choice(hand.legal_actions(d.seats[0])))
        else:
            hand.resolve([rng.choice(hand.legal_actions(s)) for s in d.seats])


def test_match_totals_and_every_hand_led_by_the_opening_3():
    """sasaki-rules.md, Seating and Scoring: every hand's first play by the holder of the opening 3; cumulative."""
    rng = random.Random(4)
    match = Match("3S")
    expected = [0, 0, 0, 0]
    for _ in range(5):
        hand = match.start_hand(random_deal(rng))
        assert hand.cards(hand.first_leader).mask & (1 << 3)   # 3S
        with pytest.raises(ValueError, match="not over"):
            match.start_hand(random_deal(rng))
        finish_randomly(hand, rng)
        assert hand.scores is not None
        expected = [a + b for a, b in zip(expected, hand.scores, strict=False)]
    assert match.totals == tuple(expected) and match.hands_finished == 5
    assert sum(match.totals) == 0
    best = max(expected)
    assert match.leaders() == tuple(s for s in range(4) if expected[s] == best)
