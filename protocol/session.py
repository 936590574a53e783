"""One peer's table: setup, the deck, every play agreed by slotted lockstep. Sans-IO.

Interface (docs/protocol.md, "Table")::

    session = TableSession(identity, roster_keys, table_id, TableConfig(...), rng)
    session.start()                                # my GENESIS signature (and the header record)
    session.receive(envelope, from_key)            # never raises
    while session.step(): ...                      # slow proof work, one piece at a time
    session.act(action)                            # my answer to session.pending_for_me
    send_to_every_peer(session.take_outgoing())    # my envelopes and relays
    handle(session.take_events())                  # Seated, HandStarted, ..., Record, Blame

Slots (per hand; every message is ``(hand, slot, sender)``, signed over ``prev``, the agreed
state hash before the slot):

  hand 0 (setup, sender = roster index, join order):
    slot 0  table/genesis      every member signs the roster hash
    slot 1  table/seat-commit  every member commits to a seating nonce
    slot 2  table/seat-nonce   every member reveals it; the seat order follows (see seating_order)
  hand h >= 1 (sender = seat; seats are in turn order):
    slots 0 .. 3n    the deck (protocol/deck.py, SlotLayout with first=0); one pipelined block:
                     every deck message's prev is the hash before the hand
    slot D = 3n+1    LEAD: every seat answers table/action; the holder of the opening 3 "lead"s
                     with its deck opening, the others "decline"
    slots D+1 ..     one slot per engine decision: expected signers = decision.seats, each a
                     table/action; outcome = hand.resolve(answers) (a function of the set)
    next slot        KEYS: every seat's deck/key; then the full deal is replayed and checked

Chain: h_0 = H32("chain-start", table, roster_hash), roster_hash = H32("roster", the header
record's bytes: table id, keys, options); after each completed slot k,
h_{k+1} = H32("slot", h_k, u32(hand), u32(slot), body digests in sender order), a body
digest being H32("body", body_bytes). The chain runs across hands.

What a driver must persist for crash safety (before sending what take_outgoing returns):
every envelope of take_outgoing (mine are among them) and every Record event. A resume also
needs my secrets (:meth:`TableSession.export_secrets`: the seating nonce, the current hand's
deck nonce, shuffle scalar and permutation); a full resume from them is not implemented yet.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Union

from p2p_sasaki.cards import Card, CardSet, mask_indices
from p2p_sasaki.hand import (
    Action, AuditNeededError, Chata, Decision, DecisionKind, Decline, Expose, Hand, IllegalActionError,
    Kkojda, Pass, Play, Run, SeatView, Stop, opens,
)
from p2p_sasaki.options import TableOptions
from p2p_sasaki.protocol import crypto
from p2p_sasaki.protocol.crypto import (
    TAG_BODY,
    TAG_CHAIN_START,
    TAG_ROSTER,
    TAG_SEAT_CARD,
    TAG_SEAT_COMMIT,
    TAG_SEATING,
    TAG_SLOT,
    CryptoError,
    Entropy,
    IdentityKey,
    system_entropy,
    u32,
)
from p2p_sasaki.protocol.deck import (
    DeckSession, HandDealt, HandIdAgreed, KeyMismatch, ShuffleAccepted, ShuffleVerified, SlotLayout, Violation,
)
from p2p_sasaki.protocol.messages import (
    Body, DeckCommit, DeckNonce, Genesis, KeyReveal, MessageError, SeatCommit, SeatNonce, ShuffleHop,
    ShuffleProof, SignedMessage, StripRound, TableAction, TranscriptHeader, decode_envelope, sign_envelope,
    VersionMismatchError, verify_envelope,
)
from p2p_sasaki.protocol.transcript import KIND_ENVELOPE, KIND_EVIDENCE, KIND_HEADER, encode_evidence, encode_record

SEATS = 4
N_CARDS = 48
DECK_SLOTS = 3 * SEATS + 1
LEAD_SLOT = DECK_SLOTS
MAX_UNSEATED_BUFFER = 4096


# ---------------------------------------------------------------------------------------
# Config and events
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TableConfig:
    hands: int = 2
    options: TableOptions = TableOptions(lead_card="3H")  # lead_card resolved to 3H/3S by the caller
    proofs: bool = True
    shuffle_rounds: int = 64


def table_header(table_id: bytes, roster_keys: Sequence[bytes], config: TableConfig) -> TranscriptHeader:
    """The transcript header of a table: its id, its keys and its options. Its bytes are
    also the frame in which the creator sends the options to the joiners."""
    o = config.options
    return TranscriptHeader(bytes(table_id), tuple(bytes(k) for k in roster_keys), config.hands, o.lead_card,
                            o.lead_must_contain_3, o.running, config.proofs, config.shuffle_rounds)


def config_from_header(header: TranscriptHeader, table_id: bytes | None = None,
                       roster_keys: Sequence[bytes] | None = None) -> TableConfig:
    """The options in ``header`` (the inverse of :func:`table_header`); with ``table_id``
    and ``roster_keys``, first check that the header is this table's."""
    if table_id is not None and header.table != table_id:
        raise ValueError("the table options name another table")
    if roster_keys is not None and header.roster_keys != tuple(roster_keys):
        raise ValueError("the table options name other members than this table's roster")
    options = TableOptions(lead_card=header.lead_card, lead_must_contain_3=header.lead_must_contain_3,
                           running=header.running)
    return TableConfig(header.hands, options, header.proofs, header.shuffle_rounds)


