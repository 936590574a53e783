"""A round's ``.board`` file and its audit (docs/protocol.md, "Board (duplicate tournaments)").

The file is framed as a table transcript (protocol/transcript.py): a header record
(:class:`~p2p_sasaki.protocol.messages.board.BoardHeader`: tournament id, round, seating,
player keys, cards, proofs), then every board envelope, verbatim, in canonical order (slot,
then player), then an evidence record if a player signed two bodies for one slot.

:func:`audit_board` replays the envelopes through an observer
:class:`~p2p_sasaki.protocol.board.BoardSession` (the code the players ran: every hop's
argument, every strip's DLEQ, every done and key) and reports with the table audit's statuses
(protocol/table_audit.py): complete (dealt, every table done, every key but the leavers' in,
the deal read), incomplete (the file simply ends), fault (a player named by a message it
signed), damaged (a record that is no authentic message of this board, or out of order),
unreadable (no or a bad header). A complete audit gives each table's dealer, with which the
table audit checks a table transcript that names the board
(``audit_table(data, dealer=audit.dealer(t))``).
"""

from __future__ import annotations

from dataclasses import dataclass

from p2p_sasaki.protocol.board import BoardDealer, BoardSession, Outcome, Seating, board_id
from p2p_sasaki.protocol.messages import MessageError
from p2p_sasaki.protocol.messages.board import BoardHeader, BoardMessage, decode_board, verify_board
from p2p_sasaki.protocol.table_audit import AuditStatus
from p2p_sasaki.protocol.transcript import (
    KIND_ENVELOPE,
    KIND_EVIDENCE,
    KIND_HEADER,
    TranscriptError,
    decode_evidence,
    encode_evidence,
    encode_record,
    frame_records,
)

__all__ = ["BoardAudit", "BoardBlame", "board_header", "board_file", "audit_board"]


def board_header(tournament: bytes, round_no: int, session: BoardSession) -> BoardHeader:
    """The header of ``session``'s board (its id must be the one these bind)."""
    header = BoardHeader(tournament, round_no, session.seating.tables, session.seating.byes, session.player_keys,
                         session.n_cards, session.proofs)
    if _board_id(header) != session.board_id:
        raise ValueError("the board's id is not the one the tournament id, round, seating and keys bind")
    return header


def board_file(header: BoardHeader, session: BoardSession, evidence: tuple[bytes, bytes] | None = None) -> bytes:
    """The ``.board`` file of a board so far: the header, every accepted envelope in (slot,
    player) order, and ``evidence`` (two envelopes of one player and slot) if there is some."""
    out = encode_record(KIND_HEADER, header.encode())
    out += b"".join(encode_record(KIND_ENVELOPE, envelope) for envelope in session.canonical_messages())
    if evidence is not None:
        out += encode_record(KIND_EVIDENCE, encode_evidence(*evidence))
    return out


@dataclass(frozen=True)
class BoardBlame:
    player: int | None
    step: str
    reason: str


@dataclass(frozen=True)
class BoardAudit:
    status: AuditStatus
    header: BoardHeader | None
    blame: BoardBlame | None
    board_hash: bytes | None               # once dealt: the name its tables' headers carry
    outcomes: tuple[Outcome | None, ...]   # per table: its agreed done, or None
    deal: tuple[int, ...] | None           # the card at each position, once revealed
    leavers: tuple[int, ...]
    waiting_for: tuple[tuple[int, str], ...]
    session: BoardSession | None

    @property
    def ok(self) -> bool:
        return self.status is AuditStatus.COMPLETE

    def dealer(self, table: int) -> BoardDealer:
        """Table ``table``'s dealer, for the table audit of its transcript."""
        if self.session is None or not self.session.dealt():
            raise ValueError("the board is not dealt: its tables have no dealer")
        return self.session.dealer(table)


def _board_id(header: BoardHeader) -> bytes:
    return board_id(header.tournament, header.round, Seating(header.tables, header.byes), header.player_keys)


