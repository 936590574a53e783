"""p2p_sasaki/sasku/bots.py, heuristic.py and search.py: Sasku's bots see only their seat's
view, answer legally, repeat themselves with a seed, and play by the rules they state."""

from __future__ import annotations

import doctest
import importlib
import random
from collections.abc import Sequence

import pytest

from p2p_sasaki.cards import Card, Suit, parse_cards
from p2p_sasaki.errors import HiddenInformationError
from p2p_sasaki.sasku.bots import BOTS, HeuristicBot, RandomBot, make_bot, play, play_deal
from p2p_sasaki.sasku.deal import (
    Action,
    Bid,
    Deal,
    DecisionKind,
    Diamonds,
    Give,
    Pass,
    Play,
    Return,
    Take,
    TrumpCall,
    apply,
    legal_actions,
    state_hash,
    view,
)
from p2p_sasaki.sasku.heuristic import (
    Table,
    best_suit,
    bidding_action,
    card_to_play,
    hand_count,
    heuristic_action,
    return_card,
)
from p2p_sasaki.sasku.options import SaskuOptions
from p2p_sasaki.sasku.search import LEVELS, SearchBot, determinize, rollout, value


def cards(text: str) -> int:
    return parse_cards(text)


def card(index: int) -> str:
    return str(Card.from_index(index))


HEARTS, SPADES, CLUBS, DIAMONDS = int(Suit.HEARTS), int(Suit.SPADES), int(Suit.CLUBS), int(Suit.DIAMONDS)


@pytest.mark.parametrize("name", ["sasku.bots", "sasku.heuristic", "sasku.search", "search"])
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(f"p2p_sasaki.{name}"))
    assert result.failed == 0 and result.attempted > 0


# -- legal, view-only, seeded ------------------------------------------------------------------

class Checked:
    """Wraps a bot: it is shown its own seat's view (never the full deal), answers with one
    of the legal actions; records the kinds of decision it was asked."""

    def __init__(self, bot: object, seat: int) -> None:
        self.bot = bot
        self.seat = seat
        self.kinds: set[DecisionKind] = set()
        self.uses_view = getattr(bot, "uses_view", True)

    def choose(self, seen: Deal | None, legal: Sequence[Action]) -> Action:
        if self.uses_view:
            assert seen is not None and seen.viewer == self.seat and seen.decision.seat == self.seat
            for other in range(4):
                if other % 2 != self.seat % 2 and seen.hand_size(other):
                    with pytest.raises(HiddenInformationError):
                        seen.cards(other)
            self.kinds.add(seen.decision.kind)
        else:
            assert seen is None
        action = self.bot.choose(seen, legal)  # type: ignore[attr-defined]
        assert action in legal
        return action


@pytest.mark.parametrize("kind", ["random", "heuristic", "search"])
def test_every_bot_answers_legally_from_its_view_only(kind):
    kinds: set[DecisionKind] = set()
    deals = 6 if kind == "search" else 60
    for number in range(deals):
        bots = [Checked(make_bot(kind, random.Random(number * 4 + s), level=1), s) for s in range(4)]
        done = play_deal(Deal.random(random.Random(number), number), bots)
        assert done.is_over and sum(done.card_points) == 120 and sum(done.tricks) == 9
        for bot in bots:
            kinds |= bot.kinds
    if kind == "heuristic":  # the heuristic is asked every kind of decision (a give, take, return)
        assert kinds == {DecisionKind.BID, DecisionKind.ANSWER, DecisionKind.RETURN, DecisionKind.TRUMP,
                         DecisionKind.PLAY}


def test_random_bots_meet_every_decision_and_are_never_shown_a_view():
    seen: list[str] = []
    for number in range(40):
        bots = [Checked(RandomBot(random.Random(number * 4 + s)), s) for s in range(4)]
        seen += [action.verb for _, action, _ in play(Deal.random(random.Random(number)), bots)]
    assert set(seen) == {"bid", "pass", "diamonds", "give", "take", "refuse", "return", "trump", "play"}


@pytest.mark.parametrize("kind", ["random", "heuristic", "search"])
def test_the_same_seed_plays_the_same_deal(kind):
    def history(seed: int) -> tuple[Action, ...]:
        bots = [make_bot(kind, random.Random(f"{seed}/{s}"), level=1) for s in range(4)]
        return play_deal(Deal.random(random.Random(5), 1), bots).history

    assert history(1) == history(1)
    if kind != "heuristic":  # the heuristic is deterministic: its rng is never drawn
        assert any(history(1) != history(seed) for seed in range(2, 6))