@dataclass(frozen=True)
class Seated:
    seat_keys: tuple[bytes, ...]
    my_seat: int | None


@dataclass(frozen=True)
class HandStarted:
    hand_no: int


@dataclass(frozen=True)
class DealProgress:
    step: str       # "hand-id", "shuffle", "proof", "deal"
    done: int
    total: int


@dataclass(frozen=True)
class Dealt:
    hand_no: int
    cards: CardSet


@dataclass(frozen=True)
class DecisionPending:
    decision: Decision
    mine: bool


@dataclass(frozen=True)
class ActionApplied:
    """A public action the engine applied. ``lead``: a play made when there was no top
    play (it starts a round); an addition to the contract, read from the engine's state
    before the slot was resolved (default False keeps it backward compatible)."""

    action: Action
    lead: bool = False


@dataclass(frozen=True)
class HandEnded:
    hand_no: int
    finish: tuple[int, ...]
    red: tuple[int, ...]
    multiplier: int
    scores: tuple[int, int, int, int]
    totals: tuple[int, int, int, int]


@dataclass(frozen=True)
class MatchEnded:
    totals: tuple[int, int, int, int]


@dataclass(frozen=True)
class Record:
    """The next transcript record (framed): append it to the .sasaki file and fsync."""

    data: bytes


@dataclass(frozen=True)
class Blame:
    """A violation; the table stops. ``seat`` None: nobody can be named. ``hand`` is an
    addition to the contract (default -1 keeps it backward compatible)."""

    seat: int | None
    slot: int
    reason: str
    hand: int = -1


@dataclass(frozen=True)
class VersionMismatch:
    """A message of another protocol version arrived: it cannot be read, so the table
    cannot go on with its sender until both run the same release. ``reason`` is the one
    sentence (messages.version_sentence); reported once per version seen."""

    version: int
    reason: str


Event = Union[Seated, HandStarted, DealProgress, Dealt, DecisionPending, ActionApplied, HandEnded, MatchEnded,
              Record, Blame, VersionMismatch]


@dataclass(frozen=True)
class SessionSecrets:
    """What a peer must keep to resume (see the module docstring)."""

    seat_nonce: bytes | None
    hand_no: int
    deck_nonce: bytes | None
    deck_scalar: int | None
    deck_perm: tuple[int, ...] | None


# ---------------------------------------------------------------------------------------
# Hashes, seating and actions (shared with the audit)
# ---------------------------------------------------------------------------------------


def roster_hash(header: TranscriptHeader) -> bytes:
    """What GENESIS signs: the table id, the four keys in join order and every table option
    (the transcript header's exact bytes), so no member can be shown a different table."""
    return crypto.hash32(TAG_ROSTER, header.encode())


def chain_start(header: TranscriptHeader) -> bytes:
    return crypto.hash32(TAG_CHAIN_START, header.table, roster_hash(header))


def next_chain(prev: bytes, hand: int, slot: int, bodies: Sequence[bytes]) -> bytes:
    """h_{k+1} from h_k and the slot's signed bodies in sender order."""
    return crypto.hash32(TAG_SLOT, prev, u32(hand), u32(slot), *(crypto.hash32(TAG_BODY, b) for b in bodies))


def seat_commitment(table_id: bytes, member: int, nonce: bytes) -> bytes:
    return crypto.hash32(TAG_SEAT_COMMIT, table_id, u32(member), nonce)


def seating_order(table_id: bytes, nonces: Sequence[bytes]) -> tuple[int, ...]:
    """Roster index of the member at each seat.

    Equivalent to each member drawing a card from a deck shuffled by the joint nonce: member
    i's card is H32("seat-card", draw, u32(i)) with draw = H32("seating", table, nonces in
    roster order), and the lowest card takes seat 0, the next seat 1, and so on (turn order).
    """
    draw = crypto.hash32(TAG_SEATING, table_id, *nonces)
    return tuple(sorted(range(len(nonces)), key=lambda i: crypto.hash32(TAG_SEAT_CARD, draw, u32(i))))


_VERB_CLASSES: dict[str, type] = {
    "play": Play, "pass": Pass, "run": Run, "expose": Expose, "stop": Stop, "chata": Chata,
    "kkojda": Kkojda, "decline": Decline,
}
_NO_CARDS = (Pass, Stop, Decline)


def action_of(seat: int, payload: TableAction) -> Action:
    """The engine action a table/action stands for; raises IllegalActionError if none."""
    cls = _VERB_CLASSES.get(payload.verb)
    if cls is None:
        raise IllegalActionError(f"{payload.verb!r} is not an answer to a game decision")
    mask = 0
    for card in payload.cards:
        if card >= N_CARDS:
            raise IllegalActionError(f"there is no card {card}")
        mask |= 1 << card
    if cls in _NO_CARDS:
        if mask:
            raise IllegalActionError(f"{payload.verb} takes no cards")
        return cls(seat)
    if not mask:
        raise IllegalActionError(f"{payload.verb} needs cards")
    return cls(seat, CardSet(mask))


