"""Moving the bytes of a handshake: feed a sans-IO machine (protocol/handshake.py)
from a framed stream and send what it answers.

A side that refuses a connection sends a :class:`~p2p_sasaki.protocol.messages.Refusal`
with one sentence and closes, so both ends can say what went wrong.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

import trio

from p2p_sasaki.protocol.handshake import Event, Failed, JoinCreator, JoinJoiner, MeshHandshake, RefusedByPeer, Step
from p2p_sasaki.protocol.messages import (
    HandshakeMessage,
    MessageError,
    Refusal,
    decode_handshake,
    encode_handshake,
)
from p2p_sasaki.protocol.net.framing import FramedStream, FrameError

Message = TypeVar("Message")
Until = TypeVar("Until")


class HandshakeError(Exception):
    """A connection was refused or broke during a handshake (one sentence)."""


class RefusingError(HandshakeError):
    """We refused the other side (and told it why); ``kind`` as in the Refusal."""

    def __init__(self, reason: str, kind: str) -> None:
        super().__init__(reason)
        self.kind = kind


class RefusedError(HandshakeError):
    """The other side refused us; ``reason`` is its own sentence."""

    def __init__(self, peer: str, kind: str, reason: str) -> None:
        super().__init__(f"{peer} refused the connection: {reason}")
        self.peer = peer
        self.kind = kind
        self.reason = reason


Machine = MeshHandshake | JoinCreator | JoinJoiner


async def send_frames(framed: FramedStream, frames: Iterable[bytes]) -> None:
    """Send handshake frames in order."""
    try:
        for frame in frames:
            await framed.send(frame)
    except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
        raise HandshakeError(f"{framed.peer} closed the connection during the handshake") from exc


async def receive_frame(framed: FramedStream) -> bytes:
    try:
        return await framed.receive()
    except (trio.EndOfChannel, trio.BrokenResourceError, trio.ClosedResourceError) as exc:
        raise HandshakeError(f"{framed.peer} closed the connection during the handshake") from exc
    except FrameError as exc:
        raise HandshakeError(str(exc)) from exc


async def wait_first_frame(framed: FramedStream) -> None:
    """Wait until the other side's first frame has arrived (it stays to be received): what
    a listener holds a connection to before it does any work for it (protocol/net/pool.py)."""
    try:
        await framed.wait_frame()
    except (trio.EndOfChannel, trio.BrokenResourceError, trio.ClosedResourceError) as exc:
        raise HandshakeError(f"{framed.peer} closed the connection before its first message") from exc
    except FrameError as exc:
        raise HandshakeError(str(exc)) from exc


async def run_step(framed: FramedStream, step: Step) -> tuple[Event, ...]:
    """Send ``step``'s frames (a refusal best effort), then raise if it ended the handshake.

    :class:`~p2p_sasaki.protocol.handshake.Failed` raises :class:`RefusingError` (or
    :class:`HandshakeError` when we refused nobody); ``RefusedByPeer`` raises
    :class:`RefusedError`. Other events are returned.
    """
    failed = next((e for e in step.events if isinstance(e, Failed)), None)
    if failed is not None and failed.refused:
        with trio.move_on_after(1) as scope:
            scope.shield = True
            try:
                await send_frames(framed, step.send)
            except HandshakeError:
                pass
    else:
        await send_frames(framed, step.send)
    for event in step.events:
        match event:
            case Failed(reason=reason, kind=kind, refused=True):
                raise RefusingError(reason, kind)
            case Failed(reason=reason):
                raise HandshakeError(reason)
            case RefusedByPeer(kind=kind, reason=reason):
                raise RefusedError(framed.peer, kind, reason)
    return step.events


async def drive(framed: FramedStream, machine: Machine, step: Step, until: tuple[type[Until], ...]) -> Until:
    """Run ``step``, then feed received frames to ``machine`` until an event of a type in
    ``until`` (returned) or the end of the handshake (raised, see :func:`run_step`)."""
    while True:
        for event in await run_step(framed, step):
            if isinstance(event, until):
                return event
        step = machine.receive(await receive_frame(framed))


# -- single messages (a refusal before any handshake; tests that play a peer by hand) --


async def send_message(framed: FramedStream, message: HandshakeMessage) -> bytes:
    """Send one handshake message; returns the exact bytes sent."""
    data = encode_handshake(message)
    await send_frames(framed, (data,))
    return data


async def receive_message(framed: FramedStream, expected: type[Message]) -> tuple[Message, bytes]:
    """Receive one handshake message of type ``expected`` and its exact bytes.

    A refusal raises :class:`RefusedError`; anything else unexpected raises
    :class:`HandshakeError`.
    """
    data = await receive_frame(framed)
    try:
        message = decode_handshake(data)
    except MessageError as exc:
        raise HandshakeError(f"{framed.peer} sent a malformed handshake message ({exc})") from None
    if isinstance(message, Refusal):
        raise RefusedError(framed.peer, message.kind, message.reason)
    if not isinstance(message, expected):
        raise HandshakeError(f"{framed.peer} sent {message.TAG} where {expected.__name__} was expected")
    return message, data


async def refuse(framed: FramedStream, reason: str, kind: str = "refused") -> None:
    """Tell the other side why (best effort), then close the connection."""
    with trio.move_on_after(1) as scope:
        scope.shield = True
        try:
            await framed.send(encode_handshake(Refusal(kind, reason)))
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
    await trio.aclose_forcefully(framed.stream)
