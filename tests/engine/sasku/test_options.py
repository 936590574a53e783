"""p2p_sasaki/sasku/options.py: the table options and their defaults."""

import pytest

from p2p_sasaki.sasku.options import SaskuOptions


def test_defaults():
    """sasku-rules.md: min_bid 5, picture_shown no, target 12."""
    assert SaskuOptions() == SaskuOptions(min_bid=5, picture_shown=False, target=12)


@pytest.mark.parametrize(("options", "message"), [
    ({"min_bid": 10}, "min_bid must be a number from 1 to 9, not 10"),
    ({"min_bid": 0}, "min_bid must be a number from 1 to 9, not 0"),
    ({"picture_shown": "yes"}, "picture_shown must be True or False, not 'yes'"),
    ({"target": 0}, "target must be a whole number of game points, 1 or more, not 0"),
])
def test_bad_options(options, message):
    with pytest.raises(ValueError) as info:
        SaskuOptions(**options)
    assert str(info.value) == message
