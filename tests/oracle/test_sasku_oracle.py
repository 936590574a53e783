"""The Sasku oracle against examples worked out by hand from the rules text
(../shared/sasku-rules.md), before it is trusted to judge the engine."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from sasku_oracle import deal_points, replay_json, trick_winner  # noqa: E402

# Pair 0 holds every picture but three: every trick is S0's whatever the trump.
KARVANE = {0: "KC KS KH KD QC QS QH QD JC", 1: "AC TC 9C 8C 7C 6C AS TS 9S",
           2: "JS JH JD AH TH 9H 8H 7H 6H", 3: "8S 7S 6S AD TD 9D 8D 7D 6D"}

# S1 holds one picture (JC), its partner S3 five: S1 may give it.
FOLLOW = {0: "KC KS KH QC 6H 7H 8H 9H TH", 1: "AC 6C 7C JC 6D 7D 8D 9D TD",
          2: "TC 9C 8C KD QS 6S 7S 8S AH", 3: "QH QD JS JH JD 9S TS AS AD"}


def record(seats: dict[int, str], actions: str, tags: str = '[Game "sasku"]') -> str:
    lines = [t.strip() for t in tags.strip().splitlines()]
    lines += [f'[Seat{s} "{seats[s]}"]' for s in range(4)]
    lines += [a.strip() for a in actions.strip().splitlines() if a.strip()]
    return "\n".join(lines) + "\n"


def first_action_line(text: str) -> int:
    return next(i for i, line in enumerate(text.split("\n"), 1) if line.startswith("S"))


def plays(tricks: str) -> str:
    """'S0 KC S1 AC ...' one trick a line -> play lines."""
    out = []
    for trick in tricks.strip().splitlines():
        words = trick.split()
        out += [f"{seat} play {card}" for seat, card in zip(words[::2], words[1::2], strict=True)]
    return "\n".join(out)


def state(declarer, trump, diamonds, card_points=(0, 0), tricks=(0, 0), points=None, complete=False):
    return {"ok": True, "complete": complete, "declarer": declarer, "trump": trump, "diamonds": diamonds,
            "card_points": list(card_points), "tricks": list(tricks),
            "points": None if points is None else list(points)}


# ---------------------------------------------------------------- cards

def test_trick_winner_by_the_trump_order():
    # any picture beats every card of the trump suit; pictures K > Q > J, then C > S > H > D
    assert trick_winner([(0, "AH"), (1, "JD"), (2, "TH"), (3, "6H")], "H") == 1
    assert trick_winner([(0, "QD"), (1, "QC"), (2, "KD"), (3, "JC")], "S") == 2
    assert trick_winner([(0, "6S"), (1, "AS"), (2, "KD"), (3, "TS")], "S") == 2
    # no trump in the trick: the highest card of the suit led; a ten beats a nine
    assert trick_winner([(0, "9C"), (1, "TC"), (2, "AD"), (3, "6C")], "H") == 1
    # the 6 of the trump suit beats the ace of the suit led
    assert trick_winner([(0, "AC"), (1, "6D"), (2, "TC"), (3, "9C")], "D") == 1


# ---------------------------------------------------------------- scoring

@pytest.mark.parametrize("card_points, tricks, declarer, diamonds, points", [
    ((61, 59), (5, 4), 0, False, [1, 0]),    # suit game made
    ((60, 60), (5, 4), 0, False, [0, 0]),    # pokk
    ((59, 61), (5, 4), 2, False, [0, 2]),    # suit game overthrown
    ((90, 30), (7, 2), 1, False, [3, 0]),    # overthrown, the declarers under 31: jänn
    ((31, 89), (2, 7), 1, False, [0, 1]),    # 31 is not under 31: no jänn
    ((30, 90), (2, 7), 3, False, [0, 2]),    # made with jänn
    ((70, 50), (5, 4), 0, True, [2, 0]),     # diamonds made
    ((91, 29), (8, 1), 2, True, [3, 0]),     # diamonds made, jänn
    ((50, 70), (4, 5), 0, True, [0, 4]),     # diamonds overthrown
    ((10, 110), (1, 8), 0, True, [0, 5]),    # diamonds overthrown, jänn
    ((120, 0), (9, 0), 0, True, [6, 0]),     # karvane for the declarers
    ((0, 120), (0, 9), 2, False, [0, 6]),    # karvane against them
    ((10, 110), (1, 8), None, True, [0, 1]),  # üleküla: 1, no jänn
    ((120, 0), (9, 0), None, True, [1, 0]),  # üleküla: no karvane
    ((60, 60), (4, 5), None, True, [0, 0]),  # pokk in üleküla too
    ((0, 120), (0, 9), 1, False, [0, 6]),    # karvane for the declarers of pair 1
])
def test_deal_points(card_points, tricks, declarer, diamonds, points):
    assert deal_points(list(card_points), list(tricks), declarer, diamonds) == points


# ---------------------------------------------------------------- whole records

KARVANE_AUCTION = """
S0 bid 5
S1 pass
S2 bid 6
S3 pass
S0 pass
S2 trump H
"""

KARVANE_PLAY = plays("""
S0 KC S1 AC S2 6H S3 AD
S0 KS S1 TC S2 7H S3 TD
S0 KH S1 9C S2 8H S3 9D
S0 KD S1 8C S2 9H S3 8D
S0 QC S1 7C S2 TH S3 7D
S0 QS S1 6C S2 AH S3 6D
S0 QH S1 AS S2 JD S3 8S
S0 QD S1 TS S2 JH S3 7S
S0 JC S1 9S S2 JS S3 6S
""")


def test_karvane_deal_step_by_step():
    actions = (KARVANE_AUCTION + KARVANE_PLAY).strip().splitlines()
    assert replay_json(record(KARVANE, "")) == state(None, None, False)
    assert replay_json(record(KARVANE, "\n".join(actions[:4]))) == state(None, None, False)
    # the third pass after a bid ends the auction: the declarer is known, the trump not yet
    assert replay_json(record(KARVANE, "\n".join(actions[:5]))) == state(2, None, False)
    assert replay_json(record(KARVANE, "\n".join(actions[:6]))) == state(2, "H", False)
    # one trick: KC AC 6H AD, 26 card points to pair 0
    assert replay_json(record(KARVANE, "\n".join(actions[:10]))) == state(2, "H", False, (26, 0), (1, 0))
    # three cards of the second trick: finished tricks only
    assert replay_json(record(KARVANE, "\n".join(actions[:13]))) == state(2, "H", False, (26, 0), (1, 0))
    assert replay_json(record(KARVANE, "\n".join(actions))) == state(
        2, "H", False, (120, 0), (9, 0), (6, 0), complete=True)


def test_nothing_after_the_ninth_trick():
    text = record(KARVANE, KARVANE_AUCTION + KARVANE_PLAY + "\nS0 pass")
    assert replay_json(text) == {"ok": False, "line": len(text.splitlines()), "error": "the deal is over"}


def test_all_pass_is_ueleküla_ruutu_one_point_no_karvane():
    auction = "S0 pass\nS1 pass\nS2 pass\nS3 pass"
    assert replay_json(record(KARVANE, auction)) == state(None, "D", True)
    assert replay_json(record(KARVANE, "S0 pass\nS1 pass\nS2 pass")) == state(None, None, False)
    # diamonds are trump: S2 must play its jacks on the kings, S3 its diamonds
    tricks = plays("""
    S0 KC S1 AC S2 JS S3 AD
    S0 KS S1 TC S2 JH S3 TD
    S0 KH S1 9C S2 JD S3 9D
    S0 KD S1 8C S2 AH S3 8D
    S0 QC S1 7C S2 TH S3 7D
    S0 QS S1 6C S2 9H S3 6D
    S0 QH S1 AS S2 8H S3 8S
    S0 QD S1 TS S2 7H S3 7S
    S0 JC S1 9S S2 6H S3 6S
    """)
    assert replay_json(record(KARVANE, auction + "\n" + tricks)) == state(
        None, "D", True, (120, 0), (9, 0), (1, 0), complete=True)
    # S2 holds trumps (its jacks) when diamonds are trump: the ace of hearts is a renege
    text = record(KARVANE, auction + "\n" + plays("S0 KC S1 AC S2 AH"))
    assert replay_json(text)["line"] == len(text.splitlines())


def test_diamonds_ends_the_auction_at_once_whatever_the_bids():
    assert replay_json(record(KARVANE, "S0 bid 7\nS1 diamonds")) == state(1, "D", True)
    # then forehand (S0) leads, not the declarer
    text = record(KARVANE, "S0 bid 7\nS1 diamonds\nS1 play AC")
    assert replay_json(text)["line"] == len(text.splitlines())
    assert replay_json(record(KARVANE, "S0 bid 7\nS1 diamonds\nS0 play KC")) == state(1, "D", True)
    # naming diamonds after a bid is a diamonds game too
    auction = "S0 bid 5\nS1 pass\nS2 pass\nS3 pass\nS0 trump D"
    assert replay_json(record(KARVANE, auction)) == state(0, "D", True)


def test_three_passes_then_a_bid_ends_the_auction():
    assert replay_json(record(KARVANE, "S0 pass\nS1 pass\nS2 pass\nS3 bid 5")) == state(3, None, False)
    text = record(KARVANE, "S0 pass\nS1 pass\nS2 pass\nS3 bid 5\nS0 play KC")
    assert replay_json(text)["line"] == len(text.splitlines())   # trump first
    text = record(KARVANE, "S0 pass\nS1 pass\nS2 pass\nS3 bid 5\nS2 trump C")
    assert replay_json(text)["line"] == len(text.splitlines())   # only the declarer names it
    text = record(KARVANE, "S0 pass\nS1 pass\nS2 pass\nS3 bid 5\nS3 trump X")
    assert replay_json(text)["line"] == len(text.splitlines())


FOLLOW_AUCTION = """
S1 give JC
S3 take
S3 return 9S
S1 bid 5
S2 pass
S3 bid 6
S0 pass
S1 pass
S3 trump S
"""

FOLLOW_PLAY = plays("""
S1 AC S2 TC S3 AD S0 6H
S1 9S S2 6S S3 JC S0 KC
S0 TH S1 6D S2 AH S3 AS
S3 TS S0 KS S1 TD S2 7S
S0 7H S1 6C S2 9C S3 QH
S3 QD S0 KH S1 7C S2 8S
S0 QC S1 7D S2 KD S3 JS
S2 8C S3 JH S0 8H S1 8D
S3 JD S0 9H S1 9D S2 QS
""")

DEAL1 = '[Game "sasku"]\n[Deal "1"]'


def test_a_picture_given_and_a_card_returned_then_a_made_suit_game():
    """Worked by hand: S1 (forehand of deal 1) hands JC to S3 for 9S; S3 declares spades.
    Tricks to pair 1: 32 + 32 + 3 + 2 = 69 card points in 4 tricks; pair 0: 51 in 5."""
    during = record(FOLLOW, "S1 give JC\nS3 take", DEAL1)
    assert replay_json(during) == state(None, None, False)
    after_two = record(FOLLOW, FOLLOW_AUCTION + "\n".join(FOLLOW_PLAY.splitlines()[:8]), DEAL1)
    assert replay_json(after_two) == state(3, "S", False, (6, 32), (1, 1))
    text = record(FOLLOW, FOLLOW_AUCTION + FOLLOW_PLAY, DEAL1)
    assert replay_json(text) == state(3, "S", False, (51, 69), (5, 4), (0, 1), complete=True)


def bad_line(seats, actions, tags='[Game "sasku"]'):
    """The oracle's line for a record whose last action is the bad one; asserts it is."""
    text = record(seats, actions, tags)
    result = replay_json(text)
    assert result["ok"] is False, result
    assert result["line"] == len(text.splitlines()), result
    return result["error"]


