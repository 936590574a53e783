"""The disk side of a peer: whole records or nothing, torn tails cut back, directories
checked before a seat is taken (docs/reliability.md, "Disk").

- :func:`append_record` writes one record with one ``write`` and one ``fsync``; if either
  fails, the file is truncated back to where it was, so a transcript on disk is always a
  sequence of complete records (a prefix of the table's).
- :func:`repair_tail` cuts a file's torn last record (a crash or a full disk in the middle of
  an older version's write) back to the last complete record.
- :func:`check_directory` makes sure a directory exists, can be written and has some free
  space, before anything is promised to the other players.

Every failure is a :class:`DiskError`: an :class:`OSError` whose message names the disk.
"""

from __future__ import annotations

import os
import struct
import tempfile
from pathlib import Path
from typing import BinaryIO

from p2p_sasaki.protocol.transcript import frame_records

MIN_FREE_BYTES = 4 << 20
"""Free space a data or transcript directory must have before a seat is taken (4 MiB: a
match's transcript is well under 1 MiB)."""


class DiskError(OSError):
    """A file or directory of this peer could not be written (one sentence)."""


def _describe(error: OSError) -> str:
    return error.strerror or str(error) or type(error).__name__


def append_record(file: BinaryIO, data: bytes, path: Path | str = "the transcript") -> None:
    """Append ``data`` (one whole record) to ``file`` with one write and one fsync; on any
    failure truncate back to the old end and raise :class:`DiskError`."""
    file.flush()
    fd = file.fileno()
    start = os.lseek(fd, 0, os.SEEK_END)
    try:
        written = os.write(fd, data)
        if written != len(data):
            raise OSError(28, "No space left on device")   # a short write: the disk filled up
        os.fsync(fd)
    except OSError as error:
        try:
            os.ftruncate(fd, start)
            os.lseek(fd, start, os.SEEK_SET)
        except OSError:
            pass
        raise DiskError(error.errno, f"disk error: could not write to {path}: {_describe(error)}") from error


def complete_length(data: bytes) -> int:
    """How many leading bytes of ``data`` are complete transcript records."""
    records, _ = frame_records(data)
    return sum(5 + len(record) for _, record in records)


def torn_tail(data: bytes) -> int:
    """The number of bytes of a torn last record (0 if the file ends on a record boundary,
    or if what follows the complete records is not a truncated record but garbage, which
    is the audit's business)."""
    end = complete_length(data)
    rest = data[end:]
    if not rest:
        return 0
    if len(rest) < 5:
        return len(rest)
    (length,) = struct.unpack(">I", rest[:4])
    if 4 + length > len(rest):      # announced more than is there: cut short while writing
        return len(rest)
    return 0


def repair_tail(path: Path) -> int:
    """Cut a torn last record off ``path``; the number of bytes removed (0: nothing torn)."""
    data = Path(path).read_bytes()
    torn = torn_tail(data)
    if torn:
        try:
            with open(path, "r+b") as handle:
                handle.truncate(len(data) - torn)
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as error:
            raise DiskError(error.errno, f"disk error: could not repair {path}: {_describe(error)}") from error
    return torn


def check_directory(path: Path, min_free: int = MIN_FREE_BYTES) -> None:
    """Create ``path`` if needed, and check that a file can be written there and that
    ``min_free`` bytes are free; raise :class:`DiskError` naming the problem."""
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".probe-", dir=path)
        try:
            os.write(fd, b"\0" * 512)
            os.fsync(fd)
        finally:
            os.close(fd)
            os.unlink(probe)
        stat = os.statvfs(path)
    except OSError as error:
        raise DiskError(error.errno, f"disk error: cannot write to {path}: {_describe(error)}") from error
    free = stat.f_bavail * stat.f_frsize
    if free < min_free:
        raise DiskError(28, f"disk error: {path} has only {free // 1024} KiB free "
                            f"(at least {min_free // 1024} KiB are needed)")
