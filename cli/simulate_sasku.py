"""``sasaki simulate --game sasku``: bots play Sasku deals between two pairs.

Seats S0 and S2 are one pair, S1 and S3 the other; ``--seats A,B,A,B`` names the bot
of each seat and ``--hands N`` counts deals. Deal ``d`` (0-based) is deal number ``d``
of a match (so forehand moves round), its cards drawn from the seed and ``d``, and
every bot's rng seeded from the seed, the deal and the bot: any deal can be played
alone, so ``--jobs`` spreads the deals over processes with the same figures.

Per pair of bots: the mean game points per deal, its pair's points minus the other
pair's (a line's result, -6..+6), with a normal 95% interval over deals. With
``--duplicate`` every deal is played twice, the second time with every bot one seat
on (S0's bot in S1, S1's in S2, ...), so each pair of bots plays both lines of every
deal, and a deal's figure is the mean of its two lines: the luck of the cards cancels.

Search bots' searched decisions are timed (CPU seconds of the process deciding, so a busy
machine slows them less than the wall clock would); the median and the worst are printed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from random import Random

from p2p_sasaki.cli.batches import Interval, over_deals
from p2p_sasaki.sasku.bots import Bot, make_bot, play_deal
from p2p_sasaki.sasku.deal import Action, Deal
from p2p_sasaki.sasku.scoring import line_result
from p2p_sasaki.sasku.search import LEVELS, SearchBot

clock = time.perf_counter       # tests replace it
decision_clock = time.process_time


class Timed:
    """A search bot whose searched decisions are timed (``decision_clock`` seconds each;
    the auction's turns, which it plays by the heuristic rules at once, are left out)."""

    def __init__(self, bot: SearchBot, times: list[float]) -> None:
        self.bot = bot
        self.times = times

    def choose(self, view: Deal, legal: Sequence[Action]) -> Action:
        start = decision_clock()
        action = self.bot.choose(view, legal)
        if self.bot.last_rollouts:
            self.times.append(decision_clock() - start)
        return action


@dataclass(frozen=True)
class DealResult:
    """One deal (one line, or both with ``--duplicate``): the figure of the first pair of
    bots (bots 0 and 2: pair 0 of the first line), and how each line went."""

    result: float
    lines: tuple[tuple[int | None, bool, tuple[int, int]], ...]  # (declarer, diamonds, points) per line
    times: tuple[float, ...]  # the search bots' decision times


def deal_seed(seed: int, deal: int) -> str:
    """The seed of deal number ``deal`` (its cards and every bot's rng in it)."""
    return f"sasku/{seed}/deal{deal}"


def play_line(kinds: Sequence[str], seed: str, number: int, shift: int, level: int,
              times: list[float]) -> Deal:
    """Deal ``number`` (cards from ``seed``) played with bot ``i`` (``kinds[i]``, its rng from
    ``seed`` and ``i``) in seat ``(i + shift) % 4``; search bots timed into ``times``."""
    bots: list[Bot] = [None] * 4  # type: ignore[list-item]
    for i, kind in enumerate(kinds):
        bot = make_bot(kind, Random(f"{seed}/bot{i}"), level)
        bots[(i + shift) % 4] = Timed(bot, times) if isinstance(bot, SearchBot) else bot
    return play_deal(Deal.random(Random(seed), number), bots)


def play_one(kinds: Sequence[str], seed: int, level: int, duplicate: bool, deal: int) -> DealResult:
    """Deal ``deal`` of a run: once, or twice with the bots one seat on."""
    times: list[float] = []
    lines = []
    total = 0
    for shift in ((0, 1) if duplicate else (0,)):
        done = play_line(kinds, deal_seed(seed, deal), deal, shift, level, times)
        points = done.points
        assert points is not None
        total += line_result(points, shift)  # bots 0 and 2 sit in pair `shift`
        lines.append((done.declarer, done.diamonds, points))
    return DealResult(total / len(lines), tuple(lines), tuple(times))


@dataclass
class Run:
    kinds: list[str]
    duplicate: bool
    results: list[DealResult] = field(default_factory=list)
    seconds: float = 0.0

    def interval(self, team: int) -> Interval:
        sign = 1 if team == 0 else -1
        return Interval.of([sign * r.result for r in self.results])

    def team_kind(self, team: int) -> str:
        first, second = self.kinds[team], self.kinds[team + 2]
        return first if first == second else f"{first}+{second}"

    @property
    def times(self) -> list[float]:
        return [t for r in self.results for t in r.times]


def simulate(kinds: Sequence[str], deals: int, seed: int, level: int, duplicate: bool = False,
             jobs: int = 1) -> Run:
    run = Run(list(kinds), duplicate)
    start = clock()
    run.results = over_deals(partial(play_one, list(kinds), seed, level, duplicate), deals, jobs)
    run.seconds = clock() - start
    return run


def _round(value: float) -> float | None:
    return round(value, 4) if value == value and abs(value) != float("inf") else None


def as_json(run: Run, seed: int, level: int) -> dict[str, object]:
    bots = []
    for team in (0, 1):
        iv = run.interval(team)
        bots.append({"kind": run.team_kind(team), "seats": [team, team + 2], "mean": _round(iv.mean),
                     "ci95": [_round(iv.low), _round(iv.high)]})
    lines = len(run.results) * (2 if run.duplicate else 1)
    out: dict[str, object] = {
        "deals": len(run.results), "lines": lines, "seed": seed, "duplicate": run.duplicate,
        "level": level if "search" in run.kinds else None, "bots": bots,
        "deals_per_second": round(lines / run.seconds) if run.seconds else None}
    times = run.times
    if times:
        out["decision_seconds"] = {"decisions": len(times), "median": round(statistics.median(times), 4),
                                   "worst": round(max(times), 4)}
    return out


def as_text(run: Run, seed: int, level: int) -> str:
    n = len(run.results)
    search = f", search level {level} ({LEVELS[level]} rollouts)" if "search" in run.kinds else ""
    head = (f"{n} deals x 2 lines = {2 * n} deals played" if run.duplicate else f"{n} deals")
    labels = [f"{run.team_kind(team)} ({'both lines' if run.duplicate else f'S{team} S{team + 2}'})"
              for team in (0, 1)]
    width = max(len(label) for label in labels) + 2
    lines = [f"Sasku: {head}, seed {seed}{search}.",
             f"{'bots (seats)':<{width}}game points per deal  95% interval"]
    for team, label in enumerate(labels):
        iv = run.interval(team)
        lines.append(f"{label:<{width}}{iv.mean:+20.3f}  [{iv.low:+.3f}, {iv.high:+.3f}]")
    played = [line for r in run.results for line in r.lines]
    declared = sum(1 for declarer, _, _ in played if declarer is not None)
    diamonds = sum(1 for declarer, diamonds, _ in played if declarer is not None and diamonds)
    pokk = sum(1 for _, _, points in played if points == (0, 0))
    lines.append(f"Declared {declared} of {len(played)} (diamonds {diamonds}), all passed "
                 f"{len(played) - declared}, pokk {pokk}.")
    times = run.times
    if times:
        lines.append(f"Searched decisions: {len(times)}, median {statistics.median(times):.3f} s, "
                     f"worst {max(times):.3f} s (CPU).")
    rate = len(played) / run.seconds if run.seconds else 0.0
    speed = "-" if not run.seconds else f"{rate:.0f}" if rate >= 10 else f"{rate:.1f}"
    lines.append(f"{speed} deals per second.")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    result = simulate(args.seats, args.hands, args.seed, args.level, args.duplicate, args.jobs)
    print(json.dumps(as_json(result, args.seed, args.level)) if args.json
          else as_text(result, args.seed, args.level))
    return 0
