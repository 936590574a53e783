"""The shape every game's records share (docs/records.md): physical lines, ``#``
comments, ``[Tag "value"]`` lines before the first action, ``S<seat> <verb> [args]``
action lines, the four Seat tags, and errors on the first bad line.

Each game's ``records`` module supplies its verbs (an action parser) and its
:class:`Header` (its own tags); :func:`read` walks a record with them.

>>> [item.tag for item in parse_lines('[Game "sasku"]  # a comment\\n\\n', lambda n, t: t)]
['Game']
>>> split_action(4, "S2 bid 6", "S0 bid 6", ("bid", "pass"))
(2, 'bid', ['6'])
>>> split_action(4, "S2 bet 6", "S0 bid 6", ("bid", "pass"))
Traceback (most recent call last):
...
p2p_sasaki.records.RecordError: line 4: unknown action 'bet': expected bid or pass
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import ClassVar, Generic, TypeVar

from p2p_sasaki.cards import FULL_DECK, CardNotationError, CardSet, parse_cards

__all__ = ["RecordError", "TagLine", "ActionLine", "Header", "physical_lines", "parse_lines", "split_action",
           "read", "tag_line", "yes_no", "game_of", "action_line", "SEAT_TAGS", "GAMES"]

A = TypeVar("A")

_TAG = re.compile(r'^\[\s*([A-Za-z][A-Za-z0-9_]*)\s+"([^"]*)"\s*\]$')
SEAT_TAGS = {"Seat0": 0, "Seat1": 1, "Seat2": 2, "Seat3": 3}
_SEATS = {"S0": 0, "S1": 1, "S2": 2, "S3": 3}
YES_NO = {"yes": True, "no": False}
GAMES = ("sasaki", "sasku")
"""The games a record may name in its ``Game`` tag; without the tag a record is Sasaki's."""


class RecordError(ValueError):
    """A bad record line: ``line`` is its 1-based physical line number."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


@dataclass(frozen=True, slots=True)
class TagLine:
    line: int
    tag: str
    value: str


@dataclass(frozen=True, slots=True)
class ActionLine(Generic[A]):
    line: int
    action: A


def action_line(seat: int, verb: str, *words: object) -> str:
    """An action as its record line, in every game: ``S<seat> <verb>`` and its words, a word
    that prints empty or is None (no cards, a card hidden from a view) left out.

    >>> action_line(2, "bid", 6), action_line(0, "give", None), action_line(1, "pass", CardSet())
    ('S2 bid 6', 'S0 give', 'S1 pass')
    """
    return " ".join([f"S{seat}", verb, *(text for word in words if word is not None and (text := str(word)))])


def physical_lines(text: str) -> list[str]:
    """The lines of ``text`` as numbered in errors (a final newline does not start a line)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.rstrip("\r") for line in lines]


