"""protocol/net/pool.py in virtual time: who is closed when strangers crowd a listener."""

from __future__ import annotations

import pytest
import trio
import trio.testing
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p_sasaki.protocol.net.pool import Closed, ConnectionPool, PoolStatistics, Slot


class Connections:
    """Connections holding slots of ``pool``, each in its own task until it is let go."""

    def __init__(self, pool: ConnectionPool, nursery: trio.Nursery) -> None:
        self.pool, self.nursery = pool, nursery
        self.slots: list[Slot] = []
        self._done: dict[int, trio.Event] = {}

    async def open(self, address: str, *, first_frame_after: float | None = None) -> Slot:
        """A new connection from ``address``; it sends its first frame ``first_frame_after``
        seconds later (never by default)."""
        done = trio.Event()

        async def hold(task_status: trio.TaskStatus[Slot]) -> None:
            with self.pool.slot(address) as slot:
                task_status.started(slot)
                if first_frame_after is not None:
                    await trio.sleep(first_frame_after)
                    slot.heard()
                await done.wait()

        slot = await self.nursery.start(hold)
        self.slots.append(slot)
        self._done[id(slot)] = done
        await trio.testing.wait_all_tasks_blocked()
        return slot

    async def authenticate(self, slot: Slot) -> None:
        """The connection finished its handshake: it leaves the pool."""
        self._done[id(slot)].set()
        await trio.testing.wait_all_tasks_blocked()

    def closed(self) -> list[Closed | None]:
        return [slot.closed for slot in self.slots]


async def test_a_connection_that_sends_nothing_for_a_second_is_closed(autojump_clock):
    pool = ConnectionPool(capacity=8, per_address=4)
    async with trio.open_nursery() as nursery:
        connections = Connections(pool, nursery)
        silent = await connections.open("10.0.0.1")
        talks = await connections.open("10.0.0.1", first_frame_after=0.9)
        late = await connections.open("10.0.0.1", first_frame_after=1.1)
        await trio.sleep(0.95)
        assert connections.closed() == [None, None, None]
        await trio.sleep(0.1)
        assert (silent.closed, talks.closed, late.closed) == (Closed.SILENT, None, Closed.SILENT)
        await trio.sleep(60)    # heard: the first-frame deadline no longer applies
        assert talks.closed is None and len(pool) == 1
        assert pool.statistics() == PoolStatistics(open=1, silent=2, displaced=0, refused=0)
        nursery.cancel_scope.cancel()


async def test_a_full_pool_closes_its_oldest_connection_not_the_new_one(autojump_clock):
    pool = ConnectionPool(capacity=4, per_address=2)
    async with trio.open_nursery() as nursery:
        connections = Connections(pool, nursery)
        for address in ("10.0.0.1", "10.0.0.2", "10.0.0.1", "10.0.0.2"):
            await connections.open(address)
        newest = await connections.open("10.0.0.3")
        assert connections.closed() == [Closed.DISPLACED, None, None, None, None]
        assert newest.closed is None and len(pool) == 4
        await connections.open("10.0.0.3")
        assert connections.closed() == [Closed.DISPLACED] * 2 + [None] * 4
        nursery.cancel_scope.cancel()


async def test_the_connection_displaced_is_the_oldest_of_the_address_holding_the_most(autojump_clock):
    pool = ConnectionPool(capacity=6, per_address=4)
    async with trio.open_nursery() as nursery:
        connections = Connections(pool, nursery)
        lone = await connections.open("10.0.0.5")            # the oldest, but alone at its address
        for address in ("10.0.0.1", "10.0.0.2", "10.0.0.1", "10.0.0.2", "10.0.0.1"):
            await connections.open(address)
        await connections.open("10.0.0.6")
        assert connections.closed() == [None, Closed.DISPLACED] + [None] * 5    # 10.0.0.1's oldest
        await connections.open("10.0.0.7")                      # 10.0.0.1 and .2 hold 2 each: the older
        assert connections.closed() == [None, Closed.DISPLACED, Closed.DISPLACED] + [None] * 5
        assert lone.closed is None
        nursery.cancel_scope.cancel()


async def test_one_address_over_its_cap_displaces_only_its_own_oldest(autojump_clock):
    pool = ConnectionPool(capacity=32, per_address=4)
    async with trio.open_nursery() as nursery:
        connections = Connections(pool, nursery)
        await connections.open("10.0.0.9")
        for _ in range(6):
            await connections.open("10.0.0.1")
        # the 5th and 6th from 10.0.0.1 closed its 1st and 2nd; the older 10.0.0.9 stays
        assert connections.closed() == [None, Closed.DISPLACED, Closed.DISPLACED, None, None, None, None]
        assert len(pool) == 5
        nursery.cancel_scope.cancel()


async def test_an_authenticated_connection_leaves_the_pool(autojump_clock):
    pool = ConnectionPool(capacity=2, per_address=2)
    async with trio.open_nursery() as nursery:
        connections = Connections(pool, nursery)
        member = await connections.open("10.0.0.1", first_frame_after=0.1)
        await trio.sleep(0.2)
        await connections.authenticate(member)
        assert len(pool) == 0
        await connections.open("10.0.0.2")
        await connections.open("10.0.0.2")
        assert connections.closed() == [None, None, None]    # the member no longer takes room
        nursery.cancel_scope.cancel()


