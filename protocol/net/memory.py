"""An in-process network of :class:`~p2p_sasaki.protocol.net.transport.Transport` s over
trio memory channels, hostile on demand and deterministic for a seed.

Tests run whole tables on it in virtual time (``trio.testing.MockClock(autojump_threshold=0)``):
no sockets, no real sleeps, and every delay costs nothing. Modelled on the "terrible
network" of trio's own DTLS tests: each frame put on a link is delivered, dropped,
duplicated or delayed (so that later frames overtake it), and a test can also cut a link,
take a member offline, or lose the frames it picks::

    network = MemoryNetwork(keys, seed=7, conditions=LinkConditions(drop=0.1, duplicate=0.1,
                                                                    delay=0.2, max_delay=2.0))
    transport = network.transport(my_key)     # one endpoint per member
    async with trio.open_nursery() as nursery:
        await nursery.start(transport.run)
        await transport.wait_connected()
        await transport.broadcast(b"hello")
        async for peer_key, frame in transport.received: ...

How a link behaves (it mirrors the TCP :class:`~p2p_sasaki.protocol.net.mesh.Mesh`):

- the link between two members is **up** while both are running, neither is offline
  (:meth:`MemoryNetwork.go_offline`) and the link is not cut (:meth:`MemoryNetwork.cut`);
  each change is seen at once by both ends (``is_connected``, ``wait_connected``...);
- each direction of a link has a send queue (``queue_size`` frames); while the link is
  down, frames wait there and go out when it is back up;
- a frame taken from the queue is *on the wire*: after ``latency`` seconds (the
  conditions', or the direction's own: :meth:`MemoryNetwork.set_latency`; plus a delay
  for a held-back frame) it is put in the receiver's ``received`` channel. When the link
  goes down, every frame on the wire is lost, as a frame being written when a TCP
  connection breaks is;
- with the default :class:`LinkConditions` nothing is lost, duplicated or reordered while
  a link is up;
- :meth:`MemoryNetwork.unplug` breaks a link *silently*, as a pulled cable or a dead
  router does to a TCP connection: every frame put on it is lost but neither end is told.
  With a finite ``heartbeat`` (as the mesh's: off by default here) each end puts a
  keep-alive on each link as the mesh does (``keepalive_interval``; no seeded draw, not
  counted), and a link
  on which nothing arrived for ``heartbeat`` seconds is *silent*: not connected for that
  end until a frame arrives again.

Determinism: the fate of the *n*-th frame put on the link from A to B (its number of
copies and its extra delay) is drawn from a generator seeded with ``(seed, A, B)``, four
draws per frame, so it depends on the seed, the link and *n* only, never on how trio
interleaves the other links. :meth:`MemoryNetwork.transmissions` returns those fates.
"""

from __future__ import annotations

import heapq
import itertools
import math
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import trio

from p2p_sasaki.protocol.net.framing import HEADER_SIZE, MAX_FRAME_SIZE
from p2p_sasaki.protocol.net.transport import PeerStatistics, TransportStatistics, keepalive_interval

__all__ = ["LinkConditions", "Transmission", "MemoryNetwork", "MemoryTransport"]


@dataclass(frozen=True)
class LinkConditions:
    """How the network treats each frame put on a link (probabilities are per frame).

    >>> LinkConditions(drop=0.1, duplicate=0.05, delay=0.2, max_delay=2.0)
    LinkConditions(drop=0.1, duplicate=0.05, delay=0.2, max_delay=2.0, latency=0.0)
    """

    drop: float = 0.0
    """The frame is lost."""
    duplicate: float = 0.0
    """The frame arrives twice (the copy right after the original)."""
    delay: float = 0.0
    """The frame is held back ``uniform(0, max_delay)`` seconds more, so that frames sent
    after it may arrive before it."""
    max_delay: float = 1.0
    latency: float = 0.0
    """Every frame's time on the wire, in seconds (a link that goes down meanwhile loses it)."""

    def __post_init__(self) -> None:
        for name in ("drop", "duplicate", "delay"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} is a probability, between 0 and 1")
        if self.max_delay < 0 or self.latency < 0 or math.isinf(self.latency):
            raise ValueError("delays are finite and not negative")


