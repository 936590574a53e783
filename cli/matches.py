"""The command line's side of a match (protocol/net/match.py, ``run_match``): its options
from the command line, and a :class:`MatchHost` that presents (the terminal, the page),
asks the person, and reports between matches."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import trio

from p2p_sasaki.cli.common import data_dir, interfaces, report
from p2p_sasaki.cli.presenter import announce, member_label
from p2p_sasaki.protocol.net import ALL_INTERFACES, Identity, TableRoster
from p2p_sasaki.protocol.net.botseat import ReplaceSeat
from p2p_sasaki.protocol.net.match import MatchOptions, run_match
from p2p_sasaki.protocol.net.persist import SavedTable
from p2p_sasaki.protocol.net.table import Player, TableResult
from p2p_sasaki.protocol.net.transport import Transport

__all__ = ["CommandLineHost", "match_options", "member_records_wanted", "next_match_policy", "play_roster",
           "verdict"]


def member_records_wanted(args: argparse.Namespace) -> bool:
    """mDNS member records (protocol/net/discovery.py), unless ``--no-mdns`` or a joiner
    that joined by ``--address`` (multicast does not pass there)."""
    return not getattr(args, "no_mdns", False) and not isinstance(getattr(args, "address", None), str)


def next_match_policy(args: argparse.Namespace, player: Any) -> str:
    """``yes``, ``no`` or ``ask`` (a person: the terminal and the page ask): ``--next-match``,
    else a person is asked and a bot declines (so four bots never play forever; the bots a
    person's ``host --bots`` or ``demo --human`` starts are given ``--next-match yes``)."""
    policy = getattr(args, "next_match", None)
    if policy is None:
        policy = "ask" if hasattr(player, "decide_next") and not getattr(args, "bot", False) else "no"
    if policy == "ask" and not hasattr(player, "decide_next"):
        return "no"
    return str(policy)


def match_options(args: argparse.Namespace, player: Any) -> MatchOptions:
    """The match runner's options from the command line's."""
    return MatchOptions(data_dir=data_dir(args), transcript=Path(args.transcript) if args.transcript else None,
                        next_match=next_match_policy(args, player), heartbeat=getattr(args, "heartbeat", 5.0),
                        connect_timeout=getattr(args, "connect_timeout", 60.0),
                        proof_workers=getattr(args, "proof_workers", 0),
                        member_records=member_records_wanted(args),
                        interfaces=interfaces(args) if member_records_wanted(args) else ALL_INTERFACES,
                        deal_seed=getattr(args, "deal_seed", None))


def verdict(path: Path) -> str:
    """One line: what the audit of a person's own transcript says."""
    from p2p_sasaki.cli.audit import audit_file, describe

    try:
        return "Audit of your transcript: " + describe(audit_file(path)).splitlines()[0]
    except Exception as error:   # the verdict is information; a bug here must not hide the result
        return f"Audit of your transcript failed: {error}"


class CommandLineHost:
    """The views of a match: ``ui`` (the terminal's narrator, or None: silent) and the
    player's presenter, if it has one (a person's terminal and page)."""

    def __init__(self, args: argparse.Namespace, player: Any, ui: Any) -> None:
        self.args, self.player, self.ui = args, player, ui
        self.presenter = getattr(player, "presenter", None)
        self.on_event: Callable[[Any, Any], None] | None = ui.event if ui is not None else None

    async def run_views(self) -> None:
        if self.ui is not None:
            await self.ui.run()

    def say(self, text: str) -> None:
        if self.ui is not None:
            self.ui.say(text)

    def announce(self, text: str) -> None:
        announce(self.ui, self.presenter, text)

    def member_label(self, key: bytes) -> str:
        return member_label(self.presenter, key)

    def match_hands(self, hands: int) -> None:
        if self.presenter is not None:
            self.presenter.hands = hands

    def match_over(self, result: TableResult, going_on: bool) -> None:
        report(result, self.args.quiet, going_on=going_on)

    def next_match_starts(self, match_no: int) -> None:
        if self.presenter is not None:
            self.presenter.new_match()
        elif self.ui is not None:
            self.ui.say(f"Match {match_no} starts: same four players, a fresh table.")

    def seat_replaced(self, carried: Sequence[int]) -> None:
        if self.presenter is not None:
            self.presenter.new_match(carried=carried)

    async def decide_next(self, seconds: float) -> bool:
        return bool(await self.player.decide_next(seconds))

    async def replace_seat(self, identity: Identity, roster: TableRoster, mesh: Transport,
                           result: TableResult) -> ReplaceSeat | None:
        from p2p_sasaki.cli.botseat import agree_bot_seat

        return await agree_bot_seat(self.args, identity, roster, mesh, result, self.player, self.ui)

    def bot_player(self, bot: Identity) -> Player:
        from p2p_sasaki.cli.botseat import bot_player

        return bot_player(self.args, bot)

    async def finished(self, result: TableResult) -> None:
        if self.presenter is not None and result.transcript is not None and result.transcript.exists():
            self.presenter.finished(await trio.to_thread.run_sync(verdict, result.transcript), result.transcript)


async def play_roster(args: argparse.Namespace, identity: Identity, roster: TableRoster,
                      listeners: Any, config: Any, player: Any, ui: Any, saved: SavedTable | None = None
                      ) -> TableResult:
    """Play the match of ``roster`` and the matches after it (protocol/net/match.py,
    ``run_match``) with the command line's options and views."""
    return await run_match(identity, roster, listeners, config, player, CommandLineHost(args, player, ui),
                           match_options(args, player), saved)
