"""One deal of Sasku as a pure, immutable state machine: auction -> trump -> nine tricks.

A :class:`Deal` is a value: :func:`apply` returns a new one and leaves the old one
as it was, so a search can keep every state it visits. The state always names the
next :class:`Decision` (its kind and the one seat that must act), and
:func:`legal_actions` lists that seat's legal actions.

>>> from random import Random
>>> deal = Deal.random(Random(1), deal_number=0)
>>> deal.decision
Decision(DecisionKind.BID, 0)
>>> deal = apply(deal, Bid(0, 6))
>>> for seat in (1, 2, 3):
...     deal = apply(deal, Pass(seat))
>>> deal.decision, deal.declarer
(Decision(DecisionKind.TRUMP, 0), 0)
>>> deal = apply(deal, TrumpCall(0, Suit.HEARTS))
>>> while not deal.is_over:
...     deal = apply(deal, legal_actions(deal)[0])
>>> sum(deal.card_points), sum(deal.tricks), deal.points
(120, 9, (0, 2))

A peer knows its own cards only: :meth:`Deal.for_peer` runs the same machine on
that (every other seat holds unknown cards, and a picture handed within the
other pair is "a picture", a card returned "a card"), reaching the same
decisions and :func:`state_hash` as the full deal. A rule that depends on cards
the peer cannot see (following, the give and return conditions) is kept in
:attr:`Deal.pending_checks` for :func:`audit` with the full deal.

>>> full = Deal.random(Random(1))
>>> peer = Deal.for_peer(2, full.cards(2))
>>> for action in (Bid(0, 6), Pass(1), Pass(2), Pass(3), TrumpCall(0, Suit.HEARTS)):
...     full, peer = apply(full, action), apply(peer, action)
>>> lead = legal_actions(full)[0]
>>> full, peer = apply(full, lead), apply(peer, lead)
>>> state_hash(peer) == state_hash(full), peer.pending_checks
(True, ())
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from random import Random
from typing import ClassVar, NamedTuple

from p2p_sasaki.cards import Card, CardSet, Suit, mask_indices
from p2p_sasaki.errors import DealError, HiddenInformationError, IllegalActionError
from p2p_sasaki.records import action_line
from p2p_sasaki.sasku.options import MAX_BID, SaskuOptions
from p2p_sasaki.sasku.scoring import deal_points
from p2p_sasaki.sasku.trumps import CARD_POINTS, PACK, PICTURES, follow_table, winner_index

__all__ = [
    "Deal", "Decision", "DecisionKind", "Action",
    "Bid", "Pass", "Diamonds", "Give", "Take", "Refuse", "Return", "TrumpCall", "Play",
    "legal_actions", "apply", "view", "seen_by", "determinize", "state_hash", "public_state", "public_line",
    "HiddenCheck", "HiddenRule", "Violation", "audit", "penalty_points",
    "dealer_of", "forehand_of", "partner_of", "random_hands",
    "IllegalActionError", "HiddenInformationError", "DealError",
]

SEATS = 4
HAND_SIZE = 9
TRICKS = 9
_DIAMONDS = int(Suit.DIAMONDS)
_new = object.__new__


def dealer_of(deal_number: int) -> int:
    """Deal ``d`` of a match (0-based) is dealt by seat ``(d+3)%4``."""
    return (deal_number + 3) % SEATS


def forehand_of(deal_number: int) -> int:
    """The seat after the dealer: it bids first and leads the first trick."""
    return deal_number % SEATS


def partner_of(seat: int) -> int:
    return (seat + 2) % SEATS


class DecisionKind(Enum):
    BID = "bid"          # a bidding turn: bid, pass, diamonds or give
    ANSWER = "answer"    # the partner takes or refuses a given picture
    RETURN = "return"    # the partner hands back a card that is not a picture
    TRUMP = "trump"      # the declarer names the trump suit
    PLAY = "play"        # a card to the trick
    OVER = "over"        # nine tricks played; nobody acts

    def __repr__(self) -> str:
        return f"<DecisionKind.{self.name}: {self.value!r}>"


# Members as plain globals: quicker than DecisionKind.X in the hot paths (Python 3.11).
_BID, _ANSWER, _RETURN, _TRUMP, _PLAY, _OVER = DecisionKind


@dataclass(frozen=True, slots=True)
class Decision:
    """Who acts next (``seat``, None once the deal is over) and what kind of action."""

    kind: DecisionKind
    seat: int | None

    def __repr__(self) -> str:
        return f"Decision(DecisionKind.{self.kind.name}, {self.seat!r})"


_DECISIONS = {kind: tuple(Decision(kind, seat) for seat in range(SEATS)) for kind in DecisionKind}
_OVER_DECISION = Decision(_OVER, None)
_PLAY_DECISIONS = _DECISIONS[_PLAY]


# -- actions --------------------------------------------------------------------------
# Each prints as its record line (``S0 bid 6``); a card hidden from a view prints without it.

@dataclass(frozen=True, slots=True)
class Bid:
    """Bid a number of tricks (``min_bid`` to 9), higher than every earlier bid."""

    seat: int
    number: int
    verb: ClassVar[str] = "bid"

    def __str__(self) -> str:
        return action_line(self.seat, self.verb, self.number)


@dataclass(frozen=True, slots=True)
class Pass:
    """Pass: final for this deal."""

    seat: int
    verb: ClassVar[str] = "pass"

    def __str__(self) -> str:
        return action_line(self.seat, self.verb)


@dataclass(frozen=True, slots=True)
class Diamonds:
    """Make diamonds trump at once and be the declarer, whatever the bids so far."""

    seat: int
    verb: ClassVar[str] = "diamonds"

    def __str__(self) -> str:
        return action_line(self.seat, self.verb)


@dataclass(frozen=True, slots=True)
class Give:
    """Hand one's only picture to the partner, face down (``card`` None where it is hidden)."""

    seat: int
    card: Card | None
    verb: ClassVar[str] = "give"

    def __str__(self) -> str:
        return action_line(self.seat, self.verb, self.card)


