"""cli/demo_local.py: `sasaki demo --local [--seed S] [--seats ...] [--hands N] [--record FILE]`."""

from pathlib import Path

from p2p_sasaki.cli.main import main
from p2p_sasaki.sasaki.records import replay

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
    assert out.endswith("Match of 3 hands: S0 -2, S1 +2, S2 +2, S3 -2; highest total: S1, S2.\n")
    results = []
    for path in files:
        status, text, _ = run(capsys, "replay", "--json", str(path))
        assert status == 0
        results.append(text.strip())
    assert results == [
        '{"ok": true, "complete": true, "finish": [0, 2, 1, 3], "red": [1], "multiplier": 4, '
        '"scores": [0, 0, 0, 0]}',
        '{"ok": true, "complete": true, "finish": [2, 0, 1, 3], "red": [0, 1], "multiplier": 1, '
        '"scores": [0, 0, 0, 0]}',
        '{"ok": true, "complete": true, "finish": [2, 0, 1, 3], "red": [0, 3], "multiplier": 2, '
        '"scores": [-2, 2, 2, -2]}',
    ]
    assert "S1 runs, showing TD TH: the hand counts double" in out
    assert "S3 calls Stop: the hand counts four times" in out
    assert "  S3 runs, showing TD: the hand counts double\n" \
           "  S0 must show TH too, and the partners swap their red tens\n" in out


def test_commands_are_registered(capsys):
    import pytest
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "demo" in out and "simulate" in out and "replay" in out


def test_play_steps_tell_each_decision_in_the_renderers_words():
    import random

    from p2p_sasaki.cli.render import play_steps
    from p2p_sasaki.sasaki.bots import HeuristicBot
    from p2p_sasaki.sasaki.hand import DecisionKind, Hand

    hand = Hand.random(random.Random(0), "3H")
    told = list(play_steps(hand, [HeuristicBot(random.Random(s)) for s in range(4)]))
    assert told[0].decision.kind is DecisionKind.RUN
    assert told[0].lines == ("S1 does not run", "S2 does not run", "S3 does not run",
                             "S0 does not run", "Multiplier x1; S1 leads.")
    assert told[1].lines[0].startswith("S1 leads ")
    assert told[-1].lines[-1] == f"The hand is over: S{hand.finish[3]} is last."
    chatas = [t for t in told if t.decision.kind is DecisionKind.CHATA]
    assert all(t.lines == () for t in chatas if all(a.verb == "decline" for a in t.answers))
