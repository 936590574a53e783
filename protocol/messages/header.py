"""The transcript header: the first record of a ``.sasaki`` transcript (protocol/transcript.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from p2p_sasaki.protocol.crypto import PUBLIC_KEY_BYTES
from p2p_sasaki.protocol.messages.names import Name, default_name
from p2p_sasaki.protocol.messages.wire import (
    HASH_BYTES,
    MAX_SEATS,
    TABLE_ID_BYTES,
    VERSION,
    Array,
    Bin,
    Bool,
    Bytes,
    F,
    Int,
    Record,
    Str,
    UInt,
    WireStruct,
    check_version,
    malformed,
    pack,
    unpack_canonical,
)

MAX_GAME_NAME = 32
MAX_GAME_OPTIONS = 1024
MAX_DEALER_BYTES = 1 << 16


# The fair windows' table options (docs/protocol.md, "Window pacing"), in milliseconds:
# the delay of each of the game's pacing kinds, as the game lists them (protocol/game.py,
# ``Game.pace_kinds``); the person's answer deadline; the stall deadline.
MAX_PACE_KINDS = 16
MAX_PACE_KIND_BYTES = 16
MAX_WINDOW_MS = 60_000
MAX_ANSWER_MS = 600_000
MAX_STALL_MS = 3_600_000
MAX_CARRIED = 2**31 - 1   # a carried match total: a signed integer of at most 31 bits


@dataclass(frozen=True)
class PaceDelay:
    """One entry of the header's ``pace``: a pacing kind of the game and its delay (ms)."""

    FIELDS: ClassVar[tuple[F, ...]] = (F("kind", Str(MAX_PACE_KIND_BYTES), "pace kind"),
                                        F("ms", UInt(MAX_WINDOW_MS), "window delay"))
    kind: str
    ms: int


PACE_DELAY = Record(PaceDelay, PaceDelay.FIELDS, "pace entry")


@dataclass(frozen=True)
class OpenBot:
    """One entry of the header's ``bots``: the roster index of a bot that sits with its hand
    open to all (docs/protocol.md, "Replace seat") and the roster index of the member that
    runs it (named when the bot's move is not the open bot's rule)."""

    FIELDS: ClassVar[tuple[F, ...]] = (F("bot", UInt(MAX_SEATS - 1), "open bot"),
                                        F("runner", UInt(MAX_SEATS - 1), "bot runner"))
    bot: int
    runner: int


OPEN_BOT = Record(OpenBot, OpenBot.FIELDS, "open bot")


