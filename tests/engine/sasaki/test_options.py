"""p2p_sasaki/sasaki/options.py: table options and the opening-3 clock rule."""

import pytest

from p2p_sasaki.sasaki.options import TableOptions, resolve_lead_card


def test_defaults():
    """sasaki-rules.md: lead_card auto, lead_must_contain_3 off, running before_first_play."""
    assert TableOptions() == TableOptions("auto", False, "before_first_play")


@pytest.mark.parametrize("hour, card", [(0, "3S"), (5, "3S"), (6, "3H"), (12, "3H"), (17, "3H"),
                                        (18, "3S"), (23, "3S")])
def test_auto_lead_is_3h_by_day_06_to_18(hour, card):
    """sasaki-rules.md, Seating, deal and first lead: 3H by day (06:00-18:00), 3S in the evening."""
    assert str(resolve_lead_card("auto", hour)) == card
    assert str(resolve_lead_card("3S", hour)) == "3S"
    assert str(resolve_lead_card("3H", hour)) == "3H"


def test_bad_options():
    with pytest.raises(ValueError, match="lead_card must be one of 3H, 3S, auto"):
        TableOptions(lead_card="4H")
    with pytest.raises(ValueError, match="running must be one of"):
        TableOptions(running="never")
    with pytest.raises(ValueError):
        resolve_lead_card("auto", 24)
