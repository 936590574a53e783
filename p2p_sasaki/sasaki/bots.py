"""Bots: players that answer every decision from one seat's view and its legal actions.

A bot sees exactly what a person in that seat would see: the :class:`SeatView`
(its own cards and the public state) and the list of legal answers. It never
gets the :class:`Hand`. :func:`play` drives a hand with four bots and yields a
:class:`Step` per resolved decision; a seat whose only legal answer is forced
(an exposure, or a decline when it holds no pair) is not asked. A bot that never
reads its view (``uses_view = False``, as :class:`RandomBot`) is handed a
:class:`LazyView` instead, which builds the view only if it is read.

Three kinds (:data:`BOTS`, :func:`make_bot`): :class:`RandomBot`, :class:`HeuristicBot`
(a casual player's rules) and :class:`~p2p_sasaki.sasaki.search.SearchBot` (Monte Carlo
search over the hidden cards, with the heuristic rules as its rollout policy).

>>> from random import Random
>>> hand = Hand.random(Random(0), lead_card="3H")
>>> bots = [HeuristicBot(Random(s)) for s in range(4)]
>>> first = next(play(hand, bots))
>>> first.decision, [a.verb for a in first.answers]
(Decision(DecisionKind.RUN, (1, 2, 3, 0)), ['decline', 'decline', 'decline', 'decline'])
>>> play_hand(hand, bots).finish
(0, 2, 3, 1)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from random import Random
from typing import Any, Protocol, overload

from p2p_sasaki.cards import CardSet
from p2p_sasaki.sasaki.combos import PIG_MASK, Combo, Kind, classify
from p2p_sasaki.sasaki.hand import (
    Action,
    Chata,
    Decision,
    DecisionKind,
    Decline,
    Expose,
    Hand,
    Kkojda,
    Pass,
    Play,
    Run,
    SeatView,
    Stop,
)
from p2p_sasaki.sasaki.search import DEFAULT_LEVEL, LEVELS, SearchBot

__all__ = ["Bot", "LazyView", "RandomBot", "HeuristicBot", "SearchBot", "BOTS", "make_bot", "Step", "play", "play_hand",
           "legal_actions", "TurnActions",
           "kept_for_specials", "strength", "STRONG"]


# Enum members as plain globals: quicker than DecisionKind.X on Python 3.11.
_RUN, _EXPOSE, _STOP, _TURN, _CHATA, _KKOJDA, _OVER = DecisionKind
_KIND_SINGLE = Kind.SINGLE


class Bot(Protocol):
    """Anything that picks one of ``legal`` (never empty) knowing only ``view``.

    A bot class may set ``uses_view = False`` to say that ``choose`` never looks at
    its view: :func:`play` then hands it a :class:`LazyView`, which builds the
    :class:`SeatView` only if an attribute is read during that ``choose`` call.
    """

    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action: ...


class LazyView:
    """Stands for ``hand.view(seat)`` and builds it on first use, for bots that declare
    ``uses_view = False``. It reads the hand as it is when first used, so :func:`play`
    closes it when ``choose`` returns: a view never read by then cannot be read later
    (one that was read stays available, as a snapshot of that decision).
    """

    __slots__ = ("_hand", "_seat", "_view")

    def __init__(self, hand: Hand, seat: int) -> None:
        self._hand: Hand | None = hand
        self._seat = seat
        self._view: SeatView | None = None

    def materialize(self) -> SeatView:
        """The :class:`SeatView` this stands for."""
        view = self._view
        if view is None:
            if self._hand is None:
                raise RuntimeError("a lazy view can be read only while the bot's choose() runs "
                                   "(the bot declared uses_view = False)")
            view = self._view = self._hand.view(self._seat)
        return view

    def close(self) -> None:
        self._hand = None

    def __getattr__(self, name: str) -> object:
        return getattr(self.materialize(), name)

    def __repr__(self) -> str:
        return f"LazyView({self._view!r})" if self._view is not None else f"LazyView(S{self._seat})"


_set_lazy: tuple[Callable[[LazyView, Any], None], ...] = (
    vars(LazyView)["_hand"].__set__, vars(LazyView)["_seat"].__set__, vars(LazyView)["_view"].__set__)


def _new_lazy_view(hand: Hand, seat: int) -> LazyView:
    """``LazyView(hand, seat)``, quickly."""
    view = object.__new__(LazyView)
    _set_lazy[0](view, hand)
    _set_lazy[1](view, seat)
    _set_lazy[2](view, None)
    return view


class RandomBot:
    """A uniformly random legal action."""

    uses_view = False  # choose() never looks at the view: play() need not build it

    def __init__(self, rng: Random) -> None:
        self.rng = rng

    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action:
        # random() * n rather than randrange(n): ten times cheaper, and its bias
        # (n / 2**53 at most) is far below anything a game could show.
        return legal[int(self.rng.random() * len(legal))]


# -- what a casual player looks at in a hand ------------------------------------------

STRONG = 6  # strength() at which the heuristic bot runs or calls Stop

_FOURS = 15 << 4
_ACES = 15 << 44


def kept_for_specials(hand: int) -> int:
    """Cards a casual player keeps together: triplets, fours, the Pig and a Sasaki.

    >>> from p2p_sasaki.cards import CardSet, parse_cards
    >>> str(CardSet(kept_for_specials(parse_cards("4C 4D 9H 9S 9C TH TD AS AC"))))
    '4C 4D 9C 9H 9S TD TH AC'
    """
    kept = 0
    for rank in range(12):
        nib = hand >> (rank * 4) & 15
        if nib.bit_count() >= 3:
            kept |= nib << (rank * 4)
    if hand & PIG_MASK == PIG_MASK and hand != PIG_MASK:
        kept |= PIG_MASK
    fours = hand & _FOURS
    aces = hand & _ACES
    if fours.bit_count() >= 2 and aces:
        kept |= fours | (aces & -aces)  # the lowest ace is enough for the Sasaki
    return kept


def strength(hand: int) -> int:
    """Points for power: 1 per ace, 2 per triplet or Sasaki, 3 per four or Pig.

    >>> from p2p_sasaki.cards import parse_cards
    >>> strength(parse_cards("4C 4D AS 9H 9S 9C TH TD"))
    8
    """
    points = (hand & _ACES).bit_count()
    for rank in range(12):
        count = (hand >> (rank * 4) & 15).bit_count()
        points += 3 if count == 4 else 2 if count == 3 else 0
    if hand & PIG_MASK == PIG_MASK:
        points += 3
    if (hand & _FOURS).bit_count() >= 2 and hand & _ACES:
        points += 2
    return points


def _partners(view: SeatView) -> frozenset[int]:
    """The seats this seat knows to be on its side (empty while the teams are unknown)."""
    if view.teams is None:
        return frozenset()
    mine = view.teams[0] if view.seat in view.teams[0] else view.teams[1]
    return mine - {view.seat}


def _active(view: SeatView, seat: int) -> bool:
    return view.hand_sizes[seat] > 0 and seat not in view.finish


class HeuristicBot:
    """Plays the way a casual player finds sensible (see the module tests for each rule).

    - Answers with the lowest ordinary play that beats the top, keeping the cards
      of its specials (triplets, Sasaki, fours, Pig) together; plays a special only
      when it matters: late in its hand, or when an opponent is about to go out.
    - Leads low: the longest ordinary play holding its lowest free card (a sequence
      or pair sheds more than a single); a low single to hand the lead to a known
      partner.
    - Passes rather than beat a known partner; goes out whenever one play can.
    - Always chata and kkojda; runs and calls Stop only with a strong hand.
    - Exact ties (cards that differ only in suit) are broken with the rng.
    """

    late = 5        # own cards at or below which specials are used to regain the lead
    threatened = 2  # an opponent with this many cards or fewer is about to go out

    def __init__(self, rng: Random) -> None:
        self.rng = rng

    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action:
        kind = view.decision.kind
        hand = view.cards.mask
        if kind is _TURN:
            return self._turn(view, legal)
        wanted: type
        if kind is _RUN or kind is _STOP:
            wanted = Run if kind is _RUN else Stop
            if strength(hand) < STRONG:
                wanted = Decline
        elif kind is _CHATA:
            # Any pair will do; keep the Pig whole when another pair of tens is there.
            chatas = [a for a in legal if isinstance(a, Chata)]
            plain = [a for a in chatas if a.cards.mask != PIG_MASK]
            return (plain or chatas)[0] if chatas else (_of(legal, Decline) or legal[0])
        else:  # EXPOSE is forced on the holder; KKOJDA is always taken
            wanted = Expose if kind is _EXPOSE else Kkojda
        return _of(legal, wanted) or _of(legal, Decline) or legal[0]

    def _turn(self, view: SeatView, legal: Sequence[Action]) -> Action:
        hand = view.cards.mask
        run = _of(legal, Run)  # only with the option running=any_own_turn
        if run is not None and strength(hand) >= STRONG:
            return run
        plays = [(a, classify(a.cards.mask, hand)) for a in legal if isinstance(a, Play)]
        for action, _ in plays:
            if action.cards.mask == hand:
                return action  # out in one play
        kept = kept_for_specials(hand)
        free = [(a, c) for a, c in plays if c is not None and not c.is_special
                and not a.cards.mask & kept]
        partners = _partners(view)
        if view.top is None:
            return self._lead(view, plays, free, partners)
        passing = _of(legal, Pass) or legal[0]
        if view.top_seat in partners:
            return passing
        if free:
            return self._lowest(free)
        opponents = [s for s in range(4) if s != view.seat and s not in partners and _active(view, s)]
        urgent = (view.hand_sizes[view.seat] <= self.late
                  or any(view.hand_sizes[s] <= self.threatened for s in opponents))
        if urgent and plays:
            specials = [(a, c) for a, c in plays if c is not None and c.is_special]
            return self._lowest(specials or plays)
        return passing

    def _lead(self, view: SeatView, plays: Sequence[tuple[Action, Combo | None]],
              free: Sequence[tuple[Action, Combo | None]], partners: frozenset[int]) -> Action:
        if not free:
            specials = [(a, c) for a, c in plays if c is not None and c.is_special]
            return self._lowest(specials or plays)
        if any(_active(view, p) for p in partners):
            singles = [(a, c) for a, c in free if c is not None and c.kind is _KIND_SINGLE]
            if singles:
                return self._lowest(singles)
        low_rank = min(_low_rank(a) for a, _ in free)
        holding = [(a, c) for a, c in free if _low_rank(a) == low_rank]
        most = max(len(a.cards) for a, _ in holding)
        return self._lowest([(a, c) for a, c in holding if len(a.cards) == most])

    def _lowest(self, options: Sequence[tuple[Action, Combo | None]]) -> Action:
        """The lowest play (specials by their order), ties broken with the rng."""
        keyed = [(_order(c), a) for a, c in options]
        best = min(key for key, _ in keyed)
        ties = [a for key, a in keyed if key == best]
        return ties[0] if len(ties) == 1 else ties[self.rng.randrange(len(ties))]


def _order(combo: Combo | None) -> tuple[int, int]:
    if combo is None:
        return (9, 0)
    if combo.is_special:
        return (1, combo._key)  # combos.py's order of the specials
    return (0, int(combo.rank))


def _low_rank(action: Action) -> int:
    mask = action.cards.mask
    return ((mask & -mask).bit_length() - 1) >> 2


def _of(legal: Sequence[Action], kind: type) -> Action | None:
    for action in legal:
        if isinstance(action, kind):
            return action
    return None


BOTS: dict[str, Callable[[Random], Bot]] = {"random": RandomBot, "heuristic": HeuristicBot,
                                            "search": SearchBot}


def make_bot(kind: str, rng: Random, level: int = DEFAULT_LEVEL) -> Bot:
    """A bot of ``kind`` (a key of :data:`BOTS`); ``level`` (a key of
    :data:`p2p_sasaki.sasaki.search.LEVELS`) sets a search bot's rollouts per decision.

    >>> make_bot("search", Random(1), level=1).rollouts
    10
    """
    if kind == "search":
        return SearchBot(rng, rollouts=LEVELS[level])
    return BOTS[kind](rng)


# -- driving a hand --------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Step:
    """One resolved decision: the answers of its seats, in the decision's order."""

    decision: Decision
    answers: tuple[Action, ...]


