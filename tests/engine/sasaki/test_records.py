"""p2p_sasaki/sasaki/records.py: parsing, replaying and writing game records."""

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p_sasaki.cards import CardSet
from p2p_sasaki.sasaki.hand import DecisionKind
from p2p_sasaki.sasaki.options import TableOptions
from p2p_sasaki.sasaki.records import RecordError, parse_record, replay, write_record
from tests.engine.sasaki.helpers import after, deal, error_of, random_playthrough, record_text

D = deal("3H TH 9C 9D 7C", "TD 9H 7D 7H", "9S 5C 5D", "5H 5S KC")
LONE = deal("3H TH TD")
DOC = Path(__file__).resolve().parents[3] / "docs" / "records.md"


def seats(specs=D):
    return [f'[Seat{s} "{specs[s]}"]' for s in range(4)]


def err(text):
    with pytest.raises(RecordError) as info:
        replay(text)
    return info.value.line, info.value.message


# -- tags --------------------------------------------------------------------------------

def test_comments_blank_lines_and_unknown_tags_are_ignored():
    """sasaki-rules.md, Game records: # comments anywhere; blank lines ignored; unknown tags ignored."""
    text = "# a hand\n\n[Event \"club night\"]\n" + "\n".join(
        line + "   # deal" for line in seats()) + "\nS0 play 9C 9D # a pair\n"
    hand = replay(text)
    assert hand.top_cards == CardSet.parse("9C 9D") and hand.decision.seats == (1,)


def test_card_tokens_accept_input_notation_and_plays_are_sets():
    """sasaki-rules.md, Game records: a play is a set of cards; tokens accept 10H, th, T♥."""
    specs = deal("3H QC KD AH")
    hand = after(specs, "S0 play ah qc kd")
    assert str(hand.top) == "3-card sequence to A"
    hand = after(D, "S0 play 10h")
    assert hand.top_cards == CardSet.parse("TH")


def test_seats_and_verbs_are_written_exactly():
    """docs/records.md: actions are 'S<seat> <verb>', seats S0-S3 and verbs in lower case;
    only card tokens accept other spellings."""
    assert err("\n".join(seats()) + "\ns0 play 10h\n")[0] == 5
    assert err("\n".join(seats()) + "\nS0 PLAY 10h\n")[0] == 5

def test_missing_seat_tag_is_reported_on_the_first_action_line():
    """sasaki-rules.md, Game records: a missing Seat header shows on the first action line."""
    text = "\n".join(seats()[:3]) + "\n# no Seat3\n\nS0 play 9C 9D\n"
    assert err(text) == (6, "the Seat3 tag is missing: a record deals 12 cards to each of the "
                            "four seats before the first action")


def test_missing_seat_tag_without_actions_is_reported_after_the_last_line():
    text = "\n".join(seats()[:2]) + "\n"
    assert err(text)[0] == 3
    assert err("")[0] == 1


def test_second_header_dealing_the_same_card_is_the_bad_line():
    """sasaki-rules.md, Game records: the second of two headers dealing the same card is reported."""
    lines = seats()
    lines[2] = lines[2].replace(str(D[2]).split()[0], "3H")
    text = "\n".join(lines) + "\n"
    assert err(text) == (3, "3H is already dealt to seat 0")


def test_seat_tag_card_errors():
    lines = seats()
    lines[1] = '[Seat1 "3H"]'
    assert err("\n".join(lines)) == (2, "3H is already dealt to seat 0")
    lines[1] = '[Seat1 "2C"]'
    assert err("\n".join(lines))[0] == 2 and "'2C' is not a card" in err("\n".join(lines))[1]
    lines[1] = '[Seat1 "4C 4C"]'
    assert err("\n".join(lines)) == (2, "4C is listed twice")
    lines[1] = seats()[1].replace(str(D[1]).split()[0] + " ", "")
    assert err("\n".join(lines)) == (2, "seat 1 must be dealt 12 cards, not 11")
    lines = seats() + [seats()[1]]
    assert err("\n".join(lines)) == (5, "the Seat1 tag is given twice")


