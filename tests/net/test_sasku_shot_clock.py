"""Sasku's decisions under the shot clock (issue 19, "the table's fairness rules hold for Sasku
too"), in virtual time: four real drivers with the real TableSession on the in-memory network
under ``MockClock(autojump_threshold=0)``, bots that give a lone picture whenever they may.

- every answer (bid, give, the give's hand-over, take or refuse, a return, the trump, a play),
  forced or free, leaves at exactly open + its kind's delay;
- no answer follows the seat's own frame before it (its held answer, its deck messages, its
  hand-over steps) by less than the delay: the others enter a decision only once they have
  that frame.
"""

from __future__ import annotations

import random
from typing import Any

import trio

from p2p_sasaki.cli.common import decode_config, encode_config
from p2p_sasaki.protocol.crypto import SeededEntropy
from p2p_sasaki.protocol.messages import HandOver, MessageError, TableAction, decode_envelope, verify_envelope
from p2p_sasaki.protocol.net import Identity, TableRoster
from p2p_sasaki.protocol.net.memory import MemoryNetwork
from p2p_sasaki.protocol.net.table import BotPlayer, WindowOpened, run_table
from p2p_sasaki.protocol.sasku_game import GiveCall, SaskuGame, TableBot, sasku_pace
from p2p_sasaki.protocol.session import Record, TableConfig, TableSession
from p2p_sasaki.protocol.table_audit import audit_table
from p2p_sasaki.sasku.bots import HeuristicBot
from p2p_sasaki.sasku.options import SaskuOptions
from tests.net.test_fair_windows import IDENTITIES, KEYS, ROSTER, Stamped

PACE = sasku_pace(bid=1.0, turn=0.7, answer=60.0, stall=120.0)
CONFIG = TableConfig(hands=1, game=SaskuGame(SaskuOptions(target=100)), proofs=False, pace=PACE)
# The peers' entropy (so the deal): hand 1 brings every decision asserted below (a give, its
# hand-over, the take, a return); the first entropy tried needed three hands for them.
ENTROPY = b"sasku shot clock 3"


class Giver:
    """The heuristic bot, except that it gives a lone picture whenever it may."""

    def __init__(self, seed: int) -> None:
        self.bot = TableBot(HeuristicBot(random.Random(seed)))
        self.forced = 0          # decisions with one legal answer (each still held to its due time)

    def choose(self, view: Any, legal: Any, **budget: Any) -> Any:
        self.forced += len(legal) == 1
        gives = [a for a in legal if isinstance(a, GiveCall)]
        return gives[0] if gives else self.bot.choose(view, legal)


async def play() -> tuple[list[Stamped], list[list[WindowOpened]], list[Giver], list[bytes]]:
    network = MemoryNetwork(KEYS)
    transports = [Stamped(network.transport(key)) for key in KEYS]
    opened: list[list[WindowOpened]] = [[] for _ in range(4)]
    records: list[list[bytes]] = [[] for _ in range(4)]
    bots = [Giver(n) for n in range(4)]

    def on_event(n: int) -> Any:
        def event(ev: Any, session: Any) -> None:
            if isinstance(ev, WindowOpened):
                opened[n].append(ev)
            elif isinstance(ev, Record):
                records[n].append(ev.data)
        return event

    def factory(n: int) -> Any:
        def make(identity: Identity, roster: TableRoster, config: Any) -> TableSession:
            session = TableSession(identity, roster.keys, roster.table_id, config,
                                   rng=SeededEntropy(ENTROPY + b" %d" % n))
            return session
        return make

    async def peer(n: int) -> None:
        await run_table(IDENTITIES[n], ROSTER, CONFIG if n == 0 else None, player=BotPlayer(bots[n]),
                        transcript_path=None, on_event=on_event(n), linger=1.0,
                        config_codec=(encode_config, decode_config), session_factory=factory(n),
                        transport=transports[n], step_in_thread=False)

    with trio.fail_after(36000):
        async with trio.open_nursery() as nursery:
            for n in range(4):
                nursery.start_soon(peer, n)
    return transports, opened, bots, [b"".join(r) for r in records]


def signed_by(transport: Stamped, key: bytes) -> list[tuple[int, int, str, float]]:
    """(hand, slot, what, time sent) of every frame of the hands this peer signed: its game
    answers and hand-overs by their verb, the rest (deck messages, keys) as "other"."""
    out = []
    for frame, at in transport.sent.items():
        try:
            message = decode_envelope(frame)
        except MessageError:
            continue
        body, payload = message.body, message.body.payload
        if body.hand >= 1 and verify_envelope(message, key):
            what = payload.verb if isinstance(payload, TableAction) else \
                "hand-over" if isinstance(payload, HandOver) else "other"
            out.append((body.hand, body.slot, what, at))
    return sorted(out, key=lambda row: row[3])


def test_every_sasku_answer_forced_or_free_leaves_at_open_plus_its_delay_and_never_sooner_after_my_own_frame(
        autojump_clock: Any) -> None:
    transports, opened, bots, transcripts = trio.run(play, clock=autojump_clock)
    assert len(set(transcripts)) == 1 and audit_table(transcripts[0]).ok
    kinds, whats, after_work = set(), set(), 0
    for n in range(4):
        at = {(w.hand, w.slot): w for w in opened[n]}
        sent = signed_by(transports[n], KEYS[n])
        for i, (hand, slot, what, time) in enumerate(sent):
            if what == "other":
                continue
            window = at[(hand, slot)]
            kinds.add(window.kind)
            whats.add(what)
            assert window.delay == PACE.delay(window.kind)
            assert time == window.at + window.delay, (n, hand, slot, what, time - window.at)
            before = [t for _, _, _, t in sent[:i] if t < time]
            if before:
                assert time - before[-1] >= window.delay - 1e-9, (n, hand, slot, what, time - before[-1])
                after_work += before[-1] > window.at - 1e-9   # my own frame opened it
    assert {"bid", "answer", "return", "turn"} <= kinds
    assert {"give", "hand-over", "take"} <= whats
    assert sum(bot.forced for bot in bots) > 0     # forced answers came up (the give's hand-over, plays)
    assert after_work                               # decisions my own frame opened came up (a hand-over
    #                                                 after a give, a return after a take)
