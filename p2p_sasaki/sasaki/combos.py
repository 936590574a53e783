"""Combinations: what a set of cards is, which play beats which, and legal plays.

A :class:`Combo` is a kind plus a few numbers (top rank, number of cards), as in
OpenSpiel's and DouZero's climbing games. The whole beating order lives in
:func:`beats`; legal plays are generated kind by kind from the hand's rank
nibbles and filtered through :func:`beats` (classify -> generate -> filter).

>>> from p2p_sasaki.cards import parse_cards
>>> classify(parse_cards("4C 4H AS"))
Combo(Kind.SASAKI, Rank.ACE, 3)
>>> beats(classify(parse_cards("TC TS")), classify(parse_cards("TH TD")))
True
>>> classify(parse_cards("TH TD"), hand=parse_cards("TH TD"))  # last two cards
Combo(Kind.PAIR, Rank.TEN, 2)
"""

from __future__ import annotations

from enum import IntEnum

from p2p_sasaki.cards import Rank

__all__ = ["Kind", "Combo", "classify", "beats", "legal_plays", "PIG_MASK", "BLACK_PIG_MASK"]

_TEN = 7
PIG_MASK = (1 << (_TEN * 4 + 1)) | (1 << (_TEN * 4 + 2))        # TD TH
BLACK_PIG_MASK = (1 << (_TEN * 4 + 0)) | (1 << (_TEN * 4 + 3))  # TC TS


class Kind(IntEnum):
    """Ordinary kinds first (single, pair, sequence), then the specials, low to high."""

    SINGLE = 0
    PAIR = 1
    SEQUENCE = 2
    TRIPLET = 3
    SASAKI = 4
    FOUR = 5
    PIG = 6

    @property
    def is_special(self) -> bool:
        return self >= _KIND_TRIPLET


# The members as plain globals, for the hot paths (quicker than Kind.X on Python 3.11).
_KIND_SINGLE, _KIND_PAIR, _KIND_SEQUENCE, _KIND_TRIPLET, _KIND_SASAKI, _KIND_FOUR, _KIND_PIG = Kind


class Combo:
    """A classified play: kind, top rank and number of cards; interned and immutable.

    ``black_pig`` marks TC TS, an ordinary pair of tens with two extras (it beats
    a Pig, and a Pig cannot be played on it).
    """

    __slots__ = ("kind", "rank", "length", "black_pig", "_key")
    kind: Kind
    rank: Rank
    length: int
    black_pig: bool
    _key: int  # _special_key(kind, rank): the order of the specials, -1 for ordinary kinds

    def __new__(cls, kind: Kind, rank: Rank | int, length: int, black_pig: bool = False) -> Combo:
        key = (int(kind), int(rank), length, black_pig)
        combo = _COMBOS.get(key)
        if combo is None:
            combo = object.__new__(cls)
            object.__setattr__(combo, "kind", Kind(kind))
            object.__setattr__(combo, "rank", Rank(rank))
            object.__setattr__(combo, "length", length)
            object.__setattr__(combo, "black_pig", black_pig)
            object.__setattr__(combo, "_key", _special_key(int(kind), int(rank)))
            _COMBOS[key] = combo
        return combo

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Combo is immutable")

    @property
    def is_special(self) -> bool:
        return self.kind >= _KIND_TRIPLET

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return (Combo, (self.kind, self.rank, self.length, self.black_pig))

    def __repr__(self) -> str:
        extra = ", black_pig=True" if self.black_pig else ""
        return f"Combo(Kind.{self.kind.name}, Rank.{self.rank.name}, {self.length}{extra})"

    def __str__(self) -> str:
        name = {Kind.SINGLE: "single", Kind.PAIR: "pair", Kind.TRIPLET: "triplet",
                Kind.FOUR: "four of a kind"}.get(self.kind)
        r = self.rank.symbol
        if self.black_pig:
            return "Black Pig (pair of tens)"
        if name:
            return f"{name} of {r}" if self.kind is not Kind.SINGLE else f"single {r}"
        if self.kind is Kind.SEQUENCE:
            return f"{self.length}-card sequence to {r}"
        return "Sasaki (44A)" if self.kind is Kind.SASAKI else "Pig"


_COMBOS: dict[tuple[int, int, int, bool], Combo] = {}


def _special_key(kind: int, rank: int) -> int:
    """Order of the specials: triplets by rank < Sasaki < fours by rank < Pig."""
    if kind == Kind.TRIPLET:
        return rank
    if kind == Kind.SASAKI:
        return 12
    if kind == Kind.FOUR:
        return 13 + rank
    if kind == Kind.PIG:
        return 25
    return -1


