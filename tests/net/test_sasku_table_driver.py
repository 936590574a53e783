"""A Sasku match through the real driver (protocol/net/table.py) on real sockets: four
peers on 127.0.0.1, the mental-poker deck with its proofs, the engine's heuristic bots
(which give a lone picture to a partner who leads the auction) behind the adapter's
TableBot; the transcripts are identical and the table audit replays them."""

from __future__ import annotations

import random

import pytest
import trio

from p2p_sasaki.cli.common import TableConfig, decode_config, encode_config
from p2p_sasaki.protocol.net.table import BotPlayer, run_table
from p2p_sasaki.protocol.sasku_game import SaskuGame, TableBot
from p2p_sasaki.protocol.table_audit import audit_table
from p2p_sasaki.sasku.bots import HeuristicBot
from p2p_sasaki.sasku.options import SaskuOptions
from tests.net.test_table_driver import Four, four  # noqa: F401 (the fixture)

pytestmark = pytest.mark.slow


async def test_four_drivers_play_a_sasku_match_to_its_target(tmp_path, four: Four):  # noqa: F811
    config = TableConfig(hands=20, game=SaskuGame(SaskuOptions(target=2)))
    results: list = [None] * 4

    async def peer(n: int) -> None:
        results[n] = await run_table(
            four.identities[n], four.roster, config if n == 0 else None,
            player=BotPlayer(TableBot(HeuristicBot(random.Random(n)))), transcript_path=tmp_path / f"{n}.sasaki",
            listeners=four.listeners[n], config_codec=(encode_config, decode_config), linger=0.5)

    with trio.fail_after(240):
        async with trio.open_nursery() as nursery:
            for n in range(4):
                nursery.start_soon(peer, n)
    assert all(r.finished for r in results)
    assert all(r.config == config for r in results)   # the creator's game reached the joiners
    totals = results[0].totals
    assert len({r.totals for r in results}) == 1 and max(totals) >= 2
    transcripts = {(tmp_path / f"{n}.sasaki").read_bytes() for n in range(4)}
    assert len(transcripts) == 1
    audit = audit_table(transcripts.pop())
    assert audit.ok and audit.complete and audit.totals == totals