@dataclass(frozen=True)
class TranscriptHeader(WireStruct):
    """The first record of a ``.sasaki`` transcript (protocol/transcript.py): everything
    an auditor needs besides the envelopes. Encoded as a msgpack array, strictly:
    ``[version, table, roster keys, hands, game, game options, proofs, dealer, pace,
    answer ms, stall ms, roster names]``, then the optional trailing ``follows, carried,
    seats, bots`` of a follow-on table that replaced a seat (left out while at their defaults).
    ``roster_names``: each member's chosen name (:func:`name_problem`), in ``roster_keys``
    order, signed at GENESIS with the rest. ``game``
    names the rules (protocol/game.py), ``game_options`` are that game's own bytes;
    ``dealer`` is empty for the mental-poker deck, else a test dealer's seed
    (protocol/dealing.py). There is no proof parameter: the shuffle argument's are fixed
    (version 2 dropped version 1's ``shuffle rounds`` field). ``pace``: the game's pacing
    kinds, each with its delay, in the game's order (version 3; version 2 had exactly seven
    delays, Sasaki's, without their names)."""

    WHAT: ClassVar[str] = "header"
    FIELDS = (F("version", UInt()), F("table", Bin(TABLE_ID_BYTES), "table id"),
              F("roster_keys", Array(Bin(PUBLIC_KEY_BYTES), MAX_SEATS, 2), "public key"),
              F("hands", UInt(1 << 16)), F("game", Str(MAX_GAME_NAME), "game"),
              F("game_options", Bytes(MAX_GAME_OPTIONS), "game options"),
              F("proofs", Bool(), "proofs option"),
              F("dealer", Bytes(MAX_DEALER_BYTES), "dealer"),
              F("pace", Array(PACE_DELAY, MAX_PACE_KINDS), "pace entry"),
              F("answer_ms", UInt(MAX_ANSWER_MS), "answer deadline"),
              F("stall_ms", UInt(MAX_STALL_MS), "stall deadline"),
              F("roster_names", Array(Name(), MAX_SEATS, 2), "roster name"),
              # a follow-on table with a replaced seat (docs/protocol.md, "Replace seat"): optional
              F("follows", Bytes(HASH_BYTES), "follow-on link", optional=True),
              F("carried", Array(Int(MAX_CARRIED), MAX_SEATS), "carried total", optional=True),
              F("seats", Array(UInt(MAX_SEATS - 1), MAX_SEATS), "fixed seat", optional=True),
              F("bots", Array(OPEN_BOT, MAX_SEATS), "open bot", optional=True))
    table: bytes
    roster_keys: tuple[bytes, ...]
    hands: int
    game: str
    game_options: bytes
    proofs: bool
    dealer: bytes = b""
    pace: tuple[PaceDelay, ...] = ()
    answer_ms: int = 30_000
    stall_ms: int = 120_000
    roster_names: tuple[str, ...] = ()
    follows: bytes = b""
    """The follow-on link this table continues (empty: none); with ``carried`` and ``seats``."""
    carried: tuple[int, ...] = ()
    """Each seat's match total carried into this table (empty: zeros)."""
    seats: tuple[int, ...] = ()
    """The roster index at each seat, fixed (empty: the seating draw decides)."""
    bots: tuple[OpenBot, ...] = ()
    """The open bots (a bot in an empty seat plays with its hand open to all) and their runners."""
    version: int = VERSION

    def __post_init__(self) -> None:
        if not self.roster_names:  # no names given: each member is called by its key
            object.__setattr__(self, "roster_names", tuple(default_name(k) for k in self.roster_keys))

    def encode(self) -> bytes:
        data = pack(self.to_wire())
        TranscriptHeader.decode(data)  # never emit what we would refuse
        return data

    @classmethod
    def decode(cls, data: bytes) -> TranscriptHeader:
        """The header in ``data``; :class:`VersionMismatchError` for another version's."""
        obj = unpack_canonical(data, "transcript header")
        if type(obj) is list and obj:
            check_version(obj[0], "this transcript")
        return cls.from_wire(obj)

    def check(self) -> None:
        if not self.game:
            raise malformed("the header's game is a name of 1..32 characters")
        kinds = [entry.kind for entry in self.pace]
        if not all(kinds) or len(set(kinds)) != len(kinds):
            raise malformed("the header's pace names each pacing kind once, each by 1..16 bytes")
        if self.answer_ms < max((entry.ms for entry in self.pace), default=0):
            raise malformed("the header's answer deadline must be at least every window delay")
        if self.stall_ms < self.answer_ms:
            raise malformed("the header's stall deadline must be at least the answer deadline")
        if len(self.roster_names) != len(self.roster_keys):
            raise malformed("the header names each roster member once")
        if len(self.follows) not in (0, HASH_BYTES):
            raise malformed(f"the header's follow-on link must be empty or {HASH_BYTES} bytes")
        if self.carried and len(self.carried) != len(self.roster_keys):
            raise malformed("the header carries one total per seat, or none")
        if self.seats and sorted(self.seats) != list(range(len(self.roster_keys))):
            raise malformed("the header's fixed seats name each roster member once, or are empty")
        n, bots = len(self.roster_keys), [entry.bot for entry in self.bots]
        if (len(set(bots)) != len(bots) or any(entry.bot >= n or entry.runner >= n or entry.runner in bots
                                               for entry in self.bots)):
            raise malformed("the header's open bots name distinct members, each run by a member that is not a bot")
