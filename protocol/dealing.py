"""Where a hand's cards come from: the seam between the session and the deck.

A :class:`Dealer` (one per table, named by the transcript header's ``dealer`` field) gives
each hand a :class:`CardSource`. The session (protocol/session.py) asks the source for its
own slots at the start of the hand (the deck's pipelined block), for the card openings that
prove an action's cards, for a private hand-over in the middle of the hand when the game
asks for one (``hand_over``, ``relock``, ``strip_lock`` and their ``accept_``: the re-lock,
docs/protocol.md, "Hand-over"), and for the deal once the hand is over (``card_at`` reads a
position's card from the keys, for the replay); it never reaches inside.

  :class:`MentalPokerDeck`  the real one: protocol/deck.py's DeckSession (``dealer`` b"")
  :class:`RevealedKeys`     the auditor's: the same deck, and the deal read in advance from
                            the transcript's key reveals (the audit replays the game with it)
  :class:`TrustedDealer`    tests and benchmarks only: the deal is a function of a public
                            seed in the header (``dealer`` = the seed), so anyone can see it.
                            No command chooses it; peers and the audit refuse a header whose
                            dealer does not start with :data:`TEST_DEALER_PREFIX`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from p2p_sasaki.protocol import crypto
from p2p_sasaki.protocol.crypto import CryptoError, Entropy, IdentityKey, SeededEntropy, u32
from p2p_sasaki.protocol.deck import (
    DealtLayers,
    DeckJob,
    DeckSession,
    DeckUsageError,
    HandDealt,
    HandIdAgreed,
    HandShown,
    JobResult,
    KeyMismatch,
    ShuffleAccepted,
    ShuffleVerified,
    Violation,
)
from p2p_sasaki.protocol.events import DealProgress
from p2p_sasaki.protocol.hidden_rules import HiddenCard, HiddenRuleProof, RuleContext, Statement
from p2p_sasaki.protocol.hidden_rules import prove as prove_rule
from p2p_sasaki.protocol.hidden_rules import verify as verify_rule
from p2p_sasaki.protocol.messages import (
    CardOpen,
    DeckCommit,
    DeckNonce,
    HandOver,
    HandOverLock,
    HandOverStrip,
    KeyReveal,
    MessageError,
    Payload,
    ShuffleHop,
    ShuffleProof,
    SignedMessage,
    StripRound,
    decode_envelope,
    verify_envelope,
)

__all__ = [
    "TEST_DEALER_PREFIX", "BOARD_DEALER_PREFIX", "HandSetup", "CardsDealt", "CardsShown", "SourceError",
    "CardSource", "Dealer", "MentalPokerDeck", "RevealedKeys", "TrustedDealer", "check_dealer", "DealUnknown",
    "DeckJob", "JobResult", "DeckUsageError",
]

TEST_DEALER_PREFIX = b"p2p-sasaki/test-dealer/"
_DEALS = b"deals/"


class SourceError(Exception):
    """The cards' source found a violation: ``seat`` to blame (None: nobody can be named)."""

    def __init__(self, seat: int | None, reason: str) -> None:
        super().__init__(reason)
        self.seat, self.reason = seat, reason


class DealUnknown(SourceError):
    """An observer's source cannot tell the deal: the key reveals of ``missing`` seats are
    not in the transcript (it stops before the hand's KEYS slot). Nobody is blamed for it."""

    def __init__(self, missing: tuple[int, ...], reason: str) -> None:
        super().__init__(None, reason)
        self.missing = missing


BOARD_DEALER_PREFIX = b"p2p-sasaki/board/"


def check_dealer(dealer: bytes, given: Dealer | None = None) -> None:
    """Raise ValueError unless ``dealer`` names the mental-poker deck (b""), a test dealer, or a
    tournament board (:data:`BOARD_DEALER_PREFIX` + its hash) whose data is at hand: ``given``
    is that board's dealer (protocol/board_dealer.py), with the same name."""
    if dealer.startswith(BOARD_DEALER_PREFIX):
        if given is None or given.name != dealer:
            raise ValueError("the table plays a tournament board's deal: it needs that board's messages")
        return
    if dealer and not dealer.startswith(TEST_DEALER_PREFIX):
        raise ValueError("the table names a trusted dealer that is not the tests' seeded one: refused")


