"""Helpers: ``sasaki`` processes on 127.0.0.1 (``python -m cli`` from the repo root)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PLAIN = "tests.cli.plain_session:PlainSession"
HAVE_SESSION = importlib.util.find_spec("protocol.session") is not None
HAVE_TRANSCRIPT = importlib.util.find_spec("protocol.transcript") is not None


def env(plain: bool) -> dict[str, str]:
    e = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    e.pop("SASAKI_SESSION", None)
    if plain:
        e["SASAKI_SESSION"] = PLAIN
    return e


def sasaki(*argv: str, plain: bool, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "cli", *argv], cwd=ROOT, env=env(plain),
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kwargs)


def wait_for(path: Path, process: subprocess.Popen, timeout: float = 20) -> str:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert process.poll() is None, process.stdout.read().decode()
        assert time.monotonic() < deadline, f"{path} did not appear"
        time.sleep(0.05)
    return path.read_text().strip()


def finish(processes: list[subprocess.Popen], timeout: float = 60) -> list[tuple[int, str]]:
    results = []
    for process in processes:
        try:
            out, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            for p in processes:
                p.kill()
            raise
        results.append((process.returncode, out.decode()))
    return results
