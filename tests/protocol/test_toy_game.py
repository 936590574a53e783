"""A second game (tests/protocol/toy_game.py: 3 seats, 12 cards, one bidding round, high-card
tricks) runs through the real session, deck and audit, which know nothing of it."""

from __future__ import annotations

import contextlib

import pytest

from p2p_sasaki.protocol.config import GAMES, GameFactory
from p2p_sasaki.protocol.crypto import SeededEntropy
from p2p_sasaki.protocol.dealing import TEST_DEALER_PREFIX, TrustedDealer
from p2p_sasaki.protocol.deck import DeckSession
from p2p_sasaki.protocol.events import ActionApplied, BlameBasis, Record
from p2p_sasaki.protocol.game import Seating
from p2p_sasaki.protocol.messages import Body, HandOver, TableAction, decode_envelope, sign_envelope
from p2p_sasaki.protocol.restore import RecordingEntropy, restore_session
from p2p_sasaki.protocol.session import HandAbandoned, HandEnded, MatchEnded, Seated, TableConfig, TableSession
from p2p_sasaki.protocol.table_audit import audit_table
from p2p_sasaki.protocol.transcript import KIND_ENVELOPE, frame_records, read_transcript, split_records
from tests.protocol.table_helpers import TABLE_ID, Net, identities
from tests.protocol.toy_game import N_CARDS, NAME, SEATS, Give, HighCardGame

TOY_GAMES: dict[str, GameFactory] = {**GAMES, NAME: HighCardGame.from_options_bytes}


def toy_config(hands: int = 1, **changes) -> TableConfig:
    return TableConfig(hands=hands, game=HighCardGame(), **{"proofs": True, **changes})


def assert_agreed(net: Net, hands: int) -> None:
    assert len({net.transcript(i) for i in range(SEATS)}) == 1
    assert len({p.chain for p in net.peers}) == 1
    for i in range(SEATS):
        assert net.blames(i) == []
        assert net.peers[i].finished and net.peers[i].blame is None
        assert [e.hand_no for e in net.of_type(i, HandEnded)] == list(range(1, hands + 1))
        assert net.of_type(i, MatchEnded) == [MatchEnded(net.peers[i].totals)]


@pytest.mark.parametrize("seed", range(3))
def test_three_peers_play_the_toy_game_over_the_deck_and_the_audit_agrees(seed):
    net = Net(seed=seed, config=toy_config(hands=2))
    net.start()
    net.run()
    assert_agreed(net, hands=2)
    seated = [net.of_type(i, Seated)[0] for i in range(SEATS)]
    assert sorted(s.my_seat for s in seated) == [0, 1, 2]
    header = read_transcript(net.transcript(0)).header
    assert (header.game, header.game_options, header.dealer) == (NAME, b"", b"")
    audit = audit_table(net.transcript(0), games=TOY_GAMES)
    assert audit.ok and audit.complete
    assert audit.totals == net.peers[0].totals
    assert audit.scores == tuple(e.scores for e in net.of_type(0, HandEnded))
    for hand in audit.hands:  # every hand: 3 seats of 4 cards, the 12 cards dealt once
        assert [len(cards) for cards in hand] == [4, 4, 4]
        assert sorted(c for cards in hand for c in cards) == list(range(N_CARDS))


def test_the_audit_does_not_know_a_game_it_was_not_given():
    net = Net(seed=0, config=toy_config(proofs=False))
    net.start()
    net.run()
    audit = audit_table(net.transcript(0))
    assert not audit.ok and audit.blame is not None and "does not know" in audit.blame.reason


def test_a_game_that_seats_by_join_order_skips_the_draw():
    """``Game.seating``: the toy game with the option seats member i at seat i, hand 1 follows
    GENESIS (no seat-commit, no seat-nonce), and the audit agrees."""
    net = Net(seed=1, config=TableConfig(HighCardGame(Seating.JOIN_ORDER), hands=1, proofs=False))
    net.start()
    net.run()
    assert_agreed(net, hands=1)
    assert [net.of_type(i, Seated)[0].my_seat for i in range(SEATS)] == [0, 1, 2]
    types = [decode_envelope(body).body.type for kind, body in split_records(net.transcript(0))[1:]]
    assert "table/seat-commit" not in types and "table/seat-nonce" not in types and types[:3] == ["table/genesis"] * 3
    assert read_transcript(net.transcript(0)).header.game_options == b"join"
    audit = audit_table(net.transcript(0), games=TOY_GAMES)
    assert audit.ok and audit.complete and audit.totals == net.peers[0].totals


