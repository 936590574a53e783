"""bench/tournament.py runs end to end for small boards (4 and 8 players) and prints every figure.

No timing assertions: the figures depend on the machine."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIGURES = ("critical path", "CPU per player", "mults per player", "board bytes to the deal", "done+keys",
           "reveal at one player", "audit of the board file")


@pytest.mark.slow
def test_tournament_bench_prints_every_figure_for_each_board():
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "tournament.py"), "--players", "4", "8"],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    lines = {int(m.group(1)): line for line in done.stdout.splitlines() if (m := re.match(r"\s*(\d+) players:", line))}
    assert sorted(lines) == [4, 8]
    for line in lines.values():
        for figure in FIGURES:
            assert re.search(re.escape(figure) + r"[^;]*\d", line) or re.search(r"\d[\d,.]* " + re.escape(figure),
                                                                                 line), (figure, line)
    assert "x2.00 players" in lines[8]
    assert "one Ed25519 crypto_scalarmult_ed25519_noclamp" in done.stdout
    assert "remembered checks off (crypto.check_memo)" in done.stdout   # every player checks in full
