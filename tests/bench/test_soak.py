"""bench/soak.py runs end to end (one table, one hand, no proofs) and prints every figure.

No timing assertions: the figures depend on the machine."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def test_soak_prints_every_figure_and_every_transcript_audits():
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "soak.py"), "--tables", "2", "--hands", "1",
                           "--concurrency", "2", "--no-proofs"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    for figure in ("completion", "hands per minute", "worst per-play", "peak RSS per peer", "audits"):
        assert any(line.startswith(figure) for line in lines), done.stdout
    assert "completion        2/2 tables finished alike" in lines
    assert any(line.startswith("audits            2/2 tables") for line in lines)
