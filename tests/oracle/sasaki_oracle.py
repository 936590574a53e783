"""An independent, deliberately plain replayer of Sasaki (44A) game records.

Written only from the project's rules text (sasaki-rules.md), docs/records.md and (where
those are silent) the rulings in docs/rules.md, to cross-check the engine (``sasaki replay --json``).
It is meant to be obviously correct, not fast.

``replay_json(text)`` returns exactly the object ``sasaki replay --json`` prints:
``{"ok": True, "complete", "finish", "red", "multiplier", "scores"}`` or
``{"ok": False, "line": N, "error": "..."}``.

``OracleHand`` is the step-by-step state machine; ``check(seat, verb, cards)`` validates an
action without changing anything, ``step`` validates then applies it.  The differential test
uses it to generate random legal play-throughs.
"""

from __future__ import annotations

import copy
import re

RANKS = "3456789TJQKA"  # low to high
SUITS = "CDHS"
DECK = [r + s for r in RANKS for s in SUITS]
RED_TENS = frozenset({"TH", "TD"})
BLACK_TENS = frozenset({"TC", "TS"})
SUIT_SYMBOLS = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}

# Special combinations, low to high.
TRIPLET, SASAKI, FOUR, PIG = 1, 2, 3, 4
ORDINARY_KINDS = ("single", "pair", "sequence")

# Scoring tables (rules: "Scoring").
TWO_V_TWO = {(1, 2): 2, (1, 3): 1, (1, 4): 0, (2, 3): 0, (2, 4): -1, (3, 4): -2}
LONE = {1: (9, -3), 2: (0, 0), 3: (0, 0), 4: (-9, 3)}


class Illegal(Exception):
    """An action or a line breaks a rule."""


def rank_of(card: str) -> int:
    return RANKS.index(card[0])


def parse_card(token: str) -> str:
    t = token.strip()
    if not t:
        raise Illegal("empty card")
    suit = t[-1]
    rank = t[:-1]
    suit = SUIT_SYMBOLS.get(suit, suit).upper()
    rank = rank.upper()
    if rank == "10":
        rank = "T"
    if len(rank) != 1 or rank not in RANKS or suit not in SUITS:
        raise Illegal(f"{token!r} is not a card")
    return rank + suit


def parse_cards(text: str) -> list[str]:
    return [parse_card(tok) for tok in text.split()]


# ---------------------------------------------------------------- combinations

def classify(cards: frozenset[str], hand_size: int) -> tuple:
    """Return (kind, special_level, rank, length) or raise Illegal.

    kind: 'single' | 'pair' | 'sequence' | 'triplet' | 'sasaki' | 'four' | 'pig'.
    special_level: 0 for ordinary, 1..4 for specials.
    For a pair, the flag ``black`` is encoded as kind 'pair' with rank of T and
    ``cards == BLACK_TENS``; callers look at the cards for that.
    """
    n = len(cards)
    ranks = sorted(rank_of(c) for c in cards)
    if n == 0:
        raise Illegal("no cards")
    if n == 1:
        return ("single", 0, ranks[0], 1)
    if n == 2:
        if ranks[0] != ranks[1]:
            raise Illegal("two cards of different ranks are not a combination")
        if cards == RED_TENS and hand_size != 2:
            return ("pig", PIG, ranks[0], 2)
        return ("pair", 0, ranks[0], 2)
    if n == 3 and sorted(c[0] for c in cards) == ["4", "4", "A"]:
        return ("sasaki", SASAKI, RANKS.index("A"), 3)
    if len(set(ranks)) == 1:
        if n == 3:
            return ("triplet", TRIPLET, ranks[0], 3)
        if n == 4:
            return ("four", FOUR, ranks[0], 4)
    if n >= 3 and all(ranks[i + 1] == ranks[i] + 1 for i in range(n - 1)):
        return ("sequence", 0, ranks[-1], n)
    raise Illegal("these cards are not a combination")


