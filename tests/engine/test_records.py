"""p2p_sasaki/records.py: the record shape both games share."""

import pytest

from p2p_sasaki.cards import CardSet
from p2p_sasaki.records import (
    ActionLine,
    Header,
    RecordError,
    TagLine,
    game_of,
    parse_lines,
    physical_lines,
    read,
    split_action,
)


def words(number, text):
    return text.split()


def test_physical_lines_count_every_line_and_a_final_newline_starts_none():
    assert physical_lines("a\r\n\nb\n") == ["a", "", "b"]
    assert physical_lines("a") == ["a"] and physical_lines("") == []


def test_comments_tags_and_actions():
    items = list(parse_lines('# c\n[Event "x y"]  # z\n\nS0 bid 6 # six\n', words))
    assert items == [TagLine(2, "Event", "x y"), ActionLine(4, ["S0", "bid", "6"])]
    with pytest.raises(RecordError) as info:
        list(parse_lines('\n[Event x]\n', words))
    assert (info.value.line, info.value.message) == (2, "cannot read the tag '[Event x]': write [Tag \"value\"]")
    with pytest.raises(RecordError, match="line 1: cannot read the tag"):
        list(parse_lines('[Event "x # y"]', words))  # a comment starts anywhere, even inside quotes


@pytest.mark.parametrize(("text", "message"), [
    ("bid 6", "cannot read 'bid 6': expected a tag like [Seat0 \"...\"] or an action like 'S0 bid 6'"),
    ("S9 bid 6", "S9 is not a seat: seats are S0 to S3"),
    ("S01 bid 6", "S01 is not a seat: seats are S0 to S3"),
    ("S\u0661 bid 6", "cannot read 'S\u0661 bid 6': expected a tag like [Seat0 \"...\"] or an action like 'S0 bid 6'"),
    ("S1", "S1 has no action: expected bid, pass or play"),
    ("S1 Bid", "unknown action 'Bid': expected bid, pass or play"),
])
def test_split_action_errors(text, message):
    with pytest.raises(RecordError) as info:
        split_action(7, text, "S0 bid 6", ("bid", "pass", "play"))
    assert (info.value.line, info.value.message) == (7, message)


class NineCards(Header):
    hand_size = 9
    known_tags = ("Seat0", "Seat1", "Seat2", "Seat3", "Option")


SEATS = ['[Seat0 "6C 7C 8C 9C TC JC QC KC AC"]', '[Seat1 "6D 7D 8D 9D TD JD QD KD AD"]',
         '[Seat2 "6H 7H 8H 9H TH JH QH KH AH"]', '[Seat3 "6S 7S 8S 9S TS JS QS KS AS"]']


def test_read_checks_tags_where_they_show():
    text = "\n".join([*SEATS, "S0 go", '[Other "ignored"]']) + "\n"
    (header, first), = list(read(text, NineCards(), words))
    assert first == ActionLine(5, ["S0", "go"])
    assert str(CardSet(header.deal(0)[0])) == "6C 7C 8C 9C TC JC QC KC AC" and header.tags["Other"] == "ignored"
    with pytest.raises(RecordError, match="line 6: the Option tag must come before the first action"):
        list(read(text.replace("Other", "Option"), NineCards(), words))
    with pytest.raises(RecordError, match="line 5: the Seat3 tag is missing: a record deals 9 cards"):
        list(read("\n".join([*SEATS[:3], "", "S0 go"]), NineCards(), words))
    with pytest.raises(RecordError, match="line 2: the Seat1 tag is given twice"):
        list(read("\n".join([SEATS[1], SEATS[1]]), NineCards(), words))
    with pytest.raises(RecordError, match="line 2: 6C is already dealt to seat 0"):
        list(read("\n".join([SEATS[0], SEATS[1].replace("6D", "6C")]), NineCards(), words))
    assert list(read("\n".join(SEATS), NineCards(), words))[0][1] is None


def test_game_of():
    assert game_of("") == "sasaki" and game_of('[Game "sasku"] # c') == "sasku"
    with pytest.raises(RecordError, match="line 1: unknown game 'Sasku': the Game tag is sasaki or sasku"):
        game_of('[Game "Sasku"]')
