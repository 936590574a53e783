"""Run inside ``unshare --net --mount`` (tests/namespace.py): a read-only and a full data
directory, each a small tmpfs mounted in this namespace only. Prints a JSON report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from p2p_sasaki.protocol.net.disk import DiskError, append_record
from p2p_sasaki.protocol.transcript import KIND_ENVELOPE, KIND_HEADER, encode_record


def mount_tmpfs(path: Path, size: str, *options: str) -> None:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", ",".join((f"size={size}", *options)), "tmpfs", str(path)],
                   check=True)


def sasaki(data_dir: Path) -> dict:
    out = subprocess.run([sys.executable, "-P", "-m", "p2p_sasaki", "host", "--data-dir", str(data_dir),
                          "--no-mdns", "--interface", "127.0.0.1", "--bots", "3", "--quiet"],
                         capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    return {"rc": out.returncode, "stdout": out.stdout, "stderr": out.stderr}


def main() -> None:
    work = Path(sys.argv[2])
    subprocess.run(["mount", "--make-rprivate", "/"], check=True)
    report: dict[str, object] = {}

    readonly = work / "readonly"
    mount_tmpfs(readonly, "1m", "ro")
    report["readonly"] = sasaki(readonly)

    full = work / "full"
    mount_tmpfs(full, "1m")
    report["full"] = sasaki(full)

    # a record that does not fit is not written at all: the file keeps its complete records
    path = full / "t.sasaki"
    with open(path, "xb") as handle:
        append_record(handle, encode_record(KIND_HEADER, b"h" * 100), path)
        filler = full / "filler"
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
        try:
            while os.write(fd, b"\0" * 4096):
                pass
        except OSError:
            pass
        finally:
            os.close(fd)
        before = path.read_bytes()
        try:
            append_record(handle, encode_record(KIND_ENVELOPE, os.urandom(200_000)), path)
            report["append"] = "written"
        except DiskError as error:
            report["append"] = str(error.strerror)
        report["intact"] = path.read_bytes() == before
        report["size"] = path.stat().st_size
    print(json.dumps(report))


if __name__ == "__main__":
    main()
