"""Joining a table with a one-time table code (SPAKE2), by mDNS or by address.

The creator of a table shows a code such as ``7-purple-sausage``: a nameplate
(which table, also advertised over mDNS) and two words from a list of 256 (16
secret bits). Each joiner connects over TCP to the creator and both run the join
handshake, whose protocol lives in :mod:`p2p_sasaki.protocol.handshake`
(``JoinCreator``, ``JoinJoiner``; docs/protocol.md, "Network"); this module only
moves its frames, keeps the creator's count of seats and wrong codes, and maps
refusals to errors::

    creator -> joiner   JoinGreeting(version, nameplate, table_id)      in clear
    joiner  -> creator  PakeMessage(A)
    creator -> joiner   PakeMessage(B)
    joiner  -> creator  Sealed(JoinIdentity(key_J, host, port, nonce, name, sig_J))  key confirmation
    creator -> joiner   Sealed(JoinIdentity(key_C, host, port, nonce, name, sig_C))  key confirmation
    ... the joiner waits while the table fills ...
    creator -> joiner   Sealed(TableRoster(table_id, members))

"Sealed" is ChaCha20-Poly1305 under a key derived (HKDF) from the SPAKE2 key,
one key per direction. The joiner seals first: a creator that cannot open it
knows the code was wrong, says so (``Refusal("wrong-code")``) and reveals
nothing. Each signature binds the signer's Ed25519 identity key to this SPAKE2
run (the greeting, with the version and table id, and both SPAKE2 messages), so the
keys learnt are the keys of the person who typed, or showed, the code.

**One code per table.** The design says "a one-time table code, burnt after use
or after three failures". Here one code admits the joiners of one table, and is
burnt when the table is full (the creator stops listening) or after three wrong
codes in total, whichever comes first; after that the creator must start again
with a new code. A failure is a joiner whose key confirmation did not open (a
wrong code); a connection that drops before that proves nothing either way and
is not counted. An active attacker thus gets at most three guesses at 1 in
65 536 each.

When the table is full the creator sends every joiner the roster: each member's
identity key and mesh address, the creator first. Mesh addresses left empty
(the usual case) are filled with the address the creator saw the connection
come from, so nobody needs to know their own LAN address.
"""

from __future__ import annotations

import functools
import logging
import random
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import trio

from p2p_sasaki.protocol.handshake import (
    BURNT_SENTENCE,
    Admit,
    CodeConfirmed,
    CreatorConfirmed,
    JoinAdmissions,
    JoinCreator,
    JoinJoiner,
    Refuse,
    RosterReceived,
    Step,
    WrongCode,
)
from p2p_sasaki.protocol.net.discovery import Interfaces, TableAd, browse_tables
from p2p_sasaki.protocol.net.framing import FramedStream
from p2p_sasaki.protocol.net.handshake import (
    HandshakeError,
    RefusedError,
    RefusingError,
    drive,
    refuse,
    run_step,
    wait_first_frame,
)
from p2p_sasaki.protocol.net.identity import PROTOCOL_VERSION, Identity, TableMember, TableRoster
from p2p_sasaki.protocol.net.pool import ConnectionPool
from p2p_sasaki.protocol.net.words import WORDS

log = logging.getLogger(__name__)

JOIN_FRAME_LIMIT = 64 * 1024


# -- table codes ---------------------------------------------------------------


class InvalidCodeError(ValueError):
    """Text that is not a table code."""


@dataclass(frozen=True)
class TableCode:
    """A table code: nameplate plus two words, e.g. ``TableCode.parse("7-purple-sausage")``.

    >>> code = TableCode.parse(" 7 Purple sausage ")
    >>> code
    TableCode(nameplate='7', words=('purple', 'sausage'))
    >>> str(code)
    '7-purple-sausage'
    """

    nameplate: str
    words: tuple[str, str]

    def __post_init__(self) -> None:
        if not (self.nameplate.isdigit() and self.nameplate.isascii() and 1 <= len(self.nameplate) <= 3):
            raise InvalidCodeError(f"{self.nameplate!r} is not a nameplate: a table code starts with 1 to 3 digits")
        for word in self.words:
            if word not in _WORD_SET:
                raise InvalidCodeError(f"{word!r} is not one of the table-code words; check the spelling")

    @classmethod
    def generate(cls, rng: random.Random | None = None, nameplate: str | None = None) -> TableCode:
        """A fresh code from the OS CSPRNG (or ``rng`` in tests); nameplates are 1-99."""
        rng = rng or secrets.SystemRandom()
        if nameplate is None:
            nameplate = str(rng.randint(1, 99))
        return cls(nameplate, (rng.choice(WORDS), rng.choice(WORDS)))

    @classmethod
    def parse(cls, text: str) -> TableCode:
        parts = text.strip().lower().replace(" ", "-").split("-")
        parts = [part for part in parts if part]
        if len(parts) != 3:
            raise InvalidCodeError(f"{text.strip()!r} is not a table code like 7-purple-sausage")
        return cls(parts[0], (parts[1], parts[2]))

    def __str__(self) -> str:
        return "-".join((self.nameplate, *self.words))

    @property
    def password(self) -> bytes:
        """The SPAKE2 password: the whole code, nameplate included."""
        return str(self).encode()


