"""Sasku's search bot: the shared determinized Monte Carlo search with a Sasku hook.

The search itself is :mod:`p2p_sasaki.search` (Sasaki's search bot uses it too); this
module gives it Sasku's rules (:class:`SaskuSearch`). For a decision worth searching
the bot, seeing only its seat's view,

1. *samples a deal* consistent with everything public (:func:`determinize`): its own
   cards, the cards its partner handed it, the cards played, each hand's size, every
   void a seat has shown by not following, the other pair's exchange (a giver held
   exactly one picture, and has none after giving it unless its partner gave it one
   later), and, as far as it can, the bids (each seat's count of pictures and longest
   suit within what its bids and passes suggest, a diamonds caller's pictures and
   diamonds, the trump named among the declarer's longest suits). The hidden cards are
   dealt at random within those limits, the hidden picture and returned card of the
   other pair's exchange are drawn among the cards that could have moved, and the
   sample is checked by replaying the whole public history on it with the full engine
   (a sample the rules refuse is drawn again);
2. *plays every candidate* forward to the end of the deal with the heuristic rules for
   all four seats (:func:`rollout`);
3. picks the candidate with the best mean result for its pair: the game points of the
   deal (its pair's minus the other's) plus a small share of the card-point margin, so
   that among deals that score alike the one with more card points counts a little more.

The budget is counted in rollouts, so a seed gives the same choice on any machine.
The bot searches card play and the naming of trump; the auction and the exchange it
plays by the heuristic rules.

>>> from random import Random
>>> from p2p_sasaki.sasku.bots import HeuristicBot, play_deal
>>> bots = [SearchBot(Random(1), rollouts=8), HeuristicBot(Random(2)), HeuristicBot(Random(3)),
...         HeuristicBot(Random(4))]
>>> play_deal(Deal.random(Random(5)), bots).is_over
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from random import Random

from p2p_sasaki.cards import Card, Suit
from p2p_sasaki.errors import IllegalActionError
from p2p_sasaki.sasku.deal import (
    Action,
    Bid,
    Deal,
    DecisionKind,
    Diamonds,
    Give,
    Pass,
    Play,
    Refuse,
    Return,
    Take,
    TrumpCall,
    apply,
    legal_actions,
    partner_of,
)
from p2p_sasaki.sasku.heuristic import (
    BID_FROM,
    DIAMONDS_FROM,
    OVERBID_PARTNER,
    card_to_play,
    hand_count,
    heuristic_action,
)
from p2p_sasaki.sasku.scoring import deal_points, line_result
from p2p_sasaki.sasku.trumps import CARD_POINTS, PACK, PICTURES, PLAIN, follow_mask, follow_table, winner_index
from p2p_sasaki.search import best_answer

__all__ = ["SearchBot", "SaskuSearch", "LEVELS", "DEFAULT_LEVEL", "determinize", "rollout", "value",
           "CARD_POINT_WEIGHT"]

# --level -> rollouts per decision. The default keeps the median decision near 0.05 s
# and the worst under 0.5 s of one core (simulate --game sasku --duplicate prints them).
LEVELS: dict[int, int] = {1: 10, 2: 30, 3: 60, 4: 120, 5: 400}
DEFAULT_LEVEL = 4  # as Sasaki's: `sasaki simulate --level` has one default for both games

CARD_POINT_WEIGHT = 1 / 120  # game points per card point of margin: 120 of them are worth one

_BID, _ANSWER, _RETURN, _TRUMP, _PLAY, _OVER = DecisionKind
_SEARCHED = (_PLAY, _TRUMP)
_CARDS = tuple(Card.from_index(i) for i in range(48))
_DIAMONDS = int(Suit.DIAMONDS)


# -- what the history shows --------------------------------------------------------------------

class _Exchange:
    """A give within one pair: the picture and the returned card where this view saw them."""

    __slots__ = ("giver", "taker", "picture", "returned", "taken", "step", "give_step", "return_step")

    def __init__(self, giver: int, step: int, picture: int) -> None:
        self.giver = giver
        self.taker = partner_of(giver)
        self.picture = picture      # card index, -1 where hidden
        self.returned = -1          # card index, -1 where hidden or not yet returned
        self.taken = False
        self.give_step = step
        self.return_step = -1


class _Facts:
    """What a view's history shows about the hidden hands."""

    __slots__ = ("played", "barred", "exchanges", "least", "most", "diamonds", "trump")

    def __init__(self) -> None:
        self.played = [0, 0, 0, 0]      # the cards each seat played
        self.barred = [0, 0, 0, 0]      # cards each seat cannot hold (rules)
        self.exchanges: list[_Exchange] = []
        # what the auction suggests, read as the heuristic bids (never certain):
        self.least = [0, 0, 0, 0]       # a seat's count (pictures + longest suit) is at least
        self.most = [9, 9, 9, 9]        # ... and at most
        self.diamonds = -1              # the seat that said diamonds
        self.trump = (-1, -1)           # (declarer, the suit it named)


