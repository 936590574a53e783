"""p2p_sasaki/sasaki/hand.py: the hand state machine, one scenario per rule of sasaki-rules.md."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p_sasaki.cards import Card, CardSet
from p2p_sasaki.sasaki.hand import (
    Chata,
    DealError,
    Decision,
    DecisionKind,
    Decline,
    Expose,
    Hand,
    IllegalActionError,
    Kkojda,
    Pass,
    Play,
    Run,
    Stop,
    opens,
    random_deal,
)
from p2p_sasaki.sasaki.options import TableOptions
from tests.engine.sasaki.helpers import after, deal, decline, new_hand, play, random_playthrough

T = DecisionKind.TURN
# A deal used by many scenarios: S0 holds the 3H and TH, S1 holds TD (partners S0+S1).
D = deal("3H TH 9C 9D", "TD 9H 4C", "9S 5C 5D", "5H 5S KC")


def started(specs=D, **options):
    """A hand past the declaration window (nobody ran)."""
    hand = new_hand(specs, **options)
    decline(hand)
    return hand


# -- deal and first lead --------------------------------------------------------------

def test_deal_must_be_four_times_twelve_distinct_cards():
    """sasaki-rules.md, Seating, deal and first lead: 12 cards each from the 48."""
    masks = [cs.mask for cs in D]
    three = Card.parse("3H")
    with pytest.raises(DealError, match="seat 0 must be dealt 12 cards, not 11"):
        Hand([masks[0] & ~three.mask, *masks[1:]], three)
    with pytest.raises(DealError, match="dealt to two seats"):
        Hand([masks[0], masks[0], masks[2], masks[3]], three)
    with pytest.raises(ValueError, match="the opening 3 is 3H or 3S, not 4C"):
        Hand(masks, Card.parse("4C"))


def test_random_deal_gives_deck_position_k_to_seat_k_mod_4():
    """sasaki-rules.md, Seating, deal and first lead: deck position k goes to seat k mod 4."""
    rng = random.Random(5)
    deck = list(range(48))
    random.Random(5).shuffle(deck)
    hands = random_deal(rng)
    for k, index in enumerate(deck):
        assert hands[k % 4].mask >> index & 1


def test_holder_of_3h_leads_by_default_and_3s_with_the_option():
    """sasaki-rules.md, Seating, deal and first lead: the holder of the opening 3 plays first."""
    specs = deal("3H", "3S")
    assert new_hand(specs).first_leader == 0
    assert new_hand(specs, lead="3S").first_leader == 1
    hand = started(specs, lead="3S")
    assert hand.decision == Decision(T, (1,))


def test_the_opening_3_is_public_until_played():
    """On the network the holder of the opening 3 proves it before the declaration: public in both modes."""
    hand = new_hand(D)
    assert [str(c) for c in hand.view(2).shown] == ["3H", "", "", ""]
    decline(hand)
    play(hand, 0, "9C 9D")
    assert hand.view(2).shown[0] == CardSet.parse("3H")
    spade = new_hand(deal("3H", "3S"), lead="3S")
    assert spade.first_leader == 1 and [str(c) for c in spade.view(0).shown] == ["", "3S", "", ""]
    decline(spade)
    play(spade, 1, "3S")
    assert spade.view(0).shown == (CardSet(),) * 4


def test_a_shown_opening_3_counts_for_the_chata_chance():
    """sasaki-rules.md, Chata and kkojda: public knowledge decides; the leader's 3 is known to be there."""
    hand = started(deal("3H 3C 4C 5C", "3D 5D", "4H", "3S"))
    for line in ("S0 play 4C", "S1 play 5D", "S2 pass", "S3 pass", "S0 pass", "S1 play 3D"):
        if hand.decision.kind is DecisionKind.CHATA:
            decline(hand)
        seat, verb, *cards = line[1:].split(maxsplit=2)
        hand.apply(Play(int(seat), CardSet.parse(cards[0])) if verb == "play" else Pass(int(seat)))
    # 3C and 3S are unseen (3H is known in S0's hand): S2, S3 or S0 could hold two
    assert hand.decision == Decision(DecisionKind.CHATA, (2, 3, 0))
    decline(hand)
    hand.apply(Pass(2))
    hand.apply(Pass(3))
    play(hand, 0, "5C")
    decline(hand)                 # 5H 5S are unplayed
    for passing in (1, 2, 3):
        hand.apply(Pass(passing))
    play(hand, 0, "3C")
    # two 3s are unplayed, but the 3H is known to be S0's: nobody else can hold two
    assert hand.decision == Decision(T, (1,))


