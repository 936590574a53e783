"""Clean exits (docs/usage.md, "Exit statuses"): Ctrl-C, Ctrl-D, a closed terminal, a
burnt code, a seated peer that never connects, the creator leaving the waiting room. Each
ends with one sentence, no traceback, and its documented status. Terminals through a pty
(pexpect); everything on 127.0.0.1."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

from p2p_sasaki.cli.common import EXIT_FAILED, EXIT_INTERRUPTED
from p2p_sasaki.cli.main import main
from p2p_sasaki.protocol.net import TableCode
from tests.cli.peers import ROOT, env

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
INTERRUPTED = ("sasaki: interrupted; nothing more was sent (a match under way can be resumed: run the same "
               "command again).")


def spawn(tmp_path: Path, *argv: str, timeout: float = 60) -> pexpect.spawn:
    child = pexpect.spawn(sys.executable, ["-P", "-m", "p2p_sasaki", *argv, "--data-dir", str(tmp_path / "data")],
                          cwd=str(ROOT), env=env(), encoding="utf-8", timeout=timeout)
    child.logfile_read = _Tee()
    return child


class _Tee:
    def __init__(self) -> None:
        self.text: list[str] = []

    def write(self, data: str) -> None:
        self.text.append(data)

    def flush(self) -> None:
        pass


def finish(child: pexpect.spawn) -> tuple[int, str]:
    child.expect(pexpect.EOF)
    child.close()
    text = "".join(child.logfile_read.text)
    assert "Traceback" not in text and "ExceptionGroup" not in text, text
    return child.exitstatus, text


def last_line(text: str) -> str:
    return text.strip().splitlines()[-1].strip().removeprefix("^C").removeprefix("^D")   # the terminal's echo


def leftovers(tmp_path: Path) -> list[str]:
    """Processes still running whose command line names this test's folder."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if str(tmp_path) in cmdline and int(pid) != os.getpid():
            found.append(cmdline)
    return found


def host(tmp_path: Path, *extra: str, timeout: float = 60) -> pexpect.spawn:
    return spawn(tmp_path, "host", "--no-mdns", "--interface", "127.0.0.1", "--name", "Mina", *extra,
                 timeout=timeout)


@pytest.mark.parametrize("how", ["ctrl-c", "hang-up"])
def test_the_creator_leaves_the_waiting_room(tmp_path, how):
    child = host(tmp_path, "--bots", "1")
    child.expect(r"Waiting for 2 player\(s\) to join")
    child.expect(r"joined \(2 of 4 seats taken\)")
    if how == "ctrl-c":
        child.sendintr()
    else:
        child.kill(signal.SIGHUP)
    status, text = finish(child)
    assert status == EXIT_INTERRUPTED
    if how == "ctrl-c":
        assert last_line(text) == INTERRUPTED
    assert not leftovers(tmp_path)          # the bot peer went with it


@pytest.mark.parametrize("key", ["ctrl-c", "ctrl-d"])
def test_ctrl_c_and_ctrl_d_at_the_table_code_prompt(tmp_path, key):
    child = spawn(tmp_path, "play", "--interface", "127.0.0.1", "--browse-timeout", "0.3")
    child.expect("or press Enter to create a table:")
    if key == "ctrl-c":
        child.sendintr()
    else:
        child.sendeof()
    status, text = finish(child)
    assert status == EXIT_INTERRUPTED
    assert last_line(text) == (INTERRUPTED if key == "ctrl-c" else
                               "sasaki: no table code typed (end of input); nothing was sent.")


