"""Helpers: ``sasaki`` processes on 127.0.0.1 (``python -m cli`` from the repo root)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def env() -> dict[str, str]:
    """A ``sasaki`` process's environment: unbuffered, and its proofs made in its own process
    (each proof worker is an interpreter start, about 0.5 s of CPU, in every peer of every
    test: the pool has its own tests, and test_table_processes runs a creator with two)."""
    return dict(os.environ, PYTHONUNBUFFERED="1", SASAKI_PROOF_WORKERS="0")


def sasaki(*argv: str, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-P", "-m", "p2p_sasaki", *argv], cwd=ROOT, env=env(),
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kwargs)


def wait_for(path: Path, process: subprocess.Popen, timeout: float = 20) -> str:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert process.poll() is None, process.stdout.read().decode() if process.stdout else ""
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
