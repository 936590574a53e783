"""What every :class:`~p2p_sasaki.protocol.net.transport.Transport` promises (its module
docstring), checked by behaviour, once for each transport: the in-memory network in virtual
time (``memory``, the fast tier) and the TCP mesh on 127.0.0.1 (``mesh``, slow: real
sockets). The same test body runs over both; only :class:`Members` knows which it drives.
Each transport's own extras are tested beside it: tests/net/test_memory.py (hostile links,
unplugging, seeded fates) and tests/net/test_mesh.py (handshakes, impostors, dialing)."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Protocol

import pytest
import trio
import trio.testing

from p2p_sasaki.protocol.net.identity import Identity, TableMember, TableRoster
from p2p_sasaki.protocol.net.memory import MemoryNetwork
from p2p_sasaki.protocol.net.mesh import Backoff, Mesh
from p2p_sasaki.protocol.net.transport import Transport

MEMBER_NONCE = bytes(range(200, 232))
FRAME_LIMIT = 64
# Quick redials for the mesh; heartbeat and dead_after stay at their defaults, so a busy
# machine does not see a live link as dead.
MESH_OPTIONS: dict[str, Any] = dict(backoff=Backoff(initial=0.05, maximum=0.2), max_frame_size=FRAME_LIMIT)


class Controlled(Transport, Protocol):
    """A transport with the test controls both transports have (beyond the interface)."""

    def drop_connection(self, key: bytes) -> None: ...

    def go_offline(self) -> None: ...

    def go_online(self) -> None: ...


@pytest.fixture(params=["memory", pytest.param("mesh", marks=pytest.mark.slow)])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def clock(kind: str) -> trio.testing.MockClock | None:
    """Virtual time for the in-memory network (pytest-trio runs the test on it); real time
    for real sockets."""
    return trio.testing.MockClock(autojump_threshold=0) if kind == "memory" else None


class Members:
    """``n`` members of one table, each with its transport of ``kind``, started, stopped and
    started again (a crashed process) by index."""

    def __init__(self, kind: str, n: int, nursery: trio.Nursery) -> None:
        self.kind = kind
        self.nursery = nursery
        self.identities = sorted((Identity.generate() for _ in range(n)), key=lambda i: i.public_key)
        self.keys = [identity.public_key for identity in self.identities]
        self.transports: list[Controlled | None] = [None] * n
        self.stopped = [trio.Event() for _ in range(n)]
        self.network = MemoryNetwork(self.keys, max_frame_size=FRAME_LIMIT) if kind == "memory" else None
        self.listeners: list[list[trio.SocketListener]] = []
        self.roster: TableRoster | None = None

    async def open(self) -> None:
        if self.kind == "mesh":
            self.listeners = [await trio.open_tcp_listeners(0, host="127.0.0.1") for _ in self.keys]
            members = tuple(TableMember(key, "127.0.0.1", listeners[0].socket.getsockname()[1], MEMBER_NONCE)
                            for key, listeners in zip(self.keys, self.listeners, strict=True))
            self.roster = TableRoster(secrets.token_bytes(32), members)

    def transport(self, i: int) -> Controlled:
        transport = self.transports[i]
        assert transport is not None
        return transport

    async def start(self, i: int) -> Controlled:
        """Start member ``i``: the first time on its open listener, later on its roster address."""
        again = self.transports[i] is not None
        self.stopped[i] = trio.Event()
        if self.network is not None:
            memory = self.network.restart(self.keys[i]) if again else self.network.transport(self.keys[i])
            self.transports[i] = memory
            await self.nursery.start(self._run, i, memory.run)
            return memory
        assert self.roster is not None
        mesh = Mesh(self.identities[i], self.roster, **MESH_OPTIONS)
        self.transports[i] = mesh
        listeners = None if again else self.listeners[i]
        await self.nursery.start(self._run, i, lambda task_status: mesh.run(listeners, task_status=task_status))
        return mesh

    async def _run(self, i: int, run: Any, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        try:
            await run(task_status=task_status)
        finally:
            self.stopped[i].set()

    async def stop(self, i: int) -> None:
        """Close member ``i``'s transport and wait until it has stopped."""
        self.transport(i).close()
        await self.stopped[i].wait()


@asynccontextmanager
async def table(kind: str, n: int) -> AsyncIterator[Members]:
    """``n`` members, all started and connected; every transport closed after the block."""
    async with trio.open_nursery() as nursery:
        members = Members(kind, n, nursery)
        await members.open()
        for i in range(n):
            await members.start(i)
        with trio.fail_after(10):
            for i in range(n):
                await members.transport(i).wait_connected()
        yield members
        nursery.cancel_scope.cancel()


async def receive(transport: Transport, count: int) -> list[tuple[bytes, bytes]]:
    with trio.fail_after(10):
        return [await transport.received.receive() for _ in range(count)]