_WORD_SET = frozenset(WORDS)


# -- errors and events -----------------------------------------------------------


class JoinError(HandshakeError):
    """Joining failed; the message is one sentence for the person joining."""


class WrongCodeError(JoinError):
    """The creator could not open our key confirmation: the code is wrong."""


class TableClosedError(JoinError):
    """The table is full, or its code was burnt."""


class TableNotFoundError(JoinError):
    """No table with the code's nameplate was found by mDNS."""


class TableFullError(TableClosedError):
    """mDNS says the table is full or its match has started: the code is not tried."""


class AmbiguousTableError(JoinError):
    """Several tables advertise the code's number: the joiner must say whose (by the
    creator's name), never try the code on each. ``tables``: the candidates."""

    def __init__(self, message: str, tables: Sequence[TableAd]) -> None:
        super().__init__(message)
        self.tables = tuple(tables)


def creator_label(ad: TableAd) -> str:
    """How a joiner is shown a table's creator: its name, "(no name)", and "(full)"."""
    return (ad.creator or "(no name)") + (" (full)" if ad.full else "")


def pick_table(ads: Sequence[TableAd], nameplate: str, creator: str | None = None) -> TableAd:
    """The one table of ``ads`` (mDNS hints) to try the code on: the only one advertising
    ``nameplate`` in this protocol version, or the only one of those whose creator is
    called ``creator``. Several candidates raise :class:`AmbiguousTableError` (the code is
    never tried on two tables: a wrong table would count a guess); none,
    :class:`TableNotFoundError`; a full or started one, :class:`TableFullError`.

    >>> pick_table([], "19")
    Traceback (most recent call last):
    ...
    p2p_sasaki.protocol.net.join.TableNotFoundError: no table 19 is on the local network
    """
    same = [ad for ad in ads if ad.nameplate == nameplate and ad.version == PROTOCOL_VERSION]
    if not same:
        raise TableNotFoundError(f"no table {nameplate} is on the local network")
    chosen = same if creator is None else [ad for ad in same if ad.creator == creator]
    if not chosen:
        others = ", ".join(creator_label(ad) for ad in same)
        raise TableNotFoundError(f"no table {nameplate} made by {creator} is on the local network "
                                 f"(table {nameplate} here is made by {others})")
    if len(chosen) > 1:
        whose = ", ".join(creator_label(ad) for ad in chosen)
        how = ("say whose with --creator NAME" if len({ad.creator for ad in chosen}) == len(chosen)
               else "ask its creator for the join address and use --address HOST:PORT")
        raise AmbiguousTableError(f"{len(chosen)} tables numbered {nameplate} are on the local network, "
                                  f"made by {whose}; {how}", chosen)
    if chosen[0].full:
        raise TableFullError(f"table {nameplate} is full")
    return chosen[0]


class CodeBurntError(JoinError):
    """(Creator side) too many wrong codes were tried; the table must start again."""


@dataclass(frozen=True)
class MemberJoined:
    member: TableMember
    seats_taken: int


@dataclass(frozen=True)
class MemberLeft:
    """A joiner disconnected before the table was full; its seat is free again."""

    member: TableMember
    seats_taken: int


@dataclass(frozen=True)
class WrongCodeTried:
    address: str
    failures: int
    max_failures: int

    def __str__(self) -> str:
        return f"someone at {self.address} tried a wrong code ({self.failures} of {self.max_failures} allowed)"


HostEvent = MemberJoined | MemberLeft | WrongCodeTried


# -- the creator's side -------------------------------------------------------------

