"""protocol/net/mesh.py over real TCP sockets on 127.0.0.1 only."""

from __future__ import annotations

import math
import secrets
from contextlib import AsyncExitStack
from typing import Any

import pytest
import trio

from p2p_sasaki.protocol.crypto import mesh_transcript
from p2p_sasaki.protocol.messages import MeshHello, MeshProof
from p2p_sasaki.protocol.net.framing import FramedStream
from p2p_sasaki.protocol.net.handshake import RefusedError, receive_message, send_message
from p2p_sasaki.protocol.net.identity import PROTOCOL_VERSION, Identity, TableMember, TableRoster
from p2p_sasaki.protocol.net.mesh import Backoff, Mesh, open_mesh

MEMBER_NONCE = bytes(range(200, 232))  # a member's join nonce (fresh in real joins)

pytestmark = pytest.mark.slow

FAST: dict[str, Any] = dict(backoff=Backoff(initial=0.05, maximum=0.2), heartbeat=0.2, dead_after=1.0,
                            handshake_timeout=2.0)


async def make_table(n: int = 4) -> tuple[list[Identity], TableRoster, list[list[trio.SocketListener]]]:
    """``n`` identities sorted by key (so index 0 dials everyone), a roster, open listeners."""
    identities = sorted((Identity.generate() for _ in range(n)), key=lambda i: i.public_key)
    listeners = [await trio.open_tcp_listeners(0, host="127.0.0.1") for _ in identities]
    members = tuple(
        TableMember(i.public_key, "127.0.0.1", ls[0].socket.getsockname()[1], MEMBER_NONCE)
        for i, ls in zip(identities, listeners, strict=False)
    )
    return identities, TableRoster(secrets.token_bytes(32), members), listeners


async def receive_n(mesh: Mesh, n: int) -> list[tuple[bytes, bytes]]:
    with trio.fail_after(5):
        return [await mesh.received.receive() for _ in range(n)]


async def test_four_peers_connect_and_exchange_frames_both_ways():
    identities, roster, listeners = await make_table(4)
    async with AsyncExitStack() as stack:
        meshes = [await stack.enter_async_context(open_mesh(i, roster, ls, **FAST))
                  for i, ls in zip(identities, listeners, strict=False)]
        with trio.fail_after(5):
            for mesh in meshes:
                await mesh.wait_connected()
        for index, mesh in enumerate(meshes):
            await mesh.broadcast(f"hello from {index}".encode())
        for index, mesh in enumerate(meshes):
            got = sorted(await receive_n(mesh, 3))
            expected = sorted((identities[j].public_key, f"hello from {j}".encode()) for j in range(4) if j != index)
            assert got == expected
        # point to point, both directions of the one connection between 0 and 3
        await meshes[0].send(identities[3].public_key, b"down")
        await meshes[3].send(identities[0].public_key, b"up")
        assert await receive_n(meshes[3], 1) == [(identities[0].public_key, b"down")]
        assert await receive_n(meshes[0], 1) == [(identities[3].public_key, b"up")]
        stats = meshes[0].statistics()
        assert stats.refused == 0
        assert all(p.connected and p.connections == 1 and p.queued == 0 for p in stats.peers.values())
        assert stats.peers[identities[3].public_key].frames_sent == 2
        assert stats.peers[identities[3].public_key].frames_received == 2
        # bytes: each frame with its 4-byte length prefix ("hello from 0" and "down"; "hello from 3" and "up")
        assert stats.peers[identities[3].public_key].bytes_sent == (4 + 12) + (4 + 4)
        assert stats.peers[identities[3].public_key].bytes_received == (4 + 12) + (4 + 2)
    # after the block every mesh is closed and its channel ended
    for mesh in meshes:
        with pytest.raises(trio.EndOfChannel):
            await mesh.received.receive()


