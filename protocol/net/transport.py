"""What the table driver needs from a network: the :class:`Transport` interface.

A transport connects one member of a table to the others and moves opaque frames
(bytes, never empty) between them, addressed by the members' public keys. It knows
nothing of the protocol: the driver (:mod:`p2p_sasaki.protocol.net.table`) puts
the session's envelopes in and takes what arrives out. Two implementations:

- :class:`p2p_sasaki.protocol.net.mesh.Mesh`, the real one: a full TCP mesh,
  authenticated by identity key, reconnecting after a failure;
- :class:`p2p_sasaki.protocol.net.memory.MemoryTransport`, one endpoint of an
  in-process :class:`~p2p_sasaki.protocol.net.memory.MemoryNetwork` over trio memory
  channels, which can be made hostile (drop, duplicate, delay and so reorder frames,
  cut a link, take a member offline) from a seed, for tests in virtual time.

What every transport promises (and what it does not):

- ``run`` (started with ``await nursery.start(transport.run)``) connects to the other
  members and keeps reconnecting until :meth:`~Transport.close` or cancellation;
  ``received`` then ends;
- :meth:`~Transport.send` queues a frame for one member; a frame queued while the member
  is unreachable waits in its queue and goes out when the link is back. But a frame
  that was on its way when a link broke may be lost, and a hostile network may lose,
  duplicate or reorder frames even on a live link: the driver re-sends, and the
  session ignores duplicates and orders what it gets (the driver's "Transport
  reliability");
- ``received`` yields ``(peer_key, frame)`` for every frame that arrived;
- :meth:`~Transport.is_connected` is the transport's current belief about a link (with a
  ``heartbeat``: false as soon as nothing, not even a keep-alive, came over it for one
  heartbeat, see :func:`keepalive_interval`);
  :meth:`~Transport.wait_connected` / :meth:`~Transport.wait_disconnected` wait for it
  to change; :meth:`~Transport.statistics` counts frames, bytes and queues per peer.

>>> from p2p_sasaki.protocol.net.memory import MemoryNetwork
>>> network = MemoryNetwork([b"A" * 32, b"B" * 32])
>>> isinstance(network.transport(b"A" * 32), Transport)
True
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import trio

__all__ = ["Transport", "PeerStatistics", "TransportStatistics", "keepalive_interval"]

KEEPALIVE_EVERY = 1.0
"""The longest pause between two keep-alives on a link (seconds): a member's ``heartbeat``
is its own choice, so every member sends often enough for any heartbeat of 2 s or more."""


def keepalive_interval(heartbeat: float) -> float:
    """How often a member sends a keep-alive on each link: every second, or every half
    ``heartbeat`` if that is shorter (so that one late keep-alive is never a silence).

    >>> keepalive_interval(5.0), keepalive_interval(0.4)
    (1.0, 0.2)
    """
    return min(heartbeat / 2, KEEPALIVE_EVERY)


@dataclass(frozen=True)
class PeerStatistics:
    """One other member, as this member's transport sees it."""

    connected: bool
    connections: int
    """Connections so far (a reconnection adds one)."""
    frames_sent: int
    frames_received: int
    queued: int
    """Frames waiting in this peer's send queue."""
    last_error: str | None
    bytes_sent: int = 0
    """Bytes of the frames counted in ``frames_sent``, each with its 4-byte length prefix
    (keep-alives and handshakes are not counted)."""
    bytes_received: int = 0


@dataclass(frozen=True)
class TransportStatistics:
    peers: dict[bytes, PeerStatistics]
    refused: int
    """Handshakes this member refused (wrong table, unknown key, bad signature...)."""

    @property
    def sending(self) -> bool:
        """Frames still wait in a connected peer's send queue (what is queued for a peer that
        is gone, having left or lost its link, is not waited for: it never leaves)."""
        return any(peer.queued and peer.connected for peer in self.peers.values())


@runtime_checkable
class Transport(Protocol):
    """One member's connections to the other members of a table (module docstring)."""

    @property
    def key(self) -> bytes:
        """This member's public key."""
        ...

    @property
    def peers(self) -> tuple[bytes, ...]:
        """The other members' keys."""
        ...

    @property
    def received(self) -> trio.MemoryReceiveChannel[tuple[bytes, bytes]]:
        """``(peer_key, frame)`` for every frame that arrived; ends when the transport stops."""
        ...

    @property
    def offline(self) -> bool:
        """True while this member is cut off from everybody on purpose (tests: a closed lid)."""
        ...

    async def run(self, *, task_status: trio.TaskStatus[Any] = trio.TASK_STATUS_IGNORED) -> None:
        """Connect and stay connected until :meth:`close`; ``task_status.started()`` when ready."""
        ...

    def close(self) -> None:
        """Stop: every link closes and ``received`` ends."""
        ...

    async def send(self, key: bytes, frame: bytes) -> None:
        """Queue ``frame`` for the member ``key``; waits only if its queue is full."""
        ...

    def send_nowait(self, key: bytes, frame: bytes) -> None:
        """Queue ``frame`` for ``key``; raises :class:`trio.WouldBlock` if its queue is full."""
        ...

    async def broadcast(self, frame: bytes) -> None:
        """Queue ``frame`` for every other member."""
        ...

    def is_connected(self, key: bytes) -> bool:
        """Whether the link to ``key`` is up right now."""
        ...

    async def wait_connected(self, keys: Iterable[bytes] | None = None) -> None:
        """Wait until the links to each of ``keys`` (default: every other member) are up."""
        ...

    async def wait_disconnected(self, key: bytes) -> None:
        """Wait until the link to ``key`` is down."""
        ...

    def statistics(self) -> TransportStatistics:
        ...
