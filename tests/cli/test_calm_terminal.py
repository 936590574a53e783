"""A calmer terminal: type-ahead dropped, "time is up", help, quit, grouped plays, retyped codes,
and the messages of demo, audit and replay. Pty tests drive ``sasaki`` with pexpect."""

from __future__ import annotations

import hashlib
import re
import sys
from pathlib import Path

import pexpect
import pytest

from p2p_sasaki.cli.main import main
from p2p_sasaki.protocol.transcript import read_transcript
from tests.cli.peers import ROOT, env

CHATA_SEED = 1     # tests/cli/test_web_table.py: the person (S0) may run first, later has a chata chance


def identities(directory: Path) -> None:
    for peer in range(4):
        key = directory / f"peer{peer}" / "identity.key"
        key.parent.mkdir(parents=True, exist_ok=True)
        key.write_bytes(hashlib.sha256(b"sasaki web test identity %d" % peer).digest())
        key.chmod(0o600)


def spawn_demo(directory: Path, timeout: str = "3", proofs: bool = False) -> pexpect.spawn:
    """``sasaki demo --human`` on a fixed deal; without shuffle proofs (about 1 s of CPU a match
    in the five processes) unless ``proofs``: what these tests ask of the terminal comes after
    the deal, and the audits check the strips, openings and keys either way."""
    identities(directory)
    no_proofs = [] if proofs else ["--no-proofs"]
    return pexpect.spawn(sys.executable, ["-P", "-m", "p2p_sasaki", "demo", "--human", "--hands", "1", "--seed", "5",
                                          "--fast", "--deal-seed", str(CHATA_SEED), *no_proofs,
                                          "--timeout", timeout, "--dir", str(directory)],
                         cwd=str(ROOT), env=env(), encoding="utf-8", timeout=120)


PLAY = r"Play \(number, cards like 9C 9H, 'pass', 'help'\):"
WINDOW = r"\? \[y/N\] \(declines in 3 s\)"   # a window the person can claim, with the test's 3 s deadline


@pytest.mark.slow
def test_type_ahead_time_is_up_help_and_a_quit_not_confirmed(tmp_path):
    # with proofs: the 'y' typed at "shuffling and dealing" must land well before the first prompt
    child = spawn_demo(tmp_path, proofs=True)
    log: list[str] = []
    child.logfile_read = _Tee(log)
    child.expect("shuffling and dealing")
    child.sendline("y")                      # typed early: must answer nothing (neither a play nor a window)
    asked_help = window_left = False
    while True:                              # the hand: the first listed play; the first window left to time out
        index = child.expect([PLAY, WINDOW, r"\[y/N\]", r"Type a number, or Enter", r"Audit: ", pexpect.EOF])
        if index == 0 and not asked_help:    # help and a quit not confirmed, at the first turn
            asked_help = True
            child.sendline("help")
            child.expect("Sasaki in short")
            child.expect("'quit' leaves the table")
            child.sendline("quit")
            child.expect(r"Leave the table\? The others cannot finish the match without you\. \[y/N\]")
            child.sendline("n")
            child.expect("You stay.")
            child.expect(PLAY)
            child.sendline("1")
        elif index == 0:
            child.sendline("1")
        elif index == 1 and not window_left:
            window_left = True
            child.expect("Time is up: you decline.")
        elif index in (1, 2, 3):
            child.sendline("n")
        else:
            break
    child.expect(pexpect.EOF)
    child.close()
    text = "".join(log)
    assert child.exitstatus == 0, text[-3000:]
    assert asked_help and "is not a card" not in text and "Others join with" not in text  # 'y' was dropped
    assert not window_left or "Time is up: you decline." in text
    assert re.search(r"^  Singles: 1\) \w\w", text, re.M)                       # plays grouped by kind
    assert not re.search(r"^\s+\d+: ", text, re.M) or "Type a number" in text   # no one-per-line list
    assert re.search(r"(S\d Bot \d goes|You go) out \(1st\)\.", text)
    assert "The match is over: " in text and "Audit: all four transcripts verify and agree" in text
    assert "(automatic:" not in text and "hand-id" not in text


@pytest.mark.slow
def test_quit_confirmed_leaves_the_table(tmp_path):
    child = spawn_demo(tmp_path, timeout="60")
    log: list[str] = []
    child.logfile_read = _Tee(log)
    child.expect([PLAY, r"\[y/N\]"])          # the person's first prompt, whatever it is
    child.sendline("quit")
    child.expect(r"Leave the table\?")
    child.sendline("y")
    child.expect("You leave the table.")
    child.expect("you left the table; the others were told at once")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1
    out = "".join(log)
    # the leave notice reached the three bots: they abandoned the hand at once and ended
    # cleanly; S1 left hand 1 after its deal and forfeits it (-36, the others +12 each): their
    # transcripts are complete with the forfeit (the person's own transcript stops before the
    # abandon: it is incomplete, nobody blamed)
    assert "Your peer ended (status 1) after " in out, out[-2000:]
    forfeit = (r"OK: 1 hand\(s\) verified; S1 [^;]*left hand 1 after the deal and forfeits it; "
               r"totals S0 [^,]* \+12, S1 [^,]* -36, S2 [^,]* \+12, S3 [^,]* \+12\.")
    assert len(re.findall(forfeit, out)) == 3, [line for line in out.splitlines() if ".sasaki" in line]
    assert out.count("INCOMPLETE: ") == 1
    # the person's own transcript stops before the abandon; the four agree as far as they go
    assert "Audit: the four transcripts stop where you left, nobody is blamed" in out
    assert "verifies and agrees: totals [12, -36, 12, 12]." in out
    assert "do NOT" not in out


