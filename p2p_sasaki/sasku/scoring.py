"""A deal's game points: made, failed, diamonds, jänn, karvane, üleküla and pokk.

Pairs are 0 (seats S0 and S2) and 1 (S1 and S3). Each deal scores game points to
at most one pair; :func:`line_result` turns them into a line's result (-6..+6).

>>> deal_points(declarer=1, diamonds=False, card_points=(70, 50), tricks=(5, 4))  # S1 fails
(2, 0)
>>> deal_points(declarer=0, diamonds=True, card_points=(95, 25), tricks=(8, 1))
(3, 0)
>>> deal_points(declarer=None, diamonds=True, card_points=(61, 59), tricks=(4, 5))
(1, 0)
>>> line_result((0, 2), pair=0)
-2
"""

from __future__ import annotations

from enum import Enum

__all__ = ["Outcome", "deal_points", "deal_outcome", "line_result", "pair_of", "MAKES", "JANN_BELOW"]

MAKES = 61         # card points that make the game; 60-60 is pokk
JANN_BELOW = 31    # the losing pair took fewer card points than this: jänn, one more point
KARVANE = 6


class Outcome(Enum):
    """How a finished deal scored (the rules' names)."""

    MADE = "made"
    FAILED = "failed"            # "overthrown"
    KARVANE = "karvane"          # one pair took every trick
    ULEKULA = "üleküla"          # all passed: diamonds, no declarer
    POKK = "pokk"                # 60-60: nobody scores


def pair_of(seat: int) -> int:
    """S0 and S2 are pair 0, S1 and S3 pair 1."""
    return seat & 1


def deal_outcome(declarer: int | None, card_points: tuple[int, int], tricks: tuple[int, int]) -> Outcome:
    if card_points[0] == card_points[1]:
        return Outcome.POKK
    if declarer is None:
        return Outcome.ULEKULA
    if 0 in tricks:
        return Outcome.KARVANE
    return Outcome.MADE if card_points[pair_of(declarer)] >= MAKES else Outcome.FAILED


def deal_points(declarer: int | None, diamonds: bool, card_points: tuple[int, int],
                tricks: tuple[int, int]) -> tuple[int, int]:
    """The game points (pair 0, pair 1) a finished deal scores; ``declarer`` is None after
    all passed (üleküla), ``diamonds`` whether diamonds were trump."""
    outcome = deal_outcome(declarer, card_points, tricks)
    if outcome is Outcome.POKK:
        return (0, 0)
    if outcome is Outcome.ULEKULA:
        winner, points = (0 if card_points[0] > card_points[1] else 1), 1
    elif outcome is Outcome.KARVANE:
        winner, points = (0 if tricks[1] == 0 else 1), KARVANE
    else:
        assert declarer is not None
        ours = pair_of(declarer)
        if outcome is Outcome.MADE:
            winner, points = ours, (2 if diamonds else 1)
        else:
            winner, points = 1 - ours, (4 if diamonds else 2)
        if card_points[1 - winner] < JANN_BELOW:
            points += 1  # jänn
    return (points, 0) if winner == 0 else (0, points)


def line_result(points: tuple[int, int], pair: int) -> int:
    """A line's result for a deal: its own pair's points minus the other pair's (-6..+6)."""
    return points[pair] - points[1 - pair]
