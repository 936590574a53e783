"""Running one peer of a table: the mesh, the sans-IO :class:`TableSession`, the
transcript file and a player (bot or person), glued together with trio.

::

    roster = await host_table(...) / await join_table(...)      # protocol.net.join
    result = await run_table(identity, roster, config, listeners=mesh_listeners,
                             player=BotPlayer(HeuristicBot(rng)),
                             transcript_path=path, on_event=ui)

The loop (one task owns the session; nothing else touches it):

1. frames received from the mesh are queued by a reader task and handed to
   ``session.receive(frame, from_key)`` by the loop;
2. slow crypto runs as ``session.step()`` in a worker thread
   (``trio.to_thread.run_sync``), one piece at a time, so the trio thread is never
   blocked for more than a few milliseconds and the mesh keeps its keep-alives;
3. after every call into the session, its events are handled **in order**: each
   :class:`Record` is appended to the transcript file, flushed and ``os.fsync``-ed
   before anything else happens, and only then is ``take_outgoing()`` broadcast.
   So a message of ours is never on the wire unless every record before it (ours
   and those of others we had accepted) is on disk;
4. when ``session.pending_for_me`` is set, the player is asked (in its own task,
   with a snapshot of the view and the legal actions); its answer goes to
   ``session.act``.

What is persisted, and what a crash loses
-----------------------------------------

- The identity seed is kept by the caller (``cli/common.py`` stores it in the data
  directory with mode 0600); a restarted peer is the same player.
- The transcript (``.sasaki``) holds every record the session emitted, in
  canonical order, each fsync-ed before our next message was sent. After a crash
  it is a valid prefix that ``sasaki audit`` checks as far as it goes.
- **Not persisted: the session's in-memory state**, notably this hand's secret
  shuffle/decryption keys and the deal. ``TableSession`` (contract in
  ``session-api.md``) has no resume entry point, so a crashed peer cannot rejoin
  the running match: the others see it go silent (keep-alives, 15 s) and the
  table stalls; the hands already finished stay auditable from any copy of the
  transcript. Resuming would need the session to export and re-import its
  secrets; that is future work.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import trio

from protocol.net.identity import Identity, TableRoster
from protocol.net.mesh import Mesh

__all__ = ["Turn", "Player", "BotPlayer", "Waiting", "Connected", "TableResult", "TranscriptWriter",
           "run_table"]


@dataclass(frozen=True)
class Turn:
    """What a player is shown when asked for an action: a snapshot, safe to keep."""

    seat: int
    decision: Any            # p2p_sasaki.hand.Decision
    view: Any                # p2p_sasaki.hand.SeatView
    legal: tuple[Any, ...]   # p2p_sasaki.hand.Action, the legal answers now


class Player(Protocol):
    async def decide(self, turn: Turn) -> Any:
        """Return an action for ``turn``; cancelled if the decision goes away."""


class BotPlayer:
    """A :class:`p2p_sasaki.bots.Bot` (``choose(view, legal)``) as a player."""

    def __init__(self, bot: Any, delay: float = 0.0) -> None:
        self.bot = bot
        self.delay = delay

    async def decide(self, turn: Turn) -> Any:
        if self.delay:
            await trio.sleep(self.delay)
        return self.bot.choose(turn.view, turn.legal)


@dataclass(frozen=True)
class Waiting:
    """Driver event: the session waits for messages from these seats (not mine)."""

    seats: tuple[int, ...]


@dataclass(frozen=True)
class Connected:
    """Driver event: the mesh reached every other member."""


@dataclass
class TableResult:
    finished: bool
    totals: tuple[int, ...]
    blame: Any = None                 # the session's Blame event, if the table stopped on one
    transcript: Path | None = None
    records: int = 0
    config: Any = None
    hands: list[Any] = field(default_factory=list)   # HandEnded events
    mesh: Any = None                  # MeshStatistics when the table stopped (frames and bytes sent)


class TranscriptWriter:
    """Appends records to a ``.sasaki`` file, each flushed and fsync-ed."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(self.path, "xb")  # never overwrite another table's transcript
        self.records = 0

    def append(self, data: bytes) -> None:
        self._file.write(data)
        self._file.flush()
        os.fsync(self._file.fileno())
        self.records += 1

    def close(self) -> None:
        self._file.close()