@pytest.mark.parametrize("actions", [
    # a club led: S2 holds clubs and must play one; a picture is not a club
    FOLLOW_AUCTION + "S1 play AC\nS2 play KD",
    FOLLOW_AUCTION + "S1 play AC\nS2 play 6S",
    # a trump led: S2 holds trumps (KD QS 6S 7S 8S) and must play one
    FOLLOW_AUCTION + plays("S1 AC S2 TC S3 AD S0 6H") + "\nS1 play 9S\nS2 play 9C",
    # S0 holds its pictures: a trump (9S) led, hearts are a renege
    FOLLOW_AUCTION + plays("S1 AC S2 TC S3 AD S0 6H") + "\nS1 play 9S\nS2 play 6S\nS3 play JC\nS0 play 6H",
    # not S0's turn: the trick's winner S1 leads
    FOLLOW_AUCTION + plays("S1 AC S2 TC S3 AD S0 6H") + "\nS0 play KC",
    # a card S1 gave away
    FOLLOW_AUCTION + "S1 play JC",
])
def test_renege_and_turn_errors(actions):
    bad_line(FOLLOW, actions, DEAL1)


def test_no_duty_to_trump_or_to_beat_a_trump():
    # S3 has no plain club (JC is a picture): it may throw AD; S0 has none: 6H
    assert replay_json(record(FOLLOW, FOLLOW_AUCTION + plays("S1 AC S2 TC S3 AD S0 6H"), DEAL1))["ok"]
    # S2 plays its lowest trump under S1's 9S though it holds KD
    assert replay_json(record(FOLLOW, FOLLOW_AUCTION + plays("S1 AC S2 TC S3 AD S0 6H") + "\n"
                              + plays("S1 9S S2 6S"), DEAL1))["ok"]


