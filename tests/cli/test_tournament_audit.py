"""``sasaki audit DIR`` of a tournament folder (cli/tournament_audit.py): folders built in a
tmp directory from real table transcripts (TableSessions in memory, Sasku, one deal a
table, seated as the standings say), with a signed roster and the draw.

The board (protocol/board.py) is the board engineer's: these tests give the audit a board
auditor of their own, whose "board" is the tests' trusted dealer seeded by the round (so
every table of a round plays the same deal, as from a board, and the header names it), so
everything but the board's own audit is exercised.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

import pytest

from p2p_sasaki.cli.standings import standings_json
from p2p_sasaki.cli.tournament_audit import (
    BoardOutcome,
    BoardVerdict,
    audit_board_round,
    audit_tournament,
    table_result,
    tournament_json,
)
from p2p_sasaki.protocol.crypto import IdentityKey
from p2p_sasaki.protocol.dealing import TEST_DEALER_PREFIX, TrustedDealer
from p2p_sasaki.protocol.messages import TournamentFile, TournamentMember, TournamentRoster, encode_tournament
from p2p_sasaki.protocol.table_audit import AuditStatus, TableAudit, audit_table
from p2p_sasaki.protocol.tournament import draw_commitment, read_tournament, sign_roster, tournament_id_of
from p2p_sasaki.protocol.tournament_files import TournamentFolder
from p2p_sasaki.sasku.tournament import Standings
from tests.protocol.table_helpers import Net
from tests.protocol.test_abandon import Silence, abandon_all
from tests.protocol.test_sasku_game import giving_bot, sasku_config

# Its tests share the played and audited tables (play_table, audited), made once per process: one worker runs them all.
pytestmark = pytest.mark.xdist_group("tournament-audit")


NAMES = ("Mina", "Jun", "Ago", "Tiiu", "Peeter", "Kai", "Leo", "Eva", "Uku")


class SeededKey(IdentityKey):
    """An identity key that remembers its seed (play_table plays a table once per seating)."""

    def __init__(self, seed: bytes) -> None:
        super().__init__(seed)
        self.seed = seed


def identities(count: int) -> list[SeededKey]:
    return [SeededKey(bytes([i + 1]) * 32) for i in range(count)]


def signed_roster(ids: Sequence[IdentityKey], rounds: int) -> TournamentFile:
    shares = [bytes([50 + i]) * 32 for i in range(len(ids))]
    members = tuple(TournamentMember(k.public_key, "127.0.0.1", 7000 + i, bytes([i]) * 32, NAMES[i],
                                     draw_commitment(k.public_key, shares[i])) for i, k in enumerate(ids))
    roster = TournamentRoster(tournament_id_of(bytes(32), members), bytes(32), "Club evening", rounds, members)
    return TournamentFile(roster, tuple(sign_roster(k, roster).signature for k in ids), tuple(shares))


def round_dealer(round_no: int) -> bytes:
    return TrustedDealer(TEST_DEALER_PREFIX + b"round %d" % round_no).name


def play_table(keys: list[SeededKey], names: tuple[str, ...], table_id: bytes, seed: int, dealer: bytes,
               leaver: int | None = None) -> bytes:
    """One Sasku deal at a table seated S0..S3 = ``keys``; ``leaver``: the seat that goes
    silent after the deal (its first action), abandoned by the other three. The play is
    seeded: the same table asked for again (another folder seated the same) is played once."""
    seeds = tuple(k.seed for k in keys)
    return _played(seeds, names, table_id, seed, dealer, leaver)


@functools.cache
def _played(seeds: tuple[bytes, ...], names: tuple[str, ...], table_id: bytes, seed: int, dealer: bytes,
            leaver: int | None) -> bytes:
    keys = [IdentityKey(s) for s in seeds]
    config = sasku_config(hands=1, target=30, proofs=False, seats=(0, 1, 2, 3), dealer=dealer)
    silence = None if leaver is None else Silence(leaver, lambda body: body.hand == 1 and body.type == "table/action")
    net = Net(seed=seed, config=config, hostile=False, bot=giving_bot, tamper=silence, keys=keys, table_id=table_id,
              names=names)
    net.start()
    net.run()
    if leaver is not None:
        abandon_all(net, [i for i in range(4) if i != leaver], end=False)
    return net.transcript(0 if leaver != 0 else 1)


@functools.cache
def audited(data: bytes) -> TableAudit:
    """``audit_table`` of a table's bytes, once: each ``audit_tournament`` here audits every
    table of its folder again, most of them unchanged since the last; a table's audit is a
    function of its bytes alone (tested in tests/protocol/), the tournament's reading of it is
    what these tests check."""
    return audit_table(data)


def deck_boards(data: bytes, tournament, round_no, seating) -> BoardVerdict:
    """The tests' board auditor: the round's deal comes from the tests' dealer."""
    assert data == b"board %d" % round_no
    return BoardVerdict(AuditStatus.COMPLETE, round_dealer(round_no), lambda table_data, table: audited(table_data))