@dataclass(frozen=True)
class HandSetup:
    """What a hand's source is given. ``prev_for_slot(slot)``: the chain hash a message of
    one of the source's slots signs over (the hash before the hand)."""

    my_seat: int | None
    seats: int
    n_cards: int
    identity: IdentityKey | None
    seat_keys: tuple[bytes, ...]
    table_id: bytes
    hand_no: int
    rng: Entropy
    prev_for_slot: Callable[[int], bytes]
    shown: frozenset[int] = frozenset()   # the open seats (a bot in an empty seat): their hands are shown to all


@dataclass(frozen=True)
class CardsDealt:
    """My cards (a mask) are known."""

    cards: int


@dataclass(frozen=True)
class CardsShown:
    """An open seat's cards (a mask) are known to every peer."""

    seat: int
    cards: int


SourceEvent = DealProgress | CardsDealt | CardsShown


class CardSource(Protocol):
    """One hand's cards, as the session sees them (see the module docstring)."""

    deck_slots: int      # slots 0 .. deck_slots-1 of the hand are the source's (0: none)
    proves: bool         # an action must carry a proven opening of each card it shows
    closes: bool         # a closing slot (every seat's key reveal) ends the hand

    def start(self) -> None: ...
    def accepts(self, payload: Payload) -> bool: ...
    def expected(self, slot: int) -> frozenset[int]: ...
    def receive(self, message: SignedMessage) -> None: ...
    def step(self) -> bool: ...
    def take_jobs(self) -> list[DeckJob]: ...
    def finish_job(self, job: DeckJob, result: JobResult) -> None: ...
    def take_outgoing(self) -> list[bytes]: ...
    def take_events(self) -> list[SourceEvent]: ...
    def ready(self) -> bool: ...
    def my_cards(self) -> int | None: ...
    def waiting_for(self) -> tuple[int, ...]: ...
    def prove_open(self, card: int) -> CardOpen | None: ...
    def accept_open(self, seat: int, opening: CardOpen) -> str | None: ...
    def known_deal(self) -> tuple[int, ...] | None: ...
    def close(self, slot: int) -> None: ...
    def accept_close(self, message: SignedMessage) -> None: ...
    def final_deal(self) -> tuple[int, ...] | None: ...
    def strips_done(self) -> bool: ...
    def my_key(self) -> bytes | None: ...
    def partial_deal(self, keys: dict[int, bytes]) -> tuple[int | None, ...]: ...
    def secrets(self) -> tuple[bytes | None, int | None, tuple[int, ...] | None]: ...
    # the private hand-over (docs/protocol.md, "Hand-over"): three source slots the game asks
    # for: the giver names the position, the receiver adds its layer, the giver strips its own
    def hand_over(self, card: int, to: int) -> HandOver: ...
    def accept_hand_over(self, giver: int, message: HandOver) -> str | None: ...
    def relock(self) -> HandOverLock: ...
    def accept_relock(self, receiver: int, message: HandOverLock) -> str | None: ...
    def strip_lock(self) -> HandOverStrip: ...
    def accept_strip(self, giver: int, message: HandOverStrip) -> str | None: ...
    def handed_card(self, position: int) -> int | None: ...
    def held_card(self, position: int) -> int | None: ...
    def card_at(self, position: int) -> int | None: ...
    # hidden-card rules proven with the action (protocol/hidden_rules.py; docs/protocol.md,
    # "Hidden-card rules at the table"): None / no proof where the source proves none
    def rule_locks(self, seat: int, without: int | None = None) -> tuple[HiddenCard, ...] | None: ...
    def position_of(self, card: int) -> int | None: ...
    def position_lock(self, position: int) -> HiddenCard: ...
    def prove_rule(self, slot: int, prev: bytes, statement: Statement) -> HiddenRuleProof: ...
    def verify_rule(self, seat: int, slot: int, prev: bytes, statement: Statement, proof: HiddenRuleProof) -> bool: ...


