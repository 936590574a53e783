"""A duplicate Sasku tournament over the LAN: its players' mesh, its rounds, its tables.

The command line (cli/tournament.py) only parses and presents; everything here is the
network's side::

    roster = await host_tournament(identity, code, mesh_port, listeners, start=event)   # or join_table
    standings = await run_tournament(identity, roster, mesh, options, player=..., on_event=...)

**Joining** is the table's join (protocol/net/join.py: a one-time code, SPAKE2, the roster
sealed to each joiner) with an open number of seats: the host admits players until it
says start (at least four in), then sends every joiner the roster. The tournament id is
the roster's ``table_id``.

**The mesh** is one full TCP mesh of all P players (protocol/net/mesh.py with that roster),
split into channels (protocol/net/tournament_links.py): the tournament's messages, the
boards', and the table frames of the table a player sits at this round.

**The start**: the host (roster member 0) sends the tournament's options (rounds, the game's
options, pacing, proofs); every member signs the tournament statement (the tournament id,
each member's key, nonce and name in roster order, and the options) and sends its
signature to all; a member goes on once it holds every member's valid signature, and
writes them to ``tournament.roster``.

**A round**:

1. the seating, from the standings so far (:func:`seat_round`: the first round by a draw
   from the tournament id, byes to the lowest, nobody a second bye before everyone had one);
2. every table's four players play one deal over a :class:`TableLink` of the tournament
   mesh with the table driver (protocol/net/table.py ``run_table``; fixed seats: the
   seating's S0..S3, one hand);
3. each of them signs ``done`` (the table, its final chain hash, the N-S result and the
   declaring line, or the seat that left) to every player; a table is done when each of its
   players still in the tournament signed the same ``done``;
4. once every table is done, the round is scored (p2p_sasaki/sasku/tournament.py
   ``score_round``: a table a player left gives it 0 and the three others 60 and is left
   out of the comparisons; a bye is 50), and the table's transcript is sent to every
   player by its first seat that finished, so each member's folder holds every table.

A player who quits (its player raises ``PlayerLeft``) sends its table's leave notice and
leaves the tournament (:class:`TournamentLeft`); the three others at its table end the
match (a bot's stall choice when a seat left), sign ``done`` naming it, and the tournament
goes on without it.

**Not yet here** (docs/protocol.md, "Tournament"): the board (protocol/board.py, one deal a
round shuffled by every player, each seat's cards readable only by those who hold that
seat): until it is merged, each table deals its own cards with the table's mental-poker
deck, so the tables of a round do not yet play the same cards.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import trio

from p2p_sasaki.protocol import crypto
from p2p_sasaki.protocol.config import TableConfig
from p2p_sasaki.protocol.crypto import Entropy, system_entropy
from p2p_sasaki.protocol.messages import MessageError, TableRoster, describe_key
from p2p_sasaki.protocol.messages.wire import pack, unpack_canonical
from p2p_sasaki.protocol.net.asking import Player, player_left
from p2p_sasaki.protocol.net.identity import Identity
from p2p_sasaki.protocol.net.join import TableCode, host_table
from p2p_sasaki.protocol.net.table import DriverOptions, TableResult, run_table
from p2p_sasaki.protocol.net.tournament_links import CHANNEL_TOURNAMENT, TableLink, TournamentLinks
from p2p_sasaki.protocol.net.transport import Transport
from p2p_sasaki.protocol.pace import NO_PACE, Pace
from p2p_sasaki.protocol.session import TableSession

log = logging.getLogger(__name__)

__all__ = ["TOURNAMENT_GAME", "MIN_PLAYERS", "MAX_PLAYERS", "TournamentOptions", "Seating", "TableOutcome",
           "RoundScored", "RosterSigned", "RoundSeated", "TableFinished", "TournamentLeft", "TournamentError",
           "host_tournament", "run_tournament", "seat_round", "table_id_of_round", "Standings"]

TOURNAMENT_GAME = "sasku-tournament"
"""The mDNS ``g`` hint of a tournament's host (protocol/net/discovery.py)."""
MIN_PLAYERS = 4
MAX_PLAYERS = 16
"""The join roster names at most 16 members (protocol/messages: MAX_SEATS)."""

