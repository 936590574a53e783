"""Sasku at the table (protocol/sasku_game.py): whole matches through the real session, the
mental-poker deck (or the tests' dealer) and the table audit, the picture giving as private
hand-overs, and the hidden rules a seat could break: refused or named, never an honest seat."""

from __future__ import annotations

import contextlib
import copy
import hashlib
import random
from pathlib import Path

import pytest

from p2p_sasaki.cards import Card
from p2p_sasaki.protocol.config import GAMES
from p2p_sasaki.protocol.crypto import SeededEntropy
from p2p_sasaki.protocol.dealing import TEST_DEALER_PREFIX, TrustedDealer
from p2p_sasaki.protocol.events import ActionApplied, BlameBasis, Penalty
from p2p_sasaki.protocol.messages import HandOver, MessageError, RuleClause, TableAction, decode_envelope
from p2p_sasaki.protocol.restore import RecordingEntropy, restore_session
from p2p_sasaki.protocol.sasku_game import (
    SASKU,
    GiveBack,
    GiveCall,
    HandOverDecision,
    SaskuGame,
    SaskuState,
    to_deck,
    to_engine,
)
from p2p_sasaki.protocol.session import HandAbandoned, HandEnded, MatchEnded, Record, Seated, TableConfig, TableSession
from p2p_sasaki.protocol.table_audit import audit_table
from p2p_sasaki.protocol.transcript import KIND_ENVELOPE, frame_records, read_transcript, split_records
from p2p_sasaki.sasku.deal import Deal, Decision, DecisionKind, Give, Pass, Return, view
from p2p_sasaki.sasku.options import SaskuOptions
from p2p_sasaki.sasku.trumps import PICTURES
from tests.protocol.table_helpers import Net

SEATS = 4


def sasku_config(target: int = 2, hands: int = 30, **changes) -> TableConfig:
    return TableConfig(hands=hands, game=SaskuGame(SaskuOptions(target=target)), **{"proofs": True, **changes})


def giving_bot(session: TableSession, rng: random.Random) -> None:
    """Gives whenever it may, takes or refuses at random, otherwise bids low or passes."""
    legal = session.legal_actions
    for kind in (GiveCall, Give, GiveBack):
        chosen = [a for a in legal if isinstance(a, kind)]
        if chosen:
            session.act(chosen[0])
            return
    passes = [a for a in legal if isinstance(a, Pass)]
    if passes and rng.random() < 0.6:
        session.act(passes[0])
        return
    session.act(rng.choice(legal))


def _messages(net: Net) -> list:
    return [decode_envelope(body) for kind, body in split_records(net.transcript(0))[1:] if kind == KIND_ENVELOPE]


def _seat_of(net: Net, i: int) -> int:
    return net.of_type(i, Seated)[0].my_seat


def assert_agreed(net: Net) -> None:
    assert len({net.transcript(i) for i in range(SEATS)}) == 1
    for i in range(SEATS):
        assert net.blames(i) == []
        assert net.peers[i].finished and net.peers[i].blame is None
        assert net.of_type(i, MatchEnded) == [MatchEnded(net.peers[i].totals)]


def test_the_game_names_its_cards_options_and_verbs():
    game = SaskuGame(SaskuOptions(min_bid=6, target=4))
    assert SaskuGame.from_options_bytes(game.options_bytes()) == game
    assert game.options_bytes() == b"min-bid=6;target=4"
    for bad in (b"", b"min-bid=6", b"min-bid=06;target=4", b"target=4;min-bid=6", b"min-bid=6;target=0"):
        with pytest.raises(ValueError):
            SaskuGame.from_options_bytes(bad)
    assert GAMES[SASKU](b"min-bid=5;target=12") == SaskuGame()
    assert [game.card_name(c) for c in (0, 3, 4, 20, 35)] == ["6C", "6S", "7C", "JC", "AS"]
    assert game.pace_kinds == ("bid", "answer", "return", "trump", "turn")
    assert game.teams == ((0, 2), (1, 3))
    assert game.forfeit_scores(0) == (0, 6, 0, 6)
    assert game.match_over(3, 30, (4, 1, 4, 1)) and not game.match_over(3, 30, (3, 1, 3, 1))
    assert [game.hand_context(n).dealer for n in (1, 2, 3, 4, 5)] == [3, 0, 1, 2, 3]


