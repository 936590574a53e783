"""A tournament round's board (protocol/board.py): every player shuffles, each seat's cards
reach only its holders, two Sasku tables play the same deal from it through the real
TableSession, the keys come only once every table is done, and a bad message names its signer."""

from __future__ import annotations

import copy
import dataclasses

import pytest

from p2p_sasaki.protocol import crypto
from p2p_sasaki.protocol.board import (
    BOARD_DEALER_PREFIX,
    BoardDealt,
    BoardRevealed,
    BoardSession,
    BoardUsageError,
    Outcome,
    Seating,
    TableDone,
    Violation,
    board_id,
)
from p2p_sasaki.protocol.board_audit import BoardBlame, audit_board, board_file, board_header
from p2p_sasaki.protocol.config import TableConfig
from p2p_sasaki.protocol.crypto import G
from p2p_sasaki.protocol.dealing import check_dealer
from p2p_sasaki.protocol.events import HandEnded, MatchEnded, PlayOver
from p2p_sasaki.protocol.messages import TableAction, decode_envelope
from p2p_sasaki.protocol.messages.board import (
    BoardBody,
    BoardDone,
    BoardHop,
    BoardKey,
    BoardStrip,
    decode_board,
    sign_board,
)
from p2p_sasaki.protocol.sasku_game import SaskuGame
from p2p_sasaki.protocol.table_audit import AuditStatus, audit_table
from p2p_sasaki.protocol.transcript import KIND_ENVELOPE, encode_record, split_records
from p2p_sasaki.sasku.options import SaskuOptions
from tests.protocol.board_helpers import TOURNAMENT, BoardNet, player_identities, straight_seating
from tests.protocol.table_helpers import Net
from tests.protocol.test_sasku_game import giving_bot

# Its tests share the eight players' dealt board (dealt_eight), made once per process: one worker runs them all.
pytestmark = pytest.mark.xdist_group("board")


def dealt_net(players: int = 8, **options) -> BoardNet:
    net = BoardNet(players, **options)
    net.start()
    net.run()
    return net


@pytest.fixture(scope="module")
def dealt_eight() -> BoardNet:
    """Eight players' board dealt (no arguments, every envelope delivered in a seeded shuffled
    order), made once: each test that goes on from it takes a copy (``copy_of``), so none sees
    another's dones, keys or tampering."""
    return dealt_net(8, proofs=False, shuffled=True)


def copy_of(net: BoardNet) -> BoardNet:
    """An independent copy of the board's players, observer and queue (the identity keys shared)."""
    return copy.deepcopy(net, {id(k): k for k in net.ids})


def chain_of(table: int) -> bytes:
    return bytes([table]) * 32


def test_eight_players_deal_one_board_and_each_seat_is_the_same_at_both_tables(dealt_eight):
    net = copy_of(dealt_eight)
    hashes = {s.board_hash for s in [*net.sessions, net.observer]}
    assert len(hashes) == 1 and all(s.dealt() for s in net.sessions)
    for p, session in enumerate(net.sessions):
        (dealt,) = net.of_type(p, BoardDealt)
        assert dealt.seat == p % 4 and len(dealt.cards) == 9 and dealt.cards == session.cards
        assert session.cards == net.sessions[(p + 4) % 8].cards   # the same seat at the other table
        assert session.revealed() is None
    assert len({c for s in net.sessions for c in s.cards or ()}) == 36
    net.done(0, chain_of(0), (2, -2))
    net.run()
    assert all(s.revealed() is None for s in net.sessions)   # table 1 still plays: no key yet
    assert [m for m in net.sent if decode_board(m).body.type == "board/key"] == []
    net.done(1, chain_of(1), (-1, 1))
    net.run()
    deal = net.observer.revealed()
    assert deal is not None and sorted(deal) == list(range(36))
    for p, session in enumerate(net.sessions):
        assert session.revealed() == deal
        assert tuple(deal[k] for k in range(p % 4, 36, 4)) == session.cards
        assert [type(e) for e in net.events[p] if not isinstance(e, BoardDealt)] == [TableDone, TableDone,
                                                                                     BoardRevealed]
    assert net.observer.outcome(1) == Outcome(chain_of(1), (-1, 1))


def test_a_bye_shuffles_and_strips_but_owns_nothing():
    net = dealt_net(5, proofs=False)
    bye = net.sessions[4]
    assert net.seating.byes == (4,) and bye.cards == () and net.of_type(4, BoardDealt)[0].seat is None
    types = [decode_board(m).body for m in net.sent]
    assert any(b.player == 4 and b.type == "board/shuffle" for b in types)
    assert any(b.player == 4 and b.type == "board/strip" for b in types)
    # nobody strips the bye's (empty) chain: 4 owners x 4 strippers
    assert sum(b.type == "board/strip" for b in types) == 4 * 4
    net.done(0, chain_of(0), (0, 0))
    net.run()
    assert net.observer.revealed() is not None and bye.revealed() == net.observer.revealed()


