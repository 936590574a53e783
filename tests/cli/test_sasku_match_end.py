"""The end of a Sasku match for a person (cli/presenter.py with cli/games/sasku.py, cli/common.py
``report``, cli/web/sasku_page.py), in process: the status line and the closing line speak of
the pairs (partners share one score), and the Sasku page asks for a next match as Sasaki's
page does: the question with its countdown, ``Next match``, the first answer counts, and
``Close table`` declines it."""

from __future__ import annotations

import queue
import re
import threading
from types import SimpleNamespace

import pytest
import trio
import trio.testing

from p2p_sasaki.cli.common import report
from p2p_sasaki.cli.presenter import Phase, Presenter
from p2p_sasaki.cli.web.server import WebTable, table_json
from p2p_sasaki.protocol.events import MatchEnded, Seated
from p2p_sasaki.protocol.net.table import TableResult
from p2p_sasaki.protocol.sasku_game import SaskuGame
from p2p_sasaki.sasku.options import SaskuOptions
from tests.cli.test_web_server import Socket, http

KEYS = tuple(bytes([i]) * 32 for i in range(4))
GAME = SaskuGame(SaskuOptions(target=12))
SESSION = SimpleNamespace(config=SimpleNamespace(game=GAME, hands=60), view=None, waiting_for=())


def seated(you: int, person: bool = True) -> Presenter:
    presenter = Presenter(timeout=100, person=person)
    presenter.event(Seated(KEYS, you, ("Ana", "Mina", "Leo", "Jun")), SESSION)
    return presenter


def test_the_status_line_at_the_match_end_names_the_pairs_and_says_whether_yours_won():
    winner, loser, watcher = seated(0), seated(1), seated(3, person=False)
    for presenter in (winner, loser, watcher):
        presenter.event(MatchEnded((12, 7, 12, 7)), SESSION)
        assert presenter.phase is Phase.MATCH_OVER
    assert winner.status() == "The match is over: S0 Ana+S2 Leo win 12 to 7. Your pair won."
    assert loser.status() == "The match is over: S0 Ana+S2 Leo win 12 to 7. Your pair lost."
    assert watcher.status() == "The match is over: S0 Ana+S2 Leo win 12 to 7."
    snapshot = table_json(winner.table())
    assert snapshot["result"] == snapshot["status"] == winner.status()
    assert "+12" not in winner.status()     # game points, not Sasaki's signed per-seat scores
    draw = seated(2)
    draw.event(MatchEnded((6, 6, 6, 6)), SESSION)
    assert draw.status() == "The match is over: a draw, 6 each."


def test_the_closing_line_gives_each_pairs_game_points(capsys):
    result = TableResult(finished=True, totals=(12, 7, 12, 7), transcript=None,
                         config=SimpleNamespace(game=GAME))
    assert report(result, quiet=False) == 0
    assert capsys.readouterr().out.splitlines()[0] == "Match over. Totals: S0+S2 12, S1+S3 7 (game points)."
    report(result, quiet=False, going_on=True)
    assert capsys.readouterr().out.startswith(
        "Totals so far: S0+S2 12, S1+S3 7 (game points); the match goes on at a new table.")


async def test_the_sasku_page_asks_for_a_next_match_and_close_table_declines_it():
    presenter = seated(0)
    presenter.event(MatchEnded((12, 7, 12, 7)), SESSION)
    web = WebTable(presenter)
    async with trio.open_nursery() as nursery:
        await nursery.start(web.serve)
        status, body = await http(web.port, f"/t/{web.token}/", {"Host": f"127.0.0.1:{web.port}"})
        html = body.decode()
        assert status == 200 and "<title>Sasku table</title>" in html
        for button in ("Next match", "Download transcript", "Close table"):
            assert re.search(rf'<button id="\w+" type="button"[^>]*>{button}</button>', html), button
        assert 'send({type: "next-match", offer: table.next_match.id, accept: true})' in html
        path = f"/t/{web.token}/ws"
        first, second = await Socket.open(web.port, path), await Socket.open(web.port, path)
        await first.receive()
        await second.receive()
        answers: list[bool] = []

        async def ask() -> None:
            answers.append(await presenter.wait_next(presenter.offer_next(100)))

        nursery.start_soon(ask)
        message = await first.receive()
        while message["table"]["next_match"] is None:
            message = await first.receive()
        offer = message["table"]["next_match"]
        assert offer["question"] == "Next match with the same four?" and offer["answer"] is None
        assert message["table"]["game"]["race"] == "S0 Ana+S2 Leo 12, S1 Mina+S3 Jun 7 (to 12)"
        await first.send({"type": "next-match", "offer": offer["id"], "accept": True})
        await trio.testing.wait_all_tasks_blocked()
        await second.send({"type": "next-match", "offer": offer["id"], "accept": False})
        message = await second.receive()
        while message["type"] != "refused":
            message = await second.receive()
        assert message["reason"] == "that question is over (answered already, or its time is up)"
        assert answers == [True]
        presenter.verdict = "Audit of your transcript: OK"
        nursery.start_soon(ask)
        await trio.testing.wait_all_tasks_blocked()
        await first.send({"type": "leave"})       # "Close table"
        await trio.testing.wait_all_tasks_blocked()
        assert answers == [True, False] and web.left.is_set() and presenter.closed
        nursery.cancel_scope.cancel()


@pytest.mark.slow
def test_in_chromium_the_sasku_page_shows_the_question_and_next_match_answers_it(browser):
    """The page's script in Debian's Chromium (the session's, tests/cli/conftest.py): the verdict,
    the question with its countdown, the ``Next match`` button (its accessible name), then
    "Waiting for the others"."""
    presenter = seated(0)
    presenter.event(MatchEnded((12, 7, 12, 7)), SESSION)
    presenter.verdict = "Audit of your transcript: OK: 2 hand(s) verified"
    urls: queue.Queue[str] = queue.Queue()
    answers: list[bool] = []
    done = threading.Event()

    def serve() -> None:
        async def main() -> None:
            web = WebTable(presenter)
            async with trio.open_nursery() as nursery:
                urls.put(await nursery.start(web.serve))
                answers.append(await presenter.wait_next(presenter.offer_next(100)))
                while not done.is_set():
                    await trio.sleep(0.05)
                nursery.cancel_scope.cancel()
        trio.run(main)

    thread = threading.Thread(target=serve)
    thread.start()
    try:
        url = urls.get(timeout=30)
        page = browser.new_page()
        page.goto(url)
        page.get_by_text("Next match with the same four?").wait_for()
        assert page.inner_text("#verdict") == presenter.verdict
        assert re.search(r"\(\d+ s left\)", page.inner_text("#next-question"))
        page.get_by_role("button", name="Next match", exact=True).click()
        page.get_by_text("Waiting for the others to answer ...").wait_for()
        assert page.get_by_role("button", name="Next match", exact=True).is_hidden()
        assert page.get_by_role("button", name="Close table", exact=True).is_visible()
        assert page.inner_text("#status") == "The match is over: S0 Ana+S2 Leo win 12 to 7. Your pair won."
        page.context.close()
    finally:
        done.set()
        thread.join(timeout=30)
    assert answers == [True]