@pytest.mark.parametrize("seed", (0, 2))
def test_four_peers_play_a_sasku_match_over_the_deck_and_the_audit_agrees(seed):
    """A whole match to the target (2) over the mental-poker deck with proofs: every peer agrees,
    the transcripts are identical, the table audit replays it (status complete, every proof
    checked again) with the same scores, a picture is given privately, and every play that
    does not follow and every give carries its hidden-card proof."""
    net = Net(seed=seed, config=sasku_config(), bot=giving_bot)
    net.start()
    net.run()
    assert_agreed(net)
    totals = net.peers[0].totals
    assert max(totals) >= 2 and totals[0] == totals[2] and totals[1] == totals[3]
    header = read_transcript(net.transcript(0)).header
    assert (header.game, header.game_options) == (SASKU, b"min-bid=5;target=2")
    audit = audit_table(net.transcript(0))
    assert audit.ok and audit.complete and audit.totals == totals
    assert audit.scores == tuple(e.scores for e in net.of_type(0, HandEnded))
    messages = _messages(net)
    types = [m.body.type for m in messages]
    assert types.count("deck/hand-over") == types.count("deck/hand-over-lock") == types.count(
        "deck/hand-over-strip") > 0
    proven = {m.body.payload.verb for m in messages if isinstance(m.body.payload, TableAction) and m.body.payload.proof}
    assert proven == {"play", "give"}
    # every return (the card back after a take) carries its proof, in its deck/hand-over
    takes = sum(1 for m in messages if isinstance(m.body.payload, TableAction) and m.body.payload.verb == "take")
    assert takes == sum(1 for m in messages if isinstance(m.body.payload, HandOver) and m.body.payload.proof)
    # the handed cards are known to the pair only: the other pair applies them hidden
    seats = {i: _seat_of(net, i) for i in range(SEATS)}
    for i in range(SEATS):
        for event in net.of_type(i, ActionApplied):
            action = event.action
            if isinstance(action, (Give, Return, GiveBack)):
                mine = seats[i] % 2 == action.seat % 2
                assert (action.card is not None) == mine


def test_a_match_with_the_tests_dealer_scores_as_the_engine_does():
    """The tests' dealer: the table's scores per deal are the engine's points for the deal the
    audit reveals, replayed from the engine's own record."""
    net = Net(seed=5, config=sasku_config(dealer=TrustedDealer(TEST_DEALER_PREFIX + b"sasku").name), bot=giving_bot)
    net.start()
    net.run()
    assert_agreed(net)
    audit = audit_table(net.transcript(0))
    assert audit.ok and audit.complete
    ended = net.of_type(0, HandEnded)
    finished = net.peers[0].finished_states
    for event, state in zip(ended, finished, strict=True):
        assert isinstance(state, SaskuState)
        points = state.deal.points
        assert points is not None
        assert event.scores == (points[0], points[1], points[0], points[1])


# -- hidden rules a seat could break: refused or named, never an honest seat ----------------

PICTURE_DECK_CARDS = tuple(c for c in range(36) if PICTURES >> to_engine(c).index & 1)


def _blamed(net: Net) -> set:
    return {(b.seat, b.basis) for i in range(SEATS) for b in net.blames(i)}


def _cheat_hand_over(session: TableSession, card: int) -> None:
    """Hand ``card`` over in my HAND_OVER slot, signed as an honest hand-over would be."""
    slot = session.pending_slot
    assert slot is not None and slot.receiver is not None and session.source is not None
    session._sign(session.hand_no, session.slot, session.source.hand_over(card, slot.receiver))
    session._guarded(session._advance)


DEALERS = {"deck": {}, "tests' dealer": {"dealer": TrustedDealer(TEST_DEALER_PREFIX + b"cheat").name}}


