"""A match: deals until a pair has ``target`` (12) game points or more.

Deal ``d`` (0-based, pokk deals counted) has dealer ``(d+3)%4`` and forehand ``d%4``.

>>> from random import Random
>>> from p2p_sasaki.sasku.deal import apply, legal_actions
>>> match = Match()
>>> rng = Random(3)
>>> while not match.is_over:
...     deal = match.new_deal(rng)
...     while not deal.is_over:
...         deal = apply(deal, legal_actions(deal)[0])
...     match.add(deal)
>>> match.totals, match.winner, len(match.deals)
((3, 12), 1, 8)
"""

from __future__ import annotations

from random import Random

from p2p_sasaki.sasku.deal import Deal
from p2p_sasaki.sasku.options import SaskuOptions

__all__ = ["Match"]


class Match:
    """The deals of a match so far and each pair's game points."""

    def __init__(self, options: SaskuOptions = SaskuOptions()) -> None:
        self.options = options
        self.deals: list[Deal] = []
        self.results: list[tuple[int, int]] = []  # game points per deal (a penalty included)

    @property
    def next_deal_number(self) -> int:
        return len(self.results)

    def new_deal(self, rng: Random) -> Deal:
        """A random deal with the next deal number (the match is not over)."""
        if self.is_over:
            raise ValueError("the match is over")
        return Deal.random(rng, self.next_deal_number, self.options)

    def add(self, deal: Deal, points: tuple[int, int] | None = None) -> None:
        """Count a finished deal; ``points`` overrides its score (the penalty for a rule
        broken with hidden cards, :func:`~p2p_sasaki.sasku.deal.penalty_points`)."""
        if self.is_over:
            raise ValueError("the match is over")
        if deal.deal_number != self.next_deal_number:
            raise ValueError(f"the next deal is deal {self.next_deal_number}, not {deal.deal_number}")
        if points is None:
            if deal.points is None:
                raise ValueError("the deal is not over yet")
            points = deal.points
        self.deals.append(deal)
        self.results.append(points)

    @property
    def totals(self) -> tuple[int, int]:
        """Game points of pair 0 (S0, S2) and pair 1 (S1, S3)."""
        return (sum(p[0] for p in self.results), sum(p[1] for p in self.results))

    @property
    def winner(self) -> int | None:
        """The pair that reached the target (None while nobody has)."""
        totals = self.totals
        for pair in (0, 1):
            if totals[pair] >= self.options.target:
                return pair
        return None

    @property
    def is_over(self) -> bool:
        return self.winner is not None
