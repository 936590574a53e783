"""The ``.sasaki`` transcript file format: records, the header, evidence. Pure (the file
I/O is the CLI's; the audit of a whole table is protocol/table_audit.py).

Format (docs/protocol.md, "Transcript"): a sequence of records, each

    u32be(length) ‖ u8(kind) ‖ data        (length counts the kind byte and the data)

  kind 1  header    :class:`protocol.messages.TranscriptHeader` (version, table id, the
                    roster keys in join order, the game and its options, the deck's
                    settings, the dealer); always the first record
  kind 2  envelope  one signed envelope, verbatim, in canonical order: per completed slot,
                    slots in order, each slot's messages in sender order (hand 0: roster
                    index; later hands: seat)
  kind 3  evidence  two signed envelopes by one sender for one (hand, slot) with different
                    bodies: ``u32be(len(a)) ‖ a ‖ b``, a < b bytewise

A seat's :class:`protocol.session.TableSession` emits exactly these records as
``Record`` events, so honest peers write byte-identical files.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from p2p_sasaki.protocol.messages import MessageError, TranscriptHeader

KIND_HEADER = 1
KIND_ENVELOPE = 2
KIND_EVIDENCE = 3
MAX_RECORD_BYTES = 1 << 21


class TranscriptError(ValueError):
    """The file is not a well-formed transcript (framing, header). ``torn``: the last record
    is cut short (the file ends inside it: a write that did not finish, or a copy taken
    mid-write), rather than a record that cannot be framed at all."""

    def __init__(self, reason: str, torn: bool = False) -> None:
        super().__init__(reason)
        self.torn = torn


def encode_record(kind: int, data: bytes) -> bytes:
    return struct.pack(">IB", len(data) + 1, kind) + data


def encode_evidence(a: bytes, b: bytes) -> bytes:
    """An evidence record's data: the two envelopes, the bytewise smaller first."""
    first, second = sorted((a, b))
    return struct.pack(">I", len(first)) + first + second


def decode_evidence(data: bytes) -> tuple[bytes, bytes]:
    if len(data) < 4:
        raise TranscriptError("an evidence record is too short")
    (size,) = struct.unpack(">I", data[:4])
    if 4 + size > len(data):
        raise TranscriptError("an evidence record's first envelope overruns it")
    return data[4 : 4 + size], data[4 + size :]


@dataclass(frozen=True)
class Transcript:
    header: TranscriptHeader
    records: tuple[tuple[int, bytes], ...]      # (kind, data) after the header, in file order

    @property
    def envelopes(self) -> tuple[bytes, ...]:
        return tuple(data for kind, data in self.records if kind == KIND_ENVELOPE)

    @property
    def evidence(self) -> tuple[tuple[bytes, bytes], ...]:
        return tuple(decode_evidence(data) for kind, data in self.records if kind == KIND_EVIDENCE)


def frame_records(data: bytes) -> tuple[list[tuple[int, bytes]], TranscriptError | None]:
    """(kind, data) of every well-framed record up to the first framing problem, and it."""
    records: list[tuple[int, bytes]] = []
    offset = 0
    while offset < len(data):
        if offset + 5 > len(data):
            return records, TranscriptError(f"a torn last record at byte {offset}", torn=True)
        length, kind = struct.unpack(">IB", data[offset : offset + 5])
        if not 1 <= length <= MAX_RECORD_BYTES:
            return records, TranscriptError(f"a record at byte {offset} has an impossible length")
        if offset + 4 + length > len(data):
            if kind in (KIND_HEADER, KIND_ENVELOPE, KIND_EVIDENCE):
                return records, TranscriptError(f"a torn last record at byte {offset}", torn=True)
            return records, TranscriptError(f"a record at byte {offset} has an impossible length")
        if kind not in (KIND_HEADER, KIND_ENVELOPE, KIND_EVIDENCE):
            return records, TranscriptError(f"a record at byte {offset} has an unknown kind {kind}")
        records.append((kind, data[offset + 5 : offset + 4 + length]))
        offset += 4 + length
    return records, None


def split_records(data: bytes) -> list[tuple[int, bytes]]:
    """(kind, data) of every record, strictly framed."""
    records, problem = frame_records(data)
    if problem is not None:
        raise problem
    return records


def read_transcript(data: bytes) -> Transcript:
    return transcript_of(split_records(data))


def transcript_of(records: list[tuple[int, bytes]]) -> Transcript:
    if not records or records[0][0] != KIND_HEADER:
        raise TranscriptError("a transcript starts with its header record")
    if any(kind == KIND_HEADER for kind, _ in records[1:]):
        raise TranscriptError("a transcript has one header")
    try:
        header = TranscriptHeader.decode(records[0][1])
    except MessageError as exc:
        raise TranscriptError(str(exc)) from exc
    return Transcript(header, tuple(records[1:]))
