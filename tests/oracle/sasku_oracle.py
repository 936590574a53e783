"""An independent, deliberately plain replayer of Sasku records.

Written only from the project's rules text (../shared/sasku-rules.md: the rules, the record
format and the ``sasaki replay --json`` object) and, for the generic line rules (comments,
tags, line numbers, where a tag error is reported), docs/records.md, to cross-check the
engine. It is meant to be obviously correct, not fast. It shares no code with the engine.
Where the rules text is silent (tag names, the MinBid range, a Game tag naming another game
or coming late), it follows the engine's documented reading, marked where it does so; the
disagreements found and settled are in tests/oracle/test_sasku_differential.py.

``replay_json(text)`` returns exactly the object ``sasaki replay --json`` prints for a Sasku
record: ``{"ok": True, "complete", "declarer", "trump", "diamonds", "card_points", "tricks",
"points"}`` or ``{"ok": False, "line": N, "error": "..."}``. A record without a Game tag (or
with ``[Game "sasaki"]``) is a Sasaki record: it goes to the Sasaki oracle.

``OracleDeal`` is the step-by-step state machine; ``check(seat, verb, arg)`` validates an
action without changing anything, ``step`` validates then applies it. The record generator
uses it to play random legal deals.
"""

from __future__ import annotations

import copy
import re

import sasaki_oracle

RANKS = "6789TJQKA"          # the 36-card pack
SUITS = "CSHD"               # high to low: clubs > spades > hearts > diamonds
DECK = [r + s for s in SUITS for r in RANKS]
PICTURE_RANKS = "KQJ"
PICTURES = [r + s for r in PICTURE_RANKS for s in SUITS]   # KC KS KH KD QC .. JD: high to low
PLAIN_ORDER = "AT9876"       # high to low, in every suit
CARD_POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0, "6": 0}
SUIT_SYMBOLS = {"♣": "C", "♦": "D", "♥": "H", "♠": "S", "♧": "C", "♢": "D", "♡": "H", "♤": "S"}
DEFAULT_MIN_BID = 5
MAX_BID = 9


class Illegal(Exception):
    """An action or a line breaks a rule."""


def is_picture(card: str) -> bool:
    return card[0] in PICTURE_RANKS


def parse_card(token: str) -> str:
    t = token.strip()
    if not t:
        raise Illegal("empty card")
    suit = SUIT_SYMBOLS.get(t[-1], t[-1]).upper()
    rank = t[:-1].upper()
    if rank == "10":
        rank = "T"
    if len(rank) != 1 or rank not in RANKS or suit not in SUITS:
        raise Illegal(f"{token!r} is not a card of the Sasku pack")
    return rank + suit


def partner(seat: int) -> int:
    return (seat + 2) % 4


def pair(seat: int) -> int:
    return seat % 2


# ---------------------------------------------------------------- cards in play

def is_trump(card: str, trump: str) -> bool:
    return is_picture(card) or card[1] == trump


def trump_order(trump: str) -> list[str]:
    """All 18 trumps, high to low."""
    return PICTURES + [r + trump for r in PLAIN_ORDER]


def trick_winner(trick: list[tuple[int, str]], trump: str) -> int:
    """The seat that wins a finished trick [(seat, card), ...] (first entry led)."""
    order = trump_order(trump)
    trumps = [(order.index(card), seat) for seat, card in trick if is_trump(card, trump)]
    if trumps:
        return min(trumps)[1]
    led_suit = trick[0][1][1]
    same = [(PLAIN_ORDER.index(card[0]), seat) for seat, card in trick
            if not is_picture(card) and card[1] == led_suit]
    return min(same)[1]


def must_follow(hand: set[str], led: str, trump: str) -> list[str]:
    """The cards of ``hand`` that follow the led card; all of the hand when none do."""
    if is_trump(led, trump):
        follow = [c for c in hand if is_trump(c, trump)]
    else:
        follow = [c for c in hand if not is_picture(c) and c[1] == led[1]]
    return follow or sorted(hand)


def deal_points(card_points: list[int], tricks: list[int], declarer: int | None,
                diamonds: bool) -> list[int]:
    """Game points [pair 0, pair 1] of a complete deal (rules: "Scoring a deal")."""
    points = [0, 0]
    if card_points[0] == card_points[1]:          # pokk, any game: nobody scores
        return points
    if declarer is None:                           # üleküla ruutu: no jänn, no karvane
        points[0 if card_points[0] > card_points[1] else 1] = 1
        return points
    if 0 in tricks:                                # karvane
        points[0 if tricks[1] == 0 else 1] = 6
        return points
    ours = pair(declarer)
    value = 2 if diamonds else 1
    if card_points[ours] >= 61:
        winner, won = ours, value
    else:
        winner, won = 1 - ours, 2 * value
    if card_points[1 - winner] < 31:               # jänn
        won += 1
    points[winner] = won
    return points


