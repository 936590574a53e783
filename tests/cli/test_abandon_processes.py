"""Four ``sasaki`` peers on 127.0.0.1; one is SIGKILLed for good during the match. The
other three wait for it, get the (short, ``--stall``) stall deadline, abandon as bots do,
and exit cleanly; their transcripts are identical and ``sasaki audit`` says ``abandoned``,
naming the killed seat only as having left (exit status 3). And issue 18's black-box check:
one frozen with SIGSTOP after the deal forfeits the hand. The peer the signal hits is a
process (SIGKILL, SIGSTOP are the point); the three that wait for it and abandon it are
commands in this process, as are the audits (tests/cli/inproc.py): three interpreter starts
fewer a test."""

from __future__ import annotations

import json
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
import trio

from p2p_sasaki.protocol.messages import MessageError, decode_envelope
from p2p_sasaki.protocol.net import TableCode
from p2p_sasaki.protocol.transcript import KIND_ENVELOPE, frame_records
from tests.cli.inproc import Command, cli, command
from tests.cli.peers import sasaki

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


async def wait_until(condition: Callable[[], bool], victim: subprocess.Popen[bytes], seconds: float,
                     failure: str) -> None:
    """Poll ``condition`` (a transcript on disk) while the victim runs, for at most ``seconds``."""
    with trio.move_on_after(seconds) as scope:
        while not condition():
            assert victim.poll() is None, failure
            await trio.sleep(0.02)
    assert not scope.cancelled_caught, failure


async def table(nursery: trio.Nursery, tmp_path: Path, host: list[str], joiners: list[list[str]],
                victim: int) -> tuple[subprocess.Popen[bytes], dict[int, Command]]:
    """The creator (``host``, peer 0) and its three joiners (``joiners[i - 1]`` is peer i, its
    code and address appended): peer ``victim`` as a process, the others as commands here."""
    code = str(TableCode.generate())
    ready = tmp_path / "address"
    others = {0: await nursery.start(command, [*host, "--ready-file", str(ready), "--code", code])}
    with trio.fail_after(20):   # "the creator's address did not appear"
        while not ready.exists():
            assert others[0].status is None, others[0].text()
            await trio.sleep(0.02)
    address = ready.read_text().strip()
    process = None
    for i, argv in enumerate(joiners, 1):
        argv = ["join", code, "--address", address, *argv]
        if i == victim:
            process = sasaki(*argv)
        else:
            others[i] = await nursery.start(command, argv)
    assert process is not None
    return process, others


def peer_args(i: int, tmp_path: Path) -> list[str]:
    return ["--interface", "127.0.0.1", "--data-dir", str(tmp_path / f"p{i}"),
            "--transcript", str(tmp_path / f"p{i}.sasaki")]


async def test_three_processes_abandon_a_sigkilled_peer_and_exit_cleanly(tmp_path, no_fsync):
    pace = ["--window", "0.2", "--claim-window", "0.2", "--bot-turn", "0.2", "--answer-deadline", "1",
            "--stall", "3", "--no-proofs"]
    host = ["host", "--bot", "--seed", "1", "--hands", "2", "--lead", "3H", "--no-mdns", *pace, *peer_args(0, tmp_path)]
    joiners = [["--bot", "--seed", str(i), *peer_args(i, tmp_path)] for i in (1, 2, 3)]
    victim = None
    with trio.fail_after(300):
        async with trio.open_nursery() as nursery:
            try:
                victim, others = await table(nursery, tmp_path, host, joiners, victim=2)
                await wait_until(lambda: played(tmp_path / "p2.sasaki"), victim, 120, "the victim never played a card")
                victim.send_signal(signal.SIGKILL)
                victim.wait()
                for peer in others.values():
                    await peer.wait()
            finally:   # never leave a peer behind, whatever failed
                if victim is not None and victim.poll() is None:
                    victim.kill()
                    victim.wait()
    for peer in others.values():
        assert peer.status == 0, peer.text()
        assert "was abandoned" in peer.text() and "nobody is blamed" in peer.text()
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


async def test_a_peer_frozen_with_sigstop_after_the_deal_forfeits_the_hand(tmp_path, no_fsync):
    """Issue 18's black-box check: four separately started peers, the creator's stall deadline
    10 s and answer deadline 5 s; one joiner (a process of its own) is frozen (SIGSTOP) after
    the deal, until the others abandon it (within 25 s), then resumed (SIGCONT). The creator's
    transcript audits with the frozen seat named, the hand its forfeit and its total negative.
    Without shuffle proofs: the freeze comes after the deal, whatever the deal proves."""
    host = ["host", "--bot", "--no-mdns", "--stall", "10", "--answer-deadline", "5", "--hands", "1", "--seed", "1",
            "--name", "Hana", "--no-proofs", *peer_args(0, tmp_path)]
    names = ("Ito", "Jun", "Kei")
    joiners = [["--bot", "--name", names[i - 1], "--seed", str(i), *peer_args(i, tmp_path)] for i in (1, 2, 3)]
    frozen = None
    with trio.fail_after(300):
        async with trio.open_nursery() as nursery:
            try:
                frozen, others = await table(nursery, tmp_path, host, joiners, victim=2)
                # every peer verified the deal (each records the deal's block then): the frozen one knows its cards
                await wait_until(lambda: all(holds(tmp_path / f"p{i}.sasaki", "deck/strip") for i in range(4)), frozen,
                                 180, "the deal was never verified")
                frozen.send_signal(signal.SIGSTOP)
                stopped = trio.current_time()
                with trio.move_on_after(25) as scope:   # the others abandon the frozen peer
                    while not holds(tmp_path / "p0.sasaki", "table/abandon"):
                        await trio.sleep(0.05)
                assert not scope.cancelled_caught, "the others did not abandon the frozen peer within 25 s"
                print(f"abandoned {trio.current_time() - stopped:.1f} s after SIGSTOP")
                frozen.send_signal(signal.SIGCONT)
                out, _ = await trio.to_thread.run_sync(lambda: frozen.communicate(timeout=120))
                for peer in others.values():
                    await peer.wait()
            finally:   # never leave a peer behind (nor frozen), whatever failed
                if frozen is not None and frozen.poll() is None:
                    frozen.send_signal(signal.SIGCONT)
                    frozen.kill()
                    frozen.wait()
    for peer in others.values():
        assert peer.status == 0, peer.text()
    audited = cli("audit", "--json", str(tmp_path / "p0.sasaki"))
    assert audited.returncode == 0, audited.stdout + audited.stderr
    audit = json.loads(audited.stdout)
    assert "Jun" in audit["names"], audit["names"]
    seat = audit["names"].index("Jun")
    assert audit["status"] == "complete" and audit["blame"] is None
    (hand,) = audit["hands"]
    assert isinstance(hand, dict) and hand["forfeit"] == seat, hand
    assert audit["totals"][seat] < 0 and audit["totals"] == [-36 if s == seat else 12 for s in range(4)]
