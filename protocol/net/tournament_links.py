"""The tournament mesh's channels: one transport among all the players, carrying the
tournament's own messages, the boards' and every table's frames (docs/protocol.md,
"Tournament mesh").

A duplicate tournament (protocol/net/tournament.py) connects its P players once, by a
full mesh of all of them (protocol/net/mesh.py with the tournament's roster). Every frame
on it starts with one channel byte::

    0x00  tournament   the tournament's messages (roster signatures, table results)
    0x01  table        a table's frame (an envelope of the table the two members share
                       this round; the table's session drops another table's by its id)
    0x02  board        a board's message (protocol/board.py)

A table of four is played over a :class:`TableLink`: a
:class:`~p2p_sasaki.protocol.net.transport.Transport` that reaches only the table's other
three players and carries table frames, so the table driver (protocol/net/table.py,
``run_table``) runs unchanged over the tournament's connections: no new connection per
table and round. A frame with an unknown channel byte, or a table frame from a player who
is not at my table this round, is dropped.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import trio

from p2p_sasaki.protocol.net.transport import Transport, TransportStatistics

__all__ = ["CHANNEL_TOURNAMENT", "CHANNEL_TABLE", "CHANNEL_BOARD", "TournamentLinks", "TableLink"]

CHANNEL_TOURNAMENT = 0x00
CHANNEL_TABLE = 0x01
CHANNEL_BOARD = 0x02


class TournamentLinks:
    """Splits one running transport of the tournament into its channels.

    Run :meth:`run` (``await nursery.start(links.run)``) once the transport runs; then
    ``tournament`` and ``board`` yield ``(peer_key, frame)`` with the channel byte
    removed, and :meth:`table` gives the transport of this round's table."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport
        self._tournament_send, self.tournament = trio.open_memory_channel[tuple[bytes, bytes]](math.inf)
        self._board_send, self.board = trio.open_memory_channel[tuple[bytes, bytes]](math.inf)
        self._table: TableLink | None = None

    @property
    def key(self) -> bytes:
        return self.transport.key

    async def run(self, *, task_status: trio.TaskStatus[Any] = trio.TASK_STATUS_IGNORED) -> None:
        task_status.started()
        try:
            async for peer, frame in self.transport.received:
                channel, data = frame[0], frame[1:]
                if not data:
                    continue
                if channel == CHANNEL_TOURNAMENT:
                    self._tournament_send.send_nowait((peer, data))
                elif channel == CHANNEL_BOARD:
                    self._board_send.send_nowait((peer, data))
                elif channel == CHANNEL_TABLE:
                    table = self._table
                    if table is not None and peer in table.peers:
                        table.deliver(peer, data)
        finally:
            self._tournament_send.close()
            self._board_send.close()

    async def send(self, channel: int, key: bytes, data: bytes) -> None:
        await self.transport.send(key, bytes((channel,)) + data)

    async def broadcast(self, channel: int, data: bytes, keys: Iterable[bytes] | None = None) -> None:
        """``data`` on ``channel`` to ``keys`` (default: every other player)."""
        frame = bytes((channel,)) + data
        for key in self.transport.peers if keys is None else keys:
            if key != self.key:
                await self.transport.send(key, frame)

    def table(self, keys: Sequence[bytes]) -> TableLink:
        """The transport of my table this round (``keys``: its four players, me among them);
        it replaces the previous round's."""
        if self._table is not None:
            self._table.close()
        self._table = TableLink(self, tuple(k for k in keys if k != self.key))
        return self._table

    def stats(self) -> TransportStatistics:
        return self.transport.statistics()


class TableLink:
    """One table's :class:`~p2p_sasaki.protocol.net.transport.Transport` inside the tournament
    mesh: its frames go to (and come from) the table's other players only, on the table
    channel. Links up and down are the tournament mesh's."""

    def __init__(self, links: TournamentLinks, peers: tuple[bytes, ...]) -> None:
        self._links = links
        self._peers = peers
        self._send, self._received = trio.open_memory_channel[tuple[bytes, bytes]](math.inf)
        self._closed = trio.Event()

    @property
    def key(self) -> bytes:
        return self._links.key

    @property
    def peers(self) -> tuple[bytes, ...]:
        return self._peers

    @property
    def received(self) -> trio.MemoryReceiveChannel[tuple[bytes, bytes]]:
        return self._received

    @property
    def offline(self) -> bool:
        return bool(self._links.transport.offline)

    def deliver(self, peer: bytes, frame: bytes) -> None:
        if not self._closed.is_set():
            self._send.send_nowait((peer, frame))

    async def run(self, *, task_status: trio.TaskStatus[Any] = trio.TASK_STATUS_IGNORED) -> None:
        task_status.started()
        await self._closed.wait()

    def close(self) -> None:
        self._closed.set()
        self._send.close()

    def _check(self, key: bytes) -> None:
        if key not in self._peers:
            raise KeyError("not a player of this table")

    async def send(self, key: bytes, frame: bytes) -> None:
        self._check(key)
        await self._links.send(CHANNEL_TABLE, key, frame)

    def send_nowait(self, key: bytes, frame: bytes) -> None:
        self._check(key)
        self._links.transport.send_nowait(key, bytes((CHANNEL_TABLE,)) + frame)

    async def broadcast(self, frame: bytes) -> None:
        for key in self._peers:
            await self.send(key, frame)

    def is_connected(self, key: bytes) -> bool:
        return bool(self._links.transport.is_connected(key))

    async def wait_connected(self, keys: Iterable[bytes] | None = None) -> None:
        await self._links.transport.wait_connected(self._peers if keys is None else keys)

    async def wait_disconnected(self, key: bytes) -> None:
        await self._links.transport.wait_disconnected(key)

    def statistics(self) -> TransportStatistics:
        whole = self._links.transport.statistics()
        return TransportStatistics({k: v for k, v in whole.peers.items() if k in self._peers}, whole.refused)