# ---------------------------------------------------------------- the deal

AUCTION, ANSWER, RETURN, TRUMP, PLAY, OVER = "auction", "answer", "return", "trump", "play", "over"


class OracleDeal:
    def __init__(self, seats: list[set[str]], deal: int = 0, min_bid: int = DEFAULT_MIN_BID):
        self.hands = [set(s) for s in seats]
        self.forehand = deal % 4
        self.min_bid = min_bid
        self.phase = AUCTION
        self.turn = self.forehand
        self.passed: set[int] = set()
        self.high_bid = 0
        self.high_bidder: int | None = None
        self.gave: set[int] = set()
        self.giver: int | None = None
        self.given: str | None = None
        self.declarer: int | None = None
        self.trump: str | None = None
        self.diamonds = False
        self.trick: list[tuple[int, str]] = []
        self.tricks = [0, 0]
        self.card_points = [0, 0]
        self.points: list[int] | None = None

    def clone(self) -> OracleDeal:
        other = copy.copy(self)
        other.hands = [set(h) for h in self.hands]
        other.passed = set(self.passed)
        other.gave = set(self.gave)
        other.trick = list(self.trick)
        other.tricks = list(self.tricks)
        other.card_points = list(self.card_points)
        return other

    def pictures(self, seat: int) -> list[str]:
        return sorted(c for c in self.hands[seat] if is_picture(c))

    # -- validation (no side effects)
    def check(self, s: int, verb: str, arg: object = None) -> None:
        if self.phase == OVER:
            raise Illegal("the deal is over")
        if verb in ("take", "refuse"):
            if self.phase != ANSWER:
                raise Illegal(f"{verb} answers a give, and no picture is being given")
            if self.giver is None or s != partner(self.giver):
                raise Illegal("only the giver's partner answers a give")
            return
        if verb == "return":
            if self.phase != RETURN:
                raise Illegal("a card is returned only after a picture is taken")
            if self.giver is None or s != partner(self.giver):
                raise Illegal("only the partner who took the picture returns a card")
            assert isinstance(arg, str)
            if arg not in self.hands[s]:
                raise Illegal(f"S{s} does not hold {arg}")
            if is_picture(arg):
                raise Illegal("the card returned is not a picture")
            return
        if self.phase == ANSWER:
            raise Illegal("the giver's partner must take or refuse the picture first")
        if self.phase == RETURN:
            raise Illegal("the partner must return a card first")
        if verb in ("bid", "pass", "diamonds", "give"):
            if self.phase != AUCTION:
                raise Illegal("the auction is over")
            if s != self.turn:
                raise Illegal(f"it is not S{s}'s turn to bid")
            if verb == "bid":
                assert isinstance(arg, int)
                if not self.min_bid <= arg <= MAX_BID:
                    raise Illegal(f"a bid is a number from {self.min_bid} to {MAX_BID}")
                if arg <= self.high_bid:
                    raise Illegal("a bid must be higher than every earlier bid")
            elif verb == "give":
                assert isinstance(arg, str)
                if s in self.gave:
                    raise Illegal("each seat gives at most once per deal")
                if arg not in self.hands[s]:
                    raise Illegal(f"S{s} does not hold {arg}")
                if not is_picture(arg):
                    raise Illegal("only a picture is given")
                if len(self.pictures(s)) != 1:
                    raise Illegal("a seat gives only when it holds exactly one picture")
                if len(self.pictures(partner(s))) >= 9:
                    raise Illegal("no give when the partner holds nine pictures")
            return
        if verb == "trump":
            if self.phase != TRUMP:
                raise Illegal("trump is named only by the declarer when the bidding ends")
            if s != self.declarer:
                raise Illegal("only the declarer names the trump")
            if arg not in tuple(SUITS):
                raise Illegal("the trump is C, S, H or D")
            return
        if verb == "play":
            if self.phase != PLAY:
                raise Illegal("cards are played only after the trump is known")
            if s != self.turn:
                raise Illegal(f"it is not S{s}'s turn to play")
            assert isinstance(arg, str)
            if arg not in self.hands[s]:
                raise Illegal(f"S{s} does not hold {arg}")
            if self.trick:
                assert self.trump is not None
                if arg not in must_follow(self.hands[s], self.trick[0][1], self.trump):
                    raise Illegal("a seat must follow the card led when it can")
            return
        raise Illegal(f"unknown verb {verb}")

    def legal_lines(self) -> set[str]:
        """Every legal action now, as its record line (``S1 bid 5``): each candidate checked.
        A seat gives, returns or plays only a card it holds (rules), so those candidates are
        the cards of its hand, not the whole deck."""
        out = set()
        for s in range(4):
            candidates: list[tuple[str, object]] = [("bid", n) for n in range(1, MAX_BID + 1)]
            candidates += [(verb, None) for verb in ("pass", "diamonds", "take", "refuse")]
            candidates += [(verb, card) for verb in ("give", "return", "play") for card in sorted(self.hands[s])]
            candidates += [("trump", suit) for suit in SUITS]
            for verb, arg in candidates:
                try:
                    self.check(s, verb, arg)
                except Illegal:
                    continue
                out.add(f"S{s} {verb}" + ("" if arg is None else f" {arg}"))
        return out

    # -- application
    def step(self, s: int, verb: str, arg: object = None) -> None:
        self.check(s, verb, arg)
        if verb == "bid":
            assert isinstance(arg, int)
            self.high_bid, self.high_bidder = arg, s
            self._next_bidder(s)
        elif verb == "pass":
            self.passed.add(s)
            self._next_bidder(s)
        elif verb == "diamonds":
            self.declarer = s
            self._start_play("D")
        elif verb == "give":
            assert isinstance(arg, str)
            self.gave.add(s)
            self.giver, self.given = s, arg
            self.phase = ANSWER
        elif verb == "refuse":
            self.giver = self.given = None
            self.phase = AUCTION
        elif verb == "take":
            assert self.giver is not None and self.given is not None
            self.hands[self.giver].remove(self.given)
            self.hands[s].add(self.given)
            self.phase = RETURN
        elif verb == "return":
            assert self.giver is not None and isinstance(arg, str)
            self.hands[s].remove(arg)
            self.hands[self.giver].add(arg)
            self.giver = self.given = None
            self.phase = AUCTION
        elif verb == "trump":
            assert isinstance(arg, str)
            self._start_play(arg)
        elif verb == "play":
            assert isinstance(arg, str)
            self._play(s, arg)

    def _next_bidder(self, s: int) -> None:
        if len(self.passed) == 4:                  # all passed: üleküla ruutu
            self._start_play("D")
            return
        if len(self.passed) == 3 and self.high_bidder is not None:
            self.declarer = self.high_bidder
            self.phase = TRUMP
            self.turn = self.declarer
            return
        t = (s + 1) % 4
        while t in self.passed:
            t = (t + 1) % 4
        self.turn = t

    def _start_play(self, trump: str) -> None:
        self.trump = trump
        self.diamonds = trump == "D"
        self.phase = PLAY
        self.turn = self.forehand

    def _play(self, s: int, card: str) -> None:
        assert self.trump is not None
        self.hands[s].remove(card)
        self.trick.append((s, card))
        if len(self.trick) < 4:
            self.turn = (s + 1) % 4
            return
        winner = trick_winner(self.trick, self.trump)
        self.tricks[pair(winner)] += 1
        self.card_points[pair(winner)] += sum(CARD_POINTS[c[0]] for _, c in self.trick)
        self.trick = []
        self.turn = winner
        if sum(self.tricks) == 9:
            self.phase = OVER
            self.points = deal_points(self.card_points, self.tricks, self.declarer, self.diamonds)

    def summary(self) -> dict:
        in_auction = self.phase in (AUCTION, ANSWER, RETURN)
        return {"ok": True, "complete": self.phase == OVER,
                "declarer": None if in_auction else self.declarer,
                "trump": self.trump, "diamonds": self.diamonds,
                "card_points": list(self.card_points), "tricks": list(self.tricks),
                "points": list(self.points) if self.points is not None else None}