def test_a_toy_card_the_seat_was_not_dealt_is_blamed_on_it_as_data():
    """A seat that plays a card it was not dealt cannot prove its opening: every peer blames
    that seat (Blame.seat, never read from a message's text)."""
    net = Net(seed=4, config=toy_config(proofs=False), hostile=False)
    net.start()
    cheater: list[int] = []

    def bot(session: TableSession, rng) -> None:
        legal = session.legal_actions
        if getattr(legal[0], "card", None) is None or cheater:
            session.act(rng.choice(legal))
            return
        # play someone else's unplayed card, with my own (wrong) opening proof
        seat = session.my_seat
        assert seat is not None
        mine = {a.card for a in legal}
        other = next(c for c in range(N_CARDS) if c not in mine and not session.state.played >> c & 1
                     and c != 0)
        cheater.append(seat)
        body = Body(TABLE_ID, session.hand_no, session.slot, seat, session.chain, TableAction("play", (other,), ()))
        index = net.peers.index(session)
        envelope = sign_envelope(body, net.keys[index])
        for peer in net.peers:
            peer.receive(envelope, net.keys[index].public_key)

    net.bot = bot
    net.run()
    assert cheater
    blames = {b.seat for i in range(SEATS) for b in net.blames(i)}
    assert blames == {cheater[0]}


def test_three_peers_with_the_tests_trusted_dealer():
    dealer = TrustedDealer(TEST_DEALER_PREFIX + b"toy")
    net = Net(seed=2, config=toy_config(hands=2, dealer=dealer.name))
    net.start()
    net.run()
    assert_agreed(net, hands=2)
    audit = audit_table(net.transcript(0), games=TOY_GAMES)
    assert audit.ok and audit.totals == net.peers[0].totals
    order = dealer.order(1, N_CARDS)
    assert audit.hands[0] == tuple(tuple(sorted(order[k] for k in range(s, N_CARDS, SEATS))) for s in range(SEATS))


def test_a_trusted_dealer_outside_the_tests_seed_is_refused_by_peers_and_the_audit():
    keys = [k.public_key for k in identities(n=SEATS)]
    with pytest.raises(ValueError, match="trusted dealer"):
        TableSession(None, keys, TABLE_ID, toy_config(dealer=b"casino"))
    with pytest.raises(ValueError):
        TrustedDealer(b"casino")
    net = Net(seed=0, config=toy_config(proofs=False))
    net.start()
    net.run()
    data = net.transcript(0)
    transcript = read_transcript(data)
    forged_header = transcript.header.__class__(**{**transcript.header.__dict__, "dealer": b"casino"})
    from p2p_sasaki.protocol.transcript import KIND_HEADER, encode_record, split_records
    forged = encode_record(KIND_HEADER, forged_header.encode()) + b"".join(
        encode_record(kind, body) for kind, body in split_records(data)[1:])
    audit = audit_table(forged, games=TOY_GAMES)
    assert not audit.ok and "trusted dealer" in audit.blame.reason


def test_an_action_verb_is_the_games_word():
    body = Body(TABLE_ID, 1, 14, 0, bytes(32), TableAction("bid-three", ()))
    key = identities(n=1)[0]
    assert decode_envelope(sign_envelope(body, key)).body.payload.verb == "bid-three"


def test_no_command_line_option_chooses_a_dealer():
    import argparse

    from p2p_sasaki.cli.main import build_parser

    def options(parser: argparse.ArgumentParser) -> set[str]:
        found = {s for action in parser._actions for s in action.option_strings}
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    found |= options(sub)
        return found

    every = options(build_parser())
    assert "--json" in every  # the subcommands were walked (sasaki audit --json)
    assert not [o for o in every if "dealer" in o or "trusted" in o]


# -- a private hand-over in the middle of a hand (a source slot the game asks for) ----------


def swap_config(hands: int = 2, **changes) -> TableConfig:
    return TableConfig(hands=hands, game=HighCardGame(swap=True), **{"proofs": True, **changes})


def _seat_of(net: Net, i: int) -> int:
    return net.of_type(i, Seated)[0].my_seat


def _messages(net: Net) -> list:
    return [decode_envelope(body) for kind, body in split_records(net.transcript(0))[1:] if kind == KIND_ENVELOPE]


