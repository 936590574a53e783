"""A match: several hands with cumulative scores; the highest total wins.

Every hand's first play is made by the holder of the opening 3 (the match's
concrete lead card).

>>> from random import Random
>>> match = Match(lead_card="3H")
>>> hand = match.start_hand(random_deal(Random(1)))
>>> match.totals
(0, 0, 0, 0)
"""

from __future__ import annotations

from collections.abc import Sequence

from p2p_sasaki.cards import Card, CardSet, parse_card
from p2p_sasaki.sasaki.hand import Hand, random_deal
from p2p_sasaki.sasaki.options import LeadCard, TableOptions
from p2p_sasaki.sasaki.scoring import DEFAULT_SCORING, ScoringTable, match_totals

__all__ = ["Match", "random_deal"]


class Match:
    def __init__(self, lead_card: Card | str, options: TableOptions = TableOptions(),
                 scoring: ScoringTable = DEFAULT_SCORING) -> None:
        self.lead_card = Card.from_index(parse_card(lead_card)) if isinstance(lead_card, str) else lead_card
        LeadCard.opening(self.lead_card)
        self.options = options
        self.scoring = scoring
        self.hands: list[Hand] = []

    def start_hand(self, deal: Sequence[CardSet]) -> Hand:
        """A new hand of this match; the previous one must be over."""
        if self.hands and not self.hands[-1].is_over:
            raise ValueError("the current hand is not over yet")
        hand = Hand([cards.mask for cards in deal], self.lead_card, self.options, self.scoring)
        self.hands.append(hand)
        return hand

    @property
    def totals(self) -> tuple[int, int, int, int]:
        """Cumulative scores of seats 0-3 over the finished hands."""
        totals = match_totals(hand.scores for hand in self.hands if hand.scores is not None)
        return (totals[0], totals[1], totals[2], totals[3])

    @property
    def hands_finished(self) -> int:
        return sum(1 for hand in self.hands if hand.is_over)

    def leaders(self) -> tuple[int, ...]:
        """The seats with the highest total (more than one on a tie)."""
        totals = self.totals
        best = max(totals)
        return tuple(seat for seat in range(4) if totals[seat] == best)
