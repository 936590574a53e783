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

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from fractions import Fraction

__all__ = ["Line", "TableResult", "TableScore", "BYE_POINTS", "LEAVER_POINTS", "STAYER_POINTS",
           "ALONE_POINTS", "line_of", "comparison_points", "score_round", "Seating", "seat_round", "bye_players",
           "RoundRecord", "Standings", "shown", "result_string", "TABLE_SEATS"]

MAX_RESULT = 6
TABLE_SEATS = 4
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

    @classmethod
    def of_deal(cls, points: Sequence[int], declarer: int | None) -> TableResult:
        """A finished deal's result: ``points`` the game points each pair scored (N-S, E-W:
        one of them 0; both for a pokk), ``declarer`` its seat (None: all passed).

        >>> TableResult.of_deal((0, 2), 1), TableResult.of_deal((1, 0), None)
        (TableResult(ns_result=-2, declaring_line=<Line.EW: 1>, leaver=None), TableResult(ns_result=1, declaring_line=None, leaver=None))
        """  # noqa: E501 (a doctest's expected output is one line)
        return cls(points[0] - points[1], None if declarer is None else line_of(declarer))

    @classmethod
    def left(cls, seat: int) -> TableResult:
        """The result of a table the player at ``seat`` left: no result, out of the comparisons."""
        return cls(0, None, leaver=seat)

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


# ---------------------------------------------------------------------------------------
# Seating, byes and standings (docs/rules-sasku.md, "Duplicate tournaments")
# ---------------------------------------------------------------------------------------


def shown(points: Fraction) -> int:
    """Tournament points as the standings print them: rounded, halves up (**ruling**: the
    seed prints whole numbers and says no more), the exact value kept everywhere else.

    >>> shown(Fraction(250, 3)), shown(Fraction(125, 2)), shown(Fraction(25, 2))
    (83, 63, 13)
    """
    return math.floor(points + Fraction(1, 2))


@dataclass(frozen=True)
class Seating:
    """Who plays where in a round: ``tables[t][s]`` is the player (index in the tournament
    roster) at board seat ``s`` of table ``t`` (table 1 of the rules is ``tables[0]``);
    ``byes`` the players who sit the round out (lowest in the standings first).

    >>> seating = Seating(((4, 0, 2, 1),), (3,))
    >>> seating.place(2), seating.place(3)
    ((0, 2), None)
    """

    tables: tuple[tuple[int, int, int, int], ...]
    byes: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        players = [p for table in self.tables for p in table] + list(self.byes)
        if len(set(players)) != len(players):
            raise ValueError("a seating places each player once")
        if any(len(table) != TABLE_SEATS for table in self.tables):
            raise ValueError("a table has four seats")

    @property
    def players(self) -> frozenset[int]:
        return frozenset(p for table in self.tables for p in table) | frozenset(self.byes)

    def place(self, player: int) -> tuple[int, int] | None:
        """(table, seat) of ``player``, or None for a bye; KeyError if it is not in the round."""
        for t, table in enumerate(self.tables):
            if player in table:
                return t, table.index(player)
        if player in self.byes:
            return None
        raise KeyError(player)


def bye_players(ranking: Sequence[int], count: int, byes_had: Sequence[int]) -> tuple[int, ...]:
    """The ``count`` players who sit out: the lowest in ``ranking`` (best first) among those
    with the fewest byes so far, so nobody has a second bye before everyone had one.
    Returned lowest first.

    >>> bye_players([0, 1, 2, 3, 4, 5], 2, [0, 0, 0, 0, 1, 0])
    (5, 3)
    """
    position = {player: index for index, player in enumerate(ranking)}
    by_need = sorted(ranking, key=lambda p: (byes_had[p], -position[p]))
    return tuple(by_need[:count])


def seat_round(ranking: Sequence[int], byes_had: Sequence[int]) -> Seating:
    """A round's seating from the standings: ``ranking`` is the players still in the
    tournament, best first (ties already broken by the draw; before the first round, the
    draw itself); ``byes_had[p]`` counts player p's byes so far. When the players do not
    divide by four the byes go first (:func:`bye_players`); then the top four sit at table
    1 (1st S0, 2nd S1, 3rd S2, 4th S3: a ruling), the next four at table 2, and so on.

    >>> seat_round([7, 2, 5, 0, 1, 3, 6, 4, 8], [0] * 9)
    Seating(tables=((7, 2, 5, 0), (1, 3, 6, 4)), byes=(8,))
    """
    if len(ranking) < TABLE_SEATS:
        raise ValueError(f"a round needs four players, {len(ranking)} are left")
    byes = bye_players(ranking, len(ranking) % TABLE_SEATS, byes_had)
    seated = [p for p in ranking if p not in byes]
    tables = tuple((seated[i], seated[i + 1], seated[i + 2], seated[i + 3])
                   for i in range(0, len(seated), TABLE_SEATS))
    return Seating(tables, byes)


