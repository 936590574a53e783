"""The match runner (protocol/net/match.py): ``play_match`` and ``next_match`` through their
typed options and the :class:`MatchHost` interface, in virtual time on the in-memory network
(``autojump_clock``). The agreement itself is tested in tests/net/test_next_match.py; here,
what the runner tells its host, and where it puts the files."""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
import trio

from p2p_sasaki.protocol.net import Identity, TableRoster, match
from p2p_sasaki.protocol.net.botseat import ReplaceSeat
from p2p_sasaki.protocol.net.match import MatchHost, MatchOptions, next_match, play_match
from p2p_sasaki.protocol.net.memory import MemoryNetwork
from p2p_sasaki.protocol.net.table import BotPlayer, Player, TableResult, run_table
from p2p_sasaki.protocol.net.transport import Transport
from p2p_sasaki.sasaki.bots import HeuristicBot
from tests.net.test_next_match import CONFIG, IDENTITIES, KEYS, ROSTER


class RecordingHost:
    """A :class:`MatchHost` that keeps what it is told, and answers the next-match question."""

    def __init__(self, wants_next: bool = True) -> None:
        self.wants_next = wants_next
        self.on_event: Callable[[Any, Any], None] | None = None
        self.said: list[str] = []
        self.announced: list[str] = []
        self.hands: list[int] = []
        self.finished_paths: list[Path | None] = []
        self.asked: list[float] = []

    async def run_views(self) -> None:
        return None

    def say(self, text: str) -> None:
        self.said.append(text)

    def announce(self, text: str) -> None:
        self.announced.append(text)

    def member_label(self, key: bytes) -> str:
        return f"member {KEYS.index(key)}"

    def match_hands(self, hands: int) -> None:
        self.hands.append(hands)

    def match_over(self, result: TableResult, going_on: bool) -> None:
        raise AssertionError("run_match's, not play_match's")

    def next_match_starts(self, match_no: int) -> None:
        raise AssertionError("run_match's, not play_match's")

    def seat_replaced(self, carried: Sequence[int]) -> None:
        raise AssertionError("no seat is replaced here")

    async def decide_next(self, seconds: float) -> bool:
        self.asked.append(seconds)
        return self.wants_next

    async def replace_seat(self, identity: Identity, roster: TableRoster, mesh: Transport,
                           result: TableResult) -> ReplaceSeat | None:
        raise AssertionError("no seat is replaced here")

    def bot_player(self, bot: Identity) -> Player:
        raise AssertionError("no seat is replaced here")

    async def finished(self, result: TableResult) -> None:
        self.finished_paths.append(result.transcript)


def test_the_recording_host_is_a_match_host() -> None:
    host: MatchHost = RecordingHost()   # checked by mypy (tools/typecheck.py)
    assert host.on_event is None


async def four_peers(tmp_path: Path, policies: list[str], hosts: list[RecordingHost]) -> list[list[TableResult]]:
    """Four peers play a match with ``play_match``, then ``next_match`` (each with its
    ``--next-match`` policy), and on agreement match 2 at the fresh table."""
    network = MemoryNetwork(KEYS)
    results: list[list[TableResult]] = [[] for _ in range(4)]

    async def run(n: int) -> None:
        options = MatchOptions(data_dir=tmp_path / f"data{n}", transcript=tmp_path / f"peer{n}.sasaki",
                               next_match=policies[n], deal_seed=5)
        player = BotPlayer(HeuristicBot(random.Random(n)))
        transport = network.transport(KEYS[n])
        async with trio.open_nursery() as links:
            await links.start(transport.run)
            first = await play_match(IDENTITIES[n], ROSTER, transport, CONFIG if n == 0 else None, player, hosts[n],
                                     options)
            results[n].append(first)
            agreed = await next_match(IDENTITIES[n], ROSTER, transport, first, player, hosts[n], options, 1)
            if agreed is not None:
                roster, early = agreed
                results[n].append(await play_match(IDENTITIES[n], roster, transport, first.config, player, hosts[n],
                                                   options, match_no=2, early=early))
            transport.close()
            links.cancel_scope.cancel()

    with trio.fail_after(3600):      # virtual seconds
        async with trio.open_nursery() as nursery:
            for n in range(4):
                nursery.start_soon(run, n)
    return results


@pytest.fixture
def crypto_on_the_trio_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    # virtual time: a worker thread would let the mock clock jump ahead while the crypto runs
    monkeypatch.setattr(match, "run_table", functools.partial(run_table, step_in_thread=False))


async def test_a_next_match_is_played_at_a_fresh_table_with_its_own_transcript(
        autojump_clock, tmp_path, crypto_on_the_trio_thread):
    hosts = [RecordingHost() for _ in range(4)]
    results = await four_peers(tmp_path, ["yes", "yes", "ask", "yes"], hosts)
    assert all(len(mine) == 2 and all(result.finished for result in mine) for mine in results)
    for n, host in enumerate(hosts):
        first, second = tmp_path / f"peer{n}.sasaki", tmp_path / f"peer{n}-2.sasaki"
        assert host.said == [f"The table is full. Connecting to the other three players; transcript: {first}",
                             f"Next match at a fresh table; transcript: {second}"]
        # the creator knows its options; a joiner learns them from the creator's frame, so only
        # match 2 (its options agreed beforehand) tells its hands to the joiner's host
        assert host.hands == ([CONFIG.hands, CONFIG.hands] if n == 0 else [CONFIG.hands])
        assert host.finished_paths == [first, second] and host.announced == []
        assert [result.transcript for result in results[n]] == [first, second]
        assert (tmp_path / f"data{n}" / "tables" / ROSTER.table_id.hex()).is_dir()
    assert [len(host.asked) for host in hosts] == [0, 0, 1, 0]   # only "ask" asks its host
    for name in ("peer{}.sasaki", "peer{}-2.sasaki"):
        assert len({(tmp_path / name.format(n)).read_bytes() for n in range(4)}) == 1


async def test_no_next_match_is_announced_with_who_declined(autojump_clock, tmp_path, crypto_on_the_trio_thread):
    hosts = [RecordingHost(), RecordingHost(), RecordingHost(wants_next=False), RecordingHost()]
    results = await four_peers(tmp_path, ["yes", "yes", "ask", "yes"], hosts)
    assert all(len(mine) == 1 for mine in results)
    assert [host.announced for host in hosts] == [["No next match: member 2 declined."]] * 2 + [
        ["No next match: you declined."], ["No next match: member 2 declined."]]


async def test_a_peer_that_plays_one_match_says_so(autojump_clock, tmp_path, crypto_on_the_trio_thread):
    hosts = [RecordingHost() for _ in range(4)]
    await four_peers(tmp_path, ["yes", "yes", "yes", "no"], hosts)
    assert hosts[3].announced == ["No next match: this peer plays one match (a bot, or --next-match no)."]
    assert hosts[0].announced == ["No next match: member 3 declined."] and hosts[3].asked == []
