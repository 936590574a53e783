"""The table page's script in Debian's Chromium without a table: the page is loaded as it is
served, its WebSocket replaced by a stub, and tables from real presenter states are pushed to
it as the server would (``table_json``). Fast and exact: what the status line says, where
focus goes, which keys answer, the result dialog, the direction, the end of a closed table."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import trio

from p2p_sasaki.cards import CardSet
from p2p_sasaki.cli.presenter import Presenter
from p2p_sasaki.cli.web.page import page as page_html
from p2p_sasaki.cli.web.server import table_json
from p2p_sasaki.protocol.net.table import Turn
from p2p_sasaki.protocol.sasaki_game import SasakiOutcome
from p2p_sasaki.protocol.session import Dealt, HandEnded, HandStarted, Seated
from p2p_sasaki.sasaki.hand import Decline, Hand, Play
from tests.cli.web_player import no_horizontal_scroll
from tests.engine.sasaki.helpers import deal

pytestmark = pytest.mark.slow      # a browser: half a minute on a busy machine

KEYS = tuple(bytes([i]) * 32 for i in range(4))

# The page's WebSocket: never connects by itself; tests push tables and read what it sent.
STUB = """window.sent = [];
window.WebSocket = class { constructor() { window.socket = this; this.readyState = 1; }
  send(m) { window.sent.push(JSON.parse(m)); } close() {} };"""


@pytest.fixture
def tab(browser: Any) -> Iterator[Any]:
    """A page of the session's Chromium (tests/cli/conftest.py)."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.add_init_script(STUB)
    url = "http://127.0.0.1:9/t/token/"        # answered here: nothing is served on the network
    page.route(url, lambda route: route.fulfill(status=200, content_type="text/html", body=page_html()))
    page.goto(url)
    yield page
    page.close()


def push(tab: Any, presenter: Presenter) -> None:
    async def snapshot() -> dict[str, Any]:
        return table_json(presenter.table())
    table = trio.run(snapshot)
    tab.evaluate("t => window.socket.onmessage({data: JSON.stringify({type: 'table', table: t})})", table)


def focused(tab: Any) -> str:
    return tab.evaluate("(() => { const a = document.activeElement;"
                        " return a.dataset.card || a.getAttribute('aria-label') || a.id || a.tagName; })()")


def dealt_presenter() -> tuple[Presenter, Hand]:
    hand = Hand.deal_from(deal("3H 5C 5D 9C 9H 9S JD", "3C 3D 3S TH"), "3H")
    while hand.decision.is_window:
        hand.resolve([Decline(s) for s in hand.decision.seats])
    presenter = Presenter()
    presenter.event(Seated(KEYS, 1, ("Ana", "Mina", "Jun", "Bo")), None)
    presenter.event(HandStarted(1), None)
    presenter.event(Dealt(1, hand.view(1).cards), None)
    presenter.view = hand.view(1)
    return presenter, hand


def open_prompt(presenter: Presenter, hand: Hand, seat: int) -> None:
    async def opening() -> None:
        presenter.open(Turn(seat, hand.decision, hand.view(seat), tuple(hand.legal_actions(seat)),
                            trio.current_time(), 0.0, 30.0))
    trio.run(opening)


def test_the_status_side_and_direction_and_a_turn_takes_focus_to_your_cards(tab: Any) -> None:
    presenter, hand = dealt_presenter()
    push(tab, presenter)
    status = tab.get_by_role("status")
    assert status.inner_text() == "S0 Ana is to play."
    assert tab.inner_text("#side") == "Your side: red (partner unknown)."
    # Sasaki goes counter-clockwise: the next seat (S2) on your right, the one before you (S0) on your left.
    assert [tab.inner_text(f"#seat-{where} h2") for where in ("right", "top", "left")] == ["S2 Jun", "S3 Bo", "S0 Ana"]
    hand.apply(Play(0, CardSet.parse("JD")))                  # nothing single beats it: a triplet or a four does
    while hand.decision.is_window:
        hand.resolve([Decline(s) for s in hand.decision.seats])
    presenter.view = hand.view(1)
    open_prompt(presenter, hand, 1)
    push(tab, presenter)
    assert status.inner_text() == "Your turn: beat the top play, or pass."
    names = tab.eval_on_selector_all("#hand .card", "bs => bs.map(b => b.getAttribute('aria-label'))")
    assert focused(tab) in [name.split(",")[0] for name in names]   # your turn: focus is on your cards
    assert "3S, playable" in names and "5S, not playable" in names and "TH, not playable" in names
    tab.locator('#hand [data-card="TH"]').focus()
    push(tab, presenter)                                      # an update: focus stays on the same card
    assert focused(tab) == "TH"