MAX_JOIN_CONNECTIONS_PER_ADDRESS = 8
"""Join connections served at once from one address before the code is confirmed (a
machine running bot peers has 3)."""
MAX_JOIN_CONNECTIONS = 32
"""Join connections served at once in all before the code is confirmed (protocol/net/pool.py:
one more displaces an old one)."""
JOIN_FIRST_FRAME_TIMEOUT = 3.0
"""Seconds a joiner has for its first message after connecting: longer than a mesh dialer's
second, as it must compute its SPAKE2 message from the greeting first (tens of milliseconds
on a laptop, up to about one second measured on a heavily loaded test machine)."""


class _HostState(JoinAdmissions):
    """The admissions (protocol/handshake.py) plus what the concurrent connections share."""

    def __init__(self, table_id: bytes, creator: TableMember, seats: int, max_failures: int,
                 on_event: Callable[[HostEvent], None] | None,
                 fits: Callable[[tuple[TableMember, ...], int], str | None] | None = None) -> None:
        super().__init__(table_id, creator, seats, max_failures, fits)
        self.on_event = on_event or (lambda event: None)
        self.done = trio.Event()
        self.answered = 0  # admitted joiners sent the roster (or told the code is burnt)
        self.all_answered = trio.Event()
        self.lock = trio.Lock()  # one admission at a time
        self.waiting: list[trio.CancelScope] = []  # admitted joiners watching for a disconnect

    def close(self, kind: str) -> None:
        super().close(kind)
        self.done.set()
        if not self.joined:
            self.all_answered.set()
        for scope in self.waiting:
            scope.cancel()

    def answer(self) -> None:
        self.answered += 1
        if self.answered == len(self.joined):
            self.all_answered.set()


async def host_table(
    identity: Identity,
    code: TableCode,
    mesh_port: int,
    listeners: Sequence[trio.SocketListener],
    *,
    mesh_host: str = "",
    seats: int = 4,
    max_failures: int = 3,
    table_id: bytes | None = None,
    handshake_timeout: float = 10.0,
    first_frame_timeout: float = JOIN_FIRST_FRAME_TIMEOUT,
    on_event: Callable[[HostEvent], None] | None = None,
    nonce: bytes | None = None,
    name: str = "",
    fits: Callable[[tuple[TableMember, ...], int], str | None] | None = None,
    start: trio.Event | None = None,
    min_seats: int = 4,
) -> TableRoster:
    """Admit joiners who know ``code`` on ``listeners`` until the table has ``seats``
    (or, with ``start``, until ``start`` is set while at least ``min_seats`` members are in:
    a tournament, whose host says when it begins; ``seats`` is then the most it admits).

    Returns the roster (the creator first; its own host is ``mesh_host``, by
    default empty) once every joiner has been sent it. Raises
    :class:`CodeBurntError` after ``max_failures`` wrong codes. ``on_event`` is
    called with each :data:`HostEvent` (e.g. to update the mDNS seats hint).
    The listeners are closed on return: the code admits nobody any more. ``nonce``: this
    member's fresh 32 bytes for the table id (default: drawn here; tests pass a seeded one);
    ``name``: the creator's name ("": called by the key). ``fits``: the creator's seating
    rule for the members a joiner would make (protocol/handshake.py, ``JoinAdmissions``).
    """
    me = TableMember(identity.public_key, mesh_host, mesh_port, nonce or secrets.token_bytes(32), name)  # fresh nonce
    state = _HostState(table_id or secrets.token_bytes(32), me, seats, max_failures, on_event, fits)
    # Until its code is confirmed, a connection holds a slot of the waiting room's pool (docs/
    # reliability.md, "Hostile connections"): strangers can neither make the creator buffer a
    # 64 KiB frame on each of many sockets nor squat the room; a seated joiner's address is known.
    pool = ConnectionPool(MAX_JOIN_CONNECTIONS, MAX_JOIN_CONNECTIONS_PER_ADDRESS, first_frame=first_frame_timeout,
                          known=lambda address: any(member.host == address for member in state.joined))

    async def admit(stream: trio.SocketStream) -> None:
        await _admit_joiner(stream, identity, code, state, pool, handshake_timeout)

    async def start_when_told() -> None:
        assert start is not None
        while True:
            await start.wait()
            async with state.lock:   # between two admissions
                if state.closed is None and state.seats_taken >= min_seats:
                    state.close("table-full")
                    return
            await trio.sleep(0.1)    # too few yet: the caller's event stays set, look again soon

    async with trio.open_nursery() as handlers:
        async with trio.open_nursery() as accepting:
            accepting.start_soon(
                functools.partial(trio.serve_listeners, admit, list(listeners), handler_nursery=handlers)
            )
            if start is not None:
                accepting.start_soon(start_when_told)
            await state.done.wait()
            accepting.cancel_scope.cancel()  # stop listening: the code is burnt either way
        with trio.move_on_after(handshake_timeout):
            await state.all_answered.wait()
        # Joiners still in the middle of a handshake are told "table full" (or
        # "burnt") when they reach the admission step; give them a moment.
        handlers.cancel_scope.deadline = trio.current_time() + 1.0
    if state.closed != "table-full":
        raise CodeBurntError(
            f"{state.failures} wrong codes were tried, so the code {code} is burnt; start the table again"
        )
    return state.roster


