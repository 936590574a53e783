"""Engine speed: complete random hands per second and the cost of legal-play generation.

    python bench/engine.py [--runs 7] [--hands 300]
    python bench/engine.py --game sasku [--runs 7] [--hands 1000]    # Sasku: deals per second

The machine may be shared and noisy, so every figure is the median of several runs
of the same seeded work, and each comes with a ratio to a baseline measured in the
same process (a trivial Python loop, and classify() on the same plays) that moves
much less than the raw times when the machine is busy.

Random hands are measured three ways:
- engine loop: at each decision a uniformly random legal answer (a turn's plays from
  the legal play masks, built only when chosen: p2p_sasaki.sasaki.bots.legal_actions);
- eager loop: the same with Hand.legal_actions (a Play object per legal play);
- RandomBot / HeuristicBot through p2p_sasaki.sasaki.bots.play_hand (the real bot interface):
  for every decision that has a choice the driver builds the HeuristicBot a SeatView,
  and hands the RandomBot (uses_view = False) a LazyView that it never reads.

The issue's goal: at least 1,000 complete random hands per second through the bot
interface ("RandomBot via play_hand"); the last line says whether this run met it.

``--game sasku`` measures Sasku the same way (issue 17): complete random deals per
second through the engine loop (``legal_actions`` and ``apply``) and through
p2p_sasaki.sasku.bots.play_deal with RandomBots (the figure of the goal: at least
3,000 deals per second, moonshot 10,000) and HeuristicBots, and the cost of
``legal_actions`` per decision (on card plays, and on all decisions). Sasaki's random
hands are measured in the same run too: the goal was set beside Sasaki's 1,497 hands per
second, so their ratio scales the goal to a busy machine (the last lines say both).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from random import Random

from p2p_sasaki.sasaki.bots import HeuristicBot, RandomBot, legal_actions, play_hand  # noqa: E402
from p2p_sasaki.sasaki.combos import classify, legal_plays  # noqa: E402
from p2p_sasaki.sasaki.hand import Action, DecisionKind, Hand  # noqa: E402
from p2p_sasaki.sasaki.options import TableOptions  # noqa: E402
from p2p_sasaki.sasku import bots as sasku_bots  # noqa: E402
from p2p_sasaki.sasku.deal import Deal  # noqa: E402
from p2p_sasaki.sasku.deal import DecisionKind as SaskuKind
from p2p_sasaki.sasku.deal import apply as sasku_apply
from p2p_sasaki.sasku.deal import legal_actions as sasku_legal

OPTIONS = TableOptions(lead_card="3H")
GOAL = 1000  # random-bot hands per second through play_hand (the figure)
SASKU_GOAL = 3000  # random-bot deals per second through sasku.bots.play_deal (issue 17)
SASKU_MOONSHOT = 10_000
SASAKI_FIGURE = 1497  # Sasaki's random hands per second through play_hand when the goal was set


def print_rates(what: str, results: dict[str, list[float]], unit: float) -> None:
    """The table of complete random ``what``s (deals or hands) per second: each loop's median
    rate, its spread over the runs, and its cost in baseline loop iterations (``unit`` ns)."""
    print(f"{'complete random ' + what + 's':34} {what + 's/s':>8} {'spread':>13} {'loop iterations/' + what:>21}")
    for name, rates in results.items():
        rate = statistics.median(rates)
        spread = f"{min(rates):.0f}-{max(rates):.0f}"
        print(f"{name:34} {rate:8.0f} {spread:>13} {1e9 / rate / unit:21,.0f}")


def engine_hand(rng: Random, legal: Callable[[Hand, int], Sequence[Action]]) -> Hand:
    """One hand of uniformly random legal answers (a forced answer takes no draw)."""
    hand = Hand.random(rng, "3H", OPTIONS)
    while not hand.is_over:
        d = hand.decision
        answers = []
        for seat in d.seats:
            actions: Sequence[Action] = legal(hand, seat)
            n = len(actions)
            answers.append(actions[0] if n == 1 else actions[int(rng.random() * n)])
        if d.kind is DecisionKind.TURN:
            hand.apply(answers[0])
        else:
            hand.resolve(answers)
    return hand


def hands_per_second(play_one: Callable[[Random], object], hands: int) -> float:
    rng = Random(2024)
    start = time.perf_counter()
    for _ in range(hands):
        play_one(rng)
    return hands / (time.perf_counter() - start)


def bot_hand(kind: type) -> Callable[[Random], Hand]:
    bots = [kind(Random(seat)) for seat in range(4)]
    return lambda rng: play_hand(Hand.random(rng, "3H", OPTIONS), bots)


def positions(count: int) -> list[tuple[int, object]]:
    """(hand mask, top) pairs met on turns in random play, leads included."""
    found: list[tuple[int, object]] = []
    rng = Random(7)
    while len(found) < count:
        hand = Hand.random(rng, "3H", OPTIONS)
        while not hand.is_over:
            d = hand.decision
            if d.kind is DecisionKind.TURN:
                found.append((hand.cards(d.seats[0]).mask, hand.top))
                actions = hand.legal_actions(d.seats[0])
            else:
                actions = [rng.choice(hand.legal_actions(s)) for s in d.seats]
            if d.kind is DecisionKind.TURN:
                hand.apply(rng.choice(actions))
            else:
                hand.resolve(actions)
    return found[:count]


def per_call_us(fn: Callable[[], object], calls: int) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) / calls * 1e6


def baseline_ns() -> float:
    """ns per iteration of a trivial loop: the unit the ratios are given in."""
    n = 200_000
    start = time.perf_counter()
    x = 0
    for i in range(n):
        x += i & 7
    return (time.perf_counter() - start) / n * 1e9


# -- Sasku ---------------------------------------------------------------------------------------

def sasku_engine_deal(rng: Random) -> Deal:
    """One deal of uniformly random legal actions (a forced action takes no draw)."""
    deal = Deal.random(rng, int(rng.random() * 4))
    while not deal.is_over:
        actions = sasku_legal(deal)
        n = len(actions)
        deal = sasku_apply(deal, actions[0] if n == 1 else actions[int(rng.random() * n)])
    return deal


def sasku_bot_deal(kind: type) -> Callable[[Random], Deal]:
    bots = [kind(Random(seat)) for seat in range(4)]
    return lambda rng: sasku_bots.play_deal(Deal.random(rng, int(rng.random() * 4)), bots)


def sasku_positions(count: int) -> list[Deal]:
    """States met in random deals (every decision, the auction's included)."""
    found: list[Deal] = []
    rng = Random(7)
    while len(found) < count:
        deal = Deal.random(rng, len(found) % 4)
        while not deal.is_over:
            found.append(deal)
            actions = sasku_legal(deal)
            deal = sasku_apply(deal, actions[int(rng.random() * len(actions))])
    return found[:count]


def sasku_main(args: argparse.Namespace) -> int:
    deals = args.hands if args.hands_given else 1000
    sample = sasku_positions(20_000)
    plays = [d for d in sample if d.decision.kind is SaskuKind.PLAY]
    loops = {
        "engine loop": sasku_engine_deal,
        "RandomBot via play_deal": sasku_bot_deal(sasku_bots.RandomBot),
        "HeuristicBot via play_deal": sasku_bot_deal(sasku_bots.HeuristicBot),
        "Sasaki: RandomBot via play_hand": bot_hand(RandomBot),
    }
    counts = {"HeuristicBot via play_deal": max(1, deals // 5), "Sasaki: RandomBot via play_hand": max(1, deals // 3)}
    results: dict[str, list[float]] = {name: [] for name in loops}
    base: list[float] = []
    legal_us: list[float] = []
    legal_play_us: list[float] = []
    decisions: list[float] = []
    for _ in range(args.runs):  # interleaved, so a busy spell hits every figure alike
        base.append(baseline_ns())
        for name, loop in loops.items():
            results[name].append(hands_per_second(loop, counts.get(name, deals)))
        legal_us.append(per_call_us(lambda: [sasku_legal(d) for d in sample], len(sample)))
        legal_play_us.append(per_call_us(lambda: [sasku_legal(d) for d in plays], len(plays)))
    rng = Random(3)
    for _ in range(200):
        steps = 0
        for _ in sasku_bots.play(Deal.random(rng), [sasku_bots.RandomBot(rng)] * 4):
            steps += 1
        decisions.append(steps)

    unit = statistics.median(base)
    per_deal = statistics.mean(decisions)
    print(f"p2p-sasaki Sasku engine bench: Python {platform.python_version()}, one core, "
          f"median of {args.runs} runs of {deals} deals ({max(1, deals // 5)} for the heuristic bots, "
          f"{max(1, deals // 3)} Sasaki hands)")
    print(f"baseline: {unit:.1f} ns per trivial loop iteration; {per_deal:.1f} decisions per random deal")
    print()
    print_rates("deal", results, unit)
    random_rate = statistics.median(results["RandomBot via play_deal"])
    lp, la = statistics.median(legal_play_us), statistics.median(legal_us)
    print()
    print(f"legal_actions per card play: {lp:.2f} us = {lp * 1000 / unit:.0f} loop iterations "
          f"(median over {len(plays)} plays from random deals)")
    print(f"legal_actions per decision:  {la:.2f} us = {la * 1000 / unit:.0f} loop iterations "
          f"(all {len(sample)} decisions, the auction's included)")
    print(f"whole decision in RandomBot via play_deal: {1e6 / random_rate / per_deal:.2f} us")
    print()
    # The goal was set beside Sasaki's figure on a quiet machine (1,497 hands/s through the
    # same bot interface): Sasaki's random hands measured in this run scale it to this machine.
    sasaki_rate = statistics.median(results["Sasaki: RandomBot via play_hand"])
    scaled = random_rate / sasaki_rate * SASAKI_FIGURE
    print(f"Sasku random deals per Sasaki random hand, this run: x{random_rate / sasaki_rate:.2f} "
          f"(the goal is x{SASKU_GOAL / SASAKI_FIGURE:.2f} of Sasaki's {SASAKI_FIGURE:,} hands/s; "
          f"at that figure Sasku makes {scaled:,.0f} deals/s)")
    for label, rate in (("this run", random_rate), ("scaled to Sasaki's figure", scaled)):
        verdict = ("met, moonshot met too" if rate >= SASKU_MOONSHOT
                   else "met" if rate >= SASKU_GOAL else "NOT met")
        print(f"goal: RandomBot via play_deal >= {SASKU_GOAL:,} deals/s (moonshot {SASKU_MOONSHOT:,}), "
              f"{label}: {rate:,.0f} ({verdict}; x{rate / SASKU_GOAL:.2f})")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=("sasaki", "sasku"), default="sasaki",
                        help="the game whose engine is measured (default sasaki)")
    parser.add_argument("--runs", type=int, default=7, help="runs per figure (median; default 7)")
    parser.add_argument("--hands", type=int, default=None,
                        help="hands per run (default 300), or deals for Sasku (default 1000)")
    args = parser.parse_args()
    args.hands_given = args.hands is not None
    if args.game == "sasku":
        return sasku_main(args)
    if args.hands is None:
        args.hands = 300

    sample = positions(5000)
    plays = [m for hand, top in sample[:1000] for m in legal_plays(hand, top)]  # type: ignore[arg-type]
    loops = {
        "engine loop": lambda rng: engine_hand(rng, legal_actions),
        "eager loop (Hand.legal_actions)": lambda rng: engine_hand(rng, Hand.legal_actions),
        "RandomBot via play_hand": bot_hand(RandomBot),
        "HeuristicBot via play_hand": bot_hand(HeuristicBot),
    }
    results: dict[str, list[float]] = {name: [] for name in loops}
    base: list[float] = []
    legal_us: list[float] = []
    classify_us: list[float] = []
    for _ in range(args.runs):  # interleaved, so a busy spell hits every figure alike
        base.append(baseline_ns())
        for name, loop in loops.items():
            results[name].append(hands_per_second(loop, args.hands))
        legal_us.append(per_call_us(lambda: [legal_plays(h, t) for h, t in sample], len(sample)))  # type: ignore[arg-type]
        classify_us.append(per_call_us(lambda: [classify(m) for m in plays], len(plays)))

    unit = statistics.median(base)
    print(f"p2p-sasaki engine bench: Python {platform.python_version()}, one core, "
          f"median of {args.runs} runs of {args.hands} hands")
    print(f"baseline: {unit:.1f} ns per trivial loop iteration")
    print()
    print_rates("hand", results, unit)
    random_rate = statistics.median(results["RandomBot via play_hand"])
    lp = statistics.median(legal_us)
    cl = statistics.median(classify_us)
    print()
    print(f"legal_plays per call: {lp:.2f} us (median over {len(sample)} positions from random play)")
    print(f"classify per call:    {cl:.3f} us; legal_plays / classify = {lp / cl:.1f}; "
          f"legal_plays = {lp * 1000 / unit:.0f} loop iterations")
    print()
    print(f"goal: RandomBot via play_hand >= {GOAL:,} hands/s: {random_rate:,.0f} "
          f"({'met' if random_rate >= GOAL else 'NOT met'}; x{random_rate / GOAL:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
