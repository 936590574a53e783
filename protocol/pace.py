"""A table's pacing (docs/protocol.md, "Window pacing"): the delay of each of the game's
pacing kinds, the person's answer deadline and the stall deadline. Pure; it knows no game:
the kinds are the game's own (``Game.pace_kinds``), the header lists them in its order."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from p2p_sasaki.protocol.messages import MAX_ANSWER_MS, MAX_PACE_KINDS, MAX_STALL_MS, MAX_WINDOW_MS

__all__ = ["Pace", "NO_PACE"]


@dataclass(frozen=True)
class Pace:
    """The fair windows' signed table options, in milliseconds: every answer to a decision
    of kind k goes out ``ms(k)`` after the decision opened (a bot's turn play likewise, kind
    "turn"), whatever the seat holds; a person's answer after that goes out when given, up
    to ``answer_ms``; ``stall_ms``: how long a table waits for a silent seat before the
    resume/abandon rules apply. ``delays``: (kind, ms) of the kinds that wait at all, kept
    sorted by kind (a kind left out waits 0 ms). :data:`NO_PACE` (no delays) is for tests and
    benchmarks.

    >>> Pace.of({"chata": 1.5, "run": 1.0, "turn": 0}).delays
    (('chata', 1500), ('run', 1000))
    """

    delays: tuple[tuple[str, int], ...] = ()
    answer_ms: int = 30_000
    stall_ms: int = 120_000

    def __post_init__(self) -> None:
        delays = tuple(sorted((str(kind), int(ms)) for kind, ms in self.delays if ms))
        object.__setattr__(self, "delays", delays)
        kinds = [kind for kind, _ in delays]
        if len(set(kinds)) != len(kinds) or len(kinds) > MAX_PACE_KINDS or any(
                not 0 <= ms <= MAX_WINDOW_MS for _, ms in delays):
            raise ValueError(f"a pace has at most {MAX_PACE_KINDS} distinct kinds, "
                             f"each a delay of 0..{MAX_WINDOW_MS} ms")
        if not max((ms for _, ms in delays), default=0) <= self.answer_ms <= MAX_ANSWER_MS:
            raise ValueError("the answer deadline must be at least every window delay (and at most 600 s)")
        if not self.answer_ms <= self.stall_ms <= MAX_STALL_MS:
            raise ValueError("the stall deadline must be at least the answer deadline (and at most 3600 s)")

    @classmethod
    def of(cls, delays: Mapping[str, float] | None = None, answer: float = 30.0, stall: float = 120.0) -> Pace:
        """In seconds: each kind's delay, the answer and the stall deadline."""
        return cls(tuple((kind, round(s * 1000)) for kind, s in (delays or {}).items()), round(answer * 1000),
                   round(stall * 1000))

    def ms(self, kind: str) -> int:
        """Milliseconds after the opening at which an answer of ``kind`` goes out."""
        return dict(self.delays).get(kind, 0)

    def delay(self, kind: str) -> float:
        """Seconds after the opening at which an answer of ``kind`` goes out (0: unknown kind)."""
        return self.ms(kind) / 1000

    def listed(self, kinds: Sequence[str]) -> tuple[tuple[str, int], ...]:
        """Every one of the game's ``kinds`` with its delay, in the game's order (the header's
        ``pace``); ValueError if this pace times a kind the game does not have."""
        unknown = sorted(set(dict(self.delays)) - set(kinds))
        if unknown:
            raise ValueError(f"the pace times kinds this game does not have: {', '.join(unknown)}")
        return tuple((kind, self.ms(kind)) for kind in kinds)

    @property
    def answer_deadline(self) -> float:
        return self.answer_ms / 1000

    @property
    def stall_deadline(self) -> float:
        return self.stall_ms / 1000


NO_PACE = Pace()          # no delays: tests and benchmarks