def beats(new: tuple, new_cards: frozenset, top: tuple, top_cards: frozenset) -> bool:
    """Does the play ``new`` beat the top play ``top``? (rules: "Combinations")"""
    nkind, nlev, nrank, nlen = new
    tkind, tlev, trank, tlen = top
    new_black = nkind == "pair" and new_cards == BLACK_TENS
    top_black = tkind == "pair" and top_cards == BLACK_TENS
    if tkind == "pig":
        # Only the Black Pig beats a Pig.
        return new_black
    if nkind == "pig":
        # A Pig beats everything except the Black Pig (cannot be played on it).
        return not top_black
    if nlev and tlev:
        if nlev != tlev:
            return nlev > tlev
        if nkind == "sasaki":
            return False  # a Sasaki never beats a Sasaki
        return nrank > trank
    if nlev and not tlev:
        return True
    if tlev and not nlev:
        return False
    # both ordinary
    return nkind == tkind and nlen == tlen and nrank > trank


# ---------------------------------------------------------------- the hand

class OracleHand:
    def __init__(self, seats: list[set[str]], lead_card: str = "3H",
                 running: str = "before_first_play", lead_must_contain_3: bool = False):
        self.hands = [set(s) for s in seats]
        self.dealt = [frozenset(s) for s in seats]
        self.lead_card = lead_card
        self.running = running
        self.lmc3 = lead_must_contain_3
        self.red = sorted(s for s in range(4) if self.dealt[s] & RED_TENS)
        self.first_leader = next(s for s in range(4) if lead_card in self.dealt[s])
        self.played = set()
        self.any_play = False
        self.ran = False
        self.runners: set[int] = set()
        self.stops: set[int] = set()
        self.multiplier = 1
        self.finish: list[int] = []
        self.over = False
        self.scores = None
        self.turn = self.first_leader
        self.top = None           # (combo, cards) or None when the turn seat leads
        self.last = None          # seat that made the top play
        self.passes = 0
        # "windows" open only directly after the line that opened them
        self.stop_open = False
        self.chata_open = None    # (rank, single player)
        self.kkojda_open = None   # rank

    def clone(self) -> OracleHand:
        other = copy.copy(self)
        other.hands = [set(h) for h in self.hands]
        other.played = set(self.played)
        other.runners = set(self.runners)
        other.stops = set(self.stops)
        other.finish = list(self.finish)
        return other

    # -- helpers
    def active(self, s: int) -> bool:
        return s not in self.finish

    def next_active(self, s: int) -> int:
        for k in range(1, 5):
            t = (s + k) % 4
            if self.active(t):
                return t
        raise AssertionError("no active seat")

    def _hold(self, s: int, cards: list[str]) -> frozenset:
        fs = frozenset(cards)
        if len(fs) != len(cards):
            raise Illegal("a card is listed twice")
        for c in cards:
            if c not in self.hands[s]:
                raise Illegal(f"S{s} does not hold {c}")
        return fs

    # -- validation (no side effects)
    def check(self, s: int, verb: str, cards: list[str]):
        if self.over:
            raise Illegal("the hand is over")
        if verb == "run":
            return self._check_run(s, cards)
        if verb == "stop":
            if cards:
                raise Illegal("stop takes no cards")
            if not self.stop_open:
                raise Illegal("stop must follow the run")
            if s in self.runners:
                raise Illegal("only an opponent of the runners may stop")
            if s in self.stops:
                raise Illegal("each opponent stops at most once")
            return None
        if verb == "chata":
            if self.chata_open is None:
                raise Illegal("a chata must directly follow a single")
            rank, single_player = self.chata_open
            if s == single_player:
                raise Illegal("the single's player cannot chata")
            if not self.active(s):
                raise Illegal("not active")
            fs = self._hold(s, cards)
            if len(fs) != 2 or any(rank_of(c) != rank for c in fs):
                raise Illegal("a chata is two cards of the single's rank")
            return fs
        if verb == "kkojda":
            if self.kkojda_open is None:
                raise Illegal("a kkojda must directly follow a chata")
            fs = self._hold(s, cards)
            if len(fs) != 1 or rank_of(next(iter(fs))) != self.kkojda_open:
                raise Illegal("a kkojda is the fourth card of the chata's rank")
            return fs
        if verb == "pass":
            if cards:
                raise Illegal("pass takes no cards")
            if s != self.turn:
                raise Illegal(f"it is not S{s}'s turn")
            if self.top is None:
                raise Illegal("the leader cannot pass")
            return None
        if verb == "play":
            if s != self.turn:
                raise Illegal(f"it is not S{s}'s turn")
            fs = self._hold(s, cards)
            combo = classify(fs, len(self.hands[s]))
            if self.top is None:
                if not self.any_play and self.lmc3 and self.lead_card not in fs:
                    raise Illegal("the first play must contain the opening 3")
            elif not beats(combo, fs, self.top[0], self.top[1]):
                raise Illegal("this play does not beat the top play")
            return (combo, fs)
        raise Illegal(f"unknown verb {verb}")

    def _check_run(self, s: int, cards: list[str]):
        if self.ran:
            raise Illegal("only one run is allowed per hand")
        if self.running == "before_first_play":
            if self.any_play:
                raise Illegal("running is only allowed before the first play")
        else:
            if s != self.turn:
                raise Illegal("a run is made at the start of one's own turn")
            if self.played & RED_TENS:
                raise Illegal("a red ten has been played")
        fs = self._hold(s, cards)
        mine = self.hands[s] & RED_TENS
        if not mine:
            raise Illegal("only a red-ten holder may run")
        if fs != mine:
            raise Illegal("a run exposes one's red ten (a lone holder both)")
        return fs

    # -- application
    def step(self, s: int, verb: str, cards: list[str]) -> None:
        info = self.check(s, verb, cards)
        chata_was = self.chata_open
        self.stop_open = False
        self.chata_open = None
        self.kkojda_open = None
        if verb == "run":
            self.ran = True
            self.multiplier = 2
            holders = [t for t in range(4) if self.hands[t] & RED_TENS]
            self.runners = set(holders)
            if len(holders) == 2:  # partners: forced exposure and exchange
                a, b = holders
                ca, cb = next(iter(self.hands[a] & RED_TENS)), next(iter(self.hands[b] & RED_TENS))
                self.hands[a].remove(ca)
                self.hands[b].remove(cb)
                self.hands[a].add(cb)
                self.hands[b].add(ca)
            self.stop_open = True
        elif verb == "stop":
            self.stops.add(s)
            self.multiplier = 4
            self.stop_open = True
        elif verb == "pass":
            self.passes += 1
            others = sum(1 for t in range(4) if self.active(t) and t != self.last)
            if self.passes >= others:
                self._new_round(self.last)
            else:
                self.turn = self.next_active(s)
        elif verb == "play":
            combo, fs = info
            self.any_play = True
            self._remove(s, fs)
            if self.over:
                return
            self.top = (combo, fs)
            self.last = s
            self.passes = 0
            self.turn = self.next_active(s)
            if combo[0] == "single":
                self.chata_open = (combo[2], s)
        elif verb == "chata":
            rank = chata_was[0]
            self._remove(s, info)
            if self.over:
                return
            self._new_round(s)
            if any(c[0] == RANKS[rank] and c not in self.played for c in DECK):
                self.kkojda_open = rank
        elif verb == "kkojda":
            self._remove(s, info)
            if self.over:
                return
            self._new_round(s)

    def _new_round(self, last: int) -> None:
        self.top = None
        self.last = None
        self.passes = 0
        self.turn = last if self.active(last) else self.next_active(last)

    def _remove(self, s: int, fs: frozenset) -> None:
        self.hands[s] -= fs
        self.played |= fs
        if not self.hands[s]:
            self.finish.append(s)
            if len(self.finish) == 3:
                self.finish.append(next(t for t in range(4) if t not in self.finish))
                self.over = True
                self.scores = self._score()

    def _score(self) -> list[int]:
        place = {s: i + 1 for i, s in enumerate(self.finish)}
        if len(self.red) == 2:
            v = TWO_V_TWO[tuple(sorted(place[s] for s in self.red))]
            out = [v if s in self.red else -v for s in range(4)]
        else:
            lone, opp = LONE[place[self.red[0]]]
            out = [lone if s in self.red else opp for s in range(4)]
        return [x * self.multiplier for x in out]

    def summary(self) -> dict:
        return {"ok": True, "complete": self.over, "finish": list(self.finish),
                "red": list(self.red), "multiplier": self.multiplier,
                "scores": list(self.scores) if self.scores is not None else None}


