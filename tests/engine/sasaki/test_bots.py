"""p2p_sasaki/sasaki/bots.py: each heuristic in a constructed position, the random bot, the driver."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from p2p_sasaki.cards import CardSet, parse_cards
from p2p_sasaki.sasaki.bots import (
    STRONG,
    Bot,
    HeuristicBot,
    LazyView,
    RandomBot,
    TurnActions,
    kept_for_specials,
    legal_actions,
    play,
    play_hand,
    strength,
)
from p2p_sasaki.sasaki.hand import (
    Action,
    Chata,
    DecisionKind,
    Decline,
    Expose,
    Hand,
    Kkojda,
    Pass,
    Play,
    Run,
    SeatView,
    Stop,
)

from .helpers import after, deal, decline, new_hand
from .helpers import play as play_cards

# S1 has a low run 3-4-5-6, a kept triplet of 8s and free high singles.
S1_CARDS = "3H 4C 5C 6S 8D 8H 8S 9C JD QS KC AD"
S1_RED = "3H 4C 5C 6S 8D 8H 8S 9C JD QS KC TH"  # the same with TH for AD


def kind_of(hand: Hand) -> DecisionKind:
    """The kind of the hand's decision now (read afresh after the hand moved on)."""
    return hand.decision.kind


def choice(hand: Hand, seat: int, view: SeatView | None = None, seed: int = 0):
    return HeuristicBot(random.Random(seed)).choose(view or hand.view(seat), hand.legal_actions(seat))


def to_turn(hand: Hand) -> None:
    while hand.decision.is_window:
        decline(hand)


def answering(s0_play: str, s2: str = "", s3: str = "") -> Hand:
    """S1 (holding S1_CARDS with 3D for 3H) to answer S0's lead ``s0_play``."""
    hand = new_hand(deal("3S 6C 7C AS KH", "3D 4C 5C 6S 8D 8H 8S 9C JD QS KC AD", s2, s3),
                    lead="3S")
    to_turn(hand)
    play_cards(hand, 0, s0_play)
    to_turn(hand)
    assert hand.turn == 1
    return hand


def cards(action) -> str:
    return f"{action.verb} {action.cards}".strip()


# -- answering ------------------------------------------------------------------------

def test_answers_with_the_lowest_play_that_beats_the_top():
    assert cards(choice(answering("6C"), 1)) == "play 9C"  # not 8 (kept), not J Q K A


def test_keeps_a_triplet_together_rather_than_break_it_for_a_single():
    hand = answering("7C")
    assert Play(1, CardSet.parse("8D")) in hand.legal_actions(1)
    assert cards(choice(hand, 1)) == "play 9C"


def test_passes_rather_than_spend_a_special_early():
    hand = answering("AS")
    assert Play(1, CardSet.parse("8D 8H 8S")) in hand.legal_actions(1)
    assert cards(choice(hand, 1)) == "pass"


def test_spends_the_lowest_special_when_an_opponent_is_about_to_go_out():
    hand = answering("AS")
    view = replace(hand.view(1), hand_sizes=(2, 12, 12, 12))
    assert cards(choice(hand, 1, view)) == "play 8D 8H 8S"


def test_spends_a_special_late_in_its_own_hand():
    hand = answering("AS")
    view = replace(hand.view(1), hand_sizes=(10, 5, 12, 12))
    assert cards(choice(hand, 1, view)) == "play 8D 8H 8S"


def test_goes_out_when_one_play_empties_the_hand():
    hand = answering("6C")
    view = replace(hand.view(1), cards=CardSet.parse("QS KC"))
    legal: list[Action] = [Play(1, CardSet.parse("QS KC")), Play(1, CardSet.parse("KC")), Pass(1)]
    assert cards(HeuristicBot(random.Random(0)).choose(view, legal)) == "play QS KC"


# -- leading --------------------------------------------------------------------------

def test_leads_the_longest_play_holding_its_lowest_free_card():
    hand = new_hand(deal("", S1_CARDS))
    to_turn(hand)
    assert hand.turn == 1
    assert cards(choice(hand, 1)) == "play 3H 4C 5C 6S"


def test_leads_a_low_single_to_hand_the_lead_to_a_known_partner():
    specs = deal("", S1_RED, "", "TD")
    hand = after(specs, "S1 run TH")
    to_turn(hand)  # nobody calls Stop
    assert hand.view(1).teams == (frozenset({1, 3}), frozenset({0, 2}))
    assert hand.turn == 1 and hand.multiplier == 2
    assert cards(choice(hand, 1)) == "play 3H"
    unknown = new_hand(specs)
    to_turn(unknown)
    assert unknown.view(1).teams is None
    assert cards(choice(unknown, 1)) == "play 3H 4C 5C 6S"


