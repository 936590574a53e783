"""What comes in from the links, before the slot rules (the session's first collaborator).
Pure.

An envelope is decoded strictly, kept only if it is of this table, held while its hand's
signers are not known yet (a later hand's message before the seating draw is done), and
dropped by its **bytes** if it is a copy of one already taken: every peer relays every
first copy, so most of what arrives is such a copy, and none of them costs a decoding or a
signature check. Only then is the signature verified, once per distinct envelope. What one signer
may sign once (``seen_key``) is remembered here with its first message: a second, different
body under the same key is equivocation, for the session to stop on.

>>> Intake(bytes(32)).statistics()
IntakeStatistics(received=0, duplicates=0, verified=0)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from p2p_sasaki.protocol.events import AbandonRejected, VersionMismatch
from p2p_sasaki.protocol.messages import (
    Abandon,
    Leave,
    MessageError,
    SignedMessage,
    VersionMismatchError,
    decode_envelope,
    seen_key,
    verify_envelope,
)

__all__ = ["Intake", "IntakeStatistics", "MAX_UNSEATED_BUFFER"]

MAX_UNSEATED_BUFFER = 4096


@dataclass(frozen=True)
class IntakeStatistics:
    """Envelopes received, copies dropped by their bytes, signatures verified."""

    received: int
    duplicates: int
    verified: int


class Intake:
    """One table's intake: :meth:`admit` turns received bytes into a verified message that
    is new (or an equivocating second body), a report, or nothing."""

    def __init__(self, table_id: bytes) -> None:
        self.table_id = table_id
        self.seen: dict[tuple[Any, ...], SignedMessage] = {}   # seen_key -> the first message
        self._taken: set[bytes] = set()                        # the bytes of those first messages
        self.unseated: list[bytes] = []
        self._versions: set[int] = set()
        self._received = self._duplicates = self._verified = 0

    def statistics(self) -> IntakeStatistics:
        return IntakeStatistics(self._received, self._duplicates, self._verified)

    def admit(self, data: bytes, keys_for: Callable[[int], tuple[bytes, ...] | None],
              hand_no: int) -> SignedMessage | VersionMismatch | AbandonRejected | None:
        """``data`` as a verified message to take (a copy of a taken one is None), or a report
        to pass on (another protocol version, once each; an abandon or leave notice of this
        hand without its signer's signature), or None: dropped. ``keys_for(hand)``: the
        signers' keys of a hand (None: not known yet, the bytes are held for :meth:`release`)."""
        self._received += 1
        if data in self._taken:
            self._duplicates += 1       # a relayed copy: its bytes were verified once already
            return None
        try:
            message = decode_envelope(data)
        except VersionMismatchError as exc:  # never dropped silently: say why the table stalls
            if isinstance(exc.version, int) and exc.version not in self._versions:
                self._versions.add(exc.version)
                return VersionMismatch(exc.version, str(exc))
            return None
        except MessageError:
            return None
        body = message.body
        if body.table != self.table_id:
            return None
        keys = keys_for(body.hand)
        if keys is None:  # a later hand before I know the seats: check it once seated
            if len(self.unseated) < MAX_UNSEATED_BUFFER:
                self.unseated.append(data)
            return None
        self._verified += 1
        if body.sender >= len(keys) or not verify_envelope(message, keys[body.sender]):
            if isinstance(body.payload, (Abandon, Leave)) and body.hand == hand_no:
                return AbandonRejected(None, f"a {body.type} message for hand {body.hand} slot {body.slot} does not "
                                       "carry its signer's signature; ignored")
            return None
        return message

    def remember(self, message: SignedMessage) -> SignedMessage | None:
        """Take an authentic message: None if it is the first under its key (remembered), else
        the first one (the same body: a copy; another body: equivocation)."""
        key = seen_key(message.body)
        first = self.seen.get(key)
        if first is None:
            self.seen[key] = message
            self._taken.add(message.raw)
        return first

    def release(self) -> list[bytes]:
        """The held later hands' bytes, once the seats are known (admit them again)."""
        held, self.unseated = self.unseated, []
        return held