class Dealer(Protocol):
    """A table's source of cards: one :class:`CardSource` per hand."""

    @property
    def name(self) -> bytes:
        """The transcript header's ``dealer`` field."""

    def hand(self, setup: HandSetup) -> CardSource: ...


def _masks(hands: Sequence[Sequence[int]]) -> tuple[int, ...]:
    return tuple(sum(1 << c for c in cards) for cards in hands)


# ---------------------------------------------------------------------------------------
# The mental-poker deck
# ---------------------------------------------------------------------------------------


class DeckSource:
    """A hand's cards from protocol/deck.py (``reveals``: the auditor's key reveals of this
    hand, read ahead from the transcript; ``from_keys``: the auditor holds every seat's key,
    so each hop is checked from its key in the key slot and no shuffle argument is verified)."""

    proves = True
    closes = True

    def __init__(self, setup: HandSetup, proofs: bool, reveals: tuple[SignedMessage, ...] | None = None,
                 from_keys: bool = False, dealt_layers: DealtLayers | None = None) -> None:
        self.setup = setup
        self.proofs = proofs
        self.deck = DeckSession(
            setup.my_seat, setup.seats, setup.n_cards, setup.identity, setup.seat_keys, setup.table_id,
            setup.hand_no, rng=setup.rng, proofs=proofs, first_slot=0, prev_for_slot=setup.prev_for_slot,
            defer_shuffle_arguments=from_keys, shown=setup.shown, dealt_layers=dealt_layers,
        )
        self.layout = self.deck.layout
        self.deck_slots = self.layout.end
        self._reveals = reveals
        self._my_cards: int | None = None
        self._out: list[bytes] = []
        self._proven: set[int] = set()   # the hops whose proof is checked: they finish in any order
        self._gave: dict[int, int] = {}      # positions I handed over -> their cards
        self._keys: dict[int, int] = {}      # keys known ahead (the auditor's reveals, a settlement's)

    def start(self) -> None:
        if self.setup.my_seat is not None:
            self._out += self.deck.start()

    def accepts(self, payload: Payload) -> bool:
        return isinstance(payload, (DeckCommit, DeckNonce, ShuffleHop, ShuffleProof, StripRound))

    def expected(self, slot: int) -> frozenset[int]:
        return self.layout.senders(slot, self.proofs)

    def receive(self, message: SignedMessage) -> None:
        self.deck.receive_verified(message)

    def step(self) -> bool:
        return self.deck.step()

    def take_jobs(self) -> list[DeckJob]:
        return self.deck.take_jobs()

    def finish_job(self, job: DeckJob, result: JobResult) -> None:
        self.deck.finish_job(job, result)

    def take_outgoing(self) -> list[bytes]:
        out, self._out = self._out + self.deck.take_outgoing(), []
        return out

    def take_events(self) -> list[SourceEvent]:
        events: list[SourceEvent] = []
        n = self.setup.seats
        for event in self.deck.take_events():
            match event:
                case Violation(seat=seat, step=step, reason=reason):
                    raise SourceError(seat, f"deck {step}: {reason}")
                case HandIdAgreed():
                    events.append(DealProgress("hand-id", 1, 1))
                case ShuffleAccepted(hop=hop):
                    events.append(DealProgress("shuffle", hop + 1, n))
                case ShuffleVerified(hop=hop):
                    self._proven.add(hop)      # a count, not the hop's number: "3 of 4" came last
                    events.append(DealProgress("proof", len(self._proven), n))
                case HandDealt(cards=cards):
                    self._my_cards = sum(1 << c for c in cards)
                    events.append(DealProgress("deal", 1, 1))
                    events.append(CardsDealt(self._my_cards))
                case HandShown(seat=seat, cards=cards):
                    events.append(CardsShown(seat, sum(1 << c for c in cards)))
        return events

    def ready(self) -> bool:
        return (self.deck.deal_verified and self.deck.shown_done
                and (self.deck.seat is None or self.deck.hand is not None))

    def my_cards(self) -> int | None:
        return self._my_cards

    def waiting_for(self) -> tuple[int, ...]:
        return tuple(sorted({seat for seat, _ in self.deck.waiting_for()}))

    def prove_open(self, card: int) -> CardOpen | None:
        return self.deck.prove_open(card)

    def accept_open(self, seat: int, opening: CardOpen) -> str | None:
        return self.deck.accept_open(seat, opening)

    def known_deal(self) -> tuple[int, ...] | None:
        """The auditor's deal, read from the key reveals further on in the transcript (each
        key is checked again, as usual, in its own slot)."""
        if self._reveals is None:
            return None
        setup, keys = self.setup, {}
        for message in self._reveals:
            body = message.body
            if (body.table == setup.table_id and body.hand == setup.hand_no and isinstance(body.payload, KeyReveal)
                    and 0 <= body.sender < setup.seats and body.sender not in keys
                    and verify_envelope(message, setup.seat_keys[body.sender])):
                try:
                    keys[body.sender] = crypto.scalar_from_bytes(body.payload.key)
                except CryptoError as exc:
                    raise SourceError(body.sender, f"deck key: {exc}") from None
        missing = [seat for seat in range(setup.seats) if seat not in keys]
        if len(missing) == 1 and self.deck.deal_verified:   # an abandoned hand: the complement
            try:
                hands = self.deck.hands_from_some_keys(keys)
            except KeyMismatch as exc:
                raise SourceError(exc.seat, f"deck key: {exc}") from None
            self._keys = dict(keys)
            return tuple(_masks([hand])[0] for hand in hands if hand is not None)
        if missing:
            raise DealUnknown(tuple(missing), f"the transcript holds no key reveal of seat(s) "
                              f"{', '.join(map(str, missing))} for hand {setup.hand_no}")
        try:
            dealt = _masks(self.deck.hands_from_keys(keys))
            self._keys = dict(keys)
            return dealt
        except KeyMismatch as exc:
            raise SourceError(exc.seat, f"deck key: {exc}") from None
        except CryptoError as exc:
            raise SourceError(None, f"deck key: {exc}") from None

    def close(self, slot: int) -> None:
        if self.setup.my_seat is not None:
            self._out += self.deck.reveal_key(slot)

    def accept_close(self, message: SignedMessage) -> None:
        self.deck.receive_verified(message)

    def final_deal(self) -> tuple[int, ...] | None:
        return None if self.deck.hands is None else _masks(self.deck.hands)

    def strips_done(self) -> bool:
        return self.deck.deal_verified

    def my_key(self) -> bytes | None:
        scalar = self.deck.secrets()[1]
        return None if scalar is None else crypto.scalar_bytes(scalar)

    def partial_deal(self, keys: dict[int, bytes]) -> tuple[int | None, ...]:
        """The dealt cards (masks) that some seats' keys show; with one key missing, that
        seat's hand is the complement (:meth:`DeckSession.hands_from_some_keys`)."""
        try:
            scalars = {seat: crypto.scalar_from_bytes(key) for seat, key in keys.items()}
        except CryptoError as exc:
            raise SourceError(None, f"deck key: {exc}") from None
        try:
            hands = self.deck.hands_from_some_keys(scalars)
        except KeyMismatch as exc:
            raise SourceError(exc.seat, f"deck key: {exc}") from None
        self._keys = scalars
        return tuple(None if hand is None else _masks([hand])[0] for hand in hands)

    def secrets(self) -> tuple[bytes | None, int | None, tuple[int, ...] | None]:
        return self.deck.secrets()

    def hand_over(self, card: int, to: int) -> HandOver:
        message = self.deck.hand_over(card, to)
        self._gave[message.position] = card
        return message

    def accept_hand_over(self, giver: int, message: HandOver) -> str | None:
        return self.deck.accept_hand_over(giver, message)

    def relock(self) -> HandOverLock:
        return self.deck.relock()

    def accept_relock(self, receiver: int, message: HandOverLock) -> str | None:
        return self.deck.accept_relock(receiver, message)

    def strip_lock(self) -> HandOverStrip:
        return self.deck.strip_lock()

    def accept_strip(self, giver: int, message: HandOverStrip) -> str | None:
        return self.deck.accept_strip(giver, message)

    def handed_card(self, position: int) -> int | None:
        """The card of a hand-over just completed, where this peer may know it: the giver, the
        receiver, an auditor that holds the keys; else None."""
        if position in self._gave:
            return self._gave[position]
        held = self.deck.held_card(position)
        if held is not None or self.setup.my_seat is not None:
            return held
        return self.card_at(position)

    def held_card(self, position: int) -> int | None:
        return self.deck.held_card(position)

    def card_at(self, position: int) -> int | None:
        """The card at a position once keys are known (the revealed ones, or those read ahead)."""
        return self.deck.card_at(position, {**self._keys, **self.deck.revealed_keys})

    def rule_locks(self, seat: int, without: int | None = None) -> tuple[HiddenCard, ...] | None:
        """The locks of ``seat``'s hidden positions, all under its own key: held by it (dealt
        to it, or re-locked to it by a hand-over), not opened (``without``: the position its
        action opens now)."""
        deck = self.deck
        return tuple(self.position_lock(k) for k in range(deck.n_cards)
                     if deck.holder(k) == seat and not deck.is_opened(k) and k != without)

    def position_of(self, card: int) -> int | None:
        return self.deck.position_of(card)

    def position_lock(self, position: int) -> HiddenCard:
        return HiddenCard(position, *self.deck.position_lock(position))

    def _rule_context(self, slot: int, seat: int, prev: bytes) -> RuleContext:
        assert self.deck.hand_id is not None
        return RuleContext(self.setup.table_id, self.deck.hand_id, slot, seat, prev)

    def prove_rule(self, slot: int, prev: bytes, statement: Statement) -> HiddenRuleProof:
        seat = self.setup.my_seat
        assert seat is not None
        x = self.deck.rule_secret()
        return prove_rule(self._rule_context(slot, seat, prev), statement, self.deck.card_points,
                          {clause.key: x for clause in statement.clauses}, self.setup.rng)

    def verify_rule(self, seat: int, slot: int, prev: bytes, statement: Statement, proof: HiddenRuleProof) -> bool:
        return verify_rule(self._rule_context(slot, seat, prev), statement, self.deck.card_points, proof)