def test_first_play_need_not_contain_the_3_unless_the_option_is_on():
    """sasaki-rules.md, Seating, deal and first lead: option lead_must_contain_3 (default off)."""
    hand = started()
    play(hand, 0, "9C 9D")
    assert hand.top_cards == CardSet.parse("9C 9D")
    strict = started(lead_must_contain_3=True)
    with pytest.raises(IllegalActionError, match="must contain the 3H"):
        play(strict, 0, "9C 9D")
    assert all(cards.mask & CardSet.parse("3H").mask for cards in strict.legal_plays(0))
    play(strict, 0, "3H")
    assert strict.top_cards == CardSet.parse("3H")


def test_leader_cannot_pass():
    """sasaki-rules.md, Rounds and turns: the leader plays any combination."""
    hand = started()
    with pytest.raises(IllegalActionError, match="S0 leads this round and cannot pass"):
        hand.apply(Pass(0))
    assert Pass(0) not in hand.legal_actions(0)


# -- rounds and turns ---------------------------------------------------------------------

def test_turn_order_is_counter_clockwise_seat_plus_one():
    """sasaki-rules.md, Cards and notation: play passes counter-clockwise; next seat is s+1."""
    hand = started()
    play(hand, 0, "9C 9D")
    assert hand.decision == Decision(T, (1,))
    hand.apply(Pass(1))
    assert hand.decision == Decision(T, (2,))
    with pytest.raises(IllegalActionError, match="it is S2's turn, not S3's"):
        hand.apply(Pass(3))




def test_round_ends_when_all_other_active_players_pass_and_last_player_leads():
    """sasaki-rules.md, Rounds and turns: the player who made the last play leads the next round."""
    hand = after(D, "S0 play 9C 9D", "S1 pass", "S2 pass", "S3 play KC KD", "S0 pass", "S1 pass")
    assert hand.decision == Decision(T, (2,)) and hand.top_seat == 3
    hand.apply(Pass(2))
    assert hand.decision == Decision(T, (3,)) and hand.top is None


def test_player_passes_then_plays_later_in_the_same_round():
    """sasaki-rules.md, Rounds and turns: passing does not stop a player from playing later."""
    specs = deal("3H 9C 9D", "KC KD", "5C", "JH JS")
    hand = after(specs, "S0 play 9C 9D", "S1 pass", "S2 pass", "S3 play JH JS", "S0 pass",
                 "S1 play KC KD")
    assert hand.top_seat == 1 and hand.decision == Decision(T, (2,))






def test_out_player_round_end_and_next_lead():
    """sasaki-rules.md, Rounds and turns: the others may still beat the last play of a player who went out."""
    specs = deal("3H 4H 5H 6H 7H 8H 9H 3D 4D 5D 6D 7D", "TH TD JH JC")
    hand = started(specs)
    play(hand, 0, "3D 4D 5D 6D 7D")
    for seat in (1, 2, 3):
        hand.apply(Pass(seat))
    play(hand, 0, "3H 4H 5H 6H 7H 8H 9H")          # S0's last cards: out first
    assert hand.finish == (0,) and hand.active_seats == (1, 2, 3)
    assert hand.decision == Decision(T, (1,))        # others may still beat it
    for seat in (1, 2, 3):
        hand.apply(Pass(seat))
    assert hand.decision == Decision(T, (1,)) and hand.top is None  # next active after S0


