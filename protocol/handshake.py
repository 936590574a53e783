"""The join and mesh handshakes as sans-IO state machines (in the manner of h11).

A machine never touches a socket or a clock. The I/O layer (protocol/net/join.py,
protocol/net/mesh.py) calls :meth:`start` once, then feeds each frame it receives to
:meth:`receive`; both return a :class:`Step`: the frames to send, in order, and the
events that happened. Frames are the handshake messages of
protocol/messages/handshake.py; the key schedule, transcripts and SPAKE2 are the pure functions of
protocol/crypto.py, section 7; randomness comes from an injected entropy function, so
a seeded run is byte-identical.

A handshake ends with exactly one of: success (:class:`Authenticated` for the mesh,
:class:`RosterReceived` for a joiner, :meth:`JoinCreator.send_roster` for a creator),
:class:`Failed` (we end it; when ``Failed.refused`` the step's last frame is our
:class:`~p2p_sasaki.protocol.messages.Refusal`, to send before closing) or
:class:`RefusedByPeer`. After that the machine accepts nothing more.

Mesh (docs/protocol.md, "Mesh handshake")::

    dialer   -> listener   MeshHello(version, table_id, key_D, nonce_D)
    listener -> dialer     MeshHello(version, table_id, key_L, nonce_L)
                           MeshProof(sign_L(mesh_transcript("listener", hello_D, hello_L)))
    dialer   -> listener   MeshProof(sign_D(mesh_transcript("dialer", hello_D, hello_L)))
    listener -> dialer     MeshWelcome()

Join (docs/protocol.md, "Joining")::

    creator -> joiner   JoinGreeting(version, nameplate, table_id)          in clear
    joiner  -> creator  PakeMessage(A)
    creator -> joiner   PakeMessage(B)
    joiner  -> creator  Sealed_0(JoinIdentity(key_J, host, port, nonce, name, sig_J))   key confirmation
    creator -> joiner   Sealed_0(JoinIdentity(key_C, host, port, nonce, name, sig_C))   key confirmation
    ... the joiner waits while the table fills ...
    creator -> joiner   Sealed_1(TableRoster(table_id, members))
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TypeVar

from p2p_sasaki.protocol import crypto
from p2p_sasaki.protocol.chain import table_id_of
from p2p_sasaki.protocol.crypto import Entropy, IdentityKey, system_entropy
from p2p_sasaki.protocol.messages import (
    NONCE_BYTES,
    PROTOCOL_VERSION,
    HandshakeMessage,
    JoinGreeting,
    JoinIdentity,
    MeshHello,
    MeshProof,
    MeshWelcome,
    MessageError,
    PakeMessage,
    Refusal,
    Sealed,
    TableMember,
    TableRoster,
    VersionMismatchError,
    decode_handshake,
    describe_key,
    encode_handshake,
    version_sentence,
)

# ---------------------------------------------------------------------------------------
# Events and steps
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Authenticated:
    """Mesh: the other side proved it holds ``peer``'s identity key (the handshake is done)."""

    peer: bytes


@dataclass(frozen=True)
class CodeConfirmed:
    """Join, creator side: the joiner knew the code and proved its key; ``member.host`` is
    what it sent (empty: use the address it connects from). Answer with
    :meth:`JoinCreator.admit` or :meth:`JoinCreator.refuse`."""

    member: TableMember


@dataclass(frozen=True)
class WrongCode:
    """Join, creator side: the joiner's key confirmation did not open: a wrong code.
    Count it, then answer with :meth:`JoinCreator.refuse` (kind ``"wrong-code"``)."""


@dataclass(frozen=True)
class CreatorConfirmed:
    """Join, joiner side: the creator knew the code and proved its key; the roster follows
    when the table is full."""

    creator: TableMember


@dataclass(frozen=True)
class RosterReceived:
    """Join, joiner side: the table is full; the roster (the creator's host filled in)."""

    roster: TableRoster


