"""A peer's saved table, for resuming after a crash (protocol/restore.py says why these
files are enough; docs/usage.md "Resuming a table" and docs/protocol.md "Resume").

One directory per unfinished table, ``DATA_DIR/tables/<table id hex>/`` (mode 0700), files
mode 0600:

- ``table``    the roster (the ``join-roster`` handshake message: every member's key, name and the
               address it listened on) and the transcript file's path; written once, by an
               atomic replace (write a temporary file, fsync, rename, fsync the directory);
- ``header``   the table's transcript header (its config), atomically written once the table
               options are agreed (before the first message), for a crash before the
               transcript's first record is on disk;
- ``entropy``  every byte the session drew from its entropy, appended in order;
- ``sent``     every envelope I signed, each ``u32be(length) ‖ envelope``, appended;
- ``finished`` present once the match ended (or stopped): the table is no longer resumable.

The driver (protocol/net/table.py) calls :meth:`TableStore.save` with the newly drawn
entropy and my new envelopes **before** it writes the records of the same step and before
anything goes out; every append is one write and one fsync, truncated back on failure
(protocol/net/disk.py, a :class:`~p2p_sasaki.protocol.net.disk.DiskError`). A torn tail (a crash during an
append) is cut off when the files are read: what it held was never sent.
"""

from __future__ import annotations

import contextlib
import os
import struct
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from p2p_sasaki.protocol.messages import MessageError, TableRoster, decode_handshake, encode_handshake
from p2p_sasaki.protocol.net.disk import DiskError, append_record, complete_length, repair_tail
from p2p_sasaki.protocol.restore import RestoreError
from p2p_sasaki.protocol.transcript import KIND_HEADER, frame_records

__all__ = ["TableStore", "SavedTable", "tables_dir", "unfinished_tables", "TranscriptWriter"]

TABLE_FILE, HEADER_FILE, ENTROPY_FILE, SENT_FILE, FINISHED_FILE = "table", "header", "entropy", "sent", "finished"


def tables_dir(data_dir: Path) -> Path:
    return Path(data_dir) / "tables"


