"""Sasku behind the game interface (protocol/game.py): the engine (p2p_sasaki.sasku.deal) as
the session sees it. Four seats in two fixed pairs, partners opposite (S0+S2, S1+S3); the 36
cards of the pack as the deck's cards 0..35 (deck card ``d`` is the engine's card index
``d + 12``: the pack is the shared 48-card index space without its 3s, 4s and 5s); no
opening card (forehand, the seat after the deal's dealer, bids first); a match is over when
a pair reaches the target. This is the one module of protocol/ that imports the Sasku
engine (tests/test_layers.py).

The picture giving runs through the card source's private hand-over (docs/protocol.md,
"Hand-over"; docs/rules-sasku.md, "At the table"):

  - on its bidding turn a seat says ``give`` (a TURN slot; public, no card): it must then
    hand its picture to its partner in a HAND_OVER slot (decision ``give``): only the pair
    learns the card;
  - the partner ``take``s or ``refuse``s (a TURN slot, decision ``answer``);
  - after ``take`` the partner hands a card back (HAND_OVER, decision ``return``); after
    ``refuse`` it hands the same picture back (HAND_OVER, decision ``give-back``: the
    engine's refuse moves nothing, the deck's position map must move it home);
  - then the giver's bidding turn goes on.

Every hidden rule is proven with its action over the deck (docs/protocol.md, "Hidden-card
rules at the table"): a play that does not follow, a ``give`` (its picture is its only one)
and a return (not a picture: :meth:`SaskuState.claim`), each over every position the seat
holds, a handed one re-locked under its key; a give-back hands back the refused picture's own
position (``Slot.hands_back``). What no proof covers (every rule with the tests' dealer) is
found by the replay of the full deal at the key reveal and scored by the rules' penalty
(:meth:`SaskuGame.penalty_scores`: the other pair scores 6; :meth:`SaskuState.penalise`).

>>> game = SaskuGame(SaskuOptions(target=2))
>>> game.card_name(0), game.card_name(35), game.hand_context(1)
('6C', 'AS', HandContext(number=1, dealer=3))
>>> game.encode_action(Bid(0, 6)), game.decode_action(0, "bid-six", ())
(('bid-six', ()), Bid(seat=0, number=6))
>>> game.forfeit_scores(1)
(6, 0, 6, 0)
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from p2p_sasaki.cards import Card, CardSet, Suit
from p2p_sasaki.errors import DealError, IllegalActionError
from p2p_sasaki.protocol.game import (
    TURN_PACE,
    Applied,
    HandContext,
    HiddenClaim,
    IllegalAnswer,
    Seating,
    Slot,
    SlotKind,
)
from p2p_sasaki.protocol.pace import Pace
from p2p_sasaki.sasku.bots import HeuristicBot
from p2p_sasaki.sasku.deal import (
    Action,
    Bid,
    Deal,
    Decision,
    DecisionKind,
    Diamonds,
    Give,
    Pass,
    Play,
    Refuse,
    Return,
    Take,
    TrumpCall,
    apply,
    dealer_of,
    legal_actions,
    partner_of,
    state_hash,
    view,
)
from p2p_sasaki.sasku.options import MAX_BID, SaskuOptions
from p2p_sasaki.sasku.records import write_record
from p2p_sasaki.sasku.trumps import PICTURES, follow_mask

__all__ = ["SASKU", "SaskuGame", "SaskuState", "SaskuOutcome", "GiveCall", "GiveBack", "HandOverDecision", "TableBot",
           "PACE_KINDS", "sasku_pace", "FAIR_PACE", "SEATS", "N_CARDS", "TEAMS", "to_deck", "to_engine"]

SASKU = "sasku"
SEATS = 4
N_CARDS = 36
_SHIFT = 12          # deck card d is the engine's card index d + 12 (the pack is 12..47)
TEAMS = ((0, 2), (1, 3))

# Sasku's pacing kinds, in the header's order: a bidding turn (and the give's hand-over that
# continues it), the partner's take-or-refuse, the card handed back, the trump call, a card to
# the trick.
PACE_KINDS: tuple[str, ...] = ("bid", "answer", "return", "trump", TURN_PACE)

_NUMBERS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_BID_VERBS = {f"bid-{_NUMBERS[n]}": n for n in range(1, MAX_BID + 1)}
_TRUMP_VERBS = {f"trump-{suit.name.lower()}": suit for suit in Suit}
_PLAIN_VERBS: dict[str, type[Pass] | type[Diamonds] | type[Take] | type[Refuse]] = {
    "pass": Pass, "diamonds": Diamonds, "take": Take, "refuse": Refuse}


def sasku_pace(bid: float = 1.0, turn: float = 1.0, answer: float = 30.0, stall: float = 120.0) -> Pace:
    """Sasku's pacing from seconds: ``bid`` for the auction's decisions (bid, answer, return,
    trump), ``turn`` for a card to the trick."""
    return Pace.of({kind: turn if kind == TURN_PACE else bid for kind in PACE_KINDS}, answer, stall)


FAIR_PACE = sasku_pace()


def to_engine(card: int) -> Card:
    """The engine's card for deck card ``card`` (0..35)."""
    return Card.from_index(card + _SHIFT)


