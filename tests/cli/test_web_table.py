"""The table page in a real browser (Debian's Chromium driven by Playwright) against real peers.

``sasaki demo --human --web``: the creator's peer serves the person's page on 127.0.0.1 and
three bot peers join over loopback. On a fixed deal that gives the person a chata chance,
the test plays the whole hand by clicking (and once by keyboard), takes the chata, is
refused an illegal selection with a visible reason, reloads mid-hand, and ends at the
audit verdict and the transcript download. The screenshots of each phase go to docs/.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from tests.cli.web_player import CHROMIUM, DOCS, Seen, button_names, no_horizontal_scroll, play_hand, \
    start_demo

pytestmark = pytest.mark.slow

CHATA_SEED = 1      # with the test identities: a run window, then the person's chata chance


def test_a_person_plays_a_whole_hand_in_the_browser(tmp_path: Path) -> None:
    assert Path(CHROMIUM).exists(), "install Debian's chromium (apt-get install -y chromium)"
    demo = start_demo(tmp_path / "demo", CHATA_SEED)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM)
            page = browser.new_page(viewport={"width": 1280, "height": 900}, accept_downloads=True)
            page.goto(demo.url)
            assert page.title() == "Sasaki table"
            # The deal's progress (every peer shuffles, with proofs), then the cards.
            page.wait_for_selector("#progress-box:not([hidden]), #hand .card", timeout=120000)
            page.screenshot(path=str(DOCS / "web-deal.png"))
            page.wait_for_selector("#hand .card", timeout=120000)
            seen = play_hand(page, Seen(), shots=True)

            # The end: scores, the verdict of the audit, the transcript.
            page.wait_for_function("() => document.getElementById('verdict').textContent !== ''")
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
            assert {"Download transcript", "Close table", "Help"} <= names and "" not in names
            page.get_by_role("button", name="Close table", exact=True).click()
            browser.close()
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
    assert re.search(r"you \(S\d\) chata! \w\w \w\w out of turn", text), text[-3000:]
    assert "Audit: all four transcripts verify and agree" in text
