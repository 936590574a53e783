"""A person at the table page, played by Playwright (Debian's Chromium, no browser download).

``start_demo`` runs ``sasaki demo --human --web --no-browser`` with fixed identities and a
fixed deal (``--deal-seed``), so the hand is the same every run; ``play_hand`` clicks
through it like a person: the lowest legal play at each turn (by its button, or by the
keyboard), Chata and Kkojda taken, Run and Stop declined.
"""

from __future__ import annotations

import hashlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.cli.peers import ROOT, env

CHROMIUM = "/usr/bin/chromium"
# The screenshots of each phase: docs/ shows them. They are written there only when asked
# (SASAKI_SCREENSHOTS=docs pytest -n 0 tests/cli/test_web_table.py tests/cli/test_view.py), elsewhere
# to a temporary folder. The page at 1280x800, the phone's at 390x844.
SHOTS = os.environ.get("SASAKI_SCREENSHOTS")
DOCS = (ROOT / SHOTS) if SHOTS else Path(tempfile.mkdtemp(prefix="sasaki-shots-"))
SUITS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}


@dataclass
class Demo:
    process: subprocess.Popen[str]
    url: str
    output: list[str]
    reader: threading.Thread

    def text(self) -> str:
        return "".join(self.output)

    def finish(self, timeout: float = 120) -> int:
        status = self.process.wait(timeout=timeout)
        self.reader.join(timeout=5)
        return status

    def kill(self) -> None:
        """End the demo and its four peers (their own process group)."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()


def fixed_identities(directory: Path) -> None:
    """The demo's four peers with fixed identities in ``directory``: with ``--deal-seed``, the
    same seats and cards every run."""
    for peer in range(4):
        key = directory / f"peer{peer}" / "identity.key"
        key.parent.mkdir(parents=True, exist_ok=True)
        key.write_bytes(hashlib.sha256(b"sasaki web test identity %d" % peer).digest())
        key.chmod(0o600)


def start_demo(directory: Path, deal_seed: int, timeout: float = 120, hands: int = 1) -> Demo:
    fixed_identities(directory)
    return launch(["--human", "--web", "--no-browser", "--hands", str(hands), "--fast", "--seed", "5",
                   "--deal-seed", str(deal_seed), "--timeout", "120", "--name", "Mina", "--web-linger", "120",
                   "--dir", str(directory)], timeout)


def launch(demo_args: list[str], timeout: float = 120) -> Demo:
    """Start ``sasaki demo *demo_args`` (a person on the page) and wait for its page address."""
    process = subprocess.Popen(
        [sys.executable, "-P", "-m", "p2p_sasaki", "demo", *demo_args],
        cwd=ROOT, env=env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True)
    output: list[str] = []
    url: list[str] = []
    found = threading.Event()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            output.append(line)
            match = re.search(r"Your table in the browser: (\S+)", line)
            if match:
                url.append(match.group(1))
                found.set()
        found.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    found.wait(timeout)
    if not url:
        process.kill()
        raise AssertionError("no page address printed:\n" + "".join(output))
    return Demo(process, url[0], output, reader)


@dataclass
class Seen:
    """What the person met on the way through the hand."""

    turns: int = 0
    windows: list[str] = field(default_factory=list)
    chata: bool = False
    illegal_reason: str = ""
    reloaded_hand: tuple[list[str], list[str]] | None = None
    keyboard: bool = False
    names: set[str] = field(default_factory=set)
    checks: list[str] = field(default_factory=list)
    statuses: list[str] = field(default_factory=list)     # the status line at each of your turns
    sides: list[str] = field(default_factory=list)        # "Your side: ..." at each decision
    window_focus: list[str] = field(default_factory=list)  # what had focus as each window opened
    results: list[list[list[str]]] = field(default_factory=list)   # each hand-result dialog's rows
    focus: list[str] = field(default_factory=list)         # what had focus after each update (WATCH_FOCUS)


# Records what has focus after every update the page draws (it fires "table-drawn").
WATCH_FOCUS = """() => { if (window.focusAfter) return; window.focusAfter = [];
  document.addEventListener('table-drawn', () => { const a = document.activeElement;
    window.focusAfter.push(a.tagName + (a.dataset && a.dataset.card ? ' card' : '') + ' ' +
                           (a.getAttribute('aria-label') || a.id || '')); }); }"""


def focus_after_updates(page: Any) -> list[str]:
    """What had focus after each update since :data:`WATCH_FOCUS` was installed."""
    return page.evaluate("() => window.focusAfter || []")


def result_rows(page: Any) -> list[list[str]]:
    return page.eval_on_selector_all(
        "#result-rows tr", "rs => rs.map(r => [...r.cells].map(c => c.textContent))")


def close_result(page: Any, seen: Seen, shots: bool = False) -> None:
    """The hand-result dialog, if it is open: its rows are kept, then it is closed by its key."""
    dialog = page.get_by_role("dialog")
    if dialog.count() and dialog.is_visible():
        seen.results.append(result_rows(page))
        if shots and len(seen.results) == 1:
            page.screenshot(path=str(DOCS / "web-result.png"))
        assert page.evaluate("document.activeElement.id") == "result-close"
        page.keyboard.press("Enter")
        assert page.is_hidden("#result")


def hand_cards(page: Any) -> list[str]:
    return page.eval_on_selector_all("#hand .card", "bs => bs.map(b => b.dataset.card)")


def card(page: Any, code: str) -> Any:
    return page.locator(f'#hand [data-card="{code}"]')


def no_horizontal_scroll(page: Any) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")


def button_names(page: Any) -> list[str]:
    """The accessible name of every visible button (aria-label, else its text)."""
    return page.eval_on_selector_all(
        "button", "bs => bs.filter(b => b.offsetParent !== null)"
                  ".map(b => (b.getAttribute('aria-label') || b.textContent).trim())")


def faces_show_rank_and_suit(page: Any) -> bool:
    faces = page.eval_on_selector_all(
        "#hand .card", "bs => bs.map(b => [b.dataset.card, b.querySelector('svg').textContent])")
    return bool(faces) and all((code[0] if code[0] != "T" else "10") in text and SUITS[code[1]] in text
                               for code, text in faces)


def wait_prompt_change(page: Any, before: str, timeout: float = 60000) -> None:
    page.wait_for_function("before => document.getElementById('you').dataset.prompt !== before", arg=before,
                           timeout=timeout)


def play_hand(page: Any, seen: Seen, shots: bool = False, stop_at_chata: bool = False) -> Seen:
    """Click through the hand until the verdict shows (or, with ``stop_at_chata``, the chata window)."""
    while True:
        page.wait_for_function(
            "() => document.getElementById('you').dataset.prompt || !document.getElementById('end').hidden"
            " || !document.getElementById('result').hidden", timeout=120000)
        close_result(page, seen, shots)
        if page.is_visible("#end"):
            return seen
        prompt = page.get_attribute("#you", "data-prompt") or ""
        if not prompt:
            continue
        kind = page.get_attribute("#you", "data-kind") or ""
        seen.sides.append(page.inner_text("#side"))
        if kind == "turn":
            seen.turns += 1
            seen.statuses.append(page.get_by_role("status").inner_text())
            _turn(page, seen, shots)
        else:
            seen.windows.append(kind)
            seen.window_focus.append(page.evaluate("document.activeElement.getAttribute('aria-label') || ''"))
            names = [n for n in button_names(page) if n in ("Run", "Stop", "Chata", "Kkojda", "Decline", "Show")]
            seen.names.update(names)
            if kind in ("chata", "kkojda"):
                seen.chata = seen.chata or kind == "chata"
                assert page.is_visible("#countdown") and "s left" in page.inner_text("#countdown")
                if stop_at_chata:
                    return seen
                if shots and kind == "chata":
                    page.screenshot(path=str(DOCS / "web-chata.png"))
                page.get_by_role("button", name=kind.capitalize(), exact=True).click()
            else:
                page.get_by_role("button", name="Decline", exact=True).click()
        wait_prompt_change(page, prompt)


def _turn(page: Any, seen: Seen, shots: bool) -> None:
    names = button_names(page)
    seen.names.update(n for n in names if n in ("Play", "Pass", "Clear"))
    cards = hand_cards(page)
    assert cards and all(any(name.startswith(c + ", ") for name in names) for c in cards), (cards, names)
    if seen.turns == 1:
        seen.checks.append("faces" if faces_show_rank_and_suit(page) else "no faces")
        assert no_horizontal_scroll(page)
        if shots:
            page.screenshot(path=str(DOCS / "web-turn.png"))
        # An illegal selection: the lowest and the highest card (two ranks, no combination).
        card(page, cards[0]).click()
        card(page, cards[-1]).click()
        assert card(page, cards[0]).get_attribute("aria-pressed") == "true"
        page.get_by_role("button", name="Play", exact=True).click()
        page.wait_for_function("() => document.getElementById('reason').textContent !== ''")
        seen.illegal_reason = page.inner_text("#reason")
        if shots:
            page.screenshot(path=str(DOCS / "web-illegal.png"))
        page.get_by_role("button", name="Clear", exact=True).click()
    if seen.turns == 2:
        # The phone width: the same table, no sideways scrolling.
        page.set_viewport_size({"width": 390, "height": 844})
        page.wait_for_timeout(200)
        seen.checks.append("390 ok" if no_horizontal_scroll(page) else "390 scrolls")
        if shots:
            page.screenshot(path=str(DOCS / "web-phone.png"), full_page=True)
        page.set_viewport_size({"width": 1280, "height": 800})
    if seen.turns == 3 and seen.reloaded_hand is None:
        before = hand_cards(page)
        watched = page.evaluate("() => !!window.focusAfter")
        seen.focus += focus_after_updates(page)
        page.reload()
        if watched:
            page.evaluate(WATCH_FOCUS)
        page.wait_for_selector("#hand .card")
        page.wait_for_function("() => document.getElementById('you').dataset.prompt")
        seen.reloaded_hand = (before, hand_cards(page))
    chip = page.locator("#legal .chip").first
    if seen.turns == 2:
        # Keyboard play: the first legal play's button picks its cards, P plays them.
        chip.focus()
        page.keyboard.press("Enter")
        page.keyboard.press("p")
        seen.keyboard = True
        return
    chip.click()
    page.get_by_role("button", name="Play", exact=True).click()
