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
    assert "give four bots separated by commas, each one of random, heuristic, search" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    out = capsys.readouterr().out
    assert "--hands N" in out and "red side won" in out and "--seed" in out


# -- duplicate matches --------------------------------------------------------------------

def test_duplicate_is_the_same_for_the_same_seed(capsys):
    argv = ("simulate", "--duplicate", "--hands", "3", "--seed", "4", "--level", "1",
            "--seats", "search,heuristic,random,heuristic", "--json")
    first = run(capsys, *argv)
    second = run(capsys, *argv)
    assert first == second and first[0] == 0
    result = json.loads(first[1])
    assert result["deals"] == 3 and result["hands"] == 12 and result["level"] == 1
    assert [b["kind"] for b in result["bots"]] == ["search", "heuristic", "random", "heuristic"]
    assert sum(b["mean"] for b in result["bots"]) == pytest.approx(0)  # zero-sum, deal by deal


def test_duplicate_rotates_every_bot_through_every_seat():
    seed = cli_simulate.deal_seed(9, 0)
    kinds = ["heuristic"] * 4
    # the same bots in the same seats give the same hand: rotation r's bot i is seat (i + r) % 4
    by_bot = [cli_simulate.play_rotation(kinds, seed, r) for r in range(4)]
    assert all(sum(scores) == 0 for scores in by_bot)
    deal = cli_simulate.play_deal(kinds, seed)
    assert deal == tuple(sum(scores[i] for scores in by_bot) / 4 for i in range(4))


def test_duplicate_random_against_random_contains_zero_heuristic_against_random_excludes_it():
    random_bots = cli_simulate.duplicate(["random"] * 4, 60, seed=1)
    assert random_bots.interval(0).contains(0.0)
    heuristic = cli_simulate.duplicate(["heuristic", "random", "random", "random"], 60, seed=1)
    assert heuristic.interval(0).low > 0


def test_duplicate_over_processes_gives_the_same_figures(capsys):
    one = cli_simulate.duplicate(["heuristic", "random", "random", "random"], 6, seed=5)
    two = cli_simulate.duplicate(["heuristic", "random", "random", "random"], 6, seed=5, jobs=2)
    assert one.per_deal == two.per_deal and len(one.per_deal) == 6
    status, out, _ = run(capsys, "simulate", "--duplicate", "--hands", "20", "--seed", "2", "--jobs", "2",
                         "--seats", "heuristic,random,random,random")
    assert status == 0 and out == EXPECTED_DUPLICATE
    assert run(capsys, "simulate", "--jobs", "0")[:2] == (2, "sasaki simulate: --jobs must be at least 1.\n")


def test_duplicate_text(capsys):
    status, out, _ = run(capsys, "simulate", "--duplicate", "--hands", "20", "--seed", "2",
                         "--seats", "heuristic,random,random,random")
    assert status == 0
    assert out == EXPECTED_DUPLICATE


EXPECTED_DUPLICATE = """\
20 deals x 4 rotations = 80 hands, seed 2.
bot  kind       points per hand  95% interval
B0   heuristic           +4.263  [+2.705, +5.820]
B1   random              -1.688  [-2.772, -0.603]
B2   random              -1.913  [-4.147, +0.322]
B3   random              -0.662  [-2.280, +0.955]
"""


# -- where a bot can sit ------------------------------------------------------------------

def test_bot_kind_and_level_choose_the_table_bot():
    from p2p_sasaki.cli.common import make_player
    from p2p_sasaki.cli.main import build_parser
    from p2p_sasaki.sasaki.bots import HeuristicBot, SearchBot

    parser = build_parser()
    player = make_player(parser.parse_args(["join", "7-a-b", "--bot", "--seed", "1",
                                            "--bot-kind", "search", "--level", "1"]))
    bot = player.bot.bot_for(None)   # the bot of a Sasaki seat (a joiner plays the creator's game)
    assert isinstance(bot, SearchBot) and bot.rollouts == 10 and player.bot.thinks
    player = make_player(parser.parse_args(["join", "7-a-b", "--bot", "--seed", "1"]))
    assert isinstance(player.bot.bot_for(None), HeuristicBot)  # --bot alone: the quick heuristic bot
    assert not player.bot.thinks
    args = parser.parse_args(["host", "--bots", "3"])
    assert args.bot_kind is None and args.level == 4  # host --bots: search (cli/host.py)


def test_a_thinking_table_bot_passes_the_tables_time_budget_to_the_games_bot():
    """The driver gives a search bot ``seconds`` on ``clock`` at a paced table (asking.py);
    the command line's bot for either game hands them on, and a quick bot is asked without."""
    import time

    from p2p_sasaki.cli.common import GameBot

    class Recorder:
        def __init__(self):
            self.calls = []

        def choose(self, view, legal, **budget):
            self.calls.append(budget)
            return legal[0]

    bot = GameBot("search", 1, 1)
    bot._sasaki = recorder = Recorder()
    assert bot.choose(None, ["a", "b"], seconds=0.5, clock=time.monotonic) == "a"
    assert bot.choose(None, ["a", "b"]) == "a"
    assert recorder.calls == [{"seconds": 0.5, "clock": time.monotonic}, {}]
