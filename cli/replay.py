"""``sasaki replay FILE``: check a game record line by line and summarise it.

With ``--json`` print exactly one JSON object: ``{"ok": true, "complete", "finish",
"red", "multiplier", "scores"}`` (exit 0) or ``{"ok": false, "line", "error"}``
(exit 1). A file that cannot be read is one sentence on stderr and exit 2.
"""

from __future__ import annotations

import argparse
import json
import sys

from p2p_sasaki.cards import CardSet
from p2p_sasaki.hand import Hand
from p2p_sasaki.records import RecordError, replay


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "replay", help="check a game record and summarise the hand",
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
    lines = [f"Lead card {hand.lead_card}; S{hand.first_leader} holds it and plays first."]
    for seat in range(4):
        lines.append(f"  S{seat}: {CardSet(hand.dealt[seat])}")
    lines.append("Actions:")
    lines += [f"  {action}" for action in hand.history] or ["  (none)"]
    red = hand.red_seats
    black = [s for s in range(4) if s not in red]
    side = "lone red player" if len(red) == 1 else "red partners"
    lines.append(f"Teams: {side} {', '.join(f'S{s}' for s in red)} against "
                 f"{', '.join(f'S{s}' for s in black)}.")
    if hand.runner is not None:
        stops = ", ".join(f"S{s}" for s in hand.stops) or "nobody"
        lines.append(f"S{hand.runner} ran; Stop called by {stops}.")
    lines.append(f"Multiplier: x{hand.multiplier}.")
    if hand.is_over:
        lines.append("Finishing order: " + ", ".join(f"S{s}" for s in hand.finish) + ".")
        lines.append(f"S{hand.finish[3]} shows {hand.fourth_shows() or 'nothing'}.")
        assert hand.scores is not None
        lines.append("Scores: " + ", ".join(f"S{s} {v:+d}" for s, v in enumerate(hand.scores)) + ".")
    else:
        done = ", ".join(f"S{s}" for s in hand.finish) or "nobody"
        lines.append(f"The record stops before the end of the hand; gone out so far: {done}; "
                     f"next: {hand.decision.kind.value} for "
                     f"{', '.join(f'S{s}' for s in hand.decision.seats)}.")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    try:
        with open(args.file, encoding="utf-8-sig") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else "it is not UTF-8 text"
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
