"""A match over one mesh, and the matches after it (:func:`run_match`).

The first match of a roster (or a saved one, resumed), then, while every member wants one,
a next match with the same members over the same connections at a fresh table
(protocol/followon.py, protocol/net/followon.py); or, after a match abandoned for one seat,
the match goes on at a follow-on table with a bot in that seat (protocol/net/botseat.py).

The caller (the command line: cli/matches.py) gives a :class:`MatchOptions` (its parsed
options) and a :class:`MatchHost`: the person's views, the choices only a person or the
command line can make (a next match, a bot seat, the bot itself) and the report between
matches. Nothing here reaches into a player for its presenter.
"""

from __future__ import annotations

import dataclasses
import datetime
import logging
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import trio

from p2p_sasaki.protocol.config import config_of, header_of
from p2p_sasaki.protocol.crypto import Entropy, system_entropy
from p2p_sasaki.protocol.followon import FollowOn
from p2p_sasaki.protocol.messages import TranscriptHeader
from p2p_sasaki.protocol.net.botseat import ReplaceSeat, play_replaced_seat
from p2p_sasaki.protocol.net.discovery import ALL_INTERFACES, Interfaces, keep_member_records
from p2p_sasaki.protocol.net.followon import agree_follow_on
from p2p_sasaki.protocol.net.identity import Identity, TableRoster
from p2p_sasaki.protocol.net.mesh import Mesh
from p2p_sasaki.protocol.net.persist import SavedTable, TableStore, tables_dir
from p2p_sasaki.protocol.net.table import DriverOptions, PeersUnreachable, Player, TableResult, run_table
from p2p_sasaki.protocol.net.transport import Transport
from p2p_sasaki.protocol.net.workers import ProofPool
from p2p_sasaki.protocol.restore import RestoreError, StaleSavedTable

log = logging.getLogger(__name__)

__all__ = ["MatchError", "MatchHost", "MatchOptions", "bot_transcript_path", "decode_config", "encode_config",
           "mesh_roster", "next_match", "play_match", "run_match", "session_entropy", "transcript_path"]


class MatchError(Exception):
    """A match could not be played, in one sentence for the person (the table may stay
    resumable: the sentence says so)."""


@dataclass(frozen=True)
class MatchOptions:
    """How this peer plays its matches (the command line's options, parsed)."""

    data_dir: Path
    """The data directory: the saved tables (protocol/net/persist.py) and, by default, the transcripts."""
    transcript: Path | None = None
    """The first match's transcript (match 2 of ``X.sasaki`` is ``X-2.sasaki``); None: one
    named by the time and the table id under ``data_dir/transcripts``."""
    next_match: str = "no"
    """A next match: ``"yes"``, ``"no"`` or ``"ask"`` (:meth:`MatchHost.decide_next`)."""
    heartbeat: float = 5.0
    connect_timeout: float = 60.0
    proof_workers: int = 0
    """Worker processes for the proofs (protocol/net/workers.py); 0: none."""
    member_records: bool = False
    """Advertise and follow the members' mDNS records (protocol/net/discovery.py) on ``interfaces``."""
    interfaces: Interfaces = ALL_INTERFACES
    deal_seed: int | None = None
    """Tests only: every nonce and all the sessions' randomness follow from this seed."""


