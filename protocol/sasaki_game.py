"""Sasaki behind the game interface (protocol/game.py): the engine (p2p_sasaki.sasaki.hand) as
the session sees it. Every Sasaki rule the protocol used to know lives here or in the
engine: four seats, 48 cards, the opening 3, the verbs, how a slot's answers resolve and
whom an illegal slot blames, the pacing kinds (the five window kinds, the opening "lead" and
a bot's "turn"), how a match's totals add up. This is the one module of protocol/ that
imports the engine (tests/test_layers.py).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from p2p_sasaki.cards import FULL_DECK, Card, CardSet, mask_indices
from p2p_sasaki.protocol.deck import SlotLayout
from p2p_sasaki.protocol.game import (
    OPENING_PACE,
    TURN_PACE,
    Applied,
    HandContext,
    IllegalAnswer,
    Seating,
    Slot,
    SlotKind,
)
from p2p_sasaki.protocol.pace import Pace
from p2p_sasaki.sasaki.bots import HeuristicBot
from p2p_sasaki.sasaki.hand import (
    SEATS,
    Action,
    AuditNeededError,
    Chata,
    DealError,
    Decision,
    DecisionKind,
    Decline,
    Expose,
    Hand,
    IllegalActionError,
    Kkojda,
    Pass,
    Play,
    Run,
    Stop,
    opens,
)
from p2p_sasaki.sasaki.options import TableOptions
from p2p_sasaki.sasaki.records import write_record
from p2p_sasaki.sasaki.scoring import DEFAULT_SCORING, match_totals, multiplier

__all__ = ["SASAKI", "LEAD_SLOT", "SasakiGame", "SasakiState", "SasakiOutcome", "VERBS", "action_of", "resolve_slot",
           "PACE_KINDS", "sasaki_pace", "FAIR_PACE", "WINDOW_SECONDS", "CLAIM_SECONDS",
           "TURN_SECONDS"]

SASAKI = "sasaki"
N_CARDS = FULL_DECK.bit_length()
# with the deck: the opening slot follows the deal's 3n+1 slots (3n+2 with an open seat)
LEAD_SLOT = SlotLayout(0, SEATS).end

# The verbs of Sasaki's answers (table/action carries them), from the engine's action classes.
VERBS: dict[str, type[Action]] = {cls.verb: cls for cls in (Play, Pass, Run, Expose, Stop, Chata, Kkojda, Decline)}
_NO_CARDS = (Pass, Stop, Decline)

# Sasaki's pacing kinds, in the header's order (docs/protocol.md, "Window pacing"): its window
# kinds (DecisionKind values), the opening slot and a bot's play on its turn.
PACE_KINDS: tuple[str, ...] = ("run", "expose", "stop", "chata", "kkojda", OPENING_PACE, TURN_PACE)
_CLAIMS = ("chata", "kkojda")


WINDOW_SECONDS, CLAIM_SECONDS, TURN_SECONDS = 4.0, 3.0, 1.0
"""The shot clock of a table with people (docs/rules.md, "The shot clock"): W = 4 s for the
run, expose, Stop and lead windows, 3 s for chata and kkojda; T = 1 s for a turn."""


def sasaki_pace(window: float = WINDOW_SECONDS, claim: float = CLAIM_SECONDS, turn: float = TURN_SECONDS,
                answer: float = 30.0, stall: float = 120.0) -> Pace:
    """Sasaki's pacing from seconds: ``claim`` for chata/kkojda, ``window`` for the other
    windows and the lead, ``turn`` for every play or pass on a turn."""
    ms = {kind: claim if kind in _CLAIMS else turn if kind == TURN_PACE else window for kind in PACE_KINDS}
    return Pace.of(ms, answer, stall)


FAIR_PACE = sasaki_pace()   # sasaki host's defaults: 3 s for chata/kkojda, 4 s for the other windows, 1 s a turn


def action_of(seat: int, verb: str, cards: Sequence[int]) -> Action:
    """The engine action a table/action stands for; raises IllegalAnswer(seat) if none."""
    cls = VERBS.get(verb)
    if cls is None:
        raise IllegalAnswer(seat, f"{verb!r} is not an answer to a game decision")
    mask = 0
    for card in cards:
        if card >= N_CARDS:
            raise IllegalAnswer(seat, f"there is no card {card}")
        mask |= 1 << card
    if cls in _NO_CARDS:
        if mask:
            raise IllegalAnswer(seat, f"{verb} takes no cards")
        return cls(seat)
    if not mask:
        raise IllegalAnswer(seat, f"{verb} needs cards")
    return cls(seat, CardSet(mask))  # type: ignore[call-arg]


def resolve_slot(hand: Hand, answers: Sequence[Action]) -> None:
    """Apply one slot's answers to ``hand``; raises IllegalAnswer naming the seat at fault
    (None if no single answer is: an audit is needed)."""
    d = hand.decision
    try:
        if d.kind is DecisionKind.TURN:
            hand.apply(answers[0])
        else:
            hand.resolve(answers)
    except AuditNeededError as exc:
        raise IllegalAnswer(None, str(exc)) from exc
    except IllegalActionError as exc:
        seat = answers[0].seat if d.kind is DecisionKind.TURN else _culprit(hand, answers)
        raise IllegalAnswer(seat, str(exc)) from exc


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
    trial = hand.copy()  # a decline that must not be (the holder of the other red ten)
    try:
        trial.resolve([Decline(a.seat) for a in answers])
    except AuditNeededError:
        return None
    except IllegalActionError as exc:
        return exc.seat
    return None


@dataclass(frozen=True)
class SasakiOutcome:
    """A finished hand: the finishing order, the red team, the multiplier, and the cards the
    last player still held (shown to everyone at the end, as the rules say)."""

    finish: tuple[int, ...]
    red: tuple[int, ...]
    multiplier: int
    remaining: tuple[str, ...] = ()


class SasakiState:
    """A Sasaki hand behind :class:`~p2p_sasaki.protocol.game.GameState`."""

    def __init__(self, hand: Hand) -> None:
        self.hand = hand

    def __deepcopy__(self, memo: dict[int, object]) -> SasakiState:
        """An independent copy (the engine's :meth:`Hand.copy`; the session keeps one to
        return to a slot it was voted out of)."""
        return SasakiState(self.hand.copy())

    def slot(self) -> Slot | None:
        d: Decision = self.hand.decision
        if d.kind is DecisionKind.OVER:
            return None
        return Slot(SlotKind.TURN if d.kind is DecisionKind.TURN else SlotKind.WINDOW, d.seats, d)

    def legal_actions(self, seat: int) -> list[Action]:
        return self.hand.legal_actions(seat)

    def claim(self, action: Action) -> None:
        """Sasaki has no rule on hidden cards that a proof covers (its windows ask everyone)."""
        return None

    def apply(self, answers: Sequence[Action]) -> list[Applied]:
        hand = self.hand
        before, top_was_empty = len(hand.history), hand.top is None
        resolve_slot(hand, answers)
        return [Applied(action, lead=top_was_empty and i == 0 and isinstance(action, Play))
                for i, action in enumerate(hand.history[before:])]

    def penalise(self, answers: Sequence[Any], seat: int, reason: str) -> None:
        raise AssertionError("no penalty: a hidden-rule break stops the table (penalty_scores is None)")

    def state_hash(self) -> str:
        return self.hand.state_hash()

    def scores(self) -> tuple[int, ...] | None:
        return self.hand.scores if self.hand.is_over else None

    def outcome(self) -> SasakiOutcome:
        return SasakiOutcome(self.hand.finish, self.hand.red_seats, self.hand.multiplier,
                             tuple(str(card) for card in self.hand.fourth_shows()))

    def view(self, seat: int) -> object:
        return self.hand.view(seat)

    def record(self) -> str:
        return write_record(self.hand)


class SasakiGame:
    """Sasaki's rules with a table's options (the lead card resolved to 3H or 3S)."""

    name = SASAKI
    seats = SEATS
    n_cards = N_CARDS
    teams: tuple[tuple[int, ...], ...] = ()    # the red team forms in each hand (its outcome)
    pace_kinds = PACE_KINDS
    seating = Seating.DRAW

    def __init__(self, options: TableOptions) -> None:
        if options.lead.card is None:
            raise ValueError("resolve options.lead_card to 3H or 3S before creating the table")
        self.options = options
        self.lead_card = options.lead.card

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SasakiGame) and other.options == self.options

    def __hash__(self) -> int:
        return hash((SASAKI, self.options))

    def __repr__(self) -> str:
        return f"SasakiGame({self.options!r})"

    def options_bytes(self) -> bytes:
        return self.options.to_bytes()

    @classmethod
    def from_options_bytes(cls, data: bytes) -> SasakiGame:
        return cls(TableOptions.from_bytes(data))

    def seat_order(self, drawn: tuple[int, ...]) -> tuple[int, ...]:
        return drawn

    def opening_card(self) -> int:
        return self.lead_card.index

    def hand_context(self, number: int) -> HandContext:
        return HandContext(number, (number - 1) % SEATS)   # nobody deals by hand: the deck deals

    def new_state(self, hands: Sequence[int | None], opener: int | None, context: HandContext,
                  peer: int | None = None, open_seats: frozenset[int] = frozenset()) -> SasakiState:
        state = self._new_state(hands, opener, peer)
        state.hand.open_to_all(open_seats)
        return state

    def _new_state(self, hands: Sequence[int | None], opener: int | None, peer: int | None) -> SasakiState:
        if len(hands) != SEATS or opener is None:
            raise ValueError("a Sasaki hand has four seats and an opener")
        try:
            if all(h is not None for h in hands):
                hand = Hand([h or 0 for h in hands], self.lead_card, self.options)
                if hand.first_leader != opener:
                    raise ValueError(f"seat {opener} showed a {self.lead_card} it was not dealt")  # (checked before)
                return SasakiState(hand)
            known = [(s, h) for s, h in enumerate(hands) if h is not None]
            if peer is None and len(known) == 1:
                peer = known[0][0]
            mine = hands[peer] if peer is not None and 0 <= peer < SEATS else None
            if peer is None or mine is None:
                raise ValueError("a peer's hand knows its own seat's cards (and the open seats')")
            shown = {s: h for s, h in known if s != peer}
            return SasakiState(Hand.for_peer(peer, mine, opener, self.lead_card, self.options, shown=shown))
        except DealError as exc:
            raise ValueError(str(exc)) from exc

    def card_name(self, card: int) -> str:
        return str(Card.from_index(card))

    def cards_name(self, cards: int) -> str:
        return str(CardSet(cards))

    def hand_of(self, cards: int) -> CardSet:
        return CardSet(cards)

    def pace_kind(self, decision: Decision) -> str:
        return decision.kind.value

    def decline(self, legal: Sequence[Action]) -> Action | None:
        return next((a for a in legal if isinstance(a, Decline)), None)

    def totals(self, carried: Sequence[int], scores: Sequence[Sequence[int]]) -> tuple[int, ...]:
        return match_totals([carried, *scores], SEATS)

    def objection(self, decision: Any) -> None:
        return None

    def penalty_scores(self, seat: int) -> None:
        """None: a rule broken with hidden cards that the key reveal finds stops a Sasaki table
        with the seat's blame (docs/rules.md)."""
        return None

    def forfeit_scores(self, seat: int) -> tuple[int, ...]:
        """The forfeiter scores as a lone red ten finishing last after a Stop (the largest loss of a
        hand), each other seat as that lone seat's opponents.

        >>> SasakiGame.forfeit_scores(None, 2)  # type: ignore[arg-type]
        (12, 12, -36, 12)
        """
        mine, theirs = DEFAULT_SCORING.one_vs_three[SEATS]
        times = multiplier(ran=True, stopped=True)
        return tuple((mine if s == seat else theirs) * times for s in range(SEATS))

    def match_over(self, played: int, planned: int, totals: Sequence[int]) -> bool:
        return played >= planned

    def illegal(self, reason: str, seat: int | None) -> IllegalActionError:
        return IllegalActionError(reason, seat)

    def encode_action(self, action: Action) -> tuple[str, tuple[int, ...]]:
        return action.verb, tuple(mask_indices(action.cards.mask))

    def decode_action(self, seat: int, verb: str, cards: Sequence[int]) -> Action:
        return action_of(seat, verb, cards)

    def shows(self, action: Action) -> int:
        return opens(action).mask

    def handed(self, decision: object, giver: int, card: int | None) -> Action:
        """Sasaki hands no card over: its hands never ask for a HAND_OVER slot."""
        raise IllegalAnswer(giver, "Sasaki has no hand-over")

    def open_bot_answer(self, state: Any, seat: int, seed: bytes) -> Action:
        """The open bot's answer (docs/protocol.md, "Replace seat"): the heuristic bot
        (p2p_sasaki.sasaki.bots.HeuristicBot) with ``random.Random(int.from_bytes(seed,
        "big"))``, asked with ``seat``'s view and legal answers. Its hand is public, so every
        peer and the audit compute the same answer."""
        bot = HeuristicBot(random.Random(int.from_bytes(seed, "big")))
        return bot.choose(state.view(seat), state.legal_actions(seat))
