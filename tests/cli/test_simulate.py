"""cli/simulate.py: `sasaki simulate --hands N --seats ... [--seed S] [--json]`."""

import json

import pytest

from p2p_sasaki.cli import simulate as cli_simulate
from p2p_sasaki.cli.main import main


@pytest.fixture
def two_seconds(monkeypatch):
    """The clock reads 10.0 then 12.0: every run takes two seconds."""
    times = iter([10.0, 12.0])
    monkeypatch.setattr(cli_simulate, "clock", lambda: next(times))


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_text_output_for_a_fixed_seed(capsys, two_seconds):
    status, out, err = run(capsys, "simulate", "--hands", "40", "--seed", "7",
                           "--seats", "heuristic,random,random,random")
    assert status == 0 and err == ""
    assert out == EXPECTED_TEXT


EXPECTED_TEXT = """\
40 hands, seed 7.
seat  bot        first out  avg score  red hands  red side won
S0    heuristic     55.0%     +4.700         19        73.7%
S1    random         5.0%     -3.050         13        15.4%
S2    random        17.5%     +0.000         15        46.7%
S3    random        22.5%     -1.650         17        29.4%
Multipliers: x1 18, x2 6, x4 16.
20 hands per second.
"""


def test_json_output_for_a_fixed_seed(capsys, two_seconds):
    status, out, _ = run(capsys, "simulate", "--hands", "40", "--seed", "7", "--json")
    assert status == 0
    assert json.loads(out) == {
        "hands": 40, "seed": 7, "hands_per_second": 20,
        "multipliers": {"x1": 18, "x2": 6, "x4": 16},
        "seats": [
            {"seat": 0, "bot": "heuristic", "first_out_rate": 0.55, "average_score": 4.7,
             "red_hands": 19, "red_win_rate": 0.7368},
            {"seat": 1, "bot": "random", "first_out_rate": 0.05, "average_score": -3.05,
             "red_hands": 13, "red_win_rate": 0.1538},
            {"seat": 2, "bot": "random", "first_out_rate": 0.175, "average_score": 0.0,
             "red_hands": 15, "red_win_rate": 0.4667},
            {"seat": 3, "bot": "random", "first_out_rate": 0.225, "average_score": -1.65,
             "red_hands": 17, "red_win_rate": 0.2941},
        ]}


def test_figures_add_up_and_do_not_depend_on_the_clock():
    a = cli_simulate.simulate(["random"] * 4, 30, seed=3)
    b = cli_simulate.simulate(["random"] * 4, 30, seed=3)
    assert [vars(t) for t in a.seats] == [vars(t) for t in b.seats]
    assert sum(t.first_out for t in a.seats) == 30
    assert sum(t.score for t in a.seats) == 0            # zero-sum, hand by hand
    assert sum(a.multipliers.values()) == 30
    assert 30 <= sum(t.red_hands for t in a.seats) <= 60  # one or two red seats a hand


def test_bad_seats_and_help(capsys):
    with pytest.raises(SystemExit):
        main(["simulate", "--seats", "heuristic,random"])
    assert "give four bots separated by commas, each one of random, heuristic" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    out = capsys.readouterr().out
    assert "--hands N" in out and "red side won" in out and "--seed" in out
