"""Playing at the terminal: plain text, no curses; the terminal view of the presenter.

:class:`Narrator` prints the presenter's notes (``cli/presenter.py``: plays, "goes
out", scores marking you and the winner, "waiting for" only when it changes, "time
is up"). :class:`HumanPlayer` asks the person at this terminal: it prints the
presenter's :class:`~p2p_sasaki.cli.presenter.Prompt` (the table, the hand grouped by
rank, the legal plays grouped by kind with suit variants folded, a window's question
with its deadline) and passes what is typed to :meth:`Presenter.answer`, so a page
open on the same seat can answer too (the first answer wins). Lines typed before a
prompt are discarded; ``help`` and ``quit`` work at any prompt.
"""

from __future__ import annotations

import contextlib
import shutil
import sys
import threading
from typing import Any

import trio

from p2p_sasaki.cli.games.sasaki import COMMANDS_HELP, RULES_HELP, grouped, passed_since_last_play
from p2p_sasaki.cli.presenter import (
    OPEN_HAND,
    Choice,
    ChoiceGroup,
    Note,
    NoteKind,
    Presenter,
    Prompt,
    Refusal,
    TableView,
)
from p2p_sasaki.protocol.net.table import PlayerLeft, Stalled, Turn

__all__ = ["Narrator", "HumanPlayer", "InputEnded", "LeftTable", "say", "grouped", "passed_since_last_play",
           "table_lines", "prompt_lines", "game_lines"]


class InputEnded(Exception):
    """The terminal's input ended at a prompt (Ctrl-D): the person walked away; the command
    exits with status 130 like an interrupt, without sending anything."""


class LeftTable(PlayerLeft):
    """The person typed ``quit`` and confirmed it: the driver sends a leave notice first."""


def flush_typed_input() -> None:
    """Drop what was typed on a terminal but not yet read: termios where there is one (Linux,
    macOS), the console's input buffer on Windows; lines already read are dropped by the caller."""
    if not sys.stdin.isatty():
        return
    if sys.platform == "win32":
        import msvcrt
        while msvcrt.kbhit():
            msvcrt.getwch()
        return
    import termios
    with contextlib.suppress(OSError, termios.error):
        termios.tcflush(sys.stdin.fileno(), termios.TCIFLUSH)


def say(text: str) -> None:
    print(text, flush=True)


class Narrator:
    """Prints a presenter's notes; ``event(event, session)`` is the driver's callback.

    With ``wait_delay`` (a person's terminal), a "Waiting for ..." line is printed only
    when the table still waits for the same seats that many seconds later (``run``
    does that), so quick answers by bots print nothing; a lost connection is told at once.
    """

    def __init__(self, presenter: Presenter | None = None, show_waiting: bool = True,
                 wait_delay: float = 0.0) -> None:
        self.presenter = presenter if presenter is not None else Presenter()
        self.show_waiting = show_waiting
        self.wait_delay = wait_delay
        self._pending: tuple[Note, float] | None = None
        self._kick: trio.Event | None = None
        self._progress_open = False   # a deal line is on screen without its newline yet
        self.presenter.on_note.append(self.note)

    def note(self, note: Note) -> None:
        if note.kind is NoteKind.WAIT:
            if not self.show_waiting:
                return
            if self.wait_delay > 0 and "no connection" not in note.text:
                self._pending = (note, trio.current_time() + self.wait_delay)
                if self._kick is not None:
                    self._kick.set()
                return
        if note.kind is NoteKind.PROGRESS:
            self.progress_line(note.text)
            return
        self.end_progress_line()
        indent = "  " if note.kind in (NoteKind.PLAY, NoteKind.OUT) else ""
        say(indent + note.text)

    def progress_line(self, text: str) -> None:
        """The deal's line: rewritten in place on a terminal; elsewhere printed once, when full."""
        if sys.stdout.isatty():
            print("\r" + text, end="", flush=True)
            self._progress_open = True
        elif "cards dealt" in text:
            say(text)

    def end_progress_line(self) -> None:
        if self._progress_open:
            print(flush=True)
            self._progress_open = False

    async def run(self) -> None:
        """Print the delayed waiting lines that are still true when due; runs until cancelled."""
        while True:
            self._kick = trio.Event()
            if self._pending is None:
                await self._kick.wait()
                continue
            note, due = self._pending
            await trio.sleep_until(due)
            if self._pending is not None and self._pending[0] is note:
                self._pending = None
                if self.presenter.waiting == note.text:
                    self.end_progress_line()     # never run on from the deal's line
                    say(note.text)

    def say(self, text: str) -> None:
        self.end_progress_line()     # a message never runs on from the deal's line
        say(text)

    def event(self, event: Any, session: Any) -> None:
        self.presenter.event(event, session)