TAG_TOURNAMENT_ID = b"p2p-sasaki/v2/tournament-statement"
TAG_ROUND_TABLE = b"p2p-sasaki/v2/tournament-table"
TAG_DONE = b"p2p-sasaki/v2/tournament-done"

BYE_POINTS = Fraction(50)


class TournamentError(Exception):
    """The tournament cannot go on (one sentence)."""


class TournamentLeft(Exception):
    """This player left the tournament (its player quit at a table)."""


@dataclass(frozen=True)
class TournamentOptions:
    """What the host chooses (sent to every member, signed by all) and how this peer runs."""

    rounds: int = 3
    min_bid: int = 0
    """0: the game's default."""
    proofs: bool = True
    pace: Pace = NO_PACE
    directory: Path | None = None
    """This member's tournament folder (None: keep nothing on disk)."""
    connect_timeout: float = 60.0
    step_in_thread: bool = True
    deal_seed: int | None = None
    """Tests only: every table's randomness follows from this seed."""
    linger: float = 0.5


@dataclass(frozen=True)
class Seating:
    """A round's seating: each table's players (roster indices) in seats S0..S3, the byes."""

    tables: tuple[tuple[int, int, int, int], ...]
    byes: tuple[int, ...] = ()


@dataclass(frozen=True)
class TableOutcome:
    """One table's deal as its players signed it: the N-S result (-6..6) and the declaring
    line (0 N-S, 1 E-W, None: nobody declared), or the seat that left (then no result)."""

    table: int
    final: bytes
    ns_result: int
    declaring: int | None
    leaver: int | None = None


@dataclass
class Standings:
    """Every player's total so far (exact), the byes each had, who left."""

    names: tuple[str, ...]
    draw: tuple[int, ...]
    """The first round's draw order (roster indices): ties in the standings go by it."""
    points: list[Fraction] = field(default_factory=list)
    byes: list[int] = field(default_factory=list)
    left: set[int] = field(default_factory=set)
    rounds: list[dict[str, Any]] = field(default_factory=list)

    def order(self) -> list[int]:
        """Roster indices, best first (ties by the draw)."""
        rank = {player: place for place, player in enumerate(self.draw)}
        return sorted(range(len(self.names)), key=lambda p: (-self.points[p], rank[p]))

    def rows(self) -> list[tuple[str, Fraction]]:
        return [(self.names[p], self.points[p]) for p in self.order()]

    def to_json(self) -> dict[str, Any]:
        return {"rounds": self.rounds,
                "standings": [{"name": self.names[p], "player": p, "points": float(self.points[p]),
                               "exact": str(self.points[p]), "left": p in self.left} for p in self.order()]}


# -- events for the presenter ----------------------------------------------------------------


@dataclass(frozen=True)
class RosterSigned:
    roster: TableRoster
    rounds: int


@dataclass(frozen=True)
class RoundSeated:
    round: int
    seating: Seating
    my_table: int | None


@dataclass(frozen=True)
class TableFinished:
    round: int
    outcome: TableOutcome


@dataclass(frozen=True)
class RoundScored:
    round: int
    seating: Seating
    outcomes: tuple[TableOutcome, ...]
    points: dict[int, Fraction]
    standings: Standings


# -- joining --------------------------------------------------------------------------------


async def host_tournament(identity: Identity, code: TableCode, mesh_port: int, listeners: Sequence[trio.SocketListener],
                          *, start: trio.Event, name: str = "", mesh_host: str = "", nonce: bytes | None = None,
                          max_players: int = MAX_PLAYERS, on_event: Callable[[Any], None] | None = None,
                          tournament_id: bytes | None = None) -> TableRoster:
    """Admit players who know ``code`` until ``start`` is set with at least four in (or
    ``max_players`` joined); returns the roster, sent to every joiner (joiners use
    :func:`~p2p_sasaki.protocol.net.join.join_table` as for a table)."""
    return await host_table(identity, code, mesh_port, listeners, seats=max_players, start=start,
                            min_seats=MIN_PLAYERS, name=name, mesh_host=mesh_host, nonce=nonce, on_event=on_event,
                            table_id=tournament_id)


# -- the seating (the rules doc, "Duplicate tournaments") ---------------------------------------


