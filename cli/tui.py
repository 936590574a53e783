"""Playing at the terminal: plain text, no curses.

:class:`Narrator` tells what happens at the table (seating, shuffling and dealing
progress, every play -- "leads" when it starts a round, from the engine's state before
the slot (``ActionApplied.lead``) -- the result and the cumulative scores after each
hand) and whom the table waits for: one line when it starts waiting for a seat it was
not already waiting for, or when an awaited seat loses or regains its connection.
:class:`HumanPlayer` asks the person for an action: it shows the hand sorted and
grouped by rank, the table (top play and who made it, who passed since that play
(from the view's public history), cards left per seat, exposed red tens, finishing
order, multiplier, the match totals so far), offers the legal plays numbered, accepts a number or typed cards (``9C 9H``) and says in one line why a
play is illegal. Run/Stop and chata/kkojda are yes/no questions with a deadline
after which they decline.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence
from typing import Any

import trio

from p2p_sasaki.cards import CardNotationError, CardSet
from p2p_sasaki.combos import classify
from p2p_sasaki.hand import Chata, DecisionKind, Decline, Expose, Kkojda, Pass, Play, Run, Stop
from p2p_sasaki.protocol.net.identity import describe_key
from p2p_sasaki.protocol.net.table import Connected, Turn, Waiting

from p2p_sasaki.cli.render import action_text, places_text, seats_text

MAX_LISTED = 40
_WINDOW_QUESTIONS = {
    DecisionKind.RUN: "Run (show your red ten{s} {cards}, the hand counts double)?",
    DecisionKind.STOP: "Call Stop (the hand counts four times)?",
    DecisionKind.CHATA: "Chata with {cards} out of turn?",
    DecisionKind.KKOJDA: "Kkojda with {cards}?",
    DecisionKind.EXPOSE: "Show {cards}?",
}
_CLAIMS = (Run, Stop, Chata, Kkojda, Expose)


def grouped(cards: CardSet) -> str:
    """``3H 3S | 5C | TD TH``: sorted, one group per rank."""
    groups: dict[int, list[str]] = {}
    for card in cards:
        groups.setdefault(int(card.rank), []).append(str(card))
    return " | ".join(" ".join(group) for _, group in sorted(groups.items())) or "(none)"


def say(text: str) -> None:
    print(text, flush=True)


class Narrator:
    """Prints the table's events for a person; ``event(event, session)`` is the driver's callback."""

    def __init__(self, show_waiting: bool = False, out: Any = None) -> None:
        self.show_waiting = show_waiting
        self.my_seat: int | None = None
        self.seat_keys: Sequence[bytes] = ()
        self.progress_shown = -1
        self.awaited: frozenset[int] = frozenset()
        self.offline_shown: tuple[int, ...] = ()
        self.last_shown: tuple[frozenset[int], tuple[int, ...]] | None = None
        self.totals: tuple[int, ...] | None = None

    def say(self, text: str) -> None:
        say(text)

    def name(self, seat: int) -> str:
        return "you" if seat == self.my_seat else f"S{seat}"

    def event(self, event: Any, session: Any) -> None:
        kind = type(event).__name__
        if isinstance(event, Connected):
            say("Connected to the other three players; drawing seats.")
        elif isinstance(event, Waiting):
            # Once per change: when the table starts waiting for a seat it was not waiting
            # for already, or a seat's link goes or comes back. Answers arriving (the set
            # shrinking) and the same seats again after a moment of nobody are not news.
            awaited = frozenset(event.seats)
            news = bool(awaited - self.awaited) or event.offline != self.offline_shown
            news = news and (awaited, event.offline) != self.last_shown  # never the same line twice
            self.awaited, self.offline_shown = awaited, event.offline
            if self.show_waiting and news:
                self.last_shown = (awaited, event.offline)
                say(self.waiting_line(event))
        elif kind == "Seated":
            self.awaited, self.last_shown = frozenset(), None   # numbers were roster indices until now
            self.my_seat = event.my_seat
            self.seat_keys = event.seat_keys
            say(f"Seats drawn: you are S{event.my_seat}. "
                + ", ".join(f"S{s} {describe_key(k)}" for s, k in enumerate(event.seat_keys)) + ".")
        elif kind == "HandStarted":
            self.progress_shown = -1
            self.awaited = frozenset()
            say(f"\nHand {event.hand_no}: shuffling and dealing (every peer shuffles, with proofs) ...")
        elif kind == "DealProgress":
            percent = 100 * event.done // max(event.total, 1)
            if percent // 25 > self.progress_shown // 25 or event.done == event.total:
                self.progress_shown = percent
                say(f"  {event.step}: {event.done}/{event.total}")
        elif kind == "Dealt":
            say(f"Your cards: {grouped(event.cards)}")
        elif kind == "ActionApplied":
            action = event.action
            if isinstance(action, Decline):
                return
            text = action_text(action, lead=getattr(event, "lead", False))
            say("  " + text.replace(f"S{self.my_seat} ", f"S{self.my_seat} (you) ", 1))
        elif kind == "HandEnded":
            self.totals = tuple(event.totals)
            say(f"Hand {event.hand_no} is over. Finishing order: {seats_text(event.finish)}; "
                f"red team: {seats_text(event.red)}; multiplier x{event.multiplier}.")
            say(f"Scores: {places_text(event.scores)}.  Totals: {places_text(event.totals)}.")
        elif kind == "MatchEnded":
            say(f"The match is over. Totals: {places_text(event.totals)}.")
        elif kind == "VersionMismatch":
            say(f"A peer runs another release: {event.reason}.")
        elif kind == "Blame":
            who = "nobody" if event.seat is None else f"S{event.seat}"
            say(f"VIOLATION: {who} is blamed: {event.reason}. The table stops.")

    def describe(self, seat: int, key: bytes | None = None) -> str:
        """``S2 (peer 1a2b3c4d)``; before the seats are drawn only the peer."""
        if not self.seat_keys:
            return describe_key(key) if key is not None else f"member {seat + 1}"
        return f"S{seat} ({describe_key(key if key is not None else self.seat_keys[seat])})"

    def waiting_line(self, event: Waiting) -> str:
        keys = event.keys if len(event.keys) == len(event.seats) else (None,) * len(event.seats)
        names = ", ".join(self.describe(s, k) for s, k in zip(event.seats, keys))
        line = f"waiting for {names} ..."
        if event.offline:
            gone = ", ".join(self.describe(s, k) for s, k in zip(event.seats, keys) if s in event.offline)
            line += f" ({gone}: no connection, reconnecting)"
        return line


def passed_since_last_play(view: Any) -> list[int]:
    """Seats that passed since the current top play was made (engine's public history);
    none when there is no top play (a new round)."""
    if view.top is None:
        return []
    passed: list[int] = []
    for action in reversed(view.history):
        if isinstance(action, (Play, Chata, Kkojda)):
            break
        if isinstance(action, Pass) and action.seat not in passed:
            passed.append(action.seat)
    return sorted(passed)


class _LineReader:
    """Lines typed on stdin, read by one daemon thread, delivered into trio."""

    def __init__(self) -> None:
        self.send, self.receive = trio.open_memory_channel[str | None](100)
        token = trio.lowlevel.current_trio_token()

        def read() -> None:
            while True:
                line = sys.stdin.readline()
                try:
                    trio.from_thread.run_sync(self.send.send_nowait, line if line else None, trio_token=token)
                except (trio.RunFinishedError, trio.WouldBlock):
                    return
                if not line:
                    return

        threading.Thread(target=read, daemon=True).start()

    async def line(self, timeout: float | None = None) -> str | None:
        """The next line; '' on timeout; None at end of input."""
        if timeout is None:
            return await self.receive.receive()
        with trio.move_on_after(timeout):
            return await self.receive.receive()
        return ""


def why_illegal(text: str, cards: CardSet, turn: Turn) -> str:
    mine = turn.view.cards
    if not cards:
        return "type card codes like 9C 9H, a number from the list, or 'pass'"
    missing = cards - mine
    if missing:
        return f"you do not hold {missing}"
    if classify(cards.mask, mine.mask) is None:
        return f"{cards} is not a combination (single, pair, triple, four, sequence, Pig)"
    if turn.view.top is not None:
        return f"{cards} does not beat {turn.view.top_cards} (played by S{turn.view.top_seat})"
    return f"{cards} is not a legal play now"


class HumanPlayer:
    """Asks the person at this terminal; its narrator also says whom the table waits for."""

    def __init__(self, timeout: float = 20.0) -> None:
        self.timeout = timeout
        self.narrator = Narrator(show_waiting=True)
        self._reader: _LineReader | None = None

    async def _line(self, timeout: float | None = None) -> str | None:
        if self._reader is None:
            self._reader = _LineReader()
        return await self._reader.line(timeout)

    def table_lines(self, turn: Turn) -> list[str]:
        view = turn.view
        lines = []
        seats = []
        passed = passed_since_last_play(view)
        for seat in range(4):
            label = f"S{seat}" + (" (you)" if seat == turn.seat else "")
            extra = []
            if seat in view.finish:
                extra.append(f"out {view.finish.index(seat) + 1}.")
            shown = [c for c in view.shown[seat] if str(c) in ("TH", "TD")]
            if shown:
                extra.append("shows " + " ".join(map(str, shown)))
            if seat in passed:
                extra.append("passed")
            size = view.hand_sizes[seat]
            seats.append(f"{label}: {size} card{'' if size == 1 else 's'}" + (f" ({', '.join(extra)})" if extra else ""))
        lines.append("Table: " + "; ".join(seats) + f"; multiplier x{view.multiplier}.")
        if view.top is not None:
            lines.append(f"Top play: {view.top_cards} ({view.top}) by S{view.top_seat}.")
        else:
            lines.append("No top play: you lead." if view.decision.kind is DecisionKind.TURN else "No top play.")
        lines.append(f"Your hand: {grouped(view.cards)}")
        if self.narrator.totals is not None:
            lines.append(f"Match totals so far: {places_text(self.narrator.totals)}.")
        return lines

    async def decide(self, turn: Turn) -> Any:
        legal = list(turn.legal)
        if turn.decision.kind is DecisionKind.TURN:
            return await self._turn(turn, legal)
        return await self._window(turn, legal)

    async def _window(self, turn: Turn, legal: list[Any]) -> Any:
        claims = [a for a in legal if isinstance(a, _CLAIMS)]
        decline = next((a for a in legal if isinstance(a, Decline)), None)
        if not claims or decline is None:
            choice = claims[0] if claims else legal[0]
            say(f"(automatic: {action_text(choice, lead=False)})")
            return choice
        kind = turn.decision.kind
        timeout = self.timeout / 2 if kind in (DecisionKind.CHATA, DecisionKind.KKOJDA) else self.timeout
        for line in self.table_lines(turn):
            say(line)
        options = []
        for claim in claims:
            cards = getattr(claim, "cards", CardSet())
            question = _WINDOW_QUESTIONS[kind].format(cards=cards, s="s" if len(cards) > 1 else "")
            options.append((claim, question))
        if len(options) == 1:
            say(f"{options[0][1]} [y/N] (declines in {timeout:.0f} s)")
        else:
            for number, (_, question) in enumerate(options, 1):
                say(f"  {number}: {question}")
            say(f"Type a number, or Enter to decline (declines in {timeout:.0f} s)")
        deadline = trio.current_time() + timeout
        while True:
            left = deadline - trio.current_time()
            line = await self._line(max(left, 0)) if left > 0 else ""
            if line is None or not line.strip():
                say("You decline." if line is not None and left > 0 else "Time is up: you decline.")
                return decline
            answer = line.strip().lower()
            if len(options) == 1 and answer in ("y", "yes"):
                return options[0][0]
            if answer in ("n", "no"):
                say("You decline.")
                return decline
            if answer.isdigit() and 1 <= int(answer) <= len(options):
                return options[int(answer) - 1][0]
            say("Answer y or n." if len(options) == 1 else "Type a number from the list, or Enter.")

    async def _turn(self, turn: Turn, legal: list[Any]) -> Any:
        for line in self.table_lines(turn):
            say(line)
        listed = legal[:MAX_LISTED]
        say("Your turn. Legal plays:")
        for number, action in enumerate(listed, 1):
            say(f"  {number:2}: {_short(action)}")
        if len(legal) > MAX_LISTED:
            say(f"  ... and {len(legal) - MAX_LISTED} more: type the cards")
        while True:
            say("Play (number, cards like 9C 9H, or 'pass'):")
            line = await self._line()
            if line is None:
                raise EOFError("the terminal closed")
            text = line.strip()
            if not text:
                continue
            if text.isdigit():
                if 1 <= int(text) <= len(listed):
                    return listed[int(text) - 1]
                say(f"Illegal: there is no play number {text}.")
                continue
            if text.lower() in ("pass", "p"):
                found = next((a for a in legal if isinstance(a, Pass)), None)
                if found is not None:
                    return found
                say("Illegal: you cannot pass when you lead.")
                continue
            try:
                cards = CardSet.parse(text.upper())
            except CardNotationError as error:
                say(f"Illegal: {error}.")
                continue
            found = next((a for a in legal if not isinstance(a, Pass) and a.cards == cards), None)
            if found is not None:
                return found
            say(f"Illegal: {why_illegal(text, cards, turn)}.")


def _short(action: Any) -> str:
    if isinstance(action, Pass):
        return "pass"
    combo = classify(action.cards.mask)
    verb = "run, showing " if isinstance(action, Run) else ""
    return f"{verb}{action.cards}" + (f"  ({combo})" if combo is not None and not isinstance(action, Run) else "")
