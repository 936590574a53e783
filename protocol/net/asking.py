"""Asking: what the driver asks of a seat's player (protocol/net/table.py runs it). A
:class:`Player` is asked for an answer to each decision of its seat (a :class:`Turn`) and,
optionally, what to do when the table has waited past its stall deadline (a
:class:`Stalled`); a bot is a :class:`BotPlayer`.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from typing import Any, Protocol

import trio

__all__ = ["Turn", "Player", "BotPlayer", "Stalled", "CannotAbandon", "PlayerLeft", "player_left", "bot_stall_choice",
           "STALL_CHOICES", "WAIT", "ABANDON", "END", "BOT", "THINK_SHARE", "think_budget"]

WAIT, ABANDON, END, BOT = "wait", "abandon", "end", "bot"
STALL_CHOICES = (WAIT, ABANDON, END, BOT)
"""The choices at the stall deadline (docs/usage.md, "When a player stops answering"): keep
waiting (asked again one stall deadline later, even when an awaited seat left), abandon the
hand (the match goes on with the next hand), end the match (abandon the hand, no further
hands), or go on with a bot in the seat (only when :attr:`Stalled.bot_seat`: end this table
like "end", then the present seats agree on a ``replace-seat`` table, protocol/net/botseat.py)."""


class PlayerLeft(Exception):
    """Raised by a player's ``decide`` when its person quits for good (``quit``, confirmed):
    the driver signs a leave notice, sends it, then lets this exception end the table."""


def player_left(error: BaseException) -> PlayerLeft | None:
    """The :class:`PlayerLeft` that ``error`` is or holds: a player that asks in tasks of its
    own (a terminal reading while a page may answer) raises it wrapped in an exception group,
    and a quit must not read as a crash (the leave notice would never be sent)."""
    if isinstance(error, PlayerLeft):
        return error
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            left = player_left(inner)
            if left is not None:
                return left
    return None


@dataclass(frozen=True)
class Stalled:
    """Driver event, and the question put to the player (``Player.stalled``): the table has
    waited for ``seats`` (not mine) since ``since`` (trio time) in ``hand``/``slot``, past the
    table's stall deadline, or ``left`` (those of them that signed a leave notice) at once."""

    hand: int
    slot: int
    seats: tuple[int, ...]
    since: float
    left: tuple[int, ...] = ()
    again: tuple[int, ...] = ()
    """Those of ``seats`` that an earlier hand of this match was already abandoned for."""
    bot_seat: bool = False
    """:data:`BOT` may be chosen: one seat is awaited and this is not the match's last hand."""


@dataclass(frozen=True)
class CannotAbandon:
    """Driver event: my player chose to abandon (or end, or a bot) at the stall question, but
    the abandon cannot be signed now; ``reason`` says why and what can be done (e.g. two of
    four seats awaited together: wait for one of them, or leave). The table keeps waiting: the
    question comes again one stall deadline later, or at once when the awaited seats change."""

    hand: int
    slot: int
    seats: tuple[int, ...]
    reason: str


@dataclass(frozen=True)
class Turn:
    """What a player is shown when asked for an action: a snapshot, safe to keep."""

    seat: int
    decision: Any            # p2p_sasaki.sasaki.hand.Decision
    view: Any                # p2p_sasaki.sasaki.hand.SeatView
    legal: tuple[Any, ...]   # p2p_sasaki.sasaki.hand.Action, the legal answers now
    opened: float | None = None   # trio.current_time() when the decision opened (None: now)
    delay: float = 0.0       # seconds after ``opened`` at which any answer goes out (fair windows)
    answer_deadline: float | None = None   # seconds after ``opened`` a person may think (table option)
    rule: Any = None         # an open bot's seat: the open bot's rule answer, sent instead of asking the player


class Player(Protocol):
    async def decide(self, turn: Turn) -> Any:
        """Return an action for ``turn``; cancelled if the decision goes away. Raise
        :class:`PlayerLeft` to leave the table for good."""

    # Optional: ``async def stalled(self, stall: Stalled) -> str`` returns one of
    # STALL_CHOICES (cancelled if the awaited seats answer meanwhile); a player without it
    # chooses as a bot does (:meth:`BotPlayer.stalled`).


class BotPlayer:
    """A :class:`p2p_sasaki.sasaki.bots.Bot` (``choose(view, legal)``) as a player.

    A bot that sets ``thinks = True`` (the search bot: up to seconds of CPU) is asked
    in a worker thread, so its thinking never blocks this peer's network loop; a
    cancelled decision waits for the thread to return (the search's budget bounds it).
    At a paced table such a bot is given ``choose(view, legal, seconds=..., clock=...)``: what is
    left of :data:`THINK_SHARE` of the decision's delay, so its answer is ready strictly
    before it is due (docs/protocol.md, "Window pacing"); with no delay, its rollouts only.
    ``is_bot``: the driver never declines for it at a window's due time (a person who has
    not decided by then has declined); its answers are held to their due time like a person's.
    """

    is_bot = True

    def __init__(self, bot: Any, delay: float = 0.0) -> None:
        self.bot = bot
        self.delay = delay

    async def decide(self, turn: Turn) -> Any:
        if self.delay:
            await trio.sleep(self.delay)
        if getattr(self.bot, "thinks", False):
            seconds = think_budget(turn, trio.current_time())
            if seconds is None:
                return await trio.to_thread.run_sync(self.bot.choose, turn.view, turn.legal)
            return await trio.to_thread.run_sync(functools.partial(self.bot.choose, turn.view, turn.legal,
                                                                   seconds=seconds, clock=time.monotonic))
        return self.bot.choose(turn.view, turn.legal)

    async def stalled(self, stall: Stalled) -> str:
        """A bot abandons the hand at the stall deadline (the player may come back for the
        next hand), and ends the match when an awaited seat signed a leave notice or was
        already abandoned in an earlier hand (it did not come back)."""
        return bot_stall_choice(stall)


THINK_SHARE = 0.6
"""A thinking bot's answer is due at the decision's open + delay; it thinks until open +
THINK_SHARE x delay at most (the rest is margin for a loaded machine and the thread)."""


def think_budget(turn: Turn, now: float) -> float | None:
    """Seconds a thinking bot may spend on ``turn`` from ``now``: strictly below what is left
    of the decision's delay (0 when that share is spent: one sample, then the best so far);
    None when the decision has no delay (a fast table: no time to hide, the rollouts decide).

    >>> think_budget(Turn(0, None, None, (), opened=10.0, delay=1.0), now=10.1)
    0.5
    >>> think_budget(Turn(0, None, None, (), opened=10.0, delay=0.0), now=10.1) is None
    True
    """
    if turn.delay <= 0:
        return None
    opened = turn.opened if turn.opened is not None else now
    return round(max(0.0, opened + THINK_SHARE * turn.delay - now), 6)


def bot_stall_choice(stall: Stalled) -> str:
    """What a bot (and a player without ``stalled``) chooses: see :meth:`BotPlayer.stalled`."""
    return END if stall.left or stall.again else ABANDON