async def test_a_killed_connection_reconnects_and_queued_frames_arrive():
    identities, roster, listeners = await make_table(3)
    low, high = identities[0], identities[2]
    async with AsyncExitStack() as stack:
        meshes = [await stack.enter_async_context(open_mesh(i, roster, ls, **FAST))
                  for i, ls in zip(identities, listeners, strict=False)]
        with trio.fail_after(5):
            for mesh in meshes:
                await mesh.wait_connected()
        # Kill it on the listening side: the dialer sees EOF and dials again.
        meshes[2].drop_connection(low.public_key)
        with trio.fail_after(5):
            await meshes[0].wait_disconnected(high.public_key)
            await meshes[0].wait_connected()
            await meshes[2].wait_connected()
        # Kill it on the dialing side, too.
        meshes[0].drop_connection(high.public_key)
        with trio.fail_after(5):
            await meshes[2].wait_disconnected(low.public_key)
            await meshes[2].wait_connected()
        assert meshes[0].statistics().peers[high.public_key].connections == 3
        assert meshes[2].statistics().peers[low.public_key].connections == 3
        await meshes[0].send(high.public_key, b"still here")
        assert await receive_n(meshes[2], 1) == [(low.public_key, b"still here")]


async def test_a_peer_that_goes_away_comes_back_and_gets_what_was_queued():
    """A closed laptop lid: the peer is gone for a while, then restarts on the same port."""
    identities, roster, listeners = await make_table(3)
    async with AsyncExitStack() as stack:
        meshes = {i: await stack.enter_async_context(open_mesh(identities[i], roster, listeners[i], **FAST))
                  for i in (0, 2)}
        async with open_mesh(identities[1], roster, listeners[1], **FAST) as middle:
            with trio.fail_after(5):
                await middle.wait_connected()
        # peer 1 is gone; its listening socket was closed with its mesh
        with trio.fail_after(5):
            await meshes[0].wait_disconnected(identities[1].public_key)
            await meshes[2].wait_disconnected(identities[1].public_key)
        await meshes[0].send(identities[1].public_key, b"while you were away (from 0)")
        await meshes[2].send(identities[1].public_key, b"while you were away (from 2)")
        with trio.fail_after(5):   # until a dial has failed (the first may still be on its way)
            while "could not connect" not in (meshes[0].statistics().peers[identities[1].public_key].last_error or ""):
                await trio.sleep(0.02)
        async with open_mesh(identities[1], roster, **FAST) as middle:  # same key, same roster port
            with trio.fail_after(5):
                await middle.wait_connected()
            got = sorted(await receive_n(middle, 2))
            assert got == [
                (identities[0].public_key, b"while you were away (from 0)"),
                (identities[2].public_key, b"while you were away (from 2)"),
            ]


async def handshake_as(listener_port: int, table_id: bytes, claimed_key: bytes, signer: Identity) -> str:
    """Dial like a mesh member claiming ``claimed_key`` but signing with ``signer``; return the refusal."""
    stream = await trio.open_tcp_stream("127.0.0.1", listener_port)
    framed = FramedStream(stream, "the listener")
    mine = await send_message(framed, MeshHello(PROTOCOL_VERSION, table_id, claimed_key, secrets.token_bytes(32)))
    try:
        _, theirs = await receive_message(framed, MeshHello)
        await receive_message(framed, MeshProof)
        transcript = mesh_transcript("dialer", mine, theirs)
        await send_message(framed, MeshProof(signer.sign(transcript)))
        await receive_message(framed, MeshProof)  # a welcome would fail here too; we expect a refusal
    except RefusedError as exc:
        return exc.reason
    finally:
        await framed.aclose()
    raise AssertionError("not refused")


async def test_impostors_are_refused_and_the_table_goes_on():
    identities, roster, listeners = await make_table(3)
    low, target = identities[0], identities[2]
    port = roster.member(target.public_key).port
    async with AsyncExitStack() as stack:
        meshes = [await stack.enter_async_context(open_mesh(i, roster, ls, **FAST))
                  for i, ls in zip(identities, listeners, strict=False)]
        with trio.fail_after(5):
            await meshes[2].wait_connected()
        short = low.public_key[:4].hex()
        mallory = Identity.generate()
        # claims to be the lowest member but cannot sign for its key
        reason = await handshake_as(port, roster.table_id, low.public_key, mallory)
        assert reason.endswith(f"its signature does not match peer {short}")
        # a key that is not at this table
        reason = await handshake_as(port, roster.table_id, mallory.public_key, mallory)
        assert reason.endswith(f"peer {mallory.public_key[:4].hex()} is not a member of this table")
        # the right key, but for another table
        reason = await handshake_as(port, secrets.token_bytes(32), low.public_key, low)
        assert reason.endswith("it belongs to another table")
        stats = meshes[2].statistics()
        assert stats.refused == 3
        # the genuine connection was never replaced
        assert stats.peers[low.public_key].connected and stats.peers[low.public_key].connections == 1
        # and the honest handshake (same code path) still works: a real frame goes through
        await meshes[0].send(target.public_key, b"ok")
        assert await receive_n(meshes[2], 1) == [(low.public_key, b"ok")]


