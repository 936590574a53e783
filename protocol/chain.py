"""The table's hashes: the table id, the roster hash, the agreed-state chain and the seating
draw. Pure.

Table id = H32("table-id", invitation id, u32(n), key_0, nonce_0, ..., key_{n-1}, nonce_{n-1})
over the members in join order (creator first): the invitation id is the creator's random
32 bytes (in the join greeting), each nonce a member's fresh 32 random bytes (in its
join identity). It depends on nothing the roster hash covers except the members, so it is
not circular with it; the header carries the result.

Chain: h_0 = H32("chain-start", table, roster_hash), roster_hash = H32("roster", the header
record's bytes); after each completed slot k, h_{k+1} = H32("slot", h_k, u32(hand), u32(slot),
body digests in sender order), a body digest being H32("body", body_bytes). The chain runs
across hands (docs/protocol.md, "Table").
"""

from __future__ import annotations

from collections.abc import Sequence

from p2p_sasaki.protocol import crypto
from p2p_sasaki.protocol.crypto import (
    TAG_BODY,
    TAG_CHAIN_START,
    TAG_ROSTER,
    TAG_SEAT_CARD,
    TAG_SEAT_COMMIT,
    TAG_SEATING,
    TAG_SLOT,
    u32,
)
from p2p_sasaki.protocol.messages import TableMember, TournamentMember, TranscriptHeader

TAG_TABLE_ID = crypto.domain_tag("table-id")


def table_id_of(invitation_id: bytes, members: Sequence[TableMember | TournamentMember],
                tag: bytes = TAG_TABLE_ID) -> bytes:
    """The table's id: fresh as long as one member's nonce is (each member checks its own), so
    no message signed at one table is ever valid at another, whoever created them. A
    tournament's id is made the same way under its own ``tag`` (protocol/tournament.py)."""
    parts = [bytes(invitation_id), u32(len(members))]
    for member in members:
        parts += [member.key, member.nonce]
    return crypto.hash32(tag, *parts)


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
