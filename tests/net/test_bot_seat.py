"""A bot in the empty seat (protocol/net/botseat.py, protocol/followon.py "replace-seat"), in
virtual time: four real drivers on the in-memory network under
``MockClock(autojump_threshold=0)``. One peer is killed for good in hand 2 of 3; the other
three get the stall deadline's choices, choose "bot" (the hand is abandoned, this table
ends), agree on a ``replace-seat`` table over the same links, and the lowest present seat
runs a fresh bot in the departed seat: the new table plays the remaining hand with
the old seating and the old totals carried, and its four transcripts (three players' and
the bot's) are byte-identical and audit, linked to the old table."""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass, field
from typing import Any

import pytest
import trio
import trio.testing

from p2p_sasaki.cli.main import main
from p2p_sasaki.protocol.chain import table_id_of
from p2p_sasaki.protocol.config import Pace
from p2p_sasaki.protocol.crypto import SeededEntropy
from p2p_sasaki.protocol.events import Dealt, Shown
from p2p_sasaki.protocol.followon import REPLACE_SEAT, link_of
from p2p_sasaki.protocol.messages import TranscriptHeader, decode_envelope
from p2p_sasaki.protocol.net import Identity, TableMember, TableRoster
from p2p_sasaki.protocol.net.botseat import ReplaceSeat, agree_replace_seat, play_replaced_seat, runner_of
from p2p_sasaki.protocol.net.match import decode_config, encode_config
from p2p_sasaki.protocol.net.memory import MemoryNetwork
from p2p_sasaki.protocol.net.table import BOT, END, BotPlayer, Stalled, TableResult, run_table
from p2p_sasaki.protocol.sasaki_game import LEAD_SLOT, SasakiGame
from p2p_sasaki.protocol.session import Record, TableConfig, TableSession
from p2p_sasaki.protocol.table_audit import AuditStatus, audit_table, follows_check
from p2p_sasaki.protocol.transcript import frame_records
from p2p_sasaki.sasaki.bots import HeuristicBot
from p2p_sasaki.sasaki.hand import Pass
from p2p_sasaki.sasaki.options import TableOptions

# in-process drivers: no disk waits (tests/conftest.py); the tests sharing the old table
# (old_table_all_chose_bot) on one worker, so it is played once
pytestmark = [pytest.mark.usefixtures("no_fsync"), pytest.mark.xdist_group("bot-seat")]

STALL = 60.0
PACE = Pace((), 1_000, round(STALL * 1000))
CONFIG = TableConfig(hands=3, game=SasakiGame(TableOptions(lead_card="3S")), proofs=False, pace=PACE)
IDENTITIES = [Identity.generate(SeededEntropy(b"bot seat peer %d" % n)) for n in range(4)]
KEYS = [identity.public_key for identity in IDENTITIES]
ROSTER = TableRoster(bytes(range(32)), tuple(TableMember(key, "memory", n, bytes(range(200, 232)))
                                             for n, key in enumerate(KEYS)))
VICTIM = 1
PRESENT = [n for n in range(4) if n != VICTIM]
BOT_IDENTITY = Identity.generate(SeededEntropy(b"bot seat: the bot"))


class Chooser(BotPlayer):
    """A bot whose stall choice is scripted (a person pressing a key)."""

    def __init__(self, n: int, choice: str) -> None:
        super().__init__(HeuristicBot(random.Random(n)))
        self.choice = choice
        self.asked: list[Stalled] = []

    async def stalled(self, stall: Stalled) -> str:
        self.asked.append(stall)
        return self.choice


@dataclass
class Peer:
    old: TableResult | None = None
    agreed: ReplaceSeat | None = None
    new: TableResult | None = None
    bot: TableResult | None = None
    records: list[list[bytes]] = field(default_factory=lambda: [[], [], []])   # old, new, bot's
    cards: list[list[Any]] = field(default_factory=lambda: [[], [], []])      # Dealt and Shown events, likewise
    player: Chooser | None = None


