"""cli/demo_local.py: `sasaki demo --local [--seed S] [--seats ...] [--hands N] [--record FILE]`."""

from pathlib import Path

from p2p_sasaki.records import replay

from cli.main import main

GOLDEN = Path(__file__).with_name("demo_seed3.txt")


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_demo_output_for_a_fixed_seed(capsys):
    status, out, err = run(capsys, "demo", "--local", "--seed", "3")
    assert status == 0 and err == ""
    assert out == GOLDEN.read_text(encoding="utf-8")
    # The parts a reader looks for, spelled out:
    assert "  S2 chata! 4C 4S out of turn\n  S1 kkojda! 4H: nothing beats it\n  Round over; S1 leads.\n" in out
    assert "  S0 leads 9C 9D 9S (triplet of 9)\n  S0 goes out (1st)\n" in out
    assert "Teams: lone red player S1 against S0, S2, S3.\nMultiplier: x1.\n" in out
    assert "Finishing order: S0, S1, S2, S3.\n" in out


def test_printed_record_replays_to_the_same_result(capsys, tmp_path):
    _, out, _ = run(capsys, "demo", "--local", "--seed", "3")
    record = out.split("Record:\n", 1)[1]
    hand = replay(record)
    assert hand.is_over and hand.finish == (0, 1, 2, 3) and hand.scores == (0, 0, 0, 0)
    path = tmp_path / "printed.txt"
    path.write_text(record, encoding="utf-8")
    status, out, _ = run(capsys, "replay", str(path))
    assert status == 0 and "every line is legal" in out


def test_match_with_record_files_that_pass_replay(capsys, tmp_path):
    base = tmp_path / "game.txt"
    status, out, _ = run(capsys, "demo", "--local", "--seed", "3", "--hands", "3", "--record", str(base),
                         "--seats", "heuristic,random,heuristic,random")
    assert status == 0
    files = [base, tmp_path / "game-2.txt", tmp_path / "game-3.txt"]
    assert sorted(tmp_path.iterdir()) == sorted(files)
    assert out.count("Record written to ") == 3 and "Record:\n" not in out
    assert out.endswith("Match of 3 hands: S0 +10, S1 -38, S2 +14, S3 +14; highest total: S2, S3.\n")
    results = []
    for path in files:
        status, text, _ = run(capsys, "replay", "--json", str(path))
        assert status == 0
        results.append(text.strip())
    assert results == [
        '{"ok": true, "complete": true, "finish": [2, 3, 0, 1], "red": [1], "multiplier": 4, '
        '"scores": [12, -36, 12, 12]}',
        '{"ok": true, "complete": true, "finish": [3, 2, 0, 1], "red": [0, 1], "multiplier": 1, '
        '"scores": [-2, -2, 2, 2]}',
        '{"ok": true, "complete": true, "finish": [0, 1, 2, 3], "red": [0, 3], "multiplier": 1, '
        '"scores": [0, 0, 0, 0]}',
    ]
    assert "S1 runs, showing TD TH: the hand counts double" in out
    assert "S3 calls Stop: the hand counts four times" in out


def test_commands_are_registered(capsys):
    import pytest
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "demo" in out and "simulate" in out and "replay" in out
