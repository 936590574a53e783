"""Scoring a finished hand: data-driven tables times the multiplier.

The seed's charts were lost; the default values follow Red Ten (provisional).
Swap in another :class:`ScoringTable` when the originals are found.

>>> score_hand(finish=(2, 0, 1, 3), red=(2, 0), multiplier=2)
(4, -4, 4, -4)
>>> score_hand(finish=(1, 0, 2, 3), red=(3,), multiplier=1)
(3, 3, 3, -9)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = ["ScoringTable", "DEFAULT_SCORING", "multiplier", "score_hand", "match_totals"]


@dataclass(frozen=True)
class ScoringTable:
    """Per-player values, zero-sum.

    ``two_vs_two[(a, b)]``: each red partner's value when they finish in places
    ``a < b`` (1-4); each opponent gets the negative. ``one_vs_three[p]``: the
    lone red player's value and each opponent's value when the lone player
    finishes in place ``p``.
    """

    two_vs_two: Mapping[tuple[int, int], int] = field(default_factory=lambda: MappingProxyType({
        (1, 2): 2, (1, 3): 1, (1, 4): 0, (2, 3): 0, (2, 4): -1, (3, 4): -2}))
    one_vs_three: Mapping[int, tuple[int, int]] = field(default_factory=lambda: MappingProxyType({
        1: (9, -3), 2: (0, 0), 3: (0, 0), 4: (-9, 3)}))


DEFAULT_SCORING = ScoringTable()


def multiplier(ran: bool, stopped: bool) -> int:
    """x1, x2 after a run, x4 after any Stop (never x8)."""
    return 4 if stopped else 2 if ran else 1


def score_hand(finish: Sequence[int], red: Iterable[int], multiplier: int,
               table: ScoringTable = DEFAULT_SCORING) -> tuple[int, int, int, int]:
    """Scores of seats 0-3, given the finishing order and the seats dealt a red ten."""
    if sorted(finish) != [0, 1, 2, 3]:
        raise ValueError(f"finish must order all four seats, not {list(finish)}")
    red_seats = set(red)
    place = {seat: i + 1 for i, seat in enumerate(finish)}
    if len(red_seats) == 1:
        (lone,) = red_seats
        mine, theirs = table.one_vs_three[place[lone]]
        values = [mine if seat == lone else theirs for seat in range(4)]
    elif len(red_seats) == 2:
        a, b = sorted(place[seat] for seat in red_seats)
        value = table.two_vs_two[(a, b)]
        values = [value if seat in red_seats else -value for seat in range(4)]
    else:
        raise ValueError(f"the red side is one or two seats, not {sorted(red_seats)}")
    s0, s1, s2, s3 = (v * multiplier for v in values)
    return (s0, s1, s2, s3)


def match_totals(rows: Iterable[Sequence[int]], seats: int = 4) -> tuple[int, ...]:
    """A match's totals: each seat's scores summed over the finished hands' score rows (the
    one place totals are added up: the engine's Match and the table session use it).

    >>> match_totals([(1, -1, 0, 0), (2, 0, -2, 0)])
    (3, -1, -2, 0)
    """
    totals = [0] * seats
    for row in rows:
        for seat, score in enumerate(row):
            totals[seat] += score
    return tuple(totals)
