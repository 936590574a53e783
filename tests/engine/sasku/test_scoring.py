"""p2p_sasaki/sasku/scoring.py: the game points of a deal, row by row of the rules' table."""

import pytest

from p2p_sasaki.sasku.scoring import Outcome, deal_outcome, deal_points, line_result, pair_of


@pytest.mark.parametrize(("declarer", "diamonds", "card_points", "tricks", "points", "outcome"), [
    # suit game made: D scores 1; failed ("overthrown"): O scores 2
    (0, False, (61, 59), (5, 4), (1, 0), Outcome.MADE),
    (1, False, (61, 59), (5, 4), (2, 0), Outcome.FAILED),
    (2, False, (59, 61), (4, 5), (0, 2), Outcome.FAILED),
    # diamonds game made: D scores 2; failed: O scores 4
    (3, True, (40, 80), (3, 6), (0, 2), Outcome.MADE),
    (3, True, (80, 40), (6, 3), (4, 0), Outcome.FAILED),
    # jänn: the losing pair took fewer than 31 card points: +1
    (0, False, (90, 30), (7, 2), (2, 0), Outcome.MADE),
    (0, False, (89, 31), (7, 2), (1, 0), Outcome.MADE),
    (0, True, (95, 25), (8, 1), (3, 0), Outcome.MADE),
    (0, False, (30, 90), (2, 7), (0, 3), Outcome.FAILED),
    (1, True, (100, 20), (8, 1), (5, 0), Outcome.FAILED),
    # karvane: one pair took no trick: the pair that took every trick scores 6
    (0, False, (120, 0), (9, 0), (6, 0), Outcome.KARVANE),
    (0, True, (0, 120), (0, 9), (0, 6), Outcome.KARVANE),
    (1, False, (120, 0), (9, 0), (6, 0), Outcome.KARVANE),
    # üleküla: 1 to the pair with more card points; no jänn, no karvane
    (None, True, (61, 59), (4, 5), (1, 0), Outcome.ULEKULA),
    (None, True, (10, 110), (1, 8), (0, 1), Outcome.ULEKULA),
    (None, True, (0, 120), (0, 9), (0, 1), Outcome.ULEKULA),
    # pokk: 60-60, any game: nobody scores
    (0, False, (60, 60), (4, 5), (0, 0), Outcome.POKK),
    (1, True, (60, 60), (5, 4), (0, 0), Outcome.POKK),
    (None, True, (60, 60), (5, 4), (0, 0), Outcome.POKK),
])
def test_deal_points(declarer, diamonds, card_points, tricks, points, outcome):
    """sasku-rules.md, Scoring a deal."""
    assert deal_outcome(declarer, card_points, tricks) is outcome
    assert deal_points(declarer, diamonds, card_points, tricks) == points


def test_line_results_and_pairs():
    """sasku-rules.md, Scoring: a line's result is its pair's points minus the other's."""
    assert [pair_of(seat) for seat in range(4)] == [0, 1, 0, 1]
    assert line_result((0, 2), 0) == -2 and line_result((0, 2), 1) == 2 and line_result((0, 0), 1) == 0
