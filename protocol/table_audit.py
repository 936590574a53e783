"""Audit a whole table from its ``.sasaki`` transcript (beside protocol/audit.py, the deck's
audit of one hand).

:func:`audit_table` replays the envelopes through an observer
:class:`~p2p_sasaki.protocol.session.TableSession` (the same code the seats ran: signatures,
the prev chain, slot rules, the deck's proofs and keys, every play through the game with the
full deal, read from the key reveals by the :class:`~p2p_sasaki.protocol.dealing.RevealedKeys`
dealer) and checks that the file is exactly the canonical record sequence that replay
produces. The first violation names the seat to blame (``seat=None`` when the file itself
was altered and no signer can be named).

From the keys first: a hand that reached its key slot (every seat's key is in the file) is
checked hop by hop from the revealed keys, without verifying the shuffle arguments (the
keys prove more: each hop's exact permutation). A hand that stopped is verified in live
order, every argument included, up to the message that stopped it; and if the replay from
the keys finds any violation, the whole file is replayed again in live order with every
argument verified, so the blame is the one the seats saw.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

from p2p_sasaki.protocol.chain import next_chain
from p2p_sasaki.protocol.config import GAMES, GameFactory, config_of
from p2p_sasaki.protocol.crypto import is_acceptable_identity_key
from p2p_sasaki.protocol.dealing import Dealer, RevealedKeys, TrustedDealer
from p2p_sasaki.protocol.events import BlameBasis, Penalty, Record
from p2p_sasaki.protocol.followon import REPLACE_SEAT, link_of
from p2p_sasaki.protocol.game import GameState
from p2p_sasaki.protocol.messages import (
    KeyReveal,
    MessageError,
    SignedMessage,
    TranscriptHeader,
    decode_envelope,
    default_name,
    seen_key,
    verify_envelope,
)
from p2p_sasaki.protocol.session import Phase, TableSession
from p2p_sasaki.protocol.transcript import (
    KIND_EVIDENCE,
    Transcript,
    TranscriptError,
    decode_evidence,
    encode_record,
    frame_records,
    read_transcript,
    transcript_of,
)

__all__ = ["AuditBlame", "AuditStatus", "StopsAt", "TableAudit", "audit_table", "audit_transcript", "export_records",
           "FollowsCheck", "follows_check"]

class AuditStatus(Enum):
    """The audit's verdict (docs/usage.md, "sasaki audit"; docs/protocol.md, "Audit verdicts")."""

    COMPLETE = "complete"      # every hand played out and verified
    INCOMPLETE = "incomplete"  # every record verifies, but the transcript simply ends
    ABANDONED = "abandoned"    # every record verifies; some hand was abandoned: its silent seats left, nobody at fault
    FAULT = "fault"            # a seat is named by a message it signed
    DAMAGED = "damaged"        # a record inside fails its checks: the file was altered, nobody named
    UNREADABLE = "unreadable"  # not a transcript this program can read (no or a bad header)


@dataclass(frozen=True)
class AuditBlame:
    seat: int | None
    hand: int
    slot: int
    reason: str


@dataclass(frozen=True)
class StopsAt:
    """Where the verified records end: the hand and slot the table was at, and the number of
    the first record not verified (the header is record 0, the first envelope record 1)."""

    hand: int
    slot: int
    record: int