@dataclass(frozen=True)
class Transmission:
    """The fate of the ``index``-th frame put on one link (from its sender to its receiver)."""

    index: int
    copies: int
    """0 (lost), 1, or 2 (duplicated)."""
    delay: float
    """Seconds the frame is held back beyond the link's latency."""
    lost_by_rule: bool = False
    """Lost because the test's ``lose`` rule picked it (``copies`` is then 0)."""


class _Direction:
    """One direction of a link: the sender's queue for the receiver, and the wire."""

    def __init__(self, source: bytes, target: bytes, seed: int, queue_size: int) -> None:
        self.source = source
        self.target = target
        self.queue_send, self.queue_receive = trio.open_memory_channel[bytes](queue_size)
        self.rng = random.Random(f"{seed}:{source.hex()}:{target.hex()}")
        self.wire: list[tuple[float, int, int, bytes]] = []   # heap of (due, order, epoch, frame)
        self.arrived = trio.Event()
        self.taking: trio.CancelScope | None = None           # the pump waiting for a frame
        self.transmissions: list[Transmission] = []
        self.frames_sent = 0
        self.bytes_sent = 0
        self.frames_delivered = 0
        self.bytes_delivered = 0
        self.heard = 0.0          # when the last frame (keep-alives too) arrived
        self.silent = False       # nothing arrived for a heartbeat (the receiver's belief)


@dataclass
class _Link:
    """Both directions of the link between two members, and its state."""

    up: bool = False
    epoch: int = 0          # +1 every time the link goes down: frames on the wire then are lost
    connections: int = 0
    last_error: str | None = None
    cut: bool = False
    unplugged: bool = False
    directions: list[_Direction] = field(default_factory=list)


