"""``sasaki resume --list``, the choice between resuming and a new table, and the saved
files' permissions (protocol/net/persist.py)."""

from __future__ import annotations

import argparse
import os
import stat
from pathlib import Path

import pytest

from p2p_sasaki.cli.common import CliError
from p2p_sasaki.cli.main import main
from p2p_sasaki.cli.resume import pending_table, with_addresses
from p2p_sasaki.protocol.crypto import SeededEntropy
from p2p_sasaki.protocol.net import Identity, TableMember, TableRoster, disk
from p2p_sasaki.protocol.net.disk import DiskError
from p2p_sasaki.protocol.net.persist import TableStore, tables_dir, unfinished_tables
from p2p_sasaki.protocol.net.table import TranscriptWriter
from p2p_sasaki.protocol.restore import RestoreError
from p2p_sasaki.protocol.transcript import KIND_HEADER, encode_record

KEYS = [Identity.generate(SeededEntropy(b"cli peer %d" % n)).public_key for n in range(4)]
ROSTER = TableRoster(bytes(range(32)), tuple(TableMember(k, "127.0.0.1", 40000 + n, bytes([n + 1]) * 32)
                                             for n, k in enumerate(KEYS)))


def saved_table(data_dir: Path) -> TableStore:
    store = TableStore.create(tables_dir(data_dir) / ROSTER.table_id.hex(), ROSTER, data_dir / "t.sasaki")
    store.save(b"\x01" * 40, [b"not an envelope"])
    return store


def test_the_saved_files_are_owner_only_and_read_back(tmp_path: Path) -> None:
    store = saved_table(tmp_path)
    assert stat.S_IMODE(store.directory.stat().st_mode) == 0o700
    for name in ("table", "entropy", "sent"):
        assert stat.S_IMODE((store.directory / name).stat().st_mode) == 0o600
    saved = store.load()
    assert saved.roster == ROSTER and saved.entropy == b"\x01" * 40 and saved.sent == (b"not an envelope",)
    assert saved.transcript_path == tmp_path / "t.sasaki" and not saved.finished
    with open(store.directory / "sent", "ab") as torn:   # a crash during an append
        torn.write(b"\x00\x00\x01\x00partial")
    assert store.load().sent == (b"not an envelope",)
    store.mark_finished()
    assert unfinished_tables(tmp_path) == []


def test_a_failed_save_is_a_disk_error_and_leaves_no_torn_frame(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The saved table's appends go through protocol/net/disk.py: a short write (a full
    disk) is cut back and named as a disk error."""
    store = saved_table(tmp_path)
    before = (store.directory / "sent").read_bytes()
    real_write = os.write

    def short_write(fd: int, data: bytes) -> int:
        return real_write(fd, bytes(data)[:3])

    monkeypatch.setattr(disk.os, "write", short_write)
    with pytest.raises(DiskError, match="disk error"):
        store.save(b"", [b"another envelope"])
    monkeypatch.undo()
    assert (store.directory / "sent").read_bytes() == before


def test_a_resumed_transcript_is_cut_back_to_its_last_complete_record(tmp_path: Path) -> None:
    path = tmp_path / "t.sasaki"
    whole = encode_record(KIND_HEADER, b"header") + encode_record(KIND_HEADER, b"second")
    path.write_bytes(whole + encode_record(KIND_HEADER, b"torn")[:6])
    writer = TranscriptWriter(path, reopen=True)
    assert writer.records == 2 and writer.cut == 6 and path.read_bytes() == whole
    writer.close()
    path.write_bytes(whole + b"\x00\x00\x00\x02\x07zz")   # no record (kind 7): refused, never appended after
    with pytest.raises(RestoreError):
        TranscriptWriter(path, reopen=True)


def test_resume_list(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["resume", "--list", "--data-dir", str(tmp_path)]) == 0
    assert "No unfinished table" in capsys.readouterr().out
    saved_table(tmp_path)
    assert main(["resume", "--list", "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"table {ROSTER.table_id.hex()[:12]}" in out and "member 4: peer" in out and "127.0.0.1:40003" in out


async def test_an_unfinished_table_is_resumed_unless_new(tmp_path: Path) -> None:
    args = argparse.Namespace(data_dir=tmp_path, new=False, bot=True)
    assert await pending_table(args) is None
    saved_table(tmp_path)
    found = await pending_table(args)
    assert found is not None and found.roster == ROSTER
    assert await pending_table(argparse.Namespace(data_dir=tmp_path, new=True, bot=True)) is None


def test_resume_address_overrides_a_members_saved_address() -> None:
    moved = with_addresses(ROSTER, ["2=10.0.0.5:41000"])
    assert moved.members[1] == TableMember(KEYS[1], "10.0.0.5", 41000, ROSTER.members[1].nonce)
    assert moved.members[0] == ROSTER.members[0]
    assert moved.table_id == ROSTER.table_id   # the id is made from keys and nonces, not addresses
    with pytest.raises(CliError):
        with_addresses(ROSTER, ["5=10.0.0.5:41000"])


@pytest.mark.slow
def test_on_a_terminal_host_asks_before_resuming_and_n_starts_a_new_table(tmp_path: Path) -> None:
    """Through a pty: ``sasaki host`` finds the unfinished table, asks; ``n`` creates a new one."""
    import sys

    import pexpect

    from tests.cli.peers import ROOT, env

    saved_table(tmp_path)
    child = pexpect.spawn(sys.executable, ["-P", "-m", "p2p_sasaki", "host", "--data-dir", str(tmp_path),
                                           "--no-mdns", "--interface", "127.0.0.1", "--name", "Mina"],
                          cwd=str(ROOT), env=env(), encoding="utf-8", timeout=60)
    try:
        child.expect("You have an unfinished table:")
        child.expect(r"Resume it\? \[Y/n\]")
        child.sendline("n")
        child.expect("Table code: ")
    finally:
        child.terminate(force=True)
    assert unfinished_tables(tmp_path) != []   # left for later


@pytest.mark.slow
def test_a_resume_whose_players_are_gone_says_so_and_stays_resumable(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Real sockets on 127.0.0.1: nobody listens at the saved addresses; the resume ends with
    one sentence (status 1) that says the table is still resumable, and it is."""
    from p2p_sasaki.cli.common import load_identity

    me = load_identity(tmp_path)
    roster = TableRoster(ROSTER.table_id, (TableMember(me.public_key, "127.0.0.1", 0, bytes(32)),
                                           *ROSTER.members[1:]))
    TableStore.create(tables_dir(tmp_path) / roster.table_id.hex(), roster, tmp_path / "t.sasaki")
    status = main(["resume", "--data-dir", str(tmp_path), "--bot", "--quiet", "--interface", "127.0.0.1",
                   "--connect-timeout", "0.5", "--proof-workers", "0"])
    assert status == 1
    err = capsys.readouterr().err
    assert "never connected within 0.5 s; the table stays resumable: run 'sasaki resume' again" in err
    assert "Traceback" not in err
    assert [t.roster.table_id for t in unfinished_tables(tmp_path)] == [roster.table_id]
