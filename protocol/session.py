"""One peer's table: setup, the cards, every play agreed by slotted lockstep. Sans-IO.

Interface (docs/protocol.md, "Table")::

    session = TableSession(identity, roster_keys, table_id, TableConfig(...), rng)
    session.start()                                # my GENESIS signature (and the header record)
    session.receive(envelope, from_key)            # never raises
    while session.step(): ...                      # slow proof work, one piece at a time
    session.act(action)                            # my answer to session.pending_for_me
    send_to_every_peer(session.take_outgoing())    # my envelopes and relays
    handle(session.take_events())                  # Seated, HandStarted, ..., Record, Blame

The session is the slot machine only. The rules are the game's (protocol/game.py; the
config's game, e.g. Sasaki's, protocol/sasaki_game.py), the cards come from the table's dealer
(protocol/dealing.py: the mental-poker deck, the auditor's revealed keys, or a test dealer),
and the hashes are protocol/chain.py's.

Slots (per hand; every message is ``(hand, slot, sender)``, signed over ``prev``, the agreed
state hash before the slot):

  hand 0 (setup, sender = roster index, join order):
    slot 0  table/genesis      every member signs the roster hash
    slot 1  table/seat-commit  every member commits to a seating nonce
    slot 2  table/seat-nonce   every member reveals it; the seat order follows (seating_order)
  hand h >= 1 (sender = seat; seats are in turn order):
    slots 0 .. D-1   the card source's (the deck: SlotLayout with first=0, D = 3n+1); one
                     pipelined block: every such message's prev is the hash before the hand
    slot D           OPENING (if the game has an opening card): every seat answers
                     table/action; its holder "lead"s with the card's proven opening, the
                     others "decline"
    next slots       one slot per game decision: expected signers = the slot's seats, each a
                     table/action; the outcome is the game's function of the set of answers.
                     A HAND_OVER decision (a source slot the game asks for) takes the giver's
                     deck/hand-over (the position it hands), the next slot the receiver's layer
                     on it, the slot after the giver's strip of its own: the position is then
                     the receiver's lock and moves (the re-lock: docs/protocol.md, "Hand-over")
    next slot        CLOSE (if the source closes, as the deck does): every seat's deck/key;
                     then the full deal is replayed through the game and checked

What a driver must persist for crash safety (before sending what take_outgoing returns):
my envelopes of take_outgoing, every byte the session drew from ``rng``, and every Record
event; protocol/restore.py rebuilds the session from them (docs/protocol.md, "Resume").
:meth:`TableSession.export_secrets` shows my current secrets (they are in the drawn bytes).
"""

from __future__ import annotations

import copy
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from p2p_sasaki.protocol.abandon import AbandonRules
from p2p_sasaki.protocol.chain import chain_start, next_chain, roster_hash, seat_commitment, seating_order
from p2p_sasaki.protocol.config import TableConfig, dealer_of, game_of, header_of
from p2p_sasaki.protocol.crypto import Entropy, IdentityKey, system_entropy
from p2p_sasaki.protocol.dealing import (
    CardsDealt,
    CardSource,
    CardsShown,
    Dealer,
    DealUnknown,
    DeckJob,
    DeckUsageError,
    HandSetup,
    JobResult,
    SourceError,
    check_dealer,
)
from p2p_sasaki.protocol.events import (
    AbandonRejected,
    ActionApplied,
    Blame,
    BlameBasis,
    DealProgress,
    Dealt,
    DecisionPending,
    Event,
    HandAbandoned,
    HandEnded,
    HandStarted,
    MatchEnded,
    Penalty,
    PlayOver,
    Record,
    Seated,
    SeatLeft,
    SessionSecrets,
    Shown,
    Signed,
    SignedKind,
    VersionMismatch,
)
from p2p_sasaki.protocol.game import Applied, GameState, HiddenClaim, IllegalAnswer, Seating, Slot, SlotKind
from p2p_sasaki.protocol.hidden_rules import (
    FalseStatement,
    HiddenCard,
    HiddenRuleProof,
    Statement,
    no_follow,
    return_card,
)
from p2p_sasaki.protocol.hidden_rules import give as hidden_give
from p2p_sasaki.protocol.hidden_rules import nine_pictures as hidden_nine_pictures
from p2p_sasaki.protocol.intake import Intake
from p2p_sasaki.protocol.messages import (
    Abandon,
    Body,
    CardOpen,
    Genesis,
    HandOver,
    HandOverLock,
    HandOverStrip,
    KeyReveal,
    Leave,
    Payload,
    RuleClause,
    SeatCommit,
    SeatNonce,
    SignedMessage,
    TableAction,
    decode_envelope,
    seen_key,
    sign_envelope,
)
from p2p_sasaki.protocol.slots import Phase, Placement, Signers, rule_of
from p2p_sasaki.protocol.transcript import (
    KIND_ENVELOPE,
    KIND_EVIDENCE,
    KIND_HEADER,
    encode_evidence,
    encode_record,
)

__all__ = [
    "TableSession", "TableConfig", "SessionSecrets", "Seated", "HandStarted", "DealProgress", "Dealt",
    "DecisionPending", "ActionApplied", "HandEnded", "MatchEnded", "Record", "Blame", "Event",
    "seating_order", "game_of", "dealer_of", "header_of", "OPEN_VERB", "DECLINE_VERB", "HandAbandoned", "SeatLeft",
    "AbandonRejected", "VersionMismatch", "Phase", "Signed", "SignedKind",
]

OPEN_VERB = "lead"        # the opening slot's answers: the holder shows the opening card ...
DECLINE_VERB = "decline"  # ... and every other seat declines


def _indices(mask: int) -> list[int]:
    """The card indices of a mask, ascending."""
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


class _Stop(Exception):
    """Internal: a violation that stops the table."""

    def __init__(self, seat: int | None, slot: int, reason: str, basis: BlameBasis = BlameBasis.SIGNED,
                 hand: int | None = None) -> None:
        super().__init__(reason)
        self.seat, self.slot, self.reason, self.basis, self.hand = seat, slot, reason, basis, hand


@dataclass(frozen=True)
class _Kept:
    """The last game slot this peer completed with its own answer in it (any, for the audit's
    observer), kept until the next slot completes: the state before it, should a complete
    abandon of that slot name this seat silent (the others never got its answer; docs/protocol.md,
    "Answered and voted out": the seat returns to the slot)."""

    hand: int
    slot: int
    prev: bytes
    seats: tuple[int, ...]
    phase: Phase
    state: GameState | None
    opened: int
    opener: int | None
    played: int
    handing: tuple[int, int, HandOver] | None
    give_due: _GiveDue | None
    settle: tuple[int, list[Any] | None] | None


@dataclass(frozen=True)
class _GiveDue:
    """A give's proof, verified once the hand-over in the next slot names the position."""

    seat: int
    slot: int
    prev: bytes
    claim: HiddenClaim
    proof: tuple[RuleClause, ...]