async def test_known_addresses_always_get_a_slot_and_strangers_never_displace_them(autojump_clock):
    members = {"10.0.0.1", "10.0.0.2"}
    pool = ConnectionPool(capacity=4, per_address=1, known=members.__contains__)
    async with trio.open_nursery() as nursery:
        connections = Connections(pool, nursery)
        first = await connections.open("10.0.0.1")
        second = await connections.open("10.0.0.1")    # exempt from the per-address cap
        assert (first.known, first.closed, second.closed) == (True, None, None)
        squatters = [await connections.open(f"10.0.1.{i}") for i in range(2)]   # the pool is full now
        newcomer = await connections.open("10.0.1.9")
        assert [s.closed for s in squatters] == [Closed.DISPLACED, None] and newcomer.closed is None
        third = await connections.open("10.0.0.2")    # a member's address displaces the oldest stranger
        assert squatters[1].closed is Closed.DISPLACED and newcomer.closed is None and third.closed is None
        fourth = await connections.open("10.0.0.2")
        assert newcomer.closed is Closed.DISPLACED and fourth.closed is None
        stranger = await connections.open("10.0.1.8")  # every slot is a member's address: refused
        assert stranger.closed is Closed.REFUSED
        fifth = await connections.open("10.0.0.1")     # a member's address then displaces the oldest
        assert first.closed is Closed.DISPLACED and fifth.closed is None
        assert [s.closed for s in (second, third, fourth)] == [None, None, None]
        assert pool.statistics() == PoolStatistics(open=4, silent=0, displaced=4, refused=1)
        nursery.cancel_scope.cancel()


async def test_squatters_reopening_at_once_cannot_keep_a_member_out(autojump_clock):
    """32 squatters from 8 addresses, each reopened the moment it closes: a member's
    connection gets a slot at once and keeps it while the squatters churn (33 want the 32
    slots, so each squatter that comes back displaces another)."""
    pool = ConnectionPool(capacity=32, per_address=4, known={"10.0.0.1"}.__contains__)
    async with trio.open_nursery() as nursery:
        connections = Connections(pool, nursery)
        squatters = {address: 0 for address in (f"10.0.1.{i}" for i in range(8))}

        async def squat(address: str) -> None:
            while True:
                with pool.slot(address):
                    squatters[address] += 1
                    await trio.sleep_forever()
                await trio.sleep(0.001)         # a reconnection's round trip

        for address in squatters:
            for _ in range(4):
                nursery.start_soon(squat, address)
        await trio.testing.wait_all_tasks_blocked()
        assert len(pool) == 32
        member = await connections.open("10.0.0.1", first_frame_after=0.01)
        await trio.sleep(0.5)
        assert member.closed is None and member in pool._slots
        assert sum(squatters.values()) > 32       # they came back, and every second again
        nursery.cancel_scope.cancel()


def test_a_pool_needs_room():
    with pytest.raises(ValueError, match="at least one"):
        ConnectionPool(capacity=0)


KNOWN = {"m0", "m1"}
ADDRESSES = sorted(KNOWN) + [f"s{i}" for i in range(5)]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["open", "authenticate"]), st.sampled_from(ADDRESSES),
                          st.integers(0, 20)), max_size=40),
       st.integers(1, 6), st.integers(1, 3))
def test_the_rules_hold_for_any_arrivals(steps, capacity, per_address):
    """Whatever arrives: the caps hold, a stranger never displaces a member's address, a
    member's address is never refused, a newcomer is refused only when every slot is held
    from members' addresses, and a full pool takes from the busiest address."""
    async def run() -> None:
        pool = ConnectionPool(capacity, per_address, known=KNOWN.__contains__)
        async with trio.open_nursery() as nursery:
            connections = Connections(pool, nursery)
            for action, address, index in steps:
                before = {id(slot): slot.closed for slot in connections.slots}
                if action == "authenticate":
                    waiting = [s for s in connections.slots if s.closed is None and s in pool._slots]
                    if waiting:
                        await connections.authenticate(waiting[index % len(waiting)])
                    continue
                all_known = len(pool) == capacity and all(s.known for s in pool._slots)
                held_before = {a: sum(s.address == a for s in pool._slots if not s.known) for a in ADDRESSES}
                new = await connections.open(address)
                displaced = [s for s in connections.slots if before.get(id(s), "new") is None and s.closed]
                assert len(pool) <= capacity
                for stranger in set(ADDRESSES) - KNOWN:
                    assert sum(s.address == stranger for s in pool._slots) <= per_address
                assert len(displaced) <= 1
                if address in KNOWN:
                    assert new.closed is None
                else:
                    assert all(not s.known for s in displaced)
                    assert (new.closed is Closed.REFUSED) == all_known
                if displaced and not displaced[0].known and displaced[0].address != address:
                    # full: the busiest address gave way
                    assert held_before[displaced[0].address] == max(held_before.values())
            nursery.cancel_scope.cancel()

    trio.run(run, clock=trio.testing.MockClock(autojump_threshold=0))
