"""A second game, for tests only: it proves the session, the deck and the audit are not
Sasaki's (tests/protocol/test_toy_game.py). Nothing in protocol/ knows it.

"High card": 3 seats, 12 cards (card c has rank c // 3 and suit c % 3), 4 cards each. The
holder of card 0 shows it (the OPENING slot) and leads. One bidding round first: every seat
bids how many tricks it will take, all at once (a WINDOW: the outcome is the set of bids).
Then 4 tricks: the leader plays any card, the next seats in turn any card of theirs; the
highest card takes the trick and leads the next. Score: 10 + tricks for a seat that made
its bid exactly, else minus the difference.
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
class PlayCard:
    seat: int
    card: int


class HighCardState:
    def __init__(self, hands: Sequence[int | None], opener: int) -> None:
        self.hands = list(hands)
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
        return Slot(SlotKind.TURN, (self.turn,), ("play", self.turn))

    def legal_actions(self, seat: int) -> list[Bid | PlayCard]:
        slot = self.slot()
        if slot is None or seat not in slot.seats:
            return []
        if self.bids is None:
            return [Bid(seat, n) for n in range(PER_SEAT + 1)]
        mine = self.hands[seat]
        assert mine is not None
        return [PlayCard(seat, c) for c in range(N_CARDS) if mine >> c & 1 and not self.played >> c & 1]

    def apply(self, answers: Sequence[Bid | PlayCard]) -> list[Applied]:
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

    def state_hash(self) -> str:
        public = (self.bids, [(p.seat, p.card) for p in self.trick], self.tricks, self.played, self.turn, self.over)
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

    def __init__(self, seating: Seating = Seating.DRAW) -> None:
        self.seating = seating

    def options_bytes(self) -> bytes:
        return b"join" if self.seating is Seating.JOIN_ORDER else b""

    @classmethod
    def from_options_bytes(cls, data: bytes) -> HighCardGame:
        if data not in (b"", b"join"):
            raise ValueError("the toy game's only option is its seating by join order")
        return cls(Seating.JOIN_ORDER if data else Seating.DRAW)

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

    def totals(self, carried: Sequence[int], scores: Sequence[Sequence[int]]) -> tuple[int, ...]:
        return tuple(sum(column) for column in zip(carried, *scores, strict=True))

    def forfeit_scores(self, seat: int) -> tuple[int, ...]:
        return tuple(-3 if s == seat else 1 for s in range(4))

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
        return HighCardState(hands, opener)

    def encode_action(self, action: Bid | PlayCard) -> tuple[str, tuple[int, ...]]:
        if isinstance(action, Bid):
            return BID_WORDS[action.tricks], ()
        return "play", (action.card,)

    def decode_action(self, seat: int, verb: str, cards: Sequence[int]) -> Bid | PlayCard:
        if verb in BID_WORDS and not cards:
            return Bid(seat, BID_WORDS.index(verb))
        if verb == "play" and len(cards) == 1 and cards[0] < N_CARDS:
            return PlayCard(seat, cards[0])
        raise IllegalAnswer(seat, f"seat {seat}: {verb} {list(cards)} is not a move of this game")

    def shows(self, action: Bid | PlayCard) -> int:
        return 1 << action.card if isinstance(action, PlayCard) else 0
