"""Real processes on 127.0.0.1: one ``sasaki`` peer is killed with SIGKILL in the middle of
the match and started again with the very same command (no terminal: it resumes the
unfinished table in its data directory without asking); the match completes and the four
transcripts are byte-identical and audit clean. Once for a joiner (whose old port is then
taken, so it comes back on a new address), once for the creator; and once for a joiner
while strangers squat the other three peers' mesh ports (issue 18, finding 6)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from p2p_sasaki.protocol.net import Identity, TableCode
from p2p_sasaki.protocol.net.persist import unfinished_tables
from p2p_sasaki.protocol.transcript import frame_records
from tests.cli.peers import ROOT, env, finish, sasaki, wait_for
from tests.cli.test_table_processes import audit

pytestmark = pytest.mark.slow


def records(path: Path) -> int:
    try:
        return len(frame_records(path.read_bytes())[0])
    except FileNotFoundError:
        return 0


@contextmanager
def squatting(ports: list[int]) -> Iterator[None]:
    """32 connections from 8 loopback addresses on each of ``ports``, reopened the moment
    they close (tests/net/squatters.py), in a process of their own."""
    # run as a file, not "-m tests.net.squatters" from the repository root: that would put the
    # root first on sys.path, and its p2p_sasaki/ folder would hide the installed package
    process = subprocess.Popen([sys.executable, str(ROOT / "tests" / "net" / "squatters.py"), *map(str, ports)],
                               cwd=ROOT, env=env(),
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        assert process.stdout is not None and process.stdout.readline() == b"squatting\n"
        yield
    finally:
        process.kill()
        process.wait()


def kill_and_restart(tmp_path: Path, victim: int, squat: bool = False) -> None:
    code = str(TableCode.generate())
    ready = tmp_path / "address"
    argv: list[list[str]] = [["host", "--bot", "--seed", "1", "--hands", "2", "--lead", "3H", "--no-proofs",
                              "--window", "0", "--claim-window", "0", "--bot-turn", "0",   # fast (no fair pacing)
                              "--interface", "127.0.0.1", "--no-mdns", "--data-dir", str(tmp_path / "p0"),
                              "--transcript", str(tmp_path / "p0.sasaki"), "--ready-file", str(ready),
                              "--code", code]]
    processes = [sasaki(*argv[0])]
    address = wait_for(ready, processes[0])
    for i in (1, 2, 3):
        argv.append(["join", code, "--address", address, "--bot", "--seed", str(i), "--interface", "127.0.0.1",
                     "--data-dir", str(tmp_path / f"p{i}"), "--transcript", str(tmp_path / f"p{i}.sasaki")])
        processes.append(sasaki(*argv[i]))
    try:
        transcript = tmp_path / f"p{victim}.sasaki"
        deadline = time.monotonic() + 120
        while records(transcript) < 40:   # into the first hand's play
            assert processes[victim].poll() is None, processes[victim].stdout.read().decode()
            assert time.monotonic() < deadline, "the match did not get going"
            time.sleep(0.01)
        os.kill(processes[victim].pid, signal.SIGKILL)
        processes[victim].wait()
        killed_at = records(transcript)
        key = Identity((tmp_path / f"p{victim}" / "identity.key").read_bytes()).public_key
        (saved,) = unfinished_tables(tmp_path / f"p{victim}")
        blocker = None
        if victim != 0:   # its old port is taken now: it comes back on a new address
            blocker = socket.socket()
            blocker.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)   # its old connections are in TIME_WAIT
            blocker.bind(("127.0.0.1", saved.roster.member(key).port))
            blocker.listen()
        others = [member.port for member in saved.roster.members if member.key != key]
        with squatting(others) if squat else _nothing():
            time.sleep(1.0)
            processes[victim] = sasaki(*argv[victim])   # the same command again
            try:
                results = finish(processes, timeout=150)
            finally:
                if blocker is not None:
                    blocker.close()
        for status, out in results:
            assert status == 0, out
    finally:   # never leave a peer behind, whatever failed
        for process in processes:
            if process.poll() is None:
                process.kill()
    assert "Resuming table" in results[victim][1]
    transcripts = [(tmp_path / f"p{i}.sasaki").read_bytes() for i in range(4)]
    assert transcripts == [transcripts[0]] * 4
    assert len(frame_records(transcripts[0])[0]) > killed_at
    report = audit(transcript)
    assert report["ok"] and report["complete"], report


@contextmanager
def _nothing() -> Iterator[None]:
    yield


@pytest.mark.parametrize("victim", [2, 0])
def test_a_peer_killed_mid_match_is_restarted_with_the_same_command(tmp_path: Path, victim: int) -> None:
    kill_and_restart(tmp_path, victim)


def test_a_joiner_killed_and_restarted_gets_back_in_while_strangers_squat_the_others(tmp_path: Path) -> None:
    """The restarted joiner comes back on a new address, which the others cannot dial: it
    must dial in itself, through listeners that 32 connections from 8 addresses squat."""
    kill_and_restart(tmp_path, 2, squat=True)
