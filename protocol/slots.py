"""The session's slot rules as data (in h11's way: the rules are a table, a message that
no entry admits is a protocol violation). Pure.

A table moves through phases: SETUP (hand 0), then per hand DECK (the card source's slots,
pipelined), OPENING (if the game has an opening card), PLAY (one slot per game decision; a
private hand-over takes three: HAND_OVER, RECEIPT, STRIP), CLOSE (the source's key reveal,
also after a refusal or an abandon), and DONE. Each slot of a phase takes one payload type,
from a set of signers, and is complete when every one of them signed (:data:`SLOT_RULES`);
the DECK phase's slots are the card source's own
(protocol/dealing.py: ``CardSource.accepts`` and ``expected``). What a complete slot does is
the session's outcome for the phase (protocol/session.py, ``_outcome``).

>>> SLOT_RULES[(Phase.SETUP, 1)].names, SLOT_RULES[(Phase.SETUP, 1)].signers
('table/seat-commit', <Signers.EVERY_MEMBER: 'every member'>)
>>> rule_of(Phase.PLAY, 17).signers
<Signers.GAME_SLOT: "the game's slot seats">
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from p2p_sasaki.protocol.messages import (
    Genesis,
    HandOver,
    HandOverLock,
    HandOverStrip,
    KeyReveal,
    Payload,
    SeatCommit,
    SeatNonce,
    TableAction,
)

SlotPayload = tuple[type[Payload], ...]

__all__ = ["Phase", "Signers", "SlotRule", "SLOT_RULES", "rule_of", "Placement"]


class Phase(Enum):
    SETUP = "setup"
    DECK = "deck"
    OPENING = "opening"
    PLAY = "play"
    HAND_OVER = "hand-over"   # a source slot the game asks for (SlotKind.HAND_OVER): the giver's deck/hand-over
    RECEIPT = "receipt"       # the slot after it: the receiver's layer (deck/hand-over-lock)
    STRIP = "strip"           # the slot after that: the giver's strip (deck/hand-over-strip)
    CLOSE = "close"
    DONE = "done"


class Signers(Enum):
    """Who signs a slot (who must have signed for it to be complete)."""

    EVERY_MEMBER = "every member"            # hand 0: the roster's members, by join order
    PRESENT_SEATS = "every present seat"     # every seat not named silent by an abandon this hand
    GAME_SLOT = "the game's slot seats"      # GameState.slot().seats
    RECEIVER = "the hand-over's receiver"    # GameState.slot().receiver of the hand-over before


@dataclass(frozen=True)
class SlotRule:
    """One entry: the payloads the slot takes (one of them), from whom, and what completes it."""

    takes: SlotPayload
    signers: Signers
    completes: str

    @property
    def names(self) -> str:
        """The payload types it takes, as a blame's reason names them."""
        return " or ".join(t.TYPE for t in self.takes)


SLOT_RULES: dict[tuple[Phase, int | None], SlotRule] = {
    (Phase.SETUP, 0): SlotRule((Genesis,), Signers.EVERY_MEMBER, "every member signed the roster hash"),
    (Phase.SETUP, 1): SlotRule((SeatCommit,), Signers.EVERY_MEMBER, "every member committed to a seating nonce"),
    (Phase.SETUP, 2): SlotRule((SeatNonce,), Signers.EVERY_MEMBER, "every member revealed its nonce: the seats follow"),
    (Phase.OPENING, None): SlotRule((TableAction,), Signers.PRESENT_SEATS,
                                    "every seat answered: the opening card's holder shows it, the others decline"),
    (Phase.PLAY, None): SlotRule((TableAction,), Signers.GAME_SLOT,
                                 "every asked seat answered: the game applies the set of answers"),
    (Phase.HAND_OVER, None): SlotRule((HandOver,), Signers.GAME_SLOT,
                                      "the giver named the position it hands to the receiver"),
    (Phase.RECEIPT, None): SlotRule((HandOverLock,), Signers.RECEIVER,
                                    "the receiver added its layer to the position"),
    (Phase.STRIP, None): SlotRule((HandOverStrip,), Signers.GAME_SLOT,
                                  "the giver stripped its layer: the position is the receiver's lock and moves"),
    (Phase.CLOSE, None): SlotRule((KeyReveal,), Signers.PRESENT_SEATS,
                                  "every present seat revealed its key: the full deal is replayed"),
}


def rule_of(phase: Phase, slot: int) -> SlotRule | None:
    """The rule of ``slot`` in ``phase`` (None: no message belongs there, e.g. DECK or DONE)."""
    return SLOT_RULES.get((phase, slot)) or SLOT_RULES.get((phase, None))


class Placement(Enum):
    """Where a queued message goes now (the session's ``_place``)."""

    WAIT = "wait"        # a later slot or hand: kept until the table gets there
    DROP = "drop"        # a late message of a slot closed as abandoned, or of a seat named silent
    SOURCE = "source"    # one of the card source's slots (the DECK phase)
    SLOT = "slot"        # the current slot: checked against its rule
