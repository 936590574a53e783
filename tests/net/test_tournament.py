"""A duplicate Sasku tournament (protocol/net/tournament.py) of bot players in this process:
the tournament mesh is an in-memory network (protocol/net/memory.py) in virtual time (the 8- and
5-player tournaments: the real TCP mesh on 127.0.0.1), every board dealt with the mental-poker
deck and every table played by the real table driver; the 8-player tournament and the offline
member's with the proofs on (the byes' and the leaver's tournaments are about the standings:
their boards and tables run without proofs, which tests/protocol/test_board.py covers); every
table transcript audits; the standings come out of the signed results."""

from __future__ import annotations

import dataclasses
import json
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from p2p_sasaki.cli.standings import standings_json
from p2p_sasaki.cli.tournament_audit import audit_tournament
from p2p_sasaki.protocol.board import BoardSession
from p2p_sasaki.protocol.board_audit import audit_board
from p2p_sasaki.protocol.deck import read_cards
from p2p_sasaki.protocol.messages import TableMember, TableRoster
from p2p_sasaki.protocol.net.asking import BotPlayer, PlayerLeft
from p2p_sasaki.protocol.net.identity import Identity
from p2p_sasaki.protocol.net.memory import LinkConditions, MemoryNetwork
from p2p_sasaki.protocol.net.mesh import Mesh
from p2p_sasaki.protocol.net.tournament import (
    RoundDealt,
    RoundScored,
    TournamentLeft,
    TournamentOptions,
    run_tournament,
)
from p2p_sasaki.protocol.sasku_game import TableBot
from p2p_sasaki.protocol.tournament_files import TournamentFolder
from p2p_sasaki.sasku.bots import HeuristicBot

# in-process members: no disk waits (tests/conftest.py; a tournament writes a thousand records)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("no_fsync")]


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


async def play(tmp_path: Path, players: int, rounds: int, quitter: tuple[int, int] | None = None,
               tcp: bool = False, offline: tuple[int, float, float] | None = None, proofs: bool = True):
    """Every member in this process; the tournament mesh in memory (virtual time) or, with
    ``tcp``, the real TCP mesh on 127.0.0.1."""
    identities, roster = roster_of(players)
    network = MemoryNetwork(roster.keys, conditions=LinkConditions(latency=0.01) if offline else LinkConditions())
    listeners = []
    if tcp:
        listeners = [await trio.open_tcp_listeners(0, host="127.0.0.1") for _ in range(players)]
        members = tuple(dataclasses.replace(m, port=ls[0].socket.getsockname()[1])
                        for m, ls in zip(roster.members, listeners, strict=True))
        roster = dataclasses.replace(roster, members=members)
    results: dict[int, Any] = {}
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

        options = TournamentOptions(rounds=rounds, proofs=proofs, directory=tmp_path / f"p{n + 1}", step_in_thread=tcp,
                                    deal_seed=7, connect_timeout=30, invitation=bytes(range(32)),
                                    standings_file=lambda standings: json.dumps(standings_json(standings)).encode())
        try:
            if tcp:
                async with trio.open_nursery() as links:
                    mesh = Mesh(identities[n], roster)
                    await links.start(mesh.run, listeners[n])
                    results[n] = await run_tournament(identities[n], roster, mesh, options, player=by_round,
                                                      on_event=events[n].append, transport_running=True)
                    mesh.close()
            else:
                results[n] = await run_tournament(identities[n], roster, network.transport(roster.keys[n]), options,
                                                  player=by_round, on_event=events[n].append)
        except TournamentLeft:
            results[n] = "left"

    async def lid(n: int, at: float, seconds: float) -> None:
        """Member n's laptop lid closes at ``at`` (virtual) seconds for ``seconds``: the frames
        on its links are lost, the others queue theirs until it is back."""
        await trio.sleep(at)
        network.go_offline(roster.keys[n])
        await trio.sleep(seconds)
        network.go_online(roster.keys[n])

    with trio.fail_after(3000):
        async with trio.open_nursery() as nursery:
            for n in range(players):
                nursery.start_soon(member, n)
            if offline is not None:
                nursery.start_soon(lid, *offline)
    return roster, results, events


def check_folder(folder: Path, roster: TableRoster, standings: Any, events: dict[int, list] | None = None) -> None:
    """The member's folder audits (cli/tournament_audit.py: the signed roster and draw, every
    board, every table dealt by its board, the standings recomputed) and its standings are the
    ones the member was shown; with ``events``, each round's secrets are checked too."""
    audit = audit_tournament(folder)
    assert audit.ok, audit.problems
    assert audit.standings == standings and audit.shown is True
    assert audit.rounds == len(standings.rounds)
    if events is None:
        return
    left: set[int] = set()
    for record in standings.rounds:
        active = [p for p in range(len(roster.keys)) if p not in left]
        left |= set(record.leavers)
        board = audit_board(Path(TournamentFolder(folder).board(record.number)).read_bytes())
        assert board.ok and board.session is not None
        check_secrets(board.session, record.number, active, events)


