"""protocol/net/workers.py: the deck's proof jobs on worker processes give the same hand."""

from __future__ import annotations

import pytest
import trio

from p2p_sasaki.protocol.deck import DeckSession, HandDealt, ProveHop, VerifyHop, run_job
from p2p_sasaki.protocol.net.workers import ProofPool, start_jobs
from tests.protocol.helpers import Table

FAST = dict(n_cards=12)


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
            for (session, job), result in zip(jobs, pool.map(job for _, job in jobs)):
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
                        dealt.extend(e.seat for e in table.events[s] if isinstance(e, HandDealt) and e.seat not in dealt)
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
