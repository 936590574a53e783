"""The per-hand deck: a dealer-less shuffle and deal as a sans-IO state machine.

The scheme is Wei & Wang's layered commutative deck (ia.cr/2009/439) in the ristretto255
prime-order group; docs/protocol.md describes every message, step and check. For n
seats and N cards, one hand goes:

  1. commit   every seat commits to a 32-byte nonce              (slot first+0)
  2. nonce    every seat reveals it; hand id = hash of all nonces  (slot first+1)
  3. shuffle  seat a publishes D_{a+1} = x_a * permute(D_a, pi_a), B_{a+1} = x_a * B_a,
              a = 0 .. n-1 in turn                                   (slot first+2+a)
  4. proof    seat a publishes the shuffle argument of its hop, computed while the
              next seats shuffle                                     (slot first+2+n+a)
  5. strip    rounds t = 1 .. n-1: seat a strips its layer from the positions of seat
              (a - t) mod n, one batched DLEQ proof for them all   (slot first+2+2n+t-1)
  6. deal     the owner strips its own layer privately and looks up its cards
  then, in slots the embedding layer chooses (>= first+3n+1):
  7. open     the holder shows the card at one of its positions with a DLEQ proof
  7b. hand-over  the holder names a position for another seat, which adds its layer; the holder
              strips its own: the position is re-locked under the receiver's key (where the game asks)
  8. key      every seat reveals x_a; anyone checks it against the hop and decrypts all

Deck position k is dealt to seat k mod n (:func:`deal_map`), and its card stays under that
seat's layer; who *holds* a position is a map, changed by a private hand-over (step 7b,
docs/protocol.md "Hand-over": the receiver adds its layer and the holder strips its own, each
with a DLEQ, so the position ends under the receiver's layer alone and only those two learn
the card; the holder opens a position, with the proof made under the layer that locks it).
Card indices 0..N-1 are opaque here.

A session takes envelopes with :meth:`DeckSession.receive`, queues slow proof work that
:meth:`DeckSession.step` performs one piece at a time, puts envelopes to send in its
outbox and reports events. Received input never raises: a bad message becomes a
:class:`Violation` naming the seat to blame.
"""

from __future__ import annotations

import heapq
import itertools
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from p2p_sasaki.protocol import crypto
from p2p_sasaki.protocol.crypto import (
    CryptoError,
    Entropy,
    G,
    IdentityKey,
    ProofContext,
    system_entropy,
)
from p2p_sasaki.protocol.messages import (
    MAX_CARDS,
    MAX_SEATS,
    TABLE_ID_BYTES,
    Body,
    CardOpen,
    DeckCommit,
    DeckNonce,
    HandOver,
    HandOverLock,
    HandOverStrip,
    KeyReveal,
    MessageError,
    Payload,
    ShuffleHop,
    ShuffleProof,
    SignedMessage,
    StripRound,
    decode_envelope,
    sign_envelope,
    verify_envelope,
)

ZERO_HASH = bytes(32)


def deal_map(n: int, n_cards: int) -> tuple[int, ...]:
    """The deal: position k -> the seat it is dealt to (k mod n)."""
    return tuple(k % n for k in range(n_cards))

# ---------------------------------------------------------------------------------------
# Events
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HandIdAgreed:
    hand_id: bytes


@dataclass(frozen=True)
class ShuffleAccepted:
    """Hop ``hop``'s deck arrived and every element is valid and distinct."""

    hop: int


@dataclass(frozen=True)
class ShuffleVerified:
    """Hop ``hop``'s shuffle proof verified (or, for my own hop, was produced)."""

    hop: int


@dataclass(frozen=True)
class HandDealt:
    """My cards, in deal order, at my positions. Every check of the deal has passed."""

    seat: int
    cards: tuple[int, ...]
    positions: tuple[int, ...]


@dataclass(frozen=True)
class HandShown:
    """An open seat's cards, in deal order, at its positions: its show (the public strip
    round n) verified. Every peer learns them."""

    seat: int
    cards: tuple[int, ...]
    positions: tuple[int, ...]


@dataclass(frozen=True)
class CardOpened:
    seat: int
    position: int
    card: int


@dataclass(frozen=True)
class KeyRevealed:
    seat: int


@dataclass(frozen=True)
class HandRevealed:
    """All keys are in and match: every seat's dealt cards, in deal order."""

    hands: tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class Violation:
    """A check failed. ``seat`` is the seat to blame (None when nobody can be named yet).

    ``step`` is one of: envelope, equivocation, slot, commit, nonce, shuffle,
    shuffle-proof, strip, deal, open, key, internal.
    """

    seat: int | None
    step: str
    reason: str


Event = (HandIdAgreed | ShuffleAccepted | ShuffleVerified | HandDealt | HandShown | CardOpened | KeyRevealed
         | HandRevealed | Violation)


class DeckUsageError(RuntimeError):
    """The local caller asked for something impossible (never raised for received input)."""


class KeyMismatch(ValueError):
    """A revealed key that explains no shuffle hop (from :meth:`DeckSession.hands_from_keys`)."""

    def __init__(self, seat: int, reason: str) -> None:
        super().__init__(reason)
        self.seat = seat
        self.reason = reason


# ---------------------------------------------------------------------------------------
# A hop checked from its revealed key
# ---------------------------------------------------------------------------------------


class HopMismatch(ValueError):
    """A key that does not explain a hop: ``part`` is "base" or "shuffle"."""

    def __init__(self, part: str) -> None:
        super().__init__(f"the key does not match the hop's {part}")
        self.part = part


def hop_permutation(
    key: int, in_deck: Sequence[bytes], in_base: bytes, out_deck: Sequence[bytes], out_base: bytes
) -> tuple[int, ...]:
    """The permutation p with ``out_deck[i] == key * in_deck[p[i]]`` and ``out_base ==
    key * in_base``, found with N + 1 multiplications (49 for 48 cards); raises
    :class:`HopMismatch` when the key explains no such hop.

    Pure: once a seat's key is out this replaces its shuffle argument (it proves more: the
    exact permutation), so an audit of a hand whose keys are all revealed need not verify
    any argument. The decks must hold valid elements (the output's distinctness is checked
    here). Remembered (crypto.check_memo): each seat checks the same hop with the same key.
    """
    found = _hop_match(key, in_deck, in_base, out_deck, out_base)
    if isinstance(found, str):
        raise HopMismatch(found)
    return found


@crypto.check_memo.remember
def _hop_match(
    key: int, in_deck: Sequence[bytes], in_base: bytes, out_deck: Sequence[bytes], out_base: bytes
) -> tuple[int, ...] | str:
    """:func:`hop_permutation`'s answer: the permutation, or the part the key does not match."""
    if len(in_deck) != len(out_deck) or len(set(out_deck)) != len(out_deck):
        return "shuffle"
    if G.mul(key, in_base) != out_base:
        return "base"
    where = {value: i for i, value in enumerate(out_deck)}
    perm = [0] * len(out_deck)
    for i, value in enumerate(in_deck):
        j = where.pop(G.mul(key, value), None)
        if j is None:
            return "shuffle"
        perm[j] = i
    return tuple(perm)