def test_play_deal_ends_where_play_does():
    for number in range(5):
        bots = [make_bot(kind, random.Random(number), level=1) for kind in ("random", "heuristic") * 2]
        steps = list(play(Deal.random(random.Random(number), number), bots))
        bots = [make_bot(kind, random.Random(number), level=1) for kind in ("random", "heuristic") * 2]
        done = play_deal(Deal.random(random.Random(number), number), bots)
        assert done.history == steps[-1][2].history == tuple(action for _, action, _ in steps)


def _positions(deals: range, every: int = 3, options: SaskuOptions = SaskuOptions()) -> list[Deal]:
    """Full deals at decisions of heuristic play, every few steps."""
    found = []
    for number in deals:
        bots = [HeuristicBot(random.Random(s)) for s in range(4)]
        for i, (_, _, deal) in enumerate(play(Deal.random(random.Random(number), number, options), bots)):
            if i % every == 0 and not deal.is_over:
                found.append(deal)
    return found


def _mover(deal: Deal) -> int:
    """The seat to act at a decision of a deal not yet over."""
    seat = deal.decision.seat
    assert seat is not None
    return seat


def _peer(full: Deal, seat: int) -> Deal:
    """``seat``'s own state as a peer keeps it: its dealt cards and the actions as it saw them."""
    peer = Deal.for_peer(seat, full.dealt(seat), full.deal_number, full.options)
    for action in view(full, seat).history:
        peer = apply(peer, action)
    return peer


def test_a_bot_chooses_the_same_from_a_peer_state_as_from_the_view_of_the_full_deal():
    checked = 0
    for full in _positions(range(4), every=5):
        seat = _mover(full)
        legal = legal_actions(full)
        if len(legal) < 2:
            continue
        peer = _peer(full, seat)
        assert state_hash(peer) == state_hash(full) and legal_actions(peer) == legal
        for kind in ("heuristic", "search"):
            choices = {make_bot(kind, random.Random(3), level=1).choose(state, legal)
                       for state in (view(full, seat), peer)}
            assert len(choices) == 1
        checked += 1
    assert checked >= 20


def _swapped(full: Deal, seat: int) -> Deal | None:
    """The same deal with one hidden card of each opponent exchanged, the history replayed:
    every public fact the same (None when the rules refuse the exchange)."""
    a, b = (seat + 1) % 4, (seat + 3) % 4
    dealt = [full.dealt(s).mask for s in range(4)]
    now_a, now_b = full.cards(a).mask, full.cards(b).mask
    for x in (i for i in range(48) if now_a >> i & 1):
        for y in (i for i in range(48) if now_b >> i & 1):
            moved = list(dealt)
            moved[a] ^= 1 << x | 1 << y
            moved[b] ^= 1 << x | 1 << y
            try:
                other = Deal(moved, full.deal_number, full.options)
                for action in full.history:
                    other = apply(other, action)
            except ValueError:
                continue
            if state_hash(other) == state_hash(full) and view(other, seat).history == view(full, seat).history:
                return other
    return None


def test_the_search_bots_choice_does_not_depend_on_the_hidden_cards():
    checked = 0
    for full in _positions(range(3, 9), every=4):
        seat = _mover(full)
        legal = legal_actions(full)
        if full.decision.kind is not DecisionKind.PLAY or len(legal) < 3:
            continue
        other = _swapped(full, seat)
        if other is None:
            continue
        assert other.cards((seat + 1) % 4) != full.cards((seat + 1) % 4)
        assert legal_actions(other) == legal
        choices = [SearchBot(random.Random(11), rollouts=30).choose(view(d, seat), legal) for d in (full, other)]
        assert choices[0] == choices[1]
        checked += 1
    assert checked >= 5


# -- sampling deals --------------------------------------------------------------------------------

def test_sampled_deals_agree_with_the_view():
    rng = random.Random(3)
    for full in _positions(range(12), every=4):
        seat = _mover(full)
        seen = view(full, seat)
        for _ in range(2):
            sample = determinize(seen, rng)
            assert sample is not None and sample.viewer is None
            assert state_hash(sample) == state_hash(full)
            assert view(sample, seat).history == seen.history
            for other in range(4):
                assert sample.hand_size(other) == full.hand_size(other)
                assert seen.known_cards(other).mask & ~sample.cards(other).mask == 0