def _play_cheater(cheat, seeds=range(40), bot=giving_bot, dealer: str = "deck") -> tuple[Net, list[int]]:
    """Tables played by giving bots, one seat cheating through ``cheat(session) -> bool`` (True:
    it cheated instead of answering), until a cheat happened."""
    cheats: list[int] = []
    for seed in seeds:
        net = Net(seed=seed, config=sasku_config(hands=3, target=30, **DEALERS[dealer]), hostile=False)

        def cheating(session: TableSession, rng: random.Random) -> None:
            if not cheats and cheat(session):
                cheats.append(session.my_seat or 0)
                return
            bot(session, rng)

        net.bot = cheating
        net.start()
        net.run()
        if cheats:
            return net, cheats
    raise AssertionError("no seed gave the cheater its chance")


def _decision(session: TableSession) -> HandOverDecision | None:
    pending = session.pending_for_me
    return pending if isinstance(pending, HandOverDecision) else None


@pytest.mark.parametrize("dealer", DEALERS)
def test_a_partner_that_returns_a_picture_is_refused_or_named(dealer):
    """The return owes a proof, in its hand-over, that the position it hands back holds no
    picture (the position re-locked to it: here the picture it just took, a card it received
    by hand-over). It cannot make one: every peer refuses the hand-over at once and names the
    returning seat, never the giver. With the tests' dealer the deal is public to the dealer's
    seed: every peer sees the card and names it at once too."""

    def cheat(session: TableSession) -> bool:
        decision = _decision(session)
        if decision is None or decision.kind != "return":
            return False
        mine = session.view.cards(session.my_seat).mask >> 12
        pictures = [c for c in PICTURE_DECK_CARDS if mine >> c & 1]
        _cheat_hand_over(session, pictures[0])   # it holds the picture it just took
        return True

    net, cheats = _play_cheater(cheat, dealer=dealer)
    assert _blamed(net) == {(cheats[0], BlameBasis.SIGNED)}
    reason = "fails (return)" if dealer == "deck" else "not a picture"
    assert all(reason in b.reason for i in range(SEATS) for b in net.blames(i))


def test_a_give_back_of_another_card_is_named_by_every_peer():
    """After a refuse the partner hands back the refused picture's own position (public: the
    same card); any other position names it at once."""

    def cheat(session: TableSession) -> bool:
        decision = _decision(session)
        if decision is None or decision.kind != "give-back":
            return False
        refused = [a.card for a in session.legal_actions if isinstance(a, GiveBack)]
        mine = session.view.cards(session.my_seat).mask >> 12
        other = next(c for c in range(36) if mine >> c & 1 and to_engine(c) not in refused)
        _cheat_hand_over(session, other)
        return True

    net, cheats = _play_cheater(cheat, bot=refusing_bot)
    assert _blamed(net) == {(cheats[0], BlameBasis.SIGNED)}
    assert all("not the position" in b.reason for i in range(SEATS) for b in net.blames(i))


def refusing_bot(session: TableSession, rng: random.Random) -> None:
    """The giving bot that always refuses a picture."""
    refuse = [a for a in session.legal_actions if type(a).__name__ == "Refuse"]
    if refuse:
        session.act(refuse[0])
        return
    giving_bot(session, rng)


@pytest.mark.parametrize("dealer", DEALERS)
def test_a_giver_that_hands_over_a_card_that_is_not_a_picture_is_named(dealer):
    """Over the deck its give's proof (made for its picture) fails for the position it hands
    over; with the tests' dealer (no proofs) every peer sees the card at once."""

    def cheat(session: TableSession) -> bool:
        decision = _decision(session)
        if decision is None or decision.kind != "give":
            return False
        mine = session.view.cards(session.my_seat).mask >> 12
        plain = [c for c in range(36) if mine >> c & 1 and c not in PICTURE_DECK_CARDS]
        _cheat_hand_over(session, plain[0])
        return True

    net, cheats = _play_cheater(cheat, dealer=dealer)
    assert _blamed(net) == {(cheats[0], BlameBasis.SIGNED)}
    reason = "fails (give)" if dealer == "deck" else "only a picture"
    assert all(reason in b.reason for i in range(SEATS) for b in net.blames(i))