def test_before_the_reveal_no_player_can_read_a_card_of_a_seat_it_does_not_hold(dealt_eight):
    """From its saved secrets (its board key) and every public value of the board (the final
    deck, every strip, every owner's last values), a player reads a card at exactly its own
    seat's positions: x_j^-1 * v is a card point nowhere else."""
    net = dealt_eight   # only read
    observer = net.observer
    points = set(observer.card_points)
    final_deck = observer._decks[8][0]
    by_position: dict[int, list[bytes]] = {k: [final_deck[k]] for k in range(36)}
    for message in net.sent:
        body = decode_board(message).body
        if isinstance(body.payload, BoardStrip):
            owner = (body.player - body.payload.round) % 8
            for k, value in zip(observer.positions_of(owner), body.payload.values, strict=True):
                by_position[k].append(value)
    for p, session in enumerate(net.sessions):
        _, key, _ = session.secrets()
        assert key is not None
        x_inv = crypto.scalar_inverse(key)
        readable = {k for k, values in by_position.items()
                    if any(G.mul(x_inv, v) in points or v in points for v in values)}
        assert readable == set(observer.positions_of(p))


def _resign(net: BoardNet, player: int, envelope: bytes, payload) -> bytes:
    body = decode_board(envelope).body
    return sign_board(BoardBody(body.board, body.slot, body.player, payload), net.ids[player])


def test_a_tampered_strip_names_its_signer():
    def tamper(player: int, envelope: bytes) -> list[bytes]:
        payload = decode_board(envelope).body.payload
        if player == 3 and isinstance(payload, BoardStrip) and payload.round == 2:
            values = (payload.values[1], payload.values[0], *payload.values[2:])
            return [_resign(net, 3, envelope, BoardStrip(payload.round, values, payload.proofs))]
        return [envelope]

    net = BoardNet(8, proofs=False, tamper=tamper)
    net.start()
    net.run()
    for p in [*range(8), 8]:
        if p != 3:
            session = net.observer if p == 8 else net.sessions[p]
            assert session.failed == Violation(3, "strip", "player 3's strip round 2 does not verify")


def test_a_tampered_hop_names_its_signer():
    def tamper(player: int, envelope: bytes) -> list[bytes]:
        payload = decode_board(envelope).body.payload
        if player == 2 and isinstance(payload, BoardHop):
            deck = (payload.deck[1], payload.deck[0], *payload.deck[2:])   # not the hop its argument proves
            return [_resign(net, 2, envelope, BoardHop(deck, payload.base))]
        return [envelope]

    net = BoardNet(4, proofs=True, tamper=tamper)
    net.start()
    net.run()
    for session in [net.sessions[0], net.sessions[1], net.sessions[3], net.observer]:
        assert session.failed == Violation(2, "shuffle-proof", "player 2's shuffle proof does not verify")
        assert not session.dealt()


def test_a_key_revealed_before_every_table_is_done_is_not_used_and_names_its_player(dealt_eight):
    net = copy_of(dealt_eight)
    early = net.sessions[6]
    _, key, _ = early.secrets()
    assert key is not None
    envelope = sign_board(BoardBody(net.board_id, early.key_slot, 6,
                                    BoardKey(crypto.scalar_bytes(key), bytes(32))), net.ids[6])
    net.queue.append((6, envelope))
    net.run()
    assert all(s.key_of(6) is None and s.failed is None for s in net.sessions if s is not early)
    assert net.observer.key_of(6) is None
    net.done(0, chain_of(0), (2, -2))
    net.done(1, chain_of(1), (0, 0))
    net.run()
    reason = "player 6 revealed its key without the round's outcomes: before every table was done"
    assert net.observer.failed == Violation(6, "key", reason)
    assert all(s.failed == Violation(6, "key", reason) for s in net.sessions if s is not early)


def test_a_player_who_left_costs_its_key_only(dealt_eight):
    """Player 5 leaves table 1: the other three sign done naming it; its key never comes, and
    the deal is still read (its seat, S1, from player 1's key at table 0)."""
    net = copy_of(dealt_eight)
    net.done(0, chain_of(0), (1, -1))
    net.done(1, chain_of(1), (), leavers=(5,))
    net.run()
    deal = net.observer.revealed()
    assert deal is not None and sorted(deal) == list(range(36))
    assert net.observer.key_of(5) is None and net.observer.leavers() == {5}
    assert all(s.revealed() == deal for p, s in enumerate(net.sessions) if p != 5)
    assert not any(decode_board(m).body.player == 5 and decode_board(m).body.type == "board/key" for m in net.sent)


