"""All the cryptography of the table, as small pure functions.

This is the only module that imports ``rbcl`` or ``cryptography`` (tests/test_layers.py).
Randomness is injected as an *entropy function* ``entropy(n) -> n bytes`` (like the
``entropy_f`` of python-spake2): production code passes :func:`system_entropy`, tests
pass a :class:`SeededEntropy` so every output is byte-identical from a seed.

Sections:
  1. errors, entropy, hashing with domain separation
  2. the group (ristretto255 through libsodium, bundled by rbcl), behind ``Group``
  3. hash commitments
  4. Chaum-Pedersen DLEQ proofs
  5. the cut-and-choose shuffle proof
  6. Ed25519 identities and signatures (``cryptography``)

Encodings (docs/protocol.md, "Encodings"): points are 32-byte canonical ristretto255
encodings (never the identity); scalars are 32-byte little-endian integers < L; every hash input is framed as
``u8(len(tag)) || tag || (u32be(len(part)) || part)*``.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import struct
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from rbcl import _sodium as _ristretto  # libsodium's ctypes handle, loaded (bundled) by rbcl

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
    """A deterministic entropy stream for tests and test vectors, never for play.

    Block i is ``SHA-512(u8(len(tag)) || tag || u32be(len(seed)) || seed || u32be(8) ||
    u64be(i))`` with tag ``p2p-sasaki/v2/test-entropy``; the stream is the concatenation.

    >>> SeededEntropy(b"seed")(4).hex()
    '804e25b5'
    """

    def __init__(self, seed: bytes) -> None:
        self._seed = bytes(seed)
        self._counter = 0
        self._buffer = b""

    def __call__(self, n: int) -> bytes:
        while len(self._buffer) < n:
            self._buffer += hash_parts(TAG_TEST_ENTROPY, self._seed, struct.pack(">Q", self._counter))
            self._counter += 1
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        return out


TAG_TEST_ENTROPY = b"p2p-sasaki/v2/test-entropy"


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
            and _ristretto.crypto_core_ristretto255_is_valid_point(element) == 1
        )

    @staticmethod
    def mul(scalar: int, element: bytes) -> bytes:
        """scalar * element, scalar taken mod L. libsodium decodes the element (refusing a
        non-canonical encoding) and refuses an identity result (so a zero scalar too)."""
        if not _well_formed(element):
            raise CryptoError("an element is 32 bytes, top bit clear")
        out = _buffer()
        if _ristretto.crypto_scalarmult_ristretto255(out, (scalar % L).to_bytes(32, "little"), element) != 0:
            raise CryptoError("scalar multiplication refused an element")
        return out.raw

    @staticmethod
    def base_mul(scalar: int) -> bytes:
        out = _buffer()
        if _ristretto.crypto_scalarmult_ristretto255_base(out, (scalar % L).to_bytes(32, "little")) != 0:
            raise CryptoError("base multiplication gave the identity")
        return out.raw

    @staticmethod
    def add(a: bytes, b: bytes) -> bytes:
        """a + b (the identity, 32 zero bytes, is a valid operand and result here)."""
        if not (_well_formed(a) and _well_formed(b)):
            raise CryptoError("an element is 32 bytes, top bit clear")
        out = _buffer()
        if _ristretto.crypto_core_ristretto255_add(out, a, b) != 0:
            raise CryptoError("point addition refused an element")
        return out.raw

    @staticmethod
    def msm(terms: Iterable[tuple[int, bytes]]) -> bytes:
        """sum(s * P) over the terms, scalars mod L; zero scalars are skipped and the empty
        sum is :data:`IDENTITY` (libsodium has no multi-scalar multiplication)."""
        acc = IDENTITY
        for scalar, element in terms:
            if scalar % L:
                acc = Group.add(acc, Group.mul(scalar, element))
        return acc

    @staticmethod
    def from_hash(data64: bytes) -> bytes:
        """ristretto255 from_hash (RFC 9496 one-way map) of 64 uniform bytes."""
        if len(data64) != 64:
            raise ValueError("from_hash takes 64 bytes")
        out = _buffer()
        _ristretto.crypto_core_ristretto255_from_hash(out, data64)
        if not Group.is_valid(out.raw):  # the identity, with negligible probability
            raise CryptoError("hash to group gave an invalid element")
        return out.raw


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


# Domain tags (docs/protocol.md, "Hash inputs").
TAG_CARD = b"p2p-sasaki/v2/card"
TAG_BASE = b"p2p-sasaki/v2/base"
TAG_NONCE_COMMIT = b"p2p-sasaki/v2/nonce-commit"
TAG_HAND_ID = b"p2p-sasaki/v2/hand-id"
TAG_DLEQ = b"p2p-sasaki/v2/dleq"
TAG_DLEQ_NONCE = b"p2p-sasaki/v2/dleq-nonce"
TAG_SHUFFLE_COMMIT = b"p2p-sasaki/v2/shuffle-commit"
TAG_SHUFFLE_CHALLENGE = b"p2p-sasaki/v2/shuffle-challenge"


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


def dleq_verify(ctx: ProofContext, g: bytes, gx: bytes, h: bytes, hx: bytes, proof: bytes) -> bool:
    """True iff ``proof`` shows log_g(gx) == log_h(hx) for this context. Never raises."""
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


# ---------------------------------------------------------------------------------------
# 5. The cut-and-choose shuffle proof
# ---------------------------------------------------------------------------------------
# Statement: out_deck[i] == x * in_deck[pi[i]] for all i and out_base == x * in_base.
# Round r: the prover draws y_r, sigma_r and commits by hash to the intermediate deck
# E_r = y_r * permute(in_deck, sigma_r) with base y_r * in_base. The challenge bits are
# hashed over the context, the statement and all k commitments at once. Bit 0 opens
# (y_r, sigma_r), checked from the input side; bit 1 opens (z_r = y_r / x,
# tau_r = pi^-1 o sigma_r), checked from the output side: E_r = z_r * permute(out, tau_r).

DEFAULT_SHUFFLE_ROUNDS = 64


@dataclass(frozen=True)
class ShuffleOpening:
    """One round's opening: a scalar and a permutation (gather) of deck positions."""

    scalar: bytes
    perm: tuple[int, ...]