def draw_order(tournament_id: bytes, players: int) -> tuple[int, ...]:
    """The first round's fair draw: a permutation of the players from the tournament id
    (made from every member's fresh nonce, so nobody chose it alone)."""
    return crypto.random_permutation(crypto.SeededEntropy(crypto.hash32(TAG_TOURNAMENT_ID, b"draw",
                                                                        tournament_id)), players)


def seat_round(round_no: int, standings: Standings) -> Seating:
    """The round's seating: the players still in, by the standings (round 1: by the draw),
    four to a table (1st S0, 2nd S1, 3rd S2, 4th S3); the players over a multiple of four
    sit out: the lowest in the standings among those with the fewest byes so far."""
    order = standings.draw if round_no == 1 else tuple(standings.order())
    active = [p for p in order if p not in standings.left]
    extra = len(active) % 4
    byes: list[int] = []
    if extra:
        fewest = sorted(active, key=lambda p: (standings.byes[p], -active.index(p)))
        byes = fewest[:extra]
    playing = [p for p in active if p not in byes]
    tables = tuple((playing[i], playing[i + 1], playing[i + 2], playing[i + 3]) for i in range(0, len(playing), 4))
    return Seating(tables, tuple(sorted(byes, key=active.index)))


def table_id_of_round(tournament_id: bytes, round_no: int, table: int, keys: Sequence[bytes]) -> bytes:
    """The id of a round's table: from the tournament, the round, the table and its players."""
    return crypto.hash32(TAG_ROUND_TABLE, tournament_id, crypto.u32(round_no), crypto.u32(table), *keys)


# -- the tournament's own messages ----------------------------------------------------------------


def _options_frame(options: TournamentOptions) -> bytes:
    pace = options.pace
    return pack(["options", options.rounds, options.min_bid, options.proofs,
                          [[kind, ms] for kind, ms in pace.delays], pace.answer_ms, pace.stall_ms])


def _options_of(data: Any, mine: TournamentOptions) -> TournamentOptions:
    _, rounds, min_bid, proofs, delays, answer_ms, stall_ms = data
    if not (isinstance(rounds, int) and 1 <= rounds <= 99):
        raise ValueError("a tournament has 1 to 99 rounds")
    pace = Pace(tuple((str(kind), int(ms)) for kind, ms in delays), int(answer_ms), int(stall_ms))
    return dataclasses.replace(mine, rounds=rounds, min_bid=int(min_bid), proofs=bool(proofs), pace=pace)


def statement(roster: TableRoster, options_frame: bytes) -> bytes:
    """What every member signs to start: the tournament id, every member's key, nonce and
    name in roster order (never the addresses: each member sees its own), the options."""
    parts = [roster.table_id, crypto.u32(len(roster.members))]
    for member in roster.members:
        parts += [member.key, member.nonce, member.name.encode()]
    return crypto.hash32(TAG_TOURNAMENT_ID, *parts, options_frame)


def _done_body(tournament_id: bytes, round_no: int, outcome: TableOutcome) -> bytes:
    return pack(["done", tournament_id, round_no, outcome.table, outcome.final, outcome.ns_result,
                          -1 if outcome.declaring is None else outcome.declaring,
                          -1 if outcome.leaver is None else outcome.leaver])


def _outcome_of(body: Any) -> tuple[int, TableOutcome]:
    _, _, round_no, table, final, ns, declaring, leaver = body
    return round_no, TableOutcome(int(table), bytes(final), int(ns), None if declaring < 0 else int(declaring),
                                  None if leaver < 0 else int(leaver))


# -- one member's whole tournament -------------------------------------------------------------


