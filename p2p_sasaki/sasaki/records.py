"""Plain-text game records (like chess PGN): parse, replay through the engine, write.

A record is tag lines (``[Seat0 "3H 4C ..."]``, optional ``[Lead "3S"]``) then one
action per line (``S2 play 3H 3D``); ``#`` starts a comment anywhere on a line.
Only what happened is written: declined chances, the partner's forced exposure
and the red-ten exchange follow from the engine. See docs/records.md.

>>> from random import Random
>>> hand = replay(write_record(Hand.random(Random(0), "3H")))
>>> hand.decision.kind.value, hand.multiplier
('run', 1)

Errors are :class:`RecordError` with the 1-based physical line number of the
first bad line and one sentence.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

from p2p_sasaki.cards import Card, CardNotationError, CardSet, parse_card, parse_cards
from p2p_sasaki.records import SEAT_TAGS, ActionLine, Header, RecordError, TagLine, read, split_action, tag_line, yes_no
from p2p_sasaki.records import parse_lines as read_lines
from p2p_sasaki.sasaki.hand import (
    Action,
    Chata,
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
)
from p2p_sasaki.sasaki.options import LeadCard, TableOptions

__all__ = ["RecordError", "Record", "TagLine", "ActionLine", "parse_lines", "parse_record",
           "replay", "write_record"]

_VERBS: dict[str, Callable[..., Action]] = {
    "play": Play, "pass": Pass, "run": Run, "stop": Stop, "chata": Chata, "kkojda": Kkojda}
_VERB_ORDER = ("run", "stop", "play", "pass", "chata", "kkojda")  # as error messages list them
# How many cards each verb takes: (fewest, most).
_CARD_COUNTS = {"play": (1, 12), "pass": (0, 0), "run": (1, 2), "stop": (0, 0),
                "chata": (2, 2), "kkojda": (1, 1)}


@dataclass(frozen=True)
class Record:
    """A parsed record: tags, the deal, options and the action lines (not yet replayed)."""

    tags: dict[str, str]
    deal: tuple[CardSet, CardSet, CardSet, CardSet]
    lead_card: Card
    options: TableOptions
    actions: tuple[ActionLine[Action], ...] = field(default=())


def _parse_action(number: int, text: str) -> Action:
    seat, verb, args = split_action(number, text, "S2 play 3H", _VERB_ORDER)
    try:
        mask = parse_cards(" ".join(args))
    except CardNotationError as error:
        raise RecordError(number, str(error)) from None
    fewest, most = _CARD_COUNTS[verb]
    count = mask.bit_count()
    if not fewest <= count <= most:
        wanted = ("no cards" if most == 0 else "1 or 2 cards" if verb == "run" else
                  f"{fewest} card{'s' if fewest > 1 else ''}" if fewest == most else "cards")
        raise RecordError(number, f"{verb} takes {wanted}, not {count}")
    cls = _VERBS[verb]
    return cls(seat) if most == 0 else cls(seat, CardSet(mask))


def parse_lines(text: str) -> Iterator[TagLine | ActionLine[Action]]:
    """Tag and action lines in order; a syntax error is raised when its line is reached."""
    return read_lines(text, _parse_action)


class _Header(Header):
    """Sasaki's tags: the Seat tags (12 cards each), Lead, Running and LeadMustContain3."""

    known_tags = (*SEAT_TAGS, "Lead", "Running", "LeadMustContain3")  # others are ignored

    def __init__(self) -> None:
        super().__init__()
        self.lead: Card = Card.parse("3H")
        self.options = TableOptions(lead_card="3H")

    def add_tag(self, tag: TagLine) -> None:
        line = tag.line
        if tag.tag == "Lead":
            try:
                lead = Card.from_index(parse_card(tag.value))
            except CardNotationError:
                lead = None
            if lead is None or not LeadCard.is_opening(lead):
                raise RecordError(line, f"the Lead tag is 3H or 3S, not {tag.value!r}")
            self.lead = lead
            self.options = replace(self.options, lead_card=str(lead))
        elif tag.tag == "Running":
            if tag.value not in ("before_first_play", "any_own_turn"):
                raise RecordError(line, f"the Running tag is before_first_play or any_own_turn, not {tag.value!r}")
            self.options = replace(self.options, running=tag.value)
        elif tag.tag == "LeadMustContain3":
            self.options = replace(self.options, lead_must_contain_3=yes_no(line, tag))


def _read(text: str) -> Iterator[tuple[_Header, ActionLine[Action] | None]]:
    return read(text, _Header(), _parse_action)


def parse_record(text: str) -> Record:
    """Parse without replaying: syntax and tag errors only (see :func:`replay` for rules)."""
    actions: list[ActionLine[Action]] = []
    header = _Header()
    for header, item in _read(text):  # noqa: B007 (the last line's header is the record's)
        if item is not None:
            actions.append(item)
    deal = tuple(CardSet(m) for m in header.deal(0))
    return Record(header.tags, deal, header.lead, header.options, tuple(actions))  # type: ignore[arg-type]