def _shuffle_commitment(deck: Sequence[bytes], base: bytes) -> bytes:
    return hash32(TAG_SHUFFLE_COMMIT, base, *deck)


def _reencrypt(scalar: int, deck: Sequence[bytes], base: bytes, perm: Sequence[int]) -> tuple[tuple[bytes, ...], bytes]:
    return tuple(G.mul(scalar, deck[p]) for p in perm), G.mul(scalar, base)


def shuffle_challenge_bits(
    ctx: ProofContext,
    in_deck: Sequence[bytes],
    in_base: bytes,
    out_deck: Sequence[bytes],
    out_base: bytes,
    commitments: Sequence[bytes],
) -> list[int]:
    """k challenge bits: bit r is bit (r mod 8) of byte r // 8 of the challenge hash."""
    k = len(commitments)
    stream = b""
    counter = 0
    while len(stream) * 8 < k:
        stream += hash_parts(
            TAG_SHUFFLE_CHALLENGE, *ctx.parts(), u32(len(in_deck)), in_base, *in_deck,
            out_base, *out_deck, u32(k), *commitments, u32(counter),
        )
        counter += 1
    return [(stream[r // 8] >> (r % 8)) & 1 for r in range(k)]


def shuffle(x: int, perm: Sequence[int], deck: Sequence[bytes], base: bytes) -> tuple[tuple[bytes, ...], bytes]:
    """One shuffle hop: ``(x * permute(deck, perm), x * base)``."""
    return _reencrypt(x, deck, base, perm)


def shuffle_prove(
    ctx: ProofContext,
    x: int,
    perm: Sequence[int],
    in_deck: Sequence[bytes],
    in_base: bytes,
    out_deck: Sequence[bytes],
    out_base: bytes,
    entropy: Entropy,
    rounds: int = DEFAULT_SHUFFLE_ROUNDS,
) -> tuple[tuple[bytes, ...], tuple[ShuffleOpening, ...]]:
    """The commitments and openings proving ``out = x * permute(in, perm)``."""
    n = len(in_deck)
    secrets_ = []
    commitments = []
    for _ in range(rounds):
        y = random_scalar(entropy)
        sigma = random_permutation(entropy, n)
        e_deck, e_base = _reencrypt(y, in_deck, in_base, sigma)
        secrets_.append((y, sigma))
        commitments.append(_shuffle_commitment(e_deck, e_base))
    bits = shuffle_challenge_bits(ctx, in_deck, in_base, out_deck, out_base, commitments)
    x_inv = scalar_inverse(x)
    perm_inv = invert_permutation(perm)
    openings = []
    for (y, sigma), bit in zip(secrets_, bits):
        if bit == 0:
            openings.append(ShuffleOpening(scalar_bytes(y), sigma))
        else:
            tau = tuple(perm_inv[s] for s in sigma)
            openings.append(ShuffleOpening(scalar_bytes(y * x_inv % L), tau))
    return tuple(commitments), tuple(openings)


def shuffle_verify(
    ctx: ProofContext,
    in_deck: Sequence[bytes],
    in_base: bytes,
    out_deck: Sequence[bytes],
    out_base: bytes,
    commitments: Sequence[bytes],
    openings: Sequence[ShuffleOpening],
    min_rounds: int = DEFAULT_SHUFFLE_ROUNDS,
) -> bool:
    """True iff the proof shows ``out`` is a re-keyed permutation of ``in``. Never raises.

    The decks themselves must already have been validated (valid, distinct elements).
    """
    try:
        n = len(in_deck)
        if len(out_deck) != n or len(commitments) != len(openings) or len(commitments) < min_rounds:
            return False
        bits = shuffle_challenge_bits(ctx, in_deck, in_base, out_deck, out_base, commitments)
        for commitment, opening, bit in zip(commitments, openings, bits):
            scalar = scalar_from_bytes(opening.scalar)
            if not is_permutation(opening.perm, n):
                return False
            source, source_base = (in_deck, in_base) if bit == 0 else (out_deck, out_base)
            e_deck, e_base = _reencrypt(scalar, source, source_base, opening.perm)
            if _shuffle_commitment(e_deck, e_base) != commitment:
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
        self.public_key: bytes = self._key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    @classmethod
    def generate(cls, entropy: Entropy = system_entropy) -> IdentityKey:
        return cls(entropy(32))

    def sign(self, data: bytes) -> bytes:
        """An Ed25519 signature over exactly ``data`` (deterministic, 64 bytes)."""
        return self._key.sign(data)

    def __repr__(self) -> str:
        return f"IdentityKey(public_key={self.public_key.hex()!r})"


def verify_signature(public_key: bytes, data: bytes, signature: bytes) -> bool:
    """True iff ``signature`` is a valid Ed25519 signature of ``data``. Never raises."""
    try:
        if len(public_key) != PUBLIC_KEY_BYTES or len(signature) != SIGNATURE_BYTES:
            return False
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, data)
    except (InvalidSignature, ValueError, TypeError):
        return False
    return True


# ---------------------------------------------------------------------------------------
# 7. The join channel (protocol/net/join.py)
# ---------------------------------------------------------------------------------------
# A SPAKE2 run between a table's creator and a joiner yields a shared secret; HKDF-SHA256
# derives one key per direction and ChaCha20-Poly1305 seals the messages on it.

from cryptography.exceptions import InvalidTag as _InvalidTag  # noqa: E402
from cryptography.hazmat.primitives import hashes as _hashes  # noqa: E402
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305 as _ChaCha20Poly1305  # noqa: E402
from cryptography.hazmat.primitives.kdf.hkdf import HKDF as _HKDF  # noqa: E402


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