def build(folder: Path, players: int, rounds: int, leave: tuple[int, int] | None = None,
          played: int | None = None) -> Standings:
    """A tournament folder of ``players`` in ``rounds`` rounds (``played`` of them on disk);
    ``leave`` = (round, player): that player leaves in that round. Returns the standings
    the tournament showed (also written to standings.json)."""
    ids = identities(players)
    file = signed_roster(ids, rounds)
    files = TournamentFolder(folder)
    folder.mkdir(parents=True, exist_ok=True)
    Path(files.roster).write_bytes(encode_tournament(file))
    tournament = read_tournament(encode_tournament(file))
    standings = Standings(tournament.roster.names, tournament.draw)
    for round_no in range(1, (played or rounds) + 1):
        seating = standings.next_seating()
        Path(files.round_dir(round_no)).mkdir()
        Path(files.board(round_no)).write_bytes(b"board %d" % round_no)

        results = []
        for t, seats in enumerate(seating.tables, 1):
            leaver = None
            if leave is not None and leave[0] == round_no and leave[1] in seats:
                leaver = seats.index(leave[1])
            data = play_table([ids[p] for p in seats], tuple(NAMES[p] for p in seats),
                              bytes([round_no, t]) * 16, seed=round_no * 10 + t,
                              dealer=round_dealer(round_no), leaver=leaver)
            Path(files.table(round_no, t)).write_bytes(data)
            result = table_result(audited(data))
            assert result is not None
            results.append(result)
        standings = standings.with_round(seating, results)
    Path(files.standings).write_text(json.dumps(standings_json(standings)), encoding="utf-8")
    return standings


def test_five_players_three_rounds_a_bye_each_round_audit_complete(tmp_path):
    shown = build(tmp_path / "t5", 5, 3)
    audit = audit_tournament(tmp_path / "t5", deck_boards)
    assert audit.status is AuditStatus.COMPLETE and audit.problems == () and audit.shown is True
    assert audit.standings == shown and audit.rounds == 3
    assert [len(s.byes) for s in audit.seatings] == [1, 1, 1]
    assert len({s.byes[0] for s in audit.seatings}) == 3            # the bye rotates
    data = tournament_json(audit)
    assert data["status"] == "complete" and data["rounds"] == 3
    assert data["standings"] == standings_json(shown)["standings"]
    assert all({"name", "points"} <= set(entry) for entry in data["standings"])
    assert sum(entry["results"].count("bye:50") for entry in data["standings"]) == 3


def test_nine_players_a_leaver_in_round_2_scores_0_and_plays_no_more(tmp_path):
    # the draw decides who sits where; pick the player at table 1's S1 in round 2
    probe = build(tmp_path / "probe", 9, 1)
    second = probe.next_seating()
    leaver = second.tables[1][2]
    shown = build(tmp_path / "t9", 9, 3, leave=(2, leaver))
    audit = audit_tournament(tmp_path / "t9", deck_boards)
    assert audit.status is AuditStatus.COMPLETE, audit.problems
    assert audit.standings == shown
    round_2 = audit.standings.rounds[1]
    table = second.tables[1]
    assert round_2.entry(leaver) == "left:0"
    assert [round_2.points(p) for p in table if p != leaver] == [60, 60, 60]
    assert round_2.scores[0].line_points == (Fraction(50), Fraction(50))              # table 1 alone counts: 50
    assert leaver not in audit.seatings[2].players and len(audit.seatings[2].tables) == 2
    assert audit.standings.left == (leaver,)
    data = tournament_json(audit)
    entry = next(e for e in data["standings"] if e["name"] == NAMES[leaver])
    assert entry["results"][1:] == ["left:0", None] and entry["left"] is True


