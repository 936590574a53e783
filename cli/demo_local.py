"""``sasaki demo --local``: four bots play a hand (or a short match) here, told play by play.

Everything runs in this process on the engine alone; the network table will later
replace it with four peers over the real protocol, printing with the same
``cli.render`` lines. The game record is printed at the end, or written with
``--record FILE`` (one file per hand: ``FILE``, or ``name-2.ext``... for a match);
either way it passes ``sasaki replay``.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Iterator, Sequence
from pathlib import Path

from p2p_sasaki.cli.render import deal_lines, outcome_lines, places_text, play_steps
from p2p_sasaki.cli.simulate import add_seat_options, make_bots
from p2p_sasaki.sasaki.bots import Bot
from p2p_sasaki.sasaki.hand import DecisionKind, Hand, random_deal
from p2p_sasaki.sasaki.match import Match
from p2p_sasaki.sasaki.options import TableOptions
from p2p_sasaki.sasaki.records import write_record


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "demo", help="watch four bots play a hand, play by play",
        description="Four bots play one hand (or --hands N for a short match) in this "
                    "process; every deal, declaration, play, pass, chata and kkojda is "
                    "printed, then the finishing order, teams, multiplier and scores, and "
                    "the game record (or --record FILE writes it).")
    add_seat_options(parser, "heuristic,heuristic,heuristic,heuristic")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed of the deal and the bots (default: a new one, printed)")
    parser.add_argument("--hands", type=int, default=1, metavar="N", help="hands to play (default 1)")
    parser.add_argument("--record", metavar="FILE",
                        help="write the game record here instead of printing it "
                             "(a match writes FILE for hand 1, then name-2.ext, ...)")
    parser.set_defaults(func=run)


def record_path(base: str, number: int) -> Path:
    path = Path(base)
    return path if number == 1 else path.with_name(f"{path.stem}-{number}{path.suffix}")


def run(args: argparse.Namespace) -> int:
    if args.hands < 1:
        print("sasaki demo: --hands must be at least 1.")
        return 2
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1_000_000)
    kinds = args.seats
    print(f"Seed {seed}: " + ", ".join(f"S{s} {kind}" for s, kind in enumerate(kinds)) + ".")
    deals = random.Random(seed)
    bots = make_bots(kinds, seed, args.level)
    match = Match(args.lead, TableOptions(lead_card=args.lead))
    for number in range(1, args.hands + 1):
        hand = match.start_hand(random_deal(deals))
        print()
        print(f"Hand {number}. " + deal_lines(hand)[0])
        print("Deal:")
        print("\n".join(deal_lines(hand)[1:]))
        print("Declaration:")
        for line in narrate(hand, bots):
            print(line)
        print("\n".join(outcome_lines(hand)))
        record = write_record(hand)
        if args.record:
            path = record_path(args.record, number)
            path.write_text(record, encoding="utf-8")
            print(f"Record written to {path}.")
        else:
            print("Record:")
            print(record, end="")
    if args.hands > 1:
        leaders = ", ".join(f"S{s}" for s in match.leaders())
        print()
        print(f"Match of {args.hands} hands: {places_text(match.totals)}; "
              f"highest total: {leaders}.")
    return 0


def narrate(hand: Hand, bots: Sequence[Bot]) -> Iterator[str]:
    """Play ``hand`` with ``bots``, yielding the lines that tell it (indented by two)."""
    heading = False
    for step in play_steps(hand, bots):
        if not heading and step.decision.kind is DecisionKind.TURN:
            heading = True
            yield "Play:"
        yield from (f"  {line}" for line in step.lines)
