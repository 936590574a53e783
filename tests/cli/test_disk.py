"""Disk faults (docs/reliability.md, "Disk"): whole records or nothing, torn tails cut
back at start-up, read-only and full data directories refused before a seat is taken."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from p2p_sasaki.cli.common import EXIT_DISK, prepare_directories
from p2p_sasaki.protocol.net.disk import DiskError, append_record, check_directory, repair_tail, torn_tail
from p2p_sasaki.protocol.transcript import KIND_ENVELOPE, KIND_HEADER, encode_record, split_records
from tests.namespace import run_scenario

HERE = Path(__file__).resolve().parent
RECORDS = encode_record(KIND_HEADER, b"header") + encode_record(KIND_ENVELOPE, b"x" * 50)


@pytest.mark.parametrize("cut", [1, 3, 5, 20, 54])
def test_a_torn_tail_is_cut_back_to_the_last_complete_record(tmp_path, cut):
    torn = RECORDS + encode_record(KIND_ENVELOPE, b"y" * 50)[:cut]
    path = tmp_path / "t.sasaki"
    path.write_bytes(torn)
    assert torn_tail(torn) == cut
    assert repair_tail(path) == cut
    assert path.read_bytes() == RECORDS
    assert repair_tail(path) == 0


def test_garbage_that_is_not_a_torn_record_is_left_for_the_audit(tmp_path):
    path = tmp_path / "t.sasaki"
    path.write_bytes(RECORDS + b"\x00\x00\x00\x02\x09z")   # complete, but an unknown kind
    assert repair_tail(path) == 0
    assert path.read_bytes().startswith(RECORDS)


def test_start_up_repairs_torn_transcripts_with_a_message(tmp_path, capsys):
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    (transcripts / "a.sasaki").write_bytes(RECORDS + b"\x00\x00")
    (transcripts / "b.sasaki").write_bytes(RECORDS)
    args = argparse.Namespace(data_dir=tmp_path, transcript=None)
    assert prepare_directories(args) == tmp_path
    assert split_records((transcripts / "a.sasaki").read_bytes()) == split_records(RECORDS)
    err = capsys.readouterr().err
    assert err.count("torn record") == 1 and "a.sasaki ended in a torn record (2 bytes" in err


def test_a_failed_write_is_truncated_back(tmp_path, monkeypatch):
    path = tmp_path / "t.sasaki"
    with open(path, "xb") as handle:
        append_record(handle, RECORDS, path)
        import p2p_sasaki.protocol.net.disk as disk

        def fsync_fails(fd: int) -> None:
            raise OSError(5, "Input/output error")

        monkeypatch.setattr(disk.os, "fsync", fsync_fails)
        with pytest.raises(DiskError, match=r"disk error: could not write to .*t.sasaki: Input/output error"):
            append_record(handle, encode_record(KIND_ENVELOPE, b"z" * 99), path)
        monkeypatch.undo()
        append_record(handle, encode_record(KIND_ENVELOPE, b"w"), path)
    assert path.read_bytes() == RECORDS + encode_record(KIND_ENVELOPE, b"w")


def test_too_little_free_space_is_a_disk_error(tmp_path):
    with pytest.raises(DiskError, match="KiB free"):
        check_directory(tmp_path, min_free=1 << 62)


@pytest.mark.slow
def test_a_read_only_and_a_full_data_directory(tmp_path):
    report = run_scenario(HERE / "disk_scenario.py", "disk", tmp_path, timeout=120)
    readonly, full = report["readonly"], report["full"]
    assert readonly["rc"] == EXIT_DISK, readonly
    assert readonly["stderr"].strip().splitlines() == [
        f"sasaki: disk error: cannot write to {tmp_path / 'readonly'}: Read-only file system; "
        "free some space or choose another --data-dir."]
    assert full["rc"] == EXIT_DISK, full
    assert "Traceback" not in full["stderr"] and len(full["stderr"].strip().splitlines()) == 1
    assert "disk error: " in full["stderr"] and "KiB free (at least 4096 KiB are needed)" in full["stderr"]
    # the seat was never taken: nothing was advertised or printed as a table
    assert "Table code" not in readonly["stdout"] + full["stdout"]
    assert report["append"].startswith("disk error: could not write to") and "No space left" in report["append"]
    assert report["intact"] is True and report["size"] == 105