@pytest.mark.parametrize("actions", [
    "S1 give 6C",                       # not a picture
    "S1 give QH",                       # not S1's
    "S0 give KC",                       # not S0's turn (and four pictures)
    "S1 give JC\nS1 bid 5",             # the partner answers first
    "S1 give JC\nS2 take",              # only the partner answers
    "S1 give JC\nS3 take\nS1 bid 5",    # the partner returns a card first
    "S1 give JC\nS3 take\nS3 return JC",  # a picture cannot come back
    "S1 give JC\nS3 take\nS3 return QH",
    "S1 give JC\nS3 take\nS3 return 6C",  # not S3's
    "S1 give JC\nS3 take\nS0 return 6H",
    "S1 give JC\nS3 refuse\nS1 give JC",  # a refused give was S1's one give
    "S1 give JC\nS3 take\nS3 return 9S\nS1 bid 5\nS2 give KD",  # S2 holds two pictures
    "S1 pass\nS2 pass\nS3 pass\nS0 pass\nS1 give JC",  # the auction is over
    "S3 take",
    "S1 refuse",
    "S1 return 6C",
])
def test_give_errors(actions):
    bad_line(FOLLOW, actions, DEAL1)


def test_refused_give_and_the_turn_goes_on():
    assert replay_json(record(FOLLOW, "S1 give JC\nS3 refuse\nS1 bid 5", DEAL1)) == state(None, None, False)
    text = record(FOLLOW, "S1 give JC\nS3 refuse\nS1 pass\nS2 pass\nS3 pass\nS0 pass\n"
                  + plays("S1 JC"), DEAL1)
    assert replay_json(text) == state(None, "D", True)   # S1 still holds JC