async def _admit_joiner(stream: trio.SocketStream, identity: Identity, code: TableCode, state: _HostState,
                        pool: ConnectionPool, timeout: float) -> None:
    """One joiner's connection, from greeting to roster (trio closes the stream after)."""
    try:
        address = stream.socket.getpeername()[0]
    except OSError:
        return    # gone already
    framed = FramedStream(stream, f"the joiner at {address}", JOIN_FRAME_LIMIT)
    machine = JoinCreator(identity, state.creator, code.password, code.nameplate, state.table_id, peer=framed.peer)
    member: TableMember | None = None
    event: CodeConfirmed | WrongCode | None = None
    try:
        with trio.fail_after(timeout):
            closed = state.refusal_if_closed()
            if closed is not None:
                await refuse(framed, closed.reason, kind=closed.kind)
                return
            with pool.slot(address) as slot:   # until the code is confirmed (or found wrong)
                await run_step(framed, machine.start())     # the greeting
                await wait_first_frame(framed)
                slot.heard()
                event = await drive(framed, machine, Step(), until=(CodeConfirmed, WrongCode))
            if event is None:
                log.info("%s was closed: it %s", framed.peer, slot.closed.value if slot.closed else "failed")
                return
            async with state.lock:
                member = await _admission(framed, address, state, machine, event)
            if member is None:
                return
        # Until the table is full, notice a joiner who leaves and free its seat.
        with trio.CancelScope() as waiting:
            state.waiting.append(waiting)
            if state.done.is_set():
                waiting.cancel()
            while True:
                await framed.receive()
    except (HandshakeError, trio.TooSlowError, trio.EndOfChannel, trio.BrokenResourceError,
            trio.ClosedResourceError, OSError) as exc:
        if isinstance(exc, trio.TooSlowError):
            exc = HandshakeError(f"{framed.peer} did not finish joining within {timeout} s")
        log.info("%s", exc)
        if member is not None and state.leave(member):
            state.on_event(MemberLeft(member, state.seats_taken))
        return
    # The table is full (send the roster) or the code was burnt.
    try:
        with trio.fail_after(timeout):
            if state.closed == "table-full":
                await run_step(framed, machine.send_roster(state.roster))
            else:
                await run_step(framed, machine.refuse("code-burnt", BURNT_SENTENCE))
    except (HandshakeError, trio.TooSlowError) as exc:  # it left just now; the mesh will show it missing
        if not isinstance(exc, RefusingError):
            log.warning("could not send the roster to %s: %s", member, exc)
    finally:
        state.answer()


async def _admission(
    framed: FramedStream, address: str, state: _HostState, machine: JoinCreator, event: CodeConfirmed | WrongCode
) -> TableMember | None:
    """Seat the joiner whose code was right, or refuse it (returns None; raises RefusingError)."""
    was_closed = state.closed is not None
    decision = state.decide(event, address)
    if isinstance(event, WrongCode) and not was_closed:
        wrong = WrongCodeTried(address, state.failures, state.max_failures)
        log.info("%s", wrong)  # reported through on_event; a warning here printed it twice in `sasaki host`
        state.on_event(wrong)
    match decision:
        case Refuse(kind=kind, reason=reason):
            await run_step(framed, machine.refuse(kind, reason))
            return None
        case Admit(member=member):
            await run_step(framed, machine.admit())
    framed.peer = str(member)
    log.info("%s joined (%d/%d seats)", member, state.seats_taken, state.seats)
    state.on_event(MemberJoined(member, state.seats_taken))
    return member


# -- the joiner's side ---------------------------------------------------------------


