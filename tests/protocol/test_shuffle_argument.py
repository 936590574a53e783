"""The shuffle argument (protocol/crypto.py, section 5): complete, sound, bound to its context.

Every way of producing an output that is not the input permuted and raised to one scalar
is refused, whatever the cheater proves with; no tampered argument verifies; no argument
verifies under another context or another statement. The cut-and-choose proof of
version 1 (tests/protocol/cut_and_choose.py) is the oracle the argument must agree with.
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p_sasaki.protocol import crypto
from p2p_sasaki.protocol.crypto import (
    G,
    L,
    ProofContext,
    SeededEntropy,
    ShuffleArgument,
    shuffle,
    shuffle_argument_prove,
    shuffle_argument_verify,
)
from tests.protocol import cut_and_choose

TABLE = bytes(range(32))
HAND = bytes(32)
CTX = ProofContext(TABLE, HAND, "shuffle/2", 2)
N = 8


@dataclasses.dataclass(frozen=True)
class Hop:
    x: int
    perm: tuple[int, ...]
    deck: tuple[bytes, ...]
    base: bytes
    out: tuple[bytes, ...]
    out_base: bytes

    def prove(self, ctx: ProofContext = CTX, seed: bytes = b"prove") -> ShuffleArgument:
        return shuffle_argument_prove(ctx, self.x, self.perm, self.deck, self.base, self.out, self.out_base,
                                      SeededEntropy(seed))

    def verify(self, argument: ShuffleArgument, ctx: ProofContext = CTX) -> bool:
        return shuffle_argument_verify(ctx, self.deck, self.base, self.out, self.out_base, argument)


def honest_hop(n: int = N, seed: bytes = b"hop") -> Hop:
    entropy = SeededEntropy(seed)
    deck, base = crypto.card_points(TABLE, HAND, n), crypto.base_point(TABLE, HAND)
    x, perm = crypto.random_scalar(entropy), crypto.random_permutation(entropy, n)
    out, out_base = shuffle(x, perm, deck, base)
    return Hop(x, perm, deck, base, out, out_base)


HOP = honest_hop()
ARGUMENT = HOP.prove()


# -- completeness and shape ---------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4, 12, 48])
def test_an_honest_hop_verifies(n):
    hop = honest_hop(n, seed=bytes([n]))
    argument = hop.prove()
    assert len(argument.elements) == 7 and len(argument.scalars) == 2 * n + 1 and argument.n == n
    assert all(G.is_valid(e) for e in argument.elements)
    assert hop.verify(argument)


def test_the_argument_is_deterministic_from_its_entropy_and_hedged():
    assert HOP.prove(seed=b"prove") == ARGUMENT
    assert HOP.prove(seed=b"other") != ARGUMENT  # fresh entropy, fresh blinding
    # the same entropy for another secret gives other blinding too (hedged with x)
    other = dataclasses.replace(HOP, x=HOP.x + 1, out=tuple(G.mul(HOP.x + 1, HOP.deck[p]) for p in HOP.perm),
                                out_base=G.mul(HOP.x + 1, HOP.base))
    assert other.prove().elements[0] != ARGUMENT.elements[0]


def test_the_prover_refuses_a_non_permutation():
    with pytest.raises(ValueError):
        shuffle_argument_prove(CTX, HOP.x, (0,) * N, HOP.deck, HOP.base, HOP.out, HOP.out_base, SeededEntropy(b"x"))


# -- soundness: outputs that are not the input permuted and raised to one scalar ---------------


def _cheats() -> dict[str, tuple[tuple[bytes, ...], bytes, list[tuple[int, tuple[int, ...]]]]]:
    """name -> (forged output deck, output base, witnesses (scalar, index vector) a cheater
    might prove with)."""
    x, perm, deck, base, out = HOP.x, HOP.perm, HOP.deck, HOP.base, HOP.out
    y = crypto.random_scalar(SeededEntropy(b"second scalar"))
    stranger = crypto.hash_to_group(b"p2p-sasaki/v2/test", b"a point that is no card")
    dup = (out[0], out[0], *out[2:])
    return {
        "duplicated card": (dup, HOP.out_base, [(x, perm), (x, (perm[0], perm[0], *perm[2:]))]),
        "dropped card (another card's twin in its place)": (
            (*out[:-1], out[0]), HOP.out_base, [(x, perm), (x, (*perm[:-1], perm[0]))]),
        "card replaced by a stranger": ((G.mul(x, stranger), *out[1:]), HOP.out_base, [(x, perm)]),
        "two scalars": (
            (*out[: N // 2], *(G.mul(y, deck[p]) for p in perm[N // 2 :])), HOP.out_base, [(x, perm), (y, perm)]),
        "base under another scalar": (out, G.mul(y, base), [(x, perm), (y, perm)]),
        "relation between cards (sum of two)": ((G.add(out[0], out[1]), *out[1:]), HOP.out_base, [(x, perm)]),
        "relation between cards (a multiple)": ((G.mul(2, out[0]), *out[1:]), HOP.out_base, [(x, perm), (2 * x, perm)]),
        "no shuffle at all, other scalar": (tuple(G.mul(y, m) for m in deck), HOP.out_base, [(x, tuple(range(N)))]),
    }


CHEATS = _cheats()


@pytest.mark.parametrize("name", sorted(CHEATS))
def test_every_false_hop_is_refused_whatever_the_cheater_proves_with(name):
    out, out_base, witnesses = CHEATS[name]
    forged = dataclasses.replace(HOP, out=out, out_base=out_base)
    assert not forged.verify(ARGUMENT)  # the honest argument does not carry over
    for scalar, vector in witnesses:
        argument = crypto._prove_any(CTX, scalar, vector, HOP.deck, HOP.base, out, out_base, SeededEntropy(b"c"))
        assert not forged.verify(argument), (name, vector)
    # and the version-1 oracle agrees that the hop is false
    oracle = cut_and_choose.shuffle_prove(CTX, HOP.x, HOP.perm, HOP.deck, HOP.base, out, out_base,
                                          SeededEntropy(b"o"), 8)
    assert not cut_and_choose.shuffle_verify(CTX, HOP.deck, HOP.base, out, out_base, *oracle, 8)


def test_two_cards_swapped_is_another_true_hop_and_needs_its_own_argument():
    swapped = dataclasses.replace(HOP, perm=(HOP.perm[1], HOP.perm[0], *HOP.perm[2:]),
                                  out=(HOP.out[1], HOP.out[0], *HOP.out[2:]))
    assert not swapped.verify(ARGUMENT)
    assert swapped.verify(swapped.prove())


def test_the_oracle_accepts_the_honest_hop_the_argument_accepts():
    oracle = cut_and_choose.shuffle_prove(CTX, HOP.x, HOP.perm, HOP.deck, HOP.base, HOP.out, HOP.out_base,
                                          SeededEntropy(b"o"), 8)
    assert cut_and_choose.shuffle_verify(CTX, HOP.deck, HOP.base, HOP.out, HOP.out_base, *oracle, 8)
    assert HOP.verify(ARGUMENT)


def test_a_shorter_or_longer_output_is_refused():
    assert not shuffle_argument_verify(CTX, HOP.deck, HOP.base, HOP.out[:-1], HOP.out_base, ARGUMENT)
    assert not shuffle_argument_verify(CTX, HOP.deck[:-1], HOP.base, HOP.out[:-1], HOP.out_base, ARGUMENT)
    longer = honest_hop(N + 1)
    assert not longer.verify(ARGUMENT)


# -- binding to the context and the statement ------------------------------------------------


@pytest.mark.parametrize("ctx", [
    ProofContext(bytes(32), HAND, CTX.step, CTX.sender),
    ProofContext(TABLE, b"\x01" * 32, CTX.step, CTX.sender),
    ProofContext(TABLE, HAND, "shuffle/1", CTX.sender),
    ProofContext(TABLE, HAND, CTX.step, 1),
], ids=["table", "hand", "step", "sender"])
def test_an_argument_never_verifies_under_another_context(ctx):
    assert not HOP.verify(ARGUMENT, ctx)


def test_an_argument_never_verifies_for_another_statement():
    other = honest_hop(seed=b"another hop")
    assert not other.verify(ARGUMENT)
    # the same input deck and the same output deck under their reverse (a true statement, too)
    reverse = Hop(crypto.scalar_inverse(HOP.x), crypto.invert_permutation(HOP.perm), HOP.out, HOP.out_base,
                  HOP.deck, HOP.base)
    assert reverse.verify(reverse.prove())
    assert not reverse.verify(ARGUMENT)


# -- tampering --------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_random_tampering_of_any_proof_element_never_verifies(data):
    part = data.draw(st.sampled_from(["elements", "scalars"]))
    items = getattr(ARGUMENT, part)
    index = data.draw(st.integers(0, len(items) - 1))
    how = data.draw(st.sampled_from(["flip", "add", "swap", "replace"]))
    item = items[index]
    if how == "flip":
        pos, xor = data.draw(st.integers(0, 31)), data.draw(st.integers(1, 255))
        new = item[:pos] + bytes([item[pos] ^ xor]) + item[pos + 1 :]
    elif how == "add":  # a valid element or scalar that is off by a little
        delta = data.draw(st.integers(1, 2**64))
        if part == "elements":
            new = G.add(item, G.base_mul(delta))
        else:
            new = ((int.from_bytes(item, "little") + delta) % L).to_bytes(32, "little")
    elif how == "swap":
        other = data.draw(st.integers(0, len(items) - 1).filter(lambda i: items[i] != item))
        new = items[other]
    else:
        new = crypto.hash_to_group(b"p2p-sasaki/v2/test", bytes([index])) if part == "elements" else \
            crypto.scalar_bytes(crypto.random_scalar(SeededEntropy(bytes([index]))))
    tampered = dataclasses.replace(ARGUMENT, **{part: (*items[:index], new, *items[index + 1 :])})
    assert not HOP.verify(tampered)


@pytest.mark.parametrize("change", [
    lambda a: ShuffleArgument(a.elements[:-1], a.scalars),
    lambda a: ShuffleArgument((*a.elements, a.elements[0]), a.scalars),
    lambda a: ShuffleArgument(a.elements, a.scalars[:-1]),
    lambda a: ShuffleArgument(a.elements, (*a.scalars, a.scalars[0])),
    lambda a: ShuffleArgument(a.elements, (*a.scalars, *a.scalars[:2])),
    lambda a: ShuffleArgument((crypto.IDENTITY, *a.elements[1:]), a.scalars),
    lambda a: ShuffleArgument((a.elements[0][:31] + bytes([a.elements[0][31] | 0x80]), *a.elements[1:]), a.scalars),
    lambda a: ShuffleArgument(a.elements, ((int.from_bytes(a.scalars[0], "little") + L).to_bytes(32, "little"),
                                           *a.scalars[1:])),
    lambda a: ShuffleArgument(a.elements, (a.scalars[0][:31], *a.scalars[1:])),
], ids=["6 elements", "8 elements", "2n scalars", "2n+2 scalars", "2(n+1)+1 scalars", "identity element",
        "non-canonical element", "non-canonical scalar", "short scalar"])
def test_exactly_the_agreed_shape_is_accepted(change):
    assert not HOP.verify(change(ARGUMENT))
