"""bench/timing.py runs end to end in its quick mode (four peer processes over the TCP mesh,
two hands at a tenth of the shot clock) and prints its groups as JSON, for Sasaki and for Sasku.

No timing assertions: the figures depend on the machine (the bench itself states the target)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow

KEYS = {"kind", "who", "n_claim", "n_noclaim", "median_ms_claim", "median_ms_noclaim", "p"}


def test_the_quick_timing_bench_prints_every_group_with_both_medians():
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "timing.py"), "--quick", "--json"],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    groups = json.loads(done.stdout)["groups"]
    assert groups
    for group in groups:
        assert set(group) == KEYS, group
        assert group["kind"] in ("run", "expose", "stop", "chata", "kkojda", "lead", "turn")
        assert group["who"] in ("person", "heuristic", "search", "random")
        assert group["n_claim"] >= 1 and group["n_noclaim"] >= 1
        assert isinstance(group["median_ms_claim"], float) and isinstance(group["median_ms_noclaim"], float)
        assert 0.0 <= group["p"] <= 1.0
    # turns come up in every hand, for every seat: free choices against forced passes
    assert {g["who"] for g in groups if g["kind"] == "turn"} == {"person", "heuristic", "search", "random"}


SASKU_KINDS = ("bid", "answer", "return", "trump", "turn")


def test_the_quick_timing_bench_covers_sasku_decisions():
    """Sasku: every decision is one seat's, paced by its kind; the groups split free choices
    from forced ones (and the bidding turns by whether the cards let the seat give); every
    answer is listed by kind, paced, both sides together."""
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "timing.py"), "--quick", "--json", "--game", "sasku"],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    figures = json.loads(done.stdout)
    for group in figures["groups"]:
        assert set(group) == KEYS, group
        assert group["kind"] in SASKU_KINDS + ("bid:give",)
        assert group["n_claim"] >= 1 and group["n_noclaim"] >= 1 and 0.0 <= group["p"] <= 1.0
    # plays come up in every deal for every seat: free plays against forced ones (one legal card)
    assert {g["who"] for g in figures["groups"] if g["kind"] == "turn"} == {"person", "heuristic", "search", "random"}
    paced = figures["paced"]
    assert {row["kind"] for row in paced} <= set(SASKU_KINDS) and {"bid", "turn"} <= {row["kind"] for row in paced}
    for row in paced:
        assert set(row) == {"kind", "who", "n", "median_ms"} and row["n"] >= 1
        assert isinstance(row["median_ms"], float)


def test_the_mann_whitney_test_is_exact_for_small_samples():
    spec = importlib.util.spec_from_file_location("bench_timing", ROOT / "bench" / "timing.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    mann_whitney = bench.mann_whitney
    assert mann_whitney([1, 2, 3], [4, 5, 6]) == pytest.approx(0.1)          # 2 of 20 splits
    assert mann_whitney([1, 2, 3, 4], [5, 6, 7, 8]) == pytest.approx(2 / 70)
    assert mann_whitney([1, 4], [2, 3]) == 1.0
    assert mann_whitney([1.0] * 30, [1.0] * 30) == 1.0                          # all tied: nothing to tell
    far = mann_whitney(list(range(40)), list(range(100, 140)))                  # the normal approximation
    assert 0 < far < 1e-10