def resolve_slot(hand: Hand, answers: Sequence[Action]) -> int | None:
    """Apply one slot's answers to ``hand``. Returns None, or raises IllegalActionError with
    ``.seat`` set to the seat to blame (None if no single answer is at fault)."""
    d = hand.decision
    try:
        if d.kind is DecisionKind.TURN:
            hand.apply(answers[0])
        else:
            hand.resolve(answers)
        return None
    except AuditNeededError as exc:
        exc.seat = None  # type: ignore[attr-defined]
        raise
    except IllegalActionError as exc:
        exc.seat = answers[0].seat if d.kind is DecisionKind.TURN else _culprit(hand, answers)  # type: ignore[attr-defined]
        raise


def _culprit(hand: Hand, answers: Sequence[Action]) -> int | None:
    """The first seat (in the window's order) whose answer is illegal with all others declining."""
    for answer in answers:
        if isinstance(answer, Decline):
            continue
        trial = hand.copy()
        try:
            trial.resolve([answer if a.seat == answer.seat else Decline(a.seat) for a in answers])
        except AuditNeededError:
            continue
        except IllegalActionError:
            return answer.seat
    for answer in answers:  # a decline that must not be (the holder of the other red ten)
        if isinstance(answer, Decline):
            trial = hand.copy()
            try:
                trial.resolve([Decline(a.seat) for a in answers])
            except AuditNeededError:
                continue
            except IllegalActionError as exc:
                if f"S{answer.seat} " in str(exc):
                    return answer.seat
    return None


class _Stop(Exception):
    """Internal: a violation that stops the table."""

    def __init__(self, seat: int | None, slot: int, reason: str) -> None:
        super().__init__(reason)
        self.seat, self.slot, self.reason = seat, slot, reason


# ---------------------------------------------------------------------------------------
# The session
# ---------------------------------------------------------------------------------------

_SETUP = "setup"
_DECK = "deck"
_LEAD = "lead"
_PLAY = "play"
_KEYS = "keys"
_DONE = "done"


