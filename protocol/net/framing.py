"""Length-prefixed frames over a byte stream.

A frame on the wire is a 4-byte big-endian length followed by that many bytes.
A zero-length frame is legal (the mesh uses it as a keep-alive). Frames over the
size limit, a stream that ends inside a frame, or a length prefix that cannot be
right are a :class:`FrameError`: one sentence naming the peer, and the
:class:`FramedStream` closes the connection.

The parser is sans-IO (bytes in, frames out), like h11:

>>> decoder = FrameDecoder(peer="bob")
>>> decoder.feed(encode_frame(b"hi") + b"\\x00\\x00")
[b'hi']
>>> decoder.feed(b"\\x00\\x01!")
[b'!']
>>> decoder.pending
0
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import trio

MAX_FRAME_SIZE = 1 << 20
"""Default limit on one frame's payload (1 MiB); every reader and writer takes its own."""

_HEADER = struct.Struct(">I")
HEADER_SIZE = _HEADER.size


class FrameError(Exception):
    """A peer sent bytes that are not a valid frame; the connection is closed."""

    def __init__(self, peer: str, problem: str) -> None:
        super().__init__(f"{peer} {problem}; the connection was closed.")
        self.peer = peer
        self.problem = problem


def encode_frame(payload: bytes, limit: int = MAX_FRAME_SIZE) -> bytes:
    """The wire bytes of one frame.

    >>> encode_frame(b"abc")
    b'\\x00\\x00\\x00\\x03abc'
    """
    if len(payload) > limit:
        raise ValueError(f"a frame of {len(payload)} bytes is over the limit of {limit} bytes")
    return _HEADER.pack(len(payload)) + payload


class FrameDecoder:
    """Turns received bytes into frames; keeps the bytes of an unfinished frame.

    ``peer`` is only used to name the sender in errors.
    """

    def __init__(self, peer: str = "the peer", limit: int = MAX_FRAME_SIZE) -> None:
        self.peer = peer
        self.limit = limit
        self._buffer = bytearray()

    @property
    def pending(self) -> int:
        """How many received bytes belong to a frame that is not complete yet."""
        return len(self._buffer)

    def feed(self, data: bytes | bytearray) -> list[bytes]:
        """Add received bytes; return every frame they complete, in order."""
        self._buffer += data
        frames: list[bytes] = []
        while len(self._buffer) >= HEADER_SIZE:
            (length,) = _HEADER.unpack_from(self._buffer)
            if length > self.limit:
                raise FrameError(
                    self.peer, f"announced a frame of {length} bytes, over the limit of {self.limit} bytes"
                )
            end = HEADER_SIZE + length
            if len(self._buffer) < end:
                break
            frames.append(bytes(self._buffer[HEADER_SIZE:end]))
            del self._buffer[:end]
        return frames

    def end_of_stream(self) -> None:
        """The stream ended; raise :class:`FrameError` if it ended inside a frame."""
        if self._buffer:
            raise FrameError(
                self.peer, f"closed the connection in the middle of a frame ({len(self._buffer)} bytes unread)"
            )


@dataclass
class FramedStreamStatistics:
    frames_sent: int = 0
    frames_received: int = 0
    bytes_sent: int = 0
    bytes_received: int = 0


class FramedStream:
    """Frames over a trio stream: ``await send(payload)``, ``await receive()``.

    One task may send while another receives. On a :class:`FrameError` the
    stream is closed before the error propagates. A clean end of stream between
    frames raises :class:`trio.EndOfChannel`; a broken connection raises
    :class:`trio.BrokenResourceError` (or :class:`trio.ClosedResourceError` if
    this side closed it).
    """

    def __init__(self, stream: trio.abc.Stream, peer: str = "the peer", limit: int = MAX_FRAME_SIZE,
                 receive_size: int = 65536) -> None:
        self.stream = stream
        self.limit = limit
        self._decoder = FrameDecoder(peer, limit)
        self._ready: list[bytes] = []
        self._receive_size = receive_size
        self._send_lock = trio.Lock()
        self._stats = FramedStreamStatistics()

    @property
    def peer(self) -> str:
        return self._decoder.peer

    @peer.setter
    def peer(self, name: str) -> None:
        # The mesh learns who is on the other end only after the handshake.
        self._decoder.peer = name

    def set_limit(self, limit: int, receive_size: int | None = None) -> None:
        """Change the frame size limit (and the read size) from now on: the mesh keeps
        both small until the peer has authenticated."""
        self.limit = limit
        self._decoder.limit = limit
        if receive_size is not None:
            self._receive_size = receive_size

    def statistics(self) -> FramedStreamStatistics:
        return FramedStreamStatistics(**vars(self._stats))

    async def send(self, payload: bytes) -> None:
        data = encode_frame(payload, self.limit)
        async with self._send_lock:
            await self.stream.send_all(data)
        self._stats.frames_sent += 1
        self._stats.bytes_sent += len(data)

    async def receive(self) -> bytes:
        await self.wait_frame()
        self._stats.frames_received += 1
        return self._ready.pop(0)

    async def wait_frame(self) -> None:
        """Wait until a whole frame has arrived; it stays for :meth:`receive` (a listener
        holds a stranger to a first-frame deadline: protocol/net/pool.py)."""
        while not self._ready:
            data = await self.stream.receive_some(self._receive_size)
            self._stats.bytes_received += len(data)
            try:
                if not data:
                    self._decoder.end_of_stream()
                    raise trio.EndOfChannel
                self._ready.extend(self._decoder.feed(data))
            except FrameError:
                await self._close_quietly()
                raise

    async def _close_quietly(self) -> None:
        with trio.CancelScope(shield=True):
            await trio.aclose_forcefully(self.stream)

    async def aclose(self) -> None:
        await self.stream.aclose()

    async def __aenter__(self) -> FramedStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