@pytest.mark.slow
def test_a_mistyped_code_is_asked_again(tmp_path):
    child = pexpect.spawn(sys.executable, ["-P", "-m", "p2p_sasaki", "play", "--interface", "127.0.0.1",
                                           "--browse-timeout", "0.5", "--data-dir", str(tmp_path)],
                          cwd=str(ROOT), env=env(), encoding="utf-8", timeout=60)
    child.expect("or press Enter to create a table:")
    child.sendline("purple-sausage")
    child.expect(r"is not a table code.*Type the code again, or press Enter to create a table:")
    child.sendline("7-purple-sausage 127.0.0.1")
    child.expect(r"is not an address like .*Type the code again")
    child.sendeof()
    child.expect("no table code typed")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130   # the input ended (Ctrl-D): docs/usage.md, exit statuses


def test_audit_of_a_file_that_is_not_a_transcript(capsys, tmp_path):
    assert main(["audit", str(ROOT / "README.md")]) == 5  # docs/usage.md: unreadable or not a transcript
    out, err = capsys.readouterr()
    assert out == "" and err == f"sasaki audit: {ROOT / 'README.md'} is not a transcript: it is text (a game record " \
                                "is checked with 'sasaki replay').\n"      # an error: on stderr
    binary = tmp_path / "noise.bin"
    binary.write_bytes(bytes(range(256)))
    assert main(["audit", str(binary)]) == 5
    assert "is not a transcript: it does not start with a transcript header" in capsys.readouterr().err


def test_replay_of_a_transcript_points_to_audit_and_export(capsys, tmp_path):
    path = tmp_path / "table.sasaki"
    path.write_bytes(b"\x00\x00\x00\x10\x01\xff\xfe binary")
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not UTF-8 text" in err
    assert f"'sasaki audit {path}'" in err and f"'sasaki export {path}'" in err


class _Tee:
    def __init__(self, log: list[str]) -> None:
        self.log = log

    def write(self, data: str) -> None:
        self.log.append(data)

    def flush(self) -> None:
        pass


NEXT = r"Next match with the same four\? \[y/N\] \(answer within \d+ s\)"


def _play_to_the_end(child: pexpect.spawn) -> None:
    """The hand by the first listed play, every window declined, up to the next-match question."""
    while True:
        index = child.expect([NEXT, PLAY, r"\[y/N\]", r"Type a number, or Enter"])
        if index == 0:
            return
        child.sendline("1" if index == 1 else "n")


@pytest.mark.slow
def test_a_next_match_with_the_same_four_at_the_terminal(tmp_path):
    # --timeout 20: the person's answer deadline (and so the next-match question's) is 20 s.
    child = spawn_demo(tmp_path, timeout="20")
    log: list[str] = []
    child.logfile_read = _Tee(log)
    _play_to_the_end(child)
    child.sendline("y")                                        # the bots agree by themselves
    child.expect("You want a next match; waiting for the others.")
    child.expect("Match over. Totals: ")                       # the first match's line, then the next
    child.expect("Match 2 starts: same four players, a fresh table.")
    child.expect(r"Next match at a fresh table; transcript: \S+peer0-2\.sasaki")
    child.expect("Seats drawn: ")
    _play_to_the_end(child)
    child.sendline("n")
    child.expect("No next match: you declined.")
    child.expect(pexpect.EOF)
    child.close()
    text = "".join(log)
    assert child.exitstatus == 0, text[-3000:]
    first, second = text.split("Match 2:")
    assert "Audit: all four transcripts verify and agree" in first
    assert "Audit: all four transcripts verify and agree" in second
    assert text.count("The match is over: ") == 2
    peer0 = [tmp_path / "peer0.sasaki", tmp_path / "peer0-2.sasaki"]
    ids = [read_transcript(path.read_bytes()).header.table for path in peer0]
    assert ids[0] != ids[1]


@pytest.mark.slow
def test_no_answer_to_the_next_match_question_ends_everyone_cleanly(tmp_path):
    child = spawn_demo(tmp_path, timeout="3")                  # the question's deadline: 5 s (its minimum)
    log: list[str] = []
    child.logfile_read = _Tee(log)
    _play_to_the_end(child)                                    # ... and no answer
    child.expect("No next match: your time to answer was up.")
    child.expect(pexpect.EOF)
    child.close()
    text = "".join(log)
    assert child.exitstatus == 0, text[-3000:]
    assert "Match 2:" not in text and "Audit: all four transcripts verify and agree" in text
    for peer in (1, 2, 3):                                     # the bots were told: one sentence each
        assert "No next match: " in (tmp_path / f"peer{peer}.log").read_text()
