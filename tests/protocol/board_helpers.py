"""A round's board among P players in memory: every envelope goes to every other player and an
observer (the audit's view), in order or shuffled by a seeded rng; ``tamper`` may change what
a player sends."""

from __future__ import annotations

import random
from collections.abc import Callable

from p2p_sasaki.protocol.board import BoardSession, Seating, board_id
from p2p_sasaki.protocol.crypto import IdentityKey, SeededEntropy

TOURNAMENT = bytes(range(32))

# what player i sends: its envelope -> the envelopes that go out instead
BoardTamper = Callable[[int, bytes], "list[bytes]"]


def player_identities(players: int, seed: bytes = b"tournament-keys") -> list[IdentityKey]:
    entropy = SeededEntropy(seed)
    return [IdentityKey.generate(entropy) for _ in range(players)]


def straight_seating(players: int) -> Seating:
    """Players 0..3 at table 0, 4..7 at table 1, ...; the rest have byes."""
    tables = tuple(tuple(range(4 * t, 4 * t + 4)) for t in range(players // 4))
    return Seating(tables, tuple(range(4 * len(tables), players)))


class BoardNet:
    def __init__(self, players: int, seating: Seating | None = None, seed: int = 0, proofs: bool = True,
                 tamper: BoardTamper | None = None, round_no: int = 1, shuffled: bool = False) -> None:
        self.players = players
        self.seating = seating or straight_seating(players)
        self.ids = player_identities(players)
        self.keys = [i.public_key for i in self.ids]
        self.board_id = board_id(TOURNAMENT, round_no, self.seating, self.keys)
        self.sessions = [BoardSession(players, p, self.ids[p], self.keys, self.board_id, self.seating,
                                      rng=SeededEntropy(b"board-%d-%d" % (p, seed)), proofs=proofs)
                         for p in range(players)]
        self.observer = BoardSession(players, None, None, self.keys, self.board_id, self.seating, proofs=proofs)
        self.tamper = tamper
        self.rng = random.Random(seed) if shuffled else None
        self.queue: list[tuple[int, bytes]] = []
        self.events: list[list] = [[] for _ in range(players + 1)]
        self.sent: list[bytes] = []   # every envelope sent, in order (the board file's messages)

    def send(self, player: int, envelopes: list[bytes]) -> None:
        for envelope in envelopes:
            for out in (self.tamper(player, envelope) if self.tamper else [envelope]):
                self.queue.append((player, out))
                self.sent.append(out)

    def start(self) -> None:
        for p, session in enumerate(self.sessions):
            self.send(p, session.start())

    def run(self) -> None:
        """Deliver everything and do all proof work until nothing moves."""
        everyone = [*self.sessions, self.observer]
        while True:
            if self.queue:
                index = self.rng.randrange(len(self.queue)) if self.rng else 0
                sender, envelope = self.queue.pop(index)
                for p, session in enumerate(everyone):
                    if p != sender:
                        session.receive(envelope)
            elif not any(session.step() for session in everyone):
                break
            for p, session in enumerate(self.sessions):
                self.send(p, session.take_outgoing())
            for p, session in enumerate(everyone):
                self.events[p] += session.take_events()

    def done(self, table: int, chain: bytes, results: tuple[int, ...], leavers: tuple[int, ...] = ()) -> None:
        for p in self.seating.tables[table]:
            if p not in leavers:
                self.send(p, self.sessions[p].done(table, chain, results, leavers))

    def of_type(self, p: int, kind: type) -> list:
        return [e for e in self.events[p] if isinstance(e, kind)]