class MatchHost(Protocol):
    """What the caller of :func:`run_match` does: present, decide, report.

    ``on_event``: given every table event (:func:`run_table`'s ``on_event``), or None."""

    on_event: Callable[[Any, Any], None] | None

    async def run_views(self) -> None:
        """Run the person's views while a table plays (cancelled when it ends)."""

    def say(self, text: str) -> None:
        """A line for the person's terminal view."""

    def announce(self, text: str) -> None:
        """A follow-on's ending sentence, on every view."""

    def member_label(self, key: bytes) -> str:
        """How the views name the member with ``key``."""

    def match_hands(self, hands: int) -> None:
        """The match about to be played has ``hands`` hands."""

    def match_over(self, result: TableResult, going_on: bool) -> None:
        """A match ended and another follows (``going_on``: at a table with a bot in the empty seat)."""

    def next_match_starts(self, match_no: int) -> None:
        """Match ``match_no`` starts: the same members at a fresh table."""

    def seat_replaced(self, carried: Sequence[int]) -> None:
        """The match goes on with a bot in the empty seat, from the ``carried`` totals."""

    async def decide_next(self, seconds: float) -> bool:
        """Whether the person wants a next match (asked only with ``next_match="ask"``)."""

    async def replace_seat(self, identity: Identity, roster: TableRoster, mesh: Transport,
                           result: TableResult) -> ReplaceSeat | None:
        """The ``replace-seat`` agreement after an abandoned ``result``, or None."""

    def bot_player(self, bot: Identity) -> Player:
        """The player of the bot in the empty seat, when this peer runs it."""

    async def finished(self, result: TableResult) -> None:
        """The match is over (its transcript written): tell the person."""


def encode_config(roster: TableRoster, config: Any) -> bytes:
    """The creator's table options frame: the table's transcript header, its own bytes."""
    return header_of(roster.table_id, roster.keys, config, roster.names).encode()


def decode_config(roster: TableRoster, data: bytes) -> Any:
    """The options in the creator's frame; MessageError if it is not a header (an
    envelope), VersionMismatchError for another release's, ValueError for another table's."""
    header = TranscriptHeader.decode(data)
    if header.table != roster.table_id:
        raise ValueError("the table options name another table")
    if header.roster_keys != tuple(roster.keys) or header.roster_names != roster.names:
        raise ValueError("the table options name other members than this table's roster")
    if header.follows or header.carried or header.seats or header.bots:   # only a replaced seat's table has them
        raise ValueError("the table options of a new table carry no carried totals, fixed seats, open bots or "
                         "follow-on link")
    return config_of(header)


async def run_match(identity: Identity, roster: TableRoster, listeners: Any, config: Any, player: Player,
                    host: MatchHost, options: MatchOptions, saved: SavedTable | None = None) -> TableResult:
    """Play the match of ``roster`` (with ``saved``, resume that saved table); then, while
    every member wants one, a next match with the same members over the same connections,
    each at a fresh table with its own transcript. Returns the last match's result."""
    heartbeat = options.heartbeat
    mesh = Mesh(identity, roster, dial_all=saved is not None, heartbeat=heartbeat, dead_after=max(15.0, 3 * heartbeat))
    async with trio.open_nursery() as links:
        port = await links.start(mesh.run, listeners)
        if options.member_records:
            links.start_soon(_keep_member_records, mesh, port, options.interfaces)
        try:
            result = await play_match(identity, roster, mesh, config, player, host, options, saved)
            match_no = 1
            if result.abandoned and result.final_hash is not None:   # a bot in the empty seat?
                replaced = await host.replace_seat(identity, roster, mesh, result)
                if replaced is not None:
                    assert replaced.roster is not None
                    mesh.roster = mesh_roster(roster, replaced)
                    host.match_over(result, going_on=True)   # the abandoned table's totals and transcript
                    host.seat_replaced(replaced.config.carried)
                    return await play_match(identity, replaced.roster, mesh, replaced.config, player, host, options,
                                            None, match_no=2, replaced=replaced)
            # A next match is offered after a match played out by all four (not one where a
            # hand was abandoned: a seat stopped answering or left).
            while result.final_hash is not None and not result.abandoned:
                agreed = await next_match(identity, roster, mesh, result, player, host, options, match_no)
                if agreed is None:
                    break
                roster, early = agreed
                mesh.roster = roster     # new connections (a reconnect, a resumed peer) say the new table id
                host.match_over(result, going_on=False)   # this match's totals and transcript, before the next
                match_no += 1
                host.next_match_starts(match_no)
                result = await play_match(identity, roster, mesh, result.config, player, host, options, None,
                                          match_no=match_no, early=early)
        finally:
            mesh.close()
            links.cancel_scope.cancel()
    return result