@dataclass(frozen=True, slots=True)
class Take:
    """The partner takes the given picture (and owes a card back)."""

    seat: int
    verb: ClassVar[str] = "take"

    def __str__(self) -> str:
        return action_line(self.seat, self.verb)


@dataclass(frozen=True, slots=True)
class Refuse:
    """The partner refuses the given picture: nothing moves (the give still counts)."""

    seat: int
    verb: ClassVar[str] = "refuse"

    def __str__(self) -> str:
        return action_line(self.seat, self.verb)


@dataclass(frozen=True, slots=True)
class Return:
    """The partner hands back one card that is not a picture (``card`` None where hidden)."""

    seat: int
    card: Card | None
    verb: ClassVar[str] = "return"

    def __str__(self) -> str:
        return action_line(self.seat, self.verb, self.card)


@dataclass(frozen=True, slots=True)
class TrumpCall:
    """The declarer names the trump suit (diamonds makes it a diamonds game)."""

    seat: int
    suit: Suit
    verb: ClassVar[str] = "trump"

    def __str__(self) -> str:
        return action_line(self.seat, self.verb, self.suit.symbol)


@dataclass(frozen=True, slots=True)
class Play:
    """A card to the trick."""

    seat: int
    card: Card
    verb: ClassVar[str] = "play"

    def __str__(self) -> str:
        return action_line(self.seat, self.verb, self.card)


Action = Bid | Pass | Diamonds | Give | Take | Refuse | Return | TrumpCall | Play

# Interned actions: legal_actions hands out these, never new objects.
_CARDS = tuple(Card.from_index(i) for i in range(48))
_PLAYS = tuple(tuple(Play(seat, card) for card in _CARDS) for seat in range(SEATS))
_BIDS = tuple(tuple(Bid(seat, n) for n in range(MAX_BID + 1)) for seat in range(SEATS))
_PASSES = tuple(Pass(seat) for seat in range(SEATS))
_DIAMONDS_CALLS = tuple(Diamonds(seat) for seat in range(SEATS))
_GIVES = tuple(tuple(Give(seat, card) for card in _CARDS) for seat in range(SEATS))
_TAKES = tuple(Take(seat) for seat in range(SEATS))
_REFUSALS = tuple(Refuse(seat) for seat in range(SEATS))
_RETURNS = tuple(tuple(Return(seat, card) for card in _CARDS) for seat in range(SEATS))
_TRUMP_CALLS = tuple(tuple(TrumpCall(seat, suit) for suit in Suit) for seat in range(SEATS))
_HIDDEN_GIVES = tuple(Give(seat, None) for seat in range(SEATS))
_HIDDEN_RETURNS = tuple(Return(seat, None) for seat in range(SEATS))


def public_line(action: Action, options: SaskuOptions = SaskuOptions()) -> str:
    """The action as the other pair sees it: a returned card never, a given picture only
    with ``picture_shown``."""
    if isinstance(action, Return) or (isinstance(action, Give) and not options.picture_shown):
        return f"S{action.seat} {action.verb}"
    return str(action)


# -- checks that need hidden cards -----------------------------------------------------

class HiddenRule(Enum):
    """The rules a peer cannot check when the cards are hidden from it."""

    FOLLOW = "follow"              # a trump to a trump lead, a plain card of the suit led
    GIVE = "give"                  # the giver held exactly one picture, and gave it
    GIVE_PARTNER = "give-partner"  # the giver's partner held fewer than nine pictures
    RETURN = "return"              # the returned card is not a picture


_HIDDEN_SENTENCES = {
    HiddenRule.FOLLOW: "S{seat} followed suit or held no card of the suit led (a trump to a trump lead)",
    HiddenRule.GIVE: "S{seat} held exactly one picture when it gave, and gave that picture",
    HiddenRule.GIVE_PARTNER: "S{seat}'s partner held fewer than nine pictures when S{seat} gave",
    HiddenRule.RETURN: "S{seat} returned a card that is not a picture",
}


@dataclass(frozen=True, slots=True)
class HiddenCheck:
    """A rule this peer could not check: ``step`` is the index of the action in the history."""

    seat: int
    rule: HiddenRule
    step: int

    def __str__(self) -> str:
        return f"needs the full deal: {_HIDDEN_SENTENCES[self.rule].format(seat=self.seat)} (action {self.step})"


@dataclass(frozen=True, slots=True)
class Violation:
    """The first rule broken in a deal, found with every card known: the seat at fault,
    the index of its action in the history and the sentence naming the rule."""

    seat: int | None
    step: int
    message: str


def penalty_points(violation: Violation) -> tuple[int, int]:
    """A rule broken with hidden cards: the offender's pair loses the deal as in karvane."""
    assert violation.seat is not None
    return (0, 6) if violation.seat % 2 == 0 else (6, 0)