def test_a_seat_that_received_a_picture_may_give_it_on():
    # S0 holds one picture (KC), S2 none; S2 takes it and later gives it back
    seats = {0: "KC AS TS 9S 8S 7S 6S AH TH", 1: "KS KH KD QC QS QH AC TC 9C",
             2: "AD TD 9D 8D 7D 6D 9H 8H 7H", 3: "QD JC JS JH JD 8C 7C 6C 6H"}
    actions = "S0 give KC\nS2 take\nS2 return AD\nS0 bid 5\nS1 pass\nS2 give KC\nS0 take\nS0 return AS\nS2 bid 6"
    assert replay_json(record(seats, actions)) == state(None, None, False)
    bad_line(seats, "S0 give KC\nS2 take\nS2 return AD\nS0 bid 5\nS1 pass\nS2 give KC\nS0 take\nS0 return KC")
    # S0 gave once: never again, even holding one picture again
    bad_line(seats, actions + "\nS3 pass\nS0 give KC")


def test_no_give_when_the_partner_holds_nine_pictures():
    seats = {0: "KC AS TS 9S 8S 7S 6S AH TH", 2: "KS KH KD QC QS QH QD JC JS",
             1: "JH AC TC 9C 8C 7C 6C 9H 8H", 3: "JD AD TD 9D 8D 7D 6D 7H 6H"}
    bad_line(seats, "S0 give KC")
    assert replay_json(record(seats, "S0 bid 5\nS1 give JH\nS3 take\nS3 return 6D"))["ok"]


@pytest.mark.parametrize("actions", [
    "S0 bid 4",                          # under 5
    "S0 bid 10",                         # over 9
    "S0 bid 5\nS1 bid 5",                # not higher
    "S0 bid 9\nS1 bid 9",
    "S0 pass\nS1 pass\nS2 pass\nS3 pass\nS0 bid 5",   # after the auction
    "S0 bid 5\nS1 pass\nS2 pass\nS3 bid 6\nS1 bid 7",  # S1 passed: skipped
    "S0 bid 5\nS1 pass\nS2 pass\nS3 bid 6\nS0 pass\nS3 play 8S",  # trump not named
    "S1 bid 5",                          # forehand (S0) bids first
    "S0 bid",                            # truncated
    "S0 bid five",
    "S0 bid 5 6",
    "S0 pass 5",
    "S0 diamonds D",
    "S0 trump H",                        # the auction is not over
    "S0 play KC",
    "S0 bid 5\nS1 pass\nS2 pass\nS3 pass\nS0 trump",
    "S0 bid 5\nS1 pass\nS2 pass\nS3 pass\nS0 trump h",
    "S0 bid 5\nS1 pass\nS2 pass\nS3 pass\nS0 trump CH",
    "S0 bid 5\nS1 pass\nS2 pass\nS3 pass\nS0 trump H\nS0 trump C",
    "s0 bid 5",
    "S0 BID 5",
    "S0 fold",
    "S4 pass",
    "S0 play",
    "S0 pla",
])
def test_auction_and_line_errors(actions):
    bad_line(KARVANE, actions)


