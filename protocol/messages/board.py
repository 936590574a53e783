"""The board's messages (protocol/board.py; docs/protocol.md, "Board (duplicate tournaments)").

A board is shuffled by every player of a tournament round (up to :data:`MAX_PLAYERS`), so
its messages have a body of their own, with ``player`` in place of the table's ``sender``
(0..15) and no chain hash (a board message's place is its slot; equivocation is two bodies
of one player and slot):

  envelope = msgpack array ``[body_bytes: bin, signature: bin(64)]`` (as the table's)
  body     = msgpack map, keys in this order: ``version`` (int, 3), ``board`` (bin 32: the
             board id), ``slot`` (int), ``player`` (int 0..255), ``type`` (str),
             ``payload`` (array, per type)

The payload types are ``board/...``; the deck's shuffle and proof fields are reused as they
are (one definition of a hop and of an argument), the strip's round counts to 255.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from p2p_sasaki.protocol.crypto import (
    DLEQ_BYTES,
    PUBLIC_KEY_BYTES,
    SIGNATURE_BYTES,
    IdentityKey,
    ShuffleArgument,
    verify_signature,
)
from p2p_sasaki.protocol.messages.envelope import pack_body, unpack_body
from p2p_sasaki.protocol.messages.payloads import DeckCommit, DeckNonce, PayloadStruct, ShuffleHop, ShuffleProof
from p2p_sasaki.protocol.messages.wire import (
    ELEMENT_BYTES,
    HASH_BYTES,
    MAX_CARDS,
    SCALAR_BYTES,
    TABLE_ID_BYTES,
    VERSION,
    Array,
    Bin,
    Bool,
    F,
    Int,
    UInt,
    WireStruct,
    check_version,
    malformed,
    pack,
    unpack_canonical,
)

MAX_PLAYERS = 256
MAX_TABLES = MAX_PLAYERS // 4
MAX_RESULTS = 8          # a table's line results (Sasku: two lines)
MAX_RESULT = 10_000


@dataclass(frozen=True)
class BoardCommit(PayloadStruct):
    """A player's commitment to its board-id nonce."""

    TYPE: ClassVar[str] = "board/commit"
    FIELDS = DeckCommit.FIELDS
    commitment: bytes


@dataclass(frozen=True)
class BoardNonce(PayloadStruct):
    """The nonce itself, once every commitment is in."""

    TYPE: ClassVar[str] = "board/nonce"
    FIELDS = DeckNonce.FIELDS
    nonce: bytes


@dataclass(frozen=True)
class BoardHop(PayloadStruct):
    """One shuffle hop of the board: the re-keyed, permuted deck and the re-keyed base."""

    TYPE: ClassVar[str] = "board/shuffle"
    FIELDS = ShuffleHop.FIELDS
    deck: tuple[bytes, ...]
    base: bytes


@dataclass(frozen=True)
class BoardProof(PayloadStruct):
    """The shuffle argument of one board hop."""

    TYPE: ClassVar[str] = "board/shuffle-proof"
    FIELDS = ShuffleProof.FIELDS
    argument: ShuffleArgument

    check = ShuffleProof.check


@dataclass(frozen=True)
class BoardStrip(PayloadStruct):
    """A player's strip of one owner's chain in round ``round`` (1..P-1), with one batched
    DLEQ proof for the values (``proofs`` holds exactly one)."""

    TYPE: ClassVar[str] = "board/strip"
    FIELDS = (F("round", UInt(MAX_PLAYERS - 1)),
              F("values", Array(Bin(ELEMENT_BYTES), MAX_CARDS, 1), "stripped value"),
              F("proofs", Array(Bin(DLEQ_BYTES), 1, 1), "strip proof"))
    round: int
    values: tuple[bytes, ...]
    proofs: tuple[bytes, ...]


@dataclass(frozen=True)
class BoardDone(PayloadStruct):
    """A table's player signs that the table finished the board's deal: the table's index in
    the seating, its transcript's final chain hash, its line results, and the players named
    as having left it (their table stopped; the others sign for it)."""

    TYPE: ClassVar[str] = "board/done"
    FIELDS = (F("table", UInt(MAX_TABLES - 1), "table index"), F("chain", Bin(HASH_BYTES), "chain hash"),
              F("results", Array(Int(MAX_RESULT), MAX_RESULTS), "line result"),
              F("leavers", Array(UInt(MAX_PLAYERS - 1), 3), "leaver", optional=True))
    table: int
    chain: bytes
    results: tuple[int, ...]
    leavers: tuple[int, ...] = ()

    def check(self) -> None:
        if list(self.leavers) != sorted(set(self.leavers)):
            raise malformed("a done's leavers are distinct and in increasing order")


