"""Table options (rulings marked *(option)* in the rules) and their defaults.

>>> TableOptions()
TableOptions(lead_card='auto', lead_must_contain_3=False, running='before_first_play')
>>> str(resolve_lead_card("auto", hour=20))
'3S'
"""

from __future__ import annotations

from dataclasses import dataclass

from p2p_sasaki.cards import Card

__all__ = ["TableOptions", "resolve_lead_card", "LEAD_CARDS", "RUNNING_MODES",
           "THREE_HEARTS", "THREE_SPADES"]

THREE_HEARTS = Card.parse("3H")
THREE_SPADES = Card.parse("3S")
LEAD_CARDS = ("3H", "3S", "auto")
RUNNING_MODES = ("before_first_play", "any_own_turn")


@dataclass(frozen=True, slots=True)
class TableOptions:
    """How a table plays.

    - ``lead_card``: ``"3H"`` (day), ``"3S"`` (evening) or ``"auto"`` (the caller
      resolves it from the creator's clock with :func:`resolve_lead_card`).
    - ``lead_must_contain_3``: the first play of a hand must contain the opening 3.
    - ``running``: ``"before_first_play"`` (a declaration window before the first
      play) or ``"any_own_turn"`` (a red-ten holder may run at the start of any
      of its own turns while both red tens are still in hands).
    """

    lead_card: str = "auto"
    lead_must_contain_3: bool = False
    running: str = "before_first_play"

    def __post_init__(self) -> None:
        if self.lead_card not in LEAD_CARDS:
            raise ValueError(f"lead_card must be one of {', '.join(LEAD_CARDS)}, not {self.lead_card!r}")
        if self.running not in RUNNING_MODES:
            raise ValueError(f"running must be one of {', '.join(RUNNING_MODES)}, not {self.running!r}")
        if not isinstance(self.lead_must_contain_3, bool):
            raise ValueError("lead_must_contain_3 must be True or False")


def resolve_lead_card(option: str, hour: int) -> Card:
    """The concrete opening 3: ``auto`` is 3H from 06:00 to 18:00 (day), else 3S."""
    if option == "3H":
        return THREE_HEARTS
    if option == "3S":
        return THREE_SPADES
    if option != "auto":
        raise ValueError(f"lead_card must be one of {', '.join(LEAD_CARDS)}, not {option!r}")
    if not 0 <= hour < 24:
        raise ValueError(f"hour must be 0-23, not {hour}")
    return THREE_HEARTS if 6 <= hour < 18 else THREE_SPADES
