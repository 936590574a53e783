"""A duplicate Sasku tournament over the LAN: its players' mesh, its rounds, its tables.

The command line (cli/tournament.py) only parses and presents; everything here is the
network's side::

    roster = await host_tournament(identity, code, mesh_port, listeners, start=event)   # or join_table
    standings = await run_tournament(identity, roster, mesh, options, player=..., on_event=...)

**Joining** is the table's join (protocol/net/join.py: a one-time code, SPAKE2, the roster
sealed to each joiner) with an open number of seats: the host admits players until it
says start (at least four in, at most :data:`MAX_PLAYERS`), then sends every joiner the
join roster. The join is told the tournament's limit (``max_members``: the host's
``host_table``, each joiner's ``join_table``); a table's join keeps its own (16 members at
most, ``MAX_SEATS``).

**The mesh** is one full TCP mesh of all P players (protocol/net/mesh.py with the join
roster), split into channels (protocol/net/tournament_links.py): the tournament's
messages, the boards', and the table frames of the table a player sits at this round.

**The start** (docs/protocol.md, "Tournament"; protocol/tournament.py): every member sends
the host its draw commitment; the host sends the ``tournament-roster`` (the members in join
order: a member's index is its player number) and the table options (``tournament-options``:
the game's minimum bid, proofs, pacing; every table's header carries them, so a member given
other options than the others cannot sign a table's GENESIS with them); each member checks
that the roster holds the join's members (keys, nonces, names, in order), signs it, and once
every signature is in reveals its draw contribution. ``tournament.roster`` is then written
and the draw orders the first round.

**A round** (docs/protocol.md, "Tournament network"):

1. the seating, from the standings so far (p2p_sasaki/sasku/tournament.py, through the Sasku
   adapter: ``Standings.next_seating``: the top four at table 1, byes to the lowest with
   nobody a second bye before everyone had one);
2. the round's board (protocol/board.py) among the players still in, over the board
   channel (:class:`_RoundBoard`): every one of them shuffles and strips, a bye too; my
   proofs in a worker thread;
3. once it is dealt, every table's four players play its one deal over a :class:`TableLink`
   of the tournament mesh with the table driver (protocol/net/table.py ``run_table``; fixed
   seats: the seating's S0..S3; the board as dealer);
4. at the end of the play (``PlayOver``) each of them signs the board's ``done`` (the table's
   chain hash, the N-S result and the declaring line); a table a player left is signed by
   the three others naming it;
5. once every table is done the board's keys come out; each table's session is told
   (``deal_ready``, through ``DriverOptions.session_calls``), checks its deal and ends; the
   round goes into the standings (a table a player left gives it 0 and the three others 60
   and is left out of the comparisons; a bye is 50), and each table's transcript is sent to
   every player by its first seat still in, so every member's folder
   (protocol/tournament_files.py) holds every table and every board, and audits.

A player who quits (its player raises ``PlayerLeft``) sends its table's leave notice and
leaves the tournament (:class:`TournamentLeft`); the three others at its table end the
match (a bot's stall choice when a seat left), sign ``done`` naming it, and the tournament
goes on without it. A link that comes back is sent again what was sent on it (the
tournament and board channels; the table driver re-sends its own).
"""

from __future__ import annotations

