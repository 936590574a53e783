"""cli/sasku_text.py through the presenter: a Sasku table's events told as public facts
(the picture giving names no card), each deal's points and the race to the target."""

from __future__ import annotations

from types import SimpleNamespace

from p2p_sasaki.cards import Card, CardSet, Suit
from p2p_sasaki.cli.presenter import Phase, Presenter
from p2p_sasaki.protocol.events import ActionApplied, Dealt, HandEnded, HandStarted, MatchEnded
from p2p_sasaki.protocol.sasku_game import GiveCall, SaskuGame, SaskuOutcome
from p2p_sasaki.sasku.deal import Bid, Give, Pass, Play, Return, Take, TrumpCall
from p2p_sasaki.sasku.options import SaskuOptions

SESSION = SimpleNamespace(config=SimpleNamespace(game=SaskuGame(SaskuOptions(target=4)), hands=60))


def told(presenter: Presenter, *events: object) -> list[str]:
    return [note.text for event in events for note in presenter.event(event, SESSION)]


def test_a_sasku_deal_is_told_in_public_facts_and_points():
    p = Presenter(person=False)
    p.you = 1
    assert told(p, HandStarted(1)) == ["Hand 1 of 60: shuffling and dealing (every peer shuffles, with proofs) ..."]
    assert told(p, Dealt(1, CardSet.parse("6D 7S 8H 9C TD JH QC KS AD"))) == \
        ["S1's cards: 6D 7S 8H 9C TD JH QC KS AD"]
    qs = Card.parse("QS")
    assert told(p, ActionApplied(Bid(0, 5)), ActionApplied(Pass(1)), ActionApplied(GiveCall(2)),
                ActionApplied(Give(2, qs)), ActionApplied(Take(0)), ActionApplied(Return(0, Card.parse("6C"))),
                ActionApplied(TrumpCall(0, Suit.HEARTS))) == [
        "S0 bids 5", "S1 passes", "S2 gives a picture to S0", "S0 takes it", "S0 returns a card to S2",
        "S0 calls trump hearts (H)"]
    plays = [ActionApplied(Play(s, Card.parse(c)), lead=s == 0) for s, c in enumerate(("AH", "6H", "KH", "7H"))]
    assert told(p, *plays) == ["Trick: S0 AH, S1 6H, S2 KH, S3 7H"]
    outcome = SaskuOutcome(0, "H", False, (80, 40), (6, 3), (1, 0))
    assert told(p, HandEnded(1, (1, 0, 1, 0), (3, 1, 3, 1), outcome)) == [
        "Deal 1: S0 (S0+S2) bid 5, trump H.",
        "  Card points: S0+S2 80, S1+S3 40; tricks: S0+S2 6, S1+S3 3.",
        "  Game points: S0+S2 1, S1+S3 0.",
        "  Match: S0+S2 3, S1+S3 1 (to 4)."]
    assert p.phase is Phase.HAND_OVER and p.totals == (3, 1, 3, 1)
    assert told(p, MatchEnded((4, 1, 4, 1))) == ["The match is over: S0+S2 win 4 to 1."]
    phase: Phase = p.phase
    assert phase is Phase.MATCH_OVER


def test_a_deal_scored_by_the_penalty_names_the_seat_that_broke_a_hidden_rule():
    """docs/rules-sasku.md, "At the table": a rule broken with hidden cards that only the key
    reveal found: the seat is named and the other pair scores 6; the match goes on."""
    from p2p_sasaki.protocol.events import Penalty

    p = Presenter(person=False)
    p.you = 0
    told(p, HandStarted(2))
    outcome = SaskuOutcome(None, None, False, (0, 0), (2, 1), (0, 6))
    penalty = Penalty(2, 2, 31, "with the revealed deal: S2 must play a trump: a trump was led and S2 holds one")
    lines = told(p, HandEnded(2, (0, 6, 0, 6), (0, 6, 0, 6), outcome, penalty))
    assert lines[0] == ("Deal 2: S2 broke a rule with hidden cards, found when the keys were revealed (with the "
                        "revealed deal: S2 must play a trump: a trump was led and S2 holds one); S1+S3 score 6.")
    assert "  Game points: S0+S2 0, S1+S3 6." in lines and p.phase is Phase.HAND_OVER


def test_the_sasku_snapshot_says_play_goes_clockwise():
    p = Presenter(person=False)
    p.you = 1
    told(p, HandStarted(1))
    assert p.table().direction == "clockwise"      # Sasaki's is counter-clockwise (docs/rules-sasku.md)
