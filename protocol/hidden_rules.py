"""Rules on hidden cards, proven with the action: "none of my hidden positions holds any
of these cards", without showing which cards they hold.

Sasku has three rules that depend on cards nobody else sees (docs/rules-sasku.md), and
each is a statement of one form, a *void clause*: the positions under one key hold none of
a public list of forbidden cards.

  - not following: the seat's hidden positions hold none of the cards it had to follow
    with (a trump led: the 18 trumps; a plain card led: the six plain cards of its suit);
  - a give: the given position holds none of the non-pictures (it is a picture) and the
    giver's other hidden positions hold none of the pictures (it was the only one);
  - a return: the returned position holds none of the pictures;
  - and for the partner that refuses a give because it holds nine pictures: its positions
    hold none of the non-pictures.

The proof of a clause (docs/protocol.md, "Hidden-card rules"). A position's public lock is
``(g, X, F)`` with ``X = x*g`` and ``F = x*M_d`` (a dealt position: ``(B_s, B_{s+1}, F_k)``,
:meth:`DeckSession.position_lock`); "holds card d" means ``F = x*M_d``, i.e. the position
would open to d. For values F_1..F_m under one key and forbidden cards c_1..c_r:

  1. y random, z = y/x: W = z*permute(F), Y = z*X = y*g, with the deck's shuffle
     argument (the images W are the hidden cards under the fresh key y, in random order;
     for one position, W_1 = z*F_1 with a DLEQ proof);
  2. V_j = y*M_{c_j}, with one batched DLEQ: log_g(Y) == log_{M_cj}(V_j) for every j;
  3. anyone checks that no V_j is among the W: a held forbidden card would collide.

Everything is bound to the table's context (table, hand id, slot, seat and the agreed
transcript hash before the slot) and to the whole statement through one digest that every
Fiat-Shamir hash of the clause's proofs takes in its step. Pure functions; randomness is
injected as in protocol/crypto.py.

>>> from p2p_sasaki.protocol.crypto import SeededEntropy, card_points, random_scalar
>>> entropy = SeededEntropy(b"doc")
>>> points = card_points(bytes(32), bytes(32), 8)
>>> x, g = random_scalar(entropy), crypto.hash_to_group(b"doc", b"g")
>>> mine = [HiddenCard(k, g, G.mul(x, g), G.mul(x, points[card])) for k, card in ((0, 1), (4, 6))]
>>> ctx = RuleContext(bytes(32), bytes(32), slot=40, seat=0, transcript=bytes(32))
>>> statement = no_follow(mine, follow=(2, 3, 4, 5))
>>> proof = prove(ctx, statement, points, {G.mul(x, g): x}, entropy)
>>> verify(ctx, statement, points, proof), proof.size
(True, 672)
>>> verify(ctx, no_follow(mine, follow=(5, 6)), points, proof)
False
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from p2p_sasaki.protocol import crypto
from p2p_sasaki.protocol.crypto import (
    DLEQ_BYTES,
    SHUFFLE_ARGUMENT_ELEMENTS,
    TAG_HIDDEN_RULE,
    TAG_HIDDEN_RULE_NONCE,
    CryptoError,
    Entropy,
    G,
    ProofContext,
    ShuffleArgument,
    shuffle_argument_scalars,
    system_entropy,
    u32,
)

RULES = ("no-follow", "give", "return", "nine-pictures")
"""The statements a seat proves with an action (their names are hashed into the proof)."""


class HiddenRuleError(ValueError):
    """A statement that cannot be proven: malformed, a secret missing, or false (an honest
    seat never proves a false statement; :class:`FalseStatement`)."""


class FalseStatement(HiddenRuleError):
    """The prover holds a forbidden card: the statement is false and no proof is made."""

    def __init__(self, position: int, card: int) -> None:
        super().__init__(f"position {position} holds forbidden card {card}")
        self.position = position
        self.card = card


# ---------------------------------------------------------------------------------------
# Statements
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RuleContext:
    """Where a proof lives: the table, the hand, the slot of the action it goes with, the
    seat that proves, and the agreed transcript hash before that slot (the envelope's
    ``prev``). A proof moved to any other context fails."""

    table: bytes
    hand_id: bytes
    slot: int
    seat: int
    transcript: bytes

    def parts(self) -> tuple[bytes, ...]:
        return (self.table, self.hand_id, u32(self.slot), u32(self.seat), self.transcript)


@dataclass(frozen=True)
class HiddenCard:
    """One hidden position and its public lock: ``key = x*base``, ``value = x*M_card``
    for the holder's secret x (a dealt position: :meth:`DeckSession.position_lock`)."""

    position: int
    base: bytes
    key: bytes
    value: bytes