@dataclass(frozen=True)
class MentalPokerDeck:
    """The real dealer: every hand is dealt by the peers' mental-poker deck."""

    proofs: bool = True
    name: bytes = b""

    def hand(self, setup: HandSetup) -> DeckSource:
        return DeckSource(setup, self.proofs)


@dataclass(frozen=True)
class RevealedKeys:
    """The auditor's dealer: the same deck, verified step by step, and the deal read from the
    transcript's key reveals when the game needs it (``reveals``: the transcript's deck/key
    messages, decoded once; each is checked when its hand comes).

    ``from_keys``: a hand whose reveals hold every seat's key is checked from the keys (each
    hop by :func:`~p2p_sasaki.protocol.deck.hop_permutation` in the key slot, which proves
    more than its shuffle argument, so no argument is verified); any other hand (it stopped
    before its key slot) is verified in live order, every argument included. With
    ``from_keys=False`` every argument is verified."""

    reveals: tuple[SignedMessage, ...]
    proofs: bool = True
    name: bytes = b""
    from_keys: bool = True

    @classmethod
    def from_envelopes(cls, envelopes: Sequence[bytes], proofs: bool = True,
                       from_keys: bool = True) -> RevealedKeys:
        reveals = []
        for envelope in envelopes:
            try:
                message = decode_envelope(envelope)
            except MessageError:
                continue  # the canonical replay blames it where it stands
            if isinstance(message.body.payload, KeyReveal):
                reveals.append(message)
        return cls(tuple(reveals), proofs, from_keys=from_keys)

    def from_keys_hands(self, seats: int) -> frozenset[int]:
        """The hands this dealer checks from the keys: every seat's key reveal is in the file
        (with ``from_keys`` and proofs on; none otherwise)."""
        if not (self.from_keys and self.proofs):
            return frozenset()
        senders: dict[int, set[int]] = {}
        for message in self.reveals:
            senders.setdefault(message.body.hand, set()).add(message.body.sender)
        return frozenset(hand for hand, seen in senders.items() if seen == set(range(seats)))

    def hand(self, setup: HandSetup) -> DeckSource:
        reveals = tuple(m for m in self.reveals if m.body.hand == setup.hand_no)
        return DeckSource(setup, self.proofs, reveals,
                          from_keys=setup.hand_no in self.from_keys_hands(setup.seats))


