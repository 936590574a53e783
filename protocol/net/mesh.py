"""A full TCP mesh among the members of a table, authenticated by identity key.

Every member listens on the port its roster entry gives. Between two members
exactly one connection is wanted, and the member with the lower public key
(bytewise) dials; the other only accepts. A connection carries frames
(:mod:`protocol.net.framing`) and starts with the mesh handshake, whose protocol is
the sans-IO :class:`~p2p_sasaki.protocol.handshake.MeshHandshake` (this module only
moves its frames)::

    dialer   -> listener   MeshHello(version, table_id, key_D, nonce_D)
    listener -> dialer     MeshHello(version, table_id, key_L, nonce_L)
                           MeshProof(sign_L(mesh_transcript("listener", hello_D, hello_L)))
    dialer   -> listener   MeshProof(sign_D(mesh_transcript("dialer", hello_D, hello_L)))
    listener -> dialer     MeshWelcome()

Each side signs the other's fresh nonce with the key it claims, so a peer is
identified by its key and nobody can replay an old handshake. A wrong table, a
key that is not in the roster, a dial against the dial rule or a bad signature
is refused with a one-sentence :class:`~protocol.messages.Refusal`.

A dropped connection does not end the table: the dialer reconnects with
exponential backoff (a laptop whose lid was closed comes back), and the
listener takes a newly authenticated connection from a key in place of the old
one. When two members dial each other at once (a resumed peer dials everyone,
``dial_all``), both keep the connection dialed by the lower key: a new connection
replaces the current one unless the current one was dialed by the lower key and
the new one by the higher, which is then closed (but a silent current connection,
below, is always replaced: it may be half-open after the other machine died).

Keep-alive frames (empty frames, every second or every half ``heartbeat`` if that is
shorter: :func:`~p2p_sasaki.protocol.net.transport.keepalive_interval`) keep a link heard: a
link on which nothing at all arrived for ``heartbeat`` seconds (5) is *silent*,
reported as not connected (:meth:`Mesh.is_connected`, the waits, the statistics;
the players' offline marker) though its connection is kept; the first frame that
arrives makes it connected again. After ``dead_after`` seconds (15) without a
frame the connection is closed and redialled.

Delivery is in order while a connection lasts. Frames queued for a peer wait
in its send queue while it is away; a frame that was being written when a
connection broke may be lost (and, on a reset, frames the kernel had already
accepted); the table driver repairs this by re-sending what it sent
(:mod:`protocol.net.table`, "Transport reliability"). :meth:`Mesh.go_offline`
cuts a member off completely for a while (tests: a closed laptop lid).

Hostile connections (docs/reliability.md): until a connection has authenticated, its
frames are limited to ``HANDSHAKE_FRAME_LIMIT`` bytes and it is read in small pieces, it
must finish within ``handshake_timeout``, and it holds a slot of :attr:`Mesh.pool`
(:mod:`protocol.net.pool`: ``max_pending_per_address`` per address, ``max_pending`` in all,
the first frame within ``first_frame_timeout``, the oldest displaced by a newcomer, the
members' addresses exempt). A failed handshake is not one line each: failures are counted
(``statistics().refused`` and :attr:`Mesh.failed_handshakes`) and summed up in one log
warning at most every ``report_every`` seconds.

Usage::

    async with open_mesh(identity, roster, listeners) as mesh:
        await mesh.wait_connected()
        await mesh.broadcast(b"hello")
        async for peer_key, frame in mesh.received:
            ...
"""

from __future__ import annotations

import dataclasses
import logging
import math
import random
import secrets
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass

import trio

from p2p_sasaki.protocol.handshake import Authenticated, MeshHandshake
from p2p_sasaki.protocol.net.framing import HEADER_SIZE, MAX_FRAME_SIZE, FramedStream, FrameError
from p2p_sasaki.protocol.net.handshake import HandshakeError, RefusingError, drive, wait_first_frame
from p2p_sasaki.protocol.net.identity import Identity, TableMember, TableRoster, describe_key
from p2p_sasaki.protocol.net.pool import ConnectionPool
from p2p_sasaki.protocol.net.transport import PeerStatistics, TransportStatistics, keepalive_interval

log = logging.getLogger(__name__)

HANDSHAKE_FRAME_LIMIT = 4096
"""The largest frame accepted before the handshake is done (its messages are ~100 bytes)."""
_HANDSHAKE_READ = 4096