def test_vector_seeded_sasku_digest():
    """docs/protocol.md, "Sasku at the table": a seeded one-deal table with a refused give."""
    net = Net(seed=2, config=sasku_config(hands=1, target=30, proofs=False), bot=giving_bot)
    net.start()
    net.run()
    assert_agreed(net)
    lines = [str(e.action) for e in net.of_type(0, ActionApplied)]
    assert lines[3:7] == ["S3 give", "S3 give", "S1 refuse", "S1 give-back"]
    transcript = net.transcript(0)
    assert (len(transcript), hashlib.sha256(transcript).hexdigest()) == (
        44395, "c07cf8eb5c2c2d4e0d80ec7dcaf14db6975d16bbf7908d739274ea7f9ac2f28f")
    docs = (Path(__file__).parents[2] / "docs" / "protocol.md").read_text()
    assert "c07cf8eb5c2c2d4e0d80ec7dcaf14db6975d16bbf7908d739274ea7f9ac2f28f" in docs and "44395 bytes" in docs


def assert_penalised(net: Net, cheat: int, why: str) -> None:
    """A rule broken with hidden cards that only the key reveal's replay found: every peer
    names the cheating seat in its hand's HandEnded, scores the deal as the rules' penalty (the
    other pair 6, the cheat's pair 0), plays the match on (three deals) and blames nobody; the
    audit is complete and names the same seat with the same scores; the export's record of
    that deal ends with the line that broke the rule, after a comment that says so, and
    ``sasaki replay`` refuses that line."""
    from p2p_sasaki.protocol.table_audit import export_records
    from p2p_sasaki.records import RecordError
    from p2p_sasaki.sasku.records import replay

    seat = cheat
    row = tuple(0 if s % 2 == seat % 2 else 6 for s in range(SEATS))
    assert_agreed(net)
    ended = [net.of_type(i, HandEnded) for i in range(SEATS)]
    assert all(len(e) == 3 for e in ended)   # the match went on after the penalised deal
    (hand,) = [e for e in ended[0] if e.penalty is not None]
    assert isinstance(hand.penalty, Penalty) and hand.penalty.seat == seat and why in hand.penalty.reason
    assert hand.scores == row and hand.outcome.points == row[:2]
    assert all([e.penalty for e in mine] == [e.penalty for e in ended[0]] for mine in ended)
    audit = audit_table(net.transcript(0))
    assert audit.ok and audit.complete and audit.totals == net.peers[0].totals
    assert audit.scores == tuple(e.scores for e in ended[0])
    assert [p for p in audit.penalties if p is not None] == [hand.penalty]
    assert audit.note is not None and f"S{seat} broke a rule with hidden cards" in audit.note
    from p2p_sasaki.cli.audit import as_json, describe

    assert [p for p in as_json(audit)["penalties"] if p is not None] == [
        {"hand": hand.hand_no, "seat": seat, "slot": hand.penalty.slot, "reason": hand.penalty.reason}]
    assert describe(audit).startswith("OK: ") and f"S{seat} broke a rule with hidden cards" in describe(audit)
    record = export_records(net.transcript(0))[hand.hand_no - 1]
    comment, line = record.splitlines()[-2:]
    assert comment.startswith(f"# S{seat} broke a rule with hidden cards") and "score 6" in comment
    assert line.startswith(f"S{seat} ")
    with pytest.raises(RecordError) as refused:
        replay(record)
    assert refused.value.line == len(record.splitlines())


