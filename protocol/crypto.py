"""All the cryptography of the table, as small pure functions.

This is the only module that imports ``rbcl``, ``cryptography`` or ``spake2``
(tests/test_layers.py), and it defines every domain tag of the protocol (section 1).
Randomness is injected as an *entropy function* ``entropy(n) -> n bytes`` (like the
``entropy_f`` of python-spake2): production code passes :func:`system_entropy`, tests
pass a :class:`SeededEntropy` so every output is byte-identical from a seed.

Sections:
  1. errors, entropy, hashing with domain separation; 1b. the memo of pure checks
  2. the group (ristretto255 through libsodium, bundled by rbcl), behind ``Group``
  3. hash commitments
  4. Chaum-Pedersen DLEQ proofs
  5. the shuffle argument (the hop's proof; the old cut-and-choose proof is a test
     oracle in tests/protocol/cut_and_choose.py, not on the wire)
  6. Ed25519 identities and signatures (``cryptography``), weak-key check
  7. the join channel (SPAKE2, HKDF, ChaCha20-Poly1305) and the handshake transcripts

Encodings (docs/protocol.md, "Encodings"): points are 32-byte canonical ristretto255
encodings (never the identity); scalars are 32-byte little-endian integers < L; every hash input is framed as
``u8(len(tag)) || tag || (u32be(len(part)) || part)*``.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import functools
import hashlib
import itertools
import os
import struct
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from rbcl import _sodium  # libsodium's ctypes handle, loaded (bundled) by rbcl


def _remove_bundled_copy() -> None:
    """rbcl loads its bundled libsodium from a copy it writes to a new temporary file at every
    import (2.7 MB) and never removes: every ``sasaki`` process left one in the temporary
    folder. Loaded, the copy is no longer needed where the system allows removing it (POSIX);
    where it does not, or a later rbcl keeps no such file, nothing happens."""
    import sys

    path = getattr(sys.modules.get("rbcl._sodium"), "lib_path", None)
    if isinstance(path, str) and os.path.basename(path).startswith("tmp") and path.endswith((".so", ".pyd")):
        try:
            os.unlink(path)
        except OSError:
            pass


_remove_bundled_copy()

# ---------------------------------------------------------------------------------------
# 1. Errors, entropy, hashing
# ---------------------------------------------------------------------------------------


class CryptoError(ValueError):
    """A point, scalar or proof is not acceptable (invalid, non-canonical or false)."""


Entropy = Callable[[int], bytes]
"""An entropy function: ``entropy(n)`` returns n fresh random bytes."""


def system_entropy(n: int) -> bytes:
    """The production entropy source (the operating system's CSPRNG)."""
    return os.urandom(n)


class SeededEntropy:
    """A deterministic entropy stream for tests and test vectors, never for play (with the
    default tag; a prover that hedges its nonces runs one with its own tag from a seed
    hashed from its secret and fresh entropy: protocol/hidden_rules.py).

    Block i is ``SHA-512(u8(len(tag)) || tag || u32be(len(seed)) || seed || u32be(8) ||
    u64be(i))`` with tag ``p2p-sasaki/v2/test-entropy``; the stream is the concatenation.

    >>> SeededEntropy(b"seed")(4).hex()
    '804e25b5'
    """

    def __init__(self, seed: bytes, tag: bytes | None = None) -> None:
        self._seed = bytes(seed)
        self._tag = TAG_TEST_ENTROPY if tag is None else tag
        self._counter = 0
        self._buffer = b""

    def __call__(self, n: int) -> bytes:
        while len(self._buffer) < n:
            self._buffer += hash_parts(self._tag, self._seed, struct.pack(">Q", self._counter))
            self._counter += 1
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        return out



def u32(value: int) -> bytes:
    """A non-negative integer as a hash part: 4 bytes big-endian."""
    return struct.pack(">I", value)


def hash_parts(tag: bytes, *parts: bytes) -> bytes:
    """SHA-512 over a domain tag and length-framed parts (64 bytes)."""
    if not 0 < len(tag) < 256:
        raise ValueError("a domain tag is 1 to 255 bytes")
    h = hashlib.sha512()
    h.update(bytes([len(tag)]))
    h.update(tag)
    for part in parts:
        h.update(struct.pack(">I", len(part)))
        h.update(part)
    return h.digest()


def hash32(tag: bytes, *parts: bytes) -> bytes:
    """The first 32 bytes of :func:`hash_parts` (commitments, ids)."""
    return hash_parts(tag, *parts)[:32]


# Domain tags: every tag of the protocol, here and nowhere else (docs/protocol.md,
# "Hash inputs"). They are fixed strings under one prefix, "p2p-sasaki/v2/": version 2
# changed the group (ristretto255) and the hop's proof, so every tag moved to the new
# prefix together (version 3 changed only the transcript header's pacing field, no hash
# input's meaning, so the tags keep their prefix). The protocol version itself (PROTOCOL_VERSION,
# messages/wire.py) is also carried by the transcript header, the envelopes and the handshake messages, and the
# hashes bind it through them. A change of meaning gets a new tag, never a reused one.

TAG_PREFIX = b"p2p-sasaki/v2/"


def domain_tag(name: str) -> bytes:
    """``p2p-sasaki/v2/<name>``."""
    return TAG_PREFIX + name.encode("ascii")


TAG_TEST_ENTROPY = domain_tag("test-entropy")
# the deck (protocol/deck.py, sections 2-5 below)
TAG_CARD = domain_tag("card")
TAG_BASE = domain_tag("base")
TAG_NONCE_COMMIT = domain_tag("nonce-commit")
TAG_HAND_ID = domain_tag("hand-id")
TAG_DLEQ = domain_tag("dleq")
TAG_DLEQ_NONCE = domain_tag("dleq-nonce")
TAG_DLEQ_BATCH = domain_tag("dleq-batch")
TAG_SHUFFLE_GENERATOR = domain_tag("shuffle-generator")
TAG_SHUFFLE_NONCE = domain_tag("shuffle-nonce")
TAG_SHUFFLE_STATEMENT = domain_tag("shuffle-statement")
TAG_SHUFFLE_CHALLENGE_A = domain_tag("shuffle-challenge-a")
TAG_SHUFFLE_CHALLENGE_YZ = domain_tag("shuffle-challenge-yz")
TAG_SHUFFLE_CHALLENGE_U = domain_tag("shuffle-challenge-u")
# rules on hidden cards, proven with the action (protocol/hidden_rules.py)
TAG_HIDDEN_RULE = domain_tag("hidden-rule")
TAG_HIDDEN_RULE_NONCE = domain_tag("hidden-rule-nonce")
# the private hand-over (protocol/deck.py)
# the table (protocol/session.py)
TAG_ROSTER = domain_tag("roster")
TAG_CHAIN_START = domain_tag("chain-start")
TAG_SLOT = domain_tag("slot")
TAG_BODY = domain_tag("body")
TAG_SEAT_COMMIT = domain_tag("seat-commit")
TAG_SEATING = domain_tag("seating")
TAG_SEAT_CARD = domain_tag("seat-card")
# the join and mesh handshakes (protocol/handshake.py, section 7 below)
TAG_JOIN_PAKE_JOINER = domain_tag("join/pake-joiner")
TAG_JOIN_PAKE_CREATOR = domain_tag("join/pake-creator")
TAG_JOIN_KEY_TO_CREATOR = domain_tag("join/key-to-creator")
TAG_JOIN_KEY_TO_JOINER = domain_tag("join/key-to-joiner")
TAG_JOIN_TRANSCRIPT = domain_tag("join/transcript")
TAG_MESH_TRANSCRIPT = domain_tag("mesh/transcript")
# a follow-on table (protocol/followon.py)
TAG_FOLLOW_ON = domain_tag("follow-on")
TAG_FOLLOW_ON_ANSWER = domain_tag("follow-on/answer")
# the tournament (protocol/tournament.py)
TAG_TOURNAMENT_ID = domain_tag("tournament-id")
TAG_TOURNAMENT_ROSTER = domain_tag("tournament/roster")
TAG_DRAW_COMMIT = domain_tag("tournament/draw-commit")
TAG_TOURNAMENT_TABLE = domain_tag("tournament/table")      # a round's table id (protocol/net/tournament.py)
# a tournament round's board (protocol/board.py)
TAG_BOARD_ID = domain_tag("board/id")
TAG_BOARD_HASH = domain_tag("board/hash")
TAG_BOARD_OUTCOMES = domain_tag("board/outcomes")
# (p2p_sasaki/sasaki/hand.py, which may not import this module, hashes the engine's hidden
# state with the fixed prefix b"p2p-sasaki/hand/v1\x00"; docs/protocol.md lists it.)


def random_below(entropy: Entropy, bound: int) -> int:
    """A uniform integer in [0, bound) for bound <= 2**32, by rejection from 4 bytes."""
    if not 0 < bound <= 1 << 32:
        raise ValueError("bound must be in 1..2**32")
    limit = (1 << 32) - (1 << 32) % bound
    while True:
        value = int.from_bytes(entropy(4), "big")
        if value < limit:
            return value % bound


def random_permutation(entropy: Entropy, n: int) -> tuple[int, ...]:
    """A uniform permutation of range(n) (Fisher-Yates, from the injected entropy).

    Permutations are *gathers*: ``permute(items, p)[i] == items[p[i]]``.
    """
    perm = list(range(n))
    for i in range(n - 1, 0, -1):
        j = random_below(entropy, i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    return tuple(perm)


def permute(items: Sequence[bytes], perm: Sequence[int]) -> tuple[bytes, ...]:
    """``permute(items, p)[i] == items[p[i]]``."""
    return tuple(items[i] for i in perm)


def invert_permutation(perm: Sequence[int]) -> tuple[int, ...]:
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return tuple(inverse)


def is_permutation(perm: Sequence[int], n: int) -> bool:
    return len(perm) == n and sorted(perm) == list(range(n))


# ---------------------------------------------------------------------------------------
# 1b. Remembered checks
# ---------------------------------------------------------------------------------------
# A check of a proof is a pure function of its bytes, and one process often runs the same
# check again: four seats simulated in one process each verify every other seat's identical
# proof, an audit of four byte-identical transcripts replays the same hands four times, a
# resumed peer replays its file. :class:`CheckMemo` keeps the answers by their complete
# input, so only the first run of a check costs its group work.

_P = ParamSpec("_P")
_R = TypeVar("_R")


class _Unkeyable(TypeError):
    """An argument the memo cannot encode canonically: the check then runs unremembered."""


def _encode(value: object, out: list[bytes]) -> None:
    """Append a canonical, typed, length-framed encoding of ``value`` to ``out``: bytes,
    int, str, bool, None, tuples and lists of them, dataclass values of them (by module,
    name and every field). Two values with the same encoding are equal and of the same types,
    so a check (which reads nothing else) answers the same for both."""
    kind = type(value)   # exactly these types: a subclass could answer differently
    if isinstance(value, bytes) and kind is bytes:
        out += (b"b", struct.pack(">I", len(value)), value)
    elif isinstance(value, int) and kind is int:
        raw = value.to_bytes(value.bit_length() // 8 + 1, "big", signed=True)
        out += (b"i", struct.pack(">I", len(raw)), raw)
    elif isinstance(value, str) and kind is str:
        raw = value.encode("utf-8", "surrogatepass")
        out += (b"s", struct.pack(">I", len(raw)), raw)
    elif value is None or value is True or value is False:
        out.append(b"N" if value is None else b"T" if value else b"F")
    elif isinstance(value, tuple | list) and kind in (tuple, list):
        out += (b"t" if kind is tuple else b"l", struct.pack(">I", len(value)))
        for item in value:
            if type(item) is bytes:   # the common case, a deck's elements, without the call
                out += (b"b", struct.pack(">I", len(item)), item)
            else:
                _encode(item, out)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = dataclasses.fields(value)
        _encode(f"{kind.__module__}.{kind.__qualname__}", out)
        out += (b"d", struct.pack(">I", len(fields)))
        for field in fields:
            _encode(getattr(value, field.name), out)
    else:
        raise _Unkeyable(f"cannot remember a check of a {kind.__name__}")


class CheckMemo:
    """The answers of pure checks this process has already run, by their complete input
    (:meth:`remember` makes a check remembered; ``crypto.check_memo`` is the process's).

    The key is SHA-256 over the check's name and the canonical, typed, length-framed
    encoding of every argument (:func:`_encode`): a different byte anywhere, a different
    context, deck size or type is a different key, so a tampered proof is checked afresh
    after the honest one was remembered; false answers are remembered like true ones. A check
    given an argument the encoding does not cover, or that raises, is not remembered. At most
    ``size`` answers are kept, the least recently used dropped first. ``enabled`` off (or
    :meth:`off`) runs every check in full: bench/ turns it off, since its seats share one
    process but each stands for a machine that checks every proof itself.

    >>> memo = CheckMemo(size=2)
    >>> square = memo.remember(lambda x: x * x)
    >>> square(3), square(3), (memo.hits, memo.misses)
    (9, 9, (1, 1))
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.enabled = True
        self.hits = 0
        self.misses = 0
        # No lock: each OrderedDict call below is atomic under the GIL, and a race costs at most a
        # second run of a check (the same answer).
        self._answers: OrderedDict[bytes, Any] = OrderedDict()

    def __len__(self) -> int:
        return len(self._answers)

    def clear(self) -> None:
        self._answers.clear()
        self.hits = self.misses = 0

    @contextlib.contextmanager
    def off(self) -> Iterator[None]:
        """Every check runs in full inside the block."""
        was, self.enabled = self.enabled, False
        try:
            yield
        finally:
            self.enabled = was

    def remember(self, check: Callable[_P, _R]) -> Callable[_P, _R]:
        """``check`` (a pure function of its arguments), remembered here; its signature and
        answers are unchanged."""
        name = f"{check.__module__}.{check.__qualname__}".encode()

        @functools.wraps(check)
        def remembered(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            if not self.enabled:
                return check(*args, **kwargs)
            parts = [name]
            try:
                _encode(args, parts)
                _encode(sorted(kwargs.items()), parts)
            except _Unkeyable:
                return check(*args, **kwargs)
            key = hashlib.sha256(b"".join(parts)).digest()
            answers = self._answers
            try:
                answer: _R = answers[key]
            except KeyError:
                pass
            else:
                self.hits += 1
                with contextlib.suppress(KeyError):
                    answers.move_to_end(key)
                return answer
            answer = check(*args, **kwargs)
            self.misses += 1
            answers[key] = answer
            while len(answers) > self.size:
                with contextlib.suppress(KeyError):
                    answers.popitem(last=False)
            return answer

        return remembered


check_memo = CheckMemo(size=1 << 14)
"""The process's remembered checks (the deck's and the hidden-card proofs' verifications, a
hop against its revealed key, a signature). 16,384 answers, about 60 hands of a table's four
seats (some 270 checks a hand): an audit of four transcripts of a long match still finds the
first hand's; about 3 MB full (10 MB were every answer a 48-card permutation)."""


# ---------------------------------------------------------------------------------------
# 2. The group
# ---------------------------------------------------------------------------------------
# ristretto255 (RFC 9496) through libsodium as bundled by ``rbcl``: wheels for Linux,
# macOS and Windows carry their own libsodium, so no system library is needed (pysodium
# would need one; PyNaCl has no ristretto255). The hot calls go straight to rbcl's
# ctypes handle on libsodium; rbcl's own wrappers add argument checks we do here once.

L = 2**252 + 27742317777372353535851937790883648493
"""The order of the ristretto255 group."""

IDENTITY = bytes(32)
"""The encoding of the identity element: valid for libsodium, never accepted from a peer."""


def _well_formed(element: bytes) -> bool:
    """32 bytes with the top bit clear. libsodium 1.0.18 (rbcl's) ignores that bit when it
    decodes, so an encoding with it set would be a second, non-canonical name of a point."""
    return isinstance(element, bytes) and len(element) == 32 and element[31] < 0x80


def _buffer() -> Any:
    return ctypes.create_string_buffer(32)


class Group:
    """The prime-order group the deck works in: ristretto255, of order L.

    Elements are 32-byte canonical encodings; scalars are Python ints. Every function
    here that takes a received element validates it; anything libsodium refuses becomes
    a :class:`CryptoError`. Another group could replace this class.
    """

    ELEMENT_BYTES = 32
    SCALAR_BYTES = 32
    order = L

    @staticmethod
    def is_valid(element: bytes) -> bool:
        """A canonical ristretto255 encoding and not the identity."""
        return (
            _well_formed(element)
            and element != IDENTITY
            and _sodium.crypto_core_ristretto255_is_valid_point(element) == 1
        )

    @staticmethod
    def mul(scalar: int, element: bytes) -> bytes:
        """scalar * element, scalar taken mod L. libsodium decodes the element (refusing a
        non-canonical encoding) and refuses an identity result (so a zero scalar too)."""
        if not _well_formed(element):
            raise CryptoError("an element is 32 bytes, top bit clear")
        out = _buffer()
        if _sodium.crypto_scalarmult_ristretto255(out, (scalar % L).to_bytes(32, "little"), element) != 0:
            raise CryptoError("scalar multiplication refused an element")
        raw: bytes = out.raw
        return raw

    @staticmethod
    def base_mul(scalar: int) -> bytes:
        out = _buffer()
        if _sodium.crypto_scalarmult_ristretto255_base(out, (scalar % L).to_bytes(32, "little")) != 0:
            raise CryptoError("base multiplication gave the identity")
        raw: bytes = out.raw
        return raw

    @staticmethod
    def add(a: bytes, b: bytes) -> bytes:
        """a + b (the identity, 32 zero bytes, is a valid operand and result here)."""
        if not (_well_formed(a) and _well_formed(b)):
            raise CryptoError("an element is 32 bytes, top bit clear")
        out = _buffer()
        if _sodium.crypto_core_ristretto255_add(out, a, b) != 0:
            raise CryptoError("point addition refused an element")
        raw: bytes = out.raw
        return raw

    @staticmethod
    def msm(terms: Iterable[tuple[int, bytes]]) -> bytes:
        """sum(s * P) over the terms, scalars mod L; zero scalars are skipped and the empty
        sum is :data:`IDENTITY` (libsodium has no multi-scalar multiplication)."""
        acc = IDENTITY
        for scalar, element in terms:
            scalar %= L
            if scalar == 1:  # no multiplication for a plain sum
                acc = Group.add(acc, element)
            elif scalar:
                acc = Group.add(acc, Group.mul(scalar, element))
        return acc

    @staticmethod
    def from_hash(data64: bytes) -> bytes:
        """ristretto255 from_hash (RFC 9496 one-way map) of 64 uniform bytes."""
        if len(data64) != 64:
            raise ValueError("from_hash takes 64 bytes")
        out = _buffer()
        _sodium.crypto_core_ristretto255_from_hash(out, data64)
        if not Group.is_valid(out.raw):  # the identity, with negligible probability
            raise CryptoError("hash to group gave an invalid element")
        raw: bytes = out.raw
        return raw


G = Group


def hash_to_group(tag: bytes, *parts: bytes) -> bytes:
    """``from_hash(SHA-512(framed tag and parts))``: nobody knows its logarithm."""
    return G.from_hash(hash_parts(tag, *parts))


def hash_to_scalar(tag: bytes, *parts: bytes) -> int:
    """The 64-byte framed SHA-512 read little-endian and reduced mod L."""
    return int.from_bytes(hash_parts(tag, *parts), "little") % L


def random_scalar(entropy: Entropy) -> int:
    """A uniform nonzero scalar: 64 entropy bytes reduced mod L (retry on zero)."""
    while True:
        value = int.from_bytes(entropy(64), "little") % L
        if value:
            return value


def scalar_bytes(scalar: int) -> bytes:
    return scalar.to_bytes(32, "little")


def scalar_from_bytes(data: bytes) -> int:
    """Decode a received scalar: exactly 32 bytes, canonical (< L) and nonzero."""
    if not isinstance(data, bytes) or len(data) != 32:
        raise CryptoError("a scalar is 32 bytes")
    value = int.from_bytes(data, "little")
    if not 0 < value < L:
        raise CryptoError("a scalar must be nonzero and below the group order")
    return value


def scalar_inverse(scalar: int) -> int:
    return pow(scalar, -1, L)


def check_element(element: bytes, what: str = "element") -> bytes:
    if not G.is_valid(element):
        raise CryptoError(f"{what} is not a valid group element")
    return element


def check_distinct_elements(elements: Sequence[bytes], what: str = "element") -> None:
    """Every element valid and all pairwise distinct (a duplicated card shows here)."""
    for element in elements:
        check_element(element, what)
    if len(set(elements)) != len(elements):
        raise CryptoError(f"two {what}s are equal")


@dataclass(frozen=True)
class ProofContext:
    """What every Fiat-Shamir hash binds besides the statement: where the proof lives.

    ``step`` names the step, e.g. ``"strip/2/17"`` (round 2, position 17).
    """

    table: bytes
    hand_id: bytes
    step: str
    sender: int

    def parts(self) -> tuple[bytes, ...]:
        return (self.table, self.hand_id, self.step.encode("ascii"), u32(self.sender))


def card_points(table: bytes, hand_id: bytes, n_cards: int) -> tuple[bytes, ...]:
    """M_c = hash_to_group(card tag, table, hand id, u32(c)) for c in 0..n_cards-1."""
    points = tuple(hash_to_group(TAG_CARD, table, hand_id, u32(c)) for c in range(n_cards))
    return points


def base_point(table: bytes, hand_id: bytes) -> bytes:
    """B_0 = hash_to_group(base tag, table, hand id)."""
    return hash_to_group(TAG_BASE, table, hand_id)


# ---------------------------------------------------------------------------------------
# 3. Hash commitments
# ---------------------------------------------------------------------------------------


def nonce_commitment(table: bytes, hand_no: int, seat: int, nonce: bytes) -> bytes:
    """The commitment a seat sends before revealing its hand-id nonce."""
    return hash32(TAG_NONCE_COMMIT, table, u32(hand_no), u32(seat), nonce)


def joint_hand_id(table: bytes, hand_no: int, n_seats: int, n_cards: int, nonces: Sequence[bytes]) -> bytes:
    """The hand id every seat agrees on once all nonces are revealed (in seat order)."""
    return hash32(TAG_HAND_ID, table, u32(hand_no), u32(n_seats), u32(n_cards), *nonces)


# ---------------------------------------------------------------------------------------
# 4. Chaum-Pedersen DLEQ proofs
# ---------------------------------------------------------------------------------------

DLEQ_BYTES = 64


def _dleq_challenge(ctx: ProofContext, g: bytes, gx: bytes, h: bytes, hx: bytes, a: bytes, b: bytes) -> int:
    return hash_to_scalar(TAG_DLEQ, *ctx.parts(), g, gx, h, hx, a, b)


def dleq_prove(ctx: ProofContext, x: int, g: bytes, gx: bytes, h: bytes, hx: bytes, entropy: Entropy) -> bytes:
    """Prove log_g(gx) == log_h(hx) == x. Returns c || s (64 bytes, little-endian).

    The nonce is hedged: hashed from the secret, the statement and fresh entropy. A nonce
    giving c == 0 or s == 0 is skipped so verifiers can refuse zero scalars outright.
    """
    while True:
        k = hash_to_scalar(TAG_DLEQ_NONCE, scalar_bytes(x), entropy(32), *ctx.parts(), g, gx, h, hx)
        if k == 0:
            continue
        c = _dleq_challenge(ctx, g, gx, h, hx, G.mul(k, g), G.mul(k, h))
        s = (k - c * x) % L
        if c and s:
            return scalar_bytes(c) + scalar_bytes(s)


@check_memo.remember
def dleq_verify(ctx: ProofContext, g: bytes, gx: bytes, h: bytes, hx: bytes, proof: bytes) -> bool:
    """True iff ``proof`` shows log_g(gx) == log_h(hx) for this context. Never raises."""
    return _dleq_holds(ctx, g, gx, h, hx, proof)


def _dleq_holds(ctx: ProofContext, g: bytes, gx: bytes, h: bytes, hx: bytes, proof: bytes) -> bool:
    try:
        if not isinstance(proof, bytes) or len(proof) != DLEQ_BYTES:
            return False
        c = scalar_from_bytes(proof[:32])
        s = scalar_from_bytes(proof[32:])
        a = G.add(G.mul(s, g), G.mul(c, gx))
        b = G.add(G.mul(s, h), G.mul(c, hx))
    except CryptoError:
        return False
    return _dleq_challenge(ctx, g, gx, h, hx, a, b) == c


def _batch_weights(ctx: ProofContext, g: bytes, gx: bytes, hs: Sequence[bytes], hxs: Sequence[bytes]) -> list[int]:
    """c_k = HS(dleq-batch, seed, u32(k)), seed = H(dleq-batch, ctx, g, gx, u32(K), h..., hx...)."""
    if len(hs) != len(hxs) or not hs:
        raise CryptoError("a batch needs as many h as hx, at least one")
    for element in (*hs, *hxs):
        check_element(element, "batched element")
    seed = hash_parts(TAG_DLEQ_BATCH, *ctx.parts(), g, gx, u32(len(hs)), *hs, *hxs)
    return [hash_to_scalar(TAG_DLEQ_BATCH, seed, u32(k)) for k in range(len(hs))]


def _batch(ctx: ProofContext, g: bytes, gx: bytes, hs: Sequence[bytes], hxs: Sequence[bytes]) -> tuple[bytes, bytes]:
    """(sum c_k*h_k, sum c_k*hx_k) with the weights c_k of :func:`_batch_weights`."""
    coefficients = _batch_weights(ctx, g, gx, hs, hxs)
    return G.msm(zip(coefficients, hs, strict=False)), G.msm(zip(coefficients, hxs, strict=False))


def dleq_batch_prove(
    ctx: ProofContext, x: int, g: bytes, gx: bytes, hs: Sequence[bytes], hxs: Sequence[bytes], entropy: Entropy
) -> bytes:
    """One DLEQ proof that log_g(gx) == log_{h_k}(hx_k) for every k: the DLEQ of the
    hash-weighted sums (a false pair survives the weighting with probability 1/L). The
    prover forms the second sum as x times the first (one multiplication instead of K; the
    same point whenever every hx_k is x*h_k, and a proof that fails when one is not)."""
    coefficients = _batch_weights(ctx, g, gx, hs, hxs)
    h = G.msm(zip(coefficients, hs, strict=False))
    return dleq_prove(ctx, x, g, gx, h, G.mul(x, h), entropy)


@check_memo.remember
def dleq_batch_verify(ctx: ProofContext, g: bytes, gx: bytes, hs: Sequence[bytes], hxs: Sequence[bytes],
                      proof: bytes) -> bool:
    """True iff ``proof`` shows log_g(gx) == log_{h_k}(hx_k) for every k. Never raises."""
    try:
        h, hx = _batch(ctx, g, gx, hs, hxs)
    except CryptoError:
        return False
    return _dleq_holds(ctx, g, gx, h, hx, proof)


# ---------------------------------------------------------------------------------------
# 5. The shuffle argument
# ---------------------------------------------------------------------------------------
# Statement: T_i = x * M_p[i] (i = 0..n-1) and B' = x * B, for one secret x and one
# permutation p (a gather). A Bayer-Groth (EUROCRYPT 2012) shuffle argument adapted to
# this same-scalar exponent shuffle; docs/protocol.md, "Shuffle argument", has the
# equations, the soundness argument and the references. com(v; r) = sum v_i*G_i + r*H is a
# Pedersen vector commitment under generators nobody knows a relation between.
#   1. c_A = com(p; r_A)                       the permutation, fixed before any challenge
#   2. a_j = challenges;  c_B = com(b; r_B), b_i = a_p[i]    the challenges, permuted
#   3. y, z: d_i = y*p[i] + b_i - z, committed in c_D = y*c_A + c_B - z*sum(G), and
#      prod d_i = prod_j (y*j + a_j - z)      (Bayer-Groth single-value product argument)
#      together with sum d_i*T_i = x*W - z*sum T_i, W = sum_j (y*j + a_j)*M_j, and B' = x*B
#      (a sigma protocol on (d, x) that reuses the product argument's opening of c_D)
#   4. u: the responses of both.
# Sizes: 7 elements and 2n + 1 scalars; about 7n multiplications to prove, 4n to verify.

SHUFFLE_ARGUMENT_ELEMENTS = 7


def shuffle_argument_scalars(n: int) -> int:
    """The number of scalars in the argument for an n-card deck: 2n + 1."""
    return 2 * n + 1


@dataclass(frozen=True)
class ShuffleArgument:
    """The argument for one hop, in wire form (32-byte elements and scalars).

    ``elements``: c_A, c_B, c_f, c_delta, c_Delta, K, K_B.
    ``scalars``: a~_0..a~_{n-1}, b~_1..b~_{n-2}, r~, s~, s_x.
    """

    elements: tuple[bytes, ...]
    scalars: tuple[bytes, ...]

    @property
    def n(self) -> int:
        """The deck size the argument is for (from its length; checked on verification)."""
        return (len(self.scalars) - 1) // 2


@functools.lru_cache(maxsize=16)
def shuffle_generators(n: int) -> tuple[tuple[bytes, ...], bytes, bytes]:
    """(G_0..G_{n-1}, H, sum G_i): G_i = HG(generator tag, u32(i)), H = HG(generator tag,
    "h"). Hash to group, so nobody knows a relation between them."""
    gens = tuple(hash_to_group(TAG_SHUFFLE_GENERATOR, u32(i)) for i in range(n))
    h = hash_to_group(TAG_SHUFFLE_GENERATOR, b"h")
    return gens, h, G.msm((1, g) for g in gens)


def _commit(gens: Sequence[bytes], h: bytes, values: Sequence[int], blind: int) -> bytes:
    return G.msm([*zip(values, gens, strict=False), (blind, h)])


def _read_scalar(data: bytes) -> int:
    """A received response scalar: 32 bytes, canonical (< L); zero is allowed."""
    if not isinstance(data, bytes) or len(data) != 32:
        raise CryptoError("a scalar is 32 bytes")
    value = int.from_bytes(data, "little")
    if value >= L:
        raise CryptoError("a scalar must be below the group order")
    return value


def _statement_hash(
    ctx: ProofContext, in_deck: Sequence[bytes], in_base: bytes, out_deck: Sequence[bytes], out_base: bytes,
    c_perm: bytes,
) -> bytes:
    gens, h, _ = shuffle_generators(len(in_deck))
    return hash_parts(
        TAG_SHUFFLE_STATEMENT, *ctx.parts(), u32(len(in_deck)), in_base, *in_deck, out_base, *out_deck,
        h, *gens, c_perm,
    )


def _challenges_a(t1: bytes, n: int) -> list[int]:
    return [hash_to_scalar(TAG_SHUFFLE_CHALLENGE_A, t1, u32(j)) for j in range(n)]


def _challenges_yz(t1: bytes, c_keys: bytes) -> tuple[bytes, int, int]:
    t2 = hash_parts(TAG_SHUFFLE_CHALLENGE_YZ, t1, c_keys)
    return t2, hash_to_scalar(TAG_SHUFFLE_CHALLENGE_YZ, t2, b"y"), hash_to_scalar(TAG_SHUFFLE_CHALLENGE_YZ, t2, b"z")


def _challenge_u(t2: bytes, elements: Sequence[bytes]) -> int:
    return hash_to_scalar(TAG_SHUFFLE_CHALLENGE_U, t2, *elements)


def _target_product(a: Sequence[int], y: int, z: int) -> int:
    product = 1
    for j, a_j in enumerate(a):
        product = product * ((y * j + a_j - z) % L) % L
    return product


def shuffle(x: int, perm: Sequence[int], deck: Sequence[bytes], base: bytes) -> tuple[tuple[bytes, ...], bytes]:
    """One shuffle hop: ``(x * permute(deck, perm), x * base)``."""
    return tuple(G.mul(x, deck[p]) for p in perm), G.mul(x, base)


def shuffle_argument_prove(
    ctx: ProofContext,
    x: int,
    perm: Sequence[int],
    in_deck: Sequence[bytes],
    in_base: bytes,
    out_deck: Sequence[bytes],
    out_base: bytes,
    entropy: Entropy,
) -> ShuffleArgument:
    """The argument that ``out = x * permute(in, perm)`` and ``out_base = x * in_base``.

    Its random scalars are hedged: hashed from x, 32 fresh entropy bytes and the statement.
    """
    n = len(in_deck)
    if n < 2 or len(out_deck) != n or not is_permutation(perm, n):
        raise ValueError("a shuffle argument needs n >= 2 cards and a permutation of them")
    return _prove_any(ctx, x, perm, in_deck, in_base, out_deck, out_base, entropy)


def _prove_any(
    ctx: ProofContext, x: int, perm: Sequence[int], in_deck: Sequence[bytes], in_base: bytes,
    out_deck: Sequence[bytes], out_base: bytes, entropy: Entropy,
) -> ShuffleArgument:
    """The prover's steps for any index vector ``perm`` (tests run it as a cheater would,
    with a vector that is not a permutation)."""
    n = len(in_deck)
    gens, h, _ = shuffle_generators(n)
    seed = hash_parts(TAG_SHUFFLE_NONCE, scalar_bytes(x), entropy(32), *ctx.parts(), in_base, out_base, *out_deck)
    counter = itertools.count()

    def rand() -> int:
        return hash_to_scalar(TAG_SHUFFLE_NONCE, seed, u32(next(counter)))

    # 1. the permutation
    r_perm = rand()
    c_perm = _commit(gens, h, perm, r_perm)
    t1 = _statement_hash(ctx, in_deck, in_base, out_deck, out_base, c_perm)
    # 2. the permuted challenges
    a = _challenges_a(t1, n)
    b = [a[p] for p in perm]
    r_keys = rand()
    c_keys = _commit(gens, h, b, r_keys)
    t2, y, z = _challenges_yz(t1, c_keys)
    # 3a. single-value product argument for d = y*perm + b - z under c_D
    d = [(y * p + b_i - z) % L for p, b_i in zip(perm, b, strict=False)]
    r_d = (y * r_perm + r_keys) % L
    running = list(itertools.accumulate(d, lambda acc, v: acc * v % L))
    f = [rand() for _ in range(n)]
    r_f = rand()
    delta = [f[0], *(rand() for _ in range(n - 2)), 0]
    s_1, s_x_blind = rand(), rand()
    c_blind = _commit(gens, h, f, r_f)
    c_delta = _commit(gens, h, [-delta[i] * f[i + 1] % L for i in range(n - 1)], s_1)
    c_diff = _commit(
        gens, h, [(delta[i + 1] - d[i + 1] * delta[i] - running[i] * f[i + 1]) % L for i in range(n - 1)], s_x_blind
    )
    # 3b. same-scalar sigma protocol on (d, x): sum d_i*T_i + z*sum T_i = x*W, B' = x*B
    w_sum = G.msm((y * j + a_j, m) for j, (a_j, m) in enumerate(zip(a, in_deck, strict=False)))
    xi = rand()
    k_deck = G.msm([*zip(f, out_deck, strict=False), (-xi, w_sum)])
    k_base = G.mul(xi, in_base)
    elements = (c_perm, c_keys, c_blind, c_delta, c_diff, k_deck, k_base)
    # 4. responses
    u = _challenge_u(t2, elements)
    a_tilde = [(u * d_i + f_i) % L for d_i, f_i in zip(d, f, strict=False)]
    b_tilde = [(u * running[i] + delta[i]) % L for i in range(1, n - 1)]
    tail = [(u * r_d + r_f) % L, (u * s_x_blind + s_1) % L, (xi + u * x) % L]
    return ShuffleArgument(elements, tuple(scalar_bytes(v) for v in (*a_tilde, *b_tilde, *tail)))


@check_memo.remember
def shuffle_argument_verify(
    ctx: ProofContext,
    in_deck: Sequence[bytes],
    in_base: bytes,
    out_deck: Sequence[bytes],
    out_base: bytes,
    argument: ShuffleArgument,
) -> bool:
    """True iff ``argument`` shows ``out`` is ``in`` permuted and raised to one scalar, for
    this context. Never raises. The decks must already be valid, distinct elements; the
    argument's lengths must be exactly those for this deck (7 elements, 2n + 1 scalars)."""
    try:
        n = len(in_deck)
        if (
            n < 2
            or len(out_deck) != n
            or len(argument.elements) != SHUFFLE_ARGUMENT_ELEMENTS
            or len(argument.scalars) != shuffle_argument_scalars(n)
        ):
            return False
        for element in argument.elements:
            check_element(element, "argument element")
        values = [_read_scalar(s) for s in argument.scalars]
        a_tilde, b_mid = values[:n], values[n : 2 * n - 2]
        r_tilde, s_tilde, s_x = values[2 * n - 2 :]
        c_perm, c_keys, c_blind, c_delta, c_diff, k_deck, k_base = argument.elements
        gens, h, g_sum = shuffle_generators(n)

        t1 = _statement_hash(ctx, in_deck, in_base, out_deck, out_base, c_perm)
        a = _challenges_a(t1, n)
        t2, y, z = _challenges_yz(t1, c_keys)
        u = _challenge_u(t2, argument.elements)
        target = _target_product(a, y, z)
        b_tilde = [a_tilde[0], *b_mid, u * target % L]

        # single-value product argument on c_D = y*c_A + c_B - z*sum(G)
        #   u*c_D + c_f == com(a~; r~)
        if G.msm([(u * y, c_perm), (u, c_keys), (-u * z, g_sum), (1, c_blind)]) != _commit(gens, h, a_tilde, r_tilde):
            return False
        #   u*c_Delta + c_delta == com(u*b~_{i+1} - b~_i*a~_{i+1}; s~)
        diffs = [(u * b_tilde[i + 1] - b_tilde[i] * a_tilde[i + 1]) % L for i in range(n - 1)]
        if G.msm([(u, c_diff), (1, c_delta)]) != _commit(gens, h, diffs, s_tilde):
            return False
        # same-scalar sigma protocol: K == sum (a~_i + u*z)*T_i - s_x*W
        w_sum = G.msm((y * j + a_j, m) for j, (a_j, m) in enumerate(zip(a, in_deck, strict=False)))
        if k_deck != G.msm([*((a_i + u * z, t) for a_i, t in zip(a_tilde, out_deck, strict=False)), (-s_x, w_sum)]):
            return False
        if G.msm([(1, k_base), (u, out_base)]) != G.msm([(s_x, in_base)]):
            return False
    except CryptoError:
        return False
    return True


# ---------------------------------------------------------------------------------------
# 6. Identities and signatures
# ---------------------------------------------------------------------------------------

PUBLIC_KEY_BYTES = 32
SIGNATURE_BYTES = 64


class IdentityKey:
    """A peer's long-term Ed25519 signing key (``cryptography``)."""

    def __init__(self, seed: bytes) -> None:
        if len(seed) != 32:
            raise ValueError("an identity seed is 32 bytes")
        self._key = Ed25519PrivateKey.from_private_bytes(seed)
        self.public_key: bytes = self._key.public_key().public_bytes_raw()

    @classmethod
    def generate(cls, entropy: Entropy = system_entropy) -> IdentityKey:
        return cls(entropy(32))

    def sign(self, data: bytes) -> bytes:
        """An Ed25519 signature over exactly ``data`` (deterministic, 64 bytes)."""
        return self._key.sign(data)

    def __repr__(self) -> str:
        return f"IdentityKey(public_key={self.public_key.hex()!r})"


@check_memo.remember
def verify_signature(public_key: bytes, data: bytes, signature: bytes) -> bool:
    """True iff ``signature`` is a valid Ed25519 signature of ``data``. Never raises.
    Remembered (:data:`check_memo`): peers in one process check the same envelopes."""
    try:
        if len(public_key) != PUBLIC_KEY_BYTES or len(signature) != SIGNATURE_BYTES:
            return False
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, data)
    except (InvalidSignature, ValueError, TypeError):
        return False
    return True


def is_acceptable_identity_key(public_key: bytes) -> bool:
    """True iff ``public_key`` is a canonical Ed25519 point of the prime-order subgroup
    (libsodium's check, through rbcl's handle like the group's calls),
    not the identity and not of small order (a weak key would let one signature verify
    for many messages). Every key is checked when it joins a table. Never raises.

    >>> is_acceptable_identity_key(IdentityKey(bytes(32)).public_key)
    True
    >>> is_acceptable_identity_key(bytes([1]) + bytes(31))  # the identity point
    False
    """
    if type(public_key) is not bytes or len(public_key) != PUBLIC_KEY_BYTES:
        return False
    return bool(_sodium.crypto_core_ed25519_is_valid_point(public_key))


# ---------------------------------------------------------------------------------------
# 7. The join channel and the handshake transcripts (protocol/handshake.py)
# ---------------------------------------------------------------------------------------
# A SPAKE2 run between a table's creator and a joiner yields a shared secret; HKDF-SHA256
# derives one key per direction and ChaCha20-Poly1305 seals the messages on it. Each side
# signs a hash of the run (the transcript) with its identity key; the mesh handshake signs
# a hash of both hellos.

from cryptography.exceptions import InvalidTag as _InvalidTag  # noqa: E402
from cryptography.hazmat.primitives import hashes as _hashes  # noqa: E402
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305 as _ChaCha20Poly1305  # noqa: E402
from cryptography.hazmat.primitives.kdf.hkdf import HKDF as _HKDF  # noqa: E402

# spake2 is imported by :class:`Pake`, not here: only a join runs SPAKE2, and a process that
# never joins or seats anyone (resume, the audit, a replay) need not load its group tables.


class SealError(ValueError):
    """A sealed message did not open: wrong key, wrong counter or tampered bytes."""


def derive_key(secret: bytes, purpose: bytes) -> bytes:
    """A 32-byte key for one ``purpose`` from a shared secret (HKDF-SHA256, no salt)."""
    return _HKDF(algorithm=_hashes.SHA256(), length=32, salt=None, info=purpose).derive(secret)


def _seal_nonce(counter: int) -> bytes:
    return counter.to_bytes(12, "big")


def seal(key: bytes, counter: int, plaintext: bytes, associated: bytes = b"") -> bytes:
    """ChaCha20-Poly1305 encryption; each (key, counter) pair must be used once."""
    return _ChaCha20Poly1305(key).encrypt(_seal_nonce(counter), plaintext, associated)


def unseal(key: bytes, counter: int, sealed: bytes, associated: bytes = b"") -> bytes:
    """The plaintext of :func:`seal`; raises :class:`SealError` if it does not open."""
    try:
        return _ChaCha20Poly1305(key).decrypt(_seal_nonce(counter), sealed, associated)
    except _InvalidTag:
        raise SealError("the sealed message did not open") from None


def join_pake_ids(table_id: bytes) -> tuple[bytes, bytes]:
    """The SPAKE2 identities (idA: the joiner, idB: the creator), bound to the table id."""
    return TAG_JOIN_PAKE_JOINER + b"\0" + table_id, TAG_JOIN_PAKE_CREATOR + b"\0" + table_id


def join_channel_keys(pake_key: bytes) -> tuple[bytes, bytes]:
    """The two sealing keys of a join, (joiner to creator, creator to joiner)."""
    return derive_key(pake_key, TAG_JOIN_KEY_TO_CREATOR), derive_key(pake_key, TAG_JOIN_KEY_TO_JOINER)


def join_transcript(role: str, greeting: bytes, message_a: bytes, message_b: bytes) -> bytes:
    """What ``role`` ("joiner" or "creator") signs: the greeting's exact bytes (protocol
    version, nameplate, table id) and both SPAKE2 messages."""
    return hash32(TAG_JOIN_TRANSCRIPT, role.encode("ascii"), greeting, message_a, message_b)


def mesh_transcript(role: str, dialer_hello: bytes, listener_hello: bytes) -> bytes:
    """What ``role`` ("dialer" or "listener") signs in the mesh handshake: both hellos'
    exact bytes (each with its sender's fresh nonce)."""
    return hash32(TAG_MESH_TRANSCRIPT, role.encode("ascii"), dialer_hello, listener_hello)


class PakeError(ValueError):
    """A SPAKE2 message that is not acceptable."""


class Pake:
    """One side of a SPAKE2 run (python-spake2, Ed25519 group) with injected entropy.

    ``joiner=True`` is side A. ``message`` is ours; :meth:`finish` takes theirs and
    returns the 32-byte shared key (equal on both sides iff the passwords were equal).
    """

    def __init__(self, password: bytes, table_id: bytes, joiner: bool, entropy: Entropy = system_entropy) -> None:
        from spake2 import SPAKE2_A, SPAKE2_B

        id_a, id_b = join_pake_ids(table_id)
        side = SPAKE2_A if joiner else SPAKE2_B
        self._run = side(password, idA=id_a, idB=id_b, entropy_f=entropy)
        self.message: bytes = self._run.start()

    def finish(self, theirs: bytes) -> bytes:
        from spake2.spake2 import SPAKEError

        try:
            return bytes(self._run.finish(theirs))
        except (SPAKEError, ValueError, AssertionError) as exc:
            raise PakeError(f"a malformed SPAKE2 message ({exc or type(exc).__name__})") from None
