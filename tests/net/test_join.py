"""protocol/net/join.py: table codes, and SPAKE2 joining over real sockets on 127.0.0.1."""

from __future__ import annotations

import hashlib
import random

import pytest
import trio

from p2p_sasaki.protocol.net.identity import Identity, TableRoster
from p2p_sasaki.protocol.net.join import (
    CodeBurntError,
    InvalidCodeError,
    JoinError,
    MemberJoined,
    MemberLeft,
    TableClosedError,
    TableCode,
    WrongCodeError,
    WrongCodeTried,
    host_table,
    join_table,
)
from p2p_sasaki.protocol.net.words import WORDS

CODE = TableCode.parse("7-purple-sausage")
WRONG = TableCode.parse("7-purple-otter")


def test_word_list_is_pinned():
    assert len(WORDS) == 256 == len(set(WORDS))
    assert all(word.isascii() and word.isalpha() and word.islower() and len(word) <= 7 for word in WORDS)
    assert hashlib.sha256(" ".join(WORDS).encode()).hexdigest()[:16] == "32c866af64edc3c2"


def test_code_generate_parse_and_format():
    code = TableCode.generate(random.Random(4))
    assert TableCode.parse(str(code)) == code
    assert 1 <= int(code.nameplate) <= 99 and all(word in WORDS for word in code.words)
    assert TableCode.generate(random.Random(4)) == code  # rng injected: reproducible
    assert TableCode.parse("  12 Purple  SAUSAGE") == TableCode("12", ("purple", "sausage"))
    assert CODE.password == b"7-purple-sausage"
    assert TableCode.generate(nameplate="42").nameplate == "42"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("purple-sausage", "is not a table code like 7-purple-sausage"),
        ("x-purple-sausage", "'x' is not a nameplate"),
        ("7-purple-sausages", "'sausages' is not one of the table-code words"),
        ("7-purple-sausage-otter", "is not a table code"),
    ],
)
def test_code_parse_errors(text: str, message: str):
    with pytest.raises(InvalidCodeError, match=message):
        TableCode.parse(text)


async def listen() -> tuple[list[trio.SocketListener], tuple[str, int]]:
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    return listeners, ("127.0.0.1", listeners[0].socket.getsockname()[1])


class Table:
    """A creator hosting on 127.0.0.1, recording its events and result."""

    def __init__(self, seats: int = 4) -> None:
        self.creator = Identity.generate()
        self.seats = seats
        self.events: list[object] = []
        self.roster: TableRoster | None = None
        self.error: Exception | None = None

    async def run(self, *, task_status: trio.TaskStatus[tuple[str, int]] = trio.TASK_STATUS_IGNORED) -> None:
        listeners, address = await listen()
        task_status.started(address)
        try:
            self.roster = await host_table(self.creator, CODE, 5000, listeners, seats=self.seats,
                                           on_event=self.events.append, handshake_timeout=3)
        except CodeBurntError as exc:
            self.error = exc


async def test_right_code_seats_three_joiners_and_everyone_learns_the_keys():
    table = Table()
    joiners = [Identity.generate() for _ in range(3)]
    rosters: dict[int, TableRoster] = {}

    async def join(index: int, address: tuple[str, int]) -> None:
        rosters[index] = await join_table(joiners[index], CODE, address, 6000 + index)

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            address = await nursery.start(table.run)
            for index in range(3):
                nursery.start_soon(join, index, address)
    assert table.roster is not None
    assert table.roster.members[0].key == table.creator.public_key
    assert table.roster.members[0].port == 5000
    assert sorted(m.key for m in table.roster.members[1:]) == sorted(j.public_key for j in joiners)
    for member in table.roster.members[1:]:
        index = next(i for i, j in enumerate(joiners) if j.public_key == member.key)
        assert (member.host, member.port) == ("127.0.0.1", 6000 + index)  # host as the creator saw it
    for roster in rosters.values():
        assert roster.table_id == table.roster.table_id
        assert roster.keys == table.roster.keys
        assert roster.members[0].host == "127.0.0.1"  # filled in by the joiner
        assert roster.members[1:] == table.roster.members[1:]
    assert [e.seats_taken for e in table.events if isinstance(e, MemberJoined)] == [2, 3, 4]


