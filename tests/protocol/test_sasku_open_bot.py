"""An open bot in an empty Sasku seat (docs/protocol.md, "Replace seat"; docs/rules-sasku.md,
"At the table"): its hand is shown to every peer at every deal, each of its moves is the open
bot's rule (the engine's heuristic bot on its own public view, seeded by the chain), which
every peer and the audit recompute, and a move that differs names its runner. Its pair hands
no card over (a hand-over to the open bot would tell its runner alone a card of its partner):
it never gives, and a partner that says ``give`` is refused and named. Four TableSessions over
the tests' in-memory network."""

from __future__ import annotations

import random

import pytest

from p2p_sasaki.protocol.config import TableConfig
from p2p_sasaki.protocol.events import BlameBasis, Dealt, Shown
from p2p_sasaki.protocol.messages import TableAction
from p2p_sasaki.protocol.sasku_game import GiveBack, GiveCall, SaskuGame
from p2p_sasaki.protocol.session import SignedKind, TableSession
from p2p_sasaki.protocol.table_audit import AuditStatus, audit_table, export_records
from p2p_sasaki.sasku.deal import Give, Pass, Return, Take
from p2p_sasaki.sasku.options import SaskuOptions

from .table_helpers import Net

BOT, RUNNER = 1, 0          # roster indices: member 1 is the open bot, run by member 0
TAKING = 3                  # a seed whose other pair gives, takes and returns (seat 3 open)


def config(hands: int = 2, proofs: bool = False) -> TableConfig:
    return TableConfig(hands=hands, game=SaskuGame(SaskuOptions(target=30)), proofs=proofs, bots=((BOT, RUNNER),))


def people(session: TableSession, rng: random.Random) -> None:
    """The open bot's seat sends its rule; the people give whenever they may and take."""
    rule = session.rule_answer
    if rule is not None:
        session.act(rule)
        return
    legal = session.legal_actions
    for kind in (GiveCall, Give, GiveBack, Take, Return):
        chosen = [a for a in legal if isinstance(a, kind)]
        if chosen:
            session.act(chosen[0])
            return
    passes = [a for a in legal if isinstance(a, Pass)]
    session.act(passes[0] if passes and rng.random() < 0.6 else rng.choice(legal))


def seat_of(net: Net, index: int) -> int:
    seat = net.peers[index].my_seat
    assert seat is not None
    return seat


@pytest.mark.parametrize(("seed", "proofs"), [(TAKING, False), (5, False),
                                              pytest.param(0, True, marks=pytest.mark.slow)])
def test_the_open_bot_plays_open_by_its_rule_and_the_other_pair_still_gives(seed, proofs):
    net = Net(seed=seed, config=config(hands=1 if proofs else 2, proofs=proofs), bot=people)
    net.start()
    net.run()
    bot = seat_of(net, BOT)
    hands = net.config.hands
    dealt = [e.cards for e in net.of_type(BOT, Dealt)]
    for i in range(4):
        assert not net.blames(i) and net.peers[i].finished
        shown = net.of_type(i, Shown)      # every peer, the runner's as every other's, sees the bot's hand
        assert [(e.hand_no, e.seat, e.cards) for e in shown] == [(h + 1, bot, dealt[h]) for h in range(hands)]
    data = net.transcript(0)
    assert all(net.transcript(i) == data for i in range(4))
    audit = audit_table(data)
    assert audit.status is AuditStatus.COMPLETE
    ((seat, runner, moves),) = audit.open_bots
    assert (seat, runner) == (bot, seat_of(net, RUNNER)) and moves >= 2 * hands   # every move recomputed
    lines = [line for record in export_records(data) for line in record.splitlines()]
    exchange = [line for line in lines if line.split(" ")[1:2] in (["give"], ["take"], ["return"], ["refuse"])]
    assert all(int(line[1]) % 2 != bot % 2 for line in exchange)    # the open bot's pair never gives
    if seed == TAKING:
        assert [line.split(" ")[1] for line in exchange] == ["give", "take", "return"]


def test_the_open_bots_partner_is_never_offered_a_give_and_one_it_says_anyway_is_named():
    offered: list[tuple[int, list[str]]] = []
    cheats: list[int] = []

    def partner_gives(session: TableSession, rng: random.Random) -> None:
        seat, bots = session.my_seat, list(session.open_seats)
        if seat is not None and bots and seat != bots[0] and seat % 2 == bots[0] % 2:
            offered.append((seat, [type(a).__name__ for a in session.legal_actions]))
            if not cheats and session.view.decision.kind.value == "bid":
                cheats.append(seat)    # says give on its bidding turn, though it is not offered
                session._sign(session.hand_no, session.slot, TableAction("give", (), (), ()), SignedKind.ANSWER)
                session._guarded(session._advance)
                return
        people(session, rng)

    net = Net(seed=5, config=config(hands=1), bot=partner_gives)
    net.start()
    net.run()
    assert offered and all("GiveCall" not in names for _, names in offered)
    (cheat,) = cheats
    for i in range(4):
        (blame,) = net.blames(i)
        assert (blame.seat, blame.basis) == (cheat, BlameBasis.SIGNED)
        assert blame.reason.startswith(f"S{cheat} cannot give: its pair has the open bot")


def test_a_steered_sasku_bot_is_blamed_on_its_runner():
    def steered(session: TableSession, rng: random.Random) -> None:
        rule = session.rule_answer
        if session.my_index == BOT and rule is not None:
            other = [a for a in session.legal_actions if a != rule]
            if other:
                session.act(other[0])
                return
        people(session, rng)

    net = Net(seed=5, config=config(hands=1), bot=steered)
    net.start()
    net.run()
    bot, runner = seat_of(net, BOT), seat_of(net, RUNNER)
    for i in range(4):
        blame = net.blames(i)[0]
        assert blame.seat == runner and blame.reason.startswith(f"seat {runner} runs the open bot in seat {bot}")
    audit = audit_table(net.transcript(0))
    assert audit.status is AuditStatus.FAULT and audit.blame is not None and audit.blame.seat == runner
