"""p2p_sasaki/sasku/records.py: reading, replaying and writing Sasku records."""

import pytest

from p2p_sasaki.cards import CardSet, Suit
from p2p_sasaki.records import RecordError, game_of
from p2p_sasaki.sasku.deal import apply, legal_actions, view
from p2p_sasaki.sasku.records import replay, write_record
from tests.engine.sasku.helpers import HANDS, new_deal, run

TAGS = ['[Game "sasku"]'] + [f'[Seat{s} "{HANDS[s]}"]' for s in range(4)]
AUCTION = ["S0 give KC", "S2 take", "S2 return 9C", "S0 bid 5", "S1 pass", "S2 pass", "S3 pass", "S0 trump H"]


def text(*lines, tags=TAGS):
    return "\n".join([*tags, *lines]) + "\n"


def err(record):
    with pytest.raises(RecordError) as info:
        replay(record)
    return info.value.line, info.value.message


def test_a_record_replays_to_the_deal():
    deal = replay(text(*AUCTION, "S0 play AS", "S1 play 9S"))
    assert deal.history == run(new_deal(), *AUCTION, "S0 play AS", "S1 play 9S").history
    assert (deal.declarer, deal.trump, deal.deal_number) == (0, Suit.HEARTS, 0)


def test_comments_blank_lines_unknown_tags_and_card_spellings():
    """docs/records.md: as for Sasaki, # comments, blank lines and unknown tags are ignored;
    cards accept 10, lower case and suit symbols (the suit after trump is written exactly)."""
    record = "# a deal\n\n[Event \"club\"]\n" + text(
        "S0 give kc # the lone picture", "", "S2 take", "S2 return 9♣", "S0 bid 5", "S1 pass", "S2 pass", "S3 pass",
        "S0 trump H", "S0 play 10s")
    deal = replay(record)
    assert str(deal.history[-1]) == "S0 play TS" and deal.trump == Suit.HEARTS


def test_tags_deal_number_and_options():
    """sasku-rules.md, Records: [Deal "N"] sets dealer and forehand; MinBid, PictureShown."""
    deal = replay(text("S2 pass", tags=[*TAGS, '[Deal "6"]', '[MinBid "6"]', '[PictureShown "yes"]']))
    assert (deal.deal_number, deal.forehand, deal.options.min_bid, deal.options.picture_shown) == (6, 2, 6, True)
    assert err(text("S0 bid 5", tags=[*TAGS, '[MinBid "6"]'])) == (7, "the smallest bid is 6")


