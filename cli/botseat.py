"""After a match abandoned for one seat: go on with a bot in that seat (docs/usage.md, "A bot
in the empty seat"; protocol/net/botseat.py). Used by the command line's match host (cli/matches.py)."""

from __future__ import annotations

import argparse
import random
from typing import Any

from p2p_sasaki.cli.presenter import announce, member_label
from p2p_sasaki.protocol.crypto import Entropy, system_entropy
from p2p_sasaki.protocol.followon import replaceable
from p2p_sasaki.protocol.net import Identity, TableRoster
from p2p_sasaki.protocol.net.botseat import ReplaceSeat, agree_replace_seat, runner_of
from p2p_sasaki.protocol.net.table import BOT, BotPlayer, TableResult
from p2p_sasaki.sasaki.bots import HeuristicBot

__all__ = ["bot_seat_policy", "agree_bot_seat", "bot_player"]


def bot_seat_policy(args: argparse.Namespace, player: Any, result: TableResult) -> str:
    """``yes`` when my person chose "bot" at the stall deadline, ``no`` for another choice;
    a bot player (``--bot``) ``follow``s: it never asks for a bot seat, but accepts one a
    present person asked for."""
    if getattr(args, "bot", False) or not hasattr(player, "decide_next"):
        return "follow"
    return "yes" if result.choice == BOT else "no"


async def agree_bot_seat(args: argparse.Namespace, identity: Identity, roster: TableRoster, mesh: Any,
                         result: TableResult, player: Any, ui: Any) -> ReplaceSeat | None:
    """The ``replace-seat`` agreement after ``result``, if the match was abandoned for one
    seat with hands left (None otherwise, or when it was not agreed: one sentence says why)."""
    config = result.config
    if config is None or result.seat_keys is None or result.final_hash is None:
        return None
    seat = replaceable(config.hands, result.abandoned)
    if seat is None or result.seat_keys[seat] == identity.public_key:
        return None
    policy = bot_seat_policy(args, player, result)
    presenter = getattr(player, "presenter", None)
    label = presenter.label(seat) if presenter is not None else f"S{seat}"
    entropy: Entropy = system_entropy
    if getattr(args, "deal_seed", None) is not None:   # tests: the bot and the nonces repeat too
        entropy = random.Random(f"{args.deal_seed}:{identity.public_key.hex()}:bot").randbytes
    runner = runner_of(result.seat_keys, seat)
    bot = Identity.generate(entropy) if runner == identity.public_key else None
    if policy == "yes":
        announce(ui, presenter, f"Asking the others to go on with a bot in {label}'s seat ...")
    seconds = max(5.0, config.pace.answer_ms / 1000)
    agreed = await agree_replace_seat(mesh, identity, roster, result, policy, seconds, bot=bot, entropy=entropy)
    if agreed is None:
        return None
    if agreed.roster is not None:
        runs = "you run it" if bot is not None else f"{member_label(presenter, runner)} runs it"
        announce(ui, presenter, f"Everyone agreed: a bot takes {label}'s seat ({runs}; its hand is open to all); "
                                "the match goes on.")
        return agreed
    if agreed.refused is not None:
        announce(ui, presenter, f"No bot in {label}'s seat: {agreed.refused}.")
        return None
    if policy == "yes":
        outcome = agreed.outcome
        if outcome.declined is not None:
            who = "you" if outcome.declined == identity.public_key else member_label(presenter, outcome.declined)
            announce(ui, presenter, f"No bot in {label}'s seat: {who} did not want one.")
        else:
            names = ", ".join(member_label(presenter, key) for key in outcome.missing)
            announce(ui, presenter, f"No bot in {label}'s seat: {names} did not answer in time.")
    return None


def bot_player(args: argparse.Namespace, identity: Identity) -> BotPlayer:
    """The bot in the empty seat: the heuristic bot (seeded with the tests' --deal-seed)."""
    seed = (random.Random(f"{args.deal_seed}:{identity.public_key.hex()}:bot player").randrange(1 << 30)
            if getattr(args, "deal_seed", None) is not None else random.SystemRandom().randrange(1 << 30))
    return BotPlayer(HeuristicBot(random.Random(seed)))