# -- the state ---------------------------------------------------------------------------

class _Frame(NamedTuple):
    """What a deal keeps from its start: the options, the deal number, the cards dealt (in a
    view, the viewer's only) and the viewer (None: the full deal)."""

    options: SaskuOptions
    number: int
    dealt: tuple[int, int, int, int]
    viewer: int | None


class _Auction(NamedTuple):
    """The bidding and the exchanges; changes only before the first trick."""

    high: int = 0            # the highest bid so far (0: none)
    bidder: int = -1         # its seat
    passed: int = 0          # seats that passed, as bits
    gave: int = 0            # seats that have given (a refused give counts), as bits
    giver: int = -1          # the seat whose give is being answered or returned
    given: int = -1          # the picture given (-1: none, or hidden from this view)
    declarer: int = -1
    diamonds: bool = False   # a diamonds game or üleküla
    handed: tuple[int, int, int, int] = (0, 0, 0, 0)  # cards each seat handed its partner
    shown: int = 0           # pictures shown to everyone (picture_shown)


_NO_AUCTION = _Auction()
_LAZY = object()  # pending checks of a view not yet worked out


def random_hands(rng: Random) -> tuple[int, int, int, int]:
    """Shuffle the 36 cards with ``rng`` and deal 9 to each seat (deck position k to seat k mod 4)."""
    deck = list(mask_indices(PACK))
    rng.shuffle(deck)
    bit = _BITS.__getitem__
    return (sum(map(bit, deck[0::4])), sum(map(bit, deck[1::4])),
            sum(map(bit, deck[2::4])), sum(map(bit, deck[3::4])))


_BITS = tuple(1 << i for i in range(48))


def _mask_of(cards: CardSet | Iterable[Card] | str | int) -> int:
    if isinstance(cards, int):
        return cards
    return cards.mask if isinstance(cards, CardSet) else CardSet(cards).mask


def _check_hand(seat: int, mask: int) -> None:
    if mask & ~PACK:
        raise DealError(f"seat {seat} is dealt {CardSet(mask & ~PACK)}: the Sasku pack has ranks 6 to A")
    if mask.bit_count() != HAND_SIZE:
        raise DealError(f"seat {seat} must be dealt {HAND_SIZE} cards, not {mask.bit_count()}")