def test_sampled_deals_agree_with_the_view_under_the_options():
    rng = random.Random(4)
    options = SaskuOptions(min_bid=6, picture_shown=True)
    positions = _positions(range(30), every=6, options=options)
    assert any(isinstance(a, Give) for deal in positions for a in deal.history)
    for full in positions:
        seat = _mover(full)
        sample = determinize(view(full, seat), rng)
        assert sample is not None and sample.options == options and state_hash(sample) == state_hash(full)


def test_sampled_deals_vary_the_hidden_cards():
    seen = view(Deal.random(random.Random(0)), 0)
    rng = random.Random(1)
    assert len({determinize(seen, rng).cards(2).mask for _ in range(10)}) == 10


def test_a_seat_that_did_not_follow_is_sampled_void_in_that_suit():
    deal = Deal(["KC QC JC AH TH 9H 8H 7H 6H",    # S0: bids, hearts trump
                 "KS QS JS AS TS 9S 8S 7S 6S",    # S1
                 "KH QH JH AC TC 9C 8C 7C 6C",    # S2
                 "KD QD JD AD TD 9D 8D 7D 6D"])   # S3
    for action in (Bid(0, 9), Pass(1), Pass(2), Pass(3), TrumpCall(0, Suit.CLUBS),
                   Play(0, Card.parse("AH")), Play(1, Card.parse("AS"))):  # S1 shows no hearts
        deal = apply(deal, action)
    seen = view(deal, 2)
    rng = random.Random(0)
    hearts = cards("AH TH 9H 8H 7H 6H")
    for _ in range(20):
        sample = determinize(seen, rng)
        assert sample is not None
        assert not sample.cards(1).mask & hearts  # S1's hidden cards: never a heart
        assert sample.cards(0).mask & hearts or sample.cards(3).mask & hearts


def test_the_other_pairs_exchange_is_sampled_with_a_giver_left_without_pictures():
    deal = Deal(["KC 6S 7S 8S 9S TS AS 6H 7H",    # S0: one picture, gives it to S2
                 "QC JC KS QS JS 8H 9H TH AH",    # S1
                 "KH QH JH KD QD JD 6D 7D 8D",    # S2
                 "6C 7C 8C 9C TC AC 9D TD AD"])   # S3
    for action in (Give(0, Card.parse("KC")), Take(2), Return(2, Card.parse("6D")), Pass(0), Bid(1, 5),
                   Bid(2, 6), Pass(3), Pass(1), TrumpCall(2, Suit.DIAMONDS)):
        deal = apply(deal, action)
    seen = view(deal, 1)  # S1 saw "S0 give", "S2 return", without the cards
    assert [str(a) for a in seen.history[:3]] == ["S0 give", "S2 take", "S2 return"]
    rng = random.Random(0)
    given = set()
    for _ in range(30):
        sample = determinize(seen, rng)
        assert sample is not None and state_hash(sample) == state_hash(deal)
        assert not sample.cards(0).mask & cards("KC KS KH KD QC QS QH QD JC JS JH JD")
        given.add(str(next(a for a in sample.history if isinstance(a, Give)).card))
    assert len(given) > 1  # which picture moved is not known to S1: it varies


def test_sampled_hands_bid_as_the_auction_went():
    from p2p_sasaki.sasku.search import _facts, _plausible

    rng = random.Random(2)
    checked = plausible = 0
    for full in _positions(range(20), every=9):
        if not full.auction_over:
            continue
        seat = _mover(full)
        seen = view(full, seat)
        facts = _facts(seen)
        bidders = [s for s in range(4) if facts.least[s] > 0 and s != seat]
        assert all(hand_count(full.dealt(s).mask) >= facts.least[s] for s in bidders)  # the heuristic's bids
        for _ in range(3):
            sample = determinize(seen, rng)
            hands = [sample.cards(s).mask for s in range(4)]
            plausible += _plausible(facts, hands, seat)
            checked += 1
            for s in bidders:  # a bid of N: a count of N - 1 at least, in nearly every sample
                assert hand_count(hands[s] | facts.played[s]) >= facts.least[s] or not _plausible(facts, hands, seat)
    assert checked > 30 and plausible >= 0.9 * checked


# -- rollouts and levels --------------------------------------------------------------------------