@dataclass(frozen=True)
class VoidClause:
    """``cards`` (under one key, ascending positions) hold none of ``forbidden``
    (ascending card indices)."""

    cards: tuple[HiddenCard, ...]
    forbidden: tuple[int, ...]

    @property
    def base(self) -> bytes:
        return self.cards[0].base

    @property
    def key(self) -> bytes:
        return self.cards[0].key

    def check(self, n_cards: int) -> None:
        """Raise :class:`HiddenRuleError` unless the clause is well formed."""
        positions = [card.position for card in self.cards]
        if not self.cards or positions != sorted(set(positions)):
            raise HiddenRuleError("a clause has positions, ascending and distinct")
        if any((card.base, card.key) != (self.base, self.key) for card in self.cards):
            raise HiddenRuleError("a clause's positions are under one key")
        if not self.forbidden or list(self.forbidden) != sorted(set(self.forbidden)):
            raise HiddenRuleError("a clause forbids some cards, ascending and distinct")
        if not 0 <= self.forbidden[0] <= self.forbidden[-1] < n_cards:
            raise HiddenRuleError("a forbidden card is not in the deck")


@dataclass(frozen=True)
class Statement:
    """A rule and its clauses (no clause: nothing is hidden, nothing to prove)."""

    rule: str
    clauses: tuple[VoidClause, ...]

    def check(self, n_cards: int) -> None:
        if self.rule not in RULES:
            raise HiddenRuleError(f"no rule {self.rule!r}")
        positions = [card.position for clause in self.clauses for card in clause.cards]
        if len(set(positions)) != len(positions):
            raise HiddenRuleError("a position is in two clauses")
        for clause in self.clauses:
            clause.check(n_cards)


def holds_none(hidden: Iterable[HiddenCard], forbidden: Iterable[int]) -> tuple[VoidClause, ...]:
    """The clauses saying that no card of ``hidden`` is in ``forbidden``: one per key (a
    position handed over from another seat may be under another key), in the order of
    each key's lowest position. No hidden card: no clause."""
    by_key: dict[tuple[bytes, bytes], list[HiddenCard]] = {}
    for card in sorted(hidden, key=lambda c: c.position):
        by_key.setdefault((card.base, card.key), []).append(card)
    cards = tuple(sorted(set(forbidden)))
    return tuple(VoidClause(tuple(group), cards) for group in by_key.values())


def no_follow(hidden: Iterable[HiddenCard], follow: Iterable[int]) -> Statement:
    """A seat that does not follow: its hidden positions (every unplayed position but the
    one it plays now) hold none of ``follow``, the cards that would have followed."""
    return Statement("no-follow", holds_none(hidden, follow))


def give(given: HiddenCard | None, others: Iterable[HiddenCard], pictures: Iterable[int], n_cards: int) -> Statement:
    """A give: ``given`` holds a picture (none of the non-pictures) and ``others``, the
    giver's other hidden positions, hold none of ``pictures``. ``given`` is None when the
    given picture is shown to everyone (the ``picture_shown`` option): opened, it needs
    no proof."""
    pictures = frozenset(pictures)
    first = holds_none([given], set(range(n_cards)) - pictures) if given is not None else ()
    return Statement("give", first + holds_none(others, pictures))


def return_card(returned: HiddenCard, pictures: Iterable[int]) -> Statement:
    """A return: the position handed back holds none of ``pictures``."""
    return Statement("return", holds_none([returned], pictures))


def nine_pictures(hidden: Iterable[HiddenCard], pictures: Iterable[int], n_cards: int) -> Statement:
    """A partner that holds only pictures (a give to it is against the rules): its hidden
    positions hold none of the non-pictures."""
    return Statement("nine-pictures", holds_none(hidden, set(range(n_cards)) - frozenset(pictures)))