@pytest.mark.parametrize("how", ["ctrl-d", "ctrl-c", "hang-up"])
def test_leaving_at_a_prompt_of_the_game(tmp_path, how):
    # without proofs: leaving at a prompt is the point, and the deal's proofs (about 2 s of CPU
    # in four peers) come before any prompt; the full-proof table: test_table_processes.py.
    # A shorter shot clock (1 s windows, 0.5 s turns; a person's table allows any): the first
    # prompt comes about 6 s sooner than with the default 4 s windows, and stays up a second.
    child = host(tmp_path, "--bots", "3", "--hands", "1", "--timeout", "60", "--no-proofs",
                 "--window", "1", "--claim-window", "1", "--bot-turn", "0.5", timeout=120)
    child.expect([r"Play \(number, cards like", r"\[y/N\]", r"Type a number, or Enter"])
    if how == "ctrl-d":
        child.sendeof()
    elif how == "ctrl-c":
        child.sendintr()
    else:
        child.kill(signal.SIGHUP)
    status, text = finish(child)
    assert status == EXIT_INTERRUPTED
    if how == "ctrl-d":
        assert last_line(text) == ("sasaki: the input ended (Ctrl-D); nothing more was sent (a match under way "
                                   "can be resumed: run the same command again).")
    elif how == "ctrl-c":
        assert last_line(text) == INTERRUPTED
    assert not leftovers(tmp_path)


def test_a_burnt_code(tmp_path, capsys):
    code = TableCode.generate()
    child = host(tmp_path, "--code", str(code))
    child.expect(r"Join address \(if multicast does not pass\): (\S+)")
    address = child.match.group(1)
    wrong = str(TableCode.generate())
    wrong = f"{str(code).split('-')[0]}-{'-'.join(wrong.split('-')[1:])}"
    # The joiners run in this process (main(argv), as `sasaki join` does): what is tested is the
    # creator's process burning its code and its exit; a joiner's own status and one sentence
    # need no interpreter of their own (three fewer starts, about 2 s of CPU).
    hang_up = signal.getsignal(signal.SIGHUP)
    try:
        for attempt in range(3):
            capsys.readouterr()
            status = main(["join", wrong, "--address", address, "--interface", "127.0.0.1",
                           "--data-dir", str(tmp_path / f"j{attempt}")])
            stderr = capsys.readouterr().err
            assert status == EXIT_FAILED
            assert "Traceback" not in stderr and len(stderr.strip().splitlines()) == 1, stderr
    finally:
        signal.signal(signal.SIGHUP, hang_up)   # main() makes a closed terminal an interrupt
    status, text = finish(child)
    assert status == EXIT_FAILED
    assert re.fullmatch(r"sasaki: .*\.", last_line(text)) and "code" in last_line(text), text