@dataclass(frozen=True)
class SavedTable:
    """What a table directory holds."""

    directory: Path
    roster: TableRoster
    transcript_path: Path
    entropy: bytes
    sent: tuple[bytes, ...]
    finished: bool
    header: bytes | None = None

    def transcript_records(self) -> list[tuple[int, bytes]]:
        """The transcript's complete records (a torn tail is left out); only the saved
        header when the transcript has not started."""
        try:
            records = frame_records(self.transcript_path.read_bytes())[0]
        except FileNotFoundError:
            records = []
        if not records and self.header is not None:
            return [(KIND_HEADER, self.header)]
        return records


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _append(path: Path, data: bytes) -> None:
    """One whole append, fsync-ed, or nothing (protocol/net/disk.py: truncated back and a
    :class:`~p2p_sasaki.protocol.net.disk.DiskError` on failure)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    except OSError as error:
        raise DiskError(error.errno, f"disk error: cannot open {path}: {error.strerror or error}") from error
    with os.fdopen(fd, "ab") as handle:
        append_record(handle, data, path)


def _frames(data: bytes) -> tuple[bytes, ...]:
    out, offset = [], 0
    while offset + 4 <= len(data):
        (size,) = struct.unpack(">I", data[offset:offset + 4])
        if offset + 4 + size > len(data):
            break   # a torn tail: never sent
        out.append(data[offset + 4:offset + 4 + size])
        offset += 4 + size
    return tuple(out)


class TableStore:
    """The directory of one table (module docstring)."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)

    @classmethod
    def create(cls, directory: Path, roster: TableRoster, transcript_path: Path) -> TableStore:
        directory = Path(directory)
        try:
            directory.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            directory.mkdir(mode=0o700, exist_ok=True)
            os.chmod(directory, 0o700)
        except OSError as error:
            raise DiskError(error.errno, f"disk error: cannot create {directory}: {error.strerror or error}") from error
        store = cls(directory)
        roster_bytes = encode_handshake(roster)
        path_bytes = os.fsencode(str(Path(transcript_path).absolute()))
        store._replace(TABLE_FILE, struct.pack(">I", len(roster_bytes)) + roster_bytes + path_bytes)
        for name in (ENTROPY_FILE, SENT_FILE):
            _append(directory / name, b"")
        return store

    def _replace(self, name: str, data: bytes) -> None:
        """Atomic replace: a temporary file, fsync, rename, fsync the directory."""
        tmp = self.directory / (name + ".tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                if os.write(fd, data) != len(data):
                    raise OSError(28, "No space left on device")
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, self.directory / name)
            _fsync_dir(self.directory)
        except OSError as error:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise DiskError(error.errno, f"disk error: could not write {self.directory / name}: "
                                         f"{error.strerror or error}") from error

    def save(self, entropy: bytes, envelopes: Iterable[bytes]) -> None:
        """Append newly drawn entropy, then my new envelopes; both fsync-ed."""
        if entropy:
            _append(self.directory / ENTROPY_FILE, entropy)
        frames = b"".join(struct.pack(">I", len(e)) + e for e in envelopes)
        if frames:
            _append(self.directory / SENT_FILE, frames)

    def save_header(self, header: bytes) -> None:
        self._replace(HEADER_FILE, header)

    def mark_finished(self) -> None:
        self._replace(FINISHED_FILE, b"")

    def load(self) -> SavedTable:
        """The saved table; ValueError if the directory is not a saved table."""
        try:
            table = (self.directory / TABLE_FILE).read_bytes()
            entropy = (self.directory / ENTROPY_FILE).read_bytes()
            sent = (self.directory / SENT_FILE).read_bytes()
        except FileNotFoundError as exc:
            raise ValueError(f"{self.directory} is not a saved table ({exc.filename} is missing)") from None
        if len(table) < 4:
            raise ValueError(f"{self.directory / TABLE_FILE} is damaged")
        (size,) = struct.unpack(">I", table[:4])
        try:
            roster = decode_handshake(table[4:4 + size])
        except MessageError as exc:
            raise ValueError(f"{self.directory / TABLE_FILE} is damaged: {exc}") from None
        if not isinstance(roster, TableRoster):
            raise ValueError(f"{self.directory / TABLE_FILE} holds no roster")
        header_path = self.directory / HEADER_FILE
        return SavedTable(self.directory, roster, Path(os.fsdecode(table[4 + size:])), entropy, _frames(sent),
                          (self.directory / FINISHED_FILE).exists(),
                          header_path.read_bytes() if header_path.exists() else None)


def unfinished_tables(data_dir: Path) -> list[SavedTable]:
    """Every saved, unfinished table under ``data_dir`` (newest first)."""
    root = tables_dir(data_dir)
    if not root.is_dir():
        return []
    found = []
    for directory in root.iterdir():
        try:
            saved = TableStore(directory).load()
        except (ValueError, OSError):
            continue
        if not saved.finished:
            found.append(saved)
    found.sort(key=lambda s: s.directory.stat().st_mtime, reverse=True)
    return found


class TranscriptWriter:
    """Appends records to a ``.sasaki`` file, each with one write and one fsync, truncated
    back on failure (protocol/net/disk.py); a file that got no record is removed on close."""

    def __init__(self, path: Path, *, reopen: bool = False) -> None:
        self.path = Path(path)
        self.records = 0
        self.cut = 0   # bytes of a torn tail cut off when reopened
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if reopen:     # a resumed table: keep the complete records, cut a torn tail (disk.py)
                if self.path.exists():
                    self.cut = repair_tail(self.path)
                data = self.path.read_bytes() if self.path.exists() else b""
                if complete_length(data) != len(data):
                    raise RestoreError(f"{self.path} ends with bytes that are not a transcript record")
                self._file = open(self.path, "ab")
                self.records = len(frame_records(data)[0])
            else:
                self._file = open(self.path, "xb")  # never overwrite another table's transcript
        except (FileExistsError, DiskError):
            raise
        except OSError as error:
            raise DiskError(error.errno, f"disk error: cannot create {self.path}: {error.strerror or error}") from error

    def append(self, data: bytes) -> None:
        append_record(self._file, data, self.path)
        self.records += 1

    def close(self) -> None:
        self._file.close()
        if self.records == 0:
            with contextlib.suppress(OSError):
                self.path.unlink()
