"""A follow-on table: after a match, the next table of (here) the same members, agreed over
the old table's links and bound to its final chain hash. Sans-IO.

Every member of the follow-on table signs one :class:`FollowOnAnswer` (accept or decline,
with a fresh nonce); when every one of them has accepted, each computes the same new
roster: the same members (keys, addresses, join order) with the nonces of their answers,
and the table id ``table_id_of(link, members)`` (protocol/chain.py) whose invitation id is
the **link** ``H32("follow-on", old table id, old final chain hash, kind, u32(n), keys...)``.
So the new table id is fresh (every member's nonce is in it) and names the old table and
the exact end of its chain; docs/protocol.md, "Follow-on table", is the specification.

The kind says what the follow-on is: ``"rematch"`` (a new match, same members, same
options, totals from zero) or ``"replace-seat"`` (the rest of an abandoned match with a
bot in the seat of the member that left: :func:`replaced_members`, :func:`continuation`).
``keys`` are the follow-on table's members in join order; only they answer.

::

    agreement = FollowOn(old_roster, final_hash, my_key)
    frame = agreement.answer(identity, accept=True, nonce=entropy(32))   # broadcast it
    relay = agreement.receive(frame_from_a_peer)                          # broadcast if not None
    agreement.outcome        # None (waiting), Agreed(roster) or Declined(key, reason)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from p2p_sasaki.protocol import crypto
from p2p_sasaki.protocol.chain import table_id_of
from p2p_sasaki.protocol.config import TableConfig
from p2p_sasaki.protocol.crypto import PUBLIC_KEY_BYTES, SIGNATURE_BYTES, TAG_FOLLOW_ON, TAG_FOLLOW_ON_ANSWER, u32
from p2p_sasaki.protocol.messages import (
    HASH_BYTES,
    MAX_SEATS,
    NONCE_BYTES,
    PROTOCOL_VERSION,
    TABLE_ID_BYTES,
    Array,
    Bin,
    Bool,
    F,
    MessageError,
    Str,
    TableMember,
    TableRoster,
    UInt,
    WireStruct,
    check_version,
    describe_key,
    malformed,
    pack,
    unpack_canonical,
)

__all__ = ["FOLLOW_ON_KINDS", "REMATCH", "REPLACE_SEAT", "BOT_NAME", "replaced_members", "continuation",
           "proposal_problem", "replaceable", "FollowOnAnswer", "FollowOn", "Agreed", "Declined", "link_of",
           "answer_digest", "encode_follow_on", "decode_follow_on", "is_follow_on"]

FOLLOW_ON_TAG = "follow-on"
REMATCH, REPLACE_SEAT = "rematch", "replace-seat"
BOT_NAME = "Bot"   # the name of the bot that takes a seat at a replace-seat table
FOLLOW_ON_KINDS = (REMATCH, REPLACE_SEAT)


@dataclass(frozen=True)
class FollowOnAnswer(WireStruct):
    """One member's signed answer: ``["follow-on", version, table_id, final, kind, keys,
    key, accept, nonce, signature]`` (a msgpack array, strict like a handshake message)."""

    TAG: ClassVar[str] = FOLLOW_ON_TAG
    WHAT: ClassVar[str] = "follow-on message"
    FIELDS = (F("version", UInt()), F("table_id", Bin(TABLE_ID_BYTES), "table id"),
              F("final", Bin(HASH_BYTES), "final chain hash"), F("kind", Str(16, FOLLOW_ON_KINDS), "follow-on kind"),
              F("keys", Array(Bin(PUBLIC_KEY_BYTES), MAX_SEATS, 2), "member key"),
              F("key", Bin(PUBLIC_KEY_BYTES), "public key"), F("accept", Bool()),
              F("nonce", Bin(NONCE_BYTES), "member nonce"), F("signature", Bin(SIGNATURE_BYTES)))
    version: int
    table_id: bytes
    final: bytes
    kind: str
    keys: tuple[bytes, ...]
    key: bytes
    accept: bool
    nonce: bytes
    signature: bytes

    def check(self) -> None:
        if len(set(self.keys)) != len(self.keys):
            raise malformed("a follow-on names each member once")
        if self.key not in self.keys:
            raise malformed("a follow-on answer is signed by one of its members")

    @property
    def link(self) -> bytes:
        return link_of(self.table_id, self.final, self.kind, self.keys)

    def verify(self) -> bool:
        """The signature verifies under ``key``, a strong key (a weak key, e.g. the identity
        point, would let a forged signature verify: refused)."""
        return crypto.is_acceptable_identity_key(self.key) and crypto.verify_signature(
            self.key, answer_digest(self.link, self.key, self.accept, self.nonce), self.signature)


def link_of(table_id: bytes, final: bytes, kind: str, keys: Sequence[bytes]) -> bytes:
    """The follow-on table's invitation id: binds the old table, the end of its chain, the
    kind and the new members."""
    return crypto.hash32(TAG_FOLLOW_ON, table_id, final, kind.encode(), u32(len(keys)), *keys)


def answer_digest(link: bytes, key: bytes, accept: bool, nonce: bytes) -> bytes:
    """What a member signs (Ed25519 over these 32 bytes)."""
    return crypto.hash32(TAG_FOLLOW_ON_ANSWER, link, key, bytes([1 if accept else 0]), nonce)


def encode_follow_on(answer: FollowOnAnswer) -> bytes:
    data = pack([answer.TAG, *answer.to_wire()])
    decode_follow_on(data)
    return data


def decode_follow_on(data: bytes) -> FollowOnAnswer:
    """The answer in ``data``; :class:`MessageError` if it is not one (an envelope, a header,
    anything malformed), :class:`VersionMismatchError` for another protocol version."""
    values = unpack_canonical(data, "follow-on message")
    if type(values) is not list or not values or values[0] != FOLLOW_ON_TAG:
        raise malformed("not a follow-on message")
    if len(values) > 1:
        check_version(values[1], "this peer")
    answer = FollowOnAnswer.from_wire(values[1:])
    return answer


def is_follow_on(data: bytes) -> bool:
    """Whether a frame is a follow-on message (cheap: its first element is the tag)."""
    return data[:1] == b"\x9a" and data[1:11] == b"\xa9follow-on"


@dataclass(frozen=True)
class Agreed:
    """Every member accepted: the follow-on table's roster (its id is the new table id)."""

    roster: TableRoster


