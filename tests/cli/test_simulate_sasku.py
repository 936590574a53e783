"""cli/simulate_sasku.py: `sasaki simulate --game sasku --hands N --seats A,B,A,B [--duplicate] [--jobs N] [--json]`."""

import itertools
import json

import pytest

from p2p_sasaki.cli import simulate_sasku
from p2p_sasaki.cli.main import main


@pytest.fixture
def two_seconds(monkeypatch):
    """The clock reads 10.0 then 12.0: every run takes two seconds; a decision 0.25 s."""
    times = itertools.cycle([10.0, 12.0])
    monkeypatch.setattr(simulate_sasku, "clock", lambda: next(times))
    ticks = iter(x * 0.25 for x in range(10**6))
    monkeypatch.setattr(simulate_sasku, "decision_clock", lambda: next(ticks))


def run(capsys, *argv):
    status = main(["simulate", "--game", "sasku", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_text_output_for_a_fixed_seed(capsys, two_seconds):
    status, out, err = run(capsys, "--hands", "30", "--seed", "7")  # default seats: heuristic,random,...
    assert status == 0 and err == ""
    assert out == """\
Sasku: 30 deals, seed 7.
bots (seats)       game points per deal  95% interval
heuristic (S0 S2)                +1.867  [+1.099, +2.634]
random (S1 S3)                   -1.867  [-2.634, -1.099]
Declared 30 of 30 (diamonds 20), all passed 0, pokk 1.
15 deals per second.
"""


def test_a_slow_run_shows_a_tenth_of_a_deal_per_second(capsys, two_seconds):
    status, out, _ = run(capsys, "--hands", "3", "--seed", "7")
    assert status == 0 and out.endswith("\n1.5 deals per second.\n")


def test_duplicate_text_with_mixed_pairs(capsys, two_seconds):
    status, out, _ = run(capsys, "--hands", "20", "--seed", "2", "--duplicate",
                         "--seats", "heuristic,random,random,heuristic")
    assert status == 0
    assert out == """\
Sasku: 20 deals x 2 lines = 40 deals played, seed 2.
bots (seats)                   game points per deal  95% interval
heuristic+random (both lines)                +0.650  [-0.224, +1.524]
random+heuristic (both lines)                -0.650  [-1.524, +0.224]
Declared 40 of 40 (diamonds 35), all passed 0, pokk 0.
20 deals per second.
"""


def test_duplicate_json(capsys, two_seconds):
    status, out, _ = run(capsys, "--hands", "20", "--seed", "2", "--duplicate", "--json")
    assert status == 0
    assert json.loads(out) == {
        "deals": 20, "lines": 40, "seed": 2, "duplicate": True, "level": None, "deals_per_second": 20,
        "bots": [{"kind": "heuristic", "seats": [0, 2], "mean": 1.825, "ci95": [1.1532, 2.4968]},
                 {"kind": "random", "seats": [1, 3], "mean": -1.825, "ci95": [-2.4968, -1.1532]}]}


def test_search_decisions_are_timed_and_the_level_is_named(capsys, two_seconds):
    status, out, _ = run(capsys, "--hands", "1", "--seed", "1", "--duplicate", "--level", "1",
                         "--seats", "search,heuristic,search,heuristic", "--json")
    result = json.loads(out)
    assert status == 0 and result["level"] == 1 and result["deals"] == 1
    timing = result["decision_seconds"]
    assert timing["median"] == timing["worst"] == 0.25 and timing["decisions"] > 10
    status, out, _ = run(capsys, "--hands", "1", "--seed", "1", "--duplicate", "--level", "1",
                         "--seats", "search,heuristic,search,heuristic")
    assert "search level 1 (10 rollouts)" in out
    assert f"Searched decisions: {timing['decisions']}, median 0.250 s, worst 0.250 s (CPU)." in out


def test_a_deal_played_twice_swaps_the_pairs_bots():
    seed = simulate_sasku.deal_seed(3, 0)
    first = simulate_sasku.play_line(["heuristic", "random"] * 2, seed, 0, 0, 1, [])
    second = simulate_sasku.play_line(["heuristic", "random"] * 2, seed, 0, 1, 1, [])
    assert [first.dealt(s) for s in range(4)] == [second.dealt(s) for s in range(4)]  # the same cards
    result = simulate_sasku.play_one(["heuristic", "random"] * 2, 3, 1, True, 0)
    from p2p_sasaki.sasku.scoring import line_result
    assert first.points is not None and second.points is not None
    assert result.result == (line_result(first.points, 0) + line_result(second.points, 1)) / 2


def test_processes_give_the_same_figures():
    one = simulate_sasku.simulate(["heuristic", "random", "random", "random"], 8, 5, 1, duplicate=True)
    two = simulate_sasku.simulate(["heuristic", "random", "random", "random"], 8, 5, 1, duplicate=True, jobs=2)
    assert one.results == two.results and len(one.results) == 8


def test_heuristic_against_random_excludes_zero_random_against_random_contains_it():
    heuristic = simulate_sasku.simulate(["heuristic", "random"] * 2, 60, 1, 1, duplicate=True)
    assert heuristic.interval(0).low > 0
    assert heuristic.interval(1).high < 0
    random_bots = simulate_sasku.simulate(["random"] * 4, 60, 1, 1, duplicate=True)
    assert random_bots.interval(0).contains(0.0)
