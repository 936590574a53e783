"""The open bot seat (issue 18, finding 4; docs/protocol.md, "Replace seat"): a bot that takes an
empty seat plays with its hand shown to every peer from the deal (its runner learns nothing
the others do not), its moves are the open bot's rule (a function of the public state and
the chain), so every peer and the audit recompute each one, and a move that differs names
its runner. Four TableSessions over the tests' in-memory network, the real mental-poker deck."""

from __future__ import annotations

import random

import pytest

from p2p_sasaki.cards import mask_indices
from p2p_sasaki.protocol.config import TableConfig
from p2p_sasaki.protocol.events import Dealt, Shown
from p2p_sasaki.protocol.messages import StripRound, TranscriptHeader, decode_envelope
from p2p_sasaki.protocol.sasaki_game import SasakiGame
from p2p_sasaki.protocol.session import TableSession
from p2p_sasaki.protocol.table_audit import AuditStatus, audit_table
from p2p_sasaki.protocol.transcript import frame_records
from p2p_sasaki.sasaki.hand import Pass
from p2p_sasaki.sasaki.options import TableOptions

from .table_helpers import Net, random_bot

# Its tests share the honest two-hand table (honest_two_hands), made once per process: one worker runs them all.
pytestmark = pytest.mark.xdist_group("open-bot")


BOT, RUNNER = 1, 0          # roster indices: member 1 is the open bot, run by member 0


def config(hands: int = 2, proofs: bool = False) -> TableConfig:
    return TableConfig(hands=hands, game=SasakiGame(TableOptions(lead_card="3H")), proofs=proofs,
                       bots=((BOT, RUNNER),))


def rule_or_random(session: TableSession, rng: random.Random) -> None:
    """The people play at random; the open bot's seat sends the open bot's rule."""
    rule = session.rule_answer
    if rule is not None:
        session.act(rule)
    else:
        random_bot(session, rng)


def steered(session: TableSession, rng: random.Random) -> None:
    """The runner steers its bot: pass whenever it may (throw the hand), else the rule."""
    if session.my_index == BOT and session.rule_answer is not None:
        passes = [a for a in session.legal_actions if isinstance(a, Pass)]
        if passes and passes[0] != session.rule_answer:
            session.act(passes[0])
            return
    rule_or_random(session, rng)


def seat_of(net: Net, index: int) -> int:
    seat = net.peers[index].my_seat
    assert seat is not None
    return seat


def played(seed: int, table: TableConfig, bot) -> Net:
    net = Net(seed=seed, config=table, bot=bot)
    net.start()
    net.run()
    return net


@pytest.fixture(scope="module")
def honest_two_hands() -> Net:
    """Two hands with the open bot played by its rule (seed 5, no arguments), played once: the
    show test and the audit test both read it, neither changes it."""
    return played(5, config(), rule_or_random)


@pytest.mark.parametrize("proofs", [False, True])
def test_the_open_bots_hand_is_shown_to_every_peer_at_every_deal(proofs, honest_two_hands):
    net = honest_two_hands if not proofs else played(5, config(hands=1, proofs=True), rule_or_random)
    bot = seat_of(net, BOT)
    hands = net.config.hands
    dealt = [e.cards for e in net.of_type(BOT, Dealt)]          # the bot's own session's cards
    assert len(dealt) == hands
    for i in range(4):
        shown = net.of_type(i, Shown)
        # every peer's session, the runner's as every other's, is shown the bot's hand, and only it
        assert [(e.hand_no, e.seat, e.cards) for e in shown] == [(h + 1, bot, dealt[h]) for h in range(hands)]
        assert not net.blames(i) and net.peers[i].finished
    data = net.transcript(0)
    assert all(net.transcript(i) == data for i in range(4))
    # the show is the bot's own strip, public: a deck/strip of round n (4) in slot 3n + 1 (13), after round 3
    shows = [decode_envelope(raw) for kind, raw in frame_records(data)[0] if kind == 2
             and isinstance(decode_envelope(raw).body.payload, StripRound)
             and decode_envelope(raw).body.payload.round == 4]
    assert [(m.body.hand, m.body.sender, m.body.slot) for m in shows] == [(h + 1, bot, 13) for h in range(hands)]
    audit = audit_table(data)
    assert audit.status is AuditStatus.COMPLETE
    assert [tuple(sorted(h[bot])) for h in audit.hands] == [tuple(mask_indices(c.mask)) for c in dealt]
    header = TranscriptHeader.decode(frame_records(data)[0][0][1])
    assert [(e.bot, e.runner) for e in header.bots] == [(BOT, RUNNER)]


def test_a_steered_bot_move_is_blamed_on_its_runner_by_every_peer():
    net = Net(seed=5, config=config(), bot=steered)
    net.start()
    net.run()
    bot, runner = seat_of(net, BOT), seat_of(net, RUNNER)
    for i in range(4):
        blame = net.blames(i)[0]
        assert blame.seat == runner, blame
        assert blame.reason.startswith(f"seat {runner} runs the open bot in seat {bot}, which answered S{bot} pass "
                                       "where the open bot's rule answers")
        assert blame.reason.endswith("the runner steered it")
    # each transcript ends with the steered slot (the bot's signed answer): the audit, without the
    # hand's keys, follows the game as the open bot sees it and names the runner there
    data = net.transcript(0)
    assert all(net.transcript(i) == data for i in range(4))
    audit = audit_table(data)
    assert audit.status is AuditStatus.FAULT and audit.blame is not None
    assert (audit.blame.seat, audit.blame.reason) == (runner, net.blames(0)[0].reason)