@dataclass(frozen=True)
class Declined:
    """No follow-on table: ``key`` declined (or answered both ways)."""

    key: bytes
    reason: str


class FollowOn:
    """The agreement on one follow-on table of ``old`` (the finished table's roster), whose
    chain ended at ``final``. ``members``: the new table's members in join order (their
    keys and addresses; default: the old roster's), each of whom answers."""

    def __init__(self, old: TableRoster, final: bytes, me: bytes, kind: str = "rematch",
                 members: Sequence[TableMember] | None = None) -> None:
        if kind not in FOLLOW_ON_KINDS:
            raise ValueError(f"unknown follow-on kind {kind!r}")
        self.old = old
        self.final = bytes(final)
        self.me = me
        self.kind = kind
        self.members = tuple(members) if members is not None else old.members
        self.keys = tuple(member.key for member in self.members)
        self.link = link_of(old.table_id, self.final, kind, self.keys)
        self.answers: dict[bytes, FollowOnAnswer] = {}
        self.frames: dict[bytes, bytes] = {}          # each member's answer, as received (to relay)
        self.both_ways: bytes | None = None           # a member that signed accept and decline

    def answer(self, identity: Any, accept: bool, nonce: bytes) -> bytes:
        """My signed answer (taken as received); broadcast it. A second call gives the first."""
        if identity.public_key in self.frames:
            return self.frames[identity.public_key]
        signature = identity.sign(answer_digest(self.link, identity.public_key, accept, nonce))
        frame = encode_follow_on(FollowOnAnswer(PROTOCOL_VERSION, self.old.table_id, self.final, self.kind,
                                                self.keys, identity.public_key, accept, bytes(nonce), signature))
        self.receive(frame)
        return frame

    def receive(self, data: bytes) -> bytes | None:
        """Take one frame; the frame to relay to the others (the first copy of an authentic
        answer, or a member's second, contradicting answer), else None. Never raises:
        anything not an authentic answer about this follow-on is dropped, nobody blamed."""
        try:
            answer = decode_follow_on(data)
        except MessageError:
            return None
        if (answer.table_id, answer.final, answer.kind, answer.keys) != \
                (self.old.table_id, self.final, self.kind, self.keys) or not answer.verify():
            return None
        earlier = self.answers.get(answer.key)
        if earlier is None:
            self.answers[answer.key] = answer
            self.frames[answer.key] = data
            return data
        if earlier != answer and self.both_ways is None:
            self.both_ways = answer.key      # evidence: both answers travel, everyone ends
            return data
        return None

    @property
    def outcome(self) -> Agreed | Declined | None:
        if self.both_ways is not None:
            return Declined(self.both_ways, "answered both yes and no")
        for key in self.keys:                # in member order: every peer names the same one
            answer = self.answers.get(key)
            if answer is not None and not answer.accept:
                return Declined(key, "declined")
        if all(key in self.answers for key in self.keys):
            return Agreed(self.roster())
        return None

    @property
    def missing(self) -> tuple[bytes, ...]:
        """The members whose answer has not come."""
        return tuple(key for key in self.keys if key not in self.answers)

    def roster(self) -> TableRoster:
        """The follow-on table's roster (every member answered): the members' addresses
        with their new nonces, in ``keys`` order; the id from the link."""
        members = tuple(dataclasses.replace(member, nonce=self.answers[member.key].nonce)
                        for member in self.members)
        return TableRoster(table_id_of(self.link, members), members)

    def describe(self, key: bytes) -> str:
        return describe_key(key)