def test_lead_tag_is_3h_or_3s():
    """sasaki-rules.md, Game records: Lead is 3H or 3S."""
    assert err('[Lead "4H"]\n' + "\n".join(seats())) == (1, "the Lead tag is 3H or 3S, not '4H'")
    hand = replay('[Lead "3S"]\n' + "\n".join(seats(deal("3H", "3S"))))
    assert hand.first_leader == 1


def test_tags_after_the_first_action_and_malformed_lines():
    text = "\n".join(seats()) + '\nS0 play 9C 9D\n[Lead "3S"]\n'
    assert err(text) == (6, "the Lead tag must come before the first action")
    assert replay("\n".join(seats()) + '\nS0 play 9C 9D\n[Note "x"]\n').top_seat == 0
    assert err("\n".join(seats()) + "\n[Seat0 3H]\n")[0] == 5
    assert err("\n".join(seats()) + "\nhello\n")[1].startswith("cannot read 'hello'")


# -- action lines -------------------------------------------------------------------------

@pytest.mark.parametrize("line, message", [
    ("S4 pass", "S4 is not a seat: seats are S0 to S3"),
    ("S0 dance", "unknown action 'dance': expected run, stop, play, pass, chata or kkojda"),
    ("S0", "S0 has no action: expected run, stop, play, pass, chata or kkojda"),
    ("S0 play", "play takes cards, not 0"),
    ("S0 pass 3H", "pass takes no cards, not 1"),
    ("S0 stop 3H", "stop takes no cards, not 1"),
    ("S0 chata 9C", "chata takes 2 cards, not 1"),
    ("S0 kkojda 9C 9D", "kkojda takes 1 card, not 2"),
    ("S0 run TH TD 9C", "run takes 1 or 2 cards, not 3"),
    ("S0 play 9C 9c", "9C is listed twice"),
])
def test_syntax_errors(line, message):
    assert error_of(D, line) == (1, message)


def test_bad_card_token_in_an_action():
    line, message = error_of(D, "S0 play 9C 1D")
    assert line == 1 and message.startswith("'1D' is not a card")


@pytest.mark.parametrize("lines, bad, message", [
    (["S1 play 9H"], 1, "it is S0's turn, not S1's"),
    (["S0 play 9H"], 1, "S0 does not hold 9H"),
    (["S0 play 9C 7C"], 1, "7C 9C is not a combination"),
    (["S0 pass"], 1, "S0 leads this round and cannot pass"),
    (["S0 play 9C 9D", "S1 play 9H"], 2,
     "a single 9 cannot beat a pair of 9: an ordinary play is beaten only by the same kind with "
     "as many cards"),
    (["S0 play 7C", "S1 play 7D"], 2, "a single 7 does not beat a single 7: it needs a higher rank"),
    (["S2 run TH"], 1, "S2 holds no red ten and cannot run"),
    (["S0 run TD"], 1, "a run exposes the runner's own red ten (TH)"),
    (["S0 run TH", "S1 run TD"], 2, "only one run is allowed per hand"),
    (["S0 play 9C 9D", "S1 run TD"], 2, "running is allowed only in the declaration before the first play"),
    (["S0 stop"], 1, "nobody has run, so there is nothing to Stop"),
    (["S0 run TH", "S1 stop"], 2, "S1 is on the running side: only its opponents may call Stop"),
    (["S0 run TH", "S2 stop", "S2 stop"], 3, "S2 has already called Stop"),
    (["S0 run TH", "S2 stop", "S0 play 9C 9D", "S3 stop"], 4, "Stop lines must directly follow the run line"),
    (["S1 chata 7D 7H"], 1, "a chata must directly follow a single that another player could "
                            "answer with a pair of its rank"),
    (["S0 play 7C", "S1 pass", "S2 chata 7D 7H"], 3, "a chata must directly follow a single that another "
                                                     "player could answer with a pair of its rank"),
    (["S0 play 7C", "S0 chata 7D 7H"], 2, "S0 cannot chata here: a chata is played by an active player "
                                          "other than the single's player"),
    (["S0 play 7C", "S2 chata 7D 7H"], 2, "S2 does not hold 7D 7H"),
    (["S0 play 7C", "S1 kkojda 7S"], 2, "a kkojda must directly follow a chata whose fourth card is "
                                        "still unplayed"),
    (["S0 play 7C", "S1 chata 7D 7H", "S2 play 8S", "S3 kkojda 7S"], 3, "it is S1's turn, not S2's"),
])
def test_rule_errors_name_the_line_and_the_rule(lines, bad, message):
    assert error_of(D, *lines) == (bad, message)