import dataclasses
import logging
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from p2p_sasaki.protocol import crypto
from p2p_sasaki.protocol.board import BoardDealt, BoardRevealed, BoardSession, board_id
from p2p_sasaki.protocol.board import Seating as BoardSeating
from p2p_sasaki.protocol.board import Violation as BoardViolation
from p2p_sasaki.protocol.board_audit import board_file, board_header
from p2p_sasaki.protocol.config import TableConfig
from p2p_sasaki.protocol.crypto import TAG_TOURNAMENT_TABLE, Entropy, system_entropy
from p2p_sasaki.protocol.deck import run_job
from p2p_sasaki.protocol.events import PlayOver
from p2p_sasaki.protocol.messages import MessageError, TableRoster, describe_key
from p2p_sasaki.protocol.messages.board import decode_board
from p2p_sasaki.protocol.messages.tournament import (
    DrawCommit,
    DrawReveal,
    RosterSignature,
    TournamentMember,
    TournamentRoster,
    decode_tournament,
    encode_tournament,
)
from p2p_sasaki.protocol.messages.wire import pack, unpack_canonical
from p2p_sasaki.protocol.net.asking import Player, player_left
from p2p_sasaki.protocol.net.discovery import TOURNAMENT_GAME
from p2p_sasaki.protocol.net.identity import Identity
from p2p_sasaki.protocol.net.join import TableCode, host_table
from p2p_sasaki.protocol.net.table import DriverOptions, SessionCalls, run_table
from p2p_sasaki.protocol.net.tournament_links import CHANNEL_BOARD, CHANNEL_TOURNAMENT, TableLink, TournamentLinks
from p2p_sasaki.protocol.net.transport import Transport
from p2p_sasaki.protocol.pace import NO_PACE, Pace
from p2p_sasaki.protocol.session import TableSession
from p2p_sasaki.protocol.tournament import RosterAgreement, TournamentError, draw_commitment, tournament_id_of
from p2p_sasaki.protocol.tournament_files import TournamentFolder

log = logging.getLogger(__name__)

__all__ = ["TOURNAMENT_GAME", "MIN_PLAYERS", "MAX_PLAYERS", "TournamentOptions", "TableOutcome", "RosterSigned",
           "RoundSeated", "RoundDealt", "TableFinished", "RoundScored", "TournamentLeft", "TournamentError",
           "host_tournament", "run_tournament", "table_id_of_round"]

MIN_PLAYERS = 4
MAX_PLAYERS = 64
"""The most players a tournament over the network admits (the host) and accepts in its join
roster (every joiner: ``join_table(..., max_members=MAX_PLAYERS)``). The messages allow 255
(``join-roster``: ``MAX_JOIN_MEMBERS``; ``tournament-roster``; a board's player byte); 64
keeps what every player holds within reach of a laptop: one TCP connection to each other
player (63; macOS starts a program with 256 open files) and a board whose checks grow as
the square of the players (docs/protocol.md, "Board": about 4 s of one core at 32 players)."""
OPTIONS = "tournament-options"
TRANSCRIPT = "tournament-transcript"
OVER = "tournament-over"


class TournamentLeft(Exception):
    """This player left the tournament (its player quit at a table)."""


@dataclass(frozen=True)
class TournamentOptions:
    """What the host chooses (``name``, ``rounds``; the table options ``min_bid``, ``proofs``,
    ``pace``, sent to every member) and how this peer runs."""

    rounds: int = 3
    name: str = ""
    min_bid: int = 0
    """0: the game's default."""
    proofs: bool = True
    pace: Pace = NO_PACE
    directory: Path | None = None
    """This member's tournament folder (protocol/tournament_files.py; None: nothing on disk)."""
    connect_timeout: float = 60.0
    step_in_thread: bool = True
    deal_seed: int | None = None
    """Tests only: every table's randomness and the draw contribution follow from this seed."""
    linger: float = 0.5
    invitation: bytes | None = None
    """The host's: the invitation id it gave the join (the tournament id is made from it)."""
    table_event: Callable[[Any, Any], None] | None = None
    """Given every event of my table (a person's views: the presenter's ``event``)."""
    table_views: Callable[[], Awaitable[None]] | None = None
    """Run while my table plays (a person's views: the presenter's ``run``)."""
    standings_file: Callable[[Any], bytes] | None = None
    """``standings.json``'s bytes from the standings (the command line's cli/standings.py),
    written after every round; None: not written."""