def _blind(session: TableSession, hide: int) -> None:
    """A cheater's own engine must not refuse its cheat (it runs modified software): for its
    next engine step, the cards ``hide`` (an engine mask) are left out of what its view knows
    it holds, and put back after."""
    state = session.state
    assert isinstance(state, SaskuState)
    honest = state._engine

    def engine(action) -> None:
        deal = state.deal
        seat = action.seat
        blinded = copy.copy(deal)
        h = list(deal._hands)
        h[seat] &= ~hide
        blinded._hands = (h[0], h[1], h[2], h[3])
        state.deal = blinded
        del state._engine   # the class's own from now on
        try:
            honest(action)
        finally:
            if state.deal is blinded:
                state.deal = deal
        after = state.deal
        kept = deal._hands[seat] & hide
        h = list(after._hands)
        h[seat] |= kept
        after._hands = (h[0], h[1], h[2], h[3])

    state._engine = engine


@pytest.mark.parametrize("dealer", DEALERS)
def test_a_seat_that_does_not_follow_while_holding_the_suit_is_refused_or_named(dealer):
    """A renege. Over the deck the play owes a no-follow proof, which the cheater cannot make:
    every peer refuses the play at once and names it. With the tests' dealer (no locks, no
    proofs) nobody else sees the cards and every peer accepts the play; the replay of the
    full deal at the hand's end names the seat, and the rules' penalty scores the deal (the
    other pair 6) and the match goes on (:func:`assert_penalised`). Never an honest seat."""

    def cheat(session: TableSession) -> bool:
        pending, deal = session.pending_for_me, session.view
        if not isinstance(pending, Decision) or pending.kind is not DecisionKind.PLAY or not deal.trick:
            return False
        mine = deal.cards(session.my_seat).mask
        legal = sum(1 << a.card.index for a in session.legal_actions)
        off = mine & ~legal
        if legal == mine or not off:
            return False
        card = off & -off
        _blind(session, legal)
        deck_card = to_deck(Card.from_index(card.bit_length() - 1))
        opening = session.source.prove_open(deck_card)
        session._sign(session.hand_no, session.slot, TableAction("play", (deck_card,), (opening,) if opening else ()))
        session._guarded(session._advance)
        return True

    net, cheats = _play_cheater(cheat, dealer=dealer)
    if dealer == "deck":
        assert _blamed(net) == {(cheats[0], BlameBasis.SIGNED)}
        assert all("fails (no-follow)" in b.reason for i in range(SEATS) for b in net.blames(i))
    else:
        assert_penalised(net, cheats[0], " must ")


def _received(session: TableSession) -> int:
    """The deck cards (a mask) my seat holds because a hand-over gave them to it."""
    deck = session.source.deck
    me = session.my_seat
    return sum(1 << card for k in range(36) if deck.dealt[k] != me and deck.holder(k) == me
               and (card := deck.held_card(k)) is not None)


def test_a_seat_that_does_not_follow_while_holding_a_received_card_of_the_suit_is_named():
    """A renege hidden in a card the seat got by hand-over (seed 2: S0 took its partner's
    picture and holds no other trump when a trump is led): the re-lock put that position under
    S0's own key, so its no-follow proof covers it; S0 cannot make the proof and every peer
    names it at once (before the re-lock the position stayed under the giver's lock, out of
    the proof, and only the key reveal found it)."""

    def cheat(session: TableSession) -> bool:
        pending, deal = session.pending_for_me, session.view
        if not isinstance(pending, Decision) or pending.kind is not DecisionKind.PLAY or not deal.trick:
            return False
        mine = deal.cards(session.my_seat).mask
        legal = sum(1 << a.card.index for a in session.legal_actions)
        off = mine & ~legal
        if legal == mine or not off or legal & ~(_received(session) << 12):
            return False   # only a received card follows
        card = off & -off
        _blind(session, legal)
        deck_card = to_deck(Card.from_index(card.bit_length() - 1))
        opening = session.source.prove_open(deck_card)
        session._sign(session.hand_no, session.slot, TableAction("play", (deck_card,), (opening,) if opening else ()))
        session._guarded(session._advance)
        return True

    net, cheats = _play_cheater(cheat, seeds=range(2, 3))
    assert _blamed(net) == {(cheats[0], BlameBasis.SIGNED)}
    assert all("fails (no-follow)" in b.reason for i in range(SEATS) for b in net.blames(i))