def recorder(records: list[bytes], cards: list[Any] | None = None) -> Any:
    def event(ev: Any, session: Any) -> None:
        if isinstance(ev, Record):
            records.append(ev.data)
        if isinstance(ev, (Dealt, Shown)) and cards is not None:
            cards.append(ev)
    return event


def killer(network: MemoryNetwork, scope: trio.CancelScope) -> Any:
    """The victim's crash point: SIGKILLed (offline, cancelled) as it signs its first play of hand 2."""
    async def point(name: str, mine: list[bytes]) -> None:
        bodies = [decode_envelope(f).body for f in mine]
        if name == "saved" and any(b.type == "table/action" and b.hand == 2 and b.slot > LEAD_SLOT for b in bodies):
            network.go_offline(KEYS[VICTIM])
            scope.cancel()
    return point


def sessions(n: int, tag: bytes) -> Any:
    def make(identity: Identity, roster: TableRoster, config: Any) -> TableSession:
        return TableSession(identity, roster.keys, roster.table_id, config, rng=SeededEntropy(b"%s %d" % (tag, n)))
    return make


class SteeredSession(TableSession):
    """The runner's modified program: its bot's session never answers by the open bot's rule,
    so the bot player (a thrower) chooses."""

    @property
    def rule_answer(self) -> Any:
        return None


class Thrower(BotPlayer):
    """A bot steered to throw the hand: it passes whenever it may."""

    def __init__(self) -> None:
        super().__init__(HeuristicBot(random.Random(99)))

    async def decide(self, turn: Any) -> Any:
        passes = [a for a in turn.legal if isinstance(a, Pass)]
        return passes[0] if passes else await super().decide(turn)


async def table(choices: dict[int, str], runner_gone: bool = False, policies: dict[int, str] | None = None,
                play: bool = True, bot_identity: Any = BOT_IDENTITY, steer: bool = False,
                old: list[Peer] | None = None, agree: bool = True) -> list[Peer]:
    """``runner_gone``: the bot's runner stops after the old table (never proposes);
    ``policies``: a peer's answer policy (default: "yes" if it chose "bot", else "no");
    ``play=False``: stop after the agreement; ``agree=False``: stop after the old table.
    ``old``: the old table as such a run played it with these ``choices``: this run starts
    at the agreement, over links of its own, the victim gone."""
    network = MemoryNetwork(KEYS)
    peers = [Peer() for _ in range(4)]
    if old is not None:
        network.go_offline(KEYS[VICTIM])

    async def run(n: int) -> None:
        transport = network.transport(KEYS[n])
        peer = peers[n]
        peer.player = Chooser(n, choices.get(n, END))
        async with trio.open_nursery() as links:
            await links.start(transport.run)
            if old is None:
                scope = trio.CancelScope()
                kill = killer(network, scope)
                with scope:
                    peer.old = await run_table(
                        IDENTITIES[n], ROSTER, CONFIG if n == 0 else None, player=peer.player, transcript_path=None,
                        on_event=recorder(peer.records[0]), config_codec=(encode_config, decode_config),
                        transport=transport, transport_running=True, step_in_thread=False,
                        session_factory=sessions(n, b"old3"), crash_point=kill if n == VICTIM else None)
            else:
                peer.old, peer.player, peer.records[0] = old[n].old, old[n].player, list(old[n].records[0])
            if n == VICTIM or not agree:
                transport.close()
                links.cancel_scope.cancel()
                return
            assert peer.old is not None and peer.old.seat_keys is not None
            policy = (policies or {}).get(n, "yes" if choices.get(n) == BOT else "no")
            gone_seat = peer.old.seat_keys.index(KEYS[VICTIM])
            if runner_gone and runner_of(peer.old.seat_keys, gone_seat) == KEYS[n]:
                transport.close()
                links.cancel_scope.cancel()
                return
            peer.agreed = await agree_replace_seat(transport, IDENTITIES[n], ROSTER, peer.old, policy, 30.0,
                                                   bot=bot_identity, entropy=SeededEntropy(b"nonce %d" % n))
            if play and peer.agreed is not None and peer.agreed.roster is not None:
                bot = Thrower() if steer else BotPlayer(HeuristicBot(random.Random(99)))
                bot_session = sessions(9, b"bot")
                if steer:
                    def bot_session(identity: Identity, roster: TableRoster, config: Any) -> TableSession:
                        return SteeredSession(identity, roster.keys, roster.table_id, config,
                                              rng=SeededEntropy(b"bot 9"))
                peer.new, peer.bot = await play_replaced_seat(
                    IDENTITIES[n], transport, peer.agreed, player=BotPlayer(HeuristicBot(random.Random(10 + n))),
                    transcript_path=None, on_event=recorder(peer.records[1], peer.cards[1]), step_in_thread=False,
                    session_factory=sessions(n, b"new"), bot_player=bot,
                    bot_options={"on_event": recorder(peer.records[2], peer.cards[2]), "step_in_thread": False,
                                 "session_factory": bot_session})
            transport.close()
            links.cancel_scope.cancel()

    with trio.fail_after(3600):      # virtual seconds
        async with trio.open_nursery() as nursery:
            for n in range(4):
                nursery.start_soon(run, n)
    return peers