def test_the_audit_recomputes_every_move_of_the_open_bot(monkeypatch, honest_two_hands):
    """Peers that never checked the bot (today's code) let a steered move into the transcript:
    the audit's replay recomputes the bot's moves and names the runner at that slot."""
    def unchecked(net_seed: int) -> Net:
        with monkeypatch.context() as patch:
            patch.setattr(TableSession, "_check_open_bot", lambda self, seat, slot, action, got: None)
            net = Net(seed=net_seed, config=config(), bot=steered)
            net.start()
            net.run()
        return net

    net = unchecked(5)
    assert not net.blames(0) and net.peers[0].finished
    audit = audit_table(net.transcript(0))
    runner, bot = seat_of(net, RUNNER), seat_of(net, BOT)
    assert audit.status is AuditStatus.FAULT and audit.blame is not None
    assert audit.blame.seat == runner
    assert f"runs the open bot in seat {bot}" in audit.blame.reason and "steered" in audit.blame.reason
    # an honest table's transcript: every bot move recomputed, nothing to say
    assert audit_table(honest_two_hands.transcript(0)).status is AuditStatus.COMPLETE


def test_the_open_bots_rule_is_a_function_of_the_public_state_and_the_chain():
    net = Net(seed=9, config=config(hands=1), bot=rule_or_random)
    net.start()
    bot = None
    checked = 0
    for _ in range(2_000_000):
        net.flush()
        if net.queue:
            sender, to, data = net.queue.pop(0)
            net.peers[to].receive(data, net.keys[sender].public_key)
            continue
        if any(p.step() for p in net.peers):
            continue
        pending = [p for p in net.peers if p.pending_for_me is not None]
        if not pending:
            break
        bot = seat_of(net, BOT)
        rules = {repr(p.open_bot_answer(bot)) for p in net.peers}
        assert len(rules) == 1      # every peer computes the same answer (or None: not asked)
        # ... from the same view of the bot's seat (its hand public: what the page draws face up)
        assert len({repr(p.open_views().get(bot)) for p in net.peers}) == 1
        checked += rules != {"None"}
        net.act_bots()
    assert checked > 5 and all(p.finished for p in net.peers) and not net.blames(0)


def test_a_header_with_open_bots_round_trips_and_refuses_a_bot_runner_or_a_repeat():
    from p2p_sasaki.protocol.config import header_of
    from p2p_sasaki.protocol.crypto import IdentityKey, SeededEntropy
    from p2p_sasaki.protocol.messages import MessageError, OpenBot

    keys = [IdentityKey.generate(SeededEntropy(b"k%d" % i)).public_key for i in range(4)]
    header = header_of(bytes(32), keys, config())
    data = header.encode()
    assert TranscriptHeader.decode(data).bots == (OpenBot(BOT, RUNNER),)
    assert data.endswith(bytes([0x91, 0x92, BOT, RUNNER]))     # [[bot, runner]], the 16th element
    assert data[0] == 0xDC and data[1:3] == bytes([0, 16])
    for bots in ((OpenBot(1, 1),), (OpenBot(1, 0), OpenBot(1, 2)), (OpenBot(1, 0), OpenBot(0, 2)), (OpenBot(4, 0),)):
        bad = TranscriptHeader(**{**header.__dict__, "bots": bots})
        with pytest.raises(MessageError):
            bad.encode()


def test_vector_the_open_bots_rule():
    """docs/protocol.md, "Replace seat": the heuristic bot seeded with the chain hash before the slot."""
    from p2p_sasaki.cards import CardSet
    from p2p_sasaki.protocol.sasaki_game import SasakiState
    from p2p_sasaki.sasaki.hand import Decline, Hand, Play

    game = SasakiGame(TableOptions(lead_card="3H"))
    hand = Hand.random(random.Random(7), lead_card="3H")
    while hand.decision.kind.value != "turn":                  # nobody runs
        hand.resolve([Decline(s) for s in hand.decision.seats])
    assert hand.decision.seats == (2,) and hand.cards(2) == CardSet.parse("3C 3H 4C 5D 5S 6H TD JS QD KC AC AD")
    state = SasakiState(hand)
    assert game.open_bot_answer(state, 2, bytes(32)) == Play(2, CardSet.parse("3H 4C 5S 6H"))
    assert game.open_bot_answer(state, 2, bytes(range(32))) == Play(2, CardSet.parse("3H 4C 5D 6H"))


def test_every_player_knows_from_the_deal_whether_the_open_bot_holds_a_red_ten():
    from p2p_sasaki.cards import CardSet

    red_tens = CardSet.parse("TH TD").mask
    seen = set()
    for seed in range(12):
        net = Net(seed=seed, config=config(hands=1), hostile=False, bot=rule_or_random)
        net.start()
        while not all(p.view is not None for p in net.peers):   # the deal, the opening, up to the first decision
            net.flush()
            sender, to, data = net.queue.pop(0)
            net.peers[to].receive(data, net.keys[sender].public_key)
            while any(p.step() for p in net.peers):
                pass
        bot = seat_of(net, BOT)
        holds = bool(net.peers[0].shown_hands[bot] & red_tens)
        seen.add(holds)
        for peer in net.peers:     # the run window: nothing played yet, and each view knows the bot's side
            assert (bot in peer.view.red) == holds
        if seen == {True, False}:
            return
    raise AssertionError(f"twelve deals gave the bot a red ten: {seen}")
