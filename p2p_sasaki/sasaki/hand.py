"""One hand of Sasaki as a pure state machine: deal -> declaration -> rounds -> end.

The state always exposes the current :class:`Decision`: which seats must answer
next and what kind of answer is expected. A ``TURN`` is one seat's play or pass;
every other decision is a *window* that a set of seats answers together
(run-or-not, expose, Stop-or-not, chata-or-decline, kkojda-or-decline). A window
is resolved from the complete set of answers with :meth:`Hand.resolve`; the
outcome is a pure function of that set, never of the order it arrived in.

>>> from random import Random
>>> hand = Hand.random(Random(0), lead_card="3H")
>>> hand.decision
Decision(DecisionKind.RUN, (1, 2, 3, 0))
>>> hand.resolve([Decline(s) for s in range(4)])   # nobody runs
>>> hand.decision
Decision(DecisionKind.TURN, (1,))
>>> hand.apply(Play(1, CardSet.parse("3H")))
>>> hand.decision.kind                             # a single: others may chata
<DecisionKind.CHATA: 'chata'>

Illegal actions raise :class:`IllegalActionError` naming the rule broken, and
leave the state unchanged.

A peer on the network knows only its own cards: :meth:`Hand.for_peer` runs the
same state machine on that partial information (every other seat holds "12
unknown cards" until it opens them) and reaches the same decisions and
:meth:`Hand.state_hash` as the full deal fed the same actions.

>>> full = Hand.random(Random(0), lead_card="3H")
>>> peer = Hand.for_peer(0, full.cards(0), full.first_leader, "3H")
>>> for hand in (full, peer):
...     hand.resolve([Decline(s) for s in range(4)])
...     hand.apply(Play(1, CardSet.parse("3H")))
>>> peer.state_hash() == full.state_hash()
True
>>> peer.cards(2)
Traceback (most recent call last):
...
p2p_sasaki.sasaki.hand.HiddenInformationError: S2's cards are hidden from this peer: 0 of its 12 cards are known
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from enum import Enum
from random import Random
from typing import ClassVar

from p2p_sasaki import errors
from p2p_sasaki.cards import FULL_DECK, Card, CardSet, parse_card
from p2p_sasaki.records import action_line
from p2p_sasaki.sasaki.combos import PIG_MASK, Combo, Kind, beats, classify, legal_plays, why_not
from p2p_sasaki.sasaki.options import LeadCard, TableOptions
from p2p_sasaki.sasaki.scoring import DEFAULT_SCORING, ScoringTable, score_hand

__all__ = [
    "Hand", "Decision", "DecisionKind", "IllegalActionError", "DealError",
    "HiddenInformationError", "AuditNeededError",
    "Action", "Play", "Pass", "Run", "Expose", "Stop", "Chata", "Kkojda", "Decline",
    "SeatView", "opens", "random_deal", "next_seat", "TURN_DIRECTION",
]

SEATS = 4
_RED_TENS = (Card.parse("TH"), Card.parse("TD"))
_RED_TEN_BITS = tuple((card.index, card.mask) for card in _RED_TENS)
_ALL_SEATS = frozenset(range(SEATS))
_new_object = object.__new__
# CardSet's slot setter (cards.py): the class attribute is its member descriptor.
_set_cards_mask: Callable[[CardSet, int], None] = vars(CardSet)["mask"].__set__


def _cardset(mask: int) -> CardSet:
    """``CardSet(mask)`` for a mask of the engine's own (valid by construction), unchecked."""
    cards = _new_object(CardSet)
    _set_cards_mask(cards, mask)
    return cards


_NO_SETS = (CardSet(), CardSet(), CardSet(), CardSet())


# Sasaki's own names for the engine's failures (p2p_sasaki/errors.py holds their shape,
# shared with Sasku, so one ``except errors.IllegalActionError`` catches either game's).

class IllegalActionError(errors.IllegalActionError):
    """An action the rules do not allow now; the message names the rule broken and ``seat``
    the seat whose action broke it (None when no single seat did)."""


class DealError(errors.DealError):
    """A deal that is not 4 x 12 distinct cards of the 48-card deck (or a peer's share of it)."""


class HiddenInformationError(errors.HiddenInformationError):
    """A question this peer cannot answer: another seat's hidden cards, the red side too early."""


class AuditNeededError(IllegalActionError):
    """Answers that break the rules, but only the full deal can tell whose fault it is.

    Raised in hidden mode only (the state is left unchanged): e.g. nobody exposes
    the other red ten after a partner's run. The protocol turns it into "audit
    needed"; the audit replays the revealed deal and blames the seat.
    """


class DecisionKind(Enum):
    RUN = "run"          # window: every seat answers Run or Decline
    EXPOSE = "expose"    # window: after a partner's run, the other red ten is exposed
    STOP = "stop"        # window: each opponent of the runners answers Stop or Decline
    TURN = "turn"        # one seat plays or passes
    CHATA = "chata"      # window: every other active seat answers Chata or Decline
    KKOJDA = "kkojda"    # window: every active seat answers Kkojda or Decline
    OVER = "over"        # the hand has ended; nobody answers

    def __repr__(self) -> str:
        return f"<DecisionKind.{self.name}: {self.value!r}>"


# The members as plain globals: reading an Enum member off its class is ten times
# slower than a global on Python 3.11, and the engine's hot paths read them often.
_RUN, _EXPOSE, _STOP, _TURN, _CHATA, _KKOJDA, _OVER = DecisionKind
_KIND_SINGLE = Kind.SINGLE


@dataclass(frozen=True, slots=True)
class Decision:
    """Who must answer next (``seats``, in resolution order) and what kind of answer."""

    kind: DecisionKind
    seats: tuple[int, ...]

    @property
    def is_window(self) -> bool:
        return self.kind not in (_TURN, _OVER)

    def __repr__(self) -> str:
        return f"Decision(DecisionKind.{self.kind.name}, {self.seats!r})"


# -- actions -------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Play:
    """A normal play on one's turn (a lead or an answer)."""

    seat: int
    cards: CardSet
    verb: ClassVar[str] = "play"

    def __str__(self) -> str:
        return action_line(self.seat, self.verb, self.cards)


