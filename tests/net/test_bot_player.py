"""protocol/net/table.py BotPlayer: a thinking bot is asked in a worker thread."""

from __future__ import annotations

import random
import threading

import trio

from p2p_sasaki.protocol.net.table import BotPlayer, Turn
from p2p_sasaki.sasaki.bots import HeuristicBot
from p2p_sasaki.sasaki.hand import Hand
from p2p_sasaki.sasaki.search import SearchBot


class Recording(SearchBot):
    def choose(self, view, legal):
        self.thread = threading.current_thread()
        return super().choose(view, legal)


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
