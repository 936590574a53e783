"""protocol/crypto.py: encodings, validation, and proofs that hold only for their statement."""

from __future__ import annotations

import contextlib
import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p_sasaki.protocol import crypto
from p2p_sasaki.protocol.crypto import (
    G,
    IdentityKey,
    L,
    ProofContext,
    SeededEntropy,
    dleq_prove,
    dleq_verify,
    shuffle,
    shuffle_argument_prove,
    verify_signature,
)

TABLE = bytes(range(32))
HAND = bytes(32)
CTX = ProofContext(TABLE, HAND, "strip/1/0", 1)

# Test vectors, repeated in docs/protocol.md ("Test vectors"); test_docs_carry_the_vectors.
VECTORS = {
    "entropy": "97d96f272731940b91f971da67bbd8ea",
    "hash_parts": ("daaf14f7f64e5606e96412315a212075a4f40a4ddb6597b812806ce8780d7d82"
                   "7b9fb9a897a0d54e2880c77151d5dbaa054a8042e0e876f8739ce754cf6602fb"),
    "card0": "0440cc128129e374f6a333d4b7306244d00d2c591c87700cc03797cf95e61e55",
    "base": "02d00fb90517dc7f708be2d6c33970c34b8f90630124bbc7abb4372763b8e071",
    "nonce_commitment": "20c9c02d4e852c4c320df504961de53db8637402c4a4c597d206ab727cdcaec7",
    "hand_id": "40934f241b3fbb636f62f595aefc983b8db340515abcb3ff44ba20db1b8d2188",
    "dleq": ("18800788eb0b5150cc079a1c5d11b54c67ba0e28813d13cb6b2e2126987dad0b"
             "cd83fdb2c8e9f1bc9972073da9354232d827df7bf18179cc64dd0f57a24f2a0e"),
    "shuffle_argument_c_perm": "1caebd9e50ed6d50fef5a3323a2e0b366096b4e71bd7bf933151e9fea6748128",
    "shuffle_argument_sha256": "ae205c3569433cebe37e919588e93ba1fd7649a949ae6d2e09b44467753229a9",
    "public_key": "03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8",
    "signature": ("c5194979237b8bb07f71159ab6520eb80cfdafaad7ce5d52169f50c8453f787d"
                  "944e9b79baf5430e990203248c6a0cf8fab832def50b4ef87e41b06a9ac42d0a"),
}


