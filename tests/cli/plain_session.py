"""A test double of ``protocol.session.TableSession``: same interface, NO crypto.

Every peer derives the same deal from the table id (so everyone could see every
hand): it exercises the trio driver, the mesh, the CLI and the terminal UI
without mental poker. Never used for play. The CLI picks it only when the
environment says ``SASAKI_SESSION=tests.cli.plain_session:PlainSession`` (tests).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from random import Random
from typing import Any

from p2p_sasaki import hand as H
from p2p_sasaki.cards import CardSet
from p2p_sasaki.match import Match, random_deal


@dataclass(frozen=True)
class Seated:
    seat_keys: tuple[bytes, ...]
    my_seat: int


@dataclass(frozen=True)
class HandStarted:
    hand_no: int


@dataclass(frozen=True)
class DealProgress:
    step: str
    done: int
    total: int


@dataclass(frozen=True)
class Dealt:
    hand_no: int
    cards: CardSet


@dataclass(frozen=True)
class DecisionPending:
    decision: H.Decision
    mine: bool


@dataclass(frozen=True)
class ActionApplied:
    action: H.Action


@dataclass(frozen=True)
class HandEnded:
    hand_no: int
    finish: tuple[int, ...]
    red: tuple[int, ...]
    multiplier: int
    scores: tuple[int, ...]
    totals: tuple[int, ...]


@dataclass(frozen=True)
class MatchEnded:
    totals: tuple[int, ...]


@dataclass(frozen=True)
class Record:
    data: bytes


@dataclass(frozen=True)
class Blame:
    seat: int | None
    slot: int
    reason: str


_CLASSES = {cls.verb: cls for cls in (H.Play, H.Pass, H.Run, H.Expose, H.Stop, H.Chata, H.Kkojda, H.Decline)}


def _encode(hand_no: int, index: int, action: H.Action) -> bytes:
    return json.dumps({"h": hand_no, "d": index, "v": action.verb, "s": action.seat,
                       "c": action.cards.mask}).encode()


def _decode(data: bytes) -> tuple[int, int, H.Action]:
    m = json.loads(data)
    cls = _CLASSES[m["v"]]
    action = cls(m["s"]) if cls in (H.Pass, H.Stop, H.Decline) else cls(m["s"], CardSet(m["c"]))
    return m["h"], m["d"], action


class PlainSession:
    def __init__(self, identity: Any, roster_keys: Any, table_id: bytes, config: Any, rng: Any = None) -> None:
        self.key = identity.public_key
        self.table_id = table_id
        self.config = config
        self.seat_keys = tuple(sorted(roster_keys, key=lambda k: hashlib.sha256(table_id + k).digest()))
        self.my_seat = self.seat_keys.index(self.key)
        self.match = Match(config.options.lead_card, config.options)
        self.hand: H.Hand | None = None
        self.hand_no = 0
        self.index = 0                       # decisions resolved in this hand
        self.answers: dict[int, H.Action] = {}
        self.future: list[tuple[int, int, H.Action]] = []
        self._events: list[Any] = []
        self._out: list[bytes] = []
        self._work = 0
        self.finished = False

    # -- the contract ---------------------------------------------------------
    def start(self) -> None:
        self._events.append(Record(b"PLAIN " + self.table_id.hex().encode() + b"\n"))
        self._events.append(Seated(self.seat_keys, self.my_seat))
        self._new_hand()

    def step(self) -> bool:
        if not self._work:
            return False
        self._work -= 1
        self._events.append(DealProgress("shuffle", 4 - self._work, 4))
        if not self._work:
            self._dealt()
        return True

    def receive(self, data: bytes, from_key: bytes) -> None:
        try:
            hand_no, index, action = _decode(data)
        except (ValueError, KeyError, TypeError):
            return
        if from_key not in self.seat_keys or action.seat != self.seat_keys.index(from_key):
            self._events.append(Blame(None, 0, "a message for another seat"))
            self.finished = True
            return
        self.future.append((hand_no, index, action))
        self._drain()

    def act(self, action: H.Action) -> None:
        if self.pending_for_me is None:
            raise H.IllegalActionError("nothing is asked of you now")
        if action not in self.legal_actions:
            raise H.IllegalActionError(f"{action} is not legal now")
        self._out.append(_encode(self.hand_no, self.index, action))
        self.future.append((self.hand_no, self.index, action))
        self._drain()

    def take_outgoing(self) -> list[bytes]:
        out, self._out = self._out, []
        return out

    def take_events(self) -> list[Any]:
        events, self._events = self._events, []
        return events

    @property
    def waiting_for(self) -> tuple[int, ...]:
        if self.hand is None or self.hand.is_over or self._work:
            return ()
        return tuple(s for s in self.hand.decision.seats if s not in self.answers)

    @property
    def pending_for_me(self) -> H.Decision | None:
        if self.finished or self.hand is None or self._work or self.my_seat in self.answers:
            return None
        decision = self.hand.decision
        return decision if self.my_seat in decision.seats else None

    @property
    def view(self) -> H.SeatView | None:
        return self.hand.view(self.my_seat) if self.hand is not None and not self._work else None

    @property
    def legal_actions(self) -> list[H.Action]:
        return list(self.hand.legal_actions(self.my_seat)) if self.pending_for_me else []

    @property
    def totals(self) -> tuple[int, int, int, int]:
        return self.match.totals

    # -- inside ----------------------------------------------------------------
    def _new_hand(self) -> None:
        self.hand_no += 1
        self.index = 0
        self.answers = {}
        self.hand = None
        self._work = 4
        self._events.append(HandStarted(self.hand_no))

    def _dealt(self) -> None:
        deal = random_deal(Random(self.table_id + bytes([self.hand_no])))
        self.hand = self.match.start_hand(deal)
        self._events.append(Dealt(self.hand_no, deal[self.my_seat]))
        self._pending()
        self._drain()

    def _pending(self) -> None:
        decision = self.hand.decision
        self._events.append(DecisionPending(decision, self.my_seat in decision.seats))

    def _drain(self) -> None:
        while self.hand is not None and not self._work and not self.finished:
            ready = [m for m in self.future if m[0] == self.hand_no and m[1] == self.index]
            if not ready:
                return
            for m in ready:
                self.future.remove(m)
                self.answers[m[2].seat] = m[2]
            decision = self.hand.decision
            if any(s not in self.answers for s in decision.seats):
                continue
            answers, self.answers = self.answers, {}
            if decision.kind is H.DecisionKind.TURN:
                self.hand.apply(answers[decision.seats[0]])
            else:
                self.hand.resolve(answers)
            for seat in decision.seats:  # canonical order: the decision's seat order
                self._events.append(Record(_encode(self.hand_no, self.index, answers[seat]) + b"\n"))
                self._events.append(ActionApplied(answers[seat]))
            self.index += 1
            if self.hand.is_over:
                hand = self.hand
                self._events.append(HandEnded(self.hand_no, hand.finish, hand.red_seats, hand.multiplier,
                                              hand.scores, self.match.totals))
                if self.hand_no >= self.config.hands:
                    self._events.append(MatchEnded(self.match.totals))
                    self.finished = True
                    return
                self._new_hand()
                return
            self._pending()