def _result(status: AuditStatus, header: BoardHeader | None, blame: BoardBlame | None,
            session: BoardSession | None) -> BoardAudit:
    if session is None:
        return BoardAudit(status, header, blame, None, (), None, (), (), None)
    return BoardAudit(status, header, blame, session.board_hash if session.dealt() else None,
                      tuple(session.outcome(t) for t in range(len(session.seating.tables))), session.revealed(),
                      tuple(sorted(session.leavers())), tuple(session.waiting_for()), session)


def audit_board(data: bytes) -> BoardAudit:
    """Check a whole ``.board`` file (see the module docstring)."""
    records, problem = frame_records(data)
    if not records or records[0][0] != KIND_HEADER:
        reason = str(problem) if problem is not None else "a board file starts with its header record"
        return _result(AuditStatus.UNREADABLE, None, BoardBlame(None, "header", reason), None)
    try:
        header = BoardHeader.decode(records[0][1])
        session = BoardSession(len(header.player_keys), None, None, header.player_keys, _board_id(header),
                               Seating(header.tables, header.byes), header.cards, proofs=header.proofs)
    except (MessageError, ValueError) as exc:
        return _result(AuditStatus.UNREADABLE, None, BoardBlame(None, "header", str(exc)), None)
    last: tuple[int, int] = (-1, -1)
    for number, (kind, record) in enumerate(records[1:], 1):
        if kind == KIND_EVIDENCE:
            return _result(*_evidence(record, header, session), session)
        message = _authentic(record, header, session)
        place = (message.body.slot, message.body.player) if message is not None else None
        if message is None or kind != KIND_ENVELOPE or place is None or place <= last:
            why = "is not an authentic board envelope" if message is None else "is out of (slot, player) order"
            return _result(AuditStatus.DAMAGED, header, BoardBlame(None, "envelope", f"record {number} {why}"),
                           session)
        last = place
        session.receive(record)
        session.run_pending()
        if session.failed is not None:
            failed = session.failed
            status = AuditStatus.FAULT if failed.player is not None else AuditStatus.DAMAGED
            return _result(status, header, BoardBlame(failed.player, failed.step, failed.reason), session)
    session.run_pending()
    if session.failed is not None:
        failed = session.failed
        return _result(AuditStatus.FAULT if failed.player is not None else AuditStatus.DAMAGED, header,
                       BoardBlame(failed.player, failed.step, failed.reason), session)
    if problem is not None and not problem.torn:
        return _result(AuditStatus.DAMAGED, header, BoardBlame(None, "envelope", str(problem)), session)
    status = AuditStatus.COMPLETE if session.revealed() is not None else AuditStatus.INCOMPLETE
    return _result(status, header, None, session)


def _authentic(record: bytes, header: BoardHeader, session: BoardSession) -> BoardMessage | None:
    try:
        message = decode_board(record)
    except MessageError:
        return None
    body = message.body
    if body.board != session.board_id or body.player >= len(header.player_keys):
        return None
    return message if verify_board(message, header.player_keys[body.player]) else None


def _evidence(record: bytes, header: BoardHeader, session: BoardSession) -> tuple[AuditStatus, BoardHeader,
                                                                                   BoardBlame]:
    try:
        first, second = decode_evidence(record)
    except TranscriptError as exc:
        return AuditStatus.DAMAGED, header, BoardBlame(None, "equivocation", str(exc))
    a, b = _authentic(first, header, session), _authentic(second, header, session)
    if (a is None or b is None or (a.body.slot, a.body.player) != (b.body.slot, b.body.player)
            or a.body_bytes == b.body_bytes):
        return AuditStatus.DAMAGED, header, BoardBlame(None, "equivocation", "an evidence record holds two "
                                                       "unrelated envelopes")
    return AuditStatus.FAULT, header, BoardBlame(a.body.player, "equivocation", f"player {a.body.player} signed "
                                                 f"two different messages for slot {a.body.slot}")