def table_lines(table: TableView) -> list[str]:
    """The table around you, the top play and your hand, as text."""
    seats = []
    for seat in table.seats:
        extra = []
        if seat.place is not None:
            extra.append(f"out {('1st', '2nd', '3rd', '4th')[seat.place - 1]}")
        if seat.red_tens:
            extra.append("shows " + " ".join(seat.red_tens))
        if seat.passed:
            extra.append("passed")
        label = f"You (S{seat.seat})" if seat.you else seat.label
        left = f"{seat.cards_left} card{'' if seat.cards_left == 1 else 's'}"
        seats.append(f"{label}: {left}" + (f" ({', '.join(extra)})" if extra else ""))
    lines = ["Table: " + "; ".join(seats) + f"; multiplier x{table.multiplier}."]
    if table.top is not None:
        lines.append(f"Top play: {' '.join(table.top.cards)} ({table.top.combo}) by {table.top.label}.")
    else:
        lines.append("No top play.")
    lines.append("Your hand: " + (" | ".join(" ".join(group) for group in table.hand) or "(none)"))
    for seat in table.seats:
        if seat.open_cards:
            lines.append(f"{OPEN_HAND} ({seat.label}): {' '.join(seat.open_cards)}")
    return lines


def game_lines(table: TableView) -> list[str]:
    """The table of a game with its own part (Sasku): the contract and trump, the trick in
    the middle, your hand, each pair's points and the race to the target."""
    game = table.game
    if game is None:
        return []
    lines = []
    if game.contract:
        lines.append(f"Contract: {game.contract}." if game.trump is None or "trump" in game.contract
                     else f"Contract: {game.contract}, trump {game.trump}.")
    lines.append("Trick: " + (", ".join(f"{label} {card}" for _, label, card in game.trick) or "(empty)") + ".")
    lines.append("Your hand: " + (" ".join(game.hand) or "(none)"))
    lines.append("Pairs: " + "; ".join(f"{p.label}{' (yours)' if p.yours else ''} {p.card_points} card points, "
                                       f"{p.tricks} tricks" for p in game.pairs) + f". Match: {game.race}.")
    return lines


def prompt_lines(prompt: Prompt, width: int | None = None) -> list[str]:
    """A prompt as text: at a turn the plays by kind, numbered (a kind's numbers run on;
    sequences one line per length), each line folded to ``width`` (the terminal's); in a
    window the question."""
    if prompt.kind == "turn":
        width = width or max(60, shutil.get_terminal_size((100, 24)).columns - 1)
        lines = [prompt.question, "Legal plays:"]
        others: list[tuple[str, ...]] = []     # suit choices not shown: the hint names one
        for group in prompt.groups:
            most = 1 if group.title == "Sequences" else 3    # a sequence's suit choices are many
            for title, choices in _rows(group):
                lines += _folded(f"  {title}: ", [f"{c.key[1:]}) {' / '.join(' '.join(v) for v in c.variants[:most])}"
                                                  for c in choices], width)
                others += [c.variants[most] for c in choices if len(c.variants) > most]
        if others:   # the example: the shortest of several cards
            example = min(others, key=lambda cards: (len(cards) == 1, len(cards)))
            lines.append(f"  (a number plays the suits shown; for others type the cards, like {' '.join(example)})")
        if prompt.can_pass:
            lines.append("  or pass")
        return lines
    claims = [c for g in prompt.groups for c in g.choices]
    seconds = f"{prompt.seconds:g} s" if prompt.seconds is not None else ""
    if not claims:   # a fair window that this seat cannot claim: open for everyone, then declined
        return [f"{prompt.question} (closes in {prompt.seconds:g} s)"]
    if len(claims) == 1:
        return [f"{claims[0].label} [y/N] (declines in {seconds})"]
    lines = [f"  {c.key[1:]}: {c.label}" for c in claims]
    return lines + [f"Type a number, or Enter to decline (declines in {seconds})"]


def _rows(group: ChoiceGroup) -> list[tuple[str, tuple[Choice, ...]]]:
    """A group's lines: one, or for sequences one per length ("Sequences of 3")."""
    if group.title != "Sequences":
        return [(group.title, group.choices)]
    lengths: dict[int, list[Choice]] = {}
    for choice in group.choices:
        lengths.setdefault(len(choice.variants[0]), []).append(choice)
    return [(f"Sequences of {length}", tuple(choices)) for length, choices in lengths.items()]