class Deal:
    """One deal: create with ``Deal(hands, deal_number, options)`` (the full deal: four
    9-card hands), :meth:`random`, or :meth:`for_peer` (one seat's cards only).

    A value: read it through its properties; :func:`apply` makes the next one.
    """

    __slots__ = ("_frame", "_kind", "_seat", "_hands", "_sizes",
                 "_auction", "_trump", "_follow", "_trick", "_leader", "_won", "_points", "_played",
                 "_log", "_steps", "_pending")

    _frame: _Frame                            # which deal, seen by whom
    _kind: DecisionKind
    _seat: int
    _hands: tuple[int, int, int, int]         # the cards known to be in each hand now
    _sizes: tuple[int, int, int, int] | None  # how many cards each holds (None: the full deal)
    _auction: _Auction
    _trump: int                               # -1 until named
    _follow: tuple[int, ...]                  # follow_table(trump)
    _trick: tuple[int, ...]                   # cards of the trick so far, in play order
    _leader: int
    _won: tuple[int, int]                     # tricks per pair
    _points: tuple[int, int]                  # card points per pair
    _played: int                              # every card played so far
    _log: tuple[object, object] | None        # (action, earlier log): the history, newest first
    _steps: int
    _pending: object                          # (HiddenCheck, earlier) | None | _LAZY

    def __init__(self, hands: Sequence[CardSet | Iterable[Card] | str | int], deal_number: int = 0,
                 options: SaskuOptions = SaskuOptions()) -> None:
        masks = [_mask_of(cards) for cards in hands]
        if len(masks) != SEATS:
            raise DealError(f"a deal has {SEATS} hands, not {len(masks)}")
        seen = 0
        for seat, mask in enumerate(masks):
            _check_hand(seat, mask)
            if seen & mask:
                raise DealError(f"{CardSet(seen & mask)} is dealt twice")
            seen |= mask
        dealt = (masks[0], masks[1], masks[2], masks[3])
        self._start(dealt, None, None, deal_number, options)

    @classmethod
    def random(cls, rng: Random, deal_number: int = 0, options: SaskuOptions = SaskuOptions()) -> Deal:
        deal = _new(cls)
        deal._start(random_hands(rng), None, None, deal_number, options)
        return deal

    @classmethod
    def for_peer(cls, seat: int, cards: CardSet | Iterable[Card] | str | int, deal_number: int = 0,
                 options: SaskuOptions = SaskuOptions()) -> Deal:
        """The deal as seat ``seat`` starts it: its own 9 cards, the others unknown."""
        mask = _mask_of(cards)
        _check_hand(seat, mask)
        dealt = [0, 0, 0, 0]
        dealt[seat] = mask
        deal = _new(cls)
        deal._start((dealt[0], dealt[1], dealt[2], dealt[3]), seat, (HAND_SIZE, HAND_SIZE, HAND_SIZE, HAND_SIZE),
                    deal_number, options)
        return deal

    def _start(self, dealt: tuple[int, int, int, int], viewer: int | None,
               sizes: tuple[int, int, int, int] | None, deal_number: int, options: SaskuOptions) -> None:
        if not (isinstance(deal_number, int) and deal_number >= 0):
            raise ValueError(f"the deal number is a whole number from 0, not {deal_number!r}")
        self._frame = _Frame(options, deal_number, dealt, viewer)
        self._kind = _BID
        self._seat = forehand_of(deal_number)
        self._hands = dealt
        self._sizes = sizes
        self._auction = _NO_AUCTION
        self._trump = -1
        self._follow = ()
        self._trick = ()
        self._leader = self._seat
        self._won = (0, 0)
        self._points = (0, 0)
        self._played = 0
        self._log = None
        self._steps = 0
        self._pending = None

    # -- reading the state --------------------------------------------------------------

    @property
    def options(self) -> SaskuOptions:
        return self._frame.options

    @property
    def deal_number(self) -> int:
        return self._frame.number

    @property
    def dealer(self) -> int:
        return dealer_of(self._frame.number)

    @property
    def forehand(self) -> int:
        return forehand_of(self._frame.number)

    @property
    def viewer(self) -> int | None:
        """The seat whose view this is; None for the full deal."""
        return self._frame.viewer

    @property
    def decision(self) -> Decision:
        kind = self._kind
        if kind is _PLAY:  # the common case first: no Enum hashing (Enum.__hash__ is Python code)
            return _PLAY_DECISIONS[self._seat]
        if kind is _OVER:
            return _OVER_DECISION
        return _DECISIONS[kind][self._seat]

    @property
    def is_over(self) -> bool:
        return self._kind is _OVER

    def is_known(self, seat: int) -> bool:
        """Whether every card in ``seat``'s hand is known here."""
        return self._sizes is None or self._hands[seat].bit_count() == self._sizes[seat]

    def cards(self, seat: int) -> CardSet:
        """The cards ``seat`` holds now; HiddenInformationError where they are not all known."""
        if not self.is_known(seat):
            raise HiddenInformationError(f"S{seat}'s cards are hidden from this view")
        return CardSet(self._hands[seat])

    def known_cards(self, seat: int) -> CardSet:
        """The cards known to be in ``seat``'s hand (all of them in the full deal)."""
        return CardSet(self._hands[seat])

    def dealt(self, seat: int) -> CardSet:
        """The 9 cards dealt to ``seat``; HiddenInformationError for another seat in a view."""
        if self._frame.viewer is not None and seat != self._frame.viewer:
            raise HiddenInformationError(f"S{seat}'s dealt cards are hidden from this view")
        return CardSet(self._frame.dealt[seat])

    def hand_size(self, seat: int) -> int:
        return self._hands[seat].bit_count() if self._sizes is None else self._sizes[seat]

    @property
    def history(self) -> tuple[Action, ...]:
        """Every action so far, oldest first (in a view, as this seat saw it)."""
        actions: list[Action] = []
        log = self._log
        while log is not None:
            actions.append(log[0])  # type: ignore[arg-type]
            log = log[1]  # type: ignore[assignment]
        actions.reverse()
        return tuple(actions)

    @property
    def pending_checks(self) -> tuple[HiddenCheck, ...]:
        """The rules that need the full deal, oldest first (none in the full deal)."""
        if self._pending is _LAZY:
            frame = self._frame
            assert frame.viewer is not None
            peer = Deal.for_peer(frame.viewer, frame.dealt[frame.viewer], frame.number, frame.options)
            for action in self.history:
                peer = apply(peer, action)
            self._pending = peer._pending
        checks: list[HiddenCheck] = []
        node = self._pending
        while node is not None:
            checks.append(node[0])  # type: ignore[index]
            node = node[1]  # type: ignore[index]
        checks.reverse()
        return tuple(checks)

    @property
    def high_bid(self) -> int | None:
        return self._auction.high or None

    @property
    def high_bidder(self) -> int | None:
        return self._auction.bidder if self._auction.bidder >= 0 else None

    @property
    def passed(self) -> tuple[int, ...]:
        return tuple(seat for seat in range(SEATS) if self._auction.passed >> seat & 1)

    @property
    def gave(self) -> tuple[int, ...]:
        """Seats that have used their one give this deal."""
        return tuple(seat for seat in range(SEATS) if self._auction.gave >> seat & 1)

    @property
    def given(self) -> Card | None:
        """The picture being answered or returned for, where this view sees it."""
        given = self._auction.given
        return _CARDS[given] if given >= 0 else None

    @property
    def auction_over(self) -> bool:
        return self._kind in (_TRUMP, _PLAY, _OVER)

    @property
    def declarer(self) -> int | None:
        """None during the auction and after all passed (üleküla)."""
        return self._auction.declarer if self._auction.declarer >= 0 else None

    @property
    def trump(self) -> Suit | None:
        return Suit(self._trump) if self._trump >= 0 else None

    @property
    def diamonds(self) -> bool:
        """A diamonds game (by ``diamonds`` or naming diamonds) or üleküla."""
        return self._auction.diamonds

    @property
    def ulekula(self) -> bool:
        """Everybody passed: diamonds trump, no declarer."""
        return self._auction.passed == 0b1111

    @property
    def leader(self) -> int:
        """The seat that led (or leads) the current trick."""
        return self._leader

    @property
    def trick(self) -> tuple[Card, ...]:
        """The cards of the current trick, in play order from :attr:`leader`."""
        return tuple(_CARDS[i] for i in self._trick)

    @property
    def played(self) -> CardSet:
        return CardSet(self._played)

    @property
    def card_points(self) -> tuple[int, int]:
        """Card points per pair in the finished tricks."""
        return self._points

    @property
    def tricks(self) -> tuple[int, int]:
        """Finished tricks per pair."""
        return self._won

    @property
    def points(self) -> tuple[int, int] | None:
        """The game points each pair scored in this deal; None until it is over."""
        if self._kind is not _OVER:
            return None
        return deal_points(self.declarer, self._auction.diamonds, self._points, self._won)

    def __repr__(self) -> str:
        who = "full" if self._frame.viewer is None else f"view of S{self._frame.viewer}"
        return f"<Deal {self._frame.number} ({who}) {self.decision!r} tricks={self._won} card_points={self._points}>"


