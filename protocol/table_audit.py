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

from collections.abc import Mapping
from dataclasses import dataclass

from p2p_sasaki.protocol.config import GAMES, GameFactory, config_of
from p2p_sasaki.protocol.dealing import Dealer, RevealedKeys, TrustedDealer
from p2p_sasaki.protocol.events import Record
from p2p_sasaki.protocol.game import GameState
from p2p_sasaki.protocol.messages import (
    MessageError, SignedMessage, TranscriptHeader, decode_envelope, verify_envelope,
)
from p2p_sasaki.protocol.sasaki_game import SasakiState
from p2p_sasaki.protocol.session import TableSession
from p2p_sasaki.protocol.transcript import (
    KIND_EVIDENCE, Transcript, TranscriptError, decode_evidence, encode_record, frame_records, read_transcript,
    transcript_of,
)

__all__ = ["AuditBlame", "TableAudit", "audit_table", "audit_transcript", "export_records"]

@dataclass(frozen=True)
class AuditBlame:
    seat: int | None
    hand: int
    slot: int
    reason: str


@dataclass(frozen=True)
class TableAudit:
    """``hands[h-1][seat]``: the cards dealt to each seat in hand h (as card-index tuples);
    ``scores[h-1]`` that hand's scores; ``blame`` the first violation, or None."""

    hands: tuple[tuple[tuple[int, ...], ...], ...]
    scores: tuple[tuple[int, ...], ...]
    totals: tuple[int, ...]
    blame: AuditBlame | None
    complete: bool = True                       # every configured hand was played out
    states: tuple[GameState, ...] = ()          # each finished hand's full-deal state

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
    if (fa.hand, fa.slot, fa.sender) != (fb.hand, fb.slot, fb.sender) or first.body_bytes == second.body_bytes:
        return AuditBlame(None, fa.hand, fa.slot, "an evidence record holds two unrelated envelopes")
    return AuditBlame(fa.sender, fa.hand, fa.slot, f"seat {fa.sender} signed two different messages for hand "
                      f"{fa.hand} slot {fa.slot} (equivocation)")


def _observer(transcript: Transcript, games: Mapping[str, GameFactory], from_keys: bool) -> TableSession:
    header = transcript.header
    config = config_of(header, games)
    dealer: Dealer = (TrustedDealer(header.dealer) if header.dealer
                      else RevealedKeys.from_envelopes(transcript.envelopes, header.proofs, from_keys))
    observer = TableSession(None, header.roster_keys, header.table, config, dealer=dealer)
    if observer.header != header:
        raise ValueError("the header's game options are not in their canonical form")
    return observer


def audit_transcript(transcript: Transcript, damage: str | None = None,
                     games: Mapping[str, GameFactory] = GAMES, from_keys: bool = True) -> TableAudit:
    """Replay ``transcript``; ``damage``: why the file's records stop early (a damaged tail,
    e.g. a crash in the middle of a write), blamed where the intact records end.
    ``from_keys=False`` verifies every shuffle argument even where the keys are all in."""
    audit, keyed = _audit(transcript, damage, games, from_keys)
    if audit.blame is not None and keyed:  # some hand was checked from its keys
        return _audit(transcript, damage, games, False)[0]  # the blame the live order gives
    return audit


def _audit(transcript: Transcript, damage: str | None, games: Mapping[str, GameFactory],
           from_keys: bool) -> tuple[TableAudit, bool]:
    """The audit, and whether any hand was checked from its keys."""
    header = transcript.header
    try:
        observer = _observer(transcript, games, from_keys)
    except ValueError as exc:
        return TableAudit((), (), (), AuditBlame(None, 0, 0, str(exc)), False), False
    keyed = (isinstance(observer.dealer, RevealedKeys)
             and bool(observer.dealer.from_keys_hands(len(header.roster_keys))))
    observer.start()
    produced = [e.data for e in observer.take_events() if isinstance(e, Record)]
    blame: AuditBlame | None = None
    for index, (kind, data) in enumerate(transcript.records):
        if kind == KIND_EVIDENCE:
            blame = blame or _evidence_blame(data, header, observer.seat_keys)
            continue
        message = _authentic(data, header, observer.seat_keys)
        if message is None:
            blame = blame or AuditBlame(None, -1, -1, f"record {index + 1} is not an authentic envelope "
                                        "of this table")
            break
        observer.replay(message)
        produced += [e.data for e in observer.take_events() if isinstance(e, Record)]
        observer.take_outgoing()
        if observer.blame is not None:
            # the writer stops at an equivocation it saw: its evidence, further on, is the
            # cause (a stopped hand's game cannot be followed without the keys)
            later = [d for k, d in transcript.records[index + 1:] if k == KIND_EVIDENCE]
            if blame is None and later:
                blame = _evidence_blame(later[0], header, observer.seat_keys)
            break
    if blame is None and observer.blame is not None:
        b = observer.blame
        blame = AuditBlame(b.seat, b.hand, b.slot, b.reason)
    if blame is None and damage is not None:
        blame = AuditBlame(None, observer.hand_no, observer.slot, f"{damage}; the records before it verify")
    if blame is None and not observer.finished:
        waiting = observer.waiting_for
        seat = waiting[0] if waiting else None
        blame = AuditBlame(seat, observer.hand_no, observer.slot,
                           f"the transcript stops at hand {observer.hand_no} slot {observer.slot}, waiting for "
                           f"seat(s) {', '.join(map(str, waiting)) or '?'}")
    if blame is None:
        expected = [encode_record(kind, data) for kind, data in transcript.records]
        canonical = produced[1:]
        if canonical != expected:
            first = next((i for i, (a, b) in enumerate(zip(canonical, expected)) if a != b),
                         min(len(canonical), len(expected)))
            blame = AuditBlame(None, -1, -1, f"record {first + 1} is not in canonical order (or is extra)")
    return TableAudit(tuple(observer.dealt_hands), tuple(observer.hand_scores), observer.totals, blame,
                      complete=observer.finished and observer.blame is None,
                      states=tuple(observer.finished_states)), keyed


def audit_table(data: bytes, games: Mapping[str, GameFactory] = GAMES) -> TableAudit:
    """Check a whole table transcript (the bytes of a ``.sasaki`` file)."""
    records, damage = frame_records(data)  # a damaged tail: the records before it are still checked
    try:
        transcript = transcript_of(records)
    except TranscriptError as exc:
        return TableAudit((), (), (), AuditBlame(None, 0, 0, str(damage or exc)), False)
    return audit_transcript(transcript, None if damage is None else str(damage), games)


def export_records(data: bytes) -> list[str]:
    """One game record per finished hand (p2p_sasaki.records format), from an audited file."""
    from p2p_sasaki.records import write_record

    audit = audit_transcript(read_transcript(data))
    return [write_record(state.hand) for state in audit.states if isinstance(state, SasakiState)]
