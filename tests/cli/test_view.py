"""``sasaki view``: a transcript as a step-through replay (cli/view.py, cli/web/replay_page.py).

The steps are checked against the game record ``sasaki export`` writes of the same
transcript: every action of the hand appears, in order; a damaged copy says where it
stops. Then the page, in Debian's Chromium: stepped through to the end with Next and the
arrow key, Next disabled there, the verdict in the status line.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import threading

import pytest
from playwright.sync_api import sync_playwright

from p2p_sasaki.cli.view import replay_steps
from p2p_sasaki.protocol.table_audit import export_records
from tests.cli.peers import ROOT, env
from tests.cli.web_player import CHROMIUM, DOCS

pytestmark = pytest.mark.slow   # xdist group "processes-2" (tests/conftest.py), with the demo's other users

LINE = re.compile(r"S(\d) (\w+)(?: (.*))?")
VERBS = {"play": ("leads", "plays"), "pass": ("passes",), "chata": ("chata!",), "kkojda": ("kkojda!",),
         "run": ("runs,",), "stop": ("calls Stop",)}


def record_actions(data: bytes) -> list[tuple[int, str, str]]:
    """(seat, verb, cards) of every action line of hand 1's game record."""
    record = export_records(data)[0]
    return [(int(m[1]), m[2], m[3] or "") for line in record.splitlines() if (m := LINE.fullmatch(line))]


def in_order(texts: list[str], actions: list[tuple[int, str, str]], labels: tuple[str, ...]) -> bool:
    """Each action is told by a later step than the one before (cards and verb in words)."""
    at = 0
    for seat, verb, cards in actions:
        words = [f"{labels[seat]} {v}" + (f" {cards}" if cards and verb != "run" else "") for v in VERBS[verb]]
        while at < len(texts) and not any(w in texts[at] for w in words):
            at += 1
        if at == len(texts):
            return False
        at += 1           # one action per step
    return True


def test_the_replay_tells_every_action_of_the_record_in_order_and_a_damaged_file_says_where_it_stops(
        full_proof_demo, tmp_path):
    directory, _ = full_proof_demo
    data = (directory / "peer0.sasaki").read_bytes()
    view = replay_steps(data)
    assert view.ok and view.steps[-1].verdict and view.steps[-1].text.startswith("Audit: OK: 1 hand(s) verified")
    first = view.steps[0]
    assert first.text.startswith("Hand 1 is dealt") and [len(c) for c in first.cards] == [12, 12, 12, 12]
    texts = [step.text for step in view.steps]
    actions = record_actions(data)
    assert in_order(texts, actions, view.labels), texts
    played = [step for step in view.steps if not step.verdict]
    assert sum(len(c) for c in played[-1].cards) < 48 and len(played[-1].finish) == 4
    assert "Scores: " in played[-1].text

    cut = data[: len(data) * 2 // 3]                  # a copy cut two thirds of the way in
    damaged = replay_steps(cut)
    assert not damaged.ok
    assert re.search(r"The verified part ends before record \d+ \(hand 1\)", damaged.steps[-1].text), \
        damaged.steps[-1].text


def test_the_demos_narrating_bot_is_not_you_and_nobody_was_asked_for_a_next_match(full_proof_demo):
    """Issue 20, finding 12: the demo's narrator (a bot) was "you (S3 Bot 1)", and it said "No
    next match: you declined" though nobody had been asked."""
    _, output = full_proof_demo
    assert "you (" not in output and "No next match: you declined." not in output
    assert "No next match: this peer plays one match (a bot, or --next-match no)." in output
    assert output.count("4 of 4 shuffle proofs checked; cards dealt") == 1, output


def test_sasaki_view_steps_through_every_action_of_a_hand_in_chromium(full_proof_demo):
    directory, _ = full_proof_demo
    path = directory / "peer0.sasaki"
    process = subprocess.Popen([sys.executable, "-P", "-m", "p2p_sasaki", "view", str(path), "--no-browser"],
                               cwd=ROOT, env=env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))   # Ctrl-C as typed
    lines: list[str] = []
    found = threading.Event()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line)
            if "The replay in the browser: " in line:
                found.set()
        found.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert found.wait(60), "".join(lines)
        url = re.search(r"The replay in the browser: (\S+)", "".join(lines)).group(1)
        assert url.startswith("http://127.0.0.1:")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM)
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(url)
            status = page.get_by_role("status")
            next_button = page.get_by_role("button", name="Next", exact=True)
            previous = page.get_by_role("button", name="Previous", exact=True)
            assert previous.is_disabled() and status.inner_text().startswith("Hand 1 is dealt")
            # Every seat's cards, face up.
            assert [page.locator(f"#seat-{s} .cards [role=img]").count() for s in range(4)] == [12, 12, 12, 12]
            texts = [status.inner_text()]
            step, shot = 0, False
            while not next_button.is_disabled():
                if step % 2:
                    page.keyboard.press("ArrowRight")
                else:
                    next_button.click()
                step += 1
                texts.append(status.inner_text())
                if "chata!" in texts[-1] and not shot:      # docs/web-view.png: a step of the replay
                    page.screenshot(path=str(DOCS / "web-view.png"))
                    shot = True
            counter = page.inner_text("#counter")
            previous.click()
            back = status.inner_text()
            browser.close()
        process.send_signal(signal.SIGINT)                  # Ctrl-C ends the replay, quietly
        assert process.wait(30) == 0
        reader.join(5)
    finally:
        process.kill()
        process.wait()
    view = replay_steps(path.read_bytes())
    assert texts == [s.text for s in view.steps]
    assert in_order(texts, record_actions(path.read_bytes()), view.labels)
    assert texts[-1].startswith("Audit: OK: 1 hand(s) verified")
    assert counter == f"Step {len(texts)} of {len(texts)}" and back == texts[-2]
    assert "".join(lines).endswith("Ctrl-C ends it.\n\nThe replay page is closed.\n"), "".join(lines)
