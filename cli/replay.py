"""``sasaki replay FILE``: check a game record line by line and summarise it.

The record's ``Game`` tag picks the rules (none: Sasaki; ``[Game "sasku"]``: Sasku).
With ``--json`` print exactly one JSON object: for Sasaki ``{"ok": true, "complete",
"finish", "red", "multiplier", "scores"}``, for Sasku ``{"ok": true, "complete",
"declarer", "trump", "diamonds", "card_points", "tricks", "points"}`` (exit 0), or
``{"ok": false, "line", "error"}`` (exit 1). A file that cannot be read is one sentence
on stderr and exit 2.
"""

from __future__ import annotations

import argparse
import json
import sys

from p2p_sasaki.cli.commands import COMMANDS
from p2p_sasaki.cli.render import deal_lines, outcome_lines, seats_text
from p2p_sasaki.records import RecordError, game_of
from p2p_sasaki.sasaki.hand import Hand
from p2p_sasaki.sasaki.records import replay
from p2p_sasaki.sasku import records as sasku_records
from p2p_sasaki.sasku.deal import Deal


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "replay", help=COMMANDS["replay"],
        description="Check every line of a game record against the rules and print the "
                    "deal, plays, finishing order, teams, multiplier and scores.")
    parser.add_argument("file", metavar="FILE", help="a game record (see docs/records.md)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead")
    parser.set_defaults(func=run)


def summary(hand: Hand) -> dict[str, object]:
    return {
        "ok": True,
        "complete": hand.is_over,
        "finish": list(hand.finish),
        "red": list(hand.red_seats),
        "multiplier": hand.multiplier,
        "scores": list(hand.scores) if hand.scores is not None else None,
    }


def sasku_summary(deal: Deal) -> dict[str, object]:
    """The ``--json`` object of a legal Sasku record (docs/records.md)."""
    trump = deal.trump
    points = deal.points
    return {
        "ok": True,
        "complete": deal.is_over,
        "declarer": deal.declarer,
        "trump": trump.symbol if trump is not None else None,
        "diamonds": deal.diamonds,
        "card_points": list(deal.card_points),
        "tricks": list(deal.tricks),
        "points": list(points) if points is not None else None,
    }


def sasku_describe(deal: Deal) -> str:
    lines = [f"Sasku, deal {deal.deal_number}: dealer S{deal.dealer}, forehand S{deal.forehand}."]
    lines += [f"  S{seat}: {deal.dealt(seat)}" for seat in range(4)]
    lines.append("Actions:")
    lines += [f"  {action}" for action in deal.history] or ["  (none)"]
    if deal.auction_over:
        game = "all passed: üleküla, diamonds trump" if deal.ulekula else f"declarer S{deal.declarer}"
        trump = deal.trump
        lines.append(f"Auction: {game}; trump {trump.name.lower() if trump is not None else 'not named yet'}.")
    lines.append(f"Tricks: pair 0 (S0, S2) {deal.tricks[0]}, pair 1 (S1, S3) {deal.tricks[1]}; card points "
                 f"{deal.card_points[0]} - {deal.card_points[1]}.")
    points = deal.points
    if points is not None:
        lines.append(f"Game points: pair 0 {points[0]}, pair 1 {points[1]}"
                     + (" (pokk: 60-60, nobody scores)." if points == (0, 0) else "."))
    else:
        decision = deal.decision
        lines.append(f"The record stops before the end of the deal; next: {decision.kind.value} for S{decision.seat}.")
    return "\n".join(lines)


def describe(hand: Hand) -> str:
    lines = deal_lines(hand)
    lines.append("Actions:")
    lines += [f"  {action}" for action in hand.history] or ["  (none)"]
    lines += outcome_lines(hand)
    if not hand.is_over:
        lines.append(f"The record stops before the end of the hand; gone out so far: "
                     f"{seats_text(hand.finish)}; next: {hand.decision.kind.value} for "
                     f"{', '.join(f'S{s}' for s in hand.decision.seats)}.")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    try:
        # newline="": a lone CR stays inside its line (docs/records.md counts \n-separated lines)
        with open(args.file, encoding="utf-8-sig", newline="") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else "it is not UTF-8 text"
        if isinstance(error, UnicodeDecodeError):
            reason += (f" (a table's transcript is checked with 'sasaki audit {args.file}' and turned into "
                       f"game records with 'sasaki export {args.file}')")
        print(f"sasaki replay: cannot read {args.file}: {reason}.", file=sys.stderr)
        return 2
    try:
        if game_of(text) == sasku_records.GAME:
            deal = sasku_records.replay(text)
            result, readable = sasku_summary(deal), lambda: sasku_describe(deal)
        else:
            hand = replay(text)
            result, readable = summary(hand), lambda: describe(hand)
    except RecordError as error:
        if args.json:
            print(json.dumps({"ok": False, "line": error.line, "error": error.message}))
        else:
            print(f"{args.file}:{error.line}: {error.message}")
        return 1
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{args.file}: every line is legal.")
        print(readable())
    return 0
