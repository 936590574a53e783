"""Sending and receiving the handshake messages of the mesh and of joining.

A side that refuses a connection sends a :class:`~protocol.messages.Refusal`
with one sentence and closes, so both ends can say what went wrong.
"""

from __future__ import annotations

from typing import TypeVar

import trio

from p2p_sasaki.protocol.messages import HandshakeMessage, MessageError, Refusal, decode_handshake, encode_handshake
from p2p_sasaki.protocol.net.framing import FramedStream, FrameError

Message = TypeVar("Message")


class HandshakeError(Exception):
    """A connection was refused or broke during a handshake (one sentence)."""


class RefusedError(HandshakeError):
    """The other side refused us; ``reason`` is its own sentence."""

    def __init__(self, peer: str, kind: str, reason: str) -> None:
        super().__init__(f"{peer} refused the connection: {reason}")
        self.peer = peer
        self.kind = kind
        self.reason = reason


async def send_message(framed: FramedStream, message: HandshakeMessage) -> bytes:
    """Send a handshake message; returns the exact bytes sent."""
    data = encode_handshake(message)
    try:
        await framed.send(data)
    except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
        raise HandshakeError(f"{framed.peer} closed the connection during the handshake") from exc
    return data


async def receive_message(framed: FramedStream, expected: type[Message]) -> tuple[Message, bytes]:
    """Receive one handshake message of type ``expected`` and its exact bytes.

    A refusal raises :class:`RefusedError`; anything else unexpected raises
    :class:`HandshakeError` (framing errors close the connection on the way).
    """
    try:
        data = await framed.receive()
    except (trio.EndOfChannel, trio.BrokenResourceError, trio.ClosedResourceError) as exc:
        raise HandshakeError(f"{framed.peer} closed the connection during the handshake") from exc
    except FrameError as exc:
        raise HandshakeError(str(exc)) from exc
    try:
        message = decode_handshake(data)
    except MessageError as exc:
        raise HandshakeError(f"{framed.peer} sent a malformed handshake message ({exc})") from None
    if isinstance(message, Refusal):
        raise RefusedError(framed.peer, message.kind, message.reason)
    if not isinstance(message, expected):
        raise HandshakeError(
            f"{framed.peer} sent {message.TAG} where {expected.TAG} was expected"  # type: ignore[attr-defined]
        )
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