@pytest.mark.parametrize("dealer", DEALERS)
def test_a_seat_that_gives_while_holding_two_pictures_is_refused_or_named(dealer):
    """The give's condition on the cards the giver keeps: its partner receives a picture and
    cannot tell. Over the deck the give owes a proof that no other position holds a picture,
    which the cheater cannot make: named when its hand-over shows the position. With the
    tests' dealer the replay of the full deal at the hand's end names the giver."""

    def cheat(session: TableSession) -> bool:
        pending, deal = session.pending_for_me, session.view
        if not isinstance(pending, Decision) or pending.kind is not DecisionKind.BID:
            return False
        pictures = deal.cards(session.my_seat).mask & PICTURES
        if pictures.bit_count() != 2 or session.my_seat in deal.gave:
            return False
        second = pictures & -pictures
        given = pictures & ~second
        state = session.state
        assert isinstance(state, SaskuState)
        session._sign(session.hand_no, session.slot, TableAction("give", ()))
        state._give_call = lambda action: setattr(state, "calling", action.seat)
        session._guarded(session._advance)
        del state._give_call
        cheating_give[session.my_seat] = (given, second)
        return True

    cheating_give: dict = {}

    def hand_over_bot(session: TableSession, rng: random.Random) -> None:
        seat = session.my_seat
        decision = _decision(session)
        if seat in cheating_give and decision is not None and decision.kind == "give":
            given, second = cheating_give.pop(seat)
            _blind(session, second)
            _cheat_hand_over(session, to_deck(Card.from_index(given.bit_length() - 1)))
            return
        giving_bot(session, rng)

    net, cheats = _play_cheater(cheat, bot=hand_over_bot, dealer=dealer)
    if dealer == "deck":
        assert _blamed(net) == {(cheats[0], BlameBasis.SIGNED)}
        assert all("fails (give)" in b.reason for i in range(SEATS) for b in net.blames(i))
    else:
        assert_penalised(net, cheats[0], "exactly one picture")


def test_the_proof_field_keeps_old_bytes_and_refuses_a_malformed_clause():
    """table/action's proof is an optional trailing field: an action without one keeps its
    bytes; a clause's argument is a shuffle argument (m >= 2) or one DLEQ (m = 1), never both."""
    assert TableAction("pass", ()).to_wire() == ["pass", [], []]
    e, d = bytes(32), bytes(64)
    one = RuleClause((e,), e, (), (), d, (e, e), d)
    assert TableAction.from_wire(["play", [3], [], [one.to_wire()]]).proof == (one,)
    two = RuleClause((e, e), e, (e,) * 7, (e,) * 5, b"", (e,), d)
    assert RuleClause.from_wire(two.to_wire()) == two
    for bad in (RuleClause((e,), e, (e,) * 7, (e,) * 3, b"", (e,), d),   # one position, a shuffle argument
                RuleClause((e, e), e, (), (), d, (e,), d),                # two positions, a DLEQ
                RuleClause((e, e), e, (e,) * 7, (e,) * 3, b"", (e,), d)):  # 2m + 1 scalars, not 3
        with pytest.raises(MessageError):
            RuleClause.from_wire(bad.to_wire())
    with pytest.raises(MessageError):   # the optional field at its default is left out, never sent empty
        TableAction.from_wire(["pass", [], [], []])


def test_an_action_that_carries_a_proof_it_does_not_owe_names_its_seat():
    """A bid owes no proof: a seat that sends one anyway (a proof copied from elsewhere, or a
    channel for hidden bits) is named, so an action's bytes depend on public state only."""

    def cheat(session: TableSession) -> bool:
        pending = session.pending_for_me
        if not isinstance(pending, Decision) or pending.kind is not DecisionKind.BID:
            return False
        e = bytes(32)
        session._sign(session.hand_no, session.slot,
                      TableAction("pass", (), (), (RuleClause((e,), e, (), (), bytes(64), (e,), bytes(64)),)))
        session._guarded(session._advance)
        return True

    net, cheats = _play_cheater(cheat, seeds=range(1))
    assert _blamed(net) == {(cheats[0], BlameBasis.SIGNED)}
    assert all("proof it does not owe" in b.reason for i in range(SEATS) for b in net.blames(i))