# ---------------------------------------------------------------- records

# A tag name starts with a letter (the engine's reading; the rules text only shows names).
TAG_RE = re.compile(r'^\[\s*([A-Za-z][A-Za-z0-9_]*)\s+"([^"]*)"\s*\]$')
ACTION_RE = re.compile(r"^S([0-3])\s+(bid|pass|diamonds|give|take|refuse|return|trump|play)\b(.*)$")
KNOWN_TAGS = {"Game", "Seat0", "Seat1", "Seat2", "Seat3", "Deal", "MinBid", "PictureShown"}
NO_ARGUMENT = {"pass", "diamonds", "take", "refuse"}
CARD_ARGUMENT = {"give", "return", "play"}


class RecordError(Exception):
    def __init__(self, line: int, message: str):
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


def physical_lines(text: str) -> list[str]:
    if text == "":
        return []
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines


def content(raw: str) -> str:
    return raw.split("#", 1)[0].strip()


def game_tag(text: str) -> tuple[int, str] | None:
    """The first ``[Game "..."]`` tag of a record, (line, value): the game it is played by.
    (Ruling where the rules text is silent, as the engine reads it: the first Game tag
    anywhere names the game; a Sasku record must still have it before its first action.)"""
    for number, raw in enumerate(physical_lines(text), start=1):
        m = TAG_RE.match(content(raw))
        if m and m.group(1) == "Game":
            return number, m.group(2)
    return None