@dataclass(frozen=True)
class TableOutcome:
    """One table's deal as its players signed it: the N-S result (-6..6) and the declaring
    line (0 N-S, 1 E-W, None: nobody declared), or the seat that left (then no result)."""

    table: int
    final: bytes
    ns_result: int
    declaring: int | None
    leaver: int | None = None


# -- events for the presenter ----------------------------------------------------------------


@dataclass(frozen=True)
class RosterSigned:
    """Every member signed the roster and the draw is known; ``standings``: before round 1."""

    roster: TournamentRoster
    standings: Any


@dataclass(frozen=True)
class RoundSeated:
    round: int
    seating: Any
    """p2p_sasaki/sasku/tournament.py ``Seating``: tables (players by seat), byes."""
    my_table: int | None


@dataclass(frozen=True)
class RoundDealt:
    """The round's board is dealt: ``board`` my protocol/board.py session (its ``secrets()``:
    my nonce, board key and permutation), ``cards`` my seat's cards (empty for a bye)."""

    round: int
    board: Any
    cards: tuple[int, ...]


@dataclass(frozen=True)
class TableFinished:
    round: int
    outcome: TableOutcome


@dataclass(frozen=True)
class RoundScored:
    round: int
    seating: Any
    outcomes: tuple[TableOutcome, ...]
    standings: Any
    """p2p_sasaki/sasku/tournament.py ``Standings`` after this round."""


# -- joining --------------------------------------------------------------------------------


async def host_tournament(identity: Identity, code: TableCode, mesh_port: int, listeners: Sequence[trio.SocketListener],
                          *, start: trio.Event, invitation: bytes, name: str = "", mesh_host: str = "",
                          nonce: bytes | None = None, max_players: int = MAX_PLAYERS,
                          on_event: Callable[[Any], None] | None = None) -> TableRoster:
    """Admit players who know ``code`` until ``start`` is set with at least four in (or
    ``max_players`` joined, at most :data:`MAX_PLAYERS`); returns the join roster, sent to
    every joiner (joiners use :func:`~p2p_sasaki.protocol.net.join.join_table` as for a
    table, with ``max_members=MAX_PLAYERS``). ``invitation``: fresh random 32 bytes (give
    them to :class:`TournamentOptions` too)."""
    if not MIN_PLAYERS <= max_players <= MAX_PLAYERS:
        raise ValueError(f"a tournament has {MIN_PLAYERS}..{MAX_PLAYERS} players")
    return await host_table(identity, code, mesh_port, listeners, seats=max_players, start=start,
                            min_seats=MIN_PLAYERS, name=name, mesh_host=mesh_host, nonce=nonce, on_event=on_event,
                            table_id=invitation, max_members=MAX_PLAYERS)


def table_id_of_round(tournament_id: bytes, round_no: int, table: int, keys: Sequence[bytes]) -> bytes:
    """The id of a round's table (``table`` from 0): H32("tournament/table", tournament id,
    u32(round), u32(table), its players' keys by seat)."""
    return crypto.hash32(TAG_TOURNAMENT_TABLE, tournament_id, crypto.u32(round_no), crypto.u32(table), *keys)


# -- the tournament's network messages beside protocol/messages/tournament.py's ---------------------


def _options_message(options: TournamentOptions) -> list[Any]:
    pace = options.pace
    return [OPTIONS, options.min_bid, options.proofs, [[kind, ms] for kind, ms in pace.delays], pace.answer_ms,
            pace.stall_ms]


def _options_of(message: Any, mine: TournamentOptions, rounds: int) -> TournamentOptions:
    _, min_bid, proofs, delays, answer_ms, stall_ms = message
    pace = Pace(tuple((str(kind), int(ms)) for kind, ms in delays), int(answer_ms), int(stall_ms))
    return dataclasses.replace(mine, rounds=rounds, min_bid=int(min_bid), proofs=bool(proofs), pace=pace)


# -- one member's whole tournament -------------------------------------------------------------