@pytest.mark.parametrize(("record", "line", "message"), [
    (text("S0 bid 5", tags=TAGS[1:]), 5,
     'the Game tag is missing: a Sasku record names its game with [Game "sasku"] before the first action'),
    (text("S0 bid 5", tags=TAGS[:4]), 5,
     "the Seat3 tag is missing: a record deals 9 cards to each of the four seats before the first action"),
    (text(tags=TAGS[:4]), 5,
     "the Seat3 tag is missing: a record deals 9 cards to each of the four seats before the first action"),
    (text(tags=['[Game "sasku"]', '[Seat0 "3H 4H 5H AH TH 9H 8H 7H 6H"]']), 2,
     "3H 4H 5H is not in the Sasku pack: its cards are 6 to A"),
    (text(tags=['[Game "sasku"]', '[Seat0 "AH TH"]']), 2, "seat 0 must be dealt 9 cards, not 2"),
    (text(tags=[*TAGS[:2], f'[Seat1 "{HANDS[0]}"]']), 3,
     "6H 7H 8H 9H TH TS KC AH AS is already dealt to seat 0"),
    (text(tags=[*TAGS, '[Game "sasku"]']), 6, "the Game tag is given twice"),
    (text(tags=['[Game "sasaki"]', *TAGS[1:]]), 1, "the Game tag of a Sasku record is sasku, not 'sasaki'"),
    (text(tags=[*TAGS, '[Deal "-1"]']), 6, "the Deal tag is a deal number 0, 1, 2, ..., not '-1'"),
    (text(tags=[*TAGS, '[MinBid "10"]']), 6, "the MinBid tag is a bid from 1 to 9, not '10'"),
    (text(tags=[*TAGS, '[PictureShown "maybe"]']), 6, "the PictureShown tag is yes or no, not 'maybe'"),
    (text("S0 bid 5", '[Deal "1"]'), 7, "the Deal tag must come before the first action"),
    (text('[Game "sasku'), 6, "cannot read the tag '[Game \"sasku': write [Tag \"value\"]"),
    (text("bid 5"), 6, "cannot read 'bid 5': expected a tag like [Seat0 \"...\"] or an action like 'S0 bid 6'"),
    (text("S4 bid 5"), 6, "S4 is not a seat: seats are S0 to S3"),
    (text("S0"), 6, "S0 has no action: expected bid, pass, diamonds, give, take, refuse, return, trump or play"),
    (text("S0 fold"), 6, "unknown action 'fold': expected bid, pass, diamonds, give, take, refuse, return, trump "
                         "or play"),
    (text("S0 BID 5"), 6, "unknown action 'BID': expected bid, pass, diamonds, give, take, refuse, return, trump "
                          "or play"),
    (text("s0 bid 5"), 6, "cannot read 's0 bid 5': expected a tag like [Seat0 \"...\"] or an action like 'S0 bid 6'"),
    (text("S0 bid"), 6, "bid takes one number of tricks, as in 'S0 bid 6'"),
    (text("S0 bid five"), 6, "bid takes one number of tricks, as in 'S0 bid 6'"),
    (text("S0 pass now"), 6, "pass takes nothing, not 'now'"),
    (text("S0 give"), 6, "give takes one card, not 0"),
    (text(*AUCTION[:2], "S2 return 9C JC"), 8, "return takes one card, not 2"),
    (text(*AUCTION, "S0 play 5H"), 14, "5H is not in the Sasku pack: its cards are 6 to A"),
    (text(*AUCTION, "S0 play XX"), 14, "'XX' is not a card: write a rank 3-9, T (or 10), J, Q, K, A then a suit "
                                       "C, D, H, S (or ♣♦♥♠)"),
    (text(*AUCTION[3:7], "S0 trump"), 10, "trump takes one suit, C, S, H or D, as in 'S0 trump H'"),
    (text(*AUCTION[3:7], "S0 trump N"), 10, "'N' is not a suit: write C, S, H or D"),
    (text(*AUCTION[3:7], "S0 trump h"), 10, "'h' is not a suit: write C, S, H or D"),
    (text(*AUCTION[3:7], "S0 trump ♥"), 10, "'♥' is not a suit: write C, S, H or D"),
    (text("S00 bid 5"), 6, "S00 is not a seat: seats are S0 to S3"),
    (text("S\u0660 bid 5"), 6, "cannot read 'S\u0660 bid 5': expected a tag like [Seat0 \"...\"] or an action like "
                              "'S0 bid 6'"),
    (text("S0 bid \u0665"), 6, "bid takes one number of tricks, as in 'S0 bid 6'"),
    (text("S0 bid \uff15"), 6, "bid takes one number of tricks, as in 'S0 bid 6'"),
    (text(tags=[*TAGS, '[Deal "\u0661"]']), 6, "the Deal tag is a deal number 0, 1, 2, ..., not '\u0661'"),
    (text(tags=[*TAGS, '[MinBid "\u0665"]']), 6, "the MinBid tag is a bid from 1 to 9, not '\u0665'"),
    (text(*AUCTION[3:], "S0 play AS", "S1 play KS"), 12,
     "S1 must follow suit: spades were led and S1 holds a plain card of spades"),
    (text("S1 bid 5"), 6, "it is not S1's turn: it is S0's turn to bid, pass, say diamonds or give"),
])
def test_errors_name_the_rule_on_the_first_bad_line(record, line, message):
    """docs/records.md: one sentence naming the rule broken, on the first bad line."""
    assert err(record) == (line, message)


def test_an_action_after_the_end_is_an_error():
    deal = new_deal()
    deal = run(deal, "S0 diamonds")
    while not deal.is_over:
        deal = apply(deal, legal_actions(deal)[-1])
    record = write_record(deal) + "S0 play AH\n"
    assert err(record) == (len(record.splitlines()), "the deal is over: nine tricks have been played")


def test_write_record():
    deal = run(new_deal(deal_number=4, min_bid=6, picture_shown=True), "S0 give KC", "S2 take", "S2 return 9C")
    assert write_record(deal) == text(
        "S0 give KC", "S2 take", "S2 return 9C",
        tags=['[Game "sasku"]', '[Deal "4"]', '[MinBid "6"]', '[PictureShown "yes"]',
              *[f'[Seat{s} "{CardSet.parse(HANDS[s])}"]' for s in range(4)]])
    assert write_record(deal, comments=True).startswith("# p2p-sasaki game record (Sasku)\n")
    with pytest.raises(ValueError, match="a record holds the whole deal"):
        write_record(view(deal, 0))


def test_any_deal_number():
    """sasku-rules.md, Records: [Deal "N"], no bound: forehand N % 4."""
    deal = replay(text(tags=[*TAGS, '[Deal "2147483649"]']))
    assert deal.deal_number == 2147483649 and deal.forehand == 1


def test_the_game_tag_picks_the_game():
    """docs/records.md: a record without a Game tag is Sasaki's; an unknown game is an error."""
    assert game_of('[Seat0 "3H"]\n') == "sasaki"
    assert game_of('# [Game "sasku"]\n[Game "sasaki"]\n') == "sasaki"
    assert game_of(text()) == "sasku"
    with pytest.raises(RecordError) as info:
        game_of('\n[Game "bridge"]\n')
    assert (info.value.line, info.value.message) == (2, "unknown game 'bridge': the Game tag is sasaki or sasku")
    assert game_of('[Deal "1"\n[Game "chess"]\n') == "sasaki"  # line 1 is bad first: Sasaki's reader says so
