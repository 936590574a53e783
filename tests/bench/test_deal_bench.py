"""bench/deal.py --sasku runs end to end (one deal, one core a seat) and prints every figure:
a Sasku deal at a table beside the deck's 36 cards in the run's unit, their ratio, the
hand-overs of its picture giving and the deal's transcript bytes.

No timing assertions: the figures depend on the machine."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def test_the_sasku_deal_is_printed_beside_the_decks_36_cards_in_the_same_units():
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "deal.py"), "--sasku", "--runs", "1", "--cores", "1"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert re.search(r"one Ed25519 crypto_scalarmult_ed25519_noclamp = [\d.]+ us", out), out
    assert "remembered checks off (crypto.check_memo)" in out, out   # every seat checks in full, as on its machine
    assert re.search(r"a Sasku deal at a table \(36 cards, 4 seats, proofs on\): critical path [\d.]+ s = [\d,]+ "
                     r"units; the deck's 36 cards: [\d.]+ s = [\d,]+ units; ratio [\d.]+", out), out
    # the first seed deals a picture giving: the give's hand-over and the card handed back
    for kind in ("give", "return"):
        assert re.search(rf"a hand-over at the table, {kind} .*: adds [\d.]+ s = [\d,]+ units", out), out
    size = re.search(r"the deal's transcript: ([\d,]+) bytes", out)
    assert size is not None, out
    assert int(size.group(1).replace(",", "")) > 10_000   # a whole deal, not a header