@dataclass(frozen=True)
class Failed:
    """We end the handshake, for ``reason`` (one sentence). ``refused``: the step's last
    frame is a Refusal of ``kind`` telling the other side why."""

    reason: str
    kind: str = "refused"
    refused: bool = False


@dataclass(frozen=True)
class RefusedByPeer:
    """The other side refused us (``kind``, its sentence ``reason``) and closes."""

    kind: str
    reason: str


Event = Authenticated | CodeConfirmed | WrongCode | CreatorConfirmed | RosterReceived | Failed | RefusedByPeer


@dataclass(frozen=True)
class Step:
    """What one input produced: frames to send (in order) and events."""

    send: tuple[bytes, ...] = ()
    events: tuple[Event, ...] = ()

    def __add__(self, other: Step) -> Step:
        return Step(self.send + other.send, self.events + other.events)


class State(enum.Enum):
    RUNNING = "running"
    DECIDING = "deciding"   # a creator waits for admit()/refuse()
    WAITING = "waiting"     # admitted; the roster comes later
    DONE = "done"
    CLOSED = "closed"       # failed or refused


class _Machine:
    peer: str

    def __init__(self, peer: str) -> None:
        self.peer = peer
        self.state = State.RUNNING
        self._expect: type[HandshakeMessage] | None = None

    def _refuse(self, reason: str, kind: str = "refused", local: str | None = None) -> Step:
        """Tell the other side ``reason`` and end; ``local`` is our own sentence (default: same)."""
        self.state = State.CLOSED
        return Step((encode_handshake(Refusal(kind, reason)),), (Failed(local or reason, kind, True),))

    def _fail(self, reason: str, kind: str = "refused") -> Step:
        self.state = State.CLOSED
        return Step((), (Failed(reason, kind),))

    def _decode(self, frame: bytes) -> HandshakeMessage | Step:
        """The expected message in ``frame``, or the Step that ends the handshake."""
        if self.state not in (State.RUNNING, State.WAITING) or self._expect is None:
            raise RuntimeError(f"the handshake is {self.state.value}; it takes no more frames")
        try:
            message = decode_handshake(frame)
        except VersionMismatchError as exc:
            return self._on_version(exc.version)
        except MessageError as exc:
            return self._refuse(f"malformed handshake message ({exc})", local=f"{self.peer} sent a malformed "
                                f"handshake message ({exc})")
        if isinstance(message, Refusal):
            self.state = State.CLOSED
            return Step((), (RefusedByPeer(message.kind, message.reason),))
        if not isinstance(message, self._expect):
            return self._refuse(f"{message.TAG} where {self._expect.TAG} was expected",
                                local=f"{self.peer} sent {message.TAG} where {self._expect.TAG} was expected")
        return message

    def _on_version(self, version: object) -> Step:
        theirs = (f"this peer speaks protocol version {PROTOCOL_VERSION}, you speak version {version}; "
                  "both need the same p2p-sasaki release")
        return self._refuse(theirs, kind="version", local=version_sentence(version, self.peer))


# ---------------------------------------------------------------------------------------
# The mesh's mutual authentication
# ---------------------------------------------------------------------------------------


