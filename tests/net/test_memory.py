"""protocol/net/memory.py: the in-memory network, in virtual time (``autojump_clock``:
trio's ``MockClock(autojump_threshold=0)``), and the Transport interface both transports
implement."""

from __future__ import annotations

import pytest
import trio

from p2p_sasaki.protocol.net.identity import Identity, TableMember, TableRoster
from p2p_sasaki.protocol.net.memory import LinkConditions, MemoryNetwork, MemoryTransport, Transmission
from p2p_sasaki.protocol.net.mesh import Mesh
from p2p_sasaki.protocol.net.transport import Transport

A, B, C = b"A" * 32, b"B" * 32, b"C" * 32


async def start(nursery: trio.Nursery, network: MemoryNetwork, *keys: bytes) -> list[MemoryTransport]:
    transports = [network.transport(key) for key in keys]
    for transport in transports:
        await nursery.start(transport.run)
    return transports


def drain(transport: MemoryTransport) -> list[tuple[bytes, bytes]]:
    got = []
    while True:
        try:
            got.append(transport.received.receive_nowait())
        except trio.WouldBlock:
            return got


def test_both_transports_implement_the_interface():
    identity = Identity.generate()
    roster = TableRoster(bytes(32), (TableMember(identity.public_key, "127.0.0.1", 0, bytes(32)),
                                     TableMember(B, "127.0.0.1", 0, bytes(32))))
    mesh: Transport = Mesh(identity, roster)              # mypy checks the structure
    memory: Transport = MemoryNetwork([A, B]).transport(A)
    assert isinstance(mesh, Transport) and isinstance(memory, Transport)
    assert mesh.peers == (B,) and memory.peers == (B,)


async def test_a_perfect_network_delivers_in_order_and_queues_while_a_link_is_down(autojump_clock):
    network = MemoryNetwork([A, B, C])
    async with trio.open_nursery() as nursery:
        a, b, c = await start(nursery, network, A, B, C)
        await a.wait_connected()
        assert a.is_connected(B) and b.is_connected(A) and c.is_connected(A)
        for n in range(3):
            await a.send(B, b"ab%d" % n)
        await a.broadcast(b"all")
        await trio.sleep(1)
        assert drain(b) == [(A, b"ab0"), (A, b"ab1"), (A, b"ab2"), (A, b"all")]
        assert drain(c) == [(A, b"all")]

        network.cut(A, B)
        assert not a.is_connected(B) and not b.is_connected(A) and a.is_connected(C)
        a.send_nowait(B, b"later1")
        await a.send(B, b"later2")
        await trio.sleep(5)
        assert drain(b) == []
        assert a.statistics().peers[B].queued == 2
        network.heal(A, B)
        await trio.sleep(1)
        assert drain(b) == [(A, b"later1"), (A, b"later2")]
        stats = a.statistics().peers[B]
        assert (stats.connected, stats.connections, stats.frames_sent, stats.queued) == (True, 2, 6, 0)
        assert stats.bytes_sent == sum(4 + len(f) for f in (b"ab0", b"ab1", b"ab2", b"all", b"later1", b"later2"))
        assert b.statistics().peers[A].frames_received == 6
        assert stats.last_error == "the link was cut"
        nursery.cancel_scope.cancel()


async def test_frames_on_the_wire_when_a_link_breaks_are_lost(autojump_clock):
    network = MemoryNetwork([A, B], conditions=LinkConditions(latency=1.0))
    async with trio.open_nursery() as nursery:
        a, b = await start(nursery, network, A, B)
        await a.broadcast(b"one")
        await a.broadcast(b"two")
        await trio.sleep(0.5)
        network.cut(A, B)
        network.heal(A, B)
        await a.broadcast(b"three")
        await trio.sleep(2)
        assert drain(b) == [(A, b"three")]
        assert [t.copies for t in network.transmissions(A, B)] == [1, 1, 1]
        assert a.statistics().peers[B].frames_sent == 3 and b.statistics().peers[A].frames_received == 1
        nursery.cancel_scope.cancel()