@dataclass(frozen=True)
class TableAudit:
    """``hands[h-1][seat]``: the cards dealt to each seat in hand h (as card-index tuples);
    ``scores[h-1]`` that hand's scores (every complete hand before a stop is still
    verified and reported); ``blame`` the fault or the damage (``seat`` None: nobody can
    be named), None when complete or merely incomplete; ``status`` the verdict;
    ``stops_at`` where the verified records end (None when complete or abandoned); ``waiting_for`` the
    seats the table was waiting for there (never blamed)."""

    hands: tuple[tuple[tuple[int, ...], ...], ...]
    scores: tuple[tuple[int, ...], ...]
    totals: tuple[int, ...]
    blame: AuditBlame | None
    complete: bool = True                       # every configured hand was played out
    states: tuple[GameState, ...] = ()          # each finished hand's full-deal state
    status: AuditStatus = AuditStatus.COMPLETE
    stops_at: StopsAt | None = None
    waiting_for: tuple[int, ...] = ()
    note: str | None = None                     # why an incomplete transcript stops where it does
    left: tuple[int, ...] = ()                  # seats named as having left (abandoned hands), never blamed
    abandoned: tuple[int, ...] = ()             # the hands abandoned (void or forfeited)
    forfeits: tuple[int | None, ...] = ()       # by entry of ``hands``: the seat that forfeited it, else None
    penalties: tuple[Penalty | None, ...] = ()  # by entry of ``hands``: a hidden-rule break the keys showed
    final: bytes | None = None                  # the final chain hash, once the match is over
    seat_keys: tuple[bytes, ...] | None = None  # the members' keys by seat (once seated)
    header: TranscriptHeader | None = None
    names: tuple[str, ...] = ()                 # the signed names by seat (by join order if never seated)
    keys: tuple[bytes, ...] = ()                # the identity keys, in the same order
    open_bots: tuple[tuple[int, int, int], ...] = ()   # (open bot's seat, its runner's seat, its moves recomputed)

    def label(self, seat: int) -> str:
        """``S2 Mina``, or ``S2`` for a seat whose player chose no name (the key's short form)."""
        if seat < len(self.names) and seat < len(self.keys) and self.names[seat] != default_name(self.keys[seat]):
            return f"S{seat} {self.names[seat]}"
        return f"S{seat}"

    @property
    def ok(self) -> bool:
        return self.blame is None


def _authentic(data: bytes, header: TranscriptHeader, seat_keys: tuple[bytes, ...] | None) -> SignedMessage | None:
    try:
        message = decode_envelope(data)
    except MessageError:
        return None
    body = message.body
    keys = header.roster_keys if body.hand == 0 else seat_keys
    if body.table != header.table or keys is None or body.sender >= len(keys):
        return None
    return message if verify_envelope(message, keys[body.sender]) else None


def _evidence_blame(data: bytes, header: TranscriptHeader, seat_keys: tuple[bytes, ...] | None) -> AuditBlame:
    try:
        a, b = decode_evidence(data)
    except TranscriptError as exc:
        return AuditBlame(None, -1, -1, str(exc))
    first, second = _authentic(a, header, seat_keys), _authentic(b, header, seat_keys)
    if first is None or second is None:
        return AuditBlame(None, -1, -1, "an evidence record holds an envelope that is not authentic")
    fa, fb = first.body, second.body
    if seen_key(fa) != seen_key(fb) or first.body_bytes == second.body_bytes:
        return AuditBlame(None, fa.hand, fa.slot, "an evidence record holds two unrelated envelopes")
    return AuditBlame(fa.sender, fa.hand, fa.slot, f"seat {fa.sender} signed two different messages for hand "
                      f"{fa.hand} slot {fa.slot} (equivocation)")


def _observer(transcript: Transcript, games: Mapping[str, GameFactory], from_keys: bool,
              board: Dealer | None = None) -> TableSession:
    header = transcript.header
    config = config_of(header, games, board)
    dealer: Dealer
    if board is not None and header.dealer == board.name:   # a tournament board's table
        dealer = board
    elif header.dealer:
        dealer = TrustedDealer(header.dealer)
    else:
        dealer = RevealedKeys.from_envelopes(transcript.envelopes, header.proofs, from_keys)
    observer = TableSession(None, header.roster_keys, header.table, config, dealer=dealer,
                            roster_names=header.roster_names)
    if observer.header != header:
        raise ValueError("the header's game options are not in their canonical form")
    return observer