def test_the_toy_games_swap_hands_cards_over_privately_through_the_session_deck_and_audit():
    """Two HAND_OVER slots a hand (the leader to the next seat, and back): only the two seats
    learn each card (the third applies the hand-over with the card hidden), every peer agrees,
    a receiver plays a card handed to it with the giver's proof, and the audit replays the
    hand-overs from the raw payloads once the keys are out."""
    received_and_played = 0
    net = Net(seed=0, config=swap_config())
    net.start()
    net.run()
    assert_agreed(net, hands=2)
    seats = {i: _seat_of(net, i) for i in range(SEATS)}
    gives = {i: [e.action for e in net.of_type(i, ActionApplied) if isinstance(e.action, Give)]
             for i in range(SEATS)}
    assert all(len(g) == 4 for g in gives.values())   # two a hand
    for n, give in enumerate(gives[0]):
        known = {seats[i]: gives[i][n].card for i in range(SEATS)}
        (card,) = {known[give.seat], known[give.to]}
        assert card is not None
        (third,) = set(range(SEATS)) - {give.seat, give.to}
        assert known[third] is None
    messages = _messages(net)
    types = [m.body.type for m in messages]
    assert [types.count(t) for t in ("deck/hand-over", "deck/hand-over-lock", "deck/hand-over-strip")] == [4, 4, 4]
    # each hand-over proves its card is not the highest (the swap's hidden rule), with it
    assert all(m.body.payload.proof for m in messages if isinstance(m.body.payload, HandOver))
    # a receiver opens a handed card with the proof made under its own lock (the re-lock)
    handed = {(m.body.hand, m.body.payload.position): m.body.payload.to for m in messages
              if isinstance(m.body.payload, HandOver)}
    for m in messages:
        if isinstance(m.body.payload, TableAction):
            for opening in m.body.payload.opens:
                if opening.position % SEATS != m.body.sender:   # not dealt to it: handed to it
                    assert handed[(m.body.hand, opening.position)] == m.body.sender
                    received_and_played += 1
    audit = audit_table(net.transcript(0), games=TOY_GAMES)
    assert audit.ok and audit.complete and audit.totals == net.peers[0].totals
    assert received_and_played > 0


def test_the_swap_with_the_tests_trusted_dealer():
    net = Net(seed=3, config=swap_config(dealer=TrustedDealer(TEST_DEALER_PREFIX + b"swap").name))
    net.start()
    net.run()
    assert_agreed(net, hands=2)
    audit = audit_table(net.transcript(0), games=TOY_GAMES)
    assert audit.ok and audit.totals == net.peers[0].totals


def _corrupt_first_hand_over(monkeypatch, change) -> list[int]:
    """Every peer's first hand-over it makes goes through ``change``; returns the givers."""
    givers: list[int] = []
    honest = DeckSession.hand_over

    def hand_over(self, card, to):
        message = honest(self, card, to)
        if givers:
            return message
        givers.append(self.seat)
        return change(self, message)

    monkeypatch.setattr(DeckSession, "hand_over", hand_over)
    return givers


def _blamed(net: Net) -> set:
    return {(b.seat, b.basis) for i in range(SEATS) for b in net.blames(i)}


@pytest.mark.parametrize("step", ["relock", "strip_lock"])
def test_a_re_lock_step_that_is_not_proven_names_its_signer(monkeypatch, step):
    """The receiver's layer or the giver's strip with a DLEQ that fails: every peer names the
    seat that signed it (the receiver only for its own bad layer)."""
    signers: list[int] = []
    honest = getattr(DeckSession, step)

    def bad(self):
        made = honest(self)
        if signers:
            return made
        signers.append(self.seat)
        return type(made)(made.value, made.proof[:5] + bytes([made.proof[5] ^ 1]) + made.proof[6:])

    monkeypatch.setattr(DeckSession, step, bad)
    net = Net(seed=1, config=swap_config(hands=1))
    net.start()
    net.run()
    seats = {net.of_type(i, Seated)[0].my_seat: i for i in range(SEATS)}
    assert signers and _blamed(net) == {(signers[0], BlameBasis.SIGNED)} and signers[0] in seats
    assert all(b.reason.endswith("is not proven") for i in range(SEATS) for b in net.blames(i))


def test_a_hand_over_of_a_position_the_giver_does_not_hold_names_the_giver(monkeypatch):
    givers = _corrupt_first_hand_over(monkeypatch, lambda deck, m: HandOver((m.position + 1) % N_CARDS, m.to))
    net = Net(seed=2, config=swap_config(hands=1))
    net.start()
    net.run()
    assert givers and _blamed(net) == {(givers[0], BlameBasis.SIGNED)}


def test_a_giver_that_crashed_after_its_hand_over_resumes_without_signing_anything_new():
    """protocol/restore.py: a seat that signed its deck/hand-over and crashed is rebuilt from its
    saved entropy, envelopes and transcript; it signs its hand-over again byte for byte (its
    card found by the position it holds), so nothing differs from what it sent."""
    net = Net(seed=0, config=swap_config(hands=1), hostile=False)
    recorders = [RecordingEntropy(b"", SeededEntropy(b"peer%d-0" % i)) for i in range(SEATS)]
    for peer, recorder in zip(net.peers, recorders, strict=True):
        peer._rng = recorder
    signed: list[list[bytes]] = [[] for _ in range(SEATS)]
    net.start()
    giver = None
    for _ in range(100_000):
        with contextlib.suppress(AssertionError):   # one step at a time: "did not settle" yet
            net.run(max_steps=1)
        for i, peer in enumerate(net.peers):
            for item in peer.take_signed():
                signed[i].append(item.envelope)
                if isinstance(decode_envelope(item.envelope).body.payload, HandOver):
                    giver = i
        if giver is not None:
            break
    assert giver is not None
    session = net.peers[giver]
    records = [e.data for e in net.events[giver] + session.take_events() if isinstance(e, Record)]
    transcript = frame_records(b"".join(records))[0]
    restored = restore_session(net.keys[giver], transcript, recorders[giver].take_drawn(), signed[giver],
                               games=TOY_GAMES)
    assert (restored.session.hand_no, restored.session.slot, restored.session.chain) == (
        session.hand_no, session.slot, session.chain)
    assert restored.outgoing == []   # its hand-over was signed again, identical to the saved one