def to_deck(card: Card) -> int:
    """The deck's card for the engine's ``card``."""
    return card.index - _SHIFT


@dataclass(frozen=True)
class GiveCall:
    """``seat`` says ``give`` on its bidding turn: its picture is handed over in the next slot."""

    seat: int
    verb = "give"

    def __str__(self) -> str:
        return f"S{self.seat} give"


@dataclass(frozen=True)
class GiveBack:
    """After a refuse, the partner hands the refused picture back (``card`` None: hidden here)."""

    seat: int
    card: Card | None
    verb = "give-back"

    def __str__(self) -> str:
        return f"S{self.seat} give-back" + (f" {self.card}" if self.card is not None else "")


@dataclass(frozen=True)
class HandOverDecision:
    """A HAND_OVER slot's question: ``kind`` ``give``, ``return`` or ``give-back``; ``seat``
    hands one card to ``receiver``, its partner."""

    kind: str
    seat: int
    receiver: int


@dataclass(frozen=True)
class SaskuOutcome:
    """A finished deal: the declarer (None: all passed), the trump, card points, tricks and
    the game points each pair scored."""

    declarer: int | None
    trump: str | None
    diamonds: bool
    card_points: tuple[int, int]
    tricks: tuple[int, int]
    points: tuple[int, int]


