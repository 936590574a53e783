"""Determinized Monte Carlo search (PIMC): the search bots of both games.

A search bot sees one seat's view. For a decision with more than one answer worth
trying, :func:`best_answer`

1. *samples a world*: a full game state consistent with everything public in the
   view, the hidden cards drawn at random (the game's :meth:`SearchGame.sample`);
2. *plays every candidate answer forward* from that world to the end with a fast
   rollout policy for every seat (:meth:`SearchGame.play`, then
   :meth:`SearchGame.rollout`, which values the end for each seat: its own score in
   Sasaki, its pair's game points in Sasku);
3. repeats with fresh samples until its budget is spent, and picks the candidate with
   the best mean value (every candidate on the same samples, so the differences
   between candidates are not drowned by the luck of a deal; ties to the earlier).

The budget is counted in rollouts, so a seed gives the same choice on any machine.
A time limit can be added (``seconds`` with a ``clock``: this package has none of
its own), checked between samples; a bot with one is no longer reproducible.

Each game gives its rules to the search through a :class:`SearchGame`: how to
sample a world for a view, answer the decision, play a world out and value its end.
The rollout is the game's whole play-out loop (who decides, the legal answers, the
policy's pick, applying it) rather than four separate calls, because it is the
search's hot loop and each game plays it out on card masks in its own fast way.

>>> from random import Random
>>> class Coin:  # a toy game: the world is a hidden coin, and the answer guesses it
...     def sample(self, view, rng): return rng.random() < 0.7
...     def play(self, world, action): return (world, action)
...     def rollout(self, world): return [1 if world[0] == world[1] else 0]
>>> best_answer(Coin(), None, 0, [False, True], Random(1), rollouts=40)
(True, 40)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from random import Random
from typing import Protocol, TypeVar

__all__ = ["SearchGame", "best_answer"]

View = TypeVar("View", contravariant=True)
World = TypeVar("World")
Action = TypeVar("Action", contravariant=True)
V = TypeVar("V")
W = TypeVar("W")
A = TypeVar("A")


class SearchGame(Protocol[View, World, Action]):
    """What a game gives the search: worlds consistent with a view, and their play-out."""

    def sample(self, view: View, rng: Random) -> World | None:
        """A full state in the view's decision, hidden cards drawn at random among those
        consistent with everything public; ``None`` when the draw failed (then the
        search draws again, and gives up once failures outnumber rollouts)."""
        ...

    def play(self, world: World, action: Action) -> World:
        """The world after ``action`` answers its decision (other seats deciding at the
        same time answer by the rollout policy); ``world`` itself stays as it was."""
        ...

    def rollout(self, world: World) -> Sequence[float]:
        """Play ``world`` to its end, every seat by the rollout policy, and value the end
        for each seat, by seat number (higher is better). ``world`` may be changed: it
        is one that :meth:`play` returned."""
        ...


def best_answer(game: SearchGame[V, W, A], view: V, seat: int, choices: Sequence[A], rng: Random,
                rollouts: int, seconds: float | None = None,
                clock: Callable[[], float] | None = None) -> tuple[A, int]:
    """The candidate of ``choices`` with the best mean value for ``seat`` over sampled
    worlds, and the rollouts spent: at least ``rollouts`` (whole samples: every
    candidate is played on each), fewer when ``seconds`` on ``clock`` run out first
    (checked between samples, after the first) or worlds cannot be sampled."""
    out_of_time: Callable[[], bool] | None = None
    if seconds is not None and clock is not None:
        now, deadline = clock, clock() + seconds
        out_of_time = lambda: now() >= deadline  # noqa: E731
    totals: list[float] = [0] * len(choices)
    spent = 0
    failed = 0
    while spent < rollouts:
        if out_of_time is not None and spent and out_of_time():
            break
        base = game.sample(view, rng)
        if base is None:  # never loop for ever
            failed += 1
            if failed > 3 and failed > spent:
                break
            continue
        for i, action in enumerate(choices):
            totals[i] += game.rollout(game.play(base, action))[seat]
            spent += 1
    best = max(range(len(choices)), key=lambda i: (totals[i], -i))
    return choices[best], spent
