"""bench/table.py runs end to end (one run, 2 proof rounds) and prints every figure.

No timing assertions: the figures depend on the machine."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow

FIGURES = [
    "time to every peer dealt", "per-play latency median", "per-play latency p90", "whole hand",
    "plays (answered slots)", "signed messages per hand", "mesh frames per hand", "mesh bytes per hand",
    "audit of the transcript", "goal per-play latency <= 2x baseline", "goal audit < 0.5 s",
]


def test_table_bench_prints_every_figure():
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "table.py"), "--runs", "1"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for figure in FIGURES:
        line = next((line for line in out.splitlines() if line.startswith(figure)), None)
        assert line is not None, f"{figure!r} missing from:\n{out}"
        assert any(ch.isdigit() for ch in line[len(figure):]), line  # a value, not just the label
    # real and baseline columns, with a ratio, on every measured row
    assert "real" in out and "baseline" in out and "ratio" in out
    assert "transcripts identical at every peer: yes" in out
    assert "baseline played the same hand: yes" in out