def test_one_table_with_a_leaver_reads_its_seat_as_the_complement():
    net = dealt_net(4, proofs=False)
    net.done(0, chain_of(0), (), leavers=(2,))
    net.run()
    deal = net.observer.revealed()
    assert deal is not None and sorted(deal) == list(range(36))
    assert set(deal[2::4]) == set(net.sessions[2].cards or ())


def test_a_board_dealer_is_accepted_only_with_its_board():
    net = dealt_net(4, proofs=False)
    name = net.sessions[0].dealer_name
    assert name == BOARD_DEALER_PREFIX + net.sessions[0].board_hash
    with pytest.raises(ValueError, match="board's messages"):
        check_dealer(name)
    check_dealer(name, net.sessions[0].dealer(0))
    with pytest.raises(BoardUsageError):
        net.sessions[0].done(1, chain_of(1), ())


# ---------------------------------------------------------------------------------------
# Two Sasku tables play the board's deal through the real TableSession
# ---------------------------------------------------------------------------------------


def test_two_sasku_tables_play_one_board_and_the_keys_come_after_both_are_done():
    board = dealt_net(8, proofs=True, seed=2)
    tables = []
    for t, players in enumerate(board.seating.tables):
        config = TableConfig(hands=1, game=SaskuGame(SaskuOptions(target=12)), proofs=True,
                             dealer=board.sessions[players[0]].dealer_name, seats=(0, 1, 2, 3))
        net = Net(seed=t + 3, config=config, bot=giving_bot, keys=[board.ids[p] for p in players],
                  table_id=bytes([t]) * 32, dealers=[board.sessions[p].dealer(t) for p in players])
        net.start()
        net.run()
        tables.append(net)
    overs = []
    for net in tables:
        ends = [net.of_type(s, PlayOver) for s in range(4)]
        assert all(len(e) == 1 for e in ends) and len({e[0] for e in ends}) == 1
        assert all(net.of_type(s, HandEnded) == [] for s in range(4))
        overs.append(ends[0][0])
    assert board.observer.revealed() is None
    early = audit_table(tables[0].transcript(0), dealer=board.observer.dealer(0))
    assert early.status is AuditStatus.INCOMPLETE and early.blame is None   # the deal is not known yet
    for t, over in enumerate(overs):
        board.done(t, over.chain, over.scores[:2])
        board.run()
        assert (board.observer.revealed() is None) == (t == 0)
    deal = board.observer.revealed()
    assert deal is not None
    handed = 0
    for t, net in enumerate(tables):
        for s, peer in enumerate(net.peers):
            peer.deal_ready()
            net.flush()
            assert net.blames(s) == [] and peer.finished
            assert [tuple(sorted(h)) for h in peer.dealt_hands[0]] == [tuple(sorted(deal[k::4])) for k in range(4)]
            assert net.of_type(s, MatchEnded)
        records = [decode_envelope(b) for k, b in split_records(net.transcript(0))[1:] if k == KIND_ENVELOPE]
        handed += sum(m.body.type == "deck/hand-over" for m in records)
        assert any(isinstance(m.body.payload, TableAction) and m.body.payload.proof for m in records)
        audit = audit_table(net.transcript(0), dealer=board.observer.dealer(t))
        assert audit.ok and audit.complete and audit.totals == net.peers[0].totals
        refused = audit_table(net.transcript(0))
        assert not refused.ok and "board's messages" in (refused.blame.reason if refused.blame else "")
    assert handed >= 1


# ---------------------------------------------------------------------------------------
# The board file and its audit
# ---------------------------------------------------------------------------------------


def _file(net: BoardNet, player: int = 0) -> bytes:
    session = net.sessions[player]
    return board_file(board_header(TOURNAMENT, 1, session), session)


def test_the_board_file_audits_complete_with_the_deal_and_each_table_done():
    """Five players (a table and a bye), arguments on; player 2 leaves, so its seat is read as the
    complement."""
    net = dealt_net(5, proofs=True, seed=4)
    middle = audit_board(_file(net))
    assert middle.status is AuditStatus.INCOMPLETE and middle.deal is None
    assert middle.board_hash == net.sessions[0].board_hash
    assert middle.waiting_for == tuple((p, "done") for p in range(4))
    net.done(0, chain_of(0), (), leavers=(2,))
    net.run()
    files = {_file(net, p) for p in range(5) if p != 2}
    assert len(files) == 1   # every player writes the same bytes
    audit = audit_board(files.pop())
    assert audit.ok and audit.status is AuditStatus.COMPLETE and audit.blame is None
    assert audit.deal == net.observer.revealed() and audit.leavers == (2,)
    assert audit.outcomes == (Outcome(chain_of(0), (), (2,)),)
    assert audit.dealer(0).name == net.sessions[0].dealer_name


