"""Sasku's table options (the rulings marked *(option)* in the rules) and their defaults.

>>> SaskuOptions()
SaskuOptions(min_bid=5, picture_shown=False, target=12)
>>> SaskuOptions(min_bid=10)
Traceback (most recent call last):
...
ValueError: min_bid must be a number from 1 to 9, not 10
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SaskuOptions", "MAX_BID"]

MAX_BID = 9  # nine tricks


@dataclass(frozen=True, slots=True)
class SaskuOptions:
    """``min_bid``: the smallest bid; ``picture_shown``: a given picture is shown to everyone;
    ``target``: the game points that win a match."""

    min_bid: int = 5
    picture_shown: bool = False
    target: int = 12

    def __post_init__(self) -> None:
        if not (isinstance(self.min_bid, int) and 1 <= self.min_bid <= MAX_BID):
            raise ValueError(f"min_bid must be a number from 1 to {MAX_BID}, not {self.min_bid!r}")
        if not isinstance(self.picture_shown, bool):
            raise ValueError(f"picture_shown must be True or False, not {self.picture_shown!r}")
        if not (isinstance(self.target, int) and self.target >= 1):
            raise ValueError(f"target must be a whole number of game points, 1 or more, not {self.target!r}")