def _default_session_factory(identity: Identity, roster: TableRoster, config: Any) -> Any:
    from protocol.session import TableSession  # the contract's sans-IO session

    return TableSession(identity, roster.keys, roster.table_id, config)


async def run_table(
    identity: Identity,
    roster: TableRoster,
    config: Any,
    *,
    player: Player,
    transcript_path: Path | None,
    listeners: Sequence[trio.SocketListener] | None = None,
    on_event: Callable[[Any, Any], None] | None = None,
    session_factory: Callable[[Identity, TableRoster, Any], Any] | None = None,
    mesh_options: dict[str, Any] | None = None,
    connect_timeout: float = 60.0,
    linger: float = 1.5,
    config_codec: tuple[Callable[[Any], bytes], Callable[[bytes], Any]] | None = None,
) -> TableResult:
    """Play the whole match of ``roster`` as ``identity``; return when it is over.

    ``on_event(event, session)`` is called for every session event (after its
    record, if any, is on disk) and for the driver's :class:`Waiting` /
    :class:`Connected`.

    With ``config_codec`` (encode, decode) the table's creator (the roster's first
    member) sends its ``config`` to the joiners as the first frame on the mesh and
    the joiners (whose ``config`` is ignored) use it: the table options are the
    creator's choice. The session's genesis signatures then bind every peer to
    the same config. Raises ``trio.TooSlowError`` if the mesh does not connect
    within ``connect_timeout`` seconds.
    """
    notify = on_event or (lambda event, session: None)
    writer = TranscriptWriter(transcript_path) if transcript_path is not None else None
    result = TableResult(finished=False, totals=(0, 0, 0, 0), transcript=transcript_path)
    mesh = Mesh(identity, roster, **(mesh_options or {}))
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(mesh.run, listeners)
            with trio.fail_after(connect_timeout):
                await mesh.wait_connected()
            notify(Connected(), None)
            early: list[tuple[bytes, bytes]] = []
            if config_codec is not None:
                config = await _agree_config(mesh, roster, identity, config, config_codec, early)
            result.config = config
            session = (session_factory or _default_session_factory)(identity, roster, config)
            driver = _Driver(session, mesh, player, writer, notify, result)
            driver.inbox.extend(early)
            await driver.run(nursery, linger)
            result.mesh = mesh.statistics()
            mesh.close()
            nursery.cancel_scope.cancel()
    finally:
        if writer is not None:
            result.records = writer.records
            writer.close()
    return result


CONFIG_MAGIC = b"sasaki/v1 table config\0"


async def _agree_config(mesh: Mesh, roster: TableRoster, identity: Identity, config: Any,
                        codec: tuple[Callable[[Any], bytes], Callable[[bytes], Any]],
                        early: list[tuple[bytes, bytes]]) -> Any:
    encode, decode = codec
    creator = roster.members[0].key
    if identity.public_key == creator:
        await mesh.broadcast(CONFIG_MAGIC + encode(config))
        return config
    async for peer, frame in mesh.received:
        if peer != creator:
            early.append((peer, frame))  # another joiner's session is already talking
            continue
        if not frame.startswith(CONFIG_MAGIC):
            raise ValueError("the table's creator did not send the table options first")
        return decode(frame[len(CONFIG_MAGIC):])
    raise ValueError("the mesh closed before the table's creator sent the table options")


