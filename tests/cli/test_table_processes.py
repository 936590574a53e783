"""Four ``sasaki`` peers on 127.0.0.1 play whole matches over the real protocol:
the join with a table code, the mesh, the mental-poker deal with proofs, the
slotted-lockstep session; every transcript then passes ``sasaki audit``. Four processes:
the network demo's full-proof run, the session's shared one (tests/cli/conftest.py). The
two-hand match keeps the creator a process (its proof workers are processes of its own)
and runs its joiners in this process; the join by mDNS runs its four commands in this
process (tests/cli/inproc.py): mDNS is its point."""

from __future__ import annotations

import json
import os
import re

import pytest
import trio

from p2p_sasaki.cli.render import places_text
from p2p_sasaki.protocol.net import TableCode
from tests.cli.inproc import cli, play
from tests.cli.peers import finish, sasaki

pytestmark = pytest.mark.slow

TOTALS = re.compile(r"Match over\. Totals: (.*)\.")


async def play_match(tmp_path, hands: int = 2, extra=()):
    """The creator as a process (with ``extra`` options), its three joiners as commands in
    this process (tests/cli/inproc.py); each one's status and output."""
    code = str(TableCode.generate())
    ready = tmp_path / "address"
    host_args = ["host", "--bot", "--seed", "1", "--hands", str(hands), "--lead", "3H", "--interface", "127.0.0.1",
                 "--window", "0", "--claim-window", "0", "--bot-turn", "0", "--data-dir", str(tmp_path / "p0"),
                 "--transcript", str(tmp_path / "p0.sasaki"),
                 "--ready-file", str(ready), "--code", code, "--no-mdns", *extra]
    host = sasaki(*host_args)
    try:
        with trio.fail_after(20):   # "the creator's address did not appear"
            while not ready.exists():
                assert host.poll() is None, host.stdout.read().decode()
                await trio.sleep(0.02)
        address = ready.read_text().strip()
        joins = [["join", code, "--bot", "--seed", str(i), "--interface", "127.0.0.1",
                  "--data-dir", str(tmp_path / f"p{i}"), "--transcript", str(tmp_path / f"p{i}.sasaki"),
                  "--address", address] for i in (1, 2, 3)]
        joiners = await play(*joins, deadline=150)
        (creator,) = await trio.to_thread.run_sync(lambda: finish([host], timeout=60))
    finally:   # never leave the creator behind, whatever failed
        if host.poll() is None:
            host.kill()
            host.wait()
    results = [creator, *((peer.status, peer.text()) for peer in joiners)]
    for status, out in results:
        assert status == 0, out
    totals = {TOTALS.search(out).group(1) for _, out in results}
    assert len(totals) == 1, totals  # all four agree
    return results, [tmp_path / f"p{i}.sasaki" for i in range(4)]


def audit(path) -> dict:
    """``sasaki audit --json`` (in this process: tests/cli/inproc.py)."""
    out = cli("audit", "--json", str(path))
    assert out.returncode == 0, out.stdout + out.stderr
    return json.loads(out.stdout)


async def test_four_peers_play_a_two_hand_match_and_every_transcript_audits(tmp_path, no_fsync):
    """The creator, a process, proves on two worker processes; its three joiners (commands in
    this process, proving in their own) check those proofs, as they check each other's."""
    results, transcripts = await play_match(tmp_path, hands=2, extra=("--proof-workers", "2"))
    host_out = results[0][1]
    assert "Table code: " in host_out and "Hand 2 is over" in host_out
    assert len({p.read_bytes() for p in transcripts}) == 1  # the same canonical records everywhere
    audits = [audit(path) for path in transcripts]
    assert all(a["ok"] for a in audits)
    assert len({json.dumps(a["totals"]) for a in audits}) == 1
    assert all(len(a["scores"]) == 2 for a in audits)
    assert sum(audits[0]["totals"]) == 0  # zero-sum
    assert TOTALS.search(host_out).group(1) == places_text(audits[0]["totals"])


async def test_four_peers_found_by_mdns_on_loopback(tmp_path, no_fsync):
    """The joiners find the creator's table by mDNS on 127.0.0.1 (``--creator``: other tables
    on this machine's loopback may share the number). mDNS is the point, not the processes
    (the full-proof demo below has four): the four commands run in this process (tests/cli/inproc.py)."""
    code = str(TableCode.generate())
    creator = f"Host {os.getpid()}"
    host_args = ["host", "--bot", "--seed", "1", "--hands", "1", "--lead", "3H", "--interface", "127.0.0.1",
                 "--window", "0", "--claim-window", "0", "--bot-turn", "0", "--data-dir", str(tmp_path / "p0"),
                 "--transcript", str(tmp_path / "p0.sasaki"), "--code", code, "--no-proofs",
                 "--name", creator, "--keep-number"]
    joins = [["join", code, "--bot", "--seed", str(i), "--interface", "127.0.0.1",
              "--data-dir", str(tmp_path / f"p{i}"), "--transcript", str(tmp_path / f"p{i}.sasaki"),
              "--creator", creator] for i in (1, 2, 3)]
    results = await play(host_args, *joins, deadline=150)
    for peer in results:
        assert peer.status == 0, peer.text()
    totals = {TOTALS.search(peer.text()).group(1) for peer in results}
    assert len(totals) == 1, totals  # all four agree
    assert "Hand 1 is over" in results[0].text()
    assert audit(tmp_path / "p0.sasaki")["ok"]


def test_network_demo_with_full_proofs_audits(full_proof_demo):
    """The README's main command, as it runs on a fresh machine (64-round proofs); the
    session's one run (tests/cli/conftest.py, shared with test_audit_export.py)."""
    _, out = full_proof_demo
    assert "All four peers exited (0, 0, 0, 0)" in out
    assert "Hand 1 is over" in out
    assert "Audit: all four transcripts verify and agree" in out
