"""A person plays a whole Sasku match on the page by clicking (Playwright, Debian's
Chromium): ``sasaki demo --game sasku --human --web --fast --target 1`` on a fixed deal
(``--deal-seed``, fixed identities: the same match every run). Every decision by
its accessible button: ``Pass`` (else the lowest ``Bid N``), ``Take``, ``Trump hearts``, a
card button like ``QH`` (only the legal ones enabled) then ``Play`` or ``Return``; ``Close
table`` at the end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.cli.web_player import Demo, fixed_identities, launch

pytestmark = pytest.mark.slow


# With the test identities and the bots' seed 5, deal seed 1 is one deal in which the person
# passes, follows suit (cards shown disabled) and plays every trick: a match to 1 game point
# asks every decision the test asserts, the same every run.
DEAL_SEED = 1


def start(directory: Path) -> Demo:
    fixed_identities(directory)
    return launch(["--game", "sasku", "--human", "--web", "--no-browser", "--fast", "--target", "1",
                   "--seed", "5", "--deal-seed", str(DEAL_SEED), "--timeout", "120",
                   "--name", "Mina", "--web-linger", "120", "--dir", str(directory)])


def test_a_person_plays_a_sasku_match_by_clicking(tmp_path: Path, browser: Any) -> None:
    demo = start(tmp_path / "demo")
    clicked: list[str] = []
    disabled_seen = 0   # card buttons shown disabled at a card decision (not choosable now)
    try:
        page = browser.new_page()
        page.goto(demo.url)
        assert page.title() == "Sasku table"
        while True:
            page.wait_for_selector("#choices button, #hand button:enabled, #leave:not([hidden])",
                                   timeout=120000)
            if page.is_visible("#leave"):
                break
            names = [b.inner_text() for b in page.query_selector_all("#choices button")]
            if names:
                pick = next((n for n in ("Pass", "Take", "Trump hearts") if n in names), names[0])
                page.get_by_role("button", name=pick, exact=True).click()
                clicked.append(pick)
            else:
                card = page.query_selector("#hand button:enabled")
                assert card is not None
                disabled_seen += len(page.query_selector_all("#hand button:disabled"))
                name = card.inner_text()
                card.click()
                act = page.wait_for_selector("#act button", timeout=10000)
                assert act is not None
                verb = act.inner_text()
                assert verb in ("Play", "Return")
                page.get_by_role("button", name=verb, exact=True).click()
                clicked.append(f"{verb} {name}")
            page.wait_for_timeout(50)   # the answer's new snapshot (no timing asserted)
        page.get_by_role("button", name="Close table", exact=True).click()
        page.context.close()
        code = demo.finish()
    finally:
        if demo.process.poll() is None:
            demo.process.kill()
    text = "".join(demo.output)
    assert code == 0, text[-3000:]
    assert any(c.startswith("Play ") for c in clicked) and ("Pass" in clicked or any(c.startswith("Bid ")
                                                                                     for c in clicked))
    assert disabled_seen > 0   # following suit: some cards of the hand were not choosable
    assert "Audit: all four transcripts verify and agree" in text
