"""A bot in the empty seat of a Sasku table (protocol/net/botseat.py, "replace-seat"), in
virtual time, with tests/net/test_bot_seat.py's table: one peer is killed for good in deal 2
of 3; the other three choose "bot" at the stall deadline (the deal is that seat's forfeit:
the other pair scores 6), agree on a ``replace-seat`` table over the same links, and the
lowest present seat runs an open bot in the departed seat. The new table plays the deal
left with the old seating and the pairs' totals carried; the bot's hand is shown to every
player, each of its moves is the open bot's rule, and the four transcripts are identical,
audit, and are linked to the old table."""

from __future__ import annotations

from typing import Any

import pytest

from p2p_sasaki.protocol.events import Dealt, Shown
from p2p_sasaki.protocol.messages import TranscriptHeader
from p2p_sasaki.protocol.net.table import BOT, TableResult
from p2p_sasaki.protocol.sasku_game import SaskuGame, TableBot
from p2p_sasaki.protocol.session import TableConfig
from p2p_sasaki.protocol.table_audit import AuditStatus, audit_table, follows_check
from p2p_sasaki.protocol.transcript import frame_records
from p2p_sasaki.sasku.bots import HeuristicBot
from p2p_sasaki.sasku.options import SaskuOptions
from tests.net import test_bot_seat
from tests.net.test_bot_seat import KEYS, PACE, PRESENT, VICTIM, table

pytestmark = pytest.mark.usefixtures("no_fsync")

CONFIG = TableConfig(hands=3, game=SaskuGame(SaskuOptions(target=60)), proofs=False, pace=PACE)


async def test_a_sasku_table_goes_on_with_an_open_bot_in_the_empty_seat(autojump_clock, monkeypatch):
    monkeypatch.setattr(test_bot_seat, "CONFIG", CONFIG)
    monkeypatch.setattr(test_bot_seat, "HeuristicBot", lambda rng: TableBot(HeuristicBot(rng)))
    peers = await table({n: BOT for n in PRESENT})
    old: TableResult | Any = peers[PRESENT[0]].old
    assert old is not None and old.seat_keys is not None and old.final_hash is not None
    gone = old.seat_keys.index(KEYS[VICTIM])
    for n in PRESENT:
        (abandoned,) = peers[n].old.abandoned
        assert abandoned.hand == 2 and abandoned.end and abandoned.left == (gone,) and abandoned.forfeit == gone
        assert peers[n].old.hands[1].scores == tuple(0 if s % 2 == gone % 2 else 6 for s in range(4))
    old_data = b"".join(peers[PRESENT[0]].records[0])
    assert audit_table(old_data).status is AuditStatus.COMPLETE
    runner = min(s for s in range(4) if s != gone)
    runner_peer = KEYS.index(old.seat_keys[runner])
    data = b"".join(peers[PRESENT[0]].records[1])
    assert {b"".join(peers[n].records[1]) for n in PRESENT} | {b"".join(peers[runner_peer].records[2])} == {data}
    header = TranscriptHeader.decode(frame_records(data)[0][0][1])
    assert header.game == "sasku" and header.hands == 1 and header.carried == old.totals
    assert [(e.bot, e.runner) for e in header.bots] == [(VICTIM, runner_peer)]
    audit = audit_table(data)
    assert audit.status is AuditStatus.COMPLETE and len(audit.scores) == 1
    ((bot_seat, bot_runner, moves),) = audit.open_bots
    assert (bot_seat, bot_runner) == (gone, runner) and moves >= 9          # at least its nine cards
    new = peers[PRESENT[0]].new
    assert new is not None and new.finished and new.totals == audit.totals
    assert new.totals == tuple(c + s for c, s in zip(old.totals, audit.scores[0], strict=True))
    assert new.totals[0] == new.totals[2] and new.totals[1] == new.totals[3]   # partners share a score
    (dealt,) = [e.cards for e in peers[runner_peer].cards[2] if isinstance(e, Dealt)]
    for n in PRESENT:
        assert [(e.seat, e.cards) for e in peers[n].cards[1] if isinstance(e, Shown)] == [(gone, dealt)]
    check = follows_check(data, old_data)
    assert check.ok and check.bot_seat == gone and check.problems == ()
