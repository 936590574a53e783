"""The table's hashes: the roster hash, the agreed-state chain and the seating draw. Pure.

Chain: h_0 = H32("chain-start", table, roster_hash), roster_hash = H32("roster", the header
record's bytes); after each completed slot k, h_{k+1} = H32("slot", h_k, u32(hand), u32(slot),
body digests in sender order), a body digest being H32("body", body_bytes). The chain runs
across hands (docs/protocol.md, "Table").
"""

from __future__ import annotations

from collections.abc import Sequence

from p2p_sasaki.protocol import crypto
from p2p_sasaki.protocol.crypto import (
    TAG_BODY, TAG_CHAIN_START, TAG_ROSTER, TAG_SEAT_CARD, TAG_SEAT_COMMIT, TAG_SEATING, TAG_SLOT, u32,
)
from p2p_sasaki.protocol.messages import TranscriptHeader


def roster_hash(header: TranscriptHeader) -> bytes:
    """What GENESIS signs: the table id, the keys in join order and every table option
    (the transcript header's exact bytes), so no member can be shown a different table."""
    return crypto.hash32(TAG_ROSTER, header.encode())


def chain_start(header: TranscriptHeader) -> bytes:
    return crypto.hash32(TAG_CHAIN_START, header.table, roster_hash(header))


def next_chain(prev: bytes, hand: int, slot: int, bodies: Sequence[bytes]) -> bytes:
    """h_{k+1} from h_k and the slot's signed bodies in sender order."""
    return crypto.hash32(TAG_SLOT, prev, u32(hand), u32(slot), *(crypto.hash32(TAG_BODY, b) for b in bodies))


def seat_commitment(table_id: bytes, member: int, nonce: bytes) -> bytes:
    return crypto.hash32(TAG_SEAT_COMMIT, table_id, u32(member), nonce)


def seating_order(table_id: bytes, nonces: Sequence[bytes]) -> tuple[int, ...]:
    """Roster index of the member at each seat.

    Equivalent to each member drawing a card from a deck shuffled by the joint nonce: member
    i's card is H32("seat-card", draw, u32(i)) with draw = H32("seating", table, nonces in
    roster order), and the lowest card takes seat 0, the next seat 1, and so on (turn order).
    """
    draw = crypto.hash32(TAG_SEATING, table_id, *nonces)
    return tuple(sorted(range(len(nonces)), key=lambda i: crypto.hash32(TAG_SEAT_CARD, draw, u32(i))))
