"""Sasaki's part of what a person is shown (cli/games/__init__.py): 4 seats, 12 cards each,
sides found during the hand (the red tens). Its prompts (plays folded by kind, the run /
Stop / chata / kkojda / show windows), the answers it makes without asking (a forced pass,
the partner's red ten after a run), typed cards, the notes of its plays and its hand result,
the status line, your side and the page's snapshot: the presenter (cli/presenter.py) asks
them here, as it asks Sasku's part.

>>> grouped(CardSet.parse("TH 3S 3H TD 5C"))
'3H 3S | 5C | TD TH'
>>> from types import SimpleNamespace
>>> seats = SimpleNamespace(who=lambda seat: f"S{seat}", label=lambda seat: f"S{seat}")
>>> SASAKI.play_text(seats, Play(2, CardSet.parse("9C 9H")), lead=False)
'S2 plays 9C 9H (pair of 9)'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import trio

from p2p_sasaki.cards import Card, CardNotationError, CardSet
from p2p_sasaki.cli.prompts import OPEN_HAND, Choice, ChoiceGroup, Note, NoteKind, Prompt, Refusal, SeatState, TopPlay
from p2p_sasaki.cli.render import action_text
from p2p_sasaki.protocol.events import ActionApplied, Dealt, HandEnded, Shown
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

__all__ = ["SasakiPart", "SASAKI", "RULES_HELP", "COMMANDS_HELP", "card_words", "grouped", "rank_groups",
           "ResultRow", "HandResult", "result_lines", "why_illegal", "passed_since_last_play", "PLACES"]

SEATS = 4
CARDS_PER_SEAT = 12
PLACES = ("1st", "2nd", "3rd", "4th")

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
_AWAITED = {DecisionKind.TURN: "to play", DecisionKind.RUN: "to answer the run window",
            DecisionKind.STOP: "to answer the Stop window", DecisionKind.CHATA: "to answer the chata chance",
            DecisionKind.KKOJDA: "to answer the kkojda chance", DecisionKind.EXPOSE: "to show a red ten",
            DecisionKind.OVER: "to finish the hand (the end-of-hand key check)"}


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
        lines.append(f"  {PLACES[row.place - 1]}  {row.label}, {row.side}: {row.score:+d} ({row.reason}){held}")
    lines.append(f"Match totals: {result.totals_text}.")
    return lines




class SasakiPart:
    name = "sasaki"
    seats = SEATS
    cards_per_seat = CARDS_PER_SEAT
    teams: tuple[tuple[int, ...], ...] | None = None

    # -- the desk ---------------------------------------------------------------------

    def prompt(self, presenter: Any, turn: Any) -> tuple[Prompt, dict[str, Action]]:
        """The prompt for ``turn`` and the action behind each choice key."""
        presenter._prompts += 1
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
                (f"Your turn: beat {turn.view.top_cards} ({turn.view.top}) by {presenter.who(turn.view.top_seat)}, "
                 "or pass.")
            seconds = None
        else:
            claims = []
            for action in legal:
                if isinstance(action, (Run, Stop, Chata, Kkojda, Expose)):
                    number += 1
                    cards = getattr(action, "cards", CardSet())
                    text = _QUESTIONS[kind].format(cards=cards, s="s" if len(cards) > 1 else "")
                    if kind is DecisionKind.RUN:
                        text += " " + run_risk(cards)
                    answers[f"c{number}"] = action
                    claims.append(Choice(f"c{number}", text, (tuple(str(c) for c in cards),)))
            groups = [ChoiceGroup(_CLAIM_NAMES.get(kind, kind.value), tuple(claims))] if claims else []
            question = claims[0].label if len(claims) == 1 else f"{_CLAIM_NAMES.get(kind, kind.value)}?"
            # A paced window's answer goes out at open + turn.delay, and that is your deadline too:
            # undecided then, you decline (the driver declines for you at that very time). With no
            # delay (a table of bots), the table's answer deadline.
            seconds = (turn.delay if turn.delay > 0 else turn.answer_deadline if turn.answer_deadline is not None
                       else presenter.timeout) if decline is not None else None
            if not claims:   # a fair window: it stays open for everyone, then declines
                question = f"{_CLAIM_NAMES.get(kind, kind.value)} window open: you have nothing to claim."
        deadline = None
        if seconds is not None:
            deadline = (turn.opened if turn.opened is not None else trio.current_time()) + seconds
        prompt = Prompt(presenter._prompts, kind.value, question, tuple(groups), pass_ is not None,
                        decline is not None, seconds, deadline, tuple(sorted(playable)))
        return prompt, answers

    def forced(self, presenter: Any, turn: Any) -> tuple[Action, Note | None] | None:
        """The only answer when the person has no choice, and what to tell (None: nothing)."""
        legal = list(turn.legal)
        if len(legal) != 1:
            return None
        action = legal[0]
        if isinstance(action, Pass):
            presenter.sasaki_forced_pass = True     # its ActionApplied is not told again
            return action, Note(f"You pass: nothing you hold beats {turn.view.top_cards}.", NoteKind.PLAY)
        if isinstance(action, Decline):
            # A fair window (its answers go out after turn.delay): shown open that long, as for
            # a seat that can claim, then declined; with no delay, declined at once.
            return None if turn.delay > 0 else (action, None)
        if isinstance(action, Expose):
            return action, Note(f"Your partner ran: you show {action.cards} too.", NoteKind.PLAY)
        return None

    def action_for_text(self, presenter: Any, turn: Any, text: str) -> Action | Refusal:
        """Typed cards (``9C 9H``) as the legal play or claim with exactly those cards."""
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
        return Refusal(why_illegal(cards, turn, presenter))

    def prompt_lines(self, prompt: Any) -> None:
        return None   # the terminal's own (cli/tui.py prompt_lines)

    # -- notes ------------------------------------------------------------------------

    def notes(self, presenter: Any, event: Any, session: Any) -> tuple[list[tuple[str, str]], str | None] | None:
        """Sasaki's own lines for ``event`` (an open bot's shown hand, your cards, a play, a
        hand's result) as (text, note kind) pairs with the presenter's phase it moves to; None:
        told as any table's."""
        match event:
            case Shown(seat=seat, cards=cards):
                presenter.open_hands[seat] = cards
                return [(f"{OPEN_HAND}: {presenter.label(seat)} holds {grouped(cards)}", "info")], None
            case Dealt(cards=cards):
                presenter.result = None
                lines = [(note.text, note.kind.value) for note in presenter.dealt_progress()]
                whose = ("Your" if presenter.person or presenter.you is None
                         else f"{presenter.label(presenter.you)}'s")   # a bot's log
                return lines + [(f"{whose} cards: {grouped(cards)}", "info")], "PLAYING"
            case ActionApplied(action=action, lead=lead):
                presenter.answered(action.seat, session)
                return [(note.text, note.kind.value) for note in self._applied(presenter, action, lead)], None
            case HandEnded(hand_no=hand_no, outcome=SasakiOutcome() as outcome, scores=scores, totals=totals):
                hand_no += presenter.hand_offset
                presenter.awaited, presenter.waiting = frozenset(), ""
                presenter.rows.append((hand_no, tuple(scores)))
                presenter.totals = tuple(totals)
                presenter.result = self.hand_result(presenter, hand_no, outcome, scores, totals)
                return [(line, "score") for line in result_lines(presenter.result)], "HAND_OVER"
        return None

    def play_text(self, presenter: Any, action: Action, lead: bool, went_out: bool = False) -> str:
        """An action in words; yours as ``You pass``, ``You lead 9C 9H (pair of 9)``."""
        you = presenter.who(action.seat) != presenter.label(action.seat)
        return action_text(action, lead, went_out, who="You" if you else presenter.label(action.seat), you=you)

    def _applied(self, presenter: Any, action: Action, lead: bool) -> list[Note]:
        if isinstance(action, Decline):
            return []
        if isinstance(action, Pass) and action.seat == presenter.you and getattr(presenter, "sasaki_forced_pass",
                                                                                  False):
            presenter.sasaki_forced_pass = False
            return []
        notes = [Note(self.play_text(presenter, action, lead), NoteKind.PLAY)]
        if isinstance(action, (Play, Chata, Kkojda)):
            presenter.sizes[action.seat] -= len(action.cards)
            if presenter.sizes[action.seat] <= 0 and action.seat not in presenter.finish:
                presenter.finish.append(action.seat)
                place = len(presenter.finish)
                you = action.seat == presenter.you and presenter.person      # "You go out", like "You play"
                notes.append(Note(f"{'You go' if you else presenter.who(action.seat) + ' goes'} out "
                                  f"({PLACES[place - 1]}).", NoteKind.OUT))
        return notes

    def hand_result(self, presenter: Any, hand_no: int, outcome: SasakiOutcome, scores: Sequence[int],
                    totals: Sequence[int]) -> HandResult:
        """The result of a finished hand, each score with its reason (docs/rules.md, Scoring)."""
        finish, red, m = tuple(outcome.finish), set(outcome.red), outcome.multiplier
        place = {seat: i + 1 for i, seat in enumerate(finish)}
        reasons: dict[int, str] = {}
        if len(red) == 1:
            (lone,) = red
            mine, theirs = DEFAULT_SCORING.one_vs_three[place[lone]]
            for seat in range(SEATS):
                reasons[seat] = (f"alone against three, {PLACES[place[lone] - 1]}: {mine:+d}, x{m}" if seat == lone
                                 else f"against the lone red {presenter.label(lone)} ({PLACES[place[lone] - 1]}): "
                                      f"{theirs:+d}, x{m}")
        else:
            a, b = sorted(place[s] for s in red)
            value = DEFAULT_SCORING.two_vs_two.get((a, b), 0)
            for seat in range(SEATS):
                reasons[seat] = (f"red side {PLACES[a - 1]} and {PLACES[b - 1]}: {value:+d} each, x{m}"
                                 if seat in red else f"black side: red's {value:+d} turned round, x{m}")
        rows = tuple(ResultRow(seat, presenter.who(seat), i + 1,
                               "red" if seat in red else "black", scores[seat], reasons[seat],
                               tuple(outcome.remaining) if i == SEATS - 1 else ())
                     for i, seat in enumerate(finish))
        history = presenter.view.history if presenter.view is not None else ()
        runners = [presenter.label(a.seat) for a in history if isinstance(a, Run)]
        stops = [presenter.label(a.seat) for a in history if isinstance(a, Stop)]
        why = "nobody ran"
        if runners:
            why = f"{' and '.join(runners)} ran" + (f", {' and '.join(stops)} called Stop" if stops else "")
        elif m > 1:
            why = "a run" + (" and a Stop" if m > 2 else "")
        return HandResult(hand_no, rows, m, why, tuple(totals), presenter.scores_text(totals))

    # -- the status line, your side, the snapshot ----------------------------------------

    def winner_text(self, presenter: Any) -> str:
        """The match's end: the seats with the best total, and yours when you are not among them."""
        totals = presenter.totals
        best = max(totals)
        winners = [s for s, v in enumerate(totals) if v == best]
        if len(winners) == SEATS:
            return f"The match is over: a draw, everyone {best:+d}."
        names = " and ".join(presenter.who(s) for s in winners)
        verb = "win" if len(winners) > 1 or winners[0] == presenter.you else "wins"
        you = presenter.you
        mine = f" You: {totals[you]:+d}." if you is not None and you not in winners else ""
        return f"The match is over: {names} {verb} with {best:+d}.{mine}"

    def partners_text(self, game: Any, names: Sequence[str]) -> None:
        return None   # sides are found during the hand: nobody chooses a partner

    def awaited(self, view: Any) -> tuple[int, ...]:
        return tuple(view.decision.seats)

    def awaited_text(self, view: Any) -> str:
        """What the table waits for the awaited seats to do (the waiting line: "to play")."""
        return _AWAITED.get(view.decision.kind, "")

    def status(self, presenter: Any, kind: str) -> str:
        """The status line while a prompt of ``kind`` of yours is open."""
        opened = presenter._open
        if kind == "turn":
            lead = opened is not None and opened.turn is not None and opened.turn.view.top is None
            return "Your turn: lead anything." if lead else "Your turn: beat the top play, or pass."
        name = _CLAIM_NAMES.get(DecisionKind(kind), kind)
        if opened is not None and not opened.prompt.groups:
            return f"{name} window: you have nothing to claim; it closes by itself."
        return f"Your {name.lower()} chance: claim it or decline."

    def view_status(self, presenter: Any, view: Any, awaited: Sequence[int]) -> str:
        """The status line while nobody asks you."""
        kind = view.decision.kind
        if kind is DecisionKind.OVER:
            return f"Hand {presenter.hand_no} is over."
        others = frozenset(s for s in awaited if s != presenter.you)
        if others:   # the same words as the terminal's waiting line
            offline = tuple(sorted(set(presenter.offline) | set(presenter.links_down)))
            return str(presenter.waiting_text(others, tuple(s for s in offline if s in others), presenter.session))
        if kind is DecisionKind.TURN:
            seat = view.decision.seats[0]
            return "Your turn." if seat == presenter.you else f"{presenter.label(seat)} is to play."
        return f"{_CLAIM_NAMES.get(kind, kind.value)} window."

    def side_text(self, presenter: Any) -> str:
        """``Your side: red (partner unknown)``, ``... red, with S2``, ``... black``, ``... red,
        alone against three``: once this seat can know it (its dealt cards, then what is shown)."""
        view = presenter.view
        you = presenter.you
        if not isinstance(view, SeatView) or you is None or not presenter.person:
            return ""
        mine = [str(c) for c in view.dealt if str(c) in ("TH", "TD")]
        if len(mine) == 2:
            return "Your side: red, alone against three (you hold both red tens)"
        red = set(view.red) if view.red else set()
        if view.teams is not None:
            red = set(view.teams[0])
        if mine:
            partner = sorted(red - {you})
            return f"Your side: red, with {presenter.label(partner[0])}" if partner else \
                "Your side: red (partner unknown)"
        if len(red) == 2 or view.teams is not None:
            partners = [presenter.label(s) for s in range(SEATS) if s not in red and s != you]
            return "Your side: black, with " + " and ".join(partners) if partners else "Your side: black"
        return "Your side: black"

    def snapshot(self, presenter: Any) -> Any:
        """The snapshot (cli/presenter.py TableView): the seats with their red tens, places and
        an open bot's cards, the top play, your hand by rank, the multiplier, the hand result."""
        view = presenter.view
        passed: list[int] = passed_since_last_play(view) if view is not None else []
        opened = presenter._open
        awaited = set(presenter.awaiting()) if opened is None or opened.prompt.kind != "turn" else set()
        seats = []
        session = presenter.session
        views = session.open_views() if session is not None and hasattr(session, "open_views") else {}
        shown = {**presenter.open_hands, **{seat: v.cards for seat, v in views.items()}}   # the cards it has left
        for seat in range(SEATS):
            size = view.hand_sizes[seat] if view is not None else \
                (presenter.sizes[seat] if presenter.you is not None else 0)
            finish = view.finish if view is not None else tuple(presenter.finish)
            tens = tuple(str(c) for c in view.shown[seat] if str(c) in ("TH", "TD")) if view is not None else ()
            seats.append(SeatState(seat, "You" if seat == presenter.you else presenter.label(seat),
                                   seat == presenter.you, size, seat in passed, tens,
                                   finish.index(seat) + 1 if seat in finish else None,
                                   seat in awaited, seat in presenter.offline or seat in presenter.links_down,
                                   tuple(str(c) for c in shown[seat]) if seat in shown else ()))
        top = None
        if view is not None and view.top is not None and view.top_seat is not None:
            top = TopPlay(view.top_seat, presenter.who(view.top_seat), tuple(str(c) for c in view.top_cards),
                          str(view.top))
        return presenter.table_view(seats, top, rank_groups(view.cards) if view is not None else (),
                                    view.multiplier if view is not None else 1, hand_result=presenter.result,
                                    direction=TURN_DIRECTION)


def run_risk(cards: CardSet) -> str:
    """What a run puts at stake, for the run question (the scoring table times two)."""
    table = DEFAULT_SCORING
    if len(cards) == 2:
        best, worst = table.one_vs_three[1][0] * 2, table.one_vs_three[4][0] * 2
        return (f"You would play alone against three, and the hand counts double (x4 if an opponent "
                f"calls Stop): 1st wins you {best:+d}, last loses {worst:+d}.")
    values = table.two_vs_two.values()
    return (f"The hand counts double (x4 if an opponent calls Stop); your partner shows the other red "
            f"ten: your side wins up to {max(values) * 2:+d} each, or loses up to {min(values) * 2:+d}.")


def why_illegal(cards: CardSet, turn: Any, presenter: Any = None) -> str:
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


SASAKI = SasakiPart()
