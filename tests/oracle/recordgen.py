"""Random Sasaki game records for the differential test, driven by the oracle's legality.

``legal_record(rng)`` deals at random and plays a random legal hand (runs, Stops, chatas,
kkojdas, passes, lone holders, both lead cards, the any_own_turn option, records cut off
mid-hand).  ``mutated_record(rng)`` takes such a record and introduces exactly one bad line
of a chosen kind; it returns the line the oracle must reject (checked by the caller).
"""

from __future__ import annotations

import itertools
import random

from sasaki_oracle import DECK, RED_TENS, Illegal, OracleHand, rank_of

SYMBOL = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def spell(card: str, rng: random.Random, fancy: bool) -> str:
    """Write a card, sometimes in the other accepted input notations."""
    if not fancy or card not in DECK:
        return card
    r, s = card[0], card[1]
    x = rng.random()
    if x < 0.25 and r == "T":
        r = "10"
    if x < 0.15:
        return (r + s).lower()
    if x < 0.3:
        return r + SYMBOL[s]
    return r + s


class Record:
    """A record as structured pieces, rendered to text with optional noise."""

    def __init__(self, seats, lead, running, lmc3, lead_tag, actions):
        self.seats = [list(s) for s in seats]
        self.lead = lead
        self.running = running
        self.lmc3 = lmc3
        self.lead_tag = lead_tag           # write the Lead tag even when it is 3H
        self.actions = list(actions)       # (seat, verb, [cards]) or raw str
        self.header_extra: list[tuple[int, str]] = []   # (position, raw line)
        self.seat_order = [0, 1, 2, 3]
        self.noise_seed = 0
        self.fancy = False

    def render(self) -> tuple[str, dict]:
        """Text and a map: 'seat<i>' / 'action<k>' -> physical line number."""
        rng = random.Random(self.noise_seed)
        out: list[str] = []
        where: dict = {}

        def emit(line: str, key=None):
            if rng.random() < 0.1:
                out.append(rng.choice(["", "# a comment", "   ", "\t# indented"]))
            if rng.random() < 0.1:
                line = line + "   # trailing comment"
            out.append(line)
            if key is not None:
                where[key] = len(out)

        emit('[Event "oracle"]')
        if self.lead_tag or self.lead != "3H":
            emit(f'[Lead "{self.lead}"]')
        if self.running != "before_first_play" or rng.random() < 0.2:
            emit(f'[Running "{self.running}"]')
        if self.lmc3 or rng.random() < 0.2:
            emit(f'[LeadMustContain3 "{"yes" if self.lmc3 else "no"}"]')
        for i in self.seat_order:
            cards = " ".join(spell(c, rng, self.fancy) for c in self.seats[i])
            emit(f'[Seat{i} "{cards}"]', f"seat{i}")
        for pos, raw in self.header_extra:
            out.insert(pos, raw)
        for k, act in enumerate(self.actions):
            if isinstance(act, str):
                emit(act, f"action{k}")
                continue
            seat, verb, cards = act
            text = f"S{seat} {verb}"
            if cards:
                shuffled = list(cards)
                rng.shuffle(shuffled)
                text += " " + " ".join(spell(c, rng, self.fancy) for c in shuffled)
            emit(text, f"action{k}")
        text = "\n".join(out)
        if rng.random() < 0.7:
            text += "\n"
        return text, where


# ---------------------------------------------------------------- candidate plays

def candidate_plays(cards: set[str], rng: random.Random) -> list[list[str]]:
    by_rank: dict[int, list[str]] = {}
    for c in cards:
        by_rank.setdefault(rank_of(c), []).append(c)
    plays: list[list[str]] = []
    for group in by_rank.values():
        group = sorted(group)
        for k in range(1, len(group) + 1):
            plays.extend(list(x) for x in itertools.combinations(group, k))
    fours, aces = by_rank.get(1, []), by_rank.get(11, [])
    for pair in itertools.combinations(sorted(fours), 2):
        for a in aces:
            plays.append(list(pair) + [a])
    for start in range(12):
        for end in range(start + 2, 12):
            if not all(r in by_rank for r in range(start, end + 1)):
                break
            for _ in range(2):
                plays.append([rng.choice(by_rank[r]) for r in range(start, end + 1)])
    return plays


