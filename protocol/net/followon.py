"""Agreeing on a follow-on table over the finished table's links (protocol/followon.py).

::

    outcome = await agree_follow_on(transport, identity, FollowOn(roster, result.final_hash, key),
                                    decide, answer_seconds=30, frames=result.follow_on)
    if outcome.roster is not None:
        result = await run_table(identity, outcome.roster, config, transport=transport,
                                 transport_running=True, early_frames=outcome.early, ...)

``decide()`` is asked once (a person's prompt, a bot's own yes); what it does not answer
within ``answer_seconds`` is a decline, signed and sent like a typed "no". Every answer is
relayed once to the others (the first copy of each member's answer). The agreement ends
as soon as the outcome is known (everyone accepted, or someone declined), or, with my own
answer given, ``grace`` seconds after my answer deadline (a member that never answers:
its peer is gone). Frames for the next table that arrive meanwhile are kept in
``early``. Before it returns, what I queued (my answer, relays) is given up to
``drain`` seconds to leave, so a decline reaches the others before this peer exits.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

import trio

from p2p_sasaki.protocol.crypto import Entropy, system_entropy
from p2p_sasaki.protocol.followon import Agreed, Declined, FollowOn, is_follow_on
from p2p_sasaki.protocol.messages import TableRoster
from p2p_sasaki.protocol.net.identity import Identity
from p2p_sasaki.protocol.net.transport import Transport

__all__ = ["FollowOnOutcome", "agree_follow_on"]


@dataclass
class FollowOnOutcome:
    roster: TableRoster | None              # agreed: the follow-on table's roster
    declined: bytes | None = None           # the member that declined (or answered both ways)
    missing: tuple[bytes, ...] = ()         # the members whose answer never came
    mine: bool | None = None                # my own answer (None: the outcome came before it)
    timed_out: bool = False                 # my own answer was a decline because time was up
    early: list[tuple[bytes, bytes]] = field(default_factory=list)


async def agree_follow_on(transport: Transport, identity: Identity, agreement: FollowOn,
                          decide: Callable[[], Awaitable[bool]], answer_seconds: float, *,
                          frames: Sequence[tuple[bytes, bytes]] = (), grace: float = 10.0,
                          drain: float = 5.0, entropy: Entropy = system_entropy) -> FollowOnOutcome:
    outcome = FollowOnOutcome(None)
    done = trio.Event()

    async def take(frame: bytes) -> None:
        relay = agreement.receive(frame)
        if relay is not None:
            await transport.broadcast(relay)
        if agreement.outcome is not None:
            done.set()

    async def read() -> None:
        async for peer, frame in transport.received:
            if is_follow_on(frame):
                await take(frame)
            else:
                outcome.early.append((peer, frame))   # the next table's first frames

    async def ask() -> None:
        accept = False
        with trio.move_on_after(answer_seconds) as scope:
            accept = await decide()
        outcome.mine, outcome.timed_out = accept, scope.cancelled_caught and not accept
        if done.is_set():
            return
        frame = agreement.answer(identity, accept, entropy(32))   # taken as received already
        await transport.broadcast(frame)
        if agreement.outcome is not None:
            done.set()

    async with trio.open_nursery() as nursery:
        for _, frame in frames:
            await take(frame)
        nursery.start_soon(read)
        if not done.is_set():
            nursery.start_soon(ask)
            with trio.move_on_after(answer_seconds + grace):
                await done.wait()
        nursery.cancel_scope.cancel()
    result = agreement.outcome
    if isinstance(result, Agreed):
        outcome.roster = result.roster
    elif isinstance(result, Declined):
        outcome.declined = result.key
    else:
        outcome.missing = agreement.missing
    with trio.move_on_after(drain):       # my answer and relays leave before the caller goes on
        while transport.statistics().sending:
            await trio.sleep(0.05)
    return outcome
