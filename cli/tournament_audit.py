"""``sasaki audit DIR``: verify a tournament folder (protocol/tournament_files.py's layout).

From nothing but the files: the signed roster and the draw (protocol/tournament.py); for
each round, the seating recomputed from the standings of the rounds before it (the draw
for the first); the round's board, audited (:class:`BoardAuditor`: the board's shuffle and
reveal); every table's transcript audited as a table whose dealer is that board
(protocol/table_audit.py), seated as the seating says; each table's result (its line
results, who declared, who left) scored with the seed's rules; the standings recomputed and
compared with ``standings.json``, the ones shown.

The verdict uses a table audit's statuses and exit codes (cli/audit.py, ``EXIT``): complete
(0), fault (1: a player named by a message it signed), incomplete (3: a round or a table
stops short; nobody is blamed), damaged (4: a file was altered; nobody can be named; also a
``standings.json`` that is not what the files give, a table seated otherwise than the
standings say, or a table that did not play its round's board), unreadable (5: no roster
or not one). A table abandoned by a player who left is the leaving rule, not a fault.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from p2p_sasaki.cli.standings import standings_json
from p2p_sasaki.protocol.table_audit import AuditStatus, TableAudit
from p2p_sasaki.protocol.tournament import TournamentError, VerifiedTournament, read_tournament
from p2p_sasaki.protocol.tournament_files import TournamentFolder
from p2p_sasaki.sasku.tournament import Seating, Standings, TableResult

__all__ = ["BoardVerdict", "BoardOutcome", "BoardAuditor", "audit_board_round", "TableCheck", "TournamentAudit",
           "audit_tournament", "table_result", "tournament_json", "describe_tournament"]

# The worse verdict wins: a named fault first, then damage, then a tournament that stops.
_SEVERITY = (AuditStatus.COMPLETE, AuditStatus.INCOMPLETE, AuditStatus.DAMAGED, AuditStatus.FAULT,
             AuditStatus.UNREADABLE)


def _worse(a: AuditStatus, b: AuditStatus) -> AuditStatus:
    return max(a, b, key=_SEVERITY.index)


@dataclass(frozen=True)
class BoardVerdict:
    """A round's board, audited: its status (a table audit's), the player to blame (player
    number) and why; ``dealer`` is the name every table of the round must give as its
    dealer; ``audit_table(data, table)`` audits table ``table``'s transcript (0-based) dealt
    from this board; ``outcomes[table]`` is what that table's players signed as done on the
    board (None: not done), as (final chain hash, results, leavers by player number)."""

    status: AuditStatus
    dealer: bytes
    audit_table: Callable[[bytes, int], TableAudit]
    player: int | None = None
    reason: str | None = None
    outcomes: tuple[BoardOutcome | None, ...] | None = None


@dataclass(frozen=True)
class BoardOutcome:
    """A table's done as its board recorded it."""

    chain: bytes
    results: tuple[int, ...]
    leavers: tuple[int, ...] = ()


class BoardAuditor(Protocol):
    """Audits a round's board file (protocol/board.py provides the real one)."""

    def __call__(self, data: bytes, tournament: VerifiedTournament, round_no: int, seating: Seating) -> BoardVerdict:
        ...


def table_result(audit: TableAudit) -> TableResult | None:
    """A table's result from its audit: the N-S line's result and the declaring line of its
    one deal, or the seat that left (the leaving rule: the first seat named as gone); None
    when the table has no result
    (it stops short, or is at fault or damaged)."""
    left = [seat for seat in audit.forfeits if seat is not None] or list(audit.left)
    if audit.status in (AuditStatus.COMPLETE, AuditStatus.ABANDONED) and left:
        # a seat that went silent (a forfeit, or a hand abandoned before anyone saw the
        # cards) has left the tournament: the leaving rule, not the table's forfeit score
        return TableResult.left(left[0])
    if audit.status is not AuditStatus.COMPLETE or not audit.scores:
        return None
    scores = audit.scores[0]           # by seat: each seat its pair's game points
    outcome = getattr(audit.states[0], "outcome", None) if audit.states else None
    return TableResult.of_deal((scores[0], scores[1]), outcome().declarer if outcome is not None else None)


@dataclass(frozen=True)
class TableCheck:
    """One table of one round: its file, its audit's status, the player blamed (player
    number), the problem, and its result."""

    round: int
    table: int
    status: AuditStatus
    result: TableResult | None = None
    player: int | None = None
    problem: str | None = None