def test_passes_rather_than_beat_a_known_partner():
    specs = deal("", S1_RED, "", "TD 9D JC")
    hand = after(specs, "S1 run TH", "S1 play 6S", "S2 pass")
    assert hand.turn == 3 and Play(3, CardSet.parse("9D")) in hand.legal_actions(3)
    assert cards(choice(hand, 3)) == "pass"
    unknown = after(specs, "S1 play 6S", "S2 pass")
    assert unknown.turn == 3 and unknown.view(3).teams is None
    assert cards(choice(unknown, 3)) == "play 9D"  # the lowest single above the 6


def test_leads_its_lowest_special_when_it_holds_nothing_else():
    view_hand = answering("6C")
    view = replace(view_hand.view(1), cards=CardSet.parse("8D 8H 8S TH TD"), top=None,
                   top_seat=None, top_cards=CardSet())
    legal = [Play(1, CardSet.parse(text)) for text in ("8D", "8D 8H", "8D 8H 8S", "TH TD", "TH")]
    assert cards(HeuristicBot(random.Random(0)).choose(view, legal)) == "play 8D 8H 8S"


# -- windows --------------------------------------------------------------------------

def test_chata_with_the_pair_and_kkojda_with_the_fourth():
    hand = new_hand(deal("3H 9C 9S", "9D 9H"))
    to_turn(hand)
    play_cards(hand, 0, "9C")
    assert hand.decision.kind is DecisionKind.CHATA
    assert choice(hand, 1) == Chata(1, CardSet.parse("9D 9H"))
    assert choice(hand, 2) == Decline(2)
    hand.resolve([Chata(1, CardSet.parse("9D 9H")), Decline(2), Decline(3)])
    assert kind_of(hand) is DecisionKind.KKOJDA
    assert choice(hand, 0) == Kkojda(0, CardSet.parse("9S"))


def test_chata_keeps_the_pig_whole():
    hand = new_hand(deal("3H TC", "TH TD TS"))
    to_turn(hand)
    play_cards(hand, 0, "TC")
    assert Chata(1, CardSet.parse("TH TD")) in hand.legal_actions(1)
    assert choice(hand, 1) == Chata(1, CardSet.parse("TD TS"))


def test_runs_and_stops_only_with_a_strong_hand():
    weak0 = "3H 3C 5C 7C JC 6D 8D 4D 5S 6S 7S 4H"
    strong = "TH AC AD AS AH 3D 5D 7D 9D JD QD 6C"   # four aces: 4 + 3
    weak2 = "TD 3S 8S JS 5H 6H 7H 8H TS 4C 4S 8C"   # a triplet: 2
    strong3 = "9C 9H 9S QC QH QS KC KD KH KS TC JH"  # four kings and two triplets: 7
    assert strength(parse_cards(strong)) == strength(parse_cards(strong3)) == 7 >= STRONG
    assert (strength(parse_cards(weak0)), strength(parse_cards(weak2))) == (0, 2)
    hand = new_hand(deal(weak0, strong, weak2, strong3))
    assert choice(hand, 1) == Run(1, CardSet.parse("TH"))
    assert choice(hand, 2) == Decline(2)
    hand.resolve([Run(1, CardSet.parse("TH")), Decline(0), Decline(2), Decline(3)])
    assert hand.decision.kind is DecisionKind.EXPOSE
    assert choice(hand, 2) == Expose(2, CardSet.parse("TD"))
    hand.resolve([Expose(2, CardSet.parse("TD")), Decline(0), Decline(3)])
    assert kind_of(hand) is DecisionKind.STOP and hand.decision.seats == (0, 3)
    assert choice(hand, 0) == Decline(0)
    assert choice(hand, 3) == Stop(3)


def test_kept_for_specials_and_strength():
    assert str(CardSet(kept_for_specials(parse_cards("4C 4D 9H 9S 9C TH TD AS AC 3C")))) == \
        "4C 4D 9C 9H 9S TD TH AC"
    assert kept_for_specials(parse_cards("TH TD")) == 0  # the last two cards are no Pig
    assert strength(parse_cards("3C 5D 7H 9S JC KD")) == 0


# -- the random bot -------------------------------------------------------------------

def test_random_bot_picks_uniformly_with_its_rng():
    hand = answering("6C")
    legal = hand.legal_actions(1)
    rng = random.Random(7)
    picks = [RandomBot(random.Random(7)).choose(hand.view(1), legal)]
    assert picks[0] == legal[int(rng.random() * len(legal))]
    bot = RandomBot(random.Random(3))
    seen = {bot.choose(hand.view(1), legal) for _ in range(400)}
    assert seen == set(legal)


# -- the driver and privacy -----------------------------------------------------------

