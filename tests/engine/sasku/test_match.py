"""p2p_sasaki/sasku/match.py: deals to the target, deal numbers, the winner."""

from random import Random

import pytest

from p2p_sasaki.sasku.deal import Violation, apply, legal_actions, penalty_points
from p2p_sasaki.sasku.match import Match
from p2p_sasaki.sasku.options import SaskuOptions


def play_out(deal, rng):
    while not deal.is_over:
        actions = legal_actions(deal)
        deal = apply(deal, actions[rng.randrange(len(actions))])
    return deal


def test_a_match_is_played_to_its_target():
    """sasku-rules.md, Match: deals until a pair has 12 or more; deal d has forehand d%4."""
    rng = Random(11)
    match = Match()
    while not match.is_over:
        deal = match.new_deal(rng)
        assert deal.deal_number == len(match.deals) and deal.forehand == deal.deal_number % 4
        match.add(play_out(deal, rng))
    totals = match.totals
    assert max(totals) >= 12 and match.winner == totals.index(max(totals))
    assert totals == tuple(sum(r[p] for r in match.results) for p in (0, 1))
    before_last = [sum(r[p] for r in match.results[:-1]) for p in (0, 1)]
    assert max(before_last) < 12  # the match stopped at the first deal reaching the target
    with pytest.raises(ValueError, match="the match is over"):
        match.new_deal(rng)


def test_pokk_deals_count_and_a_penalty_scores_six():
    """sasku-rules.md: deal numbers count pokk deals; a hidden rule broken costs the deal as in karvane."""
    match = Match(SaskuOptions(target=3))
    rng = Random(2)
    deal = play_out(match.new_deal(rng), rng)
    match.add(deal, penalty_points(Violation(seat=1, step=10, message="S1 must follow suit")))
    assert match.totals == (6, 0) and match.winner == 0 and match.is_over


def test_deals_are_added_in_order_and_only_when_over():
    match = Match()
    rng = Random(3)
    deal = match.new_deal(rng)
    with pytest.raises(ValueError, match="the deal is not over yet"):
        match.add(deal)
    other = play_out(Match().new_deal(rng), rng)
    match.add(other)
    with pytest.raises(ValueError, match="the next deal is deal 1, not 0"):
        match.add(other)