def _folded(head: str, items: list[str], width: int) -> list[str]:
    """``items`` after ``head``, three spaces apart, on as many lines as ``width`` needs; an
    item is never split and the next lines start under the first item."""
    lines, line = [], head
    for item in items:
        if line != head and len(line) + 3 + len(item) > width:
            lines.append(line)
            line = " " * len(head) + item
        else:
            line += ("   " if line != head else "") + item
    return lines + [line]


def _is_terminal() -> bool:
    try:
        return sys.stdin.isatty()
    except (OSError, ValueError):
        return False


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

    def discard(self) -> int:
        """Drop the lines typed so far (before a prompt); how many. End of input is kept."""
        flush_typed_input()
        dropped = 0
        while True:
            try:
                line = self.receive.receive_nowait()
            except trio.WouldBlock:
                return dropped
            if line is None:
                self.send.send_nowait(None)
                return dropped
            dropped += 1

    async def line(self) -> str | None:
        """The next line; None at end of input."""
        return await self.receive.receive()


class HumanPlayer:
    """Asks the person at this terminal (and any page open on the same presenter)."""

    def __init__(self, timeout: float = 30.0, presenter: Presenter | None = None, wait_delay: float = 0.0) -> None:
        self.presenter = presenter if presenter is not None else Presenter(timeout=timeout)
        self.presenter.timeout = timeout
        self.narrator = Narrator(self.presenter, wait_delay=wait_delay)
        self._reader: _LineReader | None = None
        # Read the terminal from the table's first event on, so that what is typed early is
        # seen (and dropped at the next prompt) rather than taken as that prompt's answer.
        self.presenter.listeners.append(self._start_reading)

    def _start_reading(self) -> None:
        if self._reader is None:
            self._reader = _LineReader()

    @property
    def reader(self) -> _LineReader:
        if self._reader is None:
            self._reader = _LineReader()
        return self._reader

    async def decide(self, turn: Turn) -> Any:
        opened = self.presenter.open(turn)
        if not isinstance(opened, Prompt):
            return opened
        self.reader.discard()       # keys typed while others thought are not answers
        if self.presenter.part.name != "sasaki":   # a game with its own part (cli/games): its lines
            for line in game_lines(self.presenter.table()) + self.presenter.part.prompt_lines(opened):
                say(line)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._typed_game, opened)
                action = await self.presenter.wait(opened)
                nursery.cancel_scope.cancel()
            return action
        if opened.kind == "turn":
            for line in table_lines(self.presenter.table()):
                say(line)
        # A chata or kkojda window you cannot claim opens after every single: it passes silently
        # (the play line said enough); the rarer run, show and Stop windows get their one line.
        if opened.groups or opened.kind not in ("chata", "kkojda"):
            for line in prompt_lines(opened):
                say(line)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._typed, opened)
            action = await self.presenter.wait(opened)
            nursery.cancel_scope.cancel()
        return action

    async def stalled(self, stall: Stalled) -> str:
        """The stall deadline's choice, typed here or chosen on a page (the first answer wins)."""
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._typed_stall)
            choice = await self.presenter.stalled(stall)
            nursery.cancel_scope.cancel()
        return choice

    async def _typed_stall(self) -> None:
        while self.presenter.prompt is None or self.presenter.prompt.kind != "stall":
            await trio.sleep(0.05)
        prompt = self.presenter.prompt
        self.reader.discard()
        keys = {"w": "wait", "a": "abandon", "e": "end", "1": "wait", "2": "abandon", "3": "end"}
        bot = next((c.label for g in prompt.groups for c in g.choices if c.key == "bot"), None)
        if bot is None:
            say("  w) keep waiting   a) abandon this hand   e) end the match")
            again = "Type w (keep waiting), a (abandon this hand) or e (end the match)."
        else:   # "Bot for S2": the others may go on with a bot in that seat
            keys.update({"b": "bot", "4": "bot"})
            seat = bot.removeprefix("Bot for ")
            say(f"  w) keep waiting   a) abandon this hand   e) end the match   b) go on with a bot for {seat}")
            again = f"Type w (keep waiting), a (abandon this hand), e (end the match) or b (a bot for {seat})."
        while True:
            line = await self.reader.line()
            if line is None:
                if _is_terminal():
                    raise InputEnded("the input ended")
                await trio.sleep_forever()
                return
            lower = line.strip().lower()
            if lower in ("quit", "exit"):
                await self._confirm_quit()
                continue
            key = keys.get(lower[:1]) if lower else None
            if key is None:
                say(again)
                continue
            self.presenter.answer(prompt.id, key=key)
            return

    async def _typed_game(self, prompt: Prompt) -> None:
        """Read lines until one answers ``prompt`` of a game with its own part: the part reads
        the words (cli/games; Sasku: ``bid 6``, ``pass``, ``take``, ``trump h``, ``QH``)."""
        while True:
            line = await self.reader.line()
            if line is None:
                if _is_terminal():
                    raise InputEnded("the input ended")
                await trio.sleep_forever()   # no terminal: a page may still answer
                return
            text = line.strip()
            lower = text.lower()
            if not text:
                continue
            if lower in ("help", "?", "h"):
                for help_line in self.presenter.part.prompt_lines(prompt):
                    say(help_line)
                continue
            if lower in ("quit", "exit"):
                await self._confirm_quit()
                continue
            result = self.presenter.answer(prompt.id, cards=text)
            if isinstance(result, Refusal):
                say(f"Illegal: {result.reason}.")
                continue
            return

    async def _typed(self, prompt: Prompt) -> None:
        """Read lines until one answers ``prompt`` (the presenter takes the first answer)."""
        ask = "Play (number, cards like 9C 9H, 'pass', 'help'):" if prompt.kind == "turn" else None
        claims = [c for g in prompt.groups for c in g.choices]
        while True:
            if ask is not None:
                say(ask)
            line = await self.reader.line()
            if line is None:
                if _is_terminal():
                    raise InputEnded("the input ended")
                await trio.sleep_forever()   # no terminal: a page may still answer
                return
            text = line.strip()
            lower = text.lower()
            if lower in ("help", "?", "h"):
                say(RULES_HELP)
                say(COMMANDS_HELP)
                continue
            if lower in ("quit", "exit"):
                await self._confirm_quit()
                continue
            if prompt.kind == "turn":
                if not text:
                    continue
                if text.isdigit():
                    result = self.presenter.answer(prompt.id, key=f"c{text}")
                    if isinstance(result, Refusal):
                        result = Refusal(f"there is no play number {text}")
                elif lower in ("pass", "p"):
                    result = self.presenter.answer(prompt.id, key="pass")
                else:
                    result = self.presenter.answer(prompt.id, cards=text)
            else:
                if lower in ("", "n", "no"):
                    result = self.presenter.answer(prompt.id, key="decline")
                    if not isinstance(result, Refusal):
                        say("You decline.")
                elif lower in ("y", "yes") and len(claims) == 1:
                    result = self.presenter.answer(prompt.id, key=claims[0].key)
                elif text.isdigit() and 1 <= int(text) <= len(claims):
                    result = self.presenter.answer(prompt.id, key=f"c{text}")
                else:
                    say("Answer y or n." if len(claims) == 1 else "Type a number from the list, or Enter.")
                    continue
            if isinstance(result, Refusal):
                say(f"Illegal: {result.reason}.")
                continue
            return

    async def decide_next(self, seconds: float | None) -> bool:
        """At the end of a match: a next match with the same four? (a page may answer too)."""
        offer = self.presenter.offer_next(seconds)
        if self.presenter.closed:                 # the page was closed already: that is a no
            self.presenter.answer_next(offer.id, False)
            return False
        self.reader.discard()
        within = f" (answer within {seconds:.0f} s)" if seconds is not None else ""
        say(f"{offer.question} [y/N]{within}")
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._typed_next, offer.id)
            accept = await self.presenter.wait_next(offer)
            nursery.cancel_scope.cancel()
        return accept

    async def _typed_next(self, offer_id: int) -> None:
        while True:
            line = await self.reader.line()
            if line is None:
                if _is_terminal() or not self.presenter.pages:
                    self.presenter.answer_next(offer_id, False)   # Ctrl-D, or no input at all: no next match
                    return
                await trio.sleep_forever()   # no terminal: the page may still answer
                return
            lower = line.strip().lower()
            if lower in ("help", "?", "h"):
                say("Type y for a next match with the same four players (a fresh table, scores from zero), "
                    "or n (or Enter) to end here.")
                continue
            if lower in ("y", "yes"):
                self.presenter.answer_next(offer_id, True)
                return
            if lower in ("", "n", "no", "quit", "exit"):
                self.presenter.answer_next(offer_id, False)
                return
            say("Answer y or n.")

    async def _confirm_quit(self) -> None:
        say("Leave the table? The others cannot finish the match without you. [y/N]")
        line = await self.reader.line()
        if line is not None and line.strip().lower() in ("y", "yes"):
            say("You leave the table.")
            raise LeftTable("you left the table")
        say("You stay.")