# ---------------------------------------------------------------------------------------
# The trusted (test) dealer
# ---------------------------------------------------------------------------------------


class TrustedSource:
    """A hand dealt by a trusted dealer: no deck slots, no openings, no key reveal."""

    deck_slots = 0
    proves = False
    closes = False

    def __init__(self, setup: HandSetup, deal: tuple[int, ...], order: Sequence[int] = ()) -> None:
        self.setup, self.deal, self.order = setup, deal, tuple(order)
        self._holder = [k % setup.seats for k in range(len(self.order))]
        self._handing: tuple[int, int] | None = None   # (receiver, position): a hand-over under way
        self._events: list[SourceEvent] = []

    def start(self) -> None:
        if self.setup.my_seat is not None:
            self._events.append(CardsDealt(self.deal[self.setup.my_seat]))
        for seat in sorted(self.setup.shown):
            self._events.append(CardsShown(seat, self.deal[seat]))

    def accepts(self, payload: Payload) -> bool:
        return False

    def expected(self, slot: int) -> frozenset[int]:
        return frozenset()

    def receive(self, message: SignedMessage) -> None:
        raise SourceError(message.body.sender, "a trusted dealer's hand has no deck messages")

    def step(self) -> bool:
        return False

    def take_jobs(self) -> list[DeckJob]:
        return []

    def finish_job(self, job: DeckJob, result: JobResult) -> None:
        raise DeckUsageError("a trusted dealer's hand hands out no jobs")

    def take_outgoing(self) -> list[bytes]:
        return []

    def take_events(self) -> list[SourceEvent]:
        events, self._events = self._events, []
        return events

    def ready(self) -> bool:
        return True

    def my_cards(self) -> int | None:
        return None if self.setup.my_seat is None else self.deal[self.setup.my_seat]

    def waiting_for(self) -> tuple[int, ...]:
        return ()

    def prove_open(self, card: int) -> CardOpen | None:
        return None

    def accept_open(self, seat: int, opening: CardOpen) -> str | None:
        return "a trusted dealer's table opens no cards"

    def known_deal(self) -> tuple[int, ...] | None:
        return self.deal if self.setup.my_seat is None else None

    def close(self, slot: int) -> None:
        return None

    def accept_close(self, message: SignedMessage) -> None:
        raise SourceError(message.body.sender, "a trusted dealer's hand has no key reveal")

    def final_deal(self) -> tuple[int, ...] | None:
        return self.deal

    def strips_done(self) -> bool:
        return True

    def my_key(self) -> bytes | None:
        return None

    def partial_deal(self, keys: dict[int, bytes]) -> tuple[int | None, ...]:
        return self.deal

    def secrets(self) -> tuple[bytes | None, int | None, tuple[int, ...] | None]:
        return None, None, None

    def hand_over(self, card: int, to: int) -> HandOver:
        """In the open: the position of the card, nothing sealed (everyone knows the deal)."""
        me = self.setup.my_seat
        k = next(k for k, c in enumerate(self.order) if c == card and self._holder[k] == me)
        return HandOver(k, to)

    def accept_hand_over(self, giver: int, message: HandOver) -> str | None:
        k = message.position
        if k >= len(self.order) or self._holder[k] != giver or message.to >= self.setup.seats or message.to == giver:
            return f"seat {giver} cannot hand position {k} to seat {message.to}"
        self._handing = (message.to, k)
        return None

    def relock(self) -> HandOverLock:
        """Nothing is locked: zero bytes (the deal is public)."""
        return HandOverLock(bytes(32), bytes(64))

    def accept_relock(self, receiver: int, message: HandOverLock) -> str | None:
        return None

    def strip_lock(self) -> HandOverStrip:
        return HandOverStrip(bytes(32), bytes(64))

    def accept_strip(self, giver: int, message: HandOverStrip) -> str | None:
        if self._handing is None:
            return f"seat {giver} strips no hand-over"
        to, k = self._handing
        self._holder[k], self._handing = to, None
        return None

    def handed_card(self, position: int) -> int | None:
        return self.order[position]

    def held_card(self, position: int) -> int | None:
        return self.order[position] if self._holder[position] == self.setup.my_seat else None

    def card_at(self, position: int) -> int | None:
        return self.order[position]

    def rule_locks(self, seat: int, without: int | None = None) -> None:
        """The tests' dealer has no locks: no hidden-card rule is proven."""
        return None

    def position_of(self, card: int) -> int | None:
        return None

    def position_lock(self, position: int) -> HiddenCard:
        raise DeckUsageError("the tests' dealer has no locks")

    def prove_rule(self, slot: int, prev: bytes, statement: Statement) -> HiddenRuleProof:
        raise DeckUsageError("the tests' dealer proves no hidden-card rule")

    def verify_rule(self, seat: int, slot: int, prev: bytes, statement: Statement, proof: HiddenRuleProof) -> bool:
        return False


