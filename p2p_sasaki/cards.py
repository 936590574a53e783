"""Cards, ranks, suits and sets of cards.

A card is one of 48 (no 2s); its *index* is ``rank * 4 + suit``, so a set of
cards is a 48-bit integer mask in which each rank owns one nibble. The engine
works on masks; :class:`Card` and :class:`CardSet` are the readable face.

>>> Card.parse("10h")
Card.parse('TH')
>>> CardSet.parse("as 4C 4♥")
CardSet.parse('4C 4H AS')
>>> str(CardSet.parse("as 4C 4♥"))
'4C 4H AS'
>>> Card.parse("TH").rank > Card.parse("9S").rank
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from enum import IntEnum
from functools import total_ordering

__all__ = [
    "Rank", "Suit", "Card", "CardSet", "CardNotationError", "DuplicateCardError",
    "parse_card", "parse_cards", "FULL_DECK", "RANK_SYMBOLS", "SUIT_SYMBOLS",
]

RANK_SYMBOLS = "3456789TJQKA"
SUIT_SYMBOLS = "CDHS"
_SUIT_INPUT = {"C": 0, "D": 1, "H": 2, "S": 3, "♣": 0, "♦": 1, "♥": 2, "♠": 3,
               "♧": 0, "♢": 1, "♡": 2, "♤": 3}
_RANK_INPUT = {s: i for i, s in enumerate(RANK_SYMBOLS)} | {"10": 7}

FULL_DECK = (1 << 48) - 1


class CardNotationError(ValueError):
    """A card token that is not a card of the 48-card deck (e.g. ``2H``, ``1x``)."""


class DuplicateCardError(CardNotationError):
    """The same card listed twice in one set of cards."""


class Rank(IntEnum):
    """Ranks from low to high: 3 < 4 < ... < K < A (there are no 2s)."""

    THREE = 0
    FOUR = 1
    FIVE = 2
    SIX = 3
    SEVEN = 4
    EIGHT = 5
    NINE = 6
    TEN = 7
    JACK = 8
    QUEEN = 9
    KING = 10
    ACE = 11

    @property
    def symbol(self) -> str:
        return RANK_SYMBOLS[self]


class Suit(IntEnum):
    """Suits never rank anything; they matter for red/black tens and the opening 3."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def symbol(self) -> str:
        return SUIT_SYMBOLS[self]


@total_ordering
class Card:
    """One card; interned, so ``Card(Rank.TEN, Suit.HEARTS) is Card.parse("TH")``.

    Cards order by rank, then suit (suits only break the tie for sorting; they
    never make one card beat another).
    """

    __slots__ = ("index",)
    index: int

    def __new__(cls, rank: Rank | int, suit: Suit | int) -> Card:
        if not (0 <= rank < 12 and 0 <= suit < 4):
            raise CardNotationError(f"no card with rank {rank!r} and suit {suit!r}")
        return _CARDS[int(rank) * 4 + int(suit)]

    @classmethod
    def from_index(cls, index: int) -> Card:
        return _CARDS[index]

    @classmethod
    def parse(cls, token: str) -> Card:
        return _CARDS[parse_card(token)]

    @property
    def rank(self) -> Rank:
        return Rank(self.index >> 2)

    @property
    def suit(self) -> Suit:
        return Suit(self.index & 3)

    @property
    def mask(self) -> int:
        return 1 << self.index

    def __str__(self) -> str:
        return RANK_SYMBOLS[self.index >> 2] + SUIT_SYMBOLS[self.index & 3]

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Card) and other.index == self.index

    def __lt__(self, other: Card) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self.index < other.index

    def __hash__(self) -> int:
        return self.index

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return (Card.from_index, (self.index,))


def _make_card(index: int) -> Card:
    card = object.__new__(Card)
    object.__setattr__(card, "index", index)
    return card


_CARDS: tuple[Card, ...] = tuple(_make_card(i) for i in range(48))


def parse_card(token: str) -> int:
    """Return the index of the card written ``token`` (``TH``, ``10h``, ``T♥``)."""
    text = token.strip().upper()
    if len(text) >= 2:
        rank = _RANK_INPUT.get(text[:-1])
        suit = _SUIT_INPUT.get(text[-1])
        if rank is not None and suit is not None:
            return rank * 4 + suit
    raise CardNotationError(
        f"{token!r} is not a card: write a rank 3-9, T (or 10), J, Q, K, A "
        "then a suit C, D, H, S (or ♣♦♥♠)")


def parse_cards(text: str) -> int:
    """Return the mask of the space-separated cards in ``text``; no card twice."""
    mask = 0
    for token in text.split():
        bit = 1 << parse_card(token)
        if mask & bit:
            raise DuplicateCardError(f"{_CARDS[bit.bit_length() - 1]} is listed twice")
        mask |= bit
    return mask


def mask_indices(mask: int) -> Iterator[int]:
    """Card indices in ``mask``, ascending."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class CardSet:
    """An immutable set of cards backed by a 48-bit mask (like python-chess's SquareSet).

    >>> hand = CardSet.parse("3H 3D 4C")
    >>> len(hand), Card.parse("3d") in hand
    (3, True)
    """

    __slots__ = ("mask",)
    mask: int

    def __init__(self, cards: int | Iterable[Card] | str = 0) -> None:
        if cards.__class__ is int and 0 <= cards <= FULL_DECK:
            _set_mask(self, cards)  # the engine's hot path: a CardSet per legal play
            return
        if isinstance(cards, int):
            if not 0 <= cards <= FULL_DECK:
                raise ValueError(f"not a card mask: {cards:#x}")
            mask = cards
        elif isinstance(cards, str):
            mask = parse_cards(cards)
        else:
            mask = 0
            for card in cards:
                if mask & card.mask:
                    raise DuplicateCardError(f"{card} is listed twice")
                mask |= card.mask
        object.__setattr__(self, "mask", mask)

    @classmethod
    def parse(cls, text: str) -> CardSet:
        return cls(parse_cards(text))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("CardSet is immutable")

    def __iter__(self) -> Iterator[Card]:
        for index in mask_indices(self.mask):
            yield _CARDS[index]

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __bool__(self) -> bool:
        return bool(self.mask)

    def __contains__(self, card: object) -> bool:
        return isinstance(card, Card) and bool(self.mask >> card.index & 1)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CardSet) and other.mask == self.mask

    def __hash__(self) -> int:
        return hash(("CardSet", self.mask))

    def __or__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask | other.mask)

    def __and__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask & other.mask)

    def __sub__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask & ~other.mask)

    def issubset(self, other: CardSet) -> bool:
        return not self.mask & ~other.mask

    def __str__(self) -> str:
        return " ".join(str(card) for card in self)

    def __repr__(self) -> str:
        return f"CardSet.parse({str(self)!r})"

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return (CardSet, (self.mask,))


# The slot's own setter: quicker than object.__setattr__, and __setattr__ stays closed.
# (vars() reads the member descriptor as the class attribute does, in a form mypy accepts.)
_set_mask: Callable[[CardSet, int], None] = vars(CardSet)["mask"].__set__
