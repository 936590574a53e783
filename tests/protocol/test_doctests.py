"""The examples in the docstrings of protocol/'s pure modules run."""

from __future__ import annotations

import doctest

import pytest

from p2p_sasaki.protocol import abandon, hidden_rules, intake, pace, slots, tournament, tournament_files


@pytest.mark.parametrize("module", [abandon, hidden_rules, intake, pace, slots, tournament, tournament_files],
                         ids=lambda m: m.__name__)
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