def test_a_tournament_that_stops_is_incomplete_and_tampering_is_damage(tmp_path):
    build(tmp_path / "short", 4, 3, played=2)
    audit = audit_tournament(tmp_path / "short", deck_boards)
    assert audit.status is AuditStatus.INCOMPLETE and audit.rounds == 2
    assert "round 3 of 3 was not played" in audit.problems[0]
    folder = tmp_path / "t"
    build(folder, 8, 2)
    files = TournamentFolder(folder)
    # standings.json that says otherwise
    shown = json.loads(Path(files.standings).read_text())
    shown["standings"][0]["points"] += 1
    Path(files.standings).write_text(json.dumps(shown))
    audit = audit_tournament(folder, deck_boards)
    assert audit.status is AuditStatus.DAMAGED and audit.shown is False
    assert "standings.json" in audit.problems[-1]
    # table 1's transcript where table 2's should be: not the players the standings seat there
    Path(files.standings).unlink()
    one, two = Path(files.table(2, 1)), Path(files.table(2, 2))
    two_bytes = two.read_bytes()
    two.write_bytes(one.read_bytes())
    audit = audit_tournament(folder, deck_boards)
    assert audit.status is AuditStatus.DAMAGED and audit.shown is None
    assert audit.problems == ("round 2, table 2: its seats are not the players the standings seat there",)
    assert audit.rounds == 1                    # the standings stop before the round with no result
    two.write_bytes(two_bytes[:-3])             # a torn last record: the table stops
    audit = audit_tournament(folder, deck_boards)
    assert audit.status is AuditStatus.INCOMPLETE and audit.rounds == 1
    two.write_bytes(two_bytes)
    Path(folder / "round-3").mkdir()
    assert audit_tournament(folder, deck_boards).status is AuditStatus.DAMAGED     # a round beyond the planned
    Path(folder / "round-3").rmdir()
    seats = audit_tournament(folder, deck_boards).seatings[1].tables[1]
    ids = identities(8)     # the right players, dealt round 1's board
    two.write_bytes(play_table([ids[p] for p in seats], tuple(NAMES[p] for p in seats), bytes([2, 2]) * 16, seed=22,
                               dealer=round_dealer(1)))
    assert audit_tournament(folder, deck_boards).problems == (
        "round 2, table 2: it was not dealt from its round's board",)
    Path(files.roster).write_bytes(b"nonsense")
    audit = audit_tournament(folder, deck_boards)
    assert audit.status is AuditStatus.UNREADABLE and tournament_json(audit)["standings"] == []


def test_a_table_whose_end_is_not_the_done_signed_on_its_board_is_damage(tmp_path):
    build(tmp_path / "t", 4, 1)
    final = audited(Path(TournamentFolder(tmp_path / "t").table(1, 1)).read_bytes()).final
    assert final is not None

    def boards_with(*outcomes):
        def auditor(data, tournament, round_no, seating):
            return dataclasses.replace(deck_boards(data, tournament, round_no, seating), outcomes=outcomes)
        return auditor

    assert audit_tournament(tmp_path / "t", boards_with(BoardOutcome(final, (0, 0)))).status is AuditStatus.COMPLETE
    for outcome, problem in ((BoardOutcome(bytes(32), (0, 0)), "another final chain hash"),
                             (BoardOutcome(final, (0, 0), (2, 3)), "other leavers"), (None, "never signed it done")):
        audit = audit_tournament(tmp_path / "t", boards_with(outcome))
        assert audit.status is AuditStatus.DAMAGED and problem in audit.problems[0]


