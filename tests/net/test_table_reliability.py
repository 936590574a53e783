"""Transport reliability of protocol/net/table.py ("Transport reliability" in its docstring),
in virtual time: four real drivers with the real TableSession (no shuffle proofs) on a
seeded in-memory network (protocol/net/memory.py) under ``MockClock(autojump_threshold=0)``
(the ``autojump_clock`` fixture). The network loses, duplicates and reorders frames, links
are cut while frames are on the wire, a peer's message is lost everywhere and the peer goes
offline (a closed laptop lid). No sockets, no real sleeps, nothing patched.

Everything is seeded (identities, the sessions' entropy, the bots, the network's draws), so
the agreed transcript is a function of the seeds alone: every hostile run must agree on the
very bytes a perfect network gives. (Trio's scheduler still shuffles the order of ready
tasks, so counts such as the number of re-sent frames vary from run to run; what is
agreed does not.)"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

import trio

from p2p_sasaki.protocol.crypto import SeededEntropy
from p2p_sasaki.protocol.messages import MessageError, decode_envelope, verify_envelope
from p2p_sasaki.protocol.net import Identity, TableMember, TableRoster
from p2p_sasaki.protocol.net.match import decode_config, encode_config
from p2p_sasaki.protocol.net.memory import LinkConditions, MemoryNetwork
from p2p_sasaki.protocol.net.table import BotPlayer, Links, TableResult, Waiting, run_table
from p2p_sasaki.protocol.sasaki_game import SasakiGame
from p2p_sasaki.protocol.session import MatchEnded, Record, TableConfig, TableSession
from p2p_sasaki.protocol.table_audit import audit_table
from p2p_sasaki.sasaki.bots import HeuristicBot
from p2p_sasaki.sasaki.options import TableOptions

# Virtual seconds a driver stays after the match: longer than a stall (3 s), so that a lost
# last message of a finished peer is re-sent (module docstring of table.py); free in virtual time.
LINGER = 10.0
# Not about proofs, nor hands: one hand carries the frames every fault here is about (the
# abandon test, whose hand 2 is played after hand 1 is voided, has two).
CONFIG = TableConfig(hands=1, game=SasakiGame(TableOptions(lead_card="3S")), proofs=False)
IDENTITIES = [Identity.generate(SeededEntropy(b"reliability peer %d" % n)) for n in range(4)]
KEYS = [identity.public_key for identity in IDENTITIES]
MEMBER_NONCE = bytes(range(200, 232))  # a member's join nonce (fresh in real joins)
ROSTER = TableRoster(bytes(range(32)), tuple(TableMember(key, "memory", n, MEMBER_NONCE) for n, key in enumerate(KEYS)))


def session_factory(n: int) -> Callable[[Identity, TableRoster, Any], TableSession]:
    def make(identity: Identity, roster: TableRoster, config: Any) -> TableSession:
        return TableSession(identity, roster.keys, roster.table_id, config, rng=SeededEntropy(b"session %d" % n))
    return make


@dataclass
class Match:
    """What four drivers did: their results (None while running), the transcript records
    each emitted (in memory: the fsync path is tested on real sockets in test_table_driver.py)
    and the Waiting events each reported."""

    results: list[TableResult | None] = field(default_factory=lambda: [None] * 4)
    records: list[list[bytes]] = field(default_factory=lambda: [[] for _ in range(4)])
    waiting: list[list[Waiting]] = field(default_factory=lambda: [[] for _ in range(4)])
    links: list[list[tuple[float, Links]]] = field(default_factory=lambda: [[] for _ in range(4)])
    """Each driver's Links events, with the trio time they came."""
    ended: int = 0
    """Drivers whose session has ended the match (chaos stops then: the drivers linger)."""

    @property
    def transcripts(self) -> list[bytes]:
        return [b"".join(records) for records in self.records]

    def finished(self) -> list[TableResult]:
        assert all(r is not None for r in self.results)
        return [r for r in self.results if r is not None]