def legal_plays(hand: OracleHand, seat: int, rng: random.Random) -> list[list[str]]:
    ok = []
    for p in candidate_plays(hand.hands[seat], rng):
        try:
            hand.check(seat, "play", p)
        except Illegal:
            continue
        ok.append(p)
    return ok


def kind_of(play: list[str]) -> str:
    ranks = {c[0] for c in play}
    if len(play) == 1:
        return "single"
    if len(ranks) == 1:
        return f"same{len(play)}"
    if len(play) == 3 and sorted(c[0] for c in play) == ["4", "4", "A"]:
        return "sasaki"
    return "sequence"


def pick_play(plays: list[list[str]], rng: random.Random, hoard: int = 0) -> list[str]:
    if hoard == 2:
        quiet = [p for p in plays if not any(c[0] == "T" for c in p)]
        tens_pairs = [p for p in plays if len(p) == 2 and all(c[0] == "T" for c in p)]
        if quiet:
            plays = quiet
        elif tens_pairs:
            plays = tens_pairs
    elif hoard:
        # keep the tens for last: play them only as a pair of tens (Pig / Black Pig)
        tens_pairs = [p for p in plays if len(p) == 2 and all(c[0] == "T" for c in p)]
        if tens_pairs and rng.random() < 0.2:
            return rng.choice(tens_pairs)
        quiet = [p for p in plays if not any(c[0] == "T" for c in p)]
        if quiet:
            plays = quiet
    kinds: dict[str, list] = {}
    for p in plays:
        kinds.setdefault(kind_of(p), []).append(p)
    if "single" in kinds and rng.random() < 0.35:
        return rng.choice(kinds["single"])
    return rng.choice(kinds[rng.choice(sorted(kinds))])


# ---------------------------------------------------------------- legal play-through

def random_deal(rng: random.Random) -> list[list[str]]:
    deck = list(DECK)
    rng.shuffle(deck)
    seats = [[deck[k] for k in range(48) if k % 4 == s] for s in range(4)]
    if rng.random() < 0.35:
        # rig it: a lone red holder and (often) a Black Pig elsewhere
        a, b = rng.sample(range(4), 2)
        wanted = [(a, "TH"), (a, "TD")] + ([(b, "TC"), (b, "TS")] if rng.random() < 0.7 else [])
        for seat, card in wanted:
            holder = next(s for s in range(4) if card in seats[s])
            if holder == seat:
                continue
            give = rng.choice([c for c in seats[seat] if c[0] != "T"])
            seats[holder][seats[holder].index(card)] = give
            seats[seat][seats[seat].index(give)] = card
    return seats


