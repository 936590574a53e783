"""p2p_sasaki/sasaki/search.py: SearchBot sees only its view, samples consistent deals, answers legally."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from p2p_sasaki.cards import CardSet
from p2p_sasaki.sasaki.bots import HeuristicBot, make_bot, play, play_hand
from p2p_sasaki.sasaki.hand import (
    Action,
    Chata,
    DecisionKind,
    Decline,
    Expose,
    Hand,
    Kkojda,
    Play,
    Run,
    SeatView,
    Stop,
)
from p2p_sasaki.sasaki.options import TableOptions
from p2p_sasaki.sasaki.search import LEVELS, SearchBot, candidates, determinize, rollout

OPTIONS = TableOptions(lead_card="3H")


class Checked:
    """Wraps a bot: every answer must be one of the legal ones; records the kinds asked."""

    def __init__(self, bot: SearchBot) -> None:
        self.bot = bot
        self.kinds: set[DecisionKind] = set()

    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action:
        assert isinstance(view, SeatView)
        action = self.bot.choose(view, legal)
        assert action in list(legal)
        self.kinds.add(view.decision.kind)
        return action


def test_answers_legally_in_every_kind_of_decision():
    kinds: set[DecisionKind] = set()
    for seed in range(40):
        bots = [Checked(SearchBot(random.Random(seed * 4 + s), rollouts=2)) for s in range(4)]
        hand = play_hand(Hand.random(random.Random(seed), "3H", OPTIONS), bots)
        assert hand.is_over
        for bot in bots:
            kinds |= bot.kinds
    # EXPOSE is forced on the partner (never asked); every other kind was searched
    assert kinds == {DecisionKind.RUN, DecisionKind.STOP, DecisionKind.TURN, DecisionKind.CHATA,
                     DecisionKind.KKOJDA}


def test_answers_legally_when_running_on_any_own_turn():
    options = TableOptions(lead_card="3S", running="any_own_turn")
    asked_run = False
    for seed in range(12):
        bots = [Checked(SearchBot(random.Random(seed * 4 + s), rollouts=2)) for s in range(4)]
        hand = Hand.random(random.Random(100 + seed), "3S", options)
        for step in play(hand, bots):
            asked_run |= any(isinstance(a, Run) for a in step.answers)
        assert hand.is_over
    assert asked_run


def _states(seeds: range) -> list[tuple[Hand, int]]:
    """Positions from heuristic hands: (a copy of the hand, the seat asked), every few steps."""
    states = []
    for seed in seeds:
        hand = Hand.random(random.Random(seed), "3H", OPTIONS)
        bots = [HeuristicBot(random.Random(s)) for s in range(4)]
        for i, _ in enumerate(play(hand, bots)):
            if i % 5 == 0 and not hand.is_over:
                states.append((hand.copy(), hand.decision.seats[0]))
    return states


def test_sampled_deals_agree_with_the_view():
    rng = random.Random(3)
    for hand, seat in _states(range(15)):
        view = hand.view(seat)
        for _ in range(3):
            sample = determinize(view, rng, OPTIONS)
            assert sample is not None
            assert sample.view(seat) == view  # the same public facts and own cards
            assert sample.decision == hand.decision
            for other in range(4):  # every other seat holds its shown cards, its own count
                assert sample.hand_size(other) == hand.hand_size(other)
                assert view.shown[other].mask & ~sample.cards(other).mask == 0


def test_sampled_deals_vary_the_hidden_cards():
    hand = Hand.random(random.Random(0), "3H", OPTIONS)
    view = hand.view(0)
    rng = random.Random(1)
    samples = {determinize(view, rng, OPTIONS).cards(2).mask for _ in range(10)}
    assert len(samples) == 10


def _swapped(hand: Hand, seat: int) -> Hand:
    """The same hand with two unplayed hidden cards exchanged between the seats after ``seat``:
    the same history replayed, every public fact the same."""
    view = hand.view(seat)
    a, b = (seat + 2) % 4, (seat + 3) % 4
    shown = view.shown[a].mask | view.shown[b].mask
    ca = hand.cards(a).mask & ~shown
    cb = hand.cards(b).mask & ~shown
    low_a, low_b = ca & -ca, cb & -cb
    dealt = list(hand.dealt)
    dealt[a] ^= low_a | low_b
    dealt[b] ^= low_a | low_b
    other = Hand(dealt, hand.lead_card, OPTIONS)
    from p2p_sasaki.sasaki.search import _replay
    _replay(other, hand.history, hand.decision)
    assert other.cards(a) != hand.cards(a)
    return other


def test_the_decision_does_not_depend_on_hidden_cards():
    checked = 0
    for hand, seat in _states(range(6)):
        legal = hand.legal_actions(seat)
        if len(legal) < 3 or min(hand.hand_size((seat + 2) % 4), hand.hand_size((seat + 3) % 4)) < 2:
            continue
        other = _swapped(hand, seat)
        assert other.view(seat) == hand.view(seat)
        assert other.legal_actions(seat) == legal
        choices = [SearchBot(random.Random(11), rollouts=40).choose(h.view(seat), h.legal_actions(seat))
                   for h in (hand, other)]
        assert choices[0] == choices[1]
        checked += 1
    assert checked >= 5


def test_the_same_seed_gives_the_same_choice_and_the_budget_is_in_rollouts():
    hand, seat = _states(range(2, 3))[3]
    view, legal = hand.view(seat), hand.legal_actions(seat)
    bots = [SearchBot(random.Random(5), rollouts=30) for _ in range(2)]
    assert bots[0].choose(view, legal) == bots[1].choose(view, legal)
    assert bots[0].last_rollouts == bots[1].last_rollouts
    n = len(candidates(legal, view.cards.mask))
    if n > 1:
        assert 30 <= bots[0].last_rollouts < 30 + n


def test_one_legal_answer_or_going_out_is_taken_without_search():
    bot = SearchBot(random.Random(0), rollouts=1000)
    hand = Hand.random(random.Random(0), "3H", OPTIONS)
    view = hand.view(1)
    assert bot.choose(view, [Decline(1)]) == Decline(1)
    assert bot.last_rollouts == 0


def test_candidates_merge_plays_that_differ_only_in_suits():
    from p2p_sasaki.cards import parse_cards
    cards = parse_cards("5C 5D 9H TH TD JS")
    legal: list[Action] = [Play(0, CardSet.parse(t)) for t in ("5C", "5D", "5C 5D", "TH", "TD", "TH TD")]
    kept = candidates(legal, cards)
    assert [str(a.cards) for a in kept] == ["5C", "5C 5D", "TH", "TD", "TD TH"]


def test_rollout_plays_a_full_deal_to_the_end_zero_sum():
    for seed in range(5):
        hand = Hand.random(random.Random(seed), "3H", OPTIONS)
        scores = rollout(hand)
        assert hand.is_over and sum(scores) == 0 and scores == hand.scores


def test_levels_map_to_rollouts():
    assert [LEVELS[level] for level in sorted(LEVELS)] == sorted(LEVELS.values())
    bot = make_bot("search", random.Random(0), level=2)
    assert isinstance(bot, SearchBot) and bot.rollouts == LEVELS[2]


@pytest.mark.parametrize("kind", [DecisionKind.STOP, DecisionKind.CHATA, DecisionKind.KKOJDA])
def test_window_answers_are_claims_or_declines(kind):
    # every answer the bot gave in a window of this kind, over a few hands, is legal
    seen: list[Action] = []
    for seed in range(30):
        bots = [SearchBot(random.Random(seed + s), rollouts=2) for s in range(4)]
        hand = Hand.random(random.Random(seed), "3H", OPTIONS)
        for step in play(hand, bots):
            if step.decision.kind is kind:
                seen += step.answers
        if len(seen) > 3:
            break
    assert seen and all(isinstance(a, (Stop, Chata, Kkojda, Decline, Expose)) for a in seen)


@pytest.mark.parametrize("lead,running", [("3S", "before_first_play"), ("3S", "any_own_turn"),
                                          ("3H", "any_own_turn")])
def test_sampled_deals_agree_with_the_view_under_every_option(lead, running):
    options = TableOptions(lead_card=lead, running=running)
    rng = random.Random(4)
    checked = 0
    for seed in range(8):
        hand = Hand.random(random.Random(seed), lead, options)
        bots = [HeuristicBot(random.Random(s)) for s in range(4)]
        for i, _ in enumerate(play(hand, bots)):
            if i % 4 or hand.is_over:
                continue
            seat = hand.decision.seats[0]
            view = hand.view(seat)
            sample = determinize(view, rng, options)
            assert sample is not None and sample.view(seat) == view
            checked += 1
    assert checked > 20


def _rank_shape(mask: int) -> tuple[int, ...]:
    return tuple((mask >> (4 * r) & 15).bit_count() for r in range(12))


def test_the_rollout_policy_plays_as_the_heuristic_bot():
    """On masks, without views: the same play as HeuristicBot up to suits (its tie-breaks)."""
    from p2p_sasaki.sasaki.combos import PIG_MASK
    from p2p_sasaki.sasaki.search import _RED_TEN_BITS, _partners, _played_tens, rollout_choice

    checked = 0
    for seed in range(20):
        hand = Hand.random(random.Random(seed), "3H", OPTIONS)
        heuristic = HeuristicBot(random.Random(seed))
        steps = play(hand, [heuristic] * 4)
        while not hand.is_over:
            d = hand.decision
            seat = d.seats[0]
            masks = hand.legal_play_masks(seat) if d.kind is DecisionKind.TURN else []
            if d.kind is DecisionKind.TURN and len(masks) + (hand.top is not None) > 1:
                dealt = hand.dealt
                first, second = (next(s for s in range(4) if dealt[s] & bit) for bit in _RED_TEN_BITS)
                holders = (first, second)
                public = PIG_MASK if hand.runner is not None else _played_tens(hand)
                mine = rollout_choice(hand, seat, masks, _partners(seat, holders, public, dealt[seat]),
                                      hand.cards(seat).mask)
                theirs = heuristic.choose(hand.view(seat), hand.legal_actions(seat))
                if mine is None:
                    assert not isinstance(theirs, Play)
                else:
                    assert isinstance(theirs, Play)
                    assert _rank_shape(theirs.cards.mask) == _rank_shape(mine)
                checked += 1
            next(steps)
    assert checked > 300
