"""protocol/net/table.py in one process: four peers on 127.0.0.1 running the real
TableSession (2-round shuffle proofs, for speed); records reach the disk (fsync) before
the next message is sent."""

from __future__ import annotations

import os
import random

import pytest
import trio

from p2p_sasaki.bots import HeuristicBot
from p2p_sasaki.protocol.net import Identity, TableMember, TableRoster
from p2p_sasaki.protocol.net import table as table_module
from p2p_sasaki.protocol.net.table import BotPlayer, run_table

from p2p_sasaki.cli.common import TableConfig, decode_config, encode_config
from p2p_sasaki.options import TableOptions

MEMBER_NONCE = bytes(range(200, 232))  # a member's join nonce (fresh in real joins)

pytestmark = pytest.mark.slow


async def test_four_drivers_play_a_match_and_fsync_before_sending(tmp_path, monkeypatch):
    log: list[tuple[str, object]] = []
    real_fsync = os.fsync
    real_broadcast = table_module.Mesh.broadcast

    def fsync(fd):
        log.append(("fsync", fd))
        return real_fsync(fd)

    async def broadcast(self, frame):
        log.append(("send", self.key))
        await real_broadcast(self, frame)

    monkeypatch.setattr(table_module.os, "fsync", fsync)
    monkeypatch.setattr(table_module.Mesh, "broadcast", broadcast)
    identities = [Identity.generate() for _ in range(4)]
    listeners = [await trio.open_tcp_listeners(0, host="127.0.0.1") for _ in identities]
    roster = TableRoster(os.urandom(32), tuple(
        TableMember(i.public_key, "127.0.0.1", ls[0].socket.getsockname()[1], MEMBER_NONCE) for i, ls in zip(identities, listeners)))
    config = TableConfig(hands=2, options=TableOptions(lead_card="3S"), shuffle_rounds=2)
    results = [None] * 4
    events: list[list[str]] = [[] for _ in range(4)]

    async def peer(n):
        results[n] = await run_table(
            identities[n], roster, config if n == 0 else None, player=BotPlayer(HeuristicBot(random.Random(n))),
            transcript_path=tmp_path / f"{n}.sasaki", listeners=listeners[n],
            on_event=lambda event, session: events[n].append(type(event).__name__),
            config_codec=(encode_config, decode_config), linger=0.5)

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            for n in range(4):
                nursery.start_soon(peer, n)
    assert all(r.finished for r in results)
    assert len({r.totals for r in results}) == 1
    assert all(r.config == config for r in results)  # the creator's options reached the joiners
    assert len({(tmp_path / f"{n}.sasaki").read_bytes() for n in range(4)}) == 1
    assert all(len(r.hands) == 2 and r.records > 10 for r in results)
    assert all("Connected" in e and "Waiting" in e and "MatchEnded" in e for e in events)
    # Every record was fsync-ed: one fsync per record, per peer.
    assert sum(1 for kind, _ in log if kind == "fsync") == sum(r.records for r in results)
