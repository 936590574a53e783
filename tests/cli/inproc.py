"""``sasaki`` commands run in the test process: the same parser, the same entry, the same
closing sentence and exit status as the command line, without an interpreter start each
(about 0.55 s of CPU: trio, cryptography and the package imported again).

* :func:`cli` runs a command that needs no trio (``audit``, ``export``, ``replay``) through
  ``main(argv)`` and returns what ``subprocess.run(..., capture_output=True, text=True)``
  would: the status, stdout and stderr.
* :func:`command` runs a table command (``host``, ``join``, ``resume``) as a trio task of the
  test's own run: peers on 127.0.0.1 as tasks of one process, each with its output kept apart
  (``print`` writes to the task's own buffer, through :class:`_PerTask`).

Where the process is the subject (a signal, a terminal, a real exit status, the proof
workers, ``sasaki demo``'s four processes), the tests keep a real process (tests/cli/peers.py).
"""

from __future__ import annotations

import contextlib
import contextvars
import io
import signal
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TextIO

import trio

_streams: contextvars.ContextVar[tuple[TextIO, TextIO] | None] = contextvars.ContextVar("sasaki_streams",
                                                                                        default=None)


class _PerTask(io.TextIOBase):
    """``sys.stdout`` / ``sys.stderr`` while in-process commands run: a write goes to the
    running task's own stream (a context variable, which trio tasks and their threads inherit)
    and, outside any command, to the stream that was there before."""

    def __init__(self, index: int, before: TextIO) -> None:
        self.index, self.before = index, before

    def _target(self) -> TextIO:
        streams = _streams.get()
        return self.before if streams is None else streams[self.index]

    def write(self, text: str) -> int:
        return self._target().write(text)

    def flush(self) -> None:
        self._target().flush()

    def isatty(self) -> bool:
        return False


_users = 0   # commands running now: sys.stdout and sys.stderr are restored when the last one ends
_before: tuple[TextIO, TextIO] | None = None


@contextlib.contextmanager
def _per_task_streams() -> Iterator[None]:
    global _users, _before
    if _users == 0:
        _before = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = _PerTask(0, _before[0]), _PerTask(1, _before[1])
    _users += 1
    try:
        yield
    finally:
        _users -= 1
        if _users == 0 and _before is not None:
            sys.stdout, sys.stderr = _before
            _before = None


@contextlib.contextmanager
def _keep_hang_up() -> Iterator[None]:
    """``main()`` makes a closed terminal (SIGHUP) an interrupt of the command: not of pytest."""
    handler = signal.getsignal(signal.SIGHUP) if hasattr(signal, "SIGHUP") else None
    try:
        yield
    finally:
        if handler is not None:
            signal.signal(signal.SIGHUP, handler)


PEERS = ("host", "join", "resume", "play")   # the commands with --proof-workers (cli/common.py)


def _in_process(argv: list[str]) -> list[str]:
    """A peer's proofs made in its own thread of work, as every ``sasaki`` process the tests
    start makes them (tests/cli/peers.py: SASAKI_PROOF_WORKERS=0): a pool would start worker
    processes, which is what running in this process avoids."""
    if argv and argv[0] in PEERS and not any(a.startswith("--proof-workers") for a in argv):
        return [*argv, "--proof-workers", "0"]
    return argv


def cli(*argv: str) -> subprocess.CompletedProcess[str]:
    """``sasaki ARGV`` in this process, from synchronous code (a command with trio runs its own
    ``trio.run``): status, stdout, stderr, as ``subprocess.run(capture_output=True)``."""
    from p2p_sasaki.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with _per_task_streams(), _keep_hang_up():
        token = _streams.set((out, err))
        try:
            status = main(_in_process(list(argv)))
        except SystemExit as stop:   # argparse's usage errors
            status = stop.code if isinstance(stop.code, int) else 1
        finally:
            _streams.reset(token)
    return subprocess.CompletedProcess(["sasaki", *argv], status, out.getvalue(), err.getvalue())


def _entries() -> dict[str, Callable[[Any], Awaitable[int]]]:
    from p2p_sasaki.cli import host, join, resume

    return {"host": host.host, "join": join.join, "resume": resume.resume}


@dataclass
class Command:
    """One table command running as a task: its output so far, and its status once ended."""

    argv: list[str]
    out: io.StringIO = field(default_factory=io.StringIO)
    err: io.StringIO = field(default_factory=io.StringIO)
    status: int | None = None
    done: trio.Event = field(default_factory=trio.Event)

    def text(self) -> str:
        """stdout and stderr, as a process run with ``stderr=STDOUT`` would show them (the
        closing sentence, on stderr, last)."""
        return self.out.getvalue() + self.err.getvalue()

    async def wait(self) -> int:
        await self.done.wait()
        assert self.status is not None
        return self.status


async def command(argv: list[str], task_status: Any = trio.TASK_STATUS_IGNORED) -> Command:
    """Run ``sasaki ARGV`` (host, join or resume) in this trio run, as the command line runs it:
    its exit status and closing sentence for every way it ends that is not a bug (a bug raises).
    ``nursery.start(command, argv)`` returns the :class:`Command` at once, to watch or wait on."""
    from p2p_sasaki.cli.common import explain, refuse_fast_with_person, say_error
    from p2p_sasaki.cli.main import build_parser, command_of
    from p2p_sasaki.cli.pairs import refuse_pairs_for_sasaki

    running = Command(_in_process(list(argv)))
    with _per_task_streams():
        token = _streams.set((running.out, running.err))   # this task's and its children's output
        try:
            task_status.started(running)
            args = build_parser(only=command_of(running.argv)).parse_args(running.argv)
            if args.command == "host" and (refuse_fast_with_person(args) or refuse_pairs_for_sasaki(args)):
                running.status = 2   # as cli/host.py's run: a usage error before anything starts
                return running
            # 'host --demo' sets a flag of its whole process (cli/common.py's demo_peer): not here
            assert not getattr(args, "demo", False), "run 'sasaki host --demo' as a process"
            try:
                running.status = await _entries()[args.command](args)
            except BaseException as error:   # as cli/common.py's run_async
                explained = explain(error)
                if explained is None:
                    raise
                running.status, sentence = explained
                say_error(sentence)
        finally:
            _streams.reset(token)
            running.done.set()
    return running


async def play(*argvs: list[str], deadline: float = 120) -> list[Command]:
    """Run these table commands side by side until all have ended (each as :func:`command`);
    the test fails after ``deadline`` seconds rather than hang."""
    commands: list[Command] = []
    with trio.fail_after(deadline):
        async with trio.open_nursery() as nursery:
            for argv in argvs:
                commands.append(await nursery.start(command, argv))
    return commands
