"""p2p_sasaki/sasaki/scoring.py: the 2v2 and 1v3 tables and the multiplier."""

import itertools

import pytest

from p2p_sasaki.sasaki.scoring import ScoringTable, multiplier, score_hand


@pytest.mark.parametrize("places, value", [((1, 2), 2), ((1, 3), 1), ((1, 4), 0), ((2, 3), 0),
                                           ((2, 4), -1), ((3, 4), -2)])
def test_two_against_two(places, value):
    """sasaki-rules.md, Scoring: two against two, by the red partners' places."""
    placed: list[int | None] = [None] * 4
    red = (1, 3)
    placed[places[0] - 1], placed[places[1] - 1] = red
    others = iter((0, 2))
    finish = [s if s is not None else next(others) for s in placed]
    assert score_hand(finish, red, 1) == (-value, value, -value, value)


@pytest.mark.parametrize("place, lone, each", [(1, 9, -3), (2, 0, 0), (3, 0, 0), (4, -9, 3)])
def test_one_against_three(place, lone, each):
    """sasaki-rules.md, Scoring: one against three, by the lone player's place."""
    finish = [0, 1, 3]
    finish.insert(place - 1, 2)
    assert score_hand(finish, (2,), 1) == (each, each, lone, each)


def test_multiplier_x1_x2_x4_never_x8():
    """sasaki-rules.md, Partnerships, running and Stop: x2 after a run, x4 after a Stop (not x8)."""
    assert (multiplier(False, False), multiplier(True, False), multiplier(True, True)) == (1, 2, 4)
    assert score_hand((2, 0, 1, 3), (2, 0), 4) == (8, -8, 8, -8)


def test_scores_are_zero_sum_for_every_finish():
    for finish in itertools.permutations(range(4)):
        for red in [(0,), (1, 2), (0, 3)]:
            assert sum(score_hand(finish, red, 2)) == 0


def test_tables_are_data_and_can_be_replaced():
    table = ScoringTable(two_vs_two={(1, 2): 3, (1, 3): 1, (1, 4): 0, (2, 3): 0, (2, 4): -1, (3, 4): -3},
                         one_vs_three={1: (6, -2), 2: (0, 0), 3: (0, 0), 4: (-6, 2)})
    assert score_hand((0, 1, 2, 3), (0, 1), 1, table) == (3, 3, -3, -3)
    assert score_hand((0, 1, 2, 3), (0,), 1, table) == (6, -2, -2, -2)
    with pytest.raises(ValueError):
        score_hand((0, 1, 2), (0,), 1)
