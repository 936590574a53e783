"""Joining a table with a one-time table code (SPAKE2), by mDNS or by address.

The creator of a table shows a code such as ``7-purple-sausage``: a nameplate
(which table, also advertised over mDNS) and two words from a list of 256 (16
secret bits). Each joiner connects over TCP to the creator and both run SPAKE2
(``spake2``, sides A = joiner and B = creator, identities bound to the table id)
with the whole code as the password::

    creator -> joiner   JoinGreeting(version, nameplate, table_id)      in clear
    joiner  -> creator  PakeMessage(A)
    creator -> joiner   PakeMessage(B)
    joiner  -> creator  Sealed(JoinIdentity(key_J, host, port, sig_J))  key confirmation
    creator -> joiner   Sealed(JoinIdentity(key_C, host, port, sig_C))  key confirmation
    ... the joiner waits while the table fills ...
    creator -> joiner   Sealed(JoinRoster(table_id, members))

"Sealed" is ChaCha20-Poly1305 under a key derived (HKDF) from the SPAKE2 key,
one key per direction. The joiner seals first: a creator that cannot open it
knows the code was wrong, says so (``Refusal("wrong-code")``) and reveals
nothing. Each signature binds the signer's Ed25519 identity key to this SPAKE2
run (table id and both SPAKE2 messages), so the keys learnt are the keys of the
person who typed, or showed, the code.

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
import hashlib
import logging
import random
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import trio
from spake2 import SPAKE2_A, SPAKE2_B
from spake2.spake2 import SPAKEError

from p2p_sasaki.protocol import crypto
from p2p_sasaki.protocol.messages import (
    JoinGreeting,
    JoinIdentity,
    MessageError,
    PakeMessage,
    Sealed,
    decode_handshake,
    encode_handshake,
)
from p2p_sasaki.protocol.net.discovery import Interfaces, TableAd, browse_tables
from p2p_sasaki.protocol.net.framing import FramedStream
from p2p_sasaki.protocol.net.handshake import HandshakeError, RefusedError, receive_message, refuse, send_message
from p2p_sasaki.protocol.net.identity import PROTOCOL_VERSION, Identity, TableMember, TableRoster, describe_key
from p2p_sasaki.protocol.net.words import WORDS

log = logging.getLogger(__name__)

JOIN_FRAME_LIMIT = 64 * 1024
_SIGN_DOMAIN = b"sasaki/v1 join\0"


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


# -- the SPAKE2 run, shared by both sides ---------------------------------------------


def _pake_ids(table_id: bytes) -> dict[str, bytes]:
    return {"idA": b"sasaki/v1 joiner " + table_id, "idB": b"sasaki/v1 creator " + table_id}


def _transcript(role: bytes, table_id: bytes, message_a: bytes, message_b: bytes) -> bytes:
    return (_SIGN_DOMAIN + role + b"\0" + hashlib.sha256(table_id).digest()
            + hashlib.sha256(message_a).digest() + hashlib.sha256(message_b).digest())


@dataclass(frozen=True)
class _Channel:
    """The two directions of a SPAKE2-keyed channel."""

    to_creator: bytes
    to_joiner: bytes

    @classmethod
    def from_pake_key(cls, key: bytes) -> _Channel:
        return cls(crypto.derive_key(key, b"sasaki/v1 join: joiner to creator"),
                   crypto.derive_key(key, b"sasaki/v1 join: creator to joiner"))


def _open_identity(key: bytes, counter: int, sealed: Sealed) -> JoinIdentity | None:
    """The JoinIdentity inside ``sealed``, or None if it does not open (wrong code)."""
    try:
        inner = decode_handshake(crypto.unseal(key, counter, sealed.data))
    except (crypto.SealError, MessageError):
        return None
    return inner if isinstance(inner, JoinIdentity) else None


# -- the creator's side -------------------------------------------------------------


class _HostState:
    def __init__(self, table_id: bytes, creator: TableMember, seats: int, max_failures: int,
                 on_event: Callable[[HostEvent], None] | None) -> None:
        self.table_id = table_id
        self.creator = creator
        self.seats = seats
        self.max_failures = max_failures
        self.on_event = on_event or (lambda event: None)
        self.joined: list[TableMember] = []
        self.failures = 0
        self.closed: str | None = None  # "table-full" or "code-burnt"
        self.done = trio.Event()
        self.answered = 0  # admitted joiners sent the roster (or told the code is burnt)
        self.all_answered = trio.Event()
        self.lock = trio.Lock()  # one admission at a time
        self.waiting: list[trio.CancelScope] = []  # admitted joiners watching for a disconnect

    @property
    def seats_taken(self) -> int:
        return 1 + len(self.joined)

    @property
    def roster(self) -> TableRoster:
        return TableRoster(self.table_id, (self.creator, *self.joined))

    def close(self, kind: str) -> None:
        self.closed = kind
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
    on_event: Callable[[HostEvent], None] | None = None,
) -> TableRoster:
    """Admit joiners who know ``code`` on ``listeners`` until the table has ``seats``.

    Returns the roster (the creator first; its own host is ``mesh_host``, by
    default empty) once every joiner has been sent it. Raises
    :class:`CodeBurntError` after ``max_failures`` wrong codes. ``on_event`` is
    called with each :data:`HostEvent` (e.g. to update the mDNS seats hint).
    The listeners are closed on return: the code admits nobody any more.
    """
    if seats < 2:
        raise ValueError("a table needs at least two seats")
    me = TableMember(identity.public_key, mesh_host, mesh_port)
    state = _HostState(table_id or secrets.token_bytes(32), me, seats, max_failures, on_event)

    async def admit(stream: trio.SocketStream) -> None:
        await _admit_joiner(stream, identity, code, state, handshake_timeout)

    async with trio.open_nursery() as handlers:
        async with trio.open_nursery() as accepting:
            accepting.start_soon(
                functools.partial(trio.serve_listeners, admit, listeners, handler_nursery=handlers)
            )
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


_BURNT = "this table's code was burnt after three wrong codes; ask for a new code"
_FULL = "this table is full"


async def _admit_joiner(
    stream: trio.SocketStream, identity: Identity, code: TableCode, state: _HostState, timeout: float
) -> None:
    """One joiner's connection, from greeting to roster (trio closes the stream after)."""
    address = stream.socket.getpeername()[0]
    framed = FramedStream(stream, f"the joiner at {address}", JOIN_FRAME_LIMIT)
    table_id = state.table_id
    member: TableMember | None = None
    try:
        with trio.fail_after(timeout):
            if state.closed:
                await refuse(framed, _FULL if state.closed == "table-full" else _BURNT, kind=state.closed)
                return
            await send_message(framed, JoinGreeting(PROTOCOL_VERSION, code.nameplate, table_id))
            theirs, _ = await receive_message(framed, PakeMessage)
            pake = SPAKE2_B(code.password, **_pake_ids(table_id))
            mine = await trio.to_thread.run_sync(pake.start)
            await send_message(framed, PakeMessage(mine))
            try:
                pake_key = await trio.to_thread.run_sync(pake.finish, theirs.data)
            except SPAKEError as exc:
                raise HandshakeError(f"{framed.peer} sent a malformed SPAKE2 message ({exc})") from None
            channel = _Channel.from_pake_key(pake_key)
            sealed, _ = await receive_message(framed, Sealed)
            async with state.lock:
                member = await _admission(framed, address, identity, state, channel, sealed, theirs.data, mine)
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
        if member is not None and not state.done.is_set():
            state.joined.remove(member)
            state.on_event(MemberLeft(member, state.seats_taken))
        return
    # The table is full (send the roster) or the code was burnt.
    try:
        with trio.fail_after(timeout):
            if state.closed == "table-full":
                wire = state.roster
                await send_message(framed, Sealed(crypto.seal(channel.to_joiner, 1, encode_handshake(wire))))
            else:
                await refuse(framed, _BURNT, kind="code-burnt")
    except (HandshakeError, trio.TooSlowError) as exc:  # it left just now; the mesh will show it missing
        log.warning("could not send the roster to %s: %s", member, exc)
    finally:
        state.answer()