# -- legal actions -------------------------------------------------------------------------

def _require_known(state: Deal, seat: int) -> int:
    hand = state._hands[seat]
    if state._sizes is not None and hand.bit_count() != state._sizes[seat]:
        raise HiddenInformationError(f"S{seat}'s cards are hidden from this view: its legal actions are unknown")
    return hand


def legal_actions(state: Deal) -> list[Action]:
    """The legal actions of the seat that must act (none once the deal is over).

    In a view, only for a seat whose cards it knows (else HiddenInformationError).
    """
    kind = state._kind
    seat = state._seat
    if kind is _PLAY:
        hand = _require_known(state, seat)
        trick = state._trick
        if trick:
            follow = hand & state._follow[trick[0]]
            if follow:
                hand = follow
        plays = _PLAYS[seat]
        actions: list[Action] = []
        while hand:
            low = hand & -hand
            actions.append(plays[low.bit_length() - 1])
            hand ^= low
        return actions
    if kind is _BID:
        hand = _require_known(state, seat)
        auction = state._auction
        bids = _BIDS[seat]
        actions = [bids[n] for n in range(max(state._frame.options.min_bid, auction.high + 1), MAX_BID + 1)]
        actions.append(_PASSES[seat])
        actions.append(_DIAMONDS_CALLS[seat])
        pictures = hand & PICTURES
        if not auction.gave >> seat & 1 and pictures.bit_count() == 1:
            partner = partner_of(seat)
            if not state.is_known(partner) or (state._hands[partner] & PICTURES).bit_count() < HAND_SIZE:
                actions.append(_GIVES[seat][pictures.bit_length() - 1])
        return actions
    if kind is _TRUMP:
        return list(_TRUMP_CALLS[seat])
    if kind is _ANSWER:
        return [_TAKES[seat], _REFUSALS[seat]]
    if kind is _RETURN:
        hand = _require_known(state, seat) & ~PICTURES
        returns = _RETURNS[seat]
        return [returns[i] for i in mask_indices(hand)]
    return []


# -- applying an action -----------------------------------------------------------------------

def _expected(state: Deal) -> str:
    seat = state._seat
    kind = state._kind
    if kind is _BID:
        return f"it is S{seat}'s turn to bid, pass, say diamonds or give"
    if kind is _ANSWER:
        return f"S{seat} must take or refuse the picture S{state._auction.giver} gave"
    if kind is _RETURN:
        return f"S{seat} must return a card that is not a picture to S{state._auction.giver}"
    if kind is _TRUMP:
        return f"S{seat}, the declarer, must name the trump suit"
    if kind is _PLAY:
        return f"it is S{seat}'s turn to play a card"
    return "the deal is over: nine tricks have been played"


def _copy(state: Deal) -> Deal:
    new = _new(Deal)
    new._frame = state._frame
    new._kind = state._kind
    new._seat = state._seat
    new._hands = state._hands
    new._sizes = state._sizes
    new._auction = state._auction
    new._trump = state._trump
    new._follow = state._follow
    new._trick = state._trick
    new._leader = state._leader
    new._won = state._won
    new._points = state._points
    new._played = state._played
    new._log = state._log  # apply adds the action
    new._steps = state._steps + 1
    new._pending = state._pending
    return new


def _with(values: tuple[int, int, int, int], seat: int, value: int) -> tuple[int, int, int, int]:
    if seat == 0:
        return (value, values[1], values[2], values[3])
    if seat == 1:
        return (values[0], value, values[2], values[3])
    if seat == 2:
        return (values[0], values[1], value, values[3])
    return (values[0], values[1], values[2], value)


def _add_check(new: Deal, seat: int, rule: HiddenRule, step: int) -> None:
    new._pending = (HiddenCheck(seat, rule, step), new._pending)


def _check_card_free(state: Deal, seat: int, bit: int, card: Card) -> None:
    """In a view: a card played or handed by a seat whose hand is not all known must not be
    one this view knows elsewhere."""
    if state._played & bit:
        raise IllegalActionError(f"{card} has already been played", seat)
    for other in range(SEATS):
        if other != seat and state._hands[other] & bit:
            raise IllegalActionError(f"S{seat} does not hold {card}: it is in S{other}'s hand", seat)