async def play_match(network: MemoryNetwork, chaos: Callable[[Match], Awaitable[None]] | None = None, *,
                     timeout: float = 3600, resend: bool = True, match: Match | None = None,
                     config: TableConfig = CONFIG) -> Match:
    """A match (``config``) among four drivers on ``network``; ``chaos(match)`` runs alongside
    (cancelled when every driver has returned). ``timeout`` is in virtual seconds."""
    state = match if match is not None else Match()

    def on_event(n: int) -> Callable[[Any, Any], None]:
        def event(ev: Any, session: Any) -> None:
            match ev:
                case Waiting():
                    state.waiting[n].append(ev)
                case Links():
                    state.links[n].append((trio.current_time(), ev))
                case Record(data=data):
                    state.records[n].append(data)
                case MatchEnded():
                    state.ended += 1
        return event

    async def peer(n: int) -> None:
        state.results[n] = await run_table(
            IDENTITIES[n], ROSTER, config if n == 0 else None, player=BotPlayer(HeuristicBot(random.Random(n))),
            transcript_path=None, on_event=on_event(n), linger=LINGER,
            config_codec=(encode_config, decode_config), session_factory=session_factory(n),
            transport=network.transport(KEYS[n]), step_in_thread=False, resend=resend)

    with trio.fail_after(timeout):
        async with trio.open_nursery() as outer:
            if chaos is not None:
                outer.start_soon(chaos, state)
            async with trio.open_nursery() as nursery:
                for n in range(4):
                    nursery.start_soon(peer, n)
            outer.cancel_scope.cancel()
    return state


_REFERENCE: list[bytes] = []


async def reference_transcript() -> bytes:
    """The transcript the seeds give on a perfect network (computed and audited once)."""
    if not _REFERENCE:
        match = await play_match(MemoryNetwork(KEYS))
        assert len(set(match.transcripts)) == 1
        audit = audit_table(match.transcripts[0])
        assert audit.ok and audit.complete and len(audit.scores) == CONFIG.hands
        assert all(r.finished and r.blame is None and r.totals == audit.totals for r in match.finished())
        _REFERENCE.append(match.transcripts[0])
    return _REFERENCE[0]


async def assert_agreed(match: Match) -> None:
    """Every driver finished without blame, on the very transcript of a perfect network."""
    results = match.finished()
    assert all(r.finished and r.blame is None for r in results), [r.blame for r in results]
    reference = await reference_transcript()
    assert match.transcripts == [reference] * 4
    assert len({r.totals for r in results}) == 1


def envelope_type(frame: bytes) -> str | None:
    try:
        return decode_envelope(frame).body.type
    except MessageError:
        return None


async def test_a_lossy_duplicating_reordering_network_changes_nothing_that_is_agreed(autojump_clock):
    """10 % of frames lost, 5 % duplicated, 10 % held back up to 2 s (so overtaken): the match
    ends with the very transcript a perfect network gives; the re-send repaired the losses."""
    conditions = LinkConditions(drop=0.1, duplicate=0.05, delay=0.1, max_delay=2.0, latency=0.01)
    network = MemoryNetwork(KEYS, seed=20240611, conditions=conditions)
    match = await play_match(network)
    await assert_agreed(match)
    fates = [t for a in KEYS for b in KEYS if a != b for t in network.transmissions(a, b)]
    assert {t.copies for t in fates} == {0, 1, 2} and any(t.delay > 0 for t in fates)
    assert sum(r.resent for r in match.finished()) > 0


async def test_links_cut_every_few_hundred_ms_while_frames_are_on_the_wire(autojump_clock):
    """A random link (seeded) is cut every 0.2-0.5 s and comes back 0.3 s later; each frame
    spends 50 ms on the wire, so cuts lose frames in flight (a frame being written when a
    TCP link breaks)."""
    rng = random.Random(20240611)
    network = MemoryNetwork(KEYS, conditions=LinkConditions(latency=0.05), reconnect_after=0.3)
    cuts: list[tuple[bytes, bytes]] = []

    async def chaos(match: Match) -> None:
        while match.ended == 0:
            await trio.sleep(rng.uniform(0.2, 0.5))
            a, b = rng.sample(KEYS, 2)
            cuts.append((a, b))
            network.transport(a).drop_connection(b)

    match = await play_match(network, chaos)
    await assert_agreed(match)
    assert len(cuts) >= 5
    assert sum(r.resent for r in match.finished()) > 0
    assert all(r.mesh is not None and sum(p.connections for p in r.mesh.peers.values()) > 3 for r in match.finished())


