"""Duplicate-tournament scoring for Sasku: deal points and tournament points of a round.

Every table of a round plays the same deal. A line's result at a table (-6..+6: the points
its pair scored minus the other pair's) is compared with the same line's result at every
other table; each comparison gives 0..4 deal points (:func:`comparison_points`), and a line's
tournament points are its deal points over the most it could have had, on a 0..100 scale
(docs/rules-sasku.md, "Duplicate tournaments"; the seed's own scoring).

The seed's first round: an üleküla table (no declarer) where N-S lost 1, and two tables
where N-S lost 2 and 4:

>>> tables = [TableResult(-1, None), TableResult(-2, Line.EW), TableResult(-4, Line.NS)]
>>> [score.line_points for score in score_round(tables)]
[(Fraction(100, 1), Fraction(0, 1)), (Fraction(75, 2), Fraction(125, 2)), (Fraction(25, 2), Fraction(175, 2))]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from fractions import Fraction

__all__ = ["Line", "TableResult", "TableScore", "BYE_POINTS", "LEAVER_POINTS", "STAYER_POINTS",
           "ALONE_POINTS", "line_of", "comparison_points", "score_round"]

MAX_RESULT = 6
# The most one comparison can give: the scale's 100 is this times (tables - 1).
BEST_COMPARISON = 4

BYE_POINTS = Fraction(50)      # a seat that sits out a round
ALONE_POINTS = Fraction(50)    # every seat when only one table counts in a round
LEAVER_POINTS = Fraction(0)    # the player who leaves the tournament, for that round
STAYER_POINTS = Fraction(60)   # each of the other three at the leaver's table


class Line(IntEnum):
    """A tournament line: N-S is pair 0 (seats S0 and S2), E-W pair 1 (S1 and S3)."""

    NS = 0
    EW = 1

    def __str__(self) -> str:
        return "N" if self is Line.NS else "E"


def line_of(seat: int) -> Line:
    """The line a seat plays in: partners sit opposite.

    >>> line_of(0), line_of(3)
    (<Line.NS: 0>, <Line.EW: 1>)
    """
    return Line(seat % 2)


@dataclass(frozen=True)
class TableResult:
    """One table's deal: the N-S line's result (E-W's is its negation) and who declared.

    ``declaring_line`` is None when the table had no declarer (all passed: üleküla ruutu).
    ``leaver`` is the seat of a player who left the tournament during the round: the table's
    result then takes no part in the round's comparisons.
    """

    ns_result: int
    declaring_line: Line | None
    leaver: int | None = None

    def __post_init__(self) -> None:
        if not -MAX_RESULT <= self.ns_result <= MAX_RESULT:
            raise ValueError(f"a line's result is -6..6, not {self.ns_result}")
        if self.leaver is not None and self.leaver not in range(4):
            raise ValueError(f"the leaver is a seat 0..3, not {self.leaver}")

    def result(self, line: Line) -> int:
        """The line's result at this table.

        >>> TableResult(-2, Line.EW).result(Line.EW)
        2
        """
        return self.ns_result if line is Line.NS else -self.ns_result


@dataclass(frozen=True)
class TableScore:
    """What a table's players earn in the round.

    ``deal_points`` per line (N-S, E-W), None at a table a player left;
    ``tournament_points`` per seat S0..S3 (exact; the standings print them rounded).
    """

    deal_points: tuple[int, int] | None
    tournament_points: tuple[Fraction, Fraction, Fraction, Fraction]

    @property
    def line_points(self) -> tuple[Fraction, Fraction]:
        """Tournament points of the N-S and E-W lines (a leaver's table: S0's and S1's)."""
        return self.tournament_points[0], self.tournament_points[1]


def _sign(value: int) -> int:
    return (value > 0) - (value < 0)


def comparison_points(result: int, other: int, declarers_differ: bool) -> int:
    """Deal points for a line's ``result`` against the same line's ``other`` result at
    another table. ``declarers_differ``: both tables had a declarer and the two sat in
    different lines ("trump made in different lines"); an üleküla table never differs.

    >>> comparison_points(2, 2, True), comparison_points(-1, -4, False), comparison_points(2, 1, True)
    (2, 4, 3)
    >>> comparison_points(1, 2, True), comparison_points(1, 2, False), comparison_points(0, -2, False)
    (1, 0, 4)
    """
    if result == other:
        return 2
    same_sign = _sign(result) == _sign(other) != 0
    if same_sign:
        if result > other:
            return 3 if declarers_differ else 4
        return 1 if declarers_differ else 0
    return 4 if result > other else 0


def _declarers_differ(a: TableResult, b: TableResult) -> bool:
    return a.declaring_line is not None and b.declaring_line is not None and a.declaring_line != b.declaring_line


def score_round(tables: Sequence[TableResult]) -> tuple[TableScore, ...]:
    """Score one round: each table's deal points and its seats' tournament points.

    A table a player left scores 0 for the leaver and 60 for the other three, and is left
    out of the comparisons: the other tables' maximum counts one table fewer. When only
    one table counts, its seats score 50.
    """
    counted = [index for index, table in enumerate(tables) if table.leaver is None]
    best = (len(counted) - 1) * BEST_COMPARISON
    scores = []
    for index, table in enumerate(tables):
        if table.leaver is not None:
            stay, left = STAYER_POINTS, LEAVER_POINTS
            points = [left if seat == table.leaver else stay for seat in range(4)]
            scores.append(TableScore(None, (points[0], points[1], points[2], points[3])))
            continue
        deal = [sum(comparison_points(table.result(line), tables[other].result(line),
                                      _declarers_differ(table, tables[other]))
                    for other in counted if other != index)
                for line in Line]
        ns, ew = (Fraction(points * 100, best) if best else ALONE_POINTS for points in deal)
        scores.append(TableScore((deal[0], deal[1]), (ns, ew, ns, ew)))
    return tuple(scores)