def test_hand_ends_when_the_third_player_goes_out_and_the_fourth_shows():
    """sasaki-rules.md, Rounds and turns: the hand ends when the third goes out; the fourth shows."""
    hand = random_playthrough(random.Random(11))
    assert hand.is_over and hand.decision == Decision(DecisionKind.OVER, ())
    assert sorted(hand.finish) == [0, 1, 2, 3]
    fourth = hand.finish[3]
    assert hand.fourth_shows() == hand.cards(fourth) and len(hand.fourth_shows()) > 0
    assert all(hand.hand_size(s) == 0 for s in hand.finish[:3])
    assert hand.legal_actions(fourth) == []
    with pytest.raises(IllegalActionError, match="the hand is over"):
        hand.resolve([])


def test_third_player_out_with_a_single_gets_no_chata_window():
    """sasaki-rules.md, Rounds and turns: no chata chance follows the third player's last play."""
    found = 0
    for seed in range(400):
        hand = random_playthrough(random.Random(seed))
        last = hand.history[-1]
        if isinstance(last, Play) and len(last.cards) == 1 and last.seat == hand.finish[2]:
            assert hand.decision.kind is DecisionKind.OVER
            found += 1
    assert found > 0


# -- declaration: running, exposure, exchange, Stop ----------------------------------------

def test_declaration_window_every_seat_answers_in_turn_order_from_the_leader():
    """sasaki-rules.md, Partnerships, running and Stop: window 1, everyone answers run or not."""
    specs = deal("4C", "3H")
    hand = new_hand(specs)
    assert hand.decision == Decision(DecisionKind.RUN, (1, 2, 3, 0))
    with pytest.raises(IllegalActionError, match="S0 has not answered the run decision"):
        hand.resolve([Decline(1), Decline(2), Decline(3)])
    hand.resolve({s: Decline(s) for s in (0, 1, 2, 3)})
    assert hand.decision == Decision(T, (1,)) and hand.multiplier == 1


def test_partner_run_forces_exposure_exchanges_and_doubles():
    """sasaki-rules.md, Partnerships, running and Stop: the partner must expose; they exchange; x2."""
    hand = new_hand(D)
    hand.resolve([Run(1, CardSet.parse("TD")), Decline(0), Decline(2), Decline(3)])
    assert hand.decision == Decision(DecisionKind.EXPOSE, (2, 3, 0))
    assert hand.legal_actions(0) == [Expose(0, CardSet.parse("TH"))]
    with pytest.raises(IllegalActionError, match="S0 holds the other red ten and must expose it"):
        hand.resolve([Decline(0), Decline(2), Decline(3)])
    with pytest.raises(IllegalActionError, match="S2 does not hold TH"):
        hand.resolve([Expose(0, CardSet.parse("TH")), Expose(2, CardSet.parse("TH")), Decline(3)])
    hand.resolve([Expose(0, CardSet.parse("TH")), Decline(2), Decline(3)])
    assert CardSet.parse("TD").issubset(hand.cards(0)) and not CardSet.parse("TH").issubset(hand.cards(0))
    assert CardSet.parse("TH").issubset(hand.cards(1)) and not CardSet.parse("TD").issubset(hand.cards(1))
    assert hand.multiplier == 2 and hand.runner == 1
    assert hand.red_seats == (0, 1)
    assert hand.decision == Decision(DecisionKind.STOP, (2, 3))   # the opponents, from the leader
    # S0 leads: its 3H is public, like the exposed tens
    assert hand.view(3).shown == (CardSet.parse("3H TD"), CardSet.parse("TH"), CardSet(), CardSet())


