"""The Sasku oracle against examples worked out by hand from the rules text
(../shared/sasku-rules.md), before it is trusted to judge the engine: the trick winner, the
game points of every kind of outcome, and the crafted records of sasku_recordgen.CRAFTED
(whole deals played trick by trick on paper, every give and auction corner, tag errors)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import sasku_recordgen as gen  # noqa: E402
from sasku_oracle import deal_points, replay_json, trick_winner  # noqa: E402

# ---------------------------------------------------------------- cards

def test_trick_winner_by_the_trump_order():
    # any picture beats every card of the trump suit; pictures K > Q > J, then C > S > H > D
    assert trick_winner([(0, "AH"), (1, "JD"), (2, "TH"), (3, "6H")], "H") == 1
    assert trick_winner([(0, "QD"), (1, "QC"), (2, "KD"), (3, "JC")], "S") == 2
    assert trick_winner([(0, "6S"), (1, "AS"), (2, "KD"), (3, "TS")], "S") == 2
    # no trump in the trick: the highest card of the suit led; a ten beats a nine
    assert trick_winner([(0, "9C"), (1, "TC"), (2, "AD"), (3, "6C")], "H") == 1
    # the 6 of the trump suit beats the ace of the suit led
    assert trick_winner([(0, "AC"), (1, "6D"), (2, "TC"), (3, "9C")], "D") == 1


# ---------------------------------------------------------------- scoring

@pytest.mark.parametrize("card_points, tricks, declarer, diamonds, points", [
    ((61, 59), (5, 4), 0, False, [1, 0]),    # suit game made
    ((60, 60), (5, 4), 0, False, [0, 0]),    # pokk
    ((59, 61), (5, 4), 2, False, [0, 2]),    # suit game overthrown
    ((90, 30), (7, 2), 1, False, [3, 0]),    # overthrown, the declarers under 31: jänn
    ((31, 89), (2, 7), 1, False, [0, 1]),    # 31 is not under 31: no jänn
    ((30, 90), (2, 7), 3, False, [0, 2]),    # made with jänn
    ((70, 50), (5, 4), 0, True, [2, 0]),     # diamonds made
    ((91, 29), (8, 1), 2, True, [3, 0]),     # diamonds made, jänn
    ((50, 70), (4, 5), 0, True, [0, 4]),     # diamonds overthrown
    ((10, 110), (1, 8), 0, True, [0, 5]),    # diamonds overthrown, jänn
    ((120, 0), (9, 0), 0, True, [6, 0]),     # karvane for the declarers
    ((0, 120), (0, 9), 2, False, [0, 6]),    # karvane against them
    ((10, 110), (1, 8), None, True, [0, 1]),  # üleküla: 1, no jänn
    ((120, 0), (9, 0), None, True, [1, 0]),  # üleküla: no karvane
    ((60, 60), (4, 5), None, True, [0, 0]),  # pokk in üleküla too
    ((0, 120), (0, 9), 1, False, [0, 6]),    # karvane for the declarers of pair 1
])
def test_deal_points(card_points, tricks, declarer, diamonds, points):
    assert deal_points(list(card_points), list(tricks), declarer, diamonds) == points


# ---------------------------------------------------------------- whole records

@pytest.mark.parametrize("case", gen.CRAFTED, ids=lambda c: c[0])
def test_crafted_records(case):
    name, text, expected = case
    result = replay_json(text)
    if isinstance(expected, int):
        assert result["ok"] is False and result["line"] == expected, result
    else:
        assert result == expected


def test_a_complete_deal_worked_by_hand():
    """gen.FOLLOW_PLAY: S1 (forehand of deal 1) hands JC to S3 for 9S; S3 declares spades.
    Pair 1 takes tricks 1, 3, 5, 8: 32 + 32 + 3 + 2 = 69 card points; pair 0 the other five:
    6 + 24 + 7 + 9 + 5 = 51. A suit game made without jänn: 1 to pair 1."""
    text = gen.crafted_record(gen.FOLLOW, gen.FOLLOW_AUCTION + gen.FOLLOW_PLAY, gen.DEAL1)
    assert replay_json(text) == {"ok": True, "complete": True, "declarer": 3, "trump": "S", "diamonds": False,
                                 "card_points": [51, 69], "tricks": [5, 4], "points": [0, 1]}


def test_generated_records_are_legal_and_complete():
    rng = random.Random(3)
    for _ in range(60):
        rec, _ = gen.legal_record(rng)
        result = replay_json(rec.render()[0])
        assert result["ok"] and result["complete"], result
        assert sum(result["card_points"]) == 120 and sum(result["tricks"]) == 9
        assert min(result["points"]) == 0 and max(result["points"]) <= 6


def test_mutations_break_the_line_they_name():
    rng = random.Random(4)
    for mutation in gen.MUTATIONS:
        made = 0
        for _ in range(50):
            try:
                text, line = gen.mutated_record(rng, mutation)
            except gen.Skip:
                continue
            made += 1
            result = replay_json(text)
            if line is not None:
                assert result["ok"] is False and result["line"] == line, (mutation.__name__, result, text)
            if made == 2:
                break
        assert made == 2, mutation.__name__


def test_rare_records_cover_every_outcome():
    found = {kind for kind, _ in gen.rare_records(seed=5, wanted=1)}
    assert found == set(gen.OUTCOMES)


@pytest.mark.parametrize("case", gen.REPORTED + gen.REPORTED_CLI, ids=lambda c: c[0])
def test_reported_records_are_refused_on_their_line(case):
    """The records reported against the engine: the oracle's own answer, checked here so
    the differential's expected failures fail for the engine's reason only."""
    name, text, line = case
    result = replay_json(text)
    assert result["ok"] is False and result["line"] == line, result


@pytest.mark.parametrize("case", gen.REPORTED_OK, ids=lambda c: c[0])
def test_reported_records_are_legal(case):
    assert replay_json(case[1]) == gen.state(None, None, False)