def _facts(view: Deal) -> _Facts:
    """From the view's history: the cards each seat played; the cards each seat cannot
    hold (voids shown by not following; no picture for a giver whose partner has not
    given since); the exchanges in order; and what the bids suggest of each hand."""
    facts = _Facts()
    played, barred, exchanges = facts.played, facts.barred, facts.exchanges
    trump = view.trump
    trick: list[int] = []
    high, bidder = 0, -1
    min_bid = view.options.min_bid
    for step, action in enumerate(view.history):
        if isinstance(action, Play):
            index = action.card.index
            played[action.seat] |= 1 << index
            if trick:
                assert trump is not None
                follow = follow_mask(trick[0], int(trump))
                if not follow >> index & 1:
                    barred[action.seat] |= follow
            trick.append(index)
            if len(trick) == 4:
                trick = []
        elif isinstance(action, Bid):
            facts.least[action.seat] = max(facts.least[action.seat], action.number - 1)
            high, bidder = action.number, action.seat
        elif isinstance(action, Pass):
            # a count that beat the highest bid would have bid (over a partner: by a margin)
            wanted = max(min_bid, high + 1, BID_FROM)
            if bidder >= 0 and bidder % 2 == action.seat % 2:
                wanted += OVERBID_PARTNER
            facts.most[action.seat] = min(facts.most[action.seat], wanted)
        elif isinstance(action, Diamonds):
            facts.diamonds = action.seat
        elif isinstance(action, TrumpCall):
            facts.trump = (action.seat, int(action.suit))
        elif isinstance(action, Give):
            exchanges.append(_Exchange(action.seat, step, -1 if action.card is None else action.card.index))
        elif isinstance(action, Take):
            exchanges[-1].taken = True
        elif isinstance(action, Refuse):
            exchanges.pop()  # nothing moved (the replay names the picture the giver kept)
        elif isinstance(action, Return):
            exchanges[-1].returned = -1 if action.card is None else action.card.index
            exchanges[-1].return_step = step
    for exchange in exchanges:
        if exchange.taken and not any(e.giver == exchange.taker and e.give_step > exchange.give_step
                                      for e in exchanges):
            barred[exchange.giver] |= PICTURES
    return facts


def _plausible(facts: _Facts, hands: list[int], me: int) -> bool:
    """Whether the hands (as each seat held them after the auction: now and played) bid as
    the auction went, with a card's slack: counts within the bids' bounds, diamonds said
    with pictures and diamonds, the trump named among the declarer's longest suits."""
    for seat in range(4):
        if seat == me:
            continue
        hand = hands[seat] | facts.played[seat]
        count = hand_count(hand)
        if not facts.least[seat] <= count <= facts.most[seat]:
            return False
        if seat == facts.diamonds and (hand & (PICTURES | PLAIN[_DIAMONDS])).bit_count() < DIAMONDS_FROM - 1:
            return False
        if seat == facts.trump[0]:
            longest = max((hand & PLAIN[suit]).bit_count() for suit in range(4))
            if (hand & PLAIN[facts.trump[1]]).bit_count() < longest - 1:
                return False
    return True


# -- sampling a deal ---------------------------------------------------------------------------