class _Member:
    """One member's run: its links, what arrived on the tournament channel, its folder."""

    def __init__(self, identity: Identity, join_roster: TableRoster, links: TournamentLinks,
                 options: TournamentOptions, notify: Callable[[Any], None]) -> None:
        self.identity = identity
        self.join_roster = join_roster
        self.links = links
        self.options = options
        self.notify = notify
        self.keys = join_roster.keys
        self.me = self.keys.index(identity.public_key)
        self.folder = TournamentFolder(options.directory) if options.directory is not None else None
        self.roster: TournamentRoster | None = None
        self.tid = b""
        self.changed = trio.Event()
        self.commits: dict[int, bytes] = {}
        self.signatures: list[RosterSignature] = []
        self.reveals: list[DrawReveal] = []
        self.options_message: Any = None
        self.board_frames: list[tuple[bytes, bytes]] = []   # (board id, envelope) not yet taken by a board
        self.board: _RoundBoard | None = None
        self.transcripts: dict[tuple[int, int], bytes] = {}
        self.left: set[int] = set()
        self.over: set[int] = set()
        self.sent: list[tuple[bytes, tuple[bytes, ...]]] = []   # my tournament-channel frames, to whom

    # the tournament channel

    async def read(self) -> None:
        async for peer, data in self.links.tournament:
            if peer not in self.keys:
                continue
            sender = self.keys.index(peer)
            try:
                self._take(sender, data)
            except (ValueError, TypeError, IndexError, KeyError, MessageError) as exc:
                log.warning("dropped a tournament message from %s: %s", describe_key(peer), exc)
            self.changed.set()
            self.changed = trio.Event()

    def _take(self, sender: int, data: bytes) -> None:
        message = unpack_canonical(data, "tournament message")
        tag = message[0]
        if tag == OPTIONS:
            if sender == 0 and self.options_message is None:
                self.options_message = message
        elif tag == TRANSCRIPT:
            self.transcripts.setdefault((int(message[1]), int(message[2])), bytes(message[3]))
        elif tag == OVER:
            self.over.add(sender)
        else:
            match decode_tournament(data):
                case DrawCommit(key=key, draw_commit=commit) if key == self.keys[sender]:
                    self.commits.setdefault(sender, commit)
                case TournamentRoster() as roster if sender == 0 and self.roster is None:
                    self.roster = roster
                case RosterSignature() as signed:
                    self.signatures.append(signed)
                case DrawReveal() as revealed:
                    self.reveals.append(revealed)

    async def wait_for(self, ready: Callable[[], bool]) -> None:
        while not ready():
            await self.changed.wait()

    def active(self) -> list[bytes]:
        return [k for i, k in enumerate(self.keys) if i not in self.left and i != self.me]

    async def send(self, data: bytes, to: int | None = None) -> None:
        keys = self.active() if to is None else [self.keys[to]]
        self.sent.append((data, tuple(keys)))
        await self.links.broadcast(CHANNEL_TOURNAMENT, data, keys)

    async def resend_on_reconnect(self, key: bytes) -> None:
        """A link that broke may have lost the frames on it: when it is back, send that peer
        again everything I sent it on the tournament channel and on the round's board (every
        such message is taken once: a copy changes nothing)."""
        transport = self.links.transport
        while True:
            await transport.wait_disconnected(key)
            await transport.wait_connected([key])
            for data, keys in list(self.sent):
                if key in keys:
                    await self.links.send(CHANNEL_TOURNAMENT, key, data)
            board = self.board
            if board is not None:
                for data in list(board.sent):
                    await self.links.send(CHANNEL_BOARD, key, data)

    # the start (docs/protocol.md, "Tournament", Agreement)

    async def agree(self, entropy: Entropy) -> tuple[TournamentRoster, tuple[int, ...], TournamentOptions]:
        contribution = entropy(32)
        commit = draw_commitment(self.identity.public_key, contribution)
        self.commits[self.me] = commit
        if self.me != 0:
            await self.send(encode_tournament(DrawCommit(self.identity.public_key, commit)), to=0)
        else:
            if self.options.invitation is None:
                raise ValueError("the host's options hold the invitation it gave the join")
            await self.wait_for(lambda: len(self.commits) == len(self.keys))
            members = tuple(TournamentMember(m.key, m.host, m.port, m.nonce, m.name, self.commits[i])
                            for i, m in enumerate(self.join_roster.members))
            mine = TournamentRoster(tournament_id_of(self.options.invitation, members), self.options.invitation,
                                    self.options.name, self.options.rounds, members)
            self.roster, self.options_message = mine, _options_message(self.options)
            await self.send(encode_tournament(mine))
            await self.send(pack(self.options_message))
        await self.wait_for(lambda: self.roster is not None and self.options_message is not None)
        assert self.roster is not None
        roster: TournamentRoster = self.roster
        joined = self.join_roster.members
        if [(m.key, m.nonce, m.name) for m in roster.members] != [(m.key, m.nonce, m.name) for m in joined]:
            raise TournamentError("the host's tournament roster does not hold the players who joined (their keys, "
                                  "nonces and names in join order)", 0)
        agreement = RosterAgreement(roster, self.identity, contribution)
        self.tid = roster.tournament_id
        await self.send(encode_tournament(agreement.signature))
        agreement.add_signature(agreement.signature)
        taken = 0

        def take() -> bool:
            nonlocal taken
            for signature in self.signatures[taken:]:
                agreement.add_signature(signature)   # TournamentError names a bad signer
            taken = len(self.signatures)
            return agreement.signed

        await self.wait_for(take)
        reveal = agreement.reveal()
        await self.send(encode_tournament(reveal))
        agreement.add_reveal(reveal)
        revealed = 0

        def take_reveals() -> bool:
            nonlocal revealed
            for message in self.reveals[revealed:]:
                agreement.add_reveal(message)
            revealed = len(self.reveals)
            return agreement.complete

        await self.wait_for(take_reveals)
        if self.folder is not None:
            self._write(self.folder.roster, encode_tournament(agreement.file()))
        return roster, agreement.draw, _options_of(self.options_message, self.options, roster.rounds)

    def label(self, index: int) -> str:
        return self.join_roster.members[index].name or describe_key(self.keys[index])

    def _write(self, path: Any, data: bytes) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_bytes(data)
        tmp.replace(path)

    async def read_boards(self) -> None:
        """The board channel: each envelope to the round's board, or kept for a later one."""
        async for peer, data in self.links.board:
            if peer not in self.keys:
                continue
            try:
                board = decode_board(data).body.board
            except MessageError as exc:
                log.warning("dropped a board message from %s: %s", describe_key(peer), exc)
                continue
            current = self.board
            if current is not None and board == current.session.board_id:
                current.inbox.append(data)
                current.wake()
            else:
                self.board_frames.append((board, data))

    # a round

    async def play_round(self, round_no: int, seating: Any, options: TournamentOptions, player: Player,
                         entropy: Entropy) -> tuple[TableOutcome, ...]:
        mine = next((t for t, players in enumerate(seating.tables) if self.me in players), None)
        self.notify(RoundSeated(round_no, seating, mine))
        active = [p for p in range(len(self.keys)) if p not in self.left]
        board = _RoundBoard(self, round_no, seating, active, options, entropy)
        self.board = board
        kept, self.board_frames = self.board_frames, []
        for board_id_, data in kept:
            if board_id_ == board.session.board_id:
                board.inbox.append(data)
            else:
                self.board_frames.append((board_id_, data))
        quit_error: BaseException | None = None
        async with trio.open_nursery() as nursery:
            nursery.start_soon(board.run)
            await board.dealt.wait()
            if mine is not None:
                try:
                    await self._play_table(round_no, mine, seating.tables[mine], options, player, board)
                except BaseException as error:
                    if player_left(error) is None:
                        raise
                    quit_error = error
                    nursery.cancel_scope.cancel()
            if quit_error is None:
                await board.revealed.wait()
                nursery.cancel_scope.cancel()
        if quit_error is not None:
            raise TournamentLeft("you left the tournament") from quit_error
        outcomes = board.outcomes()
        for outcome in outcomes:
            self.notify(TableFinished(round_no, outcome))
            if outcome.leaver is not None:
                self.left.add(seating.tables[outcome.table][outcome.leaver])
        if mine is not None and self.folder is not None:
            path = Path(self.folder.table(round_no, mine + 1))
            first = next(p for s, p in enumerate(seating.tables[mine]) if s != outcomes[mine].leaver)
            if first == self.me and path.exists():   # the table's first seat still in sends its transcript
                await self.send(pack([TRANSCRIPT, round_no, mine, path.read_bytes()]))
        if self.folder is not None:
            self._write(self.folder.board(round_no),
                        board_file(board_header(self.tid, round_no, board.session), board.session))
            others = [t for t in range(len(seating.tables)) if t != mine]
            await self.wait_for(lambda: all((round_no, t) in self.transcripts for t in others))
            for table in others:
                self._write(self.folder.table(round_no, table + 1), self.transcripts[(round_no, table)])
        self.board = None
        return outcomes

    async def _play_table(self, round_no: int, table: int, players: Sequence[int], options: TournamentOptions,
                          player: Player, board: _RoundBoard) -> None:
        from p2p_sasaki.protocol.sasku_game import tournament_table_game

        keys = [self.keys[p] for p in players]
        members = tuple(self.join_roster.members[p] for p in players)
        table_roster = TableRoster(table_id_of_round(self.tid, round_no, table, keys), members)
        session_board = board.session
        config = TableConfig(tournament_table_game(options.min_bid), hands=1, proofs=options.proofs,
                             dealer=session_board.dealer_name, pace=options.pace, seats=(0, 1, 2, 3))
        link: TableLink = self.links.table(keys)
        entropy: Entropy = system_entropy
        if options.deal_seed is not None:
            entropy = random.Random(f"{options.deal_seed}:{round_no}:{self.identity.public_key.hex()}").randbytes
        path = None
        if self.folder is not None:
            path = Path(self.folder.table(round_no, table + 1))
            path.parent.mkdir(parents=True, exist_ok=True)

        def session(identity: Identity, roster: TableRoster, config: TableConfig) -> TableSession:
            return TableSession(identity, roster.keys, roster.table_id, config, entropy, roster_names=roster.names,
                                dealer=session_board.dealer(table))

        calls = SessionCalls()
        signed = False

        def on_event(event: Any, table_session: Any) -> None:
            nonlocal signed
            if options.table_event is not None:
                options.table_event(event, table_session)
            if isinstance(event, PlayOver) and not signed:   # sign the table's end on the board
                signed = True
                outcome = table_session.state.outcome()
                declaring = -1 if outcome.declarer is None else outcome.declarer % 2
                board.sign_done(table, event.chain, (outcome.points[0] - outcome.points[1], declaring), ())

        board.on_revealed.append(lambda: calls.call(lambda table_session: table_session.deal_ready()))
        driver = DriverOptions(transport=link, session_factory=session, connect_timeout=options.connect_timeout,
                               step_in_thread=options.step_in_thread, linger=options.linger, on_event=on_event,
                               session_calls=calls)
        async with trio.open_nursery() as views:
            if options.table_views is not None:
                views.start_soon(options.table_views)
            result = await run_table(self.identity, table_roster, config, driver, player=player, transcript_path=path)
            views.cancel_scope.cancel()
        left = next((a.left for a in result.abandoned if a.left), ())
        if not signed:   # the deal did not end in play: a player left (or went silent and was abandoned)
            if not left:
                raise TournamentError(f"table {table + 1} stopped without a result"
                                      + (f": {result.blame}" if result.blame is not None else ""))
            signed = True
            board.sign_done(table, result.final_hash or b"", (0, -1), tuple(players[s] for s in left))


