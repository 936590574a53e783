"""A person plays seat 0's peer in a pseudo-terminal (pexpect) against three bot peers."""

from __future__ import annotations

import sys

import pexpect
import pytest

from tests.cli.peers import HAVE_SESSION, HAVE_TRANSCRIPT, ROOT, env

pytestmark = pytest.mark.slow


def play_as_human(tmp_path, plain: bool, timeout: float = 90) -> str:
    child = pexpect.spawn(sys.executable, ["-m", "cli", "demo", "--human", "--hands", "1", "--seed", "2",
                                           "--timeout", "3", "--dir", str(tmp_path)],
                          cwd=str(ROOT), env=env(plain), encoding="utf-8", timeout=timeout)
    log = []
    child.logfile_read = _Tee(log)
    tried_illegal = False
    while True:
        index = child.expect([r"Play \(number, cards like 9C 9H, or 'pass'\):", r"\[y/N\]",
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


def test_human_plays_a_hand_against_three_bots_plain_session(tmp_path):
    text = play_as_human(tmp_path, plain=True)
    assert "Your cards: " in text and "Your hand: " in text and "Legal plays:" in text
    assert "Illegal: " in text
    assert "Hand 1 is over" in text and "Totals: " in text
    assert "waiting for S" in text


@pytest.mark.skipif(not (HAVE_SESSION and HAVE_TRANSCRIPT), reason="protocol.session/transcript not merged yet")
def test_human_plays_a_hand_real_protocol(tmp_path):
    text = play_as_human(tmp_path, plain=False, timeout=120)
    assert "shuffling and dealing" in text
    assert "Audit: all four transcripts verify and agree" in text
