"""Proof work on every core: a pool of worker processes running the deck's pure jobs.

The deck session never touches the pool: it hands out jobs (:meth:`DeckSession.take_jobs`,
each a pure :func:`~p2p_sasaki.protocol.deck.run_job`) and takes results back
(:meth:`DeckSession.finish_job`). The driver owns both ends::

    with ProofPool() as pool:                       # one per process, started once
        ...
        async with trio.open_nursery() as nursery:
            ...
            # after every call into the session (receive, act, finish_job):
            start_jobs(nursery, pool, deck, on_done=flush)  # flush: events, then outbox

:func:`start_jobs` runs each job in a worker process and calls ``deck.finish_job`` on
the trio thread when it is done, then ``on_done()``, so the session is only ever touched
by the task that owns it (trio is single-threaded). Jobs of one seat run side by side:
its own argument and the verification of the others' as they arrive, while the session
goes on taking messages (the next hop is made at once). Worker processes, not threads:
the group operations hold the GIL (ctypes calls into libsodium are short).

Processes are started with ``spawn`` (the same on Linux, macOS and Windows, and safe in a
program that already runs threads); each imports only the deck and crypto modules, once.
A worker never outlives its peer: a thread in it waits on the parent's sentinel
(:func:`multiprocessing.parent_process`: a pipe the parent holds open, or its process handle
on Windows) and ends the worker when the peer is gone, SIGKILL included.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterable
from types import TracebackType
from typing import TYPE_CHECKING, Protocol

import trio

from p2p_sasaki.protocol.deck import DeckJob, JobResult, run_job

# multiprocessing and concurrent.futures are imported where a pool starts (and in its
# workers), not here: a peer proving in its own process (--proof-workers 0) never loads them.
if TYPE_CHECKING:
    import multiprocessing.process
    from concurrent.futures import Future


class JobSource(Protocol):
    """What hands out deck jobs: a DeckSession, or a table session that forwards to its
    deck (and, in finish_job, pumps the deck's messages and events as its step() does)."""

    def take_jobs(self) -> list[DeckJob]: ...

    def finish_job(self, job: DeckJob, result: JobResult) -> None: ...


def _start_worker() -> None:
    """Each worker's initializer. A Ctrl-C on the terminal reaches the whole process group,
    but only the peer's process decides what an interrupt means (it closes the pool); a
    worker must not die with a traceback of its own on the player's screen. And a worker
    whose peer died without closing the pool (SIGKILL, a crash) must not run on: the
    executor's queues cannot tell, since the worker holds both ends of them."""
    import multiprocessing

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with, args=(parent,), name="parent-watch", daemon=True).start()


def _exit_with(parent: multiprocessing.process.BaseProcess) -> None:
    parent.join()          # returns when the parent's sentinel fires: the peer is gone
    os._exit(1)


def _warm_up() -> int:
    """Run in each worker at start: import the group and derive the 48-card generators."""
    from p2p_sasaki.protocol import crypto

    crypto.shuffle_generators(48)
    return os.getpid()


def quiet_resource_tracker() -> None:
    """Start multiprocessing's resource tracker now, with its stderr on the null device.

    The pool's queues hold named semaphores (the ``spawn`` start method), which the tracker,
    a helper process that outlives the peer, unlinks if the peer could not: after a SIGKILL
    it does so and warns, "resource_tracker: There appear to be 5 leaked semaphore objects to
    clean up at shutdown", on the player's terminal, which it shares. The clean-up is kept;
    the warning, which says only that the peer was killed, goes nowhere. The tracker takes
    file descriptor 2 as it is when it starts, so call this while the process has one thread
    (``sasaki`` does, before its event loop): fds 1 and 2 point at the null device for that
    moment."""
    if sys.platform == "win32":     # no named semaphores there: nothing is tracked
        return
    from multiprocessing import resource_tracker

    sys.stdout.flush()
    sys.stderr.flush()
    # stdout too: the tracker never writes there, and holding a caller's pipe open it would
    # keep a script that reads this command's output waiting until it exits
    saved, null = (os.dup(1), os.dup(2)), os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        os.dup2(null, 2)
        resource_tracker.ensure_running()
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(saved[0])
        os.close(saved[1])
        os.close(null)


class ProofPool:
    """Worker processes for deck jobs: ``workers`` defaults to every core of the machine."""

    def __init__(self, workers: int | None = None) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self.workers = workers or os.cpu_count() or 1
        self._executor = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_start_worker)
        # start every process now (the first job should not pay for an interpreter start)
        for future in [self._executor.submit(_warm_up) for _ in range(self.workers)]:
            future.result()

    def submit(self, job: DeckJob) -> Future[JobResult]:
        """Run ``job`` in a worker; a :class:`concurrent.futures.Future` of its result."""
        return self._executor.submit(run_job, job)

    def map(self, jobs: Iterable[DeckJob]) -> list[JobResult]:
        """Run jobs side by side and wait for all (benchmarks, tests, a batch audit)."""
        return [future.result() for future in [self.submit(job) for job in jobs]]

    async def run(self, job: DeckJob) -> JobResult:
        """Run ``job`` in a worker without blocking the trio thread."""
        future = self.submit(job)
        return await trio.to_thread.run_sync(future.result, abandon_on_cancel=True)

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> ProofPool:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


def start_jobs(nursery: trio.Nursery, pool: ProofPool, deck: JobSource, on_done: Callable[[], None]) -> int:
    """Start every job the deck has queued on the pool; each result goes back through
    ``deck.finish_job`` on the trio thread, followed by ``on_done()`` (the driver handles the
    deck's events and sends its outbox there). Returns how many jobs were started. Call it
    after every call into the session that may queue work (receive, finish_job)."""
    jobs = deck.take_jobs()
    for job in jobs:
        nursery.start_soon(_run_one, pool, deck, job, on_done)
    return len(jobs)


async def _run_one(pool: ProofPool, deck: JobSource, job: DeckJob, on_done: Callable[[], None]) -> None:
    result = await pool.run(job)
    deck.finish_job(job, result)
    on_done()