def _run_jobs(jobs: Sequence[Any]) -> list[Any]:
    return [run_job(job) for job in jobs]


class _RoundBoard:
    """A round's board (protocol/board.py) run over the board channel: the messages of the
    players still in, my proofs in a worker thread, my table's done, the reveal."""

    def __init__(self, member: _Member, round_no: int, seating: Any, active: list[int], options: TournamentOptions,
                 entropy: Entropy) -> None:
        self.member = member
        self.round_no = round_no
        self.active = active
        index = {p: i for i, p in enumerate(active)}   # board player numbers: the players still in
        self.index = index
        self.seating = BoardSeating(tuple(tuple(index[p] for p in table) for table in seating.tables),
                                    tuple(index[p] for p in seating.byes))
        keys = [member.keys[p] for p in active]
        self.session = BoardSession(len(active), index[member.me], member.identity, keys,
                                    board_id(member.tid, round_no, self.seating, keys), self.seating,
                                    rng=entropy, proofs=options.proofs)
        self.in_thread = options.step_in_thread
        self.inbox: list[bytes] = []
        self.sent: list[bytes] = []      # my board envelopes (re-sent to a peer whose link came back)
        self.todo: list[Callable[[], list[bytes]]] = []
        self.dealt = trio.Event()
        self.revealed = trio.Event()
        self.on_revealed: list[Callable[[], None]] = []
        self._wake = trio.Event()

    def wake(self) -> None:
        self._wake.set()

    def sign_done(self, table: int, chain: bytes, results: tuple[int, ...], leavers: tuple[int, ...]) -> None:
        """Sign my table's done (``leavers``: roster indices) in the board's own task."""
        board_leavers = tuple(self.index[p] for p in leavers)
        self.todo.append(lambda: self.session.done(table, chain, results, board_leavers))
        self.wake()

    def outcomes(self) -> tuple[TableOutcome, ...]:
        found = []
        for table, players in enumerate(self.seating.tables):
            outcome = self.session.outcome(table)
            assert outcome is not None
            leaver = None
            if outcome.leavers:
                leaver = players.index(outcome.leavers[0])
            ns, declaring = outcome.results if leaver is None else (0, -1)
            found.append(TableOutcome(table, outcome.chain, ns, None if declaring < 0 else declaring, leaver))
        return tuple(found)

    async def run(self) -> None:
        board = self.session
        out = board.start()
        keys = [self.member.keys[p] for p in self.active if p != self.member.me]
        while True:
            inbox, self.inbox = self.inbox, []
            for data in inbox:
                board.receive(data)
            todo, self.todo = self.todo, []
            for action in todo:
                out += action()
            jobs = board.take_jobs()
            if jobs:
                if self.in_thread:
                    results = await trio.to_thread.run_sync(_run_jobs, jobs, abandon_on_cancel=True)
                else:
                    results = [run_job(job) for job in jobs]
                for job, result in zip(jobs, results, strict=True):
                    board.finish_job(job, result)
            out += board.take_outgoing()
            for data in out:
                self.sent.append(data)
                await self.member.links.broadcast(CHANNEL_BOARD, data, keys)
            out = []
            for event in board.take_events():
                if isinstance(event, BoardViolation) and (event.player is not None or event.step != "envelope"):
                    who = "nobody can be named" if event.player is None else \
                        f"player {self.member.label(self.active[event.player])} is at fault"
                    raise TournamentError(f"the round's board failed at its {event.step} ({event.reason}); {who}")
                if isinstance(event, BoardDealt):
                    self.member.notify(RoundDealt(self.round_no, board, event.cards))
                    self.dealt.set()
                elif isinstance(event, BoardRevealed):
                    for call in self.on_revealed:
                        call()
                    self.revealed.set()
            if jobs or self.inbox or self.todo:
                continue
            self._wake = trio.Event()
            await self._wake.wait()