def _tail_problem(observer: TableSession, tail: list[tuple[int, SignedMessage]]) -> tuple[int, str] | None:
    """The records the observer holds but could not complete (a transcript that simply ends
    has only the start of its next slots there, in canonical order): (record number, why)
    for the first one that cannot be such a start, else None."""
    if not tail:
        return None
    hand = observer.hand_no
    for number, message in tail:
        if message.body.hand != hand:
            return number, f"record {number} is of hand {message.body.hand}, after an unfinished hand {hand}"
    if observer.phase is Phase.DECK and observer.source is not None:
        source = observer.source
        canonical = [(k, s) for k in range(source.deck_slots) for s in sorted(source.expected(k))]
        for at, (number, message) in enumerate(tail):
            body = message.body
            if at >= len(canonical) or (body.slot, body.sender) != canonical[at] or body.prev != observer.hand_start:
                return number, f"record {number} is not where the deal's records go (a record before it is missing)"
        return None
    prev, slot = observer.chain, observer.slot
    senders: list[int] = []
    bodies: list[bytes] = []
    if tail[0][1].body.slot != slot:
        return tail[0][0], f"record {tail[0][0]} is of slot {tail[0][1].body.slot}, the table is at slot {slot} " \
                            "(a record before it is missing or altered)"
    for number, message in tail:
        body = message.body
        if body.slot != slot:
            if body.slot < slot:
                return number, f"record {number} is out of order"
            prev = next_chain(prev, hand, slot, bodies)
            slot, senders, bodies = body.slot, [], []
        if body.prev != prev:
            return number, f"record {number} does not chain to the records before it (one is missing or altered)"
        if senders and body.sender <= senders[-1]:
            return number, f"record {number} is out of order"
        senders.append(body.sender)
        bodies.append(message.body_bytes)
    # the last slot is cut at a record boundary: its senders are the first of the expected ones
    every = isinstance(tail[-1][1].body.payload, KeyReveal) or (slot == observer.slot and observer.phase in (
        Phase.SETUP, Phase.OPENING, Phase.CLOSE))
    expected = (list(range(observer.game.seats)) if every
                else sorted(set(senders) | set(observer.waiting_for)) if observer.blame is None else senders)
    if senders != expected[:len(senders)]:
        missing = next(s for s in expected if s not in senders)
        return tail[-1][0], f"the record of seat {missing} for hand {hand} slot {slot} is missing before record " \
                            f"{tail[-1][0]}"
    return None


def _tail_waiting(observer: TableSession, tail: list[tuple[int, SignedMessage]]) -> tuple[int, tuple[int, ...]]:
    """The slot a transcript that simply ends stops in, and the seats it was waiting for there
    (empty when the observer cannot tell: the deal is not known)."""
    if observer.blame is None:
        slot = observer.slot if observer.phase is not Phase.DECK or not tail else tail[-1][1].body.slot
        return slot, observer.waiting_for
    if not tail:
        return observer.slot, ()
    last = tail[-1][1].body.slot
    got = {m.body.sender for _, m in tail if m.body.slot == last}
    every = isinstance(tail[-1][1].body.payload, KeyReveal) or last == observer.slot
    return last, tuple(s for s in range(observer.game.seats) if s not in got) if every else ()


def audit_transcript(transcript: Transcript, damage: str | None = None,
                     games: Mapping[str, GameFactory] = GAMES, from_keys: bool = True,
                     dealer: Dealer | None = None) -> TableAudit:
    """Replay ``transcript``; ``damage``: why the file's records stop early (a torn last
    record, e.g. a crash in the middle of a write): the transcript is then incomplete there.

    A seat is named only on a message it signed that proves the fault; a record that does
    not verify or is out of place is damage (nobody named); a transcript that simply ends is
    incomplete. Every complete hand before the stop is verified and reported.
    ``from_keys=False`` verifies every shuffle argument even where the keys are all in.
    ``dealer``: a tournament board's dealer for this table (protocol/board.py; its audited
    board, revealed): a header that names a board is read only with it."""
    audit, keyed = _audit(transcript, damage, games, from_keys, dealer)
    if audit.blame is not None and keyed:  # some hand was checked from its keys
        return _audit(transcript, damage, games, False, dealer)[0]  # the blame the live order gives
    return audit


