"""mDNS member records (protocol/net/discovery.py ``keep_member_records``, Mesh.relocate),
with real zeroconf bound to 127.0.0.1 and real sockets, in one process: a peer killed
during a match and restarted on a new port is found again by the others through its
member record, and the match completes. Other tests may advertise records on loopback at
the same time: the table id here is fresh, and records of other tables are ignored."""

from __future__ import annotations

import functools
import os
import random
from pathlib import Path
from typing import Any

import pytest
import trio

from p2p_sasaki.protocol.net import Identity, TableMember, TableRoster
from p2p_sasaki.protocol.net.discovery import keep_member_records
from p2p_sasaki.protocol.net.match import decode_config, encode_config
from p2p_sasaki.protocol.net.mesh import Backoff, Mesh
from p2p_sasaki.protocol.net.persist import TableStore
from p2p_sasaki.protocol.net.table import BotPlayer, TableResult, run_table
from p2p_sasaki.protocol.sasaki_game import SasakiGame
from p2p_sasaki.protocol.session import Phase, TableConfig
from p2p_sasaki.protocol.table_audit import audit_table
from p2p_sasaki.sasaki.bots import HeuristicBot
from p2p_sasaki.sasaki.options import TableOptions
from tests.net.test_resume import phase_is

pytestmark = pytest.mark.slow

CONFIG = TableConfig(hands=1, game=SasakiGame(TableOptions(lead_card="3S")), proofs=False)   # not about proofs


async def test_a_peer_restarted_on_a_new_port_is_found_through_its_member_record(tmp_path: Path) -> None:
    """The victim has the greatest key, so by the dial rule everyone dials it and it dials
    nobody; it is killed in play and comes back on a new port *without* dialing anyone
    (no ``dial_all``): only its member record can bring the others to it."""
    identities = sorted((Identity.generate() for _ in range(4)), key=lambda i: i.public_key)
    victim = 3
    listeners = [await trio.open_tcp_listeners(0, host="127.0.0.1") for _ in identities]
    roster = TableRoster(os.urandom(32), tuple(
        TableMember(i.public_key, "127.0.0.1", ls[0].socket.getsockname()[1], bytes(32))
        for i, ls in zip(identities, listeners, strict=False)))
    results: list[TableResult | None] = [None] * 4
    ports: list[int] = []
    crashed = trio.Event()
    trigger = phase_is(Phase.PLAY)
    sessions: list[Any] = [None] * 4

    def hook(n: int, scope: trio.CancelScope) -> Any:
        async def point(name: str, mine: list[bytes]) -> None:
            session = sessions[n]
            if n == victim and not crashed.is_set() and session is not None and trigger(session, name, [], None):
                crashed.set()
                scope.cancel()
        return point

    def on_event(n: int) -> Any:
        def event(ev: Any, session: Any) -> None:
            if session is not None:
                sessions[n] = session
        return event

    async def peer(n: int) -> None:
        transcript = tmp_path / f"peer{n}" / "table.sasaki"
        store = TableStore.create(tmp_path / f"peer{n}" / "tables" / roster.table_id.hex(), roster, transcript)
        for attempt in range(2):
            if attempt:   # killed: nothing of it runs for a moment, then it starts on another port
                for listener in listeners[n]:
                    await listener.aclose()
                await trio.sleep(0.5)
                listeners[n] = await trio.open_tcp_listeners(0, host="127.0.0.1")
            mesh = Mesh(identities[n], roster, backoff=Backoff(0.05, 0.5))
            scope = trio.CancelScope()
            async with trio.open_nursery() as links:
                port = await links.start(mesh.run, listeners[n])
                if n == victim:
                    ports.append(port)
                await links.start(functools.partial(keep_member_records, mesh, port, interfaces=["127.0.0.1"]))
                with scope:
                    results[n] = await run_table(
                        identities[n], roster, CONFIG if n == 0 else None,
                        player=BotPlayer(HeuristicBot(random.Random(n * 10 + attempt))),
                        transcript_path=transcript, on_event=on_event(n), linger=1.0,
                        config_codec=(encode_config, decode_config), transport=mesh, transport_running=True,
                        store=store, resume=attempt > 0, crash_point=hook(n, scope))
                links.cancel_scope.cancel()
            if not scope.cancelled_caught:
                return
            sessions[n] = None

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            for n in range(4):
                nursery.start_soon(peer, n)
    assert crashed.is_set() and len(ports) == 2 and ports[0] != ports[1]
    assert all(r is not None and r.finished and r.blame is None for r in results)
    transcripts = {(tmp_path / f"peer{n}" / "table.sasaki").read_bytes() for n in range(4)}
    assert len(transcripts) == 1
    audit = audit_table(transcripts.pop())
    assert audit.ok and audit.complete