# -- replace-seat: a bot in the seat of a member that left (docs/protocol.md, "Replace seat") --


def replaceable(hands: int, abandoned: Sequence[Any]) -> int | None:
    """The seat a ``replace-seat`` follow-on may give a bot, from an abandoned match's
    :class:`~p2p_sasaki.protocol.events.HandAbandoned` events: the last one ended the
    match (``end``), names exactly one absent seat, and hands remain (its hand was not the
    last); else None."""
    if not abandoned:
        return None
    last = abandoned[-1]
    if not last.end or len(last.left) != 1 or last.hand >= hands:
        return None
    return int(last.left[0])


def proposal_problem(answer: FollowOnAnswer, old: TableRoster, final: bytes, gone: bytes) -> str | None:
    """Why ``answer`` is not a runner's ``replace-seat`` proposal for ``old`` ending at
    ``final`` with a bot in the place of ``gone`` (one sentence), or None: it is one. The
    proposal is the bot's own answer: signed by the bot's key (its proof of possession), a
    strong key (not the identity, not of small order, canonical) that is not in ``old``."""
    keys = list(old.keys)
    index = keys.index(gone)
    if (answer.kind != REPLACE_SEAT or answer.table_id != old.table_id or answer.final != final
            or len(answer.keys) != len(keys) or any(k != answer.keys[i] for i, k in enumerate(keys) if i != index)):
        return "the proposal is not about this table's end and members"
    bot = answer.keys[index]
    if bot in keys:
        return "the proposal's bot key is already a member's"
    if not crypto.is_acceptable_identity_key(bot):
        return "the proposal's bot key is weak (the identity, of small order or not canonical): refused"
    if answer.key != bot or not answer.accept:
        return "the proposal is not the bot's own answer"
    if not answer.verify():
        return "the proposal is not signed by the bot's key: refused"
    return None


def replaced_members(old: TableRoster, gone: bytes, bot: TableMember) -> tuple[TableMember, ...]:
    """The ``replace-seat`` table's members: the old roster's in join order, the ``bot``
    (its key fresh, its address its runner's) in the place of the member ``gone``."""
    if gone not in old or bot.key in old:
        raise ValueError("a replaced seat names a member of the old roster and a new key")
    return tuple(bot if member.key == gone else member for member in old.members)


def continuation(config: TableConfig, roster_keys: Sequence[bytes], seat_keys: Sequence[bytes],
                 totals: Sequence[int], hand: int, link: bytes, gone: bytes | None = None,
                 runner: bytes | None = None) -> TableConfig:
    """The ``replace-seat`` table's options: the old table's, for the hands after ``hand``
    (the abandoned one), with the old totals carried (``carried[s]``: seat s's), the old
    seating kept (``seats[s]``: the roster index of seat s; the bot has the index of the
    member it replaces), the ``link`` it follows, and the bot (at ``gone``'s roster index)
    among the open bots, run by ``runner`` (the old table's open bots stay open)."""
    keys = list(roster_keys)
    seats = tuple(keys.index(key) for key in seat_keys)
    bots = tuple(config.bots)
    if gone is not None and runner is not None:
        bots = tuple(sorted({*bots, (keys.index(gone), keys.index(runner))}))
    return dataclasses.replace(config, hands=config.hands - hand, follows=bytes(link), carried=tuple(totals),
                               seats=seats, bots=bots)