def parse_lines(text: str, parse_action: Callable[[int, str], A]) -> Iterator[TagLine | ActionLine[A]]:
    """Tag and action lines in order (comments and blank lines dropped); ``parse_action``
    reads an action line's text; a syntax error is raised when its line is reached."""
    for number, raw in enumerate(physical_lines(text), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("["):
            match = _TAG.match(line)
            if not match:
                raise RecordError(number, f"cannot read the tag {line!r}: write [Tag \"value\"]")
            yield TagLine(number, match.group(1), match.group(2))
        else:
            yield ActionLine(number, parse_action(number, line))


def _either(words: Sequence[str]) -> str:
    return ", ".join(words[:-1]) + " or " + words[-1]


def split_action(number: int, text: str, example: str, verbs: Sequence[str]) -> tuple[int, str, list[str]]:
    """An action line's seat, verb and arguments: ``S<seat> <verb> [args]``, seats S0-S3 and
    the verbs exactly as written (``verbs`` in the order error messages list them)."""
    tokens = text.split()
    if not re.fullmatch(r"S[0-9]+", tokens[0]):  # ASCII digits: \d would read other scripts' digits
        raise RecordError(number, f"cannot read {text!r}: expected a tag like [Seat0 \"...\"] "
                                  f"or an action like '{example}'")
    if tokens[0] not in _SEATS:  # exactly S0-S3: not S4, not S01
        raise RecordError(number, f"{tokens[0]} is not a seat: seats are S0 to S3")
    seat = _SEATS[tokens[0]]
    if len(tokens) < 2:
        raise RecordError(number, f"{tokens[0]} has no action: expected {_either(verbs)}")
    if tokens[1] not in verbs:
        raise RecordError(number, f"unknown action {tokens[1]!r}: expected {_either(verbs)}")
    return seat, tokens[1], tokens[2:]


def yes_no(line: int, tag: TagLine) -> bool:
    """A yes/no tag's value (exactly ``yes`` or ``no``)."""
    if tag.value not in YES_NO:
        raise RecordError(line, f"the {tag.tag} tag is yes or no, not {tag.value!r}")
    return YES_NO[tag.value]


def tag_line(tag: str, value: object) -> str:
    return f'[{tag} "{value}"]'


class Header:
    """The tags read so far; each problem is reported on the line where it shows.

    A game's subclass sets the hand size and pack, lists its ``known_tags`` (the
    Seat tags and its own; any other tag is kept and ignored, like PGN's) and reads
    its own tags in :meth:`add_tag`.
    """

    hand_size: ClassVar[int] = 12
    pack: ClassVar[int] = FULL_DECK
    known_tags: ClassVar[tuple[str, ...]] = tuple(SEAT_TAGS)

    def __init__(self) -> None:
        self.tags: dict[str, str] = {}
        self.seats: dict[int, int] = {}

    def add(self, tag: TagLine) -> None:
        if tag.tag in self.tags and tag.tag in self.known_tags:
            raise RecordError(tag.line, f"the {tag.tag} tag is given twice")
        self.tags[tag.tag] = tag.value
        if tag.tag in SEAT_TAGS:
            self.add_seat(tag.line, SEAT_TAGS[tag.tag], tag.value)
        else:
            self.add_tag(tag)

    def add_seat(self, line: int, seat: int, value: str) -> None:
        try:
            mask = parse_cards(value)
        except CardNotationError as error:
            raise RecordError(line, str(error)) from None
        self.check_cards(line, mask)
        for other, dealt in self.seats.items():
            if dealt & mask:
                raise RecordError(line, f"{CardSet(dealt & mask)} is already dealt to seat {other}")
        if mask.bit_count() != self.hand_size:
            raise RecordError(line, f"seat {seat} must be dealt {self.hand_size} cards, not {mask.bit_count()}")
        self.seats[seat] = mask

    def check_cards(self, line: int, mask: int) -> None:
        """A game whose pack is not the whole 48-card space rejects the other cards here."""

    def add_tag(self, tag: TagLine) -> None:
        """A game's own tags (unknown tags are ignored)."""

    def deal(self, line: int) -> tuple[int, int, int, int]:
        """The four dealt hands; a missing Seat tag is reported on ``line``."""
        for seat in range(4):
            if seat not in self.seats:
                raise RecordError(line, f"the Seat{seat} tag is missing: a record deals {self.hand_size} cards "
                                        "to each of the four seats before the first action")
        return (self.seats[0], self.seats[1], self.seats[2], self.seats[3])

    def start(self, line: int) -> None:
        """Called on the first action line: every required tag must be there."""
        self.deal(line)


H = TypeVar("H", bound=Header)


def read(text: str, header: H, parse_action: Callable[[int, str], A]) -> Iterator[tuple[H, ActionLine[A] | None]]:
    """Action lines in order, each with the tags read so far (checked on its line);
    a record without actions gives one ``(header, None)``."""
    started = False
    for item in parse_lines(text, parse_action):
        if isinstance(item, TagLine):
            if started and item.tag in header.known_tags:
                raise RecordError(item.line, f"the {item.tag} tag must come before the first action")
            header.add(item)
            continue
        if not started:
            header.start(item.line)  # a missing tag shows on the first action line
            started = True
        yield header, item
    if not started:
        header.start(len(physical_lines(text)) + 1)
        yield header, None


def game_of(text: str) -> str:
    """The game a record names in its ``Game`` tag: ``sasaki`` without one. An unknown
    game is a RecordError on the tag's line (unless a tag line before it cannot be read:
    that line is the first bad one, and Sasaki's reader reports it)."""
    malformed = False  # a tag line that cannot be read comes first: the reader reports it there
    for number, raw in enumerate(physical_lines(text), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line.startswith("["):
            continue
        match = _TAG.match(line)
        if not match:
            malformed = True
        elif match.group(1) == "Game":
            if match.group(2) in GAMES:
                return match.group(2)
            if not malformed:
                raise RecordError(number, f"unknown game {match.group(2)!r}: the Game tag is {_either(GAMES)}")
            break
    return "sasaki"