class _Member:
    """One member's run: its links, what arrived on the tournament channel, its folder."""

    def __init__(self, identity: Identity, roster: TableRoster, links: TournamentLinks, options: TournamentOptions,
                 notify: Callable[[Any], None]) -> None:
        self.identity = identity
        self.roster = roster
        self.links = links
        self.options = options
        self.notify = notify
        self.me = roster.keys.index(identity.public_key)
        self.keys = roster.keys
        self.tid = roster.table_id
        self.inbox: list[tuple[int, Any, bytes]] = []   # (sender index, decoded, raw)
        self.changed = trio.Event()
        self.signatures: dict[int, bytes] = {}
        self.options_frame: bytes | None = None
        self.dones: dict[tuple[int, int], dict[int, tuple[TableOutcome, bytes]]] = {}
        self.transcripts: dict[tuple[int, int], bytes] = {}
        self.left: set[int] = set()
        self.over: set[int] = set()

    # the tournament channel

    async def read(self) -> None:
        async for peer, data in self.links.tournament:
            if peer not in self.keys:
                continue
            sender = self.keys.index(peer)
            try:
                message = unpack_canonical(data, "tournament message")
                self._take(sender, message)
            except (ValueError, TypeError, IndexError, KeyError, MessageError) as exc:
                log.warning("dropped a malformed tournament message from %s: %s", describe_key(peer), exc)
            self.changed.set()
            self.changed = trio.Event()

    def _take(self, sender: int, message: Any) -> None:
        tag = message[0]
        if tag == "options" and sender == 0 and self.options_frame is None:
            self.options_frame = pack(message)
        elif tag == "sign":
            self.signatures.setdefault(sender, bytes(message[1]))
        elif tag == "done":
            body, signature = bytes(message[1]), bytes(message[2])
            if not crypto.verify_signature(self.keys[sender], TAG_DONE + body, signature):
                raise ValueError("a done with a bad signature")
            decoded = unpack_canonical(body, "done")
            if bytes(decoded[1]) != self.tid:
                raise ValueError("a done of another tournament")
            round_no, outcome = _outcome_of(decoded)
            self.dones.setdefault((round_no, outcome.table), {}).setdefault(sender, (outcome, body + signature))
        elif tag == "over":
            self.over.add(sender)
        elif tag == "transcript":
            self.transcripts.setdefault((int(message[1]), int(message[2])), bytes(message[3]))

    async def wait_for(self, ready: Callable[[], bool]) -> None:
        while not ready():
            await self.changed.wait()

    def active(self) -> list[bytes]:
        return [k for i, k in enumerate(self.keys) if i not in self.left and i != self.me]

    async def broadcast(self, message: list[Any]) -> None:
        await self.links.broadcast(CHANNEL_TOURNAMENT, pack(message), self.active())

    # the start

    async def agree(self) -> TournamentOptions:
        if self.me == 0:
            self.options_frame = _options_frame(self.options)
            await self.broadcast(unpack_canonical(self.options_frame, "options"))
        await self.wait_for(lambda: self.options_frame is not None)
        assert self.options_frame is not None
        options = _options_of(unpack_canonical(self.options_frame, "options"), self.options)
        signed = statement(self.roster, self.options_frame)
        mine = self.identity.sign(signed)
        self.signatures[self.me] = mine
        await self.broadcast(["sign", mine])
        await self.wait_for(lambda: len(self.signatures) == len(self.keys))
        for index, signature in self.signatures.items():
            if not crypto.verify_signature(self.keys[index], signed, signature):
                raise TournamentError(f"{self.label(index)} signed another tournament (another roster or other "
                                      "options): it cannot start")
        if self.options.directory is not None:
            self._write("tournament.roster", pack({
                "tournament": self.tid, "keys": list(self.keys), "names": list(self.roster.names),
                "nonces": [m.nonce for m in self.roster.members], "options": self.options_frame,
                "signatures": [self.signatures[i] for i in range(len(self.keys))]}))
        self.notify(RosterSigned(self.roster, options.rounds))
        return options

    def label(self, index: int) -> str:
        name = self.roster.names[index]
        return name or describe_key(self.keys[index])

    def _write(self, relative: str, data: bytes) -> None:
        assert self.options.directory is not None
        path = self.options.directory / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_bytes(data)
        tmp.replace(path)

    # a round

    async def play_round(self, round_no: int, seating: Seating, options: TournamentOptions,
                         player: Player) -> tuple[TableOutcome, ...]:
        mine = next((t for t, players in enumerate(seating.tables) if self.me in players), None)
        self.notify(RoundSeated(round_no, seating, mine))
        quit_error: BaseException | None = None
        if mine is not None:
            players = seating.tables[mine]
            try:
                outcome, path = await self._play_table(round_no, mine, players, options, player)
            except BaseException as error:
                if player_left(error) is None:
                    raise
                quit_error = error
            else:
                body = _done_body(self.tid, round_no, outcome)
                signature = self.identity.sign(TAG_DONE + body)
                self.dones.setdefault((round_no, mine), {})[self.me] = (outcome, body + signature)
                await self.broadcast(["done", body, signature])
                # the table's first seat still in sends its transcript to everyone
                first = next(p for s, p in enumerate(players) if s != outcome.leaver)
                if first == self.me and path is not None and path.exists():
                    data = path.read_bytes()
                    self.transcripts[(round_no, mine)] = data
                    await self.broadcast(["transcript", round_no, mine, data])
        if quit_error is not None:
            raise TournamentLeft("you left the tournament") from quit_error
        outcomes = await self._collect(round_no, seating)
        for outcome in outcomes:
            if outcome.leaver is not None:
                self.left.add(seating.tables[outcome.table][outcome.leaver])
        if self.options.directory is not None:
            others = [t for t in range(len(seating.tables)) if t != mine]
            await self.wait_for(lambda: all((round_no, t) in self.transcripts for t in others))
            for table in others:
                self._write(f"round-{round_no}/table-{table + 1}.sasaki", self.transcripts[(round_no, table)])
            self._write(f"round-{round_no}/done.msgpack", pack(
                [[raw for _, (_, raw) in sorted(self.dones[(round_no, t)].items())]
                 for t in range(len(seating.tables))]))
        return outcomes

    async def _collect(self, round_no: int, seating: Seating) -> tuple[TableOutcome, ...]:
        """Every table's signed outcome: each of its players still in signed the same one
        (a player that left signs nothing: the others name it)."""

        def table_done(table: int) -> TableOutcome | None:
            signed = self.dones.get((round_no, table), {})
            players = seating.tables[table]
            outcomes = {outcome for outcome, _ in signed.values()}
            if len(outcomes) > 1:
                raise TournamentError(f"the players of table {table + 1} signed different results in round "
                                      f"{round_no}: the tournament cannot be scored")
            if not outcomes:
                return None
            (outcome,) = outcomes
            needed = [p for s, p in enumerate(players) if s != outcome.leaver]
            return outcome if all(p in signed for p in needed) else None

        await self.wait_for(lambda: all(table_done(t) is not None for t in range(len(seating.tables))))
        outcomes = tuple(table_done(t) for t in range(len(seating.tables)))
        for outcome in outcomes:
            assert outcome is not None
            self.notify(TableFinished(round_no, outcome))
        return outcomes  # type: ignore[return-value]

    async def _play_table(self, round_no: int, table: int, players: tuple[int, ...], options: TournamentOptions,
                          player: Player) -> tuple[TableOutcome, Path | None]:
        from p2p_sasaki.protocol.sasku_game import tournament_table_game

        keys = [self.keys[p] for p in players]
        members = tuple(self.roster.members[p] for p in players)
        table_roster = TableRoster(table_id_of_round(self.tid, round_no, table, keys), members)
        game = tournament_table_game(options.min_bid)
        config = TableConfig(game, hands=1, proofs=options.proofs, pace=options.pace, seats=(0, 1, 2, 3))
        link: TableLink = self.links.table(keys)
        entropy: Entropy = system_entropy
        if options.deal_seed is not None:
            entropy = random.Random(f"{options.deal_seed}:{round_no}:{self.identity.public_key.hex()}").randbytes
        path = None
        if options.directory is not None:
            path = options.directory / f"round-{round_no}" / f"table-{table + 1}.sasaki"
            path.parent.mkdir(parents=True, exist_ok=True)

        def session(identity: Identity, roster: TableRoster, config: TableConfig) -> TableSession:
            return TableSession(identity, roster.keys, roster.table_id, config, entropy, roster_names=roster.names)

        driver = DriverOptions(transport=link, session_factory=session, connect_timeout=options.connect_timeout,
                               step_in_thread=options.step_in_thread, linger=options.linger)
        result = await run_table(self.identity, table_roster, config, driver, player=player, transcript_path=path)
        return _outcome(table, result), path