def statement_digest(ctx: RuleContext, statement: Statement) -> bytes:
    """H32(hidden-rule, table, hand_id, u32(slot), u32(seat), transcript, ascii(rule),
    u32(#clauses), then per clause: base, key, u32(m), (u32(position), value)*m, u32(r),
    u32(card)*r)."""
    parts: list[bytes] = [*ctx.parts(), statement.rule.encode("ascii"), u32(len(statement.clauses))]
    for clause in statement.clauses:
        parts += [clause.base, clause.key, u32(len(clause.cards))]
        for card in clause.cards:
            parts += [u32(card.position), card.value]
        parts += [u32(len(clause.forbidden)), *(u32(c) for c in clause.forbidden)]
    return crypto.hash32(TAG_HIDDEN_RULE, *parts)


def clause_context(ctx: RuleContext, digest: bytes, index: int) -> ProofContext:
    """The proof context of clause ``index``: step ``hidden-rule/<digest hex>/<index>``."""
    return ProofContext(ctx.table, ctx.hand_id, f"hidden-rule/{digest.hex()}/{index}", ctx.seat)


# ---------------------------------------------------------------------------------------
# Proofs
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ClauseProof:
    """The proof of one clause: ``images`` W (one per position), ``scaled_key`` Y, the
    ``argument`` that W is the values shuffled under z with Y = z*X (the shuffle argument;
    for one position a DLEQ proof, 64 bytes), ``tags`` V (one per forbidden card) and
    ``tag_proof``, the batched DLEQ (64 bytes)."""

    images: tuple[bytes, ...]
    scaled_key: bytes
    argument: ShuffleArgument | bytes
    tags: tuple[bytes, ...]
    tag_proof: bytes

    @property
    def size(self) -> int:
        """Its bytes: every element and scalar 32, a DLEQ 64."""
        argument = self.argument
        argument_size = (32 * (len(argument.elements) + len(argument.scalars))
                         if isinstance(argument, ShuffleArgument) else len(argument))
        return 32 * (len(self.images) + 1 + len(self.tags)) + argument_size + len(self.tag_proof)


@dataclass(frozen=True)
class HiddenRuleProof:
    """One proof per clause of the statement, in its order."""

    clauses: tuple[ClauseProof, ...]

    @property
    def size(self) -> int:
        return sum(clause.size for clause in self.clauses)


def clause_size(m: int, r: int) -> int:
    """The bytes of a clause's proof for m positions and r forbidden cards:
    32*(m + 1 + 7 + 2m + 1 + r) + 64, or 32*(1 + 1 + r) + 64 + 64 for one position."""
    argument = DLEQ_BYTES if m == 1 else 32 * (SHUFFLE_ARGUMENT_ELEMENTS + shuffle_argument_scalars(m))
    return 32 * (m + 1 + r) + argument + DLEQ_BYTES


def prove(
    ctx: RuleContext,
    statement: Statement,
    card_points: Sequence[bytes],
    secrets: Mapping[bytes, int],
    entropy: Entropy = system_entropy,
) -> HiddenRuleProof:
    """Prove ``statement`` with my secrets (``secrets[key]`` = x for every clause's key).

    It draws exactly 32 bytes from ``entropy`` (:func:`nonce_stream`). Raises
    :class:`FalseStatement` if I hold a forbidden card (nothing is made: an honest
    seat never sends a false proof) and :class:`HiddenRuleError` for a malformed statement
    or a missing or wrong secret.
    """
    statement.check(len(card_points))
    digest = statement_digest(ctx, statement)
    keys = []
    for index, clause in enumerate(statement.clauses):
        x = secrets.get(clause.key)
        if x is None or G.mul(x, clause.base) != clause.key:
            raise HiddenRuleError(f"no secret for clause {index}'s key")
        keys.append(x)
    stream = nonce_stream(digest, keys, entropy(32))
    return HiddenRuleProof(tuple(
        _prove_clause(clause_context(ctx, digest, index), clause, card_points, x, stream)
        for index, (clause, x) in enumerate(zip(statement.clauses, keys, strict=True))
    ))


