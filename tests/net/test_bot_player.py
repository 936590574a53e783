"""protocol/net/table.py BotPlayer: a thinking bot is asked in a worker thread."""

from __future__ import annotations

import dataclasses
import random
import threading
from typing import Any

import trio
import trio.testing

from p2p_sasaki.protocol.net.table import BotPlayer, Turn
from p2p_sasaki.sasaki.bots import HeuristicBot
from p2p_sasaki.sasaki.hand import Hand
from p2p_sasaki.sasaki.search import SearchBot


class Recording(SearchBot):
    def choose(self, view, legal, seconds=None, clock=None):
        self.thread = threading.current_thread()
        self.seconds = seconds
        return super().choose(view, legal, seconds, clock)


def turn() -> Turn:
    hand = Hand.random(random.Random(0), "3H")
    seat = hand.decision.seats[0]
    return Turn(seat, hand.decision, hand.view(seat), tuple(hand.legal_actions(seat)))


def test_a_search_bot_thinks_in_a_worker_thread_while_the_loop_runs():
    bot = Recording(random.Random(1), rollouts=20)
    ticks = []

    async def main():
        async def tick():
            while True:
                ticks.append(1)
                await trio.sleep(0)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(tick)
            action = await BotPlayer(bot).decide(turn())
            nursery.cancel_scope.cancel()
        return action

    t = turn()
    action = trio.run(main)
    assert action in t.legal
    assert bot.thread is not threading.main_thread()
    assert ticks  # the loop ran while the bot thought


def test_a_heuristic_bot_answers_inline():
    t = turn()
    action = trio.run(BotPlayer(HeuristicBot(random.Random(1))).decide, t)
    assert action in t.legal


def lead_turn() -> Turn:
    """The first leader's turn of a hand (nobody ran): many answers worth searching."""
    from p2p_sasaki.sasaki.hand import Decline

    hand = Hand.random(random.Random(0), "3H")
    hand.resolve([Decline(s) for s in hand.decision.seats])
    seat = hand.decision.seats[0]
    return Turn(seat, hand.decision, hand.view(seat), tuple(hand.legal_actions(seat)))


def test_a_search_bot_is_given_a_budget_strictly_below_the_decisions_delay():
    """Issue 18: a thinking bot is told to answer within THINK_SHARE of the delay from the
    decision's opening; with no delay (a fast table), its rollouts alone."""
    from p2p_sasaki.protocol.net.asking import THINK_SHARE

    async def main(t: Turn) -> tuple[float | None, Any]:
        bot = Recording(random.Random(1), rollouts=4)
        action = await BotPlayer(bot).decide(t)
        return bot.seconds, action

    base = lead_turn()
    clock = trio.testing.MockClock()
    paced = dataclasses.replace(base, opened=0.0, delay=1.0)
    seconds, action = trio.run(main, paced, clock=clock)
    assert seconds == THINK_SHARE * 1.0 and seconds < 1.0 and action in base.legal
    later = dataclasses.replace(base, opened=-0.9, delay=1.0)   # asked when the share is spent
    assert trio.run(main, later, clock=clock)[0] == 0.0
    assert trio.run(main, base, clock=clock)[0] is None          # no delay: no time limit


def test_a_search_bot_stops_sampling_when_its_budget_is_spent():
    """The search checks its clock between samples (each sample plays every candidate): with a
    clock that advances 0.1 s per reading and 0.45 s given, it stops after five samples,
    far short of its rollouts."""
    from p2p_sasaki.sasaki import search

    readings = iter(range(1, 10_000))
    t = lead_turn()
    choices = search.candidates(list(t.legal), t.view.cards.mask)
    assert len(choices) > 1
    bot = SearchBot(random.Random(1), rollouts=100_000)
    action = bot.choose(t.view, t.legal, seconds=0.45, clock=lambda: next(readings) / 10)
    assert action in t.legal
    assert bot.last_rollouts == 5 * len(choices)
    unlimited = SearchBot(random.Random(1), rollouts=3 * len(choices))
    unlimited.choose(t.view, t.legal)
    assert unlimited.last_rollouts == 3 * len(choices)