def test_lone_holder_run_must_list_both_red_tens():
    """sasaki-rules.md, Game records: run TH from a lone holder is an error."""
    assert error_of(LONE, "S0 run TH") == (1, "a lone holder of both red tens must expose both to run")
    hand = after(LONE, "S0 run TH TD", "S1 stop")
    assert hand.multiplier == 4 and hand.runner == 0


def test_run_line_fills_in_the_forced_exposure_and_exchange():
    """sasaki-rules.md, Game records: the partner's exposure and the exchange are not written."""
    hand = after(D, "S1 run TD", "S2 stop", "S3 stop")
    assert hand.multiplier == 4 and hand.stops == (2, 3)
    assert [str(a) for a in hand.history] == ["S1 run TD", "S0 expose TH", "S2 stop", "S3 stop"]
    assert CardSet.parse("TD").issubset(hand.cards(0)) and CardSet.parse("TH").issubset(hand.cards(1))
    assert error_of(D, "S1 run TD", "S0 play TH") == (2, "S0 does not hold TH")


def test_kkojda_directly_after_chata_and_any_other_line_closes_the_chance():
    """sasaki-rules.md, Game records: a kkojda line comes directly after its chata."""
    hand = after(D, "S0 play 7C", "S1 chata 7D 7H", "S1 kkojda 7S")
    assert hand.decision.kind is DecisionKind.TURN and hand.decision.seats == (1,) and hand.top is None
    hand = after(D, "S0 play 7C", "S1 chata 7D 7H", "S1 play 8C")
    assert hand.top_cards == CardSet.parse("8C")
    assert error_of(D, "S0 play 7C", "S1 chata 7D 7H", "S1 play 8C", "S1 kkojda 7S") == (
        4, "a kkojda must directly follow a chata whose fourth card is still unplayed")


def test_any_action_after_the_end_is_an_error():
    hand = random_playthrough(random.Random(2))
    text = write_record(hand) + "S0 pass\n"
    line, message = err(text)
    assert line == len(text.splitlines())
    assert message == "the hand is already over: the third player has gone out"


def test_option_tags():
    hand = after(D, "S0 play 9C 9D", "S1 run TD", tags=('[Running "any_own_turn"]',))
    assert hand.runner == 1 and hand.decision.kind is DecisionKind.STOP
    line, message = error_of(D, "S0 play 9C 9D", tags=('[LeadMustContain3 "yes"]',))
    assert (line, message) == (1, "the first play of the hand must contain the 3H (option lead_must_contain_3)")


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**9), st.sampled_from(["before_first_play", "any_own_turn"]),
       st.sampled_from(["3H", "3S"]))
def test_written_records_replay_to_the_same_hand(seed, running, lead):
    """The writer and the replayer agree: replay(write_record(hand)) reproduces the hand."""
    hand = random_playthrough(random.Random(seed), TableOptions(lead_card=lead, running=running), lead)
    again = replay(write_record(hand))
    assert again.history == hand.history
    assert (again.finish, again.scores, again.multiplier) == (hand.finish, hand.scores, hand.multiplier)
    assert again.state_hash() == hand.state_hash()


def test_parse_record_without_replaying():
    record = parse_record(record_text(D, ["S0 play 9C 9D", "S1 play 9H"]))
    assert record.deal == D and str(record.lead_card) == "3H"
    assert [str(a.action) for a in record.actions] == ["S0 play 9C 9D", "S1 play 9H"]
    assert [a.line for a in record.actions] == [6, 7]


def test_docs_example_replays():
    text = DOC.read_text(encoding="utf-8").split("```text\n", 1)[1].split("```", 1)[0]
    hand = replay(text)
    assert hand.is_over and hand.finish == (1, 0, 2, 3) and hand.scores == (8, 8, -8, -8)