def test_both_partners_answering_run_is_one_run():
    """sasaki-rules.md, Partnerships, running and Stop: only one run happens per hand."""
    hand = new_hand(D)
    hand.resolve([Run(1, CardSet.parse("TD")), Run(0, CardSet.parse("TH")), Decline(2), Decline(3)])
    assert hand.runner == 0   # the first in turn order from the first leader (S0)
    assert hand.decision.kind is DecisionKind.STOP and hand.multiplier == 2
    assert [str(a) for a in hand.history] == ["S0 run TH", "S1 expose TD"]


def test_lone_holder_must_expose_both_and_does_not_exchange():
    """sasaki-rules.md, Partnerships, running and Stop: a lone holder must expose both red tens."""
    specs = deal("3H TH TD")
    hand = new_hand(specs)
    with pytest.raises(IllegalActionError, match="a lone holder of both red tens must expose both"):
        hand.resolve([Run(0, CardSet.parse("TH")), Decline(1), Decline(2), Decline(3)])
    hand.resolve([Run(0, CardSet.parse("TH TD")), Decline(1), Decline(2), Decline(3)])
    assert hand.decision == Decision(DecisionKind.STOP, (1, 2, 3))
    assert CardSet.parse("TH TD").issubset(hand.cards(0)) and hand.multiplier == 2


def test_only_red_holders_may_run():
    """sasaki-rules.md, Partnerships, running and Stop: a red-ten holder may run."""
    hand = new_hand(D)
    with pytest.raises(IllegalActionError, match="S2 holds no red ten and cannot run"):
        hand.resolve([Run(2, CardSet.parse("TH")), Decline(0), Decline(1), Decline(3)])
    assert [type(a) for a in hand.legal_actions(2)] == [Decline]
    assert [type(a) for a in hand.legal_actions(0)] == [Run, Decline]


def test_stop_by_any_opponent_makes_x4_not_x8():
    """sasaki-rules.md, Partnerships, running and Stop: any number may call Stop; x4 (not x8)."""
    hand = new_hand(D)
    hand.resolve([Run(0, CardSet.parse("TH")), Decline(1), Decline(2), Decline(3)])
    hand.resolve([Expose(1, CardSet.parse("TD")), Decline(2), Decline(3)])
    with pytest.raises(IllegalActionError, match="S0 is not asked in the stop window"):
        hand.resolve([Stop(0), Stop(2), Stop(3)])
    hand.resolve([Stop(2), Stop(3)])
    assert hand.multiplier == 4 and hand.stops == (2, 3)
    assert hand.decision == Decision(T, (0,))


def test_no_stop_window_without_a_run_and_no_stop_keeps_x2():
    """sasaki-rules.md, Partnerships, running and Stop: window 2 only if someone ran."""
    hand = started()
    assert hand.decision.kind is T and hand.multiplier == 1
    ran = new_hand(deal("3H TH TD"))
    ran.resolve([Run(0, CardSet.parse("TH TD")), Decline(1), Decline(2), Decline(3)])
    decline(ran)
    assert ran.multiplier == 2 and ran.decision == Decision(T, (0,))


def test_exposed_red_tens_stay_in_hand_and_are_played_later():
    """sasaki-rules.md, Partnerships, running and Stop: an exposed red ten is played later like any card."""
    hand = after(D, "S1 run TD", "S0 play TD")   # S0 got TD in the exchange
    assert hand.top_cards == CardSet.parse("TD") and hand.top_seat == 0
    assert hand.view(2).shown[0] == CardSet.parse("3H")   # only the opening 3 is still shown


def test_running_after_the_declaration_is_refused_by_default():
    """sasaki-rules.md, Partnerships, running and Stop: option running=before_first_play (default)."""
    hand = started()
    with pytest.raises(IllegalActionError, match="running is allowed only before the first play"):
        hand.apply(Run(0, CardSet.parse("TH")))


