"""Sasku's pack, its trumps and card points: the one place that orders cards.

Sasku plays the 36 cards from 6 to A of the shared 48-card index space
(``p2p_sasaki.cards``: index ``rank * 4 + suit``), so a hand is a 48-bit mask
with the 3s, 4s and 5s always clear. The twelve pictures (K, Q, J) are trumps
whatever the trump suit; the trump suit adds its A T 9 8 7 6 below them.

>>> from p2p_sasaki.cards import Card, Suit
>>> trick = [Card.parse(c).index for c in ("AH", "JD", "TH", "KC")]
>>> str(Card.from_index(trick[winner_index(trick, Suit.SPADES)]))
'KC'
>>> card_points(sum(1 << i for i in trick))
27
>>> Suit(suit_of("d")).name
'DIAMONDS'
"""

from __future__ import annotations

from p2p_sasaki.cards import SUIT_SYMBOLS, Card, CardNotationError, Rank, Suit

__all__ = [
    "PACK", "PICTURES", "PLAIN", "SUIT_ORDER", "TRUMP_SUITS",
    "card_points", "trumps", "follow_mask", "winner_index", "is_picture", "suit_of",
    "parse_sasku_card", "CARD_POINTS", "TOTAL_POINTS",
]

_LOW_RANKS = (Rank.THREE, Rank.FOUR, Rank.FIVE)
PACK = sum(1 << (r * 4 + s) for r in range(12) for s in range(4) if r not in _LOW_RANKS)
"""The 36 cards of Sasku as a mask."""
PICTURES = sum(1 << (r * 4 + s) for r in (Rank.JACK, Rank.QUEEN, Rank.KING) for s in range(4))
"""The twelve pictures: always trumps."""
PLAIN = tuple(sum(1 << (r * 4 + s) for r in (Rank.SIX, Rank.SEVEN, Rank.EIGHT, Rank.NINE, Rank.TEN, Rank.ACE))
              for s in range(4))
"""Each suit's six plain cards (A T 9 8 7 6), by suit index: a picture never belongs to a suit."""
SUIT_ORDER = {Suit.CLUBS: 3, Suit.SPADES: 2, Suit.HEARTS: 1, Suit.DIAMONDS: 0}
"""Clubs > spades > hearts > diamonds: orders pictures of one rank."""
TRUMP_SUITS = (Suit.CLUBS, Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS)

_POINTS_BY_RANK = {Rank.ACE: 11, Rank.TEN: 10, Rank.KING: 4, Rank.QUEEN: 3, Rank.JACK: 2}
CARD_POINTS = tuple(_POINTS_BY_RANK.get(Rank(i >> 2), 0) for i in range(48))
"""Card points by card index: A 11, T 10, K 4, Q 3, J 2, others nothing."""
TOTAL_POINTS = 120
_POINT_RANKS = tuple((0xF << (rank * 4), points) for rank, points in _POINTS_BY_RANK.items())


def card_points(mask: int) -> int:
    """The card points in a set of cards (a mask)."""
    total = 0
    for rank_mask, points in _POINT_RANKS:
        total += (mask & rank_mask).bit_count() * points
    return total


def is_picture(index: int) -> bool:
    return bool(PICTURES >> index & 1)


def trumps(trump: int) -> int:
    """All 18 trumps for trump suit ``trump``: the pictures and that suit's plain cards."""
    return PICTURES | PLAIN[trump]


def _key(index: int, trump: int) -> int:
    """How high a card is as a trump (0 when it is none): pictures 120+, trump suit 100+."""
    rank, suit = index >> 2, index & 3
    if PICTURES >> index & 1:
        return 120 + (rank - Rank.JACK) * 4 + SUIT_ORDER[Suit(suit)]
    if suit == trump:
        return 100 + rank
    return 0


# Per trump suit, per card: its trump key, and the mask that follows it when it is led.
_TRUMP_KEY = tuple(tuple(_key(i, t) for i in range(48)) for t in range(4))
_FOLLOW = tuple(tuple(trumps(t) if _key(i, t) else PLAIN[i & 3] for i in range(48)) for t in range(4))


def follow_mask(led: int, trump: int) -> int:
    """The cards that follow card ``led``: every trump if it is a trump, else its suit's plain cards."""
    return _FOLLOW[trump][led]


def follow_table(trump: int) -> tuple[int, ...]:
    """:func:`follow_mask` for every led card at once (the engine's hot path indexes it)."""
    return _FOLLOW[trump]


def winner_index(trick: list[int] | tuple[int, ...], trump: int) -> int:
    """The position in ``trick`` (cards in play order) of the card that wins it: the highest
    trump, or with no trump the highest plain card of the suit led."""
    keys = _TRUMP_KEY[trump]
    led_suit = trick[0] & 3
    best, best_key = 0, -1
    for position, index in enumerate(trick):
        key = keys[index]
        if not key and index & 3 == led_suit:
            key = 1 + (index >> 2)  # a plain card of the suit led: by rank
        if key > best_key:
            best, best_key = position, key
    return best


def suit_of(token: str) -> int:
    """The suit index named by ``C``, ``S``, ``H``, ``D`` (any case, or a symbol)."""
    text = token.strip().upper()
    symbols = {"♣": "C", "♦": "D", "♥": "H", "♠": "S", "♧": "C", "♢": "D", "♡": "H", "♤": "S"}
    text = symbols.get(text, text)
    if len(text) == 1 and text in SUIT_SYMBOLS:
        return SUIT_SYMBOLS.index(text)
    raise CardNotationError(f"{token!r} is not a suit: write C, S, H or D")


def parse_sasku_card(token: str) -> int:
    """The index of a card of the Sasku pack (6 to A); 3s, 4s and 5s are not in it."""
    card = Card.parse(token)
    if not PACK >> card.index & 1:
        raise CardNotationError(f"{token!r} is not a Sasku card: the pack has ranks 6 to A")
    return card.index
