"""A person plays a whole Sasku match at the terminal (pexpect) against three bot peers:
``sasaki demo --game sasku --human --fast --target 4``; every decision's choices are read
from the screen and the first is typed back in words."""

from __future__ import annotations

import sys

import pexpect
import pytest

from tests.cli.peers import ROOT, env
from tests.cli.test_human_terminal import _Tee

pytestmark = pytest.mark.slow

_WORDS = {"Pass": "pass", "Diamonds": "diamonds", "Give a picture": "give", "Take": "take", "Refuse": "refuse"}


def typed(choices_line: str) -> str:
    """The words for the first choice on the screen's choices line."""
    line = choices_line.strip()
    if line.startswith("Cards you can choose: "):
        return line.split(": ", 1)[1].split()[0]            # "QH"
    first = line.split(" | ")[0]
    if first.startswith("Bid "):
        return "bid " + first[4:]                            # "bid 5"
    if first.startswith("Trump "):
        return "trump " + first[6:7].lower()                 # "trump c"
    return _WORDS[first]


def test_a_person_plays_a_sasku_match_by_typing(tmp_path):
    child = pexpect.spawn(sys.executable, ["-P", "-m", "p2p_sasaki", "demo", "--game", "sasku", "--human", "--fast",
                                           "--target", "4", "--timeout", "3", "--dir", str(tmp_path)],
                          cwd=str(ROOT), env=env(), encoding="utf-8", timeout=240)
    log: list[str] = []
    child.logfile_read = _Tee(log)
    kinds: set[str] = set()
    tried = False
    while True:
        index = child.expect([r"  \(Type[^\r\n]*'help' for help\)", r"\[y/N\]", r"Audit: ", pexpect.EOF])
        if index == 0:
            lines = [line for line in child.before.splitlines() if line.strip()]
            question, choices = lines[-2], lines[-1]
            kinds.add(question.split(":")[0])
            if not tried:
                tried = True
                child.sendline("bid 42")                      # never a choice
                child.expect("Illegal: ")
            child.sendline(typed(choices))
        elif index == 1:
            child.sendline("n")
        else:
            break
    child.expect(pexpect.EOF)
    child.close()
    text = "".join(log)
    assert child.exitstatus == 0, text[-3000:]
    assert "Your turn" in kinds and "Illegal: " in text, text[-4000:]
    assert "Contract: " in text and "Trick: " in text and "Your hand: " in text and "(to 4)." in text
    assert "The match is over: " in text
    assert "Audit: all four transcripts verify and agree" in text
