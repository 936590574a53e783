"""Real processes on 127.0.0.1: one ``sasaki`` peer is killed with SIGKILL in the middle of
the match and started again with the very same command (no terminal: it resumes the
unfinished table in its data directory without asking); the match completes and the four
transcripts are byte-identical and audit clean. Once for a joiner (whose old port is then
taken, so it comes back on a new address), once for the creator; and once for a joiner
while strangers squat the other three peers' mesh ports (issue 18, finding 6). The killed
peer is a process (SIGKILL is the point); the three that wait for it and take it back are
commands in this process (tests/cli/inproc.py), which saves three interpreter starts a test."""

from __future__ import annotations

import functools
import os
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import trio

from p2p_sasaki.protocol.net import Identity, TableCode
from p2p_sasaki.protocol.net.persist import unfinished_tables
from p2p_sasaki.protocol.transcript import frame_records
from tests.cli.inproc import Command, command
from tests.cli.peers import ROOT, env, sasaki
from tests.cli.test_table_processes import audit

pytestmark = pytest.mark.slow


def records(path: Path) -> int:
    try:
        return len(frame_records(path.read_bytes())[0])
    except FileNotFoundError:
        return 0


@asynccontextmanager
async def squatting(ports: list[int]) -> AsyncIterator[None]:
    """32 connections from 8 loopback addresses on each of ``ports``, reopened the moment
    they close (tests/net/squatters.py), in a process of their own."""
    # run as a file, not "-m tests.net.squatters" from the repository root: that would put the
    # root first on sys.path, and its p2p_sasaki/ folder would hide the installed package
    process = subprocess.Popen([sys.executable, str(ROOT / "tests" / "net" / "squatters.py"), *map(str, ports)],
                               cwd=ROOT, env=env(),
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        assert process.stdout is not None
        assert await trio.to_thread.run_sync(process.stdout.readline) == b"squatting\n"
        yield
    finally:
        process.kill()
        process.wait()


async def kill_and_restart(tmp_path: Path, victim: int, squat: bool = False) -> None:
    """The victim is a ``sasaki`` process (SIGKILL, then the same command again); the three
    others, whose part is to wait for it and take it back, run in this process
    (tests/cli/inproc.py), as trio tasks beside the test."""
    code = str(TableCode.generate())
    ready = tmp_path / "address"
    argv: list[list[str]] = [["host", "--bot", "--seed", "1", "--hands", "2", "--lead", "3H", "--no-proofs",
                              "--window", "0", "--claim-window", "0", "--bot-turn", "0",   # fast (no fair pacing)
                              "--interface", "127.0.0.1", "--no-mdns", "--data-dir", str(tmp_path / "p0"),
                              "--transcript", str(tmp_path / "p0.sasaki"), "--ready-file", str(ready),
                              "--code", code]]
    process: subprocess.Popen[bytes] | None = None
    others: dict[int, Command] = {}
    with trio.fail_after(300):
        async with trio.open_nursery() as nursery:
            try:
                process, others = await _start(nursery, tmp_path, argv, victim, code, ready)
                transcript = tmp_path / f"p{victim}.sasaki"
                with trio.fail_after(120):   # "the match did not get going"
                    while records(transcript) < 40:   # into the first hand's play
                        assert process.poll() is None, process.stdout.read().decode() if process.stdout else ""
                        await trio.sleep(0.01)
                os.kill(process.pid, signal.SIGKILL)
                process.wait()
                killed_at = records(transcript)
                key = Identity((tmp_path / f"p{victim}" / "identity.key").read_bytes()).public_key
                (saved,) = unfinished_tables(tmp_path / f"p{victim}")
                blocker = None
                if victim != 0:   # its old port is taken now: it comes back on a new address
                    blocker = socket.socket()
                    blocker.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)   # old connections: TIME_WAIT
                    blocker.bind(("127.0.0.1", saved.roster.member(key).port))
                    blocker.listen()
                ports = [member.port for member in saved.roster.members if member.key != key]
                async with squatting(ports) if squat else _nothing():
                    await trio.sleep(1.0)
                    process = sasaki(*argv[victim])   # the same command again
                    try:
                        out, _ = await trio.to_thread.run_sync(functools.partial(process.communicate, timeout=150))
                        for peer in others.values():
                            await peer.wait()
                    finally:
                        if blocker is not None:
                            blocker.close()
            finally:   # never leave a peer behind, whatever failed
                if process is not None and process.poll() is None:
                    process.kill()
                    process.wait()
    assert process.returncode == 0, out.decode()
    for peer in others.values():
        assert peer.status == 0, peer.text()
    assert "Resuming table" in out.decode()
    transcripts = [(tmp_path / f"p{i}.sasaki").read_bytes() for i in range(4)]
    assert transcripts == [transcripts[0]] * 4
    assert len(frame_records(transcripts[0])[0]) > killed_at
    report = audit(transcript)
    assert report["ok"] and report["complete"], report


async def _start(nursery: trio.Nursery, tmp_path: Path, argv: list[list[str]], victim: int, code: str,
                 ready: Path) -> tuple[subprocess.Popen[bytes], dict[int, Command]]:
    """The creator, then (at its address) the three joiners: the victim as a process, the
    others as commands in this process."""
    process: subprocess.Popen[bytes] | None = None
    others: dict[int, Command] = {}
    for i in range(4):
        if i == 1:
            with trio.fail_after(20):   # "the creator's address did not appear"
                while not ready.exists():
                    assert process is None or process.poll() is None, process.stdout.read().decode()
                    await trio.sleep(0.05)
            address = ready.read_text().strip()
        if i > 0:
            argv.append(["join", code, "--address", address, "--bot", "--seed", str(i), "--interface", "127.0.0.1",
                         "--data-dir", str(tmp_path / f"p{i}"), "--transcript", str(tmp_path / f"p{i}.sasaki")])
        if i == victim:
            process = sasaki(*argv[i])
        else:
            others[i] = await nursery.start(command, argv[i])
    assert process is not None
    return process, others


@asynccontextmanager
async def _nothing() -> AsyncIterator[None]:
    yield


@pytest.mark.parametrize("victim", [2, 0])
async def test_a_peer_killed_mid_match_is_restarted_with_the_same_command(tmp_path: Path, victim: int,
                                                                          no_fsync: list[int]) -> None:
    await kill_and_restart(tmp_path, victim)


async def test_a_joiner_killed_and_restarted_gets_back_in_while_strangers_squat_the_others(
        tmp_path: Path, no_fsync: list[int]) -> None:
    """The restarted joiner comes back on a new address, which the others cannot dial: it
    must dial in itself, through listeners that 32 connections from 8 addresses squat."""
    await kill_and_restart(tmp_path, 2, squat=True)