def cut_off_on_first_shuffle(network: MemoryNetwork, victim: int, seconds: float
                             ) -> tuple[list[tuple[bytes, bytes]], Callable[[Match], Awaitable[None]]]:
    """Lose the victim's own first deck/shuffle message on every link (so nobody has it and
    no relay can help); the returned ``chaos`` then takes the victim offline for ``seconds``
    (0: it stays online)."""
    lost: list[tuple[bytes, bytes]] = []
    all_lost = trio.Event()
    key = KEYS[victim]

    def lose(source: bytes, target: bytes, frame: bytes) -> bool:
        if source != key or all_lost.is_set() or envelope_type(frame) != "deck/shuffle":
            return False
        if not verify_envelope(decode_envelope(frame), key):
            return False   # a relay of another seat's shuffle
        lost.append((source, target))
        if len(lost) == 3:
            all_lost.set()   # only the first copies (the re-sends get through)
        return True

    async def chaos(match: Match) -> None:
        await all_lost.wait()
        if not seconds:
            return
        network.go_offline(key)
        await trio.sleep(seconds)
        network.go_online(key)

    network.lose = lose
    return lost, chaos


async def test_the_table_waits_for_a_peer_cut_off_and_resumes_when_it_is_back(autojump_clock):
    """Peer 2's shuffle is lost on all three links, then peer 2 is offline for 20 s. The others
    wait and report it offline, and the table finishes when it is back (re-sent on
    reconnection) with the transcript of a perfect network."""
    network = MemoryNetwork(KEYS)
    lost, chaos = cut_off_on_first_shuffle(network, 2, 20.0)
    match = await play_match(network, chaos)
    await assert_agreed(match)
    assert sorted(lost) == sorted((KEYS[2], k) for k in KEYS if k != KEYS[2])
    assert match.finished()[2].resent > 0
    # The others reported the seat they waited for as offline while the lid was closed.
    offline_keys = {w.keys[w.seats.index(s)] for n in (0, 1, 3) for w in match.waiting[n] for s in w.offline}
    assert offline_keys == {KEYS[2]}


async def test_a_message_lost_everywhere_is_re_sent_after_a_stall(autojump_clock):
    """Peer 2's shuffle is lost on all three links while every link stays up: no reconnection
    happens, and the stall re-send (after 3 s without progress) repairs it."""
    network = MemoryNetwork(KEYS)
    lost, chaos = cut_off_on_first_shuffle(network, 2, 0)
    match = await play_match(network, chaos)
    await assert_agreed(match)
    assert len(lost) == 3 and match.finished()[2].resent > 0
    assert all(w.offline == () for waiting in match.waiting for w in waiting)
    for result in match.finished():
        assert result.mesh is not None and [p.connections for p in result.mesh.peers.values()] == [1, 1, 1]


async def test_without_resending_the_lost_frame_stalls_the_table_until_the_stall_deadline(autojump_clock):
    """The same loss with re-sending turned off: nobody ever gets peer 2's shuffle, so the
    table waits for it (everyone else for peer 2's shuffle alone, knowing peer 2 is online)
    until the stall deadline (CONFIG's default 120 s); then the bots abandon the deal (docs/
    protocol.md, "Abandon"): every peer, peer 2 too, voids hand 1 alike, hand 2 is played,
    and the four transcripts agree and audit as abandoned."""
    from p2p_sasaki.protocol.table_audit import AuditStatus

    network = MemoryNetwork(KEYS)
    lost, chaos = cut_off_on_first_shuffle(network, 2, 0.5)
    match = await play_match(network, chaos, timeout=3600, resend=False, config=replace(CONFIG, hands=2))
    assert len(lost) == 3
    for n in (0, 1, 3):
        stalled = [w for w in match.waiting[n] if w.seats and w.deadline - w.since == 120]
        assert any([w.keys[w.seats.index(s)] for s in w.seats] == [KEYS[2]] and w.offline == () for w in stalled)
    results = match.finished()
    assert all(r.finished and r.blame is None for r in results), [r.blame for r in results]
    assert [[e.hand for e in r.abandoned] for r in results] == [[1]] * 4
    assert len(set(match.transcripts)) == 1
    audit = audit_table(match.transcripts[0])
    assert audit.status is AuditStatus.ABANDONED and len(audit.scores) == 1
