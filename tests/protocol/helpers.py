"""An in-memory table of deck sessions over a fake wire (like h11's tests/helpers.py)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import replace

from p2p_sasaki.protocol.crypto import IdentityKey, SeededEntropy
from p2p_sasaki.protocol.deck import DeckSession, Event, Violation
from p2p_sasaki.protocol.messages import decode_envelope, sign_envelope

TABLE = bytes(range(32))


def identities(n: int, seed: bytes = b"keys") -> list[IdentityKey]:
    entropy = SeededEntropy(seed)
    return [IdentityKey.generate(entropy) for _ in range(n)]


Tamper = Callable[[int, bytes], bytes | list[bytes] | None]


class Table:
    """n sessions; every envelope a seat sends goes to every other seat, in order.

    ``tamper(seat, envelope)`` may replace what a seat sends (a cheater), drop it (None)
    or send several envelopes instead.
    """

    def __init__(self, n: int = 4, n_cards: int = 48, seed: bytes = b"table", hand_no: int = 1,
                 tamper: Tamper | None = None, observer: bool = False, **options) -> None:
        self.n = n
        self.keys = identities(n)
        public = [k.public_key for k in self.keys]
        self.sessions = [
            DeckSession(s, n, n_cards, self.keys[s], public, TABLE, hand_no,
                        rng=SeededEntropy(seed + bytes([s])), **options)
            for s in range(n)
        ]
        self.observer = DeckSession(None, n, n_cards, None, public, TABLE, hand_no, **options) if observer else None
        self.events: list[list[Event]] = [[] for _ in range(n)]
        self.wire: deque[tuple[int, bytes]] = deque()
        self.tamper = tamper
        self.sent: list[bytes] = []

    def post(self, seat: int, envelopes: list[bytes]) -> None:
        for envelope in envelopes:
            out = self.tamper(seat, envelope) if self.tamper else envelope
            if out is None:
                continue
            for item in out if isinstance(out, list) else [out]:
                self.sent.append(item)
                self.wire.append((seat, item))

    def deliver(self, seat: int, envelope: bytes) -> None:
        for s, session in enumerate(self.sessions):
            if s != seat:
                session.receive(envelope, from_seat=seat)
        if self.observer is not None:
            self.observer.receive(envelope, from_seat=seat)

    def collect(self) -> None:
        for s, session in enumerate(self.sessions):
            self.post(s, session.take_outgoing())
            self.events[s].extend(session.take_events())

    def run(self) -> None:
        """Deliver everything, doing queued work only when the wire is empty."""
        while True:
            self.collect()
            if self.wire:
                self.deliver(*self.wire.popleft())
                continue
            if not any(session.step() for session in self.sessions):
                if self.observer is not None:
                    self.observer.run_pending()
                self.collect()
                if not self.wire:
                    return

    def hand(self, seat: int) -> tuple[int, ...]:
        """The cards dealt to ``seat`` (its session's hand, which it knows once dealt)."""
        hand = self.sessions[seat].hand
        assert hand is not None, f"seat {seat} has no hand yet"
        return hand

    def start(self) -> None:
        for s, session in enumerate(self.sessions):
            self.post(s, session.start())
        self.run()

    def violations(self, seat: int) -> list[Violation]:
        return [e for e in self.events[seat] if isinstance(e, Violation)]

    def of_type(self, seat: int, kind: type) -> list:
        return [e for e in self.events[seat] if isinstance(e, kind)]


def resign(envelope: bytes, key: IdentityKey, **changes) -> bytes:
    """Re-sign an envelope with some body fields (or the payload) changed."""
    body = decode_envelope(envelope).body
    return sign_envelope(replace(body, **changes), key)


def payload_of(envelope: bytes):
    return decode_envelope(envelope).body.payload
