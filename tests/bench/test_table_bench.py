"""bench/table.py runs end to end (one run, 2 proof rounds) and prints every figure.

No timing assertions: the figures depend on the machine."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


FIGURES = [
    "time to every peer dealt", "per-play latency median", "per-play latency p90", "whole hand",
    "plays (answered slots)", "signed messages per hand", "mesh frames per hand", "mesh bytes per hand",
    "audit of the transcript", "goal per-play latency <= 2x baseline", "goal audit < 0.5 s",
]


def test_play_latencies_from_the_answer_to_the_last_record_skipping_unfinished_slots():
    """The one per-play computation of bench/table.py and bench/soak.py."""
    spec = importlib.util.spec_from_file_location("bench_table", ROOT / "bench" / "table.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    peers = [{"log": [("act", 1.0, 1, 3), ("record", 1.5, 1, 3), ("record", 2.5, 1, 2), ("act", 3.0, 1, 4)]},
             {"log": [("record", 1.25, 1, 2), ("record", 1.75, 1, 3), ("record", 3.5, 1, 4)]}]
    peers[0]["log"].append(("act", 0.5, 1, 2))
    # slot (1, 2): acted 0.5, last record 2.5; (1, 3): 1.0 -> 1.75; (1, 4): peer 0 never recorded it
    assert bench.play_latencies(peers) == [2.0, 0.75]


@pytest.mark.slow
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
    assert "remembered checks off (crypto.check_memo)" in out   # every peer checks in full, as on its machine
    assert "transcripts identical at every peer: yes" in out
    assert "baseline played the same hand: yes" in out
