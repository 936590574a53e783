"""cli/simulate.py: `sasaki simulate --hands N --seats ... [--seed S] [--json]`."""

import json

import pytest

import cli.simulate
from cli.main import main


@pytest.fixture
def two_seconds(monkeypatch):
    """The clock reads 10.0 then 12.0: every run takes two seconds."""
    times = iter([10.0, 12.0])
    monkeypatch.setattr(cli.simulate, "clock", lambda: next(times))


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
S0    heuristic     60.0%     +5.025         19        57.9%
S1    random        17.5%     -0.875         13        23.1%
S2    random        10.0%     -0.725         15        26.7%
S3    random        12.5%     -3.425         17         5.9%
Multipliers: x1 15, x2 5, x4 20.
20 hands per second.
"""


def test_json_output_for_a_fixed_seed(capsys, two_seconds):
    status, out, _ = run(capsys, "simulate", "--hands", "40", "--seed", "7", "--json")
    assert status == 0
    assert json.loads(out) == {
        "hands": 40, "seed": 7, "hands_per_second": 20,
        "multipliers": {"x1": 15, "x2": 5, "x4": 20},
        "seats": [
            {"seat": 0, "bot": "heuristic", "first_out_rate": 0.6, "average_score": 5.025,
             "red_hands": 19, "red_win_rate": 0.5789},
            {"seat": 1, "bot": "random", "first_out_rate": 0.175, "average_score": -0.875,
             "red_hands": 13, "red_win_rate": 0.2308},
            {"seat": 2, "bot": "random", "first_out_rate": 0.1, "average_score": -0.725,
             "red_hands": 15, "red_win_rate": 0.2667},
            {"seat": 3, "bot": "random", "first_out_rate": 0.125, "average_score": -3.425,
             "red_hands": 17, "red_win_rate": 0.0588},
        ]}


def test_figures_add_up_and_do_not_depend_on_the_clock():
    a = cli.simulate.simulate(["random"] * 4, 30, seed=3)
    b = cli.simulate.simulate(["random"] * 4, 30, seed=3)
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