class MeshHandshake(_Machine):
    """One side of a mesh connection's handshake.

    ``dialing``: the key we dialled (we are the dialer), or None (we are the listener).
    The listener accepts a dialer whose key is in ``roster`` and acceptable
    (crypto.is_acceptable_identity_key). The lower key dials, but a higher one may too (a
    peer resumed on a new address, which the others cannot dial: protocol/net/mesh.py
    ``dial_all``).
    """

    def __init__(self, identity: IdentityKey, roster: TableRoster, dialing: bytes | None = None,
                 entropy: Entropy = system_entropy, peer: str = "the peer") -> None:
        super().__init__(peer)
        if identity.public_key not in roster:
            raise ValueError(f"{describe_key(identity.public_key)} is not in the table's roster")
        self.identity = identity
        self.roster = roster
        self.dialing = dialing
        self.peer_key: bytes | None = None
        self._hello = encode_handshake(MeshHello(PROTOCOL_VERSION, roster.table_id, identity.public_key,
                                                 entropy(NONCE_BYTES)))
        self._their_hello = b""
        self._expect = MeshHello

    def start(self) -> Step:
        return Step((self._hello,)) if self.dialing is not None else Step()

    def _refuse_mesh(self, problem: str, kind: str = "refused") -> Step:
        return self._refuse(f"refused by {describe_key(self.identity.public_key)}: {problem}", kind,
                            local=f"refused {self.peer}: {problem}")

    def _on_version(self, version: object) -> Step:
        return self._refuse_mesh(version_sentence(version, "it"), kind="version")

    def _hello_problem(self, hello: MeshHello) -> str | None:
        if self.dialing is not None and hello.key != self.dialing:
            member = self.roster.member(self.dialing)
            return f"{member.host}:{member.port} answered as {describe_key(hello.key)}"
        if hello.table_id != self.roster.table_id:
            return "it belongs to another table"
        if hello.key not in self.roster or hello.key == self.identity.public_key:
            return f"{describe_key(hello.key)} is not a member of this table"
        if not crypto.is_acceptable_identity_key(hello.key):
            return f"{describe_key(hello.key)} is a weak key"
        return None

    def _transcript(self, role: str) -> bytes:
        if self.dialing is not None:
            return crypto.mesh_transcript(role, self._hello, self._their_hello)
        return crypto.mesh_transcript(role, self._their_hello, self._hello)

    def receive(self, frame: bytes) -> Step:
        message = self._decode(frame)
        if isinstance(message, Step):
            return message
        match message:
            case MeshHello():
                problem = self._hello_problem(message)
                if problem is not None:
                    return self._refuse_mesh(problem)
                self.peer_key, self._their_hello = message.key, frame
                self.peer = f"{self.peer} (claiming to be {describe_key(message.key)})"
                self._expect = MeshProof
                if self.dialing is not None:
                    return Step()
                proof = MeshProof(self.identity.sign(self._transcript("listener")))
                return Step((self._hello, encode_handshake(proof)))
            case MeshProof():
                assert self.peer_key is not None
                role = "listener" if self.dialing is not None else "dialer"
                if not crypto.verify_signature(self.peer_key, self._transcript(role), message.signature):
                    return self._refuse_mesh(f"its signature does not match {describe_key(self.peer_key)}")
                if self.dialing is not None:
                    self._expect = MeshWelcome
                    return Step((encode_handshake(MeshProof(self.identity.sign(self._transcript("dialer")))),))
                self.state = State.DONE
                return Step((encode_handshake(MeshWelcome()),), (Authenticated(self.peer_key),))
            case MeshWelcome():
                assert self.peer_key is not None
                self.state = State.DONE
                return Step((), (Authenticated(self.peer_key),))
        raise AssertionError(message)  # pragma: no cover (_decode checked the type)


# ---------------------------------------------------------------------------------------
# The join (a one-time table code, SPAKE2)
# ---------------------------------------------------------------------------------------