@pytest.mark.parametrize("withholder", range(SEATS))
def test_a_played_out_swap_hand_is_scored_when_a_seat_withholds_its_key(withholder):
    """The present seats abandon the KEYS slot; the withholder's dealt cards are the
    complement, and each hand-over's card is read from the keys that are out (its dealt
    seat's, or a key it was re-locked to): the hand is scored as the withholder scored it."""
    def withhold(sender, envelope):
        return [] if sender == withholder and decode_envelope(envelope).body.type == "deck/key" else None

    net = Net(seed=5, config=swap_config(hands=1), tamper=withhold)
    net.start()
    net.run()
    others = [i for i in range(SEATS) if i != withholder]
    for i in others:
        assert net.peers[i].abandon(end=True)
    net.run()
    (own,) = net.of_type(withholder, HandEnded)
    for i in others:
        (event,) = net.of_type(i, HandAbandoned)
        assert event.scored and "played out and is scored" in event.reason
        (ended,) = net.of_type(i, HandEnded)
        assert ended.scores == own.scores and net.peers[i].blame is None


def test_a_giver_that_hands_over_a_card_the_rules_forbid_is_named_by_its_proof():
    """The toy swap's hidden rule (card 11 is never handed over): the giver owes a proof, with
    its hand-over, that the position it names does not hold it; it cannot make one, and a
    hand-over without it is refused by every peer, naming the giver, never the receiver."""
    cheats: list[int] = []
    for seed in range(12):
        net = Net(seed=seed, config=swap_config(hands=1), hostile=False)

        def bot(session: TableSession, rng, net=net) -> None:
            slot = session.pending_slot
            mine = session.view[0] if session.view is not None else None
            if slot is not None and slot.receiver is not None and mine is not None and mine >> (N_CARDS - 1) & 1:
                assert session.my_seat is not None
                cheats.append(session.my_seat)   # the forbidden card, named without the proof it cannot make
                session._sign(session.hand_no, session.slot, session.source.hand_over(N_CARDS - 1, slot.receiver))
                session._guarded(session._advance)
                return
            session.act(rng.choice(session.legal_actions))

        net.bot = bot
        net.start()
        net.run()
        if cheats:
            break
    assert cheats
    blames = {(b.seat, b.basis) for i in range(SEATS) for b in net.blames(i)}
    assert blames == {(cheats[0], BlameBasis.SIGNED)}
    assert all(b.reason.endswith("fails (return)") for i in range(SEATS) for b in net.blames(i))
    assert "deck/hand-over-lock" not in [m.body.type for m in _messages(net)]


def test_a_receiver_silent_in_its_lock_slot_is_abandoned_and_forfeits_the_hand():
    """The lock slot (its layer on the position) waits on the receiver alone; when it falls silent there, the other two
    seats abandon the slot as for any other and the seat that left forfeits the hand."""
    silent: list[int] = []

    def mute(sender, envelope):
        if silent and sender == silent[0]:
            return []
        if decode_envelope(envelope).body.type == "deck/hand-over-lock":
            silent.append(sender)
            return []
        return None

    net = Net(seed=2, config=swap_config(hands=1), tamper=mute, hostile=False)
    net.start()
    net.run()
    (victim,) = silent
    seat = _seat_of(net, victim)
    others = [i for i in range(SEATS) if i != victim]
    assert all(net.peers[i].waiting_for == (seat,) for i in others)
    for i in others:
        assert net.peers[i].abandon(end=True)
    net.run()
    for i in others:
        (event,) = net.of_type(i, HandAbandoned)
        assert event.left == (seat,) and event.forfeit == seat and net.peers[i].blame is None
        (ended,) = net.of_type(i, HandEnded)
        assert ended.scores == tuple(-2 if s == seat else 1 for s in range(SEATS))
    assert [b.basis for b in net.blames(victim)] == [BlameBasis.ABANDONED]   # cut off: it names nobody
    assert net.blames(victim)[0].seat is None