@dataclass(frozen=True)
class TournamentAudit:
    """The verdict on a tournament folder: ``rounds`` verified, the standings recomputed from
    them, each table's and board's check, the problems found, ``shown``: whether
    standings.json agrees (None: there is none)."""

    status: AuditStatus
    tournament: VerifiedTournament | None
    standings: Standings | None
    rounds: int = 0
    tables: tuple[TableCheck, ...] = ()
    boards: tuple[tuple[int, AuditStatus, str | None], ...] = ()
    problems: tuple[str, ...] = ()
    blame: tuple[int, str] | None = None       # (player number, reason)
    shown: bool | None = None
    planned: int = 0
    seatings: tuple[Seating, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return self.status is AuditStatus.COMPLETE


def _name(tournament: VerifiedTournament, player: int | None) -> str:
    return "nobody" if player is None else tournament.roster.names[player]


def audit_tournament(folder: Path, board_auditor: BoardAuditor | None = None) -> TournamentAudit:
    """Audit the tournament folder ``folder`` (see the module's docstring)."""
    files = TournamentFolder(Path(folder))
    try:
        tournament = read_tournament(Path(files.roster).read_bytes())
    except OSError as error:
        return TournamentAudit(AuditStatus.UNREADABLE, None, None,
                               problems=(f"no tournament roster ({files.roster}): {error.strerror or error}",))
    except TournamentError as error:
        status = AuditStatus.UNREADABLE if error.reason.startswith("not a tournament") else AuditStatus.DAMAGED
        return TournamentAudit(status, None, None, problems=(f"{files.roster}: {error.reason}",))
    auditor = board_auditor if board_auditor is not None else _default_board_auditor()
    roster = tournament.roster
    standings = Standings(roster.names, tournament.draw)
    status = AuditStatus.COMPLETE
    problems: list[str] = []
    checks: list[TableCheck] = []
    boards: list[tuple[int, AuditStatus, str | None]] = []
    seatings: list[Seating] = []
    blame: tuple[int, str] | None = None
    on_disk = files.rounds_on_disk()
    for round_no in range(1, roster.rounds + 1):
        try:
            seating = standings.next_seating()
        except ValueError:
            if round_no in on_disk:
                problems.append(f"round {round_no} is on disk, but fewer than four players were left to play it")
                status = _worse(status, AuditStatus.DAMAGED)
            break   # fewer than four players left: the tournament ends early
        if round_no not in on_disk:
            problems.append(f"round {round_no} of {roster.rounds} was not played (no {files.round_dir(round_no)})")
            status = _worse(status, AuditStatus.INCOMPLETE)
            break
        seatings.append(seating)
        try:
            board_data = Path(files.board(round_no)).read_bytes()
        except OSError:
            problems.append(f"round {round_no} has no board ({files.board(round_no)})")
            status = _worse(status, AuditStatus.INCOMPLETE)
            break
        board = auditor(board_data, tournament, round_no, seating)
        boards.append((round_no, board.status, board.reason))
        if board.status is not AuditStatus.COMPLETE:
            # no deal to read the round's tables with: the audit stops at this round
            problems.append(f"round {round_no}'s board: {board.status.value}: {board.reason}")
            status = _worse(status, board.status)
            if board.status is AuditStatus.FAULT and board.player is not None and blame is None:
                blame = (board.player, f"round {round_no}'s board: {board.reason}")
            break
        round_checks = [_check_table(files, tournament, round_no, t, seats, board)
                        for t, seats in enumerate(seating.tables, 1)]
        extra = [t for t in files.tables_on_disk(round_no) if t > len(seating.tables)]
        if extra:
            problems.append(f"round {round_no} has {len(seating.tables)} table(s) by the standings, but a "
                            f"transcript for table {extra[0]}")
            status = _worse(status, AuditStatus.DAMAGED)
        checks += round_checks
        for check in round_checks:
            if check.problem is not None:
                problems.append(f"round {round_no}, table {check.table}: {check.problem}")
            status = _worse(status, check.status if check.status is not AuditStatus.ABANDONED
                            else AuditStatus.COMPLETE)
            if check.status is AuditStatus.FAULT and check.player is not None and blame is None:
                blame = (check.player, f"round {round_no}, table {check.table}: {check.problem}")
        results = [check.result for check in round_checks]
        if any(result is None for result in results):
            break   # the standings stop at the last round every table of which has a result
        standings = standings.with_round(seating, [r for r in results if r is not None])
    later = [r for r in on_disk if r > len(standings.rounds) + 1 or r > roster.rounds]
    if later and status is AuditStatus.COMPLETE:
        problems.append(f"round {later[0]} is on disk, beyond the rounds the tournament played")
        status = AuditStatus.DAMAGED
    shown = _compare_shown(files, standings, problems)
    if shown is False and status is AuditStatus.COMPLETE:
        # (when the files stop short, the standings shown may well hold rounds not verified)
        status = AuditStatus.DAMAGED
    return TournamentAudit(status, tournament, standings, len(standings.rounds), tuple(checks), tuple(boards),
                           tuple(problems), blame, shown, roster.rounds, tuple(seatings))


def _check_table(files: TournamentFolder, tournament: VerifiedTournament, round_no: int, table: int,
                 seats: tuple[int, int, int, int], board: BoardVerdict) -> TableCheck:
    path = Path(files.table(round_no, table))
    try:
        data = path.read_bytes()
    except OSError:
        return TableCheck(round_no, table, AuditStatus.INCOMPLETE, problem=f"no transcript ({path.name})")
    audit = board.audit_table(data, table - 1)
    if audit.status is AuditStatus.UNREADABLE:
        reason = audit.blame.reason if audit.blame else "not a transcript"
        return TableCheck(round_no, table, AuditStatus.DAMAGED, problem=f"{path.name} is not a transcript: {reason}")
    keys = tournament.roster.keys
    if audit.seat_keys is not None and audit.seat_keys != tuple(keys[p] for p in seats):
        return TableCheck(round_no, table, AuditStatus.DAMAGED,
                          problem="its seats are not the players the standings seat there")
    if audit.header is not None and audit.header.dealer != board.dealer:
        return TableCheck(round_no, table, AuditStatus.DAMAGED, problem="it was not dealt from its round's board")
    if audit.status is AuditStatus.FAULT and audit.blame is not None and audit.blame.seat is not None:
        player = seats[audit.blame.seat]   # a fault is a fault, whatever the board's done says
        return TableCheck(round_no, table, AuditStatus.FAULT, player=player,
                          problem=f"{tournament.roster.names[player]} (S{audit.blame.seat}) is to blame: "
                                  f"{audit.blame.reason}")
    if audit.status in (AuditStatus.FAULT, AuditStatus.DAMAGED):
        reason = audit.blame.reason if audit.blame else "it does not verify"
        return TableCheck(round_no, table, AuditStatus.DAMAGED, problem=reason)
    result = table_result(audit)
    by_done = _left_by_done(board, table - 1, seats)
    if by_done is not None and (result is None or result.leaver is None) and audit.status in (
            AuditStatus.INCOMPLETE, AuditStatus.COMPLETE):
        # the table's other three signed it done naming a leaver: the leaving rule, whether
        # its transcript stops there or its play had ended before the player left
        result = by_done
    if result is None:
        return TableCheck(round_no, table, AuditStatus.INCOMPLETE, problem="the transcript stops before the deal ends")
    problem = _outcome_problem(board, table - 1, audit, result, seats)
    if problem is not None:
        return TableCheck(round_no, table, AuditStatus.DAMAGED, problem=problem)
    return TableCheck(round_no, table, AuditStatus.COMPLETE if result.leaver is not None else audit.status, result)


def _left_by_done(board: BoardVerdict, table: int, seats: tuple[int, int, int, int]) -> TableResult | None:
    """The leaving rule for a table whose other three players signed it done on the board
    naming one of its players as the leaver (None: no such done)."""
    outcome = board.outcomes[table] if board.outcomes is not None and table < len(board.outcomes) else None
    if outcome is None or len(outcome.leavers) != 1 or outcome.leavers[0] not in seats:
        return None
    return TableResult.left(seats.index(outcome.leavers[0]))


def _outcome_problem(board: BoardVerdict, table: int, audit: TableAudit, result: TableResult,
                     seats: tuple[int, int, int, int]) -> str | None:
    """Whether the table's done on the board is this transcript's end: the same final chain
    hash, and the same leaver (a table that did not finish names its leaver there)."""
    if board.outcomes is None:
        return None
    outcome = board.outcomes[table] if table < len(board.outcomes) else None
    if outcome is None:
        return "its players never signed it done on the board"
    leaver = None if result.leaver is None else seats[result.leaver]
    if tuple(outcome.leavers) != (() if leaver is None else (leaver,)):
        return "the board's done names other leavers than the transcript"   # (or more than one)
    if leaver is None and audit.final is not None and outcome.chain != audit.final:
        return "the board's done signs another final chain hash than the transcript's"
    return None


def _compare_shown(files: TournamentFolder, standings: Standings, problems: list[str]) -> bool | None:
    try:
        shown = json.loads(Path(files.standings).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        problems.append(f"{files.standings} is not readable JSON ({error})")
        return False
    mine = standings_json(standings)
    if not isinstance(shown, dict) or shown.get("standings") != mine["standings"] or shown.get("rounds") != \
            mine["rounds"]:
        problems.append("standings.json (the standings shown) is not what the tournament's files give")
        return False
    return True


def audit_board_round(data: bytes, tournament: VerifiedTournament, round_no: int, seating: Seating) -> BoardVerdict:
    """The round's ``.board`` file audited (protocol/board_audit.py), and checked to be this
    tournament's board for this round and seating. A board's players are given by their
    keys, so its player numbers are mapped to the roster's (a board of the players still in
    the tournament, or of all of them, reads the same); its blame and leavers are given as
    roster player numbers."""
    from p2p_sasaki.protocol.board_audit import audit_board
    from p2p_sasaki.protocol.dealing import BOARD_DEALER_PREFIX

    audit = audit_board(data)
    header = audit.header

    def refused(status: AuditStatus, reason: str, player: int | None = None) -> BoardVerdict:
        return BoardVerdict(status, b"", lambda table_data, table: _no_board(status), player, reason)

    if header is None:
        return refused(audit.status, audit.blame.reason if audit.blame else "no board header")
    roster = tournament.roster
    try:
        number = tuple(roster.index(key) for key in header.player_keys)
    except KeyError as error:
        return refused(AuditStatus.DAMAGED, f"the board's players are not the tournament's ({error.args[0]})")
    tables = tuple(tuple(number[p] for p in table) for table in header.tables)
    byes = tuple(number[p] for p in header.byes)
    if header.tournament != roster.tournament_id or header.round != round_no:
        return refused(AuditStatus.DAMAGED, f"it is the board of another tournament or round (round {header.round})")
    if tables != seating.tables or byes != seating.byes:
        return refused(AuditStatus.DAMAGED, "it is dealt for another seating than the standings give")
    blamed = None if audit.blame is None or audit.blame.player is None else number[audit.blame.player]
    reason = None if audit.blame is None else audit.blame.reason
    if audit.board_hash is None or audit.status not in (AuditStatus.COMPLETE,):
        if audit.status is AuditStatus.COMPLETE:
            reason = "the board is not dealt"
        return refused(audit.status if audit.status is not AuditStatus.COMPLETE else AuditStatus.INCOMPLETE,
                       reason or "the board stops before its keys are all in", blamed)
    outcomes = tuple(None if o is None else BoardOutcome(o.chain, tuple(o.results), tuple(number[p] for p in o.leavers))
                     for o in audit.outcomes)

    def table_audit(table_data: bytes, table: int) -> TableAudit:
        from p2p_sasaki.protocol.table_audit import audit_table

        return audit_table(table_data, dealer=audit.dealer(table))

    return BoardVerdict(audit.status, BOARD_DEALER_PREFIX + audit.board_hash, table_audit, outcomes=outcomes)


def _no_board(status: AuditStatus) -> TableAudit:
    raise ValueError(f"a table of a {status.value} board cannot be audited: its deal is not known")


def _default_board_auditor() -> BoardAuditor:
    return audit_board_round


def tournament_json(audit: TournamentAudit) -> dict[str, Any]:
    """``sasaki audit DIR --json``: ``{"status", "rounds", "planned", "standings": [{"name",
    "points", "exact", "results", "left"}], "tables": [per round: tables and byes], "checks":
    [{"round", "table", "status", "problem"}], "boards": [{"round", "status", "problem"}],
    "blame": {"player", "name", "reason"} or null, "problems": [...], "shown": bool or null}``."""
    recomputed = standings_json(audit.standings) if audit.standings is not None else {"standings": [],
                                                                                        "tables": []}
    blame = None
    if audit.blame is not None and audit.tournament is not None:
        blame = {"player": audit.blame[0], "name": _name(audit.tournament, audit.blame[0]), "reason": audit.blame[1]}
    return {"status": audit.status.value, "rounds": audit.rounds, "planned": audit.planned,
            "standings": recomputed["standings"], "tables": recomputed["tables"],
            "checks": [{"round": c.round, "table": c.table, "status": c.status.value, "problem": c.problem}
                       for c in audit.tables],
            "boards": [{"round": r, "status": s.value, "problem": p} for r, s, p in audit.boards],
            "blame": blame, "problems": list(audit.problems), "shown": audit.shown}


def describe_tournament(audit: TournamentAudit) -> str:
    """The verdict in words, then the standings recomputed (cli/standings.py's table)."""
    from p2p_sasaki.cli.standings import standings_text

    verdict = {AuditStatus.COMPLETE: "OK", AuditStatus.INCOMPLETE: "INCOMPLETE", AuditStatus.DAMAGED: "DAMAGED",
               AuditStatus.FAULT: "FAILED", AuditStatus.UNREADABLE: "UNREADABLE",
               AuditStatus.ABANDONED: "ABANDONED"}[audit.status]
    tables = len(audit.tables)
    first = f"{verdict}: {audit.rounds} of {audit.planned} round(s) verified, {tables} table(s) audited"
    if audit.blame is not None and audit.tournament is not None:
        first += f"; {_name(audit.tournament, audit.blame[0])} is to blame ({audit.blame[1]})"
    lines = [first + "."] + [f"  {problem}." for problem in audit.problems]
    if audit.shown is True:
        lines.append("The standings shown (standings.json) are the ones recomputed.")
    if audit.standings is not None:
        lines.append(standings_text(audit.standings, audit.planned or None))
    return "\n".join(lines)