def _play(state: Deal, action: Play, new: Deal) -> None:
    seat = action.seat
    index = action.card.index
    bit = 1 << index
    hand = state._hands[seat]
    trick = state._trick
    sizes = state._sizes
    known = sizes is None or hand.bit_count() == sizes[seat]
    if known:
        if not hand & bit:
            raise IllegalActionError(f"S{seat} does not hold {action.card}", seat)
    else:
        if not PACK & bit:
            raise IllegalActionError(f"{action.card} is not a Sasku card: the pack has ranks 6 to A", seat)
        _check_card_free(state, seat, bit, action.card)
    if trick:
        follow = state._follow[trick[0]]
        if not bit & follow:
            if hand & follow:
                raise IllegalActionError(_renege(state, seat, trick[0]), seat)
            if not known:
                _add_check(new, seat, HiddenRule.FOLLOW, state._steps)
    new._hands = _with(state._hands, seat, hand & ~bit)
    if sizes is not None:
        new._sizes = _with(sizes, seat, sizes[seat] - 1)
    new._played = state._played | bit
    if len(trick) < 3:
        new._trick = (*trick, index)
        new._seat = (seat + 1) % SEATS
        return
    cards = (*trick, index)
    winner = (state._leader + winner_index(cards, state._trump)) % SEATS
    pair = winner & 1
    gained = CARD_POINTS[cards[0]] + CARD_POINTS[cards[1]] + CARD_POINTS[cards[2]] + CARD_POINTS[cards[3]]
    won = state._won
    points = state._points
    if pair:
        new._won = (won[0], won[1] + 1)
        new._points = (points[0], points[1] + gained)
    else:
        new._won = (won[0] + 1, won[1])
        new._points = (points[0] + gained, points[1])
    new._trick = ()
    new._leader = winner
    if won[0] + won[1] + 1 == TRICKS:
        new._kind = _OVER
        new._seat = -1
    else:
        new._seat = winner


def _renege(state: Deal, seat: int, led: int) -> str:
    if state._follow[led] & PICTURES:
        return f"S{seat} must play a trump: a trump was led and S{seat} holds one"
    suit = Suit(led & 3).name.lower()
    return f"S{seat} must follow suit: {suit} were led and S{seat} holds a plain card of {suit}"


def _after_bidding_turn(new: Deal, seat: int, auction: _Auction) -> None:
    """The auction goes on to the next seat that has not passed, or ends."""
    passes = auction.passed.bit_count()
    if passes == SEATS:  # üleküla ruutu: diamonds, no declarer
        new._auction = auction._replace(diamonds=True)
        _start_play(new, _DIAMONDS)
    elif passes == SEATS - 1 and auction.bidder >= 0:
        new._auction = auction._replace(declarer=auction.bidder)
        new._kind = _TRUMP
        new._seat = auction.bidder
    else:
        new._auction = auction
        following = (seat + 1) % SEATS
        while auction.passed >> following & 1:
            following = (following + 1) % SEATS
        new._seat = following


def _start_play(new: Deal, trump: int) -> None:
    new._trump = trump
    new._follow = follow_table(trump)
    new._kind = _PLAY
    new._seat = new._leader = forehand_of(new._frame.number)


def _bid(state: Deal, action: Bid, new: Deal) -> None:
    auction = state._auction
    number = action.number
    lowest = max(state._frame.options.min_bid, auction.high + 1)
    if not lowest <= number <= MAX_BID:
        if number > MAX_BID:
            rule = f"a bid is at most {MAX_BID}: there are nine tricks"
        elif auction.high and number <= auction.high:
            rule = f"a bid must be higher than {auction.high}, the highest bid so far"
        else:
            rule = f"the smallest bid is {state._frame.options.min_bid}"
        raise IllegalActionError(rule, action.seat)
    _after_bidding_turn(new, action.seat, auction._replace(high=number, bidder=action.seat))


def _pass(state: Deal, action: Pass, new: Deal) -> None:
    auction = state._auction
    _after_bidding_turn(new, action.seat, auction._replace(passed=auction.passed | 1 << action.seat))


def _diamonds(state: Deal, action: Diamonds, new: Deal) -> None:
    new._auction = state._auction._replace(declarer=action.seat, diamonds=True)
    _start_play(new, _DIAMONDS)


def _sees_exchange(state: Deal, seat: int) -> bool:
    """Whether this state sees the cards moved within ``seat``'s pair."""
    viewer = state._frame.viewer
    return viewer is None or viewer == seat or viewer == partner_of(seat)


def _give(state: Deal, action: Give, new: Deal) -> None:
    seat = action.seat
    partner = partner_of(seat)
    auction = state._auction
    if auction.gave >> seat & 1:
        raise IllegalActionError(f"S{seat} has already given a picture this deal: each seat gives at most once", seat)
    card = action.card
    if card is None:
        if _sees_exchange(state, seat) or state._frame.options.picture_shown:
            raise IllegalActionError(f"S{seat}'s give must name the picture: this view sees it", seat)
        index = -1
    else:
        index = card.index
        if not PICTURES >> index & 1:
            raise IllegalActionError(f"S{seat} can give only a picture (a king, queen or jack), not {card}", seat)
    if state.is_known(seat):
        pictures = state._hands[seat] & PICTURES
        if pictures.bit_count() != 1:
            raise IllegalActionError(f"S{seat} cannot give: a seat gives only when it holds exactly one picture, "
                                     f"and S{seat} holds {pictures.bit_count()}", seat)
        if index >= 0 and not pictures >> index & 1:
            raise IllegalActionError(f"S{seat} does not hold {card}", seat)
    else:
        if index >= 0:
            _check_card_free(state, seat, 1 << index, card)  # type: ignore[arg-type]
            if (state._hands[seat] & PICTURES) & ~(1 << index):
                raise IllegalActionError(f"S{seat} cannot give: a seat gives only when it holds exactly one "
                                         "picture, and it holds another", seat)
        _add_check(new, seat, HiddenRule.GIVE, state._steps)
    if state.is_known(partner):
        if (state._hands[partner] & PICTURES).bit_count() >= HAND_SIZE:
            raise IllegalActionError(f"S{seat} cannot give: its partner S{partner} holds nine pictures", seat)
    else:
        _add_check(new, seat, HiddenRule.GIVE_PARTNER, state._steps)
    new._auction = auction._replace(gave=auction.gave | 1 << seat, giver=seat, given=index)
    new._kind = _ANSWER
    new._seat = partner


