"""A tournament round's board: one deal shuffled by every player, dealt seat by seat to the
players who hold that seat at their tables (docs/protocol.md, "Board (duplicate tournaments)").

The deck of protocol/deck.py with P players in place of n seats, and one change: the owner of
a chain is a *player*, whose positions are those of the board seat it holds this round
(position k belongs to board seat k mod 4, so seat s's nine cards are the same at every
table); a bye owns nothing. For P players and N cards:

  1. commit   every player commits to a 32-byte nonce             (slot 0)
  2. nonce    every player reveals it; hand id = hash of them all   (slot 1)
  3. shuffle  player a publishes D_{a+1} = x_a * permute(D_a, pi_a), B_{a+1} = x_a * B_a,
              a = 0 .. P-1 in turn                                   (slot 2+a)
  4. proof    player a's shuffle argument, made while the next ones shuffle (slot 2+P+a)
  5. strip    rounds t = 1 .. P-1: player a strips its layer from owner (a - t) mod P's
              chain (none if that owner is a bye), one batched DLEQ    (slot 2+2P+t-1)
  6. deal     owner j holds V_k = x_j * M_c at its seat's positions; it alone reads them
  7. done     each table's players sign [table, final chain hash, results, leavers] (slot 3P+1)
  8. key      once every table is done, every player reveals x_a with the hash of the
              round's outcomes (slot 3P+2); the deal is read from the keys

The board's hash (over its public messages up to step 6) names it as a table's dealer;
:class:`~p2p_sasaki.protocol.board_dealer.BoardDealer` gives a table its cards from it.

A session takes envelopes with :meth:`BoardSession.receive`, queues the shuffle arguments
as the deck's pure jobs (:class:`~p2p_sasaki.protocol.deck.ProveHop`,
:class:`~p2p_sasaki.protocol.deck.VerifyHop`), puts envelopes to send in its outbox and
reports events. Received input never raises: a bad message becomes a :class:`Violation`
naming the player to blame.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from p2p_sasaki.protocol import crypto
from p2p_sasaki.protocol.crypto import CryptoError, Entropy, IdentityKey, ProofContext, system_entropy, u32
from p2p_sasaki.protocol.dealing import BOARD_DEALER_PREFIX, DealUnknown, DeckSource, HandSetup, SourceError
from p2p_sasaki.protocol.deck import (
    DealtLayers,
    DeckJob,
    HopMismatch,
    JobQueue,
    JobResult,
    ProveHop,
    SlotLayout,
    VerifyHop,
    draw_hop,
    hand_points,
    hop_permutation,
    hop_problem,
    read_cards,
    run_job,
    strip_holds,
    strip_layer,
)
from p2p_sasaki.protocol.messages import MessageError, Payload, SignedMessage
from p2p_sasaki.protocol.messages.board import (
    MAX_PLAYERS,
    BoardBody,
    BoardCommit,
    BoardDone,
    BoardHop,
    BoardKey,
    BoardMessage,
    BoardNonce,
    BoardPayload,
    BoardProof,
    BoardStrip,
    decode_board,
    sign_board,
    verify_board,
)

SEATS = 4

__all__ = [
    "SEATS", "BOARD_DEALER_PREFIX", "Seating", "SeatsPlayers", "seating_of", "board_id", "outcomes_hash", "Outcome",
    "BoardDealt", "TableDone", "BoardRevealed", "Violation", "BoardUsageError", "BoardSession",
    "BoardSource", "BoardDealer",
]


# ---------------------------------------------------------------------------------------
# The round's seating and the board's id
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Seating:
    """A round's seating: ``tables[t][s]`` the player (index in the tournament roster) in
    board seat s at table t; ``byes`` the players who sit out."""

    tables: tuple[tuple[int, ...], ...]
    byes: tuple[int, ...] = ()

    def check(self, players: int) -> None:
        """ValueError unless every one of ``players`` players is seated once or has a bye."""
        seated = [p for table in self.tables for p in table] + list(self.byes)
        if not self.tables or any(len(table) != SEATS for table in self.tables):
            raise ValueError("a seating has at least one table of four")
        if sorted(seated) != list(range(players)):
            raise ValueError(f"a seating places each of the {players} players once")

    def seat_of(self, player: int) -> tuple[int, int] | None:
        """(table, seat) of ``player``, or None for a bye."""
        for t, table in enumerate(self.tables):
            if player in table:
                return t, table.index(player)
        return None

    def encode(self) -> bytes:
        """The bytes the board id binds: u32(tables), each table's four players, u32(byes), the byes."""
        out = u32(len(self.tables)) + b"".join(u32(p) for table in self.tables for p in table)
        return out + u32(len(self.byes)) + b"".join(u32(p) for p in self.byes)


