"""A bot in the seat of a member that left: the ``replace-seat`` follow-on table
(protocol/followon.py; docs/protocol.md, "Replace seat"), agreed and played over the old
table's running links.

::

    seat = replaceable(config.hands, result.abandoned)              # the seat, or None: no bot
    agreed = await agree_replace_seat(transport, identity, old_roster, result, policy, 30,
                                      bot=Identity.generate() if i_run_it else None)
    if agreed.roster is not None:
        mine, bots = await play_replaced_seat(identity, transport, agreed, player=..., bot_player=...)

**Who runs the bot.** The lowest seat still present (:func:`runner_of`). It draws a fresh
identity for the bot, signs the bot's follow-on answer (an accept: it names the new members'
keys, so it is how the others learn the bot's key) and sends it first, then its own answer.
The others wait for that answer from the runner's link, then answer. The bot's address in
the roster is its runner's: it has no connections of its own. Its envelopes reach the others
as the runner's relays, and theirs reach it the same way: the runner's side of the table is
a :class:`SeatView` that adds an in-process link to the bot (:class:`BotLink`), and every
session relays the first copy of every authentic envelope to all its peers.

**Answers.** ``policy``: ``"yes"`` (my person chose "bot" at the stall deadline), ``"no"``,
or ``"follow"`` (a bot player: it never asks for a bot seat, but accepts when another
present member has accepted within ``follow_seconds`` of the proposal, else declines), so
a table of bots that lost a seat ends as before, a few seconds later.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import trio

from p2p_sasaki.protocol.crypto import Entropy, system_entropy
from p2p_sasaki.protocol.followon import (
    BOT_NAME,
    REPLACE_SEAT,
    FollowOn,
    continuation,
    decode_follow_on,
    is_follow_on,
    proposal_problem,
    replaceable,
    replaced_members,
)
from p2p_sasaki.protocol.messages import MessageError, TableMember, TableRoster
from p2p_sasaki.protocol.net.followon import FollowOnOutcome, agree_follow_on
from p2p_sasaki.protocol.net.identity import Identity
from p2p_sasaki.protocol.net.table import Player, TableResult, run_table
from p2p_sasaki.protocol.net.transport import PeerStatistics, Transport, TransportStatistics

__all__ = ["BotLink", "SeatView", "ReplaceSeat", "runner_of", "agree_replace_seat", "play_replaced_seat",
           "REPLACE_POLICIES"]

REPLACE_POLICIES = ("yes", "no", "follow")


def runner_of(seat_keys: Sequence[bytes], gone_seat: int) -> bytes:
    """The key of the member that runs the bot: the lowest seat still present."""
    return next(key for seat, key in enumerate(seat_keys) if seat != gone_seat)


@dataclass
class ReplaceSeat:
    """The outcome of a ``replace-seat`` agreement."""

    outcome: FollowOnOutcome
    gone_seat: int
    runner: bytes
    bot: Identity | None = None              # the runner's only: the bot's identity
    bot_key: bytes | None = None             # the bot's public key (once proposed)
    config: Any = None                       # the new table's options (agreed)
    refused: str | None = None               # why the runner's proposal was refused (one sentence)
    early: list[tuple[bytes, bytes]] = field(default_factory=list)

    @property
    def roster(self) -> TableRoster | None:
        return self.outcome.roster


async def agree_replace_seat(transport: Transport, identity: Identity, old: TableRoster, result: TableResult,
                             policy: str, answer_seconds: float, *, bot: Identity | None = None,
                             follow_seconds: float = 2.0, grace: float = 10.0, drain: float = 5.0,
                             entropy: Entropy = system_entropy) -> ReplaceSeat | None:
    """Agree on the ``replace-seat`` table after ``result`` (the old table's, abandoned with
    its match ended for one seat and hands left: :func:`replaceable`); None if there is
    none to agree on. The runner (:func:`runner_of`) passes ``bot``, the bot's new identity."""
    if policy not in REPLACE_POLICIES:
        raise ValueError(f"unknown replace-seat policy {policy!r}")
    config = result.config
    seat_keys = result.seat_keys
    final = result.final_hash
    seat = replaceable(config.hands, result.abandoned) if config is not None else None
    if seat is None or seat_keys is None or final is None:
        return None
    gone = seat_keys[seat]
    runner = runner_of(seat_keys, seat)
    me = identity.public_key
    frames = list(result.follow_on)
    early: list[tuple[bytes, bytes]] = []
    if me == runner:
        if bot is None:
            raise ValueError("the runner of the bot needs the bot's identity")
        runner_member = old.member(runner)
        members = replaced_members(old, gone, TableMember(bot.public_key, runner_member.host, runner_member.port,
                                                          bytes(32), BOT_NAME))
        agreement = FollowOn(old, final, me, REPLACE_SEAT, members)
        proposal = agreement.answer(bot, True, entropy(32))     # the bot accepts: its key, for the others
        await transport.broadcast(proposal)
    else:
        members = ()
        refused: list[str] = []
        with trio.move_on_after(answer_seconds + grace):
            members = await _proposal(transport, old, final, gone, runner, frames, early, refused)
        if refused:
            return ReplaceSeat(FollowOnOutcome(None, declined=runner), seat, runner, early=early, refused=refused[0])
        if not members:
            return ReplaceSeat(FollowOnOutcome(None, missing=(runner,)), seat, runner, early=early)
        agreement = FollowOn(old, final, me, REPLACE_SEAT, members)
    bot_key = members[list(old.keys).index(gone)].key

    async def decide() -> bool:
        if policy != "follow":
            return policy == "yes"
        with trio.move_on_after(follow_seconds):
            while not any(answer.accept for key, answer in agreement.answers.items() if key not in (me, bot_key)):
                await trio.sleep(0.05)
            return True
        return False

    outcome = await agree_follow_on(transport, identity, agreement, decide, answer_seconds, frames=frames,
                                    grace=grace, drain=drain, entropy=entropy)
    agreed = ReplaceSeat(outcome, seat, runner, bot if me == runner else None, bot_key, early=early + outcome.early)
    if outcome.roster is not None:
        agreed.config = continuation(config, old.keys, seat_keys, result.totals, result.abandoned[-1].hand,
                                     agreement.link, gone, runner)
    return agreed


