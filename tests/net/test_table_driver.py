"""protocol/net/table.py end to end on real sockets: four peers on 127.0.0.1 in one
process, each on its TCP mesh, running the real TableSession (2-round shuffle proofs, for
speed); records reach the disk (fsync) before the next message is sent, and a match
survives real connections dropped while it plays. The driver's reliability in detail
(loss, duplicates, reordering, a peer offline, no re-send) is tested in virtual time on
the in-memory network: test_table_reliability.py."""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import trio

from p2p_sasaki.protocol.config import TableConfig
from p2p_sasaki.protocol.net import Identity, TableMember, TableRoster
from p2p_sasaki.protocol.net import disk as disk_module
from p2p_sasaki.protocol.net import table as table_module
from p2p_sasaki.protocol.net.match import decode_config, encode_config
from p2p_sasaki.protocol.net.table import BotPlayer, run_table
from p2p_sasaki.protocol.sasaki_game import SasakiGame
from p2p_sasaki.protocol.table_audit import audit_table
from p2p_sasaki.sasaki.bots import HeuristicBot
from p2p_sasaki.sasaki.options import TableOptions

MEMBER_NONCE = bytes(range(200, 232))  # a member's join nonce (fresh in real joins)

pytestmark = pytest.mark.slow


@dataclass
class Four:
    """Four identities with open listeners on 127.0.0.1 and their roster."""

    identities: list[Identity]
    listeners: list[Any]
    roster: TableRoster

    async def play(self, tmp_path: Path, config: TableConfig, options: Callable[[int], dict[str, Any]] = lambda n: {},
                   timeout: float = 60) -> list[Any]:
        """A match of four heuristic bots (peer ``n`` writes ``tmp_path/n.sasaki``), each
        driver with ``options(n)`` as well; their results."""
        results: list[Any] = [None] * 4

        async def peer(n: int) -> None:
            results[n] = await run_table(
                self.identities[n], self.roster, config if n == 0 else None,
                player=BotPlayer(HeuristicBot(random.Random(n))), transcript_path=tmp_path / f"{n}.sasaki",
                listeners=self.listeners[n], config_codec=(encode_config, decode_config),
                **{"linger": 0.5, **options(n)})

        with trio.fail_after(timeout):
            async with trio.open_nursery() as nursery:
                for n in range(4):
                    nursery.start_soon(peer, n)
        return results


@pytest.fixture
async def four() -> Four:
    identities = [Identity.generate() for _ in range(4)]
    listeners = [await trio.open_tcp_listeners(0, host="127.0.0.1") for _ in identities]
    roster = TableRoster(os.urandom(32), tuple(
        TableMember(i.public_key, "127.0.0.1", ls[0].socket.getsockname()[1], MEMBER_NONCE)
        for i, ls in zip(identities, listeners, strict=False)))
    return Four(identities, listeners, roster)


async def test_four_drivers_play_a_match_and_fsync_before_sending(tmp_path, monkeypatch, four):
    log: list[tuple[str, object]] = []
    real_fsync = os.fsync
    real_broadcast = table_module.Mesh.broadcast

    def fsync(fd):
        log.append(("fsync", fd))
        return real_fsync(fd)

    async def broadcast(self, frame):
        log.append(("send", self.key))
        await real_broadcast(self, frame)

    monkeypatch.setattr(disk_module.os, "fsync", fsync)  # records are written by net/disk.py
    monkeypatch.setattr(table_module.Mesh, "broadcast", broadcast)
    config = TableConfig(hands=1, game=SasakiGame(TableOptions(lead_card="3S")))   # a hand's every kind of record
    events: list[list[str]] = [[] for _ in range(4)]

    def note(n: int) -> dict[str, Any]:
        return {"on_event": lambda event, session: events[n].append(type(event).__name__)}

    results = await four.play(tmp_path, config, note)
    assert all(r.finished for r in results)
    assert len({r.totals for r in results}) == 1
    assert all(r.config == config for r in results)  # the creator's options reached the joiners
    assert len({(tmp_path / f"{n}.sasaki").read_bytes() for n in range(4)}) == 1
    assert all(len(r.hands) == 1 and r.records > 10 for r in results)
    assert all("Connected" in e and "Waiting" in e and "MatchEnded" in e for e in events)
    # Every record was fsync-ed: one fsync per record, per peer.
    assert sum(1 for kind, _ in log if kind == "fsync") == sum(r.records for r in results)


async def test_a_match_survives_real_connections_dropped_every_few_hundred_ms(tmp_path, four):
    """Random TCP connections (seeded) dropped every 0.2-0.5 s while a 2-hand match plays:
    the meshes reconnect, the driver re-sends, the four transcripts are byte-identical."""
    config = TableConfig(hands=2, game=SasakiGame(TableOptions(lead_card="3S")))
    rng = random.Random(20240611)
    meshes: list = []
    drops = []

    async def chaos(done):
        while not done.is_set():
            await trio.sleep(rng.uniform(0.2, 0.5))
            if meshes:
                mesh = rng.choice(meshes)
                key = rng.choice(mesh.peers)
                drops.append(key)
                mesh.drop_connection(key)

    done = trio.Event()
    async with trio.open_nursery() as outer:
        outer.start_soon(chaos, done)
        results = await four.play(tmp_path, config, lambda n: {"linger": 2.0, "stall_after": 1.0,
                                                               "on_mesh": meshes.append}, timeout=90)
        done.set()
    assert all(r.finished and r.blame is None for r in results), [r.blame for r in results]
    transcripts = {(tmp_path / f"{n}.sasaki").read_bytes() for n in range(4)}
    assert len(transcripts) == 1
    audit = audit_table(transcripts.pop())
    assert audit.ok and audit.complete and len(audit.scores) == 2
    assert all(r.totals == audit.totals for r in results)
    assert len(drops) >= 5
    assert all(sum(p.connections for p in r.mesh.peers.values()) > 3 for r in results)


async def test_proof_work_runs_in_the_worker_pool_and_the_table_agrees(tmp_path, four):
    """With a proof pool (protocol/net/workers.py) every shuffle argument is made and checked
    in worker processes (the session hands out jobs, not step()); the match is the same."""
    from p2p_sasaki.protocol.net.workers import ProofPool

    config = TableConfig(hands=1, game=SasakiGame(TableOptions(lead_card="3S")))
    steps = []
    pool = ProofPool(2)
    real_map = pool.map

    def counting_map(jobs):
        steps.append(len(jobs))
        return real_map(jobs)

    pool.map = counting_map   # count the jobs that went through the workers
    try:
        results = await four.play(tmp_path, config, lambda n: {"proof_pool": pool if n < 2 else None})
    finally:
        pool.close()
    assert all(r.finished for r in results)
    assert len({(tmp_path / f"{n}.sasaki").read_bytes() for n in range(4)}) == 1
    # Two seats with the pool: each made its own argument and checked the other three's there.
    assert sum(steps) == 2 * 4
    assert audit_table((tmp_path / "0.sasaki").read_bytes()).ok