class SeatsPlayers(Protocol):
    """Any seating with the board's shape (the tournament's own, p2p_sasaki/sasku/tournament.py,
    which this layer may not import): ``tables[t][s]`` and ``byes``."""

    @property
    def tables(self) -> Sequence[Sequence[int]]: ...
    @property
    def byes(self) -> Sequence[int]: ...


def seating_of(seating: SeatsPlayers) -> Seating:
    """The board's :class:`Seating` of any seating of that shape."""
    return seating if isinstance(seating, Seating) else Seating(
        tuple(tuple(table) for table in seating.tables), tuple(seating.byes))


def board_id(tournament: bytes, round_no: int, seating: SeatsPlayers, player_keys: Sequence[bytes]) -> bytes:
    """The board's id: H32(board/id, tournament id, u32(round), seating, every player's key)."""
    return crypto.hash32(crypto.TAG_BOARD_ID, tournament, u32(round_no), seating_of(seating).encode(), *player_keys)


@dataclass(frozen=True)
class Outcome:
    """A table's agreed end: its final chain hash, line results and leavers."""

    chain: bytes
    results: tuple[int, ...]
    leavers: tuple[int, ...] = ()


def outcomes_hash(board: bytes, outcomes: Sequence[Outcome]) -> bytes:
    """H32(board/outcomes, board id, then per table in order: chain, results (i32 each),
    leavers (u32 each)): what a key reveal signs it waited for."""
    parts: list[bytes] = []
    for outcome in outcomes:
        parts += [outcome.chain, b"".join(r.to_bytes(4, "big", signed=True) for r in outcome.results),
                  b"".join(u32(p) for p in outcome.leavers)]
    return crypto.hash32(crypto.TAG_BOARD_OUTCOMES, board, *parts)


# ---------------------------------------------------------------------------------------
# Events
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BoardDealt:
    """The board is dealt (every hop, argument and strip checked): ``board_hash`` names it;
    ``cards`` my seat's cards in deal order (empty for a bye or an observer)."""

    board_hash: bytes
    seat: int | None
    cards: tuple[int, ...]


@dataclass(frozen=True)
class TableDone:
    """Table ``table``'s players all signed the same end."""

    table: int
    outcome: Outcome


@dataclass(frozen=True)
class BoardRevealed:
    """The keys are in: ``deal[k]`` the card at position k (seat k mod 4)."""

    deal: tuple[int, ...]


@dataclass(frozen=True)
class Violation:
    """A check failed: ``player`` to blame (None: nobody can be named from the board alone).
    ``step``: envelope, equivocation, slot, commit, nonce, shuffle, shuffle-proof, strip, deal,
    done, key, internal."""

    player: int | None
    step: str
    reason: str


Event = BoardDealt | TableDone | BoardRevealed | Violation


class BoardUsageError(RuntimeError):
    """The local caller asked for something impossible (never raised for received input)."""


class _Reject(Exception):
    def __init__(self, step: str, reason: str) -> None:
        super().__init__(reason)
        self.step, self.reason = step, reason


_STEP_OF = {BoardCommit: "commit", BoardNonce: "nonce", BoardHop: "shuffle", BoardProof: "shuffle-proof",
            BoardStrip: "strip", BoardDone: "done", BoardKey: "key"}


# ---------------------------------------------------------------------------------------
# The session
# ---------------------------------------------------------------------------------------


