"""The tournament's standings page: one HTML document, drawn on the server from a
:class:`~p2p_sasaki.sasku.tournament.Standings` value (cli/standings.py gives the rows).

Nothing is fetched and nothing runs in it: every name is escaped text, the tables are
plain ``<table>`` markup with captions, column and row headers (``scope``), so a screen
reader reads "Round 2, Mina: N:-2:50, table 1, 110". The page reloads itself every few
seconds; :class:`StandingsPage` serves it on 127.0.0.1 behind a token like a table page
(cli/web/server.py) and :meth:`StandingsPage.show` replaces it after each round.
"""

from __future__ import annotations

from fractions import Fraction
from html import escape

from p2p_sasaki.cli.standings import standings_rows
from p2p_sasaki.cli.web.server import PageServer
from p2p_sasaki.sasku.tournament import Standings, shown

__all__ = ["standings_page", "StandingsPage", "RELOAD_SECONDS"]

RELOAD_SECONDS = 5

_CSS = """
:root { --felt:#1f5e3b; --ink:#f3efe2; --gold:#f2c14e; }
body { margin:0; font:16px/1.4 system-ui, sans-serif; color:var(--ink);
       background:linear-gradient(180deg, #256f46 0%, var(--felt) 40%, #174a2e 100%); min-height:100vh; }
header { padding:.6rem 1rem; background:rgba(0,0,0,.25); }
h1 { font-size:1.2rem; margin:0; }
main { max-width:1200px; margin:0 auto; padding:1rem; }
table { border-collapse:collapse; margin:0 0 1.5rem; background:rgba(0,0,0,.2); }
caption { text-align:left; font-weight:700; padding:.3rem 0; color:var(--gold); }
th, td { padding:.25rem .6rem; border-bottom:1px solid rgba(255,255,255,.15); text-align:left; }
td.n, th.n { text-align:right; font-variant-numeric:tabular-nums; }
.left { opacity:.7; font-style:italic; }
.res { font-family:ui-monospace, monospace; }
"""


def _cell(text: str, number: bool = False) -> str:
    return f'<td class="n">{escape(text)}</td>' if number else f"<td>{escape(text)}</td>"


def _standings_table(standings: Standings) -> str:
    rows = standings_rows(standings)
    head = ("<tr><th scope=\"col\" class=\"n\">Place</th><th scope=\"col\">Player</th>"
            + "".join(f"<th scope=\"col\">Round {r.number}</th>" for r in standings.rounds)
            + "<th scope=\"col\" class=\"n\">Total</th></tr>")
    body = []
    for row in rows:
        name = row.name + (" (left)" if row.left else "")
        klass = ' class="left"' if row.left else ""
        cells = [_cell(str(row.place), True), f'<th scope="row"{klass}>{escape(name)}</th>']
        for cell in row.rounds:
            if cell is None:
                cells.append("<td></td>")
                continue
            where = f", table {cell.table}" if cell.table else ""
            cells.append(f"<td><span class=\"res\">{escape(cell.entry)}</span>{escape(where)}"
                         f" <span aria-label=\"running total\">({shown(cell.running)})</span></td>")
        cells.append(_cell(str(shown(row.total)), True))
        body.append("<tr>" + "".join(cells) + "</tr>")
    return ("<table id=\"standings\"><caption>Standings (results as line:result:points, then the table and the "
            "running total)</caption><thead>" + head + "</thead><tbody>" + "".join(body) + "</tbody></table>")


def _round_table(standings: Standings, index: int) -> str:
    record = standings.rounds[index]
    names = standings.names
    body = []
    for t, (seats, result) in enumerate(zip(record.seating.tables, record.results, strict=True)):
        players = ", ".join(f"S{s} {names[p]}" for s, p in enumerate(seats))
        if result.leaver is not None:
            outcome = f"{names[seats[result.leaver]]} left: left out of the comparisons"
        else:
            outcome = f"N:{result.ns_result}" + ("" if result.declaring_line is not None else " (all passed)")
        entries = " ".join(record.entry(p) for p in seats)
        body.append(f"<tr><th scope=\"row\">Table {t + 1}</th>{_cell(players)}{_cell(outcome)}"
                    f"<td class=\"res\">{escape(entries)}</td></tr>")
    if record.seating.byes:
        byes = ", ".join(names[p] for p in record.seating.byes)
        body.append(f"<tr><th scope=\"row\">Bye</th>{_cell(byes)}{_cell('sits out')}"
                    f"<td class=\"res\">bye:{shown(Fraction(50))}</td></tr>")
    return (f"<table class=\"round\"><caption>Round {record.number}</caption><thead><tr>"
            "<th scope=\"col\">Table</th><th scope=\"col\">Players (seat S0..S3)</th><th scope=\"col\">Result</th>"
            "<th scope=\"col\">Points by seat</th></tr></thead><tbody>" + "".join(body) + "</tbody></table>")


def standings_page(standings: Standings, title: str = "Sasku tournament", rounds: int | None = None) -> str:
    """The whole page: the standings, then each round's tables (latest first)."""
    played = len(standings.rounds)
    status = (f"after round {played}" + (f" of {rounds}" if rounds else "")) if played else "before the first round"
    sections = [_standings_table(standings)] + [_round_table(standings, i) for i in reversed(range(played))]
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<meta http-equiv=\"refresh\" content=\"{RELOAD_SECONDS}\">"
            f"<title>{escape(title)}: standings</title><style>{_CSS}</style></head><body>"
            f"<header><h1>{escape(title)}: standings {escape(status)}</h1></header>"
            "<main>" + "".join(sections) + "</main></body></html>")


class StandingsPage(PageServer):
    """The standings page, served like a table page; :meth:`show` after every round."""

    def __init__(self, standings: Standings, title: str = "Sasku tournament", rounds: int | None = None,
                 host: str = "127.0.0.1") -> None:
        super().__init__(standings_page(standings, title, rounds), host)
        self.title = title
        self.rounds = rounds

    def show(self, standings: Standings) -> None:
        self.html = standings_page(standings, self.title, self.rounds)