class JoinCreator(_Machine):
    """The table creator's side of one joiner's connection.

    ``me`` is the creator's roster entry (its mesh address); ``password`` the whole
    table code. After :class:`CodeConfirmed` call :meth:`admit` or :meth:`refuse`; after
    :class:`WrongCode`, :meth:`refuse`; once admitted, :meth:`send_roster` when the table
    is full (or :meth:`refuse` if the code was burnt meanwhile).
    """

    def __init__(self, identity: IdentityKey, me: TableMember, password: bytes, nameplate: str, table_id: bytes,
                 entropy: Entropy = system_entropy, peer: str = "the joiner") -> None:
        super().__init__(peer)
        self.identity = identity
        self.me = me
        self.password = password
        self._greeting = encode_handshake(JoinGreeting(PROTOCOL_VERSION, nameplate, table_id))
        self.table_id = table_id
        self._entropy = entropy
        self._pake_a = self._pake_b = b""
        self._keys: tuple[bytes, bytes] | None = None
        self._expect = PakeMessage

    def start(self) -> Step:
        return Step((self._greeting,))

    def receive(self, frame: bytes) -> Step:
        message = self._decode(frame)
        if isinstance(message, Step):
            return message
        match message:
            case PakeMessage():
                pake = crypto.Pake(self.password, self.table_id, joiner=False, entropy=self._entropy)
                try:
                    key = pake.finish(message.data)
                except crypto.PakeError as exc:
                    return self._refuse(str(exc), local=f"{self.peer} sent {exc}")
                self._pake_a, self._pake_b, self._keys = message.data, pake.message, crypto.join_channel_keys(key)
                self._expect = Sealed
                return Step((encode_handshake(PakeMessage(pake.message)),))
            case Sealed():
                assert self._keys is not None
                joiner = _open(self._keys[0], 0, message, JoinIdentity)
                self.state = State.DECIDING
                if joiner is None:
                    return Step((), (WrongCode(),))
                transcript = crypto.join_transcript("joiner", self._greeting, self._pake_a, self._pake_b)
                if not crypto.verify_signature(joiner.key, transcript, joiner.signature):
                    return self._refuse("the identity signature does not match this join")
                if not crypto.is_acceptable_identity_key(joiner.key):
                    return self._refuse(f"{describe_key(joiner.key)} is a weak identity key")
                if not 0 < joiner.port < 65536:
                    return self._refuse(f"{joiner.port} is not a port")
                return Step((), (CodeConfirmed(joiner.member),))
        raise AssertionError(message)  # pragma: no cover

    def admit(self) -> Step:
        """Seat the joiner: send our own key confirmation; the roster follows later."""
        if self.state is not State.DECIDING or self._keys is None:
            raise RuntimeError("admit() answers a CodeConfirmed event")
        transcript = crypto.join_transcript("creator", self._greeting, self._pake_a, self._pake_b)
        reply = JoinIdentity.of(self.me, self.identity.sign(transcript))
        self.state = State.WAITING
        self._expect = None
        return Step((encode_handshake(Sealed(crypto.seal(self._keys[1], 0, encode_handshake(reply)))),))

    def refuse(self, kind: str, reason: str) -> Step:
        """Refuse the joiner (``kind``: ``"wrong-code"``, ``"table-full"``, ``"code-burnt"``...)."""
        if self.state in (State.DONE, State.CLOSED):
            raise RuntimeError(f"the handshake is {self.state.value}")
        return self._refuse(reason, kind)

    def send_roster(self, roster: TableRoster) -> Step:
        """The table is full: send the admitted joiner the roster; the join is done."""
        if self.state is not State.WAITING or self._keys is None:
            raise RuntimeError("send_roster() follows admit()")
        self.state = State.DONE
        return Step((encode_handshake(Sealed(crypto.seal(self._keys[1], 1, encode_handshake(roster)))),))