def test_the_board_audit_names_a_tampered_strip_and_refuses_a_damaged_file():
    net = dealt_net(4, proofs=False)
    data = _file(net)
    records = split_records(data)
    tampered = []
    for kind, record in records:
        if kind == KIND_ENVELOPE and decode_board(record).body.type == "board/strip":
            payload = decode_board(record).body.payload
            if decode_board(record).body.player == 1 and payload.round == 1:
                values = tuple(reversed(payload.values))
                record = _resign(net, 1, record, BoardStrip(payload.round, values, payload.proofs))
        tampered.append(encode_record(kind, record))
    audit = audit_board(b"".join(tampered))
    assert audit.status is AuditStatus.FAULT
    assert audit.blame == BoardBlame(1, "strip", "player 1's strip round 1 does not verify")
    flipped = bytearray(data)
    flipped[-10] ^= 1
    assert audit_board(bytes(flipped)).status is AuditStatus.DAMAGED
    assert audit_board(b"not a board").status is AuditStatus.UNREADABLE
    swapped = [encode_record(k, r) for k, r in records]
    swapped[1], swapped[2] = swapped[2], swapped[1]
    assert audit_board(b"".join(swapped)).blame == BoardBlame(None, "envelope", "record 2 is out of (slot, player) "
                                                              "order")


def test_any_seating_of_the_board_shape_binds_the_same_board_id():
    """The tournament's own seating (p2p_sasaki/sasku/tournament.py) has the board's shape: the
    board takes it as it is and binds the same bytes."""

    @dataclasses.dataclass(frozen=True)
    class TournamentSeating:
        tables: tuple[tuple[int, int, int, int], ...]
        byes: tuple[int, ...] = ()

    net = BoardNet(5, proofs=False)
    other = TournamentSeating(((0, 1, 2, 3),), (4,))
    assert board_id(TOURNAMENT, 1, other, net.keys) == net.board_id
    session = BoardSession(5, 0, net.ids[0], net.keys, net.board_id, other)
    assert session.seating == Seating(((0, 1, 2, 3),), (4,)) and session.positions_of(4) == ()
    with pytest.raises(ValueError):
        BoardSession(5, 0, net.ids[0], net.keys, net.board_id, TournamentSeating(((0, 1, 2, 3),), ()))


def test_a_done_that_names_its_signer_or_a_stranger_as_leaver_names_its_signer(dealt_eight):
    def tamper(player: int, envelope: bytes) -> list[bytes]:
        payload = decode_board(envelope).body.payload
        if player == 1 and isinstance(payload, BoardDone):
            return [_resign(net, 1, envelope, BoardDone(payload.table, payload.chain, payload.results, (1,)))]
        return [envelope]

    net = copy_of(dealt_eight)
    net.tamper = tamper
    net.done(0, chain_of(0), (0, 0))
    net.run()
    reason = "player 1's done names a leaver that is not another player of table 0"
    assert net.observer.failed == Violation(1, "done", reason)
    with pytest.raises(BoardUsageError):
        net.sessions[4].done(1, chain_of(1), (), leavers=(0,))


def test_sixty_four_players_fit_the_board_and_its_messages():
    ids = player_identities(64)
    keys = [i.public_key for i in ids]
    seating = straight_seating(64)
    session = BoardSession(64, 63, ids[63], keys, board_id(TOURNAMENT, 3, seating, keys), seating)
    assert (session.done_slot, session.key_slot, session.layout.strip(63)) == (193, 194, 192)
    assert session.positions_of(63) == tuple(range(3, 36, 4)) and len(seating.tables) == 16
    (commit,) = session.start()
    assert decode_board(commit).body.player == 63
    strip = sign_board(BoardBody(session.board_id, 192, 63, BoardStrip(63, (bytes(31) + b"\x02",), (bytes(64),))),
                       ids[63])
    assert decode_board(strip).body.payload.round == 63
    done = sign_board(BoardBody(session.board_id, 193, 63, BoardDone(15, bytes(32), (1, -1), (60,))), ids[63])
    assert decode_board(done).body.payload == BoardDone(15, bytes(32), (1, -1), (60,))