async def test_wrong_code_is_refused_on_both_sides_and_the_table_goes_on():
    table = Table(seats=2)
    joiner = Identity.generate()
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            address = await nursery.start(table.run)
            with pytest.raises(WrongCodeError) as info:
                await join_table(Identity.generate(), WRONG, address, 6000)
            assert str(info.value) == f"the table at 127.0.0.1:{address[1]} refused the code 7-purple-otter: wrong code"
            roster = await join_table(joiner, CODE, address, 6001)
    assert [str(e) for e in table.events if isinstance(e, WrongCodeTried)] == [
        "someone at 127.0.0.1 tried a wrong code (1 of 3 allowed)"
    ]
    assert roster.keys == (table.creator.public_key, joiner.public_key)
    assert table.roster is not None and table.roster.keys == roster.keys


async def test_wrong_nameplate_is_not_an_attempt():
    table = Table(seats=2)
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            address = await nursery.start(table.run)
            with pytest.raises(JoinError, match="is table 7, but the code 8-purple-sausage is for table 8"):
                await join_table(Identity.generate(), TableCode.parse("8-purple-sausage"), address, 6000)
            await join_table(Identity.generate(), CODE, address, 6001)
    assert not [e for e in table.events if isinstance(e, WrongCodeTried)]


async def test_code_is_burnt_after_three_wrong_codes(autojump_clock):
    table = Table()
    waiting = Identity.generate()
    outcome: list[Exception] = []

    async def join_and_wait(address: tuple[str, int]) -> None:
        try:
            await join_table(waiting, CODE, address, 6000)
        except JoinError as exc:
            outcome.append(exc)

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            address = await nursery.start(table.run)
            nursery.start_soon(join_and_wait, address)  # admitted, waits for the table to fill
            while not table.events:
                await trio.sleep(0.01)
            for attempt in range(1, 4):
                with pytest.raises(WrongCodeError) as info:
                    await join_table(Identity.generate(), WRONG, address, 6000)
                assert ("burnt" in str(info.value)) == (attempt == 3)
    assert isinstance(table.error, CodeBurntError)
    assert str(table.error) == "3 wrong codes were tried, so the code 7-purple-sausage is burnt; start the table again"
    assert isinstance(outcome[0], TableClosedError)
    assert "burnt after three wrong codes" in str(outcome[0])
    # the creator stopped listening: even the right code gets nowhere now
    with pytest.raises(JoinError, match="could not reach a table at 127.0.0.1"):
        await join_table(Identity.generate(), CODE, address, 6000)


async def test_code_is_burnt_once_the_table_is_full():
    table = Table(seats=2)
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            address = await nursery.start(table.run)
            await join_table(Identity.generate(), CODE, address, 6000)
    assert table.roster is not None and len(table.roster.members) == 2
    with pytest.raises(JoinError, match="could not reach a table at 127.0.0.1"):
        await join_table(Identity.generate(), CODE, address, 6000)


async def test_a_joiner_racing_for_the_last_seat_is_told_the_table_is_full():
    """Two joiners start their handshakes; the table fills while the slower one is in the middle."""
    from p2p_sasaki.protocol.net import join as join_module

    table = Table(seats=2)
    slow_started, let_slow_go = trio.Event(), trio.Event()
    real_handshake = join_module._joiner_handshake

    async def slow_handshake(framed, *args):
        slow_started.set()
        await let_slow_go.wait()
        return await real_handshake(framed, *args)

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            address = await nursery.start(table.run)
            join_module._joiner_handshake = slow_handshake
            try:
                slow = trio.Event()
                result: list[Exception] = []
                admitted: list[str] = []     # on_admitted: said to a seated joiner only (cli "You have a seat")

                async def slow_joiner() -> None:
                    try:
                        await join_table(Identity.generate(), CODE, address, 6000,
                                         on_admitted=lambda: admitted.append("slow"))
                    except JoinError as exc:
                        result.append(exc)
                    slow.set()

                nursery.start_soon(slow_joiner)
                await slow_started.wait()
            finally:
                join_module._joiner_handshake = real_handshake
            await join_table(Identity.generate(), CODE, address, 6001, on_admitted=lambda: admitted.append("fast"))
            let_slow_go.set()
            await slow.wait()
    assert isinstance(result[0], TableClosedError)
    assert str(result[0]).endswith("refused to seat you: this table is full")
    assert admitted == ["fast"]         # the one refused was never told it had a seat