def play_through(rng: random.Random, seats, lead, running, lmc3, snapshots=False):
    """Return (actions, snapshots): a random legal hand, snapshots[k] = state before k."""
    hand = OracleHand([set(s) for s in seats], lead, running, lmc3)
    actions, snaps = [], []
    p_run = rng.choice([0.0, 0.5, 0.9])
    p_stop = rng.choice([0.0, 0.4, 0.8])
    p_chata = rng.choice([0.3, 0.9])
    p_kkojda = rng.choice([0.3, 0.9])
    p_pass = rng.choice([0.2, 0.5])
    hoard = rng.choice([0, 0, 1, 2])
    p_late_run = rng.choice([0.01, 0.05, 0.2, -1])

    def do(seat, verb, cards):
        if snapshots:
            snaps.append(hand.clone())
        hand.step(seat, verb, cards)
        actions.append((seat, verb, list(cards)))

    # default declaration window
    if running == "before_first_play" and rng.random() < p_run:
        holder = rng.choice([s for s in range(4) if hand.hands[s] & RED_TENS])
        do(holder, "run", sorted(hand.hands[holder] & RED_TENS))
        opponents = [s for s in range(4) if s not in hand.runners]
        rng.shuffle(opponents)
        for s in opponents:
            if rng.random() < p_stop:
                do(s, "stop", [])
    guard = 0
    while not hand.over:
        guard += 1
        assert guard < 1000
        if hand.chata_open is not None and rng.random() < p_chata:
            rank = hand.chata_open[0]
            options = []
            for s in range(4):
                mine = sorted(c for c in hand.hands[s] if rank_of(c) == rank)
                for pair in itertools.combinations(mine, 2):
                    try:
                        hand.check(s, "chata", list(pair))
                        options.append((s, list(pair)))
                    except Illegal:
                        pass
            if options:
                do(*((lambda o: (o[0], "chata", o[1]))(rng.choice(options))))
                continue
        if hand.kkojda_open is not None and rng.random() < p_kkojda:
            for s in range(4):
                for c in hand.hands[s]:
                    if rank_of(c) == hand.kkojda_open:
                        do(s, "kkojda", [c])
                        break
                else:
                    continue
                break
            else:
                raise AssertionError("kkojda window with no fourth card")
            continue
        seat = hand.turn
        if running == "any_own_turn" and not hand.ran and (
                rng.random() < p_late_run if p_late_run >= 0 else hand.finish):
            mine = sorted(hand.hands[seat] & RED_TENS)
            if mine:
                try:
                    hand.check(seat, "run", mine)
                    do(seat, "run", mine)
                    for s in [s for s in range(4) if s not in hand.runners]:
                        if rng.random() < p_stop:
                            do(s, "stop", [])
                    continue
                except Illegal:
                    pass
        plays = legal_plays(hand, seat, rng)
        if hand.top is not None and (not plays or rng.random() < p_pass):
            do(seat, "pass", [])
        else:
            do(seat, "play", pick_play(plays, rng, hoard))
    snaps.append(hand.clone() if snapshots else None)
    return actions, snaps


def legal_record(rng: random.Random, snapshots=False):
    seats = random_deal(rng)
    lead = rng.choice(["3H", "3S"])
    running = "any_own_turn" if rng.random() < 0.25 else "before_first_play"
    lmc3 = rng.random() < 0.2
    actions, snaps = play_through(rng, seats, lead, running, lmc3, snapshots)
    # shuffle the cards inside each seat line (any order is allowed)
    for s in seats:
        rng.shuffle(s)
    rec = Record(seats, lead, running, lmc3, rng.random() < 0.5, actions)
    rec.noise_seed = rng.randrange(1 << 30)
    rec.fancy = rng.random() < 0.3
    return rec, snaps


def cut(rec: Record, rng: random.Random) -> Record:
    rec.actions = rec.actions[:rng.randrange(len(rec.actions) + 1)]
    return rec


# ---------------------------------------------------------------- mutations

class Skip(Exception):
    """This mutation does not apply to this record."""


def _indices(rec, pred):
    return [k for k, a in enumerate(rec.actions) if not isinstance(a, str) and pred(a)]


def m_not_held(rec, snaps, rng):
    ks = _indices(rec, lambda a: a[1] == "play")
    k = rng.choice(ks)
    h = snaps[k]
    seat = rec.actions[k][0]
    card = rng.choice([c for c in DECK if c not in h.hands[seat]])
    rec.actions[k] = (seat, "play", [card])
    return ("action", k)


def m_non_combo(rec, snaps, rng):
    ks = _indices(rec, lambda a: a[1] == "play")
    rng.shuffle(ks)
    for k in ks:
        h = snaps[k]
        seat = rec.actions[k][0]
        cards = sorted(h.hands[seat])
        pairs = [(a, b) for a, b in itertools.combinations(cards, 2) if a[0] != b[0]]
        if pairs:
            rec.actions[k] = (seat, "play", list(rng.choice(pairs)))
            return ("action", k)
    raise Skip


