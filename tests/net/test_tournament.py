"""A duplicate Sasku tournament (protocol/net/tournament.py) of bot players in this process:
the tournament mesh is an in-memory network (protocol/net/memory.py) in virtual time, every
table is played by the real table driver with the mental-poker deck and its proofs; every
table transcript audits; the standings come out of the signed results."""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import trio
import trio.testing

from p2p_sasaki.protocol.messages import TableMember, TableRoster
from p2p_sasaki.protocol.net.asking import BotPlayer, PlayerLeft
from p2p_sasaki.protocol.net.identity import Identity
from p2p_sasaki.protocol.net.memory import MemoryNetwork
from p2p_sasaki.protocol.net.tournament import (
    RoundScored,
    Standings,
    TournamentLeft,
    TournamentOptions,
    run_tournament,
)
from p2p_sasaki.protocol.sasku_game import TableBot
from p2p_sasaki.protocol.table_audit import audit_table
from p2p_sasaki.sasku.bots import HeuristicBot


def roster_of(players: int) -> tuple[list[Identity], TableRoster]:
    identities = [Identity(bytes([n + 1]) * 32) for n in range(players)]
    members = tuple(TableMember(i.public_key, "127.0.0.1", 1000 + n, bytes([n]) * 32, f"P{n + 1}")
                    for n, i in enumerate(identities))
    return identities, TableRoster(bytes(32), members)


class Quitter:
    """A bot that quits the tournament at its first decision of round ``at``."""

    is_bot = True

    def __init__(self, bot: BotPlayer, at: int) -> None:
        self.bot, self.at, self.round = bot, at, 0

    async def decide(self, turn):
        if self.round == self.at:
            raise PlayerLeft()
        return await self.bot.decide(turn)

    async def stalled(self, stall):
        return await self.bot.stalled(stall)


async def play(tmp_path: Path, players: int, rounds: int, quitter: tuple[int, int] | None = None):
    identities, roster = roster_of(players)
    network = MemoryNetwork(roster.keys)
    results: dict[int, Standings | str] = {}
    events: dict[int, list] = {n: [] for n in range(players)}

    async def member(n: int) -> None:
        bot = BotPlayer(TableBot(HeuristicBot(random.Random(n))))
        player: BotPlayer | Quitter = bot
        quitting = None
        if quitter is not None and quitter[0] == n:
            quitting = Quitter(bot, quitter[1])
            player = quitting

        def by_round(round_no: int):
            if quitting is not None:
                quitting.round = round_no
            return player

        options = TournamentOptions(rounds=rounds, directory=tmp_path / f"p{n + 1}", step_in_thread=False,
                                    deal_seed=7, connect_timeout=30)
        try:
            results[n] = await run_tournament(identities[n], roster, network.transport(roster.keys[n]), options,
                                              player=by_round, on_event=events[n].append)
        except TournamentLeft:
            results[n] = "left"

    with trio.fail_after(3000):
        async with trio.open_nursery() as nursery:
            for n in range(players):
                nursery.start_soon(member, n)
    return roster, results, events


def check_folder(folder: Path, rounds: int, tables: int) -> None:
    for round_no in range(1, rounds + 1):
        for table in range(1, tables + 1):
            audit = audit_table((folder / f"round-{round_no}" / f"table-{table}.sasaki").read_bytes())
            assert audit.ok, audit


def test_eight_players_two_tables(tmp_path):
    async def main():
        return await play(tmp_path, 8, 2)

    roster, results, events = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    standings = {n: r for n, r in results.items()}
    first = standings[0]
    assert isinstance(first, Standings)
    assert all(s.points == first.points for s in standings.values())   # every member the same standings
    assert sum(first.points) == Fraction(100) * 8 * 2 / 2   # each comparison's two lines share 100 a round
    check_folder(tmp_path / "p1", 2, 2)
    scored = [e for e in events[0] if isinstance(e, RoundScored)]
    assert [e.round for e in scored] == [1, 2]
