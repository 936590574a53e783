"""SearchBot against three HeuristicBots in duplicate matches: strength, time per decision.

    python bench/bots.py [--deals 500] [--levels 2] [--jobs 2] [--seed 1]
    python bench/bots.py --levels 1,2,3,4 --deals 400,400,200,60 --jobs 2   # the strength curve

The statistic (issue 11): for each deal, the mean over its 4 seat rotations of
(SearchBot's score minus the score of a HeuristicBot in the same seat in an
all-heuristic replay of the deal with the same bot seeds); the 95% interval
(normal) is taken over deals. Bot ``i`` of a rotation ``r`` sits in seat
``(i + r) % 4`` with its rng seeded from the seed, the deal and ``i``, exactly as
``sasaki simulate --duplicate --seats search,heuristic,heuristic,heuristic`` plays it;
the replay puts a HeuristicBot with bot 0's seed in bot 0's place.

Decision times are CPU seconds of one process (``time.process_time``) per SearchBot
decision that was searched or asked; the figures are the median and the worst. Deals
run in ``--jobs`` processes; the running interval is printed as deals finish, and
the closing lines give the CPU-hours every figure took (the sum over the workers).
Run it under ``nice -n 19`` on a shared machine.

Figures (seed 1, Python 3.11, a shared 2-core machine; decision times are CPU seconds):

    python bench/bots.py --levels 3 --deals 500 --jobs 2             # 0.255 CPU-h
    python bench/bots.py --levels 2 --deals 500 --jobs 2             # 0.089 CPU-h
    python bench/bots.py --levels 1 --deals 200 --jobs 1             # 0.014 CPU-h
    python bench/bots.py --levels 3,4,5 --deals 100,24,6 --jobs 2    # 0.113 CPU-h (level 3
                                                                     # there: 100 deals, 0.054)

    level  rollouts  deals  points per hand (95%)     median s  worst s  CPU-h
        1        10    200  +0.619 [+0.371, +0.867]      0.006    0.026  0.014
        2        30    500  +0.719 [+0.554, +0.883]      0.017    0.063  0.089
        3       100    500  +1.097 [+0.928, +1.267]      0.053    0.235  0.255
        4       300     24  +1.948 [+1.055, +2.841]      0.165    0.557  0.037
        5      1000      6  +1.833 [-0.683, +4.350]      0.463    1.589  0.022

The default level of a table's search bot is 4: well inside 0.5 s median and 2 s worst
per decision; level 5 is at the median limit here and not shown stronger.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing import Pool
from random import Random

from p2p_sasaki.cli.batches import Interval
from p2p_sasaki.cli.simulate import deal_seed
from p2p_sasaki.sasaki.bots import Bot, HeuristicBot, play_hand
from p2p_sasaki.sasaki.hand import Action, Hand, SeatView
from p2p_sasaki.sasaki.options import TableOptions
from p2p_sasaki.sasaki.search import LEVELS, SearchBot

OPTIONS = TableOptions(lead_card="3H")


class Timed:
    """A bot whose decisions are timed (CPU seconds of this process)."""

    def __init__(self, bot: SearchBot) -> None:
        self.bot = bot
        self.times: list[float] = []

    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action:
        start = time.process_time()
        action = self.bot.choose(view, legal)
        self.times.append(time.process_time() - start)
        return action


@dataclass(frozen=True)
class DealResult:
    deal: int
    difference: float          # the statistic for this deal
    search_mean: float         # SearchBot's mean score over the rotations
    times: tuple[float, ...]   # its decision times
    cpu: float                 # CPU seconds this deal took


def _score(seed: str, rotation: int, bot0: Bot) -> int:
    bots: list[Bot] = [bot0, *(HeuristicBot(Random(f"{seed}/bot{i}")) for i in (1, 2, 3))]
    seats: list[Bot | None] = [None] * 4
    for i, bot in enumerate(bots):
        seats[(i + rotation) % 4] = bot
    hand = play_hand(Hand.random(Random(seed), "3H", OPTIONS), seats)  # type: ignore[arg-type]
    assert hand.scores is not None
    return hand.scores[rotation]


def play_deal(job: tuple[int, int, int]) -> DealResult:
    seed, deal, rollouts = job
    start = time.process_time()
    name = deal_seed(seed, deal)
    differences = []
    scores = []
    times: list[float] = []
    for rotation in range(4):
        timed = Timed(SearchBot(Random(f"{name}/bot0"), rollouts=rollouts))
        mine = _score(name, rotation, timed)
        theirs = _score(name, rotation, HeuristicBot(Random(f"{name}/bot0")))
        differences.append(mine - theirs)
        scores.append(mine)
        times += timed.times
    return DealResult(deal, sum(differences) / 4, sum(scores) / 4, tuple(times),
                      time.process_time() - start)


@dataclass(frozen=True)
class LevelResult:
    level: int
    rollouts: int
    deals: int
    difference: Interval
    search: Interval
    median: float
    worst: float
    decisions: int
    cpu_hours: float
    wall: float


def run_level(level: int, deals: int, seed: int, jobs: int, every: int) -> LevelResult:
    rollouts = LEVELS[level]
    print(f"level {level} ({rollouts} rollouts per decision), {deals} deals, seed {seed}, "
          f"{jobs} job(s):", flush=True)
    started = time.monotonic()
    results: list[DealResult] = []
    work = [(seed, deal, rollouts) for deal in range(deals)]
    with Pool(jobs) as pool:
        for result in pool.imap_unordered(play_deal, work):
            results.append(result)
            if len(results) % every == 0 or len(results) == deals:
                iv = Interval.of([r.difference for r in results])
                print(f"  {len(results):5d} deals: {iv}  ({sum(r.cpu for r in results) / 3600:.3f} "
                      f"CPU-h)", flush=True)
    times = [t for r in results for t in r.times]
    row = LevelResult(level, rollouts, deals, Interval.of([r.difference for r in results]),
                       Interval.of([r.search_mean for r in results]),
                       statistics.median(times) if times else 0.0, max(times, default=0.0),
                       len(times), sum(r.cpu for r in results) / 3600, time.monotonic() - started)
    print(f"  level {level}: {row.difference} points per hand; decisions {row.median:.3f} s median, "
          f"{row.worst:.3f} s worst (CPU, {row.decisions} decisions); {row.cpu_hours:.3f} CPU-h", flush=True)
    return row


def _ints(text: str) -> list[int]:
    return [int(part) for part in text.split(",")]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", type=_ints, default=[2],
                        help=f"search levels, comma-separated ({LEVELS}; default 2)")
    parser.add_argument("--deals", type=_ints, default=[500],
                        help="deals per level: one number, or one per level (default 500)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--every", type=int, default=50, help="print the running interval every N deals")
    args = parser.parse_args(argv)
    deals = args.deals * len(args.levels) if len(args.deals) == 1 else args.deals
    if len(deals) != len(args.levels) or any(level not in LEVELS for level in args.levels):
        parser.error("--deals: one number or one per level; --levels from " + ", ".join(map(str, LEVELS)))
    rows = [run_level(level, n, args.seed, args.jobs, args.every) for level, n in zip(args.levels, deals, strict=False)]
    print()
    print("SearchBot vs 3 HeuristicBots, duplicate (statistic: search - heuristic in the same seat, "
          "mean per hand, 95% interval over deals)")
    print("level  rollouts  deals  points per hand             search's own score  "
          "median s  worst s  decisions  CPU-h")
    for row in rows:
        print(f"{row.level:5d}  {row.rollouts:8d}  {row.deals:5d}  {str(row.difference):26s}  "
              f"{row.search.mean:+18.3f}  {row.median:8.3f}  {row.worst:7.3f}  {row.decisions:9d}  "
              f"{row.cpu_hours:5.3f}")
    print(f"Total: {sum(r.cpu_hours for r in rows):.3f} CPU-hours "
          f"({sum(r.wall for r in rows) / 60:.1f} min wall, {args.jobs} job(s)). Python {sys.version.split()[0]}.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
