"""Running one peer of a table: a transport, the sans-IO :class:`TableSession`, the
transcript file and a player (bot or person), glued together with trio.

::

    roster = await host_table(...) / await join_table(...)      # protocol.net.join
    result = await run_table(identity, roster, config, listeners=mesh_listeners,
                             player=BotPlayer(HeuristicBot(rng)),
                             transcript_path=path, on_event=ui)

The transport is any :class:`~p2p_sasaki.protocol.net.transport.Transport`: by default
the TCP :class:`~p2p_sasaki.protocol.net.mesh.Mesh` on ``listeners``; tests pass
``transport=network.transport(key)`` of an in-memory
:class:`~p2p_sasaki.protocol.net.memory.MemoryNetwork` and run the same driver in
virtual time (with ``step_in_thread=False``: a worker thread would let the mock clock
jump ahead while the crypto runs).

The loop (one task owns the session; nothing else touches it):

1. frames received from the transport are queued by a reader task and handed to
   ``session.receive(frame, from_key)`` by the loop;
2. slow crypto runs as ``session.step()`` in a worker thread
   (``trio.to_thread.run_sync``), one piece at a time, so the trio thread is never
   blocked for more than a few milliseconds and the mesh keeps its keep-alives;
3. after every call into the session, its events are handled **in order**: each
   :class:`Record` is appended to the transcript file (one write, ``os.fsync``-ed, cut back on failure)
   before anything else happens, and only then is ``take_outgoing()`` broadcast.
   So a message of ours is never on the wire unless every record before it (ours
   and those of others we had accepted) is on disk;
4. when ``session.pending_for_me`` is set, the player is asked (in its own task,
   with a snapshot of the view and the legal actions); its answer goes to
   ``session.act``;
5. the shot clock (docs/protocol.md, "Window pacing"): one scheduler, in trio time. My
   answer to a decision is given to ``session.act`` when the player gives it (signed and
   saved at once), and its envelope is held by :class:`Pacer` until the decision's open
   time + the table's delay for its kind (``config.pace``): exactly then for a window,
   no earlier for a turn; the opening slot's answer, which the session signs by itself,
   likewise. A person (a player without ``is_bot``) who has not answered a window by then
   has declined: the driver acts the game's decline at that time. My frames leave in
   signing order, relays at once. :class:`WindowOpened` reports each paced decision; the
   player's :class:`Turn` carries its ``opened`` and ``delay`` (the presenter's countdown).

Transport reliability
---------------------

The TCP mesh delivers in order while a connection lasts and keeps frames queued for an
absent peer, but a frame being written when a link broke is lost (and a reset can
discard what the other kernel had not yet read); a transport in general may also lose,
duplicate or reorder frames (the in-memory network's hostile conditions). Relays usually repair a single
lost copy, but when all of a peer's links break at once (a closed laptop lid) its
last message may reach nobody, and agreement has no timeouts (correctly), so the
table would wait forever. The driver therefore keeps a :class:`SentLog` of every
envelope it broadcast (its own and its relays) and re-sends it; the session
ignores duplicates and orders what arrives early, so this never changes what is
agreed (``resend=False`` turns it off, to show what it repairs):

- **what is kept**: the envelopes of the newest hand this peer has sent for, plus
  the last slot of the hand before (when any peer has started hand h, every peer
  has finished hand h-1 except perhaps for messages of its last slot, the key
  reveal), plus the creator's table-options frame. So it is bounded by one hand
  (a few hundred envelopes; the deck frames dominate) and costs one decode per
  envelope;
- **on reconnection**: when the link to a peer comes back, the whole log is queued
  for that peer (after what was already waiting in its queue);
- **on a stall**: when nothing new has happened for ``stall_after`` seconds
  (default 3) while the table waits for other seats (or for the player), the log
  is queued for every connected peer whose send queue is empty; the next stall
  re-send waits twice as long (up to 60 s), and any progress resets it. So a
  person thinking for a minute costs a handful of re-sends, not a flood;
- re-sends never wait: a full send queue (``trio.WouldBlock``) ends that re-send;
- after the match, while lingering, a reconnecting peer is also sent the log, and the
  stall re-send goes on: on a transport that loses frames on live links, ``linger``
  longer than ``stall_after`` lets a finished peer repair its own lost last message
  (the TCP mesh only loses frames when a link breaks, which the reconnection covers).

Tests: ``tests/net/test_table_reliability.py`` runs four drivers on a seeded hostile
in-memory network under ``MockClock(autojump_threshold=0)`` (loss, duplicates,
reordering, links cut, a peer offline, the re-send turned off).

The driver reports :class:`Waiting` (the awaited seats, their keys, and which of
them have no live link) once per change, so a UI can say who the table waits for
and that they are offline. Counters: ``TableResult.resent`` (frames re-sent).

Abandon and leaving
-------------------

While the session waits for other seats, :class:`Waiting` carries since when (``since``, trio
time: the clock restarts whenever the hand, the slot or the awaited seats change) and when
the stall deadline falls (``deadline`` = since + the table's signed ``stall_ms``). At the
deadline (while a present seat is awaited, never before its answer deadline +
``ANSWER_GRACE`` counted from when it could enter the slot: ``since``, or later when my own
answer that completed the previous slot is still held by the shot clock; a person still
allowed to think is never called silent), or at once when
every awaited seat signed a leave notice (``left``; the session's
:class:`~p2p_sasaki.protocol.events.SeatLeft`), the driver reports :class:`Stalled` and asks
the player (``Player.stalled``, in its own task, cancelled if the seat answers meanwhile).
The question never stops my own answer: one already given was signed when given, and goes
out at its due time, before an abandon of the slot I sign after it (my frames keep their
order). ``"wait"`` asks again one deadline later (also when the seat left); ``"abandon"``
signs the session's abandon of the slot (docs/protocol.md, "Abandon"), the match then goes
on with the next hand; if it cannot be
signed (two of four seats awaited together: no majority) the driver reports
:class:`CannotAbandon` with the session's sentence why and what can be done, and waits as for
``"wait"``; ``"end"``
signs it with ``end`` set: no further hands; ``"bot"`` (offered when :attr:`Stalled.bot_seat`)
signs it like ``"end"`` and is kept in ``TableResult.choice``: the caller then agrees on a
table with a bot in that seat (protocol/net/botseat.py). A bot (and a player without ``stalled``)
abandons, and ends the match when the seat left or was already abandoned in an earlier hand
(:meth:`BotPlayer.stalled`). A player that
raises :class:`PlayerLeft` (``quit`` at the terminal) makes the driver sign and send a leave
notice, wait up to 2 s for it to go out, and re-raise. Ctrl-C or a closed terminal sends
nothing (the table stays resumable). ``TableResult.abandoned`` holds the
:class:`~p2p_sasaki.protocol.events.HandAbandoned` events. Tests:
``tests/net/test_abandon_driver.py`` (virtual time), ``tests/cli/test_abandon_processes.py``.

What is persisted, and what a crash loses
-----------------------------------------

- The identity seed is kept by the caller (``cli/common.py`` stores it in the data
  directory with mode 0600); a restarted peer is the same player.
- The transcript (``.sasaki``) holds every record the session emitted, in
  canonical order, each fsync-ed before our next message was sent. After a crash
  it is a valid prefix that ``sasaki audit`` checks as far as it goes.
- With a ``store`` (protocol/net/persist.py), before anything goes out: the bytes the
  session drew from its entropy and my new envelopes, appended and fsync-ed, **then** the
  step's records, **then** the frames are sent. A killed peer started again with
  ``resume=True`` is rebuilt by protocol/restore.py from the store and the transcript
  (it signs the very bytes it had signed, or refuses), writes the records its replay
  completed beyond the file (and skips those already in it), re-sends its saved
  envelopes to every peer and goes on; the others re-send theirs when its link comes back
  (above). Tests: ``tests/net/test_resume.py`` (in memory), ``tests/cli/test_resume_processes.py``.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from p2p_sasaki.protocol.crypto import Entropy, system_entropy
from p2p_sasaki.protocol.followon import is_follow_on
from p2p_sasaki.protocol.game import OPENING_PACE, SlotKind
from p2p_sasaki.protocol.messages import (
    MessageError,
    VersionMismatchError,
    decode_envelope,
    default_name,
    verify_envelope,
)
from p2p_sasaki.protocol.net.asking import (
    ABANDON,
    BOT,
    END,
    STALL_CHOICES,
    WAIT,
    BotPlayer,
    CannotAbandon,
    Player,
    PlayerLeft,
    Stalled,
    Turn,
    bot_stall_choice,
    player_left,
)
from p2p_sasaki.protocol.net.identity import Identity, TableRoster
from p2p_sasaki.protocol.net.mesh import Mesh
from p2p_sasaki.protocol.net.pacing import Pacer, WindowOpened
from p2p_sasaki.protocol.net.persist import TableStore, TranscriptWriter
from p2p_sasaki.protocol.net.reliability import SentLog
from p2p_sasaki.protocol.net.transport import Transport, TransportStatistics
from p2p_sasaki.protocol.net.workers import ProofPool
from p2p_sasaki.protocol.pace import NO_PACE, Pace
from p2p_sasaki.protocol.restore import RecordingEntropy, StaleSavedTable, restore_session
from p2p_sasaki.protocol.session import (
    Blame,
    HandAbandoned,
    HandEnded,
    Record,
    Signed,
    SignedKind,
    TableConfig,
    TableSession,
)
from p2p_sasaki.protocol.transcript import KIND_HEADER, encode_record

__all__ = ["Turn", "Player", "BotPlayer", "Waiting", "Links", "Connected", "OptionsAgreed", "WindowOpened",
           "Pacer", "TableResult", "TranscriptWriter", "SentLog", "run_table", "DriverOptions", "ConfigCodec",
           "Stalled", "CannotAbandon", "PlayerLeft", "SessionCalls", "STALL_CHOICES", "WAIT", "ABANDON", "END", "BOT"]


@dataclass(frozen=True)
class Waiting:
    """Driver event: the session waits for messages from these seats (not mine).

    Emitted once per change of ``(seats, offline, alone)``, as soon as the transport reports
    a link down (a peer's disconnection wakes the driver). Before the seats are drawn
    (hand 0) the numbers are roster indices (join order), not seats. ``keys``: the
    awaited members' public keys; ``offline``: those of ``seats`` with no live
    link right now (the mesh is reconnecting)."""

    seats: tuple[int, ...]
    keys: tuple[bytes, ...] = ()
    offline: tuple[int, ...] = ()
    alone: bool = False
    """This peer has no live link to any other member: most likely it is the one offline
    ("You are offline"); emitted even while nobody is awaited."""
    since: float = 0.0
    """trio time since when the table waits for these seats in this slot (how long: now - since)."""
    deadline: float = 0.0
    """trio time of the stall deadline (since + the table's ``stall_ms``): the choices come then."""
    left: tuple[int, ...] = ()
    """Those of ``seats`` that signed a leave notice ("S2 left")."""


@dataclass(frozen=True)
class Links:
    """Driver event: the members with no live link to this peer right now, awaited or not (seats
    once drawn, roster indices before); emitted on every change, as soon as the transport
    reports a link down or back (within its heartbeat), so a view can mark any seat offline."""

    offline: tuple[int, ...]
    keys: tuple[bytes, ...] = ()      # their public keys, in the same order


@dataclass(frozen=True)
class Connected:
    """Driver event: the mesh reached every other member."""


@dataclass(frozen=True)
class OptionsAgreed:
    """Driver event: the table's options are known (the creator's own, or a joiner's from the
    creator's frame), before this peer signs them at GENESIS: a view can show them (Sasku's
    partners chosen by name) while the member may still leave unsigned."""

    config: Any
    names: tuple[str, ...]            # the roster's names in join order (``peer 1a2b3c4d``: none chosen)


@dataclass
class TableResult:
    finished: bool
    totals: tuple[int, ...]
    blame: Any = None                 # the session's Blame event, if the table stopped on one
    transcript: Path | None = None
    records: int = 0
    config: Any = None
    hands: list[Any] = field(default_factory=list)   # HandEnded events
    mesh: TransportStatistics | None = None           # the transport's, when the table stopped
    resent: int = 0                                   # frames re-sent (Transport reliability)
    final_hash: bytes | None = None   # the chain hash after the last slot, once the match is over
    follow_on: list[tuple[bytes, bytes]] = field(default_factory=list)
    """(peer, frame) of every follow-on message that arrived while the table ran (protocol/followon.py):
    a peer that finished first may already answer "next match"; the caller's agreement takes them."""
    abandoned: list[Any] = field(default_factory=list)   # HandAbandoned events
    left: bool = False                                # this player left (a leave notice was sent)
    seat_keys: tuple[bytes, ...] | None = None        # the members' keys by seat (once seated)
    choice: str | None = None                         # my player's last stall choice acted on (STALL_CHOICES)


class PeersUnreachable(trio.TooSlowError):
    """Some members never connected within the connect timeout: the match cannot start."""

    def __init__(self, missing: tuple[Any, ...], seconds: float) -> None:
        names = ", ".join(str(member) for member in missing) or "a member"
        super().__init__(f"{names} never connected within {seconds:g} s")
        self.missing = missing
        self.seconds = seconds


def _default_session_factory(identity: Identity, roster: TableRoster, config: TableConfig) -> TableSession:
    return TableSession(identity, roster.keys, roster.table_id, config, roster_names=roster.names)


ConfigCodec = tuple[Callable[[TableRoster, Any], bytes], Callable[[TableRoster, bytes], Any]]
"""(encode, decode) of the creator's table options frame, each given the roster."""


@dataclass(frozen=True)
class DriverOptions:
    """How :func:`run_table` runs a table: every field but the player and the transcript
    path, each with its default (what each means: :func:`run_table`)."""

    listeners: Sequence[trio.SocketListener] | None = None
    on_event: Callable[[Any, Any], None] | None = None
    session_factory: Callable[[Identity, TableRoster, TableConfig], TableSession] | None = None
    mesh_options: dict[str, Any] | None = None
    connect_timeout: float = 60.0
    linger: float = 1.5
    config_codec: ConfigCodec | None = None
    stall_after: float = 3.0
    on_mesh: Callable[[Transport], None] | None = None
    transport: Transport | None = None
    step_in_thread: bool = True
    resend: bool = True
    proof_pool: ProofPool | None = None
    store: TableStore | None = None
    resume: bool = False
    entropy: Entropy = system_entropy
    crash_point: Callable[[str, list[bytes]], Awaitable[None]] | None = None
    transport_running: bool = False
    early_frames: Sequence[tuple[bytes, bytes]] = ()
    session_calls: SessionCalls | None = None


class SessionCalls:
    """Calls on a table's session from outside its driver, run by the driver's loop (the one
    task that touches the session) as soon as it wakes: a tournament's member tells its table
    that the round's board is revealed (``calls.call(lambda session: session.deal_ready())``)."""

    def __init__(self) -> None:
        self._pending: list[Callable[[TableSession], None]] = []
        self._wake: Callable[[], None] | None = None

    def call(self, function: Callable[[TableSession], None]) -> None:
        self._pending.append(function)
        if self._wake is not None:
            self._wake()

    @property
    def waiting(self) -> bool:
        return bool(self._pending)

    def take(self) -> list[Callable[[TableSession], None]]:
        taken, self._pending = self._pending, []
        return taken


async def run_table(
    identity: Identity,
    roster: TableRoster,
    config: Any,
    options: DriverOptions | None = None,
    *,
    player: Player,
    transcript_path: Path | None,
    **keywords: Any,
) -> TableResult:
    """Play the whole match of ``roster`` as ``identity``; return when it is over.

    ``options``: a :class:`DriverOptions`; ``keywords`` set its fields too (over ``options``:
    ``run_table(..., DriverOptions(transport=t), step_in_thread=False)``), as the callers
    that name them one by one do. A keyword that is no field raises ``TypeError``.

    ``on_event(event, session)`` is called for every session event (after its
    record, if any, is on disk) and for the driver's :class:`Waiting` /
    :class:`Connected`.

    With ``config_codec`` (encode, decode; each given the roster) the table's creator
    (the roster's first member) sends its ``config`` to the joiners as the first frame
    on the mesh, the bytes of the table's transcript header, and
    the joiners (whose ``config`` is ignored) use it: the table options are the
    creator's choice. The session's genesis signatures then bind every peer to
    the same config. Raises :class:`PeersUnreachable` (a ``trio.TooSlowError``) if the
    mesh does not connect within ``connect_timeout`` seconds (no transcript file is left).

    ``stall_after``: seconds without progress before the sent envelopes are re-sent
    (module docstring, "Transport reliability"); ``resend=False`` never re-sends.
    ``on_mesh(transport)`` is called with the transport before it runs.

    ``transport``: the table's :class:`~p2p_sasaki.protocol.net.transport.Transport`, not
    yet running (the driver runs and closes it); by default a TCP
    :class:`~p2p_sasaki.protocol.net.mesh.Mesh` on ``listeners`` with ``mesh_options``.
    ``step_in_thread=False`` runs the session's crypto steps on the trio thread (tests
    in virtual time). ``proof_pool``: worker processes (protocol/net/workers.py) that run
    the hand's queued proof jobs side by side, on every core, instead of one at a time.

    ``store``: the table's :class:`~p2p_sasaki.protocol.net.persist.TableStore`; the
    session then draws from a :class:`~p2p_sasaki.protocol.restore.RecordingEntropy` over
    ``entropy``, and before anything goes out, the newly drawn entropy and my new envelopes
    are saved (module docstring, "What is persisted"). ``resume=True`` rebuilds the session
    from the store and the transcript at ``transcript_path`` instead of starting one
    (``config`` and ``config_codec``'s agreement are then not used: the saved header is
    the config), re-sends my saved envelopes to every peer and goes on.
    ``crash_point(name, mine)`` (tests) is called whenever I signed envelopes (``mine``)
    at "saved" (saved, not yet recorded nor sent) and at "sent" (just broadcast), and
    after each record written, at "recorded" (with that record), each followed by a
    checkpoint, so a test can cancel the peer exactly there.

    ``transport_running=True``: ``transport`` is already running and stays so (the
    caller closes it): a follow-on table (protocol/followon.py) plays over the same links.
    ``early_frames``: (peer, frame) that arrived for this table before it started.
    """
    run = dataclasses.replace(options or DriverOptions(), **keywords)
    listeners, on_event, session_factory = run.listeners, run.on_event, run.session_factory
    mesh_options, connect_timeout, linger = run.mesh_options, run.connect_timeout, run.linger
    config_codec, stall_after, on_mesh = run.config_codec, run.stall_after, run.on_mesh
    transport, step_in_thread, resend = run.transport, run.step_in_thread, run.resend
    proof_pool, store, resume, entropy = run.proof_pool, run.store, run.resume, run.entropy
    crash_point, transport_running, early_frames = run.crash_point, run.transport_running, run.early_frames
    session_calls = run.session_calls
    notify = on_event or (lambda event, session: None)
    if resume and (store is None or transcript_path is None):
        raise ValueError("a resume needs the table's store and its transcript path")
    restored = None
    reopen = resume
    if resume:
        assert store is not None and transcript_path is not None
        saved = store.load()
        records = saved.transcript_records()
        if records:
            restored = restore_session(identity, records, saved.entropy, saved.sent, fresh=entropy)
            config = restored.session.config
        # else: stopped before the table options were agreed; nothing was signed: start afresh
    writer = TranscriptWriter(transcript_path, reopen=reopen) if transcript_path is not None else None
    result = TableResult(finished=False, totals=(), transcript=transcript_path)
    start: Callable[..., Awaitable[None]]
    if transport is None:
        mesh = Mesh(identity, roster, **(mesh_options or {}))
        transport, start = mesh, functools.partial(mesh.run, listeners)
    else:
        start = transport.run
    if transport_running:
        async def started(*, task_status: trio.TaskStatus[Any] = trio.TASK_STATUS_IGNORED) -> None:
            task_status.started()
        start = started
    if on_mesh is not None:
        on_mesh(transport)
    log = SentLog()
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(start)
            with trio.move_on_after(connect_timeout) as connecting:
                await transport.wait_connected()
            # A resumed table goes on with the members it reaches: one may have left for good
            # (the stall deadline's choices then apply to it, "Abandon and leaving" above).
            gone_for_good = resume and restored is not None and any(transport.is_connected(k)
                                                                    for k in transport.peers)
            if connecting.cancelled_caught and not gone_for_good:
                if store is not None and not resume:
                    store.mark_finished()   # nothing was signed: a new table, not a resume, comes next
                raise PeersUnreachable(tuple(m for m in roster.members if m.key != identity.public_key
                                             and not transport.is_connected(m.key)), connect_timeout)
            notify(Connected(), None)
            early: list[tuple[bytes, bytes]] = list(early_frames)
            recording: RecordingEntropy | None = None
            if restored is not None:
                assert store is not None
                session = restored.session
                recording = restored.entropy
                for frame in store.load().sent:
                    log.add(frame)
                if config_codec is not None and identity.public_key == roster.members[0].key:
                    log.pinned.append(config_codec[0](roster, config))   # a joiner may still wait for it
            else:
                if config_codec is not None:
                    config = await _agree_config(transport, roster, identity, config, config_codec, early, log)
                notify(OptionsAgreed(config, tuple(m.name or default_name(m.key) for m in roster.members)), None)
                if store is not None:
                    recording = RecordingEntropy(b"", entropy)
                    session = TableSession(identity, roster.keys, roster.table_id, config, recording,
                                           roster_names=roster.names)
                    store.save_header(session.header.encode())
                else:
                    session = (session_factory or _default_session_factory)(identity, roster, config)
            result.config = config
            result.totals = tuple(session.totals)
            driver = _Driver(session, transport, player, writer, notify, result, log, stall_after,
                             step_in_thread=step_in_thread, resend=resend, proof_pool=proof_pool,
                             pace=getattr(config, "pace", NO_PACE), store=store, entropy=recording,
                             crash_point=crash_point)
            driver.inbox.extend(early)
            if session_calls is not None:
                driver.calls = session_calls
                session_calls._wake = driver._wake
            if restored is not None:
                await driver.resume(nursery, linger, restored)
            else:
                await driver.run(nursery, linger)
            if store is not None and session.finished:
                store.mark_finished()
            if session.finished and result.blame is None:
                result.final_hash = session.chain
            result.seat_keys = session.seat_keys
            result.mesh = transport.statistics()
            if not transport_running:
                transport.close()
            nursery.cancel_scope.cancel()
    finally:
        if writer is not None:
            result.records = writer.records
            writer.close()
    return result


async def _agree_config(mesh: Transport, roster: TableRoster, identity: Identity, config: Any, codec: ConfigCodec,
                        early: list[tuple[bytes, bytes]], log: SentLog) -> Any:
    """The creator sends the table options as the table's transcript header (its own
    bytes, no prefix: a header is not an envelope); the joiners take them from it."""
    encode, decode = codec
    creator = roster.members[0].key
    if identity.public_key == creator:
        frame = encode(roster, config)
        log.pinned.append(frame)  # re-sent like the envelopes: its first copy may be lost
        await mesh.broadcast(frame)
        return config
    for index, (peer, frame) in enumerate(early):   # a follow-on table's options may have come already
        if peer == creator:
            try:
                options = decode(roster, frame)
            except VersionMismatchError:
                raise
            except MessageError:
                continue
            del early[index]
            return options
    async for peer, frame in mesh.received:
        if peer == creator:
            try:
                return decode(roster, frame)
            except VersionMismatchError:
                raise
            except MessageError:
                pass  # an envelope: the creator's session is already talking
        # Another joiner's session is already talking, or the creator's first copy
        # of the options was lost in a broken link and its re-send is on the way.
        early.append((peer, frame))
    raise ValueError("the mesh closed before the table's creator sent the table options")


STALL_BACKOFF_MAX = 60.0
ANSWER_GRACE = 2.0   # seconds past a person's answer deadline before a present seat is called silent
QUIET_AFTER_RESENDS = 0.2   # a resume: no new frame for this long after every peer's first ones


class _Driver:
    def __init__(self, session: TableSession, transport: Transport, player: Player, writer: TranscriptWriter | None,
                 notify: Callable[[Any, Any], None], result: TableResult, log: SentLog | None = None,
                 stall_after: float = 3.0, *, step_in_thread: bool = True, resend: bool = True,
                 proof_pool: ProofPool | None = None, pace: Pace = NO_PACE,
                 store: TableStore | None = None, entropy: RecordingEntropy | None = None,
                 crash_point: Callable[[str, list[bytes]], Awaitable[None]] | None = None) -> None:
        self.session = session
        self.calls: SessionCalls | None = None   # DriverOptions.session_calls
        self.transport = transport
        self.player = player
        self.writer = writer
        self.notify = notify
        self.result = result
        self.log = log if log is not None else SentLog()
        self.stall_after = stall_after
        self.step_in_thread = step_in_thread
        self.proof_pool = proof_pool
        self.resend = resend
        self.inbox: list[tuple[bytes, bytes]] = []
        self.answers: list[tuple[object, Any]] = []
        self.wake = trio.Event()
        self.asking: tuple[object, trio.CancelScope] | None = None
        self.waiting: tuple[Any, ...] = ((), (), False, ())
        self.links: tuple[int, ...] = ()           # the members reported without a live link (Links)
        self.wait_key: tuple[Any, ...] = ()
        self.wait_since = trio.current_time()
        self.wait_opened = float("-inf")           # my own frames still held when the wait began go out then
        self.stall_asked = False
        self.kept_waiting = False                  # my player chose "keep waiting" (or could not abandon)
        self.choosing: trio.CancelScope | None = None
        self.choices: list[tuple[Any, str]] = []
        self.leaving: PlayerLeft | None = None
        self.reconnected: set[bytes] = set()
        self.last_progress = trio.current_time()
        self.stall_wait = stall_after
        self.pacer = Pacer(pace)
        self.person = not getattr(player, "is_bot", False)
        self.opened: dict[object, tuple[float, float]] = {}   # decision key -> (opened, due)
        self.closing: tuple[object, float, Any] | None = None  # a person's window: (key, due, its decline)
        self.due: dict[tuple[int, int], float] = {}  # (hand, slot) I answered -> when my envelope may go out
        self.mark = trio.current_time()    # before the session call being handled (see _entered)
        self.entered: tuple[tuple[int, int], float] = ((-1, -1), self.mark)   # the session's slot, since when
        self.mine: set[bytes] = set()      # my signed envelopes saved, not yet sent (the Pacer may hold them)
        self.store = store
        self.entropy = entropy
        self.on_disk: deque[bytes] = deque()
        self.crash_point = crash_point
        self.reading = False

    def _wake(self) -> None:
        self.wake.set()

    async def _crash_point(self, name: str, mine: list[bytes]) -> None:
        if self.crash_point is not None:
            await self.crash_point(name, mine)
            await trio.lowlevel.checkpoint()

    async def _read(self) -> None:
        async for peer, frame in self.transport.received:
            if is_follow_on(frame):
                self.result.follow_on.append((peer, frame))   # not for this table: for the caller
                continue
            self.inbox.append((peer, frame))
            self._wake()

    async def _watch(self, key: bytes) -> None:
        """Note every reconnection of ``key`` (the main loop re-sends the log to it)."""
        while True:
            await self.transport.wait_disconnected(key)
            self._wake()   # the UI's "offline" marker
            await self.transport.wait_connected([key])
            self.reconnected.add(key)
            self._wake()

    # -- re-sending (module docstring, "Transport reliability") -----------------------

    def _resend(self, keys: Iterable[bytes]) -> None:
        if not self.resend:
            return
        frames = self.log.frames()
        for key in keys:
            for frame in frames:
                try:
                    self.transport.send_nowait(key, frame)
                except trio.WouldBlock:
                    break
                self.result.resent += 1

    def _progress(self) -> None:
        self.last_progress = trio.current_time()
        self.stall_wait = self.stall_after

    def _resend_due(self) -> None:
        """Re-send to reconnected peers now, and to every idle peer after a stall."""
        if self.reconnected:
            keys, self.reconnected = self.reconnected, set()
            self._resend(k for k in keys if self.transport.is_connected(k))
        # The same float as the loop's deadline: "now - last >= wait" can be false at the very
        # instant move_on_at(last + wait) fires, and the loop would spin (a mock clock stays there).
        if trio.current_time() >= self._stall_deadline():
            peers = self.transport.statistics().peers
            self._resend(k for k, p in peers.items() if p.connected and not p.queued)
            self.last_progress = trio.current_time()
            self.stall_wait = min(self.stall_wait * 2, STALL_BACKOFF_MAX)

    def _stall_deadline(self) -> float:
        return self.last_progress + self.stall_wait

    # -- the session ---------------------------------------------------------------------

    async def _flush(self) -> None:
        """Events first (records to disk, in order), then our outgoing messages."""
        session = self.session
        events = session.take_events()
        signed = session.take_signed()
        outgoing = session.take_outgoing()
        mine = [s.envelope for s in signed]
        self.mine.update(mine)
        if self.store is not None:   # before anything else: what I signed, and its randomness
            drawn = self.entropy.take_drawn() if self.entropy is not None else b""
            self.store.save(drawn, mine)
        if mine:
            await self._crash_point("saved", mine)
        for event in events:
            match event:
                case Record(data=data):
                    if self.on_disk:   # resumed: already in the file (protocol/restore.py)
                        if self.on_disk.popleft() != data:
                            raise RuntimeError("the resumed session's records differ from the saved transcript")
                    elif self.writer is not None:
                        self.writer.append(data)
                        await self._crash_point("recorded", [data])
                case HandEnded():
                    self.result.hands.append(event)
                case HandAbandoned():
                    self.result.abandoned.append(event)
                case Blame():
                    self.result.blame = event
            self.notify(event, session)
        now = trio.current_time()
        self._entered()
        due = {s.envelope: self._due_of(s, now) for s in signed}
        for frame in outgoing:   # saved above; the Pacer may hold a frame of mine, never re-signs it
            if frame in due:
                self.pacer.hold(frame, due[frame])   # mine: in signing order, none before its due time
            else:
                self.pacer.relay(frame)              # another seat's, relayed: at once
        await self._release()
        if events or outgoing:
            self._progress()
        self._report_waiting()

    def _entered(self) -> None:
        """Note when the session entered its current slot: the time before the session call
        that moved it there (``mark``), so the work that call did (an opening's proof, the
        records' fsync) is not counted in a decision's open time."""
        where = (self.session.hand_no, self.session.slot)
        if where != self.entered[0]:
            self.entered = (where, self.mark)

    def _opened_at(self, hand: int, slot: int, now: float) -> float:
        """When the decision of (hand, slot) opened for the shot clock: when my session entered
        that slot, and never before my own frames still held go out (the others enter it only
        once they have them)."""
        since = self.entered[1] if self.entered[0] == (hand, slot) else now
        return max(since, self.pacer.last_held())

    def _due_of(self, signed: Signed, now: float) -> float:
        """When one envelope I just signed may go out. An answer to a decision of mine is due
        at its open time + the kind's delay (``due``, set when my player answered); the opening
        slot's answer (``lead`` or ``decline``), which the session signs by itself as it enters
        that slot, likewise. Everything else (deck messages, key reveals, abandons, leave
        notices) is due now, behind my held frames."""
        due = self.due.pop((signed.hand, signed.slot), None)
        if due is not None:
            return due
        if signed.kind is SignedKind.OPENING:
            delay = self.pacer.pace.delay(OPENING_PACE)
            at = self._opened_at(signed.hand, signed.slot, now)
            self.notify(WindowOpened(signed.hand, signed.slot, OPENING_PACE, at, delay), self.session)
            return at + delay
        return now

    async def _release(self) -> None:
        """Send the Pacer's due frames (each saved in :meth:`_flush` when it was signed)."""
        frames = self.pacer.take_due(trio.current_time())
        for frame in frames:
            self.log.add(frame)
            await self.transport.broadcast(frame)
        mine = [f for f in frames if f in self.mine]
        self.mine.difference_update(mine)
        if mine:
            await self._crash_point("sent", mine)

    def _report_waiting(self) -> None:
        session = self.session
        waiting = tuple(s for s in session.waiting_for if s != session.my_seat)
        members = session.seat_keys if session.hand_no >= 1 and session.seat_keys else session.roster_keys
        keys = tuple(members[s] for s in waiting)
        offline = tuple(s for s, k in zip(waiting, keys, strict=False) if not self.transport.is_connected(k))
        peers = self.transport.peers
        alone = bool(peers) and not any(self.transport.is_connected(k) for k in peers)
        wait_key = (session.hand_no, session.slot, waiting)
        if wait_key != self.wait_key:     # a new wait: its clock starts now, its choices are asked anew
            self.wait_key, self.wait_since, self.stall_asked = wait_key, trio.current_time(), False
            self.wait_opened = self.pacer.last_held()   # the awaited seats enter the slot only then
            self.kept_waiting = False
            if self.choosing is not None:
                self.choosing.cancel()
                self.choosing = None
        down = tuple(s for s, k in enumerate(members) if k in peers and not self.transport.is_connected(k))
        if down != self.links:
            self.links = down
            self.notify(Links(down, tuple(members[s] for s in down)), session)
        left = tuple(s for s in waiting if s in session.left)
        if (waiting, offline, alone, left) != self.waiting:
            was_alone = bool(self.waiting[2])
            self.waiting = (waiting, offline, alone, left)
            if waiting or alone or was_alone:     # back online while nobody is awaited: told too
                self.notify(Waiting(waiting, keys, offline, alone, self.wait_since,
                                    self.wait_since + self.pacer.pace.stall_deadline, left), session)

    # -- the stall deadline's choices (module docstring, "Abandon and leaving") ---------

    def _stall_due(self) -> float:
        """When the choices are due for the current wait (inf: not waiting, or asked)."""
        session = self.session
        waiting = self.wait_key[2] if self.wait_key else ()
        if self.stall_asked or not waiting or session.finished or session.hand_no < 1:
            return float("inf")
        present = [s for s in waiting if s not in session.left]
        if not present and not self.kept_waiting:
            return float("-inf")          # every seat we wait for left: no need to wait for the deadline
        pace = self.pacer.pace
        if present:   # never before a present seat's answer deadline is surely over, counted from
            # when it could enter the slot (my own answer that completed the previous one held
            # by the shot clock until then)
            opened = max(self.wait_since, self.wait_opened)
            return max(self.wait_since + pace.stall_deadline, opened + pace.answer_deadline + ANSWER_GRACE)
        return self.wait_since + pace.stall_deadline

    def _maybe_choose(self, nursery: trio.Nursery) -> None:
        if trio.current_time() < self._stall_due():
            return
        session = self.session
        hand, slot, waiting = self.wait_key
        self.stall_asked = True
        before = {s for event in self.result.abandoned if event.hand < hand for s in event.left}
        stall = Stalled(hand, slot, waiting, self.wait_since, tuple(s for s in waiting if s in session.left),
                        tuple(s for s in waiting if s in before),
                        len(waiting) == 1 and not session.game.match_over(hand, session.config.hands, session.totals))
        self.notify(stall, session)
        scope = trio.CancelScope()
        self.choosing = scope
        nursery.start_soon(self._choose, self.wait_key, stall, scope)

    async def _choose(self, key: Any, stall: Stalled, scope: trio.CancelScope) -> None:
        with scope:
            chooser = getattr(self.player, "stalled", None)
            try:
                choice = await chooser(stall) if chooser is not None else bot_stall_choice(stall)
            except BaseException as error:
                left = player_left(error)
                if left is None:
                    raise
                self.leaving = left        # quit at the stall question: as at a decision
                self._wake()
                return
            self.choices.append((key, choice))
            self._wake()

    def _take_choices(self) -> bool:
        """Act on the choices made for the current wait. Returns True if one was acted on."""
        choices, self.choices = self.choices, []
        acted = False
        for key, choice in choices:
            if key != self.wait_key:
                continue                   # the wait is over (the seat answered)
            self.choosing = None
            if choice == WAIT:
                self.wait_since, self.stall_asked, self.kept_waiting = trio.current_time(), False, True
            elif choice in (ABANDON, END, BOT):
                self.result.choice = choice
                if self.session.abandon(end=choice != ABANDON):
                    acted = True
                    continue
                reason = self.session.why_no_abandon()
                if reason is not None and not self.session.finished:
                    hand, slot, waiting = self.wait_key
                    self.notify(CannotAbandon(hand, slot, waiting, reason), self.session)
                    self.wait_since, self.stall_asked, self.kept_waiting = trio.current_time(), False, True
        return acted

    async def _leave(self) -> None:
        """My player quit: sign and send a leave notice, give it a moment to go out."""
        self.result.left = bool(self.session.leave())
        await self._flush()
        with trio.move_on_after(2):
            while self.transport.statistics().sending:
                await trio.sleep(0.05)

    async def _step(self) -> bool:
        """The session's slow crypto (module docstring, point 2): with a proof pool, every
        queued job at once in the workers; else one piece at a time."""
        if self.proof_pool is not None:
            jobs = self.session.take_jobs()
            if jobs:   # the session is not touched until the results are back
                results = await trio.to_thread.run_sync(self.proof_pool.map, jobs, abandon_on_cancel=True)
                for job, outcome in zip(jobs, results, strict=True):
                    self.session.finish_job(job, outcome)
                return True
        if self.step_in_thread:
            return bool(await trio.to_thread.run_sync(self.session.step))
        await trio.lowlevel.checkpoint()
        return bool(self.session.step())

    def _decision_key(self) -> object:
        session = self.session
        return (session.hand_no, session.slot, session.pending_for_me)

    async def _ask(self, key: object, turn: Turn, scope: trio.CancelScope) -> None:
        with scope:
            try:
                # an open bot's seat answers by the open bot's rule, which every peer checks
                action = turn.rule if turn.rule is not None else await self.player.decide(turn)
            except BaseException as error:
                left = player_left(error)
                if left is None:
                    raise
                self.leaving = left        # the loop sends the leave notice, then ends the table
                self._wake()
                return
            self.answers.append((key, action))
            self._wake()

    def _maybe_ask(self, nursery: trio.Nursery) -> None:
        session = self.session
        pending = session.pending_for_me
        if pending is None or session.my_seat is None:   # (a seat is pending only once seated)
            if self.asking is not None:
                self.asking[1].cancel()
                self.asking = None
            return
        key = self._decision_key()
        if self.asking is not None:
            if self.asking[0] == key:
                return
            self.asking[1].cancel()
        now = self._opened_at(session.hand_no, session.slot, trio.current_time())
        kind = session.game.pace_kind(pending)
        slot = session.pending_slot
        delay = self.pacer.pace.delay(kind)
        self.opened = {key: (now, now + delay)}
        self.closing = None
        window = slot is not None and slot.kind is SlotKind.WINDOW
        declining = getattr(session.game, "decline", None) if window else None
        decline = declining(tuple(session.legal_actions)) if declining is not None else None
        if self.person and delay > 0 and decline is not None:
            self.closing = (key, now + delay, decline)   # W is a person's deadline: undecided then, declined
        self.notify(WindowOpened(session.hand_no, session.slot, kind, now, delay), session)
        turn = Turn(session.my_seat, pending, session.view, tuple(session.legal_actions), now, delay,
                    self.pacer.pace.answer_deadline, session.rule_answer)
        scope = trio.CancelScope()
        self.asking = (key, scope)
        nursery.start_soon(self._ask, key, turn, scope)

    def _close_window(self) -> bool:
        """A person's window at its due time with no answer given: declined (W is the person's
        deadline, so the decline goes out at open + W like any answer; a claim cannot be late).
        Returns True if it acted."""
        if self.closing is None:
            return False
        key, due, decline = self.closing
        if key != self._decision_key():
            self.closing = None            # answered (or the decision went away)
            return False
        if trio.current_time() < due:
            return False
        self.closing = None
        if self.asking is not None and self.asking[0] == key:
            self.asking[1].cancel()
            self.asking = None
        self.answers = [(k, a) for k, a in self.answers if k != key]   # a claim after W is too late
        self.due[(self.session.hand_no, self.session.slot)] = due
        self.session.act(decline)
        return True

    async def resume(self, nursery: trio.Nursery, linger: float, restored: Any) -> None:
        """Go on from a restored session (protocol/restore.py): write the records its replay
        completed beyond the saved transcript, save and send what it newly signed, tell the
        UI where the hand stands, and send my saved envelopes to every peer."""
        session = self.session
        self.reading = True
        nursery.start_soon(self._read)
        await self._check_resends(restored)
        if self.writer is not None and self.writer.records == 0:   # crashed before the first record
            self.writer.append(encode_record(KIND_HEADER, session.header.encode()))
        self.on_disk.extend(restored.on_disk)
        for data in restored.records:
            if self.writer is not None:
                self.writer.append(data)
        if self.store is not None:
            drawn = self.entropy.take_drawn() if self.entropy is not None else b""
            self.store.save(drawn, restored.outgoing)
        for event in restored.events:
            self.notify(event, session)
        self._resend(self.transport.peers)   # my saved envelopes: a peer may have missed them
        for frame in restored.outgoing:
            self.log.add(frame)
            await self.transport.broadcast(frame)
        await self.run(nursery, linger, started=True)

    async def _check_resends(self, restored: Any) -> None:
        """Sign and send nothing until the others' re-sends are in: each connected peer's
        first frames, then a quiet moment (at most one stall deadline in all). An authentic
        envelope of mine among them that my saved state does not hold means that state is
        older than what I sent: stop (:class:`StaleSavedTable`), never sending evidence
        against myself (docs/reliability.md, "A resume never accuses itself")."""
        heard: set[bytes] = set()
        seen = 0
        with trio.move_on_after(self.stall_after):
            while True:
                heard.update(peer for peer, _ in self.inbox)
                connected = [k for k in self.transport.peers if self.transport.is_connected(k)]
                if connected and all(k in heard for k in connected) and len(self.inbox) == seen:
                    break
                seen = len(self.inbox)
                self.wake = trio.Event()
                with trio.move_on_after(QUIET_AFTER_RESENDS):
                    await self.wake.wait()
        saved = set(self.log.frames()) | set(restored.outgoing)
        identity = self.session.identity
        if identity is None:   # an observer signs nothing
            return
        key = identity.public_key
        for _, frame in self.inbox:
            if frame in saved:
                continue
            try:
                message = decode_envelope(frame)
            except MessageError:
                continue
            body = message.body
            me = self.session.my_index if body.hand == 0 else self.session.my_seat
            if body.sender == me and verify_envelope(message, key):
                raise StaleSavedTable()

    async def run(self, nursery: trio.Nursery, linger: float, *, started: bool = False) -> None:
        session = self.session
        if not self.reading:
            nursery.start_soon(self._read)
        for peer_key in self.transport.peers:
            nursery.start_soon(self._watch, peer_key)
        self._progress()
        async with trio.open_nursery() as players:
            if not started:
                session.start()
            await self._flush()
            while not session.finished:
                progressed = False
                self.mark = trio.current_time()
                inbox, self.inbox = self.inbox, []
                for peer, frame in inbox:
                    session.receive(frame, peer)
                    progressed = True
                if self.calls is not None:
                    for function in self.calls.take():
                        function(session)
                        progressed = True
                if self.leaving is not None:
                    await self._leave()
                    raise self.leaving
                if self._take_choices():
                    progressed = True
                answers, self.answers = self.answers, []
                for key, action in answers:
                    if self.asking is not None and self.asking[0] == key:
                        self.asking = None
                    if key != self._decision_key():
                        continue                   # the decision went away (the table stopped)
                    # Signed and saved now, its envelope held by the Pacer until the decision's due
                    # time: the signing's cost (a play's openings) is not seen in when it goes out.
                    self.due[(session.hand_no, session.slot)] = self.opened.get(key, (0.0, float("-inf")))[1]
                    session.act(action)  # IllegalActionError: a bug of the player; let it surface
                    progressed = True
                if self._close_window():
                    progressed = True
                await self._flush()
                if session.finished:
                    break
                self._maybe_ask(players)
                self._maybe_choose(players)
                self.mark = trio.current_time()
                if await self._step():
                    self._progress()   # our own proof work: not a stall
                    await self._flush()
                    continue
                self._resend_due()
                # a choice or a quit made while this loop ran (its task set the old wake event)
                if (progressed or self.inbox or self.answers or self.choices or self.leaving is not None
                        or (self.calls is not None and self.calls.waiting)):
                    continue
                self.wake = trio.Event()
                closes = self.closing[1] if self.closing is not None else float("inf")
                with trio.move_on_at(min(self._stall_deadline(), self.pacer.next_due(), self._stall_due(), closes)):
                    await self.wake.wait()
                await self._release()
            if self.asking is not None:
                self.asking[1].cancel()
            if self.choosing is not None:
                self.choosing.cancel()
        while self.pacer.queue:                     # our paced frames still go out on time
            await trio.sleep_until(self.pacer.next_due())
            await self._release()
        self.result.finished = session.finished and self.result.blame is None
        self.result.totals = tuple(session.totals)
        # Let the others receive our last messages, and answer any late request; a peer
        # that reconnects meanwhile gets our log again (its last messages may have been lost).
        with trio.move_on_after(10):
            while self.transport.statistics().sending:
                self._resend_due()
                await trio.sleep(0.05)
        with trio.move_on_after(linger):
            while True:
                self.wake = trio.Event()   # set by a frame, a disconnection or a reconnection from here on
                if not any(self.transport.is_connected(k) for k in self.transport.peers):
                    break
                inbox, self.inbox = self.inbox, []
                for peer, frame in inbox:
                    session.receive(frame, peer)
                await self._flush()
                self._resend_due()
                with trio.move_on_at(min(self._stall_deadline(), self.pacer.next_due())):
                    await self.wake.wait()