@pytest.mark.parametrize(("verb", "seed"), [("give", 2), ("play", 2), ("return", 0)])
def test_a_seat_that_crashed_after_a_proven_action_resumes_without_signing_anything_new(verb, seed):
    """protocol/restore.py: a seat that signed an action with its hidden-card proof (a give, a
    play that does not follow, a return's hand-over) and crashed is rebuilt from its saved
    entropy, envelopes and transcript; the proof is made again from the same drawn bytes,
    byte for byte."""
    net = Net(seed=seed, config=sasku_config(hands=1, target=30), hostile=False, bot=giving_bot)
    recorders = [RecordingEntropy(b"", SeededEntropy(b"peer%d-%d" % (i, seed))) for i in range(SEATS)]
    for peer, recorder in zip(net.peers, recorders, strict=True):
        peer._rng = recorder
    signed: list[list[bytes]] = [[] for _ in range(SEATS)]
    net.start()
    prover = None
    for _ in range(100_000):
        with contextlib.suppress(AssertionError):   # one step at a time: "did not settle" yet
            net.run(max_steps=1)
        for i, peer in enumerate(net.peers):
            for item in peer.take_signed():
                signed[i].append(item.envelope)
                payload = decode_envelope(item.envelope).body.payload
                if isinstance(payload, TableAction) and payload.proof and payload.verb == verb:
                    prover = i
                if isinstance(payload, HandOver) and payload.proof and verb == "return":
                    prover = i
        if prover is not None:
            break
    assert prover is not None
    session = net.peers[prover]
    records = [e.data for e in net.events[prover] + session.take_events() if isinstance(e, Record)]
    transcript = frame_records(b"".join(records))[0]
    restored = restore_session(net.keys[prover], transcript, recorders[prover].take_drawn(), signed[prover])
    assert (restored.session.hand_no, restored.session.slot, restored.session.chain) == (
        session.hand_no, session.slot, session.chain)
    assert restored.outgoing == []   # its proven action was signed again, identical to the saved one


def test_partners_chosen_by_the_creator_sit_opposite_and_the_draw_still_seats_them():
    """``pairs=A+B``: roster members A and B (join order) sit opposite at every table; the
    draw decides the seats (who leads, which pair is which). Without it the draw decides the
    pairs: the creator's partner varies with the draw."""
    game = SaskuGame(SaskuOptions(target=30), pairs=(0, 3))
    assert game.options_bytes() == b"min-bid=5;target=30;pairs=0+3"
    assert SaskuGame.from_options_bytes(game.options_bytes()) == game
    for bad in (b"min-bid=5;target=30;pairs=3+0", b"min-bid=5;target=30;pairs=1+1", b"min-bid=5;pairs=0+3;target=30"):
        with pytest.raises(ValueError):
            SaskuGame.from_options_bytes(bad)
    dealer = TrustedDealer(TEST_DEALER_PREFIX + b"pairs").name
    partners_by_draw, first_seats = set(), set()
    for seed in range(5):
        for chosen in (None, (0, 3)):
            config = TableConfig(hands=1, game=SaskuGame(SaskuOptions(target=30), pairs=chosen), dealer=dealer)
            net = Net(seed=seed, config=config, hostile=False, bot=giving_bot)
            net.start()
            net.run()
            assert_agreed(net)
            seat = {i: _seat_of(net, i) for i in range(SEATS)}
            partner = next(i for i in range(1, SEATS) if seat[i] == (seat[0] + 2) % SEATS)
            if chosen is None:
                partners_by_draw.add(partner)
            else:
                assert partner == 3
                first_seats.add(seat[0])
    assert len(partners_by_draw) > 1 and len(first_seats) > 1