async def test_the_dialer_refuses_a_listener_with_the_wrong_key():
    identities, roster, listeners = await make_table(2)
    low, high = identities
    # Someone else answers at the high member's address: a member of another
    # roster of the same table id, with its own (higher) key.
    stranger = Identity.generate()
    while stranger.public_key < low.public_key:
        stranger = Identity.generate()
    stranger_roster = TableRoster(
        roster.table_id,
        (roster.members[0], TableMember(stranger.public_key, "127.0.0.1", roster.members[1].port, MEMBER_NONCE))
    )
    async with open_mesh(low, roster, listeners[0], **FAST) as mesh:
        async with open_mesh(stranger, stranger_roster, listeners[1], **FAST):
            with trio.fail_after(5):
                while "answered as" not in (mesh.statistics().peers[high.public_key].last_error or ""):
                    await trio.sleep(0.02)
            assert mesh.statistics().refused >= 1
            assert not mesh.is_connected(high.public_key)


async def test_send_rejects_bad_frames_and_unknown_peers():
    identities, roster, listeners = await make_table(2)
    mesh = Mesh(identities[0], roster, max_frame_size=10)
    with pytest.raises(ValueError, match="over the limit of 10 bytes"):
        mesh.send_nowait(identities[1].public_key, b"x" * 11)
    with pytest.raises(ValueError, match="reserved for keep-alives"):
        mesh.send_nowait(identities[1].public_key, b"")
    with pytest.raises(KeyError, match="is not another member of this table"):
        mesh.send_nowait(Identity.generate().public_key, b"x")
    with pytest.raises(ValueError, match="is not in the table's roster"):
        Mesh(Identity.generate(), roster)
    for ls in listeners:
        for listener in ls:
            await listener.aclose()


async def test_a_silent_peer_is_declared_dead_and_redialled():
    identities, roster, listeners = await make_table(2)
    quiet = dict(FAST, heartbeat=math.inf, dead_after=60.0)
    watchful = dict(FAST, heartbeat=math.inf, dead_after=0.3)
    async with open_mesh(identities[0], roster, listeners[0], **quiet) as low:
        async with open_mesh(identities[1], roster, listeners[1], **watchful) as high:
            with trio.fail_after(5):
                await high.wait_connected()
                await high.wait_disconnected(identities[0].public_key)
            last_error = high.statistics().peers[identities[0].public_key].last_error
            assert last_error is not None and last_error.endswith("sent nothing for 0.3 s")
            with trio.fail_after(5):  # the dialer noticed the close and came back
                await high.wait_connected()
            assert low.statistics().peers[identities[1].public_key].connections >= 2


async def test_a_link_silent_for_a_heartbeat_is_offline_until_a_frame_arrives():
    """A member that sends nothing (no keep-alives) is reported not connected one heartbeat
    after its last frame, while the connection itself is kept (``dead_after`` is far); its
    next frame makes it connected again on the same connection."""
    identities, roster, listeners = await make_table(2)
    quiet = dict(FAST, heartbeat=math.inf, dead_after=60.0)
    watchful = dict(FAST, heartbeat=0.2, dead_after=60.0)
    low_key, high_key = identities[0].public_key, identities[1].public_key
    async with open_mesh(identities[0], roster, listeners[0], **quiet) as low:
        async with open_mesh(identities[1], roster, listeners[1], **watchful) as high:
            with trio.fail_after(5):
                await high.wait_connected()
            connected_at = trio.current_time()
            with trio.fail_after(5):
                await high.wait_disconnected(low_key)
            # its last frame came before wait_connected returned, so no lower bound from here
            assert trio.current_time() - connected_at < 1.0
            assert not high.statistics().peers[low_key].connected
            assert low.is_connected(high_key)     # it hears the watchful one's keep-alives
            await low.send(high_key, b"still here")
            with trio.fail_after(5):
                await high.wait_connected()
            assert await receive_n(high, 1) == [(low_key, b"still here")]
            assert high.statistics().peers[low_key].connections == 1


