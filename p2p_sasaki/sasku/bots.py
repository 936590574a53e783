"""Sasku's bots: players that answer every decision from one seat's view and its legal actions.

A bot sees what a person in that seat sees: the seat's view of the deal (a
:class:`~p2p_sasaki.sasku.deal.Deal` made by :func:`~p2p_sasaki.sasku.deal.view`:
its own cards, the cards its pair handed each other, everything public) and the
list of legal actions. It never gets the full deal. :func:`play` drives a deal with
four bots; a seat whose only legal action is forced is not asked. A bot that never
reads its view (``uses_view = False``, as :class:`RandomBot`) is not shown one.

Three kinds (:data:`BOTS`, :func:`make_bot`): :class:`RandomBot`, :class:`HeuristicBot`
(a club player's rules of thumb) and :class:`~p2p_sasaki.sasku.search.SearchBot`
(the shared Monte Carlo search over the hidden cards, the heuristic rules as its
rollout policy). The heuristic rules (:mod:`p2p_sasaki.sasku.heuristic`) are functions
of what one seat knows, on card masks, so the search's rollouts play by them too.

>>> from random import Random
>>> deal = Deal.random(Random(3))
>>> bots = [HeuristicBot(Random(s)) for s in range(4)]
>>> done = play_deal(deal, bots)
>>> done.is_over, sum(done.card_points), sum(done.tricks)
(True, 120, 9)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from random import Random
from typing import Protocol

from p2p_sasaki.sasku.deal import Action, Deal, Decision, apply, legal_actions, view
from p2p_sasaki.sasku.heuristic import heuristic_action
from p2p_sasaki.sasku.search import DEFAULT_LEVEL, LEVELS, SearchBot

__all__ = ["Bot", "RandomBot", "HeuristicBot", "SearchBot", "BOTS", "make_bot", "play", "play_deal"]


class Bot(Protocol):
    """Anything that picks one of ``legal`` (never empty) knowing only ``view``, the
    deciding seat's view of the deal."""

    def choose(self, view: Deal, legal: Sequence[Action]) -> Action: ...


class RandomBot:
    """A uniformly random legal action."""

    uses_view = False  # choose() never looks at the view: play() does not make one

    def __init__(self, rng: Random) -> None:
        self.rng = rng

    def choose(self, view: Deal | None, legal: Sequence[Action]) -> Action:
        return legal[int(self.rng.random() * len(legal))]


class HeuristicBot:
    """Plays by a club player's rules of thumb (:mod:`p2p_sasaki.sasku.heuristic`): it bids
    from its count, gives a lone picture to a partner who leads the auction, always takes
    a picture its partner gives, names its best suit trump and plays standard card play.
    Deterministic: the rng is kept for the interface."""

    def __init__(self, rng: Random) -> None:
        self.rng = rng

    def choose(self, view: Deal, legal: Sequence[Action]) -> Action:
        seat = view.decision.seat
        assert seat is not None
        return heuristic_action(view, seat, legal)


# -- driving a deal ----------------------------------------------------------------------------

def play(deal: Deal, bots: Sequence[Bot]) -> Iterator[tuple[Decision, Action, Deal]]:
    """Play ``deal`` (the full deal) to its end with ``bots[seat]`` deciding for each seat:
    yields each decision, the action taken and the deal after it."""
    uses_view = [getattr(bot, "uses_view", True) is not False for bot in bots]
    while not deal.is_over:
        decision = deal.decision
        seat = decision.seat
        assert seat is not None
        legal = legal_actions(deal)
        if len(legal) == 1:
            action = legal[0]
        elif uses_view[seat]:
            action = bots[seat].choose(view(deal, seat), legal)
        else:
            action = bots[seat].choose(None, legal)  # type: ignore[arg-type]
        deal = apply(deal, action)
        yield decision, action, deal


def play_deal(deal: Deal, bots: Sequence[Bot]) -> Deal:
    """``deal`` played to its end by ``bots``: the finished deal (what :func:`play` ends
    with, without the steps: the loop the benchmarks and simulations run)."""
    uses_view = [getattr(bot, "uses_view", True) is not False for bot in bots]
    choose = [bot.choose for bot in bots]
    while not deal.is_over:
        legal = legal_actions(deal)
        if len(legal) == 1:
            deal = apply(deal, legal[0])
            continue
        seat = deal.decision.seat
        assert seat is not None
        deal = apply(deal, choose[seat](view(deal, seat) if uses_view[seat] else None, legal))  # type: ignore[arg-type]
    return deal

BOTS: dict[str, Callable[[Random], Bot]] = {"random": RandomBot, "heuristic": HeuristicBot,
                                            "search": SearchBot}


def make_bot(kind: str, rng: Random, level: int = DEFAULT_LEVEL) -> Bot:
    """A bot of ``kind`` (a key of :data:`BOTS`); ``level`` (a key of
    :data:`p2p_sasaki.sasku.search.LEVELS`) sets a search bot's rollouts per decision."""
    if kind == "search":
        return SearchBot(rng, rollouts=LEVELS[level])
    return BOTS[kind](rng)