@dataclass(frozen=True, slots=True)
class Pass:
    seat: int
    verb: ClassVar[str] = "pass"
    cards: ClassVar[CardSet] = CardSet()

    def __str__(self) -> str:
        return action_line(self.seat, self.verb)


@dataclass(frozen=True, slots=True)
class Run:
    """Expose one's red ten (a lone holder: both) to double the hand."""

    seat: int
    cards: CardSet
    verb: ClassVar[str] = "run"

    def __str__(self) -> str:
        return action_line(self.seat, self.verb, self.cards)


@dataclass(frozen=True, slots=True)
class Expose:
    """The partner's forced exposure of the other red ten after a run (never in records)."""

    seat: int
    cards: CardSet
    verb: ClassVar[str] = "expose"

    def __str__(self) -> str:
        return action_line(self.seat, self.verb, self.cards)


@dataclass(frozen=True, slots=True)
class Stop:
    seat: int
    verb: ClassVar[str] = "stop"
    cards: ClassVar[CardSet] = CardSet()

    def __str__(self) -> str:
        return action_line(self.seat, self.verb)


@dataclass(frozen=True, slots=True)
class Chata:
    """Two cards of the rank of the single just played, out of turn."""

    seat: int
    cards: CardSet
    verb: ClassVar[str] = "chata"

    def __str__(self) -> str:
        return action_line(self.seat, self.verb, self.cards)


@dataclass(frozen=True, slots=True)
class Kkojda:
    """The fourth card of the rank, on a chata, out of turn."""

    seat: int
    cards: CardSet
    verb: ClassVar[str] = "kkojda"

    def __str__(self) -> str:
        return action_line(self.seat, self.verb, self.cards)


@dataclass(frozen=True, slots=True)
class Decline:
    """The answer "no" in any window (no run, no exposure, no Stop, no chata, no kkojda)."""

    seat: int
    verb: ClassVar[str] = "decline"
    cards: ClassVar[CardSet] = CardSet()

    def __str__(self) -> str:
        return action_line(self.seat, self.verb)


_TURNS = tuple(Decision(DecisionKind.TURN, (seat,)) for seat in range(SEATS))
_DECLINES = tuple(Decline(seat) for seat in range(SEATS))
# The chatas of a rank's nibble: its two-card sub-nibbles, lowest card first then second.
_CHATA_PAIRS = tuple(
    tuple(a | b for i, a in enumerate(bits) for b in bits[i + 1:])
    for bits in ([b for b in (1, 2, 4, 8) if nib & b] for nib in range(16)))

Action = Play | Pass | Run | Expose | Stop | Chata | Kkojda | Decline

# Which answers each decision accepts (Run at a TURN only with running=any_own_turn).
_ALLOWED: dict[DecisionKind, tuple[type, ...]] = {
    DecisionKind.RUN: (Run, Decline),
    DecisionKind.EXPOSE: (Expose, Decline),
    DecisionKind.STOP: (Stop, Decline),
    DecisionKind.TURN: (Play, Pass, Run),
    DecisionKind.CHATA: (Chata, Decline),
    DecisionKind.KKOJDA: (Kkojda, Decline),
    DecisionKind.OVER: (),
}
_WINDOW_NAMES = {
    DecisionKind.RUN: "run or decline", DecisionKind.EXPOSE: "expose or decline",
    DecisionKind.STOP: "stop or decline", DecisionKind.CHATA: "chata or decline",
    DecisionKind.KKOJDA: "kkojda or decline", DecisionKind.TURN: "play or pass",
}


def opens(action: Action) -> CardSet:
    """The cards an action reveals; always cards of the acting seat's own hand."""
    return action.cards


TURN_DIRECTION = "counter-clockwise"
"""Which way play goes round the table (a view draws the next seat on your right)."""


def next_seat(seat: int) -> int:
    """Turn order is counter-clockwise; seats are numbered in turn order."""
    return (seat + 1) % SEATS


def _order_from(seat: int) -> tuple[int, ...]:
    return _ORDERS[seat]


_ORDERS = tuple(tuple((seat + i) % SEATS for i in range(SEATS)) for seat in range(SEATS))
_AFTER = tuple(tuple((seat + i) % SEATS for i in range(1, SEATS + 1)) for seat in range(SEATS))


def random_deal(rng: Random) -> tuple[CardSet, CardSet, CardSet, CardSet]:
    """Shuffle with the given rng; deck position k goes to seat k mod 4."""
    deck = list(range(48))
    rng.shuffle(deck)
    bit = _CARD_BITS.__getitem__  # distinct bits: their sum is their union
    return (CardSet(sum(map(bit, deck[0::4]))), CardSet(sum(map(bit, deck[1::4]))),
            CardSet(sum(map(bit, deck[2::4]))), CardSet(sum(map(bit, deck[3::4]))))


_CARD_BITS = tuple(1 << index for index in range(48))


def _mask_of(cards: CardSet | Iterable[Card] | str) -> int:
    return cards.mask if isinstance(cards, CardSet) else CardSet(cards).mask


def _lead_card_of(lead_card: Card | str | None, options: TableOptions) -> Card:
    if lead_card is None:
        if options.lead is LeadCard.AUTO:
            raise ValueError("lead_card 'auto' must be resolved by the caller "
                             "(see options.resolve_lead_card)")
        lead_card = options.lead_card
    return Card.from_index(parse_card(lead_card)) if isinstance(lead_card, str) else lead_card


def _check_lead_card(lead_card: Card) -> None:
    LeadCard.opening(lead_card)


@dataclass(frozen=True, slots=True)
class SeatView:
    """What one seat may know: its own cards and the public state, nothing else."""

    seat: int
    cards: CardSet                            # the seat's own cards now
    dealt: CardSet                            # the seat's own cards at the deal
    hand_sizes: tuple[int, ...]
    played: tuple[CardSet, ...]               # cards each seat has played
    shown: tuple[CardSet, ...]                # publicly known cards in each hand (the opening
                                              # 3 until played, exposed red tens)
    history: tuple[Action, ...]               # public actions, declines left out
    decision: Decision
    top: Combo | None
    top_cards: CardSet
    top_seat: int | None
    finish: tuple[int, ...]
    multiplier: int
    red: frozenset[int]                       # seats this seat knows were dealt a red ten
    teams: tuple[frozenset[int], frozenset[int]] | None   # (red, black) once known to it
    scores: tuple[int, int, int, int] | None