@dataclass(frozen=True)
class TrustedDealer:
    """A dealer everyone must trust, for tests and benchmarks: the deal of hand h is a
    function of the public seed ``name`` (docs/protocol.md, "Test dealer"):

    - ``name`` = TEST_DEALER_PREFIX ‖ "deals/" ‖ orders: the card order of each hand in
      turn, one byte per card (:meth:`with_deals`);
    - any other ``name`` under the prefix: the order is a Fisher-Yates shuffle of
      0..n_cards-1 (i from n_cards-1 down to 1, j = random_below(i + 1)) drawn from
      SeededEntropy(name ‖ u32(hand)).

    Position k of the order goes to seat k mod seats, as the deck deals.
    """

    name: bytes

    def __post_init__(self) -> None:
        if not self.name.startswith(TEST_DEALER_PREFIX):
            raise ValueError(f"a trusted dealer's seed starts with {TEST_DEALER_PREFIX!r}")

    @classmethod
    def with_deals(cls, orders: Sequence[Sequence[int]]) -> TrustedDealer:
        """A dealer that deals the given card orders, hand after hand (cards < 256)."""
        return cls(TEST_DEALER_PREFIX + _DEALS + b"".join(bytes(order) for order in orders))

    def order(self, hand_no: int, n_cards: int) -> list[int]:
        body = self.name[len(TEST_DEALER_PREFIX):]
        if body.startswith(_DEALS):
            orders = body[len(_DEALS):]
            order = list(orders[(hand_no - 1) * n_cards : hand_no * n_cards])
            if sorted(order) != list(range(n_cards)):
                raise SourceError(None, f"the test dealer has no deal of {n_cards} cards for hand {hand_no}")
            return order
        entropy = SeededEntropy(self.name + u32(hand_no))
        order = list(range(n_cards))
        for i in range(n_cards - 1, 0, -1):
            j = crypto.random_below(entropy, i + 1)
            order[i], order[j] = order[j], order[i]
        return order

    def hand(self, setup: HandSetup) -> TrustedSource:
        order = self.order(setup.hand_no, setup.n_cards)
        deal = tuple(sum(1 << order[k] for k in range(seat, setup.n_cards, setup.seats))
                     for seat in range(setup.seats))
        return TrustedSource(setup, deal, order)