def m_not_beat(rec, snaps, rng):
    ks = _indices(rec, lambda a: a[1] in ("play", "pass"))
    rng.shuffle(ks)
    for k in ks:
        h = snaps[k]
        if h.top is None:
            continue
        seat = h.turn
        bad = []
        for p in candidate_plays(h.hands[seat], rng):
            try:
                h.check(seat, "play", p)
            except Illegal as e:
                if "does not beat" in str(e):
                    bad.append(p)
        if bad:
            rec.actions[k] = (seat, "play", rng.choice(bad))
            return ("action", k)
    raise Skip


def m_wrong_turn(rec, snaps, rng):
    ks = _indices(rec, lambda a: a[1] in ("play", "pass"))
    k = rng.choice(ks)
    h = snaps[k]
    seat, verb, cards = rec.actions[k]
    others = [s for s in range(4) if s != h.turn and h.hands[s]]
    s = rng.choice(others)
    if verb == "play" or h.top is None:
        rec.actions[k] = (s, "play", [rng.choice(sorted(h.hands[s]))])
    else:
        rec.actions[k] = (s, "pass", [])
    return ("action", k)


def m_leader_pass(rec, snaps, rng):
    ks = [k for k in _indices(rec, lambda a: a[1] == "play") if snaps[k].top is None]
    k = rng.choice(ks)
    rec.actions.insert(k, (snaps[k].turn, "pass", []))
    return ("action", k)


def m_chata_late(rec, snaps, rng):
    ks = _indices(rec, lambda a: a[1] == "chata")
    if not ks:
        raise Skip
    k = rng.choice(ks)
    h = snaps[k]
    rec.actions.insert(k, (h.turn, "pass", []))   # legal: the next turn passes on the single
    return ("action", k + 1)


def m_chata_on_nonsingle(rec, snaps, rng):
    # a chata right after a pass / a non-single play, by a seat holding two of some rank
    ks = _indices(rec, lambda a: a[1] in ("pass",) or (a[1] == "play" and len(a[2]) > 1))
    rng.shuffle(ks)
    for k in ks:
        h = snaps[k + 1]
        if h.over:
            continue
        for s in range(4):
            by = {}
            for c in h.hands[s]:
                by.setdefault(c[0], []).append(c)
            pairs = [sorted(v)[:2] for v in by.values() if len(v) >= 2]
            if pairs:
                rec.actions.insert(k + 1, (s, "chata", rng.choice(pairs)))
                rec.actions = rec.actions[:k + 2]
                return ("action", k + 1)
    raise Skip


def m_kkojda_wrong(rec, snaps, rng):
    ks = _indices(rec, lambda a: a[1] == "chata")
    rng.shuffle(ks)
    for k in ks:
        h = snaps[k + 1]
        if h.over:
            continue
        rank = rank_of(rec.actions[k][2][0])
        opts = [(s, c) for s in range(4) for c in h.hands[s] if rank_of(c) != rank]
        if opts:
            s, c = rng.choice(opts)
            rec.actions.insert(k + 1, (s, "kkojda", [c]))
            if k + 2 < len(rec.actions) and not isinstance(rec.actions[k + 2], str) \
                    and rec.actions[k + 2][1] == "kkojda":
                del rec.actions[k + 2]
            return ("action", k + 1)
    raise Skip


def m_kkojda_no_chata(rec, snaps, rng):
    ks = _indices(rec, lambda a: a[1] == "play" and len(a[2]) == 1)
    rng.shuffle(ks)
    for k in ks:
        h = snaps[k + 1]
        if h.over:
            continue
        rank = rank_of(rec.actions[k][2][0])
        opts = [(s, c) for s in range(4) for c in h.hands[s] if rank_of(c) == rank]
        if opts:
            s, c = rng.choice(opts)
            rec.actions.insert(k + 1, (s, "kkojda", [c]))
            return ("action", k + 1)
    raise Skip


def m_second_run(rec, snaps, rng):
    ks = _indices(rec, lambda a: a[1] == "run")
    if not ks:
        raise Skip
    k = ks[0]
    h = snaps[k + 1]
    runner = rec.actions[k][0]
    other = [s for s in h.runners if s != runner]
    if other and rng.random() < 0.5:
        rec.actions.insert(k + 1, (other[0], "run", sorted(h.hands[other[0]] & RED_TENS)))
    else:
        rec.actions.insert(k + 1, rec.actions[k])
    return ("action", k + 1)


