"""``sasaki demo --game sasku --fast``: four bot peers as four processes on 127.0.0.1 play a
Sasku match to its target over the real protocol; the four transcripts are identical and
audit; the default seed deals a picture giving, which the audit replays; ``sasaki export``
writes one record per deal that ``sasaki replay`` and the repo's own oracle
(tests/oracle/sasku_oracle.py) accept with the audit's points."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.inproc import cli
from tests.cli.peers import ROOT, env

sys.path.insert(0, str(Path(__file__).parents[1] / "oracle"))

from sasku_oracle import replay_json  # type: ignore[import-not-found]  # noqa: E402

pytestmark = pytest.mark.slow

TARGET = 4


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """The demo is the subject: its four peers are processes, as 'sasaki demo' starts them. The
    audits, exports and replays of its transcripts run in this process (tests/cli/inproc.py)."""
    directory = tmp_path_factory.mktemp("sasku-demo")
    out = subprocess.run([sys.executable, "-P", "-m", "p2p_sasaki", "demo", "--game", "sasku", "--fast", "--target",
                          str(TARGET), "--dir", str(directory)], cwd=ROOT, env=env(), capture_output=True, text=True,
                         timeout=400)
    return directory, out


def test_the_match_is_played_to_its_target_and_the_four_transcripts_agree(demo):
    directory, out = demo
    assert out.returncode == 0, out.stdout + out.stderr
    transcripts = {(directory / f"peer{i}.sasaki").read_bytes() for i in range(4)}
    assert len(transcripts) == 1
    assert "Audit: all four transcripts verify and agree" in out.stdout
    audit = cli("audit", "--json", str(directory / "peer0.sasaki"))
    assert audit.returncode == 0, audit.stdout + audit.stderr
    data = json.loads(audit.stdout)
    assert data["ok"] and data["complete"] and data["status"] == "complete"
    totals = data["totals"]
    assert totals[0] == totals[2] and totals[1] == totals[3] and max(totals) >= TARGET
    # the cards are Sasku's 36 (6 to A), named as the game names them
    assert all(len(cards.split()) == 9 and not re.search(r"\b[345][CDHS]\b", cards)
               for hand in data["hands"] for cards in hand)
    # the calm output: per deal the contract, card points, game points and the race to the target
    deals = len(data["scores"])
    assert out.stdout.count("  Card points: ") == deals and out.stdout.count("  Game points: ") == deals
    assert f"(to {TARGET})." in out.stdout and "The match is over: " in out.stdout


def test_the_default_seed_deals_a_picture_giving_told_as_public_facts_and_audited(demo):
    directory, out = demo
    assert out.returncode == 0, out.stdout + out.stderr
    gives = re.findall(r"S(\d) [^\n]*gives a picture to S(\d)", out.stdout)
    assert gives and all((int(a) + 2) % 4 == int(b) for a, b in gives)
    assert re.search(r"(takes it|refuses it)", out.stdout)
    match = re.search(r"Picture givings audited: (\d+)", out.stdout)
    assert match and int(match.group(1)) == len(gives) >= 1
    # the host's log never names the handed card: the give and return lines carry no card
    for line in out.stdout.splitlines():
        if "gives a picture" in line or "returns a card" in line or "hands the picture back" in line:
            assert not re.search(r"\b[6-9TJQKA][CDHS]\b", line), line


def test_export_gives_records_that_replay_and_the_oracle_accept_with_the_same_points(demo, tmp_path):
    directory, out = demo
    assert out.returncode == 0, out.stdout + out.stderr
    audit = json.loads(cli("audit", "--json", str(directory / "peer0.sasaki")).stdout)
    exported = cli("export", str(directory / "peer0.sasaki"), "--out", str(tmp_path / "records"))
    assert exported.returncode == 0, exported.stderr
    files = [Path(line) for line in exported.stdout.split()]
    assert len(files) == len(audit["scores"]) >= 1
    given = 0
    for path, scores in zip(files, audit["scores"], strict=True):
        text = path.read_text(encoding="utf-8")
        assert '[Game "sasku"]' in text
        given += len(re.findall(r"^S\d give \w\w$", text, re.MULTILINE))
        replayed = cli("replay", "--json", str(path))
        assert replayed.returncode == 0, replayed.stdout + replayed.stderr
        result = json.loads(replayed.stdout)
        assert result["ok"] and result["complete"]
        assert [result["points"][s % 2] for s in range(4)] == scores
        assert replay_json(text) == result     # the repo's independent oracle, the same object
    assert given >= 1


def test_a_person_who_quits_a_sasku_table_leaves_it_and_the_bots_settle_it(tmp_path):
    """A person who joined a Sasku table by its code is shown their first decision and types
    ``quit``: they leave (a signed leave notice, exit status 1); the bots end the match with
    the forfeit (the other pair scores 6), and the transcript audits."""
    import time

    ready = tmp_path / "address"
    host = subprocess.Popen(
        [sys.executable, "-P", "-m", "p2p_sasaki", "host", "--new", "--game", "sasku", "--target", "2", "--bot",
         "--bots", "2", "--bot-kind", "heuristic", "--fast", "--no-proofs", "--no-mdns", "--interface", "127.0.0.1",
         "--data-dir", str(tmp_path / "host"), "--code", "7-purple-sausage", "--ready-file", str(ready),
         "--transcript", str(tmp_path / "host.sasaki")],
        cwd=ROOT, env=env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 60
        while not ready.exists():
            assert host.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        person = subprocess.Popen(
            [sys.executable, "-P", "-m", "p2p_sasaki", "join", "7-purple-sausage", "--new", "--address",
             ready.read_text().strip(), "--interface", "127.0.0.1", "--data-dir", str(tmp_path / "person"),
             "--name", "Mina"], cwd=ROOT, env=env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, bufsize=1)
        assert person.stdin is not None and person.stdout is not None
        seen = []
        for line in person.stdout:          # typed once the first decision is asked (earlier lines are dropped)
            seen.append(line)
            if line.startswith("  (Type"):
                person.stdin.write("quit\ny\n")
                person.stdin.flush()
                break
        rest, _ = person.communicate(timeout=120)
        joined = subprocess.CompletedProcess(person.args, person.returncode, "".join(seen) + rest, "")
        out, _ = host.communicate(timeout=120)
    finally:
        for process in [host] + ([person] if "person" in locals() else []):
            if process.poll() is None:
                process.kill()
                process.wait()
    assert joined.returncode == 1, joined.stdout + joined.stderr
    assert "(Type" in joined.stdout and "You leave the table." in joined.stdout   # asked a Sasku decision
    assert "Traceback" not in joined.stdout + joined.stderr
    assert host.returncode == 0, out
    assert "Mina left during hand 1" not in out and "forfeits it; nobody is blamed" in out
    audit = json.loads(cli("audit", "--json", str(tmp_path / "host.sasaki")).stdout)
    assert audit["ok"] and sorted(audit["totals"]) == [0, 0, 6, 6]