async def run_tournament(identity: Identity, join_roster: TableRoster, transport: Transport,
                         options: TournamentOptions, *, player: Callable[[int], Player],
                         on_event: Callable[[Any], None] | None = None, transport_running: bool = False) -> Any:
    """Play the whole tournament of ``join_roster`` as ``identity`` over ``transport`` (the
    mesh of every member; run here unless ``transport_running``). ``player(round)``: this
    member's player for a round. Returns the final standings (p2p_sasaki/sasku/tournament.py
    ``Standings``); raises :class:`TournamentLeft` when this member's player quit,
    :class:`TournamentError` when the tournament cannot go on."""
    notify = on_event or (lambda event: None)
    links = TournamentLinks(transport)
    entropy: Entropy = system_entropy
    if options.deal_seed is not None:
        entropy = random.Random(f"{options.deal_seed}:draw:{identity.public_key.hex()}").randbytes
    stopped: TournamentLeft | TournamentError | None = None
    standings: Any = None
    async with trio.open_nursery() as nursery:
        if not transport_running:
            await nursery.start(transport.run)
        await nursery.start(links.run)
        try:
            standings = await _run(identity, join_roster, transport, links, options, player, notify, entropy, nursery)
        except (TournamentLeft, TournamentError) as error:   # one sentence, not an exception group
            stopped = error
        finally:
            nursery.cancel_scope.cancel()
            if not transport_running:
                transport.close()
    if stopped is not None:
        raise stopped
    return standings


