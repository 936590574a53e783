"""Audit one hand's deck from its signed messages and the revealed keys.

The audit replays the envelopes through an observer :class:`~protocol.deck.DeckSession`
(``seat=None``), so every check is the one the seats ran, defined once: signatures,
commitments, every hop's elements, every strip and open proof, and every revealed key
against its hop. With all keys in, it decrypts every position.

From the keys first: a hand whose keys all came is checked hop by hop from them
(:func:`~protocol.deck.hop_permutation`, N + 1 multiplications a hop), which proves more
than the shuffle arguments, so those are not verified. Any other hand (a violation, a
missing message or key) is replayed again in live order with every argument verified,
and its first violation is the one the seats saw.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from p2p_sasaki.protocol.deck import CardOpened, DeckSession, HopMismatch, Violation, hop_permutation

__all__ = ["AuditResult", "HopMismatch", "audit_hand", "hop_permutation"]


@dataclass(frozen=True)
class AuditResult:
    """Every seat's dealt cards (deal order), or the first violation and the seat to blame."""

    hands: tuple[tuple[int, ...], ...] | None
    violation: Violation | None
    opened: tuple[CardOpened, ...] = ()

    @property
    def ok(self) -> bool:
        return self.violation is None


def audit_hand(
    envelopes: Iterable[bytes],
    *,
    n: int,
    n_cards: int,
    peer_public_keys: Sequence[bytes],
    table_id: bytes,
    hand_no: int,
    proofs: bool = True,
    first_slot: int = 0,
    shown: frozenset[int] = frozenset(),
    from_keys: bool = True,
) -> AuditResult:
    """Check a finished hand. Envelopes may come in any order a peer could have logged them.

    A message that is not authentic for this hand is a violation (``seat=None``: the file
    does not say who inserted it); a missing message blames the seat that owed it.
    ``from_keys=False`` verifies every shuffle argument even when the keys are all in.
    ``shown``: the open seats (each shows its hand in the show slot, deck step 6b).
    """
    envelopes = list(envelopes)
    if from_keys and proofs:
        result = _replay(envelopes, n, n_cards, peer_public_keys, table_id, hand_no, proofs, first_slot, True,
                         shown)
        if result.ok:
            return result
    return _replay(envelopes, n, n_cards, peer_public_keys, table_id, hand_no, proofs, first_slot, False, shown)


def _replay(
    envelopes: Sequence[bytes], n: int, n_cards: int, peer_public_keys: Sequence[bytes], table_id: bytes,
    hand_no: int, proofs: bool, first_slot: int, defer: bool, shown: frozenset[int] = frozenset(),
) -> AuditResult:
    observer = DeckSession(
        None, n, n_cards, None, peer_public_keys, table_id, hand_no,
        proofs=proofs, first_slot=first_slot, defer_shuffle_arguments=defer, shown=shown,
    )
    opened: list[CardOpened] = []

    def first_violation() -> Violation | None:
        observer.run_pending()
        for event in observer.take_events():
            if isinstance(event, Violation):
                return event
            if isinstance(event, CardOpened):
                opened.append(event)
        return None

    for envelope in envelopes:
        observer.receive(envelope)
        violation = first_violation()
        if violation is not None:
            return AuditResult(None, violation, tuple(opened))
    missing = observer.waiting_for(include_keys=True)
    if missing:
        seat, step = missing[0]
        return AuditResult(None, Violation(seat, step, f"seat {seat}'s {step} message is missing"), tuple(opened))
    return AuditResult(observer.hands, None, tuple(opened))