class TableSession:
    """One peer's whole table (or an observer's: ``identity=None``, see TableObserver)."""

    def __init__(self, identity: IdentityKey | None, roster_keys: Sequence[bytes], table_id: bytes,
                 config: TableConfig = TableConfig(), rng: Entropy = system_entropy) -> None:
        if len(roster_keys) != SEATS or len(set(roster_keys)) != SEATS or len(table_id) != 32:
            raise ValueError("a table has four distinct public keys and a 32-byte table id")
        if config.options.lead_card not in ("3H", "3S"):
            raise ValueError("resolve options.lead_card to 3H or 3S before creating the table")
        if config.hands < 1:
            raise ValueError("a match has at least one hand")
        if identity is not None and identity.public_key not in roster_keys:
            raise ValueError("my identity key is not in the roster")
        self.identity = identity
        self.roster_keys = tuple(bytes(k) for k in roster_keys)
        self.table_id = bytes(table_id)
        self.config = config
        self.lead_card = Card.parse(config.options.lead_card)
        self._rng = rng
        self.my_index = self.roster_keys.index(identity.public_key) if identity else None
        self.my_seat: int | None = None
        self.seat_keys: tuple[bytes, ...] | None = None
        self.totals: tuple[int, int, int, int] = (0, 0, 0, 0)
        self.finished = False
        self.blame: Blame | None = None

        self.header = table_header(self.table_id, self.roster_keys, config)
        self.roster_hash = roster_hash(self.header)
        self.chain = chain_start(self.header)
        self.hand_no = 0
        self.slot = 0
        self.phase = _SETUP
        self.hand: Hand | None = None
        self.deck: DeckSession | None = None
        self.hand_start = self.chain
        self.hand_scores: list[tuple[int, int, int, int]] = []
        self.dealt_hands: list[tuple[tuple[int, ...], ...]] = []
        self.finished_hands: list[Hand] = []

        self._started = False
        self._seat_nonce: bytes | None = None
        self._seat_commits: dict[int, bytes] = {}
        self._seen: dict[tuple[int, int, int], SignedMessage] = {}
        self._evidence: set[tuple[int, int, int]] = set()
        self._pending: list[SignedMessage] = []
        self._unseated: list[bytes] = []
        self._got: dict[int, SignedMessage] = {}                    # current slot: sender -> message
        self._deck_got: dict[int, dict[int, SignedMessage]] = {}    # deck slot -> sender -> message
        self._opened: int = 0                                       # cards opened this hand (mask)
        self._slots_played: list[list[Action]] = []                 # this hand's engine slots
        self._hashes: list[str] = []                                # hidden engine hash after each
        self._first_leader: int | None = None
        self._my_cards: int | None = None
        self._outbox: list[bytes] = []
        self._events: deque[Event] = deque()
        self._versions_seen: set[int] = set()

    # -- public API ----------------------------------------------------------------------

    def start(self) -> None:
        """Write the header record and sign GENESIS."""
        if self._started:
            raise RuntimeError("the session is already started")
        self._started = True
        self._events.append(Record(encode_record(KIND_HEADER, self.header.encode())))
        if self.identity is not None:
            self._sign(0, 0, Genesis(self.roster_hash))
        self._advance()

    def receive(self, data: bytes, from_key: bytes | None = None) -> None:
        """Take one envelope from a link; never raises. Unauthentic input is dropped."""
        try:
            self._receive(data)
            self._advance()
        except _Stop as stop:
            self._stop(stop.seat, stop.slot, stop.reason)
        except Exception as exc:  # a bug of ours: report, never crash the driver
            self._stop(None, self.slot, f"internal error: {type(exc).__name__}: {exc}")

    def step(self) -> bool:
        """One piece of slow crypto work (a shuffle proof); False if there is none."""
        if self.finished or self.deck is None:
            return False
        try:
            worked = self.deck.step()
            self._pump_deck(self.slot)
            self._advance()
        except _Stop as stop:
            self._stop(stop.seat, stop.slot, stop.reason)
            return True
        return worked

    def act(self, action: Action) -> None:
        """Answer the decision pending for my seat; raises IllegalActionError (local)."""
        decision = self.pending_for_me
        if decision is None or self.hand is None or self.my_seat is None:
            raise IllegalActionError("nothing is pending for my seat")
        if action not in self.hand.legal_actions(self.my_seat):
            raise IllegalActionError(f"{action} is not one of my legal answers now")
        cards = tuple(mask_indices(opens(action).mask))
        assert self.deck is not None
        new = tuple(self.deck.prove_open(c) for c in cards if not self._opened >> c & 1)
        self._sign(self.hand_no, self.slot, TableAction(action.verb, cards, new))
        try:
            self._advance()
        except _Stop as stop:
            self._stop(stop.seat, stop.slot, stop.reason)

    def take_outgoing(self) -> list[bytes]:
        out, self._outbox = self._outbox, []
        return out

    def take_events(self) -> list[Event]:
        events = list(self._events)
        self._events.clear()
        return events

    @property
    def waiting_for(self) -> tuple[int, ...]:
        if self.finished:
            return ()
        if self.phase == _DECK and self.deck is not None:
            return tuple(sorted({s for s, _ in self.deck.waiting_for()}))
        return tuple(s for s in self._expected() if s not in self._got)

    @property
    def pending_for_me(self) -> Decision | None:
        if self.finished or self.phase != _PLAY or self.hand is None or self.my_seat is None:
            return None
        d = self.hand.decision
        return d if self.my_seat in d.seats and self.my_seat not in self._got else None

    @property
    def view(self) -> SeatView | None:
        if self.hand is None or self.my_seat is None:
            return None
        return self.hand.view(self.my_seat)

    @property
    def legal_actions(self) -> list[Action]:
        if self.pending_for_me is None or self.hand is None or self.my_seat is None:
            return []
        return self.hand.legal_actions(self.my_seat)

    def export_secrets(self) -> SessionSecrets:
        deck = self.deck
        return SessionSecrets(
            self._seat_nonce, self.hand_no, getattr(deck, "_nonce", None), getattr(deck, "_x", None),
            getattr(deck, "_perm", None),
        )

    # -- receiving -----------------------------------------------------------------------

    def _keys_for(self, hand: int) -> tuple[bytes, ...] | None:
        return self.roster_keys if hand == 0 else self.seat_keys

    def _receive(self, data: bytes) -> None:
        try:
            message = decode_envelope(data)
        except VersionMismatchError as exc:  # never dropped silently: say why the table stalls
            if exc.version not in self._versions_seen and isinstance(exc.version, int):
                self._versions_seen.add(exc.version)
                self._events.append(VersionMismatch(exc.version, str(exc)))
            return
        except MessageError:
            return
        body = message.body
        if body.table != self.table_id:
            return
        keys = self._keys_for(body.hand)
        if keys is None:  # a later hand before I know the seats: check it once seated
            if len(self._unseated) < MAX_UNSEATED_BUFFER:
                self._unseated.append(data)
            return
        if body.sender >= len(keys) or not verify_envelope(message, keys[body.sender]):
            return
        self._accept(message)

    def _accept(self, message: SignedMessage) -> None:
        """An authentic message: equivocation check, relay the first copy, queue it."""
        body = message.body
        key = (body.hand, body.slot, body.sender)
        first = self._seen.get(key)
        if first is not None:
            if first.body_bytes != message.body_bytes:
                self._equivocation(first, message)
            return
        self._seen[key] = message
        self._outbox.append(message.raw)
        if not self.finished:
            self._pending.append(message)

    def _equivocation(self, first: SignedMessage, second: SignedMessage) -> None:
        body = first.body
        key = (body.hand, body.slot, body.sender)
        if key in self._evidence:
            return
        self._evidence.add(key)
        self._outbox.extend([first.raw, second.raw])
        self._events.append(Record(encode_record(KIND_EVIDENCE, encode_evidence(first.raw, second.raw))))
        self._stop(body.sender, body.slot, f"seat {body.sender} signed two different messages for hand "
                   f"{body.hand} slot {body.slot}", body.hand, force=True)

    def _sign(self, hand: int, slot: int, payload) -> None:
        assert self.identity is not None
        sender = self.my_index if hand == 0 else self.my_seat
        prev = self.hand_start if hand >= 1 and slot < DECK_SLOTS else self.chain
        envelope = sign_envelope(Body(self.table_id, hand, slot, sender, prev, payload), self.identity)
        self._accept(decode_envelope(envelope))

    def _accept_own(self, envelopes: list[bytes]) -> None:
        for envelope in envelopes:
            self._accept(decode_envelope(envelope))

    def _stop(self, seat: int | None, slot: int, reason: str, hand: int | None = None, force: bool = False) -> None:
        if self.finished and not force:
            return
        blame = Blame(seat, slot, reason, self.hand_no if hand is None else hand)
        if self.blame is None:
            self.blame = blame
        self.finished = True
        self.phase = _DONE
        self._events.append(blame)

    # -- the slot machine ----------------------------------------------------------------

    def _expected(self) -> tuple[int, ...]:
        if self.phase in (_SETUP, _LEAD, _KEYS):
            return tuple(range(SEATS))
        if self.phase == _PLAY and self.hand is not None:
            return self.hand.decision.seats
        return ()

    def _advance(self) -> None:
        """Process every queued message that has become processable; complete slots."""
        progress = True
        while progress and not self.finished:
            progress = False
            for message in list(self._pending):
                where = self._place(message)
                if where == "wait":
                    continue
                self._pending.remove(message)
                progress = True
                if where == "deck":
                    self._deck_message(message)
                else:
                    self._slot_message(message)
                if self.finished:
                    return
            if self._complete():
                progress = True

    def _place(self, message: SignedMessage) -> str:
        body = message.body
        if (body.hand, body.slot) < (self.hand_no, self.slot if self.phase != _DECK else 0):
            raise _Stop(body.sender, body.slot, f"seat {body.sender} signed for hand {body.hand} slot "
                        f"{body.slot}, where it was not expected")
        if body.hand != self.hand_no:
            return "wait"
        if self.phase == _DECK:
            return "deck" if body.slot < DECK_SLOTS else "wait"
        return "slot" if body.slot == self.slot else "wait"

    def _deck_message(self, message: SignedMessage) -> None:
        body = message.body
        if not isinstance(body.payload, (DeckCommit, DeckNonce, ShuffleHop, ShuffleProof, StripRound)):
            raise _Stop(body.sender, body.slot, f"a {body.type} message cannot be in deck slot {body.slot}")
        if body.prev != self.hand_start:
            raise _Stop(body.sender, body.slot, f"seat {body.sender}'s prev is not the hash before the hand")
        self._deck_got.setdefault(body.slot, {})[body.sender] = message
        assert self.deck is not None
        self.deck.receive(message.raw, from_seat=None)
        self._pump_deck(body.slot)

    def _slot_message(self, message: SignedMessage) -> None:
        body = message.body
        if body.sender not in self._expected():
            raise _Stop(body.sender, body.slot, f"seat {body.sender} is not expected in slot {body.slot}")
        wanted = {_SETUP: (Genesis, SeatCommit, SeatNonce)[min(self.slot, 2)], _LEAD: TableAction,
                  _PLAY: TableAction, _KEYS: KeyReveal}[self.phase]
        if not isinstance(body.payload, wanted):
            raise _Stop(body.sender, body.slot, f"slot {body.slot} expects {wanted.TYPE}, not {body.type}")
        if body.prev != self.chain:
            raise _Stop(body.sender, body.slot, f"seat {body.sender}'s prev does not match the agreed state")
        self._got[body.sender] = message
        if self.phase == _KEYS:
            assert self.deck is not None
            self.deck.receive(message.raw, from_seat=None)
            self._pump_deck(body.slot)

    def _pump_deck(self, slot: int) -> None:
        deck = self.deck
        if deck is None:
            return
        self._accept_own(deck.take_outgoing())
        for event in deck.take_events():
            if isinstance(event, Violation):
                raise _Stop(event.seat, slot, f"deck {event.step}: {event.reason}")
            if isinstance(event, HandIdAgreed):
                self._events.append(DealProgress("hand-id", 1, 1))
            elif isinstance(event, ShuffleAccepted):
                self._events.append(DealProgress("shuffle", event.hop + 1, SEATS))
            elif isinstance(event, ShuffleVerified):
                self._events.append(DealProgress("proof", event.hop + 1, SEATS))
            elif isinstance(event, HandDealt):
                self._my_cards = sum(1 << c for c in event.cards)
                self._events.append(DealProgress("deal", 1, 1))
                self._events.append(Dealt(self.hand_no, CardSet(self._my_cards)))

    def _deck_complete(self) -> bool:
        deck = self.deck
        if deck is None or not deck.deal_verified:
            return False
        if deck.seat is not None and deck.hand is None:
            return False
        layout = SlotLayout(0, SEATS)
        for slot in range(DECK_SLOTS):
            if slot in (layout.commit, layout.nonce) or slot >= layout.strip(1):
                want = set(range(SEATS))
            elif slot < layout.proof(0):
                want = {slot - layout.hop(0)}
            else:
                want = {slot - layout.proof(0)} if self.config.proofs else set()
            if set(self._deck_got.get(slot, {})) != want:
                return False
        return True

    def _complete(self) -> bool:
        """Complete the current slot if every expected message is in. Returns True if it did."""
        if self.phase == _DECK:
            if not self._deck_complete():
                return False
            for slot in range(DECK_SLOTS):
                self._close(slot, self._deck_got.get(slot, {}))
            self.phase, self.slot = _LEAD, LEAD_SLOT
            self._lead_step()
            return True
        if self.phase == _DONE or any(s not in self._got for s in self._expected()):
            return False
        if self.phase == _KEYS and (self.deck is None or self.deck.hands is None):
            return False
        got, slot = self._got, self.slot
        outcome = {_SETUP: self._setup_outcome, _LEAD: self._lead_outcome, _PLAY: self._play_outcome,
                   _KEYS: self._keys_outcome}[self.phase]
        after = outcome(got)
        self._close(slot, got)
        self._got = {}
        after()
        return True

    def _close(self, slot: int, got: dict[int, SignedMessage]) -> None:
        """Chain the slot and write its records, in sender order."""
        ordered = [got[s] for s in sorted(got)]
        self.chain = next_chain(self.chain, self.hand_no, slot, [m.body_bytes for m in ordered])
        for message in ordered:
            self._events.append(Record(encode_record(KIND_ENVELOPE, message.raw)))

    # -- outcomes (each returns what to do once the slot is chained) ---------------------

    def _setup_outcome(self, got: dict[int, SignedMessage]) -> Callable[[], None]:
        slot = self.slot
        if slot == 0:
            for member, message in got.items():
                if message.body.payload.roster_hash != self.roster_hash:
                    raise _Stop(member, slot, f"member {member} signed another roster")
            return lambda: self._setup_next(SeatCommit)
        if slot == 1:
            self._seat_commits = {m: msg.body.payload.commitment for m, msg in got.items()}
            return lambda: self._setup_next(SeatNonce)
        nonces = []
        for member in range(SEATS):
            nonce = got[member].body.payload.nonce
            if seat_commitment(self.table_id, member, nonce) != self._seat_commits[member]:
                raise _Stop(member, slot, f"member {member}'s seating nonce does not match its commitment")
            nonces.append(nonce)
        order = seating_order(self.table_id, nonces)
        return lambda: self._seat(order)

    def _setup_next(self, kind: type) -> None:
        self.slot += 1
        if self.identity is None:
            return
        if kind is SeatCommit:
            self._seat_nonce = self._rng(32)
            self._sign(0, 1, SeatCommit(seat_commitment(self.table_id, self.my_index, self._seat_nonce)))
        else:
            self._sign(0, 2, SeatNonce(self._seat_nonce))

    def _seat(self, order: tuple[int, ...]) -> None:
        self.seat_keys = tuple(self.roster_keys[i] for i in order)
        if self.my_index is not None:
            self.my_seat = order.index(self.my_index)
        self._events.append(Seated(self.seat_keys, self.my_seat))
        unseated, self._unseated = self._unseated, []
        self._start_hand(1)
        for data in unseated:
            self._receive(data)

    def _start_hand(self, hand_no: int) -> None:
        self.hand_no, self.slot, self.phase = hand_no, 0, _DECK
        self.hand_start = self.chain
        self.hand = None
        self._deck_got, self._opened, self._slots_played, self._hashes = {}, 0, [], []
        self._first_leader = self._my_cards = None
        assert self.seat_keys is not None
        self.deck = DeckSession(
            self.my_seat, SEATS, N_CARDS, self.identity, self.seat_keys, self.table_id, hand_no, rng=self._rng,
            proofs=self.config.proofs, shuffle_rounds=self.config.shuffle_rounds, first_slot=0,
            prev_for_slot=self._prev_for_slot,
        )
        self._events.append(HandStarted(hand_no))
        if self.my_seat is not None:
            self._accept_own(self.deck.start())
        self._pump_deck(0)

    def _prev_for_slot(self, slot: int) -> bytes:
        return self.hand_start if slot < DECK_SLOTS else self.chain

    def _lead_step(self) -> None:
        if self.identity is None or self._my_cards is None or self.deck is None:
            return
        lead = self.lead_card.index
        if self._my_cards >> lead & 1:
            self._sign(self.hand_no, LEAD_SLOT, TableAction("lead", (lead,), (self.deck.prove_open(lead),)))
        else:
            self._sign(self.hand_no, LEAD_SLOT, TableAction("decline", ()))

    def _check_opens(self, seat: int, slot: int, payload: TableAction, cards: int) -> None:
        """The message opens exactly the action's cards not opened before, each proven."""
        new = cards & ~self._opened
        if sum(1 << o.card for o in payload.opens) != new or len(payload.opens) != new.bit_count():
            raise _Stop(seat, slot, f"seat {seat}'s action must open exactly {CardSet(new) or 'no cards'}")
        assert self.deck is not None
        for opening in payload.opens:
            reason = self.deck.accept_open(seat, opening)
            if reason is not None:
                raise _Stop(seat, slot, f"seat {seat}'s opening of card {opening.card}: {reason}")
        self._opened |= new

    def _lead_outcome(self, got: dict[int, SignedMessage]) -> Callable[[], None]:
        slot, lead = self.slot, self.lead_card.index
        leaders = []
        for seat in range(SEATS):
            payload = got[seat].body.payload
            if payload.verb == "lead" and payload.cards == (lead,):
                self._check_opens(seat, slot, payload, 1 << lead)
                leaders.append(seat)
            elif payload.verb != "decline" or payload.cards or payload.opens:
                raise _Stop(seat, slot, f"seat {seat} must show the {self.lead_card} or decline")
        if len(leaders) != 1:
            raise _Stop(None, slot, f"nobody showed the {self.lead_card}: its holder declined "
                        "(the key reveal names it)")
        first = leaders[0]
        try:
            self.hand = self._new_engine(first)
        except (ValueError, LookupError) as exc:
            raise _Stop(first, slot, str(exc)) from exc
        return self._next_decision

    def _new_engine(self, first_leader: int) -> Hand:
        assert self.my_seat is not None and self._my_cards is not None
        return Hand.for_peer(self.my_seat, self._my_cards, first_leader, self.lead_card, self.config.options)

    def _play_outcome(self, got: dict[int, SignedMessage]) -> Callable[[], None]:
        hand, slot = self.hand, self.slot
        assert hand is not None
        answers = []
        for seat in hand.decision.seats:
            payload = got[seat].body.payload
            try:
                action = action_of(seat, payload)
            except IllegalActionError as exc:
                raise _Stop(seat, slot, str(exc)) from exc
            self._check_opens(seat, slot, payload, opens(action).mask)
            answers.append(action)
        before = len(hand.history)
        top_was_empty = hand.top is None
        try:
            resolve_slot(hand, answers)
        except IllegalActionError as exc:
            raise _Stop(getattr(exc, "seat", None), slot, str(exc)) from exc
        self._slots_played.append(answers)
        self._hashes.append(hand.state_hash())
        for i, action in enumerate(hand.history[before:]):
            self._events.append(ActionApplied(action, lead=top_was_empty and i == 0 and isinstance(action, Play)))
        return self._next_decision

    def _next_decision(self) -> None:
        self.slot += 1
        assert self.hand is not None
        d = self.hand.decision
        if d.kind is DecisionKind.OVER:
            self.phase = _KEYS
            if self.identity is not None and self.deck is not None:
                self._accept_own(self.deck.reveal_key(self.slot))
                self._pump_deck(self.slot)
            return
        self.phase = _PLAY
        self._events.append(DecisionPending(d, self.my_seat in d.seats))

    def _keys_outcome(self, got: dict[int, SignedMessage]) -> Callable[[], None]:
        assert self.deck is not None and self.deck.hands is not None and self.hand is not None
        slot, revealed = self.slot, self.deck.hands
        deal = [sum(1 << c for c in cards) for cards in revealed]
        full = Hand(deal, self.lead_card, self.config.options)
        for k, answers in enumerate(self._slots_played):
            try:
                resolve_slot(full, answers)
            except IllegalActionError as exc:
                raise _Stop(getattr(exc, "seat", None), LEAD_SLOT + 1 + k,
                            f"with the revealed deal: {exc}") from exc
            if full.state_hash() != self._hashes[k]:
                raise _Stop(None, LEAD_SLOT + 1 + k, "the revealed deal does not reproduce the agreed state")
        if not full.is_over or full.scores is None:
            raise _Stop(None, slot, "the revealed deal does not end the hand")
        scores = full.scores
        self.totals = tuple(t + s for t, s in zip(self.totals, scores))  # type: ignore[assignment]
        self.hand_scores.append(scores)
        self.dealt_hands.append(tuple(tuple(sorted(cards)) for cards in revealed))
        self.finished_hands.append(full)
        ended = HandEnded(self.hand_no, full.finish, full.red_seats, full.multiplier, scores, self.totals)
        return lambda: self._end_hand(ended)

    def _end_hand(self, ended: HandEnded) -> None:
        self._events.append(ended)
        if self.hand_no >= self.config.hands:
            self.phase, self.finished = _DONE, True
            self._events.append(MatchEnded(self.totals))
            return
        self._start_hand(self.hand_no + 1)