class SaskuState:
    """A Sasku deal behind :class:`~p2p_sasaki.protocol.game.GameState`: the engine's deal
    plus the two hand-over steps the engine does not have (the give's hand-over after the
    public ``give``, the give-back after a refuse)."""

    def __init__(self, deal: Deal, open_seats: frozenset[int] = frozenset(),
                 open_deals: dict[int, Deal] | None = None) -> None:
        self.deal = deal
        self.calling: int | None = None        # a seat that said give and owes its hand-over
        self.giving_back: int | None = None    # a partner that refused and owes the picture back
        self.refused: Card | None = None       # that picture, where this peer knows it
        self.broken: tuple[int, str, str] | None = None   # (seat, its action, why): a penalised rule break
        # The open bots (docs/rules-sasku.md, "An open bot in an empty seat"): their seats, and
        # each one's own view where it is not this peer's ``deal``. Their hands are public and
        # their pairs never hand a card over, so every peer and the audit follow them alike.
        self.open_seats = open_seats
        self.open: dict[int, Deal] = dict(open_deals or {})

    def __deepcopy__(self, memo: dict[int, object]) -> SaskuState:
        """An independent copy (the session keeps one to return to a slot it was voted out
        of). A :class:`Deal` is a value (:func:`apply` makes the next one), so the copy shares
        the deals and copies only the map of the open bots' views."""
        copied = SaskuState(self.deal, self.open_seats, self.open)
        copied.calling, copied.giving_back, copied.refused, copied.broken = (
            self.calling, self.giving_back, self.refused, self.broken)
        return copied

    # -- who answers ----------------------------------------------------------------------

    def slot(self) -> Slot | None:
        if self.calling is not None:
            return self._hand_over("give", self.calling)
        if self.giving_back is not None:
            return self._hand_over("give-back", self.giving_back, hands_back=True)
        d: Decision = self.deal.decision
        if d.seat is None:
            return None
        if d.kind is DecisionKind.RETURN:
            return self._hand_over("return", d.seat)
        return Slot(SlotKind.TURN, (d.seat,), d)

    @staticmethod
    def _hand_over(kind: str, seat: int, hands_back: bool = False) -> Slot:
        receiver = partner_of(seat)
        return Slot(SlotKind.HAND_OVER, (seat,), HandOverDecision(kind, seat, receiver), receiver=receiver,
                    hands_back=hands_back)

    def legal_actions(self, seat: int) -> list[Any]:
        slot = self.slot()
        if slot is None or seat not in slot.seats:
            return []
        if self.giving_back is not None:
            return [GiveBack(seat, self.refused)] if self.refused is not None else []
        actions: list[Any] = legal_actions(self.open.get(seat, self.deal))
        if self.calling is not None:
            return [a for a in actions if isinstance(a, Give)]
        if self._open_pair(seat):   # no picture giving in an open bot's pair
            return [a for a in actions if not isinstance(a, Give)]
        if any(isinstance(a, Give) for a in actions):
            actions = [GiveCall(seat) if isinstance(a, Give) else a for a in actions]
        return actions

    def _open_pair(self, seat: int) -> bool:
        return any(o % 2 == seat % 2 for o in self.open_seats)

    def claim(self, action: Any) -> HiddenClaim | None:
        """A play that does not follow proves the seat holds none of the cards that would have
        (a trump led: the 18 trumps; a plain card: its suit's six); a ``give`` proves that the
        picture it hands over is its only one; a return (the card handed back after ``take``)
        that it is not a picture (docs/protocol.md, "Hidden-card rules at the table"). A
        give-back hands back the refused picture's own position (``Slot.hands_back``)."""
        if isinstance(action, GiveCall):
            return HiddenClaim("give", PICTURES >> _SHIFT)
        if isinstance(action, Return):
            return HiddenClaim("return", PICTURES >> _SHIFT)
        deal = self.deal
        if isinstance(action, Play) and deal.trick and deal.trump is not None:
            follow = follow_mask(deal.trick[0].index, int(deal.trump))
            if not follow >> action.card.index & 1:
                return HiddenClaim("no-follow", follow >> _SHIFT)
        return None

    # -- applying a slot --------------------------------------------------------------------

    def apply(self, answers: Sequence[Any]) -> list[Applied]:
        slot = self.slot()
        if slot is None:
            raise IllegalAnswer(None, "the deal is over")
        if len(answers) != 1 or answers[0].seat != slot.seats[0]:
            raise IllegalAnswer(None, f"one answer, of seat {slot.seats[0]}")
        (action,) = answers
        seat = action.seat
        if self.calling is not None:
            if not isinstance(action, Give):
                raise IllegalAnswer(seat, f"S{seat} must hand its picture to its partner now")
            self._engine(action)
            self.calling = None
            return [Applied(action)]
        if self.giving_back is not None:
            if not isinstance(action, GiveBack):
                raise IllegalAnswer(seat, f"S{seat} must hand the refused picture back now")
            if action.card is not None and self.refused is not None and action.card != self.refused:
                raise IllegalAnswer(seat, f"S{seat} handed back {action.card}, not the refused {self.refused}")
            self.giving_back, self.refused = None, None
            return [Applied(action)]
        if isinstance(action, GiveCall):
            self._give_call(action)
            return [Applied(action)]
        before = self.deal
        self._engine(action)
        if isinstance(action, Refuse):
            self.giving_back, self.refused = seat, before.given
        return [Applied(action, lead=isinstance(action, Play) and not before.trick)]

    def _engine(self, action: Action) -> None:
        try:
            for seat, deal in self.open.items():   # as the open bot saw it: another pair's cards hidden
                hidden = isinstance(action, (Give, Return)) and action.seat % 2 != seat % 2
                self.open[seat] = apply(deal, type(action)(action.seat, None) if hidden else action)  # type: ignore
            self.deal = apply(self.deal, action)
        except IllegalActionError as exc:
            raise IllegalAnswer(action.seat if exc.seat is None else exc.seat, str(exc)) from exc
        except TypeError as exc:
            raise IllegalAnswer(action.seat, f"S{action.seat}: not an answer now") from exc

    def _give_call(self, action: GiveCall) -> None:
        """What every peer can check of a give before its card: the seat's bidding turn, its one
        give unused (its holding exactly one picture: its own state, the hand-over's receiver,
        the key reveal)."""
        deal, seat = self.deal, action.seat
        d = deal.decision
        if d.kind is not DecisionKind.BID or d.seat != seat:
            raise IllegalAnswer(seat, f"S{seat} cannot give now")
        if self._open_pair(seat):
            raise IllegalAnswer(seat, f"S{seat} cannot give: its pair has the open bot, whose cards and view are "
                                "public (a hand-over would tell its runner a card nobody else sees)")
        if seat in deal.gave:
            raise IllegalAnswer(seat, f"S{seat} has already given a picture this deal: each seat gives at most once")
        if deal.is_known(seat) and not any(isinstance(a, Give) for a in legal_actions(deal)):
            raise IllegalAnswer(seat, f"S{seat} cannot give: a seat gives only when it holds exactly one picture "
                                "and its partner fewer than nine")
        self.calling = seat

    # -- reading ------------------------------------------------------------------------

    def penalise(self, answers: Sequence[Any], seat: int, reason: str) -> None:
        """A rule broken with hidden cards that the key reveal found: the deal ends here and
        the other pair scores 6 (docs/rules-sasku.md, "A rule broken with hidden cards")."""
        self.broken = (seat, " ".join(str(a) for a in answers), reason)

    def state_hash(self) -> str:
        extra = repr((self.calling, self.giving_back)).encode()
        return hashlib.sha256(b"p2p-sasaki/sasku-table/v1\x00" + state_hash(self.deal).encode() + b"\x00"
                              + extra).hexdigest()

    def scores(self) -> tuple[int, ...] | None:
        points = self.deal.points
        return None if points is None else tuple(points[s % 2] for s in range(SEATS))

    def outcome(self) -> SaskuOutcome:
        deal = self.deal
        trump = deal.trump
        points = deal.points or (0, 0)
        if self.broken is not None:
            points = (0, 6) if self.broken[0] % 2 == 0 else (6, 0)
        return SaskuOutcome(deal.declarer, None if trump is None else trump.symbol, deal.diamonds, deal.card_points,
                            deal.tricks, points)

    def view(self, seat: int) -> Deal:
        if seat in self.open:
            return self.open[seat]
        return self.deal if self.deal.viewer == seat else view(self.deal, seat)

    def record(self) -> str | None:
        """The deal's record; a penalised deal's ends with the line that broke the rule, after a
        comment that says so (so ``sasaki replay`` refuses that line, as the rules say of a
        record: every rule break in it is an illegal line)."""
        if self.deal.viewer is not None:
            return None
        text = write_record(self.deal)
        if self.broken is not None:
            seat, action, reason = self.broken
            pair = "S0 and S2" if seat % 2 else "S1 and S3"
            text += (f"# S{seat} broke a rule with hidden cards, found when the keys were revealed: {reason}; "
                     f"its pair loses the deal, {pair} score 6\n{action}\n")
        return text