def test_a_window_takes_focus_and_its_keys_answer(tab: Any) -> None:
    presenter, hand = dealt_presenter()
    hand.apply(Play(0, CardSet.parse("3H")))                  # a single 3: S1 holds 3C 3D 3S, a chata
    open_prompt(presenter, hand, 1)
    push(tab, presenter)
    assert tab.get_by_role("status").inner_text() == "Your chata chance: claim it or decline."
    buttons = tab.eval_on_selector_all("#claims button", "bs => bs.map(b => [b.getAttribute('aria-label'),"
                                       " b.getAttribute('aria-keyshortcuts'), b.textContent])")
    assert [b[:2] for b in buttons][-1] == ["Decline", "N"]
    assert all(b[2].endswith(b[1]) for b in buttons)           # each key is shown on its button
    assert focused(tab) == buttons[0][0]                      # the window's first button has focus
    tab.keyboard.press("n")
    assert tab.evaluate("window.sent") == [{"type": "answer", "prompt": presenter.prompt.id, "key": "decline"}]


def test_the_result_dialog_stays_until_closed_or_the_next_deal_and_fits_a_phone(tab: Any) -> None:
    presenter, _ = dealt_presenter()
    presenter.event(HandEnded(1, (2, -2, -2, 2), (2, -2, -2, 2),
                              SasakiOutcome((0, 3, 1, 2), (0, 3), 1, ("5C", "9H"))), None)
    tab.set_viewport_size({"width": 390, "height": 844})
    push(tab, presenter)
    dialog = tab.get_by_role("dialog", name="Hand 1 result")
    assert dialog.is_visible() and no_horizontal_scroll(tab)
    rows = tab.eval_on_selector_all("#result-rows tr", "rs => rs.map(r => [...r.cells].map(c => c.textContent))")
    assert [row[:4] for row in rows] == [["1st", "S0 Ana", "red", "+2"], ["2nd", "S3 Bo", "red", "+2"],
                                         ["3rd", "you (S1 Mina)", "black", "-2"], ["4th", "S2 Jun", "black", "-2"]]
    assert rows[3][4].endswith("Still held: 5C 9H")
    assert focused(tab) == "Close"
    push(tab, presenter)
    assert dialog.is_visible()                                # it stays through updates ...
    tab.keyboard.press("Enter")
    assert not dialog.is_visible()                            # ... until closed
    push(tab, presenter)
    assert not dialog.is_visible() and focused(tab) != "BODY"
    presenter.event(HandStarted(2), None)
    presenter.event(HandEnded(2, (2, -2, -2, 2), (4, -4, -4, 4), SasakiOutcome((0, 3, 1, 2), (0, 3), 1)), None)
    push(tab, presenter)
    assert tab.get_by_role("dialog", name="Hand 2 result").is_visible()
    presenter.event(HandStarted(3), None)
    presenter.event(Dealt(3, CardSet.parse("3C 4C")), None)   # the next deal's cards: the dialog goes
    push(tab, presenter)
    assert tab.get_by_role("dialog").count() == 0 or not tab.get_by_role("dialog").is_visible()


def test_close_table_says_it_declines_the_next_match_and_the_page_does_not_retry(tab: Any) -> None:
    presenter, _ = dealt_presenter()
    presenter.verdict = "Audit of your transcript: OK"
    push(tab, presenter)
    tab.get_by_role("button", name="Close table (no next match)", exact=True).click()
    assert tab.evaluate("window.sent") == [{"type": "leave"}]
    tab.evaluate("window.socket.onclose()")                    # the program ends
    tab.wait_for_timeout(1500)
    assert tab.get_by_role("status").inner_text() == "Table closed (no next match); you can close this tab."


def test_a_dead_program_after_the_match_is_said_once_not_retried(tab: Any) -> None:
    presenter, _ = dealt_presenter()
    presenter.verdict = "Audit of your transcript: OK"
    push(tab, presenter)
    tab.evaluate("window.socket.onclose()")
    tab.wait_for_timeout(1500)
    assert tab.get_by_role("status").inner_text().startswith("The table has ended")
    assert json.loads(json.dumps(tab.evaluate("window.sent"))) == []


def test_a_bot_in_an_empty_seat_is_drawn_face_up_open_to_all(tab):
    """The open bot seat (issue 18): its cards are public, so the page draws them face up and says so."""
    from types import SimpleNamespace

    presenter, _ = dealt_presenter()
    presenter.session = SimpleNamespace(open_views=lambda: {3: SimpleNamespace(cards=CardSet.parse("4C 7D KS"))})
    push(tab, presenter)
    box = "#seat-top"                        # S3 sits opposite you (S1)
    assert tab.inner_text(f"{box} h2") == "S3 Bo"
    assert "Bot's hand, open to all" in tab.inner_text(box)
    assert tab.get_attribute(f"{box} .backs.open", "aria-label") == "Bot's hand, open to all: 4C 7D KS"
    assert tab.locator(f"{box} .backs.open svg").count() == 3
    assert tab.locator("#seat-left .backs.open").count() == 0     # the others stay face down