def _outcome(table: int, result: TableResult) -> TableOutcome:
    """What a table's player signs as done, from its match's result."""
    final = result.final_hash or b""
    for abandoned in result.abandoned:
        if abandoned.left:
            return TableOutcome(table, final, 0, None, abandoned.left[0])
    if not result.hands:
        raise TournamentError(f"table {table + 1} stopped without a result"
                              + (f": {result.blame}" if result.blame is not None else ""))
    outcome = result.hands[-1].outcome
    ns = outcome.points[0] - outcome.points[1]
    declaring = None if outcome.declarer is None else outcome.declarer % 2
    return TableOutcome(table, final, ns, declaring)


def score(round_no: int, seating: Seating, outcomes: Sequence[TableOutcome], standings: Standings) -> RoundScored:
    """Score a round into ``standings`` (p2p_sasaki/sasku/tournament.py ``score_round``)."""
    from p2p_sasaki.protocol.sasku_game import duplicate_round_points

    results = [(o.ns_result, o.declaring, o.leaver) for o in outcomes]
    points: dict[int, Fraction] = {}
    for table, table_points in zip(seating.tables, duplicate_round_points(results), strict=True):
        for seat, player in enumerate(table):
            points[player] = Fraction(table_points[seat])
    for player in seating.byes:
        points[player] = BYE_POINTS
        standings.byes[player] += 1
    for player, value in points.items():
        standings.points[player] += value
    names = standings.names
    standings.rounds.append({
        "round": round_no,
        "tables": [{"players": [names[p] for p in players],
                    "result": _result_string(outcome),
                    "points": [float(points[p]) for p in players]}
                   for players, outcome in zip(seating.tables, outcomes, strict=True)],
        "byes": [names[p] for p in seating.byes],
        "totals": {names[p]: float(standings.points[p]) for p in range(len(names))},
    })
    return RoundScored(round_no, seating, tuple(outcomes), points, standings)