class TableBot:
    """An engine bot (p2p_sasaki.sasku.bots: ``choose(view, legal)``) at the table: the
    adapter's own steps are shown to it as the engine's (the public ``give`` as the engine's
    ``Give`` of the bidding turn); a forced answer (the give's hand-over, the give-back) is
    made without asking it. A thinking bot (the search bot) gets the table's time budget,
    ``seconds`` on ``clock``, where one is given."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.thinks = getattr(bot, "thinks", False)

    def choose(self, view: Deal, legal: Sequence[Any], **budget: Any) -> Any:
        if len(legal) == 1:
            return legal[0]
        calls = [action for action in legal if isinstance(action, GiveCall)]
        if calls:
            choice = self.bot.choose(view, legal_actions(view), **budget)
            return calls[0] if isinstance(choice, Give) else choice
        return self.bot.choose(view, legal, **budget)


class SaskuGame:
    """Sasku's rules with a table's options (SaskuOptions: min_bid, picture_shown, target)."""

    name = SASKU
    seats = SEATS
    n_cards = N_CARDS
    teams: tuple[tuple[int, ...], ...] = TEAMS
    pace_kinds = PACE_KINDS
    seating = Seating.DRAW

    def __init__(self, options: SaskuOptions = SaskuOptions(), pairs: tuple[int, int] | None = None) -> None:
        """``pairs``: two roster members (join order, the creator 0) who chose to be partners
        (the other two form the other pair); None: the seating draw decides the pairs."""
        if options.picture_shown:
            raise ValueError("a table does not yet show the given picture (picture_shown): play it with the default")
        if pairs is not None and not (len(pairs) == 2 and 0 <= pairs[0] < pairs[1] < SEATS):
            raise ValueError(f"pairs names two different roster members 0..3, lower first, not {pairs!r}")
        self.options = options
        self.pairs = pairs

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SaskuGame) and (other.options, other.pairs) == (self.options, self.pairs)

    def __hash__(self) -> int:
        return hash((SASKU, self.options, self.pairs))

    def __repr__(self) -> str:
        return f"SaskuGame({self.options!r}, pairs={self.pairs!r})"

    def options_bytes(self) -> bytes:
        """ASCII ``min-bid=N;target=N``, then ``;pairs=A+B`` when two members chose to be
        partners (docs/protocol.md, "Sasku at the table")."""
        pairs = "" if self.pairs is None else f";pairs={self.pairs[0]}+{self.pairs[1]}"
        return f"min-bid={self.options.min_bid};target={self.options.target}{pairs}".encode("ascii")

    @classmethod
    def from_options_bytes(cls, data: bytes) -> SaskuGame:
        wrong = f"Sasku's options are min-bid=N;target=N[;pairs=A+B], not {data!r}"
        try:
            fields = dict(part.split("=", 1) for part in data.decode("ascii").split(";"))
            numbers = [fields.get("min-bid", ""), fields.get("target", "")]
            if set(fields) - {"min-bid", "target", "pairs"} or any(not v.isdigit() for v in numbers):
                raise ValueError
            pairs = None
            if "pairs" in fields:
                a, b = fields["pairs"].split("+")
                pairs = (int(a), int(b))
            game = cls(SaskuOptions(min_bid=int(numbers[0]), target=int(numbers[1])), pairs)
        except ValueError:
            raise ValueError(wrong) from None
        if game.options_bytes() != data:
            raise ValueError(wrong)
        return game

    def seat_order(self, drawn: tuple[int, ...]) -> tuple[int, ...]:
        """With ``pairs`` (A, B): the draw's seats, except that B moves opposite A (trading
        seats with whoever the draw put there), so the draw still decides where the pairs
        sit and who leads. Without: the draw decides the pairs too.

        >>> SaskuGame(pairs=(0, 1)).seat_order((0, 1, 2, 3)), SaskuGame().seat_order((0, 1, 2, 3))
        ((0, 2, 1, 3), (0, 1, 2, 3))
        """
        if self.pairs is None:
            return drawn
        a, b = self.pairs
        order = list(drawn)
        opposite = (order.index(a) + 2) % SEATS
        there, mine = order[opposite], order.index(b)
        order[opposite], order[mine] = b, there
        return tuple(order)

    def opening_card(self) -> None:
        return None

    def hand_context(self, number: int) -> HandContext:
        return HandContext(number, dealer_of(number - 1))

    def new_state(self, hands: Sequence[int | None], opener: int | None, context: HandContext,
                  peer: int | None = None, open_seats: frozenset[int] = frozenset()) -> SaskuState:
        if len(hands) != SEATS:
            raise ValueError("a Sasku deal has four seats")
        number = context.number - 1
        try:
            opens = {seat: Deal.for_peer(seat, (hands[seat] or 0) << _SHIFT, number, self.options)
                     for seat in sorted(open_seats) if hands[seat] is not None}
            if len(opens) != len(open_seats):
                raise ValueError("an open bot's cards are known to every peer")
            if all(h is not None for h in hands):
                return SaskuState(Deal([(h or 0) << _SHIFT for h in hands], number, self.options), open_seats, opens)
            # A peer's own view (its seat: the one known hand that is not an open bot's); an
            # auditor's, which knows the open bots' hands only, is the first open bot's.
            known = [s for s, h in enumerate(hands) if h is not None and s not in open_seats]
            seat = peer if peer is not None else (known[0] if known else min(open_seats, default=None))
            if seat is None or hands[seat] is None or known not in ([seat], []):
                raise ValueError("a peer's deal knows one seat's cards, and the open bots'")
            mine = opens.pop(seat) if seat in opens else Deal.for_peer(seat, (hands[seat] or 0) << _SHIFT, number,
                                                                       self.options)
            return SaskuState(mine, open_seats, opens)
        except DealError as exc:
            raise ValueError(str(exc)) from exc

    def card_name(self, card: int) -> str:
        return str(to_engine(card))

    def cards_name(self, cards: int) -> str:
        return str(CardSet(cards << _SHIFT))

    def hand_of(self, cards: int) -> CardSet:
        return CardSet(cards << _SHIFT)

    def decline(self, legal: Sequence[Any]) -> Any | None:
        """None: Sasku has no window that several seats answer at once; every decision is one
        seat's, held to no earlier than open + its kind's delay (docs/protocol.md, "Window
        pacing"), a person's later answer sent when given."""
        return None

    def pace_kind(self, decision: Any) -> str:
        if isinstance(decision, HandOverDecision):
            return "bid" if decision.kind == "give" else "return"
        kind = decision.kind
        if kind is DecisionKind.PLAY:
            return TURN_PACE
        return str(kind.value)

    def totals(self, carried: Sequence[int], scores: Sequence[Sequence[int]]) -> tuple[int, ...]:
        return tuple(sum(column) for column in zip(carried or (0,) * SEATS, *scores, strict=True))

    def forfeit_scores(self, seat: int) -> tuple[int, ...]:
        """The other pair scores 6 (a karvane), the forfeiter's pair nothing (docs/rules-sasku.md)."""
        return tuple(0 if s % 2 == seat % 2 else 6 for s in range(SEATS))

    def objection(self, decision: Any) -> HiddenClaim | None:
        """A give to a partner that holds nine pictures (the giver's rule break, which only the
        partner sees): the partner proves, with its layer, that it holds none of the
        non-pictures."""
        if isinstance(decision, HandOverDecision) and decision.kind == "give":
            return HiddenClaim("nine-pictures", ((1 << N_CARDS) - 1) & ~(PICTURES >> _SHIFT))
        return None

    def penalty_scores(self, seat: int) -> tuple[int, ...]:
        """A rule broken with hidden cards found only at the key reveal: the offending seat's
        pair loses the deal as in karvane, the other pair scores 6 (docs/rules-sasku.md)."""
        return self.forfeit_scores(seat)

    def match_over(self, played: int, planned: int, totals: Sequence[int]) -> bool:
        """A pair reached the target, or the table's cap on deals (``hands``) is played."""
        return max(totals, default=0) >= self.options.target or played >= planned

    def illegal(self, reason: str, seat: int | None) -> Exception:
        return IllegalActionError(reason, seat)

    def encode_action(self, action: Any) -> tuple[str, tuple[int, ...]]:
        if isinstance(action, Bid):
            return f"bid-{_NUMBERS[action.number]}", ()
        if isinstance(action, TrumpCall):
            return f"trump-{action.suit.name.lower()}", ()
        if isinstance(action, (Play, Give, Return, GiveBack)):
            assert action.card is not None
            return action.verb, (to_deck(action.card),)
        return action.verb, ()

    def decode_action(self, seat: int, verb: str, cards: Sequence[int]) -> Any:
        if verb == "play" and len(cards) == 1 and cards[0] < N_CARDS:
            return Play(seat, to_engine(cards[0]))
        if not cards:
            if verb in _BID_VERBS:
                return Bid(seat, _BID_VERBS[verb])
            if verb in _TRUMP_VERBS:
                return TrumpCall(seat, _TRUMP_VERBS[verb])
            if verb in _PLAIN_VERBS:
                return _PLAIN_VERBS[verb](seat)
            if verb == "give":
                return GiveCall(seat)
        raise IllegalAnswer(seat, f"seat {seat}: {verb} {list(cards)} is not a Sasku answer")

    def shows(self, action: Any) -> int:
        return 1 << to_deck(action.card) if isinstance(action, Play) else 0

    def open_bot_answer(self, state: Any, seat: int, seed: bytes) -> Any:
        """The open bot's answer (docs/protocol.md, "Replace seat"): the engine's heuristic bot
        (p2p_sasaki.sasku.bots.HeuristicBot) behind :class:`TableBot`, with
        ``random.Random(int.from_bytes(seed, "big"))``, asked with the open bot's own view and
        legal answers (never a give: its pair hands no card over). Its hand is public, so every
        peer and the audit compute the same answer."""
        bot = TableBot(HeuristicBot(random.Random(int.from_bytes(seed, "big"))))
        return bot.choose(state.view(seat), state.legal_actions(seat))

    def handed(self, decision: Any, giver: int, card: int | None) -> Any:
        if not isinstance(decision, HandOverDecision) or decision.seat != giver:
            raise IllegalAnswer(giver, f"seat {giver} is not asked to hand a card over")
        engine = None if card is None else to_engine(card)
        if engine is not None and engine.index >= 48:
            raise IllegalAnswer(giver, f"there is no card {card}")
        if decision.kind == "give":
            return Give(giver, engine)
        if decision.kind == "return":
            return Return(giver, engine)
        return GiveBack(giver, engine)



# -- a duplicate tournament (protocol/net/tournament.py) reaches the engine's tournament here ------


def tournament_table_game(min_bid: int = 0) -> SaskuGame:
    """The game of a tournament's table (``min_bid`` 0: the default options)."""
    return SaskuGame(SaskuOptions(min_bid=min_bid) if min_bid else SaskuOptions())


def tournament_standings(names: Sequence[str], draw: Sequence[int]) -> Any:
    """The standings before the first round (p2p_sasaki/sasku/tournament.py ``Standings``):
    ``next_seating()``, ``with_round(seating, results)``, ``ranking()``, ``total(p)``, ``left``."""
    from p2p_sasaki.sasku.tournament import Standings

    return Standings(tuple(names), tuple(draw))


def tournament_table_result(ns_result: int, declaring_line: int | None, leaver: int | None) -> Any:
    """One table's deal for the standings (p2p_sasaki/sasku/tournament.py ``TableResult``)."""
    from p2p_sasaki.sasku.tournament import Line, TableResult

    return TableResult(ns_result, None if declaring_line is None else Line(declaring_line), leaver)
