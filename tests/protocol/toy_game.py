"""A second game, for tests only: it proves the session, the deck and the audit are not
Sasaki's (tests/protocol/test_toy_game.py). Nothing in protocol/ knows it.

"High card": 3 seats, 12 cards (card c has rank c // 3 and suit c % 3), 4 cards each. The
holder of card 0 shows it (the OPENING slot) and leads. One bidding round first: every seat
bids how many tricks it will take, all at once (a WINDOW: the outcome is the set of bids).
Then 4 tricks: the leader plays any card, the next seats in turn any card of theirs; the
highest card takes the trick and leads the next. Score: 10 + tricks for a seat that made
its bid exactly, else minus the difference.

With the option "swap" (``HighCardGame(swap=True)``), after the bids the leader hands one
card of its choice privately to the next seat, and that seat hands one card (any, the one
just received too) back: two HAND_OVER slots in the middle of the hand, each card known to
the two seats only, until it is played (and proved like a dealt card). A hidden rule: the
highest card (11) is never handed over; the giver proves it with its hand-over (a
``return`` claim over the position it names), so a giver that breaks it is refused at once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from p2p_sasaki.protocol.game import (
    OPENING_PACE,
    TURN_PACE,
    Applied,
    HandContext,
    HiddenClaim,
    IllegalAnswer,
    Seating,
    Slot,
    SlotKind,
)

SEATS = 3
N_CARDS = 12
PER_SEAT = N_CARDS // SEATS
BID_WORDS = ("bid-none", "bid-one", "bid-two", "bid-three", "bid-four")
NAME = "toy-high-card"


@dataclass(frozen=True)
class Bid:
    seat: int
    tricks: int


@dataclass(frozen=True)
class Give:
    """``seat`` hands ``card`` to ``to`` (``card`` None: hidden from this peer)."""

    seat: int
    to: int
    card: int | None


@dataclass(frozen=True)
class PlayCard:
    seat: int
    card: int


class HighCardState:
    def __init__(self, hands: Sequence[int | None], opener: int, swap: bool = False) -> None:
        self.hands = list(hands)
        self.gives = 2 if swap else 0   # hand-overs still to come (after the bids)
        self.leader = self.turn = opener
        self.bids: tuple[int, ...] | None = None
        self.trick: list[PlayCard] = []
        self.tricks = [0] * SEATS
        self.played = 0
        self.over = False

    def slot(self) -> Slot | None:
        if self.over:
            return None
        if self.bids is None:
            seats = tuple((self.leader + i) % SEATS for i in range(SEATS))
            return Slot(SlotKind.WINDOW, seats, ("bid", seats))
        if self.gives:
            giver, receiver = self._giving()
            return Slot(SlotKind.HAND_OVER, (giver,), ("give", giver, receiver), receiver=receiver)
        return Slot(SlotKind.TURN, (self.turn,), ("play", self.turn))

    def _giving(self) -> tuple[int, int]:
        """(giver, receiver): the leader to the next seat, then back."""
        nxt = (self.leader + 1) % SEATS
        return (self.leader, nxt) if self.gives == 2 else (nxt, self.leader)

    def legal_actions(self, seat: int) -> list[Bid | PlayCard | Give]:
        slot = self.slot()
        if slot is None or seat not in slot.seats:
            return []
        if self.bids is None:
            return [Bid(seat, n) for n in range(PER_SEAT + 1)]
        mine = self.hands[seat]
        assert mine is not None
        if self.gives:
            to = self._giving()[1]
            return [Give(seat, to, c) for c in range(N_CARDS - 1) if mine >> c & 1]
        return [PlayCard(seat, c) for c in range(N_CARDS) if mine >> c & 1 and not self.played >> c & 1]

    def claim(self, action: object) -> HiddenClaim | None:
        """The swap's hidden rule (the highest card stays in its hand), proven by the giver with
        its hand-over: the position it names holds none of {the highest card}."""
        return HiddenClaim("return", 1 << (N_CARDS - 1)) if isinstance(action, Give) else None

    def apply(self, answers: Sequence[Bid | PlayCard | Give]) -> list[Applied]:
        slot = self.slot()
        if slot is None:
            raise IllegalAnswer(None, "the hand is over")
        if [a.seat for a in answers] != list(slot.seats):
            raise IllegalAnswer(None, "one answer per asked seat, in order")
        if self.bids is None:
            for answer in answers:
                if not isinstance(answer, Bid):
                    raise IllegalAnswer(answer.seat, f"seat {answer.seat} must bid now")
            by_seat = {a.seat: a.tricks for a in answers if isinstance(a, Bid)}  # a function of the set of bids
            self.bids = tuple(by_seat[s] for s in range(SEATS))
            return [Applied(a) for a in sorted(answers, key=lambda a: a.seat)]
        if self.gives:
            (give,) = answers
            giver, receiver = self._giving()
            if not isinstance(give, Give) or (give.seat, give.to) != (giver, receiver):
                raise IllegalAnswer(answers[0].seat, f"seat {giver} must hand a card to seat {receiver} now")
            if give.card is not None:   # known here: the giver, the receiver, the full deal's replay
                if give.card == N_CARDS - 1:
                    raise IllegalAnswer(giver, f"seat {giver} handed over card {give.card}, the highest, which "
                                        "stays in its hand")
                held = self.hands[giver]
                if held is not None and not held >> give.card & 1:
                    raise IllegalAnswer(giver, f"seat {giver} does not hold card {give.card}")
                for seat, change in ((giver, -(1 << give.card)), (receiver, 1 << give.card)):
                    if self.hands[seat] is not None:
                        self.hands[seat] = (self.hands[seat] or 0) + change
            self.gives -= 1
            return [Applied(give)]
        (play,) = answers
        if not isinstance(play, PlayCard):
            raise IllegalAnswer(play.seat, f"seat {play.seat} must play a card now")
        if self.played >> play.card & 1:
            raise IllegalAnswer(play.seat, f"card {play.card} is already played")
        mine = self.hands[play.seat]
        if mine is not None and not mine >> play.card & 1:
            raise IllegalAnswer(play.seat, f"seat {play.seat} does not hold card {play.card}")
        lead = not self.trick
        self.played |= 1 << play.card
        self.trick.append(play)
        if len(self.trick) < SEATS:
            self.turn = (play.seat + 1) % SEATS
        else:
            winner = max(self.trick, key=lambda p: p.card).seat
            self.tricks[winner] += 1
            self.trick = []
            self.leader = self.turn = winner
            self.over = self.played.bit_count() == N_CARDS
        return [Applied(play, lead=lead)]

    def penalise(self, answers: Sequence[Any], seat: int, reason: str) -> None:
        raise AssertionError("no penalty: a hidden-rule break stops the table (penalty_scores is None)")

    def state_hash(self) -> str:
        public = (self.bids, [(p.seat, p.card) for p in self.trick], self.tricks, self.played, self.turn, self.over,
                  self.gives)
        return hashlib.sha256(repr(public).encode()).hexdigest()

    def scores(self) -> tuple[int, ...] | None:
        if not self.over or self.bids is None:
            return None
        return tuple(10 + t if t == b else -abs(t - b) for t, b in zip(self.tricks, self.bids, strict=False))

    def outcome(self) -> tuple[int, ...]:
        return tuple(self.tricks)

    def view(self, seat: int) -> tuple[int | None, int]:
        return self.hands[seat], self.played

    def record(self) -> None:
        return None


class ToyIllegal(ValueError):
    """The toy game's own error for a local answer that is not legal."""


