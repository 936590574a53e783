"""Strangers squatting a listener (issue 18, finding 6): ``ADDRESSES`` x ``PER_ADDRESS``
connections from distinct loopback addresses (127.0.0.2, 127.0.0.3, ...), each sending
``first`` (nothing by default) and then holding on, and each reopened the moment the
listener closes it. In process (``await nursery.start(squat, port)``) or as a process
for black-box tests::

    python -m tests.net.squatters PORT [PORT ...]      # runs until killed
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import trio

ADDRESSES = 8
PER_ADDRESS = 4


@dataclass
class Squatting:
    opened: int = 0
    """Connections opened so far (the first ``ADDRESSES * PER_ADDRESS`` and every reopening)."""


async def _squatter(port: int, source: str, first: bytes, squatting: Squatting) -> None:
    while True:
        try:
            stream = await trio.open_tcp_stream("127.0.0.1", port, local_address=source)
        except OSError:
            await trio.sleep(0.01)       # the listener's backlog is full: try again
            continue
        squatting.opened += 1
        async with stream:
            try:
                if first:
                    await stream.send_all(first)
                while await stream.receive_some(4096):
                    pass
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass


async def squat(port: int, first: bytes = b"", *, task_status: trio.TaskStatus[Squatting] = trio.TASK_STATUS_IGNORED,
                ) -> None:
    """Squat ``127.0.0.1:port`` until cancelled; reports its :class:`Squatting` once every
    connection was opened once."""
    squatting = Squatting()
    async with trio.open_nursery() as nursery:
        for address in range(ADDRESSES):
            for _ in range(PER_ADDRESS):
                nursery.start_soon(_squatter, port, f"127.0.0.{2 + address}", first, squatting)
        while squatting.opened < ADDRESSES * PER_ADDRESS:
            await trio.sleep(0.01)
        task_status.started(squatting)


async def _main(ports: list[int]) -> None:
    async with trio.open_nursery() as nursery:
        for port in ports:
            await nursery.start(squat, port)
        print("squatting", flush=True)


if __name__ == "__main__":
    trio.run(_main, [int(port) for port in sys.argv[1:]])