def _move(state: Deal, new: Deal, source: int, target: int, index: int, auction: _Auction) -> _Auction:
    """A card goes from ``source`` to its partner ``target`` (``index`` -1: hidden from this view)."""
    if index >= 0:
        bit = 1 << index
        new._hands = _with(_with(state._hands, source, state._hands[source] & ~bit), target,
                           state._hands[target] | bit)
        auction = auction._replace(handed=_with(auction.handed, source, auction.handed[source] | bit))
    sizes = state._sizes
    if sizes is not None:
        new._sizes = _with(_with(sizes, source, sizes[source] - 1), target, sizes[target] + 1)
    return auction


def _take(state: Deal, action: Take, new: Deal) -> None:
    auction = state._auction
    auction = _move(state, new, auction.giver, action.seat, auction.given, auction)
    if state._frame.options.picture_shown:
        auction = auction._replace(shown=auction.shown | 1 << auction.given)
    new._auction = auction
    new._kind = _RETURN


def _refuse(state: Deal, action: Refuse, new: Deal) -> None:
    auction = state._auction
    new._auction = auction._replace(giver=-1, given=-1)
    new._kind = _BID
    new._seat = auction.giver


def _return(state: Deal, action: Return, new: Deal) -> None:
    seat = action.seat
    auction = state._auction
    card = action.card
    if card is None:
        if _sees_exchange(state, seat):
            raise IllegalActionError(f"S{seat}'s return must name the card: this view sees it", seat)
        index = -1
        _add_check(new, seat, HiddenRule.RETURN, state._steps)
    else:
        index = card.index
        if PICTURES >> index & 1:
            raise IllegalActionError(f"S{seat} must return a card that is not a picture, not {card}", seat)
        if state.is_known(seat):
            if not state._hands[seat] >> index & 1:
                raise IllegalActionError(f"S{seat} does not hold {card}", seat)
        else:
            _check_card_free(state, seat, 1 << index, card)
    auction = _move(state, new, seat, auction.giver, index, auction)
    new._auction = auction._replace(giver=-1, given=-1)
    new._kind = _BID
    new._seat = auction.giver


def _trump_call(state: Deal, action: TrumpCall, new: Deal) -> None:
    suit = int(action.suit)
    if suit == _DIAMONDS:
        new._auction = state._auction._replace(diamonds=True)
    _start_play(new, suit)


_HANDLERS = {Bid: (_BID, _bid), Pass: (_BID, _pass), Diamonds: (_BID, _diamonds), Give: (_BID, _give),
             Take: (_ANSWER, _take), Refuse: (_ANSWER, _refuse), Return: (_RETURN, _return),
             TrumpCall: (_TRUMP, _trump_call), Play: (_PLAY, _play)}


def apply(state: Deal, action: Action) -> Deal:
    """The state after ``action``; IllegalActionError (naming the rule and the seat) if the
    rules do not allow it now. ``state`` itself never changes."""
    if action.__class__ is Play and state._kind is _PLAY and action.seat == state._seat:
        new = _copy(state)  # a card to the trick: the common case, straight to its rule
        _play(state, action, new)
        new._log = (action, state._log)
        return new
    try:
        kind, handler = _HANDLERS[type(action)]
    except KeyError:
        raise TypeError(f"not a Sasku action: {action!r}") from None
    seat = action.seat
    if state._kind is not kind or seat != state._seat:
        if state._kind is _OVER:
            raise IllegalActionError("the deal is over: nine tricks have been played", seat)
        if seat == state._seat:
            raise IllegalActionError(f"S{seat} cannot {action.verb} now: {_expected(state)}", seat)
        if not (isinstance(seat, int) and 0 <= seat < SEATS):
            raise IllegalActionError(f"S{seat} is not a seat: seats are S0 to S3", seat)
        if kind is _BID and state._auction.passed >> seat & 1 and state._kind is _BID:
            raise IllegalActionError(f"S{seat} has passed: a seat that passed never bids, gives or "
                                     "declares again", seat)
        raise IllegalActionError(f"it is not S{seat}'s turn: {_expected(state)}", seat)
    new = _copy(state)
    handler(state, action, new)  # type: ignore[operator]
    new._log = (action, state._log)
    return new


# -- views, the public state, audit ----------------------------------------------------------------

def seen_by(action: Action, viewer: int, options: SaskuOptions) -> Action:
    """``action`` as seat ``viewer`` sees it."""
    if isinstance(action, Give) and action.card is not None:
        if not options.picture_shown and viewer % 2 != action.seat % 2:
            return _HIDDEN_GIVES[action.seat]
    elif isinstance(action, Return) and action.card is not None and viewer % 2 != action.seat % 2:
        return _HIDDEN_RETURNS[action.seat]
    return action


