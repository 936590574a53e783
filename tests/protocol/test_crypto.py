"""protocol/crypto.py: encodings, validation, and proofs that hold only for their statement."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p_sasaki.protocol import crypto
from p2p_sasaki.protocol.crypto import (
    L,
    G,
    IdentityKey,
    ProofContext,
    SeededEntropy,
    ShuffleOpening,
    dleq_prove,
    dleq_verify,
    shuffle,
    shuffle_prove,
    shuffle_verify,
    verify_signature,
)

TABLE = bytes(range(32))
HAND = bytes(32)
CTX = ProofContext(TABLE, HAND, "strip/1/0", 1)

# Test vectors, repeated in docs/protocol.md ("Test vectors"); test_docs_carry_the_vectors.
VECTORS = {
    "entropy": "4d8b41e466a4a54b32697c0beb713967",
    "hash_parts": "8cf92f92039c3c6d5cfca15a36151fcb15600d089386e1549ca1e7a236e68fad1f532ec091644f0a20fdbc2ccf02fe116437837f4e3516af4b48e8a51cf64aa1",
    "card0": "d6c166187759737b4b7222a30634aab4f722f22be48573f0706e6ae1fcee13da",
    "base": "4113389b1f6d0d489ec04fa10df7bf390dee8107f18590512203706cb53dd4a9",
    "nonce_commitment": "cb5e4a8e5067156f182081ec2be80cbdd2f07f333757737ea3fca3365fd73b2c",
    "hand_id": "a3a5676a6d1b16d5792761eb1d3b3193739ac721ca1f5c76520972c2accc8510",
    "dleq": "df87d111d9718c7a2445b63795539b819116b0a65defb720c80d0938965b020ddd326ad5d515ddede4c891c6746242bc267c765b765079ab98e027d7a7fe4b03",
    "shuffle_proof_commitment0": "c8be2e4676c706c6bafd602d473df71a5a88c09ffc7cbf55807ab952319d4294",
    "public_key": "03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8",
    "signature": "c5194979237b8bb07f71159ab6520eb80cfdafaad7ce5d52169f50c8453f787d944e9b79baf5430e990203248c6a0cf8fab832def50b4ef87e41b06a9ac42d0a",
}


def compute_vectors() -> dict[str, str]:
    entropy = SeededEntropy(b"vector")
    cards = crypto.card_points(TABLE, HAND, 4)
    base = crypto.base_point(TABLE, HAND)
    x = crypto.random_scalar(entropy)
    perm = crypto.random_permutation(entropy, 4)
    out, out_base = shuffle(x, perm, cards, base)
    ctx = ProofContext(TABLE, HAND, "shuffle/0", 0)
    commitments, _ = shuffle_prove(ctx, x, perm, cards, base, out, out_base, entropy, rounds=4)
    dleq = dleq_prove(CTX, x, base, out_base, cards[0], G.mul(x, cards[0]), entropy)
    key = IdentityKey(bytes(range(32)))
    return {
        "entropy": SeededEntropy(b"vector")(16).hex(),
        "hash_parts": crypto.hash_parts(b"p2p-sasaki/v1/test", b"", b"ab", crypto.u32(7)).hex(),
        "card0": cards[0].hex(),
        "base": base.hex(),
        "nonce_commitment": crypto.nonce_commitment(TABLE, 1, 2, bytes(32)).hex(),
        "hand_id": crypto.joint_hand_id(TABLE, 1, 4, 48, [bytes([s]) * 32 for s in range(4)]).hex(),
        "dleq": dleq.hex(),
        "shuffle_proof_commitment0": commitments[0].hex(),
        "public_key": key.public_key.hex(),
        "signature": key.sign(b"p2p-sasaki").hex(),
    }


def test_vectors():
    assert compute_vectors() == VECTORS


# -- encodings and validation --------------------------------------------------------------


def test_hash_framing_separates_parts():
    assert crypto.hash_parts(b"t", b"ab", b"c") != crypto.hash_parts(b"t", b"a", b"bc")
    assert crypto.hash_parts(b"t", b"ab") != crypto.hash_parts(b"u", b"ab")


def test_scalars_must_be_canonical_and_nonzero():
    assert crypto.scalar_from_bytes((L - 1).to_bytes(32, "little")) == L - 1
    for bad in (bytes(32), L.to_bytes(32, "little"), (L + 1).to_bytes(32, "little"), b"\xff" * 32, bytes(31)):
        with pytest.raises(crypto.CryptoError):
            crypto.scalar_from_bytes(bad)


IDENTITY = bytes([1]) + bytes(31)
TORSION_8 = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")


@pytest.mark.parametrize(
    "name, element",
    [
        ("identity", IDENTITY),
        ("order 4", bytes(32)),
        ("order 8", TORSION_8),
        ("y = p (non-canonical)", bytes([0xED]) + b"\xff" * 30 + bytes([0x7F])),
        ("not on the curve", bytes([2]) + bytes(31)),
        ("short", bytes(31)),
    ],
)
def test_invalid_elements_are_refused(name, element):
    assert not G.is_valid(element)
    with pytest.raises(crypto.CryptoError):
        G.mul(5, element)


def test_mixed_order_and_non_canonical_variants_of_a_valid_point_are_refused():
    point = crypto.hash_to_group(b"p2p-sasaki/v1/test", b"p")
    assert G.is_valid(point)
    assert not G.is_valid(G.add(point, TORSION_8))
    # the same point with the sign bit of x flipped is -P (valid); y + p is non-canonical
    y = int.from_bytes(point, "little") & ((1 << 255) - 1)
    p = 2**255 - 19
    if y + p < 2**255:
        assert not G.is_valid((y + p).to_bytes(32, "little"))


def test_permutations_come_from_the_injected_entropy():
    assert crypto.random_permutation(SeededEntropy(b"a"), 48) == crypto.random_permutation(SeededEntropy(b"a"), 48)
    perm = crypto.random_permutation(SeededEntropy(b"a"), 48)
    assert crypto.is_permutation(perm, 48) and perm != tuple(range(48))
    assert crypto.permute("abc", crypto.invert_permutation((2, 0, 1))) == ("b", "c", "a")


# -- DLEQ -------------------------------------------------------------------------------------


def _dleq_statement():
    entropy = SeededEntropy(b"dleq")
    x = crypto.random_scalar(entropy)
    g, h = crypto.hash_to_group(b"p2p-sasaki/v1/test", b"g"), crypto.hash_to_group(b"p2p-sasaki/v1/test", b"h")
    return x, g, G.mul(x, g), h, G.mul(x, h), entropy


def test_dleq_verifies_only_its_own_statement_and_context():
    x, g, gx, h, hx, entropy = _dleq_statement()
    proof = dleq_prove(CTX, x, g, gx, h, hx, entropy)
    assert len(proof) == 64 and dleq_verify(CTX, g, gx, h, hx, proof)
    other = crypto.hash_to_group(b"p2p-sasaki/v1/test", b"other")
    for statement in [(gx, g, h, hx), (g, gx, hx, h), (g, gx, h, other), (g, other, h, hx), (other, gx, h, hx)]:
        assert not dleq_verify(CTX, *statement, proof)
    for ctx in [
        ProofContext(bytes(32), HAND, CTX.step, CTX.sender),
        ProofContext(TABLE, b"\x01" * 32, CTX.step, CTX.sender),
        ProofContext(TABLE, HAND, "strip/1/4", CTX.sender),
        ProofContext(TABLE, HAND, CTX.step, 2),
    ]:
        assert not dleq_verify(ctx, g, gx, h, hx, proof)


def test_dleq_for_a_different_secret_fails():
    x, g, gx, h, hx, entropy = _dleq_statement()
    wrong = G.mul(x + 1, h)
    assert not dleq_verify(CTX, g, gx, h, wrong, dleq_prove(CTX, x, g, gx, h, wrong, entropy))


def test_dleq_refuses_non_canonical_and_zero_scalars():
    x, g, gx, h, hx, entropy = _dleq_statement()
    proof = dleq_prove(CTX, x, g, gx, h, hx, entropy)
    c, s = int.from_bytes(proof[:32], "little"), int.from_bytes(proof[32:], "little")
    assert not dleq_verify(CTX, g, gx, h, hx, proof[:32] + (s + L).to_bytes(32, "little"))
    assert not dleq_verify(CTX, g, gx, h, hx, (c + L).to_bytes(32, "little") + proof[32:])
    assert not dleq_verify(CTX, g, gx, h, hx, bytes(64))
    assert not dleq_verify(CTX, g, gx, h, hx, proof[:63])


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 63), st.integers(1, 255))
def test_dleq_tampered_bytes_never_verify(index, xor):
    x, g, gx, h, hx, entropy = _dleq_statement()
    proof = dleq_prove(CTX, x, g, gx, h, hx, SeededEntropy(b"fixed"))
    tampered = proof[:index] + bytes([proof[index] ^ xor]) + proof[index + 1 :]
    assert not dleq_verify(CTX, g, gx, h, hx, tampered)


# -- the shuffle proof ----------------------------------------------------------------------

N = 6
ROUNDS = 16
SCTX = ProofContext(TABLE, HAND, "shuffle/2", 2)


def _shuffle_statement(seed: bytes = b"shuffle"):
    entropy = SeededEntropy(seed)
    deck = crypto.card_points(TABLE, HAND, N)
    base = crypto.base_point(TABLE, HAND)
    x = crypto.random_scalar(entropy)
    perm = crypto.random_permutation(entropy, N)
    out, out_base = shuffle(x, perm, deck, base)
    return x, perm, deck, base, out, out_base, entropy


def test_shuffle_hop_is_a_rekeyed_permutation():
    x, perm, deck, base, out, out_base, _ = _shuffle_statement()
    assert out == tuple(G.mul(x, deck[p]) for p in perm) and out_base == G.mul(x, base)


def test_shuffle_proof_verifies_only_its_own_statement_and_context():
    x, perm, deck, base, out, out_base, entropy = _shuffle_statement()
    commitments, openings = shuffle_prove(SCTX, x, perm, deck, base, out, out_base, entropy, ROUNDS)
    assert len(commitments) == ROUNDS and all(len(c) == 32 for c in commitments)
    assert shuffle_verify(SCTX, deck, base, out, out_base, commitments, openings, ROUNDS)
    swapped = (out[1], out[0], *out[2:])
    assert not shuffle_verify(SCTX, deck, base, swapped, out_base, commitments, openings, ROUNDS)
    assert not shuffle_verify(SCTX, deck, base, out, G.mul(2, out_base), commitments, openings, ROUNDS)
    assert not shuffle_verify(SCTX, deck, base, out, out_base, commitments, openings, ROUNDS + 1)
    for ctx in [
        ProofContext(bytes(32), HAND, SCTX.step, SCTX.sender),
        ProofContext(TABLE, b"\x01" * 32, SCTX.step, SCTX.sender),
        ProofContext(TABLE, HAND, "shuffle/1", SCTX.sender),
        ProofContext(TABLE, HAND, SCTX.step, 1),
    ]:
        assert not shuffle_verify(ctx, deck, base, out, out_base, commitments, openings, ROUNDS)


def test_a_deck_that_is_not_a_permutation_cannot_be_proven():
    x, perm, deck, base, out, out_base, entropy = _shuffle_statement()
    ghost = crypto.hash_to_group(b"p2p-sasaki/v1/test", b"ghost")
    forged_out = (ghost, *out[1:])
    # the cheater proves with the witness it has; half the rounds open on the forged side
    commitments, openings = shuffle_prove(SCTX, x, perm, deck, base, forged_out, out_base, entropy, ROUNDS)
    assert not shuffle_verify(SCTX, deck, base, forged_out, out_base, commitments, openings, ROUNDS)


def test_shuffle_proof_with_a_bad_opening_fails():
    x, perm, deck, base, out, out_base, entropy = _shuffle_statement()
    commitments, openings = shuffle_prove(SCTX, x, perm, deck, base, out, out_base, entropy, ROUNDS)
    o = openings[0]
    for bad in [
        ShuffleOpening(o.scalar, o.perm[::-1]),
        ShuffleOpening(crypto.scalar_bytes(1), o.perm),
        ShuffleOpening(bytes(32), o.perm),
        ShuffleOpening(L.to_bytes(32, "little"), o.perm),
        ShuffleOpening(o.scalar, (0,) * N),
    ]:
        assert not shuffle_verify(SCTX, deck, base, out, out_base, commitments, (bad, *openings[1:]), ROUNDS)
    assert not shuffle_verify(SCTX, deck, base, out, out_base, (bytes(32), *commitments[1:]), openings, ROUNDS)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, ROUNDS - 1), st.integers(0, 31), st.integers(1, 255), st.booleans())
def test_shuffle_proof_tampered_bytes_never_verify(round_, index, xor, in_commitment):
    x, perm, deck, base, out, out_base, entropy = _shuffle_statement()
    commitments, openings = shuffle_prove(SCTX, x, perm, deck, base, out, out_base, entropy, ROUNDS)
    flip = lambda b: b[:index] + bytes([b[index] ^ xor]) + b[index + 1 :]  # noqa: E731
    if in_commitment:
        commitments = (*commitments[:round_], flip(commitments[round_]), *commitments[round_ + 1 :])
    else:
        o = openings[round_]
        openings = (*openings[:round_], ShuffleOpening(flip(o.scalar), o.perm), *openings[round_ + 1 :])
    assert not shuffle_verify(SCTX, deck, base, out, out_base, commitments, openings, ROUNDS)


def test_shuffle_challenge_uses_every_commitment_at_once():
    x, perm, deck, base, out, out_base, entropy = _shuffle_statement()
    commitments, _ = shuffle_prove(SCTX, x, perm, deck, base, out, out_base, entropy, 64)
    bits = crypto.shuffle_challenge_bits(SCTX, deck, base, out, out_base, commitments)
    assert len(bits) == 64 and 16 < sum(bits) < 48
    # changing the last commitment re-draws the first round's bits too (no per-round hashing)
    changed = [
        crypto.shuffle_challenge_bits(SCTX, deck, base, out, out_base, (*commitments[:-1], bytes([i]) * 32))[:8]
        for i in range(8)
    ]
    assert len({tuple(c) for c in changed}) > 1
    assert len(crypto.shuffle_challenge_bits(SCTX, deck, base, out, out_base, commitments * 10)) == 640


# -- signatures --------------------------------------------------------------------------------


def test_signatures_cover_exact_bytes():
    key = IdentityKey.generate(SeededEntropy(b"id"))
    signature = key.sign(b"body")
    assert verify_signature(key.public_key, b"body", signature)
    assert not verify_signature(key.public_key, b"body ", signature)
    assert not verify_signature(key.public_key, b"body", signature[:-1] + bytes([signature[-1] ^ 1]))
    assert not verify_signature(bytes(32), b"body", signature)
    assert not verify_signature(key.public_key[:31], b"body", signature)


def test_docs_carry_the_vectors():
    from pathlib import Path

    from tests.protocol.test_deck import HAND_VECTOR_SHA256
    from tests.protocol.test_messages import COMMIT_ENVELOPE

    doc = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text(encoding="utf-8")
    for value in [*VECTORS.values(), COMMIT_ENVELOPE, HAND_VECTOR_SHA256]:
        assert value in doc
