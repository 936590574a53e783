"""``sasaki simulate``: bots play many hands in this process; win rates per seat.

Engine only (no network, no cryptography): deals come from ``random.Random(seed)``,
each seat's bot gets its own rng seeded from the seed and the seat, so a seed gives
the same hands and the same figures every time (only hands per second varies).

``--game sasku`` plays Sasku instead (cli/simulate_sasku.py: deals between two pairs
of bots). ``--jobs N`` spreads the deals of a duplicate match over N processes, with
the same figures as one (every deal has its own seeds).

``--duplicate`` removes the luck of the deal, the way card tournaments do: every
deal is played four times, the bots moved one seat on each time, so each bot plays
every seat of every deal. Each bot's rng is seeded from the seed, the deal and the
bot (not the seat), so the same bot makes the same choices in the same position.
Per bot: mean points per hand and a 95% interval (normal, over deals, each deal
counted once as the mean of its four rotations).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass, field
from functools import partial
from random import Random

from p2p_sasaki.cli.batches import Interval, over_deals
from p2p_sasaki.cli.commands import COMMANDS
from p2p_sasaki.sasaki.bots import BOTS, Bot, make_bot, play_hand
from p2p_sasaki.sasaki.hand import Hand
from p2p_sasaki.sasaki.options import TableOptions
from p2p_sasaki.sasaki.search import DEFAULT_LEVEL, LEVELS
from p2p_sasaki.sasku.search import LEVELS as SASKU_LEVELS

clock = time.perf_counter  # tests replace it

GAMES = ("sasaki", "sasku")
DEFAULT_SEATS = {"sasaki": "heuristic,random,random,random", "sasku": "heuristic,random,heuristic,random"}


def seat_kinds(text: str) -> list[str]:
    """``heuristic,random,random,random`` -> four bot names (argparse type)."""
    kinds = [k.strip().lower() for k in text.split(",")]
    if len(kinds) != 4 or any(k not in BOTS for k in kinds):
        raise argparse.ArgumentTypeError(
            f"{text!r}: give four bots separated by commas, each one of {', '.join(BOTS)}")
    return kinds


def make_bots(kinds: list[str], seed: int, level: int = DEFAULT_LEVEL) -> list[Bot]:
    """One bot per seat, each with its own rng derived from ``seed`` and the seat."""
    return [make_bot(kind, Random(f"{seed}/seat{seat}"), level) for seat, kind in enumerate(kinds)]


def add_level_option(parser: argparse.ArgumentParser) -> None:
    levels = ", ".join(f"{level}: {count}" for level, count in LEVELS.items())
    parser.add_argument("--level", type=int, choices=sorted(LEVELS), default=DEFAULT_LEVEL,
                        metavar="L", help=f"strength of search bots, as rollouts per decision ({levels}; "
                        f"default {DEFAULT_LEVEL})")


def add_seat_options(parser: argparse.ArgumentParser, default_seats: str) -> None:
    parser.add_argument("--seats", type=seat_kinds, default=seat_kinds(default_seats),
                        metavar="BOTS", help=f"four bots, seat 0 first, from {', '.join(BOTS)} "
                        f"(default {default_seats})")
    add_level_option(parser)
    parser.add_argument("--lead", choices=("3H", "3S"), default="3H",
                        help="the opening 3 whose holder plays first (default 3H)")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "simulate", help=COMMANDS["simulate"],
        description="Play N hands between four bots in this process (engine only, random "
                    "deals from the seed) and print per seat: how often it went out first, "
                    "its average score, and how often the red side won (scored above zero) in "
                    "the hands it was dealt a red ten; then hands per second. With --game sasku: "
                    "N deals between the pairs S0+S2 and S1+S3, each pair's mean game points per "
                    "deal (its points minus the other pair's), then deals per second.")
    parser.add_argument("--game", choices=GAMES, default="sasaki",
                        help="the game the bots play (default sasaki)")
    parser.add_argument("--hands", type=int, default=1000, metavar="N",
                        help="number of hands, or of deals for Sasku (default 1000)")
    parser.add_argument("--seats", type=seat_kinds, default=None, metavar="BOTS",
                        help=f"four bots, seat 0 first, from {', '.join(BOTS)} (default "
                             f"{DEFAULT_SEATS['sasaki']}; for Sasku {DEFAULT_SEATS['sasku']}: S0 and S2 "
                             "are one pair, S1 and S3 the other)")
    levels = ", ".join(f"{level}: {count}" for level, count in LEVELS.items())
    sasku_levels = ", ".join(f"{level}: {count}" for level, count in SASKU_LEVELS.items())
    parser.add_argument("--level", type=int, choices=sorted(LEVELS), default=DEFAULT_LEVEL, metavar="L",
                        help=f"strength of search bots, as rollouts per decision ({levels}; for Sasku "
                             f"{sasku_levels}; default {DEFAULT_LEVEL})")
    parser.add_argument("--lead", choices=("3H", "3S"), default="3H",
                        help="Sasaki: the opening 3 whose holder plays first (default 3H)")
    parser.add_argument("--seed", type=int, default=1, help="seed of deals and bots (default 1)")
    parser.add_argument("--duplicate", action="store_true",
                        help="duplicate match: play each of the N deals once per rotation of the seats, "
                             "so every bot plays every seat of every deal; print each bot's mean points "
                             "per hand with a 95%% interval; for Sasku each deal is played twice, the "
                             "pairs' bots swapped, and each pair of bots gets its mean game points "
                             "per deal with a 95%% interval")
    parser.add_argument("--jobs", type=int, default=1, metavar="N",
                        help="processes that play the deals side by side, with the same figures "
                             "(--duplicate or Sasku; default 1)")
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


def simulate(kinds: list[str], hands: int, seed: int, lead: str = "3H",
             level: int = DEFAULT_LEVEL) -> Tally:
    deals = Random(seed)
    bots = make_bots(kinds, seed, level)
    options = TableOptions(lead_card=lead)
    tally = Tally([SeatTally(kind) for kind in kinds])
    start = clock()
    for _ in range(hands):
        tally.add(play_hand(Hand.random(deals, lead, options), bots))
    tally.seconds = clock() - start
    return tally


def _rate(part: int, whole: float) -> float:
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


# -- duplicate matches -------------------------------------------------------------------

def deal_seed(seed: int, deal: int) -> str:
    """The seed of deal number ``deal`` (its cards and every bot's rng in it)."""
    return f"{seed}/deal{deal}"


def play_rotation(kinds: list[str], seed: str, rotation: int, lead: str = "3H",
                  level: int = DEFAULT_LEVEL) -> tuple[int, int, int, int]:
    """One rotation of a deal: bot ``i`` (``kinds[i]``, its rng seeded from ``seed`` and
    ``i``) sits in seat ``(i + rotation) % 4``. Each bot's score (by bot, not seat)."""
    bots: list[Bot | None] = [None] * 4
    for i, kind in enumerate(kinds):
        bots[(i + rotation) % 4] = make_bot(kind, Random(f"{seed}/bot{i}"), level)
    options = TableOptions(lead_card=lead)
    hand = play_hand(Hand.random(Random(seed), lead, options), bots)  # type: ignore[arg-type]
    scores = hand.scores
    assert scores is not None
    return (scores[rotation % 4], scores[(1 + rotation) % 4], scores[(2 + rotation) % 4],
            scores[(3 + rotation) % 4])


def play_deal(kinds: list[str], seed: str, lead: str = "3H",
              level: int = DEFAULT_LEVEL) -> tuple[float, float, float, float]:
    """Each bot's mean score over the four rotations of one deal."""
    totals = [0, 0, 0, 0]
    for rotation in range(4):
        for i, score in enumerate(play_rotation(kinds, seed, rotation, lead, level)):
            totals[i] += score
    return (totals[0] / 4, totals[1] / 4, totals[2] / 4, totals[3] / 4)


@dataclass
class Duplicate:
    kinds: list[str]
    per_deal: list[tuple[float, float, float, float]] = field(default_factory=list)
    seconds: float = 0.0

    def interval(self, bot: int) -> Interval:
        return Interval.of([deal[bot] for deal in self.per_deal])


def _play_numbered_deal(kinds: list[str], seed: int, lead: str, level: int,
                        deal: int) -> tuple[float, float, float, float]:
    return play_deal(kinds, deal_seed(seed, deal), lead, level)


def duplicate(kinds: list[str], deals: int, seed: int, lead: str = "3H",
              level: int = DEFAULT_LEVEL, jobs: int = 1) -> Duplicate:
    result = Duplicate(list(kinds))
    start = clock()
    result.per_deal = over_deals(partial(_play_numbered_deal, kinds, seed, lead, level), deals, jobs)
    result.seconds = clock() - start
    return result


def _round(value: float) -> float | None:
    return round(value, 4) if math.isfinite(value) else None


def duplicate_json(result: Duplicate, seed: int, level: int) -> dict[str, object]:
    bots = []
    for i, kind in enumerate(result.kinds):
        iv = result.interval(i)
        bots.append({"bot": i, "kind": kind, "mean": _round(iv.mean),
                     "ci95": [_round(iv.low), _round(iv.high)]})
    return {"deals": len(result.per_deal), "hands": 4 * len(result.per_deal), "seed": seed,
            "level": level if "search" in result.kinds else None, "bots": bots}


def duplicate_text(result: Duplicate, seed: int, level: int) -> str:
    n = len(result.per_deal)
    search = f", search level {level} ({LEVELS[level]} rollouts)" if "search" in result.kinds else ""
    lines = [f"{n} deals x 4 rotations = {4 * n} hands, seed {seed}{search}.",
             "bot  kind       points per hand  95% interval"]
    for i, kind in enumerate(result.kinds):
        iv = result.interval(i)
        lines.append(f"B{i}   {kind:<9}  {iv.mean:+15.3f}  [{iv.low:+.3f}, {iv.high:+.3f}]")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if args.hands < 1:
        print(f"sasaki simulate: --hands must be at least 1, not {args.hands}.", file=sys.stderr)
        return 2
    if args.jobs < 1:
        print("sasaki simulate: --jobs must be at least 1.")
        return 2
    if args.seats is None:
        args.seats = seat_kinds(DEFAULT_SEATS[args.game])
    if args.game == "sasku":
        from p2p_sasaki.cli.simulate_sasku import run as run_sasku
        return run_sasku(args)
    if args.duplicate:
        result = duplicate(args.seats, args.hands, args.seed, args.lead, args.level, args.jobs)
        print(json.dumps(duplicate_json(result, args.seed, args.level)) if args.json
              else duplicate_text(result, args.seed, args.level))
        return 0
    tally = simulate(args.seats, args.hands, args.seed, args.lead, args.level)
    print(json.dumps(as_json(tally, args.seed)) if args.json else as_text(tally, args.seed))
    return 0