def _audit(transcript: Transcript, damage: str | None, games: Mapping[str, GameFactory],
           from_keys: bool, board: Dealer | None = None) -> tuple[TableAudit, bool]:
    """The audit, and whether any hand was checked from its keys."""
    header = transcript.header
    records = transcript.records
    weak = [i for i, key in enumerate(header.roster_keys) if not is_acceptable_identity_key(key)]
    if weak:
        reason = f"the header's key of member {weak[0]} is the identity or of small order (anyone can sign for it)"
        return TableAudit((), (), (), AuditBlame(None, 0, 0, reason), False, status=AuditStatus.DAMAGED,
                          stops_at=StopsAt(0, 0, 0)), False
    try:
        observer = _observer(transcript, games, from_keys, board)
    except ValueError as exc:
        return TableAudit((), (), (), AuditBlame(None, 0, 0, str(exc)), False, status=AuditStatus.UNREADABLE,
                          stops_at=StopsAt(0, 0, 0)), False
    keyed = (isinstance(observer.dealer, RevealedKeys)
             and bool(observer.dealer.from_keys_hands(len(header.roster_keys))))
    observer.start()
    produced = [e.data for e in observer.take_events() if isinstance(e, Record)]
    status: AuditStatus | None = None
    blame: AuditBlame | None = None
    at = StopsAt(0, 0, 0)
    held: list[tuple[int, SignedMessage]] = []
    for index, (kind, data) in enumerate(records):
        number = index + 1
        if kind == KIND_EVIDENCE:
            blame = _evidence_blame(data, header, observer.seat_keys)
            status = AuditStatus.FAULT if blame.seat is not None else AuditStatus.DAMAGED
            at = StopsAt(blame.hand, blame.slot, number)
            break
        message = _authentic(data, header, observer.seat_keys)
        if message is None:
            status = AuditStatus.DAMAGED
            blame = AuditBlame(None, observer.hand_no, observer.slot,
                               f"record {number} is not an authentic envelope of this table")
            at = StopsAt(observer.hand_no, observer.slot, number)
            break
        held.append((number, message))
        observer.replay(message)
        produced += [e.data for e in observer.take_events() if isinstance(e, Record)]
        observer.take_outgoing()
        if observer.blame is not None and observer.blame.basis is not BlameBasis.UNKNOWN_DEAL:
            b = observer.blame
            at = StopsAt(b.hand, b.slot, number)
            later = [(n, d) for n, (k, d) in enumerate(records[index + 1:], number + 1) if k == KIND_EVIDENCE]
            if later:
                # the writer stopped at an equivocation it saw: its evidence, further on, is the
                # cause (a stopped hand's game cannot be followed without the keys)
                blame = _evidence_blame(later[0][1], header, observer.seat_keys)
                status = AuditStatus.FAULT if blame.seat is not None else AuditStatus.DAMAGED
                at = StopsAt(blame.hand, blame.slot, later[0][0])
            elif b.basis is BlameBasis.SIGNED and b.seat is not None:
                status, blame = AuditStatus.FAULT, AuditBlame(b.seat, b.hand, b.slot, b.reason)
            else:
                status = AuditStatus.DAMAGED
                blame = AuditBlame(None, b.hand, b.slot, f"record {number}: {b.reason}")   # DAMAGED says the rest
            break
    canonical, expected = produced[1:], [encode_record(kind, data) for kind, data in records]
    first_bad = next((i for i, (a, b) in enumerate(zip(canonical, expected, strict=False)) if a != b), None)
    if first_bad is not None and (blame is None or first_bad + 1 < at.record):
        status = AuditStatus.DAMAGED
        blame = AuditBlame(None, -1, -1, f"record {first_bad + 1} is not in canonical order (or is extra)")
        at = StopsAt(-1, -1, first_bad + 1)
    waiting: tuple[int, ...] = ()
    if status is None and observer.finished and observer.blame is None:
        if len(canonical) != len(expected):
            status = AuditStatus.DAMAGED
            blame = AuditBlame(None, -1, -1, f"record {len(canonical) + 1} is extra: the match was over")
            at = StopsAt(observer.hand_no, observer.slot, len(canonical) + 1)
        else:
            void = [e for e in observer.abandoned_hands if e.forfeit is None]   # a forfeit is a result
            status = AuditStatus.ABANDONED if void else AuditStatus.COMPLETE
    if status is None:  # the transcript ends before the match does (or the deal of its last hand is unknown)
        tail = held[len(canonical):]
        problem = _tail_problem(observer, tail)
        if problem is not None:
            number, reason = problem
            status, blame = AuditStatus.DAMAGED, AuditBlame(None, observer.hand_no, -1, reason)
            at = StopsAt(observer.hand_no, -1, number)
        else:
            slot, waiting = _tail_waiting(observer, tail)
            status, at = AuditStatus.INCOMPLETE, StopsAt(observer.hand_no, slot, len(records) + 1)
    elif damage is not None and status is AuditStatus.COMPLETE:
        status = AuditStatus.INCOMPLETE  # a torn record after a finished match
    if damage is not None and status is AuditStatus.INCOMPLETE:
        at = StopsAt(at.hand, at.slot, len(records) + 1)
    note: str | None = None
    left = tuple(sorted({s for event in observer.abandoned_hands for s in event.left}))
    if status is AuditStatus.ABANDONED:
        note = "; ".join(f"hand {e.hand} was abandoned at slot {e.slot}: {e.reason}" for e in observer.abandoned_hands)
        note += "; " + ", ".join(f"S{s}" for s in left) + " left (not a fault)"
    elif status is AuditStatus.COMPLETE and observer.abandoned_hands:   # forfeits only: results, not faults
        note = "; ".join(f"hand {e.hand} was abandoned at slot {e.slot}: {e.reason}" for e in observer.abandoned_hands)
    penalised = [p for p in observer.penalties if p is not None]
    if penalised and status in (AuditStatus.COMPLETE, AuditStatus.ABANDONED, AuditStatus.INCOMPLETE):
        said = "; ".join(f"S{p.seat} broke a rule with hidden cards in hand {p.hand} (slot {p.slot}), found when "
                         f"the keys were revealed ({p.reason}): its side loses the hand by the game's penalty"
                         for p in penalised)
        note = said if note is None else f"{note}; {said}"
    if status is AuditStatus.INCOMPLETE:
        where = f"the transcript stops at hand {at.hand} slot {at.slot} (record {at.record})"
        note = where + (f": {damage}" if damage else "") + (
            f", waiting for seat(s) {', '.join(map(str, waiting))}" if waiting else "")
    return TableAudit(tuple(observer.dealt_hands), tuple(observer.hand_scores), observer.totals, blame,
                      complete=status is AuditStatus.COMPLETE, states=tuple(observer.finished_states),
                      status=status, stops_at=None if status in (AuditStatus.COMPLETE, AuditStatus.ABANDONED) else at,
                      waiting_for=waiting if status is AuditStatus.INCOMPLETE else (), note=note,
                      left=(left if status in (AuditStatus.ABANDONED, AuditStatus.INCOMPLETE, AuditStatus.COMPLETE)
                            else ()),
                      abandoned=tuple(e.hand for e in observer.abandoned_hands),
                      forfeits=tuple(observer.forfeits), penalties=tuple(observer.penalties),
                      final=observer.chain if status in (AuditStatus.COMPLETE, AuditStatus.ABANDONED) else None,
                      seat_keys=observer.seat_keys, header=header,
                      names=observer.seat_names or observer.roster_names,
                      keys=observer.seat_keys or observer.roster_keys,
                      open_bots=tuple((seat, runner, observer.open_bot_moves.get(seat, 0))
                                      for seat, runner in sorted(observer.open_seats.items()))), keyed