_CONNECTION_ERRORS = (trio.BrokenResourceError, trio.ClosedResourceError, trio.EndOfChannel, FrameError, OSError)


@dataclass(frozen=True)
class Backoff:
    """Reconnection delays: ``initial`` doubling up to ``maximum``, each with +-``jitter``."""

    initial: float = 0.2
    maximum: float = 5.0
    jitter: float = 0.25


MeshStatistics = TransportStatistics   # the statistics of every transport (transport.py)


class _Link:
    """Everything about one other member: its queue and its current connection."""

    def __init__(self, member: TableMember, queue_size: int) -> None:
        self.member = member
        self.outbox_send, self.outbox_receive = trio.open_memory_channel[bytes](queue_size)
        self.connection: FramedStream | None = None
        self.dialer: bytes | None = None       # who dialed ``connection``
        self.silent = False                    # nothing heard on it for a heartbeat
        self.dialing = False                   # a _dial_forever task runs for it
        self.moved = trio.Event()              # set by Mesh.relocate: dial the new address now
        self.scope: trio.CancelScope | None = None
        self.connections = 0
        self.frames_sent = 0
        self.frames_received = 0
        self.bytes_sent = 0
        self.bytes_received = 0
        self.last_error: str | None = None


class Mesh:
    """The mesh of one member, a :class:`~p2p_sasaki.protocol.net.transport.Transport`;
    run it with ``await nursery.start(mesh.run, listeners)``.

    ``received`` is a memory channel of ``(peer_key, frame_bytes)``; it is closed
    when the mesh stops.
    """

    def __init__(
        self,
        identity: Identity,
        roster: TableRoster,
        *,
        max_frame_size: int = MAX_FRAME_SIZE,
        queue_size: int = 1024,
        receive_buffer: int = 256,
        heartbeat: float = 5.0,
        dead_after: float = 15.0,
        handshake_timeout: float = 5.0,
        first_frame_timeout: float = 1.0,
        connect_timeout: float = 5.0,
        backoff: Backoff = Backoff(),
        rng: random.Random | None = None,
        max_pending: int = 32,
        max_pending_per_address: int = 4,
        report_every: float = 10.0,
        dial_all: bool = False,
    ) -> None:
        """``dial_all``: dial every member, not only those with a greater key (a peer
        resumed on a new address, which the others cannot dial); a link that is
        connected is not dialed again."""
        if identity.public_key not in roster:
            raise ValueError(f"{describe_key(identity.public_key)} is not in the table's roster")
        self.identity = identity
        self.roster = roster
        self.key = identity.public_key
        self.max_frame_size = max_frame_size
        self.heartbeat = heartbeat
        self.dead_after = dead_after
        self.handshake_timeout = handshake_timeout
        self.connect_timeout = connect_timeout
        self.backoff = backoff
        self._rng = rng or random.Random(secrets.randbits(64))
        self.dial_all = dial_all
        self._links = {m.key: _Link(m, queue_size) for m in roster.members if m.key != self.key}
        self._received_send, self.received = trio.open_memory_channel[tuple[bytes, bytes]](receive_buffer)
        self._changed = trio.Event()
        self._refused = 0
        self._cancel_scope = trio.CancelScope()
        self._nursery: trio.Nursery | None = None
        self._offline = False
        self._online = trio.Event()
        self._online.set()
        self.pool = ConnectionPool(max_pending, max_pending_per_address, first_frame=first_frame_timeout,
                                   known=self._is_member_address)
        """The connections not yet authenticated (protocol/net/pool.py)."""
        self.report_every = report_every
        self.failed_handshakes = 0                    # since the start
        self._unreported = 0                          # since the last summary
        self._last_failure = ""

    # -- running ------------------------------------------------------------

    async def run(
        self,
        listeners: Sequence[trio.SocketListener] | None = None,
        *,
        task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        """Listen, dial the members this one must dial, and keep doing so until
        :meth:`close` or cancellation. Reports the listening port when ready.

        ``listeners`` are already-open listeners (the port was sent to the
        others while joining); without them, listen on this member's roster address.
        """
        me = self.roster.member(self.key)
        if listeners is None:
            listeners = await trio.open_tcp_listeners(me.port, host=me.host or None)
        port = listeners[0].socket.getsockname()[1]
        try:
            with self._cancel_scope:
                async with trio.open_nursery() as nursery:
                    await nursery.start(trio.serve_listeners, self._accept, listeners)
                    nursery.start_soon(self._report_failures)
                    self._nursery = nursery
                    for link in self._links.values():
                        if self.key < link.member.key or self.dial_all:
                            self._start_dialing(link)
                    task_status.started(port)
        finally:
            self._nursery = None
            self._received_send.close()
            for link in self._links.values():
                link.outbox_send.close()

    def close(self) -> None:
        """Stop the mesh: every connection is closed and ``received`` ends."""
        self._cancel_scope.cancel()

    # -- the application's side ------------------------------------------------

    async def send(self, key: bytes, frame: bytes) -> None:
        """Queue ``frame`` for the member ``key``; waits only if its queue is full."""
        self._check_frame(frame)
        await self._link(key).outbox_send.send(frame)

    def send_nowait(self, key: bytes, frame: bytes) -> None:
        """Queue ``frame`` for ``key``; raises :class:`trio.WouldBlock` if its queue is full."""
        self._check_frame(frame)
        self._link(key).outbox_send.send_nowait(frame)

    async def broadcast(self, frame: bytes) -> None:
        """Queue ``frame`` for every other member."""
        for key in self._links:
            await self.send(key, frame)

    @property
    def peers(self) -> tuple[bytes, ...]:
        """The other members' keys."""
        return tuple(self._links)

    def is_connected(self, key: bytes) -> bool:
        """A connection to ``key`` is up and was heard from within the last heartbeat."""
        link = self._link(key)
        return link.connection is not None and not link.silent

    async def wait_connected(self, keys: Iterable[bytes] | None = None) -> None:
        """Wait until this member has a live connection to each of ``keys`` (default: all)."""
        wanted = list(self._links if keys is None else keys)
        while not all(self.is_connected(key) for key in wanted):
            await self._changed.wait()

    async def wait_disconnected(self, key: bytes) -> None:
        while self.is_connected(key):
            await self._changed.wait()

    def statistics(self) -> TransportStatistics:
        return TransportStatistics(
            peers={
                key: PeerStatistics(
                    connected=self.is_connected(key),
                    connections=link.connections,
                    frames_sent=link.frames_sent,
                    frames_received=link.frames_received,
                    queued=link.outbox_send.statistics().current_buffer_used,
                    last_error=link.last_error,
                    bytes_sent=link.bytes_sent,
                    bytes_received=link.bytes_received,
                )
                for key, link in self._links.items()
            },
            refused=self._refused,
        )

    def relocate(self, key: bytes, host: str, port: int) -> bool:
        """The member ``key`` now listens at ``host:port`` (its member record said so:
        protocol/net/discovery.py): dial it there from now on, at once, even if this member's
        key is the greater (then only while the link is down). A hint, never trusted: the
        handshake checks the key. False if that is the address already dialed."""
        link = self._link(key)
        if (link.member.host, link.member.port) == (host, port):
            return False
        log.info("%s moved to %s:%d", link.member, host, port)
        link.member = dataclasses.replace(link.member, host=host, port=port)
        link.moved.set()
        self._start_dialing(link)
        return True

    def address(self, key: bytes) -> tuple[str, int]:
        """Where this member dials ``key`` (its roster address, or where it moved)."""
        member = self._link(key).member
        return member.host, member.port

    def drop_connection(self, key: bytes) -> None:
        """Close the current connection to ``key`` (as if the network failed); the
        mesh then reconnects as usual. For tests and for a UI's "reconnect" button."""
        link = self._link(key)
        if link.scope is not None:
            link.scope.cancel()

    def go_offline(self) -> None:
        """Cut every connection and refuse new ones (no dialing; an incoming connection is
        closed before its handshake) until :meth:`go_online`: a closed laptop lid, as far
        as the other members can tell. Frames queued meanwhile wait; a frame being written
        when the links were cut may be lost. For tests."""
        if self._offline:
            return
        self._offline = True
        self._online = trio.Event()
        for link in self._links.values():
            if link.scope is not None:
                link.scope.cancel()

    def go_online(self) -> None:
        """Undo :meth:`go_offline`: dial and accept again (reconnection as usual)."""
        self._offline = False
        self._online.set()

    @property
    def offline(self) -> bool:
        return self._offline

    def _link(self, key: bytes) -> _Link:
        try:
            return self._links[key]
        except KeyError:
            raise KeyError(f"{describe_key(key)} is not another member of this table") from None

    def _check_frame(self, frame: bytes) -> None:
        if not frame:
            raise ValueError("empty frames are reserved for keep-alives")
        if len(frame) > self.max_frame_size:
            raise ValueError(f"a frame of {len(frame)} bytes is over the limit of {self.max_frame_size} bytes")

    def _is_member_address(self, host: str) -> bool:
        """Where a member connects from (the roster's addresses, or where one moved)."""
        return host == self.roster.member(self.key).host or any(
            host == link.member.host for link in self._links.values())

    def _notify(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    # -- connections -----------------------------------------------------------

    def _start_dialing(self, link: _Link) -> None:
        if not link.dialing and self._nursery is not None:
            link.dialing = True
            self._nursery.start_soon(self._dial_forever, link)

    async def _dial_forever(self, link: _Link) -> None:
        delay = self.backoff.initial
        extra = self.dial_all or self.key > link.member.key   # not the dial rule's dialer: only when down
        while True:
            while self._offline:
                await self._online.wait()
            while extra and link.connection is not None:
                await self._changed.wait()
            member = link.member
            try:
                with trio.fail_after(self.connect_timeout):
                    stream = await trio.open_tcp_stream(member.host, member.port)
            except (OSError, trio.TooSlowError) as exc:
                link.last_error = f"could not connect to {member}: {exc or 'timed out'}"
            else:
                framed = FramedStream(stream, str(member), HANDSHAKE_FRAME_LIMIT, receive_size=_HANDSHAKE_READ)
                try:
                    await self._authenticate_as_dialer(framed, link)
                    framed.set_limit(self.max_frame_size, receive_size=65536)
                except HandshakeError as exc:
                    link.last_error = str(exc)
                    self._handshake_failed(exc)
                    await trio.aclose_forcefully(stream)
                else:
                    delay = self.backoff.initial
                    await self._run_connection(link, framed, self.key)
            with trio.move_on_after(delay * (1 + self._rng.uniform(-self.backoff.jitter, self.backoff.jitter))):
                await link.moved.wait()
            if link.moved.is_set():   # relocated: try the new address now
                link.moved, delay = trio.Event(), self.backoff.initial
            else:
                delay = min(delay * 2, self.backoff.maximum)

    async def _accept(self, stream: trio.SocketStream) -> None:
        if self._offline:
            await trio.aclose_forcefully(stream)
            return
        try:
            host, port = stream.socket.getpeername()[:2]
            origin = f"a connection from {host}:{port}"
        except OSError:
            host, origin = "?", "a connection"
        framed = FramedStream(stream, origin, HANDSHAKE_FRAME_LIMIT, receive_size=_HANDSHAKE_READ)
        link: _Link | None = None
        failure: BaseException | None = None
        with self.pool.slot(host) as slot:   # closed by the pool: silent too long, or displaced
            try:
                await wait_first_frame(framed)
                slot.heard()
                link = await self._authenticate_as_listener(framed)
            except (HandshakeError, *_CONNECTION_ERRORS) as exc:
                failure = exc
        if link is None:
            if failure is None:   # the pool closed it
                failure = HandshakeError(f"{origin} was closed: it {slot.closed.value if slot.closed else 'failed'}")
            self._handshake_failed(failure)
            await trio.aclose_forcefully(stream)
            return
        framed.set_limit(self.max_frame_size, receive_size=65536)
        await self._run_connection(link, framed, link.member.key)

    def _handshake_failed(self, error: BaseException) -> None:
        self.failed_handshakes += 1
        self._unreported += 1
        self._last_failure = str(error) or type(error).__name__

    async def _report_failures(self) -> None:
        """One warning at most every ``report_every`` seconds for all the failed handshakes."""
        while True:
            await trio.sleep(self.report_every)
            if self._unreported:
                log.warning("%d connection(s) failed the handshake in the last %g s (the last: %s)",
                            self._unreported, self.report_every, self._last_failure)
                self._unreported = 0

    async def _authenticate(self, framed: FramedStream, dialing: bytes | None) -> _Link:
        """Run the mesh handshake (protocol/handshake.py) on ``framed``; the link it authenticated."""
        machine = MeshHandshake(self.identity, self.roster, dialing=dialing, peer=framed.peer)
        with trio.move_on_after(self.handshake_timeout):
            try:
                done = await drive(framed, machine, machine.start(), until=(Authenticated,))
            except RefusingError:
                self._refused += 1
                raise
            finally:
                framed.peer = machine.peer
            link = self._links[done.peer]
            framed.peer = str(link.member)
            return link
        raise HandshakeError(f"{framed.peer} did not complete the handshake within {self.handshake_timeout} s")

    async def _authenticate_as_dialer(self, framed: FramedStream, link: _Link) -> None:
        await self._authenticate(framed, link.member.key)

    async def _authenticate_as_listener(self, framed: FramedStream) -> _Link:
        return await self._authenticate(framed, None)

    def dialed_by(self, key: bytes) -> bytes | None:
        """Who dialed the current connection to ``key`` (this member's key or ``key``), or None."""
        link = self._link(key)
        return link.dialer if link.connection is not None else None

    async def _run_connection(self, link: _Link, framed: FramedStream, dialer: bytes) -> None:
        lower = min(self.key, link.member.key)
        if self._offline or (link.connection is not None and not link.silent and link.dialer == lower
                             and dialer != lower):
            # offline meanwhile, or a duplicate: both ends keep the one the lower key dialed (a
            # silent one, perhaps half-open after the other machine died, is replaced all the same)
            await trio.aclose_forcefully(framed.stream)
            return
        if link.scope is not None:  # a newer connection replaces a (perhaps half-dead) older one
            link.scope.cancel()
        link.connections += 1
        link.connection = framed
        link.dialer = dialer
        link.silent = False
        self._notify()
        log.info("connected to %s", link.member)
        try:
            async with trio.open_nursery() as nursery:
                link.scope = nursery.cancel_scope
                nursery.start_soon(self._write_loop, link, framed, nursery.cancel_scope)
                nursery.start_soon(self._keepalive_loop, link, framed, nursery.cancel_scope)
                await self._read_loop(link, framed)
                nursery.cancel_scope.cancel()
        finally:
            if link.connection is framed:
                link.connection = None
                link.scope = None
                link.silent = False
                self._notify()
            with trio.CancelScope(shield=True):
                await trio.aclose_forcefully(framed.stream)
            log.info("disconnected from %s: %s", link.member, link.last_error)

    async def _read_loop(self, link: _Link, framed: FramedStream) -> None:
        heard = trio.current_time()
        while True:
            try:
                with trio.fail_at(heard + self.dead_after):
                    with trio.move_on_at(math.inf if link.silent else heard + self.heartbeat) as quiet:
                        frame = await framed.receive()
            except trio.TooSlowError:
                link.last_error = f"{link.member} sent nothing for {self.dead_after} s"
                return
            except trio.EndOfChannel:
                link.last_error = f"{link.member} closed the connection"
                return
            except _CONNECTION_ERRORS as exc:
                link.last_error = str(exc) or f"the connection to {link.member} broke"
                return
            if quiet.cancelled_caught:   # a heartbeat without a frame: offline for the players
                link.silent = True
                self._notify()
                continue
            heard = trio.current_time()
            if link.silent:
                link.silent = False
                self._notify()
            if frame:  # empty frames are keep-alives
                link.frames_received += 1
                link.bytes_received += HEADER_SIZE + len(frame)
                await self._received_send.send((link.member.key, frame))

    async def _write_loop(self, link: _Link, framed: FramedStream, scope: trio.CancelScope) -> None:
        try:
            async for frame in link.outbox_receive:
                await framed.send(frame)
                link.frames_sent += 1
                link.bytes_sent += HEADER_SIZE + len(frame)
        except _CONNECTION_ERRORS as exc:
            link.last_error = str(exc) or f"the connection to {link.member} broke"
        scope.cancel()

    async def _keepalive_loop(self, link: _Link, framed: FramedStream, scope: trio.CancelScope) -> None:
        if math.isinf(self.heartbeat):
            return
        try:
            while True:
                await trio.sleep(keepalive_interval(self.heartbeat))
                await framed.send(b"")
        except _CONNECTION_ERRORS as exc:
            link.last_error = str(exc) or f"the connection to {link.member} broke"
        scope.cancel()


@asynccontextmanager
async def open_mesh(
    identity: Identity,
    roster: TableRoster,
    listeners: Sequence[trio.SocketListener] | None = None,
    **options: object,
) -> AsyncIterator[Mesh]:
    """Run a :class:`Mesh` for the duration of the block, then close it."""
    mesh = Mesh(identity, roster, **options)  # type: ignore[arg-type]
    async with trio.open_nursery() as nursery:
        await nursery.start(mesh.run, listeners)
        try:
            yield mesh
        finally:
            mesh.close()