class HighCardGame:
    name = NAME
    seats = SEATS
    n_cards = N_CARDS
    teams: tuple[tuple[int, ...], ...] = ()
    pace_kinds: tuple[str, ...] = ("bid", OPENING_PACE, TURN_PACE)
    seating = Seating.DRAW

    def __init__(self, seating: Seating = Seating.DRAW, swap: bool = False) -> None:
        self.seating = seating
        self.swap = swap

    def options_bytes(self) -> bytes:
        words = [b"join"] if self.seating is Seating.JOIN_ORDER else []
        return b"+".join(words + ([b"swap"] if self.swap else []))

    @classmethod
    def from_options_bytes(cls, data: bytes) -> HighCardGame:
        words = data.split(b"+") if data else []
        if any(w not in (b"join", b"swap") for w in words) or len(set(words)) != len(words):
            raise ValueError("the toy game's options are its seating by join order and the swap")
        return cls(Seating.JOIN_ORDER if b"join" in words else Seating.DRAW, b"swap" in words)

    def seat_order(self, drawn: tuple[int, ...]) -> tuple[int, ...]:
        return drawn

    def opening_card(self) -> int:
        return 0

    def card_name(self, card: int) -> str:
        return f"card {card}"

    def hand_context(self, number: int) -> HandContext:
        return HandContext(number, (number - 1) % SEATS)

    def cards_name(self, cards: int) -> str:
        return ", ".join(self.card_name(c) for c in range(N_CARDS) if cards >> c & 1)

    def hand_of(self, cards: int) -> int:
        return cards

    def pace_kind(self, decision: Any) -> str:
        return "bid" if decision[0] == "bid" else TURN_PACE

    def open_bot_answer(self, state: Any, seat: int, seed: bytes) -> Bid | PlayCard:
        """An open bot's answer: one of ``seat``'s legal answers, chosen by the seed (the
        chain hash before the slot), so every peer and the audit compute the same one."""
        legal = state.legal_actions(seat)
        return legal[int.from_bytes(seed, "big") % len(legal)]

    def decline(self, legal: Sequence[Any]) -> Any | None:
        """None: every bid is a claim (the toy's window has no answer that claims nothing)."""
        return None

    def totals(self, carried: Sequence[int], scores: Sequence[Sequence[int]]) -> tuple[int, ...]:
        return tuple(sum(column) for column in zip(carried, *scores, strict=True))

    def objection(self, decision: Any) -> None:
        return None

    def penalty_scores(self, seat: int) -> None:
        return None

    def forfeit_scores(self, seat: int) -> tuple[int, ...]:
        return tuple(-(SEATS - 1) if s == seat else 1 for s in range(SEATS))

    def match_over(self, played: int, planned: int, totals: Sequence[int]) -> bool:
        return played >= planned

    def illegal(self, reason: str, seat: int | None) -> Exception:
        return ToyIllegal(reason)

    def new_state(self, hands: Sequence[int | None], opener: int | None, context: HandContext,
                  peer: int | None = None, open_seats: frozenset[int] = frozenset()) -> HighCardState:
        if len(hands) != SEATS or opener is None:
            raise ValueError("three seats and an opener")
        known = [h for h in hands if h is not None]
        if any(h.bit_count() != PER_SEAT for h in known):
            raise ValueError("four cards a seat")
        if len(known) == SEATS and (sum(known) != (1 << N_CARDS) - 1 or not (known[opener] or 0) & 1):
            raise ValueError("not a deal of the twelve cards with the opener holding card 0")
        return HighCardState(hands, opener, self.swap)

    def encode_action(self, action: Bid | PlayCard | Give) -> tuple[str, tuple[int, ...]]:
        if isinstance(action, Bid):
            return BID_WORDS[action.tricks], ()
        if isinstance(action, Give):
            assert action.card is not None
            return "give", (action.card,)
        return "play", (action.card,)

    def decode_action(self, seat: int, verb: str, cards: Sequence[int]) -> Bid | PlayCard:
        if verb in BID_WORDS and not cards:
            return Bid(seat, BID_WORDS.index(verb))
        if verb == "play" and len(cards) == 1 and cards[0] < N_CARDS:
            return PlayCard(seat, cards[0])
        raise IllegalAnswer(seat, f"seat {seat}: {verb} {list(cards)} is not a move of this game")

    def shows(self, action: Bid | PlayCard | Give) -> int:
        return 1 << action.card if isinstance(action, PlayCard) else 0

    def handed(self, decision: Any, giver: int, card: int | None) -> Give:
        if decision[0] != "give" or decision[1] != giver:
            raise IllegalAnswer(giver, f"seat {giver} is not asked to hand a card over")
        return Give(giver, decision[2], card)
