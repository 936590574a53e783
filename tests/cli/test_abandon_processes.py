"""Four ``sasaki`` processes on 127.0.0.1; one is SIGKILLed for good during the match. The
other three wait for it, get the (short, ``--stall``) stall deadline, abandon as bots do,
and exit cleanly; their transcripts are identical and ``sasaki audit`` says ``abandoned``,
naming the killed seat only as having left (exit status 3). And issue 18's black-box check:
one frozen with SIGSTOP after the deal forfeits the hand. (The audits run in this process:
tests/cli/inproc.py.)"""

from __future__ import annotations

import json
import signal
import time

import pytest

from p2p_sasaki.protocol.messages import MessageError, decode_envelope
from p2p_sasaki.protocol.net import TableCode
from p2p_sasaki.protocol.transcript import KIND_ENVELOPE, frame_records
from tests.cli.inproc import cli
from tests.cli.peers import finish, sasaki, wait_for

pytestmark = pytest.mark.slow


def played(path) -> bool:
    """The transcript holds a game slot of hand 1 after the opening (the strips are done)."""
    try:
        records, _ = frame_records(path.read_bytes())
    except OSError:
        return False
    for kind, data in records:
        if kind != KIND_ENVELOPE:
            continue
        try:
            body = decode_envelope(data).body
        except MessageError:
            continue
        if body.hand == 1 and body.type == "table/action" and body.slot > 13:
            return True
    return False


def test_three_processes_abandon_a_sigkilled_peer_and_exit_cleanly(tmp_path):
    code = str(TableCode.generate())
    ready = tmp_path / "address"
    pace = ["--window", "0.2", "--claim-window", "0.2", "--bot-turn", "0.2", "--answer-deadline", "1",
            "--stall", "3", "--no-proofs"]
    host = sasaki("host", "--bot", "--seed", "1", "--hands", "2", "--lead", "3H", "--interface", "127.0.0.1",
                  "--no-mdns", *pace, "--data-dir", str(tmp_path / "p0"), "--transcript", str(tmp_path / "p0.sasaki"),
                  "--ready-file", str(ready), "--code", code)
    address = wait_for(ready, host)
    joiners = [sasaki("join", code, "--bot", "--seed", str(i), "--interface", "127.0.0.1", "--address", address,
                      "--data-dir", str(tmp_path / f"p{i}"), "--transcript", str(tmp_path / f"p{i}.sasaki"))
               for i in (1, 2, 3)]
    victim = joiners[1]
    deadline = time.monotonic() + 120
    while not played(tmp_path / "p2.sasaki"):
        assert victim.poll() is None and time.monotonic() < deadline, "the victim never played a card"
        time.sleep(0.02)
    victim.send_signal(signal.SIGKILL)
    victim.wait()
    results = finish([host, joiners[0], joiners[2]], timeout=120)
    for status, out in results:
        assert status == 0, out
        assert "was abandoned" in out and "nobody is blamed" in out
    transcripts = [tmp_path / f"p{i}.sasaki" for i in (0, 1, 3)]
    assert len({p.read_bytes() for p in transcripts}) == 1
    audited = cli("audit", "--json", str(transcripts[0]))
    assert audited.returncode == 3, audited.stdout + audited.stderr
    audit = json.loads(audited.stdout)
    assert audit["status"] == "abandoned" and audit["blame"] is None and len(audit["left"]) == 1
    assert "left (not a fault)" in audit["note"]
    killed = cli("audit", "--json", str(tmp_path / "p2.sasaki"))
    assert killed.returncode == 3 and json.loads(killed.stdout)["status"] == "incomplete"


def holds(path, kind_of_message: str) -> bool:
    """The transcript holds a record of hand 1 of this message type."""
    try:
        records, _ = frame_records(path.read_bytes())
    except OSError:
        return False
    for kind, data in records:
        try:
            body = decode_envelope(data).body if kind == KIND_ENVELOPE else None
        except MessageError:
            continue
        if body is not None and body.hand == 1 and body.type == kind_of_message:
            return True
    return False


def test_a_peer_frozen_with_sigstop_after_the_deal_forfeits_the_hand(tmp_path):
    """Issue 18's black-box check: four separately started peers, the creator's stall deadline
    10 s and answer deadline 5 s; one joiner is frozen (SIGSTOP) after the deal, until the others
    abandon it (within 25 s), then resumed (SIGCONT). The creator's transcript audits with the
    frozen seat named, the hand its forfeit and its total negative."""
    code = str(TableCode.generate())
    ready = tmp_path / "address"
    host = sasaki("host", "--bot", "--no-mdns", "--stall", "10", "--answer-deadline", "5", "--hands", "1",
                  "--seed", "1", "--interface", "127.0.0.1", "--name", "Hana", "--data-dir", str(tmp_path / "p0"),
                  "--transcript", str(tmp_path / "p0.sasaki"), "--ready-file", str(ready), "--code", code)
    address = wait_for(ready, host)
    names = ("Ito", "Jun", "Kei")
    joiners = [sasaki("join", code, "--address", address, "--bot", "--name", names[i - 1], "--seed", str(i),
                      "--interface", "127.0.0.1", "--data-dir", str(tmp_path / f"p{i}"),
                      "--transcript", str(tmp_path / f"p{i}.sasaki"))
               for i in (1, 2, 3)]
    frozen = joiners[1]
    try:
        deadline = time.monotonic() + 180
        # every peer verified the deal (each records the deal's block then): the frozen one knows its cards
        while not all(holds(tmp_path / f"p{i}.sasaki", "deck/strip") for i in range(4)):
            assert frozen.poll() is None and time.monotonic() < deadline, "the deal was never verified"
            time.sleep(0.02)
        frozen.send_signal(signal.SIGSTOP)
        stopped = time.monotonic()
        while not holds(tmp_path / "p0.sasaki", "table/abandon"):
            assert time.monotonic() < stopped + 25, "the others did not abandon the frozen peer within 25 s"
            time.sleep(0.05)
        print(f"abandoned {time.monotonic() - stopped:.1f} s after SIGSTOP")
    finally:
        frozen.send_signal(signal.SIGCONT)
    results = finish([host, *joiners], timeout=120)
    for n in (0, 1, 3):
        assert results[n][0] == 0, results[n][1]
    audited = cli("audit", "--json", str(tmp_path / "p0.sasaki"))
    assert audited.returncode == 0, audited.stdout + audited.stderr
    audit = json.loads(audited.stdout)
    assert "Jun" in audit["names"], audit["names"]
    seat = audit["names"].index("Jun")
    assert audit["status"] == "complete" and audit["blame"] is None
    (hand,) = audit["hands"]
    assert isinstance(hand, dict) and hand["forfeit"] == seat, hand
    assert audit["totals"][seat] < 0 and audit["totals"] == [-36 if s == seat else 12 for s in range(4)]
