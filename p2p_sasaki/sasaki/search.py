"""SearchBot: determinized Monte Carlo search over the hidden cards (PIMC).

The search itself is shared with Sasku (:mod:`p2p_sasaki.search`); this module is
Sasaki's part of it (:class:`SasakiSearch`). For a decision with more than one legal
answer the bot, seeing only its :class:`~p2p_sasaki.sasaki.hand.SeatView`,

1. *samples a deal* consistent with everything public: its own cards, the cards
   each seat has played, the cards known to be in a hand (the shown opening 3,
   exposed red tens), each hand's size and the public history (who ran, exposed,
   called Stop, claimed a chata or kkojda). The other seats' unknown cards are a
   uniform shuffle of the cards nobody has seen (:func:`determinize`); the sampled
   deal is checked by replaying the public history on it with the full engine;
2. *plays every candidate answer forward* on that deal to the end of the hand with
   a fast rollout policy for all four seats (:func:`rollout`: the heuristic bot's
   rules, on card masks), the other seats of a window answering by that policy too;
3. repeats with fresh samples until its budget of rollouts is spent, and picks the
   candidate with the best mean score for its seat (the same samples for every
   candidate: differences between candidates are not drowned by the luck of a deal).

The budget is counted in rollouts, so a seed gives the same choice on any machine;
at a paced table the bot is also given ``seconds`` and a ``clock`` (a share of the
decision's delay, :class:`p2p_sasaki.protocol.net.asking.BotPlayer`) and stops sampling when they run out,
so its answer is ready before it is due whatever the position. A decision with one legal answer is never searched
(:func:`p2p_sasaki.sasaki.bots.play` does not even ask), nor one where a single play goes
out. Many-answer turns keep a few representative candidates (:func:`candidates`).

>>> from random import Random
>>> from p2p_sasaki.sasaki.bots import HeuristicBot, play_hand
>>> hand = Hand.random(Random(0), lead_card="3H")
>>> bots = [SearchBot(Random(1), rollouts=12), HeuristicBot(Random(2)), HeuristicBot(Random(3)),
...         HeuristicBot(Random(4))]
>>> play_hand(hand, bots).is_over
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from random import Random

from p2p_sasaki.cards import Card, CardSet
from p2p_sasaki.sasaki.combos import BLACK_PIG_MASK, PIG_MASK, classify
from p2p_sasaki.sasaki.hand import (
    Action,
    Chata,
    DecisionKind,
    Decline,
    Expose,
    Hand,
    IllegalActionError,
    Kkojda,
    Pass,
    Play,
    Run,
    SeatView,
    Stop,
)
from p2p_sasaki.sasaki.options import TableOptions
from p2p_sasaki.search import best_answer

__all__ = ["SearchBot", "SasakiSearch", "LEVELS", "DEFAULT_LEVEL", "determinize", "rollout", "rollout_choice",
           "candidates"]

# --level -> rollouts per decision. The default is the strongest level whose median
# decision stays well under half a second of one core (bench/bots.py measures it).
LEVELS: dict[int, int] = {1: 10, 2: 30, 3: 100, 4: 300, 5: 1000}
DEFAULT_LEVEL = 4

_RUN, _EXPOSE, _STOP, _TURN, _CHATA, _KKOJDA, _OVER = DecisionKind
_THREES = (Card.parse("3H"), Card.parse("3S"))
_FOURS = 15 << 4
_ACES = 15 << 44
_CLAIMS: dict[DecisionKind, type] = {_RUN: Run, _EXPOSE: Expose, _STOP: Stop, _CHATA: Chata,
                                     _KKOJDA: Kkojda}
_RED_TEN_BITS = (Card.parse("TH").mask, Card.parse("TD").mask)
_STRONG = 6  # the heuristic bot's strength() for running and Stop


# -- sampling a deal ---------------------------------------------------------------------

def _lead_card(view: SeatView) -> Card:
    """The opening 3: shown in the first leader's hand until played, then among the
    plays of the first leader (the seat of the hand's first play). If that seat
    played both 3s, either one names it."""
    for card in _THREES:
        if any(shown.mask & card.mask for shown in view.shown):
            return card
    first = next(a for a in view.history if isinstance(a, Play))
    return _THREES[0] if view.played[first.seat].mask & _THREES[0].mask else _THREES[1]


def _running(view: SeatView, legal: Sequence[Action]) -> str:
    """Which running option the table plays (a view does not carry the options)."""
    if view.decision.kind is _RUN:
        return "before_first_play"
    seen_play = False
    for action in view.history:
        if isinstance(action, Play):
            seen_play = True
        elif isinstance(action, Run):
            return "any_own_turn" if seen_play else "before_first_play"
    if view.decision.kind is _TURN and any(isinstance(a, Run) for a in legal):
        return "any_own_turn"
    return "before_first_play"


def _random_subset(pool: list[int], count: int, rng: Random) -> int:
    """``count`` of the card bits in ``pool`` (removed from it), at random."""
    mask = 0
    for _ in range(count):
        i = int(rng.random() * len(pool))
        pool[i], pool[-1] = pool[-1], pool[i]
        mask |= pool.pop()
    return mask


class _Unlikely(Exception):
    """A sampled deal in which a seat declined a chata it held (see :func:`determinize`)."""


def determinize(view: SeatView, rng: Random, options: TableOptions, tries: int = 20) -> Hand | None:
    """A full :class:`Hand` in ``view``'s state whose hidden cards are a random sample
    consistent with everything public; ``None`` if the replay disagrees with the view
    (then the caller plays without search; it has not happened in tests).

    Players nearly always claim a chata they hold, so a sample in which a seat let
    one pass is drawn again, up to ``tries`` times (then such a sample is kept).
    """
    for attempt in range(tries):
        try:
            return _sample(view, rng, options, infer=attempt < tries - 1)
        except _Unlikely:
            continue
    return None


def _sample(view: SeatView, rng: Random, options: TableOptions, infer: bool) -> Hand | None:
    me = view.seat
    seen = view.cards.mask
    for seat in range(4):
        seen |= view.played[seat].mask | view.shown[seat].mask
    pool = [1 << i for i in range(48) if not seen >> i & 1]
    now = [0, 0, 0, 0]
    for seat in range(4):
        if seat == me:
            now[seat] = view.cards.mask
            continue
        shown = view.shown[seat].mask
        now[seat] = shown | _random_subset(pool, view.hand_sizes[seat] - shown.bit_count(), rng)
    dealt = [now[s] | view.played[s].mask for s in range(4)]
    # Undo the red-ten exchange: each partner was dealt the ten it ran or exposed.
    run = next((a for a in view.history if isinstance(a, Run)), None)
    exposed = next((a for a in view.history if isinstance(a, Expose)), None)
    if run is not None and exposed is not None:
        mine, theirs = run.cards.mask, exposed.cards.mask
        dealt[run.seat] = dealt[run.seat] & ~theirs | mine
        dealt[exposed.seat] = dealt[exposed.seat] & ~mine | theirs
    dealt[me] = view.dealt.mask
    try:
        hand = Hand(dealt, _lead_card(view), options)
        _replay(hand, view.history, view.decision, me if infer else None)
    except (IllegalActionError, ValueError):
        return None
    if hand.decision != view.decision or hand.cards(me).mask != view.cards.mask:
        return None
    return hand


def _replay(hand: Hand, history: Sequence[Action], decision: object, me: int | None = None) -> None:
    """Feed ``history`` (public actions, declines left out) to ``hand``: every window
    answered with the claims it holds and declines from the other seats. With ``me``,
    raise :class:`_Unlikely` where a seat other than ``me`` declined a chata it held."""
    i, n = 0, len(history)
    while i < n or (hand.decision.is_window and hand.decision != decision):
        d = hand.decision
        if d.kind is _OVER:
            raise IllegalActionError("the history goes on after the end of the hand")
        if d.kind is _TURN:
            if i >= n:
                break
            hand.apply(history[i])
            i += 1
            continue
        claim = _CLAIMS[d.kind]
        picked: dict[int, Action] = {}
        while (i < n and isinstance(history[i], claim) and history[i].seat in d.seats
               and history[i].seat not in picked):
            picked[history[i].seat] = history[i]
            i += 1
            if d.kind is not _STOP:
                break  # one claim per window in a history (the partner's exposure comes next)
        if me is not None and d.kind is _CHATA and not picked:
            for s in d.seats:
                if s != me and len(hand.legal_actions(s)) > 1:
                    raise _Unlikely
        hand.resolve([picked.get(s) or Decline(s) for s in d.seats])


# -- the rollout policy: the heuristic bot's rules on masks ------------------------------

def _strength(mask: int) -> int:
    points = (mask & _ACES).bit_count()
    for rank in range(12):
        count = (mask >> (rank * 4) & 15).bit_count()
        points += 3 if count == 4 else 2 if count == 3 else 0
    if mask & PIG_MASK == PIG_MASK:
        points += 3
    if (mask & _FOURS).bit_count() >= 2 and mask & _ACES:
        points += 2
    return points


def _kept(mask: int) -> int:
    kept = 0
    for rank in range(12):
        nib = mask >> (rank * 4) & 15
        if nib.bit_count() >= 3:
            kept |= nib << (rank * 4)
    if mask & PIG_MASK == PIG_MASK and mask != PIG_MASK:
        kept |= PIG_MASK
    fours = mask & _FOURS
    aces = mask & _ACES
    if fours.bit_count() >= 2 and aces:
        kept |= fours | (aces & -aces)
    return kept


def _partners(seat: int, holders: tuple[int, int], public: int, dealt: int) -> tuple[int, ...]:
    """The seats ``seat`` knows to be on its side, as a heuristic player knows them: the
    holder of each red ten is known once that ten is public (played, run or exposed)
    or was dealt to ``seat``; the sides once both holders are."""
    known = public | (dealt & PIG_MASK)
    if known != PIG_MASK:
        return ()
    red = set(holders)
    if seat in red:
        return tuple(s for s in red if s != seat)
    return tuple(s for s in range(4) if s != seat and s not in red)


def _top_rank(mask: int) -> int:
    return (mask.bit_length() - 1) >> 2


def _low_rank(mask: int) -> int:
    return ((mask & -mask).bit_length() - 1) >> 2


def _lowest_special_first(masks: list[int], cards: int) -> int:
    """The heuristic bot's pick without free plays: its lowest special if it has one
    (specials in their order), else its lowest play."""
    specials = []
    ordinary = []
    for m in masks:
        combo = classify(m, cards)
        if combo is None:
            continue
        if combo.is_special:
            specials.append((combo._key, m))
        else:
            ordinary.append((int(combo.rank), m))
    return min(specials or ordinary or [(0, masks[0])])[1]


_KEPT: dict[int, int] = {}  # _kept() of hands seen in rollouts (bounded: cleared when full)


def rollout_choice(hand: Hand, seat: int, masks: list[int], partners: tuple[int, ...],
                   cards: int) -> int | None:
    """The rollout policy's play on a turn (a mask of ``masks``; ``cards`` is the
    seat's hand), or ``None`` to pass."""
    top = hand.top
    if not masks:
        return None
    for m in masks:
        if m == cards:
            return m  # out in one play
    if top is not None and hand.top_seat in partners:
        return None
    kept = _KEPT.get(cards)
    if kept is None:
        if len(_KEPT) > 200_000:
            _KEPT.clear()
        kept = _KEPT[cards] = _kept(cards)
    free = [m for m in masks if not m & kept] if kept else masks
    if top is None:
        if not free:
            return _lowest_special_first(masks, cards)
        if any(hand.hand_size(p) for p in partners):
            singles = [m for m in free if m.bit_count() == 1]
            if singles:
                return min(singles)
        low = min(_low_rank(m) for m in free)
        holding = [m for m in free if _low_rank(m) == low]
        most = max(m.bit_count() for m in holding)
        return min((m for m in holding if m.bit_count() == most), key=_top_rank)
    if free:
        return min(free, key=_top_rank)
    urgent = hand.hand_size(seat) <= 5 or any(
        0 < hand.hand_size(s) <= 2 for s in range(4) if s != seat and s not in partners)
    if urgent:
        return _lowest_special_first(masks, cards)
    return None


def _window_answer(hand: Hand, seat: int, kind: DecisionKind) -> Action:
    legal = hand.legal_actions(seat)
    if len(legal) == 1:
        return legal[0]
    if kind is _RUN or kind is _STOP:
        if _strength(hand.cards(seat).mask) >= _STRONG:
            return legal[0]  # Run or Stop come before Decline
        return legal[-1]
    if kind is _CHATA:
        chatas = [a for a in legal if isinstance(a, Chata)]
        plain = [a for a in chatas if a.cards.mask != PIG_MASK]
        return (plain or chatas)[0]
    return legal[0]  # Expose, Kkojda: taken


def rollout(hand: Hand) -> tuple[int, int, int, int]:
    """Play ``hand`` (a full deal, changed in place) to its end with the rollout policy;
    the scores of seats 0-3."""
    dealt = hand.dealt
    th, td = (next(s for s in range(4) if dealt[s] & bit) for bit in _RED_TEN_BITS)
    holders = (th, td)
    public = PIG_MASK if hand.runner is not None else _played_tens(hand)
    partners = [_partners(s, holders, public, dealt[s]) for s in range(4)]
    legal_play_masks = hand.legal_play_masks
    apply = hand.apply
    while True:
        d = hand.decision
        kind = d.kind
        if kind is _OVER:
            scores = hand.scores
            assert scores is not None
            return scores
        if kind is _TURN:
            seat = d.seats[0]
            masks = legal_play_masks(seat)
            if not masks:
                apply(Pass(seat))
                continue
            choice = rollout_choice(hand, seat, masks, partners[seat], hand.cards(seat).mask)
            if choice is None:
                if hand.top is not None:
                    apply(Pass(seat))
                    continue
                choice = masks[0]
            apply(Play(seat, CardSet(choice)))
            tens = choice & PIG_MASK
        else:
            answers = [_window_answer(hand, s, kind) for s in d.seats]
            hand.resolve(answers)
            tens = 0
            for answer in answers:
                tens |= answer.cards.mask & PIG_MASK
            if kind is _RUN and hand.runner is not None:
                tens = PIG_MASK
        if tens and public != PIG_MASK:
            public |= tens
            partners = [_partners(s, holders, public, dealt[s]) for s in range(4)]


def _played_tens(hand: Hand) -> int:
    """The red tens no longer in any hand (a full deal: played)."""
    held = 0
    for s in range(4):
        if hand.hand_size(s):
            held |= hand.cards(s).mask
    return PIG_MASK & ~held


# -- candidates ---------------------------------------------------------------------------

def _shape(mask: int) -> tuple[int, ...]:
    """Plays that differ only in suits (not in tens, whose suits make Pigs) look alike."""
    return (*((mask >> (4 * r) & 15).bit_count() for r in range(12)), mask & (PIG_MASK | BLACK_PIG_MASK))


def candidates(legal: Sequence[Action], cards: int, limit: int = 8) -> list[Action]:
    """The answers worth searching: one of each set that differs only in suits, and
    on a turn with more than ``limit`` of them, for each size and kind of play its
    lowest and highest, then Pass."""
    seen: set[tuple[object, ...]] = set()
    unique: list[Action] = []
    for action in legal:
        key: tuple[object, ...] = (_shape(action.cards.mask) if isinstance(action, (Play, Chata))
                                   else (-1, action.verb))
        if key not in seen:
            seen.add(key)
            unique.append(action)
    if len(unique) <= limit:
        return unique
    groups: dict[tuple[int, bool], list[Action]] = {}
    rest: list[Action] = []
    for action in unique:
        if isinstance(action, Play):
            combo = classify(action.cards.mask, cards)
            special = combo is not None and combo.is_special
            groups.setdefault((action.cards.mask.bit_count(), special), []).append(action)
        else:
            rest.append(action)
    picked: list[Action] = []
    for group in groups.values():
        group.sort(key=lambda a: (_top_rank(a.cards.mask), a.cards.mask))
        picked.append(group[0])
        if len(group) > 1:
            picked.append(group[-1])
    return picked + rest


# -- the bot ---------------------------------------------------------------------------------

class SasakiSearch:
    """Sasaki's hook for the shared search (:class:`p2p_sasaki.search.SearchGame`):
    worlds are full :class:`Hand` s sampled by :func:`determinize`, played out by
    :func:`rollout`, valued by each seat's own score."""

    def __init__(self, options: TableOptions) -> None:
        self.options = options

    def sample(self, view: SeatView, rng: Random) -> Hand | None:
        return determinize(view, rng, self.options)

    def play(self, hand: Hand, action: Action) -> Hand:
        hand = hand.copy()
        _answer(hand, action)
        return hand

    def rollout(self, hand: Hand) -> tuple[int, int, int, int]:
        return rollout(hand)


class SearchBot:
    """Determinized Monte Carlo search with ``rollouts`` rollouts per decision.

    ``options``: the table's options when known (the running mode); by default they
    are read off the view and the legal answers.
    """

    thinks = True  # a table runs choose() in a worker thread (p2p_sasaki.protocol.net.table)

    def __init__(self, rng: Random, rollouts: int = LEVELS[DEFAULT_LEVEL],
                 options: TableOptions | None = None) -> None:
        self.rng = rng
        self.rollouts = rollouts
        self.options = options
        self.last_rollouts = 0  # rollouts spent on the last decision (for benchmarks)

    def choose(self, view: SeatView, legal: Sequence[Action], seconds: float | None = None,
               clock: Callable[[], float] | None = None) -> Action:
        """The answer for ``view``: the rollout budget, cut short once ``seconds`` have passed
        on ``clock`` when both are given (a table's pacing: it answers before its delay; the
        engine has no clock of its own)."""
        self.last_rollouts = 0
        if len(legal) == 1:
            return legal[0]
        cards = view.cards.mask
        for action in legal:
            if isinstance(action, Play) and action.cards.mask == cards:
                return action  # out in one play: nothing is better
        # The sampled hands never require the opening 3 in the first play: the real
        # legal answers (the candidates) already do when the table does.
        running = self.options.running if self.options else _running(view, legal)
        options = TableOptions(lead_card="3H", running=running)
        choices = candidates(legal, cards)
        if len(choices) == 1:
            return choices[0]
        choice, self.last_rollouts = best_answer(SasakiSearch(options), view, view.seat, choices,
                                                 self.rng, self.rollouts, seconds, clock)
        return choice


def _answer(hand: Hand, action: Action) -> None:
    """Give ``action`` to ``hand``'s decision, the other seats of a window answering by
    the rollout policy."""
    d = hand.decision
    if d.kind is _TURN:
        hand.apply(action)
        return
    hand.resolve([action if s == action.seat else _window_answer(hand, s, d.kind) for s in d.seats])
