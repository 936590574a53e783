"""``sasaki replay FILE``: check a game record line by line and summarise it.

With ``--json`` print exactly one JSON object: ``{"ok": true, "complete", "finish",
"red", "multiplier", "scores"}`` (exit 0) or ``{"ok": false, "line", "error"}``
(exit 1). A file that cannot be read is one sentence on stderr and exit 2.
"""

from __future__ import annotations

import argparse
import json
import sys

from p2p_sasaki.cli.commands import COMMANDS
from p2p_sasaki.cli.render import deal_lines, outcome_lines, seats_text
from p2p_sasaki.sasaki.hand import Hand
from p2p_sasaki.sasaki.records import RecordError, replay


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
        with open(args.file, encoding="utf-8-sig") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else "it is not UTF-8 text"
        if isinstance(error, UnicodeDecodeError):
            reason += (f" (a table's transcript is checked with 'sasaki audit {args.file}' and turned into "
                       f"game records with 'sasaki export {args.file}')")
        print(f"sasaki replay: cannot read {args.file}: {reason}.", file=sys.stderr)
        return 2
    try:
        hand = replay(text)
    except RecordError as error:
        if args.json:
            print(json.dumps({"ok": False, "line": error.line, "error": error.message}))
        else:
            print(f"{args.file}:{error.line}: {error.message}")
        return 1
    if args.json:
        print(json.dumps(summary(hand)))
    else:
        print(f"{args.file}: every line is legal.")
        print(describe(hand))
    return 0