async def _run(identity: Identity, join_roster: TableRoster, transport: Transport, links: TournamentLinks,
               options: TournamentOptions, player: Callable[[int], Player], notify: Callable[[Any], None],
               entropy: Entropy, nursery: trio.Nursery) -> Any:
    from p2p_sasaki.protocol.sasku_game import tournament_standings, tournament_table_result

    with trio.move_on_after(options.connect_timeout) as connecting:
        await transport.wait_connected()
    if connecting.cancelled_caught:
        missing = [describe_key(k) for k in transport.peers if not transport.is_connected(k)]
        raise TournamentError(f"{', '.join(missing)} never connected within {options.connect_timeout:g} s")
    member = _Member(identity, join_roster, links, options, notify)
    nursery.start_soon(member.read)
    nursery.start_soon(member.read_boards)
    for key in transport.peers:
        nursery.start_soon(member.resend_on_reconnect, key)
    roster, draw, agreed = await member.agree(entropy)
    standings = tournament_standings(roster.names, draw)
    notify(RosterSigned(roster, standings))
    for round_no in range(1, agreed.rounds + 1):
        if len(standings.active()) < MIN_PLAYERS:
            break
        seating = standings.next_seating()
        outcomes = await member.play_round(round_no, seating, agreed, player(round_no), entropy)
        standings = standings.with_round(seating, [tournament_table_result(o.ns_result, o.declaring, o.leaver)
                                                   for o in outcomes])
        if member.folder is not None and options.standings_file is not None:
            member._write(member.folder.standings, options.standings_file(standings))
        notify(RoundScored(round_no, seating, outcomes, standings))
    # the end: nobody leaves before everyone still in has every result and transcript
    member.over.add(member.me)
    await member.send(pack([OVER]))
    gone = set(standings.left)
    await member.wait_for(lambda: all(i in member.over for i in range(len(member.keys)) if i not in gone))
    # my last frames (the others may still wait for my "over") leave before the links close
    with trio.move_on_after(10):
        while transport.statistics().sending:
            await trio.sleep(0.05)
    await trio.sleep(options.linger)
    return standings