@crypto.check_memo.remember
def hop_problem(deck: Sequence[bytes], base: bytes, n_cards: int) -> str | None:
    """Why a received hop's deck cannot be the next one (None: it can): the count, and every
    element valid and distinct (the base included). Remembered (crypto.check_memo)."""
    if len(deck) != n_cards:
        return f"the deck has {len(deck)} cards, not {n_cards}"
    try:
        crypto.check_distinct_elements((*deck, base), "deck element")
    except CryptoError as exc:
        return str(exc)
    return None


def strip_layer(ctx: ProofContext, x: int, layer: tuple[bytes, bytes], inputs: Sequence[bytes],
                entropy: Entropy) -> tuple[tuple[bytes, ...], bytes]:
    """Strip the layer ``layer = (B, x*B)`` from ``inputs``: the values x^-1 * v and one
    batched DLEQ proof that (B, x*B) and (values, inputs) share the exponent."""
    x_inv = crypto.scalar_inverse(x)
    values = tuple(G.mul(x_inv, value) for value in inputs)
    return values, crypto.dleq_batch_prove(ctx, x, layer[0], layer[1], values, inputs, entropy)


def strip_holds(ctx: ProofContext, layer: tuple[bytes, bytes], inputs: Sequence[bytes], values: Sequence[bytes],
                proof: bytes) -> bool:
    """Whether ``values`` are ``inputs`` with the layer ``layer`` stripped (:func:`strip_layer`)."""
    return crypto.dleq_batch_verify(ctx, layer[0], layer[1], values, inputs, proof)


def read_cards(x: int, values: Sequence[bytes], card_index: dict[bytes, int]) -> tuple[int | None, ...]:
    """The cards under the last layer ``x`` (None where a value is no card point)."""
    x_inv = crypto.scalar_inverse(x)
    return tuple(card_index.get(G.mul(x_inv, value)) for value in values)


# ---------------------------------------------------------------------------------------
# Proof work as pure jobs
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProveHop:
    """Make the shuffle argument of my hop. ``entropy``: the 32 bytes the prover draws,
    taken from the session's entropy when the job is made (so the result is the same
    wherever it runs). Holds the secret key: hand it only to this machine's workers."""

    hop: int
    ctx: ProofContext
    x: int
    perm: tuple[int, ...]
    in_deck: tuple[bytes, ...]
    in_base: bytes
    out_deck: tuple[bytes, ...]
    out_base: bytes
    entropy: bytes


@dataclass(frozen=True)
class VerifyHop:
    """Verify another seat's shuffle argument for its hop."""

    hop: int
    ctx: ProofContext
    in_deck: tuple[bytes, ...]
    in_base: bytes
    out_deck: tuple[bytes, ...]
    out_base: bytes
    argument: crypto.ShuffleArgument


DeckJob = ProveHop | VerifyHop
JobResult = crypto.ShuffleArgument | bool


def run_job(job: DeckJob) -> JobResult:
    """Do one job: pure, so any process can (protocol/net/workers.py runs them on every
    core). A :class:`ProveHop` gives the argument, a :class:`VerifyHop` whether it holds."""
    match job:
        case ProveHop():
            drawn = job.entropy

            def entropy(n: int) -> bytes:
                if n != len(drawn):
                    raise DeckUsageError("the prover draws exactly the job's entropy")
                return drawn

            return crypto.shuffle_argument_prove(
                job.ctx, job.x, job.perm, job.in_deck, job.in_base, job.out_deck, job.out_base, entropy
            )
        case VerifyHop():
            return crypto.shuffle_argument_verify(
                job.ctx, job.in_deck, job.in_base, job.out_deck, job.out_base, job.argument
            )
    raise TypeError(f"not a deck job: {job!r}")


@dataclass(frozen=True)
class DealtLayers:
    """A deal made before the hand, elsewhere (a tournament round's board, protocol/board.py):
    the hand's deck then has no slots of its own. ``layers[s]`` is seat s's layer ``(B, x*B)``
    (the board layer of the player in the seat), ``final[k]`` position k's value under its
    dealt seat's layer only, ``key`` my layer key (None: an observer)."""

    hand_id: bytes
    cards: tuple[bytes, ...]
    layers: tuple[tuple[bytes, bytes], ...]
    final: tuple[bytes, ...]
    key: int | None = None


class JobQueue:
    """Queued proof jobs, proving first (priority 0) then in order, each handed out once: what
    ``step`` / ``take_jobs`` / ``finish_job`` of a deck or a board session share."""

    def __init__(self) -> None:
        self._heap: list[tuple[int, int, DeckJob]] = []
        self._order = itertools.count()
        self._out: set[DeckJob] = set()   # handed out, not yet finished

    def __len__(self) -> int:
        return len(self._heap)

    @property
    def out(self) -> int:
        return len(self._out)

    def push(self, priority: int, job: DeckJob) -> None:
        heapq.heappush(self._heap, (priority, next(self._order), job))

    def pop(self) -> DeckJob:
        job = heapq.heappop(self._heap)[2]
        self._out.add(job)
        return job

    def take_all(self) -> list[DeckJob]:
        return [self.pop() for _ in range(len(self._heap))]

    def finish(self, job: DeckJob) -> bool:
        """Whether ``job`` was handed out and not finished before (it is finished now)."""
        if job not in self._out:
            return False
        self._out.discard(job)
        return True


@dataclass(frozen=True)
class DrawnHop:
    """My hop, drawn: the key, the permutation, the new deck and base, and the job that proves
    it (None with proofs off)."""

    x: int
    perm: tuple[int, ...]
    deck: tuple[bytes, ...]
    base: bytes
    job: ProveHop | None


def draw_hop(ctx: ProofContext, hop: int, deck: tuple[bytes, ...], base: bytes, entropy: Entropy,
             proofs: bool) -> DrawnHop:
    """Draw a key and a permutation (in that order), shuffle, and make the proof job (drawing
    its 32 entropy bytes now, so the argument is the same wherever it runs)."""
    x = crypto.random_scalar(entropy)
    perm = crypto.random_permutation(entropy, len(deck))
    new_deck, new_base = crypto.shuffle(x, perm, deck, base)
    job = ProveHop(hop, ctx, x, perm, deck, base, new_deck, new_base, entropy(32)) if proofs else None
    return DrawnHop(x, perm, new_deck, new_base, job)


def hand_points(table: bytes, hand_id: bytes, n_cards: int) -> tuple[tuple[bytes, ...], bytes, dict[bytes, int]]:
    """The hand's card points M_c, base B_0 (all distinct, checked) and the index of the points."""
    cards, base = _checked_points(table, hand_id, n_cards)
    return cards, base, {point: c for c, point in enumerate(cards)}


@crypto.check_memo.remember
def _checked_points(table: bytes, hand_id: bytes, n_cards: int) -> tuple[tuple[bytes, ...], bytes]:
    """The card points and the base, checked distinct (remembered: every seat of one process
    derives the same hand's)."""
    cards = crypto.card_points(table, hand_id, n_cards)
    base = crypto.base_point(table, hand_id)
    crypto.check_distinct_elements((*cards, base), "card point")
    return cards, base


