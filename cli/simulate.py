"""``sasaki simulate``: bots play many hands in this process; win rates per seat.

Engine only (no network, no cryptography): deals come from ``random.Random(seed)``,
each seat's bot gets its own rng seeded from the seed and the seat, so a seed gives
the same hands and the same figures every time (only hands per second varies).
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass, field
from random import Random

from p2p_sasaki.bots import BOTS, Bot, play_hand
from p2p_sasaki.hand import Hand
from p2p_sasaki.options import TableOptions

clock = time.perf_counter  # tests replace it


def seat_kinds(text: str) -> list[str]:
    """``heuristic,random,random,random`` -> four bot names (argparse type)."""
    kinds = [k.strip().lower() for k in text.split(",")]
    if len(kinds) != 4 or any(k not in BOTS for k in kinds):
        raise argparse.ArgumentTypeError(
            f"{text!r}: give four bots separated by commas, each one of {', '.join(BOTS)}")
    return kinds


def make_bots(kinds: list[str], seed: int) -> list[Bot]:
    """One bot per seat, each with its own rng derived from ``seed`` and the seat."""
    return [BOTS[kind](Random(f"{seed}/seat{seat}")) for seat, kind in enumerate(kinds)]


def add_seat_options(parser: argparse.ArgumentParser, default_seats: str) -> None:
    parser.add_argument("--seats", type=seat_kinds, default=seat_kinds(default_seats),
                        metavar="BOTS", help=f"four bots, seat 0 first, from {', '.join(BOTS)} "
                        f"(default {default_seats})")
    parser.add_argument("--lead", choices=("3H", "3S"), default="3H",
                        help="the opening 3 whose holder plays first (default 3H)")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "simulate", help="let bots play many hands and compare them",
        description="Play N hands between four bots in this process (engine only, random "
                    "deals from the seed) and print per seat: how often it went out first, "
                    "its average score, and how often the red side won (scored above zero) in "
                    "the hands it was dealt a red ten; then hands per second.")
    parser.add_argument("--hands", type=int, default=1000, metavar="N",
                        help="number of hands (default 1000)")
    add_seat_options(parser, "heuristic,random,random,random")
    parser.add_argument("--seed", type=int, default=1, help="seed of deals and bots (default 1)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead")
    parser.set_defaults(func=run)


@dataclass
class SeatTally:
    bot: str
    first_out: int = 0
    score: int = 0
    red_hands: int = 0
    red_wins: int = 0


@dataclass
class Tally:
    seats: list[SeatTally]
    hands: int = 0
    seconds: float = 0.0
    multipliers: dict[int, int] = field(default_factory=dict)

    def add(self, hand: Hand) -> None:
        assert hand.scores is not None
        self.hands += 1
        self.seats[hand.finish[0]].first_out += 1
        self.multipliers[hand.multiplier] = self.multipliers.get(hand.multiplier, 0) + 1
        for seat, score in enumerate(hand.scores):
            tally = self.seats[seat]
            tally.score += score
            if seat in hand.red_seats:
                tally.red_hands += 1
                tally.red_wins += score > 0


def simulate(kinds: list[str], hands: int, seed: int, lead: str = "3H") -> Tally:
    deals = Random(seed)
    bots = make_bots(kinds, seed)
    options = TableOptions(lead_card=lead)
    tally = Tally([SeatTally(kind) for kind in kinds])
    start = clock()
    for _ in range(hands):
        tally.add(play_hand(Hand.random(deals, lead, options), bots))
    tally.seconds = clock() - start
    return tally


def _rate(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def as_json(tally: Tally, seed: int) -> dict[str, object]:
    n = tally.hands
    return {
        "hands": n, "seed": seed,
        "seats": [{"seat": seat, "bot": t.bot, "first_out_rate": round(_rate(t.first_out, n), 4),
                   "average_score": round(_rate(t.score, n), 4), "red_hands": t.red_hands,
                   "red_win_rate": round(_rate(t.red_wins, t.red_hands), 4)}
                  for seat, t in enumerate(tally.seats)],
        "multipliers": {f"x{m}": count for m, count in sorted(tally.multipliers.items())},
        "hands_per_second": round(_rate(n, tally.seconds)) if tally.seconds else None,
    }


def as_text(tally: Tally, seed: int) -> str:
    n = tally.hands
    lines = [f"{n} hands, seed {seed}.",
             "seat  bot        first out  avg score  red hands  red side won"]
    for seat, t in enumerate(tally.seats):
        lines.append(f"S{seat}    {t.bot:<9}  {_rate(t.first_out, n):8.1%}  {_rate(t.score, n):+9.3f}"
                     f"  {t.red_hands:9d}  {_rate(t.red_wins, t.red_hands):11.1%}")
    lines.append("Multipliers: " + ", ".join(f"x{m} {count}" for m, count in sorted(tally.multipliers.items())) + ".")
    speed = f"{_rate(n, tally.seconds):.0f}" if tally.seconds else "-"
    lines.append(f"{speed} hands per second.")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if args.hands < 1:
        print("sasaki simulate: --hands must be at least 1.")
        return 2
    tally = simulate(args.seats, args.hands, args.seed, args.lead)
    print(json.dumps(as_json(tally, args.seed)) if args.json else as_text(tally, args.seed))
    return 0