# SeatView(...) without the frozen dataclass __init__ (object.__setattr__ per field):
# the slots' own setters, in field order. view() builds one for every bot decision.
_VIEW_SETTERS = tuple(getattr(SeatView, f.name).__set__ for f in fields(SeatView))
assert len(_VIEW_SETTERS) == 16


def _new_view(seat: int, cards: CardSet, dealt: CardSet, hand_sizes: tuple[int, ...],
              played: tuple[CardSet, ...], shown: tuple[CardSet, ...], history: tuple[Action, ...],
              decision: Decision, top: Combo | None, top_cards: CardSet, top_seat: int | None,
              finish: tuple[int, ...], multiplier: int, red: frozenset[int],
              teams: tuple[frozenset[int], frozenset[int]] | None,
              scores: tuple[int, int, int, int] | None) -> SeatView:
    (set_seat, set_cards, set_dealt, set_sizes, set_played, set_shown, set_history,
     set_decision, set_top, set_top_cards, set_top_seat, set_finish, set_multiplier,
     set_red, set_teams, set_scores) = _VIEW_SETTERS
    view = _new_object(SeatView)
    set_seat(view, seat)
    set_cards(view, cards)
    set_dealt(view, dealt)
    set_sizes(view, hand_sizes)
    set_played(view, played)
    set_shown(view, shown)
    set_history(view, history)
    set_decision(view, decision)
    set_top(view, top)
    set_top_cards(view, top_cards)
    set_top_seat(view, top_seat)
    set_finish(view, finish)
    set_multiplier(view, multiplier)
    set_red(view, red)
    set_teams(view, teams)
    set_scores(view, scores)
    return view


