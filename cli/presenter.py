"""What a person at a table is shown, as values: one presenter, two views.

:class:`Presenter` follows the table driver's events (``event(event, session)``,
the callback of :func:`p2p_sasaki.protocol.net.table.run_table`) and keeps what a
person needs: the notes worth telling (plays, "goes out", scores that mark you and
the winner, "waiting for" only when it changes), a snapshot of the table
(:class:`TableView`) and the decision the person is asked now (:class:`Prompt`:
legal plays grouped by kind with suit variants folded, a forced pass, a deadline).
The terminal (``cli/tui.py``) prints these values; the page (``cli/web``) draws
them. Neither view decides anything about the game itself.

The presenter is also the person's *desk*: :meth:`Presenter.ask` opens a prompt
and waits; :meth:`Presenter.answer` is called by any view (the terminal, one or
more browser tabs) and the first valid answer for a prompt wins; later answers for
the same prompt are refused, so a peer never signs twice for one slot.

>>> from p2p_sasaki.sasaki.hand import Play
>>> Presenter().play_text(Play(2, CardSet.parse("9C 9H")), lead=False)
'S2 plays 9C 9H (pair of 9)'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

import trio

from p2p_sasaki.cards import Card, CardNotationError, CardSet
from p2p_sasaki.cli.games import part_for
from p2p_sasaki.cli.prompts import Choice, ChoiceGroup, Note, NoteKind, Prompt, Refusal
from p2p_sasaki.cli.render import action_text
from p2p_sasaki.protocol.events import (
    AbandonRejected,
    ActionApplied,
    Blame,
    DealProgress,
    Dealt,
    HandAbandoned,
    HandEnded,
    HandStarted,
    MatchEnded,
    Seated,
    SeatLeft,
    Shown,
    VersionMismatch,
)
from p2p_sasaki.protocol.messages import default_name
from p2p_sasaki.protocol.net.identity import describe_key
from p2p_sasaki.protocol.net.table import (
    ABANDON,
    BOT,
    END,
    WAIT,
    CannotAbandon,
    Connected,
    Links,
    OptionsAgreed,
    Stalled,
    Turn,
    Waiting,
)
from p2p_sasaki.protocol.sasaki_game import SasakiOutcome
from p2p_sasaki.sasaki.combos import Kind, classify
from p2p_sasaki.sasaki.hand import (
    TURN_DIRECTION,
    Action,
    Chata,
    DecisionKind,
    Decline,
    Expose,
    Kkojda,
    Pass,
    Play,
    Run,
    SeatView,
    Stop,
)
from p2p_sasaki.sasaki.scoring import DEFAULT_SCORING

__all__ = ["NoteKind", "Note", "SeatState", "TopPlay", "Choice", "ChoiceGroup", "Prompt", "ScoreSheet",
           "Progress", "Phase", "TableView", "Refusal", "Presenter", "grouped", "card_words",
           "RULES_HELP", "COMMANDS_HELP", "HandResult", "ResultRow", "result_lines"]

SEATS = 4
CARDS_PER_SEAT = 12
_PLACES = ("1st", "2nd", "3rd", "4th")
_STEPS = {"hand-id": "agreeing on the hand", "shuffle": "shuffling", "proof": "checking the shuffle proofs",
          "deal": "dealing"}
def deal_line(steps: Mapping[str, tuple[int, int]], seats: int = SEATS, width: int = 20) -> str:
    """The deal's progress as one line that fills as it goes, in words.

    >>> deal_line({"hand-id": (1, 1), "shuffle": (2, 4)})
    'Dealing [######..............] hand agreed; shuffled by 2 of 4 seats; 0 of 4 shuffle proofs checked'
    >>> deal_line({"hand-id": (1, 1), "shuffle": (4, 4), "proof": (4, 4), "deal": (1, 1)})
    'Dealing [####################] hand agreed; shuffled by 4 of 4 seats; 4 of 4 shuffle proofs checked; cards dealt'
    """
    seats = steps.get("shuffle", steps.get("proof", (0, seats)))[1]
    agreed, shuffled = steps.get("hand-id", (0, 1))[0], steps.get("shuffle", (0, seats))[0]
    proven, dealt = steps.get("proof", (0, seats))[0], steps.get("deal", (0, 1))[0]
    total = 2 * seats + 2
    # Cards dealt: the bar is full, whatever progress reports this peer missed on the way.
    filled = width if dealt else round(width * min(agreed + shuffled + proven, total - 1) / total)
    words = ["hand agreed" if agreed else "agreeing on the hand",
             f"shuffled by {shuffled} of {seats} seats", f"{proven} of {seats} shuffle proofs checked"]
    if dealt:
        words.append("cards dealt")
    return f"Dealing [{'#' * filled}{'.' * (width - filled)}] " + "; ".join(words)


_KIND_GROUPS = {Kind.SINGLE: "Singles", Kind.PAIR: "Pairs", Kind.SEQUENCE: "Sequences", Kind.TRIPLET: "Triplets",
                Kind.SASAKI: "Sasaki", Kind.FOUR: "Fours", Kind.PIG: "Pig"}
_RANK_WORDS = ("three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack", "queen", "king", "ace")
_SUIT_WORDS = ("clubs", "diamonds", "hearts", "spades")
_QUESTIONS = {
    DecisionKind.RUN: "Run, showing {cards}?",
    DecisionKind.STOP: "Call Stop (the hand counts four times)?",
    DecisionKind.CHATA: "Chata with {cards} out of turn?",
    DecisionKind.KKOJDA: "Kkojda with {cards}?",
    DecisionKind.EXPOSE: "Show {cards}?",
}
_CLAIM_NAMES = {DecisionKind.RUN: "Run", DecisionKind.STOP: "Stop", DecisionKind.CHATA: "Chata",
                DecisionKind.KKOJDA: "Kkojda", DecisionKind.EXPOSE: "Show"}
def _duration(seconds: int) -> str:
    """``45 s``, ``2 min``, ``2 min 5 s``."""
    minutes, rest = divmod(seconds, 60)
    if not minutes:
        return f"{rest} s"
    return f"{minutes} min" + (f" {rest} s" if rest else "")


_AWAITED = {DecisionKind.TURN: "to play", DecisionKind.RUN: "to answer the run window",
            DecisionKind.STOP: "to answer the Stop window", DecisionKind.CHATA: "to answer the chata chance",
            DecisionKind.KKOJDA: "to answer the kkojda chance", DecisionKind.EXPOSE: "to show a red ten",
            DecisionKind.OVER: "to finish the hand (the end-of-hand key check)"}

_GAME_AWAITED = {"bid": "is to bid", "answer": "is to take or refuse a picture", "return": "is to hand a card back",
                 "trump": "is to name the trump", "play": "is to play"}   # a Sasku decision, in the status line
_GAME_AWAITED_TO = {kind: text.removeprefix("is ") for kind, text in _GAME_AWAITED.items()}   # ... in the waiting line

RULES_HELP = """\
Sasaki in short: 48 cards (no 2s), 12 each, ranks 3 (low) to A (high); suits never rank.
Get rid of your cards: the order you go out in scores the hand.
The round's leader plays anything; then each player in turn beats the top play or
passes (and may still play later in the round). When everyone else has passed, the last
player leads a new round.
Ordinary plays (single, pair, sequence of 3+ ranks in a row) are beaten only by the same
kind with as many cards and a higher rank: 9 9 beats 7 7; 5-6-7-8 beats 3-4-5-6 but not
a 3-card sequence.
Specials beat every ordinary play, and a higher special beats a lower one: a triplet,
then a Sasaki (4 4 A), then four of a kind, then the Pig (TH TD). The Black Pig (TC TS)
is a pair of tens that alone beats the Pig.
Chata: after any single, whoever holds the other two of its rank may play them at once,
out of turn; the fourth card of that rank may answer with a kkojda. Nothing beats it.
Sides: the two red-ten holders (TH, TD) play against the other two, unknown at first.
Run: before the first play, show your red ten; the hand counts double and your partner
shows theirs. Stop: after a run, an opponent may call Stop; the hand counts four times."""
"""The rules in short: the block marked "in-game help" in docs/rules.md, word for word
(tests/cli/test_rules_help.py checks it)."""

COMMANDS_HELP = """\
At your turn: a number from the list (it plays the suits shown first), cards like 9C 9H
(any suits you hold), or 'pass'.
In a window (run, Stop, chata, kkojda): y or a number to claim, n or Enter to decline.
'help' shows this at any prompt; 'quit' leaves the table (asks first)."""


def card_words(card: Card) -> str:
    """``ten of hearts`` for TH."""
    return f"{_RANK_WORDS[int(card.rank)]} of {_SUIT_WORDS[int(card.suit)]}"


def grouped(cards: CardSet) -> str:
    """``3H 3S | 5C | TD TH``: sorted, one group per rank."""
    return " | ".join(" ".join(group) for group in rank_groups(cards)) or "(none)"


def rank_groups(cards: CardSet) -> tuple[tuple[str, ...], ...]:
    groups: dict[int, list[str]] = {}
    for card in cards:
        groups.setdefault(int(card.rank), []).append(str(card))
    return tuple(tuple(group) for _, group in sorted(groups.items()))


NEXT_MATCH_QUESTION = "Next match with the same four?"
OPEN_HAND = "Bot's hand, open to all"   # a bot in an empty seat plays with its cards shown (docs/usage.md)
OFFLINE_TEXT = ("You are offline: no connection to any other player (check your network); "
                "reconnecting, and the table goes on when you are back ...")

@dataclass(frozen=True)
class SeatState:
    seat: int
    label: str              # "You" or "S2" (a name once the roster carries one)
    you: bool
    cards_left: int
    passed: bool            # passed since the current top play
    red_tens: tuple[str, ...]
    place: int | None       # 1-4 once out
    awaited: bool
    offline: bool
    open_cards: tuple[str, ...] = ()   # a bot in an empty seat: its cards now ("Bot's hand, open to all")


@dataclass(frozen=True)
class TopPlay:
    seat: int
    label: str
    cards: tuple[str, ...]
    combo: str


@dataclass(frozen=True)
class NextMatch:
    """The offer of a next match with the same four, at the end of a match."""

    id: int
    question: str
    deadline: float | None          # trio.current_time() when it declines by itself
    answer: bool | None = None      # yours, once given: then the others' answers are awaited


@dataclass(frozen=True)
class ScoreSheet:
    rows: tuple[tuple[int, tuple[int, ...]], ...]   # (hand number, scores)
    totals: tuple[int, ...]
    you: int | None
    winners: tuple[int, ...]                        # leaders of the totals (the winners once over)
    final: bool


@dataclass(frozen=True)
class ResultRow:
    """One seat's line of a hand's result, in finishing order."""

    seat: int
    label: str                    # "S2 Bot 3", or "you (S1 Mina)"
    place: int                    # 1-4
    side: str                     # "red" or "black"
    score: int
    reason: str                   # why: "red side 1st and 3rd: +1 each, x1"
    remaining: tuple[str, ...]    # the cards the last player still held (shown to all)


@dataclass(frozen=True)
class HandResult:
    """A finished hand as the result dialog shows it (kept until the next deal's cards)."""

    hand_no: int
    rows: tuple[ResultRow, ...]
    multiplier: int
    why_multiplier: str           # "nobody ran", "S1 ran", "S1 ran and S2 called Stop"
    totals: tuple[int, ...]       # match totals after the hand, by seat
    totals_text: str              # "S0 Bot 4 +1, you (S1 Mina) -1, ..."

    @property
    def title(self) -> str:
        return f"Hand {self.hand_no} result"


def result_lines(result: HandResult) -> list[str]:
    """The result block for a terminal (the page's dialog shows the same values).

    >>> rows = (ResultRow(0, "S0", 1, "red", 2, "red side 1st and 2nd: +2 each, x1", ()),
    ...         ResultRow(3, "S3", 2, "red", 2, "red side 1st and 2nd: +2 each, x1", ()),
    ...         ResultRow(1, "you (S1)", 3, "black", -2, "black side: red's +2 turned round, x1", ()),
    ...         ResultRow(2, "S2", 4, "black", -2, "black side: red's +2 turned round, x1", ("5C", "9H")))
    >>> for line in result_lines(HandResult(1, rows, 1, "nobody ran", (2, -2, -2, 2), "S0 +2")):
    ...     print(line)
    Hand 1 is over: multiplier x1 (nobody ran).
      1st  S0, red: +2 (red side 1st and 2nd: +2 each, x1)
      2nd  S3, red: +2 (red side 1st and 2nd: +2 each, x1)
      3rd  you (S1), black: -2 (black side: red's +2 turned round, x1)
      4th  S2, black: -2 (black side: red's +2 turned round, x1); still held 5C 9H
    Match totals: S0 +2.
    """
    lines = [f"Hand {result.hand_no} is over: multiplier x{result.multiplier} ({result.why_multiplier})."]
    for row in result.rows:
        held = f"; still held {' '.join(row.remaining)}" if row.remaining else ""
        lines.append(f"  {_PLACES[row.place - 1]}  {row.label}, {row.side}: {row.score:+d} ({row.reason}){held}")
    lines.append(f"Match totals: {result.totals_text}.")
    return lines


@dataclass(frozen=True)
class Progress:
    step: str
    done: int
    total: int


class Phase(Enum):
    JOINING = "joining"
    DEALING = "dealing"
    PLAYING = "playing"
    HAND_OVER = "hand over"
    MATCH_OVER = "match over"
    STOPPED = "stopped"


@dataclass(frozen=True)
class TableView:
    """A snapshot of the table for a person: what the page draws."""

    version: int
    phase: Phase
    hand_no: int
    hands: int | None
    you: int | None
    seats: tuple[SeatState, ...]
    top: TopPlay | None
    hand: tuple[tuple[str, ...], ...]       # your cards, sorted, grouped by rank
    multiplier: int
    progress: Progress | None
    waiting: str
    prompt: Prompt | None
    scores: ScoreSheet
    log: tuple[Note, ...]
    verdict: str | None
    transcript: bool                         # a transcript can be downloaded
    result: str | None = None                # who won, once the match is over
    next_match: NextMatch | None = None      # the next-match offer, while it is open
    match_no: int = 1                        # matches at this table so far (a next match adds one)
    you_label: str = ""                      # your seat as the others see it: "S1 Mina" (once seated)
    status: str = ""                         # whose turn or window it is: "Your turn: ..." (one line)
    side: str = ""                           # "Your side: red (partner unknown)", once you can know it
    hand_result: HandResult | None = None    # the last hand's result, until the next deal's cards
    direction: str = TURN_DIRECTION          # which way play goes: the next seat sits on your right
    game: Any = None                         # the game's own part (cli/games): Sasku's SaskuTable; None for Sasaki
    partners: str | None = None              # the creator's waiting room (Sasku): "Mina+Jun", "draw"; None: closed


@dataclass
class _Open:
    prompt: Prompt
    answers: dict[str, Any]            # an Action, or at a stall prompt one of STALL_CHOICES
    legal: tuple[Action, ...]
    turn: Turn | None                  # None at a stall prompt
    done: trio.Event = field(default_factory=trio.Event)
    action: Action | None = None


class Presenter:
    """The table as a person sees it; ``event(event, session)`` is the driver's callback.

    ``listeners`` are called (no arguments) after every change: the page pushes the
    new :meth:`table` then. ``event`` returns the notes of that event, which the
    terminal prints; all notes are also kept (the last ``LOG``) for the page.
    """

    LOG = 40

    def __init__(self, timeout: float = 30.0, hands: int | None = None, person: bool = True,
                 game: Any = None) -> None:
        self.timeout = timeout
        self.part: Any = part_for(game)   # the game's own part (cli/games): seats, cards, prompts, words
        self.hands = hands
        self.person = person          # a person sits at this seat ("you"); False: a bot's log
        self.session: Any = None      # the driver's session, read for who is awaited right now
        self.result: HandResult | None = None
        self.side = ""
        self.connected = False        # the mesh reached every other member (before the seats)
        self.links_down: tuple[int, ...] = ()   # seats with no live link now, awaited or not (Links)
        self.bot_wanted = False       # I chose "a bot in the empty seat" at the stall deadline
        self.continued: int | None = None   # a bot took a seat: the match's hands before this table
        self.hand_offset = 0          # ... so this table's hand 1 is the match's hand 1 + offset
        self.listeners: list[Callable[[], None]] = []
        self.on_note: list[Callable[[Note], None]] = []
        self.you: int | None = None
        self.names: tuple[str, ...] = ()
        self.version = 0
        self.phase = Phase.JOINING
        self.hand_no = 0
        self.view: SeatView | None = None
        self.sizes = [CARDS_PER_SEAT] * SEATS
        self.finish: list[int] = []
        self.deal_steps: dict[str, tuple[int, int]] = {}   # DealProgress step -> (done, total)
        self.progress: Progress | None = None
        self.awaited: frozenset[int] = frozenset()
        self.offline: tuple[int, ...] = ()
        self.last_wait: tuple[frozenset[int], tuple[int, ...]] | None = None
        self.alone = False            # no link to any other player: "You are offline"
        self.waiting = ""
        self.waiting_since = 0.0      # trio time since when the table waits (the Waiting event's)
        self.stall_at = 0.0           # ... and when the choices come (the stall deadline)
        self.gone: tuple[int, ...] = ()   # awaited seats that signed a leave notice
        self.rows: list[tuple[int, tuple[int, ...]]] = []
        self.totals: tuple[int, ...] = (0,) * SEATS
        self.log: list[Note] = []
        self.verdict: str | None = None
        self.transcript: Path | None = None
        self._open: _Open | None = None
        self._prompts = 0
        self._forced_pass = False
        self.next_offer: NextMatch | None = None
        self.partners_room: Any = None     # the creator's choice of partners while its table fills (cli/pairs.py)
        self.seat_keys: tuple[bytes, ...] = ()
        self.open_hands: dict[int, CardSet] = {}   # the open bots' hands as shown at this hand's deal
        self.pages = 0                # web pages serving this presenter (cli/web/server.py)
        self.closed = False           # the person pressed "Close table" on a page: no next match
        self._next_done = trio.Event()
        self.match_no = 1

    # -- words ---------------------------------------------------------------------------

    def label(self, seat: int) -> str:
        """``S2``, or ``S2 Mina`` when its player chose a name (printable characters only, at
        most 24, checked again here: a name never moves the terminal's cursor; the page sets
        it as text)."""
        if seat < len(self.names) and self.names[seat]:
            return f"S{seat} " + "".join(ch if ch.isprintable() else "?" for ch in self.names[seat])[:24]
        return f"S{seat}"

    def key_label(self, key: bytes) -> str:
        """The label of the member with identity ``key`` (its seat's), else ``peer 1a2b3c4d``."""
        if key in self.seat_keys:
            return self.label(self.seat_keys.index(key))
        return describe_key(key)

    def who(self, seat: int) -> str:
        """``S2``, or ``you (S1)`` (a bot's log names its own seat like any other)."""
        return f"you ({self.label(seat)})" if seat == self.you and self.person else self.label(seat)

    def seats_text(self, seats: Sequence[int]) -> str:
        return ", ".join(self.who(s) for s in seats) or "nobody"

    def scores_text(self, scores: Sequence[int]) -> str:
        return ", ".join(f"{self.who(s)} {v:+d}" for s, v in enumerate(scores))

    def play_text(self, action: Action, lead: bool, went_out: bool = False) -> str:
        """An action in words; yours as ``You pass``, ``You lead 9C 9H (pair of 9)``."""
        you = self.who(action.seat) != self.label(action.seat)
        return action_text(action, lead, went_out, who="You" if you else self.label(action.seat), you=you)

    # -- events --------------------------------------------------------------------------

    def event(self, event: Any, session: Any) -> list[Note]:
        """Follow one driver/session event; the notes it is worth."""
        if session is not None:
            self.session = session
            game = getattr(getattr(session, "config", None), "game", None)
            if game is not None and getattr(game, "name", None) != self.part.name:
                self.part = part_for(game)
        elif isinstance(event, OptionsAgreed) and getattr(event.config.game, "name", None) != self.part.name:
            self.part = part_for(event.config.game)     # a joiner learns the creator's game here
        notes = self._notes(event, session)
        if session is not None and getattr(session, "view", None) is not None:
            self.view = session.view
        side = self.side_text()
        if side != self.side:
            self.side = side
            if side and self.person:
                notes.append(Note(side + ".", NoteKind.INFO))
        for note in notes:
            self.tell(note, quiet=True)
        self.changed()
        return notes

    def tell(self, note: Note, quiet: bool = False) -> None:
        """Log ``note`` and pass it to every ``on_note`` view (the terminal prints it)."""
        self.log.append(note)
        del self.log[:-self.LOG]
        for view in list(self.on_note):
            view(note)
        if not quiet:
            self.changed()

    def _notes(self, event: Any, session: Any) -> list[Note]:
        own = self.part.notes(self, event, session)   # the game's own lines (Sasku: cli/sasku_text.py)
        if own is not None:
            lines, phase = own
            if phase is not None:
                self.phase = Phase[phase]
            return [Note(text, NoteKind(kind)) for text, kind in lines]
        match event:
            case Links(offline=offline):
                self.links_down = tuple(offline)   # the page marks them; the terminal tells waits only
                return []
            case OptionsAgreed(config=config, names=names):
                partners = getattr(self.part, "partners_text", None)   # Sasku's chosen partners
                text = partners(config.game, names) if partners is not None else None
                return [] if text is None else [Note(text)]
            case Connected():
                self.connected = True
                self.awaited, self.last_wait = frozenset(), None    # what is awaited now is told again
                return [Note("Connected to the other three players; drawing seats.")]
            case Waiting(seats=seats, offline=offline, alone=alone, since=since, deadline=deadline, left=left):
                self.waiting_since, self.stall_at, self.gone = since, deadline, tuple(left)
                if alone != self.alone:
                    self.alone, self.last_wait = alone, None
                    if alone:
                        self.waiting = OFFLINE_TEXT
                        return [Note(OFFLINE_TEXT, NoteKind.WAIT)]
                    self.awaited = frozenset()     # what is awaited now is told again
                    return [Note("You are back online.", NoteKind.WAIT)] + self._waiting(frozenset(seats), offline,
                                                                                       session)
                if alone:
                    return []
                return self._waiting(frozenset(seats), offline, session)
            case Seated(my_seat=my_seat, seat_keys=seat_keys, seat_names=seat_names):
                self.you = my_seat
                self.seat_keys = tuple(seat_keys)
                # A member that chose no name is called by its key in the roster: shown as "S2".
                self.names = tuple(n if n != default_name(k) else ""
                                   for n, k in zip(seat_names, seat_keys, strict=False))
                self.awaited, self.last_wait, self.waiting = frozenset(), None, ""
                where = "you watch" if my_seat is None else (f"you are {self.label(my_seat)}" if self.person
                                                              else f"this is {self.label(my_seat)}'s log")
                if self.continued is not None:     # a bot in the empty seat: the seats stay as they were
                    return [Note(f"Seats as before: {where}.")]
                # Once, who sits where: the name, or (none chosen) the key's short form.
                peers = ", ".join(self.label(s) if s < len(self.names) and self.names[s]
                                  else f"{self.label(s)} {describe_key(k)}" for s, k in enumerate(seat_keys))
                return [Note(f"Seats drawn: {where}. {peers}.")]
            case HandStarted(hand_no=hand_no):
                config = getattr(session, "config", None)
                if config is not None and isinstance(getattr(config, "hands", None), int):
                    if self.continued:               # this table plays the match's last hands
                        self.hand_offset = max(0, self.continued - config.hands)
                        self.continued = 0
                    self.hands = config.hands + self.hand_offset
                hand_no += self.hand_offset
                self.hand_no, self.phase, self.progress = hand_no, Phase.DEALING, None
                self.deal_steps = {}
                self.sizes, self.finish, self.view = [self.part.cards_per_seat] * self.part.seats, [], None
                self.awaited, self.last_wait, self.open_hands = frozenset(), None, {}
                of = f" of {self.hands}" if self.hands else ""
                return [Note(f"Hand {hand_no}{of}: shuffling and dealing (every peer shuffles, with proofs) ...")]
            case DealProgress(step=step, done=done, total=total):
                self.progress = Progress(_STEPS.get(step, step), done, total)
                self.deal_steps[step] = (done, total)
                return [Note(deal_line(self.deal_steps), NoteKind.PROGRESS)]
            case Shown(seat=seat, cards=cards):
                self.open_hands[seat] = cards
                return [Note(f"{OPEN_HAND}: {self.label(seat)} holds {grouped(cards)}")]
            case Dealt(cards=cards):
                self.phase, self.progress, self.result = Phase.PLAYING, None, None
                # The deal's line ends full on every peer (some progress reports may be missed).
                n = self.deal_steps.get("shuffle", self.deal_steps.get("proof", (0, SEATS)))[1]
                line = deal_line({"hand-id": (1, 1), "shuffle": (n, n), "proof": (n, n), "deal": (1, 1)}, n)
                told = self.deal_steps and deal_line(self.deal_steps, n) != line
                full = [Note(line, NoteKind.PROGRESS)] if told else []
                self.deal_steps = {}
                whose = "Your" if self.person or self.you is None else f"{self.label(self.you)}'s"   # a bot's log
                return full + [Note(f"{whose} cards: {grouped(cards)}")]
            case ActionApplied(action=action, lead=lead):
                if action.seat in self.awaited:      # it answered: the table no longer waits for it
                    self.awaited = self.awaited - {action.seat}
                    self.waiting = self.waiting_text(self.awaited, self.offline, session)
                return self._applied(action, lead)
            case HandEnded(hand_no=hand_no, outcome=SasakiOutcome() as outcome, scores=scores, totals=totals):
                hand_no += self.hand_offset
                self.phase = Phase.HAND_OVER
                self.awaited, self.waiting = frozenset(), ""
                self.rows.append((hand_no, tuple(scores)))
                self.totals = tuple(totals)
                self.result = self.hand_result(hand_no, outcome, scores, totals)
                return [Note(line, NoteKind.SCORE) for line in result_lines(self.result)]
            case MatchEnded(totals=totals):
                self.phase, self.totals = Phase.MATCH_OVER, tuple(totals)
                self.awaited, self.offline, self.waiting = frozenset(), (), ""
                if self.bot_wanted:
                    return [Note("This table stops here; the match goes on at a fresh one if everyone agrees to "
                                 "a bot in the empty seat.", NoteKind.SCORE)]
                return [Note(self.winner_text(), NoteKind.SCORE)]
            case Blame(seat=seat, reason=reason):
                self.phase = Phase.STOPPED
                who = "nobody can be named" if seat is None else f"{self.who(seat)} is blamed"
                return [Note(f"The table stops: {who}: {reason}.", NoteKind.ALERT)]
            case VersionMismatch(reason=reason):
                return [Note(f"A peer runs another release: {reason}.", NoteKind.ALERT)]
            case SeatLeft(seat=seat):
                return [Note(f"{self.label(seat)} left the table.", NoteKind.ALERT)]
            case Stalled(seats=seats, since=since, left=left, bot_seat=bot_seat):
                return [Note(self.stall_question(seats, since, left, bot_seat), NoteKind.ALERT)]
            case HandAbandoned(hand=hand, left=left, end=end, reason=reason, scored=scored):
                hand += self.hand_offset
                self.phase = Phase.HAND_OVER
                self.awaited, self.offline, self.waiting = frozenset(), (), ""
                gone = ", ".join(self.label(s) for s in left)
                if scored:
                    return [Note(f"Hand {hand}: {reason}; nobody is blamed.", NoteKind.SCORE)]
                what = ("the match ends here" if end or (self.hands is not None and hand >= self.hands)
                        else "the next hand starts when every player is there")
                if self.bot_wanted:
                    what = "a bot takes the empty seat if everyone agrees"
                return [Note(f"Hand {hand} is abandoned ({reason}): {gone} left, nobody is "
                             f"blamed; {what}.", NoteKind.SCORE)]
            case CannotAbandon(reason=reason):
                return [Note(f"The hand cannot be abandoned now: {reason}. The table keeps waiting; you are asked "
                             "again one stall deadline later, or as soon as the awaited seats change.", NoteKind.ALERT)]
            case AbandonRejected(reason=reason):
                return [Note(f"An abandon was not accepted: {reason}.", NoteKind.ALERT)]
        return []

    def stall_question(self, seats: Sequence[int], since: float, left: Sequence[int], bot_seat: bool = False) -> str:
        names = ", ".join(self.label(s) for s in seats)
        options = (f"Keep waiting, abandon this hand, end the match, or go on with a bot in {names}'s seat?"
                   if bot_seat else "Keep waiting, abandon this hand, or end the match?")
        if left:
            return f"{', '.join(self.label(s) for s in left)} left the table. {options}"
        try:
            waited = max(0, round(trio.current_time() - since))
        except RuntimeError:
            waited = 0
        return f"{names} has not answered for {_duration(waited)}. {options}"

    async def stalled(self, stall: Stalled) -> str:
        """The stall deadline's choice (protocol/net/table.py, ``Player.stalled``): a prompt
        every view shows (kind ``"stall"``, one choice per group: wait, abandon, end, and
        "Bot for S2" when the stall allows a bot in the seat); a decision of mine that is open
        is answered first."""
        while self._open is not None:
            await trio.sleep(0.2)
        choices: tuple[tuple[str, str], ...] = ((WAIT, "Keep waiting"), (ABANDON, "Abandon this hand"),
                                                (END, "End the match"))
        if stall.bot_seat:
            choices += ((BOT, f"Bot for {self.label(stall.seats[0])}"),)
        self._prompts += 1
        prompt = Prompt(self._prompts, "stall",
                        self.stall_question(stall.seats, stall.since, stall.left, stall.bot_seat),
                        tuple(ChoiceGroup(label, (Choice(key, label),)) for key, label in choices),
                        can_pass=False, can_decline=False, seconds=None, deadline=None)
        self._open = _Open(prompt, {key: key for key, _ in choices}, (), None)
        self.changed()
        choice = await self.wait(prompt)
        self.bot_wanted = choice == BOT
        return str(choice)

    def winner_text(self) -> str:
        if self.part.name != "sasaki":
            return self.part.winner_text(self)   # type: ignore[no-any-return]
        best = max(self.totals)
        winners = [s for s, v in enumerate(self.totals) if v == best]
        if len(winners) == SEATS:
            return f"The match is over: a draw, everyone {best:+d}."
        names = " and ".join(self.who(s) for s in winners)
        verb = "win" if len(winners) > 1 or winners[0] == self.you else "wins"
        mine = f" You: {self.totals[self.you]:+d}." if self.you is not None and self.you not in winners else ""
        return f"The match is over: {names} {verb} with {best:+d}.{mine}"

    def _applied(self, action: Action, lead: bool) -> list[Note]:
        if isinstance(action, Decline):
            return []
        if isinstance(action, Pass) and action.seat == self.you and self._forced_pass:
            self._forced_pass = False
            return []
        notes = [Note(self.play_text(action, lead), NoteKind.PLAY)]
        if isinstance(action, (Play, Chata, Kkojda)):
            self.sizes[action.seat] -= len(action.cards)
            if self.sizes[action.seat] <= 0 and action.seat not in self.finish:
                self.finish.append(action.seat)
                place = len(self.finish)
                you = action.seat == self.you and self.person      # "You go out", like "You play"
                notes.append(Note(f"{'You go' if you else self.who(action.seat) + ' goes'} out "
                                  f"({_PLACES[place - 1]}).", NoteKind.OUT))
        return notes

    def _waiting(self, awaited: frozenset[int], offline: tuple[int, ...], session: Any) -> list[Note]:
        if self.phase is Phase.MATCH_OVER:
            return []     # the last key checks after the match: nothing a person waits for
        # Once per change: a seat the table was not waiting for already, or a link that
        # goes or comes back. Answers arriving (the set shrinking) are not news.
        news = bool(awaited - self.awaited) or offline != self.offline
        news = news and (awaited, offline) != self.last_wait
        self.awaited, self.offline = awaited, offline
        self.waiting = self.waiting_text(awaited, offline, session)
        if not news:
            return []
        self.last_wait = (awaited, offline)
        return [Note(self.waiting, NoteKind.WAIT)]

    def waiting_text(self, awaited: frozenset[int], offline: tuple[int, ...], session: Any) -> str:
        if self.alone:
            return OFFLINE_TEXT
        if not awaited:
            return ""
        if self.you is None and self.hand_no == 0:
            what = "to draw seats" if self.connected else "to connect"
            line = f"Waiting for {len(awaited)} other player{'s' if len(awaited) > 1 else ''} {what} ..."
        else:
            names = ", ".join(self.label(s) for s in sorted(awaited))
            view = getattr(session, "view", None) if session is not None else None
            view = view if view is not None else self.view
            what = "to shuffle and deal"
            if self.phase is Phase.PLAYING and view is not None:
                what = _AWAITED.get(view.decision.kind, "") or _GAME_AWAITED_TO.get(
                    str(getattr(view.decision.kind, "value", "")), "")
            elif self.phase in (Phase.HAND_OVER, Phase.MATCH_OVER):
                what = "to finish the hand"
            line = f"Waiting for {names} {what} ...".replace("  ", " ")
            if self.gone:
                line += f" ({', '.join(self.label(s) for s in self.gone)} left the table)"
        offline = tuple(s for s in offline if s not in self.gone)   # it left: "no connection" is no news
        if offline:
            gone = ", ".join(self.label(s) if self.you is not None else "a player" for s in offline)
            line += f" ({gone}: no connection, reconnecting)"
        return line

    def waiting_for_how_long(self) -> str:
        """The waiting line with how long the table has waited (the page shows it, refreshed)."""
        if not self.waiting or self.alone or not self.awaited or self.hand_no < 1:
            return self.waiting
        try:
            waited = round(trio.current_time() - self.waiting_since)
        except RuntimeError:   # outside trio (a snapshot taken by a test): no clock to read
            return self.waiting
        return self.waiting + (f" (for {_duration(waited)})" if waited >= 5 else "")

    # -- the status line, your side, a hand's result ----------------------------------

    def awaiting(self) -> tuple[int, ...]:
        """The seats the table waits for right now, mine left out: read from the session when
        there is one (so it is never stale), else the driver's last :class:`Waiting`."""
        session = self.session
        waiting = getattr(session, "waiting_for", None) if session is not None and self.hand_no >= 1 else None
        if waiting is None or self.phase in (Phase.MATCH_OVER, Phase.STOPPED):
            waiting = tuple(sorted(self.awaited))
        if self.phase is Phase.PLAYING and self.view is not None:   # only those the game asks now
            asked = self.view.decision.seats if self.part.name == "sasaki" else self.part.awaited(self.view)
            waiting = tuple(s for s in waiting if s in asked)
        return tuple(s for s in waiting if s != self.you)

    def status(self) -> str:
        """Whose turn or window it is, in one line. When it is yours it says so ("Your turn")
        and names no other seat; the page shows it in its status line, the terminal prints
        it with a prompt.

        >>> Presenter().status()
        'Connecting to the other players ...'
        """
        if self.alone:
            return OFFLINE_TEXT
        opened = self._open
        if opened is not None:
            prompt = opened.prompt
            if prompt.kind == "turn":
                lead = opened.turn is not None and opened.turn.view.top is None
                return "Your turn: lead anything." if lead else "Your turn: beat the top play, or pass."
            if prompt.kind == "stall":
                return "Your choice: the table waits for a player who does not answer."
            if self.part.name != "sasaki":
                return self.part.status(self, prompt.kind)   # type: ignore[no-any-return]
            name = _CLAIM_NAMES.get(DecisionKind(prompt.kind), prompt.kind)
            if not prompt.groups:
                return f"{name} window: you have nothing to claim; it closes by itself."
            return f"Your {name.lower()} chance: claim it or decline."
        if self.phase is Phase.MATCH_OVER:
            return self.winner_text()
        if self.phase is Phase.STOPPED:
            return "The table stopped (see the play by play)."
        awaited = self.awaiting()
        if self.phase is Phase.JOINING:
            return self.waiting or ("Drawing seats ..." if self.connected else "Connecting to the other players ...")
        if self.phase is Phase.DEALING:
            names = f": waiting for {self._names(awaited)}" if awaited else ""
            return f"Hand {self.hand_no}: shuffling and dealing{names} ..."
        if self.phase is Phase.HAND_OVER:
            names = f"; waiting for {self._names(awaited)} to check the deal" if awaited else ""
            return f"Hand {self.hand_no} is over{names}."
        view = self.view
        if view is None:
            return ""
        kind = view.decision.kind
        if self.part.name != "sasaki":
            return self._game_status(view, awaited)
        if kind is DecisionKind.OVER:
            return f"Hand {self.hand_no} is over."
        others = frozenset(s for s in awaited if s != self.you)
        if others:   # the same words as the terminal's waiting line
            offline = tuple(sorted(set(self.offline) | set(self.links_down)))
            return self.waiting_text(others, tuple(s for s in offline if s in others), self.session)
        if kind is DecisionKind.TURN:
            seat = view.decision.seats[0]
            return "Your turn." if seat == self.you else f"{self.label(seat)} is to play."
        return f"{_CLAIM_NAMES.get(kind, kind.value)} window."

    def _game_status(self, view: Any, awaited: Sequence[int]) -> str:
        """The status line of a game with its own part while nobody asks you."""
        seat = view.decision.seat
        if seat is None:
            return f"Hand {self.hand_no} is over."
        others = frozenset(s for s in awaited if s != self.you)
        if others:
            offline = tuple(sorted(set(self.offline) | set(self.links_down)))
            return self.waiting_text(others, tuple(s for s in offline if s in others), self.session)
        return f"{self.label(seat)} {_GAME_AWAITED.get(str(view.decision.kind.value), 'is to answer')}."

    def _names(self, seats: Sequence[int]) -> str:
        return ", ".join(self.label(s) + (" (no connection)" if s in self.offline else "") for s in seats)

    def side_text(self) -> str:
        """``Your side: red (partner unknown)``, ``... red, with S2``, ``... black``, ``... red,
        alone against three``: once this seat can know it (its dealt cards, then what is shown)."""
        if self.part.name != "sasaki":
            return self.part.side_text(self)   # type: ignore[no-any-return]
        view = self.view
        if not isinstance(view, SeatView) or self.you is None or not self.person:   # (Sasku has fixed pairs)
            return ""
        mine = [str(c) for c in view.dealt if str(c) in ("TH", "TD")]
        if len(mine) == 2:
            return "Your side: red, alone against three (you hold both red tens)"
        red = set(view.red) if view.red else set()
        if view.teams is not None:
            red = set(view.teams[0])
        if mine:
            partner = sorted(red - {self.you})
            return f"Your side: red, with {self.label(partner[0])}" if partner else "Your side: red (partner unknown)"
        if len(red) == 2 or view.teams is not None:
            partners = [self.label(s) for s in range(SEATS) if s not in red and s != self.you]
            return "Your side: black, with " + " and ".join(partners) if partners else "Your side: black"
        return "Your side: black"

    def run_risk(self, cards: CardSet) -> str:
        """What a run puts at stake, for the run question (the scoring table times two)."""
        table = DEFAULT_SCORING
        if len(cards) == 2:
            best, worst = table.one_vs_three[1][0] * 2, table.one_vs_three[4][0] * 2
            return (f"You would play alone against three, and the hand counts double (x4 if an opponent "
                    f"calls Stop): 1st wins you {best:+d}, last loses {worst:+d}.")
        values = table.two_vs_two.values()
        return (f"The hand counts double (x4 if an opponent calls Stop); your partner shows the other red "
                f"ten: your side wins up to {max(values) * 2:+d} each, or loses up to {min(values) * 2:+d}.")

    def hand_result(self, hand_no: int, outcome: SasakiOutcome, scores: Sequence[int],
                    totals: Sequence[int]) -> HandResult:
        """The result of a finished hand, each score with its reason (docs/rules.md, Scoring)."""
        finish, red, m = tuple(outcome.finish), set(outcome.red), outcome.multiplier
        place = {seat: i + 1 for i, seat in enumerate(finish)}
        reasons: dict[int, str] = {}
        if len(red) == 1:
            (lone,) = red
            mine, theirs = DEFAULT_SCORING.one_vs_three[place[lone]]
            for seat in range(SEATS):
                reasons[seat] = (f"alone against three, {_PLACES[place[lone] - 1]}: {mine:+d}, x{m}" if seat == lone
                                 else f"against the lone red {self.label(lone)} ({_PLACES[place[lone] - 1]}): "
                                      f"{theirs:+d}, x{m}")
        else:
            a, b = sorted(place[s] for s in red)
            value = DEFAULT_SCORING.two_vs_two.get((a, b), 0)
            for seat in range(SEATS):
                reasons[seat] = (f"red side {_PLACES[a - 1]} and {_PLACES[b - 1]}: {value:+d} each, x{m}"
                                 if seat in red else f"black side: red's {value:+d} turned round, x{m}")
        rows = tuple(ResultRow(seat, self.who(seat), i + 1,
                               "red" if seat in red else "black", scores[seat], reasons[seat],
                               tuple(outcome.remaining) if i == SEATS - 1 else ())
                     for i, seat in enumerate(finish))
        history = self.view.history if self.view is not None else ()
        runners = [self.label(a.seat) for a in history if isinstance(a, Run)]
        stops = [self.label(a.seat) for a in history if isinstance(a, Stop)]
        why = "nobody ran"
        if runners:
            why = f"{' and '.join(runners)} ran" + (f", {' and '.join(stops)} called Stop" if stops else "")
        elif m > 1:
            why = "a run" + (" and a Stop" if m > 2 else "")
        return HandResult(hand_no, rows, m, why, tuple(totals), self.scores_text(totals))

    def finished(self, verdict: str, transcript: Path | None) -> None:
        """The end-of-match audit verdict and the transcript (the page offers it for download)."""
        self.verdict, self.transcript = verdict, transcript
        self.tell(Note(verdict, NoteKind.SCORE))

    # -- the waiting room: partners (Sasku, the table's creator) -----------------------------

    def choose_partners(self, text: str) -> str | Refusal:
        """The creator's choice of partners from a view (``NAME+NAME`` or ``draw``), while its
        table fills: the sentence that says what was chosen or why not (also told)."""
        room = self.partners_room
        if room is None or room.fixed:
            return Refusal("partners are chosen by the table's creator, while the table fills")
        sentence: str = room.typed("partners " + text)
        self.tell(Note(sentence))
        self.changed()
        return sentence

    def _partners(self) -> str | None:
        room = self.partners_room
        if room is None or room.fixed:
            return None
        return "draw" if room.choice is None else "+".join(room.choice)

    # -- the next match -----------------------------------------------------------------

    def offer_next(self, seconds: float | None) -> NextMatch:
        """Open the next-match offer (every view shows it) for ``seconds``."""
        self._prompts += 1
        deadline = None if seconds is None else trio.current_time() + seconds
        self.next_offer = NextMatch(self._prompts, NEXT_MATCH_QUESTION, deadline)
        self._next_done = trio.Event()
        self.changed()
        return self.next_offer

    def answer_next(self, offer_id: int, accept: bool) -> bool | Refusal:
        """A view's answer to the offer: the first one counts."""
        offer = self.next_offer
        if offer is None or offer.id != offer_id or offer.answer is not None:
            return Refusal("that question is over (answered already, or its time is up)")
        self.next_offer = dataclasses.replace(offer, answer=accept)
        self._next_done.set()
        self.tell(Note("You want a next match; waiting for the others." if accept
                       else "You do not want a next match.", NoteKind.INFO))
        return accept

    async def wait_next(self, offer: NextMatch) -> bool:
        """The first answer to ``offer``; cancelled (its time is up, or another member declined
        first), the offer closes unanswered and the caller tells why (:meth:`close_next`)."""
        try:
            await self._next_done.wait()
            return bool(self.next_offer is not None and self.next_offer.answer)
        except trio.Cancelled:
            if self.next_offer is not None and self.next_offer.id == offer.id and self.next_offer.answer is None:
                self.next_offer = None
                self.changed()
            raise

    def close_next(self, text: str) -> None:
        """The agreement ended (``text``: how); the offer closes."""
        self.next_offer = None
        self.tell(Note(text, NoteKind.SCORE))

    def new_match(self, carried: Sequence[int] = ()) -> None:
        """A next match starts at this table: a fresh score sheet, seats drawn again
        (``carried``: a bot took a seat and the totals go on from these)."""
        self.continued = (self.hands or 0) if carried else None
        self.bot_wanted, self.hand_offset = False, 0
        if not carried:
            self.match_no += 1
        self.next_offer = None
        self.phase, self.hand_no, self.view, self.progress = Phase.JOINING, 0, None, None
        self.sizes, self.finish, self.deal_steps = [CARDS_PER_SEAT] * SEATS, [], {}
        self.awaited, self.offline, self.last_wait, self.waiting = frozenset(), (), None, ""
        self.rows, self.totals = [], tuple(carried) or (0,) * SEATS
        self.verdict, self.transcript, self._open = None, None, None
        self.tell(Note("The match goes on at a fresh table, with a bot in the empty seat: the same seats, the "
                       f"totals carried over. {OPEN_HAND}: its cards are shown to everyone at each deal, and "
                       "each of its moves follows a rule every player checks." if carried else
                       f"Match {self.match_no} starts: same four players, a fresh table.", NoteKind.SCORE))

    def changed(self) -> None:
        self.version += 1
        for listener in list(self.listeners):
            listener()

    # -- the snapshot --------------------------------------------------------------------

    def table(self) -> TableView:
        if self.part.name != "sasaki":
            return self._game_table()
        view = self.view
        passed: list[int] = passed_since_last_play(view) if view is not None else []
        awaited = set(self.awaiting()) if self._open is None or self._open.prompt.kind != "turn" else set()
        seats = []
        session = self.session
        views = session.open_views() if session is not None and hasattr(session, "open_views") else {}
        shown = {**self.open_hands, **{seat: v.cards for seat, v in views.items()}}   # the cards it has left
        for seat in range(SEATS):
            size = view.hand_sizes[seat] if view is not None else (self.sizes[seat] if self.you is not None else 0)
            finish = view.finish if view is not None else tuple(self.finish)
            tens = tuple(str(c) for c in view.shown[seat] if str(c) in ("TH", "TD")) if view is not None else ()
            seats.append(SeatState(seat, "You" if seat == self.you else self.label(seat), seat == self.you, size,
                                   seat in passed, tens, finish.index(seat) + 1 if seat in finish else None,
                                   seat in awaited, seat in self.offline or seat in self.links_down,
                                   tuple(str(c) for c in shown[seat]) if seat in shown else ()))
        top = None
        if view is not None and view.top is not None and view.top_seat is not None:
            top = TopPlay(view.top_seat, self.who(view.top_seat), tuple(str(c) for c in view.top_cards),
                          str(view.top))
        best = max(self.totals)
        sheet = ScoreSheet(tuple(self.rows), self.totals, self.you,
                           tuple(s for s, v in enumerate(self.totals) if v == best) if self.rows else (),
                           self.phase is Phase.MATCH_OVER)
        return TableView(self.version, self.phase, self.hand_no, self.hands, self.you,
                         tuple(seats) if self.you is not None else (), top,
                         rank_groups(view.cards) if view is not None else (),
                         view.multiplier if view is not None else 1, self.progress, self.waiting_for_how_long(),
                         self._open.prompt if self._open is not None else None, sheet, tuple(self.log),
                         self.verdict, self.transcript is not None,
                         self.winner_text() if self.phase is Phase.MATCH_OVER else None, self.next_offer,
                         self.match_no, self.label(self.you) if self.you is not None else "",
                         self.status(), self.side_text(), self.result, partners=self._partners())

    def _game_table(self) -> TableView:
        """The snapshot of a game with its own part (Sasku): the seats as any table's, the
        game's own values in ``game`` (cli/games)."""
        part = self.part
        view: Any = self.view   # the game's own view (Sasku's Deal)
        awaited = set(self.awaiting()) if self._open is None else set()
        seats = []
        for seat in range(part.seats):
            size = view.hand_size(seat) if view is not None else (self.sizes[seat] if self.you is not None else 0)
            passed = view is not None and seat in view.passed
            seats.append(SeatState(seat, "You" if seat == self.you else self.label(seat), seat == self.you, size,
                                   passed, (), None, seat in awaited, seat in self.offline or seat in self.links_down))
        game = part.table(self)
        best = max(self.totals)
        sheet = ScoreSheet(tuple(self.rows), self.totals, self.you,
                           tuple(s for s, v in enumerate(self.totals) if v == best) if self.rows else (),
                           self.phase is Phase.MATCH_OVER)
        return TableView(self.version, self.phase, self.hand_no, self.hands, self.you,
                         tuple(seats) if self.you is not None else (), None, (game.hand,) if game.hand else (),
                         1, self.progress, self.waiting_for_how_long(),
                         self._open.prompt if self._open is not None else None, sheet, tuple(self.log),
                         self.verdict, self.transcript is not None,
                         self.winner_text() if self.phase is Phase.MATCH_OVER else None, self.next_offer,
                         self.match_no, self.label(self.you) if self.you is not None else "",
                         self.status(), self.side_text(), self.result, game=game, partners=self._partners())

    # -- the desk: prompts and answers ---------------------------------------------------

    def prompt_for(self, turn: Turn) -> tuple[Prompt, dict[str, Action]]:
        """The prompt for ``turn`` and the action behind each choice key."""
        own = self.part.prompt(self, turn)
        if own is not None:
            return own   # type: ignore[no-any-return]
        self._prompts += 1
        legal = tuple(turn.legal)
        kind = turn.decision.kind
        answers: dict[str, Action] = {}
        pass_ = next((a for a in legal if isinstance(a, Pass)), None)
        decline = next((a for a in legal if isinstance(a, Decline)), None)
        if pass_ is not None:
            answers["pass"] = pass_
        if decline is not None:
            answers["decline"] = decline
        groups: list[ChoiceGroup] = []
        playable: set[str] = set()
        number = 0
        if kind is DecisionKind.TURN:
            # Folded by (kind, label), then numbered kind by kind in the order of _KIND_GROUPS and,
            # within a kind, low to high (shorter sequences first): the numbers of a kind run on.
            folded: dict[tuple[str, str], list[Action]] = {}
            order: dict[tuple[str, str], tuple[int, int, int]] = {}
            for action in legal:
                if isinstance(action, Pass):
                    continue
                if isinstance(action, Run):
                    key = ("Run", f"run, showing {action.cards}")
                    order[key] = (len(_KIND_GROUPS), 0, 0)
                else:
                    combo = classify(action.cards.mask)
                    assert combo is not None, "a legal play is a combination"
                    key = (_KIND_GROUPS[combo.kind], str(combo))
                    order[key] = (int(combo.kind), combo.length, int(combo.rank))
                folded.setdefault(key, []).append(action)
            by_title: dict[str, list[Choice]] = {}
            for key in sorted(folded, key=order.__getitem__):
                (title, label), actions = key, folded[key]
                number += 1
                answers[f"c{number}"] = actions[0]
                for action in actions:
                    playable.update(str(c) for c in action.cards)
                by_title.setdefault(title, []).append(
                    Choice(f"c{number}", label, tuple(tuple(str(c) for c in a.cards) for a in actions)))
            groups = [ChoiceGroup(title, tuple(choices)) for title, choices in by_title.items()]
            question = "Your turn: lead anything." if turn.view.top is None else \
                f"Your turn: beat {turn.view.top_cards} ({turn.view.top}) by {self.who(turn.view.top_seat)}, or pass."
            seconds = None
        else:
            claims = []
            for action in legal:
                if isinstance(action, (Run, Stop, Chata, Kkojda, Expose)):
                    number += 1
                    cards = getattr(action, "cards", CardSet())
                    text = _QUESTIONS[kind].format(cards=cards, s="s" if len(cards) > 1 else "")
                    if kind is DecisionKind.RUN:
                        text += " " + self.run_risk(cards)
                    answers[f"c{number}"] = action
                    claims.append(Choice(f"c{number}", text, (tuple(str(c) for c in cards),)))
            groups = [ChoiceGroup(_CLAIM_NAMES.get(kind, kind.value), tuple(claims))] if claims else []
            question = claims[0].label if len(claims) == 1 else f"{_CLAIM_NAMES.get(kind, kind.value)}?"
            # A paced window's answer goes out at open + turn.delay, and that is your deadline too:
            # undecided then, you decline (the driver declines for you at that very time). With no
            # delay (a table of bots), the table's answer deadline.
            seconds = (turn.delay if turn.delay > 0 else turn.answer_deadline if turn.answer_deadline is not None
                       else self.timeout) if decline is not None else None
            if not claims:   # a fair window: it stays open for everyone, then declines
                question = f"{_CLAIM_NAMES.get(kind, kind.value)} window open: you have nothing to claim."
        deadline = None
        if seconds is not None:
            deadline = (turn.opened if turn.opened is not None else trio.current_time()) + seconds
        prompt = Prompt(self._prompts, kind.value, question, tuple(groups), pass_ is not None,
                        decline is not None, seconds, deadline, tuple(sorted(playable)))
        return prompt, answers

    def forced(self, turn: Turn) -> tuple[Action, Note | None] | None:
        """The only answer when the person has no choice, and what to tell (None: nothing)."""
        if self.part.name != "sasaki":
            return self.part.forced(self, turn)   # type: ignore[no-any-return]
        legal = list(turn.legal)
        if len(legal) != 1:
            return None
        action = legal[0]
        if isinstance(action, Pass):
            self._forced_pass = True     # its ActionApplied is not told again
            return action, Note(f"You pass: nothing you hold beats {turn.view.top_cards}.", NoteKind.PLAY)
        if isinstance(action, Decline):
            # A fair window (its answers go out after turn.delay): shown open that long, as for
            # a seat that can claim, then declined; with no delay, declined at once.
            return None if turn.delay > 0 else (action, None)
        if isinstance(action, Expose):
            return action, Note(f"Your partner ran: you show {action.cards} too.", NoteKind.PLAY)
        return None

    def open(self, turn: Turn) -> Prompt | Action:
        """Open the prompt for ``turn`` (every view shows it), or, when the person has no
        choice, the only answer (told as a note when it is worth telling)."""
        forced = self.forced(turn)
        if forced is not None:
            action, note = forced
            if note is not None:
                self.tell(note)
            return action
        prompt, answers = self.prompt_for(turn)
        self._open = _Open(prompt, answers, tuple(turn.legal), turn)
        self.waiting = ""      # your decision now: an earlier "Waiting for ..." is not printed late
        self.changed()
        return prompt

    async def wait(self, prompt: Prompt) -> Any:
        """The first answer to ``prompt`` from any view; a window declines when its time is up."""
        opened = self._open
        assert opened is not None and opened.prompt is prompt
        try:
            if prompt.deadline is not None:
                with trio.move_on_at(prompt.deadline):
                    await opened.done.wait()
                if opened.action is None:
                    opened.action = opened.answers["decline"]
                    if prompt.groups:   # a window you had nothing to claim in closes without a word
                        self.tell(Note("Time is up: you decline.", NoteKind.PLAY), quiet=True)
            else:
                await opened.done.wait()
            assert opened.action is not None
            return opened.action
        finally:
            if self._open is opened:
                self._open = None
            self.changed()

    async def ask(self, turn: Turn) -> Action:
        """:meth:`open` then :meth:`wait`: the answer for ``turn`` from any view."""
        opened = self.open(turn)
        if isinstance(opened, Prompt):
            action: Action = await self.wait(opened)
            return action
        return opened

    @property
    def prompt(self) -> Prompt | None:
        return self._open.prompt if self._open is not None else None

    def answer(self, prompt_id: int, key: str | None = None, cards: str | None = None) -> Any:
        """An answer from a view: a choice ``key`` ("c3", "pass", "decline") or typed ``cards``.
        The first valid answer for an open prompt wins; anything else is a :class:`Refusal`."""
        opened = self._open
        if opened is None or opened.prompt.id != prompt_id or opened.action is not None:
            return Refusal("that decision is over (answered already, or its time is up)")
        if cards is not None and opened.turn is None:
            return Refusal("choose keep waiting, abandon, end or a bot")
        if cards is not None and opened.turn is not None:
            action: Action | Refusal = self.action_for_cards(opened.turn, cards)
        elif key is not None and key in opened.answers:
            action = opened.answers[key]
        elif key == "pass":
            action = Refusal("you cannot pass when you lead")
        else:
            action = Refusal(f"there is no choice {key}")
        if isinstance(action, Refusal):
            return action
        opened.action = action
        opened.done.set()
        return action

    def action_for_cards(self, turn: Turn, text: str) -> Action | Refusal:
        if self.part.name != "sasaki":
            return self.part.action_for_text(self, turn, text)   # type: ignore[no-any-return]
        try:
            cards = CardSet.parse(text.upper().replace(",", " "))
        except CardNotationError as error:
            return Refusal(str(error))
        # A play before a run with the same cards (with running at any turn, TH may be either).
        found = next((a for a in turn.legal if isinstance(a, Play) and a.cards == cards), None) or \
            next((a for a in turn.legal if not isinstance(a, (Pass, Decline)) and getattr(a, "cards", None) == cards),
                 None)
        if found is not None:
            return found
        return Refusal(why_illegal(cards, turn, self))


def why_illegal(cards: CardSet, turn: Turn, presenter: Presenter | None = None) -> str:
    """One line: why ``cards`` is not a legal play at ``turn``."""
    mine = turn.view.cards
    if not cards:
        return "choose some cards first"
    if turn.decision.kind is not DecisionKind.TURN:
        return "it is not your turn to play cards; answer the question or decline"
    missing = cards - mine
    if missing:
        return f"you do not hold {missing}"
    if classify(cards.mask, mine.mask) is None:
        return f"{cards} is not a combination (single, pair, triplet, four, sequence, Pig)"
    if turn.view.top is not None:
        who = presenter.who(turn.view.top_seat) if presenter is not None else f"S{turn.view.top_seat}"
        return f"{cards} does not beat {turn.view.top_cards} (played by {who})"
    return f"{cards} is not a legal play now"


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


def member_label(presenter: Presenter | None, key: bytes) -> str:
    """How a view names the member with ``key``: the presenter's label, else its key's short form."""
    return presenter.key_label(key) if presenter is not None else describe_key(key)


def announce(ui: Any, presenter: Presenter | None, text: str) -> None:
    """Say a follow-on's ending sentence on every view (and on stdout when the terminal is
    not the presenter's view)."""
    if presenter is not None:
        presenter.close_next(text)
        if ui is None or getattr(ui, "presenter", None) is not presenter:
            print(text, flush=True)
    elif ui is not None:
        ui.say(text)
    else:
        print(text, flush=True)