def _result_string(outcome: TableOutcome) -> str:
    """Like the seed's ``N:-2``: the N-S line's result (``left S2`` at a table a player left)."""
    if outcome.leaver is not None:
        return f"left S{outcome.leaver}"
    return f"N:{outcome.ns_result}"


async def run_tournament(identity: Identity, roster: TableRoster, transport: Transport, options: TournamentOptions,
                         *, player: Callable[[int], Player], on_event: Callable[[Any], None] | None = None,
                         transport_running: bool = False) -> Standings:
    """Play the whole tournament of ``roster`` as ``identity`` over ``transport`` (the mesh of
    every member; run here unless ``transport_running``). ``player(round)``: this member's
    player for a round. Returns the final standings; raises
    :class:`TournamentLeft` when this member's player quit, :class:`TournamentError` when the
    tournament cannot go on."""
    notify = on_event or (lambda event: None)
    links = TournamentLinks(transport)
    async with trio.open_nursery() as nursery:
        if not transport_running:
            await nursery.start(transport.run)
        await nursery.start(links.run)
        with trio.move_on_after(options.connect_timeout) as connecting:
            await transport.wait_connected()
        if connecting.cancelled_caught:
            missing = [describe_key(k) for k in transport.peers if not transport.is_connected(k)]
            raise TournamentError(f"{', '.join(missing)} never connected within {options.connect_timeout:g} s")
        member = _Member(identity, roster, links, options, notify)
        nursery.start_soon(member.read)
        agreed = await member.agree()
        names = tuple(member.label(i) for i in range(len(roster.members)))
        standings = Standings(names, draw_order(roster.table_id, len(names)), [Fraction(0)] * len(names),
                              [0] * len(names))
        try:
            for round_no in range(1, agreed.rounds + 1):
                if len(roster.members) - len(standings.left) < MIN_PLAYERS:
                    notify(TournamentError("fewer than four players are left: the tournament ends here"))
                    break
                seating = seat_round(round_no, standings)
                outcomes = await member.play_round(round_no, seating, agreed, player(round_no))
                scored = score(round_no, seating, outcomes, standings)
                standings.left |= member.left
                if options.directory is not None:
                    member._write("standings.json", json.dumps(standings.to_json(), indent=1).encode())
                notify(scored)
            # the end: nobody leaves before everyone still in has every result and transcript
            member.over.add(member.me)
            await member.broadcast(["over"])
            everyone = [i for i in range(len(roster.members)) if i not in standings.left]
            await member.wait_for(lambda: all(i in member.over for i in everyone))
        finally:
            nursery.cancel_scope.cancel()
            if not transport_running:
                transport.close()
    return standings

