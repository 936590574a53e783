"""The table page in a real browser (Debian's Chromium driven by Playwright) against real peers.

``sasaki demo --human --web``: the creator's peer serves the person's page on 127.0.0.1 and
three bot peers join over loopback. On a fixed deal that gives the person a chata chance,
the test plays the whole hand by clicking (and once by keyboard), takes the chata, is
refused an illegal selection with a visible reason, reloads mid-hand, and ends at the
audit verdict and the transcript download, then clicks "Next match": the bots agree, a second
match is played at a fresh table, and "Close table" at its end declines a third. The
screenshots of each phase go to docs/.
"""

from __future__ import annotations

import re
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.cli.web_player import (
    DOCS,
    WATCH_FOCUS,
    Seen,
    button_names,
    focus_after_updates,
    hand_cards,
    no_horizontal_scroll,
    play_hand,
    start_demo,
)

pytestmark = pytest.mark.slow

CHATA_SEED = 1      # with the test identities: a run window, then the person's chata chance


def test_a_person_plays_a_whole_hand_in_the_browser(tmp_path: Path, browser: Any) -> None:
    demo = start_demo(tmp_path / "demo", CHATA_SEED)
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 800}, accept_downloads=True)
        page.goto(demo.url)
        assert page.title() == "Sasaki table"
        # The deal's progress (every peer shuffles, with proofs), then the cards.
        page.wait_for_selector("#progress-box:not([hidden]), #hand .card", timeout=120000)
        page.screenshot(path=str(DOCS / "web-deal.png"))
        page.wait_for_selector("#hand .card", timeout=120000)
        seen = play_hand(page, Seen(), shots=True)

        # The end: scores, the verdict of the audit, the transcript.
        page.wait_for_function("() => document.getElementById('verdict').textContent !== ''")
        page.wait_for_selector("#next:not([hidden])", timeout=60000)   # the next-match question
        verdict = page.inner_text("#verdict")
        assert verdict.startswith("Audit of your transcript: OK: 1 hand(s) verified"), verdict
        assert "The match is over" in page.inner_text("#log")
        assert page.locator("#scores tbody tr").count() == 1
        assert no_horizontal_scroll(page)
        page.screenshot(path=str(DOCS / "web-end.png"), full_page=True)
        with page.expect_download() as download:
            page.get_by_role("button", name="Download transcript", exact=True).click()
        saved = tmp_path / "download.sasaki"
        download.value.save_as(saved)
        assert saved.read_bytes() == (tmp_path / "demo" / "peer0.sasaki").read_bytes()
        names = set(button_names(page))
        assert {"Next match", "Download transcript", "Close table (no next match)", "Help"} <= names
        assert "" not in names
        assert page.inner_text("#next-question").startswith("Next match with the same four?")
        # The next match with the same four: the bots agree by themselves; a fresh table.
        page.get_by_role("button", name="Next match", exact=True).click()
        page.wait_for_function("() => document.getElementById('meta').textContent.startsWith('Match 2')",
                               timeout=120000)
        assert page.is_hidden("#end")
        page.wait_for_selector("#hand .card", timeout=120000)
        second = play_hand(page, Seen())
        page.wait_for_function("() => document.getElementById('verdict').textContent !== ''")
        assert page.inner_text("#verdict").startswith("Audit of your transcript: OK: 1 hand(s) verified")
        assert second.turns >= 1
        page.get_by_role("button", name="Close table (no next match)", exact=True).click()   # no third match
        page.context.close()
        assert demo.finish() == 0, demo.text()[-3000:]
    finally:
        demo.kill()

    assert seen.chata, seen.windows                        # the chata window, taken by a click
    assert "chata" in seen.windows and seen.turns >= 3
    assert {"Chata", "Decline", "Play", "Pass", "Clear"} <= seen.names
    assert re.fullmatch(r"Not played: \w\w \w\w is not a combination \(.*\)\.", seen.illegal_reason), \
        seen.illegal_reason
    assert seen.reloaded_hand is not None and seen.reloaded_hand[0] == seen.reloaded_hand[1]
    assert seen.keyboard and seen.checks == ["faces", "390 ok"]
    text = demo.text()
    assert re.search(r"You chata! \w\w \w\w out of turn", text), text[-3000:]
    assert "No next match: you declined." in text
    match_1, match_2 = text.split("Match 2:")
    assert "Audit: all four transcripts verify and agree" in match_1
    assert "Audit: all four transcripts verify and agree" in match_2


