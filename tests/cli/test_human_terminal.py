"""A person plays seat 0's peer in a pseudo-terminal (pexpect) against three bot peers."""

from __future__ import annotations

import re
import sys

import pexpect
import pytest

from tests.cli.peers import ROOT, env

pytestmark = pytest.mark.slow


def play_as_human(tmp_path, timeout: float = 180) -> str:
    # without shuffle proofs (about 1 s of CPU in the five processes): the person's part comes
    # after the deal; the network demo with full proofs: test_table_processes.py
    child = pexpect.spawn(sys.executable, ["-P", "-m", "p2p_sasaki", "demo", "--human", "--hands", "1", "--seed", "2",
                                           "--fast", "--no-proofs", "--timeout", "3", "--dir", str(tmp_path)],
                          cwd=str(ROOT), env=env(), encoding="utf-8", timeout=timeout)
    log: list[str] = []
    child.logfile_read = _Tee(log)
    tried_illegal = False
    while True:
        index = child.expect([r"Play \(number, cards like 9C 9H, 'pass', 'help'\):", r"\[y/N\]",
                              r"Type a number, or Enter", r"Audit: ", pexpect.EOF])
        if index == 0:
            if not tried_illegal:
                tried_illegal = True
                child.sendline("2C")          # no such card
                child.expect("Illegal: ")
                continue
            child.sendline("1")
        elif index in (1, 2):
            child.sendline("n")
        else:
            break
    child.expect(pexpect.EOF)
    child.close()
    text = "".join(log)
    assert child.exitstatus == 0, text[-3000:]
    return text


class _Tee:
    def __init__(self, log: list[str]) -> None:
        self.log = log

    def write(self, data: str) -> None:
        self.log.append(data)

    def flush(self) -> None:
        pass


def test_human_plays_a_hand_against_three_bots(tmp_path):
    """A person (this test, through a pty) plays seat 0 of the network demo to the end."""
    text = play_as_human(tmp_path)
    assert "shuffling and dealing" in text
    assert "Your cards: " in text and "Your hand: " in text and "Legal plays:" in text
    assert "Illegal: " in text
    # "Waiting for ..." only for waits that last 2 s (tests/cli/test_tui.py): bots are quick.
    # Leads are told as leads: the hand's first play and every play after a round ended.
    plays = [line.strip().replace("You lead ", "You leads ").replace("You play ", "You plays ")
             for line in text.splitlines() if re.match(r"\s+(S\d Bot \d (leads|plays)|You (lead|play)) ", line)]
    assert plays and " leads " in plays[0], plays[:3]
    assert any(" plays " in p for p in plays)
    assert sum(" leads " in p for p in plays) >= 2                # at least one new round
    # "waiting for ..." once per change: never the same line twice in a row.
    waits = [line.strip() for line in text.splitlines() if line.startswith("Waiting for ")]
    assert all(a != b for a, b in zip(waits, waits[1:], strict=False)), waits
    # The table line marks as "passed" exactly the seats that passed since the top play.
    for table, top in re.findall(r"(Table: [^\n]*)\r?\n(Top play: [^\n]*|No top play[^\n]*)", text):
        if top.startswith("No top play"):
            assert "passed" not in table, table
    assert "Hand 1 is over" in text and "Totals: " in text and "The match is over: " in text
    assert "Audit: all four transcripts verify and agree" in text