def check_secrets(observer: BoardSession, round_no: int, active: list[int], events: dict[int, list]) -> None:
    """What each member held before the round's reveal (its board secrets and cards as the
    board was dealt): its key reads its own seat's nine cards in its own chain, and no card in
    any other player's chain (another table's seat, or the same seat at another table)."""
    deal = observer.revealed()
    assert deal is not None
    card_index = {point: card for card, point in enumerate(observer.card_points)}
    for number, player in enumerate(active):
        (dealt,) = [e for e in events[player] if isinstance(e, RoundDealt) and e.round == round_no]
        _, key, _ = dealt.board.secrets()
        positions = observer.positions_of(number)
        assert tuple(dealt.cards) == tuple(deal[k] for k in positions)
        for other in range(len(active)):
            if not observer.positions_of(other):
                continue      # a bye owns no chain
            read = [card for card in read_cards(key, observer.final_values(other), card_index) if card is not None]
            assert read == ([deal[k] for k in positions] if other == number else [])


def test_eight_players_two_tables_two_rounds_over_tcp(tmp_path):
    """Round 2 is seated from the standings of round 1 (two rounds show the standings go on
    from round to round as well as four did)."""
    async def main():
        return await play(tmp_path, 8, 2, tcp=True)

    roster, results, events = trio.run(main)
    first = results[0]
    assert all(r == first for r in results.values())   # every member the same standings
    assert sum(first.total(p) for p in range(8)) == Fraction(50) * 8 * 2   # the two lines share 100 a comparison
    for n in (0, 5):
        check_folder(tmp_path / f"p{n + 1}", roster, first, events)
    scored = [e for e in events[0] if isinstance(e, RoundScored)]
    assert [e.round for e in scored] == [1, 2]
    assert [len(e.seating.tables) for e in scored] == [2, 2]


def test_five_players_a_bye_each_round_rotating_over_tcp(tmp_path):
    async def main():
        return await play(tmp_path, 5, 3, tcp=True, proofs=False)

    roster, results, events = trio.run(main)
    final = results[0]
    assert all(r == final for r in results.values())
    byes = [record.seating.byes for record in final.rounds]
    assert [len(b) for b in byes] == [1, 1, 1]
    assert len({b[0] for b in byes}) == 3                       # nobody a second bye
    for record in final.rounds:
        (bye,) = record.seating.byes
        assert record.points(bye) == 50 and record.entry(bye) == "bye:50"
        assert len(record.seating.tables) == 1
        # one table alone: every seat 50
        assert all(record.points(p) == 50 for p in record.seating.tables[0])
    check_folder(tmp_path / "p3", roster, final, events)


def test_nine_players_one_quits_in_round_two(tmp_path):
    quitter = 4

    async def main():
        return await play(tmp_path, 9, 3, quitter=(quitter, 2), proofs=False)

    roster, results, events = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert results[quitter] == "left"
    stayers = [n for n in range(9) if n != quitter]
    final = results[stayers[0]]
    assert all(results[n] == final for n in stayers)
    second = final.rounds[1]
    place = second.seating.place(quitter)
    assert place is not None                                      # it sat at a table in round 2
    table, seat = place
    assert second.results[table].leaver == seat
    assert second.points(quitter) == 0 and second.entry(quitter) == "left:0"
    others = [p for p in second.seating.tables[table] if p != quitter]
    assert [second.points(p) for p in others] == [60, 60, 60]
    # the leaver's table is left out of the comparisons: the other table counts alone (50 each)
    (other,) = [t for t in range(2) if t != table]
    assert all(second.points(p) == 50 for p in second.seating.tables[other])
    third = final.rounds[2]
    assert quitter not in third.seating.players and len(third.seating.tables) == 2 and not third.seating.byes
    assert final.left == (quitter,)
    folder = tmp_path / f"p{stayers[0] + 1}"
    check_folder(folder, roster, final, events)


def test_a_member_offline_for_a_while_loses_nothing(tmp_path):
    """Member 2 is cut off from everybody for 5 s while the first board is shuffled: the frames
    on its links are lost; when its links are back, it and the others send each other again
    what they sent on the tournament and board channels, and the tournament ends as usual."""
    async def main():
        return await play(tmp_path, 5, 1, offline=(2, 0.02, 5.0))

    roster, results, events = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    final = results[0]
    assert all(r == final for r in results.values()) and len(final.rounds) == 1
    check_folder(tmp_path / "p1", roster, final)
