"""Building Sasku deals and driving them with record lines in tests."""

from __future__ import annotations

from p2p_sasaki.cards import CardSet
from p2p_sasaki.errors import IllegalActionError
from p2p_sasaki.sasku.deal import Deal, apply
from p2p_sasaki.sasku.options import SaskuOptions
from p2p_sasaki.sasku.records import parse_action

# A deal with every ruling in reach: S0 holds one picture (KC) and all the plain hearts,
# S2 eight pictures and 9C, S1 three pictures and the low spades, S3 no picture.
HANDS = ("KC AH TH 9H 8H 7H 6H AS TS",
         "KS QS JS 9S 8S 7S 6S AC TC",
         "KH KD QC QH QD JC JH JD 9C",
         "6C 7C 8C AD TD 9D 8D 7D 6D")
# The same with JS and 9C swapped: S2 holds nine pictures.
NINE = ("KC AH TH 9H 8H 7H 6H AS TS",
        "KS QS 9C 9S 8S 7S 6S AC TC",
        "KH KD QC QH QD JC JH JD JS",
        "6C 7C 8C AD TD 9D 8D 7D 6D")


def new_deal(hands: tuple[str, ...] = HANDS, deal_number: int = 0, **options: object) -> Deal:
    return Deal(hands, deal_number, SaskuOptions(**options))  # type: ignore[arg-type]


def run(deal: Deal, *lines: str) -> Deal:
    """The deal after the actions written as record lines (``"S0 bid 6"``)."""
    for line in lines:
        deal = apply(deal, parse_action(0, line))
    return deal


def refused(deal: Deal, *lines: str) -> tuple[str, int | None]:
    """All but the last line apply; the last is illegal: (its message, the seat blamed)."""
    deal = run(deal, *lines[:-1])
    try:
        apply(deal, parse_action(0, lines[-1]))
    except IllegalActionError as error:
        return str(error), error.seat
    raise AssertionError(f"{lines[-1]!r} was accepted")


def cards(text: str) -> CardSet:
    return CardSet.parse(text)
