"""The game interface the session drives (in the spirit of OpenSpiel's game/state split).

A :class:`Game` is a table's rules and options, described once: its seats and teams, its
deck size and card names, its opening card (the card whose holder proves it in the hand's
opening slot and so starts the hand), the action verbs it uses on the wire, its pacing
kinds (the header's ``pace`` list), how its players are seated, the context of each hand
(number, dealer), how a match's totals add up and when a match is over, and its options
as its own bytes (the transcript header carries ``game`` and ``game_options`` verbatim). A
:class:`GameState` is one hand in play, at one peer: the seats that must answer next
(:meth:`GameState.slot`), a verified slot of answers applied as a pure function of the set
of answers, what an action shows (the cards the deck must prove open), the hidden-state
hash the peers compare, and the scores.

The session (protocol/session.py), the config and header (protocol/config.py), the driver
(protocol/net/) and the audit know nothing else about the game: no seat count, no deck
size, no verbs, no pacing kind, no rule; nothing in protocol/ outside the game adapters
(``protocol/*_game.py``) imports the engine package (tests/test_layers.py). Sasaki is the
first implementation (protocol/sasaki_game.py); the tests hold a second, toy one
(tests/protocol/toy_game.py). docs/architecture.md says how Sasku's private card passing
and must-follow-suit rules plug in here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol

__all__ = ["Game", "GameState", "SlotKind", "Slot", "Applied", "IllegalAnswer", "HandContext", "Seating", "HiddenClaim",
           "OPENING_PACE", "TURN_PACE"]

# The pacing kinds the driver itself names (protocol/net/pacing.py): the opening slot's
# answer, and a bot's answer on its turn. A game lists them among its ``pace_kinds`` when
# it has an opening card, resp. turns.
OPENING_PACE = "lead"
TURN_PACE = "turn"


class IllegalAnswer(Exception):
    """A slot's answers break the game's rules. ``seat``: the seat at fault, or None when no
    single answer is (a peer that cannot see the hidden cards cannot tell: the key reveal's
    replay of the full deal names the seat)."""

    def __init__(self, seat: int | None, reason: str) -> None:
        super().__init__(reason)
        self.seat = seat
        self.reason = reason


class SlotKind(Enum):
    """The kinds of slot a game's hand is made of (besides the card source's own slots)."""

    OPENING = "opening"  # every seat answers: the holder of the opening card shows it (proved), the others decline
    TURN = "turn"        # one seat answers
    WINDOW = "window"    # several seats answer; the outcome is a function of the set of answers
    HAND_OVER = "hand-over"  # a source slot the game asks for: one seat hands one of its cards to
    #                          ``Slot.receiver`` privately (only those two learn it; docs/protocol.md,
    #                          "Hand-over"); the receiver's layer and the giver's strip follow


class Seating(Enum):
    """How a game's players are seated at a new table (a table that replaced a seat keeps
    its fixed seats whatever the game says)."""

    DRAW = "draw"        # the setup's commit-reveal draw (table/seat-commit, table/seat-nonce)
    JOIN_ORDER = "join"  # seat i is the roster's member i (no draw: slots 1 and 2 of hand 0 are skipped)


@dataclass(frozen=True)
class HandContext:
    """What a hand knows before its cards: its number in the match (1-based) and the seat
    that deals it (the game's rule: :meth:`Game.hand_context`)."""

    number: int
    dealer: int


@dataclass(frozen=True)
class Slot:
    """Who must answer next: ``seats`` in resolution order; ``decision`` is the game's own
    description of the question (shown to the player, passed through the session's events)."""

    kind: SlotKind
    seats: tuple[int, ...]
    decision: Any
    receiver: int | None = None
    """A HAND_OVER slot's receiving seat (``seats`` is the giver alone)."""
    hands_back: bool = False
    """A HAND_OVER slot that must hand back the position last handed to the giver this hand
    (Sasku's give-back of a refused picture: the same card, checked by every peer)."""


@dataclass(frozen=True)
class Applied:
    """An action the game applied (in order); ``lead``: the play starts a round (no top play)."""

    action: Any
    lead: bool = False


@dataclass(frozen=True)
class HiddenClaim:
    """What an action must prove about its seat's hidden cards, with the action
    (protocol/hidden_rules.py; docs/protocol.md, "Hidden-card rules at the table"). ``rule``
    is one of the proof's rules; ``cards`` (a mask of deck cards) the cards none of the
    seat's hidden positions holds:

    - ``no-follow``: its hidden positions after the action (the card it plays is opened)
      hold none of ``cards``, the cards that would have followed;
    - ``give``: the position it hands over in the next slot holds one of ``cards`` (none of
      the others: it is a picture) and its other hidden positions hold none of ``cards``;
    - ``return``: (a HAND_OVER answer) the position it hands over holds none of ``cards``.

    The seat proves it over the positions its own key locks: dealt to it or handed to it (a
    hand-over re-locks the position under its receiver's key), held by it, not opened."""

    rule: str
    cards: int


class GameState(Protocol):
    """One hand of a game at one peer (the peer's own cards known, the others' hidden), or
    with the full deal (the key reveal's replay, the audit)."""

    def slot(self) -> Slot | None:
        """Who must answer next; None once the hand is over."""

    def legal_actions(self, seat: int) -> list[Any]:
        """``seat``'s legal answers now (only asked of the peer's own seat)."""

    def claim(self, action: Any) -> HiddenClaim | None:
        """The hidden-card rule ``action`` (an answer in the current slot) must prove, from
        public state only (every peer asks it before applying the slot), or None."""

    def apply(self, answers: Sequence[Any]) -> list[Applied]:
        """Apply one complete slot of verified answers (one per seat of :meth:`slot`, in its
        order). Raises :class:`IllegalAnswer` naming the seat at fault; the state is then
        unchanged."""

    def penalise(self, answers: Sequence[Any], seat: int, reason: str) -> None:
        """The key reveal's replay found that ``answers`` (the next slot's) break a rule on
        hidden cards, by ``seat``: the hand ends here with the game's penalty
        (:meth:`Game.penalty_scores`), and :meth:`record` and :meth:`outcome` say so. Only
        asked of a game whose ``penalty_scores`` is not None."""

    def state_hash(self) -> str:
        """A digest of the public state and the hidden state's shape (the peers compare it
        with the full deal's replay after the key reveal)."""

    def scores(self) -> tuple[int, ...] | None:
        """Each seat's score once the hand is over, else None."""

    def outcome(self) -> Any:
        """The game's own summary of a finished hand (finishing order, teams ...): the
        session passes it on in ``HandEnded.outcome``."""

    def view(self, seat: int) -> Any:
        """What ``seat`` sees (for a player or a bot)."""

    def record(self) -> str | None:
        """A finished hand (with the full deal) as the game's own record text (``sasaki
        export``), or None: the game has no record format."""


class Game(Protocol):
    """A game's rules and options (see the module docstring)."""

    name: str
    seats: int
    n_cards: int
    teams: tuple[tuple[int, ...], ...]
    """Fixed partnerships by seat (Sasku's pairs); empty: none fixed for the match (Sasaki's
    red team forms in each hand, in its outcome)."""
    pace_kinds: tuple[str, ...]
    """The kinds a table's pacing times, in the order the header lists them (docs/protocol.md,
    "Window pacing"): the game's own decision kinds, plus :data:`OPENING_PACE` and
    :data:`TURN_PACE` where it has them."""
    seating: Seating

    def options_bytes(self) -> bytes:
        """The game's options, as the transcript header carries them."""

    def seat_order(self, drawn: tuple[int, ...]) -> tuple[int, ...]:
        """The roster index at each seat, from the seating draw's (``drawn``): a game whose
        players chose partners moves one of them so that partners sit as its teams say
        (Sasku's ``pairs`` option); otherwise ``drawn``."""

    def opening_card(self) -> int | None:
        """The card whose holder opens the hand (an OPENING slot before the first play), or
        None: no opening slot, the hand starts with :meth:`GameState.slot`."""

    def hand_context(self, number: int) -> HandContext:
        """The context of the match's hand ``number`` (1-based): who deals it."""

    def new_state(self, hands: Sequence[int | None], opener: int | None, context: HandContext,
                  peer: int | None = None, open_seats: frozenset[int] = frozenset()) -> GameState:
        """A hand's state from the cards each seat holds (a card mask; None where hidden),
        the seat that showed the opening card (None without an opening slot) and the hand's
        context; ``peer``: the seat the state is run for when other seats' cards are known
        too; ``open_seats``: the seats whose hands are open to all (what that makes public,
        e.g. Sasaki's red tens, every view knows). Raises ValueError if the cards cannot be a
        deal of this game."""

    def card_name(self, card: int) -> str:
        """How a card is named in a blame's reason."""

    def cards_name(self, cards: int) -> str:
        """How a set of cards (a mask, not empty) is named in a blame's reason."""

    def hand_of(self, cards: int) -> Any:
        """A seat's dealt cards (a mask) as the game shows them (``Dealt.cards``)."""

    def pace_kind(self, decision: Any) -> str:
        """The pacing kind of one of the game's decisions (one of :attr:`pace_kinds`)."""

    def decline(self, legal: Sequence[Any]) -> Any | None:
        """The answer among a window's ``legal`` answers that claims nothing (None: none):
        what a person who has not decided by the window's due time answers (docs/protocol.md,
        "Window pacing")."""

    def totals(self, carried: Sequence[int], scores: Sequence[Sequence[int]]) -> tuple[int, ...]:
        """The match totals by seat: the carried totals plus each finished hand's scores."""

    def forfeit_scores(self, seat: int) -> tuple[int, ...]:
        """The score row of a hand ``seat`` forfeits (docs/rules.md, "Forfeit"): the game's
        largest loss for it and the matching gains for the others (Sasaki: zero-sum; Sasku: the
        other pair scores 6, the forfeiter's pair nothing)."""
        ...

    def objection(self, decision: Any) -> HiddenClaim | None:
        """The rule a HAND_OVER ``decision``'s receiver proves, with its layer, when its own
        hidden cards make the hand-over illegal (the giver cannot see them): Sasku's give to a
        partner holding nine pictures, ``nine-pictures`` (its positions hold none of the
        non-pictures); None: no such rule."""
        ...

    def penalty_scores(self, seat: int) -> tuple[int, ...] | None:
        """The score row of a hand in which ``seat`` broke a rule on hidden cards that only the
        key reveal's replay of the full deal finds (Sasku: the other pair scores 6, and the
        match goes on), or None: the table stops with the seat's blame (Sasaki)."""
        ...

    def match_over(self, played: int, planned: int, totals: Sequence[int]) -> bool:
        """Whether the match is over after ``played`` hands (``planned``: the table's ``hands``
        option) with these totals."""

    def illegal(self, reason: str, seat: int | None) -> Exception:
        """The game's own error for an answer of this peer's player that is not legal now
        (the session raises it from ``act``: a local error, never sent)."""

    def encode_action(self, action: Any) -> tuple[str, tuple[int, ...]]:
        """An action as (verb, ascending card indices) for ``table/action``."""

    def decode_action(self, seat: int, verb: str, cards: Sequence[int]) -> Any:
        """The action a ``table/action`` of ``seat`` stands for; raises IllegalAnswer(seat)."""

    def shows(self, action: Any) -> int:
        """The cards (a mask) the action shows to everyone: the deck proves each one open."""

    def handed(self, decision: Any, giver: int, card: int | None) -> Any:
        """The action a HAND_OVER slot's answer stands for: ``giver`` handed ``card`` (None:
        hidden from this peer) as ``decision`` asked. The giver chooses among
        :meth:`GameState.legal_actions`, each encoded (:meth:`encode_action`) with exactly
        the one card it hands over; the wire carries the position only."""

    def open_bot_answer(self, state: GameState, seat: int, seed: bytes) -> Any:
        """The answer of an open bot (its hand public) at ``seat`` to ``state``'s pending
        slot, from the chain hash ``seed`` before that slot: a deterministic function, so
        every peer and the audit check each of its moves."""

