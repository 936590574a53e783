"""A table's TableSessions (four for Sasaki) over a seeded hostile in-memory network (reorder, duplicate, delay)."""

from __future__ import annotations

import random
from collections.abc import Callable

from p2p_sasaki.protocol.crypto import IdentityKey, SeededEntropy
from p2p_sasaki.protocol.dealing import Dealer
from p2p_sasaki.protocol.sasaki_game import SasakiGame
from p2p_sasaki.protocol.session import Blame, Record, TableConfig, TableSession, game_of
from p2p_sasaki.sasaki.options import TableOptions

TABLE_ID = bytes(range(100, 132))


def identities(seed: bytes = b"table-keys", n: int = 4) -> list[IdentityKey]:
    entropy = SeededEntropy(seed)
    return [IdentityKey.generate(entropy) for _ in range(n)]


# what a peer sends: (sender index, envelope) -> list of (destination index, envelope)
Tamper = Callable[[int, bytes], "list[tuple[int, bytes]] | None"]


class Net:
    """Peers by roster index. ``hostile``: each step delivers a random queued envelope
    (reordering), sometimes twice (duplication); proof work runs only at random times
    (delay). ``bot(session, rng)`` answers a pending decision."""

    def __init__(self, seed: int = 0, hostile: bool = True, config: TableConfig | None = None,
                 keys_seed: bytes = b"table-keys", tamper: Tamper | None = None, bot=None,
                 table_id: bytes = TABLE_ID, names: tuple[str, ...] = (), keys: list[IdentityKey] | None = None,
                 dealers: list[Dealer] | None = None) -> None:
        self.rng = random.Random(seed)
        self.hostile = hostile
        self.config = config or TableConfig(hands=1, game=SasakiGame(TableOptions(lead_card="3H")), proofs=False)
        self.n = n = game_of(self.config).seats
        self.keys = keys if keys is not None else identities(keys_seed, n)
        roster = [k.public_key for k in self.keys]
        self.peers = [TableSession(self.keys[i], roster, table_id, self.config,
                                   rng=SeededEntropy(b"peer%d-%d" % (i, seed)), roster_names=names,
                                   dealer=dealers[i] if dealers else None)
                      for i in range(n)]
        self.events: list[list] = [[] for _ in range(n)]
        self.queue: list[tuple[int, int, bytes]] = []   # (from, to, envelope)
        self.tamper = tamper
        self.bot = bot if bot is not None else random_bot
        self.bot_rng = random.Random(seed * 7919 + 1)

    def start(self) -> None:
        for peer in self.peers:
            peer.start()
        self.flush()

    def flush(self) -> None:
        for i, peer in enumerate(self.peers):
            for envelope in peer.take_outgoing():
                sends = self.tamper(i, envelope) if self.tamper else None
                if sends is None:
                    sends = [(j, envelope) for j in range(self.n) if j != i]
                for j, data in sends:
                    self.queue.append((i, j, data))
            self.events[i].extend(peer.take_events())

    def act_bots(self) -> bool:
        acted = False
        for peer in self.peers:
            if peer.pending_for_me is not None:
                self.bot(peer, self.bot_rng)
                acted = True
        return acted

    def run(self, max_steps: int = 10_000_000) -> None:
        for _ in range(max_steps):
            self.flush()
            if self.queue and (not self.hostile or self.rng.random() < 0.9):
                index = self.rng.randrange(len(self.queue)) if self.hostile else 0
                sender, to, data = self.queue.pop(index)
                if self.hostile and self.rng.random() < 0.05:
                    self.queue.append((sender, to, data))  # duplicate
                self.peers[to].receive(data, self.keys[sender].public_key)
                continue
            if self.act_bots():
                continue
            order = list(range(self.n))
            if self.hostile:
                self.rng.shuffle(order)
            if any(self.peers[i].step() for i in order):
                continue
            self.flush()
            if not self.queue and not any(p.pending_for_me is not None for p in self.peers):
                return
        raise AssertionError("the table did not settle")

    def run_until_quiet(self) -> None:
        """Deliver everything (in order, or shuffled if hostile) and do all work; no bots."""
        while True:
            self.flush()
            if self.queue:
                index = self.rng.randrange(len(self.queue)) if self.hostile else 0
                sender, to, data = self.queue.pop(index)
                self.peers[to].receive(data, self.keys[sender].public_key)
                continue
            if any(p.step() for p in self.peers):
                continue
            self.flush()
            if not self.queue:
                return

    def transcript(self, i: int) -> bytes:
        return b"".join(e.data for e in self.events[i] if isinstance(e, Record))

    def blames(self, i: int) -> list[Blame]:
        return [e for e in self.events[i] if isinstance(e, Blame)]

    def of_type(self, i: int, kind: type) -> list:
        return [e for e in self.events[i] if isinstance(e, kind)]


def random_bot(session: TableSession, rng: random.Random) -> None:
    session.act(rng.choice(session.legal_actions))