class JoinJoiner(_Machine):
    """The joiner's side: ``me`` is our own roster entry (host empty: "the address you
    see me connecting from"); ``creator_host`` fills the creator's host if it sent none."""

    def __init__(self, identity: IdentityKey, me: TableMember, password: bytes, nameplate: str,
                 creator_host: str, entropy: Entropy = system_entropy, peer: str = "the table",
                 code_text: str = "") -> None:
        super().__init__(peer)
        self.identity = identity
        self.me = me
        self.password = password
        self.nameplate = nameplate
        self.code_text = code_text or password.decode(errors="replace")
        self.creator_host = creator_host
        self.creator: TableMember | None = None
        self._entropy = entropy
        self._greeting = b""
        self._table_id = b""
        self._pake: crypto.Pake | None = None
        self._theirs = b""
        self._keys: tuple[bytes, bytes] | None = None
        self._expect = JoinGreeting

    def start(self) -> Step:
        return Step()

    def receive(self, frame: bytes) -> Step:
        message = self._decode(frame)
        if isinstance(message, Step):
            return message
        match message:
            case JoinGreeting():
                if message.nameplate != self.nameplate:
                    return self._refuse("wrong nameplate", local=f"{self.peer} is table {message.nameplate}, but "
                                        f"the code {self.code_text} is for table {self.nameplate}")
                self._greeting, self._table_id = frame, message.table_id
                self._pake = crypto.Pake(self.password, message.table_id, joiner=True, entropy=self._entropy)
                self._expect = PakeMessage
                return Step((encode_handshake(PakeMessage(self._pake.message)),))
            case PakeMessage():
                assert self._pake is not None
                try:
                    key = self._pake.finish(message.data)
                except crypto.PakeError as exc:
                    return self._refuse(str(exc), local=f"{self.peer} sent {exc}")
                self._theirs, self._keys = message.data, crypto.join_channel_keys(key)
                signature = self.identity.sign(self._transcript("joiner"))
                me = JoinIdentity.of(self.me, signature)
                self._expect = Sealed
                return Step((encode_handshake(Sealed(crypto.seal(self._keys[0], 0, encode_handshake(me)))),))
            case Sealed() if self.creator is None:
                assert self._keys is not None
                creator = _open(self._keys[1], 0, message, JoinIdentity)
                if creator is None:
                    return self._fail(f"{self.peer} answered under another key: someone may be between you and "
                                      "the table")
                if not crypto.verify_signature(creator.key, self._transcript("creator"), creator.signature):
                    return self._fail(f"{self.peer} sent an identity signature that does not match this join")
                if not crypto.is_acceptable_identity_key(creator.key):
                    return self._fail(f"{self.peer} has a weak identity key")
                self.creator = replace(creator.member, host=creator.host or self.creator_host)
                self.state = State.WAITING
                return Step((), (CreatorConfirmed(self.creator),))
            case Sealed():
                assert self._keys is not None and self.creator is not None
                roster = _open(self._keys[1], 1, message, TableRoster)
                if roster is None or roster.members[0].key != self.creator.key \
                        or roster.members[0].nonce != self.creator.nonce:
                    return self._fail(f"{self.peer} sent a roster that does not open or does not start with its "
                                      "creator")
                mine = roster.member(self.identity.public_key) if self.identity.public_key in roster else None
                if mine is None or mine.nonce != self.me.nonce or mine.name != self.me.name:
                    return self._fail(f"{self.peer} sent a roster without this peer (and its fresh nonce and "
                                      "name) in it")
                if roster.members[0].name != self.creator.name:
                    return self._fail(f"{self.peer} sent a roster whose creator has another name")
                if roster.table_id != table_id_of(self._table_id, roster.members):
                    return self._fail(f"{self.peer} sent a roster whose table id is not made from its members")
                weak = [m for m in roster.members if not crypto.is_acceptable_identity_key(m.key)]
                if weak:
                    return self._fail(f"{self.peer} sent a roster with a weak identity key ({weak[0]})")
                self.state = State.DONE
                roster = replace(roster, members=(self.creator, *roster.members[1:]))
                return Step((), (RosterReceived(roster),))
        raise AssertionError(message)  # pragma: no cover

    def _transcript(self, role: str) -> bytes:
        assert self._pake is not None
        return crypto.join_transcript(role, self._greeting, self._pake.message, self._theirs)


_Inner = TypeVar("_Inner", JoinIdentity, TableRoster)