def test_a_player_always_knows_whose_turn_it_is_their_side_and_why_each_hand_scored(tmp_path: Path,
                                                                                     browser: Any) -> None:
    """Issue 20 in a real browser, two hands: at each of your turns the status line says "Your turn"
    and names no other seat; "Your side" once dealt; each hand's result dialog with four places and
    scores (closed by its key); focus never falls to the page and a window's buttons take it; the
    next seat in the order of play sits on your right (Sasaki goes counter-clockwise)."""
    demo = start_demo(tmp_path / "demo", CHATA_SEED, hands=2)
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.set_default_timeout(120000)
        page.goto(demo.url)
        page.evaluate(WATCH_FOCUS)
        page.wait_for_selector("#hand .card")
        meta = page.inner_text("#meta")
        you = int(re.search(r"you are S(\d)", meta).group(1))
        assert page.inner_text("#seat-right h2").startswith(f"S{(you + 1) % 4} ")
        assert page.inner_text("#seat-top h2").startswith(f"S{(you + 2) % 4} ")
        assert page.inner_text("#seat-left h2").startswith(f"S{(you + 3) % 4} ")
        seen = play_hand(page, Seen())
        focus = seen.focus + focus_after_updates(page)
        status = page.get_by_role("status").inner_text()
        # Finding 7: the button says it also declines the next match; once the program has
        # ended, the page says so instead of retrying its connection for ever.
        page.get_by_role("button", name="Close table (no next match)", exact=True).click()
        assert demo.finish() == 0, demo.text()[-3000:]
        page.wait_for_timeout(1500)
        closed = page.get_by_role("status").inner_text()
        page.context.close()
    finally:
        demo.kill()

    assert seen.turns >= 4 and seen.statuses, seen
    for line in seen.statuses:
        assert line.startswith("Your turn") and not re.search(r"\bS\d|Bot", line), line
    assert seen.sides and all(re.fullmatch(r"Your side: (red|black).*\.", side) for side in seen.sides), seen.sides
    assert len(seen.results) == 2, seen.results
    for rows in seen.results:
        assert [row[0] for row in rows] == ["1st", "2nd", "3rd", "4th"], rows
        assert all(re.fullmatch(r"[+-]?\d+", row[3]) and row[2] in ("red", "black") and row[4] for row in rows), rows
    assert all("Still held: " in rows[3][4] for rows in seen.results), seen.results   # the last one's cards
    assert len(focus) > 20 and all(f.startswith("BUTTON") for f in focus), [f for f in focus
                                                                            if not f.startswith("BUTTON")]
    claims = ("Run", "Stop", "Chata", "Kkojda", "Show", "Decline")
    assert seen.windows and all(f in claims for f in seen.window_focus), seen.window_focus
    assert status.startswith("The match is over"), status
    assert closed == "Table closed (no next match); you can close this tab.", closed
    assert "No next match: you declined." in demo.text()


# Two answers to one decision from one tab, sent back to back: the first is taken, the
# second refused. The promise fails by itself (no reply within 60 s, or the socket closes),
# so the test cannot wait forever for a reply that never comes.
DOUBLE_ANSWER = """prompt => new Promise((resolve, reject) => {
    const ws = new WebSocket(location.href.replace('http', 'ws') + 'ws');
    let answered = false;
    setTimeout(() => reject(new Error('no reply to the second answer within 60 s')), 60000);
    ws.onclose = () => reject(new Error('the page closed the WebSocket'));
    ws.onmessage = ev => { const m = JSON.parse(ev.data);
        if (m.type === 'refused') { ws.onclose = null; ws.close(); resolve(m.reason); }
        if (m.type === 'table' && !answered && m.table.prompt) { answered = true;
            const p = m.table.prompt;
            const legal = p.kind !== 'turn' ? {key: 'decline'} : p.can_pass ? {key: 'pass'}
                : {cards: p.groups[0].choices[0].variants[0].join(' ')};
            const answer = JSON.stringify(Object.assign({type: 'answer', prompt: prompt}, legal));
            ws.send(answer); ws.send(answer); } };
})"""


def test_two_tabs_first_answer_wins_and_the_page_refuses_a_wrong_token_host_or_origin(tmp_path: Path,
                                                                                      browser: Any) -> None:
    demo = start_demo(tmp_path / "demo", CHATA_SEED)
    # Whatever happens, the demo and its peers end: a stuck table fails the test loudly
    # (every page wait below has a timeout) instead of hanging the run.
    watchdog = threading.Timer(300, demo.kill)
    watchdog.start()
    try:
        base = demo.url.rstrip("/")
        port = int(re.search(r":(\d+)/", demo.url).group(1))

        def status(url: str, headers: dict[str, str] | None = None) -> int:
            request = urllib.request.Request(url, headers=headers or {})
            try:
                with urllib.request.urlopen(request, timeout=10) as response:
                    return int(response.status)
            except urllib.error.HTTPError as error:
                return int(error.code)

        assert status(demo.url) == 200
        assert status(base.rsplit("/", 1)[0] + "/not-the-token/") == 404
        assert status(demo.url, {"Host": f"localhost:{port}"}) == 421          # DNS rebinding
        assert status(demo.url, {"Origin": "http://evil.example"}) == 403
        assert status(base + "/transcript") == 404                              # not before the end
        # The WebSocket: from another origin, or with none, it is refused before the upgrade.
        ws_headers = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
                      "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
        assert status(base + "/ws", ws_headers | {"Origin": "http://evil.example"}) == 403
        assert status(base + "/ws", ws_headers) == 403
        page = browser.new_page()
        page.set_default_timeout(120000)
        page.goto(demo.url)
        page.wait_for_selector("#hand .card")
        # A second tab shows the same table.
        other = browser.new_page()
        other.set_default_timeout(60000)
        other.goto(demo.url)
        other.wait_for_selector("#hand .card")
        assert hand_cards(other) == hand_cards(page)
        page.wait_for_function("() => document.getElementById('you').dataset.prompt")
        other.wait_for_function("() => document.getElementById('you').dataset.prompt")
        prompt = page.get_attribute("#you", "data-prompt") or ""
        assert other.get_attribute("#you", "data-prompt") == prompt
        refused = other.evaluate(DOUBLE_ANSWER, int(prompt))
        assert refused == "that decision is over (answered already, or its time is up)", refused
        # Both tabs show the decision taken: the prompt is gone from each.
        for tab in (page, other):
            tab.wait_for_function("before => document.getElementById('you').dataset.prompt !== before",
                                  arg=prompt)
        # A reload shows the same table.
        before = hand_cards(other)
        other.reload()
        other.wait_for_selector("#hand .card")
        assert hand_cards(other) == before
        for tab in (page, other):
            tab.context.close()
    except BaseException:
        print("The demo's output:\n" + demo.text()[-6000:])    # shown by pytest with the failure
        raise
    finally:
        watchdog.cancel()
        demo.kill()
    assert "Traceback" not in demo.text(), demo.text()[-3000:]