def test_the_rollout_ends_every_deal_as_the_engine_would_with_the_heuristic_rules():
    for full in _positions(range(8), every=7):
        deal = full
        while not deal.is_over:
            legal = legal_actions(deal)
            deal = apply(deal, legal[0] if len(legal) == 1 else heuristic_action(deal, _mover(deal), legal))
        values = rollout(full)
        assert values == tuple(value(deal, seat) for seat in range(4))
        assert values[0] == -values[1] == values[2] == -values[3]


def test_value_is_the_line_result_with_a_small_card_point_share():
    deal = Deal.random(random.Random(2))
    done = play_deal(deal, [HeuristicBot(random.Random(s)) for s in range(4)])
    points, card_points = done.points, done.card_points
    assert points is not None
    assert value(done, 1) == pytest.approx(points[1] - points[0] + (card_points[1] - card_points[0]) / 120)


def test_levels_map_to_rollouts():
    assert [LEVELS[level] for level in sorted(LEVELS)] == sorted(LEVELS.values())
    bot = make_bot("search", random.Random(0), level=2)
    assert isinstance(bot, SearchBot) and bot.rollouts == LEVELS[2]
    assert set(BOTS) == {"random", "heuristic", "search"}


def test_the_search_spends_its_budget_on_card_play_and_not_on_forced_or_auction_turns():
    full = Deal.random(random.Random(4))
    bot = SearchBot(random.Random(0), rollouts=20)
    bot.choose(view(full, 0), legal_actions(full))
    assert bot.last_rollouts == 0  # the auction: the heuristic rules
    for action in (Bid(0, 5), Pass(1), Pass(2), Pass(3), TrumpCall(0, Suit.HEARTS)):
        full = apply(full, action)
    legal = legal_actions(full)
    assert bot.choose(view(full, 0), legal) in legal and 20 <= bot.last_rollouts < 20 + len(legal)


# -- the heuristic rules --------------------------------------------------------------------------

def table(hand: str, high: int = 0, bidder: int | None = None, seat: int = 0) -> Table:
    return Table(seat, cards(hand), (), 0, -1, None, high, bidder, 5)


def bid_legal(seat: int, high: int, give: str | None = None) -> list[Action]:
    actions: list[Action] = [Bid(seat, n) for n in range(max(5, high + 1), 10)]
    actions += [Pass(seat), Diamonds(seat)]
    if give:
        actions.append(Give(seat, Card.parse(give)))
    return actions


def test_the_count_is_pictures_and_the_longest_suit():
    assert hand_count(cards("KC QH JD AS TS 9S 7S 8H 6D")) == 7
    assert best_suit(cards("KC QH JD AS TS 9S 7S 8H 6D")) == SPADES
    assert best_suit(cards("AH 6H 7S 8S 9C TC KC QC JC")) == HEARTS  # equal length: the points decide
    assert best_suit(cards("6H 7H 6S 7S KC QC JC 6D 7D")) == SPADES  # then the higher suit


def test_bids_from_its_count_the_least_that_beats_the_highest():
    assert bidding_action(table("KC QH JD AS TS 9S 7S 8H 6D"), bid_legal(0, 0)) == Bid(0, 5)
    assert bidding_action(table("KC QH JD AS TS 9S 7S 8H 6D", 6, 1), bid_legal(0, 6)) == Bid(0, 7)
    assert bidding_action(table("KC QH JD AS TS 9S 7S 8H 6D", 7, 1), bid_legal(0, 7)) == Pass(0)
    assert bidding_action(table("KC 6D 7H 8S 9C TS AH 6C 7C"), bid_legal(0, 0)) == Pass(0)  # count 4
    # pictures and diamonds enough: diamonds at once
    assert bidding_action(table("KC QH JD AD TD 9D 8D 7S 6S"), bid_legal(0, 0)) == Diamonds(0)


def test_does_not_outbid_its_partner_without_a_clear_margin():
    assert bidding_action(table("KC QH JD AS TS 9S 7S 8H 6D", 6, 2), bid_legal(0, 6)) == Pass(0)
    assert bidding_action(table("KC QH JD AS TS 9S 7S 6S 6D", 5, 2), bid_legal(0, 5)) == Bid(0, 6)


