"""Four ``sasaki`` processes on 127.0.0.1 play whole matches over the real mesh and join.

With the crypto-free session double (``tests/cli/plain_session.py``) the tests check
the driver, the CLI plumbing, transcripts and agreement; with the real
``protocol.session`` (when merged) they also audit every transcript.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from protocol.net import TableCode

from tests.cli.peers import HAVE_SESSION, HAVE_TRANSCRIPT, ROOT, env, finish, sasaki, wait_for

pytestmark = pytest.mark.slow

TOTALS = re.compile(r"Match over\. Totals: (.*)\.")


def play_match(tmp_path, plain: bool, mdns: bool, hands: int = 2, extra=()):
    code = str(TableCode.generate())
    ready = tmp_path / "address"
    host_args = ["host", "--bot", "--seed", "1", "--hands", str(hands), "--lead", "3H", "--interface", "127.0.0.1",
                 "--data-dir", str(tmp_path / "p0"), "--transcript", str(tmp_path / "p0.sasaki"),
                 "--ready-file", str(ready), "--code", code, *extra]
    if not mdns:
        host_args.append("--no-mdns")
    host = sasaki(*host_args, plain=plain)
    address = wait_for(ready, host)
    joiners = []
    for i in (1, 2, 3):
        args = ["join", code, "--bot", "--seed", str(i), "--interface", "127.0.0.1",
                "--data-dir", str(tmp_path / f"p{i}"), "--transcript", str(tmp_path / f"p{i}.sasaki")]
        if not mdns:
            args += ["--address", address]
        joiners.append(sasaki(*args, plain=plain))
    results = finish([host, *joiners], timeout=90)
    for status, out in results:
        assert status == 0, out
    totals = {TOTALS.search(out).group(1) for _, out in results}
    assert len(totals) == 1, totals  # all four agree
    return results, [tmp_path / f"p{i}.sasaki" for i in range(4)]


def test_four_processes_by_address_plain_session(tmp_path):
    results, transcripts = play_match(tmp_path, plain=True, mdns=False)
    host_out = results[0][1]
    assert "Table code: " in host_out and "Hand 2 is over" in host_out
    assert len({p.read_bytes() for p in transcripts}) == 1  # the same canonical records everywhere


def test_four_processes_found_by_mdns_on_loopback(tmp_path):
    results, _ = play_match(tmp_path, plain=True, mdns=True, hands=1)
    assert "Hand 1 is over" in results[0][1]


@pytest.mark.skipif(not (HAVE_SESSION and HAVE_TRANSCRIPT), reason="protocol.session/transcript not merged yet")
def test_real_protocol_match_passes_audit_everywhere(tmp_path):
    results, transcripts = play_match(tmp_path, plain=False, mdns=False, hands=2)
    audits = []
    for path in transcripts:
        out = subprocess.run([sys.executable, "-m", "cli", "audit", "--json", str(path)], cwd=ROOT,
                             env=env(False), capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stdout + out.stderr
        audits.append(json.loads(out.stdout))
    assert len({json.dumps(a["totals"]) for a in audits}) == 1
    assert all(len(a["scores"]) == 2 for a in audits)


def test_network_demo_plain_session(tmp_path):
    out = subprocess.run([sys.executable, "-m", "cli", "demo", "--hands", "2", "--seed", "4", "--dir", str(tmp_path)],
                         cwd=ROOT, env=env(True), capture_output=True, text=True, timeout=90)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "All four peers exited (0, 0, 0, 0)" in out.stdout
    assert "Hand 2 is over" in out.stdout


@pytest.mark.skipif(not (HAVE_SESSION and HAVE_TRANSCRIPT), reason="protocol.session/transcript not merged yet")
def test_network_demo_real_protocol_audits(tmp_path):
    out = subprocess.run([sys.executable, "-m", "cli", "demo", "--hands", "1", "--seed", "4", "--dir", str(tmp_path)],
                         cwd=ROOT, env=env(False), capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Audit: all four transcripts verify and agree" in out.stdout