class BoardSession:
    """One player's view of a round's board (or an observer's, ``me=None``: the audit).

    >>> # b = BoardSession(P, me, identity, player_keys, board_id(...), seating)
    >>> # send(b.start()); for each envelope: b.receive(env); while b.step(): ...
    >>> # send(b.take_outgoing()); handle(b.take_events())
    >>> # dealt: b.dealer(t) is table t's dealer; at the table's end: send(b.done(t, chain, results))
    """

    def __init__(self, players: int, me: int | None, identity: IdentityKey | None, player_keys: Sequence[bytes],
                 board: bytes, seating: SeatsPlayers, n_cards: int = 36, rng: Entropy = system_entropy,
                 proofs: bool = True) -> None:
        seating = seating_of(seating)
        if not SEATS <= players <= MAX_PLAYERS or len(player_keys) != players or len(board) != 32:
            raise ValueError(f"a board has {SEATS}..{MAX_PLAYERS} players, one key each, and a 32-byte id")
        if n_cards % SEATS or not SEATS <= n_cards <= 256:
            raise ValueError("a board's cards divide among its four seats")
        seating.check(players)
        if me is not None and (not 0 <= me < players or identity is None
                               or identity.public_key != player_keys[me]):
            raise ValueError("a player needs its own identity key, matching the roster")
        self.players, self.me, self.n_cards, self.proofs = players, me, n_cards, proofs
        self.board_id = bytes(board)
        self.seating = seating
        self.player_keys = tuple(bytes(k) for k in player_keys)
        self.layout = SlotLayout(0, players)
        self.done_slot = self.layout.end
        self.key_slot = self.layout.end + 1
        self._identity, self._rng = identity, rng

        self.hand_id: bytes | None = None
        self.failed: Violation | None = None
        self.transcript: list[bytes] = []       # every authentic envelope, in acceptance order
        self.cards: tuple[int, ...] | None = None   # my seat's cards once dealt (() for a bye)
        self._hash: bytes | None = None
        self._deal: tuple[int, ...] | None = None

        self._commits: dict[int, bytes] = {}
        self._nonces: dict[int, bytes] = {}
        self._points: tuple[bytes, ...] = ()
        self._card_index: dict[bytes, int] = {}
        self._decks: list[tuple[tuple[bytes, ...], bytes]] = []
        self._verified: set[int] = set()
        self._strips: dict[tuple[int, int], tuple[bytes, ...]] = {}   # (round, stripper) -> values
        self._final: dict[int, tuple[bytes, ...]] = {}   # owner -> its positions' values under its layer
        self._dones: dict[int, BoardDone] = {}
        self._outcomes: dict[int, Outcome] = {}
        self._keys: dict[int, int] = {}
        self._messages: dict[tuple[int, int], BoardMessage] = {}   # (slot, player) -> accepted message

        self._nonce: bytes | None = None
        self._x: int | None = None
        self._perm: tuple[int, ...] | None = None
        self._started = False
        self._sent_nonce = False
        self._sent_done = False
        self._sent_key = False
        self._buffer: list[BoardMessage] = []
        self._jobs = JobQueue()
        self._events: list[Event] = []
        self._outbox: list[bytes] = []
        for round_ in range(1, players):    # a bye's chain is empty: nothing to strip, nothing sent
            for player in range(players):
                if not self.positions_of(self._owner(round_, player)):
                    self._strips[(round_, player)] = ()

    # -- public API ----------------------------------------------------------------------

    def positions_of(self, player: int) -> tuple[int, ...]:
        """The positions ``player`` owns: those of the board seat it holds (none for a bye)."""
        seat = self.seating.seat_of(player)
        return () if seat is None else tuple(range(seat[1], self.n_cards, SEATS))

    @property
    def board_hash(self) -> bytes:
        """H32(board/hash, board id, every message of slots 0..3P in (slot, player) order):
        the board as a table's dealer names it (b"p2p-sasaki/board/" + it)."""
        if self._hash is None:
            raise BoardUsageError("the board has no hash before it is dealt")
        return self._hash

    @property
    def dealer_name(self) -> bytes:
        return BOARD_DEALER_PREFIX + self.board_hash

    def dealt(self) -> bool:
        """Every hop, argument and strip checked (the tables can play)."""
        return self._hash is not None and self.failed is None

    def revealed(self) -> tuple[int, ...] | None:
        """The deal (the card at each position) once the keys are in."""
        return self._deal

    def outcome(self, table: int) -> Outcome | None:
        return self._outcomes.get(table)

    def leavers(self) -> frozenset[int]:
        """The players named as leavers by their tables' done (their keys are not waited for)."""
        return frozenset(p for outcome in self._outcomes.values() for p in outcome.leavers)

    def canonical_messages(self) -> list[bytes]:
        """Every envelope this session accepted or signed (a refused one too: it is the
        evidence), in (slot, player) order: the board file's records (protocol/board_audit.py)."""
        return [m.raw for _, m in sorted(self._messages.items())]

    def start(self) -> list[bytes]:
        """Commit to my nonce. Returns the envelopes to send."""
        if self.me is None or self._started:
            raise BoardUsageError("only a player starts, once")
        self._started = True
        self._nonce = self._rng(32)
        self._send(BoardCommit(self._commitment(self.me, self._nonce)), self.layout.commit)
        self._drain()
        return self.take_outgoing()

    def receive(self, envelope: bytes) -> None:
        """Take one board envelope (from any player's link: board messages are relayed as they
        are). One that is not authentic is reported without a player to blame."""
        try:
            try:
                message = decode_board(envelope)
            except MessageError as exc:
                self._events.append(Violation(None, "envelope", str(exc)))
                return
            body = message.body
            if body.board != self.board_id or body.player >= self.players or not verify_board(
                    message, self.player_keys[body.player]):
                self._events.append(Violation(None, "envelope", "not a message of this board's players"))
                return
            self._accept(message)
        except Exception as exc:  # a bug of ours, never the sender's fault: report, don't crash
            self._violation(None, "internal", f"unexpected {type(exc).__name__} while handling a message")

    def done(self, table: int, chain: bytes, results: Sequence[int], leavers: Sequence[int] = ()) -> list[bytes]:
        """Sign that my table ``table`` finished the deal: its final chain hash, results, and the
        players that left it. Returns the envelopes to send (my key follows by itself once
        every table is done)."""
        seat = self.seating.seat_of(self._me())
        if seat is None or seat[0] != table or not self.dealt() or self._sent_done:
            raise BoardUsageError("a dealt board's table players sign their own table's done, once")
        if self.me in leavers or not set(leavers) <= set(self.seating.tables[table]):
            raise BoardUsageError("the leavers of a done are other players of its table")
        self._sent_done = True
        message = BoardDone(table, bytes(chain), tuple(results), tuple(sorted(leavers)))
        self._send(message, self.done_slot)
        self._dones[self._me()] = message
        self._settle_table(table)
        self._drain()
        return self.take_outgoing()

    def step(self) -> bool:
        """Do one queued proof job here; False when there was none."""
        if not self._jobs or self.failed is not None:
            return False
        job = self._jobs.pop()
        try:
            result = run_job(job)
        except Exception as exc:   # a bug of ours, never a player's fault: report, don't crash
            self._jobs.finish(job)
            self._violation(None, "internal", f"unexpected {type(exc).__name__} in queued work")
            return True
        self.finish_job(job, result)
        return True

    def take_jobs(self) -> list[DeckJob]:
        """Hand out every queued job (proving first); give each result back with :meth:`finish_job`."""
        if self.failed is not None:
            return []
        return self._jobs.take_all()

    def finish_job(self, job: DeckJob, result: JobResult) -> None:
        if not self._jobs.finish(job):
            raise BoardUsageError("finish_job takes a job this session handed out, once")
        if self.failed is not None:
            return
        if isinstance(job, ProveHop):
            if not isinstance(result, crypto.ShuffleArgument):
                raise BoardUsageError("a ProveHop job gives a ShuffleArgument")
            self._send(BoardProof(result), self.layout.proof(job.hop))
            self._verified.add(job.hop)
        elif result is True:
            self._verified.add(job.hop)
            self._check_dealt()
        else:
            self._violation(job.hop, "shuffle-proof", f"player {job.hop}'s shuffle proof does not verify")
            return
        self._drain()

    def run_pending(self) -> None:
        while self.step():
            pass

    @property
    def pending_work(self) -> int:
        return len(self._jobs) if self.failed is None else 0

    def take_outgoing(self) -> list[bytes]:
        out, self._outbox = self._outbox, []
        return out

    def take_events(self) -> list[Event]:
        events, self._events = self._events, []
        return events

    def secrets(self) -> tuple[bytes | None, int | None, tuple[int, ...] | None]:
        """My nonce, board key and permutation (what a resume, or a test of what I know, reads)."""
        return self._nonce, self._x, self._perm

    def waiting_for(self) -> list[tuple[int, str]]:
        """(player, step) pairs the board waits on at its earliest unfinished step."""
        everyone = range(self.players)
        if len(self._commits) < self.players:
            return [(p, "commit") for p in everyone if p not in self._commits]
        if self.hand_id is None:
            return [(p, "nonce") for p in everyone if p not in self._nonces]
        if len(self._decks) <= self.players:
            return [(len(self._decks) - 1, "shuffle")]
        if self.proofs and len(self._verified) < self.players:
            return [(p, "shuffle-proof") for p in everyone if p not in self._verified]
        for round_ in range(1, self.players):
            missing = [(p, "strip") for p in everyone if (round_, p) not in self._strips]
            if missing:
                return missing
        undone = [p for t, table in enumerate(self.seating.tables) if t not in self._outcomes
                  for p in table if p not in self._dones]
        if undone:
            return [(p, "done") for p in undone]
        return [(p, "key") for p in everyone if p not in self._keys and p not in self.leavers()]

    # -- what a table's dealer reads (protocol/board_dealer.py) -----------------------------

    @property
    def card_points(self) -> tuple[bytes, ...]:
        return self._points

    def lock(self, player: int) -> tuple[bytes, bytes]:
        """Player's board layer (B_j, B_{j+1} = x_j * B_j)."""
        return self._decks[player][1], self._decks[player + 1][1]

    def final_values(self, player: int) -> tuple[bytes, ...]:
        """V_k = x_j * M_c at the positions of player j's seat (its chain's end)."""
        return self._final[player]

    def dealer(self, table: int) -> BoardDealer:
        """Table ``table``'s dealer (for its TableConfig's ``dealer`` = :attr:`dealer_name` and
        the TableSession's ``dealer``): its hand is dealt from this board."""
        if not self.dealt() or not 0 <= table < len(self.seating.tables):
            raise BoardUsageError("a dealt board deals to one of its tables")
        return BoardDealer(self, table)

    def key_of(self, player: int) -> int | None:
        """A player's board key: mine, or another's once revealed."""
        return self._x if player == self.me else self._keys.get(player)

    # -- receiving -----------------------------------------------------------------------

    def _accept(self, message: BoardMessage) -> None:
        body = message.body
        key = (body.slot, body.player)
        seen = self._messages.get(key)
        if seen is not None:
            if seen.body_bytes != message.body_bytes:
                self._violation(body.player, "equivocation",
                                f"player {body.player} signed two different messages for slot {body.slot}")
            return
        if body.player == self.me:
            return   # my own, from before this session: ignore
        if self.failed is not None:
            return
        self._messages[key] = message
        self.transcript.append(message.raw)
        try:
            self._check_slot(body)
        except _Reject as rejection:
            self._violation(body.player, rejection.step, rejection.reason)
            return
        self._buffer.append(message)
        self._drain()

    def _check_slot(self, body: BoardBody) -> None:
        payload, player, layout = body.payload, body.player, self.layout
        expected = {BoardCommit: layout.commit, BoardNonce: layout.nonce, BoardDone: self.done_slot,
                    BoardKey: self.key_slot}.get(type(payload))
        if isinstance(payload, BoardHop):
            expected = layout.hop(player)
        elif isinstance(payload, BoardProof):
            if not self.proofs:
                raise _Reject("shuffle-proof", "shuffle proofs are off for this board")
            expected = layout.proof(player)
        elif isinstance(payload, BoardStrip):
            if not 1 <= payload.round < self.players:
                raise _Reject("strip", f"there is no strip round {payload.round}")
            if not self.positions_of(self._owner(payload.round, player)):
                raise _Reject("strip", f"player {player} strips nothing in round {payload.round}")
            expected = layout.strip(payload.round)
        elif isinstance(payload, BoardDone):
            seat = self.seating.seat_of(player)
            if seat is None or seat[0] != payload.table:
                raise _Reject("done", f"player {player} does not sit at table {payload.table}")
            players = self.seating.tables[payload.table]
            if player in payload.leavers or not set(payload.leavers) <= set(players):
                raise _Reject("done", f"player {player}'s done names a leaver that is not another player of "
                              f"table {payload.table}")
        if body.slot != expected:
            raise _Reject("slot", f"a {payload.TYPE} message cannot be in slot {body.slot}")

    def _ready(self, payload: BoardPayload, player: int) -> bool:
        if isinstance(payload, BoardCommit):
            return True
        if isinstance(payload, BoardNonce):
            return len(self._commits) == self.players
        if isinstance(payload, BoardHop):
            return self.hand_id is not None and len(self._decks) == player + 1
        if isinstance(payload, BoardProof):
            return len(self._decks) > player + 1
        if isinstance(payload, BoardStrip):
            return len(self._decks) == self.players + 1 and (
                payload.round == 1 or (payload.round - 1, (player - 1) % self.players) in self._strips)
        if isinstance(payload, BoardDone):
            return self._hash is not None
        # a key waits for every table's end: before it, nobody may read the deal (not even to check it)
        return (self._hash is not None and len(self._outcomes) == len(self.seating.tables))

    def _drain(self) -> None:
        while True:
            self._act()
            if self.failed is not None:
                return
            message = next((m for m in self._buffer if self._ready(m.body.payload, m.body.player)), None)
            if message is None:
                return
            self._buffer.remove(message)
            payload, player = message.body.payload, message.body.player
            try:
                self._handle(payload, player)
            except _Reject as rejection:
                self._violation(player, rejection.step, rejection.reason)
            except CryptoError as exc:
                self._violation(player, _STEP_OF[type(payload)], str(exc))

    def _handle(self, payload: BoardPayload, player: int) -> None:
        if isinstance(payload, BoardCommit):
            self._commits[player] = payload.commitment
        elif isinstance(payload, BoardNonce):
            if self._commitment(player, payload.nonce) != self._commits[player]:
                raise _Reject("nonce", f"player {player}'s nonce does not match its commitment")
            self._nonces[player] = payload.nonce
            if len(self._nonces) == self.players:
                self._agree_hand_id()
        elif isinstance(payload, BoardHop):
            problem = hop_problem(payload.deck, payload.base, self.n_cards)
            if problem is not None:
                raise _Reject("shuffle", problem)
            self._decks.append((payload.deck, payload.base))
        elif isinstance(payload, BoardProof):
            (in_deck, in_base), (out_deck, out_base) = self._decks[player], self._decks[player + 1]
            self._queue(1, VerifyHop(player, self._ctx(f"shuffle/{player}", player), in_deck, in_base, out_deck,
                                     out_base, payload.argument))
        elif isinstance(payload, BoardStrip):
            positions, inputs = self._strip_inputs(payload.round, player)
            if len(payload.values) != len(positions):
                raise _Reject("strip", f"round {payload.round} needs {len(positions)} values, not "
                              f"{len(payload.values)}")
            if not strip_holds(self._ctx(f"strip/{payload.round}", player), self.lock(player), inputs,
                               payload.values, payload.proofs[0]):
                raise _Reject("strip", f"player {player}'s strip round {payload.round} does not verify")
            self._record_strip(payload.round, player, payload.values)
        elif isinstance(payload, BoardDone):
            self._dones[player] = payload
            self._settle_table(payload.table)
        else:
            self._handle_key(player, payload)

    def _handle_key(self, player: int, payload: BoardKey) -> None:
        if payload.done != self._outcomes_hash():
            raise _Reject("key", f"player {player} revealed its key without the round's outcomes: before every "
                          "table was done")
        try:
            key = crypto.scalar_from_bytes(payload.key)
            (in_deck, in_base), (out_deck, out_base) = self._decks[player], self._decks[player + 1]
            hop_permutation(key, in_deck, in_base, out_deck, out_base)
        except (CryptoError, HopMismatch) as exc:
            raise _Reject("key", f"player {player}'s revealed key does not explain its hop: {exc}") from None
        self._keys[player] = key
        self._try_reveal()

    # -- the chains ----------------------------------------------------------------------

    def _owner(self, round_: int, player: int) -> int:
        """The owner whose chain ``player`` strips in round ``round_``."""
        return (player - round_) % self.players

    def _strip_inputs(self, round_: int, player: int) -> tuple[tuple[int, ...], tuple[bytes, ...]]:
        positions = self.positions_of(self._owner(round_, player))
        if round_ == 1:
            deck = self._decks[self.players][0]
            return positions, tuple(deck[k] for k in positions)
        return positions, self._strips[(round_ - 1, (player - 1) % self.players)]

    def _record_strip(self, round_: int, player: int, values: tuple[bytes, ...]) -> None:
        self._strips[(round_, player)] = values
        if round_ == self.players - 1:
            self._final[self._owner(round_, player)] = values
            self._check_dealt()

    def _check_dealt(self) -> None:
        owners = [p for p in range(self.players) if self.positions_of(p)]
        if self._hash is not None or any(p not in self._final for p in owners):
            return
        if self.proofs and len(self._verified) < self.players:
            return
        ordered = sorted(self._messages.values(), key=lambda m: (m.body.slot, m.body.player))
        self._hash = crypto.hash32(crypto.TAG_BOARD_HASH, self.board_id,
                                   *[m.raw for m in ordered if m.body.slot < self.done_slot])
        seat = None if self.me is None else self.seating.seat_of(self.me)
        if self.me is not None:
            self.cards = ()
            if seat is not None:
                cards = read_cards(self._secret(), self._final[self.me], self._card_index)
                if any(card is None for card in cards):   # only with proofs off: some hop was no permutation
                    self._violation(None, "deal", "my positions hold no card; reveal the keys to find the bad hop")
                    return
                self.cards = tuple(c for c in cards if c is not None)
        self._events.append(BoardDealt(self._hash, None if seat is None else seat[1], self.cards or ()))

    # -- the end: dones and keys ---------------------------------------------------------

    def _settle_table(self, table: int) -> None:
        """Table ``table`` is done when every player it does not name as a leaver signed the
        same end (chain, results, leavers); two different ends stop the board."""
        players = self.seating.tables[table]
        signed = {p: self._dones[p] for p in players if p in self._dones}
        ends = {(d.chain, d.results, d.leavers) for d in signed.values()}
        if len(ends) > 1:
            self._violation(None, "done", f"table {table}'s players signed different ends (the table's "
                            "transcript tells who is wrong)")
            return
        (chain, results, leavers), = ends   # (a leaver that signed a done would have signed another end)
        if table not in self._outcomes and set(signed) == set(players) - set(leavers):
            self._outcomes[table] = Outcome(chain, results, leavers)
            self._events.append(TableDone(table, self._outcomes[table]))

    def _outcomes_hash(self) -> bytes:
        return outcomes_hash(self.board_id, [self._outcomes[t] for t in range(len(self.seating.tables))])

    def _try_reveal(self) -> None:
        if self._deal is not None or any(p not in self._keys and p not in self.leavers() and p != self.me
                                         for p in range(self.players)):
            return
        if self.me is not None and not self._sent_key and self.me not in self.leavers():
            return
        deal = self.deal_from_keys({**self._keys, **({} if self.me is None else {self.me: self._secret()})})
        if deal is None:
            return
        self._deal = deal
        self._events.append(BoardRevealed(deal))

    def deal_from_keys(self, keys: dict[int, int]) -> tuple[int, ...] | None:
        """The deal from some players' keys (each already checked against its hop): seat s's
        cards read by every holder of s whose key is given (they must agree); a seat whose
        holders' keys are all missing is the complement of the others, if it is the only one.
        Reports a violation and gives None where the keys contradict each other."""
        deal: list[int | None] = [None] * self.n_cards
        for player, key in sorted(keys.items()):
            positions = self.positions_of(player)
            if not positions:
                continue
            cards = read_cards(key, self._final[player], self._card_index)
            for k, card in zip(positions, cards, strict=True):
                if card is None or deal[k] not in (None, card):
                    self._violation(player, "key", f"player {player}'s key does not read position {k} to the "
                                    "card the other holders of its seat read")
                    return None
                deal[k] = card
        missing = [k for k, card in enumerate(deal) if card is None]
        if missing:
            rest = sorted(set(range(self.n_cards)) - {c for c in deal if c is not None})
            if len({k % SEATS for k in missing}) != 1 or len(rest) != len(missing):
                raise BoardUsageError("the deal needs a key of every seat but at most one")
            for k, card in zip(missing, rest, strict=True):   # in deal order: a hand is a set
                deal[k] = card
        if len(keys) == self.players:   # every key: the full permutation must agree with it
            origin = list(range(self.n_cards))
            for hop in reversed(range(self.players)):
                (in_deck, in_base), (out_deck, out_base) = self._decks[hop], self._decks[hop + 1]
                perm = hop_permutation(keys[hop], in_deck, in_base, out_deck, out_base)
                origin = [perm[k] for k in origin]
            if origin != deal:
                self._violation(None, "key", "the keys' permutations contradict the strips")
                return None
        return tuple(c for c in deal if c is not None)

    # -- my own steps --------------------------------------------------------------------

    def _act(self) -> None:
        if self.me is None or self.failed is not None or not self._started:
            return
        me, n, nonce = self.me, self.players, self._nonce
        assert nonce is not None
        if not self._sent_nonce and len(self._commits) == n - 1:
            self._sent_nonce = True
            self._commits[me] = self._commitment(me, nonce)
            self._send(BoardNonce(nonce), self.layout.nonce)
        if self.hand_id is None and len(self._nonces) == n - 1 and self._sent_nonce:
            self._nonces[me] = nonce
            self._agree_hand_id()
        if self.hand_id is None:
            return
        if self._x is None and len(self._decks) == me + 1:
            self._shuffle()
        if len(self._decks) == n + 1 and (not self.proofs or len(self._verified) == n):
            for round_ in range(1, n):
                if (round_, me) in self._strips:
                    continue
                if round_ > 1 and (round_ - 1, (me - 1) % n) not in self._strips:
                    break
                positions, inputs = self._strip_inputs(round_, me)
                values, proof = strip_layer(self._ctx(f"strip/{round_}", me), self._secret(), self.lock(me),
                                            inputs, self._rng)
                self._send(BoardStrip(round_, values, (proof,)), self.layout.strip(round_))
                self._record_strip(round_, me, values)
        if (not self._sent_key and self._hash is not None and len(self._outcomes) == len(self.seating.tables)
                and me not in self.leavers()):
            self._sent_key = True
            self._send(BoardKey(crypto.scalar_bytes(self._secret()), self._outcomes_hash()), self.key_slot)
            self._try_reveal()

    def _shuffle(self) -> None:
        me = self._me()
        drawn = draw_hop(self._ctx(f"shuffle/{me}", me), me, *self._decks[me], self._rng, self.proofs)
        self._x, self._perm = drawn.x, drawn.perm
        self._send(BoardHop(drawn.deck, drawn.base), self.layout.hop(me))
        self._decks.append((drawn.deck, drawn.base))
        if drawn.job is not None:
            self._queue(0, drawn.job)

    # -- helpers -------------------------------------------------------------------------

    def _commitment(self, player: int, nonce: bytes) -> bytes:
        return crypto.nonce_commitment(self.board_id, 0, player, nonce)

    def _agree_hand_id(self) -> None:
        nonces = [self._nonces[p] for p in range(self.players)]
        self.hand_id = crypto.joint_hand_id(self.board_id, 0, self.players, self.n_cards, nonces)
        self._points, base, self._card_index = hand_points(self.board_id, self.hand_id, self.n_cards)
        self._decks = [(self._points, base)]

    def _ctx(self, step: str, player: int) -> ProofContext:
        if self.hand_id is None:
            raise BoardUsageError("no proof before the hand id is agreed")
        return ProofContext(self.board_id, self.hand_id, step, player)

    def _me(self) -> int:
        if self.me is None:
            raise BoardUsageError("an observer has no seat to act for")
        return self.me

    def _secret(self) -> int:
        if self._x is None:
            raise BoardUsageError("no board key before my shuffle")
        return self._x

    def _send(self, payload: BoardPayload, slot: int) -> None:
        if self._identity is None:
            raise BoardUsageError("an observer signs nothing")
        envelope = sign_board(BoardBody(self.board_id, slot, self._me(), payload), self._identity)
        message = decode_board(envelope)
        self._messages[(slot, self._me())] = message
        self.transcript.append(envelope)
        self._outbox.append(envelope)

    def _queue(self, priority: int, job: DeckJob) -> None:
        self._jobs.push(priority, job)

    def _violation(self, player: int | None, step: str, reason: str) -> None:
        violation = Violation(player, step, reason)
        if self.failed is None:
            self.failed = violation
        self._events.append(violation)


