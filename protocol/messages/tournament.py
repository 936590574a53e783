"""The tournament's own messages: its roster, the members' signatures on it, the draw's
commitments and contributions, and the roster file (``tournament.roster``).

Encoded like the handshake messages (protocol/messages/handshake.py): a msgpack array
``[tag, field, ...]`` with the same field specs and strictness. The pure rules around them
(the tournament id, what a member signs, the draw) are in protocol/tournament.py;
docs/protocol.md, "Tournament", specifies both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from p2p_sasaki.protocol.crypto import PUBLIC_KEY_BYTES, SIGNATURE_BYTES
from p2p_sasaki.protocol.messages.handshake import MAX_HOST_BYTES, MessageStruct
from p2p_sasaki.protocol.messages.names import Name, default_name, describe_key
from p2p_sasaki.protocol.messages.wire import (
    HASH_BYTES,
    NONCE_BYTES,
    TABLE_ID_BYTES,
    Array,
    Bin,
    F,
    Record,
    Str,
    UInt,
    malformed,
    pack,
    unpack_canonical,
)

MIN_TOURNAMENT_PLAYERS = 4
MAX_TOURNAMENT_PLAYERS = 255   # a board message's sender is one byte (docs/protocol.md, "Board")
MAX_ROUNDS = 255
MAX_TOURNAMENT_NAME_BYTES = 100
CONTRIBUTION_BYTES = 32


@dataclass(frozen=True)
class TournamentMember:
    """One player of a tournament: the fields of a table member (key, mesh address, the
    fresh nonce it gave the tournament id, its name) and ``draw_commit``, its commitment
    to the contribution it adds to the draw (protocol/tournament.py, :func:`draw_commitment`)."""

    FIELDS: ClassVar[tuple[F, ...]] = (F("key", Bin(PUBLIC_KEY_BYTES), "public key"), F("host", Str(MAX_HOST_BYTES)),
                                        F("port", UInt(65535)), F("nonce", Bin(NONCE_BYTES), "member nonce"),
                                        F("name", Name(), "member name"),
                                        F("draw_commit", Bin(HASH_BYTES), "draw commitment"))
    key: bytes
    host: str
    port: int
    nonce: bytes
    name: str
    draw_commit: bytes

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", default_name(self.key))


TOURNAMENT_MEMBER = Record(TournamentMember, TournamentMember.FIELDS, "tournament member")


@dataclass(frozen=True)
class TournamentRoster(MessageStruct):
    """The tournament: its id, name, number of rounds and every member (roster order is the
    host first, then the joiners in join order; a member's index in it is its player number
    everywhere: seating, boards, standings). Every member signs it (:class:`RosterSignature`).

    ``invitation`` is the host's fresh random 32 bytes; the id is made from it and every
    member's key and nonce (protocol/tournament.py, :func:`tournament_id_of`)."""

    TAG: ClassVar[str] = "tournament-roster"
    FIELDS = (F("tournament_id", Bin(TABLE_ID_BYTES), "tournament id"),
              F("invitation", Bin(TABLE_ID_BYTES), "invitation id"),
              F("name", Str(MAX_TOURNAMENT_NAME_BYTES), "tournament name"), F("rounds", UInt(MAX_ROUNDS)),
              F("members", Array(TOURNAMENT_MEMBER, MAX_TOURNAMENT_PLAYERS, MIN_TOURNAMENT_PLAYERS), "member"))
    tournament_id: bytes
    invitation: bytes
    name: str
    rounds: int
    members: tuple[TournamentMember, ...]

    def check(self) -> None:
        if len({m.key for m in self.members}) != len(self.members):
            raise malformed("a tournament roster names each member once")
        if self.rounds < 1:
            raise malformed("a tournament has at least one round")

    @property
    def keys(self) -> tuple[bytes, ...]:
        return tuple(member.key for member in self.members)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(member.name for member in self.members)

    def index(self, key: bytes) -> int:
        """The member's player number; KeyError (with the key's short form) if not a member."""
        for number, member in enumerate(self.members):
            if member.key == key:
                return number
        raise KeyError(describe_key(key))


@dataclass(frozen=True)
class DrawCommit(MessageStruct):
    """A member's commitment to its draw contribution, sent to the host before the roster."""

    TAG: ClassVar[str] = "tournament-commit"
    FIELDS = (F("key", Bin(PUBLIC_KEY_BYTES), "public key"), F("draw_commit", Bin(HASH_BYTES), "draw commitment"))
    key: bytes
    draw_commit: bytes


@dataclass(frozen=True)
class RosterSignature(MessageStruct):
    """A member's signature on the roster (protocol/tournament.py, :func:`roster_digest`)."""

    TAG: ClassVar[str] = "tournament-signature"
    FIELDS = (F("key", Bin(PUBLIC_KEY_BYTES), "public key"), F("signature", Bin(SIGNATURE_BYTES)))
    key: bytes
    signature: bytes


@dataclass(frozen=True)
class DrawReveal(MessageStruct):
    """A member's draw contribution, sent once it holds every member's signature."""

    TAG: ClassVar[str] = "tournament-draw"
    FIELDS = (F("key", Bin(PUBLIC_KEY_BYTES), "public key"),
              F("contribution", Bin(CONTRIBUTION_BYTES), "draw contribution"))
    key: bytes
    contribution: bytes


@dataclass(frozen=True)
class TournamentFile(MessageStruct):
    """``tournament.roster``: the roster, every member's signature and every member's draw
    contribution, both in roster order (protocol/tournament.py, :func:`verify_tournament`)."""

    TAG: ClassVar[str] = "tournament-file"
    FIELDS = (F("roster", Record(TournamentRoster, TournamentRoster.FIELDS, "tournament roster")),
              F("signatures", Array(Bin(SIGNATURE_BYTES), MAX_TOURNAMENT_PLAYERS, MIN_TOURNAMENT_PLAYERS),
                "signature"),
              F("contributions", Array(Bin(CONTRIBUTION_BYTES), MAX_TOURNAMENT_PLAYERS, MIN_TOURNAMENT_PLAYERS),
                "draw contribution"))
    roster: TournamentRoster
    signatures: tuple[bytes, ...]
    contributions: tuple[bytes, ...]

    def check(self) -> None:
        if not len(self.signatures) == len(self.contributions) == len(self.roster.members):
            raise malformed("a tournament file has one signature and one contribution per member")


TournamentMessage = TournamentRoster | DrawCommit | RosterSignature | DrawReveal | TournamentFile
TOURNAMENT_TYPES: dict[str, type[MessageStruct]] = {
    cls.TAG: cls for cls in (TournamentRoster, DrawCommit, RosterSignature, DrawReveal, TournamentFile)}


def encode_tournament(message: TournamentMessage) -> bytes:
    """The wire bytes of a tournament message (refuses to emit what it would not accept).

    >>> encode_tournament(DrawReveal(bytes(32), bytes(32)))[:17]
    b'\\x93\\xaftournament-draw'
    """
    data = pack([message.TAG, *message.to_wire()])
    decode_tournament(data)
    return data


def decode_tournament(data: bytes) -> TournamentMessage:
    """The message in ``data``; raises :class:`MessageError` if malformed."""
    values = unpack_canonical(data, "tournament message")
    if type(values) is not list or not values or type(values[0]) is not str or values[0] not in TOURNAMENT_TYPES:
        raise malformed("not a known tournament message")
    return TOURNAMENT_TYPES[values[0]].from_wire(values[1:])  # type: ignore[return-value]