# ---------------------------------------------------------------------------------------
# Slots
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SlotLayout:
    """Which slot each deal message lives in, relative to the hand's first slot."""

    first: int
    n: int
    shown: frozenset[int] = frozenset()
    """The open seats (a bot in an empty seat): each shows its own hand in the show slot, the
    public strip round n after the others' rounds; no such slot when there is none."""

    @property
    def commit(self) -> int:
        return self.first

    @property
    def nonce(self) -> int:
        return self.first + 1

    def hop(self, seat: int) -> int:
        return self.first + 2 + seat

    def proof(self, seat: int) -> int:
        return self.first + 2 + self.n + seat

    def strip(self, round_: int) -> int:
        """Round ``round_``'s slot (round n: the open seats' show slot)."""
        return self.first + 2 + 2 * self.n + round_ - 1

    @property
    def end(self) -> int:
        """The first slot after the deal (opens and key reveals go here or later)."""
        return self.first + 3 * self.n + 1 + (1 if self.shown else 0)

    def senders(self, slot: int, proofs: bool = True) -> frozenset[int]:
        """The seats that sign in deal ``slot`` (every seat in the commit, nonce and strip
        slots; the hop's seat in its shuffle and proof slots, none for proofs when off; the
        open seats in the show slot)."""
        if self.shown and slot == self.strip(self.n):
            return self.shown
        if slot in (self.commit, self.nonce) or self.strip(1) <= slot < self.end:
            return frozenset(range(self.n))
        if self.hop(0) <= slot < self.proof(0):
            return frozenset({slot - self.hop(0)})
        if self.proof(0) <= slot < self.strip(1):
            return frozenset({slot - self.proof(0)}) if proofs else frozenset()
        return frozenset()


_STEP_OF = {
    DeckCommit: "commit", DeckNonce: "nonce", ShuffleHop: "shuffle", ShuffleProof: "shuffle-proof",
    StripRound: "strip", CardOpen: "open", KeyReveal: "key",
}


class _Reject(Exception):
    """Internal: a received message fails a check."""

    def __init__(self, step: str, reason: str) -> None:
        super().__init__(reason)
        self.step = step
        self.reason = reason


# ---------------------------------------------------------------------------------------
# The session
# ---------------------------------------------------------------------------------------


