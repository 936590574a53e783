"""Table options (rulings marked *(option)* in the rules) and their defaults.

>>> TableOptions()
TableOptions(lead_card='auto', lead_must_contain_3=False, running='before_first_play')
>>> str(resolve_lead_card("auto", hour=20))
'3S'
>>> TableOptions.from_bytes(TableOptions("3S", True).to_bytes())
TableOptions(lead_card='3S', lead_must_contain_3=True, running='before_first_play')
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from p2p_sasaki.cards import Card

__all__ = ["TableOptions", "LeadCard", "resolve_lead_card", "LEAD_CARDS", "RUNNING_MODES",
           "THREE_HEARTS", "THREE_SPADES"]


class LeadCard(Enum):
    """The opening 3 (the one place that says it is 3H or 3S): the day's, the evening's, or
    ``AUTO``, resolved by the table's creator from its clock (:func:`resolve_lead_card`)."""

    THREE_HEARTS = "3H"
    THREE_SPADES = "3S"
    AUTO = "auto"

    @property
    def card(self) -> Card | None:
        """The card itself (None for AUTO)."""
        return None if self is LeadCard.AUTO else Card.parse(self.value)

    @classmethod
    def of(cls, value: LeadCard | Card | str) -> LeadCard:
        """The member for "3H"/"3S"/"auto" or a card; ValueError for anything else."""
        if isinstance(value, LeadCard):
            return value
        text = str(value)
        for member in cls:
            if member.value == text:
                return member
        raise ValueError(f"lead_card must be one of {', '.join(LEAD_CARDS)}, not {text!r}")

    @classmethod
    def opening(cls, card: Card) -> LeadCard:
        """The member for a concrete opening 3; ValueError unless ``card`` is 3H or 3S."""
        for member in (cls.THREE_HEARTS, cls.THREE_SPADES):
            if str(card) == member.value:
                return member
        raise ValueError(f"the opening 3 is 3H or 3S, not {card}")

    @classmethod
    def is_opening(cls, card: Card) -> bool:
        """True iff ``card`` is a concrete opening 3."""
        return str(card) in (cls.THREE_HEARTS.value, cls.THREE_SPADES.value)


LEAD_CARDS = tuple(member.value for member in LeadCard)
THREE_HEARTS = Card.parse(LeadCard.THREE_HEARTS.value)
THREE_SPADES = Card.parse(LeadCard.THREE_SPADES.value)
RUNNING_MODES = ("before_first_play", "any_own_turn")


@dataclass(frozen=True, slots=True)
class TableOptions:
    """How a table plays.

    - ``lead_card``: ``"3H"`` (day), ``"3S"`` (evening) or ``"auto"`` (the caller
      resolves it from the creator's clock with :func:`resolve_lead_card`);
      :attr:`lead` is the same as a :class:`LeadCard`.
    - ``lead_must_contain_3``: the first play of a hand must contain the opening 3.
    - ``running``: ``"before_first_play"`` (a declaration window before the first
      play) or ``"any_own_turn"`` (a red-ten holder may run at the start of any
      of its own turns while both red tens are still in hands).
    """

    lead_card: str = "auto"
    lead_must_contain_3: bool = False
    running: str = "before_first_play"

    def __post_init__(self) -> None:
        LeadCard.of(self.lead_card)
        if self.running not in RUNNING_MODES:
            raise ValueError(f"running must be one of {', '.join(RUNNING_MODES)}, not {self.running!r}")
        if not isinstance(self.lead_must_contain_3, bool):
            raise ValueError("lead_must_contain_3 must be True or False")

    @property
    def lead(self) -> LeadCard:
        return LeadCard.of(self.lead_card)

    def to_bytes(self) -> bytes:
        """The options as Sasaki's game options in the transcript header (docs/protocol.md):
        three bytes, the lead card (0 3H, 1 3S, 2 auto), the lead-must-contain-3 flag
        (0/1) and the running mode (0 before_first_play, 1 any_own_turn)."""
        return bytes([LEAD_CARDS.index(self.lead.value), int(self.lead_must_contain_3),
                      RUNNING_MODES.index(self.running)])

    @classmethod
    def from_bytes(cls, data: bytes) -> TableOptions:
        if len(data) != 3 or data[0] >= len(LEAD_CARDS) or data[1] > 1 or data[2] >= len(RUNNING_MODES):
            raise ValueError("Sasaki's options are three bytes: lead card, lead-must-contain-3, running")
        return cls(LEAD_CARDS[data[0]], bool(data[1]), RUNNING_MODES[data[2]])


def resolve_lead_card(option: str, hour: int) -> Card:
    """The concrete opening 3: ``auto`` is 3H from 06:00 to 18:00 (day), else 3S."""
    lead = LeadCard.of(option)
    if lead is LeadCard.AUTO:
        if not 0 <= hour < 24:
            raise ValueError(f"hour must be 0-23, not {hour}")
        lead = LeadCard.THREE_HEARTS if 6 <= hour < 18 else LeadCard.THREE_SPADES
    card = lead.card
    assert card is not None
    return card