def audit_table(data: bytes, games: Mapping[str, GameFactory] = GAMES, dealer: Dealer | None = None) -> TableAudit:
    """Check a whole table transcript (the bytes of a ``.sasaki`` file). A last record cut
    short (a torn write) makes it incomplete there, with the byte offset; a record that
    cannot be framed inside the file is damage. ``dealer``: the table's board dealer, for a
    table of a tournament round (:func:`~p2p_sasaki.protocol.board.audit_board`)."""
    records, problem = frame_records(data)
    torn = problem is not None and problem.torn
    try:
        transcript = transcript_of(records)
    except TranscriptError as exc:
        reason = str(problem if problem is not None and not records else exc)
        return TableAudit((), (), (), AuditBlame(None, 0, 0, reason), False, status=AuditStatus.UNREADABLE,
                          stops_at=StopsAt(0, 0, 0))
    if problem is not None and not torn:
        audit = audit_transcript(transcript, None, games, dealer=dealer)
        if audit.status in (AuditStatus.FAULT, AuditStatus.DAMAGED):
            return audit
        number = len(records)
        at = StopsAt(audit.stops_at.hand if audit.stops_at else -1, audit.stops_at.slot if audit.stops_at else -1,
                     number)
        return dataclasses.replace(audit, blame=AuditBlame(None, at.hand, at.slot, f"record {number}: {problem}"),
                                   complete=False, status=AuditStatus.DAMAGED, stops_at=at, waiting_for=(), note=None)
    return audit_transcript(transcript, None if problem is None else str(problem), games, dealer=dealer)


