"""``sasaki tournament``: its refusals (one sentence, exit 2) and a demo run as a process
(bot players as processes on 127.0.0.1, the folder audited, the standings printed)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from p2p_sasaki.cli.main import main
from p2p_sasaki.cli.standings import standings_json
from p2p_sasaki.cli.tournament_audit import audit_tournament


@pytest.mark.parametrize("argv, sentence", [
    (["tournament", "host", "--bot"], "a tournament of people has no bots"),
    (["tournament", "join", "7-purple-sausage", "--bot"], "a tournament of people has no bots"),
    (["tournament", "join", "7-purple"], "is not a table code"),
    (["tournament", "join", "7-purple-sausage", "--address", "nowhere"], "is not an address"),
    (["tournament", "demo", "--players", "3"], "a demo tournament has 4 to 16 players"),
    (["tournament", "host", "--rounds", "300"], "at most 255 rounds"),
])
def test_bad_input_is_one_sentence_and_status_2(argv, sentence, capsys, tmp_path):
    assert main([*argv, "--data-dir", str(tmp_path)] if argv[1] != "demo" else argv) == 2
    err = capsys.readouterr().err.strip()
    assert sentence in err and err.count("\n") == 0


def test_a_demo_not_in_an_empty_folder_is_refused(tmp_path, capsys):
    (tmp_path / "x").write_text("")
    assert main(["tournament", "demo", "--dir", str(tmp_path)]) == 2
    assert "is not empty" in capsys.readouterr().err


def test_help_explains_each_subcommand(capsys):
    with pytest.raises(SystemExit):
        main(["tournament", "--help"])
    out = capsys.readouterr().out
    for word in ("host", "join", "demo", "same deal"):
        assert word in out


@pytest.mark.slow
def test_demo_of_five_bot_players_audits(tmp_path):
    folder = tmp_path / "club"
    done = subprocess.run([sys.executable, "-P", "-m", "p2p_sasaki", "tournament", "demo", "--players", "5",
                           "--rounds", "2", "--dir", str(folder)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr + done.stdout
    assert "Standings after round 2 of 2" in done.stdout and "OK:" in done.stdout
    audit = audit_tournament(folder)
    assert audit.ok and audit.rounds == 2 and audit.standings is not None
    shown = json.loads((folder / "standings.json").read_text())
    assert shown == json.loads(json.dumps(standings_json(audit.standings)))
    byes = [record.seating.byes for record in audit.standings.rounds]
    assert len(byes) == 2 and byes[0] != byes[1]


@pytest.mark.parametrize("command, words", [
    ("host", ("one-time code", "press Enter", "--rounds")),
    ("join", ("--address", "every round")),
    ("demo", ("--players", "--rounds", "audit")),
])
def test_each_subcommand_explains_itself(command, words, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["tournament", command, "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out.replace("\n", " ")
    out = " ".join(out.split())
    for word in words:
        assert word in out