def view(state: Deal, seat: int) -> Deal:
    """What seat ``seat`` knows of ``state``: its own cards, the cards its pair handed each
    other, the shown pictures and everything public. A :class:`Deal` like any other
    (``legal_actions`` and ``apply`` work on it); its pending checks are worked out when read.
    """
    viewer = state._frame.viewer
    if viewer is not None:
        if viewer == seat:
            return state
        raise HiddenInformationError(f"this is S{viewer}'s view: S{seat}'s view cannot be made from it")
    new = _copy(state)
    new._steps = state._steps
    auction = state._auction
    partner = partner_of(seat)
    hands = state._hands
    shown = auction.shown
    known = [hands[s] & shown for s in range(SEATS)]
    known[seat] = hands[seat]
    known[partner] = hands[partner] & (auction.handed[seat] | shown)
    new._frame = state._frame._replace(viewer=seat, dealt=_with((0, 0, 0, 0), seat, state._frame.dealt[seat]))
    new._hands = (known[0], known[1], known[2], known[3])
    new._sizes = (hands[0].bit_count(), hands[1].bit_count(), hands[2].bit_count(), hands[3].bit_count())
    if auction.giver >= 0 and seat % 2 != auction.giver % 2 and not state._frame.options.picture_shown:
        auction = auction._replace(given=-1)
    new._auction = auction._replace(handed=(auction.handed[0] if seat % 2 == 0 else 0,
                                            auction.handed[1] if seat % 2 == 1 else 0,
                                            auction.handed[2] if seat % 2 == 0 else 0,
                                            auction.handed[3] if seat % 2 == 1 else 0))
    options = state._frame.options
    other_pair = 0b1010 if seat % 2 == 0 else 0b0101
    if auction.gave & other_pair:  # the other pair exchanged: its cards leave this history
        log: tuple[object, object] | None = None
        for action in state.history:
            log = (seen_by(action, seat, options), log)
        new._log = log
    new._pending = _LAZY
    return new


def determinize(state: Deal, hands: Sequence[CardSet | Iterable[Card] | str | int]) -> Deal:
    """A full state with the public state of view ``state`` and ``hands``, a guess of every
    seat's cards now (a search samples them): each must hold the cards the view knows it
    holds, as many as it holds, none played, no card twice. The result checks every rule as
    a full deal does; its ``dealt`` of the other seats is empty (a guess now says nothing
    sure of the deal).

    >>> from random import Random
    >>> full = apply(Deal.random(Random(1)), Bid(0, 6))
    >>> guess = determinize(view(full, 1), [full.cards(s) for s in range(4)])
    >>> state_hash(guess) == state_hash(full), legal_actions(guess) == legal_actions(full)
    (True, True)
    """
    masks = [_mask_of(cards) for cards in hands]
    if len(masks) != SEATS:
        raise DealError(f"a deal has {SEATS} hands, not {len(masks)}")
    if state._auction.giver >= 0 and state._auction.given < 0:
        raise HiddenInformationError("the picture being handed over is hidden from this view: guess after the exchange")
    seen = state._played
    for seat, mask in enumerate(masks):
        if mask & seen:
            raise DealError(f"{CardSet(mask & seen)} is played already or guessed twice")
        seen |= mask
        if mask & state._hands[seat] != state._hands[seat]:
            raise DealError(f"S{seat} holds {CardSet(state._hands[seat] & ~mask)} in this view")
        if mask.bit_count() != state.hand_size(seat):
            raise DealError(f"S{seat} holds {state.hand_size(seat)} cards, not {mask.bit_count()}")
    new = _copy(state)
    new._steps = state._steps
    new._frame = state._frame._replace(viewer=None)
    new._sizes = None
    new._hands = (masks[0], masks[1], masks[2], masks[3])
    new._pending = None
    return new


def public_state(state: Deal) -> tuple[object, ...]:
    """A canonical tuple of what every seat knows (the same in the full deal and each view)."""
    auction = state._auction
    options = state._frame.options
    sizes = state._sizes or tuple(hand.bit_count() for hand in state._hands)
    return (
        1,  # encoding version
        state._frame.number, options.min_bid, options.picture_shown, options.target,
        state._kind.value, state._seat, sizes,
        auction.high, auction.bidder, auction.passed, auction.gave, auction.giver,
        auction.given if options.picture_shown else -1, auction.declarer, auction.diamonds, auction.shown,
        state._trump, state._trick, state._leader, state._won, state._points, state._played,
        tuple(public_line(action, options) for action in state.history),
    )


def state_hash(state: Deal) -> str:
    """SHA-256 (hex) of :func:`public_state`: equal on every peer, hides the hands."""
    return hashlib.sha256(b"p2p-sasaki/sasku/deal/v1\x00" + repr(public_state(state)).encode()).hexdigest()


def audit(dealt: Sequence[CardSet | Iterable[Card] | str | int], history: Iterable[Action], deal_number: int = 0,
          options: SaskuOptions = SaskuOptions()) -> Violation | None:
    """Replay ``history`` (every card named, the exchanges included) on the full deal and
    return the first rule broken, or None when every action was legal."""
    state = Deal(dealt, deal_number, options)
    for step, action in enumerate(history):
        try:
            state = apply(state, action)
        except IllegalActionError as error:
            return Violation(error.seat, step, str(error))
    return None
