"""The engine's failures as data, shared by the games that sit beside each other.

Sasku's engine raises these; Sasaki's subclasses them under its own names
(``p2p_sasaki.sasaki.hand.IllegalActionError`` ...), so catching these catches either game's.
"""

from __future__ import annotations

__all__ = ["IllegalActionError", "HiddenInformationError", "DealError"]


class IllegalActionError(ValueError):
    """An action the rules do not allow now; the message names the rule broken and ``seat``
    the seat whose action broke it (None when no single seat did)."""

    def __init__(self, message: str, seat: int | None = None) -> None:
        super().__init__(message)
        self.seat = seat


class HiddenInformationError(LookupError):
    """A question this peer cannot answer: another seat's hidden cards."""


class DealError(ValueError):
    """A deal that is not the game's cards dealt evenly to the four seats (or a peer's share)."""