def test_any_own_turn_running():
    """sasaki-rules.md, Partnerships, running and Stop: option running=any_own_turn."""
    hand = new_hand(D, running="any_own_turn")
    assert hand.decision == Decision(T, (0,))
    assert hand.legal_actions(0)[0] == Run(0, CardSet.parse("TH"))
    play(hand, 0, "9C 9D")
    hand.apply(Run(1, CardSet.parse("TD")))             # S1 runs at the start of its turn
    assert hand.decision == Decision(DecisionKind.EXPOSE, (2, 3, 0))
    hand.resolve([Decline(2), Decline(3), Expose(0, CardSet.parse("TH"))])
    assert hand.decision == Decision(DecisionKind.STOP, (2, 3))
    hand.resolve([Decline(2), Stop(3)])
    assert hand.decision == Decision(T, (1,)) and hand.multiplier == 4   # S1 goes on with its turn
    with pytest.raises(IllegalActionError, match="only one run is allowed per hand"):
        hand.apply(Run(1, CardSet.parse("TH")))


def test_any_own_turn_running_needs_both_red_tens_in_hands():
    """docs/rules.md ruling: with running=any_own_turn a run needs both red tens unplayed."""
    hand = new_hand(D, running="any_own_turn")
    play(hand, 0, "TH")
    decline(hand)
    assert not any(isinstance(a, Run) for a in hand.legal_actions(1))
    with pytest.raises(IllegalActionError, match="both red tens are in hands"):
        hand.apply(Run(1, CardSet.parse("TD")))


# -- chata and kkojda ----------------------------------------------------------------------

CH = deal("3H 7C 8C", "7D 7H 8D", "7S 8H", "8S")   # S1 holds the pair of 7s


def test_chata_window_after_a_lead_single_every_other_active_seat_answers():
    """sasaki-rules.md, Chata and kkojda: after any single, others may chata; all other seats answer."""
    hand = started(CH)
    play(hand, 0, "7C")
    assert hand.decision == Decision(DecisionKind.CHATA, (1, 2, 3))
    assert [str(a) for a in hand.legal_actions(2)] == ["S2 decline"]
    assert [str(a) for a in hand.legal_actions(1)] == ["S1 chata 7D 7H", "S1 decline"]
    hand.resolve([Chata(1, CardSet.parse("7D 7H")), Decline(2), Decline(3)])
    # the fourth 7 (7S) is unplayed: every active seat answers the kkojda window
    assert hand.decision == Decision(DecisionKind.KKOJDA, (0, 1, 2, 3))
    hand.resolve([Decline(0), Decline(1), Kkojda(2, CardSet.parse("7S")), Decline(3)])
    assert hand.decision == Decision(T, (2,)) and hand.top is None   # round over; S2 leads
    assert [str(a) for a in hand.history][-3:] == ["S0 play 7C", "S1 chata 7D 7H", "S2 kkojda 7S"]


def test_chata_after_an_answering_single_takes_precedence_over_the_next_turn():
    """sasaki-rules.md, Chata and kkojda: a chata after any single takes precedence over the next turn."""
    hand = started(CH)
    play(hand, 0, "3H")
    decline(hand)
    play(hand, 1, "8D")
    assert hand.decision == Decision(DecisionKind.CHATA, (2, 3, 0))
    with pytest.raises(IllegalActionError, match="S2 must answer chata or decline now, not play"):
        hand.resolve([Play(2, CardSet.parse("8H")), Decline(3), Decline(0)])


def test_declined_chata_window_resumes_normal_turns():
    """sasaki-rules.md, Chata and kkojda: without a chata the next active player's turn follows."""
    hand = started(CH)
    play(hand, 0, "7C")
    decline(hand)
    assert hand.decision == Decision(T, (1,)) and hand.top_cards == CardSet.parse("7C")


