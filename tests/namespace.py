"""Run a test scenario script in a network namespace of its own (design.md, Network).

``run_scenario`` re-executes a script under ``unshare --net --mount``: a namespace whose
only interface is ``lo``, so every mDNS packet (zeroconf's, avahi's) stays in it, and it
disappears with the process. The scripts print one JSON report as their last line.
"""

from __future__ import annotations

import json
import os
import shutil
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
    env = dict(os.environ)
    result = subprocess.run(["unshare", "--net", "--mount", sys.executable, str(script), mode, str(workdir)],
                            capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])
