"""protocol/net/framing.py: exact bytes, limits, truncation, over a real trio stream pair."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from p2p_sasaki.protocol.net.framing import MAX_FRAME_SIZE, FrameDecoder, FramedStream, FrameError, encode_frame


def test_encode_exact_bytes():
    assert encode_frame(b"") == b"\x00\x00\x00\x00"
    assert encode_frame(b"abc") == b"\x00\x00\x00\x03abc"
    assert encode_frame(b"x" * 258)[:4] == b"\x00\x00\x01\x02"
    assert MAX_FRAME_SIZE == 1 << 20


def test_encode_refuses_over_limit():
    assert encode_frame(b"x" * 10, limit=10)[:4] == b"\x00\x00\x00\x0a"
    with pytest.raises(ValueError, match="11 bytes is over the limit of 10 bytes"):
        encode_frame(b"x" * 11, limit=10)


def test_decoder_byte_by_byte_and_batched():
    wire = encode_frame(b"one") + encode_frame(b"") + encode_frame(b"three")
    decoder = FrameDecoder()
    frames = []
    for i in range(len(wire)):
        frames += decoder.feed(wire[i : i + 1])
    assert frames == [b"one", b"", b"three"]
    assert decoder.pending == 0
    assert FrameDecoder().feed(wire) == [b"one", b"", b"three"]


def test_decoder_keeps_a_partial_frame():
    decoder = FrameDecoder()
    assert decoder.feed(b"\x00\x00\x00\x05ab") == []
    assert decoder.pending == 6
    assert decoder.feed(b"cde\x00") == [b"abcde"]
    assert decoder.pending == 1


def test_decoder_over_limit_names_the_peer():
    decoder = FrameDecoder(peer="peer 1a2b3c4d", limit=100)
    assert decoder.feed(encode_frame(b"x" * 100)) == [b"x" * 100]
    with pytest.raises(FrameError) as info:
        decoder.feed(b"\x00\x00\x00\x65")
    assert str(info.value) == (
        "peer 1a2b3c4d announced a frame of 101 bytes, over the limit of 100 bytes; the connection was closed."
    )
    assert info.value.peer == "peer 1a2b3c4d"


def test_decoder_garbage_is_an_over_limit_length():
    # Text where a length should be: b"GET " announces 1.2 GB.
    with pytest.raises(FrameError, match="announced a frame of 1195725856 bytes"):
        FrameDecoder(peer="x").feed(b"GET / HTTP/1.1\r\n")


def test_decoder_truncated_at_end_of_stream():
    decoder = FrameDecoder(peer="bob")
    decoder.feed(b"\x00\x00\x00\x09abc")
    with pytest.raises(FrameError, match=r"^bob closed the connection in the middle of a frame \(7 bytes unread\)"):
        decoder.end_of_stream()
    FrameDecoder().end_of_stream()  # between frames: a clean end


async def test_framed_stream_round_trip():
    left, right = trio.testing.memory_stream_pair()
    a, b = FramedStream(left, "b"), FramedStream(right, "a")
    async with trio.open_nursery() as nursery:
        nursery.start_soon(a.send, b"hello")
        assert await b.receive() == b"hello"
    await a.send(b"")
    await a.send(b"x" * 70000)  # bigger than one receive_some
    assert await b.receive() == b""
    assert await b.receive() == b"x" * 70000
    assert a.statistics().frames_sent == 3
    assert b.statistics().frames_received == 3
    await a.aclose()
    with pytest.raises(trio.EndOfChannel):
        await b.receive()


async def test_framed_stream_over_limit_closes_the_connection():
    left, right = trio.testing.memory_stream_pair()
    sender, receiver = FramedStream(left, "b", limit=1000), FramedStream(right, "alice", limit=10)
    await sender.send(b"x" * 11)
    with pytest.raises(FrameError, match="^alice announced a frame of 11 bytes, over the limit of 10 bytes"):
        await receiver.receive()
    with pytest.raises(trio.ClosedResourceError):
        await right.send_all(b"more")  # the receiving side closed it


async def test_framed_stream_truncated():
    left, right = trio.testing.memory_stream_pair()
    receiver = FramedStream(right, "carol")
    await left.send_all(b"\x00\x00\x00\x10short")
    await left.aclose()
    with pytest.raises(FrameError, match="^carol closed the connection in the middle of a frame"):
        await receiver.receive()
    with pytest.raises(trio.ClosedResourceError):
        await receiver.receive()
