"""Fair windows (issue 12, "Windows that leak nothing by timing"), in virtual time: four real
drivers with the real TableSession on the in-memory network under
``MockClock(autojump_threshold=0)``. The virtual time at which each answer to a window
(run, expose, stop, chata, kkojda, the opening "lead") reaches the transport is exactly the
time the window opened on that peer plus the table's delay for that kind, for the seats
that could claim and for those that could not; a bot's turn play likewise at the turn delay."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
import trio

from p2p_sasaki.protocol.config import Pace
from p2p_sasaki.protocol.crypto import SeededEntropy
from p2p_sasaki.protocol.messages import MessageError, TableAction, decode_envelope, verify_envelope
from p2p_sasaki.protocol.net import Identity, TableMember, TableRoster
from p2p_sasaki.protocol.net.match import decode_config, encode_config
from p2p_sasaki.protocol.net.memory import MemoryNetwork
from p2p_sasaki.protocol.net.table import BotPlayer, TableResult, WindowOpened, run_table
from p2p_sasaki.protocol.sasaki_game import PACE_KINDS, SasakiGame
from p2p_sasaki.protocol.session import Record, TableConfig, TableSession
from p2p_sasaki.protocol.table_audit import audit_table
from p2p_sasaki.sasaki.bots import HeuristicBot
from p2p_sasaki.sasaki.options import TableOptions

pytestmark = pytest.mark.usefixtures("no_fsync")   # in-process drivers: no disk waits (tests/conftest.py)

# Distinct delays per kind (ms), so that a wrong kind shows: run, expose, stop, chata, kkojda, lead, turn.
PACE = Pace(tuple(zip(PACE_KINDS, (1000, 1100, 1200, 1500, 1600, 900, 700), strict=True)), 30_000, 120_000)
# One hand a seed: each seed's hand brings every window kind below, claimed and declined alike
# (the run: declined), as two hands did.
CONFIG = TableConfig(hands=1, game=SasakiGame(TableOptions(lead_card="3S")), proofs=False, pace=PACE)
IDENTITIES = [Identity.generate(SeededEntropy(b"fair windows peer %d" % n)) for n in range(4)]
KEYS = [identity.public_key for identity in IDENTITIES]
ROSTER = TableRoster(bytes(range(32)), tuple(TableMember(key, "memory", n, bytes(32)) for n, key in enumerate(KEYS)))


class Stamped:
    """A transport that notes the virtual time at which each frame first reaches it."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.sent: dict[bytes, float] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    @property
    def received(self) -> AsyncIterator[tuple[bytes, bytes]]:
        return self.inner.received

    async def broadcast(self, frame: bytes) -> None:
        self.sent.setdefault(frame, trio.current_time())
        await self.inner.broadcast(frame)

    def send_nowait(self, key: bytes, frame: bytes) -> None:
        self.sent.setdefault(frame, trio.current_time())
        self.inner.send_nowait(key, frame)


async def play(seed: int) -> tuple[list[Stamped], list[list[WindowOpened]], list[TableResult], list[bytes]]:
    network = MemoryNetwork(KEYS)
    transports = [Stamped(network.transport(key)) for key in KEYS]
    opened: list[list[WindowOpened]] = [[] for _ in range(4)]
    records: list[list[bytes]] = [[] for _ in range(4)]
    results: list[TableResult | None] = [None] * 4

    def on_event(n: int) -> Any:
        def event(ev: Any, session: Any) -> None:
            match ev:
                case WindowOpened():
                    opened[n].append(ev)
                case Record(data=data):
                    records[n].append(data)
        return event

    def factory(n: int) -> Any:
        def make(identity: Identity, roster: TableRoster, config: Any) -> TableSession:
            return TableSession(identity, roster.keys, roster.table_id, config,
                                rng=SeededEntropy(b"session %d %d" % (seed, n)))
        return make

    async def peer(n: int) -> None:
        results[n] = await run_table(
            IDENTITIES[n], ROSTER, CONFIG if n == 0 else None,
            player=BotPlayer(HeuristicBot(random.Random(seed * 10 + n))), transcript_path=None,
            on_event=on_event(n), linger=1.0, config_codec=(encode_config, decode_config),
            session_factory=factory(n), transport=transports[n], step_in_thread=False)

    with trio.fail_after(36000):
        async with trio.open_nursery() as nursery:
            for n in range(4):
                nursery.start_soon(peer, n)
    done = [r for r in results if r is not None]
    return transports, opened, done, [b"".join(r) for r in records]


def _answers(transport: Stamped, key: bytes) -> list[tuple[int, int, str, float]]:
    """(hand, slot, verb, time) of every game answer (table/action) this peer signed (not
    its relays of the others' messages)."""
    out = []
    for frame, at in transport.sent.items():
        try:
            message = decode_envelope(frame)
        except MessageError:
            continue   # the table options frame (a header)
        body = message.body
        if isinstance(body.payload, TableAction) and verify_envelope(message, key):
            out.append((body.hand, body.slot, body.payload.verb, at))
    return out


def test_every_window_answer_reaches_the_transport_at_open_plus_its_delay(autojump_clock: Any) -> None:
    kinds_seen: set[str] = set()
    claims = declines = 0
    for seed in (1, 2):
        transports, opened, results, transcripts = trio.run(play, seed, clock=autojump_clock)
        assert len(results) == 4 and all(r.finished for r in results)
        assert len(set(transcripts)) == 1 and audit_table(transcripts[0]).ok
        for n in range(4):
            at = {(w.hand, w.slot): w for w in opened[n]}
            assert len(at) == len(opened[n])              # one opening per decision
            answers = _answers(transports[n], KEYS[n])
            assert answers
            for hand, slot, verb, time in answers:
                window = at[(hand, slot)]                  # every answer (bots: turns too) is paced
                assert window.delay == PACE.delay(window.kind)
                assert time == window.at + PACE.delay(window.kind), (n, hand, slot, verb, window)
                kinds_seen.add(window.kind)
                if window.kind != "turn":
                    if verb == "decline":
                        declines += 1
                    else:
                        claims += 1
            assert len(answers) == len(opened[n])         # no paced decision left unanswered
    # Both sides of every window kind that came up: those who claimed and those who could not.
    assert {"run", "lead", "turn", "chata", "kkojda"} <= kinds_seen <= set(PACE_KINDS)
    assert claims and declines


def test_pace_options_round_trip_through_the_signed_header() -> None:
    from p2p_sasaki.protocol.config import config_of, header_of
    from p2p_sasaki.protocol.messages import PaceDelay, TranscriptHeader
    from p2p_sasaki.protocol.sasaki_game import FAIR_PACE

    header = header_of(bytes(32), KEYS, TableConfig(CONFIG.game, pace=FAIR_PACE))
    assert header.pace == tuple(PaceDelay(k, ms)
                                for k, ms in zip(PACE_KINDS, (4000, 4000, 4000, 3000, 3000, 4000, 1000),
                                                        strict=True))
    assert (header.answer_ms, header.stall_ms) == (30_000, 120_000)
    assert config_of(TranscriptHeader.decode(header.encode())).pace == FAIR_PACE
    with pytest.raises(ValueError, match="not the game's pacing kinds"):   # the header lists the game's kinds
        config_of(dataclasses.replace(header, pace=header.pace[:6]))
    for bad in (dict(pace=(PaceDelay("run", 0),) * 2), dict(pace=tuple(PaceDelay(k, 70_000) for k in PACE_KINDS)),
                dict(answer_ms=500),
                dict(stall_ms=1000)):
        with pytest.raises(MessageError):
            dataclasses.replace(header, **bad).encode()