def beats(new: Combo, top: Combo | None) -> bool:
    """Whether ``new`` may be played on ``top`` (``None``: a lead, anything goes).

    Ordinary plays beat only the same kind with as many cards and a higher rank;
    a special beats every ordinary play and any lower special (so equal plays,
    e.g. Sasaki on Sasaki, never beat). Only the Black Pig beats a Pig, and a
    Pig cannot be played on the Black Pig.
    """
    if top is None:
        return True
    if top.kind is _KIND_PIG:
        return new.black_pig
    if new.kind is _KIND_PIG:
        return not top.black_pig
    if new._key >= 0:
        return top._key < 0 or new._key > top._key
    if top._key >= 0:
        return False
    return new.kind is top.kind and new.length == top.length and new.rank > top.rank


def classify(mask: int, hand: int = 0) -> Combo | None:
    """The combination formed by the cards in ``mask``, or ``None``.

    ``hand`` is the player's whole hand: TH TD that are a player's last two
    cards are only a pair of tens, not a Pig.
    """
    n = mask.bit_count()
    if n == 0:
        return None
    lo_rank = ((mask & -mask).bit_length() - 1) >> 2
    hi_rank = (mask.bit_length() - 1) >> 2
    if lo_rank == hi_rank:
        if n == 2:
            if mask == PIG_MASK and hand != PIG_MASK:
                return _PIG
            if mask == BLACK_PIG_MASK:
                return _BLACK_PIG
        return _OF_A_RANK[n][lo_rank]
    if n == 3 and lo_rank == 1 and hi_rank == 11 and (mask >> 4 & 15).bit_count() == 2:
        return _SASAKI
    if n >= 3 and hi_rank - lo_rank + 1 == n:
        for rank in range(lo_rank, hi_rank + 1):
            if (mask >> (rank * 4) & 15).bit_count() != 1:
                return None
        return _SEQUENCES[n][hi_rank]
    return None


# The interned combos classify() returns, looked up by card count and rank (about 180).
_OF_A_RANK: tuple[tuple[Combo, ...], ...] = ((),) + tuple(
    tuple(Combo(kind, rank, n) for rank in range(12))
    for n, kind in ((1, Kind.SINGLE), (2, Kind.PAIR), (3, Kind.TRIPLET), (4, Kind.FOUR)))
_SEQUENCES: tuple[tuple[Combo, ...], ...] = tuple(
    tuple(Combo(Kind.SEQUENCE, top, n) for top in range(12)) for n in range(13))
_PIG = Combo(Kind.PIG, _TEN, 2)
_BLACK_PIG = Combo(Kind.PAIR, _TEN, 2, True)
_SASAKI = Combo(Kind.SASAKI, 11, 3)


# Sub-nibbles of each nibble with exactly k bits: _SUBS[nib][k] (16 x 5 small tuples),
# and all its non-empty sub-nibbles: _ALL_SUBS[nib]. The _AT tables hold the same sub-nibbles
# already shifted to each rank (_SUBS_AT[rank][nib][k], _ALL_SUBS_AT[rank][nib]), so the
# generators below extend lists from tuples instead of shifting card by card: legal-play
# generation is the engine's hottest path (bench/engine.py).
_SUBS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(s for s in range(16) if s & ~nib == 0 and s.bit_count() == k) for k in range(5))
    for nib in range(16)
)
_ALL_SUBS: tuple[tuple[int, ...], ...] = tuple(
    tuple(s for s in range(1, 16) if s & ~nib == 0) for nib in range(16))
_SUBS_AT: tuple[tuple[tuple[tuple[int, ...], ...], ...], ...] = tuple(
    tuple(tuple(tuple(s << (rank * 4) for s in subs) for subs in _SUBS[nib]) for nib in range(16))
    for rank in range(12))
_ALL_SUBS_AT: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(s << (rank * 4) for s in _ALL_SUBS[nib]) for nib in range(16)) for rank in range(12))
_THREE_OR_MORE = tuple(nib.bit_count() >= 3 for nib in range(16))

# Per-nibble arithmetic on a whole hand: _rank_counts() puts each rank's number of
# cards (0-4) in its nibble; adding _ONES (_TWOS) sets a nibble's bit 2 (_BIT2) where
# that rank has 3 (2) cards or more, and a count has bit 2 itself only when it is 4.
_ONES = 0x111111111111
_TWOS = 0x222222222222
_BIT2 = 0x444444444444


def _rank_counts(hand: int) -> int:
    counts = hand - (hand >> 1 & 0x555555555555)
    return (counts & 0x333333333333) + (counts >> 2 & 0x333333333333)


def _sequences(hand: int, shortest: int, longest: int, min_top: int, out: list[int]) -> None:
    """Sequences of ``shortest``..``longest`` cards whose top rank is at least ``min_top``."""
    run = 0  # consecutive ranks present, ending at `top`
    for top in range(12):
        nib = hand >> (top * 4) & 15
        if not nib:
            run = 0
            continue
        run += 1
        if top < min_top or run < shortest:
            continue
        masks: list[int] | tuple[int, ...] = _SUBS_AT[top][nib][1]
        for length in range(2, min(run, longest) + 1):
            low = top - length + 1
            singles = _SUBS_AT[low][hand >> (low * 4) & 15][1]
            masks = [m | b for m in masks for b in singles]
            if length >= shortest:
                out.extend(masks)