class Hand:
    """One hand: create with :meth:`deal_from` (or the constructor on masks), or for one
    peer that knows only its own cards with :meth:`for_peer` (hidden mode).

    Key methods: :attr:`decision`, :meth:`legal_actions`, :meth:`apply` (one
    seat's action), :meth:`resolve` (a complete set of answers), :meth:`view`,
    :meth:`state_hash`. Everything is public knowledge except the hands, which
    only :meth:`cards` and :meth:`view` of their own seat show.

    Both modes are one state machine. Per seat it tracks the *known* cards in
    hand and the hand size; the cards known nowhere form the *unknown* pool (empty
    with the full deal). Whether a seat may open some cards is the one check that
    depends on knowledge (:meth:`_check_holds`: known in its hand or unknown);
    every other rule reads only sizes and public state, so both modes decide alike.
    """

    __slots__ = (
        "options", "lead_card", "first_leader", "peer", "_dealt", "_hands", "_sizes", "_unknown",
        "_played", "_played_by",
        "_shown", "_active", "_finish", "_decision", "_turn", "_top", "_top_mask", "_top_seat",
        "_passes", "_started", "_runner", "_stops", "_multiplier", "_single_seat", "_rank",
        "_chata_seat", "_resume", "_history", "_scoring", "_scores",
        "_red_public", "_view_sets", "_open_seats",
    )

    def __init__(self, dealt: Sequence[int], lead_card: Card, options: TableOptions = TableOptions(),
                 scoring: ScoringTable = DEFAULT_SCORING) -> None:
        masks = [int(m) for m in dealt]
        if len(masks) != SEATS:
            raise DealError(f"a deal has four hands, not {len(masks)}")
        union = 0
        for seat, mask in enumerate(masks):
            if mask.bit_count() != 12:
                raise DealError(f"seat {seat} must be dealt 12 cards, not {mask.bit_count()}")
            if union & mask:
                raise DealError(f"{CardSet(union & mask)} dealt to two seats")
            union |= mask
        if union != FULL_DECK:
            raise DealError("the deal must use the 48 cards")
        _check_lead_card(lead_card)
        first_leader = next(s for s in range(SEATS) if masks[s] & lead_card.mask)
        self._setup(masks, None, first_leader, lead_card, options, scoring)

    @classmethod
    def for_peer(cls, seat: int, my_cards: CardSet | Iterable[Card] | str | int, first_leader: int,
                 lead_card: Card | str | None = None, options: TableOptions = TableOptions(),
                 scoring: ScoringTable = DEFAULT_SCORING, shown: dict[int, int] | None = None) -> Hand:
        """The hand as the peer at ``seat`` sees it: its own 12 cards, the others unknown
        (but ``shown``: seat -> the 12 cards of a hand open to all, an open bot's).

        ``first_leader`` is the seat that proved it holds the opening 3 (public before
        the declaration). Feed it every action of the table, exactly as a full hand:
        a seat may open a card known in its hand or not known anywhere (the
        protocol's proofs vouch that it was dealt there). Methods that need a whole
        hand (:meth:`cards`, :meth:`legal_actions`, :meth:`view`) work for ``seat``
        (and for any seat whose cards have all become known) and raise
        :class:`HiddenInformationError` for the others.
        """
        mine = my_cards if isinstance(my_cards, int) else _mask_of(my_cards)
        for value in (seat, first_leader):
            if not 0 <= value < SEATS:
                raise DealError(f"seats are numbered 0-3, not {value}")
        if not 0 <= mine <= FULL_DECK or mine.bit_count() != 12:
            raise DealError(f"a seat is dealt 12 cards, not {mine.bit_count()}")
        lead = _lead_card_of(lead_card, options)
        _check_lead_card(lead)
        known = [mine if s == seat else 0 for s in range(SEATS)]
        for other, cards in (shown or {}).items():
            if other == seat or not 0 <= other < SEATS or not 0 <= cards <= FULL_DECK or cards.bit_count() != 12 \
                    or any(cards & k for k in known):
                raise DealError(f"S{other}'s shown hand is not 12 cards of its own")
            known[other] = cards
        for s, cards in enumerate(known):
            if cards and (s == first_leader) != bool(cards & lead.mask):
                raise DealError(f"S{s} {'must hold' if s == first_leader else 'cannot hold'} the "
                                f"{lead}: S{first_leader} leads")
        hand = object.__new__(cls)
        hand._setup(known, seat, first_leader, lead, options, scoring)
        return hand

    def _setup(self, known: list[int], peer: int | None, first_leader: int, lead_card: Card,
               options: TableOptions, scoring: ScoringTable) -> None:
        self.options = options
        self.lead_card = lead_card
        self.first_leader = first_leader
        self.peer = peer                    # the seat a hidden-mode hand is run for, else None
        self._scoring = scoring
        self._dealt = known                 # cards known to have been dealt to each seat
        self._hands = list(known)           # cards known to be in each hand now
        self._sizes = [12, 12, 12, 12]
        self._unknown = FULL_DECK
        for mask in known:
            self._unknown &= ~mask
        self._played = 0
        self._played_by = [0, 0, 0, 0]
        # The first leader proves it holds the opening 3 before the declaration: public.
        self._learn(first_leader, lead_card.mask)
        self._shown = [lead_card.mask if s == first_leader else 0 for s in range(SEATS)]
        self._active = [True, True, True, True]
        self._finish: list[int] = []
        self._turn = first_leader
        self._top: Combo | None = None
        self._top_mask = 0
        self._top_seat = -1
        self._passes = 0
        self._started = False
        self._runner = -1
        self._stops: tuple[int, ...] = ()
        self._multiplier = 1
        self._single_seat = -1
        self._rank = -1
        self._chata_seat = -1
        self._resume = -1
        self._history: list[Action] = []
        self._scores: tuple[int, int, int, int] | None = None
        # view() caches: the red side once it is public (the same for every viewer from
        # then on), and the last CardSets of played_by and shown (reused while unchanged).
        self._red_public: tuple[frozenset[int], tuple[frozenset[int], frozenset[int]] | None] | None = None
        self._open_seats: frozenset[int] = frozenset()   # hands open to all (an open bot): their red tens are public
        self._view_sets: tuple[tuple[CardSet, ...], tuple[CardSet, ...]] = (_NO_SETS, _NO_SETS)
        if options.running == "before_first_play":
            self._decision = Decision(_RUN, _order_from(first_leader))
        else:
            self._decision = Decision(_TURN, (first_leader,))

    @classmethod
    def deal_from(cls, hands: Sequence[CardSet | Iterable[Card] | str], lead_card: Card | str | None = None,
                  options: TableOptions = TableOptions()) -> Hand:
        """A hand from four hands of cards; ``lead_card`` is ``3H``/``3S`` or from ``options``."""
        return cls([_mask_of(h) for h in hands], _lead_card_of(lead_card, options), options)

    @classmethod
    def random(cls, rng: Random, lead_card: Card | str = "3H", options: TableOptions = TableOptions()) -> Hand:
        return cls.deal_from(random_deal(rng), lead_card, options)

    def copy(self) -> Hand:
        """An independent copy (cheap: a few small lists)."""
        other = object.__new__(Hand)
        for name in Hand.__slots__:
            value = getattr(self, name)
            setattr(other, name, value.copy() if isinstance(value, list) else value)
        return other

    # -- what is known ---------------------------------------------------------------

    @property
    def dealt(self) -> tuple[int, ...]:
        """Masks of the cards dealt to seats 0-3 (hidden mode: those known so far;
        complete once the hand is over)."""
        return tuple(self._dealt)

    def open_to_all(self, seats: Iterable[int]) -> None:
        """``seats`` play with their hands open to all (a bot in an empty seat): every viewer
        knows whether they were dealt a red ten. Set before the first action."""
        self._open_seats = frozenset(seats)
        self._red_public = None

    def is_known(self, seat: int) -> bool:
        """Whether every card ``seat`` holds now is known (always with the full deal)."""
        return self._hands[seat].bit_count() == self._sizes[seat]

    def unknown_cards(self) -> CardSet:
        """Cards not known to be anywhere (in no known hand, not played); empty with the full deal."""
        return CardSet(self._unknown)

    def reveal(self, seat: int, cards: CardSet | Iterable[Card] | str | int) -> None:
        """Learn cards ``seat`` holds now, shown outside the actions (hidden mode).

        E.g. after the keys are revealed for an abandoned hand. The cards must be
        possible (in its known cards or unknown, within its hand size); they become
        known in that hand, so once a seat's whole hand is revealed its
        :meth:`cards` work. Public state and the state hash do not change.
        (At the end of a hand nothing needs revealing: the fourth player's cards
        are the unplayed ones.)
        """
        mask = cards if isinstance(cards, int) else _mask_of(cards)
        self._check_holds(seat, mask)
        self._learn(seat, mask)

    def _require_known(self, seat: int) -> None:
        if not self.is_known(seat):
            raise HiddenInformationError(
                f"S{seat}'s cards are hidden from this peer: {self._hands[seat].bit_count()} of its "
                f"{self._sizes[seat]} cards are known")

    def _check_holds(self, seat: int, mask: int) -> None:
        """Raise unless ``seat`` may hold ``mask``: cards known in its hand, or unknown ones
        (at most as many as it holds unknown cards)."""
        hand = self._hands[seat]
        missing = mask & ~(hand | self._unknown)
        if missing:  # the same message in both modes (the full deal has no unknown pool)
            raise IllegalActionError(f"S{seat} does not hold {CardSet(missing)}", seat)
        free = self._sizes[seat] - hand.bit_count()
        if (mask & ~hand).bit_count() > free:  # possible only on partial information
            raise IllegalActionError(f"S{seat} does not hold {CardSet(mask & ~hand)}: only {free} of "
                                     f"its {self._sizes[seat]} cards are unknown", seat)

    def _learn(self, seat: int, mask: int) -> None:
        """``seat`` has opened ``mask`` (already checked): unknown cards there were dealt to it.

        (Cards that change hands, the exchanged red tens, are always known first.)
        """
        new = mask & self._unknown
        self._unknown ^= new
        self._hands[seat] |= new
        self._dealt[seat] |= new

    def _red_dealt_to(self, bit: int) -> int | None:
        for s, mask in enumerate(self._dealt):
            if mask & bit:
                return s
        return None

    # -- public state ----------------------------------------------------------------

    @property
    def decision(self) -> Decision:
        return self._decision

    @property
    def is_over(self) -> bool:
        return self._decision.kind is _OVER

    @property
    def turn(self) -> int | None:
        """The seat on turn, when the decision is a TURN."""
        return self._turn if self._decision.kind is _TURN else None

    @property
    def top(self) -> Combo | None:
        """The play to beat in the current round (``None`` when a lead is due)."""
        return self._top

    @property
    def top_cards(self) -> CardSet:
        return CardSet(self._top_mask)

    @property
    def top_seat(self) -> int | None:
        return self._top_seat if self._top_seat >= 0 else None

    @property
    def finish(self) -> tuple[int, ...]:
        """Seats in finishing order so far (all four once the hand is over)."""
        return tuple(self._finish)

    @property
    def active_seats(self) -> tuple[int, ...]:
        return tuple(s for s in range(SEATS) if self._active[s])

    @property
    def red_seats(self) -> tuple[int, ...]:
        """Seats dealt a red ten (the red side), ascending.

        Hidden mode: known once both red tens' dealt holders are (a run, plays,
        the end of the hand); before that :class:`HiddenInformationError`.
        """
        holders = {self._red_dealt_to(card.mask) for card in _RED_TENS}
        if None in holders:
            raise HiddenInformationError("the red side is not known to this peer yet: a red ten's "
                                         "holder is known once it is run, exposed or played")
        return tuple(sorted(s for s in holders if s is not None))

    @property
    def runner(self) -> int | None:
        return self._runner if self._runner >= 0 else None

    @property
    def stops(self) -> tuple[int, ...]:
        return self._stops

    @property
    def multiplier(self) -> int:
        return self._multiplier

    @property
    def history(self) -> tuple[Action, ...]:
        """Every effective public action in order (declines are left out)."""
        return tuple(self._history)

    @property
    def scores(self) -> tuple[int, int, int, int] | None:
        """Scores of seats 0-3 once the hand is over, else ``None``."""
        return self._scores

    def cards(self, seat: int) -> CardSet:
        """The cards ``seat`` holds now (hidden information: for that seat only)."""
        self._require_known(seat)
        return CardSet(self._hands[seat])

    def hand_size(self, seat: int) -> int:
        return self._sizes[seat]

    def played_by(self, seat: int) -> CardSet:
        return CardSet(self._played_by[seat])

    def fourth_shows(self) -> CardSet:
        """The cards the fourth player shows at the end of the hand (empty before)."""
        return CardSet(self._hands[self._finish[3]]) if self.is_over else CardSet()

    # -- legal actions ---------------------------------------------------------------

    def legal_play_masks(self, seat: int) -> list[int]:
        """Masks of the legal plays of ``seat`` now (fast; empty if not its turn)."""
        hand = self._hands[seat]
        if hand.bit_count() != self._sizes[seat]:
            self._require_known(seat)
        if self._decision.kind is not _TURN or seat != self._turn:
            return []
        masks = legal_plays(hand, self._top)
        if not self._started and self.options.lead_must_contain_3:
            masks = [m for m in masks if m & self.lead_card.mask]
        return masks

    def legal_plays(self, seat: int) -> list[CardSet]:
        return [CardSet(m) for m in self.legal_play_masks(seat)]

    def legal_actions(self, seat: int) -> list[Action]:
        """Every answer ``seat`` may give to the current decision (empty if not asked)."""
        hand = self._hands[seat]
        if hand.bit_count() != self._sizes[seat]:
            self._require_known(seat)
        d = self._decision
        if seat not in d.seats:
            return []
        kind = d.kind
        if kind is _TURN:
            actions: list[Action] = [Play(seat, CardSet(m)) for m in self.legal_play_masks(seat)]
            if self._top is not None:
                actions.append(Pass(seat))
            if self._may_run_now(seat):
                actions.insert(0, Run(seat, CardSet(hand & PIG_MASK)))
            return actions
        actions = []
        if kind is _RUN:
            if hand & PIG_MASK:
                actions.append(Run(seat, CardSet(hand & PIG_MASK)))
        elif kind is _EXPOSE:
            if hand & PIG_MASK:
                return [Expose(seat, CardSet(hand & PIG_MASK))]  # forced
        elif kind is _STOP:
            actions.append(Stop(seat))
        elif kind is _CHATA:
            shift = self._rank * 4
            for pair in _CHATA_PAIRS[hand >> shift & 15]:
                actions.append(Chata(seat, CardSet(pair << shift)))
        elif kind is _KKOJDA:
            fourth = (15 << (self._rank * 4)) & ~self._played
            if hand & fourth:
                actions.append(Kkojda(seat, CardSet(fourth)))
        actions.append(_DECLINES[seat])  # immutable: one per seat will do
        return actions

    def _may_run_now(self, seat: int) -> bool:
        return (self.options.running == "any_own_turn" and self._runner < 0
                and not self._played & PIG_MASK and bool(self._hands[seat] & PIG_MASK))

    # -- applying actions ------------------------------------------------------------

    def apply(self, action: Action) -> None:
        """Apply one seat's action: a TURN's play or pass, or a one-seat window's answer."""
        if self._decision.kind is _TURN and action.seat == self._turn:
            # _turn_action(), with its two usual cases first
            if action.__class__ is Play:  # narrows the type (a variable holding the class would not)
                self._play(action.seat, action)
            elif action.__class__ is Pass and self._top is not None:
                self._passes += 1
                self._history.append(action)
                self._advance(action.seat)
            else:
                self._turn_action(action)
        else:
            self.resolve((action,))

    def resolve(self, answers: Iterable[Action] | Mapping[int, Action]) -> None:
        """Resolve the current decision from the complete set of answers.

        Every seat in ``decision.seats`` answers exactly once; the outcome does not
        depend on the order of ``answers``.
        """
        if isinstance(answers, Mapping):
            answers = answers.values()
        d = self._decision
        if d.kind is _OVER:
            raise IllegalActionError("the hand is over: no more actions are allowed")
        seats = d.seats
        ordered = list(answers)
        if len(ordered) == len(seats):
            for action, seat in zip(ordered, seats, strict=True):
                if action.seat != seat:
                    ordered = self._in_order(ordered)
                    break
        else:
            ordered = self._in_order(ordered)
        # (_in_order: not simply one answer per seat in the decision's order, the drivers'
        # way: it finds the first fault, or puts the answers in that order.)
        allowed = _ALLOWED[d.kind]
        for action in ordered:
            if not isinstance(action, allowed):
                raise IllegalActionError(
                    f"S{action.seat} must answer {_WINDOW_NAMES[d.kind]} now, not {action.verb}", action.seat)
        if d.kind is _TURN:
            self._turn_action(ordered[0])
        elif d.kind is _RUN:
            self._resolve_run(ordered)
        elif d.kind is _EXPOSE:
            self._resolve_expose(ordered)
        elif d.kind is _STOP:
            self._resolve_stop(ordered)
        elif d.kind is _CHATA:
            self._resolve_chata(ordered)
        else:
            self._resolve_kkojda(ordered)

    def _in_order(self, answers: list[Action]) -> list[Action]:
        """The answers in the decision's seat order; raises if a seat answers twice, is
        not asked, or has not answered."""
        d = self._decision
        by_seat: dict[int, Action] = {}
        for action in answers:
            if action.seat in by_seat:
                raise IllegalActionError(f"S{action.seat} answered twice", action.seat)
            if action.seat not in d.seats:
                raise IllegalActionError(self._not_asked(action.seat), action.seat)
            by_seat[action.seat] = action
        for seat in d.seats:
            if seat not in by_seat:
                raise IllegalActionError(f"S{seat} has not answered the {d.kind.value} decision", seat)
        return [by_seat[s] for s in d.seats]

    def _not_asked(self, seat: int) -> str:
        d = self._decision
        if d.kind is _TURN:
            return f"it is S{self._turn}'s turn, not S{seat}'s"
        return f"S{seat} is not asked in the {d.kind.value} window"

    def _turn_action(self, action: Action) -> None:
        seat = action.seat
        if seat != self._turn or self._decision.kind is not _TURN:
            raise IllegalActionError(self._not_asked(seat), seat)
        if isinstance(action, Play):
            self._play(seat, action)
        elif isinstance(action, Pass):
            if self._top is None:
                raise IllegalActionError(f"S{seat} leads this round and cannot pass", seat)
            self._passes += 1
            self._history.append(action)
            self._advance(seat)
        elif isinstance(action, Run):
            self._check_run(action, at_turn=True)
            self._resume = seat
            self._start_run(seat, action, None)
        else:
            raise IllegalActionError(f"S{seat} must play or pass on its turn, not {action.verb}", seat)

    def _play(self, seat: int, action: Play) -> None:
        mask = action.cards.mask
        if not mask:
            raise IllegalActionError("a play must contain at least one card", seat)
        if mask & ~self._hands[seat]:  # cards known in its hand always pass
            self._check_holds(seat, mask)
        # classify() needs the whole hand only to see TH TD as the last two cards:
        # the hand size says whether the play is the whole hand.
        combo = classify(mask, mask if mask.bit_count() == self._sizes[seat] else 0)
        if combo is None:
            raise IllegalActionError(f"{action.cards} is not a combination", seat)
        top = self._top
        if top is not None and not beats(combo, top):
            raise IllegalActionError(why_not(combo, top), seat)
        if not self._started and self.options.lead_must_contain_3 and not mask & self.lead_card.mask:
            raise IllegalActionError(f"the first play of the hand must contain the {self.lead_card} "
                                     "(option lead_must_contain_3)", seat)
        self._remove(seat, mask)
        self._history.append(action)
        self._started = True
        self._top = combo
        self._top_mask = mask
        self._top_seat = seat
        self._passes = 0
        if not self._sizes[seat] and self._go_out(seat):
            return
        if combo.kind is _KIND_SINGLE and self._chata_possible(seat, combo.rank):
            self._single_seat = seat
            self._rank = combo.rank
            active = self._active
            self._decision = Decision(_CHATA, tuple(
                s for s in _ORDERS[seat][1:] if active[s]))
        else:
            self._advance(seat)

    def _remove(self, seat: int, mask: int) -> None:
        if mask & self._unknown:
            self._learn(seat, mask)
        self._hands[seat] &= ~mask
        self._sizes[seat] -= mask.bit_count()
        self._shown[seat] &= ~mask
        self._played |= mask
        self._played_by[seat] |= mask

    def _go_out(self, seat: int) -> bool:
        """``seat`` has played its last card; returns whether the hand is now over."""
        self._active[seat] = False
        self._finish.append(seat)
        if len(self._finish) < 3:
            return False
        last = next(s for s in range(SEATS) if self._active[s])
        self._learn(last, self._unknown)  # the fourth shows its cards: all the unplayed ones
        self._active[last] = False
        self._finish.append(last)
        self._decision = Decision(_OVER, ())
        self._scores = score_hand(self._finish, self.red_seats, self._multiplier, self._scoring)
        return True

    def _next_active(self, seat: int) -> int:
        active = self._active
        for s in _AFTER[seat]:
            if active[s]:
                return s
        raise AssertionError("no active seat")

    def _advance(self, seat: int) -> None:
        """After ``seat`` played or passed: next turn, or the round ends."""
        others = SEATS - len(self._finish) - self._active[self._top_seat]
        if self._passes >= others:
            self._new_round(self._top_seat)
        else:
            self._turn = self._next_active(seat)
            self._decision = _TURNS[self._turn]

    def _new_round(self, last: int) -> None:
        """The round is over; ``last`` leads, or the next active seat if it has gone out."""
        leader = last if self._active[last] else self._next_active(last)
        self._top = None
        self._top_mask = 0
        self._top_seat = -1
        self._passes = 0
        self._turn = leader
        self._decision = _TURNS[leader]

    def _chata_possible(self, seat: int, rank: int) -> bool:
        """Public knowledge: could any other active seat hold two cards of ``rank``?"""
        unplayed = (15 << (rank * 4)) & ~self._played
        if unplayed.bit_count() < 2:
            return False
        active = self._active
        sizes = self._sizes
        shown = self._shown
        for other in range(SEATS):
            if other == seat or not active[other] or sizes[other] < 2:
                continue
            elsewhere = 0
            for s in range(SEATS):
                if s != other:
                    elsewhere |= shown[s]
            if (unplayed & ~elsewhere).bit_count() >= 2:
                return True
        return False

    def _resolve_chata(self, answers: list[Action]) -> None:
        shift = self._rank * 4
        claims = []
        claimed = 0
        for action in answers:
            if isinstance(action, Chata):
                mask = action.cards.mask
                if mask.bit_count() != 2 or mask & ~(15 << shift):
                    raise IllegalActionError(
                        f"a chata is two cards of the single's rank ({'3456789TJQKA'[self._rank]})", action.seat)
                self._check_holds(action.seat, mask)
                if mask & claimed:  # possible only on partial information
                    raise IllegalActionError(f"{CardSet(mask & claimed)} cannot be in two hands")
                claimed |= mask
                claims.append(action)
        if not claims:
            self._advance(self._single_seat)
            return
        claim = claims[0]  # answers run in seat order from the single's player
        seat = claim.seat
        self._remove(seat, claim.cards.mask)
        self._history.append(claim)
        self._chata_seat = seat
        self._top = classify(claim.cards.mask)
        self._top_mask = claim.cards.mask
        self._top_seat = seat
        if not self._sizes[seat] and self._go_out(seat):
            return
        if (15 << shift) & ~self._played:
            self._decision = Decision(_KKOJDA, tuple(
                s for s in _order_from(self._single_seat) if self._active[s]))
        else:
            self._new_round(seat)

    def _resolve_kkojda(self, answers: list[Action]) -> None:
        fourth = (15 << (self._rank * 4)) & ~self._played
        claim = None
        for action in answers:
            if isinstance(action, Kkojda):
                if action.cards.mask != fourth:
                    raise IllegalActionError(f"a kkojda is the fourth card of the rank, {CardSet(fourth)}", action.seat)
                self._check_holds(action.seat, fourth)
                if claim is not None:  # possible only on partial information
                    raise IllegalActionError(f"{CardSet(fourth)} cannot be in two hands")
                claim = action
        if claim is None:
            self._new_round(self._chata_seat)
            return
        seat = claim.seat
        self._remove(seat, fourth)
        self._history.append(claim)
        self._top = classify(fourth)
        self._top_mask = fourth
        self._top_seat = seat
        if not self._sizes[seat] and self._go_out(seat):
            return
        self._new_round(seat)

    # -- running and Stop --------------------------------------------------------------

    def _check_run(self, action: Run, at_turn: bool) -> None:
        seat = action.seat
        if self._runner >= 0:
            raise IllegalActionError("only one run is allowed per hand", seat)
        if at_turn:
            if self.options.running != "any_own_turn":
                raise IllegalActionError("running is allowed only before the first play "
                                         "(option running=before_first_play)", seat)
            if self._played & PIG_MASK:
                raise IllegalActionError("running is allowed only while both red tens are in hands", seat)
        cards = action.cards.mask
        known = self._hands[seat] & PIG_MASK                      # the whole hand's, in full mode
        possible = (self._hands[seat] | self._unknown) & PIG_MASK
        if not possible:
            raise IllegalActionError(f"S{seat} holds no red ten and cannot run", seat)
        if known == PIG_MASK and cards != PIG_MASK:
            raise IllegalActionError("a lone holder of both red tens must expose both to run", seat)
        if not cards or cards & ~possible or known & ~cards:
            raise IllegalActionError(f"a run exposes the runner's own red ten ({CardSet(known or possible)})", seat)
        self._check_holds(seat, cards)

    def _resolve_run(self, answers: list[Action]) -> None:
        runs = [a for a in answers if isinstance(a, Run)]
        for action in runs:
            self._check_run(action, at_turn=False)
        if not runs:
            self._decision = Decision(_TURN, (self.first_leader,))
            return
        if len(runs) > 1 and (len(runs) > 2 or runs[0].cards.mask & runs[1].cards.mask
                              or runs[0].cards.mask | runs[1].cards.mask != PIG_MASK):
            # possible only on partial information
            raise IllegalActionError("only the two partners can both answer run, each with its own red ten")
        # The first runner in turn order from the first leader runs; a partner who
        # also answered "run" has made the forced exposure already.
        self._start_run(runs[0].seat, runs[0], runs[1] if len(runs) > 1 else None)

    def _start_run(self, seat: int, action: Run, partner: Run | None) -> None:
        self._learn(seat, action.cards.mask)
        self._shown[seat] |= action.cards.mask
        self._runner = seat
        self._multiplier = 2
        self._history.append(action)
        if action.cards.mask == PIG_MASK:  # a lone holder: no partner, no exchange
            self._open_stop_window()
            return
        if partner is not None:
            self._exchange(partner.seat, partner.cards.mask)
            return
        self._decision = Decision(_EXPOSE, _order_from(seat)[1:])

    def _resolve_expose(self, answers: list[Action]) -> None:
        """Whoever exposes the other red ten is the partner (hidden mode cannot know before)."""
        # The runner's ten is known since its run (a holder of both must run with both).
        other = PIG_MASK & ~self._hands[self._runner]
        exposed = [a for a in answers if isinstance(a, Expose)]
        action: Action  # an Expose in the first loop, any answer in the second
        for action in exposed:
            if action.cards.mask != other:
                raise IllegalActionError(f"the partner exposes the other red ten ({CardSet(other)}), "
                                         f"not {action.cards}", action.seat)
            self._check_holds(action.seat, other)
        for action in answers:
            if isinstance(action, Decline) and self._hands[action.seat] & other:
                raise IllegalActionError(
                    f"S{action.seat} holds the other red ten and must expose it after its partner's run", action.seat)
        if len(exposed) > 1:  # possible only on partial information
            raise IllegalActionError(f"{CardSet(other)} cannot be in two hands: "
                                     + " and ".join(f"S{a.seat}" for a in exposed) + " exposed it")
        if not exposed:  # only on partial information: the full deal names the holder above
            raise AuditNeededError(
                f"nobody exposed the other red ten ({CardSet(other)}) after S{self._runner}'s run: "
                "either its holder declined or the runner holds both red tens; only the audit of "
                "the deal can tell")
        self._exchange(exposed[0].seat, other)

    def _exchange(self, partner: int, theirs: int) -> None:
        runner = self._runner
        mine = self._hands[runner] & PIG_MASK
        self._learn(partner, theirs)
        self._history.append(Expose(partner, CardSet(theirs)))
        self._hands[runner] ^= mine | theirs
        self._hands[partner] ^= mine | theirs
        self._shown[runner] ^= mine | theirs
        self._shown[partner] |= mine
        self._open_stop_window()

    def _open_stop_window(self) -> None:
        red = self.red_seats
        order = _order_from(self.first_leader)
        self._decision = Decision(_STOP, tuple(s for s in order if s not in red))

    def _resolve_stop(self, answers: list[Action]) -> None:
        stops = [a for a in answers if isinstance(a, Stop)]
        self._history.extend(stops)
        self._stops = tuple(a.seat for a in stops)
        if stops:
            self._multiplier = 4
        seat = self._resume if self._resume >= 0 else self.first_leader
        self._resume = -1
        self._turn = seat
        self._decision = Decision(_TURN, (seat,))

    # -- views and hashing -------------------------------------------------------------

    def _known_red(self, viewer: int | None) -> dict[int, int]:
        """Red ten index -> seat dealt it, for the red tens whose holder ``viewer`` knows."""
        known: dict[int, int] = {}
        s0, s1, s2, s3 = self._shown
        seen = self._played | s0 | s1 | s2 | s3
        over = self._decision.kind is _OVER
        dealt = self._dealt
        for index, bit in _RED_TEN_BITS:
            for dealt_to in range(SEATS):  # hidden mode: known when public or own
                if dealt[dealt_to] & bit:
                    # public: run, exposed (then exchanged) or played
                    if seen & bit or over or dealt_to == viewer or dealt_to in self._open_seats:
                        known[index] = dealt_to
                    break
        return known

    def _red_side(self, viewer: int) -> tuple[frozenset[int], tuple[frozenset[int], frozenset[int]] | None]:
        """(red, teams) of :meth:`view`: the seats ``viewer`` knows were dealt a red ten."""
        cached = self._red_public
        if cached is not None:
            return cached
        known = self._known_red(viewer)
        red = frozenset(known.values())
        teams = None
        if len(known) == 2:
            teams = (red, _ALL_SEATS - red)
            seen = self._played
            for mask in self._shown:
                seen |= mask
            if seen & PIG_MASK == PIG_MASK or self.is_over:
                # Both holders known and both tens public: every viewer knows them from now
                # on (dealt cards and public cards only grow), so this answer never changes.
                self._red_public = (red, teams)
        return red, teams

    def view(self, seat: int) -> SeatView:
        """Everything ``seat`` may know, and nothing more (its own cards must be known)."""
        hands = self._hands
        if hands[seat].bit_count() != self._sizes[seat]:
            self._require_known(seat)
        red, teams = self._red_side(seat)
        played, shown = self._view_sets
        m0, m1, m2, m3 = self._played_by
        if (played[0].mask != m0 or played[1].mask != m1 or played[2].mask != m2
                or played[3].mask != m3):
            played = (_cardset(m0), _cardset(m1), _cardset(m2), _cardset(m3))
            self._view_sets = (played, shown)
        m0, m1, m2, m3 = self._shown
        if shown[0].mask != m0 or shown[1].mask != m1 or shown[2].mask != m2 or shown[3].mask != m3:
            shown = (_cardset(m0), _cardset(m1), _cardset(m2), _cardset(m3))
            self._view_sets = (played, shown)
        top_seat = self._top_seat
        return _new_view(
            seat,
            _cardset(hands[seat]),
            _cardset(self._dealt[seat]),
            tuple(self._sizes),
            played,
            shown,
            tuple(self._history),
            self._decision,
            self._top,
            _cardset(self._top_mask),
            top_seat if top_seat >= 0 else None,
            tuple(self._finish),
            self._multiplier,
            red,
            teams,
            self._scores,
        )

    def public_state(self) -> tuple[int, ...]:
        """A canonical tuple of the public state (what every peer can compute)."""
        d = self._decision
        fields = [
            2,  # encoding version (2: the opening 3 is shown in the first leader's hand)
            self.lead_card.index, int(self.options.lead_must_contain_3),
            ("before_first_play", "any_own_turn").index(self.options.running),
            self.first_leader, list(DecisionKind).index(d.kind), len(d.seats), *d.seats,
            self._turn, self._top_mask, self._top_seat, self._passes, int(self._started),
            self._runner, self._multiplier, len(self._stops), *self._stops,
            self._single_seat, self._rank, self._chata_seat, self._resume,
            len(self._finish), *self._finish, len(self._history),
        ]
        for seat in range(SEATS):
            fields += [self._sizes[seat], self._played_by[seat], self._shown[seat]]
        return tuple(fields)

    def state_hash(self) -> str:
        """SHA-256 (hex) of :meth:`public_state`; equal on every peer, hides the hands."""
        data = b"".join(v.to_bytes(8, "big", signed=True) for v in self.public_state())
        return hashlib.sha256(b"p2p-sasaki/hand/v1\x00" + data).hexdigest()

    def __repr__(self) -> str:
        return (f"<Hand {self._decision!r} top={self.top_cards!s:s} finish={self._finish} "
                f"x{self._multiplier}>")