class TableObserver(TableSession):
    """A session that signs nothing and replays a transcript: the auditor.

    Its engine runs with the full deal: when a hand's lead slot is reached, its own deck
    session has verified every shuffle, proof and strip, and the deal is read from the
    key reveals further on in the transcript (:meth:`DeckSession.hands_from_keys`; the
    keys are checked again, as usual, in their own slot).
    """

    def __init__(self, header: TranscriptHeader) -> None:
        super().__init__(None, header.roster_keys, header.table, config_from_header(header))
        self.header = header
        self._envelopes: tuple[bytes, ...] = ()

    def _new_engine(self, first_leader: int) -> Hand:
        assert self.seat_keys is not None and self.deck is not None
        keys: dict[int, int] = {}
        for envelope in self._envelopes:
            try:
                message = decode_envelope(envelope)
            except MessageError:
                continue  # the canonical replay blames it where it stands
            body = message.body
            if (body.table == self.table_id and body.hand == self.hand_no and isinstance(body.payload, KeyReveal)
                    and 0 <= body.sender < SEATS and body.sender not in keys
                    and verify_envelope(message, self.seat_keys[body.sender])):
                try:
                    keys[body.sender] = crypto.scalar_from_bytes(body.payload.key)
                except CryptoError as exc:
                    raise _Stop(body.sender, self.slot, f"deck key: {exc}") from None
        missing = [seat for seat in range(SEATS) if seat not in keys]
        if missing:
            raise _Stop(missing[0], self.slot, f"seat {missing[0]} never revealed its key for hand {self.hand_no}")
        try:
            dealt = self.deck.hands_from_keys(keys)
        except (KeyMismatch, CryptoError) as exc:
            raise _Stop(getattr(exc, "seat", None), self.slot, f"deck key: {exc}") from None
        hand = Hand([sum(1 << c for c in cards) for cards in dealt], self.lead_card, self.config.options)
        if hand.first_leader != first_leader:
            raise _Stop(first_leader, self.slot, f"seat {first_leader} showed a {self.lead_card} it was not dealt")
        return hand

    def audit(self, transcript, damage: str | None = None) -> "TableAudit":  # noqa: F821 (protocol.transcript)
        """Replay ``transcript``; ``damage``: why the file's records stop early (a damaged
        tail, e.g. a crash in the middle of a write), blamed where the intact records end."""
        from p2p_sasaki.protocol.transcript import KIND_ENVELOPE as ENVELOPE
        from p2p_sasaki.protocol.transcript import AuditBlame, TableAudit, _authentic

        self._envelopes = transcript.envelopes
        self.start()
        produced = [e.data for e in self.take_events() if isinstance(e, Record)]
        blame: AuditBlame | None = None
        for index, (kind, data) in enumerate(transcript.records):
            if kind == KIND_EVIDENCE:
                blame = blame or _evidence_blame(data, transcript.header, self.seat_keys)
                continue
            message = _authentic(data, transcript.header, self.seat_keys)
            if message is None:
                blame = blame or AuditBlame(None, -1, -1, f"record {index + 1} is not an authentic envelope "
                                            "of this table")
                break
            self._accept(message)
            self._outbox.clear()
            try:
                self._advance()
            except _Stop as stop:
                self._stop(stop.seat, stop.slot, stop.reason)
            while self.step():  # the shuffle proofs
                pass
            events = self.take_events()
            produced += [e.data for e in events if isinstance(e, Record)]
            if self.blame is not None:
                break
        if blame is None and self.blame is not None:
            b = self.blame
            blame = AuditBlame(b.seat, b.hand, b.slot, b.reason)
        if blame is None and damage is not None:
            blame = AuditBlame(None, self.hand_no, self.slot, f"{damage}; the records before it verify")
        if blame is None and not self.finished:
            waiting = self.waiting_for
            seat = waiting[0] if waiting else None
            blame = AuditBlame(seat, self.hand_no, self.slot,
                               f"the transcript stops at hand {self.hand_no} slot {self.slot}, waiting for "
                               f"seat(s) {', '.join(map(str, waiting)) or '?'}")
        if blame is None:
            expected = [encode_record(kind, data) for kind, data in transcript.records]
            canonical = produced[1:]
            if canonical != expected:
                first = next((i for i, (a, b) in enumerate(zip(canonical, expected)) if a != b),
                             min(len(canonical), len(expected)))
                blame = AuditBlame(None, -1, -1, f"record {first + 1} is not in canonical order (or is extra)")
        del ENVELOPE
        return TableAudit(tuple(self.dealt_hands), tuple(self.hand_scores), self.totals, blame,
                          complete=self.finished and self.blame is None)


def _evidence_blame(data: bytes, header: TranscriptHeader, seat_keys):
    from p2p_sasaki.protocol.transcript import AuditBlame, _authentic, decode_evidence

    a, b = decode_evidence(data)
    first, second = _authentic(a, header, seat_keys), _authentic(b, header, seat_keys)
    if first is None or second is None:
        return AuditBlame(None, -1, -1, "an evidence record holds an envelope that is not authentic")
    fa, fb = first.body, second.body
    if (fa.hand, fa.slot, fa.sender) != (fb.hand, fb.slot, fb.sender) or first.body_bytes == second.body_bytes:
        return AuditBlame(None, fa.hand, fa.slot, "an evidence record holds two unrelated envelopes")
    return AuditBlame(fa.sender, fa.hand, fa.slot, f"seat {fa.sender} signed two different messages for hand "
                      f"{fa.hand} slot {fa.slot} (equivocation)")