# Quick constructors for the driver's hot path: the same frozen objects as Step(...),
# Play(seat, CardSet(mask)) and Pass(seat), without the dataclass __init__ (the
# arguments are the engine's own, valid by construction).
_new = object.__new__
_set_step: tuple[Callable[[Step, Any], None], ...] = (vars(Step)["decision"].__set__, vars(Step)["answers"].__set__)
_set_play: tuple[Callable[[Play, Any], None], ...] = (vars(Play)["seat"].__set__, vars(Play)["cards"].__set__)
_set_pass: Callable[[Pass, int], None] = vars(Pass)["seat"].__set__
_set_mask: Callable[[CardSet, int], None] = vars(CardSet)["mask"].__set__


def _new_step(decision: Decision, answers: tuple[Action, ...]) -> Step:
    step = _new(Step)
    _set_step[0](step, decision)
    _set_step[1](step, answers)
    return step


def _new_play(seat: int, mask: int) -> Play:
    cards = _new(CardSet)
    _set_mask(cards, mask)
    play = _new(Play)
    _set_play[0](play, seat)
    _set_play[1](play, cards)
    return play


def _new_pass(seat: int) -> Pass:
    action = _new(Pass)
    _set_pass(action, seat)
    return action


class TurnActions(Sequence[Action]):
    """``hand.legal_actions(seat)`` on a turn, each action built only when looked at.

    Plays in :meth:`Hand.legal_play_masks` order, then Pass when the round has a top:
    the same list (a test checks it), without a ``Play`` object per legal play.
    """

    __slots__ = ("seat", "masks", "can_pass")

    def __init__(self, seat: int, masks: list[int], can_pass: bool) -> None:
        self.seat = seat
        self.masks = masks
        self.can_pass = can_pass

    def __len__(self) -> int:
        return len(self.masks) + self.can_pass

    @overload
    def __getitem__(self, index: int) -> Action: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Action]: ...

    def __getitem__(self, index: int | slice) -> Action | Sequence[Action]:
        if index.__class__ is int and index >= 0:  # the usual case, quickly
            masks = self.masks
            if index < len(masks):
                return _new_play(self.seat, masks[index])
            if index == len(masks) and self.can_pass:
                return _new_pass(self.seat)
            raise IndexError(index)
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        n = len(self.masks)
        if index < 0:
            index += n + self.can_pass
        if 0 <= index < n:
            return Play(self.seat, CardSet(self.masks[index]))
        if index == n and self.can_pass:
            return Pass(self.seat)
        raise IndexError(index)