async def test_every_member_reaches_every_other_and_the_counts_agree(kind: str, clock: Any) -> None:
    async with table(kind, 3) as members:
        keys = members.keys
        for i in range(3):
            transport = members.transport(i)
            assert transport.key == keys[i] and sorted(transport.peers) == sorted(k for k in keys if k != keys[i])
            assert isinstance(transport, Transport)
        for i in range(3):
            await members.transport(i).broadcast(b"hello from %d" % i)
        for i in range(3):
            got = sorted(await receive(members.transport(i), 2))
            assert got == sorted((keys[j], b"hello from %d" % j) for j in range(3) if j != i)
        # one member to another, both ways over their one link
        await members.transport(0).send(keys[2], b"down")
        members.transport(2).send_nowait(keys[0], b"up")
        assert await receive(members.transport(2), 1) == [(keys[0], b"down")]
        assert await receive(members.transport(0), 1) == [(keys[2], b"up")]
        stats = members.transport(0).statistics()
        assert stats.refused == 0
        assert all(p.connected and p.connections == 1 and p.queued == 0 and p.last_error is None
                   for p in stats.peers.values())
        to_2 = stats.peers[keys[2]]
        assert (to_2.frames_sent, to_2.frames_received) == (2, 2)
        # each frame with its 4-byte length prefix: "hello from 0" and "down"; "hello from 2" and "up"
        assert (to_2.bytes_sent, to_2.bytes_received) == ((4 + 12) + (4 + 4), (4 + 12) + (4 + 2))


async def test_bad_frames_and_strangers_are_refused_before_anything_is_queued(kind: str, clock: Any) -> None:
    async with table(kind, 2) as members:
        transport, other = members.transport(0), members.keys[1]
        with pytest.raises(ValueError, match="reserved for keep-alives"):
            transport.send_nowait(other, b"")
        with pytest.raises(ValueError, match=f"a frame of {FRAME_LIMIT + 1} bytes is over the limit of {FRAME_LIMIT}"):
            await transport.send(other, b"x" * (FRAME_LIMIT + 1))
        with pytest.raises(KeyError, match="is not another member of this table"):
            transport.send_nowait(Identity.generate().public_key, b"x")
        with pytest.raises(KeyError, match="is not another member of this table"):
            transport.send_nowait(transport.key, b"x")
        assert transport.statistics().peers[other].frames_sent == 0
        await transport.send(other, b"x" * FRAME_LIMIT)      # the limit itself is allowed
        assert await receive(members.transport(1), 1) == [(transport.key, b"x" * FRAME_LIMIT)]


async def test_a_dropped_connection_is_made_again_and_frames_flow(kind: str, clock: Any) -> None:
    async with table(kind, 2) as members:
        low, high = members.transport(0), members.transport(1)
        low.drop_connection(high.key)
        with trio.fail_after(10):
            await high.wait_disconnected(low.key)
            await high.wait_connected()
            await low.wait_connected()
        assert low.statistics().peers[high.key].connections == 2
        assert high.statistics().peers[low.key].connections == 2
        await high.send(low.key, b"still here")
        assert await receive(low, 1) == [(high.key, b"still here")]


async def test_frames_queued_for_a_stopped_member_arrive_when_it_starts_again(kind: str, clock: Any) -> None:
    """A crashed peer: its transport stops (its ``received`` ends); the others see the link
    down and queue for it; a new transport with the same key gets what they queued."""
    async with table(kind, 3) as members:
        keys = members.keys
        gone = members.transport(1)
        await members.stop(1)
        with pytest.raises(trio.EndOfChannel):
            await gone.received.receive()
        with trio.fail_after(10):
            await members.transport(0).wait_disconnected(keys[1])
            await members.transport(2).wait_disconnected(keys[1])
        assert not members.transport(0).is_connected(keys[1]) and members.transport(0).is_connected(keys[2])
        await members.transport(0).send(keys[1], b"while you were away (from 0)")
        await members.transport(2).send(keys[1], b"while you were away (from 2)")
        assert members.transport(0).statistics().peers[keys[1]].queued == 1
        back = await members.start(1)
        with trio.fail_after(10):
            await back.wait_connected()
        assert sorted(await receive(back, 2)) == [(keys[0], b"while you were away (from 0)"),
                                                  (keys[2], b"while you were away (from 2)")]
        assert members.transport(0).statistics().peers[keys[1]].queued == 0


async def test_a_member_offline_is_seen_as_gone_and_catches_up_when_back(kind: str, clock: Any) -> None:
    """A closed laptop lid (``go_offline``): every link of that member goes down, frames for
    it and from it wait in their queues, and all of them arrive once it is back online."""
    async with table(kind, 3) as members:
        keys = members.keys
        lid = members.transport(2)
        lid.go_offline()
        assert lid.offline and not members.transport(0).offline
        with trio.fail_after(10):
            for i in (0, 1):
                await members.transport(i).wait_disconnected(keys[2])
                await lid.wait_disconnected(keys[i])
        assert members.transport(0).is_connected(keys[1])   # the others' link stays up
        await members.transport(0).send(keys[2], b"for the closed laptop")
        await lid.send(keys[1], b"written with the lid closed")
        lid.go_online()
        assert not lid.offline
        with trio.fail_after(10):
            await lid.wait_connected()
        assert await receive(lid, 1) == [(keys[0], b"for the closed laptop")]
        assert await receive(members.transport(1), 1) == [(keys[2], b"written with the lid closed")]


async def test_close_ends_received_for_every_member(kind: str, clock: Any) -> None:
    async with table(kind, 2) as members:
        await members.transport(0).send(members.keys[1], b"last words")
        assert await receive(members.transport(1), 1) == [(members.keys[0], b"last words")]
        for i in range(2):
            await members.stop(i)
            with pytest.raises(trio.EndOfChannel):
                await members.transport(i).received.receive()
