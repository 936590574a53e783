"""The tournament's standings for people and programs: a table on the terminal, the JSON of
``standings.json`` and ``sasaki audit DIR --json``, and the rows the standings page draws
(cli/web/standings_page.py). All are functions of one
:class:`~p2p_sasaki.sasku.tournament.Standings` value, which the tournament command shows
after every round.

>>> from p2p_sasaki.sasku.tournament import Line, Standings, TableResult
>>> standings = Standings(("Ann", "Bo", "Cy", "Di", "Ed"), draw=(4, 0, 1, 2, 3))
>>> standings = standings.with_round(standings.next_seating(), [TableResult(-2, Line.EW)])
>>> print(standings_text(standings))
Standings after round 1 of 1
#  Player  Round 1           Total
1  Ed      N:-2:50  t1   50     50
2  Ann     E:2:50   t1   50     50
3  Bo      N:-2:50  t1   50     50
4  Cy      E:2:50   t1   50     50
5  Di      bye:50        50     50
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from p2p_sasaki.sasku.tournament import Standings, shown

__all__ = ["StandingsRow", "RoundCell", "standings_rows", "standings_text", "standings_json", "rounds_json"]


@dataclass(frozen=True)
class RoundCell:
    """A player's round: the result string (``N:-2:50``, ``bye:50``, ``left:0``), the table
    it played at (from 1; None for a bye) and its running total after the round."""

    entry: str
    table: int | None
    running: Fraction


@dataclass(frozen=True)
class StandingsRow:
    """One line of the standings: place (from 1), player number, name, each round played
    (None where the player had already left), the exact total, and whether it left."""

    place: int
    player: int
    name: str
    rounds: tuple[RoundCell | None, ...]
    total: Fraction
    left: bool


def standings_rows(standings: Standings) -> tuple[StandingsRow, ...]:
    """The standings best first (ties by the draw; those who left keep their place by points)."""
    gone = set(standings.left)
    rows = []
    for place, player in enumerate(standings.ranking(), 1):
        running = Fraction(0)
        cells: list[RoundCell | None] = []
        for record in standings.rounds:
            if player not in record.seating.players:
                cells.append(None)
                continue
            running += record.points(player)
            where = record.seating.place(player)
            cells.append(RoundCell(record.entry(player), None if where is None else where[0] + 1, running))
        rows.append(StandingsRow(place, player, standings.names[player], tuple(cells), standings.total(player),
                                 player in gone))
    return tuple(rows)


def _planned(standings: Standings, rounds: int | None) -> str:
    return f" of {rounds}" if rounds else f" of {len(standings.rounds)}"


def standings_text(standings: Standings, rounds: int | None = None) -> str:
    """The standings as a plain-text table: per round the result string, the table and the
    running total; then the total (shown rounded). ``rounds``: the rounds planned."""
    played = len(standings.rounds)
    title = (f"Standings after round {played}{_planned(standings, rounds)}" if played
             else "Standings before the first round (the draw)")
    rows = standings_rows(standings)
    header = ["#", "Player"] + [f"Round {r.number}" for r in standings.rounds] + ["Total"]
    body = []
    for row in rows:
        cells = [str(row.place), row.name + (" (left)" if row.left else "")]
        for cell in row.rounds:
            cells.append("" if cell is None else
                         f"{cell.entry:<8} {'t' + str(cell.table) if cell.table else '':<3} {shown(cell.running):>3}")
        cells.append(str(shown(row.total)))
        body.append(cells)
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
    right = {0, len(header) - 1}

    def line(cells: list[str]) -> str:
        return "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths,
                                                                                                   strict=True)))
    return "\n".join([title, *(line(cells).rstrip() for cells in [header, *body])])


def _number(value: Fraction) -> int | float:
    """The exact value as a JSON number: an int when whole, else the nearest float."""
    return value.numerator if value.denominator == 1 else float(value)


def _exact(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def rounds_json(standings: Standings) -> list[dict[str, Any]]:
    """Each round: its tables (players by seat S0..S3, the N-S result, the declaring line, the
    leaver's seat) and its byes, as the audit recomputes them."""
    out = []
    for record in standings.rounds:
        tables = [{"table": t + 1, "players": [standings.names[p] for p in seats],
                   "ns_result": None if result.leaver is not None else result.ns_result,
                   "declaring_line": None if result.declaring_line is None else str(result.declaring_line),
                   "leaver": None if result.leaver is None else standings.names[seats[result.leaver]]}
                  for t, (seats, result) in enumerate(zip(record.seating.tables, record.results, strict=True))]
        byes = [standings.names[p] for p in record.seating.byes]
        out.append({"round": record.number, "tables": tables, "byes": byes})
    return out


def standings_json(standings: Standings) -> dict[str, Any]:
    """``standings.json`` (what was shown): ``{"rounds": played, "standings": [{"name",
    "points" (the exact sum as a JSON number: 250/3 is 83.333...), "shown" (rounded, as
    printed: 83), "exact" ("250/3"), "results" (one string per round, null after leaving),
    "left"}], "tables": rounds_json}``; the audit prints the same."""
    return {"rounds": len(standings.rounds),
            "standings": [{"name": row.name, "points": _number(row.total),
                           "shown": shown(row.total), "exact": _exact(row.total),
                           "results": [None if cell is None else cell.entry for cell in row.rounds],
                           "left": row.left} for row in standings_rows(standings)],
            "tables": rounds_json(standings)}