async def test_a_joiner_who_leaves_early_frees_its_seat(autojump_clock):
    table = Table(seats=3)
    rosters: list[TableRoster] = []

    async def join(identity: Identity, address: tuple[str, int], port: int) -> None:
        rosters.append(await join_table(identity, CODE, address, port))

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            address = await nursery.start(table.run)
            async with trio.open_nursery() as leaving:
                leaving.start_soon(join, Identity.generate(), address, 6000)
                while not table.events:
                    await trio.sleep(0.01)
                leaving.cancel_scope.cancel()  # it closes its laptop before the table is full
            while len(table.events) < 2:
                await trio.sleep(0.01)
            stayers = [Identity.generate(), Identity.generate()]
            for index, identity in enumerate(stayers):
                nursery.start_soon(join, identity, address, 6001 + index)
    assert [type(e).__name__ for e in table.events] == ["MemberJoined", "MemberLeft", "MemberJoined", "MemberJoined"]
    left = table.events[1]
    assert isinstance(left, MemberLeft) and left.seats_taken == 1
    assert table.roster is not None
    assert sorted(table.roster.keys[1:]) == sorted(i.public_key for i in stayers)
    assert len(rosters) == 2 and all(r.keys == table.roster.keys for r in rosters)


async def test_a_creator_of_another_version_is_named_in_one_sentence():
    """A creator that greets with protocol version 1: the joiner says so, and tells it why."""
    import msgpack

    from p2p_sasaki.protocol.messages import PROTOCOL_VERSION, Refusal, decode_handshake
    from p2p_sasaki.protocol.net.framing import FramedStream

    listeners, address = await listen()
    told: list[object] = []
    answered = trio.Event()

    async def old_creator(stream: trio.SocketStream) -> None:
        framed = FramedStream(stream, "the joiner")
        await framed.send(msgpack.packb(["join-greeting", 1, "7", bytes(32)]))
        told.append(decode_handshake(await framed.receive()))
        answered.set()

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(trio.serve_listeners, old_creator, listeners)
            with pytest.raises(JoinError) as info:
                await join_table(Identity.generate(), CODE, address, 6000)
            await answered.wait()
            nursery.cancel_scope.cancel()
    assert str(info.value) == (f"the table at {address[0]}:{address[1]} speaks protocol version 1, we speak version "
                               f"{PROTOCOL_VERSION}; both need the same p2p-sasaki release")
    assert told == [Refusal("version", f"this peer speaks protocol version {PROTOCOL_VERSION}, you speak version 1; "
                                       "both need the same p2p-sasaki release")]


async def test_a_tournament_host_starts_when_told_once_four_are_in():
    """host_tournament (protocol/net/tournament.py): an open number of seats; a start asked
    with three in waits for a fourth, then closes the join, and every joiner gets the same
    roster of four."""
    from p2p_sasaki.protocol.net.tournament import host_tournament

    creator = Identity.generate()
    joiners = [Identity.generate() for _ in range(3)]
    rosters: dict[int, TableRoster] = {}
    events: list[object] = []
    start = trio.Event()
    result: list[TableRoster] = []

    async def host(listeners: list[trio.SocketListener]) -> None:
        result.append(await host_tournament(creator, CODE, 5000, listeners, start=start, invitation=bytes(32),
                                            on_event=events.append))

    async def join(index: int, address: tuple[str, int]) -> None:
        rosters[index] = await join_table(joiners[index], CODE, address, 6000 + index)

    def joined() -> int:
        return max((e.seats_taken for e in events if isinstance(e, MemberJoined)), default=1)

    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            listeners, address = await listen()
            nursery.start_soon(host, listeners)
            for index in range(2):
                nursery.start_soon(join, index, address)
            while joined() < 3:
                await trio.sleep(0.01)
            start.set()                      # three in: too few, the join stays open
            await trio.sleep(0.3)
            assert not result and not rosters
            nursery.start_soon(join, 2, address)
    assert result and len(result[0].members) == 4
    assert all(roster.keys == result[0].keys for roster in rosters.values()) and len(rosters) == 3