def test_chata_without_kkojda_chance_ends_the_round_and_chata_player_leads():
    """sasaki-rules.md, Chata and kkojda: after a chata the round ends; the chata player leads."""
    specs = deal("3H 7C", "7D 7H", "7S 3S")
    hand = after(specs, "S0 play 3H", "S1 pass", "S2 play 7S", "S3 pass", "S0 pass", "S1 pass",
                 "S2 play 3S", "S3 pass", "S0 play 7C", "S1 chata 7D 7H")
    assert hand.decision == Decision(T, (1,)) and hand.top is None   # no kkojda window: 7S is played


def test_kkojda_by_the_singles_player_and_nothing_beats_it():
    """sasaki-rules.md, Chata and kkojda: kkojda by whoever holds the fourth card, the single's player included."""
    specs = deal("3H 9C 9D", "9H 9S")
    hand = started(specs)
    play(hand, 0, "9C")
    hand.resolve([Chata(1, CardSet.parse("9H 9S")), Decline(2), Decline(3)])
    assert hand.decision == Decision(DecisionKind.KKOJDA, (0, 1, 2, 3))
    assert hand.legal_actions(0) == [Kkojda(0, CardSet.parse("9D")), Decline(0)]
    hand.resolve([Kkojda(0, CardSet.parse("9D")), Decline(1), Decline(2), Decline(3)])
    assert hand.decision == Decision(T, (0,)) and hand.top is None




def test_no_chata_window_when_fewer_than_two_cards_of_the_rank_can_be_elsewhere():
    """sasaki-rules.md, Chata and kkojda: no chata chance if fewer than two cards of the rank can be elsewhere."""
    specs = deal("3H 9C 9D", "9H")
    hand = after(specs, "S0 play 9C 9D", "S1 pass", "S2 pass", "S3 pass", "S0 play 3H")
    assert hand.decision == Decision(DecisionKind.CHATA, (1, 2, 3))   # 3C 3D 3S are unseen
    decline(hand)
    play(hand, 1, "9H")                                             # only 9S is left unplayed
    assert hand.decision == Decision(T, (2,))


def test_known_red_ten_location_counts_for_the_chata_chance():
    """sasaki-rules.md, Chata and kkojda: exposed red tens' known locations are public knowledge."""
    specs = deal("3H TH TC", "TD TS")
    hand = new_hand(specs)
    hand.resolve([Run(0, CardSet.parse("TH")), Decline(1), Decline(2), Decline(3)])
    hand.resolve([Expose(1, CardSet.parse("TD")), Decline(2), Decline(3)])
    decline(hand)                                   # no Stop
    play(hand, 0, "TC")
    # unplayed tens: TS (unknown), TH (known at S1), TD (known at S0): S1 could hold TS + TH
    assert hand.decision == Decision(DecisionKind.CHATA, (1, 2, 3))
    hand.resolve([Chata(1, CardSet.parse("TH TS")), Decline(2), Decline(3)])
    assert hand.decision == Decision(DecisionKind.KKOJDA, (0, 1, 2, 3))
    assert hand.legal_actions(0)[0] == Kkojda(0, CardSet.parse("TD"))


def test_chata_with_red_or_black_tens_on_a_single_ten():
    """sasaki-rules.md, Chata and kkojda: TH TD or TC TS may be a chata on a single ten."""
    specs = deal("3H TS", "TH TD")
    hand = started(specs)
    play(hand, 0, "TS")
    hand.resolve([Chata(1, CardSet.parse("TH TD")), Decline(2), Decline(3)])
    assert hand.decision.kind is DecisionKind.KKOJDA   # TC is still unplayed
    specs = deal("3H TH", "TC TS")
    hand = started(specs)
    play(hand, 0, "TH")
    hand.resolve([Chata(1, CardSet.parse("TC TS")), Decline(2), Decline(3)])
    assert hand.decision.kind is DecisionKind.KKOJDA