def result_string(line: Line, result: int | None, points: Fraction) -> str:
    """A player's round in the seed's notation: line, the line's result, tournament points
    (shown rounded). A table a player left has no result: ``-``.

    >>> result_string(Line.NS, -2, Fraction(50)), result_string(Line.EW, 0, Fraction(100))
    ('N:-2:50', 'E:0:100')
    >>> result_string(Line.EW, None, Fraction(60))
    'E:-:60'
    """
    return f"{line}:{'-' if result is None else result}:{shown(points)}"


@dataclass(frozen=True)
class RoundRecord:
    """One round played: its seating and each table's result (a leaver named in it), and
    the scores :func:`score_round` gives them.

    >>> record = RoundRecord(1, Seating(((0, 1, 2, 3),), (4,)), (TableResult(-2, Line.EW),))
    >>> [record.entry(p) for p in range(5)]
    ['N:-2:50', 'E:2:50', 'N:-2:50', 'E:2:50', 'bye:50']
    """

    number: int
    seating: Seating
    results: tuple[TableResult, ...]
    scores: tuple[TableScore, ...] = field(init=False, repr=False, compare=False)
    _points: dict[int, Fraction] = field(init=False, repr=False, compare=False)   # by player

    def __post_init__(self) -> None:
        if len(self.results) != len(self.seating.tables):
            raise ValueError(f"round {self.number}: {len(self.seating.tables)} tables, {len(self.results)} results")
        scores = score_round(self.results)
        object.__setattr__(self, "scores", scores)
        points = {player: BYE_POINTS for player in self.seating.byes}
        for table, seats in enumerate(self.seating.tables):
            points.update(zip(seats, scores[table].tournament_points, strict=True))
        object.__setattr__(self, "_points", points)

    def points(self, player: int) -> Fraction:
        """The player's tournament points in this round (KeyError if it was not in it)."""
        return self._points[player]

    def entry(self, player: int) -> str:
        """The player's result string: ``N:-2:50``; ``bye:50``; ``left:0`` for the leaver."""
        place = self.seating.place(player)
        if place is None:
            return f"bye:{shown(BYE_POINTS)}"
        table, seat = place
        result = self.results[table]
        if result.leaver == seat:
            return f"left:{shown(LEAVER_POINTS)}"
        line = line_of(seat)
        return result_string(line, None if result.leaver is not None else result.result(line), self.points(player))

    @property
    def leavers(self) -> tuple[int, ...]:
        return tuple(self.seating.tables[t][r.leaver] for t, r in enumerate(self.results) if r.leaver is not None)


@dataclass(frozen=True)
class Standings:
    """The tournament so far: the players' names (roster order), the draw (player indices
    in the order drawn: round 1's seating, and every tie after), and the rounds played.

    >>> standings = Standings(("Ann", "Bo", "Cy", "Di", "Ed"), draw=(4, 0, 1, 2, 3))
    >>> standings.next_seating()
    Seating(tables=((4, 0, 1, 2),), byes=(3,))
    >>> standings = standings.with_round(standings.next_seating(), [TableResult(1, Line.NS)])
    >>> [(standings.names[p], shown(standings.total(p))) for p in standings.ranking()]
    [('Ed', 50), ('Ann', 50), ('Bo', 50), ('Cy', 50), ('Di', 50)]
    >>> standings.next_seating()  # Di had the bye: the lowest of those who had none sits out
    Seating(tables=((4, 0, 1, 3),), byes=(2,))
    """

    names: tuple[str, ...]
    draw: tuple[int, ...]
    rounds: tuple[RoundRecord, ...] = ()

    def __post_init__(self) -> None:
        if sorted(self.draw) != list(range(len(self.names))):
            raise ValueError("the draw orders every player once")

    @property
    def players(self) -> int:
        return len(self.names)

    @functools.cached_property
    def _totals(self) -> tuple[Fraction, ...]:
        totals = [Fraction(0)] * len(self.names)
        for record in self.rounds:
            for player in record.seating.players:
                totals[player] += record.points(player)
        return tuple(totals)

    def total(self, player: int) -> Fraction:
        """The sum of the player's tournament points (exact)."""
        return self._totals[player]

    def byes_had(self, player: int) -> int:
        return sum(player in r.seating.byes for r in self.rounds)

    @property
    def left(self) -> tuple[int, ...]:
        """The players who left the tournament, in the order they left."""
        return tuple(p for r in self.rounds for p in r.leavers)

    def ranking(self) -> tuple[int, ...]:
        """Every player, best first: by total points, ties by the draw (those who left too)."""
        position = {player: index for index, player in enumerate(self.draw)}
        return tuple(sorted(range(self.players), key=lambda p: (-self.total(p), position[p])))

    def active(self) -> tuple[int, ...]:
        """The ranking of the players still in the tournament."""
        gone = set(self.left)
        return tuple(p for p in self.ranking() if p not in gone)

    def next_seating(self) -> Seating:
        """The next round's seating (:func:`seat_round`); ValueError under four players."""
        return seat_round(self.active(), [self.byes_had(p) for p in range(self.players)])

    def with_round(self, seating: Seating, results: Sequence[TableResult]) -> Standings:
        """The standings after one more round played with ``seating``: ``results[t]`` is table t's."""
        record = RoundRecord(len(self.rounds) + 1, seating, tuple(results))
        return Standings(self.names, self.draw, (*self.rounds, record))