async def _proposal(transport: Transport, old: TableRoster, final: bytes, gone: bytes, runner: bytes,
                    frames: list[tuple[bytes, bytes]], early: list[tuple[bytes, bytes]],
                    refused: list[str]) -> tuple[TableMember, ...]:
    """Wait for the runner's proposal: the bot's own ``replace-seat`` answer about ``old``
    ending at ``final``, come over the runner's own link, whose keys are the old roster's
    with a new, strong key in the place of ``gone``, signed by that key
    (:func:`~p2p_sasaki.protocol.followon.proposal_problem`). A proposal with a weak bot
    key or a signature that does not verify ends the wait: its sentence goes to
    ``refused``. Every follow-on frame is kept in ``frames`` (the agreement takes them),
    anything else in ``early``."""
    def members_of(peer: bytes, frame: bytes) -> tuple[TableMember, ...]:
        if peer != runner:
            return ()
        try:
            answer = decode_follow_on(frame)
        except MessageError:
            return ()
        problem = proposal_problem(answer, old, final, gone)
        if problem is not None:
            if "refused" in problem:
                refused.append(problem)
            return ()
        runner_member = old.member(runner)
        return replaced_members(old, gone, TableMember(answer.key, runner_member.host, runner_member.port,
                                                       bytes(32), BOT_NAME))

    for peer, frame in frames:
        members = members_of(peer, frame)
        if members or refused:
            return members
    async for peer, frame in transport.received:
        if not is_follow_on(frame):
            early.append((peer, frame))
            continue
        frames.append((peer, frame))
        members = members_of(peer, frame)
        if members or refused:
            return members
    return ()


class BotLink:
    """The in-process link between the runner's :class:`SeatView` and the bot's endpoint
    (:attr:`bot_side`): lossless, in order, never down."""

    def __init__(self, runner: bytes, bot: bytes) -> None:
        self.runner, self.bot = runner, bot
        self.to_bot_send, self.to_bot = trio.open_memory_channel[tuple[bytes, bytes]](math.inf)
        self.to_runner_send, self.to_runner = trio.open_memory_channel[tuple[bytes, bytes]](math.inf)
        self.bot_side = _BotEndpoint(self)


class _BotEndpoint:
    """The bot's transport: its one peer is its runner (the others are reached through it)."""

    def __init__(self, link: BotLink) -> None:
        self.link = link
        self.sent = 0
        self.view: SeatView | None = None

    @property
    def key(self) -> bytes:
        return self.link.bot

    @property
    def peers(self) -> tuple[bytes, ...]:
        return (self.link.runner,)

    @property
    def received(self) -> trio.MemoryReceiveChannel[tuple[bytes, bytes]]:
        return self.link.to_bot

    @property
    def offline(self) -> bool:
        return False

    async def run(self, *, task_status: trio.TaskStatus[Any] = trio.TASK_STATUS_IGNORED) -> None:
        task_status.started()

    def close(self) -> None:
        pass

    async def send(self, key: bytes, frame: bytes) -> None:
        self.send_nowait(key, frame)

    def send_nowait(self, key: bytes, frame: bytes) -> None:
        if key == self.link.runner:
            self.sent += 1
            self.link.to_runner_send.send_nowait((self.link.bot, frame))

    async def broadcast(self, frame: bytes) -> None:
        self.send_nowait(self.link.runner, frame)

    def is_connected(self, key: bytes) -> bool:
        """The runner always; another member as the runner's link to it is (the bot's way there)."""
        return key == self.link.runner or (self.view is not None and self.view.is_connected(key))

    async def wait_connected(self, keys: Iterable[bytes] | None = None) -> None:
        await trio.lowlevel.checkpoint()

    async def wait_disconnected(self, key: bytes) -> None:
        await trio.sleep_forever()

    def statistics(self) -> TransportStatistics:
        return TransportStatistics({self.link.runner: PeerStatistics(True, 1, self.sent, 0, 0, None)}, 0)


