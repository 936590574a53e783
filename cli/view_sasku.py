"""``sasaki view`` of a Sasku transcript (cli/view.py): the steps of one verified deal.

A verified deal's keys are revealed, so every card is anyone's to see: the replay shows
each seat's nine cards, every bid, the picture giving with its cards ("S1 gives QH to S3",
"S3 returns 7C to S1"), the trump, each card to the trick and who wins it, and the deal's
card points, tricks and game points for each pair. Built from the audit's full deal (its
dealt cards and history) by the engine (p2p_sasaki.sasku.deal), one step per action.
"""

from __future__ import annotations

from typing import Any

from p2p_sasaki.sasku.deal import (
    Bid,
    Deal,
    DecisionKind,
    Diamonds,
    Give,
    Pass,
    Play,
    Refuse,
    Return,
    Take,
    TrumpCall,
    apply,
    partner_of,
)
from p2p_sasaki.sasku.trumps import winner_index

SEATS = 4
_NEXT = {DecisionKind.BID: "to bid", DecisionKind.ANSWER: "to take or refuse the picture",
         DecisionKind.RETURN: "to hand a card back", DecisionKind.TRUMP: "to name the trump",
         DecisionKind.PLAY: "to play"}


def _pair(labels: tuple[str, ...], pair: int) -> str:
    return f"{labels[pair]}+{labels[pair + 2]}"


def _action_text(action: Any, before: Deal, labels: tuple[str, ...]) -> str:
    who = labels[action.seat]
    partner = labels[partner_of(action.seat)]
    match action:
        case Bid(number=number):
            return f"{who} bids {number}."
        case Pass():
            return f"{who} passes."
        case Diamonds():
            return f"{who} calls diamonds."
        case Give(card=card):
            return f"{who} gives {card} to {partner} (face down: only the pair saw it at the table)."
        case Take():
            return f"{who} takes it."
        case Refuse():
            return f"{who} refuses it: {before.given} goes back to {partner}, face down."
        case Return(card=card):
            return f"{who} returns {card} to {partner} (face down)."
        case TrumpCall(suit=suit):
            return f"{who} names trump {suit.name.lower()}."
        case Play(card=card):
            return f"{who} plays {card}."
    return f"{action}."


def _next_text(deal: Deal, labels: tuple[str, ...]) -> str:
    decision = deal.decision
    if decision.seat is None:
        return "The deal is over."
    return f"{labels[decision.seat]}'s turn {_NEXT.get(decision.kind, '')}.".replace(" .", ".")


def deal_steps(number: int, full: Deal, labels: tuple[str, ...], step: Any) -> list[Any]:
    """Every step of the finished deal ``full`` (every card known), numbered ``number``;
    ``step`` makes a step (cli/view.py's ViewStep)."""

    def table(deal: Deal, text: str, trick: tuple[Any, ...], trick_text: str) -> Any:
        return step(number, text, tuple(tuple(str(c) for c in deal.cards(s)) for s in range(SEATS)),
                    tuple(str(c) for c in trick), trick_text, _next_text(deal, labels))

    before = Deal([full.dealt(s) for s in range(SEATS)], full.deal_number, full.options)
    dealt = "; ".join(f"{labels[s]} {full.dealt(s)}" for s in range(SEATS))
    steps = [table(before, f"Deal {number} is dealt ({labels[before.dealer]} deals, {labels[before.forehand]} "
                           f"bids first): {dealt}.", (), "")]
    trick: list[tuple[int, Any]] = []
    for action in full.history:
        after = apply(before, action)
        text = _action_text(action, before, labels)
        if isinstance(action, Play):
            if len(trick) == SEATS:
                trick = []
            trick.append((action.seat, action.card))
            if len(trick) == SEATS:
                trump = before.trump
                assert trump is not None    # cards are played once the trump is named
                winner = trick[winner_index([card.index for _, card in trick], int(trump))][0]
                text += f" {labels[winner]} wins the trick ({_pair(labels, winner % 2)})."
        if after.is_over:
            points = after.points or (0, 0)
            text += (" The deal is over: card points " + ", ".join(
                f"{_pair(labels, p)} {after.card_points[p]}" for p in (0, 1)) + "; tricks " + ", ".join(
                f"{_pair(labels, p)} {after.tricks[p]}" for p in (0, 1)) + "; game points " + ", ".join(
                f"{_pair(labels, p)} {points[p]}" for p in (0, 1)) + ".")
        trick_text = ("The trick: " + ", ".join(f"{labels[s]} {c}" for s, c in trick)) if trick else ""
        steps.append(table(after, text, tuple(c for _, c in trick), trick_text))
        before = after
    return steps