def m_red_stop(rec, snaps, rng):
    ks = _indices(rec, lambda a: a[1] == "run")
    if not ks:
        raise Skip
    k = ks[0]
    h = snaps[k + 1]
    rec.actions.insert(k + 1, (rng.choice(sorted(h.runners)), "stop", []))
    return ("action", k + 1)


def m_repeat_stop(rec, snaps, rng):
    ks = _indices(rec, lambda a: a[1] == "stop")
    if not ks:
        raise Skip
    k = rng.choice(ks)
    rec.actions.insert(k + 1, rec.actions[k])
    return ("action", k + 1)


def m_stop_no_run(rec, snaps, rng):
    if _indices(rec, lambda a: a[1] == "run"):
        raise Skip
    k = rng.randrange(len(rec.actions) + 1) if rng.random() < 0.5 else 0
    rec.actions.insert(k, (rng.randrange(4), "stop", []))
    rec.actions = rec.actions[:k + 1]
    return ("action", k)


def m_late_stop(rec, snaps, rng):
    ks = _indices(rec, lambda a: a[1] == "run")
    if not ks:
        raise Skip
    k = ks[0]
    h = snaps[k + 1]
    j = k + 1
    while j < len(rec.actions) and rec.actions[j][1] == "stop":
        j += 1
    if j >= len(rec.actions):
        raise Skip
    opp = [s for s in range(4) if s not in h.runners and s not in snaps[j].stops]
    if not opp:
        raise Skip
    rec.actions.insert(j + 1, (rng.choice(opp), "stop", []))
    return ("action", j + 1)


def m_run_after_play(rec, snaps, rng):
    if rec.running != "before_first_play" or _indices(rec, lambda a: a[1] == "run"):
        raise Skip
    ks = _indices(rec, lambda a: a[1] in ("play", "pass"))[1:]
    k = rng.choice(ks)
    h = snaps[k]
    holders = [s for s in range(4) if h.hands[s] & RED_TENS]
    if not holders:
        raise Skip
    s = rng.choice(holders)
    rec.actions.insert(k, (s, "run", sorted(h.hands[s] & RED_TENS)))
    return ("action", k)


def m_bad_run(rec, snaps, rng):
    """A lone holder running with one ten, a non-holder running, or a run of a non-ten."""
    if _indices(rec, lambda a: a[1] == "run") or rec.running != "before_first_play":
        raise Skip
    h = snaps[0]
    lone = [s for s in range(4) if h.hands[s] >= RED_TENS]
    if lone and rng.random() < 0.6:
        rec.actions.insert(0, (lone[0], "run", [rng.choice(sorted(RED_TENS))]))
    else:
        s = rng.choice([s for s in range(4) if not h.hands[s] & RED_TENS])
        rec.actions.insert(0, (s, "run", [rng.choice(sorted(h.hands[s]))]))
    return ("action", 0)


def m_after_end(rec, snaps, rng):
    h = snaps[-1]
    if not h.over:
        raise Skip
    fourth = h.finish[-1]
    last = rec.actions[-1]
    if last[1] == "play" and len(last[2]) == 1 and rng.random() < 0.5:
        # the third player went out with a single: no chata chance follows
        rank = rank_of(last[2][0])
        mine = sorted(c for c in h.hands[fourth] if rank_of(c) == rank)
        if len(mine) >= 2:
            rec.actions.append((fourth, "chata", mine[:2]))
            return ("action", len(rec.actions) - 1)
    if last[1] == "chata":
        # the third player went out with a chata: no kkojda chance follows
        rank = rank_of(last[2][0])
        mine = [c for c in h.hands[fourth] if rank_of(c) == rank]
        if mine:
            rec.actions.append((fourth, "kkojda", mine))
            return ("action", len(rec.actions) - 1)
    choice = rng.random()
    if choice < 0.5:
        rec.actions.append((fourth, "play", [rng.choice(sorted(h.hands[fourth]))]))
    elif choice < 0.75:
        rec.actions.append((fourth, "pass", []))
    else:
        rec.actions.append((rng.randrange(4), "stop", []))
    return ("action", len(rec.actions) - 1)