async def hostile_run(seed: int) -> tuple[list[bytes], list[Transmission]]:
    conditions = LinkConditions(drop=0.2, duplicate=0.2, delay=0.3, max_delay=2.0, latency=0.1)
    network = MemoryNetwork([A, B], seed=seed, conditions=conditions)
    async with trio.open_nursery() as nursery:
        a, b = await start(nursery, network, A, B)
        for n in range(40):
            await a.send(B, b"%d" % n)
        await trio.sleep(10)
        got = [frame for _, frame in drain(b)]
        nursery.cancel_scope.cancel()
    return got, network.transmissions(A, B)


async def test_a_hostile_network_drops_duplicates_and_reorders_deterministically_for_a_seed(autojump_clock):
    got, fates = await hostile_run(7)
    assert (got, fates) == await hostile_run(7)
    assert (got, fates) != await hostile_run(8)
    assert [t.index for t in fates] == list(range(40))
    copies = [t.copies for t in fates]
    assert copies.count(0) > 0 and copies.count(2) > 0 and any(t.delay > 0 for t in fates)
    # All 40 sent at the same instant: each copy arrives after latency + its delay, ties in
    # sending order, a duplicate right after its original.
    expected = [b"%d" % t.index for t in sorted(fates, key=lambda t: (t.delay, t.index)) for _ in range(t.copies)]
    assert got == expected
    assert got != sorted(got, key=lambda f: int(f))     # reordered


async def test_offline_member_and_dropped_connection(autojump_clock):
    network = MemoryNetwork([A, B, C], reconnect_after=0.5)
    async with trio.open_nursery() as nursery:
        a, b, c = await start(nursery, network, A, B, C)
        network.go_offline(B)
        assert b.offline and not a.is_connected(B) and not c.is_connected(B) and a.is_connected(C)
        with trio.fail_after(1):
            await a.wait_disconnected(B)
        await a.send(B, b"queued")
        network.go_online(B)
        with trio.fail_after(1):
            await a.wait_connected()
        await trio.sleep(0.1)
        assert drain(b) == [(A, b"queued")]
        assert a.statistics().peers[B].connections == 2

        a.drop_connection(C)
        assert not c.is_connected(A)
        start_time = trio.current_time()
        await c.wait_connected([A])
        assert trio.current_time() - start_time == pytest.approx(0.5)
        assert c.statistics().peers[A].connections == 2
        nursery.cancel_scope.cancel()


async def test_the_lose_rule_loses_the_frames_it_picks(autojump_clock):
    network = MemoryNetwork([A, B, C], lose=lambda source, target, frame: frame == b"secret" and target == C)
    async with trio.open_nursery() as nursery:
        a, b, c = await start(nursery, network, A, B, C)
        await a.broadcast(b"secret")
        await a.broadcast(b"public")
        await trio.sleep(1)
        assert drain(b) == [(A, b"secret"), (A, b"public")]
        assert drain(c) == [(A, b"public")]
        assert network.transmissions(A, C)[0] == Transmission(0, 0, 0.0, lost_by_rule=True)
        nursery.cancel_scope.cancel()


async def test_close_ends_received_and_the_others_see_the_member_leave(autojump_clock):
    network = MemoryNetwork([A, B])
    async with trio.open_nursery() as nursery:
        a, b = await start(nursery, network, A, B)
        await a.broadcast(b"bye")
        await trio.sleep(1)
        b.close()
        with trio.fail_after(1):
            await a.wait_disconnected(B)
            assert [item async for item in b.received] == [(A, b"bye")]
        assert a.statistics().peers[B].last_error == "a member left"
        with pytest.raises(trio.ClosedResourceError):
            await b.send(A, b"late")
        nursery.cancel_scope.cancel()


async def test_bad_frames_and_full_queues(autojump_clock):
    network = MemoryNetwork([A, B], queue_size=2, max_frame_size=8)
    a = network.transport(A)
    with pytest.raises(ValueError, match="empty frames"):
        await a.send(B, b"")
    with pytest.raises(ValueError, match="over the limit of 8 bytes"):
        a.send_nowait(B, b"123456789")
    with pytest.raises(KeyError):
        a.send_nowait(A, b"me")
    a.send_nowait(B, b"1")     # not running yet: the link is down, the frames wait
    a.send_nowait(B, b"2")
    with pytest.raises(trio.WouldBlock):
        a.send_nowait(B, b"3")
    with pytest.raises(ValueError, match="probability"):
        LinkConditions(drop=1.5)
    with pytest.raises(ValueError, match="distinct"):
        MemoryNetwork([A, A])