async def test_a_peer_of_another_version_is_refused_with_one_sentence():
    import msgpack

    identities, roster, listeners = await make_table(2)
    low, high = identities
    async with open_mesh(high, roster, listeners[1], **FAST) as mesh:
        stream = await trio.open_tcp_stream("127.0.0.1", roster.members[1].port)
        framed = FramedStream(stream, "the listener")
        await framed.send(msgpack.packb(["mesh-hello", 1, roster.table_id, low.public_key, secrets.token_bytes(32)]))
        with pytest.raises(RefusedError) as info:
            await receive_message(framed, MeshHello)
        await framed.aclose()
        assert info.value.kind == "version"
        assert info.value.reason == (f"refused by peer {high.public_key[:4].hex()}: it speaks protocol version 1, we "
                                     f"speak version {PROTOCOL_VERSION}; both need the same p2p-sasaki release")
        assert mesh.statistics().refused == 1


async def test_a_peer_restarted_on_a_new_address_is_found_again(autojump_clock):
    """The member with the greatest key (dialed by everyone at its roster address) comes back
    on a new port with ``dial_all``: it dials the others, who accept its key from the new
    address; frames flow both ways and nobody dials it again meanwhile. In virtual time (the
    sockets are real, on loopback, in this one process): the backoff periods during which
    nothing may change pass without a real wait."""
    identities, roster, listeners = await make_table(4)
    moved = identities[3]
    for listener in listeners[3]:
        await listener.aclose()   # its old address is dead
    new_listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    async with AsyncExitStack() as stack:
        meshes = [await stack.enter_async_context(open_mesh(i, roster, ls, **FAST))
                  for i, ls in zip(identities[:3], listeners[:3], strict=False)]
        resumed = await stack.enter_async_context(open_mesh(moved, roster, new_listeners, dial_all=True, **FAST))
        with trio.fail_after(5):
            await resumed.wait_connected()
            for mesh in meshes:
                await mesh.wait_connected([moved.public_key])
        await resumed.broadcast(b"back")
        for mesh in meshes:
            assert await receive_n(mesh, 1) == [(moved.public_key, b"back")]
            await mesh.send(moved.public_key, b"welcome")
        assert sorted(await receive_n(resumed, 3)) == sorted((i.public_key, b"welcome") for i in identities[:3])
        await trio.sleep(0.5)   # several backoff periods: the links stay as they are
        assert all(p.connections == 1 for p in resumed.statistics().peers.values())


async def test_two_peers_dialing_each_other_at_once_both_keep_the_lower_keys_connection(autojump_clock):
    """Both members dial (``dial_all``, as a resumed peer does) at the same moment, three
    times over: whichever connection authenticates first, both ends end up on the one the
    lower key dialed, and it stays (no flapping between the two). In virtual time, as above."""
    for _ in range(3):
        identities, roster, listeners = await make_table(2)
        low, high = identities
        async with AsyncExitStack() as stack:
            a, b = [await stack.enter_async_context(open_mesh(i, roster, ls, dial_all=True, **FAST))
                    for i, ls in zip(identities, listeners, strict=False)]
            with trio.fail_after(5):
                await a.wait_connected()
                await b.wait_connected()
            await trio.sleep(0.2)   # the later connection has authenticated and been judged
            counts = (a.statistics().peers[high.public_key].connections,
                      b.statistics().peers[low.public_key].connections)
            assert a.dialed_by(high.public_key) == b.dialed_by(low.public_key) == low.public_key
            await a.send(high.public_key, b"ping")
            assert await receive_n(b, 1) == [(low.public_key, b"ping")]
            await trio.sleep(0.3)   # several backoff periods (0.05-0.2 s): nothing changes
            assert a.dialed_by(high.public_key) == b.dialed_by(low.public_key) == low.public_key
            assert (a.statistics().peers[high.public_key].connections,
                    b.statistics().peers[low.public_key].connections) == counts
            assert all(count <= 2 for count in counts)
