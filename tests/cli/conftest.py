"""Fixtures shared by the command tests."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.peers import ROOT, env


@pytest.fixture(scope="session")
def full_proof_demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """One ``sasaki demo`` with full-size (64-round) proofs, one hand, seed 7, run once for
    the whole session (it is the slowest thing the tests start): its folder (``peerN/``,
    ``peerN.sasaki``) and its output. Tests only read it."""
    directory = tmp_path_factory.mktemp("demo")
    out = subprocess.run([sys.executable, "-P", "-m", "p2p_sasaki", "demo", "--hands", "1", "--seed", "7",
                          "--dir", str(directory)],
                         cwd=ROOT, env=env(), capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stdout + out.stderr
    return directory, out.stdout


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """One Debian Chromium (driven by Playwright) for the page tests of a module, launched at
    the first that asks (a launch is about a second of CPU): each test opens pages of its own,
    a fresh browser context each, through :func:`browser`. Not for the whole session: while
    Playwright's sync API is started, its asyncio loop counts as running in this thread, so
    another ``sync_playwright()`` (or ``asyncio.run``) in a later module would be refused."""
    from playwright.sync_api import sync_playwright

    from tests.cli.web_player import CHROMIUM

    assert Path(CHROMIUM).exists(), "install Debian's chromium (apt-get install -y chromium)"
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM)
        yield launched
        launched.close()


@pytest.fixture
def browser(chromium: Any) -> Iterator[Any]:
    """The session's Chromium for one test: the pages (contexts) it opened are closed after it."""
    yield chromium
    for context in chromium.contexts:
        context.close()
