"""A second game (tests/protocol/toy_game.py: 3 seats, 12 cards, one bidding round, high-card
tricks) runs through the real session, deck and audit, which know nothing of it."""

from __future__ import annotations

import pytest

from p2p_sasaki.protocol.config import GAMES, GameFactory
from p2p_sasaki.protocol.dealing import TEST_DEALER_PREFIX, TrustedDealer
from p2p_sasaki.protocol.game import Seating
from p2p_sasaki.protocol.messages import Body, TableAction, decode_envelope, sign_envelope
from p2p_sasaki.protocol.session import HandEnded, MatchEnded, Seated, TableConfig, TableSession
from p2p_sasaki.protocol.table_audit import audit_table
from p2p_sasaki.protocol.transcript import read_transcript, split_records
from tests.protocol.table_helpers import TABLE_ID, Net, identities
from tests.protocol.toy_game import N_CARDS, NAME, SEATS, HighCardGame

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