@dataclass(frozen=True)
class BoardKey(PayloadStruct):
    """A player's board key, revealed once every table is done: ``key`` its shuffle scalar,
    ``done`` the hash of every table's agreed done (:func:`~p2p_sasaki.protocol.board.outcomes_hash`),
    which nobody can know before the last table finishes."""

    TYPE: ClassVar[str] = "board/key"
    FIELDS = (F("key", Bin(SCALAR_BYTES)), F("done", Bin(HASH_BYTES), "outcomes hash"))
    key: bytes
    done: bytes


BoardPayload = BoardCommit | BoardNonce | BoardHop | BoardProof | BoardStrip | BoardDone | BoardKey
BOARD_PAYLOAD_TYPES: dict[str, type[PayloadStruct]] = {
    cls.TYPE: cls for cls in (BoardCommit, BoardNonce, BoardHop, BoardProof, BoardStrip, BoardDone, BoardKey)
}

BOARD_BODY_KEYS = ("version", "board", "slot", "player", "type", "payload")
BOARD_BODY_FIELDS = (F("board", Bin(TABLE_ID_BYTES), "board id"), F("slot", UInt()),
                     F("player", UInt(MAX_PLAYERS - 1)))


@dataclass(frozen=True)
class BoardBody:
    """What a player signs for the board."""

    board: bytes
    slot: int
    player: int
    payload: BoardPayload
    version: int = field(default=VERSION)

    @property
    def type(self) -> str:
        return self.payload.TYPE


@dataclass(frozen=True)
class BoardMessage:
    """A received board envelope: the decoded body and its exact signed bytes."""

    body: BoardBody
    body_bytes: bytes
    signature: bytes
    raw: bytes


def encode_board_body(body: BoardBody) -> bytes:
    data = pack_body(body, BOARD_BODY_FIELDS)
    decode_board_body(data)  # never emit what we would refuse
    return data


def decode_board_body(data: bytes) -> BoardBody:
    values, payload = unpack_body(data, BOARD_BODY_KEYS, BOARD_BODY_FIELDS, BOARD_PAYLOAD_TYPES, "board body")
    return BoardBody(**values, payload=payload)


def sign_board(body: BoardBody, identity: IdentityKey) -> bytes:
    """Encode ``body``, sign its exact bytes and wrap both in an envelope."""
    body_bytes = encode_board_body(body)
    return pack([body_bytes, identity.sign(body_bytes)])


def decode_board(data: bytes) -> BoardMessage:
    """Parse a board envelope strictly (the signature is checked by :func:`verify_board`)."""
    obj = unpack_canonical(data, "board envelope")
    if type(obj) is not list or len(obj) != 2 or type(obj[0]) is not bytes:
        raise malformed("a board envelope is an array of body bytes and a signature")
    body_bytes, signature = obj
    body = decode_board_body(body_bytes)
    return BoardMessage(body, body_bytes, Bin(SIGNATURE_BYTES).unpack(signature, "signature"), data)


def verify_board(message: BoardMessage, public_key: bytes) -> bool:
    return verify_signature(public_key, message.body_bytes, message.signature)


# ---------------------------------------------------------------------------------------
# The board file's header
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BoardHeader(WireStruct):
    """The first record of a ``.board`` file (protocol/board_audit.py): what the board id
    binds, and the board's settings. ``[version, tournament, round, tables, byes, player
    keys, cards, proofs]``; ``tables[t][s]`` is the player in board seat s at table t."""

    WHAT: ClassVar[str] = "board header"
    FIELDS = (F("version", UInt()), F("tournament", Bin(TABLE_ID_BYTES), "tournament id"),
              F("round", UInt(), "round number"),
              F("tables", Array(Array(UInt(MAX_PLAYERS - 1), 4, 4), MAX_TABLES, 1), "table"),
              F("byes", Array(UInt(MAX_PLAYERS - 1), MAX_PLAYERS), "bye"),
              F("player_keys", Array(Bin(PUBLIC_KEY_BYTES), MAX_PLAYERS, 4), "player key"),
              F("cards", UInt(MAX_CARDS), "card count"), F("proofs", Bool(), "proofs option"))
    tournament: bytes
    round: int
    tables: tuple[tuple[int, ...], ...]
    byes: tuple[int, ...]
    player_keys: tuple[bytes, ...]
    cards: int = 36
    proofs: bool = True
    version: int = VERSION

    def encode(self) -> bytes:
        data = pack(self.to_wire())
        BoardHeader.decode(data)  # never emit what we would refuse
        return data

    @classmethod
    def decode(cls, data: bytes) -> BoardHeader:
        obj = unpack_canonical(data, "board header")
        if type(obj) is list and obj:
            check_version(obj[0], "this board file")
        return cls.from_wire(obj)

    def check(self) -> None:
        seated = [p for table in self.tables for p in table] + list(self.byes)
        if sorted(seated) != list(range(len(self.player_keys))):
            raise malformed("a board header seats each player once, or gives it a bye")
        if len(set(self.player_keys)) != len(self.player_keys):
            raise malformed("a board header's player keys are distinct")