class TableSession:
    """One peer's whole table, or with ``identity=None`` an observer that signs nothing
    (the audit, protocol/table_audit.py, with the :class:`~p2p_sasaki.protocol.dealing.RevealedKeys`
    dealer). ``game`` and ``dealer`` default to the config's (:func:`game_of`,
    :func:`dealer_of`); ``roster_names``: the members' names in roster order (none: each
    is called by its key)."""

    def __init__(self, identity: IdentityKey | None, roster_keys: Sequence[bytes], table_id: bytes,
                 config: TableConfig, rng: Entropy = system_entropy, *,
                 dealer: Dealer | None = None, roster_names: Sequence[str] = ()) -> None:
        self.game = game_of(config)
        seats = self.game.seats
        if len(roster_keys) != seats or len(set(roster_keys)) != seats or len(table_id) != 32:
            raise ValueError(f"a table has {seats} distinct public keys and a 32-byte table id")
        if config.hands < 1:
            raise ValueError("a match has at least one hand")
        if identity is not None and identity.public_key not in roster_keys:
            raise ValueError("my identity key is not in the roster")
        check_dealer(config.dealer, dealer)  # a trusted dealer outside the tests' seed, a board not at hand: refused
        self.dealer = dealer if dealer is not None else dealer_of(config)
        if self.dealer.name != config.dealer:
            raise ValueError("the dealer is not the one the config names")
        self.identity = identity
        self.roster_keys = tuple(bytes(k) for k in roster_keys)
        self.table_id = bytes(table_id)
        self.config = config
        self._rng = rng
        self.my_index = self.roster_keys.index(identity.public_key) if identity else None
        self.my_seat: int | None = None
        self._awaiting_deal = False   # a hand whose play is over waits for its deal (PlayOver)
        self.seat_keys: tuple[bytes, ...] | None = None
        self.carried: tuple[int, ...] = tuple(config.carried) or (0,) * seats   # a replaced seat's table
        self.totals: tuple[int, ...] = self.carried
        self.seat_names: tuple[str, ...] | None = None
        self.open_seats: dict[int, int] = {}   # open bot's seat -> its runner's seat (once seated)
        self.shown_hands: dict[int, int] = {}  # this hand's open seats' cards (masks), once shown
        self.open_bot_moves: dict[int, int] = {}   # open seat -> its moves checked against the rule
        self.finished = False
        self.blame: Blame | None = None

        self.header = header_of(self.table_id, self.roster_keys, config, roster_names)
        self.roster_names = self.header.roster_names  # in roster order (the names signed at GENESIS)
        self.roster_hash = roster_hash(self.header)
        self.chain = chain_start(self.header)
        self.hand_no = 0
        self.slot = 0
        self.phase = Phase.SETUP
        self.state: GameState | None = None
        self.source: CardSource | None = None
        self.hand_start = self.chain
        self.hand_scores: list[tuple[int, ...]] = []
        self.dealt_hands: list[tuple[tuple[int, ...], ...]] = []
        self.forfeits: list[int | None] = []   # by scored hand (as dealt_hands): the seat that forfeited it
        self.penalties: list[Penalty | None] = []   # by scored hand: a hidden-rule break the key reveal found
        self.finished_states: list[GameState] = []

        self._started = False
        self._seat_nonce: bytes | None = None
        self._seat_commits: dict[int, bytes] = {}
        self.intake = Intake(self.table_id)   # decoding, copies dropped by their bytes, signatures
        self._seen = self.intake.seen         # seen_key -> the first message (the abandon rules read it)
        self._evidence: set[tuple[Any, ...]] = set()
        self._pending: list[SignedMessage] = []
        self._got: dict[int, SignedMessage] = {}                    # current slot: sender -> message
        self._deck_got: dict[int, dict[int, SignedMessage]] = {}    # source slot -> sender -> message
        self._opened = 0                                            # cards opened this hand (mask)
        self._opener: int | None = None
        self._slots_played: list[tuple[int, list[tuple[int, Payload]]]] = []   # this hand's game slots:
        #   (slot, [(seat, payload)]), the raw payloads: the replay decodes them with the full deal
        self._handing: tuple[int, int, HandOver] | None = None     # the hand-over under way: its slot, giver, naming
        self._handed_to: dict[int, int] = {}    # this hand: seat -> the position last handed to it (a give-back's)
        self._give_due: _GiveDue | None = None   # a give's proof, checked with its hand-over in the next slot
        self._hashes: list[str] = []                                # hidden state hash after each
        self._my_cards: int | None = None
        self._settle: tuple[int, list[Any] | None] | None = None    # (refused slot, its answers): a settlement
        self._outbox: list[bytes] = []
        self._signed: list[Signed] = []
        self._events: deque[Event] = deque()
        self._jobs_out: dict[DeckJob, CardSource] = {}               # proof jobs handed out
        self.abandons = AbandonRules(seats)    # the abandon rules (protocol/abandon.py)
        self._hand_keys: dict[int, bytes] = {}  # this hand's recorded key reveals (KEYS slots, abandoned ones too)
        # this hand's abandoned game slot: (slot, its prev, silent, signers), and the silent seats
        # whose own answer of it is recorded (they answered and were voted out)
        self._abandoned_unit: tuple[int, bytes, tuple[int, ...], tuple[int, ...]] | None = None
        self._voted_out: set[int] = set()
        self._alone: _Kept | None = None          # the last slot, if one seat completed it alone
        self._parked: list[SignedMessage] = []     # the others' next slot, before their abandon of it is in
        self.abandoned_hands: list[HandAbandoned] = []

    @property
    def left(self) -> set[int]:
        """The seats that signed a leave notice (for the current hand)."""
        return self.abandons.left

    @property
    def _absent(self) -> frozenset[int]:
        return self.abandons.absent

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
        self._guarded(lambda: self._receive_and_advance(data))

    def replay(self, message: SignedMessage) -> None:
        """Take one message already decoded and verified (the audit's replay); never raises."""
        self._guarded(lambda: self._accept_and_advance(message))

    def step(self) -> bool:
        """One piece of slow crypto work (a shuffle proof); False if there is none."""
        if self.finished or self.source is None:
            return False
        worked = False

        def work() -> None:
            nonlocal worked
            assert self.source is not None
            worked = self.source.step()
            self._pump_source(self.slot)
            self._advance()

        self._guarded(work)
        return worked or self.finished

    def take_jobs(self) -> list[DeckJob]:
        """Hand out the hand's queued proof work (making my shuffle argument, verifying the
        others') as pure jobs, to run elsewhere (``deck.run_job``, e.g. on
        protocol/net/workers.ProofPool) instead of :meth:`step`. Give each result back with
        :meth:`finish_job`, in any order; keep receiving meanwhile."""
        if self.finished or self.source is None:
            return []
        source = self.source
        jobs = source.take_jobs()
        for job in jobs:
            self._jobs_out[job] = source
        return jobs

    def finish_job(self, job: DeckJob, result: JobResult) -> None:
        """Take a job's result (from :meth:`take_jobs`) and go on as :meth:`step` does; a
        result that comes back after the table stopped is dropped. Never raises for a job
        this session handed out."""
        source = self._jobs_out.pop(job, None)
        if source is None:
            raise DeckUsageError("finish_job takes a job this session handed out, once")
        if self.finished or source is not self.source:
            return

        def work() -> None:
            source.finish_job(job, result)
            self._pump_source(self.slot)
            self._advance()

        self._guarded(work)

    def act(self, action: Any) -> None:
        """Answer the decision pending for my seat; raises the game's own error
        (``Game.illegal``: a local error, nothing is signed)."""
        slot = self.pending_for_me
        if slot is None or self.state is None or self.my_seat is None or self.source is None:
            raise self.game.illegal("nothing is pending for my seat", self.my_seat)
        if action not in self.state.legal_actions(self.my_seat):
            raise self.game.illegal(f"{action} is not one of my legal answers now", self.my_seat)
        verb, cards = self.game.encode_action(action)
        if self.phase is Phase.HAND_OVER:   # the wire shows the position (and a return's proof), not the card
            game_slot = self.state.slot()
            assert game_slot is not None and game_slot.receiver is not None and len(cards) == 1
            named = self.source.hand_over(cards[0], game_slot.receiver)
            proof = self._prove(self.state.claim(action), (), named.position)
            self._sign(self.hand_no, self.slot, HandOver(named.position, named.to, proof), SignedKind.ANSWER)
            self._guarded(self._advance)
            return
        new = tuple(_indices(self.game.shows(action) & ~self._opened))
        opens = tuple(o for o in (self.source.prove_open(c) for c in new) if o is not None)
        proof = self._prove(self.state.claim(action), opens)
        self._sign(self.hand_no, self.slot, TableAction(verb, cards, opens, proof), SignedKind.ANSWER)
        self._guarded(self._advance)

    # -- hidden-card rules proven with the action (docs/protocol.md, "Hidden-card rules at the table")

    def _prove(self, claim: HiddenClaim | None, opens: Sequence[CardOpen],
               handing: int | None = None) -> tuple[RuleClause, ...]:
        """My proof of the rule my action owes (none: no claim, or a source without locks);
        ``handing``: the position a hand-over of mine names (a return's)."""
        assert self.source is not None and self.my_seat is not None
        if claim is None:
            return ()
        played = opens[0].position if opens else None
        locks = self.source.rule_locks(self.my_seat, played)
        if locks is None:
            return ()
        handed = handing
        if claim.rule == "return" and all(lock.position != handed for lock in locks):
            return ()   # not a hidden position of mine: every peer refuses the hand-over anyway
        if claim.rule == "give":   # the position of my one picture, which I hand over next
            handed = next((lock.position for lock in locks
                           if claim.cards >> (self.source.held_card(lock.position) or 0) & 1), None)
        statement = self._statement(claim, locks, handed)
        try:
            proof = self.source.prove_rule(self.slot, self._prev_for(self.hand_no, self.slot), statement)
        except FalseStatement as exc:
            raise self.game.illegal(f"my hidden cards break the rule ({claim.rule}): {exc}", self.my_seat) from exc
        return tuple(RuleClause.of(clause) for clause in proof.clauses)

    def _statement(self, claim: HiddenClaim, locks: Sequence[HiddenCard], handed: int | None) -> Statement:
        cards = _indices(claim.cards)
        if claim.rule == "give":
            given = next((lock for lock in locks if lock.position == handed), None)
            return hidden_give(given, [lock for lock in locks if lock.position != handed], cards, self.game.n_cards)
        if claim.rule == "no-follow":
            return no_follow(locks, cards)
        if claim.rule == "nine-pictures":   # the receiver's objection: it holds none of ``cards``
            return hidden_nine_pictures(locks, set(range(self.game.n_cards)) - set(cards), self.game.n_cards)
        if claim.rule == "return":
            returned = next((lock for lock in locks if lock.position == handed), None)
            if returned is None:
                raise ValueError("a return's position is not among the seat's hidden positions")
            return return_card(returned, cards)
        raise ValueError(f"no hidden-card rule {claim.rule!r} at the table")

    def _check_claim(self, seat: int, message: SignedMessage, claim: HiddenClaim | None) -> None:
        """A received action's proof of the rule it owes: a failed one names its seat; a give's
        waits for the position it hands over (:meth:`_check_give`)."""
        assert self.source is not None
        payload, slot = message.body.payload, message.body.slot
        assert isinstance(payload, TableAction)
        locks = self.source.rule_locks(seat) if claim is not None else None
        if locks is None or claim is None:
            if payload.proof:
                raise _Stop(seat, slot, f"seat {seat}'s action carries a hidden-card proof it does not owe")
            return
        if claim.rule == "give":
            self._give_due = _GiveDue(seat, slot, message.body.prev, claim, payload.proof)
            return
        self._verify_claim(seat, slot, message.body.prev, claim, self._statement(claim, locks, None), payload.proof)

    def _check_give(self, giver: int, position: int) -> None:
        """A give's proof, now that the position handed over is known (before it moves)."""
        due, self._give_due = self._give_due, None
        if due is None or self.source is None:
            return
        locks = self.source.rule_locks(due.seat)
        assert locks is not None
        if due.seat != giver:
            raise _Stop(giver, self.slot, f"seat {giver} hands over a card, but seat {due.seat} said give")
        self._verify_claim(due.seat, due.slot, due.prev, due.claim, self._statement(due.claim, locks, position),
                           due.proof)

    def _verify_claim(self, seat: int, slot: int, prev: bytes, claim: HiddenClaim, statement: Statement,
                      clauses: Sequence[RuleClause]) -> None:
        assert self.source is not None
        proof = HiddenRuleProof(tuple(clause.proof() for clause in clauses))
        if not self.source.verify_rule(seat, slot, prev, statement, proof):
            what = {"give": "the card it gives is its only one of",
                    "return": "the card it hands back is none of"}.get(claim.rule, "it holds none of")
            raise _Stop(seat, slot, f"seat {seat}'s proof that {what} {self.game.cards_name(claim.cards)} fails "
                        f"({claim.rule})")

    def take_outgoing(self) -> list[bytes]:
        out, self._outbox = self._outbox, []
        return out

    def take_signed(self) -> list[Signed]:
        """What I signed since the last call (each also in :meth:`take_outgoing`, in order):
        the driver saves these before sending and paces the opening slot's answer."""
        signed, self._signed = self._signed, []
        return signed

    def abandon(self, end: bool = False) -> bool:
        """Sign an abandon of the slot the table is stuck in (the whole deal while it is being
        dealt), naming the seats it waits for (never mine) as silent; ``end``: and end the match
        after this hand. Returns False if there is nothing to abandon (not seated, no hand
        going on, nobody else awaited) or I already signed one for this slot. The slot is
        closed as abandoned once every other present seat signed the same silent seats."""
        if self.identity is None or self.my_seat is None or self.finished or self.hand_no < 1:
            return False
        unit = self._unit()
        if self._i_abandoned():
            return False
        silent = self._silent_now()
        if not silent or not self.abandons.majority(silent):
            return False
        self._sign(unit[0], unit[1], Abandon(silent, end))
        self._guarded(self._advance)
        return True

    def why_no_abandon(self) -> str | None:
        """Why :meth:`abandon` would sign nothing now (one sentence that says what can be
        done instead), or None if it would sign."""
        if self.identity is None or self.my_seat is None or self.finished or self.hand_no < 1:
            return "there is no hand going on to abandon"
        if self._i_abandoned():
            return ("this seat already signed its abandon of this slot; it completes once every other present "
                    "seat signs it")
        silent = self._silent_now()
        if not silent:
            return "the table waits for nobody else"
        return self.abandons.why_not(silent)

    def _silent_now(self) -> tuple[int, ...]:
        return tuple(s for s in self.waiting_for if s != self.my_seat and s not in self._absent)

    def leave(self) -> bool:
        """Sign a leave notice (my player quit for good): the others are told at once and may
        abandon without waiting for the stall deadline. Returns False if not seated or over."""
        if self.identity is None or self.my_seat is None or self.finished or self.hand_no < 1:
            return False
        unit = self._unit()
        if (*unit, self.my_seat, Leave.TYPE) in self._seen:
            return False
        self._sign(unit[0], unit[1], Leave())
        return True

    def deal_ready(self) -> None:
        """The deal of a hand waiting after :class:`PlayOver` is known now (its board revealed):
        replay the hand with it and end it."""
        self._guarded(self._end_awaited_hand)

    def _end_awaited_hand(self) -> None:
        if not self._awaiting_deal or self.source is None or self.source.final_deal() is None:
            return
        self._awaiting_deal = False
        self._end_hand(self._replay())

    def take_events(self) -> list[Event]:
        events = list(self._events)
        self._events.clear()
        return events

    @property
    def waiting_for(self) -> tuple[int, ...]:
        if self.finished:
            return ()
        if self.phase is Phase.DECK and self.source is not None:
            return self.source.waiting_for()
        return tuple(s for s in self._expected() if s not in self._got)

    @property
    def pending_for_me(self) -> Any:
        """The game's decision my seat must answer now, or None. Also once I signed an abandon
        of this slot: an answer and an abandon of one slot are both allowed (docs/protocol.md,
        "Abandon"), and a seat that answered must send its answer (rule 2 still keeps me from
        completing the slot normally)."""
        slot = self._play_slot()
        if slot is None or self.my_seat is None:
            return None
        return slot.decision if self.my_seat in slot.seats and self.my_seat not in self._got else None

    @property
    def pending_slot(self) -> Slot | None:
        """The game's slot my seat must answer now (its kind and seats), or None: see
        :attr:`pending_for_me`."""
        return self._play_slot() if self.pending_for_me is not None else None

    @property
    def view(self) -> Any:
        if self.state is None or self.my_seat is None:
            return None
        return self.state.view(self.my_seat)

    @property
    def legal_actions(self) -> list[Any]:
        if self.pending_for_me is None or self.state is None or self.my_seat is None:
            return []
        return self.state.legal_actions(self.my_seat)

    def export_secrets(self) -> SessionSecrets:
        nonce, scalar, perm = self.source.secrets() if self.source is not None else (None, None, None)
        return SessionSecrets(self._seat_nonce, self.hand_no, nonce, scalar, perm)

    # -- receiving -----------------------------------------------------------------------

    def _guarded(self, work: Callable[[], None]) -> None:
        try:
            work()
        except _Stop as stop:
            self._stop(stop.seat, stop.slot, stop.reason, stop.hand, basis=stop.basis)
        except Exception as exc:  # a bug of ours: report, never crash the driver
            self._stop(None, self.slot, f"internal error: {type(exc).__name__}: {exc}")

    def _receive_and_advance(self, data: bytes) -> None:
        self._receive(data)
        self._advance()

    def _accept_and_advance(self, message: SignedMessage) -> None:
        self._accept(message)
        self._outbox.clear()
        self._signed.clear()
        self._advance()
        while not self.finished and self.source is not None and self.source.step():  # the shuffle proofs
            self._pump_source(self.slot)
            self._advance()

    def _keys_for(self, hand: int) -> tuple[bytes, ...] | None:
        return self.roster_keys if hand == 0 else self.seat_keys

    def _receive(self, data: bytes) -> None:
        admitted = self.intake.admit(data, self._keys_for, self.hand_no)
        if isinstance(admitted, SignedMessage):
            self._accept(admitted)
        elif admitted is not None:
            self._events.append(admitted)

    def _accept(self, message: SignedMessage) -> None:
        """An authentic message: equivocation check (the one place), relay the first copy, queue it."""
        body = message.body
        first = self.intake.remember(message)
        if first is not None:
            if first.body_bytes != message.body_bytes:
                self._equivocation(first, message)
            return
        self._outbox.append(message.raw)
        if self.finished:
            return
        if isinstance(body.payload, Abandon):
            self.abandons.note(message)
            self._abandoned_without_me(body.hand, body.slot)
        elif isinstance(body.payload, Leave):
            if body.hand == self.hand_no and body.sender != self.my_seat and body.sender not in self.left:
                self.left.add(body.sender)
                self._events.append(SeatLeft(body.sender, body.hand))
        else:
            self._pending.append(message)

    def _equivocation(self, first: SignedMessage, second: SignedMessage) -> None:
        body = first.body
        key = seen_key(body)
        if key in self._evidence:
            return
        self._evidence.add(key)
        self._outbox.extend([first.raw, second.raw])
        self._events.append(Record(encode_record(KIND_EVIDENCE, encode_evidence(first.raw, second.raw))))
        self._stop(body.sender, body.slot, f"seat {body.sender} signed two different messages for hand "
                   f"{body.hand} slot {body.slot}", body.hand, force=True)

    def _sign(self, hand: int, slot: int, payload: Payload, kind: SignedKind = SignedKind.PROTOCOL) -> None:
        assert self.identity is not None
        sender = self.my_index if hand == 0 else self.my_seat
        assert sender is not None
        envelope = sign_envelope(Body(self.table_id, hand, slot, sender, self._prev_for(hand, slot), payload),
                                 self.identity)
        self._signed.append(Signed(envelope, hand, slot, kind))
        self._accept(decode_envelope(envelope))

    def _prev_for(self, hand: int, slot: int) -> bytes:
        deck_slots = self.source.deck_slots if self.source is not None else 0
        return self.hand_start if hand >= 1 and slot < deck_slots else self.chain

    def _accept_own(self, envelopes: list[bytes]) -> None:
        """The card source's envelopes, signed with my key."""
        for envelope in envelopes:
            message = decode_envelope(envelope)
            self._signed.append(Signed(envelope, message.body.hand, message.body.slot, SignedKind.PROTOCOL))
            self._accept(message)

    def _stop(self, seat: int | None, slot: int, reason: str, hand: int | None = None, force: bool = False,
              basis: BlameBasis = BlameBasis.SIGNED) -> None:
        if self.finished and not force:
            return
        blame = Blame(seat, slot, reason, self.hand_no if hand is None else hand, basis)
        if self.blame is None:
            self.blame = blame
        self.finished = True
        self.phase = Phase.DONE
        self._events.append(blame)

    # -- the slot machine ----------------------------------------------------------------

    def _play_slot(self) -> Slot | None:
        """The game's slot a player answers now (a decision or a hand-over's giving)."""
        if self.phase in (Phase.RECEIPT, Phase.STRIP):
            return None
        return self._game_slot()

    def _game_slot(self) -> Slot | None:
        if self.finished or self.phase not in (Phase.PLAY, Phase.HAND_OVER, Phase.RECEIPT, Phase.STRIP) \
                or self.state is None:
            return None
        return self.state.slot()

    def _expected(self) -> tuple[int, ...]:
        """The current slot's signers (its rule's, protocol/slots.py)."""
        rule = rule_of(self.phase, self.slot)
        if rule is None:
            return ()
        if rule.signers is Signers.GAME_SLOT:
            slot = self._game_slot()
            return slot.seats if slot is not None else ()
        if rule.signers is Signers.RECEIVER:
            slot = self._game_slot()
            return (slot.receiver,) if slot is not None and slot.receiver is not None else ()
        return tuple(s for s in range(self.game.seats) if s not in self._absent)   # members: none absent

    def _advance(self) -> None:
        """Process every queued message that has become processable; complete slots."""
        progress = True
        while progress and not self.finished:
            progress = False
            for message in list(self._pending):
                where = self._place(message)
                if where is Placement.WAIT:
                    continue
                self._pending.remove(message)
                progress = True
                if where is Placement.DROP:
                    continue
                if where is Placement.SOURCE:
                    self._deck_message(message)
                else:
                    self._slot_message(message)
                if self.finished:
                    return
            if self._complete():
                progress = True

    def _place(self, message: SignedMessage) -> Placement:
        body = message.body
        if self.abandons.drops(body.hand, body.slot, body.sender):
            if self.identity is None:
                self._answered_and_voted_out(message)
            return Placement.DROP
        if (body.hand, body.slot) < (self.hand_no, self.slot if self.phase is not Phase.DECK else 0):
            raise _Stop(body.sender, body.slot, f"seat {body.sender} signed for hand {body.hand} slot "
                        f"{body.slot}, where it was not expected", BlameBasis.CHAIN)
        if body.hand != self.hand_no:
            return Placement.WAIT
        if self.phase is Phase.DECK:
            assert self.source is not None
            return Placement.SOURCE if body.slot < self.source.deck_slots else Placement.WAIT
        return Placement.SLOT if body.slot == self.slot else Placement.WAIT

    def _deck_message(self, message: SignedMessage) -> None:
        body = message.body
        assert self.source is not None
        if not self.source.accepts(body.payload):
            raise _Stop(body.sender, body.slot, f"a {body.type} message cannot be in deck slot {body.slot}")
        if body.prev != self.hand_start:
            self._forked(body.hand)
            if self._was_absent(body.sender, body.hand):
                return   # its own fork (rule 3 at its end): dropped, not blamed
            raise _Stop(body.sender, body.slot, f"seat {body.sender}'s prev is not the hash before the hand",
                        BlameBasis.CHAIN)
        self._deck_got.setdefault(body.slot, {})[body.sender] = message
        self.source.receive(message)
        self._pump_source(body.slot)

    def _slot_message(self, message: SignedMessage) -> None:
        body = message.body
        # the chain first: a message that does not fit the agreed chain says nothing about the
        # game state it was signed in (in a file: a record before it was altered or removed)
        if body.prev != self.chain:
            if self._park(message):
                return
            self._forked(body.hand)
            if self._was_absent(body.sender, body.hand):
                return   # its own fork (rule 3 at its end): dropped, not blamed
            raise _Stop(body.sender, body.slot, f"seat {body.sender}'s prev does not match the agreed state",
                        BlameBasis.CHAIN)
        if body.sender not in self._expected():
            raise _Stop(body.sender, body.slot, f"seat {body.sender} is not expected in slot {body.slot}")
        rule = rule_of(self.phase, self.slot)
        assert rule is not None   # a sender is expected only where a rule is
        if not isinstance(body.payload, rule.takes):
            raise _Stop(body.sender, body.slot, f"slot {body.slot} expects {rule.names}, not {body.type}")
        self._got[body.sender] = message
        if self.phase is Phase.CLOSE and not self._absent:   # after an abandon: the verdict checks the keys
            assert self.source is not None
            self.source.accept_close(message)
            self._pump_source(body.slot)

    def _pump_source(self, slot: int) -> None:
        source = self.source
        if source is None:
            return
        try:
            self._accept_own(source.take_outgoing())
            events = source.take_events()
        except SourceError as exc:
            raise _Stop(exc.seat, slot, exc.reason) from None
        for event in events:
            match event:
                case CardsDealt(cards=cards):
                    self._my_cards = cards
                    self._events.append(Dealt(self.hand_no, self.game.hand_of(cards)))
                case CardsShown(seat=seat, cards=cards):
                    self.shown_hands[seat] = cards
                    self._events.append(Shown(self.hand_no, seat, self.game.hand_of(cards)))
                case DealProgress():
                    self._events.append(event)

    def _deck_complete(self) -> bool:
        source = self.source
        if source is None or not source.ready():
            return False
        return all(set(self._deck_got.get(slot, {})) == source.expected(slot) for slot in range(source.deck_slots))

    def _complete(self) -> bool:
        """Complete the current slot if every expected message is in. Returns True if it did."""
        if self.hand_no >= 1 and self.phase is not Phase.DONE:
            if self._return_voted_out():
                return True
            if self._complete_abandon():
                return True
            if self._i_abandoned() and not self._overtaken():
                return False   # I signed its abandon: rule 2 of docs/protocol.md, "Abandon"
        if self.phase is Phase.DECK:
            if not self._deck_complete():
                return False
            assert self.source is not None
            for slot in range(self.source.deck_slots):
                self._close(slot, self._deck_got.get(slot, {}))
            self.slot = self.source.deck_slots
            self._begin_game()
            return True
        if self.phase is Phase.DONE or any(s not in self._got for s in self._expected()):
            return False
        if self.phase is Phase.CLOSE and not self._absent and (self.source is None
                                                               or self.source.final_deal() is None):
            return False
        got, slot = self._got, self.slot
        self._alone = self._alone_before(slot)
        after = self._outcome(got)
        self._close(slot, got)
        self._got = {}
        after()
        return True

    def _outcome(self, got: dict[int, SignedMessage]) -> Callable[[], None]:
        """What a complete slot of the current phase does (its rule: protocol/slots.py)."""
        outcomes = {Phase.SETUP: self._setup_outcome, Phase.OPENING: self._opening_outcome,
                    Phase.PLAY: self._play_outcome, Phase.HAND_OVER: self._hand_over_outcome,
                    Phase.RECEIPT: self._receipt_outcome, Phase.STRIP: self._strip_outcome,
                    Phase.CLOSE: self._close_outcome}
        return outcomes[self.phase](got)

    def _close(self, slot: int, got: dict[int, SignedMessage]) -> None:
        """Chain the slot and write its records, in sender order."""
        ordered = [got[s] for s in sorted(got)]
        self.chain = next_chain(self.chain, self.hand_no, slot, [m.body_bytes for m in ordered])
        for message in ordered:
            self._events.append(Record(encode_record(KIND_ENVELOPE, message.raw)))

    # -- setup -----------------------------------------------------------------------------

    def _setup_outcome(self, got: dict[int, SignedMessage]) -> Callable[[], None]:
        slot = self.slot
        if slot == 0:
            for member, message in got.items():
                payload = message.body.payload
                if not isinstance(payload, Genesis) or payload.roster_hash != self.roster_hash:
                    raise _Stop(member, slot, f"member {member} signed another roster", BlameBasis.CHAIN)
            if self.config.seats:      # fixed seating (a replaced seat's table): no draw
                fixed = tuple(self.config.seats)
                return lambda: self._seat(fixed)
            if self.game.seating is Seating.JOIN_ORDER:   # the game seats by join order: no draw
                joined = tuple(range(self.game.seats))
                return lambda: self._seat(joined)
            return lambda: self._setup_next(1)
        if slot == 1:
            self._seat_commits = {m: msg.body.payload.commitment for m, msg in got.items()
                                  if isinstance(msg.body.payload, SeatCommit)}
            return lambda: self._setup_next(2)
        nonces = []
        for member in range(self.game.seats):
            payload = got[member].body.payload
            assert isinstance(payload, SeatNonce)
            if seat_commitment(self.table_id, member, payload.nonce) != self._seat_commits[member]:
                raise _Stop(member, slot, f"member {member}'s seating nonce does not match its commitment")
            nonces.append(payload.nonce)
        order = self.game.seat_order(seating_order(self.table_id, nonces))
        return lambda: self._seat(order)

    def _setup_next(self, slot: int) -> None:
        self.slot = slot
        if self.identity is None or self.my_index is None:
            return
        if slot == 1:
            self._seat_nonce = self._rng(32)
            self._sign(0, 1, SeatCommit(seat_commitment(self.table_id, self.my_index, self._seat_nonce)))
        else:
            assert self._seat_nonce is not None
            self._sign(0, 2, SeatNonce(self._seat_nonce))

    def _seat(self, order: tuple[int, ...]) -> None:
        self.seat_keys = tuple(self.roster_keys[i] for i in order)
        self.seat_names = tuple(self.roster_names[i] for i in order)
        self.open_seats = {order.index(bot): order.index(runner) for bot, runner in self.config.bots}
        if self.my_index is not None:
            self.my_seat = order.index(self.my_index)
        self._events.append(Seated(self.seat_keys, self.my_seat, self.seat_names))
        unseated = self.intake.release()
        self._start_hand(1)
        for data in unseated:
            self._receive(data)

    # -- a hand ----------------------------------------------------------------------------

    def _start_hand(self, hand_no: int) -> None:
        self.hand_no, self.slot, self.phase = hand_no, 0, Phase.DECK
        self.hand_start = self.chain
        self.state = None
        self._deck_got, self._opened, self._slots_played, self._hashes = {}, 0, [], []
        self._handing = None
        self._handed_to = {}
        self._give_due = None
        self._opener = self._my_cards = None
        self.shown_hands = {}
        self._settle = None
        self.abandons.start_hand()
        self._hand_keys = {}
        self._abandoned_unit, self._voted_out, self._alone, self._parked = None, set(), None, []
        assert self.seat_keys is not None
        self.source = self.dealer.hand(HandSetup(
            self.my_seat, self.game.seats, self.game.n_cards, self.identity, self.seat_keys, self.table_id,
            hand_no, self._rng, lambda slot: self._prev_for(hand_no, slot), frozenset(self.open_seats),
        ))
        self._events.append(HandStarted(hand_no))
        self.source.start()
        self._pump_source(0)

    def _begin_game(self) -> None:
        """After the source's slots: the opening slot, or the game's first decision."""
        card = self.game.opening_card()
        if card is None:
            self._enter_play(self._make_state(None))
            return
        self.phase = Phase.OPENING
        if self.identity is None or self._my_cards is None or self.source is None:
            return
        if self._my_cards >> card & 1:
            opening = self.source.prove_open(card)
            self._sign(self.hand_no, self.slot, TableAction(OPEN_VERB, (card,), (opening,) if opening else ()),
                       SignedKind.OPENING)
        else:
            self._sign(self.hand_no, self.slot, TableAction(DECLINE_VERB, ()), SignedKind.OPENING)

    def _check_opens(self, seat: int, slot: int, payload: TableAction, cards: int) -> None:
        """The message opens exactly the action's cards not opened before, each proven (none
        at all if the source does not prove openings)."""
        assert self.source is not None
        new = cards & ~self._opened if self.source.proves else 0
        cards_opened = [o.card for o in payload.opens]
        if sum(1 << c for c in cards_opened) != new or len(cards_opened) != new.bit_count() \
                or cards_opened != sorted(cards_opened):
            opened = self.game.cards_name(new) if new else "no cards"
            raise _Stop(seat, slot, f"seat {seat}'s action must open exactly {opened}, in ascending card order")
        for opening in payload.opens:
            reason = self.source.accept_open(seat, opening)
            if reason is not None:
                raise _Stop(seat, slot, f"seat {seat}'s opening of card {opening.card}: {reason}")
        self._opened |= cards

    def _opening_outcome(self, got: dict[int, SignedMessage]) -> Callable[[], None]:
        slot, card = self.slot, self.game.opening_card()
        assert card is not None
        name = self.game.card_name(card)
        openers = []
        for seat in range(self.game.seats):
            payload = got[seat].body.payload
            assert isinstance(payload, TableAction)
            if payload.verb == OPEN_VERB and payload.cards == (card,):
                self._check_opens(seat, slot, payload, 1 << card)
                openers.append(seat)
            elif payload.verb != DECLINE_VERB or payload.cards or payload.opens:
                raise _Stop(seat, slot, f"seat {seat} must show the {name} or decline")
        if not openers and self.source is not None and self.source.closes:
            return lambda: self._settle_refusal(slot, None)  # its holder declined: the keys name it
        if len(openers) != 1:
            raise _Stop(None, slot, f"nobody showed the {name}: its holder declined (the key reveal names it)")
        opener = openers[0]
        state = self._make_state(opener)

        def after() -> None:
            self.slot += 1
            self._enter_play(state)

        return after

    def _make_state(self, opener: int | None) -> GameState:
        """The game's state: with the full deal where the source knows it (the audit), else
        with my cards and the open seats' (an observer that lacks the deal follows the game
        as the open bot sees it, so it still checks each of the bot's moves)."""
        assert self.source is not None
        slot = self.slot
        try:
            deal = self.source.known_deal()
        except DealUnknown as exc:
            if self.my_seat is not None or not self.shown_hands:
                raise _Stop(None, slot, exc.reason, BlameBasis.UNKNOWN_DEAL) from None
            deal = None
        except SourceError as exc:
            raise _Stop(exc.seat, slot, exc.reason) from None
        peer = self.my_seat
        if deal is None:
            hands: list[int | None] = [None] * self.game.seats
            if self.my_seat is not None:
                hands[self.my_seat] = self._my_cards
            elif self.shown_hands:
                peer = min(self.shown_hands)
            else:
                raise _Stop(None, slot, "an observer needs the deal to follow the game")
            for seat, cards in self.shown_hands.items():   # the open bots' hands: known to all
                hands[seat] = cards
        else:
            hands = list(deal)
            card = self.game.opening_card()
            if opener is not None and card is not None and not deal[opener] >> card & 1:
                raise _Stop(opener, slot, f"seat {opener} showed a {self.game.card_name(card)} it was not dealt")
        self._opener = opener
        try:
            context = self.game.hand_context(self.hand_no)
            if self.open_seats:
                return self.game.new_state(hands, opener, context, peer=peer if deal is None else None,
                                           open_seats=frozenset(self.open_seats))
            return self.game.new_state(hands, opener, context)
        except ValueError as exc:
            raise _Stop(opener, slot, str(exc)) from exc

    def _enter_play(self, state: GameState) -> None:
        self.state = state
        self._decide()

    def _play_outcome(self, got: dict[int, SignedMessage]) -> Callable[[], None]:
        state, slot = self.state, self.slot
        seats = self._expected()
        assert state is not None
        answers = []
        for seat in seats:
            payload = got[seat].body.payload
            assert isinstance(payload, TableAction)
            try:
                action = self.game.decode_action(seat, payload.verb, payload.cards)
            except IllegalAnswer as exc:
                raise _Stop(exc.seat, slot, exc.reason) from exc
            if seat in self.open_seats:
                self._check_open_bot(seat, slot, action, got)
            self._check_opens(seat, slot, payload, self.game.shows(action))
            self._check_claim(seat, got[seat], state.claim(action))
            answers.append(action)
        try:
            applied = state.apply(answers)
        except IllegalAnswer as exc:
            if exc.seat is None and self.source is not None and self.source.closes:
                return lambda: self._settle_refusal(slot, answers)  # a refused duty only the deal can name
            peer = self._as_a_peer_saw_it(exc, answers)
            if peer is None:
                raise _Stop(exc.seat, slot, exc.reason) from exc
            state, applied = peer
        self._slots_played.append((slot, [(seat, got[seat].body.payload) for seat in seats]))
        self._hashes.append(state.state_hash())
        for item in applied:
            self._events.append(ActionApplied(item.action, lead=item.lead))
        return self._next_decision

    def _as_a_peer_saw_it(self, exc: IllegalAnswer, answers: list[Any]) -> tuple[GameState, list[Applied]] | None:
        """The audit's observer follows a hand with the full deal; where a slot breaks a rule
        on hidden cards that the seats could not see (a game with a penalty for it), it goes on
        as the next seat's peer did (that seat's cards only, the hand replayed from its start,
        a hand-over's card known as that peer knew it), so that the key reveal's replay finds
        the break and scores the penalty as every peer did. None: not the observer, no
        penalty, or that peer refuses the slot too (a break every peer saw)."""
        if self.identity is not None or exc.seat is None or self.source is None or self.state is None:
            return None
        if self.game.penalty_scores(exc.seat) is None:
            return None
        deal = self.source.final_deal() or self.source.known_deal()
        if deal is None:
            return None
        peer = (exc.seat + 1) % self.game.seats
        hands: list[int | None] = [None] * self.game.seats
        hands[peer] = deal[peer]
        for seat, cards in self.shown_hands.items():   # the open bots' hands: known to all
            hands[seat] = cards
        try:
            context = self.game.hand_context(self.hand_no)
            state = (self.game.new_state(hands, self._opener, context, peer=peer, open_seats=frozenset(self.open_seats))
                     if self.open_seats else self.game.new_state(hands, self._opener, context))
            for k, (_, played) in enumerate(self._slots_played):
                state.apply(self._decoded(state, played, peer))
                if state.state_hash() != self._hashes[k]:
                    return None
            slot = state.slot()
            if slot is not None and slot.kind is SlotKind.HAND_OVER and peer not in (*slot.seats, slot.receiver) \
                    and self.source.proves:
                answers = [self.game.handed(slot.decision, slot.seats[0], None)]
            applied = state.apply(answers)
        except (IllegalAnswer, ValueError):
            return None
        self.state = state
        return state, applied

    def open_bot_answer(self, seat: int) -> Any:
        """The open bot's rule (docs/protocol.md, "Replace seat"): the answer the open bot at
        ``seat`` gives to the pending slot, a function of the public state (its hand is
        public) and the chain hash before the slot. None if it is not asked now."""
        slot = self._play_slot()
        if slot is None or seat not in self.open_seats or seat not in slot.seats or self.state is None:
            return None
        return self.game.open_bot_answer(self.state, seat, self.chain)

    def open_views(self) -> dict[int, Any]:
        """What each open seat sees now (``GameState.view``: its hand is public, "Bot's hand,
        open to all", so this is public too), while the hand is played; else empty."""
        if self.state is None or self.phase is not Phase.PLAY:
            return {}
        return {seat: self.state.view(seat) for seat in self.shown_hands}

    @property
    def rule_answer(self) -> Any:
        """My answer when my seat is an open bot and a decision is pending for it (the
        driver sends it, not a player's choice), else None."""
        if self.my_seat is None or self.pending_for_me is None:
            return None
        return self.open_bot_answer(self.my_seat)

    def _check_open_bot(self, seat: int, slot: int, action: Any, got: dict[int, SignedMessage]) -> None:
        """An open bot's answer must be its rule's: one that differs was steered, and the bot's
        runner (its key holder, named in the signed header) is blamed. The slot's signed answers
        are written first (the evidence: the audit's replay recomputes the rule and names the
        runner there), then the table stops."""
        rule = self.open_bot_answer(seat)
        if rule is not None and action == rule:
            self.open_bot_moves[seat] = self.open_bot_moves.get(seat, 0) + 1
        elif rule is not None:
            for sender in sorted(got):
                self._events.append(Record(encode_record(KIND_ENVELOPE, got[sender].raw)))
            runner = self.open_seats[seat]
            raise _Stop(runner, slot, f"seat {runner} runs the open bot in seat {seat}, which answered {action} "
                        f"where the open bot's rule answers {rule}: the runner steered it")

    def _next_decision(self) -> None:
        self.slot += 1
        self._decide()

    def _decide(self) -> None:
        assert self.state is not None and self.source is not None
        slot = self.state.slot()
        if slot is None:
            if self.source.closes:
                self.phase = Phase.CLOSE
                self.source.close(self.slot)
                self._pump_source(self.slot)
            else:
                self._awaiting_deal = True
                if self.source.final_deal() is None:   # a board's deal: read once every table is done
                    self.phase = Phase.CLOSE
                    self._events.append(PlayOver(self.hand_no, self.chain, self.state.scores()))
                else:
                    self._end_awaited_hand()
            return
        self.phase = Phase.HAND_OVER if slot.kind is SlotKind.HAND_OVER else Phase.PLAY
        self._events.append(DecisionPending(slot.decision, self.my_seat in slot.seats))

    # -- the hand-over: a source slot the game asks for (docs/protocol.md, "Hand-over") ------

    def _hand_over_outcome(self, got: dict[int, SignedMessage]) -> Callable[[], None]:
        """The giver names the position (checked by the source, with a return's proof and a
        give-back's position); the receiver adds its layer in the next slot."""
        game_slot, slot = self._game_slot(), self.slot
        assert game_slot is not None and game_slot.receiver is not None and self.source is not None
        assert self.state is not None
        (giver,) = game_slot.seats
        message = got[giver]
        payload = message.body.payload
        assert isinstance(payload, HandOver)
        if payload.to != game_slot.receiver:
            raise _Stop(giver, slot, f"seat {giver} handed a card to seat {payload.to}, not to seat "
                        f"{game_slot.receiver}")
        if game_slot.hands_back and payload.position != self._handed_to.get(giver):
            raise _Stop(giver, slot, f"seat {giver} hands back position {payload.position}, not the position "
                        f"{self._handed_to.get(giver)} it was handed")
        self._check_give(giver, payload.position)
        reason = self.source.accept_hand_over(giver, payload)
        if reason is not None:
            raise _Stop(giver, slot, f"seat {giver}'s hand-over: {reason}")
        self._check_hand_over_claim(giver, message, self.state.claim(self.game.handed(game_slot.decision, giver, None)))
        receiver = payload.to

        def after() -> None:
            assert self.source is not None
            self._handing = (slot, giver, payload)
            self.slot, self.phase = slot + 1, Phase.RECEIPT
            if self.identity is not None and self.my_seat == receiver:
                lock = self.source.relock()
                self._sign(self.hand_no, self.slot, HandOverLock(lock.value, lock.proof, self._objection(giver)))

        return after

    def _objection(self, giver: int) -> tuple[RuleClause, ...]:
        """As the receiver: the proof that my own hidden cards make this hand-over illegal
        (the game's ``objection`` claim), made exactly when the claim holds for my cards
        (none of my hidden positions holds one of its cards); else none."""
        game_slot = self._game_slot()
        assert game_slot is not None and self.source is not None and self.my_seat is not None
        claim = self.game.objection(game_slot.decision)
        locks = self.source.rule_locks(self.my_seat)
        if claim is None or not locks:
            return ()
        held = [self.source.held_card(lock.position) for lock in locks]
        if any(card is None or claim.cards >> card & 1 for card in held):
            return ()
        proof = self.source.prove_rule(self.slot, self._prev_for(self.hand_no, self.slot),
                                       self._statement(claim, locks, None))
        return tuple(RuleClause.of(clause) for clause in proof.clauses)

    def _check_hand_over_claim(self, giver: int, message: SignedMessage, claim: HiddenClaim | None) -> None:
        """A hand-over's proof of the rule it owes (a return: the card is not a picture), over
        the position it names, before the position moves; a failed one names the giver."""
        assert self.source is not None
        payload = message.body.payload
        assert isinstance(payload, HandOver)
        locks = self.source.rule_locks(giver) if claim is not None else None
        if locks is None or claim is None:
            if payload.proof:
                raise _Stop(giver, self.slot, f"seat {giver}'s hand-over carries a hidden-card proof it does not owe")
            return
        if all(lock.position != payload.position for lock in locks):
            raise _Stop(giver, self.slot, f"seat {giver} hands over position {payload.position}, which is not hidden")
        self._verify_claim(giver, self.slot, message.body.prev, claim, self._statement(claim, locks, payload.position),
                           payload.proof)

    def _receipt_outcome(self, got: dict[int, SignedMessage]) -> Callable[[], None]:
        """The receiver's layer on the position (its DLEQ names it if wrong); the giver strips
        its own in the next slot."""
        assert self._handing is not None and self.source is not None
        _, giver, payload = self._handing
        receiver, slot = payload.to, self.slot
        lock = got[receiver].body.payload
        assert isinstance(lock, HandOverLock)
        reason = self.source.accept_relock(receiver, lock)
        if reason is not None:
            raise _Stop(receiver, slot, f"seat {receiver}'s hand-over lock: {reason}")
        if lock.objection:
            return self._objected(got[receiver], giver)

        def after() -> None:
            assert self.source is not None
            self.slot, self.phase = slot + 1, Phase.STRIP
            if self.identity is not None and self.my_seat == giver:
                self._sign(self.hand_no, self.slot, self.source.strip_lock())

        return after

    def _objected(self, message: SignedMessage, giver: int) -> Callable[[], None]:
        """The receiver's objection (its proof that its own cards make the hand-over illegal):
        a proof that verifies names the giver, one that does not (or is not owed) the
        receiver; the lock is recorded first (it is the evidence)."""
        assert self._handing is not None and self.source is not None
        hand_over_slot = self._handing[0]
        lock = message.body.payload
        assert isinstance(lock, HandOverLock)
        receiver, slot = message.body.sender, self.slot
        game_slot = self._game_slot()
        assert game_slot is not None
        claim = self.game.objection(game_slot.decision)
        locks = self.source.rule_locks(receiver) if claim is not None else None
        if claim is None or locks is None:
            raise _Stop(receiver, slot, f"seat {receiver}'s hand-over lock carries an objection it cannot owe")
        self._verify_claim(receiver, slot, message.body.prev, claim, self._statement(claim, locks, None),
                           lock.objection)
        stop = _Stop(giver, hand_over_slot, f"seat {giver} handed a card to seat {receiver}, whose own cards forbid "
                     f"it: seat {receiver} proves it holds none of {self.game.cards_name(claim.cards)} "
                     f"({claim.rule})")

        def stopped() -> None:   # after the lock is recorded: its proof is the evidence
            raise stop

        return stopped

    def _strip_outcome(self, got: dict[int, SignedMessage]) -> Callable[[], None]:
        """The giver's strip (its DLEQ names it if wrong): the position is the receiver's lock
        and moves; the game applies the hand-over, its card known to the two seats only."""
        assert self._handing is not None and self.source is not None and self.state is not None
        hand_over_slot, giver, payload = self._handing
        game_slot = self._game_slot()
        assert game_slot is not None
        strip = got[giver].body.payload
        assert isinstance(strip, HandOverStrip)
        reason = self.source.accept_strip(giver, strip)
        if reason is not None:
            raise _Stop(giver, self.slot, f"seat {giver}'s hand-over strip: {reason}")
        action = self.game.handed(game_slot.decision, giver, self.source.handed_card(payload.position))
        try:
            applied = self.state.apply([action])
        except IllegalAnswer as exc:
            peer = self._as_a_peer_saw_it(exc, [action])
            if peer is None:
                raise _Stop(exc.seat, hand_over_slot, exc.reason) from exc
            applied = peer[1]
        self._handing = None
        self._handed_to[payload.to] = payload.position
        self._slots_played.append((hand_over_slot, [(giver, payload)]))
        self._hashes.append(self.state.state_hash())
        for item in applied:
            self._events.append(ActionApplied(item.action, lead=item.lead))
        return self._next_decision

    def _close_outcome(self, got: dict[int, SignedMessage]) -> Callable[[], None]:
        if self._absent:
            self._keep_keys(list(got.values()))
            slot = self.slot
            return lambda: self._abandon_verdict(slot)
        if self._settle is not None:
            return self._settlement_verdict  # after the keys are recorded: they are the evidence
        ended = self._replay()
        return lambda: self._end_hand(ended)

    # -- settlement: a hand that cannot go on because a seat refused a duty -------------------

    def _settle_refusal(self, slot: int, answers: list[Any] | None) -> None:
        """The refused slot is recorded; the hand is void, so every seat reveals its key for it
        (the source's close slot, as at the end of a hand) and the full deal names the seat
        that refused (:meth:`_settlement_verdict`). ``answers`` None: the opening card's holder
        declined; else the game could not resolve the slot without the hidden cards."""
        assert self.source is not None
        self._settle = (slot, answers)
        self.slot = slot + 1
        self.phase = Phase.CLOSE
        self.source.close(self.slot)
        self._pump_source(self.slot)

    def _settlement_verdict(self, known: Sequence[int] | None = None) -> None:
        """With the full deal (``known``: read by complement after an abandon, else the
        revealed keys'): the seat whose own signed answer refused its duty."""
        assert self.source is not None and self._settle is not None
        slot, answers = self._settle
        deal = tuple(known) if known is not None else self.source.final_deal()
        if deal is None:
            raise _Stop(None, slot, "the deal is not known after the settlement's key reveal")
        if answers is None:
            card = self.game.opening_card()
            assert card is not None
            holder = next((s for s, mask in enumerate(deal) if mask >> card & 1), None)
            raise _Stop(holder, slot, f"seat {holder} was dealt the {self.game.card_name(card)} and declined to show "
                        "it (the hand is void; the revealed keys show the deal)")
        try:
            full = self.game.new_state(deal, self._opener, self.game.hand_context(self.hand_no))
            for _, played in self._slots_played:
                full.apply(self._decoded(full, played))
            full.apply(answers)
        except ValueError as exc:
            raise _Stop(self._opener, slot, f"with the revealed deal: {exc}") from exc
        except IllegalAnswer as exc:
            raise _Stop(exc.seat, slot, f"with the revealed deal (the hand is void): {exc.reason}") from exc
        raise _Stop(None, slot, "the revealed deal shows no refusal in the slot the table could not resolve")

    # -- abandon: the present seats close a slot a silent seat holds up (docs/protocol.md, "Abandon")

    def _unit(self) -> tuple[int, int]:
        """What an abandon now closes: (hand, slot), slot 0 standing for the whole deal."""
        return self.hand_no, 0 if self.phase is Phase.DECK else self.slot

    def _i_abandoned(self) -> bool:
        """I signed an abandon of the current unit (rule 2: I then do not complete it normally)."""
        return self.my_seat is not None and (*self._unit(), self.my_seat, Abandon.TYPE) in self._seen

    def _unit_prev(self) -> bytes:
        return self.hand_start if self.phase is Phase.DECK else self.chain

    def _unit_waits_on(self) -> frozenset[int]:
        """The seats an abandon of the current unit may name silent."""
        if self.phase is Phase.DECK:
            return frozenset(range(self.game.seats)) - self._absent
        return frozenset(self._expected()) - self._absent

    def _key_in(self, seat: int) -> bool:
        """A KEYS slot's abandon counts only with its signer's own key reveal of the slot (it
        is recorded with it): every other unit's signer is always ready."""
        if self.phase is not Phase.CLOSE:
            return True
        message = self._got.get(seat)
        return message is not None and isinstance(message.body.payload, KeyReveal)

    def _complete_abandon(self) -> bool:
        """Close the current unit as abandoned if every present seat outside one silent set
        signed that set (rule 1). Invalid signatures are rejected, each with one sentence."""
        unit = self._unit()
        rejected, complete = self.abandons.complete(unit, self._unit_prev(), self._unit_waits_on(), self._key_in)
        for sender, reason in rejected:
            self._events.append(AbandonRejected(sender, reason))
        if complete is None:
            return False
        silent, signers = complete
        self._close_abandoned(unit, signers, silent)
        return True

    def _overtaken(self) -> bool:
        """Rule 2's exception (protocol/abandon.py, :meth:`AbandonRules.overtaken`)."""
        hand, slot = self._unit()
        assert self.my_seat is not None
        bound = (self.source.deck_slots - 1) if self.phase is Phase.DECK and self.source is not None else slot
        return self.abandons.overtaken((hand, slot), self.my_seat, bound, self._seen.values())

    def _abandoned_without_me(self, hand: int, slot: int) -> None:
        """Rule 3: a complete abandon of a slot this peer has already gone past names it silent
        (it was cut off while the others abandoned): this peer's chain forked; it stops, naming
        nobody."""
        if self.my_seat is not None and self.abandons.cut_off(hand, slot, self.my_seat, self._unit()):
            if self._rewind_of((hand, slot)) is not None:
                return   # my own turn, voted out: _complete returns to it
            raise _Stop(None, slot, f"the other seats abandoned hand {hand} slot {slot} while this seat was "
                        "cut off; this seat's table has gone on without it", BlameBasis.ABANDONED, hand)

    def _was_absent(self, seat: int, hand: int) -> bool:
        return self.abandons.was_absent(seat, hand)

    def _forked(self, hand: int) -> None:
        """Rule 3 before the whole abandon is here: a message that does not fit my chain while
        some abandon of an earlier slot names me silent stops me, naming nobody."""
        if self.my_seat is None:
            return
        named = self.abandons.named_silent_before(hand, self.my_seat, self._unit())
        if named is not None:
            raise _Stop(None, named[1], f"the other seats are abandoning hand {named[0]} slot {named[1]} while this "
                        "seat was cut off; this seat's table has gone on without it", BlameBasis.ABANDONED, named[0])

    def _close_abandoned(self, unit: tuple[int, int], signers: list[int], silent: tuple[int, ...]) -> None:
        """Rule 1's outcome, the same on every peer: the unit's records are, in signer order,
        the signers' key reveals (a KEYS slot only) and then their abandon signatures, chained
        on its prev; the hand is void."""
        hand, slot = unit
        was_deck, was_keys = self.phase is Phase.DECK, self.phase is Phase.CLOSE
        keys = [self._got[s] for s in signers] if was_keys else []
        messages = keys + [self.abandons.signed[unit][s] for s in signers]
        prev = self._unit_prev()
        self.chain = next_chain(prev, hand, slot, [m.body_bytes for m in messages])
        for message in messages:
            self._events.append(Record(encode_record(KIND_ENVELOPE, message.raw)))
        mine = self._got.get(self.my_seat) if self.my_seat is not None else None
        if self.phase in (Phase.OPENING, Phase.PLAY):
            self._abandoned_unit = (slot, prev, tuple(silent), tuple(signers))
            if mine is not None and self.my_seat in silent:
                self._answered_and_voted_out(mine)   # my own answer: the others voted me out
        self._keep_keys(keys)
        assert self.source is not None
        bound = self.source.deck_slots - 1 if was_deck else slot
        self.abandons.close(hand, slot, bound, silent, messages)
        self._got = {}
        self._pending = [m for m in self._pending if m.body.hand != hand or (
            m.body.slot > bound and m.body.sender not in self._absent)]
        names = ", ".join(f"S{s}" for s in sorted(self._absent))
        if was_deck or not self.source.strips_done():
            self._void_hand(None, f"stopped during the deal, waiting for {names}")
            return
        if not self.source.closes:   # a dealer that knows the deal (tests): no keys to reveal
            self._abandon_verdict(slot)
            return
        if was_keys:   # every signer's key is recorded with the abandon: settle from the hand's keys
            self._abandon_verdict(slot)
            return
        # the settlement's key slot: every present seat reveals its key for the void hand
        self.slot, self.phase = slot + 1, Phase.CLOSE
        if self.identity is not None and self.my_seat is not None and self.my_seat not in self._absent:
            key = self.source.my_key()
            if key is not None:
                self._sign(hand, self.slot, KeyReveal(key))

    def _answered_and_voted_out(self, message: SignedMessage) -> None:
        """A seat that the abandon of this hand's game slot named silent had signed its answer
        of that very slot (on the slot's prev): its own transcript records that answer right
        after the abandon records (issue 18, finding 7), and the hand's verdict says it answered
        and was voted out, not that it left. Only the seat's own session writes it (its answer);
        the audit accepts it where that transcript has it."""
        body = message.body
        unit = self._abandoned_unit
        if (unit is None or body.hand != self.hand_no or body.slot != unit[0] or body.prev != unit[1]
                or body.sender not in unit[2] or body.sender in self._voted_out
                or not isinstance(body.payload, TableAction)):
            return
        self._voted_out.add(body.sender)
        self._events.append(Record(encode_record(KIND_ENVELOPE, message.raw)))

    def _alone_before(self, slot: int) -> _Kept | None:
        """The state before a game slot (the opening or a decision) with my answer in it (any,
        for the audit's observer), kept until the next slot completes."""
        seats = self._expected()
        if self.phase not in (Phase.OPENING, Phase.PLAY) or (
                self.identity is not None and self.my_seat not in seats):
            return None
        return _Kept(self.hand_no, slot, self.chain, seats, self.phase, copy.deepcopy(self.state), self._opened,
                     self._opener, len(self._slots_played), self._handing, self._give_due, self._settle)

    def _rewind_of(self, unit: tuple[int, int]) -> _Kept | None:
        """The kept slot, if ``unit`` is it and this peer is still in the slot right after it
        (nothing else completed since)."""
        alone = self._alone
        if alone is None or (alone.hand, alone.slot) != unit or self._unit() != (alone.hand, alone.slot + 1):
            return None
        return alone

    def _names_silent(self, alone: _Kept) -> bool:
        """Some abandon of the kept slot names this seat (the observer: any of its seats) silent."""
        named = {self.my_seat} if self.my_seat is not None else set(alone.seats)
        return any(isinstance(m.body.payload, Abandon) and named & set(m.body.payload.silent)
                   for m in self.abandons.signed.get((alone.hand, alone.slot), {}).values())

    def _park(self, message: SignedMessage) -> bool:
        """A message of the slot after the kept one that does not fit my chain while an abandon
        of the kept slot names its seat silent: the others' next slot, chained on their abandon,
        here before the whole abandon is; held until then (rule 3 otherwise)."""
        body = message.body
        alone = self._rewind_of((body.hand, body.slot - 1))
        if alone is None or not self._names_silent(alone):
            return False
        self._parked.append(message)
        return True

    def _return_voted_out(self) -> bool:
        """Answered and voted out on its own turn (docs/protocol.md): a complete abandon of the
        kept slot, on its prev, names the seat that answered it alone silent. Its answer stays
        recorded; the peer returns to the slot (chain, state) and closes it as abandoned, its
        records right after that answer."""
        alone = self._alone
        if alone is None or self._rewind_of((alone.hand, alone.slot)) is None:
            return False
        unit = (alone.hand, alone.slot)
        if not self._names_silent(alone):
            return False
        waits_on = frozenset(alone.seats) - self._absent
        rejected, complete = self.abandons.complete(unit, alone.prev, waits_on, lambda _: True)
        for sender, reason in rejected:
            self._events.append(AbandonRejected(sender, reason))
        if complete is None or (self.my_seat is not None and self.my_seat not in complete[0]):
            return False
        silent, signers = complete
        self.chain, self.slot, self.phase, self.state = alone.prev, alone.slot, alone.phase, alone.state
        self._opened, self._opener, self._handing = alone.opened, alone.opener, alone.handing
        self._give_due, self._settle = alone.give_due, alone.settle
        del self._slots_played[alone.played:], self._hashes[alone.played:]
        self._got, self._alone = {}, None
        self._voted_out.update(silent)
        self._pending.extend(self._parked)
        self._parked = []
        self._close_abandoned(unit, signers, silent)
        return True

    def _gone(self, names: str) -> str:
        """Who is absent from the hand, in the verdict's words."""
        if not self._voted_out or self._abandoned_unit is None:
            return f"{names} left"
        slot, _, _, signers = self._abandoned_unit
        seats = ", ".join(f"S{s}" for s in sorted(self._voted_out))
        by = ", ".join(f"S{s}" for s in signers)
        return (f"{seats} answered hand {self.hand_no} slot {slot} and was voted out by {by} (its signed answer is "
                f"in this transcript; their abandon names it silent)")

    def _keep_keys(self, messages: Sequence[SignedMessage]) -> None:
        """Record key reveals of this hand's KEYS slots (the first of each seat counts)."""
        for message in messages:
            payload = message.body.payload
            if isinstance(payload, KeyReveal):
                self._hand_keys.setdefault(message.body.sender, payload.key)

    def _abandon_verdict(self, slot: int) -> None:
        """Every recorded key reveal of the hand is in (those of an abandoned KEYS slot too): the
        deal is theirs plus, for one seat without a key, the complement. A refusal pending
        settlement names its refuser from it, whoever else withholds; else the hand is scored
        (played out), forfeited (one seat absent) or void, the absent seats named as having left."""
        assert self.source is not None
        keys = dict(self._hand_keys)
        try:
            deal = self.source.partial_deal(keys)
        except SourceError as exc:
            raise _Stop(exc.seat, slot, exc.reason) from None
        full = None if any(mask is None for mask in deal) else tuple(int(mask or 0) for mask in deal)
        if self._settle is not None and full is not None:
            try:
                self._settlement_verdict(full)
            except _Stop as stop:
                if stop.seat is not None:
                    raise _Stop(stop.seat, stop.slot, f"{stop.reason}; its hand is read as the complement of the "
                                "others' revealed hands" if stop.seat not in keys else stop.reason) from None
        names = ", ".join(f"S{s}" for s in sorted(self._absent))
        if self._settle is None and full is not None and self.state is not None and self.state.slot() is None:
            # every play was made and agreed: the hand is scored, whoever withholds its key
            ended = self._replay(full)
            self._void_hand(deal, f"{self._gone(names)} at the key reveal of hand {self.hand_no}; the hand was played "
                            f"out and is scored, {names}'s cards read as the complement of the others'", ended)
            return
        if self._settle is None and full is not None and len(self._absent) == 1:
            # the seat knew its cards and fell silent (or quit): it forfeits the hand (docs/rules.md, "Forfeit")
            (seat,) = self._absent
            scores = self.game.forfeit_scores(seat)
            self.hand_scores.append(tuple(scores))
            self.totals = self.game.totals(self.carried, self.hand_scores)
            self.dealt_hands.append(tuple(tuple(_indices(mask)) for mask in full))
            self.forfeits.append(seat)
            self.penalties.append(None)
            forfeited = HandEnded(self.hand_no, tuple(scores), self.totals, None)
            self._void_hand(deal, f"{self._gone(names)} during hand {self.hand_no} after the deal and forfeits it"
                            if not self._voted_out else f"{self._gone(names)}; it forfeits the hand",
                            forfeited, forfeit=seat)
            return
        self._void_hand(deal, f"{self._gone(names)} during hand {self.hand_no}; the hand is void"
                        if not self._voted_out else f"{self._gone(names)}; the hand is void")

    def _void_hand(self, deal: tuple[int | None, ...] | None, reason: str,
                   ended: HandEnded | None = None, forfeit: int | None = None) -> None:
        event = HandAbandoned(self.hand_no, self.abandons.abandoned_at, tuple(sorted(self._absent)), deal,
                              self.abandons.end_after,
                              reason, scored=ended is not None, forfeit=forfeit)
        self.abandoned_hands.append(event)
        self._events.append(event)
        if ended is not None:
            self._events.append(ended)
        if self.abandons.end_after or self._match_over():
            self.phase, self.finished = Phase.DONE, True
            self._events.append(MatchEnded(self.totals))
            return
        self._start_hand(self.hand_no + 1)

    def _replay(self, known: tuple[int, ...] | None = None) -> HandEnded:
        """Replay the hand with the full deal (``known``: read by complement after an abandon);
        every slot must reproduce the agreed state."""
        assert self.source is not None
        slot, deal = self.slot, known if known is not None else self.source.final_deal()
        if deal is None:
            raise _Stop(None, slot, "the deal is not known at the end of the hand")
        try:
            full = self.game.new_state(deal, self._opener, self.game.hand_context(self.hand_no))
        except ValueError as exc:
            raise _Stop(self._opener, slot, f"with the revealed deal: {exc}") from exc
        penalty: Penalty | None = None
        scores: Sequence[int] = ()
        for k, (played_slot, played) in enumerate(self._slots_played):
            try:
                answers = self._decoded(full, played)
                full.apply(answers)
            except IllegalAnswer as exc:
                penalised = None if exc.seat is None else self.game.penalty_scores(exc.seat)
                if penalised is None or known is not None:
                    raise _Stop(exc.seat, played_slot, f"with the revealed deal: {exc}") from exc
                assert exc.seat is not None
                # a rule broken with hidden cards, found only now: the game's penalty, the match goes on
                penalty = Penalty(self.hand_no, exc.seat, played_slot, f"with the revealed deal: {exc.reason}")
                full.penalise(answers, exc.seat, exc.reason)
                scores = penalised
                break
            if full.state_hash() != self._hashes[k]:
                raise _Stop(None, played_slot, "the revealed deal does not reproduce the agreed state")
        else:
            ended = full.scores()
            if full.slot() is not None or ended is None:
                raise _Stop(None, slot, "the revealed deal does not end the hand")
            scores = ended
        self.hand_scores.append(tuple(scores))
        self.totals = self.game.totals(self.carried, self.hand_scores)
        self.dealt_hands.append(tuple(tuple(_indices(mask)) for mask in deal))
        self.forfeits.append(None)
        self.penalties.append(penalty)
        self.finished_states.append(full)
        return HandEnded(self.hand_no, tuple(scores), self.totals, full.outcome(), penalty)

    def _decoded(self, full: GameState, played: list[tuple[int, Payload]], peer: int | None = None) -> list[Any]:
        """A played slot's raw payloads as the game's actions, with the full deal: a hand-over's
        card (hidden when it was played) is read from the source once the keys are known
        (``peer``: as that seat's peer knew it, hidden unless it gave or received it)."""
        answers = []
        for seat, payload in played:
            if isinstance(payload, HandOver):
                slot = full.slot()
                card = self.source.card_at(payload.position) if self.source is not None else None
                if peer is not None and slot is not None and peer not in (seat, slot.receiver) \
                        and self.source is not None and self.source.proves:
                    answers.append(self.game.handed(slot.decision, seat, None))
                    continue
                if slot is None or card is None:
                    raise IllegalAnswer(seat, f"seat {seat}'s hand-over of position {payload.position} cannot be "
                                        "read with the revealed deal")
                answers.append(self.game.handed(slot.decision, seat, card))
            else:
                assert isinstance(payload, TableAction)
                answers.append(self.game.decode_action(seat, payload.verb, payload.cards))
        return answers

    def _end_hand(self, ended: HandEnded) -> None:
        self._events.append(ended)
        if self._match_over():
            self.phase, self.finished = Phase.DONE, True
            self._events.append(MatchEnded(self.totals))
            return
        self._start_hand(self.hand_no + 1)

    def _match_over(self) -> bool:
        """The game's rule (after this hand): e.g. Sasaki's, the table's count of hands."""
        return self.game.match_over(self.hand_no, self.config.hands, self.totals)
