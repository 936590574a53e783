"""Rebuilding a peer's :class:`TableSession` after a crash, from what its driver saved. Pure.

A session is a function of its inputs: the roster and config, the envelopes it accepted,
my answers to its decisions, and the bytes it drew from its entropy. So the driver saves,
before anything it signed goes out (protocol/net/persist.py, docs/protocol.md "Resume"):

- the **entropy log**: every byte the session drew, in order (:class:`RecordingEntropy`);
  it holds the seating nonce and each hand's deck nonce, shuffle scalar and permutation,
  and the randomness of every proof;
- **my envelopes**: every envelope I signed, verbatim;
- the **transcript** (every record of a completed slot), as always.

:func:`restore_session` makes a new session whose entropy replays the log, starts it and
feeds it the transcript's envelopes of the other seats in file order, answering each of my
decisions with the action of my saved envelope for that slot. Ed25519 is deterministic and
every random choice comes from the log, so the session signs again the very bytes it had
signed: it is checked (:class:`RestoreError` otherwise) and nothing different is ever
signed for a slot (that would be equivocation). The records it emits must repeat the
transcript byte for byte; records beyond it (a slot my own last message completed just
before the crash) are handed back to be written; records in the file that the replay cannot
complete yet (a crash in the middle of writing a slot's or the deck's batch of records) are
handed back too, to be skipped (not written twice) when the session emits them again.
What others sent for slots not yet
complete is not saved: their drivers re-send it when the link comes back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from p2p_sasaki.protocol.config import GAMES, GameFactory, TableConfig, config_of
from p2p_sasaki.protocol.crypto import Entropy, IdentityKey, system_entropy
from p2p_sasaki.protocol.events import Event, HandStarted, Record, Seated
from p2p_sasaki.protocol.messages import (
    Abandon,
    HandOver,
    Leave,
    MessageError,
    TableAction,
    TranscriptHeader,
    decode_envelope,
)
from p2p_sasaki.protocol.session import TableSession
from p2p_sasaki.protocol.transcript import KIND_ENVELOPE, KIND_EVIDENCE, KIND_HEADER, encode_record

__all__ = ["RecordingEntropy", "RestoreError", "Restored", "restore_session", "own_slot"]


class RestoreError(ValueError):
    """The saved state cannot be resumed without risk (it would sign something different)."""


STALE_SENTENCE = "this saved table is older than what you already sent from it; it cannot be resumed"


class StaleSavedTable(RestoreError):
    """The others re-sent an authentic envelope of mine that my saved state never signed: it
    is an older copy (a backup, a snapshot). Going on would sign a second message for a slot."""

    def __init__(self) -> None:
        super().__init__(STALE_SENTENCE)


class RecordingEntropy:
    """An entropy function that first replays ``log`` and then draws from ``fresh``; every
    newly drawn byte is kept in :attr:`drawn` until :meth:`take_drawn` (the driver appends
    it to the saved log before sending anything)."""

    def __init__(self, log: bytes = b"", fresh: Entropy = system_entropy) -> None:
        self._log = bytes(log)
        self._offset = 0
        self._fresh = fresh
        self.drawn = bytearray()

    def __call__(self, n: int) -> bytes:
        out = self._log[self._offset:self._offset + n]
        self._offset += len(out)
        if len(out) < n:
            more = self._fresh(n - len(out))
            self.drawn += more
            out += more
        return out

    @property
    def replaying(self) -> bool:
        return self._offset < len(self._log)

    def take_drawn(self) -> bytes:
        out = bytes(self.drawn)
        self.drawn.clear()
        return out


@dataclass
class Restored:
    session: TableSession
    entropy: RecordingEntropy
    records: list[bytes]        # records after the transcript's, to append (in order)
    outgoing: list[bytes]       # my envelopes signed now that were never saved (send them)
    events: list[Event]         # the non-record events of the current hand (for a UI)
    on_disk: list[bytes]        # records already in the transcript that the session will emit
                                # again (a crash while a batch of records was written): skip them


def own_slot(envelope: bytes) -> tuple[int, int]:
    body = decode_envelope(envelope).body
    return body.hand, body.slot


def restore_session(identity: IdentityKey, transcript: Sequence[tuple[int, bytes]], entropy_log: bytes,
                    my_envelopes: Sequence[bytes], *, fresh: Entropy = system_entropy,
                    make: Callable[[IdentityKey, TranscriptHeader, TableConfig, Entropy], TableSession] | None = None,
                    games: Mapping[str, GameFactory] = GAMES) -> Restored:
    """A session in the state it had when it crashed (module docstring). ``transcript``:
    the saved transcript's records (``transcript.frame_records``), header first; ``games``:
    the games known by name (the tests add theirs)."""
    if not transcript or transcript[0][0] != KIND_HEADER:
        raise RestoreError("the saved transcript has no header")
    if any(kind == KIND_EVIDENCE for kind, _ in transcript):
        raise RestoreError("the table stopped on an equivocation: nothing to resume")
    header = TranscriptHeader.decode(transcript[0][1])
    config = config_of(header, games)
    entropy = RecordingEntropy(entropy_log, fresh)
    if make is None:
        session = TableSession(identity, header.roster_keys, header.table, config, entropy,
                               roster_names=header.roster_names)
    else:
        session = make(identity, header, config, entropy)
    mine: dict[tuple[int, int], bytes] = {}
    notices: list[bytes] = []   # my abandons and leave notices: a choice of my player, fed back as received
    for envelope in my_envelopes:
        try:
            if _is_notice(envelope):
                notices.append(envelope)
                continue
            mine.setdefault(own_slot(envelope), envelope)
        except MessageError as exc:
            raise RestoreError(f"a saved envelope of mine does not decode: {exc}") from exc
    expected = [encode_record(kind, data) for kind, data in transcript]
    recorded = _recorded_by_signer(transcript)
    emitted: list[bytes] = []
    outgoing: list[bytes] = []
    events: list[Event] = []

    def collect() -> None:
        for event in session.take_events():
            match event:
                case Record(data=data):
                    emitted.append(data)
                case HandStarted():
                    events[:] = [e for e in events if isinstance(e, Seated)] + [event]
                case _:
                    events.append(event)
        session.take_signed()   # what the replay signs anew is read from the outgoing frames below
        for frame in session.take_outgoing():
            try:
                message = decode_envelope(frame)
            except MessageError:
                continue
            if message.body.sender != _my_sender(session, message.body.hand) or _is_notice(frame):
                continue   # a relay of another seat's message: theirs to re-send (or my abandon, saved)
            slot = (message.body.hand, message.body.slot)
            saved = mine.get(slot)
            if saved is None:
                outgoing.append(frame)
            elif saved != frame:
                raise RestoreError(f"the restored session signed hand {slot[0]} slot {slot[1]} differently "
                                   "from the saved envelope (refusing to equivocate)")

    def settle() -> None:
        while True:
            collect()
            if session.finished:
                return
            if session.step():
                continue
            pending = session.pending_for_me
            saved = mine.get((session.hand_no, session.slot)) or recorded.get(
                (session.hand_no, session.slot, session.my_seat))   # mine, as the transcript recorded it
            if pending is None or saved is None:
                collect()
                return
            payload = decode_envelope(saved).body.payload
            if isinstance(payload, HandOver) and session.source is not None:   # my card handed over: by its position
                card = session.source.held_card(payload.position)
                action = next((a for a in session.legal_actions if session.game.encode_action(a)[1] == (card,)), None)
                if action is None:
                    raise RestoreError("my saved hand-over is not one of my legal answers")
                session.act(action)
                continue
            if not isinstance(payload, TableAction) or session.my_seat is None:
                raise RestoreError("my saved answer for this slot is not an action")
            session.act(session.game.decode_action(session.my_seat, payload.verb, payload.cards))

    session.start()
    settle()
    for kind, data in transcript[1:]:
        if kind != KIND_ENVELOPE:
            continue
        message = decode_envelope(data)
        if message.body.sender == _my_sender(session, message.body.hand) and not _is_notice(data):
            continue   # mine: the session signs it again itself
        session.receive(data)
        settle()
    for envelope in notices:   # an abandon of mine not yet complete: the session holds it again
        session.receive(envelope)
        settle()
    if session.blame is not None:
        raise RestoreError(f"replaying the saved transcript stops the table: {session.blame.reason}")
    common = min(len(emitted), len(expected))
    if emitted[:common] != expected[:common]:
        raise RestoreError("replaying the saved state does not give the saved transcript")
    return Restored(session, entropy, emitted[common:], outgoing, events, expected[common:])


def _is_notice(envelope: bytes) -> bool:
    return isinstance(decode_envelope(envelope).body.payload, (Abandon, Leave))


def _recorded_by_signer(transcript: Sequence[tuple[int, bytes]]) -> dict[tuple[int, int, int | None], bytes]:
    """The transcript's envelopes by ``(hand, slot, sender)``, the first of each."""
    recorded: dict[tuple[int, int, int | None], bytes] = {}
    for kind, data in transcript:
        if kind == KIND_ENVELOPE:
            body = decode_envelope(data).body
            recorded.setdefault((body.hand, body.slot, body.sender), data)
    return recorded


def _my_sender(session: TableSession, hand: int) -> int | None:
    return session.my_index if hand == 0 else session.my_seat