def _open(key: bytes, counter: int, sealed: Sealed, expected: type[_Inner]) -> _Inner | None:
    """The message of type ``expected`` sealed in ``sealed``, or None if it does not open."""
    try:
        inner = decode_handshake(crypto.unseal(key, counter, sealed.data))
    except (crypto.SealError, MessageError):
        return None
    return inner if isinstance(inner, expected) else None


# ---------------------------------------------------------------------------------------
# The creator's admissions: seats and wrong codes for one table code
# ---------------------------------------------------------------------------------------

FULL_SENTENCE = "this table is full"
BURNT_SENTENCE = "this table's code was burnt after three wrong codes; ask for a new code"


@dataclass(frozen=True)
class Admit:
    """Seat this member (its host filled in): answer with :meth:`JoinCreator.admit`."""

    member: TableMember


@dataclass(frozen=True)
class Refuse:
    """Refuse the joiner: answer with :meth:`JoinCreator.refuse` (``kind``, ``reason``)."""

    kind: str
    reason: str


class JoinAdmissions:
    """What one table code has admitted so far (sans-IO, one per table).

    The code is burnt when the table is full (``closed == "table-full"``) or after
    ``max_failures`` wrong codes in total (``"code-burnt"``); then everybody is refused.
    A joiner that leaves before the table is full frees its seat (:meth:`leave`).
    ``fits(members, seats)``: the creator's own seating rule (e.g. Sasku partners chosen by
    name), asked for the members a joiner would make: None admits it, a sentence refuses it
    (``refused``) and keeps the seat free.
    """

    def __init__(self, table_id: bytes, creator: TableMember, seats: int, max_failures: int = 3,
                 fits: Callable[[tuple[TableMember, ...], int], str | None] | None = None) -> None:
        if seats < 2:
            raise ValueError("a table needs at least two seats")
        self.table_id = table_id
        self.creator = creator
        self.seats = seats
        self.max_failures = max_failures
        self.joined: list[TableMember] = []
        self.failures = 0
        self.closed: str | None = None  # "table-full" or "code-burnt"
        self.fits = fits

    @property
    def seats_taken(self) -> int:
        return 1 + len(self.joined)

    @property
    def roster(self) -> TableRoster:
        members = (self.creator, *self.joined)
        return TableRoster(table_id_of(self.table_id, members), members)

    def close(self, kind: str) -> None:
        self.closed = kind

    def refusal_if_closed(self) -> Refuse | None:
        """The refusal every newcomer gets once the code is burnt, else None."""
        if self.closed is None:
            return None
        return Refuse(self.closed, FULL_SENTENCE if self.closed == "table-full" else BURNT_SENTENCE)

    def decide(self, event: CodeConfirmed | WrongCode, address: str) -> Admit | Refuse:
        """The answer to a joiner's key confirmation; ``address`` fills an empty host."""
        closed = self.refusal_if_closed()
        if closed is not None:
            return closed
        match event:
            case WrongCode():
                self.failures += 1
                if self.failures >= self.max_failures:
                    self.close("code-burnt")
                    return Refuse("wrong-code", f"wrong code; {BURNT_SENTENCE}")
                return Refuse("wrong-code", "wrong code")
            case CodeConfirmed(member=joiner):
                if joiner.key == self.creator.key or any(m.key == joiner.key for m in self.joined):
                    return Refuse("refused", f"{describe_key(joiner.key)} is already at this table")
                member = replace(joiner, host=joiner.host or address)
                unfit = self.fits((self.creator, *self.joined, member), self.seats) if self.fits else None
                if unfit is not None:
                    return Refuse("refused", unfit)
                self.joined.append(member)
                if self.seats_taken == self.seats:
                    self.close("table-full")
                return Admit(member)
        raise AssertionError(event)  # pragma: no cover

    def leave(self, member: TableMember) -> bool:
        """``member`` left before the table was full: free its seat (False if too late)."""
        if self.closed is not None or member not in self.joined:
            return False
        self.joined.remove(member)
        return True