def test_a_table_that_stops_where_its_other_three_signed_a_leaver_done_is_the_leaving_rule(tmp_path):
    build(tmp_path / "t", 5, 1)
    files = TournamentFolder(tmp_path / "t")
    table = Path(files.table(1, 1))
    data = table.read_bytes()
    table.write_bytes(data[:len(data) // 2])          # the table stops in the middle
    Path(files.standings).unlink()
    seating = audit_tournament(tmp_path / "t", deck_boards).seatings[0]
    leaver = seating.tables[0][3]

    def left_done(board_data, tournament, round_no, seating):
        return dataclasses.replace(deck_boards(board_data, tournament, round_no, seating),
                                   outcomes=(BoardOutcome(bytes(32), (), (leaver,)),))

    audit = audit_tournament(tmp_path / "t", left_done)
    assert audit.status is AuditStatus.COMPLETE and audit.problems == ()
    assert audit.standings is not None and audit.standings.rounds[0].entry(leaver) == "left:0"
    assert audit.standings.left == (leaver,)
    assert [audit.standings.rounds[0].points(p) for p in seating.tables[0][:3]] == [60, 60, 60]
    # without the done, the same transcript is only incomplete
    assert audit_tournament(tmp_path / "t", deck_boards).status is AuditStatus.INCOMPLETE
    # a player that left after the play ended, before its table's done: the leaving rule too
    table.write_bytes(data)
    audit = audit_tournament(tmp_path / "t", left_done)
    assert audit.status is AuditStatus.COMPLETE and audit.standings is not None
    assert audit.standings.rounds[0].entry(leaver) == "left:0"


def test_a_fault_at_a_table_names_the_player_by_the_roster(tmp_path):
    from p2p_sasaki.cli.tournament_audit import describe_tournament
    from p2p_sasaki.protocol.table_audit import AuditBlame

    build(tmp_path / "t", 4, 2)

    def faulty(data, tournament, round_no, seating):
        verdict = deck_boards(data, tournament, round_no, seating)
        if round_no == 1:
            return verdict
        blamed = AuditBlame(2, 1, 7, "S2 did not follow suit holding it")
        return dataclasses.replace(verdict, audit_table=lambda table_data, table: dataclasses.replace(
            audited(table_data), status=AuditStatus.FAULT, blame=blamed, complete=False))

    audit = audit_tournament(tmp_path / "t", faulty)
    player = audit.seatings[1].tables[0][2]
    assert audit.status is AuditStatus.FAULT and audit.rounds == 1
    assert audit.blame == (player, f"round 2, table 1: {NAMES[player]} (S2) is to blame: S2 did not follow suit "
                                   "holding it")
    assert tournament_json(audit)["blame"]["name"] == NAMES[player]
    assert describe_tournament(audit).startswith(f"FAILED: 1 of 2 round(s) verified, 2 table(s) audited; "
                                                 f"{NAMES[player]} is to blame")


def test_sasaki_audit_dir_prints_the_verdict_and_standings_with_the_table_audits_exit_codes(tmp_path, capsys,
                                                                                            monkeypatch):
    from p2p_sasaki.cli import tournament_audit
    from p2p_sasaki.cli.main import main

    shown = build(tmp_path / "t", 4, 1)
    monkeypatch.setattr(tournament_audit, "_default_board_auditor", lambda: deck_boards)
    assert main(["audit", str(tmp_path / "t"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["status"], data["rounds"], data["planned"]) == ("complete", 1, 1)
    assert data["standings"] == standings_json(shown)["standings"] and data["shown"] is True
    assert main(["audit", str(tmp_path / "t")]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{tmp_path / 't'}: OK: 1 of 1 round(s) verified, 1 table(s) audited.")
    assert "Standings after round 1 of 1" in out and "t1" in out
    (tmp_path / "t" / "tournament.roster").unlink()
    assert main(["audit", str(tmp_path / "t"), "--json"]) == 5
    assert json.loads(capsys.readouterr().out)["status"] == "unreadable"
    assert main(["audit", str(tmp_path / "t"), "--follows", "x"]) == 2


# ---------------------------------------------------------------------------------------
# On real boards (protocol/board.py): every table of a round plays the round's board
# ---------------------------------------------------------------------------------------

from p2p_sasaki.protocol import board as boards  # noqa: E402
from p2p_sasaki.protocol.board_audit import board_file, board_header  # noqa: E402
from p2p_sasaki.protocol.events import PlayOver  # noqa: E402
from tests.protocol import board_helpers  # noqa: E402


def build_on_boards(folder: Path, players: int, rounds: int, monkeypatch) -> Standings:
    """A tournament of ``players`` whose every round is dealt by a board of all of them
    (tests/protocol/board_helpers.py's BoardNet, bound to this tournament's id), its tables
    played with the board's dealers; the folder as the tournament command writes it."""
    ids = board_helpers.player_identities(players)
    file = signed_roster(ids, rounds)
    files = TournamentFolder(folder)
    folder.mkdir(parents=True)
    Path(files.roster).write_bytes(encode_tournament(file))
    tournament = read_tournament(encode_tournament(file))
    monkeypatch.setattr(board_helpers, "TOURNAMENT", tournament.roster.tournament_id)
    standings = Standings(tournament.roster.names, tournament.draw)
    for round_no in range(1, rounds + 1):
        seating = standings.next_seating()
        board = board_helpers.BoardNet(players, boards.Seating(seating.tables, seating.byes), seed=round_no,
                                       proofs=False, round_no=round_no)
        board.start()
        board.run()
        nets = []
        for t, seats in enumerate(seating.tables):
            config = sasku_config(hands=1, target=30, proofs=False, seats=(0, 1, 2, 3),
                                  dealer=board.sessions[seats[0]].dealer_name)
            net = Net(seed=round_no * 10 + t, config=config, hostile=False, bot=giving_bot,
                      keys=[ids[p] for p in seats], table_id=bytes([round_no, t]) * 16,
                      names=tuple(tournament.roster.names[p] for p in seats),
                      dealers=[board.sessions[p].dealer(t) for p in seats])
            net.start()
            net.run()
            over = net.of_type(0, PlayOver)[0]
            board.done(t, over.chain, over.scores[:2])
            board.run()
            nets.append(net)
        assert board.observer.revealed() is not None
        Path(files.round_dir(round_no)).mkdir()
        observer = board.observer
        Path(files.board(round_no)).write_bytes(board_file(board_header(tournament.roster.tournament_id, round_no,
                                                                        observer), observer))
        results = []
        for t, net in enumerate(nets):
            for peer in net.peers:
                peer.deal_ready()
            net.flush()
            data = net.transcript(0)
            Path(files.table(round_no, t + 1)).write_bytes(data)
            result = table_result(audit_table(data, dealer=observer.dealer(t)))
            assert result is not None
            results.append(result)
        standings = standings.with_round(seating, results)
    Path(files.standings).write_text(json.dumps(standings_json(standings)), encoding="utf-8")
    return standings


def test_five_players_on_real_boards_audit_complete_and_a_board_out_of_place_is_caught(tmp_path, monkeypatch,
                                                                                       capsys):
    from p2p_sasaki.cli.main import main

    shown = build_on_boards(tmp_path / "b5", 5, 2, monkeypatch)
    audit = audit_tournament(tmp_path / "b5")
    assert audit.status is AuditStatus.COMPLETE, audit.problems
    assert audit.standings == shown and audit.shown is True
    assert [b[1] for b in audit.boards] == [AuditStatus.COMPLETE, AuditStatus.COMPLETE]
    assert [c.status for c in audit.tables] == [AuditStatus.COMPLETE, AuditStatus.COMPLETE]
    assert main(["audit", str(tmp_path / "b5"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["standings"] == standings_json(shown)["standings"] and data["status"] == "complete"
    files = TournamentFolder(tmp_path / "b5")
    # the board's done holds each table's final chain hash
    assert audit.tournament is not None
    verdict = audit_board_round(Path(files.board(1)).read_bytes(), audit.tournament, 1, audit.seatings[0])
    first = verdict.audit_table(Path(files.table(1, 1)).read_bytes(), 0)
    assert verdict.outcomes is not None and verdict.outcomes[0] is not None
    assert first.ok and verdict.outcomes[0].chain == first.final
    # round 1's board in round 2's place: another round's board
    two = Path(files.board(2)).read_bytes()
    Path(files.board(2)).write_bytes(Path(files.board(1)).read_bytes())
    audit = audit_tournament(tmp_path / "b5")
    assert audit.status is AuditStatus.DAMAGED and audit.rounds == 1
    assert audit.problems[0].startswith("round 2's board: damaged: it is the board of another tournament or round")
    # a board cut short: incomplete, nobody blamed
    Path(files.board(2)).write_bytes(two[:len(two) // 2])
    audit = audit_tournament(tmp_path / "b5")
    assert audit.status is AuditStatus.INCOMPLETE and audit.blame is None