async def _admission(
    framed: FramedStream,
    address: str,
    identity: Identity,
    state: _HostState,
    channel: _Channel,
    sealed: Sealed,
    message_a: bytes,
    message_b: bytes,
) -> TableMember | None:
    """Open the joiner's key confirmation and seat it, or refuse it (returns None)."""
    if state.closed:
        await refuse(framed, _FULL if state.closed == "table-full" else _BURNT, kind=state.closed)
        return None
    joiner = _open_identity(channel.to_creator, 0, sealed)
    if joiner is None:
        state.failures += 1
        event = WrongCodeTried(address, state.failures, state.max_failures)
        log.info("%s", event)  # reported through on_event; a warning here printed it twice in `sasaki host`
        state.on_event(event)
        if state.failures >= state.max_failures:
            state.close("code-burnt")
            await refuse(framed, f"wrong code; {_BURNT}", kind="wrong-code")
        else:
            await refuse(framed, "wrong code", kind="wrong-code")
        return None
    if not crypto.verify_signature(
            joiner.key, _transcript(b"joiner", state.table_id, message_a, message_b), joiner.signature):
        await refuse(framed, "the identity signature does not match this join")
        return None
    if joiner.key == state.creator.key or any(m.key == joiner.key for m in state.joined):
        await refuse(framed, f"{describe_key(joiner.key)} is already at this table")
        return None
    if not 0 < joiner.port < 65536:
        await refuse(framed, f"{joiner.port} is not a port")
        return None
    member = TableMember(joiner.key, joiner.host or address, joiner.port)
    signature = identity.sign(_transcript(b"creator", state.table_id, message_a, message_b))
    reply = JoinIdentity(state.creator.key, state.creator.host, state.creator.port, signature)
    await send_message(framed, Sealed(crypto.seal(channel.to_joiner, 0, encode_handshake(reply))))
    framed.peer = str(member)
    state.joined.append(member)
    log.info("%s joined (%d/%d seats)", member, state.seats_taken, state.seats)
    state.on_event(MemberJoined(member, state.seats_taken))
    if state.seats_taken == state.seats:
        state.close("table-full")
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
) -> TableRoster:
    """Join the table whose creator listens at ``address`` (host, port), by code.

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
    try:
        with trio.fail_after(handshake_timeout):
            creator, channel = await _joiner_handshake(framed, identity, code, mesh_host, mesh_port)
        creator = TableMember(creator.key, creator.host or host, creator.port)
        sealed, _ = await receive_message(framed, Sealed)
        try:
            wire = decode_handshake(crypto.unseal(channel.to_joiner, 1, sealed.data))
        except (crypto.SealError, MessageError):
            wire = None
        if not isinstance(wire, TableRoster) or not wire.members or wire.members[0].key != creator.key:
            raise JoinError(f"{framed.peer} sent a roster that does not open or does not start with its creator")
        members = (creator, *wire.members[1:])
        if identity.public_key not in (m.key for m in members):
            raise JoinError(f"{framed.peer} sent a roster without this peer in it")
        return TableRoster(wire.table_id, members)
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


async def _joiner_handshake(
    framed: FramedStream, identity: Identity, code: TableCode, mesh_host: str, mesh_port: int
) -> tuple[JoinIdentity, _Channel]:
    greeting, _ = await receive_message(framed, JoinGreeting)
    if greeting.version != PROTOCOL_VERSION:
        raise JoinError(f"{framed.peer} speaks protocol version {greeting.version}, this peer {PROTOCOL_VERSION}")
    if greeting.nameplate != code.nameplate:
        raise JoinError(f"{framed.peer} is table {greeting.nameplate}, but the code {code} is for table "
                        f"{code.nameplate}")
    pake = SPAKE2_A(code.password, **_pake_ids(greeting.table_id))
    mine = await trio.to_thread.run_sync(pake.start)
    await send_message(framed, PakeMessage(mine))
    theirs, _ = await receive_message(framed, PakeMessage)
    try:
        pake_key = await trio.to_thread.run_sync(pake.finish, theirs.data)
    except SPAKEError as exc:
        raise JoinError(f"{framed.peer} sent a malformed SPAKE2 message ({exc})") from None
    channel = _Channel.from_pake_key(pake_key)
    signature = identity.sign(_transcript(b"joiner", greeting.table_id, mine, theirs.data))
    me = JoinIdentity(identity.public_key, mesh_host, mesh_port, signature)
    await send_message(framed, Sealed(crypto.seal(channel.to_creator, 0, encode_handshake(me))))
    sealed, _ = await receive_message(framed, Sealed)
    creator = _open_identity(channel.to_joiner, 0, sealed)
    if creator is None:
        raise JoinError(f"{framed.peer} answered under another key: someone may be between you and the table")
    if not crypto.verify_signature(
            creator.key, _transcript(b"creator", greeting.table_id, mine, theirs.data), creator.signature):
        raise JoinError(f"{framed.peer} sent an identity signature that does not match this join")
    return creator, channel


async def find_and_join_table(
    identity: Identity,
    code: TableCode,
    mesh_port: int,
    *,
    interfaces: Interfaces,
    browse_timeout: float = 5.0,
    mesh_host: str = "",
    handshake_timeout: float = 10.0,
) -> TableRoster:
    """Find the table of ``code``'s nameplate by mDNS, then :func:`join_table` it.

    If several tables advertise the nameplate, try each (a wrong code stops).
    """

    def matches(ad: TableAd) -> bool:
        return ad.nameplate == code.nameplate and ad.version == PROTOCOL_VERSION

    tables = [ad for ad in await browse_tables(browse_timeout, interfaces=interfaces, stop_when=matches)
              if matches(ad)]
    if not tables:
        raise TableNotFoundError(
            f"no table {code.nameplate} answered on the local network within {browse_timeout} s; if multicast "
            "does not pass here, ask the table's creator for its address and join with HOST:PORT"
        )
    last_error: JoinError | None = None
    for ad in tables:
        for host in ad.addresses:
            try:
                return await join_table(identity, code, (host, ad.port), mesh_port, mesh_host=mesh_host,
                                        handshake_timeout=handshake_timeout)
            except (WrongCodeError, TableClosedError):
                raise
            except JoinError as exc:
                last_error = exc
    assert last_error is not None
    raise last_error
