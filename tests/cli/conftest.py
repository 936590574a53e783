"""Fixtures shared by the command tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.peers import ROOT, env


@pytest.fixture(scope="session")
def full_proof_demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """One ``sasaki demo`` with full-size (64-round) proofs, one hand, seed 7, run once for
    the whole session (it is the slowest thing the tests start): its folder (``peerN/``,
    ``peerN.sasaki``) and its output. Tests only read it."""
    directory = tmp_path_factory.mktemp("demo")
    out = subprocess.run([sys.executable, "-P", "-m", "p2p_sasaki", "demo", "--hands", "1", "--seed", "7",
                          "--dir", str(directory)],
                         cwd=ROOT, env=env(), capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stdout + out.stderr
    return directory, out.stdout