def test_gives_a_lone_picture_to_a_partner_who_leads_the_auction():
    hand = "KC 6D 7H 8S 9C TS AH 6C 7C"
    assert bidding_action(table(hand, 6, 2), bid_legal(0, 6, "KC")) == Give(0, Card.parse("KC"))
    assert bidding_action(table(hand, 6, 1), bid_legal(0, 6, "KC")) == Pass(0)  # an opponent leads
    assert bidding_action(table(hand), bid_legal(0, 0, "KC")) == Pass(0)        # nobody bid yet


def test_returns_a_cheap_card_of_its_shortest_side_suit():
    assert card(return_card(cards("KC QC JC AS TS 9S 7H 8H 6D"))) == "6D"
    assert card(return_card(cards("KC QC JC 6S 7S 8S AH 8H TD"))) == "8H"  # no points given back


def play_card(hand: str, trick: str = "", played: str = "", trump: int = HEARTS, ours: bool = False,
              legal: str | None = None) -> str:
    trick_cards = tuple(Card.parse(c).index for c in trick.split())
    seen = cards(played) | sum(1 << i for i in trick_cards)
    return card(card_to_play(cards(hand), cards(legal or hand), trick_cards, seen, trump, ours))


def test_second_hand_plays_high_when_it_wins_else_low():
    assert play_card("AS 7S 6D", "9S", legal="AS 7S") == "AS"       # the ace of spades is sure
    assert play_card("TS 7S 6D", "9S", legal="TS 7S") == "7S"       # the ace is out: low
    assert play_card("TS 7S 6D", "9S", played="AS", legal="TS 7S") == "TS"  # the ace is gone: high


def test_trumps_low_when_it_trumps_or_overtrumps():
    # void in spades, an opponent leads: the lowest trump that wins, in fourth hand
    assert play_card("7H AH QC 6D", "AS 8S 9S") == "7H"
    assert play_card("JH QC KC 6D", "AS 8S JD") == "JH"  # JH beats JD (hearts above diamonds)
    assert play_card("JH QC KC 6D", "AS 8S QD") == "QC"  # JH does not beat QD: QC is the lowest that does


def test_keeps_aces_and_tens_away_from_the_opponents_tricks():
    # cannot beat the opponent's trump: throws the cheapest card, not the ace or ten
    assert play_card("AD TC 7C", "6S KC", trump=SPADES) == "7C"      # third hand, KC an opponent's
    assert play_card("AD TC 8C", "QD 9S KC", trump=SPADES) == "8C"   # fourth hand
    assert play_card("AD TD 8D", "9D TH", trump=HEARTS) == "8D"      # second hand, the 10 of trumps wins


def test_gives_points_to_the_partners_winning_trick():
    # fourth hand, the partner (second hand) wins with the king of clubs: the plain ace on it
    assert play_card("AD TC 7C", "9S KC 6S", trump=SPADES) == "AD"
    # third hand behind the partner's sure winner: the ten on it
    assert play_card("TD 7D 6C", "KC 8H", trump=SPADES, legal="TD 7D 6C") == "TD"


def test_leads_an_ace_then_the_declarer_draws_trumps_then_low():
    assert play_card("AS 7S KC QC 6D") == "AS"
    assert play_card("KC QC 8H 6D 7S", ours=True) == "KC"       # the top trump: draw trumps
    assert play_card("QC JC 8H 6D 7S", ours=True) == "6D"       # KC is out: no sure trump, lead low
    assert play_card("KC QC 8H 6D 7S", ours=False) == "6D"


def test_takes_a_given_picture_and_names_its_best_suit_trump():
    deal = Deal(["KC 6S 7S 8S 9S TS AS 6H 7H", "QC JC KS QS JS 8H 9H TH AH",
                 "KH QH JH KD QD JD 6D 7D 8D", "6C 7C 8C 9C TC AC 9D TD AD"])
    deal = apply(deal, Give(0, Card.parse("KC")))
    assert heuristic_action(view(deal, 2), 2, legal_actions(deal)) == Take(2)
    deal = apply(deal, Take(2))
    assert heuristic_action(view(deal, 2), 2, legal_actions(deal)) == Return(2, Card.parse("6D"))
    for action in (Return(2, Card.parse("6D")), Pass(0), Bid(1, 5), Bid(2, 6), Pass(3), Pass(1)):
        deal = apply(deal, action)
    assert deal.decision.kind is DecisionKind.TRUMP
    assert heuristic_action(view(deal, 2), 2, legal_actions(deal)) == TrumpCall(2, Suit.DIAMONDS)
