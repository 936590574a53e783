"""The standings on the terminal, in standings.json and on their page (cli/standings.py,
cli/web/standings_page.py), all from one Standings value."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from html.parser import HTMLParser

import trio

from p2p_sasaki.cli.standings import standings_json, standings_rows, standings_text
from p2p_sasaki.cli.web.standings_page import StandingsPage, standings_page
from p2p_sasaki.sasku.tournament import Line, Standings, TableResult
from tests.cli.test_web_server import http

N, E = Line.NS, Line.EW
NAMES = ("Mina", "Jun", "Ago", "Tiiu", "Peeter", "Kai", "Leo", "Eva", "<b>Uku</b>")


def nine_player_evening() -> Standings:
    """Nine players, two tables and a bye a round; Kai leaves in round 2."""
    standings = Standings(NAMES, draw=(0, 1, 2, 3, 4, 5, 6, 7, 8))
    standings = standings.with_round(standings.next_seating(), [TableResult(2, N), TableResult(-1, E)])
    seating = standings.next_seating()
    kai = seating.place(5)
    assert kai is not None
    results = [TableResult(1, N), TableResult(1, N)]
    results[kai[0]] = TableResult(0, None, leaver=kai[1])
    return standings.with_round(seating, results)


def test_the_terminal_table_shows_results_tables_and_running_totals():
    text = standings_text(nine_player_evening(), rounds=3)
    lines = text.splitlines()
    assert lines[0] == "Standings after round 2 of 3"
    assert lines[1].split() == ["#", "Player", "Round", "1", "Round", "2", "Total"]
    # Round 1: table 1 (Mina Jun Ago Tiiu) N:2 against table 2's N:-1; <b>Uku</b> has the bye.
    # Round 2: Mina, Ago, Kai, Eva at table 1, where Kai leaves: 60 for the others
    rows = {row.name: row for row in standings_rows(nine_player_evening())}
    assert [c.entry if c else None for c in rows["Mina"].rounds] == ["N:2:100", "N:-:60"]   # at Kai's table
    assert rows["Kai"].left and rows["Kai"].rounds[1] is not None and rows["Kai"].rounds[1].entry == "left:0"
    assert rows["<b>Uku</b>"].rounds[0].entry == "bye:50" and rows["<b>Uku</b>"].rounds[0].table is None
    assert rows["Mina"].rounds[1].running == Fraction(160)
    mina = next(line for line in lines if " Mina " in line)
    assert mina.split() == ["1", "Mina", "N:2:100", "t1", "100", "N:-:60", "t1", "160", "160"]
    kai = next(line for line in lines if "Kai" in line)
    assert "(left)" in kai and "left:0" in kai


def test_standings_json_keeps_the_exact_points_and_names_the_leaver():
    data = standings_json(nine_player_evening())
    assert data["rounds"] == 2
    assert [entry["name"] for entry in data["standings"]][:2] == ["Mina", "Ago"]
    kai = next(entry for entry in data["standings"] if entry["name"] == "Kai")
    assert kai == {"name": "Kai", "points": 100, "shown": 100, "exact": "100",
                   "results": ["E:1:100", "left:0"], "left": True}
    assert data["tables"][1]["tables"][0]["leaver"] == "Kai"
    for entry in data["standings"]:   # points: the exact value as a number; shown: as printed
        exact = Fraction(entry["exact"])
        assert entry["points"] == (int(exact) if exact.denominator == 1 else float(exact))
        assert entry["shown"] == int(exact + Fraction(1, 2))
    assert data["tables"][0]["byes"] == ["<b>Uku</b>"]
    json.dumps(data)  # plain JSON values only


class Markup(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def test_the_page_is_accessible_table_markup_with_names_as_text():
    html = standings_page(nine_player_evening(), "Club evening", rounds=3)
    parsed = Markup()
    parsed.feed(html)
    tags = [tag for tag, _ in parsed.tags]
    assert tags.count("table") == 3 and tags.count("caption") == 3       # standings, round 2, round 1
    assert all(attrs.get("scope") in ("col", "row") for tag, attrs in parsed.tags if tag == "th")
    assert "<b>Uku</b>" not in html and "&lt;b&gt;Uku&lt;/b&gt;" in html
    assert "<script" not in html and not re.search(r"""(src|href)\s*=""", html)
    text = "".join(parsed.text)
    assert "Club evening: standings after round 2 of 3" in text
    assert "N:2:100" in text and "left:0" in text and "Kai left: left out of the comparisons" in text
    assert text.index("Round 2") < text.index("Round 1Table")    # the latest round first


async def test_the_page_is_served_behind_a_token_and_shows_each_round():
    standings = Standings(NAMES[:4], draw=(3, 2, 1, 0))
    web = StandingsPage(standings, "Club evening", rounds=1)
    async with trio.open_nursery() as nursery:
        await nursery.start(web.serve)
        host = {"Host": f"127.0.0.1:{web.port}"}
        status, body = await http(web.port, f"/t/{web.token}/", host)
        assert status == 200 and b"before the first round" in body
        assert (await http(web.port, "/t/wrong/", host))[0] == 404
        web.show(standings.with_round(standings.next_seating(), [TableResult(-2, E)]))
        status, body = await http(web.port, f"/t/{web.token}/", host)
        assert b"after round 1 of 1" in body and b"N:-2:50" in body
        nursery.cancel_scope.cancel()


def test_points_in_json_are_the_exact_value_as_a_number():
    from p2p_sasaki.cli.standings import _number
    assert _number(Fraction(250, 3)) == 250 / 3 and isinstance(_number(Fraction(250, 3)), float)
    assert _number(Fraction(160)) == 160 and isinstance(_number(Fraction(160)), int)
