"""Pacing: the fair windows' one scheduler (docs/protocol.md, "Window pacing"). The delays
are the game's own pacing kinds (protocol/pace.py); trio time, so a MockClock run is exact."""

from __future__ import annotations

from dataclasses import dataclass

from p2p_sasaki.protocol.pace import Pace

__all__ = ["Pacer", "WindowOpened"]


@dataclass(frozen=True)
class WindowOpened:
    """Driver event: a paced decision of mine opened at ``at`` (trio time): a window, the
    opening slot ("lead") or a bot's turn; my answer goes out at ``at + delay`` (a person's
    later answer when given). ``slot``: the session's slot number in ``hand``."""

    hand: int
    slot: int
    kind: str
    at: float
    delay: float


class Pacer:
    """The fair windows' one scheduler (docs/protocol.md, "Window pacing"): frames are
    released in order, each no earlier than its due time (trio time, so a MockClock run is
    exact). ``due(kind, opened)`` is the release time of an answer to a decision of ``kind``
    opened at ``opened``."""

    def __init__(self, pace: Pace) -> None:
        self.pace = pace
        self.queue: list[tuple[float, bytes]] = []
        self._last = float("-inf")

    def due(self, kind: str, opened: float) -> float:
        return opened + self.pace.delay(kind)

    def hold(self, frame: bytes, at: float) -> None:
        """Queue ``frame`` for ``at`` (never before a frame queued earlier: order is kept)."""
        self._last = max(self._last, at)
        self.queue.append((self._last, frame))

    def take_due(self, now: float) -> list[bytes]:
        n = 0
        while n < len(self.queue) and self.queue[n][0] <= now:
            n += 1
        out = [f for _, f in self.queue[:n]]
        del self.queue[:n]
        return out

    def next_due(self) -> float:
        return self.queue[0][0] if self.queue else float("inf")
