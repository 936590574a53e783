"""The connections a listener serves before they have shown who they are.

A listener (a member's mesh port, the creator's join port, the local page) cannot tell
a stranger from a member until a handshake is done, so strangers must never be able to
fill its room and lock the members out. Every connection that has not yet shown who it is
holds a :class:`Slot` of the listener's :class:`ConnectionPool`, and these rules
(docs/reliability.md, "Hostile connections") decide who is closed:

- **first frame**: a connection must send its first frame within ``first_frame``
  seconds, or it is closed (:attr:`Closed.SILENT`);
- **per address**: at most ``per_address`` slots per address; one more from that
  address closes *that address's* oldest, so an address only ever displaces itself;
- **in all**: at most ``capacity`` slots; one more closes an *old* connection, never the
  new one (:attr:`Closed.DISPLACED`): the oldest of the address that holds the most slots.
  Whoever squats, a newcomer gets a turn, and squatters that come back the moment they
  are closed displace each other, not a newcomer from an address of its own;
- **known addresses** (a roster's, as ``known`` says) are exempt from the per-address cap
  and displaced last: a newcomer displaces a connection from an unknown address while
  there is one; when every slot is held from known addresses, a newcomer from an unknown
  address is closed itself (:attr:`Closed.REFUSED`) and one from a known address
  displaces by the rule above;
- a connection that authenticates leaves the pool (its ``with`` block ends).

A slot is a cancel scope around the connection's handshake: the pool closes a connection
by cancelling it, and the caller then closes the stream::

    with pool.slot(address) as slot:
        await wait_first_frame(framed)     # within first_frame seconds
        slot.heard()
        member = await handshake(framed)   # the caller's own handshake deadline
    if slot.closed is not None:
        ...                                # slot.closed says why; close the stream
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import Enum

import trio

__all__ = ["Closed", "ConnectionPool", "PoolStatistics", "Slot"]


class Closed(Enum):
    """Why the pool closed a connection (the value completes "a connection from X ...")."""

    SILENT = "sent nothing in time"
    DISPLACED = "was displaced by a newer connection"
    REFUSED = "found every slot held by a member's address"


@dataclass(eq=False)
class Slot:
    """One connection's place in the pool while it has not shown who it is."""

    address: str
    known: bool
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)
    closed: Closed | None = None

    def heard(self) -> None:
        """The first frame arrived: the first-frame deadline no longer applies."""
        self.scope.deadline = math.inf


@dataclass(frozen=True)
class PoolStatistics:
    open: int
    """Connections holding a slot now."""
    silent: int
    displaced: int
    refused: int
    """Closed by the pool so far, by :class:`Closed` reason."""


class ConnectionPool:
    """The slots of one listener (module docstring). ``per_address=None``: no per-address
    cap (the local page: everything comes from 127.0.0.1); ``known(address)``: whether
    connections from ``address`` are exempt (default: none)."""

    def __init__(self, capacity: int, per_address: int | None = None, *, first_frame: float = 1.0,
                 known: Callable[[str], bool] = lambda address: False) -> None:
        if capacity < 1 or (per_address is not None and per_address < 1):
            raise ValueError("a pool needs room for at least one connection")
        self.capacity = capacity
        self.per_address = per_address
        self.first_frame = first_frame
        self.known = known
        self._slots: list[Slot] = []     # oldest first
        self._closed = dict.fromkeys(Closed, 0)

    def __len__(self) -> int:
        return len(self._slots)

    def statistics(self) -> PoolStatistics:
        return PoolStatistics(len(self._slots), self._closed[Closed.SILENT], self._closed[Closed.DISPLACED],
                              self._closed[Closed.REFUSED])

    @contextmanager
    def slot(self, address: str) -> Iterator[Slot]:
        """A slot for a new connection from ``address``, making room by the rules; the
        block is cancelled when the pool closes the connection (``slot.closed`` says why)."""
        slot = Slot(address, self.known(address))
        slot.scope.deadline = trio.current_time() + self.first_frame
        self._make_room(slot)
        if slot.closed is None:
            self._slots.append(slot)
        try:
            with slot.scope:
                yield slot
        finally:
            if slot in self._slots:
                self._slots.remove(slot)
            if slot.scope.cancelled_caught and slot.closed is None:
                self._close(slot, Closed.SILENT)

    def _make_room(self, new: Slot) -> None:
        if not new.known and self.per_address is not None:
            same = [slot for slot in self._slots if slot.address == new.address]
            if len(same) >= self.per_address:
                self._close(same[0], Closed.DISPLACED)
                return
        if len(self._slots) < self.capacity:
            return
        strangers = [slot for slot in self._slots if not slot.known]
        if strangers:
            self._close(_oldest_of_busiest(strangers), Closed.DISPLACED)
        elif new.known:
            self._close(_oldest_of_busiest(self._slots), Closed.DISPLACED)
        else:
            self._close(new, Closed.REFUSED)

    def _close(self, slot: Slot, reason: Closed) -> None:
        slot.closed = reason
        slot.scope.cancel()
        self._closed[reason] += 1
        if slot in self._slots:
            self._slots.remove(slot)


def _oldest_of_busiest(slots: list[Slot]) -> Slot:
    """The oldest of ``slots`` (oldest first) from the address that holds the most of them."""
    held = Counter(slot.address for slot in slots)
    most = max(held.values())
    return next(slot for slot in slots if held[slot.address] == most)