def nonce_stream(digest: bytes, keys: Sequence[int], drawn: bytes) -> Entropy:
    """Everything random in a proof comes from this stream (hedged, like the deck's nonces):
    SeededEntropy with tag ``hidden-rule-nonce`` and seed H(hidden-rule-nonce, D, x_0..,
    the 32 bytes drawn), so a proof is made from exactly 32 fresh bytes (a worker job can
    carry them) and a weak random source alone does not expose a key."""
    seed = crypto.hash_parts(TAG_HIDDEN_RULE_NONCE, digest, *(crypto.scalar_bytes(x) for x in keys), drawn)
    return crypto.SeededEntropy(seed, TAG_HIDDEN_RULE_NONCE)


def _prove_clause(
    cctx: ProofContext, clause: VoidClause, card_points: Sequence[bytes], x: int, entropy: Entropy,
    honest: bool = True,
) -> ClauseProof:
    """The prover's steps (a test runs them as a cheater would, with ``honest=False``)."""
    inputs = tuple(card.value for card in clause.cards)
    y = crypto.random_scalar(entropy)
    z = y * crypto.scalar_inverse(x) % crypto.L
    perm = crypto.random_permutation(entropy, len(inputs))
    images, scaled_key = crypto.shuffle(z, perm, inputs, clause.key)
    forbidden = [card_points[c] for c in clause.forbidden]
    tags = tuple(G.mul(y, point) for point in forbidden)
    if honest:
        held = set(tags).intersection(images)
        if held:
            j = tags.index(held.pop())
            i = perm[images.index(tags[j])]
            raise FalseStatement(clause.cards[i].position, clause.forbidden[j])
    argument: ShuffleArgument | bytes
    if len(inputs) == 1:
        argument = crypto.dleq_prove(cctx, z, clause.key, scaled_key, inputs[0], images[0], entropy)
    else:
        argument = crypto.shuffle_argument_prove(cctx, z, perm, inputs, clause.key, images, scaled_key, entropy)
    tag_proof = crypto.dleq_batch_prove(cctx, y, clause.base, scaled_key, forbidden, tags, entropy)
    return ClauseProof(images, scaled_key, argument, tags, tag_proof)


def verify(ctx: RuleContext, statement: Statement, card_points: Sequence[bytes], proof: HiddenRuleProof) -> bool:
    """True iff ``proof`` proves ``statement`` (built by the verifier from public data)
    in this context. Never raises."""
    try:
        statement.check(len(card_points))
        if not isinstance(proof, HiddenRuleProof) or len(proof.clauses) != len(statement.clauses):
            return False
        digest = statement_digest(ctx, statement)
        return all(
            _verify_clause(clause_context(ctx, digest, index), clause, card_points, clause_proof)
            for index, (clause, clause_proof) in enumerate(zip(statement.clauses, proof.clauses, strict=True))
        )
    except (CryptoError, HiddenRuleError, TypeError, ValueError, AttributeError):
        return False


def _verify_clause(
    cctx: ProofContext, clause: VoidClause, card_points: Sequence[bytes], proof: ClauseProof
) -> bool:
    inputs = tuple(card.value for card in clause.cards)
    if len(proof.images) != len(inputs) or len(proof.tags) != len(clause.forbidden):
        return False
    crypto.check_element(clause.base, "base")
    crypto.check_distinct_elements((*inputs, clause.key), "hidden value")
    crypto.check_distinct_elements((*proof.images, proof.scaled_key), "image")
    argument = proof.argument
    if isinstance(argument, ShuffleArgument) and len(inputs) > 1:
        if not crypto.shuffle_argument_verify(cctx, inputs, clause.key, proof.images, proof.scaled_key, argument):
            return False
    elif not (isinstance(argument, bytes) and len(inputs) == 1
              and crypto.dleq_verify(cctx, clause.key, proof.scaled_key, inputs[0], proof.images[0], argument)):
        return False
    forbidden = [card_points[c] for c in clause.forbidden]
    if not crypto.dleq_batch_verify(cctx, clause.base, proof.scaled_key, forbidden, proof.tags, proof.tag_proof):
        return False
    return set(proof.tags).isdisjoint(proof.images)
