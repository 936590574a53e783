"""Sasku's game records: one deal, plain text in the shape Sasaki's records have
(``p2p_sasaki.records``): ``[Game "sasku"]``, the four Seat tags (9 cards each),
optional ``[Deal "N"]``, ``[MinBid "5"]`` and ``[PictureShown "no"]``, then every
action on its own line (``S0 bid 6``, ``S1 give QH``, ``S3 return 7C``, ``S0 trump H``,
``S2 play AS``). A record holds the whole deal, so every rule broken in it, a renege
included, is an error on its line. See docs/records.md.

>>> from random import Random
>>> from p2p_sasaki.sasku.deal import Deal, apply, legal_actions
>>> deal = Deal.random(Random(2), deal_number=5)
>>> while not deal.is_over:
...     deal = apply(deal, legal_actions(deal)[-1])
>>> text = write_record(deal)
>>> text.splitlines()[:3]
['[Game "sasku"]', '[Deal "5"]', '[Seat0 "9H 9S TC TD TH TS JD JH JS"]']
>>> text.splitlines()[6:8]
['S1 diamonds', 'S1 play AS']
>>> again = replay(text)
>>> again.history == deal.history and again.points == deal.points
True
>>> replay(text.replace("S1 diamonds", "S1 bid 4"))
Traceback (most recent call last):
...
p2p_sasaki.records.RecordError: line 7: the smallest bid is 5
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from p2p_sasaki.cards import Card, CardNotationError, CardSet, Suit, parse_card
from p2p_sasaki.records import (
    SEAT_TAGS,
    ActionLine,
    Header,
    RecordError,
    TagLine,
    read,
    split_action,
    tag_line,
    yes_no,
)
from p2p_sasaki.sasku.deal import (
    Action,
    Bid,
    Deal,
    Diamonds,
    Give,
    IllegalActionError,
    Pass,
    Play,
    Refuse,
    Return,
    Take,
    TrumpCall,
    apply,
)
from p2p_sasaki.sasku.options import MAX_BID, SaskuOptions
from p2p_sasaki.sasku.trumps import PACK

__all__ = ["RecordError", "SaskuHeader", "parse_action", "replay", "write_record", "GAME"]

GAME = "sasku"
_VERB_ORDER = ("bid", "pass", "diamonds", "give", "take", "refuse", "return", "trump", "play")
_NO_ARGUMENT: dict[str, Callable[[int], Action]] = {
    "pass": Pass, "diamonds": Diamonds, "take": Take, "refuse": Refuse}
_ONE_CARD: dict[str, Callable[[int, Card], Action]] = {"give": Give, "return": Return, "play": Play}
_SUITS = {suit.symbol: suit for suit in Suit}


def _card(number: int, token: str) -> Card:
    try:
        index = parse_card(token)
    except CardNotationError as error:
        raise RecordError(number, str(error)) from None
    if not PACK >> index & 1:
        raise RecordError(number, f"{Card.from_index(index)} is not in the Sasku pack: its cards are 6 to A")
    return Card.from_index(index)


def parse_action(number: int, text: str) -> Action:
    """One action line (``S0 bid 6``); RecordError on syntax, never on the rules."""
    seat, verb, args = split_action(number, text, "S0 bid 6", _VERB_ORDER)
    if verb in _NO_ARGUMENT:
        if args:
            raise RecordError(number, f"{verb} takes nothing, not {' '.join(args)!r}")
        return _NO_ARGUMENT[verb](seat)
    if verb == "bid":
        if len(args) != 1 or not re.fullmatch(r"[0-9]+", args[0]):  # ASCII digits only
            raise RecordError(number, f"bid takes one number of tricks, as in 'S{seat} bid 6'")
        return Bid(seat, int(args[0]))
    if verb == "trump":
        if len(args) != 1:
            raise RecordError(number, f"trump takes one suit, C, S, H or D, as in 'S{seat} trump H'")
        if args[0] not in _SUITS:  # written exactly, like seats and verbs (only cards take other spellings)
            raise RecordError(number, f"{args[0]!r} is not a suit: write C, S, H or D")
        return TrumpCall(seat, _SUITS[args[0]])
    if len(args) != 1:
        raise RecordError(number, f"{verb} takes one card, not {len(args)}")
    return _ONE_CARD[verb](seat, _card(number, args[0]))


class SaskuHeader(Header):
    """Sasku's tags: Game (required), the Seat tags (9 cards each), Deal, MinBid, PictureShown."""

    hand_size = 9
    pack = PACK
    known_tags = ("Game", *SEAT_TAGS, "Deal", "MinBid", "PictureShown")

    def __init__(self) -> None:
        super().__init__()
        self.deal_number = 0
        self.min_bid = SaskuOptions().min_bid
        self.picture_shown = SaskuOptions().picture_shown

    @property
    def options(self) -> SaskuOptions:
        return SaskuOptions(min_bid=self.min_bid, picture_shown=self.picture_shown)

    def check_cards(self, line: int, mask: int) -> None:
        if mask & ~PACK:
            raise RecordError(line, f"{CardSet(mask & ~PACK)} is not in the Sasku pack: its cards are 6 to A")

    def add_tag(self, tag: TagLine) -> None:
        line = tag.line
        if tag.tag == "Game":
            if tag.value != GAME:
                raise RecordError(line, f"the Game tag of a Sasku record is {GAME}, not {tag.value!r}")
        elif tag.tag == "Deal":
            if not re.fullmatch(r"[0-9]+", tag.value):
                raise RecordError(line, f"the Deal tag is a deal number 0, 1, 2, ..., not {tag.value!r}")
            self.deal_number = int(tag.value)
        elif tag.tag == "MinBid":
            if not re.fullmatch(r"[1-9]", tag.value):
                raise RecordError(line, f"the MinBid tag is a bid from 1 to {MAX_BID}, not {tag.value!r}")
            self.min_bid = int(tag.value)
        elif tag.tag == "PictureShown":
            self.picture_shown = yes_no(line, tag)

    def start(self, line: int) -> None:
        if "Game" not in self.tags:
            raise RecordError(line, f'the Game tag is missing: a Sasku record names its game with [Game "{GAME}"] '
                                    "before the first action")
        super().start(line)