def test_a_chata_must_be_two_held_cards_of_the_singles_rank():
    """sasaki-rules.md, Chata and kkojda: a chata is a pair of the single's rank, held by the player."""
    hand = started(CH)
    play(hand, 0, "7C")
    with pytest.raises(IllegalActionError, match="two cards of the single's rank"):
        hand.resolve([Chata(1, CardSet.parse("8D 7H")), Decline(2), Decline(3)])
    with pytest.raises(IllegalActionError, match="S2 does not hold 7D 7H"):
        hand.resolve([Decline(1), Chata(2, CardSet.parse("7D 7H")), Decline(3)])
    with pytest.raises(IllegalActionError, match="S1 must answer chata or decline now, not play"):
        hand.resolve([Play(1, CardSet.parse("8D")), Decline(2), Decline(3)])
    with pytest.raises(IllegalActionError, match="S0 is not asked in the chata window"):
        hand.resolve([Decline(0), Decline(1), Decline(2), Decline(3)])
    with pytest.raises(IllegalActionError, match="S2 answered twice"):
        hand.resolve([Decline(1), Decline(2), Decline(2), Decline(3)])
    assert hand.decision == Decision(DecisionKind.CHATA, (1, 2, 3))   # unchanged after errors


def test_chata_that_empties_a_hand_goes_out_and_lead_passes_on():
    """sasaki-rules.md, Chata and kkojda: a chata can make a player go out; the next active player leads."""
    specs = deal("3H 7C 9C TC JC QC KC", "7D 7H KS 3S 4S 5S 6S 8S 9S TS JS QS")
    hand = after(specs, "S0 play 3H", "S1 play KS", "S2 pass", "S3 pass", "S0 pass",
                 "S1 play 3S 4S 5S 6S", "S2 pass", "S3 pass", "S0 pass",
                 "S1 play 8S 9S TS JS QS", "S2 pass", "S3 pass", "S0 play 9C TC JC QC KC",
                 "S1 pass", "S2 pass", "S3 pass", "S0 play 7C", "S1 chata 7D 7H")
    assert hand.finish == (1,)
    assert hand.decision == Decision(DecisionKind.KKOJDA, (0, 2, 3))   # 7S is unplayed
    decline(hand)
    assert hand.decision == Decision(T, (2,)) and hand.top is None   # S1 is out: S2 leads


def test_kkojda_by_the_chata_player_itself():
    """sasaki-rules.md, Chata and kkojda: the chata player may also play the fourth card."""
    specs = deal("3H 9C", "9H 9S 9D")
    hand = started(specs)
    play(hand, 0, "9C")
    hand.resolve([Chata(1, CardSet.parse("9H 9S")), Decline(2), Decline(3)])
    hand.resolve([Decline(0), Kkojda(1, CardSet.parse("9D")), Decline(2), Decline(3)])
    assert hand.decision == Decision(T, (1,)) and hand.history[-1] == Kkojda(1, CardSet.parse("9D"))


# -- windows, views, hashing, properties ----------------------------------------------------

def test_window_outcome_is_independent_of_answer_order():
    """design.md, Consensus: a window's outcome is a pure function of the set of answers."""
    base = started(CH)
    play(base, 0, "7C")
    answers = [Chata(1, CardSet.parse("7D 7H")), Decline(2), Decline(3)]
    hashes = set()
    for order in ([0, 1, 2], [2, 1, 0], [1, 2, 0]):
        hand = base.copy()
        hand.resolve([answers[i] for i in order])
        hashes.add(hand.state_hash())
    assert len(hashes) == 1


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**9), st.randoms(use_true_random=False))
def test_window_outcomes_independent_of_answer_order_in_random_hands(seed, shuffler):
    rng = random.Random(seed)
    hand = Hand.random(rng, "3H", TableOptions(lead_card="3H"))
    while not hand.is_over:
        d = hand.decision
        if d.kind is T:
            hand.apply(rng.choice(hand.legal_actions(d.seats[0])))
            continue
        answers = [rng.choice(hand.legal_actions(s)) for s in d.seats]
        other = hand.copy()
        shuffled = answers[:]
        shuffler.shuffle(shuffled)
        hand.resolve(answers)
        other.resolve(shuffled)
        assert other.state_hash() == hand.state_hash()
        assert other.history == hand.history


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**9), st.sampled_from(["before_first_play", "any_own_turn"]),
       st.booleans(), st.sampled_from(["3H", "3S"]))