# ---------------------------------------------------------------- records

# A tag name starts with a letter, as the engine has always read it (docs/records.md only shows names).
TAG_RE = re.compile(r'^\[\s*([A-Za-z][A-Za-z0-9_]*)\s+"([^"]*)"\s*\]$')
ACTION_RE = re.compile(r"^S([0-3])\s+(run|stop|play|pass|chata|kkojda)\b(.*)$")
KNOWN_TAGS = {"Seat0", "Seat1", "Seat2", "Seat3", "Lead", "Running", "LeadMustContain3"}


class RecordError(Exception):
    def __init__(self, line: int, message: str):
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


def physical_lines(text: str) -> list[str]:
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    if text == "":
        lines = []
    return lines


def replay(text: str) -> OracleHand | None:
    """Replay a record; return the hand (None: never reached, see errors) or raise."""
    lines = physical_lines(text)
    tags: dict[str, object] = {}
    seats: dict[int, frozenset] = {}
    hand: OracleHand | None = None
    for number, raw in enumerate(lines, start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("["):
            m = TAG_RE.match(line)
            if not m:
                raise RecordError(number, "malformed tag")
            name, value = m.group(1), m.group(2)
            if name not in KNOWN_TAGS:
                continue
            if hand is not None:
                raise RecordError(number, f"the {name} tag comes after the first action")
            if name in tags:
                raise RecordError(number, f"repeated {name} tag")
            try:
                if name.startswith("Seat"):
                    cards = parse_cards(value)
                    if len(cards) != 12 or len(set(cards)) != 12:
                        raise Illegal("a seat is dealt 12 different cards")
                    for other in seats.values():
                        if other & set(cards):
                            raise Illegal("a card is dealt twice")
                    seats[int(name[4])] = frozenset(cards)
                    tags[name] = value
                elif name == "Lead":
                    # the opening 3 is a card token: the input notation applies
                    # (rules, "Game records: fine points": card tokens accept it)
                    cards = parse_cards(value)
                    if len(cards) != 1 or cards[0] not in ("3H", "3S"):
                        raise Illegal("Lead is 3H or 3S")
                    tags[name] = cards[0]
                elif name == "Running":
                    if value not in ("before_first_play", "any_own_turn"):
                        raise Illegal("bad Running option")
                    tags[name] = value
                else:
                    if value not in ("yes", "no"):
                        raise Illegal("LeadMustContain3 is yes or no")
                    tags[name] = value == "yes"
            except Illegal as e:
                raise RecordError(number, str(e)) from None
            continue
        m = ACTION_RE.match(line)
        if hand is None:
            if len(seats) != 4:
                raise RecordError(number, "a Seat tag is missing")
            hand = OracleHand([seats[i] for i in range(4)],
                              lead_card=tags.get("Lead", "3H"),
                              running=tags.get("Running", "before_first_play"),
                              lead_must_contain_3=tags.get("LeadMustContain3", False))
        if not m:
            raise RecordError(number, "not an action line")
        seat, verb, rest = int(m.group(1)), m.group(2), m.group(3)
        try:
            cards = parse_cards(rest)
            hand.step(seat, verb, cards)
        except Illegal as e:
            raise RecordError(number, str(e)) from None
    if hand is None:
        if len(seats) != 4:
            raise RecordError(len(lines) + 1, "a Seat tag is missing")
        hand = OracleHand([seats[i] for i in range(4)],
                          lead_card=tags.get("Lead", "3H"),
                          running=tags.get("Running", "before_first_play"),
                          lead_must_contain_3=tags.get("LeadMustContain3", False))
    return hand


def replay_json(text: str) -> dict:
    try:
        hand = replay(text)
    except RecordError as e:
        return {"ok": False, "line": e.line, "error": e.message}
    return hand.summary()


if __name__ == "__main__":  # pragma: no cover
    import json
    import sys
    with open(sys.argv[1], encoding="utf-8-sig") as f:
        print(json.dumps(replay_json(f.read())))
