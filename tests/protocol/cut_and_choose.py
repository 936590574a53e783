"""The cut-and-choose shuffle proof of wire version 1, kept only as a test oracle.

NOT ON THE WIRE. Version 2 carries the shuffle argument of protocol/crypto.py; this proof
(k Fiat-Shamir rounds, about k-bit sound, 49k multiplications to prove and as many to
verify) stays here so the tests can check that both accept and refuse the same hops.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from p2p_sasaki.protocol.crypto import (
    CryptoError,
    Entropy,
    G,
    L,
    ProofContext,
    hash32,
    hash_parts,
    invert_permutation,
    is_permutation,
    random_permutation,
    random_scalar,
    scalar_bytes,
    scalar_from_bytes,
    scalar_inverse,
    u32,
)

TAG_SHUFFLE_COMMIT = b"p2p-sasaki/v1/shuffle-commit"
TAG_SHUFFLE_CHALLENGE = b"p2p-sasaki/v1/shuffle-challenge"

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
    for (y, sigma), bit in zip(secrets_, bits, strict=False):
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
        for commitment, opening, bit in zip(commitments, openings, bits, strict=False):
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