async def test_the_others_choose_bot_and_the_match_goes_on_with_a_bot_in_the_empty_seat(
        autojump_clock, tmp_path, capsys):
    peers = await table({n: BOT for n in PRESENT})
    old = peers[PRESENT[0]].old
    assert old is not None and old.seat_keys is not None and old.final_hash is not None
    gone = old.seat_keys.index(KEYS[VICTIM])
    for n in PRESENT:
        peer = peers[n]
        assert peer.player is not None and [s.bot_seat for s in peer.player.asked] == [True]
        assert peer.old is not None and peer.old.choice == BOT and peer.old.finished
        (abandoned,) = peer.old.abandoned
        assert abandoned.hand == 2 and abandoned.end and abandoned.left == (gone,)
        # hand 1 was scored; hand 2 (the seat left after its deal) is a forfeit against the seat that
        # left, -36 for it and +12 for each other (docs/rules.md, "Forfeit"): the totals go on from both
        assert abandoned.forfeit == gone and [h.hand_no for h in peer.old.hands] == [1, 2]
        forfeit = tuple(-36 if s == gone else 12 for s in range(4))
        assert peer.old.hands[1].scores == forfeit
        assert peer.old.totals == tuple(a + b for a, b in zip(peer.old.hands[0].scores, forfeit, strict=True))
    runner = min(s for s in range(4) if s != gone)
    runner_peer = KEYS.index(old.seat_keys[runner])
    old_data = b"".join(peers[PRESENT[0]].records[0])
    assert {b"".join(peers[n].records[0]) for n in PRESENT} == {old_data}
    old_audit = audit_table(old_data)
    assert old_audit.status is AuditStatus.COMPLETE and old_audit.left == (gone,)   # a forfeit is a result
    assert old_audit.forfeits == (None, gone) and old_audit.totals == old.totals

    # the new roster: the old one's, the bot in the departed member's place, at its runner's address
    new_keys = tuple(BOT_IDENTITY.public_key if k == KEYS[VICTIM] else k for k in KEYS)
    link = link_of(ROSTER.table_id, old.final_hash, REPLACE_SEAT, new_keys)
    rosters = {peers[n].agreed.roster for n in PRESENT}
    assert len(rosters) == 1
    roster = rosters.pop()
    assert roster is not None and roster.keys == new_keys
    assert roster.member(BOT_IDENTITY.public_key).port == ROSTER.member(KEYS[runner_peer]).port
    assert roster.table_id == table_id_of(link, roster.members)

    # four byte-identical transcripts of the new table: three players' and the bot's
    for n in PRESENT:
        assert (peers[n].bot is not None) == (n == runner_peer)
    data = b"".join(peers[PRESENT[0]].records[1])
    assert {b"".join(peers[n].records[1]) for n in PRESENT} | {b"".join(peers[runner_peer].records[2])} == {data}
    header = TranscriptHeader.decode(frame_records(data)[0][0][1])
    assert header.hands == 1 and header.follows == link and header.carried == old.totals
    assert header.seats == tuple(KEYS.index(k) for k in old.seat_keys)
    audit = audit_table(data)
    assert audit.status is AuditStatus.COMPLETE and len(audit.scores) == 1
    # the seats are the old ones; the totals go on from the old ones
    new = peers[PRESENT[0]].new
    assert new is not None and new.finished and new.seat_keys == tuple(
        BOT_IDENTITY.public_key if k == KEYS[VICTIM] else k for k in old.seat_keys)
    assert new.totals == tuple(c + s for c, s in zip(old.totals, audit.scores[0], strict=False))
    assert audit.totals == new.totals
    check = follows_check(data, old_data)
    assert check.ok and check.bot_seat == gone and check.problems == ()
    # the bot's hand is open to all: every player's session (its runner's too) is shown the cards the
    # bot was dealt, at the deal, and the header names the bot and its runner
    (dealt,) = [e.cards for e in peers[runner_peer].cards[2] if isinstance(e, Dealt)]
    for n in PRESENT:
        assert [(e.seat, e.cards) for e in peers[n].cards[1] if isinstance(e, Shown)] == [(gone, dealt)]
    assert [(e.bot, e.runner) for e in header.bots] == [(KEYS.index(KEYS[VICTIM]), runner_peer)]

    # sasaki audit NEW --follows OLD: the link, the bot's seat; another OLD: exit status 6
    (tmp_path / "old.sasaki").write_bytes(old_data)
    (tmp_path / "new.sasaki").write_bytes(data)
    capsys.readouterr()
    assert main(["audit", str(tmp_path / "new.sasaki"), "--follows", str(tmp_path / "old.sasaki")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{tmp_path / 'new.sasaki'}: OK: 1 hand(s) verified; totals ")
    # the audit recomputed each of the bot's moves (the open bot's rule)
    ((bot_seat, bot_runner, moves),) = audit.open_bots
    assert (bot_seat, bot_runner) == (gone, runner) and moves >= 6
    assert out[-2] == (f"{audit.label(gone)} played with its hand open to all (a bot run by "
                       f"{audit.label(runner)}): each of its {moves} move(s) is the open bot's rule, recomputed.")
    carried = ", ".join(f"S{s} {v:+d}" for s, v in enumerate(old.totals))
    assert out[-1] == (f"It follows {tmp_path / 'old.sasaki'}: a bot (a new member) sits in S{gone}, the seat "
                       f"abandoned there; same seating, totals carried ({carried}), 1 hand(s) left.")
    assert main(["audit", str(tmp_path / "new.sasaki"), "--follows", str(tmp_path / "new.sasaki")]) == 6
    assert capsys.readouterr().out.splitlines()[-1] == (
        f"It does NOT follow {tmp_path / 'new.sasaki'}: the new table's link names another table, another end "
        "of its chain or other members; the new roster is not the old one with exactly one new member.")


@pytest.fixture(scope="module")
def old_table_all_chose_bot() -> list[Peer]:
    """The old table of the tests below that go on from every present player choosing "bot"
    (the victim killed in hand 2, the hand abandoned, the table ended), played once: each of
    those tests is about what comes after it (the proposal, the answers, the new table).
    test_the_others_choose_bot_... plays its own, going on over the old table's links."""
    return trio.run(functools.partial(table, {n: BOT for n in PRESENT}, agree=False),
                    clock=trio.testing.MockClock(autojump_threshold=0))


async def test_no_bot_seat_unless_every_present_player_chose_it(autojump_clock):
    choices = {n: BOT for n in PRESENT}
    choices[PRESENT[-1]] = END
    peers = await table(choices)
    for n in PRESENT:
        agreed = peers[n].agreed
        assert agreed is not None and agreed.roster is None
        assert agreed.outcome.declined == KEYS[PRESENT[-1]]
        assert peers[n].new is None and peers[n].records[1] == []




async def test_a_bot_steered_by_its_runner_is_caught_at_its_first_steered_move_and_the_runner_named(
        autojump_clock, old_table_all_chose_bot):
    peers = await table({n: BOT for n in PRESENT}, steer=True, old=old_table_all_chose_bot)
    old = peers[PRESENT[0]].old
    assert old is not None and old.seat_keys is not None
    gone = old.seat_keys.index(KEYS[VICTIM])
    runner = min(s for s in range(4) if s != gone)
    blames = {n: peers[n].new.blame for n in PRESENT if peers[n].new is not None}
    assert sorted(blames) == PRESENT
    for blame in blames.values():
        assert blame is not None and blame.seat == runner
        assert blame.reason.startswith(f"seat {runner} runs the open bot in seat {gone}, which answered S{gone} pass")
        assert blame.reason.endswith("the runner steered it")
    # every transcript ends with the slot of the steered move (the evidence): the audit recomputes the
    # open bot's rule and names the runner there, from the bot's own signed answer
    data = b"".join(peers[PRESENT[0]].records[1])
    assert {b"".join(peers[n].records[1]) for n in PRESENT} == {data}
    audit = audit_table(data)
    assert audit.status is AuditStatus.FAULT and audit.blame is not None
    assert (audit.blame.seat, audit.blame.reason) == (runner, blames[PRESENT[0]].reason)


class WeakBot:
    """A runner's forged bot: the identity point as its key, and the signature that verifies for
    any message under it (R = identity, S = 0)."""

    public_key = bytes([1]) + bytes(31)

    def sign(self, data: bytes) -> bytes:
        return self.public_key + bytes(32)


async def test_a_proposal_with_a_weak_bot_key_and_a_forged_signature_is_refused(autojump_clock,
                                                                                  old_table_all_chose_bot):
    peers = await table({n: BOT for n in PRESENT}, bot_identity=WeakBot(), old=old_table_all_chose_bot)
    old = peers[PRESENT[0]].old
    assert old is not None and old.seat_keys is not None
    runner = KEYS.index(runner_of(old.seat_keys, old.seat_keys.index(KEYS[VICTIM])))
    for n in PRESENT:
        agreed = peers[n].agreed
        assert agreed is not None and agreed.roster is None and peers[n].new is None
        if n != runner:
            assert agreed.refused == "the proposal's bot key is weak (the identity, of small order or not " \
                                     "canonical): refused"


async def test_without_the_runners_proposal_the_others_end_after_their_answer_deadline(autojump_clock,
                                                                                          old_table_all_chose_bot):
    peers = await table({n: BOT for n in PRESENT}, runner_gone=True, old=old_table_all_chose_bot)
    waited = [peers[n] for n in PRESENT if peers[n].agreed is not None]
    assert len(waited) == 2
    for peer in waited:
        assert peer.agreed is not None and peer.agreed.roster is None and peer.new is None
        assert peer.agreed.outcome.missing == (peer.agreed.runner,)



@pytest.mark.parametrize("person", [True, False])
async def test_bot_players_never_ask_for_a_bot_seat_but_follow_a_person_who_does(person, autojump_clock,
                                                                                   old_table_all_chose_bot):
    """Policy "follow" (a ``--bot`` peer): accept once another present member accepted, within 2 s."""
    policies = {n: "follow" for n in PRESENT}
    if person:
        policies[PRESENT[-1]] = "yes"
    peers = await table({n: BOT for n in PRESENT}, policies=policies, play=False, old=old_table_all_chose_bot)
    rosters = {peers[n].agreed.roster for n in PRESENT}
    assert len(rosters) == 1
    if person:
        assert rosters.pop() is not None
    else:
        assert rosters.pop() is None and all(peers[n].agreed.outcome.declined is not None
                                             for n in PRESENT)