def _declines(decision: Decision, but: int = -1) -> list[Action]:
    return [Decline(s) for s in decision.seats if s != but]


class _Replayer:
    """Drives a :class:`Hand` from record lines, filling in the unwritten answers."""

    def __init__(self, hand: Hand) -> None:
        self.hand = hand
        self.stops: dict[int, Action] = {}

    def step(self, action: Action) -> None:
        hand = self.hand
        d = hand.decision
        verb = action.verb
        if d.kind is DecisionKind.RUN:
            if isinstance(action, Run):
                hand.resolve([action, *_declines(d, action.seat)])
                self._forced_exposure()
                return
            hand.resolve(_declines(d))
        elif d.kind is DecisionKind.STOP:
            if isinstance(action, Stop):
                if action.seat in self.stops:
                    raise IllegalActionError(f"S{action.seat} has already called Stop")
                if action.seat not in d.seats:
                    raise IllegalActionError(f"S{action.seat} is on the running side: only its "
                                             "opponents may call Stop")
                self.stops[action.seat] = action
                return
            self.close_stops()
        elif d.kind is DecisionKind.CHATA and isinstance(action, Chata):
            if action.seat not in d.seats:
                raise IllegalActionError(f"S{action.seat} cannot chata here: a chata is played by an "
                                         "active player other than the single's player")
            hand.resolve([action, *_declines(d, action.seat)])
            return
        elif d.kind is DecisionKind.KKOJDA and isinstance(action, Kkojda):
            if action.seat not in d.seats:
                raise IllegalActionError(f"S{action.seat} has gone out and cannot kkojda")
            hand.resolve([action, *_declines(d, action.seat)])
            return
        elif d.kind in (DecisionKind.CHATA, DecisionKind.KKOJDA):
            hand.resolve(_declines(d))  # any other line closes the chance
        d = hand.decision
        if d.kind is DecisionKind.OVER:
            raise IllegalActionError("the hand is already over: the third player has gone out")
        if verb == "run":
            if hand.runner is not None:
                raise IllegalActionError("only one run is allowed per hand")
            if hand.options.running == "before_first_play":
                raise IllegalActionError("running is allowed only in the declaration before the "
                                         "first play")
            hand.apply(action)
            self._forced_exposure()
        elif verb == "stop":
            if hand.runner is None:
                raise IllegalActionError("nobody has run, so there is nothing to Stop")
            raise IllegalActionError("Stop lines must directly follow the run line")
        elif verb == "chata":
            raise IllegalActionError("a chata must directly follow a single that another player "
                                     "could answer with a pair of its rank")
        elif verb == "kkojda":
            raise IllegalActionError("a kkojda must directly follow a chata whose fourth card "
                                     "is still unplayed")
        else:
            hand.apply(action)

    def _forced_exposure(self) -> None:
        d = self.hand.decision
        if d.kind is DecisionKind.EXPOSE:
            self.hand.resolve([self.hand.legal_actions(s)[0] for s in d.seats])

    def close_stops(self) -> None:
        d = self.hand.decision
        if d.kind is DecisionKind.STOP:
            answers = [self.stops.get(s) or Decline(s) for s in d.seats]
            self.stops.clear()
            self.hand.resolve(answers)


def replay(text: str) -> Hand:
    """Check every line in order and return the hand as the record leaves it.

    Raises :class:`RecordError` for the first bad line (syntax, tags or rules).
    """
    replayer: _Replayer | None = None
    for header, item in _read(text):
        if replayer is None:
            replayer = _Replayer(Hand(header.deal(0), header.lead, header.options))
        if item is None:
            break
        try:
            replayer.step(item.action)
        except IllegalActionError as error:
            raise RecordError(item.line, str(error)) from None
    assert replayer is not None
    if replayer.stops:
        replayer.close_stops()
    return replayer.hand


def write_record(hand: Hand, comments: bool = False) -> str:
    """The record of ``hand`` so far: tags, then every effective public action.

    Declines and the forced exposure are left out (they follow from the rules).
    """
    lines = []
    if comments:
        lines.append("# p2p-sasaki game record")
    lines.append(tag_line("Lead", hand.lead_card))
    if hand.options.running != "before_first_play":
        lines.append(tag_line("Running", hand.options.running))
    if hand.options.lead_must_contain_3:
        lines.append(tag_line("LeadMustContain3", "yes"))
    for seat in range(4):
        lines.append(tag_line(f"Seat{seat}", CardSet(hand.dealt[seat])))
    for action in hand.history:
        if not isinstance(action, Expose):
            lines.append(str(action))
    return "\n".join(lines) + "\n"

