"""Sasku's heuristic rules: a club player's rules of thumb, on card masks.

Each rule is a function of what one seat knows (its :class:`Table`: its own cards,
the trick, the cards played, the auction), so the heuristic bot
(:class:`p2p_sasaki.sasku.bots.HeuristicBot`, reading its view) and the search's
rollouts (:mod:`p2p_sasaki.sasku.search`, reading a sampled full deal) play by
exactly the same rules.

>>> from p2p_sasaki.cards import parse_cards
>>> hand = parse_cards("KC QH JD AS TS 9S 7S 8H 6D")
>>> hand_count(hand), Suit(best_suit(hand)).name
(7, 'SPADES')
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache

from p2p_sasaki.cards import Suit
from p2p_sasaki.sasku.deal import (
    Action,
    Bid,
    Deal,
    DecisionKind,
    Diamonds,
    Give,
    Pass,
    Return,
    Take,
    TrumpCall,
    partner_of,
)
from p2p_sasaki.sasku.trumps import CARD_POINTS, PACK, PICTURES, PLAIN, trumps, winner_index

__all__ = ["Table", "table_of", "hand_count", "best_suit", "bidding_action", "return_card",
           "card_to_play", "heuristic_action", "beaten_by", "sure_against", "strength",
           "BID_FROM", "DIAMONDS_FROM", "OVERBID_PARTNER"]

_BID, _ANSWER, _RETURN, _TRUMP, _PLAY, _OVER = DecisionKind
_ACES = PACK & (15 << 44)
_TENS = PACK & (15 << 28)
_BIG = tuple(CARD_POINTS[i] >= 10 for i in range(48))  # aces and tens


# -- the order of cards, from the engine's own trick winner -------------------------------

@cache
def beaten_by(trump: int) -> tuple[int, ...]:
    """Per card index: the mask of the cards that beat it when played after it to a trick
    in which it is winning (higher trumps; for a plain card also the higher cards of its
    suit). Worked out from :func:`p2p_sasaki.sasku.trumps.winner_index`, the one place
    that orders cards.

    >>> from p2p_sasaki.cards import CardSet, Card
    >>> str(CardSet(beaten_by(int(Suit.HEARTS))[Card.parse("KS").index]))
    'KC'
    """
    cards = [i for i in range(48) if PACK >> i & 1]
    table = [0] * 48
    for i in cards:
        for j in cards:
            if j != i and winner_index((i, j), trump) == 1:
                table[i] |= 1 << j
    return tuple(table)


@cache
def sure_against(trump: int) -> tuple[int, ...]:
    """Per card index: the cards that would stop it winning a trick it leads or is winning
    in its own suit, as a player counts them: the higher trumps for a trump, the higher
    cards of its suit for a plain card (the chance of its being trumped left aside)."""
    trump_mask = trumps(trump)
    return tuple(beats if trump_mask >> i & 1 else beats & ~trump_mask
                 for i, beats in enumerate(beaten_by(trump)))


@cache
def strength(trump: int) -> tuple[int, ...]:
    """Per card index, how strong it is with this trump: the number of cards of the pack
    that do not beat it (trumps above every plain card)."""
    return tuple(36 - (beats & PACK).bit_count() for beats in beaten_by(trump))


# -- what a seat knows, on masks -------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Table:
    """What one seat knows at its decision, read off a deal (a view or the full deal:
    only the seat's own cards and public facts are read)."""

    seat: int
    hand: int                   # its cards now
    trick: tuple[int, ...]      # card indices of the current trick, in play order
    played: int                 # every card played (the current trick's included)
    trump: int                  # -1 until named
    declarer: int | None
    high: int                   # the highest bid (0: none)
    bidder: int | None          # its seat
    min_bid: int


def table_of(deal: Deal, seat: int) -> Table:
    """The :class:`Table` of ``seat`` in ``deal``."""
    trump = deal.trump
    return Table(seat, deal.known_cards(seat).mask, tuple(card.index for card in deal.trick),
                 deal.played.mask, -1 if trump is None else int(trump), deal.declarer, deal.high_bid or 0,
                 deal.high_bidder, deal.options.min_bid)


def best_suit(hand: int) -> int:
    """The suit a player would make trump: its longest plain suit, then the most card
    points in it, then the higher suit (clubs > spades > hearts > diamonds)."""
    order = (Suit.CLUBS, Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS)  # max() keeps the first of equals
    return int(max(order, key=lambda s: ((hand & PLAIN[s]).bit_count(), _points(hand & PLAIN[s]))))


def hand_count(hand: int) -> int:
    """The count players bid from: pictures plus the cards of the longest plain suit (the
    trumps the hand would hold with that suit trump)."""
    return (hand & PICTURES).bit_count() + (hand & PLAIN[best_suit(hand)]).bit_count()


def _points(mask: int) -> int:
    total = 0
    while mask:
        low = mask & -mask
        total += CARD_POINTS[low.bit_length() - 1]
        mask ^= low
    return total


# -- the auction --------------------------------------------------------------------------------

BID_FROM = 5          # a count at which a hand bids
DIAMONDS_FROM = 7     # pictures + diamonds at which a hand says diamonds at once
OVERBID_PARTNER = 2   # outbid one's partner only with a count this much above its bid


def bidding_action(table: Table, legal: Sequence[Action]) -> Action:
    """A bidding turn: give a lone picture to a partner who leads the auction; say
    diamonds with pictures and diamonds enough; bid the least that beats the highest bid
    while the count allows (not over a partner without a clear margin); else pass."""
    seat, hand = table.seat, table.hand
    partner = partner_of(seat)
    count = hand_count(hand)
    give = next((a for a in legal if isinstance(a, Give)), None)
    if give is not None and table.bidder == partner and count < table.high + OVERBID_PARTNER:
        return give
    diamonds = (hand & PICTURES).bit_count() + (hand & PLAIN[Suit.DIAMONDS]).bit_count()
    if diamonds >= DIAMONDS_FROM and diamonds >= count - 1:
        return next(a for a in legal if isinstance(a, Diamonds))
    wanted = max(table.min_bid, table.high + 1, BID_FROM)
    margin = OVERBID_PARTNER if table.bidder == partner else 0
    if count >= wanted + margin:
        for action in legal:
            if isinstance(action, Bid) and action.number == max(table.min_bid, table.high + 1):
                return action
    return next(a for a in legal if isinstance(a, Pass))


def return_card(hand: int) -> int:
    """The card to hand back for a picture: no picture, nothing of the suit the hand would
    make trump, the fewest card points, from the shortest suit (to make a void)."""
    best = best_suit(hand)

    def key(index: int) -> tuple[int, int, int, int]:
        suit = index & 3
        return (suit == best, CARD_POINTS[index], (hand & PLAIN[suit]).bit_count(), index >> 2)

    return min((i for i in range(48) if (hand & ~PICTURES) >> i & 1), key=key)


# -- card play -------------------------------------------------------------------------------------

@cache
def _keys(trump: int) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Per card index, with this trump: how cheap it is to give away (aces and tens last,
    then trumps, then card points, then strength), its strength, and how good it is to
    give a partner's trick (plain card points first), each as one number, lowest first."""
    power = strength(trump)
    trump_mask = trumps(trump)
    cheap = tuple(_BIG[i] << 12 | (trump_mask >> i & 1) << 11 | CARD_POINTS[i] << 6 | power[i] for i in range(48))
    gift = tuple((31 - CARD_POINTS[i]) << 6 | power[i] for i in range(48))
    return cheap, power, gift


def _lowest(mask: int, key: Sequence[int]) -> int:
    """The card of ``mask`` with the lowest ``key`` (the lowest index among equals)."""
    best, best_key = -1, 1 << 30
    while mask:
        low = mask & -mask
        index = low.bit_length() - 1
        if key[index] < best_key:
            best, best_key = index, key[index]
        mask ^= low
    return best


def card_to_play(hand: int, legal: int, trick: list[int] | tuple[int, ...], played: int, trump: int,
                 ours: bool) -> int:
    """The card (an index) the heuristic plays of ``legal`` (a mask of ``hand``), ``trick``
    being the card indices played to this trick, ``played`` every card played so far,
    ``ours`` whether this seat's pair declared:

    - leads: a plain ace; the declaring pair draws trumps with a sure-winning trump; else
      a cheap card;
    - second hand: high when a card is sure to win (no unseen card of its suit, or trump,
      beats it: :func:`sure_against`), else low;
    - third and fourth hand: when the partner wins the trick, a plain ace or ten on it (in
      fourth hand, or behind the partner's sure winner); when an opponent wins, the lowest
      card that beats it (trump low); else a cheap card, keeping aces and tens away from
      the opponents' tricks.

    >>> from p2p_sasaki.cards import parse_cards, Card
    >>> hand = parse_cards("AS 7S KD 9H")
    >>> str(Card.from_index(card_to_play(hand, hand, (), 0, int(Suit.HEARTS), False)))
    'AS'
    """
    if legal & (legal - 1) == 0:
        return legal.bit_length() - 1
    beats = beaten_by(trump)
    threats = sure_against(trump)
    cheap, power, gift = _keys(trump)
    trump_mask = trumps(trump)
    unseen = PACK & ~hand & ~played
    if not trick:
        aces = legal & _ACES & ~trump_mask
        if aces:
            # the ace of the suit with the most cards out: the least likely to be trumped
            best, most = -1, -1
            for index in _indices(aces):
                out = (unseen & PLAIN[index & 3]).bit_count()
                if out > most:
                    best, most = index, out
            return best
        held = legal & trump_mask
        if ours and held & (held - 1) and unseen & trump_mask:
            top = held.bit_length() - 1
            for index in _indices(held):
                if power[index] > power[top]:
                    top = index
            if not unseen & threats[top]:
                return top
        return _lowest(legal, cheap)
    position = len(trick)
    at = winner_index(trick, trump)
    winner = trick[at]
    if position - at == 2:  # the partner wins the trick so far
        if position == 3 or not unseen & threats[winner]:
            points = legal & ~trump_mask & (_ACES | _TENS)
            if points:
                return _lowest(points, gift)
        return _lowest(legal, cheap)
    winning = legal & beats[winner]
    if not winning:
        return _lowest(legal, cheap)
    if position == 1:
        sure = 0
        for index in _indices(winning):
            if not unseen & threats[index]:
                sure |= 1 << index
        return _lowest(sure, power) if sure else _lowest(legal, cheap)
    return _lowest(winning, power)


def _indices(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def heuristic_action(deal: Deal, seat: int, legal: Sequence[Action]) -> Action:
    """The heuristic's answer at ``deal``'s decision for ``seat``, reading only what that
    seat knows of ``deal`` (a view, or the full deal in a rollout)."""
    kind = deal.decision.kind
    if kind is _PLAY:
        mask = 0
        for action in legal:
            mask |= 1 << action.card.index  # type: ignore[union-attr]
        table = table_of(deal, seat)
        ours = table.declarer is not None and table.declarer & 1 == seat & 1
        index = card_to_play(table.hand, mask, table.trick, table.played, table.trump, ours)
        return next(a for a in legal if a.card.index == index)  # type: ignore[union-attr]
    hand = deal.known_cards(seat).mask
    if kind is _BID:
        return bidding_action(table_of(deal, seat), legal)
    if kind is _ANSWER:
        return next(a for a in legal if isinstance(a, Take))
    if kind is _RETURN:
        index = return_card(hand)
        return next(a for a in legal if isinstance(a, Return) and a.card is not None and a.card.index == index)
    if kind is _TRUMP:
        suit = best_suit(hand)
        return next(a for a in legal if isinstance(a, TrumpCall) and int(a.suit) == suit)
    return legal[0]
