"""Strangers squatting a listener (issue 18, finding 6): ``ADDRESSES`` x ``PER_ADDRESS``
connections from distinct loopback addresses (127.0.0.2, 127.0.0.3, ...), each sending
``first`` (nothing by default) and then holding on, and each reopened the moment the
listener closes it. ``answers``: how many frames the listener sends before it waits for
more than ``first`` (a squatter holding that many is *settled*: the listener has done its
work for it). In process (``await nursery.start(squat, port)``) or as a process
for black-box tests::

    python tests/net/squatters.py PORT [PORT ...]      # runs until killed
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

import trio

from p2p_sasaki.protocol.net.framing import FrameDecoder

ADDRESSES = 8
PER_ADDRESS = 4


@dataclass
class Squatting:
    opened: int = 0
    """Connections opened so far (the first ``ADDRESSES * PER_ADDRESS`` and every reopening)."""
    settled: set[int] = field(default_factory=set)
    """The squatters whose current connection received its ``answers``."""


async def _squatter(number: int, port: int, source: str, first: bytes, answers: int, squatting: Squatting) -> None:
    while True:
        try:
            stream = await trio.open_tcp_stream("127.0.0.1", port, local_address=source)
        except OSError:
            await trio.sleep(0.01)       # the listener's backlog is full: try again
            continue
        squatting.opened += 1
        received, decoder = 0, FrameDecoder(limit=1 << 20)
        if not answers:
            squatting.settled.add(number)
        async with stream:
            try:
                if first:
                    await stream.send_all(first)
                while data := await stream.receive_some(65536):
                    received += len(decoder.feed(data))
                    if received >= answers:
                        squatting.settled.add(number)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass
        squatting.settled.discard(number)


async def squat(port: int, first: bytes = b"", answers: int = 0, *,
                task_status: trio.TaskStatus[Squatting] = trio.TASK_STATUS_IGNORED) -> None:
    """Squat ``127.0.0.1:port`` until cancelled; reports its :class:`Squatting` once every
    squatter is settled (the listener holds them all and has answered each)."""
    squatting = Squatting()
    async with trio.open_nursery() as nursery:
        for number in range(ADDRESSES * PER_ADDRESS):
            source = f"127.0.0.{2 + number // PER_ADDRESS}"
            nursery.start_soon(_squatter, number, port, source, first, answers, squatting)
        while len(squatting.settled) < ADDRESSES * PER_ADDRESS:
            await trio.sleep(0.01)
        task_status.started(squatting)


async def _main(ports: list[int]) -> None:
    async with trio.open_nursery() as nursery:
        for port in ports:
            await nursery.start(squat, port)
        print("squatting", flush=True)


if __name__ == "__main__":
    trio.run(_main, [int(port) for port in sys.argv[1:]])
