"""Run a test scenario script in a network namespace of its own (design.md, Network).

``run_scenario`` re-executes a script under ``unshare --net --mount``: a namespace whose
only interface is ``lo``, so every mDNS packet (zeroconf's, avahi's) stays in it, and it
disappears with the process. The scripts print one JSON report as their last line.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def namespace_unavailable() -> str | None:
    """Why no network namespace can be made here, or None (CI runs as root)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "creating a network namespace needs root (CI runs as root)"
    for tool in ("unshare", "ip", "mount"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    probe = subprocess.run(["unshare", "--net", "--mount", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"unshare --net --mount fails here: {probe.stderr.strip()}"
    return None


def run_scenario(script: Path, mode: str, workdir: Path, timeout: float) -> dict:
    """Run ``script MODE WORKDIR`` in a fresh namespace; its JSON report (skip if impossible)."""
    reason = namespace_unavailable()
    if reason:
        pytest.skip(reason)
    return Scenario(script, mode, workdir).report(timeout)


class Scenario:
    """``script MODE WORKDIR`` started now in a fresh namespace of its own, to be waited for
    later: several scenarios wait on their mDNS side by side, each in its own namespace (the
    caller checks :func:`namespace_unavailable` first). Its output goes to files in WORKDIR."""

    def __init__(self, script: Path, mode: str, workdir: Path) -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        self.out, self.err = workdir / f"{mode}.report", workdir / f"{mode}.stderr"
        with self.out.open("wb") as out, self.err.open("wb") as err:
            self.process = subprocess.Popen(["unshare", "--net", "--mount", sys.executable, str(script), mode,
                                             str(workdir)], stdout=out, stderr=err, env=dict(os.environ), cwd=ROOT,
                                            start_new_session=True)

    def report(self, timeout: float) -> dict:
        """Its JSON report, once it has ended (it is killed after ``timeout`` seconds)."""
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise
        assert self.process.returncode == 0, self.err.read_text()[-3000:]
        return json.loads(self.out.read_text().strip().splitlines()[-1])

    def kill(self) -> None:
        """End it and the commands it started (its process group; a terminal's has its own)."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