def _sasakis(hand: int, out: list[int]) -> None:
    fours = hand >> 4 & 15
    aces = hand >> 44 & 15
    if aces and fours.bit_count() >= 2:
        for pair in _SUBS[fours][2]:
            for ace in _SUBS[aces][1]:
                out.append((pair << 4) | (ace << 44))


def legal_plays(hand: int, top: Combo | None) -> list[int]:
    """Masks of every set of cards from ``hand`` that may be played on ``top``.

    ``top`` is ``None`` for a lead. Each play appears once (TH TD once, as a Pig
    or, when it is the whole hand, as a pair of tens).
    """
    out: list[int] = []
    if top is None:
        present = 0  # one bit per rank held
        for rank in range(12):
            nib = hand >> (rank * 4) & 15
            if nib:
                out += _ALL_SUBS_AT[rank][nib]
                present |= 1 << rank
        if present & present >> 1 & present >> 2:  # three ranks in a row somewhere
            _sequences(hand, 3, 12, 0, out)
        _sasakis(hand, out)
        return out
    kind = top.kind
    if kind is _KIND_PIG:
        return [BLACK_PIG_MASK] if hand & BLACK_PIG_MASK == BLACK_PIG_MASK else out
    same = top.length if kind is _KIND_SINGLE or kind is _KIND_PAIR else 0
    top_rank = top.rank if same else 12  # same-kind answers come from higher ranks only
    pig_done = same == 2 and top.rank < _TEN
    key = top._key  # specials in the order of _special_key: triplets, Sasaki, fours, Pig
    four_from = key - 12
    # Whether the rank loop below finds anything: a same-kind answer from a higher
    # rank, a triplet above a triplet's rank, a four. Often not (then a pass is
    # forced), and this is much cheaper than the loop.
    counts = hand - (hand >> 1 & 0x555555555555)  # _rank_counts(hand), inline
    counts = (counts & 0x333333333333) + (counts >> 2 & 0x333333333333)
    if same == 1:
        found = hand >> ((top_rank + 1) * 4)
    elif same == 2:
        found = ((counts >> ((top_rank + 1) * 4)) + _TWOS) & _BIT2
    else:
        found = 0
    if not found:
        if key < 12:  # triplets above the key (fours too), and fours of any rank
            found = (((counts >> ((key + 1) * 4)) + _ONES) | counts) & _BIT2
        else:
            found = (counts >> (four_from * 4)) & _BIT2
    three_or_more = _THREE_OR_MORE
    for rank in range(12 if found else 0):
        nib = hand >> (rank * 4) & 15
        if not nib:
            continue
        if rank > top_rank:
            out += _SUBS_AT[rank][nib][same]
        if three_or_more[nib]:
            if rank > key and key < 12:
                out += _SUBS_AT[rank][nib][3]
            if nib == 15 and rank >= four_from:
                out.append(15 << (rank * 4))
    if kind is _KIND_SEQUENCE:
        # Only where `length` ranks in a row are held, the highest above the top's rank.
        length = top.length
        present = (hand | hand >> 1 | hand >> 2 | hand >> 3) & _ONES  # bit 0 of a held rank
        present >>= max(top.rank + 2 - length, 0) * 4  # from the lowest rank a run can start
        runs = present
        for i in range(1, length):
            runs &= present >> (i * 4)
        if runs:
            _sequences(hand, length, length, top.rank + 1, out)
    if key < 12 and hand >> 44 & 15 and (hand >> 4 & 15).bit_count() >= 2:
        _sasakis(hand, out)
    # pig_done: TH TD came with the pairs above (a Pig there, or the last two cards).
    if hand & PIG_MASK == PIG_MASK and hand != PIG_MASK and not top.black_pig and not pig_done:
        out.append(PIG_MASK)
    return out


def why_not(new: Combo, top: Combo) -> str:
    """One sentence saying which rule stops ``new`` from beating ``top``."""
    if top.kind is Kind.PIG:
        return "only the Black Pig (TC TS) beats a Pig"
    if new.kind is Kind.PIG:
        return "a Pig cannot be played on the Black Pig"
    if new.is_special:
        if new.kind is Kind.SASAKI and top.kind is Kind.SASAKI:
            return "a Sasaki cannot beat another Sasaki"
        return f"a {new} does not beat a {top}: a special is beaten only by a higher special"
    if top.is_special:
        return f"a {new} cannot beat a {top}: only a higher special beats a special"
    if new.kind is not top.kind or new.length != top.length:
        return (f"a {new} cannot beat a {top}: an ordinary play is beaten only by the "
                "same kind with as many cards")
    return f"a {new} does not beat a {top}: it needs a higher rank"