async def join_table(
    identity: Identity,
    code: TableCode,
    address: tuple[str, int],
    mesh_port: int,
    *,
    mesh_host: str = "",
    handshake_timeout: float = 10.0,
    nonce: bytes | None = None,
    name: str = "",
    on_admitted: Callable[[], None] | None = None,
) -> TableRoster:
    """Join the table whose creator listens at ``address`` (host, port), by code, as
    ``name`` ("": called by the key); ``on_admitted()`` is called once the creator has
    confirmed the code (a seat is yours; the others may still be joining).

    Returns the roster once the table is full (this waits for the other
    joiners; cancel to give up). ``mesh_port`` (and ``mesh_host``, default: the
    address the creator sees) is where this peer's mesh listens. Raises
    :class:`WrongCodeError`, :class:`TableClosedError` or :class:`JoinError`.
    """
    host, port = address
    try:
        with trio.fail_after(handshake_timeout):
            stream = await trio.open_tcp_stream(host, port)
    except (OSError, trio.TooSlowError) as exc:
        raise JoinError(f"could not reach a table at {host}:{port} ({exc or 'timed out'})") from None
    framed = FramedStream(stream, f"the table at {host}:{port}", JOIN_FRAME_LIMIT)
    me = TableMember(identity.public_key, mesh_host, mesh_port, nonce or secrets.token_bytes(32), name)
    machine = JoinJoiner(identity, me, code.password,
                         code.nameplate, creator_host=host, peer=framed.peer, code_text=str(code))
    try:
        with trio.fail_after(handshake_timeout):
            await _joiner_handshake(framed, machine)
        if on_admitted is not None:
            on_admitted()
        done = await drive(framed, machine, Step(), until=(RosterReceived,))
        return done.roster
    except trio.TooSlowError:
        raise JoinError(f"{framed.peer} did not finish the join handshake within {handshake_timeout} s") from None
    except RefusedError as exc:
        if exc.kind == "wrong-code":
            raise WrongCodeError(f"{framed.peer} refused the code {code}: {exc.reason}") from None
        if exc.kind in ("table-full", "code-burnt"):
            raise TableClosedError(f"{framed.peer} refused to seat you: {exc.reason}") from None
        raise JoinError(str(exc)) from None
    except JoinError:
        raise
    except HandshakeError as exc:
        raise JoinError(str(exc)) from None
    finally:
        await trio.aclose_forcefully(stream)


async def _joiner_handshake(framed: FramedStream, machine: JoinJoiner) -> CreatorConfirmed:
    """From the greeting to the creator's key confirmation."""
    return await drive(framed, machine, machine.start(), until=(CreatorConfirmed,))


async def find_and_join_table(
    identity: Identity,
    code: TableCode,
    mesh_port: int,
    *,
    interfaces: Interfaces,
    browse_timeout: float = 5.0,
    mesh_host: str = "",
    handshake_timeout: float = 10.0,
    nonce: bytes | None = None,
    name: str = "",
    creator: str | None = None,
    linger: float = 2.0,
    on_admitted: Callable[[], None] | None = None,
) -> TableRoster:
    """Find the table of ``code``'s nameplate by mDNS (:func:`pick_table`: with ``creator``,
    the one its creator's name says), then :func:`join_table` it at each of its addresses.
    Browsing goes on ``linger`` seconds after the first match, to see a second table of
    the same number."""

    def matches(ad: TableAd) -> bool:
        return (ad.nameplate == code.nameplate and ad.version == PROTOCOL_VERSION
                and (creator is None or ad.creator == creator))

    ads = await browse_tables(browse_timeout, interfaces=interfaces, stop_when=matches, linger=linger)
    try:
        ad = pick_table(ads, code.nameplate, creator)
    except TableNotFoundError as exc:
        raise TableNotFoundError(
            f"{exc} (looked for {browse_timeout} s); if multicast does not pass here, ask the table's creator "
            "for its address and join with HOST:PORT") from None
    last_error: JoinError | None = None
    for host in ad.addresses:
        try:
            return await join_table(identity, code, (host, ad.port), mesh_port, mesh_host=mesh_host,
                                    handshake_timeout=handshake_timeout, nonce=nonce, name=name,
                                    on_admitted=on_admitted)
        except (WrongCodeError, TableClosedError):
            raise
        except JoinError as exc:
            last_error = exc
    if last_error is None:
        raise JoinError(f"table {code.nameplate} advertises no address")
    raise last_error