def export_records(data: bytes) -> list[str]:
    """One game record per finished hand (the game's own format, ``GameState.record``: Sasaki's
    is docs/records.md), from an audited file; when players chose names, a first comment line
    says who sat where (``# S0 Mina, S1 Jun, S2, S3 Bot 4``)."""
    audit = audit_transcript(read_transcript(data))
    labels = [audit.label(seat) for seat in range(len(audit.names))]
    seats = "# " + ", ".join(labels) + "\n" if any(" " in label for label in labels) else ""
    return [seats + text for state in audit.states if (text := state.record()) is not None]


@dataclass(frozen=True)
class FollowsCheck:
    """Whether a ``replace-seat`` table's transcript continues another (``sasaki audit NEW
    --follows OLD``; docs/protocol.md, "Replace seat"): ``problems`` empty when it does;
    ``bot_seat`` the seat whose member is new (the bot); both audits."""

    problems: tuple[str, ...]
    bot_seat: int | None
    new: TableAudit
    old: TableAudit

    @property
    def ok(self) -> bool:
        return not self.problems


def follows_check(new_data: bytes, old_data: bytes, games: Mapping[str, GameFactory] = GAMES) -> FollowsCheck:
    """Check the link of the transcript ``new_data`` to ``old_data``: the old match is over
    (complete or abandoned), the new header's ``follows`` is the ``replace-seat`` link of
    the old table's id and final chain hash with the new keys, exactly one member is new and
    sits in a seat the old table abandoned last (with its match ended), the old seating is
    kept, the old totals are carried, the remaining hands are played, and the new member is
    an open bot (the header's ``bots``; the old table's open bots stay open). Each audit's own
    verdict is separate (``new.status``, ``old.status``)."""
    new, old = audit_table(new_data, games), audit_table(old_data, games)
    problems: list[str] = []
    if old.header is None or new.header is None:
        return FollowsCheck(("a transcript cannot be read",), None, new, old)
    nh, oh = new.header, old.header
    if old.final is None or old.seat_keys is None:
        problems.append(f"the old transcript is not a finished match (its audit: {old.status.value})")
        return FollowsCheck(tuple(problems), None, new, old)
    if not nh.follows:
        problems.append("the new transcript follows no table (its header has no follow-on link)")
    elif nh.follows != link_of(oh.table, old.final, REPLACE_SEAT, nh.roster_keys):
        problems.append("the new table's link names another table, another end of its chain or other members")
    changed = [i for i, (a, b) in enumerate(zip(oh.roster_keys, nh.roster_keys, strict=False)) if a != b]
    if len(oh.roster_keys) != len(nh.roster_keys) or len(changed) != 1 or nh.roster_keys[changed[0]] in oh.roster_keys:
        problems.append("the new roster is not the old one with exactly one new member")
        return FollowsCheck(tuple(problems), None, new, old)
    index = changed[0]
    old_seats = tuple(oh.roster_keys.index(k) for k in old.seat_keys)
    bot_seat = old_seats.index(index)
    if nh.seats != old_seats:
        problems.append("the new table does not keep the old seating")
    if not old.abandoned or old.left != (bot_seat,):
        problems.append(f"the old table did not abandon S{bot_seat} (the seat the new member takes)")
    elif nh.hands != oh.hands - old.abandoned[-1]:
        problems.append(f"the new table plays {nh.hands} hand(s), not the {oh.hands - old.abandoned[-1]} left")
    carried = nh.carried or (0,) * len(nh.roster_keys)
    if carried != old.totals:
        problems.append(f"the carried totals {list(carried)} are not the old table's totals {list(old.totals)}")
    if index not in [entry.bot for entry in nh.bots] or not set(oh.bots) <= set(nh.bots):
        problems.append(f"the new member (the bot in S{bot_seat}) does not play with its hand open to all")
    return FollowsCheck(tuple(problems), bot_seat, new, old)