class MemoryNetwork:
    """The members' links; :meth:`transport` gives each member its endpoint (module docstring).

    ``lose(source, target, frame)``, if given, is asked about every frame put on a link;
    True loses it (after the seeded draws, which it does not change). Tests use it to lose
    one particular message everywhere.
    """

    def __init__(
        self,
        keys: Sequence[bytes],
        *,
        seed: int = 0,
        conditions: LinkConditions = LinkConditions(),
        queue_size: int = 1024,
        receive_buffer: int = 256,
        max_frame_size: int = MAX_FRAME_SIZE,
        reconnect_after: float = 0.2,
        lose: Callable[[bytes, bytes, bytes], bool] | None = None,
        heartbeat: float = math.inf,
    ) -> None:
        keys = tuple(bytes(k) for k in keys)
        if len(set(keys)) != len(keys):
            raise ValueError("the members' keys are distinct")
        self.keys = keys
        self.seed = seed
        self.conditions = conditions
        self.max_frame_size = max_frame_size
        self.reconnect_after = reconnect_after
        self.lose = lose
        self.heartbeat = heartbeat
        self._links = {frozenset((a, b)): _Link() for a, b in itertools.combinations(keys, 2)}
        self._directions = {
            (a, b): _Direction(a, b, seed, queue_size) for a in keys for b in keys if a != b
        }
        for (a, b), direction in self._directions.items():
            self._links[frozenset((a, b))].directions.append(direction)
        self._offline: set[bytes] = set()
        self._latency: dict[tuple[bytes, bytes], float] = {}
        self._order = itertools.count()
        self._changed = trio.Event()
        self._transports = {key: MemoryTransport(self, key, receive_buffer, queue_size) for key in keys}

    def set_latency(self, source: bytes, target: bytes, seconds: float) -> None:
        """Every frame from ``source`` to ``target`` (from now on) spends ``seconds`` on the wire
        instead of the conditions' ``latency`` (one slow link; no seeded draw changes)."""
        if (source, target) not in self._directions or not 0 <= seconds < math.inf:
            raise ValueError("a latency is set on a link between two members, finite and not negative")
        self._latency[(source, target)] = seconds

    def _latency_of(self, direction: _Direction) -> float:
        return self._latency.get((direction.source, direction.target), self.conditions.latency)

    def transport(self, key: bytes) -> MemoryTransport:
        """The endpoint of the member ``key`` (the same object every time, until :meth:`restart`)."""
        try:
            return self._transports[key]
        except KeyError:
            raise KeyError("this key is not a member of the network") from None

    def restart(self, key: bytes) -> MemoryTransport:
        """A new endpoint for ``key``, whose old one has stopped (a crashed process started
        again): the frames it had queued for its peers are gone; the peers' queues for it
        stay (they are delivered when the links come back, as the TCP mesh does)."""
        old = self.transport(key)
        if old.running:
            raise RuntimeError("the member's transport is still running")
        for peer in self.keys:
            if peer == key:
                continue
            direction = _Direction(key, peer, self.seed, old._queue_size)
            link = self._link(key, peer)
            link.directions = [d for d in link.directions if d.source != key] + [direction]
            self._directions[key, peer] = direction
        self._transports[key] = MemoryTransport(self, key, old._receive_buffer, old._queue_size)
        return self._transports[key]

    # -- faults ------------------------------------------------------------------------

    def cut(self, a: bytes, b: bytes) -> None:
        """Break the link between ``a`` and ``b`` until :meth:`heal` (frames on it are lost)."""
        self._link(a, b).cut = True
        self._update("the link was cut")

    def heal(self, a: bytes, b: bytes) -> None:
        self._link(a, b).cut = False
        self._update()

    def unplug(self, a: bytes, b: bytes) -> None:
        """Lose every frame on the link between ``a`` and ``b`` until :meth:`replug`, without
        telling either end (only a finite ``heartbeat`` lets them notice)."""
        self._link(a, b).unplugged = True

    def replug(self, a: bytes, b: bytes) -> None:
        self._link(a, b).unplugged = False

    def go_offline(self, key: bytes) -> None:
        """Cut every link of ``key`` until :meth:`go_online` (a closed laptop lid)."""
        self.transport(key)
        self._offline.add(key)
        self._update("a member went offline")

    def go_online(self, key: bytes) -> None:
        self._offline.discard(key)
        self._update()

    def is_offline(self, key: bytes) -> bool:
        return key in self._offline

    def transmissions(self, source: bytes, target: bytes) -> list[Transmission]:
        """The fate of every frame put on the link from ``source`` to ``target`` so far."""
        return list(self._directions[source, target].transmissions)

    # -- state ---------------------------------------------------------------------------

    def _link(self, a: bytes, b: bytes) -> _Link:
        try:
            return self._links[frozenset((a, b))]
        except KeyError:
            raise KeyError("no link between these keys") from None

    def _should_be_up(self, pair: frozenset[bytes]) -> bool:
        link = self._links[pair]
        return not link.cut and all(self._transports[k].running and k not in self._offline for k in pair)

    def _update(self, reason: str = "a member left") -> None:
        """Bring every link to the state it should be in; wake whoever waits for a change."""
        changed = False
        for pair, link in self._links.items():
            up = self._should_be_up(pair)
            if up == link.up:
                continue
            changed = True
            link.up = up
            for direction in link.directions:
                direction.heard, direction.silent = trio.current_time(), False
            if up:
                link.connections += 1
                continue
            link.epoch += 1
            for direction in link.directions:
                direction.wire.clear()     # on the wire when the link broke: lost
                if direction.taking is not None:
                    direction.taking.cancel()   # the frame not yet taken stays queued
            link.last_error = reason
        if changed:
            self._signal()

    def _signal(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    async def _wait_changed(self) -> None:
        await self._changed.wait()

    # -- moving frames (tasks of the sending member's transport) ----------------------------

    async def _pump(self, direction: _Direction) -> None:
        """Take frames from the queue while the link is up and put them on the wire."""
        link = self._link(direction.source, direction.target)
        while True:
            while not link.up:
                await self._wait_changed()
            taking = direction.taking = trio.CancelScope()
            with taking:
                try:
                    frame = await direction.queue_receive.receive()
                except trio.EndOfChannel:
                    return
            direction.taking = None
            if taking.cancelled_caught:   # the link went down first: the frame stays queued
                continue
            self._transmit(direction, link, frame)

    def _transmit(self, direction: _Direction, link: _Link, frame: bytes) -> None:
        conditions = self.conditions
        rng = direction.rng
        drop, duplicate, hold, amount = rng.random(), rng.random(), rng.random(), rng.random()
        copies = 0 if drop < conditions.drop else 2 if duplicate < conditions.duplicate else 1
        delay = amount * conditions.max_delay if hold < conditions.delay else 0.0
        lost_by_rule = bool(self.lose is not None and self.lose(direction.source, direction.target, frame))
        if lost_by_rule or link.unplugged:
            copies = 0
        direction.transmissions.append(Transmission(len(direction.transmissions), copies, delay, lost_by_rule))
        direction.frames_sent += 1
        direction.bytes_sent += HEADER_SIZE + len(frame)
        if not link.up:   # it broke while the frame was being taken (or the lose rule broke it)
            return
        due = trio.current_time() + self._latency_of(direction) + delay
        for _ in range(copies):
            heapq.heappush(direction.wire, (due, next(self._order), link.epoch, frame))
        direction.arrived.set()

    async def _deliver(self, direction: _Direction) -> None:
        """Hand each frame on the wire to the receiver when it is due, in (due, order) order."""
        link = self._link(direction.source, direction.target)
        while True:
            if not direction.wire:
                direction.arrived = trio.Event()
                await direction.arrived.wait()
                continue
            due, _, epoch, frame = direction.wire[0]
            if trio.current_time() < due:
                direction.arrived = trio.Event()
                with trio.move_on_at(due):
                    await direction.arrived.wait()
                continue
            heapq.heappop(direction.wire)
            if epoch != link.epoch:
                continue
            direction.heard = trio.current_time()
            if direction.silent:
                direction.silent = False
                self._signal()
            if not frame:   # a keep-alive
                continue
            receiver = self._transports[direction.target]   # a restarted member's new endpoint
            # Counted as it is handed over (as the mesh counts a frame read), so that the
            # receiver's statistics include every frame it has taken out of ``received``.
            direction.frames_delivered += 1
            direction.bytes_delivered += HEADER_SIZE + len(frame)
            try:
                await receiver._received_send.send((direction.source, frame))
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                direction.frames_delivered -= 1
                direction.bytes_delivered -= HEADER_SIZE + len(frame)


    async def _beat(self, direction: _Direction) -> None:
        """Put a keep-alive on the link as the mesh does (module docstring)."""
        link = self._link(direction.source, direction.target)
        while True:
            await trio.sleep(keepalive_interval(self.heartbeat))
            if link.up and not link.unplugged:
                due = trio.current_time() + self._latency_of(direction)
                heapq.heappush(direction.wire, (due, next(self._order), link.epoch, b""))
                direction.arrived.set()

    async def _listen(self, source: bytes, target: bytes) -> None:
        """``target``'s belief: silent after a heartbeat with nothing from ``source``."""
        link = self._link(source, target)
        while True:
            direction = self._directions[source, target]   # a restarted source has a new one
            if not link.up or direction.silent:
                await self._wait_changed()
                continue
            due = direction.heard + self.heartbeat
            if trio.current_time() >= due:
                direction.silent = True
                self._signal()
                continue
            with trio.move_on_at(due):
                await self._wait_changed()


class MemoryTransport:
    """One member's endpoint of a :class:`MemoryNetwork`; a
    :class:`~p2p_sasaki.protocol.net.transport.Transport`. Run it once, with
    ``await nursery.start(transport.run)``."""

    def __init__(self, network: MemoryNetwork, key: bytes, receive_buffer: int, queue_size: int = 1024) -> None:
        self.network = network
        self._key = key
        self._receive_buffer, self._queue_size = receive_buffer, queue_size
        self._received_send, self._received = trio.open_memory_channel[tuple[bytes, bytes]](receive_buffer)
        self.running = False
        self._started = False
        self._cancel_scope = trio.CancelScope()
        self._nursery: trio.Nursery | None = None

    @property
    def key(self) -> bytes:
        return self._key

    @property
    def peers(self) -> tuple[bytes, ...]:
        return tuple(k for k in self.network.keys if k != self._key)

    @property
    def received(self) -> trio.MemoryReceiveChannel[tuple[bytes, bytes]]:
        return self._received

    @property
    def offline(self) -> bool:
        return self.network.is_offline(self._key)

    async def run(self, *, task_status: trio.TaskStatus[Any] = trio.TASK_STATUS_IGNORED) -> None:
        if self._started:
            raise RuntimeError("a transport runs once")
        self._started = True
        network = self.network
        outgoing = [network._directions[self._key, peer] for peer in self.peers]
        try:
            with self._cancel_scope:
                async with trio.open_nursery() as nursery:
                    self._nursery = nursery
                    for direction in outgoing:
                        nursery.start_soon(network._pump, direction)
                        nursery.start_soon(network._deliver, direction)
                        if not math.isinf(network.heartbeat):
                            nursery.start_soon(network._beat, direction)
                            nursery.start_soon(network._listen, direction.target, self._key)
                    self.running = True
                    network._update()
                    task_status.started()
                    await trio.sleep_forever()
        finally:
            self.running = False
            self._nursery = None
            self._received_send.close()
            for direction in outgoing:
                direction.queue_send.close()
            network._update()

    def close(self) -> None:
        self._cancel_scope.cancel()

    async def send(self, key: bytes, frame: bytes) -> None:
        await self._queue(key, frame).queue_send.send(frame)

    def send_nowait(self, key: bytes, frame: bytes) -> None:
        self._queue(key, frame).queue_send.send_nowait(frame)

    async def broadcast(self, frame: bytes) -> None:
        for key in self.peers:
            await self.send(key, frame)

    def is_connected(self, key: bytes) -> bool:
        """The link is up and (with a heartbeat) was heard from within the last one."""
        return self.network._link(self._key, key).up and not self.network._directions[key, self._key].silent

    async def wait_connected(self, keys: Iterable[bytes] | None = None) -> None:
        wanted = list(self.peers if keys is None else keys)
        while not all(self.is_connected(key) for key in wanted):
            await self.network._wait_changed()

    async def wait_disconnected(self, key: bytes) -> None:
        while self.is_connected(key):
            await self.network._wait_changed()

    def statistics(self) -> TransportStatistics:
        network = self.network
        peers = {}
        for peer in self.peers:
            out, back = network._directions[self._key, peer], network._directions[peer, self._key]
            link = network._link(self._key, peer)
            peers[peer] = PeerStatistics(
                connected=self.is_connected(peer),
                connections=link.connections,
                frames_sent=out.frames_sent,
                frames_received=back.frames_delivered,
                queued=out.queue_send.statistics().current_buffer_used,
                last_error=link.last_error,
                bytes_sent=out.bytes_sent,
                bytes_received=back.bytes_delivered,
            )
        return TransportStatistics(peers=peers, refused=0)

    # -- the same test controls as the TCP mesh ------------------------------------------------

    def drop_connection(self, key: bytes) -> None:
        """Break the link to ``key``; it comes back after the network's ``reconnect_after``
        seconds, as the TCP mesh reconnects."""
        network = self.network
        network.cut(self._key, key)
        if self._nursery is None:
            return

        async def reconnect() -> None:
            await trio.sleep(network.reconnect_after)
            network.heal(self._key, key)
        self._nursery.start_soon(reconnect)

    def go_offline(self) -> None:
        self.network.go_offline(self._key)

    def go_online(self) -> None:
        self.network.go_online(self._key)

    def _queue(self, key: bytes, frame: bytes) -> _Direction:
        if not frame:
            raise ValueError("empty frames are reserved for keep-alives")
        if len(frame) > self.network.max_frame_size:
            raise ValueError(f"a frame of {len(frame)} bytes is over the limit of {self.network.max_frame_size} bytes")
        try:
            return self.network._directions[self._key, key]
        except KeyError:
            raise KeyError("this key is not another member of this table") from None