class _Driver:
    def __init__(self, session: Any, mesh: Mesh, player: Player, writer: TranscriptWriter | None,
                 notify: Callable[[Any, Any], None], result: TableResult) -> None:
        self.session = session
        self.mesh = mesh
        self.player = player
        self.writer = writer
        self.notify = notify
        self.result = result
        self.inbox: list[tuple[bytes, bytes]] = []
        self.answers: list[tuple[object, Any]] = []
        self.wake = trio.Event()
        self.asking: tuple[object, trio.CancelScope] | None = None
        self.waiting: tuple[int, ...] = ()

    def _wake(self) -> None:
        self.wake.set()

    async def _read(self) -> None:
        async for peer, frame in self.mesh.received:
            self.inbox.append((peer, frame))
            self._wake()

    async def _flush(self) -> None:
        """Events first (records to disk, in order), then our outgoing messages."""
        session = self.session
        for event in session.take_events():
            name = type(event).__name__
            if name == "Record":
                if self.writer is not None:
                    self.writer.append(event.data)
            elif name == "HandEnded":
                self.result.hands.append(event)
            elif name == "Blame":
                self.result.blame = event
            self.notify(event, session)
        for frame in session.take_outgoing():
            await self.mesh.broadcast(frame)
        waiting = tuple(s for s in session.waiting_for if s != session.my_seat)
        if waiting != self.waiting:
            self.waiting = waiting
            if waiting:
                self.notify(Waiting(waiting), session)

    def _decision_key(self) -> object:
        session = self.session
        view = session.view
        return (getattr(session, "hand_no", None), view.history if view is not None else None,
                session.pending_for_me)

    async def _ask(self, key: object, turn: Turn, scope: trio.CancelScope) -> None:
        with scope:
            action = await self.player.decide(turn)
            self.answers.append((key, action))
            self._wake()

    def _maybe_ask(self, nursery: trio.Nursery) -> None:
        session = self.session
        pending = session.pending_for_me
        if pending is None:
            if self.asking is not None:
                self.asking[1].cancel()
                self.asking = None
            return
        key = self._decision_key()
        if self.asking is not None:
            if self.asking[0] == key:
                return
            self.asking[1].cancel()
        turn = Turn(session.my_seat, pending, session.view, tuple(session.legal_actions))
        scope = trio.CancelScope()
        self.asking = (key, scope)
        nursery.start_soon(self._ask, key, turn, scope)

    async def run(self, nursery: trio.Nursery, linger: float) -> None:
        session = self.session
        nursery.start_soon(self._read)
        async with trio.open_nursery() as players:
            session.start()
            await self._flush()
            while not session.finished:
                progressed = False
                inbox, self.inbox = self.inbox, []
                for peer, frame in inbox:
                    session.receive(frame, peer)
                    progressed = True
                answers, self.answers = self.answers, []
                for key, action in answers:
                    if self.asking is not None and self.asking[0] == key:
                        self.asking = None
                    if key == self._decision_key():
                        session.act(action)  # IllegalActionError: a bug of the player; let it surface
                        progressed = True
                await self._flush()
                if session.finished:
                    break
                self._maybe_ask(players)
                if await trio.to_thread.run_sync(session.step):
                    await self._flush()
                    continue
                if progressed or self.inbox or self.answers:
                    continue
                self.wake = trio.Event()
                await self.wake.wait()
            if self.asking is not None:
                self.asking[1].cancel()
        self.result.finished = session.finished and self.result.blame is None
        self.result.totals = tuple(session.totals)
        # Let the others receive our last messages, and answer any late request.
        with trio.move_on_after(10):
            while any(p.queued for p in self.mesh.statistics().peers.values()):
                await trio.sleep(0.05)
        with trio.move_on_after(linger):
            while any(self.mesh.is_connected(k) for k in self.mesh.peers):
                inbox, self.inbox = self.inbox, []
                for peer, frame in inbox:
                    session.receive(frame, peer)
                await self._flush()
                self.wake = trio.Event()
                with trio.move_on_after(0.1):
                    await self.wake.wait()

