"""A bot in the empty seat over the real TCP mesh on loopback (protocol/net/mesh.py), in real
time: the in-memory tests (test_bot_seat.py) with real sockets. One peer is killed after its
first play; the other three choose "bot" at the stall deadline (3 s), agree, and play the
remaining hand with the bot behind the lowest present seat; four identical transcripts."""

from __future__ import annotations

import random
import secrets
from typing import Any

import pytest
import trio

from p2p_sasaki.protocol.config import Pace
from p2p_sasaki.protocol.messages import decode_envelope
from p2p_sasaki.protocol.net import Identity, TableMember, TableRoster
from p2p_sasaki.protocol.net.botseat import agree_replace_seat, play_replaced_seat
from p2p_sasaki.protocol.net.match import decode_config, encode_config, mesh_roster
from p2p_sasaki.protocol.net.mesh import Backoff, Mesh
from p2p_sasaki.protocol.net.table import BOT, BotPlayer, TableResult, run_table
from p2p_sasaki.protocol.sasaki_game import LEAD_SLOT, SasakiGame
from p2p_sasaki.protocol.session import Record, TableConfig
from p2p_sasaki.protocol.table_audit import AuditStatus, audit_table, follows_check
from p2p_sasaki.sasaki.bots import HeuristicBot
from p2p_sasaki.sasaki.options import TableOptions
from tests.net.test_bot_seat import Chooser

pytestmark = pytest.mark.slow

CONFIG = TableConfig(hands=2, game=SasakiGame(TableOptions(lead_card="3S")), proofs=False,
                     pace=Pace((), 1_000, 3_000))
FAST: dict[str, Any] = dict(backoff=Backoff(initial=0.05, maximum=0.2), heartbeat=0.2, dead_after=1.0,
                            handshake_timeout=2.0)


async def test_a_bot_takes_the_empty_seat_over_the_tcp_mesh():
    identities = [Identity.generate() for _ in range(4)]
    listeners = [await trio.open_tcp_listeners(0, host="127.0.0.1") for _ in identities]
    roster = TableRoster(secrets.token_bytes(32), tuple(
        TableMember(i.public_key, "127.0.0.1", ls[0].socket.getsockname()[1], secrets.token_bytes(32))
        for i, ls in zip(identities, listeners, strict=False)))
    victim = 1
    old: dict[int, TableResult] = {}
    records: dict[int, list[list[bytes]]] = {n: [[], [], []] for n in range(4)}
    bots: list[int] = []

    def recorder(into: list[bytes]) -> Any:
        return lambda ev, session: into.append(ev.data) if isinstance(ev, Record) else None

    async def run(n: int) -> None:
        mesh = Mesh(identities[n], roster, **FAST)
        async with trio.open_nursery() as links:
            await links.start(mesh.run, listeners[n])
            scope = trio.CancelScope()

            async def kill(name: str, mine: list[bytes]) -> None:
                if name == "saved" and any(decode_envelope(f).body.type == "table/action"
                                           and decode_envelope(f).body.slot > LEAD_SLOT for f in mine):
                    scope.cancel()

            with scope:
                old[n] = await run_table(identities[n], roster, CONFIG if n == 0 else None,
                                         player=Chooser(n, BOT), transcript_path=None,
                                         on_event=recorder(records[n][0]), config_codec=(encode_config, decode_config),
                                         transport=mesh, transport_running=True,
                                         crash_point=kill if n == victim else None)
            if n != victim:
                agreed = await agree_replace_seat(mesh, identities[n], roster, old[n], "yes", 5.0,
                                                  bot=Identity.generate())
                assert agreed is not None and agreed.roster is not None
                mesh.roster = mesh_roster(roster, agreed)
                if agreed.bot is not None:
                    bots.append(n)
                await play_replaced_seat(identities[n], mesh, agreed, player=BotPlayer(HeuristicBot(random.Random(n))),
                                         transcript_path=None, on_event=recorder(records[n][1]),
                                         bot_player=BotPlayer(HeuristicBot(random.Random(9))),
                                         bot_options={"on_event": recorder(records[n][2])})
            mesh.close()
            links.cancel_scope.cancel()

    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            for n in range(4):
                nursery.start_soon(run, n)
    present = [n for n in range(4) if n != victim]
    assert len(bots) == 1
    old_data = b"".join(records[present[0]][0])
    data = b"".join(records[present[0]][1])
    assert {b"".join(records[n][1]) for n in present} | {b"".join(records[bots[0]][2])} == {data}
    assert audit_table(data).status is AuditStatus.COMPLETE
    check = follows_check(data, old_data)
    assert check.ok and check.bot_seat == old[present[0]].seat_keys.index(identities[victim].public_key)
