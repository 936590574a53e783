"""Describing a hand for a person: the deal, each decision's answers, the outcome.

Pure text from public information (plus the deal, which a demo or a finished hand
may show); the demo prints it now, the terminal UI and the network table will use
the same lines later.

>>> from p2p_sasaki.sasaki.hand import Play
>>> action_text(Play(2, CardSet.parse("9C 9H")), lead=False)
'S2 plays 9C 9H (pair of 9)'
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from p2p_sasaki.cards import CardSet
from p2p_sasaki.sasaki.bots import Bot, play
from p2p_sasaki.sasaki.combos import classify
from p2p_sasaki.sasaki.hand import (
    Action,
    Chata,
    Decision,
    DecisionKind,
    Decline,
    Expose,
    Hand,
    Kkojda,
    Pass,
    Play,
    Run,
    Stop,
)

__all__ = ["seats_text", "places_text", "action_text", "deal_lines", "step_lines",
           "outcome_lines", "ToldStep", "play_steps"]

_PLACES = ("1st", "2nd", "3rd", "4th")
_DECLINED = {DecisionKind.RUN: "does not run", DecisionKind.STOP: "does not call Stop"}


def seats_text(seats: Sequence[int]) -> str:
    """``S1, S3``; ``nobody`` for none."""
    return ", ".join(f"S{s}" for s in seats) or "nobody"


def places_text(scores: Sequence[int]) -> str:
    return ", ".join(f"S{s} {v:+d}" for s, v in enumerate(scores))


def action_text(action: Action, lead: bool, went_out: bool = False, who: str | None = None,
                you: bool = False) -> str:
    """One action in words; ``went_out``: TH TD that were the last two cards are no Pig;
    ``who``: the seat's words (default ``S2``); ``you``: ``who`` is the reader, so the verbs
    say ``You pass``, not ``passes``.

    >>> action_text(Pass(1), lead=False, who="You", you=True)
    'You pass'
    """
    seat = who if who is not None else f"S{action.seat}"

    def verb(word: str) -> str:    # "plays" / "play"
        return word if not you else {"passes": "pass", "does": "do"}.get(word, word[:-1])

    if isinstance(action, Play):
        mask = action.cards.mask
        combo = classify(mask, mask if went_out else 0)
        return f"{seat} {verb('leads') if lead else verb('plays')} {action.cards} ({combo})"
    if isinstance(action, Pass):
        return f"{seat} {verb('passes')}"
    if isinstance(action, Run):
        return f"{seat} {verb('runs')}, showing {action.cards}: the hand counts double"
    if isinstance(action, Expose):
        return f"{seat} must show {action.cards} too, and the partners swap their red tens"
    if isinstance(action, Stop):
        return f"{seat} {verb('calls')} Stop: the hand counts four times"
    if isinstance(action, Chata):
        return f"{seat} chata! {action.cards} out of turn"
    if isinstance(action, Kkojda):
        return f"{seat} kkojda! {action.cards}: nothing beats it"
    return f"{seat} {verb('declines')}"


def deal_lines(hand: Hand) -> list[str]:
    lines = [f"Lead card {hand.lead_card}; S{hand.first_leader} holds it and plays first."]
    lines += [f"  S{seat}: {CardSet(hand.dealt[seat])}" for seat in range(4)]
    return lines


def step_lines(kind: DecisionKind, answers: Sequence[Action], hand: Hand,
               led: bool, finish_before: Sequence[int]) -> list[str]:
    """What one resolved decision did, told after ``hand`` applied it.

    ``led``: the round had no top before (a play is a lead); ``finish_before``:
    the finishing order before the decision.
    """
    lines = []
    out = [seat for seat in hand.finish[len(finish_before):]]
    for action in answers:
        if isinstance(action, Decline):
            if kind in _DECLINED:
                lines.append(f"S{action.seat} {_DECLINED[kind]}")
            continue
        lines.append(action_text(action, led, went_out=action.seat in out and kind is DecisionKind.TURN))
    for seat in out[:3 - len(finish_before)]:  # the fourth is told in outcome_lines
        lines.append(f"S{seat} goes out ({_PLACES[hand.finish.index(seat)]})")
    if hand.is_over:
        lines.append(f"The hand is over: S{hand.finish[3]} is last.")
    elif kind in (DecisionKind.TURN, DecisionKind.CHATA, DecisionKind.KKOJDA) and hand.top is None:
        lines.append(f"Round over; S{hand.turn} leads.")
    elif kind in (DecisionKind.RUN, DecisionKind.STOP) and hand.decision.kind is DecisionKind.TURN:
        lines.append(f"Multiplier x{hand.multiplier}; S{hand.turn} leads.")
    return lines


def outcome_lines(hand: Hand) -> list[str]:
    """Teams, run and Stop, multiplier, and (once over) finishing order, show and scores."""
    red = hand.red_seats
    black = [s for s in range(4) if s not in red]
    side = "lone red player" if len(red) == 1 else "red partners"
    lines = [f"Teams: {side} {seats_text(red)} against {seats_text(black)}."]
    if hand.runner is not None:
        lines.append(f"S{hand.runner} ran; Stop called by {seats_text(hand.stops)}.")
    lines.append(f"Multiplier: x{hand.multiplier}.")
    if hand.is_over:
        assert hand.scores is not None
        lines.append(f"Finishing order: {seats_text(hand.finish)}.")
        lines.append(f"S{hand.finish[3]} shows {hand.fourth_shows() or 'nothing'}.")
        lines.append(f"Scores: {places_text(hand.scores)}.")
    return lines


@dataclass(frozen=True, slots=True)
class ToldStep:
    """A resolved decision and the lines that tell it (maybe none: declined chances)."""

    decision: Decision
    answers: tuple[Action, ...]
    lines: tuple[str, ...]


def play_steps(hand: Hand, bots: Sequence[Bot]) -> Iterator[ToldStep]:
    """Play ``hand`` to the end with ``bots`` (see :func:`p2p_sasaki.sasaki.bots.play`), telling each step."""
    led, finish = hand.top is None, hand.finish
    for step in play(hand, bots):
        lines = step_lines(step.decision.kind, step.answers, hand, led, finish)
        yield ToldStep(step.decision, step.answers, tuple(lines))
        led, finish = hand.top is None, hand.finish