def test_a_seat_silent_after_the_deal_forfeits_it_and_the_other_pair_scores_6():
    """Issue 19: a seat that falls silent after seeing its cards (from its first game action
    on) forfeits the deal: the present seats abandon the slot, the hand is scored as the
    forfeit (the other pair 6, the silent seat's pair 0) and the audit is complete."""
    from tests.protocol.test_abandon import Silence, abandon_all, present

    victim = 1
    silence = Silence(victim, lambda body: body.hand == 1 and body.type == "table/action")
    net = Net(seed=3, config=sasku_config(hands=1, target=30, proofs=False), tamper=silence, bot=giving_bot)
    net.start()
    net.run()
    seat = net.peers[victim].my_seat
    assert seat is not None
    others = present(net, victim)
    abandon_all(net, others, end=False)
    row = tuple(0 if s % 2 == seat % 2 else 6 for s in range(SEATS))
    for i in others:
        (event,) = net.of_type(i, HandAbandoned)
        assert (event.left, event.forfeit, event.scored) == ((seat,), seat, True)
        assert net.of_type(i, MatchEnded)[-1].totals == row
    transcripts = {net.transcript(i) for i in others}
    assert len(transcripts) == 1
    audit = audit_table(transcripts.pop())
    assert audit.ok and audit.complete and audit.blame is None
    assert audit.totals == row and audit.forfeits == (seat,)


def test_a_give_to_a_partner_holding_nine_pictures_is_named_by_the_partners_proof(monkeypatch):
    """Only the partner sees that it holds nine pictures (the giver's rule break, docs/rules-sasku.md):
    with its layer on the given position it proves that its positions hold none of the
    non-pictures (``nine-pictures``); every peer verifies it and names the giver, never the
    partner. The deal is arranged by seat 0's shuffle (its hop's permutation; the other hops
    keep the order): S2 holds the nine pictures JC..JS QC..QS KC, S0 one picture (KD)."""
    from p2p_sasaki.protocol import crypto

    order = [0] * 36
    plain = iter([c for c in range(36) if c not in PICTURE_DECK_CARDS])
    for seat, cards in ((0, [29, *range(8)]), (2, list(range(20, 29)))):
        for k, card in zip(range(seat, 36, 4), cards, strict=True):
            order[k] = card
    rest = iter([30, 31, *(c for c in plain if c >= 8)])
    for k in (k for k in range(36) if k % 4 in (1, 3)):
        order[k] = next(rest)
    assert sorted(order) == list(range(36))
    honest, hops = crypto.random_permutation, []

    def permutation(rng, n):
        drawn = honest(rng, n)
        if n != 36:
            return drawn
        hops.append(n)
        return tuple(order) if len(hops) == 1 else tuple(range(36))

    monkeypatch.setattr(crypto, "random_permutation", permutation)
    net = Net(seed=0, config=sasku_config(hands=1, target=30), hostile=False, bot=giving_bot)
    net.start()
    net.run()
    assert _blamed(net) == {(0, BlameBasis.SIGNED)}
    assert all("(nine-pictures)" in b.reason and "seat 0 handed a card to seat 2" in b.reason
               for i in range(SEATS) for b in net.blames(i))
    (lock,) = [m.body.payload for m in _messages(net) if m.body.type == "deck/hand-over-lock"]
    assert lock.objection   # the evidence, recorded


def test_a_kept_copy_of_a_state_is_independent_and_shares_the_deal_values():
    """The session keeps a deep copy of the state before each slot it answered: SaskuState's
    own copy holds every attribute of the original (the deals shared, being values) and
    applying to either leaves the other as it was."""
    deal = Deal.random(random.Random(3))
    state = SaskuState(deal, frozenset({1}), {1: view(deal, 1)})
    state.calling, state.broken = 2, (2, "pass", "why")
    kept = copy.deepcopy(state)
    assert vars(kept) == vars(state) and kept.open is not state.open and kept.deal is state.deal
    state.calling = None
    slot = state.slot()
    assert slot is not None
    state.apply([state.legal_actions(slot.seats[0])[0]])
    assert kept.calling == 2 and kept.deal is not state.deal and kept.open[1] is not state.open[1]