def test_a_seated_peer_that_never_connects(tmp_path):
    child = host(tmp_path, "--bots", "2", "--connect-timeout", "3", "--bot", "--hands", "1", timeout=90)
    child.expect(r"Join address \(if multicast does not pass\): (\S+)")
    code = re.search(r"Table code: (\S+)", "".join(child.logfile_read.text)).group(1)
    address = re.search(r"Join address \(if multicast does not pass\): (\S+)",
                        "".join(child.logfile_read.text)).group(1)
    silent = subprocess.Popen([sys.executable, str(HERE / "never_connects.py"), code, address, str(tmp_path)],
                              cwd=ROOT, env=env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        status, text = finish(child)
    finally:
        silent.kill()
        silent.wait()
    assert status == EXIT_FAILED
    assert re.fullmatch(r"sasaki: peer [0-9a-f]{8} \(127\.0\.0\.1:\d+\) never connected within 3 s, so the match "
                        r"could not start; nothing was recorded\. Start a new table \(or wait for that player and "
                        r"run the same command again\)\.", last_line(text)), text
    assert not list((tmp_path / "data" / "transcripts").glob("*.sasaki"))   # no empty transcript
    assert not leftovers(tmp_path)


def test_demo_with_a_relative_dir_from_another_folder(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = subprocess.run([sys.executable, "-P", "-m", "p2p_sasaki", "demo", "--dir", "rel", "--hands", "1",
                          "--no-proofs", "--seed", "1"], cwd=elsewhere, env=env(), capture_output=True, text=True,
                         timeout=300, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "Audit: all four transcripts verify and agree" in out.stdout
    assert sorted(p.name for p in (elsewhere / "rel").glob("*.sasaki")) == [f"peer{i}.sasaki" for i in range(4)]
    assert not leftovers(tmp_path)


def test_ctrl_c_in_the_demo_leaves_no_peer_behind(tmp_path):
    child = pexpect.spawn(sys.executable, ["-P", "-m", "p2p_sasaki", "demo", "--dir", "rel", "--hands", "3",
                                           "--no-proofs"], cwd=str(tmp_path), env=env(), encoding="utf-8",
                          timeout=120)
    child.logfile_read = _Tee()
    child.expect(r"Demo in ")
    child.expect(r" leads ")
    child.sendintr()
    status, text = finish(child)
    assert status == EXIT_INTERRUPTED
    assert last_line(text) == DEMO_INTERRUPTED and text.count("sasaki: ") == 1     # said once, and true
    assert not leftovers(tmp_path)


DEMO_INTERRUPTED = "sasaki: interrupted; nothing more was sent; the demo ends here ('sasaki demo' starts a new one)."


def human_demo(tmp_path: Path, hands: int = 1) -> pexpect.spawn:
    child = pexpect.spawn(sys.executable, ["-P", "-m", "p2p_sasaki", "demo", "--human", "--hands", str(hands),
                                           "--no-proofs", "--fast", "--seed", "3", "--timeout", "60", "--dir", "rel"],
                          cwd=str(tmp_path), env=env(), encoding="utf-8", timeout=120)
    child.logfile_read = _Tee()
    return child


PROMPTS = [r"Play \(number, cards like", r"Next match with the same four\? \[y/N\]", r"\[y/N\]",
           r"Type a number, or Enter"]


@pytest.mark.parametrize("key", ["ctrl-d", "ctrl-c"])
def test_leaving_the_human_demo_says_it_once_and_the_audit_is_true(tmp_path, key):
    """Ctrl-D / Ctrl-C at a prompt of ``demo --human``: one sentence that does not promise a
    resume (the demo starts a new table), the bots stopped at once (no grace wait), and the
    audit says the transcripts stop where you left, not that they fail."""
    child = human_demo(tmp_path)
    child.expect(PROMPTS)
    if key == "ctrl-d":
        child.sendeof()
    else:
        child.sendintr()
    status, text = finish(child)
    assert status == EXIT_INTERRUPTED
    said = [line for line in (line.strip().removeprefix("^C").removeprefix("^D") for line in text.splitlines())
            if line.startswith("sasaki: ")]
    assert said == ["sasaki: the input ended (Ctrl-D); nothing more was sent; the demo ends here ('sasaki demo' "
                    "starts a new one)." if key == "ctrl-d" else DEMO_INTERRUPTED]
    assert "resumed" not in text and "do NOT" not in text
    if key == "ctrl-d":
        assert "Your peer ended (status 130) after " in text and "; the bots were stopped." in text
        assert last_line(text).startswith("Audit: the four transcripts stop where you left, nobody is blamed, and "
                                          "what they hold verifies and agrees")
    assert not leftovers(tmp_path)


def test_quit_in_a_second_match_of_the_human_demo(tmp_path):
    """Match 1 played out, a next match agreed, 'quit' at its first prompt: match 1 verifies
    and agrees, match 2 stops where you left; nothing says the transcripts fail."""
    child = human_demo(tmp_path)
    match = 1
    while True:
        index = child.expect(PROMPTS + [pexpect.EOF])
        if index == 1:
            child.sendline("y")
            match = 2
        elif match == 2 and index in (0, 2, 3):
            child.sendline("quit")
            child.expect(r"Leave the table\? .*\[y/N\]")
            child.sendline("y")
            break
        else:
            child.sendline("1" if index == 0 else "n")
    status, text = finish(child)
    assert status == EXIT_FAILED
    assert "you left the table" in text and "do NOT" not in text
    match_1, match_2 = text.split("\nMatch 1:")[1].split("\nMatch 2:")
    assert "Audit: all four transcripts verify and agree" in match_1
    assert "Audit: the four transcripts stop where you left" in match_2
    assert not leftovers(tmp_path)
