"""Sasku at the table in words: what a presenter (cli/presenter.py) tells of a Sasku deal.

Only public facts: the bids, the give / take / refuse / return exchange (who handed a card
to whom, never which card: only the pair learns it), the trump, the tricks, each pair's card
points and game points, and the race to the target. The presenter calls
:func:`sasku_notes` for every event of a Sasku table; None means "not Sasku's: tell it as
any table's" (connections, the deal's progress, waits, blame).

>>> from p2p_sasaki.cli.presenter import Presenter
>>> from p2p_sasaki.sasku.deal import Bid, Return, Take
>>> p = Presenter(person=False)
>>> action_line(p, Bid(1, 6)), action_line(p, Take(3)), action_line(p, Return(3, None))
('S1 bids 6', 'S3 takes it', 'S3 returns a card to S1')
"""

from __future__ import annotations

from typing import Any

from p2p_sasaki.cards import CardSet
from p2p_sasaki.protocol.events import ActionApplied, Dealt, HandEnded, HandStarted, MatchEnded
from p2p_sasaki.protocol.sasku_game import TEAMS, GiveBack, GiveCall, SaskuOutcome
from p2p_sasaki.sasku.deal import Bid, Diamonds, Give, Pass, Play, Refuse, Return, Take, TrumpCall, partner_of

__all__ = ["sasku_notes", "action_line", "pair_label", "deal_lines", "match_line", "match_over_text", "totals_text"]


def pair_label(presenter: Any, pair: int) -> str:
    """``S0+S2`` (the pair's seats; names where chosen: ``S0 Mina+S2 Bot 3``)."""
    return "+".join(presenter.label(s) for s in TEAMS[pair])


def action_line(presenter: Any, action: Any) -> str | None:
    """A Sasku action as a public fact; None for one that tells nothing new (the give's
    hand-over itself, already told by the public ``give``)."""
    who = presenter.label(action.seat)
    match action:
        case Bid(number=number):
            return f"{who} bids {number}"
        case Pass():
            return f"{who} passes"
        case Diamonds():
            return f"{who} calls diamonds"
        case GiveCall():
            return f"{who} gives a picture to {presenter.label(partner_of(action.seat))}"
        case Give():
            return None
        case Take():
            return f"{who} takes it"
        case Refuse():
            return f"{who} refuses it"
        case Return():
            return f"{who} returns a card to {presenter.label(partner_of(action.seat))}"
        case GiveBack():
            return f"{who} hands the picture back to {presenter.label(partner_of(action.seat))}"
        case TrumpCall(suit=suit):
            return f"{who} calls trump {suit.name.lower()} ({suit.symbol})"
        case Play(card=card):
            return f"{who} {card}"
    return str(action)


def deal_lines(presenter: Any, deal_no: int, outcome: SaskuOutcome, totals: Any, bid: int | None,
               target: int | None) -> list[str]:
    """The end of a deal: the contract, each pair's card points and game points, the match score."""
    if outcome.declarer is None:
        contract = "everyone passed"
    else:
        pair = pair_label(presenter, outcome.declarer % 2)
        what = f"bid {bid}" if bid is not None else "declared"
        trump = f", trump {outcome.trump}" if outcome.trump else ""
        contract = f"{presenter.label(outcome.declarer)} ({pair}) {what}{trump}" + (
            ", diamonds" if outcome.diamonds else "")
    cards = ", ".join(f"{pair_label(presenter, p)} {outcome.card_points[p]}" for p in (0, 1))
    tricks = ", ".join(f"{pair_label(presenter, p)} {outcome.tricks[p]}" for p in (0, 1))
    points = ", ".join(f"{pair_label(presenter, p)} {outcome.points[p]}" for p in (0, 1))
    return [f"Deal {deal_no}: {contract}.",
            f"  Card points: {cards}; tricks: {tricks}.",
            f"  Game points: {points}.",
            match_line(presenter, totals, target)]


def match_line(presenter: Any, totals: Any, target: int | None) -> str:
    """``Match: S0+S2 4, S1+S3 7 (to 12).``"""
    score = ", ".join(f"{pair_label(presenter, p)} {totals[TEAMS[p][0]]}" for p in (0, 1))
    return f"  Match: {score}" + (f" (to {target})." if target else ".")