def _draw(pool: int, count: int, rng: Random) -> int:
    """``count`` cards of ``pool`` (a mask) at random."""
    cards = [1 << i for i in range(48) if pool >> i & 1]
    mask = 0
    for _ in range(count):
        i = int(rng.random() * len(cards))
        cards[i], cards[-1] = cards[-1], cards[i]
        mask |= cards.pop()
    return mask


def _pick(mask: int, rng: Random) -> int:
    """One card index of ``mask`` at random (-1 if empty)."""
    indices = [i for i in range(48) if mask >> i & 1]
    return indices[int(rng.random() * len(indices))] if indices else -1


def determinize(view: Deal, rng: Random, tries: int = 20) -> Deal | None:
    """A full :class:`Deal` in ``view``'s state whose hidden cards are a random sample
    consistent with everything public; ``None`` if ``tries`` samples all fail the replay.

    Players bid from their count (pictures and longest suit), so a sample whose hands
    would not have bid as the auction went is drawn again, for the first half of the
    ``tries`` (then such a sample is kept: a bid promises nothing the rules check).
    """
    facts = _facts(view)
    for attempt in range(tries):
        deal = _sample(view, rng, facts, infer=attempt < tries // 2)
        if deal is not None:
            return deal
    return None


def _sample(view: Deal, rng: Random, facts: _Facts, infer: bool) -> Deal | None:
    played, barred, exchanges = facts.played, facts.barred, facts.exchanges
    me = view.viewer
    assert me is not None
    known = [view.known_cards(s).mask for s in range(4)]
    pool = PACK & ~view.played.mask
    for s in range(4):
        pool &= ~known[s]
    hands = list(known)
    need = [view.hand_size(s) - known[s].bit_count() for s in range(4)]
    # the seat with the least room to spare first, so it is not left without cards
    order = sorted((s for s in range(4) if need[s]), key=lambda s: (pool & ~barred[s]).bit_count() - need[s])
    for s in order:
        allowed = pool & ~barred[s]
        if allowed.bit_count() < need[s]:
            return None
        drawn = _draw(allowed, need[s], rng)
        hands[s] |= drawn
        pool &= ~drawn
    if infer and not _plausible(facts, hands, me):
        return None
    # undo the exchanges, the last first: each seat was dealt what it holds and played,
    # with the picture it was given and the card it handed back moved back
    dealt = [hands[s] | played[s] for s in range(4)]
    filled: dict[int, Action] = {}
    for exchange in reversed(exchanges):
        g, t = exchange.giver, exchange.taker
        if not exchange.taken:
            continue
        picture = exchange.picture
        if picture < 0:
            picture = _pick(dealt[t] & PICTURES, rng)
            if picture < 0:
                return None
            filled[exchange.give_step] = Give(g, _CARDS[picture])
        returned = exchange.returned
        if exchange.return_step >= 0:
            if returned < 0:
                returned = _pick(dealt[g] & ~PICTURES, rng)
                if returned < 0:
                    return None
                filled[exchange.return_step] = Return(t, _CARDS[returned])
            dealt[g] &= ~(1 << returned)
            dealt[t] |= 1 << returned
        dealt[t] &= ~(1 << picture)
        dealt[g] |= 1 << picture
    try:
        deal = Deal(dealt, view.deal_number, view.options)
        for step, action in enumerate(view.history):
            action = filled.get(step, action)
            if isinstance(action, Give) and action.card is None:  # a refused give
                picture = deal.known_cards(action.seat).mask & PICTURES
                if picture.bit_count() != 1:
                    return None
                action = Give(action.seat, _CARDS[picture.bit_length() - 1])
            deal = apply(deal, action)
    except IllegalActionError:
        return None
    if deal.decision != view.decision:
        return None
    return deal


# -- rollouts ----------------------------------------------------------------------------------

def rollout(deal: Deal) -> tuple[float, float, float, float]:
    """Play ``deal`` (a full deal) to its end, every seat by the heuristic rules, and value
    the end for each seat (:func:`value`).

    The auction goes through the engine; the tricks are played on masks (the cards in
    each hand, the trick), with the engine's following, trick winner and scoring
    (:mod:`p2p_sasaki.sasku.trumps`, :mod:`p2p_sasaki.sasku.scoring`): the search's hot loop.
    A test checks that it ends exactly as the engine would.
    """
    while deal.decision.kind is not _PLAY:
        if deal.is_over:
            return _values(deal.declarer, deal.diamonds, deal.card_points, deal.tricks)
        actions = legal_actions(deal)
        seat = deal.decision.seat
        assert seat is not None
        deal = apply(deal, actions[0] if len(actions) == 1 else heuristic_action(deal, seat, actions))
    trump = int(deal.trump)  # type: ignore[arg-type]
    follow = follow_table(trump)
    declarer = deal.declarer
    hands = [deal.known_cards(s).mask for s in range(4)]
    trick = [card.index for card in deal.trick]
    played = deal.played.mask
    seat = deal.decision.seat
    assert seat is not None
    leader = deal.leader
    won = list(deal.tricks)
    points = list(deal.card_points)
    ours = [declarer is not None and declarer & 1 == s & 1 for s in range(4)]
    left = 9 - won[0] - won[1]
    while left:
        hand = hands[seat]
        legal = hand
        if trick:
            suited = hand & follow[trick[0]]
            if suited:
                legal = suited
        index = card_to_play(hand, legal, trick, played, trump, ours[seat])
        bit = 1 << index
        hands[seat] = hand & ~bit
        played |= bit
        trick.append(index)
        if len(trick) < 4:
            seat = (seat + 1) & 3
            continue
        seat = (leader + winner_index(trick, trump)) & 3
        pair = seat & 1
        won[pair] += 1
        points[pair] += CARD_POINTS[trick[0]] + CARD_POINTS[trick[1]] + CARD_POINTS[trick[2]] + CARD_POINTS[trick[3]]
        leader = seat
        trick = []
        left -= 1
    return _values(declarer, deal.diamonds, (points[0], points[1]), (won[0], won[1]))


def _values(declarer: int | None, diamonds: bool, card_points: tuple[int, int],
            tricks: tuple[int, int]) -> tuple[float, float, float, float]:
    scored = deal_points(declarer, diamonds, card_points, tricks)
    mine = line_result(scored, 0) + CARD_POINT_WEIGHT * (card_points[0] - card_points[1])
    return (mine, -mine, mine, -mine)


def value(deal: Deal, seat: int) -> float:
    """How good the finished ``deal`` is for ``seat``'s pair: its game points minus the
    other pair's, plus :data:`CARD_POINT_WEIGHT` per card point of margin."""
    return _values(deal.declarer, deal.diamonds, deal.card_points, deal.tricks)[seat]


class SaskuSearch:
    """Sasku's hook for the shared search (:class:`p2p_sasaki.search.SearchGame`): worlds
    are full deals sampled by :func:`determinize`; deals are values, so nothing is copied."""

    def sample(self, view: Deal, rng: Random) -> Deal | None:
        return determinize(view, rng)

    def play(self, deal: Deal, action: Action) -> Deal:
        return apply(deal, action)

    def rollout(self, deal: Deal) -> tuple[float, float, float, float]:
        return rollout(deal)


class SearchBot:
    """Determinized Monte Carlo search with ``rollouts`` rollouts per decision (card play
    and trump); the heuristic rules elsewhere."""

    thinks = True  # a table runs choose() in a worker thread

    def __init__(self, rng: Random, rollouts: int = LEVELS[DEFAULT_LEVEL]) -> None:
        self.rng = rng
        self.rollouts = rollouts
        self.last_rollouts = 0  # rollouts spent on the last decision (for benchmarks)

    def choose(self, view: Deal, legal: Sequence[Action], seconds: float | None = None,
               clock: Callable[[], float] | None = None) -> Action:
        """The answer for ``view``: the rollout budget, cut short once ``seconds`` have passed
        on ``clock`` when both are given (a table's pacing: it answers before its delay; the
        engine has no clock of its own)."""
        self.last_rollouts = 0
        seat = view.decision.seat
        assert seat is not None
        if len(legal) == 1:
            return legal[0]
        if view.decision.kind not in _SEARCHED:
            return heuristic_action(view, seat, legal)
        choice, self.last_rollouts = best_answer(SaskuSearch(), view, seat, list(legal), self.rng,
                                                 self.rollouts, seconds, clock)
        return choice