class SeatView:
    """A running transport seen as the follow-on table's: its peers are ``keys`` (minus mine
    and those in ``via``), each reached over ``base``, and at the runner the bot, over
    ``link``. ``via``: a member reached only through another (the bot, for the others: its
    runner relays), connected while that one is. :meth:`run` starts reading ``base`` (and
    the bot); :meth:`close` stops that, ``base`` runs on."""

    def __init__(self, base: Transport, keys: Sequence[bytes], link: BotLink | None = None,
                 via: dict[bytes, bytes] | None = None) -> None:
        self.base = base
        self.link = link
        self.via = dict(via or {})
        self._peers = tuple(k for k in keys if k != base.key and k not in self.via)
        self._send, self._received = trio.open_memory_channel[tuple[bytes, bytes]](math.inf)
        self._scope = trio.CancelScope()
        self.bot_received = 0
        if link is not None:
            link.bot_side.view = self

    @property
    def key(self) -> bytes:
        return self.base.key

    @property
    def peers(self) -> tuple[bytes, ...]:
        return self._peers

    @property
    def received(self) -> trio.MemoryReceiveChannel[tuple[bytes, bytes]]:
        return self._received

    @property
    def offline(self) -> bool:
        return self.base.offline

    def _is_bot(self, key: bytes) -> bool:
        return self.link is not None and key == self.link.bot

    async def run(self, *, task_status: trio.TaskStatus[Any] = trio.TASK_STATUS_IGNORED) -> None:
        async def pump(channel: trio.MemoryReceiveChannel[tuple[bytes, bytes]]) -> None:
            async for item in channel:
                if channel is not self.base.received:
                    self.bot_received += 1
                await self._send.send(item)

        with self._scope:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(pump, self.base.received)
                if self.link is not None:
                    nursery.start_soon(pump, self.link.to_runner)
                task_status.started()
                await trio.sleep_forever()

    def close(self) -> None:
        self._scope.cancel()

    async def send(self, key: bytes, frame: bytes) -> None:
        if self._is_bot(key):
            self.send_nowait(key, frame)
        else:
            await self.base.send(key, frame)

    def send_nowait(self, key: bytes, frame: bytes) -> None:
        if self.link is not None and key == self.link.bot:
            self.link.to_bot_send.send_nowait((self.base.key, frame))
        else:
            self.base.send_nowait(key, frame)

    async def broadcast(self, frame: bytes) -> None:
        for key in self._peers:
            await self.send(key, frame)

    def is_connected(self, key: bytes) -> bool:
        return self._is_bot(key) or self.base.is_connected(self.via.get(key, key))

    async def wait_connected(self, keys: Iterable[bytes] | None = None) -> None:
        wanted = [k for k in (self._peers if keys is None else keys) if not self._is_bot(k)]
        await self.base.wait_connected(wanted)

    async def wait_disconnected(self, key: bytes) -> None:
        if self._is_bot(key):
            await trio.sleep_forever()
        await self.base.wait_disconnected(self.via.get(key, key))

    def statistics(self) -> TransportStatistics:
        base = self.base.statistics()
        peers = {k: base.peers[k] for k in self._peers if k in base.peers}
        if self.link is not None:
            peers[self.link.bot] = PeerStatistics(True, 1, 0, self.bot_received, 0, None)
        return TransportStatistics(peers, base.refused)


async def play_replaced_seat(identity: Identity, transport: Transport, agreed: ReplaceSeat, *, player: Player,
                             transcript_path: Any, bot_player: Player | None = None, bot_transcript_path: Any = None,
                             bot_options: dict[str, Any] | None = None,
                             **options: Any) -> tuple[TableResult, TableResult | None]:
    """Play the ``replace-seat`` table over the running ``transport``: my seat with
    ``player``, and, at the runner, the bot's seat with ``bot_player`` (its own session,
    its own transcript ``bot_transcript_path``) side by side. ``options`` go to my
    :func:`run_table`, ``bot_options`` to the bot's. Returns (mine, the bot's or None)."""
    roster = agreed.roster
    assert roster is not None and agreed.config is not None
    link = BotLink(identity.public_key, agreed.bot.public_key) if agreed.bot is not None else None
    via = {agreed.bot_key: agreed.runner} if link is None and agreed.bot_key is not None else {}
    view = SeatView(transport, roster.keys, link, via)
    results: list[TableResult | None] = [None, None]

    async def mine() -> None:
        results[0] = await run_table(identity, roster, agreed.config, player=player, transcript_path=transcript_path,
                                     transport=view, transport_running=True, early_frames=agreed.early, **options)

    async def bot() -> None:
        assert link is not None and agreed.bot is not None and bot_player is not None
        results[1] = await run_table(agreed.bot, roster, agreed.config, player=bot_player,
                                     transcript_path=bot_transcript_path, transport=link.bot_side,
                                     transport_running=True, **(bot_options or {}))

    async with trio.open_nursery() as nursery:
        await nursery.start(view.run)
        async with trio.open_nursery() as tables:
            tables.start_soon(mine)
            if link is not None:
                tables.start_soon(bot)
        view.close()
    assert results[0] is not None
    return results[0], results[1]
