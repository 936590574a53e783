"""Reliability: what this peer re-sends (protocol/net/table.py's module docstring,
"Transport reliability"): the frames it broadcast that a peer may still need."""

from __future__ import annotations

from p2p_sasaki.protocol.messages import MessageError, decode_envelope

__all__ = ["SentLog"]

class SentLog:
    """Every envelope this peer broadcast that a peer may still need (see the module
    docstring, "Transport reliability"): the newest hand's, plus the last slot of
    the hand before, plus ``pinned`` frames (the creator's table options)."""

    def __init__(self) -> None:
        self.pinned: list[bytes] = []
        self.hand = -1
        self._frames: dict[int, list[tuple[int, bytes]]] = {}   # hand -> [(slot, frame)] in send order

    def add(self, frame: bytes) -> None:
        try:
            body = decode_envelope(frame).body
        except MessageError:
            return
        if body.hand > self.hand:
            self.hand = body.hand
            for hand in list(self._frames):
                if hand < self.hand - 1:
                    del self._frames[hand]
                elif hand == self.hand - 1:
                    last = max(slot for slot, _ in self._frames[hand])
                    self._frames[hand] = [(slot, f) for slot, f in self._frames[hand] if slot == last]
        elif body.hand < self.hand - 1:
            return
        self._frames.setdefault(body.hand, []).append((body.slot, frame))

    def frames(self) -> list[bytes]:
        """Oldest first: pinned frames, then by hand, each in send order."""
        return self.pinned + [f for hand in sorted(self._frames) for _, f in self._frames[hand]]

    def __len__(self) -> int:
        return len(self.pinned) + sum(len(v) for v in self._frames.values())
