"""Building deals and driving hands in tests."""

from __future__ import annotations

import random

from p2p_sasaki.cards import FULL_DECK, CardSet, parse_cards
from p2p_sasaki.sasaki.hand import DecisionKind, Decline, Hand, Pass, Play
from p2p_sasaki.sasaki.options import TableOptions
from p2p_sasaki.sasaki.records import RecordError, replay


def deal(*specs: str) -> tuple[CardSet, CardSet, CardSet, CardSet]:
    """Each seat gets the cards listed for it; the rest fill the seats in index order."""
    masks = [parse_cards(spec) for spec in specs] + [0] * (4 - len(specs))
    free = FULL_DECK
    for mask in masks:
        assert not mask & ~free, "a card is listed twice"
        free &= ~mask
    for seat in range(4):
        while masks[seat].bit_count() < 12:
            low = free & -free
            masks[seat] |= low
            free ^= low
    return tuple(CardSet(m) for m in masks)  # type: ignore[return-value]


def record_text(specs: tuple[CardSet, ...], lines: list[str], lead: str = "3H",
                extra_tags: tuple[str, ...] = ()) -> str:
    tags = [f'[Lead "{lead}"]', *extra_tags] + [f'[Seat{s} "{specs[s]}"]' for s in range(4)]
    return "\n".join(tags + lines) + "\n"


def after(specs: tuple[CardSet, ...], *lines: str, lead: str = "3H", tags: tuple[str, ...] = ()) -> Hand:
    """The hand after replaying action ``lines`` on the deal (declines filled in)."""
    return replay(record_text(specs, list(lines), lead, tags))


def error_of(specs: tuple[CardSet, ...], *lines: str, lead: str = "3H",
             tags: tuple[str, ...] = ()) -> tuple[int, str]:
    """(index of the bad action line, 1-based, and the message)."""
    try:
        replay(record_text(specs, list(lines), lead, tags))
    except RecordError as error:
        return error.line - 5 - len(tags), error.message
    raise AssertionError("the record replayed without error")


def new_hand(specs: tuple[CardSet, ...], lead: str = "3H", **options: object) -> Hand:
    return Hand.deal_from(specs, lead, TableOptions(lead_card=lead, **options))  # type: ignore[arg-type]


def decline(hand: Hand) -> None:
    """Resolve the current window with every seat declining."""
    assert hand.decision.is_window, hand.decision
    hand.resolve([Decline(s) for s in hand.decision.seats])


def play(hand: Hand, seat: int, cards: str) -> None:
    hand.apply(Play(seat, CardSet.parse(cards)))


def random_playthrough(rng: random.Random, options: TableOptions = TableOptions(lead_card="3H"),
                       lead: str = "3H") -> Hand:
    """A hand played to the end by uniformly random legal answers."""
    hand = Hand.random(rng, lead, options)
    while not hand.is_over:
        d = hand.decision
        if d.kind is DecisionKind.TURN:
            actions = hand.legal_actions(d.seats[0])
            hand.apply(rng.choice(actions))
        else:
            hand.resolve([rng.choice(hand.legal_actions(s)) for s in d.seats])
    return hand


__all__ = ["deal", "record_text", "after", "error_of", "new_hand", "decline", "play",
           "random_playthrough", "Pass"]