def m_dup_header(rec, snaps, rng):
    a, b = rng.sample(range(4), 2)
    x = rng.choice(rec.seats[a])
    i = rng.randrange(12)
    rec.seats[b][i] = x
    rng.shuffle(rec.seat_order)
    later = max(a, b, key=rec.seat_order.index)
    return ("seat", later)


def m_missing_seat(rec, snaps, rng):
    rec.seat_order.remove(rng.randrange(4))
    if not rec.actions:
        return ("end",)
    return ("action", 0)


def m_seat_count(rec, snaps, rng):
    i = rng.randrange(4)
    if rng.random() < 0.5:
        rec.seats[i] = rec.seats[i][:11]
    else:
        rec.seats[i][0] = rng.choice(["1H", "XC", "3X", "22", "TT"])
    return ("seat", i)


def m_tag_after_action(rec, snaps, rng):
    if not rec.actions:
        raise Skip
    k = rng.randrange(1, len(rec.actions) + 1)
    tag = rng.choice(['[Lead "3H"]', '[Running "before_first_play"]',
                      '[LeadMustContain3 "no"]', f'[Seat{rng.randrange(4)} "3H"]'])
    rec.actions.insert(k, tag)
    return ("action", k)


def m_lmc3(rec, snaps, rng):
    ks = _indices(rec, lambda a: a[1] == "play")
    if not ks or rec.actions[ks[0]][2].count(rec.lead) or rec.lmc3:
        raise Skip
    rec.lmc3 = True
    return ("action", ks[0])


def m_bad_line(rec, snaps, rng):
    k = rng.randrange(len(rec.actions) + 1)
    rec.actions.insert(k, rng.choice(["S4 play 3H", "S1 fold", "hello", "S0 play 3H 3X",
                                      "[Seat0 \"3H\"", "S0 pass 3H", "S2 stop 4C"]))
    return ("action", k)


def m_fuzz(rec, snaps, rng):
    """Replace one action by a random one; whatever the oracle says is expected."""
    k = rng.randrange(len(rec.actions))
    h = snaps[k]
    s = rng.randrange(4)
    verb = rng.choice(["play", "play", "pass", "chata", "kkojda", "run", "stop"])
    held = sorted(h.hands[s])
    n = {"play": rng.choice([1, 2, 3, 4]), "chata": 2, "kkojda": 1, "run": rng.choice([1, 2]),
         "pass": 0, "stop": 0}[verb]
    if verb == "play" and rng.random() < 0.5:
        cards = rng.choice(candidate_plays(h.hands[s], rng) or [[]])
    else:
        cards = rng.sample(held, min(n, len(held)))
    rec.actions[k] = (s, verb, cards)
    return None


MUTATIONS = [m_not_held, m_non_combo, m_not_beat, m_wrong_turn, m_leader_pass, m_chata_late,
             m_chata_on_nonsingle, m_kkojda_wrong, m_kkojda_no_chata, m_second_run,
             m_red_stop, m_repeat_stop, m_stop_no_run, m_late_stop, m_run_after_play,
             m_bad_run, m_after_end, m_dup_header, m_missing_seat, m_seat_count,
             m_tag_after_action, m_lmc3, m_bad_line, m_fuzz]


def mutated_record(rng: random.Random, mutation):
    """(text, expected-line-or-None) for one mutation; raises Skip if it cannot apply."""
    rec, snaps = legal_record(rng, snapshots=True)
    if not rec.actions:
        raise Skip
    target = mutation(rec, snaps, rng)
    text, where = rec.render()
    if target is None:
        return text, None
    if target[0] == "action":
        line = where[f"action{target[1]}"]
    elif target[0] == "seat":
        line = where[f"seat{target[1]}"]
    else:
        line = len(text.split("\n")) - (1 if text.endswith("\n") else 0) + 1
    return text, line