def match_over_text(presenter: Any, totals: Any, yours: bool = False) -> str:
    """The match's end in pairs: ``The match is over: S0+S2 win 12 to 7.`` (``a draw, 6
    each``); ``yours``: a seated person is also told ``Your pair won.`` (or lost).

    >>> from p2p_sasaki.cli.presenter import Presenter
    >>> match_over_text(Presenter(person=False), (12, 7, 12, 7))
    'The match is over: S0+S2 win 12 to 7.'
    """
    pairs = [totals[TEAMS[p][0]] for p in (0, 1)]
    if pairs[0] == pairs[1]:
        return f"The match is over: a draw, {pairs[0]} each."
    best = 0 if pairs[0] > pairs[1] else 1
    text = f"The match is over: {pair_label(presenter, best)} win {pairs[best]} to {pairs[1 - best]}."
    if yours and presenter.you is not None:
        text += " Your pair won." if presenter.you % 2 == best else " Your pair lost."
    return text


def totals_text(totals: Any) -> str:
    """A match's totals by pair, for the closing line: ``S0+S2 12, S1+S3 7 (game points)``.

    >>> totals_text((12, 7, 12, 7))
    'S0+S2 12, S1+S3 7 (game points)'
    """
    return ", ".join(f"S{TEAMS[p][0]}+S{TEAMS[p][1]} {totals[TEAMS[p][0]]}" for p in (0, 1)) + " (game points)"


def _target(session: Any) -> int | None:
    game = getattr(getattr(session, "config", None), "game", None)
    return getattr(getattr(game, "options", None), "target", None)


def sasku_notes(presenter: Any, event: Any, session: Any) -> tuple[list[tuple[str, str]], str | None] | None:
    """The presenter's notes for ``event`` at a Sasku table as (text, note kind) pairs, with the
    name of the presenter's phase it moves to (None: it stays), or None (tell it as any
    table's). The presenter makes them its Notes (this module does not import it)."""
    match event:
        case HandStarted():
            presenter.sasku_bid, presenter.sasku_trick = None, []
            return None   # the deal's start is told as any table's
        case Dealt(cards=cards):
            if not isinstance(cards, CardSet):
                return None
            presenter.progress, presenter.result = None, None
            presenter.deal_steps = {}
            whose = "Your" if presenter.person or presenter.you is None else f"{presenter.label(presenter.you)}'s"
            return [(f"{whose} cards: {cards}", "info")], "PLAYING"
        case ActionApplied(action=action):
            if isinstance(action, Bid):
                presenter.sasku_bid = action.number
            if isinstance(action, Play):
                trick = getattr(presenter, "sasku_trick", [])
                trick.append(action_line(presenter, action))
                presenter.sasku_trick = trick
                if len(trick) < 4:
                    return [], None
                presenter.sasku_trick = []
                return [("Trick: " + ", ".join(trick), "play")], None
            line = action_line(presenter, action)
            return ([] if line is None else [(line, "play")]), None
        case HandEnded(hand_no=hand_no, outcome=SaskuOutcome() as outcome, scores=scores, totals=totals,
                       penalty=penalty):
            hand_no += presenter.hand_offset
            presenter.awaited, presenter.waiting = frozenset(), ""
            presenter.rows.append((hand_no, tuple(scores)))
            presenter.totals = tuple(totals)
            lines = deal_lines(presenter, hand_no, outcome, totals, getattr(presenter, "sasku_bid", None),
                               _target(session))
            if penalty is not None:   # docs/rules-sasku.md: a rule broken with hidden cards, found at the reveal
                other = pair_label(presenter, 1 - penalty.seat % 2)
                lines.insert(0, f"Deal {hand_no}: {presenter.label(penalty.seat)} broke a rule with hidden cards, "
                             f"found when the keys were revealed ({penalty.reason}); {other} score 6.")
            return [(line, "score") for line in lines], "HAND_OVER"
        case MatchEnded(totals=totals):
            presenter.totals = tuple(totals)
            presenter.awaited, presenter.offline, presenter.waiting = frozenset(), (), ""
            return [(match_over_text(presenter, totals), "score")], "MATCH_OVER"
    return None