def legal_actions(hand: Hand, seat: int) -> Sequence[Action]:
    """The legal answers of ``seat``: :meth:`Hand.legal_actions`, lazily on a turn."""
    if hand.turn == seat and hand.options.running == "before_first_play":
        return TurnActions(seat, hand.legal_play_masks(seat), hand.top is not None)
    return hand.legal_actions(seat)


def _ask(hand: Hand, seat: int, bot: Bot, legal: Sequence[Action], uses_view: bool) -> Action:
    """``bot``'s choice among ``legal`` (more than one), shown its view or a lazy one."""
    if uses_view:
        return bot.choose(hand.view(seat), legal)
    view = _new_lazy_view(hand, seat)
    try:
        return bot.choose(view, legal)  # type: ignore[arg-type]
    finally:
        view.close()


def _answer(hand: Hand, seat: int, bot: Bot, uses_view: bool = True) -> Action:
    legal = legal_actions(hand, seat)
    if len(legal) == 1:
        return legal[0]  # forced: nothing to ask
    return _ask(hand, seat, bot, legal, uses_view)


def play(hand: Hand, bots: Sequence[Bot]) -> Iterator[Step]:
    """Play ``hand`` to the end with ``bots[seat]`` answering for each seat.

    A bot whose class sets ``uses_view = False`` is shown a :class:`LazyView`.
    """
    # The engine's hottest loop: _answer() and legal_actions() inline.
    uses_view = [getattr(bot, "uses_view", True) is not False for bot in bots]
    turn = _TURN
    over = _OVER
    lazy_turns = hand.options.running == "before_first_play"  # see legal_actions()
    legal_play_masks = hand.legal_play_masks
    hand_legal_actions = hand.legal_actions
    apply = hand.apply
    new = _new
    set_decision, set_answers = _set_step
    while True:
        decision = hand.decision
        kind = decision.kind
        if kind is over:
            return
        if kind is turn and lazy_turns:
            seat = decision.seats[0]
            masks = legal_play_masks(seat)
            can_pass = hand.top is not None
            if len(masks) + can_pass == 1:  # forced: nothing to ask
                if masks:
                    answer: Action = _new_play(seat, masks[0])
                else:
                    answer = new(Pass)
                    _set_pass(answer, seat)
            elif uses_view[seat]:
                answer = bots[seat].choose(hand.view(seat), TurnActions(seat, masks, can_pass))
            else:
                view = _new_lazy_view(hand, seat)
                try:
                    answer = bots[seat].choose(
                        view, TurnActions(seat, masks, can_pass))  # type: ignore[arg-type]
                finally:
                    view._hand = None
            apply(answer)
            step = new(Step)
            set_decision(step, decision)
            set_answers(step, (answer,))
            yield step
            continue
        answers = []
        for seat in decision.seats:
            legal = legal_actions(hand, seat) if kind is turn else hand_legal_actions(seat)
            answers.append(legal[0] if len(legal) == 1
                           else _ask(hand, seat, bots[seat], legal, uses_view[seat]))
        if kind is turn:
            apply(answers[0])
        else:
            hand.resolve(answers)
        yield _new_step(decision, tuple(answers))


def play_hand(hand: Hand, bots: Sequence[Bot]) -> Hand:
    """Play ``hand`` to the end; returns it."""
    for _ in play(hand, bots):
        pass
    return hand