def unknown_game_line(text: str, game_line: int) -> int:
    """The first bad line of a record whose Game tag names no game: a malformed tag
    before it, or the Game tag itself."""
    for number, raw in enumerate(physical_lines(text)[:game_line - 1], start=1):
        line = content(raw)
        if line.startswith("[") and not TAG_RE.match(line):
            return number
    return game_line


def parse_argument(verb: str, words: list[str]) -> object:
    if verb in NO_ARGUMENT:
        if words:
            raise Illegal(f"{verb} takes no argument")
        return None
    if len(words) != 1:
        raise Illegal(f"{verb} takes exactly one argument")
    word = words[0]
    if verb == "bid":
        if not re.fullmatch(r"[0-9]+", word):
            raise Illegal("a bid is a number")
        return int(word)
    if verb == "trump":
        if word not in tuple(SUITS):
            raise Illegal("the trump is C, S, H or D")
        return word
    return parse_card(word)


def parse_tag(name: str, value: str, seats: dict[int, frozenset]) -> object:
    if name == "Game":
        if value != "sasku":
            raise Illegal("this is a Sasku record: the game is sasku")
        return value
    if name.startswith("Seat"):
        cards = [parse_card(tok) for tok in value.split()]
        if len(cards) != 9 or len(set(cards)) != 9:
            raise Illegal("a seat is dealt 9 different cards")
        for other in seats.values():
            if other & set(cards):
                raise Illegal("a card is dealt twice")
        seats[int(name[4])] = frozenset(cards)
        return value
    if name == "Deal":
        if not re.fullmatch(r"[0-9]+", value):
            raise Illegal("Deal is a deal number 0, 1, 2, ...")
        return int(value)
    if name == "MinBid":
        # (The rules text: bids run "from 5 to 9", the 5 an option; the option may be any
        # bid, 1 to 9, as the engine reads it.)
        if not re.fullmatch(r"[0-9]+", value) or not 1 <= int(value) <= MAX_BID:
            raise Illegal("MinBid is a number from 1 to 9")
        return int(value)
    if value not in ("yes", "no"):                # PictureShown
        raise Illegal("PictureShown is yes or no")
    return value == "yes"


def replay(text: str) -> OracleDeal:
    """Replay a Sasku record; return the deal or raise RecordError."""
    lines = physical_lines(text)
    tags: dict[str, object] = {}
    seats: dict[int, frozenset] = {}
    deal: OracleDeal | None = None

    def start(number: int) -> OracleDeal:
        if len(seats) != 4:
            raise RecordError(number, "a Seat tag is missing")
        deal_number = tags.get("Deal", 0)
        min_bid = tags.get("MinBid", DEFAULT_MIN_BID)
        assert isinstance(deal_number, int) and isinstance(min_bid, int)
        return OracleDeal([set(seats[i]) for i in range(4)], deal_number, min_bid)

    for number, raw in enumerate(lines, start=1):
        line = content(raw)
        if not line:
            continue
        if line.startswith("["):
            m = TAG_RE.match(line)
            if not m:
                raise RecordError(number, "malformed tag")
            name, value = m.group(1), m.group(2)
            if name not in KNOWN_TAGS:
                continue
            if deal is not None:
                raise RecordError(number, f"the {name} tag comes after the first action")
            if name in tags:
                raise RecordError(number, f"repeated {name} tag")
            try:
                tags[name] = parse_tag(name, value, seats)
            except Illegal as e:
                raise RecordError(number, str(e)) from None
            continue
        if deal is None:
            if "Game" not in tags:
                raise RecordError(number, 'a Sasku record has its [Game "sasku"] tag before the first action')
            deal = start(number)
        m = ACTION_RE.match(line)
        if not m:
            raise RecordError(number, "not an action line")
        seat, verb, rest = int(m.group(1)), m.group(2), m.group(3)
        try:
            deal.step(seat, verb, parse_argument(verb, rest.split()))
        except Illegal as e:
            raise RecordError(number, str(e)) from None
    if deal is None:
        deal = start(len(lines) + 1)
    return deal


def replay_json(text: str) -> dict:
    game = game_tag(text)
    if game is None or game[1] == "sasaki":
        return sasaki_oracle.replay_json(text)
    if game[1] != "sasku":
        line = unknown_game_line(text, game[0])
        return {"ok": False, "line": line, "error": "the Game tag names sasaki or sasku"}
    try:
        deal = replay(text)
    except RecordError as e:
        return {"ok": False, "line": e.line, "error": e.message}
    return deal.summary()


if __name__ == "__main__":  # pragma: no cover
    import json
    import sys
    with open(sys.argv[1], encoding="utf-8-sig") as f:
        print(json.dumps(replay_json(f.read())))