# ---------------------------------------------------------------------------------------
# A table's cards from the board: the Dealer seam (protocol/dealing.py)
# ---------------------------------------------------------------------------------------
# The table's
# :class:`~p2p_sasaki.protocol.dealing.Dealer` seam, named b"p2p-sasaki/board/" + the board hash.
#
# The table has no deck slots of its own: its hand starts dealt. Table seat s is board seat s,
# held by the table's player ``tables[t][s]``; position k is dealt to seat k mod 4, under that
# player's board layer (B_j, B_{j+1}) with final value V_k = x_j * M_c. Openings, private
# hand-overs and hidden-rule proofs are the deck's (protocol/deck.py), made against those board
# locks, with the table's id and the board's hand id in their proof context (a hand-over
# re-locks the position under the receiver's board layer, every step DLEQ-proven). Nobody
# reveals a key at the table: the hand's play ends
# (:class:`~p2p_sasaki.protocol.events.PlayOver`), the table's players sign the board's done,
# and once the board is revealed the table's session replays the hand with the board's deal
# (``TableSession.deal_ready``).


class BoardSource(DeckSource):
    """One table's hand dealt by a board (see the module docstring)."""

    closes = False

    def __init__(self, setup: HandSetup, board: BoardSession, table: int) -> None:
        players = board.seating.tables[table]
        if setup.seats != SEATS or setup.n_cards != board.n_cards or setup.hand_no != 1:
            raise SourceError(None, "a board deals one hand of its cards to a table of four")
        if tuple(setup.seat_keys) != tuple(board.player_keys[p] for p in players):
            raise SourceError(None, f"the table's seats are not table {table}'s players of the board")
        if not board.dealt():
            raise SourceError(None, "the board is not dealt")
        final: list[bytes] = [b""] * board.n_cards
        for player in players:
            for k, value in zip(board.positions_of(player), board.final_values(player), strict=True):
                final[k] = value
        assert board.hand_id is not None
        key = None if setup.my_seat is None else board.key_of(players[setup.my_seat])
        dealt = DealtLayers(board.hand_id, board.card_points, tuple(board.lock(p) for p in players), tuple(final),
                            key)
        super().__init__(setup, board.proofs, dealt_layers=dealt)
        self.deck_slots = 0
        self.board, self.table, self.players = board, table, players

    def start(self) -> None:
        return None

    def accepts(self, payload: Payload) -> bool:
        return False

    def expected(self, slot: int) -> frozenset[int]:
        return frozenset()

    def receive(self, message: SignedMessage) -> None:
        raise SourceError(message.body.sender, "a board's table has no deck messages")

    def ready(self) -> bool:
        return True

    def waiting_for(self) -> tuple[int, ...]:
        return ()

    def _masks(self) -> tuple[int, ...] | None:
        deal = self.board.revealed()
        if deal is None:
            return None
        return tuple(sum(1 << deal[k] for k in range(seat, len(deal), SEATS)) for seat in range(SEATS))

    def known_deal(self) -> tuple[int, ...] | None:
        """An observer's (the audit's) deal: the revealed board's (DealUnknown before the reveal)."""
        if self.setup.my_seat is not None:
            return None
        masks = self._masks()
        if masks is None:
            raise DealUnknown((), "the board is not revealed: its keys come once every table is done")
        return masks

    def final_deal(self) -> tuple[int, ...] | None:
        return self._masks()

    def close(self, slot: int) -> None:
        return None

    def accept_close(self, message: SignedMessage) -> None:
        raise SourceError(message.body.sender, "a board's table reveals no key")

    def strips_done(self) -> bool:
        return True

    def my_key(self) -> bytes | None:
        return None   # a board key is revealed on the board, once every table is done

    def partial_deal(self, keys: dict[int, bytes]) -> tuple[int | None, ...]:
        """The deal once the board is revealed; before that (a player left the table during
        the play: its hand is abandoned before any table's key is out) no seat's cards."""
        masks = self._masks()
        if masks is None:
            return (None,) * SEATS
        return masks

    def secrets(self) -> tuple[bytes | None, int | None, tuple[int, ...] | None]:
        return None, None, None   # the board's secrets are the board session's

    def card_at(self, position: int) -> int | None:
        deal = self.board.revealed()
        return None if deal is None or not 0 <= position < len(deal) else deal[position]


@dataclass(frozen=True)
class BoardDealer:
    """Table ``table``'s dealer: the board ``board`` (dealt), named by its hash."""

    board: BoardSession
    table: int

    @property
    def name(self) -> bytes:
        return BOARD_DEALER_PREFIX + self.board.board_hash

    def hand(self, setup: HandSetup) -> BoardSource:
        return BoardSource(setup, self.board, self.table)
