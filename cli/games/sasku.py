"""Sasku's part of what a person is shown (cli/games/__init__.py): 4 seats in fixed pairs
(S0+S2, S1+S3), 9 cards each, the prompts of its decisions and the snapshot a page reads.

A decision's choices, each with a key the page's button and the terminal's typed word
reach:

  - a bidding turn: ``Bid 5`` .. ``Bid 9`` (those above the high bid), ``Pass``,
    ``Diamonds``, ``Give a picture`` (keys ``bid-5``, ``pass``, ``diamonds``, ``give``);
  - a given picture: ``Take`` or ``Refuse``;
  - the declarer's trump: ``Trump clubs`` (spades, hearts, diamonds);
  - a card to the trick, or the card handed back after a take: the card's name (``QH``),
    one choice per card of the hand, only the legal ones playable.

The give's hand-over (the picture itself, after ``Give a picture``) and the refused
picture's way back have one answer each: they are made without asking, and told.

>>> part = SaskuPart()
>>> part.seats, part.cards_per_seat, part.teams
(4, 9, ((0, 2), (1, 3)))
>>> sorted_hand(CardSet.parse("QH 6C AS 9C TD"))
('6C', '9C', 'TD', 'QH', 'AS')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from p2p_sasaki.cards import Card, CardNotationError, CardSet, Suit
from p2p_sasaki.cli.prompts import Choice, ChoiceGroup, Note, NoteKind, Prompt, Refusal, SeatState
from p2p_sasaki.protocol.sasku_game import TEAMS, GiveBack, GiveCall, HandOverDecision
from p2p_sasaki.sasku.deal import Bid, Diamonds, Give, Pass, Play, Refuse, Return, Take, TrumpCall

TURN_DIRECTION = "clockwise"   # the next seat after s is (s+1)%4 and play goes clockwise (docs/rules-sasku.md)

__all__ = ["SaskuPart", "SaskuTable", "PairScore", "sorted_hand", "KINDS", "prompt_lines"]

KINDS = ("bid", "answer", "trump", "play", "return", "give", "give-back")
"""The prompt kinds of a Sasku decision (a Prompt's ``kind``)."""

_SUIT_ORDER = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)
_QUESTIONS = {
    "bid": "Your bid: bid higher, pass, call diamonds or give a picture.",
    "answer": "Your partner gives you a picture: take it or refuse it.",
    "trump": "You declare: name the trump.",
    "play": "Your turn: play a card.",
    "return": "You took the picture: choose a card to hand back to your partner (not a picture).",
}
_STATUS = {"bid": "Your bid.", "answer": "Take or refuse your partner's picture.", "trump": "Name the trump.",
           "play": "Your turn: play a card.", "return": "Choose the card to hand back."}
_AWAITED = {"bid": "is to bid", "answer": "is to take or refuse a picture", "return": "is to hand a card back",
            "trump": "is to name the trump", "play": "is to play"}   # a decision, in the status line
_AWAITED_TO = {kind: text.removeprefix("is ") for kind, text in _AWAITED.items()}   # ... in the waiting line
_TYPED = {
    "bid": "Type: bid N (or N), pass, diamonds, give",
    "answer": "Type: take or refuse",
    "trump": "Type: trump C, S, H or D",
    "play": "Type the card to play, like QH",
    "return": "Type the card to hand back, like 6C",
}


def sorted_hand(cards: CardSet) -> tuple[str, ...]:
    """A hand by suit (clubs, diamonds, hearts, spades), each suit low to high."""
    return tuple(str(c) for c in sorted(cards, key=lambda c: (_SUIT_ORDER.index(c.suit), int(c.rank))))


@dataclass(frozen=True)
class PairScore:
    """One pair on the page: its seats, this deal's card points and tricks, its game points
    in the match."""

    label: str                    # "S0+S2"
    seats: tuple[int, ...]
    yours: bool
    card_points: int
    tricks: int
    game_points: int


@dataclass(frozen=True)
class SaskuTable:
    """Sasku's part of the snapshot (TableView.game): what the page draws beside the seats."""

    hand: tuple[str, ...]                          # your cards, by suit
    trick: tuple[tuple[int, str, str], ...]        # the trick in the middle: (seat, label, card)
    trump: str | None                              # "hearts" once named
    contract: str                                  # "S1 bids 6", "S0 (S0+S2) plays 7, trump hearts"
    pairs: tuple[PairScore, ...]
    target: int | None                             # the game points that win the match
    race: str                                      # "S0+S2 4, S1+S3 7 (to 12)"


def _suit_word(suit: Suit) -> str:
    return suit.name.lower()