def mesh_roster(old: TableRoster, agreed: ReplaceSeat) -> TableRoster:
    """What the mesh says for new connections after a replaced seat: the new table's id, the
    old members (their links stay; the bot has none of its own)."""
    assert agreed.roster is not None
    return dataclasses.replace(old, table_id=agreed.roster.table_id)


async def _keep_member_records(mesh: Any, port: int, interfaces: Interfaces) -> None:
    """Advertise this peer's member record and follow the others' (a peer that comes back
    on a new address is found again). Only hints: if mDNS fails, the table plays on."""
    try:
        await keep_member_records(mesh, port, interfaces=interfaces)
    except Exception as exc:   # zeroconf's errors are many; a missing hint is no reason to stop
        log.warning("mDNS member records are off: %s", exc)


async def next_match(identity: Identity, roster: TableRoster, mesh: Transport, result: TableResult, player: Player,
                     host: MatchHost, options: MatchOptions, match_no: int
                     ) -> tuple[TableRoster, list[tuple[bytes, bytes]]] | None:
    """The next-match agreement after a finished match: the new roster and the frames of the
    new table that came meanwhile, or None (everyone ends; one sentence says why)."""
    assert result.final_hash is not None
    pace = getattr(result.config, "pace", None)
    seconds = max(5.0, pace.answer_ms / 1000) if pace is not None else 30.0
    policy = options.next_match

    async def decide() -> bool:
        if policy == "ask":
            return await host.decide_next(seconds)
        return policy == "yes"

    entropy: Entropy = system_entropy
    if options.deal_seed is not None:   # tests: the next table's nonce repeats too
        entropy = random.Random(f"{options.deal_seed}:{identity.public_key.hex()}:next{match_no}").randbytes
    agreement = FollowOn(roster, result.final_hash, identity.public_key)
    outcome = await agree_follow_on(mesh, identity, agreement, decide, seconds, frames=result.follow_on,
                                    entropy=entropy)
    if outcome.roster is not None:
        return outcome.roster, outcome.early

    def who(key: bytes) -> str:
        if key == identity.public_key:
            return "you"
        return host.member_label(key)

    if policy == "no":
        # nobody was asked here: this peer does not play another match (a bot, or --next-match no)
        text = "No next match: this peer plays one match (a bot, or --next-match no)."
    elif outcome.declined is not None:
        text = "No next match: you declined." if outcome.declined == identity.public_key and not outcome.timed_out \
            else ("No next match: your time to answer was up." if outcome.declined == identity.public_key
                  else f"No next match: {who(outcome.declined)} declined.")
    else:
        names = ", ".join(who(key) for key in outcome.missing)
        text = f"No next match: {names} did not answer in time."
    host.announce(text)
    return None


def transcript_path(options: MatchOptions, roster: TableRoster, match_no: int = 1) -> Path:
    """Where a match's transcript goes: ``options.transcript`` (match 2, 3, ... of
    ``X.sasaki``: ``X-2.sasaki``, ...), else a new file named by the time and the table id."""
    if options.transcript:
        path = Path(options.transcript)
        return path.with_name(f"{path.stem}-{match_no}{path.suffix}") if match_no > 1 else path
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    return options.data_dir / "transcripts" / f"{stamp}-{roster.table_id.hex()[:8]}.sasaki"


def bot_transcript_path(mine: Path) -> Path:
    """The bot's transcript, beside its runner's: ``X.sasaki`` gives ``X-bot.sasaki``."""
    return mine.with_name(f"{mine.stem}-bot{mine.suffix}")


def session_entropy(options: MatchOptions, identity: Identity, saved: SavedTable | None,
                    match_no: int = 1) -> Entropy:
    """The session's fresh randomness: the system's, or with the tests' ``deal_seed`` a
    function of the seed and the identity (and, once resumed, of how much was drawn; in a
    next match, of its number)."""
    if options.deal_seed is None:
        return system_entropy
    resumed = f":{len(saved.entropy)}" if saved is not None else ""
    match = f":m{match_no}" if match_no > 1 else ""
    return random.Random(f"{options.deal_seed}:{identity.public_key.hex()}{resumed}{match}").randbytes