def _read(text: str) -> Iterator[tuple[SaskuHeader, ActionLine[Action] | None]]:
    return read(text, SaskuHeader(), parse_action)


def replay(text: str) -> Deal:
    """Check every line in order and return the deal as the record leaves it.

    Raises :class:`RecordError` for the first bad line (syntax, tags or rules).
    """
    state: Deal | None = None
    for header, item in _read(text):
        if state is None:
            state = Deal(header.deal(0), header.deal_number, header.options)
        if item is None:
            break
        try:
            state = apply(state, item.action)
        except IllegalActionError as error:
            raise RecordError(item.line, str(error)) from None
    assert state is not None
    return state


def write_record(deal: Deal, comments: bool = False) -> str:
    """The record of the full deal ``deal`` so far: tags, then every action."""
    if deal.viewer is not None:
        raise ValueError("a record holds the whole deal: write it from the full deal, not a seat's view")
    lines = ["# p2p-sasaki game record (Sasku)"] if comments else []
    lines.append(tag_line("Game", GAME))
    lines.append(tag_line("Deal", deal.deal_number))
    options = deal.options
    if options.min_bid != SaskuOptions().min_bid:
        lines.append(tag_line("MinBid", options.min_bid))
    if options.picture_shown:
        lines.append(tag_line("PictureShown", "yes"))
    for seat in range(4):
        lines.append(tag_line(f"Seat{seat}", deal.dealt(seat)))
    lines += [str(action) for action in deal.history]
    return "\n".join(lines) + "\n"
