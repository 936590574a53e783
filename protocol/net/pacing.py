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
    """The fair windows' one scheduler (docs/protocol.md, "Window pacing"): my frames are
    released in signing order, each no earlier than its due time (trio time, so a MockClock
    run is exact); relays of the other seats' frames go at once, past them.
    ``due(kind, opened)`` is the release time of an answer to a decision of ``kind`` opened
    at ``opened``."""

    def __init__(self, pace: Pace) -> None:
        self.pace = pace
        self.queue: list[tuple[float, bytes]] = []
        self.relays: list[bytes] = []
        self._last = float("-inf")

    def due(self, kind: str, opened: float) -> float:
        return opened + self.pace.delay(kind)

    def hold(self, frame: bytes, at: float) -> None:
        """Queue ``frame`` (mine) for ``at`` (never before a frame of mine queued earlier)."""
        self._last = max(self._last, at)
        self.queue.append((self._last, frame))

    def relay(self, frame: bytes) -> None:
        """Queue another seat's ``frame`` (a relay) for the next release, whatever mine wait for."""
        self.relays.append(frame)

    def last_held(self) -> float:
        """The due time of the last frame of mine still held (-inf: none)."""
        return self.queue[-1][0] if self.queue else float("-inf")

    def take_due(self, now: float) -> list[bytes]:
        n = 0
        while n < len(self.queue) and self.queue[n][0] <= now:
            n += 1
        out = self.relays + [f for _, f in self.queue[:n]]
        self.relays = []
        del self.queue[:n]
        return out

    def next_due(self) -> float:
        if self.relays:
            return float("-inf")
        return self.queue[0][0] if self.queue else float("inf")