def test_the_next_seat_skips_those_who_passed():
    actions = "S0 bid 5\nS1 pass\nS2 pass\nS3 bid 6\nS0 bid 7\nS3 pass\nS0 trump C"
    assert replay_json(record(KARVANE, actions)) == state(0, "C", False)
    # a seat that bid may still say diamonds on its next turn
    assert replay_json(record(KARVANE, "S0 bid 5\nS1 bid 6\nS2 pass\nS3 pass\nS0 diamonds")) == state(0, "D", True)


def test_deal_number_sets_forehand_and_min_bid_the_smallest_bid():
    tags = '[Game "sasku"]\n[Deal "6"]'                     # forehand S2
    assert replay_json(record(KARVANE, "S2 bid 5\nS3 pass", tags))["ok"]
    bad_line(KARVANE, "S0 bid 5", tags)
    tags = '[Game "sasku"]\n[MinBid "7"]'
    bad_line(KARVANE, "S0 bid 6", tags)
    assert replay_json(record(KARVANE, "S0 bid 7", tags))["ok"]
    assert replay_json(record(KARVANE, "S0 bid 9", '[Game "sasku"]\n[PictureShown "yes"]'))["ok"]


def tag_error(tags: str, seats=KARVANE, actions="S0 bid 5") -> int:
    result = replay_json(record(seats, actions, tags))
    assert result["ok"] is False, result
    return result["line"]


def test_tag_errors_on_their_lines():
    assert tag_error('[Game "sasku"]\n[Deal "x"]') == 2
    assert tag_error('[Game "sasku"]\n[Deal "-1"]') == 2
    assert tag_error('[Game "sasku"]\n[MinBid "x"]') == 2
    assert tag_error('[Game "sasku"]\n[PictureShown "true"]') == 2
    assert tag_error('[Game "sasku"]\n[Deal "1"]\n[Deal "1"]') == 3
    assert tag_error('[Game "sasku"]\n[Game "sasku"]') == 2
    assert tag_error('[Game "sasku"]\n[Deal "1"') == 2
    # a card of Sasaki's pack, not Sasku's; eight cards; a card dealt twice
    assert tag_error('[Game "sasku"]', {**KARVANE, 0: "5C KS KH KD QC QS QH QD JC"}) == 2
    assert tag_error('[Game "sasku"]', {**KARVANE, 1: "AC TC 9C 8C 7C 6C AS TS"}) == 3
    assert tag_error('[Game "sasku"]', {**KARVANE, 3: "8S 7S 6S AD TD 9D 8D 7D KC"}) == 5
    # a Deal tag after the first action, on its line
    text = record(KARVANE, 'S0 bid 5\n[Deal "2"]')
    assert replay_json(text)["line"] == 7
    # unknown tags are ignored anywhere
    assert replay_json(record(KARVANE, 'S0 bid 5\n[Event "x"]'))["ok"]


def test_missing_seat_tag():
    text = '[Game "sasku"]\n' + "\n".join(f'[Seat{s} "{KARVANE[s]}"]' for s in range(3)) + "\nS0 bid 5\n"
    assert replay_json(text)["line"] == 5
    assert replay_json(text.replace("S0 bid 5\n", ""))["line"] == 5


def test_comments_blank_lines_and_card_spellings():
    seats = {**KARVANE, 1: "A♣ 10C 9c 8C 7C 6C as ts 9S"}
    text = record(seats, "# a comment\n\nS0 bid 5   # five\nS1 pass\nS2 pass\nS3 pass\nS0 trump C\nS0 play kc\nS1 play 10♣")
    assert replay_json(text) == state(0, "C", False)


def test_without_the_game_tag_a_record_is_sasaki():
    result = replay_json(record(KARVANE, "S0 bid 5", tags=""))
    assert result["ok"] is False and result["line"] == 1   # Sasaki deals 12 cards a seat