def compute_vectors() -> dict[str, str]:
    entropy = SeededEntropy(b"vector")
    cards = crypto.card_points(TABLE, HAND, 4)
    base = crypto.base_point(TABLE, HAND)
    x = crypto.random_scalar(entropy)
    perm = crypto.random_permutation(entropy, 4)
    out, out_base = shuffle(x, perm, cards, base)
    ctx = ProofContext(TABLE, HAND, "shuffle/0", 0)
    argument = shuffle_argument_prove(ctx, x, perm, cards, base, out, out_base, entropy)
    dleq = dleq_prove(CTX, x, base, out_base, cards[0], G.mul(x, cards[0]), entropy)
    key = IdentityKey(bytes(range(32)))
    return {
        "entropy": SeededEntropy(b"vector")(16).hex(),
        "hash_parts": crypto.hash_parts(b"p2p-sasaki/v2/test", b"", b"ab", crypto.u32(7)).hex(),
        "card0": cards[0].hex(),
        "base": base.hex(),
        "nonce_commitment": crypto.nonce_commitment(TABLE, 1, 2, bytes(32)).hex(),
        "hand_id": crypto.joint_hand_id(TABLE, 1, 4, 48, [bytes([s]) * 32 for s in range(4)]).hex(),
        "dleq": dleq.hex(),
        "shuffle_argument_c_perm": argument.elements[0].hex(),
        "shuffle_argument_sha256": hashlib.sha256(b"".join(argument.elements + argument.scalars)).hexdigest(),
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


# RFC 9496, appendix A: the first multiples of the generator, and encodings to refuse.
GENERATOR_MULTIPLES = [
    "e2f2ae0a6abc4e71a884a961c500515f58e30b6aa582dd8db6a65945e08d2d76",
    "6a493210f7499cd17fecb510ae0cea23a110e8d5b901f8acadd3095c73a3b919",
    "94741f5d5d52755ece4f23f044ee27d5d1ea1e2bd196b462166b16152a9d0259",
]


@pytest.mark.parametrize(
    "name, element",
    [
        ("identity", bytes(32)),
        ("non-canonical field element (p)", bytes([0xED]) + b"\xff" * 30 + bytes([0x7F])),
        ("non-canonical field element (2^255 - 1)", b"\xff" * 31 + bytes([0x7F])),
        ("non-canonical field element (top bit set)", bytes([0x00]) + b"\xff" * 31),
        ("negative field element s = 1", bytes([1]) + bytes(31)),
        ("negative field element s = p - 2", bytes([0xEB]) + b"\xff" * 30 + bytes([0x7F])),
        ("short", bytes(31)),
        ("long", bytes(GENERATOR_MULTIPLES[0], "ascii")[:33]),
    ],
)
def test_invalid_elements_are_refused(name, element):
    assert not G.is_valid(element)
    with pytest.raises(crypto.CryptoError):
        G.mul(5, element)


def test_the_group_is_ristretto255():
    for k, expected in enumerate(GENERATOR_MULTIPLES, start=1):
        assert G.base_mul(k).hex() == expected
        assert G.is_valid(bytes.fromhex(expected))
    assert G.add(G.base_mul(1), G.base_mul(2)) == G.base_mul(3)
    assert G.add(G.base_mul(1), G.base_mul(L - 1)) == crypto.IDENTITY


def test_every_element_has_one_encoding_and_the_identity_result_is_refused():
    point = crypto.hash_to_group(b"p2p-sasaki/v2/test", b"p")
    assert G.is_valid(point)
    # a multiple of the group order gives the identity, which scalarmult refuses
    with pytest.raises(crypto.CryptoError):
        G.mul(L, point)
    # flipping the sign bit (the top bit) of a canonical encoding never gives an element
    assert not G.is_valid(point[:31] + bytes([point[31] | 0x80]))
    # s and p - s cannot both be valid encodings (one of them is "negative")
    s_value = int.from_bytes(point, "little")
    assert not G.is_valid((2**255 - 19 - s_value).to_bytes(32, "little"))


def test_multi_scalar_multiplication_matches_the_sum_of_products():
    points = [crypto.hash_to_group(b"p2p-sasaki/v2/test", crypto.u32(i)) for i in range(3)]
    expected = G.add(G.add(G.mul(3, points[0]), G.mul(L - 5, points[1])), G.mul(7, points[2]))
    assert G.msm([(3, points[0]), (-5, points[1]), (0, points[1]), (7, points[2])]) == expected
    assert G.msm([]) == crypto.IDENTITY
    assert G.msm([(1, points[0]), (-1, points[0])]) == crypto.IDENTITY


def test_permutations_come_from_the_injected_entropy():
    assert crypto.random_permutation(SeededEntropy(b"a"), 48) == crypto.random_permutation(SeededEntropy(b"a"), 48)
    perm = crypto.random_permutation(SeededEntropy(b"a"), 48)
    assert crypto.is_permutation(perm, 48) and perm != tuple(range(48))
    assert crypto.permute((b"a", b"b", b"c"), crypto.invert_permutation((2, 0, 1))) == (b"b", b"c", b"a")


# -- DLEQ -------------------------------------------------------------------------------------


def _dleq_statement():
    entropy = SeededEntropy(b"dleq")
    x = crypto.random_scalar(entropy)
    g, h = crypto.hash_to_group(b"p2p-sasaki/v2/test", b"g"), crypto.hash_to_group(b"p2p-sasaki/v2/test", b"h")
    return x, g, G.mul(x, g), h, G.mul(x, h), entropy


def test_dleq_verifies_only_its_own_statement_and_context():
    x, g, gx, h, hx, entropy = _dleq_statement()
    proof = dleq_prove(CTX, x, g, gx, h, hx, entropy)
    assert len(proof) == 64 and dleq_verify(CTX, g, gx, h, hx, proof)
    other = crypto.hash_to_group(b"p2p-sasaki/v2/test", b"other")
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


def _batch_statement(k: int = 5):
    entropy = SeededEntropy(b"batch")
    x = crypto.random_scalar(entropy)
    g = crypto.hash_to_group(b"p2p-sasaki/v2/test", b"g")
    outs = [crypto.hash_to_group(b"p2p-sasaki/v2/test", crypto.u32(i)) for i in range(k)]
    return x, g, G.mul(x, g), outs, [G.mul(x, o) for o in outs], entropy


def test_batched_dleq_holds_for_every_pair_or_for_none():
    x, g, gx, hs, hxs, entropy = _batch_statement()
    proof = crypto.dleq_batch_prove(CTX, x, g, gx, hs, hxs, entropy)
    assert len(proof) == 64 and crypto.dleq_batch_verify(CTX, g, gx, hs, hxs, proof)
    other = crypto.hash_to_group(b"p2p-sasaki/v2/test", b"other")
    for k in range(len(hs)):  # one false pair anywhere, even proven with the true secret
        bad = [*hxs[:k], G.mul(x + 1, hs[k]), *hxs[k + 1 :]]
        assert not crypto.dleq_batch_verify(CTX, g, gx, hs, bad, proof)
        honest_proof = crypto.dleq_batch_prove(CTX, x, g, gx, hs, bad, entropy)
        assert not crypto.dleq_batch_verify(CTX, g, gx, hs, bad, honest_proof)
        assert not crypto.dleq_batch_verify(CTX, g, gx, [*hs[:k], other, *hs[k + 1 :]], hxs, proof)
    # two false pairs that cancel in a plain sum do not cancel in the hashed weighting
    delta = G.base_mul(7)
    cancel = [G.add(hxs[0], delta), G.add(hxs[1], G.mul(L - 1, delta)), *hxs[2:]]
    cancel_proof = crypto.dleq_batch_prove(CTX, x, g, gx, hs, cancel, entropy)
    assert not crypto.dleq_batch_verify(CTX, g, gx, hs, cancel, cancel_proof)
    assert not crypto.dleq_batch_verify(CTX, g, gx, hs[::-1], hxs[::-1], proof)  # order is bound
    assert not crypto.dleq_batch_verify(CTX, g, gx, hs[:-1], hxs[:-1], proof)
    assert not crypto.dleq_batch_verify(ProofContext(TABLE, HAND, "strip/2", 1), g, gx, hs, hxs, proof)
    assert not crypto.dleq_batch_verify(CTX, g, gx, [*hs[:-1], crypto.IDENTITY], [*hxs[:-1], crypto.IDENTITY], proof)
    assert not crypto.dleq_batch_verify(CTX, g, gx, [], [], proof)


# -- the shuffle hop (its argument: tests/protocol/test_shuffle_argument.py) -----------------


def test_shuffle_hop_is_a_rekeyed_permutation():
    entropy = SeededEntropy(b"shuffle")
    deck, base = crypto.card_points(TABLE, HAND, 6), crypto.base_point(TABLE, HAND)
    x, perm = crypto.random_scalar(entropy), crypto.random_permutation(entropy, 6)
    out, out_base = shuffle(x, perm, deck, base)
    assert out == tuple(G.mul(x, deck[p]) for p in perm) and out_base == G.mul(x, base)


# -- the memo of pure checks (crypto.check_memo) ---------------------------------------------


class CountedMultiplications:
    """Group.mul calls from now on (each check's group work shows in them)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        mul = crypto.Group.mul

        def counted(scalar: int, element: bytes) -> bytes:
            self.count += 1
            return mul(scalar, element)

        monkeypatch.setattr(crypto.Group, "mul", staticmethod(counted))


def _checks():
    """(name, check, honest arguments, tampered arguments...) for every remembered check of crypto.py."""
    x, g, gx, h, hx, entropy = _dleq_statement()
    proof = dleq_prove(CTX, x, g, gx, h, hx, entropy)
    flipped = proof[:7] + bytes([proof[7] ^ 1]) + proof[8:]
    other = crypto.hash_to_group(b"p2p-sasaki/v2/test", b"other")
    bx, bg, bgx, hs, hxs, entropy = _batch_statement()
    batch = crypto.dleq_batch_prove(CTX, bx, bg, bgx, hs, hxs, entropy)
    swapped = [hxs[1], hxs[0], *hxs[2:]]
    deck, base = crypto.card_points(TABLE, HAND, 4), crypto.base_point(TABLE, HAND)
    sx, perm = crypto.random_scalar(entropy), crypto.random_permutation(entropy, 4)
    out, out_base = shuffle(sx, perm, deck, base)
    hop = ProofContext(TABLE, HAND, "shuffle/0", 0)
    argument = shuffle_argument_prove(hop, sx, perm, deck, base, out, out_base, entropy)
    scalar = argument.scalars[0]
    bent = crypto.ShuffleArgument(argument.elements, (scalar[:3] + bytes([scalar[3] ^ 4]) + scalar[4:],
                                                      *argument.scalars[1:]))
    return [
        ("dleq", dleq_verify, (CTX, g, gx, h, hx, proof),
         (CTX, g, gx, h, hx, flipped), (CTX, g, gx, hx, h, proof), (CTX, g, gx, h, other, proof),
         (ProofContext(TABLE, HAND, CTX.step, 2), g, gx, h, hx, proof)),
        ("batch", crypto.dleq_batch_verify, (CTX, bg, bgx, hs, hxs, batch),
         (CTX, bg, bgx, hs, swapped, batch), (CTX, bg, bgx, hs[::-1], hxs[::-1], batch),
         (CTX, bg, bgx, hs, hxs, batch[:-1] + bytes([batch[-1] ^ 1])), (CTX, bg, bgx, hs[:-1], hxs[:-1], batch)),
        ("shuffle", crypto.shuffle_argument_verify, (hop, deck, base, out, out_base, argument),
         (hop, deck, base, out, out_base, bent), (hop, deck, base, (out[1], out[0], *out[2:]), out_base, argument),
         (hop, deck, base, out, other, argument), (ProofContext(TABLE, HAND, "shuffle/1", 1), deck, base, out,
                                                     out_base, argument)),
    ]


@pytest.mark.parametrize("index", range(3), ids=["dleq", "batch", "shuffle"])
def test_a_remembered_check_answers_as_the_full_check(index, monkeypatch):
    """Honest first (remembered), then every tampered version: each refused, as the full check
    refuses it, and refused again from the memo; the honest answer is still true afterwards."""
    _name, check, honest, *tampered = _checks()[index]
    crypto.check_memo.clear()
    muls = CountedMultiplications(monkeypatch)
    with crypto.check_memo.off():
        assert check(*honest) and not any(check(*args) for args in tampered)
    full = muls.count
    assert check(*honest) and muls.count > full  # the first run checks in full
    for args in tampered:
        assert not check(*args)
    before, hits = muls.count, crypto.check_memo.hits
    assert check(*honest) and not any(check(*args) for args in tampered)
    assert (muls.count, crypto.check_memo.hits) == (before, hits + 1 + len(tampered))   # all remembered, false too
    with crypto.check_memo.off():   # the bench switch: every check in full again
        assert check(*honest) and muls.count > before
    assert crypto.check_memo.hits == hits + 1 + len(tampered)


def test_the_memo_is_bounded_and_keyed_by_exact_types():
    memo = crypto.CheckMemo(size=2)
    calls: list[object] = []

    @memo.remember
    def seen(value: object, flag: bool = False) -> bool:
        calls.append(value)
        return bool(value)

    for value in (b"a", b"b", b"a", b"c", b"b"):   # b"a" used again, so b"b" goes first
        seen(value)
    assert calls == [b"a", b"b", b"c", b"b"] and len(memo) == 2
    # a list is not a tuple, a bool not an int, a keyword not a position; unencodable: run every time
    for other in ((1, 2), [1, 2], 1, True, bytearray(b"a"), bytearray(b"a")):
        seen(other)
    seen(b"a", flag=True)
    assert calls[4:] == [(1, 2), [1, 2], 1, True, bytearray(b"a"), bytearray(b"a"), b"a"]


values = st.recursive(st.none() | st.booleans() | st.integers() | st.binary(max_size=4) | st.text(max_size=3),
                      lambda inner: st.lists(inner, max_size=3) | st.lists(inner, max_size=3).map(tuple), max_leaves=6)


def _typed(value: object) -> object:
    if isinstance(value, list | tuple):
        return type(value), tuple(_typed(item) for item in value)
    return type(value), value


@settings(max_examples=100, deadline=None)
@given(st.lists(values, max_size=8))
def test_the_memo_key_is_one_to_one(items):
    """Two arguments share an encoding only if they are equal and of the same types."""
    seen: dict[bytes, object] = {}
    for item in items:
        parts: list[bytes] = []
        crypto._encode(item, parts)
        assert seen.setdefault(b"".join(parts), _typed(item)) == _typed(item)


# -- signatures --------------------------------------------------------------------------------


def test_signatures_cover_exact_bytes():
    key = IdentityKey.generate(SeededEntropy(b"id"))
    signature = key.sign(b"body")
    # twice as it comes (the second time from crypto.check_memo), then in full: the same answers
    for memo in (contextlib.nullcontext(), contextlib.nullcontext(), crypto.check_memo.off()):
        with memo:
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
