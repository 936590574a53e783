"""protocol/net/workers.py: the deck's proof jobs on worker processes give the same hand."""

from __future__ import annotations

import subprocess
import sys
import time
from typing import Any

import pytest
import trio

from p2p_sasaki.protocol.deck import DeckSession, HandDealt, ProveHop, VerifyHop, run_job
from p2p_sasaki.protocol.net.workers import ProofPool, start_jobs
from tests.protocol.helpers import Table

FAST: dict[str, Any] = dict(n_cards=12)


def test_jobs_run_anywhere_give_the_bytes_of_step():
    """Without a pool: hand every job out, run them in a batch, in reverse order."""
    reference = Table(seed=b"jobs", **FAST)
    reference.start()
    table = Table(seed=b"jobs", **FAST)
    for s, session in enumerate(table.sessions):
        table.post(s, session.start())
    kinds = set()
    while True:
        table.collect()
        if table.wire:
            table.deliver(*table.wire.popleft())
            continue
        jobs = [(session, job) for session in table.sessions for job in session.take_jobs()]
        if not jobs:
            break
        kinds |= {type(job) for _, job in jobs}
        for session, job in reversed(jobs):
            assert session.jobs_out > 0
            session.finish_job(job, run_job(job))
    assert kinds == {ProveHop, VerifyHop}
    assert sorted(table.sent) == sorted(reference.sent)  # the same messages, byte for byte
    assert all(session.hand is not None and session.jobs_out == 0 for session in table.sessions)


def test_finish_job_takes_only_a_job_it_handed_out():
    table = Table(seed=b"jobs", **FAST)
    for s, session in enumerate(table.sessions):
        table.post(s, session.start())
    while table.wire or not any(session._jobs for session in table.sessions):
        table.collect()
        table.deliver(*table.wire.popleft())
    session = next(session for session in table.sessions if session._jobs)
    (job,) = session.take_jobs()[:1]
    result = run_job(job)
    session.finish_job(job, result)
    from p2p_sasaki.protocol.deck import DeckUsageError

    with pytest.raises(DeckUsageError):
        session.finish_job(job, result)


@pytest.mark.slow
def test_a_pool_of_processes_deals_the_same_hand():
    reference = Table(seed=b"pool", **FAST)
    reference.start()
    table = Table(seed=b"pool", **FAST)
    with ProofPool(2) as pool:
        assert pool.workers == 2
        for s, session in enumerate(table.sessions):
            table.post(s, session.start())
        while True:
            table.collect()
            if table.wire:
                table.deliver(*table.wire.popleft())
                continue
            jobs = [(session, job) for session in table.sessions for job in session.take_jobs()]
            if not jobs:
                break
            for (session, job), result in zip(jobs, pool.map(job for _, job in jobs), strict=False):
                session.finish_job(job, result)
    assert sorted(table.sent) == sorted(reference.sent)  # the same messages, byte for byte


@pytest.mark.slow
async def test_start_jobs_finishes_on_the_trio_thread_and_the_table_deals():
    table = Table(seed=b"trio", **FAST)
    dealt: list[int] = []
    with ProofPool(2) as pool:
        async with trio.open_nursery() as nursery:

            def pump() -> None:
                while True:
                    table.collect()
                    for s in range(table.n):
                        dealt.extend(e.seat for e in table.events[s]
                                     if isinstance(e, HandDealt) and e.seat not in dealt)
                    if not table.wire:
                        break
                    table.deliver(*table.wire.popleft())
                for session in table.sessions:
                    start_jobs(nursery, pool, session, on_done=pump)

            for s, session in enumerate(table.sessions):
                table.post(s, session.start())
            pump()
    assert sorted(dealt) == [0, 1, 2, 3]
    assert all(isinstance(session, DeckSession) and session.deal_verified for session in table.sessions)


_POOL_THEN_WAIT = """
import multiprocessing, sys, time
from p2p_sasaki.protocol.net.workers import ProofPool
pool = ProofPool(2)
print(" ".join(str(p.pid) for p in multiprocessing.active_children()), flush=True)
time.sleep(60)
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"   # a zombie is dead
    except FileNotFoundError:
        return False


@pytest.mark.slow
def test_the_workers_exit_when_their_peer_is_killed():
    """A peer SIGKILLed with its pool open (no close, no shutdown): its workers notice their
    parent is gone and exit at once instead of running on as orphans."""
    # -P: the checkout's p2p_sasaki/ folder (the working directory) must not shadow the install
    peer = subprocess.Popen([sys.executable, "-P", "-c", _POOL_THEN_WAIT], stdout=subprocess.PIPE, text=True)
    try:
        assert peer.stdout is not None
        workers = [int(pid) for pid in peer.stdout.readline().split()]
        assert len(workers) == 2 and all(_alive(pid) for pid in workers)
    finally:
        peer.kill()
        peer.wait()
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in workers)


_POOL_THEN_KILL = """
import os, signal, sys
from p2p_sasaki.protocol.net.workers import ProofPool, quiet_resource_tracker
if __name__ == "__main__":
    if sys.argv[1] == "quiet":
        quiet_resource_tracker()
        from multiprocessing import resource_tracker
        tracker = resource_tracker._resource_tracker._pid
        print(*(os.readlink(f"/proc/{tracker}/fd/{fd}") for fd in (1, 2)), flush=True)
    pool = ProofPool(1)
    os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.slow
def test_a_killed_peer_leaves_no_resource_tracker_warning_on_the_terminal(tmp_path):
    """Issue 20: after a SIGKILL the terminal showed Python's "resource_tracker: There appear
    to be 5 leaked semaphore objects" (the pool's queues are named semaphores; the tracker,
    which shares the peer's stderr, cleans them up and warns). Started quietly (as ``sasaki``
    does), it still cleans up and says nothing; the control shows the warning's cause."""
    script = tmp_path / "peer.py"
    script.write_text(_POOL_THEN_KILL)

    def killed(mode: str) -> tuple[str, str]:
        run = subprocess.run([sys.executable, "-P", str(script), mode], capture_output=True, text=True, timeout=60)
        assert run.returncode == -9
        return run.stdout, run.stderr

    assert "leaked semaphore objects" in killed("loud")[1]     # the cause: the pool, killed
    # quiet: nothing said, and the tracker holds neither of the caller's pipes (a script that
    # reads sasaki's output is not kept waiting by it)
    assert killed("quiet") == ("/dev/null /dev/null\n", "")
