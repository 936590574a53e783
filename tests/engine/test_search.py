"""p2p_sasaki/search.py: the determinized Monte Carlo loop both games' search bots share."""

from __future__ import annotations

from random import Random

from p2p_sasaki.search import best_answer


class Dice:
    """A toy game: the hidden world is a die; answer ``a`` scores ``a`` if the die shows
    at least ``a``, else 0. Records what the search asked of it."""

    def __init__(self, fail: int = 0) -> None:
        self.fail = fail  # this many samples fail first
        self.samples = 0
        self.values: list[tuple[int, int]] = []

    def sample(self, view: str, rng: Random) -> list[int] | None:
        assert view == "the view"
        if self.fail:
            self.fail -= 1
            return None
        self.samples += 1
        return [int(rng.random() * 6) + 1, 0]

    def play(self, world: list[int], action: int) -> list[int]:
        return [world[0], action]

    def rollout(self, world: list[int]) -> list[int]:
        score = world[1] if world[0] >= world[1] else 0
        return [0, 0, score, 0]


def test_every_candidate_is_played_on_the_same_samples_and_the_best_mean_wins():
    game = Dice()
    # means: 1 -> 1, 3 -> 3 * 4/6 = 2, 4 -> 4 * 3/6 = 2, 6 -> 1
    choice, spent = best_answer(game, "the view", 2, [1, 3, 4, 6], Random(0), rollouts=2000)
    assert choice in (3, 4) and spent == 2000 and game.samples == 500


def test_the_budget_is_whole_samples_and_a_seed_gives_the_same_choice():
    runs = [best_answer(Dice(), "the view", 2, [2, 3, 4], Random(7), rollouts=10) for _ in range(2)]
    assert runs[0] == runs[1] and runs[0][1] == 12  # four samples of three candidates


def test_ties_go_to_the_earlier_candidate():
    assert best_answer(Dice(), "the view", 2, [5, 5, 5], Random(1), rollouts=30)[0] == 5
    assert best_answer(Dice(), "the view", 2, [0, 0], Random(1), rollouts=30) == (0, 30)


def test_failed_samples_are_drawn_again_and_the_search_gives_up_when_they_outnumber_rollouts():
    game = Dice(fail=3)
    assert best_answer(game, "the view", 2, [1, 2], Random(0), rollouts=4) == (best_answer(
        Dice(), "the view", 2, [1, 2], Random(0), rollouts=4)[0], 4)
    game = Dice(fail=10**6)
    assert best_answer(game, "the view", 2, [1, 2], Random(0), rollouts=100) == (1, 0)


def test_a_time_limit_stops_between_samples_after_the_first():
    ticks = iter(range(100))
    game = Dice()
    # the clock reads 0 at the start, then 1, 2, ... once per sample: 3.0 s allow three samples
    choice, spent = best_answer(game, "the view", 2, [1, 2], Random(0), rollouts=1000, seconds=3.0,
                                clock=lambda: next(ticks))
    assert spent == 6 and game.samples == 3
    # the first sample is always played, however short the limit
    _, spent = best_answer(Dice(), "the view", 2, [1, 2], Random(0), rollouts=1000, seconds=0.0,
                           clock=lambda: 5.0)
    assert spent == 2
