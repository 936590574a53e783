"""A next match with the same four (protocol/followon.py, protocol/net/followon.py), in virtual
time: four real drivers on an in-memory network (``MockClock(autojump_threshold=0)``, the
``autojump_clock`` fixture) play a match, agree (or not) on a next one over the same links,
and play it at a fresh table. Everything is seeded."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
import trio

from p2p_sasaki.protocol.chain import table_id_of
from p2p_sasaki.protocol.crypto import SeededEntropy
from p2p_sasaki.protocol.followon import FollowOn, link_of
from p2p_sasaki.protocol.messages import TranscriptHeader
from p2p_sasaki.protocol.net import Identity, TableMember, TableRoster
from p2p_sasaki.protocol.net.followon import FollowOnOutcome, agree_follow_on
from p2p_sasaki.protocol.net.match import decode_config, encode_config
from p2p_sasaki.protocol.net.memory import MemoryNetwork
from p2p_sasaki.protocol.net.table import BotPlayer, TableResult, run_table
from p2p_sasaki.protocol.sasaki_game import SasakiGame
from p2p_sasaki.protocol.session import Record, TableConfig, TableSession
from p2p_sasaki.protocol.table_audit import audit_table
from p2p_sasaki.sasaki.bots import HeuristicBot
from p2p_sasaki.sasaki.options import TableOptions

pytestmark = pytest.mark.usefixtures("no_fsync")   # in-process drivers: no disk waits (tests/conftest.py)

CONFIG = TableConfig(hands=1, game=SasakiGame(TableOptions(lead_card="3S")), proofs=False)
IDENTITIES = [Identity.generate(SeededEntropy(b"next match peer %d" % n)) for n in range(4)]
KEYS = [identity.public_key for identity in IDENTITIES]
ROSTER = TableRoster(bytes(range(32)), tuple(TableMember(key, "memory", n, bytes([n]) * 32)
                                             for n, key in enumerate(KEYS)))
ANSWER_SECONDS = 30.0

Decide = Callable[[], Awaitable[bool]]


async def yes() -> bool:
    return True


async def no() -> bool:
    return False


async def never() -> bool:          # a person who does not answer
    await trio.sleep_forever()
    raise AssertionError


@dataclass
class Peer:
    results: list[TableResult] = field(default_factory=list)
    transcripts: list[list[bytes]] = field(default_factory=list)
    outcome: FollowOnOutcome | None = None


def session_factory(n: int, match: int) -> Callable[[Identity, TableRoster, Any], TableSession]:
    def make(identity: Identity, roster: TableRoster, config: Any) -> TableSession:
        return TableSession(identity, roster.keys, roster.table_id, config,
                            rng=SeededEntropy(b"session %d match %d" % (n, match)))
    return make


async def play(n: int, transport: Any, roster: TableRoster, config: Any, peer: Peer, early: Any = ()) -> TableResult:
    records: list[bytes] = []
    peer.transcripts.append(records)

    def event(ev: Any, session: Any) -> None:
        if isinstance(ev, Record):
            records.append(ev.data)

    result = await run_table(IDENTITIES[n], roster, config, player=BotPlayer(HeuristicBot(random.Random(n))),
                             transcript_path=None, on_event=event, config_codec=(encode_config, decode_config),
                             session_factory=session_factory(n, len(peer.results) + 1), transport=transport,
                             transport_running=True, early_frames=early, step_in_thread=False)
    peer.results.append(result)
    return result


async def table(decisions: list[Decide | None]) -> list[Peer]:
    """Four peers play a match, then each (``None``: a peer that leaves at once) answers the
    next-match question; on agreement they play the next match over the same links."""
    network = MemoryNetwork(KEYS)
    peers = [Peer() for _ in range(4)]

    async def run(n: int) -> None:
        transport = network.transport(KEYS[n])
        async with trio.open_nursery() as links:
            await links.start(transport.run)
            first = await play(n, transport, ROSTER, CONFIG if n == 0 else None, peers[n])
            decide = decisions[n]
            if decide is not None:
                assert first.final_hash is not None
                outcome = await agree_follow_on(transport, IDENTITIES[n], FollowOn(ROSTER, first.final_hash, KEYS[n]),
                                                decide, ANSWER_SECONDS, frames=first.follow_on,
                                                entropy=SeededEntropy(b"next nonce %d" % n))
                peers[n].outcome = outcome
                if outcome.roster is not None:
                    await play(n, transport, outcome.roster, first.config if n == 0 else None, peers[n],
                               outcome.early)
            transport.close()
            links.cancel_scope.cancel()

    with trio.fail_after(3600):      # virtual seconds
        async with trio.open_nursery() as nursery:
            for n in range(4):
                nursery.start_soon(run, n)
    return peers


async def test_all_four_agree_and_the_next_match_is_a_fresh_linked_table(autojump_clock):
    peers = await table([yes, yes, yes, yes])
    first = b"".join(peers[0].transcripts[0])
    assert all(b"".join(p.transcripts[0]) == first for p in peers)
    final = peers[0].results[0].final_hash
    assert final is not None and all(p.results[0].final_hash == final for p in peers)
    rosters = {p.outcome.roster for p in peers if p.outcome is not None}
    assert len(rosters) == 1
    roster = rosters.pop()
    assert roster is not None and roster.keys == ROSTER.keys
    assert [m.nonce for m in roster.members] == [SeededEntropy(b"next nonce %d" % n)(32) for n in range(4)]
    assert roster.table_id == table_id_of(link_of(ROSTER.table_id, final, "rematch", KEYS), roster.members)
    assert roster.table_id != ROSTER.table_id
    # The old transcript is complete on its own; the new one too, under the new table id.
    second = b"".join(peers[0].transcripts[1])
    assert all(b"".join(p.transcripts[1]) == second for p in peers)
    old, new = audit_table(first), audit_table(second)
    assert old.ok and old.complete and new.ok and new.complete and len(new.scores) == 1
    assert TranscriptHeader.decode(peers[0].transcripts[1][0][5:]).table == roster.table_id
    assert all(len(p.results) == 2 and p.results[1].finished for p in peers)


async def test_one_decline_ends_it_for_everyone(autojump_clock):
    peers = await table([yes, yes, no, yes])
    assert all(p.outcome is not None and p.outcome.roster is None and p.outcome.declined == KEYS[2]
               for p in peers)
    assert all(len(p.results) == 1 for p in peers)
    assert peers[2].outcome is not None and peers[2].outcome.mine is False and not peers[2].outcome.timed_out


async def test_a_person_who_does_not_answer_declines_when_the_time_is_up(autojump_clock):
    peers = await table([yes, never, yes, yes])
    assert all(p.outcome is not None and p.outcome.roster is None and p.outcome.declined == KEYS[1]
               for p in peers)
    assert peers[1].outcome is not None and peers[1].outcome.timed_out
    assert all(len(p.results) == 1 for p in peers)


async def test_a_peer_that_is_gone_ends_the_wait_at_the_deadline(autojump_clock):
    started = trio.current_time()
    peers = await table([yes, yes, yes, None])
    assert all(p.outcome is not None and p.outcome.roster is None and p.outcome.declined is None
               and p.outcome.missing == (KEYS[3],) for p in peers[:3])
    assert trio.current_time() - started < 3600