def test_random_playthroughs_conserve_cards_and_end_properly(seed, running, must3, lead):
    """Random play-throughs conserve the 48 cards and end with four places and zero-sum scores."""
    options = TableOptions(lead_card=lead, lead_must_contain_3=must3, running=running)
    rng = random.Random(seed)
    hand = Hand.random(rng, lead, options)
    while not hand.is_over:
        d = hand.decision
        total = sum(hand.hand_size(s) for s in range(4)) + sum(len(hand.played_by(s)) for s in range(4))
        assert total == 48
        union = 0
        for s in range(4):
            for part in (hand.cards(s).mask, hand.played_by(s).mask):
                assert not union & part
                union |= part
        assert union == (1 << 48) - 1
        for s in range(4):
            view = hand.view(s)
            for other in range(4):
                if other != s:
                    assert not view.cards.mask & hand.cards(other).mask
            assert view.cards == hand.cards(s)
            assert view.hand_sizes == tuple(hand.hand_size(x) for x in range(4))
            assert view.teams is None or view.teams[0] == frozenset(hand.red_seats) or \
                len({c for c in view.dealt if str(c) in ("TH", "TD")}) == 2
        if d.kind is T:
            hand.apply(rng.choice(hand.legal_actions(d.seats[0])))
        else:
            hand.resolve([rng.choice(hand.legal_actions(s)) for s in d.seats])
    assert sorted(hand.finish) == [0, 1, 2, 3]
    assert hand.scores is not None and sum(hand.scores) == 0
    assert hand.multiplier in (1, 2, 4)


def test_views_hide_other_hands_and_teams_until_public():
    """sasaki-rules.md, Partnerships: nobody is told the teams; they become known as red tens are played or run."""
    hand = started()
    v2 = hand.view(2)
    assert v2.cards == hand.cards(2) and v2.teams is None and v2.red == frozenset()
    v0 = hand.view(0)
    assert v0.red == frozenset({0}) and v0.teams is None      # S0 knows only itself
    assert str(hand.cards(0)) not in repr(v2)
    play(hand, 0, "TH")
    assert hand.view(2).red == frozenset({0}) and hand.view(2).teams is None
    assert hand.view(1).teams == (frozenset({0, 1}), frozenset({2, 3}))   # S1 holds TD itself


def test_lone_holder_knows_the_teams_from_the_start():
    specs = deal("3H TH TD")
    hand = new_hand(specs)
    assert hand.view(0).teams == (frozenset({0}), frozenset({1, 2, 3}))
    assert hand.view(1).teams is None


def test_state_hash_is_deterministic_and_covers_only_public_state():
    a, b = started(), started()
    assert a.state_hash() == b.state_hash()
    play(a, 0, "9C 9D")
    assert a.state_hash() != b.state_hash()
    play(b, 0, "9C 9D")
    assert a.state_hash() == b.state_hash()
    # Two deals that differ only in unseen cards have the same public state at the start.
    x = new_hand(deal("3H 4C", "4D"))
    y = new_hand(deal("3H 4D", "4C"))
    assert x.state_hash() == y.state_hash()


def test_opens_names_the_cards_an_action_reveals():
    assert opens(Play(0, CardSet.parse("9C 9D"))) == CardSet.parse("9C 9D")
    assert opens(Run(0, CardSet.parse("TH"))) == CardSet.parse("TH")
    assert opens(Pass(0)) == CardSet() and opens(Decline(2)) == CardSet()


def test_copy_is_independent():
    hand = started()
    other = hand.copy()
    play(other, 0, "9C 9D")
    assert hand.top is None and other.top_seat == 0