class SaskuPart:
    name = "sasku"
    seats = 4
    cards_per_seat = 9
    teams: tuple[tuple[int, ...], ...] | None = TEAMS

    def __init__(self, options: Any = None) -> None:
        self.target: int | None = getattr(options, "target", None)

    # -- the desk ---------------------------------------------------------------------

    @staticmethod
    def kind(turn: Any) -> str:
        decision = turn.decision
        if isinstance(decision, HandOverDecision):
            return decision.kind
        return str(decision.kind.value)

    def prompt(self, presenter: Any, turn: Any) -> tuple[Any, dict[str, Any]]:
        kind = self.kind(turn)
        legal = tuple(turn.legal)
        answers: dict[str, Any] = {}
        choices: list[Choice] = []
        playable: list[str] = []
        title = "Choices"
        for action in legal:
            match action:
                case Bid(number=number):
                    key, label = f"bid-{number}", f"Bid {number}"
                case Pass():
                    key, label = "pass", "Pass"
                case Diamonds():
                    key, label = "diamonds", "Diamonds"
                case GiveCall():
                    key, label = "give", "Give a picture"
                case Take():
                    key, label = "take", "Take"
                case Refuse():
                    key, label = "refuse", "Refuse"
                case TrumpCall(suit=suit):
                    key, label = f"trump-{_suit_word(suit)}", f"Trump {_suit_word(suit)}"
                case Play(card=card) | Return(card=card) if card is not None:
                    key = label = str(card)
                    playable.append(key)
                    title = "Your cards"
                case _:
                    continue
            answers[key] = action
            choices.append(Choice(key, label, ((key,),) if key in playable else ()))
        if title == "Your cards":
            order = {card: i for i, card in enumerate(sorted_hand(CardSet.parse(" ".join(playable))))}
            choices.sort(key=lambda c: order[c.key])
        question = _QUESTIONS.get(kind, f"{kind}?")
        if kind == "play" and turn.view.trick:
            question = f"Your turn: play a card to {' '.join(str(c) for c in turn.view.trick)}."
        presenter._prompts += 1
        prompt = Prompt(presenter._prompts, kind, question, (ChoiceGroup(title, tuple(choices)),) if choices else (),
                        "pass" in answers, False, None, None, tuple(sorted(playable)))
        return prompt, answers

    def forced(self, presenter: Any, turn: Any) -> tuple[Any, Any] | None:
        """The give's hand-over and the refused picture's way back: one answer each, told."""
        legal = list(turn.legal)
        if len(legal) != 1:
            return None
        action = legal[0]
        partner = presenter.label((action.seat + 2) % 4)
        if isinstance(action, Give):
            return action, Note(f"You hand {action.card} to your partner {partner}.", NoteKind.PLAY)
        if isinstance(action, GiveBack):
            return action, Note(f"You hand the refused {action.card} back to {partner}.", NoteKind.PLAY)
        return None

    def action_for_text(self, presenter: Any, turn: Any, text: str) -> Any:
        """A typed answer: ``bid 6`` (or ``6``), ``pass``, ``diamonds``, ``give``, ``take``,
        ``refuse``, ``trump h`` (or ``trump hearts``), a card (``QH``, ``play QH``, ``return 6C``)."""
        words = text.strip().lower().replace(",", " ").split()
        if not words:
            return Refusal("type an answer")
        prompt, answers = self.prompt(presenter, turn)
        presenter._prompts -= 1   # only read for its answers
        head, rest = words[0], words[1:]
        key: str | None = None
        if head == "bid" and rest and rest[0].isdigit():
            key = f"bid-{int(rest[0])}"
        elif head.isdigit():
            key = f"bid-{int(head)}"
        elif head in ("pass", "p", "diamonds", "give", "take", "refuse") and not rest:
            key = {"p": "pass"}.get(head, head)
        elif head == "trump" and rest:
            word = rest[0]
            suit = next((s for s in Suit if _suit_word(s) == word or s.name[0].lower() == word), None)
            if suit is None:
                return Refusal(f"there is no suit {rest[0]}")
            key = f"trump-{_suit_word(suit)}"
        else:
            card_text = rest[0] if head in ("play", "return") and rest else head
            try:
                card = Card.parse(card_text.upper())
            except CardNotationError as error:
                return Refusal(str(error))
            key = str(card)
            if key not in answers:
                held = turn.view.cards(turn.seat) if callable(getattr(turn.view, "cards", None)) else CardSet()
                if card not in held:
                    return Refusal(f"you do not hold {card}")
                if prompt.kind not in ("play", "return"):
                    return Refusal("it is not a card you are asked for now")
                return Refusal(f"{card} cannot be {'played' if prompt.kind == 'play' else 'handed back'} now")
        if key in answers:
            return answers[key]
        return Refusal(f"'{text.strip()}' is not a choice now ({_TYPED.get(prompt.kind, '')})")

    # -- words and the snapshot ---------------------------------------------------------

    def notes(self, presenter: Any, event: Any, session: Any) -> Any:
        """A deal's public facts, its points and the race (cli/sasku_text.py); None: an event
        told as any table's."""
        from p2p_sasaki.cli.sasku_text import sasku_notes

        return sasku_notes(presenter, event, session)

    def prompt_lines(self, prompt: Any) -> list[str]:
        return prompt_lines(prompt)

    def status(self, presenter: Any, kind: str) -> str:
        return _STATUS.get(kind, "Your decision.")

    def partners_text(self, game: Any, names: Sequence[str]) -> str | None:
        return partners_text(game, names)

    def winner_text(self, presenter: Any) -> str:
        """The status line at the match's end: the pairs, and whether yours won."""
        from p2p_sasaki.cli.sasku_text import match_over_text

        return match_over_text(presenter, presenter.totals, yours=presenter.person)

    def pair_label(self, presenter: Any, pair: int) -> str:
        return "+".join(presenter.label(s) for s in TEAMS[pair])

    def side_text(self, presenter: Any) -> str:
        """``Your pair: S1+S3`` (partners opposite), once seated."""
        if presenter.you is None or not presenter.person:
            return ""
        return f"Your pair: {self.pair_label(presenter, presenter.you % 2)}"

    def awaited(self, view: Any) -> tuple[int, ...]:
        seat = view.decision.seat
        return () if seat is None else (seat,)

    def awaited_text(self, view: Any) -> str:
        """What the table waits for the awaited seat to do (the waiting line: "to bid")."""
        return _AWAITED_TO.get(str(getattr(view.decision.kind, "value", "")), "")

    def view_status(self, presenter: Any, view: Any, awaited: Sequence[int]) -> str:
        """The status line while nobody asks you."""
        seat = view.decision.seat
        if seat is None:
            return f"Hand {presenter.hand_no} is over."
        others = frozenset(s for s in awaited if s != presenter.you)
        if others:
            offline = tuple(sorted(set(presenter.offline) | set(presenter.links_down)))
            return str(presenter.waiting_text(others, tuple(s for s in offline if s in others), presenter.session))
        return f"{presenter.label(seat)} {_AWAITED.get(str(view.decision.kind.value), 'is to answer')}."

    def snapshot(self, presenter: Any) -> Any:
        """The snapshot (cli/presenter.py TableView): the seats as any table's, Sasku's own
        values in ``game`` (:meth:`table`)."""
        view = presenter.view
        awaited = set(presenter.awaiting()) if presenter._open is None else set()
        seats = []
        for seat in range(self.seats):
            size = view.hand_size(seat) if view is not None else \
                (presenter.sizes[seat] if presenter.you is not None else 0)
            passed = view is not None and seat in view.passed
            seats.append(SeatState(seat, "You" if seat == presenter.you else presenter.label(seat),
                                   seat == presenter.you, size, passed, (), None, seat in awaited,
                                   seat in presenter.offline or seat in presenter.links_down))
        game = self.table(presenter)
        return presenter.table_view(seats, None, (game.hand,) if game.hand else (), 1, hand_result=presenter.result,
                                    game=game, direction=TURN_DIRECTION)

    def table(self, presenter: Any) -> SaskuTable:
        view = presenter.view
        you = presenter.you
        totals = presenter.totals
        hand: tuple[str, ...] = ()
        trick: tuple[tuple[int, str, str], ...] = ()
        trump, contract = None, ""
        cards, tricks = (0, 0), (0, 0)
        if view is not None:
            if you is not None:
                hand = sorted_hand(view.cards(you))
            leader = view.leader
            trick = tuple(((leader + i) % 4, presenter.label((leader + i) % 4), str(card))
                          for i, card in enumerate(view.trick))
            trump = None if view.trump is None else _suit_word(view.trump)
            cards, tricks = view.card_points, view.tricks
            if view.declarer is not None:
                who = presenter.label(view.declarer)
                contract = (f"{who} ({self.pair_label(presenter, view.declarer % 2)}) plays {view.high_bid}"
                            if view.high_bid else f"{who} declares")
                contract += f", trump {trump}" if trump else ""
                contract += ", diamonds" if view.diamonds and trump != "diamonds" else ""
            elif view.high_bidder is not None:
                contract = f"{presenter.label(view.high_bidder)} bids {view.high_bid}"
        pairs = tuple(PairScore(self.pair_label(presenter, p), TEAMS[p], you is not None and you % 2 == p,
                                cards[p], tricks[p], totals[TEAMS[p][0]] if totals else 0) for p in (0, 1))
        race = ", ".join(f"{pair.label} {pair.game_points}" for pair in pairs) + (
            f" (to {self.target})" if self.target else "")
        return SaskuTable(hand, trick, trump, contract, pairs, self.target, race)


def partners_text(game: Any, names: Sequence[str]) -> str | None:
    """What a member is shown before it signs a table whose partners were chosen by name
    (``sasaki host --pairs``, cli/pairs.py); None when the draw decides them."""
    pairs = getattr(game, "pairs", None)
    if pairs is None or len(names) != 4:
        return None
    others = [names[i] for i in range(4) if i not in pairs]
    return (f"Partners chosen by the creator: {names[pairs[0]]} and {names[pairs[1]]} sit opposite each other, "
            f"against {others[0]} and {others[1]}; starting the table signs this seating.")


def prompt_lines(prompt: Any) -> list[str]:
    """A Sasku prompt as text: the question, the choices, how to type one."""
    choices = [c for g in prompt.groups for c in g.choices]
    lines = [prompt.question]
    if prompt.kind in ("play", "return"):
        lines.append("  Cards you can choose: " + " ".join(c.label for c in choices))
    else:
        lines.append("  " + " | ".join(c.label for c in choices))
    lines.append(f"  ({_TYPED.get(prompt.kind, 'type your choice')}; 'help' for help)")
    return lines