class SpyBot:
    """Records what it is given; answers like the heuristic bot."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.inner = HeuristicBot(random.Random(seat))
        self.calls: list[tuple[SeatView, tuple]] = []

    def choose(self, view, legal):
        self.calls.append((view, tuple(legal)))
        return self.inner.choose(view, legal)


def test_bots_get_only_their_own_view_and_their_own_legal_actions():
    hand = Hand.random(random.Random(11), "3H")
    spies = [SpyBot(s) for s in range(4)]
    seen_hands = []
    for _step in play(hand, spies):
        for seat, spy in enumerate(spies):
            for view, legal in spy.calls:
                assert type(view) is SeatView and view.seat == seat
                assert all(action.seat == seat for action in legal)
                assert view.cards.issubset(CardSet(hand.dealt[seat]) | CardSet(parse_cards("TH TD")))
            seen_hands += [view.cards for view, _ in spy.calls]
            spy.calls.clear()
    assert hand.is_over and seen_hands
    assert sorted(hand.finish) == [0, 1, 2, 3]


def test_heuristic_choices_depend_only_on_the_view():
    # S2 and S3 swap JC and TC: S1's view is the same in both deals, and so is its choice.
    a, b = answering("6C", "JC", "TC"), answering("6C", "TC", "JC")
    assert a.cards(2) != b.cards(2) and a.view(1) == b.view(1)
    assert choice(a, 1, seed=5) == choice(b, 1, seed=5) == Play(1, CardSet.parse("9C"))


def test_turn_actions_equal_the_engines_legal_actions():
    rng = random.Random(2)
    checked = 0
    for _ in range(20):
        hand = Hand.random(rng, "3H")
        while not hand.is_over:
            d = hand.decision
            for seat in range(4):
                lazy = legal_actions(hand, seat)
                assert list(lazy) == hand.legal_actions(seat)
                assert isinstance(lazy, TurnActions) == (hand.turn == seat)
                if isinstance(lazy, TurnActions):
                    checked += 1
                    assert lazy[-1] == hand.legal_actions(seat)[-1]
                    assert lazy[:2] == hand.legal_actions(seat)[:2]
            answers = [rng.choice(hand.legal_actions(s)) for s in d.seats]
            hand.apply(answers[0]) if d.kind is DecisionKind.TURN else hand.resolve(answers)
    assert checked > 500
    with pytest.raises(IndexError):
        TurnActions(0, [1], False)[1]


class ViewingRandomBot(RandomBot):
    """A RandomBot that is shown real views (and checks them against the hand's)."""

    uses_view = True

    def __init__(self, rng: random.Random, hand: Hand | None = None) -> None:
        super().__init__(rng)
        self.hand = hand
        self.kept: list[SeatView | LazyView] = []

    def choose(self, view, legal):
        if self.hand is not None:  # a lazy view reads as the view of this decision
            assert type(view) is LazyView and view.seat in self.hand.decision.seats
            assert view.materialize() == self.hand.view(view.seat)
            assert (view.cards, view.decision) == (self.hand.cards(view.seat), self.hand.decision)
        self.kept.append(view)
        return super().choose(view, legal)


class PeekingRandomBot(ViewingRandomBot):
    uses_view = False  # as RandomBot: it is handed a LazyView, and reads it anyway


def test_a_bot_that_does_not_use_its_view_gets_a_lazy_one():
    assert RandomBot.uses_view is False and not hasattr(HeuristicBot, "uses_view")
    runs = []
    kinds: tuple[type[Any], ...] = (RandomBot, ViewingRandomBot, PeekingRandomBot)
    for kind in kinds:
        hand = Hand.random(random.Random(8), "3H")
        bots = [kind(random.Random(s)) for s in range(4)]
        if kind is PeekingRandomBot:
            bots = [kind(random.Random(s), hand) for s in range(4)]
        steps = list(play(hand, bots))
        runs.append((steps, hand.history, hand.state_hash()))
        if kind is ViewingRandomBot:
            assert all(type(v) is SeatView for b in bots for v in b.kept)
        if kind is PeekingRandomBot:
            kept = [v for b in bots for v in b.kept]
            assert kept and all(type(v) is LazyView for v in kept)
            assert all(v.materialize().seat == v.seat for v in kept)  # read in time: kept
    assert runs[0] == runs[1] == runs[2]  # the same choices whatever view is shown
    # A lazy view nobody read during choose() cannot be read afterwards.
    hand = Hand.random(random.Random(8), "3H")
    unread = ViewingRandomBot(random.Random(0))
    unread.uses_view = False
    play_hand(hand, [unread] * 4)
    assert unread.kept and all(type(v) is LazyView for v in unread.kept)
    with pytest.raises(RuntimeError, match="only while the bot's choose"):
        _ = unread.kept[0].cards


def test_a_seeded_hand_plays_out_the_same_every_time():
    def run():
        hand = Hand.random(random.Random(4), "3H")
        bots: list[Bot] = [HeuristicBot(random.Random(1)), RandomBot(random.Random(2)),
                           HeuristicBot(random.Random(3)), RandomBot(random.Random(4))]
        steps = list(play(hand, bots))
        return hand, steps
    hand, steps = run()
    again, steps_again = run()
    assert steps == steps_again and hand.history == again.history
    assert (hand.finish, hand.scores, hand.multiplier) == (again.finish, again.scores, again.multiplier)
    assert play_hand(Hand.random(random.Random(4), "3H"), [RandomBot(random.Random(s)) for s in range(4)]).is_over