async def play_match(identity: Identity, roster: TableRoster, mesh: Transport, config: Any, player: Player,
                     host: MatchHost, options: MatchOptions, saved: SavedTable | None = None, *, match_no: int = 1,
                     early: list[tuple[bytes, bytes]] | None = None, replaced: ReplaceSeat | None = None
                     ) -> TableResult:
    """Play one match of ``roster`` over the running ``mesh`` (``replaced``: the agreed
    ``replace-seat`` table, protocol/net/botseat.py; its runner also runs the bot).

    Raises :class:`MatchError` when a resumed table cannot go on (the others are not
    reachable, or the saved table cannot be restored)."""
    if saved is not None:
        path = saved.transcript_path
        store = TableStore(saved.directory)
        host.say(f"Resuming the table; reconnecting to the other three players; transcript: {path}")
    else:
        path = transcript_path(options, roster, match_no)
        store = TableStore.create(tables_dir(options.data_dir) / roster.table_id.hex(), roster, path)
        host.say(f"The table is full. Connecting to the other three players; transcript: {path}"
                 if match_no == 1 else f"The match goes on at a fresh table with a bot in the empty seat; "
                 f"transcript: {path}" if replaced is not None else f"Next match at a fresh table; transcript: {path}")
    hands: int | None
    if config is None and saved is not None and saved.header is not None:
        hands = config_of(TranscriptHeader.decode(saved.header)).hands
    else:
        hands = config.hands if config is not None else None
    if hands is not None:
        host.match_hands(hands)
    workers = options.proof_workers
    pool = await trio.to_thread.run_sync(ProofPool, workers) if workers > 0 else None
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(host.run_views)
            driver = DriverOptions(on_event=host.on_event, connect_timeout=options.connect_timeout, proof_pool=pool,
                                   store=store, entropy=session_entropy(options, identity, saved, match_no))
            if replaced is not None:   # every member computed the options: no options frame
                bot = replaced.bot
                bot_path = bot_transcript_path(path) if bot is not None else None
                if bot is not None:
                    host.say(f"You run the bot in the empty seat; its transcript: {bot_path}")
                result, _ = await play_replaced_seat(
                    identity, mesh, replaced, player=player, transcript_path=path,
                    bot_player=host.bot_player(bot) if bot is not None else None, bot_transcript_path=bot_path,
                    bot_options={"connect_timeout": options.connect_timeout,
                                 "entropy": session_entropy(options, bot, None, match_no) if bot is not None
                                 else system_entropy},
                    on_event=driver.on_event, connect_timeout=driver.connect_timeout, proof_pool=pool, store=store,
                    entropy=driver.entropy)
            else:
                result = await run_table(identity, roster, config,
                                         dataclasses.replace(driver, transport=mesh, transport_running=True,
                                                             early_frames=early or (),
                                                             config_codec=(encode_config, decode_config),
                                                             resume=saved is not None),
                                         player=player, transcript_path=path)
            nursery.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        unreachable, _ = group.split(PeersUnreachable)
        if saved is not None and unreachable is not None:
            leaf: BaseException = unreachable
            while isinstance(leaf, BaseExceptionGroup):
                leaf = leaf.exceptions[0]
            raise MatchError(f"{leaf}; the table stays resumable: run 'sasaki resume' again when the others "
                             "are back (or give a moved player's address with --address N=HOST:PORT)") from None
        restore, _ = group.split(RestoreError)
        if restore is None:
            raise
        first = restore.exceptions[0]
        while isinstance(first, BaseExceptionGroup):
            first = first.exceptions[0]
        if isinstance(first, StaleSavedTable):   # an older copy: the one sentence, nothing sent
            raise MatchError(str(first)) from None
        raise MatchError(f"the saved table in {store.directory} cannot be resumed: {first}") from None
    finally:
        if pool is not None:
            pool.close()
    await host.finished(result)
    return result