class DeckSession:
    """One seat's view of one hand's deck (or an observer's, with ``seat=None``).

    >>> # s = DeckSession(0, 4, 48, my_key, roster_keys, table_id, hand_no=1)
    >>> # send(s.start()); then for each envelope: s.receive(env, from_seat=link)
    >>> # while s.step(): ...;  send(s.take_outgoing());  handle(s.take_events())
    """

    def __init__(
        self,
        seat: int | None,
        n: int,
        n_cards: int,
        identity_key: IdentityKey | None,
        peer_public_keys: Sequence[bytes],
        table_id: bytes,
        hand_no: int,
        rng: Entropy = system_entropy,
        proofs: bool = True,
        first_slot: int = 0,
        prev_for_slot: Callable[[int], bytes] | None = None,
        overlap_strips: bool = False,
        defer_shuffle_arguments: bool = False,
        shown: frozenset[int] = frozenset(),
        dealt_layers: DealtLayers | None = None,
    ) -> None:
        if not 2 <= n <= MAX_SEATS or not n <= n_cards <= MAX_CARDS:
            raise ValueError(f"need 2..{MAX_SEATS} seats and n..{MAX_CARDS} cards")
        if len(peer_public_keys) != n or len(table_id) != TABLE_ID_BYTES:
            raise ValueError("need one public key per seat and a 32-byte table id")
        if seat is not None:
            if not 0 <= seat < n or identity_key is None or identity_key.public_key != peer_public_keys[seat]:
                raise ValueError("a seat needs its own identity key, matching the roster")
        if defer_shuffle_arguments and seat is not None:
            raise ValueError("only an observer (an auditor) defers the shuffle arguments to the keys")
        self.seat = seat
        self.n = n
        self.n_cards = n_cards
        self.table_id = bytes(table_id)
        self.hand_no = hand_no
        self.proofs = proofs
        self.overlap_strips = overlap_strips
        # Auditor mode: hold each shuffle argument back; a revealed key that explains the hop
        # replaces it (hop_permutation). verify_deferred() checks the ones still held.
        self.defer_shuffle_arguments = defer_shuffle_arguments
        self._deferred: dict[int, ShuffleProof] = {}
        if any(not 0 <= s < n for s in shown):
            raise ValueError("an open seat is one of the table's seats")
        self.layout = SlotLayout(first_slot, n, frozenset(shown))
        self.shown_hands: dict[int, tuple[int, ...]] = {}   # open seat -> its cards, once shown
        self._identity = identity_key
        self._keys = tuple(peer_public_keys)
        self._rng = rng
        self._prev_for_slot = prev_for_slot or (lambda slot: ZERO_HASH)

        self.hand_id: bytes | None = None
        self.failed: Violation | None = None
        self.hand: tuple[int, ...] | None = None
        self.hands: tuple[tuple[int, ...], ...] | None = None  # after every key reveal
        self.transcript: list[bytes] = []  # every authentic envelope, in acceptance order

        self._commits: dict[int, bytes] = {}
        self._nonces: dict[int, bytes] = {}
        self._cards: tuple[bytes, ...] = ()
        self._card_index: dict[bytes, int] = {}
        self._decks: list[tuple[tuple[bytes, ...], bytes]] = []  # (D_a, B_a), a = 0..n
        self._verified: set[int] = set()  # hops whose shuffle proof is verified
        self._strips: dict[tuple[int, int], tuple[bytes, ...]] = {}  # (round, seat)
        self._final: dict[int, bytes] = {}  # position -> value under its owner's layer only
        self._opened: dict[int, int] = {}  # position -> card
        self._revealed: dict[int, int] = {}  # seat -> key
        self._hop_perms: dict[int, tuple[int, ...]] = {}
        self.dealt = deal_map(n, n_cards)    # position -> the seat whose layer it stays under
        self._holder = list(self.dealt)      # position -> the seat holding it now (hand-overs move it)
        self._held: dict[int, int] = {}      # my positions -> their cards (dealt, then hand-overs)
        self._locks: dict[int, tuple[int, bytes]] = {}   # re-locked positions -> (their receiver, x_b * M_c)
        self._relocks: dict[int, list[tuple[int, bytes]]] = {}   # every re-lock of a position, in turn
        self._handing: tuple[int, int, int, bytes | None] | None = None   # (giver, to, k, R): a hand-over under way
        self.hand_overs: list[tuple[int, int, int]] = []   # (giver, receiver, position), in order

        self._nonce: bytes | None = None
        self._x: int | None = None
        self._perm: tuple[int, ...] | None = None
        self._started = False
        self._sent_nonce = False
        self._next_free_slot = self.layout.end

        self._seen: dict[tuple[int, int], bytes] = {}
        self._buffer: list[SignedMessage] = []
        self._jobs = JobQueue()
        self._events: deque[Event] = deque()
        self._outbox: list[bytes] = []
        self._dealt_layers: tuple[tuple[bytes, bytes], ...] | None = None
        if dealt_layers is not None:
            self._load_dealt(dealt_layers)

    def _load_dealt(self, dealt: DealtLayers) -> None:
        """Start from a deal made elsewhere: its card points, layers and final values; my
        cards read with my key. No deck message belongs to this hand."""
        if len(dealt.layers) != self.n or len(dealt.final) != self.n_cards or len(dealt.cards) != self.n_cards:
            raise ValueError("a dealt hand needs one layer per seat and one value per card")
        if (self.seat is None) != (dealt.key is None):
            raise ValueError("a seat brings its layer key to a dealt hand, an observer none")
        self._dealt_layers = dealt.layers
        self.hand_id = dealt.hand_id
        self._cards = dealt.cards
        self._card_index = {point: c for c, point in enumerate(self._cards)}
        self._final = dict(enumerate(dealt.final))
        self._verified = set(range(self.n))
        self._x = dealt.key
        self._started = True
        if self.seat is not None:
            self._deal()

    # -- public API ----------------------------------------------------------------------

    def positions_of(self, seat: int) -> tuple[int, ...]:
        """The deck positions dealt to ``seat``: k with k mod n == seat."""
        return tuple(range(seat, self.n_cards, self.n))

    @property
    def revealed_keys(self) -> dict[int, int]:
        """The shuffle keys revealed so far, by seat."""
        return dict(self._revealed)

    def holder(self, position: int) -> int:
        """The seat holding ``position`` now (its dealt seat until a hand-over moves it)."""
        return self._holder[position]

    def is_opened(self, position: int) -> bool:
        """Whether ``position``'s card has been shown to everyone."""
        return position in self._opened

    def position_of(self, card: int) -> int | None:
        """The position of one of my cards (dealt or handed to me), or None."""
        return next((k for k, held in self._held.items() if held == card), None)

    def rule_secret(self) -> int:
        """My shuffle key, for a hidden-rule proof over my own locks (protocol/hidden_rules.py)."""
        return self._secret()

    def start(self) -> list[bytes]:
        """Commit to my hand-id nonce. Returns the envelopes to send (the outbox)."""
        if self.seat is None or self._started:
            raise DeckUsageError("only a seated session starts, once")
        self._started = True
        self._nonce = self._rng(32)
        self._send(DeckCommit(crypto.nonce_commitment(self.table_id, self.hand_no, self.seat, self._nonce)),
                   self.layout.commit)
        self._drain()
        return self.take_outgoing()

    def receive(self, envelope: bytes, from_seat: int | None = None) -> None:
        """Take one received envelope. ``from_seat``: the seat whose link delivered it.

        A message that is not authentic for this hand (malformed, badly signed, another
        table or hand) is dropped and blamed on ``from_seat`` without stopping the hand;
        an authentic message that breaks the protocol is blamed on its signer and stops it.
        """
        try:
            self._receive(envelope, from_seat)
        except Exception as exc:  # a bug of ours, never the sender's fault: report, don't crash
            self._violation(None, "internal", f"unexpected {type(exc).__name__} while handling a message")

    def receive_verified(self, message: SignedMessage) -> None:
        """Take a message its caller has already decoded, verified and de-duplicated for this
        table (the table session: every envelope is decoded and its signature checked once,
        and equivocation is the session's to track: it passes on one body per sender and slot)."""
        try:
            body = message.body
            if body.table != self.table_id or body.hand != self.hand_no or body.sender >= self.n:
                self._events.append(Violation(None, "envelope", "the message belongs to another hand"))
                return
            self._accept_authentic(message, deduplicated=True)
        except Exception as exc:  # a bug of ours, never the sender's fault: report, don't crash
            self._violation(None, "internal", f"unexpected {type(exc).__name__} while handling a message")

    def step(self) -> bool:
        """Do one piece of queued slow work (make or verify a shuffle proof) in this process.

        Returns False when there was nothing to do. Call it whenever no message waits.
        """
        if not self._jobs or self.failed is not None:
            return False
        job = self._jobs.pop()
        try:
            result = run_job(job)
        except Exception as exc:
            self._jobs.finish(job)
            self._violation(None, "internal", f"unexpected {type(exc).__name__} in queued work")
            return True
        self.finish_job(job, result)
        return True

    def take_jobs(self) -> list[DeckJob]:
        """Hand out every queued job (proving first) to run elsewhere, e.g. on a
        :class:`~p2p_sasaki.protocol.net.workers.ProofPool`: each is a pure
        :func:`run_job`; give each result back with :meth:`finish_job`, in any order.
        Meanwhile keep feeding received messages: the deck goes on (the next hop is made
        at once; strips wait for every argument, as always)."""
        if self.failed is not None:
            return []
        return self._jobs.take_all()

    def finish_job(self, job: DeckJob, result: JobResult) -> None:
        """Take the result of a job from :meth:`take_jobs` (or :meth:`step`) and act on it:
        send my argument, or record another seat's as verified (or blame it)."""
        if not self._jobs.finish(job):
            raise DeckUsageError("finish_job takes a job this session handed out, once")
        if self.failed is not None:
            return
        try:
            match job:
                case ProveHop():
                    if not isinstance(result, crypto.ShuffleArgument):
                        raise DeckUsageError("a ProveHop job gives a ShuffleArgument")
                    self._send(ShuffleProof(result), self.layout.proof(job.hop))
                    self._verified.add(job.hop)
                    self._events.append(ShuffleVerified(job.hop))
                case VerifyHop():
                    if result is True:
                        self._verified.add(job.hop)
                        self._events.append(ShuffleVerified(job.hop))
                    else:
                        self._violation(job.hop, "shuffle-proof", f"seat {job.hop}'s shuffle proof does not verify")
                        return
            self._drain()
        except DeckUsageError:
            raise
        except Exception as exc:
            self._violation(None, "internal", f"unexpected {type(exc).__name__} in finished work")

    @property
    def jobs_out(self) -> int:
        """Jobs handed out by :meth:`take_jobs` whose results have not come back."""
        return self._jobs.out

    def verify_deferred(self) -> None:
        """Queue the verification of every shuffle argument still held back (auditor mode),
        in hop order, and do it: for a hand whose keys did not all come."""
        for hop in sorted(self._deferred):
            self._queue_verify(hop, self._deferred.pop(hop))
        self.run_pending()

    def run_pending(self) -> None:
        """Do all queued work."""
        while self.step():
            pass

    @property
    def pending_work(self) -> int:
        return len(self._jobs) if self.failed is None else 0

    def secrets(self) -> tuple[bytes | None, int | None, tuple[int, ...] | None]:
        """What a resume needs of this hand: my hand-id nonce, shuffle scalar, permutation."""
        return self._nonce, self._x, self._perm

    def take_outgoing(self) -> list[bytes]:
        """The envelopes waiting to be sent to every other seat, oldest first."""
        out, self._outbox = self._outbox, []
        return out

    @property
    def outbox(self) -> tuple[bytes, ...]:
        return tuple(self._outbox)

    def next_event(self) -> Event | None:
        return self._events.popleft() if self._events else None

    def take_events(self) -> list[Event]:
        events = list(self._events)
        self._events.clear()
        return events

    @property
    def deal_verified(self) -> bool:
        """Every hop checked, every proof verified, every public strip verified (an auditor
        that defers the arguments counts a held argument: the keys will check its hop)."""
        return (
            len(self._final) == self.n_cards
            and (not self.proofs or len(self._verified) == self.n
                 or (self.defer_shuffle_arguments and len(self._verified) + len(self._deferred) == self.n))
            and self.failed is None
        )

    @property
    def shown_done(self) -> bool:
        """Every open seat's hand is shown (verified); True when there is none."""
        return len(self.shown_hands) == len(self.layout.shown) and self.failed is None

    def waiting_for(self, include_keys: bool = False) -> list[tuple[int, str]]:
        """The (seat, step) pairs the deal waits on at its earliest unfinished step.

        For a progress display, and for blaming a silent seat in an audit.
        """
        n = self.n
        seats = range(n)
        if len(self._commits) < n:
            return [(s, "commit") for s in seats if s not in self._commits and not (s == self.seat and self._started)]
        if self.hand_id is None:
            return [(s, "nonce") for s in seats if s not in self._nonces]
        if len(self._decks) <= n:
            return [(len(self._decks) - 1, "shuffle")]
        if self.proofs and len(self._verified) + len(self._deferred) < n:
            return [(s, "shuffle-proof") for s in seats if s not in self._verified and s not in self._deferred]
        for round_ in range(1, n):
            missing = [(s, "strip") for s in seats if (round_, s) not in self._strips]
            if missing:
                return missing
        if not self.shown_done:
            return [(s, "show") for s in sorted(self.layout.shown) if s not in self.shown_hands]
        if include_keys:
            return [(s, "key") for s in seats if s not in self._revealed]
        return []

    def open_card(self, card: int, slot: int | None = None) -> list[bytes]:
        """Show one of my cards to everyone. Returns the envelopes to send."""
        opening = self.prove_open(card)
        self._send(opening, self._slot(slot))
        self._opened[opening.position] = card
        self._events.append(CardOpened(self._me(), opening.position, card))
        return self.take_outgoing()

    def prove_open(self, card: int) -> CardOpen:
        """The opening of one of my cards (position, card, DLEQ proof), not sent: for a
        caller that carries it inside its own message (protocol/session.py). Record it,
        mine or another seat's, with :meth:`accept_open`."""
        if self.seat is None or self.hand is None or self.failed is not None:
            raise DeckUsageError("no dealt hand to open a card from")
        opening = self._opening(card)
        if opening.position in self._opened:
            raise DeckUsageError(f"card {card} is already open")
        return opening

    def _opening(self, card: int) -> CardOpen:
        """The opening of one of my cards, opened already or not."""
        if self.seat is None or self.hand is None or self.failed is not None:
            raise DeckUsageError("no dealt hand to open a card from")
        position = next((k for k, held in self._held.items() if held == card), None)
        if position is None:
            raise DeckUsageError(f"card {card} is not in my hand")
        base, next_base = self._layer(self.seat)
        proof = crypto.dleq_prove(   # my lock: dealt to me, or re-locked to me by a hand-over
            self._ctx(f"open/{position}", self.seat), self._secret(), base, next_base,
            self._cards[card], self._lock_of(position)[1], self._rng,
        )
        return CardOpen(position, card, proof)

    def accept_open(self, sender: int, opening: CardOpen) -> str | None:
        """Check and record an opening carried inside another message (the same checks as
        a ``deck/open`` message). Returns why it fails, or None; a failure is not recorded
        as this session's violation: the caller blames ``sender``."""
        if len(self._final) != self.n_cards:
            return "the deal is not complete"
        try:
            self._handle_open(sender, opening)
        except _Reject as rejection:
            return rejection.reason
        except CryptoError as exc:
            return str(exc)
        return None

    def position_lock(self, position: int) -> tuple[bytes, bytes, bytes]:
        """The public triple a dealt position's opening is proven against: ``(B_s, B_{s+1},
        F_k)`` for position k of seat s, with ``B_{s+1} = x_s*B_s`` and ``F_k = x_s*M_card``
        (protocol/hidden_rules.py proves statements about the card behind it)."""
        if len(self._final) != self.n_cards or not 0 <= position < self.n_cards:
            raise DeckUsageError("no such dealt position (yet)")
        seat, value = self._lock_of(position)   # a handed position is re-locked under its receiver's key
        return (*self._layer(seat), value)

    @property
    def card_points(self) -> tuple[bytes, ...]:
        """M_0..M_{N-1}, the hand's card points (empty before the hand id is agreed)."""
        return self._cards

    def reveal_key(self, slot: int | None = None) -> list[bytes]:
        """Reveal my shuffle scalar (end of hand, or to settle blame after a failure)."""
        if self.seat is None or self._x is None:
            raise DeckUsageError("no shuffle key to reveal")
        if self.seat in self._revealed:
            raise DeckUsageError("my key is already revealed")
        self._send(KeyReveal(crypto.scalar_bytes(self._x)), self._slot(slot))
        self._apply_key(self.seat, self._x)
        self._drain()
        return self.take_outgoing()

    # -- the private hand-over: the re-lock (docs/protocol.md, "Hand-over") -------------------

    def _layer(self, seat: int) -> tuple[bytes, bytes]:
        """Seat's layer key pair of this hand: (B_seat, B_seat+1 = x_seat * B_seat); for a deal
        made on a board, the board layer of the player in the seat."""
        if self._dealt_layers is not None:
            return self._dealt_layers[seat]
        return self._decks[seat][1], self._decks[seat + 1][1]

    def _lock_of(self, position: int) -> tuple[int, bytes]:
        """(the seat whose key locks ``position``, its value x_seat * M_card): its dealt seat
        and F_k, until a hand-over re-locks it under its receiver's key."""
        return self._locks.get(position, (self.dealt[position], self._final[position]))

    def hand_over(self, card: int, to: int) -> HandOver:
        """Name the position of one of my cards to hand to seat ``to`` (not sent: the caller
        signs it in the slot the game asks for). The receiver then adds its layer
        (:meth:`relock`) and I strip mine (:meth:`strip_lock`). Record it, mine or another
        seat's, with :meth:`accept_hand_over`."""
        me = self._me()
        if not 0 <= to < self.n or to == me:
            raise DeckUsageError("a hand-over goes to another seat of the table")
        if self.hand is None or self.failed is not None:
            raise DeckUsageError("no dealt hand to hand a card from")
        k = self.position_of(card)
        if k is None:
            raise DeckUsageError(f"card {card} is not in my hand")
        return HandOver(k, to)

    def accept_hand_over(self, giver: int, message: HandOver) -> str | None:
        """Check and record a hand-over's naming (mine or another seat's). Returns why it is
        refused (the caller blames ``giver``), or None. The position moves once the giver's
        strip is recorded (:meth:`accept_strip`)."""
        k, to = message.position, message.to
        if len(self._final) != self.n_cards or self.failed is not None:
            return "the deal is not complete"
        if self._handing is not None:
            return "another hand-over is under way"
        if k >= self.n_cards or self._holder[k] != giver:
            return f"position {k} is not held by seat {giver}"
        if to >= self.n or to == giver:
            return f"seat {giver} cannot hand a card to seat {to}"
        self._handing = (giver, to, k, None)
        return None

    def _pending(self) -> tuple[int, int, int, bytes | None]:
        if self._handing is None:
            raise DeckUsageError("no hand-over is under way")
        return self._handing

    def relock(self) -> HandOverLock:
        """My layer on the position handed to me: R = x_b * V_k, with its DLEQ (not sent)."""
        _, to, k, _ = self._pending()
        me, x = self._me(), self._secret()
        if me != to:
            raise DeckUsageError("only the receiver adds its layer")
        value = self._lock_of(k)[1]
        base, key = self._layer(me)
        locked = G.mul(x, value)
        proof = crypto.dleq_prove(self._ctx(f"hand-over-lock/{k}", me), x, base, key, value, locked, self._rng)
        return HandOverLock(locked, proof)

    def accept_relock(self, receiver: int, message: HandOverLock) -> str | None:
        """Check and record the receiver's layer (why it fails names the receiver, or None)."""
        giver, to, k, _ = self._pending()
        if receiver != to:
            return f"seat {receiver} is not the hand-over's receiver"
        base, key = self._layer(to)
        if not crypto.dleq_verify(self._ctx(f"hand-over-lock/{k}", to), base, key, self._lock_of(k)[1],
                                  message.value, message.proof):
            return f"seat {to}'s layer on the hand-over of position {k} is not proven"
        self._handing = (giver, to, k, message.value)
        return None

    def strip_lock(self) -> HandOverStrip:
        """My strip of the position I hand over: V' = x_a^-1 * R, with its DLEQ (not sent)."""
        giver, _, k, locked = self._pending()
        me, x = self._me(), self._secret()
        if me != giver or locked is None:
            raise DeckUsageError("only the giver strips, after the receiver's layer")
        base, key = self._layer(me)
        value = G.mul(crypto.scalar_inverse(x), locked)
        proof = crypto.dleq_prove(self._ctx(f"hand-over-strip/{k}", me), x, base, key, value, locked, self._rng)
        return HandOverStrip(value, proof)

    def accept_strip(self, giver: int, message: HandOverStrip) -> str | None:
        """Check the giver's strip (why it fails names the giver, or None); then the position
        is its receiver's lock x_b * M_c and moves to it; the receiver reads the card."""
        owner, to, k, locked = self._pending()
        if giver != owner or locked is None:
            return f"seat {giver} strips no hand-over of its own"
        base, key = self._layer(giver)
        try:
            crypto.check_element(message.value, "hand-over strip")
        except CryptoError as exc:
            return str(exc)
        if self._lock_of(k)[0] != giver or not crypto.dleq_verify(
                self._ctx(f"hand-over-strip/{k}", giver), base, key, message.value, locked, message.proof):
            return f"seat {giver}'s strip of the hand-over of position {k} is not proven"
        self._handing = None
        self._locks[k] = (to, message.value)
        self._relocks.setdefault(k, []).append((to, message.value))
        self._holder[k] = to
        self.hand_overs.append((giver, to, k))
        if giver == self.seat:
            self._held.pop(k, None)
        elif to == self.seat:
            card = self._card_index.get(G.mul(crypto.scalar_inverse(self._secret()), message.value))
            if card is None:   # impossible: both layers are proven and V_k was a card of the deal
                self._violation(None, "hand-over", f"position {k} handed to me holds no card")
                return None
            self._held[k] = card
        return None

    def held_card(self, position: int) -> int | None:
        """The card at ``position`` if this seat holds it (dealt or handed to it)."""
        return self._held.get(position)

    def card_at(self, position: int, keys: dict[int, int]) -> int | None:
        """The card at ``position`` from some seats' keys (pure): decrypted with its dealt
        seat's key, or with the key of a seat it was re-locked to; None if no such key is given."""
        locks = [(self.dealt[position], self._final[position]), *self._relocks.get(position, [])]
        for seat, value in locks:   # its dealt lock, then each re-lock in turn
            if seat in keys:
                return self._card_index.get(G.mul(crypto.scalar_inverse(keys[seat]), value))
        return None

    # -- receiving -----------------------------------------------------------------------

    def _receive(self, envelope: bytes, from_seat: int | None) -> None:
        try:
            message = decode_envelope(envelope)
        except MessageError as exc:
            self._events.append(Violation(from_seat, "envelope", str(exc)))
            return
        body = message.body
        if body.table != self.table_id or body.hand != self.hand_no:
            self._events.append(Violation(from_seat, "envelope", "the message belongs to another table or hand"))
            return
        if body.sender >= self.n or not verify_envelope(message, self._keys[body.sender]):
            self._events.append(Violation(from_seat, "envelope", "the signature does not verify"))
            return
        self._accept_authentic(message)

    def _accept_authentic(self, message: SignedMessage, deduplicated: bool = False) -> None:
        body = message.body
        sender, slot = body.sender, body.slot
        if not deduplicated:
            seen = self._seen.get((sender, slot))
            if seen is not None:
                if seen != message.body_bytes:
                    self._violation(sender, "equivocation",
                                    f"seat {sender} signed two different messages for slot {slot}")
                return  # a relayed copy
        if self.failed is not None and not isinstance(body.payload, KeyReveal):
            return
        if sender == self.seat:
            return  # my own message, which I did not send in this session: ignore
        if not deduplicated:
            self._seen[(sender, slot)] = message.body_bytes
        self.transcript.append(message.raw)
        try:
            self._check_slot(body)
        except _Reject as rejection:
            self._violation(sender, rejection.step, rejection.reason)
            return
        self._buffer.append(message)
        self._drain()

    def _check_slot(self, body: Body) -> None:
        payload, sender, slot, layout = body.payload, body.sender, body.slot, self.layout
        expected: int | None
        if isinstance(payload, DeckCommit):
            expected = layout.commit
        elif isinstance(payload, DeckNonce):
            expected = layout.nonce
        elif isinstance(payload, ShuffleHop):
            expected = layout.hop(sender)
        elif isinstance(payload, ShuffleProof):
            if not self.proofs:
                raise _Reject("shuffle-proof", "shuffle proofs are off for this hand")
            expected = layout.proof(sender)
        elif isinstance(payload, StripRound):
            if not (1 <= payload.round < self.n or (payload.round == self.n and sender in layout.shown)):
                raise _Reject("strip", f"there is no strip round {payload.round}")
            expected = layout.strip(payload.round)
        else:  # CardOpen, KeyReveal: any slot after the deal
            expected = None
        if (expected is not None and slot != expected) or (expected is None and slot < layout.end):
            raise _Reject("slot", f"a {payload.TYPE} message cannot be in slot {slot}")

    def _ready(self, payload: Payload, sender: int) -> bool:
        n = self.n
        if isinstance(payload, DeckCommit):
            return True
        if isinstance(payload, DeckNonce):
            return len(self._commits) == n
        if isinstance(payload, ShuffleHop):
            return self.hand_id is not None and len(self._decks) == sender + 1
        if isinstance(payload, ShuffleProof):
            return len(self._decks) > sender + 1
        if isinstance(payload, StripRound):
            return len(self._decks) == n + 1 and (payload.round == 1
                                                  or (payload.round - 1, (sender - 1) % n) in self._strips)
        if isinstance(payload, CardOpen):
            return len(self._final) == self.n_cards
        if isinstance(payload, KeyReveal):
            return len(self._decks) > sender + 1
        return False

    def _drain(self) -> None:
        """Handle every buffered message that has become processable, and act."""
        while True:
            self._act()
            message = next((m for m in self._buffer if self._processable(m)), None)
            if message is None:
                return
            self._buffer.remove(message)
            payload, sender = message.body.payload, message.body.sender
            try:
                self._handle(payload, sender)
            except _Reject as rejection:
                self._violation(sender, rejection.step, rejection.reason)
            except CryptoError as exc:
                self._violation(sender, _STEP_OF[type(payload)], str(exc))

    def _processable(self, message: SignedMessage) -> bool:
        payload = message.body.payload
        if self.failed is not None and not isinstance(payload, KeyReveal):
            return False
        return self._ready(payload, message.body.sender)

    def _handle(self, payload: Payload, sender: int) -> None:
        if isinstance(payload, DeckCommit):
            self._commits[sender] = payload.commitment
        elif isinstance(payload, DeckNonce):
            self._handle_nonce(sender, payload.nonce)
        elif isinstance(payload, ShuffleHop):
            self._handle_hop(sender, payload)
        elif isinstance(payload, ShuffleProof):
            if self.defer_shuffle_arguments:
                self._deferred[sender] = payload
            else:
                self._queue_verify(sender, payload)
        elif isinstance(payload, StripRound):
            self._handle_strip(sender, payload)
        elif isinstance(payload, CardOpen):
            self._handle_open(sender, payload)
        elif isinstance(payload, KeyReveal):
            try:
                key = crypto.scalar_from_bytes(payload.key)
            except CryptoError as exc:
                raise _Reject("key", str(exc)) from exc
            self._apply_key(sender, key)

    def _handle_nonce(self, sender: int, nonce: bytes) -> None:
        if crypto.nonce_commitment(self.table_id, self.hand_no, sender, nonce) != self._commits[sender]:
            raise _Reject("nonce", f"seat {sender}'s nonce does not match its commitment")
        self._nonces[sender] = nonce
        if len(self._nonces) == self.n:
            self._agree_hand_id()

    def _agree_hand_id(self) -> None:
        nonces = [self._nonces[s] for s in range(self.n)]
        self.hand_id = crypto.joint_hand_id(self.table_id, self.hand_no, self.n, self.n_cards, nonces)
        self._cards, base, self._card_index = hand_points(self.table_id, self.hand_id, self.n_cards)
        self._decks = [(self._cards, base)]
        self._events.append(HandIdAgreed(self.hand_id))

    def _handle_hop(self, sender: int, hop: ShuffleHop) -> None:
        problem = hop_problem(hop.deck, hop.base, self.n_cards)
        if problem is not None:
            raise _Reject("shuffle", problem)
        self._decks.append((hop.deck, hop.base))
        self._events.append(ShuffleAccepted(sender))

    def _queue_verify(self, hop: int, proof: ShuffleProof) -> None:
        (in_deck, in_base), (out_deck, out_base) = self._decks[hop], self._decks[hop + 1]
        self._queue(1, VerifyHop(hop, self._ctx(f"shuffle/{hop}", hop), in_deck, in_base, out_deck, out_base,
                                 proof.argument))

    def _strip_inputs(self, round_: int, seat: int) -> tuple[tuple[int, ...], tuple[bytes, ...]]:
        """The positions seat strips in this round and their values before the strip."""
        owner = (seat - round_) % self.n
        positions = self.positions_of(owner)
        if round_ == 1:
            deck = self._decks[self.n][0]
            return positions, tuple(deck[k] for k in positions)
        return positions, self._strips[(round_ - 1, (seat - 1) % self.n)]

    def _handle_strip(self, sender: int, strip: StripRound) -> None:
        positions, inputs = self._strip_inputs(strip.round, sender)
        if len(strip.values) != len(positions):
            raise _Reject("strip", f"round {strip.round} needs {len(positions)} values, not {len(strip.values)}")
        # one batched DLEQ for the round's positions; it refuses any invalid element
        (proof,) = strip.proofs
        if not strip_holds(self._ctx(f"strip/{strip.round}", sender), self._layer(sender), inputs, strip.values,
                           proof):
            raise _Reject("strip", f"seat {sender}'s strip round {strip.round} does not verify")
        self._record_strip(strip.round, sender, positions, strip.values)

    def _record_strip(self, round_: int, seat: int, positions: Sequence[int], values: tuple[bytes, ...]) -> None:
        self._strips[(round_, seat)] = values
        if round_ == self.n - 1:
            self._final.update(zip(positions, values, strict=False))
        elif round_ == self.n:   # an open seat's show: its values are the card points
            cards = [self._card_index.get(value) for value in values]
            if any(card is None for card in cards):
                # Only possible with proofs off: some hop was not a permutation of cards.
                self._violation(None, "deal", f"seat {seat}'s shown hand holds no card at some position; reveal "
                                "the keys to find the bad hop")
                return
            self.shown_hands[seat] = tuple(c for c in cards if c is not None)
            self._events.append(HandShown(seat, self.shown_hands[seat], tuple(positions)))

    def _handle_open(self, sender: int, opening: CardOpen) -> None:
        k, card = opening.position, opening.card
        if k >= self.n_cards or self._holder[k] != sender:
            held = k < self.n_cards and self.dealt[k] == sender
            raise _Reject("open", f"position {k} is no longer held by seat {sender}" if held
                          else f"position {k} was not dealt to seat {sender}")
        if k in self._opened:
            raise _Reject("open", f"position {k} is already open")
        if card >= self.n_cards:
            raise _Reject("open", f"there is no card {card}")
        if not self._opening_holds(k, card, opening.proof):
            raise _Reject("open", f"seat {sender} cannot show card {card} at position {k}")
        self._opened[k] = card
        self._events.append(CardOpened(sender, k, card))

    def _opening_holds(self, k: int, card: int, proof: bytes) -> bool:
        """The DLEQ proof shows card ``card`` at position ``k`` under the layer that locks it."""
        owner, value = self._lock_of(k)
        base, next_base = self._layer(owner)
        return card < self.n_cards and crypto.dleq_verify(
            self._ctx(f"open/{k}", owner), base, next_base, self._cards[card], value, proof)

    def _hop_permutation(self, seat: int, key: int) -> tuple[int, ...]:
        """The permutation of seat's hop that ``key`` explains; _Reject if it explains none."""
        (in_deck, in_base), (out_deck, out_base) = self._decks[seat], self._decks[seat + 1]
        try:
            return hop_permutation(key, in_deck, in_base, out_deck, out_base)
        except HopMismatch as exc:
            raise _Reject("key", f"seat {seat}'s revealed key does not match its {exc.part}") from None

    def _apply_key(self, seat: int, key: int) -> None:
        self._hop_perms[seat] = self._hop_permutation(seat, key)
        self._revealed[seat] = key
        self._events.append(KeyRevealed(seat))
        if self._deferred.pop(seat, None) is not None:  # the key checked the hop: no argument needed
            self._verified.add(seat)
            self._events.append(ShuffleVerified(seat))
        if len(self._revealed) == self.n:
            self._reveal_hands()

    def _origin(self, hop_perms: dict[int, tuple[int, ...]]) -> list[int]:
        """origin[k]: the card at position k of the final deck D_n."""
        origin = list(range(self.n_cards))
        for hop in reversed(range(self.n)):
            perm = hop_perms[hop]
            origin = [perm[k] for k in origin]
        return origin

    def _dealt_hands(self, origin: Sequence[int]) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(origin[k] for k in self.positions_of(s)) for s in range(self.n))

    def hands_from_keys(self, keys: dict[int, int]) -> tuple[tuple[int, ...], ...]:
        """Every seat's dealt cards from all n keys, each checked against its hop, without
        changing this session: an auditor that holds the whole transcript reads the deal
        before the keys' slot comes (the keys are checked again, as usual, in their slot).

        Raises :class:`KeyMismatch` naming the first seat whose key explains no hop.
        """
        if not self.deal_verified or sorted(keys) != list(range(self.n)):
            raise DeckUsageError("hands_from_keys needs a verified deal and one key per seat")
        perms = {}
        for seat in range(self.n):
            try:
                perms[seat] = self._hop_permutation(seat, keys[seat])
            except (_Reject, CryptoError) as exc:
                raise KeyMismatch(seat, str(exc)) from None
        return self._dealt_hands(self._origin(perms))

    def hands_from_some_keys(self, keys: dict[int, int]) -> tuple[tuple[int, ...] | None, ...]:
        """Every seat's dealt cards that ``keys`` (some seats' keys) show, once the strips are
        done (each position's final value is under its owner's layer only): a seat whose key
        is given has its own positions decrypted with it (the key is checked against its hop
        first); when exactly one seat's key is missing, its hand is the complement of the
        others' (docs/protocol.md, "Settlement"); with more missing, those hands are None.

        Raises :class:`KeyMismatch` naming the first seat whose key explains no hop, or whose
        key decrypts a position to no card; :class:`DeckUsageError` before the strips are done.
        """
        if len(self._final) != self.n_cards or not set(keys) <= set(range(self.n)):
            raise DeckUsageError("hands_from_some_keys needs the strips done and keys of this table's seats")
        hands: list[tuple[int, ...] | None] = [None] * self.n
        for seat in sorted(keys):
            try:
                self._hop_permutation(seat, keys[seat])
                x_inv = crypto.scalar_inverse(keys[seat])
            except (_Reject, CryptoError) as exc:
                raise KeyMismatch(seat, str(exc)) from None
            cards = []
            for k in self.positions_of(seat):
                card = self._card_index.get(G.mul(x_inv, self._final[k]))
                if card is None or self._opened.get(k, card) != card:
                    raise KeyMismatch(seat, f"seat {seat}'s key does not decrypt position {k} to its card")
                cards.append(card)
            hands[seat] = tuple(cards)
        missing = [seat for seat in range(self.n) if hands[seat] is None]
        if len(missing) == 1:
            dealt = [card for hand in hands if hand is not None for card in hand]
            rest = tuple(sorted(set(range(self.n_cards)) - set(dealt)))
            if len(set(dealt)) != len(dealt) or len(rest) != len(self.positions_of(missing[0])):
                raise KeyMismatch(min(keys), "the revealed hands overlap: their complement is not a hand")
            hands[missing[0]] = rest
        return tuple(hands)

    def _reveal_hands(self) -> None:
        origin = self._origin(self._hop_perms)
        hands = self._dealt_hands(origin)
        for k, card in self._opened.items():
            if origin[k] != card:  # impossible if the DLEQ and key checks hold
                raise _Reject("key", f"the revealed keys contradict the open card at position {k}")
        if self.hand is not None and self.seat is not None and hands[self.seat] != self.hand:
            raise _Reject("key", "the revealed keys contradict my dealt hand")
        for k, relocks in self._relocks.items():   # every re-lock, with the keys: it holds the dealt card
            for seat, value in relocks:   # (impossible otherwise if the DLEQs hold)
                if self._card_index.get(G.mul(crypto.scalar_inverse(self._revealed[seat]), value)) != origin[k]:
                    raise _Reject("key", f"the revealed keys contradict the re-lock of position {k} to seat {seat}")
        self.hands = hands
        self._events.append(HandRevealed(hands))

    # -- my own steps --------------------------------------------------------------------

    def _act(self) -> None:
        """Take every step of mine whose inputs are in."""
        if self.seat is None or self.failed is not None or not self._started:
            return
        me, n, nonce = self.seat, self.n, self._nonce
        assert nonce is not None, "start() draws the nonce before any step"
        if not self._sent_nonce and len(self._commits) == n - 1:
            self._sent_nonce = True
            self._commits[me] = crypto.nonce_commitment(self.table_id, self.hand_no, me, nonce)
            self._send(DeckNonce(nonce), self.layout.nonce)
        if self.hand_id is None and len(self._nonces) == n - 1 and me not in self._nonces and self._sent_nonce:
            self._nonces[me] = nonce
            self._agree_hand_id()
        if self.hand_id is None:
            return
        if self._x is None and len(self._decks) == me + 1:
            self._shuffle()
        if len(self._decks) == n + 1 and (not self.proofs or self.overlap_strips or len(self._verified) == n):
            for round_ in range(1, n):
                if (round_, me) in self._strips:
                    continue
                if round_ > 1 and (round_ - 1, (me - 1) % n) not in self._strips:
                    break
                self._strip(round_)
        if self.hand is None and self.deal_verified:
            self._deal()
        if self.hand is not None and me in self.layout.shown and (n, me) not in self._strips:
            self._strip(n)    # an open seat: my own strip, public (docs/protocol.md, "Replace seat")

    def _shuffle(self) -> None:
        me = self._me()
        drawn = draw_hop(self._ctx(f"shuffle/{me}", me), me, *self._decks[me], self._rng, self.proofs)
        self._x, self._perm = drawn.x, drawn.perm
        self._send(ShuffleHop(drawn.deck, drawn.base), self.layout.hop(me))
        self._decks.append((drawn.deck, drawn.base))
        self._events.append(ShuffleAccepted(me))
        if drawn.job is not None:
            self._queue(0, drawn.job)

    def _strip(self, round_: int) -> None:
        me, x = self._me(), self._secret()
        positions, inputs = self._strip_inputs(round_, me)
        values, proof = strip_layer(self._ctx(f"strip/{round_}", me), x, self._layer(me), inputs, self._rng)
        self._send(StripRound(round_, values, (proof,)), self.layout.strip(round_))
        self._record_strip(round_, me, positions, values)

    def _deal(self) -> None:
        me = self._me()
        positions = self.positions_of(me)
        read = read_cards(self._secret(), [self._final[k] for k in positions], self._card_index)
        cards = []
        for k, card in zip(positions, read, strict=True):
            if card is None:
                # Only possible with proofs off: some hop was not a permutation of cards.
                self._violation(None, "deal", f"position {k} holds no card; reveal the keys to find the bad hop")
                return
            cards.append(card)
        self.hand = tuple(cards)
        self._held = dict(zip(positions, cards, strict=True))
        self._events.append(HandDealt(me, self.hand, positions))

    # -- helpers -------------------------------------------------------------------------

    def _ctx(self, step: str, sender: int) -> ProofContext:
        if self.hand_id is None:
            raise DeckUsageError("no proof before the hand id is agreed")
        return ProofContext(self.table_id, self.hand_id, step, sender)

    def _me(self) -> int:
        """My seat (a seat's own steps; an observer has none)."""
        if self.seat is None:
            raise DeckUsageError("an observer has no seat to act for")
        return self.seat

    def _secret(self) -> int:
        """My shuffle key (drawn with my shuffle)."""
        if self._x is None:
            raise DeckUsageError("no shuffle key before my shuffle")
        return self._x

    def _slot(self, slot: int | None) -> int:
        if slot is None:
            slot = self._next_free_slot
        if slot < self.layout.end:
            raise DeckUsageError(f"opens and key reveals go in slot {self.layout.end} or later")
        self._next_free_slot = max(self._next_free_slot, slot + 1)
        return slot

    def _send(self, payload: Payload, slot: int) -> None:
        me = self._me()
        if self._identity is None:
            raise DeckUsageError("an observer signs nothing")
        body = Body(self.table_id, self.hand_no, slot, me, self._prev_for_slot(slot), payload)
        envelope = sign_envelope(body, self._identity)
        self._seen[(me, slot)] = decode_envelope(envelope).body_bytes
        self.transcript.append(envelope)
        self._outbox.append(envelope)

    def _queue(self, priority: int, job: DeckJob) -> None:
        self._jobs.push(priority, job)

    def _violation(self, seat: int | None, step: str, reason: str) -> None:
        violation = Violation(seat, step, reason)
        if self.failed is None:
            self.failed = violation
        self._events.append(violation)
