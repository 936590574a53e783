"""The abandon rules (docs/protocol.md, "Abandon"), a collaborator of the session: which
abandon signatures are valid, when a set of them completes a unit, when a peer that signed
one may still complete the unit normally (rule 2), when a peer was cut off (rule 3), and
what a complete abandon leaves behind (the absent seats, the void part of a hand). Pure:
the session (protocol/session.py) asks, chains, records and settles.

A *unit* is ``(hand, slot)``: a slot of the hand, or slot 0 for the whole deck block.

>>> rules = AbandonRules(4)
>>> rules.majority((3,)), rules.majority((2, 3))
(True, False)
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field

from p2p_sasaki.protocol.messages import Abandon, SignedMessage

__all__ = ["AbandonRules", "Unit"]

Unit = tuple[int, int]


@dataclass
class AbandonRules:
    """The abandon state of one table: every abandon signature seen, by unit; the seats
    absent from the current hand; per hand, the last abandoned slot and its absent seats."""

    seats: int
    signed: dict[Unit, dict[int, SignedMessage]] = field(default_factory=dict)
    absent: frozenset[int] = frozenset()         # this hand's seats named silent
    void: dict[int, tuple[int, frozenset[int]]] = field(default_factory=dict)   # hand -> (bound, absent)
    abandoned_at: int = 0                        # the slot last closed as abandoned
    end_after: bool = False                      # a present seat chose to end the match
    left: set[int] = field(default_factory=set)  # seats that signed a leave notice

    def start_hand(self) -> None:
        self.absent = frozenset()

    def note(self, message: SignedMessage) -> None:
        """An authentic abandon signature (held until its unit is current)."""
        body = message.body
        self.signed.setdefault((body.hand, body.slot), {})[body.sender] = message

    def silent_of(self, unit: Unit, seat: int) -> tuple[int, ...] | None:
        """The seats ``seat``'s abandon of ``unit`` names silent, None if it signed none."""
        message = self.signed.get(unit, {}).get(seat)
        if message is None or not isinstance(message.body.payload, Abandon):
            return None
        return message.body.payload.silent

    def drops(self, hand: int, slot: int, sender: int) -> bool:
        """A message of a hand's abandoned part, or of a seat absent from it: dropped unblamed."""
        void = self.void.get(hand)
        return void is not None and (slot <= void[0] or sender in void[1])

    def majority(self, silent: Sequence[int]) -> bool:
        """The seats that must sign (present, not silent) are a strict majority of the present
        ones: two abandons of one unit with disjoint signers can never both complete."""
        present = self.seats - len(self.absent)
        return 2 * (present - len(silent)) > present

    def why_not(self, silent: Sequence[int]) -> str | None:
        """Why an abandon naming ``silent`` cannot complete (one sentence), or None."""
        if self.majority(silent):
            return None
        present = self.seats - len(self.absent)
        names = ", ".join(f"S{s}" for s in sorted(silent))
        return (f"{names} are awaited together: an abandon needs the signatures of a strict majority of the "
                f"{present} present seats, so {present - len(silent)} cannot abandon {len(silent)}; wait for one "
                "of them to answer (or come back), or leave the table")

    def problem(self, message: SignedMessage, prev: bytes, waits_on: Collection[int]) -> str | None:
        """Why the abandon ``message`` of the current unit (agreed ``prev``; ``waits_on``: the
        seats it may name) is invalid, or None."""
        body, payload = message.body, message.body.payload
        assert isinstance(payload, Abandon)
        where = f"seat {body.sender}'s abandon of hand {body.hand} slot {body.slot}"
        if body.prev != prev:
            return f"{where} is not bound to the agreed state (its prev does not match); ignored"
        if body.sender in self.absent or body.sender in payload.silent:
            return f"{where} is signed by a seat it names silent or that already left the hand; ignored"
        if not set(payload.silent) <= set(waits_on):
            return f"{where} names a seat the slot does not wait for; ignored"
        if not self.majority(payload.silent):
            return f"{where} names half the present seats or more silent (the others must be a majority); ignored"
        return None

    def complete(self, unit: Unit, prev: bytes, waits_on: Collection[int], ready: Callable[[int], bool]
                 ) -> tuple[list[tuple[int, str]], tuple[tuple[int, ...], list[int]] | None]:
        """Rule 1: the (rejected signer, reason) pairs (dropped), and the ``(silent, signers)``
        that complete ``unit``, if any: every present seat outside one silent set signed it
        (and is ``ready``: a KEYS slot's signer's own key reveal is in)."""
        got = self.signed.get(unit)
        if not got:
            return [], None
        rejected: list[tuple[int, str]] = []
        groups: dict[tuple[int, ...], list[int]] = {}
        for sender in sorted(got):
            message = got[sender]
            reason = self.problem(message, prev, waits_on)
            if reason is not None:
                del got[sender]
                rejected.append((sender, reason))
                continue
            payload = message.body.payload
            assert isinstance(payload, Abandon)
            groups.setdefault(payload.silent, []).append(sender)
        present = frozenset(range(self.seats)) - self.absent
        for silent, signers in sorted(groups.items()):
            if set(signers) == present - set(silent) and all(ready(s) for s in signers):
                return rejected, (silent, signers)
        return rejected, None

    def overtaken(self, unit: Unit, me: int, bound: int, seen: Iterable[SignedMessage]) -> bool:
        """Rule 2's exception: a seat outside my abandon's silent set signed a message for a
        later slot than ``bound`` (it completed this unit normally and will never sign)."""
        silent = self.silent_of(unit, me)
        if silent is None:
            return True
        hand = unit[0]
        out = set(silent) | {me}
        return any(m.body.sender not in out and (m.body.hand > hand or (m.body.hand == hand and m.body.slot > bound))
                   for m in seen)

    def cut_off(self, hand: int, slot: int, me: int, current: Unit) -> bool:
        """Rule 3: a complete abandon of a unit this peer has already gone past names it silent."""
        if (hand, slot) >= current:
            return False
        absent = self.absent if hand == current[0] else self.void.get(hand, (0, frozenset()))[1]
        got = self.signed.get((hand, slot), {})
        for message in got.values():
            payload = message.body.payload
            if isinstance(payload, Abandon) and me in payload.silent:
                signers = {s for s, m in got.items() if isinstance(m.body.payload, Abandon)
                           and m.body.payload.silent == payload.silent}
                if signers == set(range(self.seats)) - set(payload.silent) - absent:
                    return True
        return False

    def named_silent_before(self, hand: int, me: int, current: Unit) -> Unit | None:
        """A unit up to ``hand``, before the current one, that some abandon names ``me`` silent in."""
        for (h, slot), got in self.signed.items():
            if h <= hand and (h, slot) < current and any(
                    isinstance(m.body.payload, Abandon) and me in m.body.payload.silent for m in got.values()):
                return h, slot
        return None

    def was_absent(self, seat: int, hand: int) -> bool:
        """A complete abandon of this hand or an earlier one named ``seat`` silent."""
        return any(h <= hand and seat in absent for h, (_, absent) in self.void.items())

    def close(self, hand: int, slot: int, bound: int, silent: Sequence[int], messages: Sequence[SignedMessage]) -> None:
        """A complete abandon of (hand, slot) covering the hand's slots up to ``bound``: its
        silent seats are absent for the rest of the hand."""
        self.end_after = self.end_after or any(isinstance(m.body.payload, Abandon) and m.body.payload.end
                                               for m in messages)
        self.absent = self.absent | frozenset(silent)
        self.void[hand] = (bound, self.absent)
        self.abandoned_at = slot
